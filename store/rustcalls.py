"""Rust's rules for what a call names, which the call graph (store/callgraph.py) follows for Rust files.

The index keeps no refs for Rust, so a call is known by its name and what qualifies it, written as a path
(`io::copy(r, w)`: `io::`) or a value (`buf.copy()`: `buf`, rustnames.path_qualifier), and Rust says a good deal
with that alone:
- `Conn::new(io)` calls a `new` of a type named Conn, never Decoder's beside it, nor any of ours for
  `Vec::new()`; named by a trait (`Default::default()`), of any type implementing it; a generic `T::new()`
  may be any type's. Of a type's methods of one name, its own (inherent) one, or the one of two `#[cfg]`'d twins
  an ordinary build has; where several impls of a trait remain (`From<Vec<u8>>`, `From<String>`), each a guess.
- `Self::check(x)` and `self.len()` in an `impl Point` call Point's own; where Point has none of that name,
  a trait's Point implements, and in a trait's provided method, each implementation of the trait's own.
- `body::to_bytes(b)` calls a function of the module body (or one a module re-exports: a guess), never the
  function of that name another module of ours defines, nor any method; `super::swar::f(b)` and `crate::a::f()`
  the function of that file (rustnames.module_file).
- `check()` calls a function, never a method: the file's own, or one it brings in by name or by a glob.
  `pub mod shape;` declares a module; it brings none of shape's names in.
- A function is never called on a value (`conn.f()`). A method called on a value the code declares a type
  is that type's, as `proto::Conn::poll(conn)` would be: a parameter (`conn: &mut proto::Conn<T>`, or
  `Arc<Conn>`, which hands Conn's methods on), a local (indexer/parsing/rustfields.py: `let conn =
  proto::Conn::new(io);`), a field of the calling method's struct (`self.io` with `io: Buffered<T>`), or a
  call's result as its method declares it (`Frame::make().edge()`: `-> Self`, then `-> &Square`). A
  value known by traits (`svc: S` with `S: HttpService<B>`, `impl Read`, `dyn Io`) calls a trait's method,
  and each implementation of a trait of ours may run (`through an interface`), never an inherent method.
  A value of a type that derefs to another calls its own type's method first. On any other value, whose type
  the index does not know, a method of ours is the nearest one, but a guess where the standard library has a
  method of that name (`rest.is_empty()`). What type a value is declared is store/rusttypes.py's to read.
- A literal's method is its type's: `"%".fmt(f)` and `"gitdir: ".len()` are str's, none of ours, unless a
  trait of ours is implemented for str (axum's `"OK".into_response()`). Calls on a literal that the call
  graph took for one of ours, before and after: actix-web 48 -> 22 (the rest are chains, `"x".parse().unwrap()`,
  whose result's type is not known), hyper 37 -> 1, ripgrep 8 -> 0, axum 12 -> 1.
The calls Rust makes through a standard trait (`a == b`, `format!("{}", v)`) are store/rusttraits.py's.
The lookups these rules share with rusttypes and rusttraits (a name's symbols, a method's type) are
store/rustnames.py's.
"""

from __future__ import annotations

import functools
import json
import re
import sqlite3
from dataclasses import replace
from importlib import resources
from typing import TYPE_CHECKING

from .gocalls import THROUGH_INTERFACE
from .rustcfg import builds
from .rustnames import (
    CALL_RESULT,
    GENERIC,
    REFERENCE,
    TURBOFISH,
    TYPE_KINDS,
    Site,
    defines_type,
    imported_module,
    imported_type,
    imports_name,
    module_basis,
    module_file,
    module_name,
    names_a_module,
    owner_type,
    path_qualifier,
    symbols_named,
)
from .rusttypes import bound_traits, declared_type, literal_type, parameters, type_path, variant_of

if TYPE_CHECKING:
    from .resolver import CallResolver
    from .symbol import SymbolRow

    _Symbol = SymbolRow | sqlite3.Row  # a symbol as the call graph holds it, or a row of `symbols_named`

