"""Index the CPython standard library and print figures against universal-ctags in the same run.

    python bench/index_bench.py [--corpus DIR | --copies N] [--cold-only] [--keep]

Figures: a cold index's wall time (and its ratio to `ctags -R`) until search-ready (`annals index`
returns; issue 16's tier 1) and until complete (the background completer done; and `annals index
--wait` in one process, tier 2), unchanged re-index, one changed file until queryable, peak RSS,
database size, and Python symbol recall/precision against `ast`. Targets (issues 2 and 16):
search-ready <= 3x ctags, complete <= 6x; unchanged < 1 s; one file queryable < 100 ms; recall
and precision >= 99.5%.

For scale, it also prints the floor any tree-sitter indexer stands on: parsing every file the
indexer parses, nothing else (no queries, no hashing, no storage), on all cores; and where a cold
index's CPU goes (parsing, extracting, writing), with the wall time parsing and writing alone
would take on all cores, a bound no faster extraction can beat.
"""

from __future__ import annotations

import argparse
import ast
import collections
import concurrent.futures
import json
import multiprocessing
import os
import re
import resource
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ANNALS = str(Path(sys.executable).parent / "annals")
CONSTANT_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")


def copy_stdlib(dest: Path, copies: int = 1) -> Path:
    """The standard library at `dest`, or `copies` of it side by side under it (a tree of 20k files: 10)."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    ignore = shutil.ignore_patterns("site-packages", "__pycache__", "*.pyc")
    if copies == 1:
        shutil.copytree(stdlib, dest, ignore=ignore, symlinks=True)
    for i in range(copies if copies > 1 else 0):
        shutil.copytree(stdlib, dest / f"copy{i}", ignore=ignore, symlinks=True)
    return dest


def peak_rss_mib(pid: int) -> float | None:
    """A live process's peak resident memory (Linux), None once it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def _parse_files(paths: list[str]) -> int:
    from codeannals.indexer.parsing.parse import ParseFailed, language_for, parse

    for path in paths:
        try:
            parse(Path(path).read_bytes(), language_for(path) or "")
        except ParseFailed:
            pass  # the indexer gives up on it the same way, after spending the same time
    return len(paths)


def parse_floor(root: Path) -> tuple[float, int]:
    """Seconds to parse (only parse) every file with a grammar, split over the cores as the indexer does."""
    from codeannals.indexer.parsing.parse import language_for

    paths = [str(p) for p in root.rglob("*") if p.is_file() and not p.is_symlink() and language_for(p.name)]
    workers = os.cpu_count() or 1
    chunks = [paths[i::workers] for i in range(workers)]
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(workers, mp_context=context) as pool:
        pool.submit(int).result()  # workers up before the clock starts
        started = time.perf_counter()
        parsed = sum(pool.map(_parse_files, chunks))
        return time.perf_counter() - started, parsed


def cpu_split(root: Path, db: Path, outline_from: int | None = None) -> tuple[float, float]:
    """(writer, parsers) CPU seconds of a cold index run in this process: the writer is this
    process, the parsers its pool's processes. With `outline_from=1`, tier 1 alone (outlines)."""
    from codeannals.indexer.run import index_tree
    from codeannals.store import open_store

    conn = open_store(db)
    writer, parsers = _self_cpu(), _children_cpu()
    index_tree(root, conn, outline_from=outline_from)
    conn.close()
    return _self_cpu() - writer, _children_cpu() - parsers


def until_complete(db: Path, started: float, worker: int | None, timeout: float = 1800.0) -> tuple[float, float]:
    """Seconds from `started` until no file of the index is outlined only (the background completer
    done), and the completer's peak RSS in MiB (sampled while it ran)."""
    import sqlite3

    conn = sqlite3.connect(db, timeout=30)
    peak = 0.0
    if "tier" not in {row[1] for row in conn.execute("PRAGMA table_info(files)")}:
        return time.perf_counter() - started, peak  # code before the tiers: complete when it returns
    try:
        while time.perf_counter() - started < timeout:
            peak = max(peak, (peak_rss_mib(worker) if worker else None) or 0.0)
            if not conn.execute("SELECT COUNT(*) FROM files WHERE tier = 1").fetchone()[0]:
                return time.perf_counter() - started, peak
            time.sleep(0.05)
    finally:
        conn.close()
    raise RuntimeError(f"the index was not complete after {timeout:.0f}s")


