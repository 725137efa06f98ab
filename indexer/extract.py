"""From one file's bytes to its facts: symbols with hashes, imports, calls, tags, module doc.

Nothing here recurses into the syntax tree: walks are iterative, so a file of 100k nested
parentheses costs time (bounded by MAX_DEPTH) rather than the process's stack.
"""

from __future__ import annotations

import ast
import bisect
import functools
import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from tree_sitter import Node, QueryCursor

from . import fallback
from .docs import DOC_LIMIT, definition_doc, module_doc, string_value
from .imports import read_imports
from .language_rules import (
    JS_LANGUAGES,
    clean_scope,
    exported,
    is_definition,
    js_export_names,
    outer_node,
    params,
    returns,
    signature_head,
    split_qualified,
)
from .parse import QUERY_LANGUAGES, ParseFailed, comments_query, definitions_query, language, node_text, parse

MAX_DEPTH = 1_500  # deeper syntax than this is generated or hostile; the file is skipped
MAX_NAME_BYTES = 1_000  # a longer definition name is generated or hostile; the file is skipped
SIGNATURE_LIMIT = 500
QUALIFIER_LIMIT = 120
HASH_BYTES = 16

CLASS_LIKE = frozenset({"class", "struct", "interface", "trait", "impl", "enum", "object",
                        "module", "protocol", "record", "union", "namespace", "mixin"})
# A function directly in one of these is a method; in a namespace or (except in Ruby) a module it is not.
_METHOD_HOSTS = CLASS_LIKE - {"namespace", "module"}
_LINKED_OWNERS = CLASS_LIKE | {"type"}  # what `func (p Point) M()` or `void Foo::m()` may belong to
_TAG = re.compile(r"\breq:\s*([A-Za-z][\w.\-/#]*(?:\s*,\s*[A-Za-z][\w.\-/#]*)*)")
_SPACES = re.compile(r"\s+")


@dataclass
class FileFacts:
    language: str
    lines: int
    module_doc: str | None = None
    declared_api: list[str] | None = None
    symbols: list[dict[str, Any]] = field(default_factory=list)
    imports: list[dict[str, Any]] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)
    tags: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class _Def:
    node: Node  # the definition itself
    outer: Node  # the span we report: the definition plus its decorators
    name: str
    kind: str
    scope: str | None = None
    parent: _Def | None = None
    qualname: str = ""
    id: str = ""
    name_node: Node | None = None  # left out of the signature hash, so a rename alone is no signature change
    head: Node | None = None  # where the signature text starts (`const f =` before an arrow function)
    private: bool = False  # said so by its form (`defp`), whatever the language's rules
    member_prefix: str = ""  # what its members' qualified names start with (an impl's: its type)
    trait: str | None = None  # the trait an impl implements
    declaration: _Def | None = None  # the prototype that gave way to it: C++ visibility is said there


def digest(text: str | bytes) -> str:
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    return hashlib.blake2b(data, digest_size=HASH_BYTES).hexdigest()


def normalise_signature(text: str) -> str:
    """Layout-free signature: one space between words, none inside brackets, no trailing comma."""
    text = _SPACES.sub(" ", text).strip()
    text = re.sub(r"([(\[{]|(?<=\S)<)\s+", r"\1", text)  # `Map< K >`, not Ruby's `class A < B`
    text = re.sub(r"\s+([)\]}>,])", r"\1", text)
    text = re.sub(r",([)\]}>])", r"\1", text)
    return text.rstrip(" :{;").strip()


def count_lines(source: bytes) -> int:
    if not source:
        return 0
    return source.count(b"\n") + (0 if source.endswith(b"\n") else 1)


