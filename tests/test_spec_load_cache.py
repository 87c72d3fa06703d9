"""The on-disk cache of loaded spec folders (specgen.spec.load_cache): a hit gives the same specs
without parsing; any change to a file the load reads misses; a broken entry or a broken folder is
never served from it."""
from __future__ import annotations

import shutil

import pytest

from specgen.errors import SpecError
from specgen.resources import specs_dir
from specgen.spec import load_cache, loader


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """Three specs and the standards file in a folder of their own; the cache in another."""
    src = specs_dir()
    d = tmp_path / "specs"
    d.mkdir()
    for name in ("_standards.yaml", "relu.yaml", "softsign.yaml", "elu.yaml"):
        shutil.copy(src / name, d / name)
    monkeypatch.setenv("SPECGEN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("SPECGEN_NO_CACHE", raising=False)
    monkeypatch.setattr(loader, "_LOADED", {})  # as a fresh process: nothing loaded in memory
    return d


def _fresh_process(monkeypatch, *, parse_allowed: bool):
    """Forget the in-memory loads; with parse_allowed False, a parse fails the test."""
    monkeypatch.setattr(loader, "_LOADED", {})
    if not parse_allowed:
        def refuse(directory):
            raise AssertionError(f"{directory} was parsed although the cache holds it")
        monkeypatch.setattr(loader, "_load_all", refuse)


def test_a_second_process_gets_the_same_specs_from_the_cache_without_parsing(folder, monkeypatch):
    first = loader.load_all(folder)
    assert list((folder.parent / "cache").glob("*.pickle"))
    _fresh_process(monkeypatch, parse_allowed=False)
    again = loader.load_all(folder)
    assert list(again) == list(first) == ["elu", "relu", "softsign"]
    for op in first:
        assert again[op] == first[op]
        assert again[op].path == first[op].path and again[op].formula == first[op].formula


@pytest.mark.parametrize("edit", ["spec", "standards"])
def test_any_changed_byte_of_what_the_load_reads_misses(folder, monkeypatch, edit):
    loader.load_all(folder)
    f = folder / ("relu.yaml" if edit == "spec" else "_standards.yaml")
    f.write_text(f.read_text() + "\n# an edit\n")
    _fresh_process(monkeypatch, parse_allowed=False)
    with pytest.raises(AssertionError, match="was parsed although"):
        loader.load_all(folder)


def test_a_changed_package_source_misses(folder, monkeypatch):
    loader.load_all(folder)
    monkeypatch.setattr(load_cache, "code_digest", lambda: "another version of specgen")
    _fresh_process(monkeypatch, parse_allowed=False)
    with pytest.raises(AssertionError, match="was parsed although"):
        loader.load_all(folder)


def test_a_corrupt_entry_is_a_miss_and_is_rewritten(folder, monkeypatch):
    first = loader.load_all(folder)
    (entry,) = (folder.parent / "cache").glob("*.pickle")
    entry.write_bytes(entry.read_bytes()[:1000])  # truncated, as by a full disk
    _fresh_process(monkeypatch, parse_allowed=True)
    assert loader.load_all(folder) == first
    _fresh_process(monkeypatch, parse_allowed=False)
    assert loader.load_all(folder) == first


def test_a_broken_folder_is_never_cached_and_gives_the_loader_s_own_errors(folder, monkeypatch):
    f = folder / "relu.yaml"
    f.write_text(f.read_text().replace("id: relu", "id: Relu!"))
    for _ in range(2):
        _fresh_process(monkeypatch, parse_allowed=True)
        with pytest.raises(SpecError, match="relu.yaml"):
            loader.load_all(folder)
    assert not list((folder.parent / "cache").glob("*.pickle"))


def test_specgen_no_cache_writes_nothing_and_an_unwritable_folder_is_no_cache(folder, monkeypatch, tmp_path):
    monkeypatch.setenv("SPECGEN_NO_CACHE", "1")
    loader.load_all(folder)
    assert not (tmp_path / "cache").exists()
    monkeypatch.delenv("SPECGEN_NO_CACHE")
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("SPECGEN_CACHE_DIR", str(blocker / "cache"))
    _fresh_process(monkeypatch, parse_allowed=True)
    assert list(loader.load_all(folder)) == ["elu", "relu", "softsign"]


def test_only_the_most_recently_used_entries_are_kept(folder, monkeypatch):
    monkeypatch.setattr(load_cache, "KEEP", 2)
    for i in range(4):
        f = folder / "relu.yaml"
        f.write_text(f.read_text() + f"\n# edit {i}\n")
        _fresh_process(monkeypatch, parse_allowed=True)
        loader.load_all(folder)
    assert len(list((folder.parent / "cache").glob("*.pickle"))) == 2
