"""Everything at once: the watcher bulk-indexing, 20 hook processes appending, and an MCP client
asking 50 queries a second over HTTP, against one database.

    python bench/load_bench.py [--seconds 600] [--hooks 20] [--qps 50] [--hook-interval 1.0]
                               [--edit-rate 5] [--max-files 1500] [--indexed-fraction 0.3]
                               [--wave-seconds S] [--vectors] [--work DIR] [--keep]

A scratch git repository gets up to `--max-files` .py files of this interpreter's standard
library (site-packages left out); `annals index` indexes a `--indexed-fraction` of them, then
`annals serve --port P` starts with its watcher inside and the rest are copied in (a bulk batch
for the watcher). For `--seconds`:
- an editor saves files atomically at `--edit-rate` per second (a new function each time), and
  every `--wave-seconds` a tenth of the files are deleted, then restored by the next wave;
- `--hooks` processes each run a hook-like step every ~`--hook-interval` s (uniformly 0..2x): open
  the store as a hook does (`open_store`: migrations checked, projections caught up), append 5
  events with source=hook in one `transaction` (BEGIN IMMEDIATE), close; every BEGIN IMMEDIATE is
  timed through the connection's trace callback (the lock wait);
- an MCP client (the SDK's Streamable HTTP client) sends `--qps` tool calls a second, open loop:
  search_symbols, get_module_contract, get_dependents, get_symbol, index_status and now and then
  get_context_pack.

Figures: callers that saw "database is locked" (hooks, MCP answers, the server's log: must be 0);
lock waits (the time each hook's BEGIN IMMEDIATE took: p50, p95, max, total); hook latency
(whole run and transaction, p50/p95); query latency p50/p95 (all and per tool); the write-ahead
log's largest size; events by source; whether the index settled equal to the tree.
Nothing of the corpus is committed to this project; vectors are off unless `--vectors`.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import textwrap
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import anyio

ANNALS = str(Path(sys.executable).parent / "annals")
LOCKED = "database is locked"
EVENTS_PER_HOOK = 5
MAX_IN_FLIGHT = 200  # open loop, but a stalled server must not pile up unbounded requests
SETTLE_SECONDS = 120.0
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
    "bench edit",
]
TASKS = [
    "json.loads should report the line and column of a trailing comma",
    "Add a timeout parameter to http.client.HTTPConnection.request",
    "shutil.copytree should skip broken symlinks when ignore_dangling_symlinks is set",
    "csv.DictWriter raises ValueError for extra keys; make the message list them",
]

HOOK = textwrap.dedent("""
    import json, random, sqlite3, sys, time, traceback
    from codeannals.store import DatabaseError, open_store, transaction, log
    from codeannals.store.projections import CORE, catch_up
    from codeannals.store.events import FileRemoved
    db, name, interval, until, out, events = sys.argv[1:7]
    interval, until, events = float(interval), float(until), int(events)
    runs, opens, txns, waits, commits, locked, errors, n = [], [], [], [], [], 0, [], 0
    rng = random.Random(name)
    traced = []  # (when, statement): a BEGIN IMMEDIATE lasts until the next statement starts
    while time.time() < until:
        time.sleep(rng.uniform(0, 2 * interval))
        started = time.perf_counter()
        try:
            conn = open_store(db, catch_up_now=False)  # open_store's own steps, with the catch-up traced
            try:
                traced.clear()
                conn.set_trace_callback(lambda sql: traced.append((time.perf_counter(), sql)))
                catch_up(conn, CORE)
                asked = time.perf_counter()
                with transaction(conn):
                    log.append(conn, [FileRemoved(f"bench-hooks/{name}/{n}-{i}.py") for i in range(events)],
                               source="hook")
                    appended = time.perf_counter()
                done = time.perf_counter()
                conn.set_trace_callback(None)
                waits.extend(traced[i + 1][0] - at for i, (at, sql) in enumerate(traced[:-1])
                             if sql.startswith("BEGIN IMMEDIATE"))
                opens.append(asked - started)
                txns.append(done - asked)
                commits.append(done - appended)  # COMMIT, and a WAL checkpoint when the log grew past its bound
            finally:
                conn.close()
            runs.append(time.perf_counter() - started)
            n += 1
        except (sqlite3.Error, DatabaseError) as exc:  # a hook reports its error and the commit goes on
            locked += "locked" in str(exc)
            errors.append(traceback.format_exc() if not errors else f"{type(exc).__name__}: {exc}")
    json.dump({"runs": runs, "opens": opens, "txns": txns, "waits": waits, "commits": commits, "locked": locked,
               "errors": errors[:20], "appended": n * events}, open(out, "w"))
