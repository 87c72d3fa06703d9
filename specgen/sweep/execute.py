"""Running a sweep: planning chunks, shards, the resume directory, the local process pool and Dask,
crash bisection and progress.

Every executor runs the same pure function (specgen.sweep.chunk.chunk) on (lo, hi) index ranges
and hands each summary to ``on_result``; the caller merges them, so the result does not depend on
the executor, the number of workers or the order chunks finish in.

Crashes: a worker process that dies while running a chunk (segfault, abort, os._exit, a lost Dask
worker that keeps dying) gets its chunk split in halves, each run again in a fresh worker, down to
the single inputs that kill it; those are recorded as *error* ("the backend process died ...")
and the rest of the chunk is judged normally.
"""
from __future__ import annotations

import json
import math
import multiprocessing as mp
import os
import signal
import sys
import time
from collections import deque
from dataclasses import dataclass
from multiprocessing.connection import wait
from pathlib import Path

from specgen.sweep.chunk import SweepDef, chunk
from specgen.sweep.summary import MergeError, Summary

# ----------------------------------------------------------------------------- planning


def all_chunks(sweep: SweepDef, space) -> list[tuple[int, int]]:
    """The sweep's fixed chunk grid: each range of the space cut every ``chunk_size`` indices."""
    cs = sweep.chunk_size
    out = []
    for a, b in space.ranges:
        lo = a
        while lo <= b:
            hi = min(b, lo + cs - 1)
            out.append((lo, hi))
            lo = hi + 1
    return out


