"""Numerics: ULP arithmetic (``ulp``), the error model (``error_model``) and the comparison (``compare``)."""
