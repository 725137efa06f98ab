"""The import graph in memory, and the one walk of it every reader uses: files reachable by imports
(or by reverse imports) with their distance, the test files reaching a file, a file's importers.

A walk of the reverse imports to depth 3 from a module everything imports visits hundreds of
files; over SQL that is hundreds of queries, in memory a few microseconds each. A snapshot is
built from `lookups.import_edges` once per state of the files table (its row count and newest
event), kept per database, and shared by every thread: building costs one pass over the imports.
"""

from __future__ import annotations

import sqlite3
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from . import callgraph, lookups
from .cprototypes import declaring_headers, header_callers
from .db import snapshot
from .lookups import is_test_path
from .symbol import SymbolRow

# How many imports away a test file still counts as testing a file, when imports are all we go by:
# the tests of a path (vibe_check), the tests a diff affects (diff_symbols). Not the call graph's
# answer (store/testmap.py walks calls first, then follows importers further, to its own IMPORT_DEPTH).
TEST_IMPORT_DEPTH = 3
MAX_IMPORT_DEPTH = 10  # a walk asked for no depth: deeper than any package's imports go


@dataclass(frozen=True)
class ImportGraph:
    forward: dict[str, list[str]] = field(default_factory=dict)  # file -> files it imports
    reverse: dict[str, list[str]] = field(default_factory=dict)  # file -> files importing it
    package_tests: dict[str, list[str]] = field(default_factory=dict)  # a Go package's folder -> its test files
    _loads: dict[str, frozenset[str]] = field(default_factory=dict)  # file -> every file it loads
    _loaded_by: dict[str, frozenset[str]] = field(default_factory=dict)  # file -> every file loading it

    @classmethod
    def build(cls, conn: sqlite3.Connection) -> ImportGraph:
        forward: dict[str, list[str]] = {}
        reverse: dict[str, list[str]] = {}
        for edge in lookups.import_edges(conn):  # sorted by source, then target
            forward.setdefault(edge["source"], []).append(edge["target"])
            reverse.setdefault(edge["target"], []).append(edge["source"])
        for importers in reverse.values():
            importers.sort()
        package_tests: dict[str, list[str]] = {}
        for (path,) in conn.execute(
            "SELECT path FROM files WHERE status = 'indexed' AND path LIKE '%\\_test.go' ESCAPE '\\' ORDER BY path"
        ):
            package_tests.setdefault(path.rpartition("/")[0], []).append(path)
        return cls(forward, reverse, package_tests)

    def walk(self, starts: Iterable[str], *, reverse: bool, depth: int) -> dict[str, int]:
        """Every file within `depth` imports (or reverse imports) of any start, with its distance from the
        nearest (the starts at 0): breadth first, so each file is visited once, at its shortest distance."""
        edges = self.reverse if reverse else self.forward
        seen = dict.fromkeys(starts, 0)
        queue = deque(seen)
        while queue:
            current = queue.popleft()
            if seen[current] >= depth:
                continue
            for nxt in edges.get(current, []):
                if nxt not in seen:
                    seen[nxt] = seen[current] + 1
                    queue.append(nxt)
        return seen

    def transitive(self, path: str, *, reverse: bool, depth: int = MAX_IMPORT_DEPTH) -> list[dict[str, Any]]:
        """Files reachable by imports (or by reverse imports), with their distance, nearest first."""
        seen = self.walk([path], reverse=reverse, depth=depth)
        return [{"path": p, "distance": d} for p, d in sorted(seen.items(), key=lambda kv: (kv[1], kv[0])) if p != path]

    def loads(self, path: str) -> frozenset[str]:
        """Every file importing `path` loads, itself included; kept, since the graph does not change
        (the tests of a module ask it of the same test files once per call site)."""
        if path not in self._loads:
            self._loads[path] = frozenset(self.walk([path], reverse=False, depth=MAX_IMPORT_DEPTH))
        return self._loads[path]

    def loaded_together(self, path: str, other: str) -> bool:
        """Whether a process loading `path` loads `other` too: some file loads both (either may be it). Ruby's
        `require` is the process's, not the file's: `csv/parser.rb` calls the FieldsConverter that `csv.rb`, which
        requires them both, loaded. Asked as whether the files loading each meet, rather than as all a process may
        load: the files a core file's loaders load are most of a project."""
        return not self._loaders(path).isdisjoint(self._loaders(other))

    def _loaders(self, path: str) -> frozenset[str]:
        """Every file loading `path`, directly or through others, itself included."""
        if path not in self._loaded_by:
            self._loaded_by[path] = frozenset(self.walk([path], reverse=True, depth=MAX_IMPORT_DEPTH))
        return self._loaded_by[path]

    def callers(self, conn: sqlite3.Connection, symbol: SymbolRow, limit: int = 50) -> list[dict[str, Any]]:
        """The calls reaching the symbol with their basis, as lookups.callers (store/callgraph.py)."""
        return callgraph.callers(conn, symbol, limit)

    def tests_reaching(self, paths: Iterable[str], depth: int = TEST_IMPORT_DEPTH) -> set[str]:
        """The test files among `paths` and among the files importing any of them, directly or through
        others: one walk from all of them, where a walk per path visits the files they share again and
        again (hundreds of walks for a hub). And a Go file's package's tests, which `go test` builds with it:
        what they run of it, methods on values most of all, no import and no name need say (facts_tests_go,
        each file's test files: imports alone R .736 P .406, with the package's 1.000 / .339)."""
        paths = list(paths)
        found = {p for p in self.walk(paths, reverse=True, depth=depth) if is_test_path(p)}
        for path in paths:
            if path.endswith(".go"):
                found.update(self.package_tests.get(path.rpartition("/")[0], ()))
        return found

    def tests_for_path(self, path: str) -> list[str]:
        """Test files importing the file directly or through others (the file itself, if a test)."""
        return sorted(self.tests_reaching([path]))


