"""Call edges resolved to symbols, each with its basis (impact walks them: store/callreach.py).

A call's `ref` (store/refs.py) says what its callee names in its own file; store/resolver.py follows it
across files to the symbol it names. Here each call gets its basis, a callee its callers (overrides and
implementations included).

Bases, best first:
- `same file`, `method`, `imported name`, `constructor`: resolved from the code itself; so is `through a
  field`: Rust's `a == b` on a type deriving PartialEq runs its fields' types' `eq` (store/rusttraits.py);
- `same package`: a bare name in a Go file calls its package's function, and a Go package is the
  `.go` files of one folder (what `go build` compiles together), so the name may be in another file
  (store/gocalls.py: Go's rules for naming a package's code);
- `override`: the call reaches the method this one overrides (`self.parse()` in a base class), so
  on an instance of this class it runs this one;
- `through an interface`: the call is of an interface's method (Go's `v.Set(s)` on a Value; TypeScript's
  `driver.connect()` on a Driver), and this method's type implements the interface (Go: by its methods;
  TypeScript: `class PostgresDriver implements Driver`), so on a value of this type it runs this one;
- `named as a value`: code hands a function on without calling it (`state: lexTop`, `map(f, xs)`,
  `socket.on('error', onError)`), and what gets it calls it: the function naming it stands in for that caller;
- `unique name`: a Python file does not say what `obj.name()` calls, but one symbol in the repository
  has that name;
- `name only`: a guess by name, listed last and never followed further by impact.
Calls indexed before refs existed (or in languages without them) keep the old rules: `same file`,
`imported name` (the calling file imports the symbol's file) or `name only`, but where the language's own rules
say more from a call's name and what qualifies it: Rust's (store/rustcalls.py), C++'s (store/cppcalls.py: the
types the code declares its values) and C's (`through its prototype`).
"""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from .commands import COMMAND, command_names
from .cppcalls import AS_BEFORE, TAKEN_KEPT, is_cpp
from .cppoverloads import cpp_call_basis
from .cprototypes import C_HEADERS, THROUGH_PROTOTYPE, prototype_includers
from .db import call_lines
from .djangomodels import VALIDATING, run_by_validation
from .gocalls import (
    NAMED_AS_VALUE,
    THROUGH_INTERFACE,
    go_basis,
    go_callee,
    go_reachable,
    go_top_level,
    implemented,
)
from .javacalls import AS_BEFORE as JAVA_AS_BEFORE
from .javacalls import java_basis, java_callee
from .javatypes import is_java
from .kept import CALLERS, kept
from .languages import may_call
from .overrides import HOOK_QUALIFIERS, Overrides, hook_methods, interface_methods, next_after
from .pyguesses import a_request, loaded_by_name, module_function, python_guessable
from .resolver import CallResolver, Resolution, shared_resolver
from .routes import DEPENDS, REQUESTS
from .rubycalls import AS_BEFORE as RUBY_AS_BEFORE
from .rubycalls import may_make, ruby_aliases, ruby_basis, ruby_callees
from .rubyindex import is_ruby
from .rustcalls import called_type, may_name_type
from .rustnames import imported_module, module_basis, owner_type
from .rusttraits import THROUGH_FIELD, rust_call_basis, rust_callee
from .scriptcalls import MAX_GUESSED, guessable, on_a_built_result, on_a_literal
from .symbol import RESOLVER_COLUMNS, TEMPLATE_KIND, SymbolRow
from .templatetags import LOOKS_UP, RENDERS, USES_TAG, patterns_naming, registered_names

