"""A task as a search query: `search_symbols` and `annals search` answer a query of a task's size (words apart,
not one identifier) as the context pack ranks it (store/ranking.py), the best files' best symbols first."""

from __future__ import annotations

import sqlite3

from .ranking import NOTHING_NEAR, Candidate, Nearest, rank_task
from .symbol import SymbolHit
from .tasktext import task_terms
from .words import content_words

TASK_QUERY_WORDS = 3  # a query of this many meaningful words is a task: any of its words may match
HITS_PER_FILE = 2  # as the pack's edit candidates: the best files first, not one file's methods


def is_task_sized(query: str) -> bool:
    """Words apart, not one long identifier: `parse_options_header_value` is a name to look up."""
    return len(query.split()) >= TASK_QUERY_WORDS and len(content_words(query)) >= TASK_QUERY_WORDS


def names_code(query: str) -> bool:
    """A query of a task's size that names a path or an identifier: a task about that code."""
    if not is_task_sized(query):
        return False
    paths, names, _ = task_terms(query)
    return bool(paths or names)


def task_hits(
    conn: sqlite3.Connection,
    task: str,
    *,
    kind: str | None = None,
    limit: int = 20,
    nearest: Nearest = NOTHING_NEAR,
) -> list[SymbolHit]:
    """Symbols for a task-sized search, as the pack ranks them: the best files' best symbols first,
    each with `score` and `why`."""
    ranking = rank_task(conn, task, nearest=nearest)
    by_file: dict[str, list[Candidate]] = {}
    for c in ranking.ranked_symbols():
        if kind is None or c.symbol["kind"] == kind:
            by_file.setdefault(c.symbol["path"], []).append(c)
    order = [p for p in ranking.ranked_files() if p in by_file]
    first = [c for p in order for c in by_file[p][:HITS_PER_FILE]]
    chosen = {c.symbol["id"] for c in first}
    rest = [c for c in ranking.ranked_symbols() if c.symbol["id"] not in chosen and c.symbol["path"] in by_file]
    return [{**c.symbol, "score": round(c.score, 4), "why": c.why} for c in [*first, *rest][:limit]]