def import_graph(conn: sqlite3.Connection) -> ImportGraph:
    """The graph of the files as the projections hold them now, rebuilt only after they change."""
    return snapshot(conn, "import graph", "files", lambda: ImportGraph.build(conn))


# --- the walks as functions of a connection (store/queries.py re-exports them) ------------------


def transitive(
    conn: sqlite3.Connection, path: str, *, reverse: bool, depth: int = MAX_IMPORT_DEPTH
) -> list[dict[str, Any]]:
    """Files reachable by imports (or by reverse imports: `dependents_of`), with their distance."""
    if not reverse:
        return import_graph(conn).transitive(path, reverse=False, depth=depth)
    reached = dependents_of(conn, path, depth)
    return [{"path": p, "distance": d} for p, d in sorted(reached.items(), key=lambda kv: (kv[1], kv[0])) if p != path]


def dependents_of(conn: sqlite3.Connection, path: str, depth: int) -> dict[str, int]:
    """The files importing `path`, directly or through others, by distance (`path` itself at 0). Nothing includes a C
    or C++ source: the headers declaring what it defines depend on it, one step away, as the files including them
    that call one of its functions do (cprototypes.header_callers), and the other files including them one step
    further."""
    graph = import_graph(conn)
    reached = graph.walk([path], reverse=True, depth=depth)
    headers = declaring_headers(conn, path)
    for found, distance in graph.walk(headers, reverse=True, depth=depth).items():
        reached[found] = min(reached.get(found, distance + 1), distance + 1)
    for caller in header_callers(conn, path, headers) if depth else ():
        reached[caller] = min(reached.get(caller, 1), 1)
    return reached


def tests_for_path(conn: sqlite3.Connection, path: str) -> list[str]:
    """Test files that import this file directly or through other files (up to TEST_IMPORT_DEPTH)."""
    return import_graph(conn).tests_for_path(path)


def tests_reaching(conn: sqlite3.Connection, paths: list[str], depth: int = TEST_IMPORT_DEPTH) -> set[str]:
    """tests_for_path of every path at once, in one walk."""
    return import_graph(conn).tests_reaching(paths, depth)