RESOLVED = frozenset(
    {
        "same file",
        "method",
        "imported name",
        "constructor",
        "same package",
        THROUGH_FIELD,
        COMMAND,
        REQUESTS,
        RENDERS,
        USES_TAG,
        LOOKS_UP,
    }
)
CONSTRUCTORS = ("__init__", "constructor")  # what calling a class runs, where the language names it
# `getattr(self, f"parse_{kind}")()` may run any method of self's class named so (store/refs.py's `parse_*`)
DISPATCHED = "dispatched by name"
MAX_NAMED = 500  # the symbols of a name a C++ call's callee is chosen among
STAND_INS = frozenset(  # may run it
    {"override", NAMED_AS_VALUE, THROUGH_INTERFACE, DISPATCHED, THROUGH_PROTOTYPE, DEPENDS}
)
BASIS_ORDER = {**dict.fromkeys(RESOLVED, 0), **dict.fromkeys(STAND_INS, 1), "unique name": 1, "name only": 2}
# What impact walks on from; a `name only` guess would flood it.
FOLLOWED = RESOLVED | STAND_INS | {"unique name"}
# The most callers any answer reads (testwalk.CALL_SITES): a longer list is kept cut there, as `callers` cuts it, so
# every answer up to this many is a prefix of the kept one (store/kept.py).
KEPT_LIMIT = 2000
# A kept call, as a list of these; `written` only where the call names it otherwise (`run()` for `run = wrap(work)`'s
# `wrap.whole`, `p()` after `from m import parse as p`), else left out of the call.
_KEPT_FIELDS = ("path", "caller", "line", "lines", "qualifier", "basis", "written")
OWN_QUALIFIERS = frozenset({"self", "cls", "this"})  # a call on these may be of the calling file's own code


# --- callers and callees -----------------------------------------------------------------------------


def callers(
    conn: sqlite3.Connection, symbol: SymbolRow, limit: int = 50, resolver: CallResolver | None = None
) -> list[dict[str, Any]]:
    """The calls that reach this symbol, each with its basis, resolved best first."""
    resolver = resolver or shared_resolver(conn)
    key = (symbol["id"], limit)
    if key not in resolver.callers_of:  # walks up the graph from neighbouring symbols meet the same hubs
        found = kept(conn, CALLERS, symbol["id"]) if limit <= KEPT_LIMIT else None  # what `annals index` found
        resolver.callers_of[key] = (
            [_call(dict(zip(_KEPT_FIELDS, call, strict=True))) for call in found[:limit]]
            if found is not None
            else _callers(conn, symbol, limit, resolver)
        )
    return [dict(call) for call in resolver.callers_of[key]]


def kept_form(calls: list[dict[str, Any]]) -> list[list[Any]]:
    """A symbol's callers as they are kept (store/kept.py): each call a list of its fields."""
    return [[call.get(f) for f in _KEPT_FIELDS] for call in calls]


def _call(kept_call: dict[str, Any]) -> dict[str, Any]:
    if kept_call["written"] is None:
        del kept_call["written"]
    return kept_call


