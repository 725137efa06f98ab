"""The read side: pure functions over the projections. Every answer an agent gets starts here."""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import callreach, log
from .callgraph import FOLLOWED
from .cprototypes import C_SOURCES, declaring_headers
from .effects import EVIDENCE_PER_KIND, module_effects

# The read side's primitives (store/lookups.py) and the import graph's walks (store/graph.py),
# re-exported: queries stays the one read API.
from .graph import dependents_of
from .graph import tests_for_path as tests_for_path
from .graph import tests_reaching as tests_reaching
from .graph import transitive as transitive
from .lookups import NotFound as NotFound
from .lookups import callees as callees
from .lookups import callers as callers
from .lookups import dependencies as dependencies
from .lookups import dependents as dependents
from .lookups import file_with_most_symbols as file_with_most_symbols
from .lookups import has_symbol_kind as has_symbol_kind
from .lookups import holds_file as holds_file
from .lookups import holds_file_or_folder as holds_file_or_folder
from .lookups import import_edges as import_edges
from .lookups import indexed_anything as indexed_anything
from .lookups import is_test_path as is_test_path
from .lookups import like_prefix, match_symbol
from .lookups import resolve_path as resolve_path
from .lookups import skipped_files as skipped_files
from .lookups import symbol_dict as symbol_dict
from .lookups import symbol_kinds as symbol_kinds
from .projections import positions
from .projections.contracts import first_sentence
from .projections.fulltext import fts_query
from .suite import runner_known
from .symbol import SymbolHit, SymbolRow

if TYPE_CHECKING:
    from .ranking import Nearest

IMPORT_DEPTH = 4  # impact's walk of reverse imports (the files it affects, not its tests), unless asked otherwise


# --- symbols -------------------------------------------------------------------------------------


def list_symbols(
    conn: sqlite3.Connection, *, path: str | None = None, kind: str | None = None, limit: int | None = None
) -> list[SymbolRow]:
    sql = "SELECT * FROM symbols WHERE 1=1"
    args: list[Any] = []
    if path:
        sql += " AND (path = ? OR path LIKE ? ESCAPE '\\')"
        args += [path, like_prefix(path.rstrip("/") + "/")]
    if kind:
        sql += " AND kind = ?"
        args.append(kind)
    sql += " ORDER BY path, start_line, id"
    if limit:
        sql += " LIMIT ?"
        args.append(limit)
    return [symbol_dict(r) for r in conn.execute(sql, args)]


def search(
    conn: sqlite3.Connection,
    query: str,
    *,
    kind: str | None = None,
    limit: int = 20,
    as_task: bool = True,
    nearest: Nearest | None = None,
) -> list[SymbolHit]:
    """BM25 over names, qualified names, signatures, docstrings and paths; names weigh most. A query of
    a task's size that too few symbols hold whole is topped up by the ranking core (store/ranking.py)
    unless `as_task` is False, with what the vectors find nearest it (`nearest`) when given."""
    expression = fts_query(query)
    if not expression:
        return []
    sql = (
        "SELECT s.*, bm25(symbols_fts, 0, 10.0, 6.0, 2.0, 1.0, 1.5) AS score FROM symbols_fts"
        " JOIN symbols s ON s.id = symbols_fts.id WHERE symbols_fts MATCH ?"
    )
    args: list[Any] = [expression]
    if kind:
        sql += " AND s.kind = ?"
        args.append(kind)
    sql += " ORDER BY score, length(s.qualname) LIMIT ?"
    args.append(limit)
    out: list[SymbolHit] = [{**symbol_dict(row), "score": round(-row["score"], 4)} for row in conn.execute(sql, args)]
    if as_task and len(out) < limit:
        # A sentence ("the multipart parser drops the last part") rarely has every word in one symbol:
        # it is ranked as a task, by the ranking core the context pack uses.
        from .ranking import NOTHING_NEAR
        from .tasksearch import is_task_sized, task_hits

        if is_task_sized(query):
            seen = {r["id"] for r in out}
            hits = task_hits(conn, query, kind=kind, limit=limit, nearest=nearest or NOTHING_NEAR)
            out += [h for h in hits if h["id"] not in seen][: limit - len(out)]
    return out


