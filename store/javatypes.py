"""Java's types as the index knows them: the project's class a type as written names (through the file's classes, its
imports, its package and its `*` imports), a class's supertypes and ancestors, the methods of a name it declares,
and a method's parameters. store/javacalls.py reads what a call runs through them."""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .db import stored_list
from .symbol import RESOLVER_COLUMNS, SymbolRow

if TYPE_CHECKING:
    from .resolver import CallResolver

CLASSES = ("class", "interface", "enum", "record")
GENERIC = re.compile(r"<.*>", re.S)
ANNOTATION = re.compile(r"@[\w.]+(?:\([^)]*\))?\s*")
_TYPE_VARIABLE = re.compile(r"^[A-Z][A-Z0-9]?$")  # `T`, `E`, `K2`: a type parameter, bound to any class
IDENTIFIER = re.compile(r"^[A-Za-z_$][\w$]*$")
_SUPERTYPES = re.compile(r"\b(?:extends|implements)\s+(.*?)(?=\bimplements\b|\bpermits\b|$)", re.S)
OUTSIDE = "outside"  # a type no class of the project is
# In a type javacalls.expression_type gives: one of the project's classes (its id), not a simple name (`String`)
IS_CLASS = "::"


@dataclass
class JavaCaches:
    """What Java's rules read again and again, once per answer."""

    named: dict[str, list[sqlite3.Row]] = field(default_factory=dict)  # classes by simple name
    types: dict[tuple[str, str], str | None] = field(default_factory=dict)  # (path, written) -> class id or OUTSIDE
    supertypes: dict[str, list[str]] = field(default_factory=dict)  # class id -> its direct supertypes' ids
    declaring: dict[tuple[str, str], str | None] = field(default_factory=dict)  # (class id, name) -> class id
    # (path, caller, qualifier, name, arguments) -> what the call runs: a callers answer asks it of each symbol of
    # the name, and a walk of each call site again
    targets: dict[tuple[str, str | None, str | None, str, str | None], list[str] | None] = field(default_factory=dict)
    parameters: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # a method's, by its id


def is_java(path: str) -> bool:
    return path.endswith(".java")


def resolved(resolver: CallResolver, where: str, written: str) -> str | None:
    """A type as written in `where`: our class's id, else its simple name (a library's, a primitive); None for a
    type variable or a name the index cannot place."""
    found = java_type(resolver, where, written)
    if found is None:
        return None
    return found if found != OUTSIDE else simple(written)


def java_type(resolver: CallResolver, path: str, written: str) -> str | None:
    """The id of the project's class a type as written in `path` names (`List<Factory>`: none of ours, OUTSIDE; a type
    variable or a name the index cannot place: None). Java finds a simple name among the file's classes, the
    classes it imports by name, its package's (its folder's), and the packages it imports with `*`."""
    key = (path, written)
    if key not in resolver.java.types:
        resolver.java.types[key] = _read_type(resolver, path, written)
    return resolver.java.types[key]


def _read_type(resolver: CallResolver, path: str, written: str) -> str | None:
    text = GENERIC.sub("", ANNOTATION.sub("", written)).replace("...", "[]").strip()
    if text.endswith("]"):
        return OUTSIDE  # an array: its methods are Object's
    outer, _, inner = text.partition(".")
    if inner and outer[:1].isupper():  # `CodeBlock.Builder`: the class nested in CodeBlock, not the file's Builder
        holder = java_type(resolver, path, outer)
        row = resolver.symbol(holder) if holder not in (None, OUTSIDE) else None
        if row is None:
            return holder
        nested = resolver.symbols_of(row["path"]).get(f"{row['qualname']}.{inner}")
        return str(nested["id"]) if nested is not None and nested["kind"] in CLASSES else None
    name = text.rpartition(".")[2]
    if not IDENTIFIER.match(name) or _TYPE_VARIABLE.match(name):
        return None
    classes = _classes_named(resolver, name)
    own = [c for c in classes if c["path"] == path]
    if own:
        return str(own[0]["id"])
    imports = resolver.imports_of(path)
    for imp in imports:
        if imp["target"] and imp["module"].rpartition(".")[2] == name:
            found = [c for c in classes if c["path"] == imp["target"]]
            return str(found[0]["id"]) if found else OUTSIDE
    folder = path.rpartition("/")[0]
    same_package = [c for c in classes if c["path"].rpartition("/")[0] == folder and "." not in c["qualname"]]
    if same_package:
        return str(same_package[0]["id"])
    starred = {imp["target"].rpartition("/")[0] for imp in imports if imp["target"] and imp["names"] == '["*"]'}
    through_star = [c for c in classes if c["path"].rpartition("/")[0] in starred and "." not in c["qualname"]]
    if through_star:
        return str(through_star[0]["id"])
    if any(imp["module"].rpartition(".")[2] == name for imp in imports):
        return OUTSIDE  # imported from a library
    return OUTSIDE if not classes else None  # java.lang's, or a library's through `*`; ours we cannot place


def _classes_named(resolver: CallResolver, name: str) -> list[sqlite3.Row]:
    if name not in resolver.java.named:
        marks = ", ".join("?" * len(CLASSES))
        resolver.java.named[name] = resolver.conn.execute(
            f"SELECT {RESOLVER_COLUMNS} FROM symbols WHERE name = ? AND kind IN ({marks}) AND path LIKE '%.java'"
            " ORDER BY id",
            (name, *CLASSES),
        ).fetchall()
    return resolver.java.named[name]


