"""``specgen coverage [--op OP] [--corpus DIR] [--json]``: which case classes the corpus holds per
operator x standard x version x dtype, and which the spec allows but the corpus lacks (exit 1)."""
from __future__ import annotations

import json

import click

from specgen.commands.specs_or_exit import specs_option
from specgen.exitcodes import Exit


@click.command("coverage")
@specs_option()
@click.option("--op", multiple=True, help="Operator id(s); repeat or comma-separate (default: every operator).")
@click.option("--corpus", type=click.Path(file_okay=False), default=None, help="Corpus directory (default generated/vectors).")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def coverage(op, corpus, as_json):
    """Case classes per op x standard x version x dtype; exit 1 when an allowed class has no case."""
    from specgen.commands.run import _split
    from specgen.coverage import coverage as measure
    from specgen.coverage import gaps, render_text, to_json
    from specgen.errors import SpecError
    from specgen.runner.cases import CorpusError, load_cases
    from specgen.spec.loader import load_all
    from specgen.spec.provenance import specs_in_use_note
    from specgen.text import did_you_mean

    def fail(msg, code):
        click.echo(f"coverage: {msg}", err=True)
        raise SystemExit(int(code))

    from specgen import coverage_accumulating as acc
    from specgen.spec.operators import load_accumulating

    try:
        specs = load_all()
        accumulating = load_accumulating()
    except (SpecError, FileNotFoundError) as exc:
        fail(f"the specs do not load: {str(exc).splitlines()[0]}", Exit.USAGE)
    everything = {**specs, **accumulating}
    ops = _split(op)
    for name in ops:
        if name not in everything:
            fail(f"no operator {name!r}{did_you_mean(name, everything)} ({specs_in_use_note(everything)})", Exit.USAGE)
    try:
        cases = load_cases(corpus, everything)
    except CorpusError as exc:
        fail(str(exc), Exit.USAGE)
    # each engine's own classes: the element-wise table, and the accumulating designer's tags
    el_ops = [o for o in ops if o in specs]
    acc_ops = [o for o in ops if o in accumulating]
    report = [] if ops and not el_ops else measure(specs, [c for c in cases if c.op in specs], el_ops)
    if not ops or acc_ops:
        report += acc.coverage(accumulating, [c for c in cases if c.op in accumulating], acc_ops)
    if as_json:
        data = to_json(report)
        data["classes"] += acc.to_json_classes()
        click.echo(json.dumps(data, indent=1, sort_keys=True))
    else:
        for line in render_text(report):
            click.echo(line)
    raise SystemExit(int(Exit.FAILURES if gaps(report) else Exit.OK))
