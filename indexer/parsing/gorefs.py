"""What a Go call's callee names, as far as its own file can tell: the call's `ref` (store/refs.py).

- `pkg.F()`, where pkg is an import's name (its alias, else Go's name for its path): `import#K:F`.
- `V.M()` on a package-level variable of another file of the package: `module:V.M` (the store reads V's
  type from its declaration, `var CommandLine = NewFlagSet(...)`).
- `v.M()` on a value whose type the file says: `module:T().M` for a type T of this package, where v is
  a receiver or parameter (`v *T`), `var v T`, `v := &T{...}`, `new(T)`, `T(x)` or `x.(*T)`;
  `module:F().M` when v is what a function of the package returns (`v := NewT()`; `v, err := NewT()`
  takes its first result); `import#K:T().M` and `import#K:F().M` through an import (`t *testing.T`).
- Anything else (a bare name, a field's method, a value from a range or a map) has no ref, and
  store/gocalls.py's rules by name apply.
- A package-level name handed on as a value (`state: lexTop`, `r.Get("/", handlers.List)`) is a call
  of its own, `value:lexTop` or `value#K:List`: Go programs call much of their code through function
  values (handlers, callbacks, state functions), and the function handing it on stands in for the
  caller the index cannot see.

`module` is the calling file's package, which is every `.go` file of its folder: store/gocalls.py
resolves these refs there. The rules are flow-insensitive, per top-level function with its closures:
a name bound to two different types, or once to a value of unknown type, has no type.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tree_sitter import Node

from ...store.gocalls import go_import_name
from .parse import node_text

_FUNCTIONS = frozenset({"function_declaration", "method_declaration", "func_literal"})
_PREDECLARED = frozenset(
    "any bool byte comparable complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune"
    " string uint uint8 uint16 uint32 uint64 uintptr".split()
)  # no method of them is the repository's (`error` is an interface: its Error() may be any type's)
_BUILTIN_CALLS = frozenset({"make", "len", "cap", "append", "copy", "min", "max", "complex", "real", "imag"})
# Where an expression is a value handed on: an argument, a composite literal's element, an assigned or
# returned value (`_handed_on`: not an assignment's target).
_VALUE_PLACES = frozenset({"argument_list", "literal_element", "keyed_element", "expression_list"})
_ASSIGNMENTS = frozenset({"assignment_statement", "short_var_declaration", "range_clause"})
_PREDECLARED_VALUES = frozenset({"nil", "true", "false", "iota", "_"})
MAX_HOPS = 8  # `a := b; b := a`: deeper is a cycle
Bindings = dict[str, list[Node | None]]  # a name -> each type or value expression it is bound to


class GoRefs:
    """Refs for one Go file's calls (extract.py asks per call)."""

    def __init__(self, root: Node, source: bytes, imports: Sequence[dict[str, Any]]) -> None:
        self.source = source
        self.packages: dict[str, int] = {}  # the name code uses for an import -> the import's ordinal
        for ordinal, imp in enumerate(imports):
            name = imp.get("alias") or go_import_name(imp["module"])
            if name not in ("_", "."):
                self.packages.setdefault(name, ordinal)
        self.package_values = _bindings(root)
        self._scopes: dict[int, Bindings] = {}

    def ref(self, call: Node, _caller: object = None) -> str | None:
        """The ref of a `call_expression` (the caller is read from the tree: `extract` passes it to any
        language's refs)."""
        function = call.child_by_field_name("function")
        if function is None or function.type != "selector_expression":
            return None
        operand, field = function.child_by_field_name("operand"), function.child_by_field_name("field")
        if operand is None or field is None:
            return None
        scopes = self._scopes_around(call)
        if operand.type == "identifier" and not self._local(self._text(operand), call):
            name, ordinal = self._text(operand), self.packages.get(self._text(operand))
            # an import's name, else a package-level variable of another file (`CommandLine.VarP()`)
            return (
                f"import#{ordinal}:{self._text(field)}" if ordinal is not None else f"module:{name}.{self._text(field)}"
            )
        typed = self._typed(operand, scopes, 0)  # a name's value, or a call's result: `NewT().M()`
        return f"{typed}.{self._text(field)}" if typed else None

    def value_refs(self, root: Node) -> list[tuple[Node, str]]:
        """The package-level names the file hands on as values, not calls (`state: lexTop`, `r.Get("/",
        handlers.List)`), each with its ref: where a function goes, it is called."""
        out = []
        stack = [root]
        while stack:
            node = stack.pop()
            stack.extend(node.named_children)
            if not _handed_on(node):
                continue
            if node.type == "identifier":
                name = self._text(node)
                if name not in _PREDECLARED_VALUES and not self._local(name, node):
                    out.append((node, f"value:{name}"))
            elif node.type == "selector_expression":
                operand, field = node.child_by_field_name("operand"), node.child_by_field_name("field")
                if operand is not None and field is not None and operand.type == "identifier":
                    package = self._text(operand)
                    if package in self.packages and not self._local(package, node):
                        out.append((node, f"value#{self.packages[package]}:{self._text(field)}"))
        return out

    def _local(self, name: str, node: Node) -> bool:
        """Whether a name at this node is bound by a function around it or at package level in this file."""
        return any(name in scope for scope in self._scopes_around(node))

    # --- what names the functions around a node bind ------------------------------------------------

    def _scopes_around(self, node: Node) -> list[Bindings]:
        """The names bound by each function around a node, innermost first, then the file's package-level."""
        scopes = []
        current: Node | None = node
        while current is not None:
            if current.type in _FUNCTIONS:
                if current.id not in self._scopes:
                    self._scopes[current.id] = _bindings(current)
                scopes.append(self._scopes[current.id])
            current = current.parent
        return [*scopes, self.package_values]

    # --- what type a name or value has --------------------------------------------------------------

    def _value_of(self, name: str, scopes: list[Bindings], hops: int) -> str | None:
        """The ref of a name's type (`module:T()`), when every binding of it in its scope says the same."""
        depth = next((i for i, scope in enumerate(scopes) if name in scope), None)
        if depth is None or hops > MAX_HOPS:
            return None
        outer = scopes[depth:]  # what its values name, they name where it is bound
        found = {self._typed(node, outer, hops + 1) if node is not None else None for node in scopes[depth][name]}
        return found.pop() if len(found) == 1 else None

    def _typed(self, node: Node, scopes: list[Bindings], hops: int) -> str | None:
        """The ref of the type of a type expression (a declared type) or a value expression."""
        kind = node.type
        if kind in ("pointer_type", "parenthesized_type", "parenthesized_expression"):
            inner = node.named_children[-1] if node.named_children else None
            return self._typed(inner, scopes, hops) if inner is not None else None
        if kind == "generic_type":
            return self._typed_field(node, "type", scopes, hops)
        if kind == "type_identifier":
            text = self._text(node)
            return None if text in _PREDECLARED else f"module:{text}()"
        if kind == "qualified_type":
            package, name = node.child_by_field_name("package"), node.child_by_field_name("name")
            ordinal = self.packages.get(self._text(package)) if package is not None else None
            return f"import#{ordinal}:{self._text(name)}()" if ordinal is not None and name is not None else None
        if kind == "unary_expression":
            operator = node.child_by_field_name("operator")
            return self._typed_field(node, "operand", scopes, hops) if operator and operator.text == b"&" else None
        if kind in ("composite_literal", "type_assertion_expression"):
            return self._typed_field(node, "type", scopes, hops)
        if kind == "identifier":
            return self._value_of(self._text(node), scopes, hops)
        if kind == "call_expression":
            return self._returned(node, scopes, hops)
        return None

    def _typed_field(self, node: Node, field: str, scopes: list[Bindings], hops: int) -> str | None:
        child = node.child_by_field_name(field)
        return self._typed(child, scopes, hops) if child is not None else None

    def _returned(self, call: Node, scopes: list[Bindings], hops: int) -> str | None:
        """What a call gives: `new(T)` a T, `T(x)` and `F(x)` what the store finds T or F to be."""
        function = call.child_by_field_name("function")
        if function is None:
            return None
        local = {name for scope in scopes for name in scope}
        if function.type == "identifier":
            name = self._text(function)
            if name == "new":
                arguments = call.child_by_field_name("arguments")
                first = arguments.named_children[0] if arguments is not None and arguments.named_children else None
                return self._typed(first, scopes, hops) if first is not None else None
            if name in _BUILTIN_CALLS or name in _PREDECLARED or name in local:
                return None  # a builtin, a conversion to a basic type, a local closure
            return f"module:{name}()"
        if function.type == "selector_expression":
            operand, field = function.child_by_field_name("operand"), function.child_by_field_name("field")
            if operand is not None and field is not None and operand.type == "identifier":
                package = self._text(operand)
                if package in self.packages and package not in local:
                    return f"import#{self.packages[package]}:{self._text(field)}()"
        return None

    def _text(self, node: Node) -> str:
        return node_text(node, self.source, 200)


