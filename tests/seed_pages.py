"""Parsers for the tables of the seed documents (../shared/seeds/) and of `specgen show` output.

Used by tests/test_show.py, and to (re)write tests/fixtures/seed_tables.yaml:
    python tests/seed_pages.py > tests/fixtures/seed_tables.yaml   (then keep the hand-written parts)
The same parsers read both sides, so the round trip compares like with like.
"""
from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SEEDS = REPO.parent / "shared" / "seeds"

# Which seed document holds which operator's page (../shared/seeds/README.md).
DIRECTML_SEEDS = {"hard_sigmoid": "000_9472a8d145e8eeab.txt", "softsign": "002_9730b84799327606.txt",
                  "shrink": "003_e9f1c70498edb4bb.txt"}
ONNX_SEEDS = {"hard_sigmoid": "001_fdf8b85993e40a1b.txt"}
ONEDNN_SEEDS = {"hard_sigmoid": "004_7b5d013b351ebae6.txt"}

_LEVEL = re.compile(r"^#+ (DML_FEATURE_LEVEL_\w+ and above)\s*$")
_ONNX_VERSION = re.compile(r"^(?:#+ )?(\w+) - (\d+)\s*$")


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def directml_tables(text: str) -> list[dict]:
    """[{heading, header, rows}] of every "Tensor support" table, in page order."""
    tables: list[dict] = []
    current = None
    for line in text.splitlines():
        m = _LEVEL.match(line)
        if m:
            current = {"heading": m.group(1), "header": None, "rows": []}
            tables.append(current)
            continue
        if current is None:
            continue
        if line.startswith("|"):
            cells = _cells(line)
            if current["header"] is None:
                current["header"] = cells
            elif not all(set(c) <= {"-", ":"} for c in cells):
                current["rows"].append(cells)
        elif line.startswith("#"):
            current = None
    return tables


def directml_sentences(text: str) -> dict:
    """The one-line facts a DirectML page states outside its tables."""
    out: dict = {"typical_defaults": {}}
    member = None
    for line in text.splitlines():
        if line.startswith("This operator was introduced in"):
            out["availability"] = line.strip()
        elif line.startswith("This operator supports in-place execution"):
            out["in_place"] = line.strip()
        elif line.startswith("*") and "must have the same" in line:
            out["constraint"] = line.strip()
        m = re.match(r"^###\s+(?:-field\s+)?`?(\w+)`?\s*$", line)
        if m:
            member = m.group(1)
        d = re.search(r"A typical default for this value is ([-0-9.]+)\.", line)
        if d and member:
            out["typical_defaults"][member] = d.group(1)
    return out


def onnx_versions(text: str) -> dict:
    """{version: {types: {param: [tensor(...)]}, defaults: {attr: text}, attributes: [names]}}."""
    out: dict = {}
    version = None
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = _ONNX_VERSION.match(line)
        if m and (line.startswith("#") or (i + 1 < len(lines) and set(lines[i + 1].strip()) == {"="})):
            version = m.group(2)
            out[version] = {"types": {}, "defaults": {}, "attributes": []}
            continue
        if version is None:
            continue
        a = re.match(r"^\* \*\*(\w+)\*\*(?: \(\w+\))?:\s*$", line)
        if a and not re.match(r"^\* \*\*\w+\*\* in \(", line):
            section = _section_above(lines, i)
            if section == "**Attributes**":
                out[version]["attributes"].append(a.group(1))
                d = re.search(r"Default value is ``([^`]+)``", lines[i + 1])
                if d:
                    out[version]["defaults"][a.group(1)] = d.group(1)
        t = re.match(r"^\* \*\*(\w+)\*\* in \($", line)
        if t:
            types = []
            for follow in lines[i + 1:]:
                if follow.strip().startswith("):"):
                    break
                types.append(follow.strip().rstrip(","))
            out[version]["types"][t.group(1)] = types
    return out


def _section_above(lines: list[str], index: int) -> str | None:
    for line in reversed(lines[:index]):
        if line.startswith("**") and line.rstrip().endswith("**"):
            return line.strip()
    return None


def onednn_data_types(text: str) -> dict:
    """{header: [...], rows: [[...]]} of the "Supported data types" table (RST simple table or Markdown)."""
    body = text.split("Supported data types", 1)[1]
    lines = [ln for ln in body.splitlines() if ln.strip()]
    if any(ln.startswith("|") for ln in lines):
        cells = [_cells(ln) for ln in lines if ln.startswith("|")]
        rows = [c for c in cells[1:] if not all(set(x) <= {"-"} for x in c)]
        return {"header": cells[0], "rows": rows}
    rules = [i for i, ln in enumerate(lines) if set(ln.strip()) <= {"=", " "}]
    header = lines[rules[0] + 1].split()
    rows = [ln.split() for ln in lines[rules[1] + 1:rules[2]]]
    return {"header": header, "rows": rows}


def onednn_attributes(text: str) -> dict:
    """{attribute: {type, required}} from the "Operation attributes" table (RST or Markdown)."""
    out = {}
    for line in text.splitlines():
        rst = re.match(r"^:ref:`(\w+) <[^>]+>`\s+.*?\s(f32|s64|bool|string)\s+.*\s(Required|Optional)\s*$", line)
        if rst:
            out[rst.group(1)] = {"type": rst.group(2), "required": rst.group(3)}
        md = re.match(r"^\| `(\w+)` \|.*\| (f32|s64|bool|string) \|.*\| (Required|Optional)[^|]* \|$", line)
        if md:
            out[md.group(1)] = {"type": md.group(2), "required": md.group(3)}
    return out


def parse_seeds(seed_dir: Path = SEEDS) -> dict:
    """Everything the round trip compares, read from the seed documents."""
    out: dict = {"directml": {}, "onnx": {}, "onednn": {}}
    for op, name in DIRECTML_SEEDS.items():
        text = (seed_dir / name).read_text()
        out["directml"][op] = {"seed": name, "tables": directml_tables(text), **directml_sentences(text)}
    for op, name in ONNX_SEEDS.items():
        out["onnx"][op] = {"seed": name, "versions": onnx_versions((seed_dir / name).read_text())}
    for op, name in ONEDNN_SEEDS.items():
        text = (seed_dir / name).read_text()
        out["onednn"][op] = {"seed": name, "data_types": onednn_data_types(text), "attributes": onednn_attributes(text)}
    return out


if __name__ == "__main__":  # pragma: no cover
    import yaml

    print(yaml.safe_dump(parse_seeds(), sort_keys=False, width=120, default_flow_style=None), end="")
