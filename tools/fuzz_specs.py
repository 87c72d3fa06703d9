"""A seeded mutation fuzzer for specgen's spec handling (issue 15: specs are untrusted input).

    .venv/bin/python tools/fuzz_specs.py --seed 1 --trials 2000 [--jobs 2] [--timeout 60] [--show-bad]

Every trial copies the bundled _standards.yaml and one bundled operator spec into a fresh
directory, applies one to three mutations drawn from the catalogue below (YAML syntax, type
confusion, unknown keys, hostile values and numbers, rank ranges, attribute defaults, formulas,
text injection into generated code, identifier renames, page templates, cross-file duplicates,
hostile YAML, non-UTF-8, special files), then runs in a worker process limited by RLIMIT_AS:

1. ``specgen lint DIR``;
2. if lint passes: ``specgen generate --specs DIR --out OUT`` over an existing generated tree;
3. if generate passes: every generated module is imported and ``specgen show`` renders each op
   for each of its standards.

and classifies it. Good outcomes: ``ok`` (everything passed) and ``clean-error`` (exit 1 with
messages naming the spec file, no traceback). Bad: ``traceback`` (any uncaught exception),
``hang`` (a trial past --timeout), ``memory`` (MemoryError, or the worker killed at the memory
limit), ``unnamed-error`` (failure without naming a file), ``tree-changed`` (a failed generate
touched the existing OUT), ``outside-write`` (a file appeared or changed outside OUT: in the
specs directory, the trial directory, or the canary working directory), ``import-error`` and
``side-effect`` (a generated module that does not import cleanly or that prints or writes).

Same seed, same trials: a trial is ``(seed, index)`` and its mutations come from
``random.Random(f"{seed}:{index}")``. tests/test_fuzz_specs.py runs a hundred-odd trials of this
on every test run.
"""
from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPECS = ROOT / "specs"
OPS = ("hard_sigmoid", "shrink", "softsign")
GOOD = ("ok", "clean-error")
KINDS = GOOD + ("traceback", "hang", "memory", "unnamed-error", "tree-changed", "outside-write", "import-error",
                "side-effect")
MEMORY_LIMIT = 3 << 30  # address space of a worker (numpy and the generator need well under 1 GiB)
CANARY = "CANARY"

# ----------------------------------------------------------------------------- value pools

HOSTILE_VALUES = [
    "[]", "{}", "null", "true", "false", "0", "-1", "1.5", "1e309", "-1e309", "1e-50", ".nan", ".inf", "-.inf",
    "3.4028234663852886e+38", "'abc'", "'0.5'", '"false"', "0", "9", "1e9", "1e30", "1000000000",
    "1" + "0" * 400, "[[1, 2], [3]]", "{a: 1}", "'{version.__class__.__init__.__globals__}'",
    "!!python/object/apply:os.system ['touch " + CANARY + "']", "!local foo", "!!float abc",
    "!!python/name:os.system", "&a x", "*a", "'" + "x" * 5000 + "'", '"\\0"', '"\\ud800"', "''",
    "class", "np", "'C:\\Users\\new'", "'\\N{BOGUS NAME}'", "~", "0x10", "0o7", "1_000", "-0.0",
    "[float32, [float16]]", "{min: 0, max: 9}", "unspecified", "'%s'", "'{0}'", "'{}'",
]
NUMBERS = ["0", "-1", "9", "8", "1e9", "1e30", "1e309", "-1e309", "1e-50", "1e-45", "3.4028234663852886e+38",
           "65504", ".nan", ".inf", "1" + "0" * 400, "9223372036854775808", "-0.0", "0.1", "2.5", "true", "'1'"]
