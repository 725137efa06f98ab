"""Similarity with the vectors: hybrid search, similar symbols and contexts.

This is the part that embeds a query and asks the vector store; the rest, which needs neither
(fusing rankings, near-duplicates by token shingles), is `store/similar.py`. Vectors answer only
in the process that may open the store (see `owner`); everywhere else, and whenever the store is
not built yet, full text answers and the answer says so in its `note`.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from ...store import queries
from ...store.evidence import SEMANTIC_ASKED
from ...store.ranking import MEANING_ASKED, NOTHING_NEAR, Nearest
from ...store.similar import CANDIDATES, hybrid_ranking, near_duplicates, scored_symbols
from ...store.snippets import symbol_source
from ...store.symbol import SymbolHit
from ...store.tasksearch import names_code
from .owner import VectorAccess
from .progress import VectorsUnavailable

MODES = ("hybrid", "fts", "vector")


# --- search -------------------------------------------------------------------------------------


def embed_query(text: str) -> Any:
    """The query's vector; a model that cannot load makes vectors unavailable, not the answer."""
    from .embed import ModelUnavailable, load_embedder

    try:
        return load_embedder().query(text)
    except ModelUnavailable as exc:
        raise VectorsUnavailable(f"the embedding model cannot run: {exc}") from exc


def search(
    conn: sqlite3.Connection,
    query: str,
    *,
    mode: str = "hybrid",
    kind: str | None = None,
    limit: int = 20,
    access: VectorAccess | None = None,
) -> dict[str, Any]:
    """{"mode": the mode that answered, "results": symbols with "score" and "via", "note"}."""
    if mode not in MODES:
        raise ValueError(f"unknown search mode {mode!r}: use one of {', '.join(MODES)}")
    store = access.store if access else None
    note = access.note if access else None
    if mode == "vector" and store is None:
        raise VectorsUnavailable(f"vector search is unavailable: {note or 'no vector store'}; use --mode fts or hybrid")
    if mode == "fts" or store is None:
        rows = queries.search(conn, query, kind=kind, limit=limit)
        for row in rows:
            row["via"] = ["fts"]
        return {"mode": "fts", "requested": mode, "results": rows, "note": None if mode == "fts" else note}
    try:
        vector = embed_query(query)
        nearest = store.nearest_symbols(vector, CANDIDATES if mode == "hybrid" else limit, kind=kind)
    except VectorsUnavailable as exc:
        if mode == "vector":
            raise
        return search(
            conn,
            query,
            mode=mode,
            kind=kind,
            limit=limit,
            access=VectorAccess(None, f"{exc}; answered from full text", access.progress if access else {}),
        )
    if mode == "vector":
        return {
            "mode": "vector",
            "requested": mode,
            "note": note,
            "results": scored_symbols(conn, [(sid, score, ["vector"]) for sid, score in nearest])[:limit],
        }
    if names_code(query):
        # A task that names code (`MultiDict.to_dict`, a path) is ranked as the pack ranks it, the nearest
        # symbols by meaning among its evidence. Rank fusion put such commit messages below plain BM25
        # (localize_bench --vectors, search file Acc@5: ky .59 against .63, fastify .34 against .37; this
        # way .77 and .45); a task in words alone keeps the fusion, which search_quality's paraphrases
        # need (recall@10 .750 fused, .500 ranked as a task).
        near = {sid for sid, _ in nearest}
        try:
            commits = store.nearest_commits(vector, MEANING_ASKED)
        except VectorsUnavailable:
            commits = []
        rows = queries.search(conn, query, kind=kind, limit=limit, nearest=Nearest(nearest, commits))
        for row in rows:
            row["via"] = ["fts", "vector"] if row["id"] in near else ["fts"]
        return {"mode": "hybrid", "requested": mode, "note": note, "results": rows}
    fused = hybrid_ranking(conn, query, [sid for sid, _ in nearest], kind=kind)
    return {"mode": "hybrid", "requested": mode, "note": note, "results": scored_symbols(conn, fused)[:limit]}


def nearest_to_task(access: VectorAccess, task: str) -> tuple[Nearest, str | None]:
    """The symbols and the recorded commits nearest a task by meaning, for the ranking core, and a note: why
    there are none (the vectors cannot answer here), or how far behind they are."""
    if access.store is None:
        return NOTHING_NEAR, access.note
    try:
        vector = embed_query(task)
        found = Nearest(
            access.store.nearest_symbols(vector, SEMANTIC_ASKED), access.store.nearest_commits(vector, MEANING_ASKED)
        )
    except VectorsUnavailable as exc:
        return NOTHING_NEAR, f"{exc}; answered from full text"
    return found, access.note


# --- similar code -------------------------------------------------------------------------------


def similar_code(
    conn: sqlite3.Connection,
    root: Path,
    *,
    symbol: str | None = None,
    text: str | None = None,
    limit: int = 10,
    access: VectorAccess | None = None,
) -> dict[str, Any]:
    """Code like a symbol (by id or name) or like a snippet of text: semantic neighbours from the
    vectors, and structural near-duplicates from token shingles (no model involved)."""
    if (symbol is None) == (text is None):
        raise ValueError("send exactly one of: a symbol id or name, or a text snippet")
    target = queries.find_symbol(conn, symbol) if symbol is not None else None
    source = symbol_source(root, conn, target) if target is not None else (text or "")
    store = access.store if access else None
    note = access.note if access else "vectors not consulted"
    semantic: list[SymbolHit] = []
    used_vectors = False
    if store is not None:
        try:
            vector = store.symbol_vector(target["id"]) if target is not None else None
            if vector is None:
                vector = embed_query(source if target is None else f"{target['qualname']}\n{source}")
            skip = {target["id"]} if target is not None else set()
            hits = [
                (sid, score, ["vector"]) for sid, score in store.nearest_symbols(vector, limit + 1) if sid not in skip
            ]
            semantic = scored_symbols(conn, hits[:limit])
            used_vectors = True
        except VectorsUnavailable as exc:
            note = str(exc)
    duplicates = near_duplicates(conn, root, source, exclude=target, limit=limit)
    return {
        "target": target["id"] if target is not None else None,
        "semantic": semantic,
        "near_duplicates": duplicates,
        "note": note,
        "vectors_used": used_vectors,
    }


# --- contexts -------------------------------------------------------------------------------------


def similar_contexts(access: VectorAccess, query: str, limit: int = 5) -> list[dict[str, Any]] | None:
    """Contexts whose messages mean most nearly what `query` says; None when vectors cannot answer."""
    if access.store is None:
        return None
    try:
        nearest = access.store.nearest_contexts(embed_query(query), limit)
    except VectorsUnavailable as exc:
        access.note = str(exc)
        return None
    return [{"contextId": cid, "similarity": similarity} for cid, similarity in nearest]
