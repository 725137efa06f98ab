"""The tiered index (issue 16): outlined files answer search at once, completing them gives what a
one-pass index gives, a killed completer loses nothing, and an answer that needs a file's calls
completes that file first."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from codeannals.indexer.complete import complete, complete_all, lock_path
from codeannals.indexer.freshness import freshness
from codeannals.indexer.run import index_tree
from codeannals.server.app import App
from codeannals.server.commands.index import RECENT_HISTORY
from codeannals.server.mcp import build_server
from codeannals.store import default_db_path, open_store, queries
from codeannals.store.lock import WriterLock
from codeannals.store.lookups import outlined_paths
from codeannals.store.maintenance import verify

from .conftest import Repo
from .mcp_support import call, data

MODULES = 70  # above OUTLINE_FROM: `annals index` outlines first


def _module(i: int) -> str:
    return (
        f'"""Module {i}: totals of the ledger."""\n'
        "import os\n"
        "from pkg import base\n\n\n"
        f"def total_{i}(rows: list[int]) -> int:\n"
        f'    """Sum the ledger rows of book {i}."""\n'
        "    return base.helper(sum(rows))\n\n\n"
        f"class Book{i}:\n"
        "    def save(self, path: str) -> None:\n"
        "        # req: LEDGER-1\n"
        "        os.remove(path)\n"
    )


def _tree(repo: Repo, modules: int = 6) -> None:
    repo.write("pkg/__init__.py", "")
    repo.write("pkg/base.py", '"""Shared helpers."""\n\n\ndef helper(x: int) -> int:\n    return x + 1\n')
    for i in range(modules):
        repo.write(f"pkg/m{i}.py", _module(i))
    repo.write("tests/test_m0.py", "from pkg.m0 import total_0\n\n\ndef test_total():\n    assert total_0([1]) == 2\n")
    repo.commit("ledger")


def _facts(conn: sqlite3.Connection) -> dict[str, list[tuple]]:
    """Every fact a complete index serves, without positions in the log."""
    return {
        "files": conn.execute("SELECT path, status, module, content_hash, tier FROM files ORDER BY path").fetchall(),
        "symbols": conn.execute("SELECT * FROM symbols ORDER BY id").fetchall(),
        "imports": conn.execute("SELECT path, module, target FROM resolved_imports ORDER BY path, ordinal").fetchall(),
        "calls": conn.execute("SELECT * FROM calls ORDER BY path, caller, name").fetchall(),
        "contracts": conn.execute("SELECT * FROM modules ORDER BY path").fetchall(),
        "effects": conn.execute("SELECT * FROM call_effects ORDER BY path, symbol, kind").fetchall(),
        "tags": conn.execute("SELECT * FROM requirement_tags ORDER BY tag, path").fetchall(),
        "full text": conn.execute(
            "SELECT id, name, qualname, signature, doc, path FROM symbols_fts ORDER BY id"
        ).fetchall(),
    }


def test_an_outlined_file_answers_search_before_its_calls_are_read(repo: Repo, store: sqlite3.Connection) -> None:
    _tree(repo)
    report = index_tree(repo.root, store, outline_from=1)
    assert report.outlined == report.indexed == 9
    hits = queries.search(store, "ledger rows")  # a docstring's words
    assert "pkg/m0.py::total_0" in {h["id"] for h in hits}
    row = queries.find_symbol(store, "pkg/m3.py::Book3.save")
    assert row["signature"] == "def save(self, path: str) -> None" and row["body_hash"] is None
    assert queries.callers(store, queries.find_symbol(store, "pkg/base.py::helper")) == []  # not read yet, and said so:
    assert freshness(repo.root, store)["incomplete_files"] == 9
    assert verify(store)["ok"]


def test_completing_gives_what_a_one_pass_index_gives(repo: Repo, tmp_path: Path) -> None:
    _tree(repo)
    tiered, one_pass = open_store(tmp_path / "tiered.db"), open_store(tmp_path / "one.db")
    index_tree(repo.root, tiered, outline_from=1)
    report = complete(repo.root, tiered)
    index_tree(repo.root, one_pass)
    assert report.completed == 9
    assert _facts(tiered) == _facts(one_pass)
    assert freshness(repo.root, tiered)["incomplete_files"] == 0
    assert verify(tiered)["ok"]
    # each symbol's history starts as a one-pass index's does: added once
    added = tiered.execute("SELECT COUNT(*) FROM events WHERE type = 'symbol.added'").fetchone()[0]
    assert added == tiered.execute("SELECT COUNT(*) FROM symbols").fetchone()[0]
    assert index_tree(repo.root, tiered).events == 0


def test_a_file_changed_or_removed_after_its_outline_is_completed_as_it_is_now(repo: Repo, tmp_path: Path) -> None:
    _tree(repo)
    conn = open_store(tmp_path / "tiered.db")
    index_tree(repo.root, conn, outline_from=1)
    repo.write("pkg/m1.py", _module(1).replace("def total_1", "def grand_total_1"))
    repo.remove("pkg/m2.py")
    complete(repo.root, conn)
    fresh = open_store(tmp_path / "fresh.db")
    index_tree(repo.root, fresh)
    assert _facts(conn) == _facts(fresh)
    assert not conn.execute("SELECT 1 FROM symbols_fts WHERE path MATCH 'm2'").fetchall()  # no outline left behind


def test_the_files_being_worked_on_are_completed_first(repo: Repo, tmp_path: Path) -> None:
    _tree(repo)
    repo.write("pkg/m3.py", _module(3).replace("ledger", "journal"))
    repo.commit("journal")
    repo.write("pkg/m5.py", _module(5).replace("ledger", "register"))  # not committed yet
    conn = open_store(tmp_path / "tiered.db")
    index_tree(repo.root, conn, outline_from=1)
    complete(repo.root, conn)
    completed = [
        json.loads(payload)["path"]
        for (payload,) in conn.execute("SELECT payload FROM events WHERE type = 'file.indexed' ORDER BY seq")
    ]
    rest = ["pkg/__init__.py", "pkg/base.py", "pkg/m0.py", "pkg/m1.py", "pkg/m2.py", "pkg/m4.py", "tests/test_m0.py"]
    assert completed == ["pkg/m5.py", "pkg/m3.py", *rest]


def test_a_completer_killed_mid_batch_loses_nothing_and_the_next_one_finishes(repo: Repo, tmp_path: Path) -> None:
    _tree(repo)
    db = tmp_path / "tiered.db"
    conn = open_store(db)
    index_tree(repo.root, conn, outline_from=1)
    worker = [sys.executable, "-m", "codeannals.indexer.background", "--root", str(repo.root), "--db", str(db)]
    killed = subprocess.run(worker, env={**os.environ, "ANNALS_CRASH_AT": "mid-batch:4"}, capture_output=True)
    assert killed.returncode == -9
    assert freshness(repo.root, conn)["incomplete_files"] == 9  # its batch never committed
    assert verify(conn)["ok"]
    subprocess.run(worker, check=True, capture_output=True)  # the lock died with the killed one
    fresh = open_store(tmp_path / "fresh.db")
    index_tree(repo.root, fresh)
    assert _facts(conn) == _facts(fresh)


def test_waiting_for_completion_waits_for_the_process_that_holds_the_lock(repo: Repo, tmp_path: Path) -> None:
    _tree(repo)
    db = tmp_path / "tiered.db"
    conn = open_store(db)
    index_tree(repo.root, conn, outline_from=1)
    other = WriterLock(lock_path(db))
    assert other.acquire()
    seen: list[int] = []

    def progress(_done: int, left: int) -> None:
        seen.append(left)
        if len(seen) == 3:  # the holder finishes its work and goes
            complete(repo.root, open_store(db))
            other.release()

    assert complete_all(repo.root, db, conn, progress) is None  # the work was the other's
    assert seen[:3] == [9, 9, 9]
    assert freshness(repo.root, conn)["incomplete_files"] == 0


def test_an_answer_that_needs_calls_completes_its_file_first_and_says_so(repo: Repo) -> None:
    _tree(repo)
    conn = open_store(default_db_path(repo.root))
    index_tree(repo.root, conn, outline_from=1)
    server = build_server(App.for_repo(repo.root))
    answer = data(call(server, "get_symbol", {"symbol": "pkg/m0.py::total_0"}))
    # the file, and the outlined files that name it: where its callers and tests can be
    assert answer["freshness"]["completed_on_demand"] == ["pkg/m0.py", "tests/test_m0.py"]
    assert answer["symbol"]["body_hash"] and answer["tests"] == ["tests/test_m0.py::test_total"]
    assert "helper" in [c["name"] for c in answer["callees"]]
    again = data(call(server, "get_symbol", {"symbol": "pkg/m0.py::total_0"}))
    assert again["freshness"]["completed_on_demand"] == []
    contract = data(call(server, "get_module_contract", {"path": "pkg/m4.py"}))
    assert contract["freshness"]["completed_on_demand"] == ["pkg/m4.py"] and contract["side_effects"]
    by_module = data(call(server, "impact_analysis", {"target": "pkg.m5"}))  # a module name, not a path
    assert by_module["freshness"]["completed_on_demand"] == ["pkg/m5.py"]


def test_a_pack_completes_the_modules_it_shows_and_says_what_is_still_outlined(repo: Repo) -> None:
    # Before, a pack made while the index completed said "imports: nothing · used by 0 · tests: none found" of
    # every module it showed: facts not read yet, given as facts.
    _tree(repo)
    conn = open_store(default_db_path(repo.root))
    index_tree(repo.root, conn, outline_from=1)
    server = build_server(App.for_repo(repo.root))
    task = "fix the sum in total_0 of the ledger rows"
    result = call(server, "get_context_pack", {"task": task, "budget_tokens": 4000})
    answer, markdown = data(result), result.content[0].text
    completed = answer["freshness"]["completed_on_demand"]
    assert {"pkg/m0.py", "tests/test_m0.py"} <= set(completed)
    m0 = next(m for m in answer["modules"] if m["path"] == "pkg/m0.py")
    assert "pkg/base.py" in m0["imports"] and m0["tests"] == ["tests/test_m0.py::test_total"]
    still = len(outlined_paths(conn))
    assert still and f"The index is still completing {still} files" in markdown
    complete(repo.root, conn)
    again = call(server, "get_context_pack", {"task": task})
    assert data(again)["freshness"]["completed_on_demand"] == [] and "still completing" not in again.content[0].text


def test_the_command_line_completes_what_it_answers_about_as_the_tools_do(
    repo: Repo, annals: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    _tree(repo)
    conn = open_store(default_db_path(repo.root))
    index_tree(repo.root, conn, outline_from=1)
    conn.close()
    impact = annals("impact", "pkg/m0.py::total_0", "--json")
    assert json.loads(impact.stdout)["tests"] == ["tests/test_m0.py::test_total"]
    assert "completed 2 search-ready files first: pkg/m0.py, tests/test_m0.py" in impact.stderr
    assert "the index is still completing 7 files" in impact.stderr
    packed = annals("pack", "the sum in total_3 of the ledger", "--json")
    assert "pkg/m3.py" in json.loads(packed.stdout)["freshness"]["completed_on_demand"]
    assert annals("deps", "pkg/m1.py").stdout.splitlines()[-1].split() == ["file", "pkg/base.py"]
    contract = json.loads(annals("contract", "pkg/base.py", "--json").stdout)
    assert set(contract["dependents"]) == {f"pkg/m{i}.py" for i in range(6)}  # its importers name `base`
    annals("index", "--wait", "--no-history")
    assert "note:" not in annals("impact", "pkg/m0.py::total_0").stderr


def test_annals_index_returns_search_ready_and_completes_in_the_background(
    repo: Repo, annals: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    _tree(repo, MODULES)
    first = json.loads(annals("index", "--json", "--no-history").stdout)
    assert first["outlined"] == MODULES + 3 and first["complete"]["state"] == "pending"
    assert "search-ready" in annals("status").stdout
    # --wait right away: it completes what the background process has not (or waits for it)
    waited = json.loads(annals("index", "--json", "--wait", "--no-history").stdout)
    assert waited["complete"]["state"] == "complete"
    tiers = json.loads(annals("status", "--json").stdout)["tiers"]
    assert tiers["complete"] == tiers["search_ready"] == MODULES + 3
    repo.write("pkg/late.py", "def late():\n    return 1\n")
    assert json.loads(annals("index", "--json", "--no-history").stdout)["outlined"] == 0  # one new file: whole
    assert json.loads(annals("status", "--json").stdout)["incomplete_files"] == 0
    assert annals("verify").returncode == 0


def test_the_background_completer_finishes_alone(
    repo: Repo, annals: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    _tree(repo, MODULES)
    assert json.loads(annals("index", "--json", "--no-history").stdout)["complete"]["state"] == "pending"
    deadline = time.monotonic() + 60
    while (tiers := json.loads(annals("status", "--json").stdout)["tiers"])["complete"] < MODULES + 3:
        assert time.monotonic() < deadline, tiers
        time.sleep(0.2)
    assert "completed 73 files" in (repo.root / ".annals/logs/complete.log").read_text()


def test_tests_affected_by_a_change_are_read_from_complete_facts(repo: Repo, store: sqlite3.Connection) -> None:
    from codeannals.indexer.git.symdiff import WORKTREE, diff_symbols

    _tree(repo)
    index_tree(repo.root, store, outline_from=1)
    repo.write("pkg/m0.py", _module(0).replace("sum(rows)", "sum(rows) * 2"))
    answer = diff_symbols(repo.root, store, "HEAD", WORKTREE)
    assert answer["tests_affected"] == ["tests/test_m0.py"]  # its imports were read for this answer
    assert "tests/test_m0.py" not in outlined_paths(store)


def test_recent_history_is_recorded_once_the_index_is_complete(
    repo: Repo, annals: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    _tree(repo, MODULES)
    repo.write("pkg/m0.py", _module(0).replace("sum(rows)", "sum(rows) * 2"))
    repo.commit("double the totals")
    first = json.loads(annals("index", "--json").stdout)
    assert first["history"] == {"state": "after completion", "limit": RECENT_HISTORY}
    db = repo.root / ".annals/annals.db"
    deadline = time.monotonic() + 60
    while "history: 2 commits recorded" not in (log := (repo.root / ".annals/logs/complete.log").read_text()):
        assert time.monotonic() < deadline, log
        time.sleep(0.2)
    conn = open_store(db)
    recorded = [json.loads(r[0]) for r in conn.execute("SELECT payload FROM events WHERE type = 'commit.recorded'")]
    doubled = next(r for r in recorded if r["title"] == "double the totals")
    assert doubled["tests"] == ["tests/test_m0.py"]


def test_the_index_report_says_the_vectors_come_after_completion() -> None:
    from codeannals.server.commands.similarity import vectors_line

    assert vectors_line({"state": "after completion"}) == (
        "vectors: embedded in the background once the index is complete"
    )


FIXTURES = Path(__file__).parent / "fixtures" / "languages"
OUTLINE_SOURCES = [
    *((f"src/{p.name}", p.read_bytes()) for p in sorted(FIXTURES.iterdir())),
    ("src/shop.py", _module(1).encode() + b"\n__all__ = ['total_1']\n\n@overload\ndef f(x: int) -> int: ...\n"),
    ("src/notes.md", b"# Title\n\nText.\n\n## Section\n\nMore.\n"),  # a grammar without a query of ours
]


@pytest.mark.parametrize(("path", "source"), OUTLINE_SOURCES, ids=[p for p, _ in OUTLINE_SOURCES])
def test_an_outline_finds_the_definitions_a_full_extraction_finds(path: str, source: bytes) -> None:
    from codeannals.indexer.parsing.extract import extract, outline
    from codeannals.indexer.parsing.parse import language_for

    lang = language_for(path)
    assert lang is not None
    full, outlined = extract(path, source, lang), outline(path, source, lang)
    without_hashes = [{**s, "signature_hash": None, "body_hash": None} for s in full.symbols]
    assert outlined.symbols == without_hashes and outlined.symbols
    assert (outlined.module_doc, outlined.lines) == (full.module_doc, full.lines)
    assert outlined.imports == outlined.calls == outlined.tags == []


def test_tests_affected_by_a_package_change_complete_the_files_importing_the_package(
    repo: Repo, store: sqlite3.Connection
) -> None:
    from codeannals.indexer.git.symdiff import WORKTREE, diff_symbols

    _tree(repo)
    repo.write("tests/test_pkg.py", "import pkg\n\n\ndef test_package():\n    assert pkg\n")
    repo.commit("a test of the package")
    index_tree(repo.root, store, outline_from=1)
    repo.write("pkg/__init__.py", "def init_helper():\n    return 1\n")  # a name the test never writes
    answer = diff_symbols(repo.root, store, "HEAD", WORKTREE)
    assert "tests/test_pkg.py" in answer["tests_affected"]  # importers write `pkg`, not `__init__`
