"""The grammar of a call's `ref`, `ROOT:PATH` (written by indexer/parsing/callrefs.py for Python, gorefs.py
for Go, jsrefs.py for JavaScript and TypeScript).

ROOT is `module` (PATH is a qualified name in the calling file; in Go, in its package), `import#K`
(PATH is a name inside what the file's import number K imports), `super` (PATH is the calling class,
then the member looked up in its bases), `builtin` (a global: Python's builtins, JavaScript's; never a
symbol of the repository), `value`/`value#K` (a name used as a value, not called, as `module`/`import#K`
would name it: Go's `state: lexTop` and Python's `map(worker, xs)` hand the function to whatever calls
it) or `fixture` (PATH starts with a pytest fixture's value: `fixture:runner()` is a test's parameter
`runner` that its own file does not define, the fixture of a conftest.py; indexer/parsing/pyfixtures.py), or
`route` (a test's request of a web route, ROUTE below). A segment `"pack"` is a word of a command line
(command_segment).
A segment ending in `()` is an instance of a class (in Go, a value of a type, or what a function
returns), and one ending in `[]` an element of what it names (`module:S().items[]`, `find()[]`); `f()[1]` is the
item at that place of what f gives (`a, b = f()`: b, as f's `-> Tuple[A, B]` says). A segment
`m(i,j)` is the value of parameter j of the callback handed to m as its argument i, as m's signature declares
it (`em` in `manager.transaction(em => ...)`: `...manager.transaction(0,0)`; of a class, its constructor's). A
segment `m(p)` is the value of m's parameter p as m declares it: `super:Ext().parse(parser)` is the parameter
`parser` of an override `Ext.parse` that declares no type, as the method it overrides declares it.
Alternatives (a name assigned two functions) are joined by `|`. `?` means the file does not tell what the
call calls; None, that the call was indexed before refs (or in a language without them).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from .symbol import without_definition_number

UNKNOWN = "?"
# The module's own value, as a segment of an `import#K` ref: what `module.exports = X` or `export default X`
# gives (`const Agent = require('./agent'); new Agent()` is `import#K:default()`)
DEFAULT = "default"
# What a function gives, among the typed members of the dependencies projection's `fields` (a class's fields are
# the others): where it declares no result but each of its `return`s gives the same (`return this`)
RESULT = "()"
# A JavaScript Array's methods giving an element, and Python's `[k]` of a sequence
ELEMENT_RESULTS = frozenset({"find", "findLast", "at", "pop", "shift", "__getitem__"})
# What `self.handlers[k]` gives, as Python runs it: a sequence's element, a mapping's value, what a class's own
# `__getitem__` returns (`[]` is what iterating gives, a mapping's keys)
SUBSCRIPT = "__getitem__()"
# What a Python mapping's methods give, as the segment after it is written (`commands.get()`, `for n, c in
# commands.items()`: `items()[][1]`): its keys' type (0) or its values' (1)
MAPPING_VIEWS = {
    **dict.fromkeys((SUBSCRIPT, "get()", "pop()", "setdefault()", "values()[]", "items()[][1]"), 1),
    **dict.fromkeys(("keys()[]", "items()[][0]"), 0),
}
COLLECTION = "[]"  # leads what collection_of marks: a collection the file declares, being typed
# Leads a typed member of `fields` that is no type written but the ref of the value its file assigns it, a call's
# result (`self.stream = environment._tokenize(...)`: `=import#3:Environment()._tokenize()`), read in that file
GIVEN = "="
# The owner of a module's own typed members in `fields` (its id there is its path): what its top level binds to an
# instance (`app = Flask(__name__)`, as a GIVEN ref), which other files import and call on
MODULE = ""
# Leads a member of `fields` that names a function (pymembers.py): the function a module's top level binds a name to
# (`run = wrap(work)`: `=value:wrap.whole`, `fetch = partial(get)` through an import: `=value#2:get`) or a class body
# (`fetch = get`: `=value:Box.get`). Calling the name runs it.
BOUND = f"{GIVEN}value"
# What a Python statement calls on a value: `for` (and comprehensions) the iterator protocol, `with` the context
# manager protocol. `for x in C()` is written as two calls at the statement: `module:C().__iter__`, `...__next__`.
PROTOCOLS = {
    "for": ("__iter__", "__next__"),
    "async for": ("__aiter__", "__anext__"),
    "with": ("__enter__", "__exit__"),
    "async with": ("__aenter__", "__aexit__"),
}
PROTOCOL_METHODS = frozenset(m for methods in PROTOCOLS.values() for m in methods)


# The root of a request a test makes of a web route (`client.get(f"/items/{item.id}")` in test_read:
# `route:GET./items/{}.test_read`, indexer/parsing/pyroutes.py): its method, its path (a value written in it as `{}`),
# then the function making it, each with `%`, `.` and `|` escaped so that the ref's grammar holds; store/routes.py
# says which route functions serve it.
ROUTE = "route"
PATH_HOLE = "{}"  # a value written into a request's path (`f"/items/{item.id}"`: `/items/{}`)
ANY_METHOD = "*"  # a route's method where its decorator lists none that can be told (`methods=ALLOWED`)
ROUTE_NAME = "@"  # begins a request's path that names the route (`reverse("catalog:authors")`: `@catalog:authors`)
ANY_PATH = "*"  # a route's path that every request takes: what Django's settings run for each (MIDDLEWARE)
DOTTED = "dotted:"  # begins a route's view named by its dotted path (`hc.accounts.middleware.TeamAccessMiddleware`)
BACKEND = "backend:"  # ...or an authentication backend's (AUTHENTICATION_BACKENDS): every request runs all but its
# `authenticate`, which runs where something authenticates (AUTHENTICATE below)
_ESCAPES = {"%": "%25", ".": "%2E", "|": "%7C"}

# A template a view renders (`render(request, "front/details.html")`, a class-based view's `template_name`), or one a
# template extends or includes: `template:front%2Edetails%2Ehtml`, named as Django's loaders find it, below a
# `templates/` folder (indexer/parsing/templates.py). The resolver reaches the template's one symbol by it.
TEMPLATE = "template"
# A template tag or filter a template uses (`{{ check|down_title }}`, `{% linemode %}`), after the libraries it loads
# (`{% load hc_extras linemode %}`): `tag:hc_extras,linemode.down_title`. The resolver reaches the function a
# library of the project registers under that name; Django's own tags and filters reach nothing of ours.
TAG = "tag"
# An attribute a template looks up on a value (`{{ check.cloaked_url }}`, `{% for tag in check.tags_list %}`): Django
# calls it when it is callable, Jinja when the template calls it: `lookup:check.cloaked_url`, the value's name and the
# attribute. The resolver reaches the methods of ours of that name a template can call so (store/templatetags.py).
LOOKUP = "lookup"
# A call of Django's `authenticate()` (`auth.authenticate(request, username=u, password=p)`), or of its test client's
# `login()`, which calls it: `authenticate:password,username`, the credentials' keywords (ANY_CREDENTIALS where the
# call does not write them out: `login(**creds)`). The resolver reaches the `authenticate` of each authentication
# backend the settings list whose parameters take them all, as Django tries them (store/djangoauth.py).
AUTHENTICATE = "authenticate"
ANY_CREDENTIALS = "*"


@dataclass(frozen=True)
class Ref:
    root: str  # "module", "import", "super", "builtin", "value", "fixture"
    segments: tuple[str, ...]
    ordinal: int | None = None  # of the import, for root "import" (and "value" through an import)


_ROOTS = frozenset({"module", "super", "builtin", "value", "fixture", ROUTE, TEMPLATE, TAG, LOOKUP, AUTHENTICATE})


def parse_ref(text: str | None) -> Ref | None:
    """The parts of a ref; None for UNKNOWN, None, or text that is no ref."""
    if not text or text == UNKNOWN or ":" not in text:
        return None
    root, _, path = text.partition(":")
    segments = tuple(path.split(".")) if path else ()
    root, _, number = root.partition("#")
    if number:
        return Ref(root, segments, int(number)) if number.isdigit() and root in ("import", "value") else None
    return Ref(root, segments) if root in _ROOTS else None


def parse_refs(text: str | None) -> list[Ref]:
    """Every alternative of a ref that parses."""
    return [r for r in map(parse_ref, (text or "").split("|")) if r is not None]


def collection_of(element: str | None) -> str | None:
    """What a file declares a collection of, as the refs mark it while typing values (`[]*Flag`, `DataSource[]`:
    `[]module:Flag()`); never a call's ref: no method of ours runs on the collection itself."""
    return f"{COLLECTION}{element}" if element is not None and not element.startswith(COLLECTION) else None


