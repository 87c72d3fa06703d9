"""Fill the page templates of _standards.yaml (``version_label``, ``tensor_type``) safely.

``str.format`` on spec text reaches attribute and index access on Python objects
(``{version.__class__.__init__.__globals__}``). Here a template may hold only its documented
named fields, written ``{name}``, plus literal text with ``{{``/``}}`` for braces; no attribute
or index access, no positional fields, no conversion, no format spec. ``fill`` substitutes
strings itself and never calls ``format``.
"""
from __future__ import annotations

import string


class TemplateError(ValueError):
    pass


def _parts(template: str, allowed) -> list[tuple[str, str | None]]:
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise TemplateError(f"not a valid template: {exc}; write {{{{ and }}}} for literal braces") from None
    out = []
    for literal, field, spec, conversion in parsed:
        if field is not None:
            if field not in allowed:
                fields = ", ".join("{" + a + "}" for a in allowed)
                what = ("an empty field {}" if field == "" else f"{{{field}}}: a positional field" if field.isdigit()
                        else f"{{{field}}}: attribute or index access" if any(c in field for c in ".[")
                        else f"an unknown field {{{field}}}")
                raise TemplateError(f"{what} is not allowed; the only field here is {fields}")
            if conversion or spec:
                raise TemplateError(f"{{{field}{'!' + conversion if conversion else ''}{':' + spec if spec else ''}}}: "
                                    f"conversions and format specs are not allowed; write {{{field}}}")
        out.append((literal, field))
    return out


def template_problem(template: str, allowed) -> str | None:
    try:
        _parts(template, allowed)
    except TemplateError as exc:
        return str(exc)
    return None


def fill(template: str, **values: str) -> str:
    """``template`` with each allowed ``{name}`` replaced by ``str(values[name])``."""
    return "".join(literal + ("" if field is None else str(values[field]))
                   for literal, field in _parts(template, tuple(values)))
