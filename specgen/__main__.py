"""``python -m specgen``: the same command line as the ``specgen`` script."""
from specgen.cli import entry

entry()
