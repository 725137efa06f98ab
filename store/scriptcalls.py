"""What a call on a literal, or on what a builtin gives, calls; and what a script's call its file does not
explain may be guessed to call (store/callgraph.py asks, for callers and callees alike).

The guesses by name are the call graph's weakest answers, and some a language rules out: a literal's method is
its type's (`", ".join(names)` calls str's join), an array method's result is an array (`cols.map(f).join()`
calls Array's join), and a JavaScript call names neither a Python function nor, by a bare name, a method.
bench/facts_calls_ts.py (the TypeScript checker's own resolution) measures them.
"""

from __future__ import annotations

import re
import sqlite3
from typing import TYPE_CHECKING

from .db import held_while_unchanged
from .typenames import JAVASCRIPT_FAMILY, SCRIPT_SUFFIXES, TYPESCRIPT_SUFFIXES

if TYPE_CHECKING:
    from .resolver import CallResolver
    from .symbol import SymbolRow

# A literal's method is the language's own where code cannot add one to its type (Python's str and list, Java's
# String, Go's), or rarely does (JavaScript's String.prototype): `", ".join(names)` calls no `join` of ours.
# Rust's are read by store/rustcalls.py: a trait of ours may be implemented for str.
_LITERAL = re.compile(r"""[rRbBuUfF]{0,2}(["'`]).*\1|\[.*\]|\{.*\}|\d[\d_.]*""", re.S)
_BUILTIN_LITERALS = (".py", ".pyi", *SCRIPT_SUFFIXES, ".java", ".go")


def on_a_literal(path: str, qualifier: str | None) -> bool:
    """Whether the call is of a literal's method (`", ".join(names)`) in a language whose literals' methods are its
    own (_LITERAL)."""
    if qualifier is None or not path.endswith(_BUILTIN_LITERALS) or "][" in qualifier or "}[" in qualifier:
        return False  # `[a, b][i].f()`: an element's method, of whatever type it is
    return _LITERAL.fullmatch(qualifier) is not None


# JavaScript's builtins whose result is an array, a string or an iterator, never an element a caller put in:
# `cols.map(f).join(", ")` calls Array's join, whatever `cols` is, unless a `map` of ours may return a value
# with our `join` (typeorm's `impact SelectQueryBuilder.join` listed 220 guesses, most of them such joins; now
# 118). bench/facts_calls_ts.py, the TypeScript checker's answers, precision of +guesses (recall the same):
# typeorm .925 -> .932, the hold-out mikro-orm .750 -> .760 (its answers naming ours at a library's call
# 1506 -> 1418); the literal rule (on_a_literal) had taken mikro-orm .729 -> .750.
_BUILT_RESULTS = frozenset(
    "map filter slice concat flat flatMap sort reverse splice join split toString trim trimStart trimEnd"
    " toLowerCase toUpperCase replace replaceAll padStart padEnd repeat substring substr keys values entries".split()
)
# The methods of ECMAScript's own Array, String, Promise, Map, Set, Object, Function and RegExp. A TypeScript
# call of one on a value the file does not type is the builtin's, as the checker says: bench/facts_calls_ts.py,
# precision of +guesses typeorm .932 -> .995, ky .869 -> .880, the hold-out mikro-orm .765 -> .956 (recall .964
# -> .963). Not in JavaScript, whose values nobody typed: our own `test` and `get` run there (bench/facts_tests_js.py,
# semver's tests to run, recall .91 -> .81).
_ECMASCRIPT_METHODS = frozenset(
    """at concat copyWithin entries every fill filter find findIndex findLast findLastIndex flat flatMap forEach
    includes indexOf join keys lastIndexOf map pop push reduce reduceRight reverse shift slice some sort splice
    toReversed toSorted toSpliced unshift values with charAt charCodeAt codePointAt endsWith localeCompare match
    matchAll normalize padEnd padStart repeat replace replaceAll search split startsWith substring toLowerCase
    toUpperCase trim trimEnd trimStart then catch finally clear delete get has set add hasOwnProperty
    isPrototypeOf propertyIsEnumerable toString valueOf toLocaleString apply bind call exec test""".split()
)
MAX_GUESSED = 50  # the symbols of a name a guess looks through, nearest first
_LAST_CALLED = re.compile(r"(?:\?\.|\.)\s*(?P<name>[A-Za-z_$][\w$]*)\s*(?:<[^()]*>)?\s*$")
_TYPE_WORD = re.compile(r"[A-Za-z_$][\w$]*")


