"""The walk behind store/testmap.py's answers: breadth first up the call graph from some symbols, collecting the
tests on the way, each with its distance, its basis and how many calls reached it (testmap.py's docstring says
the rules: what a test is, which guesses by name count, where the importers come in)."""

from __future__ import annotations

import sqlite3
from collections import deque
from collections.abc import Hashable, Iterator
from dataclasses import dataclass, replace
from pathlib import PurePosixPath
from typing import Any

from . import callgraph, lookups, testhooks
from .commands import COMMAND
from .cppmade import MAKES, made_class, made_where
from .cprototypes import C_FILES
from .db import held_while_unchanged, stored_list
from .djangoauth import AUTHENTICATES
from .djangodb import MIGRATES, first_database_test, is_migration
from .gocalls import NAMED_AS_VALUE, THROUGH_INTERFACE, same_go_folder
from .graph import ImportGraph
from .javatypes import called_from_outside
from .lookups import is_test_path
from .pyguesses import loader_qualified
from .resolver import shared_resolver
from .routes import DEPENDS, REQUESTS
from .rubyindex import is_ruby
from .suite import SuiteFiles, SuiteSymbol, is_fixture, is_go_initializer, is_pytest_file, is_script, uses
from .symbol import SymbolRow, is_property
from .templatetags import LOOKS_UP, RENDERS, USES_TAG
from .testconditions import CallConditions
from .validators import runs_with_its_class
from .wrappers import wrapped_by

# bench/facts_tests.py, 145 functions of click, itsdangerous, markupsafe and jinja2 against coverage:
# test files listed recall 0.975, precision 0.557 (the answer before: 0.943 / 0.403; with every test
# file importing the module as well: 0.999 / 0.481; calls alone: 0.775 / 0.681).
# Calls between a test and the symbol: 6 gave 0.957 / 0.570, 8 gives 0.975 / 0.557; with the resolved
# call graph of h/calls merged in (a trial merge), 6 gave 0.928 / 0.568 and 8 0.968 / 0.543.
# 10 (2026-12-05), not kept: bench/facts_tests.py .981 / .532 -> .993 / .520 (the first 12 .712 / .701 -> .710 /
# .700), this repository's own suite (bench/facts_tests_self.py) .773 / .431 -> .828 / .422, but `impact` on 40
# sqlalchemy functions p50 204 -> 289 ms, p95 2.0 -> 2.3 s.
MAX_CALL_DEPTH = 8
# C and C++ code sits deeper below its tests (a DB's Put, its write batch, its log writer, its file, its env...):
# bench/facts_tests_cpp.py, leveldb (dev), tests recall / precision at 8 calls .816/.613, 10 .886/.606, 12 .902/.603,
# 16 .906/.603.
CPP_CALL_DEPTH = 12


def call_depth(path: str, depth: int) -> int:
    """How far up the calls a walk from code of this file goes, asked for `depth` (MAX_CALL_DEPTH: the language's)."""
    return CPP_CALL_DEPTH if depth == MAX_CALL_DEPTH and path.endswith(C_FILES) else depth


# Call sites a walk with `enough` reads at most (the pack's; impact reads them all). A pack on typeorm,
# p50: no budget 1.7 s, 2000 sites 224 ms, 1000 sites 164 ms.
WALK_BUDGET = 1000
CALL_SITES = 2000  # call sites looked at per function on the walk
CONSTRUCTORS = frozenset({*callgraph.CONSTRUCTORS, "__new__", "__post_init__", "__attrs_post_init__"})
# What googletest runs of a fixture class for each `TEST_F(Fixture, Name)`, beside its constructor and destructor.
GOOGLETEST_HOOKS = frozenset({"SetUp", "TearDown"})


@dataclass(frozen=True)
class Reach:
    test: str  # what `pytest ID` runs: a node id, or a test file
    path: str  # the test's file
    distance: int  # 1: calls the symbol; n: through n - 1 functions; imports rank after every call
    basis: str  # why it is listed, checkable in the code
    by_call: bool  # reached through calls (False: the file only imports the module)
    name_only: bool = False  # the test's own call is matched by name alone: ranks after resolved ones
    routes: int = 1  # how many calls the walk reached the test by, at any distance: of tests as near, the likelier run


