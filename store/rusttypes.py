"""The type of a Rust value, as the code declares it: store/rustcalls.py calls a method of it (`conn.poll()`, as
`proto::Conn::poll(conn)` would) and store/rusttraits.py runs its implementation of a trait (`a == b`).
- a parameter (`conn: &mut proto::Conn<T>`), through references and the wrappers that hand their value's methods
  on (`Arc<Conn>`); a local (indexer/parsing/rustfields.py: `let conn = proto::Conn::new(io);`); a field of the
  calling method's struct (`self.io` with `io: Buffered<T>`), and a field of the type the one before it is
  declared (`self.conn.io`);
- a call's result as its function or method declares it (`Frame::make().edge()`: `-> Self`, then `-> &Square`;
  `?` takes the value out of a Result or an Option); a function of a type not ours (`Vec::new()`) makes that type;
- a variant of an enum of ours (`ParseError::Incomplete`) is the enum; a literal (`"%"`, `'a'`) its type;
- a type parameter or an `impl`/`dyn` type is known by the traits bounding it (`S` with `S: HttpService<B>`).
Where the code says none of this, the type is not known (None).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .db import stored_list
from .rustnames import (
    ALTERNATIVES,
    CALL_RESULT,
    GENERIC,
    REFERENCE,
    TURBOFISH,
    Site,
    defines_type,
    imported_type,
    imports_name,
    owner_type,
    symbols_named,
)

if TYPE_CHECKING:
    from .resolver import CallResolver

_SUFFIX = re.compile(r"(?:\?|\.await)+$")
# `ParseError::Incomplete`, `Kind::Timeout(dur)`, `Self::Io { .. }`: a variant of an enum, a value of the enum
_VARIANT = re.compile(
    r"^(?:(?:::)?[A-Za-z_]\w*::)*(?P<enum>[A-Z]\w*)::(?P<variant>[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*)\s*(?:\{.*\}|\(.*\))?$",
    re.S,
)
_FUNCTION = re.compile(r"[a-z_]\w*")  # `version("1.0.0")`: a function called by its name
_CONSTRUCTOR = re.compile(r"(?P<type>(?:::)?[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*)::[A-Za-z_]\w*\(\)")  # `proto::Conn::new()`
_CALLED = re.compile(r"(?P<separator>::|\.)(?P<name>[A-Za-z_]\w*)(?:::<.*>)?$")  # `.head` in `req.head()`
# What `?` leaves of a result's type: `Result<Conn, Error>`, `crate::Result<Conn>`, `Option<&Conn>` -> the Conn
_UNWRAPPED = re.compile(r"^\s*(?:\w+::)*(?:Result|Option)\s*<\s*([^,<>]+(?:<[^<>]*>)?).*$", re.S)
_STRING = re.compile(r'b?"(?:[^"\\]|\\.)*"|b?r(#*)".*?"\1', re.S)  # a string, raw (`r#"..."#`) or bytes (`b"..."`)
_CHARACTER = re.compile(r"^b?'(?:[^'\\]|\\.+)'$")  # `'a'`, `b'\n'`, `'\u{1F600}'`
MAX_CALLS = 2  # `a.b().c().d()`: the calls a result's type is followed through
_PARAMETER = re.compile(r"^(?:mut\s+)?(?P<name>[a-z_]\w*)\s*:\s*(?P<type>.+)$", re.S)  # `mut conn: &mut Conn<T>`
_SLICE = re.compile(r"\[[^\[\];:]+\]")  # `[u8]`, as an impl for it names its type (no array, `[u8; 4]`, nor path)
_TYPE_PATH = re.compile(r"^(?P<path>(?:::)?[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*)\s*(?:<(?P<arguments>.*)>)?\s*$", re.S)
# What a value of these is called as: its methods are the value inside's (`conn: Arc<Conn>`: `conn.poll()` is Conn's)
_DEREF_WRAPPERS = frozenset(
    {"Box", "Arc", "Rc", "Pin", "Ref", "RefMut", "MutexGuard", "RwLockReadGuard", "RwLockWriteGuard", "ManuallyDrop"}
)


def declared_type(resolver: CallResolver, site: Site) -> tuple[str | None, str | None]:
    """A value's type as written (`&mut proto::Conn<T>`), and the path of the type that declares (`proto::Conn`;
    `Self`, the calling method's type)."""
    written = _written_type(resolver, site)
    declared = type_path(TURBOFISH.sub("", written)) if written else None
    return written, owner_type(resolver.symbol(site.caller)) if declared == "Self" else declared


