"""Which Python call sites a guess by name may take for a symbol, by what Python lets the name mean there.

A call whose file does not say what it calls (`load()` with `load` a parameter, `helper()` of a name bound at run
time) is matched by name to the symbols of that name (store/callgraph.py: basis `name only`). Two such matches
Python itself rules out:
- a function defined inside another function (`_follow.load`) is a name only inside that function: another
  function's `load()` is never it (unless it is handed on as a value, which the values' own rule follows);
- a bare call of the calling function's own parameter (`load()` in `def facts(self, path, load=None)`) calls the
  value passed, whatever it is: a function of the same name elsewhere is no likelier than any other. Not a pytest
  test's or fixture's parameter, which is a fixture (`_parameters`).

And one Python allows that the file cannot tell: a function called on a module loaded by a name computed at run
time (`importlib.import_module(FAMILIES[name]).register(server)`, our MCP tool families) may be any module's own
function of that name (`loaded_by_name`), where the call resolved to the outside module `importlib` before.

bench/facts_tests.py (the test files `impact` lists against coverage's, six projects, 224 functions), recall /
precision: .981 / .525 before, .981 / .532 after (with a call path alone .891 / .574 -> .891 / .581; the first 12
.713 / .699 -> .712 / .701); with a test's parameters ruled out too, .979 / .548, but MarkupSafe's recall with a
call path alone 1.00 -> .91 (its tests' `escape` fixture). bench/facts_calls_py.py, the guesses: click's package
.848 / .985 -> .853 / .980, the hold-out python-dateutil's package .696 / .990 -> .697 / .987 (2 of 303 calls),
the rest within one call. This repository's own suite (bench/facts_tests_self.py: none of the PyPI projects loads
a module by name): .668 / .519 -> .796 / .463, the first 12 .385 / .624 -> .396 / .582, as every test building
the server now reaches each family's tools, of which a test runs a few.

Nor is a module's function an attribute of a class of ours, or of an instance of one, that the class does not define
(`Notification.objects.get()`, a Django model's manager, was a guess at hc/lib/curl.py's `get`, and every test looking
up a model reached the HTTP client): bench/facts_tests_routes.py, Healthchecks' 2,363 functions, recall / precision
0.990 / 0.820 -> 0.990 / 0.822 (`check_token`'s 128 test files -> its 2), its routes' 0.970 / 0.946 -> 0.970 / 0.955;
bench/facts_calls_py.py the same but for two wrong guesses fewer (marshmallow's tests), bench/facts_tests.py the same to
the digit.

Tried and not kept (2026-12-06): a call on a value the file does not type (`rows.append(x)`, `text.index(":")`) never
a guess at a module's own function of that name, unless its receiver is reached from an import (`flask.helpers.f()`
after `import flask`) or a loader. On this repository it drops some 600 guesses that every `.append()` made at
store/log.py's `append`; but Python allows it where a class or an instance holds the function as an attribute, or a
module is handed on as a value: bench/facts_calls_py.py, the guesses of the hold-out python-dateutil's package .743 /
.878 -> .740 / .865 (4 right guesses lost, none wrong), click's .853 -> .855 precision; bench/facts_tests.py the first
12 .720 / .719 -> .720 / .717, the rest the same.
"""

from __future__ import annotations

import re
import sqlite3

from .db import held_while_unchanged, stored_list
from .refs import ROUTE, parse_ref, parse_refs
from .resolver import CallResolver
from .symbol import SymbolRow, parameter_names

_FUNCTION_KINDS = ("function", "method")
_LOADER = re.compile(r"^(?:importlib\.import_module|__import__)\(")


def python_guessable(resolver: CallResolver, call: sqlite3.Row, symbol: SymbolRow | sqlite3.Row) -> bool:
    """Whether Python lets the call site (a `calls` row its file does not explain) name the symbol."""
    if not (call["path"].endswith(".py") and symbol["path"].endswith(".py")):
        return True
    caller = call["caller"] or ""
    parent = symbol["parent"]
    if parent is not None and caller != parent and not caller.startswith(f"{parent}."):
        if resolver.kind_of(parent)[0] in _FUNCTION_KINDS:
            return False  # defined inside another function: named there only
    if not call["qualifier"] and caller and call["name"] in _parameters(resolver, caller):
        return False
    return not (module_function(symbol) and _on_a_class_of_ours(resolver, call))


