"""Where C++ runs code that no call names: a class is made by declaring a value of it (`Arena arena;`, a member
`HandleTable table_;`, made with the class holding it; not a pointer to one, `Arena* arena_`, whose type is kept
as `Arena*`), a base class with each class deriving from it, and a
constructor or destructor runs where its class is made (`new MemTable(...)`). The test walk (store/testwalk.py)
follows these from the code a test reaches; bench/facts_tests_cpp.py measures them.
"""

from __future__ import annotations

import re
import sqlite3

from . import lookups
from .cppcalls import ancestors
from .cprototypes import C_FILES
from .db import held_while_unchanged, stored_list
from .resolver import shared_resolver
from .symbol import SymbolRow

MAKES = "declares a value of it"  # the basis of a site making a class with no call naming it
_PARAMETER = re.compile(r"(\w+)\s*(?:=.*)?$")  # the name a C++ parameter's declaration ends with


def made_where(conn: sqlite3.Connection, cls: SymbolRow) -> tuple[list[str], list[tuple[str, str]]]:
    """Where a C++ class is made with no call naming it: the classes whose making makes it (those deriving from it,
    those holding a member of it), by id; and the functions declaring a local of it, as (path, id). A parameter
    of its type is not made there: its caller made it."""
    classes = list(cpp_derived(conn).get(cls["qualname"], ()))
    functions = []
    declared = cpp_holders(conn).get(cls["name"], [])
    holders = lookups.symbol_rows(conn, {owner for _, owner, _ in declared})
    for path, owner, name in declared:
        holder = holders.get(owner)
        if holder is None or owner == cls["id"]:
            continue
        if holder["kind"] in ("class", "struct"):
            classes.append(owner)
        elif name not in {m[1] for p in stored_list(holder["params"]) if (m := _PARAMETER.search(str(p)))}:
            functions.append((path, owner))
    return classes, functions


def made_class(conn: sqlite3.Connection, symbol: SymbolRow) -> SymbolRow | None:
    """The C++ class a constructor or destructor (`MemTable::MemTable`, `~MemTable`) is of, wherever the class is
    declared: it runs where the class is made (`new MemTable(...)`, a local), and its destructor mostly there too."""
    owner, _, name = symbol["qualname"].rpartition(".")
    if symbol["kind"] != "method" or name.lstrip("~") != owner.rpartition(".")[2]:
        return None
    row = conn.execute(
        "SELECT * FROM symbols WHERE qualname = ? AND kind IN ('class', 'struct') ORDER BY path LIMIT 1", (owner,)
    ).fetchone()
    return lookups.symbol_dict(row) if row is not None else None


def cpp_holders(conn: sqlite3.Connection) -> dict[str, list[tuple[str, str, str]]]:
    """C++'s declared values by their type's name: (path, the class or function declaring it, its name) each."""

    def read() -> dict[str, list[tuple[str, str, str]]]:
        found: dict[str, list[tuple[str, str, str]]] = {}
        for path, owner, name, written in conn.execute("SELECT path, owner, name, type FROM fields"):
            if path.endswith(C_FILES):
                found.setdefault(written.rpartition("::")[2], []).append((path, owner, name))
        return found

    return held_while_unchanged(conn, "cpp holders", read)


def cpp_derived(conn: sqlite3.Connection) -> dict[str, list[str]]:
    """C++'s classes deriving from each class (by its qualified name), directly or not: their ids."""

    def read() -> dict[str, list[str]]:
        resolver = shared_resolver(conn)
        found: dict[str, list[str]] = {}
        for row in conn.execute("SELECT id, qualname, path FROM symbols WHERE kind IN ('class', 'struct')"):
            if row["path"].endswith(C_FILES):
                for base in sorted(ancestors(resolver, row["qualname"])):
                    found.setdefault(base, []).append(row["id"])
        return found

    return held_while_unchanged(conn, "cpp derived", read)
