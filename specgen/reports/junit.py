"""JUnit XML for CI: one testsuite per op x standard-version x dtype, one testcase per case."""
from __future__ import annotations

import xml.etree.ElementTree as ET

from specgen.reports.common import failure_lines
from specgen.runner.verdicts import ERROR, FAIL, UNSUPPORTED, XFAIL, XPASS


def render(run) -> str:
    root = ET.Element("testsuites", name=f"specgen {run.adapter}")
    suites: dict[tuple, ET.Element] = {}
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    per: dict[tuple, dict[str, int]] = {}
    for r in run.results:
        key = r.group
        if key not in suites:
            suites[key] = ET.SubElement(root, "testsuite", name=f"{run.adapter}.{r.op}.{r.standard}-{r.version}.{r.dtype}")
            per[key] = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        tc = ET.SubElement(suites[key], "testcase", classname=f"{run.adapter}.{r.op}.{r.standard}-{r.version}.{r.dtype}",
                           name=r.case_id, time=f"{r.seconds:.6f}")
        per[key]["tests"] += 1
        text = "\n".join(failure_lines(r))
        if r.verdict == FAIL:
            ET.SubElement(tc, "failure", message=r.reason[:500], type=str(r.cause or "fail")).text = text
            per[key]["failures"] += 1
        elif r.verdict == ERROR:
            ET.SubElement(tc, "error", message=r.reason[:500], type=str(r.cause or "error")).text = text
            per[key]["errors"] += 1
        elif r.verdict == UNSUPPORTED:
            ET.SubElement(tc, "skipped", message=f"unsupported: {r.reason}"[:500])
            per[key]["skipped"] += 1
        elif r.verdict == XFAIL:
            ET.SubElement(tc, "skipped", message=f"xfail (baseline: {r.baseline}): {r.reason}"[:500], type="xfail")
            per[key]["skipped"] += 1
        elif r.verdict == XPASS:
            if run.strict:
                ET.SubElement(tc, "failure", message=f"xpass (strict): known failure now passes; baseline: {r.baseline}"[:500],
                              type="xpass")
                per[key]["failures"] += 1
            else:
                ET.SubElement(tc, "system-out").text = f"xpass: known failure now passes (baseline: {r.baseline})"
    for key, el in suites.items():
        for k, v in per[key].items():
            el.set(k, str(v))
            totals[k] += v
    for k, v in totals.items():
        root.set(k, str(v))
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
