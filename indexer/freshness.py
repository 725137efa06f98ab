"""How far the index is behind the tree: pending files, indexed HEAD against current HEAD."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

from .git.gitcmd import head_commit
from .walk import walk


def pending_paths(root: Path, conn: sqlite3.Connection) -> list[str]:
    """Files whose size or mtime differ from what was indexed, new files, and deleted ones."""
    known = {r[0] for r in conn.execute("SELECT path FROM files")}
    cache = {r[0]: (r[1], r[2]) for r in conn.execute("SELECT path, size, mtime_ns FROM stat_cache")}
    seen, out = set(), []
    top = str(root)
    for entry in walk(root):
        seen.add(entry.path)
        if entry.path not in known:
            out.append(entry.path)
            continue
        if entry.skip is not None:
            continue
        try:
            st = os.stat(os.path.join(top, entry.path))
        except OSError:
            continue
        if cache.get(entry.path) != (st.st_size, st.st_mtime_ns):
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

    row = conn.execute('SELECT seq, "commit" FROM events ORDER BY seq DESC LIMIT 1').fetchone()
    head = head_commit(root)
    pending = pending_paths(root, conn)
    return {
        "log_position": row[0] if row else 0,
        "indexed_head": row[1] if row else None,
        "head": head,
        "head_matches": (row[1] if row else None) == head,
        "pending_files": len(pending),
        "pending_sample": pending[:10],
        # who keeps the index fresh: {pid, kind, ready, mode, ...} of the live watcher, or None
        "watcher": watcher_state(db) if (db := database_file(conn)) is not None else None,
    }