def _callers(conn: sqlite3.Connection, symbol: SymbolRow, limit: int, resolver: CallResolver) -> list[dict[str, Any]]:
    accepted = {symbol["id"]}
    names = {symbol["name"]}
    stand_ins: dict[str, str] = {}  # methods a call of which may run this one, with the call's basis
    dispatches: list[str] = []  # names built at run time this method's may be (`parse_*`)
    overrides: Overrides | None = None  # what this method stands in for, and on which classes' instances
    owner = resolver.symbol(symbol.get("parent"))
    if owner is not None and owner["kind"] == "class":
        if symbol["name"] in CONSTRUCTORS:  # `Parser()` runs Parser.__init__, `new Parser()` its constructor
            accepted.add(owner["id"])
            names.add(owner["name"])
        else:  # `self.parse()` in a base class may run this override; `driver.connect()` on a Driver this class
            # implements (TypeScript), this method
            stand_ins = dict.fromkeys(interface_methods(resolver, owner, symbol["name"]), THROUGH_INTERFACE)
            overrides = Overrides(resolver, owner, symbol)
            stand_ins.update(dict.fromkeys(overrides.holders, "override"))
            # `getattr(self, f"parse_{kind}")()`, by its name or one the class body binds it to (`visit_If = _visit`)
            dispatches = [
                d for n in (symbol["name"], *resolver.bound_names(symbol["id"])) for d in resolver.dispatched_names(n)
            ]
            if run_by_validation(resolver, owner, symbol["name"]):
                dispatches += sorted(VALIDATING)  # `form.is_valid()` runs a Django form's clean methods
            names.update(dispatches)
            if symbol["name"] == "__call__":  # `rrulestr(s)`, where a module holds `rrulestr = _rrulestr()`
                for cls in (owner, *resolver.descendants(owner)):  # or an instance of a subclass
                    names.update(resolver.instances_named(cls))
    elif owner is not None and owner["path"].endswith(".go") and owner["kind"] in ("struct", "type"):
        stand_ins = dict.fromkeys(implemented(resolver, owner, symbol["name"]), THROUGH_INTERFACE)
    if symbol["name"] == "initialize" and is_ruby(symbol["path"]):  # `Parser.new(...)` runs Parser#initialize
        names.add("new")
    aliases = ruby_aliases(resolver, symbol) if is_ruby(symbol["path"]) else set()  # `alias def_option define`
    names.update(aliases)
    names.update(command_names(symbol["name"], symbol.get("decorators") or []))  # `invoke(cli, ["diff-symbols"])`
    names.update(resolver.routes.request_names(symbol["id"]))  # `client.get("/items/5")`
    if symbol["kind"] == TEMPLATE_KIND:  # `render_to_string("emails/%s-subject.html" % name)`
        names.update(patterns_naming(resolver.conn, symbol["name"]))
    names.update(registered_names(resolver.conn, symbol["id"]))  # `{{ x|hc_duration }}` of `@register.filter(name=...)`
    constructed = owner if symbol["name"] in CONSTRUCTORS and owner is not None else symbol
    if constructed["kind"] == "class":  # `self.maker()`, `maker: Type[Widget]`: a call of the class by its field
        names.update(resolver.fields_holding(constructed["name"]))
    # a call of a definition exported under another name is indexed under that name: `default` (store/refs.py's
    # called_name) for `debug()` after `const debug = require('./debug')`, `Readable` for `new Readable()`; or
    # imported so: `anon_map()`, where a module does `from ._py_util import cache_anon_map as anon_map`; or
    # re-exported so: `serializeError()`, where a module does `export { serializeValue as serializeError }`
    called = [s for s in (symbol, owner) if s is not None and s["id"] in accepted]
    named = {s["qualname"] for s in called}
    names.update(name for name, exported in resolver.exported_as(symbol["path"]).items() if exported in named)
    for s in called:
        names.update(resolver.imported_as(s["id"], s["name"]))
        names.update(resolver.bound_names(s["id"]))  # `run()`, where a module binds `run = wrap(work)`
        names.update(resolver.reexported_as(s["path"], s["name"]))
    wanted = None if dispatches else accepted | stand_ins.keys()  # a name built at run time may be any call's
    sites = {(r["path"], r["ordinal"]): r for name in sorted(names) for r in _sites(resolver, name, wanted, symbol)}
    rows = [r for r in sites.values() if r["caller"] != symbol["id"]]  # not its own recursion
    if "new" in names and owner is not None and is_ruby(symbol["path"]):  # of every `X.new`, those X may name it
        rows = [r for r in rows if r["name"] != "new" or may_make(resolver, r["qualifier"], str(owner["qualname"]))]
    importers: set[str] | None = None
    unique: bool | None = None
    callable_from: dict[str, bool] = {}  # by the calling file: whether its language may call the symbol's
    out = []
    for r in rows:
        if on_a_literal(r["path"], r["qualifier"]):
            continue
        reached = resolver.resolve(r["path"], r["ref"])
        found = reached[0]
        for alternative in reached:  # a loop, not next(): hundreds of thousands of rows per walk
            if alternative.target in accepted:
                found = alternative
                break
        stand_in = stand_ins.get(found.target or "")
        if _calls_up(r["qualifier"]):  # whatever it resolved to: on some instances the next method is this one
            same_name = r["name"] == symbol["name"] and overrides is not None
            calling = resolver.calling_class(r["path"], r["ref"]) if same_name else None
            upward = calling is not None and owner is not None and next_after(resolver, calling, owner, symbol)
            stand_in = "override" if upward else None
        elif stand_in == "override" and overrides is not None:
            if not overrides.may_run_on(found.target or "", resolver.receivers(r["path"], r["ref"])):
                stand_in = None  # `self.m()` of an Option is not Argument.m, whatever base they share
        elif found.basis == "unknown" and r["qualifier"] in HOOK_QUALIFIERS and r["name"] == symbol["name"]:
            hooks = hook_methods(resolver, r["path"], r)  # `self.step()` in a Job that leaves step to its subclasses
            if hooks and symbol["id"] not in hooks:
                continue  # it runs one of theirs, never a same-named function or a method of a class no Job has
            stand_in = "override" if hooks else None
        if stand_in is None and dispatches:
            stand_in = DISPATCHED if symbol["id"] in resolver.dispatched(r["path"], r["ref"]) else None
        if stand_in is not None and not any(f.target in accepted for f in reached):
            found = Resolution(symbol["id"], stand_in)
        if found.target is None and found.basis != "external" and a_request(resolver, r):
            continue  # `self.client.post("/x")`: no guess at a `post` of ours, the route it requests is what it calls
        if found.basis in ("legacy", "unknown"):
            if r["path"] not in callable_from:
                callable_from[r["path"]] = may_call(conn, r["path"], symbol["path"])
            if not callable_from[r["path"]]:
                continue
        if found.basis == "legacy":
            constructs = r["name"] == "new" and is_ruby(r["path"])  # `Parser.new(...)` of Parser#initialize
            if r["name"] != symbol["name"] and r["name"] not in aliases and not constructs:
                continue
            if importers is None:
                importers = {
                    i[0] for i in conn.execute("SELECT DISTINCT path FROM imports WHERE target = ?", (symbol["path"],))
                }
            legacy = _taken_as_value(
                _legacy_basis(
                    resolver, r["path"], r["caller"], r["qualifier"], symbol, r["path"] in importers, r["arguments"]
                ),
                r["arguments"],
            )
            if legacy == "name only" and r["path"] in prototype_includers(resolver, symbol):
                legacy = THROUGH_PROTOTYPE  # `uv_run(loop, ...)` in a file that includes uv.h, which declares it
            if legacy is None or not guessable(conn, r["path"], r["qualifier"], symbol, legacy):
                continue
            basis = legacy
        elif found.target is not None:
            if found.target not in accepted:
                continue
            basis = found.basis
        elif found.basis == "external" and module_function(symbol) and loaded_by_name(resolver, r):
            basis = "name only"  # `importlib.import_module(name).register(...)`: a module of ours, may be its
        elif found.basis == "external" or r["name"] != symbol["name"]:
            continue
        else:
            if (
                on_a_built_result(resolver, r["path"], r["qualifier"], symbol)
                or not guessable(conn, r["path"], r["qualifier"], symbol, "name only")
                or not python_guessable(resolver, r, symbol)
            ):
                continue
            if unique is None:
                unique = symbol["kind"] in ("function", "method") and resolver.functions_named(symbol["name"]) == 1
            # Python's: a method name of ours in JavaScript is as often a builtin's (`re.test(s)`, RegExp's), and
            # following such guesses listed tests that never run the code (bench/facts_tests_js.py: first 12's
            # precision 0.844 -> 0.838)
            basis = "unique name" if unique and r["qualifier"] and r["path"].endswith(".py") else "name only"
        call = {
            "path": r["path"],
            "caller": r["caller"],
            "line": r["line"],
            "lines": call_lines(r),
            "qualifier": r["qualifier"],
            "basis": basis,
        }
        if r["name"] not in (symbol["name"], constructed["name"]) and basis != DISPATCHED:
            call["written"] = r["name"]  # what the test's line says: `build_pack(...)`, bound to `_to_the_end.whole`
        out.append(call)
    out.sort(key=lambda c: (BASIS_ORDER.get(c["basis"], 3), c["path"], -1 if c["line"] is None else c["line"]))
    return out[:limit]


