"""Syntax nodes read as names: a dotted module or path name, an `a.b.c` expression, a parameter's
name, the names a statement binds, a definition's decorators. The import reader (imports.py) and the call references
(callrefs.py) read them the same way."""

from __future__ import annotations

from tree_sitter import Node

from .parse import node_text

MODULE_LIMIT = 500  # bytes of a module name read; longer is not a name
NAME_LIMIT = 200  # bytes of an identifier read


def dotted(node: Node, source: bytes) -> str:
    """A dotted name (`a.b.c`, `std::io`) as written, without the whitespace between its parts."""
    return "".join(node_text(node, source, MODULE_LIMIT).split())


def dotted_or_none(node: Node, source: bytes) -> str | None:
    """`a.b.c` when the expression is names and dots only."""
    parts = []
    while node.type == "attribute":
        attr = node.child_by_field_name("attribute")
        obj = node.child_by_field_name("object")
        if attr is None or obj is None:
            return None
        parts.append(node_text(attr, source, NAME_LIMIT))
        node = obj
    if node.type != "identifier":
        return None
    parts.append(node_text(node, source, NAME_LIMIT))
    return ".".join(reversed(parts))


def last_name(node: Node | None, source: bytes) -> str:
    """The last name of a name or an attribute (`register` of `admin.site.register`); "" for anything else."""
    if node is None or node.type not in ("identifier", "attribute"):
        return ""
    return node_text(node, source).rpartition(".")[2]


def called_name(call: Node, source: bytes) -> str:
    """The last name of what a Python call calls (`Depends` of `fastapi.Depends(f)`); "" for what is no call of a
    name or an attribute."""
    return last_name(call.child_by_field_name("function"), source) if call.type == "call" else ""


def positional_arguments(arguments: Node) -> list[Node]:
    """A call's arguments given by place, in order: not those by keyword (Python's), and not the comments and
    `\\` continuations tree-sitter names among them (extras, which would move the place of every argument after).
    The call readers of every language take them from here."""
    return [a for a in arguments.named_children if a.type != "keyword_argument" and not a.is_extra]


def method_call(call: Node, source: bytes) -> tuple[str, Node] | None:
    """`x.name(...)`, a Python call of a method: the method's name and the call's arguments; None for any other call."""
    function, arguments = call.child_by_field_name("function"), call.child_by_field_name("arguments")
    if function is None or function.type != "attribute" or arguments is None or arguments.type != "argument_list":
        return None
    attribute = function.child_by_field_name("attribute")
    return (node_text(attribute, source), arguments) if attribute is not None else None


def keyword_argument(arguments: Node, name: str, source: bytes) -> Node | None:
    """The value a Python call passes by this keyword (`prefix="/items"`), if it does."""
    for argument in arguments.named_children:
        key = argument.child_by_field_name("name") if argument.type == "keyword_argument" else None
        if key is not None and node_text(key, source) == name:
            return argument.child_by_field_name("value")
    return None


def string_literal(node: Node, source: bytes) -> str | None:
    """A plain Python string literal's text as written; None for anything else (an f-string with values in it, bytes,
    a name, escapes)."""
    if node.type != "string":
        return None
    start = node.child(0)
    if start is None or "b" in node_text(start, source).lower():
        return None
    parts = [c for c in node.named_children if c.type not in ("string_start", "string_end")]
    if any(p.type != "string_content" for p in parts):
        return None
    return "".join(node_text(p, source) for p in parts)


def param_name(param: Node, source: bytes) -> str | None:
    if param.type == "identifier":
        return node_text(param, source, NAME_LIMIT)
    named = param.child_by_field_name("name")
    if named is not None and named.type == "identifier":
        return node_text(named, source, NAME_LIMIT)
    first = param.named_children[0] if param.named_child_count else None
    if first is not None and first.type in ("list_splat_pattern", "dictionary_splat_pattern"):  # `**options: str`
        first = first.named_children[0] if first.named_child_count else None
    return node_text(first, source, NAME_LIMIT) if first is not None and first.type == "identifier" else None


