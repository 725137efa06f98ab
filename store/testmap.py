"""Which tests reach a symbol or a module: ranked, as ids their runner takes (or the test file), each with its basis.

A test reaches a symbol when it calls it (distance 1), calls a function that calls it (distance
2), and so on up the call graph (`lookups.callers`). Test files that only import the symbol's
module follow those when the call graph cannot tell (no call path to a test, or nothing calls the
symbol by name), and are counted otherwise (`unlisted_importers`). Each entry is a pytest node id
(`tests/test_x.py::test_y`, `tests/test_x.py::TestC::test_m`) or, where no single test holds the
call (module-level code of a test file, an autouse fixture), the test file's path. A call inside
a nested function, a helper or a fixture of a test file belongs to the tests that run it: the test
around the nested function, the tests calling the helper, the tests naming the fixture as a
parameter; a test method inherited by another test class runs there too. Helpers are not tests.
A JavaScript or TypeScript test file is listed whole (`node --test`, Mocha, Jest, tap are given files):
its tests are anonymous callbacks (store/suite.py says which files are tests). A Go test is
`path::TestXxx` (`go test -run`); with no call path, a Go package's own test files come first, as they
use its code without importing it. For a language whose runner is not known here the tests are
unknown, and `tests_unknown` says so rather than "none".

A call known only by its name (`basis: name only`) ranks after resolved calls at its distance, and
counts only when the calling file can import the callee's file (directly, through others, through
the conftest.py files pytest loads with it, or by being of its Go package) or imports this repository
by names the index does not resolve; never when its qualifier is a module imported from outside
(`pathlib.Path`).
"""

from __future__ import annotations

import json
import sqlite3
from collections import deque
from collections.abc import Hashable
from dataclasses import dataclass, replace
from pathlib import PurePosixPath
from typing import Any

from . import callgraph, lookups
from .db import held_per_key, held_while_unchanged
from .gocalls import NAMED_AS_VALUE, THROUGH_INTERFACE, same_go_folder
from .graph import ImportGraph, import_graph
from .lookups import is_test_path
from .projections.fulltext import identifier_words
from .suite import SuiteFiles, is_fixture, is_go_initializer, is_pytest_file, is_script, runner_known
from .symbol import SymbolRow, is_property

# bench/facts_tests.py, 145 functions of click, itsdangerous, markupsafe and jinja2 against coverage:
# test files listed recall 0.975, precision 0.557 (the answer before: 0.943 / 0.403; with every test
# file importing the module as well: 0.999 / 0.481; calls alone: 0.775 / 0.681).
# Calls between a test and the symbol: 6 gave 0.957 / 0.570, 8 gives 0.975 / 0.557; with the resolved
# call graph of h/calls merged in (a trial merge), 6 gave 0.928 / 0.568 and 8 0.968 / 0.543.
MAX_CALL_DEPTH = 8
# Call sites a walk with `enough` reads at most (the pack's; impact reads them all). A pack on typeorm,
# p50: no budget 1.7 s, 2000 sites 224 ms, 1000 sites 164 ms.
WALK_BUDGET = 1000
MODULE_CALL_DEPTH = 2  # a module's tests: tests calling its code, or one function away
CALL_SITES = 2000  # call sites looked at per function on the walk
# Test files importing the module, followed after the call graph's tests (ranked below them, each with its
# distance): deeper than graph.TEST_IMPORT_DEPTH, where imports are the whole answer, since a jinja2 filter
# is 4 imports from its tests (pkg/__init__, environment, defaults, filters).
IMPORT_DEPTH = 5
CONSTRUCTORS = frozenset({*callgraph.CONSTRUCTORS, "__new__", "__post_init__", "__attrs_post_init__"})


@dataclass(frozen=True)
class Reach:
    test: str  # what `pytest ID` runs: a node id, or a test file
    path: str  # the test's file
    distance: int  # 1: calls the symbol; n: through n - 1 functions; imports rank after every call
    basis: str  # why it is listed, checkable in the code
    by_call: bool  # reached through calls (False: the file only imports the module)
    name_only: bool = False  # the test's own call is matched by name alone: ranks after resolved ones
    routes: int = 1  # how many calls the walk reached the test by, at any distance: of tests as near, the likelier run


