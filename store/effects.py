"""Side effects: the calls that show one (by the rules in data/side_effects.json), and the effects a
function has through the functions it calls, each with the chain of calls that is its evidence.

A call shows an effect when its name, qualified as the file imports it, matches a rule of its
language: `stat(p)` after `from os import stat` is `os.stat`, as `os.stat(p)` after `import os` is.
The contracts projection keeps each call that shows one (`call_effects`); `module_effects` then
walks from each function of a module along the calls it makes (resolved in the same file, its
class, or through its imports; a call resolved by name only is a guess and is not followed) and
reports, per kind, the shortest chain: `save() -> _write() -> open(...)`.
"""

from __future__ import annotations

import functools
import json
import re
import sqlite3
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from typing import Any

from .callgraph import CONSTRUCTORS, RESOLVED
from .commands import COMMAND
from .db import held_while_unchanged, stored_list
from .gocalls import go_callee
from .refs import parse_ref
from .resolver import shared_resolver
from .routes import REQUESTS
from .templatetags import LOOKS_UP, RENDERS, USES_TAG

_SHARED_RULES = {"typescript": "javascript", "tsx": "javascript"}
MAX_CHAIN = 4  # calls from a function to the effect; past this the link is rarely what a reader means
EVIDENCE_PER_KIND = 5  # evidence items shown per kind; the answer says how many more there are
_SELF = frozenset({"self", "cls", "this", "super()", "super"})  # a call on the caller's own class
_VALUES = frozenset({"const", "variable"})  # definitions whose calls run when the module is imported
# C's rules name the C library's functions (`open`, `send`, `bind`): a C++ method of such a name is its class's own
# (Catch2's `tracker.open()`, `std::bind`), no file opened nor socket bound.
_C_FAMILY = frozenset({"c", "cpp"})
_PYTHON_LOGGERS = frozenset({"log", "logger", "_log", "_logger", "LOG", "LOGGER"})  # the rules' `logger.info`


def rules_digest() -> str:
    """The rules' text, hashed: the contracts projection's version pins it (tests/test_effects.py)."""
    import hashlib

    return hashlib.sha256(_rules_text().encode()).hexdigest()[:16]


def _rules_text() -> str:
    return resources.files("codeannals.data").joinpath("side_effects.json").read_text("utf-8")


def _dotted(name: str) -> str:
    """`std::fs::read` and `std.fs.read` alike: rules and calls compare with `.` between parts."""
    return name.replace("::", ".")


