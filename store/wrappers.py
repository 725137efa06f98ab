"""The Python functions a decorator of ours replaces with a wrapper: `@login_required def create()` is the
`wrapped_view` that login_required returns, and `@cors("GET") def items()` the `wrapper` that the decorator cors
returns holds. Whoever calls one of them, a test's request of a view included, runs the wrapper, which nothing calls
by name: store/testwalk.py walks on from them. The decorator a factory returns (`@bp.route("/")`'s `decorator`) runs
where the function is defined instead, and wraps nothing.

bench/facts_tests_routes.py, all functions: flaskr (`@login_required`) 0.852 / 0.847 -> 0.907 / 0.903, Healthchecks
(`@authorize`, `@cors(...)`) 0.944 / 0.828 -> 0.948 / 0.829. With the factory's decorator taken as a wrapper too,
Flask's modules lost 0.07 precision (bench/facts_tests_modules.py)."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable

from .db import held_while_unchanged
from .symbol import SymbolRow

_DECORATOR_NAME = re.compile(r'"@(?:[\w.]*\.)?(\w+)')  # `route` of `"@bp.route(...)"` in a symbol's decorators


def wrapped_by(
    conn: sqlite3.Connection, wrapper: SymbolRow, symbol: Callable[[str], SymbolRow | None]
) -> list[SymbolRow]:
    """The functions written `@holder` where the function holding the wrapper is `holder`, or `@factory(...)` where
    the function holding that one is `factory`, wherever they are (the caller says which files load the wrapper);
    `symbol` reads a symbol's row by its id."""
    holder = symbol(wrapper["parent"]) if wrapper["parent"] else None
    if holder is None or holder["kind"] not in ("function", "method") or not wrapper["path"].endswith(".py"):
        return []
    factory = symbol(holder["parent"]) if holder["parent"] else None
    written = [(holder["name"], "$")]
    if factory is not None and factory["kind"] in ("function", "method"):
        written.append((factory["name"], r"\("))
    decorated = held_while_unchanged(conn, "decorated functions", lambda: _decorated(conn))
    out = []
    for name, after in written:
        form = re.compile(rf"@(?:[\w.]*\.)?{re.escape(name)}{after}")
        found = (symbol(i) for i in decorated.get(name, ()))
        out += [s for s in found if s is not None and any(form.match(d) for d in s.get("decorators") or [])]
    return out


def _decorated(conn: sqlite3.Connection) -> dict[str, list[str]]:
    """The Python functions and methods with decorators, by each decorator's last name (`login_required` of
    `@auth.login_required`, `cors` of `@cors("GET")`): read once, where a scan of every symbol per wrapper took a walk
    over Django's sources seconds."""
    out: dict[str, list[str]] = {}
    rows = conn.execute(
        "SELECT id, decorators FROM symbols WHERE kind IN ('function', 'method') AND decorators LIKE '%@%'"
        " AND (path LIKE '%.py' OR path LIKE '%.pyi')"
    )
    for symbol_id, decorators in rows:
        for name in set(_DECORATOR_NAME.findall(decorators)):
            out.setdefault(name, []).append(symbol_id)
    return out
