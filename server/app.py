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
    _fresh: tuple[float, dict[str, Any]] | None = field(default=None, repr=False)
    _refreshing: threading.Lock = field(default_factory=threading.Lock, repr=False)

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
        self._fresh = None

    def freshness(self) -> dict[str, Any]:
        """Log position, indexed HEAD against HEAD, and how many files wait for re-indexing."""
        from ..indexer.freshness import freshness

        fresh = self._fresh
        if fresh is not None and time.monotonic() - fresh[0] <= FRESHNESS_TTL_SECONDS:
            return fresh[1]
        # One thread walks the tree while the others answer with the last figures. Without this,
        # every request in flight when the TTL ran out walked it at once: under load, dozens of
        # walks fought for the GIL and answers stalled for 20 s.
        if fresh is not None and not self._refreshing.acquire(blocking=False):
            return fresh[1]
        if fresh is None:
            self._refreshing.acquire()
        try:
            current = self._fresh
            if current is None or current is fresh:  # nobody refreshed while we waited
                current = (time.monotonic(), freshness(self.root, self.conn()))
                self._fresh = current
        finally:
            self._refreshing.release()
        return current[1]
