"""What a JavaScript or TypeScript call's callee names, as far as its own file can tell: its `ref` (store/refs.py).

- `this.m()` in a class's method (or an arrow function inside it, which keeps `this`): `module:C().m`, the
  class's own or inherited m. A `function` in between has a `this` of its own: no ref.
- `x.m()` where x is a value of a class the file names: `x = new C()` (C a class of the file, or imported
  by name: `import#K:C().m`), `x = new ns.C()` through a namespace import, or a TypeScript parameter
  `x: C`; `new C().m()` the same.
- TypeScript says more, and the store reads the rest of what it says: `x.f.m()` on a field is `...f.m` (the
  store reads f's type, declared or assigned, from this file or another: jsmembers.py gives a file's), `const
  x: C = ...`, `(x as C).m()`, `x!.m()`, `x: C | undefined`, and what a call returns: `this.qb().where().m()`
  is `module:A().qb().where().m` (each method's result, declared or as its `return`s say: `: this`, `:
  Builder<T>`, `: Promise<T>` awaited or not). An element of a collection (`for (const c of t.cols)`,
  `t.cols.map(c => ...)`) is `...cols[].m`; of one the file declares (`let xs: C[]`), a C, and Array's own
  methods on it (`xs.map`) are `builtin:`, none of ours. A callback's parameter is what the function it is
  handed to declares (`m.transaction(em => ...)`: `...transaction(0,0)`); `c ? a : b`, either.
- A class's own name calls its statics (`module:C.m`); a module required or imported as itself is what it
  exports as itself (`import#K:default`, store/refs.py).
- `x.m()` on a literal, or on a name bound to one (`const chunks = []`, `const re = /x/`), is the language's
  own (`builtin:Array().push`); an array literal's element is whatever was put in it.
- `x.m()` on a value the file does not type is UNKNOWN (`?`): a guess by name, which may as well be another
  package's method (`response.clone()`).
- `ns.f()` where `import * as ns from` or `const ns = require()` bound ns: `import#K:f`; `A.f()` where A is a
  name imported from module K: `import#K:A.f`, and `A()` is `import#K:A`. `new ns.C()` and `new A()` run
  the imported class. Through an import of another package, the call is never the repository's.
- A bare call is what its name is bound to where it is called, as JavaScript scopes names: a function or class
  declared or assigned around it (`module:outer.inner`; `module:f#2` for the second of a name, two tests' own
  `makeRequest`), an import's. A name bound nowhere in a module is a global's (`builtin:setTimeout`; an
  object's `setTimeout () {}` method binds no name); in a script (no import, no export) it may be another
  script's global function, and one bound to a parameter or another value is not the file's to say: no ref,
  and the rules by name apply (store/callgraph.py).
- A function or method handed on as an argument (`socket.on('error', onError)`, `arr.map(this.format)`,
  `app.get('/', handlers.list)`) is a call where it is named, with the ref `value:` (`value#K:` through an
  import) for what the rules above would call it: whoever gets it calls it, where the index cannot see.

Flow-insensitive, per function (a closure binds names of its own and sees those around it): a name bound to
two values of different classes, or to one the rules cannot type, has no type.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from tree_sitter import Node, Query

from ...store.refs import (
    COLLECTION,
    DEFAULT,
    ELEMENT_RESULTS,
    GIVEN,
    MODULE,
    RESULT,
    UNKNOWN,
    as_value,
    collection_of,
    element_of,
    passed_to,
)
from .cyclememo import CycleMemo
from .jsbindings import Binding, Bindings, ElementOf, Imported, Passed, imported_by
from .jsmembers import ARROW, Definition, add_assigned_fields, annotation, declared_fields, inferred_results
from .nodes import positional_arguments
from .parse import captured, language, node_text
from .scopes import FunctionScopes, lookup

MAX_HOPS = 8  # `a = b; b = a`: deeper is a cycle
_DECLARATIONS = frozenset(  # each binds its name where it is declared
    {
        "function_declaration",
        "generator_function_declaration",
        "class_declaration",
        "abstract_class_declaration",
        "interface_declaration",
        "type_alias_declaration",
        "enum_declaration",
        "internal_module",
    }
)
_NAMED_KINDS = frozenset({"function", "class", "interface", "namespace"})  # what a ref may name by its symbol
_INSTANTIATED = frozenset({"function", "class", "interface"})  # what a value may be an instance of
_MEMBER_NAMES = frozenset({"property_identifier", "private_property_identifier"})  # `x.f`, `this.#f`
_TYPE_NAMES = frozenset({"type_identifier", "nested_type_identifier", "generic_type"})  # `C`, `ns.C`, `C<T>`
_FUNCTIONS = """[(function_declaration) (function_expression) (arrow_function) (method_definition)
 (generator_function_declaration) (generator_function)] @function
