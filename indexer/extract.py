"""From one file's bytes to its facts: symbols with hashes, imports, calls, tags, module doc.

Nothing here recurses into the syntax tree: walks are iterative, so a file of 100k nested
parentheses costs time (bounded by MAX_DEPTH) rather than the process's stack.
"""

from __future__ import annotations

import ast
import bisect
import functools
import hashlib
import inspect
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from tree_sitter import Node, QueryCursor

from .parse import ParseFailed, comments_query, definitions_query, language, node_text, parse

MAX_DEPTH = 1_500  # deeper syntax than this is generated or hostile; the file is skipped
MAX_NAME_BYTES = 1_000  # a longer definition name is generated or hostile; the file is skipped
SIGNATURE_LIMIT = 500
DOC_LIMIT = 4_000
QUALIFIER_LIMIT = 120
HASH_BYTES = 16

CLASS_LIKE = frozenset({"class", "struct", "interface", "trait", "impl", "enum", "object",
                        "module", "protocol", "record", "union", "namespace", "mixin"})
_TAG = re.compile(r"\breq:\s*([A-Za-z][\w.\-/#]*(?:\s*,\s*[A-Za-z][\w.\-/#]*)*)")
_COMMENT_MARKS = re.compile(r"^\s*(?:/\*+|\*+/|\*|///?|//!|#+|--+|;+|%+|!)\s?")
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


def digest(text: str | bytes) -> str:
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    return hashlib.blake2b(data, digest_size=HASH_BYTES).hexdigest()


def normalise_signature(text: str) -> str:
    """Layout-free signature: one space between words, none inside brackets, no trailing comma."""
    text = _SPACES.sub(" ", text).strip()
    text = re.sub(r"([(\[{<])\s+", r"\1", text)
    text = re.sub(r"\s+([)\]}>,])", r"\1", text)
    text = re.sub(r",([)\]}>])", r"\1", text)
    return text.rstrip(" :{").strip()


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
    for _, caps in matches:
        def_capture = next((c for c in caps if c.startswith("definition.")), None)
        if def_capture is not None:
            node = caps[def_capture][0]
            names = caps.get("name")
            if names and names[0].end_byte - names[0].start_byte > MAX_NAME_BYTES:
                raise ParseFailed("identifier too long", f"a name of {names[0].end_byte - names[0].start_byte}"
                                  f" bytes on line {names[0].start_point[0] + 1}, limit {MAX_NAME_BYTES}")
            if names and node.id not in defs:
                outer = node
                if node.parent is not None and node.parent.type == "decorated_definition":
                    outer = node.parent
                scope = caps.get("scope")
                defs[node.id] = _Def(node, outer, node_text(names[0], source), def_capture.split(".", 1)[1],
                                     node_text(scope[0], source) if scope else None, name_node=names[0])
        elif "reference.call" in caps and "name" in caps:
            if caps["name"][0].end_byte - caps["name"][0].start_byte <= MAX_NAME_BYTES:
                call_caps.append(caps)  # a generated megabyte-long name is no reference worth keeping
        elif "import" in caps:
            import_nodes.append((caps["import"][0], caps))
        elif "all.name" in caps and node_text(caps["all.name"][0], source) == "__all__":
            all_value = caps["all.value"][0]

    ordered = _nest(list(defs.values()), path)
    body_hashes = _body_hashes(root, source, lang, ordered)
    facts.symbols = [_symbol(d, source, lang, path, body_hashes[d.node.id]) for d in ordered]
    facts.module_doc = _module_doc(root, source, lang)
    if all_value is not None:
        facts.declared_api = [_string_value(n, source) for n in all_value.named_children
                              if n.type == "string"]
    starts = [d.outer.start_byte for d in ordered]
    facts.calls = _unique_calls(_call(caps, source, ordered, starts) for caps in call_caps)
    facts.imports = [imp for node, caps in import_nodes for imp in _imports(node, caps, source, lang)]
    facts.tags = _tags(root, source, lang, facts, ordered, starts)
    return facts


