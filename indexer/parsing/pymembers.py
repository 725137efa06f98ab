"""What a Python file says its classes' attributes, its functions' results and its top level's instances are, for
other files: the dependencies projection's `fields`, which store/resolver.py reads to follow `a.store.get()`,
`make_runner().invoke()` or `app.route()` in another file. Four kinds, each as written in the file:
- an attribute with a declared type: `store: Store` in a class body (a dataclass's field), `self.store: Store = ...`;
- an attribute declaring none that its methods assign one class's instance, or an annotated parameter:
  `self.current = Token(...)`, `self.cache = cache` of `cache: Cache | None`; or else what one call gives, as the
  ref of that value (GIVEN, store/refs.py: `self.stream = environment._tokenize(...)`, whose result the store
  reads from `_tokenize`'s annotation);
- a function's result (RESULT, store/refs.py) where it declares none and each of its `return`s (a fixture's `yield`s)
  makes an instance of the same class: `return CliRunner()`, `env = Environment(); yield env`, a classmethod's
  `return cls(...)`, a method's `return self` (`__enter__`), or gives what one function of ours gives
  (`return make_runner()`);
- a name the module's top level binds to what calls give, all one instance (MODULE, store/refs.py, as GIVEN):
  `app = Flask(__name__)`, dateutil's `rrulestr = _rrulestr()`; and so a name a class body binds (a Django model's
  `objects = ProfileManager()`: `Profile.objects.for_user()` calls its method);
- a name the module's top level binds to one function, as that function's value ref (MODULE, as GIVEN `value:...`):
  `alias = work`, `build_pack = _to_the_end(pack_steps)` (what `_to_the_end` returns: its inner `whole`),
  `fetch = functools.partial(get, timeout=5)`: another file's `from m import alias` then `alias()` runs it; and so
  a name a class body binds to one of its methods (`__repr__ = __str__`, `fetch = get`): `box.fetch()` runs get."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tree_sitter import Node

from ...store.refs import GIVEN, MODULE, RESULT, as_value, is_instance
from .nodes import NAME_LIMIT, dotted_or_none
from .parse import node_text
from .pyscopes import literal_of

if TYPE_CHECKING:
    from .callrefs import PythonRefs
    from .pyscopes import Definition, Scope


def typed_members(refs: PythonRefs) -> list[tuple[str, str, str]]:
    """(the class's or function's qualified name, the attribute or RESULT, the type as written)."""
    declared = [
        (owner, name, node_text(written, refs.source, 200))
        for owner, attributes in refs.attribute_types.items()
        for name, (written, _) in attributes.items()
    ]
    results = [(function, RESULT, made) for function, made in _results(refs).items()]
    instances = _module_instances(refs) + _class_instances(refs)
    return declared + _assigned(refs) + results + instances + _module_functions(refs) + _aliases(refs)


def _module_instances(refs: PythonRefs) -> list[tuple[str, str, str]]:
    """The names the module's top level binds to one instance, by calls that all give it (dateutil's `rrulestr =
    _rrulestr()`, `app = Flask(__name__)`), as the ref of that value (GIVEN): another file's `from m import app`
    then `app.route()` calls on it. Not a name anything else binds too (a definition, an import, another value)."""
    otherwise = _bound_otherwise(refs.module)
    return [
        (MODULE, name, made)
        for name, values in refs.module.values.items()
        if name not in otherwise and (made := _one_instance(refs, values, None))
    ]


def _class_instances(refs: PythonRefs) -> list[tuple[str, str, str]]:
    """The names a class body binds to one instance, by calls that all give it (a Django model's custom manager,
    `objects = ProfileManager()`), as the ref of that value (GIVEN): `Profile.objects.for_user()` calls on it. Not a
    name the class declares or its methods assign, nor one it binds otherwise."""
    out = []
    for cls, (scope, where) in refs.class_scopes.items():
        taken = _bound_otherwise(scope) | {*refs.instance_attributes.get(cls, ()), *refs.attribute_types.get(cls, ())}
        out += [
            (cls, name, made)
            for name, values in scope.values.items()
            if name not in taken and (made := _one_instance(refs, values, where))
        ]
    return out


def _one_instance(refs: PythonRefs, values: list[Node], where: Definition | None) -> str | None:
    """The one instance the values a name is bound to all give, by calls (GIVEN and its ref); None if not one."""
    given = [_given(refs, value, where) for value in values]
    made = set().union(*given)
    return f"{GIVEN}{made.pop()}" if len(made) == 1 and all(given) else None


def _module_functions(refs: PythonRefs) -> list[tuple[str, str, str]]:
    """The names the module's top level binds to one function of the file or of an import, as calling them there
    runs it (`alias = work`, `run = wrap(work)`: wrap's inner function it returns), by the function's value ref
    (GIVEN `value:wrap.whole`): another file's `from m import run` then `run()` runs it too. Not a name anything else
    binds (a definition, an import, another value), nor an instance (`_module_instances`)."""
    out = []
    otherwise = _bound_otherwise(refs.module)
    for name in refs.module.values:
        if name in otherwise:
            continue
        called = refs.ref_of_name(name, None, 0)
        if len(called) != 1:
            continue
        ref = next(iter(called))
        if ref.startswith(("module:", "import#")) and not ref.endswith(")") and not any(c in ref for c in "[?|"):
            out.append((MODULE, name, f"{GIVEN}{as_value(ref)}"))
    return out


def _aliases(refs: PythonRefs) -> list[tuple[str, str, str]]:
    """The names a class body binds to one method of the class (`fetch = get`, `__repr__ = __str__`), by the method's
    value ref (GIVEN `value:Box.get`); not a name the class defines, declares or its methods assign."""
    out = []
    for d in refs.by_qualname.values():
        scope = refs.scopes.get(d.node.id) if d.kind == "class" else None
        if scope is None:
            continue
        taken = _bound_otherwise(scope) | {
            *refs.instance_attributes.get(d.qualname, ()),
            *refs.attribute_types.get(d.qualname, ()),
        }
        for name in scope.values:
            if name in taken:
                continue
            values = scope.values[name]
            named = node_text(values[0], refs.source, NAME_LIMIT) if values[0].type == "identifier" else ""
            method = refs.by_qualname.get(f"{d.qualname}.{named}") if len(values) == 1 and named else None
            if method is not None and method.kind != "class":
                out.append((d.qualname, name, f"{GIVEN}{as_value(f'module:{method.qualname}')}"))
    return out


def _bound_otherwise(scope: Scope) -> set[str]:
    """The names a module or class binds besides by assigning them: a definition, an import, a loop or `with` target,
    an unpacking. Bound so, a name holds no one value the assignments can say."""
    return {*scope.refs, *scope.unpacked, *scope.shadowed}


def _assigned(refs: PythonRefs) -> list[tuple[str, str, str]]:
    """Attributes declaring no type that the class's methods assign one class's instance or an annotated parameter,
    or else the result of one call, or else only literals of one builtin class (`self.map = {}`: dict); assignments
    of other values (`= None`, `= next(it)`) say nothing against the first two."""
    out = []
    for owner, attributes in refs.instance_attributes.items():
        for name, pairs in attributes.items():
            if name in refs.attribute_types.get(owner, {}):
                continue
            made = {m for value, where in pairs if where is not None and (m := _made(refs, value, where))}
            if not made:
                made = {
                    f"{GIVEN}{r}" for value, where in pairs if where is not None for r in _given(refs, value, where)
                }
            if not made:  # `self.map = {}`: a dict, whose `pop` is its own
                literals = {literal_of(value) for value, _ in pairs if value.type != "none"}
                made = {c for c in literals if c is not None} if len(literals) == 1 else set()
            if len(made) == 1:
                out.append((owner, name, made.pop()))
    return out


def _given(refs: PythonRefs, value: Node, where: Definition | None) -> frozenset[str]:
    """The refs of what a call assigned gives, where the file names the function (`import#3:Environment()._tokenize()`),
    not a builtin's or what no name says; `where` None for the module's top level."""
    if value.type != "call":
        return frozenset()
    return frozenset(filter(is_instance, refs.refs_of(value, where)))


def _results(refs: PythonRefs) -> dict[str, str]:
    """What each function declaring no result gives, where each of its `return`s makes the same, by qualified name."""
    out = {}
    for d in refs.ordered:
        if d.kind == "class" or d.node.child_by_field_name("return_type") is not None:
            continue
        made = {_made(refs, value, d) for value in refs.results(d)}
        if len(made) == 1 and None not in made:
            out[d.qualname] = str(made.pop())
    return out


def _made(refs: PythonRefs, value: Node, where: Definition) -> str | None:
    """The class a value makes, as written (`Environment` of `Environment(...)`, or of a name assigned that once), or
    the type an annotated parameter declares; None for anything else."""
    scope = refs.scopes.get(where.node.id)
    if value.type == "identifier":
        name = node_text(value, refs.source, NAME_LIMIT)
        if scope is not None and name in scope.annotations and name not in scope.values:
            return node_text(scope.annotations[name], refs.source, 200)
        instance = scope.refs.get(name, "") if scope is not None and name not in scope.values else ""
        if instance.startswith("module:") and instance.endswith("()"):  # a method's `return self`
            return instance.removeprefix("module:").removesuffix("()")
        assigned = refs.values_of(name, where)
        value = assigned[0][0] if len(assigned) == 1 else value
    function = value.child_by_field_name("function") if value.type == "call" else None
    written = dotted_or_none(function, refs.source) if function is not None else None
    if written is None or function is None or not _named(refs.refs_of(function, where)):
        return None  # `next(it)`, `self._pushed.popleft()`: no class of the repository by its name
    own = scope.refs.get(written) if scope is not None else None  # a classmethod's `cls`
    if own is not None:
        return own.removeprefix("module:") if own.startswith("module:") and not own.endswith("()") else None
    return written


def _named(found: frozenset[str]) -> bool:
    """Whether refs name definitions by their names (`module:Token`, `import#3:make_runner`): what a class called may
    be, unlike a builtin's or a method of a value's (`module:Stream()._pushed.popleft`)."""
    return bool(found) and all(r.startswith(("module:", "import#")) and "()" not in r for r in found)
