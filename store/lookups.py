"""The read side's primitives: symbols and files by the references agents send, the import graph's
edges (store/graph.py walks them), the call graph's edges.

store/queries.py builds the answers an agent reads from these; the modules it builds on (graph,
testmap, ranking, relevance) need them too, so they live here, below all of them: the read side
has no import circle.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import Any

from . import callgraph
from .cprototypes import declaring_headers, header_callers
from .db import select_in, snapshot, stored_list
from .projections.files import COMPLETE, SEARCH_READY
from .projections.symbols import COLUMNS as SYMBOL_COLUMNS
from .symbol import SymbolRow
from .symbol import symbol_dict as symbol_dict
from .testpaths import is_test_path as is_test_path
from .testpaths import is_test_symbol as is_test_symbol

MAX_MODULE_PARTS = 64  # deeper than any package tree: where a dotted name stops being a module path


class NotFound(LookupError):
    """The thing asked for is not in the index; the message says what to send instead."""


def like_escaped(text: str) -> str:
    """`text` matched literally by SQL LIKE ... ESCAPE '\\' (its `%`, `_` and `\\` escaped)."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def like_prefix(prefix: str) -> str:
    return like_escaped(prefix) + "%"


def match_symbol(conn: sqlite3.Connection, ref: str) -> SymbolRow | None:
    """A symbol by id (`path::qualname`), qualified name, or `path:qualname`; None when nothing is
    named so (queries.find_symbol then says which symbols come closest); ambiguity is an error."""
    row = conn.execute("SELECT * FROM symbols WHERE id = ?", (ref,)).fetchone()
    if row is not None:
        return symbol_dict(row)
    rows = conn.execute("SELECT * FROM symbols WHERE qualname = ? ORDER BY path LIMIT 20", (ref,)).fetchall()
    if not rows and "." in ref:  # a module-qualified name: pkg.mod.Class.method
        rows = _by_module_qualname(conn, ref)
    if len(rows) == 1:
        return symbol_dict(rows[0])
    if rows:
        ids = ", ".join(r["id"] for r in rows[:10])
        raise NotFound(f"{ref!r} names {len(rows)} symbols; send one of their ids: {ids}")
    return None


def _by_module_qualname(conn: sqlite3.Connection, ref: str) -> list[sqlite3.Row]:
    parts = ref.split(".")
    # Longest module first, but never deeper than a package tree goes: a name of 100k dots would
    # otherwise cost 100k joins of the whole name and as many queries (minutes).
    for cut in range(min(len(parts) - 1, MAX_MODULE_PARTS), 0, -1):
        module, qualname = ".".join(parts[:cut]), ".".join(parts[cut:])
        rows = conn.execute(
            "SELECT s.* FROM symbols s JOIN files f ON f.path = s.path WHERE f.module = ? AND s.qualname = ?",
            (module, qualname),
        ).fetchall()
        if rows:
            return rows
    return []


def callers(conn: sqlite3.Connection, symbol: SymbolRow, limit: int = 50) -> list[dict[str, Any]]:
    """The calls that reach this symbol, each with its basis, resolved ones first (store/callgraph.py)."""
    return callgraph.callers(conn, symbol, limit)


def callees(conn: sqlite3.Connection, symbol: SymbolRow, limit: int = 50) -> list[dict[str, Any]]:
    """What this symbol calls, resolved to symbols where the code says which (store/callgraph.py)."""
    return callgraph.callees(conn, symbol, limit)


def resolve_path(conn: sqlite3.Connection, ref: str) -> str:
    """A repo-relative path from a path or a module name; NotFound says what to send."""
    ref = ref.strip().removeprefix("./")
    row = conn.execute("SELECT path, status, reason FROM files WHERE path = ?", (ref,)).fetchone()
    if row is None:
        row = conn.execute(
            "SELECT path, status, reason FROM files WHERE module = ? AND status = 'indexed'"
            " ORDER BY length(path) LIMIT 1",
            (ref,),
        ).fetchone()
    if row is None:
        raise NotFound(
            f"no indexed file or module {ref!r}; send a repository-relative path such as "
            "'src/pkg/mod.py' or a module name such as 'pkg.mod'"
        )
    if row["status"] != "indexed":  # a skipped file has no imports, symbols or contract to answer with
        raise NotFound(
            f"{row['path']!r} is not indexed (skipped: {row['reason']}); send the path of an "
            "indexed source file (`annals status --json` lists the skipped ones)"
        )
    return str(row["path"])


