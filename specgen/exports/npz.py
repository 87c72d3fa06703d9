"""The corpus as one .npz per case plus a JSON manifest (see specgen.exports)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from specgen import dtypes as dt
from specgen.exports import LOST, case_dir_name


def export(cases, specs: dict, out: Path) -> dict:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    taken: set[str] = set()
    records = []
    for case in cases:
        data = case.load()
        arrays = {}
        stored_as = {}
        for name, arr in data.items():
            if arr.dtype.kind != "f" and dt.is_float_numpy(arr.dtype):  # bfloat16, float8: npz has no such type
                d = dt.by_numpy(arr.dtype)
                arrays[name] = np.require(arr, requirements="C").view(d.uint_view)
                stored_as[name] = f"uint{d.bits} bits of {d.name}"
            else:
                arrays[name] = np.require(arr, requirements="C")
        fname = case_dir_name(case.id, taken) + ".npz"
        np.savez(out / fname, **arrays)
        rec = {k: getattr(case, k) for k in ("id", "op", "standard", "version", "dtype", "kind", "violations", "shapes",
                                             "dtypes", "strides", "in_place", "attributes", "attributes_given",
                                             "tolerance", "tags")}
        rec.update({"npz": fname, "arrays": sorted(arrays), "stored_as": stored_as})
        if getattr(case, "recipe", None) is not None:
            rec["recipe"] = dict(case.recipe)  # materialised above; says where the data came from
        records.append(rec)
    manifest = {"format": 1, "exported_by": "specgen export --format npz", "lost": LOST["npz"],
                "note": "arrays are dense row-major; `strides` say how a backend call must lay them out", "cases": records}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    return {"written": len(records), "skipped": {}}
