"""Once the index is complete, every symbol's callers answered and kept (store/keptcallers.py says why and when they
are read): the last step of `annals index`, in the foreground or in the background worker that completes it."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from typing import Any

from ..store.callgraph import callers
from ..store.db import files_stamp
from ..store.keptcallers import KEPT_LIMIT, keep, standing
from ..store.lookups import every_symbol, outlined_count
from ..store.resolver import shared_resolver

PROGRESS_EVERY = 500  # symbols between progress reports


def keep_callers(conn: sqlite3.Connection, progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Answer `callers` for every symbol and keep the answers: {"state": "kept", "symbols", "seconds"}; "standing"
    when the kept ones are still exact; "incomplete" while files wait for their calls, "overtaken" when a file
    changed while they were made (nothing is kept then: the next `annals index` tries again)."""
    if standing(conn):
        return {"state": "standing"}
    if outlined_count(conn):
        return {"state": "incomplete"}
    started = time.perf_counter()
    made_at = files_stamp(conn)
    resolver = shared_resolver(conn)
    symbols = every_symbol(conn)
    answers = []
    for n, symbol in enumerate(symbols, 1):
        answers.append((symbol["id"], callers(conn, symbol, limit=KEPT_LIMIT, resolver=resolver)))
        if progress is not None and (n % PROGRESS_EVERY == 0 or n == len(symbols)):
            progress(n, len(symbols))
    if not keep(conn, answers, made_at):
        return {"state": "overtaken"}
    return {"state": "kept", "symbols": len(answers), "seconds": round(time.perf_counter() - started, 2)}
