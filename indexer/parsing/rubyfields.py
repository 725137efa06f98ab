"""The classes Ruby's variables are made of, where the code says so: `csv = CSV.new(data)` in a method makes the
local `csv` a CSV, `@tm = Rake::TaskManager.new` an instance variable of the method's class (any method of the
class may read it: a test's `setup` sets what its tests call). Kept as the fields projection keeps declared types
(owner, name, type): store/rubycalls.py reads from them what class a call on `csv` or `@tm` is a method of. A
variable made of two classes in one owner is kept with both, for the store to leave alone."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Protocol

from tree_sitter import Node

from .parse import node_text

MAX_TYPE = 200
_METHODS = frozenset({"method", "singleton_method"})
_HOLDERS = frozenset({"class", "module"})
_CONSTANTS = frozenset({"constant", "scope_resolution"})
ALTERNATIVES = " | "  # as javafields.ALTERNATIVES
MIXINS = frozenset({"include", "extend", "prepend"})  # their arguments are kept: the modules a class mixes in


class _Definition(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def node(self) -> Node: ...


def ruby_fields(defs: Sequence[_Definition], source: bytes) -> list[dict[str, str]]:
    """Each method's locals and its class's instance variables bound to `Const.new(...)`, as the fields projection
    keeps them ({owner, name, type})."""
    holders = [d for d in defs if d.node.type in _HOLDERS]
    found: dict[tuple[str, str], list[str]] = {}
    for method in (d for d in defs if d.node.type in _METHODS):
        holder = _innermost_holder(holders, method.node)
        for variable, made in _made_in(method.node, source):
            owner = method.id if not variable.startswith("@") else holder.id if holder is not None else None
            if owner is not None and made not in found.setdefault((owner, variable), []):
                found[(owner, variable)].append(made)
    return [{"owner": owner, "name": name, "type": ALTERNATIVES.join(types)} for (owner, name), types in found.items()]


def _innermost_holder(holders: Sequence[_Definition], node: Node) -> _Definition | None:
    around = [h for h in holders if h.node.start_byte <= node.start_byte and node.end_byte <= h.node.end_byte]
    return max(around, key=lambda h: h.node.start_byte, default=None)


def _made_in(body: Node, source: bytes) -> Iterator[tuple[str, str]]:
    """(variable, class) for each `x = Const.new(...)` or `@x = Const.new(...)` in a method, not in the methods or
    classes inside it."""
    stack = list(body.named_children)
    while stack:
        node = stack.pop()
        if node.type in _METHODS or node.type in _HOLDERS:
            continue
        if node.type in ("assignment", "operator_assignment"):
            made = _made_class(node.child_by_field_name("right"), source)
            left = node.child_by_field_name("left")
            if made is not None and left is not None and left.type in ("identifier", "instance_variable"):
                yield node_text(left, source, MAX_TYPE), made
        stack.extend(node.named_children)


def _made_class(value: Node | None, source: bytes) -> str | None:
    """`CSV.new(...)`, `Rake::Task.new { ... }`: the class written, as written (`Rake::Task`)."""
    if value is None or value.type != "call":
        return None
    receiver, method = value.child_by_field_name("receiver"), value.child_by_field_name("method")
    if receiver is None or method is None or receiver.type not in _CONSTANTS:
        return None
    return node_text(receiver, source, MAX_TYPE) if node_text(method, source, 10) == "new" else None