def element_of(collection: str) -> str | None:
    """The ref of an element of a collection: `module:T()` of a `[]module:T()` the file declares, `...items[]`
    of a member `items` or `...f()[]` of what a call gives (`module:S().items[]`, `import#1:connect()[]`: the
    store reads the element type from the declared type, and an element of an instance is nothing); None where
    the file cannot say (a name that is no member)."""
    if collection.startswith(COLLECTION):
        return collection.removeprefix(COLLECTION)
    path = collection.partition(":")[2]
    return f"{collection}[]" if ("." in path or path.endswith("()")) and not path.endswith("[]") else None


_PASSED = re.compile(r"(?P<name>[^()]+)\((?P<argument>\d+),(?P<parameter>\d+)\)")


def passed_to(called: str, argument: int, parameter: int) -> str:
    """The ref of a callback's parameter (`m(i,j)`) from the ref of the call it is handed to (`...m`)."""
    return f"{called}({argument},{parameter})"


def passed(segment: str) -> tuple[str, int, int] | None:
    """A `m(i,j)` segment's parts: the called name, the argument, the callback's parameter."""
    found = _PASSED.fullmatch(segment)
    return (found["name"], int(found["argument"]), int(found["parameter"])) if found is not None else None


_ITEM = re.compile(r"(?P<segment>.+)\[(?P<position>\d+)\]")


