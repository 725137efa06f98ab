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
use its code without importing it. A googletest test of C or C++ is `path::Suite.Name` (`--gtest_filter`); a
fixture's constructor, destructor, SetUp and TearDown run for each of its tests, and a C++ constructor runs where
its class is made. A C test the project's own macro defines (libuv's `TEST_IMPL(loop_alive)`) is `path::loop_alive`,
the name its runner takes. For a language whose runner is not known here (C and C++ but in a project with tests
defined by such macros) the tests are unknown, and `tests_unknown` says so rather than "none".

A call known only by its name (`basis: name only`) ranks after resolved calls at its distance, and
counts only when the calling file can import the callee's file (directly, through others, through
the conftest.py files pytest loads with it, or by being of its Go package) or imports this repository
by names the index does not resolve; never when its qualifier is a module imported from outside
(`pathlib.Path`).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from dataclasses import astuple, replace
from itertools import groupby, zip_longest
from pathlib import Path, PurePosixPath
from typing import Any

from . import lookups, testhooks
from .bodies import file_words
from .cprototypes import C_FILES, C_SOURCES, declaring_headers
from .db import files_stamp, held_per_key, held_while_unchanged
from .djangomodels import MODEL_BASES, derives_from_django
from .graph import ImportGraph, import_graph
from .kept import MODULE_TESTS, kept
from .patches import patched
from .projections.fulltext import identifier_words
from .relevance import stem
from .resolver import shared_resolver
from .snippets import indexed_lines
from .suite import SuiteFiles, is_script, runner_known
from .symbol import SymbolRow, is_property
from .testconditions import selecting
from .testwalk import (
    CONSTRUCTORS,
    MAX_CALL_DEPTH,
    Reach,
    Walk,
    call_depth,
    class_of,
    suite_files,
)

# Test files importing the module, followed after the call graph's tests (ranked below them, each with its
# distance): deeper than graph.TEST_IMPORT_DEPTH, where imports are the whole answer, since a jinja2 filter
# is 4 imports from its tests (pkg/__init__, environment, defaults, filters).
IMPORT_DEPTH = 5
PACK_TESTS = 12  # the best tests a context pack lists (then fewer): a module's are kept for this many (store/kept.py)
MODULE_CALL_DEPTH = 2  # a module's tests: tests calling its code, or one function away
FURTHER_TESTS = 4  # when none is that near: how many tests to walk for, for each place to fill (tests_for_module)
WHOLE_WALKS_KEPT = 64  # tests_for_symbol's whole walks kept per connection: the symbols of a piece of work
_WalkKey = tuple[str, bool, Path | None]  # a whole walk's symbol, whether the importers follow, the root


def rank_key(t: Reach, words: frozenset[str] = frozenset()) -> tuple[Any, ...]:
    """Calls first, nearest first; of tests as near, those named after the code (`words`) first, then those
    reaching it by the most routes (the likelier to run it: a static path may sit in a branch a test never
    takes), then by name."""
    return (not t.by_call, t.distance, t.name_only, -named_after(t.test, words), -t.routes, t.path, t.test)


# Tried and not kept (2026-12-05): of tests as near (or of all, first), those whose own lines name the code or one
# of its direct callers (two words at least, on one line): every test building our MCP server reaches each tool,
# and the one running `get_dependencies` writes `call_tool("get_dependencies", ...)`. bench/facts_tests_self.py's
# first 12 .396 / .582 -> .411 / .589, but bench/facts_tests.py's .712 / .701 -> .699 / .700, in any place in the key.


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


# --- the answers --------------------------------------------------------------------------------


