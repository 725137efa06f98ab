"""Ruby's rules for what a call runs, which the call graph (store/callgraph.py) follows for Ruby files.

Ruby says little of a value's class, but much of a call's own syntax. A call with no receiver, or on `self`, runs a
method of the calling method's class (or module), or of a class up its superclasses (`class FileTask < Task`): an
instance method from an instance method, a `def self.` method from one. A call on a constant (`CSV.new(data)`,
`Rake::Task.clear`) names the class: `new` runs its `initialize`, anything else one of its `def self.` methods; a
constant the project does not define is a library's (`File.join`), whose methods are never ours. A constant is
found as Ruby finds it, from the innermost module around the call outwards (`Task` in `module Rake` is
`Rake::Task`). A call on any other value (`@table.dig(...)`, `row.to_a`) runs a method of a class the index does not
know: a guess by name, and none where Ruby's own classes have a method of that name (`each`, `join`, `empty?`),
which such a value most often is.
"""

from __future__ import annotations

import functools
import json
import re
import sqlite3
import weakref
from dataclasses import dataclass, field
from importlib.resources import files
from typing import TYPE_CHECKING

from .db import held_while_unchanged, stored_list
from .rustnames import ALTERNATIVES  # as indexer/parsing/rubyfields.py writes a variable made of two classes

if TYPE_CHECKING:
    from .resolver import CallResolver
    from .symbol import SymbolRow

AS_BEFORE = "as before"  # the receiver's class is not known: the rules by name decide
UNIQUE_NAME = "unique name"  # as callgraph.py's (Python's): one symbol of the name, called on a value
HOLDERS = ("class", "module")
SINGLETON_CLASS = "class << self"  # among a method's decorators (indexer/parsing/rubynames.py)
_CONSTANT = re.compile(r"^(::)?([A-Z]\w*)((?:::[A-Z]\w*)*)$")
_MADE = re.compile(r"^((?:::)?[A-Z]\w*(?:::[A-Z]\w*)*)\.new(?:\(.*\))?$", re.S)  # `CSV.new(data)`
_IDENTIFIER = re.compile(r"^[a-z_]\w*$")
_STEP = re.compile(r"^(?:@?[A-Za-z_]\w*[?!]?|(?:::)?[A-Z]\w*(?:::[A-Z]\w*)*)$")  # a name, a variable or a constant
MAX_STEPS = 5
_SUPERCLASS = re.compile(r"<\s*((?:::)?[A-Z][\w:]*)")
MAX_ANCESTORS = 12
MAX_HOPS = 3  # `@x = build_x` whose `build_x` returns `make_x`'s value...: followed this far
RETURNED = "return"  # what a method returns is kept under this name (indexer/parsing/rubyfields.py)
RESULT_OF = "="  # a value kept as `=build_parser`: what that method returns
YIELDED = "yield"  # what a method yields to its block is kept under this name
SELF = "self"  # a value of the class the method is of (`yield self`, a class method's `new(...)`)
GIVEN_BY = "&"  # a block's parameter kept as `&CSV.open`: what that method yields
ALIAS = ":"  # a class's field `:def_option` of type `define`: `alias def_option define`


def is_ruby(path: str) -> bool:
    return path.endswith((".rb", ".rake", ".gemspec"))