# What a call of each basis does, as a test's basis says it
_HOW = {
    MAKES: "makes a {}",
    NAMED_AS_VALUE: "hands on {} as a value",
    THROUGH_INTERFACE: "calls {} through an interface",
    callgraph.DISPATCHED: "may call {} by a name built at run time",
    COMMAND: "runs {} as a command",
    DEPENDS: "declares {}, a FastAPI dependency",
    RENDERS: "renders the template {}",
    USES_TAG: "uses the template tag {}",
    LOOKS_UP: "looks up {} in a template",
    AUTHENTICATES: "authenticates with {}",
}


def _described(call: dict[str, Any], callee: str, target: str, guess: bool) -> tuple[str, str]:
    """What a call site does, as a test's basis says it (`calls parse, which reaches Parser.feed (name only)`), and
    where (` (line 12)`)."""
    basis = call.get("basis")
    shown = f"{call['written']} ({callee})" if call.get("written") else callee  # as the calling line names it
    if call.get("read") and basis not in (MAKES, NAMED_AS_VALUE):
        how = f"reads {shown}"
    elif basis == REQUESTS:
        how = f"requests {call.get('written') or ''} of {callee}"
    else:
        how = _HOW.get(basis or "", "calls {}").format(shown)
    how += "" if callee == target else f", which reaches {target}"
    how += " (name only)" if basis == "name only" else " (through a call known by name only)" if guess else ""
    return how, f" (line {call['line']})" if call.get("line") else ""


def _dunder(name: str) -> bool:
    """`__add__`, `__iter__`: called by syntax on instances; the class's users stand for its callers."""
    return name.startswith("__") and name.endswith("__")


