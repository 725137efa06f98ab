"""Dependencies: imports with their candidate targets, and name-based calls.

An import keeps every file (or module name, `module:pkg.mod`) it could mean, in order of
preference; which file it resolves to is decided when it is read, against the files indexed
then. So adding a file later resolves imports written earlier, and replay order never matters.
"""

from __future__ import annotations

import json
import sqlite3

from ..log import StoredEvent
from .base import Projection

MODULE_KEY = "module:"  # the indexer's prefix for a candidate that names a module, not a path


class DependenciesProjection(Projection):
    name = "dependencies"
    version = 2
    handles = frozenset({"file.indexed", "file.skipped", "file.removed"})
    tables = ("imports", "import_candidates", "calls")

    def create(self, conn: sqlite3.Connection) -> None:
        conn.execute("""CREATE TABLE IF NOT EXISTS imports (
            path TEXT NOT NULL, ordinal INTEGER NOT NULL, module TEXT NOT NULL, names TEXT,
            line INTEGER, kind TEXT, PRIMARY KEY (path, ordinal))""")
        conn.execute("""CREATE TABLE IF NOT EXISTS import_candidates (
            path TEXT NOT NULL, ordinal INTEGER NOT NULL, rank INTEGER NOT NULL, target TEXT NOT NULL,
            is_module INTEGER NOT NULL, PRIMARY KEY (path, ordinal, rank))""")
        conn.execute("CREATE INDEX IF NOT EXISTS import_candidates_target ON import_candidates(target)")
        conn.execute("""CREATE TABLE IF NOT EXISTS calls (
            path TEXT NOT NULL, ordinal INTEGER NOT NULL, caller TEXT, name TEXT NOT NULL,
            qualifier TEXT, line INTEGER, PRIMARY KEY (path, ordinal))""")
        conn.execute("CREATE INDEX IF NOT EXISTS calls_name ON calls(name)")
        conn.execute("CREATE INDEX IF NOT EXISTS calls_caller ON calls(caller)")
        conn.execute("""CREATE VIEW IF NOT EXISTS resolved_imports AS
            SELECT i.path, i.ordinal, i.module, i.names, i.line, i.kind,
                   (SELECT f.path FROM import_candidates c JOIN files f
                      ON (c.is_module = 0 AND f.path = c.target) OR (c.is_module = 1 AND f.module = c.target)
                    WHERE c.path = i.path AND c.ordinal = i.ordinal AND f.status = 'indexed'
                      AND f.path != i.path
                    ORDER BY c.rank, f.path LIKE '%.pyi', f.path LIMIT 1) AS target
            FROM imports i""")

    def reset(self, conn: sqlite3.Connection) -> None:
        conn.execute("DROP VIEW IF EXISTS resolved_imports")
        super().reset(conn)

    def apply(self, conn: sqlite3.Connection, event: StoredEvent) -> None:
        path = event.payload["path"]
        for table in self.tables:
            conn.execute(f"DELETE FROM {table} WHERE path = ?", (path,))
        if event.type != "file.indexed":
            return
        p = event.payload
        for ordinal, imp in enumerate(p.get("imports", [])):
            conn.execute("INSERT INTO imports VALUES (?, ?, ?, ?, ?, ?)",
                         (path, ordinal, imp["module"], json.dumps(imp.get("names", [])),
                          imp.get("line"), imp.get("kind")))
            conn.executemany("INSERT OR IGNORE INTO import_candidates VALUES (?, ?, ?, ?, ?)",
                             [(path, ordinal, rank, target.removeprefix(MODULE_KEY),
                               int(target.startswith(MODULE_KEY)))
                              for rank, target in enumerate(imp.get("candidates", []))])
        conn.executemany("INSERT INTO calls VALUES (?, ?, ?, ?, ?, ?)",
                         [(path, ordinal, c.get("caller"), c["name"], c.get("qualifier"), c.get("line"))
                          for ordinal, c in enumerate(p.get("calls", []))])