def _self_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _children_cpu() -> float:
    """User and system seconds of the child processes waited for so far (the indexer's workers too)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(argv: list[str], cwd: Path) -> tuple[float, str]:
    started = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=True)
    return time.perf_counter() - started, proc.stdout


def ast_symbols(root: Path) -> tuple[collections.Counter, set[str]]:
    """(path, qualname, kind) of every def, class and module constant, as Python's own parser sees them."""
    found: collections.Counter = collections.Counter()
    parsed: set[str] = set()
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        try:
            tree = ast.parse(path.read_bytes())
        except (SyntaxError, ValueError, UnicodeDecodeError, RecursionError):
            continue
        parsed.add(rel)
        for statement in tree.body:  # module constants, as data/queries/python.scm takes them (PEP 8 names)
            target = (
                statement.targets[0]
                if isinstance(statement, ast.Assign)
                else statement.target
                if isinstance(statement, ast.AnnAssign)
                else None
            )
            if isinstance(target, ast.Name) and CONSTANT_NAME.match(target.id):
                found[(rel, target.id, "const")] += 1
        stack: list[tuple[ast.AST, str, bool]] = [(tree, "", False)]
        while stack:
            node, prefix, in_class = stack.pop()
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    qual = f"{prefix}.{child.name}" if prefix else child.name
                    kind = "class" if isinstance(child, ast.ClassDef) else "method" if in_class else "function"
                    found[(rel, qual, kind)] += 1
                    stack.append((child, qual, isinstance(child, ast.ClassDef)))
                else:
                    stack.append((child, prefix, in_class))
    return found, parsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, help="index this tree instead of a copy of the stdlib")
    parser.add_argument("--copies", type=int, default=1, help="index this many copies of the stdlib side by side")
    parser.add_argument("--cold-only", action="store_true", help="only the cold index figures and memory (large trees)")
    parser.add_argument("--keep", action="store_true", help="keep the scratch copy")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="annals-bench-"))
    try:
        root = args.corpus or copy_stdlib(scratch / "stdlib", args.copies)
        files = sum(1 for _ in root.rglob("*.py"))
        print(f"corpus: {root} ({files} .py files)")
        ctags = shutil.which("ctags") or shutil.which("universal-ctags")
        ctags_s = None
        if ctags:
            ctags_s, _ = timed([ctags, "-R", "-f", str(scratch / "tags"), "."], root)
            print(f"ctags -R:               {ctags_s:7.2f} s")
        floor_cpu = _children_cpu()
        floor_s, parsed = parse_floor(root)
        floor_cpu = _children_cpu() - floor_cpu
        floor_ratio = f"  ({floor_s / ctags_s:.1f}x ctags)" if ctags_s else ""
        print(f"tree-sitter parse only: {floor_s:7.2f} s{floor_ratio}  {parsed} files on {os.cpu_count()} cores")
        env_db = scratch / "annals.db"
        argv = [ANNALS, "--db", str(env_db), "-C", str(root), "index", "--no-vectors", "--json"]

        def versus_ctags(seconds: float) -> str:
            return f"  ({seconds / ctags_s:.1f}x ctags)" if ctags_s else ""

        started = time.perf_counter()
        ready_s, out = timed(argv, root)
        report = json.loads(out)
        print(
            f"cold index, search-ready: {ready_s:5.2f} s{versus_ctags(ready_s)}  {report['indexed']} files "
            f"({report.get('outlined', 0)} outlined), {report['symbols']} symbols, {report['events']} events"
        )
        cli_rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        complete_s, completer_rss = until_complete(env_db, started, report.get("complete", {}).get("worker_pid"))
        print(f"  complete (background):  {complete_s:5.2f} s{versus_ctags(complete_s)}")
        print(f"  peak RSS: annals index {cli_rss:.1f} MiB, the completer {completer_rss:.1f} MiB (sampled)")
        wait_argv = [ANNALS, "--db", str(scratch / "wait.db"), "-C", str(root), "index", "--no-vectors", "--wait"]
        cpu_before = _children_cpu()
        cold_s, _ = timed([*wait_argv, "--json"], root)
        cold_cpu = _children_cpu() - cpu_before
        print(f"  complete (--wait):      {cold_s:5.2f} s{versus_ctags(cold_s)}  one pass, in one process")
        # Against wall time on all cores: how much of the machine the pipeline kept busy.
        print(
            f"  CPU of every process: {cold_cpu:7.2f} s  ({cold_cpu / cold_s / (os.cpu_count() or 1):.0%} "
            f"of {os.cpu_count()} cores)"
        )
        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(f"peak RSS (CLI):         {rss:7.1f} MiB")
        if args.cold_only:
            return
        again_s, out = timed(argv, root)
        print(f"unchanged re-index:     {again_s:7.2f} s  ({json.loads(out)['events']} events)")
        target = root / "json" / "decoder.py"
        if target.exists():
            target.write_text(target.read_text() + "\n\ndef bench_added_symbol():\n    return 1\n")
            one_s, out = timed(argv, root)
            print(f"one changed file (CLI): {one_s:7.2f} s  ({json.loads(out)['events']} events)")
            sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
            from codeannals.indexer.run import index_tree
            from codeannals.store import open_store
            from codeannals.store.queries import search

            conn = open_store(env_db)
            target.write_text(target.read_text() + "\n\ndef bench_second_symbol():\n    return 2\n")
            started = time.perf_counter()
            index_tree(root, conn, only=["json/decoder.py"])
            hits = search(conn, "bench second symbol", limit=1)
            inproc_ms = (time.perf_counter() - started) * 1000
            print(f"one file queryable:     {inproc_ms:7.1f} ms (in process, found={bool(hits)})")
        size = sum(p.stat().st_size for p in scratch.glob("annals.db*")) / 2**20
        print(f"database size:          {size:7.1f} MiB")

        # Where a cold index's CPU goes, and what the wall time would be if extraction (queries,
        # hashes, calls) cost nothing: parsing and writing alone, spread over every core.
        writer_cpu, parsers_cpu = cpu_split(root, scratch / "split.db")
        cores = os.cpu_count() or 1
        print(
            f"cold index CPU, in process: parsing {floor_cpu:.2f} s (the floor's), extracting "
            f"{parsers_cpu - floor_cpu:.2f} s, writing {writer_cpu:.2f} s"
        )
        bound = (floor_cpu + writer_cpu) / cores
        bound_ratio = f" ({bound / ctags_s:.1f}x ctags)" if ctags_s else ""
        print(f"  parsing and writing alone on {cores} cores: {bound:.2f} s{bound_ratio}")
        writer_cpu, parsers_cpu = cpu_split(root, scratch / "outline.db", outline_from=1)
        print(
            f"search-ready CPU (outlines), in process: parsing {floor_cpu:.2f} s, extracting "
            f"{parsers_cpu - floor_cpu:.2f} s, writing {writer_cpu:.2f} s"
        )

        expected, parsed = ast_symbols(root)
        conn = __import__("sqlite3").connect(env_db)
        got: collections.Counter = collections.Counter()
        for path, qual, kind in conn.execute("SELECT path, qualname, kind FROM symbols WHERE language = 'python'"):
            if path in parsed:
                got[(path, qual, kind)] += 1
        true_pos = sum((expected & got).values())
        recall = true_pos / max(1, sum(expected.values()))
        precision = true_pos / max(1, sum(got.values()))
        print(
            f"python symbols vs ast:  recall {recall:.4%}  precision {precision:.4%}  "
            f"({sum(expected.values())} by ast, {sum(got.values())} by annals)"
        )
        misses = list((expected - got).elements())[:5]
        extras = list((got - expected).elements())[:5]
        if misses:
            print(f"  e.g. missed: {misses}")
        if extras:
            print(f"  e.g. extra:  {extras}")
    finally:
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)
        else:
            print(f"kept {scratch}")


if __name__ == "__main__":
    os.environ.pop("ANNALS_DB", None)
    main()
