"""The import graph in memory: the same answers as lookups.dependents / transitive / tests_for_path /
callers, without a query per file visited.

A walk of the reverse imports to depth 3 from a module everything imports visits hundreds of
files; over SQL that is hundreds of queries, in memory a few microseconds each. A snapshot is
built from `lookups.import_edges` once per state of the files table (its row count and newest
event), kept per database, and shared by every thread: building costs one pass over the imports.
"""

from __future__ import annotations

import sqlite3
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from . import callgraph, lookups
from .db import snapshot
from .lookups import is_test_path
from .symbol import SymbolRow

TEST_IMPORT_DEPTH = 3  # as lookups.tests_for_path


@dataclass(frozen=True)
class ImportGraph:
    forward: dict[str, list[str]] = field(default_factory=dict)  # file -> files it imports
    reverse: dict[str, list[str]] = field(default_factory=dict)  # file -> files importing it
    _loads: dict[str, frozenset[str]] = field(default_factory=dict)  # file -> every file it loads

    @classmethod
    def build(cls, conn: sqlite3.Connection) -> ImportGraph:
        forward: dict[str, list[str]] = {}
        reverse: dict[str, list[str]] = {}
        for edge in lookups.import_edges(conn):  # sorted by source, then target
            forward.setdefault(edge["source"], []).append(edge["target"])
            reverse.setdefault(edge["target"], []).append(edge["source"])
        for importers in reverse.values():
            importers.sort()
        return cls(forward, reverse)

    def dependents(self, path: str) -> list[str]:
        return list(self.reverse.get(path, []))

    def transitive(self, path: str, *, reverse: bool, depth: int = 10) -> list[dict[str, Any]]:
        """Files reachable by imports (or reverse imports) with their distance, as lookups.transitive."""
        edges = self.reverse if reverse else self.forward
        seen = {path: 0}
        queue = deque([path])
        while queue:
            current = queue.popleft()
            if seen[current] >= depth:
                continue
            for nxt in edges.get(current, []):
                if nxt not in seen:
                    seen[nxt] = seen[current] + 1
                    queue.append(nxt)
        return [{"path": p, "distance": d} for p, d in sorted(seen.items(), key=lambda kv: (kv[1], kv[0])) if p != path]

    def loads(self, path: str) -> frozenset[str]:
        """Every file importing `path` loads, itself included; kept, since the graph does not change
        (the tests of a module ask it of the same test files once per call site)."""
        if path not in self._loads:
            self._loads[path] = frozenset({path, *(d["path"] for d in self.transitive(path, reverse=False))})
        return self._loads[path]

    def callers(self, conn: sqlite3.Connection, symbol: SymbolRow, limit: int = 50) -> list[dict[str, Any]]:
        """The calls reaching the symbol with their basis, as lookups.callers (store/callgraph.py)."""
        return callgraph.callers(conn, symbol, limit)

    def tests_for_path(self, path: str) -> list[str]:
        """Test files importing the file directly or through others, as lookups.tests_for_path."""
        found = {
            d["path"] for d in self.transitive(path, reverse=True, depth=TEST_IMPORT_DEPTH) if is_test_path(d["path"])
        }
        return sorted(found | ({path} if is_test_path(path) else set()))


def import_graph(conn: sqlite3.Connection) -> ImportGraph:
    """The graph of the files as the projections hold them now, rebuilt only after they change."""
    return snapshot(conn, "import graph", "files", lambda: ImportGraph.build(conn))