(variable_declarator) @binder
(formal_parameters) @parameters
(arguments [(identifier) (member_expression)] @handed)
(for_in_statement) @loop
(assignment_expression
  left: (member_expression object: (this) property: [(property_identifier) (private_property_identifier)])
  right: [(new_expression constructor: [(identifier) (member_expression)]) (assignment_expression)]) @made
(return_statement) @returned
"""
# A collection's methods whose callback's parameters (these) are elements of it (`columns.forEach(c => c.m())`)
_ELEMENT_CALLBACKS = {
    **dict.fromkeys(
        ("forEach", "map", "filter", "find", "findLast", "findIndex", "findLastIndex", "some", "every", "flatMap"),
        (0,),
    ),
    **dict.fromkeys(("reduce", "reduceRight"), (1,)),  # `(sum, c) => ...`
    "sort": (0, 1),
}
# A literal is a value of the language's own class (`const chunks = []; chunks.push(c)` calls Array's push, `const
# re = /\s/; re.test(s)` RegExp's test), though an array literal's elements are whatever was put in it.
_LITERAL_CLASSES = {"array": "Array", "string": "String", "template_string": "String", "regex": "RegExp"}
_SAME_COLLECTION = frozenset({"filter", "slice", "concat", "reverse", "sort"})  # and those giving its like


class JsRefs:
    """Refs for one JavaScript or TypeScript file's calls; `extract` asks per call."""

    def __init__(
        self,
        root: Node,
        source: bytes,
        lang: str,
        defs: Sequence[Definition],
        imports: Sequence[tuple[Node, list[dict[str, Any]], int]],
        where: Callable[[int], object],
    ) -> None:
        self.source = source
        self._where = where  # the definition holding a byte of the file: where a value handed on is named
        self._classes = {d.node.id: d.qualname for d in defs if d.kind == "class"}
        self._typescript = lang != "javascript"
        # an ES or CommonJS module, whose names are its own or the globals; not a script sharing the page's globals
        self._module = bool(imports) or any(marker in source for marker in (b"export ", b"module.exports", b"exports."))
        # a class's fields with a type, as written, by class: TypeScript's declared (`manager: EntityManager`,
        # `constructor(private db: Db)`), and what one class alone is assigned (`this.head = new Buffer()`)
        typed = defs if self._typescript else []
        self._fields = {d.qualname: declared_fields(d.node, source) for d in typed if d.kind in ("class", "interface")}
        self._fields.update({d.qualname: {} for d in defs if d.kind == "class" and d.qualname not in self._fields})
        self._function_names = {d.qualname.rpartition(".")[2] for d in defs if d.kind == "function"}
        self._import_names: set[str] = set()  # the names imports bind, anywhere in the file
        found = captured(_query(lang), root)
        self._scopes: FunctionScopes[Binding] = FunctionScopes(found.get("function", []))
        # each function and class the file defines, by its node: its symbol's name in the file (`f`, `outer.inner`,
        # `f#2`, the second of that name), what a bare call of a name bound to it calls
        self._defined = {d.node.id: d.id.partition("::")[2] for d in defs if d.kind in _NAMED_KINDS}
        self._kinds = {d.node.id: d.kind for d in defs}
        for d in defs:
            if d.node.type in _DECLARATIONS:  # `function f() {}` binds f where it is declared, as `const` would
                self._bind(self._declaring_scope(d.node), d.node.child_by_field_name("name"), d.node)
        requires: set[int] = set()
        for node, records, first in imports:
            requires |= self._bind_import(node, records, first)
        for declarator in found.get("binder", []):
            value = declarator.child_by_field_name("value")
            if value is None or value.id not in requires:
                name, declared = declarator.child_by_field_name("name"), annotation(declarator)
                self._bind_pattern(name, value, declarator.start_byte, declared)
        for parameters in found.get("parameters", []):
            self._bind_parameters(parameters)
        for function in found.get("function", []):  # `x => x()`: a parameter without parentheses
            if (parameter := function.child_by_field_name("parameter")) is not None:
                self._bind(self._scopes.names[self._scopes.innermost(parameter.start_byte)], parameter, None)
        for loop in found.get("loop", []):
            self._bind_loop(loop)
        if self._typescript:
            for function in found.get("function", []):
                self._bind_callback(function)
        self._this: dict[int, str | None] = {}  # per method: its class's qualified name
        assigned = [(self._this_class(a.start_byte), a) for a in found.get("made", [])]
        classes = [d for d in defs if d.kind == "class"]
        add_assigned_fields(self._fields, [(owner, a) for owner, a in assigned if owner is not None], classes, source)
        self._handed = found.get("handed", [])
        self._results = inferred_results(found.get("returned", []), self._scopes, defs, source)
        self._refs: dict[int, str | None] = {}  # per call: a chain's calls each type the ones before it
        self._bound_types: dict[tuple[int, int, int], str | None] = {}  # per binding
        self._cycles = CycleMemo()  # where typing a binding leads back to itself

    def ref(self, call: Node, _caller: object, /) -> str | None:
        """The ref of a `call_expression` or `new_expression` (the scopes around it are read from the tree)."""
        if call.id not in self._refs:
            self._refs[call.id] = self._ref(call)
        return self._refs[call.id]

    def _ref(self, call: Node) -> str | None:
        scopes = self._scopes.around(call.start_byte)
        if call.type == "new_expression":
            constructor = call.child_by_field_name("constructor")
            typed = self._class_of(constructor, scopes) if constructor is not None else None
            return typed.removesuffix("()") if typed else None
        function = call.child_by_field_name("function")
        if function is not None and function.type == "identifier":
            return self._bare_call(self._text(function), scopes)
        if function is None or function.type != "member_expression":
            return None
        subject, member = function.child_by_field_name("object"), function.child_by_field_name("property")
        if subject is None or member is None:
            return None
        method = self._text(member)
        if subject.type == "this":
            owner = self._this_class(call.start_byte)
            return f"module:{owner}().{method}" if owner else None
        if subject.type == "identifier" and (imported := imported_by(self._text(subject), scopes)) is not None:
            inside = "" if imported.namespace else f"{imported.name}."
            return f"import#{imported.ordinal}:{inside}{method}"
        typed = self._typed(subject, scopes, 0)
        if typed and typed.startswith(COLLECTION):  # `connections.map(...)` on a `DataSource[]`: Array's
            return f"builtin:{method}"
        # a value the file does not type (`response.clone()`): another module's as likely as ours, a guess by name
        return _each(typed, f".{method}") if typed else UNKNOWN

    def _bare_call(self, name: str, scopes: list[Bindings]) -> str | None:
        """`f()`: the function the name is bound to where it is called, as JavaScript scopes it (`import#K:f`
        after `import { f } from`, `module:outer.inner` for a function declared or assigned around it); a name
        bound nowhere in the file is a global's (`setTimeout`, `require`), never one of ours of that name (an
        object's method, `{ setTimeout () {} }`, binds no name); one bound to a parameter or another value is
        not the file's to say (the rules by name apply)."""
        bound = lookup(name, scopes)
        if not bound:  # in a script (no import, no export), a global may be another script's function of ours
            return f"builtin:{name}" if self._module else None
        if len(bound) == 1 and isinstance(bound[0], Imported):  # a module called is what it exports: `debug()`
            return f"import#{bound[0].ordinal}:{DEFAULT if bound[0].namespace else bound[0].name}"
        symbols = {self._defined.get(b.id) if isinstance(b, Node) else None for b in bound}
        return f"module:{symbols.pop()}" if len(symbols) == 1 and None not in symbols else None

    def _declaring_scope(self, node: Node) -> Bindings:
        """Where a declaration binds its name: the function around it (a function's own node is a scope of its own,
        which its name is not bound in), or the file's top level."""
        index = self._scopes.innermost(node.start_byte)
        if index >= 0 and self._scopes.functions[index].id == node.id:
            index = self._scopes.outer[index]
        return self._scopes.names[index] if index >= 0 else self._scopes.top

    def declared_fields(self) -> list[tuple[str, str, str]]:
        """Each class's fields with a type (declared, or assigned as above), and each function's result where the
        code says it (RESULT): (the class's or function's qualified name, the field, the type as written)."""
        fields = [(owner, name, written) for owner, fields in self._fields.items() for name, written in fields.items()]
        return [
            *fields,
            *((function, RESULT, written) for function, written in self._results.items()),
            *self._module_instances(),
        ]

    def _module_instances(self) -> list[tuple[str, str, str]]:
        """The names the file's top level binds once, to an instance of a class (`export const registry = new
        Registry()`; `const pool = new Pool()`, then `module.exports = { pool }`), as the ref of that instance
        (GIVEN, the module's own member: MODULE): another file's `registry.register()` is Registry's."""
        out = []
        for name, bound in self._scopes.top.items():
            typed = self._typed_binding(bound[0], 0) if len(bound) == 1 and isinstance(bound[0], Node) else None
            if typed and typed.endswith("()") and "|" not in typed and not typed.startswith(("builtin:", COLLECTION)):
                out.append((MODULE, name, f"{GIVEN}{typed}"))
        return out

    def implicit_calls(self) -> list[tuple[Node, object, str]]:
        """The functions and methods handed on as arguments, each as a call where it is named."""
        out = []
        for node in sorted(self._handed, key=lambda n: n.start_byte):
            named = self._value_ref(node)
            if named is not None:
                out.append((node, self._where(node.start_byte), named))
        return out

    def _value_ref(self, node: Node) -> str | None:
        """`value:f` for a function of the file, `value#K:f` for one imported by name, `value:C().m` for `this.m`
        or a typed value's method, `value#K:f` or `value#K:A.f` through an import's namespace or name."""
        if node.type == "identifier":
            name = self._text(node)
            if name not in self._function_names and name not in self._import_names:
                return None  # most arguments: local data
            called = self._bare_call(name, self._scopes.around(node.start_byte))  # what `name()` would call
            return as_value(called) if called is not None and not called.startswith("builtin:") else None
        subject, member = node.child_by_field_name("object"), node.child_by_field_name("property")
        if subject is None or member is None or member.type != "property_identifier":
            return None
        method = self._text(member)
        if subject.type == "this":
            owner = self._this_class(node.start_byte)
            return f"value:{owner}().{method}" if owner else None
        scopes = self._scopes.around(node.start_byte)
        if subject.type == "identifier" and (imported := imported_by(self._text(subject), scopes)) is not None:
            inside = "" if imported.namespace else f"{imported.name}."
            return f"value#{imported.ordinal}:{inside}{method}"
        if subject.type != "identifier":
            return None  # `this.a.b`: mostly data handed on, not a method: typing each costs more than it finds
        typed = self._typed(subject, scopes, 0)  # `module:C()` -> `value:C().m`, `import#K:C()` -> `value#K:C().m`
        usable = typed is not None and typed.startswith(("module:", "import#")) and "|" not in typed
        return as_value(f"{typed}.{method}") if usable else None

    # --- what names the file binds, and where ------------------------------------------------------

    def _bind(self, scope: Bindings, name: Node | None, value: Binding) -> None:
        if name is not None and name.type in ("identifier", "type_identifier", "shorthand_property_identifier_pattern"):
            scope.setdefault(self._text(name), []).append(value)
            if isinstance(value, Imported):
                self._import_names.add(self._text(name))

    def _bind_import(self, node: Node, records: list[dict[str, Any]], first: int) -> set[int]:
        """The names an import binds (`import * as ns`, `import { A as B }`, `const ns = require()`, `const { A }
        = require()`); the ids of the require calls it reads, which bind nothing else."""
        if not records:
            return set()
        if node.type == "import_statement":
            clause = next((c for c in node.named_children if c.type == "import_clause"), None)
            for part in clause.named_children if clause is not None else []:
                if part.type == "namespace_import":
                    for name in part.named_children:
                        self._bind(self._scopes.top, name, Imported(True, first, ""))
                elif part.type == "identifier":  # `import delay from`: the module's default
                    self._bind(self._scopes.top, part, Imported(False, first, DEFAULT))
                elif part.type == "named_imports":
                    for spec in part.named_children:
                        imported, alias = spec.child_by_field_name("name"), spec.child_by_field_name("alias")
                        if imported is not None:
                            self._bind(
                                self._scopes.top, alias or imported, Imported(False, first, self._text(imported))
                            )
            return set()
        declarator = node.parent
        if node.type != "call_expression" or declarator is None or declarator.type != "variable_declarator":
            return set()
        scope = self._scopes.at(node.start_byte)
        pattern = declarator.child_by_field_name("name")
        if pattern is not None and pattern.type == "identifier":
            self._bind(scope, pattern, Imported(True, first, ""))
        elif pattern is not None and pattern.type == "object_pattern":
            for part in pattern.named_children:
                if part.type == "shorthand_property_identifier_pattern":
                    self._bind(scope, part, Imported(False, first, self._text(part)))
                elif part.type == "pair_pattern":
                    key, value = part.child_by_field_name("key"), part.child_by_field_name("value")
                    if key is not None:
                        self._bind(scope, value, Imported(False, first, self._text(key)))
        return {node.id}

    def _bind_pattern(self, pattern: Node | None, value: Node | None, offset: int, declared: Node | None) -> None:
        """`const x = value` binds x to it, `const x: C = value` to its declared type; a destructuring binds its
        names to values the rules do not type."""
        if pattern is None:
            return
        scope = self._scopes.at(offset)
        if pattern.type == "identifier":
            self._bind(scope, pattern, declared if declared is not None else value)
            return
        for name in _descendants(pattern, ("identifier", "shorthand_property_identifier_pattern")):
            self._bind(scope, name, None)

    def _bind_loop(self, loop: Node) -> None:
        """`for (const c of cols)`: in TypeScript c is an element of cols (not in `for (k in o)`, which walks keys);
        otherwise a name of no type."""
        left, collection, scope = loop.child_by_field_name("left"), loop.child_by_field_name("right"), None
        if left is None:
            return
        scope = self._scopes.at(loop.start_byte)
        walks_elements = any(child.type == "of" for child in loop.children)
        if self._typescript and walks_elements and left.type == "identifier" and collection is not None:
            self._bind(scope, left, ElementOf(collection))
            return
        for name in _descendants(left, ("identifier", "shorthand_property_identifier_pattern")):
            self._bind(scope, name, None)

    def _bind_callback(self, function: Node) -> None:
        """A callback's parameters, where TypeScript gives them no type of their own: as what the function it is
        handed to declares them (`manager.transaction(em => em.save())`, `new Brackets(qb => ...)`); the first of
        `cols.forEach(c => c.m())` is an element of cols, of `connect().then(c => c.m())` what the promise gives
        (the store reads a `Promise<T>` result as a T)."""
        arguments = function.parent
        call = arguments.parent if arguments is not None and arguments.type == "arguments" else None
        if call is None or arguments is None or call.type not in ("call_expression", "new_expression"):
            return
        callee = call.child_by_field_name("function")
        method = callee.child_by_field_name("property") if callee is not None else None
        subject = callee.child_by_field_name("object") if callee is not None else None
        named = self._text(method) if method is not None and subject is not None else ""
        argument = positional_arguments(arguments).index(function)
        parameters = function.child_by_field_name("parameters")
        written = [function.child_by_field_name("parameter")] if parameters is None else parameters.named_children
        for index, parameter in enumerate(written):
            if parameter is None or annotation(parameter) is not None:
                continue
            name = parameter.child_by_field_name("pattern") if parameter.type.endswith("_parameter") else parameter
            if name is None or name.type != "identifier":
                continue
            value: Binding = Passed(call, argument, index)
            if subject is not None and argument == 0 and (named in _ELEMENT_CALLBACKS or named == "then"):
                if index not in _ELEMENT_CALLBACKS.get(named, (0,)):
                    continue  # `xs.map((x, i) => ...)`: an index
                value = subject if named == "then" else ElementOf(subject)
            self._scopes.names[self._scopes.innermost(name.start_byte)][self._text(name)] = [value]

    def _bind_parameters(self, parameters: Node) -> None:
        """A function's parameters, in its own scope: untyped, but a TypeScript `x: C` is a C."""
        index = self._scopes.innermost(parameters.start_byte)
        if index < 0:
            return
        scope = self._scopes.names[index]
        for parameter in parameters.named_children:
            pattern = parameter.child_by_field_name("pattern") if parameter.type.endswith("_parameter") else parameter
            annotation = parameter.child_by_field_name("type") if parameter.type.endswith("_parameter") else None
            declared = annotation.named_children[0] if annotation is not None and annotation.named_children else None
            if pattern is not None and pattern.type == "identifier":
                typed = declared is not None and (declared.type in _TYPE_NAMES or declared.type == "union_type")
                self._bind(scope, pattern, declared if typed else None)
            elif pattern is not None:
                for name in _descendants(pattern, ("identifier", "shorthand_property_identifier_pattern")):
                    self._bind(scope, name, None)

    # --- what class a value is -------------------------------------------------------------------------

    def _typed(self, node: Node, scopes: list[Bindings], hops: int) -> str | None:
        """The ref of the class a value is an instance of (`module:C()`), where the file says."""
        if hops > MAX_HOPS:
            self._cycles.cut()
            return None
        if node.type == "parenthesized_expression" and node.named_children:
            return self._typed(node.named_children[-1], scopes, hops + 1)
        if node.type == "new_expression":
            constructor = node.child_by_field_name("constructor")
            return self._class_of(constructor, scopes) if constructor is not None else None
        if node.type in _LITERAL_CLASSES:
            return f"builtin:{_LITERAL_CLASSES[node.type]}()"
        if node.type in ("type_identifier", "nested_type_identifier"):
            return self._class_of(node, scopes)
        if node.type == "array_type" and node.named_children:  # `DataSource[]`, as a declaration says
            element = self._typed(node.named_children[0], scopes, hops + 1)
            return collection_of(element)
        if node.type == "union_type":  # `Table | string`, `Column | undefined`: what a call on it may reach
            one = _one_of(node)
            return self._typed(one, scopes, hops + 1) if one is not None else None
        if node.type == "generic_type":  # `Repository<User>`: a Repository
            named = node.child_by_field_name("name")
            return self._typed(named, scopes, hops + 1) if named is not None else None
        if node.type in ("non_null_expression", "await_expression") and node.named_children:  # `x!`, `await x`
            return self._typed(node.named_children[0], scopes, hops + 1)
        if node.type in ("as_expression", "satisfies_expression") and len(node.named_children) == 2:  # `x as C`
            return self._typed(node.named_children[1], scopes, hops + 1)
        if node.type == "member_expression":  # `this.manager`, `column.relation`: a field, whose declared type the
            # store reads (the class's own, a base's, another file's)
            subject, member = node.child_by_field_name("object"), node.child_by_field_name("property")
            if subject is None or member is None or member.type not in _MEMBER_NAMES:
                return None
            owner = self._this_class(node.start_byte) if subject.type == "this" else None
            typed = f"module:{owner}()" if owner else self._typed(subject, scopes, hops + 1)
            if typed is None or typed == UNKNOWN or typed.startswith(COLLECTION):
                return None
            return _each(typed, f"{'' if typed.endswith(':') else '.'}{self._text(member)}")  # `ns.A`: `import#K:A`
        if node.type == "call_expression" and self._typescript:  # what TypeScript declares the callee returns
            of_collection = self._collection_call(node, scopes, hops)
            if of_collection is not None:
                return of_collection
            called = self.ref(node, None)
            if called is None or called == UNKNOWN or "builtin:" in called:
                return None  # `xs.find(...)` on an array: an element, which the store cannot tell from the call
            return _each(called, "()")
        if node.type == "ternary_expression":  # `isTable(t) ? t : await this.getTable(t)`: either, where both say
            branches = [node.child_by_field_name(side) for side in ("consequence", "alternative")]
            either = [self._typed(b, scopes, hops + 1) for b in branches if b is not None and b.type != "null"]
            if not either or any(t is None or t.startswith(COLLECTION) for t in either):
                return None
            return "|".join(dict.fromkeys(a for t in either if t is not None for a in t.split("|")))
        if node.type == "identifier":
            return self._typed_name(self._text(node), scopes, hops)
        return None

    def _typed_name(self, name: str, scopes: list[Bindings], hops: int) -> str | None:
        """What a name is: a class or namespace of the file itself (`module:C`, whose statics `C.m()` calls), what
        an import names (`import#K:A`), a global's in a module (`builtin:Promise`), or the value it is bound to."""
        bound = lookup(name, scopes)
        if not bound:
            return f"builtin:{name}" if self._module else None
        if len(bound) == 1 and isinstance(bound[0], Imported):
            return f"import#{bound[0].ordinal}:{bound[0].name}"
        if len(bound) == 1 and isinstance(bound[0], Node) and self._kinds.get(bound[0].id) in ("class", "namespace"):
            return f"module:{self._defined[bound[0].id]}"
        found = {self._typed_binding(b, hops) for b in bound}
        return found.pop() if len(found) == 1 else None

    def _collection_call(self, call: Node, scopes: list[Bindings], hops: int) -> str | None:
        """What an Array's method gives on a collection the file declares: an element (`cols.find(...)`) or the
        same collection (`cols.filter(...)`)."""
        callee = call.child_by_field_name("function")
        if callee is None or callee.type != "member_expression":
            return None
        subject, method = callee.child_by_field_name("object"), callee.child_by_field_name("property")
        if subject is None or method is None or self._text(method) not in ELEMENT_RESULTS | _SAME_COLLECTION:
            return None
        collection = self._typed(subject, scopes, hops + 1)
        if collection is None or not collection.startswith(COLLECTION):
            return None
        return collection.removeprefix(COLLECTION) if self._text(method) in ELEMENT_RESULTS else collection

    def _typed_binding(self, bound: Binding, hops: int) -> str | None:
        """What a name's binding is, once per binding: a name is used again and again."""
        if bound is None or isinstance(bound, Imported):
            return None
        key = (
            (bound.id, -1, -1)
            if isinstance(bound, Node)
            else (bound.collection.id, -2, -2)
            if isinstance(bound, ElementOf)
            else (bound.call.id, bound.argument, bound.parameter)
        )
        # A binding typed through itself is untyped, not an endless walk (`for (const e of xs) { const xs = e.kids }`,
        # vitest's run.ts, was a whole file lost); and what such a walk, or one cut short at MAX_HOPS, found is not
        # kept as the binding's type (cyclememo.py: it made a file's refs depend on the order its calls came in).
        work = functools.partial(self._type_of_binding, bound, hops)
        return self._cycles.answer(key, work, self._bound_types, None, too_deep=hops > MAX_HOPS)

    def _type_of_binding(self, bound: Node | ElementOf | Passed, hops: int) -> str | None:
        if isinstance(bound, ElementOf):  # `columns[]`: the store reads what an element of it is
            collection = self._typed(bound.collection, self._scopes.around(bound.collection.start_byte), hops + 1)
            if collection is None or "|" in collection or collection.startswith("builtin:"):
                return None  # an array literal's element (`for (const h of [a, b])`) is whatever was put in it
            return element_of(collection)
        if isinstance(bound, Passed):  # `...transaction(0,0)`: the store reads what the callee declares
            called = self.ref(bound.call, None)
            if called is None or called == UNKNOWN or "|" in called or called.startswith("builtin:"):
                return None
            return passed_to(called, bound.argument, bound.parameter)
        return self._typed(bound, self._scopes.around(bound.start_byte), hops + 1)

    def _class_of(self, node: Node, scopes: list[Bindings]) -> str | None:
        """`C` or `ns.C` as a class's ref: imported by name or through a namespace, or a class of the file."""
        if node.type in ("identifier", "type_identifier"):
            name = self._text(node)
            bound = lookup(name, scopes)
            if len(bound) == 1 and isinstance(bound[0], Imported):  # `new Agent()`, Agent a module: its export
                return f"import#{bound[0].ordinal}:{DEFAULT if bound[0].namespace else bound[0].name}()"
            if len(bound) == 1 and isinstance(bound[0], Node) and self._kinds.get(bound[0].id) in _INSTANTIATED:
                return f"module:{self._defined[bound[0].id]}()"  # a class of the file, declared or assigned
            return f"builtin:{name}()" if not bound and self._module else None  # a global's: `new Headers()`
        if node.type in ("member_expression", "nested_type_identifier"):  # `ns.C`, as a value or as a type
            subject = node.child_by_field_name("object" if node.type == "member_expression" else "module")
            member = node.child_by_field_name("property" if node.type == "member_expression" else "name")
            if subject is not None and member is not None and subject.type == "identifier":
                imported = imported_by(self._text(subject), scopes)
                if imported is not None and imported.namespace:
                    return f"import#{imported.ordinal}:{self._text(member)}()"
        return None

    def _this_class(self, offset: int) -> str | None:
        """The class whose instance `this` is at a byte: the method's around it, through arrow functions."""
        functions, index = self._scopes.functions, self._scopes.innermost(offset)
        while index >= 0 and functions[index].type == ARROW:
            index = self._scopes.outer[index]
        if index < 0 or functions[index].type != "method_definition":
            return None
        method = functions[index]
        if method.id not in self._this:
            body = method.parent
            owner = body.parent if body is not None and body.type == "class_body" else None
            self._this[method.id] = self._classes.get(owner.id) if owner is not None else None
        return self._this[method.id]

    def _text(self, node: Node) -> str:
        return node_text(node, self.source, 200)


def _each(typed: str, suffix: str) -> str:
    """Each alternative of a typed value (`A()|B()`, where a value may be either) with what follows it."""
    return "|".join(f"{alternative}{suffix}" for alternative in typed.split("|"))


def _one_of(union: Node) -> Node | None:
    """The one type a union names beside primitives and literals (`Table | string`, `Column | null | undefined`):
    a method called on the value is that type's, as TypeScript narrows it before the call."""
    members, stack = [], [union]
    while stack:
        node = stack.pop()
        if node.type == "union_type":
            stack.extend(node.named_children)
        elif node.type not in ("predefined_type", "literal_type"):
            members.append(node)
    return members[0] if len(members) == 1 else None


def _descendants(node: Node, types: tuple[str, ...]) -> list[Node]:
    out, stack = [], [node]
    while stack:
        current = stack.pop()
        if current.type in types:
            out.append(current)
        stack.extend(current.named_children)
    return out


@functools.cache
def _query(lang: str) -> Query:
    return Query(language(lang), _FUNCTIONS)
