"""Commits: each recorded commit, the symbols it touched (renames with their origin), rewrites."""

from __future__ import annotations

import json
import sqlite3

from ..events import CommitDescribed, CommitRecorded, CommitRewritten
from ..log import StoredEvent
from .base import Projection


class CommitsProjection(Projection):
    name = "commits"
    # 2: indexed by seq. 3: no modules and tests columns: nothing read them, and a commit's affected tests (838
    # files a commit on typeorm) made the table 47 MB for 1,000 commits; the log keeps them in each event.
    # 4: the message's body, which the ranking's history reads with the title. 5: NULL for a commit recorded
    # without one (before bodies were), until a `commit.described` gives it.
    version = 5
    handles = frozenset({CommitRecorded.TYPE, CommitRewritten.TYPE, CommitDescribed.TYPE})
    tables = ("commits", "commit_symbols", "commit_rewrites")

    def create(self, conn: sqlite3.Connection) -> None:
        conn.execute("""CREATE TABLE IF NOT EXISTS commits (
            commit_id TEXT PRIMARY KEY, parents TEXT NOT NULL, author TEXT, authored_at TEXT,
            committed_at TEXT, title TEXT, origin TEXT, agent TEXT, goal_id TEXT, trailers TEXT,
            files_changed INTEGER, seq INTEGER NOT NULL, body TEXT)""")
        conn.execute("CREATE INDEX IF NOT EXISTS commits_goal ON commits(goal_id)")
        # The history's order, and the stamp its read models are kept by (db.snapshot): without it, MAX(seq)
        # read every row (54 ms a task on typeorm's 5,382 commits, when they held their tests: 235 MB).
        conn.execute("CREATE INDEX IF NOT EXISTS commits_seq ON commits(seq)")
        conn.execute("""CREATE TABLE IF NOT EXISTS commit_symbols (
            commit_id TEXT NOT NULL, symbol_id TEXT NOT NULL, status TEXT NOT NULL, changed TEXT,
            path TEXT, kind TEXT, qualname TEXT, from_id TEXT, similarity REAL,
            PRIMARY KEY (commit_id, symbol_id, status))""")
        conn.execute("CREATE INDEX IF NOT EXISTS commit_symbols_symbol ON commit_symbols(symbol_id)")
        conn.execute("CREATE INDEX IF NOT EXISTS commit_symbols_from ON commit_symbols(from_id)")
        conn.execute("""CREATE TABLE IF NOT EXISTS commit_rewrites (
            old TEXT NOT NULL, new TEXT NOT NULL, kind TEXT, seq INTEGER NOT NULL,
            PRIMARY KEY (old, new))""")
        conn.execute("CREATE INDEX IF NOT EXISTS commit_rewrites_new ON commit_rewrites(new)")

    def apply(self, conn: sqlite3.Connection, event: StoredEvent) -> None:
        p = event.payload
        if event.type == CommitDescribed.TYPE:
            conn.execute("UPDATE commits SET body = ? WHERE commit_id = ? AND body IS NULL", (p["body"], p["commit"]))
            return
        if event.type == CommitRewritten.TYPE:
            conn.execute(
                "INSERT OR IGNORE INTO commit_rewrites VALUES (?, ?, ?, ?)", (p["old"], p["new"], p["kind"], event.seq)
            )
            return
        commit = p["commit"]
        conn.execute(
            "INSERT OR IGNORE INTO commits VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                commit,
                json.dumps(p["parents"]),
                p["author"],
                p["authored_at"],
                p["committed_at"],
                p["title"],
                p["origin"],
                p.get("agent"),
                p.get("goal_id"),
                json.dumps(p.get("trailers", {}), sort_keys=True),
                p.get("files_changed", 0),
                event.seq,
                p.get("body"),  # None: recorded before bodies were
            ),
        )
        rows = [
            (commit, s["id"], s["status"], s.get("changed"), s["path"], s["kind"], s["qualname"], None, None)
            for s in p.get("changed_symbols", [])
        ]
        rows += [
            (commit, s["id"], "deleted", None, s["path"], s["kind"], s["qualname"], None, None)
            for s in p.get("deleted_symbols", [])
        ]
        rows += [
            (
                commit,
                r["to"],
                "renamed",
                r.get("changed"),
                r["to_path"],
                r["kind"],
                r["to_qualname"],
                r["from"],
                r["similarity"],
            )
            for r in p.get("renamed_symbols", [])
        ]
        conn.executemany("INSERT OR IGNORE INTO commit_symbols VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
