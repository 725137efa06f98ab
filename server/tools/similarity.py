"""Similarity: code that does what a symbol or a snippet does, by meaning and by shape.

The server's VectorKeeper (`server.vectors`, started in the lifespan) owns the vector store; when
it cannot answer (another process owns the store, it is being rebuilt, the model is missing),
answers say so in `note` and the shingle half still works, since it needs no model.
"""

from __future__ import annotations

import sqlite3
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from pydantic import Field

from ...indexer.vectors.owner import VectorAccess
from ...indexer.vectors.progress import VectorsUnavailable
from ...indexer.vectors.similarity import nearest_to_task, search, similar_code
from ...indexer.vectors.similarity import similar_contexts as contexts_by_meaning
from ...store import queries
from ...store.ranking import Nearest
from ...store.symbol import SymbolHit
from ..app import App
from ._answer import READ_ONLY, Answer, SymbolSummary, freshness, invalid, symbol_ref

MAX_SNIPPET_CHARS = 20_000


class SimilarHit(SymbolSummary):
    similarity: float = Field(
        description="Cosine similarity of embeddings, or Jaccard similarity of token "
        "shingles for near-duplicates; 1 is identical."
    )


class SimilarCodeAnswer(Answer):
    target: str | None = Field(description="The symbol compared against, when one was sent.")
    semantic: list[SimilarHit] = Field(description="Code that means the same, by embeddings, most similar first.")
    near_duplicates: list[SimilarHit] = Field(description="Copies with small edits, by token shingles (no model).")
    method: str = Field(description="What answered: 'vectors + token shingles', or 'token shingles only'.")
    note: str | None = Field(description="Why vectors did not answer, or how far behind they are.")


def vector_access(server: MCPServer, app: App, conn: sqlite3.Connection) -> VectorAccess:
    """The vectors this server may query, or why not: shared by every tool that uses them."""
    keeper = getattr(server, "vectors", None)
    if keeper is None:
        return VectorAccess(None, "this server does not run the vector store; answered without vectors")
    access: VectorAccess = keeper.access(conn)
    if access.store is None and keeper.last_error:
        access.note = f"{access.note} ({keeper.last_error})"
    return access


def _hit(row: dict[str, Any], similarity: float) -> SimilarHit:
    return SimilarHit(**SymbolSummary.fields_of(row), similarity=similarity)


def register(server: MCPServer, app: App) -> None:
    @server.tool(annotations=READ_ONLY, title="Find similar code")
    def find_similar_code(
        symbol: Annotated[
            str | None,
            Field(description="A symbol id ('path/to/mod.py::Class.method') or qualified name to compare against."),
        ] = None,
        text: Annotated[
            str | None, Field(max_length=MAX_SNIPPET_CHARS, description="Or a code snippet or a description in words.")
        ] = None,
        limit: Annotated[int, Field(ge=1, le=100)] = 10,
    ) -> SimilarCodeAnswer:
        """Code that does what a symbol or snippet does: semantic neighbours from embeddings, plus
        near-duplicates (copy-paste with small edits) from token shingles. Use it before writing a
        helper that may already exist, or to find every copy of a bug."""
        if (symbol is None) == (text is None) or (text is not None and not text.strip()):
            invalid(
                "symbol" if symbol is None and text is None else "text",
                "send exactly one of 'symbol' (an id or qualified name) or 'text' (a snippet)",
            )
        conn = app.conn()
        access = vector_access(server, app, conn)
        found = similar_code(
            conn,
            app.root,
            symbol=symbol_ref(app, symbol) if symbol is not None else None,
            text=text,
            limit=limit,
            access=access,
        )
        return SimilarCodeAnswer(
            target=found["target"],
            semantic=[_hit(r, r["score"]) for r in found["semantic"]],
            near_duplicates=[_hit(r, r["similarity"]) for r in found["near_duplicates"]],
            method="vectors + token shingles" if found["vectors_used"] else "token shingles only",
            note=found["note"],
            freshness=freshness(app),
        )


SEARCH_METHODS = {
    "fts": "fulltext",
    "hybrid": "hybrid (BM25 and embedding ranks, reciprocal rank fusion)",
    "vector": "vector (embeddings)",
}


def search_symbols(
    server: MCPServer, app: App, conn: sqlite3.Connection, query: str, *, kind: str | None, limit: int, mode: str | None
) -> tuple[list[SymbolHit], str, str | None]:
    """The search behind the code family's search_symbols: (rows, method, note). Hybrid by default once
    this server holds vectors; full text otherwise, with a note saying why when vectors were asked for."""
    access = vector_access(server, app, conn) if mode != "fts" else None
    if mode is None and (access is None or access.store is None):
        return queries.search(conn, query, kind=kind, limit=limit), SEARCH_METHODS["fts"], None
    try:
        answer = search(conn, query, mode=mode or "hybrid", kind=kind, limit=limit, access=access)
    except VectorsUnavailable as exc:
        invalid("mode", f"{exc}")
    return answer["results"], SEARCH_METHODS[answer["mode"]], answer["note"]


def task_neighbours(server: MCPServer, app: App, conn: sqlite3.Connection, task: str) -> tuple[Nearest, str | None]:
    """Behind get_context_pack: what the vectors find nearest the task, and the note saying why nothing."""
    return nearest_to_task(vector_access(server, app, conn), task)


def similar_contexts(
    server: MCPServer, app: App, conn: sqlite3.Connection, query: str, limit: int
) -> tuple[list[dict[str, Any]] | None, str]:
    """Behind get_similar_contexts: (contexts by embeddings, method), or (None, why) for full text to answer."""
    access = vector_access(server, app, conn)
    found = contexts_by_meaning(access, query, limit)
    if found is not None:
        return found, "vector (cosine similarity of message embeddings, the best message of each context)"
    return None, f"fulltext (FTS5 BM25 over messages and context ids; {access.note})"
