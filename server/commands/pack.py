"""`annals pack TASK`: get_context_pack on the command line, the same ranking and the same answer.

Loaded with every command: the pack's modules are imported inside it. They need no MCP SDK (its import alone
took 0.9 s of a 5 s pack on typeorm).
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

import click

from ..cli import Context, cli, emit, json_option

if TYPE_CHECKING:
    from ...store.ranking import Nearest


@cli.command()
@click.argument("task")
@click.option("--budget", default=8_000, show_default=True, metavar="N", help="The most tokens the pack may take.")
@click.option(
    "--focus",
    multiple=True,
    metavar="PATH|SYMBOL",
    help="A path or symbol id known to be involved: it ranks first (repeatable).",
)
@json_option
@click.pass_obj
def pack(obj: Context, task: str, budget: int, focus: tuple[str, ...], as_json: bool) -> None:
    """The starting context for TASK: ranked modules, likely edits with their bodies, callers and tests."""
    from ...indexer.freshness import freshness
    from ..contextpack import MAX_BUDGET, MIN_BUDGET, build_pack

    if not MIN_BUDGET <= budget <= MAX_BUDGET:
        raise click.ClickException(f"--budget {budget} is out of range: send {MIN_BUDGET} to {MAX_BUDGET} tokens")
    if len(task.strip()) < 3:
        raise click.ClickException("TASK is empty: describe the task in words, naming files or identifiers you know")
    with obj.store() as conn:
        nearest, note = _nearest(obj, conn, task)
        data, markdown = build_pack(obj.repo, conn, task, budget, list(focus), nearest, source="cli")
        data["vectors"] = note
        data["freshness"] = {**freshness(obj.repo, conn), "completed_on_demand": data.pop("completed_on_demand")}
    if note and not as_json:
        click.echo(f"note: {note}", err=True)
    emit(data, as_json, lambda _: click.echo(markdown))


def _nearest(obj: Context, conn: sqlite3.Connection, task: str) -> tuple[Nearest, str | None]:
    """What the vectors find nearest the task, as the server's pack has it, and why nothing; the vector
    store (and chromadb) is opened only when vectors are on and built."""
    from ...indexer.vectors.owner import VectorOwner, vector_access, vectors_enabled
    from ...indexer.vectors.similarity import nearest_to_task
    from ...store.ranking import NOTHING_NEAR

    if not vectors_enabled():
        return NOTHING_NEAR, "vectors are off (ANNALS_VECTORS=off); answered from full text"
    with VectorOwner(obj.repo, obj.db_path) as owner:
        return nearest_to_task(vector_access(conn, owner), task)
