"""The append-only event log: append in a transaction, read in order (upcast on the way out).

Writers do not call `append` themselves: `writer.writing` does, and applies the projections in
the same transaction.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .db import select_in
from .events import Event, decode, upcast

SOURCES = ("cli", "watcher", "hook", "mcp")


def canonical_json(value: Any) -> str:
    """One spelling per value, so equal payloads are equal bytes (digests, dedupe)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True)
class StoredEvent:
    seq: int
    stream: str
    stream_version: int
    type: str
    version: int
    payload: dict[str, Any]
    recorded_at: str
    source: str
    commit: str | None

    @property
    def event(self) -> Event:
        """The event as its class (the payload is upcast already; a newer annals' type raises)."""
        return decode(self.type, self.payload)

    def as_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "stream": self.stream,
            "stream_version": self.stream_version,
            "type": self.type,
            "version": self.version,
            "payload": self.payload,
            "recorded_at": self.recorded_at,
            "source": self.source,
            "commit": self.commit,
        }


def now_iso() -> str:
    t = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t % 1 * 1e6):06d}Z"


def append(
    conn: sqlite3.Connection, events: Iterable[Event], *, source: str, commit: str | None = None
) -> list[StoredEvent]:
    """Append events inside the caller's write transaction; return them as stored (seq and all)."""
    if source not in SOURCES:
        raise ValueError(f"unknown event source {source!r}: use one of {', '.join(SOURCES)}")
    if not conn.in_transaction:
        raise RuntimeError("append() needs a write transaction: wrap it in store.db.transaction()")
    events = list(events)
    if not events:
        return []
    recorded_at = now_iso()
    streams = [event.stream() for event in events]
    versions: dict[str, int] = dict(
        select_in(
            conn,
            "SELECT stream, MAX(stream_version) FROM events WHERE stream IN ({marks}) GROUP BY stream",
            set(streams),
        )
    )
    rows = []
    for event, stream in zip(events, streams, strict=True):
        versions[stream] = version = versions.get(stream, 0) + 1
        payload = event.payload()
        rows.append((stream, version, event.TYPE, event.VERSION, payload, canonical_json(payload)))
    conn.executemany(
        'INSERT INTO events (stream, stream_version, type, version, payload, recorded_at, source, "commit")'
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (stream, version, etype, eversion, text, recorded_at, source, commit)
            for stream, version, etype, eversion, _, text in rows
        ],
    )
    # We hold the write lock and seq is AUTOINCREMENT, so this statement's rows took consecutive seqs.
    first = int(conn.execute("SELECT last_insert_rowid()").fetchone()[0]) - len(rows) + 1
    return [
        StoredEvent(first + i, stream, version, etype, eversion, payload, recorded_at, source, commit)
        for i, (stream, version, etype, eversion, payload, _) in enumerate(rows)
    ]


def _row_to_event(row: Sequence[Any]) -> StoredEvent:
    seq, stream, stream_version, etype, version, payload, recorded_at, source, commit = row
    return StoredEvent(
        seq,
        stream,
        stream_version,
        etype,
        version,
        upcast(etype, version, json.loads(payload)),
        recorded_at,
        source,
        commit,
    )


_COLUMNS = 'seq, stream, stream_version, type, version, payload, recorded_at, source, "commit"'


def read(
    conn: sqlite3.Connection,
    *,
    since: int = 0,
    types: Sequence[str] | None = None,
    stream: str | None = None,
    limit: int | None = None,
    until: int | None = None,
) -> Iterator[StoredEvent]:
    """Events with seq greater than `since`, oldest first."""
    sql = f"SELECT {_COLUMNS} FROM events WHERE seq > ?"
    args: list[Any] = [since]
    if until is not None:
        sql += " AND seq <= ?"
        args.append(until)
    if types:
        sql += f" AND type IN ({','.join('?' * len(types))})"
        args.extend(types)
    if stream is not None:
        sql += " AND stream = ?"
        args.append(stream)
    sql += " ORDER BY seq"
    if limit is not None:
        sql += " LIMIT ?"
        args.append(limit)
    for row in conn.execute(sql, args):
        yield _row_to_event(row)


def head(conn: sqlite3.Connection) -> int:
    """The newest sequence number, 0 for an empty log."""
    return int(conn.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0])


# --- where the log stands: what freshness, status and the hooks ask of it -----------------------


@dataclass(frozen=True)
class Position:
    seq: int  # the newest event's, 0 for an empty log
    recorded_at: str | None
    commit: str | None  # the commit the newest event was recorded at


def position(conn: sqlite3.Connection) -> Position:
    """The newest event's seq, time and commit: how far the log has come."""
    row = conn.execute('SELECT seq, recorded_at, "commit" FROM events ORDER BY seq DESC LIMIT 1').fetchone()
    return Position(row[0], row[1], row[2]) if row is not None else Position(0, None, None)


def last_commit(conn: sqlite3.Connection) -> str | None:
    """The commit of the newest event recorded at one (None: no event says which)."""
    row = conn.execute('SELECT "commit" FROM events WHERE "commit" IS NOT NULL ORDER BY seq DESC LIMIT 1').fetchone()
    return row[0] if row is not None else None


def newest_of(conn: sqlite3.Connection, stream: str) -> StoredEvent | None:
    """The newest event of a stream, or None when the stream has none."""
    row = conn.execute(
        f"SELECT {_COLUMNS} FROM events WHERE stream = ? ORDER BY stream_version DESC LIMIT 1", (stream,)
    ).fetchone()
    return _row_to_event(row) if row is not None else None


def has_stream(conn: sqlite3.Connection, stream: str) -> bool:
    return conn.execute("SELECT 1 FROM events WHERE stream = ? LIMIT 1", (stream,)).fetchone() is not None


def has_type(conn: sqlite3.Connection, event_type: str) -> bool:
    return conn.execute("SELECT 1 FROM events WHERE type = ? LIMIT 1", (event_type,)).fetchone() is not None
