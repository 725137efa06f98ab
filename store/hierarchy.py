"""The classes of the index as Python and TypeScript see them: a class's bases (named in its signature, found
through its file's imports), its method resolution order, its members own or inherited, the classes deriving
from it, a method only its subclasses bring, and the methods they bring where the class leaves one to them (a
hook). store/resolver.py follows calls through them; callgraph.py reads them for what an override stands in for."""

from __future__ import annotations

import builtins
import functools
import sqlite3

from .indexreader import IndexReader
from .refs import SET, bound_function
from .symbol import RESOLVER_COLUMNS
from .typenames import base_names, bases_all_named

MAX_HOPS = 8  # re-exports and steps followed for one lookup (a class's order guards its own cycles): deeper is a cycle
TYPES = frozenset({"class", "interface"})  # what a value may be an instance of (`x: Driver`, a TypeScript interface)
# Bases outside the index that bring no method a hook could be: a class naming only these holds all its methods.
METHODLESS_BASES = frozenset({"object", "ABC", "Generic", "Protocol"})


class ClassHierarchy(IndexReader):
    """The class hierarchy, each part read once per answer. Base names are read through a file's imports, which is
    the resolver's walk (`_walk`)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        super().__init__(conn)
        self._bases: dict[str, list[sqlite3.Row]] = {}
        self._mros: dict[str, list[sqlite3.Row]] = {}  # by a class's id
        self._ordering: set[str] = set()  # the classes whose order is being found (mro)
        self._naming_as_base: dict[str, list[sqlite3.Row]] | None = None  # Python classes, by a base's name
        self._descendants: dict[str, list[sqlite3.Row]] = {}  # by a class's id
        self._subclasses_of: dict[str, list[sqlite3.Row]] = {}  # by a class's id
        self._subclasses_read: set[str] = set()  # the class names whose classes' subclasses are in _subclasses_of
        self._mixing: dict[str, list[sqlite3.Row]] = {}  # by a class's id
        self._brought: dict[tuple[str, str], sqlite3.Row | None] = {}  # _in_subclasses, by a class's id and name
        self._hooks: dict[tuple[str, str], list[str]] = {}  # hooks, by a class's id and a name
        self._definers: dict[str, list[tuple[sqlite3.Row, frozenset[str]]]] = {}  # Python methods, by name

    def _walk(self, path: str, segments: tuple[str, ...], hops: int) -> sqlite3.Row | None:
        """The symbol a dotted path names from the top level of a file (through its imports): CallResolver's."""
        raise NotImplementedError

    def own_member(self, cls: sqlite3.Row, name: str) -> sqlite3.Row | None:
        """A member the class itself defines (none it inherits): a method, or the method its body binds the name to
        (`fetch = get`, pymembers.py)."""
        symbols = self.symbols_of(cls["path"])
        found = symbols.get(f"{cls['qualname']}.{name}")
        if found is not None or not cls["path"].endswith((".py", ".pyi")):
            return found
        bound = bound_function(self.typed_members(cls["id"]).get(name, ""))
        if bound is not None:
            return symbols.get(".".join(bound.segments))
        return self._setter(cls, name.removesuffix(SET)) if name.endswith(SET) else None  # `t.celsius = 5`

    def _setter(self, cls: sqlite3.Row, name: str) -> sqlite3.Row | None:
        """The setter a Python class defines for its property `name` (`@name.setter`)."""
        return self.conn.execute(
            f"SELECT {RESOLVER_COLUMNS} FROM symbols WHERE parent = ? AND name = ? AND decorators LIKE ? ESCAPE '\\'",
            (cls["id"], name, f'%"@{name}.setter"%'),
        ).fetchone()

    def member(self, cls: sqlite3.Row, name: str) -> sqlite3.Row | None:
        """A class's own or inherited member (its `__init__`, a method)."""
        return self.own_member(cls, name) or self._in_bases(cls, name)

    def _in_bases(self, cls: sqlite3.Row, name: str) -> sqlite3.Row | None:
        """A member found in a class's bases, in Python's method resolution order."""
        return next((m for base in self.mro(cls)[1:] if (m := self.own_member(base, name)) is not None), None)

    def mro(self, cls: sqlite3.Row) -> list[sqlite3.Row]:
        """The class and its indexed bases in C3 order (`class D(B, C)` with B and C both A's: D B C A);
        depth first where C3 finds no order, as Python would refuse the class. The same whoever asks: it once
        depended on how deep in a lookup it was first asked (a budget of hops), and so did every answer after."""
        key = cls["id"]  # a walk up the call graph asks for the same classes' members again and again
        if key not in self._mros:
            if key in self._ordering:  # a cycle of bases (names the index resolved wrongly): Python refuses it
                return [cls]
            self._ordering.add(key)
            try:
                self._mros[key] = self._c3(cls)
            finally:
                self._ordering.discard(key)
        return self._mros[key]

    def _c3(self, cls: sqlite3.Row) -> list[sqlite3.Row]:
        lines = [self.mro(b) for b in self.bases(cls)]
        lines = [line for line in lines if line] + [list(self.bases(cls))]
        out = [cls]
        while any(lines):
            head = next(
                (
                    line[0]
                    for line in lines
                    if line and not any(line[0]["id"] in {r["id"] for r in other[1:]} for other in lines)
                ),
                None,
            )
            if head is None:  # inconsistent: fall back to depth first, each class once
                for row in (r for line in lines for r in line):
                    if all(row["id"] != r["id"] for r in out):
                        out.append(row)
                return out
            out.append(head)
            lines = [line[1:] if line and line[0]["id"] == head["id"] else line for line in lines]
        return out

    def bases(self, cls: sqlite3.Row) -> list[sqlite3.Row]:
        """The indexed classes a class names as its bases (`class A(B, mod.C)`), read from its signature, each
        looked up as from the top of its file (a lookup's own budget of hops, whoever asks)."""
        if cls["id"] not in self._bases:
            self._bases[cls["id"]] = []  # while they are looked up: a class naming itself through imports
            found = []
            for expression in base_names(cls["signature"] or ""):
                base = self._walk(cls["path"], tuple(expression.split(".")), 1)
                if base is not None and base["kind"] == cls["kind"] and base["id"] != cls["id"]:
                    found.append(base)
            self._bases[cls["id"]] = found
        return self._bases[cls["id"]]

    def descendants(self, cls: sqlite3.Row) -> list[sqlite3.Row]:
        """The indexed Python classes deriving from a Python class, nearest first: those naming it among their
        bases, theirs, and so on."""
        if cls["id"] not in self._descendants:  # a walk up the call graph asks of the same hubs again and again
            found: dict[str, sqlite3.Row] = {}
            frontier = [cls]
            while frontier:
                for sub in self._subclasses(frontier.pop(0)):
                    if sub["id"] not in found and sub["id"] != cls["id"]:
                        found[sub["id"]] = sub
                        frontier.append(sub)
            self._descendants[cls["id"]] = list(found.values())
        return self._descendants[cls["id"]]

    def mixing(self, cls: sqlite3.Row) -> list[sqlite3.Row]:
        """The descendants of a class that derive from it through a class with two bases or more: only their order
        can put another class's method after this class's (a mixin's), where a chain of single bases keeps the
        class's own order below it."""
        if cls["id"] not in self._mixing:
            found: dict[str, sqlite3.Row] = {}
            frontier, seen = [(cls, False)], {cls["id"]}
            while frontier:
                current, mixed = frontier.pop(0)
                for sub in self._subclasses(current):
                    if sub["id"] not in seen:
                        seen.add(sub["id"])
                        below = mixed or len(self.bases(sub)) > 1
                        if below:
                            found[sub["id"]] = sub
                        frontier.append((sub, below))
            self._mixing[cls["id"]] = list(found.values())
        return self._mixing[cls["id"]]

    def _subclasses(self, cls: sqlite3.Row) -> list[sqlite3.Row]:
        """The Python classes naming this one among their bases (found by the names their bases are written with)."""
        if self._naming_as_base is None:  # by the last part of each base's name, as written: read once
            self._naming_as_base = {}
            query = f"SELECT {RESOLVER_COLUMNS} FROM symbols WHERE kind = 'class' AND path LIKE '%.py%'"
            for sub in self.conn.execute(query):
                for written in base_names(sub["signature"] or ""):
                    self._naming_as_base.setdefault(written.rpartition(".")[2], []).append(sub)
        if cls["name"] not in self._subclasses_read:  # for every class of the name at once: sqlalchemy's tests hold
            # hundreds of classes named Base and thousands of classes deriving from one, each checked per Base
            self._subclasses_read.add(cls["name"])
            for sub in self._naming_as_base.get(cls["name"], []):
                for base_id in {b["id"] for b in self.bases(sub) if b["name"] == cls["name"]}:
                    self._subclasses_of.setdefault(base_id, []).append(sub)
        return self._subclasses_of.get(cls["id"], [])

    def _in_subclasses(self, cls: sqlite3.Row, name: str) -> sqlite3.Row | None:
        """The method a Python class's subclasses bring that the class lacks, where one definition is the one they
        all inherit or override: `command.resolve_command()` on a Command, which only MultiCommand declares (click's
        shell completion, after an isinstance check), runs it or an override of it. None where unrelated
        subclasses each define one, and for a class that answers any name (`__getattr__`)."""
        key = (cls["id"], name)
        if key not in self._brought:
            self._brought[key] = self._brought_by_subclasses(cls, name)
        return self._brought[key]

    def _brought_by_subclasses(self, cls: sqlite3.Row, name: str) -> sqlite3.Row | None:
        if not self._names_fixed(cls):
            return None
        below = list(  # one per class: the last of its definitions of that name
            {
                m["parent"]: (m, line)
                for m, line in self.definers(name)
                if cls["id"] in line and m["parent"] != cls["id"]
            }.values()
        )
        for method, _ in below:  # the one whose class every other defining class descends from
            if all(method["parent"] in line for other, line in below if other["id"] != method["id"]):
                return method
        return None

    def hooks(self, cls: sqlite3.Row, name: str) -> list[str]:
        """The methods (ids) of this name the subclasses of a Python class lacking one bring, each as its method
        resolution order finds it, nearest subclass first: what `self.step()` in a Job may run where its subclasses
        each define step (_in_subclasses names the one where there is one; a mixin's `self.items()` runs the items
        of the class beside it). None where the class answers any name, or where a base of it outside the index
        (`dict`) may bring the method itself."""
        key = (cls["id"], name)
        if key not in self._hooks:  # the callers of each of those methods ask of the same class and name
            self._hooks[key] = self._brought_below(cls, name)
        return self._hooks[key]

    def _brought_below(self, cls: sqlite3.Row, name: str) -> list[str]:
        if not self._names_fixed(cls) or self.member(cls, name) is not None:
            return []
        if any(self._outside_bases(c) for c in self.mro(cls)):
            return []
        found: dict[str, None] = {}
        for sub in self.descendants(cls):
            method = self.member(sub, name)
            if method is not None and method["path"].endswith(".py"):  # a stub's declaration is not what runs
                found[method["id"]] = None
        return list(found)

    def _names_fixed(self, cls: sqlite3.Row) -> bool:
        """Whether a class's members are what the index reads: a Python class, not answering any name
        (`__getattr__`)."""
        return cls["path"].endswith((".py", ".pyi")) and self.member(cls, "__getattr__") is None

    def next_is_outside(self, cls: sqlite3.Row, name: str) -> bool:
        """Whether `super().name()` in a Python class runs outside code: no indexed class after it defines the
        method, on its own instances (each base its order names is indexed, a builtin such as `Exception`, or a name
        imported from outside: `from string import Formatter`) or on a descendant's that mixes in another class
        (`class C(A, B)` puts B after A). A base the index cannot find (`class X(serializer.signer)`, a name a star
        import of ours may bring) could be ours."""
        for c in self.mro(cls):
            written = base_names(c["signature"] or "")
            if not c["path"].endswith(".py") or not bases_all_named(c["signature"] or ""):
                return False
            bases = self.bases(c)
            if len(written) == len(bases):
                continue
            indexed = {b["id"] for b in bases}
            _, stars, outside = self.import_index(c["path"])
            for expression in written:
                first = expression.partition(".")[0]
                if first in outside or (first == expression and hasattr(builtins, first) and not stars):
                    continue
                base = self._walk(c["path"], tuple(expression.split(".")), 1)
                if base is None or base["id"] not in indexed:
                    return False
        for mixed in self.mixing(cls):
            order = self.mro(mixed)
            after = next((i for i, c in enumerate(order) if c["id"] == cls["id"]), len(order))
            if any(self.own_member(c, name) is not None for c in order[after + 1 :]):
                return False
        return True

    def _outside_bases(self, cls: sqlite3.Row) -> bool:
        """Whether a class names a base the index does not hold, other than those bringing no methods to call."""
        written = [b for b in base_names(cls["signature"] or "") if b.rpartition(".")[2] not in METHODLESS_BASES]
        return len(written) > len(self.bases(cls))

    def definers(self, name: str) -> list[tuple[sqlite3.Row, frozenset[str]]]:
        """The Python methods of this name, each with the ids of its class's order (the class and its bases): few,
        where a class's subclasses are many."""
        if name not in self._definers:
            query = f"SELECT {RESOLVER_COLUMNS} FROM symbols WHERE name = ? AND kind = 'method' AND path LIKE '%.py%'"
            found = []
            for method in self.conn.execute(query, (name,)):
                owner = self.symbol(method["parent"])
                if owner is not None and owner["kind"] == "class":
                    found.append((method, frozenset(c["id"] for c in self.mro(owner))))
            self._definers[name] = found
        return self._definers[name]


def is_protocol(cls: sqlite3.Row) -> bool:
    """A Python Protocol (`class _PDataSerializer(t.Protocol[T])`): what satisfies it need not derive from it, so
    its methods are never what a call on a value of it runs (itsdangerous' `self.serializer.dumps()` runs the json
    module's, or _CompactJSON's)."""
    return cls["path"].endswith((".py", ".pyi")) and _names_protocol(cls["signature"] or "")


@functools.lru_cache(maxsize=4096)  # asked of the same classes at every typed value the resolver follows
def _names_protocol(signature: str) -> bool:
    return any(name.rpartition(".")[2] == "Protocol" for name in base_names(signature))
