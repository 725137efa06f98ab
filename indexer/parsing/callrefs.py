"""What a Python call's callee names, as far as its own file can tell: the call's `ref`.

A ref is `ROOT:PATH` (the grammar: store/refs.py). ROOT says where PATH starts: `module` (a
definition of this file, PATH its qualified name), `import#K` (the file's import number K, PATH the
name inside the module it imports), `super` (the bases of the class PATH) or `builtin`. A segment
ending in `()` is an instance of a class: `x = Parser(); x.parse()` is `module:Parser().parse`, and
so is `self.parse()` in a method of Parser. The store resolves refs to symbols (store/callgraph.py):
only there are other files known. The calls without call syntax these refs reveal (a function handed on
as a value, the methods `for` and `with` call, a property read) are pyimplicit.py's. What each scope of the
file binds is noted once, by pyscopes.py (`FileScopes`); this module follows names through it.

The rules are lexical and flow-insensitive, as PyCG's (but for what an isinstance test around a name or before it
says, pynarrowing.py): a name assigned two functions may call either (`a|b`); a parameter is what its annotation
names and what the file's own calls pass it (an `__init__`'s, what its class is made with), and a test's (or a
fixture's) the value of its pytest fixture (pyfixtures.py); a call gives an instance of the class called, what a
function of this file returns, or for a few library functions (`typing.cast`, `getattr`) what pylibcalls.py says;
a name assigned nothing but literals of one class holds that builtin class (`parts = []; parts.append(x)`: list's).
What none of that explains (an unannotated parameter of a function called from elsewhere, a value from a subscript
of unknown contents...) is UNKNOWN (`?`): such calls stay guesses by name, and say so.
"""

from __future__ import annotations

import builtins
import functools

from tree_sitter import Node

from ...store.refs import SUBSCRIPT, UNKNOWN, element_of
from . import pyannotations, pybuiltins
from .cyclememo import CycleMemo
from .nodes import NAME_LIMIT, decorator_expressions, dotted_or_none, is_async, positional_arguments, with_statement
from .parse import node_text
from .pyfixtures import fixture_parameter, fixture_params, fixture_value, is_fixture, parametrized
from .pyimplicit import calls_without_syntax
from .pylibcalls import library_result
from .pymembers import typed_members
from .pynarrowing import IsinstanceTests
from .pyscopes import ELEMENTS, Definition, FileScopes, Scope, decorated, literal_of, name_of
from .refsets import MAX_HOPS, NONE, Refs, capped, classes_of, instances_of

_BUILTINS = frozenset(dir(builtins))
_PARAM = frozenset({"pytest.param", "param"})  # a parametrize case written with its id or marks