# Not rules (2026-12-07): names that, read as a method of anything, were wrong far more often than right over the 28
# localize_bench bases: JavaScript's `exec` (RegExp's `re.exec(s)`, 85 calls; child_process's comes through its
# import), Go's `Query` (url.URL's `r.URL.Query()` and gin's own `binding.Query`: all 8 of gin's "database" calls),
# Rust's `query`, `execute` and `read_to_string` (http's `Uri::query`, 48 calls; an executor's `execute`; a
# TcpStream's read called a file's, 29), and Rust's logging and printing names as methods (`res.response().error()`,
# 59 calls): those are macros. Nor Rust's `std::net::` and `hyper::` as prefixes (SocketAddr::from, 69 calls;
# hyper::Response::new, the http crate's, 43; service_fn, 34): a value made is no network; the sockets, hyper's
# connections, servers and bodies stay. Nor Ruby's `File.` as a prefix (File.join, File.dirname, File.expand_path: a
# path's text, and Pathname.new: 154 of jekyll's and rack's 395 "files" calls; File.read, File.exist? and the rest
# that reach the disk stay), nor Java's `URL` and `URI.create` (a URL made: jsoup's 12 "network" calls;
# openConnection and openStream stay), or `Paths.get` and `Path.of` (a path made). Nor Go's `http.`, `net.`, `grpc.`
# and `rpc.` as prefixes (a request made, http.NewRequest: 81 of gin's 133 "network" calls; net.ParseIP,
# grpc.WithInsecure): their calls that dial, listen, serve or look up are listed instead. Nor (2026-12-07, later) any
# of Python's module prefixes but tempfile's: `sqlalchemy.` (a table declared, `select(...)`: 3,019 of sqlalchemy's own
# "database" calls were Column), `logging.` (getLogger: 57 of scrapy's 264 "logging" calls), `urllib.request.`
# (werkzeug's parse_http_list), `ssl.`, `socket.` (gethostname), `subprocess.` (CalledProcessError raised),
# `shutil.` (get_terminal_size); nor JavaScript's `axios.` (axios.create, its interceptors), `http.`, `net.` (net.isIP,
# http.Agent), `log.` and `logger.` (logger.child), nor Go's `ioutil.`, `io.ReadAll` and `bufio.NewReader` (a reader
# read, a request's body most often: gin's 17 "files" calls were ReadAll) or `log.` (log.New): the calls that reach the
# network, a disk or a log are listed. Nor (later still) Rust's `hyper::client::conn::`, `hyper::server::conn::` and
# `hyper::body::` as prefixes (a connection's builder made, `http1::Builder::new`: 69 of hyper's 169 "network" calls;
# `Frame::data`, a frame made; a variable `conn` read as the module it shadows, `conn.await`), `std::process::`
# (`Stdio::piped`), `std::env::` (`env::split_paths`, text), `log::` and `tracing::` (`log::set_max_level`,
# `tracing::Span`): the handshakes, binds, commands, the environment's reads and writes and the log's levels are listed.
@dataclass(frozen=True)
class _Rule:
    """One kind's rules in a language: names matched exactly, prefixes (`fs.`, `std::fs::`), and Rust macros
    (`info!`), which only a call without a qualifier is."""

    exact: frozenset[str]
    prefixes: tuple[str, ...]
    macros: frozenset[str]


@functools.cache
def _rules(language: str) -> dict[str, _Rule]:
    """kind -> its rules for a language; empty for languages without a table."""
    rules = json.loads(_rules_text()).get(_SHARED_RULES.get(language, language), {})
    return {
        kind: _Rule(
            frozenset(_dotted(n) for n in names if not n.endswith((".", "::", "!"))),
            tuple(_dotted(n) for n in names if n.endswith((".", "::"))),
            frozenset(n[:-1] for n in names if n.endswith("!")),
        )
        for kind, names in rules.items()
    }


@functools.lru_cache(maxsize=65_536)  # a repository calls the same few thousand names again and again
def _kinds(language: str, names: tuple[str, ...], bare: str | None, macro: str | None) -> tuple[str, ...]:
    """The kinds of effect a call shows by any of its `names` (as written, as imported). `bare`, when
    given, is matched alone too: a rule such as `write_text` or `open` names a method of anything,
    or a builtin. `macro` is the name of a call without a qualifier, not imported: it may be a macro's."""
    return tuple(
        kind
        for kind, rule in _rules(language).items()
        if any(n in rule.exact or n.startswith(rule.prefixes) for n in names)
        or (bare is not None and bare in rule.exact)
        or (macro is not None and macro in rule.macros)
    )


def _module_name(module: str, level: int = 0) -> str:
    """An import's module as a dotted name: `node:fs` is `fs`, `fs/promises` is `fs.promises`; a
    relative one (`from . import log`, `'./log'`) starts with `.`, so no library's rule matches it."""
    module = module.removeprefix("node:")
    dotted = _dotted(module.lstrip("./").replace("/", "."))
    return f".{dotted}" if level > 0 or module.startswith(".") else dotted


