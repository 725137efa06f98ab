"""Symbols relevant to a task's words: any of the words may match, BM25 weighs the rare ones most.

`queries.search` asks for every word (the right thing for a search box); a task described in a
sentence needs the opposite: any word, ranked by how many of the rarer ones a symbol has. Words
that half the repository matches say nothing about a task and only cost time, so they are left
out first.
"""

from __future__ import annotations

import functools
import sqlite3
from array import array

from .db import held_per_key, select_in
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
    """How many symbols match the word as a prefix, counted up to `cap`; once per word while the symbols stand."""
    return held_per_key(conn, "document frequency", (word, cap), functools.partial(_count_matches, conn, word, cap))


def _count_matches(conn: sqlite3.Connection, word: str, cap: int) -> int:
    query = "SELECT COUNT(*) FROM (SELECT 1 FROM symbols_fts WHERE symbols_fts MATCH ? LIMIT ?)"
    return int(conn.execute(query, (f'"{word}"*', cap)).fetchone()[0])


# Tried and not kept (2026-12-07, in process, the ranking's order, file Acc@1/@5): a noun stemmed to its verb, as tasks
# write them and code names them (`attribute deduplication`: Attributes.deduplicate; -ization, -ation, -ate, -ize ->
# normaliz, validat, ...), with -sion and -tion cut and `-ss` kept (compression, compress): dev .608/.872 -> .604/.872
# (ripgrep and hyper .79/.59 -> .77/.57), and without those two .604/.872 as well; the hold-outs .647/.854 -> .647/.852.
# Nor a word of the code abbreviating the task's (a prefix of it three or more letters shorter, `conn` for
# connection; or its first letter and its digits, `h2` for http2) matching at half its share: dev .608/.872 ->
# .609/.870; the digits alone moved neither hyper nor actix-web. Nor, for a task about docs or comments, a symbol's
# docstring weighing 5 instead of 1 in _BM25: dev .608/.872 -> .609/.871.
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
    # FTS5's bm25 of `"a"* OR "b"*` is, for each row, the sum of what each word gives it alone (its IDF, its hits
    # against the row's length), added in the query's order: each word's share is read once while the symbols
    # stand, and tasks share words. The same scores to the bit and the same order (ties by rowid, as FTS5 returns
    # them), checked on 140 tasks of typeorm and sqlalchemy; typeorm's 100 localize_bench tasks 16.5 -> 10.3 ms.
    scores: dict[int, float] = {}
    for word in words:
        rowids, shares = held_per_key(conn, "word relevance", word, functools.partial(_word_relevance, conn, word))
        for rowid, share in zip(rowids, shares, strict=True):
            scores[rowid] = scores.get(rowid, 0.0) + share
    ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
    if not ranked:
        return []
    ids = dict(select_in(conn, "SELECT rowid, id FROM symbols_fts WHERE rowid IN ({marks})", [r for r, _ in ranked]))
    rows = {r["id"]: r for r in select_in(conn, "SELECT * FROM symbols WHERE id IN ({marks})", ids.values())}
    return [{**symbol_dict(rows[ids[r]]), "score": score} for r, score in ranked if ids.get(r) in rows]


def _word_relevance(conn: sqlite3.Connection, word: str) -> tuple[array[int], array[float]]:
    """The rows matching a word (as a prefix) and what BM25 gives each for it, kept compact: a server holds
    thousands of words' rows."""
    rowids, shares = array("q"), array("d")
    query = f"SELECT rowid, {_BM25} FROM symbols_fts WHERE symbols_fts MATCH ?"
    for rowid, score in conn.execute(query, (f'"{word}"*',)):
        rowids.append(rowid)
        shares.append(-score)  # FTS5 gives -(0.0 + share): negating it back is exact
    return rowids, shares