def tests_for_symbol(
    conn: sqlite3.Connection,
    symbol: SymbolRow,
    *,
    depth: int = MAX_CALL_DEPTH,
    graph: ImportGraph | None = None,
    fallback: bool = True,
    enough: int | None = None,
    root: Path | None = None,
) -> list[Reach]:
    """Tests that run the symbol, ranked: calling it first, then by distance. When no call path reaches a
    test, or nothing calls the symbol by name (a visitor's `visit_If`, a filter in a registry: called in
    ways the call graph cannot see), the test files importing its module (directly, then through others)
    follow (`fallback`); otherwise `unlisted_importers` counts those, for the caller to say so. Where nothing
    calls it by name, only those importers whose text names it follow, if any does (`root`: where the files
    are read; without it, or where none names it, all of them). Given `root`, a test reached only through a call
    that picks the method's class among several (`self.transport.notify()`), or through a Django middleware that
    opts out, stays where its file says what meets that (store/testconditions.py).

    A method is reached by calls of its name, and also through its class: constructing the class runs
    `__init__` (as near as a call), and, but in JavaScript and TypeScript, a test that constructs it likely
    runs its other methods (one further, as the class hands the object to whoever calls them: `Path(...)`
    in a test, `convert` called by click's own code).
    """
    graph = graph or import_graph(conn)
    if enough is None and depth == MAX_CALL_DEPTH:  # get_symbol's and impact's: asked again and again, whole
        walked = _whole_walks(conn)
        key = (symbol["id"], fallback, root)
        if key not in walked:
            walk = _walk_from(conn, symbol, graph, depth)
            walk.run()
            _keep(walked, key, _ranked(symbol, walk, graph, fallback, root))
        return list(walked[key])
    walk = _walk_from(conn, symbol, graph, depth)
    walk.run(enough)
    return _ranked(symbol, walk, graph, fallback, root)


def walk_steps(conn: sqlite3.Connection, symbol_id: str, root: Path | None = None) -> Iterator[None]:
    """`tests_for_symbol`'s whole walk (get_symbol's and impact's), a step per symbol whose callers it reads: the
    server walks it again after a change, between the agent's calls, so that the next answer about the symbol is
    ready (server/reader.py). Nothing for a symbol the change removed; nothing kept from a walk a change overtook."""
    row = conn.execute("SELECT * FROM symbols WHERE id = ?", (symbol_id,)).fetchone()
    if row is None:
        return
    symbol, graph, stamp = lookups.symbol_dict(row), import_graph(conn), files_stamp(conn)
    walk = _walk_from(conn, symbol, graph, MAX_CALL_DEPTH)
    yield from walk.steps()
    if files_stamp(conn) == stamp:
        _keep(_whole_walks(conn), (symbol_id, True, root), _ranked(symbol, walk, graph, True, root))


def _whole_walks(conn: sqlite3.Connection) -> dict[_WalkKey, list[Reach]]:
    """tests_for_symbol's answers by symbol (whether the importers follow, where the files are read), kept while
    the index stands."""
    return held_while_unchanged(conn, "whole symbol walks", dict)


def _keep(walked: dict[_WalkKey, list[Reach]], key: _WalkKey, answer: list[Reach]) -> None:
    """The answer kept, and only the WHOLE_WALKS_KEPT newest: a sweep over every symbol would keep them all."""
    walked.pop(key, None)
    walked[key] = answer
    while len(walked) > WHOLE_WALKS_KEPT:
        del walked[next(iter(walked))]


