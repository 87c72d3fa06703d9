"""``specgen cases [filters]``: the case ids ``specgen run`` would select, one per line."""
from __future__ import annotations

import click

from specgen.commands.specs_or_exit import specs_option
from specgen.exitcodes import Exit


@click.command("cases")
@specs_option()
@click.option("--op", multiple=True, help="Operator id(s); repeat or comma-separate.")
@click.option("--standard", multiple=True, help="Standard key(s).")
@click.option("--version", "versions", multiple=True, help="Version(s) (* wildcard allowed).")
@click.option("--dtype", multiple=True, help="Tensor dtype(s).")
@click.option("--case", "case_globs", multiple=True, help="Case id(s) or pattern(s) (* is the only wildcard).")
@click.option("--kind", type=click.Choice(["positive", "negative"]), multiple=True, help="Only legal or must-reject cases.")
@click.option("--corpus", type=click.Path(file_okay=False), default=None, help="Corpus directory (default generated/vectors).")
@click.option("--shard", default=None, metavar="K/N", help="Only the K-th of N shards (as `run --shard`).")
@click.option("--count", is_flag=True, help="Print only the number of cases.")
def cases(op, standard, versions, dtype, case_globs, kind, corpus, shard, count):
    """List the case ids `specgen run` would select with the same filters (exit 4 when none)."""
    from specgen.commands.run import _split
    from specgen.errors import SpecError
    from specgen.runner.cases import CorpusError, Filters, filter_problem, load_cases, parse_shard, select
    from specgen.runner.cases import shard as take_shard
    from specgen.indexing.space import IndexSpaceError
    from specgen.spec.operators import load_operators

    def fail(msg, code):
        click.echo(f"cases: {msg}", err=True)
        raise SystemExit(int(code))

    try:
        specs = load_operators()
    except (SpecError, FileNotFoundError, IndexSpaceError) as exc:
        fail(f"the specs do not load: {str(exc).splitlines()[0]}", Exit.USAGE)
    filters = Filters(ops=_split(op), standards=_split(standard), versions=_split(versions), dtypes=_split(dtype),
                      cases=tuple(case_globs), kinds=tuple(kind))
    problem = filter_problem(filters, specs)
    if problem:
        fail(problem, Exit.USAGE)
    try:
        every = load_cases(corpus, specs)
    except CorpusError as exc:
        fail(str(exc), Exit.USAGE)
    problem = filter_problem(filters, specs, every)
    if problem:
        fail(problem, Exit.USAGE)
    selected = select(every, filters)
    if shard:
        try:
            selected = take_shard(selected, *parse_shard(shard))
        except ValueError as exc:
            fail(str(exc), Exit.USAGE)
    if count:
        click.echo(str(len(selected)))
    else:
        for c in selected:
            click.echo(c.id)
    if not selected:
        fail(f"no case matches ({filters.describe()})", Exit.NOTHING)
