"""The test suite as its runners see it: which files pytest, Go, a JavaScript runner or googletest runs, and what
a walk needs of their symbols (node ids, the helper or fixture around a call, a fixture's users, test classes
inheriting another), each file read once and kept while the index stands (`testmap.py` walks with it)."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import Any, TypedDict

from . import lookups
from .cprototypes import C_FILES, C_SOURCES, GOOGLETEST, MACRO_TEST
from .db import held_while_unchanged, stored_list
from .graph import ImportGraph, import_graph
from .lookups import is_test_path
from .rubyindex import ruby_name
from .symbol import parameter_names, without_definition_number

_PYTEST_FILE = re.compile(r"(^|/)(test_[^/]*|[^/]*_test)\.py$")


def is_pytest_file(path: str) -> bool:
    """Files pytest collects by default (`test_*.py`, `*_test.py`); conftest.py holds fixtures only."""
    return bool(_PYTEST_FILE.search(path))


# `go test` builds a package's `*_test.go` files and runs its `TestXxx` and `FuzzXxx` functions (Xxx not
# starting with a lowercase letter: `go help testfunc`); benchmarks and examples only on request.
_GO_TEST = re.compile(r"^(Test|Fuzz)($|[^a-z])")


def is_go_test_file(path: str) -> bool:
    return path.endswith("_test.go")


# Cargo's tests: a function marked `#[test]`, or by an attribute of a crate's own whose last name is `test`
# (`#[tokio::test]`, `#[actix_rt::test]`, `#[test_log::test]`), or `#[rstest]`, `#[test_case(...)]`,
# `#[wasm_bindgen_test]`, `#[quickcheck]`, wherever it is: a `mod tests` beside the code, or a file under tests/. Not
# `#[cfg(test)]`, which says when the code around it is built.
_RUST_TEST = re.compile(r"^#\[\s*(?:(?:\w+::)*test|rstest|test_case|wasm_bindgen_test|quickcheck)\b")


def is_rust_test(symbol: SuiteSymbol) -> bool:
    return symbol["kind"] in ("function", "method", "test") and any(_RUST_TEST.match(d) for d in symbol["decorators"])


# JUnit's (4 and 5) and TestNG's tests: a method annotated `@Test` (`@org.junit.Test`), or by JUnit 5's other
# annotations making a test of it; `-Dtest=CalcTest#adds` runs one with Maven, `--tests '*CalcTest.adds'` with Gradle.
_JAVA_TEST = re.compile(r"^@\s*(?:[\w.]+\.)?(?:Test|ParameterizedTest|RepeatedTest|TestFactory|TestTemplate)\b")


def is_java_test(symbol: SuiteSymbol) -> bool:
    return symbol["kind"] in ("method", "test") and any(_JAVA_TEST.match(d) for d in symbol["decorators"])


# Minitest's and test-unit's tests: a method named `test_*` of a class in a Ruby test file (`ruby -Itest
# test/parser_test.rb -n test_rows` runs one). RSpec's are blocks (`it "parses" do`): the spec file is what runs.
def is_ruby_test(symbol: SuiteSymbol) -> bool:
    return symbol["kind"] == "method" and symbol["name"].startswith("test_") and symbol["parent"] is not None


def is_rspec_file(path: str) -> bool:
    return path.endswith("_spec.rb") and is_test_path(path)


# The languages whose tests are functions marked as tests (an attribute, an annotation, a name), by their files' suffix
_MARKED_TESTS = {".rs": is_rust_test, ".java": is_java_test, ".rb": is_ruby_test}


_SCRIPT = re.compile(r"\.(js|jsx|ts|tsx|mjs|cjs|mts|cts)$")
_SCRIPT_TEST_NAME = re.compile(r"\.(test|spec)\.[a-z]+$")


# googletest's tests (cprototypes.GOOGLETEST): `TEST_F(DBTest, Empty) { ... }` is the test `DBTest.Empty`
# (`--gtest_filter=DBTest.Empty`). A parameterized or typed one runs once per instance (`Prefix/DBTest.Empty/0`,
# `DBTest/0.Empty`): its name is the filter running them all.
_GTEST_NAMES = {"TEST_P": "*/{}.{}/*", "TYPED_TEST": "{}/*.{}", "TYPED_TEST_P": "*/{}/*.{}"}


def runner_known(path: str, conn: sqlite3.Connection | None = None) -> bool:
    """Whether the tests of this file's language are known here (pytest, Go's, Cargo's, JUnit, JavaScript and
    TypeScript runners'; C's and C++'s where the index, given, holds googletest's tests or tests a macro defines):
    for another language an empty list of tests means "not known", never "none"."""
    if path.endswith(C_FILES):
        return conn is not None and uses_test_macros(conn)
    return path.endswith((".py", ".pyi", ".go", *_MARKED_TESTS)) or bool(_SCRIPT.search(path))


def uses_test_macros(conn: sqlite3.Connection) -> bool:
    """Whether the project defines the tests of its C or C++ by macros: googletest's, or its own (`TEST_IMPL`)."""

    def read() -> bool:
        rows = conn.execute("SELECT path, signature FROM symbols WHERE signature GLOB '*TEST*(*'")
        return any(c_test_name(path, signature) is not None for path, signature in rows)

    return held_while_unchanged(conn, "test macros", read)


