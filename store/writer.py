"""The one way events enter the log: append them, and apply the projections in the same transaction.

    with writing(conn, source="cli") as writer:
        if <still needed, checked under the write lock>:
            writer.append(events, commit=head)

Every writer (the indexer, the hooks, the git actions, the MCP server's memory and workflow) goes
through here, so none can leave the projections behind the log it wrote: a crash before the
commit leaves neither, after it both. When another writer's events came first, the projections
cannot take ours straight from memory; `catch_up` applies them all after the commit.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from . import log
from .db import transaction
from .events import Event
from .failpoints import crash_point
from .log import StoredEvent
from .projections import CORE, apply_appended, catch_up


class Writer:
    """Appends inside a `writing` transaction; `appended` is everything it stored, in order."""

    def __init__(self, conn: sqlite3.Connection, source: str) -> None:
        self.conn, self.source = conn, source
        self.appended: list[StoredEvent] = []

    def append(self, events: Iterable[Event], *, commit: str | None = None) -> list[StoredEvent]:
        """Store events with their provenance (`commit`: the HEAD they were seen at); return them as stored."""
        stored = log.append(self.conn, events, source=self.source, commit=commit)
        self.appended += stored
        return stored


@contextmanager
def writing(conn: sqlite3.Connection, *, source: str) -> Iterator[Writer]:
    """A write transaction whose appended events the core projections take before it commits."""
    writer = Writer(conn, source)
    with transaction(conn):
        yield writer
        crash_point("before-projections")
        caught_up = apply_appended(conn, CORE, writer.appended)
    if not caught_up:
        catch_up(conn, CORE)