def _nest(defs: list[_Def], path: str) -> list[_Def]:
    """Order definitions by position, link each to its enclosing one, name them."""
    defs.sort(key=lambda d: (d.outer.start_byte, -d.outer.end_byte))
    stack: list[_Def] = []
    seen: dict[str, int] = {}
    for d in defs:
        while stack and not (stack[-1].outer.start_byte <= d.outer.start_byte
                             and d.outer.end_byte <= stack[-1].outer.end_byte):
            stack.pop()
        d.parent = stack[-1] if stack else None
        if d.kind == "function" and d.parent is not None and d.parent.kind in CLASS_LIKE:
            d.kind = "method"
        prefix = d.scope or (d.parent.qualname if d.parent else "")
        d.qualname = f"{prefix}.{d.name}" if prefix else d.name
        base = f"{path}::{d.qualname}"
        seen[base] = seen.get(base, 0) + 1
        d.id = base if seen[base] == 1 else f"{base}#{seen[base]}"
        stack.append(d)
    return defs


_KIND_ID_LIMIT = 1 << 16


@dataclass(frozen=True)
class _Kinds:
    """Per grammar: token bytes and open-bracket bytes by kind id, and the kinds treated specially."""

    names: list[bytes]
    opens: list[bytes]
    comments: frozenset[int]
    commas: frozenset[int]
    quotes: frozenset[int]
    parens: frozenset[int]  # anonymous ( and ): the named nodes around them already carry the nesting
    transparent: frozenset[int]  # (expr) is expr: the tree's shape already says how it groups
    numbers: frozenset[int]  # 0xFF == 0xff, 1_000 == 1000
    contents: frozenset[int]  # a string's text, taken whole even when escapes split it into children
    literals: frozenset[int]  # Python string literals, hashed by value: 'a' == "a" == r"a" == """a"""


@functools.cache
def _kind_tables(lang: str) -> _Kinds:
    grammar = language(lang)
    names = [(grammar.node_kind_for_id(i) or "").encode() for i in range(grammar.node_kind_count)]
    names += [b"ERROR"] * (_KIND_ID_LIMIT - len(names))  # the error node's id is 65535
    named = [grammar.node_kind_is_named(i) for i in range(grammar.node_kind_count)]

    def kinds(test: Any) -> frozenset[int]:
        return frozenset(i for i, n in enumerate(names[:len(named)]) if test(n, named[i]))

    return _Kinds(
        names=names, opens=[name + b"(" for name in names],
        comments=frozenset(i for i, n in enumerate(names) if b"comment" in n),
        commas=kinds(lambda n, is_named: n == b"," and not is_named),
        quotes=kinds(lambda n, is_named: n in (b"string_start", b"string_end")),
        parens=kinds(lambda n, is_named: n in (b"(", b")") and not is_named),
        transparent=kinds(lambda n, is_named: n == b"parenthesized_expression" and is_named),
        numbers=kinds(lambda n, is_named: is_named and (n in (b"integer", b"float", b"number", b"number_literal")
                                                        or n.endswith((b"integer_literal", b"float_literal")))),
        contents=kinds(lambda n, is_named: n == b"string_content" and is_named),
        literals=kinds(lambda n, is_named: is_named and n in (b"string", b"concatenated_string"))
        if lang == "python" else frozenset(),
    )


def _python_literal(node: Node, source: bytes) -> bytes | None:
    """A Python string literal as its value (None for f-strings and anything not a plain literal)."""
    text = source[node.start_byte:node.end_byte]
    if node.type == "string" and b"\\" not in text:
        children = node.children
        if len(children) < 2 or any(c.type not in ("string_start", "string_content", "string_end") for c in children):
            return None
        prefix = source[children[0].start_byte:children[0].end_byte].rstrip(b"'\"").lower()
        if b"f" in prefix or b"t" in prefix:
            return None
        content = source[children[0].end_byte:children[-1].start_byte]
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
    if kind in k.commas or kind in k.parens:
        return None
    if not node.is_named:
        return k.names[kind]
    text = source[node.start_byte:node.end_byte]
    if kind in k.quotes:
        return text.replace(b"'", b'"')
    if kind in k.numbers:
        return text.lower().replace(b"_", b"")
    return text


