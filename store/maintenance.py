"""Rebuild projections from the log, and verify that live projections equal a fresh replay."""

from __future__ import annotations

import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from .db import connect, forget_held, transaction
from .kept import stand_aside
from .migrations import migrate
from .projections import CORE, Projection, catch_up, ensure
from .projections.base import positions


def rebuild(conn: sqlite3.Connection, projections: tuple[Projection, ...] = CORE) -> int:
    """Drop every projection and replay the whole log into it; return the events read."""
    with transaction(conn):
        for projection in projections:
            projection.reset(conn)
            conn.execute(
                "INSERT OR REPLACE INTO projection_state (name, version, position) VALUES (?, ?, 0)",
                (projection.name, projection.version),
            )
        stand_aside(conn)
    forget_held(conn)
    return catch_up(conn, projections)


def verify(conn: sqlite3.Connection, projections: tuple[Projection, ...] = CORE) -> dict[str, Any]:
    """Replay the log into a scratch database and compare digests with the live projections.

    The log and the live projections are read as one moment (a read transaction), so another
    writer appending meanwhile (a watcher, the background completer) is no difference."""
    checks = {
        "integrity": conn.execute("PRAGMA integrity_check").fetchone()[0],
        "foreign_keys": len(conn.execute("PRAGMA foreign_key_check").fetchall()),
    }
    events, live = _moment(conn, projections)
    with tempfile.TemporaryDirectory(prefix="annals-verify-") as scratch:
        replay = connect(Path(scratch) / "replay.db")
        try:
            migrate(replay)
            with transaction(replay):
                replay.executemany(
                    "INSERT INTO events (seq, stream, stream_version, type, version, payload, recorded_at,"
                    ' source, "commit") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
                    events,
                )
            ensure(replay, projections)
            catch_up(replay, projections)
            rows = []
            for projection in projections:
                fresh = projection.digest(replay)
                rows.append(
                    {
                        "projection": projection.name,
                        "live": live[projection.name],
                        "replay": fresh,
                        "equal": live[projection.name] == fresh,
                    }
                )
        finally:
            replay.close()
    ok = checks["integrity"] == "ok" and checks["foreign_keys"] == 0 and all(r["equal"] for r in rows)
    return {"ok": ok, "checks": checks, "projections": rows}


MOMENT_ATTEMPTS = 20


def _moment(
    conn: sqlite3.Connection, projections: tuple[Projection, ...]
) -> tuple[list[tuple[Any, ...]], dict[str, str]]:
    """Every event and each live projection's digest, as of one moment when the projections stand
    at the log's head (caught up first; again if another writer got in between)."""
    names = {p.name for p in projections}
    attempt = 0
    while True:
        attempt += 1
        catch_up(conn, projections)
        conn.execute("BEGIN")  # deferred: a snapshot of the database for the reads below
        try:
            head = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0]
            last = attempt >= MOMENT_ATTEMPTS  # a log that never holds still: compare what there is
            if last or all(position == head for name, position in positions(conn).items() if name in names):
                events = conn.execute(
                    "SELECT seq, stream, stream_version, type, version, payload, recorded_at,"
                    ' source, "commit" FROM events ORDER BY seq'
                ).fetchall()
                return events, {projection.name: projection.digest(conn) for projection in projections}
        finally:
            conn.execute("COMMIT")