def extract(path: str, source: bytes, lang: str) -> FileFacts:
    """Everything we index about one file. Raises ParseFailed when the file is beyond our bounds."""
    tree = parse(source, lang)
    root = tree.root_node
    facts = FileFacts(language=lang, lines=count_lines(source))
    query = definitions_query(lang)
    matches = QueryCursor(query).matches(root) if query is not None else []

    defs: dict[int, _Def] = {}
    all_value: Node | None = None
    import_nodes: list[tuple[Node, dict[str, list[Node]]]] = []
    call_caps: list[dict[str, list[Node]]] = []
    ranks: dict[int, int] = {}
    for pattern, caps in matches:
        def_capture = next((c for c in caps if c.startswith("definition.")), None)
        if def_capture is not None:
            node = caps[def_capture][0]
            # The first pattern in the query that matches a node decides its kind (matches come in
            # the order they complete, so a general pattern can arrive before a specific one).
            if ranks.get(node.id, pattern + 1) > pattern:
                found = _definition(caps, node, def_capture.split(".", 1)[1], source, lang)
                if found is not None:
                    defs[node.id] = found
                    ranks[node.id] = pattern
        elif "reference.call" in caps:
            if "name" not in caps and lang not in QUERY_LANGUAGES:
                caps = _fallback_call(caps["reference.call"][0], source)
            if "name" in caps and caps["name"][0].end_byte - caps["name"][0].start_byte <= MAX_NAME_BYTES:
                call_caps.append(caps)  # a generated megabyte-long name is no reference worth keeping
        elif "import" in caps:
            import_nodes.append((caps["import"][0], caps))
        elif "all.name" in caps and node_text(caps["all.name"][0], source) == "__all__":
            all_value = caps["all.value"][0]

    ordered = _nest(_without_holders(defs), path, lang)
    body_hashes = _body_hashes(root, source, lang, ordered)
    js_exports = js_export_names(root, source) if lang in JS_LANGUAGES else frozenset()
    facts.symbols = [_symbol(d, source, lang, path, body_hashes.get(d.node.id) or _leaf_body_hash(d, source, lang),
                             js_exports) for d in ordered]
    facts.module_doc = module_doc(root, source, lang, ordered[0].outer if ordered else None)
    if all_value is not None:
        facts.declared_api = [string_value(n, source) for n in all_value.named_children
                              if n.type == "string"]
    starts = [d.outer.start_byte for d in ordered]
    facts.calls = _unique_calls(_call(caps, source, ordered, starts) for caps in call_caps)
    facts.imports = [imp for node, caps in import_nodes for imp in read_imports(node, caps, source, lang)]
    facts.tags = _tags(root, source, lang, facts, ordered, starts)
    return facts


def _fallback_call(node: Node, source: bytes) -> dict[str, list[Node]]:
    """The captures a query would give: the call, its name, its qualifier; no name for a `def` form."""
    parts = fallback.call_parts(node, source)
    if parts is None or source[parts[0].start_byte:parts[0].start_byte + 3] == b"def":
        return {}
    name, qualifier = parts
    return {"reference.call": [node], "name": [name], **({"qualifier": [qualifier]} if qualifier else {})}


def _leaf_body_hash(d: _Def, source: bytes, lang: str) -> str:
    """A body that is one token (`x => x`), which the tree walk of _body_hashes does not mark."""
    body = d.node.child_by_field_name("body") or d.node
    token = _leaf_token(body, body.kind_id, source, _kind_tables(lang))
    return digest(token or b"")


def _definition(caps: dict[str, list[Node]], node: Node, kind: str, source: bytes, lang: str) -> _Def | None:
    """A matched definition with its name and scope, or None when it names nothing."""
    private = False
    name_node: Node | None
    if kind == "form":  # the fallback's `(defn name ...)` / `def name do`
        form = fallback.form_definition(node_text(caps["definer"][0], source, 40), node, caps["holder"][0])
        if form is None:
            return None
        kind, name_node, private = form
    elif "name" in caps:
        name_node = caps["name"][0]
    elif lang not in QUERY_LANGUAGES:
        name_node = fallback.name_node(node, kind)
    else:
        return None
    if name_node is None or not is_definition(node, lang):
        return None
    if name_node.end_byte - name_node.start_byte > MAX_NAME_BYTES:
        if lang not in QUERY_LANGUAGES:
            return None  # a heading, a selector list, a key: long text, but no identifier gone wrong
        raise ParseFailed("identifier too long", f"a name of {name_node.end_byte - name_node.start_byte}"
                          f" bytes on line {name_node.start_point[0] + 1}, limit {MAX_NAME_BYTES}")
    scope_nodes = caps.get("scope")
    scope = clean_scope(node_text(scope_nodes[0], source, QUALIFIER_LIMIT), lang) if scope_nodes else None
    text = node_text(name_node, source)
    qualifier, name = (None, " ".join(text.split())) if kind == "section" else split_qualified(text)
    if qualifier:  # `void Foo::bar()`, `class A::B`, `function M.f()`
        scope = f"{scope}.{qualifier}" if scope else qualifier
    if not name:
        return None
    outer = outer_node(node, lang)
    trait = node.child_by_field_name("trait") if kind == "impl" else None
    return _Def(node, outer, name, kind, scope, name_node=name_node, head=signature_head(node, outer),
                private=private, trait=clean_scope(node_text(trait, source, QUALIFIER_LIMIT), lang) if trait else None)


