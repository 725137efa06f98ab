"""Every symbol's callers kept by `annals index` (store/keptcallers.py): read only while they are exactly what the
call graph says."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from subprocess import CompletedProcess
from typing import Any

from codeannals.indexer.keepcallers import keep_callers
from codeannals.indexer.run import index_tree
from codeannals.indexer.watching.watch import Watcher
from codeannals.store import callgraph, open_store
from codeannals.store.keptcallers import KEPT_LIMIT, kept_callers, standing
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


def _live(conn: sqlite3.Connection) -> dict[str, list[dict[str, Any]]]:
    """Every symbol's callers as the call graph classifies them (nothing kept yet)."""
    rows = conn.execute("SELECT * FROM symbols").fetchall()
    return {r["id"]: callgraph.callers(conn, symbol_dict(r), limit=KEPT_LIMIT) for r in rows}


def test_kept_callers_are_the_call_graphs_answers_until_a_file_changes(repo: Repo, db_path: Path) -> None:
    repo.write("shapes.py", SHAPES)
    repo.write("use.py", USE)
    repo.write("test_use.py", TESTS)
    conn = open_store(db_path)
    index_tree(repo.root, conn)
    live = _live(conn)
    assert {c["caller"] for c in live["shapes.py::Square.__init__"]} == {"use.py::make"}
    assert {c["basis"] for c in live["shapes.py::Square.area"]} >= {"override"}  # Shape.describe's self.area()

    kept = keep_callers(conn, db_path)
    assert kept["state"] == "kept" and kept["symbols"] == len(live)
    assert keep_callers(conn, db_path) == {"state": "standing"}
    other = open_store(db_path)  # a fresh process: nothing classified yet, all of it read from the kept answers
    for symbol_id, answer in live.items():
        assert kept_callers(other, symbol_id, KEPT_LIMIT) == answer, symbol_id
        assert kept_callers(other, symbol_id, 1) == answer[:1]
    assert kept_callers(other, "shapes.py::Square.area", KEPT_LIMIT + 1) is None  # more than was kept

    repo.write("use.py", USE + "\n\ndef grow(s):\n    return Square(s.side + 1)\n")
    index_tree(repo.root, conn)
    assert kept_callers(other, "shapes.py::Square.__init__", KEPT_LIMIT) is None  # made for the index before
    square = other.execute("SELECT * FROM symbols WHERE id = 'shapes.py::Square.__init__'").fetchone()
    now = {c["caller"] for c in callgraph.callers(other, symbol_dict(square), limit=KEPT_LIMIT)}
    assert now == {"use.py::make", "use.py::grow"}

    assert keep_callers(conn, db_path)["state"] == "kept"
    fresh = open_store(db_path)
    assert {c["caller"] for c in kept_callers(fresh, "shapes.py::Square.__init__", KEPT_LIMIT) or []} == now
    for c in (conn, other, fresh):
        c.close()


def test_callers_kept_by_other_code_are_never_read(repo: Repo, db_path: Path) -> None:
    repo.write("shapes.py", SHAPES)
    repo.write("use.py", USE)
    conn = open_store(db_path)
    index_tree(repo.root, conn)
    assert keep_callers(conn, db_path)["state"] == "kept"
    conn.execute("UPDATE kept_callers_state SET code = 'another version'")
    conn.commit()
    upgraded = open_store(db_path)  # a process of the other version
    assert kept_callers(upgraded, "shapes.py::Square.__init__", KEPT_LIMIT) is None
    assert keep_callers(upgraded, db_path)["state"] == "kept"  # the next `annals index` keeps them anew
    assert kept_callers(upgraded, "shapes.py::Square.__init__", KEPT_LIMIT) is not None
    conn.close()
    upgraded.close()


def test_annals_index_keeps_the_callers_and_says_so(repo: Repo, annals: Callable[..., CompletedProcess[str]]) -> None:
    repo.write("shapes.py", SHAPES)
    repo.write("use.py", USE)
    repo.commit()
    first = json.loads(annals("index", "--wait", "--no-history", "--json").stdout)
    assert first["callers"]["state"] == "kept" and first["callers"]["symbols"] >= 6
    again = annals("index", "--wait", "--no-history").stdout
    assert "callers: kept, and still those of the index" in again


def test_a_watcher_has_the_callers_kept_again_once_the_index_is_still(repo: Repo) -> None:
    repo.write("shapes.py", SHAPES)
    repo.write("use.py", USE)
    repo.commit()
    db = repo.root / ".annals" / "annals.db"
    conn = open_store(db)
    index_tree(repo.root, conn)
    assert keep_callers(conn, db)["state"] == "kept"
    watcher = Watcher(repo.root, db, debounce=0.05, callers_quiet=0.5)
    watcher.start()
    try:
        watcher.flush()
        repo.write("use.py", USE + "\n\ndef grow(s):\n    return Square(s.side + 1)\n")
        watcher.flush()
        assert not standing(conn)  # made for the index before the edit
        deadline = time.monotonic() + 60
        while not standing(conn) and time.monotonic() < deadline:
            time.sleep(0.2)
        callers = kept_callers(conn, "shapes.py::Square.__init__", KEPT_LIMIT)
        assert callers is not None and {c["caller"] for c in callers} == {"use.py::make", "use.py::grow"}
    finally:
        watcher.stop()
        conn.close()
