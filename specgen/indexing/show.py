"""``specgen show`` of an accumulating operator: its formula and readings, tensors and attributes,
and per standard the operator name, versions (dtypes, attributes, those taken as input tensors),
the empty-reduction rule, the accumulation types with their sources, and a builder API's call."""
from __future__ import annotations


def _row(*cells) -> str:
    return "| " + " | ".join(" ".join(str(c).split()).replace("|", "\\|") for c in cells) + " |"


def render_standard(spec, std, depth: int = 1) -> list[str]:
    h = "#" * (depth + 1)
    out = [f"{h} {std.key}: {std.operator}", ""]
    out += [_row("version", "dtypes", "attributes", "as input tensors", "max rank"), _row("---", "---", "---", "---", "---")]
    for v in std.versions:
        out.append(_row(v.version, ", ".join(v.dtypes()), ", ".join(v.attributes) or "-", ", ".join(v.as_inputs) or "-",
                        v.max_rank if v.max_rank is not None else "-"))
    out += ["", f"Reduction over an empty set: {std.empty or 'not stated'}."]
    if std.defaults:
        out.append("Defaults of this standard: " + ", ".join(f"{k} = {v}" for k, v in std.defaults.items()) + ".")
    if std.accumulation:
        out += ["", _row("dtype", "accumulation allowed", "reported (unspecified)"), _row("---", "---", "---")]
        out += [_row(d, ", ".join(p.allowed), ", ".join(p.reported) or "-") for d, p in std.accumulation.items()]
    if std.call:
        options = ", ".join(f"{k}: {v}" for k, v in std.call["options"].items())
        out += ["", f"Call: `{std.operator}({', '.join(std.call['args'])}{', {' + options + '}' if options else ''})`"]
    return out + [""]


def render(spec, standard: str | None = None) -> str:
    if standard is not None:
        from specgen.render.show import UnknownName

        if standard not in spec.standards:
            raise UnknownName(f"{spec.id} has no standard {standard!r}; it has: {', '.join(spec.standards)}")
        return "\n".join(render_standard(spec, spec.standards[standard], depth=0)).rstrip() + "\n"
    texts = spec.texts or {}
    out = [f"# {spec.name} (`{spec.id}`)", "", spec.summary, "", f"Formula: `{texts.get('text', '')}`"]
    out += [f"Reading {name}: `{text}`" for name, text in texts.items() if name != "text"]
    out += ["", f"Inputs: {', '.join(spec.inputs)}. Outputs: {', '.join(spec.outputs)}.", ""]
    if spec.attributes:
        out += [_row("attribute", "type", "default"), _row("---", "---", "---")]
        out += [_row(a.name, a.type, "-" if a.default is None else a.default) for a in spec.attributes.values()]
        out.append("")
    for std in spec.standards.values():
        out += render_standard(spec, std)
    return "\n".join(out).rstrip() + "\n"
