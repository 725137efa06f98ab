"""Module contracts: each module's role, and each call that shows a side effect (its API comes
from the symbols). Effects are found here, from the calls and imports a file.indexed event
carries, by the rules in data/side_effects.json: a change of the rules (pinned by RULES_DIGEST) or
of how store/effects.py matches them bumps `version`, and replaying the log applies it to every
file without re-indexing."""

from __future__ import annotations

import json
import re
import sqlite3

from ..effects import direct_effects
from ..events import FileIndexed, FileOutlined, FileRemoved, FileSkipped
from ..log import StoredEvent
from .base import Projection

_SENTENCE_END = re.compile(r"(?<=[.!?])\s")
_LIST_MARK = re.compile(r"\A(?:\d{1,3}[.)]|[-*\u2022])\s+(?=\S)")  # a numbered or bulleted list's first item
# A reStructuredText title (`requests.sessions` over `~~~~~~~~~~~~~~~~~`, perhaps under an overline too): it names
# the module, the paragraph after it says what it is for.
_RST_TITLE = re.compile(r"\A(?:([=~^*#+`-])\1{2,}\n)?(?P<title>[^\n]+)\n([=~^*#+`-])\3{2,}[ \t]*(?:\n|\Z)")
RULES_DIGEST = "e89f671153d2c601"  # store.effects.rules_digest() of the rules this version applies


def first_sentence(text: str | None) -> str:
    """The first sentence of the first paragraph for a reader: not a reStructuredText title, directive (`..
    autoclass:: ProxyMiddleware`) or field list (`:copyright: 2007 Pallets`), which made werkzeug's and sqlalchemy's
    modules' role ".." (30 of them over the bench bases); the title where nothing else is."""
    if not text:
        return ""
    first_title = ""
    for paragraph in text.strip().split("\n\n"):
        paragraph = paragraph.strip()
        if title := _RST_TITLE.match(paragraph):  # a section's title (sqlalchemy's `Connecting to PyODBC` under ---)
            first_title = first_title or title["title"].strip()
            paragraph = paragraph[title.end() :].strip()
        if paragraph and not paragraph.startswith(("..", ":")):
            flat = _LIST_MARK.sub("", " ".join(paragraph.split()))  # `1. Change the default font` is no "1."
            return _SENTENCE_END.split(flat, maxsplit=1)[0]
    return first_title


class ContractsProjection(Projection):
    name = "contracts"
    # 5: a reStructuredText title is not the role; 6: a Rust macro's rule is no method's; 7: a value is no call;
    # 8: Rust's network is its sockets, hyper's connections, servers and bodies; 9: a path's text or a URL made is
    # no I/O; 10: nor is a Go request made; 11: nor a Java path; 12: a reStructuredText directive is no role;
    # 13: a Python module's rule needs its import, and Python's and JavaScript's calls reaching I/O are listed; 14:
    # nor is a Go reader read; 15: nor a C++ method a C function; 16: a list's number is no role; 17: Rust's calls
    # reaching a socket, a process, the environment or a log are listed (a hyper connection's builder made is none);
    # 18: C++'s `std::remove` of a range is <algorithm>'s, no file's
    version = 18
    handles = frozenset({FileIndexed.TYPE, FileOutlined.TYPE, FileSkipped.TYPE, FileRemoved.TYPE})
    tables = ("modules", "call_effects")

    def create(self, conn: sqlite3.Connection) -> None:
        conn.execute("""CREATE TABLE IF NOT EXISTS modules (
            path TEXT PRIMARY KEY, module TEXT, language TEXT, role TEXT, declared_api TEXT)""")
        conn.execute("CREATE INDEX IF NOT EXISTS modules_module ON modules(module)")
        # One row per symbol, kind and call that shows it; `symbol` NULL: the module runs it on import.
        conn.execute("""CREATE TABLE IF NOT EXISTS call_effects (
            path TEXT NOT NULL, symbol TEXT, kind TEXT NOT NULL, via TEXT NOT NULL, qualified TEXT,
            line INTEGER)""")
        conn.execute("CREATE INDEX IF NOT EXISTS call_effects_path ON call_effects(path, symbol)")

    def apply(self, conn: sqlite3.Connection, event: StoredEvent) -> None:
        p = event.payload
        conn.execute("DELETE FROM modules WHERE path = ?", (p["path"],))
        conn.execute("DELETE FROM call_effects WHERE path = ?", (p["path"],))
        if event.type != FileIndexed.TYPE:
            return
        declared = p.get("declared_api")
        conn.execute(
            "INSERT INTO modules VALUES (?, ?, ?, ?, ?)",
            (
                p["path"],
                p.get("module") or None,
                p["language"],
                first_sentence(p.get("module_doc")),
                json.dumps(declared) if declared is not None else None,
            ),
        )
        conn.executemany(
            "INSERT INTO call_effects VALUES (?, ?, ?, ?, ?, ?)",
            [
                (p["path"], e["symbol"], e["kind"], e["via"], e["as"], e["line"])
                for e in direct_effects(p["language"], p.get("calls", []), p.get("imports", []))
            ],
        )
