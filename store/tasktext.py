"""A task read as an engineer reads it: the paths, identifiers and words it names, and the files and symbols
those name in the index. The ranking core (ranking.py) scores what is read here; the plan steps of the
workflow and vibe_check read tasks the same way.
"""

from __future__ import annotations

import functools
import re
import sqlite3
import sys
from collections.abc import Iterable

from . import lookups
from .db import held_while_unchanged, stored_list
from .filekinds import indexed_kinds
from .symbol import TYPE_KINDS, SymbolRow
from .typenames import JAVASCRIPT_FAMILY
from .words import content_words

# Words that say what to do, not what to do it to.
TASK_WORDS = frozenset(
    """
    add adds added adding fix fixes fixed fixing change changes changed changing update updates updating
    implement implements implementing create creates creating remove removes removing delete deletes
    refactor refactoring rename renames support supports handle handles ensure allow allows write
    improve improves bug bugs issue issues feature code file files function functions method methods class
    classes module modules new existing currently instead using use used work works working right wrong
    correct correctly properly better faster slower case cases also one two first last each every
""".split()
)
# Each alternative starts only where a token starts: without the lookbehinds a long run of word
# characters is re-scanned from every position (quadratic: a 20k-character task took 10 s).
_PATH_TOKEN = re.compile(
    r"(?<![\w.-])[\w.-]+(?:/[\w.-]+)+|(?<![\w-])[\w-]+\.(?:py|pyi|js|jsx|ts|tsx|go|rs|java|kt|"
    r"rb|c|h|cc|cpp|hpp|cs|php|swift|scala|sh|sql|toml|yaml|yml|json|md)\b"
)
# Quoted, dotted, snake_case, _private, camelCase, PascalCase, an acronym leading a word (URLSearchParams,
# HTTPError: not `URLs` or `IPv6`) and UPPER_SNAKE constants (SERVER_NAME).
_NAME_TOKEN = re.compile(
    r"`([^`]+)`|\b([A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::|#)[A-Za-z_][A-Za-z0-9_]*)+|"
    r"[a-z][a-z0-9]*_[a-z0-9_]+|_[A-Za-z0-9_]+|[a-z]+[A-Z][A-Za-z0-9]*|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*|"
    r"[A-Z]{2,}[a-z]{2,}[A-Za-z0-9]*|[A-Z][A-Z0-9]*_[A-Z0-9_]+)\b"
)
# A commit's id, whole or abbreviated as git abbreviates it (`Correct 1049dd6b2a36...`, `introduced in 262bdf0`): a
# letter and a digit both, so neither an issue's number nor a word.
_COMMIT_ID = re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b")
_TYPE_ARGUMENTS = re.compile(r"<[^<>]*>")
# What joins a holder to its member in a name, besides `.`: Rust's and C++'s `::`, and the `#` of an instance method
# as Ruby's, Java's and JavaScript's docs write it (`Rack::Request#POST`, `W3CDom#convert`). Not an overload's `#2`.
_MEMBER_JOIN = re.compile(r"::|#(?=[A-Za-z_])")
MAX_SAME_NAME = 50  # the symbols of one name a qualifier chooses among
MAX_NAMED_SYMBOLS = 8  # ...and the most a name ranks
# A conventional commit's subject, `fix(Headers): ...`: the scope in brackets names the part of the project the
# change is in. A path in it (`fix(core/axios)`) is read as any path is.
_SCOPE = re.compile(r"\s*[A-Za-z]+\(([\w .-]+)\)!?:")
# ...or the part of the project a subject starts with, as ripgrep's do: `printer: fix ...`, `ignore/types: ...`.
_LEADING_PART = re.compile(r"\s*([A-Za-z][\w/.-]*):\s")
# What a conventional commit's subject starts with when it names no part (`fix: ...`): the spec's types, and
# the spellings of them projects use.
CHANGE_TYPES = frozenset("build chore ci docs feat feature fix fixes perf refactor revert style test tests".split())
# A scheme starts a token and is short: unbounded, `glob-glob-...` (100k characters) was scanned to its end from
# every word in it, 3 s.
_URL = re.compile(r"(?<![\w+.-])[a-z][a-z0-9+.-]{0,31}://\S+")
# `Closes: #5967`, `fixes owner/repo#12`: which issue the commit closes, not what it changes.
# Not left out as well (2026-12-07, in process, the ranking's order, file Acc@1/@5): who reported or wrote a change
# (`reported by Mark Kelly`, `from Jake Stewart in GitHub issue 4736`: tmux's subjects, whose names `mark` and `jake`
# match code): tmux .50/.81 -> .53/.79 (its 300 tasks .46 -> .47 Acc@1), the rest of the dev lists the same, the
# hold-outs .647/.854 -> .646/.854.
_CLOSING = re.compile(r"\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\b:?\s*(?:[\w.-]+/[\w.-]+)?#\d+", re.IGNORECASE)
# A package as a task spells it: `glob`, `fast-redact`, `@fastify/error`, `charset_normalizer`.
_PACKAGE_TOKEN = re.compile(r"(?<![\w@./-])@?[A-Za-z0-9][\w.-]*(?:/[\w.-]+)?")
# Node's own modules (`require('module').builtinModules`), as Python's standard library: their names are
# everyday words (`path`, `events`, `stream`, `url`), which a task says without meaning the module.
NODE_BUILTINS = frozenset(
    """
    assert async_hooks buffer child_process cluster console constants crypto dgram diagnostics_channel dns
    domain events fs http http2 https inspector module net os path perf_hooks process punycode querystring
    readline repl sea sqlite stream string_decoder sys test timers tls trace_events tty url util v8 vm wasi
    worker_threads zlib
""".split()
)
PYTHON_STANDARD = frozenset(sys.stdlib_module_names)
# What a Rust path starts with that is no crate of others: the standard crates, and paths relative to this one.
RUST_NOT_CRATES = frozenset({"std", "core", "alloc", "proc_macro", "test", "crate", "self", "super", ""})
FEW_IMPORTING_FILES = 5  # a package imported by more files says little about which one a change goes in


