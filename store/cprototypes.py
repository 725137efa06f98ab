"""C's rule for what a call of a function runs where the calling file says nothing but its includes: the definition
of that name, which a header it includes declares (`uv_run(loop, ...)` in a test, through include/uv.h's prototype:
src/unix/core.c's, or src/win/core.c's). A C++ namespace's function (`leveldb::TableFileName`) is reached so too.
store/callgraph.py gives such a call the basis THROUGH_PROTOTYPE, in both directions (callers and callees)."""

from __future__ import annotations

import re
import sqlite3
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .resolver import CallResolver
    from .symbol import SymbolRow

THROUGH_PROTOTYPE = "through its prototype"
C_SOURCES = (".c", ".cc", ".cpp", ".cxx", ".c++")
C_HEADERS = (".h", ".hh", ".hpp", ".hxx", ".h++")
C_FILES = C_SOURCES + C_HEADERS  # C's and C++'s code, sources and headers
# A googletest test's signature: `TEST_F(DBTest, Empty)`, its macro, suite and name (FRIEND_TEST and the like declare,
# they define no test). What it defines googletest runs, and no code calls.
GOOGLETEST = re.compile(r"^(TEST|TEST_F|TEST_P|TYPED_TEST|TYPED_TEST_P)\s*\(\s*(\w+)\s*,\s*(\w+)\s*\)")
# A C test a macro of the project's defines, named by its one argument: libuv's `TEST_IMPL(loop_alive)`, Check's
# `START_TEST(test_create)`. The project's own runner takes the name (`uv_run_tests_a loop_alive`); a benchmark's
# macro (`BENCHMARK_IMPL(sizes)`) makes no test.
MACRO_TEST = re.compile(r"^(?:[A-Z0-9_]*_)?TEST(?:_[A-Z0-9_]*)?\s*\(\s*(\w+)\s*\)$")


def prototype_includers(resolver: CallResolver, definition: SymbolRow | sqlite3.Row) -> set[str]:
    """The files including a header that declares this definition, a call of whose name there runs it: none but
    for a free function of a C or C++ source (in a namespace, or none). Read once per resolver: a callees answer
    asks of each function of a name, a callers walk of each definition it meets."""
    key = definition["id"]
    if key not in resolver.prototype_includers:
        parent = resolver.symbol(definition["parent"])
        free = parent is None or parent["kind"] == "namespace"
        source = definition["kind"] == "function" and definition["path"].endswith(C_SOURCES)
        headers = _prototype_headers(resolver.conn, definition) if free and source else []
        resolver.prototype_includers[key] = _includers(resolver.conn, headers) if headers else set()
    return resolver.prototype_includers[key]


def _prototype_headers(conn: sqlite3.Connection, definition: SymbolRow | sqlite3.Row) -> list[str]:
    """The headers declaring a function of this C definition's name, a call of which runs it: none when it is
    `static` (its file's own, which no other file's call reaches)."""
    if definition["signature"].lstrip().startswith("static"):
        return []
    rows = conn.execute(  # of its qualified name: a C++ namespace's function is declared in that namespace
        "SELECT path, signature FROM symbols WHERE qualname = ? AND kind = 'function' AND path != ?",
        (definition["qualname"], definition["path"]),
    )
    return sorted({r[0] for r in rows if r[0].endswith(C_HEADERS) and not r[1].lstrip().startswith("static")})


def _includers(conn: sqlite3.Connection, paths: list[str]) -> set[str]:
    """The files including any of these headers, directly or through other headers, as the preprocessor does
    (libuv's src/unix/core.c reaches uv-common.h's prototypes through internal.h). Over SQL, a few queries for
    a few headers, rather than graph.import_graph's walk: graph.py reads the call graph, which reads this."""
    found: set[str] = set()
    frontier = list(paths)
    while frontier:
        marks = ",".join("?" * len(frontier))
        rows = conn.execute(f"SELECT DISTINCT path FROM imports WHERE target IN ({marks})", frontier)
        frontier = [r[0] for r in rows if r[0] not in found]
        found.update(frontier)
    return found


def declaring_headers(conn: sqlite3.Connection, path: str) -> list[str]:
    """The headers declaring what this C or C++ source defines (leveldb's db/dbformat.h for db/dbformat.cc: its
    classes' methods, its namespace's functions): no file includes a source, so a change to one reaches the
    files including these. Its `static` functions aside: no other file can call them."""
    if not path.endswith(C_SOURCES):
        return []
    rows = conn.execute(
        "SELECT DISTINCT declared.path FROM symbols AS defined JOIN symbols AS declared"
        " ON declared.qualname = defined.qualname AND declared.path != defined.path"
        " WHERE defined.path = ? AND defined.kind IN ('function', 'method')"
        " AND ltrim(defined.signature) NOT LIKE 'static%'",
        (path,),
    )
    return sorted(r[0] for r in rows if r[0].endswith(C_HEADERS))
