"""C and C++ annotation macros the grammar cannot read, taken out of its way.

tree-sitter knows no macro's expansion, so an annotation written where the language has no word for it breaks the
declaration around it. On leveldb: `class LEVELDB_EXPORT DB {` read as a function `DB` returning a class
`LEVELDB_EXPORT`, with the whole class body as its block; `void Compact() EXCLUSIVE_LOCKS_REQUIRED(mutex_);` as a
method `Compact` and a second one, `EXCLUSIVE_LOCKS_REQUIRED`; the member `MemTable* imm_ GUARDED_BY(mutex_);` as a
method `GUARDED_BY`. Where the tree has one of these shapes, the macro's bytes are blanked to spaces and the file is
parsed again: every other byte, offset and line stays where it was, so facts read off the new tree point into the
file as it is (its signatures keep the annotation's text).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from tree_sitter import Node, Query, QueryCursor, Tree

from .parse import blanked, language

MAX_ROUNDS = 3  # a class's export macro hides the annotations inside its body until the class reads as one
_QUALIFIERS = frozenset({"type_qualifier", "storage_class_specifier"})  # `const`, `static` between macro and type
_TYPE_WORD = rb"(?:const|volatile|unsigned|signed|long|short|int|char|float|double|bool|size_t|u?int(?:8|16|32|64)_t)"
_TYPE_FIRST = rb"[ \t]*\((?:[ \t]*" + _TYPE_WORD + rb")+[ \t]*,[^\n]*\)[ \t]*;[ \t]*$"  # `(unsigned short, 2badU);`
# A macro's name: capitals, digits and underscores, a trailing one too (googletest's `class GTEST_API_ Cardinality {`)
_MACRO = rb"[A-Z][A-Z0-9_]*[A-Z0-9_]"
_MACRO_NAME = re.compile(_MACRO)

# @macro: the bytes to blank, when the shape's Python check below agrees.
_SHAPES = """
; `class EXPORT Name {`, `class Name FINAL : Base {`, `class EXPORT Name FINAL {`: a class read as a function's
; return type, one of its names as the class's, the next as the function's, a third as an error between them.
(function_definition
  type: [{specifiers}]
  declarator: [(identifier) (field_identifier)] @declarator) @export

; `EXPORT T* f();`: the macro read as the type, and the declaration broken after it.
([(declaration type: (type_identifier) @name) (function_definition type: (type_identifier) @name)]) @leading

; `T f() ANNOTATION(x);`: the first declaration lost its `;`, the annotation is a typeless second one.
([(declaration !type declarator: (function_declarator declarator: (identifier) @name) @macro)
  (function_definition !type declarator: (function_declarator declarator: (identifier) @name) @macro)
  (field_declaration !type declarator: (function_declarator declarator: (field_identifier) @name) @macro)]) @trailing

; `int CALLCONV f();`, `T * CALLCONV f();`: a lone name the grammar could not place, where a type or declarator
; stands.
(ERROR . [(identifier) (type_identifier)] @name .) @lone

; `void CALLCONV f(int x);` read as a function CALLCONV with an error `f` before its parameters, or as a variable
; CALLCONV that lost its `;` before a call `f(void)`.
(function_declarator declarator: (identifier) @name . (ERROR . (identifier) .)) @callconv
((declaration declarator: (identifier) @name) @unfinished . (expression_statement (call_expression)))

; `ASSERT_DECIMAL(unsigned short, 9999);` in a body: a macro given a type, read as a function defined there or an
; error.
(compound_statement
  [(function_definition !type declarator: (function_declarator declarator: (identifier) @name))
   (declaration !type declarator: (function_declarator declarator: (identifier) @name))
   (ERROR . (identifier) @name)] @statement)

; `T x ANNOTATION(x);`: the name the grammar could not place is an error, the annotation a function declarator.
((ERROR) . (function_declarator declarator: [(identifier) (field_identifier)] @name) @macro) @member
"""
# C's grammar alone has the node for it.
_C_SHAPES = """
; `WRAP(static int f(int x)) { ... }`: a function's head inside a macro's parentheses (libuv's `UV_UNUSED(...)`,
; `HEAP_EXPORT(...)`), read as a type the macro makes of a function type, and its body as a block after it.
(macro_type_specifier
  name: (identifier) @name
  type: (type_descriptor declarator: (abstract_function_declarator))) @wrapped