_OWN = frozenset({"self", "Self"})
# `self.io`, `self.conn.io`, `conn.io`: a value's fields, followed by the types they are declared (three at most)
_FIELD_PATH = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*){1,3}$")
# `proto::Conn`, `Vec::<u8>`, `::itoa::Buffer`: a path, not a value (`self.state`, `Foo::new()`)
_PATH = re.compile(r"^(?:::)?[A-Za-z_]\w*(?:::<.*?>)?(?:::[A-Za-z_]\w*(?:::<.*?>)?)*$")
_TYPE_NAME = re.compile(r"^[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*$")  # Conn, HttpService; not LOG or HTTP_10
_IMPL = re.compile(r"(?:^|\.)impl (?:(?P<trait>.+) for )?(?P<type>.+)$")
_ALIAS = re.compile(r"=\s*(?:[\w:]*::)?(?P<name>\w+)\s*(?:<.*)?$", re.S)  # `type Conn = proto::h1::Conn<T>`
_MODULE_WORDS = frozenset({"crate", "super", "self"})
_QUALIFIED = re.compile(r"^<\s*(?P<type>.+?)\s+as\s+[\w:]+\s*(?:<.*>)?\s*>$", re.S)  # `<[u8] as PartialOrd<[u8]>>`
# Of the symbols a call may be, the one on the best basis (callgraph.BASIS_ORDER, which imports this module)
RANK = {"same file": 0, "method": 0, "imported name": 0, THROUGH_INTERFACE: 1, "name only": 2}


def rust_basis(
    resolver: CallResolver,
    path: str,
    caller: str | None,
    qualifier: str | None,
    symbol: _Symbol,
    imports_it: bool,
    argument: str | None = None,
) -> str | None:
    """The basis of a call by the symbol's name in the Rust file `path`, made in `caller` (its id; None at the
    top level), passing one argument of the type `argument` says (Site.argument); None where Rust's rules say it
    cannot be this symbol."""
    written, as_path = path_qualifier(qualifier)
    site = Site(path, caller, written, imports_it, argument)
    owner = owner_type(symbol)
    if written is None:  # `check()`: a function in scope, never a method
        if owner is not None or (path != symbol["path"] and symbol["name"] in resolver.symbols_of(path)):
            return None  # ...nor another file's function where the calling file has its own
        runs = may_run(resolver, symbol)  # bytes' `ptr_map` under `#[cfg(miri)]` and `#[cfg(not(miri))]`
        if symbol["id"] not in runs:
            return None
        return "name only" if len(runs) > 1 else _nearest(site, symbol, imported=imports_name(resolver, path, symbol))
    if (written, as_path) in (("self", False), ("Self", True)):  # `self.len()`, `Self::check(x)`
        return _own_call(resolver, site, symbol, owner)
    if as_path:
        return _path_call(resolver, site, symbol, owner)
    if owner is None:
        return None  # a function is never called on a value
    if _FIELD_PATH.match(written) or CALL_RESULT.search(written) or variant_of(resolver, site, written):
        # `self.io.flush()`, `Conn::new(io).poll()`, `ParseError::Incomplete.into()`: the value's type's method
        return _value_call(resolver, site, symbol, owner)
    if (literal := literal_type(written)) is not None:  # `"%".fmt(f)`: str's, ours only by a trait for str
        return _type_call(resolver, replace(site, qualifier=literal), literal, symbol, owner)
    if not _PATH.match(written):  # `(a, b).poll()`, `xs[0].poll()`: a value's method, its type unknown
        return _unknown_value(site, symbol)
    last = TURBOFISH.sub("", written).rpartition("::")[2]
    if GENERIC.match(last):
        return "name only"
    if _TYPE_NAME.match(last):  # `Marker.check()`: a unit struct's value
        return _type_call(resolver, site, last, symbol, owner)
    return _value_call(resolver, site, symbol, owner)  # `conn.poll()`, `crate::CONFIG.get()`