class Walk:
    """Breadth first up the call graph from some symbols, collecting the tests on the way."""

    def __init__(
        self, conn: sqlite3.Connection, graph: ImportGraph, depth: int, dead_ends: frozenset[str] = frozenset()
    ) -> None:
        self.conn, self.graph, self.depth = conn, graph, depth
        self.files = suite_files(conn)
        self.found: dict[str, Reach] = {}
        self._routes: dict[str, set[Hashable]] = {}  # each test's calls the walk reached it by
        self.cut = False  # stopped with `enough` found: more tests may reach it
        self.seen: set[str] = set()
        self.dead_ends = dead_ends  # symbols whose callers are not read: patched out (patches.py)
        # symbol, its distance, what tests call, and whether a call on the way there was a guess by name
        self.queue: deque[tuple[SymbolRow, int, str, bool]] = deque()
        self._reach = self.files.reach(graph)
        # What the walk starts from and nothing calls by name (a visitor's visit_If, a filter in a
        # registry, a callback): called some other way, by callers the call graph cannot see.
        self.uncalled: list[str] = []
        # Every symbol whose callers the walk read, nearest first: where no test calls or imports anything on the
        # way, the tests naming one of them are the last evidence (testmap._naming_walked).
        self.walked: list[SymbolRow] = []
        self._outside, self._blind, self._own = self.files.outside, self.files.blind, self.files.own
        # Read again and again by the walks of one answer and the next: the callers' rows by id, and each
        # name's calls from files that import this repository by unresolved names (see _unseen_calls).
        self._rows: dict[str, SymbolRow | None] = held_while_unchanged(conn, "walk symbols", dict)
        self._blind_calls: dict[str, list[dict[str, Any]]] = held_while_unchanged(conn, "blind calls", dict)
        # Calls that run the code for some of the tests reaching them (store/testconditions.py). Kept: the condition
        # each symbol's first route met (as `seen`, the first route decides), and the conditions of each test's routes
        # (None where one met none).
        self.call_conditions = CallConditions(conn)
        self._conditioned: dict[str, str] = {}
        self._condition: str | None = None  # the call being followed: the condition its route met
        self.conditions: dict[str, set[str] | None] = {}

    def start(self, symbol: SymbolRow, distance: int = 0, target: str | None = None, guessed: bool = False) -> None:
        """Walk from the symbol, `distance` calls from `target` (default: the symbol itself)."""
        if symbol["id"] not in self.seen:
            self.seen.add(symbol["id"])
            self._enqueue(symbol, distance, target or symbol["qualname"], guessed)

    def _enqueue(self, symbol: SymbolRow, distance: int, target: str, guessed: bool) -> None:
        """Queue the symbol to walk from, with the condition the route to it met (the first route decides)."""
        self.queue.append((symbol, distance, target, guessed))
        if self._condition is not None:
            self._conditioned[symbol["id"]] = self._condition

    def run(self, enough: int | None = None) -> dict[str, Reach]:
        """Walk until the queue is empty, or, with `enough`, until that many tests found by calls are
        nearer than anything still queued can give: the best `enough` are then final (breadth first,
        a later test is never nearer), and an answer that shows a few need not walk the whole graph.
        With `enough`, the walk also stops after WALK_BUDGET call sites (a graph of name-only calls, as
        in a TypeScript repository, floods: a pack on typeorm walked ~40k call sites, 0.8 s)."""
        for _ in self.steps(enough):
            pass
        return self.found

    def steps(self, enough: int | None = None) -> Iterator[None]:
        """`run`, pausing after each symbol whose callers it read: the server walks again this way after a change,
        answering the agent's calls between the steps (server/reader.py)."""
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
            if symbol["id"] in self.dead_ends:
                continue
            self.walked.append(symbol)
            held = self._conditioned.get(symbol["id"])
            called = surely = False  # any call kept; one not guessed by name alone
            calls = lookups.callers(self.conn, symbol, limit=CALL_SITES)
            calls += self._unseen_calls(symbol, calls)
            sites += len(calls)
            read = is_property(symbol.get("decorators") or [])  # its callers read it: `calls` would be misread
            for call in calls:
                if (
                    call["basis"] == "name only"
                    and not loader_qualified(call["qualifier"])  # a module loaded by name: no import says which
                    and (
                        self._external(call["path"], call["qualifier"])
                        or (not self._can_import(call["path"], symbol["path"]) and not self._unresolved(call["path"]))
                    )
                ):
                    continue  # another module's name, or a file whose imports all resolve and miss this code
                called = True
                surely = surely or call["basis"] != "name only"
                self._condition = held or self.call_conditions.met(call, symbol)
                self._visit({**call, "read": read}, distance + 1, symbol["qualname"], label, guessed)
            self._condition = held
            # Constructing a subclass constructs the class (`SuppressedFlask(__name__)` in Flask's test_subclassing.py).
            # bench/facts_tests.py: .970/.539 -> .976/.530, node ids .926 -> .943 (Flask .90/.54 -> .93/.52). Later,
            # with `type[X] | None` fields read: every subclass .980/.529 .951, those in test files alone .976/.535
            # .935. It costs a sqlalchemy pack ~10 ms of its mean (the walks to its candidates' tests 45 -> 55 ms):
            # its classes have hundreds of subclasses.
            if symbol["kind"] == "class":
                for sub in self._subclasses(symbol):
                    self.start(sub, distance, label, guessed)
            if symbol["kind"] in ("class", "struct") and symbol["path"].endswith(C_FILES):
                self._made_inside(symbol, distance, label, guessed)
            if is_migration(symbol):
                self._migrated(symbol, distance, label, guessed)
            # the JDK calls a Java method overriding one of its types' (`hashCode`, a Writer's `write`) whether or not
            # the project calls it too: whoever makes its class stands for its callers
            if called_from_outside(shared_resolver(self.conn), symbol) or runs_with_its_class(symbol):
                stand_in = class_of(self.conn, symbol)
            else:
                stand_in = None if surely else self._called_through(symbol)
            if stand_in is not None:
                self.start(stand_in, distance, label, guessed)
                wrapping = stand_in["id"] == symbol["parent"]  # a function inside a function: a decorator's wrapper?
                for decorated in wrapped_by(self.conn, symbol, self._symbol) if wrapping else []:
                    if decorated["path"] == symbol["path"] or self._can_import(decorated["path"], symbol["path"]):
                        self.start(decorated, distance, label, guessed)  # `@login_required def create()`
            elif not called and distance == 0 and not is_test_path(symbol["path"]) and not _dunder(symbol["name"]):
                self.uncalled.append(symbol["qualname"])
            yield
        for test, reach in self.found.items():  # each test's routes, counted once rather than at each offer
            if reach.routes != len(self._routes[test]):
                self.found[test] = replace(reach, routes=len(self._routes[test]))

    def _visit(self, call: dict[str, Any], distance: int, callee: str, target: str, guessed: bool = False) -> None:
        """One call site of `callee`, `distance` calls from `target` (the symbol asked about)."""
        path, caller = call["path"], call["caller"]
        site = (path, caller, call.get("line"), callee)  # one route to the tests it reaches
        # A guess by name anywhere on the way makes the test a guess: `calls helper, which reaches X` is only
        # as sure as helper's call of X.
        guess = guessed or call.get("basis") == "name only"
        # Every test of a Go package runs what its package-level variables and `init` call, before it runs. Only
        # their direct calls: one further down may sit in a closure the callee returns (a middleware factory's),
        # which runs only when called (bench/facts_tests_go.py, every depth: 0.846 / 0.600 of tests, recall / precision;
        # direct calls: 0.814 / 0.630).
        initializer = self._symbol(caller) if caller is not None and path.endswith(".go") and distance == 1 else None
        if initializer is not None and is_go_initializer(initializer):
            how, at = _described(call, callee, target, guess)
            why = f"{how}{at} in {initializer['name']}, which Go runs when the package initializes, before any test"
            for test, test_path in self.files.go_package_tests(path.rpartition("/")[0]):
                self.offer(test, test_path, distance, why, guess, site)
            return
        if caller is not None and path.endswith(".rs") and not is_test_path(path):
            node = self.files.node_id(path, caller)  # a unit test in the code's own file (Cargo's `mod tests`)
            if node is not None:
                how, at = _described(call, callee, target, guess)
                self.offer(node, path, distance, how + at, guess, site)
                return
        if not is_test_path(path):  # most sites: said nothing of, the walk goes on from the caller
            if caller is not None and distance < self.depth and caller not in self.seen:
                found = self._symbol(caller)
                if found is not None:
                    self.start(found, distance, target, guess)
                    owner = class_of(self.conn, found) if found["name"] in CONSTRUCTORS else None
                    if owner is not None:  # `Signer(...)` runs Signer.__init__: its callers are the class's
                        self.start(owner, distance, target, guess)
            return
        how, at = _described(call, callee, target, guess)
        # its tests are callbacks (JavaScript's, RSpec's, Rails' `test "..." do` blocks): the file is what runs them
        if self.files.script_test(path) or self._in_ruby_block_test(path, caller):
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
            # Tried and not kept (2026-12-06): the walk going on from a test to the tests calling it (FastAPI's docs
            # keep an app's tests beside it, run by tests/test_tutorial's wrappers): bench/facts_tests_routes.py,
            # FastAPI's routes .899 / .897 -> .924 / .910, but bench/facts_tests.py's first 12 .723 / .718 -> .721 /
            # .716, precision .572 -> .571.
            self.offer(node, path, distance, how + at + inside, guess, site)
            return
        hooked = testhooks.hooked_class(self.files, path, caller)
        if hooked is not None:
            runner = "JUnit" if path.endswith(".java") else "the test runner"
            why = f"{how}{at} in {caller.rpartition('::')[2]}, which {runner} runs for each test of {hooked['name']}"
            for test, test_path in testhooks.class_tests(self.files, hooked):
                self.offer(test, test_path, distance, why, guess, site)
            return
        helper = self.files.outermost(path, caller)
        if helper is None or helper["id"] in self.seen or distance >= self.depth:
            return
        self.seen.add(helper["id"])
        fixture = self.files.symbols(path).get(helper["parent"] or "")
        hook = fixture is not None and helper["name"] in {*GOOGLETEST_HOOKS, fixture["name"], "~" + fixture["name"]}
        if fixture is not None and hook:
            why = f"{how}{at} in {fixture['name']}.{helper['name']}, which googletest runs for each of its tests"
            for test, test_path in self.files.googletest_fixture_tests(fixture):
                self.offer(test, test_path, distance, why, guess, site)
        if is_fixture(helper):
            users, autouse = self.files.fixture_users(helper)
            users += self._inheriting_users(helper)
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
            self._enqueue(found, distance, target, guess)

    def _in_ruby_block_test(self, path: str, caller: str | None) -> bool:
        """Whether the call is written in a Ruby test file's class body or top level, where its block tests are."""
        if not self.files.ruby_block_tests(path):
            return False
        holder = self.files.symbols(path).get(caller) if caller is not None else None
        return caller is None or (holder is not None and holder["kind"] in ("class", "module"))

    def _called_through(self, symbol: SymbolRow) -> SymbolRow | None:
        """What stands for the callers of a symbol nothing calls by name (guesses by name aside): for a method
        called by syntax on an instance (`app(environ, start_response)` in a WSGI server, `with lock:`), its
        class, whoever makes one (Flask's whole request dispatch hangs from Flask.__call__, which only werkzeug
        calls); for a function inside a function (a decorator's, a callback), the function that hands it out
        (`@bp.route("/")` runs the `decorator` that route returns). bench/facts_tests.py, recall / precision of
        the test files, and the node ids listed: .944/.546 .886 -> .956/.533 .912 with the first rule (Flask
        .76/.59 -> .83/.54), .970/.539 .926 with both (Flask .90/.54); the first 12 .702/.693 -> .706/.703."""
        if _dunder(symbol["name"]) and symbol["name"] not in CONSTRUCTORS:
            return class_of(self.conn, symbol)
        if symbol["path"].endswith(C_FILES):  # a constructor runs where its class is made (`new X`)
            return made_class(self.conn, symbol)
        # Python's: a JavaScript function inside a function is a closure called where it is made, and there the
        # rule listed no test more that runs it (bench/facts_tests_js.py: precision .750 -> .748)
        enclosing = symbol["parent"] if symbol["kind"] == "function" and not is_script(symbol["path"]) else None
        parent = self._symbol(enclosing) if enclosing else None
        return parent if parent is not None and parent["kind"] in ("function", "method") else None

    def _migrated(self, migration: SymbolRow, distance: int, target: str, guessed: bool) -> None:
        """A Django migration runs in the first test using the database, where Django migrates the test database
        (store/djangodb.py)."""
        first = first_database_test(self.conn, self.files)
        if first is not None:
            reached = "" if target == migration["qualname"] else f", which reaches {target}"
            why = (
                f"is the first test using the database: Django {MIGRATES} before it, running {migration['path']}"
                f"{reached} (any test using the database runs it, run alone)"
            )
            self.offer(first[0], first[1], distance + 1, why, guessed, (migration["id"], MIGRATES))

    def _made_inside(self, cls: SymbolRow, distance: int, target: str, guessed: bool) -> None:
        """Where a C++ class is made with no call naming it (store/cppmade.py): the classes whose making makes it,
        then the functions declaring a local of it, each as a call site."""
        classes, declaring = made_where(self.conn, cls)
        for found in (self._symbol(c) for c in classes):
            if found is not None:
                self.start(found, distance, target, guessed)
        for path, function in declaring:
            site = {"path": path, "caller": function, "line": None, "basis": MAKES}
            self._visit(site, distance + 1, cls["qualname"], target, guessed)

    def _subclasses(self, cls: SymbolRow) -> list[SymbolRow]:
        """The indexed Python classes deriving from the class, nearest first."""
        resolver = shared_resolver(self.conn)
        row = resolver.symbol(cls["id"])
        found = resolver.descendants(row) if row is not None and cls["path"].endswith((".py", ".pyi")) else []
        return [s for s in (self._symbol(r["id"]) for r in found) if s is not None]

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
        before = self.conditions.get(test, set())
        self.conditions[test] = None if self._condition is None or before is None else {*before, self._condition}
        known = self.found.get(test)
        if known is not None and (distance, name_only) >= (known.distance, known.name_only):
            # nothing nearer: its subclasses had this offer already (and a class may name itself); its routes are
            # counted as the walk ends
            return
        self.found[test] = Reach(test, path, distance, basis, True, name_only, len(routes))
        parts = test.split("::")
        for importer, bound in self.files.importers(parts[1], path) if len(parts) > 1 else ():
            self.offer(  # a test class or function imported into another pytest file runs there again
                "::".join([importer, bound, *parts[2:]]),
                importer,
                distance,
                f"imports {'.'.join(parts[1:])}, which {basis}",
                name_only,
                site,
            )
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

    def _inheriting_users(self, fixture: SuiteSymbol) -> list[SuiteSymbol]:
        """The methods taking a test class's fixture in the classes deriving from it, in other files too: pytest
        looks for a class's fixtures in its bases (itsdangerous' TestTimedSerializer(TestSerializer), whose
        `test_max_age(self, serializer)` takes TestSerializer's `serializer`); none of a class with a fixture of
        that name of its own, or deriving from one."""
        owner = fixture["parent"]
        if owner is None or "." in owner.partition("::")[2]:
            return []  # a top-level test class's, as pytest collects them (SuiteFiles.subclasses)
        found: list[SuiteSymbol] = []
        bases, seen = [(fixture["path"], owner.partition("::")[2])], set()
        while bases:
            base_path, base = bases.pop()
            for sub_path, sub in self.files.subclasses(base):
                if (sub_path, sub) in seen or not self._inherits_from(sub_path, base, base_path):
                    continue
                seen.add((sub_path, sub))
                members = [s for s in self.files.symbols(sub_path).values() if s["parent"] == f"{sub_path}::{sub}"]
                if any(m["name"] == fixture["name"] for m in members):
                    continue  # its own fixture of that name
                found += [m for m in members if uses(m, fixture["name"])]
                bases.append((sub_path, sub))
        return found

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
        imports of the conftest.py files pytest loads with it (their fixtures hand it objects: `runner.invoke`); a
        Ruby file, where a process loading it loads the target too (graph.loaded_together)."""
        if importer == target or same_go_folder(importer, target):
            return True  # a Go test file of the package (or of its external x_test package) sees all of it
        if is_ruby(importer):
            # facts_tests_ruby R / P dev .660 / .517 -> .678 / .504, hold-out .329 / .389 -> .414 / .374. Tried and not
            # kept (2026-12-06): a guess by name reaching a file only so, and not by the file's own requires, left out
            # where more than K methods have the name: K = 4 hold-out .440 / .409 -> .423 / .417, K = 2 .401 / .420
            # (dev .799 / .504 -> .799 / .504 and .793 / .512).
            return self.graph.loaded_together(importer, target)
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
                    bound.update(n for n in stored_list(r["names"]) if isinstance(n, str))
            self._outside[path] = bound
        return qualifier.removesuffix("::").split(".")[0] in self._outside[path]  # Rust's `io::` (rustnames)

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


def class_of(conn: sqlite3.Connection, symbol: SymbolRow) -> SymbolRow | None:
    if symbol["kind"] not in ("method", "constructor") or not symbol["parent"]:
        return None
    row = conn.execute("SELECT * FROM symbols WHERE id = ?", (symbol["parent"],)).fetchone()
    return lookups.symbol_dict(row) if row is not None and row["kind"] == "class" else None
