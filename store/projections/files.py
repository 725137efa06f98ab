"""Files: what the index knows of each path, indexed or skipped with the reason."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

from ..events import FileIndexed, FileOutlined, FileRemoved, FileSkipped
from ..log import StoredEvent
from .base import Projection


def content_hash(data: bytes) -> str:
    """The hash a file's bytes are recorded by (file.indexed's `content_hash`, this table's column): the
    indexer compares it to skip unchanged content, the read side to read only the bytes that were indexed."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def indexed_content(file: Path, digest: str) -> bytes | None:
    """The file's bytes when they are the content indexed (`digest`, its content_hash); None when it is missing or
    changed since."""
    try:
        data = file.read_bytes()
    except OSError:
        return None
    return data if content_hash(data) == digest else None


# How complete an indexed file's facts are: its `tier`.
SEARCH_READY = 1  # outlined: definitions, spans, signatures, docs (file.outlined)
COMPLETE = 2  # hashes, imports, calls, contracts, tags as well (file.indexed)


class FilesProjection(Projection):
    name = "files"
    version = 3  # 2: `tier`; 3: `generated`
    handles = frozenset({FileIndexed.TYPE, FileOutlined.TYPE, FileSkipped.TYPE, FileRemoved.TYPE})
    tables = ("files",)

    def create(self, conn: sqlite3.Connection) -> None:
        conn.execute("""CREATE TABLE IF NOT EXISTS files (
            path TEXT PRIMARY KEY, status TEXT NOT NULL, reason TEXT, language TEXT,
            module TEXT, content_hash TEXT, size INTEGER, lines INTEGER, module_doc TEXT,
            declared_api TEXT, seq INTEGER NOT NULL, tier INTEGER, generated INTEGER NOT NULL DEFAULT 0)""")
        conn.execute("CREATE INDEX IF NOT EXISTS files_module ON files(module)")
        conn.execute("CREATE INDEX IF NOT EXISTS files_tier ON files(tier)")

    def apply(self, conn: sqlite3.Connection, event: StoredEvent) -> None:
        p = event.payload
        if event.type == FileRemoved.TYPE:
            conn.execute("DELETE FROM files WHERE path = ?", (p["path"],))
        elif event.type == FileSkipped.TYPE:
            conn.execute(
                "INSERT OR REPLACE INTO files (path, status, reason, content_hash, size, seq)"
                " VALUES (?, 'skipped', ?, ?, ?, ?)",
                (
                    p["path"],
                    f"{p['reason']}: {p['detail']}" if p.get("detail") else p["reason"],
                    p.get("content_hash"),
                    p.get("size", 0),
                    event.seq,
                ),
            )
        else:
            declared = p.get("declared_api")
            conn.execute(
                "INSERT OR REPLACE INTO files (path, status, language, module, content_hash, size,"
                " lines, module_doc, declared_api, seq, tier, generated)"
                " VALUES (?, 'indexed', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    p["path"],
                    p["language"],
                    p.get("module") or None,
                    p["content_hash"],
                    p["size"],
                    p["lines"],
                    p.get("module_doc"),
                    json.dumps(declared) if declared is not None else None,
                    event.seq,
                    COMPLETE if event.type == FileIndexed.TYPE else SEARCH_READY,
                    int(p.get("generated", False)),
                ),
            )
