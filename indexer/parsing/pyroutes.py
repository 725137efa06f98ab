"""Python's web routes: the function serving each method and path, and the requests that reach it.

A route is a function decorated `@X.route(path, methods=[...])` (Flask), `@X.get(path)`, `@X.post(path)`...
(Flask 2, FastAPI, Starlette's routers) or `@X.api_route(path, methods=[...])`, its path under the prefix the file's
top level gives X (`bp = Blueprint("auth", __name__, url_prefix="/auth")`, `router = APIRouter(prefix="/items")`).
The project mounts routes under other prefixes too (`app.include_router(router, prefix="/api")`,
`app.register_blueprint(bp, url_prefix="/v1")`): those are kept apart, wherever they are written. A request is a
call `client.get(path)`, `client.post(path, ...)`, `client.open(path, method=...)`, `client.request(method, path)`,
`client.websocket_connect(path)` or Django's `self.assertRedirects(response, path)` (which fetches the page), with a
literal path (an f-string's values written `{}`), a route's name (Django's `reverse("catalog:authors")`), a name
or the test's `self.url` assigned one, or what a helper of the file returns (`self._url(state="XYZ")`): a call where
it is written whose ref is the request (store/refs.py's route_ref); store/routes.py says which routes serve it.
Django's routes are pyurlconf.py's.

bench/facts_tests_routes.py, Healthchecks v3.9's 118 routes, recall / precision of the test files listed 0.970 / 0.955
before a helper's result and a query added to a literal path (`"/checks/validate_schedule/?" + urlencode(params)`)
were read, 0.990 / 0.972 after; its 2,363 functions 0.990 -> 0.991 recall; the other apps the same."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tree_sitter import Node

from ...store.refs import ANY_METHOD, PATH_HOLE, ROUTE_NAME, as_value, route_ref
from .nodes import (
    called_name,
    decorator_expressions,
    keyword_argument,
    method_call,
    positional_arguments,
    string_literal,
)
from .parse import node_text

if TYPE_CHECKING:
    from .callrefs import PythonRefs
    from .pyscopes import Definition

_DECORATORS = {  # a route decorator's name -> the method it serves (None: `methods=`, else GET)
    "route": None,
    "api_route": None,
    **{m: m.upper() for m in ("get", "post", "put", "delete", "patch", "head", "options", "trace")},
    "websocket": "WEBSOCKET",
    "websocket_route": "WEBSOCKET",
}
_REQUESTS = {
    **{m: m.upper() for m in ("get", "post", "put", "delete", "patch", "head", "options")},
    "websocket_connect": "WEBSOCKET",
    "open": None,  # werkzeug's and Flask's test client: `method=` says, else GET
    "request": None,  # httpx's and requests': the method first
    "assertRedirects": "GET",  # Django's TestCase: fetches the page redirected to, its second argument
}
_REVERSES = frozenset({"reverse", "reverse_lazy"})  # Django's: the path of a route by its name
_MAX_HOPS = 3  # names assigned names
_FORMAT_FIELD = re.compile(r"\{[^{}]*\}")
_PERCENT_FIELD = re.compile(r"%(?:\([^)]*\))?[-#0 +]*\d*(?:\.\d+)?[sdifr]")
_PREFIXES = {"Blueprint": "url_prefix", "APIRouter": "prefix"}  # a router made with its own prefix
_MOUNTS = {"include_router": "prefix", "register_blueprint": "url_prefix", "mount": None}  # None: the first argument


def routes(refs: PythonRefs) -> tuple[list[tuple[str, str, str, str | None]], list[str]]:
    """The routes the file's functions serve, (qualname, method, path, the function it is defined in), and the
    prefixes it mounts routes under."""
    found: list[tuple[str, str, str, str | None]] = []
    for d in refs.ordered:
        if d.kind not in ("function", "method"):
            continue
        for expression in decorator_expressions(d.outer, d.node):
            served = _served(refs, expression)
            if served is not None:
                found.extend((d.qualname, m, served[1], _enclosing_function(d)) for m in served[0])
    mounts = []
    for call, _ in refs.calls:
        called = method_call(call, refs.source)
        if called is None or called[0] not in _MOUNTS:
            continue
        keyword, arguments = _MOUNTS[called[0]], called[1]
        given = positional_arguments(arguments)
        prefix = keyword_argument(arguments, keyword, refs.source) if keyword else (given[0] if given else None)
        text = string_literal(prefix, refs.source) if prefix is not None else None
        if text and text.startswith("/"):
            mounts.append(text.rstrip("/"))
    return found, sorted(set(mounts))


def requests(refs: PythonRefs) -> list[tuple[Node, Definition | None, str]]:
    """Each request a call makes of a literal path (`client.get("/items/5")`), as a call at the path."""
    out: list[tuple[Node, Definition | None, str]] = []
    for call, where in refs.calls:
        called = method_call(call, refs.source)
        if (
            called is None
            or called[0] not in _REQUESTS
            or (call.parent is not None and call.parent.type == "decorator")
        ):
            continue  # `@app.get("/")` makes a route, it requests none
        verb, arguments = called
        given = positional_arguments(arguments)
        method = _REQUESTS[verb]
        if verb == "request":
            method = string_literal(given[0], refs.source) if given else None
            given = given[1:]
        elif verb == "assertRedirects":
            fetched = keyword_argument(arguments, "fetch_redirect_response", refs.source)
            if fetched is not None and node_text(fetched, refs.source) == "False":
                continue
            given = given[1:] or [g for g in [keyword_argument(arguments, "expected_url", refs.source)] if g]
        elif method is None:
            written = keyword_argument(arguments, "method", refs.source)
            method = string_literal(written, refs.source) if written is not None else "GET"
        target = given[0] if given else keyword_argument(arguments, "url", refs.source)
        if target is None or not method:
            continue
        caller = where.qualname if where is not None else ""
        for path in dict.fromkeys(_request_paths(refs, target, where, 0)):
            out.append((target, where, route_ref(method.upper(), path, caller)))
    return out


def _request_paths(refs: PythonRefs, node: Node, where: Definition | None, hops: int) -> list[str]:
    """The paths a request's argument may be: a literal (`"/items/5"`, `f"/items/{item.id}"`, one formatted with
    values, `"/badge/%s/" % key`, `"/checks/{}/".format(code)`), a route's name (Django's `reverse("catalog:authors")`,
    ROUTE_NAME), or what a local name or the test's `self.url` is assigned (`self.url = f"/checks/{...}/details/"` in
    `setUp`, `url = "/checks/cron_preview/"` in the class's body) or a helper returns, with a query or a literal added
    (`+ "?page=2"`, `"/checks/?" + urlencode(params)`)."""
    if hops > _MAX_HOPS:
        return []
    if node.type == "string":
        path = _request_path(node, refs.source)
        return [path] if path is not None else []
    if node.type == "call":
        return _called_paths(refs, node, where, hops)
    shaped = formatted(node, refs.source) if node.type == "binary_operator" else None
    if shaped is not None:  # `"/badge/%s/" % key`, `self.url % 5`
        held, fields = shaped
        return [fields.sub(PATH_HOLE, p) for p in _request_paths(refs, held, where, hops + 1)]
    operator = node.child_by_field_name("operator") if node.type == "binary_operator" else None
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if operator is not None and left is not None and right is not None:
        added = string_literal(right, refs.source) if node_text(operator, refs.source) == "+" else None
        if added is None:  # `"/checks/validate_schedule/?" + urlencode(params)`: a query added to a literal path
            queried = left.type == "string" and "?" in with_holes(left, refs.source)
            return _request_paths(refs, left, where, hops + 1) if queried else []
        paths = _request_paths(refs, left, where, hops + 1)
        return paths if added.startswith(("?", "#")) else [p + added for p in paths if not p.startswith(ROUTE_NAME)]
    return [p for value, owner in _assigned(refs, node, where) for p in _request_paths(refs, value, owner, hops + 1)]


def _called_paths(refs: PythonRefs, call: Node, where: Definition | None, hops: int) -> list[str]:
    """`reverse("catalog:authors")`: the route of that name; `"/checks/{}/".format(code)`: the path formatted;
    `self._url(state="XYZ")`: what the test's helper (a method of its class, or a function of the file) returns."""
    called = called_name(call, refs.source)
    arguments = call.child_by_field_name("arguments")
    if called in _REVERSES and arguments is not None:
        given = positional_arguments(arguments)
        name = string_literal(given[0], refs.source) if given else None
        return [ROUTE_NAME + name] if name else []
    helper = _helper(refs, call.child_by_field_name("function"), where)
    if helper is not None:
        return [p for given in refs.results(helper) for p in _request_paths(refs, given, helper, hops + 1)]
    shaped = formatted(call, refs.source)
    if shaped is None or shaped[0].type != "string":
        return []
    path = _request_path(shaped[0], refs.source)
    return [shaped[1].sub(PATH_HOLE, path)] if path is not None else []


