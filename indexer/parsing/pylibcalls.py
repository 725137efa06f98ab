"""What a call of one of a few library functions gives, which the function's own code, in a module this file only
imports, would not tell callrefs.py: `typing.cast(T, v)` is a T, `functools.partial(f, ...)` called is f called,
`copy.copy(x)` and `copy.deepcopy(x)` are what x is, `object.__new__(C)` is an instance of C, `type(x)` is x's
class, `getattr(obj, name[, default])` is the member the name names, or the default, and Django's
`get_object_or_404(Check, code=code)` is a Check (of a query, `get_object_or_404(Check.objects.filter(...))`, one
of its elements: store/djangomodels.py), as `models.ForeignKey(Check, ...)` is, which a model's instances hold."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tree_sitter import Node

from ...store.refs import element_of, parse_ref
from .parse import node_text
from .refsets import NONE, Refs, capped, classes_of, instances_of

if TYPE_CHECKING:
    from .callrefs import PythonRefs
    from .pyscopes import Definition

_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_RELATIONS = frozenset({"ForeignKey", "OneToOneField"})  # Django's fields holding one instance of another model


def library_result(
    refs: PythonRefs, base: str, arguments: list[Node], where: Definition | None, hops: int
) -> Refs | None:
    """What a call of `base` (a ref) with these arguments gives, where base is one of the functions above; None where
    it is not, and the call gives what its function's code says."""
    first = arguments[0] if arguments else None
    if first is not None and _imported(refs, base, "typing", "cast"):
        return refs.annotated(first, where, hops)  # `t.cast(Group, cmd)`
    if first is not None and _imported(refs, base, "functools", "partial"):
        return refs.refs_of(first, where, hops)  # `partial(Serializer, ...)`, called, makes a Serializer
    if first is not None and (_imported(refs, base, "copy", "copy") or _imported(refs, base, "copy", "deepcopy")):
        return refs.refs_of(first, where, hops)  # a copy is what it copies
    if first is not None and base == "builtin:object.__new__":  # `object.__new__(cls)`: an instance of cls
        return instances_of(refs.refs_of(first, where, hops))
    if _builtin(refs, base, "getattr") and len(arguments) >= 2:
        return _got_attribute(refs, arguments, where, hops)  # `getattr(self, f"parse_{x}")`
    if base == "builtin:type" and len(arguments) == 1:
        return classes_of(refs.refs_of(arguments[0], where, hops))  # `type(self)`: its class
    if first is not None and _django_relation(refs, base):
        return _related_model(refs, first, where, hops)
    if first is not None and _imported(refs, base, "django.shortcuts", "get_object_or_404"):
        given = refs.refs_of(first, where, hops)  # a model (an instance of it) or a query (an element of it)
        return instances_of(given) | {e for r in given if r.endswith("()") and (e := element_of(r)) is not None}
    return None


def is_any(refs: PythonRefs, ref: str) -> bool:
    """Whether a ref names typing's `Any`: a value annotated so may be anything, of ours too, so a call on it is
    one the file does not explain, not a call of a library's."""
    return _imported(refs, ref, "typing", "Any") or _imported(refs, ref, "typing_extensions", "Any")


def _imported(refs: PythonRefs, ref: str, module: str, name: str) -> bool:
    """Whether a ref names `name` of a module imported from outside: `typing.cast`, `functools.partial`."""
    parsed = parse_ref(ref)
    return (
        parsed is not None
        and parsed.root == "import"
        and parsed.segments == (name,)
        and parsed.ordinal is not None
        and refs.imported_modules.get(parsed.ordinal) == module
    )


def _django_relation(refs: PythonRefs, ref: str) -> bool:
    """Whether a ref names Django's ForeignKey or OneToOneField (`models.ForeignKey` after `from django.db import
    models`, `ForeignKey` after `from django.db.models import ForeignKey`)."""
    parsed = parse_ref(ref)
    if parsed is None or parsed.root != "import" or parsed.ordinal is None or not parsed.segments:
        return False
    module = refs.imported_modules.get(parsed.ordinal) or ""
    return module.startswith("django.db") and parsed.segments[-1] in _RELATIONS


def _related_model(refs: PythonRefs, model: Node, where: Definition | None, hops: int) -> Refs:
    """What a model's relation field gives its instances (`owner = models.ForeignKey(Check, ...)`: `flip.owner` is a
    Check): an instance of the model its first argument names, by its name, or by a string naming a class of the file
    (`"Check"`, `"api.Check"`: the app's label, then the model's name) or `"self"`, the class the field is in."""
    if model.type != "string":
        return instances_of(refs.refs_of(model, where, hops))
    named = node_text(model, refs.source).strip("'\"").rpartition(".")[2]
    if named == "self":
        return frozenset({f"module:{where.qualname}()"}) if where is not None and where.kind == "class" else NONE
    found = refs.by_qualname.get(named)
    return frozenset({f"module:{named}()"}) if found is not None and found.kind == "class" else NONE


def _builtin(refs: PythonRefs, ref: str, name: str) -> bool:
    """Whether a ref is the builtin `name`: `builtin:getattr`, or in a file importing `*` (ast.py's `from _ast
    import *`), `import#K:getattr` of such an import: a star could bring a `getattr` of its own, which none of the
    standard library's does."""
    return ref == f"builtin:{name}" or ref in {f"import#{k}:{name}" for k in refs.star_imports}


def _got_attribute(refs: PythonRefs, arguments: list[Node], where: Definition | None, hops: int) -> Refs:
    """What `getattr(obj, name[, default])` gives of an instance: the member its name names, `"close"` exactly, and
    for a name built at run time (`f"parse_{kind}"`, `"do_" + command`, or a local name assigned one) any member
    whose name starts so, written `parse_*` (store/refs.py), which the callers of each such method find
    (store/callgraph.py); or the default. Nothing where the name says no more."""
    named = _member_named(refs, arguments[1], where)
    if named is None:
        return NONE
    out = {f"{r}.{named}" for r in refs.refs_of(arguments[0], where, hops) if r.endswith("()")}
    if out and len(arguments) > 2 and arguments[2].type != "none":
        out |= refs.refs_of(arguments[2], where, hops)
    return capped(out)


def _member_named(refs: PythonRefs, node: Node, where: Definition | None) -> str | None:
    """`close` for `"close"`, `parse_*` for `f"parse_{kind}"` or `"parse_" + kind`; through a local name whose every
    assignment names the same (`mname = "do_" + self.command`)."""
    if node.type == "identifier" and where is not None:
        scope = refs.scopes.get(where.node.id)
        values = scope.values.get(node_text(node, refs.source), []) if scope is not None else []
        named = {_member_named(refs, v, None) for v in values}
        return named.pop() if len(named) == 1 else None
    operator = node.child_by_field_name("operator")
    if node.type == "binary_operator" and operator is not None and operator.type == "+":
        left = node.child_by_field_name("left")
        prefix = _member_named(refs, left, None) if left is not None and left.type == "string" else None
        return f"{prefix}*" if prefix is not None and not prefix.endswith("*") else None
    if node.type != "string":
        return None
    parts = [c for c in node.named_children if c.type in ("string_content", "interpolation")]
    if not parts or parts[0].type != "string_content":
        return None
    literal = node_text(parts[0], refs.source)
    if not _IDENTIFIER.fullmatch(literal):
        return None
    return literal if len(parts) == 1 else f"{literal}*"