def identifiers(node: Node, source: bytes) -> list[str]:
    if node.type == "identifier":
        return [node_text(node, source, NAME_LIMIT)]
    return [node_text(c, source, NAME_LIMIT) for c in node.named_children if c.type == "identifier"]


def bound_target(node: Node) -> Node | None:
    """What a `for`, `with ... as`, `except ... as` binds: the name or pattern it assigns (None for none)."""
    target = node.child_by_field_name("left") or node.child_by_field_name("alias")
    if node.type == "with_item":
        value = node.child_by_field_name("value")
        target = value.child_by_field_name("alias") if value is not None and value.type == "as_pattern" else None
    if target is not None and target.type == "as_pattern_target" and target.named_child_count:
        target = target.named_children[0]
    return target


def bound_names(node: Node) -> list[str]:
    """Names a `for`, `with ... as`, `except ... as` binds: values we do not follow."""
    target = bound_target(node)
    if target is None:
        return []
    return (
        [target.text.decode("utf-8", "replace")]
        if target.type == "identifier" and target.text
        else [c.text.decode("utf-8", "replace") for c in target.named_children if c.type == "identifier" and c.text]
    )


# Attributes a grammar puts before a definition as its siblings, where Python's decorated_definition holds them:
# Rust's `#[derive(Default)]` and `#[cfg(test)]`, a TypeScript class member's `@Column()`.
_SIBLING_ATTRIBUTES = frozenset({"attribute_item", "decorator"})
_ANNOTATIONS = frozenset({"annotation", "marker_annotation"})


def decorators(outer: Node, node: Node, source: bytes) -> list[str]:
    """A definition's decorators, attributes and annotations as written, whitespace collapsed (`@property`,
    `@app.route("/")`, `#[derive(Default)]`, `@Test`): those written before `outer` (leading_attributes), then the
    named children of `outer`, the decorated definition around `node` (none when it is `node` itself), then those
    among its modifiers (Java's, Kotlin's)."""
    items = [*leading_attributes(outer), *_decorator_items(outer, node), *_annotations(node)]
    return [" ".join(node_text(c, source, 200).split()) for c in items]


def _annotations(node: Node) -> list[Node]:
    """Java's and Kotlin's annotations, which their grammars put among a definition's modifiers (`@Test`,
    `@Override`)."""
    modifiers = next((c for c in node.children if c.type == "modifiers"), None)
    return [c for c in modifiers.children if c.type in _ANNOTATIONS] if modifiers is not None else []


def leading_attributes(outer: Node) -> list[Node]:
    """The attributes written right before a definition as its siblings, comments between them allowed. They are
    part of what it is (`#[derive(Default)]` gives a struct a method; `#[cfg(test)]` says when it exists), so of
    its span and its signature, as a Python decorator is."""
    found: list[Node] = []
    sibling = outer.prev_named_sibling
    while sibling is not None and (sibling.type in _SIBLING_ATTRIBUTES or "comment" in sibling.type):
        if sibling.type in _SIBLING_ATTRIBUTES:
            found.append(sibling)
        sibling = sibling.prev_named_sibling
    return found[::-1]


def decorator_expressions(outer: Node, node: Node) -> list[Node]:
    """What each of a definition's decorators is, in order: `click.pass_context`, the call `pytest.fixture(...)`."""
    return [c.named_children[0] for c in _decorator_items(outer, node) if c.named_child_count]


def _decorator_items(outer: Node, node: Node) -> list[Node]:
    return [] if outer is node else [c for c in outer.named_children if c.type == "decorator"]


def is_async(statement: Node | None) -> bool:
    """Whether a Python `for` or `with` statement is its `async` form (`async with`: `__aenter__`, not `__enter__`)."""
    first = statement.child(0) if statement is not None else None
    return first is not None and first.type == "async"


def with_statement(item: Node) -> Node | None:
    """The `with` statement a with_item is in (with_item, with_clause, with_statement)."""
    return item.parent.parent if item.parent is not None else None
