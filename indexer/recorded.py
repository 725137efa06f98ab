"""What the log already holds for each file: its content hash, so unchanged content is never
parsed or appended twice (by the indexer, the watcher and the hooks alike)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection

from ..store.db import select_in
from ..store.events import FileRemoved, file_stream
from ..store.projections.files import content_hash as content_hash  # the writers hash here, as they always have

_SKIP = "skip:"


def skip_marker(reason: str) -> str:
    """What stands for a skipped file's content when its skip recorded no hash: the reason."""
    return f"{_SKIP}{reason}"


def is_skip_marker(marker: str) -> bool:
    return marker.startswith(_SKIP)


def last_hash(conn: sqlite3.Connection, path: str) -> str | None:
    """The content hash the log last recorded for a path (None when removed or never seen)."""
    row = conn.execute(
        "SELECT type, payload FROM events WHERE stream = ? ORDER BY stream_version DESC LIMIT 1", (file_stream(path),)
    ).fetchone()
    if row is None or row["type"] == FileRemoved.TYPE:
        return None
    payload = json.loads(row["payload"])
    return payload.get("content_hash") or skip_marker(payload["reason"])


def known_hashes(conn: sqlite3.Connection, paths: Collection[str] | None = None) -> dict[str, str | None]:
    """path -> the hash we hold for it (a `skip_marker` for a skip with no content hash), for every
    file or only `paths` (a commit names a few files of a large tree)."""
    rows = (
        conn.execute("SELECT path, content_hash, reason FROM files")
        if paths is None
        else select_in(conn, "SELECT path, content_hash, reason FROM files WHERE path IN ({marks})", sorted(paths))
    )
    # The files table holds "reason: detail"; the marker is the reason alone.
    return {row["path"]: row["content_hash"] or skip_marker((row["reason"] or "").split(":")[0]) for row in rows}
