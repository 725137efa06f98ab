"""`annals state`, `diff-symbols`, `show`, `commit`, `recover`, `safepoints`, `resolve`, `bisect`.

Loaded with every command: the git modules are imported inside the commands that use them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from ...store.queries import NotFound
from ..cli import Context, cli, echo_lines, emit, json_option


@contextmanager
def _git_errors() -> Iterator[None]:
    """Every refusal of the git layer becomes a one-line error naming the thing and the fix."""
    from ...hooks.gitops import OperationRefused
    from ...hooks.safepoints import RecoverError
    from ...indexer.git.gitcmd import BadRef, GitError
    from ...indexer.git.staged import UnmergedIndex

    try:
        yield
    except (BadRef, GitError, OperationRefused, RecoverError, UnmergedIndex, NotFound) as exc:
        raise click.ClickException(str(exc)) from exc


def git_root(obj: Context) -> Path:
    """The work tree's top directory; a clear error outside a git repository."""
    from ...indexer.git.gitcmd import repo_top

    top = repo_top(obj.repo)
    if top is None:
        raise click.ClickException(
            f"{obj.repo} is not in a git repository: run `git init` there, or pass -C with the repository's root"
        )
    return top.resolve()


@contextmanager
def _session(obj: Context) -> Iterator[tuple[Path, sqlite3.Connection]]:
    from ...indexer.run import ensure_git_excludes_annals

    root = git_root(obj)
    ensure_git_excludes_annals(root)
    with obj.store(must_exist=False) as conn, _git_errors():
        yield root, conn


def history_after_index(
    obj: Context, since: str | None, limit: int | None = None, seconds: float | None = None
) -> dict[str, Any]:
    """The history half of `annals index`: record past commits (or the newest `limit`, for about `seconds`)."""
    from ...indexer.git.githistory import backfill

    with _session(obj) as (root, conn):
        return backfill(root, conn, since=since, source="cli", limit=limit, seconds=seconds).as_json()


def _symbol_change_line(e: dict[str, Any]) -> str:
    what = f" ({e['changed']})" if e.get("changed") else ""
    return f"  {e['status']:<9} {e['kind']:<9} {e['id']}{what}"


@cli.command()
@json_option
@click.pass_obj
def state(obj: Context, as_json: bool) -> None:
    """Branch, HEAD, uncommitted counts, and indexed symbols stale against the work tree or HEAD."""
    from ...indexer.git.gitstate import git_state

    with _session(obj) as (root, conn):
        data = git_state(root, conn)

    def text(d: dict[str, Any]) -> None:
        counts = ", ".join(f"{v} {k}" for k, v in d["status_summary"].items() if v) or "nothing"
        click.echo(f"branch     {d['branch'] or '(detached)'} at {(d['head_commit'] or '(no commits)')[:12]}")
        click.echo(f"work tree  {'clean' if d['clean'] else counts}")
        if d["operation_in_progress"]:
            click.echo(f"in progress {d['operation_in_progress']}")
        click.echo(f"stale      {d['stale_count']} symbols")
        for s in d["stale_symbols"][:30]:
            click.echo(f"  {s['id']}: {'; '.join(s['reasons'])}")

    emit(data, as_json, text)


@cli.command("diff-symbols")
@click.argument("base")
@click.argument("target", default="HEAD")
@click.option("--include-untracked", is_flag=True, help="With WORKTREE: count untracked files as added.")
@json_option
@click.pass_obj
def diff_symbols(obj: Context, base: str, target: str, include_untracked: bool, as_json: bool) -> None:
    """Symbols changed, added, deleted and renamed between BASE and TARGET (a ref, INDEX or WORKTREE)."""
    from ...indexer.git.symdiff import diff_symbols as compute

    with _session(obj) as (root, conn):
        data = compute(root, conn, base, target, include_untracked=include_untracked)

    def text(d: dict[str, Any]) -> None:
        click.echo(
            f"{d['base']}..{d['target']}: {len(d['changed_symbols'])} changed, "
            f"{len(d['deleted_symbols'])} deleted, {len(d['renamed_symbols'])} renamed "
            f"(confidence {d['confidence']})"
        )
        for e in d["changed_symbols"]:
            click.echo(_symbol_change_line(e))
        for e in d["deleted_symbols"]:
            click.echo(f"  deleted   {e['kind']:<9} {e['id']}")
        for r in d["renamed_symbols"]:
            also = f", also {r['changed']}" if r["also_modified"] else ""
            click.echo(f"  renamed   {r['kind']:<9} {r['from']} -> {r['to']} ({r['similarity']:.0%}{also})")
        if d["tests_affected"]:
            click.echo(f"  tests: {' '.join(d['tests_affected'])}")
        for note in d["confidence_notes"]:
            click.echo(f"  note: {note}", err=True)

    emit(data, as_json, text)


@cli.command()
@click.argument("symbol_at", metavar="SYMBOL@REV")
@json_option
@click.pass_obj
def show(obj: Context, symbol_at: str, as_json: bool) -> None:
    """A symbol's source at any revision (`path.py::Class.method@HEAD~3`), following renames."""
    from ...indexer.git.githistory import split_symbol_at
    from ...indexer.git.githistory import symbol_at as lookup

    with _session(obj) as (root, conn):
        symbol, rev = split_symbol_at(symbol_at)
        data = lookup(root, conn, symbol, rev)

    def text(d: dict[str, Any]) -> None:
        renamed = f" (then named {d['id']})" if d["renamed"] else ""
        click.echo(f"# {d['path']}:{d['start_line']} at {d['commit'][:12]}{renamed}")
        click.echo(d["source"])

    emit(data, as_json, text)


