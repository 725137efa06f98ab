"""What a JavaScript or TypeScript file says of the types of its classes' fields and of its functions' results, so
that a call in any file can be followed through them (indexed in the dependencies projection's `fields`; read by
store/resolver.py):

- a TypeScript class's declared fields (`readonly manager: EntityManager`, `constructor(private db: Db)`) and an
  interface's properties (`connection: DataSource`);
- a field no declaration types that the class's methods assign (`this.head = this.tail = new
  FixedCircularBuffer()`, `this.#headers = new HeadersList()`) or its body initializes (`#queue = new FixedQueue()`)
  instances of one class alone;
- what a function declaring no result returns, where each of its `return`s gives the same (`return this`, `return
  new MysqlQueryRunner(this)`): store/refs.py's RESULT member.

Types are kept as written (`EntityManager`, `ns.C`, `Column[]`): the store reads them in the declaring file.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from tree_sitter import Node

from .parse import node_text
from .scopes import FunctionScopes

ARROW = "arrow_function"  # a function keeping the `this` around it
_FIELDS = frozenset({"field_definition", "public_field_definition"})  # a class body's, JavaScript's and TypeScript's


class Definition(Protocol):  # nesting.Def, as far as refs need it
    node: Node
    kind: str
    qualname: str
    id: str


def declared_fields(cls: Node, source: bytes) -> dict[str, str]:
    """A TypeScript class's fields with a declared type: in its body and its constructor's parameter properties;
    an interface's properties."""
    body = cls.child_by_field_name("body")
    fields: dict[str, str] = {}
    for member in body.named_children if body is not None else []:
        if member.type in ("public_field_definition", "property_signature"):
            name, declared = member.child_by_field_name("name"), annotation(member)
            if name is not None and declared is not None:
                fields[_text(name, source)] = _text(declared, source)
        elif member.type == "method_definition" and _text(member.child_by_field_name("name"), source) == "constructor":
            parameters = member.child_by_field_name("parameters")
            for parameter in parameters.named_children if parameters is not None else []:
                pattern, declared = parameter.child_by_field_name("pattern"), annotation(parameter)
                owned = any(c.type in ("accessibility_modifier", "readonly") for c in parameter.children)
                if owned and pattern is not None and pattern.type == "identifier" and declared is not None:
                    fields[_text(pattern, source)] = _text(declared, source)
    return fields


def add_assigned_fields(
    fields: dict[str, dict[str, str]], assignments: list[tuple[str, Node]], classes: Sequence[Definition], source: bytes
) -> None:
    """To each class's fields, those with no declared type that its methods assign (`this.f = new C()`, each with
    the class whose method it is in; `this.head = this.tail = new C()` too) or its body initializes (`#queue = new
    FixedQueue()`) instances of one class alone: that class, as the constructor is written."""
    made: dict[tuple[str, str], set[str]] = {}
    for owner, assignment in assignments:
        left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
        while right is not None and right.type == "assignment_expression":
            right = right.child_by_field_name("right")
        member = left.child_by_field_name("property") if left is not None else None
        constructor = _made(right, source)
        if member is not None and constructor not in (None, "this"):
            made.setdefault((owner, _text(member, source)), set()).add(str(constructor))
    for cls in classes:
        body = cls.node.child_by_field_name("body")
        for member in body.named_children if body is not None else []:
            if member.type not in _FIELDS or any(c.type == "static" for c in member.children):
                continue
            field = member.child_by_field_name("property") or member.child_by_field_name("name")
            constructor = _made(member.child_by_field_name("value"), source)
            if field is not None and constructor not in (None, "this"):
                made.setdefault((cls.qualname, _text(field, source)), set()).add(str(constructor))
    for (owner, name), constructors in made.items():
        if len(constructors) == 1 and owner in fields and name not in fields[owner]:
            fields[owner][name] = constructors.pop()


def inferred_results(
    statements: list[Node], scopes: FunctionScopes[Any], defs: Sequence[Definition], source: bytes
) -> dict[str, str]:
    """What each function or method declaring no result returns where each of its `return` statements (an arrow
    function's expression) gives the same: `this`, or a new instance of one class; by its qualified name."""
    results: dict[int, set[str | None]] = {}
    for statement in statements:
        index = scopes.innermost(statement.start_byte)
        value = statement.named_children[0] if statement.named_children else None
        if index >= 0:
            results.setdefault(scopes.functions[index].id, set()).add(_made(value, source))
    for function in scopes.functions:
        body = function.child_by_field_name("body")
        if function.type == ARROW and body is not None and body.type != "statement_block":
            results.setdefault(function.id, set()).add(_made(body, source))
    out = {}
    for d in defs:
        made = results.get(d.node.id, set())
        if len(made) == 1 and None not in made and d.node.child_by_field_name("return_type") is None:
            out[d.qualname] = str(made.pop())
    return out


def _made(value: Node | None, source: bytes) -> str | None:
    """`this`, or the constructor of `new C()` as written; None for any other value."""
    if value is not None and value.type == "this":
        return "this"
    constructor = value.child_by_field_name("constructor") if value is not None else None
    if value is None or value.type != "new_expression" or constructor is None:
        return None
    return _text(constructor, source) if constructor.type in ("identifier", "member_expression") else None


def annotation(node: Node) -> Node | None:
    """The type a TypeScript declaration gives (`x: C`): the annotation's type."""
    declared = node.child_by_field_name("type")
    return declared.named_children[0] if declared is not None and declared.named_children else None


def _text(node: Node | None, source: bytes) -> str:
    return node_text(node, source, 200) if node is not None else ""
