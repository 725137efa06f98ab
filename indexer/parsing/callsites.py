"""A file's call sites as the call graph reads them: each call's name, what qualifies it, its line, the definition
it is made in and, where the language has refs (callrefs.py, gorefs.py, jsrefs.py), its ref; one row per call
of a name from a caller (extract.py assembles them with the file's other facts).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from typing import Any, Protocol, TypeVar

from tree_sitter import Node

from ...store.refs import TEMPLATE, called_name
from . import fallback
from .parse import node_text

QUALIFIER_LIMIT = 120
_STATEMENTS = frozenset({"for_statement", "for_in_clause", "with_item"})  # Python's: they call dunder methods


class Caller(Protocol):  # nesting.Def, as far as a call site needs it
    @property
    def node(self) -> Node: ...

    @property
    def outer(self) -> Node: ...

    @property
    def id(self) -> str: ...

    @property
    def parent(self) -> Caller | None: ...


class _Spanned(Protocol):
    @property
    def outer(self) -> Node: ...


_Held = TypeVar("_Held", bound=_Spanned)


class CallRefs(Protocol):
    """What a language's refs give `extract` (callrefs.py, gorefs.py, jsrefs.py): each call's ref, and the calls
    without call syntax (a decorator, a function handed on as a value) with where each runs."""

    def ref(self, call: Node, caller: Any, /) -> str | None: ...

    def implicit_calls(self) -> list[tuple[Node, Any, str]]: ...

    def declared_fields(self) -> list[tuple[str, str, str]]: ...


def fallback_call(node: Node, source: bytes) -> dict[str, list[Node]]:
    """The captures a query would give: the call, its name, its qualifier; no name for a `def` form."""
    parts = fallback.call_parts(node, source)
    if parts is None or source[parts[0].start_byte : parts[0].start_byte + 3] == b"def":
        return {}
    name, qualifier = parts
    return {"reference.call": [node], "name": [name], **({"qualifier": [qualifier]} if qualifier else {})}


def innermost(defs: Sequence[_Held], starts: list[int], byte: int) -> _Held | None:
    """The innermost definition whose span holds the byte (`starts`: the definitions' starts, in order)."""
    i = bisect.bisect_right(starts, byte) - 1
    while i >= 0:
        d = defs[i]
        if d.outer.start_byte <= byte < d.outer.end_byte:
            return d
        i -= 1
    return None


def caller_at(defs: Sequence[Caller], starts: list[int], byte: int) -> Caller | None:
    """The definition a call at the byte is made in: the innermost whose body holds it (`@command()` runs where
    the definition is, not inside it)."""
    caller = innermost(defs, starts, byte)
    while caller is not None and not caller.node.start_byte <= byte < caller.node.end_byte:
        caller = caller.parent
    return caller


def numbered(read: list[tuple[Node, list[dict[str, Any]]]]) -> list[tuple[Node, list[dict[str, Any]], int]]:
    """Each import statement with its records and the ordinal of its first record in the file's imports."""
    out, first = [], 0
    for node, records in read:
        out.append((node, records, first))
        first += len(records)
    return out


def call_site(
    caps: dict[str, list[Node]],
    source: bytes,
    defs: Sequence[Caller],
    starts: list[int],
    refs: CallRefs | None = None,
) -> dict[str, Any]:
    name = caps["name"][0]
    qualifier_node = caps.get("qualifier")
    qualifier = " ".join(node_text(qualifier_node[0], source, QUALIFIER_LIMIT).split()) if qualifier_node else None
    called = _without_template_arguments(node_text(name, source, 200))
    if "::" in called:  # `std::fs::read()`, `Self::new()`: the path is the qualifier
        path, _, called = called.rpartition("::")
        qualifier = f"{qualifier}.{path}" if qualifier else path
    caller = caller_at(defs, starts, caps["reference.call"][0].start_byte)
    ref = refs.ref(caps["reference.call"][0], caller) if refs is not None else None
    return {
        "caller": caller.id if caller else None,
        "name": called,
        "qualifier": qualifier,
        "line": name.start_point[0] + 1,
        "ref": ref,
    }


def _without_template_arguments(called: str) -> str:
    """A function's name as its definition has it: C++'s `set_value_integer<unsigned int>` calls set_value_integer (and
    `get<ns::T>`'s `::` is no qualifier). Rust's `collect::<Vec<_>>` keeps its own form."""
    if not called.endswith(">") or "<" not in called:
        return called
    depth = 0
    for at in range(len(called) - 1, -1, -1):
        depth += {">": 1, "<": -1}.get(called[at], 0)
        if depth == 0:
            base = called[:at].rstrip()
            return base if base[-1:].isalnum() or base[-1:] == "_" else called
    return called


def implicit_call(node: Node, where: Any, ref: str, source: bytes) -> dict[str, Any]:
    """A call without call syntax (`@decorator`, `raise Error`, a function handed on as a value), as the call it is."""
    member = node.type in ("attribute", "selector_expression", "member_expression")  # Python's `a.b`, Go's, JS's
    qualifier_node = (node.child_by_field_name("object") or node.child_by_field_name("operand")) if member else None
    fields = ("attribute", "field", "property")  # the member's name in Python's, Go's and JavaScript's grammars
    name_node = next((n for f in fields if (n := node.child_by_field_name(f)) is not None), None) if member else node
    qualifier = " ".join(node_text(qualifier_node, source, QUALIFIER_LIMIT).split()) if qualifier_node else None
    # `table[k]()` and `f()()` have no name: the expression stands in, and no symbol is named like it; a
    # statement (`for x in C()`, a `with` item) is named by what it calls (`__iter__`), a command line's word by
    # the command it names (`pack`), and a template's name (`"emails/%s-subject.html" % name`) by the template's
    named_by_ref = node.type in _STATEMENTS or node.type == "string" or ref.startswith(f"{TEMPLATE}:")
    name = called_name(ref) if named_by_ref else " ".join(node_text(name_node or node, source, 200).split())
    return {
        "caller": where.id if where is not None else None,
        "name": name,
        "qualifier": qualifier,
        "line": node.start_point[0] + 1,
        "ref": ref,
    }


def unique_calls(calls: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per (caller, qualifier, name) and what it calls, at the first line it is called on, with every line
    (`lines`) where it is called more than once: a change to what it calls changes each of them, and an agent told of
    the first alone edits that one. A name bound to two functions in two closures of one caller (`makeRequest`
    declared in two tests' callbacks) is two edges, and so are C++ calls of a name with other arguments (another
    overload)."""
    seen: dict[tuple[Any, ...], dict[str, Any]] = {}
    for call in calls:
        arguments = call.get("arguments")
        key = (call["caller"], call["qualifier"], call["name"], call["ref"], tuple(arguments or ()), arguments is None)
        first = seen.setdefault(key, call)
        if first is not call:
            first.setdefault("lines", [first["line"]]).append(call["line"])
    for call in seen.values():
        if "lines" in call:  # found out of order too: an operator's call (rustimplicit) after the spelled ones
            lines = sorted(set(call.pop("lines")))
            call["line"] = lines[0]
            if len(lines) > 1:  # two calls on one line are one site
                call["lines"] = lines
    return list(seen.values())
