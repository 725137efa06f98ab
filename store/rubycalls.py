"""Ruby's rules for what a call runs, which the call graph (store/callgraph.py) follows for Ruby files; the project's
classes, modules, methods and values as Ruby's lookups see them are store/rubyindex.py's.

Ruby says little of a value's class, but much of a call's own syntax:
- A call with no receiver, or on `self`, runs a method of the calling method's class (or module), up its
  superclasses and the modules they mix in: an instance method from an instance method, a class method from one.
  `super` runs the next method of its name up that chain.
- A call on a constant (`CSV.new(data)`, `Rake::Task.clear`) names the class: `new` runs its `initialize`, anything
  else one of its class methods; a constant the project does not define is a library's (`File.join`), whose methods
  are never ours.
- A call on a value the code says the class of runs that class's method: a variable made by `Const.new`, bound to
  what a method returns, a block's parameter (what the method it is passed to yields), a chain of calls.
- A call on any other value (`@table.dig(...)`, `row.to_a`) runs a method of a class the index does not know: none of
  ours where Ruby's own classes have a method of that name (`each`, `join`, `empty?`), which such a value most often
  is; the one method of ours of a name no other method has, and Rails' classes do not, by that unique name; else a
  guess by name.
"""

from __future__ import annotations

import functools
import json
import re
import sqlite3
from importlib.resources import files
from typing import TYPE_CHECKING

from .rubyindex import CONSTANT, HOLDERS, LIBRARY, RESULT_OF, Classes, RubyIndex, index_of, is_ruby, of_the_class, union

if TYPE_CHECKING:
    from .resolver import CallResolver
    from .symbol import SymbolRow

AS_BEFORE = "as before"  # the receiver's class is not known: the rules by name decide
UNIQUE_NAME = "unique name"  # as callgraph.py's (Python's): one symbol of the name, called on a value
NAME_ONLY = "name only"  # as callgraph.py's: a guess by the name alone
_MADE = re.compile(r"^((?:::)?[A-Z]\w*(?:::[A-Z]\w*)*)\.new(?:\(.*\))?$", re.S)  # `CSV.new(data)`
_IDENTIFIER = re.compile(r"^[a-z_]\w*$")
_STEP = re.compile(r"^(?:@?[A-Za-z_]\w*[?!]?|(?:::)?[A-Z]\w*(?:::[A-Z]\w*)*)$")  # a name, a variable or a constant
_OPERATOR = re.compile(r"^[^\w]+$")  # `<<`, `==`, `[]=`
MAX_STEPS = 5


@functools.cache
def _method_names() -> dict[str, frozenset[str]]:
    """data/ruby_core_methods.json (by bench/ruby_core_methods.py): the names of the methods of Ruby's own classes and
    modules (`methods`), and the more Rails' models, relations and controllers have (`frameworks`)."""
    found = json.loads(files("codeannals.data").joinpath("ruby_core_methods.json").read_text("utf-8"))
    return {kind: frozenset(found.get(kind, [])) for kind in ("methods", "frameworks")}


def core_methods() -> frozenset[str]:
    return _method_names()["methods"]


def of_rubys_own(name: str) -> bool:
    """Whether Ruby's own classes have a method of the name: every operator (`==`, `<<`, `[]`) is one of theirs."""
    return name in core_methods() or _OPERATOR.match(name) is not None


def framework_methods() -> frozenset[str]:
    return _method_names()["frameworks"]


def _one_of_ours(resolver: CallResolver, name: str) -> bool:
    """Whether a call of `name` on a value the index cannot type is the one method of ours of that name: none other
    has it, and Rails' classes do not either (`user.save` in a Rails app is ActiveRecord's). Never a writer
    (`x.value = v`): `attr_accessor` makes most of them, and those the index holds as no method."""
    return resolver.functions_named(name) == 1 and name not in framework_methods() and not name.endswith("=")


def ruby_targets(resolver: CallResolver, caller: str | None, qualifier: str | None, name: str) -> list[str] | None:
    """The ids of the methods a call runs by the rules above: [] for a library's method, None where the syntax does not
    say (a call on a value, or a bare name none of the calling class's methods has: a mixin's, Kernel's)."""
    index = index_of(resolver)
    key = (caller, qualifier, name)
    if key not in index.targets:
        index.targets[key] = _read_targets(resolver, index, caller, qualifier, name)
    return index.targets[key]