def n_chunks(sweep: SweepDef, space) -> int:
    cs = sweep.chunk_size
    return sum((b - a) // cs + 1 for a, b in space.ranges)


def shard_chunks(sweep: SweepDef, space, shard: tuple[int, int] | None) -> list[tuple[int, int]]:
    """Shard K of N (1-based): a contiguous run of the chunk grid, the N shards covering it once."""
    chunks = all_chunks(sweep, space)
    if shard is None:
        return chunks
    k, n = shard
    total = len(chunks)
    return chunks[(k - 1) * total // n: k * total // n]


def subtract(chunks: list[tuple[int, int]], covered: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The parts of ``chunks`` not in ``covered`` (both sorted, disjoint)."""
    out = []
    cov = sorted(covered)
    j = 0
    for lo, hi in chunks:
        cur = lo
        while j < len(cov) and cov[j][1] < lo:
            j += 1
        k = j
        while cur <= hi:
            if k < len(cov) and cov[k][0] <= hi:
                a, b = cov[k]
                if a > cur:
                    out.append((cur, a - 1))
                cur = max(cur, b + 1)
                k += 1
            else:
                out.append((cur, hi))
                break
    return out


# ----------------------------------------------------------------------------- resume directory


class ResumeDir:
    """DIR/sweep.json (the sweep's identity) and DIR/chunks/<lo>-<hi>.json, one per finished chunk
    (written atomically, so a kill never leaves half a file)."""

    def __init__(self, path: str | os.PathLike, sweep: SweepDef):
        self.path = Path(path)
        self.chunks = self.path / "chunks"
        self.identity = sweep.identity()

    def open(self) -> list[Summary]:
        """Create the directory or check it holds this sweep; the finished chunks' summaries."""
        self.chunks.mkdir(parents=True, exist_ok=True)
        ident = self.path / "sweep.json"
        if ident.exists():
            have = json.loads(ident.read_text())
            if have != self.identity:
                diff = sorted(k for k in set(have) | set(self.identity) if have.get(k) != self.identity.get(k))
                raise MergeError(f"{self.path} holds another sweep (it differs in {', '.join(diff)}); "
                                 f"use another --resume directory")
        else:
            _atomic_write(ident, json.dumps(self.identity, sort_keys=True, indent=1) + "\n")
        out = []
        for f in sorted(self.chunks.glob("*.json")):
            try:
                out.append(Summary.from_json(json.loads(f.read_text())))
            except (ValueError, KeyError) as exc:
                print(f"sweep: ignoring unreadable chunk file {f}: {exc}", file=sys.stderr)
        return out

    def save(self, s: Summary) -> None:
        lo, hi = s.covered[0][0], s.covered[-1][1]
        _atomic_write(self.chunks / f"{lo:016x}-{hi:016x}.json", json.dumps(s.to_json(), sort_keys=True) + "\n")


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


# ----------------------------------------------------------------------------- progress


class Progress:
    """A bar with rate and ETA on a terminal (redrawn at most 5 times a second); plain lines every
    ``every`` seconds otherwise (CI logs)."""

    def __init__(self, total: int, stream=None, tty: bool | None = None, every: float = 10.0, done: int = 0):
        self.total, self.done0, self.done = total, done, done
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.every = every if not self.tty else 0.2
        self.t0 = self.last = time.monotonic()
        self.failures = 0

    def update(self, elements: int, failures: int = 0, force: bool = False) -> None:
        self.done += elements
        self.failures += failures
        now = time.monotonic()
        if not force and now - self.last < self.every:
            return
        self.last = now
        self.stream.write(self.line(now) + ("\r" if self.tty else "\n"))
        self.stream.flush()

    def line(self, now: float) -> str:
        el = max(now - self.t0, 1e-9)
        rate = (self.done - self.done0) / el
        frac = self.done / self.total if self.total else 1.0
        eta = (self.total - self.done) / rate if rate > 0 else math.inf
        text = (f"{100 * frac:5.1f}% {self.done:,}/{self.total:,} elements, {rate / 1e6:.2f} M/s, "
                f"ETA {_dur(eta)}, {self.failures:,} failing")
        if self.tty:
            width = 24
            fill = int(round(width * frac))
            return f"[{'#' * fill}{'.' * (width - fill)}] {text}  "
        return f"sweep: {text}"

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()


def _dur(s: float) -> str:
    if not math.isfinite(s):
        return "?"
    s = int(round(s))
    return f"{s // 3600}h{s % 3600 // 60:02d}m" if s >= 3600 else (f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{s}s")


# ----------------------------------------------------------------------------- the local pool


def _died_message(code) -> str:
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"the backend process died ({name})"
    return f"the backend process died (exit code {code})"


def _worker_main(conn, environ) -> None:  # runs in the child
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    # the parent's environment now, not the fork server's from when it started (as with spawn)
    os.environ.clear()
    os.environ.update(environ)
    conn.send(("ready",))
    while True:
        try:
            msg = conn.recv()
        except EOFError:
            return
        if msg is None:
            return
        tid, sweep, lo, hi, crashed = msg
        try:
            s = chunk(sweep, lo, hi, crashed)
            conn.send((tid, "ok", s))
        except Exception as exc:  # noqa: BLE001 - a bug in specgen, reported by the parent
            import traceback

            conn.send((tid, "bug", f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}"))


class _Proc:
    def __init__(self, ctx):
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker_main, args=(child, dict(os.environ)), daemon=True)
        self.proc.start()
        child.close()
        self.task = None
        self.ready = False

    def stop(self, kill: bool = False) -> None:
        try:
            if kill:
                self.proc.kill()
            else:
                self.conn.send(None)
        except (OSError, ValueError):
            pass
        self.proc.join(timeout=0.5 if kill else 5)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join(timeout=5)


class SweepBug(RuntimeError):
    """The chunk function itself raised (not the adapter: adapter exceptions are verdicts)."""


@dataclass
class Task:
    lo: int
    hi: int
    crashed: str | None = None


def _mp_context():
    """forkserver where there is one (a fresh worker after a crash starts in milliseconds, forked
    from a server that has numpy and specgen imported but no backend loaded), else spawn."""
    if "forkserver" in mp.get_all_start_methods():
        ctx = mp.get_context("forkserver")
        ctx.set_forkserver_preload(["numpy", "specgen.numerics.compare", "specgen.numerics.exact",
                                    "specgen.sweep.preload"])
        return ctx
    return mp.get_context("spawn")


def run_inline(sweep: SweepDef, tasks: list[tuple[int, int]], on_result) -> None:
    """``--workers 0``: every chunk in this process (no start-up cost, no crash isolation)."""
    for lo, hi in tasks:
        on_result(chunk(sweep, lo, hi))


def run_local(sweep: SweepDef, tasks: list[tuple[int, int]], workers: int, on_result) -> None:
    """Run ``tasks`` on ``workers`` spawned processes; a chunk whose process dies is bisected.
    KeyboardInterrupt propagates after the workers are stopped (finished results were handed on)."""
    if workers == 0:
        return run_inline(sweep, tasks, on_result)
    ctx = _mp_context()
    pending = deque(Task(lo, hi) for lo, hi in tasks)
    procs = [_Proc(ctx) for _ in range(max(1, min(workers, len(pending))))] if pending else []
    tid = 0
    try:
        while pending or any(p.task for p in procs):
            for p in procs:
                if p.task is None and pending:
                    t = pending.popleft()
                    tid += 1
                    p.task = (tid, t)
                    p.conn.send((tid, sweep, t.lo, t.hi, t.crashed))
            busy = [p for p in procs if p.task]
            ready = wait([p.conn for p in busy] + [p.proc.sentinel for p in busy])
            for i, p in enumerate(procs):
                if not p.task or (p.conn not in ready and p.proc.sentinel not in ready):
                    continue
                got = None
                if p.conn.poll():
                    try:
                        got = p.conn.recv()
                    except (EOFError, OSError):
                        got = None
                if got == ("ready",):
                    p.ready = True
                    continue
                if got is not None:
                    _, status, payload = got
                    t = p.task[1]
                    p.task = None
                    if status != "ok":
                        raise SweepBug(f"chunk 0x{t.lo:x}..0x{t.hi:x} raised inside specgen: {payload}")
                    on_result(payload)
                    continue
                if p.proc.is_alive():
                    continue  # readable for another reason; wait again
                t = p.task[1]
                msg = _died_message(p.proc.exitcode)
                if not p.ready:
                    raise SweepBug(f"a worker process failed to start ({msg[len('the backend process '):]}); "
                                   f"a script that runs sweeps needs `if __name__ == '__main__':`")
                p.stop(kill=True)
                procs[i] = _Proc(ctx)
                for part in _bisect(t, msg):
                    pending.appendleft(part)
    finally:
        for p in procs:
            p.stop(kill=bool(p.task))


def _bisect(t: Task, msg: str) -> list[Task]:
    """What to run after a process died on task ``t``: its halves, or (one input) the crash record."""
    if t.crashed is not None:  # recording a crash does not call the backend; dying there is a bug
        raise SweepBug(f"a worker died recording the crash at 0x{t.lo:x}")
    if t.lo == t.hi:
        return [Task(t.lo, t.hi, msg)]
    m = (t.lo + t.hi) // 2
    return [Task(m + 1, t.hi), Task(t.lo, m)]  # appendleft order: the lower half runs first


# ----------------------------------------------------------------------------- Dask


def run_dask(sweep: SweepDef, tasks: list[tuple[int, int]], workers: int, address: str | None, on_result,
             log=None) -> None:
    """The same chunks on a Dask cluster: a LocalCluster (``address`` None) or the scheduler at
    ``address``. A task whose worker keeps dying (KilledWorker) is bisected as in the local pool."""
    try:
        import dask
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError as exc:
        raise ImportError("--scheduler dask needs dask.distributed: pip install 'specgen[dask]'") from exc
    cluster = None
    with dask.config.set({"distributed.scheduler.allowed-failures": 1, "distributed.worker.daemon": False}):
        if address is None:
            cluster = LocalCluster(n_workers=max(1, workers), threads_per_worker=1, processes=True,
                                   dashboard_address=None, silence_logs=40)
            client = Client(cluster)
        else:
            client = Client(address)
        if log:
            log(f"sweep: dask scheduler {client.scheduler.address} with "
                f"{len(client.scheduler_info().get('workers', {}))} worker(s)")
        try:
            futs = {}

            def submit(t: Task):
                f = client.submit(chunk, sweep, t.lo, t.hi, t.crashed, pure=False)
                futs[f.key] = t
                return f

            ac = as_completed([submit(Task(lo, hi)) for lo, hi in tasks])
            for f in ac:
                t = futs.pop(f.key)
                try:
                    s = f.result()
                except Exception as exc:  # noqa: BLE001
                    if type(exc).__name__ != "KilledWorker":
                        raise SweepBug(f"chunk 0x{t.lo:x}..0x{t.hi:x} raised: {type(exc).__name__}: {exc}") from exc
                    for part in _bisect(t, "the backend process died (Dask worker killed)"):
                        ac.add(submit(part))
                    continue
                finally:
                    f.release()
                on_result(s)
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
