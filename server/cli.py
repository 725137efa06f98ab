"""The `annals` command line. Heavy packages (mcp, chromadb, rich) are imported only where used."""

from __future__ import annotations

import importlib
import json
import sqlite3
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from ..store import DatabaseError, default_db_path, open_store, queries
from ..store import log as event_log
from ..store.db import explain
from ..store.effects import EVIDENCE_PER_KIND
from ..store.queries import NotFound

CLI_TESTS = 20  # tests `annals impact` and `contract` print, best first; --json lists every one


@dataclass
class Context:
    repo: Path
    db_option: str | None

    @property
    def db_path(self) -> Path:
        return default_db_path(self.repo, self.db_option)

    @contextmanager
    def store(self, *, must_exist: bool = True) -> Iterator[sqlite3.Connection]:
        path = self.db_path
        if must_exist and not path.exists():
            raise click.ClickException(f"no index at {path}: run `annals index {self.repo}` first")
        try:
            conn = open_store(path)
        except DatabaseError as exc:
            raise click.ClickException(str(exc)) from exc
        try:
            yield conn
        except sqlite3.Error as exc:
            raise click.ClickException(explain(exc, path)) from exc
        finally:
            conn.close()


def emit(data: Any, as_json: bool, text: Callable[[Any], None]) -> None:
    """One JSON document on stdout for machines, or readable lines for people."""
    if as_json:
        click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))
    else:
        text(data)


def echo_lines(lines: Iterable[str]) -> None:
    for line in lines:
        click.echo(line)


def _repo_dir(value: str) -> Path:
    path = Path(value).expanduser()
    if not path.exists():
        raise click.ClickException(f"{value}: no such directory; pass the root of the repository to index")
    if not path.is_dir():
        raise click.ClickException(f"{value} is a file, not a directory; pass the repository's root directory")
    return path.resolve()


json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON document on stdout.")