def _ranked(symbol: SymbolRow, walk: Walk, graph: ImportGraph, fallback: bool, root: Path | None) -> list[Reach]:
    """The tests a walk from the symbol found, ranked; the test files importing its module after them where the
    calls cannot tell (`fallback`)."""
    found = _unpatched(symbol, walk, graph)
    if root is not None:
        found = selecting(walk.call_conditions, walk.conditions, found, root)
    words = code_words(symbol["qualname"], symbol["path"])
    ranked = sorted(found.values(), key=lambda t: rank_key(t, words))
    # A property is read on values the index mostly cannot type (`loop.depth` in a template, `x.name` on what an
    # unannotated function returns): the reads it finds are some of them (bench/facts_tests.py, with them alone
    # 0.956 / 0.515, recall / precision; with the importers too 0.962 / 0.515). Tried and not kept (2026-12-07), where
    # the importers flood (Healthchecks' Channel.telegram: 178 test files listed, 2 run it): only the importers whose
    # text names the property (`_naming`), Healthchecks' test files .993 / .918 -> .992 / .921, bench/facts_tests.py
    # .975 / .576 -> .973 / .579 (Jinja2's LoopContext.depth lost a file); the importers only where no call reaches a
    # test, as for any symbol, .990 / .923 and .970 / .576.
    read = is_property(symbol.get("decorators") or [])
    # Nor (2026-12-07) the importers of a method nothing calls by name only where no test is reached by a call (its
    # class's users are: HTMLParser's handle_starttag in Healthchecks, 177 files listed): Healthchecks .993 / .919 ->
    # .993 / .920, but bench/facts_tests.py .975 / .576 -> .970 / .579 (dateutil's _TzOffsetFactory.__init__ lost all).
    if fallback and (walk.uncalled or not ranked or read):  # the calls cannot tell: the importers can
        why = (
            f"; nothing calls {walk.uncalled[0]} by name"
            if walk.uncalled
            else f"; {symbol['name']} is a property, read on values the index cannot type"
            if read
            else ""
        )
        importers = [
            replace(t, basis=t.basis + why)
            for t in importing_tests(walk.files, graph, symbol["path"], found, walk.depth)
        ]
        if walk.uncalled and root is not None:
            importers = _naming(walk.conn, root, symbol["name"], importers)
        ranked += importers
    if fallback and not ranked and root is not None:
        ranked = _naming_walked(walk, root, symbol)
    return _unique(ranked)


def _unpatched(symbol: SymbolRow, walk: Walk, graph: ImportGraph) -> dict[str, Reach]:
    """The walk's tests but those patching out code on every way to the symbol (store/patches.py): the tests patching
    the same code on the way are found again by a walk through which that code leads nowhere, each as near as that
    walk finds it."""
    on_the_way = {s["id"] for s in walk.walked}
    by_patches: dict[frozenset[str], list[str]] = {}
    for test in walk.found:
        if hit := patched(walk.conn, walk.files, test) & on_the_way:
            by_patches.setdefault(hit, []).append(test)
    found = dict(walk.found)
    for dead_ends, tests in by_patches.items():
        again = {} if symbol["id"] in dead_ends else _walk_from(walk.conn, symbol, graph, walk.depth, dead_ends).run()
        for test in tests:
            if test in again:
                found[test] = again[test]
            else:
                del found[test]
    return found


def _naming(conn: sqlite3.Connection, root: Path, name: str, importers: list[Reach]) -> list[Reach]:
    """The importing test files whose text holds the words of the code's name, where any does; else all of them.
    What nothing calls by name runs through a registry, a template or a string (Jinja2's `do_round` is the
    `round` filter of `{{ x|round }}` in test_filters.py), and every test file imports the package: one that
    never writes the name is unlikely to be about it. bench/facts_tests.py, recall / precision of the listed
    test files and of the first 12: dev .984/.553 and .710/.657 -> .979/.575 and .717/.677 (Jinja2 .98/.35 ->
    .98/.43), the hold-out the same. By the test files' symbol names alone (no file read): .979/.580, but the
    `defined` test, which every template's `is defined` runs, kept 2 of its 7 files, where the text keeps all 7."""
    shown = [w for w in dict.fromkeys(identifier_words(name)) if len(w) > 1 and stem(w) not in _NAMELESS]
    wanted = {stem(w) for w in shown}
    if not wanted:
        return importers
    kept, named = [], False
    for t in importers:
        words = file_words(root, conn, t.path)
        if words is None:
            kept.append(t)  # changed since it was indexed: its text cannot tell
        elif wanted.issubset(words.lines):
            kept.append(replace(t, basis=f'{t.basis}; its text says "{" ".join(shown)}"'))
            named = True
    return kept if named else importers


