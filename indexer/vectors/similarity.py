"""Similarity: hybrid search (BM25 and vector ranks fused), similar symbols, near-duplicate code.

Vectors answer only in the process that may open the store (see `vectors`); everywhere else, and
whenever the store is not built yet, full text answers and the answer says so in its `note`.
Near-duplicates need no model: they compare token shingles of the symbols' source.
"""

from __future__ import annotations

import re
import sqlite3
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ...store import queries
from ...store.db import select_in
from ...store.projections.fulltext import identifier_words
from ...store.queries import symbol_dict
from ...store.snippets import indexed_lines, symbol_source
from ...store.symbol import SymbolHit, SymbolRow
from ...store.words import content_words
from .owner import VectorAccess
from .progress import VectorsUnavailable

MODES = ("hybrid", "fts", "vector")
RRF_K = 60  # reciprocal rank fusion's constant (Cormack et al. 2009): flattens the head of each list
CANDIDATES = 50  # per ranking, before fusion
EXPORTED_PRIOR = 0.1  # near the head of the vector list, an exported symbol moves ahead of ~7 helpers
SHINGLE_TOKENS = 4
DUPLICATE_THRESHOLD = 0.5  # Jaccard similarity of token shingles
MIN_DUPLICATE_LINES = 3  # shorter bodies are alike by accident
MAX_DUPLICATE_CANDIDATES = 20_000
_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d+)?|[^\sA-Za-z0-9_]")
# Whole-line comments in the common syntaxes, and trailing `#` comments (a trailing `//` could be
# Python's floor division, so only whole-line ones count).
_COMMENT = re.compile(r"(?m)^\s*(#|//|--|;).*$|(?<=\s)#.*$")


# --- search -------------------------------------------------------------------------------------


def embed_query(text: str) -> Any:
    """The query's vector; a model that cannot load makes vectors unavailable, not the answer."""
    from .embed import ModelUnavailable, load_embedder

    try:
        return load_embedder().embed([text])[0]
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
        nearest = store.nearest_symbols(embed_query(query), CANDIDATES if mode == "hybrid" else limit, kind=kind)
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
            "results": _rows(conn, [(sid, score, ["vector"]) for sid, score in nearest])[:limit],
        }
    lexical, semantic = full_text_ranking(conn, query, kind=kind), [sid for sid, _ in nearest]
    rankings: list[tuple[Sequence[str], str | None, float]] = [(lexical, "fts", 1.0), (semantic, "vector", 1.0)]
    if not lexical:
        # No symbol holds the query's words: it describes behaviour in words of its own. Among
        # symbols about as near in meaning, the exported ones (the API other modules call) answer
        # such a question more often than the helpers behind them: a light prior, worth about
        # seven ranks near the head. Measured on bench/search_quality.py, hybrid recall@10 / MRR
        # on paraphrases .722/.442 -> .778/.510 and on questions .900/.495 -> .933/.511; docstring
        # queries, which full text answers, are untouched.
        rankings.append((_exported(conn, semantic), None, EXPORTED_PRIOR))
    fused = fuse(rankings)
    return {"mode": "hybrid", "requested": mode, "note": note, "results": _rows(conn, fused)[:limit]}


def _exported(conn: sqlite3.Connection, ids: list[str]) -> list[str]:
    """The exported ones among `ids`, in their order."""
    exported = {r[0] for r in select_in(conn, "SELECT id FROM symbols WHERE exported AND id IN ({marks})", ids)}
    return [sid for sid in ids if sid in exported]


def full_text_ranking(conn: sqlite3.Connection, query: str, *, kind: str | None) -> list[str]:
    """BM25 ids for fusion: symbols with every word of the query, then those with every word that
    carries meaning. A question ("where do we validate redirect targets?") rarely has all its words
    in one symbol; measured on bench/search_quality.py, the relaxed half lifts hybrid on questions
    and paraphrases without costing the docstring queries."""
    # Strict full text (as_task=False): the fusion and its prior were measured on it.
    ids = [r["id"] for r in queries.search(conn, query, kind=kind, limit=CANDIDATES, as_task=False)]
    meaningful = content_words(query)
    if len(ids) < CANDIDATES and meaningful and meaningful != list(dict.fromkeys(identifier_words(query))):
        seen = set(ids)
        ids += [
            r["id"]
            for r in queries.search(conn, " ".join(meaningful), kind=kind, limit=CANDIDATES, as_task=False)
            if r["id"] not in seen
        ][: CANDIDATES - len(ids)]
    return ids


