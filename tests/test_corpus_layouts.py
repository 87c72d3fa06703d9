"""Issue 14 (layouts, aliasing, sizes): the corpus's layout, in-place and size-boundary cases against fake kernels that are
wrong in exactly one way each (tests/fake_adapters/memory.py). Every fake fails the cases of its
class (and only where the defect shows), the correct raw-memory kernel and the reference pass
them all."""
from __future__ import annotations

import pytest

from specgen.adapters.registry import load_object
from specgen.runner.cases import load_cases
from specgen.runner.core import FAIL, PASS, Runner
from specgen.spec.loader import load_all

try:
    from specgen.numerics.compare import compare as COMPARE
except ImportError:  # pragma: no cover
    pytest.skip("the error model is not in this checkout", allow_module_level=True)

SPECS = load_all()
ALL = load_cases()
OPS = ("hard_sigmoid", "shrink", "softsign")
FLOATS = ("float32", "float16")
# the fakes implement the seed operators for float32 and float16 under ONNX and DirectML; tails of
# one operator are enough for a kernel's tail (the reference runs every case: test_adapters_shipped)
DEPTH = [c for c in ALL if c.op in OPS and c.dtype in FLOATS and c.kind == "positive"
         and c.standard in ("onnx", "directml") and {"layout", "in-place", "size-boundary"} & set(c.tags)
         and ("size-tail" not in c.tags or (c.op, c.standard) == ("hard_sigmoid", "directml"))]

# the one layout the corpus had before issue 14 (padded inner rows, row-major order)
OLD_STRIDED = [c for c in ALL if "strided" in c.tags and c.op in OPS and c.dtype in FLOATS and c.standard == "directml"]


def tagged(*tags):
    return [c for c in DEPTH if set(tags) <= set(c.tags)]


def run(name, cases, module="fake_adapters.memory"):
    assert cases
    adapter = load_object(name, f"{module}:{name}")
    return Runner(adapter, SPECS, compare=COMPARE, probe=False).run(cases).results


def verdicts(results):
    return {r.case_id: r.verdict for r in results}


def test_the_corpus_has_each_class_for_the_seed_operators():
    for op in OPS:
        mine = [c for c in ALL if c.op == op]
        for tag in ("layout-permuted", "layout-padded", "layout-max-rank", "layout-broadcast-stride", "in-place",
                    "size-tail", "size-2^16"):
            assert any(tag in c.tags for c in mine), (op, tag)


def test_the_correct_raw_kernel_passes_every_depth_case():
    bad = [(r.case_id, r.reason) for r in run("RawCorrect", DEPTH + OLD_STRIDED) if r.verdict != PASS]
    assert bad == []


@pytest.mark.parametrize("name, fails_on, passes_on", [
    # memory order differs from logical order only in the permuted layouts
    ("WalksMemoryOrder", ("layout-permuted", "layout-max-rank"), ("layout-padded", "strided")),
    # padding in the outermost dimension is what the old one-layout case lacked
    ("IgnoresOuterStride", ("layout-padded", "layout-max-rank"), ("strided",)),
    ("IgnoresZeroStride", ("layout-broadcast-stride",), ("layout-padded", "layout-permuted")),
    ("IgnoresOutputStrides", ("layout-permuted", "layout-padded", "layout-max-rank"), ("layout-broadcast-stride",)),
    ("InPlaceSkipsFirst", ("in-place",), ("layout-padded",)),
    ("InPlaceSkipsLast", ("in-place",), ("layout-padded",)),
    ("Index16", ("size-2^16",), ("size-tail",)),
])
def test_each_defect_fails_its_class_and_only_where_it_shows(name, fails_on, passes_on):
    cases = [c for c in DEPTH + OLD_STRIDED if set(fails_on + passes_on) & set(c.tags)]
    got = {c.id: (c, v) for c, v in zip(cases, [r.verdict for r in run(name, cases)])}
    for tag in fails_on:
        wrong = [cid for cid, (c, v) in got.items() if tag in c.tags and v != FAIL]
        assert not wrong and any(tag in c.tags for c, _ in got.values()), (name, tag, wrong[:5])
    for tag in passes_on:
        wrong = [cid for cid, (c, v) in got.items() if tag in c.tags and v != PASS]
        assert not wrong, (name, tag, wrong[:5])


def test_a_reread_after_store_fails_every_non_default_in_place_case():
    """f(f(x)) = f(x) for every input under some defaults (Shrink with bias 0): those cases cannot
    show a re-read; the non-default set of every row can, and does."""
    cases = tagged("in-place")
    got = dict(zip([c.id for c in cases], [r.verdict for r in run("InPlaceRereadsChunkStarts", cases)]))
    non_default = [c for c in cases if "[" in c.id]
    assert non_default and all(got[c.id] == FAIL for c in non_default)
    no_attributes = [c for c in cases if not SPECS[c.op].attribute_names]  # Softsign: its one in-place case
    assert no_attributes and all(got[c.id] == FAIL for c in no_attributes)
    rows = {c.id.rsplit("/", 1)[0] for c in cases}
    assert rows == {c.id.rsplit("/", 1)[0] for c in non_default + no_attributes}