def rank_key(t: Reach, words: frozenset[str] = frozenset()) -> tuple[Any, ...]:
    """Calls first, nearest first; of tests as near, those named after the code (`words`) first, then those
    reaching it by the most routes (the likelier to run it: a static path may sit in a branch a test never
    takes), then by name."""
    return (not t.by_call, t.distance, t.name_only, -named_after(t.test, words), -t.routes, t.path, t.test)


def code_words(name: str, path: str) -> frozenset[str]:
    """The words of a symbol's qualified name (or none, for a module) and of its file's name: what a test named
    after the code shares (`tests/test_types.py::test_path_convert` for click's types.py::Path.convert,
    `tests/command.action.test.js` for Command.action)."""
    return frozenset(identifier_words(f"{name} {PurePosixPath(path).stem}")) - _TEST_WORDS


def named_after(test: str, words: frozenset[str]) -> int:
    """How many of the code's words a test's id has outside its folders: its file's name and its own."""
    if not words:
        return 0
    return len(words.intersection(identifier_words(test.rpartition("/")[2])))


_TEST_WORDS = frozenset({"test", "tests", "spec", "specs", "py", "js", "ts", "mjs", "cjs", "index", "init"})


def _dunder(name: str) -> bool:
    """`__add__`, `__iter__`: called by syntax on instances; the class's users stand for its callers."""
    return name.startswith("__") and name.endswith("__")


# --- the walk -----------------------------------------------------------------------------------