def googletest_suites(conn: sqlite3.Connection) -> dict[str, list[tuple[str, str]]]:
    """googletest's tests of the project by their suite (a `TEST_F`'s is its fixture class): (id, file) each."""

    def read() -> dict[str, list[tuple[str, str]]]:
        suites: dict[str, list[tuple[str, str]]] = {}
        for path, signature in conn.execute("SELECT path, signature FROM symbols WHERE signature GLOB 'TEST*(*'"):
            if (found := googletest(path, signature)) is not None:
                suites.setdefault(found[1], []).append((f"{path}::{googletest_name(path, signature)}", path))
        return suites

    return held_while_unchanged(conn, "googletest suites", read)


def googletest_name(path: str, signature: str) -> str | None:
    """The name googletest runs a test by (`DBTest.Empty`, `*/DBTest.Empty/*`), if this C or C++ definition is one."""
    found = googletest(path, signature)
    return _GTEST_NAMES.get(found[0], "{}.{}").format(*found[1:]) if found else None


def c_test_name(path: str, signature: str) -> str | None:
    """The name a C or C++ test defined by a macro runs by: googletest's (`DBTest.Empty`), or the project's own
    runner's (`loop_alive`)."""
    return googletest_name(path, signature) or macro_test_name(path, signature)


def macro_test_name(path: str, signature: str) -> str | None:
    """The name of a test a project's own macro defines (`TEST_IMPL(loop_alive)`: loop_alive), in a C or C++ test
    file."""
    match = MACRO_TEST.match(signature) if path.endswith(C_SOURCES) and is_test_path(path) else None
    return match[1] if match else None


def googletest(path: str, signature: str) -> tuple[str, str, str] | None:
    """The macro, test suite and name of a googletest test (`TEST_F`, `DBTest`, `Empty`), if this is one: in a C or
    C++ test file."""
    match = GOOGLETEST.match(signature) if path.endswith(C_SOURCES) and is_test_path(path) else None
    return (match[1], match[2], match[3]) if match else None


# What a JavaScript or TypeScript test file imports to run its tests, and what it calls at its top level to
# register them (globals of Jest, Mocha and Vitest too): a file under test/ that does neither is a fixture, an
# entity or a helper of the tests (`script_test`).
TEST_FRAMEWORKS = frozenset(
    {"tap", "node:test", "mocha", "vitest", "@jest/globals", "ava", "tape", "uvu", "bun:test", "@playwright/test"}
)
TEST_REGISTRARS = ("describe", "it", "test", "suite")
RUBY_BLOCK_TESTS = ("test", "it", "specify")  # Rails' and minitest/spec's tests written as blocks