def _sites(resolver: CallResolver, name: str, wanted: set[str] | None, symbol: SymbolRow) -> list[sqlite3.Row]:
    """The call sites of a name that may call one of the `wanted` symbols (None: every site), in their order: every
    site but those resolved only to other symbols or to outside code (a call on `super()` stays, whatever it
    resolved to), which `_callers` skips anyway. The callers of each `execute` of sqlalchemy scanned the same
    thousands of sites one by one. Of a Rust symbol's, also none whose qualifier names a type the symbol's cannot
    be (rustcalls.called_type): tokio's packs read each `new` of thousands for each `new` they walked from."""
    rows = resolver.calls_named(name)
    if wanted is None:
        found: set[int] | range = range(len(rows))
    else:
        if name not in resolver.sites_by_target:
            by_target: dict[str, list[int]] = {}
            open_ended: list[int] = []  # unresolved, guessed by name, or on `super()`: for the rules of `_callers`
            for i, r in enumerate(rows):
                reached = resolver.resolve(r["path"], r["ref"])
                unsure = any(a.target is None and a.basis != "external" for a in reached)
                if _calls_up(r["qualifier"]) or unsure or loaded_by_name(resolver, r):
                    open_ended.append(i)
                else:
                    for target in {a.target for a in reached if a.target is not None}:
                        by_target.setdefault(target, []).append(i)
            resolver.sites_by_target[name] = (by_target, open_ended)
        by_target, open_ended = resolver.sites_by_target[name]
        found = set(open_ended).union(*(by_target.get(t, ()) for t in wanted))
    if symbol["path"].endswith(".rs"):
        found = set(found) - _of_other_types(resolver, name, rows, owner_type(symbol))
    return [rows[i] for i in sorted(found)]


