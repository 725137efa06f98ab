"""Symbols for grammars without a query of our own: the grammar's kind names say what defines.

A node kind whose words name a definition (`function_definition`, `class_declaration`, `FnProto`,
`declProc`, `create_table`) is a definition; its name is its `name` field, the identifier in its
C-style declarator, or its nearest identifier-like child. Lisp and Elixir define with forms
(`(defn f ...)`, `def f do`): a form whose head starts with `def` names what follows it. Imports
(`import_declaration`, `using_directive`, `use_statement`) and calls (`call_expression`,
`invocation_expression`, `function_call`) are found the same way.
"""

from __future__ import annotations

import re

from tree_sitter import Language, Node, Query, QueryError

# Definition words and the symbol kind each gives, most specific first: in `class_method` the
# method wins.
_KIND_WORDS: dict[str, str] = {
    "method": "method",
    "constructor": "method",
    "destructor": "method",
    "init": "method",
    "deinit": "method",
    "function": "function",
    "func": "function",
    "fn": "function",
    "fun": "function",
    "defun": "function",
    "subroutine": "function",
    "procedure": "function",
    "proc": "function",
    "rpc": "function",
    "task": "function",
    "bind": "function",
    "converter": "function",
    "iterator": "function",
    "enum": "enum",
    "enumeration": "enum",
    "interface": "interface",
    "intf": "interface",
    "trait": "trait",
    "protocol": "protocol",
    "struct": "struct",
    "structure": "struct",
    "union": "union",
    "record": "record",
    "object": "object",
    "mixin": "mixin",
    "class": "class",
    "contract": "class",
    "entity": "class",
    "component": "class",
    "service": "interface",
    "impl": "impl",
    "implementation": "impl",
    "extension": "impl",
    "instance": "impl",
    "namespace": "namespace",
    "package": "namespace",
    "module": "module",
    "mod": "module",
    "library": "module",
    "architecture": "module",
    "program": "module",
    "macro": "macro",
    "template": "macro",
    "define": "macro",
    "type": "type",
    "typedef": "type",
    "typealias": "type",
    "newtype": "type",
    "data": "type",
    "message": "type",
    "schema": "type",
    "table": "table",
    "view": "view",
    "const": "const",
    "constant": "const",
    "signal": "signal",
    "event": "event",
    "rule": "rule",
    "resource": "resource",
    "section": "section",
    "heading": "section",
    "var": "variable",
    "variable": "variable",
    "val": "variable",
    "let": "variable",
    "value": "variable",
    "binding": "variable",
    "property": "property",
    "prop": "property",
    "field": "field",
}
# Other words a definition kind may carry: `_definition`, `_declaration`, `Decl`, `local_`...
_DEFINITION_SUFFIXES = frozenset(
    {
        "definition",
        "declaration",
        "decl",
        "def",
        "defn",
        "item",
        "specifier",
        "spec",
        "statement",
        "stmt",
        "proto",
        "prototype",
        "signature",
        "synomym",
        "synonym",
        "alias",
        "directive",
        "create",
    }
)
_ADJECTIVES = frozenset(
    {
        "local",
        "global",
        "public",
        "private",
        "static",
        "abstract",
        "async",
        "inline",
        "extern",
        "external",
        "exported",
        "pure",
        "simple",
        "named",
        "top",
        "level",
        "sealed",
        "open",
        "derived",
        "full",
        "overloaded",
        "class",
        "constant",
        "final",
        "state",
        "array",
        "element",
        "atx",
        "setext",
    }
)
# Definitions named by two definition words and nothing else.
_COMPOUND_KINDS = {
    "data_type": "type",
    "type_alias": "type",
    "enum_class": "enum",
    "class_method": "method",
    "function_or_value_defn": "function",
}
# Data and markup formats have no definitions, but their sections are what one navigates by:
# (node kinds the grammar must have, the pattern).
_SECTION_PATTERNS = (
    (("table", "bare_key"), "(table . [(bare_key) (dotted_key) (quoted_key)] @name) @definition.table"),
    (
        ("table_array_element", "bare_key"),
        "(table_array_element . [(bare_key) (dotted_key) (quoted_key)] @name) @definition.table",
    ),
    (("section", "section_name"), "(section (section_name) @name) @definition.section"),
    (
        ("section", "atx_heading", "inline"),
        "(section (atx_heading heading_content: (inline) @name)) @definition.section",
    ),
    (("section", "setext_heading", "paragraph"), "(section (setext_heading (paragraph) @name)) @definition.section"),
    (("rule", "targets"), "(rule (targets) @name) @definition.rule"),
    (("rule_set", "selectors"), "(rule_set (selectors) @name) @definition.rule"),
    (
        ("document", "object", "pair", "string_content"),
        "(document (object (pair key: (string (string_content) @name) value: (object)) @definition.section))",
    ),
    (
        ("stream", "block_mapping_pair", "block_mapping"),
        "(stream (document (block_node (block_mapping (block_mapping_pair key: (_) @name "
        "value: (block_node (block_mapping))) @definition.section))))",
    ),
)
# Families of kinds: a definition of the same name and family directly inside another is its header.
_FAMILIES = (
    frozenset({"function", "method", "macro"}),
    frozenset(
        {"class", "struct", "enum", "interface", "trait", "protocol", "union", "record", "object", "mixin", "type"}
    ),
)
# Words that are a definition on their own (`function`, `class`); `type` or `module` alone is not.
_STANDALONE = frozenset(
    {
        "function",
        "method",
        "class",
        "struct",
        "enum",
        "interface",
        "trait",
        "protocol",
        "macro",
        "record",
        "mixin",
        "impl",
        "instance",
        "newtype",
        "procedure",
        "subroutine",
        "contract",
        "defun",
        "fn",
        "func",
        "constructor",
        "destructor",
        "typedef",
        "typealias",
        "rule",
        "message",
        "service",
        "table",
        "section",
        "bind",
        "module",
        "namespace",
        "package",
        "object",
        "union",
        "program",
        "library",
        "entity",
        "component",
        "schema",
    }
)
_VARIABLE_KINDS = frozenset({"variable", "property", "field", "const"})
CLASS_KINDS = frozenset(
    {
        "class",
        "struct",
        "enum",
        "interface",
        "trait",
        "protocol",
        "union",
        "record",
        "object",
        "mixin",
        "impl",
        "namespace",
        "module",
        "type",
    }
)

