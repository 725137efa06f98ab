"""`annals similar`, `annals vectors`, and the vector half of `annals index` and `annals search`.

Loaded with every command: nothing heavy at the top. chromadb and the model are imported only
by the code paths that embed or query vectors.
"""

from __future__ import annotations

import sqlite3
from typing import Any

import click

from ...indexer.vectors.owner import VECTORS_ENV, vectors_enabled
from ...store.queries import NotFound
from ...store.symbol import SymbolHit
from ..cli import Context, cli, emit, json_option, progress_bar, symbol_line

__all__ = ["VECTORS_ENV", "search_rows", "vectors_after_index", "vectors_line"]


def vectors_after_index(obj: Context, wait: bool) -> dict[str, Any]:
    """After full text is ready: start the background catch-up, or with `wait` see it through.

    Returns `{"vectors": state}` for the index report, or nothing when ANNALS_VECTORS=off.
    """
    if not vectors_enabled():
        return {}
    return {"vectors": _catch_up(obj, wait)}


def _catch_up(obj: Context, wait: bool) -> dict[str, Any]:
    from ...indexer.vectors.owner import after_index
    from ...indexer.vectors.progress import VectorsUnavailable

    with obj.store() as conn, progress_bar("embedding (log events)") as progress:
        try:
            return after_index(obj.repo, obj.db_path, conn, wait=wait, progress=progress)
        except VectorsUnavailable as exc:
            raise click.ClickException(str(exc)) from exc


def vectors_line(v: dict[str, Any]) -> str:
    """One line for `annals index` and `annals vectors`: caught up, pending, or why not."""
    if v["state"] == "unavailable":
        return f"vectors: unavailable ({v['error']}); full-text search works"
    if v["state"] == "after completion":
        return "vectors: embedded in the background once the index is complete"
    if v["state"] == "pending":
        return (
            f"vectors: {v['pending_events']} changes pending; embedding in the background "
            f"(pid {v['worker_pid']}, log in {v.get('log', '.annals/logs/vectors.log')}); "
            "`annals index --wait` blocks until done"
        )
    report = v.get("report") or {}
    detail = (
        f" ({report['embedded']} embedded, {report['cached']} from cache in {report['seconds']:.1f}s)" if report else ""
    )
    return f"vectors: caught up at log position {v['position']}{detail}"


def search_rows(
    obj: Context, conn: sqlite3.Connection, query: str, mode: str | None, kind: str | None, limit: int
) -> list[SymbolHit]:
    """`annals search`: hybrid once vectors exist, else full text; a note on stderr says which answered."""
    from ...indexer.vectors.progress import Location, VectorsUnavailable, read_progress

    if mode == "fts" or (mode is None and not read_progress(conn, Location.for_db(obj.db_path))["built"]):
        from ...store import queries

        return queries.search(conn, query, kind=kind, limit=limit)
    from ...indexer.vectors.owner import VectorOwner, vector_access
    from ...indexer.vectors.similarity import search

    with VectorOwner(obj.repo, obj.db_path) as owner:
        access = vector_access(conn, owner)
        try:
            answer = search(conn, query, mode=mode or "hybrid", kind=kind, limit=limit, access=access)
        except VectorsUnavailable as exc:
            raise click.ClickException(str(exc)) from exc
    if answer["note"]:
        click.echo(f"note: {answer['note']} (mode {answer['mode']})", err=True)
    _restart_catch_up_if_behind(obj, conn)
    return answer["results"]


def _restart_catch_up_if_behind(obj: Context, conn: sqlite3.Connection) -> None:
    """A store found stale, damaged or behind is rebuilt in the background, not by the one asking."""
    from ...indexer.vectors.owner import start_background
    from ...indexer.vectors.progress import Location, read_progress

    if vectors_enabled() and read_progress(conn, Location.for_db(obj.db_path))["pending_events"]:
        start_background(obj.repo, obj.db_path)


@cli.command()
@click.argument("symbol")
@click.option("--limit", default=10, show_default=True, type=click.IntRange(1, 200))
@json_option
@click.pass_obj
def similar(obj: Context, symbol: str, limit: int, as_json: bool) -> None:
    """Code like SYMBOL: semantic neighbours from the vectors, and near-duplicates by token shingles."""
    from ...indexer.vectors.owner import VectorOwner, vector_access
    from ...indexer.vectors.similarity import similar_code
    from ...store.queries import find_symbol

    with obj.store() as conn, VectorOwner(obj.repo, obj.db_path) as owner:
        try:
            target = find_symbol(conn, symbol)["id"]  # a wrong name fails before the vectors are opened
        except NotFound as exc:
            raise click.ClickException(str(exc)) from exc
        data = similar_code(conn, obj.repo, symbol=target, limit=limit, access=vector_access(conn, owner))

    def text(d: dict[str, Any]) -> None:
        if d["note"]:
            click.echo(f"note: {d['note']}", err=True)
        click.echo(f"semantically similar to {d['target']}:")
        for s in d["semantic"] or []:
            click.echo(f"  {s['score']:.3f}  {symbol_line(s)}")
        if not d["semantic"]:
            click.echo("  (none: vectors unavailable)" if d["note"] else "  (none)")
        click.echo("near-duplicates (token shingles):")
        for s in d["near_duplicates"]:
            click.echo(f"  {s['similarity']:.3f}  {symbol_line(s)}")
        if not d["near_duplicates"]:
            click.echo("  (none)")

    emit(data, as_json, text)


@cli.command()
@click.option("--wait", is_flag=True, help="Block until the vectors have caught up with the log.")
@json_option
@click.pass_obj
def vectors(obj: Context, wait: bool, as_json: bool) -> None:
    """How far the vectors have caught up with the log; with --wait, catch them up."""
    from ...indexer.vectors.progress import Location, read_progress

    if wait:
        data = _catch_up(obj, wait=True)
    else:
        with obj.store() as conn:
            data = read_progress(conn, Location.for_db(obj.db_path))
        data["state"] = "caught up" if data["built"] and not data["pending_events"] else "behind"

    def text(d: dict[str, Any]) -> None:
        if d["state"] == "behind":
            click.echo(
                f"vectors: {d['pending_events']} changes behind the log (store {d['store']}, "
                f"{'built' if d['built'] else 'not built'}; last update {d['updated_at'] or 'never'} "
                f"by {d['owner'] or 'nobody'}); `annals vectors --wait` catches up"
            )
        else:
            click.echo(vectors_line(d))

    emit(data, as_json, text)
