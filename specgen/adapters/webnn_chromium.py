"""The ``webnn-chromium`` adapter: WebNN as a real browser implements it.

It drives the headless Chromium of the npm package ``@sparticuz/chromium`` (built with WebNN's
LiteRT backend, XNNPACK on the CPU; Debian's chromium has no WebNN backend) over the Chrome
DevTools Protocol on ``--remote-debugging-pipe`` (file descriptors 3 and 4, messages ended by a
NUL byte): no Python package beyond the standard library. ``tools/install-webnn-chromium.sh``
installs the browser; without it the adapter is "not installed".

One browser and one page per adapter (per run). Every case is one graph: ``builder.input`` per
input tensor, ``builder[operator](inputs..., options)`` with the operator and option names of the
spec's ``webnn`` block (data, not code), ``build``, ``createTensor``/``writeTensor``,
``dispatch``, ``readTensor``. Tensors cross the protocol as base64 of their bytes, so NaN
payloads, -0 and float16 bit patterns survive. Claims are the browser's own
``MLContext.opSupportLimits()``. A WebNN exception (TypeError, DataError, ...) from ``input``,
the operator, ``build``, ``createTensor`` or ``dispatch`` is a rejection of the call.
"""
from __future__ import annotations

import atexit
import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from specgen.adapters.base import Adapter, Claim, NotInstalled, Rejected, Values

STANDARD = "webnn"
ENV_DIR = "SPECGEN_WEBNN_CHROMIUM"
INSTALL_HINT = "install it with tools/install-webnn-chromium.sh (npm registry: @sparticuz/chromium)"
FLAGS = ("--headless", "--no-sandbox", "--remote-debugging-pipe", "--disable-gpu",
         "--enable-features=WebMachineLearningNeuralNetwork", "--no-first-run", "--no-default-browser-check",
         "--disable-extensions", "--mute-audio")
START_TIMEOUT = 30.0
CALL_TIMEOUT = 60.0

# The page: a secure context (file://) holding one MLContext and the function that runs one call.
PAGE = r"""<!doctype html><meta charset="utf-8"><title>specgen webnn</title><script>
"use strict";
const b64decode = (s) => { const bin = atob(s); const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i); return out; };
const b64encode = (buf) => { const u8 = new Uint8Array(buf); let s = "";
  for (let i = 0; i < u8.length; i += 0x8000) s += String.fromCharCode.apply(null, u8.subarray(i, i + 0x8000));
  return btoa(s); };
const errText = (e) => (e && e.name ? e.name + ": " + e.message : String(e));
window.__specgen = {
  context: null,
  async init() {
    if (!("ml" in navigator)) throw new Error("navigator.ml is undefined (WebNN is not enabled)");
    this.context = await navigator.ml.createContext({deviceType: "cpu"});
    return {limits: this.context.opSupportLimits(), userAgent: navigator.userAgent};
  },
  // req: {operator, options, inputs: [{name, dataType, shape, data}], outputs: [{name, dataType, shape}]};
  // with req.args the operator takes these arguments (an input by {operand: name}, else a value) and
  // then the options, whose values may name an input too (gemm's {c: {operand: "c"}})
  async run(req) {
    const ctx = this.context;
    let stage = "input", graph = null;
    const tensors = [];
    try {
      const builder = new MLGraphBuilder(ctx);
      const operands = req.inputs.map((t) => builder.input(t.name, {dataType: t.dataType, shape: t.shape}));
      stage = "operator";
      if (typeof builder[req.operator] !== "function") throw new Error("MLGraphBuilder has no " + req.operator + "()");
      const byName = {};
      req.inputs.forEach((t, i) => { byName[t.name] = operands[i]; });
      // {operand: name} is an input; {bigint: "digits"} an MLNumber beyond 2^53 (int64, uint64 options)
      const resolve = (v) => (v && typeof v === "object" && !Array.isArray(v) && "operand" in v) ? byName[v.operand]
        : (v && typeof v === "object" && !Array.isArray(v) && "bigint" in v) ? BigInt(v.bigint) : v;
      const options = {};
      for (const [k, v] of Object.entries(req.options || {})) options[k] = resolve(v);
      let result;
      if (req.args) {
        result = builder[req.operator](...req.args.map(resolve), options);
      } else {
        result = builder[req.operator](...operands, options);
      }
      const results = Array.isArray(result) ? result : [result];
      const named = {};
      req.outputs.forEach((t, i) => { named[t.name] = results[i]; });
      stage = "build";
      graph = await builder.build(named);
      stage = "createTensor";
      const inputs = {}, outputs = {};
      for (const t of req.inputs) {
        const tensor = await ctx.createTensor({dataType: t.dataType, shape: t.shape, writable: true});
        tensors.push(tensor);
        ctx.writeTensor(tensor, b64decode(t.data));
        inputs[t.name] = tensor;
      }
      for (const t of req.outputs) {
        const tensor = await ctx.createTensor({dataType: t.dataType, shape: t.shape, readable: true});
        tensors.push(tensor);
        outputs[t.name] = tensor;
      }
      stage = "dispatch";
      ctx.dispatch(graph, inputs, outputs);
      stage = "readTensor";
      const out = {};
      for (const t of req.outputs) out[t.name] = b64encode(await ctx.readTensor(outputs[t.name]));
      return {ok: true, outputs: out};
    } catch (e) {
      return {ok: false, stage, error: errText(e)};
    } finally {
      for (const t of tensors) t.destroy();
      if (graph) graph.destroy();
    }
  },
};
</script>"""


