"""Learned mistakes and session rules (the vibe-check model), as events in the log.

A mistake is kept to one sentence and filed under one of the standard categories when it fits
one; a mistake that shares most of its words with a known one of its category is not recorded
twice. Session rules live as long as their session is active (see projections/learning.py).
"""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from .events import LessonLearned, SessionRuleAdded, SessionRulesReset
from .memory import epoch_ms, record
from .projections.learning import MAX_SESSION_RULES, SESSION_IDLE_SECONDS, parse_time
from .words import content_words

LEARNING_KINDS = ("mistake", "preference", "success")
DUPLICATE_OVERLAP = 0.6  # share of a new mistake's words already in a known one: the same mistake
TOP_CATEGORIES = 3
# Standard categories and the word stems that put a category given in other words under them.
STANDARD_CATEGORIES: dict[str, tuple[str, ...]] = {
    "Complex Solution Bias": (
        "complex",
        "complicat",
        "over-engineer",
        "overengineer",
        "overbuil",
        "abstraction",
        "too clever",
        "simpl",
    ),
    "Feature Creep": ("feature", "creep", "scope", "extra", "additional", "gold", "unrequested", "unasked"),
    "Premature Implementation": (
        "premature",
        "early",
        "jump",
        "too quick",
        "rush",
        "hast",
        "before reading",
        "without plan",
        "implementation",
    ),
    "Assumption Error": ("assum", "guess", "presum", "misread", "wrong", "incorrect", "hallucinat", "stale"),
    "Communication Gap": ("communicat", "unclear", "clarif", "misalign", "misunderst", "ask", "expectation", "intent"),
}
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")
_CATEGORY_WORD = re.compile(r"[a-z][a-z-]*")


def one_sentence(text: str) -> str:
    """The first sentence, on one line, ending with a full stop."""
    flat = " ".join(text.split())
    first = _SENTENCE_END.split(flat, maxsplit=1)[0].strip()
    return first if not first or first[-1] in ".!?" else first + "."


def normalize_category(category: str) -> str:
    """A standard category when the name (or a word stem of it) says so; otherwise as given."""
    given = " ".join(category.split())
    lowered = given.lower()
    for standard in STANDARD_CATEGORIES:
        if lowered == standard.lower():
            return standard
    words = _CATEGORY_WORD.findall(lowered)
    for standard, stems in STANDARD_CATEGORIES.items():
        # Stems match the start of a word ("ask" is in "asked", not in "task"); phrases match anywhere.
        if any(stem in lowered if " " in stem else any(w.startswith(stem) for w in words) for stem in stems):
            return standard
    return given


def overlap(new: str, known: str) -> float:
    """The share of the new text's meaningful words that the known text also has."""
    new_words = set(content_words(new))
    if not new_words:
        return 0.0
    return len(new_words & set(content_words(known))) / len(new_words)


def _lesson(row: sqlite3.Row) -> dict[str, Any]:
    return {
        "mistake": row["mistake"],
        "solution": row["solution"],
        "type": row["kind"],
        "category": row["category"],
        "sessionId": row["session_id"],
        "timestamp": epoch_ms(row["at"]),
    }


def learn(
    conn: sqlite3.Connection,
    mistake: str,
    category: str,
    solution: str = "",
    kind: str = "mistake",
    session_id: str | None = None,
) -> dict[str, Any]:
    """Record a lesson unless the category already holds the same one; answer as vibe_learn does."""
    sentence, filed = one_sentence(mistake), normalize_category(category)
    fix = one_sentence(solution) if solution.strip() else ""
    known = None
    for row in conn.execute("SELECT * FROM learned_lessons WHERE category = ? ORDER BY seq", (filed,)):
        if overlap(sentence, row["mistake"]) >= DUPLICATE_OVERLAP:
            known = _lesson(row)
            break
    if known is None:
        record(conn, [LessonLearned(filed, sentence, fix, kind, session_id)])
    tally = conn.execute("SELECT COUNT(*) FROM learned_lessons WHERE category = ?", (filed,)).fetchone()[0]
    return {
        "added": known is None,
        "alreadyKnown": known is not None,
        "currentTally": tally,
        "category": filed,
        "mistake": sentence,
        "knownAs": known,
        "topCategories": top_categories(conn),
    }


def top_categories(conn: sqlite3.Connection, limit: int = TOP_CATEGORIES) -> list[dict[str, Any]]:
    out = []
    for r in conn.execute(
        "SELECT category, COUNT(*) AS n, MAX(seq) AS last FROM learned_lessons"
        " GROUP BY category ORDER BY n DESC, last DESC LIMIT ?",
        (limit,),
    ):
        recent = conn.execute("SELECT * FROM learned_lessons WHERE seq = ?", (r["last"],)).fetchone()
        out.append({"category": r["category"], "count": r["n"], "recentExample": _lesson(recent)})
    return out


def lessons(conn: sqlite3.Connection, categories: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """Lessons, newest first; only those of `categories` when given."""
    if categories is None:
        rows = conn.execute("SELECT * FROM learned_lessons ORDER BY seq DESC")
    else:
        marks = ",".join("?" * len(categories))
        rows = conn.execute(
            f"SELECT * FROM learned_lessons WHERE category IN ({marks}) ORDER BY seq DESC", list(categories)
        )
    return [_lesson(r) for r in rows]


# --- session rules ------------------------------------------------------------------------------


def add_rule(conn: sqlite3.Connection, session_id: str, rule: str) -> list[str]:
    record(conn, [SessionRuleAdded(session_id, rule)])
    return session_rules(conn, session_id)


def reset_rules(conn: sqlite3.Connection, session_id: str, rules: Sequence[str]) -> list[str]:
    record(conn, [SessionRulesReset(session_id, list(rules))])
    return session_rules(conn, session_id)


def session_state(conn: sqlite3.Connection, session_id: str, now: float | None = None) -> dict[str, Any]:
    """The session's rules, unless it has been idle past the limit (then it has expired: no rules)."""
    row = conn.execute("SELECT * FROM sessions WHERE session_id = ?", (session_id,)).fetchone()
    if row is None:
        return {"sessionId": session_id, "rules": [], "known": False, "expired": False, "lastActiveAt": None}
    now_dt = datetime.fromtimestamp(now if now is not None else time.time(), UTC)
    expired = (now_dt - parse_time(row["last_active_at"])).total_seconds() > SESSION_IDLE_SECONDS
    rules = (
        []
        if expired
        else [
            r[0]
            for r in conn.execute("SELECT rule FROM session_rules WHERE session_id = ? ORDER BY ordinal", (session_id,))
        ]
    )
    return {
        "sessionId": session_id,
        "rules": rules,
        "known": True,
        "expired": expired,
        "lastActiveAt": epoch_ms(row["last_active_at"]),
    }


def session_rules(conn: sqlite3.Connection, session_id: str, now: float | None = None) -> list[str]:
    return list(session_state(conn, session_id, now)["rules"])


__all__ = [
    "DUPLICATE_OVERLAP",
    "LEARNING_KINDS",
    "MAX_SESSION_RULES",
    "SESSION_IDLE_SECONDS",
    "STANDARD_CATEGORIES",
    "add_rule",
    "learn",
    "lessons",
    "normalize_category",
    "one_sentence",
    "overlap",
    "reset_rules",
    "session_rules",
    "session_state",
    "top_categories",
]