def _body_hashes(root: Node, source: bytes, lang: str, defs: list[_Def]) -> dict[int, str]:
    """Hash each definition's body syntax tree: node types, nesting and token texts.

    One walk per file emits a token stream; each definition hashes its slice. Comments and commas
    are left out, so layout, comments and trailing commas change nothing. This loop visits every
    node of every file, so it is written for speed: kind ids, not names; no calls per node.
    """
    kt = _kind_tables(lang)
    opens, comments, literals, transparent = kt.opens, kt.comments, kt.literals, kt.transparent
    # The body alone: a changed parameter list is a signature change, not a body change.
    hashed = [(d.node.child_by_field_name("body") or d.node, d.node.id) for d in defs]
    wanted = {node.id: def_id for node, def_id in hashed}
    def_kinds = frozenset(node.kind_id for node, _ in hashed)
    starts: dict[int, int] = {}
    ends: dict[int, int] = {}
    tokens: list[bytes] = []
    emit = tokens.append
    open_nodes: list[tuple[bool, int | None]] = []  # (named, definition id) per node we are inside
    cursor = root.walk()
    while True:
        node = cursor.node
        if node is None:
            break
        kind = node.kind_id
        literal = _python_literal(node, source) if kind in literals else None
        if kind in comments:
            descended = False
        elif literal is not None:
            emit(literal)
            descended = False
        elif node.child_count == 0 or kind in kt.contents:
            token = _leaf_token(node, kind, source, kt)
            if token is not None:
                emit(token)
            descended = False
        else:
            marker = None
            if kind in def_kinds and node.id in wanted:
                marker = node.id
                starts[marker] = len(tokens)
            named = node.is_named and kind not in transparent
            if named:
                emit(opens[kind])
            descended = cursor.goto_first_child()
            if descended:
                open_nodes.append((named, marker))
                if len(open_nodes) > MAX_DEPTH:
                    raise ParseFailed("too deep", f"syntax nested deeper than {MAX_DEPTH} levels")
                continue
            if named:
                emit(b")")
            if marker is not None:
                ends[marker] = len(tokens)
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return {wanted[k]: digest(b"\x00".join(tokens[k_start:ends.get(k, len(tokens))]))
                        for k, k_start in starts.items()}
            named, marker = open_nodes.pop()
            if named:
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
        if node.id == body.id or kind in kt.comments:
            continue
        if node.id == name_id:
            tokens.append(b"\x01")
            continue
        literal = _python_literal(node, source) if kind in kt.literals else None
        if literal is not None:
            tokens.append(literal)
            continue
        if node.child_count == 0 or kind in kt.contents:
            token = _leaf_token(node, kind, source, kt)
            if token is not None:
                tokens.append(token)
            continue
        if node.is_named and kind not in kt.transparent:
            tokens.append(kt.opens[kind])
            stack.append(_CLOSE)
        stack.extend(reversed(node.children))
    return digest(b"\x00".join(tokens))


def _symbol(d: _Def, source: bytes, lang: str, path: str, body_hash: str) -> dict[str, Any]:
    node = d.node
    body = node.child_by_field_name("body")
    if body is not None and body.start_byte > node.start_byte:
        # Up to the last token before the body: a comment between them is not signature.
        head = [c for c in node.children if c.end_byte <= body.start_byte and not c.is_extra]
        end = head[-1].end_byte if head else body.start_byte
        raw_signature = source[node.start_byte:end].decode("utf-8", "replace")
    else:
        raw_signature = node_text(node, source, SIGNATURE_LIMIT).split("\n", 1)[0]
    signature = normalise_signature(raw_signature[:SIGNATURE_LIMIT])
    params_node = node.child_by_field_name("parameters")
    params = ([" ".join(node_text(p, source, 200).split()) for p in params_node.named_children
               if "comment" not in p.type] if params_node is not None else [])
    returns_node = node.child_by_field_name("return_type") or node.child_by_field_name("result")
    decorators = ([" ".join(node_text(c, source, 200).split()) for c in d.outer.named_children
                   if c.type == "decorator"] if d.outer is not node else [])
    return {
        "id": d.id, "name": d.name, "qualname": d.qualname, "kind": d.kind, "language": lang,
        "path": path, "start_line": d.outer.start_point[0] + 1, "end_line": d.outer.end_point[0] + 1,
        "signature": signature,
        "signature_hash": _signature_hash(d, source, lang) or digest("\n".join([*decorators, signature])),
        "body_hash": body_hash,
        "doc": _doc(d, source, lang), "parent": d.parent.id if d.parent else None,
        "exported": _exported(d, source, lang), "params": params,
        "returns": " ".join(node_text(returns_node, source, 200).split()) if returns_node else None,
        "decorators": decorators,
    }