def _path_call(resolver: CallResolver, site: Site, symbol: _Symbol, owner: str | None) -> str | None:
    """`io::copy(r, w)`, `Conn::new(io)`, `crate::common::date::update()`: a module's function, or a type's (or a
    trait's) method. `watch::channel(0)` after `use crate::sync::watch;` is the module's, never a method."""
    written = site.qualifier or ""
    if (module := imported_module(resolver, site.path, written)) is not None:
        return module_basis(resolver, module, symbol) if owner is None else None
    if (qualified := _QUALIFIED.match(written)) is not None and (named := type_path(qualified["type"])) is not None:
        # `<[u8] as PartialOrd<[u8]>>::partial_cmp(a, b)`: the method of that type
        return _type_call(resolver, replace(site, qualifier=named), _last(named), symbol, owner)
    if not _PATH.match(written):  # `<Vec<u8>>::new()`: a type's method, which the index does not read
        return None if owner is None else _nearest(site, symbol)
    last = TURBOFISH.sub("", written).rpartition("::")[2]
    if GENERIC.match(last):
        return None if owner is None else "name only"
    if _TYPE_NAME.match(last) or last == owner:  # `Conn::new`; the C API's `hyper_executor::new()`
        return _type_call(resolver, site, last, symbol, owner)
    if owner is not None:
        return None  # `io::copy(r, w)`: no method of a module
    modules = TURBOFISH.sub("", written).split("::")
    if modules[0] in _MODULE_WORDS and (file := module_file(resolver, site.path, modules)) is not None:
        # `super::swar::match_uri_vectored(b)`: the function of that file, or one it re-exports (a guess)
        if file == symbol["path"]:
            return "same file" if file == site.path else "imported name"
        return None if symbol["name"] in resolver.symbols_of(file) else "name only"
    if "::" not in written and not names_a_module(resolver, site.path, written):
        return None  # `loom::model()` where the file names no module loom: the crate's (Rust's extern prelude)
    return _module_call(resolver, site, last, symbol)


def called_type(resolver: CallResolver, path: str, caller: str | None, qualifier: str | None) -> str | None:
    """The type a Rust call's qualifier says it calls a method of, whichever symbol is asked about: `Conn::new`'s
    Conn (or the type the file imports as Conn), `conn.poll()`'s where `conn: proto::Conn<T>`; None where the
    basis turns on more than the type (a bare call, `self.`, a value of unknown type or of a type handing another's
    methods on). rust_basis gives such a call to no symbol but one `may_name_type` says: the call graph reads
    only those of a name's thousands of sites (tokio's `new`, `poll`)."""
    qualifier, as_path = path_qualifier(qualifier)
    if qualifier is None or qualifier in _OWN:
        return None
    site = Site(path, caller, qualifier, False)
    if not as_path and (
        _FIELD_PATH.match(qualifier) or CALL_RESULT.search(qualifier) or variant_of(resolver, site, qualifier)
    ):
        declared = declared_type(resolver, site)[1]
        if declared is None or _hands_on(resolver, declared_name := declared.rpartition("::")[2]):
            return None
        return imported_type(resolver, path, declared_name)
    if literal_type(qualifier) is not None or not _PATH.match(qualifier):
        return None
    last = TURBOFISH.sub("", qualifier).rpartition("::")[2]
    if GENERIC.match(last) or not _TYPE_NAME.match(last):
        return None
    return imported_type(resolver, path, last)


def may_name_type(resolver: CallResolver, type_name: str, owner: str) -> bool:
    """Whether a call of a method of `type_name` (as `imported_type` reads it) may be one of `owner`'s: the type
    itself, a trait it implements, an alias of it, or a trait it is (a provided method called on its
    implementor)."""
    return (
        owner == type_name
        or type_name in traits_of(resolver, owner)
        or owner in _aliased(resolver, type_name)
        or owner in traits_of(resolver, type_name)
    )