def _written_type(resolver: CallResolver, site: Site) -> str | None:
    """The type a value is declared as written: `conn` a parameter `conn: &mut proto::Conn<T>` or a local `let
    conn = proto::Conn::new(io)`; `self.io` a field `io: Buffered<T>` of the calling method's struct, and
    `self.conn.io` or `conn.io` the field of the type the one before it is declared. Read once per site: a walk
    asks it of each symbol a call's name may be."""
    if site.caller is None or site.qualifier is None:
        return None
    key = (site.path, site.caller, site.qualifier)
    if key not in resolver.rust.written:
        resolver.rust.written[key] = _read_written_type(resolver, site, site.caller, site.qualifier)
    return resolver.rust.written[key]


def _read_written_type(resolver: CallResolver, site: Site, caller: str, qualifier: str) -> str | None:
    if (enum := variant_of(resolver, site, qualifier)) is not None:
        return enum
    if CALL_RESULT.search(qualifier):
        return _result_type(resolver, site, qualifier, MAX_CALLS)
    head, *fields = qualifier.split(".")
    if head == "self":
        holder = _holder_struct(resolver, site)
        if holder is None or not fields:
            return None
        written = resolver.typed_members(holder).get(fields.pop(0))
    else:
        written = parameters(resolver, caller).get(head) or resolver.typed_members(caller).get(head)
        if written is not None:  # `let v = version(text);`: what version returns; a name bound twice, what both say
            types = {_local_type(resolver, site, bound) for bound in written.split(ALTERNATIVES)}
            written = types.pop() if len(types) == 1 else None
    for member in fields:
        declared = type_path(TURBOFISH.sub("", written)) if written else None
        struct = struct_named(resolver, site.path, declared.rpartition("::")[2]) if declared else None
        written = resolver.typed_members(struct).get(member) if struct is not None else None
    return written


def _local_type(resolver: CallResolver, site: Site, written: str) -> str | None:
    """A local's type, as written or as the call it is bound to the result of returns."""
    if CALL_RESULT.search(written):
        return _result_type(resolver, site, written, MAX_CALLS) or _constructed(resolver, written)
    return written


def _result_type(resolver: CallResolver, site: Site, written: str, calls: int) -> str | None:
    """The path of the type a call's result is declared (`Conn::new(io)`: `-> Self`, Conn; `self.conn()?`: the
    method's `-> Result<&Conn>`, unwrapped by `?`; `x.head().await`), by the method its receiver's type has of
    that name; None where the receiver's type, the method or its result type is not known."""
    suffix = _SUFFIX.search(written.strip())
    tried = suffix is not None and "?" in suffix.group(0)  # `?` takes the value out of a Result or an Option
    text = _SUFFIX.sub("", written.strip())
    opened = _opening(text)
    if opened is None or calls == 0:
        return None
    found = _CALLED.search(text[:opened])
    if found is None:
        return _function_result(resolver, site, text[:opened], tried) if _FUNCTION.fullmatch(text[:opened]) else None
    receiver, name = text[: found.start()], found["name"]
    owner: str | None
    if found["separator"] == "::":  # `Conn::new(io)`, `Self::new()`: a function of a type
        owner = TURBOFISH.sub("", receiver).rpartition("::")[2]
        owner = owner_type(resolver.symbol(site.caller)) if owner == "Self" else owner
    elif receiver == "self":
        owner = owner_type(resolver.symbol(site.caller))
    else:  # `conn.head()`, `self.io.buffer()`, `Conn::new(io).head()`
        inner = Site(site.path, site.caller, receiver, site.imports)
        declared = _written_type(resolver, inner) if CALL_RESULT.search(receiver) is None else None
        owner_path = type_path(declared) if declared else _result_type(resolver, inner, receiver, calls - 1)
        owner = owner_path.rpartition("::")[2] if owner_path else None
    if owner is None:
        return None
    results = {  # `-> Self` and `-> BytesMut` of BytesMut's five `from`s say one type
        owner if returned == "Self" else returned
        for row in symbols_named(resolver, name)
        if row["kind"] == "method" and owner_type(row) == owner
        for returned in [
            type_path(_UNWRAPPED.sub(r"\1", row["returns"]) if tried else row["returns"]) if row["returns"] else None
        ]
    }
    return results.pop() if len(results) == 1 else None