def item_of(segment: str) -> tuple[str, int] | None:
    """A `f()[1]` segment's parts: the segment whose value it is an item of, and the item's place."""
    found = _ITEM.fullmatch(segment) if segment.endswith("]") else None  # the pattern backtracks along the whole text
    return (found["segment"], int(found["position"])) if found is not None else None


@functools.lru_cache(maxsize=65_536)  # asked of the same few thousand segments at every step of every walk
def segment_name(segment: str) -> str:
    """The name a segment names, without what the segment says of it: `f` of `f()`, `cols[]`, `find()[]`,
    `get()[1]`, `transaction(0,0)`, `parse(parser)`."""
    item = item_of(segment)
    plain = item[0] if item is not None else segment.removesuffix("[]")
    handed = passed(plain)
    if handed is not None:
        return handed[0]
    declared = declared_parameter(plain)
    return declared[0] if declared is not None else plain.removesuffix("()")


_DECLARED = re.compile(r"(?P<name>[^()]+)\((?P<parameter>[A-Za-z_]\w*)\)")


def declared_parameter(segment: str) -> tuple[str, str] | None:
    """(method, parameter) of a segment `m(p)`: the value of m's parameter p, as m declares it."""
    found = _DECLARED.fullmatch(segment)
    return (found["name"], found["parameter"]) if found is not None else None


# Quotes a word of a command line that may name a command (`"pack"` in `import#4:cli."pack"`: what
# `runner.invoke(cli, ["pack", task])` runs, indexer/parsing/pycommands.py); store/commands.py says which it runs.
COMMAND_QUOTE = '"'


def command_segment(word: str) -> str:
    return f"{COMMAND_QUOTE}{word}{COMMAND_QUOTE}"


def command_word(segment: str) -> str | None:
    """The word of a command segment (`pack` of `"pack"`); None for any other segment."""
    quoted = len(segment) > 2 and segment[0] == segment[-1] == COMMAND_QUOTE
    return segment[1:-1] if quoted else None


def route_ref(method: str, path: str, caller: str) -> str:
    return f"{ROUTE}:{method}.{_escaped(path)}.{_escaped(caller)}"


def route_request(ref: Ref) -> tuple[str, str, str] | None:
    """The method, path and calling function (its qualified name, "" at the top level) of a request's ref."""
    if ref.root != ROUTE or len(ref.segments) != 3:
        return None
    return ref.segments[0], _unescaped(ref.segments[1]), _unescaped(ref.segments[2])


def authenticate_ref(keywords: list[str] | None) -> str:
    """The ref of a call authenticating with credentials by these keywords (None: not written out)."""
    written = ",".join(sorted(set(keywords))) if keywords is not None else ANY_CREDENTIALS
    return f"{AUTHENTICATE}:{_escaped(written)}"


def credentials(ref: Ref) -> frozenset[str] | None:
    """The credentials' keywords of an AUTHENTICATE ref (ANY_CREDENTIALS among them where not written out); None for
    any other ref."""
    if ref.root != AUTHENTICATE or len(ref.segments) != 1:
        return None
    return frozenset(k for k in _unescaped(ref.segments[0]).split(",") if k)


def template_ref(name: str) -> str:
    return f"{TEMPLATE}:{_escaped(name)}"


def template_named(ref: Ref) -> str | None:
    """The template a TEMPLATE ref names (`front/details.html`)."""
    return _unescaped(ref.segments[0]) if ref.root == TEMPLATE and len(ref.segments) == 1 else None


