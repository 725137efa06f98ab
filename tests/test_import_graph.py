"""store/graph.py gives the same answers as the SQL walks of store/queries.py, and follows the index."""

from __future__ import annotations

from codeannals.indexer.run import index_tree
from codeannals.store import default_db_path, open_store, queries
from codeannals.store.graph import import_graph

from .conftest import Repo
from .mcp_support import FILES


def test_the_graph_in_memory_answers_as_the_queries_do(repo: Repo) -> None:
    for rel, text in FILES.items():
        repo.write(rel, text)
    conn = open_store(default_db_path(repo.root))
    try:
        index_tree(repo.root, conn)
        graph = import_graph(conn)
        paths = [r[0] for r in conn.execute("SELECT path FROM files ORDER BY path")]
        assert graph.dependents("shop/config.py")  # the comparison below is not of empty answers
        for path in paths:
            assert graph.dependents(path) == queries.dependents(conn, path), path
            assert graph.tests_for_path(path) == queries.tests_for_path(conn, path), path
            for depth in (1, 2, 4):
                for reverse in (True, False):
                    assert graph.transitive(path, reverse=reverse, depth=depth) == queries.transitive(
                        conn, path, reverse=reverse, depth=depth
                    ), (path, reverse, depth)
        assert import_graph(conn) is graph  # nothing changed: the same snapshot

        repo.write(
            "shop/discounts.py",
            "from shop.prices import parse_price\n\n\ndef discount(t):\n    return parse_price(t) // 2\n",
        )
        index_tree(repo.root, conn)
        changed = import_graph(conn)
        assert changed is not graph
        assert "shop/discounts.py" in changed.dependents("shop/prices.py")
        repo.remove("shop/discounts.py")
        index_tree(repo.root, conn)
        assert "shop/discounts.py" not in import_graph(conn).dependents("shop/prices.py")
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
