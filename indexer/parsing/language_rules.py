"""What differs between languages once a file is parsed.

Where a definition's span and signature begin, whether other modules may use it (exported), its
parameters and return type, and how a qualifier (`geo::Shape`, `*Point`, `Box<T>`) becomes a
dotted scope. Each rule is a small function of the syntax tree; nothing here recurses.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from .parse import node_text

JS_LANGUAGES = frozenset({"javascript", "typescript", "tsx"})
FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "generator_function"})
PARAM_TEXT_LIMIT = 200
GO_FIELDS_LIMIT = 300  # a Go struct's fields or what an interface embeds, in its signature (SIGNATURE_LIMIT: 500)

# Nodes that wrap a definition and belong to its span: decorators, `export`, `template <...>`.
_WRAPPERS: dict[str, frozenset[str]] = {
    "python": frozenset({"decorated_definition"}),
    "cpp": frozenset({"template_declaration"}),
    **dict.fromkeys(JS_LANGUAGES, frozenset({"export_statement", "ambient_declaration"})),
}
# Declarations that are a definition's span only when it is their one declarator or spec.
_SINGLE_WRAPPERS: dict[str, frozenset[str]] = {
    "go": frozenset({"type_declaration", "const_declaration", "var_declaration"}),
    **dict.fromkeys(JS_LANGUAGES, frozenset({"lexical_declaration", "variable_declaration"})),
}
# What holds a JavaScript function value under a name (`f = () => {}`, `m: function () {}`).
_JS_VALUE_HOLDERS = frozenset(
    {"variable_declarator", "pair", "field_definition", "public_field_definition", "assignment_expression"}
)
# In the span, not in the signature: decorators are listed on their own; `export` is the flag.
_NOT_IN_SIGNATURE = frozenset({"decorated_definition", "export_statement", "expression_statement"})
# Where a C or C++ prototype is API: at file level, under #if and extern "C", in a class or namespace.
_PROTOTYPE_PARENTS = frozenset(
    {
        "translation_unit",
        "preproc_ifdef",
        "preproc_if",
        "preproc_else",
        "preproc_elif",
        "preproc_elifdef",
        "declaration_list",
        "field_declaration_list",
        "template_declaration",
        "linkage_specification",
    }
)
_PRIVATE_WORDS = frozenset({"private", "protected", "fileprivate", "internal"})
_GENERICS = re.compile(r"<[^<>]*>|\[[^\[\]]*\]")
_QUALIFIED = re.compile(r"::|\.|:")
_NAME_PART = re.compile(r"^[~\w$@!?=<>+\-*/%&|^\[\]]+$")


def outer_node(node: Node, lang: str) -> Node:
    """The span a definition reports: itself plus decorators, `export`, `template <...>`, `const f =`."""
    outer = node
    parent = node.parent
    if (
        lang in JS_LANGUAGES
        and node.type in FUNCTION_VALUES
        and parent is not None
        and parent.type in _JS_VALUE_HOLDERS
    ):
        outer = parent
        if (
            parent.type == "assignment_expression"
            and parent.parent is not None
            and parent.parent.type == "expression_statement"
        ):
            outer = parent.parent
    wrappers = _WRAPPERS.get(lang, frozenset())
    singles = _SINGLE_WRAPPERS.get(lang, frozenset())
    while (parent := outer.parent) is not None:
        if parent.type in wrappers or (parent.type in singles and _only_child(parent, outer)):
            outer = parent
        else:
            break
    return outer


def _only_child(parent: Node, child: Node) -> bool:
    named = [c for c in parent.named_children if "comment" not in c.type]
    return len(named) == 1 and named[0].id == child.id


# A member of a TypeScript object type on a line of its own, as a code style without semicolons writes them: `length?:`,
# `readonly name:`, `"content-type":`; not a `::`. What ends the member before it: a name, a literal, a closing bracket.
_JS_MEMBER_START = re.compile(r"\s*(?:readonly\s+)?(?:[\w$]+|\"[^\"\n]*\"|'[^'\n]*')\??\s*:(?!:)")
_JS_MEMBER_END = re.compile(r"[\w$\"')\]>]\s*\Z")


def js_member_breaks(text: str) -> str:
    """A TypeScript object type's members kept apart where only a line break parts them: typeorm's `options?: {`,
    `transaction?: "all" | "none"`, `fake?: boolean`, `}` read `{transaction?: "all" | "none" fake?: boolean}` once
    its layout went, as if `fake` were a fourth value; now `{transaction?: "all" | "none"; fake?: boolean}`. Only
    inside braces, outside strings, after a member's last token and before a name and its colon."""
    out = ""
    depth = 0
    quote = ""
    for at, char in enumerate(text):
        if quote:
            quote = "" if char == quote and text[at - 1] != "\\" else quote
        elif char in "\"'`":
            quote = char
        elif char in "{}":
            depth += 1 if char == "{" else -1
        elif char == "\n" and depth > 0 and _JS_MEMBER_END.search(out) and _JS_MEMBER_START.match(text, at + 1):
            out = out.rstrip() + ";"
        out += char
    return out


