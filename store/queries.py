"""The read side: pure functions over the projections. Every answer an agent gets starts here."""

from __future__ import annotations

import json
import re
import sqlite3
from collections import deque
from typing import Any

from . import callgraph, log
from .projections import positions
from .projections.contracts import first_sentence
from .projections.fulltext import fts_query
from .projections.symbols import COLUMNS as SYMBOL_COLUMNS

_TEST_PATH = re.compile(
    r"(^|/)(tests?|__tests__|spec|specs|testing)/"
    r"|(^|/)test_[^/]*\.py$|_test\.(py|go|rb|c|cc|cpp)$|(^|/)conftest\.py$"
    r"|\.(test|spec)\.(js|jsx|ts|tsx|mjs|cjs)$|(Test|Tests|IT)\.(java|kt|cs)$|_spec\.rb$"
    r"|(^|/)tests?\.rs$")
IMPORT_DEPTH = 4  # impact's walk of reverse imports, unless asked otherwise
MAX_MODULE_PARTS = 64  # deeper than any package tree: where a dotted name stops being a module path


class NotFound(LookupError):
    """The thing asked for is not in the index; the message says what to send instead."""


def is_test_path(path: str) -> bool:
    """Test files by the conventions of pytest, Go, Jest/Vitest, JUnit, RSpec and Cargo."""
    return bool(_TEST_PATH.search(path))


def symbol_dict(row: sqlite3.Row) -> dict[str, Any]:
    out = {col: row[col] for col in SYMBOL_COLUMNS}
    out["params"] = json.loads(out["params"] or "[]")
    out["decorators"] = json.loads(out["decorators"] or "[]")
    out["overloads"] = json.loads(out["overloads"] or "[]")
    out["exported"] = bool(out["exported"])
    return out


# --- symbols -------------------------------------------------------------------------------------

def list_symbols(conn: sqlite3.Connection, *, path: str | None = None, kind: str | None = None,
                 limit: int | None = None) -> list[dict[str, Any]]:
    sql = "SELECT * FROM symbols WHERE 1=1"
    args: list[Any] = []
    if path:
        sql += " AND (path = ? OR path LIKE ? ESCAPE '\\')"
        args += [path, _like_prefix(path.rstrip("/") + "/")]
    if kind:
        sql += " AND kind = ?"
        args.append(kind)
    sql += " ORDER BY path, start_line, id"
    if limit:
        sql += " LIMIT ?"
        args.append(limit)
    return [symbol_dict(r) for r in conn.execute(sql, args)]


def _like_prefix(prefix: str) -> str:
    return prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def search(conn: sqlite3.Connection, query: str, *, kind: str | None = None, limit: int = 20,
           as_task: bool = True) -> list[dict[str, Any]]:
    """BM25 over names, qualified names, signatures, docstrings and paths; names weigh most. A query of
    a task's size that too few symbols hold whole is topped up by the ranking core (store/ranking.py)
    unless `as_task` is False."""
    expression = fts_query(query)
    if not expression:
        return []
    sql = ("SELECT s.*, bm25(symbols_fts, 0, 10.0, 6.0, 2.0, 1.0, 1.5) AS score FROM symbols_fts"
           " JOIN symbols s ON s.id = symbols_fts.id WHERE symbols_fts MATCH ?")
    args: list[Any] = [expression]
    if kind:
        sql += " AND s.kind = ?"
        args.append(kind)
    sql += " ORDER BY score, length(s.qualname) LIMIT ?"
    args.append(limit)
    out = []
    for row in conn.execute(sql, args):
        item = symbol_dict(row)
        item["score"] = round(-row["score"], 4)
        out.append(item)
    if as_task and len(out) < limit:
        # A sentence ("the multipart parser drops the last part") rarely has every word in one symbol:
        # it is ranked as a task, by the ranking core the context pack uses.
        from .ranking import is_task_sized, task_hits

        if is_task_sized(query):
            seen = {r["id"] for r in out}
            out += [h for h in task_hits(conn, query, kind=kind, limit=limit) if h["id"] not in seen][:limit - len(out)]
    return out


