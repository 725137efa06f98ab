"""Which Python call sites a guess by name may take for a symbol, by what Python lets the name mean there.

A call whose file does not say what it calls (`load()` with `load` a parameter, `helper()` of a name bound at run
time) is matched by name to the symbols of that name (store/callgraph.py: basis `name only`). Two such matches
Python itself rules out:
- a function defined inside another function (`_follow.load`) is a name only inside that function: another
  function's `load()` is never it (unless it is handed on as a value, which the values' own rule follows);
- a bare call of the calling function's own parameter (`load()` in `def facts(self, path, load=None)`) calls the
  value passed, whatever it is: a function of the same name elsewhere is no likelier than any other.

bench/facts_tests.py (the test files `impact` lists against coverage's, six projects, 224 functions): recall /
precision .981 / .525 -> .979 / .548 (pooled .978 / .420 -> .977 / .426), with a call path alone .891 / .574 ->
.880 / .597 (MarkupSafe .45 -> .59 precision, 1.00 -> .99 recall: `escape(s)` of a parameter handed the module's
`escape`; Flask .52 -> .55). This repository's own suite (bench/facts_tests_self.py): .653 / .510 -> .653 / .509.
"""

from __future__ import annotations

import re
import sqlite3

from .db import stored_list
from .resolver import CallResolver
from .symbol import SymbolRow

_FUNCTION_KINDS = ("function", "method")
_PARAMETER = re.compile(r"^\**([A-Za-z_]\w*)")  # `load: Callable[[], bytes] | None = None`, `*args`


def python_guessable(resolver: CallResolver, call: sqlite3.Row, symbol: SymbolRow | sqlite3.Row) -> bool:
    """Whether Python lets the call site (a `calls` row its file does not explain) name the symbol."""
    if not (call["path"].endswith(".py") and symbol["path"].endswith(".py")):
        return True
    caller = call["caller"] or ""
    parent = symbol["parent"]
    if parent is not None and caller != parent and not caller.startswith(f"{parent}."):
        if _kind(resolver, parent) in _FUNCTION_KINDS:
            return False  # defined inside another function: named there only
    if not call["qualifier"] and caller and call["name"] in _parameters(resolver, caller):
        return False
    return True


def _kind(resolver: CallResolver, symbol_id: str) -> str | None:
    row = resolver.conn.execute("SELECT kind FROM symbols WHERE id = ?", (symbol_id,)).fetchone()
    return row[0] if row is not None else None


def _parameters(resolver: CallResolver, caller: str) -> set[str]:
    row = resolver.conn.execute("SELECT params FROM symbols WHERE id = ?", (caller,)).fetchone()
    if row is None:
        return set()
    return {m[1] for p in stored_list(row[0]) if isinstance(p, str) for m in [_PARAMETER.match(p.strip())] if m}
