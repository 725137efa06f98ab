"""Module contracts: each module's role and side effects (its API comes from the symbols)."""

from __future__ import annotations

import json
import re
import sqlite3

from ..log import StoredEvent
from .base import Projection

_SENTENCE_END = re.compile(r"(?<=[.!?])\s")


def first_sentence(text: str | None) -> str:
    if not text:
        return ""
    paragraph = text.strip().split("\n\n")[0]
    flat = " ".join(paragraph.split())
    return _SENTENCE_END.split(flat, maxsplit=1)[0]


class ContractsProjection(Projection):
    name = "contracts"
    version = 1
    handles = frozenset({"file.indexed", "file.skipped", "file.removed"})
    tables = ("modules",)

    def create(self, conn: sqlite3.Connection) -> None:
        conn.execute("""CREATE TABLE IF NOT EXISTS modules (
            path TEXT PRIMARY KEY, module TEXT, language TEXT, role TEXT, declared_api TEXT,
            effects TEXT)""")
        conn.execute("CREATE INDEX IF NOT EXISTS modules_module ON modules(module)")

    def apply(self, conn: sqlite3.Connection, event: StoredEvent) -> None:
        p = event.payload
        conn.execute("DELETE FROM modules WHERE path = ?", (p["path"],))
        if event.type != "file.indexed":
            return
        declared = p.get("declared_api")
        conn.execute("INSERT INTO modules VALUES (?, ?, ?, ?, ?, ?)",
                     (p["path"], p.get("module") or None, p["language"], first_sentence(p.get("module_doc")),
                      json.dumps(declared) if declared is not None else None,
                      json.dumps(p.get("effects", []), sort_keys=True)))
