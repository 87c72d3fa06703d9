"""Operators over index sets (issue 21): reductions, softmax, contractions, normalizations.

An accumulating operator's spec has an ``index_space``: each tensor's dimensions as labels
(``"... m k"``), named index sets the formula reduces over (``reduce_sum(a * b, k)``), and how
axes attributes select them. ``space`` reads that block, ``layout`` resolves it for concrete
shapes and attributes (output shapes, must-reject violations), ``evaluate`` computes a formula
over the layout (float64 enclosures for golden values and the error model, and simulated
kernels in any accumulation type and summation order), ``golden`` the correctly rounded values.
"""
