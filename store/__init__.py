"""The event log, its projections and the read side. Knows nothing of the indexer or server."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from .db import DatabaseError, connect, transaction
from .migrations import migrate
from .projections import CORE, catch_up, ensure
from .writer import writing

DB_ENV = "ANNALS_DB"
ANNALS_DIR = ".annals"


def default_db_path(root: Path, override: str | Path | None = None) -> Path:
    """`--db`, else $ANNALS_DB, else <root>/.annals/annals.db."""
    chosen = override or os.environ.get(DB_ENV)
    return Path(chosen).expanduser().resolve() if chosen else root / ANNALS_DIR / "annals.db"


def open_store(path: Path | str, *, catch_up_now: bool = True) -> sqlite3.Connection:
    """Open (creating if needed) a database, migrate it, and bring every projection up to date."""
    conn = connect(path)
    try:
        migrate(conn)
        ensure(conn, CORE)
        if catch_up_now:
            catch_up(conn, CORE)
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise DatabaseError(
            f"{path} is not a usable annals database ({exc}). Run `annals --db {path} verify` to "
            "see what is wrong; if it is damaged, move it aside and run `annals index` again."
        ) from exc
    return conn


__all__ = [
    "DB_ENV",
    "DatabaseError",
    "catch_up",
    "connect",
    "default_db_path",
    "open_store",
    "transaction",
    "writing",
]
