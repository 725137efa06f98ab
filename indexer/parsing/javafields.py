"""Java's declared types: each class's fields and each method's locals, with the types they are declared (store/
javacalls.py reads from them what class a call on `this.factories` or on `reader` is a method of). Java declares
every variable's type where it binds it (`JsonReader reader = ...`, `for (Field f : fields)`, `catch (IOException
e)`, `x instanceof Foo f`); `var x = new Foo<>()` is the class it constructs. A method's parameters are its symbol's
own (symbols.params)."""

from __future__ import annotations

import bisect
import functools
from collections.abc import Iterator, Sequence
from typing import Any, Protocol

from tree_sitter import Node, Query

from .callsites import innermost
from .cppfields import call_arguments
from .parse import captured, language, node_text

MAX_TYPE = 200
# What binds a name with its type in a method's body: the type's field, and where the name is
_TYPED = {
    "local_variable_declaration": "type",
    "enhanced_for_statement": "type",
    "resource": "type",
    "instanceof_expression": "right",
}
ALTERNATIVES = " | "  # a name declared twice in one method (two loops' `f`): each, for the store to compare


_CLASSES = frozenset({"class_declaration", "interface_declaration", "enum_declaration", "record_declaration"})
_METHODS = frozenset({"method_declaration", "constructor_declaration"})


class _Definition(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def node(self) -> Node: ...

    @property
    def outer(self) -> Node: ...


def java_facts(
    root: Node,
    defs: Sequence[_Definition],
    starts: list[int],
    calls: list[dict[str, Any]],
    call_caps: list[dict[str, list[Node]]],
    source: bytes,
) -> list[dict[str, str]]:
    """What store/javacalls.py reads of a Java file beside its call sites (`calls`, one per capture of `call_caps`):
    each call's arguments as written, which choose among a name's overloads; each `this(...)` and `super(...)`,
    added as a call of the constructors; and the fields and locals with their declared types, returned as the
    fields projection keeps them."""
    for call, caps in zip(calls, call_caps, strict=True):
        call["arguments"] = call_arguments(caps["reference.call"][0], source)
    classes = [(d.id, d.node) for d in defs if d.node.type in _CLASSES]
    for node, constructed in constructor_calls(classes, source):
        where = innermost(defs, starts, node.start_byte)
        calls.append(
            {
                "caller": where.id if where is not None else None,
                "name": constructed,
                "qualifier": None,
                "line": node.start_point[0] + 1,
                "ref": None,
                "arguments": call_arguments(node, source),
            }
        )
    methods = [(d.id, d.node) for d in defs if d.node.type in _METHODS]
    declared = java_fields(root, classes, methods, source)
    return [{"owner": owner, "name": name, "type": written} for owner, name, written in declared]


def java_fields(
    root: Node, classes: list[tuple[str, Node]], methods: list[tuple[str, Node]], source: bytes
) -> list[tuple[str, str, str]]:
    """(owner id, name, type as written): each class's fields, and each method's (or constructor's) locals, a
    name declared more than once with its types joined by ALTERNATIVES."""
    out = [
        (owner, name, written)
        for owner, node in classes
        if (body := node.child_by_field_name("body")) is not None
        for member in body.named_children
        if member.type == "field_declaration"
        for name, written in _declared(member, source)
    ]
    methods = sorted(methods, key=lambda m: m[1].start_byte)
    starts = [node.start_byte for _, node in methods]
    found: dict[str, dict[str, set[str]]] = {}
    for binding in captured(_bindings(), root).get("binding", []) if methods else []:
        owner = _innermost(methods, starts, binding)
        for name, written in _bound(binding, source) if owner is not None else ():
            found.setdefault(owner or "", {}).setdefault(name, set()).add(written)
    out += [
        (owner, name, ALTERNATIVES.join(sorted(types)))
        for owner, names in found.items()
        for name, types in names.items()
    ]
    return out


def _innermost(methods: list[tuple[str, Node]], starts: list[int], node: Node) -> str | None:
    """The id of the innermost method holding the node (a local class's method, not the method around it)."""
    i = bisect.bisect_right(starts, node.start_byte) - 1
    while i >= 0:
        owner, method = methods[i]
        if method.end_byte >= node.end_byte:
            return owner
        i -= 1
    return None


def _bound(node: Node, source: bytes) -> Iterator[tuple[str, str]]:
    if node.type in _TYPED:
        yield from _declared(node, source, _TYPED[node.type])
    elif node.type == "catch_formal_parameter":  # `catch (IOException | RuntimeException e)`: one type only
        caught, name = node.named_children[0] if node.named_children else None, node.child_by_field_name("name")
        if caught is not None and name is not None and caught.named_child_count == 1:
            yield node_text(name, source), node_text(caught.named_children[0], source, MAX_TYPE)


@functools.cache
def _bindings() -> Query:
    kinds = " ".join(f"({kind})" for kind in (*_TYPED, "catch_formal_parameter"))
    return Query(language("java"), f"[{kinds}] @binding")


def _declared(node: Node, source: bytes, field: str = "type") -> Iterator[tuple[str, str]]:
    """The names a declaration binds with the type it declares them (`var`: the class a `new` constructs)."""
    written = node.child_by_field_name(field)
    if written is None:
        return
    declared = node_text(written, source, MAX_TYPE)
    named = node.child_by_field_name("name")
    if named is not None:  # `for (Item it : items)`, a resource, `o instanceof Foo f`
        yield node_text(named, source), declared
        return
    for declarator in node.children_by_field_name("declarator"):
        name, value = declarator.child_by_field_name("name"), declarator.child_by_field_name("value")
        if name is None:
            continue
        if declared != "var":
            yield node_text(name, source), declared
        elif (
            value is not None
            and value.type == "object_creation_expression"
            and (made := value.child_by_field_name("type"))
        ):
            yield node_text(name, source), node_text(made, source, MAX_TYPE)


def constructor_calls(classes: list[tuple[str, Node]], source: bytes) -> list[tuple[Node, str]]:
    """Each `this(...)` and `super(...)` opening a constructor, with the name of the class whose constructor it runs:
    the class's own, or the one it extends (`class Gson extends Base<T>`: Base)."""
    out = []
    for _, node in classes:
        body = node.child_by_field_name("body")
        superclass = node.child_by_field_name("superclass")
        extended = _simple_type(node_text(superclass.named_children[0], source)) if superclass else None
        name = node.child_by_field_name("name")
        if body is None or name is None:
            continue
        for member in body.named_children:
            block = member.child_by_field_name("body") if member.type == "constructor_declaration" else None
            first = block.named_children[0] if block is not None and block.named_children else None
            if first is None or first.type != "explicit_constructor_invocation":
                continue
            runs = first.child_by_field_name("constructor")
            if runs is not None and runs.type == "this":
                out.append((first, node_text(name, source)))
            elif runs is not None and runs.type == "super" and extended:
                out.append((first, extended))
    return out


def _simple_type(written: str) -> str:
    """`a.b.Base<T>`: Base."""
    return written.partition("<")[0].strip().rpartition(".")[2]