def _of_other_types(resolver: CallResolver, name: str, rows: list[sqlite3.Row], owner: str | None) -> set[int]:
    """The Rust sites of a name (by their index in `rows`) that cannot call a method of `owner` (a type, or None
    for a function): those whose qualifier names another type (`Vec::new()`, `conn.poll()` with `conn: Conn`,
    for Decoder's), and, of a method, the bare calls (`check()` calls a function, never a method)."""
    if name not in resolver.rust.sites_by_type:
        by_type: dict[str, list[int]] = {}
        bare: list[int] = []
        for i, r in enumerate(rows):
            if r["ref"] is not None or not r["path"].endswith(".rs"):
                continue
            if r["qualifier"] is None:
                bare.append(i)
            elif (called := called_type(resolver, r["path"], r["caller"], r["qualifier"])) is not None:
                by_type.setdefault(called, []).append(i)
        resolver.rust.sites_by_type[name] = (by_type, bare)
    by_type, bare = resolver.rust.sites_by_type[name]
    other = {i for t, at in by_type.items() if owner is None or not may_name_type(resolver, t, owner) for i in at}
    return other if owner is None else other.union(bare)


_SUPER = re.compile(r"super(\([^()]*\))?")  # Python's `super()`, `super(C, self)`; JavaScript's `super`


def _calls_up(qualifier: str | None) -> bool:
    """Whether a call is written on `super()` (`super().m()`, `super.m()`): it runs the method the calling class's
    bases name, never an override of it in a class beside it (as a call on `self` may), but where a class deriving
    from both puts that class next (overrides.next_after)."""
    return qualifier is not None and _SUPER.fullmatch(qualifier) is not None