class AnnalsGroup(click.Group):
    """The root group: what the index cannot answer (an unknown symbol, a skipped file, a database
    that will not open) is a one-line error naming it and the fix, in every command, never a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (NotFound, DatabaseError) as exc:
            raise click.ClickException(str(exc)) from exc


def _empty_answer(conn: sqlite3.Connection, what: str) -> None:
    """An empty answer from an empty index is no answer: say so, with the fix, instead of printing nothing."""
    if conn.execute("SELECT 1 FROM files WHERE status = 'indexed' LIMIT 1").fetchone() is None:
        raise click.ClickException(f"no {what}: nothing is indexed yet; run `annals index` first")


@click.group(cls=AnnalsGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("-C", "--repo", default=".", show_default=True, help="The repository's root directory.")
@click.option("--db", "db_option", default=None, envvar="ANNALS_DB",
              help="The database file (default <repo>/.annals/annals.db).")
@click.version_option(package_name="codeannals")
@click.pass_context
def cli(ctx: click.Context, repo: str, db_option: str | None) -> None:
    """An event-sourced knowledge index of a code repository, for people and coding agents."""
    ctx.obj = Context(_repo_dir(repo), db_option)


def _progress_bar() -> tuple[Callable[[int, int], None] | None, Callable[[], None]]:
    """A rich progress bar on a terminal; nothing at all when piped."""
    if not sys.stderr.isatty():
        return None, lambda: None
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    bar = Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                   TimeElapsedColumn(), transient=True, console=None)
    bar.start()
    task = bar.add_task("indexing", total=None)

    def update(done: int, total: int) -> None:
        bar.update(task, completed=done, total=total or None)

    return update, bar.stop


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
def index(obj: Context, path: str | None, no_vectors: bool, wait: bool, history: bool, no_history: bool,
          since: str | None, as_json: bool) -> None:
    """Index the repository (or PATH) into the event log and bring every projection up to date."""
    from ..indexer.run import ensure_git_excludes_annals, index_tree

    if path is not None:
        obj.repo = _repo_dir(path)
    ensure_git_excludes_annals(obj.repo)
    progress, stop = _progress_bar()
    try:
        with obj.store(must_exist=False) as conn:
            report = index_tree(obj.repo, conn, source="cli", progress=progress)
    finally:
        stop()
    data = report.as_json()
    if history or since is not None or (not no_history and _in_git(obj.repo)):
        from .commands.git import history_after_index

        full = history or since is not None
        data["history"] = history_after_index(obj, since, None if full else RECENT_HISTORY,
                                              None if full else RECENT_HISTORY_SECONDS)
    if not no_vectors:
        from .commands.similarity import vectors_after_index

        data.update(vectors_after_index(obj, wait))

    def text(d: dict[str, Any]) -> None:
        click.echo(f"{d['files']} files, {d['indexed']} indexed, {d['unchanged']} unchanged, "
                   f"{d['skipped']} skipped, {d['removed']} removed; {d['symbols']} symbols, "
                   f"{d['events']} events in {d['seconds']:.2f}s")
        if d.get("reextracted"):
            click.echo(f"  {d['reextracted']} unchanged files extracted again: this version of annals reads "
                       "code differently from the one that indexed them")
        for skip in d["skips"][:20]:
            detail = f" ({skip['detail']})" if skip["detail"] else ""
            click.echo(f"  skipped {skip['path']}: {skip['reason']}{detail}", err=True)
        if len(d["skips"]) > 20:
            click.echo(f"  ... and {len(d['skips']) - 20} more skipped (`annals status --json` lists them)", err=True)
        if "history" in d:
            h = d["history"]
            left = h["reachable"] - h["recorded"] - h["already"]
            more = f"; {left} older ones not recorded: `annals index --history` records them" if left > 0 else ""
            click.echo(f"history: {h['recorded']} commits recorded, {h['already']} already known, "
                       f"{h['seconds']:.2f}s{more}")
        if "vectors" in d:
            from .commands.similarity import vectors_line

            click.echo(vectors_line(d["vectors"]))

    emit(data, as_json, text)


def _in_git(root: Path) -> bool:
    from ..indexer.git.gitcmd import repo_top

    return repo_top(root) is not None


def _symbol_line(s: dict[str, Any]) -> str:
    return f"{s['path']}:{s['start_line']}  {s['kind']:<9} {s['qualname']}  {s.get('signature') or ''}"


@cli.command()
@click.option("--path", "path", default=None, help="Only symbols in this file or directory.")
@click.option("--kind", default=None, help="Only this kind: class, method, function, struct...")
@json_option
@click.pass_obj
def symbols(obj: Context, path: str | None, kind: str | None, as_json: bool) -> None:
    """List indexed symbols."""
    with obj.store() as conn:
        rows = queries.list_symbols(conn, path=path, kind=kind)
        if not rows:
            _empty_answer(conn, "symbols")
            if path and conn.execute("SELECT 1 FROM files WHERE path = ?", (path,)).fetchone():
                queries.resolve_path(conn, path)  # a skipped file: NotFound says why
            folder = path.rstrip("/") + "/" if path else ""
            if path and not conn.execute("SELECT 1 FROM files WHERE path = ? OR substr(path, 1, ?) = ? LIMIT 1",
                                         (path, len(folder), folder)).fetchone():
                raise click.ClickException(f"no indexed file or directory {path!r}; send a repository-relative "
                                           "path such as 'src/pkg' or 'src/pkg/mod.py'")
    emit(rows, as_json, lambda rs: echo_lines(_symbol_line(s) for s in rs))


@cli.command()
@click.argument("query")
@click.option("--kind", default=None, help="Only this kind of symbol.")
@click.option("--limit", default=20, show_default=True, type=click.IntRange(1, 1000))
@click.option("--mode", type=click.Choice(["hybrid", "fts", "vector"]), default=None,
              help="hybrid (the default once vectors exist): BM25 and vector ranks fused; fts; vector.")
@json_option
@click.pass_obj
def search(obj: Context, query: str, kind: str | None, limit: int, mode: str | None, as_json: bool) -> None:
    """Search symbols by name, signature, docstring and path (`parse url` finds parse_url), and by meaning."""
    from .commands.similarity import search_rows

    with obj.store() as conn:
        rows = search_rows(obj, conn, query, mode, kind, limit)
        if not rows:
            _empty_answer(conn, f"symbols match {query!r}")
            if not as_json:
                click.echo(f"no symbol matches {query!r}; try fewer or other words, or --mode fts", err=True)
    emit(rows, as_json, lambda rs: echo_lines(_symbol_line(s) for s in rs))


@cli.command()
@click.argument("target")
@click.option("--all-effects", is_flag=True, help="Every function's evidence of each side effect, not the best few.")
@json_option
@click.pass_obj
def contract(obj: Context, target: str, all_effects: bool, as_json: bool) -> None:
    """Show a module's contract: role, public API, inputs and outputs, side effects, deps, tests."""
    from .app import last_commit

    with obj.store() as conn:
        shown = None if all_effects else EVIDENCE_PER_KIND
        data = queries.module_contract(conn, _path_or_fail(conn, target), effects_per_kind=shown)
    data["last_commit"] = last_commit(obj.repo, data["path"])

    def text(c: dict[str, Any]) -> None:
        click.echo(f"{c['path']} ({c['module'] or c['language']}): {c['role'] or 'no stated role'}")
        for api in c["public_api"]:
            click.echo(f"  {api['kind']:<9} {api['signature']}" + (f"  -- {api['summary']}" if api["summary"] else ""))
        click.echo(f"  side effects: {', '.join(c['side_effects']) or 'none detected'}")
        for e in c["side_effect_evidence"]:
            click.echo(f"    {e['kind']:<11} {e['evidence']}  ({e['path']}:{e['line']}, {e['basis']})")
        for kind, more in c["side_effects_omitted"].items():
            click.echo(f"    {kind:<11} ... {more} more: `annals contract --all-effects {c['path']}`")
        click.echo(f"  imports: {', '.join(i['target'] for i in c['imports']) or 'none'}")
        click.echo(f"  dependents: {', '.join(c['dependents']) or 'none'}")
        more = f" … {len(c['tests']) - CLI_TESTS} more: annals contract {target} --json" \
            if len(c["tests"]) > CLI_TESTS else ""
        click.echo(f"  tests: {', '.join(c['tests'][:CLI_TESTS]) or 'none found'}{more}")
        if c["last_commit"]:
            click.echo(f"  last commit: {c['last_commit']['commit'][:12]} {c['last_commit']['subject']}")

    emit(data, as_json, text)


