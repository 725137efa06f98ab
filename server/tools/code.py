"""Code knowledge: symbols, module contracts, dependencies, impact, history, index status, context packs."""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent
from pydantic import Field

from ...store import memory, queries, testmap
from ...store.effects import symbol_effects
from ...store.events import CommitRecorded
from ...store.graph import import_graph
from ...store.snippets import indexed_lines
from ...store.symbol import SymbolHit as FoundSymbol  # SymbolHit here is the answer's model
from ..app import App, last_commit
from ..contextpack import DEFAULT_BUDGET, MAX_BUDGET, MIN_BUDGET, build_pack, pack_steps
from ._answer import (
    READ_ONLY,
    Answer,
    SymbolSummary,
    complete_first,
    freshness,
    invalid,
    repo_path,
    symbol_ref,
)
from .similarity import search_symbols as search_with_mode
from .similarity import task_neighbours

MAX_SOURCE_LINES = 400  # get_symbol returns at most this much of a body; the span says the rest
MAX_CALLERS = 50
TEST_CALLERS = 500  # call sites read for a symbol (the answer shows MAX_CALLERS of them)
SYMBOL_TESTS = 25  # the best tests get_symbol shows; impact_analysis lists every one
MODULE_TESTS = 25  # the best tests a contract shows; the walk stops once it has them


class SymbolHit(SymbolSummary):
    name: str
    score: float | None = None
    why: list[str] | None = Field(default=None, description="Why a task-sized query found it (the pack's evidence).")


class SearchAnswer(Answer):
    query: str
    method: str = Field(description="How the results were ranked.")
    results: list[SymbolHit]
    note: str | None = Field(
        default=None, description="Why vectors did not answer, how far behind they are, or that nothing is indexed yet."
    )


class SymbolAnswer(Answer):
    # The row as it is (store/symbol.py:SymbolRow): a model of its 18 keys would cost tools/list 1.5 kB.
    symbol: Mapping[str, Any] = Field(description="id, name, qualname, kind, path, lines, signature, doc, params...")
    source: str | None = Field(description="The body as indexed; None when the file changed since indexing.")
    source_truncated: bool = False
    callers: list[dict[str, Any]] = Field(
        description="Call sites, each with its basis: resolved (same file, method, "
        "imported name, constructor, same package), override, named as a value (a function handed "
        "on, not called: `map(worker, xs)`), dispatched by name (`getattr(self, f'visit_{kind}')()` may "
        "run it), unique name, or name only (a guess)."
    )
    callees: list[dict[str, Any]] = Field(
        description="Its calls, each with a target (None where the index cannot say) and the basis; a name built "
        "at run time lists each method it may run, dispatched by name; `self.m()` where the class leaves m to its "
        "subclasses, each subclass's m, override."
    )
    side_effects: list[dict[str, Any]] = Field(
        default_factory=list,
        description=(
            "Each kind of effect (files, network, processes...) with the shortest chain of calls that shows it "
            "('save() -> _write() -> open(...)') and its basis."
        ),
    )
    tests: list[str] = Field(description="The best tests to run, each a pytest node id or a test file.")
    tests_note: str | None = Field(default=None, description="How many more tests, and the call that lists them.")
    contexts: list[dict[str, Any]] = Field(description="Conversation contexts linked to this symbol or its module.")


class ContractAnswer(Answer):
    path: str
    module: str | None
    language: str
    role: str
    lines: int | None
    public_api: list[dict[str, Any]]
    declared_all: list[str] | None
    side_effects: list[str]
    side_effect_evidence: list[dict[str, Any]] = Field(
        description=(
            "Per kind, the calls that show it: direct, or through the calls a function makes, each with its "
            "chain ('save() -> _write() -> open(...)') and basis."
        )
    )
    side_effects_omitted: dict[str, int] = Field(
        default_factory=dict,
        description=("Evidence left out per kind (the best are kept); get_symbol shows any function's own effects."),
    )
    imports: list[dict[str, Any]]
    dependents: list[str]
    tests: list[str] = Field(description="The module's best tests, nearest first: pytest node ids or test files.")
    tests_note: str | None = Field(default=None, description="Tests left out, and the call that lists them.")
    requirement_tags: list[dict[str, Any]]
    last_commit: dict[str, str] | None
    contexts: list[dict[str, Any]]


