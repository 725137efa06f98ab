"""The background process `annals index` leaves behind: complete the outlined files (tier 2), keep every
symbol's callers and every module's tests and facts (store/kept.py), then record the recent history (a commit's tests
are read from complete facts), then catch the vectors up (tier 3). Each step is resumable: killed, the next `annals
index` starts one that goes on.

Run as `python -m codeannals.indexer.background --root R --db D [--history N] [--vectors]`.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path

from ..store.lock import WriterLock
from .complete import complete_held, lock_path
from .detached import start_detached
from .keep import keep_answers

log = logging.getLogger(__name__)

WORKER_MODULE = "codeannals.indexer.background"


def log_path(db_path: Path) -> Path:
    return db_path.parent / "logs" / "complete.log"


def start_background(root: Path, db_path: Path, *, vectors: bool, history: tuple[int, float] | None = None) -> int:
    """A detached process that completes every outlined file, then records the newest `history`
    commits (how many, for about how long), then catches the vectors up; its pid."""
    argv = [sys.executable, "-m", WORKER_MODULE, "--root", str(root), "--db", str(db_path)]
    if history is not None:
        argv += ["--history", str(history[0]), "--history-seconds", str(history[1])]
    return start_detached([*argv, *(["--vectors"] if vectors else [])], log_path(db_path)).pid


def main(argv: list[str] | None = None) -> int:
    """Complete, keep the callers, then record history, then the vectors; all of it left to another process
    completing."""
    from ..store import open_store

    parser = argparse.ArgumentParser(prog=WORKER_MODULE, description=main.__doc__)
    parser.add_argument("--root", required=True, type=Path)
    parser.add_argument("--db", required=True, type=Path)
    parser.add_argument("--history", type=int, default=None, help="then record the newest N commits")
    parser.add_argument("--history-seconds", type=float, default=None, help="for about this long")
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
            report = complete_held(args.root, conn)
            if report is not None:
                log.info("completed %d files in %.2fs", report.completed, report.seconds)
        finally:
            lock.release()
        log.info("kept: %s", keep_answers(conn, args.root, args.db))
        if args.history is not None:
            from .git.githistory import backfill

            recorded = backfill(
                args.root, conn, since=None, source="cli", limit=args.history, seconds=args.history_seconds
            )
            log.info("history: %d commits recorded in %.2fs", recorded.recorded, recorded.seconds)
    finally:
        conn.close()
    if args.vectors:
        from .vectors.owner import main as catch_up_vectors

        return catch_up_vectors(["--root", str(args.root), "--db", str(args.db)])
    return 0


if __name__ == "__main__":
    sys.exit(main())
