"""``specgen generate``: reference code, validation code and golden vectors from the specs.

Modules, one job each: ``floats`` (dtype bit facts, exact rounding), ``exact`` (golden values),
``design`` (input values from breakpoints/regions/specials), ``corpus`` (the case matrix),
``rules`` (standard-wide facts the specs do not state yet), ``render`` (templates), ``tree``
(build, atomic swap, --check diff).
"""
