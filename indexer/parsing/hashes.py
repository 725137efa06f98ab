"""The hashes of a definition's syntax: its body, and its signature without the body.

Both read the same tokens: named node types and nesting, leaf texts, Python strings by value; no
comments, no commas, no redundant parentheses, so layout, comments and trailing commas change
nothing. The walks are iterative and bounded by MAX_DEPTH: 100k nested parentheses cost time, not
the process's stack.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import re
from dataclasses import dataclass
from typing import Any

from tree_sitter import Node

from .nodes import leading_attributes
from .parse import ParseFailed, language

MAX_DEPTH = 1_500  # deeper syntax than this is generated or hostile; the file is skipped
HASH_BYTES = 16


def digest(text: str | bytes) -> str:
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    return hashlib.blake2b(data, digest_size=HASH_BYTES).hexdigest()


_KIND_ID_LIMIT = 1 << 16


@dataclass(frozen=True)
class _Kinds:
    """Per grammar, by kind id: token bytes, open-bracket bytes, and how the hash walks treat a node.

    One byte per kind id: the walks visit every node of every file."""

    names: list[bytes]
    opens: list[bytes]
    plan: bytes  # _PLAIN, _COMMENT, _LITERAL (Python strings, hashed by value) or _CONTENT (a string's text)
    leaf: bytes  # what a leaf of this kind adds: _NOTHING (commas, parens), _NAME, _TEXT, _QUOTE or _NUMBER
    brackets: bytes  # 1 where a node of this kind opens a bracket in the hash (named; `(expr)` is expr)


_PLAIN, _COMMENT, _LITERAL, _CONTENT = range(4)
_NOTHING, _NAME, _TEXT, _QUOTE, _NUMBER = range(5)


_NUMBER_KINDS = (b"integer", b"float", b"number", b"number_literal")


def _plan_of(name: bytes, is_named: bool, lang: str) -> int:
    if b"comment" in name:
        return _COMMENT
    if is_named and lang == "python" and name in (b"string", b"concatenated_string"):
        return _LITERAL  # 'a' == "a" == r"a" == """a"""
    if is_named and name == b"string_content":
        return _CONTENT  # taken whole even where escapes split it into children
    return _PLAIN


def _leaf_of(name: bytes, is_named: bool) -> int:
    if not is_named:
        # The named nodes around a comma or a parenthesis already say how things group.
        return _NOTHING if name in (b",", b"(", b")") else _NAME
    if name in (b"string_start", b"string_end"):
        return _QUOTE
    if name in _NUMBER_KINDS or name.endswith((b"integer_literal", b"float_literal")):
        return _NUMBER  # 0xFF == 0xff, 1_000 == 1000
    return _TEXT


@functools.cache
def _kind_tables(lang: str) -> _Kinds:
    grammar = language(lang)
    real = grammar.node_kind_count  # of 64k possible ids: build only the real ones one by one
    names = [(grammar.node_kind_for_id(i) or "").encode() for i in range(real)]
    # Past the real ids there is only the error node (65535): named, plain, its text a token.
    plan = bytearray([_PLAIN]) * _KIND_ID_LIMIT
    leaf = bytearray([_TEXT]) * _KIND_ID_LIMIT
    brackets = bytearray([1]) * _KIND_ID_LIMIT
    for kind, name in enumerate(names):
        is_named = grammar.node_kind_is_named(kind)
        plan[kind] = _plan_of(name, is_named, lang)
        leaf[kind] = _leaf_of(name, is_named)
        brackets[kind] = is_named and name != b"parenthesized_expression"  # (expr) is expr
    padding = _KIND_ID_LIMIT - real
    return _Kinds(
        names=names + [b"ERROR"] * padding,
        opens=[name + b"(" for name in names] + [b"ERROR("] * padding,
        plan=bytes(plan),
        leaf=bytes(leaf),
        brackets=bytes(brackets),
    )


_STRING_OPENING = re.compile(rb"([A-Za-z]*)('\'\'|\"\"\"|'|\")")


def _python_literal(node: Node, source: bytes) -> bytes | None:
    """A Python string literal as its value (None for f-strings and anything not a plain literal)."""
    text = source[node.start_byte : node.end_byte]
    if node.type == "string" and b"\\" not in text:
        opening = _STRING_OPENING.match(text)
        quote = opening.group(2) if opening else b""
        if opening and len(text) >= opening.end() + len(quote) and text.endswith(quote) and not node.has_error:
            # Well formed, so its children are the opening, the text and the closing: read them off
            # the bytes (a string in every few nodes of Python: building its children cost more).
            prefix, content = opening.group(1).lower(), text[opening.end() : len(text) - len(quote)]
        else:
            children = node.children
            if len(children) < 2 or any(
                c.type not in ("string_start", "string_content", "string_end") for c in children
            ):
                return None
            prefix = source[children[0].start_byte : children[0].end_byte].rstrip(b"'\"").lower()
            content = source[children[0].end_byte : children[-1].start_byte]
        if b"f" in prefix or b"t" in prefix:
            return None
        value: Any = content if b"b" in prefix else content.decode("utf-8", "surrogateescape")
    else:
        try:
            value = ast.literal_eval("(" + text.decode("utf-8", "surrogateescape") + ")")
        except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
            return None
        if not isinstance(value, (str, bytes)):
            return None
    return b"\x02" + repr(value).encode("utf-8", "surrogatepass")


def _leaf_token(node: Node, kind: int, source: bytes, k: _Kinds) -> bytes | None:
    """The token a leaf (or a string's whole text) adds to a hash; None when it adds nothing."""
    how = k.leaf[kind]
    if how == _NAME:
        return k.names[kind]
    if how == _NOTHING:
        return None
    text = source[node.start_byte : node.end_byte]
    if how == _QUOTE:
        return text.replace(b"'", b'"')
    if how == _NUMBER:
        return text.lower().replace(b"_", b"")
    return text


def body_hashes(root: Node, source: bytes, lang: str, definitions: list[Node]) -> dict[int, str]:
    """Hash each definition's body syntax tree: node types, nesting and token texts.

    One walk per file emits a token stream; each definition hashes its slice. Comments and commas
    are left out, so layout, comments and trailing commas change nothing. This loop visits every
    node of every file, so it is written for speed: kind ids and byte tables, not names; a call
    per node only where a leaf is not a plain name or text.
    """
    kt = _kind_tables(lang)
    names, opens, plan, leaves, brackets = kt.names, kt.opens, kt.plan, kt.leaf, kt.brackets
    # The body alone: a changed parameter list is a signature change, not a body change.
    hashed = [(node.child_by_field_name("body") or node, node.id) for node in definitions]
    wanted = {node.id: def_id for node, def_id in hashed}
    def_kinds = frozenset(node.kind_id for node, _ in hashed)
    starts: dict[int, int] = {}
    ends: dict[int, int] = {}
    tokens: list[bytes] = []
    emit = tokens.append
    open_nodes: list[tuple[int, int | None]] = []  # (brackets, definition id) per node we are inside
    cursor = root.walk()
    goto_first_child, goto_next_sibling, goto_parent = (
        cursor.goto_first_child,
        cursor.goto_next_sibling,
        cursor.goto_parent,
    )
    push = open_nodes.append
    literal = None
    while True:
        node = cursor.node
        if node is None:
            break
        kind = node.kind_id
        how = plan[kind]
        # Most nodes are plain: one test sends them on; a Python string that is no plain literal is too.
        if not how or (how == _LITERAL and (literal := _python_literal(node, source)) is None):
            if goto_first_child():
                marker = node.id if kind in def_kinds and node.id in wanted else None
                if marker is not None:
                    starts[marker] = len(tokens)
                bracket = brackets[kind]
                if bracket:
                    emit(opens[kind])
                push((bracket, marker))
                if len(open_nodes) > MAX_DEPTH:
                    raise ParseFailed("too deep", f"syntax nested deeper than {MAX_DEPTH} levels")
                continue
            leaf = leaves[kind]
            if leaf == _TEXT:
                start, end = node.byte_range
                emit(source[start:end])
            elif leaf == _NAME:
                emit(names[kind])
            elif leaf != _NOTHING:
                emit(_leaf_token(node, kind, source, kt))  # type: ignore[arg-type]
        elif how == _LITERAL:
            emit(literal)  # type: ignore[arg-type]
        elif how == _CONTENT:
            start, end = node.byte_range
            emit(source[start:end])
        # _COMMENT: nothing
        while not goto_next_sibling():
            if not goto_parent():
                return {
                    wanted[k]: digest(b"\x00".join(tokens[k_start : ends.get(k, len(tokens))]))
                    for k, k_start in starts.items()
                }
            bracket, marker = open_nodes.pop()
            if bracket:
                emit(b")")
            if marker is not None:
                ends[marker] = len(tokens)
    return {
        wanted[k]: digest(b"\x00".join(tokens[k_start : ends.get(k, len(tokens))])) for k, k_start in starts.items()
    }


_CLOSE = None  # on the walk stack: the end of a named node


def signature_hash(definition: Node, outer: Node, name: Node | None, source: bytes, lang: str) -> str | None:
    """Hash the definition's syntax without its body: decorators and attributes, parameters, return type, bases.

    Same tokens as the body hash (no comments, no layout), and the name left out, so renaming
    alone is no signature change. None when the grammar gives the definition no body.
    """
    body = definition.child_by_field_name("body")
    if body is None:
        return None
    kt = _kind_tables(lang)
    name_id = name.id if name is not None else None
    tokens: list[bytes] = []
    stack: list[Node | None] = [outer, *reversed(leading_attributes(outer))]
    while stack:
        node = stack.pop()
        if node is _CLOSE:
            tokens.append(b")")
            continue
        kind = node.kind_id
        how = kt.plan[kind]
        if node.id == body.id or how == _COMMENT:
            continue
        if node.id == name_id:
            tokens.append(b"\x01")
            continue
        literal = _python_literal(node, source) if how == _LITERAL else None
        if literal is not None:
            tokens.append(literal)
            continue
        if node.child_count == 0 or how == _CONTENT:
            token = _leaf_token(node, kind, source, kt)
            if token is not None:
                tokens.append(token)
            continue
        if kt.brackets[kind]:
            tokens.append(kt.opens[kind])
            stack.append(_CLOSE)
        stack.extend(reversed(node.children))
    return digest(b"\x00".join(tokens))


def leaf_body_hash(definition: Node, source: bytes, lang: str) -> str:
    """A body that is one token (`x => x`), which the tree walk of body_hashes does not mark."""
    body = definition.child_by_field_name("body") or definition
    token = _leaf_token(body, body.kind_id, source, _kind_tables(lang))
    return digest(token or b"")
