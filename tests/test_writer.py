"""One typed write path: event classes registered by type with their upcasters, and one writer that
appends and projects in the same transaction."""

from __future__ import annotations

import ast
import json
import os
import signal
import sqlite3
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest
from codeannals.store import events, log, open_store, workflow_events, writing
from codeannals.store.events import Event, FileIndexed, MessageAdded, UnknownEventType, event_class
from codeannals.store.projections import positions

PACKAGE = Path(__file__).resolve().parent.parent


def _insert_raw(conn: sqlite3.Connection, stream: str, event_type: str, version: int, payload: dict) -> None:
    """A row as an older (or newer) annals stored it: straight into the table, past every class."""
    conn.execute(
        "INSERT INTO events (stream, stream_version, type, version, payload, recorded_at, source)"
        " VALUES (?, 1, ?, ?, ?, '2026-01-01T00:00:00.000000Z', 'cli')",
        (stream, event_type, version, json.dumps(payload)),
    )
    conn.commit()


def test_every_event_class_is_registered_under_its_type() -> None:
    classes = [
        cls
        for module in (events, workflow_events)
        for cls in vars(module).values()
        if isinstance(cls, type) and issubclass(cls, Event) and "TYPE" in cls.__dict__
    ]
    assert len(classes) >= 29
    for cls in classes:
        assert event_class(cls.TYPE) is cls


def test_an_event_class_with_a_type_already_taken_is_refused() -> None:
    with pytest.raises(TypeError, match=r"'file\.indexed' .* is taken by codeannals\.store\.events\.FileIndexed"):

        @dataclass(frozen=True)
        class Indexed(Event):
            TYPE: ClassVar[str] = "file.indexed"
            path: str

    assert event_class("file.indexed") is FileIndexed


def test_an_event_class_past_version_1_without_its_upcaster_is_refused() -> None:
    with pytest.raises(TypeError, match="VERSION 3 but has no upcast_v2_v3"):

        @dataclass(frozen=True)
        class Renamed(Event):
            TYPE: ClassVar[str] = "test.renamed"
            VERSION: ClassVar[int] = 3
            name: str

            @staticmethod
            def upcast_v1_v2(payload: dict) -> dict:
                return payload

    with pytest.raises(UnknownEventType):
        event_class("test.renamed")


def test_an_old_payload_reads_back_upcast_by_its_class_as_the_class(store: sqlite3.Connection) -> None:
    old = {
        "path": "a.py",
        "language": "python",
        "content_hash": "h",
        "size": 1,
        "lines": 1,
        "calls": [{"name": "f", "line": 1}],  # version 1: no `ref` yet
    }
    _insert_raw(store, "file:a.py", "file.indexed", 1, old)
    (stored,) = log.read(store)
    assert stored.version == 1  # the row as stored: never rewritten
    event = stored.event
    assert isinstance(event, FileIndexed)
    assert event.calls == [{"name": "f", "line": 1, "ref": None}]
    assert event.stream() == stored.stream


def test_a_type_no_class_knows_reads_as_stored_and_refuses_to_decode(store: sqlite3.Connection) -> None:
    _insert_raw(store, "future:x", "future.happened", 4, {"x": 1})
    (stored,) = log.read(store)
    assert stored.payload == {"x": 1}
    with pytest.raises(UnknownEventType, match="newer annals wrote it"):
        _ = stored.event


def test_the_writer_projects_in_its_own_transaction(store: sqlite3.Connection) -> None:
    with writing(store, source="mcp") as writer:
        writer.append([MessageAdded("c1", "user", "hello")])
        assert store.in_transaction
    assert writer.appended[-1].seq == log.head(store)
    assert set(positions(store).values()) == {log.head(store)}
    assert [tuple(r) for r in store.execute("SELECT message_count FROM memory_contexts")] == [(1,)]


