"""What a file is, for ranking: code, declarations, test, docs, configuration, CI, style, generated or
example; the module a stub describes; the files a package's users import it by.

The ranking core (store/ranking.py) ranks code as code: a kind that is not code ranks only when the
task is about it, a stub folds into its module, and a task about exports goes to the entry points.
"""

from __future__ import annotations

import functools
import json
import re
import sqlite3
import tomllib
from pathlib import Path

from .db import snapshot
from .lookups import indexed_paths, is_test_path

# What a file is, for ranking: the languages that are not code, and the words that make a task
# about each kind of non-code file.
DOC_LANGUAGES = frozenset({"markdown", "rst", "org", "latex", "bibtex", "typst", "po"})
CONFIG_LANGUAGES = frozenset(
    {
        "json",
        "yaml",
        "toml",
        "xml",
        "ini",
        "properties",
        "kdl",
        "ron",
        "gitignore",
        "gitattributes",
        "pymanifest",
        "requirements",
        "gomod",
        "gosum",
        "csv",
        "tsv",
        "psv",
        "dockerfile",
        "make",
        "cmake",
        "meson",
        "ninja",
        "starlark",
        "pem",
    }
)
STYLE_LANGUAGES = frozenset({"css", "scss", "html", "twig", "embeddedtemplate"})
KIND_WORDS: dict[str, frozenset[str]] = {
    "docs": frozenset("doc docs documentation readme changelog changes guide tutorial docstring typo".split()),
    "config": frozenset(
        "config configuration setting settings dependency dependencies requirement requirements "
        "package packaging build lint linter mypy flake8 ruff pyproject setup tox version pin "
        "lock".split()
    ),
    "ci": frozenset("ci workflow workflows github action actions pipeline".split()),
    "style": frozenset("css style styles stylesheet template templates html page layout".split()),
    "generated": frozenset("dist build bundle bundles generated vendor vendored minified".split()),
    "example": frozenset("example examples sample samples demo demos tutorial".split()),
    "declarations": frozenset("types typing typings typescript declaration declarations definitions".split()),
}
# A stub folds into the module it describes. Beside it, as before; one module of its name elsewhere
# (`types/reply.d.ts` for `lib/reply.js`): localize_bench pack file Acc@1/@5, MRR: dev unchanged (.57/.86 .69),
# httpx unchanged, fastify .35/.65 .45 -> .37/.68 .48. The name in any case and spelling of its separators
# (`types/content-type-parser.d.ts` for `lib/contentTypeParser.js`): dev (7 repositories) unchanged, httpx
# unchanged, fastify Acc@5 .72 -> .73.
# A stub is declarations, not code: one of no module of its own (`types/fetch.d.ts`, named like the feature
# every fetch task names) ranks only when the task is about types; a test of the types does not vote for it;
# its text is not read as code; and a stub names no example of its name (`types/hooks.d.ts` is
# lib/hooks.js, not examples/hooks.js). localize_bench pack file Acc@1/@5, MRR, symbol Acc@10: dev
# (7 repositories) unchanged, .576/.877 .695 .676; httpx unchanged; fastify .48/.73 .568 .662 -> .54/.77
# .618 .675. (Also leaving stubs out of the nearest symbols and the churn: undici .47/.79 -> .45/.79,
# symbol Acc@10 .49 -> .47.)
STUB_SUFFIXES = ((".pyi", ".py"), (".d.ts", ".ts"), (".d.ts", ".js"))
_STUB_ENDINGS = tuple(dict.fromkeys(stub for stub, _ in STUB_SUFFIXES))
# Built, generated or vendored files (`deps/`, as Node projects keep vendored C: localize_bench undici pack file
# Acc@1/@5 .47/.79 -> .48/.81, the rest unchanged): what the task changes is their source.
_GENERATED = re.compile(
    r"(^|/)(dist|build|_build|deps|vendor|vendored|third_party|node_modules)/|\.min\.[jc]ss?$|"
    r"_pb2(_grpc)?\.pyi?$|\.pb\.go$|(^|[._/-])generated[._/-]"
)
# Nor Django's migrations (`hc/api/migrations/0042_check_kind.py`, written once by `makemigrations` and not edited
# again) as a kind of their own, ranking only when the task says migration (2026-12-06). localize_bench --vectors, pack
# file Acc@1/@5: the hold-out babybuddy .54/.78 -> .54/.79, but the dev healthchecks .49/.80 -> .47/.79 (a migration
# gone from the first five in 4 of its tasks, and the fitted last step's order changed in 5 others); no other
# repository has one.
# Nor folded into their app's models module as a stub is (2026-12-06, `<app>/migrations/0061_x.py` ->
# `<app>/models.py`, the migration's score lifting the models' to it). In process, the ranking's order, file
# Acc@1/@5: the hold-out babybuddy .556/.778 -> .556/.794, but Healthchecks .49/.80 -> .48/.79 (beside the templates'
# fold: .54/.80 -> .52/.80); the models module gained on chores (`Remove unneeded asserts`) as much as where it changed.
# Nor Django's settings modules (`hc/settings.py`, `babybuddy/settings/base.py`) as configuration, ranking only when the
# task is about settings (2026-12-06): among the first five files of 30 Healthchecks tasks that did not change it, first
# in 6, and changed by 6. localize_bench --vectors pack file Acc@1/@5, symbol Acc@10: Healthchecks .49/.80 .63 ->
# .51/.80 .66, but the hold-out babybuddy .56/.78 .53 -> .43/.63 .47.
# Cargo's `benches/` read as examples too (and `bench` a word of the kind): hyper's benches/end_to_end.rs was among
# the first five files of 10 of its tasks. localize_bench --vectors: hyper Acc@1 .56 -> .57 but symbol Acc@10
# .55 -> .52, every other figure the same, hold-outs included (axum has no benches): not kept.
_EXAMPLE = re.compile(r"(^|/)(examples?|samples?|demos?|docs?|benchmarks?)/")
# Code that configures the build or the tools rather than doing the work.
_TOOL_CONFIG = re.compile(
    r"(^|/)([^/]+\.(conf|config)\.[mc]?[jt]s|gulpfile\.[mc]?js|Gruntfile\.[mc]?js|"
    r"noxfile\.py|setup\.py|fabfile\.py|conf\.py)$"
)
# Type declarations kept as TypeScript (`typings.ts`, `bson.typings.ts`: a copy of a dependency's types). localize_bench
# typeorm pack file Acc@1/@5 .53/.82 -> .54/.83 (its 7,000-line mongodb typings.ts was among the first five files of
# tasks about anything); every other repository, hold-outs included, unchanged.
_TYPINGS = re.compile(r"(^|/|\.)typings\.[mc]?ts$")
ENTRY_NAMES = frozenset("index.js index.mjs index.cjs index.ts index.tsx lib.rs".split())
SOURCE_DIRS = ("src/", "lib/", "source/")