def find_symbol(conn: sqlite3.Connection, ref: str) -> SymbolRow:
    """A symbol by id (`path::qualname`), qualified name, or `path:qualname`; ambiguity is an error,
    and so is no symbol, with the closest matches of a search."""
    found = match_symbol(conn, ref)
    if found is not None:
        return found
    hits = search(conn, ref, limit=5)
    hint = f" Closest matches: {', '.join(h['id'] for h in hits)}." if hits else ""
    raise NotFound(f"no symbol {ref!r} in the index; send an id like 'path/to/file.py::Class.method'.{hint}")


# --- files, modules, dependencies ----------------------------------------------------------------


def module_contract(
    conn: sqlite3.Connection, path: str, *, with_tests: bool = True, effects_per_kind: int | None = EVIDENCE_PER_KIND
) -> dict[str, Any]:
    """Name, role, public API with inputs and outputs, side effects, imports, dependents, tests, tags.

    `with_tests=False` leaves `tests` empty, for callers that find tests another way (the import
    graph in memory, store/graph.py): walking reverse imports over SQL is most of a contract's cost.
    """
    f = conn.execute("SELECT * FROM files WHERE path = ?", (path,)).fetchone()
    if f is None or f["status"] != "indexed":
        reason = f" (skipped: {f['reason']})" if f is not None else ""
        raise NotFound(f"no indexed module at {path!r}{reason}; send the path of an indexed source file")
    m = conn.execute("SELECT * FROM modules WHERE path = ?", (path,)).fetchone()
    rows = [symbol_dict(r) for r in conn.execute("SELECT * FROM symbols WHERE path = ? ORDER BY start_line", (path,))]
    children: dict[str, list[SymbolRow]] = defaultdict(list)  # by line, as `rows`
    for s in rows:
        if s["parent"] is not None:
            children[s["parent"]].append(s)
    top, namespaces = _outermost(rows, children)
    declared = json.loads(f["declared_api"]) if f["declared_api"] else None
    public = [s for s in top if (s["name"] in declared if declared is not None else s["exported"])]
    if path.endswith(C_SOURCES):  # a type or macro a C or C++ source defines is its own: no other file sees it
        public = [s for s in public if s["kind"] in ("function", "method")]  # (tmux's window-copy.c: four enums)
    # A Rust impl is as visible as its type: ripgrep's standard.rs led with `impl Default for Config`, not `pub`.
    private_types = {s["name"] for s in top if s["kind"] in ("struct", "enum", "union", "type") and not s["exported"]}
    public = [s for s in public if not (s["kind"] == "impl" and s["name"] in private_types)]
    api = []
    for s in public:
        entry: dict[str, Any] = {
            "id": s["id"],
            "name": s["name"],
            "kind": s["kind"],
            "signature": s["signature"],
            "inputs": s["params"],
            "output": s["returns"],
            "summary": first_sentence(s["doc"]),
            "line": s["start_line"],
        }
        if s["kind"] in ("class", "struct", "interface", "trait", "impl", "enum", "module"):
            entry["methods"] = [
                {
                    "name": c["name"],
                    "signature": c["signature"],
                    "inputs": c["params"],
                    "output": c["returns"],
                    "summary": first_sentence(c["doc"]),
                }
                for c in children.get(s["id"], [])
                if c["exported"]
            ]
        api.append(entry)
    effects = module_effects(conn, path, effects_per_kind)
    return {
        "path": path,
        "module": f["module"],
        "language": f["language"],
        "role": (m["role"] if m is not None else "") or _sole_definition_summary(api) or _namespace_summary(namespaces),
        "lines": f["lines"],
        "public_api": api,
        "declared_all": declared,
        "side_effects": effects["kinds"],
        "side_effect_evidence": effects["evidence"],
        "side_effects_omitted": effects["omitted"],
        "imports": dependencies(conn, path),
        "dependents": dependents(conn, path),
        "tests": _module_tests(conn, path) if with_tests else [],
        "requirement_tags": [
            dict(r)
            for r in conn.execute(
                "SELECT tag, line, symbol_id FROM requirement_tags WHERE path = ? ORDER BY line", (path,)
            )
        ],
    }