def test_a_writer_that_fails_leaves_neither_events_nor_rows(store: sqlite3.Connection) -> None:
    with pytest.raises(RuntimeError, match="changed its mind"), writing(store, source="mcp") as writer:
        writer.append([MessageAdded("c1", "user", "hello")])
        raise RuntimeError("changed its mind")
    assert log.head(store) == 0
    assert store.execute("SELECT COUNT(*) FROM memory_contexts").fetchone()[0] == 0


def test_an_unknown_source_is_refused_and_nothing_is_written(store: sqlite3.Connection) -> None:
    with pytest.raises(ValueError, match="unknown event source 'robot'"), writing(store, source="robot") as writer:
        writer.append([MessageAdded("c1", "user", "hello")])
    assert log.head(store) == 0


_RECORD = """
import sys
from codeannals.store import open_store
from codeannals.store.events import MessageAdded
from codeannals.store.memory import record
conn = open_store(sys.argv[1], catch_up_now=False)
record(conn, [MessageAdded("c1", "user", "hello")])
"""


def _record_killed_at(db: Path, point: str) -> None:
    env = {**os.environ, "ANNALS_CRASH_AT": point}
    done = subprocess.run([sys.executable, "-c", _RECORD, str(db)], env=env, capture_output=True, timeout=60)
    assert done.returncode == -signal.SIGKILL, done.stderr


def test_a_writer_killed_between_append_and_projection_leaves_neither(db_path: Path) -> None:
    open_store(db_path).close()
    _record_killed_at(db_path, "before-projections")
    conn = open_store(db_path, catch_up_now=False)
    assert log.head(conn) == 0
    assert conn.execute("SELECT COUNT(*) FROM memory_contexts").fetchone()[0] == 0


def test_a_writer_killed_after_its_commit_left_the_projections_with_its_events(db_path: Path) -> None:
    open_store(db_path).close()
    _record_killed_at(db_path, "after-commit")
    conn = open_store(db_path, catch_up_now=False)  # no catch-up: what the commit itself holds
    assert log.head(conn) == 1
    assert set(positions(conn).values()) == {1}
    assert [tuple(r) for r in conn.execute("SELECT context_id, message_count FROM memory_contexts")] == [("c1", 1)]


def test_a_safe_point_is_projected_when_it_is_recorded(repo, tmp_path: Path) -> None:
    from codeannals.hooks import safepoints

    repo.write("a.py", "x = 1\n")
    repo.commit("first")
    conn = open_store(tmp_path / "annals.db")
    safepoints.create(repo.root, conn, "before a risky step")
    assert [e.type for e in log.read(conn)] == ["safepoint.created"]
    assert set(positions(conn).values()) == {log.head(conn)}


def _log_aliases(tree: ast.Module) -> set[str]:
    """Names a module binds to store/log.py (`from ..store import log as event_log`, `from . import log`)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[-1] in ("store", ""):
            names |= {alias.asname or alias.name for alias in node.names if alias.name == "log"}
    return names


def test_only_the_writer_appends_to_the_log_and_applies_what_it_appended() -> None:
    allowed = {PACKAGE / "store" / "writer.py", PACKAGE / "store" / "projections" / "__init__.py"}
    offenders = []
    for folder in ("store", "indexer", "hooks", "server"):
        for path in sorted((PACKAGE / folder).rglob("*.py")):
            if path in allowed or path.parent.name == "projections" and path.name == "base.py":
                continue
            tree = ast.parse(path.read_text(), str(path))
            aliases = _log_aliases(tree)
            for node in ast.walk(tree):
                appends = (
                    isinstance(node, ast.Attribute)
                    and node.attr == "append"
                    and isinstance(node.value, ast.Name)
                    and node.value.id in aliases
                )
                imported = isinstance(node, ast.ImportFrom) and any(
                    a.name == "apply_appended" or (a.name == "append" and (node.module or "").endswith("log"))
                    for a in node.names
                )
                if appends or imported:
                    offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert offenders == [], "write through store.writing, which projects in the same transaction"