class SuiteSymbol(TypedDict):
    """What the walk reads of a test file's symbol: a SymbolRow has these keys too, so either will do."""

    id: str
    name: str
    kind: str
    parent: str | None
    path: str
    decorators: list[str]
    params: list[str]
    signature: str


class SuiteFiles:
    """The symbols of test files, read once per file: which test holds a call, who uses a fixture."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self._symbols: dict[str, dict[str, SuiteSymbol]] = {}
        self._conftests: list[str] | None = None
        self._test_files: list[str] | None = None
        self._subclasses: dict[str, list[tuple[str, str]]] | None = None
        self._importers: dict[str, dict[str, list[tuple[str, str]]]] | None = None  # by name, by module
        self._test_cases: frozenset[str] | None = None
        self._script_tests: dict[str, bool] = {}
        self._collecting_plugin: bool | None = None
        # Facts of files the walks ask again and again, kept with the rest while the index stands:
        self.outside: dict[str, set[str]] = {}  # per file: names its imports bind to outside modules
        self.blind: dict[str, bool] = {}  # per file: imports its own repository by unresolved names
        self.own: dict[str, bool] = {}  # per unresolved module name: whether it is this repository's
        self._reach: dict[str, frozenset[str]] = {}  # per file: what it loads, with its conftests
        self._reach_graph: ImportGraph | None = None
        self._imported: dict[str, tuple[set[str], set[str]]] = {}
        self._node_ids: dict[tuple[str, str], str | None] = {}  # a walk meets the same tests' calls again and again
        self._go_package_tests: dict[str, list[tuple[str, str]]] = {}
        self._fixture_users: dict[str, tuple[list[SuiteSymbol], bool]] = {}  # a conftest's are read from every file

    def imported(self, path: str) -> tuple[set[str], set[str]]:
        """The names a file imports and the last parts of the modules it imports them from."""
        if path not in self._imported:
            names: set[str] = set()
            tails: set[str] = set()
            for r in self.conn.execute("SELECT module, names FROM resolved_imports WHERE path = ?", (path,)):
                tails.add(str(r["module"]).rsplit(".", 1)[-1])
                names.update(n for n in stored_list(r["names"]) if isinstance(n, str))
            self._imported[path] = (names, tails)
        return self._imported[path]

    def reach(self, graph: ImportGraph) -> dict[str, frozenset[str]]:
        """The files each file loads, for this import graph (a new graph starts it again)."""
        if self._reach_graph is not graph:
            self._reach, self._reach_graph = {}, graph
        return self._reach

    def symbols(self, path: str) -> dict[str, SuiteSymbol]:
        if path not in self._symbols:
            self._symbols[path] = {
                r["id"]: {
                    "id": r["id"],
                    "name": without_definition_number(r["name"]),  # a name defined twice: pytest runs the last
                    "kind": r["kind"],
                    "parent": r["parent"],
                    "path": r["path"],
                    "decorators": stored_list(r["decorators"]),
                    "params": stored_list(r["params"]),
                    "signature": r["signature"] or "",
                }
                for r in self.conn.execute(
                    "SELECT id, name, kind, parent, path, decorators, params, signature FROM symbols WHERE path = ?",
                    (path,),
                )
            }
        return self._symbols[path]

    def conftests(self) -> list[str]:
        if self._conftests is None:
            self._conftests = [
                r[0]
                for r in self.conn.execute(
                    "SELECT path FROM files WHERE status = 'indexed'"
                    " AND (path = 'conftest.py' OR path LIKE '%/conftest.py')"
                )
            ]
        return self._conftests

    def subclasses(self, name: str) -> list[tuple[str, str]]:
        """Test classes (file, name) of pytest files that name `name` among their bases."""
        if self._subclasses is None:
            self._subclasses = {}
            for r in self.conn.execute(
                "SELECT path, name, signature FROM symbols WHERE kind = 'class'"
                " AND parent IS NULL AND name LIKE 'Test%'"
            ):
                if is_pytest_file(r["path"]):
                    for base in _bases(r["signature"] or ""):
                        self._subclasses.setdefault(base, []).append((r["path"], r["name"]))
        return self._subclasses.get(name, [])

    def importers(self, name: str, path: str) -> list[tuple[str, str]]:
        """Pytest files (file, the name bound) that import the test class or function `name` of `path` to their top
        level (`from test_itsdangerous.test_signer import TestSigner` in test_timed.py): pytest collects what a
        module's namespace holds, so the test runs again there, as `test_timed.py::TestSigner::test_signer`. The
        module is `path`, or one the index does not resolve whose last part is its name (a tests folder pytest
        puts on the path)."""
        if self._importers is None:
            self._importers = {}
            for r in self.conn.execute(  # LIKE ignores case: `test*` and `Test*` names, read on below
                "SELECT path, module, names, target, bound FROM imports WHERE bound LIKE 'test%'"
            ):
                names = stored_list(r["names"])
                bound = str(r["bound"])  # pytest collects `Test*` classes and `test*` functions of a module
                if len(names) == 1 and is_pytest_file(r["path"]) and (is_test_name(bound) or bound.startswith("Test")):
                    module = r["target"] or "?" + str(r["module"]).rsplit(".", 1)[-1]
                    importing = self._importers.setdefault(str(names[0]), {})
                    importing.setdefault(module, []).append((r["path"], bound))
        by_module = self._importers.get(name)
        if by_module is None:  # the walk offers every test it reaches: most were never imported
            return []
        return [*by_module.get(path, ()), *by_module.get("?" + PurePosixPath(path).stem, ())]

    def test_files(self) -> list[str]:
        """Every indexed file the test runner runs (`runs`), in path order."""
        if self._test_files is None:
            indexed = self.conn.execute("SELECT path FROM files WHERE status = 'indexed' ORDER BY path")
            self._test_files = [r[0] for r in indexed if is_test_path(r[0]) and self.runs(r[0])]
        return self._test_files

    def runs(self, path: str) -> bool:
        """Whether the project's test runner runs the file: pytest's files, Go's `*_test.go`, a JavaScript or
        TypeScript test file (what Jest, Mocha, Vitest, tap and node --test are given), a C or C++ test file
        defining googletest's tests, a Rust file under tests/ holding Cargo's and a Java test file holding JUnit's."""
        return (
            is_pytest_file(path)
            or is_go_test_file(path)
            or self.script_test(path)
            or self.c_test_file(path)
            or self.marked_test_file(path)
            or self.ruby_block_tests(path)
        )

    def marked_test_file(self, path: str) -> bool:
        """A test file holding a function marked as a test: a Rust file under tests/ (Cargo builds and runs it as a
        test crate), a Java test file (src/test/java, `*Test.java`) with a JUnit or TestNG test."""
        marked = _MARKED_TESTS.get(PurePosixPath(path).suffix)
        return marked is not None and is_test_path(path) and any(map(marked, self.symbols(path).values()))

    def c_test_file(self, path: str) -> bool:
        """A C or C++ file defining tests by macros: googletest's, or the project's own."""
        return path.endswith(C_SOURCES) and any(c_test_name(path, s["signature"]) for s in self.symbols(path).values())

    def googletest_fixture_tests(self, fixture: SuiteSymbol) -> list[tuple[str, str]]:
        """Every test (id, file) googletest runs on this fixture class, if it is one: for each `TEST_F(DBTest,
        ...)` it constructs a DBTest and calls its SetUp, then its TearDown and destroys it."""
        return googletest_suites(self.conn).get(fixture["name"], []) if fixture["kind"] in ("class", "struct") else []

    def go_tests_in(self, folder: str) -> list[str]:
        """The `_test.go` files of a Go package's folder, in path order (the import graph keeps them: the tests of a
        Go file are its package's there too)."""
        return list(import_graph(self.conn).package_tests.get(folder, ()))

    def go_package_tests(self, folder: str) -> list[tuple[str, str]]:
        """Every test `go test` runs in a Go package's folder, as (`path::TestXxx`, path)."""
        if folder not in self._go_package_tests:
            self._go_package_tests[folder] = [
                (f"{path}::{name}", path)
                for path in self.go_tests_in(folder)
                for name, kind, parent in self.conn.execute(
                    "SELECT name, kind, parent FROM symbols WHERE path = ? ORDER BY start_line", (path,)
                )
                if parent is None and _go_test(kind, name)
            ]
        return self._go_package_tests[folder]

    def script_test(self, path: str) -> bool:
        """A JavaScript or TypeScript test file: one under the tests' folders or named `*.test.*`/`*.spec.*`
        that registers tests at its top level (`describe`, `it`, `test`, `t.test`), or imports a test framework
        and exports nothing (tap's files may only assert at the top; a helper importing `ava` for its types
        exports what the tests use); or an RSpec spec file (`parser_spec.rb`). The file is what to run: its tests
        are anonymous callbacks."""
        if path not in self._script_tests:
            script = bool(_SCRIPT.search(path) and is_test_path(path))
            named = script and bool(_SCRIPT_TEST_NAME.search(path))
            registers = script and not named and (self._registers_tests(path) or self._framework_script(path))
            self._script_tests[path] = is_rspec_file(path) or named or registers
        return self._script_tests[path]

    def ruby_block_tests(self, path: str) -> bool:
        """A Ruby test file registering tests as blocks in a class's body or at its top (Rails' `test "creates a
        user" do`, minitest/spec's `it`): the file is what runs the code written in them."""
        if not path.endswith(".rb") or not is_test_path(path):
            return False
        marks = ",".join("?" * len(RUBY_BLOCK_TESTS))
        return bool(
            self.conn.execute(
                f"SELECT 1 FROM calls WHERE path = ? AND name IN ({marks}) AND qualifier IS NULL AND (caller IS NULL"
                " OR caller IN (SELECT id FROM symbols WHERE path = ? AND kind IN ('class', 'module'))) LIMIT 1",
                (path, *RUBY_BLOCK_TESTS, path),
            ).fetchone()
        )

    def _registers_tests(self, path: str) -> bool:
        marks = ",".join("?" * len(TEST_REGISTRARS))
        return bool(
            self.conn.execute(
                f"SELECT 1 FROM calls WHERE path = ? AND caller IS NULL AND name IN ({marks}) LIMIT 1",
                (path, *TEST_REGISTRARS),
            ).fetchone()
        )

    def _framework_script(self, path: str) -> bool:
        imports = {r[0] for r in self.conn.execute("SELECT module FROM imports WHERE path = ?", (path,))}
        exports = self.conn.execute("SELECT 1 FROM symbols WHERE path = ? AND exported = 1 LIMIT 1", (path,))
        return bool(imports & TEST_FRAMEWORKS) and exports.fetchone() is None

    def node_id(self, path: str, symbol_id: str) -> str | None:
        """The id of the test running this symbol's code: pytest's node id (its file, for a class only a plugin
        collects), or `path::TestXxx` for Go (`go test -run '^TestXxx$'` in its folder); None for a helper or
        fixture; `path::DBTest.Empty` for googletest's (`--gtest_filter=DBTest.Empty`), `path::loop_alive` for a C
        test the project's own macro defines (`TEST_IMPL(loop_alive)`); `path::tests::parses` for
        Cargo's (`cargo test tests::parses`); `path::CalcTest#adds` for JUnit's (`mvn test -Dtest=CalcTest#adds`)."""
        key = (path, symbol_id)
        if key not in self._node_ids:
            self._node_ids[key] = self._node_id(path, symbol_id)
        return self._node_ids[key]

    def _node_id(self, path: str, symbol_id: str) -> str | None:
        """pytest collects `Test*` classes and unittest's TestCase classes whatever their names; a class of
        another name (`MergeTest`), only through a plugin hooking its collection (SQLAlchemy's): then the
        file, which runs whatever the plugin collects, is what to run."""
        chain = self._ancestry(path, symbol_id)
        if path.endswith(".rs"):  # `cargo test tests::parses` runs the test of that path, whichever crate has it
            test = next((s for s in chain if is_rust_test(s)), None)
            return f"{path}::{test['id'].partition('::')[2].replace('.', '::')}" if test is not None else None
        if path.endswith(".java"):  # `CalcTest#adds`, `Outer$Inner#adds` for a @Nested class's
            test = next((s for s in chain if is_java_test(s)), None)
            classes = [s["name"] for s in chain[: chain.index(test)] if s["kind"] != "method"] if test else []
            return f"{path}::{'$'.join(classes)}#{test['name']}" if test is not None and classes else None
        if path.endswith(".rb"):  # `ParserTest#test_rows`, `Shop::ParserTest#test_rows`: the class as Ruby names it
            test = next((s for s in chain if is_ruby_test(s)), None)
            outer = [s for s in chain[: chain.index(test)] if s["kind"] in ("class", "module")] if test else []
            if test is None or not outer:
                return None
            lexical = outer[-2]["id"].partition("::")[2] if len(outer) > 1 else None
            return f"{path}::{ruby_name(self.conn, outer[-1]['id'].partition('::')[2], lexical)}#{test['name']}"
        if path.endswith(C_SOURCES):  # the test macro's body, or a lambda or local class inside it
            names = [n for s in chain if (n := c_test_name(path, s["signature"]))]
            return f"{path}::{names[0]}" if names else None
        if chain and is_go_test_file(path):
            top = chain[0]
            return f"{path}::{top['name']}" if _go_test(top["kind"], top["name"]) else None
        if not chain or not is_pytest_file(path):
            return None
        top = chain[0]
        if top["kind"] in ("function", "test") and is_test_name(top["name"]) and not is_fixture(top):
            return f"{path}::{top['name']}"
        if top["kind"] != "class" or len(chain) < 2 or not is_test_name(chain[1]["name"]) or is_fixture(chain[1]):
            return None
        if top["name"].startswith("Test") or top["name"] in self.test_cases():
            return f"{path}::{top['name']}::{chain[1]['name']}"
        return path if self.collecting_plugin() else None

    def test_cases(self) -> frozenset[str]:
        """The names of the classes deriving from unittest's TestCase (`*TestCase` bases: Django's, asyncio's),
        directly or through the repository's own classes."""
        if self._test_cases is None:
            bases = {
                r["name"]: _bases(r["signature"] or "")
                for r in self.conn.execute("SELECT name, signature FROM symbols WHERE kind = 'class'")
            }
            found = {n for n, b in bases.items() if any(x.endswith("TestCase") for x in b)}
            while more := {n for n, b in bases.items() if n not in found and found.intersection(b)}:
                found |= more
            self._test_cases = frozenset(found)
        return self._test_cases

    def collecting_plugin(self) -> bool:
        """Whether the repository hooks pytest's collection (`pytest_pycollect_makeitem`): its test classes
        need not be named `Test*`."""
        if self._collecting_plugin is None:
            self._collecting_plugin = (
                self.conn.execute("SELECT 1 FROM symbols WHERE name = 'pytest_pycollect_makeitem' LIMIT 1").fetchone()
                is not None
            )
        return self._collecting_plugin

    def outermost(self, path: str, symbol_id: str) -> SuiteSymbol | None:
        """The helper (top-level function, or method of a class) whose body holds this symbol; a namespace holds
        code, it is no helper."""
        chain = [s for s in self._ancestry(path, symbol_id) if s["kind"] != "namespace"]
        if not chain:
            return None
        return chain[1] if chain[0]["kind"] == "class" and len(chain) > 1 else chain[0]

    def fixture_users(self, fixture: SuiteSymbol) -> tuple[list[SuiteSymbol], bool]:
        """Functions taking the fixture as a parameter (or naming it in usefixtures) where it is visible,
        and whether it is autouse (then every test in reach runs it)."""
        if fixture["id"] not in self._fixture_users:
            self._fixture_users[fixture["id"]] = self._read_fixture_users(fixture)
        users, autouse = self._fixture_users[fixture["id"]]
        return list(users), autouse

    def _read_fixture_users(self, fixture: SuiteSymbol) -> tuple[list[SuiteSymbol], bool]:
        name = fixture["name"]
        path = fixture["path"]
        autouse = any("autouse=True" in d.replace(" ", "") for d in fixture["decorators"])
        if PurePosixPath(path).name == "conftest.py":
            folder = str(PurePosixPath(path).parent)
            files = [
                r[0]
                for r in self.conn.execute(
                    "SELECT path FROM files WHERE status = 'indexed' AND path LIKE ? ESCAPE '\\'",
                    (lookups.like_prefix("" if folder == "." else folder + "/"),),
                )
                if is_test_path(r[0])
            ]
        else:
            files = [path]
        users = [s for f in files for s in self.symbols(f).values() if s["id"] != fixture["id"] and uses(s, name)]
        return users, autouse

    def _ancestry(self, path: str, symbol_id: str) -> list[SuiteSymbol]:
        table = self.symbols(path)
        chain: list[SuiteSymbol] = []
        current = table.get(symbol_id)
        while current is not None and len(chain) < lookups.MAX_MODULE_PARTS:
            chain.append(current)
            current = table.get(current["parent"]) if current["parent"] else None
        return chain[::-1]