def _constructed(resolver: CallResolver, written: str) -> str | None:
    """`Vec::new()`, a function of a type not ours: the type, as such a function mostly makes a value of it. None for
    a type of ours whose function the index does not have (actix-web's `HttpResponse::Ok()`, which a macro writes,
    makes an HttpResponseBuilder), and for a function called by its bare name (`version()`)."""
    found = _CONSTRUCTOR.fullmatch(written)
    if found is None:
        return None
    name = found["type"].rpartition("::")[2]
    return None if defines_type(resolver, name) else found["type"]


def _function_result(resolver: CallResolver, site: Site, name: str, tried: bool) -> str | None:
    """The path of the type a function called by its bare name returns (`version("1.0.0")`: `-> Version`): of the
    functions of that name the calling file may call, its own or those it brings in, where all say one type."""
    results = {
        type_path(_UNWRAPPED.sub(r"\1", row["returns"]) if tried else row["returns"])
        for row in symbols_named(resolver, name)
        if row["kind"] == "function"
        and row["returns"]
        and (row["path"] == site.path or imports_name(resolver, site.path, row))
    }
    return results.pop() if len(results) == 1 else None


def _opening(text: str) -> int | None:
    """Where the argument list closing `text` opens (`f(a, g(b))`: the first `(`); None if it ends otherwise."""
    if not text.endswith(")"):
        return None
    depth = 0
    for i in range(len(text) - 1, -1, -1):
        depth += (text[i] in ")]}") - (text[i] in "([{")
        if depth == 0:
            return i
    return None


def bound_traits(resolver: CallResolver, caller: str, written: str) -> list[str]:
    """The traits a value of a type parameter or a trait object may be called through: `S` with `S:
    HttpService<B>` in the function's or its impl's generics or where clause; `impl Read`, `&mut dyn Io`,
    `Box<dyn Io + Send>`."""
    bare = REFERENCE.sub("", written.strip())
    # Every wrapper, outermost first (`Pin<Box<dyn Sleep>>`: Sleep's). Once one pass over the set, whose order is
    # the string hash's: hyper's `sleep.as_mut()` on a `&mut Pin<Box<dyn Sleep>>` was Sleep's in one process and a
    # guess at any `as_mut` in the next.
    while (wrapper := bare.partition("<")[0]) in _DEREF_WRAPPERS and bare.endswith(">"):
        bare = REFERENCE.sub("", bare[len(wrapper) + 1 : -1].strip())
    if bare.startswith(("impl ", "dyn ")):
        return _trait_names(bare.partition(" ")[2])
    if not GENERIC.match(bare):
        return []
    calling = resolver.symbol(caller)
    texts = [calling["signature"] or ""] if calling is not None else []
    holder = resolver.symbol(calling["parent"]) if calling is not None else None
    if holder is not None and holder["kind"] in ("impl", "trait"):
        texts.append(holder["signature"] or "")
    # `S: HttpService<B>`, `I: Read + Write`: not `S::Error: Into<..>`
    bound = re.compile(rf"(?<![\w:']){bare}\s*:(?!:)\s*([^,{{<>]+(?:<[^<>]*(?:<[^<>]*>[^<>]*)*>[^,{{<>]*)*)")
    return [name for text in texts for m in bound.finditer(text) for name in _trait_names(m[1])]


def _trait_names(bounds: str) -> list[str]:
    """`HttpService<B> + Send + 'static` -> [HttpService, Send]: the traits of a bound, by name."""
    names = []
    for part in re.split(r"\+(?![^<>]*>)", bounds):
        found = _TYPE_PATH.match(TURBOFISH.sub("", part.strip().lstrip("?")))
        if found is not None:
            names.append(found["path"].rpartition("::")[2])
    return names


