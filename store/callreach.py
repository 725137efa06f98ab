"""Impact through calls: who reaches a symbol (its callers, then theirs...), the chains back to it, the files
importing it by name, and the risk its fan-in says. The call edges and their bases are store/callgraph.py's.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from typing import Any

from .callgraph import BASIS_ORDER, FOLLOWED, callers
from .db import stored_list
from .resolver import shared_resolver
from .symbol import SymbolRow, symbol_dict

CALLERS_PER_SYMBOL = 500  # a hub's callers, read per step of the walk
CALL_DEPTH = 6  # click: Parameter.consume_value is 5 calls below BaseCommand.main, every program's entry
# Risk by fan-in: how many symbols reach this one through calls (transitively, tests left out). Over
# click 8.1.7's 488 functions in src/ (depth 6) the median is 2, the 75th percentile 12, the 90th 20:
# 12 and up is its top 27%, where Parameter.consume_value (14: every option value passes through
# it) sits; 4 and up its top 39%; below that, a change stays near its few callers.
HIGH_REACH = 12
MEDIUM_REACH = 4


def reach(conn: sqlite3.Connection, symbol: SymbolRow, depth: int) -> list[dict[str, Any]]:
    """The symbols that call this one, then their callers..., up to `depth` calls away, each with its
    distance, basis and `via` (the symbol it calls on the way): the chains can be read back.

    Resolved and unique-name calls are followed; a `name only` guess is listed but not followed."""
    resolver = shared_resolver(conn)
    found: dict[str, dict[str, Any]] = {}
    frontier = [(symbol, 0)]
    while frontier:
        current, dist = frontier.pop(0)
        for call in callers(conn, current, limit=CALLERS_PER_SYMBOL, resolver=resolver):
            key = call["caller"] or call["path"]  # a module's top level: the file is the id to ask about
            if key in found or key == symbol["id"] or (call["basis"] not in FOLLOWED and dist > 0):
                continue  # a guess by name about a caller's caller says nothing: listing them would flood
            found[key] = {
                "id": key,
                "path": call["path"],
                "distance": dist + 1,
                "basis": call["basis"],
                "via": current["id"],
                "line": call["line"],
                "lines": call["lines"],
                "module_level": call["caller"] is None,
            }
            if call["caller"] and call["basis"] in FOLLOWED and dist + 1 < depth:
                row = conn.execute("SELECT * FROM symbols WHERE id = ?", (call["caller"],)).fetchone()
                if row is not None:
                    frontier.append((symbol_dict(row), dist + 1))
    return sorted(found.values(), key=lambda s: (s["distance"], BASIS_ORDER.get(s["basis"], 3), s["id"]))


def importers_of_name(conn: sqlite3.Connection, symbol: SymbolRow) -> list[str]:
    """Files importing the symbol (or its top-level class) by name: they may use it without calling it."""
    top = symbol["qualname"].split(".", 1)[0]
    return sorted(
        {
            r["path"]
            for r in conn.execute(
                "SELECT path, names FROM imports WHERE target = ? AND path != ?", (symbol["path"], symbol["path"])
            )
            if top in stored_list(r["names"])
        }
    )


def chain(by_id: Mapping[str, dict[str, Any]], start: str) -> list[str]:
    """The calls from `start` down to the symbol the walk began at, read back through the hits' `via` (`reach`'s
    hits by id)."""
    out = [start]
    while start in by_id and len(out) <= len(by_id):
        start = by_id[start]["via"]
        out.append(start)
    return out


def risk_by_reach(reaching: int, files: int) -> str:
    """high / medium / low by fan-in through calls, or by dependent files when they say more."""
    if reaching >= HIGH_REACH or files > 10:
        return "high"
    if reaching >= MEDIUM_REACH or files > 2:
        return "medium"
    return "low"
