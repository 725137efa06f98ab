"""Answers kept in the database for one state of the index: every symbol's callers, every module's tests and the facts
a context pack shows of it.

A process works these out again for every symbol and module it meets: `callgraph.callers` classifies each call site
of a symbol's names (resolving it across files, weighing overrides, interfaces and guesses by name), a module's tests
are a walk up that call graph, its facts read its effects and contract. The first context packs of a fresh server,
each `annals pack` and every pack after an edit spent most of their time there (sqlalchemy: about half of a cold pack
in callers, then a third in module tests and facts). `annals index` therefore answers them once for everything and
keeps the answers (indexer/keep.py).

A kept answer is read only while it is exactly what the code would say: each kind names the files stamp it was made
at (any file indexed, skipped or removed since, and it stands aside) and the code that made it (a hash of this
package's modules: after an upgrade it stands aside too). Then the answers are worked out as before, until the next
`annals index` keeps them again. A cache, not a projection: nothing of it is in the log, and it may be emptied at
any time.
"""

from __future__ import annotations

import functools
import hashlib
import json
import sqlite3
import weakref
import zlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .db import database_version, files_stamp, transaction

CALLERS, MODULE_TESTS, MODULE_FACTS = "callers", "module tests", "module facts"
KINDS = (CALLERS, MODULE_TESTS, MODULE_FACTS)  # in the order they are kept: the later read the earlier


@functools.cache
def code_version() -> str:
    """The code the answers come from: every module of this package, hashed (the call graph reads the resolver, the
    class hierarchy and each language's rules, and a change to any may change an answer)."""
    digest = hashlib.sha256()
    for source in sorted(Path(__file__).parent.rglob("*.py")):
        digest.update(source.relative_to(Path(__file__).parent).as_posix().encode())
        digest.update(source.read_bytes())
    return digest.hexdigest()[:16]


def kept(conn: sqlite3.Connection, kind: str, key: str) -> Any | None:
    """The answer of this kind kept for `key` (a JSON value), when kept and still exact; else None."""
    if not standing(conn, kind):
        return None
    row = conn.execute("SELECT answer FROM kept_answers WHERE kind = ? AND key = ?", (kind, key)).fetchone()
    return json.loads(zlib.decompress(row[0])) if row is not None else None


def keep(conn: sqlite3.Connection, kind: str, answers: Iterable[tuple[str, Any]], made_at: tuple[int, int]) -> bool:
    """Keep every answer of a kind (`answers`: key, JSON value) as made at the files stamp `made_at`, in place of those
    kept before; False, keeping nothing, when a file changed since."""
    rows = [(kind, key, zlib.compress(json.dumps(answer).encode())) for key, answer in answers]
    with transaction(conn):
        if files_stamp(conn) != made_at:
            return False
        conn.execute("DELETE FROM kept_answers WHERE kind = ?", (kind,))
        conn.execute("DELETE FROM kept_state WHERE kind = ?", (kind,))
        conn.executemany("INSERT INTO kept_answers (kind, key, answer) VALUES (?, ?, ?)", rows)
        conn.execute(
            "INSERT INTO kept_state (kind, files_count, files_seq, code) VALUES (?, ?, ?, ?)",
            (kind, *made_at, code_version()),
        )
    return True


def stand_aside(conn: sqlite3.Connection) -> None:
    """Have every kind's kept answers stand aside, inside the caller's transaction: a rebuild may end at the files
    stamp it started from with rows that differ (a repaired table)."""
    conn.execute("DELETE FROM kept_state")


def standing(conn: sqlite3.Connection, kind: str) -> bool:
    """Whether the kept answers of a kind are those of the index as it is and of this code: asked of the database
    again whenever it may have changed (a file indexed, or the answers kept anew by another process)."""
    seen = database_version(conn)
    known = _STANDING.get(conn)
    if known is None or known[0] != seen:
        now = (*files_stamp(conn), code_version())
        rows = conn.execute("SELECT kind, files_count, files_seq, code FROM kept_state").fetchall()
        known = _STANDING[conn] = (seen, frozenset(r[0] for r in rows if (int(r[1]), int(r[2]), str(r[3])) == now))
    return kind in known[1]


def kinds_standing(conn: sqlite3.Connection) -> dict[str, bool]:
    """Whether each kind's kept answers stand (`standing`), by kind."""
    return {kind: standing(conn, kind) for kind in KINDS}


_STANDING: weakref.WeakKeyDictionary[sqlite3.Connection, tuple[tuple[int, int], frozenset[str]]] = (
    weakref.WeakKeyDictionary()
)
