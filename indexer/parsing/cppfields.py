"""What a C++ value is declared as, for the call graph (store/cppcalls.py): a class's data members, and a function's
parameters and locals, each with its type as written and its declarator's pointers (`MemTable* mem_;` is `mem_` of
type `MemTable*`; `auto t = new T(...)` a `T*`).

C++ files have no refs: a call is its name and the text it is called on (`builder->Add(k, v)`). The declarations
say what `builder` is (`TableBuilder* builder = new TableBuilder(...)`), so the call graph can name the method.
"""

from __future__ import annotations

from collections.abc import Iterator

from tree_sitter import Node

from .parse import node_text

# Declarators wrapping the declared name: `*p`, `&r`, `a[4]`, `x = 1`; a function's declarator declares no value
_WRAPPERS = frozenset({"pointer_declarator", "reference_declarator", "array_declarator", "init_declarator"})
_NAMES = frozenset({"identifier", "field_identifier"})
# What a function body's declarations are read through; a lambda's, a local class's are their own
_OPAQUE = frozenset({"lambda_expression", "class_specifier", "struct_specifier", "function_definition"})
_PARAMETERS = frozenset({"parameter_declaration", "optional_parameter_declaration"})
TYPE_LIMIT = 200


def cpp_fields(
    classes: list[tuple[str, Node]], functions: list[tuple[str, Node]], enums: list[tuple[str, Node]], source: bytes
) -> list[tuple[str, str, str]]:
    """(owner id, name, type as written): each class's data members, each function's parameters and locals
    (the first declaration of a name in a function: a later one in another block shadows it, and is rarer), and
    each enum's enumerators, of the enum's type (`out << YAML::BeginMap` passes an EMITTER_MANIP)."""
    found: dict[tuple[str, str], str] = {}
    for owner, node in enums:
        enum, body = node.child_by_field_name("name"), node.child_by_field_name("body")
        if enum is None or body is None:
            continue
        for enumerator in body.named_children:
            value = enumerator.child_by_field_name("name") if enumerator.type == "enumerator" else None
            if value is not None:
                found.setdefault((owner, node_text(value, source)), node_text(enum, source))
    for owner, node in classes:
        body = node.child_by_field_name("body")
        for member in body.named_children if body is not None else ():
            if member.type == "field_declaration":
                for name, written in _declared(member, source, local=False):
                    found.setdefault((owner, name), written)
    for owner, node in functions:
        for declaration in _function_declarations(node):
            for name, written in _declared(declaration, source, local=declaration.type == "declaration"):
                found.setdefault((owner, name), written)
    return [(owner, name, written) for (owner, name), written in found.items()]


def _function_declarations(function: Node) -> Iterator[Node]:
    """A function definition's parameters, then the declarations of its body, in order."""
    declarator = function.child_by_field_name("declarator")
    while declarator is not None and declarator.type != "function_declarator":
        # `T& f(...)`: a reference declarator holds its declarator unnamed, where a pointer's is its field
        inner = declarator.child_by_field_name("declarator")
        declarator = inner if inner is not None or not declarator.named_children else declarator.named_children[-1]
    parameters = declarator.child_by_field_name("parameters") if declarator is not None else None
    yield from (p for p in (parameters.named_children if parameters is not None else ()) if p.type in _PARAMETERS)
    body = function.child_by_field_name("body")
    stack = list(reversed(body.named_children)) if body is not None else []
    while stack:
        node = stack.pop()
        if node.type == "declaration":
            yield node
        if node.type not in _OPAQUE:
            stack.extend(reversed(node.named_children))


