"""One way to open the database: WAL, a busy timeout, and explicit write transactions."""

from __future__ import annotations

import json
import sqlite3
import threading
import weakref
from collections.abc import Callable, Hashable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from .failpoints import crash_point

BUSY_TIMEOUT_MS = 30_000
WAL_LIMIT_BYTES = 64 * 1024 * 1024  # after a checkpoint, the WAL file is truncated back to this
# Readers that never pause keep a passive checkpoint from recycling the WAL, so it would grow
# without end; past this size a writer waits for them once, then truncates it.
WAL_RESTART_BYTES = 8 * 1024 * 1024
VALUES_PER_QUERY = 500  # values per `IN (...)`: well under SQLite's limit on host parameters
CACHE_KIB = 65_536  # FTS5 merges far less with a roomy page cache: a cold index is ~2x faster


class DatabaseError(Exception):
    """The database cannot be used; the message names the file and the fix."""


class Connection(sqlite3.Connection):
    """A connection that knows its WAL file, so writers can keep it bounded."""

    wal_path: Path | None = None


def connect(path: Path | str, *, readonly: bool = False) -> sqlite3.Connection:
    """Open the database in autocommit mode; writes go through `transaction`."""
    path = Path(path)
    if not readonly:
        path.parent.mkdir(parents=True, exist_ok=True)
    elif not path.exists():
        raise DatabaseError(f"no index at {path}: run `annals index` first")
    uri = f"file:{path}?mode=ro" if readonly else f"file:{path}"
    try:
        conn = sqlite3.connect(
            uri,
            uri=True,
            isolation_level=None,
            check_same_thread=False,
            timeout=BUSY_TIMEOUT_MS / 1000,
            factory=Connection,
        )
        conn.wal_path = Path(f"{path}-wal")
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if not readonly:
            conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
        conn.execute(f"PRAGMA journal_size_limit = {WAL_LIMIT_BYTES}")
        conn.execute("PRAGMA foreign_keys = ON")
    except sqlite3.DatabaseError as exc:
        raise DatabaseError(
            f"cannot open {path}: {exc}. If the file is damaged, move it aside and run "
            "`annals index` to build a new one (the old file keeps its event log for recovery)."
        ) from exc
    return conn


def explain(exc: sqlite3.Error, path: Path | str) -> str:
    """What went wrong with the database file, and what to do about it, in one message."""
    text = str(exc)
    if "full" in text:
        fix = (
            "the disk holding it is full: free some space and run the command again; the write "
            "that failed was rolled back and nothing already in the log was lost"
        )
    elif "locked" in text or "busy" in text:
        fix = (
            f"another process held its write lock for over {BUSY_TIMEOUT_MS // 1000} s: "
            "wait for it (`annals watch status`) and run the command again"
        )
    elif "malformed" in text or "not a database" in text or "corrupt" in text:
        fix = (
            "the file is damaged: run `annals verify` to see what is wrong; to start over, move "
            "the file aside (keep it: its event log can be salvaged with sqlite3's .recover) and "
            "run `annals index`"
        )
    elif "readonly" in text or "permission" in text.lower():
        fix = "we may not write it: check the file's and its directory's permissions"
    else:
        fix = "run `annals verify` to check it"
    return f"{path}: {text}: {fix}"


def stored_list(text: str | None) -> list[Any]:
    """A JSON list as a projection stores it (names, decorators, parameters); most are empty, and an answer reads
    thousands of rows: the empty ones are not parsed."""
    return json.loads(text) if text and text != "[]" else []


def call_lines(call: sqlite3.Row) -> list[int]:
    """Every line a caller calls the name on: the calls projection keeps one row per caller and callee, at its first
    line, and lists the lines only where there are more."""
    return json.loads(call["lines"]) if call["lines"] else [] if call["line"] is None else [call["line"]]