def test_a_tail_defect_fails_exactly_the_sizes_that_are_not_a_multiple_of_its_vector_width():
    cases = tagged("size-tail")
    results = run("SkipsTail", cases)
    for c, r in zip(cases, results):
        n = c.shapes["x"][-1]
        assert r.verdict == (FAIL if n % 16 else PASS), (c.id, r.verdict, r.reason)
    # every power-of-two width up to 64 sees a tail of 1 and of width - 1, and 16 a whole vector
    assert {c.shapes["x"][-1] % 64 for c in cases} >= {1, 3, 7, 15, 16, 31, 63}


def test_a_store_past_the_end_is_caught_by_the_guard_even_with_every_value_right():
    cases = tagged("size-tail")
    results = run("OverrunsTail", cases)
    for c, r in zip(cases, results):
        if c.shapes["x"][-1] % 16:
            assert r.verdict == FAIL and r.cause == "wrote-outside" and "after its last element" in r.reason, r.reason
        else:
            assert r.verdict == PASS


def test_writing_over_an_outputs_gaps_is_reported_as_such():
    cases = tagged("layout-padded")[:4]
    for r in run("IgnoresOutputStrides", cases):
        assert r.cause == "wrote-outside" and "between its elements" in r.reason, r.reason


# -- generated-on-the-fly cases (specgen.vectors.recipe)

def _splitmix_index(seed: int, i: int, n: int) -> int:
    """docs/vectors.md's definition, in Python integers (an independent reading of it)."""
    m = 2**64
    z = (seed + (i + 1) * 0x9E3779B97F4A7C15) % m
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % m
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % m
    return (z ^ (z >> 31)) % n


def test_a_recipe_member_is_the_documented_gather_of_its_source():
    import numpy as np

    c = next(c for c in ALL if "size-2^16" in c.tags and c.op == "hard_sigmoid" and c.standard == "onnx")
    assert c.file is None and c.recipe["generator"] == "gather" and c.shapes["x"] == [2**16 + 1]
    got, src = c.load(), c.source.load()
    n = src["x"].size
    for i in (0, 1, 2**16 - 1, 2**16):
        j = _splitmix_index(c.recipe["seed"], i, n)
        for t in ("x", "y"):
            assert got[t].reshape(-1)[i].tobytes() == src[t].reshape(-1)[j].tobytes()
    assert got["y"].reshape(-1)[2**16].tobytes() != got["y"].reshape(-1)[0].tobytes()  # the wrap shows


def test_a_recipe_whose_seed_or_source_changed_fails_its_sha256(tmp_path):
    import json

    import numpy as np

    from specgen.vectors import CorpusError, CorpusWriter, load_corpus
    from specgen.vectors import recipe

    w = CorpusWriter()
    x = np.linspace(-3, 3, 11, dtype=np.float32)
    common = dict(op="hard_sigmoid", standard="onnx", version="22", dtype="float32", kind="positive", violations=[],
                  dtypes={"x": "float32", "y": "float32"}, strides={"x": None, "y": None}, in_place=False,
                  attributes={}, attributes_given=[], tolerance={}, file="f.bin")
    w.add(id="op/src", shapes={"x": [11], "y": [11]}, tags=["sweep"], tensors={"x": x, "y": -x}, **common)
    seed, sha, nbytes = recipe.choose_seed("op/fam", {"x": x, "y": -x}, [5, 7], {"x": "float32", "y": "float32"}, "y")
    w.add_recipe(id="op/fam", source="op/src", seed=seed, counts=[5, 7], rank=1, sha256=sha, nbytes=nbytes, tags=["t"])
    w.write(tmp_path)
    cases = {c.id: c for c in load_corpus(tmp_path).cases}
    assert set(cases) == {"op/src", "op/fam-5", "op/fam-7"} and cases["op/fam-7"].shapes == {"x": [7], "y": [7]}
    assert np.array_equal(cases["op/fam-7"].load()["y"], -cases["op/fam-7"].load()["x"])
    text = (tmp_path / "manifest.json").read_text().replace(f'"seed": {seed}', f'"seed": {seed + 1}')
    (tmp_path / "manifest.json").write_text(text)
    with pytest.raises(CorpusError, match="recipe sha256 mismatch"):
        load_corpus(tmp_path).cases[1].load()
    assert json.loads(text)["format"] == 2


def test_writing_into_an_input_the_call_does_not_alias_is_caught():
    from fake_adapters.cases import case

    r = run("ScribblesOnInput", [case(shape=(3, 4))])[0]
    assert r.verdict == FAIL and r.cause == "wrote-outside" and "input x" in r.reason, r.reason
