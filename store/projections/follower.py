"""Following the log: read a batch past a position, apply it, record where it ended; repeat.

Every projection follows the log this one way. The SQLite projections follow it together, each
batch one transaction with their rows and positions (`base.catch_up`). The vectors follow it from
outside SQLite: their position lives with Chroma, their batch is not a transaction, and they check
for an interrupt and report progress as they go (`indexer/vectors/vector_store.py`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

from .. import log
from ..log import StoredEvent


@dataclass(frozen=True)
class Batch:
    """Events past `start` up to `end`, oldest first. `end` may lie past the last event read: a
    follower that reads some types skips the others."""

    events: list[StoredEvent]
    start: int
    end: int


class Follower(Protocol):
    """A reader of the log that keeps its own position."""

    @property
    def reads(self) -> Sequence[str] | None:
        """The event types it reads; None: every type."""

    @property
    def batch_size(self) -> int:
        """Events read per batch."""

    def step(self) -> AbstractContextManager[Any]:
        """What one batch is read, applied and recorded in: a transaction when rows and position share it."""

    def position(self) -> int:
        """How far it has applied the log, read inside `step`."""

    def apply(self, batch: Batch) -> None: ...

    def record(self, position: int) -> None:
        """Keep the position this batch ended at, inside the same `step`."""


def follow(conn: sqlite3.Connection, follower: Follower, *, until: int | None = None) -> int:
    """Apply every event past the follower's position up to `until` (the log's head when None),
    a batch at a time; return how many events were read."""
    read = 0
    while True:
        with follower.step():
            start = follower.position()
            end = log.head(conn) if until is None else until
            if start >= end:
                return read
            events = list(log.read(conn, since=start, until=end, types=follower.reads, limit=follower.batch_size))
            # A short batch reached the end; a full one ends at its last event.
            batch = Batch(events, start, events[-1].seq if len(events) == follower.batch_size else end)
            follower.apply(batch)
            follower.record(batch.end)
            read += len(events)


def pending(conn: sqlite3.Connection, position: int, types: Sequence[str], until: int | None = None) -> int:
    """Events of `types` past `position` (up to `until`) that a follower has still to read."""
    sql = f"SELECT COUNT(*) FROM events WHERE seq > ? AND type IN ({','.join('?' * len(types))})"
    args: list[Any] = [position, *types]
    if until is not None:
        sql += " AND seq <= ?"
        args.append(until)
    return int(conn.execute(sql, args).fetchone()[0])


def log_identity(conn: sqlite3.Connection) -> str:
    """Which log this is: its first event, which no other log shares. A follower that keeps its
    position outside the database keeps this beside it, so it never follows another log by mistake."""
    row = conn.execute("SELECT recorded_at, stream FROM events ORDER BY seq LIMIT 1").fetchone()
    return f"{row[0]}|{row[1]}" if row else ""
