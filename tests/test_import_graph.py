"""store/graph.py: the one walk of the import graph answers as the SQL edges of store/lookups.py say, and
follows the index."""

from __future__ import annotations

import sqlite3

from codeannals.indexer.run import index_tree
from codeannals.store import default_db_path, open_store, queries
from codeannals.store.graph import TEST_IMPORT_DEPTH, ImportGraph, import_graph

from .conftest import Repo
from .mcp_support import FILES


def _distances_over_sql(conn: sqlite3.Connection, path: str, reverse: bool, depth: int) -> dict[str, int]:
    """Each file's shortest import distance from `path`, level by level over the SQL edges (no graph)."""
    distance, level = {path: 0}, [path]
    for step in range(1, depth + 1):
        nexts = set()
        for current in level:
            if reverse:
                nexts.update(queries.dependents(conn, current))
            else:
                nexts.update(d["target"] for d in queries.dependencies(conn, current) if d["kind"] == "file")
        level = sorted(nexts - set(distance))
        distance.update(dict.fromkeys(level, step))
    return distance


def importers(graph: ImportGraph, path: str) -> list[str]:
    """The files one reverse import from `path`, as the graph walks them."""
    return sorted(p for p in graph.walk([path], reverse=True, depth=1) if p != path)


def test_the_graph_in_memory_answers_as_the_queries_do(repo: Repo) -> None:
    for rel, text in FILES.items():
        repo.write(rel, text)
    conn = open_store(default_db_path(repo.root))
    try:
        index_tree(repo.root, conn)
        graph = import_graph(conn)
        paths = [r[0] for r in conn.execute("SELECT path FROM files ORDER BY path")]
        assert importers(graph, "shop/config.py")  # the comparison below is not of empty answers
        deep = 0  # walks that found a file more than one import away: the comparison is not of one hop
        for path in paths:
            assert importers(graph, path) == queries.dependents(conn, path), path
            for depth in (1, 2, 4):
                for reverse in (True, False):
                    expected = _distances_over_sql(conn, path, reverse, depth)
                    found = queries.transitive(conn, path, reverse=reverse, depth=depth)
                    assert {d["path"]: d["distance"] for d in found} == {p: d for p, d in expected.items() if p != path}
                    assert found == sorted(found, key=lambda d: (d["distance"], d["path"])), (path, reverse, depth)
                    deep += any(d["distance"] > 1 for d in found)
            tests = sorted(
                p for p in _distances_over_sql(conn, path, True, TEST_IMPORT_DEPTH) if queries.is_test_path(p)
            )
            assert queries.tests_for_path(conn, path) == graph.tests_for_path(path) == tests, path
        assert deep
        assert queries.tests_reaching(conn, paths) == {t for p in paths for t in queries.tests_for_path(conn, p)}
        assert import_graph(conn) is graph  # nothing changed: the same snapshot

        repo.write(
            "shop/discounts.py",
            "from shop.prices import parse_price\n\n\ndef discount(t):\n    return parse_price(t) // 2\n",
        )
        index_tree(repo.root, conn)
        changed = import_graph(conn)
        assert changed is not graph
        assert "shop/discounts.py" in importers(changed, "shop/prices.py")
        repo.remove("shop/discounts.py")
        index_tree(repo.root, conn)
        assert "shop/discounts.py" not in importers(import_graph(conn), "shop/prices.py")
    finally:
        conn.close()


def test_callers_from_the_graph_are_the_callers_of_the_queries(repo: Repo) -> None:
    for rel, text in FILES.items():
        repo.write(rel, text)
    conn = open_store(default_db_path(repo.root))
    try:
        index_tree(repo.root, conn)
        graph = import_graph(conn)
        symbols = queries.list_symbols(conn)
        bases = set()
        for symbol in symbols:
            expected = queries.callers(conn, symbol, limit=500)
            found = graph.callers(conn, symbol, limit=500)
            key = lambda c: (c["path"], c["line"] or 0, c["caller"] or "")  # noqa: E731 - ties: any order
            assert sorted(found, key=key) == sorted(expected, key=key), symbol["id"]
            assert [(c["basis"], c["path"]) for c in found] == [(c["basis"], c["path"]) for c in expected]
            bases.update(c["basis"] for c in found)
        assert bases == {"same file", "imported name", "constructor"}  # the shop's calls all resolve
        parse = queries.find_symbol(conn, "parse_price")
        assert len(graph.callers(conn, parse, limit=2)) == 2
    finally:
        conn.close()


def test_read_caches_outlive_tool_calls_but_not_a_changed_file(repo: Repo) -> None:
    """The server appends an event for every tool call: the caches the next answer reuses (the call
    resolver, the test walks' facts) must survive those, and go when code changes."""
    from codeannals.store import memory
    from codeannals.store.db import held_while_unchanged
    from codeannals.store.events import ToolCalled

    repo.write("a.py", "def f():\n    return 1\n")
    conn = open_store(default_db_path(repo.root))
    index_tree(repo.root, conn)
    first = held_while_unchanged(conn, "probe", object)
    memory.record(conn, [ToolCalled(tool="search_symbols", at="2026-11-24T00:00:00Z", duration_ms=1.0, ok=True)])
    assert held_while_unchanged(conn, "probe", object) is first
    repo.write("a.py", "def f():\n    return 2\n")
    index_tree(repo.root, conn)
    assert held_while_unchanged(conn, "probe", object) is not first


def test_a_snapshot_follows_what_another_connection_indexes(repo: Repo) -> None:
    """A reader's snapshot (the server's connection) is rebuilt when the indexer's connection commits a change:
    the reader checks its stamp once per change of the database, not once per question."""
    repo.write("a.py", "def f():\n    return 1\n")
    writer = open_store(default_db_path(repo.root))
    index_tree(repo.root, writer)
    reader = open_store(default_db_path(repo.root))
    try:
        graph = import_graph(reader)
        assert import_graph(reader) is graph
        repo.write("b.py", "from a import f\n\n\ndef g():\n    return f()\n")
        index_tree(repo.root, writer)
        changed = import_graph(reader)
        assert changed is not graph
        assert importers(changed, "a.py") == ["b.py"]
        assert import_graph(reader) is changed
    finally:
        reader.close()
        writer.close()
