"""A call's ref (store/refs.py) followed across files to the symbol it names: through the import it names (to
the file that import resolved to, through re-exports and `export *`), into classes and their bases (`self.x()`,
`super().x()`, an instance's methods), through what a function returns and a field's declared type (read by
store/typedvalues.py), and a called class is its constructor; a method of a value outside code's (a builtin's, the
standard library's, pytest's) is theirs (store/outsidevalues.py). An import of another package (no indexed target) is
never an edge to a same-named local symbol. store/callgraph.py gives each answer its basis; the rules for Go are
store/gocalls.py's."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, replace
from typing import Any

from .commands import COMMAND, CommandLines
from .cppcalls import CppCaches
from .db import held_while_unchanged, stored_list
from .djangoauth import AUTHENTICATES, authenticating
from .djangomodels import VALIDATING, cleaning, past_the_query, queried_model, validates
from .gocalls import NAMED_AS_VALUE, go_resolve
from .hierarchy import MAX_HOPS, TYPES
from .javatypes import JavaCaches
from .refs import (
    AUTHENTICATE,
    BACKEND,
    BOUND,
    DEFAULT,
    DOTTED,
    ELEMENT_RESULTS,
    GIVEN,
    LOOKUP,
    MAPPING_VIEWS,
    PROTOCOL_METHODS,
    ROUTE,
    SET,
    TAG,
    TEMPLATE,
    Ref,
    bound_function,
    command_word,
    declared_parameter,
    lookup_used,
    parse_refs,
    passed,
    segment_name,
    tag_used,
    template_named,
    typed_value,
)
from .routes import DEPENDS, REQUESTS, RouteTable, declares_dependency
from .rustnames import RustCaches
from .symbol import is_property
from .templatetags import EVERY_TEMPLATE, LOOKS_UP, RENDERS, USES_TAG, looked_up, rendered, tag_functions
from .typenames import holds_class, is_mapping, python_parameter_type


@dataclass(frozen=True)
class Resolution:
    target: str | None  # symbol id
    basis: str  # a basis above, or "external", "unknown" (the file does not say), "legacy" (no ref, or a
    # Go ref the index cannot follow: the rules by name apply)


class CallResolver(CommandLines):
    """Resolves calls against the projections, caching what one answer reads more than once."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        super().__init__(conn)
        self._resolved: dict[tuple[str, str], list[Resolution]] = {}
        self._dispatched: dict[tuple[str, str], list[str]] = {}  # dispatched(), by call site
        self.callers_of: dict[tuple[str, int], list[dict[str, Any]]] = {}  # callers(), by symbol id and limit
        # callgraph._sites: a name's call sites by the symbols they resolve to, and those the rules by name may take
        self.sites_by_target: dict[str, tuple[dict[str, list[int]], list[int]]] = {}
        self.go_packages: dict[str, dict[str, sqlite3.Row]] = {}  # a Go folder's symbols (store/gocalls.py)
        self.rust = RustCaches()  # what Rust's rules read again and again (store/rustnames.py)
        self.java = JavaCaches()  # and Java's (store/javacalls.py)
        self.cpp = CppCaches()  # and C++'s (store/cppcalls.py)
        self.prototype_includers: dict[str, set[str]] = {}  # store/cprototypes.py, by a definition's id
        self.go_interfaces: dict[str, dict[str, str] | None] | None = None  # every Go interface's methods
        self.go_method_sets: dict[str, frozenset[str]] = {}  # a Go type's methods' names, by its id
        self._module_instances: dict[str, set[str]] | None = None  # instances_named, by class id
        self._module_functions: dict[str, set[str]] | None = None  # bound_names, by function id
        self._renaming: dict[str, list[tuple[str, str]]] | None = None  # imported_as: (target, bound) by name
        self._walked: dict[tuple[str, tuple[str, ...], int], sqlite3.Row | None] = {}  # _walk, by its arguments
        self.routes = RouteTable(conn, self.served_views)  # the web routes requests reach (store/routes.py)

    # --- resolving ---------------------------------------------------------------------------------

    def resolve(self, path: str, ref_text: str | None) -> list[Resolution]:
        """What a call reaches: one Resolution per alternative of its ref, resolved ones first."""
        if ref_text is None:
            return [Resolution(None, "legacy")]
        key = (path, ref_text)
        if key in self._resolved:
            return self._resolved[key]
        if ref_text.startswith(f"{ROUTE}:"):  # a request: every route serving it (`GET /items/{}`)
            served = self.routes.serving(path, ref_text)
            self._resolved[key] = [Resolution(s, REQUESTS) for s in served] or [Resolution(None, "external")]
        elif ref_text.startswith(f"{AUTHENTICATE}:"):  # Django's `authenticate()`: the backends taking its credentials
            found_ids = authenticating(self, ref_text) or []
            self._resolved[key] = [Resolution(s, AUTHENTICATES) for s in found_ids] or [Resolution(None, "external")]
        elif ref_text.startswith((f"{TEMPLATE}:", f"{TAG}:", f"{LOOKUP}:")):  # a template rendered, its tag or lookup
            found = self._template_call(ref_text)
            self._resolved[key] = found or [Resolution(None, "external")]
        else:  # a walk up the call graph meets the same call sites again and again
            found = [self._resolve_one(path, ref) for ref in parse_refs(ref_text)] or [Resolution(None, "unknown")]
            resolved = [r for r in found if r.target is not None]
            self._resolved[key] = (
                list(dict.fromkeys(resolved))
                if resolved
                else [Resolution(None, "external")]
                if any(r.basis == "external" for r in found)
                else found[:1]
            )
        return self._resolved[key]

    def _template_call(self, ref_text: str) -> list[Resolution]:
        """The templates a TEMPLATE ref renders, the functions of the loaded libraries a TAG ref's tag runs, or the
        method a LOOKUP ref's attribute calls (store/templatetags.py)."""
        refs = parse_refs(ref_text)
        if not refs:
            return []
        looked = lookup_used(refs[0])
        if looked is not None:
            return [Resolution(t, LOOKS_UP) for t in looked_up(self.conn, *looked)]
        name = template_named(refs[0])
        if name is not None:
            return [Resolution(t, RENDERS) for t in rendered(self.conn, name)]
        used = tag_used(refs[0])
        if used is None:
            return []
        libraries, tag = used
        registered = tag_functions(self.conn)
        return [
            Resolution(f, USES_TAG)
            for library in (*libraries, EVERY_TEMPLATE)
            for f in registered.get((library, tag), ())
        ]

    def served_views(self, path: str, view: str) -> list[str]:
        """What a URL configuration's view ref names (`views.index`, `views.BookListView`), or a settings file's dotted
        path (DOTTED: `hc.accounts.middleware.TeamAccessMiddleware`), for store/routes.py: a function of ours, or a
        class with the methods the framework runs on it (`get`, `get_queryset`, `__call__`): its own and those it
        inherits from classes of ours, each name once. Of an authentication backend (BACKEND), its methods but
        `authenticate`, which runs where something authenticates (store/djangoauth.py), and not the class: a walk
        from a method goes on from its class (store/testmap.py), which would bring `authenticate` every request."""
        out = []
        dotted = view.removeprefix(DOTTED).removeprefix(BACKEND)
        named = [self.dotted(dotted)] if view.startswith((DOTTED, BACKEND)) else None
        skipped = "authenticate" if view.startswith(BACKEND) else None
        for target in named or [self.symbol(r.target) for r in self.resolve(path, view) if r.target is not None]:
            if target is None:
                continue
            if skipped is None or target["kind"] != "class":
                out.append(target["id"])
            if target["kind"] == "class":
                methods: dict[str, str] = {}
                for cls in self.mro(target):
                    for name, method in self.conn.execute(
                        "SELECT name, id FROM symbols WHERE parent = ? AND kind = 'method'", (cls["id"],)
                    ):
                        if name != skipped:
                            methods.setdefault(name, method)
                out.extend(methods.values())
        return list(dict.fromkeys(out))

    def dotted(self, name: str) -> sqlite3.Row | None:
        """The symbol a dotted path from the top of the project names (`hc.accounts.middleware.TeamAccessMiddleware`):
        in the module of its longest prefix the index holds."""
        parts = name.split(".")
        for k in range(len(parts) - 1, 0, -1):
            row = self.conn.execute(
                "SELECT path FROM files WHERE module = ? AND status = 'indexed'", (".".join(parts[:k]),)
            ).fetchone()
            if row is not None:
                return self._in_module(row[0], tuple(parts[k:]), 0)
        return None

    def receivers(self, path: str, ref_text: str | None) -> list[sqlite3.Row] | None:
        """The classes of the values a call's ref calls its method on (`module:UsageError().format_message`:
        UsageError), one per alternative; None when one of them is not an instance of a class the index knows
        (`self` in a function, a fixture's value, `super()`), which may be anything."""
        found: list[sqlite3.Row] = []
        for ref in parse_refs(ref_text):
            called_on = ref.segments[:-1]  # `UsageError()` of `UsageError().format_message`
            if not called_on or not called_on[-1].endswith("()"):
                return None
            value = self._class_named(path, replace(ref, segments=called_on), 0)
            if value is None:
                return None
            found.append(value)
        return found or None

    def dispatched(self, path: str, ref_text: str | None) -> list[str]:
        """The methods a call of a name built at run time (`module:Parser().parse_*`, store/refs.py) may run: on
        the value it is called on, an instance of its class or of a class deriving from it, each member of that
        instance named so, its class's own or inherited (a mixin's `visit_Call` on a `Printer(Mixin, Visitor)`)."""
        if ref_text is None or ("*" not in ref_text and not validates(ref_text)):
            return []  # most calls: asked of each a callees answer lists
        key = (path, ref_text)
        if key not in self._dispatched:  # the callers of every `visit_*` method ask of the same few call sites
            found: dict[str, None] = {}
            for ref in parse_refs(ref_text):
                if ref.segments and ref.segments[-1] in VALIDATING:  # `form.is_valid()`: its clean methods
                    form = self._class_named(path, replace(ref, segments=ref.segments[:-1]), 0)
                    found.update(dict.fromkeys(cleaning(self, form) if form is not None else []))
                    continue
                prefix = ref.segments[-1][:-1] if ref.segments and ref.segments[-1].endswith("*") else None
                value = None if prefix is None else self._class_named(path, replace(ref, segments=ref.segments[:-1]), 0)
                if prefix is None or value is None:
                    continue
                for cls in [value, *self.descendants(value)]:
                    names = {m["name"] for c in self.mro(cls) for m in self._methods_starting(c, prefix)}
                    names.update(n for c in self.mro(cls) for n in self._aliases_starting(c, prefix))
                    found.update((m["id"], None) for name in sorted(names) if (m := self.member(cls, name)) is not None)
            self._dispatched[key] = list(found)
        return self._dispatched[key]

    def _methods_starting(self, cls: sqlite3.Row, prefix: str) -> list[sqlite3.Row]:
        """The methods a class itself defines whose names start so."""
        return [
            m
            for m in {r["id"]: r for r in self.symbols_of(cls["path"]).values()}.values()
            if m["parent"] == cls["id"] and m["kind"] == "method" and m["name"].startswith(prefix)
        ]

    def _aliases_starting(self, cls: sqlite3.Row, prefix: str) -> list[str]:
        """The names a class's body binds to one of its methods (`visit_If = _simple_visit`) that start so."""
        bound = self.typed_members(cls["id"]) if cls["path"].endswith(".py") else {}
        return [n for n, written in bound.items() if n.startswith(prefix) and bound_function(written) is not None]

    def _resolve_one(self, path: str, ref: Ref) -> Resolution:
        found = self._resolve_ref(path, ref)
        if found.target is None and ref.segments and ref.segments[-1] in PROTOCOL_METHODS:
            # `for x in v` over a value of no class of ours (`range()`, a `dict` subclass, what an unannotated
            # method returns) runs v's own `__iter__`: a guess at a same-named method of ours is worth nothing
            return Resolution(None, "external")
        if found.basis == "unknown" and self.of_outside_value(path, ref):  # `conn.close()`, `self.loads.items()`
            return Resolution(None, "external")
        return found

    def _target_of(self, path: str, ref: Ref) -> str | None:
        return self._resolve_ref(path, ref).target

    def _resolve_ref(self, path: str, ref: Ref) -> Resolution:
        if path.endswith(".go"):
            return Resolution(*go_resolve(self, path, ref))
        if ref.root == "builtin":
            return Resolution(None, "external")
        if ref.segments and command_word(ref.segments[-1]) is not None:  # `invoke(cli, ["pack", task])`
            command = self.command_run(path, ref)
            return Resolution(command, COMMAND) if command is not None else Resolution(None, "external")
        if ref.root == "value":  # a function handed on (`map(f, xs)`): whoever gets it calls it
            named = self._resolve_ref(path, replace(ref, root="module" if ref.ordinal is None else "import"))
            kind, decorators = self.kind_of(named.target) if named.target is not None else (None, [])
            if kind == "method" and (is_property(decorators) or ref.segments[-1].endswith(SET)):
                return Resolution(named.target, "method")  # `x.name` read runs a property's getter, assigned its setter
            if kind in ("function", "method"):
                return Resolution(named.target, NAMED_AS_VALUE)
            if kind == "type" and named.target is not None and declares_dependency(self.symbol(named.target)):
                return Resolution(named.target, DEPENDS)  # `session: SessionDep`: FastAPI runs what it declares
            return Resolution(None, "external")  # a class, a constant, another module's: no call of ours to guess
        if ref.root == "import":
            imp = self.import_numbered(path, ref.ordinal)
            if imp is None:
                return Resolution(None, "unknown")
            if imp["target"] is None and path.endswith(".py") and any(passed(s) for s in ref.segments):
                return Resolution(None, "unknown")  # what an outside decorator hands on (`@mark.xfail`): anyone's
            if imp["target"] is None or not ref.segments:  # outside code, or the module itself handed on
                return Resolution(None, "external")  # (`getattr(d, name)` after `import pkg.dialects as d`)
            found = self._in_module(imp["target"], ref.segments, 0)
            if found is None and self._from_outside(imp["target"], ref.segments[0], 0):
                return Resolution(None, "external")  # sqlalchemy.testing's `mock`, unittest's
            if found is None and imp["kind"] == "require" and ref.segments[0] != DEFAULT:
                found = self._in_module(imp["target"], (DEFAULT, *ref.segments), 0)  # `Agent.create()`: a static
            default = segment_name(ref.segments[0]) == DEFAULT
            if found is None and default and self.default_export(imp["target"]) is None:
                return Resolution(None, "legacy")  # an object, a call's result: the rules by name apply
            return self._resolution(found, ref, "imported name")
        if ref.root == "fixture":
            if self.pytests_fixture(segment_name(ref.segments[0])):  # `tmp_path`, `monkeypatch`: pytest's
                return Resolution(None, "external")
            return self._resolution(self._fixture(path, ref.segments), ref, "imported name")  # from a conftest.py
        if ref.root == "super":
            cls, cut = self._calling_class(path, ref)
            if cls is None or cut >= len(ref.segments):
                return Resolution(None, "unknown")
            declared = declared_parameter(ref.segments[cut])
            asked = declared[0] if declared is not None else ref.segments[cut]
            found = self._in_bases(cls, asked)
            if found is None and cls["path"].endswith(".py") and self.next_is_outside(cls, segment_name(asked)):
                return Resolution(None, "external")  # `super().__init__()` of an Exception: its own, nothing of ours
            class_itself = False  # `cls: Type[Row]` declared: calling the parameter makes a Row
            if found is not None and declared is not None:  # an override's parameter, as the overridden declares it
                class_itself = holds_class(python_parameter_type(found["signature"] or "", declared[1]) or "")
                found = self._parameter_declared(found, declared[1])
            found = self._members(found, ref.segments[cut + 1 :], 0) if found is not None else None
            return self._resolution(found, ref, "method", class_itself and cut == len(ref.segments) - 1)
        found = self._walk(path, ref.segments, 0)
        method = len(ref.segments) > 1 and found is not None and found["kind"] == "method"
        elsewhere = found is not None and found["path"] != path  # through an import (`import a.b`, then `a.f()`)
        return self._resolution(found, ref, "method" if method else "imported name" if elsewhere else "same file")

    def calling_class(self, path: str, ref_text: str | None) -> sqlite3.Row | None:
        """The class a `super()` call is written in (`super:Choice().to_info_dict`: Choice); None for other calls."""
        refs = [ref for ref in parse_refs(ref_text) if ref.root == "super"]
        return self._calling_class(path, refs[0])[0] if refs else None

    def _calling_class(self, path: str, ref: Ref) -> tuple[sqlite3.Row | None, int]:
        """A `super:` ref's class, and how many of its segments name it."""
        named = [s for s in ref.segments if s.endswith("()")]
        cut = ref.segments.index(named[0]) + 1 if named else 0
        return (self._walk(path, ref.segments[:cut], 0) if cut else None), cut

    def kind_of(self, symbol_id: str) -> tuple[str | None, list[str]]:
        """A symbol's kind and decorators."""
        row = self.conn.execute("SELECT kind, decorators FROM symbols WHERE id = ?", (symbol_id,)).fetchone()
        return (row[0], stored_list(row[1])) if row is not None else (None, [])

    def _resolution(self, found: sqlite3.Row | None, ref: Ref, basis: str, class_itself: bool = False) -> Resolution:
        """What calling what a ref names runs. A class named (`Row`, a field declared `Type[Row]`) is constructed;
        an instance called runs its class's `__call__`: what a call gives (`app(environ)`), and a value typed as
        the class (a parameter declared `comparator: PropComparator`, an element of a `List[_Dispatch]`)."""
        if found is None:
            return Resolution(None, "unknown")
        if found["kind"] != "class":
            return Resolution(found["id"], basis)
        last = ref.segments[-1]
        if class_itself or not (last.endswith("()") or typed_value(last)):
            return Resolution(found["id"], "constructor")
        call = self.member(found, "__call__")
        if call is not None:
            return Resolution(call["id"], "method")
        # A call's result that is no callable of ours is outside code's; a value declared as an instance that is
        # called anyway is not what its type says: a guess by name, not a sure answer.
        return Resolution(None, "external" if last.endswith("()") else "unknown")

    def _walk(self, path: str, segments: tuple[str, ...], hops: int) -> sqlite3.Row | None:
        """The symbol a dotted path names from the top level of a file (through its imports)."""
        if not segments or hops > MAX_HOPS:
            return None
        key = (path, segments, hops)  # what is left of MAX_HOPS bounds the answer: kept by it too
        if key not in self._walked:  # star re-exports (an index.ts of `export *`) meet the same files again and again
            self._walked[key] = self._walk_from(path, segments, hops)
        return self._walked[key]

    def _walk_from(self, path: str, segments: tuple[str, ...], hops: int) -> sqlite3.Row | None:
        first = segment_name(segments[0])
        symbol = self.symbols_of(path).get(first)
        held = self._module_instance(path, first, hops) if symbol is None or symbol["kind"] == "const" else None
        if held is not None and segments[0] != first:
            return None  # `app()[0]`, `app().x`: what its `__call__` gives, which is not read here
        if held is not None:  # `app.route()`: a method of its class; `app(environ)`: its `__call__`
            return self._members(held, segments[1:], hops) if len(segments) > 1 else self.member(held, "__call__")
        if symbol is None and segments == (first,):  # `run()`, where the module binds `run = wrap(work)`
            bound = self._module_function(path, first, hops)
            if bound is not None:
                return bound
        if symbol is None:
            return self._through_imports(path, first, segments, hops + 1)
        return self._members(self._value_of(symbol, segments[0], hops), segments[1:], hops)

    def _module_instance(self, path: str, name: str, hops: int) -> sqlite3.Row | None:
        """The class of the instance a module's top level binds a name to (`rrulestr = _rrulestr()`, pymembers.py;
        `export const registry = new Registry()`, jsrefs.py), read in that module."""
        written = self.typed_members(path).get(name)
        return self._given_class(path, written, hops) if written is not None and written.startswith(GIVEN) else None

    def _module_function(self, path: str, name: str, hops: int) -> sqlite3.Row | None:
        """The function a module's top level binds a name to (`alias = work`, `run = wrap(work)`: what wrap returns,
        pymembers.py), read in that module: calling the name runs it."""
        bound = bound_function(self.typed_members(path).get(name, ""))
        if bound is None or hops > MAX_HOPS:
            return None
        if bound.ordinal is None:
            return self._walk(path, bound.segments, hops + 1)
        imported = self.import_numbered(path, bound.ordinal)
        return (
            self._in_module(imported["target"], bound.segments, hops + 1) if imported and imported["target"] else None
        )

    def bound_names(self, symbol_id: str) -> set[str]:
        """The names Python modules' top levels bind to this function (`build_pack = _to_the_end(pack_steps)` for
        `_to_the_end.whole`, `alias = work`), and class bodies to this method (`fetch = get`): a call by one of those
        names runs it."""
        if self._module_functions is None:
            self._module_functions = {}
            for path, owner, name, written in self.conn.execute(
                "SELECT path, owner, name, type FROM fields WHERE type LIKE ? ESCAPE '\\'", (f"{BOUND}%",)
            ):
                if owner == path:
                    function = self._module_function(path, name, 0)
                else:  # a class body's: one of its own methods
                    bound = bound_function(written)
                    function = self.symbols_of(path).get(".".join(bound.segments)) if bound is not None else None
                if function is not None:
                    self._module_functions.setdefault(function["id"], set()).add(name)
        return self._module_functions.get(symbol_id, set())

    def imported_as(self, symbol_id: str, name: str) -> set[str]:
        """The other names Python modules import a definition under (sqlalchemy's sql/visitors.py: `from ._py_util
        import cache_anon_map as anon_map`): calls by those names are its callers' too (`anon_map()` elsewhere)."""
        if self._renaming is None:  # every such import by the name it imports; each resolved when its name is asked
            self._renaming = {}
            for imported, bound, target in self.conn.execute(
                "SELECT json_extract(names, '$[0]'), bound, target FROM imports WHERE kind = 'from'"
                " AND target IS NOT NULL AND bound IS NOT NULL AND bound != '' AND (path LIKE '%.py' OR path LIKE"
                " '%.pyi') AND json_array_length(names) = 1 AND json_extract(names, '$[0]') NOT IN (bound, '*')"
            ):
                self._renaming.setdefault(imported, []).append((target, bound))
        return {
            bound
            for target, bound in self._renaming.get(name, ())
            if (found := self._in_module(target, (name,), 0)) is not None and found["id"] == symbol_id
        }

    def instances_named(self, cls: sqlite3.Row) -> set[str]:
        """The names Python modules' top levels bind to an instance of this class: calling one runs its `__call__`
        (`rrulestr(s)` after `rrulestr = _rrulestr()`), and the method's callers look for the calls by those names."""
        if self._module_instances is None:
            self._module_instances = {}
            for path, name in self.conn.execute(
                "SELECT path, name FROM fields WHERE owner = path AND type LIKE ? ESCAPE '\\'", (f"{GIVEN}%",)
            ):
                held = self._module_instance(path, name, 0)
                if held is not None:
                    self._module_instances.setdefault(held["id"], set()).add(name)
        return self._module_instances.get(cls["id"], set())

    def _fixture(self, path: str, segments: tuple[str, ...]) -> sqlite3.Row | None:
        """What a fixture's value names (`fixture:runner().invoke`): the fixture is pytest's, the function of that name
        in the conftest.py of the test's folder or the nearest one above it."""
        name = segment_name(segments[0])
        folder = path.rpartition("/")[0]
        while True:
            fixture = self.symbols_of(f"{folder}/conftest.py" if folder else "conftest.py").get(name)
            if fixture is not None and fixture["kind"] == "function":
                return self._members(self._value_of(fixture, segments[0], 0), segments[1:], 0)
            if not folder:
                return None
            folder = folder.rpartition("/")[0]

    def _through_imports(self, path: str, first: str, segments: tuple[str, ...], hops: int) -> sqlite3.Row | None:
        """A name a file imports (a re-export, a base class named in it): followed to its file; else one that
        a star brings (`export * from "./Column"` in an index.ts, `from .core import *`), the first that
        has it."""
        by_name, stars, _ = self.import_index(path)
        found = by_name.get(first)
        if found is not None and found[0] == "module" and len(segments) > 2 and segments[0] == first:
            submodule = self._submodule(by_name, segments, hops)
            if submodule is not None:
                return submodule
        if found is not None:
            how, target, there = found
            if how == "named":  # under its name there: `from m import A as B`, then `B.f` is A.f in m
                return self._in_module(target, (there + segments[0][len(first) :], *segments[1:]), hops)
            if how == "bound":
                return self._bound_module(target, segments[0][len(first) :], segments[1:], hops)
            return self._walk(target, segments[1:], hops)  # `import m`: m.f is f in m's file
        for star in stars:
            found_there = self._walk(star, segments, hops + 1)
            if found_there is not None:
                return found_there
        return None

    def _submodule(
        self, by_name: dict[str, tuple[str, str, str]], segments: tuple[str, ...], hops: int
    ) -> sqlite3.Row | None:
        """`web.app.App` after `import web.app`: App in web/app.py, which the package's `__init__.py` need not
        import (`class Quiet(web.app.App)`); the longest module so imported that the segments start with."""
        for k in range(len(segments) - 1, 1, -1):
            if any(s != segment_name(s) for s in segments[1:k]):
                continue  # `a.b().c`: a call's result, not a module
            module = by_name.get(".".join(segments[:k]))
            if module is not None and module[0] == "module":
                return self._walk(module[1], segments[k:], hops)
        return None

    def _from_outside(self, target: str, segment: str, hops: int) -> bool:
        """Whether the name a module is asked for (`mock` of `from pkg import mock`) is one it imports from outside
        code, itself or through the modules it re-exports it from: what it names is no code of ours."""
        name = segment_name(segment)
        if hops > MAX_HOPS or name in self.symbols_of(target):
            return False
        by_name, _, outside = self.import_index(target)
        found = by_name.get(name)
        if found is None:
            return name in outside
        how, target_there, name_there = found
        return how == "named" and self._from_outside(target_there, name_there, hops + 1)

    def _bound_module(self, target: str, called: str, members: tuple[str, ...], hops: int) -> sqlite3.Row | None:
        """What a name bound to a module names (`called`, `()` where it is called, then its `members`): `y.f`
        after `import yaml as y` is f in the module; in JavaScript, the module is what it exports as itself
        (`new Agent()` after `const Agent = require('./agent')`), and a member is the `module.exports` object's
        or that export's (`Agent.create()`)."""
        found = self._in_module(target, members, hops) if members and not called else None
        if found is None:
            found = self._in_module(target, (DEFAULT + called, *members), hops)
        return found

    def _in_module(self, target: str, segments: tuple[str, ...], hops: int) -> sqlite3.Row | None:
        """A path inside an imported module; `from pkg import mod` then `mod.f` names f in pkg/mod.py; a name the
        module exports another definition under (`default`, what it exports as itself) names that definition."""
        if segments:
            name = segment_name(segments[0])  # `default()`, `Readable()[]`
            exported = self.exported_as(target).get(name)
            if exported is None and name == DEFAULT:
                return None
            if exported is not None:
                segments = (exported + segments[0][len(name) :], *segments[1:])
        found = self._walk(target, segments, hops + 1)
        if found is None and len(segments) > 1 and self.module_of(target).rsplit(".", 1)[-1] == segments[0]:
            found = self._walk(target, segments[1:], hops + 1)
        return found

    def _members(self, symbol: sqlite3.Row | None, segments: tuple[str, ...], hops: int) -> sqlite3.Row | None:
        for i, written in enumerate(segments):
            if symbol is None:
                return None
            element = written.endswith("[]")  # `columns[]`, `find()[]`: an element of what it gives
            name = segment_name(written)
            child = self.own_member(symbol, name)
            if child is not None and (child["signature"] or "").startswith("set "):  # a setter, then its getter
                child = self.symbols_of(symbol["path"]).get(f"{symbol['qualname']}.{name}#2") or child
            if child is None and symbol["kind"] in TYPES:
                child = self._in_bases(symbol, name)
                field = i < len(segments) - 1 and written.removesuffix("[]") == name  # read, not called
                if child is None and not field:
                    child = self._class_held(symbol, name, hops) or self._in_subclasses(symbol, name)
                rest = past_the_query(segments[i + 1 :]) if field and not element else None
                queried = queried_model(self, symbol, name) if child is None and rest else None
                if queried is not None and rest:  # `Check.objects.get().to_dict`, `project.check_set.all()[].to_dict`
                    return self._members(queried, rest, hops)
                if child is None and field:
                    part = MAPPING_VIEWS.get(segments[i + 1]) if not element else None
                    declared = self._declared_field(symbol, name) if part is not None else None
                    python = declared is not None and declared[0]["path"].endswith((".py", ".pyi"))
                    if declared is not None and python and is_mapping(declared[1]):
                        # `self.commands.get(name)` of a `Dict[str, Command]`: a Command (of a `Dict[Command, str]`,
                        # a str: nothing of ours, and never a key)
                        return self._members(self._field_class(declared, hops, part=part), segments[i + 2 :], hops)
                    after = segments[i + 1].removesuffix("()")  # `a.store.get()`
                    if not element and after in ELEMENT_RESULTS and segments[i + 1] == f"{after}()":
                        found = self._field_type(symbol, name, hops, element=True)  # `t.columns.find(...)`
                        if found is not None:
                            return self._members(found, segments[i + 2 :], hops)
                    return self._members(self._field_type(symbol, name, hops, element), segments[i + 1 :], hops)
            receiver = symbol if symbol["kind"] in TYPES else None  # what `: this` is: the class it is called on
            read_on = i < len(segments) - 1
            symbol = self._value_of(child, written, hops, receiver, read_on) if child is not None else None
        return symbol

    def _class_named(self, path: str, ref: Ref, hops: int) -> sqlite3.Row | None:
        """The class of what a `module:` or `import#K:` ref of `path` names (`import#3:Environment()._tokenize()`:
        what `_tokenize` returns; `module:UsageError()`: a UsageError), through the file's own definitions or its
        imports; None for any other ref."""
        if hops > MAX_HOPS:
            return None
        if ref.root == "module":
            found = self._walk(path, ref.segments, hops)
        elif ref.root == "import":
            imp = self.import_numbered(path, ref.ordinal)
            found = self._in_module(imp["target"], ref.segments, hops) if imp is not None and imp["target"] else None
        else:
            return None
        return found if found is not None and found["kind"] in TYPES else None

    def root_class(self, path: str, ref: Ref) -> sqlite3.Row | None:
        """The class of ours a ref's first segment names or makes (`Notification` of
        `import#10:Notification.objects.get`, `module:Check()` of `module:Check().save`)."""
        return self._class_named(path, replace(ref, segments=ref.segments[:1]), 0)

    def named(self, path: str, dotted: str) -> sqlite3.Row | None:
        """The symbol a dotted name of a file's top level names (`Driver`, `ns.Driver`), through its imports."""
        return self._walk(path, tuple(dotted.split(".")), 0)


def shared_resolver(conn: sqlite3.Connection) -> CallResolver:
    """The connection's resolver while the projections stay where they are: one answer (a context
    pack asks for the tests of every module it shows) walks the same files' calls many times, and a
    fresh resolver per walk read them all again (a pack on click: ~850 ms, ~300 ms shared)."""
    return held_while_unchanged(conn, "call resolver", lambda: CallResolver(conn))
