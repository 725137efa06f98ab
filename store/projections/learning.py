"""Learned mistakes by category, and each session's rules with the time it was last active.

A session idle for SESSION_IDLE_SECONDS has expired: activity after that starts it afresh, with no
rules. Time comes from the events (never the clock), so replay always gives the same tables; the
read side compares `last_active_at` with the clock to hide sessions that have gone idle since.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime

from ..events import LessonLearned, SessionRuleAdded, SessionRulesReset, ToolCalled
from ..log import StoredEvent
from .base import Projection

SESSION_IDLE_SECONDS = 3600
MAX_SESSION_RULES = 50  # beyond this the oldest rule goes


def parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def idle_seconds(since: str, until: str) -> float:
    return (parse_time(until) - parse_time(since)).total_seconds()


class LearningProjection(Projection):
    name = "learning"
    version = 1
    handles = frozenset({LessonLearned.TYPE, SessionRuleAdded.TYPE, SessionRulesReset.TYPE, ToolCalled.TYPE})
    tables = ("learned_lessons", "sessions", "session_rules")

    def create(self, conn: sqlite3.Connection) -> None:
        conn.execute("""CREATE TABLE IF NOT EXISTS learned_lessons (
            seq INTEGER PRIMARY KEY, category TEXT NOT NULL, mistake TEXT NOT NULL, solution TEXT NOT NULL,
            kind TEXT NOT NULL, session_id TEXT, at TEXT NOT NULL)""")
        conn.execute("CREATE INDEX IF NOT EXISTS learned_lessons_category ON learned_lessons(category, seq)")
        conn.execute("""CREATE TABLE IF NOT EXISTS sessions (
            session_id TEXT PRIMARY KEY, started_at TEXT NOT NULL, last_active_at TEXT NOT NULL)""")
        conn.execute("""CREATE TABLE IF NOT EXISTS session_rules (
            session_id TEXT NOT NULL, ordinal INTEGER NOT NULL, rule TEXT NOT NULL,
            PRIMARY KEY (session_id, ordinal))""")

    def apply(self, conn: sqlite3.Connection, event: StoredEvent) -> None:
        p = event.payload
        if event.type == LessonLearned.TYPE:
            conn.execute(
                "INSERT INTO learned_lessons VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    event.seq,
                    p["category"],
                    p["mistake"],
                    p.get("solution", ""),
                    p.get("kind", "mistake"),
                    p.get("session_id"),
                    event.recorded_at,
                ),
            )
            if p.get("session_id"):
                self._active(conn, p["session_id"], event.recorded_at)
        elif event.type == ToolCalled.TYPE:
            if p.get("session_id"):
                self._active(conn, p["session_id"], p["at"])
        elif event.type == SessionRulesReset.TYPE:
            self._active(conn, p["session_id"], event.recorded_at)
            conn.execute("DELETE FROM session_rules WHERE session_id = ?", (p["session_id"],))
            kept = p["rules"][-MAX_SESSION_RULES:]
            conn.executemany(
                "INSERT INTO session_rules VALUES (?, ?, ?)",
                [(p["session_id"], ordinal, rule) for ordinal, rule in enumerate(kept, 1)],
            )
        else:  # session.rule_added
            self._active(conn, p["session_id"], event.recorded_at)
            last = conn.execute(
                "SELECT COALESCE(MAX(ordinal), 0) FROM session_rules WHERE session_id = ?", (p["session_id"],)
            ).fetchone()[0]
            conn.execute("INSERT INTO session_rules VALUES (?, ?, ?)", (p["session_id"], last + 1, p["rule"]))
            conn.execute(
                """DELETE FROM session_rules WHERE session_id = :s AND ordinal <= (
                                SELECT MAX(ordinal) FROM session_rules WHERE session_id = :s) - :cap""",
                {"s": p["session_id"], "cap": MAX_SESSION_RULES},
            )

    @staticmethod
    def _active(conn: sqlite3.Connection, session_id: str, at: str) -> None:
        """Note activity at `at`; a session idle for longer than the limit expired, so it starts over."""
        row = conn.execute("SELECT last_active_at FROM sessions WHERE session_id = ?", (session_id,)).fetchone()
        if row is None or idle_seconds(row[0], at) > SESSION_IDLE_SECONDS:
            conn.execute("DELETE FROM session_rules WHERE session_id = ?", (session_id,))
            conn.execute("INSERT OR REPLACE INTO sessions VALUES (?, ?, ?)", (session_id, at, at))
        elif at > row[0]:  # calls are appended in batches, so an older call may come after a newer one
            conn.execute("UPDATE sessions SET last_active_at = ? WHERE session_id = ?", (at, session_id))


class ToolCallsProjection(Projection):
    """Every MCP tool call with its duration and outcome, for get_context_metrics."""

    name = "tool_calls"
    version = 1
    handles = frozenset({ToolCalled.TYPE})
    tables = ("tool_calls",)

    def create(self, conn: sqlite3.Connection) -> None:
        conn.execute("""CREATE TABLE IF NOT EXISTS tool_calls (
            seq INTEGER PRIMARY KEY, tool TEXT NOT NULL, at TEXT NOT NULL, duration_ms REAL NOT NULL,
            ok INTEGER NOT NULL, session_id TEXT, context_id TEXT)""")
        conn.execute("CREATE INDEX IF NOT EXISTS tool_calls_at ON tool_calls(at)")

    def apply_batch(self, conn: sqlite3.Connection, events: list[StoredEvent]) -> None:
        conn.executemany(
            "INSERT INTO tool_calls VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    e.seq,
                    e.payload["tool"],
                    e.payload["at"],
                    e.payload["duration_ms"],
                    1 if e.payload["ok"] else 0,
                    e.payload.get("session_id"),
                    e.payload.get("context_id"),
                )
                for e in events
            ],
        )

    def apply(self, conn: sqlite3.Connection, event: StoredEvent) -> None:
        self.apply_batch(conn, [event])
