"""The names a Python file binds, scope by scope: what callrefs.py follows to say what a call calls.

One walk of the file (a tree-sitter query, in C) notes for every function, class and the module what each
name is assigned (`x = Parser()`), declared (`store: Store`), bound by `for`, `with` or `except`, and what the
scope's `return`s and `yield`s give; for every class, what its methods assign to `self.attribute`; and the
file's calls, decorators, raised classes, loops, `with` items and attribute reads, each with the definition it
runs in. Nothing here follows a name to its value: that is asking, callrefs.py's.
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from tree_sitter import Node, Query

from .nodes import bound_names, bound_target, decorators, identifiers, param_name
from .parse import captured, language, node_text

PATTERNS = ("pattern_list", "tuple_pattern")
TUPLES = ("expression_list", "tuple")
ELEMENTS = "[]"  # the key under which a scope keeps what `name[k] = v` put in name


class Definition(Protocol):  # nesting.Def, as far as refs need it
    node: Node
    outer: Node
    kind: str
    qualname: str
    parent: Any


@dataclass
class Scope:
    """The names one function, class or module binds, each to the expressions assigned to it."""

    values: dict[str, list[Node]] = field(default_factory=dict)
    refs: dict[str, str] = field(default_factory=dict)  # names whose ref is known outright
    shadowed: set[str] = field(default_factory=set)  # loop, `with` and unpacking targets
    # `name, cmd, args = f()`: each name is the item at its position of what the value gives
    unpacked: dict[str, list[tuple[Node, int]]] = field(default_factory=dict)
    params: list[str] = field(default_factory=list)  # a function's parameters, in order
    splats: dict[str, str] = field(default_factory=dict)  # `*args`: tuple, `**kwargs`: dict, whatever is passed
    annotations: dict[str, Node] = field(default_factory=dict)  # parameter -> its type annotation
    declared: dict[str, Node] = field(default_factory=dict)  # `x: Store = ...` -> its declared type
    returns: list[Node] = field(default_factory=list)  # what a function's `return`s give
    yields: list[Node] = field(default_factory=list)  # what a generator's `yield`s give: a fixture's value


class FileScopes:
    """Every scope of one file, built once from its tree, its definitions and its import statements."""

    def __init__(
        self,
        root: Node,
        source: bytes,
        defs: Sequence[Definition],
        imports: list[tuple[Node, list[dict[str, Any]], int]],
    ) -> None:
        self.source = source
        self.defs = {d.node.id: d for d in defs}
        self.by_qualname = {d.qualname: d for d in reversed(defs)}
        self.module = Scope()
        self.module_imports: list[tuple[str, int]] = []  # `import a.b.c`: ("a.b.c", ordinal)
        self.imported_modules: dict[int, str] = {}  # each import's ordinal -> the module it imports
        self.star_imports: list[int] = []  # `from m import *`: ordinals
        self.scopes: dict[int, Scope] = {}
        self.class_scopes: dict[str, tuple[Scope, Definition]] = {}  # class qualname -> its body's names
        # class qualname -> attribute -> the values `self.attribute = ...` gives it, with where it does
        self.instance_attributes: dict[str, dict[str, list[tuple[Node, Definition | None]]]] = {}
        # class qualname -> attribute -> its declared type (`store: Store`), with where it is declared
        self.attribute_types: dict[str, dict[str, tuple[Node, Definition | None]]] = {}
        self.calls: list[tuple[Node, Definition | None]] = []  # every call, for parameters' arguments
        # callees called without call syntax: `@decorator`, `raise Error`, with the scope they run in
        self.implicit: list[tuple[Node, Definition | None]] = []
        self.protocols: list[tuple[Node, Definition | None]] = []  # `for` and `with`: they call dunder methods
        self.reads: list[tuple[Node, Definition | None]] = []  # `x.name`: a property's getter runs
        for _, records, first in imports:
            self._bind_import(records, first)
        self.longest_first = sorted(self.module_imports, key=lambda m: -len(m[0]))
        for d in defs:
            if d.parent is None:
                self.module.refs[name_of(d.qualname)] = f"module:{d.qualname}"
        self.ordered = sorted(defs, key=lambda d: (d.node.start_byte, -d.node.end_byte))
        self.starts = [d.node.start_byte for d in self.ordered]
        self._collect(root)

    def _bind_import(self, records: list[dict[str, Any]], first: int) -> None:
        """Names an import statement binds, each to `import#K:` plus the name inside the module, as its records
        (indexer/parsing/imports.py) say: `import a.b` binds a, `import a.b as c` c, `from m import f as g` g,
        and `from m import *` whatever m defines."""
        for k, record in enumerate(records, start=first):
            names = record.get("names") or []
            self.imported_modules[k] = record["module"]
            if record["kind"] == "import" and record.get("alias"):
                self.module.refs[record["alias"]] = f"import#{k}:"
            elif record["kind"] == "import":
                self.module_imports.append((record["module"], k))
            elif names == ["*"]:
                self.star_imports.append(k)
            elif len(names) == 1:
                self.module.refs[record.get("alias") or names[0]] = f"import#{k}:{names[0]}"

    def _collect(self, root: Node) -> None:
        """Assignments, parameters, returns and calls of each scope. A query finds the nodes (in C: a
        walk of every node in Python cost as much as parsing); each belongs to its innermost def."""
        for d in self.ordered:
            inner = self.scopes.setdefault(d.node.id, Scope())
            if d.kind == "class":
                self.class_scopes.setdefault(d.qualname, (inner, d))
            else:
                self._parameters(d, inner)
            if d.parent is not None and d.parent.kind != "class":  # a def inside a function is a local name
                self.scopes[d.parent.node.id].refs[name_of(d.qualname)] = f"module:{d.qualname}"
        found = captured(_scope_query(), root)
        kinds = ("assignment", "return", "yield", "call", "raise", "decorator", "loop", "bound", "protocol", "read")
        for kind in kinds:  # in source order (parse.captured): a later assignment is not seen before an earlier one
            for node in found.get(kind, []):
                where = self._owner(node)
                current = self.scopes[where.node.id] if where is not None else self.module
                self._note(kind, node, current, where)

    def function_scopes(self, where: Definition | None) -> Iterator[tuple[Scope, Definition]]:
        """The scopes a name used at `where` may be bound in before the module's, innermost first, each with its
        def: the enclosing functions' (a class body encloses nothing but its own statements)."""
        owner = where
        while owner is not None:
            scope = self.scopes.get(owner.node.id)
            if owner.kind != "class" and scope is not None:
                yield scope, owner
            owner = owner.parent

    def _owner(self, node: Node) -> Definition | None:
        """The innermost def whose own node (decorators left out: they run outside) holds this node."""
        i = bisect.bisect_right(self.starts, node.start_byte) - 1
        while i >= 0:
            d = self.ordered[i]
            if d.node.start_byte <= node.start_byte and node.end_byte <= d.node.end_byte and d.node.id != node.id:
                return d
            i -= 1
        return None

    def _note(self, kind: str, node: Node, current: Scope, where: Definition | None) -> None:
        if kind == "assignment":
            self._assign(node, current, where)
        elif kind == "return" and node.named_child_count:
            current.returns.append(node.named_children[0])
        elif kind == "yield" and node.named_child_count:
            current.yields.append(node.named_children[0])
        elif kind == "call":
            self.calls.append((node, where))
        elif kind == "protocol":
            self.protocols.append((node, where))
        elif kind == "read":
            self.reads.append((node, where))
        elif (
            kind in ("raise", "decorator")
            and node.named_child_count
            and node.named_children[0].type in ("identifier", "attribute")
        ):
            self.implicit.append((node.named_children[0], where))  # `raise Error` runs Error(), `@dec` dec
        elif kind == "loop" and (left := node.child_by_field_name("left")) is not None and left.type == "identifier":
            current.values.setdefault(node_text(left, self.source), []).append(node)  # an element of its iterable
        elif kind == "loop" and (left := node.child_by_field_name("left")) is not None and left.type in PATTERNS:
            self._unpack(left, node, current)  # `for name, cmd in d.items()`
        elif kind == "bound" and (entered := _entered(node)) is not None:
            current.values.setdefault(node_text(entered, self.source), []).append(node)  # what `__enter__` gives
        elif kind == "bound" and (caught := _caught(node)) is not None:
            current.values.setdefault(node_text(caught, self.source), []).append(node)  # an instance of what it catches
        elif kind in ("loop", "bound"):
            current.shadowed.update(bound_names(node))

    def _parameters(self, d: Definition, scope: Scope) -> None:
        params = d.node.child_by_field_name("parameters")
        # not a comment: `def loads(  # type: ignore[override]` then `self` on the next line
        written = [p for p in params.named_children if not p.is_extra] if params is not None else []
        scope.params = [param_name(p, self.source) or "" for p in written]
        for param, name in zip(written, scope.params, strict=True):
            splat = param.named_children[0] if param.type == "typed_parameter" and param.named_child_count else param
            if name and splat.type in _SPLATS:  # `**options: str`: a dict, whose values are str
                scope.splats[name] = _SPLATS[splat.type]
                continue
            annotation = param.child_by_field_name("type") if name else None
            if annotation is not None:
                scope.annotations[name] = annotation
        cls = d.parent
        if (
            scope.params
            and d.kind == "method"
            and cls is not None
            and cls.kind == "class"
            and not decorated(d, self.source, "@staticmethod")
        ):
            # self: an instance; a classmethod's cls: the class itself, so that `cls(s)` constructs one
            instance = "" if decorated(d, self.source, "@classmethod") else "()"
            scope.refs[scope.params[0]] = f"module:{cls.qualname}{instance}"

    def _assign(self, node: Node, scope: Scope, where: Definition | None) -> None:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        declared = node.child_by_field_name("type")
        if left is not None and declared is not None:
            self._declare(left, declared, scope, where)
        if left is None or right is None:
            return
        if left.type == "identifier":
            scope.values.setdefault(node_text(left, self.source), []).append(right)
        elif left.type in PATTERNS and right.type in TUPLES:  # `a, (b, c) = f, (g, h)`
            pairs, unpaired = [(left, right)], []
            while pairs:
                names, values = pairs.pop()
                if names.type == "identifier":
                    scope.values.setdefault(node_text(names, self.source), []).append(values)
                elif (
                    names.type in PATTERNS
                    and values.type in TUPLES
                    and names.named_child_count == values.named_child_count
                ):
                    pairs.extend(zip(names.named_children, values.named_children, strict=True))
                else:
                    unpaired.append(names)
            for names in unpaired:
                scope.shadowed.update(identifiers(names, self.source))
        elif (
            left.type == "subscript"
            and (held := left.child_by_field_name("value")) is not None
            and held.type == "identifier"
        ):  # `table["k"] = f`: one more element of table
            scope.values.setdefault(node_text(held, self.source) + ELEMENTS, []).append(right)
        elif left.type == "attribute":
            obj, attr = left.child_by_field_name("object"), left.child_by_field_name("attribute")
            cls = where.parent if where is not None and where.kind == "method" else None
            if (
                obj is not None
                and attr is not None
                and obj.type == "identifier"
                and cls is not None
                and self._is_self(node_text(obj, self.source), where)
            ):
                self.instance_attributes.setdefault(cls.qualname, {}).setdefault(
                    node_text(attr, self.source), []
                ).append((right, where))
        elif left.type in PATTERNS:  # `a, b = f()`
            self._unpack(left, right, scope)
        else:  # `table.x, y = ...`: names we cannot follow
            scope.shadowed.update(identifiers(left, self.source))

    def _unpack(self, names: Node, value: Node, scope: Scope) -> None:
        """`a, b = f()`, `for a, b in pairs`: each name the item at its place of the value (of an element of what the
        loop walks), as far as no `*rest` comes first."""
        for position, target in enumerate(names.named_children):
            if target.type == "identifier":
                scope.unpacked.setdefault(node_text(target, self.source), []).append((value, position))
            elif target.type == "list_splat_pattern":
                scope.shadowed.update(identifiers(names, self.source))
                break
            else:
                scope.shadowed.update(identifiers(target, self.source))

    def _declare(self, left: Node, declared: Node, scope: Scope, where: Definition | None) -> None:
        """A declared type: an attribute's (`store: Store` in a class body, a dataclass's field, a typed
        attribute; `self.store: Store = ...` in a method) or a name's (`store: Store = make()`)."""
        if left.type == "identifier" and (where is None or where.kind != "class"):
            scope.declared[node_text(left, self.source)] = declared
            return
        if left.type == "identifier" and where is not None:
            owner = where
        elif (
            left.type == "attribute"
            and (obj := left.child_by_field_name("object")) is not None
            and obj.type == "identifier"
            and where is not None
            and self._is_self(node_text(obj, self.source), where)
        ):
            owner, left = where.parent, left.child_by_field_name("attribute") or left
        else:
            return
        self.attribute_types.setdefault(owner.qualname, {})[node_text(left, self.source)] = (declared, where)

    def _is_self(self, name: str, where: Definition | None) -> bool:
        """Whether `name` is the instance parameter (`self`) of the method `where`, as _parameters bound it."""
        if where is None or where.kind != "method" or where.parent is None:
            return False
        scope = self.scopes.get(where.node.id)
        return (
            scope is not None and name in scope.params and scope.refs.get(name) == f"module:{where.parent.qualname}()"
        )

    def literal_class(self, name: str, where: Definition | None) -> str | None:
        """The builtin class of the literals a name is assigned, where it is assigned nothing else in the scope that
        binds it (`chunks = []`: list; `seen = {}`: dict): `chunks.append(c)` is list's, no method of ours."""
        scope = self._binding_scope(name, where)
        if (splat := _splat(scope, name)) is not None:  # `kwargs.get(k)`: dict's
            return splat
        if not _binds(scope, name) or name in scope.params or name in scope.unpacked:
            return None
        if name in scope.shadowed or name in scope.refs or name in scope.declared:
            return None
        classes = {literal_of(value) for value in scope.values.get(name, [])}
        return classes.pop() if len(classes) == 1 else None

    def splat(self, name: str, where: Definition | None) -> str | None:
        """The builtin class of a `*args` (tuple) or `**kwargs` (dict) parameter a name is, where it is assigned
        nothing else; None for any other name."""
        return _splat(self._binding_scope(name, where), name)

    def _binding_scope(self, name: str, where: Definition | None) -> Scope:
        """The innermost scope binding the name where it is read, else the module's."""
        return next((s for s, _ in self.function_scopes(where) if _binds(s, name)), self.module)


