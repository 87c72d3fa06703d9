"""The README's two set-up commands and its optional WebNN browser install are exactly what .ci/run executes."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _readme_commands():
    text = (ROOT / "README.md").read_text()
    setup = text.split("## Set-up", 1)[1]
    return re.findall(r"```sh\n(.+?)\n```", setup, flags=re.S)[:2]


def _optional_browser_command():
    text = (ROOT / "README.md").read_text()
    optional = text.split("### Optional: WebNN in a real browser", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```sh\n(.+?)\n```", optional, flags=re.S)
    assert len(commands) == 1 and "\n" not in commands[0], "the browser install is one command"
    return commands[0]


def test_readme_has_two_setup_commands():
    commands = _readme_commands()
    assert len(commands) == 2
    assert all("\n" not in c for c in commands), "each set-up command is one line"


def test_ci_runs_exactly_the_readme_commands():
    ci_lines = [ln for ln in (ROOT / ".ci" / "run").read_text().splitlines()
                if ln.strip() and not ln.startswith("#") and not ln.startswith("set ") and not ln.startswith("cd ")]
    setup, tests = _readme_commands()
    assert ci_lines == [setup, _optional_browser_command(), tests, GATES_LOOP]


GATES_LOOP = 'for gate in .ci/gates/*.sh; do "$gate"; done'


def test_ci_gates_are_the_ones_the_readme_lists():
    """After the README's commands .ci/run runs every .ci/gates/*.sh; the README's "More backends"
    names each of them, and each is an executable bash script that stops at the first error."""
    import os

    more = (ROOT / "README.md").read_text().split("## More backends", 1)[1].split("\n## ", 1)[0]
    assert GATES_LOOP in more
    for gate in sorted((ROOT / ".ci" / "gates").glob("*.sh")):
        text = gate.read_text()
        assert os.access(gate, os.X_OK) and text.startswith("#!/usr/bin/env bash"), gate.name
        assert "set -euo pipefail" in text and f"baselines/{gate.stem}.yaml" in text, gate.name
        assert f".ci/gates/{gate.name}" in more, f"README's More backends does not name {gate.name}"


def test_the_setup_installs_the_pinned_versions_the_baselines_were_written_with():
    """A fresh machine reproduces the gates: the set-up installs constraints/backends.txt, which pins
    the libraries every committed baseline records in written_with."""
    import yaml

    setup, _ = _readme_commands()
    assert "-c constraints/backends.txt" in setup
    pins = dict(line.split("==", 1) for line in (ROOT / "constraints" / "backends.txt").read_text().splitlines()
                if "==" in line and not line.startswith("#"))
    for path in sorted((ROOT / "baselines").glob("*.yaml")):
        written = yaml.safe_load(path.read_text()).get("written_with") or {}
        for package, version in written.items():
            if package != "backend":
                assert pins.get(package) == version, f"{path.name}: written with {package} {version}, pinned {pins.get(package)}"