class DependenciesAnswer(Answer):
    path: str
    direction: Literal["dependencies", "dependents"]
    depth: int
    items: list[dict[str, Any]] = Field(description="Files (with distance) and, for dependencies, external modules.")


class ImpactAnswer(Answer):
    target: str
    kind: Literal["symbol", "file"]
    dependents: list[dict[str, Any]]
    symbols: list[dict[str, Any]]
    tests: list[str] = Field(description="Tests to run, best first: each a pytest node id or a test file.")
    tests_basis: list[dict[str, Any]] = Field(
        default_factory=list,
        description="Why each test is listed, in the same order: distance (1: calls it) and basis.",
    )
    tests_note: str | None = Field(default=None, description="Tests left out, and the call that lists them.")
    risk: Literal["low", "medium", "high"]
    why: str


class HistoryAnswer(Answer):
    symbol: str
    total: int
    events: list[dict[str, Any]] = Field(description="Oldest first: index events and recorded commits.")


class StatusAnswer(Answer):
    files_indexed: int
    files_skipped: int
    symbols: int
    languages: dict[str, int]
    last_event_at: str | None
    projections: dict[str, int]
    database: str
    root: str
    watcher: dict[str, Any] | None = Field(description="The server's watcher, when it runs one.")


class ContextPackAnswer(Answer):
    task: str
    budget_tokens: int
    tokens_used: int
    terms: list[str]
    confidence: dict[str, str] = Field(description="The first module's level (high or low), and why.")
    modules: list[dict[str, Any]] = Field(description="Ranked modules with their contracts, best first.")
    symbols: list[dict[str, Any]] = Field(description="Likely edits: bodies and callers.")
    tests: list[dict[str, Any]] = Field(description="Tests to run, each with why.")
    contexts: list[dict[str, Any]] = Field(description="Conversations linked to these.")
    omitted: list[str] = Field(description="What the budget left out, and how to get it.")
    missing: list[dict[str, Any]] = Field(description="Named files the tree lacks, and their fate.")
    vectors: str | None = Field(description="Why vectors did not rank, or how far behind.")


def _hit(s: FoundSymbol) -> SymbolHit:
    return SymbolHit(**SymbolSummary.fields_of(s), name=s["name"], score=s.get("score"), why=s.get("why"))