# What is read of a task, at most: each path and name is looked up, each word's frequency counted. A pasted log of
# 12,000 words made a pack take 2.5 s; the longest of localize_bench's 1,040 commit messages has 124 words, 36 names
# and 14 paths.
MAX_WORDS = 1_000
MAX_NAMED = 200


def task_terms(task: str) -> tuple[list[str], list[str], list[str]]:
    """(paths, identifiers, words) named in the task. Links are left out: `https://github.com/...` names a
    host and an issue, not code (and would make any task about CI); so is the issue a commit closes.
    localize_bench pack file Acc@1/@5, symbol Acc@10 (`Closes: #5967` read as words): click .74 -> .75 Acc@1,
    typeorm symbol Acc@10 .625 -> .637; the rest, hold-outs included, unchanged."""
    task = without_commit_ids(_without_links(task))
    paths = list(dict.fromkeys(m.group(0).strip("./") for m in _PATH_TOKEN.finditer(task)))
    names = []
    for m in _NAME_TOKEN.finditer(task):
        name = (m.group(1) or m.group(2) or "").strip()
        if name and name not in paths and not _PATH_TOKEN.fullmatch(name):
            names.append(name)
    words = [w for w in content_words(task) if w not in TASK_WORDS]
    return paths[:MAX_NAMED], list(dict.fromkeys(names))[:MAX_NAMED], words[:MAX_WORDS]


