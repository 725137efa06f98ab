"""What a call of a method may run in its class hierarchy instead of the method it names (store/callgraph.py's
stand-ins): an override, on the instances of the classes holding it, its Python subclasses' mixins included; what
`super().m()` runs next in a class deriving from both; a hook a class leaves to its subclasses (`self.step()`); the
methods of the interfaces a TypeScript class implements."""

from __future__ import annotations

import sqlite3

from .resolver import CallResolver
from .symbol import SymbolRow
from .typenames import implemented_names

HOOK_QUALIFIERS = frozenset({"self", "cls"})  # a hook is called on the instance (or class) it runs for


def next_after(resolver: CallResolver, calling: sqlite3.Row, cls: sqlite3.Row, method: SymbolRow) -> bool:
    """Whether `super().m()` in the `calling` class runs `method` of `cls` on some instance: the instance's class
    derives from both, and puts `cls` after the calling class with no class between them defining m (Python's
    cooperative multiple inheritance: `class Model(Logging, Base)`, where Logging's `super().save()` runs
    Base.save on a Model, though Base is no base of Logging)."""
    if not cls["path"].endswith((".py", ".pyi")):
        return False  # one base each: what comes after a class is its own base
    below_calling = {d["id"] for d in resolver.descendants(calling)}
    for instance in [cls, *resolver.descendants(cls)]:
        if instance["id"] not in below_calling:
            continue  # not an instance of the calling class: its super() never runs there
        line = resolver.mro(instance)
        ids = [c["id"] for c in line]
        if calling["id"] not in ids or cls["id"] not in ids:
            continue  # a base the order could not name (too deep, or not indexed)
        start, end = ids.index(calling["id"]), ids.index(cls["id"])
        between = line[start + 1 : end]
        if start < end and not any(resolver.own_member(c, method["name"]) is not None for c in between):
            return True
    return False


def _may_be(resolver: CallResolver, receivers: list[sqlite3.Row] | None, holders: list[sqlite3.Row]) -> bool:
    """Whether a value of one of these classes may be an instance of one of the `holders` (unknown classes: it
    may): a holder is one of them or descends from one. An override runs only on instances of a class holding it."""
    if receivers is None:
        return True
    classes = {r["id"] for r in receivers}
    return any(c["id"] in classes for holder in holders for c in resolver.mro(holder))


def hook_methods(resolver: CallResolver, path: str, call: sqlite3.Row) -> list[str]:
    """The methods a call on `self` (or `cls`) the index could not resolve may run as a hook (store/hierarchy.py's
    hooks): `self.step()` in a Job whose subclasses each define step."""
    if call["qualifier"] not in HOOK_QUALIFIERS or not path.endswith((".py", ".pyi")):
        return []
    found: dict[str, None] = {}
    for cls in resolver.receivers(path, call["ref"]) or ():
        found.update(dict.fromkeys(resolver.hooks(cls, call["name"])))
    return list(found)


class Overrides:
    """The methods a method of `cls` stands in for, each with the classes on whose instances it does (_overridden).
    The class's own order gives most of them. Its Python subclasses deriving through multiple inheritance are read
    only where they can add one (a method of that name beside the class: _beside), or where a call's receiver
    needs them: a hub class has thousands of subclasses, and most calls are settled without them."""

    def __init__(self, resolver: CallResolver, cls: sqlite3.Row, method: SymbolRow) -> None:
        self.resolver, self.cls, self.method = resolver, cls, method
        self.complete = not cls["path"].endswith((".py", ".pyi"))  # one base each: nothing below adds any
        self.holders = _overridden(resolver, cls, method, [cls])
        if not self.complete and _beside(resolver, cls, method):
            self._read_subclasses()

    def may_run_on(self, target: str, receivers: list[sqlite3.Row] | None) -> bool:
        """Whether a call of `target` on values of these classes may run the method (_may_be)."""
        if _may_be(self.resolver, receivers, self.holders.get(target, [])):
            return True
        if not self.complete:
            self._read_subclasses()
            return _may_be(self.resolver, receivers, self.holders.get(target, []))
        return False

    def _read_subclasses(self) -> None:
        running = [
            self.cls,
            *(
                d
                for d in self.resolver.mixing(self.cls)
                if _runs(self.resolver.member(d, self.method["name"]), self.method)
            ),
        ]
        self.holders = _overridden(self.resolver, self.cls, self.method, running)
        self.complete = True


def _beside(resolver: CallResolver, cls: sqlite3.Row, method: SymbolRow) -> bool:
    """Whether a method of that name is defined in a class neither above `cls` nor below it: only such a class's
    method can come after cls's in a subclass's order (most names have none, and the subclasses need no look)."""
    above = {c["id"] for c in resolver.mro(cls)}
    return any(m["parent"] not in above and cls["id"] not in line for m, line in resolver.definers(method["name"]))


def _overridden(
    resolver: CallResolver, cls: sqlite3.Row, method: SymbolRow, running: list[sqlite3.Row]
) -> dict[str, list[sqlite3.Row]]:
    """The methods a call of which may run `method` of `cls`, each with the classes (of those `running` it) on whose
    instances it does. On a `cls`, those of that name in its bases (what it overrides). On a subclass that inherits
    it, also those after `cls` in the subclass's method resolution order: a mixin's method runs for a call in a
    class beside it (itsdangerous' `self.load_payload()` in TimedSerializer runs URLSafeSerializerMixin's on a
    `URLSafeTimedSerializer(URLSafeSerializerMixin, TimedSerializer)`)."""
    found: dict[str, list[sqlite3.Row]] = {}
    for holder in running:
        line = resolver.mro(holder)
        after = next((i for i, c in enumerate(line) if c["id"] == cls["id"]), len(line))
        for base in line[after + 1 :]:
            overridden = resolver.own_member(base, method["name"])
            if overridden is not None and overridden["id"] != method["id"]:
                found.setdefault(overridden["id"], []).append(holder)
    return found


def _runs(found: sqlite3.Row | None, method: SymbolRow) -> bool:
    return found is not None and found["id"] == method["id"]


def interface_methods(resolver: CallResolver, cls: sqlite3.Row, name: str) -> set[str]:
    """The methods of this name of the interfaces a TypeScript class, or a base of it, says it implements
    (`class PostgresDriver implements Driver`), theirs or their bases'."""
    found: set[str] = set()
    for current in resolver.mro(cls):
        for written in implemented_names(current["signature"] or ""):
            interface = resolver.named(current["path"], written)
            if interface is None or interface["kind"] != "interface":
                continue
            method = resolver.member(interface, name)
            if method is not None:
                found.add(method["id"])
    return found
