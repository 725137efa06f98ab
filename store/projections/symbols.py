"""Symbols: the current definition of every symbol, from its added/changed/removed events, and
those of an outlined file (file.outlined, search-ready) until the file.indexed that completes it.

An outline's rows have no hashes (`body_hash` NULL): that is how they are told from complete ones,
which always have both. Whatever next says what the file holds (indexed, skipped, removed) drops
them; its own symbol events write the complete rows."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from ..events import FileIndexed, FileOutlined, FileRemoved, FileSkipped, SymbolAdded, SymbolChanged, SymbolRemoved
from ..log import StoredEvent
from ..symbol import Symbol
from .base import Projection

COLUMNS = (
    "id",
    "name",
    "qualname",
    "kind",
    "language",
    "path",
    "start_line",
    "end_line",
    "signature",
    "signature_hash",
    "body_hash",
    "doc",
    "parent",
    "exported",
    "params",
    "returns",
    "decorators",
    "overloads",
)


def symbol_row(symbol: Symbol) -> tuple[Any, ...]:
    values = []
    for col in COLUMNS:
        value = symbol.get(col)
        if col in ("params", "decorators", "overloads"):
            # Sorted keys: the same text whatever order a payload's keys came in.
            value = json.dumps(value, sort_keys=True) if value else "[]"
        elif col == "exported":
            value = 1 if value else 0
        values.append(value)
    return tuple(values)


_UPSERT = f"INSERT OR REPLACE INTO symbols ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})"


class SymbolsProjection(Projection):
    name = "symbols"
    version = 4  # 4: an overload set's stub signatures (`overloads`)
    handles = frozenset(
        {
            SymbolAdded.TYPE,
            SymbolChanged.TYPE,
            SymbolRemoved.TYPE,
            FileIndexed.TYPE,
            FileOutlined.TYPE,
            FileSkipped.TYPE,
            FileRemoved.TYPE,
        }
    )
    tables = ("symbols",)

    def create(self, conn: sqlite3.Connection) -> None:
        conn.execute("""CREATE TABLE IF NOT EXISTS symbols (
            id TEXT PRIMARY KEY, name TEXT NOT NULL, qualname TEXT NOT NULL, kind TEXT NOT NULL,
            language TEXT NOT NULL, path TEXT NOT NULL, start_line INTEGER, end_line INTEGER,
            signature TEXT, signature_hash TEXT, body_hash TEXT, doc TEXT, parent TEXT,
            exported INTEGER NOT NULL DEFAULT 0, params TEXT, returns TEXT, decorators TEXT,
            overloads TEXT)""")
        conn.execute("CREATE INDEX IF NOT EXISTS symbols_path ON symbols(path, start_line)")
        conn.execute("CREATE INDEX IF NOT EXISTS symbols_name ON symbols(name)")
        conn.execute("CREATE INDEX IF NOT EXISTS symbols_qualname ON symbols(qualname)")
        conn.execute("CREATE INDEX IF NOT EXISTS symbols_parent ON symbols(parent)")  # a class's methods

    def apply_batch(self, conn: sqlite3.Connection, events: list[StoredEvent]) -> None:
        """Runs of added/changed symbols go in one executemany: a cold index is mostly those.

        A file's spans move only the symbols no later event of the batch writes whole: those rows
        carry their lines themselves (and on a new file they do not exist yet).
        """
        rewritten: set[str] = set()  # symbols some later event of the batch writes or removes
        written_later: dict[int, set[str]] = {}  # per file.indexed (by seq): its spans to leave be
        for event in reversed(events):
            if event.type in (SymbolAdded.TYPE, SymbolChanged.TYPE):
                rewritten.add(event.payload["symbol"]["id"])
            elif event.type == SymbolRemoved.TYPE:
                rewritten.add(event.payload["id"])
            elif event.type == FileIndexed.TYPE:
                written_later[event.seq] = {sid for sid in event.payload.get("spans", {}) if sid in rewritten}
        run: list[tuple[Any, ...]] = []
        for event in events:
            if event.type in (SymbolAdded.TYPE, SymbolChanged.TYPE):
                run.append(symbol_row(event.payload["symbol"]))
                continue
            if run:
                conn.executemany(_UPSERT, run)
                run = []
            if event.type == FileIndexed.TYPE:
                _drop_outline(conn, event.payload["path"])
                self._move(conn, event, skip=written_later[event.seq])
            else:
                self.apply(conn, event)
        if run:
            conn.executemany(_UPSERT, run)

    def apply(self, conn: sqlite3.Connection, event: StoredEvent) -> None:
        p = event.payload
        if event.type in (SymbolAdded.TYPE, SymbolChanged.TYPE):
            conn.execute(_UPSERT, symbol_row(p["symbol"]))
        elif event.type == SymbolRemoved.TYPE:
            conn.execute("DELETE FROM symbols WHERE id = ?", (p["id"],))
        elif event.type == FileOutlined.TYPE:
            conn.execute("DELETE FROM symbols WHERE path = ?", (p["path"],))
            conn.executemany(_UPSERT, [symbol_row(s) for s in p["symbols"]])
        elif event.type == FileIndexed.TYPE:  # symbols whose content did not change may still have moved
            _drop_outline(conn, p["path"])
            self._move(conn, event, skip=set())
        else:  # skipped or removed: an outline's rows go with it (complete rows go by symbol.removed)
            _drop_outline(conn, p["path"])

    @staticmethod
    def _move(conn: sqlite3.Connection, event: StoredEvent, skip: set[str]) -> None:
        # Most symbols of an edited file stay where they were: a row rewritten the same is a page
        # written for nothing.
        conn.executemany(
            "UPDATE symbols SET start_line = ?1, end_line = ?2 WHERE id = ?3"
            " AND (start_line IS NOT ?1 OR end_line IS NOT ?2)",
            [(span[0], span[1], sid) for sid, span in event.payload.get("spans", {}).items() if sid not in skip],
        )


def _drop_outline(conn: sqlite3.Connection, path: str) -> None:
    conn.execute("DELETE FROM symbols WHERE path = ? AND body_hash IS NULL", (path,))
