"""Go's rules for naming a package's code, which the call graph (store/callgraph.py) follows for Go files.

A Go package is the `.go` files of one folder (what `go build` compiles together): a bare name in one
of them calls the package's function or type in any file of the folder (`same package`), and `pkg.Name`
calls the code of an imported package (`imported name`); never another package's function by its bare
name (but through a dot import), nor its own package's through a qualifier. A `_test.go` file importing
its own folder is the folder's external `x_test` package. A method, which Go declares at the top level
too, is none of this: a call of it on a value runs the method of the value's type, which the calling
file says often enough (indexer/parsing/gorefs.py writes it in the call's ref: `module:T().M`, where
`module` is the calling file's package); where it does not, the call is a guess by name. A call on a
value of an interface type calls the interface's method, which any type implementing the interface (Go
decides that by method names alone) may run: the call stands in for those types' methods as a call of a
Python method stands in for its overrides (`through an interface`).
"""

from __future__ import annotations

import re
import sqlite3
from typing import TYPE_CHECKING

from .symbol import RESOLVER_COLUMNS

if TYPE_CHECKING:
    from .refs import Ref
    from .resolver import CallResolver
    from .symbol import SymbolRow

_GO_MAJOR = re.compile(r"^v\d+$")
NAMED_AS_VALUE = "named as a value"  # `state: lexTop`: whatever gets the value calls it
# `v.Set(s)` on a Value, an interface: on a value of a type implementing Value, it runs that type's Set
THROUGH_INTERFACE = "through an interface"
_TYPES = frozenset({"struct", "type", "interface"})
_RESULT_NAME = re.compile(r"^\w+\s+(?=[*\w])")  # `fs *FlagSet` in `(fs *FlagSet, err error)`
# A package-level variable's or constant's signature, as indexed: `var CommandLine = NewFlagSet(os.Args[0],
# ...)`, `var ErrNotFound = &ErrResponse` (a composite literal's type), `var cache Cache`, `const Red Color = 1`.
_VAR_HEAD = re.compile(
    r"^\w+(?:\s+\*?(?P<declared>\w+(?:\.\w+)?)\s*(?:=.*)?|\s*=\s*&?(?P<value>\w+(?:\.\w+)?)\s*(?:[({].*)?)$", re.S
)
_DECLARES = re.compile(r"^(?:var|const)\s+")
_MEMBERS = re.compile(r"(?:struct|interface)\s*\{(.*)\}\s*$")  # a struct's fields, what an interface embeds
_CONSTRAINT = re.compile(r"[~|]")  # `~int | ~string`: an interface of this is a constraint, no value's type
_NAMED_FIELD = re.compile(r"^(?P<names>\w+(?:,\s*\w+)*)\s+(?P<type>\S.*)$")  # `a, b int`; `*Base` is embedded
_COLLECTION = re.compile(r"(?:\[\w*\]|map\[[^\]]*\])(?P<element>.+)")  # `[]*Flag`, `[4]T`, `map[string]*Flag`
_TYPE_NAME = re.compile(r"\*?(?P<name>\w+(?:\.\w+)?)(?:\[.*\])?")  # `*Store`, `pkg.Cache[K]`: not `[]T`, `map[..]`
MAX_FIELDS = 3  # `s.a.b.c.M()`: fields followed from a value to the method called


def go_top_level(symbol: SymbolRow | sqlite3.Row) -> bool:
    """A Go package's function or type (not a method: Go declares those at the top level too)."""
    return symbol["path"].endswith(".go") and symbol["parent"] is None and symbol["kind"] != "method"


def same_go_folder(a: str, b: str) -> bool:
    """Two Go files of one folder: one package (or it and its external `x_test` package, which imports it)."""
    return a.endswith(".go") and b.endswith(".go") and a.rpartition("/")[0] == b.rpartition("/")[0]