def local_names(imports: Iterable[dict[str, Any]]) -> dict[str, str]:
    """What each name a file imports stands for: `stat` -> `os.stat` after `from os import stat`,
    `sp` -> `subprocess` after `import subprocess as sp`, `log` -> `.log` after `from . import log`.
    A name its module already ends with (Java's `import java.nio.file.Files`) stands for itself:
    the rules name classes so."""
    out: dict[str, str] = {}
    for imp in imports:
        module = _module_name(str(imp.get("module") or ""), int(imp.get("level") or 0))
        names = [n for n in imp.get("names") or [] if n and n != "*"]
        alias = imp.get("alias")
        if names:
            for name in names:
                local = _dotted(name).rsplit(".", 1)[-1]
                if module.rsplit(".", 1)[-1] == local and not alias:
                    continue
                if name == "default":  # `import http from 'http'`: the module itself (axios' `http.createServer`)
                    full = module
                elif module.strip("."):
                    full = f"{module.rstrip('.')}.{_dotted(name)}"
                else:
                    full = f"{module}{_dotted(name)}"
                out[alias if alias and len(names) == 1 else local] = full
        elif alias and module:
            out[alias] = module
    return out


def bound_names(imports: Iterable[dict[str, Any]]) -> frozenset[str]:
    """The names a Python file's imports bind: `os` for `import os.path`, `sp` for `import subprocess as sp`,
    `stat` for `from os import stat`."""
    bound: set[str] = set()
    for imp in imports:
        names = [n for n in imp.get("names") or [] if n and n != "*"]
        alias = imp.get("alias")
        if names:
            bound.update(alias if alias and len(names) == 1 else n.rsplit(".", 1)[-1] for n in names)
        elif alias or imp.get("module"):
            bound.add(alias or str(imp["module"]).split(".")[0])
    return frozenset(bound)


def qualified_call(name: str, qualifier: str | None, imported: dict[str, str]) -> tuple[str, bool]:
    """The call as its module names it, and whether that came from an import: `stat(p)` is
    `os.stat` after `from os import stat`, `path.exists(p)` is `os.path.exists` after
    `from os import path`."""
    if not qualifier:
        return imported.get(name, name), name in imported
    head, dot, rest = _dotted(qualifier).partition(".")
    return f"{imported.get(head, head)}{dot}{rest}.{name}", head in imported


def direct_effects(
    language: str, calls: Iterable[dict[str, Any]], imports: Iterable[dict[str, Any]] = ()
) -> list[dict[str, Any]]:
    """Each call that shows an effect: kind, the call as written (`via`), as imported (`as`), line
    and calling symbol; one per symbol, kind and call."""
    if not _rules(language):
        return []
    imports = list(imports)
    imported = local_names(imports)
    # A Python module is a name only once imported: `requests.append(r)` on a list named requests, a test's
    # `socket.assert_not_called()` on a mock, are no module's calls. Loggers are the rules' only variables; a star
    # import may bring any module (Django's settings: `from .base import *`, then `os.environ.get`).
    modules_known = language == "python" and not any("*" in (imp.get("names") or []) for imp in imports)
    bound = bound_names(imports) | _PYTHON_LOGGERS if modules_known else frozenset()
    found: dict[tuple[Any, str, str], dict[str, Any]] = {}
    for call in calls:
        ref = parse_ref(call.get("ref"))
        if ref is not None and ref.root == "value":  # a name handed on, not called: gin's `http.StatusOK` (252
            continue  # "network" items), sqlalchemy's `Column("x", Integer)`, `console.log(request.query)`
        name, qualifier = call["name"], call.get("qualifier")
        if name == "remove" and language in _C_FAMILY and len(call.get("arguments") or ()) > 1:
            continue  # <algorithm>'s `std::remove(first, last, value)` (Catch2's popScopedMessage), not a file's
        if qualifier and qualifier.endswith("::"):  # Rust's `std::process::exit`: a path keeps its `::` (rustnames)
            written, qualifier = f"{qualifier}{name}", qualifier[:-2]
        else:
            written = f"{qualifier}.{name}" if qualifier else name
        qualified, through_import = qualified_call(name, qualifier, imported)
        # A method of what a call returned (`fs::read(p).unwrap()`: that call is evidence of its own), or of a Python
        # variable (`path.write_text()`), shows an effect by its name only.
        if qualifier and ("(" in qualifier or (modules_known and _dotted(qualifier).split(".")[0] not in bound)):
            kinds = _kinds(language, (), name, None)
        elif through_import:  # the imported thing, not a library or builtin of the same short name
            kinds = _kinds(language, (qualified,), name if qualifier else None, None)
        else:
            method = qualifier and language in _C_FAMILY
            kinds = _kinds(language, (_dotted(written),), None if method else name, None if qualifier else name)
        for kind in kinds:
            key = (call.get("caller"), kind, _dotted(written))
            if key not in found:
                found[key] = {
                    "kind": kind,
                    "via": written,
                    "as": qualified,
                    "line": call.get("line"),
                    "symbol": call.get("caller"),
                }
    return sorted(found.values(), key=lambda e: (e["kind"], e["line"] or 0, e["via"]))


