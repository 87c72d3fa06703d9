"""``specgen show``: a spec rendered as a standard's own page shape (Markdown, templates/show/)."""
from specgen.render.show import UnknownName, render_operator

__all__ = ["UnknownName", "render_operator"]