def register(server: MCPServer, app: App) -> None:
    @functools.lru_cache(maxsize=4096)
    def commit_of(head: str | None, path: str) -> dict[str, str] | None:
        return last_commit(app.root, path)  # keyed by HEAD: it cannot change while HEAD does not

    def resolve(value: str, field: str = "path") -> str:
        return queries.resolve_path(app.conn(), repo_path(app, value, field))

    def remember(conn: sqlite3.Connection, symbol_id: str) -> None:
        """The next answers about the symbol find what they read ready after a change (server/reader.py)."""
        reader = getattr(server, "reader", None)
        if reader is not None:
            reader.remember_symbol(symbol_id, functools.partial(testmap.walk_steps, conn, symbol_id, app.root))

    @server.tool(annotations=READ_ONLY, title="Search symbols")
    def search_symbols(
        query: Annotated[str, Field(min_length=1, description="Words or identifiers: 'parse url' finds parse_url.")],
        kind: Annotated[str | None, Field(description="Only this kind: function, method, class, struct...")] = None,
        limit: Annotated[int, Field(ge=1, le=200)] = 20,
        mode: Annotated[
            Literal["hybrid", "fts", "vector"] | None,
            Field(
                description="hybrid (the default once vectors exist): BM25 and embedding ranks "
                "fused; fts: BM25 only; vector: embeddings only."
            ),
        ] = None,
    ) -> SearchAnswer:
        """Find symbols by name, qualified name, signature, docstring and path, and by meaning, best first. For
        a whole task (an issue, a bug report), get_context_pack ranks the code to change better."""
        conn = app.conn()
        rows, method, note = search_with_mode(server, app, conn, query, kind=kind, limit=limit, mode=mode)
        if not rows and kind and not queries.has_symbol_kind(conn, kind):
            kinds = queries.symbol_kinds(conn)
            invalid("kind", f"no symbol has kind {kind!r}; send one of {', '.join(kinds)} or leave it out")
        if not rows and not queries.indexed_anything(conn):
            note = f"nothing is indexed yet, so nothing matches: run `annals -C {app.root} index`"
        return SearchAnswer(
            query=query, method=method, results=[_hit(r) for r in rows], note=note, freshness=freshness(app)
        )

    @server.tool(annotations=READ_ONLY, title="Get a symbol")
    def get_symbol(
        symbol: Annotated[
            str,
            Field(
                description="An id ('path/to/mod.py::Class.method'), a qualified name "
                "('Class.method' or 'pkg.mod.Class.method') or a unique name."
            ),
        ],
    ) -> SymbolAnswer:
        """A symbol's signature, docstring, source, callers, callees and the tests that reach it."""
        conn = app.conn()
        ref = symbol_ref(app, symbol)
        found = queries.find_symbol(conn, ref)
        completed = complete_first(app, [found["path"]], found["name"])
        if completed:  # its hashes, calls and tests are known now
            found = queries.find_symbol(conn, ref)
        source, truncated = None, False
        lines = indexed_lines(app.root, conn, {found["path"]}).get(found["path"])
        if lines is not None and found["start_line"]:
            end = found["end_line"] or found["start_line"]
            truncated = end - found["start_line"] + 1 > MAX_SOURCE_LINES
            source = "\n".join(lines[found["start_line"] - 1 : min(end, found["start_line"] + MAX_SOURCE_LINES - 1)])
        graph = import_graph(conn)
        remember(conn, found["id"])
        calls = graph.callers(conn, found, limit=TEST_CALLERS)
        tests = [t.test for t in testmap.tests_for_symbol(conn, found, graph=graph, root=app.root)]  # best first
        more = len(tests) - SYMBOL_TESTS
        note = (
            f"{more} more tests: impact_analysis('{found['id']}') lists them all"
            if more > 0
            else None
            if tests
            else testmap.tests_unknown(conn, found["path"])
        )
        return SymbolAnswer(
            symbol=found,
            source=source,
            source_truncated=truncated,
            callers=calls[:MAX_CALLERS],
            callees=queries.callees(conn, found),
            side_effects=symbol_effects(conn, found["id"]),
            tests=tests[:SYMBOL_TESTS],
            tests_note=note,
            contexts=memory.contexts_about(conn, [("symbol", found["id"]), ("module", found["path"])]),
            freshness=freshness(app, completed),
        )

    @server.tool(annotations=READ_ONLY, title="Get a module's contract")
    def get_module_contract(
        path: Annotated[
            str, Field(description="A repository-relative path ('src/pkg/mod.py') or a module name ('pkg.mod').")
        ],
    ) -> ContractAnswer:
        """A module's role, public API with inputs and outputs, side effects, imports, dependents, tests."""
        conn = app.conn()
        resolved = resolve(path)
        completed = complete_first(app, [resolved])
        contract = queries.module_contract(conn, resolved, with_tests=False)
        found = testmap.module_tests_held(conn, import_graph(conn), contract["path"], MODULE_TESTS)
        contract["tests"] = [t.test for t in found[:MODULE_TESTS]]
        note = (
            f"more tests may reach it: impact_analysis('{contract['path']}') lists them all"
            if len(found) >= MODULE_TESTS
            else None
            if found
            else testmap.tests_unknown(conn, contract["path"])
        )
        head = freshness(app, completed)
        return ContractAnswer(
            **contract,
            tests_note=note,
            last_commit=commit_of(head.head, contract["path"]),
            contexts=memory.contexts_about(conn, [("module", contract["path"])]),
            freshness=head,
        )

    def _graph(path: str, depth: int, reverse: bool) -> DependenciesAnswer:
        conn = app.conn()
        resolved = resolve(path)
        completed = complete_first(app, [resolved])
        if depth == 1:
            items: list[dict[str, Any]] = (
                [{"path": p, "kind": "file", "distance": 1} for p in queries.dependents(conn, resolved)]
                if reverse
                else [{**d, "distance": 1} for d in queries.dependencies(conn, resolved)]
            )
        else:
            items = [{**d, "kind": "file"} for d in queries.transitive(conn, resolved, reverse=reverse, depth=depth)]
            if not reverse:
                items += [
                    {**d, "distance": 1}
                    for d in queries.dependencies(conn, resolved)
                    if d["kind"] in ("external", "unresolved")
                ]
        return DependenciesAnswer(
            path=resolved,
            direction="dependents" if reverse else "dependencies",
            depth=depth,
            items=items,
            freshness=freshness(app, completed),
        )

    @server.tool(annotations=READ_ONLY, title="Get dependencies")
    def get_dependencies(
        path: Annotated[str, Field(description="A repository-relative path or a module name.")],
        depth: Annotated[int, Field(ge=1, le=10, description="1: direct imports; more: transitive.")] = 1,
    ) -> DependenciesAnswer:
        """What a file imports: repository files (to `depth`) and external modules."""
        return _graph(path, depth, reverse=False)

    @server.tool(annotations=READ_ONLY, title="Get dependents")
    def get_dependents(
        path: Annotated[str, Field(description="A repository-relative path or a module name.")],
        depth: Annotated[int, Field(ge=1, le=10, description="1: direct importers; more: transitive.")] = 1,
    ) -> DependenciesAnswer:
        """Which files import this one, directly or (to `depth`) through others."""
        return _graph(path, depth, reverse=True)

    @server.tool(annotations=READ_ONLY, title="Impact analysis")
    def impact_analysis(
        target: Annotated[str, Field(description="A symbol (id or qualified name) or a file (path or module name).")],
        depth: Annotated[
            int | None, Field(ge=1, le=10, description="How far to walk; unset: calls 6, imports 4.")
        ] = None,
    ) -> ImpactAnswer:
        """What a change to a symbol or a file can break: transitive dependents, tests to run, risk."""
        ref = symbol_ref(app, target, "target") if "::" in target else repo_path(app, target, "target") or target
        path, symbol = queries.impact_target(app.conn(), ref)
        completed = complete_first(app, [path], symbol["name"] if symbol else None)
        if symbol is not None:
            remember(app.conn(), symbol["id"])
        return ImpactAnswer(
            **queries.impact(app.conn(), ref, depth=depth, root=app.root), freshness=freshness(app, completed)
        )

    @server.tool(annotations=READ_ONLY, title="Symbol history")
    def symbol_history(
        symbol: Annotated[str, Field(description="A symbol id or qualified name; a removed symbol's id works too.")],
        limit: Annotated[int, Field(ge=1, le=1000, description="At most this many, the newest.")] = 50,
    ) -> HistoryAnswer:
        """The events of a symbol (added, changed: signature or body, removed) and the commits that touched
        it, following renames and moves."""
        conn = app.conn()
        ref = symbol_ref(app, symbol)
        try:
            sid = queries.find_symbol(conn, ref)["id"]
        except queries.NotFound:
            sid = ref  # a removed symbol keeps its history under its id
        entries = queries.symbol_history(conn, sid)
        if not entries:
            raise queries.NotFound(
                f"no events for symbol {symbol!r}; search_symbols finds ids (a removed "
                "symbol is found by its full id 'path::qualname')"
            )
        return HistoryAnswer(
            symbol=sid,
            total=len(entries),
            events=[_history_entry(e) for e in entries[-limit:]],
            freshness=freshness(app),
        )

    @server.tool(annotations=READ_ONLY, title="Index status")
    def index_status() -> StatusAnswer:
        """How much is indexed (files, symbols, languages), how fresh it is, and the watcher's state."""
        status = queries.status(app.conn())
        watcher = getattr(server, "watcher", None)
        return StatusAnswer(
            files_indexed=status["files_indexed"],
            files_skipped=status["files_skipped"],
            symbols=status["symbols"],
            languages=status["languages"],
            last_event_at=status["last_event_at"],
            projections=status["projections"],
            database=str(app.db_path),
            root=str(app.root),
            watcher=watcher.status() if watcher else None,
            freshness=freshness(app),
        )

    @server.tool(annotations=READ_ONLY, title="Context pack for a task")
    def get_context_pack(
        task: Annotated[
            str,
            Field(
                min_length=3,
                description="The task or requirement, in words; name files or identifiers when you know them.",
            ),
        ],
        budget_tokens: Annotated[
            int, Field(ge=MIN_BUDGET, le=MAX_BUDGET, description="The most tokens the pack may take.")
        ] = DEFAULT_BUDGET,
        focus: Annotated[
            list[str] | None, Field(description="Paths or symbol ids known to be involved: they rank first.")
        ] = None,
    ) -> Annotated[CallToolResult, ContextPackAnswer]:
        """The starting context for a task: ranked modules' contracts, the symbol bodies likely to be edited,
        their callers, and the tests to run, fitted to a token budget (markdown; the structured content holds
        the same)."""
        checked = [symbol_ref(app, f, "focus") if "::" in f else repo_path(app, f, "focus") for f in focus or []]
        conn = app.conn()
        nearest, note = task_neighbours(server, app, conn, task)
        focused = [f for f in checked if f]
        pack, markdown = build_pack(app.root, conn, task, budget_tokens, focused, nearest)
        completed = pack.pop("completed_on_demand")
        if completed:
            app.forget_freshness()
        reader = getattr(server, "reader", None)
        if reader is not None:  # answered again after each change, while the agent edits (server/reader.py)
            reader.remember_pack(
                functools.partial(pack_steps, app.root, conn, task, budget_tokens, focused, nearest, source=None)
            )
            if pack["symbols"]:  # the agent likely edits it, then asks about it
                remember(conn, pack["symbols"][0]["id"])
        answer = ContextPackAnswer(**pack, vectors=note, freshness=freshness(app, completed))
        return pack_result(answer.model_dump(mode="json"), markdown)