def _read_targets(
    resolver: CallResolver, index: RubyIndex, caller: str | None, qualifier: str | None, name: str
) -> list[str] | None:
    method = resolver.symbol(caller)
    if caller is None:  # the file's own code, outside any class (a script's, `Rake.application.run`)
        return _top_level_targets(index, qualifier, name)
    if method is not None and method["kind"] not in HOLDERS and method["kind"] != "method":
        # a constant of a class's body (`EMPTY = EmptyLinkedList.new`): the body's call, with its scope
        method = resolver.symbol(method["parent"]) if method["parent"] else None
        if method is None:  # a constant of the top level (`CLOBBER = ::Rake::FileList.new`)
            return _top_level_targets(index, qualifier, name)
    holder = resolver.symbol(method["parent"]) if method is not None and method["kind"] == "method" else method
    if holder is None or holder["kind"] not in HOLDERS:
        return None
    scope = str(holder["qualname"])
    in_singleton = method is not None and of_the_class(method["signature"], method["decorators"])
    if qualifier == "super":  # the method of the name next up the class's superclasses and mixed-in modules
        holders = index.method_holders(scope, in_singleton)[1:]
        return next((found for cls, own in holders if (found := index.methods.get((cls, name, own)))), [])
    if qualifier == "self.class" and method is not holder and not in_singleton:  # in an instance method
        return _on_class(index, scope, name)  # `self.class.new(...)`, `self.class.parse(...)`
    if qualifier is None or qualifier == "self":
        # `self.x` in a class's own body (outside any method) is a call on the class
        singleton = in_singleton or method is holder  # in a class's own body, `self` is the class
        if name == "new" and singleton:  # `new(str, **options)` in a `def self.parse`
            return index.lookup(scope, "initialize", False)
        # an operator the class does not define is Object's (`self == other`)
        return index.lookup(scope, name, singleton) or ([] if _OPERATOR.match(name) else None)
    if CONSTANT.match(qualifier.strip()) is None:  # a value: the method of its class, or of each class it may be
        return _run_on(index, _made_classes(resolver, index, method, scope, qualifier.strip()), name)
    return _on_constant(index, qualifier, scope, name)


def _run_on(index: RubyIndex, classes: Classes, name: str) -> list[str] | None:
    """The methods of the name a call on an instance of any of these classes runs; None where none says."""
    return list(dict.fromkeys(found for cls in classes for found in index.lookup(cls, name, False))) or None


def _top_level_targets(index: RubyIndex, qualifier: str | None, name: str) -> list[str] | None:
    """A call outside any class, on a constant (`::Rake::FileList.new`, `Rake.application`): as in a class, from the
    top; a bare name's is Kernel's or a script's, which the rules do not say."""
    if qualifier is None or CONSTANT.match(qualifier.strip()) is None:
        return None
    return _on_constant(index, qualifier, "", name)


def _on_constant(index: RubyIndex, qualifier: str, scope: str, name: str) -> list[str] | None:
    """A call on a constant written in `scope`: `Const.new` runs its class's initialize, `Const.m` a class method;
    [] for a library's class (`File.join`, `Regexp.new`)."""
    named = index.constant(qualifier, scope)
    if named is None:  # a constant of ours holding an instance (`DefaultList.short`), or a library's class
        held = index.held(qualifier, scope)
        return [] if held is None or held == (LIBRARY,) else _run_on(index, held, name)
    return _on_class(index, named, name)


def _on_class(index: RubyIndex, cls: str, name: str) -> list[str] | None:
    """A call on the class itself: `new` runs its initialize, any other name a class method."""
    if name == "new":
        return index.lookup(cls, "initialize", False)
    return index.lookup(cls, name, True) or None  # else a module function, an `extend self`: as before


def _made_classes(
    resolver: CallResolver, index: RubyIndex, method: sqlite3.Row | None, scope: str, value: str
) -> Classes:
    """The project's classes a value may be an instance of, where the code says: `CSV.new(data)`, a variable made so,
    or what a method of the class returns (`parser.parse`, where no local of the method is named `parser`)."""
    made = _MADE.match(value)
    if made is not None:
        named = index.constant(made.group(1), scope)
        return (named,) if named is not None else ()
    if CONSTANT.match(value):  # `DefaultList`, a constant of ours holding an instance
        return index.held(value, scope) or ()
    if method is None:
        return ()
    found = index.variable_classes(str(method["id"]), scope, value)
    if not found and _IDENTIFIER.match(value) and _called_bare(resolver, str(method["id"]), value):
        found = index.made_of(RESULT_OF + value, scope)
    if not found and "." in value:
        found = _chain_classes(resolver, index, method, scope, value)
    return found