def _legacy_basis(
    resolver: CallResolver,
    path: str,
    caller: str | None,
    qualifier: str | None,
    symbol: SymbolRow,
    imports_it: bool,
    arguments: str | None = None,
) -> str | None:
    """The basis of a call of the symbol's name in `path` (made in `caller`, passing `arguments`, where C++ keeps
    them) when the file gives no ref (languages other than Python): None when it cannot be a call of this symbol."""
    bare = not qualifier
    if bare and path != symbol["path"] and symbol["name"] in resolver.symbols_of(path):
        return None  # the calling file's own definition of that name
    if go_top_level(symbol):
        return go_basis(resolver, path, qualifier, symbol)
    if symbol["path"].endswith(".go") and (bare or not go_reachable(path, symbol)):
        return None  # Go calls a method on a value only (a bare `Decode()` is the package's function), and only where
        # its code can reach it
    if path.endswith(".rs") and symbol["path"].endswith(".rs"):
        return rust_call_basis(resolver, path, caller, qualifier, symbol, imports_it, arguments)
    if is_java(path) and is_java(symbol["path"]):
        decided = java_basis(resolver, path, caller, qualifier, symbol, arguments)
        if decided != JAVA_AS_BEFORE:
            return decided
    if is_ruby(path) and is_ruby(symbol["path"]):
        decided = ruby_basis(resolver, path, caller, qualifier, symbol)
        if decided != RUBY_AS_BEFORE:
            return decided
    module = imported_module(resolver, path, qualifier)
    if module is not None:
        return module_basis(resolver, module, symbol)
    if is_cpp(resolver, path) and is_cpp(resolver, symbol["path"]):
        decided = cpp_call_basis(resolver, path, caller, qualifier, symbol, arguments)
        if decided != AS_BEFORE:
            return decided
    member = symbol["parent"] is not None or symbol["kind"] == "method"  # a Go method's parent is its file
    if path == symbol["path"] and (bare or qualifier in OWN_QUALIFIERS or member):
        return "same file"
    return "imported name" if imports_it else "name only"


def _taken_as_value(basis: str | None, arguments: str | None) -> str | None:
    """C++'s `&DBImpl::BGWork` takes the function, and whoever gets it calls it: named as a value, where resolved."""
    return NAMED_AS_VALUE if arguments == TAKEN_KEPT and basis not in (None, "name only") else basis


def callees(
    conn: sqlite3.Connection, symbol: SymbolRow, limit: int = 50, resolver: CallResolver | None = None
) -> list[dict[str, Any]]:
    """What this symbol calls, each resolved to a symbol where the code says which, with the basis."""
    resolver = resolver or shared_resolver(conn)
    out = []
    for call in conn.execute(
        "SELECT caller, name, qualifier, line, lines, ref, arguments FROM calls WHERE path = ? AND caller = ?"
        " ORDER BY line LIMIT ?",
        (symbol["path"], symbol["id"], limit),
    ):
        for target, basis in call_targets(conn, resolver, symbol["path"], call):
            out.append(
                {
                    "name": call["name"],
                    "qualifier": call["qualifier"],
                    "line": call["line"],
                    "lines": call_lines(call),
                    "target": target,
                    "basis": basis,
                }
            )
    return out


def call_targets(
    conn: sqlite3.Connection, resolver: CallResolver, path: str, call: sqlite3.Row
) -> list[tuple[str | None, str]]:
    """What one call of a file (its `name`, `qualifier` and `ref`) calls: each alternative its ref resolves
    to, each method a name built at run time may name (`getattr(self, f"parse_{kind}")()`), or where the file
    does not say, the guess by name, with its basis."""
    if on_a_literal(path, call["qualifier"]):
        return [(None, "external")]
    out: list[tuple[str | None, str]] = []
    dispatched = [(method, DISPATCHED) for method in resolver.dispatched(path, call["ref"])]
    for found in resolver.resolve(path, call["ref"]):
        target, basis = found.target, found.basis
        if basis in ("legacy", "unknown") and dispatched:
            continue  # the dispatch says what it may run, where a guess by name would say nothing
        hooks = hook_methods(resolver, path, call) if basis == "unknown" else []
        if hooks:  # `self.step()` in a Job: each subclass's step may run, never an unrelated class's
            out.extend((hook, "override") for hook in hooks)
            continue
        if basis in ("legacy", "unknown"):
            if path.endswith(".go"):
                target, basis = go_callee(conn, resolver, path, call["name"], call["qualifier"])
            elif path.endswith(".rs"):
                target, basis = rust_callee(
                    resolver, path, call["caller"], call["name"], call["qualifier"], call["arguments"]
                )
            elif is_cpp(resolver, path):
                target, basis = _cpp_callee(conn, resolver, path, call)
            elif is_java(path) and (typed := java_callee(resolver, path, call)) is not None:
                target, basis = typed
            elif is_ruby(path) and (typed_all := ruby_callees(resolver, path, call)) is not None:
                out.extend(typed_all)  # a value of either of two classes runs the method of each
                continue
            else:  # a Java value of a type the index does not know: a guess, as another language's
                legacy = basis == "legacy" and not ((is_java(path) or is_ruby(path)) and call["qualifier"])
                target, basis = _guess_by_name(conn, path, call["name"], call["qualifier"], legacy=legacy)
                guessed = resolver.symbol(target) if target is not None else None
                if guessed is not None and on_a_built_result(resolver, path, call["qualifier"], guessed):
                    target, basis = None, "unresolved"  # `cols.map(f).join()`: Array's join, whatever is ours
        out.append((target, basis))
    return out + dispatched