def pack_result(answer: dict[str, Any], markdown: str) -> CallToolResult:
    """The pack as the agent reads it (markdown and a line on the index's freshness), with the same content as
    structured data. Here rather than in server/contextpack.py, which `annals pack` loads without the MCP SDK."""
    freshness = answer["freshness"]
    note = (
        f"\n\n_Index at log position {freshness['log_position']}; HEAD "
        f"{'matches' if freshness['head_matches'] else 'differs from'} the indexed commit; "
        f"{freshness['pending_files']} files pending re-index._"
    )
    return CallToolResult(content=[TextContent(type="text", text=markdown + note)], structured_content=answer)


def _history_entry(e: dict[str, Any]) -> dict[str, Any]:
    """A history entry without the whole symbol payload: what changed, when, where, in which commit."""
    p = e["payload"]
    symbol = p.get("symbol") or {}
    out = {
        "seq": e["seq"],
        "type": e["type"],
        "at": e["recorded_at"],
        "source": e["source"],
        "commit": e["commit"],
        "changed": p.get("changed", []),
        "path": symbol.get("path") or p.get("path"),
        "qualname": symbol.get("qualname") or p.get("qualname"),
    }
    if e["type"] == CommitRecorded.TYPE:
        out.update(
            title=p.get("title"), author=p.get("author"), status=symbol.get("status"), renamed_from=symbol.get("from")
        )
    elif "signature" in symbol:
        out["signature"] = symbol["signature"]
        out["start_line"] = symbol.get("start_line")
    return out
