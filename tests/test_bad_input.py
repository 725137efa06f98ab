"""Hostile and broken input: the run never crashes on one file, skips say why, nothing is lost."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from codeannals.indexer.freshness import pending_paths
from codeannals.indexer.parsing import hashes
from codeannals.indexer.run import index_tree
from codeannals.indexer.walk import MAX_FILE_BYTES
from codeannals.store import log, open_store


def skips(conn: sqlite3.Connection) -> dict[str, str]:
    return {r[0]: r[1] for r in conn.execute("SELECT path, reason FROM files WHERE status = 'skipped'")}


def test_binary_large_undecodable_and_deep_files_are_skipped_with_reasons(repo, db_path: Path) -> None:
    repo.write("ok.py", "def fine():\n    pass\n")
    repo.write("blob.py", b"\x00\x01binary\x00" * 100)
    repo.write("latin.py", "name = 'caf\xe9'\n".encode("latin-1"))
    repo.write("utf16.py", "def f():\n    pass\n".encode("utf-16"))
    repo.write("huge.js", b"x" * (MAX_FILE_BYTES + 1))
    depth = hashes.MAX_DEPTH + 500
    repo.write("deep.py", "x = " + "(" * depth + "1" + ")" * depth + "\n")
    conn = open_store(db_path)
    report = index_tree(repo.root, conn)
    reasons = skips(conn)
    assert reasons["blob.py"] == "binary: NUL bytes in the first 8 KiB"
    assert reasons["latin.py"].startswith("undecodable")
    assert reasons["utf16.py"].startswith(("binary", "undecodable"))
    assert reasons["huge.js"].startswith("too large")
    assert reasons["deep.py"].startswith("too deep")
    assert [r[0] for r in conn.execute("SELECT qualname FROM symbols")] == ["fine"]
    assert report.skipped == 5
    assert index_tree(repo.root, conn).events == 0  # skips are remembered, not re-recorded
    assert pending_paths(repo.root, conn) == []  # nor said to differ from the index: huge.js is never read


def test_hundred_thousand_nested_parentheses_do_not_crash(repo, db_path: Path) -> None:
    repo.write("nested.py", "x = " + "(" * 100_000 + "1" + ")" * 100_000 + "\n")
    repo.write("fine.py", "def f():\n    pass\n")
    conn = open_store(db_path)
    index_tree(repo.root, conn)
    assert "nested.py" in skips(conn)
    assert conn.execute("SELECT COUNT(*) FROM symbols").fetchone()[0] == 1


def test_one_line_bundle_is_indexed(repo, db_path: Path) -> None:
    repo.write("bundle.js", "function a(){return 1};" * 20_000)
    conn = open_store(db_path)
    index_tree(repo.root, conn)
    assert conn.execute("SELECT status FROM files WHERE path = 'bundle.js'").fetchone()[0] in ("indexed", "skipped")


def test_symlinks_are_never_followed(repo, db_path: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("def secret():\n    pass\n")
    repo.write("real.py", "def real():\n    pass\n")
    os.symlink(outside / "secret.py", repo.root / "link_out.py")
    os.symlink(repo.root / "real.py", repo.root / "link_in.py")
    os.symlink(outside, repo.root / "dir_out")
    os.symlink(repo.root, repo.root / "loop")
    conn = open_store(db_path)
    index_tree(repo.root, conn)
    assert [r[0] for r in conn.execute("SELECT qualname FROM symbols")] == ["real"]
    reasons = skips(conn)
    assert reasons["link_out.py"].startswith("symlink") and "outside" in reasons["link_out.py"]
    assert reasons["link_in.py"].startswith("symlink")


def test_a_file_that_vanishes_is_a_removal_not_a_crash(repo, db_path: Path) -> None:
    repo.write("a.py", "def a():\n    pass\n")
    repo.write("b.py", "def b():\n    pass\n")
    repo.commit()
    conn = open_store(db_path)
    index_tree(repo.root, conn)
    repo.remove("a.py")  # still in git's index, gone from disk
    report = index_tree(repo.root, conn)
    assert report.removed == 1
    assert [r[0] for r in conn.execute("SELECT path FROM files")] == ["b.py"]


def test_syntax_errors_still_yield_the_symbols_that_parse(repo, db_path: Path) -> None:
    repo.write("broken.py", "def good():\n    return 1\n\ndef bad(:\n    pass\n")
    conn = open_store(db_path)
    index_tree(repo.root, conn)
    assert "good" in {r[0] for r in conn.execute("SELECT qualname FROM symbols")}


def test_index_of_a_path_that_is_not_a_directory_fails_clearly(annals, repo) -> None:
    repo.write("file.py", "x = 1\n")
    proc = annals("index", "file.py", check=False)
    assert proc.returncode != 0
    assert "not a directory" in proc.stderr and "Traceback" not in proc.stderr
    proc = annals("index", "missing-dir", check=False)
    assert "no such directory" in proc.stderr


def test_a_corrupt_database_gets_a_clear_message_and_is_kept(annals, repo) -> None:
    repo.write("a.py", "x = 1\n")
    db = repo.root / ".annals" / "annals.db"
    db.parent.mkdir()
    db.write_bytes(b"garbage" * 1000)
    proc = annals("index", check=False)
    assert proc.returncode != 0
    assert "annals.db" in proc.stderr and "Traceback" not in proc.stderr
    assert db.read_bytes().startswith(b"garbage")


def test_events_survive_a_failed_run(repo, db_path: Path) -> None:
    repo.write("a.py", "def a():\n    pass\n")
    conn = open_store(db_path)
    index_tree(repo.root, conn)
    before = [e.seq for e in log.read(conn)]
    repo.write("b.py", b"\x00" * 10)
    index_tree(repo.root, conn)
    assert [e.seq for e in log.read(conn)][: len(before)] == before


def test_a_million_character_identifier_is_skipped_with_its_reason(repo, db_path: Path) -> None:
    repo.write("ident.py", "def " + "a" * 1_000_000 + "():\n    return 1\n")
    repo.write("call.py", "x = " + "f" * 1_000_000 + "()\n\ndef ok():\n    pass\n")
    conn = open_store(db_path)
    index_tree(repo.root, conn)
    assert skips(conn)["ident.py"].startswith("identifier too long")
    assert [r[0] for r in conn.execute("SELECT qualname FROM symbols")] == ["ok"]
    assert db_path.stat().st_size < 2_000_000


def test_a_fifty_megabyte_file_is_skipped_without_reading_it(repo, db_path: Path) -> None:
    with (repo.root / "huge.py").open("wb") as fh:  # sparse: costs no disk
        fh.truncate(50 * 1024 * 1024)
    repo.write("five_mb_line.js", "var x = 1;" * 500_000)
    conn = open_store(db_path)
    report = index_tree(repo.root, conn)
    assert skips(conn)["huge.py"].startswith("too large")
    assert skips(conn)["five_mb_line.js"].startswith("too large")
    assert report.seconds < 30