; `END_TEST` / `START_TEST(test_b) {`: Check's macro closing one test, alone on its line, read as the type of the
; function the next test's macro defines.
(function_definition
  type: (type_identifier) @name
  declarator: (function_declarator declarator: (identifier) @inner)) @closing
"""


@functools.cache
def _query(lang: str) -> Query:
    kinds = ("class_specifier", "struct_specifier") if lang == "cpp" else ("struct_specifier",)
    specifiers = " ".join(f"({kind} !body name: (type_identifier) @name)" for kind in kinds)
    shapes = _SHAPES + _C_SHAPES if lang == "c" else _SHAPES
    return Query(language(lang), shapes.replace("{specifiers}", specifiers))


# A conditional directive line (`#if ...`, `#else`, `#endif`), with its continuation lines.
_CONDITIONAL = re.compile(rb"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b(?:[^\n]*\\\n)*[^\n]*", re.M)

# `#ifdef __cplusplus` / `extern "C" {` / `#endif`, closed by `#ifdef __cplusplus` / `}` / `#endif`: each brace is
# unbalanced within its `#ifdef`, so the grammar reads the whole header as one error (openssl's ssl.h, Python's).
# The braces are blanked: the `#ifdef`s stay, empty.
_CPLUSPLUS_BRACES = re.compile(
    rb"^[ \t]*#[ \t]*(?:ifdef[ \t]+__cplusplus|if[ \t]+defined[ \t]*\(?[ \t]*__cplusplus[ \t]*\)?)[^\n]*\n"
    rb"(?:[ \t]*(?://[^\n]*|/\*[^\n]*\*/)?[ \t]*\n)*"
    rb"[ \t]*(extern[ \t]+\"C\"[ \t]*\{|\})[^\n]*\n"
    rb"(?:[ \t]*(?://[^\n]*|/\*[^\n]*\*/)?[ \t]*\n)*"
    rb"[ \t]*#[ \t]*endif",
    re.M,
)


# `class JSON_API Exception : public std::exception {`: a name in capitals between `class` and the class's own name
# is a macro (C++ has no two names there). The shape `@export` below finds most (the grammar reads a function); where
# the class's name is inside an error instead, this does, once the shape finds no more. Blanking them all at once,
# with the shape's, read v8-primitive.h worse than the shape alone: its 86 symbols out of their classes.
_CLASS_MACRO = re.compile(
    rb"\b(?:class|struct)[ \t]+(" + _MACRO + rb")[ \t]+(?!final\b)"
    rb"(?=[A-Za-z_]\w*[ \t]*(?:final\b|" + _MACRO + rb"\b)?[ \t\r\n]*[:{][^:])"
)


# `JSONCPP_DEPRECATED("Use setComment(String const&) instead.")` before a declaration, on its own line or not: a
# macro given a message, which the grammar cannot place (jsoncpp's Value class was one error for it). Where it
# could not, the macro and its message are blanked.
_STRING_ANNOTATION = re.compile(
    rb"^[ \t]*(" + _MACRO + rb'[ \t]*\([ \t]*"(?:[^"\\\n]|\\.)*"[ \t]*\))[ \t]*\n?[ \t]*(?=[A-Za-z_~])', re.M
)


# A macro alone on its line where the grammar could not read on (libuv's `UV_HANDLE_FIELDS` and
# `UV_UDP_SEND_PRIVATE_FIELDS` in a struct's body: members a macro declares, with no `;`). uv.h read the `};` after
# the last one as part of a field, the struct went on to the file's end, and 77 of its prototypes were read as
# fields nested in it.
_LONE_MACRO = re.compile(rb"^[ \t]*(" + _MACRO + rb")[ \t]*(?:/\*[^\n]*\*/[ \t]*|//[^\n]*)?$", re.M)


def unannotated(source: bytes, tree: Tree, lang: str, parse: Callable[[bytes], Tree]) -> Tree:
    """The tree of `source` with its annotation macros blanked (`tree` itself when it has none); `parse` parses
    `lang`, C or C++."""
    braces = [m.span(1) for m in _CPLUSPLUS_BRACES.finditer(source)]
    if braces:
        source = blanked(source, braces)
        tree = parse(source)
    repaired = tree
    for _ in range(MAX_ROUNDS):
        spans = _annotation_spans(repaired.root_node, source, lang)
        if not spans:
            break
        source = blanked(source, spans)
        repaired = parse(source)
    # The grammar's recovery is not local: blanking a macro can leave its line readable and the rest of a file that
    # was read as declarations one error (openssl's ssl.h lost 198 prototypes so). The repairs stand only when they
    # leave less of the file unread.
    best = repaired if _unread(repaired.root_node) < _unread(tree.root_node) else tree
    broken = _broken_conditionals(best.root_node, source)
    if broken:
        flat = parse(blanked(source, broken))
        if _unread(flat.root_node) < _unread(best.root_node):
            return flat
    return best


def _broken_conditionals(root: Node, source: bytes) -> list[tuple[int, int]]:
    """The directive lines of each `#if` group the grammar could not close: one inside a declaration or an
    expression, which it reads only between them. leveldb's `Limiter(int n) : #if !defined(NDEBUG) max_(n), #endif
    allowed_(n) {` nested every later class of util/env_posix.cc in Limiter. Read with its branches in place (the
    lines `#if`, `#else`, `#endif` blanked), the code around them reads."""
    spans: list[tuple[int, int]] = []
    pending = [root]
    while pending:
        node = pending.pop()
        if not node.has_error:
            continue
        if node.type in ("preproc_if", "preproc_ifdef") and _ends_made_up(node, "#endif"):
            spans += _group_lines(source, node.start_byte)
        pending.extend(node.children)
    return spans


def _group_lines(source: bytes, start: int) -> list[tuple[int, int]]:
    """The spans of the `#if` line at `start` and of its own `#elif`, `#else` and `#endif` lines."""
    spans: list[tuple[int, int]] = []
    depth = 0
    for match in _CONDITIONAL.finditer(source, start):
        word = match.group(1)
        if word.startswith(b"if"):
            depth += 1
        elif word == b"endif":
            depth -= 1
        if depth == 1 or (word == b"endif" and depth == 0):
            spans.append(match.span())
        if depth == 0:
            break
    return spans


def _unread(root: Node) -> int:
    """How much of the file the grammar could not read: the bytes under its outermost errors, and one for each token
    it had to make up (a `;` the source does not have)."""
    total = 0
    pending = [root]
    while pending:
        node = pending.pop()
        if node.type == "ERROR":
            total += node.end_byte - node.start_byte
        elif node.is_missing:
            total += 1
        elif node.has_error:
            pending.extend(node.children)
    return total


def _annotation_spans(root: Node, source: bytes, lang: str) -> list[tuple[int, int]]:
    """The macros to blank this round: a class's export macro first and alone, since until its class reads as one
    the class body is a function's block, where `DB& operator=(const DB&)` looks like `EXPORT T* f()`."""
    classes: list[tuple[int, int]] = []
    others: list[tuple[int, int]] = []
    for _, caps in QueryCursor(_query(lang)).matches(root):
        name = caps["name"][0]
        if "export" in caps:
            classes += _class_macros(caps["export"][0], name, caps["declarator"][0], source)
        elif not _is_macro_name(name, source):
            continue
        elif "leading" in caps and caps["leading"][0].has_error:
            others.append((name.start_byte, name.end_byte))
        elif "statement" in caps:
            others += _statement_uses(source, source[name.start_byte : name.end_byte])
        elif "callconv" in caps or ("unfinished" in caps and _ends_made_up(caps["unfinished"][0], ";")):
            others.append((name.start_byte, name.end_byte))
        elif "lone" in caps:
            # after a type in capitals, it is the type itself, the capitals a macro (`EXPORT const MYTYPE *f();`)
            before = caps["lone"][0].prev_sibling
            while before is not None and before.type in _QUALIFIERS:
                before = before.prev_sibling
            if before is None or before.type != "type_identifier" or not _is_macro_name(before, source):
                others.append((name.start_byte, name.end_byte))
        elif "closing" in caps:
            if _is_macro_name(caps["inner"][0], source) and _alone_on_its_line(name, source):
                others.append((name.start_byte, name.end_byte))
        elif "wrapped" in caps:  # the macro's name and its parentheses: the head stays, where it stands
            wrapped = caps["wrapped"][0]
            opening = source.find(b"(", name.end_byte, wrapped.end_byte)
            if opening != -1 and source[wrapped.end_byte - 1 : wrapped.end_byte] == b")":
                others += [(name.start_byte, opening + 1), (wrapped.end_byte - 1, wrapped.end_byte)]
        elif "member" in caps or ("trailing" in caps and _ends_made_up(caps["trailing"][0].prev_sibling, ";")):
            macro = caps["macro"][0]
            others.append((macro.start_byte, macro.end_byte))
    others += [m.span(1) for m in _STRING_ANNOTATION.finditer(source) if _in_error(root, m.start(1))]
    others += [m.span(1) for m in _LONE_MACRO.finditer(source) if _in_error(root, m.start(1))]
    if classes or lang != "cpp":
        return classes or others
    # a class whose name the grammar could not read at all (not as a function's): once the shapes find none left
    hidden = [m.span(1) for m in _CLASS_MACRO.finditer(source) if _in_error(root, m.end())]
    return hidden or others


def _in_error(root: Node, byte: int) -> bool:
    """Whether the grammar could not read the code at this byte (it is inside an error)."""
    node: Node | None = root.descendant_for_byte_range(byte, byte + 1)
    while node is not None:
        if node.type == "ERROR":
            return True
        node = node.parent
    return False


def _class_macros(definition: Node, first: Node, last: Node, source: bytes) -> list[tuple[int, int]]:
    """The macros among the names of a class the grammar read as a function: all but the class's own name, which is
    the one name not in capitals, or the second when all are (`class LEVELDB_EXPORT DB {`)."""
    middle = [c for c in definition.children if c.type == "ERROR" and first.end_byte <= c.start_byte < last.start_byte]
    names = [first, *middle, last]
    lower = [n for n in names if not _is_macro_name(n, source)]
    if len(lower) > 1:
        return []  # not a class with macros: some other misreading
    own = lower[0] if lower else names[1]
    return [(n.start_byte, n.end_byte) for n in names if n.id != own.id]


def _statement_uses(source: bytes, macro: bytes) -> list[tuple[int, int]]:
    """Every line that is one statement calling `macro` with a type for its first argument (`  ASSERT_HEX(unsigned
    short, 2badU);`): what the grammar cannot read, each such line hidden inside the misreading of the one before it.
    The macro's other calls (`ASSERT_TRUE(db->Put(k).ok());`) stay, with the calls inside them."""
    line = re.compile(rb"^[ \t]*" + re.escape(macro) + _TYPE_FIRST, re.M)
    return [m.span() for m in line.finditer(source)]


def _alone_on_its_line(node: Node, source: bytes) -> bool:
    """Whether nothing but blanks is before or after this node on its line."""
    start = source.rfind(b"\n", 0, node.start_byte) + 1
    end = source.find(b"\n", node.end_byte)
    return (
        not source[start : node.start_byte].strip() and not source[node.end_byte : end if end != -1 else None].strip()
    )


def _is_macro_name(node: Node, source: bytes) -> bool:
    return _MACRO_NAME.fullmatch(source[node.start_byte : node.end_byte]) is not None


def _ends_made_up(node: Node | None, token: str) -> bool:
    """Whether the grammar ended this node with a `token` the source does not have: the `;` of a declaration an
    annotation follows, the `#endif` of a conditional inside an expression."""
    last = node.child(node.child_count - 1) if node is not None and node.child_count else None
    return last is not None and last.type == token and last.is_missing