def _helper(refs: PythonRefs, function: Node | None, where: Definition | None) -> Definition | None:
    """The function of this file a call runs, where the call says which: `url_for(...)`, a function of the file's
    top level, or `self._url(...)`, a method of the class the call is written in."""
    if function is None:
        return None
    if function.type == "identifier":
        found = refs.by_qualname.get(node_text(function, refs.source))
        return found if found is not None and found.parent is None and found.kind != "class" else None
    target, attribute = function.child_by_field_name("object"), function.child_by_field_name("attribute")
    cls = where.parent if where is not None else None
    if function.type != "attribute" or target is None or attribute is None or cls is None or cls.kind != "class":
        return None
    if node_text(target, refs.source) != "self":
        return None
    return refs.by_qualname.get(f"{cls.qualname}.{node_text(attribute, refs.source)}")


def formatted(node: Node, source: bytes) -> tuple[Node, re.Pattern[str]] | None:
    """What `%` (`"/badge/%s/" % key`) or `.format()` (`"/checks/{}/".format(code)`) writes values into, with the
    pattern of the fields they fill; None for any other expression. Request paths read so, and template names
    (pytemplates.py)."""
    if node.type == "binary_operator":
        operator, left = node.child_by_field_name("operator"), node.child_by_field_name("left")
        is_percent = operator is not None and left is not None and node_text(operator, source) == "%"
        return (left, _PERCENT_FIELD) if is_percent and left is not None else None
    function = node.child_by_field_name("function") if node.type == "call" else None
    held = function.child_by_field_name("object") if function is not None and function.type == "attribute" else None
    return (held, _FORMAT_FIELD) if held is not None and called_name(node, source) == "format" else None


