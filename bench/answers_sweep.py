"""Every read answer on every file and symbol of real indexes: which of them fail, and how long the slowest take.

    python bench/answers_sweep.py INDEXED_DIR [INDEXED_DIR ...] [--impact N] [--json FILE]

An agent asks about whatever it meets, so an answer that fails on one call site in a hundred thousand fails
someone. For each directory (a tree indexed with `annals index`, as bench/localize_bench.py leaves under
`--work`/idx/), this asks, through the store's functions the MCP tools answer with:
- every file: its module contract (with its tests);
- every symbol: its callers, its callees and the tests to run (as a context pack asks: the best 12);
- N symbols spread over the index (every k-th): its impact (the whole walk).
It prints, per repository, the answers asked, those that failed (grouped by exception and the line of ours
that raised it, with the first file or symbol of each), and each kind's p50/max milliseconds. The baseline is
the plainest answer of the same run: a symbol's row read by id, which no rule can fail.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import traceback
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

TESTS_ENOUGH = 12  # what a context pack asks of a symbol's tests (server/contextpack.py's MAX_TESTS)


def _where(exc: BaseException) -> str:
    """The last frame of ours in the traceback: where the rule that failed is."""
    ours = [f for f in traceback.extract_tb(exc.__traceback__) if "/site-packages/" not in f.filename]
    frame = ours[-1] if ours else traceback.extract_tb(exc.__traceback__)[-1]
    return f"{type(exc).__name__} at {Path(frame.filename).name}:{frame.lineno} ({frame.name})"


def sweep(root: Path, impact_every: int) -> dict[str, Any]:
    from codeannals.store import default_db_path, lookups, queries, testmap
    from codeannals.store.db import connect
    from codeannals.store.graph import import_graph

    conn = connect(default_db_path(root), readonly=True)
    graph = import_graph(conn)
    times: dict[str, list[float]] = defaultdict(list)
    failures: dict[str, list[str]] = defaultdict(list)

    def ask(kind: str, about: str, answer: Callable[..., object], *arguments: object) -> None:
        started = time.perf_counter()
        try:
            answer(conn, *arguments)
        except Exception as exc:  # noqa: BLE001 - what the sweep counts
            failures[f"{kind}: {_where(exc)}"].append(about)
        times[kind].append((time.perf_counter() - started) * 1000)

    paths = sorted(lookups.indexed_paths(conn))
    for path in paths:
        ask("contract", path, queries.module_contract, path)
    ids = [r[0] for r in conn.execute("SELECT id FROM symbols ORDER BY id")]
    for i, symbol_id in enumerate(ids):
        symbol = queries.find_symbol(conn, symbol_id)
        ask("symbol row", symbol_id, queries.find_symbol, symbol_id)
        ask("callers", symbol_id, lookups.callers, symbol)
        ask("callees", symbol_id, lookups.callees, symbol)
        ask("tests", symbol_id, testmap.symbol_tests_held, graph, symbol, TESTS_ENOUGH)
        if impact_every and i % impact_every == 0:
            ask("impact", symbol_id, queries.impact, symbol_id)
    conn.close()
    return {
        "repository": root.name,
        "files": len(paths),
        "symbols": len(ids),
        "asked": sum(len(v) for v in times.values()),
        "failed": sum(len(v) for v in failures.values()),
        "failures": {k: {"count": len(v), "first": v[:3]} for k, v in sorted(failures.items())},
        "ms": {k: {"p50": statistics.median(v), "max": max(v), "n": len(v)} for k, v in times.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("roots", type=Path, nargs="+", help="indexed trees (each with its .annals/)")
    parser.add_argument("--impact", type=int, default=300, help="symbols asked for their impact, spread evenly")
    parser.add_argument("--json", type=Path, help="write the figures here as well")
    args = parser.parse_args()
    results = []
    for root in args.roots:
        if not (root / ".annals").is_dir():
            sys.exit(f"{root}: no index there: run `annals index` in it first")
        from codeannals.store import default_db_path
        from codeannals.store.db import connect

        conn = connect(default_db_path(root), readonly=True)
        count = conn.execute("SELECT COUNT(*) FROM symbols").fetchone()[0]
        conn.close()
        started = time.perf_counter()
        found = sweep(root, max(1, count // args.impact) if args.impact else 0)
        results.append(found)
        print(
            f"{found['repository']}: {found['files']} files, {found['symbols']} symbols, {found['asked']} answers "
            f"in {time.perf_counter() - started:.0f} s, {found['failed']} failed"
        )
        for what, failed in found["failures"].items():
            print(f"  FAILED {failed['count']}x {what}; first: {', '.join(failed['first'])}")
        print("  ms p50/max: " + ", ".join(f"{k} {v['p50']:.1f}/{v['max']:.0f}" for k, v in found["ms"].items()))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    print(f"in all: {sum(r['failed'] for r in results)} failed of {sum(r['asked'] for r in results)} answers")


if __name__ == "__main__":
    main()
