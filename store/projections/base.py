"""What a projection is, and the SQLite projections following the log together (`follower.follow`)."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Sequence
from contextlib import AbstractContextManager

from .. import log
from ..db import transaction
from ..log import StoredEvent
from .follower import Batch, follow

CATCH_UP_BATCH = 10_000


class Projection:
    """A table set derived only from events. A changed `version` means reset and replay."""

    name: str = ""
    version: int = 1
    handles: frozenset[str] = frozenset()
    tables: tuple[str, ...] = ()  # in digest order; reset drops them

    def create(self, conn: sqlite3.Connection) -> None:
        raise NotImplementedError

    def apply(self, conn: sqlite3.Connection, event: StoredEvent) -> None:
        """Apply one event. Its payload is the writer's own dict (`apply_appended`) or the stored JSON
        read back (`catch_up`, replay): rows must not depend on the order of a dict's keys."""
        raise NotImplementedError

    def apply_batch(self, conn: sqlite3.Connection, events: list[StoredEvent]) -> None:
        """Apply events in log order; a projection may override this to write in bulk."""
        for event in events:
            self.apply(conn, event)

    def reset(self, conn: sqlite3.Connection) -> None:
        for table in self.tables:
            conn.execute(f"DROP TABLE IF EXISTS {table}")
        self.create(conn)

    def digest(self, conn: sqlite3.Connection) -> str:
        """A hash of every row, independent of insertion order, for `annals verify`."""
        h = hashlib.sha256()
        for table in self.tables:
            cols = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
            order = ", ".join(f'"{c}"' for c in cols)
            h.update(table.encode())
            for row in conn.execute(f"SELECT {order} FROM {table} ORDER BY {order}"):
                h.update(repr(tuple(row)).encode())
        return h.hexdigest()


def ensure(conn: sqlite3.Connection, projections: Sequence[Projection]) -> list[str]:
    """Create missing projections and reset those whose version changed; return the names reset."""
    reset = []
    for projection in projections:
        row = conn.execute("SELECT version FROM projection_state WHERE name = ?", (projection.name,)).fetchone()
        if row is not None and row[0] == projection.version:
            continue
        with transaction(conn):
            row = conn.execute("SELECT version FROM projection_state WHERE name = ?", (projection.name,)).fetchone()
            if row is not None and row[0] == projection.version:
                continue
            projection.reset(conn)
            conn.execute(
                "INSERT OR REPLACE INTO projection_state (name, version, position) VALUES (?, ?, 0)",
                (projection.name, projection.version),
            )
        reset.append(projection.name)
    return reset


def positions(conn: sqlite3.Connection) -> dict[str, int]:
    return {name: pos for name, pos in conn.execute("SELECT name, position FROM projection_state")}


class _Projections:
    """The SQLite projections as one follower of the log: each batch is one transaction that
    writes their rows and positions together, so a crash leaves every projection exactly at a
    committed position. Each projection keeps its own position and takes only its events past it."""

    reads = None
    batch_size = CATCH_UP_BATCH

    def __init__(self, conn: sqlite3.Connection, projections: Sequence[Projection]) -> None:
        self.conn = conn
        self.projections = projections
        self.at: dict[str, int] = {}  # their positions, as `position` last read them

    def step(self) -> AbstractContextManager[sqlite3.Connection]:
        return transaction(self.conn)

    def position(self) -> int:
        """The furthest behind of them."""
        self.at = positions(self.conn)
        return min((self.at.get(p.name, 0) for p in self.projections), default=log.head(self.conn))

    def apply(self, batch: Batch) -> None:
        for projection in self.projections:  # projections are independent: each takes its events in order
            position = self.at.get(projection.name, 0)
            mine = [e for e in batch.events if e.seq > position and e.type in projection.handles]
            if mine:
                projection.apply_batch(self.conn, mine)

    def record(self, position: int) -> None:
        self.conn.executemany(
            "UPDATE projection_state SET position = ? WHERE name = ? AND position < ?",
            [(position, projection.name, position) for projection in self.projections],
        )


def apply_appended(
    conn: sqlite3.Connection, projections: Sequence[Projection], appended: Sequence[StoredEvent]
) -> bool:
    """Apply events this transaction just appended straight from memory; False if catch_up must.

    Reading back and decoding what was just encoded cost a cold index a tenth of its time. It is
    only right when every projection stood just before these events and nothing follows them.
    """
    if not appended:
        return True
    first, last = appended[0].seq, appended[-1].seq
    at = positions(conn)
    if (
        last - first + 1 != len(appended)
        or log.head(conn) != last
        or any(at.get(p.name, 0) != first - 1 for p in projections)
    ):
        return False
    follower = _Projections(conn, projections)  # every one stands just before the batch: it applies all of it
    follower.apply(Batch(list(appended), first - 1, last))
    follower.record(last)
    return True


def catch_up(conn: sqlite3.Connection, projections: Sequence[Projection]) -> int:
    """Apply every event each projection has not seen; return how many events were read."""
    return follow(conn, _Projections(conn, projections))
