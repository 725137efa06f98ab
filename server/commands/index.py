"""`annals index` and `annals status`: bring the index up to date, and say how fresh it is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from ...store import queries
from ...store.kept import kinds_standing
from ..cli import Context, cli, emit, json_option, progress_bar, repo_dir
from .git import history_after_index
from .similarity import vectors_after_index, vectors_line

# The newest commits `annals index` records by default: what the context pack's history signals read
# (store/history_rank.py; on localize_bench they lift pack file Acc@5 .70 -> .74). Each costs ~25-40 ms of
# CPU (werkzeug: 5,501 commits in 170 s, typeorm 5,382 in 204 s), so 1,000 add ~30 s to a first index,
# in the background after completion (in the foreground with --wait), and nothing to the next ones
# (recorded commits are skipped). localize_bench --vectors pack file Acc@1/@5, MRR, symbol Acc@10 with the
# newest 300, 1,000, 2,000 and all: dev .603/.880 .715 .702, .612/.892 .723 .691, .616/.884 .724 .691,
# .629/.886 .730 .680; hold-outs (300 -> 1,000) httpx .627/.904 .746 .649 -> .614/.928 .740 .676, fastify
# .40/.73 .520 .610 -> .50/.72 .586 .662.
# All of them, however long they take: a budget of 60 s made what was recorded, and so the pack's answers,
# depend on how busy the machine was (click: 850 of 1,000 on a loaded machine; two first indexes of
# sqlalchemy disagreed on the nearest past commit of 86 of its 100 tasks). The guard stops only a history whose
# commits are each enormous; none of the benchmark's fifteen comes near it.
# Measured again on 2026-12-07 (in process, the dev lists, file Acc@1/@5, only the newest N of the recorded commits
# kept): 250 .601/.877, 500 .599/.878, 1,000 .615/.879. More history lifts the first file, not the first five.
RECENT_HISTORY = 1_000
HISTORY_GUARD_SECONDS = 900.0


@cli.command()
@click.argument("path", required=False)
@click.option("--no-vectors", is_flag=True, help="Do not compute embeddings for similarity search.")
@click.option(
    "--wait", is_flag=True, help="Block until the index is complete and the vectors have caught up (scripts, CI)."
)
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
    """Index the repository (or PATH) into the event log and bring every projection up to date.

    A first index (or many new files) returns once the files are search-ready and completes them
    in the background: imports, calls, contracts, tests, hashes; then the vectors. `--wait` indexes
    in one pass and stays until all of it is done.
    """
    from ...indexer.complete import OUTLINE_FROM
    from ...indexer.run import ensure_git_excludes_annals, index_tree
    from ...indexer.vectors.owner import vectors_enabled

    if path is not None:
        obj.repo = repo_dir(path)
    ensure_git_excludes_annals(obj.repo)
    full_history = history or since is not None
    recent_history = not full_history and not no_history and _in_git(obj.repo)
    # Waiting for all of it, one pass is sooner: outlining first costs a parse and a write more
    # (stdlib: complete in 11.5 s in one pass, 17.5 s outlined first). So is a whole history.
    foreground = wait or full_history
    with progress_bar("indexing") as progress, obj.store(must_exist=False) as conn:
        report = index_tree(
            obj.repo, conn, source="cli", progress=progress, outline_from=None if foreground else OUTLINE_FROM
        )
    data = report.as_json()
    vectors = not no_vectors and vectors_enabled()
    if foreground:
        data["complete"] = _complete_here(obj)
    else:  # a commit's tests come from complete facts: recent history waits for the completer too
        later = (RECENT_HISTORY, HISTORY_GUARD_SECONDS) if recent_history else None
        data["complete"] = _complete_in_background(obj, vectors, later)
    if data["complete"]["state"] == "complete":  # else the background worker keeps them once complete
        data["kept"] = _keep_answers(obj)
    if data["complete"]["state"] == "pending":
        if recent_history:
            data["history"] = {"state": "after completion", "limit": RECENT_HISTORY}
    elif full_history or recent_history:
        data["history"] = history_after_index(
            obj, since, None if full_history else RECENT_HISTORY, None if full_history else HISTORY_GUARD_SECONDS
        )
    if vectors and (wait or data["complete"]["state"] == "complete"):
        data.update(vectors_after_index(obj, wait))
    elif vectors:
        data["vectors"] = {"state": "after completion"}

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
        if d.get("history", {}).get("state") == "after completion":
            click.echo(f"history: the newest {d['history']['limit']} commits are recorded once the index is complete")
        elif "history" in d:
            h = d["history"]
            unreadable = len(h.get("unreadable", []))
            left = h["reachable"] - h["recorded"] - h["already"] - unreadable
            more = f"; {left} older ones not recorded: `annals index --history` records them" if left > 0 else ""
            if unreadable:
                more += f"; {unreadable} git could not read (missing objects: `git fsck`), not recorded"
            described = f" ({h['described']} given their message bodies)" if h.get("described") else ""
            click.echo(
                f"history: {h['recorded']} commits recorded, {h['already']} already known{described}, "
                f"{h['seconds']:.2f}s{more}"
            )
        click.echo(_complete_line(d["complete"]))
        if "kept" in d:
            click.echo(_kept_line(d["kept"]))
        if "vectors" in d:
            click.echo(vectors_line(d["vectors"]))

    emit(data, as_json, text)


def _tiers_line(t: dict[str, Any]) -> str:
    left = t["search_ready"] - t["complete"]
    completing = (
        ""
        if not left
        else f" ({left} being completed by pid {t['completing_pid']})"
        if t["completing_pid"]
        else f" ({left} waiting: `annals index --wait` completes them)"
    )
    v = t["vectors"]
    vectors = (
        "off"
        if not v["enabled"]
        else "not built"
        if not v["built"]
        else f"{v['pending_events']} changes behind"
        if v["pending_events"]
        else "caught up"
    )
    return f"search-ready {t['search_ready']} files, complete {t['complete']}{completing}; vectors {vectors}"


def _complete_here(obj: Context) -> dict[str, Any]:
    from ...indexer.complete import complete_all

    with progress_bar("completing") as progress, obj.store() as conn:
        done = complete_all(obj.repo, obj.db_path, conn, progress)
    return {"state": "complete", "completed": done.completed if done else 0, "seconds": done.seconds if done else 0.0}


def _keep_answers(obj: Context) -> dict[str, Any]:
    from ...indexer.keep import keep_answers

    with progress_bar("keeping answers") as progress, obj.store() as conn:
        return keep_answers(conn, obj.repo, obj.db_path, progress)


def _kept_line(k: dict[str, Any]) -> str:
    if k["state"] == "kept":
        return (
            f"kept: every symbol's callers, every module's tests and facts and every file's words, for fast answers"
            f" ({k['symbols']} symbols, {k['modules']} modules, {k['words']} files tokenized in {k['seconds']:.1f}s)"
        )
    if k["state"] == "standing":
        return "kept: callers, module tests and facts, file words, all still those of the index"
    return f"kept: nothing ({k['state']}); answers are worked out as they are asked"


def _complete_in_background(obj: Context, vectors: bool, history: tuple[int, float] | None) -> dict[str, Any]:
    from ...indexer.background import log_path, start_background
    from ...store.lookups import outlined_count

    with obj.store() as conn:
        pending = outlined_count(conn)
    if not pending:
        return {"state": "complete"}
    pid = start_background(obj.repo, obj.db_path, vectors=vectors, history=history)
    return {"state": "pending", "files": pending, "worker_pid": pid, "log": str(log_path(obj.db_path))}


def _complete_line(c: dict[str, Any]) -> str:
    if c["state"] == "complete":
        return "complete: imports, calls, contracts and tests indexed" + (
            f" ({c['completed']} files completed in {c['seconds']:.1f}s)" if c.get("completed") else ""
        )
    return (
        f"search-ready; {c['files']} files being completed in the background (imports, calls, contracts,"
        f" tests; pid {c['worker_pid']}, log in {c['log']}), then the vectors; `annals status` shows"
        " progress, `annals index --wait` blocks until done"
    )


def _kept_status_line(standing: dict[str, bool]) -> str:
    from ...indexer.keep import QUIET_SECONDS

    aside = [kind for kind, stands in standing.items() if not stands]
    if not aside:
        return "callers, module tests and facts: standing, read by every answer"
    return (
        f"{', '.join(aside)}: stood aside (a file changed since they were kept, or this version of annals did not"
        " keep them); answers are worked out as they are asked until `annals index` keeps them again (a watcher"
        f" does once the index has been still for {QUIET_SECONDS:.0f} s)"
    )


def _in_git(root: Path) -> bool:
    from ...indexer.git.gitcmd import repo_top

    return repo_top(root) is not None


@cli.command()
@json_option
@click.pass_obj
def status(obj: Context, as_json: bool) -> None:
    """How much is indexed and how fresh it is."""
    from ...indexer.complete import tier_progress
    from ...indexer.freshness import freshness

    with obj.store() as conn:
        data = queries.status(conn)
        data.update(freshness(obj.repo, conn))
        data["tiers"] = tier_progress(obj.db_path, conn)
        data["database"] = str(obj.db_path)
        data["skipped"] = queries.skipped_files(conn)
        data["kept"] = kinds_standing(conn)

    def text(d: dict[str, Any]) -> None:
        click.echo(f"database   {d['database']}")
        click.echo(f"files      {d['files_indexed']} indexed, {d['files_skipped']} skipped")
        click.echo(f"symbols    {d['symbols']}")
        click.echo(f"languages  {', '.join(f'{k} {v}' for k, v in d['languages'].items()) or 'none'}")
        click.echo(f"log        position {d['log_position']}, last event {d['last_event_at'] or 'never'}")
        click.echo(f"head       indexed {(d['indexed_head'] or '-')[:12]}, current {(d['head'] or '-')[:12]}")
        click.echo(f"tiers      {_tiers_line(d['tiers'])}")
        click.echo(f"kept       {_kept_status_line(d['kept'])}")
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
