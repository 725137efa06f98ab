"""Tier 2: bring outlined files (search-ready, `file.outlined`) to complete facts.

`annals index` outlines a first index and returns; completing is re-extracting those files whole
through `run.index_tree`, so it writes what a one-pass index writes (file.indexed, then one
symbol.added per symbol) and stands wherever it is killed: each batch of files commits with its
projections, and the files still outlined are the work left. One process completes at a time (the
lock beside the database): `annals index` starts it in the background, `annals index --wait` does
it in place or waits for it, and an answer that needs one file's complete facts completes that file
itself (`complete(..., only=[path])`), which another completer then skips.

Run as `python -m codeannals.indexer.complete --root R --db D` it is that background process; with
`--vectors` it catches the vectors up after.
"""

from __future__ import annotations

import argparse
import logging
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

from ..store.lock import WriterLock
from ..store.lookups import indexed_paths, outlined_count, outlined_paths
from .run import IndexReport, Progress, index_tree

log = logging.getLogger(__name__)

WORKER_MODULE = "codeannals.indexer.complete"
OUTLINE_FROM = 64  # `annals index` outlines first when this many files have no complete facts yet
POLL_SECONDS = 0.25
MENTIONS = 200  # an answer completes at most this many outlined files that name what it is about


def lock_path(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + ".complete.lock")


def log_path(db_path: Path) -> Path:
    return db_path.parent / "logs" / "complete.log"


def complete(
    root: Path,
    conn: sqlite3.Connection,
    *,
    only: Collection[str] | None = None,
    first: Sequence[str] = (),
    progress: Progress | None = None,
    source: str = "cli",
) -> IndexReport:
    """Complete the outlined files (of `only`, else all), `first` ones first; the rest by path."""
    pending = outlined_paths(conn, only)
    if not pending:
        return IndexReport()
    held = set(pending)
    ahead = [path for path in dict.fromkeys(first) if path in held]
    ordered = ahead + [path for path in pending if path not in set(ahead)]
    return index_tree(root, conn, source=source, only=ordered, completing=held, progress=progress)


def on_demand(root: Path, conn: sqlite3.Connection, paths: Collection[str], name: str | None) -> list[str]:
    """Complete what one answer reads: the outlined files among `paths`, and those whose text names
    `name` (where its callers, importers and tests can be), up to MENTIONS of them; which they were."""
    wanted = set(outlined_paths(conn, paths))
    if name:
        needle = name.encode()
        for path in outlined_paths(conn):
            if len(wanted) >= MENTIONS + len(paths):
                break
            try:
                if path not in wanted and needle in (root / path).read_bytes():
                    wanted.add(path)
            except OSError:
                wanted.add(path)  # completing it records what became of it
    if wanted:
        complete(root, conn, only=wanted, source="mcp")
    return sorted(wanted)


def complete_all(
    root: Path, db_path: Path, conn: sqlite3.Connection, progress: Progress | None = None
) -> IndexReport | None:
    """Every outlined file completed when this returns, files outlined meanwhile too: here, or by
    the process that holds the lock. The report of the work done here (None if none was)."""
    lock = WriterLock(lock_path(db_path))
    done: IndexReport | None = None
    while outlined_count(conn):
        if not lock.acquire(blocking=False):
            if progress:
                progress(0, outlined_count(conn))
            time.sleep(POLL_SECONDS)
            continue
        try:
            done = complete(root, conn, progress=progress)
        finally:
            lock.release()
        if not (done.completed or done.removed or done.skipped):
            break  # nothing moved: leave the rest to the next index run rather than spin
    return done


def tier_progress(db_path: Path, conn: sqlite3.Connection) -> dict[str, Any]:
    """Each tier's progress, for `annals status`: files search-ready, files complete (and who is
    completing the rest), how far the vectors are behind the log."""
    from .vectors.owner import vectors_enabled
    from .vectors.progress import Location, read_progress

    ready = len(indexed_paths(conn))
    vectors = read_progress(conn, Location.for_db(db_path))
    return {
        "search_ready": ready,
        "complete": ready - outlined_count(conn),
        "completing_pid": WriterLock(lock_path(db_path)).owner(),
        "vectors": {
            "enabled": vectors_enabled(),
            "built": vectors["built"],
            "pending_events": vectors["pending_events"],
        },
    }


def start_background(root: Path, db_path: Path, *, vectors: bool) -> int:
    """A detached process that completes every outlined file (then the vectors); its pid."""
    sink_path = log_path(db_path)
    sink_path.parent.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, "-m", WORKER_MODULE, "--root", str(root), "--db", str(db_path)]
    with sink_path.open("ab") as sink:
        proc = subprocess.Popen(  # noqa: S603 - our own interpreter and module, argv list
            [*argv, *(["--vectors"] if vectors else [])],
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=sink,
            start_new_session=True,
            close_fds=True,
        )
    return proc.pid


def main(argv: list[str] | None = None) -> int:
    """The background completer: take the lock or leave the work to whoever holds it."""
    from ..store import open_store

    parser = argparse.ArgumentParser(prog=WORKER_MODULE, description=main.__doc__)
    parser.add_argument("--root", required=True, type=Path)
    parser.add_argument("--db", required=True, type=Path)
    parser.add_argument("--vectors", action="store_true", help="catch the vectors up once complete")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format=f"%(asctime)s complete[{os.getpid()}] %(levelname)s %(message)s")
    conn = open_store(args.db)
    try:
        lock = WriterLock(lock_path(args.db))
        if not lock.acquire(blocking=False):
            log.info("another process is completing the index")
            return 0
        try:
            while outlined_count(conn):  # files outlined while it ran are its work too
                report = complete(args.root, conn, source="cli")
                log.info("completed %d files in %.2fs", report.completed, report.seconds)
                if not (report.completed or report.removed or report.skipped):
                    break  # nothing moved: leave the rest to the next index run rather than spin
        finally:
            lock.release()
    finally:
        conn.close()
    if args.vectors:
        from .vectors.owner import main as catch_up_vectors

        return catch_up_vectors(["--root", str(args.root), "--db", str(args.db)])
    return 0


if __name__ == "__main__":
    sys.exit(main())
