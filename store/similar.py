"""The read side of similarity, which needs no model and no vector store: fusing the full-text and
vector rankings of hybrid search, near-duplicate code by token shingles, and the symbols the
vectors embed.

The vectors themselves (embedding a query, asking Chroma for neighbours) are the indexer's
(`indexer/vectors/similarity.py`); it hands the ids Chroma found to the functions here.
"""

from __future__ import annotations

import re
import sqlite3
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import lookups, queries
from .db import select_in
from .projections.fulltext import identifier_words
from .snippets import indexed_lines
from .symbol import SymbolHit, SymbolRow, symbol_dict
from .words import content_words

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

Scored = list[tuple[str, float, list[str]]]  # (symbol id, score, the rankings that found it)


# --- hybrid search ------------------------------------------------------------------------------


def hybrid_ranking(conn: sqlite3.Connection, query: str, semantic: list[str], *, kind: str | None) -> Scored:
    """Full text and the vectors' ranking (`semantic`, nearest first) fused into one."""
    lexical = full_text_ranking(conn, query, kind=kind)
    rankings: list[tuple[Sequence[str], str | None, float]] = [(lexical, "fts", 1.0), (semantic, "vector", 1.0)]
    if not lexical:
        # No symbol holds the query's words: it describes behaviour in words of its own. Among
        # symbols about as near in meaning, the exported ones (the API other modules call) answer
        # such a question more often than the helpers behind them: a light prior, worth about
        # seven ranks near the head. Measured on bench/search_quality.py, hybrid recall@10 / MRR
        # on paraphrases .722/.442 -> .778/.510 and on questions .900/.495 -> .933/.511; docstring
        # queries, which full text answers, are untouched.
        rankings.append((exported_among(conn, semantic), None, EXPORTED_PRIOR))
    return fuse(rankings)


def exported_among(conn: sqlite3.Connection, ids: list[str]) -> list[str]:
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


def fuse(rankings: Sequence[tuple[Sequence[str], str | None, float]]) -> Scored:
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


def scored_symbols(conn: sqlite3.Connection, scored: Sequence[tuple[str, float, list[str]]]) -> list[SymbolHit]:
    """Symbols for scored ids, in order, with their "score" and "via"; ids the symbols table no
    longer holds are dropped."""
    rows = lookups.symbol_rows(conn, [sid for sid, _, _ in scored])
    return [{**symbol_dict(rows[sid]), "score": score, "via": via} for sid, score, via in scored if sid in rows]


# --- what the vectors embed ---------------------------------------------------------------------


def symbol_ids_in(conn: sqlite3.Connection, paths: set[str], *, exclude: set[str]) -> list[str]:
    """The ids of the symbols in `paths` but not in `exclude`, by path and line."""
    # Paths go in sorted, a chunk at a time, so the ids come out by path and line overall.
    return [
        r[0]
        for r in select_in(
            conn, "SELECT id FROM symbols WHERE path IN ({marks}) ORDER BY path, start_line", sorted(paths)
        )
        if r[0] not in exclude
    ]


# --- near-duplicate code ------------------------------------------------------------------------


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
