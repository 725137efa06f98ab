"""Python's web routes: the function serving each method and path, and the requests that reach it.

A route is a function decorated `@X.route(path, methods=[...])` (Flask), `@X.get(path)`, `@X.post(path)`...
(Flask 2, FastAPI, Starlette's routers) or `@X.api_route(path, methods=[...])`, its path under the prefix the file's
top level gives X (`bp = Blueprint("auth", __name__, url_prefix="/auth")`, `router = APIRouter(prefix="/items")`).
The project mounts routes under other prefixes too (`app.include_router(router, prefix="/api")`,
`app.register_blueprint(bp, url_prefix="/v1")`): those are kept apart, wherever they are written. A request is a
call `client.get(path)`, `client.post(path, ...)`, `client.open(path, method=...)`, `client.request(method, path)`
or `client.websocket_connect(path)` with a literal path (an f-string's values written `{}`), a call where it is
written whose ref is the request (store/refs.py's route_ref); store/routes.py says which routes serve it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tree_sitter import Node

from ...store.refs import ANY_METHOD, PATH_HOLE, as_value, route_ref
from .nodes import decorator_expressions, keyword_argument, method_call, positional_arguments, string_literal
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
}
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
        elif method is None:
            written = keyword_argument(arguments, "method", refs.source)
            method = string_literal(written, refs.source) if written is not None else "GET"
        target = given[0] if given else keyword_argument(arguments, "url", refs.source)
        path = _request_path(target, refs.source) if target is not None else None
        if target is not None and path is not None and method:
            out.append((target, where, route_ref(method.upper(), path, where.qualname if where is not None else "")))
    return out


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
        if _called(current, source) in ("Depends", "Security"):
            given = positional_arguments(arguments) if arguments is not None else []
            dependency = given[0] if given else keyword_argument(arguments, "dependency", source) if arguments else None
            if dependency is not None:
                found.append(dependency)
        todo.extend(current.named_children)
    return found


def _values(refs: PythonRefs, node: Node, where: Definition) -> list[str]:
    """The value refs of what a name names (`value#3:SessionDep`): the store keeps those of a function of ours or of
    an alias declaring a dependency."""
    return sorted(as_value(r) for r in refs.refs_of(node, where) if r.startswith(("module:", "import#")))


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


def _called(node: Node, source: bytes) -> str:
    """The last name of what a call calls (`Depends` of `fastapi.Depends(f)`); "" for what is no call."""
    function = node.child_by_field_name("function") if node.type == "call" else None
    return node_text(function, source).rpartition(".")[2] if function is not None else ""


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
        called = _called(value, refs.source)
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
    parts = [c for c in node.named_children if c.type not in ("string_start", "string_end")]
    text = "".join(PATH_HOLE if p.type == "interpolation" else node_text(p, source) for p in parts)
    if text.startswith(("http://", "https://")):
        text = "/" + text.split("/", 3)[3] if text.count("/") >= 3 else "/"
    text = text.split("?", 1)[0].split("#", 1)[0]
    return text if text.startswith(("/", PATH_HOLE)) else None