# --- through the call graph ---------------------------------------------------------------------


@dataclass(frozen=True)
class _Step:
    """One effect reached from a root: the chain of symbols from it, and the call that shows it."""

    kind: str
    chain: tuple[str, ...]  # symbol ids, the root first
    via: str
    path: str
    line: int | None
    basis: str  # the weakest resolution along the chain: same file, same class, imported name


# Bases of store/callgraph.py's resolver (same file, method, imported name, constructor, a command, a request) and of
# the fallback here for calls it cannot explain (same class, base class), surest first.
_BASIS_RANK = {
    "direct": 0,
    "same file": 1,
    "same package": 1,
    "same class": 1,
    "method": 1,
    "constructor": 1,
    "imported name": 2,
    COMMAND: 2,  # `runner.invoke(cli, ["pack"])`
    REQUESTS: 2,  # `client.get("/items/5")`
    RENDERS: 2,  # `render(request, "x.html")`
    USES_TAG: 2,  # `{{ check|down_title }}`
    LOOKS_UP: 2,  # `{{ check.cloaked_url }}`
    "base class": 2,
}
# The bases a class signature names: Python's `class A(B, mod.C)`, `extends B` in Java, JS, TypeScript.
_BASES = re.compile(r"^class\s+\w+\s*\((?P<python>[^)]*)\)|\bextends\s+(?P<extends>[\w.]+)")
MAX_BASES = 3  # levels of base classes searched for a method called on self