TEXTS = [
    "'C:\\Users\\new'", "'\\N{BOGUS NAME}'", '"nul \\0 byte"', "'ends with a quote\"'", "'a \"\"\" b'",
    '"x\\"\\"\\"\\n__import__(\\"os\\").system(\\"touch ' + CANARY + '\\")\\n#"',
    "'x\"\"\"; open(\"" + CANARY + "\", \"w\")  #'", '"line\\rbreak"', '"sep\\u2028arator"', '"bell\\a"',
    '"surrogate \\ud800"', "'{}'", "'}}{{'", "'\\\\'", "'#'", "'-->'", "'\\\"\\\"\\\"'", "\"'''\"",
    "'" + "long " * 500 + "'",
]
IDENTIFIERS = ["class", "lambda", "import", "np", "numpy", "float", "int", "standard", "version", "attrs",
               "formula", "wide", "y", "_x", "__class__", "OPERATOR", "DEFAULTS", "FORMULA", "Fraction",
               "ml_dtypes", "x1", "X", "validate", "check", "print", "None", "True", "match", "é", "a b", "1x"]
FORMULAS = [
    "exp(exp(exp(x)))", "x ** 1e308", "x / 0", "pow(x, 1000)", "pow(2, pow(2, pow(2, x)))", "log(0 * x)",
    "x * 1" + "0" * 310, "x * 1e-400", "   x * 2", "sqrt(-1 - x * x)", "(" * 60 + "x" + ")" * 60,
    "__import__('os').system('touch " + CANARY + "')", "lambda: x", "[x for x in x]", "f'{x}'",
    "x.__class__", "x[0]", "x if x else x", "exp(x) / exp(x)", "tanh(x) * 1e308 * 1e308", "erf(x) ** -1",
    "clamp(x, 1, 0)", "max(x)", "where(x > 0, x)", "x +", "x; import os", "'\\n'.join(x)", "1e999 * x",
    "x " + "+ x " * 2000, "expm1(x) - log1p(x)", "x * 0x10", "x * 1_000", "-(-(-(-x)))", "not x",
    "x == x and x != x or x < x", "select(x > 0, x, -x)", "sign(x) * abs(x)",
]
RANKS = ["{min: 0, max: 9}", "{min: 0, max: 0}", "{min: 1e9, max: null}", "{min: 0, max: 1e30}",
         "{min: 0, max: 1000000000}", "{min: 5, max: 4}", "{min: -1, max: 4}", "{min: 8, max: 8}",
         "{min: 0, max: null}", "unspecified", "{min: 0}", "{min: true, max: 4}", "[0, 4]", "{min: 0, max: 8.0}"]
TEMPLATES = ["'{version.__class__.__init__.__globals__}'", "'{versoin}'", "'{0}'", "'{}'", "'{version!r}'",
             "'{version:>99999999}'", "'{{literal}}'", "'{type_param}'", "'Tensor<{typeparam}>'", "5",
             "[a, b]", "'{version[0]}'", "'{'", "'}'", "''"]

HOSTILE_DOCUMENTS = [
    "a: &a [x]\nb: *a\n",
    "x: " + "[" * 10000 + "]" * 10000 + "\n",
    "x: " + "{a: " * 3000 + "1" + "}" * 3000 + "\n",
    "<<: {name: X}\nid: x\n",
    "--- {a: 1}\n--- {b: 2}\n",
    "!!python/object/apply:os.system ['touch " + CANARY + "']\n",
    "a: !!python/object/new:os.system ['touch " + CANARY + "']\n",
    "? [complex, key]\n: 1\n",
    "a: 1\na: 2\n",
    "\ufeff",
    "# only a comment\n",
    "- a list\n",
    "just a scalar\n",
    "a: 'unterminated\n",
]

# ----------------------------------------------------------------------------- trials


@dataclass
class Trial:
    seed: int
    index: int
    op: str
    files: dict  # name -> bytes | ("symlink", target) | ("fifo",) | ("dir",)
    mutations: list = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"seed {self.seed} trial {self.index}"


_KEY_VALUE = re.compile(r"(?P<key>[A-Za-z_][\w]*): (?P<value>[^,{}\[\]\n#][^,{}\[\]\n#]*)")


def _text(files, name) -> str | None:
    data = files.get(name)
    return data.decode("utf-8", "replace") if isinstance(data, bytes) else None


