"""What Django runs for a test's request besides the views of its URL configurations (pyurlconf.py): what a settings
file names to run for every request (its middleware, authentication backends and context processors, by dotted
paths), the ModelAdmin classes an admin module registers, which serve their models' admin pages with the list filters,
inlines, actions and forms they name, and the path converters a route's path writes (`<sha1:key>`), which run to match
and to reverse it. Each is a route (store/routes.py) whose view the store resolves: one of every path (ANY_PATH) whose
view is a dotted path (DOTTED), `/<site>/<app>/profile/...` whose view is the class, or the converted route's own.

bench/facts_tests_routes.py, Healthchecks' 2,363 functions, recall / precision / said untested: with the list filters
and the converters 0.976 / 0.822 / 42 -> 0.979 / 0.821 / 32. Left: a ModelAdmin's `has_add_permission`, which every
admin page runs for the menu of every registered model."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from tree_sitter import Node

from ...store.refs import ANY_METHOD, ANY_PATH, DOTTED
from .nodes import called_name, decorator_expressions, last_name, positional_arguments, string_literal
from .parse import node_text
from .pyurlconf import url_patterns

if TYPE_CHECKING:
    from .callrefs import PythonRefs

# Settings naming what Django runs for every request: the middleware, the authentication backends (a logged-in test's
# requests get their user from them) and, under TEMPLATES, the context processors (each page rendered)
_EVERY_REQUEST = ("MIDDLEWARE", "MIDDLEWARE_CLASSES", "AUTHENTICATION_BACKENDS", "TEMPLATES")
_DOTTED_PATH = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")


def django_routes(refs: PythonRefs) -> tuple[list[dict[str, Any]], list[str]]:
    """The routes the file gives Django (FileFacts.routes: each with the ref of its view, which serves any method),
    and the prefixes it mounts other URL configurations under."""
    configured, mounts = url_patterns(refs)
    views = list(configured)
    converters = _converters(refs)  # `<sha1:code>`: its converter runs for the route, to match it and to reverse it
    views += [
        (converter, path, name)
        for _, path, name in configured
        for written, converter in converters.items()
        if f"<{written}:" in path
    ]
    views += [(DOTTED + dotted, ANY_PATH, None) for dotted in request_hooks(refs)]
    views += [(view, path, None) for view, path in admin_pages(refs)]
    routes = [
        {"symbol": None, "method": ANY_METHOD, "path": path, "scope": None, "view": view, "name": name}
        for view, path, name in views
    ]
    return routes, mounts


def request_hooks(refs: PythonRefs) -> list[str]:
    """The dotted paths (`hc.accounts.middleware.TeamAccessMiddleware`) of what the file's Django settings run for
    every request: MIDDLEWARE, AUTHENTICATION_BACKENDS and the context processors TEMPLATES lists."""
    found: set[str] = set()
    for setting in _EVERY_REQUEST:
        for value in refs.module.values.get(setting, []):
            held = _context_processors(value, refs.source) if setting == "TEMPLATES" else [value]
            found.update(
                text
                for listed in held
                if listed.type in ("list", "tuple")
                for item in listed.named_children
                if (text := string_literal(item, refs.source)) is not None and _DOTTED_PATH.fullmatch(text)
            )
    return sorted(found)


def admin_pages(refs: PythonRefs) -> list[tuple[str, str]]:
    """(the ref of a ModelAdmin class, the path of its model's admin pages) for each model the file registers with
    Django's admin (`@admin.register(Profile) class ProfileAdmin`, `admin.site.register(User, HcUserAdmin)`): its
    pages are `/<site>/<app>/profile/...` wherever the admin is mounted, and they run the class's methods."""
    if not {"django.contrib", "django.contrib.admin"} & set(refs.imported_modules.values()):
        return []
    registered: list[tuple[str, Node]] = []  # (the class's name, a model it registers)
    for d in refs.ordered:
        for expression in decorator_expressions(d.outer, d.node) if d.kind == "class" else []:
            registered += [(d.qualname, model) for model in _registered(expression, refs.source)]
    for call, where in refs.calls:  # `admin.site.register(User, HcUserAdmin)`
        given = _registered(call, refs.source) if where is None else []
        if len(given) == 2 and given[1].type == "identifier":
            registered.append((node_text(given[1], refs.source), given[0]))
    out = []
    for cls, model in registered:
        name = last_name(model, refs.source).lower()
        if name and cls in refs.by_qualname:
            pages = (f"/<site>/<app>/{name}", f"/<site>/<app>/{name}/<path:page>")
            out += [(view, page) for view in (f"module:{cls}", *_admin_parts(refs, cls)) for page in pages]
    return out


def _admin_parts(refs: PythonRefs, cls: str) -> list[str]:
    """The refs of what a ModelAdmin's body names for its pages to run (`list_filter = (NumChecksFilter, ...)`,
    `inlines`, `actions`, `form`): the classes' methods and the functions run with the pages."""
    body = refs.class_scopes.get(cls)
    if body is None:
        return []
    found: set[str] = set()
    for attribute in _ADMIN_PARTS:
        for value in body[0].values.get(attribute, []):
            items = value.named_children if value.type in ("list", "tuple") else [value]
            for item in items:  # `("status", StatusFilter)`: the filter of a field
                named = [n for n in (item.named_children if item.type == "tuple" else [item]) if n.type == "identifier"]
                found.update(r for n in named for r in refs.code_refs(n, body[1]))
    return sorted(found)


def _converters(refs: PythonRefs) -> dict[str, str]:
    """The path converters the file registers (`register_converter(SHA1Converter, "sha1")`), by the name routes write
    them with, each as the ref of its class."""
    found: dict[str, str] = {}
    for call, where in refs.calls:
        arguments = call.child_by_field_name("arguments")
        if called_name(call, refs.source) != "register_converter" or arguments is None:
            continue
        given = positional_arguments(arguments)
        name = string_literal(given[1], refs.source) if len(given) == 2 else None
        classes = refs.code_refs(given[0], where) if name else []
        if name and classes:
            found[name] = "|".join(classes)
    return found


_ADMIN_PARTS = ("list_filter", "inlines", "actions", "form")


def _registered(call: Node, source: bytes) -> list[Node]:
    """The arguments of a call of `register` (`admin.register(Profile)`, `admin.site.register(User, HcUserAdmin)`)."""
    arguments = call.child_by_field_name("arguments") if call.type == "call" else None
    if arguments is None or called_name(call, source) != "register":
        return []
    return positional_arguments(arguments)


def _context_processors(node: Node, source: bytes) -> list[Node]:
    """The lists a TEMPLATES setting gives under `"context_processors"`."""
    out, todo = [], [node]
    while todo:
        current = todo.pop()
        key = current.child_by_field_name("key") if current.type == "pair" else None
        if key is not None and string_literal(key, source) == "context_processors":
            value = current.child_by_field_name("value")
            out.extend([value] if value is not None else [])
        todo.extend(current.named_children)
    return out
