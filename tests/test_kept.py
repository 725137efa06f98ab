"""Every symbol's callers, every module's tests and facts, kept by `annals index` (store/kept.py): read only while
they are exactly what the code would work out."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from subprocess import CompletedProcess
from typing import Any

from codeannals.indexer.keep import keep_answers
from codeannals.indexer.run import index_tree
from codeannals.indexer.watching.watch import Watcher
from codeannals.store import bodies, callgraph, open_store, testmap
from codeannals.store.graph import import_graph
from codeannals.store.kept import CALLERS, KINDS, MODULE_FACTS, MODULE_TESTS, kept, standing
from codeannals.store.maintenance import rebuild
from codeannals.store.modulefacts import made_facts, module_facts
from codeannals.store.relevance import stem
from codeannals.store.symbol import symbol_dict

from .conftest import Repo

SHAPES = """
class Shape:
    def area(self):
        return 0

    def describe(self):
        return f"{self.area()}"


class Square(Shape):
    def __init__(self, side):
        self.side = side

    def area(self):
        return self.side * self.side
"""
USE = """
from shapes import Square


def make(side):
    return Square(side)


def total(shapes):
    return sum(s.area() for s in shapes)
"""
TESTS = """
from use import make, total


def test_total():
    assert total([make(2)]) == 4
"""


def _indexed(repo: Repo, db_path: Path, *, with_tests: bool = False) -> sqlite3.Connection:
    """shapes.py and use.py (and a test of them) indexed, nothing kept yet."""
    repo.write("shapes.py", SHAPES)
    repo.write("use.py", USE)
    if with_tests:
        repo.write("test_use.py", TESTS)
    conn = open_store(db_path)
    index_tree(repo.root, conn)
    return conn


def _live(conn: sqlite3.Connection) -> dict[str, list[dict[str, Any]]]:
    """Every symbol's callers as the call graph classifies them (nothing kept yet)."""
    rows = conn.execute("SELECT * FROM symbols").fetchall()
    return {r["id"]: callgraph.callers(conn, symbol_dict(r), limit=callgraph.KEPT_LIMIT) for r in rows}


def _symbol(conn: sqlite3.Connection, symbol_id: str) -> dict[str, Any]:
    return symbol_dict(conn.execute("SELECT * FROM symbols WHERE id = ?", (symbol_id,)).fetchone())


def _kept_callers(conn: sqlite3.Connection, symbol_id: str) -> set[str]:
    return {call[1] for call in kept(conn, CALLERS, symbol_id) or []}


def test_kept_callers_are_the_call_graphs_answers_until_a_file_changes(repo: Repo, db_path: Path) -> None:
    conn = _indexed(repo, db_path, with_tests=True)
    live = _live(conn)
    assert {c["caller"] for c in live["shapes.py::Square.__init__"]} == {"use.py::make"}
    assert {c["basis"] for c in live["shapes.py::Square.area"]} >= {"override"}  # Shape.describe's self.area()

    done = keep_answers(conn, repo.root, db_path)
    assert done["state"] == "kept" and done["symbols"] == len(live) and done["modules"] == 3
    assert keep_answers(conn, repo.root, db_path) == {"state": "standing", "words": 0}
    other = open_store(db_path)  # a fresh process: nothing classified yet, all of it read from the kept answers
    for symbol_id, answer in live.items():
        assert kept(other, CALLERS, symbol_id) == callgraph.kept_form(answer), symbol_id
        assert callgraph.callers(other, _symbol(other, symbol_id), limit=1) == answer[:1]

    repo.write("use.py", USE + "\n\ndef grow(s):\n    return Square(s.side + 1)\n")
    index_tree(repo.root, conn)
    assert kept(other, CALLERS, "shapes.py::Square.__init__") is None  # made for the index before
    now = {c["caller"] for c in callgraph.callers(other, _symbol(other, "shapes.py::Square.__init__"), limit=50)}
    assert now == {"use.py::make", "use.py::grow"}

    assert keep_answers(conn, repo.root, db_path)["state"] == "kept"
    assert _kept_callers(open_store(db_path), "shapes.py::Square.__init__") == now
    for c in (conn, other):
        c.close()


def test_kept_module_tests_and_facts_are_those_a_pack_works_out(repo: Repo, db_path: Path) -> None:
    conn = _indexed(repo, db_path, with_tests=True)
    graph = import_graph(conn)
    paths = ["shapes.py", "use.py", "test_use.py"]
    live_tests = {p: testmap.tests_for_module(conn, p, graph=graph, enough=testmap.PACK_TESTS) for p in paths}
    live_facts = {p: made_facts(conn, graph, p) for p in paths}
    assert [t.test for t in live_tests["shapes.py"]] == ["test_use.py::test_total"]  # make -> Square.__init__
    assert live_facts["use.py"]["tests"] == ["test_use.py::test_total"]

    assert keep_answers(conn, repo.root, db_path)["state"] == "kept"
    other = open_store(db_path)
    assert all(standing(other, kind) for kind in KINDS)
    for p in paths:
        assert testmap.module_tests_held(other, import_graph(other), p, testmap.PACK_TESTS) == live_tests[p], p
        assert kept(other, MODULE_FACTS, p) == live_facts[p] == module_facts(other, import_graph(other), p), p

    repo.write("test_grow.py", "from use import make\n\n\ndef test_make():\n    assert make(1).side == 1\n")
    index_tree(repo.root, conn)
    assert kept(other, MODULE_TESTS, "use.py") is None and kept(other, MODULE_FACTS, "use.py") is None
    tests = ["test_grow.py::test_make", "test_use.py::test_total"]
    assert sorted(module_facts(other, import_graph(other), "use.py")["tests"]) == tests
    assert keep_answers(conn, repo.root, db_path)["state"] == "kept"
    assert sorted(kept(open_store(db_path), MODULE_FACTS, "use.py")["tests"]) == tests
    for c in (conn, other):
        c.close()


