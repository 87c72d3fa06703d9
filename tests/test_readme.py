"""The README's two set-up commands are exactly what .ci/run executes."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _readme_commands():
    text = (ROOT / "README.md").read_text()
    setup = text.split("## Set-up", 1)[1]
    return re.findall(r"```sh\n(.+?)\n```", setup, flags=re.S)[:2]


def test_readme_has_two_setup_commands():
    commands = _readme_commands()
    assert len(commands) == 2
    assert all("\n" not in c for c in commands), "each set-up command is one line"


def test_ci_runs_exactly_the_readme_commands():
    ci_lines = [ln for ln in (ROOT / ".ci" / "run").read_text().splitlines()
                if ln.strip() and not ln.startswith("#") and not ln.startswith("set ") and not ln.startswith("cd ")]
    assert ci_lines == _readme_commands()