@dataclass
class RubyIndex:
    """The project's Ruby classes and modules by qualified name (`Rake.Task`), with the superclass each is written
    with and where, and its methods by name, instance and `def self.` ones apart."""

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
    _constants: dict[tuple[str, str], str | None] = field(default_factory=dict)
    _holders: dict[tuple[str, bool], list[tuple[str, bool]]] = field(default_factory=dict)

    @classmethod
    def build(cls, conn: sqlite3.Connection) -> RubyIndex:
        found = cls()
        qualnames: dict[str, str] = {}
        rows = conn.execute(
            "SELECT id, name, qualname, kind, parent, signature, decorators FROM symbols WHERE language = 'ruby'"
            " ORDER BY id"
        ).fetchall()
        for row in rows:
            if row["kind"] in HOLDERS:
                qualnames[row["id"]] = row["qualname"]
                found.holders.add(row["qualname"])
                written = _SUPERCLASS.search(row["signature"] or "") if row["kind"] == "class" else None
                if written is not None:
                    found.superclass.setdefault(row["qualname"], (written.group(1), row["qualname"].rpartition(".")[0]))
        for row in rows:
            holder = qualnames.get(row["parent"] or "")
            if row["kind"] == "method" and holder is not None:
                singleton = _of_the_class(row["signature"], row["decorators"])
                found.methods.setdefault((holder, row["name"], singleton), []).append(row["id"])
        mixing = "SELECT caller, name, arguments FROM calls WHERE name IN ('include', 'extend', 'prepend',"
        mixing += " 'module_function') AND qualifier IS NULL AND path LIKE '%.rb'"
        for caller, how, arguments in conn.execute(mixing):
            holder = "" if caller is None else qualnames.get(caller)  # "": the top level's (`include Rake` in a test)
            if holder is None:
                continue
            modules = ["self"] if how == "module_function" else [str(a) for a in stored_list(arguments)]
            into = found.extended if how in ("extend", "module_function") else found.included
            into.setdefault(holder, []).extend((m if m != "self" else holder, holder) for m in modules)
        methods = {row["id"]: qualnames.get(row["parent"] or "") for row in rows if row["kind"] == "method"}
        for owner, name, written in conn.execute("SELECT owner, name, type FROM fields WHERE path LIKE '%.rb'"):
            if name.startswith(ALIAS) and owner in qualnames:  # `alias def_option define`
                found.aliases[(qualnames[owner], name[len(ALIAS) :])] = written
                continue
            scope = qualnames.get(owner) if owner in qualnames else methods.get(owner)
            if scope is None or ALTERNATIVES in written:
                continue
            key = (scope, name) if name.startswith("@") else (owner, name)
            if found.made.setdefault(key, (written, scope)) != (written, scope):
                found.made[key] = ("", scope)  # a class's variable made of two classes in two of its files
        return found

    def variable_class(self, method: str, holder: str, name: str) -> str | None:
        """The qualified name of the project's class a local of the method, or an instance variable of its class (or
        of a class up its superclasses: a test's base class's `setup`), is made of, where the code says."""
        if not name.startswith("@"):
            written = self.made.get((method, name))
            return self.made_of(*written) if written is not None else None
        for cls in self.ancestry(holder):
            written = self.made.get((cls, name))
            if written is not None:
                return self.made_of(*written)
        return None

    def made_of(self, written: str, scope: str, hops: int = 0) -> str | None:
        """The class a value kept as written (`CSV`, or `=build_parser`: what that method of the class in `scope`
        returns) is, by its qualified name; None where the code does not say."""
        if not written or hops > MAX_HOPS:
            return None
        if written == SELF:
            return scope if scope in self.holders else None
        if written.startswith(GIVEN_BY):  # `&CSV.open`: what CSV.open yields to the block
            on, _, name = written[len(GIVEN_BY) :].rpartition(".")
            cls = self.constant(on, scope) if on else scope
            if cls is None:
                return None
            methods = self.lookup(cls, "initialize", False) if name == "new" else self.lookup(cls, name, bool(on))
            return self._from(methods or self.lookup(cls, name, not on), YIELDED, hops)
        if not written.startswith(RESULT_OF):
            return self.constant(written, scope)
        return self._from(self.lookup(scope, written[len(RESULT_OF) :], False), RETURNED, hops)

    def made_of_result(self, methods: list[str]) -> str | None:
        """The class the first of these methods returns, where the code says."""
        return self._from(methods, RETURNED, 0)

    def _from(self, methods: list[str], what: str, hops: int) -> str | None:
        """The class the first of these methods returns or yields (`what`) that the code says."""
        for method in methods:
            kept = self.made.get((method, what))
            if kept is not None:
                return self.made_of(*kept, hops + 1)
        return None

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

    def _read_constant(self, written: str, scope: str) -> str | None:
        m = _CONSTANT.match(written.strip())
        if m is None:
            return None
        path = (m.group(2) + m.group(3)).replace("::", ".")
        scopes = [""] if m.group(1) else _outwards(scope)
        found = next((q for s in scopes if (q := f"{s}.{path}" if s else path) in self.holders), None)
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


def _of_the_class(signature: str | None, decorators: str | None) -> bool:
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


def _index_of(resolver: CallResolver) -> RubyIndex:
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


@functools.cache
def _method_names() -> dict[str, frozenset[str]]:
    """data/ruby_core_methods.json (by bench/ruby_core_methods.py): the names of the methods of Ruby's own classes and
    modules (`methods`), and the more Rails' models, relations and controllers have (`frameworks`)."""
    found = json.loads(files("codeannals.data").joinpath("ruby_core_methods.json").read_text("utf-8"))
    return {kind: frozenset(found.get(kind, [])) for kind in ("methods", "frameworks")}