# Tried and not kept (2026-12-05): of the tests reaching a decorated function defined inside another (a tool our
# families' `register` hands to the server), only those whose file writes its name, where any does: every test
# building the server reaches every tool. bench/facts_tests_self.py at 1b402f5: .773 / .431 -> .763 / .440, the
# first 12 .409 / .581 -> .407 / .590.
def _naming_walked(walk: Walk, root: Path, symbol: SymbolRow) -> list[Reach]:
    """Where no test calls or imports anything on the way to the code, the test files naming the code or what the
    walk found it serves, as written: such code runs through a registry by name (our MCP tools, registered by a
    decorator in modules server/tools/__init__.py loads by computed names, are called by tests as
    `call_tool("get_dependencies", ...)`). A name of two words at least: `_label` or `run` is written by accident.
    Against coverage's contexts of this repository's own suite (200 functions evenly spaced, bench/facts_tests_self.py
    as first written): test files, recall / precision .630 / .524 -> .653 / .510 (the 191 answered .502, now all 200
    .510; an empty answer counted precise); bench/facts_tests.py's six projects the same (.981 / .525)."""
    names = [
        name
        for name in dict.fromkeys(s["name"] for s in walk.walked[:MAX_WALKED] if s["name"])
        if len({w for w in identifier_words(name) if len(w) > 1}) >= 2
    ]
    if not names:
        return []
    written = re.compile(r"\b(" + "|".join(re.escape(n) for n in names) + r")\b")
    out = []
    texts = indexed_lines(root, walk.conn, set(walk.files.test_files()))
    for test in walk.files.test_files():
        found = written.search("\n".join(texts[test])) if test in texts else None
        if found is not None:
            way = "" if found[1] == symbol["name"] else f", which reaches {symbol['name']}"
            basis = f"names {found[1]}{way}; no test calls it or imports {symbol['path']}"
            out.append(Reach(test, test, walk.depth + IMPORT_DEPTH + 1, basis, False))
    return out


MAX_WALKED = 20  # the names read, nearest first: a helper of a whole registry reaches many


_NAMELESS = frozenset(stem(w) for w in ("do", "get", "set", "is", "init", "new", "call"))  # say nothing of what runs


def _walk_from(
    conn: sqlite3.Connection, symbol: SymbolRow, graph: ImportGraph, depth: int, dead_ends: frozenset[str] = frozenset()
) -> Walk:
    """A walk from the symbol, and from its class: the tests the symbol is in, or is, listed already. The walk reads
    no caller of a dead end (what the tests it is walked for patch out)."""
    walk = Walk(conn, graph, call_depth(symbol["path"], depth), dead_ends)
    if symbol["path"] and walk.files.script_test(symbol["path"]):
        walk.offer(symbol["path"], symbol["path"], 0, "is in the test file")
    elif symbol["path"] and (node := walk.files.node_id(symbol["path"], symbol["id"])) is not None:
        walk.offer(node, symbol["path"], 0, "is the test")
    elif symbol["path"] and (hooked := testhooks.hooked_class(walk.files, symbol["path"], symbol["id"])) is not None:
        for test, test_path in testhooks.class_tests(walk.files, hooked):  # setUp: what no test calls by name
            walk.offer(test, test_path, 0, f"the test runner runs it for each test of {hooked['name']}")
    owner = class_of(conn, symbol)
    constructor = symbol["name"] in CONSTRUCTORS
    # measured on Python's suites alone; a constructor runs whether its class then opts out (MiddlewareNotUsed) or not
    walk.call_conditions.asked_class = owner if symbol["path"].endswith(".py") and not constructor else None
    walk.start(symbol)
    # A test constructing the class likely runs its other methods where calls on instances are not typed.
    # JavaScript's and TypeScript's are (indexer/parsing/jsrefs.py: `x = new C(); x.m()`), and there the
    # rule added mostly tests that do not run the method (facts_tests_js: recall / precision 0.936 / 0.596
    # with it, 0.926 / 0.743 without; the first 12 0.526 / 0.682 and 0.576 / 0.852). So are C++'s (store/cppcalls.py):
    # facts_tests_cpp, leveldb (dev), 0.902 / 0.603 with it, 0.888 / 0.630 without. So are Java's (store/javacalls.py):
    # facts_tests_java (dev gson, commons-cli, javapoet) 0.848 / 0.341 with it, 0.754 / 0.516 without; then with what
    # JUnit runs around each test (store/testhooks.py) and the methods the JDK calls reached through their class
    # (javatypes.called_from_outside) 0.870 / 0.498, the first 12 0.406 / 0.588 -> 0.410 / 0.696; the hold-out
    # commons-codec 0.924 / 0.483 -> 0.917 / 0.640, the first 12 0.727 / 0.519 -> 0.737 / 0.697.
    # A Django model's are too, since its queries and relations are (store/djangomodels.py), and its class a
    # request's code makes everywhere (Healthchecks' authentication backend makes a Check for a new user, and every
    # request runs it): its 2,363 functions, recall / precision 0.992 / 0.879 -> 0.991 / 0.896 (mean precision 0.8785
    # -> 0.8957); what it loses is mostly a template's lookup on a page a test reaches through a redirect it follows
    # (`{% if project.have_channel_issues %}` in base.html: 68 -> 60 of its 69 test files). Tried before the queries
    # were typed (2026-12-06): 0.981 / 0.820 -> 0.977 / 0.836.
    typed = is_script(symbol["path"]) or symbol["path"].endswith((*C_FILES, ".java"))
    if owner is not None and not typed and not constructor and symbol["path"].endswith(".py"):
        resolver = shared_resolver(conn)
        row = resolver.symbol(owner["id"])
        typed = row is not None and derives_from_django(resolver, row, MODEL_BASES)
    if owner is not None and (constructor or not typed):
        walk.start(owner, 0 if constructor else 1, symbol["qualname"])
    return walk