class PythonRefs(FileScopes):
    """The refs of one file's calls: its scopes, built once per file, and what they say a call calls
    (`ref(call_node, caller)`).

    Flow-insensitive, as PyCG is: a name assigned two functions may call either, so a ref can be
    several, joined by `|`."""

    # Worked out when first asked, once the scopes are all noted: what a name or expression refers to, by (node,
    # scope); what a parameter is passed, by (def, name); and where a lookup leads back to itself (cyclememo.py).
    @functools.cached_property
    def _memo(self) -> dict[tuple[int, int], Refs]:
        return {}

    @functools.cached_property
    def _arguments(self) -> dict[tuple[str, int, str], Refs]:
        return {}

    @functools.cached_property
    def _assigned(self) -> dict[tuple[str, int, str], tuple[Refs, bool]]:
        return {}

    @functools.cached_property
    def _isinstance_tests(self) -> IsinstanceTests:
        return IsinstanceTests(self.source, self.calls)

    @functools.cached_property
    def _cycles(self) -> CycleMemo:
        return CycleMemo()

    def ref(self, call: Node, caller: Definition | None) -> str:
        """The call's ref (alternatives joined by `|`), or UNKNOWN: the file does not say what it calls."""
        function = call.child_by_field_name("function")
        found = NONE if function is None else self._ref(function, caller, 0)
        return "|".join(sorted(found)) if found else UNKNOWN

    def _ref(self, node: Node, where: Definition | None, hops: int) -> Refs:
        """Memoised per expression and scope: names lead to values that lead to names, and without
        it a file of a thousand calls walks the same chains a million times."""
        work = functools.partial(self._ref_uncached, node, where, hops)
        return self._cycles.answer((node.id, id(where)), work, self._memo, NONE, too_deep=hops > MAX_HOPS)

    def cut(self) -> Refs:
        """Nothing, for a walk cut short at MAX_HOPS (cyclememo.py)."""
        self._cycles.cut()
        return NONE

    def _ref_uncached(self, node: Node, where: Definition | None, hops: int) -> Refs:
        if node.type == "identifier":
            name = node_text(node, self.source, NAME_LIMIT)
            narrowed = self._narrowed(node, name, where, hops)
            return narrowed if narrowed is not None else self.ref_of_name(name, where, hops)
        if node.type == "attribute":
            return self._ref_of_attribute(node, where, hops)
        if node.type == "call":
            return self._ref_of_result(node, where, hops)
        if node.type == "assignment":  # `a = b = f`: the inner assignment's value
            right = node.child_by_field_name("right")
            return self._ref(right, where, hops + 1) if right is not None else NONE
        if node.type == "parenthesized_expression" and node.named_child_count == 1:
            return self._ref(node.named_children[0], where, hops + 1)
        if node.type in pybuiltins.OPERATORS:  # `x or y`, `root / "x"`
            return pybuiltins.operator_value(self, node, where, hops)
        if node.type == "subscript":  # `table[k]`: any element of table
            held = node.child_by_field_name("value")
            if held is not None and held.type == "attribute":  # `self.handlers[k]`: what the field's `[k]` gives,
                # a sequence's element or a mapping's value (iterating a mapping gives its keys: `[]` is that)
                refs = self._ref(held, where, hops + 1)
                return frozenset(f"{r}.{SUBSCRIPT}" for r in refs if element_of(r) is not None)
            return self._elements(held, where, hops + 1) if held is not None else NONE
        if node.type in ("for_statement", "for_in_clause"):  # the loop variable: any element of what it walks
            walked = node.child_by_field_name("right")
            return self._elements(walked, where, hops + 1) if walked is not None else NONE
        if node.type == "as_pattern":  # `except (A, B) as e`: an instance of a class it catches
            caught = node.named_children[0] if node.named_child_count else None
            classes = caught.named_children if caught is not None and caught.type == "tuple" else [caught]
            out = set[str]()
            for cls in classes:
                if cls is not None and cls.type in ("identifier", "attribute"):
                    out |= instances_of(self._ref(cls, where, hops + 1))
            return capped(out)
        if node.type == "with_item":  # `with self.make_context() as ctx`: what the value's `__enter__` gives
            value = node.child_by_field_name("value")
            managed = value.named_children[0] if value is not None and value.named_child_count else None
            found = self._ref(managed, where, hops + 1) if managed is not None else NONE
            enter = "__aenter__" if is_async(with_statement(node)) else "__enter__"
            return frozenset(f"{r}.{enter}()" for r in found if r.endswith("()") and pybuiltins.managed(r))
        return NONE

    def _narrowed(self, node: Node, name: str, where: Definition | None, hops: int) -> Refs | None:
        """What a name is where an isinstance test says so (pynarrowing.py): an instance of the class it tests;
        None where no test holds it."""
        tested = self._isinstance_tests.classes(node, name, where.node if where is not None else None)
        if tested is None:
            return None
        classes = set[str]().union(*(self._ref(cls, where, hops + 1) for cls in tested))
        if "builtin:type" in classes:
            return None  # `isinstance(x, type)`: x is a class, which one the test does not say
        return capped(instances_of(classes)) or None

    def _item(self, value: Node, position: int, where: Definition | None, hops: int) -> Refs:
        """The item at a place of what a value gives, unpacked (`a, b = f()`), or of an element of what a loop walks
        (`for a, b in pairs`): `enumerate(xs)` pairs a count with an element of xs, `zip(xs, ys)` an element of each."""
        walked = value.child_by_field_name("right") if value.type in ("for_statement", "for_in_clause") else None
        paired = self._paired(walked, where) if walked is not None else None
        if paired is not None:
            walks = paired[position] if 0 <= position < len(paired) else None
            return self._elements(walks, where, hops + 1) if walks is not None else NONE
        refs = self._ref(value, where, hops + 1)
        return frozenset(f"{r}[{position}]" for r in refs if r.endswith(("()", "[]")) and not r.startswith("builtin:"))

    def _paired(self, walked: Node, where: Definition | None) -> list[Node | None] | None:
        """What `enumerate(xs)` or `zip(xs, ys)` walks, per place of its items (None for the count and for anything
        else): the builtins, where the file does not bind their names."""
        function = walked.child_by_field_name("function") if walked.type == "call" else None
        arguments = walked.child_by_field_name("arguments")
        if function is None or arguments is None or function.type != "identifier":
            return None
        if self._ref(function, where, 0) != frozenset({f"builtin:{node_text(function, self.source)}"}):
            return None
        given: list[Node | None] = list(positional_arguments(arguments))
        if node_text(function, self.source) == "enumerate" and given:
            return [None, given[0]]
        return given if node_text(function, self.source) == "zip" else None

    def _elements(self, node: Node, where: Definition | None, hops: int) -> Refs:
        """The refs of what a list, tuple, set or dict literal (or a name holding one) holds; of what a call gives or
        an attribute holds, its element (`[]`), as the store reads it from the declared type."""
        if hops > MAX_HOPS:
            return self.cut()
        out: set[str] = set()
        if node.type in ("list", "tuple", "set", "expression_list"):
            for item in node.named_children:
                out |= self._ref(item, where, hops + 1)
        elif node.type == "dictionary":
            for pair in node.named_children:
                value = pair.child_by_field_name("value")
                if value is not None:
                    out |= self._ref(value, where, hops + 1)
        elif node.type == "identifier":
            name = node_text(node, self.source, NAME_LIMIT)
            for value, owner in self.values_of(name, where):
                out |= self._elements(value, owner, hops + 1)
            for value, owner in self.values_of(name + ELEMENTS, where):
                out |= self._ref(value, owner, hops + 1)
            declared = self.declared_type(name, where)  # `items: list[Item]`, a parameter or a typed local
            if declared is not None:
                out |= pyannotations.declared_elements(self, *declared, hops + 1)
        elif (copied := pybuiltins.copied_from(self, node, where)) is not None:  # `list(q)`, `q[:10]`: q's elements
            out |= self._elements(copied, where, hops + 1)
        elif node.type in ("call", "attribute"):  # `self.get_params(ctx)`: the store reads the declared element
            out |= {element for ref in self._ref(node, where, hops + 1) if (element := element_of(ref)) is not None}
        return capped(out)

    def declared_type(self, name: str, where: Definition | None) -> tuple[Node, Definition | None] | None:
        """The type a name's binding declares (a parameter's annotation, `xs: list[X] = []`), innermost scope first;
        None where the scope binding it declares none."""
        for scope, owner in self.function_scopes(where):
            if name in scope.annotations:
                return scope.annotations[name], owner.parent
            if name in scope.declared:
                return scope.declared[name], owner
            if name in scope.values or name in scope.params or name in scope.unpacked:
                return None
        return (self.module.declared[name], None) if name in self.module.declared else None

    def _parametrized(self, cases: Node, position: int, count: int, where: Definition | None, hops: int) -> Refs:
        """What a parametrized test's parameter takes: the item at its place of each case (of one name, the case
        itself; `pytest.param(IntRange(5), "5", id=...)` its arguments, `*HELLO` among them the tuple HELLO holds)."""
        out: set[str] = set()
        for case in self._items(cases, where):
            function, arguments = case.child_by_field_name("function"), case.child_by_field_name("arguments")
            if function is not None and arguments is not None and node_text(function, self.source) in _PARAM:
                values = [
                    v
                    for a in positional_arguments(arguments)
                    for v in (self._items(a, where) if a.type == "list_splat" else [a])
                ]
            else:
                values = [case] if count == 1 else self._items(case, where)
            if position < len(values):
                out |= self._ref(values[position], where, hops + 1)
        return capped(out)

    def _items(self, node: Node, where: Definition | None) -> list[Node]:
        """The items of a list or tuple literal, of the one a name holds, or of `*name`."""
        if node.type == "list_splat" and node.named_child_count:
            node = node.named_children[0]
        if node.type == "identifier":
            held = [v for v, _ in self.values_of(node_text(node, self.source, NAME_LIMIT), where)]
            return [item for value in held if value.type in ("list", "tuple") for item in self._items(value, where)]
        if node.type in ("list", "tuple"):
            return [item for item in node.named_children if not item.is_extra]
        return []

    def values_of(self, name: str, where: Definition | None) -> list[tuple[Node, Definition | None]]:
        """The expressions assigned to a name in the nearest scope that assigns it."""
        for scope, owner in self.function_scopes(where):
            if name in scope.values:
                return [(v, owner) for v in scope.values[name]]
        return [(v, None) for v in self.module.values.get(name, [])]

    def annotated(self, node: Node, where: Definition | None, hops: int, containers: bool = False) -> Refs:
        """An instance of what a type annotation names (pyannotations.py); with `containers`, a builtin one's too."""
        return pyannotations.annotated(self, node, where, hops, containers)

    def refs_of(self, node: Node, where: Definition | None, hops: int = 0) -> Refs:
        """What an expression names, as far as the file says: each alternative's ref (none where it does not say);
        `hops` for a walk already under way (pylibcalls.py's), which MAX_HOPS cuts short."""
        return self._ref(node, where, hops)

    def code_refs(self, node: Node, where: Definition | None) -> list[str]:
        """What an expression names among the file's definitions and its imports' (`module:`, `import#K:` refs), in
        order: a view, a model, a command group, a dependency; not a builtin, a parameter's value or what `super()`
        gives."""
        return sorted(r for r in self._ref(node, where, 0) if r.startswith(("module:", "import#")))

    def declared_fields(self) -> list[tuple[str, str, str]]:
        """What the file says its classes' attributes and its functions' results are, for other files (pymembers.py):
        (the class's or function's qualified name, the attribute or RESULT, the type as written)."""
        return typed_members(self)

    def results(self, d: Definition) -> list[Node]:
        """What a call of a function of this file gives: its `return`s; a fixture's value, its `yield`s if any."""
        scope = self.scopes.get(d.node.id)
        if scope is None:
            return []
        return scope.yields if scope.yields and is_fixture(d, self.source) else scope.returns

    def implicit_calls(self) -> list[tuple[Node, Definition | None, str]]:
        """Decorators, raised classes, calls of what no name says (`table[k]()`, `f()()`) and pyimplicit.py's
        (functions handed on as values, the methods `for` and `with` call, properties read), each with the scope
        it runs in and its ref."""
        out = calls_without_syntax(self)
        unnamed = [
            (f, where)
            for call, where in self.calls
            if (f := call.child_by_field_name("function")) is not None and f.type in ("subscript", "call")
        ]
        for node, where in self.implicit + unnamed:
            found = self._ref(node, where, 0)
            out.append((node, where, "|".join(sorted(found)) if found else UNKNOWN))
        return out

    def _ref_of_result(self, node: Node, where: Definition | None, hops: int) -> Refs:
        """What a call gives: an instance of a class, or what a function of this file returns."""
        function = node.child_by_field_name("function")
        if function is None:
            return NONE
        if function.type == "identifier" and node_text(function, self.source) == "super":
            cls = _enclosing_class(where)
            return frozenset({f"super:{cls.qualname}()"}) if cls is not None else NONE
        out: set[str] = set()
        arguments = node.child_by_field_name("arguments")
        passed = arguments.named_children if arguments is not None else []
        for base in self._ref(function, where, hops + 1):
            if base.startswith("builtin:") and pybuiltins.result_may_be_ours(self, function, where):
                continue  # `handlers.get(k)` of a `dict[str, Handler]`: one of ours, perhaps
            known = library_result(self, base, passed, where, hops + 1)  # `typing.cast(Group, cmd)`, `getattr(...)`
            if known is not None:
                out |= known
                continue
            d = self._defined(base)
            if d is not None and d.kind != "class":  # a function here: what its `return`s give
                # `return relay(y)` in hop, called by relay, gives nothing yet: that is not 'nothing'
                given, recursive = self._cycles.unfinished(functools.partial(self.given_by, d, hops))
                if given or not recursive:  # else its return annotation may say (store/callgraph.py)
                    out |= given or {f"{base}()"}
            elif not base.endswith(("()", ":")):
                out |= self._dispatched_by(base, hops) or {f"{base}()"}
        return capped(out)

    def _dispatched_by(self, base: str, hops: int) -> Refs:
        """What a method of this file's class gives where each of its `return`s is a member named at run time
        (Jinja's `get_visitor() -> Optional[VisitCallable]`: `return getattr(self, f"visit_{kind}", None)`), which
        its annotation cannot say; nothing for any other method, whose annotation speaks (store/resolver.py)."""
        instance, _, method = base.removeprefix("module:").rpartition("().")
        d = self.by_qualname.get(f"{instance}.{method}") if instance and base.startswith("module:") else None
        if d is None or d.kind == "class":
            return NONE
        given, _ = self._cycles.unfinished(functools.partial(self.given_by, d, hops))
        return given if given and all(ref.endswith("*") for ref in given) else NONE

    def _with_decorated(self, found: Refs, hops: int) -> Refs:
        """Refs of values, and for a function of this file a decorator makes into something else, that too:
        `@click.group() def cli` is what `click.group()` gives (a Group, as its annotation says), so `cli.command()`
        is Group's; `@dec def f` what `dec(f)` gives. The function's own ref stays first among the alternatives."""
        out = set(found)
        for ref in found:
            d = self._defined(ref)
            if d is None or d.kind != "function" or not (written := decorator_expressions(d.outer, d.node)):
                continue
            decorator = written[0]
            made = self._ref(decorator, d.parent, hops + 1)
            out |= made if decorator.type == "call" else {f"{r}()" for r in made if not r.endswith("()")}
        return capped(out)

    def given_by(self, d: Definition, hops: int) -> Refs:
        """What a function of this file gives, as its `return`s (a fixture's `yield`s) say."""
        return frozenset(ref for value in self.results(d) for ref in self._ref(value, d, hops + 1))

    def _supplied(self, d: Definition, position: int, hops: int) -> Refs:
        """A decorated function's parameter as each of its decorators (a name, not a call) declares the callable it
        takes: `@click.pass_context def cli(ctx)` is `import#3:pass_context(0,0)` (store/refs.py's `m(i,j)`),
        a Context as `pass_context(f: Callable[Concatenate[Context, P], R])` says."""
        if d.kind != "function":
            return NONE
        out: set[str] = set()
        for decorator in decorator_expressions(d.outer, d.node):
            if decorator.type in ("identifier", "attribute"):
                found = self._ref(decorator, d.parent, hops + 1)
                out |= {f"{r}(0,{position})" for r in found if r.startswith(("module:", "import#")) and "(" not in r}
        return capped(out)

    def ref_of_name(self, name: str, where: Definition | None, hops: int) -> Refs:
        for scope, owner in self.function_scopes(where):
            found = self._in_scope(scope, name, owner, hops)
            if found is not None:
                return found
        if where is not None and where.kind == "class":  # a call in the class body sees the class's names
            found = self._in_scope(self.scopes.get(where.node.id), name, where, hops)
            if found is not None:
                return found
        found = self._in_scope(self.module, name, None, hops)
        if found is not None:
            return found
        if not self.star_imports and name in _BUILTINS:
            return frozenset({f"builtin:{name}"})  # never a same-named function of the repository
        return frozenset(f"import#{k}:{name}" for k in self.star_imports)  # perhaps from `import *`

    def _in_scope(self, scope: Scope | None, name: str, owner: Definition | None, hops: int) -> Refs | None:
        """The refs a scope gives a name; None when the scope does not bind it (look further out)."""
        if scope is None:
            return None
        out: set[str] = set()
        bound = False
        if name in scope.values:
            bound = True
            declared = self.annotated(scope.declared[name], owner, hops + 1, True) if name in scope.declared else NONE
            if declared:  # `store: Store | None = None`: the declaration says more than the values
                return declared
            work = functools.partial(self._assigned_refs, scope, name, owner, hops)
            given, told = self._cycles.answer(("assigned", id(scope), name), work, self._assigned, (NONE, False), False)
            out |= given
            # `def func` in one branch, `func = make_getter()` in another: either may be called. Where a value is
            # one the file cannot tell, the call stays a guess by name (which the def would hide).
            if name in scope.refs and name not in scope.params and told:
                out.add(scope.refs[name])
        if name in scope.unpacked:  # `cmd_name, cmd, args = self.resolve_command(...)`: cmd, its result's item 1
            bound = True
            for value, position in scope.unpacked[name]:
                out |= self._item(value, position, owner, hops + 1)
        if name in scope.params and owner is not None:
            bound = True
            if name in scope.refs:  # self
                return frozenset({scope.refs[name]})
            if name in scope.annotations:  # `ctx: Context`: an instance of Context
                out |= self.annotated(scope.annotations[name], owner.parent, hops + 1, True)
            elif fixture_parameter(owner, name, self.source):  # `def test_x(runner)`: the fixture `runner`'s value
                out |= fixture_value(self, owner, name, hops)
            elif (cases := parametrized(owner, name, self.source)) is not None:  # `@pytest.mark.parametrize`
                out |= self._parametrized(*cases, owner.parent, hops)
            elif (inherited := _inherited(owner, name)) is not None:  # `def parse(self, parser)` of a subclass
                out.add(inherited)
            else:  # `@pass_context def cli(ctx)`: what the decorator declares it hands the function
                out |= self._supplied(owner, scope.params.index(name), hops)
            out |= self._arguments_for(owner, name, hops)
        if bound:
            return capped(out)
        if name in scope.refs:
            return frozenset({scope.refs[name]})
        return NONE if name in scope.shadowed else None

    def _assigned_refs(self, scope: Scope, name: str, owner: Definition | None, hops: int) -> tuple[Refs, bool]:
        """The refs of the values a scope assigns a name, and whether each value has some. A value updating the name
        from itself (`q = q.filter(...)`) leads back to it: the walk stops there once per name, where it stopped once
        per place the name is written, and a name updated in three places made more alternatives than a ref keeps
        (MAX_ALTERNATIVES): nothing was said of it."""
        given = [self._ref(v, owner, hops + 1) for v in scope.values[name]]
        return frozenset().union(*given), all(given)

    def _arguments_for(self, d: Definition, name: str, hops: int) -> Refs:
        """What the calls of this file pass a function's parameter (same file only)."""
        work = functools.partial(self._passed, d, name, hops)
        return self._cycles.answer(
            ("arguments", d.node.id, name), work, self._arguments, NONE, too_deep=hops > MAX_HOPS
        )

    def _passed(self, d: Definition, name: str, hops: int) -> Refs:
        scope = self.scopes[d.node.id]
        position = scope.params.index(name)
        wanted = f"module:{d.qualname}"
        short = name_of(d.qualname)
        # `Holder(worker)` passes worker to Holder.__init__'s `worker`: the calls named by the class, or by a class
        # of this file it makes instances of too, are looked at
        cls = d.parent if short == "__init__" and d.kind == "method" and d.parent.kind == "class" else None
        named = [short]
        if cls is not None:
            named += sorted({name_of(c.qualname) for c in self.by_qualname.values() if self._constructs(c, cls)})
        out: set[str] = set()
        for call, caller in (site for n in named for site in self._calls_named.get(n, [])):
            function = call.child_by_field_name("function")
            arguments = call.child_by_field_name("arguments")
            if function is None or arguments is None:
                continue
            targets = self._ref(function, caller, hops + 1)
            if wanted in targets:  # `C.m(x)`: a classmethod's cls is not among the arguments either
                offset = 1 if d.kind == "method" and decorated(d, self.source, "@classmethod") else 0
            elif cls is not None and any(self._constructs(self._defined(t), cls) for t in targets):
                offset = 1  # `self` is made, not passed
            elif d.kind == "method" and any(self._may_run(t, d) for t in targets):
                # called on an instance: `self` is not among the arguments (a staticmethod has none)
                offset = 0 if decorated(d, self.source, "@staticmethod") else 1
            else:
                continue
            positional = positional_arguments(arguments)
            for a in arguments.named_children:
                key_node = a.child_by_field_name("name") if a.type == "keyword_argument" else None
                if key_node is not None and node_text(key_node, self.source) == name:
                    value = a.child_by_field_name("value")
                    if value is not None:
                        out |= self._ref(value, caller, hops + 1)
            index = position - offset
            if 0 <= index < len(positional) and not any(
                p.type in ("list_splat", "dictionary_splat") for p in positional[: index + 1]
            ):
                out |= self._ref(positional[index], caller, hops + 1)
        return capped(out)

    def _constructs(self, made: Definition | None, cls: Definition) -> bool:
        """Whether calling a definition of this file makes an instance with its class `cls`'s `__init__`: `cls`, or a
        class deriving from it that defines no `__init__` of its own."""
        if made is None or made.kind != "class":
            return False
        own = f"{made.qualname}.__init__" in self.by_qualname
        return made is cls or (not own and self._descends(made, cls.qualname, 0))

    def _defined(self, ref: str) -> Definition | None:
        """The definition of this file a `module:` ref names (`module:Parser.parse`); None for any other ref."""
        return self.by_qualname.get(ref.removeprefix("module:")) if ref.startswith("module:") else None

    def _may_run(self, target: str, method: Definition) -> bool:
        """Whether a call of `target` (`module:Context().invoke`) may run this file's `method`: a call on an
        instance of the method's class, of a class of this file between which and the method's one descends
        from the other (an override runs where its base's method is called), or of what the file cannot say;
        not a call on an instance of an unrelated class of this file (Context.invoke is not Command.invoke)."""
        receiver, dot, name = target.rpartition("().")
        if not dot or name != name_of(method.qualname):
            return False
        known = self._defined(receiver)
        if known is None or known.kind != "class":
            return True
        owner = method.parent
        return self._descends(known, owner.qualname, 0) or self._descends(owner, known.qualname, 0)

    def _descends(self, cls: Definition, ancestor: str, hops: int) -> bool:
        """Whether a class of this file is `ancestor`, or descends from it through the classes of this file its
        bases name."""
        if cls.qualname == ancestor:
            return True
        bases = cls.node.child_by_field_name("superclasses")
        if bases is None or hops > MAX_HOPS:
            return False
        return any(
            (found := self.by_qualname.get(node_text(base, self.source, NAME_LIMIT))) is not None
            and found.kind == "class"
            and self._descends(found, ancestor, hops + 1)
            for base in bases.named_children
            if base.type in ("identifier", "attribute")
        )

    @functools.cached_property
    def _calls_named(self) -> dict[str, list[tuple[Node, Definition | None]]]:
        """The file's calls by the name they call (`f` for `f()` and `x.f()`), built once when asked."""
        by_name: dict[str, list[tuple[Node, Definition | None]]] = {}
        for call, caller in self.calls:
            function = call.child_by_field_name("function")
            named = (
                function.child_by_field_name("attribute")
                if function is not None and function.type == "attribute"
                else function
            )
            if named is not None and named.type == "identifier":
                by_name.setdefault(node_text(named, self.source, NAME_LIMIT), []).append((call, caller))
        return by_name

    def _ref_of_attribute(self, node: Node, where: Definition | None, hops: int) -> Refs:
        obj, attr = node.child_by_field_name("object"), node.child_by_field_name("attribute")
        if obj is None or attr is None:
            return NONE
        name = node_text(attr, self.source, NAME_LIMIT)
        if name == "__class__":  # `self.__class__(value)` makes another of self's class
            return classes_of(self._ref(obj, where, hops + 1))
        if name == "param" and (params := fixture_params(where, node_text(obj, self.source), self.source)) is not None:
            return self._elements(params, where.parent if where is not None else None, hops + 1)  # `request.param`
        # `chunks = []; chunks.append(c)`: list's, as `", ".join(xs)` is str's and `{...}.get(k)` dict's
        literal = (
            self.literal_class(node_text(obj, self.source), where) if obj.type == "identifier" else literal_of(obj)
        )
        if literal is not None:
            return frozenset({f"builtin:{literal}().{name}"})
        expression = dotted_or_none(node, self.source)
        if expression is not None and not self.ref_of_name(expression.split(".", 1)[0], where, hops):
            for module, k in self.longest_first:  # `import a.b; a.b.f()`
                if expression.startswith(module + "."):
                    return frozenset({f"import#{k}:{expression[len(module) + 1 :]}"})
            package = expression.split(".", 1)[0]
            if any(module.startswith(package + ".") for module, _ in self.longest_first):
                return frozenset({f"module:{expression}"})  # `import a.b` binds a too: `a.f()` is the package's f
        out: set[str] = set()
        for base in self._with_decorated(self._ref(obj, where, hops + 1), hops):
            if base.startswith("module:") and base.endswith("()"):  # an attribute an instance or its class holds
                cls = base[len("module:") : -2]
                declared = self.attribute_types.get(cls, {}).get(name)
                typed = self.annotated(declared[0], declared[1], hops + 1) if declared is not None else NONE
                if typed:  # its declared type says more than what is assigned (`= None`, `field(...)`)
                    out |= typed
                    continue
                if declared is not None:  # a collection (`t.Sequence[ParamType]`): the store reads its elements
                    out.add(f"{base}.{name}")
                    continue
                pairs = list(self.instance_attributes.get(cls, {}).get(name, []))
                body = self.class_scopes.get(cls)
                if body is not None:
                    pairs += [(v, body[1]) for v in body[0].values.get(name, [])]
                given = set[str]().union(*(self._ref(v, w, hops + 1) for v, w in pairs))
                if given:
                    out |= given
                    continue
                # assigned what the file cannot type here (`self.items = items`, `items: Sequence[Item]`): the
                # member, whose type the store reads as its `fields` declare it (an element of it, when iterated)
            out.add(f"{base}{name}" if base.endswith(":") else f"{base}.{name}")
        return capped(out)


def _inherited(method: Definition, name: str) -> str | None:
    """The ref of a parameter declaring no type of a method of a class with bases, as the method it may override
    declares it (store/refs.py's `m(p)`): `super:ScopeExt().parse(parser)`. Type checkers read an override's
    parameters so; the store finds the overridden method, or nothing, and then the calls stay guesses."""
    cls = method.parent
    if method.kind != "method" or cls is None or cls.kind != "class":
        return None
    if cls.node.child_by_field_name("superclasses") is None:
        return None
    return f"super:{cls.qualname}().{name_of(method.qualname)}({name})"


def _enclosing_class(d: Definition | None) -> Definition | None:
    while d is not None and d.kind != "class":
        d = d.parent
    return d
