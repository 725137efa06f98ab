"""Every read answer on every file and symbol of real indexes: which of them fail, and how long the slowest take.

    python bench/answers_sweep.py INDEXED_DIR [INDEXED_DIR ...] [--impact N] [--fresh N] [--mcp N] [--json FILE]

An agent asks about whatever it meets, so an answer that fails on one call site in a hundred thousand fails
someone. For each directory (a tree indexed with `annals index`, as bench/localize_bench.py leaves under
`--work`/idx/), this asks, through the store's functions the MCP tools answer with:
- every file: its module contract (with its tests);
- every symbol: its callers, its callees and the tests to run (as a context pack asks: the best 12); each
  call a callees answer resolves, or finds a method may run by a name built at run time (`getattr(self,
  f"visit_{kind}")()`) or as a hook (`self.step()` in a Job whose subclasses each define step), must be among
  the callee's callers (but a function's calls of itself), and
  each test to run must name a test file, function or class method the index holds;
- N symbols spread over the index (every k-th): its impact (the whole walk).
With `--fresh N`, N symbols spread over the index are asked again, each after the connection's read caches are
dropped: an answer must not depend on the questions asked before it (one that did, on sqlalchemy: a class's
bases cached short by a lookup deep in a walk).
With `--mcp N`, the tools an agent calls are asked too, through the MCP client in process, where the answer
is also checked against its declared output schema: every file's get_module_contract, get_dependencies and
get_dependents; N symbols spread over the index (every symbol of a smaller one), each by the id the answers
give, for get_symbol, impact_analysis and symbol_history. A tool's error counts as a failure: each of these
files and symbols exists, so "not found" is wrong too.
It prints, per repository, the answers asked, those that failed (grouped by exception and the line of ours
that raised it, with the first file or symbol of each), and each kind's p50/max milliseconds. The baseline is
the plainest answer of the same run: a symbol's row read by id, which no rule can fail.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
import traceback
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

TESTS_ENOUGH = 12  # what a context pack asks of a symbol's tests (server/contextpack.py's MAX_TESTS)
EVERY = 1_000_000  # callers and callees: all of them, for the check that each answer holds the other's calls


def _where(exc: BaseException) -> str:
    """The last frame of ours in the traceback: where the rule that failed is."""
    ours = [f for f in traceback.extract_tb(exc.__traceback__) if "/site-packages/" not in f.filename]
    frame = ours[-1] if ours else traceback.extract_tb(exc.__traceback__)[-1]
    return f"{type(exc).__name__} at {Path(frame.filename).name}:{frame.lineno} ({frame.name})"


def sweep(root: Path, impact: int, fresh: int = 0) -> dict[str, Any]:
    from codeannals.store import default_db_path, lookups, open_store, queries, testmap
    from codeannals.store.callgraph import DISPATCHED, RESOLVED
    from codeannals.store.db import forget_held
    from codeannals.store.graph import import_graph

    conn = open_store(default_db_path(root))  # an index of an older version: its projections are rebuilt
    graph = import_graph(conn)
    times: dict[str, list[float]] = defaultdict(list)
    failures: dict[str, list[str]] = defaultdict(list)

    def ask(kind: str, about: str, answer: Callable[..., Any], *arguments: object) -> Any:
        started = time.perf_counter()
        try:
            return answer(conn, *arguments)
        except Exception as exc:  # noqa: BLE001 - what the sweep counts
            failures[f"{kind}: {_where(exc)}"].append(about)
            return None
        finally:
            times[kind].append((time.perf_counter() - started) * 1000)

    paths = sorted(lookups.indexed_paths(conn))
    held = Held(conn)
    for path in paths:
        ask("contract", path, queries.module_contract, path)
    ids = [r[0] for r in conn.execute("SELECT id FROM symbols ORDER BY id")]
    impact_asked = set(_spread(ids, impact))
    fresh_asked = set(_spread(ids, fresh))
    given: dict[str, dict[str, Any]] = {}  # each symbol asked again on fresh caches: its answers, by kind
    called_by: dict[str, set[tuple[str | None, int | None]]] = {}  # each symbol's callers, with their lines
    calls: list[tuple[str, int | None, str]] = []  # (caller, line, callee) of each call resolved

    def questions(symbol_id: str) -> list[tuple[str, Callable[..., Any], tuple[Any, ...]]]:
        """What is asked of a symbol: the same on the first pass and on fresh caches."""
        symbol = queries.find_symbol(conn, symbol_id)
        asked = [
            ("callers", lookups.callers, (symbol, EVERY)),
            ("callees", lookups.callees, (symbol, EVERY)),
            ("tests", testmap.symbol_tests_held, (graph, symbol, TESTS_ENOUGH)),
        ]
        return asked + [("impact", queries.impact, (symbol_id,))] if symbol_id in impact_asked else asked

    for symbol_id in ids:
        ask("symbol row", symbol_id, queries.find_symbol, symbol_id)
        answers = {kind: ask(kind, symbol_id, answer, *arguments) for kind, answer, arguments in questions(symbol_id)}
        called_by[symbol_id] = {(c["caller"], c["line"]) for c in answers["callers"] or []}
        checked = [
            c for c in answers["callees"] or [] if c["basis"] in RESOLVED or c["basis"] in (DISPATCHED, "override")
        ]
        calls += [(symbol_id, c["line"], c["target"]) for c in checked]
        for reach in answers["tests"] or []:
            if not _runnable(reach.test, held):
                failures["a test to run that the index does not hold"].append(f"{symbol_id}: {reach.test}")
        if symbol_id in fresh_asked:
            given[symbol_id] = answers
    for symbol_id, answers in sorted(given.items()):  # each again, as the first question on the connection
        for kind, answer, arguments in questions(symbol_id):
            forget_held(conn)
            if ask(f"{kind}, fresh", symbol_id, answer, *arguments) != answers[kind]:
                failures[f"{kind}: another answer on fresh caches"].append(symbol_id)
    conn.close()
    # A call resolved to Y in X's callees is among Y's callers (but a function's calls of itself, which callers
    # leave out): the two answers are one graph read from either end.
    for caller, line, callee in calls:
        if callee != caller and callee in called_by and (caller, line) not in called_by[callee]:
            failures["a callee whose callers leave the call out"].append(f"{caller} -> {callee} (line {line})")
    return _figures(root, len(paths), len(ids), times, failures)


class Held:
    """What the index holds that a test id can name: files, symbols by id, the names of methods, the names files
    bind by a top-level import (`from test_signer import TestSigner`: pytest collects the class there too), and a
    googletest test as its runner names it, without its namespaces (`db/db_test.cc::DBTest.IterMulti`, the symbol
    `db/db_test.cc::leveldb.DBTest.IterMulti`: `--gtest_filter=DBTest.IterMulti`)."""

    def __init__(self, conn: Any) -> None:
        self.ids = {r[0] for r in conn.execute("SELECT id FROM symbols")}
        self.files = {r[0] for r in conn.execute("SELECT path FROM files")}  # a test file may hold no symbol
        self.methods = {i.rpartition(".")[2] for i in self.ids if "." in i.partition("::")[2]}
        self.ids |= {f"{r[0]}::{r[1]}" for r in conn.execute("SELECT path, bound FROM imports WHERE bound IS NOT NULL")}
        query = "SELECT path, qualname FROM symbols WHERE kind IN ('method', 'function') AND language IN ('c', 'cpp')"
        self.ids |= {f"{path}::{'.'.join(q.split('.')[-2:])}" for path, q in conn.execute(query) if "." in q}
        query = "SELECT path, qualname FROM symbols WHERE kind = 'method' AND language = 'ruby'"
        self.ruby_methods = {(path, ".".join(q.split(".")[-2:])) for path, q in conn.execute(query)}  # (file, `C.m`)


def _runnable(test: str, held: Held) -> bool:
    """Whether a test id names what the index holds: a file, a function of it (`f.py::test_x`), or a test class
    of it and a method that class defines or inherits (`f.py::TestC::test_m`, the method perhaps a base's); the
    function or class may be one the file imports. A googletest, JUnit (a nested class's too) or minitest test as its
    runner names it, too."""
    path, _, rest = test.partition("::")
    if not rest:
        return path in held.files
    # googletest's patterns for a test run more than once: `*/Suite.Name/*` (TEST_P, each instantiation and value),
    # `Suite/*.Name` (TYPED_TEST, each type), `*/Suite/*.Name` (TYPED_TEST_P)
    rest = rest.removeprefix("*/").removesuffix("/*").replace("/*.", ".")
    # JUnit's `InterceptorTest#testCustomTypeAdapter`, as Maven's -Dtest takes it (not `file_debug_fmt#2`, the id of
    # a second definition of a name)
    if path.endswith(".java"):  # a JUnit 5 @Nested class by its binary name, `HtmlParserTest$DeepHtmlTrees#m` (a
        classes, hash, method = rest.partition("#")  # method's own name may hold a `$`: `testNe$tedClassName`)
        rest = classes.replace("$", ".") + hash + method
    rest = re.sub(r"#(?=[A-Za-z_])", ".", rest)
    if path.endswith(".rb"):  # minitest's `Shop::ParserTest#test_rows`: the class as Ruby names it, then the method
        return (path, ".".join(rest.replace("::", ".").split(".")[-2:])) in held.ruby_methods
    parts = rest.split("::")
    if len(parts) == 1:
        return f"{path}::{parts[0]}" in held.ids
    return f"{path}::{parts[0]}" in held.ids and parts[-1] in held.methods


def _spread(ids: list[str], wanted: int) -> list[str]:
    """About `wanted` of the ids, every k-th from the first (all of them where there are fewer)."""
    return ids[:: max(1, len(ids) // wanted)] if wanted else []


def sweep_tools(root: Path, spread: int) -> dict[str, Any]:
    """The MCP tools on every file and on `spread` symbols (sweep's docstring)."""
    import anyio
    from codeannals.server.app import App
    from codeannals.server.mcp import build_server
    from codeannals.store import default_db_path, lookups
    from codeannals.store.db import connect
    from mcp import Client

    conn = connect(default_db_path(root), readonly=True)
    paths = sorted(lookups.indexed_paths(conn))
    ids = [r[0] for r in conn.execute("SELECT id FROM symbols ORDER BY id")]
    conn.close()
    chosen = _spread(ids, spread)
    times: dict[str, list[float]] = defaultdict(list)
    failures: dict[str, list[str]] = defaultdict(list)

    async def ask_all() -> None:
        async with Client(build_server(App.for_repo(root, default_db_path(root)))) as client:

            async def ask(tool: str, arguments: dict[str, Any]) -> None:
                started = time.perf_counter()
                about = next(iter(arguments.values()))
                try:
                    answer = await client.call_tool(tool, arguments)
                except Exception as exc:  # noqa: BLE001 - what the sweep counts (a schema the answer breaks)
                    failures[f"{tool}: {type(exc).__name__}: {str(exc)[:120]}"].append(about)
                else:
                    if answer.is_error:
                        text = " ".join(getattr(c, "text", "") for c in answer.content)[:120]
                        failures[f"{tool}: {text}"].append(about)
                times[tool].append((time.perf_counter() - started) * 1000)

            for path in paths:
                for tool in ("get_module_contract", "get_dependencies", "get_dependents"):
                    await ask(tool, {"path": path})
            for symbol_id in chosen:
                await ask("get_symbol", {"symbol": symbol_id})
                await ask("impact_analysis", {"target": symbol_id})
                await ask("symbol_history", {"symbol": symbol_id})

    anyio.run(ask_all)
    return _figures(root, len(paths), len(chosen), times, failures)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("roots", type=Path, nargs="+", help="indexed trees (each with its .annals/)")
    parser.add_argument("--impact", type=int, default=300, help="symbols asked for their impact, spread evenly")
    parser.add_argument("--fresh", type=int, default=0, help="symbols asked again on fresh caches, spread evenly")
    parser.add_argument("--mcp", type=int, default=0, help="also ask the MCP tools, on this many symbols")
    parser.add_argument("--json", type=Path, help="write the figures here as well")
    args = parser.parse_args()
    results = []
    for root in args.roots:
        if not (root / ".annals").is_dir():
            sys.exit(f"{root}: no index there: run `annals index` in it first")
        started = time.perf_counter()
        found = sweep(root, args.impact, args.fresh)
        _report(found, "answers", time.perf_counter() - started)
        results.append(found)
        if args.mcp:
            started = time.perf_counter()
            found = sweep_tools(root, args.mcp)
            _report(found, "tool calls", time.perf_counter() - started)
            results.append(found)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    print(f"in all: {sum(r['failed'] for r in results)} failed of {sum(r['asked'] for r in results)} asked")


def _figures(
    root: Path, files: int, symbols: int, times: dict[str, list[float]], failures: dict[str, list[str]]
) -> dict[str, Any]:
    """One sweep's figures: what was asked, what failed (by kind, with the first few), each kind's times."""
    return {
        "repository": root.name,
        "files": files,
        "symbols": symbols,
        "asked": sum(len(v) for v in times.values()),
        "failed": sum(len(v) for v in failures.values()),
        "failures": {k: {"count": len(v), "first": v[:3]} for k, v in sorted(failures.items())},
        "ms": {k: {"p50": statistics.median(v), "max": max(v), "n": len(v)} for k, v in times.items()},
    }


def _report(found: dict[str, Any], what: str, seconds: float) -> None:
    print(
        f"{found['repository']}: {found['files']} files, {found['symbols']} symbols, {found['asked']} {what} "
        f"in {seconds:.0f} s, {found['failed']} failed"
    )
    for kind, failed in found["failures"].items():
        print(f"  FAILED {failed['count']}x {kind}; first: {', '.join(failed['first'])}")
    print("  ms p50/max: " + ", ".join(f"{k} {v['p50']:.1f}/{v['max']:.0f}" for k, v in found["ms"].items()))


if __name__ == "__main__":
    main()
