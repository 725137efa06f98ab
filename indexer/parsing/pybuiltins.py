"""What Python's own rules say of a value, as callrefs.py reads an expression: an operator's (`a + b` is
`a.__add__(b)`: what that method gives; `x or y` either side), what a builtin container's method gives where the
container may hold ours, what a builtin copying an iterable holds (`list(q)`: q's elements), and the value a
`with open(p) as f` binds."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tree_sitter import Node

from ...store.typenames import python_builtin_value
from .nodes import NAME_LIMIT, positional_arguments
from .parse import node_text
from .refsets import NONE, Refs, capped

if TYPE_CHECKING:
    from .callrefs import PythonRefs
    from .pyscopes import Definition

OPERATORS = frozenset({"boolean_operator", "binary_operator"})  # the nodes operator_value reads
# The method a binary operator calls on its left side (`a / b` is `a.__truediv__(b)`).
_DUNDERS = {
    **{"+": "__add__", "-": "__sub__", "*": "__mul__", "/": "__truediv__", "//": "__floordiv__", "%": "__mod__"},
    **{"@": "__matmul__", "**": "__pow__", "<<": "__lshift__", ">>": "__rshift__", "&": "__and__", "|": "__or__"},
    "^": "__xor__",
}
_COPYING = frozenset({"list", "tuple", "set", "frozenset", "sorted", "reversed", "iter"})  # hold what they are given


def operator_value(refs: PythonRefs, node: Node, where: Definition | None, hops: int) -> Refs:
    """`self.session or make_session()`: one side or the other (nothing where a side is a value the file cannot
    tell: anyone's); `root / "x"`: what the left side's `__truediv__` gives."""
    if node.type == "boolean_operator":
        sides = [refs.refs_of(side, where, hops + 1) for side in node.children if side.is_named]
        return capped(set[str]().union(*sides)) if all(sides) else NONE
    left, operator = node.child_by_field_name("left"), node.child_by_field_name("operator")
    dunder = _DUNDERS.get(operator.type) if operator is not None else None
    if left is None or dunder is None:
        return NONE
    return frozenset(f"{r}.{dunder}()" for r in refs.refs_of(left, where, hops + 1) if r.endswith("()"))


def result_may_be_ours(refs: PythonRefs, function: Node, where: Definition | None) -> bool:
    """Whether a builtin container's method called here (`handlers.get`) may give a value of ours: its holder is a
    name declared a container of something else than builtins (`handlers: dict[str, Handler]`, `dict[str, Any]`),
    or a `**kwargs`. Not one of builtins (`counts: dict[str, int]`), nor a literal's (`seen = {}`), whose results
    the rules before these read as builtins."""
    held = function.child_by_field_name("object") if function.type == "attribute" else None
    if held is None or held.type != "identifier":
        return False
    name = node_text(held, refs.source, NAME_LIMIT)
    if refs.splat(name, where) is not None:  # what was passed: anyone's
        return True
    declared = refs.declared_type(name, where)
    return declared is not None and not python_builtin_value(node_text(declared[0], refs.source))


def copied_from(refs: PythonRefs, node: Node, where: Definition | None) -> Node | None:
    """What a collection holds the elements of: the iterable a builtin copies them from (`list(q)`, `sorted(q, key=k)`,
    `reversed(q)`, where the file does not bind the name), or what a slice is of (`q[:10]`)."""
    if node.type == "subscript":
        sliced = node.child_by_field_name("subscript")
        return node.child_by_field_name("value") if sliced is not None and sliced.type == "slice" else None
    function, arguments = node.child_by_field_name("function"), node.child_by_field_name("arguments")
    if node.type != "call" or function is None or arguments is None or function.type != "identifier":
        return None
    name = node_text(function, refs.source)
    if name not in _COPYING or refs.refs_of(function, where) != frozenset({f"builtin:{name}"}):
        return None
    given = positional_arguments(arguments)
    return given[0] if given else None


def managed(ref: str) -> bool:
    """Whether a `with` over a value of this ref binds what its `__enter__` gives: one of ours, an outside one, or
    the file `open()` gives (its `__enter__` returns it: `with open(p) as f`, whose `read` is its own); no other
    builtin's."""
    return not ref.startswith("builtin:") or ref == "builtin:open()"
