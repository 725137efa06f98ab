"""The calls a C or C++ macro's body makes, as calls of the macro.

tree-sitter reads a `#define`'s body as text. libuv's tests end with `MAKE_VALGRIND_HAPPY(loop)`, whose body calls
close_loop, uv_loop_close and uv_library_shutdown: the compiler sees those calls in each of its 369 tests, and the
index saw none. The body is parsed on its own, inside a function so that its statements read as statements, and
each call in it is a call of the macro from the macro's line. A call of the macro resolves as a function's does, so
a walk up the callers (impact, the tests to run) goes from uv_loop_close through the macro to every test using it.

A macro that writes functions (cexpand.py) is left to its uses: the calls are the functions'. A call of one of the
macro's parameters (`#define APPLY(f, x) f(x)`) or of a name pasted together (`name##_cb(h)`)
calls whatever the user passes, which the body does not say: those are left out.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence, Set
from typing import Any

from tree_sitter import Node, Query, QueryCursor, Tree

from .callsites import Caller, call_site, caller_at
from .cexpand import body_text
from .parse import node_text

_CALL = re.compile(rb"[A-Za-z_]\w*\s*\(")  # no call in the body: nothing to parse
_OPENING = b"void macro_body(void) {\n"  # one line before the body's first: file row = row in the text - 1 + body row


def macro_body_calls(
    defined: Sequence[Node],
    source: bytes,
    query: Query,
    parse: Callable[[bytes], Tree],
    defs: Sequence[Caller],
    starts: list[int],
    generators: Set[str],
) -> list[dict[str, Any]]:
    """Each call written in the body of a macro this file defines (`defined`: its `#define`s), with the macro as its
    caller; not those of the `generators`, the macros whose uses write functions (cexpand.py): their calls are those
    functions'."""
    calls: list[dict[str, Any]] = []
    for macro in defined:
        name_node, body = macro.child_by_field_name("name"), macro.child_by_field_name("value")
        if name_node is not None and node_text(name_node, source) in generators:
            continue
        caller = caller_at(defs, starts, macro.start_byte)
        if body is None or caller is None or not _CALL.search(source, body.start_byte, body.end_byte):
            continue
        parameters = macro.child_by_field_name("parameters")
        taken = {node_text(p, source) for p in parameters.named_children} if parameters is not None else set()
        text = _OPENING + body_text(source, body) + b"\n;}\n"
        for _, caps in QueryCursor(query).matches(parse(text).root_node):
            if "reference.call" not in caps or "name" not in caps:
                continue
            name = caps["name"][0]
            if node_text(name, text) in taken or b"##" in text[max(0, name.start_byte - 2) : name.end_byte + 2]:
                continue
            call = call_site(caps, text, [], [])
            call["caller"] = caller.id
            call["line"] = body.start_point[0] + name.start_point[0]
            calls.append(call)
    return calls
