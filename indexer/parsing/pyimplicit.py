"""Python's calls without call syntax that a file's refs (callrefs.py) say: a function or method handed on as
a value (`map(f, xs)`), the methods a `for` or `with` statement calls on an instance (`__iter__`, `__enter__`),
a property read (`self.host`) and a property assigned (`self.host = h`, its setter), the commands a test runner
runs by name (pycommands.py), the requests a test client makes of web routes and the dependencies FastAPI runs before
a function (pyroutes.py), and the calls authenticating with Django's backends (pydjango.py). Each is a call where it is
written, in the scope it runs in, with its ref (store/refs.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tree_sitter import Node

from ...store.refs import PROTOCOLS, SET, as_value, is_instance
from ...store.symbol import is_property
from .nodes import NAME_LIMIT, decorators, is_async, with_statement
from .parse import node_text
from .pycommands import commands_run
from .pydjango import logins
from .pymodels import models_made
from .pyroutes import dependencies, requests
from .pytemplates import renders

if TYPE_CHECKING:
    from .callrefs import PythonRefs
    from .pyscopes import Definition


def calls_without_syntax(refs: PythonRefs) -> list[tuple[Node, Definition | None, str]]:
    """The functions handed on as values, the methods `for` and `with` call, the properties read and assigned, the
    commands run by name, the requests of web routes, FastAPI's dependencies, the templates rendered, the pydantic
    models validated and the logins."""
    framework = commands_run(refs) + requests(refs) + dependencies(refs) + renders(refs) + models_made(refs)
    framework += logins(refs)
    return _handed_on(refs) + _protocol_calls(refs) + _property_accesses(refs) + framework


def _handed_on(refs: PythonRefs) -> list[tuple[Node, Definition | None, str]]:
    """A function or method named as a call's argument (`map(f, xs)`, `Thread(target=self.run)`,
    `sorted(xs, key=by_name)`): whoever gets it calls it, often code this index does not hold, so the
    function handing it on stands in for that caller. Its ref is `value:` (`value#K:` through an
    import) where the name's would be `module:` (`import#K:`); the store keeps those naming a function
    or a method (store/callgraph.py: `named as a value`)."""
    out = []
    for call, where in refs.calls:
        arguments = call.child_by_field_name("arguments")
        if arguments is None or arguments.type != "argument_list":  # `f(x for x in xs)`
            continue
        values = [
            value
            for argument in arguments.named_children
            if (value := argument.child_by_field_name("value") if argument.type == "keyword_argument" else argument)
            and _may_name_a_function(refs, value, where)
        ]
        if not values or _receiver_is_ours(refs, call, where):
            continue
        for value in values:
            named = sorted(v for r in refs.refs_of(value, where) if (v := _as_value(r)) is not None)
            if named:
                out.append((value, where, "|".join(named)))
    return out


def _protocol_calls(refs: PythonRefs) -> list[tuple[Node, Definition | None, str]]:
    """`for x in C()` runs C's `__iter__` and `__next__`, `with C():` its `__enter__` and `__exit__` (their
    `async` forms: `__aiter__`...), where the file says the value is an instance of a class: each a call at
    the statement (a `with` item, a comprehension's `for`)."""
    out = []
    for node, where in refs.protocols:
        if node.type == "with_item":
            value = node.child_by_field_name("value")
            if value is not None and value.type == "as_pattern":  # `with C() as c`
                value = value.named_children[0] if value.named_child_count else None
            statement, protocol = with_statement(node), "with"
        else:
            value, statement, protocol = node.child_by_field_name("right"), node, "for"
        instances = sorted(filter(is_instance, refs.refs_of(value, where))) if value is not None else []
        if not instances:
            continue
        for method in PROTOCOLS[("async " if is_async(statement) else "") + protocol]:
            out.append((node, where, "|".join(f"{r}.{method}" for r in instances)))
    return out


def _property_accesses(refs: PythonRefs) -> list[tuple[Node, Definition | None, str]]:
    """`x.name` read or assigned, not called, on an instance of a class the file says: reading a property runs its
    getter, assigning it (`=`) its setter, and `+=` both. For a class of this file, only where it defines `name` as a
    property (a setter: `@name.setter`); for an imported class the store decides (store/callgraph.py: a property is
    called, a method read is a value handed on, anything else is no call of ours), so the ref is `value#K:C().name`,
    assigned `value#K:C().name=` (SET). The reads first, then the writes."""
    reads, writes = [], []
    with_setter = _setters(refs)
    for node, where in refs.reads:
        parent = node.parent
        if parent is None or (parent.type == "call" and parent.child_by_field_name("function") == node):
            continue  # a call: read as one
        obj, attr = node.child_by_field_name("object"), node.child_by_field_name("attribute")
        if obj is None or attr is None:
            continue
        written = parent.type in ("assignment", "augmented_assignment") and parent.child_by_field_name("left") == node
        name = node_text(attr, refs.source, NAME_LIMIT)
        instances = [r for r in refs.refs_of(obj, where) if is_instance(r)]
        owned = {
            r: f"{r.removeprefix('module:').removesuffix('()')}.{name}" for r in instances if r.startswith("module:")
        }
        if not written or parent.type == "augmented_assignment":  # `x.name += 1` reads it, then writes it
            found = [as_value(f"{r}.{name}") for r in instances if r not in owned or _is_getter(refs, owned[r])]
            if found:
                reads.append((node, where, "|".join(sorted(found))))
        if written:
            found = [as_value(f"{r}.{name}{SET}") for r in instances if r not in owned or owned[r] in with_setter]
            if found:
                writes.append((node, where, "|".join(sorted(found))))
    return reads + writes


def _is_getter(refs: PythonRefs, qualname: str) -> bool:
    """Whether a def of this file (`Temp.celsius`) is a property's getter."""
    getter = refs.by_qualname.get(qualname)
    return getter is not None and is_property(decorators(getter.outer, getter.node, refs.source))


def _setters(refs: PythonRefs) -> set[str]:
    """The properties of this file's classes that have a setter (`@celsius.setter def celsius(self, v)`), by qualified
    name: read once per file, where every `self.x = ...` asks."""
    return {
        d.qualname
        for d in refs.ordered
        if f"@{d.qualname.rpartition('.')[2]}.setter" in decorators(d.outer, d.node, refs.source)
    }


def _may_name_a_function(refs: PythonRefs, node: Node, where: Definition | None) -> bool:
    """Whether a name or dotted name starts at a def, an import or a method's `self`: the cheap test
    before its ref (most arguments are local data, and following their values costs a tenth of a file's
    extraction)."""
    while node.type == "attribute" and (held := node.child_by_field_name("object")) is not None:
        node = held
    if node.type != "identifier":
        return False
    name = node_text(node, refs.source, NAME_LIMIT)
    for scope, _ in refs.function_scopes(where):
        if name in scope.refs:  # a nested def, or `self`
            return True
        if name in scope.values or name in scope.params:  # a local of its own
            return False
    return name in refs.module.refs


def _receiver_is_ours(refs: PythonRefs, call: Node, where: Definition | None) -> bool:
    """Whether the call is of a function, method or class of this file: its parameters' calls already resolve
    to what the file passes them (callrefs.py's `_arguments_for`), so a value handed to it needs no stand-in."""
    function = call.child_by_field_name("function")
    called = refs.refs_of(function, where) if function is not None else frozenset()
    return any(
        r.startswith("module:") and r.removeprefix("module:").replace("()", "") in refs.by_qualname for r in called
    )


def _as_value(ref: str) -> str | None:
    """`module:f` -> `value:f`, `import#3:f` -> `value#3:f`; None for an instance (`module:C()`) or a builtin."""
    return as_value(ref) if ref.startswith(("module:", "import#")) and not ref.endswith("()") else None