def core_methods() -> frozenset[str]:
    return _method_names()["methods"]


def framework_methods() -> frozenset[str]:
    return _method_names()["frameworks"]


def _one_of_ours(resolver: CallResolver, name: str) -> bool:
    """Whether a call of `name` on a value the index cannot type is the one method of ours of that name: none other
    has it, and Rails' classes do not either (`user.save` in a Rails app is ActiveRecord's)."""
    return resolver.functions_named(name) == 1 and name not in framework_methods()


def ruby_targets(resolver: CallResolver, caller: str | None, qualifier: str | None, name: str) -> list[str] | None:
    """The ids of the methods a call runs by the rules above: [] for a library's method, None where the syntax does not
    say (a call on a value, or a bare name none of the calling class's methods has: a mixin's, Kernel's)."""
    index = _index_of(resolver)
    key = (caller, qualifier, name)
    if key not in index.targets:
        index.targets[key] = _read_targets(resolver, index, caller, qualifier, name)
    return index.targets[key]


def _read_targets(
    resolver: CallResolver, index: RubyIndex, caller: str | None, qualifier: str | None, name: str
) -> list[str] | None:
    method = resolver.symbol(caller)
    holder = resolver.symbol(method["parent"]) if method is not None and method["kind"] == "method" else method
    if holder is None or holder["kind"] not in HOLDERS:
        return None
    scope = str(holder["qualname"])
    if qualifier == "super":  # the method of the name next up the class's superclasses and mixed-in modules
        singleton = method is not None and _of_the_class(method["signature"], method["decorators"])
        holders = index.method_holders(scope, singleton)[1:]
        return next((found for cls, own in holders if (found := index.methods.get((cls, name, own)))), [])
    if qualifier is None or qualifier == "self":
        in_singleton = method is not None and _of_the_class(method["signature"], method["decorators"])
        # `self.x` in a class's own body (outside any method) is a call on the class
        singleton = in_singleton or method is holder  # in a class's own body, `self` is the class
        if name == "new" and singleton:  # `new(str, **options)` in a `def self.parse`
            return index.lookup(scope, "initialize", False)
        return index.lookup(scope, name, singleton) or None
    if _CONSTANT.match(qualifier.strip()) is None:
        made = _made_class(resolver, index, method, scope, qualifier.strip())
        return (index.lookup(made, name, False) or None) if made is not None else None
    named = index.constant(qualifier, scope)
    if named is None:
        return []  # a library's class: `File.join`, `Regexp.new`
    if name == "new":
        return index.lookup(named, "initialize", False)
    return index.lookup(named, name, True) or None  # else a module function, an `extend self`: as before


def _made_class(
    resolver: CallResolver, index: RubyIndex, method: sqlite3.Row | None, scope: str, value: str
) -> str | None:
    """The project's class a value is an instance of, where the code says: `CSV.new(data)`, a variable made so, or
    what a method of the class returns (`parser.parse`, where no local of the method is named `parser`)."""
    made = _MADE.match(value)
    if made is not None:
        return index.constant(made.group(1), scope)
    if method is None:
        return None
    found = index.variable_class(str(method["id"]), scope, value)
    if found is None and _IDENTIFIER.match(value) and _called_bare(resolver, str(method["id"]), value):
        found = index.made_of(RESULT_OF + value, scope)
    if found is None and "." in value:
        found = _chain_class(resolver, index, method, scope, value)
    return found


def _chain_class(resolver: CallResolver, index: RubyIndex, method: sqlite3.Row, scope: str, value: str) -> str | None:
    """The class of a chain of calls (`Rake.application.thread_pool`, `@app.options`): of its first step, then of what
    each method called returns, where the code says."""
    steps = _steps(value)
    if len(steps) < 2 or len(steps) > MAX_STEPS:
        return None
    first, rest = steps[0], steps[1:]
    holder = index.constant(first, scope) if _CONSTANT.match(first) else None
    singleton = holder is not None  # `Rake.application`: a method of the module itself
    if holder is None:
        holder = scope if first == "self" else _made_class(resolver, index, method, scope, first)
    for name in rest:
        if holder is None:
            return None
        holder = index.made_of_result(index.lookup(holder, name, singleton))
        singleton = False
    return holder


