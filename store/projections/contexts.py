"""Conversation contexts: their messages (with full text), latest summary, and links to contexts and code."""

from __future__ import annotations

import json
import sqlite3

from ..events import ContextLinked, ContextSummarized, MessageAdded
from ..log import StoredEvent
from .base import Projection
from .fulltext import searchable


class ContextsProjection(Projection):
    name = "contexts"
    version = 1
    handles = frozenset({MessageAdded.TYPE, ContextSummarized.TYPE, ContextLinked.TYPE})
    tables = ("memory_contexts", "memory_messages", "memory_summaries", "memory_links", "memory_fts")

    def create(self, conn: sqlite3.Connection) -> None:
        conn.execute("""CREATE TABLE IF NOT EXISTS memory_contexts (
            context_id TEXT PRIMARY KEY, created_at TEXT NOT NULL, last_activity_at TEXT NOT NULL,
            message_count INTEGER NOT NULL DEFAULT 0, summarized_count INTEGER NOT NULL DEFAULT 0)""")
        conn.execute("""CREATE TABLE IF NOT EXISTS memory_messages (
            seq INTEGER PRIMARY KEY, context_id TEXT NOT NULL, ordinal INTEGER NOT NULL, role TEXT NOT NULL,
            content TEXT NOT NULL, importance TEXT NOT NULL, tags TEXT NOT NULL, at TEXT NOT NULL)""")
        conn.execute("CREATE INDEX IF NOT EXISTS memory_messages_context ON memory_messages(context_id, ordinal)")
        conn.execute("""CREATE TABLE IF NOT EXISTS memory_summaries (
            context_id TEXT PRIMARY KEY, version INTEGER NOT NULL, summary TEXT NOT NULL, code_blocks TEXT NOT NULL,
            key_insights TEXT NOT NULL, importance_score REAL NOT NULL, message_count INTEGER NOT NULL,
            tokens_used INTEGER NOT NULL, token_limit INTEGER NOT NULL, trigger TEXT NOT NULL,
            created_at TEXT NOT NULL)""")
        conn.execute("""CREATE TABLE IF NOT EXISTS memory_links (
            source TEXT NOT NULL, target TEXT NOT NULL, target_kind TEXT NOT NULL, relationship_type TEXT NOT NULL,
            weight REAL NOT NULL, created_at TEXT NOT NULL, PRIMARY KEY (source, target, relationship_type))""")
        conn.execute("CREATE INDEX IF NOT EXISTS memory_links_target ON memory_links(target, target_kind)")
        # The context id is searchable too (`auth-refactor` matches "auth"); rowid is the message's seq.
        conn.execute("""CREATE VIRTUAL TABLE IF NOT EXISTS memory_fts USING fts5(
            context_id UNINDEXED, id_words, content, tokenize = 'unicode61')""")

    def apply(self, conn: sqlite3.Connection, event: StoredEvent) -> None:
        p = event.payload
        if event.type == MessageAdded.TYPE:
            self._touch(conn, p["context_id"], event.recorded_at)
            ordinal = conn.execute(
                "UPDATE memory_contexts SET message_count = message_count + 1"
                " WHERE context_id = ? RETURNING message_count",
                (p["context_id"],),
            ).fetchone()[0]
            conn.execute(
                "INSERT INTO memory_messages VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    event.seq,
                    p["context_id"],
                    ordinal,
                    p["role"],
                    p["content"],
                    p["importance"],
                    json.dumps(p.get("tags", [])),
                    event.recorded_at,
                ),
            )
            conn.execute(
                "INSERT INTO memory_fts (rowid, context_id, id_words, content) VALUES (?, ?, ?, ?)",
                (event.seq, p["context_id"], searchable(p["context_id"]), p["content"]),
            )
        elif event.type == ContextSummarized.TYPE:
            self._touch(conn, p["context_id"], event.recorded_at)
            conn.execute(
                "INSERT OR REPLACE INTO memory_summaries VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    p["context_id"],
                    p["version"],
                    p["summary"],
                    json.dumps(p["code_blocks"], sort_keys=True),
                    json.dumps(p["key_insights"]),
                    p["importance_score"],
                    p["message_count"],
                    p["tokens_used"],
                    p["token_limit"],
                    p["trigger"],
                    event.recorded_at,
                ),
            )
            conn.execute(
                "UPDATE memory_contexts SET summarized_count = ? WHERE context_id = ?",
                (p["message_count"], p["context_id"]),
            )
        else:  # context.linked: a context, or code, tied to a context; linking again updates the weight
            self._touch(conn, p["source"], event.recorded_at)
            if p["target_kind"] == "context":
                self._touch(conn, p["target"], event.recorded_at, activity=False)
            conn.execute(
                "INSERT OR REPLACE INTO memory_links VALUES (?, ?, ?, ?, ?, ?)",
                (p["source"], p["target"], p["target_kind"], p["relationship_type"], p["weight"], event.recorded_at),
            )

    @staticmethod
    def _touch(conn: sqlite3.Connection, context_id: str, at: str, *, activity: bool = True) -> None:
        """Create the context on first mention; note its latest activity."""
        conn.execute(
            "INSERT OR IGNORE INTO memory_contexts (context_id, created_at, last_activity_at) VALUES (?, ?, ?)",
            (context_id, at, at),
        )
        if activity:
            conn.execute(
                "UPDATE memory_contexts SET last_activity_at = max(last_activity_at, ?) WHERE context_id = ?",
                (at, context_id),
            )