# Imports and calls: one of the first words, and nothing but the second besides.
_IMPORT_WORDS = frozenset({"import", "using", "include", "require", "use", "uses"})
_IMPORT_EXTRAS = frozenset(
    {"declaration", "statement", "directive", "header", "decl", "once", "expression", "namespace", "module"}
)
_CALL_WORDS = frozenset({"call", "invocation"})
_CALL_EXTRAS = frozenset(
    {"expression", "function", "method", "member", "scoped", "macro", "simple", "direct", "generic"}
)
_CALLEE_FIELDS = ("function", "callee", "method", "name", "macro")
_MEMBER_FIELDS = ("name", "field", "method", "property", "attribute", "member", "suffix", "right")
_OWNER_FIELDS = ("object", "table", "operand", "value", "receiver", "scope", "invocant", "left", "argument")
_PATH_GLUE = frozenset({".", "::", "\\", "/", ":"})
CALLEE_DEPTH = 4

# Forms that define by their head: (defn name ...), def name(...) do ... end.
_FORM_KINDS = ("list_lit", "list", "sexp", "s_expression", "call", "list_expression")
_HEAD_KINDS = ("sym_lit", "symbol", "identifier", "atom")
_NAME_KINDS = frozenset(
    {
        "identifier",
        "name",
        "symbol",
        "sym_lit",
        "sym_name",
        "alias",
        "constant",
        "word",
        "atom",
        "simple_identifier",
        "bare_key",
        "dotted_key",
        "quoted_key",
        "key",
        "tag_name",
        "simple_word",
        "variable_name",
        "lower_case_identifier",
        "upper_case_identifier",
        "module_name",
        "value_name",
        "function_name",
        "type_name",
        "class_name",
        "section_name",
        "property_identifier",
        "field_identifier",
        "namespace_identifier",
        "constructor_name",
        "object_reference",
        "inline",
        "heading_content",
    }
)
_TYPE_NAME = re.compile(r"type_identifier|type_name|class_name")
_NOT_NAME_HOLDERS = re.compile(
    r"body|block|parameter|argument|modifier|annotation|attribute|decorator|"
    r"comment|superclass|heritage|extends|implements|inherit|default|initializer|"
    r"string|literal|value|condition|constraint"
)
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
NAME_DEPTH = 3