class _Graph:
    """Calls and direct effects of symbols, read once per file and kept while the index stands
    (`held_while_unchanged`): one context pack asks for the effects of six modules that share callees."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.resolver = shared_resolver(conn)  # the calls a pack's test walks resolved, resolved once
        self._symbols: dict[str, dict[str, list[sqlite3.Row]]] = {}
        self.by_id: dict[str, sqlite3.Row] = {}
        self._imports: dict[str, tuple[dict[str, list[str]], dict[str, list[str]]]] = {}
        self._effects: dict[str, dict[str | None, list[sqlite3.Row]]] = {}
        self._calls: dict[str, dict[str | None, list[sqlite3.Row]]] = {}
        self._callees: dict[str, list[tuple[str, str]]] = {}

    def symbols(self, path: str) -> dict[str, list[sqlite3.Row]]:
        if path not in self._symbols:
            by_name: dict[str, list[sqlite3.Row]] = {}
            for row in self.conn.execute(
                "SELECT id, name, qualname, parent, kind, exported, signature FROM symbols"
                " WHERE path = ? ORDER BY start_line",
                (path,),
            ):
                by_name.setdefault(row["name"], []).append(row)
                self.by_id[row["id"]] = row
            self._symbols[path] = by_name
        return self._symbols[path]

    def imports(self, path: str) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
        """(imported name -> files it comes from, module name -> files) for one file's resolved imports."""
        if path not in self._imports:
            names: dict[str, list[str]] = {}
            modules: dict[str, list[str]] = {}
            for row in self.conn.execute(
                "SELECT module, names, target FROM imports WHERE path = ? AND target IS NOT NULL ORDER BY ordinal",
                (path,),
            ):
                imported = [n for n in stored_list(row["names"]) if n != "*"]
                for name in imported:
                    names.setdefault(name.rsplit(".", 1)[-1], []).append(row["target"])
                if not imported:
                    modules.setdefault(_module_name(row["module"]), []).append(row["target"])
            self._imports[path] = (names, modules)
        return self._imports[path]

    def effects(self, path: str) -> dict[str | None, list[sqlite3.Row]]:
        """The effects a file's calls show, by the symbol making them: not a call the code resolves to a function of
        ours (Rake's own `execute(args)`, Ruby's bare call of its Task#execute, is no database's `execute`)."""
        if path not in self._effects:
            by_symbol: dict[str | None, list[sqlite3.Row]] = {}
            for row in self.conn.execute(
                "SELECT symbol, kind, via, line FROM call_effects WHERE path = ? ORDER BY line", (path,)
            ):
                if not self._ours(path, row):
                    by_symbol.setdefault(row["symbol"], []).append(row)
            self._effects[path] = by_symbol
        return self._effects[path]

    def _ours(self, path: str, effect: sqlite3.Row) -> bool:
        if effect["symbol"] is None:
            return False
        name = str(effect["via"]).replace("::", ".").rpartition(".")[2]
        calls = self.calls(path).get(effect["symbol"], [])
        at = [c for c in calls if c["name"] == name and c["line"] == effect["line"]]
        return bool(at) and all(self._callee(path, effect["symbol"], c) is not None for c in at)

    def calls(self, path: str) -> dict[str | None, list[sqlite3.Row]]:
        if path not in self._calls:
            by_caller: dict[str | None, list[sqlite3.Row]] = {}
            for row in self.conn.execute(
                "SELECT caller, name, qualifier, line, ref FROM calls WHERE path = ? ORDER BY ordinal", (path,)
            ):
                by_caller.setdefault(row["caller"], []).append(row)
            self._calls[path] = by_caller
        return self._calls[path]

    def callees(self, symbol_id: str) -> list[tuple[str, str]]:
        """(callee id, basis) for each call of `symbol_id` we can resolve without guessing."""
        if symbol_id not in self._callees:
            path = symbol_id.split("::", 1)[0]
            out: dict[str, str] = {}
            for call in self.calls(path).get(symbol_id, []):
                found = self._callee(path, symbol_id, call)
                if found is not None and found[0] != symbol_id:
                    out.setdefault(*found)
            self._callees[symbol_id] = list(out.items())
        return self._callees[symbol_id]

    def _callee(self, path: str, caller: str, call: sqlite3.Row) -> tuple[str, str] | None:
        """What a call runs, as the call graph resolves it from the code (store/callgraph.py); a guess
        by name is not followed, and a call it cannot explain (no ref, an unknown name) is tried here."""
        found = self.resolver.resolve(path, call["ref"]) if call["ref"] is not None else []
        sure = next((r for r in found if r.target is not None and r.basis in RESOLVED), None)
        if sure is not None:
            return str(sure.target), sure.basis
        if all(r.basis in ("unknown", "legacy") for r in found):
            return self.resolve(path, caller, call["name"], call["qualifier"])
        return None

    def resolve(self, path: str, caller: str, name: str, qualifier: str | None) -> tuple[str, str] | None:
        """The symbol a call names, by its file, its class, or its file's imports; None when only
        the bare name would say. The fallback for calls the call graph cannot explain."""
        if path.endswith(".go"):  # Go names a package's code by rules of its own
            target, basis = go_callee(self.conn, self.resolver, path, name, qualifier)
            return (target, basis) if target is not None and basis in RESOLVED else None
        mine = self.symbols(path).get(name, [])
        caller_row = self.by_id.get(caller)
        caller_parent = caller_row["parent"] if caller_row is not None else None
        if qualifier in _SELF:
            hit = next((s for s in mine if s["parent"] is not None and s["parent"] == caller_parent), None)
            if hit is not None:
                return hit["id"], "same class"
            inherited = self._inherited(caller_parent, name) if caller_parent is not None else None
            return (inherited, "base class") if inherited is not None else None
        imported_names, imported_modules = self.imports(path)
        if not qualifier:
            # A function nested in the caller, a module-level one, or (Java, C#) a method of its class.
            hit = (
                next((s for s in mine if s["parent"] == caller), None)
                or next((s for s in mine if s["parent"] is None), None)
                or next((s for s in mine if caller_parent is not None and s["parent"] == caller_parent), None)
            )
            if hit is not None:
                return self._constructor(path, hit), "same file"
            for target in imported_names.get(name, []):
                found = self._top_level(target, name)
                if found is not None:
                    return found, "imported name"
            return None
        dotted = _dotted(qualifier)
        # `Class.method()` of a class in this file or imported by name.
        for target in [path, *imported_names.get(dotted.split(".")[0], [])]:
            hit = next((s for s in self.symbols(target).get(name, []) if s["qualname"] == f"{dotted}.{name}"), None)
            if hit is not None:
                return hit["id"], "same file" if target == path else "imported name"
        # `module.function()` of an imported module (`import pkg.mod`, `from pkg import mod`).
        for target in imported_modules.get(dotted, []) + imported_names.get(dotted.rsplit(".", 1)[-1], []):
            found = self._top_level(target, name)
            if found is not None:
                return found, "imported name"
        return None

    def _inherited(self, class_id: str, name: str) -> str | None:
        """The method `name` of the nearest base class that defines it, bases found by the class's
        signature in its file or through its file's imports; None past MAX_BASES levels."""
        frontier, seen = [class_id], {class_id}
        for _ in range(MAX_BASES):
            bases = [base for cls in frontier for base in self._bases(cls) if base not in seen]
            for base in bases:
                base_path = base.split("::", 1)[0]
                hit = next((s for s in self.symbols(base_path).get(name, []) if s["parent"] == base), None)
                if hit is not None:
                    return str(hit["id"])
            seen.update(bases)
            frontier = bases
        return None

    def _bases(self, class_id: str) -> list[str]:
        row = self.by_id.get(class_id)
        found = _BASES.search(row["signature"] or "") if row is not None else None
        if found is None:
            return []
        path = class_id.split("::", 1)[0]
        written = found["python"] if found["python"] is not None else found["extends"]
        out = []
        for part in written.split(","):
            base = part.strip().split("[", 1)[0].rsplit(".", 1)[-1]
            if not base or "=" in part:  # `metaclass=ABCMeta` is no base
                continue
            local = next((s for s in self.symbols(path).get(base, []) if s["parent"] is None), None)
            target = (
                local["id"]
                if local is not None
                else next((hit for t in self.imports(path)[0].get(base, []) if (hit := self._class_in(t, base))), None)
            )
            if target is not None:
                out.append(str(target))
        return out

    def _class_in(self, path: str, name: str) -> str | None:
        hit = next((s for s in self.symbols(path).get(name, []) if s["parent"] is None), None)
        return str(hit["id"]) if hit is not None else None

    def _top_level(self, path: str, name: str, hops: int = 2) -> str | None:
        """A module-level `name` of `path`, following re-exports (`from .impl import name`) a hop or two."""
        hit = next((s for s in self.symbols(path).get(name, []) if s["parent"] is None), None)
        if hit is not None:
            return self._constructor(path, hit)
        if hops:
            for target in self.imports(path)[0].get(name, []):
                found = self._top_level(target, name, hops - 1)
                if found is not None:
                    return found
        return None

    def _constructor(self, path: str, symbol: sqlite3.Row) -> str:
        """Calling a class runs its constructor, where the language names one; else the class itself."""
        for name in CONSTRUCTORS:
            hit = next((s for s in self.symbols(path).get(name, []) if s["parent"] == symbol["id"]), None)
            if hit is not None:
                return str(hit["id"])
        return str(symbol["id"])


