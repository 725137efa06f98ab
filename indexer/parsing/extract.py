"""From one file's bytes to its facts: symbols with hashes, imports, calls, tags, module doc.

Nothing here recurses into the syntax tree: walks are iterative, so a file of 100k nested
parentheses costs time (bounded by hashes.MAX_DEPTH) rather than the process's stack.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tree_sitter import Node, QueryCursor

from ...store.cppcalls import TAKEN
from ...store.refs import MODULE
from ...store.symbol import Symbol
from . import fallback
from .callrefs import PythonRefs
from .callsites import (
    QUALIFIER_LIMIT,
    CallRefs,
    call_site,
    fallback_call,
    implicit_call,
    innermost,
    numbered,
    unique_calls,
)
from .cexpand import Expansion, defines, expansions
from .cmacrobody import macro_body_calls
from .cmacros import unannotated
from .cppfields import OPERATOR_SITES, call_arguments, cpp_fields, operator_call
from .docs import DOC_LIMIT, definition_doc, module_doc, says_generated, string_value
from .gopackage import go_package_references
from .gorefs import GoRefs
from .hashes import body_hashes, digest, leaf_body_hash, signature_hash
from .imports import java_package_references, read_imports
from .javafields import java_facts
from .jsrefs import JsRefs
from .language_rules import (
    JS_LANGUAGES,
    clean_scope,
    exported,
    is_definition,
    js_export_names,
    js_exported_as,
    macro_defined_name,
    outer_node,
    params,
    returns,
    signature_head,
    split_qualified,
)
from .nesting import Def, nest, without_holders
from .nodes import decorators, leading_attributes
from .parse import (
    QUERY_LANGUAGES,
    ParseFailed,
    captured,
    comments_query,
    definitions_query,
    node_text,
    outline_query,
    parse,
)
from .pydjango import django_routes
from .pyroutes import routes
from .rubyfields import may_call_ours, ruby_facts
from .rubynames import SINGLETON_CLASS, in_singleton_class
from .rustfields import rust_fields
from .rustimplicit import trait_calls, written_calls
from .rustmacros import unwrapped
from .signatures import signature_of
from .templates import is_template, template_facts

MAX_NAME_BYTES = 1_000  # a longer definition name is generated or hostile; the file is skipped
# A JavaScript or CSS file whose lines average more bytes than this is minified (a bundle a build wrote on one line,
# jquery.min.js): code as people write it averages 30 to 60, and no file of 18 repositories' own code passes 150,
# while their bundles are 380 to a million. Its symbols (3,991 one-letter names in babybuddy's graph.js) are noise to
# a search and would be parsed again for each commit that rebuilds it (babybuddy's 1,000 commits: 105 -> 82 s, the
# index from scratch 132 -> 90 s and 366 -> 288 MB); it is indexed as a generated file, without them. Other languages
# are not minified: a long line there is a literal beside code people wrote, or a hostile file with its own reason.
# localize_bench --vectors, the five repositories holding such files: axios .91 -> .92 pack file Acc@5, the hold-out
# babybuddy symbol Acc@10 .55 -> .53, the rest the same (Healthchecks, undici, httpx).
MINIFIED_LANGUAGES = frozenset({"javascript", "css"})
MINIFIED_LINE = 300
MINIFIED_SIZE = 1_024  # a smaller file with a long line is a snippet, not a bundle
# Code has a brace in every few dozen bytes, minified too (bundles 5 to 13 a kilobyte); a literal has none: a long line
# with less than one a kilobyte is data beside the code (undici's llhttp.wasm.js, WebAssembly as base64; a font or an
# image as a data URI), which leaves the file's own symbols be.
MINIFIED_BRACES = 1_000

_TAG = re.compile(r"\breq:\s*([A-Za-z][\w.\-/#]*(?:\s*,\s*[A-Za-z][\w.\-/#]*)*)")


@dataclass
class FileFacts:
    language: str
    lines: int
    module_doc: str | None = None
    declared_api: list[str] | None = None
    generated: bool = False  # its head says a tool wrote it (docs.says_generated), or it is minified
    symbols: list[Symbol] = field(default_factory=list)
    imports: list[dict[str, Any]] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)
    tags: list[dict[str, Any]] = field(default_factory=list)
    # a class's fields with a declared type, {owner, name, type}: what `a.store.get()` calls in another file
    fields: list[dict[str, Any]] = field(default_factory=list)
    # JavaScript's exports under other names than the definitions' (`default`: what `module.exports =` gives)
    exported_as: dict[str, str] = field(default_factory=dict)
    # Python's web routes, {symbol, method, path, scope} (pyroutes.py) or {view, name, ...} where a URL configuration
    # names the view (pyurlconf.py), and the prefixes the file mounts routes under
    routes: list[dict[str, Any]] = field(default_factory=list)
    route_prefixes: list[str] = field(default_factory=list)


Extractor = Callable[[str, bytes, str], FileFacts]  # extract, outline or symbols_of: (path, bytes, language)


def count_lines(source: bytes) -> int:
    if not source:
        return 0
    return source.count(b"\n") + (0 if source.endswith(b"\n") else 1)


def minified(source: bytes, lang: str) -> bool:
    if (
        lang not in MINIFIED_LANGUAGES
        or len(source) < MINIFIED_SIZE
        or len(source) <= MINIFIED_LINE * count_lines(source)
    ):
        return False
    long_lines = [line for line in source.split(b"\n") if len(line) > MINIFIED_LINE]
    return sum(line.count(b"{") for line in long_lines) * MINIFIED_BRACES >= sum(map(len, long_lines))


def extract(path: str, source: bytes, lang: str) -> FileFacts:
    """Everything we index about one file. Raises ParseFailed when the file is beyond our bounds."""
    return _extract(path, source, lang, complete=True)


def symbols_of(path: str, source: bytes, lang: str) -> FileFacts:
    """The symbols `extract` finds, hashes included, and nothing else of the file: all a symbol diff of git's
    history reads (indexer/git/symdiff.py), without the imports, calls, fields and tags that cost as much again."""
    return _extract(path, source, lang, complete=True, symbols_only=True)


def outline(path: str, source: bytes, lang: str) -> FileFacts:
    """The search-ready tier: definitions with names, kinds, spans, signatures and docs, the module
    doc; no hashes, imports, calls or tags (`extract` adds them). Raises ParseFailed as it does."""
    return _extract(path, source, lang, complete=False)


def _extract(
    path: str, source: bytes, lang: str, *, complete: bool, expand: bool = True, symbols_only: bool = False
) -> FileFacts:
    if lang == "html" and is_template(path, source):  # Django's or Jinja's: one symbol, what it renders and runs
        lines = count_lines(source)
        symbol, calls = template_facts(path, source, lang, lines, complete=complete)
        return FileFacts(language=lang, lines=lines, symbols=[symbol], calls=calls)
    if minified(source, lang):
        return FileFacts(language=lang, lines=count_lines(source), generated=True)
    tree = parse(source, lang)
    wrappers: list[Node] = []
    if lang == "rust":  # items inside `pin_project! { ... }`, read where they stand; the source's bytes are kept
        tree, wrappers = unwrapped(source, tree, lambda text: parse(text, "rust"))
    elif lang in ("c", "cpp"):  # `class EXPORT Name`, `f() LOCKS_REQUIRED(mu);`: the macros blanked, as in Rust
        tree = unannotated(source, tree, lang, lambda text: parse(text, lang))
    root = tree.root_node
    facts = FileFacts(language=lang, lines=count_lines(source))
    query = definitions_query(lang) if complete else outline_query(lang)
    matches = QueryCursor(query).matches(root) if query is not None else []

    defs: dict[int, Def] = {}
    all_value: Node | None = None
    import_nodes: list[tuple[Node, dict[str, list[Node]]]] = []
    call_caps: list[dict[str, list[Node]]] = []
    bindings: list[Node] = []  # Rust's `let x = ...;`
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
                caps = fallback_call(caps["reference.call"][0], source)
            if "name" in caps and caps["name"][0].end_byte - caps["name"][0].start_byte <= MAX_NAME_BYTES:
                call_caps.append(caps)  # a generated megabyte-long name is no reference worth keeping
        elif "import" in caps:
            import_nodes.append((caps["import"][0], caps))
        elif "local.binding" in caps:
            bindings.append(caps["local.binding"][0])
        elif "all.name" in caps and node_text(caps["all.name"][0], source) == "__all__":
            all_value = caps["all.value"][0]
    call_caps += [{"reference.call": [m], "name": [m.child_by_field_name("macro") or m]} for m in wrappers]

    ordered = nest(without_holders(defs), path, lang, source)
    js_exports = js_export_names(root, source) if lang in JS_LANGUAGES else frozenset()
    facts.exported_as = js_exported_as(root, source) if lang in JS_LANGUAGES else {}
    facts.module_doc = module_doc(root, source, lang, ordered[0].outer if ordered else None)
    facts.generated = says_generated(root, source)
    defined = defines(root) if lang in ("c", "cpp") else []  # the file's `#define`s
    written = list(expansions(defined, root, source)) if expand else []  # functions its own macros write
    if not complete:
        facts.symbols = [_symbol(d, source, lang, path, None, js_exports) for d in ordered]
        _add_expansions(facts, written, path, lang, complete)
        return facts
    hashes = body_hashes(root, source, lang, [d.node for d in ordered])
    facts.symbols = [
        _symbol(d, source, lang, path, hashes.get(d.node.id) or leaf_body_hash(d.node, source, lang), js_exports)
        for d in ordered
    ]
    if symbols_only:
        _add_expansions(facts, written, path, lang, complete, symbols_only=True)
        return facts
    if all_value is not None:
        facts.declared_api = [string_value(n, source) for n in all_value.named_children if n.type == "string"]
    starts = [d.outer.start_byte for d in ordered]
    read = [(node, read_imports(node, caps, source, lang)) for node, caps in import_nodes]
    facts.imports = [imp for _, records in read for imp in records]
    if lang == "java":
        facts.imports += java_package_references(root, source, facts.imports)
    elif lang == "go":
        facts.imports += go_package_references(root, source, facts.imports)
    refs = _call_refs(lang, root, source, ordered, starts, read)
    operators: list[tuple[str, list[str] | None] | bool] = []  # C++'s: what each call site's expression calls
    if lang == "cpp":  # an operator expression calls what a class may define: `out << node` calls operator<<
        sites = [(caps, _calls_operator(caps, source)) for caps in call_caps]
        call_caps = [caps for caps, operator in sites if operator is not False]
        operators = [operator for _, operator in sites if operator is not False]
    if lang == "ruby":
        call_caps = [caps for caps in call_caps if may_call_ours(caps)]
    calls = [call_site(caps, source, ordered, starts, refs) for caps in call_caps]
    if refs is not None:
        calls += [implicit_call(node, where, ref, source) for node, where, ref in refs.implicit_calls()]
        ids = {MODULE: path, **{d.qualname: d.id for d in ordered}}  # a module's own members: by its path
        facts.fields = [
            {"owner": ids[owner], "name": name, "type": written}
            for owner, name, written in refs.declared_fields()
            if owner in ids
        ]
    if isinstance(refs, PythonRefs):  # what web routes the file's functions serve (pyroutes.py)
        served, prefixes = routes(refs)
        facts.routes = [
            {"symbol": ids[qualname], "method": method, "path": path, "scope": scope}
            for qualname, method, path, scope in served
            if qualname in ids
        ]
        django, mounted = django_routes(refs)  # a view named by its ref (pydjango.py)
        facts.routes += django
        facts.route_prefixes = sorted({*prefixes, *mounted})
    if lang == "rust":  # what a call on `self.io` or on `conn` is a method of (store/rustcalls.py)
        structs = [(d.id, d.node) for d in ordered if d.kind == "struct"]
        functions = [(f.id, node) for node in bindings if (f := _function_at(ordered, starts, node)) is not None]
        typed = rust_fields(structs, functions, source)
        facts.fields = [{"owner": owner, "name": name, "type": written} for owner, name, written in typed]
        written_calls(calls, call_caps, source)  # `Display::fmt(&x, f)`, `io::copy(r, w)`, `Bytes::from(v)`
        calls += trait_calls(tree, source, ordered, starts)  # `a == b` calls `eq`
    if lang == "java":  # each call's arguments, `this(...)` and `super(...)`, declared types (store/javacalls.py)
        facts.fields = java_facts(root, ordered, starts, calls, call_caps, source)
    if lang == "ruby":  # the modules a class mixes in, bare names' and `super`'s calls, what values are made of
        facts.fields = ruby_facts(ordered, starts, calls, call_caps, source)
    if lang == "cpp":  # which of a name's overloads a call may be, what `builder->Add(k, v)` is a method of (cppcalls)
        # C++ has no refs: no implicit calls among them
        for call, caps, operator in zip(calls, call_caps, operators, strict=True):
            site = caps["reference.call"][0]
            if isinstance(operator, tuple):
                call["name"], call["arguments"] = operator
            else:  # `&DBImpl::BGWork` takes the function: whoever gets it calls it
                call["arguments"] = TAKEN if site.type == "pointer_expression" else call_arguments(site, source)
        classes = [(d.id, d.node) for d in ordered if d.node.type in ("class_specifier", "struct_specifier")]
        functions = [(d.id, d.node) for d in ordered if d.node.type == "function_definition"]
        enums = [(d.id, d.node) for d in ordered if d.node.type == "enum_specifier"]
        declared = cpp_fields(classes, functions, enums, source)
        facts.fields = [{"owner": owner, "name": name, "type": written} for owner, name, written in declared]
    if lang in ("c", "cpp") and query is not None:  # what a macro's body calls, as calls of the macro
        generators = {use.macro for use in written}
        calls += macro_body_calls(defined, source, query, lambda text: parse(text, lang), ordered, starts, generators)
    facts.calls = unique_calls(calls)
    facts.tags = _tags(root, source, lang, facts, ordered, starts)
    _add_expansions(facts, written, path, lang, complete)
    return facts


def _add_expansions(
    facts: FileFacts, written: list[Expansion], path: str, lang: str, complete: bool, symbols_only: bool = False
) -> None:
    """What the file's own macros define where it uses them (cexpand.py): on the use's lines, with their calls."""
    if not written:
        return
    known = {s["id"] for s in facts.symbols}
    for _, first, last, text in written:
        made = _extract(path, text, lang, complete=complete, expand=False, symbols_only=symbols_only)
        kept = set()
        for symbol in made.symbols:
            if symbol["kind"] != "macro" and symbol["id"] not in known:
                symbol["start_line"], symbol["end_line"] = first, last
                facts.symbols.append(symbol)
                kept.add(symbol["id"])
        known |= kept
        for call in made.calls:
            if call["caller"] in kept:  # on the use's line: the expansion's own lines are none of the file's
                call["line"] = first
                call.pop("lines", None)
                facts.calls.append(call)
    facts.symbols.sort(key=lambda s: s["start_line"])  # stable: a parent still before what it holds


def _calls_operator(caps: dict[str, list[Node]], source: bytes) -> tuple[str, list[str] | None] | bool:
    """For a C++ call site, the operator an expression calls and its arguments (cppfields.operator_call); False for an
    expression that calls none, True for a call that is no operator expression."""
    site, name = caps["reference.call"][0], caps["name"][0]
    if site.type not in OPERATOR_SITES or name.is_named:  # `&DBImpl::BGWork`: its name is the qualified identifier
        return True
    return operator_call(site, node_text(name, source), source) or False


def _call_refs(
    lang: str, root: Node, source: bytes, defs: list[Def], starts: list[int], read: list[tuple[Node, list[Any]]]
) -> CallRefs | None:
    """The refs of the languages that have them: Python, Go, JavaScript and TypeScript."""
    if lang == "python":
        return PythonRefs(root, source, defs, numbered(read))
    if lang == "go":
        imports = [imp for _, records in read for imp in records]
        return GoRefs(root, source, imports, lambda byte: innermost(defs, starts, byte))
    if lang in JS_LANGUAGES:
        return JsRefs(root, source, lang, defs, numbered(read), lambda byte: innermost(defs, starts, byte))
    return None


def _definition(caps: dict[str, list[Node]], node: Node, kind: str, source: bytes, lang: str) -> Def | None:
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
    if name_node is None or not is_definition(node, name_node, lang):
        return None
    if name_node.end_byte - name_node.start_byte > MAX_NAME_BYTES:
        if lang not in QUERY_LANGUAGES:
            return None  # a heading, a selector list, a key: long text, but no identifier gone wrong
        raise ParseFailed(
            "identifier too long",
            f"a name of {name_node.end_byte - name_node.start_byte}"
            f" bytes on line {name_node.start_point[0] + 1}, limit {MAX_NAME_BYTES}",
        )
    scope_nodes = caps.get("scope")
    scope = clean_scope(node_text(scope_nodes[0], source, QUALIFIER_LIMIT), lang) if scope_nodes else None
    text = node_text(name_node, source)
    if lang in ("c", "cpp"):
        text = macro_defined_name(node, name_node, source) or text
    qualifier, name = (None, " ".join(text.split())) if kind == "section" else split_qualified(text)
    if qualifier:  # `void Foo::bar()`, `class A::B`, `function M.f()`
        scope = f"{scope}.{qualifier}" if scope else qualifier
    if not name:
        return None
    outer = outer_node(node, lang)
    trait = node.child_by_field_name("trait") if kind == "impl" else None
    return Def(
        node,
        outer,
        name,
        kind,
        scope,
        name_node=name_node,
        head=signature_head(node, outer),
        private=private,
        trait=clean_scope(node_text(trait, source, QUALIFIER_LIMIT), lang) if trait else None,
    )


def _symbol(
    d: Def, source: bytes, lang: str, path: str, body_hash: str | None, js_exports: frozenset[str] = frozenset()
) -> Symbol:
    """`body_hash` None: an outline's symbol, without either hash."""
    node = d.node
    signature = signature_of(d, source, lang)
    written = decorators(d.outer, node, source)
    if lang == "ruby" and in_singleton_class(node):  # a method of the class itself, as `def self.m` is
        written = [SINGLETON_CLASS, *written]
    declared = d.declaration or d
    parent = (declared.parent.node, declared.parent.kind) if declared.parent else None
    end_row, end_column = d.outer.end_point
    if end_column == 0 and end_row > d.outer.start_point[0]:
        end_row -= 1  # a node that ends with its newline (`#define X 1`) ends on the line before
    symbol: Symbol = {
        "id": d.id,
        "name": d.name,
        "qualname": d.qualname,
        "kind": d.kind,
        "language": lang,
        "path": path,
        "start_line": (next(iter(leading_attributes(d.outer)), d.outer)).start_point[0] + 1,
        "end_line": end_row + 1,
        "signature": signature,
        "signature_hash": _signature_hash(d, source, lang, written, signature) if body_hash else None,
        "body_hash": body_hash,
        "doc": definition_doc(d.node, d.outer, source, lang),
        "parent": d.parent.id if d.parent else None,
        "exported": not d.private
        and exported(declared.node, declared.outer, d.name, d.kind, parent, source, lang, js_exports),
        "params": params(node, d.kind, source, lang),
        "returns": returns(node, d.kind, source, lang),
        "decorators": written,
    }
    if d.overloads:
        symbol["overloads"] = [signature_of(o, source, lang) for o in d.overloads]
    return symbol