def _exported(d: _Def, source: bytes, lang: str) -> bool:
    """Whether the language would let another module use this name."""
    name = d.name
    if lang == "python":
        return not name.startswith("_") or (name.startswith("__") and name.endswith("__"))
    if lang == "go":
        return name[:1].isupper()
    if lang == "rust":
        return any(c.type == "visibility_modifier" for c in d.node.children)
    if lang == "java":
        mods = next((c for c in d.node.children if c.type == "modifiers"), None)
        return mods is not None and "public" in node_text(mods, source, 300).split()
    if lang in ("javascript", "typescript", "tsx"):
        parent = d.outer.parent
        return parent is not None and parent.type == "export_statement"
    if lang in ("c", "cpp"):
        return not any(c.type == "storage_class_specifier" and node_text(c, source) == "static"
                       for c in d.node.children)
    return True


def _string_value(node: Node, source: bytes) -> str:
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
    return inspect.cleandoc(_string_value(string, source))[:DOC_LIMIT] or None


def _clean_comment(lines: list[str]) -> str | None:
    cleaned = [_COMMENT_MARKS.sub("", line).rstrip() for text in lines for line in text.splitlines()]
    text = "\n".join(line for line in cleaned if line.strip(" */"))
    return text.strip()[:DOC_LIMIT] or None


def _leading_comments(node: Node, source: bytes) -> str | None:
    comments: list[str] = []
    line = node.start_point[0]
    sibling = node.prev_sibling
    while sibling is not None and "comment" in sibling.type and sibling.end_point[0] >= line - 1:
        comments.insert(0, node_text(sibling, source, DOC_LIMIT))
        line = sibling.start_point[0]
        sibling = sibling.prev_sibling
    return _clean_comment(comments) if comments else None


def _doc(d: _Def, source: bytes, lang: str) -> str | None:
    if lang == "python":
        return _python_docstring(d.node.child_by_field_name("body"), source)
    return _leading_comments(d.outer, source)


def _module_doc(root: Node, source: bytes, lang: str) -> str | None:
    if lang == "python":
        return _python_docstring(root, source)
    comments: list[str] = []
    for child in root.children:
        if "comment" not in child.type:
            break
        comments.append(node_text(child, source, DOC_LIMIT))
    return _clean_comment(comments) if comments else None


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
    qualifier = caps.get("qualifier")
    caller = _innermost(defs, starts, caps["reference.call"][0].start_byte)
    return {
        "caller": caller.id if caller else None,
        "name": node_text(name, source, 200),
        "qualifier": " ".join(node_text(qualifier[0], source, QUALIFIER_LIMIT).split()) if qualifier else None,
        "line": name.start_point[0] + 1,
    }


def _unique_calls(calls: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per (caller, qualifier, name): the first line it is called on is enough to find it."""
    seen: dict[tuple[Any, ...], dict[str, Any]] = {}
    for call in calls:
        seen.setdefault((call["caller"], call["qualifier"], call["name"]), call)
    return list(seen.values())


def _imports(node: Node, caps: dict[str, list[Node]], source: bytes, lang: str) -> list[dict[str, Any]]:
    line = node.start_point[0] + 1
    if lang == "python":
        return _python_imports(node, source, line)
    module = caps.get("import.module")
    if not module:
        return []
    names = [node_text(n, source, 200) for n in caps.get("import.name", [])]
    text = node_text(module[0], source, 500).strip("\"'`<>")
    return [{"module": text, "names": names, "line": line, "kind": lang, "level": 0}]


def _dotted(node: Node, source: bytes) -> str:
    return "".join(node_text(node, source, 500).split())


def _python_imports(node: Node, source: bytes, line: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if node.type == "import_statement":
        for name in node.children_by_field_name("name"):
            target = name.child_by_field_name("name") if name.type == "aliased_import" else name
            if target is not None:
                out.append({"module": _dotted(target, source), "names": [], "line": line,
                            "kind": "import", "level": 0})
        return out
    if node.type == "future_import_statement":
        return [{"module": "__future__", "names": [], "line": line, "kind": "from", "level": 0}]
    module_node = node.child_by_field_name("module_name")
    if module_node is None:
        return out
    level, module = 0, ""
    if module_node.type == "relative_import":
        for child in module_node.children:
            if child.type == "import_prefix":
                level = node_text(child, source).count(".")
            elif child.type == "dotted_name":
                module = _dotted(child, source)
    else:
        module = _dotted(module_node, source)
    names = []
    for name in node.children_by_field_name("name"):
        target = name.child_by_field_name("name") if name.type == "aliased_import" else name
        if target is not None:
            names.append(_dotted(target, source))
    if any(c.type == "wildcard_import" for c in node.children):
        names.append("*")
    for name in names or [""]:
        out.append({"module": module, "names": [name] if name else [], "line": line,
                    "kind": "from", "level": level})
    return out


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