def missing_paths(conn: sqlite3.Connection, task: str) -> list[str]:
    """The files the task names by name or path (`lib/router/index.js`, `test.py`) that the tree holds nowhere:
    no file is at that path, nor ends with its last two parts (a traceback's `site-packages/requests/models.py`
    is the tree's src/requests/models.py), nor is JavaScript compiled from the tree's TypeScript (`typescript_sources`:
    `source/core/index.js` is source/core/index.ts). An installed package's path (`node_modules/`, `site-packages/`) is
    not the tree's to hold."""
    missing = []
    for path in task_terms(task)[0]:
        parts = path.split("/")
        if "." not in parts[-1] or any(p in ("node_modules", "site-packages", "dist-packages") for p in parts):
            continue
        tails = ["/".join(named.split("/")[-2:]) for named in (path, *typescript_sources(path))]
        held = any(
            conn.execute(
                "SELECT 1 FROM files WHERE path = ? OR path LIKE ? ESCAPE '\\' LIMIT 1",
                (tail, "%/" + lookups.like_escaped(tail)),
            ).fetchone()
            for tail in tails
        )
        if not held:
            missing.append(path)
    return missing


HOLDER_KINDS = (*TYPE_KINDS, "impl", "module", "namespace")  # what a `::` path's member may be in
# A capitalized word that is no part of a name, path or quote (`Content-Type`, `Data.load`, `Foo::bar`, `'Data'`).
# Tried and not kept (2026-12-05): an all-capitals word too (`Default for KA`, hyper's keep-alive struct), still
# naming a type only where one type alone has the name. localize_bench --vectors: hyper s@10 .59 -> .60 (the KA task,
# read before the rule was written), nothing else of any repository, no hold-out, moved. Again on 2026-12-06 over the
# 300-task lists in process: hyper s@10 .612 -> .622, the hold-out sqlalchemy .660 -> .663 Acc@1, but on its first 100
# (localize_bench --vectors) sqlalchemy symbol Acc@5 .62 -> .60: one task each way, on a rule a dev task suggested.
# Nor the inherent `impl X` blocks of such a type credited as it is (`Add app_data method to GuardContext`, 2026-12-06,
# in process, 300 tasks): every dev figure the same, the hold-out axum .556 -> .552 Acc@1, symbol Acc@10 .638 -> .630.
_CAPITALIZED = re.compile(r"(?<![\w`'\".:/-])([A-Z][a-z0-9]+)(?![\w`'\"(:/-]|\.\w)")
_SENTENCE_END = ".!?:-*"  # what a sentence's (or a list item's) first word follows


def capitalized_types(conn: sqlite3.Connection, task: str, names: Iterable[str] = ()) -> list[SymbolRow]:
    """The types a capitalized word inside a sentence names (`docs: fix Data doc`: the struct Data; `Support
    Cookie CHIPS`: the class Cookie), where one type alone has that exact name. A sentence's first word (`Fix
    ...`, `Data is ...`) names none, and a word the task names as an identifier is left to `named_symbols`.
    localize_bench --vectors pack file Acc@1/@5 (credited as a name, NAME_BONUS; 20 the same): hold-out httpx
    .67 -> .69 Acc@1, dev hyper .52 -> .54, actix .41 -> .42, nothing lower, no Acc@5 moved. Where up to three
    types have the name, the hold-out axum .56 -> .57 as well; but where the server's and the client's http2.rs
    each have a Builder (tests/test_ranking.py, as hyper has), `feat(server): ... http2 Builder` went to the
    client's: both gained alike, and the client's has more of the task's words."""
    text = _without_links(task)
    skip = set(names)
    found: list[SymbolRow] = []
    for m in _CAPITALIZED.finditer(text):
        word = m.group(1)
        before = text[max(0, m.start() - 8) : m.start()].rstrip()
        if word in skip or not before or before[-1] in _SENTENCE_END:
            continue
        skip.add(word)
        rows = conn.execute(
            f"SELECT * FROM symbols WHERE name = ? AND kind IN ({', '.join('?' * len(TYPE_KINDS))}) LIMIT 2",
            (word, *TYPE_KINDS),
        ).fetchall()
        if len(rows) == 1:
            found.append(lookups.symbol_dict(rows[0]))
        if len(skip) > MAX_NAMED:
            break
    return found


def commit_ids(task: str) -> list[str]:
    """The ids of the commits the task names, as written (a link's, another repository's commit, aside)."""
    return list(dict.fromkeys(_COMMIT_ID.findall(_without_links(task))))


