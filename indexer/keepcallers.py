"""Once the index is complete, every symbol's callers answered and kept (store/keptcallers.py says why and when they
are read): the last step of `annals index`, in the foreground or in the background worker that completes it; and,
where a watcher keeps the index fresh, in a process of their own once the index has been still for QUIET_SECONDS
(indexer/watching/watch.py), so that the answers after an edit come from kept callers again.

Run as `python -m codeannals.indexer.keepcallers --db D`.
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

from ..store.callgraph import callers
from ..store.db import files_stamp
from ..store.keptcallers import KEPT_LIMIT, keep, standing
from ..store.lock import WriterLock
from ..store.lookups import every_symbol, outlined_count
from ..store.resolver import shared_resolver
from ..store.symbol import SymbolRow
from .detached import start_detached

log = logging.getLogger(__name__)

PROGRESS_EVERY = 500  # symbols between progress reports
# How long the index stays still after a change before a watcher has the callers kept again: an edit comes in
# bursts, and keeping them takes a while (sqlalchemy's 36,728 symbols: ~30 s of one core).
QUIET_SECONDS = 20.0
WORKER_MODULE = "codeannals.indexer.keepcallers"


def keep_callers(
    conn: sqlite3.Connection, db_path: Path, progress: Callable[[int, int], None] | None = None
) -> dict[str, Any]:
    """Answer `callers` for every symbol of the database at `db_path` and keep the answers: {"state": "kept",
    "symbols", "seconds"}; "standing" when the kept ones are still exact; "incomplete" while files wait for their
    calls, "overtaken" when a file changed while they were made (nothing is kept then: the next `annals index` tries
    again). One process at a time makes them (`annals index`, its background worker, a watcher's keeper): the others
    wait, and then find them standing."""
    lock = WriterLock(_lock_path(db_path))
    lock.acquire(blocking=True)
    try:
        if standing(conn):
            return {"state": "standing"}
        if outlined_count(conn):
            return {"state": "incomplete"}
        started = time.perf_counter()
        made_at = files_stamp(conn)
        symbols = every_symbol(conn)
        if not keep(conn, _answers(conn, symbols, progress), made_at):
            return {"state": "overtaken"}
        return {"state": "kept", "symbols": len(symbols), "seconds": round(time.perf_counter() - started, 2)}
    finally:
        lock.release()


def _answers(
    conn: sqlite3.Connection, symbols: list[SymbolRow], progress: Callable[[int, int], None] | None
) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """Each symbol's callers, one at a time: `keep` packs each before the next is made, and the resolver forgets it
    (sqlalchemy's 832,474 callers held whole took the process to 793 MB)."""
    resolver = shared_resolver(conn)
    for n, symbol in enumerate(symbols, 1):
        yield symbol["id"], callers(conn, symbol, limit=KEPT_LIMIT, resolver=resolver)
        resolver.callers_of.pop((symbol["id"], KEPT_LIMIT), None)
        if progress is not None and (n % PROGRESS_EVERY == 0 or n == len(symbols)):
            progress(n, len(symbols))


def start_keeping(db_path: Path) -> int | None:
    """A detached process keeping every symbol's callers (a process, not a thread: a server's answers must not wait
    on it for the interpreter); its pid, or None while one is at it already."""
    if WriterLock(_lock_path(db_path)).owner() is not None:
        return None
    argv = [sys.executable, "-m", WORKER_MODULE, "--db", str(db_path)]
    return start_detached(argv, db_path.parent / "logs" / "callers.log").pid


def main(argv: list[str] | None = None) -> int:
    """Keep every symbol's callers."""
    from ..store import open_store

    parser = argparse.ArgumentParser(prog=WORKER_MODULE, description=main.__doc__)
    parser.add_argument("--db", required=True, type=Path)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format=f"%(asctime)s callers[{os.getpid()}] %(levelname)s %(message)s")
    conn = open_store(args.db)
    try:
        log.info("callers: %s", keep_callers(conn, args.db))
    finally:
        conn.close()
    return 0


def _lock_path(db_path: Path) -> Path:
    return db_path.parent / "callers.lock"


if __name__ == "__main__":
    sys.exit(main())
