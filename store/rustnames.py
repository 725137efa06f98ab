"""What Rust's rules all look up: the Rust symbols of a name, the type a method belongs to, the type a name written
in a file is, whether a file brings a function's name in; the caches those reads fill, a call site, and the
patterns of a call's text that store/rustcalls.py (the basis of a call) and store/rusttypes.py (the type of a
value) both read. Those two and store/rusttraits.py (the calls through a standard trait) build on these, so they
live below all three: none imports another in a circle.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .symbol import RESOLVER_COLUMNS

if TYPE_CHECKING:
    from .resolver import CallResolver
    from .symbol import SymbolRow

    _Symbol = SymbolRow | sqlite3.Row  # a symbol as the call graph holds it, or a row of `symbols_named`

TURBOFISH = re.compile(r"::<.*?>")
GENERIC = re.compile(r"^[A-Z][A-Z0-9]?$")  # `T::default()`, `B::from(x)`: a type parameter, any type
# A call's result, the value a method is called on: `Conn::new(io)`, `self.conn()?`, `req.body().await`
CALL_RESULT = re.compile(r"\)(?:\?|\.await)*$")
TYPE_KINDS = frozenset({"struct", "enum", "union", "trait", "type"})  # the kinds of symbol defining a type
_MODULE_NAME = re.compile(r"^[a-z_][a-z0-9_]*$")  # `watch`, `mpsc`: a module's name as Rust writes one
_CRATE_SOURCE = re.compile(r"^(?P<source>(?:.*/)?src)/.+\.rs$")  # tokio/src/io/mod.rs: tokio/src
_CRATE_ROOT = re.compile(r"(?:^|/)(?P<crate>[^/]+)/src/(?:lib|main)\.rs$")  # actix-test/src/lib.rs: actix_test
REFERENCE = re.compile(r"^&\s*(?:'\w+\s+)?(?:mut\s+)?")  # `&'a mut `: what a reference's type starts with
ALTERNATIVES = " | "  # between the types a local is bound to where a function binds its name more than once
_BUILTIN_PATHS = frozenset({"std", "core", "alloc", "crate", "super", "self"})  # what a path may start with in any file


@dataclass
class RustCaches:
    """What Rust's rules read more than once, held as long as the call resolver holding them."""

    impls: dict[str, set[str]] | None = None  # a type's traits, by its impls
    named: dict[str, list[sqlite3.Row]] = field(default_factory=dict)  # the Rust symbols of a name
    owners: dict[str, set[str | None]] = field(default_factory=dict)  # the types holding a method of a name
    params: dict[str, dict[str, str]] = field(default_factory=dict)  # a function's parameters' types
    written: dict[tuple[str, str, str], str | None] = field(default_factory=dict)  # a call's receiver's type
    # callgraph._of_other_types: a name's call sites by the type their qualifier names (called_type), and its bare ones
    sites_by_type: dict[str, tuple[dict[str, list[int]], list[int]]] = field(default_factory=dict)
    running: dict[tuple[str, str, str], set[str]] = field(default_factory=dict)  # rusttraits: the impls a value runs
    implementing: dict[str, tuple[str, str | None] | None] = field(default_factory=dict)  # a method's type and trait
    crates: frozenset[str] | None = None  # the names a path may start with as a crate (`_crates`)
    modules: frozenset[str] | None = None  # the names of the project's modules (`_our_modules`)
    files: frozenset[str] | None = None  # the Rust files of the index (`module_file`)
    # rusttraits: whose implementations a call through a trait runs, by its site and trait
    trait_sites: dict[tuple[str, str | None, str | None, str], tuple[frozenset[str], frozenset[str], bool]] = field(
        default_factory=dict
    )


@dataclass(frozen=True)
class Site:
    """A call by the symbol's name: the calling file, the calling symbol (None at the top level), what qualifies
    the call, whether the calling file imports the symbol's file, and the type its one argument is, where the
    syntax says (indexer/parsing/rustfields.argument_type: `&str`, `Vec`, `=v` for a name)."""

    path: str
    caller: str | None
    qualifier: str | None
    imports: bool
    argument: str | None = None


def symbols_named(resolver: CallResolver, name: str) -> list[sqlite3.Row]:
    """The Rust symbols of a name, by id, read once per answer."""
    if name not in resolver.rust.named:
        resolver.rust.named[name] = resolver.conn.execute(
            f"SELECT {RESOLVER_COLUMNS} FROM symbols WHERE name = ? AND path LIKE '%.rs' ORDER BY id", (name,)
        ).fetchall()
    return resolver.rust.named[name]