def supertypes(resolver: CallResolver, cls: str) -> list[str]:
    """A class's superclass (first) and interfaces, or an interface's, where they are the project's."""
    if cls not in resolver.java.supertypes:
        row = resolver.symbol(cls)
        found: list[str] = []
        signature = GENERIC.sub("", row["signature"] or "") if row is not None else ""
        for clause in _SUPERTYPES.findall(signature):
            for written in clause.split(","):
                named = java_type(resolver, str(row["path"]) if row is not None else "", written.strip().rstrip("{"))
                if named not in (None, OUTSIDE) and named != cls:
                    found.append(str(named))
        resolver.java.supertypes[cls] = found
    return resolver.java.supertypes[cls]


def ancestors(resolver: CallResolver, cls: str) -> list[str]:
    """Every supertype of the project's, nearest first (superclasses before the interfaces), each once."""
    out: list[str] = []
    frontier = supertypes(resolver, cls)
    while frontier:
        current, frontier = frontier[0], frontier[1:]
        if current not in out and current != cls:
            out.append(current)
            frontier = [*frontier, *supertypes(resolver, current)]
    return out


def declaring(resolver: CallResolver, cls: str, name: str) -> str | None:
    """The class a call of `name` on a value of `cls` runs the method of: the nearest declaring it, up from cls."""
    key = (cls, name)
    if key not in resolver.java.declaring:
        resolver.java.declaring[key] = next(
            (c for c in [cls, *ancestors(resolver, cls)] if _declares(resolver, c, name)), None
        )
    return resolver.java.declaring[key]


# Object's methods and Comparable's, which the JDK calls on any value (a HashMap, println, string concatenation, a
# sort), with no call in the project naming them.
OBJECT_METHODS = frozenset({"equals", "hashCode", "toString", "compareTo"})


def called_from_outside(resolver: CallResolver, method: SymbolRow) -> bool:
    """Whether the JDK or another library calls the method rather than the project: it overrides a method none of its
    class's supertypes in the project declares (`@Override public int size()` of a List, `write` of a Writer), or is
    one of Object's. Its callers are then whoever makes its class, as Python's are for `__len__`."""
    name, parent = str(method["name"]), method["parent"]
    if parent is None or not is_java(str(method["path"])):
        return False
    if name in OBJECT_METHODS:
        return True
    if "@Override" not in (method["decorators"] or []):
        return False
    return not any(_declares(resolver, c, name) for c in overridable_types(resolver, method))


def overridable_types(resolver: CallResolver, method: SymbolRow | sqlite3.Row) -> list[str]:
    """The project's types whose methods the method may override, nearest first: its class's ancestors, or for a
    method of an anonymous class, the type the class is made of and that type's ancestors."""
    parent = resolver.symbol(method["parent"])
    if parent is None:
        return []
    if parent["kind"] not in ("method", "constructor"):
        return ancestors(resolver, str(parent["id"]))
    made = anonymous_class_type(resolver, method)
    return [made, *ancestors(resolver, made)] if made is not None and made != OUTSIDE else []


def anonymous_class_type(resolver: CallResolver, method: SymbolRow | sqlite3.Row) -> str | None:
    """For a method of an anonymous class (the index holds it under the method writing `new TypeAdapterFactory() {
    ...}`), the type the class is made of: the class the writing method makes last at or before the method's first
    line (a class's id, OUTSIDE for a library's, `Runnable`; None where no call says)."""
    row = resolver.conn.execute("SELECT path, start_line FROM symbols WHERE id = ?", (method["id"],)).fetchone()
    if row is None or not row["start_line"]:
        return None
    made = resolver.conn.execute(
        "SELECT name FROM calls WHERE path = ? AND caller = ? AND line <= ? ORDER BY line DESC LIMIT 3",
        (row["path"], method["parent"], row["start_line"]),
    )
    name = next((str(r["name"]) for r in made if str(r["name"])[:1].isupper()), None)
    return java_type(resolver, str(row["path"]), name) if name is not None else None


def _declares(resolver: CallResolver, cls: str, name: str) -> bool:
    return bool(overloads(resolver, cls, name))


def overloads(resolver: CallResolver, cls: str, name: str) -> list[str]:
    """The methods of that name a class declares (`toJson`, `toJson#2`, ...), in their order."""
    row = resolver.symbol(cls)
    if row is None:
        return []
    members = resolver.symbols_of(row["path"])
    first = members.get(f"{row['qualname']}.{name}")
    if first is None or first["kind"] != "method":
        return []
    ids = [str(first["id"])]
    while (more := members.get(f"{first['id'].partition('::')[2]}#{len(ids) + 1}")) is not None:
        ids.append(str(more["id"]))
    return ids


def parameters(resolver: CallResolver, method: str) -> list[str]:
    """A method's parameters' types as written (`Type` of `final Type name`)."""
    return [written for written, _ in parameter_list(resolver, method)]


def parameter_list(resolver: CallResolver, method: str) -> list[tuple[str, str]]:
    if method not in resolver.java.parameters:
        row = resolver.conn.execute("SELECT params FROM symbols WHERE id = ?", (method,)).fetchone()
        resolver.java.parameters[method] = _params(row["params"] if row is not None else None)
    return resolver.java.parameters[method]


def _params(stored: str | None) -> list[tuple[str, str]]:
    """A method's parameters as (type, name): `["final JsonReader in", "Object... args"]` (JsonReader, in) and
    (Object..., args)."""
    out = []
    for param in stored_list(stored):
        text = ANNOTATION.sub("", str(param)).replace("final ", "").strip()
        written, _, name = text.rpartition(" ")
        if written and IDENTIFIER.match(name):
            out.append((written.strip(), name))
    return out


def simple(written: str) -> str:
    """A type's simple name as written: `java.util.List<String>` List, `String...` String[]."""
    text = GENERIC.sub("", ANNOTATION.sub("", written)).replace("...", "[]").strip()
    return text.rpartition(".")[2]
