"""`annals index` and `annals status`: bring the index up to date, and say how fresh it is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from ...store import queries
from ..cli import Context, cli, emit, json_option, progress_bar, repo_dir
from .git import history_after_index
from .similarity import vectors_after_index, vectors_line

# The newest commits `annals index` records by default: what the context pack's history signal reads
# (store/history_rank.py; on localize_bench it lifts pack file Acc@5 .70 -> .74). Each costs ~30 ms of
# CPU (werkzeug: 5,501 commits in 165 s), so 300 add ~9 s to a first index, never much more than
# RECENT_HISTORY_SECONDS, and nothing to the next ones (recorded commits are skipped).
RECENT_HISTORY = 300
RECENT_HISTORY_SECONDS = 20.0


@cli.command()
@click.argument("path", required=False)
@click.option("--no-vectors", is_flag=True, help="Do not compute embeddings for similarity search.")
@click.option("--wait", is_flag=True, help="Block until the vectors have caught up (scripts, CI).")
@click.option("--history", is_flag=True, help=f"Record every past commit, not only the newest {RECENT_HISTORY}.")
@click.option("--no-history", is_flag=True, help="Record no past commits (the pack then ranks without them).")
@click.option("--since", default=None, metavar="REV", help="With --history: only commits after REV.")
@json_option
@click.pass_obj
def index(
    obj: Context,
    path: str | None,
    no_vectors: bool,
    wait: bool,
    history: bool,
    no_history: bool,
    since: str | None,
    as_json: bool,
) -> None:
    """Index the repository (or PATH) into the event log and bring every projection up to date."""
    from ...indexer.run import ensure_git_excludes_annals, index_tree

    if path is not None:
        obj.repo = repo_dir(path)
    ensure_git_excludes_annals(obj.repo)
    with progress_bar("indexing") as progress, obj.store(must_exist=False) as conn:
        report = index_tree(obj.repo, conn, source="cli", progress=progress)
    data = report.as_json()
    if history or since is not None or (not no_history and _in_git(obj.repo)):
        full = history or since is not None
        data["history"] = history_after_index(
            obj, since, None if full else RECENT_HISTORY, None if full else RECENT_HISTORY_SECONDS
        )
    if not no_vectors:
        data.update(vectors_after_index(obj, wait))

    def text(d: dict[str, Any]) -> None:
        click.echo(
            f"{d['files']} files, {d['indexed']} indexed, {d['unchanged']} unchanged, "
            f"{d['skipped']} skipped, {d['removed']} removed; {d['symbols']} symbols, "
            f"{d['events']} events in {d['seconds']:.2f}s"
        )
        if d.get("reextracted"):
            click.echo(
                f"  {d['reextracted']} unchanged files extracted again: this version of annals reads "
                "code differently from the one that indexed them"
            )
        for skip in d["skips"][:20]:
            detail = f" ({skip['detail']})" if skip["detail"] else ""
            click.echo(f"  skipped {skip['path']}: {skip['reason']}{detail}", err=True)
        if len(d["skips"]) > 20:
            click.echo(f"  ... and {len(d['skips']) - 20} more skipped (`annals status --json` lists them)", err=True)
        if "history" in d:
            h = d["history"]
            left = h["reachable"] - h["recorded"] - h["already"]
            more = f"; {left} older ones not recorded: `annals index --history` records them" if left > 0 else ""
            click.echo(
                f"history: {h['recorded']} commits recorded, {h['already']} already known, {h['seconds']:.2f}s{more}"
            )
        if "vectors" in d:
            click.echo(vectors_line(d["vectors"]))

    emit(data, as_json, text)


def _in_git(root: Path) -> bool:
    from ...indexer.git.gitcmd import repo_top

    return repo_top(root) is not None


@cli.command()
@json_option
@click.pass_obj
def status(obj: Context, as_json: bool) -> None:
    """How much is indexed and how fresh it is."""
    from ...indexer.freshness import freshness

    with obj.store() as conn:
        data = queries.status(conn)
        data.update(freshness(obj.repo, conn))
        data["database"] = str(obj.db_path)
        data["skipped"] = queries.skipped_files(conn)

    def text(d: dict[str, Any]) -> None:
        click.echo(f"database   {d['database']}")
        click.echo(f"files      {d['files_indexed']} indexed, {d['files_skipped']} skipped")
        click.echo(f"symbols    {d['symbols']}")
        click.echo(f"languages  {', '.join(f'{k} {v}' for k, v in d['languages'].items()) or 'none'}")
        click.echo(f"log        position {d['log_position']}, last event {d['last_event_at'] or 'never'}")
        click.echo(f"head       indexed {(d['indexed_head'] or '-')[:12]}, current {(d['head'] or '-')[:12]}")
        w = d.get("watcher")
        click.echo(
            f"pending    {d['pending_files']} files differ from the index"
            + (" (run `annals index`)" if d["pending_files"] and not w else "")
        )
        click.echo(
            "watcher    "
            + (
                "none (`annals watch --daemon` keeps the index fresh)"
                if not w
                else f"pid {w['pid']}, {w.get('kind') or 'starting'}, "
                f"{'ready' if w.get('ready') else 'reconciling'}, {w.get('mode') or '-'}"
            )
        )

    emit(data, as_json, text)
