"""What the log already holds for each file: its content hash, so unchanged content is never
parsed or appended twice (by the indexer, the watcher and the hooks alike)."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Collection

from ..store.db import select_in


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def last_hash(conn: sqlite3.Connection, path: str) -> str | None:
    """The content hash the log last recorded for a path (None when removed or never seen)."""
    row = conn.execute(
        "SELECT type, payload FROM events WHERE stream = ? ORDER BY stream_version DESC LIMIT 1", (f"file:{path}",)
    ).fetchone()
    if row is None or row["type"] == "file.removed":
        return None
    payload = json.loads(row["payload"])
    return payload.get("content_hash") or f"skip:{payload.get('reason')}"


def known_hashes(conn: sqlite3.Connection, paths: Collection[str] | None = None) -> dict[str, str | None]:
    """path -> the hash we hold for it ('skip:<reason>' for a skip with no content hash), for every
    file or only `paths` (a commit names a few files of a large tree)."""
    rows = (
        conn.execute("SELECT path, content_hash, reason FROM files")
        if paths is None
        else select_in(conn, "SELECT path, content_hash, reason FROM files WHERE path IN ({marks})", sorted(paths))
    )
    return {row["path"]: row["content_hash"] or f"skip:{(row['reason'] or '').split(':')[0]}" for row in rows}