# Tried and not kept (2026-12-06): a method of ours no guess either there, where the attribute is one the class and
# its bases of ours neither define nor declare (`self.client.post()` in a Django TestCase: Django's test client, not
# HttpTransport.post). bench/facts_tests_routes.py, Healthchecks' 2,363 functions, recall / precision 0.990 / 0.822 ->
# 0.981 / 0.826: what such guesses reached, the templates' tags among it, the tests mostly run by ways the index does
# not see; bench/facts_calls_py.py, marshmallow's package with the guesses 0.634 / 0.986 -> 0.634 / 0.983. Once a class
# body's instances were read (`objects = ProfileManager()`, which the rule had taken for an outside attribute): 0.990 /
# 0.821 -> 0.988 / 0.822.
def _on_a_class_of_ours(resolver: CallResolver, call: sqlite3.Row) -> bool:
    """Whether the call is of an attribute of a class of ours or of one of its instances, which the class does not
    define (`Notification.objects.get()`: a Django model's manager, from its outside base): a module's function is no
    such attribute."""
    refs = parse_refs(call["ref"])
    return bool(refs) and all(
        len(ref.segments) > 1 and resolver.root_class(call["path"], ref) is not None for ref in refs
    )


def a_request(resolver: CallResolver, call: sqlite3.Row) -> bool:
    """Whether the call is a test client's request of a web route (`self.client.post("/accounts/login/")`: read as
    one by indexer/parsing/pyroutes.py, a `route:` call at its line): a request, no guess at a method of ours named
    `post` (HttpTransport.post, reached so by every Django test posting a form). bench/facts_tests_routes.py,
    Healthchecks' HttpTransport.post and its transports' raise_for_response 119 test files listed -> 45 (1 to 26 run
    them, each listed still), its 2,363 functions 0.990 / 0.822 -> 0.990 / 0.823; facts_calls_py.py the same."""
    if not call["path"].endswith(".py") or call["line"] is None:
        return False
    sites = held_while_unchanged(resolver.conn, "request sites", lambda: _request_sites(resolver.conn))
    return (call["path"], call["caller"], call["line"]) in sites


def _request_sites(conn: sqlite3.Connection) -> frozenset[tuple[str, str | None, int]]:
    rows = conn.execute(f"SELECT path, caller, line FROM calls WHERE ref LIKE '{ROUTE}:%' AND line IS NOT NULL")
    return frozenset((path, caller, line) for path, caller, line in rows)


def loaded_by_name(resolver: CallResolver, call: sqlite3.Row) -> bool:
    """Whether the call is of a function of a module loaded by a name computed at run time
    (`importlib.import_module(FAMILIES[name]).register(server)`, a plugin's entry point, `__import__(m).main()`):
    any module of ours may be it, so any module-level function of that name (`module_function`)."""
    if not call["path"].endswith(".py"):
        return False
    ref = parse_ref(call["ref"])
    if ref is None or len(ref.segments) != 2 or ref.segments[1] != call["name"]:
        return False
    if ref.root == "builtin":
        return ref.segments[0] == "__import__()"
    if ref.root != "import" or ref.segments[0] != "import_module()" or ref.ordinal is None:
        return False
    found = resolver.conn.execute(
        "SELECT module FROM imports WHERE path = ? AND ordinal = ?", (call["path"], ref.ordinal)
    ).fetchone()
    return found is not None and found[0] == "importlib"


def loader_qualified(qualifier: str | None) -> bool:
    """Whether a call's qualifier is what `loaded_by_name` reads in its ref, as the callers' rows spell it: the
    module a loader gives (`importlib.import_module(name)`), which the outside module named first does not hold."""
    return qualifier is not None and _LOADER.match(qualifier) is not None


def module_function(symbol: SymbolRow | sqlite3.Row) -> bool:
    """A Python module's own function, which a module loaded by name may hold (not a class's, nor a nested one)."""
    return symbol["path"].endswith(".py") and symbol["parent"] is None and symbol["kind"] == "function"


def _parameters(resolver: CallResolver, caller: str) -> set[str]:
    """The names of a function's parameters; none of a pytest test's or fixture's, which are fixtures: their values
    are the fixtures', often the function of the name (MarkupSafe's tests take `escape`, each implementation of the
    module's `escape` in turn)."""
    row = resolver.conn.execute("SELECT name, params, decorators FROM symbols WHERE id = ?", (caller,)).fetchone()
    if row is None or row[0].startswith("test") or any("fixture" in d for d in stored_list(row[2])):
        return set()
    return parameter_names(stored_list(row[1]))
