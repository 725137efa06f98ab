"""MCP latency through a real stdio client, on an index of the CPython standard library.

    python bench/mcp_bench.py [--corpus DIR] [--rounds N] [--keep]

Copies the standard library (without site-packages) into a temporary git repository, indexes it
with `annals index`, starts `annals serve --no-watch` under the SDK's stdio client, and times
each tool call from the client's side (request out, answer parsed). One warm-up round is not
counted. Prints p50 and p95 per tool.

Targets (issue 3): search_symbols and get_module_contract p50 < 10 ms; get_context_pack p50 < 100 ms.
With --corpus DIR an existing indexed copy is reused (nothing is copied or indexed).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

ANNALS = str(Path(sys.executable).parent / "annals")
TARGETS_MS = {"search_symbols": 10.0, "get_module_contract": 10.0, "get_context_pack": 100.0}
SEARCHES = [
    "parse url",
    "json decoder",
    "HTTPConnection",
    "TemporaryDirectory",
    "thread pool executor",
    "read config file",
    "socket timeout",
    "base64 encode",
    "datetime timezone",
    "subprocess run",
    "zip file extract",
    "csv writer",
    "logging handler",
    "email message parser",
    "random choice",
    "pathlib glob",
    "heap push",
    "lru cache",
    "copy tree",
    "tarfile open",
]
TASKS = [
    "json.loads should report the line and column of a trailing comma",
    "urllib.parse.urlsplit accepts invalid port numbers; validate the port",
    "Add a timeout parameter to http.client.HTTPConnection.request",
    "shutil.copytree should skip broken symlinks when ignore_dangling_symlinks is set",
    "csv.DictWriter raises ValueError for extra keys; make the message list them",
    "logging.handlers.RotatingFileHandler should not rotate empty files",
    "tarfile extraction must refuse absolute paths and .. components",
    "Make heapq.merge accept a key function and reverse flag together",
    "zipfile.ZipFile.extractall should preserve file permissions",
    "datetime.fromisoformat should accept a trailing Z for UTC",
]
SYMBOLS = [
    "json/decoder.py::JSONDecoder.decode",
    "http/client.py::HTTPConnection.request",
    "shutil.copytree",
    "heapq.merge",
    "tarfile.TarFile.extractall",
    "csv.DictWriter",
    "urllib/parse.py::urlsplit",
]
# Not JSONDecoder.decode: a method named like a hundred others sends queries.impact's caller walk
# through thousands of symbols (tens of seconds); a known limit of impact, not of the server.
IMPACTS = ["http/client.py::HTTPConnection.request", "shutil.copytree", "csv.py"]
CONTRACT_SAMPLE = 40
SAMPLE_SEED = 3


def prepare(corpus: Path | None, work: Path) -> tuple[Path, dict[str, Any]]:
    """An indexed copy of the standard library (or the one given), and how long indexing took."""
    if corpus is not None:
        return corpus, {"indexed": "reused"}
    root = work / "stdlib"
    shutil.copytree(
        Path(sysconfig.get_paths()["stdlib"]),
        root,
        symlinks=True,
        ignore=shutil.ignore_patterns("site-packages", "__pycache__", "*.pyc"),
    )
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    for argv in (
        ["git", "init", "-q"],
        ["git", "add", "-A"],
        ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "-qm", "stdlib"],
    ):
        subprocess.run(argv, cwd=root, check=True, env=env)
    started = time.perf_counter()
    subprocess.run(
        [ANNALS, "-C", str(root), "index", "--no-vectors", "--wait"],
        check=True,
        capture_output=True,
        env={**env, "ANNALS_VECTORS": "off"},
    )
    return root, {"indexed": f"{time.perf_counter() - started:.1f} s"}


def contract_sample(root: Path) -> list[str]:
    conn = sqlite3.connect(root / ".annals" / "annals.db")
    try:
        paths = [
            r[0]
            for r in conn.execute(
                "SELECT path FROM files WHERE status = 'indexed' AND language = 'python' ORDER BY path"
            )
        ]
        files, symbols = (
            conn.execute("SELECT COUNT(*) FROM files").fetchone()[0],
            conn.execute("SELECT COUNT(*) FROM symbols").fetchone()[0],
        )
    finally:
        conn.close()
    print(f"index: {files} files, {symbols} symbols, {len(paths)} Python modules")
    return random.Random(SAMPLE_SEED).sample(paths, min(CONTRACT_SAMPLE, len(paths)))


def calls(contracts: list[str]) -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = [("ping", {})]
    out += [("search_symbols", {"query": q}) for q in SEARCHES]
    out += [("get_module_contract", {"path": p}) for p in contracts]
    out += [("get_context_pack", {"task": t}) for t in TASKS]
    out += [("get_symbol", {"symbol": s}) for s in SYMBOLS]
    out += [("impact_analysis", {"target": t}) for t in IMPACTS]
    out += [
        ("vibe_check", {"goal": t, "plan": f"Change the code so that: {t}. Write a helper and tests."})
        for t in TASKS[:3]
    ]
    return out


async def measure(root: Path, rounds: int) -> dict[str, list[float]]:
    params = StdioServerParameters(
        command=ANNALS,
        args=["-C", str(root), "serve", "--no-watch", "--tools", "all"],
        env={**os.environ, "ANNALS_VECTORS": "off"},
    )
    plan = calls(contract_sample(root))
    timings: dict[str, list[float]] = {}
    errors: list[str] = []
    async with Client(params, read_timeout_seconds=120) as client:
        for round_ in range(rounds + 1):
            for name, args in plan:
                call: Callable[[], Awaitable[Any]] = lambda n=name, a=args: client.call_tool(n, a)  # noqa: E731
                started = time.perf_counter()
                result = await call()
                elapsed = (time.perf_counter() - started) * 1000
                if result.is_error:
                    errors.append(f"{name} {args}: {result.content[0].text if result.content else ''}")
                if round_ > 0:  # round 0 warms caches and the worker threads' connections
                    timings.setdefault(name, []).append(elapsed)
    for error in sorted(set(errors)):
        print(f"  tool error: {error}")
    return timings


def server_timings(root: Path, rounds: int) -> dict[str, list[float]]:
    """Each tool's own time inside the server (its tool.called events), the warm-up round left out:
    the rest of a call's latency is the stdio transport and the client checking the structured
    answer against the tool's output schema."""
    conn = sqlite3.connect(f"file:{root / '.annals' / 'annals.db'}?mode=ro", uri=True)
    try:
        rows = conn.execute("SELECT payload FROM events WHERE type = 'tool.called' ORDER BY seq").fetchall()
    finally:
        conn.close()
    by_tool: dict[str, list[float]] = {}
    for (payload,) in rows:
        call = json.loads(payload)
        by_tool.setdefault(call["tool"], []).append(call["duration_ms"])
    return {tool: values[len(values) // (rounds + 1) :] for tool, values in by_tool.items()}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=None, help="An already indexed repository to reuse.")
    parser.add_argument("--rounds", type=int, default=5, help="Measured rounds over every call (default 5).")
    parser.add_argument("--keep", action="store_true", help="Keep the temporary copy and print where it is.")
    options = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="annals-mcp-bench-"))
    try:
        root, info = prepare(options.corpus, work)
        print(f"corpus: {root} ({info['indexed']})")
        timings = anyio.run(measure, root, options.rounds)
        inside = server_timings(root, options.rounds)
    finally:
        if options.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(f"\n{'tool':<22}{'calls':>7}{'p50 ms':>10}{'p95 ms':>10}{'mean ms':>10}{'server p50':>12}  target")
    failed = False
    for name, values in timings.items():
        p50, p95 = percentile(values, 0.5), percentile(values, 0.95)
        target = TARGETS_MS.get(name)
        verdict = ""
        if target is not None:
            met = p50 < target
            failed |= not met
            verdict = f"p50 < {target:g} ms: {'met' if met else 'MISSED'}"
        server = f"{percentile(inside[name], 0.5):.2f}" if inside.get(name) else "-"
        mean = statistics.fmean(values)
        print(f"{name:<22}{len(values):>7}{p50:>10.2f}{p95:>10.2f}{mean:>10.2f}{server:>12}  {verdict}")
    print(
        "(p50, p95, mean: through the SDK's stdio client, as an agent sees them; server p50: the tool's own "
        "time, from its tool.called events)"
    )
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