@functools.lru_cache(maxsize=65_536)  # asked of every ranked file of every ranking
def file_kind(path: str, language: str | None) -> str:
    """code, declarations, test, docs, config, ci, style, generated or example: by folder and name, then by
    language."""
    if path.startswith((".github/", ".gitlab/", ".circleci/")) or path in (".gitlab-ci.yml", ".travis.yml"):
        return "ci"
    if _GENERATED.search(path):
        return "generated"
    if is_test_path(path):
        return "test"
    if _TOOL_CONFIG.search(path):
        return "config"
    if _EXAMPLE.search(path):
        return "docs" if language in DOC_LANGUAGES else "example"
    if language in DOC_LANGUAGES or path.rsplit("/", 1)[-1].lower().startswith(("readme", "changelog", "changes")):
        return "docs"
    if language in CONFIG_LANGUAGES or path.endswith((".lock", ".cfg")):
        return "config"
    if language in STYLE_LANGUAGES:
        return "style"
    if path.endswith(_STUB_ENDINGS) or _TYPINGS.search(path):  # a stub: what the code declares, not the code
        return "declarations"
    return "code"


def indexed_kinds(conn: sqlite3.Connection) -> dict[str, str]:
    """Each indexed file's kind: `file_kind`'s, or generated where its head says a tool wrote it (a C header a
    script writes, a validator built from a schema) or it is minified (a bundle); kept until the files change (every
    ranking reads them)."""
    query = "SELECT path, language, generated FROM files WHERE status = 'indexed'"

    def build() -> dict[str, str]:
        rows = conn.execute(query)
        return {path: "generated" if generated else file_kind(path, language) for path, language, generated in rows}

    return snapshot(conn, "file kinds", "files", build)


def about_kind(kind: str, path: str, words: set[str], paths: list[str]) -> bool:
    """Whether the task is about this kind of non-code file: it names the file, its name, or the kind."""
    name = path.rsplit("/", 1)[-1].lower()
    # A bundle, an example or declarations are named after the project or the feature (`dist/axios.js`,
    # `types/fetch.d.ts`): its name says nothing about the task; a configuration file's name (`tox`) does.
    named = name.split(".")[0] in words and kind not in ("generated", "example", "declarations")
    return path in paths or named or bool(KIND_WORDS.get(kind, frozenset()) & words)