def without_commit_ids(task: str) -> str:
    """The task less the commit ids it names: `1049dd6b2a36` read as words is `1049`, `dd`, `363`, `ef`, ..."""
    return _COMMIT_ID.sub(" ", task)


def _without_links(task: str) -> str:
    """The task less its links and the issues it closes, which name a host and an issue, not code."""
    return _CLOSING.sub(" ", _URL.sub(" ", task))


def named_symbols(conn: sqlite3.Connection, name: str, *, holder: bool = True) -> list[SymbolRow]:
    """Symbols an identifier of the task names: by id, qualified name, module-qualified name or name. A call
    names its function (`max_header_list_size(num)`); Rust's and C++'s `::` qualifies as `.` does. Of the
    symbols of that name, a qualifier keeps those it names (`http2::Builder`: the Builder of http2.rs, not of
    http1.rs; `Service::call`: Service's); a member not there yet (`Builder::ignore_invalid_headers`, the method
    the change adds) names what holds it, and one that names none of them (`request.headers`, a variable's) names
    nothing. Quoted text with spaces in it (`toJSONObject util`) is a phrase, not a name: its words rank it.
    localize_bench --vectors pack file Acc@1/@5 (before: a call named nothing, `::` was not `.`, a qualifier was
    not read): undici .55 -> .58 Acc@1, symbol Acc@10 .67 -> .72, ripgrep .53 -> .54, werkzeug .90 -> .89 Acc@5,
    pino .56 -> .55; hold-outs sqlalchemy .72/.90 -> .75/.92, httpx .65 -> .66, axum .53 -> .54, gin .71 -> .70
    (a qualifier kept unread, names of none kept as before: sqlalchemy .72/.91, undici .56). Type arguments
    stripped and `T` naming nothing (it named hyper's six `impl ... for T`): hyper Acc@5 .80 -> .81, the rest the
    same. `Class#method` read as Ruby's and Java's docs write a method, and a qualifier naming any enclosing holder
    (before, `Rack::Request#POST` named every `module Rack` of rack): localize_bench --vectors rack .63 -> .64 Acc@1,
    symbol Acc@5 .40 -> .45; the hold-outs jekyll symbol Acc@5 .58 -> .59, gson Acc@10 .65 -> .66, and in process
    over all eleven (1,009 tasks) file Acc@1 .648 -> .649; every other dev figure the same."""
    name = name.strip()
    if name.endswith(")") and "(" in name:  # a call's arguments (`(num)`): the name is before them
        name = name[: name.index("(")]
    while _TYPE_ARGUMENTS.search(name):  # `TrySendError<T>`, `collect::<Vec<_>>`: the type's or function's name
        name = _TYPE_ARGUMENTS.sub("", name)
    name = name.rstrip(":")
    if len(name) < 2 or len(name.split()) > 1:  # `T` (`the T-typed message`) is a type parameter: no code
        return []
    found = _the_symbol(conn, name)
    joined = _MEMBER_JOIN.sub(".", name)
    if found is None and joined != name:
        found = _the_symbol(conn, joined)
    if found is not None:
        return [found]
    *qualifiers, short = joined.split(".")
    rows = [
        lookups.symbol_dict(r)
        for r in conn.execute(
            "SELECT * FROM symbols WHERE name = ? ORDER BY length(path), path LIMIT ?", (short, MAX_SAME_NAME)
        )
    ]
    if not rows and qualifiers and holder:  # one step out only: `a.b.c...` of 10k parts is no 10k lookups
        holders = named_symbols(conn, ".".join(qualifiers), holder=False)
        # `::` qualifies by a module or a type, never a function (`body::to_bytes_limited` is no method named body,
        # but a function of the module body); a `.` may follow a function in JavaScript (`fastify.addHook`). Tried and
        # not kept (2026-12-06): a Python function no holder (`request.META`, a request's attribute, named
        # hc/lib/curl.py's `request`): localize_bench --vectors the same but the hold-out sqlalchemy .92 -> .90 Acc@5.
        if joined != name:  # `::` and `#` follow a module or a type
            holders = [r for r in holders if r["kind"] in HOLDER_KINDS]
        return [*holders, *_inherent_impls(conn, holders)][:MAX_NAMED_SYMBOLS]
    if qualifiers:
        rows = [r for r in rows if _qualified_by(r, qualifiers[-1])]
    return rows[:MAX_NAMED_SYMBOLS]


