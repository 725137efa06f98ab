"""Where the vectors live, how far they have caught up, and why they cannot answer.

The part of the vector projection that both its owner (`owner`) and the store itself
(`vector_store`) need: the store's location, the progress row every process can read, the events
that change what is embedded, and the errors. It imports nothing heavy and nothing of theirs.
"""

from __future__ import annotations

import os
import socket
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...store import log as event_log
from ...store.db import transaction
from ...store.events import CommitRecorded, FileIndexed, MessageAdded, SymbolAdded, SymbolChanged, SymbolRemoved
from ...store.projections.follower import pending
from .embed import MODEL_VERSION

CHROMA_URL_ENV = "ANNALS_CHROMA_URL"
SYMBOL_EVENTS = frozenset({SymbolAdded.TYPE, SymbolChanged.TYPE, SymbolRemoved.TYPE})
MESSAGE_EVENT = MessageAdded.TYPE
COMMIT_EVENT = CommitRecorded.TYPE  # its title: the history the ranking core finds by meaning
# The rest change nothing embedded.
APPLIED_EVENTS = (*sorted(SYMBOL_EVENTS), FileIndexed.TYPE, MESSAGE_EVENT, COMMIT_EVENT)


# Of what the collections hold and how their checkpoint is spelled (2: messages too; 3: commit titles too).
FORMAT_VERSION = 3
# What a store of this version of annals is built with, as its progress row says: a store built by another
# version counts as not built, so `annals index` rebuilds it rather than calling it caught up.
BUILT_WITH = f"{MODEL_VERSION}, format {FORMAT_VERSION}"


class VectorsUnavailable(RuntimeError):
    """Vectors cannot answer right now; the message says why and what answered instead."""


class CatchUpInterrupted(RuntimeError):
    """A catch-up was asked to stop; it resumes from its last checkpoint."""


@dataclass(frozen=True)
class Location:
    """Where the vectors of one database live: a local directory, or a Chroma server."""

    db_path: Path
    url: str | None = None

    @classmethod
    def for_db(cls, db_path: Path) -> Location:
        return cls(db_path, os.environ.get(CHROMA_URL_ENV) or None)

    @property
    def local_dir(self) -> Path:
        """`.annals/vectors/` beside the default database; `<name>.vectors/` beside any other."""
        if self.db_path.name == "annals.db":
            return self.db_path.parent / "vectors"
        return self.db_path.with_name(self.db_path.name + ".vectors")

    @property
    def lock_path(self) -> Path:
        return self.local_dir.with_name(self.local_dir.name + ".lock")

    @property
    def log_path(self) -> Path:
        return self.db_path.parent / "logs" / "vectors.log"

    def describe(self) -> str:
        return self.url or str(self.local_dir)


# --- progress, readable by every process --------------------------------------------------------


def owner_name() -> str:
    return f"pid {os.getpid()} on {socket.gethostname()}"


def record_progress(conn: sqlite3.Connection, location: Location, position: int, target: int, model: str) -> None:
    """Keyed by the store (its directory or URL): progress of one store says nothing of another."""
    with transaction(conn):
        conn.execute(
            "INSERT OR REPLACE INTO vector_progress (name, position, target, model, owner, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (location.describe(), position, target, model, owner_name(), event_log.now_iso()),
        )


def read_progress(conn: sqlite3.Connection, location: Location) -> dict[str, Any]:
    """How far the vectors have caught up with the log, from the row their owner keeps."""
    row = conn.execute(
        "SELECT position, target, model, owner, updated_at FROM vector_progress WHERE name = ?", (location.describe(),)
    ).fetchone()
    head = event_log.head(conn)
    position = int(row["position"]) if row else 0
    built = (
        row is not None
        and row["model"] == BUILT_WITH
        and (location.url is not None or (location.local_dir / "chroma.sqlite3").exists())
    )
    if not built:
        position = 0
    return {
        "store": location.describe(),
        "built": built,
        "position": position,
        "head": head,
        "pending_events": pending_events(conn, position),
        "model": row["model"] if row else None,
        "owner": row["owner"] if row else None,
        "updated_at": row["updated_at"] if row else None,
    }


def pending_events(conn: sqlite3.Connection, position: int, until: int | None = None) -> int:
    """Events past `position` (up to `until`) that change what is embedded; tool calls and the like do not."""
    return pending(conn, position, APPLIED_EVENTS, until)