def _value_call(resolver: CallResolver, site: Site, symbol: _Symbol, owner: str) -> str | None:
    """`conn.poll()`, `self.io.flush()`: a method of the type the value is declared, as `proto::Conn::poll(conn)`
    would be, where the code says it; a trait's method where it is declared a type parameter bound by traits
    or `impl`/`dyn` traits; else the guess it was."""
    written, declared = declared_type(resolver, site)
    if declared is None:
        traits = bound_traits(resolver, site.caller, written) if written and site.caller else []
        return _trait_call(resolver, traits, symbol, owner) if traits else _unknown_value(site, symbol)
    declared_name = declared.rpartition("::")[2]
    if _hands_on(resolver, declared_name) and not _has_member(resolver, declared_name, symbol["name"]):
        # Rust looks a method up on the value's own type (its impls, trait impls too) before the type it derefs to:
        # semver's Prerelease derefs to str, and `pre.is_empty()` is Prerelease's own
        return _unknown_value(site, symbol)
    typed = replace(site, qualifier=declared)
    return _type_call(resolver, typed, declared_name, symbol, owner)


def _hands_on(resolver: CallResolver, type_name: str) -> bool:
    """Whether a type of ours hands another's methods on (implements Deref): a call on its value may be either's."""
    return bool({"Deref", "DerefMut"} & traits_of(resolver, type_name))


def _trait_call(resolver: CallResolver, traits: list[str], symbol: _Symbol, owner: str) -> str | None:
    """A call on a value known by the traits it implements: a method one of them declares, or each implementation
    of it (`through an interface`, where the trait is ours); never an inherent method of some type."""
    if owner in traits:
        return "method"
    implemented = impl_trait(resolver, symbol)
    if implemented in traits:  # each implementation of a trait of ours; of another's, a guess (`Default`)
        return THROUGH_INTERFACE if _is_trait(resolver, implemented) else "name only"
    if implemented is None and not _is_trait(resolver, owner):
        return None  # an inherent method is never called through a trait
    return "name only"  # another trait's, perhaps one these extend


def _own_call(resolver: CallResolver, site: Site, symbol: _Symbol, owner: str | None) -> str | None:
    """`Self::check(x)`, `self.len()`: the calling method's type's own, or what a trait gives it."""
    if owner is None:
        return None  # a function is neither `Self::f()` nor `self.f()`
    calling_row = resolver.symbol(site.caller)
    calling = owner_type(calling_row)
    if calling_row is None or calling is None:
        return "name only"  # `self` in a closure's function, or at the top level
    if owner == calling:
        if site.path == symbol["path"]:
            return "same file"
        holder = calling_row["qualname"].rpartition(".")[0]
        if f"{holder}.{symbol['name']}" in resolver.symbols_of(site.path):
            return None  # the calling file's own type's method: http1.rs's SendRequest is not http2.rs's
        return "method" if _defined_once(resolver, calling) else "name only"
    if impl_trait(resolver, symbol) == calling:
        # A trait's provided method calling another of the trait's: each implementation's, whether the trait requires
        # it or provides it too (actix-web's provided `error_response` calls `self.status_code()`, which UrlencodedError
        # overrides)
        return THROUGH_INTERFACE
    if _has_member(resolver, calling, symbol["name"]):
        return None  # the type's own method of that name
    if owner in traits_of(resolver, calling):
        return "method"  # a trait's provided method, which the type does not override
    return "name only"


def _type_call(resolver: CallResolver, site: Site, type_name: str, symbol: _Symbol, owner: str | None) -> str | None:
    """`Conn::new(io)`: a method of a type (or of a trait) of that name, or of the type the file imports as that
    name (`use actix_http::test::TestRequest as HttpTestRequest;`)."""
    written, type_name = type_name, imported_type(resolver, site.path, type_name)
    if owner is None or not may_name_type(resolver, type_name, owner):
        return None
    if owner == type_name:
        runs = may_run(resolver, symbol, argument=argument_base(resolver, site))
        if symbol["id"] not in runs:
            return None
        if len(runs) > 1:
            return "name only"
        bare = "::" not in TURBOFISH.sub("", site.qualifier or "")  # `Conn::`, not `proto::Conn::`
        if bare and site.path != symbol["path"] and _defines(resolver, site.path, written):
            # The calling file's own type of that name: another file's method is one of its own only where that
            # file's impl takes the type from the calling file (semver's `impl FromStr for Version` in parse.rs,
            # after `use crate::Version;`, is what lib.rs's `Version::from_str(text)` calls).
            return "imported name" if _takes_type_from(resolver, symbol["path"], written, site.path) else None
        return _nearest(site, symbol, imported=_imports_type(resolver, site, symbol))
    if type_name in traits_of(resolver, owner) or owner in _aliased(resolver, type_name):
        return "name only"  # `Default::default()`, `Service::call(&mut s, req)`; `ClientTransaction::new()` of an alias
    # a trait's provided method, called on a Conn
    return None if _has_member(resolver, type_name, symbol["name"]) else "method"