def _words(kind: str) -> list[str]:
    return [w.lower() for part in kind.split("_") for w in _WORDS.findall(part)]


def definition_kind(node_kind: str) -> str | None:
    """The symbol kind a node kind stands for, or None when it is not a definition."""
    if node_kind in _COMPOUND_KINDS:
        return _COMPOUND_KINDS[node_kind]
    words = _words(node_kind)
    defining = [w for w in words if w in _KIND_WORDS]
    if not defining or not all(w in _KIND_WORDS or w in _DEFINITION_SUFFIXES or w in _ADJECTIVES for w in words):
        return None
    if not _DEFINITION_SUFFIXES & set(words):
        if len(set(defining)) > 1:
            return None  # `function_type`, `class_method`...: an expression of two definition words
        if defining[0] not in _STANDALONE:
            return None  # a bare or `generic_` `type`, `module` or `value` is a reference, not a definition
    return min((_KIND_WORDS[w] for w in defining), key=list(_KIND_WORDS.values()).index)


def query_text(grammar: Language) -> str:
    """One pattern per definition-like node kind of the grammar, plus the `def` forms it can have."""
    kinds = {}
    for kind_id in range(grammar.node_kind_count):
        if grammar.node_kind_is_named(kind_id) and grammar.node_kind_is_visible(kind_id):
            name = grammar.node_kind_for_id(kind_id)
            if name and name not in kinds and (kind := definition_kind(name)) is not None:
                kinds[name] = kind
    present = {
        name
        for i in range(grammar.node_kind_count)
        if grammar.node_kind_is_named(i) and grammar.node_kind_is_visible(i) and (name := grammar.node_kind_for_id(i))
    }
    patterns = [f"({name}) @definition.{kind}" for name, kind in kinds.items()]
    patterns += [pattern for needs, pattern in _SECTION_PATTERNS if present.issuperset(needs)]
    patterns += [f"({name}) @import" for name in sorted(present) if _is_kind_of(name, _IMPORT_WORDS, _IMPORT_EXTRAS)]
    patterns += [
        f"({name}) @reference.call" for name in sorted(present) if _is_kind_of(name, _CALL_WORDS, _CALL_EXTRAS)
    ]
    for form in _FORM_KINDS:
        for head in _HEAD_KINDS:
            if form in present and head in present:
                patterns.append(
                    f'({form} . ({head}) @definer . (_) @holder (#match? @definer "^def")) @definition.form'
                )
    return possible_patterns(grammar, patterns)


def _is_kind_of(node_kind: str, words: frozenset[str], extras: frozenset[str]) -> bool:
    found = _words(node_kind)
    return any(w in words for w in found) and all(w in words or w in extras for w in found)


def possible_patterns(grammar: Language, patterns: list[str]) -> str:
    """The patterns the grammar accepts: compile once, and drop whichever pattern an error names."""
    while patterns:
        try:
            Query(grammar, "\n".join(patterns))
        except QueryError as exc:
            row = re.search(r"row (\d+)", str(exc))
            if row is None or int(row.group(1)) >= len(patterns):
                raise
            del patterns[int(row.group(1))]
            continue
        break
    return "\n".join(patterns)


