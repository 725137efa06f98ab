"""What a test framework runs around each test of a test class, which no test names: a call there reaches every test
the class runs, those it declares, those it inherits from a test class of the project, and those of every test class
deriving from it (an inherited test is named by the class declaring it, as the index names it).

- JUnit (Java): the setup and teardown hooks (`@Before`, `@BeforeEach`, `@BeforeAll`, ...), the constructor and the
  fields' initializers (JUnit makes an instance per test, and loads the class once).
- Minitest and test-unit (Ruby): `setup` and `teardown`, and minitest's `before_setup` and `after_teardown`.
- unittest (Python): a TestCase's `setUp`, `tearDown`, `setUpClass`, `tearDownClass` (and their async forms), a
  class of the project's own that pytest does not collect included (Healthchecks' `BaseTestCase`, in hc/test.py): they
  run for each test of the classes deriving from it; pytest's xunit-style `setup_method`, `teardown_method`,
  `setup_class` and `teardown_class` of a class it collects.

bench/facts_tests_routes.py, Healthchecks v3.9's 2,363 functions (133 of them its test classes' setUp methods, which
listed every test file writing `setUp`, 132 of 133), recall / precision of the test files listed 0.992 / 0.823 ->
0.992 / 0.879 (mean precision 0.8233 -> 0.8785); the other apps and bench/facts_tests.py the same."""

from __future__ import annotations

import re
import sqlite3

from .db import held_while_unchanged
from .javatypes import ancestors
from .lookups import is_test_path
from .resolver import shared_resolver
from .rubyindex import ruby_index
from .suite import SuiteFiles, SuiteSymbol, is_java_test, is_pytest_file, is_ruby_test, is_test_name

_JUNIT_HOOK = re.compile(r"^@\s*(?:[\w.]+\.)?(?:Before|After)(?:Each|All|Class)?\b")  # JUnit 4's and 5's
_FIELDS = ("const", "field", "variable", "property")
_RUBY_HOOKS = frozenset(
    {"setup", "teardown", "before_setup", "after_setup", "before_teardown", "after_teardown", "startup", "shutdown"}
)
UNITTEST_HOOKS = frozenset({"setUp", "tearDown", "setUpClass", "tearDownClass", "asyncSetUp", "asyncTearDown"})
PYTEST_HOOKS = frozenset({"setup_method", "teardown_method", "setup_class", "teardown_class"})  # xunit-style


def hooked_class(files: SuiteFiles, path: str, caller: str) -> SuiteSymbol | None:
    """The test class whose tests run the caller's code around each of them: a hook's, a Java constructor's or field
    initializer's (whose caller is the field, or the class itself); None for anything else (a helper method runs
    where a test calls it)."""
    table = files.symbols(path)
    symbol = table.get(caller)
    if symbol is None or not path.endswith((".java", ".rb", ".py")):
        return None
    if path.endswith(".py"):
        parent = table.get(symbol["parent"] or "")
        if parent is None or parent["kind"] != "class":
            return None
        unittest = parent["name"] in files.test_cases()
        collected = unittest or (parent["name"].startswith("Test") and is_pytest_file(path))
        hook = (symbol["name"] in UNITTEST_HOOKS and unittest) or (symbol["name"] in PYTEST_HOOKS and collected)
        return parent if hook else None
    if symbol["kind"] == "class":
        return symbol if path.endswith(".java") else None
    parent = table.get(symbol["parent"] or "")
    if parent is None or parent["kind"] != "class":
        return None
    if path.endswith(".rb"):
        return parent if symbol["name"] in _RUBY_HOOKS else None
    runs_around = (
        symbol["kind"] in _FIELDS
        or symbol["name"] == parent["name"]  # the constructor
        or any(_JUNIT_HOOK.match(d) for d in symbol["decorators"])
    )
    return parent if runs_around else None


def class_tests(files: SuiteFiles, cls: SuiteSymbol) -> list[tuple[str, str]]:
    """Every test (id, file) run on an instance of the class: its own, its project ancestors' and its descendants'."""
    if cls["path"].endswith(".rb"):
        is_test, classes = is_ruby_test, _ruby_classes(files.conn, cls)
    elif cls["path"].endswith(".py"):
        is_test, classes = _is_python_test, _python_classes(files.conn, cls)
    else:
        resolver = shared_resolver(files.conn)
        is_test = is_java_test
        classes = [cls["id"], *ancestors(resolver, cls["id"]), *_java_descendants(files.conn).get(cls["id"], [])]
    found: dict[str, str] = {}
    for class_id in classes:
        path = class_id.partition("::")[0]
        for symbol in files.symbols(path).values():
            if symbol["parent"] == class_id and is_test(symbol):
                node = files.node_id(path, symbol["id"])
                if node is not None:
                    found.setdefault(node, path)
    return list(found.items())


def _is_python_test(symbol: SuiteSymbol) -> bool:
    """A test method of a Python test class, as pytest names it (`test_*`; its file says whether pytest collects it)."""
    return is_test_name(symbol["name"])


def _python_classes(conn: sqlite3.Connection, cls: SuiteSymbol) -> list[str]:
    """The ids of a Python test class, the project's classes it inherits tests from and the test files' classes
    deriving from it (an inherited test named by the class declaring it, as the index names it)."""
    resolver = shared_resolver(conn)
    row = resolver.symbol(cls["id"])
    if row is None:
        return []
    return [c["id"] for c in [*resolver.mro(row), *(d for d in resolver.descendants(row) if is_test_path(d["path"]))]]


def _java_descendants(conn: sqlite3.Connection) -> dict[str, list[str]]:
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


def _ruby_classes(conn: sqlite3.Connection, cls: SuiteSymbol) -> list[str]:
    """The ids of the Ruby test class (every file reopening it), its project superclasses and the test classes deriving
    from it, by qualified name as Ruby finds them."""
    index = ruby_index(conn)
    ids, descendants = _ruby_test_classes(conn)
    qualname = conn.execute("SELECT qualname FROM symbols WHERE id = ?", (cls["id"],)).fetchone()
    if qualname is None:
        return [cls["id"]]
    names = [*index.ancestry(qualname[0]), *descendants.get(qualname[0], [])]
    return [i for name in names for i in ids.get(name, [])]


def _ruby_test_classes(conn: sqlite3.Connection) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """The ids of every Ruby class by qualified name, and each class's descendants among the test files' classes."""

    def read() -> tuple[dict[str, list[str]], dict[str, list[str]]]:
        index = ruby_index(conn)
        ids: dict[str, list[str]] = {}
        descendants: dict[str, list[str]] = {}
        rows = conn.execute("SELECT id, qualname, path FROM symbols WHERE kind = 'class' AND language = 'ruby'")
        for class_id, qualname, path in rows.fetchall():
            ids.setdefault(qualname, []).append(class_id)
            if is_test_path(path):
                for ancestor in index.ancestry(qualname)[1:]:
                    if qualname not in descendants.setdefault(ancestor, []):
                        descendants[ancestor].append(qualname)
        return ids, descendants

    return held_while_unchanged(conn, "ruby test classes", read)
