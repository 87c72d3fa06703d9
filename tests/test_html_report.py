"""The self-contained HTML report (issue 13): no external assets, every matrix cell links to its
cases, and a real headless browser (Chromium from the system packages) renders it."""
from __future__ import annotations

import shutil
import subprocess
import tempfile
from html.parser import HTMLParser
from pathlib import Path

import pytest

from fake_adapters.cases import standard_set
from specgen.adapters.registry import load_object
from specgen.reports import html as html_report
from specgen.runner.core import Runner
from specgen.spec.loader import load_all


@pytest.fixture(scope="module")
def page():
    loaded = load_object("wrong-threshold", "fake_adapters:WrongAtThreshold")
    run = Runner(loaded, load_all()).run(standard_set())
    return html_report.render(run, created="2026-01-01 00:00 UTC")


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.hrefs, self.external, self.stack = set(), [], [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "a" and a.get("href"):
            self.hrefs.append(a["href"])
        for key in ("src", "href"):
            if a.get(key) and not a[key].startswith("#"):
                self.external.append(a[key])
        if tag in ("link", "script", "img", "iframe"):
            self.external.append(tag)


def test_the_report_is_self_contained_and_its_links_resolve(page):
    p = _Links()
    p.feed(page)
    assert p.external == []  # no stylesheet, script, image or link outside the file
    assert "http://" not in page and "https://" not in page and "@import" not in page
    assert p.hrefs and all(h[1:] in p.ids for h in p.hrefs)  # every matrix cell drills down to its cases
    assert "Op × standard version × dtype" in page and "Behaviour where a spec may leave a choice" in page
    assert "specgen run --adapter wrong-threshold --case shrink/onnx-9/float32/rank1/threshold" in page
    assert "1 case: shrink float32, out-of-bound (value), threshold cases" in page


@pytest.mark.skipif(not (shutil.which("chromium") or shutil.which("chromium-browser")),
                    reason="Chromium not installed (apt-get install chromium)")
def test_chromium_renders_the_report(page, tmp_path):
    f = tmp_path / "report.html"
    f.write_text(page, encoding="utf-8")
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", f"--user-data-dir={tempfile.mkdtemp()}"]
    dom = subprocess.run([exe, *flags, "--dump-dom", f.as_uri()], capture_output=True, text=True, timeout=60).stdout
    assert '<table class="matrix">' in dom and "shrink/onnx-9/float32/rank1/threshold" in dom
    shot = tmp_path / "shot.png"
    subprocess.run([exe, *flags, "--window-size=1200,900", f"--screenshot={shot}", f.as_uri()], capture_output=True,
                   timeout=60)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000


def test_the_docs_screenshot_exists():
    png = Path(__file__).resolve().parents[1] / "docs" / "html-report.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
