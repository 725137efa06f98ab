"""The names a Go file takes from the other files of its package, which it uses without importing them.

A Go package is every `.go` file of a folder: `mux.go` calls `tree.go`'s `node.InsertRoute` and names its `node`
type with no import between them, and in the projects bench/facts_imports_go.py checks, most of what a file uses
is its own package's (go/types: 263 of 351 uses). Each name a file's code uses that neither it declares (at the top
level or in a function) nor an import, nor Go itself, gives, is an import of kind `package` of that one name
(module `.`, the file's own package): store/projections/dependencies.py resolves it to the file of the folder
declaring the name at its top level, and leaves it out where none does.

A bare name is a use (`helper(x)`, `methodMap[mGET]`, `*node`), a member after a dot is not (`n.findRoute` is the
call graph's), and neither is a field's name in a struct literal (`node{typ: ntStatic}` uses ntStatic, not typ).
A name any function of the file binds (a parameter, `x :=`, `var x`, `range`) is no use anywhere in the file: the
rule is the file's, not each scope's, so a local that shadows another file's name costs that one use, never adds
a wrong one.
"""

from __future__ import annotations

from typing import Any

from tree_sitter import Node

from ...store.gocalls import go_import_name
from .parse import node_text

NAME_LIMIT = 200
# Go's own names, which no file of the package can be asked for.
_UNIVERSE = frozenset(
    "any bool byte comparable complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string"
    " uint uint8 uint16 uint32 uint64 uintptr nil true false iota _ append cap clear close complex copy delete imag"
    " len make max min new panic print println real recover".split()
)
_DECLARATIONS = frozenset(
    {
        "function_declaration",
        "type_spec",
        "type_alias",
        "const_spec",
        "var_spec",
        "parameter_declaration",
        "variadic_parameter_declaration",
        "type_parameter_declaration",
    }
)
_TYPE_DECLARATIONS = frozenset({"type_spec", "type_alias"})
_FUNCTIONS = frozenset({"function_declaration", "method_declaration", "func_literal"})
# The statements binding the names on their left (`k, v := range m`), and a type switch's (`switch v := x.(type)`).
_BINDING_STATEMENTS = frozenset({"short_var_declaration", "range_clause", "receive_statement", "type_switch_statement"})
_VALUE_KEYED = frozenset({"map_type", "array_type", "slice_type", "implicit_length_array_type"})


def go_package_references(root: Node, source: bytes, imports: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The names the file uses from other files of its package, as imports of kind `package` (module `.`), one
    per name by the line it is first used on."""
    imported = {imp.get("alias") or go_import_name(imp["module"]) for imp in imports}
    top_level: set[str] = set()  # what the file declares outside its functions
    bound: set[str] = set()  # what its functions bind: parameters, `x :=`, `var x`, `range`
    local_types: set[str] = set()  # the types its functions declare and the type parameters it binds
    values: dict[str, int] = {}  # a name used as a value -> the line it is first used on
    types: dict[str, int] = {}  # the same, as a type
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, in_function = stack.pop()
        if node.type in _DECLARATIONS:
            for declared in node.children_by_field_name("name"):
                text = node_text(declared, source, NAME_LIMIT)
                if node.type == "type_parameter_declaration" or (in_function and node.type in _TYPE_DECLARATIONS):
                    local_types.add(text)
                (bound if in_function or node.type == "type_parameter_declaration" else top_level).add(text)
        elif node.type in _BINDING_STATEMENTS:
            for left in (*node.children_by_field_name("left"), *node.children_by_field_name("alias")):
                bound.update(_names(left, source))
        elif node.type in ("identifier", "type_identifier") and _is_use(node):
            uses = types if node.type == "type_identifier" else values
            uses.setdefault(node_text(node, source, NAME_LIMIT), node.start_point[0] + 1)
        inside = in_function or node.type in _FUNCTIONS
        stack.extend((child, inside) for child in reversed(node.named_children))
    own = top_level | imported | _UNIVERSE
    wanted = {name: line for name, line in values.items() if name not in own and name not in bound}
    for name, line in types.items():
        if name not in own and name not in local_types:
            wanted[name] = min(line, wanted.get(name, line))
    return [
        {"module": ".", "names": [name], "line": line, "kind": "package", "level": 0}
        for name, line in sorted(wanted.items(), key=lambda item: (item[1], item[0]))
    ]


def _names(node: Node, source: bytes) -> list[str]:
    """The identifiers an expression list binds (`k, v` of `for k, v := range m`)."""
    if node.type == "identifier":
        return [node_text(node, source, NAME_LIMIT)]
    return [node_text(n, source, NAME_LIMIT) for n in node.named_children if n.type == "identifier"]


def _is_use(node: Node) -> bool:
    """Whether a name stands for itself: not the name a declaration gives, not the name of a package's type
    (`http.Handler`), not a field's name keying a struct literal."""
    parent = node.parent
    if parent is None:
        return False
    if parent.type in _DECLARATIONS or parent.type == "qualified_type":
        return all(name.id != node.id for name in parent.children_by_field_name("name"))
    if parent.type == "literal_element" and (keyed := parent.parent) is not None and keyed.type == "keyed_element":
        key = keyed.child_by_field_name("key")
        return key is None or key.id != parent.id or _keys_are_values(keyed)
    return True


def _keys_are_values(keyed: Node) -> bool:
    """Whether the literal the keyed element is in is a map's, an array's or a slice's (`{mGET: "GET"}`), whose
    keys are values, not a struct's, whose keys are its fields."""
    literal = keyed.parent.parent if keyed.parent is not None else None
    if literal is None or literal.type != "composite_literal":
        return False  # an element's literal with its type left out (`[]T{{a: 1}}`): most often a struct's
    kind = literal.child_by_field_name("type")
    return kind is not None and kind.type in _VALUE_KEYED
