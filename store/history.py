"""A symbol's history across commits, following its renames and moves (read side of `commits`)."""

from __future__ import annotations

import sqlite3
from collections import deque
from typing import Any

from . import log
from .events import CommitRecorded, commit_stream, symbol_stream

CHAIN_LIMIT = 200  # ids one symbol may have had; beyond this the rename graph is not one symbol's


def rename_chain(conn: sqlite3.Connection, symbol_id: str) -> list[str]:
    """Every id the symbol has had, linked by recorded renames: this one first, then nearest first."""
    seen = [symbol_id]
    queue = deque([symbol_id])
    while queue and len(seen) < CHAIN_LIMIT:
        current = queue.popleft()
        linked = conn.execute(
            "SELECT from_id FROM commit_symbols WHERE status = 'renamed' AND symbol_id = ?"
            " UNION SELECT symbol_id FROM commit_symbols WHERE status = 'renamed' AND from_id = ?",
            (current, current),
        ).fetchall()
        for (other,) in linked:
            if other and other not in seen:
                seen.append(other)
                queue.append(other)
    return seen


def last_seen(conn: sqlite3.Connection, path: str) -> dict[str, str] | None:
    """Where the recorded history last saw a file the tree no longer holds: the newest commit (by commit time)
    that moved its symbols elsewhere, else removed them, else changed them, as {"commit", "title", "how"}
    (`moved to lib/app.js`, `removed`, `changed`). None when no recorded commit touched it."""
    ids = (f"{path}::", f"{path}:;")  # every id `path::...`, through the indexes on symbol_id and from_id
    newest = " ORDER BY c.committed_at DESC LIMIT 1"
    moved = conn.execute(
        "SELECT c.commit_id, c.title, s.path FROM commit_symbols s JOIN commits c ON c.commit_id = s.commit_id"
        " WHERE s.status = 'renamed' AND s.from_id >= ? AND s.from_id < ? AND s.path != ?" + newest,
        (*ids, path),
    ).fetchone()
    if moved is not None:
        return {"commit": moved[0], "title": moved[1] or "", "how": f"moved to {moved[2]}"}
    for status, how in (("deleted", "removed"), ("modified", "changed")):
        row = conn.execute(
            "SELECT c.commit_id, c.title FROM commit_symbols s JOIN commits c ON c.commit_id = s.commit_id"
            " WHERE s.status = ? AND s.symbol_id >= ? AND s.symbol_id < ?" + newest,
            (status, *ids),
        ).fetchone()
        if row is not None:
            return {"commit": row[0], "title": row[1] or "", "how": how}
    return None


def undescribed_commits(conn: sqlite3.Connection) -> list[str]:
    """The recorded commits whose message body the log lacks (recorded before bodies were), as recorded."""
    return [r[0] for r in conn.execute("SELECT commit_id FROM commits WHERE body IS NULL ORDER BY seq")]


def commit_entries(conn: sqlite3.Connection, ids: list[str]) -> list[dict[str, Any]]:
    """The recorded commits that touched any of these ids, shaped like stored events."""
    if not ids:
        return []
    marks = ",".join("?" * len(ids))
    rows = conn.execute(
        f"""SELECT cs.*, c.title, c.author, c.committed_at, c.agent, c.goal_id, c.origin, c.seq, e.source
            FROM commit_symbols cs JOIN commits c ON c.commit_id = cs.commit_id
            JOIN events e ON e.seq = c.seq
            WHERE cs.symbol_id IN ({marks}) OR cs.from_id IN ({marks})""",
        [*ids, *ids],
    ).fetchall()
    out = []
    for r in rows:
        out.append(
            {
                "seq": r["seq"],
                "stream": commit_stream(r["commit_id"]),
                "stream_version": 1,
                "type": CommitRecorded.TYPE,
                "version": 1,
                "payload": {
                    "commit": r["commit_id"],
                    "title": r["title"],
                    "author": r["author"],
                    "committed_at": r["committed_at"],
                    "agent": r["agent"],
                    "goal_id": r["goal_id"],
                    "origin": r["origin"],
                    "changed": [r["changed"]] if r["changed"] else [],
                    "symbol": {
                        "id": r["symbol_id"],
                        "status": r["status"],
                        "changed": r["changed"],
                        "path": r["path"],
                        "kind": r["kind"],
                        "qualname": r["qualname"],
                        "from": r["from_id"],
                        "similarity": r["similarity"],
                    },
                },
                "recorded_at": r["committed_at"],
                "source": r["source"],
                "commit": r["commit_id"],
            }
        )
    return out


def symbol_timeline(conn: sqlite3.Connection, symbol_id: str) -> list[dict[str, Any]]:
    """Index events and recorded commits of a symbol under every name it has had, oldest first."""
    ids = rename_chain(conn, symbol_id)
    entries = [e.as_json() for sid in ids for e in log.read(conn, stream=symbol_stream(sid))]
    entries += commit_entries(conn, ids)
    entries.sort(key=lambda e: (e["recorded_at"] or "", e["seq"]))
    return entries
