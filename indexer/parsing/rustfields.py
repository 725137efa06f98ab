"""What a Rust file says the types of its values are: each struct's fields (`io: Buffered<T>`), and each
function's locals bound to a value of a type the code names (`let d: Decoder = ...;`, `let p = Point { x };`), or
to what a function or a type's function returns (`let v = version(text);`, written `version()`; `let conn =
proto::Conn::new(io);` and `let c = Conn::connect(addr)?;`, written `proto::Conn::new()`: the store reads the result
type the function declares, `Router::build()` a RouterBuilder).
store/rustcalls.py reads a call on `self.io` or on `conn` as a call of that type's method, as it reads one on a
parameter declared a type.

Rows are (the owner's id, the name, the type as written).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tree_sitter import Node

from ...store.rustnames import ALTERNATIVES
from .parse import node_text

_TYPE_NAME = re.compile(r"^(?:[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*|Self)$")  # Conn, Self: not LOG, not a module
_TURBOFISH = re.compile(r"::<.*?>")
MAX_TYPE = 200  # a longer type as written is generated or hostile, and names nothing a call needs


def rust_fields(
    structs: list[tuple[str, Node]], bindings: list[tuple[str, Node]], source: bytes
) -> list[tuple[str, str, str]]:
    """Each struct's named fields, and each local a function binds to a type the code names. `structs`: each
    struct's id and node; `bindings`: each `let` of one name with the id of the function it is in."""
    out = [
        (struct, name, written)
        for struct, node in structs
        if (body := node.child_by_field_name("body")) is not None
        for name, written in _fields(body, source)
    ]
    locals_: dict[tuple[str, str], set[str]] = {}
    for function, node in bindings:
        if (local := typed_local(node, source)) is not None:
            locals_.setdefault((function, local[0]), set()).add(local[1])
    # A name bound twice (`let a = Bytes::from(x);` ... `let a = BytesMut::from(x);`): each, as ALTERNATIVES joins them;
    # the store reads a type where all say one
    out += [(function, name, ALTERNATIVES.join(sorted(written))) for (function, name), written in locals_.items()]
    return out


def _fields(body: Node, source: bytes) -> Iterator[tuple[str, str]]:
    """A struct's named fields with their types as written (a tuple struct's have no names to call through)."""
    for field in body.named_children:
        name, written = field.child_by_field_name("name"), field.child_by_field_name("type")
        if field.type == "field_declaration" and name is not None and written is not None:
            yield node_text(name, source), node_text(written, source, MAX_TYPE)


def typed_local(node: Node, source: bytes) -> tuple[str, str] | None:
    """`let d: Decoder = ...` -> (d, Decoder), `let conn = proto::Conn::new(io);` -> (conn, proto::Conn::new()): a local
    and the type it is declared or built, or the call whose result it is (`let ref r = ...` binds r to the value, as
    a call on r reads it)."""
    pattern = node.child_by_field_name("pattern")
    if pattern is not None and pattern.type == "ref_pattern" and pattern.named_children:
        pattern = pattern.named_children[0]
    if pattern is None or pattern.type != "identifier":
        return None
    declared = node.child_by_field_name("type")
    if declared is not None:
        return node_text(pattern, source), node_text(declared, source, MAX_TYPE)
    value = node.child_by_field_name("value")
    if value is not None and value.type == "try_expression" and value.named_children:  # `Conn::connect(addr)?`
        value = value.named_children[0]
    if value is None:
        return None
    if value.type == "struct_expression" and (name := value.child_by_field_name("name")) is not None:
        return node_text(pattern, source), node_text(name, source, MAX_TYPE)
    called = value.child_by_field_name("function") if value.type == "call_expression" else None
    if called is not None and called.type == "identifier":  # `let v = vec![0; 8];`, read as the call it looks like
        made = _MACRO_MADE.get(node_text(called, source))
        return node_text(pattern, source), made or f"{node_text(called, source)}()"
    if called is None or called.type != "scoped_identifier" or (path := called.child_by_field_name("path")) is None:
        return None
    written = _TURBOFISH.sub("", node_text(path, source, MAX_TYPE))  # `Conn::<T>::new`: Conn
    if not _TYPE_NAME.match(written.rpartition("::")[2]) or (name := called.child_by_field_name("name")) is None:
        return None
    return node_text(pattern, source), f"{written}::{node_text(name, source)}()"  # what Conn::new returns


# What a method called on an argument makes (`s.to_vec()`: a Vec), where its name alone says
_MADE_BY = {"to_vec": "Vec", "into_vec": "Vec", "into_bytes": "Vec", "to_string": "String", "into_boxed_slice": "Box"}
_MACRO_MADE = {"vec": "Vec", "format": "String"}


def argument_type(node: Node, source: bytes) -> str | None:
    """The type a call's one argument is, as far as its syntax says, its references kept: a literal's (`"x"`: &str), a
    slice's (`b[1..]`: [_], `&b[..]`: &[_]), what a macro or a type's function makes (`vec![1]`: Vec,
    `String::from(s)`: String) or a method named for what it makes (`s.to_vec()`: Vec); a name as `=name` (`&v`:
    `&=v`; `v.clone()` too), for the store to type as it types a value (`Bytes::from(v)` after `let v = vec![1]`).
    Which of a type's impls of one trait a call runs turns on it (`impl From<Vec<u8>> for Bytes` beside `impl
    From<String> for Bytes`). None where the syntax says nothing."""
    if node.type == "reference_expression" and (value := node.child_by_field_name("value")) is not None:
        inner = argument_type(value, source)  # `&b[..]`, `&v`: a reference to what the value is
        return f"&{inner}" if inner is not None else None
    text = node_text(node, source, MAX_TYPE)
    if node.type in ("string_literal", "raw_string_literal"):
        return "&[u8]" if text.startswith("b") else "&str"
    if node.type == "identifier":
        return f"={text}"
    if node.type == "index_expression" and ".." in text:
        return "[_]"  # `b[1..]`: a slice
    if node.type == "macro_invocation" and (macro := node.child_by_field_name("macro")) is not None:
        return _MACRO_MADE.get(node_text(macro, source))
    called = node.child_by_field_name("function") if node.type == "call_expression" else None
    if called is not None and called.type == "identifier":  # `vec![1]`, read as the call it is written like
        return _MACRO_MADE.get(node_text(called, source))
    if called is not None and called.type == "field_expression" and (field := called.child_by_field_name("field")):
        value = called.child_by_field_name("value")
        if node_text(field, source) == "clone" and value is not None and value.type == "identifier":
            return f"={node_text(value, source)}"  # `Bytes::from(v.clone())`: a value of v's type
        return _MADE_BY.get(node_text(field, source))
    if called is not None and called.type == "scoped_identifier" and (path := called.child_by_field_name("path")):
        written = _TURBOFISH.sub("", node_text(path, source, MAX_TYPE))
        return written if _TYPE_NAME.match(written.rpartition("::")[2]) and written != "Self" else None
    return None
