"""What a Go call's callee names, as far as its own file can tell: the call's `ref` (store/refs.py).

- `pkg.F()`, where pkg is an import's name (its alias, else Go's name for its path): `import#K:F`.
- `V.M()` on a package-level variable of another file of the package: `module:V.M` (the store reads V's
  type from its declaration, `var CommandLine = NewFlagSet(...)`).
- `v.M()` on a value whose type the file says: `module:T().M` for a type T of this package, where v is
  a receiver or parameter (`v *T`), `var v T`, `v := &T{...}`, `new(T)`, `T(x)` or `x.(*T)`;
  `module:F().M` when v is what a function of the package returns (`v := NewT()`; `v, err := NewT()`
  takes its first result); `import#K:T().M` and `import#K:F().M` through an import (`t *testing.T`).
- `v.f.M()` on a field of such a value: `module:T().f.M` (the store reads f's type from T's signature, `type T
  struct { f *Store; ... }`), and `pkg.V.M()` on an import's variable: `import#K:V.M`.
- `v.Get(k).M()` on what a method returns: `module:T().Get().M` (the store reads Get's declared result).
- `f.M()` on an element of a collection, `for _, f := range fs` or `f := m[k]`: of the element type the file
  declares (`fs []*Flag`: `module:Flag().M`) or, for a field, `module:S().flags[].M` (the store reads the
  element type from S's signature, `flags map[string]*Flag`).
- Anything else (a bare name, a value of a type switch) has no ref, and store/gocalls.py's rules by name apply.
- A value handed to the standard library's sorting and heap functions has the methods of their interfaces
  called: `sort.Sort(byName(xs))` is `value:byName().Len`, `.Less` and `.Swap` where it is handed on.
- A package-level name handed on as a value (`state: lexTop`, `r.Get("/", handlers.List)`) is a call
  of its own, `value:lexTop` or `value#K:List`, and so is a method value (`mux.HandleFunc("/", s.handle)`:
  `value:Server().handle`): Go programs call much of their code through function
  values (handlers, callbacks, state functions), and the function handing it on stands in for the
  caller the index cannot see.

`module` is the calling file's package, which is every `.go` file of its folder: store/gocalls.py
resolves these refs there. The rules are flow-insensitive, per function (a closure binds names of its
own and sees those of the functions around it): a name bound to two different types, or once to a value
of unknown type, has no type. Only a declaration binds (a parameter, `var`, `:=`, `range`): an assignment
(`n = n.getEdge(k)`) gives a variable no type of its own, as Go keeps the declared one, and in a closure it
is the variable of the function around.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from tree_sitter import Node, Query, QueryCursor

from ...store.gocalls import go_import_name
from ...store.refs import COLLECTION, as_value, collection_of, element_of
from .cyclememo import CycleMemo
from .nodes import positional_arguments
from .parse import captured, language, node_text
from .scopes import FunctionScopes

_PREDECLARED = frozenset(
    "any bool byte comparable complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune"
    " string uint uint8 uint16 uint32 uint64 uintptr".split()
)  # no method of them is the repository's (`error` is an interface: its Error() may be any type's)
_BUILTIN_CALLS = frozenset({"make", "len", "cap", "append", "copy", "min", "max", "complex", "real", "imag"})
_PREDECLARED_VALUES = frozenset({"nil", "true", "false", "iota", "_"})
# Every name of Go's universe block (the specification's "Predeclared identifiers"): none is the repository's.
UNIVERSE = (
    _PREDECLARED
    | _BUILTIN_CALLS
    | _PREDECLARED_VALUES
    | {"clear", "close", "delete", "new", "panic", "print", "println", "recover"}
)
MAX_HOPS = 8  # names and calls followed through one another at most (`a := b; b := a` meets itself: cyclememo.py)
# What the refs read of a Go file: functions (each binds names of its own), what binds a name, and the values
# a file hands on: an argument, a composite literal's element (not a key: `state:` names a field), a value
# assigned, declared or returned (not an assignment's target).
_QUERY = """
[(function_declaration) (method_declaration) (func_literal)] @function
[(parameter_declaration) (variadic_parameter_declaration) (var_spec) (short_var_declaration)
 (assignment_statement) (range_clause) (type_switch_statement)] @binder