def go_basis(resolver: CallResolver, path: str, qualifier: str | None, symbol: SymbolRow | sqlite3.Row) -> str | None:
    """The basis of a call of a top-level function or type's name in `path`: named bare inside its package
    (unless the calling file defines that name itself) or where a dot import brings it, and as `pkg.Name`
    elsewhere; None where it cannot be this symbol."""
    if not go_reachable(path, symbol):
        return None
    folder = symbol["path"].rpartition("/")[0]
    imports = [i for i in go_imports(resolver, path) if i["target"] and i["target"].rpartition("/")[0] == folder]
    if not qualifier:
        if path == symbol["path"]:
            return "same file"
        if (
            path.endswith(".go")
            and symbol["name"] not in resolver.symbols_of(path)
            and go_package(resolver, path) == go_package(resolver, symbol["path"])
        ):
            return "same package"
        return "imported name" if any(i["names"] == '["*"]' for i in imports) else None
    if go_package(resolver, path) == go_package(resolver, symbol["path"]):
        return None  # no package imports itself: `calc.Add` in package calc is another package's Add
    if any((i["bound"] or go_import_name(i["module"])) == qualifier for i in imports):
        return "imported name"
    # A package whose name is not its path's (`github.com/json-iterator/go` is jsoniter), unless an alias says the
    # name; no import of its folder at all, and the qualifier is a value (`r.Context()` on an *http.Request) or
    # another package: a function of this one is never called so. bench/facts_calls_go.py: chi's `r.Context()` had
    # been a guess at its function Context.
    return "name only" if any(i["bound"] is None for i in imports) else None


def go_reachable(path: str, symbol: SymbolRow | sqlite3.Row) -> bool:
    """Whether Go code in `path` can call the symbol at all. A `_test.go` file's code only from its own folder's test
    files (a package's tests are no part of it, nor a package another imports); the code of a folder the go tool
    builds apart (`_examples/`, `.x/`, `testdata/`: each a program or a fixture of its own) only from that folder; a
    type declared inside a function (`TestCompat.flagSet`'s methods) only from its file. bench/facts_calls_go.py:
    chi's `h.ServeHTTP(w, r)` had been a guess at _examples/custom-handler's Handler.ServeHTTP, toml's
    `keyContext.String()` at bench_test.go's fmtTime.String."""
    folder = symbol["path"].rpartition("/")[0]
    if symbol["kind"] == "method" and symbol["qualname"].count(".") > 1:  # `TestCompat.flagSet.Parse`
        return path == symbol["path"]
    if symbol["path"].endswith("_test.go"):  # compiled into the package's tests, never into the package
        return path.endswith("_test.go") and path.rpartition("/")[0] == folder
    hidden = any(part.startswith(("_", ".")) or part == "testdata" for part in folder.split("/") if part)
    return not hidden or path.rpartition("/")[0] == folder


def go_import_name(path: str) -> str:
    """The name Go code uses for an imported package by convention: its path's last element, but not a major
    version (`github.com/go-chi/chi/v5` is `chi`, `gopkg.in/yaml.v3` is `yaml`) nor a `go-` prefix or `-go`
    suffix (`github.com/mattn/go-isatty` is `isatty`)."""
    parts = path.split("/")
    last = parts[-2] if len(parts) > 1 and _GO_MAJOR.match(parts[-1]) else parts[-1]
    last = re.sub(r"\.v\d+$", "", last)
    return last.removeprefix("go-").removesuffix("-go").removesuffix(".go")


def go_imports(resolver: CallResolver, path: str) -> list[sqlite3.Row]:
    """A Go file's import declarations, not the names it takes from its own package (kind `package`)."""
    return [i for i in resolver.imports_of(path) if i["kind"] != "package"]


def go_package(resolver: CallResolver, path: str) -> tuple[str, bool]:
    """A Go file's package: its folder, and whether it is the folder's external test package (`calc_test`,
    in a `_test.go` file importing its own folder's package, which no package may do to itself)."""
    folder = path.rpartition("/")[0]
    external = path.endswith("_test.go") and any(
        i["target"] is not None and i["target"].rpartition("/")[0] == folder for i in go_imports(resolver, path)
    )
    return folder, external


def go_callee(
    conn: sqlite3.Connection, resolver: CallResolver, path: str, name: str, qualifier: str | None
) -> tuple[str | None, str]:
    """What a call in a Go file runs (`go_basis`): the first top-level symbol of that name the call surely
    names; else, for a call on a value, a method of that name as a guess; else one named only by a guess;
    else unresolved."""
    guessed: str | None = None
    method: str | None = None
    for row in conn.execute("SELECT * FROM symbols WHERE name = ? AND path LIKE '%.go' ORDER BY id", (name,)):
        if not go_reachable(path, row):
            continue
        if not go_top_level(row):
            method = method or (str(row["id"]) if row["kind"] == "method" else None)
            continue
        basis = go_basis(resolver, path, qualifier, row)
        if basis == "name only":
            guessed = guessed or str(row["id"])
        elif basis is not None:
            return str(row["id"]), basis
    if guessed is not None and method is None:
        return guessed, "name only"
    return (method, "name only") if qualifier and method is not None else (None, "unresolved")