def tag_ref(libraries: list[str], name: str) -> str:
    return f"{TAG}:{_escaped(','.join(libraries))}.{_escaped(name)}"


def tag_used(ref: Ref) -> tuple[list[str], str] | None:
    """The libraries a template loads and the tag or filter of a TAG ref."""
    if ref.root != TAG or len(ref.segments) != 2:
        return None
    libraries = _unescaped(ref.segments[0])
    return (libraries.split(",") if libraries else []), _unescaped(ref.segments[1])


def lookup_ref(value: str, attribute: str) -> str:
    return f"{LOOKUP}:{_escaped(value)}.{_escaped(attribute)}"


def lookup_used(ref: Ref) -> tuple[str, str] | None:
    """The value's name and the attribute a LOOKUP ref looks up."""
    if ref.root != LOOKUP or len(ref.segments) != 2:
        return None
    return _unescaped(ref.segments[0]), _unescaped(ref.segments[1])


def _escaped(text: str) -> str:
    return "".join(_ESCAPES.get(c, c) for c in text)


def _unescaped(text: str) -> str:
    for character, escaped in reversed(_ESCAPES.items()):  # `%` last: `%252E` is `%2E` as written
        text = text.replace(escaped, character)
    return text


# Ends the segment of a Python property assigned (`t.celsius = 5`: `value:Temp().celsius=`, pyimplicit.py): its setter
# runs, the def decorated `@celsius.setter`.
SET = "="


def bound_function(written: str) -> Ref | None:
    """The function a member of `fields` is bound to, as its value ref (BOUND); None for a type or an instance."""
    return parse_ref(written.removeprefix(GIVEN)) if written.startswith(BOUND) else None


def is_instance(ref: str) -> bool:
    """`module:C()`, `import#K:C()`: an instance of a class of the file or of an import (not a builtin's, a value
    handed on, a fixture's or what `super()` gives)."""
    return ref.startswith(("module:", "import#")) and ref.endswith("()")


def as_value(ref: str) -> str:
    """The ref of a name used as a value where `ref` would call it: `module:f` -> `value:f`, `import#3:C().m` ->
    `value#3:C().m`."""
    return "value" + ref.removeprefix("module").removeprefix("import")


def called_name(text: str | None) -> str | None:
    """The name the call reaches in the end (`Command` for `Cmd()` after `import Command as Cmd`),
    indexed beside the name written at the call so an alias still finds its callers (the first
    alternative's; called_names gives the others'). A call of a value (`app = App(); app(environ)`,
    `module:App()`, or a parameter declared `comparator: PropComparator`) reaches its class's `__call__`;
    one of what a module exports as itself (`import#K:default`) is indexed under `default`, where the
    callers of a default export look."""
    refs = parse_refs(text)
    return _final_name(refs[0]) if refs else None


def called_names(text: str | None) -> list[str]:
    """The name each alternative of the call's ref reaches in the end (as called_name), each once: a parameter
    several callers hand different functions (click's `is_binary(stream, False)`) calls each of them."""
    return list(dict.fromkeys(name for ref in parse_refs(text) if (name := _final_name(ref)) is not None))


def typed_value(segment: str) -> bool:
    """Whether a segment is a value its declared type gives, an instance of the class the type names, as `f()` is
    what f returns: a parameter as an overridden method declares it (`__init__(comparator)`), a callback's
    (`m(0,1)`), an element (`_remaining_events()[]`) or an item (`resolve_command()[1]`)."""
    return segment.endswith("]") or declared_parameter(segment) is not None or passed(segment) is not None


def _final_name(ref: Ref) -> str | None:
    """The name the callers of what `ref` reaches look it up by: a second definition of a name in one file
    (`module:r#3`, the id's suffix, as JavaScript's refs name the one bound there) is still called `r`."""
    if not ref.segments:
        return None
    request = route_request(ref)
    if request is not None:
        return " ".join(request[:2])  # `GET /items/{}`: the routes serving it look their callers up by it
    if ref.root == AUTHENTICATE:
        return AUTHENTICATE  # the backends' `authenticate` look their callers up by it
    template = template_named(ref)  # a template's symbol is named as views render it
    if template is not None:
        return template
    used = tag_used(ref)
    if used is not None:
        return used[1]
    last = ref.segments[-1]
    word = command_word(last)
    if word is not None:
        return word  # a command's callers look it up by its name on the command line
    return "__call__" if last.endswith("()") or typed_value(last) else without_definition_number(last) or None
