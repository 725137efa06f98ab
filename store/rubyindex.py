"""The project's Ruby as Ruby's own lookups see it, for store/rubycalls.py's rules: its classes and modules by
qualified name (`Rake.Task`), the superclass each is written with, the modules each mixes in (`include`, `extend`,
`module_function`, and those a file's top includes), its methods by name (instance and class methods apart, an
`alias` naming one too), and what its variables, methods and blocks are of where the code says
(indexer/parsing/rubyfields.py keeps those as fields). A constant is found as Ruby finds it: from the innermost
module around it outwards, then through the modules those scopes mix in; a method up a class's superclasses and the
modules they mix in."""

from __future__ import annotations

import re
import sqlite3
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .db import held_while_unchanged, stored_list
from .rustnames import ALTERNATIVES  # as indexer/parsing/rubyfields.py writes a variable made of two classes

if TYPE_CHECKING:
    from .resolver import CallResolver

HOLDERS = ("class", "module")
SINGLETON_CLASS = "class << self"  # among a method's decorators (indexer/parsing/rubynames.py)
CONSTANT = re.compile(r"^(::)?([A-Z]\w*)((?:::[A-Z]\w*)*)$")
_SUPERCLASS = re.compile(r"<\s*((?:::)?[A-Z][\w:]*)")
_RENAMING = re.compile(r"^[A-Z]\w*\s*=\s*((?:::)?[A-Z]\w*(?:::[A-Z]\w*)*)\s*(?:#.*)?$")  # `FileList = Rake::FileList`
# `VERSION = "1.0"`, `DEFAULTS = {}`, `PATTERN = /x/`, `HANDLER = proc { ... }`: a value of one of Ruby's own classes
_LITERAL = re.compile(r"^[A-Z]\w*\s*=\s*(?:[\"'\d\[{/%-]|:\w|<<|(?:true|false|nil|proc|lambda)\b)")
_MAKING = re.compile(r"^[A-Z]\w*\s*=\s*((?:::)?[A-Z]\w*(?:::[A-Z]\w*)*)\.new\b")  # `DefaultList = List.new`
MAX_ANCESTORS = 12
_THE_RECEIVER = frozenset({"dup", "clone", "freeze", "tap", "itself"})  # Object's methods giving back the receiver
MAX_HOPS = 3  # `@x = build_x` whose `build_x` returns `make_x`'s value...: followed this far
RETURNED = "return"  # what a method returns is kept under this name (indexer/parsing/rubyfields.py)
RESULT_OF = "="  # a value kept as `=build_parser`: what that method returns
YIELDED = "yield"  # what a method yields to its block is kept under this name
SELF = "self"  # a value of the class the method is of (`yield self`, a class method's `new(...)`)
GIVEN_BY = "&"  # a block's parameter kept as `&CSV.open`: what that method yields
ALIAS = ":"  # a class's field `:def_option` of type `define`: `alias def_option define`
Classes = tuple[str, ...]  # the classes a value may be of, by qualified name: () where the code does not say
# A class of a library's (`File`, `StringIO`), among the classes a value may be: it has none of our methods, so a value
# that is `Table.new` in one branch and `File.open(...)` in another runs Table's where it runs any of ours
LIBRARY = "(a library's class)"


def is_ruby(path: str) -> bool:
    return path.endswith((".rb", ".rake", ".gemspec"))