def go_resolve(resolver: CallResolver, path: str, ref: Ref) -> tuple[str | None, str]:
    """What a Go call's ref names (indexer/parsing/gorefs.py): `import#K:F` an imported package's function
    or type, `module:T().M` and `import#K:T().M` the method M of type T (or of what function T returns),
    `module:V.M` the method M of a package-level variable's type, `value:F` a name of the package handed
    on as a value (`named as a value`); "external" through an import of another module; "legacy" where
    the index cannot follow it (an interface, an embedded type's method, a name the package does not
    define), so that the rules by name apply."""
    if ref.ordinal is not None:  # `import#K`, `value#K`
        imp = resolver.import_numbered(path, ref.ordinal)
        if imp is None:
            return None, "legacy"
        if imp["target"] is None:
            return None, "external"
        folder, basis = imp["target"].rpartition("/")[0], "imported name"
    elif ref.root in ("module", "value"):
        folder, basis = path.rpartition("/")[0], "same package"
    else:
        return None, "legacy"
    if not ref.segments or len(ref.segments) > MAX_FIELDS + 2:
        return None, "legacy"
    found = package_symbols(resolver, folder).get(ref.segments[0].removesuffix("()"))
    if found is None or not go_top_level(found):
        return None, "legacy"
    if len(ref.segments) == 1:
        return found["id"], NAMED_AS_VALUE if ref.root == "value" else basis
    value_type = _type_of(resolver, found)
    written = _written_type(found) if value_type is None else None
    if written is not None and _outside(resolver, found["path"], written):  # `newClient().Do()`: an http.Client
        return None, "external"
    for segment in ref.segments[1:-1]:  # `s.store.Get()`, `f.Lookup(n).Value.Set()`: each value's type on the way
        if value_type is None:
            return None, "legacy"
        if segment.endswith("()"):
            value_type, outside = _result_type(resolver, value_type, segment.removesuffix("()"))
        elif value_type["kind"] == "struct":  # `flags[]`: an element of the field (`flags map[string]*Flag`)
            value_type, outside = _field_type(resolver, value_type, segment.removesuffix("[]"), segment.endswith("[]"))
        else:
            return None, "legacy"
        if outside:  # `s.mu.Lock()` on a sync.Mutex: another module's method
            return None, "external"
    if value_type is None:
        return None, "legacy"
    target, basis = _method(resolver, value_type, ref.segments[-1], 0)
    return target, NAMED_AS_VALUE if ref.root == "value" and target is not None else basis


def _method(resolver: CallResolver, value_type: sqlite3.Row, name: str, hops: int) -> tuple[str | None, str]:
    """A type's method: its own (an interface's is its declaration), or one Go promotes from an embedded type
    (`struct { Base }`, `interface { Base }`); "external" when the type embeds another module's type and none
    of ours has it (`w.Header()` on a struct embedding http.ResponseWriter); "legacy" where what the index
    lacks may have it."""
    method = package_symbols(resolver, value_type["path"].rpartition("/")[0]).get(f"{value_type['qualname']}.{name}")
    if method is not None:
        return method["id"], "method"
    outside = False
    for names, written in _fields(value_type) if hops < 3 else []:
        if names:
            continue  # a named field: only embedded types promote their methods
        written = written.lstrip("*")
        base = _named(resolver, value_type["path"], written)
        if base is not None and base["kind"] in _TYPES:
            target, basis = _method(resolver, base, name, hops + 1)
            if target is not None:
                return target, basis
        outside = outside or (base is None and _outside(resolver, value_type["path"], written))
    return None, "external" if outside else "legacy"


def _fields(struct: sqlite3.Row) -> list[tuple[list[str], str]]:
    """A struct's fields as its signature shows them (` { *Base; store *Store; a, b int; ... }`): each with its
    names and its type as written; an embedded type has no names, and neither has what an interface embeds."""
    found = _MEMBERS.search(struct["signature"] or "") if struct["kind"] in ("struct", "interface") else None
    out: list[tuple[list[str], str]] = []
    for entry in (e.strip() for e in found.group(1).split(";")) if found else []:
        if entry and entry != "...":
            named = _NAMED_FIELD.match(entry)
            out.append(([n.strip() for n in named["names"].split(",")], named["type"]) if named else ([], entry))
    return out