def in_scope(symbols: list[SymbolRow], scope: str | None) -> list[SymbolRow]:
    """Of the symbols a name has in several files, those filed under a folder the commit's scope names
    (`feat(server): add http1::Builder::...`: the Builder of src/server/conn/http1.rs, not of
    src/client/conn/http1.rs), where some but not all are; else all of them. Over the dev repositories' 300-task
    lists it applies 31 times, and 24 of those tasks change the file it keeps (hyper 10 of 10, typeorm 7 of 9,
    ripgrep 4 of 4), 3 also a file it drops; among the hold-outs' it applies once (axum). localize_bench
    --vectors pack file Acc@1: hyper .54 -> .55 (--tasks 300: .57 -> .59), the rest the same: the evidence
    said "named in the task" of the server's Builder and the client's alike."""
    key = squashed(scope or "")
    if not key:
        return symbols
    inside = [s for s in symbols if key in {squashed(folder) for folder in s["path"].split("/")[:-1]}]
    return inside if inside and len(inside) < len(symbols) else symbols


def _inherent_impls(conn: sqlite3.Connection, holders: list[SymbolRow]) -> list[SymbolRow]:
    """Where a Rust type's new method goes: its own `impl Type` blocks in its file, not a trait's `impl ... for
    Type` (`add HttpRequest::full_url()` edits request.rs's `impl HttpRequest`, and the struct's body stays as it
    is). A holder that is an impl already, or of another language, adds nothing. localize_bench in process:
    actix-web symbol Acc@10 .48 -> .50, every other figure the same, hold-outs included."""
    found: list[SymbolRow] = []
    for holder in holders:
        if holder["language"] != "rust" or holder["kind"] not in TYPE_KINDS:
            continue
        scope = holder["qualname"].rpartition(".")[0]
        inherent = f"{scope}.impl {holder['name']}" if scope else f"impl {holder['name']}"
        rows = conn.execute(
            "SELECT * FROM symbols WHERE path = ? AND qualname = ? AND kind = 'impl' ORDER BY start_line",
            (holder["path"], inherent),
        )
        found.extend(r for r in map(lookups.symbol_dict, rows) if r not in holders and r not in found)
    return found


def _the_symbol(conn: sqlite3.Connection, ref: str) -> SymbolRow | None:
    """The one symbol `ref` names by id or qualified name; None for a name several symbols have (each ranks by
    its name) or none."""
    try:
        return lookups.match_symbol(conn, ref)
    except lookups.NotFound:
        return None


def _qualified_by(symbol: SymbolRow, qualifier: str) -> bool:
    """Whether `qualifier` names what holds the symbol: its class or type, its module (the file's name) or a
    package it is in (a folder on its path: `click.prompt` is src/click/termui.py's, which click re-exports).
    A Rust test file (tests/client.rs) is a crate of its own, no module of the library: `hyper::client::conn`
    is not its `mod conn`."""
    # What holds it at any depth: `Multipart::Parser` is Rack.Multipart.Parser, `Request#POST` Rack.Request.Helpers.POST
    if qualifier in symbol["qualname"].split(".")[:-1]:
        return True
    if symbol["language"] == "rust" and lookups.is_test_path(symbol["path"]):
        return False
    return qualifier == _file_stem(symbol["path"]) or qualifier in symbol["path"].split("/")[:-1]


def _file_stem(path: str) -> str:
    """A file's name without its folders or extensions: src/click/termui.py -> termui, index.d.ts -> index."""
    return path.rsplit("/", 1)[-1].split(".", 1)[0]