def unlisted_importers(
    conn: sqlite3.Connection, path: str, tests: list[Reach], graph: ImportGraph | None = None
) -> list[Reach]:
    """Test files importing the file (directly or through others, up to IMPORT_DEPTH) that `tests` leaves
    out: no call path from them was found."""
    graph = graph or import_graph(conn)
    return importing_tests(suite_files(conn), graph, path, {t.test: t for t in tests}, MAX_CALL_DEPTH)


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
    `import_depth` > 1 adds test files importing it through others (what a change to it can break).

    When none is that near (a module deep below the code tests call: a parser's helper, a projection), the
    nearest further up the calls, taking turns among their files: such a module is reached by whole test files,
    and one test of each of twelve files says more than twelve tests of one. Before, contracts and packs said
    "tests: none found" of 69 of the 174 modules of this repository that its suite executes
    (bench/facts_tests_modules.py: 4 now, each run only through a command named by a string)."""
    graph = graph or import_graph(conn)
    found = _module_tests(conn, graph, path, depth, import_depth, enough)
    if found or depth >= MAX_CALL_DEPTH:
        return found
    further = None if enough is None else FURTHER_TESTS * enough  # their files fill the places, not the tests
    return _taking_turns(_module_tests(conn, graph, path, MAX_CALL_DEPTH, import_depth, further))


def _module_tests(
    conn: sqlite3.Connection, graph: ImportGraph, path: str, depth: int, import_depth: int, enough: int | None
) -> list[Reach]:
    walk = Walk(conn, graph, depth)
    for symbol in lookups.symbols_in(conn, path):
        walk.start(symbol)
    found = walk.run(enough)
    words = code_words("", path)
    ranked = sorted(found.values(), key=lambda t: rank_key(t, words))
    if walk.files.runs(path):
        ranked.insert(0, Reach(path, path, 0, "is a test file", True))
    ranked += importing_tests(walk.files, graph, path, found, depth, import_depth)
    return _unique(ranked)


def _taking_turns(ranked: list[Reach]) -> list[Reach]:
    """The tests in their order, but of those as near, one of each file in turn (the walk finds every test at a
    distance before it stops, so this needs no longer walk)."""
    out: list[Reach] = []
    for _, level in groupby(ranked, key=lambda t: (not t.by_call, t.distance)):
        by_file: dict[str, list[Reach]] = {}
        for t in level:
            by_file.setdefault(t.path, []).append(t)
        out += [t for turn in zip_longest(*by_file.values()) for t in turn if t is not None]
    return out


TESTS_UNKNOWN = "tests unknown"  # how tests_unknown's note starts, for the answers that show it in a line


def tests_unknown(conn: sqlite3.Connection, path: str) -> str | None:
    """What to say instead of "no tests" for a file whose language's test runner is not known here."""
    if runner_known(path, conn):
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


def impact_tests(
    conn: sqlite3.Connection, symbol: SymbolRow | None, path: str, root: Path | None = None
) -> dict[str, Any]:
    """What impact answers about tests: a symbol's tests (and a note counting the test files importing
    its module without a call path), or a file's: its tests and every test file importing it; `by_call`: how many
    of them reach it through calls."""
    graph = import_graph(conn)
    if symbol is not None:
        reached = tests_for_symbol(conn, symbol, graph=graph, root=root)
        unlisted = len(unlisted_importers(conn, path, reached, graph))
    else:
        reached = tests_for_module(conn, path, depth=MAX_CALL_DEPTH, graph=graph, import_depth=IMPORT_DEPTH)
        unlisted = 0
    files = "test file imports" if unlisted == 1 else "test files import"
    if path.endswith(C_SOURCES):  # nothing includes it: they include the headers declaring its code
        files = f"{'test file includes' if unlisted == 1 else 'test files include'} the headers of"
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
        "by_call": sum(t.by_call for t in reached),
    }


