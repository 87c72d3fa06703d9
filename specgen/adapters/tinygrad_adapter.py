"""The ``tinygrad`` adapter: tinygrad's Tensor methods on its CPU device, only where their semantics
are a subset of a spec. The mapping is data: specgen/adapters/tinygrad_ops.yaml (the format of every
framework adapter, specgen.adapters.framework_ops); claims are probed per entry and dtype at load
(specgen.adapters.framework_adapter).

tinygrad's CPU device compiles each kernel to C and runs ``clang`` (or ``$CC``) on it, even with
its LLVM or x86 renderers (its worker programs are C). Where no clang is on PATH and ``$CC`` is not
set, the adapter uses the clang inside the ``ziglang`` wheel (the ``tinygrad`` extra installs it)
through specgen.adapters.zig_cc, which adapts tinygrad's command line to ``zig cc``. Its compiled
kernels are cached in specgen's own cache file (``$CACHEDB`` if set). Each input crosses as a
1-D array padded to a power of two (``flatten``), so a few kernels serve every shape. tinygrad reads
these settings when it is first imported: a process that imported tinygrad before loading the
adapter keeps its own (and, without clang, claims nothing: each probe's compile fails).
"""
from __future__ import annotations

import os
import shutil
import stat
import sys
from pathlib import Path

import numpy as np

from specgen.adapters.base import NotInstalled
from specgen.adapters.framework_adapter import FrameworkAdapter

CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "specgen" / "tinygrad"


def compiler_shim() -> str:
    """An executable that runs specgen.adapters.zig_cc with this Python (written once into CACHE)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / "zig-clang"
    text = f'#!/bin/sh\nexec "{sys.executable}" -m specgen.adapters.zig_cc "$@"\n'
    if not path.exists() or path.read_text() != text:
        path.write_text(text)
        path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return str(path)


def compiler() -> str:
    """The C compiler tinygrad will run: $CC, else clang on PATH, else zig's clang (the shim)."""
    if os.environ.get("CC"):
        return os.environ["CC"]
    if shutil.which("clang"):
        return "clang"
    try:
        import ziglang  # noqa: F401
    except ImportError:
        raise NotInstalled("tinygrad's CPU device needs clang: none on PATH and no ziglang wheel "
                           "(pip install 'specgen[tinygrad]' installs it)") from None
    return compiler_shim()


class TinygradAdapter(FrameworkAdapter):
    description = "tinygrad CPU device: Tensor methods as subsets of the specs (mapping: specgen/adapters/tinygrad_ops.yaml)"
    requires = ("tinygrad",)
    extra = "tinygrad"
    backend = "tinygrad"
    flatten = True

    def import_module(self):
        cc = compiler()
        if cc != os.environ.get("CC"):
            os.environ["CC"] = cc
        os.environ.setdefault("DEV", "CPU")
        os.environ.setdefault("CACHEDB", str(CACHE / "cache.db"))
        CACHE.mkdir(parents=True, exist_ok=True)
        import tinygrad

        self._cc = cc
        return tinygrad

    def backend_version(self) -> str:
        from importlib.metadata import version

        cc = "zig cc (ziglang wheel)" if self._cc.endswith("zig-clang") else self._cc
        return f"tinygrad {version('tinygrad')} (CPU device, compiler: {cc})"

    def to_framework(self, arr, dtype):
        tg = self._module
        if dtype == "bfloat16":
            return tg.Tensor(np.require(arr, requirements="C").view(np.uint16)).bitcast(tg.dtypes.bfloat16)
        return tg.Tensor(np.require(arr, requirements="C"))

    def to_numpy(self, value):
        import ml_dtypes

        tg = self._module
        if value.dtype == tg.dtypes.bfloat16:
            return value.bitcast(tg.dtypes.uint16).numpy().view(ml_dtypes.bfloat16)
        return np.array(value.numpy())