def go_packages(conn: sqlite3.Connection) -> dict[str, list[str]]:
    """Folder -> the files `go build` compiles for the package there (its .go files but the tests): an import
    of a Go package imports all of them, where the resolver names one."""
    out: dict[str, list[str]] = {}
    for (path,) in conn.execute("SELECT path FROM files WHERE status = 'indexed' AND path LIKE '%.go' ORDER BY path"):
        if not path.endswith("_test.go"):
            out.setdefault(path.rpartition("/")[0], []).append(path)
    return out


def _package_files(packages: dict[str, list[str]], target: str, kind: str | None = None) -> list[str]:
    """The files an import resolved to `target` imports: its Go package's, or the file alone (a test file
    belongs to no package another imports, and a name of the importer's own package is the declaring file's)."""
    package = packages.get(target.rpartition("/")[0], []) if target.endswith(".go") and kind != "package" else []
    return package if target in package else [target]


RELATIVE_SPECIFIERS = ("./", "../", "/")  # JavaScript's and TypeScript's paths of the project's own files


def dependencies(conn: sqlite3.Connection, path: str) -> list[dict[str, Any]]:
    """What one file imports: repo files it resolves to (every file of an imported Go package), external
    modules by name, and what names a place of its own project that no indexed file answers (`unresolved`): a Rust
    path of its own crate, a relative specifier (`./logo.svg`, an asset; `./missing`, no file of the tree) or a
    `require_relative` or a Rust `mod x;` (hyper's examples' `#[path = "../benches/support/mod.rs"] mod support;`),
    which are never another package's; a name taken from a module that re-exports it also names the file defining
    it (`via` the module imported)."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    packages = go_packages(conn) if path.endswith(".go") else {}
    for r in conn.execute(
        "SELECT module, names, line, kind, target, origin FROM resolved_imports WHERE path = ? ORDER BY ordinal",
        (path,),
    ):
        names = stored_list(r["names"])
        root = r["module"].split("::")[0] if path.endswith(".rs") else ""
        crate_path = root in ("self", "super", "crate")
        if crate_path and not r["target"] and root == "self":
            continue  # the file's own items (`use super::*` in its `mod tests`): no dependency
        own = crate_path or r["kind"] in ("require_relative", "mod") or r["module"].startswith(RELATIVE_SPECIFIERS)
        if path.endswith(".rs") and not r["target"] and not own:
            for module, taken in _rust_paths(r["module"], names):
                item = out.setdefault(
                    ("external", module), {"target": module, "kind": "external", "line": r["line"], "names": []}
                )
                item["names"].extend(n for n in taken if n not in item["names"])
            continue
        for target in _package_files(packages, r["target"], r["kind"]) if r["target"] else [None]:
            key = ("file", target) if target else ("unresolved" if own else "external", r["module"])
            item = out.setdefault(key, {"target": key[1], "kind": key[0], "line": r["line"], "names": []})
            item["names"].extend(n for n in names if n not in item["names"])
        if r["origin"] and r["origin"] != r["target"] and r["origin"] != path:
            item = out.setdefault(
                ("file", r["origin"]),
                {"target": r["origin"], "kind": "file", "line": r["line"], "names": [], "via": r["target"]},
            )
            item["names"].extend(n for n in names if n not in item["names"])
    return list(out.values())


def _rust_paths(module: str, names: list[str]) -> list[tuple[str, list[str]]]:
    """Another crate's paths a Rust `use` reaches, each with the items taken from it: a lowercase name is a module
    (or a function) of its own, so `use std::fmt;` and `use std::io::{self, Write}` import `std::fmt` and `std::io`,
    not the crate `std` that every file names."""
    items = [n for n in names if not n[:1].islower()]
    return [(f"{module}::{n}", []) for n in names if n[:1].islower()] + (
        [(module, items)] if items or not names else []
    )


def dependents(conn: sqlite3.Connection, path: str) -> list[str]:
    """The files importing this one (or its Go package, or a name it declares for the rest of its package), or a
    name it defines through a module re-exporting it (imports are resolved when written: an index lookup). Nothing
    includes a C or C++ source: the headers declaring what it defines are its dependents (tmux's server-client.c,
    whose contract said none: tmux.h), as `impact` reads them, and so are the files including those headers that
    call a function it defines (cprototypes.header_callers: window-copy.c's pack said "used by 1 (tmux.h)"; cfg.c,
    format.c and five more call it)."""
    package = _package_files(go_packages(conn), path) if path.endswith(".go") else [path]
    marks = ", ".join("?" * len(package))
    importers = {
        r[0]
        for r in conn.execute(
            f"SELECT path FROM imports WHERE target IN ({marks}) AND kind IS NOT 'package' AND path != ? UNION"
            " SELECT path FROM imports WHERE target = ? AND kind = 'package' AND path != ? UNION"
            " SELECT path FROM imports WHERE origin = ? AND path != ?",
            (*package, path, path, path, path, path),
        )
    }
    headers = declaring_headers(conn, path)
    return sorted(importers.union(headers, header_callers(conn, path, headers)))


def import_edges(conn: sqlite3.Connection) -> list[dict[str, str]]:
    """Every import edge between files of the repository (to every file of an imported Go package), and from
    a file to the file defining a name it takes through a module re-exporting it."""
    packages = go_packages(conn)
    edges = {
        (r[0], target)
        for r in conn.execute(
            "SELECT path, target, kind FROM resolved_imports WHERE target IS NOT NULL AND target != path UNION"
            " SELECT path, origin, kind FROM resolved_imports WHERE origin IS NOT NULL AND origin != path"
        )
        for target in _package_files(packages, r[1], r[2])
        if target != r[0]
    }
    return [{"source": source, "target": target, "kind": "import"} for source, target in sorted(edges)]


# --- what the index holds: files and symbols by path, for the indexer, the hooks and the commands ---


def indexed_anything(conn: sqlite3.Connection) -> bool:
    """Whether any file is indexed: an empty answer from an empty index is no answer."""
    return conn.execute("SELECT 1 FROM files WHERE status = 'indexed' LIMIT 1").fetchone() is not None


def held_paths(conn: sqlite3.Connection, among: Iterable[str] | None = None) -> set[str]:
    """The paths the index holds (indexed or skipped), of all or only of `among`."""
    if among is None:
        return {r[0] for r in conn.execute("SELECT path FROM files")}
    return {r[0] for r in select_in(conn, "SELECT path FROM files WHERE path IN ({marks})", sorted(among))}


def innermost_symbols(conn: sqlite3.Connection, path: str, lines: Iterable[int]) -> list[SymbolRow]:
    """The innermost symbol of the file holding each of the lines (1-based), once each, in the lines' order."""
    held: dict[str, SymbolRow] = {}
    for line in lines:
        row = conn.execute(
            "SELECT * FROM symbols WHERE path = ? AND start_line <= ? AND end_line >= ? AND start_line > 0"
            " ORDER BY end_line - start_line LIMIT 1",
            (path, line, line),
        ).fetchone()
        if row is not None:
            held.setdefault(row["id"], symbol_dict(row))
    return list(held.values())