def may_run(
    resolver: CallResolver, symbol: _Symbol, trait: str | None = None, argument: str | None = None
) -> list[str]:
    """Of the methods of the symbol's name its type has (the symbol's id among them), those a call of that name on
    the type may run: its inherent method alone, which Rust looks up before any trait's; where there is none, each,
    as the call turns on its arguments' types (bytes' `impl From<Vec<u8>> for Bytes` beside `impl From<String> for
    Bytes`: `Bytes::from(v)`), which the index does not read, or on the build (one method under two `#[cfg]`s: the one
    an ordinary build has, store/rustcfg.py, where its cfgs say).
    rustc's IR (bench/facts_calls_rust.py) had the index name the first, and it was wrong 74 times of bytes' 202.
    With `trait`, its impls of that trait only (`a == b` of a type with `PartialEq<[u8]>` and `PartialEq<str>`). Of a
    function, the file's functions of its qualified name: the same function under two cfgs."""
    owner = owner_type(symbol)
    one_type = owner is not None and _defined_once(resolver, owner)  # else another file's may be another type's
    twins = [
        row
        for row in symbols_named(resolver, symbol["name"])
        if owner_type(row) == owner
        and (one_type or (row["path"] == symbol["path"] and row["qualname"] == symbol["qualname"]))
        and row["kind"] == symbol["kind"]
        and (trait is None or impl_trait(resolver, row) == trait)
    ]
    twins = [row for row in twins if builds(row["decorators"]) is not False] or twins  # `#[cfg(loom)]`'s: not built
    inherent = [row["id"] for row in twins if impl_trait(resolver, row) is None]
    if len(inherent) == 1:
        return inherent
    if argument is None:
        return [row["id"] for row in twins]
    taking = {row["id"]: _parameter_base(resolver, row["id"]) for row in twins}
    fitting = [symbol_id for symbol_id, taken in taking.items() if taken == argument]
    if not fitting and None not in taking.values() and owner is not None and not defines_type(resolver, owner):
        return []  # `vec == bs[..]` with only `impl PartialEq<Bytes> for Vec<u8>` of ours: Vec's own impl runs
    return fitting if len(fitting) == 1 else [row["id"] for row in twins]


def argument_base(resolver: CallResolver, site: Site) -> str | None:
    """The type the call's one argument is (Site.argument), a name's as the code declares it, as _base reads it."""
    if site.argument is None:
        return None
    references = len(site.argument) - len(site.argument.lstrip("&"))
    if site.argument[references:].startswith("="):  # `Bytes::from(v)`: v's type, a parameter's or a local's
        written = declared_type(resolver, replace(site, qualifier=site.argument[references + 1 :]))[0]
        return _base("&" * references + written) if written else None
    return _base(site.argument)


def _parameter_base(resolver: CallResolver, function: str) -> str | None:
    """The type of a function's first parameter but `self`, as _base reads it: `fn from(vec: Vec<u8>) -> Bytes`: Vec."""
    taken = [written for name, written in parameters(resolver, function).items() if name != "self"]
    return _base(taken[0]) if taken else None


def _base(written: str) -> str | None:
    """What a type is named by, behind its references, for matching an argument to a parameter: `&'static [u8]` and
    `&[_]` a reference to a slice (`&[]`), `Vec<u8>` Vec, `&str` &str; None for a type parameter or a type with no name
    (`impl Buf`, a tuple)."""
    text, references = written.strip(), ""
    while (found := REFERENCE.match(text)) is not None and found.end():
        text, references = text[found.end() :].strip(), references + "&"
    if text.startswith("["):
        return references + "[]"
    name = text.partition("<")[0].strip().rpartition("::")[2]
    if not name or GENERIC.match(name) or not name.isidentifier() or name in ("dyn", "impl"):
        return None
    return references + name