def with_holes(node: Node, source: bytes) -> str:
    """A Python string literal's text as written, each value an f-string writes into it as PATH_HOLE."""
    parts = [c for c in node.named_children if c.type not in ("string_start", "string_end")]
    return "".join(PATH_HOLE if p.type == "interpolation" else node_text(p, source) for p in parts)


def _assigned(refs: PythonRefs, node: Node, where: Definition | None) -> list[tuple[Node, Definition | None]]:
    """What a name (`url`) or an attribute of the test (`self.url`) is assigned in the file, with where."""
    if node.type == "identifier":
        return refs.values_of(node_text(node, refs.source), where)
    target, attribute = node.child_by_field_name("object"), node.child_by_field_name("attribute")
    if node.type != "attribute" or target is None or attribute is None or node_text(target, refs.source) != "self":
        return []
    cls = where.parent if where is not None else None
    if cls is None or cls.kind != "class":
        return []
    name = node_text(attribute, refs.source)
    body = refs.class_scopes.get(cls.qualname)  # `url = "/checks/cron_preview/"` in the class's body
    written = [(v, body[1]) for v in body[0].values.get(name, [])] if body is not None else []
    return refs.instance_attributes.get(cls.qualname, {}).get(name, []) + written


def dependencies(refs: PythonRefs) -> list[tuple[Node, Definition | None, str]]:
    """FastAPI's dependencies, which it runs before the function declaring them, as calls of that function: those of
    its route decorator (`dependencies=[Depends(get_current_active_superuser)]`, evaluated at the top level, where the
    function handing them on is no caller), and a parameter's annotation naming an alias that may declare one
    (`session: SessionDep`, `SessionDep = Annotated[Session, Depends(get_db)]` in another file: the store keeps those
    it finds to). A dependency written in a parameter (`x = Depends(f)`) is already the function's value handed on."""
    if not any(m == "fastapi" or m.startswith("fastapi.") for m in refs.imported_modules.values()):
        return []
    out: list[tuple[Node, Definition | None, str]] = []
    for d in refs.ordered:
        if d.kind not in ("function", "method"):
            continue
        for expression in decorator_expressions(d.outer, d.node):
            for depends in _depends_calls(expression, refs.source):
                out.extend((depends, d, r) for r in _values(refs, depends, d))
        parameters = d.node.child_by_field_name("parameters")
        for parameter in parameters.named_children if parameters is not None else []:
            annotation = parameter.child_by_field_name("type")
            written = annotation.named_children[0] if annotation is not None and annotation.named_child_count else None
            if written is not None and written.type in ("identifier", "attribute"):
                out.extend((written, d, r) for r in _values(refs, written, d))
    return out


