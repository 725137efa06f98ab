"""Incremental indexing appends exactly the events a change calls for, and nothing for no change."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from codeannals.indexer.run import index_tree
from codeannals.store import log, open_store
from codeannals.store.maintenance import verify


def new_events(conn: sqlite3.Connection, since: int) -> list[tuple[str, str]]:
    return [(e.type, e.stream) for e in log.read(conn, since=since)]


def test_second_index_of_an_unchanged_tree_appends_nothing(repo, db_path: Path) -> None:
    repo.write("a.py", "def f():\n    return 1\n")
    repo.write("pkg/__init__.py", "")
    conn = open_store(db_path)
    first = index_tree(repo.root, conn)
    assert first.indexed == 2 and first.events > 0
    head = log.head(conn)
    second = index_tree(repo.root, conn)
    assert (second.events, second.unchanged) == (0, 2)
    assert log.head(conn) == head


def test_touching_a_file_without_changing_it_appends_nothing(repo, db_path: Path) -> None:
    path = repo.write("a.py", "def f():\n    return 1\n")
    conn = open_store(db_path)
    index_tree(repo.root, conn)
    head = log.head(conn)
    path.write_text("def f():\n    return 1\n")  # new mtime, same bytes
    assert index_tree(repo.root, conn).events == 0
    assert log.head(conn) == head


def test_body_change_signature_change_addition_and_removal(repo, db_path: Path) -> None:
    repo.write(
        "a.py",
        "def keep():\n    return 1\n\ndef body():\n    return 1\n\n"
        "def sig(a):\n    return a\n\ndef gone():\n    pass\n",
    )
    conn = open_store(db_path)
    index_tree(repo.root, conn)
    head = log.head(conn)
    repo.write(
        "a.py",
        "# a new comment\ndef keep():\n    return 1  # same\n\ndef body():\n    return 2\n\n"
        "def sig(a, b):\n    return a\n\ndef new():\n    pass\n",
    )
    index_tree(repo.root, conn)
    events = list(log.read(conn, since=head))
    summary = sorted((e.type, e.stream, ",".join(e.payload.get("changed", []))) for e in events)
    assert summary == [
        ("file.indexed", "file:a.py", ""),
        ("symbol.added", "symbol:a.py::new", ""),
        ("symbol.changed", "symbol:a.py::body", "body"),
        ("symbol.changed", "symbol:a.py::sig", "signature"),
        ("symbol.removed", "symbol:a.py::gone", ""),
    ]
    lines = {r["qualname"]: r["start_line"] for r in conn.execute("SELECT qualname, start_line FROM symbols")}
    assert lines["keep"] == 2  # moved down by the new comment, without a symbol event


def test_deleting_a_file_removes_it_and_its_symbols(repo, db_path: Path) -> None:
    repo.write("a.py", "def f():\n    pass\n")
    repo.write("b.py", "import a\n")
    conn = open_store(db_path)
    index_tree(repo.root, conn)
    head = log.head(conn)
    repo.remove("a.py")
    index_tree(repo.root, conn)
    assert sorted(new_events(conn, head)) == [("file.removed", "file:a.py"), ("symbol.removed", "symbol:a.py::f")]
    assert conn.execute("SELECT COUNT(*) FROM symbols").fetchone()[0] == 0
    assert conn.execute("SELECT target FROM resolved_imports").fetchone()[0] is None


def test_gitignore_info_exclude_and_annals_ignore_are_honoured(repo, db_path: Path) -> None:
    repo.write(".gitignore", "build/\n*.gen.py\n")
    repo.write("build/out.py", "x = 1\n")
    repo.write("a.gen.py", "x = 1\n")
    repo.write("vendor/lib.py", "x = 1\n")
    repo.write("secret.py", "x = 1\n")
    repo.write("src/app.py", "def main():\n    pass\n")
    (repo.root / ".git/info/exclude").write_text("secret.py\n")
    repo.write(".annals/ignore", "vendor/\n")
    conn = open_store(db_path)
    index_tree(repo.root, conn)
    paths = {r[0] for r in conn.execute("SELECT path FROM files")}
    assert paths == {".gitignore", "src/app.py"}


def test_a_tree_that_is_not_a_git_repository_is_indexed_with_its_gitignore(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    (root / "skip").mkdir(parents=True)
    (root / "a.py").write_text("def f():\n    pass\n")
    (root / "skip/b.py").write_text("def g():\n    pass\n")
    (root / ".gitignore").write_text("skip/\n")
    conn = open_store(tmp_path / "db.sqlite")
    report = index_tree(root, conn)
    assert report.head is None
    assert [r[0] for r in conn.execute("SELECT qualname FROM symbols")] == ["f"]


def test_live_projections_equal_a_replay(repo, db_path: Path) -> None:
    repo.write("pkg/__init__.py", "")
    repo.write("pkg/a.py", "from . import b\n\ndef fa():\n    return b.fb()\n")
    repo.write("pkg/b.py", "def fb():\n    return 1\n")
    conn = open_store(db_path)
    index_tree(repo.root, conn)
    repo.write("pkg/b.py", "def fb():\n    return 2\n\nclass C:\n    def m(self):\n        pass\n")
    repo.remove("pkg/a.py")
    index_tree(repo.root, conn)
    result = verify(conn)
    assert result["ok"], result


def targets(conn: sqlite3.Connection) -> list[str | None]:
    return [r[0] for r in conn.execute("SELECT target FROM resolved_imports ORDER BY ordinal")]


def test_an_import_resolves_once_its_target_file_appears_later(repo, db_path: Path) -> None:
    repo.write("pkg/__init__.py", "")
    repo.write("pkg/a.py", "import pkg.b\nfrom . import c\n")
    conn = open_store(db_path)
    index_tree(repo.root, conn)
    assert targets(conn) == [None, "pkg/__init__.py"]
    repo.write("pkg/b.py", "x = 1\n")
    repo.write("pkg/c.py", "x = 1\n")
    index_tree(repo.root, conn)
    assert targets(conn) == ["pkg/b.py", "pkg/c.py"]


def test_an_import_follows_its_target_as_files_go_and_stubs_come(repo, db_path: Path) -> None:
    repo.write("pkg/__init__.py", "")
    repo.write("pkg/a.py", "import pkg.b\n")
    repo.write("pkg/b.pyi", "x: int\n")
    conn = open_store(db_path)
    index_tree(repo.root, conn)
    assert targets(conn) == ["pkg/b.pyi"]  # only the stub exists
    repo.write("pkg/b.py", "x = 1\n")
    index_tree(repo.root, conn)
    assert targets(conn) == ["pkg/b.py"]  # the module's source comes before its stub
    assert [r[0] for r in conn.execute("SELECT path FROM imports WHERE target = 'pkg/b.py'")] == ["pkg/a.py"]
    repo.remove("pkg/b.py")
    repo.remove("pkg/b.pyi")
    index_tree(repo.root, conn)
    assert targets(conn) == [None]
    assert verify(conn)["ok"]


def test_indexing_only_some_paths_leaves_the_rest_alone(repo, db_path: Path) -> None:
    repo.write(".gitignore", "ignored.py\n")
    repo.write("a.py", "def a():\n    pass\n")
    repo.write("b.py", "def b():\n    pass\n")
    conn = open_store(db_path)
    index_tree(repo.root, conn)
    repo.write("a.py", "def a2():\n    pass\n")
    repo.write("b.py", "def b2():\n    pass\n")
    repo.write("ignored.py", "def nope():\n    pass\n")
    report = index_tree(repo.root, conn, only=["a.py", "ignored.py", "missing.py"])
    assert report.indexed == 1
    assert sorted(r[0] for r in conn.execute("SELECT qualname FROM symbols")) == ["a2", "b"]


def test_changes_only_the_stored_row_shows_leave_the_index_equal_to_a_fresh_one(repo, tmp_path: Path) -> None:
    """A leading comment (Go's doc), and a method whose enclosing class is renumbered because a
    same-named local class appears before it: no signature or body changed, the rows did."""
    repo.write("calc.go", "package calc\n\n// Add sums two numbers.\nfunc Add(a, b int) int { return a + b }\n")
    local = "    class Local:\n        def run(self):\n            return {n}\n"
    repo.write("t.py", "def test():\n" + local.format(n=1) + local.format(n=2))
    live = open_store(tmp_path / "live.db")
    index_tree(repo.root, live)
    head = log.head(live)
    func = "func Add(a, b int) int { return a + b }\n"
    repo.write("calc.go", "package calc\n\n// Add returns the sum of a and b.\n" + func)
    repo.write("t.py", "def test():\n    class Local:\n        pass\n" + local.format(n=1) + local.format(n=2))
    index_tree(repo.root, live)
    changed = {e.stream: e.payload["changed"] for e in log.read(live, since=head) if e.type == "symbol.changed"}
    ids = ("calc.go::Add", "t.py::test.Local.run", "t.py::test.Local.run#2")
    assert [changed.get(f"symbol:{sid}") for sid in ids] == [["details"]] * 3
    fresh = open_store(tmp_path / "fresh.db")
    index_tree(repo.root, fresh)
    rows = "SELECT * FROM symbols ORDER BY id"
    assert [tuple(r) for r in live.execute(rows)] == [tuple(r) for r in fresh.execute(rows)]
    assert (
        live.execute("SELECT doc FROM symbols WHERE id = 'calc.go::Add'").fetchone()[0]
        == "Add returns the sum of a and b."
    )


def test_full_text_follows_changes_removals_and_returns(repo, db_path: Path) -> None:
    from codeannals.store.queries import search

    def found(words: str) -> list[str]:
        return [hit["id"] for hit in search(conn, words)]

    def fts_row(sid: str) -> tuple[int, str] | None:
        row = conn.execute("SELECT rowid, signature FROM symbols_fts WHERE id = ?", (sid,)).fetchone()
        return (row[0], row[1]) if row else None

    repo.write("a.py", "def fetch_page(url):\n    'Download a page.'\n    return url\n")
    conn = open_store(db_path)
    index_tree(repo.root, conn)
    assert found("fetch page") == ["a.py::fetch_page"] and found("download") == ["a.py::fetch_page"]
    first = fts_row("a.py::fetch_page")

    repo.write("a.py", "def fetch_page(url):\n    'Download a page.'\n    return url.strip()\n")
    index_tree(repo.root, conn)  # the body alone: the words are the same, the row stays as it was
    assert fts_row("a.py::fetch_page") == first

    repo.write("a.py", "def fetch_page(address, retries):\n    'Fetch over the network.'\n    return address\n")
    index_tree(repo.root, conn)
    assert found("retries") == ["a.py::fetch_page"] and found("network") == ["a.py::fetch_page"]
    assert found("download") == [] and fts_row("a.py::fetch_page")[0] == first[0]

    repo.write("a.py", "X = 1\n")
    index_tree(repo.root, conn)
    assert found("fetch page") == [] and fts_row("a.py::fetch_page") is None

    repo.write("a.py", "def fetch_page(url):\n    return url\n")
    index_tree(repo.root, conn)
    assert found("fetch page") == ["a.py::fetch_page"]
    assert conn.execute("SELECT COUNT(*) FROM symbols_fts").fetchone()[0] == 1
    assert verify(conn)["ok"]


def test_an_upgraded_extractor_extracts_unchanged_files_again(repo, db_path: Path) -> None:
    """Facts an older extractor recorded (here: a file.indexed with no calls, as before calls had refs)
    are replaced on the next whole-tree run, though the file's bytes did not change; then nothing."""
    from codeannals.indexer.recorded import content_hash
    from codeannals.store import catch_up
    from codeannals.store.db import transaction
    from codeannals.store.events import FileIndexed
    from codeannals.store.projections import CORE

    data = b"def f():\n    return g()\n\n\ndef g():\n    return 1\n"
    repo.write("a.py", data.decode())
    conn = open_store(db_path)
    index_tree(repo.root, conn)
    with transaction(conn):  # what the older code recorded for the same bytes
        log.append(conn, [FileIndexed("a.py", "python", content_hash(data), len(data), 6)], source="cli")
        conn.execute("UPDATE index_settings SET value = 'older code'")
    catch_up(conn, CORE)
    assert conn.execute("SELECT COUNT(*) FROM calls WHERE path = 'a.py'").fetchone()[0] == 0
    upgraded = index_tree(repo.root, conn)
    assert upgraded.reextracted == 1
    assert conn.execute("SELECT name FROM calls WHERE path = 'a.py'").fetchall()[0][0] == "g"
    assert index_tree(repo.root, conn).events == 0 and verify(conn)["ok"]


def test_an_upgrade_reads_skipped_files_again_but_records_a_skip_alike_once(repo, db_path: Path) -> None:
    """After an upgrade the files skipped before are read again (a grammar may read them now), but a file skipped
    again for the same reason and bytes appends nothing: every upgrade used to record each LICENSE and binary
    file's skip once more."""
    from codeannals.store.db import transaction

    repo.write("LICENSE", "MIT\n")
    (repo.root / "logo.bin").write_bytes(b"x\0y")
    repo.write("a.py", "def f():\n    return 1\n")
    conn = open_store(db_path)
    index_tree(repo.root, conn)
    skips = "SELECT COUNT(*) FROM events WHERE type = 'file.skipped'"
    assert conn.execute(skips).fetchone()[0] == 2
    with transaction(conn):
        conn.execute("UPDATE index_settings SET value = 'older code'")
    upgraded = index_tree(repo.root, conn)
    assert upgraded.reextracted == 1 and upgraded.skipped == 0
    assert conn.execute(skips).fetchone()[0] == 2
    assert index_tree(repo.root, conn).events == 0 and verify(conn)["ok"]