(argument_list [(identifier) (selector_expression)] @value)
(literal_value (literal_element [(identifier) (selector_expression)] @value))
(keyed_element value: (literal_element [(identifier) (selector_expression)] @value))
(assignment_statement right: (expression_list [(identifier) (selector_expression)] @value))
(short_var_declaration right: (expression_list [(identifier) (selector_expression)] @value))
(var_spec value: (expression_list [(identifier) (selector_expression)] @value))
(return_statement (expression_list [(identifier) (selector_expression)] @value))
"""
# The standard library's functions that call the methods of the value handed to them, by the interface its
# parameter is (sort.Interface, heap.Interface): `sort.Sort(byName(fields))` runs byName's Len, Less and Swap.
_SORTING = ("Len", "Less", "Swap")
_HEAP = (*_SORTING, "Push", "Pop")
DISPATCHERS: dict[tuple[str, str], tuple[str, ...]] = {
    **{("sort", f): _SORTING for f in ("Sort", "Stable", "IsSorted")},
    **{("container/heap", f): _HEAP for f in ("Init", "Push", "Pop", "Fix", "Remove")},
}
_DISPATCH_QUERY = """
(call_expression function: (selector_expression operand: (identifier) @package field: (field_identifier) @function)
 arguments: (argument_list . (_) @value))
