"""Damaged state: a clear error naming the file and the fix, never a crash, never a lost log."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import pytest
from codeannals.indexer.run import index_tree
from codeannals.store import DatabaseError, open_store
from codeannals.store.maintenance import verify


@pytest.fixture
def indexed_db(repo, db_path: Path) -> Path:
    for i in range(30):
        repo.write(f"m{i}.py", f"def f{i}():\n    return {i}\n")
    conn = open_store(db_path)
    index_tree(repo.root, conn)
    conn.close()
    return db_path


def event_count(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    finally:
        conn.close()


def test_deleted_shared_memory_file_is_recreated(indexed_db: Path) -> None:
    Path(f"{indexed_db}-shm").unlink(missing_ok=True)
    conn = open_store(indexed_db)
    assert verify(conn)["ok"]


def test_truncated_write_ahead_log_loses_only_unfinished_frames(repo, tmp_path: Path) -> None:
    db = tmp_path / "wal.db"
    conn = open_store(db)
    conn.execute("PRAGMA wal_autocheckpoint = 0")  # keep the events in the WAL for this test
    repo.write("a.py", "def a():\n    pass\n")
    index_tree(repo.root, conn)
    committed = event_count(db)
    copy = tmp_path / "copy.db"
    shutil.copy(db, copy)
    shutil.copy(f"{db}-wal", f"{copy}-wal")
    conn.close()
    wal = Path(f"{copy}-wal")
    wal.write_bytes(wal.read_bytes()[: wal.stat().st_size // 2])
    damaged = open_store(copy)
    assert verify(damaged)["ok"]
    assert event_count(copy) <= committed


def test_corrupted_page_gets_a_clear_error_and_the_file_is_kept(indexed_db: Path, annals, repo) -> None:
    data = bytearray(indexed_db.read_bytes())
    for offset in range(4096 * 3, len(data) - 4096, 4096 * 2):
        data[offset + 100 : offset + 400] = b"\xde\xad\xbe\xef" * 75
    indexed_db.write_bytes(bytes(data))
    Path(f"{indexed_db}-wal").unlink(missing_ok=True)
    before = indexed_db.read_bytes()
    proc = annals("--db", str(indexed_db), "verify", check=False)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    assert str(indexed_db) in (proc.stderr + proc.stdout) or "DIFFERS" in proc.stdout or "integrity" in proc.stdout
    assert indexed_db.read_bytes() == before  # we never rewrite or delete a damaged log


def test_disk_full_is_reported_and_loses_nothing(indexed_db: Path, repo) -> None:
    conn = open_store(indexed_db)
    before = event_count(indexed_db)
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages + 1}")  # the disk is full from here on
    for i in range(200):
        repo.write(f"big{i}.py", "".join(f"def g{i}_{j}():\n    return {j}\n" for j in range(50)))
    with pytest.raises(sqlite3.Error, match="full"):
        index_tree(repo.root, conn)
    conn.close()
    assert event_count(indexed_db) >= before
    assert verify(open_store(indexed_db))["ok"]


def test_disk_full_message_names_the_file_and_the_fix(indexed_db: Path) -> None:
    from codeannals.store.db import explain

    message = explain(sqlite3.OperationalError("database or disk is full"), indexed_db)
    assert str(indexed_db) in message and "free some space" in message


def test_a_directory_where_the_database_should_be_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "annals.db").mkdir()
    with pytest.raises(DatabaseError, match="annals.db"):
        open_store(tmp_path / "annals.db")


ACTING = {"git_recover_state", "git_bisect_start", "git_commit_with_context", "git_resolve_conflict"}


def _every_tool_over(root: Path) -> list[tuple[str, str, bool]]:
    """(tool, text, is_error) of one call of every listed tool, with its required arguments."""
    from .test_error_paths import call_every_tool

    answers = call_every_tool(root, lambda name, required: [required])
    return [(name, text, is_error) for name, _, text, is_error in answers]


@pytest.mark.parametrize("damage", ["garbage", "directory"])
def test_a_server_whose_database_cannot_be_opened_says_so_in_every_tool_answer(repo, damage: str) -> None:
    repo.write("a.py", "def a():\n    pass\n")
    repo.commit()
    db = repo.root / ".annals" / "annals.db"
    db.parent.mkdir()
    if damage == "garbage":
        db.write_bytes(b"garbage" * 1000)
    else:
        db.mkdir()
    answers = _every_tool_over(repo.root)
    assert "index_status" in {name for name, _, _ in answers} and len(answers) > 20
    for name, text, is_error in answers:
        if name in ACTING and not text.startswith("the index"):
            continue  # refused for its own arguments before it reached the database
        assert is_error, (name, text)
        assert text.startswith("the index database cannot be used"), (name, text)
        assert str(db) in text and f"mv {db} {db}.damaged && annals -C {repo.root}" in text, (name, text)
    if damage == "garbage":
        assert db.read_bytes().startswith(b"garbage")  # said, never repaired behind the user's back


def test_a_server_over_a_repaired_database_answers_again_without_a_restart(repo) -> None:
    from codeannals.indexer.run import index_tree
    from codeannals.server.app import App
    from codeannals.server.mcp import build_server
    from mcp import Client

    repo.write("a.py", "def a():\n    pass\n")
    repo.commit()
    db = repo.root / ".annals" / "annals.db"
    db.parent.mkdir()
    db.write_bytes(b"garbage" * 1000)

    async def go() -> tuple[bool, bool]:
        async with Client(build_server(App.for_repo(repo.root))) as client:
            broken = (await client.call_tool("index_status", {})).is_error
            db.rename(db.with_suffix(".damaged"))
            conn = open_store(db)
            index_tree(repo.root, conn)
            conn.close()
            return broken, (await client.call_tool("index_status", {})).is_error

    import anyio

    assert anyio.run(go) == (True, False)


def test_serve_over_a_corrupt_database_says_so_on_stderr_and_answers_with_the_cause(repo) -> None:
    import json
    import subprocess
    import sys

    repo.write("a.py", "def a():\n    pass\n")
    repo.commit()
    db = repo.root / ".annals" / "annals.db"
    db.parent.mkdir()
    db.write_bytes(b"garbage" * 1000)
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "index_status", "arguments": {}}},
    ]
    exe = Path(sys.executable).parent / "annals"
    env = {**os.environ, "ANNALS_VECTORS": "on"}  # the vectors' thread must not trip over it either
    proc = subprocess.Popen(
        [str(exe), "-C", str(repo.root), "serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("".join(json.dumps(m) + "\n" for m in messages))
    proc.stdin.flush()
    answers = [json.loads(proc.stdout.readline()) for _ in range(2)]
    proc.stdin.close()
    stderr = proc.stderr.read() if proc.stderr else ""
    assert proc.wait(timeout=60) == 0
    result = answers[1]["result"]
    assert result["isError"] and "file is not a database" in result["content"][0]["text"]
    assert "annals index" in result["content"][0]["text"]
    assert "cannot open" in stderr and "Traceback" not in stderr


CORRUPT_DB_COMMANDS = [
    ["status"],
    ["symbols"],
    ["search", "a"],
    ["contract", "a.py"],
    ["deps"],
    ["impact", "a.py"],
    ["history", "a.py::a"],
    ["events"],
    ["verify"],
    ["rebuild"],
    ["similar", "a.py::a"],
    ["vectors"],
    ["state"],
    ["safepoints"],
    ["watch"],
    ["watch", "--daemon"],
    ["watch", "status"],
    ["index", "--no-vectors"],
]


@pytest.mark.parametrize("args", CORRUPT_DB_COMMANDS, ids=[" ".join(a) for a in CORRUPT_DB_COMMANDS])
def test_every_command_over_a_corrupt_database_is_one_line_naming_it(repo, args: list[str]) -> None:
    from .test_error_paths import one_line_error, run

    repo.write("a.py", "def a():\n    pass\n")
    repo.commit()
    db = repo.root / ".annals" / "annals.db"
    db.parent.mkdir()
    db.write_bytes(b"garbage" * 1000)
    line = one_line_error(run(repo.root, *args))
    assert str(db) in line and "annals index" in line
    assert db.read_bytes().startswith(b"garbage")


def test_a_database_error_while_answering_is_a_tool_error_with_its_fix(indexed_db: Path, repo) -> None:
    """Opened fine, then failed mid-answer (here: a projection table gone): the tool says what failed
    and what to do, as the command line does, instead of the SDK's bare 'Error executing tool'."""
    from codeannals.server.app import App
    from codeannals.server.mcp import build_server

    from .mcp_support import call, error_text

    server = build_server(App(repo.root, indexed_db))
    conn = sqlite3.connect(indexed_db)
    conn.execute("DROP TABLE call_effects")
    conn.close()
    text = error_text(call(server, "get_module_contract", {"path": "m1.py"}))
    assert text.startswith("the index database failed while answering:") and str(indexed_db) in text
    assert "no such table: call_effects" in text and "annals verify" in text