def signature_head(node: Node, outer: Node) -> Node:
    """Where the signature text starts: the definition, or the declaration that names it."""
    head = current = node
    while current.id != outer.id and (parent := current.parent) is not None:
        current = parent
        if current.type not in _NOT_IN_SIGNATURE:
            head = current
    return head


def is_definition(node: Node, name: Node, lang: str) -> bool:
    """False for a match that only looks like a definition: a prototype inside a function body or a friend, a
    macro call the grammar read as one."""
    if lang in ("c", "cpp") and _macro_call(node, name):
        return False
    # C's field that is a function is a prototype the grammar misread (data/queries/c.scm); C++'s is a method.
    prototype = node.type == "declaration" or (lang == "c" and node.type == "field_declaration")
    # A function a macro defines (libuv's `TEST_IMPL(loop_alive) {`) stands where functions do; in a body, the
    # same shape is a macro's loop or block (`FOREACH(item) { ... }`).
    made_by_macro = lang == "c" and name.parent is not None and name.parent.type == "parenthesized_declarator"
    if lang in ("c", "cpp") and (prototype or made_by_macro):
        # A header the grammar reads as one error from its first line is still a header (one that opens `extern "C"
        # {` under one `#ifdef __cplusplus` and closes it under another, or expands an X-macro inside an enum), and
        # its prototypes inside that error its API: libuv's uv.h had none of its 318 UV_EXTERN functions, now 241;
        # sqlite3.h 18 functions, now 331.
        holder = node.parent
        while holder is not None and holder.type == "ERROR":
            holder = holder.parent
        return holder is None or holder.type in _PROTOTYPE_PARENTS
    return True


def _macro_call(node: Node, name: Node) -> bool:
    """A C or C++ "function" that is a macro call: a declaration with no type that is no constructor (libuv's
    file-level `TEST_DECLARE(name)`; annotations after a declaration are blanked before: cmacros.py)."""
    if node.type != "declaration" or node.child_by_field_name("type") is not None or name.type != "identifier":
        return False
    body = node.parent
    holder = body.parent if body is not None and body.type == "field_declaration_list" else None
    holder_name = holder.child_by_field_name("name") if holder is not None else None
    return holder_name is None or holder_name.text != name.text


def macro_defined_name(node: Node, name: Node, source: bytes) -> str | None:
    """The name a C or C++ macro gives the function it defines, as `Scope::name`: googletest's `TEST_F(EnvTest,
    ReadWrite) { ... }` defines the test EnvTest.ReadWrite, libuv's `TEST_IMPL(loop_alive) { ... }` loop_alive. Every
    such test was a function named TEST_F (leveldb had 177). None when `node` is no macro-made definition: a typeless
    function definition named in capitals whose arguments are bare names."""
    declarator = name.parent
    if (
        node.type != "function_definition"
        or node.child_by_field_name("type") is not None
        or declarator is None
        or declarator.type != "function_declarator"
        or not _C_MACRO.fullmatch(node_text(name, source))
    ):
        return None
    params = declarator.child_by_field_name("parameters")
    arguments = [p for p in params.named_children if "comment" not in p.type] if params is not None else []
    if not arguments or any(p.type != "parameter_declaration" or p.named_child_count != 1 for p in arguments):
        return None
    return "::".join(node_text(p, source) for p in arguments)


def clean_scope(text: str, lang: str) -> str | None:
    """`geo::Shape<T>`, `*Point`, `Foo.prototype` as a dotted scope: `geo.Shape`, `Point`, `Foo`."""
    text = _strip_generics(text).replace("::", ".").replace("->", ".")
    parts = [p.strip(" *&\t\n") for p in text.split(".")]
    parts = [p for p in parts if p]
    if lang in JS_LANGUAGES:
        parts = [p for p in parts if p != "prototype"]
        if parts[:2] == ["module", "exports"]:
            parts = parts[2:]
        elif parts[:1] == ["exports"]:
            parts = parts[1:]
    return ".".join(parts) or None


