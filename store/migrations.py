"""Named, ordered schema migrations of the event log; projection tables need none (they replay)."""

from __future__ import annotations

import sqlite3
import time

from .db import transaction

MIGRATIONS: list[tuple[str, str]] = [
    (
        "0001_events",
        """
        CREATE TABLE events (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            stream TEXT NOT NULL,
            stream_version INTEGER NOT NULL,
            type TEXT NOT NULL,
            version INTEGER NOT NULL DEFAULT 1,
            payload TEXT NOT NULL,
            recorded_at TEXT NOT NULL,
            source TEXT NOT NULL,
            "commit" TEXT,
            UNIQUE (stream, stream_version)
        );
        CREATE INDEX events_type ON events(type, seq);
        CREATE TRIGGER events_no_update BEFORE UPDATE ON events
        BEGIN SELECT RAISE(ABORT, 'events are append-only: UPDATE is not allowed'); END;
        CREATE TRIGGER events_no_delete BEFORE DELETE ON events
        BEGIN SELECT RAISE(ABORT, 'events are append-only: DELETE is not allowed'); END;
        """,
    ),
    (
        "0002_projection_checkpoints",
        """
        CREATE TABLE projection_state (
            name TEXT PRIMARY KEY,
            version INTEGER NOT NULL,
            position INTEGER NOT NULL
        );
        """,
    ),
    (
        # A cache in the spirit of git's index: (size, mtime) -> content hash, so an unchanged
        # tree is re-checked without reading every file. Not derived from the log.
        "0003_stat_cache",
        """
        CREATE TABLE stat_cache (
            path TEXT PRIMARY KEY,
            size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            content_hash TEXT NOT NULL
        );
        """,
    ),
    (
        # Embeddings by hash of (model version, text): an unchanged symbol is embedded once across
        # branches and history. And how far the vector store (a projection kept outside SQLite)
        # has caught up, so any process can report it without opening the store. Not log data.
        "0004_embedding_cache",
        """
        CREATE TABLE embedding_cache (
            key TEXT PRIMARY KEY,
            vector BLOB NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE vector_progress (
            name TEXT PRIMARY KEY,
            position INTEGER NOT NULL,
            target INTEGER NOT NULL,
            model TEXT NOT NULL,
            owner TEXT,
            updated_at TEXT NOT NULL
        );
        """,
    ),
    (
        # A cache, not a projection: parse results of git blobs, path-free, so history and
        # symbol diffs parse each blob once per extractor version. Safe to empty at any time.
        "0005_blob_facts",
        """
        CREATE TABLE blob_facts (
            blob TEXT NOT NULL,
            language TEXT NOT NULL,
            extractor TEXT NOT NULL,
            facts TEXT NOT NULL,
            PRIMARY KEY (blob, language, extractor)
        ) WITHOUT ROWID;
        """,
    ),
    (
        # Not log data: which extractor and resolver produced the facts the log holds for the work
        # tree. When it changes (an upgrade), `annals index` extracts every file again, since a file
        # whose content is unchanged would otherwise keep facts of the old code forever.
        "0006_index_settings",
        """
        CREATE TABLE index_settings (
            name TEXT PRIMARY KEY,
            value TEXT NOT NULL
        );
        """,
    ),
    (
        # A cache, not log data: every symbol's callers as one state of the index and one version of the code
        # give them (store/keptcallers.py, now store/kept.py), read only while both hold. Safe to empty at any time.
        "0007_kept_callers",
        """
        CREATE TABLE kept_callers (
            symbol TEXT PRIMARY KEY,
            callers BLOB NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE kept_callers_state (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            files_count INTEGER NOT NULL,
            files_seq INTEGER NOT NULL,
            code TEXT NOT NULL
        );
        """,
    ),
    (
        # Kept answers of more kinds than callers (store/kept.py): the same cache, each kind with its own state. The
        # callers kept before are dropped rather than moved: the code that kept them is not this code.
        "0008_kept_answers",
        """
        DROP TABLE kept_callers;
        DROP TABLE kept_callers_state;
        CREATE TABLE kept_answers (
            kind TEXT NOT NULL,
            key TEXT NOT NULL,
            answer BLOB NOT NULL,
            PRIMARY KEY (kind, key)
        ) WITHOUT ROWID;
        CREATE TABLE kept_state (
            kind TEXT PRIMARY KEY,
            files_count INTEGER NOT NULL,
            files_seq INTEGER NOT NULL,
            code TEXT NOT NULL
        );
        """,
    ),
    (
        # A cache, not log data: each file content's words by line, as the ranking reads them (store/bodies.py), for
        # the contents indexed and one version of the code. Safe to empty at any time.
        "0009_kept_file_words",
        """
        CREATE TABLE kept_file_words (
            content_hash TEXT PRIMARY KEY,
            code TEXT NOT NULL,
            words BLOB NOT NULL
        ) WITHOUT ROWID;
        """,
    ),
]


def migrate(conn: sqlite3.Connection) -> list[str]:
    """Apply the migrations this database lacks, each in its own transaction; return their names."""
    conn.execute("CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    applied = {row[0] for row in conn.execute("SELECT name FROM migrations")}
    done = []
    for name, sql in MIGRATIONS:
        if name in applied:
            continue
        with transaction(conn):
            if conn.execute("SELECT 1 FROM migrations WHERE name = ?", (name,)).fetchone():
                continue  # another process applied it while we waited for the lock
            for statement in _statements(sql):
                conn.execute(statement)
            conn.execute(
                "INSERT INTO migrations (name, applied_at) VALUES (?, ?)",
                (name, time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())),
            )
        done.append(name)
    return done


def _statements(sql: str) -> list[str]:
    """Split a migration into statements; triggers keep their inner semicolons."""
    out: list[str] = []
    buf = ""
    for piece in sql.split(";"):
        buf += piece + ";"
        if sqlite3.complete_statement(buf):
            if buf.strip(" \n;"):
                out.append(buf.strip())
            buf = ""
    return out
