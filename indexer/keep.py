"""Once the index is complete, every file content's words (store/bodies.py), every symbol's callers, then every
module's tests and facts, answered and kept (store/kept.py says why and when they are read): the last step of `annals
index`, in the foreground or in the background worker that completes it; and, where a watcher keeps the index fresh,
in a process of their own once the index has been still for QUIET_SECONDS (indexer/watching/watch.py), so that the
answers after an edit come from kept answers again.

Run as `python -m codeannals.indexer.keep --root R --db D`.
"""

from __future__ import annotations

import argparse
import logging
import os
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ..store import testmap
from ..store.bodies import keep_words
from ..store.callgraph import KEPT_LIMIT, callers, kept_form
from ..store.db import files_stamp, forget_held
from ..store.graph import import_graph
from ..store.kept import CALLERS, MODULE_FACTS, MODULE_TESTS, keep, kinds_standing, standing
from ..store.lock import WriterLock
from ..store.lookups import NotFound, every_symbol, indexed_paths, outlined_count
from ..store.modulefacts import made_facts
from ..store.resolver import shared_resolver
from ..store.symbol import SymbolRow
from .detached import start_detached

log = logging.getLogger(__name__)

PROGRESS_EVERY = 500  # symbols or modules between progress reports
# How long the index stays still after a change before a watcher has the answers kept again: an edit comes in bursts,
# and keeping them takes a while (sqlalchemy's 36,728 symbols and 934 modules: ~45 s of one core).
QUIET_SECONDS = 20.0
WORKER_MODULE = "codeannals.indexer.keep"

Progress = Callable[[int, int], None]


def keep_answers(
    conn: sqlite3.Connection, root: Path, db_path: Path, progress: Progress | None = None
) -> dict[str, Any]:
    """Work out every kind of kept answer for the database at `db_path` (of the tree at `root`) and keep them:
    {"state": "kept", "symbols", "modules", "words", "seconds"} ("words": the files tokenized anew); "standing" when
    the kept ones are still exact (the words of new contents kept all the same); "incomplete" while files wait for their
    calls, "overtaken" when a file changed while they were made (what was kept before that stays: the next `annals
    index` tries again). One process at a time makes them (`annals index`, its background worker, a watcher's
    keeper): the others wait, and then find them standing."""
    lock = WriterLock(_lock_path(db_path))
    lock.acquire(blocking=True)
    try:
        started = time.perf_counter()
        words = keep_words(conn, root)
        if all(kinds_standing(conn).values()):
            return {"state": "standing", "words": words}
        if outlined_count(conn):
            return {"state": "incomplete", "words": words}
        made_at = files_stamp(conn)
        symbols = every_symbol(conn)
        paths = sorted(indexed_paths(conn))
        total = len(symbols) + len(paths)
        if not standing(conn, CALLERS) and not keep(conn, CALLERS, _callers(conn, symbols, progress, total), made_at):
            return {"state": "overtaken"}
        forget_held(conn)  # what classifying every call site left in memory: the walks read the kept callers
        facts: list[tuple[str, dict[str, Any]]] = []
        tests = keep(conn, MODULE_TESTS, _module_tests(conn, paths, facts, progress, len(symbols), total), made_at)
        if not tests or not keep(conn, MODULE_FACTS, facts, made_at):
            return {"state": "overtaken"}
        return {
            "state": "kept",
            "symbols": len(symbols),
            "modules": len(facts),
            "words": words,
            "seconds": round(time.perf_counter() - started, 2),
        }
    finally:
        lock.release()


def _callers(
    conn: sqlite3.Connection, symbols: list[SymbolRow], progress: Progress | None, total: int
) -> Iterator[tuple[str, list[list[Any]]]]:
    """Each symbol's callers, one at a time: `keep` packs each before the next is made, and the resolver forgets it
    (sqlalchemy's 832,474 callers held whole took the process to 793 MB)."""
    resolver = shared_resolver(conn)
    for n, symbol in enumerate(symbols, 1):
        yield symbol["id"], kept_form(callers(conn, symbol, limit=KEPT_LIMIT, resolver=resolver))
        resolver.callers_of.pop((symbol["id"], KEPT_LIMIT), None)
        if progress is not None and (n % PROGRESS_EVERY == 0 or n == len(symbols)):
            progress(n, total)


def _module_tests(
    conn: sqlite3.Connection,
    paths: list[str],
    facts: list[tuple[str, dict[str, Any]]],
    progress: Progress | None,
    done: int,
    total: int,
) -> Iterator[tuple[str, list[list[Any]]]]:
    """Each module's tests as a context pack asks for them, and its facts into `facts` (a file that is not a module,
    `setup.cfg`, has neither)."""
    graph, resolver = import_graph(conn), shared_resolver(conn)
    for n, path in enumerate(paths, 1):
        try:
            facts.append((path, made_facts(conn, graph, path)))
        except NotFound:
            continue
        yield path, testmap.kept_form(testmap.module_tests_held(conn, graph, path, testmap.PACK_TESTS))
        resolver.callers_of.clear()  # read again from the kept callers where needed: all of them held took 654 MB
        if progress is not None and (n % PROGRESS_EVERY == 0 or n == len(paths)):
            progress(done + n, total)


def start_keeping(root: Path, db_path: Path) -> int | None:
    """A detached process keeping the answers (a process, not a thread: a server's answers must not wait on it for
    the interpreter); its pid, or None while one is at it already."""
    if WriterLock(_lock_path(db_path)).owner() is not None:
        return None
    argv = [sys.executable, "-m", WORKER_MODULE, "--root", str(root), "--db", str(db_path)]
    return start_detached(argv, db_path.parent / "logs" / "kept.log").pid


def main(argv: list[str] | None = None) -> int:
    """Keep the answers of every kind."""
    from ..store import open_store

    parser = argparse.ArgumentParser(prog=WORKER_MODULE, description=main.__doc__)
    parser.add_argument("--root", required=True, type=Path)
    parser.add_argument("--db", required=True, type=Path)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format=f"%(asctime)s kept[{os.getpid()}] %(levelname)s %(message)s")
    conn = open_store(args.db)
    try:
        log.info("kept: %s", keep_answers(conn, args.root, args.db))
    finally:
        conn.close()
    return 0


def _lock_path(db_path: Path) -> Path:
    return db_path.parent / "kept.lock"


if __name__ == "__main__":
    sys.exit(main())