def split_qualified(name: str) -> tuple[str | None, str]:
    """`Foo::bar`, `A.B`, `M:m` as (scope, name); a plain name as (None, name)."""
    plain = " ".join(_strip_generics(name).split())
    parts = _QUALIFIED.split(plain)
    if len(parts) < 2 or not all(_NAME_PART.match(p) for p in parts):
        return None, " ".join(name.split())
    return ".".join(parts[:-1]), parts[-1]


def _strip_generics(text: str) -> str:
    previous = None
    while previous != text:
        previous, text = text, _GENERICS.sub("", text)
    return text


# --- exported -------------------------------------------------------------------------------------


def exported(
    node: Node,
    outer: Node,
    name: str,
    kind: str,
    parent: tuple[Node, str] | None,
    source: bytes,
    lang: str,
    js_exports: frozenset[str] = frozenset(),
) -> bool:
    """Whether the language lets another module use this name (`parent`: the enclosing definition)."""
    if lang == "python":
        return not name.startswith("_") or (name.startswith("__") and name.endswith("__"))
    if lang == "go":
        return name[:1].isupper()
    if lang == "rust":
        return _rust_exported(node, outer, kind, parent, source)
    if lang == "java":
        return _java_exported(node, parent, source)
    if lang in JS_LANGUAGES:
        return _js_exported(node, outer, name, parent, source, js_exports)
    if lang in ("c", "cpp"):
        return _c_exported(node, outer, parent, source, lang)
    if lang == "ruby":
        return _ruby_exported(node, outer, name, source)
    return _fallback_exported(node, name, source)


def _rust_exported(node: Node, outer: Node, kind: str, parent: tuple[Node, str] | None, source: bytes) -> bool:
    if kind == "impl":
        return True  # an impl has no visibility of its own
    if parent is not None and (
        parent[1] == "trait" or (parent[1] == "impl" and parent[0].child_by_field_name("trait") is not None)
    ):
        return True  # trait items are as visible as the trait
    if kind == "macro":
        sibling = outer.prev_named_sibling
        while sibling is not None and sibling.type in ("attribute_item", "line_comment", "block_comment"):
            if sibling.type == "attribute_item" and "macro_export" in node_text(sibling, source, 200):
                return True
            sibling = sibling.prev_named_sibling
        return False
    return any(c.type == "visibility_modifier" for c in node.children)


def _java_exported(node: Node, parent: tuple[Node, str] | None, source: bytes) -> bool:
    mods = next((c for c in node.children if c.type == "modifiers"), None)
    words = set(node_text(mods, source, 300).split()) if mods is not None else set()
    if "public" in words:
        return True
    # Interface and annotation members are public unless they say otherwise.
    return "private" not in words and parent is not None and parent[1] == "interface"


def _js_exported(
    node: Node, outer: Node, name: str, parent: tuple[Node, str] | None, source: bytes, js_exports: frozenset[str]
) -> bool:
    if parent is not None and parent[1] not in ("namespace", "module"):
        if parent[1] not in ("class", "interface", "enum"):
            return False  # a function inside a function
        modifier = next((c for c in node.children if c.type == "accessibility_modifier"), None)
        if outer.id != node.id:
            modifier = modifier or next((c for c in outer.children if c.type == "accessibility_modifier"), None)
        return not name.startswith("#") and (modifier is None or node_text(modifier, source) == "public")
    if outer.type == "export_statement" or (outer.parent is not None and outer.parent.type == "export_statement"):
        return True
    if outer.type == "expression_statement":  # CommonJS: `exports.f = ...`, `module.exports.f = ...`
        return node_text(outer, source, 40).startswith(("exports.", "module.exports"))
    return name in js_exports