def on_a_built_result(
    resolver: CallResolver, path: str, qualifier: str | None, symbol: SymbolRow | sqlite3.Row
) -> bool:
    """Whether a script's call (`cols.map(f).join(", ")`) is on the result of a builtin that gives an array or a
    string (_BUILT_RESULTS), so never a method of the symbol's class: no function of ours of that name (`map`)
    is declared to return that class (or one it derives from), and none of them leaves its result undeclared."""
    owner = resolver.symbol(symbol["parent"])
    if qualifier is None or owner is None or owner["kind"] != "class" or not path.endswith(SCRIPT_SUFFIXES):
        return False
    called = _last_called(qualifier.strip())
    if called not in _BUILT_RESULTS:
        return False
    holders = {c["name"] for c in resolver.mro(owner)}
    for row in resolver.conn.execute(
        "SELECT returns FROM symbols WHERE name = ? AND kind IN ('method', 'function')", (called,)
    ):
        if not row["returns"] or holders & set(_TYPE_WORD.findall(row["returns"])) or "this" in row["returns"]:
            return False  # ours may give a value of the class
    return True


def _modules(conn: sqlite3.Connection) -> set[str]:
    """The files that import or export anything: modules, whose names are no globals."""
    return held_while_unchanged(
        conn,
        "script modules",
        lambda: {
            row[0] for row in conn.execute("SELECT path FROM imports UNION SELECT path FROM symbols WHERE exported = 1")
        },
    )


def _last_called(qualifier: str) -> str | None:
    """The name of the call a qualifier ends with (`cols\n .map((c) => c.name)`: map), if it ends with one."""
    if not qualifier.endswith(")"):
        return None
    depth = 0
    for i in range(len(qualifier) - 1, -1, -1):  # back to the bracket opening the last call's arguments
        depth += {")": 1, "]": 1, "}": 1, "(": -1, "[": -1, "{": -1}.get(qualifier[i], 0)
        if depth == 0:
            found = _LAST_CALLED.search(qualifier[:i])
            return found["name"] if found else None
    return None


def guessable(
    conn: sqlite3.Connection, path: str, qualifier: str | None, symbol: SymbolRow | sqlite3.Row, basis: str
) -> bool:
    """Whether a script's call that its file does not explain may be a guess at the symbol, by what JavaScript
    can call so: code in its own languages (not a Python file's `respond`); on a bare name (`Error(...)`), no
    method and no object's property (`webidl.converters.ArrayBuffer`); on a value (`xs.map(...)`), no other
    file's top-level function (a module's, `utils.forEach()`, its file's imports resolve). bench/facts_calls_ts.py,
    precision of +guesses: undici .470 -> .495, ky .868 -> .869, recall the same; typeorm and the hold-out
    mikro-orm the same (a call on a value kept from every top-level function, its own file's too, cost undici
    9 right answers: `TestCounter.testComplete()` of an object of the file's functions). A bare name at another
    file's function only from a script to a script (`basis` "name only": neither the file's own nor an imported
    file's): undici .525 -> .579, the rest and recall the same."""
    if not path.endswith(SCRIPT_SUFFIXES):
        return True
    if symbol["language"] not in JAVASCRIPT_FAMILY:
        return False
    if not qualifier:
        if symbol["kind"] in ("method", "type") or (symbol["parent"] is None and "." in symbol["qualname"]):
            return False
        # A bare name a module leaves to the guess is bound to a parameter or a value (indexer/parsing/jsrefs.py),
        # not to another file's function; a script's unbound one is a global, which another script may declare,
        # never a module (undici's WPT scripts' `fetch()` is no lib/web/fetch/index.js's fetch).
        modules = _modules(conn)
        unbound = basis == "name only" and symbol["path"] != path  # not the file's own, nor an imported file's
        return not unbound or (path not in modules and symbol["path"] not in modules)
    if path.endswith(TYPESCRIPT_SUFFIXES) and symbol["qualname"].rpartition(".")[2] in _ECMASCRIPT_METHODS:
        return symbol["path"] == path  # an untyped value's `push`, `get`, `then`: the language's, as TypeScript says
    top_level_function = symbol["kind"] == "function" and symbol["parent"] is None and "." not in symbol["qualname"]
    return qualifier == "this" or not (top_level_function and symbol["path"] != path)