def select_in(conn: sqlite3.Connection, sql: str, values: Iterable[Any]) -> Iterator[Any]:
    """The rows of `sql`, whose `IN ({marks})` takes every one of `values`, asked a chunk at a time."""
    ordered = list(values)
    for start in range(0, len(ordered), VALUES_PER_QUERY):
        chunk = ordered[start : start + VALUES_PER_QUERY]
        yield from conn.execute(sql.format(marks=",".join("?" * len(chunk))), chunk)


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """A write transaction taken up front, so two writers queue instead of deadlocking."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        if conn.in_transaction:  # SQLite has already rolled back after errors such as a full disk
            conn.execute("ROLLBACK")
        raise
    crash_point("before-commit")
    conn.execute("COMMIT")
    crash_point("after-commit")
    _bound_wal(conn)


def _bound_wal(conn: sqlite3.Connection) -> None:
    wal = getattr(conn, "wal_path", None)
    try:
        too_big = wal is not None and wal.stat().st_size > WAL_RESTART_BYTES
    except FileNotFoundError:
        return
    if too_big:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


_Held = TypeVar("_Held")
_HELD: weakref.WeakKeyDictionary[sqlite3.Connection, dict[str, tuple[tuple[int, int], Any]]] = (
    weakref.WeakKeyDictionary()
)


def held_while_unchanged(conn: sqlite3.Connection, name: str, make: Callable[[], _Held]) -> _Held:
    """One `make()` per connection for as long as the code's facts stand: a read cache (the call
    graph's resolver, the test files' symbols) that one answer fills and the next answers reuse,
    dropped as soon as a file is indexed, skipped or removed. Every change to symbols, imports and
    calls comes with its file's row, so the files table's stamp says when; the projections'
    positions would not do, since they move with every event (each MCP tool call appends one)."""
    stamp = files_stamp(conn)
    held = _HELD.setdefault(conn, {})
    if name not in held or held[name][0] != stamp:
        held[name] = (stamp, make())
    return held[name][1]


def held_per_key(conn: sqlite3.Connection, name: str, key: Hashable, make: Callable[[], _Held]) -> _Held:
    """`make()` once per key for as long as the code's facts stand (`held_while_unchanged`, one dict of
    answers by key): a module's tests, a symbol's, what the pack shows of a module."""
    held: dict[Hashable, _Held] = held_while_unchanged(conn, name, dict)
    if key not in held:
        held[key] = make()
    return held[key]


# Per connection and table: (data_version, total_changes) when the table's stamp was last read, and that stamp.
_STAMPS: weakref.WeakKeyDictionary[sqlite3.Connection, dict[str, tuple[tuple[int, int], tuple[int, int]]]] = (
    weakref.WeakKeyDictionary()
)


def files_stamp(conn: sqlite3.Connection) -> tuple[int, int]:
    """The files table's stamp, which moves whenever the code's facts change (held_while_unchanged says why)."""
    return table_stamp(conn, "files")


def table_stamp(conn: sqlite3.Connection, table: str) -> tuple[int, int]:
    """A projection table's stamp: its rows changed when their count or newest `seq` did. Read again only when
    the database may have changed: SQLite's data_version moves when another connection commits, total_changes
    when this one writes. A walk asks thousands of times per answer; counting the table each time cost a third
    of an impact, and the snapshots' counts 4 ms of each context pack on typeorm."""
    seen = database_version(conn)
    known = _STAMPS.setdefault(conn, {})
    if table in known and known[table][0] == seen:
        return known[table][1]
    count, newest = conn.execute(f"SELECT COUNT(*), COALESCE(MAX(seq), 0) FROM {table}").fetchone()
    stamp = int(count), int(newest)
    known[table] = (seen, stamp)
    return stamp


def database_version(conn: sqlite3.Connection) -> tuple[int, int]:
    """Moves whenever the database may have changed: SQLite's data_version when another connection commits,
    total_changes when this one writes."""
    return int(conn.execute("PRAGMA data_version").fetchone()[0]), conn.total_changes


def forget_held(conn: sqlite3.Connection) -> None:
    """Drop this connection's read caches: a rebuild ends with the files rows it started from, and
    other rows that may differ (new rules, repaired tables)."""
    _HELD.pop(conn, None)


_SNAPSHOTS: dict[tuple[str, str], tuple[tuple[int, int], Any]] = {}
_SNAPSHOTS_LOCK = threading.Lock()


def snapshot(conn: sqlite3.Connection, name: str, table: str, build: Callable[[], _Held]) -> _Held:
    """An immutable read model built from one projection table (`build()`), shared by every connection
    to the database and rebuilt when that table's rows change (their count or newest `seq`). Unlike
    held_while_unchanged, what it holds must not keep the connection that built it."""
    database = conn.execute("PRAGMA database_list").fetchone()[2] or f"memory:{id(conn)}"
    stamp = table_stamp(conn, table)
    with _SNAPSHOTS_LOCK:
        held = _SNAPSHOTS.get((database, name))
    if held is not None and held[0] == stamp:
        return held[1]
    made = build()
    with _SNAPSHOTS_LOCK:
        _SNAPSHOTS[(database, name)] = (stamp, made)
    return made