def named_path(conn: sqlite3.Connection, ref: str, project: str | None = None) -> str | None:
    """The file a path or module name of the task names; a bare file name (`_reloader.py`) names the one
    indexed file of that name, or of several the one that is code (lib/transport.js, not examples/), and none
    where several code files have it (a workspace's crates' `mod.rs`: which one would be a guess, said as
    `named in the task`); a path under the project's own name (`pino/file`, as its users import it) names the
    file under the root, and a bare module name its module in the project's package (`utils`: click.utils)."""
    try:
        return lookups.resolve_path(conn, ref)
    except lookups.NotFound:
        pass
    if project is not None and ref.lower().startswith(project + "/"):
        return named_path(conn, ref[len(project) + 1 :])
    if project is not None and ref.isidentifier():  # `utils`: the project's module of that name (click.utils)
        try:
            return lookups.resolve_path(conn, f"{project}.{ref}")
        except lookups.NotFound:
            pass
    if "." not in ref.rsplit("/", 1)[-1]:
        if "/" not in ref:
            return None  # a module name resolve_path did not know, not a file name
        # A path without its extension, in any case (LIKE ignores it): `fix(core/axios)` names lib/core/Axios.js.
        patterns = ("%" + lookups.like_escaped("/" + ref) + ".%", lookups.like_escaped(ref) + ".%")
    else:
        patterns = ("%" + lookups.like_escaped("/" + ref), "")
    found = [
        str(row[0])
        for row in conn.execute(
            "SELECT path FROM files WHERE status = 'indexed' AND (path LIKE ? ESCAPE '\\' OR path LIKE ? ESCAPE '\\')",
            patterns,
        )
    ]
    if len(found) > 1:  # the one of them that is code (lib/transport.js, not examples/transport.js), or none
        kinds = indexed_kinds(conn)
        found = [p for p in found if kinds.get(p) == "code"]
    if not found:  # `source/core/index.js` of a TypeScript project: its source/core/index.ts
        return next(filter(None, (named_path(conn, source, project) for source in typescript_sources(ref))), None)
    return found[0] if len(found) == 1 else None


# TypeScript's module resolution: an import of `./x.js` (as ESM code spells it) is x.ts or x.tsx, `.mjs` `.mts`, and
# `.cjs` `.cts`; a task or a stack trace names the JavaScript the source compiles to as often.
_TYPESCRIPT_SOURCES = {".js": (".ts", ".tsx"), ".jsx": (".tsx",), ".mjs": (".mts",), ".cjs": (".cts",)}


def typescript_sources(path: str) -> list[str]:
    """The TypeScript files a JavaScript path may be compiled from (`source/index.js`: source/index.ts, .tsx)."""
    stem, dot, extension = path.rpartition(".")
    return [stem + source for source in _TYPESCRIPT_SOURCES.get(dot + extension, ())] if dot else []


_FUNCTION_NAME = re.compile(r"[a-z_][a-z0-9_]*")