def _sole_definition_summary(api: list[dict[str, Any]]) -> str:
    """Where a module states no role of its own, its one public class's (or function's) summary is it: a Java or
    TypeScript file of one class documents the class, not the file (typeorm's QueryRunner.ts, "Runs queries on a single
    database connection.", whose entry in a pack said nothing past its path)."""
    definitions = [a for a in api if a["kind"] != "const"]
    return str(definitions[0]["summary"] or "") if len(definitions) == 1 else ""


_NAMESPACE_MEMBERS = frozenset({"class", "module", "struct", "enum", "trait", "interface"})  # a module of types


def _namespace_summary(namespaces: list[SymbolRow]) -> str:
    """Where neither the module nor its one definition states a role, the one documented module it opens states it:
    rack's utils.rb, `module Rack` / `# Rack::Utils contains a grab-bag of useful methods...` / `module Utils` of
    classes and methods, whose API is what Utils holds. Not a C++ namespace's: a comment above one is as often the
    file's licence or a section's title."""
    documented = [n for n in namespaces if n["kind"] == "module" and n["doc"]]
    return first_sentence(documented[0]["doc"]) if len(documented) == 1 else ""


def _outermost(rows: list[SymbolRow], children: dict[str, list[SymbolRow]]) -> tuple[list[SymbolRow], list[SymbolRow]]:
    """The file's outermost definitions, a namespace's in the namespace's place: `namespace leveldb { class DB ... }`
    has the API DB, where the contract said only "namespace leveldb". A module holding classes or modules (Ruby's
    `module Rack; class Request`, a Rust `pub mod` of types) is a namespace too: each of rack's files said only
    "module Rack"; a module of methods alone (a mixin, `module Utils; def self.escape`) is an entry with its methods.
    Returned with the namespaces it looked inside, outermost first."""
    open_scopes: dict[str, SymbolRow] = {}  # namespaces at the outermost level, or inside only such namespaces
    out = []
    for s in rows:  # by line: a namespace comes before its members
        if s["parent"] is not None and s["parent"] not in open_scopes:
            continue
        if s["kind"] == "namespace" or (
            s["kind"] == "module"
            and s["exported"]
            and any(c["kind"] in _NAMESPACE_MEMBERS for c in children.get(s["id"], []))
        ):
            open_scopes[s["id"]] = s
        else:
            out.append(s)
    return out, list(open_scopes.values())


def _module_tests(conn: sqlite3.Connection, path: str) -> list[str]:
    """The tests of this module, not of its package, best first (store/testmap.py)."""
    from . import testmap

    return [t.test for t in testmap.tests_for_module(conn, path)]


def impact_target(conn: sqlite3.Connection, ref: str) -> tuple[str, SymbolRow | None]:
    """What `impact` is asked about: a file (path or module name), or else a symbol and its file;
    NotFound says what to send."""
    try:
        return resolve_path(conn, ref), None
    except NotFound as not_a_file:
        try:
            symbol = find_symbol(conn, ref)
        except NotFound:
            if holds_file(conn, ref.strip().removeprefix("./")):
                raise not_a_file from None  # a skipped file: its reason says more than "no symbol"
            raise
        return symbol["path"], symbol


