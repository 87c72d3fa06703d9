"""The ``iree`` adapter: one-node ONNX models imported by IREE's ONNX importer
(``iree.compiler.extras.onnx_importer``, the library behind ``iree-import-onnx``), compiled by
``iree-compile`` for the ``llvm-cpu`` target and run on the ``local-sync`` driver.

Route: IREE imports ONNX itself, so the models are the ones onnxruntime and OpenVINO run
(specgen/adapters/onnx_common.py), compiled once per (op, opset, dtype, attributes) and shape
class. Compiling is the cost (about half a second per function on top of a second per
``iree-compile`` start), so a call whose tensors all have one shape (every elementwise call without
broadcasting) runs a 1-D model with a dynamic size on its flattened tensors: one module serves
every rank (IREE collapses the dimensions of an elementwise dispatch itself, so this is the loop it
would generate anyway; ranks are therefore not exercised as such). Broadcasting calls (PRelu's
slope) keep their ranks, with dynamic dimensions. The claim probes are compiled as one module per
operator (split in halves where one function fails, to find which), and every compiled module is
kept on disk under ``.specgen-cache/iree/`` by the SHA-256 of its MLIR, the compiler version and the
flags, so a second run compiles nothing.

Flags (COMPILE_FLAGS): ``--iree-llvmcpu-target-cpu=host`` (the CPU's own vector units, as a
deployment compiles) and ``--iree-input-demote-f64-to-f32=false`` (IREE narrows float64 models to
float32 by default; without it a double model returns float32 buffers).

Claims: each (op, opset, dtype) the specs list is imported, compiled and run once on a tiny input;
what fails stays unclaimed with the importer's or compiler's first error line. Must-reject cases:
ONNX's strict checker, the importer, then ``iree-compile`` on the model with the exact shapes.
"""
from __future__ import annotations

import hashlib
import os
import pickle
import signal
from pathlib import Path

import numpy as np

from specgen.adapters.base import Adapter, Claim, Rejected
from specgen.adapters.onnx_common import (ProbedOnnxClaims, accepts_dense_model, build_model, call_key, model_for_call,
                                          onnx_specs, probe_attributes, probe_feeds, ranked_shapes, same_shapes,
                                          sample_input)

TARGET = "llvm-cpu"
DRIVER = "local-sync"
COMPILE_FLAGS = ("--iree-llvmcpu-target-cpu=host", "--iree-input-demote-f64-to-f32=false")
CACHE_DIR = Path(os.environ.get("SPECGEN_IREE_CACHE", ".specgen-cache/iree"))


def _first_error(exc: BaseException) -> str:
    if isinstance(exc, CompileError):
        return str(exc)
    lines = [ln.strip() for ln in str(exc).splitlines() if "error:" in ln] or str(exc).strip().splitlines()[:1]
    return f"{type(exc).__name__}: {' '.join(lines[:2])[:240]}"


class CompileError(Exception):
    """iree-compile refused the module (its first error lines)."""


def _store(path: Path, data: bytes) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(data)
        tmp.replace(path)
    except OSError:  # a read-only checkout: no cache, same results
        pass