def defines_type(resolver: CallResolver, name: str) -> bool:
    """Whether the project defines a type of that name (a Vec or a `[u8]` is the standard library's)."""
    return any(row["kind"] in TYPE_KINDS for row in symbols_named(resolver, name))


def owner_type(symbol: _Symbol | sqlite3.Row | None) -> str | None:
    """The type a Rust method belongs to, as its impl names it (`Conn`, `[u8]`, `dyn Io + Send`), or the trait
    declaring it; None for a function."""
    if symbol is None or symbol["kind"] != "method":
        return None
    holder = symbol["qualname"].rpartition(".")[0]
    return holder.rpartition(".")[2] if holder else None


def imported_type(resolver: CallResolver, path: str, type_name: str) -> str:
    """The type a name written in the file is: the one it imports as that name (`use ...::TestRequest as
    HttpTestRequest;`), else the name."""
    imported = resolver.import_index(path)[0].get(type_name)
    return imported[2] if imported is not None and imported[0] == "named" else type_name


def imports_name(resolver: CallResolver, path: str, symbol: _Symbol) -> bool:
    """Whether the file brings the function's name in: `use crate::util::check;`, or a glob of its module."""
    by_name, stars, _ = resolver.import_index(path)
    found = by_name.get(symbol["name"])
    return (found is not None and found[1] == symbol["path"]) or symbol["path"] in stars


def path_qualifier(qualifier: str | None) -> tuple[str | None, bool]:
    """A Rust call's qualifier and whether the call is written as a path: the extractor keeps a path's `::` at its end
    (`io::copy(r, w)`: `io::`, `proto::Conn::new(io)`: `proto::Conn::`), a value's never (`buf.copy()`: `buf`,
    `ParseError::Incomplete.into()`). Rust's syntax says which it is: a module or a type is never a value, and no
    value is a path."""
    if qualifier is not None and qualifier.endswith("::"):
        return qualifier[:-2], True
    return qualifier, False


def module_name(path: str) -> str:
    """The module a Rust file is: src/body/mod.rs and src/body.rs are body (a crate root's, lib.rs's or main.rs's,
    is its folder's name, which no `use` or path names)."""
    folder, _, name = path.rpartition("/")
    stem = name.rpartition(".")[0]
    return folder.rpartition("/")[2] if stem in ("mod", "lib", "main") else stem


def imported_module(resolver: CallResolver, path: str, qualifier: str | None) -> str | None:
    """The file of the module a call's qualifier is, where the calling file imports it as a module of ours (a
    Rust `use crate::shapes::circle;` or `square as sq`: the module file is named as the name it imports)."""
    if not qualifier or not qualifier.isidentifier():
        return None
    found = resolver.import_index(path)[0].get(qualifier)
    if found is None or found[0] != "named":
        return None
    target, name = found[1], found[2]
    return target if name == module_name(target) else None


def module_file(resolver: CallResolver, path: str, modules: list[str]) -> str | None:
    """The file of the module a path starting at `crate`, `super` or `self` names from the Rust file `path`:
    `super::swar` from src/simd/avx2.rs is src/simd/swar.rs, `crate::proto::h1` src/proto/h1/mod.rs (or
    src/proto/h1.rs); None where no file of the index is that module (an inline `mod x { ... }`, a `#[path]`), or
    `path` is no file of a crate's src/ (a test or an example is a crate of its own)."""
    if resolver.rust.files is None:
        rows = resolver.conn.execute("SELECT path FROM files WHERE path LIKE '%.rs'")
        resolver.rust.files = frozenset(row[0] for row in rows)
    found = _CRATE_SOURCE.match(path)
    if found is None or not modules or modules[0] not in ("crate", "super", "self"):
        return None
    folder, _, name = path.rpartition("/")
    stem = name.removesuffix(".rs")
    here = folder if stem in ("mod", "lib", "main") else f"{folder}/{stem}"  # where the module's own modules are
    file: str | None = path
    for segment in modules:
        if segment == "crate":
            here, file = found["source"], None
        elif segment == "super":
            if here == found["source"]:
                return None  # above the crate's root
            here, file = here.rpartition("/")[0], None
        elif segment != "self":
            file = _indexed(resolver.rust.files, f"{here}/{segment}.rs", f"{here}/{segment}/mod.rs")
            if file is None:
                return None
            here = f"{here}/{segment}"
    if file is None:  # the path ends at a module above this file's: its mod.rs, lib.rs or main.rs
        file = _indexed(resolver.rust.files, f"{here}/mod.rs", f"{here}/lib.rs", f"{here}/main.rs", f"{here}.rs")
    return file