def _signature_hash(d: Def, source: bytes, lang: str, written: list[str], signature: str) -> str:
    """The definition's signature hash; an overload set's covers its stubs' signatures too."""
    own = signature_hash(d.node, d.outer, d.name_node, source, lang) or digest("\n".join([*written, signature]))
    if not d.overloads:
        return own
    return digest(
        "\n".join([own, *(signature_hash(o.node, o.outer, o.name_node, source, lang) or "" for o in d.overloads)])
    )


def _function_at(defs: list[Def], starts: list[int], node: Node) -> Def | None:
    """The innermost function or method holding the node."""
    found = innermost(defs, starts, node.start_byte)
    while found is not None and found.kind not in ("function", "method"):
        found = found.parent
    return found


def _tags(
    root: Node, source: bytes, lang: str, facts: FileFacts, defs: list[Def], starts: list[int]
) -> list[dict[str, Any]]:
    """`req: TAG[, TAG]` in comments and docstrings, tied to the symbol they stand in or before."""
    found: dict[tuple[str, int], str | None] = {}
    query = comments_query(lang) if b"req:" in source else None  # most files have no tags
    comment_nodes = captured(query, root).get("comment", []) if query else []
    for comment in comment_nodes:
        text = node_text(comment, source, DOC_LIMIT)
        if "req:" not in text:
            continue
        owner = innermost(defs, starts, comment.start_byte)
        if owner is None:  # a comment just above a definition belongs to it
            after = bisect.bisect_left(starts, comment.end_byte)
            if after < len(defs) and defs[after].outer.start_point[0] <= comment.end_point[0] + 1:
                owner = defs[after]
        for offset, line in enumerate(text.splitlines()):
            for match in _TAG.finditer(line):
                for tag in match.group(1).split(","):
                    found.setdefault((tag.strip(), comment.start_point[0] + 1 + offset), owner.id if owner else None)
    docs: list[tuple[str | None, int, str | None]] = [(facts.module_doc, 1, None)]
    docs += [(s["doc"], s["start_line"], s["id"]) for s in facts.symbols]
    for doc, doc_line, owner_id in docs:
        if doc and "req:" in doc:
            for match in _TAG.finditer(doc):
                for tag in match.group(1).split(","):
                    found.setdefault((tag.strip(), doc_line), owner_id)
    return [{"tag": tag, "line": line, "symbol": owner} for (tag, line), owner in sorted(found.items())]