def _declared(declaration: Node, source: bytes, *, local: bool) -> Iterator[tuple[str, str]]:
    """The names a declaration declares, each with its type as written; `auto` is what `new T(...)` makes. In a
    function's body, `Repairer repairer(dbname, options);` reads as a function's declaration to the grammar (C++'s
    most vexing parse), and is a local made by a constructor."""
    type_node = declaration.child_by_field_name("type")
    if type_node is None:
        return
    written = node_text(type_node, source, TYPE_LIMIT)
    for declarator in declaration.children_by_field_name("declarator"):
        value = declarator.child_by_field_name("value") if declarator.type == "init_declarator" else None
        name = _declared_name(
            declarator.child_by_field_name("declarator") if local and _vexing(declarator) else declarator
        )
        if name is None:
            continue
        if type_node.type == "placeholder_type_specifier":  # `auto`
            made = value.child_by_field_name("type") if value is not None and value.type == "new_expression" else None
            if made is None:
                continue
            yield node_text(name, source, TYPE_LIMIT), node_text(made, source, TYPE_LIMIT) + "*"
        else:
            yield node_text(name, source, TYPE_LIMIT), written + "*" * _pointers(declarator)


def _vexing(declarator: Node) -> bool:
    return declarator.type == "function_declarator" and declarator.child_by_field_name("declarator") is not None


def _pointers(declarator: Node) -> int:
    """How many pointers a declarator declares its name as (`MemTable* mem_`: 1); an array's `[]` is not one."""
    count = 0
    node: Node | None = declarator
    while node is not None and node.type in _WRAPPERS:
        count += node.type == "pointer_declarator"
        inner = node.child_by_field_name("declarator")
        node = inner if inner is not None else next((c for c in reversed(node.named_children)), None)
    return count


def _declared_name(declarator: Node | None) -> Node | None:
    """The name a declarator declares (`*p`: p), or None for a function's declarator (a method, a prototype)."""
    node: Node | None = declarator
    while node is not None and node.type in _WRAPPERS:
        inner = node.child_by_field_name("declarator")
        node = inner if inner is not None else next((c for c in reversed(node.named_children)), None)
    return node if node is not None and node.type in _NAMES else None


MAX_ARGUMENT = 120  # an argument written longer is kept as "" (counted, its type not read)


def call_arguments(call: Node, source: bytes) -> list[str] | None:
    """The arguments a call (or `new T(...)`) passes, as written (which of a name's overloads it calls: their number
    and their types, store/cppoverloads.py); None where it passes a braced list or none is written."""
    arguments = call.child_by_field_name("arguments")
    if arguments is None or arguments.type != "argument_list":
        return None
    return [_argument(child, source) for child in arguments.named_children if child.type != "comment"]


def _argument(node: Node, source: bytes) -> str:
    return " ".join(node_text(node, source).split()) if node.end_byte - node.start_byte <= MAX_ARGUMENT else ""


# The expressions calling an operator a class may define (data/queries/cpp.scm): `out << x`, `a += b`, `node["k"]`,
# `-v`, `++it`, `*it`
OPERATOR_SITES = frozenset(
    {
        "binary_expression",
        "assignment_expression",
        "subscript_expression",
        "unary_expression",
        "update_expression",
        "pointer_expression",
    }
)
_UNDEFINED = frozenset({"&&", "||"})  # a class may define them, but then they lose their order of evaluation: none do
_LITERALS = frozenset(
    "number_literal string_literal raw_string_literal char_literal concatenated_string true false null nullptr".split()
)


def operator_call(site: Node, operator: str, source: bytes) -> tuple[str, list[str] | None] | None:
    """What an operator expression calls where its operands are of a class that defines it: the operator's name as its
    definition has it (`operator<<`, `operator[]`) and the arguments passed beside the operand it is called on (the
    call's qualifier; None for `++` and `--`, whose postfix form passes an int the prefix does not). None where no
    class's operator can be called (`1 + 2`, `-1`, `a && b`)."""
    if site.type == "subscript_expression":
        indices = site.child_by_field_name("indices")
        given = indices.named_children if indices is not None else []
        return "operator[]", [_argument(child, source) for child in given if child.type != "comment"]
    if operator in _UNDEFINED:
        return None
    if site.type in ("binary_expression", "assignment_expression"):
        left, right = site.child_by_field_name("left"), site.child_by_field_name("right")
        if left is None or right is None or left.type in _LITERALS and right.type in _LITERALS:
            return None
        return f"operator{operator}", [_argument(right, source)]
    operand = site.child_by_field_name("argument")
    if operand is None or operand.type in _LITERALS:
        return None
    return f"operator{operator}", None if site.type == "update_expression" else []
