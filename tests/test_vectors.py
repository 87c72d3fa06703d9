"""The corpus format module (specgen.vectors): writing, reading, sha256 checking."""
import json

import ml_dtypes
import numpy as np
import pytest
from sampling import sampled

from specgen.vectors import CorpusError, CorpusWriter, case_seed, load_corpus


def _add(w, case_id, x, y, dtype):
    return w.add(id=case_id, op="op", standard="onnx", version="22", dtype=dtype, kind="positive", violations=[],
                 shapes={"x": list(x.shape), "y": list(y.shape)}, dtypes={"x": dtype, "y": dtype},
                 strides={"x": None, "y": None}, in_place=False, attributes={"alpha": 0.5}, attributes_given=[],
                 tolerance={"metric": "exact", "value": None, "intermediate": None}, tags=["t"],
                 tensors={"x": x, "y": y}, file="op/onnx-22.bin")


def test_round_trip_all_dtypes(tmp_path):
    w = CorpusWriter()
    arrays = {
        "bfloat16": np.array([[1.5, -0.0], [np.inf, 3.0]], dtype=ml_dtypes.bfloat16),
        "float16": np.array([np.nan, 65504, -1e-7], dtype=np.float16),
        "int64": np.array([-(2 ** 63), 2 ** 63 - 1], dtype=np.int64),
        "uint8": np.array(7, dtype=np.uint8),
    }
    for name, a in arrays.items():
        _add(w, f"op/{name}", a, a, name)
    w.write(tmp_path)
    corpus = load_corpus(tmp_path)
    assert [c.id for c in corpus.cases] == sorted(f"op/{n}" for n in arrays)
    for case in corpus.cases:
        got = case.load()
        want = arrays[case.dtype]
        assert got["x"].dtype == want.dtype and got["x"].shape == want.shape
        assert got["x"].tobytes() == want.tobytes() and got["y"].tobytes() == want.tobytes()


def test_data_is_little_endian_and_concatenated(tmp_path):
    w = CorpusWriter()
    entry = _add(w, "op/a", np.array([1], dtype=np.uint16), np.array([258], dtype=np.uint16), "uint16")
    w.write(tmp_path)
    assert (tmp_path / "op/onnx-22.bin").read_bytes() == b"\x01\x00\x02\x01"
    assert entry["nbytes"] == 4 and entry["offset"] == 0 and entry["stored"] == ["x", "y"]


def test_a_reload_parses_only_a_changed_manifest_and_survives_a_chdir(tmp_path, monkeypatch):
    """load_corpus keeps its last results: the same bytes give the same cases (a new list), a rewritten
    manifest is parsed afresh, and cases loaded through a relative path still read after a chdir."""
    w = CorpusWriter()
    _add(w, "op/a", np.array([1], dtype=np.uint16), np.array([2], dtype=np.uint16), "uint16")
    w.write(tmp_path / "c")
    monkeypatch.chdir(tmp_path)
    first = load_corpus("c")
    second = load_corpus(tmp_path / "c")
    assert second.cases == first.cases and second.cases is not first.cases and second.cases[0] is first.cases[0]
    monkeypatch.chdir(tmp_path.parent)
    assert load_corpus(tmp_path / "c").cases[0].load()["y"].tolist() == [2]
    w = CorpusWriter()
    _add(w, "op/b", np.array([3], dtype=np.uint16), np.array([4], dtype=np.uint16), "uint16")
    w.write(tmp_path / "c")
    assert [c.id for c in load_corpus(tmp_path / "c").cases] == ["op/b"]


def test_a_corrupted_file_fails_its_sha256(tmp_path):
    w = CorpusWriter()
    _add(w, "op/a", np.arange(4, dtype=np.float32), np.arange(4, dtype=np.float32), "float32")
    w.write(tmp_path)
    data = bytearray((tmp_path / "op/onnx-22.bin").read_bytes())
    data[3] ^= 1
    (tmp_path / "op/onnx-22.bin").write_bytes(bytes(data))
    with pytest.raises(CorpusError, match="sha256"):
        load_corpus(tmp_path).cases[0].load()


def test_missing_manifest_and_wrong_format(tmp_path):
    with pytest.raises(CorpusError, match="specgen generate"):
        load_corpus(tmp_path)
    (tmp_path / "manifest.json").write_text(json.dumps({"format": 99, "cases": []}))
    with pytest.raises(CorpusError, match="format"):
        load_corpus(tmp_path)


def test_manifest_is_sorted_one_case_per_line_and_duplicate_ids_refused(tmp_path):
    w = CorpusWriter()
    _add(w, "op/b", np.zeros(1, np.float32), np.zeros(1, np.float32), "float32")
    _add(w, "op/a", np.zeros(1, np.float32), np.zeros(1, np.float32), "float32")
    with pytest.raises(ValueError, match="duplicate"):
        _add(w, "op/a", np.zeros(1, np.float32), np.zeros(1, np.float32), "float32")
    w.write(tmp_path)
    text = (tmp_path / "manifest.json").read_text()
    lines = [ln for ln in text.splitlines() if ln.lstrip().startswith('{"attributes"')]
    assert len(lines) == 2 and '"op/a"' in lines[0]
    assert json.loads(text)["format"] == 2


def test_case_seed_is_stable_across_processes():
    assert case_seed("hard_sigmoid/onnx-22/float16/rank4/regions") == case_seed("hard_sigmoid/onnx-22/float16/rank4/regions")
    assert case_seed("a") == 0xCABD1BCA128197CA  # first 8 bytes of sha256("a"), little-endian
    assert case_seed("a") != case_seed("b")


def _corpus_ops():
    from specgen.spec.operators import load_operators

    return list(load_operators())


@pytest.fixture(scope="module")
def committed():
    return load_corpus()


@pytest.mark.parametrize("op", sampled(_corpus_ops()))
def test_the_committed_corpus_loads_and_verifies(op, committed):
    # every case of a sample of the operators (all of them under -m slow): the sha256 of its data
    assert len(committed.cases) > 1000
    cases = [c for c in committed.cases if c.op == op]
    assert cases, op
    for case in cases:
        tensors = case.load()
        assert list(tensors) == case.stored