def _without_holders(defs: dict[int, _Def]) -> list[_Def]:
    """`export const f = () => {}` is the function f, not also a constant f holding it."""
    for d in list(defs.values()):
        holder = d.node.parent
        while holder is not None and holder.id not in defs and holder.type in ("lexical_declaration",):
            holder = holder.parent
        if holder is not None and holder.id in defs and defs[holder.id].name == d.name \
                and defs[holder.id].kind in ("const", "variable"):
            del defs[holder.id]
    return list(defs.values())


def _nest(defs: list[_Def], path: str, lang: str) -> list[_Def]:
    """Order definitions by position, link each to its enclosing one, name them."""
    defs.sort(key=lambda d: (d.outer.start_byte, -d.outer.end_byte))
    stack: list[_Def] = []
    kept: list[_Def] = []
    hosts = _METHOD_HOSTS | {"module"} if lang == "ruby" else _METHOD_HOSTS
    for d in defs:
        while stack and not (stack[-1].outer.start_byte <= d.outer.start_byte
                             and d.outer.end_byte <= stack[-1].outer.end_byte):
            stack.pop()
        enclosing = stack[-1] if stack else None
        # `typedef struct point {...} point_t;`: the struct is the typedef's sibling, not its member.
        while enclosing is not None and _is_type_of(enclosing.node, d.node):
            enclosing = enclosing.parent
        if enclosing is not None and (fallback.is_local(d.kind, enclosing.kind) or (
                lang not in QUERY_LANGUAGES and fallback.is_repeat(d.name, d.kind, enclosing.name, enclosing.kind))):
            continue  # a local variable; a fallback grammar's header node inside its own definition
        d.parent = enclosing
        prefix = enclosing.member_prefix if enclosing else ""
        if d.scope:  # `Shape::area` inside `namespace geo` is geo.Shape.area, and so is `geo::Shape::area`
            prefix = d.scope if not prefix or d.scope == prefix or d.scope.startswith(prefix + ".") \
                else f"{prefix}.{d.scope}"
        if d.kind == "function" and enclosing is not None and enclosing.kind in hosts:
            d.kind = "method"
        d.qualname = f"{prefix}.{d.name}" if prefix else d.name
        d.member_prefix = d.qualname
        if d.kind == "impl":  # `impl Area for Point` is no second Point; its methods are Point's
            label = f"impl {d.trait} for {d.name}" if d.trait else f"impl {d.name}"
            d.qualname = f"{prefix}.{label}" if prefix else label
        kept.append(d)
        stack.append(d)
    _link_to_owners(kept)
    kept = _without_declarations(kept)
    seen: dict[str, int] = {}
    for d in kept:
        base = f"{path}::{d.qualname}"
        seen[base] = seen.get(base, 0) + 1
        d.id = base if seen[base] == 1 else f"{base}#{seen[base]}"
    return kept


def _is_type_of(holder: Node, node: Node) -> bool:
    typed = holder.child_by_field_name("type")
    return typed is not None and typed.id == node.id


def _link_to_owners(defs: list[_Def]) -> None:
    """A method defined outside its type (`func (p Point) M()`, `void Foo::m()`) belongs to that type."""
    owners: dict[str, _Def] = {}
    for d in defs:
        if d.kind in _LINKED_OWNERS:
            owners.setdefault(d.qualname, d)
    for d in defs:
        if not d.scope:
            continue
        owner = owners.get(d.qualname[: -len(d.name) - 1])
        if owner is not None and owner is not d and owner is not d.parent:
            d.parent = owner
            if d.kind == "function":
                d.kind = "method"


def _without_declarations(defs: list[_Def]) -> list[_Def]:
    """A prototype or overload signature gives way to the definition with a body of the same name."""
    bodied = {d.qualname: d for d in defs if d.node.child_by_field_name("body") is not None}
    kept = []
    for d in defs:
        definition = bodied.get(d.qualname)
        if definition is None or d.node.child_by_field_name("body") is not None:
            kept.append(d)
        elif definition.declaration is None:
            definition.declaration = d
    return kept


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
    return _Kinds(names=names + [b"ERROR"] * padding, opens=[name + b"(" for name in names] + [b"ERROR("] * padding,
                  plan=bytes(plan), leaf=bytes(leaf), brackets=bytes(brackets))


_STRING_OPENING = re.compile(rb"([A-Za-z]*)('\'\'|\"\"\"|'|\")")


