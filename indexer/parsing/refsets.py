"""The alternatives a Python name or expression may refer to, as callrefs.py and pylibcalls.py hand them around: a
set of refs (store/refs.py), capped, since a name assigned more things than MAX_ALTERNATIVES is anybody's guess, and
turned between a class and its instances."""

from __future__ import annotations

from collections.abc import Collection, Iterable

from ...store.refs import is_instance

Refs = frozenset[str]
NONE: Refs = frozenset()
MAX_ALTERNATIVES = 8
MAX_HOPS = 12  # name -> value -> name ...: deeper is a cycle (`a = b; b = a`) or not worth following


def capped(refs: Collection[str]) -> Refs:
    """The refs, or none where there are too many to say anything."""
    return frozenset(refs) if len(refs) <= MAX_ALTERNATIVES else NONE


def classes_of(instances: Iterable[str]) -> Refs:
    """The classes of instances (`module:Markup` of `module:Markup()`): what `type(x)` and `x.__class__` give."""
    return frozenset(r.removesuffix("()") for r in instances if is_instance(r))


def instances_of(classes: Iterable[str]) -> Refs:
    """Instances of what refs name (`module:Markup()` of `module:Markup`), leaving out what already is a value or a
    module (`...()`, `import#K:`): what an annotation, `except C as e` and `object.__new__(C)` give."""
    return frozenset(f"{r}()" for r in classes if not r.endswith(("()", ":")))