def symbol_rows(conn: sqlite3.Connection, ids: Iterable[str]) -> dict[str, sqlite3.Row]:
    """The symbols table's rows by id, in the order SQLite gives them; an id it no longer holds is missing."""
    return {r["id"]: r for r in select_in(conn, "SELECT * FROM symbols WHERE id IN ({marks})", ids)}


def indexed_paths(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT path FROM files WHERE status = 'indexed'")}


def outlined_paths(conn: sqlite3.Connection, among: Iterable[str] | None = None) -> list[str]:
    """The files only search-ready (tier 1, outlined) whose complete facts are pending, by path;
    of all or only of `among`."""
    if among is None:
        return [r[0] for r in conn.execute("SELECT path FROM files WHERE tier = ? ORDER BY path", (SEARCH_READY,))]
    query = f"SELECT path FROM files WHERE tier = {SEARCH_READY} AND path IN ({{marks}})"
    rows = select_in(conn, query, sorted(among))
    return sorted(r[0] for r in rows)


def complete_paths(conn: sqlite3.Connection) -> set[str]:
    """The indexed files with complete facts (tier 2)."""
    return {r[0] for r in conn.execute("SELECT path FROM files WHERE tier = ?", (COMPLETE,))}


def file_lines(conn: sqlite3.Connection) -> dict[str, int]:
    """Each indexed file's number of lines, kept until the files change (every pack reads them)."""
    query = "SELECT path, lines FROM files WHERE status = 'indexed'"
    return snapshot(conn, "file lines", "files", lambda: dict(conn.execute(query).fetchall()))


def outlined_count(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT COUNT(*) FROM files WHERE tier = ?", (SEARCH_READY,)).fetchone()[0])


def paths_under(conn: sqlite3.Connection, folder: str) -> list[str]:
    """The paths held under a folder (`src/pkg`: `src/pkg/a.py`, not `src/pkg2.py`)."""
    # '0' follows '/' in byte order: the range is exactly the paths starting with `folder/`.
    return [
        r[0] for r in conn.execute("SELECT path FROM files WHERE path > ? AND path < ?", (f"{folder}/", f"{folder}0"))
    ]


def holds_file(conn: sqlite3.Connection, path: str) -> bool:
    """Whether the index holds this path, indexed or skipped."""
    return conn.execute("SELECT 1 FROM files WHERE path = ?", (path,)).fetchone() is not None


def holds_file_or_folder(conn: sqlite3.Connection, path: str) -> bool:
    """Whether the index holds this path, or any path under it taken as a folder."""
    folder = path.rstrip("/") + "/"
    return (
        conn.execute(
            "SELECT 1 FROM files WHERE path = ? OR substr(path, 1, ?) = ? LIMIT 1", (path, len(folder), folder)
        ).fetchone()
        is not None
    )


def skipped_files(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """The files the index holds but did not index, each with why ({path, reason}), by path."""
    return [dict(r) for r in conn.execute("SELECT path, reason FROM files WHERE status = 'skipped' ORDER BY path")]


def module_of(conn: sqlite3.Connection, path: str) -> str | None:
    """The module name a file was indexed as (None: none, or no such file)."""
    row = conn.execute("SELECT module FROM files WHERE path = ?", (path,)).fetchone()
    return row[0] if row is not None and row[0] else None


def file_hashes(
    conn: sqlite3.Connection, among: Iterable[str] | None = None
) -> list[tuple[str, str | None, str | None]]:
    """(path, content hash, skip reason) of every file held, or of those `among` these paths."""
    rows = (
        conn.execute("SELECT path, content_hash, reason FROM files")
        if among is None
        else select_in(conn, "SELECT path, content_hash, reason FROM files WHERE path IN ({marks})", sorted(among))
    )
    return [(r[0], r[1], r[2]) for r in rows]


def every_symbol(conn: sqlite3.Connection) -> list[SymbolRow]:
    """Every indexed symbol, by id."""
    return [symbol_dict(r) for r in conn.execute("SELECT * FROM symbols ORDER BY id")]


def symbols_in(conn: sqlite3.Connection, path: str) -> list[SymbolRow]:
    """The symbols of one file, in the order they start."""
    return [symbol_dict(r) for r in conn.execute("SELECT * FROM symbols WHERE path = ? ORDER BY start_line", (path,))]


def stored_symbol_rows(conn: sqlite3.Connection, path: str) -> dict[str, sqlite3.Row]:
    """The symbols table's rows of one file by id, as stored (the columns of projections.symbols): what
    the writer compares a file's new facts with, column by column."""
    sql = f"SELECT {', '.join(SYMBOL_COLUMNS)} FROM symbols WHERE path = ?"
    return {row["id"]: row for row in conn.execute(sql, (path,))}


def has_symbol_kind(conn: sqlite3.Connection, kind: str) -> bool:
    return conn.execute("SELECT 1 FROM symbols WHERE kind = ? LIMIT 1", (kind,)).fetchone() is not None


def symbol_kinds(conn: sqlite3.Connection) -> list[str]:
    return [r[0] for r in conn.execute("SELECT DISTINCT kind FROM symbols ORDER BY kind")]


def file_with_most_symbols(conn: sqlite3.Connection) -> str | None:
    row = conn.execute("SELECT path FROM symbols GROUP BY path ORDER BY COUNT(*) DESC, path LIMIT 1").fetchone()
    return row[0] if row is not None else None


def files_calling(conn: sqlite3.Connection, names: Iterable[str]) -> set[str]:
    """The files with a call of any of these names (by name alone, resolved or not)."""
    return {r[0] for r in select_in(conn, "SELECT DISTINCT path FROM calls WHERE name IN ({marks})", sorted(names))}