def _cpp_callee(
    conn: sqlite3.Connection, resolver: CallResolver, path: str, call: sqlite3.Row
) -> tuple[str | None, str]:
    """What a C++ call calls: of the symbols of its name, the one on the best basis by C++'s rules (cppcalls.py),
    a free function through the header declaring it where the file includes that header."""
    imported = {imp["target"] for imp in resolver.imports_of(path)}
    best: tuple[tuple[int, bool], str, str] | None = None
    rows = conn.execute(f"SELECT {RESOLVER_COLUMNS} FROM symbols WHERE name = ? LIMIT ?", (call["name"], MAX_NAMED))
    for row in rows:
        basis = _taken_as_value(
            _legacy_basis(
                resolver, path, call["caller"], call["qualifier"], row, row["path"] in imported, call["arguments"]
            ),
            call["arguments"],
        )
        if basis == "name only" and path in prototype_includers(resolver, row):
            basis = THROUGH_PROTOTYPE
        # the definition the program runs before the header's declaration of it (a prototype, an out-of-line method)
        rank = (0 if basis == THROUGH_PROTOTYPE else BASIS_ORDER.get(basis or "", 3), row["path"].endswith(C_HEADERS))
        if basis is not None and (best is None or rank < best[0]):
            best = (rank, row["id"], basis)
    return (best[1], best[2]) if best is not None else (None, "unresolved")


def _guess_by_name(
    conn: sqlite3.Connection, path: str, name: str, qualifier: str | None, *, legacy: bool
) -> tuple[str | None, str]:
    """The old rule, for calls the file does not explain: a symbol of that name, nearest first. A call on
    something (`calc.Add()`, `utils.forEach()`) is not the file's own function of that name.
    Tried and not kept (2026-12-03): no guess from code at a test file's function (tests import the code, not
    the other way). The TypeScript checker's truth gained (bench/facts_calls_ts.py +guesses precision ky .869
    -> .888, undici .495 -> .497), but what the code runs is what a test hands it too: `response.clone()` of
    ky's createResponseLike, click's `callback()`, and the profiled truth lost right answers (facts_calls_py
    +guesses recall click .985 -> .981, the hold-out python-dateutil .990 -> .987; with methods too, MarkupSafe
    .962 -> .731, its `escape` running a test class's `__html__`)."""
    rows = conn.execute(
        """SELECT s.id, s.path, s.language, s.parent, s.qualname, s.kind,
                  CASE WHEN s.path = :path AND (:bare OR s.parent IS NOT NULL) THEN 'same file'
                          WHEN s.path != :path AND EXISTS (
                              SELECT 1 FROM resolved_imports r WHERE r.path = :path AND r.target = s.path)
                          THEN 'imported name' ELSE 'name only' END AS basis
           FROM symbols s WHERE s.name = :name
           ORDER BY basis = 'name only', basis = 'imported name', s.id LIMIT :limit""",
        {"path": path, "name": name, "bare": not qualifier or qualifier in OWN_QUALIFIERS, "limit": MAX_GUESSED},
    )
    callable_rows = (row for row in rows if may_call(conn, path, row["path"]))
    target = next((row for row in callable_rows if guessable(conn, path, qualifier, row, row["basis"])), None)
    if target is None:
        return None, "unresolved"
    return target["id"], target["basis"] if legacy else "name only"
