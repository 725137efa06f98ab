"""Symbols relevant to a task's words: any of the words may match, BM25 weighs the rare ones most.

`queries.search` asks for every word (the right thing for a search box); a task described in a
sentence needs the opposite: any word, ranked by how many of the rarer ones a symbol has. Words
that half the repository matches say nothing about a task and only cost time, so they are left
out first.
"""

from __future__ import annotations

import sqlite3

from .lookups import symbol_dict
from .symbol import SymbolHit

# The same column weights as queries.search: id, name, qualname, signature, doc, path.
_BM25 = "bm25(symbols_fts, 0, 10.0, 6.0, 2.0, 1.0, 1.5)"
MIN_STEM = 4  # shorter stems match too much ("us" from "uses")
COMMON_CAP = 3_000  # matches counted per word; a word matching this many symbols is too common to rank by
# Words every piece of code is made of: they match everywhere and rank nothing.
CODE_NOISE = frozenset(
    "self cls none true false return def class args kwargs init new object value str int "
    "list dict func function method".split()
)


def document_frequency(conn: sqlite3.Connection, word: str, cap: int = COMMON_CAP) -> int:
    """How many symbols match the word as a prefix, counted up to `cap`."""
    return int(
        conn.execute(
            "SELECT COUNT(*) FROM (SELECT 1 FROM symbols_fts WHERE symbols_fts MATCH ? LIMIT ?)", (f'"{word}"*', cap)
        ).fetchone()[0]
    )


def stem(word: str) -> str:
    """A prefix that also matches the word's other forms: writes -> write, parsing -> pars, loader -> load."""
    for suffix in ("ing", "ies", "es", "ed", "er", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= MIN_STEM:
            return word[: -len(suffix)]
    return word


def discriminating(conn: sqlite3.Connection, words: list[str]) -> tuple[list[str], dict[str, int]]:
    """The words (as stems) worth ranking by, rarest first, and each one's document frequency."""
    stems = dict.fromkeys(stem(w) for w in words if w not in CODE_NOISE)
    frequency = {w: document_frequency(conn, w) for w in stems if w not in CODE_NOISE}
    kept = [w for w in frequency if 0 < frequency[w] < COMMON_CAP]
    if not kept:  # every word is common: rank by the rarest that matches at all
        kept = sorted((w for w in frequency if frequency[w]), key=lambda w: frequency[w])[:1]
    return sorted(kept, key=lambda w: (frequency[w], w)), frequency


def relevant_symbols(conn: sqlite3.Connection, words: list[str], limit: int = 200) -> list[SymbolHit]:
    """Symbols matching any of the words, best first, each with its BM25 relevance as `score`."""
    if not words:
        return []
    expression = " OR ".join(f'"{w}"*' for w in words)
    # Rank in the full-text table alone, then fetch the few symbols kept: joining every match first
    # costs a lookup per match.
    ranked = conn.execute(
        f"SELECT id, {_BM25} AS score FROM symbols_fts WHERE symbols_fts MATCH ? ORDER BY score LIMIT ?",
        (expression, limit),
    ).fetchall()
    if not ranked:
        return []
    ids = [r["id"] for r in ranked]
    rows = {r["id"]: r for r in conn.execute(f"SELECT * FROM symbols WHERE id IN ({','.join('?' * len(ids))})", ids)}
    return [{**symbol_dict(rows[r["id"]]), "score": -r["score"]} for r in ranked if r["id"] in rows]
