"""The dependencies projection's part for Go packages: which file of a folder declares each top-level name, and the
file each `package` import (a name a Go file takes from its own package: indexer/parsing/gopackage.py) resolves to.

Go has no import between the files of one package, so what a file uses of the others is known only by the names
they declare. The declared names come from each file's own event (its symbols' qualified names), so this needs no
other projection, and a file's `package` imports are resolved again whenever the names its folder declares
change: written, outlined, indexed again with other definitions, or gone.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from typing import Any

from ..db import select_in, stored_list
from ..symbol import without_definition_number

TABLE = "go_names"


def create(conn: sqlite3.Connection) -> None:
    conn.execute(f"""CREATE TABLE IF NOT EXISTS {TABLE} (
        folder TEXT NOT NULL, name TEXT NOT NULL, path TEXT NOT NULL,
        PRIMARY KEY (folder, name, path)) WITHOUT ROWID""")
    conn.execute(f"CREATE INDEX IF NOT EXISTS {TABLE}_path ON {TABLE}(path)")


def declared(payload: dict[str, Any]) -> set[str]:
    """The top-level names a Go file's event declares: its symbols with no dot in their qualified names (a
    method's is `node.findRoute`); a second definition's id ends `#2`."""
    if "spans" in payload:  # file.indexed: each symbol's id, `path::qualname`
        qualnames = [without_definition_number(sid.partition("::")[2]) for sid in payload["spans"]]
    else:  # file.outlined: its symbols
        qualnames = [s["qualname"] for s in payload.get("symbols", [])]
    return {q for q in qualnames if q and "." not in q}


def write(conn: sqlite3.Connection, path: str, names: set[str]) -> bool:
    """Keep the file's declared names (none when it went); whether they are not what they were."""
    before = {r[0] for r in conn.execute(f"SELECT name FROM {TABLE} WHERE path = ?", (path,))}
    if before == names:
        return False
    folder = path.rpartition("/")[0]
    conn.execute(f"DELETE FROM {TABLE} WHERE path = ?", (path,))
    conn.executemany(f"INSERT INTO {TABLE} VALUES (?, ?, ?)", [(folder, name, path) for name in sorted(names)])
    return True


def imports_in(conn: sqlite3.Connection, folders: set[str]) -> set[tuple[str, int]]:
    """(path, ordinal) of the `package` imports of the Go files in `folders`."""
    out: set[tuple[str, int]] = set()
    for folder in sorted(folders):
        prefix = f"{folder}/" if folder else ""
        for path, ordinal in conn.execute(  # the paths under the folder: a range of the primary key
            "SELECT path, ordinal FROM imports WHERE path >= ? AND path < ? AND kind = 'package'",
            (prefix, prefix + "\U0010ffff"),
        ):
            if path.endswith(".go") and path.rpartition("/")[0] == folder:
                out.add((path, ordinal))
    return out


def resolve(conn: sqlite3.Connection, imports: set[tuple[str, int]]) -> None:
    """Set each Go `package` import's target: the file of the importer's folder declaring the name, a test file
    only for a test (`go build` leaves them out); of several (one per platform: `dial_unix.go`, `dial_windows.go`)
    the first by path, and none when no file declares it (a name of Go's own, or a local the rules missed)."""
    wanted = sorted(key for key in imports if key[0].endswith(".go"))
    if not wanted:
        return
    rows: dict[tuple[str, int], str] = {}
    by_path: dict[str, set[int]] = defaultdict(set)
    for path, ordinal in wanted:
        by_path[path].add(ordinal)
    for path, ordinal, names, kind in select_in(
        conn, "SELECT path, ordinal, names, kind FROM imports WHERE path IN ({marks})", sorted(by_path)
    ):
        if kind == "package" and ordinal in by_path[path]:
            rows[(path, ordinal)] = next(iter(stored_list(names)), "")
    declaring: dict[tuple[str, str], list[str]] = defaultdict(list)
    folders = sorted({path.rpartition("/")[0] for path, _ in rows})
    for folder, name, path in select_in(
        conn, f"SELECT folder, name, path FROM {TABLE} WHERE folder IN ({{marks}})", folders
    ):
        declaring[(folder, name)].append(path)
    updates = []
    for (path, ordinal), name in sorted(rows.items()):
        test = path.endswith("_test.go")
        found = sorted(
            p
            for p in declaring.get((path.rpartition("/")[0], name), [])
            if p != path and (test or not p.endswith("_test.go"))
        )
        updates.append((found[0] if found else None, path, ordinal))
    conn.executemany("UPDATE imports SET target = ? WHERE path = ? AND ordinal = ?", updates)