def _field_type(
    resolver: CallResolver, struct: sqlite3.Row, field: str, element: bool = False
) -> tuple[sqlite3.Row | None, bool]:
    """The type of a struct's named field, as the struct's file names it (`store *Store`, `db *sql.DB`), or with
    `element`, of an element of it (`flags []*Flag`, `formal map[string]*Flag`), and whether it is another
    module's; (None, False) where the index cannot say (a collection, a promoted field)."""
    written = next(  # a named field, or an embedded one, which Go names by its type (`w.ResponseWriter`)
        (w for names, w in _fields(struct) if field in names or (not names and _embedded_name(w) == field)), None
    )
    if element and written is not None:
        collection = _COLLECTION.fullmatch(written)
        written = collection["element"] if collection is not None else None
    typed = _TYPE_NAME.fullmatch(written) if written is not None else None
    if typed is None:
        return None, False
    found = _named(resolver, struct["path"], typed["name"])
    return found, found is None and _outside(resolver, struct["path"], typed["name"])


def _result_type(resolver: CallResolver, value_type: sqlite3.Row, name: str) -> tuple[sqlite3.Row | None, bool]:
    """The type of what a type's method returns (its first result, as its file names it), and whether it is
    another module's; (None, False) where the index cannot say."""
    method = resolver.symbol(_method(resolver, value_type, name, 0)[0])
    written = _first_result(method["returns"] or "") if method is not None else None
    if method is None or written is None:
        return None, False
    found = _named(resolver, method["path"], written)
    return (_type_of(resolver, found) if found is not None else None), found is None and _outside(
        resolver, method["path"], written
    )


def _embedded_name(written: str) -> str:
    """The name Go gives an embedded field: its type's, without package or pointer (`*http.Request`: Request)."""
    return written.lstrip("*").rpartition(".")[2]


def _outside(resolver: CallResolver, path: str, written: str) -> bool:
    """Whether a type a file names (`http.ResponseWriter`) is another module's: its import resolves to none
    of the repository's files."""
    package = written.rpartition(".")[0]
    return bool(package) and any(i["target"] is None for i in _imports_as(resolver, path, package))


def _imports_as(resolver: CallResolver, path: str, package: str) -> list[sqlite3.Row]:
    """A file's imports that its code names `package` (by Go's name for the import's path)."""
    return [i for i in go_imports(resolver, path) if go_import_name(i["module"]) == package]


def package_symbols(resolver: CallResolver, folder: str) -> dict[str, sqlite3.Row]:
    """A Go package's symbols by qualified name: every `.go` file of the folder (its own code over its
    tests' where both define a name)."""
    if folder not in resolver.go_packages:
        prefix = f"{folder}/" if folder else ""
        rows = resolver.conn.execute(
            f"SELECT {RESOLVER_COLUMNS} FROM symbols"
            " WHERE path >= ? AND path < ? AND path LIKE '%.go' AND (? OR path NOT LIKE '%/%')"
            " ORDER BY path LIKE '%\\_test.go' ESCAPE '\\' DESC, id DESC",
            (prefix, f"{prefix}\U0010ffff", bool(folder)),
        )
        resolver.go_packages[folder] = {r["qualname"]: r for r in rows if r["path"].rpartition("/")[0] == folder}
    return resolver.go_packages[folder]


def _type_of(resolver: CallResolver, symbol: sqlite3.Row, hops: int = 0) -> sqlite3.Row | None:
    """The type of the value a top-level name gives: a type's own (`T{}`, `T(x)`), a function's first
    result (`*FlagSet` in `(*FlagSet, error)`), a variable's declared type or its value's
    (`var CommandLine = NewFlagSet(...)`, `var ErrX = &Error{...}`)."""
    if symbol["kind"] in _TYPES or hops > 2:
        return symbol if symbol["kind"] in _TYPES else None
    written = _written_type(symbol)
    named = _named(resolver, symbol["path"], written) if written else None
    return _type_of(resolver, named, hops + 1) if named is not None else None


def _written_type(symbol: sqlite3.Row) -> str | None:
    """The type a function's first result or a variable's declaration names, as its file writes it."""
    if symbol["kind"] == "function":
        return _first_result(symbol["returns"] or "")
    if symbol["kind"] in ("variable", "const"):
        signature = symbol["signature"] or ""
        # not `time.Unix(0, 0).UTC()`, whose value is the last call's
        match = _VAR_HEAD.match(_DECLARES.sub("", signature)) if ")." not in signature else None
        return (match["declared"] or match["value"]) if match else None
    return None


