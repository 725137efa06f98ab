"""The event log: append-only, ordered, versioned per stream; projections checkpointed with rows."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from codeannals.store import catch_up, log, open_store, transaction
from codeannals.store.events import FileRemoved
from codeannals.store.log import canonical_json
from codeannals.store.maintenance import rebuild, verify
from codeannals.store.migrations import MIGRATIONS


def test_events_cannot_be_updated_or_deleted(store: sqlite3.Connection) -> None:
    with transaction(store):
        log.append(store, [FileRemoved("a.py")], source="cli")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        store.execute("UPDATE events SET type = 'x'")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        store.execute("DELETE FROM events")
    assert log.head(store) == 1


def test_stream_versions_count_up_per_stream_and_seq_is_global(store: sqlite3.Connection) -> None:
    with transaction(store):
        log.append(store, [FileRemoved("a.py"), FileRemoved("b.py"), FileRemoved("a.py")], source="cli", commit="abc")
    rows = [(e.seq, e.stream, e.stream_version, e.commit) for e in log.read(store)]
    assert rows == [(1, "file:a.py", 1, "abc"), (2, "file:b.py", 1, "abc"), (3, "file:a.py", 2, "abc")]
    assert [e.seq for e in log.read(store, since=1)] == [2, 3]
    assert [e.seq for e in log.read(store, since=0, limit=1)] == [1]


def test_duplicate_stream_version_is_refused(store: sqlite3.Connection) -> None:
    with transaction(store):
        log.append(store, [FileRemoved("a.py")], source="cli")
    with pytest.raises(sqlite3.IntegrityError):
        store.execute(
            "INSERT INTO events (stream, stream_version, type, version, payload, recorded_at, source)"
            " VALUES ('file:a.py', 1, 'file.removed', 1, '{}', 'now', 'cli')"
        )


def test_append_outside_a_transaction_is_a_programming_error(store: sqlite3.Connection) -> None:
    with pytest.raises(RuntimeError, match="transaction"):
        log.append(store, [FileRemoved("a.py")], source="cli")


def test_unknown_source_is_refused(store: sqlite3.Connection) -> None:
    with transaction(store), pytest.raises(ValueError, match="source"):
        log.append(store, [FileRemoved("a.py")], source="robot")


def test_failed_transaction_appends_nothing(store: sqlite3.Connection) -> None:
    with pytest.raises(ZeroDivisionError), transaction(store):
        log.append(store, [FileRemoved("a.py")], source="cli")
        _ = 1 / 0
    assert log.head(store) == 0


def test_payloads_are_canonical_json(store: sqlite3.Connection) -> None:
    assert canonical_json({"b": 1, "a": [1, "é"]}) == '{"a":[1,"é"],"b":1}'


def test_migrations_are_named_and_applied_once(db_path: Path) -> None:
    open_store(db_path).close()
    conn = open_store(db_path)
    names = [r[0] for r in conn.execute("SELECT name FROM migrations ORDER BY name")]
    assert names == sorted(name for name, _ in MIGRATIONS)


def test_projection_with_changed_version_is_reset_and_replayed(db_path: Path) -> None:
    conn = open_store(db_path)
    with transaction(conn):
        log.append(conn, [FileRemoved("gone.py")], source="cli")
    conn.execute("UPDATE projection_state SET version = -1 WHERE name = 'files'")
    conn.close()
    conn = open_store(db_path)
    assert conn.execute("SELECT version, position FROM projection_state WHERE name = 'files'").fetchone()[1] == 1


def test_rebuild_and_verify_on_an_empty_log(store: sqlite3.Connection) -> None:
    assert rebuild(store) == 0
    assert verify(store)["ok"]


def test_a_file_that_is_not_a_database_gets_a_clear_error(tmp_path: Path) -> None:
    from codeannals.store import DatabaseError

    bad = tmp_path / "annals.db"
    bad.write_bytes(b"this is not sqlite" * 200)
    with pytest.raises(DatabaseError, match="annals.db.*(move it aside|annals index)"):
        open_store(bad)
    assert bad.read_bytes().startswith(b"this is not sqlite")  # nothing destroyed


def test_events_are_projected_from_memory_exactly_as_they_read_back(tmp_path: Path) -> None:
    """The indexer projects what it just appended without reading it back; that is only right if
    every payload equals its own JSON (no tuples, no non-string keys), in every language."""
    import shutil

    from codeannals.indexer.run import index_tree

    fixtures = Path(__file__).parent / "fixtures" / "languages"
    shutil.copytree(fixtures, tmp_path / "tree")
    (tmp_path / "tree" / "app.py").write_text(
        "import os\nfrom . import shapes\n\n__all__ = ['Box']\n\n\nclass Box:\n    'A box.'\n\n"
        "    def area(self, w: int = 1_000, *, h=(1, 2)) -> int:\n        return os.getpid() + w\n"
    )
    conn = open_store(tmp_path / "db.sqlite")
    appended: list[log.StoredEvent] = []
    append = log.append

    def keep(*args, **kwargs):  # the indexer's own appends, as it hands them to the projections
        stored = append(*args, **kwargs)
        appended.extend(stored)
        return stored

    log.append = keep
    try:
        index_tree(tmp_path / "tree", conn)
    finally:
        log.append = append
    assert {e.payload["language"] for e in appended if e.type == "file.indexed"} >= {
        "python",
        "typescript",
        "tsx",
        "java",
        "rust",
        "c",
        "cpp",
        "javascript",
        "ruby",
        "go",
    }
    read_back = {e.seq: e for e in log.read(conn)}
    assert [e.seq for e in appended] == sorted(read_back)
    for event in appended:
        assert event == read_back[event.seq], event.type
    result = verify(conn)
    assert result["ok"], result


def test_events_another_writer_appended_first_are_caught_up_in_order(store: sqlite3.Connection) -> None:
    from codeannals.store.events import FileIndexed
    from codeannals.store.projections import CORE, apply_appended, positions

    with transaction(store):  # another writer that left the projections behind
        log.append(store, [FileIndexed("a.py", "python", "h1", 1, 1)], source="hook")
    with transaction(store):
        mine = log.append(store, [FileIndexed("b.py", "python", "h2", 1, 1)], source="cli")
        assert not apply_appended(store, CORE, mine)  # a.py's event comes first: catch_up's job
    catch_up(store, CORE)
    assert set(positions(store).values()) == {mine[-1].seq}
    assert [r[0] for r in store.execute("SELECT path FROM files ORDER BY path")] == ["a.py", "b.py"]
    with transaction(store):
        more = log.append(store, [FileRemoved("a.py")], source="cli")
        assert apply_appended(store, CORE, more)
    assert [r[0] for r in store.execute("SELECT path FROM files")] == ["b.py"]
    assert set(positions(store).values()) == {more[-1].seq}


def test_a_symbol_added_twice_without_a_removal_is_found_once(store: sqlite3.Connection) -> None:
    """Two writers that both saw the symbol missing both append symbol.added: full text keeps one row."""
    from codeannals.store.events import SymbolAdded, SymbolRemoved
    from codeannals.store.projections import CORE
    from codeannals.store.queries import search

    def symbol(doc: str) -> dict:
        return {
            "id": "a.py::fetch_page",
            "name": "fetch_page",
            "qualname": "fetch_page",
            "kind": "function",
            "language": "python",
            "path": "a.py",
            "start_line": 1,
            "end_line": 2,
            "signature": "def fetch_page()",
            "signature_hash": "s",
            "body_hash": "b",
            "doc": doc,
            "parent": None,
            "exported": True,
            "params": [],
            "returns": None,
            "decorators": [],
        }

    for event in (SymbolAdded(symbol("Download a page.")), SymbolAdded(symbol("Fetch over the network."))):
        with transaction(store):
            log.append(store, [event], source="hook")
        catch_up(store, CORE)
    assert [hit["id"] for hit in search(store, "fetch page")] == ["a.py::fetch_page"]
    assert search(store, "download") == [] and len(search(store, "network")) == 1
    with transaction(store):
        log.append(store, [SymbolRemoved("a.py::fetch_page", "a.py", "fetch_page", "function")], source="cli")
    catch_up(store, CORE)
    assert search(store, "fetch page") == []
    assert store.execute("SELECT COUNT(*) FROM symbols_fts").fetchone()[0] == 0
    assert verify(store)["ok"]
