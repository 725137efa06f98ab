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

from ...store.refs import ANY_METHOD, ANY_PATH, BACKEND, DOTTED, authenticate_ref, parse_ref
from .nodes import called_name, decorator_expressions, last_name, method_call, positional_arguments, string_literal
from .parse import node_text
from .pyurlconf import url_patterns

if TYPE_CHECKING:
    from .callrefs import PythonRefs
    from .pyscopes import Definition

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
    views += [(hook, ANY_PATH, None) for hook in request_hooks(refs)]
    views += [(view, path, None) for view, path in admin_pages(refs)]
    routes = [
        {"symbol": None, "method": ANY_METHOD, "path": path, "scope": None, "view": view, "name": name}
        for view, path, name in views
    ]
    return routes, mounts


def request_hooks(refs: PythonRefs) -> list[str]:
    """The views (DOTTED: `dotted:hc.accounts.middleware.TeamAccessMiddleware`, BACKEND for an authentication
    backend) of what the file's Django settings run for every request: MIDDLEWARE, AUTHENTICATION_BACKENDS and the
    context processors TEMPLATES lists."""
    found: set[str] = set()
    for setting in _EVERY_REQUEST:
        prefix = BACKEND if setting == "AUTHENTICATION_BACKENDS" else DOTTED
        for value in refs.module.values.get(setting, []):
            held = _context_processors(value, refs.source) if setting == "TEMPLATES" else [value]
            found.update(
                prefix + text
                for listed in held
                if listed.type in ("list", "tuple")
                for item in listed.named_children
                if (text := string_literal(item, refs.source)) is not None and _DOTTED_PATH.fullmatch(text)
            )
    return sorted(found)


def logins(refs: PythonRefs) -> list[tuple[Node, Definition | None, str]]:
    """Each call authenticating with Django's backends, as a call at the call (store/refs.py's AUTHENTICATE): of
    `authenticate()` from django.contrib.auth (`auth.authenticate(request, username=u, password=p)`), and of the test
    client's `login()` (`self.client.login(username=u, password=p)`), which calls it. `force_login()` does not."""
    out: list[tuple[Node, Definition | None, str]] = []
    for call, where in refs.calls:
        function, arguments = call.child_by_field_name("function"), call.child_by_field_name("arguments")
        if function is None or arguments is None or arguments.type != "argument_list":
            continue
        called = method_call(call, refs.source)
        on_client = called is not None and called[0] == "login" and _is_test_client(function, refs.source)
        if on_client or _is_djangos_authenticate(refs, function, where):
            out.append((call, where, authenticate_ref(_credentials(arguments, refs.source))))
    return out


def _is_test_client(function: Node, source: bytes) -> bool:
    """Whether `x.login` is called on Django's test client: `self.client`, `client`."""
    receiver = function.child_by_field_name("object")
    return receiver is not None and node_text(receiver, source).rpartition(".")[2] == "client"


def _is_djangos_authenticate(refs: PythonRefs, function: Node, where: Definition | None) -> bool:
    """Whether the called name is django.contrib.auth's `authenticate` (imported itself, or `auth.authenticate`)."""
    if last_name(function, refs.source) != "authenticate":
        return False
    for ref in refs.refs_of(function, where):
        parsed = parse_ref(ref)
        if parsed is None or parsed.root != "import" or parsed.ordinal is None:
            continue
        module = refs.imported_modules.get(parsed.ordinal)
        if (module, parsed.segments) in (("django.contrib.auth", ("authenticate",)), ("django.contrib", _AUTH)):
            return True
    return False


_AUTH = ("auth", "authenticate")


def _credentials(arguments: Node, source: bytes) -> list[str] | None:
    """The keywords a call passes its credentials by (`request` is no credential); None where `**creds` hides them."""
    keywords = []
    for argument in arguments.named_children:
        if argument.type == "dictionary_splat":
            return None
        name = argument.child_by_field_name("name") if argument.type == "keyword_argument" else None
        if name is not None and node_text(name, source) != "request":
            keywords.append(node_text(name, source))
    return keywords


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
