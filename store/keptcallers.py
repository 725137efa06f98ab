"""Every symbol's callers, kept in the database for one state of the index.

`callgraph.callers` classifies each call site of a symbol's names (resolving it across files, weighing overrides,
interfaces and guesses by name), and a process does that work again for every symbol it meets: the first context
packs of a fresh server, or each `annals pack`, spent about half their time there on sqlalchemy. `annals index`
therefore answers it once for every symbol and keeps the answers (indexer/keepcallers.py).

A kept answer is read only while it is exactly what the call graph would say: it names the files stamp it was made
at (any file indexed, skipped or removed since, and it stands aside) and the code that made it (a hash of this
package's modules: after an upgrade it stands aside too). Then the call graph answers as before, until the next
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

# The most callers any answer reads (testwalk.CALL_SITES): a longer list is kept cut there, as `callers` cuts it,
# so every answer up to this many is a prefix of the kept one.
KEPT_LIMIT = 2000
_FIELDS = ("path", "caller", "line", "qualifier", "basis")


@functools.cache
def code_version() -> str:
    """The code the answers come from: every module of this package, hashed (the call graph reads the resolver, the
    class hierarchy and each language's rules, and a change to any may change an answer)."""
    digest = hashlib.sha256()
    for source in sorted(Path(__file__).parent.rglob("*.py")):
        digest.update(source.relative_to(Path(__file__).parent).as_posix().encode())
        digest.update(source.read_bytes())
    return digest.hexdigest()[:16]


def kept_callers(conn: sqlite3.Connection, symbol_id: str, limit: int) -> list[dict[str, Any]] | None:
    """The symbol's first `limit` callers as `callgraph.callers` gives them, when kept and still exact; else None."""
    if limit > KEPT_LIMIT or not standing(conn):
        return None
    row = conn.execute("SELECT callers FROM kept_callers WHERE symbol = ?", (symbol_id,)).fetchone()
    if row is None:
        return None
    return [dict(zip(_FIELDS, call, strict=True)) for call in json.loads(zlib.decompress(row[0]))[:limit]]


def keep(
    conn: sqlite3.Connection, answers: Iterable[tuple[str, list[dict[str, Any]]]], made_at: tuple[int, int]
) -> bool:
    """Keep every symbol's callers (`answers`, each cut at KEPT_LIMIT) as made at the files stamp `made_at`, in place
    of those kept before; False, keeping nothing, when a file changed since."""
    rows = [
        (symbol, zlib.compress(json.dumps([[c[f] for f in _FIELDS] for c in calls]).encode()))
        for symbol, calls in answers
    ]
    with transaction(conn):
        if files_stamp(conn) != made_at:
            return False
        conn.execute("DELETE FROM kept_callers")
        conn.execute("DELETE FROM kept_callers_state")
        conn.executemany("INSERT INTO kept_callers (symbol, callers) VALUES (?, ?)", rows)
        conn.execute(
            "INSERT INTO kept_callers_state (id, files_count, files_seq, code) VALUES (1, ?, ?, ?)",
            (*made_at, code_version()),
        )
    return True


def standing(conn: sqlite3.Connection) -> bool:
    """Whether the kept answers are those of the index as it is and of this code: asked of the database again
    whenever it may have changed (a file indexed, or the answers kept anew by another process)."""
    seen = database_version(conn)
    known = _STANDING.get(conn)
    if known is None or known[0] != seen:
        row = conn.execute("SELECT files_count, files_seq, code FROM kept_callers_state WHERE id = 1").fetchone()
        made_for = (int(row[0]), int(row[1]), str(row[2])) if row is not None else None
        known = _STANDING[conn] = (seen, made_for == (*files_stamp(conn), code_version()))
    return known[1]


_STANDING: weakref.WeakKeyDictionary[sqlite3.Connection, tuple[tuple[int, int], bool]] = weakref.WeakKeyDictionary()
