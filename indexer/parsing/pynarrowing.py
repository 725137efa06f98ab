"""Where an isinstance test says what a Python name is, which callrefs.py takes over what else the file says it may
be: in the body of an `if isinstance(x, C):` (or `elif`, or `(C, D)`) around it, and after a guard before it in a
block around it (`if not isinstance(x, C):` with no `else`, whose body ends in `raise`, `return`, `continue` or
`break`). The only rules of callrefs.py that read the flow of a function, and only its nesting."""

from __future__ import annotations

from typing import Any

from tree_sitter import Node

from .nodes import NAME_LIMIT
from .parse import node_text

_EXITS = frozenset({"raise_statement", "return_statement", "continue_statement", "break_statement"})


class IsinstanceTests:
    """A file's isinstance tests, read when a name some test names is asked about."""

    def __init__(self, source: bytes, calls: list[tuple[Node, Any]]) -> None:
        self.source = source
        self.tested = frozenset(
            node_text(parts[0], source, NAME_LIMIT)
            for call, _ in calls
            if (parts := _isinstance_parts(call, source)) is not None
        )
        self._guards: dict[int, list[tuple[int, str, list[Node]]]] = {}  # by block: every name asks of the same

    def classes(self, node: Node, name: str, top: Node | None) -> list[Node] | None:
        """The class expressions the nearest test holding this use of `name` tests it against, below `top` (its
        function's node; None: the module); None where none does."""
        if name not in self.tested:
            return None  # most names: no walk up the tree for them
        inner, current = node, node.parent
        while current is not None and current != top:
            tested = None
            if current.type in ("if_statement", "elif_clause") and current.child_by_field_name("consequence") == inner:
                tested = self._tests(current.child_by_field_name("condition"), name)
            elif current.type in ("block", "module"):
                tested = self._guarded(current, inner, name)
            if tested is not None:
                return tested
            inner, current = current, current.parent
        return None

    def _guarded(self, block: Node, inner: Node, name: str) -> list[Node] | None:
        """The classes the nearest guard before `inner` among a block's statements tests the name against."""
        if block.id not in self._guards:
            self._guards[block.id] = [g for s in block.named_children if (g := self._guard(s)) is not None]
        before = [
            tested for end, guarded, tested in self._guards[block.id] if guarded == name and end <= inner.start_byte
        ]
        return before[-1] if before else None

    def _guard(self, statement: Node) -> tuple[int, str, list[Node]] | None:
        """A guard: where it ends, the name it tests, and the classes it tests it against."""
        if statement.type != "if_statement" or statement.child_by_field_name("alternative") is not None:
            return None
        condition, body = statement.child_by_field_name("condition"), statement.child_by_field_name("consequence")
        if condition is None or condition.type != "not_operator" or body is None or not body.named_children:
            return None
        test = condition.child_by_field_name("argument")
        parts = _isinstance_parts(test, self.source) if test is not None else None
        tested = _classes(parts[1]) if parts is not None else None
        if parts is None or tested is None or body.named_children[-1].type not in _EXITS:
            return None
        return (statement.end_byte, node_text(parts[0], self.source, NAME_LIMIT), tested)

    def _tests(self, condition: Node | None, name: str) -> list[Node] | None:
        """The classes `isinstance(name, C)` or `isinstance(name, (C, D))` tests, if the condition is that test."""
        parts = _isinstance_parts(condition, self.source) if condition is not None else None
        if parts is None or node_text(parts[0], self.source, NAME_LIMIT) != name:
            return None
        return _classes(parts[1])


def _classes(tested: Node) -> list[Node] | None:
    """The class expressions of an isinstance's second argument (`C`, `m.C`, `(C, D)`); None for any other."""
    written = tested.named_children if tested.type == "tuple" else [tested]
    return written if all(c.type in ("identifier", "attribute") for c in written) else None


def _isinstance_parts(node: Node, source: bytes) -> tuple[Node, Node] | None:
    """The name and the classes of `isinstance(name, classes)`; None for any other expression."""
    function = node.child_by_field_name("function") if node.type == "call" else None
    arguments = node.child_by_field_name("arguments") if function is not None else None
    if function is None or arguments is None or node_text(function, source) != "isinstance":
        return None
    given = arguments.named_children
    return (given[0], given[1]) if len(given) == 2 and given[0].type == "identifier" else None
