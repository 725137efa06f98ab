"""Django's URL configurations: the view each `path(route, view, name=...)` of a file names, under the prefixes the
file's own includes put it, and the prefixes the file mounts other configurations under.

`path("checks/<uuid:code>/", include(check_urls))` puts the file's list `check_urls` under `/checks/<uuid:code>/`;
`path("catalog/", include("catalog.urls"))` mounts another file's routes under `/catalog`, kept with pyroutes.py's
mount prefixes (wherever written, any route may sit under them). A view is a function (`views.index`) or a class's
`as_view()`, which Django runs the methods of; the views live in other files, so a route keeps the ref of its view
for the store to resolve (store/routes.py). Django hands a view every method (`require_POST` aside): a route serves
any. `re_path(r"^book/(?P<pk>\\d+)$", ...)` is read as `book/<pk>` where the expression holds literals and groups
alone; a route whose text is not a literal (`f"{prefix}admin/"`) is not read. pydjango.py reads what else Django runs
for a request."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tree_sitter import Node

from .nodes import keyword_argument, positional_arguments, string_literal
from .parse import node_text

if TYPE_CHECKING:
    from .callrefs import PythonRefs

_CONFIGURATIONS = frozenset({"django.urls", "django.conf.urls"})
_ROUTES = frozenset({"path", "re_path", "url"})
_GROUP = re.compile(r"\(\?P<(\w+)>[^()]*\)")
_MAX_DEPTH = 5  # includes within includes of one file


def url_patterns(refs: PythonRefs) -> tuple[list[tuple[str, str, str | None]], list[str]]:
    """(the view's ref, path, name) of each route the file configures, and the prefixes it mounts other files'
    configurations under."""
    if not _CONFIGURATIONS & set(refs.imported_modules.values()):
        return [], []
    app_name = _app_name(refs)
    includes = _own_includes(refs)
    found: list[tuple[str, str, str | None]] = []
    mounts: list[str] = []
    for call, where in refs.calls:
        if where is not None or _django(refs, call) not in _ROUTES:
            continue
        arguments = call.child_by_field_name("arguments")
        given = positional_arguments(arguments) if arguments is not None else []
        view = given[1] if len(given) > 1 else keyword_argument(arguments, "view", refs.source) if arguments else None
        if view is None:
            continue
        route = _route(refs, call)
        paths = [prefix + route for prefix in _prefixes(refs, includes, call, 0)] if route is not None else []
        if view.type == "call" and _django(refs, view) == "include":
            if not _includes_own_list(refs, view):
                mounts.extend("/" + p.strip("/") for p in paths if p.strip("/") and "<" not in p)
            continue
        named = keyword_argument(arguments, "name", refs.source) if arguments is not None else None
        name = string_literal(named, refs.source) if named is not None else None
        if name is not None and app_name is not None:
            name = f"{app_name}:{name}"
        ref = _view_ref(refs, view)
        if ref:
            found.extend((ref, "/" + p.lstrip("/"), name) for p in paths)
    return found, sorted(set(mounts))


def _django(refs: PythonRefs, call: Node) -> str | None:
    """The name of the Django URL configuration function a call calls (`path`, `include`), if it calls one."""
    function = call.child_by_field_name("function") if call.type == "call" else None
    if function is None:
        return None
    for ref in refs.refs_of(function, None):
        root, _, name = ref.partition(":")
        ordinal = root.removeprefix("import#")
        if ordinal.isdigit() and refs.imported_modules.get(int(ordinal)) in _CONFIGURATIONS:
            return name.rpartition(".")[2]
    return None


def _route(refs: PythonRefs, call: Node) -> str | None:
    """A route's own text, `re_path`'s expression read as a route; None for what is no literal."""
    arguments = call.child_by_field_name("arguments")
    given = positional_arguments(arguments) if arguments is not None else []
    written = given[0] if given else keyword_argument(arguments, "route", refs.source) if arguments else None
    text = string_literal(written, refs.source) if written is not None else None
    if text is None or _django(refs, call) == "path":
        return text
    text = _GROUP.sub(lambda m: f"<{m[1]}>", text.removeprefix("^").removesuffix("$"))
    return text if not re.search(r"[\\^$()\[\]*+?|{}]", text) else None


def _prefixes(refs: PythonRefs, includes: dict[str, list[Node]], node: Node, depth: int) -> list[str]:
    """The routes the file's own includes (`includes`: _own_includes) put the list holding this route under: [""] at
    the top of the file's configuration, none where an include the file cannot read holds it."""
    if depth > _MAX_DEPTH:
        return []
    current = node.parent
    while current is not None:
        if current.type == "call" and _django(refs, current) == "include":  # `path("api/", include([...]))`
            return _under(refs, includes, current, depth)
        if current.type in ("assignment", "augmented_assignment") and _at_top_level(current):
            left = current.child_by_field_name("left")
            if left is not None and left.type == "identifier":
                held = includes.get(node_text(left, refs.source), [])
                return [p for include in held for p in _under(refs, includes, include, depth)] if held else [""]
        current = current.parent
    return [""]


def _at_top_level(node: Node) -> bool:
    statement = node.parent
    if statement is not None and statement.type == "expression_statement":
        statement = statement.parent
    return statement is not None and statement.type == "module"


def _under(refs: PythonRefs, includes: dict[str, list[Node]], include: Node, depth: int) -> list[str]:
    """The prefixes of what an `include(...)` holds: those of the route it is the view of, with that route's own."""
    outer = include.parent.parent if include.parent is not None else None
    if outer is None or outer.type != "call" or _django(refs, outer) not in _ROUTES:
        return []
    route = _route(refs, outer)
    return [p + route for p in _prefixes(refs, includes, outer, depth + 1)] if route is not None else []


def _own_includes(refs: PythonRefs) -> dict[str, list[Node]]:
    """The file's `include(name)` calls of its own lists, by the name."""
    out: dict[str, list[Node]] = {}
    for call, where in refs.calls:
        if where is None and _django(refs, call) == "include":
            arguments = call.child_by_field_name("arguments")
            given = positional_arguments(arguments) if arguments is not None else []
            if given and given[0].type == "identifier":
                out.setdefault(node_text(given[0], refs.source), []).append(call)
    return out


def _includes_own_list(refs: PythonRefs, include: Node) -> bool:
    """Whether an include holds routes the file configures itself: a list written there, or one of the file's."""
    arguments = include.child_by_field_name("arguments")
    given = positional_arguments(arguments) if arguments is not None else []
    if not given:
        return False
    held = given[0]
    return held.type == "list" or (held.type == "identifier" and node_text(held, refs.source) in refs.module.values)


def _view_ref(refs: PythonRefs, view: Node) -> str:
    """The ref of a route's view, a function or the class of `Class.as_view(...)`, alternatives joined by `|`."""
    if view.type == "call":
        function = view.child_by_field_name("function")
        attribute = function.child_by_field_name("attribute") if function is not None else None
        if function is None or attribute is None or node_text(attribute, refs.source) != "as_view":
            return ""
        view = function.child_by_field_name("object") or view
    if view.type not in ("identifier", "attribute"):
        return ""
    return "|".join(refs.code_refs(view, None))


def _app_name(refs: PythonRefs) -> str | None:
    """The namespace `app_name = "catalog"` gives the file's route names (`catalog:index`)."""
    for value in refs.module.values.get("app_name", []):
        text = string_literal(value, refs.source)
        if text:
            return text
    return None