def _chain_classes(resolver: CallResolver, index: RubyIndex, method: sqlite3.Row, scope: str, value: str) -> Classes:
    """The classes of a chain of calls (`Rake.application.thread_pool`, `@app.options`): of its first step, then of what
    each method called returns, where the code says for every class the value may be of."""
    steps = _steps(value)
    if len(steps) < 2 or len(steps) > MAX_STEPS:
        return ()
    first, rest = steps[0], steps[1:]
    named = index.constant(first, scope) if CONSTANT.match(first) else None
    singleton = named is not None  # `Rake.application`: a method of the module itself
    if named is not None:
        holders: Classes = (named,)
    else:
        holders = (scope,) if first == "self" else _made_classes(resolver, index, method, scope, first)
    for name in rest:
        each = [index.returns(holder, name, singleton) for holder in holders]
        if not each or not all(each):
            return ()
        holders = union(each)
        singleton = False
    return holders


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
    index = index_of(resolver)
    return {new for (cls, new), old in index.aliases.items() if cls == holder["qualname"] and old == method["name"]}


def may_make(resolver: CallResolver, qualifier: str | None, cls: str) -> bool:
    """Whether a call of `new` on this qualifier may run the `initialize` of the class (or module) of this qualified
    name: on the constant of the class or of one deriving from it or mixing it in (`Parser.new`, `CSV::Parser.new`,
    `FileTask.new` for Task's), or bare or on `self` in a class method."""
    if qualifier in (None, "self"):
        return True
    index = index_of(resolver)
    if cls not in index.made_by:
        makers = {q for q in index.holders if any(h == cls for h, _ in index.method_holders(q, False))}
        # a class deriving from it, or mixing it in (`class TM; include TaskManager`), and a constant naming one of
        # them (`FileList = Rake::FileList`)
        makers |= {
            alias for alias, (written, scope) in index.renamed.items() if index.constant(written, scope) in makers
        }
        index.made_by[cls] = {q.rpartition(".")[2] for q in makers}
    return str(qualifier).rpartition("::")[2] in index.made_by[cls]


def ruby_basis(
    resolver: CallResolver, path: str, caller: str | None, qualifier: str | None, symbol: SymbolRow | sqlite3.Row
) -> str | None:
    """The basis of a call in the Ruby file `path` of the method's name (`new`, for an `initialize`): resolved where the
    rules say it runs this method, None where they say another runs (or the call is on a value and Ruby's own classes
    have the name), a guess by name on a value of a class they do not know, AS_BEFORE where else they do not say."""
    constructs = symbol["name"] == "initialize" and qualifier != "super"  # `super` in an initialize names it
    name = "new" if constructs else str(symbol["name"])
    runs = ruby_targets(resolver, caller, qualifier, name)
    if runs is None:
        on_value = qualifier is not None and qualifier != "self"
        if on_value and of_rubys_own(name):
            return None
        if on_value and _one_of_ours(resolver, name) and is_ruby(str(symbol["path"])):
            return UNIQUE_NAME  # the one method of the name anywhere: what a call on any value of ours likely runs
        if on_value and name != "new":
            return NAME_ONLY  # a value of a class the index does not know: a guess, wherever the method is
        return None if name == "new" else AS_BEFORE
    if symbol["id"] not in runs:
        return None
    return "same file" if symbol["path"] == path else "method"


def ruby_callees(resolver: CallResolver, path: str, call: sqlite3.Row) -> list[tuple[str | None, str]] | None:
    """What a call in the Ruby file `path` runs: each method it may (`@scanner.keep_back` on a Scanner or an
    InputsScanner, a method defined twice under two conditions), [(None, "external")] for a library's method, None
    where the rules do not say (the guess by name decides, unless Ruby's own classes have the name and the call is on
    a value)."""
    runs = ruby_targets(resolver, call["caller"], call["qualifier"], call["name"])
    if runs is None:
        on_value = call["qualifier"] is not None and call["qualifier"] != "self"
        if on_value and of_rubys_own(call["name"]):
            return [(None, "unresolved")]
        if on_value and _one_of_ours(resolver, call["name"]):
            only = resolver.conn.execute(
                "SELECT id FROM symbols WHERE name = ? AND kind IN ('function', 'method') AND language = 'ruby'",
                (call["name"],),
            ).fetchone()
            return [(str(only[0]), UNIQUE_NAME)] if only is not None else None
        return None
    if not runs:
        return [(None, "external")]
    found = [(run, resolver.symbol(run)) for run in runs]
    return [(run, "same file" if s is not None and s["path"] == path else "method") for run, s in found]
