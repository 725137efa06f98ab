"""`annals symbols`, `search`, `contract`, `deps`, `impact`, `history`: the read side of the index."""

from __future__ import annotations

import sqlite3
from typing import Any

import click

from ...store import lookups, queries
from ...store.effects import EVIDENCE_PER_KIND
from ...store.queries import NotFound
from ..cli import Context, cli, echo_lines, emit, json_option, symbol_line
from .similarity import search_rows

CLI_TESTS = 20  # tests `annals impact` and `contract` print, best first; --json lists every one


def _empty_answer(conn: sqlite3.Connection, what: str) -> None:
    """An empty answer from an empty index is no answer: say so, with the fix, instead of printing nothing."""
    if not queries.indexed_anything(conn):
        raise click.ClickException(f"no {what}: nothing is indexed yet; run `annals index` first")


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
            if path and queries.holds_file(conn, path):
                queries.resolve_path(conn, path)  # a skipped file: NotFound says why
            if path and not queries.holds_file_or_folder(conn, path):
                raise click.ClickException(
                    f"no indexed file or directory {path!r}; send a repository-relative "
                    "path such as 'src/pkg' or 'src/pkg/mod.py'"
                )
    emit(rows, as_json, lambda rs: echo_lines(symbol_line(s) for s in rs))


@cli.command()
@click.argument("query")
@click.option("--kind", default=None, help="Only this kind of symbol.")
@click.option("--limit", default=20, show_default=True, type=click.IntRange(1, 1000))
@click.option(
    "--mode",
    type=click.Choice(["hybrid", "fts", "vector"]),
    default=None,
    help="hybrid (the default once vectors exist): BM25 and vector ranks fused; fts; vector.",
)
@json_option
@click.pass_obj
def search(obj: Context, query: str, kind: str | None, limit: int, mode: str | None, as_json: bool) -> None:
    """Search symbols by name, signature, docstring and path (`parse url` finds parse_url), and by meaning."""
    with obj.store() as conn:
        rows = search_rows(obj, conn, query, mode, kind, limit)
        if not rows:
            _empty_answer(conn, f"symbols match {query!r}")
            if not as_json:
                click.echo(f"no symbol matches {query!r}; try fewer or other words, or --mode fts", err=True)
    emit(rows, as_json, lambda rs: echo_lines(symbol_line(s) for s in rs))


@cli.command()
@click.argument("target")
@click.option("--all-effects", is_flag=True, help="Every function's evidence of each side effect, not the best few.")
@json_option
@click.pass_obj
def contract(obj: Context, target: str, all_effects: bool, as_json: bool) -> None:
    """Show a module's contract: role, public API, inputs and outputs, side effects, deps, tests."""
    from ...store.testmap import tests_line, tests_unknown
    from ..app import last_commit

    with obj.store() as conn:
        shown = None if all_effects else EVIDENCE_PER_KIND
        path = _path_or_fail(conn, target)
        _complete_first(obj, conn, [path])
        data = queries.module_contract(conn, path, effects_per_kind=shown)
        data["tests_note"] = None if data["tests"] else tests_unknown(conn, data["path"])
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
        more = (
            f" … {len(c['tests']) - CLI_TESTS} more: annals contract {target} --json"
            if len(c["tests"]) > CLI_TESTS
            else ""
        )
        click.echo(f"  tests: {tests_line(c['tests'][:CLI_TESTS], c['tests_note'])}{more}")
        if c["last_commit"]:
            click.echo(f"  last commit: {c['last_commit']['commit'][:12]} {c['last_commit']['subject']}")

    emit(data, as_json, text)


def _complete_first(obj: Context, conn: sqlite3.Connection, paths: list[str], name: str | None = None) -> None:
    """As the MCP tools do (server/tools/_answer.complete_first): while the index completes in the background, the
    search-ready files an answer reads are completed first, and lines on stderr say which and what is still not."""
    if not lookups.outlined_count(conn):  # the parser is not loaded for a complete index
        return
    from ...indexer.complete import before_answer

    completed = before_answer(obj.repo, conn, paths, name, source="cli")
    if completed:
        click.echo(f"note: completed {len(completed)} search-ready files first: {', '.join(completed[:5])}", err=True)
    if still := lookups.outlined_count(conn):
        click.echo(
            f"note: the index is still completing {still} files (`annals status`): callers, dependents and tests"
            " among them are not read yet",
            err=True,
        )


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
        _complete_first(obj, conn, [resolved])
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
    from ...store.testmap import TESTS_UNKNOWN

    with obj.store() as conn:
        try:
            path, symbol = queries.impact_target(conn, target)
            _complete_first(obj, conn, [path], symbol["name"] if symbol else None)
            data = queries.impact(conn, target, root=obj.repo)
        except NotFound as exc:
            raise click.ClickException(str(exc)) from exc

    def text(d: dict[str, Any]) -> None:
        click.echo(f"{d['target']}: risk {d['risk']} ({d['why']})")
        for hit in d["symbols"]:  # each caller with the chain of calls down to the target
            click.echo(f"  {hit['distance']}  {hit['basis']:<13} {' -> '.join(hit.get('chain', [hit['id']]))}")
        for dep in d["dependents"]:
            click.echo(f"  {dep['distance']}  {dep['path']}")
        basis = {t["test"]: t["basis"] for t in d.get("tests_basis", [])}
        if d["tests"]:
            click.echo(f"  tests ({len(d['tests'])}, best first):")
        elif not (d.get("tests_note") or "").startswith(TESTS_UNKNOWN):  # the note says it below
            click.echo("  tests: none found")
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
    emit(
        data,
        as_json,
        lambda es: echo_lines(
            f"{e['seq']:>8}  {e['recorded_at']}  {e['type']:<15} {','.join(e['payload'].get('changed', []))}"
            f"  {(e['commit'] or '')[:12]}"
            for e in es
        ),
    )
