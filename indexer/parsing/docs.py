"""Docstrings and doc comments: a definition's, and a module's role.

Python has docstrings; other languages put a comment right above a definition (`/** */`, `///`,
`//`, `#`, `--`), and a module's role in the comment block heading the file.
"""

from __future__ import annotations

import ast
import inspect
import re

from tree_sitter import Node

from .parse import node_text

DOC_LIMIT = 4_000
_TRAILING_DEPTH = 4
_COMMENT_MARKS = re.compile(r"^\s*(?:/\*+!?|\*+/|\*|//[/!]?|#+|--+\s*\|?|;+|%+|!|\(\*+|\{-+\s*\|?|<!--)\s?")
_COMMENT_ENDS = re.compile(r"\s*(?:\*+/|\*+\)|-+\}|-->)\s*$")
_ATTRIBUTES = frozenset(
    {"attribute_item", "attribute", "attribute_list", "annotation", "marker_annotation", "decorator"}
)
_NOT_MODULE_DOC = re.compile(r"copyright|spdx-license|licensed under|all rights reserved", re.IGNORECASE)
_MAGIC_COMMENT = re.compile(
    r"^\s*(?:#!|.*-\*-.*-\*-|.*frozen_string_literal|.*eslint|.*@ts-|.*jshint|"
    r".*prettier-ignore|.*go:build|.*\+build)"
)


def string_value(node: Node, source: bytes) -> str:
    text = node_text(node, source, DOC_LIMIT * 4)
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        value = text.strip("\"'rbuRBUfF")
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    return str(value)


def _python_docstring(block: Node | None, source: bytes) -> str | None:
    if block is None:
        return None
    first = next((c for c in block.named_children if c.type != "comment"), None)
    if first is not None and first.type == "expression_statement" and first.named_children:
        first = first.named_children[0]  # older grammars wrap expression statements
    string = first
    if string is None or string.type not in ("string", "concatenated_string"):
        return None
    return inspect.cleandoc(string_value(string, source))[:DOC_LIMIT] or None


def _clean_comment(lines: list[str]) -> str | None:
    cleaned = [
        _COMMENT_ENDS.sub("", _COMMENT_MARKS.sub("", line)).rstrip() for text in lines for line in text.splitlines()
    ]
    text = "\n".join(line for line in cleaned if line.strip(" */"))
    return text.strip()[:DOC_LIMIT] or None


def _own_line(comment: Node) -> bool:
    """A comment that starts its line, not one trailing the code before it (`x = 1  # why`). A node before it may
    end at the start of its line: Rust's `///` line comment holds its newline, so the next one's line starts there."""
    before = comment.prev_sibling
    return before is None or before.end_point[0] < comment.start_point[0] or before.end_point[1] == 0


def _leading_comments(node: Node, source: bytes) -> str | None:
    """The comments right above a definition (attributes and annotations between them allowed)."""
    comments: list[str] = []
    line = node.start_point[0]
    sibling = node.prev_sibling
    while sibling is not None and sibling.end_point[0] >= line - 1:
        if "comment" in sibling.type:
            text = node_text(sibling, source, DOC_LIMIT)
            if text.startswith(("//!", "/*!")) or not _own_line(sibling):
                break  # a Rust inner doc documents the module; a trailing comment, its own line
            comments.insert(0, text)
        elif sibling.type not in _ATTRIBUTES:
            if not comments:  # Kotlin keeps the comment after the imports inside the import list
                comments = [node_text(c, source, DOC_LIMIT) for c in _trailing_comments(sibling, line)]
            break
        line = sibling.start_point[0]
        sibling = sibling.prev_sibling
    return _clean_comment(comments) if comments else None


def _trailing_comments(node: Node, line: int) -> list[Node]:
    """Comments a grammar put at the very end of the node before a definition, ending by `line`."""
    for _ in range(_TRAILING_DEPTH):
        if node.child_count == 0:
            return []
        last = node.children[-1]
        if "comment" in last.type:
            found: list[Node] = []
            comment: Node | None = last
            while (
                comment is not None
                and "comment" in comment.type
                and comment.end_point[0] >= line - 1
                and _own_line(comment)
            ):
                found.insert(0, comment)
                line = comment.start_point[0]
                comment = comment.prev_sibling
            return found
        node = last
    return []


def definition_doc(node: Node, outer: Node, source: bytes, lang: str) -> str | None:
    """Python's docstring; elsewhere the comments right above the definition."""
    if lang == "python":
        return _python_docstring(node.child_by_field_name("body"), source)
    return _leading_comments(outer, source)


def module_doc(root: Node, source: bytes, lang: str, first_definition: Node | None) -> str | None:
    """Python's docstring; elsewhere the comment block heading the file that is no licence header,
    no magic line and not the first definition's own doc."""
    if lang == "python":
        return _python_docstring(root, source)
    blocks: list[list[Node]] = []
    first_code: Node | None = None
    for child in root.children:
        if "comment" not in child.type:
            first_code = child
            break
        if blocks and child.start_point[0] <= blocks[-1][-1].end_point[0] + 1:
            blocks[-1].append(child)
        else:
            blocks.append([child])
    if (
        blocks
        and first_code is not None
        and first_code.start_point[0] <= blocks[-1][-1].end_point[0] + 1
        and first_definition is not None
        and first_definition.start_byte == first_code.start_byte
        and not node_text(blocks[-1][0], source, 3).startswith(("//!", "/*!"))
    ):
        blocks.pop()  # the first definition's doc comment
    for block in reversed(blocks):
        lines = [
            line
            for c in block
            for line in node_text(c, source, DOC_LIMIT).splitlines()
            if not _MAGIC_COMMENT.match(line)
        ]
        text = _clean_comment(lines)
        if text and not _NOT_MODULE_DOC.search(text):
            return text
    return None