def js_export_names(root: Node, source: bytes) -> frozenset[str]:
    """Names a module exports apart from `export <declaration>`: `export { a, b as c }`, `module.exports = {a}`."""
    names: set[str] = set()
    for child in root.named_children:
        if child.type == "export_statement" and child.child_by_field_name("source") is None:
            clause = next((c for c in child.named_children if c.type == "export_clause"), None)
            if clause is not None:
                names.update(
                    node_text(s.child_by_field_name("name") or s, source, 200)
                    for s in clause.named_children
                    if s.type == "export_specifier"
                )
            value = child.child_by_field_name("value")  # `export default name`
            if value is not None and value.type == "identifier":
                names.add(node_text(value, source, 200))
        elif child.type == "expression_statement" and child.named_children:
            assignment = child.named_children[0]
            left = assignment.child_by_field_name("left") if assignment.type == "assignment_expression" else None
            if left is None or node_text(left, source, 40) != "module.exports":
                continue
            right = assignment.child_by_field_name("right")
            if right is not None and right.type == "identifier":
                names.add(node_text(right, source, 200))
            elif right is not None and right.type == "object":
                for prop in right.named_children:
                    if prop.type == "shorthand_property_identifier":
                        names.add(node_text(prop, source, 200))
                    elif (
                        prop.type == "pair"
                        and (value := prop.child_by_field_name("value")) is not None
                        and value.type == "identifier"
                    ):
                        names.add(node_text(value, source, 200))
    return frozenset(names)


def js_exported_as(root: Node, source: bytes) -> dict[str, str]:
    """The names a module exports its definitions under where they are not the definitions' own, each with the
    definition's name: `default` for what it exports as itself, what `require()` or `import X from` gives
    (`module.exports = Agent`, `= class Agent {}`, `export default function delay`, `export { ky as default
    }`; `module.exports` for an anonymous function assigned to it), and a renamed export (`module.exports = {
    Readable: BodyReadable }`, `exports.Readable = BodyReadable`, `export { BodyReadable as Readable }`)."""
    found: dict[str, str] = {}
    for child in root.named_children:
        if child.type == "export_statement" and any(c.type == "default" for c in child.children):
            value = child.child_by_field_name("declaration") or child.child_by_field_name("value")
            _export(found, "default", _definition_name(value, source, None) if value is not None else None)
        elif child.type == "export_statement" and child.child_by_field_name("source") is None:
            clause = next((c for c in child.named_children if c.type == "export_clause"), None)
            for spec in clause.named_children if clause is not None else []:
                alias, name = spec.child_by_field_name("alias"), spec.child_by_field_name("name")
                if alias is not None and name is not None:
                    _export(found, node_text(alias, source, 200), node_text(name, source, 200))
        elif child.type == "expression_statement" and child.named_children:
            assignment = child.named_children[0]
            left = assignment.child_by_field_name("left") if assignment.type == "assignment_expression" else None
            right = assignment.child_by_field_name("right")
            target = node_text(left, source, 200) if left is not None else ""
            if right is None:
                continue
            if target == "module.exports" and right.type == "object":
                for pair in (p for p in right.named_children if p.type == "pair"):
                    key, value = pair.child_by_field_name("key"), pair.child_by_field_name("value")
                    if key is not None and value is not None and value.type == "identifier":
                        _export(found, node_text(key, source, 200), node_text(value, source, 200))
            elif target == "module.exports":
                _export(found, "default", _definition_name(right, source, "module.exports"))
            elif target.startswith(("exports.", "module.exports.")) and right.type == "identifier":
                _export(found, target.rpartition(".")[2], node_text(right, source, 200))
    return found


def _export(found: dict[str, str], name: str, definition: str | None) -> None:
    if definition is not None and definition != name:
        found[name] = definition
    else:
        found.pop(name, None)  # a later export of the name as itself, or of no definition, replaces it


def _definition_name(value: Node, source: bytes, anonymous: str | None) -> str | None:
    """The name a definition exported as a value goes by in the index: `Agent`, `class Agent {}`, `function
    delay() {}` (`anonymous` for one without a name)."""
    if value.type == "identifier":
        return node_text(value, source, 200)
    if value.type in _JS_DEFINITIONS:
        name = value.child_by_field_name("name")
        return node_text(name, source, 200) if name is not None else anonymous
    return None


_JS_DEFINITIONS = frozenset(
    {
        "class",
        "class_declaration",
        "abstract_class_declaration",
        "function_expression",
        "function_declaration",
        "generator_function",
        "generator_function_declaration",
        "arrow_function",
    }
)


def _c_exported(node: Node, outer: Node, parent: tuple[Node, str] | None, source: bytes, lang: str) -> bool:
    if parent is not None and parent[1] in ("class", "struct", "union"):
        return lang != "cpp" or _cpp_access(outer, parent[0], source) == "public"
    if lang == "cpp":
        ancestor = node.parent
        while ancestor is not None:
            if ancestor.type == "namespace_definition" and ancestor.child_by_field_name("name") is None:
                return False  # an anonymous namespace is file-local
            ancestor = ancestor.parent
    return not any(c.type == "storage_class_specifier" and node_text(c, source) == "static" for c in node.children)