def test_answers_kept_by_other_code_are_never_read(repo: Repo, db_path: Path) -> None:
    conn = _indexed(repo, db_path)
    assert keep_answers(conn, repo.root, db_path)["state"] == "kept"
    conn.execute("UPDATE kept_state SET code = 'another version' WHERE kind = ?", (MODULE_FACTS,))
    conn.commit()
    upgraded = open_store(db_path)  # a process of the other version
    assert kept(upgraded, MODULE_FACTS, "use.py") is None
    assert kept(upgraded, CALLERS, "shapes.py::Square.__init__") is not None  # the kinds stand apart
    assert keep_answers(upgraded, repo.root, db_path)["state"] == "kept"  # the next `annals index` keeps them anew
    assert kept(upgraded, MODULE_FACTS, "use.py") is not None
    conn.close()
    upgraded.close()


def test_a_rebuild_has_the_kept_answers_stand_aside(repo: Repo, db_path: Path) -> None:
    conn = _indexed(repo, db_path)
    assert keep_answers(conn, repo.root, db_path)["state"] == "kept"
    rebuild(conn)  # the same files stamp at its end, but rows a repair may have changed
    assert not any(standing(conn, kind) for kind in KINDS)
    assert keep_answers(conn, repo.root, db_path)["state"] == "kept"
    conn.close()


def test_annals_index_keeps_the_answers_and_says_so(repo: Repo, annals: Callable[..., CompletedProcess[str]]) -> None:
    repo.write("shapes.py", SHAPES)
    repo.write("use.py", USE)
    repo.commit()
    first = json.loads(annals("index", "--wait", "--no-history", "--json").stdout)
    assert first["kept"]["state"] == "kept" and first["kept"]["symbols"] >= 6 and first["kept"]["modules"] == 2
    again = annals("index", "--wait", "--no-history").stdout
    assert "kept: callers, module tests and facts, file words, all still those of the index" in again
    assert json.loads(annals("status", "--json").stdout)["kept"] == dict.fromkeys(KINDS, True)

    repo.write("use.py", USE + "\n\ndef grow(s):\n    return Square(s.side + 1)\n")
    conn = open_store(repo.root / ".annals" / "annals.db")
    index_tree(repo.root, conn)  # as a hook or a watcher indexes an edit: nothing keeps them yet
    conn.close()
    assert json.loads(annals("status", "--json").stdout)["kept"] == dict.fromkeys(KINDS, False)
    assert "callers, module tests, module facts: stood aside" in annals("status").stdout


def test_a_watcher_has_the_answers_kept_again_once_the_index_is_still(repo: Repo) -> None:
    repo.write("shapes.py", SHAPES)
    repo.write("use.py", USE)
    repo.commit()
    db = repo.root / ".annals" / "annals.db"
    conn = open_store(db)
    index_tree(repo.root, conn)
    assert keep_answers(conn, repo.root, db)["state"] == "kept"
    watcher = Watcher(repo.root, db, debounce=0.05, kept_quiet=0.5)
    watcher.start()
    try:
        watcher.flush()
        repo.write("use.py", USE + "\n\ndef grow(s):\n    return Square(s.side + 1)\n")
        watcher.flush()
        assert not standing(conn, CALLERS)  # made for the index before the edit
        deadline = time.monotonic() + 60
        while not all(standing(conn, kind) for kind in KINDS) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _kept_callers(conn, "shapes.py::Square.__init__") == {"use.py::make", "use.py::grow"}
        assert kept(conn, MODULE_FACTS, "use.py") is not None
    finally:
        watcher.stop()
        conn.close()


def test_each_contents_words_are_kept_and_read_while_it_is_indexed(repo: Repo, db_path: Path) -> None:
    conn = _indexed(repo, db_path)
    assert keep_answers(conn, repo.root, db_path)["words"] == 2
    hashes = dict(conn.execute("SELECT path, content_hash FROM files").fetchall())
    for path in ("shapes.py", "use.py"):
        tokenized = bodies._tokenize((repo.root / path).read_bytes())
        assert bodies.kept_words(conn, hashes[path]) == tokenized and tokenized.lines[stem("area")]
        assert bodies.file_words(repo.root, conn, path) == tokenized

    repo.write("use.py", USE + "\n\ndef grow(s):\n    return Square(s.side + 1)\n")
    index_tree(repo.root, conn)
    assert keep_answers(conn, repo.root, db_path)["words"] == 1  # the new content only
    assert bodies.kept_words(conn, hashes["use.py"]) is None  # no longer indexed: forgotten
    grown = conn.execute("SELECT content_hash FROM files WHERE path = 'use.py'").fetchone()[0]
    assert bodies.kept_words(conn, grown) == bodies._tokenize((repo.root / "use.py").read_bytes())

    # What a process reads is the kept words, not the file tokenized again: a planted answer shows through.
    planted = bodies.FileWords({"planted": (1,)}, (1,))
    conn.execute("UPDATE kept_file_words SET words = ? WHERE content_hash = ?", (bodies._packed(planted), grown))
    conn.commit()
    assert bodies.file_words(repo.root, open_store(db_path), "use.py") == planted
    conn.close()