def _splat(scope: Scope, name: str) -> str | None:
    return scope.splats[name] if name in scope.splats and name not in scope.values else None


def _binds(scope: Scope, name: str) -> bool:
    return name in scope.values or name in scope.params or name in scope.unpacked or name in scope.refs


def literal_of(node: Node) -> str | None:
    """The builtin class of a literal (`{}`: dict, `", "`: str, `[x for x in xs]`: list); None for anything else."""
    return _LITERAL_CLASSES.get(node.type)


_SPLATS = {"list_splat_pattern": "tuple", "dictionary_splat_pattern": "dict"}

# A literal's builtin class, by its node: what a name assigned only such values holds.
_LITERAL_CLASSES = {
    "list": "list",
    "list_comprehension": "list",
    "dictionary": "dict",
    "dictionary_comprehension": "dict",
    "set": "set",
    "set_comprehension": "set",
    "tuple": "tuple",
    "string": "str",
    "concatenated_string": "str",
}

_SCOPE_QUERY = """
(assignment) @assignment
(return_statement) @return
(yield) @yield
(call) @call
(raise_statement) @raise
(decorator) @decorator
(for_statement) @loop
[(with_item) (as_pattern) (except_clause)] @bound
(for_in_clause) @loop
[(for_statement) (for_in_clause) (with_item)] @protocol
(attribute) @read
"""


@functools.cache
def _scope_query() -> Query:
    return Query(language("python"), _SCOPE_QUERY)


def _entered(item: Node) -> Node | None:
    """The name `with value as name` binds (None for a pattern: `as (a, b)`)."""
    target = bound_target(item) if item.type == "with_item" else None
    return target if target is not None and target.type == "identifier" else None


def _caught(pattern: Node) -> Node | None:
    """The name `except E as name` binds (None for anything else, and for `except*`: an ExceptionGroup, not an E)."""
    clause = pattern.parent
    if pattern.type != "as_pattern" or clause is None or clause.type != "except_clause":
        return None
    if any(child.type == "*" for child in clause.children):
        return None
    target = bound_target(pattern)
    return target if target is not None and target.type == "identifier" else None


def name_of(qualname: str) -> str:
    return qualname.rsplit(".", 1)[-1]


def decorated(d: Definition, source: bytes, decorator: str) -> bool:
    """Whether the def carries this decorator (`@staticmethod`, `@classmethod`)."""
    return decorator in decorators(d.outer, d.node, source)