"""
Bindings = dict[str, list[Node | None]]  # a name -> each type or value expression it is bound to


class GoRefs:
    """Refs for one Go file's calls (extract.py asks per call), and the names it hands on as values. What they
    need of the tree (functions, what binds names, values handed on) comes from one query, and which function
    holds a node from byte offsets: a walk of the tree in Python doubled the time to extract a Go file."""

    def __init__(
        self, root: Node, source: bytes, imports: Sequence[dict[str, Any]], where: Callable[[int], object]
    ) -> None:
        self.source = source
        self._where = where  # the definition holding a byte of the file: where a value handed on is named
        self.packages: dict[str, int] = {}  # the name code uses for an import -> the import's ordinal
        for ordinal, imp in enumerate(imports):
            name = imp.get("alias") or go_import_name(imp["module"])
            if name not in ("_", "."):
                self.packages.setdefault(name, ordinal)
        self._results: dict[int, str | None] = {}  # what each call gives, by its node
        self._names: dict[tuple[str, int], str | None] = {}  # what each name is, by the scope binding it
        self._cycles = CycleMemo()  # where working out a name or a result leads back to itself
        found = captured(_query(), root)
        self._scopes: FunctionScopes[Node | None] = FunctionScopes(found.get("function", []))
        for binder in found.get("binder", []):
            self._bind(binder, self._scopes.at(binder.start_byte))
        self._values: list[tuple[Node, str]] = []  # package-level names handed on as values, with their refs
        for value in found.get("value", []):
            self._handed_on(value, self._scopes.around(value.start_byte))
        modules = {ordinal: imp["module"] for ordinal, imp in enumerate(imports)}
        called = {
            f"{name}.{function}(".encode()
            for name, ordinal in self.packages.items()
            for m, function in DISPATCHERS
            if modules[ordinal] == m
        }
        if any(text in source for text in called):  # a query of the whole tree costs 3 ms a file: only where needed
            self._dispatched(root, modules)

    def ref(self, call: Node, _caller: object, /) -> str | None:
        """The ref of a `call_expression` (the scopes around it are read from the tree, not from its caller)."""
        function = call.child_by_field_name("function")
        if function is None or function.type != "selector_expression":
            return None
        operand, field = function.child_by_field_name("operand"), function.child_by_field_name("field")
        if operand is None or field is None:
            return None
        scopes = self._scopes.around(call.start_byte)
        method = self._text(field)
        if operand.type == "identifier" and not _bound(name := self._text(operand), scopes):
            ordinal = self.packages.get(name)
            # an import's name, else a package-level variable of another file (`CommandLine.VarP()`)
            return f"import#{ordinal}:{method}" if ordinal is not None else f"module:{name}.{method}"
        typed = self._typed(operand, scopes, 0)  # a name's value, or a call's result: `NewT().M()`
        return f"{typed}.{method}" if typed and not typed.startswith(COLLECTION) else None

    def declared_fields(self) -> list[tuple[str, str, str]]:
        """None here: a struct's fields are in its signature (store/gocalls.py reads them there)."""
        return []

    def implicit_calls(self) -> list[tuple[Node, object, str]]:
        """The values handed on, each as a call where it is named."""
        return [(node, self._where(node.start_byte), ref) for node, ref in self._values]

    def _bind(self, node: Node, scope: Bindings) -> None:
        """The names a declaration, an assignment or a parameter binds, each to a type or value expression, or
        to None where Go gives it a value of its own (a range variable, a type switch's)."""
        kind = node.type
        if kind in ("parameter_declaration", "var_spec"):
            names = node.children_by_field_name("name")
            declared = node.child_by_field_name("type")
            values = _values(node.child_by_field_name("value"))
            for i, name in enumerate(names):
                self._bind_name(scope, name, declared if declared is not None else _paired(values, i, len(names)))
        elif kind == "variadic_parameter_declaration":
            self._bind_name(scope, node.child_by_field_name("name"), None)  # a slice of its type
        elif kind == "assignment_statement":
            return  # `xn = nds.findEdge(label)`: a variable's type is its declaration's, which `=` never changes
        elif kind == "short_var_declaration":
            names = _values(node.child_by_field_name("left"))
            values = _values(node.child_by_field_name("right"))
            for i, name in enumerate(names):
                self._bind_name(scope, name, _paired(values, i, len(names)))
        elif kind == "range_clause":  # `for _, f := range fs`: f is an element of fs (the first name, an index
            # or a map's key, is left untyped)
            names = _values(node.child_by_field_name("left"))
            for i, name in enumerate(names):
                self._bind_name(scope, name, node if i == 1 else None)
        else:  # a type switch's name: of each case's type in turn
            for name in _values(node.child_by_field_name("alias")):
                self._bind_name(scope, name, None)

    def _bind_name(self, scope: Bindings, name: Node | None, value: Node | None) -> None:
        if name is not None and name.type == "identifier" and (text := self._text(name)) != "_":
            scope.setdefault(text, []).append(value)

    def _dispatched(self, root: Node, modules: dict[int, str]) -> None:
        """`sort.Sort(v)`, `heap.Push(h, x)`: the methods the standard library calls on v, each a call where v is
        handed on, of v's type (the values handed on: they are reached through the function handing them on)."""
        for _, caps in QueryCursor(_dispatch_query()).matches(root):
            package, function, value = caps["package"][0], caps["function"][0], caps["value"][0]
            scopes = self._scopes.around(value.start_byte)
            ordinal = self._imported(self._text(package), scopes)
            methods = DISPATCHERS.get((modules.get(ordinal, ""), self._text(function))) if ordinal is not None else None
            typed = self._typed(value, scopes, 0) if methods else None
            if typed and typed.startswith("module:") and typed.endswith("()"):
                self._values += [(value, as_value(f"{typed}.{method}")) for method in methods or ()]

    def _handed_on(self, node: Node, scopes: list[Bindings]) -> None:
        """A value handed on: a package-level name of this package (`lexTop`) or an import's (`handlers.List`),
        or a method value of a typed value (`s.handle` in `mux.HandleFunc("/", s.handle)`)."""
        if node.type == "identifier":
            name = self._text(node)
            if name not in _PREDECLARED_VALUES and not _bound(name, scopes):
                self._values.append((node, f"value:{name}"))
        elif node.type == "selector_expression":
            operand, field = node.child_by_field_name("operand"), node.child_by_field_name("field")
            if operand is None or field is None or operand.type != "identifier":
                return
            name = self._text(operand)
            if (ordinal := self._imported(name, scopes)) is not None:
                self._values.append((node, f"value#{ordinal}:{self._text(field)}"))
            elif (typed := self._value_of(name, scopes, 0)) and not typed.startswith(COLLECTION):  # `value:T().f`
                self._values.append((node, as_value(f"{typed}.{self._text(field)}")))

    # --- what type a name or value has --------------------------------------------------------------

    def _value_of(self, name: str, scopes: list[Bindings], hops: int) -> str | None:
        """The ref of a name's type (`module:T()`), when every binding of it in its scope says the same: worked out
        once per scope binding it (a name is used again and again), and kept only when whole (cyclememo.py: what
        a walk cut short at MAX_HOPS, or leading back to itself, found may be less than the name's type)."""
        depth = next((i for i, scope in enumerate(scopes) if name in scope), None)
        if depth is None:
            return None
        outer = scopes[depth:]  # what its values name, they name where it is bound

        def work() -> str | None:
            found = {self._typed(node, outer, hops + 1) if node is not None else None for node in outer[0][name]}
            return found.pop() if len(found) == 1 else None

        return self._cycles.answer((name, id(outer[0])), work, self._names, None, too_deep=hops > MAX_HOPS)

    def _typed(self, node: Node, scopes: list[Bindings], hops: int) -> str | None:
        """The ref of the type of a type expression (a declared type) or a value expression."""
        kind = node.type
        if kind in ("pointer_type", "parenthesized_type", "parenthesized_expression"):
            inner = node.named_children[-1] if node.named_children else None
            return self._typed(inner, scopes, hops) if inner is not None else None
        if kind == "generic_type":
            return self._typed_field(node, "type", scopes, hops)
        if kind in ("slice_type", "array_type", "map_type"):  # `[]*T`, `map[K]T`: a collection of T
            element = self._typed_field(node, "value" if kind == "map_type" else "element", scopes, hops)
            return collection_of(element)
        if kind in ("range_clause", "index_expression"):  # an element of a collection: `range fs`, `m[k]`
            collection = self._typed_field(node, "right" if kind == "range_clause" else "operand", scopes, hops)
            return element_of(collection) if collection is not None else None
        if kind == "type_identifier":
            text = self._text(node)
            return None if text in _PREDECLARED else f"module:{text}()"
        if kind == "qualified_type":
            package, name = node.child_by_field_name("package"), node.child_by_field_name("name")
            ordinal = self.packages.get(self._text(package)) if package is not None else None
            return f"import#{ordinal}:{self._text(name)}()" if ordinal is not None and name is not None else None
        if kind == "unary_expression":
            operator = node.child_by_field_name("operator")
            return (
                self._typed_field(node, "operand", scopes, hops) if operator and self._text(operator) == "&" else None
            )
        if kind in ("composite_literal", "type_assertion_expression"):
            return self._typed_field(node, "type", scopes, hops)
        if kind == "identifier":
            return self._value_of(self._text(node), scopes, hops)
        if kind == "call_expression":
            return self._returned(node, scopes, hops)
        if kind == "selector_expression":  # a field of a typed value (`s.store`), an import's variable (`pkg.V`)
            operand, field = node.child_by_field_name("operand"), node.child_by_field_name("field")
            if operand is None or field is None:
                return None
            if hops > MAX_HOPS:
                self._cycles.cut()
                return None
            member = self._text(field)
            if operand.type == "identifier" and not _bound(owner_name := self._text(operand), scopes):
                # an import's variable, else a package-level one of another file
                ordinal = self.packages.get(owner_name)
                return f"import#{ordinal}:{member}" if ordinal is not None else f"module:{owner_name}.{member}"
            owner = self._typed(operand, scopes, hops + 1)
            return f"{owner}.{member}" if owner and not owner.startswith(COLLECTION) else None
        return None

    def _typed_field(self, node: Node, field: str, scopes: list[Bindings], hops: int) -> str | None:
        child = node.child_by_field_name(field)
        return self._typed(child, scopes, hops) if child is not None else None

    def _returned(self, call: Node, scopes: list[Bindings], hops: int) -> str | None:
        """What a call gives: `new(T)` a T, `T(x)`, `F(x)`, `pkg.F(x)` and `v.M(x)` what the store finds T, F or M
        to be (`module:FlagSet().Lookup()`: what FlagSet's Lookup returns). Once per call: each call of a chain
        (`a.B().C().D()`) asks for the ones before it."""
        work = functools.partial(self._result_of, call, scopes, hops)
        return self._cycles.answer(call.id, work, self._results, None, too_deep=hops > MAX_HOPS)

    def _result_of(self, call: Node, scopes: list[Bindings], hops: int) -> str | None:
        function = call.child_by_field_name("function")
        if function is None:
            return None
        if function.type == "identifier":
            name = self._text(function)
            if name == "new":
                arguments = call.child_by_field_name("arguments")
                given = positional_arguments(arguments) if arguments is not None else []
                first = given[0] if given else None
                return self._typed(first, scopes, hops) if first is not None else None
            if name in _BUILTIN_CALLS or name in _PREDECLARED or _bound(name, scopes):
                return None  # a builtin, a conversion to a basic type, a local closure
            return f"module:{name}()"
        if function.type == "selector_expression":  # `pkg.F()`, `s.Lookup(name)`: what Go declares it returns
            named = self._typed(function, scopes, hops + 1)
            return f"{named}()" if named is not None else None
        return None

    def _imported(self, name: str, scopes: list[Bindings]) -> int | None:
        """The ordinal of the import code names `name` by, where no binding around shadows it."""
        return self.packages.get(name) if not _bound(name, scopes) else None

    def _text(self, node: Node) -> str:
        return node_text(node, self.source, 200)


def _bound(name: str, scopes: list[Bindings]) -> bool:
    """Whether a function around (or the file, at package level) binds the name."""
    return any(name in scope for scope in scopes)


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


@functools.cache
def _query() -> Query:
    return Query(language("go"), _QUERY)


@functools.cache
def _dispatch_query() -> Query:
    return Query(language("go"), _DISPATCH_QUERY)
