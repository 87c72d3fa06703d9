"""Exports of the golden corpus for harnesses that do not run Python: views of the manifest's case
records (DESIGN.md §7), each saying what it cannot carry.

- ``onnx``: ONNX's backend-test layout (``DIR/specgen/test_<case>/model.onnx`` and
  ``test_data_set_0/input_0.pb``, ``output_0.pb``, ``data.json`` with rtol/atol), loadable by
  ``onnx.backend.test.loader.load_model_tests(DIR, kind="specgen")``. Only positive, dense,
  not-in-place cases of the ``onnx`` standard: other standards have no ONNX model, ONNX tensors
  have no strides or aliasing, and backend tests have no must-reject cases.
- ``npz``: ``DIR/<case>.npz`` per case (arrays by the spec's tensor names) plus
  ``DIR/manifest.json`` with every case record (shapes, dtypes, strides, in-place, attributes,
  the tolerance record) for C/C++ harnesses (cnpy, xtensor, NumPy).
"""
from __future__ import annotations

import hashlib
import re

LOST = {
    "onnx": ("The per-element error bound of the error model (specgen's `model` tolerance accepts exactly the results "
             "of a correct evaluation order) becomes one rtol/atol pair per dtype in data.json; NaN payloads, the "
             "sign of zero and flush-to-zero allowances are not expressible; an accumulating operator's bound (any "
             "summation order and allowed accumulation type, per element) becomes atol = its widest element's bound, "
             "rtol 0; must-reject, strided, in-place and "
             "non-ONNX cases are not exported. Generated-on-the-fly cases (a `recipe` in the manifest) are "
             "materialised: their tensors are written like any other's."),
    "npz": ("Nothing of the data: every tensor and every manifest field is kept. The error model itself is not "
            "code a C/C++ harness has: `tolerance` says `model` (judge with specgen's compare, or bound the error by "
            "the ULPs documented in docs/error-model.md) or `accumulation` (docs/accumulation.md); bfloat16 tensors are stored as their uint16 bit patterns "
            "(npz has no bfloat16). Generated-on-the-fly cases (a `recipe` in the manifest) are materialised into their "
            ".npz like any other; the record keeps the recipe (source case, seed, counts) for reference."),
}


def case_dir_name(case_id: str, taken: set[str]) -> str:
    """A file-system-safe, readable, unique name for a case id."""
    base = re.sub(r"[^A-Za-z0-9]+", "_", case_id).strip("_")
    name = base
    if name in taken:
        name = f"{base}_{hashlib.sha256(case_id.encode()).hexdigest()[:8]}"
    taken.add(name)
    return name