def _cpp_access(member: Node, owner: Node, source: bytes) -> str:
    """public / protected / private: the last access label before the member, else the default."""
    sibling = member.prev_named_sibling
    while sibling is not None:
        if sibling.type == "access_specifier":
            return node_text(sibling, source, 20).strip()
        sibling = sibling.prev_named_sibling
    return "private" if owner.type == "class_specifier" else "public"


def _ruby_exported(node: Node, outer: Node, name: str, source: bytes) -> bool:
    if node.type not in ("method", "singleton_method"):
        return True
    holder = node.parent
    if holder is not None and holder.type == "argument_list":  # `private def x`
        call = holder.parent
        method = call.child_by_field_name("method") if call is not None else None
        return method is None or node_text(method, source, 20) not in ("private", "protected")
    if holder is None:
        return True
    visibility = "public"
    for sibling in holder.named_children:
        if sibling.id == node.id:
            if node.type == "singleton_method":
                visibility = "public"  # `private` does not apply to `def self.x`
            break
        text = node_text(sibling, source, 30)
        if sibling.type == "identifier" and text in ("private", "protected", "public"):
            visibility = text
    for sibling in holder.named_children:  # `private :a, :b` after the definitions
        if sibling.type == "call" and node_text(sibling, source, 30).startswith(
            ("private ", "protected ", "private_class_method ")
        ):
            symbols = node_text(sibling, source, 2000).replace(",", " ").split()[1:]
            if f":{name}" in symbols or f'"{name}"' in symbols:
                return False
    return visibility == "public"


def _fallback_exported(node: Node, name: str, source: bytes) -> bool:
    """Other languages: private by an underscore, a private-like modifier, or `defp`."""
    if name.startswith("_"):
        return False
    for child in node.children:
        if child.type in ("identifier", "name", "simple_identifier", "type_identifier") or child.type.endswith("body"):
            break
        if not child.is_named or "modifier" in child.type or "visibility" in child.type:
            if _PRIVATE_WORDS & set(node_text(child, source, 200).split()):
                return False
    return True


# --- parameters and return type -------------------------------------------------------------------


def params(node: Node, kind: str, source: bytes, lang: str) -> list[str]:
    """Each parameter as written, layout collapsed."""
    plist = node.child_by_field_name("parameters")
    if plist is None and lang in JS_LANGUAGES:
        single = node.child_by_field_name("parameter")  # `x => x`
        if single is not None:
            return [" ".join(node_text(single, source, PARAM_TEXT_LIMIT).split())]
    if plist is None and kind not in ("function", "method", "macro"):
        return []
    if plist is None:
        function = _function_declarator(node)
        plist = function.child_by_field_name("parameters") if function is not None else None
    if plist is None:
        plist = next(
            (
                c
                for c in node.named_children
                if c.type.endswith(("parameters", "parameter_list")) and not c.type.startswith("type")
            ),
            None,
        )
    if plist is None:
        return []
    return [
        " ".join(node_text(p, source, PARAM_TEXT_LIMIT).split())
        for p in plist.named_children
        if "comment" not in p.type
    ]


def _function_declarator(node: Node) -> Node | None:
    """C and C++: the function declarator under a definition's pointer and reference declarators."""
    current = node.child_by_field_name("declarator")
    for _ in range(8):
        if current is None or current.type == "function_declarator":
            return current
        current = current.child_by_field_name("declarator") or next(
            (c for c in current.named_children if c.type.endswith("declarator")), None
        )
    return None


def returns(node: Node, kind: str, source: bytes, lang: str) -> str | None:
    """The declared return type, as written (without TypeScript's leading colon)."""
    found = node.child_by_field_name("return_type") or node.child_by_field_name("result")
    suffix = ""
    if found is None and lang in ("java", "c", "cpp") and kind in ("function", "method"):
        found = node.child_by_field_name("type")
        current = node.child_by_field_name("declarator")
        while current is not None and current.type in ("pointer_declarator", "reference_declarator"):
            suffix += "*" if current.type == "pointer_declarator" else "&"
            current = current.child_by_field_name("declarator") or next(
                (c for c in current.named_children if c.type.endswith("declarator")), None
            )
    if found is None:
        return None
    text = " ".join(node_text(found, source, PARAM_TEXT_LIMIT).split())
    if lang in ("c", "cpp") and kind == "function":
        text = _c_return_type(node, source) or text
    if lang in JS_LANGUAGES:
        text = text.removeprefix(":").strip()
    return f"{text} {suffix}" if suffix else text


