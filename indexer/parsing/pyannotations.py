"""What a Python type annotation says a value is, as callrefs.py reads it: an instance of the class it names
(`Context`, `"Context"`, `t.Optional[Context]`, `Context | None`), or, for a collection iterated (`for p in
projections` with `projections: Sequence[Projection]`), an element of it."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tree_sitter import Node

from .nodes import NAME_LIMIT
from .parse import node_text
from .pylibcalls import is_any
from .refsets import MAX_HOPS, NONE, Refs, capped, instances_of

if TYPE_CHECKING:
    from .callrefs import PythonRefs
    from .pyscopes import Definition

_WRAPPERS = frozenset({"Optional", "Union", "Type", "type", "Final", "ClassVar", "Annotated"})
# What iterating gives an element of (a mapping: its keys), as `for x in xs` reads a declared `xs: list[X]`
_COLLECTIONS = frozenset(
    "list List Sequence MutableSequence Iterable Iterator Collection Reversible Generator AsyncIterable AsyncIterator"
    " set Set frozenset FrozenSet AbstractSet MutableSet tuple Tuple deque Deque KeysView"
    " dict Dict Mapping MutableMapping OrderedDict defaultdict DefaultDict Counter ChainMap".split()
)
# Builtin classes a generic annotation may name, and typing's aliases of them: what a call on the value runs is theirs.
# Not the abstract ones (`Sequence[X]`, `Mapping[K, V]`), which a class of ours may implement.
_BUILTIN_CONTAINERS = frozenset("list dict set frozenset tuple List Dict Set FrozenSet Tuple".split())  # and typing's
_DOTTED = re.compile(r"[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*")


def annotated(refs: PythonRefs, node: Node, where: Definition | None, hops: int, containers: bool = False) -> Refs:
    """An instance of what a type annotation names: `Context`, `"Context"`, `t.Optional[Context]`, `Context |
    None`; nothing for what the file cannot name, nor for a generic container but with `containers`: a builtin one
    (`rows: list[str]`), whose methods are its own. Not for a field (`self.sources: list[Source]`), whose elements
    the store reads from its declared type, where a ref to the list would stop it."""
    if hops > MAX_HOPS:
        return refs.cut()
    if node.type == "type" and node.named_child_count:
        node = node.named_children[0]
    if node.type in ("identifier", "attribute"):
        named = refs.refs_of(node, where, hops + 1)
        return NONE if any(is_any(refs, r) for r in named) else instances_of(named)  # `t.Any`: anything
    if node.type == "string":
        written = node_text(node, refs.source, NAME_LIMIT).strip("\"'")
        first, _, rest = written.partition(".")
        if not _DOTTED.fullmatch(written):
            return NONE
        written_refs = {
            f"{r}{rest}" if r.endswith(":") else f"{r}.{rest}" if rest else r
            for r in refs.ref_of_name(first, where, hops + 1)
            if not r.endswith("()")
        }
        if any(is_any(refs, r) for r in written_refs):  # `'Any'`, `'t.Any'`: anything
            return NONE
        return frozenset(f"{r}()" for r in written_refs)
    if node.type == "binary_operator":  # `A | None`
        out: set[str] = set()
        for side in ("left", "right"):
            part = node.child_by_field_name(side)
            if part is not None:
                out |= annotated(refs, part, where, hops + 1, containers)
        return capped(out)
    if node.type in ("subscript", "generic_type"):
        wrapper, arguments = _generic(refs, node)
        # `rows: list[str]`, `handlers: dict[str, Handler]`: `rows.append` is list's, `handlers.get` dict's (what
        # `handlers.get(k)` gives may be ours: callrefs.py's `_result_may_be_ours`)
        if containers and wrapper in _BUILTIN_CONTAINERS:
            return frozenset({f"builtin:{wrapper.lower()}()"})
        if wrapper not in _WRAPPERS:
            return NONE
        out = set[str]().union(*(annotated(refs, part, where, hops + 1, containers) for part in arguments))
        if wrapper in ("type", "Type"):  # `type[Signer]`: the class itself, called to make one
            out = {r.removesuffix("()") for r in out}
        return capped(out)
    return NONE


def declared_elements(refs: PythonRefs, node: Node, where: Definition | None, hops: int) -> Refs:
    """An element of a collection a type declares, as iterating it gives one: `list[Item]`, `Sequence[Item]`,
    `Iterable[Item]`, `set[Item]`, `tuple[Item, ...]`, `Iterator[Item]`; a mapping's key (`dict[Key, V]`); through
    `Optional[...]` and `... | None`. Nothing for what is no collection of those."""
    if hops > MAX_HOPS:
        return refs.cut()
    if node.type == "type" and node.named_child_count:
        node = node.named_children[0]
    if node.type == "binary_operator":  # `list[Item] | None`
        sides = (node.child_by_field_name("left"), node.child_by_field_name("right"))
        return capped(set[str]().union(*(declared_elements(refs, n, where, hops + 1) for n in sides if n)))
    if node.type not in ("subscript", "generic_type"):
        return NONE
    wrapper, arguments = _generic(refs, node)
    if wrapper in ("Optional", "Union"):
        return capped(set[str]().union(*(declared_elements(refs, a, where, hops + 1) for a in arguments)))
    if wrapper not in _COLLECTIONS or not arguments:
        return NONE
    return annotated(refs, arguments[0], where, hops + 1)


def _generic(refs: PythonRefs, node: Node) -> tuple[str, list[Node]]:
    """A generic type's name, without its module (`t.Optional` is Optional), and its type arguments."""
    held = node.child_by_field_name("value") or (node.named_children[0] if node.named_child_count else None)
    wrapper = node_text(held, refs.source, NAME_LIMIT).rsplit(".", 1)[-1] if held is not None else ""
    arguments = [
        part
        for inner in node.named_children[1:]
        for part in (inner.named_children if inner.type == "type_parameter" else [inner])
    ]
    return wrapper, arguments