def named_module(conn: sqlite3.Connection, ref: str, project: str | None = None) -> str | None:
    """The file a Rust module path names: `common::task` src/common/task.rs, `common::mod` and `proto::h2`
    their folder's mod.rs, `axum_core::extract` a workspace crate's axum-core/src/extract/mod.rs; one led by
    `crate`, `self`, `super` or the crate's name is read without it (`crate::body`: src/body/mod.rs). Asked of
    a `::` name no symbol has. localize_bench --vectors pack file Acc@1/@5: hyper .38/.73 -> .40/.74 (--tasks 300
    .42 -> .43 Acc@1); ripgrep and the hold-out axum the same. A function no module has yet names the module it
    goes in (`body::to_bytes_limited`: body/mod.rs; actix-web .66 -> .67 Acc@5, the rest the same). A module of a
    crate's root may be a file of its own (`rt::spawn`: actix-web/src/rt.rs; actix-web .43/.67 -> .44/.68, the rest
    the same, --tasks 300 too)."""
    parts = [p for p in ref.split("::") if p]
    led = bool(parts) and parts[0] in ("crate", "self", "super", project)
    parts = parts[1:] if led else parts
    if len(parts) < (1 if led else 2):  # `foo::bar` or `crate::foo`; a bare `foo` is a name
        return None
    paths = ["/".join(parts)]
    if len(parts) > 1:  # a workspace crate's module: axum_core::extract, under axum-core/src/
        paths.append(f"{parts[0].replace('_', '-')}/src/{'/'.join(parts[1:])}")
    else:  # `crate::rt`, or `rt::spawn` below: a module of a crate's root, src/rt.rs (or src/rt/mod.rs)
        paths.append(f"src/{parts[0]}")
    for path in paths:
        found = named_path(conn, path) or named_path(conn, path + "/mod")
        if found is not None:
            return found
    if len(parts) > 1 and _FUNCTION_NAME.fullmatch(parts[-1]):  # `body::to_bytes_limited`, the function a change
        return named_module(conn, "::".join(["crate", *parts[:-1]]), project)  # adds: the module it goes in
    return None


def commit_scope(task: str) -> str | None:
    """The scope of a conventional commit's subject (`fix(mock utils): ...` -> `mock utils`), if it has one."""
    m = _SCOPE.match(task)
    return m.group(1).strip() if m else None


def leading_part(task: str) -> str | None:
    """The part a subject starts with, when that is not a type of change (ripgrep's `ignore/types: add verilog`
    -> `ignore/types`; `docs: ...` has none). A scope only where the project's commits use it so: a task
    starting `Error: ...` need not mean the error module (history_rank.task_scope)."""
    m = _LEADING_PART.match(task)
    return m.group(1) if m and m.group(1).lower() not in CHANGE_TYPES else None