def find_browser() -> Path | None:
    """The chromium binary: $SPECGEN_WEBNN_CHROMIUM (its folder or the binary; when set, the only
    place looked at), else ./.webnn-chromium, the repository's .webnn-chromium (editable installs),
    ~/.cache/specgen/webnn-chromium."""
    env = os.environ.get(ENV_DIR)
    if env:
        candidates = [Path(env)]
    else:
        candidates = [Path.cwd() / ".webnn-chromium", Path(__file__).resolve().parents[2] / ".webnn-chromium",
                      Path.home() / ".cache" / "specgen" / "webnn-chromium"]
    for c in candidates:
        exe = c if c.is_file() else c / "chromium"
        if exe.is_file() and os.access(exe, os.X_OK):
            return exe
    return None


def _high_fd(fd: int) -> int:
    import fcntl

    high = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
    os.close(fd)
    return high


class BrowserError(RuntimeError):
    """The browser or the protocol failed (not a WebNN rejection)."""


class Browser:
    """One headless Chromium on a DevTools pipe, with one page attached."""

    def __init__(self, exe: Path):
        self.exe = exe
        self.profile = tempfile.mkdtemp(prefix="specgen-webnn-")
        self.log_path = os.path.join(self.profile, "chromium-stderr.txt")
        page = os.path.join(self.profile, "specgen.html")
        with open(page, "w") as f:
            f.write(PAGE)
        cmd_r, self._cmd_w = os.pipe()   # we write commands; the browser reads fd 3
        self._res_r, res_w = os.pipe()   # the browser writes fd 4; we read
        # the child's ends move above 9 first, so that the shell's 3<& and 4>& cannot clobber them
        cmd_r, res_w = (_high_fd(fd) for fd in (cmd_r, res_w))
        script = f'exec "$0" "$@" 3<&{cmd_r} 4>&{res_w} {cmd_r}<&- {res_w}>&-'
        log = open(self.log_path, "wb")
        try:
            self.proc = subprocess.Popen(
                ["bash", "-c", script, str(exe), *FLAGS, f"--user-data-dir={self.profile}/profile", "about:blank"],
                pass_fds=(cmd_r, res_w), stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                start_new_session=True)
        finally:
            log.close()
            os.close(cmd_r)
            os.close(res_w)
        self._buf = b""
        self._next = 0
        self._session = None
        atexit.register(self.close)
        target = self.send("Target.createTarget", {"url": Path(page).as_uri()}, timeout=START_TIMEOUT)["targetId"]
        self._session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:  # while the new target navigates, its execution context may come and go
                if self.evaluate("typeof window.__specgen === 'object' && document.readyState === 'complete'"):
                    break
                why = "not loaded yet"
            except BrowserError as exc:
                if self.proc.poll() is not None:
                    raise
                why = str(exc)
            if time.monotonic() > deadline:
                raise BrowserError(f"the harness page did not load: {why}")
            time.sleep(0.01)

    # -- protocol
    def _log_tail(self) -> str:
        try:
            with open(self.log_path, "rb") as f:
                lines = f.read().decode("utf-8", "replace").strip().splitlines()
            return " | ".join(lines[-3:])
        except OSError:
            return ""

    def send(self, method: str, params: dict | None = None, session: bool = False, timeout: float = CALL_TIMEOUT):
        self._next += 1
        msg = {"id": self._next, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = self._session
        data = json.dumps(msg).encode() + b"\0"
        try:
            while data:
                data = data[os.write(self._cmd_w, data):]
        except OSError as exc:
            raise BrowserError(f"the browser is gone ({exc}); its log: {self._log_tail()}") from None
        deadline = time.monotonic() + timeout
        while True:
            end = self._buf.find(b"\0")
            if end >= 0:
                raw, self._buf = self._buf[:end], self._buf[end + 1:]
                reply = json.loads(raw)
                if reply.get("id") != self._next:
                    continue  # an event, or a late reply
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error'].get('message')}")
                return reply["result"]
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError(f"{method}: no answer within {timeout:g} s")
            ready, _, _ = select.select([self._res_r], [], [], left)
            if ready:
                chunk = os.read(self._res_r, 1 << 20)
                if not chunk:
                    raise BrowserError(f"the browser closed the pipe (exit {self.proc.poll()}); its log: {self._log_tail()}")
                self._buf += chunk

    def evaluate(self, expression: str, timeout: float = CALL_TIMEOUT):
        """Evaluate in the page, await a promise, return the value (JSON)."""
        result = self.send("Runtime.evaluate", {"expression": expression, "awaitPromise": True,
                                                "returnByValue": True}, session=True, timeout=timeout)
        if "exceptionDetails" in result:
            d = result["exceptionDetails"]
            text = (d.get("exception") or {}).get("description") or d.get("text")
            raise BrowserError(f"page script failed: {text}")
        return result["result"].get("value")

    def close(self) -> None:
        proc = getattr(self, "proc", None)
        if proc is None:
            return
        self.proc = None
        for fd in (self._cmd_w, self._res_r):
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            proc.wait(timeout=2)  # chromium exits when its pipe closes
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


def _webnn_specs():
    from specgen.spec.loader import load_all

    return [(spec, spec.standards[STANDARD]) for spec in load_all().values() if STANDARD in spec.standards]


class WebNNChromiumAdapter(Adapter):
    description = "WebNN in headless Chromium (@sparticuz/chromium, LiteRT/XNNPACK CPU) over the DevTools pipe"

    def __init__(self):
        exe = find_browser()
        if exe is None:
            raise NotInstalled(f"no WebNN-capable Chromium found (${ENV_DIR}, .webnn-chromium, "
                               f"~/.cache/specgen/webnn-chromium); {INSTALL_HINT}")
        self.exe = exe
        self._browser: Browser | None = None
        self._info: dict | None = None
        self._claims: list[Claim] | None = None
        self._unclaimed: dict[tuple, str] = {}

    # -- the browser, started on first use
    def _page(self) -> Browser:
        if self._browser is None:
            self._browser = Browser(self.exe)
            try:
                self._info = self._browser.evaluate("window.__specgen.init()")
            except BrowserError as exc:
                raise BrowserError(f"WebNN context: {exc}") from None
        return self._browser

    def backend_version(self) -> str:
        self._page()
        ua = self._info.get("userAgent", "") if self._info else ""
        chrome = next((p for p in ua.split() if p.startswith(("HeadlessChrome/", "Chrome/"))), ua)
        version = (self.exe.parent / "VERSION").read_text().strip() if (self.exe.parent / "VERSION").is_file() else "?"
        return f"{chrome} (@sparticuz/chromium {version}), WebNN deviceType cpu"

    def limits(self) -> dict:
        self._page()
        return dict(self._info.get("limits") or {})

    # -- claims: the browser's opSupportLimits()
    def claims(self):
        if self._claims is not None:
            return self._claims
        limits = self.limits()
        claims = []
        for spec, std in _webnn_specs():
            op_limits = limits.get(std.operator)
            versions = tuple(v.version for v in std.versions)
            if not isinstance(op_limits, dict):
                for v in versions:
                    for d in std.version(v).dtypes():
                        self._unclaimed[(spec.id, STANDARD, v, d)] = \
                            f"opSupportLimits() has no entry {std.operator!r}"
                continue
            from specgen.generate.corpus import case_dtypes, tensor_dtype

            first = std.tensors[spec.inputs[0].name].name
            tensor_limits = op_limits.get(first) or {}
            rank = tensor_limits.get("rankRange") or {}
            inputs = [t.name for t in spec.inputs]
            for v in versions:
                ver = std.version(v)
                dtypes = []
                for d in case_dtypes(ver, inputs):
                    # every input in the dtype it has in a case of d (Where: a uint8 condition)
                    missing = [(std.tensors[t].name, tensor_dtype(ver, t, d)) for t in inputs
                               if tensor_dtype(ver, t, d) not in
                               (op_limits.get(std.tensors[t].name) or {}).get("dataTypes", [])]
                    if missing:
                        name, want = missing[0]
                        self._unclaimed[(spec.id, STANDARD, v, d)] = (
                            f"opSupportLimits().{std.operator}.{name}.dataTypes is "
                            f"{(op_limits.get(name) or {}).get('dataTypes')} (no {want})")
                    else:
                        dtypes.append(d)
                # an output type an attribute names (cast's dataType): the types the output's limits list
                rules = {}
                for t in spec.outputs:
                    if getattr(t, "dtype_from", None) is not None:
                        allowed = (op_limits.get(std.tensors[t.name].name) or {}).get("dataTypes", [])
                        targets = ver.dtypes(t.name)
                        ok = [d for d in targets if std.info.dtype_names.get(d) in allowed]
                        if len(ok) < len(targets):
                            rules[t.dtype_from] = Values(*ok)
                claims.append(Claim(op=spec.id, standard=STANDARD, versions=(v,), dtypes=tuple(dtypes),
                                    ranks=(rank.get("min"), rank.get("max")), rejects=True, attributes=rules,
                                    note=f"from opSupportLimits().{std.operator}"))
        claims += self._accumulating_claims(limits)
        self._claims = claims
        return claims

    def _accumulating_claims(self, limits: dict) -> list:
        """The accumulating operators whose WebNN block says how the builder takes them (``call``):
        dtypes and ranks from opSupportLimits()' entry of their first operand."""
        from specgen.spec.operators import accumulating

        claims = []
        for spec in accumulating(self.specs).values():
            std = spec.standards.get(STANDARD)
            if std is None or std.call is None:
                continue
            op_limits = limits.get(std.operator)
            first = next((v for k, v in op_limits.items() if k != "output" and isinstance(v, dict)), {}) \
                if isinstance(op_limits, dict) else None
            for v in std.versions:
                for d in v.dtypes():
                    if first is None or d not in first.get("dataTypes", []):
                        self._unclaimed[(spec.id, STANDARD, v.version, d)] = (
                            f"opSupportLimits() has no entry {std.operator!r}" if first is None else
                            f"opSupportLimits().{std.operator} data types are {first.get('dataTypes')}")
            if first is None:
                continue
            rank = first.get("rankRange") or {}
            claims.append(Claim(op=spec.id, standard=STANDARD, versions=tuple(v.version for v in std.versions),
                                dtypes=tuple(d for d in ("float32", "float16") if d in first.get("dataTypes", [])),
                                ranks=(rank.get("min"), rank.get("max")), rejects=True,
                                note=f"from opSupportLimits().{std.operator}"))
        return claims

    def why_unclaimed(self, op, standard, version, dtype):
        return self._unclaimed.get((op, standard, str(version), dtype))

    # -- running
    def _call_request(self, call) -> dict:
        """An accumulating operator's request: the arguments and options its WebNN block's ``call`` names."""
        std = call.spec.standards[call.standard]
        version = std.version(call.version)

        def given(name) -> bool:
            return name in call.inputs or (name in version.attributes and call.attributes.get(name) is not None)

        def value(name):
            if name in call.inputs:
                return {"operand": name}
            v = call.attributes[name]
            return bool(v) if call.spec.attributes[name].type == "bool" else v

        inputs = []
        for n, arr in call.inputs.items():
            arr = np.require(arr, requirements="C")
            if arr.dtype.name not in ("float32", "float16"):
                raise Rejected(f"WebNN has no data type for {arr.dtype.name}")
            inputs.append({"name": n, "dataType": arr.dtype.name, "shape": list(arr.shape),
                           "data": base64.b64encode(arr.tobytes()).decode()})
        outputs = [{"name": n, "dataType": info.dtype, "shape": list(info.shape)} for n, info in call.outputs.items()]
        return {"operator": std.operator, "args": [value(a) for a in std.call["args"]],
                "options": {k: value(a) for k, a in std.call["options"].items() if given(a)},
                "inputs": inputs, "outputs": outputs}

    def _request(self, call) -> dict:
        from specgen.spec.operators import ACCUMULATING, engine

        if engine(call.spec) == ACCUMULATING:
            return self._call_request(call)
        std = call.spec.standards[call.standard]
        names = call.std_tensors
        dtype_names = std.info.dtype_names

        def webnn_type(dtype: str) -> str:
            if dtype not in dtype_names:
                raise Rejected(f"WebNN has no data type for {dtype}")
            return dtype_names[dtype]

        from specgen.dtypes import by_numpy

        inputs = []
        for n, arr in call.inputs.items():
            arr = np.require(arr, requirements="C")  # (ascontiguousarray would make a 0-d array 1-d)
            inputs.append({"name": names[n], "dataType": webnn_type(by_numpy(arr.dtype).name),
                           "shape": list(arr.shape), "data": base64.b64encode(arr.tobytes()).decode()})
        outputs = [{"name": names[n], "dataType": webnn_type(info.dtype), "shape": list(info.shape)}
                   for n, info in call.outputs.items()]
        # an integer beyond 2^53 (an int64 limit) travels as a bigint: a double would round it;
        # NaN and the infinities travel as the page's literals (json.dumps writes NaN, Infinity)
        options = {k: ({"bigint": str(v)} if isinstance(v, int) and not isinstance(v, bool) and abs(v) > 2 ** 53 else v)
                   for k, v in call.std_attributes(given_only=True).items()}
        req = {"operator": std.operator, "options": options, "inputs": inputs, "outputs": outputs}
        positional = [b.name for b in std.attributes.values() if getattr(b, "positional", False)]
        if positional:  # builder[op](inputs..., attribute, options): WebNN cast(input, dataType)
            missing = [n for n in positional if n not in req["options"]]
            if missing:
                raise Rejected(f"{std.operator}() needs its argument {missing[0]!r}")
            req["args"] = [{"operand": t["name"]} for t in inputs] + [req["options"].pop(n) for n in positional]
        return req

    def _send(self, req: dict) -> dict:
        """One graph in the page; the outputs' bytes by name, or Rejected with the WebNN exception."""
        reply = self._page().evaluate(f"window.__specgen.run({json.dumps(req)})")
        if not reply.get("ok"):
            raise Rejected(f"{reply.get('stage')}: {reply.get('error')}")
        return {k: base64.b64decode(v) for k, v in reply["outputs"].items()}

    def run(self, call):
        from specgen.dtypes import get

        got = self._send(self._request(call))
        out = {}
        for n, info in call.outputs.items():
            raw = got[call.std_tensors[n]]
            out[n] = np.frombuffer(raw, dtype=get(info.dtype).numpy).reshape(info.shape).copy()
        return out

    def compute(self, operator: str, x: np.ndarray, options: dict | None = None) -> np.ndarray:
        """One unary WebNN operator on ``x`` (float32 or float16) with ``options`` as given: for
        probing behaviour outside the corpus (tests, reports). Raises Rejected as run() does."""
        x = np.require(x, requirements="C")
        webnn_type = {"float32": "float32", "float16": "float16"}[x.dtype.name]
        req = {"operator": operator, "options": dict(options or {}),
               "inputs": [{"name": "input", "dataType": webnn_type, "shape": list(x.shape),
                           "data": base64.b64encode(x.tobytes()).decode()}],
               "outputs": [{"name": "output", "dataType": webnn_type, "shape": list(x.shape)}]}
        raw = self._send(req)["output"]
        return np.frombuffer(raw, dtype=x.dtype).reshape(x.shape).copy()

    def accepts(self, call):
        if any(s is not None for s in call.strides.values()):
            return False  # WebNN tensors are dense: MLOperandDescriptor has no strides to pass
        return None  # run it: the browser's exceptions are its rejections

    def close(self):
        if self._browser is not None:
            self._browser.close()
            self._browser = None
