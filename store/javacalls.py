"""Java's rules for what a call runs, which the call graph (store/callgraph.py) follows for Java files.

Java declares the type of every value a call is made on: a field (`private final List<Factory> factories`), a
parameter, a local (indexer/parsing/javafields.py), or the class itself for a static call (`Streams.write(...)`).
A call on a value of one of the project's classes runs the method that class declares or inherits, the nearest up
its superclasses and interfaces (what javac writes in the bytecode; store/javatypes.py), of its overloads the one
its arguments fit (store/javaoverloads.py); a bare call (`read(in)`), the calling class's own, or that of a class
it is nested in. A call on a value of a library's type (`List`, `String`) runs the library's method, never the
project's. Where the index does not know the value's type (a call's result, a chain, a type variable), the call
is a guess by name (AS_BEFORE for a bare name: the rules by name decide).
"""

from __future__ import annotations

import re
import sqlite3
from typing import TYPE_CHECKING

from .db import stored_list
from .javaoverloads import LAMBDA, fitting, inherited_overloads
from .javatypes import (
    CLASSES,
    IDENTIFIER,
    IS_CLASS,
    ancestors,
    declaring,
    overloads,
    overridable_types,
    parameter_list,
    parameters,
    resolved,
    simple,
    supertypes,
)

if TYPE_CHECKING:
    from .resolver import CallResolver
    from .symbol import SymbolRow

AS_BEFORE = "as before"  # the value's type is not known: the rules by name decide


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
    above = overridable_types(resolver, symbol)
    taken = [simple(p) for p in parameters(resolver, symbol["id"])]
    return any(
        (row := resolver.symbol(run)) is not None
        and row["parent"] in above
        and [simple(p) for p in parameters(resolver, run)] == taken
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
    where = calling["path"] if calling is not None else ""

    def type_of(argument: str) -> str | None:
        return expression_type(resolver, where, caller, calling, argument)

    for receiver in receivers:
        if declaring(resolver, receiver, name) is not None:
            found = inherited_overloads(resolver, receiver, name)
            if len(found) < 2 or arguments is None:
                return found
            return fitting(resolver, found, [str(a) for a in stored_list(arguments)], type_of)
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
    return [found] if IS_CLASS in found else []


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
        return resolved(resolver, path, cast.group(1))
    if "->" in text or "::" in text:
        return LAMBDA if _LAMBDA_TEXT.match(text) else None
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
        if current is None or IS_CLASS not in current:
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
        return resolved(resolver, path, made.group(1)) if made.group(2) is None else "[]"
    if (cast := _CAST.match(step)) is not None:
        return resolved(resolver, path, cast.group(1))
    if step.startswith("("):  # `(a)`, or a cast this does not read
        inner = step[1:-1] if step.endswith(")") else ""
        return expression_type(resolver, path, caller, calling, inner) if inner else None
    if step.endswith(")"):  # a bare call, `popStack()`: the calling class's method (or an outer one's)
        name = step.partition("(")[0]
        if (sibling := _sibling(resolver, caller, name)) is not None:
            row = resolver.symbol(sibling)
            return resolved(resolver, row["path"], row["returns"]) if row is not None and row["returns"] else None
        receivers = _receivers(resolver, path, caller, calling, None) if calling is not None else None
        for receiver in receivers or []:
            if (holder := declaring(resolver, receiver, name)) is not None:
                return _returned(resolver, holder, name)
        return None
    if not IDENTIFIER.match(step):
        return None
    declared = _declared(resolver, caller, calling, step) if calling is not None else None
    if declared is not None:
        return resolved(resolver, declared[1], declared[0])
    return resolved(resolver, path, step) if step[:1].isupper() else None  # `Streams`: a class, for its statics


def _member_type(resolver: CallResolver, cls: str, step: str) -> str | None:
    """The type of a field of one of our classes, or of what a method of it returns (`peek()`)."""
    if step.endswith(")"):
        name = step.partition("(")[0]
        holder = declaring(resolver, cls, name)
        return _returned(resolver, holder, name) if holder is not None else None
    for holder in [cls, *ancestors(resolver, cls)]:
        written = resolver.typed_members(holder).get(step)
        row = resolver.symbol(holder)
        if written is not None and row is not None:
            return resolved(resolver, row["path"], written)
    return None


def _returned(resolver: CallResolver, cls: str, name: str) -> str | None:
    """The type a method of the class returns, where its overloads all return one (`TypeToken<?>` and
    `TypeToken<T>` are one: TypeToken)."""
    results = {
        resolved(resolver, row["path"], row["returns"]) if row["returns"] else None
        for method in overloads(resolver, cls, name)
        if (row := resolver.symbol(method)) is not None
    }
    return results.pop() if len(results) == 1 else None


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
        for written, named in parameter_list(resolver, method["id"]):
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