def entry_files(kinds: dict[str, str], project: str | None) -> list[str]:
    """The files a package's users import it by: `index.*` at the top of the tree or of its source folder, a
    top-level package's `__init__.py`, and a top module named after the project. Not each crate's src/lib.rs
    in a Cargo workspace: localize_bench --vectors, ripgrep .73 -> .74 Acc@1, actix-web and the hold-out axum
    unchanged (--tasks 300 too)."""
    found = []
    for path, kind in kinds.items():
        if kind != "code":
            continue
        inner = path[len(prefix) :] if (prefix := next((d for d in SOURCE_DIRS if path.startswith(d)), "")) else path
        name = inner.rsplit("/", 1)[-1]
        top = "/" not in inner
        if (top and name in ENTRY_NAMES) or (inner.count("/") == 1 and name == "__init__.py"):
            found.append(path)
        elif top and project is not None and name.split(".")[0] == project:
            found.append(path)
    return found


def project_name(root: Path) -> str | None:
    """The project's name as its package.json or pyproject.toml gives it (`@scope/` dropped), if either does."""
    return manifest_name(root / "package.json") or manifest_name(root / "pyproject.toml")


# Each manifest's name as last read, by its file's stamp: every pack asks for the project's name, and parsing
# sqlalchemy's pyproject.toml took 1.1 ms of each.
_MANIFEST_NAMES: dict[Path, tuple[tuple[int, int], str | None]] = {}


def manifest_name(path: Path) -> str | None:
    """The package's name a manifest gives (package.json's `name`, `@scope/` dropped; Cargo.toml's `[package]`
    or pyproject.toml's `[project]` name), lowercase; None where the file has none or cannot be read."""
    try:
        stat = path.stat()
    except OSError:
        return None
    stamp = (stat.st_mtime_ns, stat.st_size)
    held = _MANIFEST_NAMES.get(path)
    if held is not None and held[0] == stamp:
        return held[1]
    name = _read_manifest_name(path)
    _MANIFEST_NAMES[path] = (stamp, name)
    return name


def _read_manifest_name(path: Path) -> str | None:
    table = {"package.json": None, "Cargo.toml": "package", "pyproject.toml": "project"}.get(path.name)
    try:
        text = path.read_text(encoding="utf-8")
        name = json.loads(text).get("name") if table is None else tomllib.loads(text).get(table, {}).get("name")
    except (OSError, ValueError, AttributeError):
        return None
    return name.rsplit("/", 1)[-1].lower() if isinstance(name, str) and name else None


def stub_targets(paths: list[str], indexed: set[str]) -> dict[str, str]:
    """The module each stub among `paths` describes, when both are indexed: `m.pyi` -> `m.py` beside it, else
    the one module of that name elsewhere in the tree (`types/reply.d.ts` -> `lib/reply.js`)."""
    by_name: dict[str, list[str]] | None = None
    targets: dict[str, str] = {}
    for path in paths:
        suffixes = [(stub, real) for stub, real in STUB_SUFFIXES if path.endswith(stub)]
        beside = [t for stub, real in suffixes if (t := path[: -len(stub)] + real) in indexed]
        if beside:
            targets[path] = beside[0]
            continue
        if not suffixes:
            continue
        if by_name is None:
            by_name = {}
            for p in indexed:
                if file_kind(p, None) == "code":  # not a test, nor an example of that name (examples/hooks.js)
                    by_name.setdefault(_spelled_alike(p.rsplit("/", 1)[-1]), []).append(p)
        stem = path.rsplit("/", 1)[-1][: -len(suffixes[0][0])]
        found = {p for _, real in suffixes for p in by_name.get(_spelled_alike(stem + real), ())}
        if len(found) == 1:
            targets[path] = found.pop()
    return targets


def _spelled_alike(name: str) -> str:
    """A file name in any case and spelling of its separators: `content-type-parser.js` is `contentTypeParser.js`."""
    return re.sub(r"[-_]", "", name.lower())


def index_stubs(conn: sqlite3.Connection) -> dict[str, str]:
    """Every stub of the index and the module it describes (`stub_targets` over all indexed files): what the
    ranking folds and the pack names, kept until a file is indexed, skipped or removed."""

    def build() -> dict[str, str]:
        indexed = indexed_paths(conn)
        return stub_targets(sorted(p for p in indexed if p.endswith(_STUB_ENDINGS)), indexed)

    return snapshot(conn, "stubs", "files", build)


def stubs_by_module(conn: sqlite3.Connection) -> dict[str, list[str]]:
    """The stubs describing each module (`lib/reply.js` -> [`types/reply.d.ts`]): the files whose declarations
    an edit of the module's API must keep in step."""
    out: dict[str, list[str]] = {}
    for stub, module in sorted(index_stubs(conn).items()):
        out.setdefault(module, []).append(stub)
    return out
