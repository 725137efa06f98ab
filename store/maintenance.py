"""Rebuild projections from the log, and verify that live projections equal a fresh replay."""

from __future__ import annotations

import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from .db import connect, forget_held, transaction
from .migrations import migrate
from .projections import CORE, Projection, catch_up, ensure


def rebuild(conn: sqlite3.Connection, projections: tuple[Projection, ...] = CORE) -> int:
    """Drop every projection and replay the whole log into it; return the events read."""
    with transaction(conn):
        for projection in projections:
            projection.reset(conn)
            conn.execute(
                "INSERT OR REPLACE INTO projection_state (name, version, position) VALUES (?, ?, 0)",
                (projection.name, projection.version),
            )
    forget_held(conn)
    return catch_up(conn, projections)


def verify(conn: sqlite3.Connection, projections: tuple[Projection, ...] = CORE) -> dict[str, Any]:
    """Replay the log into a scratch database and compare digests with the live projections."""
    catch_up(conn, projections)
    checks = {
        "integrity": conn.execute("PRAGMA integrity_check").fetchone()[0],
        "foreign_keys": len(conn.execute("PRAGMA foreign_key_check").fetchall()),
    }
    with tempfile.TemporaryDirectory(prefix="annals-verify-") as scratch:
        replay = connect(Path(scratch) / "replay.db")
        try:
            migrate(replay)
            with transaction(replay):
                replay.executemany(
                    "INSERT INTO events (seq, stream, stream_version, type, version, payload, recorded_at,"
                    ' source, "commit") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
                    conn.execute(
                        "SELECT seq, stream, stream_version, type, version, payload, recorded_at,"
                        ' source, "commit" FROM events ORDER BY seq'
                    ),
                )
            ensure(replay, projections)
            catch_up(replay, projections)
            rows = []
            for projection in projections:
                live, fresh = projection.digest(conn), projection.digest(replay)
                rows.append({"projection": projection.name, "live": live, "replay": fresh, "equal": live == fresh})
        finally:
            replay.close()
    ok = checks["integrity"] == "ok" and checks["foreign_keys"] == 0 and all(r["equal"] for r in rows)
    return {"ok": ok, "checks": checks, "projections": rows}