def _set(files, name, text: str) -> None:
    files[name] = text.encode("utf-8", "surrogatepass")


def _pick_line(rng, text: str):
    lines = text.split("\n")
    return lines, rng.randrange(len(lines))


def m_scalar(rng, files, op, pool=HOSTILE_VALUES, target=None, key_pattern=None):
    name = target or rng.choice([f"{op}.yaml"] * 4 + ["_standards.yaml"])
    text = _text(files, name)
    if text is None:
        return None
    hits = [m for m in _KEY_VALUE.finditer(text) if key_pattern is None or re.fullmatch(key_pattern, m["key"])]
    if not hits:
        return None
    hit = rng.choice(hits)
    value = rng.choice(pool)
    _set(files, name, text[:hit.start("value")] + value + text[hit.end("value"):])
    return f"{name}: {hit['key']}: {hit['value'].strip()[:30]!r} -> {value[:60]!r}"


def m_number(rng, files, op):
    name = f"{op}.yaml"
    text = _text(files, name)
    if text is None:
        return None
    hits = list(re.finditer(r"(?<![\w.])-?\d+(\.\d+)?(e[-+]?\d+)?(?![\w.])", text or ""))
    if not hits:
        return None
    hit = rng.choice(hits)
    value = rng.choice(NUMBERS)
    _set(files, name, text[:hit.start()] + value + text[hit.end():])
    return f"{name}: number {hit.group()!r} -> {value!r}"


def m_ranks(rng, files, op):
    name = f"{op}.yaml"
    text = _text(files, name)
    if text is None:
        return None
    hits = list(re.finditer(r"ranks: (\{[^}]*\}|unspecified)", text))
    if not hits:
        return None
    value = rng.choice(RANKS)
    if rng.random() < 0.5:  # every table the same: a superset of itself, so it gets past lint
        _set(files, name, re.sub(r"ranks: (\{[^}]*\}|unspecified)", lambda m: "ranks: " + value, text))
        return f"{name}: every ranks -> {value}"
    hit = rng.choice(hits)
    _set(files, name, text[:hit.start(1)] + value + text[hit.end(1):])
    return f"{name}: ranks {hit.group(1)} -> {value}"


def m_formula(rng, files, op):
    name = f"{op}.yaml"
    text = _text(files, name)
    if text is None:
        return None
    formula = rng.choice(FORMULAS)
    quoted = "'" + formula.replace("'", "''") + "'"
    new, count = re.subn(r"(?m)^formula: .*$", "formula: " + quoted, text, count=1)
    if not count:
        return None
    if rng.random() < 0.8:  # the examples would refuse almost every other formula: get past lint
        new = re.sub(r"(?ms)^examples:.*?(?=^\S)", "", new)
    _set(files, name, new)
    return f"{name}: formula -> {formula[:60]!r}"


def m_text(rng, files, op):
    return m_scalar(rng, files, op, TEXTS, f"{op}.yaml", r"summary|description|reason|name|operator|source|title")


def m_template(rng, files, op):
    return m_scalar(rng, files, op, TEMPLATES, "_standards.yaml", r"version_label|tensor_type|version_format|title")


def m_identifier(rng, files, op):
    name = f"{op}.yaml"
    text = _text(files, name)
    if text is None:
        return None
    old = rng.choice(["x", "y", "alpha", "beta", "bias", "threshold", op])
    if not re.search(rf"\b{old}\b", text):
        return None
    new_name = rng.choice(IDENTIFIERS)
    _set(files, name, re.sub(rf"\b{old}\b", new_name, text))
    return f"{name}: rename {old} -> {new_name}"


