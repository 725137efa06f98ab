"""The functions a C or C++ macro of the file defines where the file uses it, as the preprocessor writes them.

libuv's src/unix/loop-watcher.c defines `UV_LOOP_WATCHER_DEFINE(name, type)`, whose body is five functions named
by pasting (`int uv_##name##_init(...)`), and uses it three times: uv_prepare_init, uv_idle_start and their 13
siblings are its public API, which the compiler builds and the index had no symbol of. Each use at the start of a
line of a function-like macro this file defines, whose body holds a function's body, is expanded here (parameters
replaced, `##` pasted, `#x` made a string, `__VA_ARGS__` the rest) and read as code of its own; what it defines
stands on the use's lines. A macro defined in another file (BSD's `RB_GENERATE` in tree.h) is not expanded: the
extraction reads one file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import NamedTuple

from tree_sitter import Node

from .parse import node_text

MAX_USES = 100  # per file: a generator is used a few times, not hundreds
MAX_EXPANSION = 65_536  # bytes of one expansion
_DEFINES_FUNCTION = re.compile(rb"\)\s*\{")  # `f(...) {`: the body defines a function (or more)
_CONTINUATION = re.compile(rb"\\(\r?\n)")  # a `\` ending a line of a macro's body
_IDENTIFIER = re.compile(rb"[A-Za-z_]\w*")


def defines(root: Node) -> list[Node]:
    """The `#define`s of the file, wherever a conditional puts them (none inside a function)."""
    found: list[Node] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in ("preproc_function_def", "preproc_def"):
            found.append(node)
        elif node.child_count and node.type not in ("function_definition", "compound_statement"):
            stack.extend(reversed(node.children))
    return found


class Expansion(NamedTuple):
    """A use of a macro of the file that writes functions: the macro, the use's lines, the text the use stands for."""

    macro: str
    first: int
    last: int
    text: bytes


def body_text(source: bytes, body: Node) -> bytes:
    """A macro's body as code: each line's closing `\\` a blank, the line breaks where they were."""
    return _CONTINUATION.sub(rb" \1", source[body.start_byte : body.end_byte])


def expansions(defined: Sequence[Node], root: Node, source: bytes) -> Iterator[Expansion]:
    """Each use of a macro of this file (`defined`: its `#define`s) that writes functions, as the preprocessor
    expands it."""
    macros = [m for m in defined if m.type == "preproc_function_def"]
    spans = [(m.start_byte, m.end_byte) for m in macros]
    uses = 0
    for macro in macros:
        name_node, body = macro.child_by_field_name("name"), macro.child_by_field_name("value")
        parameters = macro.child_by_field_name("parameters")
        if name_node is None or body is None or parameters is None:
            continue
        if not _DEFINES_FUNCTION.search(source, body.start_byte, body.end_byte):
            continue
        names = [node_text(p, source).encode() for p in parameters.named_children]
        variadic = b"..." in source[parameters.start_byte : parameters.end_byte]
        text = body_text(source, body)
        name = node_text(name_node, source)
        for use in re.finditer(rb"^[ \t]*" + re.escape(name.encode()) + rb"[ \t]*\(", source, re.M):
            if uses >= MAX_USES or any(start <= use.start() < end for start, end in spans) or _in_body(root, use.end()):
                continue
            arguments, end = _arguments(source, use.end())
            if arguments is None or len(arguments) < len(names) or (len(arguments) > len(names) and not variadic):
                continue
            given = dict(zip(names, arguments, strict=False))
            given[b"__VA_ARGS__"] = b", ".join(arguments[len(names) :])
            expanded = _substituted(text, given)
            if len(expanded) <= MAX_EXPANSION:
                uses += 1
                first = source.count(b"\n", 0, use.start()) + 1
                yield Expansion(name, first, first + source.count(b"\n", use.start(), end), expanded)


def _in_body(root: Node, byte: int) -> bool:
    """Whether this byte is inside a function's body, where a macro's use is a statement, not definitions."""
    node: Node | None = root.descendant_for_byte_range(byte, byte)
    while node is not None:
        if node.type == "compound_statement":
            return True
        node = node.parent
    return False


def _arguments(source: bytes, start: int) -> tuple[list[bytes] | None, int]:
    """The arguments of a use whose `(` ends just before `start`, split at the commas outside parentheses, and
    where the use ends."""
    depth, at, pieces, piece_start = 1, start, [], start
    while at < len(source) and at - start < MAX_EXPANSION:
        char = source[at : at + 1]
        if char in b"([{":
            depth += 1
        elif char in b")]}":
            depth -= 1
            if depth == 0:
                pieces.append(source[piece_start:at].strip())
                return ([] if pieces == [b""] else pieces), at + 1
        elif char == b"," and depth == 1:
            pieces.append(source[piece_start:at].strip())
            piece_start = at + 1
        at += 1
    return None, at


def _substituted(text: bytes, given: dict[bytes, bytes]) -> bytes:
    """The body with the arguments in: `#x` a string of x's argument, a parameter its argument, `a ## b` one
    token."""
    text = re.sub(
        rb"(?<!#)#\s*([A-Za-z_]\w*)",
        lambda m: b'"' + given[m[1]].replace(b'"', b'\\"') + b'"' if m[1] in given else m[0],
        text,
    )
    text = _IDENTIFIER.sub(lambda m: given.get(m[0], m[0]), text)
    return re.sub(rb"\s*##\s*", b"", text)