def impact(conn: sqlite3.Connection, ref: str, *, depth: int | None = None, root: Path | None = None) -> dict[str, Any]:
    """What a change to a symbol or file can break: dependents, their distance, tests to run, risk.

    `depth` bounds both walks; unset, calls are followed 6 deep (callreach.CALL_DEPTH) and imports 4. `root`: where
    the test files are read, for the code nothing calls by name (store/testmap.py)."""
    base, symbol = impact_target(conn, ref)
    affected: dict[str, int] = {}
    symbols_hit: list[dict[str, Any]] = []
    if symbol is not None:
        symbols_hit = callreach.reach(conn, symbol, depth or callreach.CALL_DEPTH)
        by_id = {hit["id"]: hit for hit in symbols_hit}
        for hit in symbols_hit:
            affected.setdefault(hit["path"], hit["distance"])
            hit["chain"] = callreach.chain(by_id, hit["id"])
        for importer in callreach.importers_of_name(conn, symbol):  # used without a call: a callback, a base
            affected.setdefault(importer, 1)
    headers = declaring_headers(conn, base) if symbol is None else []
    if symbol is None:  # its importers, or a C source's through the headers declaring what it defines
        affected = dependents_of(conn, base, depth or IMPORT_DEPTH)
    from . import testmap

    to_run = testmap.impact_tests(conn, symbol, base, root)  # tests, tests_basis, tests_note
    tests, by_call = to_run["tests"], to_run.pop("by_call")
    non_test = [p for p in affected if not is_test_path(p) and p != base]
    reaching = [h for h in symbols_hit if h["basis"] in FOLLOWED and not is_test_path(h["path"])]
    known = {h["path"] for h in reaching} | set(callreach.importers_of_name(conn, symbol)) if symbol else set(non_test)
    risk = callreach.risk_by_reach(len(reaching), len([p for p in non_test if p in known]))
    # A symbol whose tests only import its module (none found to call it) is as untested as one without: Cargo's
    # integration tests import the whole crate, and listed hyper's tests/client.rs for every function of it.
    only_importing = symbol is not None and bool(tests) and not by_call
    if not tests or only_importing:
        risk = {"low": "medium", "medium": "high"}.get(risk, risk)
    reach_tests = f"{len(tests)} tests reach it"
    if not tests and not runner_known(base, conn):
        reach_tests = "tests unknown"
    elif only_importing:
        files = "1 test file imports" if len(tests) == 1 else f"{len(tests)} test files import"
        reach_tests = f"no test reaches it through calls ({files} its module)"
    why = f"{len(non_test)} dependent non-test files, {reach_tests}"
    if headers:
        through = f"through {', '.join(headers)}, declaring what it defines"
        why = f"{len(non_test)} dependent non-test files ({through}), {reach_tests}"
    if symbol is not None:
        why = (
            f"{len(reaching)} symbols reach it through calls (fan-in, tests left out), "
            f"{len(non_test)} dependent non-test files, {reach_tests}"
        )
    return {
        "target": symbol["id"] if symbol else base,
        "kind": "symbol" if symbol else "file",
        "dependents": [
            {"path": p, "distance": d} for p, d in sorted(affected.items(), key=lambda kv: (kv[1], kv[0])) if p != base
        ],
        "symbols": symbols_hit,
        **to_run,
        "risk": risk,
        "why": why,
    }


# --- history, status ---------------------------------------------------------------------------


def symbol_history(conn: sqlite3.Connection, symbol_id: str) -> list[dict[str, Any]]:
    """Index events and recorded commits of a symbol, following its renames and moves."""
    from .history import symbol_timeline

    return symbol_timeline(conn, symbol_id)


def status(conn: sqlite3.Connection) -> dict[str, Any]:
    counts = {r["status"]: r["n"] for r in conn.execute("SELECT status, COUNT(*) AS n FROM files GROUP BY status")}
    last = log.position(conn)
    languages = {
        r[0]: r[1]
        for r in conn.execute(
            "SELECT language, COUNT(*) FROM files WHERE status = 'indexed' GROUP BY language ORDER BY 2 DESC"
        )
    }
    return {
        "log_position": last.seq,
        "last_event_at": last.recorded_at,
        "indexed_head": last.commit,
        "files_indexed": counts.get("indexed", 0),
        "files_skipped": counts.get("skipped", 0),
        "symbols": conn.execute("SELECT COUNT(*) FROM symbols").fetchone()[0],
        "languages": languages,
        "projections": positions(conn),
    }
