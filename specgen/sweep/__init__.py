"""Exhaustive and sampled sweeps: every input of a dtype through a backend, judged by the error model.

Layers (docs/sweep.md): ``space`` (which input the i-th index is), ``judge`` (the one seam to golden
values and compare), ``summary`` (a bounded, associatively mergeable result), ``chunk`` (the pure
chunk function), ``execute`` (process pool, Dask, shards, resume, crash bisection, progress),
``run`` (option handling), ``report`` (terminal, JSON, Markdown, PNG plot).
"""