def _first_result(results: str) -> str | None:
    """`FlagSet` of `*FlagSet`, `(*FlagSet, error)` or `(fs *FlagSet, err error)`; None for a slice, a map,
    a function or a channel, whose methods are none of the repository's."""
    results = results.strip()
    if results.startswith("("):
        results = results[1:].split(",", 1)[0].rstrip(")")
    written = _RESULT_NAME.sub("", results.strip()).lstrip("*").split("[", 1)[0]
    return written if re.fullmatch(r"\w+(\.\w+)?", written) else None


def _named(resolver: CallResolver, path: str, written: str) -> sqlite3.Row | None:
    """A top-level name as a file of its package writes it: `FlagSet` in the package, `pflag.FlagSet` in the
    package the file imports under that name."""
    package, _, name = written.rpartition(".")
    folder = path.rpartition("/")[0]
    if package:
        imp = next((i for i in _imports_as(resolver, path, package) if i["target"]), None)
        if imp is None:
            return None
        folder = imp["target"].rpartition("/")[0]
    found = package_symbols(resolver, folder).get(name)
    return found if found is not None and go_top_level(found) else None


# --- interfaces: which types' methods a call of an interface's method may run --------------------------


def implemented(resolver: CallResolver, owner: sqlite3.Row, name: str) -> set[str]:
    """The methods named `name` of the repository's interfaces that a Go type implements, as Go decides it:
    every method of the interface (its embedded interfaces' included) is one of the type's (its own or
    promoted from what it embeds). A call of one of them may run the type's method of that name."""
    have = _method_set(resolver, owner, 0)
    if name not in have:
        return set()
    found = set()
    for methods in _interface_methods(resolver).values():
        if methods is not None and name in methods and methods.keys() <= have:
            found.add(methods[name])
    return found


def _interface_methods(resolver: CallResolver) -> dict[str, dict[str, str] | None]:
    """Every Go interface of the repository (by id) with its methods (name: the declaration's id), those of
    the repository's interfaces it embeds included; None for a constraint (`~int | ~string`), which types no
    value, and for `interface{}`. Another module's interface embedded (`http.Handler` in chi's Router) adds
    methods the index cannot list: a type is asked only for the ones it can (chi's Mux, for Router's Get)."""
    if resolver.go_interfaces is None:
        interfaces = resolver.conn.execute(
            f"SELECT {RESOLVER_COLUMNS} FROM symbols WHERE kind = 'interface' AND path LIKE '%.go'"
        ).fetchall()
        declared: dict[str, dict[str, str]] = {i["id"]: {} for i in interfaces}
        for method in resolver.conn.execute(
            "SELECT m.id, m.name, m.parent FROM symbols m JOIN symbols i ON m.parent = i.id"
            " WHERE i.kind = 'interface' AND i.path LIKE '%.go' AND m.kind = 'method'"
        ):
            declared[method["parent"]][method["name"]] = method["id"]
        by_id = {i["id"]: i for i in interfaces}
        resolver.go_interfaces = {i["id"]: _with_embedded(resolver, by_id, declared, i, 0) for i in interfaces}
    return resolver.go_interfaces


def _with_embedded(
    resolver: CallResolver,
    by_id: dict[str, sqlite3.Row],
    declared: dict[str, dict[str, str]],
    interface: sqlite3.Row,
    hops: int,
) -> dict[str, str] | None:
    methods = dict(declared[interface["id"]])
    for _, written in _fields(interface):
        if _CONSTRAINT.search(written):
            return None
        embedded = _named(resolver, interface["path"], written)
        if embedded is not None and embedded["id"] in by_id and hops < MAX_FIELDS:
            methods = {**(_with_embedded(resolver, by_id, declared, by_id[embedded["id"]], hops + 1) or {}), **methods}
    return methods or None


def _method_set(resolver: CallResolver, owner: sqlite3.Row, hops: int) -> frozenset[str]:
    """The names of a Go type's methods: its own and those promoted from the types it embeds."""
    key = owner["id"]
    if key not in resolver.go_method_sets:
        prefix = f"{owner['qualname']}."
        package = package_symbols(resolver, owner["path"].rpartition("/")[0])
        names = {s["name"] for q, s in package.items() if q.startswith(prefix) and s["kind"] == "method"}
        for field_names, written in _fields(owner) if owner["kind"] == "struct" and hops < MAX_FIELDS else []:
            base = None if field_names else _named(resolver, owner["path"], written.lstrip("*"))
            if base is not None and base["kind"] in _TYPES and base["id"] != owner["id"]:
                names |= _method_set(resolver, base, hops + 1)
        resolver.go_method_sets[key] = frozenset(names)
    return resolver.go_method_sets[key]