@cli.command()
@click.option("--type", "type_", required=True, help="feat, fix, refactor, perf, test, docs, build, ci, chore...")
@click.option("--agent", "agent_id", required=True, help="Who commits: the agent's id.")
@click.option("--goal", required=True, help="The goal summary: the title after `type(agent): `.")
@click.option("--goal-id", default=None, help="The goal's id (a Goal-Id trailer).")
@click.option("--tag", "tags", multiple=True, help="A requirement tag (repeatable).")
@click.option("--risk", default="low", show_default=True, type=click.Choice(["low", "medium", "high"]))
@click.option("--body", default=None, help="A paragraph between the title and the trailers.")
@click.option("--push", "auto_push", is_flag=True, help="Refused: annals never pushes.")
@json_option
@click.pass_obj
def commit(
    obj: Context,
    type_: str,
    agent_id: str,
    goal: str,
    goal_id: str | None,
    tags: tuple[str, ...],
    risk: str,
    body: str | None,
    auto_push: bool,
    as_json: bool,
) -> None:
    """Commit what is staged with a structured message and trailers; a safe point is saved first."""
    from ...hooks.gitops import commit_with_context

    with _session(obj) as (root, conn):
        data = commit_with_context(
            root,
            conn,
            type=type_,
            agent_id=agent_id,
            goal=goal,
            goal_id=goal_id,
            requirement_tags=list(tags),
            risk=risk,
            body=body,
            auto_push=auto_push,
        )
    emit(
        data,
        as_json,
        lambda d: echo_lines([f"{d['commit'][:12]} {d['title']}", f"  safe point {d['safe_point']['name']}"]),
    )


def _recovered(d: dict[str, Any]) -> None:
    click.echo(f"{d['action']}: done")
    click.echo(f"  saved first as safe point {d['safe_point']['name']}")
    click.echo(f"  to undo: {d['how_to_undo']}")


@cli.command()
@click.argument("action", type=click.Choice(["checkout_safe_point", "undo_uncommitted", "restore_branch"]))
@click.option("--name", default=None, help="checkout_safe_point: the safe point (`annals safepoints`).")
@click.option("--branch", default=None, help="restore_branch: the branch to move back.")
@click.option("--to", default=None, help="restore_branch: a commit or safe point (default: its reflog's last).")
@json_option
@click.pass_obj
def recover(obj: Context, action: str, name: str | None, branch: str | None, to: str | None, as_json: bool) -> None:
    """Get back to a safe state without losing work: the present is saved as a safe point first."""
    from ...hooks.safepoints import recover as run

    with _session(obj) as (root, conn):
        data = run(root, conn, action, name=name, branch=branch, to=to)
    emit(data, as_json, _recovered)


@cli.command()
@click.option("--save", "reason", default=None, metavar="REASON", help="Save a new safe point now.")
@json_option
@click.pass_obj
def safepoints(obj: Context, reason: str | None, as_json: bool) -> None:
    """List safe points, newest first (or save one with --save)."""
    from ...hooks import safepoints as points

    with _session(obj) as (root, conn):
        if reason is not None:
            data: Any = points.create(root, conn, reason)
            emit(data, as_json, lambda d: click.echo(f"saved {d['name']} ({d['commit'][:12]}): {d['how_to_restore']}"))
            return
        data = points.list_safepoints(root)
    emit(
        data,
        as_json,
        lambda items: echo_lines(
            [f"{p['name']:<48} {p['created_at']}  {(p.get('branch') or '(detached)')}  {p['reason']}" for p in items]
            or ["no safe points yet"]
        ),
    )


@cli.command()
@click.argument("files", nargs=-1)
@click.option("--strategy", required=True, type=click.Choice(["abort", "manual_review", "ours", "theirs", "skip"]))
@click.option("--notes", default="", help="Why: kept with the event.")
@json_option
@click.pass_obj
def resolve(obj: Context, files: tuple[str, ...], strategy: str, notes: str, as_json: bool) -> None:
    """One step on a merge, rebase or cherry-pick conflict (FILES default to every conflicted file)."""
    from ...hooks.gitops import resolve_conflict

    with _session(obj) as (root, conn):
        data = resolve_conflict(root, conn, files=list(files), strategy=strategy, notes=notes)

    def text(d: dict[str, Any]) -> None:
        click.echo(f"resolved: {', '.join(d['resolved']) or 'none'}")
        click.echo(f"remaining: {', '.join(d['remaining_conflicts']) or 'none'}")
        click.echo(f"next: {d['next_action']}")

    emit(data, as_json, text)


@cli.command(context_settings={"ignore_unknown_options": True})
@click.argument("good")
@click.argument("bad")
@click.argument("test_command", nargs=-1, required=True, type=click.UNPROCESSED)
@click.option(
    "--timeout",
    default=600.0,
    show_default=True,
    type=click.FloatRange(1, 86_400),
    help="Seconds for the whole bisect.",
)
@json_option
@click.pass_obj
def bisect(obj: Context, good: str, bad: str, test_command: tuple[str, ...], timeout: float, as_json: bool) -> None:
    """Find the first bad commit between GOOD and BAD in a separate worktree (`-- TEST_COMMAND...`)."""
    from ...hooks.gitops import bisect as run

    root = git_root(obj)
    with _git_errors():
        data = run(root, good, bad, list(test_command), timeout_seconds=timeout)

    def text(d: dict[str, Any]) -> None:
        if d["first_bad_commit"]:
            click.echo(f"first bad commit: {d['first_bad_commit']} {d['title']}")
        else:
            click.echo(f"no answer: {d['stopped']}")
        click.echo(f"  {len(d['steps'])} steps; your checkout was not touched")

    emit(data, as_json, text)
