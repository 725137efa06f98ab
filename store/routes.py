"""Which web route functions a test's request reaches: `client.get(f"/items/{item.id}")` runs the function a
`@router.get("/{item_id}")` of `router = APIRouter(prefix="/items")` serves. indexer/parsing/pyroutes.py reads both
sides; this module matches them.

A route's path (its router's own prefix included) matches a request's segment by segment: a literal as written, a
parameter (Flask's `<int:id>`, FastAPI's `{item_id}`) any one segment, a path parameter (`<path:p>`, `{p:path}`) the
rest; a trailing `/` either way (a redirect gets there). Before it may come a prefix the project mounts routes under
(`include_router(r, prefix="/api")`, one or two of them), and a request starting with a value
(`f"{settings.API_V1_STR}/items/"`) has an unknown prefix: its rest must match. The methods must agree (HEAD is served
by GET). Only the routes of files the test's file loads, itself or through its conftest.py files, are its
candidates: a test reaches the app it imports, and a repository of many small apps (FastAPI's docs) has many
`/items/{item_id}`. A route a test defines in its own body (Flask's tests make an app per test) is that test's alone.
Django's URL configurations (indexer/parsing/pyurlconf.py) name their views by refs (the resolver's served_views
reads them): a class-based view's class and the methods Django runs on it serve its routes, which any test reaches
(Django loads the configuration for every request), by path or by name (`reverse("catalog:authors")`, store/refs.py's
ROUTE_NAME).

bench/facts_tests_routes.py (test files `impact` lists against coverage's), the routes' recall / precision: the
backend of full-stack-fastapi-template 0.050 / 0.867 -> 1.000 / 1.000 (17 of 20 said untested -> 0), Flask's tutorial
0.125 / 0.031 -> 1.000 / 1.000; FastAPI's docs 0.922 / 0.908 -> 0.899 / 0.897, where ten routes' tests sit beside
their app and tests/test_tutorial runs them through wrappers (the importers had listed both). With FastAPI's
dependencies (DEPENDS), all of the template's 41 functions 0.390 / 0.832 / 20 untested -> 1.000 / 0.934 / 0."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from functools import cached_property
from pathlib import PurePosixPath
from typing import NamedTuple

from .refs import ANY_METHOD, ANY_PATH, PATH_HOLE, ROUTE, ROUTE_NAME, called_name, parse_refs, route_request
from .testpaths import is_test_path

REQUESTS = "requests the route"  # a call's basis: `client.get("/items/5")` of the function serving it
# Tried and not kept (2026-12-06): what Django's settings run for every request (the middleware, the authentication
# backends) reaching tests only where it calls the code asked about, or is it: Healthchecks' 2,363 functions, recall /
# precision 0.981 / 0.820 -> 0.977 / 0.823.
# A call's basis: `session: SessionDep` of `SessionDep = Annotated[Session, Depends(get_db)]`, which FastAPI runs
# (get_db's own caller is the alias, which hands it on)
DEPENDS = "declares the dependency"
_PARAMETER = re.compile(r"<(?:(?P<flask>\w+):)?\w+>|\{\w+(?::(?P<starlette>\w+))?\}")
_HOLE = "\x00"  # a value written into a request's path (`{}`), which a parameter may be
_EVERY_PATH = re.compile(".*", re.DOTALL)


def _pattern(path: str) -> re.Pattern[str]:
    """A route's path as a regular expression over a request's path (its values written `\\x00`)."""
    if path == ANY_PATH:  # what Django's settings run for every request
        return _EVERY_PATH
    out, at = [], 0
    for found in _PARAMETER.finditer(path):
        out.append(re.escape(path[at : found.start()]))
        whole = (found["flask"] or found["starlette"] or "") == "path"
        out.append(".+" if whole else "[^/]+")
        at = found.end()
    out.append(re.escape(path[at:]))
    return re.compile("/?" + "".join(out).strip("/") + "/?")


# Tried and not kept (2026-12-06): a value written beside text in one segment of a request (`f"/api/v{v}/checks/"`)
# matching the route's literal segment there (`v1`), segment by segment. Healthchecks' helpers request so, but their
# tests request the same views by literal paths as well: bench/facts_tests_routes.py the same to the digit.


def declares_dependency(symbol: sqlite3.Row | None) -> bool:
    """Whether a type alias declares a FastAPI dependency (`Annotated[Session, Depends(get_db)]`)."""
    return symbol is not None and any(f"{d}(" in (symbol["signature"] or "") for d in ("Depends", "Security"))


class Route(NamedTuple):
    path: str  # the file declaring it
    symbols: tuple[str, ...]  # the functions serving it (a class-based view's methods: one route, not one each)
    method: str
    pattern: re.Pattern[str]
    scope: str | None  # the function it is defined in, if any
    name: str | None  # what a request by name asks for (Django's `reverse("catalog:authors")`)
    everywhere: bool  # a URL configuration's, which the framework loads for every request, imported or not


def _serves(route: Route, method: str) -> bool:
    return route.method in (ANY_METHOD, method) or (method == "HEAD" and route.method == "GET")


class RouteTable:
    """The routes and mount prefixes of the index, read when a request is first followed. `views` gives the functions
    a URL configuration's view ref names (a file's path, the ref): a function, or a class-based view's class and
    the methods the framework runs on it."""

    def __init__(self, conn: sqlite3.Connection, views: Callable[[str, str], list[str]]) -> None:
        self.conn = conn
        self.views = views
        self._loads: dict[str, frozenset[str]] = {}
        self._matches: dict[str, list[Route]] = {}  # _matching, by request

    @cached_property
    def _routes(self) -> list[Route]:
        """Every route, with the functions serving it."""
        rows = self.conn.execute(
            "SELECT path, symbol, method, pattern, scope, view, name FROM routes ORDER BY path, symbol, pattern"
        )
        out: list[Route] = []
        for path, symbol, method, pattern, scope, view, name in rows:
            symbols = (symbol,) if symbol is not None else tuple(self.views(path, view)) if view is not None else ()
            if symbols:
                out.append(Route(path, symbols, method, _pattern(pattern), scope, name, symbol is None))
        return out

    @cached_property
    def _mounts(self) -> list[str]:
        """Every path a request may start with before a route's own: none, or one or two mount prefixes."""
        prefixes = sorted({p for (p,) in self.conn.execute("SELECT prefix FROM route_prefixes")})
        return ["", *prefixes, *(a + b for a in prefixes for b in prefixes if a != b)]

    @cached_property
    def _requested(self) -> list[str]:
        """Every request's ref the calls hold, each once."""
        return [r for (r,) in self.conn.execute(f"SELECT DISTINCT ref FROM calls WHERE ref LIKE '{ROUTE}:%'")]

    def serving(self, path: str, ref_text: str) -> list[str]:
        """The route functions serving a request a test file makes: of the routes its loads reach, and of a test's own
        (Flask's tests make an app per test) only if the request is made in that test. A route inside a function of
        the code is an app factory's (`create_app`), any test's."""
        refs = parse_refs(ref_text)
        request = route_request(refs[0]) if refs else None
        if request is None or not is_test_path(path):
            return []  # a client of another service, an HTTP library's own code: no route of ours
        caller = request[2]
        loaded = self._loaded_by_test(path)
        reached = [
            r
            for r in self._matched(ref_text)
            if (r.everywhere or r.path in loaded)
            and (
                r.scope is None
                or not is_test_path(r.path)
                or (r.path == path and (caller == r.scope or caller.startswith(r.scope + ".")))
            )
        ]
        return list(dict.fromkeys(symbol for r in reached for symbol in r.symbols))

    def request_names(self, symbol_id: str) -> set[str]:
        """The names of the requests (`GET /items/{}`) some route of this function may serve, wherever made: its
        callers are looked up by them."""
        if symbol_id not in self._route_functions:  # most symbols: the calls are not read for them
            return set()
        return self._requests_by_route.get(symbol_id, set())

    @cached_property
    def _route_functions(self) -> frozenset[str]:
        return frozenset(s for r in self._routes for s in r.symbols)

    @cached_property
    def _requests_by_route(self) -> dict[str, set[str]]:
        """Each route function's requests' names: every request matched once (FastAPI's docs: 651 requests of 1,243
        routes, where asking each route of each request took an index's keeping of answers 40 minutes)."""
        out: dict[str, set[str]] = {}
        for ref in self._requested:
            name = called_name(ref)
            if name is None:
                continue
            for route in self._matched(ref):
                for symbol in route.symbols:
                    out.setdefault(symbol, set()).add(name)
        return out

    def _matched(self, ref_text: str) -> list[Route]:
        if ref_text not in self._matches:
            self._matches[ref_text] = self._matching(ref_text)
        return self._matches[ref_text]

    def _matching(self, ref_text: str) -> list[Route]:
        """The routes whose method and path match the request, or whose name it asks for (`serving` says which of
        those a test's request reaches)."""
        refs = parse_refs(ref_text)
        request = route_request(refs[0]) if refs else None
        if request is None:
            return []
        method, path, _ = request
        if path.startswith(ROUTE_NAME):  # `reverse("catalog:authors")`, and what runs for every request
            named = path.removeprefix(ROUTE_NAME)
            return [r for r in self._routes if (r.name == named or r.pattern is _EVERY_PATH) and _serves(r, method)]
        path = path.removeprefix(PATH_HOLE).replace(PATH_HOLE, _HOLE)  # what follows an unknown prefix
        # what may be a route's own path: the request's, or what follows a mount prefix it starts with
        rests = {path[len(m) :] or "/" for m in self._mounts if not m or path == m or path.startswith(m + "/")}
        return [r for r in self._routes if _serves(r, method) and any(r.pattern.fullmatch(rest) for rest in rests)]

    def _loaded_by_test(self, path: str) -> frozenset[str]:
        """The files a test file loads, itself or through the conftest.py files pytest loads for it."""
        if path not in self._loads:
            folders = [str(p) for p in PurePosixPath(path).parents]
            conftests = [f"{f}/conftest.py" if f != "." else "conftest.py" for f in folders]
            self._loads[path] = self._loaded_from([path, *conftests])
        return self._loads[path]

    def _loaded_from(self, starts: list[str]) -> frozenset[str]:
        """Every file these load through imports, each import's file and the file defining the name it takes.
        Walked here, not on store/graph.py's ImportGraph: that module reads the call graph, which reads this one."""
        seen, todo = set(starts), list(starts)
        while todo:
            current = todo.pop()
            for (found,) in self.conn.execute(
                "SELECT target FROM resolved_imports WHERE path = ? AND target IS NOT NULL"
                " UNION SELECT origin FROM resolved_imports WHERE path = ? AND origin IS NOT NULL",
                (current, current),
            ):
                if found not in seen:
                    seen.add(found)
                    todo.append(found)
        return frozenset(seen)
