"""Java's rules for what a call runs, which the call graph (store/callgraph.py) follows for Java files.

Java declares the type of every value a call is made on: a field (`private final List<Factory> factories`), a
parameter, a local (indexer/parsing/javafields.py), or the class itself for a static call (`Streams.write(...)`).
A call on a value of one of the project's classes runs the method that class declares or inherits, the nearest up
its superclasses and interfaces (what javac writes in the bytecode); a bare call (`read(in)`), the calling class's
own, or that of a class it is nested in. A call on a value of a library's type (`List`, `String`) runs the
library's method, never the project's. Where the index does not know the value's type (a call's result, a chain,
a type variable), the rules by name that every language without these rules has still apply (AS_BEFORE).
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .db import stored_list
from .symbol import RESOLVER_COLUMNS

if TYPE_CHECKING:
    from .resolver import CallResolver
    from .symbol import SymbolRow

AS_BEFORE = "as before"  # the value's type is not known: the rules by name decide
CLASSES = ("class", "interface", "enum", "record")
_GENERIC = re.compile(r"<.*>", re.S)
_ANNOTATION = re.compile(r"@[\w.]+(?:\([^)]*\))?\s*")
_TYPE_VARIABLE = re.compile(r"^[A-Z][A-Z0-9]?$")  # `T`, `E`, `K2`: a type parameter, bound to any class
_IDENTIFIER = re.compile(r"^[A-Za-z_$][\w$]*$")
_SUPERTYPES = re.compile(r"\b(?:extends|implements)\s+(.*?)(?=\bimplements\b|\bpermits\b|$)", re.S)
_OUTSIDE = "outside"  # a type no class of the project is


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


def java_basis(
    resolver: CallResolver,
    path: str,
    caller: str | None,
    qualifier: str | None,
    symbol: SymbolRow | sqlite3.Row,
    arguments: str | None,
) -> str | None:
    """The basis of a call of the method's name in the Java file `path`, made in `caller` with `arguments` (as the
    calls projection keeps them): a resolved one where the value's type says it runs this method (one of the
    overloads its arguments fit), `override` where it runs one this method overrides, None where it says another
    method runs (or a library's), AS_BEFORE where the type is not known."""
    runs = java_targets(resolver, path, caller, qualifier, symbol["name"], arguments)
    if runs is None:
        return AS_BEFORE if qualifier is None else "name only"  # a value of a type the index does not know
    if symbol["id"] in runs:
        return "same file" if symbol["path"] == path else "method"
    return "override" if runs and _overrides(resolver, symbol, runs) else None


def _overrides(resolver: CallResolver, symbol: SymbolRow | sqlite3.Row, runs: list[str]) -> bool:
    """Whether the method overrides one a call runs (on a value of a class it extends or an interface it implements,
    of the project's): the call may run it, as the value may be of its class. A library's method it overrides
    (`toString`, `compare`) is left out: every value of the library's type would call each override."""
    owner = symbol["parent"]
    if owner is None:
        return False
    above = ancestors(resolver, owner)
    taken = [_simple(p) for p in _parameters(resolver, symbol["id"])]
    return any(
        (row := resolver.symbol(run)) is not None
        and row["parent"] in above
        and [_simple(p) for p in _parameters(resolver, run)] == taken
        for run in runs
    )


def java_callee(resolver: CallResolver, path: str, call: sqlite3.Row) -> tuple[str | None, str] | None:
    """What a call in the Java file `path` runs (the first of the overloads its arguments fit): (None, "external") for
    a library's method, None where the type is not known."""
    runs = java_targets(resolver, path, call["caller"], call["qualifier"], call["name"], call["arguments"])
    if runs is None:
        return None
    if not runs:
        return None, "external"
    target = resolver.symbol(runs[0])
    return runs[0], "same file" if target is not None and target["path"] == path else "method"


def java_targets(
    resolver: CallResolver, path: str, caller: str | None, qualifier: str | None, name: str, arguments: str | None
) -> list[str] | None:
    """The ids of the method a call of `name` runs: of the nearest class declaring it up from the class of the value
    it is called on, the overloads its arguments fit (overloads.py); [] for a library's; None where the index does
    not know the value's type."""
    key = (path, caller, qualifier, name, arguments)
    if key not in resolver.java.targets:
        resolver.java.targets[key] = _read_targets(resolver, path, caller, qualifier, name, arguments)
    return resolver.java.targets[key]


def _read_targets(
    resolver: CallResolver, path: str, caller: str | None, qualifier: str | None, name: str, arguments: str | None
) -> list[str] | None:
    calling = _calling_class(resolver, caller)
    if qualifier is None and (sibling := _sibling(resolver, caller, name)) is not None:
        return [sibling]
    receivers = _receivers(resolver, path, caller, calling, qualifier) if calling is not None else None
    if receivers is None:
        return None
    for receiver in receivers:
        if _declaring(resolver, receiver, name) is not None:
            overloads = _inherited_overloads(resolver, receiver, name)
            if len(overloads) < 2 or arguments is None:
                return overloads
            return fitting(resolver, calling, caller, overloads, [str(a) for a in stored_list(arguments)])
    # none of ours declares it: a library's (a superclass of a library's, `Object`'s), or by a bare name a static
    # import's, which the rules by name find
    return [] if qualifier is not None else None


def _sibling(resolver: CallResolver, caller: str | None, name: str) -> str | None:
    """In a method of an anonymous class (`new TypeAdapter<T>() { ... }`, whose methods the index holds under the
    method writing it), another of that class's methods of the name: what a bare call of it runs."""
    row = resolver.symbol(caller)
    holder = resolver.symbol(row["parent"]) if row is not None else None
    if holder is None or holder["kind"] != "method":
        return None
    found = resolver.symbols_of(holder["path"]).get(f"{holder['qualname']}.{name}")
    return str(found["id"]) if found is not None and found["kind"] == "method" else None


def _calling_class(resolver: CallResolver, caller: str | None) -> sqlite3.Row | None:
    """The innermost class holding the calling method (or field initializer)."""
    current = resolver.symbol(caller)
    while current is not None and current["kind"] not in CLASSES:
        current = resolver.symbol(current["parent"])
    return current


def _receivers(
    resolver: CallResolver, path: str, caller: str | None, calling: sqlite3.Row, qualifier: str | None
) -> list[str] | None:
    """The classes of ours a call may be dispatched on, in the order Java looks (a bare call: the calling class, then
    each class it is nested in); [] for a library's value; None where the index does not know."""
    if qualifier is None:
        out = [calling["id"]]
        outer = resolver.symbol(calling["parent"])
        while outer is not None and outer["kind"] in CLASSES:  # an inner class calls its outer classes' methods
            out.append(outer["id"])
            outer = resolver.symbol(outer["parent"])
        return out
    if qualifier == "super":
        return supertypes(resolver, calling["id"])[:1] or None
    found = expression_type(resolver, path, caller, calling, qualifier)
    if found is None:
        return None
    return [found] if _IS_CLASS in found else []


_IS_CLASS = "::"  # in a type expression_type gives: one of the project's classes (its id), not a simple name
_MAX_STEPS = 6  # `a.b().c.d()`: the steps a qualifier is read through


def expression_type(
    resolver: CallResolver, path: str, caller: str | None, calling: sqlite3.Row | None, text: str
) -> str | None:
    """The type of a Java expression as written where the call is: the id of one of the project's classes, or the
    simple name of another type (`String`, `int`, `List`), or None where the index cannot tell. It reads a literal,
    `this`, `Outer.this`, `X.class`, `new T(...)`, a cast, a name (a local, a parameter, a field, a class), and from
    there a chain of fields and calls (`TypeAdapters.JSON_ELEMENT`, `reader.peek()`: by what its method returns)."""
    text = text.strip()
    if (cast := _CAST.match(text)) is not None:  # `(TypeElement) t.asElement()`: the cast is of all that follows
        return _resolved(resolver, path, cast.group(1))
    if "->" in text or "::" in text:
        return _LAMBDA if _LAMBDA_TEXT.match(text) else None
    steps = _steps(text)
    if not steps or len(steps) > _MAX_STEPS:
        return None
    current = _first_type(resolver, path, caller, calling, steps[0])
    for step in steps[1:]:
        if step == "class":  # `AtomicLong.class`, any type's
            current = "Class"
            continue
        called = step.partition("(")[0] if step.endswith(")") else None
        if called in _OBJECT_RESULTS and current is not None:  # `x.toString()`, whatever x is
            current = _OBJECT_RESULTS[called]
            continue
        if current == "String" and called in _STRING_RESULTS:  # `String.valueOf(c)`, `name.trim()`
            current = _STRING_RESULTS[called]
            continue
        if current is None or _IS_CLASS not in current:
            return None  # a member of a library's type: what it is the index does not know
        if step == "this":  # `LinkedTreeMap.this`: the outer class itself
            continue
        current = _member_type(resolver, current, step)
    return current


def _first_type(
    resolver: CallResolver, path: str, caller: str | None, calling: sqlite3.Row | None, step: str
) -> str | None:
    for pattern, name in _LITERALS:
        if pattern.match(step):
            return name
    if step == "this":
        return str(calling["id"]) if calling is not None else None
    if (made := _NEW.match(step)) is not None:
        return _resolved(resolver, path, made.group(1)) if made.group(2) is None else "[]"
    if (cast := _CAST.match(step)) is not None:
        return _resolved(resolver, path, cast.group(1))
    if step.startswith("("):  # `(a)`, or a cast this does not read
        inner = step[1:-1] if step.endswith(")") else ""
        return expression_type(resolver, path, caller, calling, inner) if inner else None
    if step.endswith(")"):  # a bare call, `popStack()`: the calling class's method (or an outer one's)
        name = step.partition("(")[0]
        if (sibling := _sibling(resolver, caller, name)) is not None:
            row = resolver.symbol(sibling)
            return _resolved(resolver, row["path"], row["returns"]) if row is not None and row["returns"] else None
        receivers = _receivers(resolver, path, caller, calling, None) if calling is not None else None
        for receiver in receivers or []:
            if (declaring := _declaring(resolver, receiver, name)) is not None:
                return _returned(resolver, declaring, name)
        return None
    if not _IDENTIFIER.match(step):
        return None
    declared = _declared(resolver, caller, calling, step) if calling is not None else None
    if declared is not None:
        return _resolved(resolver, declared[1], declared[0])
    return _resolved(resolver, path, step) if step[:1].isupper() else None  # `Streams`: a class, for its statics


def _member_type(resolver: CallResolver, cls: str, step: str) -> str | None:
    """The type of a field of one of our classes, or of what a method of it returns (`peek()`)."""
    if step.endswith(")"):
        name = step.partition("(")[0]
        declaring = _declaring(resolver, cls, name)
        return _returned(resolver, declaring, name) if declaring is not None else None
    for holder in [cls, *ancestors(resolver, cls)]:
        written = resolver.typed_members(holder).get(step)
        row = resolver.symbol(holder)
        if written is not None and row is not None:
            return _resolved(resolver, row["path"], written)
    return None


def _returned(resolver: CallResolver, cls: str, name: str) -> str | None:
    """The type a method of the class returns, where its overloads all return one (`TypeToken<?>` and
    `TypeToken<T>` are one: TypeToken)."""
    results = {
        _resolved(resolver, row["path"], row["returns"]) if row["returns"] else None
        for method in _overloads(resolver, cls, name)
        if (row := resolver.symbol(method)) is not None
    }
    return results.pop() if len(results) == 1 else None


def _resolved(resolver: CallResolver, where: str, written: str) -> str | None:
    """A type as written in `where`: our class's id, else its simple name (a library's, a primitive); None for a
    type variable or a name the index cannot place."""
    found = java_type(resolver, where, written)
    if found is None:
        return None
    return found if found != _OUTSIDE else _simple(written)


def _steps(text: str) -> list[str]:
    """An expression split at its top-level dots: `a.b(c.d).e` -> a, b(c.d), e; a leading cast or parenthesis is one
    step (`((JsonArray) x).add` -> ((JsonArray) x), add)."""
    steps, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char in "(<[":
            depth += 1
        elif char in ")>]":
            depth -= 1
        elif char == "." and depth == 0:
            steps.append(text[start:i].strip())
            start = i + 1
    steps.append(text[start:].strip())
    return steps if all(steps) and depth == 0 else []


def _declared(resolver: CallResolver, caller: str | None, calling: sqlite3.Row, name: str) -> tuple[str, str] | None:
    """The type a name is declared as where the call is, and the file that declares it: a local or a parameter of the
    calling method, else a field of its class, a class it extends, or a class it is nested in."""
    method = resolver.symbol(caller)
    while method is not None and method["kind"] == "method":  # and a method around an anonymous class's
        local = resolver.typed_members(method["id"]).get(name)
        if local is not None:
            return (local, method["path"]) if " | " not in local else None  # declared twice, with two types
        for written, named in _parameter_list(resolver, method["id"]):
            if named == name:
                return written, method["path"]
        method = resolver.symbol(method["parent"])
    holder: sqlite3.Row | None = calling
    while holder is not None and holder["kind"] in CLASSES:
        for cls in [holder["id"], *ancestors(resolver, holder["id"])]:
            typed = resolver.typed_members(cls).get(name)
            declaring = resolver.symbol(cls)
            if typed is not None and declaring is not None:
                return typed, declaring["path"]
        holder = resolver.symbol(holder["parent"])
    return None


def _params(stored: str | None) -> list[tuple[str, str]]:
    """A method's parameters as (type, name): `["final JsonReader in", "Object... args"]` (JsonReader, in) and
    (Object..., args)."""
    import json

    out = []
    for param in json.loads(stored) if stored else []:
        text = _ANNOTATION.sub("", str(param)).replace("final ", "").strip()
        written, _, name = text.rpartition(" ")
        if written and _IDENTIFIER.match(name):
            out.append((written.strip(), name))
    return out


def java_type(resolver: CallResolver, path: str, written: str) -> str | None:
    """The id of the project's class a type as written in `path` names (`List<Factory>`: none of ours, OUTSIDE; a type
    variable or a name the index cannot place: None). Java finds a simple name among the file's classes, the
    classes it imports by name, its package's (its folder's), and the packages it imports with `*`."""
    key = (path, written)
    if key not in resolver.java.types:
        resolver.java.types[key] = _read_type(resolver, path, written)
    return resolver.java.types[key]


def _read_type(resolver: CallResolver, path: str, written: str) -> str | None:
    text = _GENERIC.sub("", _ANNOTATION.sub("", written)).replace("...", "[]").strip()
    if text.endswith("]"):
        return _OUTSIDE  # an array: its methods are Object's
    outer, _, inner = text.partition(".")
    if inner and outer[:1].isupper():  # `CodeBlock.Builder`: the class nested in CodeBlock, not the file's Builder
        holder = java_type(resolver, path, outer)
        row = resolver.symbol(holder) if holder not in (None, _OUTSIDE) else None
        if row is None:
            return holder
        nested = resolver.symbols_of(row["path"]).get(f"{row['qualname']}.{inner}")
        return str(nested["id"]) if nested is not None and nested["kind"] in CLASSES else None
    name = text.rpartition(".")[2]
    if not _IDENTIFIER.match(name) or _TYPE_VARIABLE.match(name):
        return None
    classes = _classes_named(resolver, name)
    own = [c for c in classes if c["path"] == path]
    if own:
        return str(own[0]["id"])
    imports = resolver.imports_of(path)
    for imp in imports:
        if imp["target"] and imp["module"].rpartition(".")[2] == name:
            found = [c for c in classes if c["path"] == imp["target"]]
            return str(found[0]["id"]) if found else _OUTSIDE
    folder = path.rpartition("/")[0]
    same_package = [c for c in classes if c["path"].rpartition("/")[0] == folder and "." not in c["qualname"]]
    if same_package:
        return str(same_package[0]["id"])
    starred = {imp["target"].rpartition("/")[0] for imp in imports if imp["target"] and imp["names"] == '["*"]'}
    through_star = [c for c in classes if c["path"].rpartition("/")[0] in starred and "." not in c["qualname"]]
    if through_star:
        return str(through_star[0]["id"])
    if any(imp["module"].rpartition(".")[2] == name for imp in imports):
        return _OUTSIDE  # imported from a library
    return _OUTSIDE if not classes else None  # java.lang's, or a library's through `*`; ours we cannot place


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
        signature = _GENERIC.sub("", row["signature"] or "") if row is not None else ""
        for clause in _SUPERTYPES.findall(signature):
            for written in clause.split(","):
                named = java_type(resolver, str(row["path"]) if row is not None else "", written.strip().rstrip("{"))
                if named not in (None, _OUTSIDE) and named != cls:
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


def _declaring(resolver: CallResolver, cls: str, name: str) -> str | None:
    """The class a call of `name` on a value of `cls` runs the method of: the nearest declaring it, up from cls."""
    key = (cls, name)
    if key not in resolver.java.declaring:
        resolver.java.declaring[key] = next(
            (c for c in [cls, *ancestors(resolver, cls)] if _declares(resolver, c, name)), None
        )
    return resolver.java.declaring[key]


def _declares(resolver: CallResolver, cls: str, name: str) -> bool:
    return bool(_overloads(resolver, cls, name))


def _overloads(resolver: CallResolver, cls: str, name: str) -> list[str]:
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


_LITERALS = (
    (re.compile(r'^"'), "String"),
    (re.compile(r"^'"), "char"),
    (re.compile(r"^-?\d+[lL]$"), "long"),
    (re.compile(r"^-?\d*\.\d+[dD]?$|^-?\d+[dD]$"), "double"),
    (re.compile(r"^-?\d*\.?\d+[fF]$"), "float"),
    (re.compile(r"^-?\d+$"), "int"),
    (re.compile(r"^(?:true|false)$"), "boolean"),
)
_NEW = re.compile(r"^new\s+([\w.]+)\s*(?:<[^()]*>)?\s*(\[)?")  # `new Foo<>(x)`; `new Foo[2]`, an array
_CAST = re.compile(r"^\(\s*([\w.]+(?:<[^()]*>)?(?:\[\])*)\s*\)\s*[\w(\"']")  # `(JsonArray) current`


def fitting(
    resolver: CallResolver, calling: sqlite3.Row | None, caller: str | None, overloads: list[str], given: list[str]
) -> list[str]:
    """Of the overloads a name has on a class, those a call passing `given` (its arguments as written) may be, as
    Java chooses: the ones taking that many arguments (a `...` parameter, any more), then the most specific of them
    for the arguments whose type the call says (a literal, `new T(...)`, a cast, a name declared where the call is, a
    field or a method's result): a parameter of the argument's own type fits best, then one of a type it extends or
    converts to (`int` to `long` or `Integer`), then `Object`; a parameter of another type does not fit at all."""
    counted = [o for o in overloads if _takes(_parameters(resolver, o), len(given))]
    if len(counted) < 2:
        return counted or overloads
    where = calling["path"] if calling is not None else ""
    known = [expression_type(resolver, where, caller, calling, a) for a in given]
    if not any(known):
        return counted
    scored = [(score, o) for o in counted if (score := _specificity(resolver, o, known)) is not None]
    best = max((score for score, _ in scored), default=None)
    return [o for score, o in scored if score == best] or counted


def _specificity(resolver: CallResolver, method: str, known: list[str | None]) -> float | None:
    """How well a method's parameters fit the arguments' types (None: one does not fit)."""
    row = resolver.symbol(method)
    where = str(row["path"]) if row is not None else ""
    total = 0.0
    for parameter, argument in zip(_parameters(resolver, method), known, strict=False):
        if argument is None:
            continue
        taken = _resolved(resolver, where, parameter.replace("...", "[]"))
        fit = _fit(resolver, taken, argument)
        if fit is None:
            return None
        total += fit
    return total


def _fit(resolver: CallResolver, parameter: str | None, argument: str) -> float | None:
    """2 for a parameter of the argument's type, 1 for a type it extends or converts to, 0 for Object or a type the
    index cannot tell, None for another type."""
    if parameter is None or parameter == "Object":
        return 0.0
    if argument == _LAMBDA:  # `() -> value`: a functional interface's
        return None if parameter in _FINAL or parameter in _PRIMITIVES or parameter.endswith("]") else 1.0
    if parameter in _FINAL and parameter != argument and _BOXED.get(parameter) != argument:
        return None  # no other type extends String or Integer
    if parameter == argument or _BOXED.get(parameter) == argument or _BOXED.get(argument) == parameter:
        return 2.0 if parameter == argument else 1.0
    if _IS_CLASS in argument:
        if parameter in ancestors(resolver, argument):
            return 1.0
        return None if _IS_CLASS in parameter else 0.0  # a library's interface it may implement
    if argument in _WIDER and parameter in _WIDER[argument]:
        return 1.0
    if _IS_CLASS in parameter or parameter in _PRIMITIVES or argument in _PRIMITIVES or argument == "String":
        return None
    return 0.0  # two library types: which extends which, the index does not know


_PRIMITIVES = frozenset({"int", "long", "double", "float", "boolean", "char", "short", "byte"})
_LAMBDA = "->"  # what expression_type gives a lambda or a method reference
_LAMBDA_TEXT = re.compile(r"^(?:\(?[\w\s,]*\)?\s*->|[\w.]+::\w+$)")  # `() -> v`, `x -> ...`, `String::valueOf`
# Tried and not kept (2026-12-05): what a JDK collection's method gives of the type it is declared to hold
# (`options.get(i)` of a `List<Option>` an Option, a Map's values): facts_calls_java resolved dev recall .974 -> .975,
# but with the guesses precision dev .961 -> .959 and hold-out .961 -> .955.
# What the JDK's methods every value has, and String's, return
_OBJECT_RESULTS = {"toString": "String", "hashCode": "int", "equals": "boolean", "getClass": "Class"}
_STRING_RESULTS = {
    **dict.fromkeys(
        "valueOf format join trim strip substring toLowerCase toUpperCase replace concat".split(), "String"
    ),
    **dict.fromkeys("isEmpty isBlank startsWith endsWith contains equalsIgnoreCase matches".split(), "boolean"),
    "length": "int",
    "indexOf": "int",
    "charAt": "char",
}
_FINAL = frozenset({"String", "Integer", "Long", "Double", "Float", "Boolean", "Character", "Short", "Byte", "Class"})
_WIDER = {"int": {"long", "float", "double"}, "long": {"float", "double"}, "float": {"double"}, "char": {"int"}}
_BOXED = {
    "Integer": "int",
    "Long": "long",
    "Double": "double",
    "Float": "float",
    "Boolean": "boolean",
    "Character": "char",
    "Short": "short",
    "Byte": "byte",
}


def _parameters(resolver: CallResolver, method: str) -> list[str]:
    """A method's parameters' types as written (`Type` of `final Type name`)."""
    return [written for written, _ in _parameter_list(resolver, method)]


def _parameter_list(resolver: CallResolver, method: str) -> list[tuple[str, str]]:
    if method not in resolver.java.parameters:
        row = resolver.conn.execute("SELECT params FROM symbols WHERE id = ?", (method,)).fetchone()
        resolver.java.parameters[method] = _params(row["params"] if row is not None else None)
    return resolver.java.parameters[method]


def _takes(parameters: list[str], count: int) -> bool:
    """Whether a method of these parameters takes that many arguments (`String... names`: any more)."""
    if parameters and parameters[-1].endswith("..."):
        return count >= len(parameters) - 1
    return len(parameters) == count


def _inherited_overloads(resolver: CallResolver, cls: str, name: str) -> list[str]:
    """The methods of that name a class has, its own and those it inherits, nearest first, one of each parameter
    list (an override hides what it overrides)."""
    out: list[str] = []
    seen: set[tuple[str, ...]] = set()
    for holder in [cls, *ancestors(resolver, cls)]:
        for method in _overloads(resolver, holder, name):
            taken = tuple(_simple(p) for p in _parameters(resolver, method))
            if taken not in seen:
                seen.add(taken)
                out.append(method)
    return out


def _simple(written: str) -> str:
    """A type's simple name as written: `java.util.List<String>` List, `String...` String[]."""
    text = _GENERIC.sub("", _ANNOTATION.sub("", written)).replace("...", "[]").strip()
    return text.rpartition(".")[2]
