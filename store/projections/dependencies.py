"""Dependencies: imports with their candidate targets and the file each resolves to, calls, the declared
types of classes' fields (what a call on a field calls: store/callgraph.py) and Python's web routes.

An import keeps every file (or module name, `module:pkg.mod`) it could mean, in order of
preference, and `imports.target` holds the first candidate that names an indexed file. The
projection keeps its own list of indexed files and their modules (`import_files`), so it needs no
other projection: when a file appears, changes module or goes, the imports whose candidates name
its path or module are resolved again. Adding a file later thus resolves imports written earlier,
and the targets are the same whatever order the events are replayed in.

An import of one name also keeps where that name is defined (`origin`): `from click import Command`
names click/__init__.py, which took Command from click/core.py, so its origin is core.py. The
files walked to find it are kept (`import_hops`), so a change to any of them follows it again.

Resolving when written, not when read, is what makes `dependents` an index lookup: resolving
every import on each read cost ~120 microseconds an import, 14 s for the import graph of a
10k-file repository, and minutes for a post-commit hook's tests-affected walk.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from typing import Any

from ..db import select_in, stored_list
from ..events import FileIndexed, FileOutlined, FileRemoved, FileSkipped
from ..log import StoredEvent
from ..refs import called_name, called_names
from . import gonames
from .base import Projection

MODULE_KEY = "module:"  # the indexer's prefix for a candidate that names a module, not a path
MAX_REEXPORT_HOPS = 8  # a name passed on through more modules than this counts as defined at the last


# An outlined file (search-ready, imports not read yet) is a file others' imports resolve to.
_HELD = frozenset({FileIndexed.TYPE, FileOutlined.TYPE})


class DependenciesProjection(Projection):
    name = "dependencies"
    # 5: imports.origin/bound and import_hops (re-exports followed); 6: calls.ref and ref_name; 7: a call of an
    # instance's ref_name is `__call__`; 8: fields; 9: imports.bound of a module bound to a name, and
    # import_files.exported_as; 10: call_names; 11: a call of a value its type declares (a parameter, an element)
    # is `__call__` too; 12: a Rust path through a module another crate re-exports (`grep::printer::Standard`); 13:
    # resolved_imports leaves out a Java class of the own package that the tree lacks; 14: calls.arguments (C++'s
    # overloads); 15: calls.arguments as written (a JSON list: their number and types choose the overload); 16: or
    # cppcalls.TAKEN, a function taken, not called; 17: calls.lines, every line a caller calls it on (if more than
    # one); 18: go_names, and a Go file's `package` imports (a name of its own package) resolved by them; 19: a
    # call's ref_name without the number of a second definition (`module:r#3` is called `r`); 20: a `package` import
    # binds no name; 21: routes and route_prefixes (Python's web routes); 22: routes.view and routes.name (Django's URL
    # configurations)
    version = 22
    handles = frozenset({FileIndexed.TYPE, FileOutlined.TYPE, FileSkipped.TYPE, FileRemoved.TYPE})
    tables = (
        "imports",
        "import_candidates",
        "import_files",
        "import_hops",
        "calls",
        "call_names",
        "fields",
        "routes",
        "route_prefixes",
        gonames.TABLE,
    )

    def create(self, conn: sqlite3.Connection) -> None:
        conn.execute("""CREATE TABLE IF NOT EXISTS imports (
            path TEXT NOT NULL, ordinal INTEGER NOT NULL, module TEXT NOT NULL, names TEXT,
            line INTEGER, kind TEXT, target TEXT, origin TEXT, bound TEXT,
            PRIMARY KEY (path, ordinal)) WITHOUT ROWID""")
        conn.execute("CREATE INDEX IF NOT EXISTS imports_target ON imports(target)")
        conn.execute("CREATE INDEX IF NOT EXISTS imports_origin ON imports(origin)")
        conn.execute("""CREATE TABLE IF NOT EXISTS import_hops (
            path TEXT NOT NULL, ordinal INTEGER NOT NULL, hop TEXT NOT NULL,
            PRIMARY KEY (path, ordinal, hop)) WITHOUT ROWID""")
        conn.execute("CREATE INDEX IF NOT EXISTS import_hops_hop ON import_hops(hop)")
        conn.execute("""CREATE TABLE IF NOT EXISTS import_candidates (
            path TEXT NOT NULL, ordinal INTEGER NOT NULL, rank INTEGER NOT NULL, target TEXT NOT NULL,
            is_module INTEGER NOT NULL, PRIMARY KEY (path, ordinal, rank)) WITHOUT ROWID""")
        conn.execute("CREATE INDEX IF NOT EXISTS import_candidates_target ON import_candidates(target)")
        conn.execute("""CREATE TABLE IF NOT EXISTS import_files (
            path TEXT PRIMARY KEY, module TEXT, exported_as TEXT)""")
        conn.execute("CREATE INDEX IF NOT EXISTS import_files_module ON import_files(module)")
        conn.execute("""CREATE TABLE IF NOT EXISTS calls (
            path TEXT NOT NULL, ordinal INTEGER NOT NULL, caller TEXT, name TEXT NOT NULL,
            qualifier TEXT, line INTEGER, ref TEXT, ref_name TEXT, arguments TEXT, lines TEXT,
            PRIMARY KEY (path, ordinal)) WITHOUT ROWID""")
        # A caller's calls are in its own file: the primary key finds them, no index on caller.
        conn.execute("CREATE INDEX IF NOT EXISTS calls_name ON calls(name)")
        conn.execute("CREATE INDEX IF NOT EXISTS calls_ref_name ON calls(ref_name)")  # `Cmd()` for Command
        # The names a call's other alternatives reach (refs.called_names), where they are neither its name nor its
        # ref_name: the callers of each function a parameter is handed look for them.
        conn.execute("""CREATE TABLE IF NOT EXISTS call_names (
            path TEXT NOT NULL, ordinal INTEGER NOT NULL, name TEXT NOT NULL,
            PRIMARY KEY (path, ordinal, name)) WITHOUT ROWID""")
        conn.execute("CREATE INDEX IF NOT EXISTS call_names_name ON call_names(name)")
        conn.execute("""CREATE TABLE IF NOT EXISTS fields (
            path TEXT NOT NULL, owner TEXT NOT NULL, name TEXT NOT NULL, type TEXT NOT NULL,
            PRIMARY KEY (owner, name)) WITHOUT ROWID""")
        conn.execute("CREATE INDEX IF NOT EXISTS fields_path ON fields(path)")
        # The method and path (its router's prefix included) each function serves, and the function it is defined in
        # if any (indexer/parsing/pyroutes.py); or, where a URL configuration names its view (Django's: the framework
        # loads it for every request), no symbol but the view's ref, and the route's name (indexer/parsing/pyurlconf.py)
        conn.execute("""CREATE TABLE IF NOT EXISTS routes (
            path TEXT NOT NULL, symbol TEXT, method TEXT NOT NULL, pattern TEXT NOT NULL, scope TEXT, view TEXT,
            name TEXT)""")
        conn.execute("CREATE INDEX IF NOT EXISTS routes_path ON routes(path)")
        conn.execute("CREATE INDEX IF NOT EXISTS routes_symbol ON routes(symbol)")
        conn.execute("""CREATE TABLE IF NOT EXISTS route_prefixes (
            path TEXT NOT NULL, prefix TEXT NOT NULL, PRIMARY KEY (path, prefix)) WITHOUT ROWID""")
        gonames.create(conn)
        # A Java class of the file's own package that the tree lacks is no import at all (indexer/parsing/imports.py).
        conn.execute("""CREATE VIEW IF NOT EXISTS resolved_imports AS
            SELECT path, ordinal, module, names, line, kind, target, origin FROM imports
            WHERE target IS NOT NULL OR kind != 'package'""")

    def reset(self, conn: sqlite3.Connection) -> None:
        conn.execute("DROP VIEW IF EXISTS resolved_imports")
        super().reset(conn)

    def apply(self, conn: sqlite3.Connection, event: StoredEvent) -> None:
        self.apply_batch(conn, [event])

    def apply_batch(self, conn: sqlite3.Connection, events: list[StoredEvent]) -> None:
        keys: set[str] = set()  # paths and module names whose files appeared, changed or went
        written: set[str] = set()  # files whose own imports were written again
        go_folders: set[str] = set()  # folders whose Go files declare other names than they did
        for event in events:
            keys.update(self._apply_one(conn, event))
            path = event.payload["path"]
            written.add(path)
            if path.endswith(".go"):
                names = gonames.declared(event.payload) if event.type in _HELD else set()
                if gonames.write(conn, path, names):
                    go_folders.add(path.rpartition("/")[0])
        resolved = self._imports_where(conn, "import_candidates", "target", keys) | self._imports_where(
            conn, "imports", "path", written
        )
        self._resolve(conn, resolved)
        in_packages = gonames.imports_in(conn, go_folders)
        gonames.resolve(conn, resolved | in_packages)
        resolved |= in_packages
        changed = written | {path for path, _ in resolved}  # files whose import rows are not what they were
        _follow(
            conn,
            resolved
            | self._imports_where(conn, "imports", "target", changed)
            | self._imports_where(conn, "import_hops", "hop", changed),
        )

    def _apply_one(self, conn: sqlite3.Connection, event: StoredEvent) -> set[str]:
        path = event.payload["path"]
        before = conn.execute("SELECT module FROM import_files WHERE path = ?", (path,)).fetchone()
        for table in self.tables:
            if table != gonames.TABLE:  # kept by gonames.write, which compares them with the event's
                conn.execute(f"DELETE FROM {table} WHERE path = ?", (path,))
        keys = {path} | ({before[0]} if before is not None and before[0] else set())
        if event.type not in _HELD:
            return keys if before is not None else set()
        p = event.payload
        module = p.get("module") or None
        exported_as = json.dumps(p["exported_as"], sort_keys=True) if p.get("exported_as") else None
        conn.execute("INSERT INTO import_files VALUES (?, ?, ?)", (path, module, exported_as))
        if before is not None and (before[0] or None) == module:
            keys = set()  # the same file under the same module: nothing resolves differently
        elif module:
            keys.add(module)
        imports = p.get("imports", [])
        conn.executemany(
            "INSERT INTO imports VALUES (?, ?, ?, ?, ?, ?, NULL, NULL, ?)",
            [
                (
                    path,
                    ordinal,
                    imp["module"],
                    json.dumps(imp.get("names", [])),
                    imp.get("line"),
                    imp.get("kind"),
                    _bound(imp),
                )
                for ordinal, imp in enumerate(imports)
            ],
        )
        conn.executemany(
            "INSERT OR IGNORE INTO import_candidates VALUES (?, ?, ?, ?, ?)",
            [
                (path, ordinal, rank, target.removeprefix(MODULE_KEY), int(target.startswith(MODULE_KEY)))
                for ordinal, imp in enumerate(imports)
                for rank, target in enumerate(imp.get("candidates", []))
            ],
        )
        conn.executemany(
            "INSERT INTO calls VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    path,
                    ordinal,
                    c.get("caller"),
                    c["name"],
                    c.get("qualifier"),
                    c.get("line"),
                    c.get("ref"),
                    called_name(c.get("ref")),
                    json.dumps(c["arguments"]) if isinstance(c.get("arguments"), list | str) else None,
                    json.dumps(c["lines"]) if c.get("lines") else None,
                )
                for ordinal, c in enumerate(p.get("calls", []))
            ],
        )
        conn.executemany(
            "INSERT INTO call_names VALUES (?, ?, ?)",
            [(path, ordinal, name) for ordinal, c in enumerate(p.get("calls", [])) for name in _other_names(c)],
        )
        conn.executemany(
            "INSERT OR REPLACE INTO fields VALUES (?, ?, ?, ?)",
            [(path, f["owner"], f["name"], f["type"]) for f in p.get("fields", [])],
        )
        conn.executemany(
            "INSERT INTO routes VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (path, r["symbol"], r["method"], r["path"], r.get("scope"), r.get("view"), r.get("name"))
                for r in p.get("routes", [])
            ],
        )
        prefixes = p.get("route_prefixes", [])
        conn.executemany("INSERT OR IGNORE INTO route_prefixes VALUES (?, ?)", [(path, m) for m in prefixes])
        return keys

    @staticmethod
    def _imports_where(conn: sqlite3.Connection, table: str, column: str, values: set[str]) -> set[tuple[str, int]]:
        """(path, ordinal) of the imports whose `table.column` is one of `values`, in chunks of SQL variables."""
        return {
            (path, ordinal)
            for path, ordinal in select_in(
                conn, f"SELECT path, ordinal FROM {table} WHERE {column} IN ({{marks}})", sorted(values)
            )
        }

    @staticmethod
    def _resolve(conn: sqlite3.Connection, imports: set[tuple[str, int]]) -> None:
        """Set each import's target: the first candidate, by rank, naming an indexed file (none when
        that is the importer itself); among several files of one module the importer's own project's."""
        if not imports:
            return
        candidates: dict[tuple[str, int], list[tuple[int, str, int]]] = defaultdict(list)
        by_importer: dict[str, list[int]] = defaultdict(list)
        for path, ordinal in imports:
            by_importer[path].append(ordinal)
        for path, ordinal, rank, target, is_module in select_in(
            conn,
            "SELECT path, ordinal, rank, target, is_module FROM import_candidates WHERE path IN ({marks})",
            sorted(by_importer),
        ):
            if (path, ordinal) in imports:
                candidates[(path, ordinal)].append((rank, target, is_module))
        wanted_paths = {t for cands in candidates.values() for _, t, m in cands if not m}
        wanted_modules = {t for cands in candidates.values() for _, t, m in cands if m}
        indexed = _existing(conn, "path", wanted_paths)
        modules: dict[str, list[str]] = defaultdict(list)
        for path, module in _rows(conn, "module", wanted_modules):
            modules[module].append(path)
        updates = []
        for key in sorted(imports):
            importer = key[0]
            target = None
            for _, name, is_module in sorted(candidates.get(key, [])):
                files = modules.get(name, []) if is_module else ([name] if name in indexed else [])
                if importer in files:  # `from . import box` in box.py: itself, not the package
                    break
                if files:
                    target = min(files, key=lambda f: _preference(importer, f))
                    break
            updates.append((target, *key))
        conn.executemany("UPDATE imports SET target = ? WHERE path = ? AND ordinal = ?", updates)


def _bound(imp: dict[str, Any]) -> str | None:
    """The name an import binds at a module's top level (what the module re-exports): one name's, or the
    module's own (`import yaml as y`, `const Agent = require('./agent')`, `import Agent from`); None for an
    import inside a function or class, or of several names."""
    names, alias = imp.get("names", []), imp.get("alias")
    if imp.get("local") or len(names) > 1 or names[:1] in (["*"], [""]) or not (names or alias):
        return None
    if imp.get("kind") == "package":  # a name of the file's own package (Java, Go): the other file's, not bound here
        return None
    return str(alias or names[0])


def _other_names(call: dict[str, Any]) -> list[str]:
    """The names a call's other alternatives reach (refs.called_names): neither the name written at the call nor
    its ref_name (refs.called_name, the first alternative's)."""
    ref = call.get("ref")
    if not ref or "|" not in ref:
        return []
    known = {call["name"], called_name(ref)}
    return [name for name in called_names(ref) if name not in known]


def _follow(conn: sqlite3.Connection, imports: set[tuple[str, int]]) -> None:
    """Set each import's origin: for an import of one name, the file that defines the name, found by
    walking from its target through the imports binding that name at module level (a package's
    `__init__` re-exporting it from the module that defines it); otherwise its target. A Rust path whose
    module the target re-exports from another crate (`use grep::printer::Standard`, where grep's lib.rs has
    `pub extern crate grep_printer as printer;`) goes on into that crate when the target does not bind the
    name itself."""
    if not imports:
        return
    rows: dict[str, list[tuple[int, list[str], str | None, str | None, str]]] = {}  # ..., bound, module

    def load(files: set[str]) -> None:
        wanted = sorted(f for f in files if f not in rows)
        for f in wanted:
            rows[f] = []
        for path, ordinal, names, target, bound, module in select_in(
            conn, "SELECT path, ordinal, names, target, bound, module FROM imports WHERE path IN ({marks})", wanted
        ):
            rows[path].append((ordinal, stored_list(names), target, bound, module))
        for f in wanted:
            rows[f].sort(key=lambda r: r[0])

    load({path for path, _ in imports})
    written = {
        (path, ordinal): (names, target, module)
        for path in {p for p, _ in imports}
        for ordinal, names, target, _, module in rows[path]
    }
    starts = {key: written.get(key, ([], None, "")) for key in imports}
    load({target for _, target, _ in starts.values() if target})
    origins, hops = [], []
    for key in sorted(imports):
        names, target, written_module = starts[key]
        origin = target
        if target is not None and len(names) == 1 and names[0] not in ("*", ""):
            current, name, seen = target, names[0], {key[0]}
            module = _rust_module_part(key[0], written_module)
            while True:
                seen.add(current)
                hops.append((*key, current))
                if not name:  # the name was a module's own (`const Agent = require('./agent')`): defined there
                    break
                load({current})
                onward = next(
                    ((t, taken) for _, taken, t, bound, _ in rows[current] if bound == name and t and t not in seen),
                    None,
                )
                if onward is None and module is not None and current == target:  # the path's module, re-exported
                    onward = next(
                        (
                            (t, [name])
                            for _, taken, t, bound, _ in rows[current]
                            if bound == module and not taken and t and t not in seen
                        ),
                        None,
                    )
                if onward is None or len(seen) > MAX_REEXPORT_HOPS:
                    break
                current, name = onward[0], onward[1][0] if onward[1] else ""
            origin = current
        origins.append((origin, *key))
    conn.executemany("DELETE FROM import_hops WHERE path = ? AND ordinal = ?", sorted(imports))
    conn.executemany("INSERT OR IGNORE INTO import_hops VALUES (?, ?, ?)", hops)
    conn.executemany("UPDATE imports SET origin = ? WHERE path = ? AND ordinal = ?", origins)


def _rust_module_part(path: str, module: str) -> str | None:
    """The last part of a Rust import's module path (`printer` of `grep::printer`), where that is a name a file
    may bind: not `crate`, `self` or `super`, nor a path of one part (a crate, which is its own file)."""
    last = module.rpartition("::")[2]
    return last if path.endswith(".rs") and "::" in module and last not in ("crate", "self", "super") else None


def _preference(importer: str, target: str) -> tuple[bool, int, str]:
    """Sort key among files of one module name (two example projects each with an `app.py`): the
    importer's own project first (the most leading directories shared), a .py before its .pyi stub."""
    shared = 0
    for mine, theirs in zip(importer.split("/")[:-1], target.split("/")[:-1], strict=False):
        if mine != theirs:
            break
        shared += 1
    return (target.lower().endswith(".pyi"), -shared, target)


def _rows(conn: sqlite3.Connection, column: str, values: set[str]) -> list[tuple[str, str]]:
    """(path, module) of the indexed files whose `column` is one of `values`."""
    return [
        (path, module)
        for path, module in select_in(
            conn, f"SELECT path, module FROM import_files WHERE {column} IN ({{marks}})", sorted(values)
        )
    ]


def _existing(conn: sqlite3.Connection, column: str, values: set[str]) -> set[str]:
    return {path for path, _ in _rows(conn, column, values)}
