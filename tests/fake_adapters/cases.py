"""In-memory cases for the runner's tests, with expected values computed once from the formula
in float64 (attributes float32-rounded), rounded once to the case dtype."""
from __future__ import annotations

import numpy as np

from specgen import dtypes as dt
from specgen.formula.numpy_eval import evaluate
from specgen.runner.cases import MemoryCase
from specgen.spec.loader import load_all

SPECS = load_all()


def expected(op: str, x: np.ndarray, attributes: dict, dtype: str) -> np.ndarray:
    spec = SPECS[op]
    env = {k: np.float64(np.float32(v)) for k, v in attributes.items()}
    env["x"] = np.asarray(x).astype(np.float64)
    y = evaluate(spec.formula, env)
    return np.asarray(y, dtype=np.float64).astype(dt.get(dtype).numpy)


def case(op="hard_sigmoid", standard="onnx", version="22", dtype="float32", x=None, attributes=None, *,
         shape=(2, 3, 4), name="basic", given=None, in_place=False, strides=None, kind="positive",
         violations=(), y_shape=None, seed=0) -> MemoryCase:
    npdt = dt.get(dtype).numpy
    if x is None:
        rng = np.random.default_rng(seed)
        x = rng.uniform(-6, 6, size=shape)
    x = np.asarray(x).astype(npdt)
    if attributes is None:
        attributes = {"hard_sigmoid": {"alpha": 0.2, "beta": 0.5}, "shrink": {"bias": 0.0, "threshold": 0.5},
                      "softsign": {}}[op]
    attributes = {k: float(np.float32(v)) for k, v in attributes.items()}
    data = {"x": x}
    shapes = {"x": list(x.shape), "y": list(y_shape if y_shape is not None else x.shape)}
    if kind == "positive":
        data["y"] = expected(op, x, attributes, dtype)
    cid = f"{op}/{standard}-{version}/{dtype}/rank{x.ndim}/{name}"
    return MemoryCase(id=cid, op=op, standard=standard, version=str(version), dtype=dtype, data=data, kind=kind,
                      violations=tuple(violations), shapes=shapes, dtypes={"x": dtype, "y": dtype},
                      strides={"x": list(strides) if strides else None}, in_place=in_place,
                      attributes=attributes, attributes_given=tuple(given if given is not None else attributes),
                      tolerance={"metric": "model", "intermediate": dtype, "value": None}, tags=(name,))


def standard_set() -> list[MemoryCase]:
    """A small set that exercises every fake's defect, each in its own case."""
    xs_thr = np.array([-0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75], dtype=np.float32)
    out = [
        case("hard_sigmoid", name="defaults"),
        case("hard_sigmoid", attributes={"alpha": -0.7, "beta": 0.3}, name="attrs-nondefault"),
        case("hard_sigmoid", dtype="float16", name="defaults"),
        case("shrink", version="9", attributes={"bias": 0.25, "threshold": 0.5}, x=xs_thr, name="threshold"),
        case("shrink", version="9", attributes={"bias": 0.0, "threshold": 1.0}, x=np.linspace(-0.9, 0.9, 7),
             name="inside-band"),
        case("hard_sigmoid", standard="directml", version="3_0", shape=(2, 2, 2, 2, 3), name="rank5"),
        case("hard_sigmoid", shape=(3, 100, 250), name="large", seed=3),
        case("hard_sigmoid", standard="directml", version="3_0", shape=(4, 5), in_place=True, name="in-place"),
        case("hard_sigmoid", shape=(4, 6), strides=(12, -2), name="strided"),
        case("hard_sigmoid", standard="directml", version="3_0", shape=(1, 2, 3, 4, 5, 6, 7, 8, 2), kind="negative",
             violations=("rank 9 is outside 1 to 8",), name="neg-rank9"),
        case("hard_sigmoid", shape=(2, 3), y_shape=(3, 2), kind="negative",
             violations=("y sizes [3, 2] differ from x sizes [2, 3]",), name="neg-shape-mismatch"),
    ]
    return out


def write_corpus(directory, cases) -> None:
    """Write MemoryCases as a real corpus (specgen.vectors format) under ``directory``."""
    from specgen.vectors import CorpusWriter

    w = CorpusWriter()
    for c in cases:
        w.add(id=c.id, op=c.op, standard=c.standard, version=c.version, dtype=c.dtype, kind=c.kind,
              violations=list(c.violations), shapes=c.shapes, dtypes=c.dtypes, strides=c.strides, in_place=c.in_place,
              attributes=c.attributes, attributes_given=list(c.attributes_given), tolerance=c.tolerance,
              tags=list(c.tags), tensors=c.data, file=f"{c.op}/{c.standard}-{c.version}.bin")
    w.write(directory)