def m_line(rng, files, op):
    name = rng.choice([f"{op}.yaml"] * 4 + ["_standards.yaml"])
    text = _text(files, name)
    if text is None:
        return None
    lines, i = _pick_line(rng, text)
    j = rng.randrange(len(lines))
    kind = rng.choice(["delete", "duplicate", "swap", "indent", "dedent", "truncate"])
    if kind == "delete":
        del lines[i]
    elif kind == "duplicate":
        lines.insert(i, lines[i])
    elif kind == "swap":
        lines[i], lines[j] = lines[j], lines[i]
    elif kind == "indent":
        lines[i] = "  " + lines[i]
    elif kind == "dedent":
        lines[i] = lines[i][2:] if lines[i].startswith("  ") else lines[i]
    else:
        lines = lines[:i]
    _set(files, name, "\n".join(lines))
    return f"{name}: {kind} line {i + 1}"


def m_bytes(rng, files, op):
    name = rng.choice([f"{op}.yaml"] * 4 + ["_standards.yaml"])
    data = files.get(name)
    if not isinstance(data, bytes) or not data:
        return None
    at = rng.randrange(len(data))
    kind = rng.choice(["insert", "replace", "non-utf8", "bom", "nul"])
    noise = rng.choice([b":", b"{", b"}", b"[", b"]", b"&", b"*", b"!", b"|", b">", b"'", b'"', b"#", b"%", b"@",
                        b"`", b"\n", b"\t", b" ", b"-", b"? ", b"<<: "])
    if kind == "insert":
        data = data[:at] + noise + data[at:]
    elif kind == "replace":
        data = data[:at] + noise + data[at + 1:]
    elif kind == "non-utf8":
        data = data[:at] + b"\xff\xfe\xc3" + data[at:]
    elif kind == "bom":
        data = b"\xef\xbb\xbf" + data
    else:
        data = data[:at] + b"\x00" + data[at:]
    files[name] = data
    return f"{name}: bytes {kind} at {at}"


def m_special_file(rng, files, op):
    name = rng.choice([f"{op}.yaml", f"{op}.yaml", "_standards.yaml"])
    kind = rng.choice(["devzero", "fifo", "dir", "loop", "outside", "empty", "bom-only", "huge", "non-utf8"])
    files[name] = {
        "devzero": ("symlink", "/dev/zero"), "fifo": ("fifo",), "dir": ("dir",), "loop": ("symlink", name),
        "outside": ("symlink", str(SPECS / f"{op}.yaml")), "empty": b"", "bom-only": b"\xef\xbb\xbf",
        "huge": b"a: " + b"x" * (2 << 20) + b"\n", "non-utf8": b"name: \xff\xfe\n"}[kind]
    return f"{name}: special file {kind}"


def m_document(rng, files, op):
    name = rng.choice([f"{op}.yaml", f"{op}.yaml", "_standards.yaml"])
    doc = rng.choice(HOSTILE_DOCUMENTS)
    if rng.random() < 0.5 and isinstance(files.get(name), bytes):  # appended to the real file
        _set(files, name, _text(files, name) + "\n" + doc)
        return f"{name}: append hostile YAML {doc[:30]!r}"
    _set(files, name, doc)
    return f"{name}: hostile YAML {doc[:30]!r}"


def m_cross_file(rng, files, op):
    text = _text(files, f"{op}.yaml")
    if text is None:
        return None
    kind = rng.choice(["same-operator", "same-id", "other-name"])
    new_id = "copy_" + op
    if kind == "same-id":
        _set(files, f"{new_id}.yaml", text)
    elif kind == "same-operator":
        _set(files, f"{new_id}.yaml", re.sub(r"(?m)^id: .*$", f"id: {new_id}", text))
    else:
        _set(files, f"{new_id}.yaml", re.sub(r"(?m)^name: .*$", "name: Other",
                                               re.sub(r"(?m)^id: .*$", f"id: {new_id}", text)))
    return f"cross-file: {kind} ({new_id}.yaml)"


def m_unknown_key(rng, files, op):
    name = rng.choice([f"{op}.yaml"] * 3 + ["_standards.yaml"])
    text = _text(files, name)
    if text is None:
        return None
    lines, i = _pick_line(rng, text)
    indent = re.match(r"\s*", lines[i]).group()
    lines.insert(i, f"{indent}{rng.choice(['versoin', 'author', '__class__', 'x', 'default', 'required'])}: 1")
    _set(files, name, "\n".join(lines))
    return f"{name}: unknown key at line {i + 1}"