class _Walk:
    """Breadth first up the call graph from some symbols, collecting the tests on the way."""

    def __init__(self, conn: sqlite3.Connection, graph: ImportGraph, depth: int) -> None:
        self.conn, self.graph, self.depth = conn, graph, depth
        self.files = suite_files(conn)
        self.found: dict[str, Reach] = {}
        self._routes: dict[str, set[Hashable]] = {}  # each test's calls the walk reached it by
        self.cut = False  # stopped with `enough` found: more tests may reach it
        self.seen: set[str] = set()
        # symbol, its distance, what tests call, and whether a call on the way there was a guess by name
        self.queue: deque[tuple[SymbolRow, int, str, bool]] = deque()
        self._reach = self.files.reach(graph)
        # What the walk starts from and nothing calls by name (a visitor's visit_If, a filter in a
        # registry, a callback): called some other way, by callers the call graph cannot see.
        self.uncalled: list[str] = []
        self._outside, self._blind, self._own = self.files.outside, self.files.blind, self.files.own
        # Read again and again by the walks of one answer and the next: the callers' rows by id, and each
        # name's calls from files that import this repository by unresolved names (see _unseen_calls).
        self._rows: dict[str, SymbolRow | None] = held_while_unchanged(conn, "walk symbols", dict)
        self._blind_calls: dict[str, list[dict[str, Any]]] = held_while_unchanged(conn, "blind calls", dict)

    def start(self, symbol: SymbolRow, distance: int = 0, target: str | None = None, guessed: bool = False) -> None:
        """Walk from the symbol, `distance` calls from `target` (default: the symbol itself)."""
        if symbol["id"] not in self.seen:
            self.seen.add(symbol["id"])
            self.queue.append((symbol, distance, target or symbol["qualname"], guessed))

    def run(self, enough: int | None = None) -> dict[str, Reach]:
        """Walk until the queue is empty, or, with `enough`, until that many tests found by calls are
        nearer than anything still queued can give: the best `enough` are then final (breadth first,
        a later test is never nearer), and an answer that shows a few need not walk the whole graph.
        With `enough`, the walk also stops after WALK_BUDGET call sites (a graph of name-only calls, as
        in a TypeScript repository, floods: a pack on typeorm walked ~40k call sites, 0.8 s)."""
        checked_at = -1  # the queue's head distance when it was last checked: once per level, not per step
        sites = 0
        while self.queue:
            if enough is not None and sites > WALK_BUDGET:
                self.cut = True
                break
            if enough is not None and len(self.found) >= enough and self.queue[0][1] != checked_at:
                checked_at = self.queue[0][1]
                nearest_left = min(d for _, d, _, _ in self.queue) + 1
                if sum(1 for t in self.found.values() if t.by_call and t.distance < nearest_left) >= enough:
                    self.cut = True
                    break
            symbol, distance, label, guessed = self.queue.popleft()
            called = False
            calls = lookups.callers(self.conn, symbol, limit=CALL_SITES)
            calls += self._unseen_calls(symbol, calls)
            sites += len(calls)
            read = is_property(symbol.get("decorators") or [])  # its callers read it: `calls` would be misread
            for call in calls:
                if call["basis"] == "name only" and (
                    self._external(call["path"], call["qualifier"])
                    or (not self._can_import(call["path"], symbol["path"]) and not self._unresolved(call["path"]))
                ):
                    continue  # another module's name, or a file whose imports all resolve and miss this code
                called = True
                self._visit({**call, "read": read}, distance + 1, symbol["qualname"], label, guessed)
            if not called and distance == 0 and not is_test_path(symbol["path"]) and not _dunder(symbol["name"]):
                self.uncalled.append(symbol["qualname"])
        return self.found

    def _visit(self, call: dict[str, Any], distance: int, callee: str, target: str, guessed: bool = False) -> None:
        """One call site of `callee`, `distance` calls from `target` (the symbol asked about)."""
        path, caller = call["path"], call["caller"]
        site = (path, caller, call.get("line"), callee)  # one route to the tests it reaches
        how = (
            f"hands on {callee} as a value"
            if call.get("basis") == NAMED_AS_VALUE
            else f"reads {callee}"
            if call.get("read")
            else f"calls {callee} through an interface"
            if call.get("basis") == THROUGH_INTERFACE
            else f"calls {callee}"
        )
        how += "" if callee == target else f", which reaches {target}"
        # A guess by name anywhere on the way makes the test a guess: `calls helper, which reaches X` is only
        # as sure as helper's call of X.
        by_name = call.get("basis") == "name only"
        guess = guessed or by_name
        how += " (name only)" if by_name else " (through a call known by name only)" if guess else ""
        at = f" (line {call['line']})" if call.get("line") else ""
        # Every test of a Go package runs what its package-level variables and `init` call, before it runs. Only
        # their direct calls: one further down may sit in a closure the callee returns (a middleware factory's),
        # which runs only when called (bench/facts_tests_go.py, every depth: 0.846 / 0.600 of tests, recall / precision;
        # direct calls: 0.814 / 0.630).
        initializer = self._symbol(caller) if caller is not None and path.endswith(".go") and distance == 1 else None
        if initializer is not None and is_go_initializer(initializer):
            why = f"{how}{at} in {initializer['name']}, which Go runs when the package initializes, before any test"
            for test, test_path in self.files.go_package_tests(path.rpartition("/")[0]):
                self.offer(test, test_path, distance, why, guess, site)
            return
        if not is_test_path(path):
            if caller is not None and distance < self.depth and caller not in self.seen:
                found = self._symbol(caller)
                if found is not None:
                    self.start(found, distance, target, guess)
                    owner = _class_of(self.conn, found) if found["name"] in CONSTRUCTORS else None
                    if owner is not None:  # `Signer(...)` runs Signer.__init__: its callers are the class's
                        self.start(owner, distance, target, guess)
            return
        if self.files.script_test(path):  # its tests are callbacks: the file is what runs them
            self.offer(path, path, distance, how + at, guess, site)
            return
        if caller is None:  # module-level code of a test file runs when pytest collects it
            if is_pytest_file(path):
                self.offer(path, path, distance, f"{how} at module level{at}", guess, site)
            return
        node = self.files.node_id(path, caller)
        if node is not None:
            test = ".".join(caller.rpartition("::")[2].split(".")[:2])  # the class and its test method
            inside = f" in {test}" if node == path else ""  # a class only a plugin collects: the file is run
            self.offer(node, path, distance, how + at + inside, guess, site)
            return
        helper = self.files.outermost(path, caller)
        if helper is None or helper["id"] in self.seen or distance >= self.depth:
            return
        self.seen.add(helper["id"])
        if is_fixture(helper):
            users, autouse = self.files.fixture_users(helper)
            if autouse:
                for f in {u["path"] for u in users} | ({path} if is_pytest_file(path) else set()):
                    self.offer(f, f, distance, f"autouse fixture {helper['name']} {how}", guess, site)
            for user in users:
                node = self.files.node_id(user["path"], user["id"])
                if node is not None:
                    why = f"uses fixture {helper['name']}, which {how}"
                    self.offer(node, user["path"], distance + 1, why, guess, site)
                elif user["id"] not in self.seen:
                    self.seen.add(user["id"])  # a fixture using the fixture: its users in turn
                    self._visit(
                        {"path": user["path"], "caller": user["id"], "line": None},
                        distance + 1,
                        helper["name"],
                        target,
                        guess,
                    )
            return
        found = self._symbol(helper["id"])
        if found is not None:  # a helper of the tests: the tests calling it run the call
            self.queue.append((found, distance, target, guess))

    def _symbol(self, symbol_id: str) -> SymbolRow | None:
        """The symbol's row, read once while the index stands (the walks only read it)."""
        if symbol_id not in self._rows:
            row = self.conn.execute("SELECT * FROM symbols WHERE id = ?", (symbol_id,)).fetchone()
            self._rows[symbol_id] = lookups.symbol_dict(row) if row is not None else None
        return self._rows[symbol_id]

    def offer(
        self, test: str, path: str, distance: int, basis: str, name_only: bool = False, site: Hashable = None
    ) -> None:
        """List the test, `distance` calls from the code, unless it is listed as near already; `site`, the call
        the walk reached it by, counts as one more of its routes."""
        routes = self._routes.setdefault(test, set())
        routes.add(site if site is not None else basis)
        known = self.found.get(test)
        if known is not None and (distance, name_only) >= (known.distance, known.name_only):
            self.found[test] = replace(known, routes=len(routes))
            return  # nothing nearer: its subclasses had this offer already (and a class may name itself)
        self.found[test] = Reach(test, path, distance, basis, True, name_only, len(routes))
        parts = test.split("::")
        if len(parts) == 3:  # a test method runs in every test class inheriting it, as that class's test
            for sub_path, sub in self.files.subclasses(parts[1]):
                if not self._inherits_from(sub_path, parts[1], path):
                    continue  # a same-named class of another file: `BaseTest` means a different one there
                self.offer(
                    f"{sub_path}::{sub}::{parts[2]}",
                    sub_path,
                    distance,
                    f"inherits {parts[1]}.{parts[2]}, which {basis}",
                    name_only,
                    site,
                )

    def _inherits_from(self, sub_path: str, name: str, path: str) -> bool:
        """Whether a class of `sub_path` naming `name` among its bases can mean the class of `path`: the
        same file, a file loading it, or one importing that name or that module, resolved or not
        (`from test_pkg.test_base import TestBase` where the tests folder is a root pytest adds)."""
        if sub_path == path or self._can_import(sub_path, path):
            return True
        names, tails = self.files.imported(sub_path)
        return name in names or PurePosixPath(path).stem in tails

    def _unseen_calls(self, symbol: SymbolRow, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Calls of the symbol's name from files importing this repository by names the index does not
        resolve, that `callers` left out (a resolver that takes such an import for another package's):
        as guesses by name, which is all the index knows of them."""
        name = symbol["name"]
        if name not in self._blind_calls:
            self._blind_calls[name] = [
                {**dict(r), "basis": "name only"}
                for r in self.conn.execute(
                    "SELECT path, caller, line, qualifier FROM calls WHERE name = ? LIMIT ?", (name, CALL_SITES)
                )
                if self._unresolved(r["path"])
            ]
        blind = self._blind_calls[name]
        if not blind:
            return []
        known = {(c["path"], c["caller"], c["line"]) for c in calls}
        return [
            dict(c) for c in blind if (c["path"], c["caller"], c["line"]) not in known and c["caller"] != symbol["id"]
        ]

    def _can_import(self, importer: str, target: str) -> bool:
        """Whether the file loads the target: by its imports, by being of its Go package, or, for a test, by the
        imports of the conftest.py files pytest loads with it (their fixtures hand it objects: `runner.invoke`)."""
        if importer == target or same_go_folder(importer, target):
            return True  # a Go test file of the package (or of its external x_test package) sees all of it
        if importer not in self._reach:
            sources = [importer, *(self._conftests(importer) if is_test_path(importer) else [])]
            self._reach[importer] = frozenset().union(*(self.graph.loads(s) for s in sources))
        return target in self._reach[importer]

    def _external(self, path: str, qualifier: str | None) -> bool:
        """Whether the call's qualifier is a module the file imports from outside the repository
        (`pathlib.Path(...)` is not the repository's `Path`)."""
        if not qualifier:
            return False
        if path not in self._outside:
            bound: set[str] = set()
            for r in self.conn.execute(
                "SELECT module, names, kind FROM resolved_imports WHERE path = ? AND target IS NULL", (path,)
            ):
                if self._own_module(r["module"]):
                    continue
                if r["kind"] == "import":
                    bound.add(r["module"].split(".")[0])
                else:
                    bound.update(n for n in json.loads(r["names"] or "[]") if isinstance(n, str))
            self._outside[path] = bound
        return qualifier.split(".")[0] in self._outside[path]

    def _unresolved(self, path: str) -> bool:
        """Whether the file imports the repository's own code by a name the index does not resolve:
        where a package is not laid out as its import names say (`codeannals.store` in `store/`), the
        import graph cannot rule out a name-only call."""
        if path not in self._blind:
            self._blind[path] = any(
                self._own_module(r["module"])
                for r in self.conn.execute(
                    "SELECT module FROM resolved_imports WHERE path = ? AND target IS NULL", (path,)
                )
            )
        return self._blind[path]

    def _own_module(self, module: str) -> bool:
        """An unresolved dotted name whose tail names a file here (`codeannals.store` -> store/)."""
        if module in self._own:
            return self._own[module]
        self._own[module] = False
        parts = module.split(".")
        for cut in range(1, min(len(parts), lookups.MAX_MODULE_PARTS)):
            rel = "/".join(parts[cut:])
            if self.conn.execute(
                "SELECT 1 FROM files WHERE path IN (?, ?)", (rel + ".py", rel + "/__init__.py")
            ).fetchone():
                self._own[module] = True
                break
        return self._own[module]

    def _conftests(self, path: str) -> list[str]:
        folders = {str(p) for p in PurePosixPath(path).parents}
        return [c for c in self.files.conftests() if str(PurePosixPath(c).parent) in folders]


def suite_files(conn: sqlite3.Connection) -> SuiteFiles:
    """The test suite's files as the walks read them, kept while the index stands."""
    return held_while_unchanged(conn, "suite files", lambda: SuiteFiles(conn))


def _class_of(conn: sqlite3.Connection, symbol: SymbolRow) -> SymbolRow | None:
    if symbol["kind"] not in ("method", "constructor") or not symbol["parent"]:
        return None
    row = conn.execute("SELECT * FROM symbols WHERE id = ?", (symbol["parent"],)).fetchone()
    return lookups.symbol_dict(row) if row is not None and row["kind"] == "class" else None


def _importers(
    files: SuiteFiles,
    graph: ImportGraph,
    path: str,
    found: dict[str, Reach],
    call_depth: int,
    import_depth: int = IMPORT_DEPTH,
) -> list[Reach]:
    """Test files importing the module (directly or through others) that no call path reached; for Go, first
    the test files of its package, which need no import to use it (`go test ./pkg` runs them)."""
    covered = {t.path for t in found.values()}
    out = []
    if path.endswith(".go"):
        folder = path.rpartition("/")[0]
        for test in files.go_tests_in(folder):
            if test not in covered:
                covered.add(test)
                out.append(Reach(test, test, call_depth + 1, f"tests the package of {path}; no call path found", False))
    for d in graph.transitive(path, reverse=True, depth=import_depth):
        if files.runs(d["path"]) and d["path"] not in covered:
            how = "imports" if d["distance"] == 1 else f"imports, through {d['distance'] - 1} other module(s),"
            out.append(
                Reach(d["path"], d["path"], call_depth + d["distance"], f"{how} {path}; no call path found", False)
            )
    return out


# --- the answers --------------------------------------------------------------------------------


def tests_for_symbol(
    conn: sqlite3.Connection,
    symbol: SymbolRow,
    *,
    depth: int = MAX_CALL_DEPTH,
    graph: ImportGraph | None = None,
    fallback: bool = True,
    enough: int | None = None,
) -> list[Reach]:
    """Tests that run the symbol, ranked: calling it first, then by distance. When no call path reaches a
    test, or nothing calls the symbol by name (a visitor's `visit_If`, a filter in a registry: called in
    ways the call graph cannot see), the test files importing its module (directly, then through others)
    follow (`fallback`); otherwise `unlisted_importers` counts those, for the caller to say so.

    A method is reached by calls of its name, and also through its class: constructing the class runs
    `__init__` (as near as a call), and, but in JavaScript and TypeScript, a test that constructs it likely
    runs its other methods (one further, as the class hands the object to whoever calls them: `Path(...)`
    in a test, `convert` called by click's own code).
    """
    graph = graph or import_graph(conn)
    walk = _Walk(conn, graph, depth)
    if symbol["path"] and walk.files.script_test(symbol["path"]):
        walk.offer(symbol["path"], symbol["path"], 0, "is in the test file")
    elif symbol["path"] and (node := walk.files.node_id(symbol["path"], symbol["id"])) is not None:
        walk.offer(node, symbol["path"], 0, "is the test")
    walk.start(symbol)
    owner = _class_of(conn, symbol)
    constructor = symbol["name"] in CONSTRUCTORS
    # A test constructing the class likely runs its other methods where calls on instances are not typed.
    # JavaScript's and TypeScript's are (indexer/parsing/jsrefs.py: `x = new C(); x.m()`), and there the
    # rule added mostly tests that do not run the method (facts_tests_js: recall / precision 0.936 / 0.596
    # with it, 0.926 / 0.743 without; the first 12 0.526 / 0.682 and 0.576 / 0.852).
    if owner is not None and (constructor or not is_script(symbol["path"])):
        walk.start(owner, 0 if constructor else 1, symbol["qualname"])
    found = walk.run(enough)
    words = code_words(symbol["qualname"], symbol["path"])
    ranked = sorted(found.values(), key=lambda t: rank_key(t, words))
    # A property is read on values the index mostly cannot type (`loop.depth` in a template, `x.name` on what an
    # unannotated function returns): the reads it finds are some of them (bench/facts_tests.py, with them alone
    # 0.956 / 0.515, recall / precision; with the importers too 0.962 / 0.515).
    read = is_property(symbol.get("decorators") or [])
    if fallback and (walk.uncalled or not ranked or read):  # the calls cannot tell: the importers can
        why = (
            f"; nothing calls {walk.uncalled[0]} by name"
            if walk.uncalled
            else f"; {symbol['name']} is a property, read on values the index cannot type"
            if read
            else ""
        )
        importers = _importers(walk.files, graph, symbol["path"], found, depth)
        ranked += [replace(t, basis=t.basis + why) for t in importers]
    return _unique(ranked)


def unlisted_importers(
    conn: sqlite3.Connection, path: str, tests: list[Reach], graph: ImportGraph | None = None
) -> list[Reach]:
    """Test files importing the file (directly or through others, up to IMPORT_DEPTH) that `tests` leaves
    out: no call path from them was found."""
    graph = graph or import_graph(conn)
    return _importers(suite_files(conn), graph, path, {t.test: t for t in tests}, MAX_CALL_DEPTH)


def tests_for_module(
    conn: sqlite3.Connection,
    path: str,
    *,
    depth: int = MODULE_CALL_DEPTH,
    graph: ImportGraph | None = None,
    import_depth: int = 1,
    enough: int | None = None,
) -> list[Reach]:
    """The tests of one module: tests calling its code (directly, or `depth - 1` functions away),
    then test files importing it directly. Not every test of its package: `import pkg` in a test
    reaches every module `pkg/__init__.py` imports, and says nothing about which one it tests.
    `import_depth` > 1 adds test files importing it through others (what a change to it can break)."""
    graph = graph or import_graph(conn)
    walk = _Walk(conn, graph, depth)
    for symbol in lookups.symbols_in(conn, path):
        walk.start(symbol)
    found = walk.run(enough)
    words = code_words("", path)
    ranked = sorted(found.values(), key=lambda t: rank_key(t, words))
    if walk.files.runs(path):
        ranked.insert(0, Reach(path, path, 0, "is a test file", True))
    ranked += _importers(walk.files, graph, path, found, depth, import_depth)
    return _unique(ranked)


TESTS_UNKNOWN = "tests unknown"  # how tests_unknown's note starts, for the answers that show it in a line


def tests_unknown(conn: sqlite3.Connection, path: str) -> str | None:
    """What to say instead of "no tests" for a file whose language's test runner is not known here."""
    if runner_known(path):
        return None
    row = conn.execute("SELECT language FROM files WHERE path = ?", (path,)).fetchone()
    language = (row[0] if row is not None else None) or "this language"
    return f"{TESTS_UNKNOWN}: no test runner of {language} is known here, so none is listed for {path}"


def tests_line(tests: list[str], note: str | None) -> str:
    """What follows `tests:` in a one-line answer: the tests, "unknown: ..." or "none found"."""
    if tests:
        return ", ".join(tests)
    if note and note.startswith(TESTS_UNKNOWN):
        return "unknown" + note.removeprefix(TESTS_UNKNOWN)
    return "none found"


def impact_tests(conn: sqlite3.Connection, symbol: SymbolRow | None, path: str) -> dict[str, Any]:
    """What impact answers about tests: a symbol's tests (and a note counting the test files importing
    its module without a call path), or a file's: its tests and every test file importing it."""
    graph = import_graph(conn)
    if symbol is not None:
        reached = tests_for_symbol(conn, symbol, graph=graph)
        unlisted = len(unlisted_importers(conn, path, reached, graph))
    else:
        reached = tests_for_module(conn, path, depth=MAX_CALL_DEPTH, graph=graph, import_depth=IMPORT_DEPTH)
        unlisted = 0
    files = "test file imports" if unlisted == 1 else "test files import"
    note = (
        (f"{unlisted} more {files} {path} with no call path found to it: impact_analysis('{path}') lists them")
        if unlisted
        else None
        if reached
        else tests_unknown(conn, path)
    )
    return {
        "tests": [t.test for t in reached],
        "tests_note": note,
        "tests_basis": [{"test": t.test, "distance": t.distance, "basis": t.basis} for t in reached],
    }


def tests_to_run(
    conn: sqlite3.Connection, graph: ImportGraph, symbols: list[SymbolRow], modules: list[str], enough: int
) -> list[dict[str, str]]:
    """Tests that run one of the symbols (calling it first, then by distance; the first symbol's first), then
    the tests of the modules, each a runnable id with why: what the context pack lists to run."""
    found: dict[str, tuple[tuple[int, int, bool, int, int, int], str]] = {}

    def offer(test: str, key: tuple[int, int, bool, int, int, int], why: str) -> None:
        if test not in found or key < found[test][0]:
            found[test] = (key, why)

    for i, symbol in enumerate(symbols):
        words = code_words(symbol["qualname"], symbol["path"])
        for t in symbol_tests_held(conn, graph, symbol, enough):
            offer(t.test, (0, t.distance, t.name_only, i, -named_after(t.test, words), -t.routes), t.basis)
    for j, path in enumerate(dict.fromkeys(modules)):
        words = code_words("", path)
        for t in module_tests_held(conn, graph, path, enough):
            why = t.basis if path in t.basis else f"{t.basis} in {path}"
            offer(t.test, (1, t.distance, t.name_only, j, -named_after(t.test, words), -t.routes), why)
    # A test file whose functions are already listed is covered by them.
    listed_files = {t.split("::")[0] for t in found if "::" in t}
    ordered = sorted(found.items(), key=lambda kv: (kv[1][0], kv[0]))
    return [{"test": t, "why": why} for t, (_, why) in ordered if "::" in t or t not in listed_files]


def symbol_tests_held(conn: sqlite3.Connection, graph: ImportGraph, symbol: SymbolRow, enough: int) -> list[Reach]:
    """The best `enough` tests calling a symbol, found once while the projections stand: the packs of one
    piece of work come back to the same candidates."""
    return held_per_key(
        conn,
        "symbol tests",
        (symbol["id"], enough),
        lambda: tests_for_symbol(conn, symbol, graph=graph, fallback=False, enough=enough),
    )


def module_tests_held(conn: sqlite3.Connection, graph: ImportGraph, path: str, enough: int) -> list[Reach]:
    """The best `enough` tests of a module, found once while the projections stand: one context pack asks
    for them twice (its tests and the module's entry)."""
    return held_per_key(
        conn, "module tests", (path, enough), lambda: tests_for_module(conn, path, graph=graph, enough=enough)
    )


def _unique(ranked: list[Reach]) -> list[Reach]:
    """One entry per id, the best. A test inside a file also listed whole stays: the cheaper run."""
    seen: set[str] = set()
    out = []
    for t in ranked:
        if t.test not in seen:
            seen.add(t.test)
            out.append(t)
    return out


def files_of(tests: list[Reach]) -> list[str]:
    """The files of the tests, in rank order."""
    return list(dict.fromkeys(t.path for t in tests))