def variant_of(resolver: CallResolver, site: Site, qualifier: str) -> str | None:
    """The enum of ours a value written as one of its variants is (`ParseError::Incomplete`, `Kind::Timeout(dur)`,
    `Self::Io { .. }` in an impl of the enum), as the file names it; None for anything else (`Conn::new(io)`, a
    unit struct `body::Empty`, a variant of an enum not ours)."""
    found = _VARIANT.match(qualifier)
    if found is None:
        return None
    enum = found["enum"]
    if enum == "Self":
        enum = owner_type(resolver.symbol(site.caller)) or ""
    named = imported_type(resolver, site.path, enum)
    return enum if any(row["kind"] == "enum" for row in symbols_named(resolver, named)) else None


def _holder_struct(resolver: CallResolver, site: Site) -> str | None:
    """The id of the struct the calling method's impl is for: in the calling file, or the one struct of its name."""
    calling = resolver.symbol(site.caller)
    if calling is None or (name := owner_type(calling)) is None:
        return None
    here = resolver.symbols_of(site.path).get(calling["qualname"].rpartition(".")[0])
    if here is not None and here["kind"] == "struct":
        return str(here["id"])
    return struct_named(resolver, site.path, name)


def struct_named(resolver: CallResolver, path: str, name: str) -> str | None:
    """The id of the struct a type name is: the file's own of that name, or the one struct of that name."""
    here = resolver.symbols_of(path).get(name)
    if here is not None and here["kind"] == "struct":
        return str(here["id"])
    structs = [row for row in symbols_named(resolver, name) if row["kind"] == "struct"]
    return str(structs[0]["id"]) if len(structs) == 1 else None


def parameters(resolver: CallResolver, caller: str) -> dict[str, str]:
    """A function's parameters with the types they are declared as written (`conn: &mut Conn<T>`)."""
    if caller not in resolver.rust.params:
        row = resolver.conn.execute("SELECT params FROM symbols WHERE id = ?", (caller,)).fetchone()
        declared = {}
        for param in stored_list(row[0]) if row is not None else []:
            found = _PARAMETER.match(str(param))
            if found is not None:
                declared[found["name"]] = found["type"]
        resolver.rust.params[caller] = declared
    return resolver.rust.params[caller]


def literal_type(qualifier: str) -> str | None:
    """The type of a literal a method is called on: `"%"` and `r#"x"#` a str, `b"h2"` a [u8], `'a'` a char."""
    if _STRING.fullmatch(qualifier):
        return "[u8]" if qualifier.startswith("b") else "str"
    if _CHARACTER.match(qualifier):
        return "u8" if qualifier.startswith("b") else "char"
    return None


def type_path(written: str) -> str | None:
    """The path of the type a value is declared (`&'a mut Arc<proto::Conn<T>>`: proto::Conn; `&[u8]`: [u8]), through
    references and the wrappers that hand their value's methods on; None for a type parameter (or one of its
    associated types) or another type without a name."""
    for _ in range(4):
        unreferenced = REFERENCE.sub("", written.strip())
        if _SLICE.fullmatch(unreferenced):  # `&[u8]`: a slice's methods, or a trait's implemented for `[u8]`
            return " ".join(unreferenced.split())
        found = _TYPE_PATH.match(unreferenced)
        if found is None:
            return None
        path, arguments = found["path"], found["arguments"]
        if path.rpartition("::")[2] not in _DEREF_WRAPPERS or not arguments:
            parameter = GENERIC.match(path.rpartition("::")[2]) or GENERIC.match(path.partition("::")[0])
            return None if parameter or path in ("impl", "dyn") else path  # `T`, `P::Target`: a type parameter's
        written = _first_argument(arguments)
    return None


def _first_argument(arguments: str) -> str:
    """`Conn<T>, B` -> `Conn<T>`: the first of a type's arguments, at the top level of its brackets."""
    depth = 0
    for i, char in enumerate(arguments):
        depth += (char in "<([") - (char in ">)]")
        if char == "," and depth == 0:
            return arguments[:i]
    return arguments
