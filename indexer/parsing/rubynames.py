"""Ruby's calls written as a bare name or as `super`, and its methods written inside `class << self`.

A bare name (`parser` in `@parser_enumerator ||= parser.parse`) calls the method of that name where no local
variable of the method binds it (a parameter, an assignment, a block's parameter, a rescued exception, a pattern's
variable), as Ruby reads it. The grammar cannot tell such a call from a variable, so the method's bindings decide;
a name bound anywhere in the method is taken for the variable everywhere in it."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from tree_sitter import Node

from .callsites import Caller, caller_at
from .parse import node_text

_METHODS = frozenset({"method", "singleton_method"})
_NESTED = _METHODS | {"class", "module", "singleton_class"}  # what a method's walk leaves to its own definitions
# where an identifier binds a name rather than reads one
_BINDERS = frozenset(
    {
        "method_parameters",
        "block_parameters",
        "lambda_parameters",
        "optional_parameter",
        "keyword_parameter",
        "splat_parameter",
        "hash_splat_parameter",
        "block_parameter",
        "destructured_parameter",
        "left_assignment_list",
        "destructured_left_assignment",
        "rest_assignment",
        "exception_variable",
        "for",
        "array_pattern",
        "hash_pattern",
        "find_pattern",
        "keyword_pattern",
        "alternative_pattern",
        "as_pattern",
        "variable_reference_pattern",
        "match_pattern",
        "test_pattern",
    }
)
# an identifier in these fields is a name, not a read: a definition's, a call's method, a pair's key
_NOT_READ = {"method": ("name",), "singleton_method": ("name",), "call": ("method",), "pair": ("key",)}


SINGLETON_CLASS = "class << self"  # kept among a method's decorators: a method of the class itself, as `def self.m`


def in_singleton_class(method: Node) -> bool:
    """Whether a method is written inside `class << self` (of its nearest class or module)."""
    node = method.parent
    while node is not None and node.type not in ("class", "module", "program"):
        if node.type == "singleton_class":
            return True
        node = node.parent
    return False


class MethodNodes:
    """A method's nodes, walked once for every rule that reads them (here and in rubyfields.py): its parameters' and
    its body's, not those of the methods or classes written inside it."""

    def __init__(self, method: Node) -> None:
        body = method.child_by_field_name("body")
        self.body_start = body.start_byte if body is not None else method.end_byte
        self.by_type: dict[str, list[Node]] = {}
        for node in _walk(method, skip=_NESTED):
            self.by_type.setdefault(node.type, []).append(node)

    def of(self, *types: str, body: bool = True) -> list[Node]:
        """The nodes of these types, in the body only (or the parameters too), in no particular order."""
        found = [n for t in types for n in self.by_type.get(t, ())]
        return [n for n in found if n.start_byte >= self.body_start] if body else found


def walked_methods(defs: Sequence[Caller]) -> dict[str, MethodNodes]:
    """Each method's nodes, by its id."""
    return {d.id: MethodNodes(d.node) for d in defs if d.node.type in _METHODS}


def bare_name_calls(
    defs: Sequence[Caller], starts: list[int], source: bytes, walked: dict[str, MethodNodes]
) -> list[dict[str, Any]]:
    """A call site for each bare name a method reads that none of its bindings binds."""
    calls = []
    for method in (d for d in defs if d.id in walked):
        nodes = walked[method.id]
        bound = set(bound_names(nodes, source))
        for node in _reads(nodes):
            name = node_text(node, source, 200)
            if name in bound:
                continue
            caller = caller_at(defs, starts, node.start_byte)
            calls.append(
                {
                    "caller": caller.id if caller else method.id,
                    "name": name,
                    "qualifier": None,
                    "line": node.start_point[0] + 1,
                    "ref": None,
                }
            )
    return calls


def super_calls(
    defs: Sequence[Caller], starts: list[int], source: bytes, walked: dict[str, MethodNodes]
) -> list[dict[str, Any]]:
    """A call site for each `super` (or `super(...)`) of a method: a call of the method of its name up the class's
    superclasses and mixed-in modules, qualified by `super` (store/rubycalls.py follows it)."""
    calls = []
    for method in (d for d in defs if d.id in walked):
        name = method.node.child_by_field_name("name")
        if name is None:
            continue
        for node in sorted(walked[method.id].of("super"), key=lambda n: n.start_byte):
            caller = caller_at(defs, starts, node.start_byte)
            calls.append(
                {
                    "caller": caller.id if caller else method.id,
                    "name": node_text(name, source, 200),
                    "qualifier": "super",
                    "line": node.start_point[0] + 1,
                    "ref": None,
                }
            )
    return calls


def bound_names(nodes: MethodNodes, source: bytes) -> Iterator[str]:
    """Every name the method binds, wherever in it (its parameters too)."""
    for node in nodes.of("identifier", body=False):
        parent = node.parent
        if parent is None:
            continue
        assigned = parent.type in ("assignment", "operator_assignment") and parent.child_by_field_name("left") == node
        if assigned or parent.type in _BINDERS:
            yield node_text(node, source, 200)


def _reads(nodes: MethodNodes) -> Iterator[Node]:
    """The identifiers of a method's body read as values, not those of the methods or classes written inside it."""
    for node in sorted(nodes.of("identifier"), key=lambda n: n.start_byte):
        parent = node.parent
        if parent is None or parent.type in _BINDERS:
            continue
        if any(parent.child_by_field_name(f) == node for f in _NOT_READ.get(parent.type, ())):
            continue
        if parent.type in ("assignment", "operator_assignment") and parent.child_by_field_name("left") == node:
            continue
        yield node


def _walk(root: Node, skip: frozenset[str] = frozenset()) -> Iterator[Node]:
    stack = list(root.named_children)
    while stack:
        node = stack.pop()
        if node.type in skip:
            continue
        yield node
        stack.extend(node.named_children)
