"""Ruby's calls written as a bare name, as `super` or as a `send`, and its methods written inside `class << self`.

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


_SENDS = frozenset({"send", "__send__", "public_send"})  # they call the method their first argument names
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
            calls.append(_site(defs, starts, method, node, name, None))
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
            calls.append(_site(defs, starts, method, node, node_text(name, source, 200), "super"))
    return calls


def sent_calls(
    defs: Sequence[Caller], starts: list[int], source: bytes, walked: dict[str, MethodNodes]
) -> list[dict[str, Any]]:
    """A call site for each method a `send` (`__send__`, `public_send`) names: a symbol or string written there
    (`el.__send__(:search)`), or one the variable it sends holds. A local holds what is assigned to it in the method,
    the elements of the literal list it iterates as a block's parameter (`%w[col_sep row_sep].each { |name| ... }`),
    or, as a parameter of the method, what the file's calls of the method pass there (optparse's `visit(:search, ...)`
    sends its `id`); an instance variable what is assigned to it in any method of the file's class (csv's parser runs
    `__send__(@parse_method)`, where `@parse_method = :parse_quotable_robust`)."""
    if b"send" not in source:
        return []  # most files: no send to read, and no need to read what their variables hold
    held: dict[tuple[str, str], set[str]] = {}  # (the method's id or its class's, variable) -> the names it holds
    passed: dict[tuple[str, int], set[str]] = {}  # (a method's name, an argument's place) -> the names passed there
    for method in (d for d in defs if d.id in walked):
        for node in walked[method.id].of("assignment"):
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is not None and right is not None and (names := _spelled(right, source)):
                key = _holder(method.node) if left.type == "instance_variable" else method.id
                held.setdefault((key, node_text(left, source, 200)), set()).update(names)
        for node in walked[method.id].of("call"):
            arguments, receiver = node.child_by_field_name("arguments"), node.child_by_field_name("receiver")
            if arguments is not None and (receiver is None or receiver.type == "self"):
                name = node_text(node.child_by_field_name("method") or node, source, 200)
                for at, argument in enumerate(arguments.named_children):
                    passed.setdefault((name, at), set()).update(_spelled(argument, source))
    calls = []
    for method in (d for d in defs if d.id in walked):
        for node in sorted(walked[method.id].of("call"), key=lambda n: n.start_byte):
            called, arguments = node.child_by_field_name("method"), node.child_by_field_name("arguments")
            if called is None or arguments is None or node_text(called, source, 20) not in _SENDS:
                continue
            first = next(iter(arguments.named_children), None)
            if first is None:
                continue
            names = _spelled(first, source)
            if not names and first.type == "instance_variable":
                names = held.get((_holder(method.node), node_text(first, source, 200)), set())
            elif not names and first.type == "identifier":
                name = node_text(first, source, 200)
                names = held.get((method.id, name), set()) | _iterated(first, name, source)
                names |= _passed(method.node, name, passed, source)
            receiver = node.child_by_field_name("receiver")
            qualifier = " ".join(node_text(receiver, source, 200).split()) if receiver is not None else None
            calls += [_site(defs, starts, method, node, name, qualifier) for name in sorted(names)]
    return calls


def _site(
    defs: Sequence[Caller], starts: list[int], method: Caller, node: Node, name: str, qualifier: str | None
) -> dict[str, Any]:
    """A call site of `name` at the node, in the innermost definition around it (a block's method)."""
    caller = caller_at(defs, starts, node.start_byte)
    return {
        "caller": caller.id if caller else method.id,
        "name": name,
        "qualifier": qualifier,
        "line": node.start_point[0] + 1,
        "ref": None,
    }


def _spelled(node: Node, source: bytes) -> set[str]:
    """The method names a literal spells: `:search`, `"col_sep"`, each element of `[:a, :b]`, `%w[a b]`, `%i[a b]`,
    and either of `quoted ? :parse_quoted : :parse_plain`."""
    if node.type in ("array", "string_array", "symbol_array"):
        return {name for element in node.named_children for name in _spelled(element, source)}
    if node.type == "conditional":
        branches = (node.child_by_field_name("consequence"), node.child_by_field_name("alternative"))
        return {name for branch in branches if branch is not None for name in _spelled(branch, source)}
    if node.type == "simple_symbol":
        return {node_text(node, source, 200)[1:]}
    if node.type in ("string", "bare_string", "bare_symbol") and [c.type for c in node.named_children] == [
        "string_content"
    ]:
        return {node_text(node.named_children[0], source, 200)}
    return set()


def _iterated(read: Node, name: str, source: bytes) -> set[str]:
    """The names a block's parameter of this name takes from the literal list the block iterates, around `read`."""
    node = read.parent
    while node is not None and node.type not in _METHODS:
        if node.type in ("block", "do_block"):
            parameters = node.child_by_field_name("parameters")
            first = parameters.named_children[0] if parameters is not None and parameters.named_children else None
            if first is not None and node_text(first, source, 200) == name:
                iterated = node.parent.child_by_field_name("receiver") if node.parent is not None else None
                return _spelled(iterated, source) if iterated is not None else set()
        node = node.parent
    return set()


def _passed(method: Node, name: str, passed: dict[tuple[str, int], set[str]], source: bytes) -> set[str]:
    """What the file's calls of the method pass as its parameter of this name (a positional one)."""
    parameters, called = method.child_by_field_name("parameters"), method.child_by_field_name("name")
    if parameters is None or called is None:
        return set()
    for at, parameter in enumerate(parameters.named_children):
        if parameter.type != "identifier":
            return set()  # past a `*rest` or a default, the places no longer line up
        if node_text(parameter, source, 200) == name:
            return passed.get((node_text(called, source, 200), at), set())
    return set()


def _holder(method: Node) -> str:
    """The class or module a method is written in, by where it starts (the file's top: "")."""
    node = method.parent
    while node is not None and node.type not in ("class", "module"):
        node = node.parent
    return str(node.start_byte) if node is not None else ""


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