def _module_call(resolver: CallResolver, site: Site, module: str, symbol: _Symbol) -> str | None:
    """`body::to_bytes(b)`, `crate::common::date::update()`: a function of that module."""
    if module == module_name(symbol["path"]) or module in _MODULE_WORDS:
        return _nearest(site, symbol)
    if any(
        row["kind"] == "function" and row["path"] != symbol["path"] and module_name(row["path"]) == module
        for row in symbols_named(resolver, symbol["name"])
    ):
        return None  # that module's own function of the name
    return "name only"  # a module re-exporting it (`hyper::body::to_bytes` of body/to_bytes.rs), or not ours


def _unknown_value(site: Site, symbol: _Symbol) -> str:
    """A method called on a value whose type the index does not know: where the standard library has a method of that
    name (`rest.is_empty()`, `iter.next()`), the value may well be of its types, and ours is a guess; else the nearest
    of ours. rustc's IR (bench/facts_calls_rust.py) found such calls of ours named right 107 times and wrong 37 on the
    dev crates, 17 and 41 on the hold-out; of a name the standard library lacks (httparse's `req.parse_request(buf)`)
    they were right. Tried and not kept (2026-12-05): every such call a guess (dev precision .879 of 1,173 against
    .895 of 1,269, recall followed .754 against .804: httparse's `config.allow_spaces(true)` and the like lost)."""
    return "name only" if symbol["name"] in _std_methods() else _nearest(site, symbol)


@functools.cache
def _std_methods() -> frozenset[str]:
    """The names of the standard library's methods (data/rust_std_methods.json, by bench/rust_std_methods.py)."""
    text = resources.files("codeannals.data").joinpath("rust_std_methods.json").read_text("utf-8")
    return frozenset(json.loads(text)["methods"])


def _last(path: str) -> str:
    """A type path's last name (`proto::Conn`: Conn), a slice's whole (`[u8]`)."""
    return path if path.startswith("[") else path.rpartition("::")[2]


def _nearest(site: Site, symbol: _Symbol, *, imported: bool | None = None) -> str:
    """The symbol's own file; then a file importing it (by name where `imported` says, else its file at all);
    else a guess."""
    if site.path == symbol["path"]:
        return "same file"
    return "imported name" if (site.imports if imported is None else imported) else "name only"


def _defines(resolver: CallResolver, path: str, type_name: str) -> bool:
    """Whether the file defines a type of that name (a struct, enum, union, trait or alias; an impl of another
    file's type defines none)."""
    found = resolver.symbols_of(path).get(type_name)
    return found is not None and found["kind"] in TYPE_KINDS


def _imports_type(resolver: CallResolver, site: Site, symbol: _Symbol) -> bool:
    """Whether the qualifier reaches the file defining the method's type through the calling file's imports:
    `Conn` after `use crate::proto::h1::Conn;`, or `proto::Conn` after `use crate::proto;` where proto/mod.rs
    re-exports h1's Conn (the imports' origins, which follow re-exports to the defining file). A method in another
    file's impl of the type (bytes.rs's `impl From<Bytes> for BytesMut`, of bytes_mut.rs's BytesMut) is reached by
    reaching the type: a file importing BytesMut calls it by `BytesMut::from(b)`."""
    if site.imports:
        return True
    reached = _method_files(resolver, symbol)
    *modules, type_name = TURBOFISH.sub("", site.qualifier or "").lstrip(":").split("::")
    if modules and modules[0] in _MODULE_WORDS:  # `crate::proto::h1::Conn`: the file of that module, which defines
        file = module_file(resolver, site.path, modules)  # the type or brings it in
        if file is None:
            return False
        if _defines(resolver, file, type_name):
            return file in reached or _takes_type_from(resolver, symbol["path"], type_name, file)
        return any(
            _binds(imp, names, type_name) and reached & {imp["target"], imp["origin"]}
            for imp, names in resolver.imported_names(file)
        )
    if len(modules) > 1:
        return False  # `a::b::Conn`: a path the imports alone do not follow
    importing = site.path
    if modules:  # `proto::Conn`: the module the file imports as `proto`, and what that module imports as Conn
        bound = resolver.import_index(site.path)[0].get(modules[0])
        if bound is None:
            return False
        importing = bound[1]
    return any(
        _binds(imp, names, type_name) and reached & {imp["target"], imp["origin"]}
        for imp, names in resolver.imported_names(importing)
    )


