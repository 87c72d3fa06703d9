"""The ``reference`` adapter: the generated numpy reference code (generated/reference/<op>.py)
and, for must-reject cases, the generated validation code (generated/validate/<op>.py).

The generated modules are found through specgen.resources.generated_dir() and imported by path
(they are data of the checkout, not a package). With specs other than the bundled ones (``--specs``,
SPECGEN_SPECS) the same modules are written from those specs into a temporary folder once per
process, so the reference always computes what the specs in use say. Accumulating operators
(specs/accumulating) have no generated module: their reference is the index engine's evaluation of
the spec's formula (specgen.indexing.reference), their must-reject answer the index space's shape rules. The adapter claims every (op, standard, version,
dtype, rank) the specs list, in-place and strided calls included: the reference is pure numpy.
"""
from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from pathlib import Path

import numpy as np

from specgen.adapters.base import Adapter, Claim, NotInstalled, Rejected
from specgen.spec.operators import ACCUMULATING, elementwise, engine
from specgen.spec.provenance import chosen_folder


def _generated() -> Path:
    try:
        from specgen.resources import generated_dir

        return generated_dir()
    except (ImportError, FileNotFoundError):
        from specgen.resources import repo_root

        root = repo_root()
        return (root / "generated") if root else Path("generated")


_CODE: dict[str, Path] = {}  # specs folder -> the reference and validation code written for it


def _code_for(specs: dict) -> Path:
    """The reference and validation code of specs other than the bundled ones, written once per
    process (from the same templates as `specgen generate`) into a temporary folder."""
    folder = chosen_folder(specs)
    if folder not in _CODE:
        import shutil
        import tempfile
        from multiprocessing.util import Finalize

        from specgen.generate.tree import write_code

        root = Path(tempfile.mkdtemp(prefix="specgen-reference-"))
        # removed at exit, in a main process and in a pool's worker alike (workers skip atexit)
        Finalize(None, shutil.rmtree, args=(root, True), exitpriority=0)
        write_code(root, elementwise(specs))  # the accumulating operators have no generated modules
        _CODE[folder] = root
    return _CODE[folder]


def _import_path(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _package(directory: Path, name: str) -> str:
    """Import ``directory`` as package ``name`` (once) so its modules' relative imports work."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, directory / "__init__.py",
                                                      submodule_search_locations=[str(directory)])
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return name


def _entry(module, op: str, names):
    for n in names:
        fn = getattr(module, n, None)
        if callable(fn):
            return fn
    raise AttributeError(f"{module.__file__} has none of {', '.join(names)}")


def _call_with(fn, positional, keywords: dict):
    params = inspect.signature(fn).parameters
    var_kw = any(p.kind == p.VAR_KEYWORD for p in params.values())
    kw = {k: v for k, v in keywords.items() if var_kw or k in params}
    return fn(*positional, **kw)


class ReferenceAdapter(Adapter):
    description = "specgen's generated numpy reference (generated/reference) and validation (generated/validate)"

    def __init__(self):
        self._modules: dict = {}
        self._suffix = ""
        if chosen_folder(self.specs) is not None:  # a team's own specs: their reference, not generated/'s
            self.root = _code_for(self.specs)
            self._suffix = f"_{abs(hash(str(self.root))):x}"  # another tree than generated/: other module names
            return
        self.root = _generated()
        ref = self.root / "reference"
        if not ref.is_dir():
            raise NotInstalled(f"{ref} does not exist: run `specgen generate` first")

    def _module(self, kind: str, op: str):
        key = (kind, op)
        if key not in self._modules:
            path = self.root / kind / f"{op}.py"
            if not path.is_file():
                raise FileNotFoundError(f"{path} does not exist: run `specgen generate`")
            if (self.root / kind / "__init__.py").is_file():  # a package (validate/ has _checks.py)
                pkg = _package(self.root / kind, f"specgen_generated_{kind}{self._suffix}")
                self._modules[key] = importlib.import_module(f"{pkg}.{op}")
            else:
                self._modules[key] = _import_path(path, f"specgen_generated_{kind}{self._suffix}_{op}")
        return self._modules[key]

    def claims(self):
        claims = []
        for spec in self.specs.values():
            if engine(spec) == ACCUMULATING:  # computed by the index engine (specgen.indexing.reference)
                claims += [Claim(op=spec.id, standard=key, versions=(v.version,), dtypes=v.dtypes(), rejects=True)
                           for key, std in spec.standards.items() for v in std.versions]
                continue
            if not (self.root / "reference" / f"{spec.id}.py").is_file():
                continue
            for key, std in spec.standards.items():
                for v in std.versions:
                    claims.append(Claim(op=spec.id, standard=key, versions=(v.version,), dtypes=v.dtypes(),
                                        in_place=True, strided=True,
                                        rejects=(self.root / "validate" / f"{spec.id}.py").is_file()))
        return claims

    def run(self, call):
        if engine(call.spec) == ACCUMULATING:
            from specgen.indexing.layout import ShapeViolation
            from specgen.indexing.reference import compute

            try:
                return compute(call.spec, call.standard, call.version, call.inputs, call.attributes, call.dtype)
            except ShapeViolation as exc:
                raise Rejected(str(exc)) from exc
        module = self._module("reference", call.op)
        fn = _entry(module, call.op, (call.op, "reference", "compute", "run"))
        kw = {k: call.attributes[k] for k in call.attributes_given if k in call.attributes}
        kw.setdefault("standard", call.standard)
        kw.setdefault("version", call.version)
        y = _call_with(fn, [call.inputs[n] for n in call.inputs], kw)
        if isinstance(y, dict):
            y = next(iter(y.values()))
        y = np.asarray(y)
        if call.in_place:
            out = next(iter(call.out.values()))
            out[...] = y
            return None
        return y

    def accepts(self, call):
        if engine(call.spec) == ACCUMULATING:
            from specgen.indexing.layout import ShapeViolation
            from specgen.indexing.reference import layout_of

            try:
                layout_of(call.spec, call.standard, call.version, {k: np.shape(v) for k, v in call.inputs.items()},
                          call.attributes)
            except ShapeViolation:
                return False
            return None
        try:
            module = self._module("validate", call.op)
        except FileNotFoundError:
            return None
        fn = _entry(module, call.op, ("validate", f"validate_{call.op}", call.op))
        tensors = {}
        for name, arr in call.inputs.items():
            tensors[name] = {"dtype": _dtype_name(arr), "sizes": list(arr.shape), "strides": call.strides.get(name)}
        for name, info in call.outputs.items():
            tensors[name] = {"dtype": info.dtype, "sizes": list(info.shape), "strides": call.strides.get(name)}
        attributes = {k: call.attributes[k] for k in call.attributes_given if k in call.attributes}
        violations = fn(call.standard, call.version, tensors, attributes)
        return not violations


def _dtype_name(arr) -> str:
    from specgen.dtypes import by_numpy

    return by_numpy(arr.dtype).name