def find_symbol(conn: sqlite3.Connection, ref: str) -> dict[str, Any]:
    """A symbol by id (`path::qualname`), qualified name, or `path:qualname`; ambiguity is an error."""
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
    hits = search(conn, ref, limit=5)
    hint = f" Closest matches: {', '.join(h['id'] for h in hits)}." if hits else ""
    raise NotFound(f"no symbol {ref!r} in the index; send an id like 'path/to/file.py::Class.method'.{hint}")


def _by_module_qualname(conn: sqlite3.Connection, ref: str) -> list[sqlite3.Row]:
    parts = ref.split(".")
    # Longest module first, but never deeper than a package tree goes: a name of 100k dots would
    # otherwise cost 100k joins of the whole name and as many queries (minutes).
    for cut in range(min(len(parts) - 1, MAX_MODULE_PARTS), 0, -1):
        module, qualname = ".".join(parts[:cut]), ".".join(parts[cut:])
        rows = conn.execute("SELECT s.* FROM symbols s JOIN files f ON f.path = s.path"
                            " WHERE f.module = ? AND s.qualname = ?", (module, qualname)).fetchall()
        if rows:
            return rows
    return []


def callers(conn: sqlite3.Connection, symbol: dict[str, Any], limit: int = 50) -> list[dict[str, Any]]:
    """The calls that reach this symbol, each with its basis, resolved ones first (store/callgraph.py)."""
    return callgraph.callers(conn, symbol, limit)


def callees(conn: sqlite3.Connection, symbol: dict[str, Any], limit: int = 50) -> list[dict[str, Any]]:
    """What this symbol calls, resolved to symbols where the code says which (store/callgraph.py)."""
    return callgraph.callees(conn, symbol, limit)


def tests_for_symbol(conn: sqlite3.Connection, symbol: dict[str, Any]) -> list[str]:
    """Tests that run the symbol, as ids `pytest ID` runs, best first (store/testmap.py)."""
    from . import testmap

    return [t.test for t in testmap.tests_for_symbol(conn, symbol)]


# --- files, modules, dependencies ----------------------------------------------------------------

def resolve_path(conn: sqlite3.Connection, ref: str) -> str:
    """A repo-relative path from a path or a module name; NotFound says what to send."""
    ref = ref.strip().removeprefix("./")
    row = conn.execute("SELECT path FROM files WHERE path = ?", (ref,)).fetchone()
    if row is None:
        row = conn.execute("SELECT path FROM files WHERE module = ? ORDER BY length(path) LIMIT 1",
                           (ref,)).fetchone()
    if row is None:
        raise NotFound(f"no indexed file or module {ref!r}; send a repository-relative path such as "
                       "'src/pkg/mod.py' or a module name such as 'pkg.mod'")
    return str(row["path"])


