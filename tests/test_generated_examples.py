"""The example in each generated validation module's docstring is a legal call: validate() gives []."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from specgen.generate.tree import import_generated
from specgen.spec.loader import load_all
from specgen.spec.operators import load_accumulating

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("op", sorted(load_all()) + sorted(load_accumulating())[::4])  # accumulating: a sample
def test_the_docstring_example_is_legal(op):
    module = import_generated(ROOT / "generated", "validate", op)
    match = re.search(r"^    (validate\(.*\))$", module.__doc__, re.M)
    assert match, module.__doc__
    assert eval(match.group(1), {"validate": module.validate}) == []  # noqa: S307 - generated text, not spec text
