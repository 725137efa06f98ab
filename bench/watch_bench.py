"""The background watcher on a copy of the CPython standard library: latency, storms, memory.

    python bench/watch_bench.py [--old DIR] [--new DIR] [--copies N] [--edits 200]
                                [--memory-seconds 120] [--edit-rate 5] [--work DIR] [--keep]

A scratch git repository holds `--copies` copies of one standard library (`--old`, default this
interpreter's) on branch `old`, and of another (`--new`, default the newest other CPython found
under ~/.pyenv) on branch `new`, so the two revisions are thousands of files apart. Nothing of it
is committed to this project. Vectors are off: this measures the watcher and the indexer.

Figures:
- save to queryable: an atomic save (temporary file + rename) of a file that gains a new function,
  until a separate connection finds the symbol; over `--edits` edits: p50, p95, and p95 beyond
  the debounce.
- checkout storm: `git checkout new`, until the index equals a fresh index of the same tree
  (files and symbols tables compared in full).
- memory: RSS over `--memory-seconds` of edits at `--edit-rate` per second; start, end, peak and
  the trend (least-squares slope after the first quarter, MB per minute).

Targets (issue 6): p95 under 300 ms beyond the debounce; storm consistent within 10 s for 5k
files; no memory growth.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from pathlib import Path

os.environ["ANNALS_VECTORS"] = "off"

from codeannals.indexer.run import index_tree  # noqa: E402
from codeannals.indexer.watching.watch import DEBOUNCE_SECONDS, Watcher  # noqa: E402
from codeannals.store import open_store  # noqa: E402

IGNORE = shutil.ignore_patterns("site-packages", "__pycache__", "*.pyc", "lib-dynload", "config-*")
QUERY_POLL_SECONDS = 0.002


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


def other_stdlib(old: Path) -> Path | None:
    """The newest CPython standard library under ~/.pyenv that is not `old`."""
    found = []
    for lib in Path.home().glob(".pyenv/versions/*/lib/python3.*"):
        if (lib / "os.py").is_file() and lib.resolve() != old.resolve():
            found.append((tuple(int(p) for p in lib.name.removeprefix("python").split(".")), lib))
    return max(found)[1] if found else None


def fill(repo: Path, stdlib: Path, copies: int) -> None:
    for entry in repo.iterdir():
        if entry.name not in (".git", ".annals"):
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
    for i in range(copies):
        shutil.copytree(stdlib, repo / f"lib{i}", ignore=IGNORE, symlinks=True)


def build_repo(work: Path, old: Path, new: Path, copies: int) -> Path:
    repo = work / "repo"
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "old")
    fill(repo, old, copies)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", f"old: {old}")
    git(repo, "checkout", "-q", "-b", "new")
    fill(repo, new, copies)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", f"new: {new}")
    git(repo, "checkout", "-q", "old")
    return repo


def tables(db: Path) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    conn = sqlite3.connect(db)
    try:
        files = conn.execute(
            "SELECT path, status, reason, language, module, content_hash, size, lines,"
            " module_doc, declared_api FROM files ORDER BY path"
        ).fetchall()
        symbols = conn.execute("SELECT * FROM symbols ORDER BY id").fetchall()
    finally:
        conn.close()
    return files, symbols


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def python_files(repo: Path) -> list[Path]:
    """Smallish Python files to edit: the saves an agent or an editor makes all day."""
    return sorted(p for p in repo.glob("lib0/**/*.py") if 200 < p.stat().st_size < 20_000 and "test" not in p.parts)


def save_with(path: Path, name: str) -> None:
    text = path.read_text("utf-8", "surrogateescape")
    scratch = path.with_name(f".{path.name}.bench-swp")
    scratch.write_text(f"{text}\n\ndef {name}():\n    return {len(text)}\n", "utf-8", "surrogateescape")
    os.replace(scratch, path)


def until_queryable(conn: sqlite3.Connection, name: str, timeout: float = 30.0) -> float:
    deadline = time.perf_counter() + timeout
    while conn.execute("SELECT 1 FROM symbols WHERE name = ? LIMIT 1", (name,)).fetchone() is None:
        if time.perf_counter() > deadline:
            raise TimeoutError(f"{name} never became queryable")
        time.sleep(QUERY_POLL_SECONDS)
    return time.perf_counter()


def bench_latency(repo: Path, db: Path, edits: int, rng: random.Random) -> dict[str, float]:
    files = python_files(repo)
    reader = sqlite3.connect(db)
    latencies = []
    try:
        for i in range(edits):
            name = f"bench_latency_{i}"
            path = rng.choice(files)
            started = time.perf_counter()
            save_with(path, name)
            latencies.append(until_queryable(reader, name) - started)
            time.sleep(rng.uniform(0.0, 0.05))  # edits apart, so each batch holds one save
    finally:
        reader.close()
    ms = [x * 1000 for x in latencies]
    return {
        "p50": percentile(ms, 0.5),
        "p95": percentile(ms, 0.95),
        "max": max(ms),
        "p95_beyond_debounce": percentile(ms, 0.95) - DEBOUNCE_SECONDS * 1000,
    }


def bench_storm(repo: Path, db: Path, watcher: Watcher, work: Path) -> dict[str, object]:
    changed = len(git(repo, "diff", "--name-only", "old", "new").splitlines())
    batches_before = watcher.status()["batches"]
    started = time.perf_counter()
    git(repo, "checkout", "-q", "-f", "new")  # -f: the latency run's saves go with the old revision
    checkout_s = time.perf_counter() - started
    # Done when the watcher has run a batch since, holds nothing pending and has not begun another.
    while True:
        state = watcher.status()
        if state["batches"] > batches_before and not state["pending_paths"] and not state["reconcile_pending"]:
            settled = time.perf_counter()
            time.sleep(0.5)
            again = watcher.status()
            if again["batches"] == state["batches"] and not again["pending_paths"] and not again["reconcile_pending"]:
                break
        time.sleep(0.02)
    consistent_s = settled - started
    batches = watcher.status()["batches"] - batches_before
    last = watcher.status()["last_batch"]
    fresh_db = work / "fresh-new.db"
    conn = open_store(fresh_db)
    fresh_started = time.perf_counter()
    report = index_tree(repo, conn)
    fresh_s = time.perf_counter() - fresh_started
    conn.close()
    (live_files, live_symbols), (fresh_files, fresh_symbols) = tables(db), tables(fresh_db)
    differ = sorted(set(live_files) ^ set(fresh_files))
    differ_symbols = sorted(set(live_symbols) ^ set(fresh_symbols))
    return {
        "files": report.files,
        "changed": changed,
        "checkout_s": checkout_s,
        "consistent_s": consistent_s,
        "batches": batches,
        "last_batch": last,
        "equal_to_fresh": not differ and not differ_symbols,
        "fresh_index_s": fresh_s,
        "differ": differ[:6],
        "differ_symbols": differ_symbols[:6],
        "differ_counts": (len(differ), len(differ_symbols)),
    }


def bench_memory(repo: Path, db: Path, seconds: float, rate: float, rng: random.Random) -> dict[str, float]:
    files = python_files(repo)
    reader = sqlite3.connect(db)
    samples: list[tuple[float, float]] = []
    started = time.perf_counter()
    i = 0
    next_sample = started
    try:
        while (now := time.perf_counter()) - started < seconds:
            if now >= next_sample:
                samples.append((now - started, rss_mb()))
                next_sample += max(seconds / 40, 1.0)
            save_with(rng.choice(files), f"bench_memory_{i}")
            i += 1
            time.sleep(1 / rate)
        until_queryable(reader, f"bench_memory_{i - 1}")
        samples.append((time.perf_counter() - started, rss_mb()))
    finally:
        reader.close()
    steady = samples[len(samples) // 4 :]
    slope = (
        statistics.linear_regression([t for t, _ in steady], [m for _, m in steady]).slope * 60
        if len(steady) >= 2
        else float("nan")
    )
    return {
        "edits": i,
        "start_mb": samples[0][1],
        "end_mb": samples[-1][1],
        "peak_mb": max(m for _, m in samples),
        "slope_mb_per_min": slope,
        "samples": len(samples),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--old", type=Path, default=Path(sysconfig.get_paths()["stdlib"]))
    parser.add_argument("--new", type=Path, default=None, help="default: the newest other CPython under ~/.pyenv")
    parser.add_argument("--copies", type=int, default=2, help="copies of the standard library in the tree")
    parser.add_argument("--edits", type=int, default=200)
    parser.add_argument("--memory-seconds", type=float, default=120.0)
    parser.add_argument("--edit-rate", type=float, default=5.0, help="edits per second in the memory run")
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    new = args.new or other_stdlib(args.old)
    if new is None:
        parser.error("no second standard library found: pass --new DIR (e.g. an unpacked CPython source's Lib/)")
    work = args.work or Path(tempfile.mkdtemp(prefix="annals-watch-bench-"))
    rng = random.Random(6)
    try:
        print(f"corpus: {args.copies} x {args.old} (branch old) and {args.copies} x {new} (branch new)")
        repo = build_repo(work, args.old, new, args.copies)
        db = repo / ".annals" / "annals.db"
        started = time.perf_counter()
        watcher = Watcher(repo, db, kind="library")
        watcher.start()
        watcher.flush(timeout=3600)
        state = watcher.status()
        print(
            f"start-up: cold index of {state['last_batch']['paths']} files (the start-up reconcile) in "
            f"{time.perf_counter() - started:.1f} s, watching by {state['mode']}"
        )
        try:
            lat = bench_latency(repo, db, args.edits, rng)
            print(
                f"save to queryable over {args.edits} edits: p50 {lat['p50']:.0f} ms, p95 {lat['p95']:.0f} ms, "
                f"max {lat['max']:.0f} ms; p95 beyond the {DEBOUNCE_SECONDS * 1000:.0f} ms debounce "
                f"{lat['p95_beyond_debounce']:.0f} ms (target < 300)"
            )
            storm = bench_storm(repo, db, watcher, work)
            print(
                f"checkout storm: {storm['changed']} of {storm['files']} files differ; checkout "
                f"{storm['checkout_s']:.1f} s; index equal to a fresh index "
                f"{'YES' if storm['equal_to_fresh'] else 'NO'} after {storm['consistent_s']:.1f} s from the "
                f"checkout's start ({storm['batches']} batch(es); a fresh cold index of the same tree takes "
                f"{storm['fresh_index_s']:.1f} s) (target < 10 s for 5k files)"
            )
            print(f"  last batch: {storm['last_batch']}")
            if not storm["equal_to_fresh"]:
                print(f"  rows that differ (files, symbols): {storm['differ_counts']}; e.g.")
                for row in storm["differ"] + storm["differ_symbols"]:
                    print(f"    {str(row)[:300]}")
            mem = bench_memory(repo, db, args.memory_seconds, args.edit_rate, rng)
            print(
                f"memory over {args.memory_seconds:.0f} s ({mem['edits']} edits): RSS {mem['start_mb']:.0f} MB "
                f"-> {mem['end_mb']:.0f} MB, peak {mem['peak_mb']:.0f} MB; trend after warm-up "
                f"{mem['slope_mb_per_min']:+.2f} MB/min (target: no growth)"
            )
            print(f"threads while watching: {threading.active_count()}")
        finally:
            watcher.stop()
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