def _steps(value: str) -> list[str]:
    """`Rake.application.thread_pool(2).size` -> Rake, application, thread_pool, size; [] where a step is more than a
    name and its arguments (an index, a block, an operator)."""
    if "[" in value or "{" in value:
        return []  # `rows[0].fields`: an element's class, which the index does not know
    steps, depth, current = [], 0, ""
    for char in value.replace("::", "\0"):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "." and depth == 0:
            steps.append(current)
            current = ""
            continue
        if depth == 0 and char != ")":
            current += char
    steps.append(current)
    names = [step.replace("\0", "::").strip() for step in steps]
    return names if all(_STEP.match(n) for n in names) else []


def _called_bare(resolver: CallResolver, caller: str, name: str) -> bool:
    """Whether the method calls `name` as a bare name (indexer/parsing/rubynames.py: no local of it is so named)."""
    row = resolver.conn.execute(
        "SELECT 1 FROM calls WHERE name = ? AND caller = ? AND qualifier IS NULL LIMIT 1", (name, caller)
    ).fetchone()
    return row is not None


def ruby_aliases(resolver: CallResolver, method: SymbolRow) -> set[str]:
    """The other names the method's class gives it (`alias def_option define`), by which calls of it are written."""
    holder = resolver.symbol(method.get("parent"))
    if holder is None:
        return set()
    index = _index_of(resolver)
    return {new for (cls, new), old in index.aliases.items() if cls == holder["qualname"] and old == method["name"]}


def may_make(resolver: CallResolver, qualifier: str | None, cls: str) -> bool:
    """Whether a call of `new` on this qualifier may run the `initialize` of the class (or module) of this qualified
    name: on the constant of the class or of one deriving from it or mixing it in (`Parser.new`, `CSV::Parser.new`,
    `FileTask.new` for Task's), or bare or on `self` in a class method."""
    if qualifier in (None, "self"):
        return True
    index = _index_of(resolver)
    if cls not in index.made_by:
        index.made_by[cls] = {
            q.rpartition(".")[2] for q in index.holders if any(h == cls for h, _ in index.method_holders(q, False))
        }  # a class deriving from it, or mixing it in (`class TM; include TaskManager`)
    return str(qualifier).rpartition("::")[2] in index.made_by[cls]


def ruby_basis(
    resolver: CallResolver, path: str, caller: str | None, qualifier: str | None, symbol: SymbolRow | sqlite3.Row
) -> str | None:
    """The basis of a call in the Ruby file `path` of the method's name (`new`, for an `initialize`): resolved where the
    rules say it runs this method, None where they say another runs (or the call is on a value and Ruby's own classes
    have the name), AS_BEFORE where they do not say."""
    constructs = symbol["name"] == "initialize" and qualifier != "super"  # `super` in an initialize names it
    name = "new" if constructs else str(symbol["name"])
    runs = ruby_targets(resolver, caller, qualifier, name)
    if runs is None:
        on_value = qualifier is not None and qualifier != "self"
        if on_value and name in core_methods():
            return None
        if on_value and _one_of_ours(resolver, name) and is_ruby(str(symbol["path"])):
            return UNIQUE_NAME  # the one method of the name anywhere: what a call on any value of ours likely runs
        return None if name == "new" else AS_BEFORE
    if symbol["id"] not in runs:
        return None
    return "same file" if symbol["path"] == path else "method"


def ruby_callee(resolver: CallResolver, path: str, call: sqlite3.Row) -> tuple[str | None, str] | None:
    """What a call in the Ruby file `path` runs: (None, "external") for a library's method, None where the rules do not
    say (the guess by name decides, unless Ruby's own classes have the name and the call is on a value)."""
    runs = ruby_targets(resolver, call["caller"], call["qualifier"], call["name"])
    if runs is None:
        on_value = call["qualifier"] is not None and call["qualifier"] != "self"
        if on_value and call["name"] in core_methods():
            return None, "unresolved"
        if on_value and _one_of_ours(resolver, call["name"]):
            only = resolver.conn.execute(
                "SELECT id FROM symbols WHERE name = ? AND kind IN ('function', 'method') AND language = 'ruby'",
                (call["name"],),
            ).fetchone()
            return (str(only[0]), UNIQUE_NAME) if only is not None else None
        return None
    if not runs:
        return None, "external"
    target = resolver.symbol(runs[0])
    return runs[0], "same file" if target is not None and target["path"] == path else "method"
