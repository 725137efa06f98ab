"""A file's definitions as its query finds them, nested: ordered by position, each linked to the definition enclosing
it (or owning it, a method written outside its type: `func (p Point) M()`, `void Foo::m()`), named by its qualified
name and given its id (`path::qualname`, `#2` after it for a second definition of the name); a prototype or an
overload stub gives way to the definition with a body (extract.py reads the rest).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tree_sitter import Node

from . import fallback
from .nodes import decorators
from .parse import QUERY_LANGUAGES

CLASS_LIKE = frozenset(
    {
        "class",
        "struct",
        "interface",
        "trait",
        "impl",
        "enum",
        "object",
        "module",
        "protocol",
        "record",
        "union",
        "namespace",
        "mixin",
    }
)
# A function directly in one of these is a method; in a namespace or (except in Ruby) a module it is not.
_METHOD_HOSTS = CLASS_LIKE - {"namespace", "module"}
_LINKED_OWNERS = CLASS_LIKE | {"type"}  # what `func (p Point) M()` or `void Foo::m()` may belong to


@dataclass
class Def:
    """A definition the file's query found, as it is nested and named here."""

    node: Node  # the definition itself
    outer: Node  # the span we report: the definition plus its decorators (and the attributes before it)
    name: str
    kind: str
    scope: str | None = None
    parent: Def | None = None
    qualname: str = ""
    id: str = ""
    name_node: Node | None = None  # left out of the signature hash, so a rename alone is no signature change
    head: Node | None = None  # where the signature text starts (`const f =` before an arrow function)
    private: bool = False  # said so by its form (`defp`), whatever the language's rules
    member_prefix: str = ""  # what its members' qualified names start with (an impl's: its type)
    trait: str | None = None  # the trait an impl implements
    declaration: Def | None = None  # the prototype that gave way to it: C++ visibility is said there
    overloads: list[Def] = field(default_factory=list)  # `@typing.overload` stubs folded into it


def without_holders(defs: dict[int, Def]) -> list[Def]:
    """`export const f = () => {}` is the function f, not also a constant f holding it."""
    for d in list(defs.values()):
        holder = d.node.parent
        while holder is not None and holder.id not in defs and holder.type in ("lexical_declaration",):
            holder = holder.parent
        if (
            holder is not None
            and holder.id in defs
            and defs[holder.id].name == d.name
            and defs[holder.id].kind in ("const", "variable")
        ):
            del defs[holder.id]
    return list(defs.values())


def nest(defs: list[Def], path: str, lang: str, source: bytes) -> list[Def]:
    """Order definitions by position, link each to its enclosing one, name them."""
    defs.sort(key=lambda d: (d.outer.start_byte, -d.outer.end_byte))
    stack: list[Def] = []
    kept: list[Def] = []
    hosts = _METHOD_HOSTS | {"module"} if lang == "ruby" else _METHOD_HOSTS
    for d in defs:
        while stack and not (
            stack[-1].outer.start_byte <= d.outer.start_byte and d.outer.end_byte <= stack[-1].outer.end_byte
        ):
            stack.pop()
        enclosing = stack[-1] if stack else None
        # `typedef struct point {...} point_t;`: the struct is the typedef's sibling, not its member.
        while enclosing is not None and _is_type_of(enclosing.node, d.node):
            enclosing = enclosing.parent
        if enclosing is not None and (
            fallback.is_local(d.kind, enclosing.kind)
            or (lang not in QUERY_LANGUAGES and fallback.is_repeat(d.name, d.kind, enclosing.name, enclosing.kind))
        ):
            continue  # a local variable; a fallback grammar's header node inside its own definition
        d.parent = enclosing
        prefix = enclosing.member_prefix if enclosing else ""
        if d.scope:  # `Shape::area` inside `namespace geo` is geo.Shape.area, and so is `geo::Shape::area`
            prefix = (
                d.scope
                if not prefix or d.scope == prefix or d.scope.startswith(prefix + ".")
                else f"{prefix}.{d.scope}"
            )
        if d.kind == "function" and enclosing is not None and enclosing.kind in hosts:
            d.kind = "method"
        d.qualname = f"{prefix}.{d.name}" if prefix else d.name
        d.member_prefix = d.qualname
        if d.kind == "impl":  # `impl Area for Point` is no second Point; its methods are Point's
            label = f"impl {d.trait} for {d.name}" if d.trait else f"impl {d.name}"
            d.qualname = f"{prefix}.{label}" if prefix else label
        kept.append(d)
        stack.append(d)
    _link_to_owners(kept)
    kept = _without_declarations(kept, source)
    seen: dict[str, int] = {}
    for d in kept:
        base = f"{path}::{d.qualname}"
        seen[base] = seen.get(base, 0) + 1
        d.id = base if seen[base] == 1 else f"{base}#{seen[base]}"
    return kept


def _is_type_of(holder: Node, node: Node) -> bool:
    typed = holder.child_by_field_name("type")
    return typed is not None and typed.id == node.id


def _link_to_owners(defs: list[Def]) -> None:
    """A method defined outside its type (`func (p Point) M()`, `void Foo::m()`) belongs to that type."""
    owners: dict[str, Def] = {}
    for d in defs:
        if d.kind in _LINKED_OWNERS:
            owners.setdefault(d.qualname, d)
    for d in defs:
        if not d.scope:
            continue
        owner = owners.get(d.qualname[: -len(d.name) - 1])
        if owner is not None and owner is not d and owner is not d.parent:
            d.parent = owner
            if d.kind == "function":
                d.kind = "method"


def _without_declarations(defs: list[Def], source: bytes) -> list[Def]:
    """A prototype or overload signature gives way to the definition with a body of the same name.

    An overload set is one symbol: `@typing.overload` stubs fold into the implementation (into the
    first stub when there is none, as in a `.pyi`), which keeps their signatures.
    """
    stubs = {id(d) for d in defs if _is_overload(d, source)}
    bodied: dict[str, Def] = {}
    for d in defs:
        if d.node.child_by_field_name("body") is not None and id(d) not in stubs:
            bodied[d.qualname] = d
    for d in defs:  # a set of stubs without an implementation: the first stub stands for it
        if id(d) in stubs:
            bodied.setdefault(d.qualname, d)
    kept = []
    for d in defs:
        definition = bodied.get(d.qualname)
        if (
            definition is None
            or definition is d
            or (d.node.child_by_field_name("body") is not None and id(d) not in stubs)
        ):
            kept.append(d)
        elif id(d) in stubs:
            definition.overloads.append(d)
        elif definition.declaration is None:
            definition.declaration = d
    return kept


_OVERLOAD = re.compile(r"@\s*(?:[A-Za-z_][\w.]*\.)?overload\s*$")


def _is_overload(d: Def, source: bytes) -> bool:
    """A Python `@overload` / `@typing.overload` stub: a signature, not code anyone runs."""
    return d.kind in ("function", "method") and any(_OVERLOAD.match(t) for t in decorators(d.outer, d.node, source))
