"""How far the index is behind the tree: pending files, indexed HEAD against current HEAD, files
only search-ready (outlined, tier 1) whose complete facts are being computed."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from ..store import log as event_log
from ..store.lookups import held_paths, outlined_paths
from .git.gitcmd import head_commit
from .walk import MAX_FILE_BYTES, walk


def pending_paths(root: Path, conn: sqlite3.Connection) -> list[str]:
    """Files whose size or mtime differ from what was indexed, new files, and deleted ones."""
    known = held_paths(conn)
    # stat_cache is the indexer's own table (size and mtime of each file it hashed), not a projection.
    cache = {r[0]: (r[1], r[2]) for r in conn.execute("SELECT path, size, mtime_ns FROM stat_cache")}
    seen, out = set(), []
    for entry in walk(root):
        seen.add(entry.path)
        if entry.path not in known:
            out.append(entry.path)
        elif entry.skip is None and cache.get(entry.path) != (entry.size, entry.mtime_ns):
            if entry.size > MAX_FILE_BYTES and entry.path not in cache:
                continue  # recorded as too large, never read: whatever it holds now, it is skipped again
            out.append(entry.path)
    out.extend(sorted(known - seen))
    return out


def database_file(conn: sqlite3.Connection) -> Path | None:
    """The file behind a connection (None for an in-memory database)."""
    for _seq, name, file in conn.execute("PRAGMA database_list"):
        if name == "main":
            return Path(file) if file else None
    return None


def freshness(root: Path, conn: sqlite3.Connection) -> dict[str, Any]:
    from .watching.watchstate import watcher_state

    position = event_log.position(conn)
    head = head_commit(root)
    pending = pending_paths(root, conn)
    outlined = outlined_paths(conn)
    return {
        "log_position": position.seq,
        "indexed_head": position.commit,
        "head": head,
        "head_matches": position.commit == head,
        "pending_files": len(pending),
        "pending_sample": pending[:10],
        "incomplete_files": len(outlined),
        "incomplete_sample": outlined[:10],
        # who keeps the index fresh: {pid, kind, ready, mode, ...} of the live watcher, or None
        "watcher": watcher_state(db) if (db := database_file(conn)) is not None else None,
    }