def dependencies(conn: sqlite3.Connection, path: str) -> list[dict[str, Any]]:
    """What one file imports: repo files it resolves to, and external modules by name; a name taken
    from a module that re-exports it also names the file defining it (`via` the module imported)."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for r in conn.execute("SELECT module, names, line, target, origin FROM resolved_imports WHERE path = ?"
                          " ORDER BY ordinal", (path,)):
        names = json.loads(r["names"] or "[]")
        key = ("file", r["target"]) if r["target"] else ("external", r["module"])
        item = out.setdefault(key, {"target": key[1], "kind": key[0], "line": r["line"], "names": []})
        item["names"].extend(n for n in names if n not in item["names"])
        if r["origin"] and r["origin"] != r["target"] and r["origin"] != path:
            item = out.setdefault(("file", r["origin"]), {"target": r["origin"], "kind": "file", "line": r["line"],
                                                          "names": [], "via": r["target"]})
            item["names"].extend(n for n in names if n not in item["names"])
    return list(out.values())


def dependents(conn: sqlite3.Connection, path: str) -> list[str]:
    """The files importing this one, or a name it defines through a module re-exporting it
    (imports are resolved when written: an index lookup)."""
    return [r[0] for r in conn.execute(
        "SELECT path FROM imports WHERE target = ? AND path != ? UNION"
        " SELECT path FROM imports WHERE origin = ? AND path != ? ORDER BY path", (path, path, path, path))]


def transitive(conn: sqlite3.Connection, path: str, *, reverse: bool, depth: int = 10) -> list[dict[str, Any]]:
    """Files reachable by imports (or by reverse imports), with their distance."""
    seen = {path: 0}
    queue = deque([path])
    while queue:
        current = queue.popleft()
        if seen[current] >= depth:
            continue
        nexts = dependents(conn, current) if reverse else [
            d["target"] for d in dependencies(conn, current) if d["kind"] == "file"]
        for nxt in nexts:
            if nxt not in seen:
                seen[nxt] = seen[current] + 1
                queue.append(nxt)
    return [{"path": p, "distance": d} for p, d in sorted(seen.items(), key=lambda kv: (kv[1], kv[0])) if p != path]


def import_edges(conn: sqlite3.Connection) -> list[dict[str, str]]:
    """Every import edge between files of the repository, and from a file to the file defining a
    name it takes through a module re-exporting it."""
    return [{"source": r[0], "target": r[1], "kind": "import"} for r in conn.execute(
        "SELECT path, target FROM resolved_imports WHERE target IS NOT NULL AND target != path UNION"
        " SELECT path, origin FROM resolved_imports WHERE origin IS NOT NULL AND origin != path"
        " ORDER BY 1, 2")]


def tests_for_path(conn: sqlite3.Connection, path: str) -> list[str]:
    """Test files that import this file directly or through other files (up to 3 hops)."""
    found = [d["path"] for d in transitive(conn, path, reverse=True, depth=3) if is_test_path(d["path"])]
    return sorted(set(found) | ({path} if is_test_path(path) else set()))


def tests_reaching(conn: sqlite3.Connection, paths: list[str], depth: int = 3) -> set[str]:
    """tests_for_path of every path at once: one walk from all of them visits each file once, where
    a walk per path visits the files they share again and again (hundreds of walks for a hub)."""
    seen = dict.fromkeys(paths, 0)
    queue = deque(paths)
    while queue:
        current = queue.popleft()
        if seen[current] >= depth:
            continue
        for nxt in dependents(conn, current):
            if nxt not in seen:
                seen[nxt] = seen[current] + 1
                queue.append(nxt)
    return {p for p in seen if is_test_path(p)}


def module_contract(conn: sqlite3.Connection, path: str, *, with_tests: bool = True) -> dict[str, Any]:
    """Name, role, public API with inputs and outputs, side effects, imports, dependents, tests, tags.

    `with_tests=False` leaves `tests` empty, for callers that find tests another way (the import
    graph in memory, store/graph.py): walking reverse imports over SQL is most of a contract's cost.
    """
    f = conn.execute("SELECT * FROM files WHERE path = ?", (path,)).fetchone()
    if f is None or f["status"] != "indexed":
        reason = f" (skipped: {f['reason']})" if f is not None else ""
        raise NotFound(f"no indexed module at {path!r}{reason}; send the path of an indexed source file")
    m = conn.execute("SELECT * FROM modules WHERE path = ?", (path,)).fetchone()
    top = [symbol_dict(r) for r in conn.execute(
        "SELECT * FROM symbols WHERE path = ? AND parent IS NULL ORDER BY start_line", (path,))]
    declared = json.loads(f["declared_api"]) if f["declared_api"] else None
    public = [s for s in top if (s["name"] in declared if declared is not None else s["exported"])]
    api = []
    for s in public:
        entry = {"id": s["id"], "name": s["name"], "kind": s["kind"], "signature": s["signature"],
                 "inputs": s["params"], "output": s["returns"], "summary": first_sentence(s["doc"]),
                 "line": s["start_line"]}
        if s["kind"] in ("class", "struct", "interface", "trait", "impl", "enum"):
            entry["methods"] = [{"name": c["name"], "signature": c["signature"], "inputs": c["params"],
                                 "output": c["returns"], "summary": first_sentence(c["doc"])}
                                for c in map(symbol_dict, conn.execute(
                                    "SELECT * FROM symbols WHERE parent = ? ORDER BY start_line", (s["id"],)))
                                if c["exported"]]
        api.append(entry)
    effects = json.loads(m["effects"]) if m is not None and m["effects"] else []
    return {
        "path": path, "module": f["module"], "language": f["language"],
        "role": m["role"] if m is not None else "", "lines": f["lines"],
        "public_api": api, "declared_all": declared,
        "side_effects": sorted({e["kind"] for e in effects}), "side_effect_evidence": effects,
        "imports": dependencies(conn, path), "dependents": dependents(conn, path),
        "tests": _module_tests(conn, path) if with_tests else [],
        "requirement_tags": [dict(r) for r in conn.execute(
            "SELECT tag, line, symbol_id FROM requirement_tags WHERE path = ? ORDER BY line", (path,))],
    }


def _module_tests(conn: sqlite3.Connection, path: str) -> list[str]:
    """The tests of this module, not of its package, best first (store/testmap.py)."""
    from . import testmap

    return [t.test for t in testmap.tests_for_module(conn, path)]


def impact(conn: sqlite3.Connection, ref: str, *, depth: int | None = None) -> dict[str, Any]:
    """What a change to a symbol or file can break: dependents, their distance, tests to run, risk.

    `depth` bounds both walks; unset, calls are followed 6 deep (callgraph.CALL_DEPTH) and imports 4."""
    try:
        path: str | None = resolve_path(conn, ref)
        symbol = None
    except NotFound:
        symbol = find_symbol(conn, ref)
        path = None
    affected: dict[str, int] = {}
    symbols_hit: list[dict[str, Any]] = []
    if symbol is not None:
        symbols_hit = callgraph.reach(conn, symbol, depth or callgraph.CALL_DEPTH)
        for hit in symbols_hit:
            affected.setdefault(hit["path"], hit["distance"])
            hit["chain"] = callgraph.chain(symbols_hit, hit["id"])
        for importer in callgraph.importers_of_name(conn, symbol):  # used without a call: a callback, a base
            affected.setdefault(importer, 1)
        base = symbol["path"]
    elif path is not None:
        base = path
    else:
        raise ValueError("impact needs a symbol or a path")
    for item in transitive(conn, base, reverse=True, depth=depth or IMPORT_DEPTH):
        if symbol is None:
            affected.setdefault(item["path"], item["distance"])
    from . import testmap

    to_run = testmap.impact_tests(conn, symbol, base)  # tests, tests_basis, tests_note
    tests = to_run["tests"]
    non_test = [p for p in affected if not is_test_path(p) and p != base]
    reaching = [h for h in symbols_hit if h["basis"] in callgraph.FOLLOWED and not is_test_path(h["path"])]
    known = {h["path"] for h in reaching} | set(callgraph.importers_of_name(conn, symbol)) if symbol else set(non_test)
    risk = callgraph.risk_by_reach(len(reaching), len([p for p in non_test if p in known]))
    if not tests:
        risk = {"low": "medium", "medium": "high"}.get(risk, risk)
    why = f"{len(non_test)} dependent non-test files, {len(tests)} tests reach it"
    if symbol is not None:
        why = (f"{len(reaching)} symbols reach it through calls (fan-in, tests left out), "
               f"{len(non_test)} dependent non-test files, {len(tests)} tests reach it")
    return {
        "target": symbol["id"] if symbol else base, "kind": "symbol" if symbol else "file",
        "dependents": [{"path": p, "distance": d} for p, d in sorted(affected.items(), key=lambda kv: (kv[1], kv[0]))
                       if p != base],
        "symbols": symbols_hit, **to_run, "risk": risk,
        "why": why,
    }


# --- history, status ---------------------------------------------------------------------------

def symbol_history(conn: sqlite3.Connection, symbol_id: str) -> list[dict[str, Any]]:
    """Index events and recorded commits of a symbol, following its renames and moves."""
    from .history import symbol_timeline

    return symbol_timeline(conn, symbol_id)


def status(conn: sqlite3.Connection) -> dict[str, Any]:
    counts = {r["status"]: r["n"] for r in conn.execute("SELECT status, COUNT(*) AS n FROM files GROUP BY status")}
    last = conn.execute('SELECT seq, recorded_at, "commit" FROM events ORDER BY seq DESC LIMIT 1').fetchone()
    languages = {r[0]: r[1] for r in conn.execute(
        "SELECT language, COUNT(*) FROM files WHERE status = 'indexed' GROUP BY language ORDER BY 2 DESC")}
    return {
        "log_position": log.head(conn),
        "last_event_at": last["recorded_at"] if last else None,
        "indexed_head": last["commit"] if last else None,
        "files_indexed": counts.get("indexed", 0), "files_skipped": counts.get("skipped", 0),
        "symbols": conn.execute("SELECT COUNT(*) FROM symbols").fetchone()[0],
        "languages": languages,
        "projections": positions(conn),
    }
