"""What JUnit runs around each test of a Java test class: its setup and teardown hooks (`@Before`, `@BeforeEach`,
`@BeforeAll`, ...), its constructor and its fields' initializers (JUnit makes an instance per test, and loads the class
once), for the tests the class declares, those it inherits from a test class of the project, and those of every test
class deriving from it. A call there reaches each of those tests, though none of them names the code it calls."""

from __future__ import annotations

import re
import sqlite3

from .db import held_while_unchanged
from .javatypes import ancestors
from .lookups import is_test_path
from .resolver import shared_resolver
from .suite import SuiteFiles, SuiteSymbol, is_java_test

_HOOK = re.compile(r"^@\s*(?:[\w.]+\.)?(?:Before|After)(?:Each|All|Class)?\b")  # JUnit 4's and 5's
_FIELDS = ("const", "field", "variable", "property")


def hooked_class(files: SuiteFiles, path: str, caller: str) -> SuiteSymbol | None:
    """The test class whose tests run the caller's code around each of them: a hook's, its constructor's, a field
    initializer's (whose caller is the field, or the class itself); None for anything else (a helper method runs
    where a test calls it)."""
    table = files.symbols(path)
    symbol = table.get(caller)
    if symbol is None:
        return None
    if symbol["kind"] == "class":
        return symbol
    parent = table.get(symbol["parent"] or "")
    if parent is None or parent["kind"] != "class":
        return None
    runs_around = (
        symbol["kind"] in _FIELDS
        or symbol["name"] == parent["name"]  # the constructor
        or any(_HOOK.match(d) for d in symbol["decorators"])
    )
    return parent if runs_around else None


def class_tests(files: SuiteFiles, cls: SuiteSymbol) -> list[tuple[str, str]]:
    """Every test (id, file) run on an instance of the class: its own, its project ancestors' and its descendants'
    (an inherited test is named by the class declaring it, as the index names it)."""
    resolver = shared_resolver(files.conn)
    classes = [cls["id"], *ancestors(resolver, cls["id"]), *_descendants(files.conn).get(cls["id"], [])]
    found: dict[str, str] = {}
    for class_id in classes:
        path = class_id.partition("::")[0]
        for symbol in files.symbols(path).values():
            if symbol["parent"] == class_id and is_java_test(symbol):
                node = files.node_id(path, symbol["id"])
                if node is not None:
                    found.setdefault(node, path)
    return list(found.items())


def _descendants(conn: sqlite3.Connection) -> dict[str, list[str]]:
    """Each Java test class's project descendants in test files, read once while the index stands."""

    def read() -> dict[str, list[str]]:
        resolver = shared_resolver(conn)
        found: dict[str, list[str]] = {}
        rows = conn.execute("SELECT id, path FROM symbols WHERE kind = 'class' AND path LIKE '%.java' ORDER BY id")
        for class_id, path in rows.fetchall():
            if is_test_path(path):
                for ancestor in ancestors(resolver, class_id):
                    found.setdefault(ancestor, []).append(class_id)
        return found

    return held_while_unchanged(conn, "java test descendants", read)