def _path_or_fail(conn: sqlite3.Connection, ref: str) -> str:
    try:
        return queries.resolve_path(conn, ref)
    except NotFound as exc:
        raise click.ClickException(str(exc)) from exc


@cli.command()
@click.argument("path", required=False)
@click.option("--reverse", is_flag=True, help="What depends on PATH instead of what PATH depends on.")
@json_option
@click.pass_obj
def deps(obj: Context, path: str | None, reverse: bool, as_json: bool) -> None:
    """Import dependencies of a file (or its dependents); without PATH, every import edge."""
    with obj.store() as conn:
        if path is None:
            data: Any = queries.import_edges(conn)
            if not data:
                _empty_answer(conn, "import edges")
            emit(data, as_json, lambda es: echo_lines(f"{e['source']} -> {e['target']}" for e in es))
            return
        resolved = _path_or_fail(conn, path)
        if reverse:
            data = queries.transitive(conn, resolved, reverse=True)
            emit(data, as_json, lambda ds: echo_lines(f"{'  ' * (d['distance'] - 1)}{d['path']}" for d in ds))
        else:
            data = queries.dependencies(conn, resolved)
            emit(data, as_json, lambda ds: echo_lines(f"{d['kind']:<8} {d['target']}" for d in ds))


@cli.command()
@click.argument("target")
@json_option
@click.pass_obj
def impact(obj: Context, target: str, as_json: bool) -> None:
    """What a change to SYMBOL or PATH can break: transitive dependents and the tests that reach them."""
    with obj.store() as conn:
        try:
            data = queries.impact(conn, target)
        except NotFound as exc:
            raise click.ClickException(str(exc)) from exc

    def text(d: dict[str, Any]) -> None:
        click.echo(f"{d['target']}: risk {d['risk']} ({d['why']})")
        for hit in d["symbols"]:  # each caller with the chain of calls down to the target
            click.echo(f"  {hit['distance']}  {hit['basis']:<13} {' -> '.join(hit.get('chain', [hit['id']]))}")
        for dep in d["dependents"]:
            click.echo(f"  {dep['distance']}  {dep['path']}")
        basis = {t["test"]: t["basis"] for t in d.get("tests_basis", [])}
        click.echo(f"  tests ({len(d['tests'])}, best first):" if d["tests"] else "  tests: none found")
        for test in d["tests"][:CLI_TESTS]:
            click.echo(f"    {test}  -- {basis.get(test, '')}")
        if len(d["tests"]) > CLI_TESTS:
            click.echo(f"    … {len(d['tests']) - CLI_TESTS} more: annals impact {target} --json")
        if d.get("tests_note"):
            click.echo(f"  {d['tests_note']}")

    emit(data, as_json, text)