def _bindings(owner: Node) -> Bindings:
    """The names a function (or the file, at package level) binds itself, with what each is bound to: a
    type expression, a value expression, or None where Go gives it a value of its own (a range variable,
    a type switch's). A closure inside binds its own: `f.VisitAll(func(f *Flag) {...})` has two `f`s."""
    bound: Bindings = {}

    def bind(name: Node | None, value: Node | None) -> None:
        if name is not None and name.type == "identifier" and name.text != b"_":
            bound.setdefault((name.text or b"").decode(), []).append(value)

    stack = list(owner.named_children)
    while stack:
        node = stack.pop()
        kind = node.type
        if kind in _FUNCTIONS:
            continue  # its own scope (a top-level function, inside the file; a closure, inside a function)
        if kind in ("parameter_declaration", "var_spec"):
            names = node.children_by_field_name("name")
            declared = node.child_by_field_name("type")
            values = _values(node.child_by_field_name("value"))
            for i, name in enumerate(names):
                bind(name, declared if declared is not None else _paired(values, i, len(names)))
        elif kind == "variadic_parameter_declaration":
            bind(node.child_by_field_name("name"), None)  # a slice of its type
        elif kind in ("short_var_declaration", "assignment_statement"):
            names = _values(node.child_by_field_name("left"))
            values = _values(node.child_by_field_name("right"))
            for i, name in enumerate(names):
                bind(name, _paired(values, i, len(names)))
        elif kind == "range_clause":
            for name in _values(node.child_by_field_name("left")):
                bind(name, None)
        elif kind == "type_switch_statement":
            for name in _values(node.child_by_field_name("alias")):
                bind(name, None)
        stack.extend(node.named_children)
    return bound


def _handed_on(node: Node) -> bool:
    """Whether an expression is a value handed on (`_VALUE_PLACES`), not what an assignment assigns to."""
    place = node.parent
    if place is None or place.type not in _VALUE_PLACES:
        return False
    assignment = place.parent
    return not (
        place.type == "expression_list"
        and assignment is not None
        and assignment.type in _ASSIGNMENTS
        and assignment.child_by_field_name("left") == place
    )


def _values(node: Node | None) -> list[Node]:
    if node is None:
        return []
    return list(node.named_children) if node.type == "expression_list" else [node]


def _paired(values: list[Node], index: int, names: int) -> Node | None:
    """The value the index-th of `names` names gets: its own, or the first of one expression's results
    (`v, err := F()`, `v, ok := x.(*T)`)."""
    if len(values) == names:
        return values[index]
    return values[0] if len(values) == 1 and index == 0 else None