def _bases(signature: str) -> list[str]:
    """The base classes' names in `class C(a.Base, Mixin, metaclass=M)`: Base, Mixin."""
    inside = signature.partition("(")[2].rpartition(")")[0]
    return [b.strip().split(".")[-1] for b in inside.split(",") if b.strip() and "=" not in b]


def is_script(path: str) -> bool:
    """A JavaScript or TypeScript file."""
    return bool(_SCRIPT.search(path))


def is_go_initializer(symbol: Mapping[str, Any]) -> bool:
    """Code Go runs when a package initializes, before any test of it: a package-level variable's value, an
    `init` function (the Go specification, "Package initialization")."""
    return (
        symbol["path"].endswith(".go")
        and symbol["parent"] is None
        and (symbol["kind"] in ("variable", "const") or (symbol["kind"] == "function" and symbol["name"] == "init"))
    )


def _go_test(kind: str, name: str) -> bool:
    """A function `go test` runs of a `_test.go` file's top level: `TestXxx` or `FuzzXxx` (`go help testfunc`)."""
    return kind == "function" and bool(_GO_TEST.match(name))


def is_test_name(name: str) -> bool:
    return name.startswith("test")


def uses(symbol: SuiteSymbol, fixture: str) -> bool:
    """Whether a function takes the fixture as a parameter, by its name whatever its annotation (`serializer:
    Serializer` takes `serializer`), or names it in `usefixtures`."""
    quoted = (f'"{fixture}"', f"'{fixture}'")
    return fixture in parameter_names(symbol["params"]) or any(
        "usefixtures" in d and any(q in d for q in quoted) for d in symbol["decorators"]
    )


def is_fixture(symbol: SuiteSymbol) -> bool:
    return any("fixture" in d and "usefixtures" not in d for d in symbol["decorators"])