class IREEAdapter(ProbedOnnxClaims, Adapter):
    description = "IREE llvm-cpu (local-sync driver), one-node ONNX models through its ONNX importer"
    requires = ("iree.compiler", "iree.runtime", "onnx")
    extra = "iree"

    def __init__(self):
        import iree.compiler as compiler
        import iree.runtime as runtime
        from iree.compiler.extras import onnx_importer

        self._compiler = compiler
        self._runtime = runtime
        self._importer = onnx_importer
        self._config = runtime.Config(DRIVER)
        self._modules: dict = {}
        self._unclaimed: dict[tuple, str] = {}
        self._claims: list[Claim] | None = None

    def backend_version(self) -> str:
        from importlib.metadata import version

        import onnx

        return (f"iree-base-compiler {version('iree-base-compiler')}, iree-base-runtime {version('iree-base-runtime')} "
                f"({TARGET}, {DRIVER}, {' '.join(COMPILE_FLAGS)}), onnx {onnx.__version__}")

    # -- ONNX -> MLIR -> vmfb ----------------------------------------------------------------
    def _mlir(self, models: dict[str, object]) -> str:
        """One MLIR module holding each model's graph as a function of the given name."""
        from iree.compiler.ir import Context

        module = None
        ctx = Context()
        for name, model in models.items():
            model = type(model).FromString(model.SerializeToString())
            model.graph.name = name
            info = self._importer.ModelInfo(model)
            if module is None:
                module = info.create_module(context=ctx).operation
            self._importer.NodeImporter.define_function(info.main_graph, module).import_all()
        return str(module)

    def _vmfb(self, asm: str) -> bytes:
        """The compiled module, from the cache when this MLIR was compiled before (a compile error
        is cached too, as its message, and raised again as CompileError)."""
        key = hashlib.sha256("\n".join([self.backend_version(), TARGET, asm]).encode()).hexdigest()
        path, failed = CACHE_DIR / f"{key}.vmfb", CACHE_DIR / f"{key}.error"
        if path.exists():
            return path.read_bytes()
        if failed.exists():
            raise CompileError(failed.read_text(encoding="utf-8"))
        try:
            vmfb = self._compiler.compile_str(asm, target_backends=[TARGET], input_type="onnx",
                                              extra_args=list(COMPILE_FLAGS))
        except Exception as exc:
            _store(failed, _first_error(exc).encode())
            raise CompileError(_first_error(exc)) from exc
        _store(path, vmfb)
        return vmfb

    def _load(self, vmfb: bytes):
        rt = self._runtime
        ctx = rt.SystemContext(config=self._config)
        ctx.add_vm_module(rt.VmModule.copy_buffer(ctx.instance, vmfb))
        return ctx.modules.module

    def _compile(self, models: dict[str, object]):
        """The loaded module with one function per model (by the dict's names)."""
        return self._load(self._vmfb(self._mlir(models)))

    def _compile_each(self, models: dict[str, object]) -> dict[str, object]:
        """name -> loaded module or the exception: one compile for all, halves where it fails."""
        try:
            module = self._compile(models)
            return {name: module for name in models}
        except Exception as exc:
            if len(models) == 1:
                return {name: exc for name in models}
        names = list(models)
        half = len(names) // 2
        got = self._compile_each({n: models[n] for n in names[:half]})
        got.update(self._compile_each({n: models[n] for n in names[half:]}))
        return got

    @staticmethod
    def _call(function, arrays) -> list[np.ndarray]:
        results = function(*[np.require(a, requirements="C") for a in arrays])
        if not isinstance(results, (tuple, list)):
            results = [results]
        return [np.asarray(r.to_host()).copy() for r in results]

    # -- claims: the probes compiled as one module (ProbedOnnxClaims, batched) -------------------
    def claims(self):
        if self._claims is not None:
            return self._claims
        probes = {}  # function name -> (spec id, version, dtype, model, input names)
        for spec, std in onnx_specs(self.specs):
            in_names = [std.tensors[t.name].name for t in spec.inputs]
            out_names = [std.tensors[t.name].name for t in spec.outputs]
            for v in std.versions:
                for dtype in v.dtypes():
                    x = sample_input(dtype)
                    model = build_model(std.operator, std.domain, int(v.version), in_names, out_names,
                                        {n: dtype for n in in_names + out_names}, probe_attributes(std, dtype),
                                        ranked_shapes(in_names + out_names, x.ndim))
                    probes[f"probe{len(probes)}"] = (spec.id, v.version, dtype, model, in_names)
        compiled = {}
        for op in dict.fromkeys(p[0] for p in probes.values()):  # one module per operator
            compiled.update(self._compile_each({name: p[3] for name, p in probes.items() if p[0] == op}))
        calls = []
        for name, (op, version, dtype, _, in_names) in probes.items():
            module = compiled[name]
            if isinstance(module, Exception):
                self._unclaimed[(op, "onnx", version, dtype)] = f"iree: {_first_error(module)}"
            else:
                calls.append((name, module[name], list(probe_feeds(in_names, sample_input(dtype)).values())))
        outcome = self._probe_calls(calls)
        works: dict[tuple, list[str]] = {}
        for name, (op, version, dtype, _, _) in probes.items():
            works.setdefault((op, version), [])
            if name not in outcome:
                continue  # did not compile
            if outcome[name] is None:
                works[(op, version)].append(dtype)
            else:
                self._unclaimed[(op, "onnx", version, dtype)] = f"iree: {outcome[name]}"
        self._claims = [Claim(op=op, standard="onnx", versions=(version,), dtypes=tuple(dts), rejects=True)
                        for (op, version), dts in works.items() if dts]
        return self._claims

    def _probe_calls(self, calls) -> dict[str, str | None]:
        """name -> None where the probe call ran and returned its input's dtype, else why not. Where
        the system can fork, the calls run in a child process: a compiled kernel can kill the process
        (IREE 3.13's int64 Div traps with SIGFPE on a 2 x 3 tensor whose divisor has no zero), which
        then costs that one call its claim, not the whole run; the child is restarted after it."""
        def run(item) -> str | None:
            _, function, arrays = item
            try:
                with np.errstate(all="ignore"):
                    out = self._call(function, arrays)[0]
            except Exception as exc:
                return _first_error(exc)
            return None if out.dtype == arrays[0].dtype else f"returned {out.dtype} for {arrays[0].dtype} input"

        if not hasattr(os, "fork"):
            return {item[0]: run(item) for item in calls}
        results: dict[str, str | None] = {}
        todo = list(calls)
        while todo:
            read, write = os.pipe()
            pid = os.fork()
            if pid == 0:  # the child: one pickled (name, outcome) per call, flushed as it goes
                os.close(read)
                os.dup2(os.open(os.devnull, os.O_WRONLY), 2)  # a dying kernel's own message: the outcome says it
                with os.fdopen(write, "wb") as out:
                    for item in todo:
                        pickle.dump((item[0], run(item)), out)
                        out.flush()
                os._exit(0)
            os.close(write)
            got = []
            with os.fdopen(read, "rb") as inp:
                while True:
                    try:
                        got.append(pickle.load(inp))
                    except Exception:  # EOF, or a record cut by the child's death
                        break
            _, status = os.waitpid(pid, 0)
            results.update(got)
            todo = todo[len(got):]
            if todo:  # the child died on todo[0]
                how = (f"the call killed the process ({signal.Signals(os.WTERMSIG(status)).name})"
                       if os.WIFSIGNALED(status) else f"the probe process exited with {os.WEXITSTATUS(status)}")
                results[todo.pop(0)[0]] = how
        return results

    # -- running --------------------------------------------------------------------------
    def _cached(self, call, flat: bool):
        key = call_key(call, ranked=not flat, flat=flat)
        hit = self._modules.get(key)
        if hit is None:
            model, in_names, _ = model_for_call(call, ranked=not flat, flat=flat)
            try:
                module = self._compile({"main": model})
            except Exception as exc:
                raise Rejected(f"iree: {_first_error(exc)}") from exc
            hit = self._modules[key] = module["main"]
        return hit

    def run(self, call):
        flat = same_shapes(call)  # elementwise without broadcasting: one 1-D model serves every rank
        function = self._cached(call, flat)
        inputs = [a.reshape(-1) if flat else a for a in call.inputs.values()]
        with np.errstate(all="ignore"):
            results = self._call(function, inputs)
        if flat:
            results = [r.reshape(info.shape) for r, info in zip(results, call.outputs.values())]
        return dict(zip(call.outputs, results))

    def accepts(self, call):
        return accepts_dense_model(call, lambda model: self._compile({"main": model}))

    def close(self):
        self._modules.clear()
