"""Rust items written inside a macro's braces, read as the items they are.

`pin_project! { pub struct Connection<T> { ... } }`, `cfg_client! { pub mod client; }` and hyper's
`ffi_fn! { fn hyper_clientconn_handshake(...) { ... } }` are how much of a Rust crate's public API is
written. The grammar sees each as a macro invocation with a token tree: no struct, no module, no function,
so `get_symbol` of hyper's `server::conn::http1::Connection` found nothing. Here each such wrapper
(`pin_project! {` and its `}`) is blanked to spaces and the file parsed again: the items inside stand at
item level at the very bytes and lines they were written at, so every fact read of them points into the
file as it is. Only what parses as items is kept: whatever else the braces hold (ffi_fn's `?= default`
after the function) is blanked too, and a macro holding no item at all (`quote! { ... }`) is left as it was.

The standard macros that take expressions (`assert_eq!(parse(x), 3)`, `vec![make()]`, `println!("{}", total())`)
are read as the calls they are written like: their `!` becomes a space (and a `[...]` a `(...)`), so the grammar
reads a call of the macro with the calls inside it, where it read one token tree. Without it a test's calls inside
its assertions were no calls, and a function only a test's `assert!` called reached no test. So is any other macro
invoked in a body whose tokens parse as a call's arguments (httparse's `complete!(parse_uri(&mut bytes))`,
`ready!(self.poll_read(cx))`): rustc's IR (bench/facts_calls_rust.py) showed httparse's request parser calling
functions no answer had. What does not parse so (`json!({"a": 1})`, `quote!(#x)`) is left as it was.
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Callable

from tree_sitter import Language, Node, Query, Tree

from . import parse as parsing
from .parse import blanked, captured

MAX_NESTING = 3  # `cfg_feature! { pin_project! { ... } }`: a wrapper inside a wrapper is read the round after
_HOSTS = frozenset({"mod_item", "impl_item", "trait_item", "foreign_mod_item"})  # bodies items stand in
_KEPT = frozenset({"line_comment", "block_comment", "attribute_item", "inner_attribute_item", "macro_invocation"})
_ITEM_TYPES = ("_item", "_declaration")  # `struct_item`, `use_declaration`, ...
_ITEM_KEYWORDS = frozenset({"fn", "struct", "enum", "union", "trait", "impl", "mod", "type", "const", "static", "use"})
_EXPRESSION_MACROS = frozenset(
    b"assert assert_eq assert_ne debug_assert debug_assert_eq debug_assert_ne vec format format_args print println"
    b" eprint eprintln write writeln panic dbg todo unimplemented unreachable".split()
)
MAX_GROUPS = 4  # the most bodies one item is read across (`const A: T = T { .. };` ends at its second)
MAX_PARSES = 256  # of one macro's parts, read one by one (a thousand parts, none of them an item, cost no more)


def unwrapped(source: bytes, tree: Tree, parse: Callable[[bytes], Tree]) -> tuple[Tree, list[Node]]:
    """The tree of `source` with the items inside macro wrappers parsed as items, and the wrappers' invocations
    (nodes of the trees they were found in, at their own offsets: each still calls its macro). `parse` parses
    Rust; the tree is `tree` itself when no wrapper holds an item."""
    wrappers: list[Node] = []
    seen: set[int] = set()
    for _ in range(MAX_NESTING):
        found = [m for m in _item_macros(tree.root_node, source) if m.start_byte not in seen]
        seen.update(m.start_byte for m in found)
        blanks = [(m, spans) for m in found if (spans := _blanks(m, source, parse))]
        if not blanks:
            break
        source = blanked(source, [span for _, spans in blanks for span in spans])
        wrappers += [m for m, _ in blanks]
        tree = parse(source)
    tried: set[int] = set()  # the macros of others read as calls once, and left as they were
    for _ in range(MAX_NESTING):  # `assert_eq!(vec![a()], b)`: the inner one is a macro once the outer is a call
        standard, others = _expression_macros(tree, source, tried)
        if not standard and not others:
            break
        tried.update(m.start_byte for m in others)
        before = source
        source = _as_calls(source, tree, standard + others)
        tree = parsing.parse(source, "rust", old_tree=tree)  # a few bytes changed: the parser reuses the rest
        unread = [m for m in others if _unread(tree, m)]
        if unread:  # `json!({...})`, `quote!(#x)`: not expressions, so not calls; the rest stay calls
            restored = bytearray(source)
            for macro in unread:
                restored[macro.start_byte : macro.end_byte] = before[macro.start_byte : macro.end_byte]
            source = bytes(restored)
            tree = parsing.parse(source, "rust")
    return tree, wrappers


@functools.cache
def _macro_query(language: Language) -> Query:
    return Query(language, "(macro_invocation) @macro")


def _expression_macros(tree: Tree, source: bytes, tried: set[int]) -> tuple[list[Node], list[Node]]:
    """The invocations with their tokens in `(...)` or `[...]`: of the standard macros taking expressions
    (_EXPRESSION_MACROS), and of any other (`complete!(parse_uri(&mut bytes))`, `ready!(self.poll_read(cx))`) not
    yet tried, whose tokens may be expressions: a call of it is kept only where they parse as its arguments."""
    standard, others = [], []
    for macro in captured(_macro_query(tree.language), tree.root_node).get("macro", []):
        name, tokens = macro.child_by_field_name("macro"), macro.named_children[-1] if macro.named_children else None
        if name is None or name.type not in ("identifier", "scoped_identifier") or tokens is None:
            continue
        if tokens.type != "token_tree" or source[tokens.start_byte] not in b"([":
            continue
        if name.type == "identifier" and source[name.start_byte : name.end_byte] in _EXPRESSION_MACROS:
            standard.append(macro)
        elif macro.start_byte not in tried and _in_body(macro):
            others.append(macro)  # not an item-level `define!(...);`, which no call could be
    return standard, others


def _in_body(node: Node) -> bool:
    """Whether the node is inside a block: a function's body, a closure's, a const's value."""
    parent = node.parent
    while parent is not None and parent.type != "block":
        parent = parent.parent
    return parent is not None