def squashed(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def scope_files(scope: str, paths: Iterable[str]) -> list[str]:
    """The files of `paths` a commit's scope names: each whose name, case and separators aside, is the scope
    (`Headers`: lib/fetch/headers.js; `mock utils`: lib/mock/mock-utils.js; `Request`: both request.js of
    undici). A folder (`sap`: src/driver/sap/) is not taken: it names every file in it alike, and the ranking
    already counts its name among the task's words; taken too, typeorm's `--tasks 300` list lost a task at
    Acc@1 and one at Acc@5 (`feat(migration)` went to src/migration/ from the command it changes).
    Nor a workspace crate's root file, named by the scope, a `[awc]` prefix or a crate's name in the text
    (`... in actix-test`: actix-test/src/lib.rs, credit 5 or 15): localize_bench --vectors pack file Acc@1/@5,
    ripgrep .73/.95 -> .75/.96, actix-web .42/.67 -> .45/.69; the hold-out axum unchanged (.56/.72, --tasks 300
    .54/.71), where 1 of the 5 tasks naming a crate changes its root, against 8 of 36 in ripgrep. The member
    of a workspace a task names keeps the ranking to its files instead (ranking.OUTSIDE_MEMBER_FACTOR)."""
    key = squashed(scope)
    return [p for p in paths if key and key == _squashed_name(p)]


@functools.lru_cache(maxsize=1 << 16)  # every file of the project, for each task with a scope
def _squashed_name(path: str) -> str:
    return squashed(_file_stem(path))


def named_packages(conn: sqlite3.Connection, task: str) -> dict[str, list[str]]:
    """The packages of others the task names (`replace glob with tinyglobby`, `Move from fastify-warning to
    process-warning`), each with the code files (tests aside) importing it, where at most FEW_IMPORTING_FILES
    do: a change to how a dependency is used goes where it is imported. A standard library's module is left
    out, and so is what the project itself holds (an import the index resolved to a file)."""
    task = _without_links(task)
    spelled = {_package_key(m.group(0).rstrip(".-")) for m in _PACKAGE_TOKEN.finditer(task)}
    importers = held_while_unchanged(conn, "package importers", lambda: _package_importers(conn))
    return {p: importers[p] for p in sorted(spelled) if p in importers}


def _package_importers(conn: sqlite3.Connection) -> dict[str, list[str]]:
    """Each package imported from outside the project (its key) -> the code files importing it, for the
    packages FEW_IMPORTING_FILES files at most import."""
    rows = conn.execute(
        "SELECT DISTINCT i.path, i.module, i.names, i.target, f.language FROM resolved_imports i"
        " JOIN files f ON f.path = i.path WHERE f.status = 'indexed'"
    ).fetchall()
    not_crates = _rust_not_crates(rows)
    found: dict[str, set[str]] = {}
    for path, module, _, target, language in rows:
        package = _package_of(module, language) if target is None else None
        if package is None or lookups.is_test_path(path) or (path, package) in not_crates:
            continue
        found.setdefault(_package_key(package), set()).add(path)
    return {p: sorted(files) for p, files in found.items() if len(files) <= FEW_IMPORTING_FILES}


def _rust_not_crates(rows: list[sqlite3.Row]) -> set[tuple[str, str]]:
    """What a Rust file's `use` starts with that names no crate of others, as (file, name): a name in scope (`use
    std::io;` then `use io::Read`, `use Encoding::*` of an enum), and the project's own name, which its crates
    share and its tasks all say (`actix` of actix-web and actix-http, a crate of others as well)."""
    own = {m.split("::", 1)[0] for _, m, _, target, lang in rows if lang == "rust" and target is not None}
    prefixes = {re.split(r"[_-]", c, maxsplit=1)[0] for c in own - RUST_NOT_CRATES if re.search(r"[_-]", c)}
    in_scope: dict[str, set[str]] = {}
    for path, _, names, _, lang in rows:
        if lang == "rust":
            in_scope.setdefault(path, set()).update(stored_list(names))
    return {
        (path, first)
        for path, module, _, target, lang in rows
        if lang == "rust"
        and target is None
        and ((first := module.split("::", 1)[0]) in prefixes or first in in_scope[path] or not first.islower())
    }


def _package_of(module: str, language: str | None) -> str | None:
    """The package an import names (`@scope/name/sub` -> `@scope/name`, `email.mime` -> `email`, Rust's
    `v_htmlescape::escape` -> `v_htmlescape`), or None for a relative import or a standard library's module.
    Rust's crates since 2026-12-06 (`remove direct dep on ahash`, `upgrade v_htmlescape`), in process over the
    300-task lists, pack file Acc@1/@5 and symbol Acc@10: actix-web .524/.729 .546 -> .529/.735 .556, hyper .570 ->
    .577 Acc@1, ripgrep the same, the hold-out tokio .850/.650 -> .853/.656 Acc@5 and s@10, axum the same. On the
    first 100 (localize_bench --vectors) one task of actix-web fell from first to second, `prefer brotli over zstd`
    (the files using zstd came first); every other figure the same. Before the names in scope and the project's own
    name were left out (_rust_not_crates), `Documentation for actix multipart` went to the files using the actor
    crate `actix`."""
    if module.startswith((".", "/", "node:")) or not module:
        return None
    if language == "python":
        package = module.split(".", 1)[0]
        return None if package in PYTHON_STANDARD else package
    if language == "rust":  # `use v_htmlescape::escape`: the crate, which a task spells as Cargo.toml does
        package = module.split("::", 1)[0]
        return None if package in RUST_NOT_CRATES else package
    if language not in JAVASCRIPT_FAMILY:
        return None  # Go's `github.com/...`, C's headers: no task spells them as a package
    parts = module.split("/")
    package = "/".join(parts[:2]) if module.startswith("@") and len(parts) > 1 else parts[0]
    return None if package in NODE_BUILTINS else package


def _package_key(name: str) -> str:
    """PyPI's normalized name: case, `_` and `-` aside (`charset_normalizer` is `charset-normalizer`)."""
    return name.lower().replace("_", "-")
