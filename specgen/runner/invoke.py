"""Invoking the adapter on one call, in-process (specgen.runner.isolate runs the same function in
a subprocess worker). Never raises: whatever the adapter does becomes an :class:`Outcome`."""
from __future__ import annotations

import time
import traceback
from dataclasses import dataclass, field

import numpy as np

from specgen.adapters.base import Call, Rejected, Unsupported
from specgen.runner.call import SECOND_SENTINEL_BYTE, memory_problem, never_written, refill

# Outcome.status values
OK, ANSWERED, UNSUPPORTED, REJECTED, RAISED, TIMEOUT, DIED, NO_OUTPUT = (
    "ok", "answered", "unsupported", "rejected", "raised", "timeout", "died", "no-output")


@dataclass
class Outcome:
    status: str  # one of the constants above
    outputs: dict[str, np.ndarray] = field(default_factory=dict)
    accepted: bool | None = None  # for "answered": what accepts() said
    message: str = ""  # one line
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    exception: str | None = None  # the full exception text and where it was raised
    clobbered: str = ""  # memory the adapter wrote where it must not (specgen.runner.call.memory_problem)


def exc_text(exc: BaseException, width: int = 300) -> str:
    """``Type: first line`` of an exception (one line; the full text goes to :func:`exc_full`)."""
    text = str(exc).strip().splitlines()
    first = text[0] if text else ""
    if len(first) > width:
        first = first[:width - 3] + "..."
    more = " [...]" if len(text) > 1 else ""
    return (f"{type(exc).__name__}: {first}{more}" if first else type(exc).__name__)


def exc_full(exc: BaseException) -> str:
    """Every line of the exception's message, with the adapter frame it came from."""
    tb = traceback.extract_tb(exc.__traceback__)
    where = f"\n  (raised at {tb[-1].filename}:{tb[-1].lineno} in {tb[-1].name})" if tb else ""
    return f"{type(exc).__name__}: {str(exc).rstrip()}{where}"


def _to_array(value) -> np.ndarray:
    if isinstance(value, np.ndarray):
        return value
    if hasattr(value, "numpy") and callable(value.numpy):  # torch / tf tensors
        return value.numpy()
    return np.asarray(value)


def _is_rejection(adapter, exc: BaseException) -> bool:
    """The backend signalled "illegal call": :class:`Rejected`, or an exception type the adapter
    declares in ``rejection_errors``. Nothing else counts (numpy failing to broadcast into a
    mis-sized buffer is a crash, not the backend refusing)."""
    declared = tuple(getattr(adapter, "rejection_errors", ()) or ())
    return isinstance(exc, Rejected) or (bool(declared) and isinstance(exc, declared))


def invoke(adapter, call: Call, ask_accepts: bool = False) -> Outcome:
    """Run one call through an adapter; never raises (except KeyboardInterrupt/SystemExit)."""
    t0 = time.perf_counter()
    if ask_accepts:
        try:
            answer = adapter.accepts(call)
        except Exception as exc:
            return Outcome(RAISED, message=f"accepts() raised {exc_text(exc)}", exception=exc_full(exc),
                           seconds=time.perf_counter() - t0)
        if answer is not None:
            return Outcome(ANSWERED, accepted=bool(answer), seconds=time.perf_counter() - t0)
    for mem in (getattr(call, "memory", None) or {}).values():
        mem.snapshot()
    try:
        returned = adapter.run(call)
    except Unsupported as exc:
        return Outcome(UNSUPPORTED, message=exc_text(exc), exception=exc_full(exc), seconds=time.perf_counter() - t0)
    except Exception as exc:
        status = REJECTED if _is_rejection(adapter, exc) else RAISED
        tb = traceback.extract_tb(exc.__traceback__)
        where = f" (at {tb[-1].filename}:{tb[-1].lineno})" if tb and status == RAISED else ""
        return Outcome(status, message=exc_text(exc) + where, exception=exc_full(exc),
                       seconds=time.perf_counter() - t0)
    seconds = time.perf_counter() - t0
    names = list(call.outputs)
    notes: list[str] = []
    if returned is None and not call.in_place:
        unwritten = [n for n in names if n in call.out and never_written(call.out[n])]
        if unwritten:
            # a result equal to the sentinel everywhere is possible (a one-element int8 tensor):
            # run once more into a second pattern before calling it "no output"
            for n in unwritten:
                refill(call.out[n])
            try:
                returned = adapter.run(call)
            except Exception as exc:
                return Outcome(RAISED, message=f"second run (checking for output) raised {exc_text(exc)}",
                               exception=exc_full(exc), seconds=time.perf_counter() - t0)
            still = [n for n in unwritten if never_written(call.out[n], SECOND_SENTINEL_BYTE)]
            if returned is None and still:
                return Outcome(NO_OUTPUT, message=f"run() returned None and did not write call.out[{still[0]!r}]",
                               seconds=seconds)
    try:
        if returned is None:
            outputs = {n: call.out[n] for n in names}
        elif isinstance(returned, dict):
            outputs = {k: _to_array(v) for k, v in returned.items()}
        elif isinstance(returned, (tuple, list)) and len(names) > 1:
            outputs = {n: _to_array(v) for n, v in zip(names, returned)}
        else:
            outputs = {names[0]: _to_array(returned)}
    except Exception as exc:
        return Outcome(RAISED, message=f"the adapter returned something that is not an array: {exc_text(exc)}",
                       exception=exc_full(exc), seconds=seconds)
    if call.in_place:
        # the result of an in-place call is the aliased buffer, whatever the adapter returned
        for n in names:
            buf = call.out.get(n)
            got = outputs.get(n)
            if buf is None:
                continue
            if got is not None and not np.shares_memory(got, buf):
                same = got.shape == buf.shape and np.array_equal(np.asarray(got), np.asarray(buf), equal_nan=True)
                if not same:
                    notes.append(f"in-place: the adapter returned a separate array for {n} and did not write "
                                 f"the result into the buffer it shares with the input; the buffer is judged")
            outputs[n] = buf
    outputs = {k: np.array(v, copy=True) for k, v in outputs.items()}
    return Outcome(OK, outputs=outputs, notes=notes, seconds=seconds, clobbered=memory_problem(call) or "")