def _depends_calls(node: Node, source: bytes) -> list[Node]:
    """What each `Depends(f)` or `Security(f)` inside the expression hands FastAPI."""
    found = []
    todo = [node]
    while todo:
        current = todo.pop()
        arguments = current.child_by_field_name("arguments") if current.type == "call" else None
        if called_name(current, source) in ("Depends", "Security"):
            given = positional_arguments(arguments) if arguments is not None else []
            dependency = given[0] if given else keyword_argument(arguments, "dependency", source) if arguments else None
            if dependency is not None:
                found.append(dependency)
        todo.extend(current.named_children)
    return found


def _values(refs: PythonRefs, node: Node, where: Definition) -> list[str]:
    """The value refs of what a name names (`value#3:SessionDep`): the store keeps those of a function of ours or of
    an alias declaring a dependency."""
    return [as_value(r) for r in refs.code_refs(node, where)]


def _served(refs: PythonRefs, expression: Node) -> tuple[list[str], str] | None:
    """The methods and path a route decorator (`bp.route("/x", methods=["GET", "POST"])`) serves, under its
    router's own prefix."""
    called = method_call(expression, refs.source) if expression.type == "call" else None
    if called is None or called[0] not in _DECORATORS:
        return None
    kind, arguments = called
    given = positional_arguments(arguments)
    written = given[0] if given else keyword_argument(arguments, "path", refs.source)
    written = written if written is not None else keyword_argument(arguments, "rule", refs.source)
    path = string_literal(written, refs.source) if written is not None else None
    if path is None or (path and not path.startswith("/")):
        return None
    method = _DECORATORS[kind]
    listed = keyword_argument(arguments, "methods", refs.source)
    methods = [method] if method is not None else _methods(listed, refs.source)
    function = expression.child_by_field_name("function")
    return methods, _prefix(refs, function.child_by_field_name("object") if function is not None else None) + path


def _enclosing_function(d: Definition) -> str | None:
    """The function a route is defined in (a test's own app: `@app.route("/")` inside test_index), whose requests
    alone reach it; None for a route of the top level or of a class."""
    parent = d.parent
    while parent is not None and parent.kind not in ("function", "method"):
        parent = parent.parent
    return parent.qualname if parent is not None else None


def _methods(written: Node | None, source: bytes) -> list[str]:
    """`methods=["GET", "POST"]`: those; none written, GET; a name or a computed list, any."""
    if written is None:
        return ["GET"]
    if written.type not in ("list", "tuple", "set"):
        return [ANY_METHOD]
    found = [string_literal(item, source) for item in written.named_children]
    return [m.upper() for m in found if m] if all(found) else [ANY_METHOD]


def _prefix(refs: PythonRefs, router: Node | None) -> str:
    """The prefix the file's top level makes a router with (`bp = Blueprint("auth", __name__, url_prefix="/auth")`):
    "" for none, or for a router the file does not make itself."""
    if router is None or router.type != "identifier":
        return ""
    made = refs.module.values.get(node_text(router, refs.source), [])
    for value in made:
        called = called_name(value, refs.source)
        arguments = value.child_by_field_name("arguments")
        if called in _PREFIXES and arguments is not None and arguments.type == "argument_list":
            written = keyword_argument(arguments, _PREFIXES[called], refs.source)
            text = string_literal(written, refs.source) if written is not None else None
            return text.rstrip("/") if text else ""
    return ""


def _request_path(node: Node, source: bytes) -> str | None:
    """A request's path as written (`/items/{}` for `f"/items/{item.id}"`), without its query, scheme and host;
    None for what is no literal path."""
    if node.type != "string":
        return None
    text = with_holes(node, source)
    if text.startswith(("http://", "https://")):
        text = "/" + text.split("/", 3)[3] if text.count("/") >= 3 else "/"
    text = text.split("?", 1)[0].split("#", 1)[0]
    return text if text.startswith(("/", PATH_HOLE)) else None