def _reach(graph: _Graph, root: str) -> dict[str, _Step]:
    """The shortest chain from `root` to each kind of effect, breadth first over resolved calls."""
    best: dict[str, _Step] = {}
    seen = {root}
    queue: deque[tuple[str, tuple[str, ...], str]] = deque([(root, (root,), "direct")])
    while queue:
        current, chain, basis = queue.popleft()
        path = current.split("::", 1)[0]
        for effect in graph.effects(path).get(current, []):
            if effect["kind"] not in best:
                best[effect["kind"]] = _Step(effect["kind"], chain, effect["via"], path, effect["line"], basis)
        if len(chain) > MAX_CHAIN:
            continue
        for callee, how in graph.callees(current):
            if callee not in seen:
                seen.add(callee)
                weaker = how if _BASIS_RANK[how] > _BASIS_RANK[basis] else basis
                queue.append((callee, (*chain, callee), weaker))
    return best


def module_effects(conn: sqlite3.Connection, path: str, shown: int | None = EVIDENCE_PER_KIND) -> dict[str, Any]:
    """Every kind of effect of a module: its own calls (at import time or in its functions) and the
    effects its functions reach through the calls they make, with the shortest chain as evidence.

    Per kind, `shown` items of evidence (None: all), the public functions' first, then the shortest
    chains; `omitted` counts what is cut.
    """
    graph = held_while_unchanged(conn, "effects graph", lambda: _Graph(conn))
    found: list[_Step] = [
        _Step(e["kind"], (), e["via"], path, e["line"], "direct") for e in graph.effects(path).get(None, [])
    ]  # run on import
    roots = [row["id"] for rows in graph.symbols(path).values() for row in rows]
    for root in roots:
        found.extend(_reach(graph, root).values())
    per_kind: dict[str, list[_Step]] = {}
    for step in found:
        per_kind.setdefault(step.kind, []).append(step)
    evidence: list[dict[str, Any]] = []
    omitted: dict[str, int] = {}
    for kind in sorted(per_kind):
        # What the module's API does first, then the shortest and surest chains.
        ranked = sorted(
            per_kind[kind],
            key=lambda s: (not _exported(graph, s), len(s.chain), _BASIS_RANK[s.basis], s.line or 0, s.chain),
        )
        evidence.extend(_evidence(s, graph) for s in ranked[:shown])
        if shown is not None and len(ranked) > shown:
            omitted[kind] = len(ranked) - shown
    return {"kinds": sorted(per_kind), "evidence": evidence, "omitted": omitted}


