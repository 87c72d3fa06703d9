"""``--isolate``: run each case in a subprocess with a per-case timeout.

One worker process (multiprocessing, spawn) loads the adapter once and runs cases sent to it over
a pipe. A case that hangs past the timeout gets the worker killed (verdict *error*, "timed out");
a case that kills the worker (segfault, abort, os._exit) gets *error*, "worker died"; the next case
starts a fresh worker. The parent judges outputs, so comparison never runs in the backend's process.
"""
from __future__ import annotations

import multiprocessing as mp
import time
from dataclasses import asdict

import numpy as np

from specgen.runner.call import build_call
from specgen.runner.invoke import DIED, TIMEOUT, Outcome, invoke

_CASE_FIELDS = ("id", "op", "standard", "version", "dtype", "kind", "violations", "shapes", "dtypes", "strides",
                "in_place", "attributes", "attributes_given", "tolerance", "tags")


def _snapshot(case, data) -> dict:
    """A picklable copy of what build_call needs."""
    fields = {}
    for f in _CASE_FIELDS:
        v = getattr(case, f, None)
        if isinstance(v, (list, tuple)):
            v = list(v)
        elif isinstance(v, dict):
            v = dict(v)
        fields[f] = v
    fields["data"] = {k: np.require(v, requirements="C") for k, v in data.items()}
    return fields


def _worker_main(conn, name: str, value: str) -> None:  # runs in the child
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle (it kills the worker)
    from specgen.adapters.registry import AdapterLoadError, load_object
    from specgen.runner.cases import MemoryCase
    from specgen.spec.operators import load_operators

    try:
        specs = load_operators()
        loaded = load_object(name, value, specs=specs)  # parsed once in the worker too
    except AdapterLoadError as exc:
        conn.send(("load-error", str(exc)))
        return
    except Exception as exc:  # pragma: no cover - defensive
        conn.send(("load-error", f"{type(exc).__name__}: {exc}"))
        return
    conn.send(("ready", ""))
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        snap, in_names, out_names, ask = msg
        data = snap.pop("data")
        snap = {k: (tuple(v) if k in ("violations", "attributes_given", "tags") and v is not None else v)
                for k, v in snap.items() if v is not None}
        case = MemoryCase(data=data, **snap)
        call = build_call(case, data, specs.get(case.op), in_names, out_names)
        outcome = invoke(loaded.adapter, call, ask)
        conn.send(("outcome", asdict(outcome)))


class Worker:
    def __init__(self, name: str, value: str):
        self.name = name
        self.value = value
        self._ctx = mp.get_context("spawn")
        self._proc = None
        self._conn = None
        self.load_error: str | None = None

    def _start(self, timeout: float) -> str | None:
        parent, child = self._ctx.Pipe()
        proc = self._ctx.Process(target=_worker_main, args=(child, self.name, self.value), daemon=True,
                                 name=f"specgen-worker-{self.name}")
        self._spawn(proc)
        child.close()
        self._proc, self._conn = proc, parent
        # loading can be slow (importing a backend); allow more than one case's timeout
        if not parent.poll(max(timeout, 60.0)):
            self._kill()
            return "the worker did not start (adapter load timed out)"
        try:
            kind, text = parent.recv()
        except (EOFError, OSError):
            code = proc.exitcode
            self._kill()
            return f"the worker died while loading the adapter (exit code {code})"
        if kind != "ready":
            self._kill()
            return text
        return None

    @staticmethod
    def _spawn(proc) -> None:
        """Start the worker with SIGINT ignored from its first instruction (an ignored signal stays
        ignored across exec, and Python then installs no KeyboardInterrupt handler): Ctrl-C reaches
        the whole process group, and only the parent handles it (it kills the worker)."""
        import signal
        import threading

        if threading.current_thread() is not threading.main_thread():
            proc.start()
            return
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            proc.start()
        finally:
            signal.signal(signal.SIGINT, previous)

    def _kill(self) -> None:
        if self._proc is not None:
            if self._proc.is_alive():
                self._proc.kill()
            self._proc.join(5)
        if self._conn is not None:
            self._conn.close()
        self._proc, self._conn = None, None

    def invoke(self, case, data, in_names, out_names, ask_accepts: bool, timeout: float | None) -> Outcome:
        timeout = 60.0 if timeout is None else float(timeout)
        if self._proc is None or not self._proc.is_alive():
            err = self._start(timeout)
            if err:
                return Outcome(DIED, message=f"isolated worker: {err}")
        t0 = time.perf_counter()
        try:
            self._conn.send((_snapshot(case, data), list(in_names), list(out_names), ask_accepts))
        except (OSError, EOFError, BrokenPipeError) as exc:
            self._kill()
            return Outcome(DIED, message=f"isolated worker: could not send the case ({exc})")
        if not self._conn.poll(timeout):
            self._kill()
            return Outcome(TIMEOUT, message=f"timed out after {timeout:g} s (isolated worker killed)",
                           seconds=time.perf_counter() - t0)
        try:
            kind, payload = self._conn.recv()
        except (EOFError, OSError):
            self._proc.join(5)
            code = self._proc.exitcode
            self._kill()
            how = f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"
            return Outcome(DIED, message=f"the adapter killed the worker process ({how})",
                           seconds=time.perf_counter() - t0)
        return Outcome(**payload)

    def close(self) -> None:
        if self._conn is not None:
            try:
                self._conn.send(None)
            except (OSError, EOFError, BrokenPipeError):
                pass
        if self._proc is not None:
            self._proc.join(2)
        self._kill()
