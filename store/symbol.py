"""What a symbol is: as extraction finds it and the log carries it (`Symbol`), as the symbols table
gives it back (`SymbolRow`), and as a search finds it (`SymbolHit`).

TypedDicts, not classes: a symbol is a JSON object in an event payload and a row of a table, and
the hot paths (a cold index, a ranking of hundreds of rows) build and read plain dicts. mypy checks
every key against these.
"""

# No `from __future__ import annotations`: on Python 3.11 a `NotRequired` written as a string goes
# unseen and its key counts in `__required_keys__`, which tests/test_symbol_type.py reads.
import re
import sqlite3
from collections.abc import Iterable
from typing import NotRequired, TypedDict

from .db import stored_list

_DEFINITION_NUMBER = re.compile(r"#\d+$")  # `path::qualname#2`: the second definition of the name in the file


# A Python parameter as written: `load: Callable[[], bytes] | None = None`, `value=None`, `*args`, `**kwargs`
_PARAMETER_NAME = re.compile(r"\s*\**\s*([A-Za-z_]\w*)")


def parameter_names(params: Iterable[object]) -> set[str]:
    """The names of a Python function's parameters as written, whatever their annotations and defaults (`serializer:
    Serializer` is `serializer`, `**kwargs` is `kwargs`)."""
    return {m[1] for written in params if isinstance(written, str) and (m := _PARAMETER_NAME.match(written))}


def without_definition_number(text: str) -> str:
    """An id, qualified name or ref segment without the number of a second definition (`r#2` -> `r`)."""
    return _DEFINITION_NUMBER.sub("", text)


class _Definition(TypedDict):
    """The keys a symbol has wherever it is: in extraction's facts, in the log, in the table."""

    id: str  # `path::qualname`, `#2` after it for a second definition of the name in the file
    name: str
    qualname: str  # dotted within the file: `Class.method`
    kind: str  # function, method, class, struct, ... (`data/queries/<lang>.scm` names them)
    language: str
    path: str
    start_line: int  # 1-based, decorators included
    end_line: int
    signature: str  # layout-free (signatures.normalise_signature)
    signature_hash: str | None  # None in an outline (file.outlined): search-ready, not yet complete
    body_hash: str | None
    doc: str | None
    parent: str | None  # the enclosing definition's id
    exported: bool
    params: list[str]
    returns: str | None
    decorators: list[str]


class Symbol(_Definition):
    """A symbol as extraction finds it, and as `symbol.added` / `symbol.changed` carry it."""

    overloads: NotRequired[list[str]]  # an overload set's stub signatures; absent when it has none


class SymbolRow(_Definition):
    """A row of the symbols table as `symbol_dict` reads it: a list where extraction had none."""

    overloads: list[str]


class SymbolHit(SymbolRow):
    """A symbol a search or a task found: its relevance, and (ranked as a task) the evidence."""

    score: float
    why: NotRequired[list[str]]  # ranked as a task (store/ranking.py)
    via: NotRequired[list[str]]  # the searches that found it: fts, vector (hybrid search)


def symbol_dict(row: sqlite3.Row) -> SymbolRow:
    """A row of `SELECT * FROM symbols`: JSON lists parsed, `exported` a bool."""
    return {
        "id": row["id"],
        "name": row["name"],
        "qualname": row["qualname"],
        "kind": row["kind"],
        "language": row["language"],
        "path": row["path"],
        "start_line": row["start_line"],
        "end_line": row["end_line"],
        "signature": row["signature"],
        "signature_hash": row["signature_hash"],
        "body_hash": row["body_hash"],
        "doc": row["doc"],
        "parent": row["parent"],
        "exported": bool(row["exported"]),
        "params": stored_list(row["params"]),
        "returns": row["returns"],
        "decorators": stored_list(row["decorators"]),
        "overloads": stored_list(row["overloads"]),
    }


# The kinds of symbol that define a type, across the languages: a class, a struct, a trait, ...
TYPE_KINDS = ("class", "struct", "trait", "interface", "enum", "type")
TEMPLATE_KIND = "template"  # a Django or Jinja template file, as one symbol (indexer/parsing/templates.py)
# A def decorated so that reading `x.name` runs it (`@property`, `@functools.cached_property`, werkzeug's).
PROPERTY_DECORATORS = frozenset({"property", "cached_property"})
# What the call graph reads of a symbol to follow a name into it: its members, bases and results (store/resolver.py)
RESOLVER_COLUMNS = "id, name, qualname, kind, path, parent, signature, returns, decorators"


def is_property(decorators: list[str]) -> bool:
    """Whether these decorators (`@property`, `@functools.cached_property`) make the def a property's getter."""
    return any(d.strip().lstrip("@").rsplit(".", 1)[-1] in PROPERTY_DECORATORS for d in decorators)