_C_NOT_TYPE = frozenset({"storage_class_specifier", "attribute_specifier", "attribute_declaration", "comment"})
_C_MACRO = re.compile(r"[A-Z][A-Z0-9_]*")
_C_TYPE_WORDS = frozenset({"const", "volatile", "unsigned", "signed", "long", "short", "struct", "enum", "union"})


def _c_return_type(node: Node, source: bytes) -> str | None:
    """A C function's return type as written before its name, qualifiers too (`const char`), without the export
    macros before it: the grammar takes `UV_EXTERN` of `UV_EXTERN int uv_run(...)` for the type and `int` for an
    error, and `returns` said UV_EXTERN for every function of libuv's uv.h (SQLITE_API for sqlite3.h's); nor the
    calling convention after it (`XMLCALL`). A type of capitals alone (`BOOL`, `const HANDLE`) is a type."""
    declarator = node.child_by_field_name("declarator")
    if declarator is None:
        return None
    before = (c for c in node.children if c.end_byte <= declarator.start_byte)
    start = next((c.start_byte for c in before if c.is_named and c.type not in _C_NOT_TYPE), None)
    if start is None:
        return None
    words = source[start : declarator.start_byte][:PARAM_TEXT_LIMIT].decode("utf-8", "replace").split()
    while len(words) > 1 and _C_MACRO.fullmatch(words[0]) and not all(_C_MACRO.fullmatch(w) for w in words[1:]):
        words.pop(0)
    # a calling convention after the type (`int XMLCALL xmlStrlen`), not a type after a qualifier (`const BOOL`)
    while len(words) > 1 and _C_MACRO.fullmatch(words[-1]) and words[-2] not in _C_TYPE_WORDS:
        words.pop()
    return " ".join(words) or None


def go_fields(node: Node, source: bytes) -> str:
    """A Go struct's fields, as its signature shows them (` { Base; *pkg.Mixin; store *Store; a, b int }`): the
    embedded types, whose methods Go promotes to the struct as a class inherits its bases', and the named
    fields with their types, which type the calls on them (`s.store.Get()`). Tags are left out; past
    GO_FIELDS_LIMIT characters, `...` stands for the rest. Empty for a struct without fields."""
    struct = node.child_by_field_name("type")
    fields = next((c for c in struct.named_children if c.type == "field_declaration_list"), None) if struct else None
    entries: list[str] = []
    for field in (f for f in fields.named_children if f.type == "field_declaration") if fields else []:
        written = field.child_by_field_name("type")
        if written is None:
            continue
        names = ", ".join(node_text(n, source, 100) for n in field.children_by_field_name("name"))
        if names:  # as written: `items []Item` is a slice, not an Item
            entries.append(f"{names} {' '.join(node_text(written, source, 200).split())}")
        else:  # embedded: `*Base`, `pkg.Mixin[T]` promotes Mixin's methods
            pointer = "*" if any(c.type == "*" for c in field.children) else ""
            entries.append(pointer + _strip_generics(node_text(written, source, 200)))
    return _members_shown(entries)


def go_embedded(node: Node, source: bytes) -> str:
    """What a Go interface embeds, as its signature shows it (` { io.Reader; Base; ~int | ~string }`): its
    methods are symbols of their own, but an embedded interface's are its too, and a type implements the
    interface only with all of them (store/gocalls.py). Empty for an interface of methods alone."""
    interface = node.child_by_field_name("type")
    elements = [c for c in interface.named_children if c.type == "type_elem"] if interface else []
    return _members_shown([" ".join(node_text(e, source, 200).split()) for e in elements])


def _members_shown(entries: list[str]) -> str:
    """A Go type's members in its signature; past GO_FIELDS_LIMIT characters, `...` stands for the rest."""
    shown: list[str] = []
    for entry in entries:
        if sum(len(e) + 2 for e in shown) + len(entry) > GO_FIELDS_LIMIT:
            shown.append("...")
            break
        shown.append(entry)
    return " { " + "; ".join(shown) + " }" if shown else ""