def symbol_effects(conn: sqlite3.Connection, symbol_id: str) -> list[dict[str, Any]]:
    """One function's effects, each kind with its shortest chain of calls as evidence."""
    graph = held_while_unchanged(conn, "effects graph", lambda: _Graph(conn))
    graph.symbols(symbol_id.split("::", 1)[0])
    reached = _reach(graph, symbol_id)
    return [_evidence(reached[kind], graph) for kind in sorted(reached)]


def _exported(graph: _Graph, step: _Step) -> bool:
    row = graph.by_id.get(step.chain[0]) if step.chain else None
    return row is None or bool(row["exported"])  # an effect on import concerns every importer


def _evidence(step: _Step, graph: _Graph) -> dict[str, Any]:
    """An effect as an answer shows it; `calls` counts the calls between the symbol and the effect.
    A constant's value is computed on import: `on import: LOG = logging.getLogger(...)`."""
    root = graph.by_id.get(step.chain[0]) if step.chain else None
    on_import = root is None or root["kind"] in _VALUES
    names = [s.split("::", 1)[-1] for s in step.chain]
    shown = " -> ".join([*(f"{n}()" for n in names[1 if on_import else 0 :]), f"{step.via}(...)"])
    if on_import and names:
        shown = f"{names[0]} = {shown}"
    return {
        "kind": step.kind,
        "symbol": step.chain[0] if step.chain else None,
        "via": step.via,
        "path": step.path,
        "line": step.line,
        "chain": list(step.chain),
        "calls": max(0, len(step.chain) - 1),
        "basis": step.basis,
        "evidence": f"on import: {shown}" if on_import else shown,
    }