@dataclass
class RubyIndex:
    """The project's Ruby classes and modules by qualified name (`Rake.Task`): the superclass each is written with
    and where, the modules each mixes in, its methods by name (instance and class methods apart) and the other names
    `alias` gives them, and what its values are made of where the code says."""

    superclass: dict[str, tuple[str, str]] = field(default_factory=dict)  # qualname -> (written, lexical scope)
    holders: set[str] = field(default_factory=set)
    methods: dict[tuple[str, str, bool], list[str]] = field(default_factory=dict)  # (holder, name, self.) -> ids
    # what a variable is made of (indexer/parsing/rubyfields.py): a method's locals by (method id, name), a class's
    # instance variables by (its qualified name, `@name`): the class as written, and where (its lexical scope)
    made: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)
    # the modules each class or module mixes in, in their order: `include` and `prepend` give its instances their
    # methods, `extend` (and `module_function`, `extend self`: its own) the class itself
    included: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # qualname -> (written, scope)
    extended: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    # what the answers ask again and again (a callers answer asks each call site of a name, for each symbol of it)
    targets: dict[tuple[str | None, str | None, str], list[str] | None] = field(default_factory=dict)
    made_by: dict[str, set[str]] = field(default_factory=dict)  # a class's name and its descendants' (may_make)
    aliases: dict[tuple[str, str], str] = field(default_factory=dict)  # (holder, new name) -> the method's name
    # a constant naming a class or module by another name (`FileList = Rake::FileList`): qualname -> (written, scope)
    renamed: dict[str, tuple[str, str]] = field(default_factory=dict)
    _constants: dict[tuple[str, str], str | None] = field(default_factory=dict)
    _holders: dict[tuple[str, bool], list[tuple[str, bool]]] = field(default_factory=dict)
    readers: set[tuple[str, str]] = field(default_factory=set)  # (holder, name) for each `attr_reader :name`
    # a constant holding an instance (`DefaultList = List.new`): qualname -> (its class as written, scope; "" for one
    # of Ruby's own, `VERSION = "1.0"`); and the constants of any other value
    instances: dict[str, tuple[str, str]] = field(default_factory=dict)
    values: set[str] = field(default_factory=set)
    _includers: dict[str, list[str]] | None = None

    @classmethod
    def build(cls, conn: sqlite3.Connection) -> RubyIndex:
        found = cls()
        rows = conn.execute(
            "SELECT id, name, qualname, kind, parent, signature, decorators FROM symbols WHERE language = 'ruby'"
            " ORDER BY id"
        ).fetchall()
        qualnames = {row["id"]: row["qualname"] for row in rows if row["kind"] in HOLDERS}
        found._read_classes(rows)
        found._read_renamed(rows)
        found._read_methods(rows, qualnames)
        found._read_mixins(conn, qualnames)
        found._read_readers(conn, qualnames)
        methods = {row["id"]: qualnames.get(row["parent"] or "") for row in rows if row["kind"] == "method"}
        found._read_fields(conn, qualnames, methods)
        return found

    def _read_classes(self, rows: list[sqlite3.Row]) -> None:
        """The classes and modules, and the superclass each class is written with."""
        for row in rows:
            if row["kind"] in HOLDERS:
                self.holders.add(row["qualname"])
                written = _SUPERCLASS.search(row["signature"] or "") if row["kind"] == "class" else None
                if written is not None:
                    self.superclass.setdefault(row["qualname"], (written.group(1), row["qualname"].rpartition(".")[0]))

    def _read_renamed(self, rows: list[sqlite3.Row]) -> None:
        """The constants whose value is a constant path alone (`FileList = Rake::FileList`, which a test class or a
        library's top writes so its code can say `FileList.new`), those holding an instance (`DefaultList =
        List.new`), and every other constant of ours (`VERSION = "1.0"`: no library's class)."""
        for row in rows:
            if row["kind"] == "const":
                scope = row["qualname"].rpartition(".")[0]
                renaming = _RENAMING.match(row["signature"] or "")
                making = _MAKING.match(row["signature"] or "")
                if renaming is not None:
                    self.renamed[row["qualname"]] = (renaming.group(1), scope)
                elif making is not None:
                    self.instances[row["qualname"]] = (making.group(1), scope)
                elif _LITERAL.match(row["signature"] or ""):
                    self.instances[row["qualname"]] = ("", scope)  # a String, an Array, a Proc: Ruby's own
                else:
                    self.values.add(row["qualname"])

    def _read_methods(self, rows: list[sqlite3.Row], qualnames: dict[str, str]) -> None:
        """Each class's and module's methods, instance and class methods apart."""
        for row in rows:
            holder = qualnames.get(row["parent"] or "")
            if row["kind"] == "method" and holder is not None:
                singleton = of_the_class(row["signature"], row["decorators"])
                self.methods.setdefault((holder, row["name"], singleton), []).append(row["id"])

    def _read_readers(self, conn: sqlite3.Connection, qualnames: dict[str, str]) -> None:
        """The readers `attr_reader`, `attr_accessor` and `attr` make in each class's body: `attr_reader :row` reads
        `@row`, whatever the class's methods make it."""
        making = "SELECT caller, arguments FROM calls WHERE name IN ('attr_reader', 'attr_accessor', 'attr')"
        making += " AND qualifier IS NULL AND path LIKE '%.rb'"
        for caller, arguments in conn.execute(making):
            holder = qualnames.get(caller or "")
            if holder is not None:
                names = (n for n in stored_list(arguments) if isinstance(n, str) and n.startswith(":"))
                self.readers.update((holder, name[1:]) for name in names)

    def _read_mixins(self, conn: sqlite3.Connection, qualnames: dict[str, str]) -> None:
        """The modules each class or module (or a file's top) includes, prepends or extends itself with."""
        mixing = "SELECT caller, name, arguments FROM calls WHERE name IN ('include', 'extend', 'prepend',"
        mixing += " 'module_function') AND qualifier IS NULL AND path LIKE '%.rb'"
        for caller, how, arguments in conn.execute(mixing):
            holder = "" if caller is None else qualnames.get(caller)  # "": the top level's (`include Rake` in a test)
            if holder is None:
                continue
            modules = ["self"] if how == "module_function" else [str(a) for a in stored_list(arguments)]
            into = self.extended if how in ("extend", "module_function") else self.included
            into.setdefault(holder, []).extend((m if m != "self" else holder, holder) for m in modules)

    def _read_fields(self, conn: sqlite3.Connection, qualnames: dict[str, str], methods: dict[str, str | None]) -> None:
        """What indexer/parsing/rubyfields.py kept: the aliases, and what each variable, method result and block
        parameter is made of, with the lexical scope it is written in."""
        for owner, name, written in conn.execute("SELECT owner, name, type FROM fields WHERE path LIKE '%.rb'"):
            if name.startswith(ALIAS) and owner in qualnames:  # `alias def_option define`
                self.aliases[(qualnames[owner], name[len(ALIAS) :])] = written
                continue
            scope = qualnames.get(owner) if owner in qualnames else methods.get(owner)
            if scope is None:
                continue
            key = (scope, name) if name.startswith("@") else (owner, name)
            if self.made.setdefault(key, (written, scope)) != (written, scope):
                self.made[key] = ("", scope)  # a class's variable made of two classes in two of its files

    def variable_classes(self, method: str, holder: str, name: str) -> Classes:
        """The qualified names of the project's classes a local of the method, or an instance variable of its class (or
        of a class up its superclasses: a test's base class's `setup`), may be made of, where the code says. A
        module's instance variable is its includers': optparse's shared tests, a module included in test classes
        whose base class's `setup` sets `@opt = OptionParser.new`, call `@opt.parse!` on an OptionParser."""
        if not name.startswith("@"):
            written = self.made.get((method, name))
            return self.made_of(*written) if written is not None else ()
        return self._instance_variable(holder, name, 0)

    def _instance_variable(self, holder: str, name: str, hops: int, seen: frozenset[str] = frozenset()) -> Classes:
        for cls in self.ancestry(holder):
            written = self.made.get((cls, name))
            if written is not None:
                return self.made_of(*written, hops)
        seen = seen | {holder}
        includers = [includer for includer in self.includers().get(holder, []) if includer not in seen]
        each = [self._instance_variable(includer, name, hops, seen) for includer in includers]
        return union(each) if each and all(each) else ()

    def includers(self) -> dict[str, list[str]]:
        """The classes (and modules) that include or prepend each module, by qualified name."""
        if self._includers is None:
            self._includers = {}
            for holder, mixed in self.included.items():
                for written, scope in mixed:
                    module = self.constant(written, scope) if written != holder else None
                    if module is not None:
                        self._includers.setdefault(module, []).append(holder)
        return self._includers

    def made_of(self, written: str, scope: str, hops: int = 0) -> Classes:
        """The classes a value kept as written (`CSV`, `=build_parser`: what that method of the class in `scope`
        returns, `=Rake.application`: what that module's own method returns, `Scanner | InputsScanner`: either) may
        be, by their qualified names; none where the code does not say of every one."""
        if not written or hops > MAX_HOPS:
            return ()
        if ALTERNATIVES in written:
            each = [self.made_of(alternative, scope, hops) for alternative in written.split(ALTERNATIVES)]
            return union(each) if all(each) else ()
        if written == SELF:
            return (scope,) if scope in self.holders else ()
        if written.startswith("@"):  # `@table`: what the class's methods make that instance variable
            return self._instance_variable(scope, written, hops + 1)
        if written.startswith(GIVEN_BY):  # `&CSV.open`: what CSV.open yields to the block
            on, _, name = written[len(GIVEN_BY) :].rpartition(".")
            cls = self.constant(on, scope) if on else scope
            if cls is None:
                return ()
            methods = self.lookup(cls, "initialize", False) if name == "new" else self.lookup(cls, name, bool(on))
            return self._from(methods or self.lookup(cls, name, not on), YIELDED, hops, cls)
        if not written.startswith(RESULT_OF):
            return self._named(written, scope)
        on, _, name = written[len(RESULT_OF) :].rpartition(".")
        if not on:  # `=build_parser`: a method of the class in `scope`
            return self.returns(scope, name, False, hops)
        cls = self.constant(on, scope)  # `=Rake.application`: a method of that class or module itself
        return self.returns(cls, name, True, hops) if cls is not None else self._named(on, scope)

    def _named(self, written: str, scope: str) -> Classes:
        """The class a constant names: ours, a library's (LIBRARY: none of its methods is ours); () for no constant."""
        named = self.constant(written, scope)
        if named is not None or CONSTANT.match(written.strip()) is None:
            return (named,) if named is not None else ()
        held = self.held(written, scope)
        return held if held is not None else (LIBRARY,)

    def held(self, written: str, scope: str) -> Classes | None:
        """What a constant of ours that names no class holds: the class of the instance it holds (`DefaultList =
        List.new`; LIBRARY for `VERSION = "1.0"`), () for a value the code does not say the class of; None where no
        constant of ours has the name."""
        path = written.strip().removeprefix("::").replace("::", ".")
        scopes = [""] if written.strip().startswith("::") else _outwards(scope)
        for qualname in (f"{s}.{path}" if s else path for s in scopes):
            if qualname in self.instances:
                written, there = self.instances[qualname]
                cls = self.constant(written, there) if written else None
                return (cls,) if cls is not None else (LIBRARY,)
            if qualname in self.values:
                return ()
        return None

    def returns(self, holder: str, name: str, singleton: bool, hops: int = 0) -> Classes:
        """The classes a call of `name` on the class (or an instance of it) returns, where the code says: what its
        method of that name returns, or, for a reader `attr_reader` makes, what the class makes that instance
        variable."""
        methods = self.lookup(holder, name, singleton)
        if methods:
            return self._from(methods, RETURNED, hops, holder)
        if singleton:
            return (holder,) if name == "new" else ()  # `Doc.new(text).root`: an instance of the class
        if name in _THE_RECEIVER:  # Object's `dup`, `tap`: the receiver, or a copy of it
            return (holder,)
        if any((cls, name) in self.readers for cls, _ in self.method_holders(holder, False)):
            return self._instance_variable(holder, "@" + name, hops + 1)
        return ()

    def _from(self, methods: list[str], what: str, hops: int, receiver: str) -> Classes:
        """The classes these methods, called on `receiver`, return or yield (`what`), of those whose code says (csv's
        parser defines `build_scanner` twice, under two conditions). A method's `self`, or a class method's `new`, is
        the receiver's class, not the class defining it: `Sub.make` runs Base's `def self.make; new; end` for a Sub."""
        kept = [written for m in methods if (written := self.made.get((m, what)))]
        return union([(receiver,) if k[0] == SELF else self.made_of(*k, hops + 1) for k in kept])

    def ancestry(self, holder: str) -> list[str]:
        """The class and its superclasses the project defines, nearest first."""
        found: list[str] = []
        current: str | None = holder
        while current is not None and current not in found and len(found) < MAX_ANCESTORS:
            found.append(current)
            written = self.superclass.get(current)
            current = self.constant(*written) if written is not None else None
        return found

    def method_holders(self, holder: str, singleton: bool) -> list[tuple[str, bool]]:
        """Where Ruby looks for a method called on an instance of the class (or on the class itself), nearest first:
        each class up its superclasses, then the modules it mixes in (the last mixed in first), and theirs; as
        (holder, whether its `def self.` methods are the ones)."""
        key = (holder, singleton)
        if key not in self._holders:
            self._holders[key] = self._read_holders(holder, singleton)
        return self._holders[key]

    def _read_holders(self, holder: str, singleton: bool) -> list[tuple[str, bool]]:
        found: list[tuple[str, bool]] = []
        for cls in self.ancestry(holder):
            found.append((cls, singleton))
            mixed = self.extended.get(cls, []) if singleton else self.included.get(cls, [])
            for written, scope in reversed(mixed):
                module = self.constant(written, scope) if written != cls else cls
                for inner in [module, *self._included(module)] if module is not None else []:
                    if (inner, False) not in found:
                        found.append((inner, False))
        return found

    def _included(self, module: str) -> list[str]:
        """The modules a module includes, and theirs, nearest first."""
        found: list[str] = []
        todo = [module]
        while todo and len(found) < MAX_ANCESTORS:
            current = todo.pop(0)
            for written, scope in reversed(self.included.get(current, [])):
                named = self.constant(written, scope)
                if named is not None and named not in found and named != module:
                    found.append(named)
                    todo.append(named)
        return found

    def constant(self, written: str, scope: str) -> str | None:
        """The qualified name of the class or module a constant as written names from inside `scope`, or None
        where the project defines none of that name (a library's)."""
        key = (written, scope)
        if key not in self._constants:
            self._constants[key] = self._read_constant(written, scope)
        return self._constants[key]

    def _read_constant(self, written: str, scope: str, hops: int = 0) -> str | None:
        m = CONSTANT.match(written.strip())
        if m is None:
            return None
        path = (m.group(2) + m.group(3)).replace("::", ".")
        scopes = [""] if m.group(1) else _outwards(scope)
        found = next(
            (q for s in scopes if (q := f"{s}.{path}" if s else path) in self.holders or q in self.renamed), None
        )
        if found is not None and found not in self.holders:  # another name of a class: the class it names
            target, there = self.renamed[found]
            return self._read_constant(target, there, hops + 1) if hops < MAX_HOPS else None
        if found is not None or m.group(1):
            return found
        # then the constants of the modules the scopes mix in, the top level's too (`include Rake`: `FileList`)
        for module in (w for s in scopes for w, _ in self.included.get(s, [])):
            named = (module.replace("::", ".") + "." + path).lstrip(".")
            if named in self.holders:
                return named
        return None

    def lookup(self, holder: str, name: str, singleton: bool) -> list[str]:
        """The methods of that name a class or module runs for a call on it (or on an instance of it), up its
        superclasses and the modules they mix in: the nearest declaring one's."""
        for cls, own in self.method_holders(holder, singleton):
            aliased = self.aliases.get((cls, name), "")  # `alias def_option define`: define
            found = self.methods.get((cls, name, own)) or self.methods.get((cls, aliased, own))
            if found:
                return found
        return []