def _unread(tree: Tree, macro: Node) -> bool:
    """Whether the macro, written as a call, did not parse as one (an error inside, or no call at its place)."""
    node = tree.root_node.descendant_for_byte_range(macro.start_byte, macro.end_byte)
    return node is None or node.type != "call_expression" or node.has_error


def _as_calls(source: bytes, tree: Tree, macros: list[Node]) -> bytes:
    """`source` with each macro written as a call: its `!` a space, its brackets parentheses (lengths kept); `tree`
    is edited to match, for parsing again."""
    out = bytearray(source)
    changed: list[tuple[int, tuple[int, int]]] = []  # (byte, point) of each byte replaced
    for macro in macros:
        tokens = macro.named_children[-1]
        bang = next(c for c in macro.children if c.type == "!")
        out[bang.start_byte] = 0x20
        changed.append((bang.start_byte, bang.start_point))
        if source[tokens.start_byte] == ord("["):
            out[tokens.start_byte], out[tokens.end_byte - 1] = ord("("), ord(")")
            closing = (tokens.end_point[0], tokens.end_point[1] - 1)
            changed += [(tokens.start_byte, tokens.start_point), (tokens.end_byte - 1, closing)]
    for byte, (row, column) in changed:
        tree.edit(byte, byte + 1, byte + 1, (row, column), (row, column + 1), (row, column + 1))
    return bytes(out)


def _item_macros(root: Node, source: bytes) -> list[Node]:
    """The macro invocations with braces that stand where items do: in the file, or in a module's, impl's or
    trait's body (not in a function's, where `foo! { ... }` is an expression)."""
    out: list[Node] = []
    bodies = [root]
    while bodies:
        for child in bodies.pop().named_children:
            if child.type == "macro_invocation" and _may_wrap_items(child, source):
                out.append(child)
            elif child.type in _HOSTS and (body := child.child_by_field_name("body")) is not None:
                bodies.append(body)
    return out


def _blanks(macro: Node, source: bytes, parse: Callable[[bytes], Tree]) -> list[tuple[int, int]]:
    """The byte spans to blank so that the items `macro` holds stand as items: its head and closing brace, and
    whatever between is not an item; none when it holds no item."""
    tokens = macro.named_children[-1]
    start, end = tokens.start_byte + 1, tokens.end_byte - 1
    items = _items(source, start, end, parse)
    spans: list[tuple[int, int]] = []
    if items is None:  # something not an item lies among them (`fn f() { ... } ?= default`): read them one by one
        items, at, parses = 0, start, 0
        ends = [c.end_byte for c in tokens.children[1:-1] if _ends_item(c, source)] + [end]
        while at < end:
            later = ends[bisect.bisect_right(ends, at) :][:MAX_GROUPS]
            found, stop = None, later[0]
            for e in later if parses < MAX_PARSES else ():
                parses += 1
                if (found := _items(source, at, e, parse)) is not None:
                    stop = e
                    break
            if found is None:  # no item ends at its next groups: blank up to the first
                spans.append((at, stop))
            items += found or 0
            at = stop
    return [(macro.start_byte, start), (end, macro.end_byte), *spans] if items else []


def _items(source: bytes, start: int, end: int, parse: Callable[[bytes], Tree]) -> int | None:
    """How many items `source[start:end]` holds, when it holds nothing else but comments and attributes; None when
    it holds anything else."""
    items, text = 0, source[start:end]
    for child in parse(text).root_node.children:
        if child.has_error or not (child.type in _KEPT or child.type.endswith(_ITEM_TYPES)):
            return None
        items += child.type not in _KEPT or (child.type == "macro_invocation" and _may_wrap_items(child, text))
    return items


def _may_wrap_items(macro: Node, source: bytes) -> bool:
    """Whether a macro's braces may hold items: an item's keyword among their tokens, or among those of a macro
    inside them (`cfg_feature! { #![...] pin_project! { struct ... } }`); not hyper's `test! { name: ...,
    client: { ... } }`, settings that need no parse to tell."""
    tokens = macro.named_children[-1] if macro.named_children else None
    if tokens is None or tokens.type != "token_tree" or source[tokens.start_byte] != ord("{"):
        return False
    groups = [tokens]
    while groups:
        children = groups.pop().children
        for before, token in zip([None, *children], children, strict=False):
            if token.type in _ITEM_KEYWORDS:
                return True
            if token.type == "token_tree" and before is not None and before.type == "!":
                groups.append(token)
    return False


def _ends_item(token: Node, source: bytes) -> bool:
    """Whether an item may end after this token of a token tree: a `;`, or a group in braces (a body)."""
    return token.type == ";" or (token.type == "token_tree" and source[token.start_byte] == ord("{"))