def fuse(rankings: Sequence[tuple[Sequence[str], str | None, float]]) -> list[tuple[str, float, list[str]]]:
    """Reciprocal rank fusion of (ids, source name, weight) rankings: each id scores the sum of
    weight/(RRF_K + rank) over the lists it is in. `via` names the sources that found it; a
    ranking named None (a prior) moves ids without having found them."""
    scores: dict[str, float] = {}
    via: dict[str, list[str]] = {}
    for ranking, name, weight in rankings:
        for rank, sid in enumerate(ranking, start=1):
            scores[sid] = scores.get(sid, 0.0) + weight / (RRF_K + rank)
            if name is not None:
                via.setdefault(sid, []).append(name)
    ordered = sorted(scores, key=lambda sid: -scores[sid])
    return [(sid, round(scores[sid], 6), via.get(sid, [])) for sid in ordered]


def _rows(conn: sqlite3.Connection, scored: Sequence[tuple[str, float, list[str]]]) -> list[SymbolHit]:
    """Symbols for scored ids, in order; ids the symbols table no longer holds are dropped."""
    ids = [sid for sid, _, _ in scored]
    rows = {r["id"]: r for r in select_in(conn, "SELECT * FROM symbols WHERE id IN ({marks})", ids)}
    return [{**symbol_dict(rows[sid]), "score": score, "via": via} for sid, score, via in scored if sid in rows]


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
            semantic = _rows(conn, hits[:limit])
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


def shingles(text: str) -> set[int]:
    """Hashed runs of SHINGLE_TOKENS tokens, comments and layout ignored."""
    tokens = _TOKEN.findall(_COMMENT.sub("", text))
    if len(tokens) < SHINGLE_TOKENS:
        return {zlib.crc32(" ".join(tokens).encode())} if tokens else set()
    return {
        zlib.crc32("\x1f".join(tokens[i : i + SHINGLE_TOKENS]).encode())
        for i in range(len(tokens) - SHINGLE_TOKENS + 1)
    }


def near_duplicates(
    conn: sqlite3.Connection,
    root: Path,
    source: str,
    *,
    exclude: SymbolRow | None = None,
    limit: int = 10,
    threshold: float = DUPLICATE_THRESHOLD,
) -> list[dict[str, Any]]:
    """Symbols whose source shares most token shingles with `source` (Jaccard >= threshold)."""
    lines = source.count("\n") + 1
    wanted = shingles(source)
    if lines < MIN_DUPLICATE_LINES or not wanted:
        return []
    rows = conn.execute(
        "SELECT * FROM symbols WHERE end_line - start_line + 1 BETWEEN ? AND ? ORDER BY path, start_line LIMIT ?",
        (max(MIN_DUPLICATE_LINES, lines // 2), lines * 2, MAX_DUPLICATE_CANDIDATES),
    ).fetchall()
    if exclude is not None:
        rows = [r for r in rows if not _nested(r, exclude)]
    file_lines = indexed_lines(root, conn, {r["path"] for r in rows})
    found: list[dict[str, Any]] = []
    for row in rows:
        body = file_lines.get(row["path"])
        if body is None:
            continue
        theirs = shingles("\n".join(body[row["start_line"] - 1 : row["end_line"]]))
        if not theirs:
            continue
        similarity = len(wanted & theirs) / len(wanted | theirs)
        if similarity >= threshold:
            found.append({**symbol_dict(row), "similarity": round(similarity, 4)})
    found.sort(key=lambda s: (-s["similarity"], s["id"]))
    return found[:limit]


def _nested(row: sqlite3.Row, target: SymbolRow) -> bool:
    """The target itself, or a symbol containing it or contained in it (a class and its method)."""
    if row["path"] != target["path"]:
        return False
    a, b = (row["start_line"], row["end_line"]), (target["start_line"], target["end_line"])
    return (a[0] <= b[0] and b[1] <= a[1]) or (b[0] <= a[0] and a[1] <= b[1])


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