def _indexed(files: frozenset[str], *candidates: str) -> str | None:
    """The first of the candidate files the index has."""
    return next((f for f in candidates if f in files), None)


def module_basis(resolver: CallResolver, module: str, symbol: _Symbol) -> str | None:
    """The basis of a call qualified by a module the file imports (`imported_module`): `circle::area` after `use
    crate::shapes::{circle, square}` is circle.rs's area, never square.rs's, nor a method of a value named circle;
    a name the module only re-exports may still be this one, as a guess."""
    if module == symbol["path"]:
        return "imported name"
    return None if symbol["name"] in resolver.symbols_of(module) else "name only"


def binds_module(resolver: CallResolver, path: str, name: str) -> bool:
    """Whether the Rust file brings a lowercase `name` in as a module or a crate: `use futures_channel::mpsc;`, `mod
    tests;`, `extern crate test;`."""
    if not _MODULE_NAME.match(name):
        return False
    return any(
        (imp["kind"] == "use" and imp["bound"] == name)
        or (imp["kind"] in ("mod", "extern_crate") and imp["module"] == name)
        for imp, _ in resolver.imported_names(path)
    )


def names_a_module(resolver: CallResolver, path: str, name: str) -> bool:
    """Whether a one-word qualifier may be a module or a crate in the Rust file `path`: one the file brings in or
    declares (`binds_module`, an inline `mod date { ... }`, a module of a file it glob-imports), a crate some `use`
    of the project starts with that is no module of ours (`use http::HeaderMap;`: http), a crate of the workspace
    (actix-test/src/lib.rs: actix_test), std, core, alloc, or `crate::`, `super::` and `self::`.
    Any other word a path starts with is a crate of others that Rust's extern prelude gives: tokio-util's tests call
    `loom::model(f)`, the crate loom's, and tokio's own module loom is out of their reach."""
    if binds_module(resolver, path, name) or name in _crates(resolver) or name in _BUILTIN_PATHS:
        return True
    # its own inline `mod date { ... }`, or one a glob brings in: `use crate::fs::mocks::*;`, mocks.rs's `mod pool`
    globbed = [imp["target"] for imp, names in resolver.imported_names(path) if "*" in names and imp["target"]]
    return any(_declares_module(resolver, file, name) for file in [path, *globbed])


def _declares_module(resolver: CallResolver, path: str, name: str) -> bool:
    """Whether the Rust file has a module of that name: an inline `mod name { ... }`, or `mod name;`."""
    found = resolver.symbols_of(path).get(name)
    if found is not None and found["kind"] == "module":
        return True
    return any(imp["kind"] == "mod" and imp["module"] == name for imp, _ in resolver.imported_names(path))


def _crates(resolver: CallResolver) -> frozenset[str]:
    """The crates a path may start with wherever it is written (beside _BUILTIN_PATHS): the first names of the
    project's `use` paths that are no module of ours (a `use runtime::Builder;` beside `mod runtime;` starts with the
    module), and the workspace's crates as paths name them by their folders (actix-test/src/lib.rs: actix_test). A
    module of ours is one only where the file brings it in or declares it (`names_a_module`)."""
    if resolver.rust.crates is None:
        used = resolver.conn.execute("SELECT DISTINCT module FROM imports WHERE path LIKE '%.rs' AND kind != 'mod'")
        firsts = {str(module).split("::")[0] for (module,) in used} - _our_modules(resolver) - {""}
        files = resolver.conn.execute("SELECT path FROM files WHERE path LIKE '%.rs'")
        members = {m["crate"].replace("-", "_") for (file,) in files if (m := _CRATE_ROOT.search(file))}
        resolver.rust.crates = frozenset(firsts - _BUILTIN_PATHS | members)
    return resolver.rust.crates


def _our_modules(resolver: CallResolver) -> frozenset[str]:
    """The names of the project's Rust modules: its files' (src/body/mod.rs: body) and its inline `mod x { ... }`."""
    if resolver.rust.modules is None:
        files = resolver.conn.execute("SELECT path FROM files WHERE path LIKE '%.rs'")
        inline = resolver.conn.execute("SELECT name FROM symbols WHERE kind = 'module' AND language = 'rust'")
        resolver.rust.modules = frozenset({module_name(p) for (p,) in files} | {n for (n,) in inline})
    return resolver.rust.modules