def _python_literal(node: Node, source: bytes) -> bytes | None:
    """A Python string literal as its value (None for f-strings and anything not a plain literal)."""
    text = source[node.start_byte:node.end_byte]
    if node.type == "string" and b"\\" not in text:
        opening = _STRING_OPENING.match(text)
        quote = opening.group(2) if opening else b""
        if opening and len(text) >= opening.end() + len(quote) and text.endswith(quote) and not node.has_error:
            # Well formed, so its children are the opening, the text and the closing: read them off
            # the bytes (a string in every few nodes of Python: building its children cost more).
            prefix, content = opening.group(1).lower(), text[opening.end():len(text) - len(quote)]
        else:
            children = node.children
            if len(children) < 2 or any(c.type not in ("string_start", "string_content", "string_end")
                                        for c in children):
                return None
            prefix = source[children[0].start_byte:children[0].end_byte].rstrip(b"'\"").lower()
            content = source[children[0].end_byte:children[-1].start_byte]
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
    text = source[node.start_byte:node.end_byte]
    if how == _QUOTE:
        return text.replace(b"'", b'"')
    if how == _NUMBER:
        return text.lower().replace(b"_", b"")
    return text


def _body_hashes(root: Node, source: bytes, lang: str, defs: list[_Def]) -> dict[int, str]:
    """Hash each definition's body syntax tree: node types, nesting and token texts.

    One walk per file emits a token stream; each definition hashes its slice. Comments and commas
    are left out, so layout, comments and trailing commas change nothing. This loop visits every
    node of every file, so it is written for speed: kind ids and byte tables, not names; a call
    per node only where a leaf is not a plain name or text.
    """
    kt = _kind_tables(lang)
    names, opens, plan, leaves, brackets = kt.names, kt.opens, kt.plan, kt.leaf, kt.brackets
    # The body alone: a changed parameter list is a signature change, not a body change.
    hashed = [(d.node.child_by_field_name("body") or d.node, d.node.id) for d in defs]
    wanted = {node.id: def_id for node, def_id in hashed}
    def_kinds = frozenset(node.kind_id for node, _ in hashed)
    starts: dict[int, int] = {}
    ends: dict[int, int] = {}
    tokens: list[bytes] = []
    emit = tokens.append
    open_nodes: list[tuple[int, int | None]] = []  # (brackets, definition id) per node we are inside
    cursor = root.walk()
    goto_first_child, goto_next_sibling, goto_parent = (
        cursor.goto_first_child, cursor.goto_next_sibling, cursor.goto_parent)
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
                return {wanted[k]: digest(b"\x00".join(tokens[k_start:ends.get(k, len(tokens))]))
                        for k, k_start in starts.items()}
            bracket, marker = open_nodes.pop()
            if bracket:
                emit(b")")
            if marker is not None:
                ends[marker] = len(tokens)
    return {wanted[k]: digest(b"\x00".join(tokens[k_start:ends.get(k, len(tokens))]))
            for k, k_start in starts.items()}


_CLOSE = None  # on the walk stack: the end of a named node


def _signature_hash(d: _Def, source: bytes, lang: str) -> str | None:
    """Hash the definition's syntax without its body: decorators, parameters, return type, bases.

    Same tokens as the body hash (no comments, no layout), and the name left out, so renaming
    alone is no signature change. None when the grammar gives the definition no body.
    """
    body = d.node.child_by_field_name("body")
    if body is None:
        return None
    kt = _kind_tables(lang)
    name_id = d.name_node.id if d.name_node is not None else None
    tokens: list[bytes] = []
    stack: list[Node | None] = [d.outer]
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


def _symbol(d: _Def, source: bytes, lang: str, path: str, body_hash: str,
            js_exports: frozenset[str] = frozenset()) -> dict[str, Any]:
    node = d.node
    signature = normalise_signature(_signature_text(d, source, lang)[:SIGNATURE_LIMIT])
    decorators = ([" ".join(node_text(c, source, 200).split()) for c in d.outer.named_children
                   if c.type == "decorator"] if d.outer is not node else [])
    declared = d.declaration or d
    parent = (declared.parent.node, declared.parent.kind) if declared.parent else None
    end_row, end_column = d.outer.end_point
    if end_column == 0 and end_row > d.outer.start_point[0]:
        end_row -= 1  # a node that ends with its newline (`#define X 1`) ends on the line before
    return {
        "id": d.id, "name": d.name, "qualname": d.qualname, "kind": d.kind, "language": lang,
        "path": path, "start_line": d.outer.start_point[0] + 1, "end_line": end_row + 1,
        "signature": signature,
        "signature_hash": _signature_hash(d, source, lang) or digest("\n".join([*decorators, signature])),
        "body_hash": body_hash,
        "doc": definition_doc(d.node, d.outer, source, lang), "parent": d.parent.id if d.parent else None,
        "exported": not d.private and exported(declared.node, declared.outer, d.name, d.kind, parent, source, lang,
                                               js_exports),
        "params": params(node, d.kind, source, lang), "returns": returns(node, d.kind, source, lang),
        "decorators": decorators,
    }