def is_name_kind(kind: str) -> bool:
    low = kind.lower()
    return low in _NAME_KINDS or low.endswith("identifier")


_NOT_NAMES = frozenset({"function", "fn", "func", "def", "sub", "proc", "procedure", "method"})


def _name_field(node: Node) -> Node | None:
    found = node.child_by_field_name("name") or node.child_by_field_name("function_name")
    if found is None or (not found.is_named and found.type in _NOT_NAMES):
        return None  # R calls its `function` keyword a name; Swift's `init` keyword is one
    return found


def _single_word(node_kind: str) -> bool:
    return "_" not in node_kind and node_kind.islower() and not node_kind.startswith("def")


def name_node(node: Node, kind: str) -> Node | None:
    """A definition's name: its `name` field, its declarator's identifier, or its nearest identifier."""
    named = _name_field(node)
    if named is not None:
        return named
    if _single_word(node.type):
        # A kind of one word (`function`, `class`) also stands for references and types in some
        # grammars (Haskell's function types): it defines only where it names itself, with a name
        # field or a child of its own (proto's `message` has a `message_name`).
        return next((c for c in node.named_children if c.type == f"{node.type}_name"), None)
    declarator = node.child_by_field_name("declarator")
    for _ in range(6):
        if declarator is None:
            break
        if is_name_kind(declarator.type):
            return declarator
        declarator = declarator.child_by_field_name("declarator") or next(
            (c for c in declarator.named_children if "declarator" in c.type or is_name_kind(c.type)), None
        )
    if kind in ("function", "method") and node.parent is not None:
        assigned = _assigned_name(node)  # `area <- function(r) ...`: the function itself has no name
        if assigned is not None:
            return assigned
    return _nearest_name(node, allow_types=kind in CLASS_KINDS) or _nearest_name(node, allow_types=True)


def _nearest_name(node: Node, *, allow_types: bool) -> Node | None:
    level = [node]
    for _ in range(NAME_DEPTH):
        deeper = []
        for parent in level:
            for child in parent.named_children:
                if is_name_kind(child.type) and (allow_types or not _TYPE_NAME.search(child.type)):
                    return child
                named = _name_field(child) if child.named_child_count else None
                if named is not None and not _NOT_NAME_HOLDERS.search(child.type):
                    return named  # `(defun name ...)`: the header's name, before the body's symbols
                if not _NOT_NAME_HOLDERS.search(child.type) and child.named_child_count:
                    deeper.append(child)
        level = deeper
    return None


def _assigned_name(node: Node) -> Node | None:
    """`area <- function(r) ...`, `f = fn x -> ...`: the name on the left of the assignment."""
    parent = node.parent
    if parent is None:
        return None
    right = (
        parent.child_by_field_name("right") or parent.child_by_field_name("rhs") or parent.child_by_field_name("value")
    )
    if right is None or right.id != node.id:
        return None
    left = parent.child_by_field_name("left") or parent.child_by_field_name("lhs") or parent.child_by_field_name("name")
    return left if left is not None and is_name_kind(left.type) else None


def form_definition(definer: str, form: Node, holder: Node) -> tuple[str, Node, bool] | None:
    """(kind, name node, private) for `(defn name ...)` / `def name(...)`; None if it names nothing."""
    head = definer.lower()
    name = holder
    for _ in range(4):
        if name.type == "atom":
            return None  # `defstruct [:a]`: fields, not a name
        if is_name_kind(name.type):
            break
        if not name.named_children:
            return None
        name = name.named_children[0]
    else:
        return None
    private = head.endswith(("p", "-")) and head not in ("defgroup",)
    rest = head.removeprefix("def").removeprefix("ine").rstrip("-p")
    for word, kind in (
        ("macro", "macro"),
        ("syntax", "macro"),
        ("class", "class"),
        ("struct", "struct"),
        ("record", "record"),
        ("protocol", "protocol"),
        ("interface", "interface"),
        ("type", "type"),
        ("module", "module"),
        ("impl", "impl"),
        ("method", "method"),
        ("generic", "function"),
        ("multi", "function"),
        ("var", "variable"),
        ("parameter", "variable"),
        ("const", "const"),
        ("custom", "variable"),
        ("once", "variable"),
        ("face", "variable"),
    ):
        if word in rest:
            return kind, name, private
    if head in ("def", "define") and form.type != "call" and holder.type == name.type:
        return "variable", name, private  # (def pi 3.14), (define pi 3.14): a value, not a function
    return "function", name, private


