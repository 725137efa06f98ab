"""What the server and the command line share about one repository: its root, its database."""

from __future__ import annotations

import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..store import default_db_path, open_store

FRESHNESS_TTL_SECONDS = 1.0  # a walk per answer is too dear; one per second is plenty


def last_commit(root: Path, path: str) -> dict[str, str] | None:
    """The last commit that touched a file: id, author, date, subject; None outside git history."""
    from ..indexer.git.gitcmd import run_git

    out = run_git(root, "log", "-1", "--format=%H%x00%an%x00%aI%x00%s", "--", path, check=False)
    fields = out.decode("utf-8", "replace").rstrip("\n").split("\0")
    if len(fields) != 4:
        return None
    return dict(zip(("commit", "author", "date", "subject"), fields, strict=True))


@dataclass
class App:
    root: Path
    db_path: Path
    _local: threading.local = field(default_factory=threading.local, repr=False)
    _fresh: tuple[float, dict[str, Any]] | None = field(default=None, repr=False)  # (measured at, figures)
    _fresh_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _first_measure: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _measuring_again: bool = field(default=False, repr=False)  # a thread measures stale figures again
    _changes: int = field(default=0, repr=False)  # how many times this process changed the index

    @classmethod
    def for_repo(cls, root: Path, db: str | Path | None = None) -> App:
        root = root.resolve()
        return cls(root, default_db_path(root, db))

    def conn(self) -> sqlite3.Connection:
        """This thread's connection (SQLite connections are not shared across threads)."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = open_store(self.db_path)
            self._local.conn = conn
        return conn

    def forget_freshness(self) -> None:
        """The next answer measures freshness again (this process has just changed the index)."""
        with self._fresh_lock:
            self._changes += 1
            self._fresh = None

    def freshness(self) -> dict[str, Any]:
        """Log position, indexed HEAD against HEAD, and how many files wait for re-indexing, measured at most
        FRESHNESS_TTL_SECONDS before the answer asks, or while it is answered. Measuring walks the tree (75 ms
        on typeorm's 3,316 files, which every eighth pack in a row paid in full), so an answer that finds the
        figures older gets them as they are, and one thread measures them again beside it, or while the agent
        reads the answer. The first answer, and the first after this process changed the index, wait for them;
        only one thread measures, however many answers ask at once (dozens of walks at once stalled answers
        for 20 s under load)."""
        with self._fresh_lock:
            fresh = self._fresh
            if fresh is not None and time.monotonic() - fresh[0] > FRESHNESS_TTL_SECONDS and not self._measuring_again:
                self._measuring_again = True
                threading.Thread(target=self._measure_again, name="annals-freshness", daemon=True).start()
        if fresh is not None:
            return fresh[1]
        with self._first_measure:
            fresh = self._fresh  # measured by the answer this one waited for
            return fresh[1] if fresh is not None else self._measure()

    def _measure_again(self) -> None:
        try:
            self._measure()
        finally:
            with self._fresh_lock:
                self._measuring_again = False
            conn = getattr(self._local, "conn", None)
            if conn is not None:  # this thread ends here: its connection with it
                conn.close()

    def _measure(self) -> dict[str, Any]:
        """Measure freshness now and keep the figures, unless the index changed (forget_freshness) meanwhile."""
        from ..indexer.freshness import freshness

        with self._fresh_lock:
            changes = self._changes
        figures = freshness(self.root, self.conn())
        with self._fresh_lock:
            if self._changes == changes:
                self._fresh = (time.monotonic(), figures)
        return figures
