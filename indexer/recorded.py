"""What the log already holds for each file: its content hash, so unchanged content is never
parsed or appended twice (by the indexer, the watcher and the hooks alike)."""

from __future__ import annotations

import sqlite3
from collections.abc import Collection

from ..store import log as event_log
from ..store.events import FileIndexed, FileRemoved, file_stream
from ..store.lookups import file_hashes
from ..store.projections.files import content_hash as content_hash  # the writers hash here, as they always have

_SKIP = "skip:"


def skip_marker(reason: str) -> str:
    """What stands for a skipped file's content when its skip recorded no hash: the reason."""
    return f"{_SKIP}{reason}"


def is_skip_marker(marker: str) -> bool:
    return marker.startswith(_SKIP)


def last_hash(conn: sqlite3.Connection, path: str) -> str | None:
    """The content hash the log last recorded for a path (None when removed or never seen)."""
    event = event_log.newest_of(conn, file_stream(path))
    if event is None or event.type == FileRemoved.TYPE:
        return None
    return event.payload.get("content_hash") or skip_marker(event.payload["reason"])


def completed_hash(conn: sqlite3.Connection, path: str) -> str | None:
    """The content hash of the path's complete facts, when the log's newest word on it is those
    (not an outline, a skip or a removal)."""
    event = event_log.newest_of(conn, file_stream(path))
    return event.payload["content_hash"] if event is not None and event.type == FileIndexed.TYPE else None


def known_hashes(conn: sqlite3.Connection, paths: Collection[str] | None = None) -> dict[str, str | None]:
    """path -> the hash we hold for it (a `skip_marker` for a skip with no content hash), for every
    file or only `paths` (a commit names a few files of a large tree)."""
    # The files table holds "reason: detail"; the marker is the reason alone.
    return {
        path: content or skip_marker((reason or "").split(":")[0]) for path, content, reason in file_hashes(conn, paths)
    }
