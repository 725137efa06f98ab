"""Requirement tags: `req: TAG` markers in comments and docstrings, and where they stand."""

from __future__ import annotations

import sqlite3

from ..events import FileIndexed, FileOutlined, FileRemoved, FileSkipped
from ..log import StoredEvent
from .base import Projection


class TagsProjection(Projection):
    name = "tags"
    version = 1
    handles = frozenset({FileIndexed.TYPE, FileOutlined.TYPE, FileSkipped.TYPE, FileRemoved.TYPE})
    tables = ("requirement_tags",)

    def create(self, conn: sqlite3.Connection) -> None:
        conn.execute("""CREATE TABLE IF NOT EXISTS requirement_tags (
            tag TEXT NOT NULL, path TEXT NOT NULL, line INTEGER NOT NULL, symbol_id TEXT,
            PRIMARY KEY (tag, path, line))""")
        conn.execute("CREATE INDEX IF NOT EXISTS requirement_tags_path ON requirement_tags(path)")

    def apply(self, conn: sqlite3.Connection, event: StoredEvent) -> None:
        p = event.payload
        conn.execute("DELETE FROM requirement_tags WHERE path = ?", (p["path"],))
        if event.type == FileIndexed.TYPE:
            conn.executemany(
                "INSERT OR IGNORE INTO requirement_tags VALUES (?, ?, ?, ?)",
                [(t["tag"], p["path"], t["line"], t.get("symbol")) for t in p.get("tags", [])],
            )