def is_local(kind: str, enclosing_kind: str | None) -> bool:
    """A variable, property or constant inside a function is a local, no symbol."""
    return kind in _VARIABLE_KINDS and enclosing_kind in ("function", "method")


def is_repeat(name: str, kind: str, enclosing_name: str, enclosing_kind: str) -> bool:
    """A header or declarator node inside the definition it belongs to (Fortran's `function_statement`
    in its `function`, C#'s `variable_declarator` in its field): the same definition twice."""
    if name != enclosing_name:
        return False
    return kind == enclosing_kind or any(
        kind in family and enclosing_kind in family for family in (*_FAMILIES, _VARIABLE_KINDS)
    )


# --- imports and calls --------------------------------------------------------------------------


def import_path(node: Node, source: bytes) -> tuple[str, list[str]] | None:
    """What an import statement names (`kotlin.math.sqrt`, `Acme.Util`, `"x.php"`), and `*` for all."""
    first = next((c for c in node.named_children if "comment" not in c.type), None)
    while first is not None and not first.is_named:
        first = first.next_sibling
    if first is None:
        return None
    end = first.end_byte
    sibling = first.next_sibling
    while (
        sibling is not None
        and sibling.start_byte == end
        and (sibling.is_named or source[sibling.start_byte : sibling.end_byte].decode("utf-8", "replace") in _PATH_GLUE)
    ):
        end = sibling.end_byte  # `scala.math._`: a path the grammar gives as separate pieces
        sibling = sibling.next_sibling
    text = source[first.start_byte : end].decode("utf-8", "replace").strip().strip("\"'`<>;")
    if not text:
        return None
    for wildcard in (".*", "._", "::*", "\\*"):
        if text.endswith(wildcard):
            return text[: -len(wildcard)], ["*"]
    wild = any("wildcard" in c.type for c in node.named_children)
    return text, ["*"] if wild else []


def _field(node: Node, names: tuple[str, ...]) -> Node | None:
    for name in names:
        found = node.child_by_field_name(name)
        if found is not None and found.is_named:
            return found
    return None


def call_parts(call: Node, source: bytes) -> tuple[Node, Node | None] | None:
    """A call's name and qualifier: `helper(x)` is helper; `a.b.go()`, `$this->go()`, `Foo::make()` go.

    None for what only looks like a call: the head of an Elixir `def f(x)`."""
    arguments = call.parent
    holder = arguments.parent if arguments is not None else None
    if (
        arguments is not None
        and holder is not None
        and holder.type == call.type
        and holder.named_child_count > 1
        and holder.named_children[1].id == arguments.id
        and source[holder.named_children[0].start_byte : holder.named_children[0].end_byte].startswith(b"def")
    ):
        return None
    owner = _field(call, _OWNER_FIELDS)
    target = _field(call, _CALLEE_FIELDS) or next(iter(call.named_children), None)
    for _ in range(CALLEE_DEPTH):
        if target is None:
            return None
        if is_name_kind(target.type) or not target.named_child_count:  # Perl's callee is a `function` leaf
            return target, owner
        children = target.named_children
        member = _field(target, _MEMBER_FIELDS) or (children[-1] if children else None)
        if member is None:
            return None
        owner = _field(target, _OWNER_FIELDS) or (
            children[0] if len(children) > 1 and children[0].id != member.id else owner
        )
        target = member
    return None