""")


def git(repo: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_AUTHOR_NAME": "bench",
        "GIT_AUTHOR_EMAIL": "bench@example.com",
        "GIT_COMMITTER_NAME": "bench",
        "GIT_COMMITTER_EMAIL": "bench@example.com",
    }
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True, env=env).stdout


def stdlib_files(limit: int) -> tuple[Path, list[str]]:
    """Up to `limit` .py files of the standard library (library code first, then its tests)."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    found = [
        p.relative_to(stdlib).as_posix()
        for p in stdlib.rglob("*.py")
        if "site-packages" not in p.parts and "__pycache__" not in p.parts
    ]
    found.sort(key=lambda rel: ("test" in rel.split("/")[:-1] or "tests" in rel.split("/")[:-1], rel))
    return stdlib, found[:limit]


def copy_in(source: Path, dest: Path, rels: list[str]) -> None:
    for rel in rels:
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source / rel, target)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def ms(values: list[float]) -> str:
    if not values:
        return "no samples"
    return (
        f"p50 {percentile(values, 50) * 1000:.1f} ms, p95 {percentile(values, 95) * 1000:.1f} ms, "
        f"max {max(values) * 1000:.1f} ms (n={len(values)})"
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def server_cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process and its waited-for children (Linux /proc), else nan."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


class Editor(threading.Thread):
    """Atomic saves at a steady rate, and waves that delete a tenth of the files then restore them."""

    def __init__(
        self, repo: Path, source: Path, rels: list[str], rate: float, wave_seconds: float, until: float
    ) -> None:
        super().__init__(daemon=True)
        self.repo, self.source, self.rels = repo, source, rels
        self.rate, self.wave_seconds, self.until = rate, wave_seconds, until
        self.saves = self.deleted = self.restored = 0
        self.rng = random.Random(7)

    def run(self) -> None:
        removed: list[str] = []
        next_wave = time.time() + self.wave_seconds
        while time.time() < self.until:
            if time.time() >= next_wave:
                if removed:
                    copy_in(self.source, self.repo, removed)
                    self.restored += len(removed)
                    removed = []
                else:
                    removed = self.rng.sample(self.rels, len(self.rels) // 10)
                    for rel in removed:
                        (self.repo / rel).unlink(missing_ok=True)
                    self.deleted += len(removed)
                next_wave += self.wave_seconds
            rel = self.rng.choice(self.rels)
            path = self.repo / rel
            if path.exists():
                text = path.read_text("utf-8", "replace")
                scratch = path.with_name(f".{path.name}.bench-tmp")
                scratch.write_text(f"{text}\n\ndef bench_edit_{self.saves}():\n    return {self.saves}\n")
                os.replace(scratch, path)
                self.saves += 1
            time.sleep(1 / self.rate)
        if removed:
            copy_in(self.source, self.repo, removed)
            self.restored += len(removed)


class WalWatch(threading.Thread):
    def __init__(self, wal: Path) -> None:
        super().__init__(daemon=True)
        self.wal = wal
        self.max_bytes = 0
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.wait(0.1):
            try:
                self.max_bytes = max(self.max_bytes, self.wal.stat().st_size)
            except FileNotFoundError:
                pass


class Queries:
    """The MCP client's side: latencies per tool, errors by kind, calls that saw a locked database."""

    def __init__(self, paths: list[str]) -> None:
        self.paths = paths
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.errors: Counter[str] = Counter()
        self.error_samples: dict[str, str] = {}
        self.locked = 0
        self.crashed = 0  # the SDK's bare "Error executing tool NAME": the server log has the cause
        self.symbols: list[str] = []
        self.dropped = 0
        self.sent = 0

    def pick(self, rng: random.Random, i: int) -> tuple[str, dict[str, Any]]:
        if i % 50 == 0:
            return "index_status", {}
        if i % 25 == 0:
            return "get_context_pack", {"task": rng.choice(TASKS)}
        kind = rng.random()
        if kind < 0.4 or not self.symbols:
            return "search_symbols", {"query": rng.choice(SEARCHES), "limit": 10}
        if kind < 0.65:
            return "get_module_contract", {"path": rng.choice(self.paths)}
        if kind < 0.8:
            return "get_dependents", {"path": rng.choice(self.paths)}
        return "get_symbol", {"symbol": rng.choice(self.symbols)}

    async def run(self, url: str, qps: float, until: float) -> None:
        import httpx2
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared.exceptions import MCPError

        rng = random.Random(11)
        limiter = anyio.CapacityLimiter(MAX_IN_FLIGHT)

        async def one(client: Any, name: str, args: dict[str, Any]) -> None:
            async with limiter:
                started = time.perf_counter()
                try:
                    result = await client.call_tool(name, args)
                    text = " ".join(getattr(b, "text", "") for b in result.content)
                    if result.is_error:
                        self._error(f"{name}: tool error", text)
                        self.crashed += text.strip() == f"Error executing tool {name}"
                    elif name == "search_symbols" and result.structured_content:
                        self.symbols.extend(r["id"] for r in result.structured_content["results"][:3])
                        del self.symbols[:-500]
                except MCPError as exc:
                    text = exc.error.message
                    self._error(f"{name}: MCP error {exc.error.code}", text)
                except Exception as exc:  # noqa: BLE001 - a transport failure is a figure, not the end of the bench
                    text = f"{type(exc).__name__}: {exc}"
                    self._error(f"{name}: {type(exc).__name__}", text)
                self.latency[name].append(time.perf_counter() - started)
                self.locked += LOCKED in text

        # A connection for every call in flight, and answers waited for as long as a queue can make them: the SDK's
        # transport sends each call in a task of its own, and a pool or read timeout there ended the whole run.
        http = httpx2.AsyncClient(
            timeout=httpx2.Timeout(600, pool=None), limits=httpx2.Limits(max_connections=MAX_IN_FLIGHT)
        )
        async with http, Client(streamable_http_client(url, http_client=http)) as client:
            async with anyio.create_task_group() as tasks:
                next_at = time.perf_counter()
                i = 0
                while time.time() < until:
                    if limiter.borrowed_tokens >= MAX_IN_FLIGHT:
                        self.dropped += 1
                    else:
                        name, args = self.pick(rng, i)
                        tasks.start_soon(one, client, name, args)
                        self.sent += 1
                    i += 1
                    next_at += 1 / qps
                    await anyio.sleep(max(0.0, next_at - time.perf_counter()))

    def _error(self, kind: str, text: str) -> None:
        self.errors[kind] += 1
        self.error_samples.setdefault(kind, text[:300])


async def settle(url: str, tree_files: int, limit: float) -> tuple[float | None, dict[str, Any]]:
    """Seconds until the index has no pending files and as many files as the tree, or None."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    started = time.perf_counter()
    status: dict[str, Any] = {}
    http = httpx2.AsyncClient(timeout=120)
    async with http, Client(streamable_http_client(url, http_client=http)) as client:
        while time.perf_counter() - started < limit:
            status = (await client.call_tool("index_status", {})).structured_content or {}
            seen = (status.get("files_indexed") or 0) + (status.get("files_skipped") or 0)
            if status.get("freshness", {}).get("pending_files") == 0 and seen == tree_files:
                return time.perf_counter() - started, status
            await anyio.sleep(0.5)
    return None, status


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=600.0)
    parser.add_argument("--hooks", type=int, default=20)
    parser.add_argument("--hook-interval", type=float, default=1.0, help="mean seconds between a hook's runs")
    parser.add_argument("--qps", type=float, default=50.0)
    parser.add_argument("--edit-rate", type=float, default=5.0)
    parser.add_argument("--max-files", type=int, default=1500)
    parser.add_argument("--indexed-fraction", type=float, default=0.3)
    parser.add_argument("--wave-seconds", type=float, default=None, help="default: a fifth of --seconds")
    parser.add_argument("--vectors", action="store_true", help="keep the vector store following too")
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    if not args.vectors:
        os.environ["ANNALS_VECTORS"] = "off"
    work = args.work or Path(tempfile.mkdtemp(prefix="annals-load-"))
    repo = work / "repo"
    if repo.exists():
        shutil.rmtree(repo)
    repo.mkdir(parents=True)
    server: subprocess.Popen[bytes] | None = None
    hooks: list[subprocess.Popen[bytes]] = []
    try:
        source, rels = stdlib_files(args.max_files)
        first = sorted(random.Random(3).sample(rels, int(len(rels) * args.indexed_fraction)))
        rest = sorted(set(rels) - set(first))
        git(repo, "init", "-q")
        copy_in(source, repo, first)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "part of the standard library")
        started = time.perf_counter()
        subprocess.run([ANNALS, "-C", str(repo), "index"], check=True, capture_output=True)
        print(
            f"corpus: {len(rels)} files from {source}; {len(first)} indexed first "
            f"({time.perf_counter() - started:.1f} s), {len(rest)} copied in for the watcher"
        )
        db = repo / ".annals" / "annals.db"
        start_seq = sqlite3.connect(db).execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0]

        port = free_port()
        url = f"http://127.0.0.1:{port}/mcp"
        server_err = (work / "serve.stderr").open("wb")
        server = subprocess.Popen(
            [ANNALS, "-C", str(repo), "serve", "--port", str(port)], stdout=subprocess.DEVNULL, stderr=server_err
        )
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"annals serve did not start: {(work / 'serve.stderr').read_text()}") from None
                time.sleep(0.1)

        until = time.time() + args.seconds
        wal = WalWatch(Path(f"{db}-wal"))
        wal.start()
        outs = [work / f"hook{n}.json" for n in range(args.hooks)]
        hooks = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    HOOK,
                    str(db),
                    f"h{n}",
                    str(args.hook_interval),
                    str(until),
                    str(outs[n]),
                    str(EVENTS_PER_HOOK),
                ],
                stderr=subprocess.PIPE,
            )
            for n in range(args.hooks)
        ]
        copy_in(source, repo, rest)  # the watcher's bulk batch, while everything else starts
        editor = Editor(repo, source, rels, args.edit_rate, args.wave_seconds or max(10.0, args.seconds / 5), until)
        editor.start()
        queries = Queries(first)
        print(
            f"running {args.seconds:.0f} s: watcher, {args.hooks} hooks, {args.qps:.0f} queries/s over HTTP "
            f"(shared machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f} at start)",
            flush=True,
        )
        anyio.run(queries.run, url, args.qps, until)
        editor.join()
        hook_stderr = [h.communicate(timeout=300)[1].decode("utf-8", "replace") for h in hooks]
        cpu = server_cpu_seconds(server.pid)
        load_end = os.getloadavg()[0]
        settled, status = anyio.run(settle, url, len(rels), SETTLE_SECONDS)
        wal.stop.set()
        report(args, work, db, start_seq, queries, outs, hooks, hook_stderr, editor, wal, settled, status, len(rels))
        print(
            f"machine: {os.cpu_count()} cores shared with other work; load {load_end:.2f} at the end; the server "
            f"process used {cpu:.0f} CPU seconds in {args.seconds:.0f} s"
        )
    finally:
        for proc in hooks:
            if proc.poll() is None:
                proc.kill()
        if server is not None and server.poll() is None:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=60)
            except subprocess.TimeoutExpired:
                server.kill()
        if args.keep or args.work:
            print(f"kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


def report(
    args: argparse.Namespace,
    work: Path,
    db: Path,
    start_seq: int,
    queries: Queries,
    outs: list[Path],
    hooks: list[subprocess.Popen[bytes]],
    hook_stderr: list[str],
    editor: Editor,
    wal: WalWatch,
    settled: float | None,
    status: dict[str, Any],
    tree_files: int,
) -> None:
    results = [json.loads(p.read_text()) for p in outs if p.exists()]
    runs = [x for r in results for x in r["runs"]]
    txns = [x for r in results for x in r["txns"]]
    waits = [x for r in results for x in r["waits"]]
    opens = [x for r in results for x in r["opens"]]
    commits = [x for r in results for x in r["commits"]]
    hook_locked = sum(r["locked"] for r in results) + sum(LOCKED in e for e in hook_stderr)
    hook_errors = [e for r in results for e in r["errors"]] + [e.strip()[-300:] for e in hook_stderr if e.strip()]
    log_text = (db.parent / "logs" / "serve.log").read_text("utf-8", "replace")
    server_locked = sum(LOCKED in line for line in log_text.splitlines())
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    by_source = dict(conn.execute("SELECT source, COUNT(*) FROM events WHERE seq > ? GROUP BY source", (start_seq,)))
    conn.close()
    calls = sum(len(v) for v in queries.latency.values())
    print("\n== callers that saw 'database is locked' (target 0)")
    print(
        f"hooks: {hook_locked}   MCP answers: {queries.locked}   server log lines: {server_locked}   "
        f"(MCP calls that crashed, cause in the server log: {queries.crashed})"
    )
    print("\n== hooks")
    print(
        f"processes: {len(hooks)} (exit codes {sorted(Counter(h.returncode for h in hooks).items())}), "
        f"runs: {len(runs)}, events appended: {sum(r['appended'] for r in results)}"
    )
    print(f"hook run (open_store + catch-up + append + close): {ms(runs)}")
    print(f"  of which open_store (migrations checked, projections caught up): {ms(opens)}")
    print(f"append transaction (BEGIN IMMEDIATE .. COMMIT): {ms(txns)}")
    print(f"  of which COMMIT and the WAL bound (a TRUNCATE checkpoint past 8 MB): {ms(commits)}")
    mean = statistics.fmean(waits) * 1000 if waits else float("nan")
    print(f"lock waits (each BEGIN IMMEDIATE of the hooks: catch-up and append): {ms(waits)}")
    print(
        f"  mean {mean:.2f} ms, total {sum(waits):.1f} s, {sum(w > 0.1 for w in waits)} over 100 ms, "
        f"{sum(w > 1 for w in waits)} over 1 s"
    )
    if hook_errors:
        print(f"hook errors ({len(hook_errors)}), first: {hook_errors[0]}")
    print("\n== MCP over HTTP")
    print(
        f"sent {queries.sent} calls in {args.seconds:.0f} s ({queries.sent / args.seconds:.1f}/s, target "
        f"{args.qps:.0f}/s), answered {calls}, dropped (over {MAX_IN_FLIGHT} in flight) {queries.dropped}"
    )
    print(f"all tools: {ms([x for v in queries.latency.values() for x in v])}")
    for name, values in sorted(queries.latency.items()):
        print(f"  {name:<20} {ms(values)}")
    for kind, count in queries.errors.most_common():
        print(f"  error {kind}: {count} (e.g. {queries.error_samples[kind][:160]!r})")
    print("\n== watcher and database")
    print(f"editor: {editor.saves} saves, {editor.deleted} deleted and {editor.restored} restored in waves")
    print(f"events appended during the run by source: {by_source}")
    print(
        f"write-ahead log: largest {wal.max_bytes / 1e6:.1f} MB, now "
        f"{Path(f'{db}-wal').stat().st_size / 1e6 if Path(f'{db}-wal').exists() else 0:.1f} MB; "
        f"database {db.stat().st_size / 1e6:.1f} MB"
    )
    if settled is None:
        print(
            f"index did NOT settle within {SETTLE_SECONDS:.0f} s after the run: files_indexed "
            f"{status.get('files_indexed')}, skipped {status.get('files_skipped')} for {tree_files} files, pending "
            f"{status.get('freshness', {}).get('pending_files')}"
        )
    else:
        print(
            f"index settled {settled:.1f} s after the run: {status.get('files_indexed')} files indexed and "
            f"{status.get('files_skipped')} skipped = the tree's {tree_files}, nothing pending"
        )
    errors_in_log = [line for line in log_text.splitlines() if " ERROR " in line or "Traceback" in line]
    print(
        f"server log: {len(errors_in_log)} ERROR lines"
        + (f", first: {errors_in_log[0][:200]}" if errors_in_log else "")
    )


if __name__ == "__main__":
    main()