def _method_files(resolver: CallResolver, symbol: _Symbol) -> set[str]:
    """The files whose import reaches a method: its own, and the file defining its type where one type has the name
    (another file's type of that name may be the one imported)."""
    owner = owner_type(symbol)
    if owner is None or not _defined_once(resolver, owner):
        return {symbol["path"]}
    return {symbol["path"], *(row["path"] for row in symbols_named(resolver, owner) if row["kind"] in TYPE_KINDS)}


def _takes_type_from(resolver: CallResolver, path: str, type_name: str, defining: str) -> bool:
    """Whether the file brings the type of that name in from the file defining it (`use crate::Version;`)."""
    return any(
        _binds(imp, names, type_name) and defining in (imp["target"], imp["origin"])
        for imp, names in resolver.imported_names(path)
    )


def _binds(imp: sqlite3.Row, names: tuple[object, ...], name: str) -> bool:
    """Whether a Rust `use` binds the name (`use a::Conn;`, `use a::Conn as C;` binds C)."""
    return imp["kind"] == "use" and len(names) == 1 and (imp["bound"] or names[0]) == name


def _defined_once(resolver: CallResolver, type_name: str) -> bool:
    """Whether one type of that name is defined (two files' `Sender`s are two types, whichever a method is of)."""
    return sum(row["kind"] in TYPE_KINDS for row in symbols_named(resolver, type_name)) == 1


def _is_trait(resolver: CallResolver, name: str | None) -> bool:
    return name is not None and any(row["kind"] == "trait" for row in symbols_named(resolver, name))


def _has_member(resolver: CallResolver, type_name: str, name: str) -> bool:
    """Whether the index holds a method `name` of a type of that name, in any of its impls, in any file (the types
    holding one, read once per name: a walk asks it of each `self.new()` for each `new`)."""
    if name not in resolver.rust.owners:
        resolver.rust.owners[name] = {owner_type(row) for row in symbols_named(resolver, name)}
    return type_name in resolver.rust.owners[name]


def impl_trait(resolver: CallResolver, symbol: _Symbol) -> str | None:
    """The trait of the impl a method is in (`impl Read for Conn`: Read); None for an inherent impl's."""
    parent = resolver.symbol(symbol["parent"])
    found = _IMPL.search(parent["qualname"]) if parent is not None and parent["kind"] == "impl" else None
    return found["trait"].rpartition(".")[2] if found is not None and found["trait"] else None


def traits_of(resolver: CallResolver, type_name: str) -> set[str]:
    """The traits a type implements, by the impls the index holds (`impl Default for Conn`: Default)."""
    if resolver.rust.impls is None:
        impls: dict[str, set[str]] = {}
        query = "SELECT qualname FROM symbols WHERE kind = 'impl' AND path LIKE '%.rs'"
        for (qualname,) in resolver.conn.execute(query):
            found = _IMPL.search(qualname)
            if found is not None and found["trait"]:
                impls.setdefault(found["type"], set()).add(found["trait"].rpartition(".")[2])
        resolver.rust.impls = impls
    return resolver.rust.impls.get(type_name, set())


def _aliased(resolver: CallResolver, alias: str) -> set[str]:
    """The types an alias of that name stands for (`type ClientTransaction = role::Client;`: Client)."""
    found = set()
    for row in symbols_named(resolver, alias):
        if row["kind"] == "type" and (m := _ALIAS.search(row["signature"] or "")) is not None:
            found.add(m["name"])
    return found