@cli.command()
@click.argument("symbol")
@json_option
@click.pass_obj
def history(obj: Context, symbol: str, as_json: bool) -> None:
    """Every event of a symbol, oldest first."""
    with obj.store() as conn:
        try:
            sid = queries.find_symbol(conn, symbol)["id"]
        except NotFound:
            sid = symbol  # a removed symbol still has its history
        data = queries.symbol_history(conn, sid)
    if not data:
        raise click.ClickException(f"no events for symbol {symbol!r}; `annals search` finds symbol ids")
    emit(data, as_json, lambda es: echo_lines(
        f"{e['seq']:>8}  {e['recorded_at']}  {e['type']:<15} {','.join(e['payload'].get('changed', []))}"
        f"  {(e['commit'] or '')[:12]}" for e in es))


@cli.command()
@json_option
@click.pass_obj
def status(obj: Context, as_json: bool) -> None:
    """How much is indexed and how fresh it is."""
    from ..indexer.freshness import freshness

    with obj.store() as conn:
        data = queries.status(conn)
        data.update(freshness(obj.repo, conn))
        data["database"] = str(obj.db_path)
        data["skipped"] = [dict(r) for r in conn.execute(
            "SELECT path, reason FROM files WHERE status = 'skipped' ORDER BY path")]

    def text(d: dict[str, Any]) -> None:
        click.echo(f"database   {d['database']}")
        click.echo(f"files      {d['files_indexed']} indexed, {d['files_skipped']} skipped")
        click.echo(f"symbols    {d['symbols']}")
        click.echo(f"languages  {', '.join(f'{k} {v}' for k, v in d['languages'].items()) or 'none'}")
        click.echo(f"log        position {d['log_position']}, last event {d['last_event_at'] or 'never'}")
        click.echo(f"head       indexed {(d['indexed_head'] or '-')[:12]}, current {(d['head'] or '-')[:12]}")
        w = d.get("watcher")
        click.echo(f"pending    {d['pending_files']} files differ from the index"
                   + (" (run `annals index`)" if d["pending_files"] and not w else ""))
        click.echo("watcher    " + ("none (`annals watch --daemon` keeps the index fresh)" if not w else
                                    f"pid {w['pid']}, {w.get('kind') or 'starting'}, "
                                    f"{'ready' if w.get('ready') else 'reconciling'}, {w.get('mode') or '-'}"))

    emit(data, as_json, text)


@cli.command()
@click.option("--since", default=0, show_default=True, type=click.IntRange(0), help="Only events with seq > SINCE.")
@click.option("--type", "types", multiple=True, help="Only events of this type (repeatable).")
@click.option("--limit", default=None, type=click.IntRange(1), help="At most this many events.")
@json_option
@click.pass_obj
def events(obj: Context, since: int, types: tuple[str, ...], limit: int | None, as_json: bool) -> None:
    """The raw event log, oldest first."""
    with obj.store() as conn:
        data = [e.as_json() for e in event_log.read(conn, since=since, types=list(types) or None, limit=limit)]
    emit(data, as_json, lambda es: echo_lines(
        f"{e['seq']:>8}  {e['recorded_at']}  {e['source']:<7} {e['type']:<15} {e['stream']}" for e in es))


@cli.command()
@json_option
@click.pass_obj
def rebuild(obj: Context, as_json: bool) -> None:
    """Drop every projection and replay the whole event log into fresh ones."""
    from ..store.maintenance import rebuild as replay_all

    with obj.store() as conn:
        count = replay_all(conn)
    emit({"events_replayed": count}, as_json, lambda d: click.echo(f"replayed {d['events_replayed']} events"))


@cli.command()
@json_option
@click.pass_obj
def verify(obj: Context, as_json: bool) -> None:
    """Replay the log into a scratch database and compare it with the live projections."""
    from ..store.maintenance import verify as check

    with obj.store() as conn:
        result = check(conn)

    def text(r: dict[str, Any]) -> None:
        click.echo(f"integrity  {r['checks']['integrity']}")
        for p in r["projections"]:
            verdict = "ok" if p["equal"] else f"DIFFERS from replay {p['replay'][:16]}"
            click.echo(f"{p['projection']:<13} {p['live'][:16]}  {verdict}")

    emit(result, as_json, text)
    if not result["ok"]:
        raise SystemExit(1)


# Command families live in server/commands/<family>.py, each adding its commands to `cli`.
COMMAND_FAMILIES: tuple[str, ...] = ("similarity", "git", "hooks", "watch", "serve", "workflow", "pack")


for _family in COMMAND_FAMILIES:
    importlib.import_module(f"{__package__}.commands.{_family}")


def main() -> None:
    cli(prog_name="annals")


if __name__ == "__main__":
    main()