def union(classes: list[Classes]) -> Classes:
    """The classes of any of these, once each, in their order."""
    return tuple(dict.fromkeys(cls for some in classes for cls in some))


def of_the_class(signature: str | None, decorators: str | None) -> bool:
    """Whether a method is the class's own (`def self.parse`, or any `def` inside `class << self`), not its
    instances'."""
    return (signature or "").startswith("def self.") or SINGLETON_CLASS in stored_list(decorators)


def _outwards(scope: str) -> list[str]:
    """`Rake.Task` -> `Rake.Task`, `Rake`, and the top level ('')."""
    parts = scope.split(".") if scope else []
    return [".".join(parts[:i]) for i in range(len(parts), -1, -1)]


def ruby_index(conn: sqlite3.Connection) -> RubyIndex:
    return held_while_unchanged(conn, "ruby index", lambda: RubyIndex.build(conn))


# A resolver stands while the index does (resolver.shared_resolver): its Ruby index, found without asking the database
# whether the files changed, as ruby_index does (a callers answer asks it of every call site of a name)
_BY_RESOLVER: weakref.WeakKeyDictionary[CallResolver, RubyIndex] = weakref.WeakKeyDictionary()


def index_of(resolver: CallResolver) -> RubyIndex:
    found = _BY_RESOLVER.get(resolver)
    if found is None:
        found = _BY_RESOLVER[resolver] = ruby_index(resolver.conn)
    return found


def ruby_name(conn: sqlite3.Connection, qualname: str, lexical: str | None) -> str:
    """The name Ruby gives a class or module (`Module#name`) of this qualified name, written inside `lexical` (the
    qualified name of the module around it): `class TestOptionParser::WithPattern` inside `module ReqArg` is
    `TestOptionParser::WithPattern` where the project defines no ReqArg::TestOptionParser, as Ruby finds the
    constant written before the name from the module around it outwards."""
    written = qualname[len(lexical) + 1 :] if lexical and qualname.startswith(lexical + ".") else qualname
    scope, _, name = written.rpartition(".")
    found = ruby_index(conn).constant(scope.replace(".", "::"), lexical or "") if scope else None
    return (f"{found}.{name}" if found else qualname).replace(".", "::")