def _signature_text(d: _Def, source: bytes, lang: str) -> str:
    """From the head (`def`, `const f =`, `type T`, `template <...>`) to the body, or the declaration."""
    node = d.node
    start = (d.head or node).start_byte
    body = node.child_by_field_name("body")
    if body is not None and body.start_byte > node.start_byte:
        # Up to the last token before the body: a comment between them is not signature.
        head = [c for c in node.children if c.end_byte <= body.start_byte and not c.is_extra]
        end = head[-1].end_byte if head else body.start_byte
        return source[start:end].decode("utf-8", "replace")
    # No body: a declaration is all signature, up to a block of members (`type T struct {`).
    text = source[start:min(node.end_byte, start + SIGNATURE_LIMIT * 2)].decode("utf-8", "replace")
    if lang not in QUERY_LANGUAGES:  # grammars we know less of: the first line, up to a block
        return re.split(r"\s\{", text.split("\n", 1)[0], maxsplit=1)[0].rstrip().rstrip(";")
    text = text.split("{", 1)[0].rstrip().rstrip(";")
    return text.split("\n", 1)[0] if "\n" in text and d.kind not in ("function", "method") else text


def _innermost(defs: list[_Def], starts: list[int], byte: int) -> _Def | None:
    i = bisect.bisect_right(starts, byte) - 1
    while i >= 0:
        d = defs[i]
        if d.outer.start_byte <= byte < d.outer.end_byte:
            return d
        i -= 1
    return None


def _call(caps: dict[str, list[Node]], source: bytes, defs: list[_Def], starts: list[int]) -> dict[str, Any]:
    name = caps["name"][0]
    qualifier_node = caps.get("qualifier")
    qualifier = " ".join(node_text(qualifier_node[0], source, QUALIFIER_LIMIT).split()) if qualifier_node else None
    called = node_text(name, source, 200)
    if "::" in called:  # `std::fs::read()`, `Self::new()`: the path is the qualifier
        path, _, called = called.rpartition("::")
        qualifier = f"{qualifier}.{path}" if qualifier else path
    caller = _innermost(defs, starts, caps["reference.call"][0].start_byte)
    return {"caller": caller.id if caller else None, "name": called, "qualifier": qualifier,
            "line": name.start_point[0] + 1}


def _unique_calls(calls: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per (caller, qualifier, name): the first line it is called on is enough to find it."""
    seen: dict[tuple[Any, ...], dict[str, Any]] = {}
    for call in calls:
        seen.setdefault((call["caller"], call["qualifier"], call["name"]), call)
    return list(seen.values())


def _tags(root: Node, source: bytes, lang: str, facts: FileFacts, defs: list[_Def],
          starts: list[int]) -> list[dict[str, Any]]:
    """`req: TAG[, TAG]` in comments and docstrings, tied to the symbol they stand in or before."""
    found: dict[tuple[str, int], str | None] = {}
    query = comments_query(lang) if b"req:" in source else None  # most files have no tags
    comment_nodes = QueryCursor(query).captures(root).get("comment", []) if query else []
    for comment in comment_nodes:
        text = node_text(comment, source, DOC_LIMIT)
        if "req:" not in text:
            continue
        owner = _innermost(defs, starts, comment.start_byte)
        if owner is None:  # a comment just above a definition belongs to it
            after = bisect.bisect_left(starts, comment.end_byte)
            if after < len(defs) and defs[after].outer.start_point[0] <= comment.end_point[0] + 1:
                owner = defs[after]
        for offset, line in enumerate(text.splitlines()):
            for match in _TAG.finditer(line):
                for tag in match.group(1).split(","):
                    found.setdefault((tag.strip(), comment.start_point[0] + 1 + offset),
                                     owner.id if owner else None)
    docs = [(facts.module_doc, 1, None)] + [(s["doc"], s["start_line"], s["id"]) for s in facts.symbols]
    for doc, line, owner_id in docs:
        if doc and "req:" in doc:
            for match in _TAG.finditer(doc):
                for tag in match.group(1).split(","):
                    found.setdefault((tag.strip(), line), owner_id)
    return [{"tag": tag, "line": line, "symbol": owner} for (tag, line), owner in sorted(found.items())]