def m_default(rng, files, op):
    """An attribute default (or test attribute value) at the edge of float32: lint must judge it."""
    name = f"{op}.yaml"
    text = _text(files, name)
    if text is None:
        return None
    hits = list(re.finditer(r"default: (?P<v>[^,}\n]+)", text)) + list(re.finditer(r"values: \{[^:]+: (?P<v>[^,}]+)", text))
    if not hits:
        return None
    hit = rng.choice(hits)
    value = rng.choice(["3.4028234663852886e+38", "-3.4028234663852886e+38", "3.4028235e+38", "1e-45", "1e-50",
                        "1.401298464324817e-45", "65504", "1e30", "-1e30", "1e-30", "0.0", "-0.0", "2", "-2", "100"])
    _set(files, name, text[:hit.start("v")] + value + text[hit.end("v"):])
    return f"{name}: attribute value {hit['v']!r} -> {value}"


def m_choice(rng, files, op):
    """Turn the formula into one chosen by a new string attribute (formula: {by, formulas}), with
    each standard binding it by a name and its own spellings, or fixing one value; spellings,
    defaults and fixed values are sometimes wrong on purpose (unknown values, empty or clashing
    spellings, a default in the wrong spelling)."""
    import yaml

    name = f"{op}.yaml"
    text = _text(files, name)
    if text is None:
        return None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("formula"), str) or not isinstance(data.get("standards"), dict):
        return None
    attr = rng.choice(["mode", "approximate", "kind"])
    values = rng.choice([["first", "second"], ["only"], ["erf", "tanh", "none"], ["first", "second"], ["a", "a"],
                         ["Bad-Value", "ok"]])
    alt = rng.choice([data["formula"], "2 * (" + data["formula"] + ")", "2 * (" + data["formula"] + ")",
                      rng.choice(FORMULAS)])
    formulas = {v: (data["formula"] if i == 0 else alt) for i, v in enumerate(values)}
    if rng.random() < 0.05:
        formulas.pop(values[-1])  # a value without a formula
    data["formula"] = {"by": attr, "formulas": formulas}
    data["attributes"] = list(data.get("attributes") or []) + [{"name": attr, "type": "string", "values": values}]
    for block in data["standards"].values():
        if not isinstance(block, dict):
            continue
        if rng.random() < 0.35:
            binding = {"fixed": values[0] if rng.random() < 0.95 else "bogus"}
        else:
            spelled = {v: (v if rng.random() < 0.9 else rng.choice([v.upper(), "none", ""])) for v in values}
            binding = {"name": attr, "values": spelled}
            if rng.random() < 0.6:  # (oneDNN has no defaults: attribute_defaults none)
                binding["default"] = next(iter(spelled.values())) if rng.random() < 0.95 else "zzz"
            else:
                binding["required"] = True
        if not isinstance(block.get("attributes"), dict):
            block["attributes"] = {}
        block["attributes"][attr] = binding
    if rng.random() < 0.9:
        data.pop("examples", None)  # they would lack the new attribute: get past lint
    _set(files, name, yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    return f"{name}: formula chosen by string attribute {attr} ({', '.join(values)})"


MUTATIONS = {
    "scalar": (m_scalar, 6), "number": (m_number, 5), "ranks": (m_ranks, 3), "formula": (m_formula, 4),
    "text": (m_text, 4), "template": (m_template, 2), "identifier": (m_identifier, 3), "line": (m_line, 4),
    "bytes": (m_bytes, 2), "special-file": (m_special_file, 1), "document": (m_document, 1),
    "cross-file": (m_cross_file, 1), "unknown-key": (m_unknown_key, 2), "default": (m_default, 3),
    "choice": (m_choice, 2),
}


def make_trial(seed: int, index: int) -> Trial:
    rng = random.Random(f"{seed}:{index}")
    op = rng.choice(OPS)
    files = {name: (SPECS / name).read_bytes() for name in ("_standards.yaml", f"{op}.yaml")}
    trial = Trial(seed, index, op, files)
    names = list(MUTATIONS)
    weights = [MUTATIONS[n][1] for n in names]
    for _ in range(rng.choice([1, 1, 1, 2, 2, 3])):
        kind = rng.choices(names, weights)[0]
        done = MUTATIONS[kind][0](rng, files, op)
        if done:
            trial.mutations.append(f"{kind}: {done}")
    return trial


def write_trial(trial: Trial, specs: Path) -> None:
    specs.mkdir(parents=True)
    for name, content in trial.files.items():
        path = specs / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        elif content[0] == "symlink":
            os.symlink(content[1], path)
        elif content[0] == "fifo":
            os.mkfifo(path)
        elif content[0] == "dir":
            path.mkdir()


# ----------------------------------------------------------------------------- running one trial (in a worker)

class TrialTimeout(BaseException):
    pass


def _snapshot(root: Path, skip: Path | None = None) -> dict:
    out = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        d = Path(dirpath)
        if skip is not None and (d == skip or skip in d.parents):
            dirnames[:] = []
            continue
        for n in dirnames + filenames:
            p = d / n
            rel = str(p.relative_to(root))
            if skip is not None and p == skip:
                continue
            if p.is_symlink() or not p.is_file():
                out[rel] = ("link", os.readlink(p)) if p.is_symlink() else ("other",)
            else:
                out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def _invoke(args: list[str]) -> tuple[str, int, str]:
    """("exit", code, output) or ("traceback"|"memory"|"hang", 1, text) for one CLI call, in-process."""
    from specgen.cli import main
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            main.main(args, prog_name="specgen", standalone_mode=False)
        return "exit", 0, out.getvalue() + err.getvalue()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        return "exit", code, out.getvalue() + err.getvalue()
    except TrialTimeout:
        return "hang", 1, f"{' '.join(args)}: no result within the time limit"
    except MemoryError:
        return "memory", 1, f"{' '.join(args)}: MemoryError\n{traceback.format_exc()[-2000:]}"
    except Exception as exc:  # noqa: BLE001 - that is the finding
        import click
        if isinstance(exc, click.exceptions.ClickException):
            return "exit", exc.exit_code, out.getvalue() + err.getvalue() + exc.format_message()
        return "traceback", 1, f"{' '.join(args)}:\n{traceback.format_exc()[-3000:]}"


def run_trial(trial: Trial, work: Path) -> dict:
    from specgen.generate.tree import README
    base = work / f"trial-{trial.seed}-{trial.index}"
    specs, out, cwd = base / "specs", base / "out", base / "cwd"
    write_trial(trial, specs)
    out.mkdir()
    (out / "README.md").write_text(README)  # an existing generated tree that a failure must leave alone
    (out / "previous.txt").write_text("the previous generation\n")
    cwd.mkdir()
    before_specs = _snapshot(specs)
    before_out = _snapshot(out)
    old_cwd = os.getcwd()
    os.chdir(cwd)
    result = {"kind": "ok", "detail": "", "stage": "lint"}
    try:
        kind, code, text = _invoke(["lint", str(specs)])
        if kind != "exit":
            result.update(kind=kind, detail=text)
        elif code != 0:
            result.update(kind="clean-error" if str(specs) in text else "unnamed-error", detail=text[-2000:])
        else:
            result["stage"] = "generate"
            kind, code, text = _invoke(["generate", "--specs", str(specs), "--out", str(out)])
            if kind != "exit":
                result.update(kind=kind, detail=text)
            elif code != 0:
                result.update(kind="clean-error" if str(specs) in text else "unnamed-error", detail=text[-2000:])
                if _snapshot(out) != before_out:
                    result.update(kind="tree-changed", detail="a failed generate changed the existing tree\n" + text)
            else:
                result["stage"] = "import"
                result.update(_check_generated(out, specs))
                if result["kind"] == "ok":
                    result["stage"] = "show"
                    result.update(_check_show(specs))
        if result["kind"] in GOOD:
            outside = []
            if _snapshot(specs) != before_specs:
                outside.append("the specs directory changed")
            if any(cwd.iterdir()):
                outside.append(f"files appeared in the working directory: {sorted(p.name for p in cwd.iterdir())}")
            extra = sorted(p.name for p in base.iterdir() if p.name not in ("specs", "out", "cwd"))
            if extra:
                outside.append(f"files appeared beside --out: {extra}")
            if outside:
                result.update(kind="outside-write", detail="; ".join(outside))
    finally:
        os.chdir(old_cwd)
        shutil.rmtree(base, ignore_errors=True)
    return result


def _check_generated(out: Path, specs: Path) -> dict:
    from specgen.generate.tree import import_generated
    for path in sorted((out / "reference").glob("*.py")):
        op = path.stem
        for kind in ("reference", "validate"):
            printed = io.StringIO()
            try:
                with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
                    module = import_generated(out, kind, op)
            except TrialTimeout:
                raise
            except BaseException as exc:  # noqa: BLE001
                return {"kind": "import-error", "detail": f"{kind}/{op}.py: {type(exc).__name__}: {exc}"}
            if printed.getvalue():
                return {"kind": "side-effect", "detail": f"{kind}/{op}.py printed {printed.getvalue()[:200]!r}"}
            if kind == "reference" and not callable(getattr(module, op, None)):
                return {"kind": "import-error", "detail": f"reference/{op}.py has no function {op}()"}
    return {}


def _check_show(specs: Path) -> dict:
    from specgen.render.show import render_operator
    from specgen.spec.loader import load_all
    try:
        for spec in load_all(specs).values():
            render_operator(spec)
            for key in spec.standards:
                render_operator(spec, key)
    except TrialTimeout:
        raise
    except MemoryError:
        return {"kind": "memory", "detail": traceback.format_exc()[-2000:]}
    except Exception:  # noqa: BLE001
        return {"kind": "traceback", "detail": "show:\n" + traceback.format_exc()[-3000:]}
    return {}


def worker(seed: int, indices: list[int], timeout: float, work: Path, results) -> None:
    """Run trials in this process (started with an address-space limit); one JSON line per trial."""
    def alarm(signum, frame):
        raise TrialTimeout()
    signal.signal(signal.SIGALRM, alarm)
    sys.dont_write_bytecode = True
    for index in indices:
        trial = make_trial(seed, index)
        print(json.dumps({"start": index}), file=results, flush=True)
        start = time.perf_counter()
        signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            result = run_trial(trial, work)
        except TrialTimeout:
            result = {"kind": "hang", "detail": f"no result within {timeout} s", "stage": "?"}
        except MemoryError:
            result = {"kind": "memory", "detail": "MemoryError in the fuzzer itself", "stage": "?"}
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        result.update(index=index, op=trial.op, mutations=trial.mutations,
                      seconds=round(time.perf_counter() - start, 3))
        print(json.dumps(result), file=results, flush=True)


def _worker_entry(argv: list[str]) -> None:
    import resource
    seed, timeout, work, limit = int(argv[0]), float(argv[1]), Path(argv[2]), int(argv[3])
    indices = [int(i) for i in argv[4].split(",") if i]
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    worker(seed, indices, timeout, work, sys.stdout)


# ----------------------------------------------------------------------------- the driver

def run(seed: int, indices: list[int], timeout: float = 60.0, memory: int = MEMORY_LIMIT,
        progress=None) -> list[dict]:
    """Run trials ``indices`` of ``seed`` in one worker process at a time (restarted after a crash);
    one result dict per trial."""
    results: dict[int, dict] = {}
    pending = list(indices)
    with tempfile.TemporaryDirectory(prefix="specgen-fuzz-") as tmp:
        while pending:
            cmd = [sys.executable, __file__, "--worker", str(seed), str(timeout), tmp, str(memory),
                   ",".join(map(str, pending))]
            started = None
            budget = timeout * len(pending) + 60
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp,
                                    env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
            try:
                stdout, stderr = proc.communicate(timeout=budget)
            except subprocess.TimeoutExpired:
                proc.kill()
                stdout, stderr = proc.communicate()
            for line in stdout.splitlines():
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if "start" in record:
                    started = record["start"]
                else:
                    results[record["index"]] = record
                    if progress:
                        progress(record)
            done = [i for i in pending if i in results]
            if started is not None and started not in results:  # the worker died inside this trial
                killed = proc.returncode in (-signal.SIGKILL, 137) or "MemoryError" in stderr
                trial = make_trial(seed, started)
                results[started] = {"index": started, "op": trial.op, "mutations": trial.mutations,
                                    "kind": "memory" if killed else "hang" if proc.returncode is None else "traceback",
                                    "detail": f"worker exited {proc.returncode}: {stderr[-2000:]}", "stage": "?"}
                done.append(started)
            elif not done:  # the worker failed before its first trial: report, do not loop
                raise RuntimeError(f"fuzz worker failed to start (exit {proc.returncode}):\n{stderr[-3000:]}")
            pending = [i for i in pending if i not in results]
    return [results[i] for i in indices]


def summarize(results: list[dict]) -> dict:
    kinds: dict[str, int] = {k: 0 for k in KINDS}
    for r in results:
        kinds[r["kind"]] = kinds.get(r["kind"], 0) + 1
    stages: dict[str, int] = {}
    for r in results:
        if r["kind"] == "ok":
            stages["generated and imported"] = stages.get("generated and imported", 0) + 1
        elif r["kind"] == "clean-error":
            key = f"refused at {r['stage']}"
            stages[key] = stages.get(key, 0) + 1
    return {"trials": len(results), "kinds": dict(sorted(kinds.items())), "stages": dict(sorted(stages.items())),
            "bad": sum(v for k, v in kinds.items() if k not in GOOD),
            "seconds": round(sum(r.get("seconds", 0) for r in results), 1)}


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--worker":
        _worker_entry(argv[1:])
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, action="append", help="seed (repeatable; default 1)")
    ap.add_argument("--trials", type=int, default=200)
    ap.add_argument("--start", type=int, default=0, help="first trial index")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per trial before it counts as a hang")
    ap.add_argument("--memory", type=int, default=MEMORY_LIMIT, help="address-space limit of a worker, bytes")
    ap.add_argument("--show-bad", action="store_true", help="print every bad trial with its mutations and output")
    ap.add_argument("--json", help="write every trial's result to this file")
    args = ap.parse_args(argv)
    from concurrent.futures import ThreadPoolExecutor
    everything = {}
    exit_code = 0
    for seed in args.seed or [1]:
        indices = list(range(args.start, args.start + args.trials))
        chunks = [indices[i::args.jobs] for i in range(args.jobs)]
        wall = time.perf_counter()
        with ThreadPoolExecutor(args.jobs) as pool:
            parts = list(pool.map(lambda c: run(seed, c, args.timeout, args.memory) if c else [], chunks))
        results = sorted((r for part in parts for r in part), key=lambda r: r["index"])
        summary = summarize(results)
        summary["wall_seconds"] = round(time.perf_counter() - wall, 1)
        print(f"seed {seed}: {json.dumps(summary)}")
        bad = [r for r in results if r["kind"] not in GOOD]
        if bad:
            exit_code = 1
        if args.show_bad:
            for r in bad:
                print(f"--- seed {seed} trial {r['index']} ({r['op']}): {r['kind']} at {r['stage']}")
                for m in r["mutations"]:
                    print(f"    {m}")
                print("    " + r["detail"].replace("\n", "\n    "))
        everything[seed] = results
    if args.json:
        Path(args.json).write_text(json.dumps(everything, indent=1))
    return exit_code


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main())