def tests_to_run(
    conn: sqlite3.Connection,
    graph: ImportGraph,
    symbols: list[SymbolRow],
    modules: list[str],
    enough: int,
    root: Path | None = None,
) -> list[dict[str, str]]:
    """Tests that run one of the symbols (calling it first, then by distance; the first symbol's first), then
    the tests of the modules, each a runnable id with why: what the context pack lists to run. `root`: where the
    test files are read (tests_for_symbol)."""
    found: dict[str, tuple[tuple[int, int, bool, int, int, int], str]] = {}

    def offer(test: str, key: tuple[int, int, bool, int, int, int], why: str) -> None:
        if test not in found or key < found[test][0]:
            found[test] = (key, why)

    for i, symbol in enumerate(symbols):
        words = code_words(symbol["qualname"], symbol["path"])
        for t in symbol_tests_held(conn, graph, symbol, enough, root):
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


def symbol_tests_held(
    conn: sqlite3.Connection, graph: ImportGraph, symbol: SymbolRow, enough: int, root: Path | None = None
) -> list[Reach]:
    """The best `enough` tests calling a symbol, found once while the projections stand: the packs of one
    piece of work come back to the same candidates."""
    return held_per_key(
        conn,
        "symbol tests",
        (symbol["id"], enough, root),
        lambda: tests_for_symbol(conn, symbol, graph=graph, fallback=False, enough=enough, root=root),
    )


def module_tests_held(conn: sqlite3.Connection, graph: ImportGraph, path: str, enough: int) -> list[Reach]:
    """The best `enough` tests of a module, found once while the projections stand: one context pack asks
    for them twice (its tests and the module's entry)."""

    def made() -> list[Reach]:
        found = kept(conn, MODULE_TESTS, path) if enough == PACK_TESTS else None  # what `annals index` found
        if found is not None:
            return [Reach(*t) for t in found]
        return tests_for_module(conn, path, graph=graph, enough=enough)

    return held_per_key(conn, "module tests", (path, enough), made)


def kept_form(tests: list[Reach]) -> list[list[Any]]:
    """A module's tests as they are kept (store/kept.py): each a list of its fields."""
    return [list(astuple(t)) for t in tests]


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


def importing_tests(
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
            covered.add(d["path"])
            how = "imports" if d["distance"] == 1 else f"imports, through {d['distance'] - 1} other module(s),"
            out.append(
                Reach(d["path"], d["path"], call_depth + d["distance"], f"{how} {path}; no call path found", False)
            )
    # Nothing includes a C or C++ source: the test files including the headers declaring what it defines use it.
    headers = declaring_headers(files.conn, path)
    reached = graph.walk(headers, reverse=True, depth=import_depth)
    for test, distance in sorted(reached.items(), key=lambda kv: (kv[1], kv[0])):
        if distance and files.runs(test) and test not in covered:
            covered.add(test)
            through = f" through {distance - 1} other file(s)" if distance > 1 else ""
            why = f"includes {' or '.join(headers)}{through}, declaring what {path} defines; no call path found"
            out.append(Reach(test, test, call_depth + distance + 1, why, False))
    return out
