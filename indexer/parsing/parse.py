"""Which grammar reads a file, and a parse bounded in time; queries per language, cached."""

from __future__ import annotations

import functools
import re
import threading
import time
from importlib import resources
from pathlib import PurePosixPath

from tree_sitter import Language, Node, Parser, Query, QueryCursor, Tree
from tree_sitter_language_pack import get_language

from . import fallback

PARSE_SECONDS = 5.0  # a grammar that has not finished by then is treated as hung
_READ_CHUNK = 1 << 16

# Languages with definition/reference queries of our own in data/queries/<name>.scm.
QUERY_LANGUAGES = frozenset(
    {
        "python",
        "javascript",
        "typescript",
        "tsx",
        "go",
        "rust",
        "java",
        "c",
        "cpp",
        "ruby",
    }
)

EXTENSIONS: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".pyw": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".c++": "cpp",
    ".hh": "cpp",
    ".hpp": "cpp",
    ".hxx": "cpp",
    ".ipp": "cpp",
    ".inl": "cpp",
    ".rb": "ruby",
    ".rake": "ruby",
    ".gemspec": "ruby",
    ".cs": "csharp",
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".scala": "scala",
    ".sc": "scala",
    ".swift": "swift",
    ".php": "php",
    ".lua": "lua",
    ".luau": "luau",
    ".pl": "perl",
    ".pm": "perl",
    ".r": "r",
    ".jl": "julia",
    ".hs": "haskell",
    ".ml": "ocaml",
    ".mli": "ocaml_interface",
    ".ex": "elixir",
    ".exs": "elixir",
    ".erl": "erlang",
    ".hrl": "erlang",
    ".clj": "clojure",
    ".cljs": "clojure",
    ".edn": "clojure",
    ".el": "elisp",
    ".lisp": "commonlisp",
    ".scm": "scheme",
    ".rkt": "racket",
    ".fnl": "fennel",
    ".janet": "janet",
    ".dart": "dart",
    ".zig": "zig",
    ".nim": "nim",
    ".v": "v",
    ".d": "d",
    ".odin": "odin",
    ".hare": "hare",
    ".gleam": "gleam",
    ".elm": "elm",
    ".purs": "purescript",
    ".fs": "fsharp",
    ".fsi": "fsharp_signature",
    ".groovy": "groovy",
    ".gradle": "groovy",
    ".m": "objc",
    ".mm": "objc",
    ".cu": "cuda",
    ".glsl": "glsl",
    ".hlsl": "hlsl",
    ".wgsl": "wgsl",
    ".ispc": "ispc",
    ".sol": "solidity",
    ".sh": "bash",
    ".bash": "bash",
    ".zsh": "bash",
    ".fish": "fish",
    ".ps1": "powershell",
    ".tcl": "tcl",
    ".vim": "vim",
    ".sql": "sql",
    ".graphql": "graphql",
    ".gql": "graphql",
    ".proto": "proto",
    ".thrift": "thrift",
    ".capnp": "capnp",
    ".prisma": "prisma",
    ".smithy": "smithy",
    ".tf": "terraform",
    ".hcl": "hcl",
    ".nix": "nix",
    ".bicep": "bicep",
    ".rego": "rego",
    ".jsonnet": "jsonnet",
    ".libsonnet": "jsonnet",
    ".star": "starlark",
    ".bzl": "starlark",
    ".cmake": "cmake",
    ".mk": "make",
    ".meson": "meson",
    ".ninja": "ninja",
    ".gd": "gdscript",
    ".hx": "haxe",
    ".pony": "pony",
    ".apex": "apex",
    ".cls": "apex",
    ".ada": "ada",
    ".adb": "ada",
    ".ads": "ada",
    ".f90": "fortran",
    ".f95": "fortran",
    ".f03": "fortran",
    ".f": "fortran",
    ".for": "fortran",
    ".cob": "cobol",
    ".cbl": "cobol",
    ".pas": "pascal",
    ".pp": "pascal",
    ".vhd": "vhdl",
    ".vhdl": "vhdl",
    ".sv": "verilog",
    ".svh": "verilog",
    ".vh": "verilog",
    ".tex": "latex",
    ".bib": "bibtex",
    ".typ": "typst",
    ".html": "html",
    ".htm": "html",
    ".vue": "vue",
    ".svelte": "svelte",
    ".astro": "astro",
    ".css": "css",
    ".scss": "scss",
    ".twig": "twig",
    ".heex": "heex",
    ".erb": "embeddedtemplate",
    ".ejs": "embeddedtemplate",
    ".json": "json",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".toml": "toml",
    ".xml": "xml",
    ".ini": "ini",
    ".cfg": "ini",
    ".properties": "properties",
    ".kdl": "kdl",
    ".ron": "ron",
    ".md": "markdown",
    ".markdown": "markdown",
    ".rst": "rst",
    ".org": "org",
    ".csv": "csv",
    ".tsv": "tsv",
    ".psv": "psv",
    ".dtd": "dtd",
    ".ll": "llvm",
    ".td": "tablegen",
    ".wat": "wat",
    ".wast": "wast",
    ".asm": "asm",
    ".s": "asm",
    ".agda": "agda",
    ".cairo": "cairo",
    ".clar": "clarity",
    ".fc": "func",
    ".move": "move",
    ".magik": "magik",
    ".sparql": "sparql",
    ".qml": "qmljs",
    ".re": "re2c",
    ".smali": "smali",
    ".tal": "uxntal",
    ".pgn": "pgn",
    ".po": "po",
    ".pem": "pem",
    ".mermaid": "mermaid",
    ".mmd": "mermaid",
    ".beancount": "beancount",
    ".ino": "arduino",
    ".nqc": "nqc",
    ".yuck": "yuck",
    ".puppet": "puppet",
    ".squirrel": "squirrel",
    ".nut": "squirrel",
    ".matlab": "matlab",
    ".hack": "hack",
    ".linkerscript": "linkerscript",
    ".ld": "linkerscript",
    ".kconfig": "kconfig",
    ".firrtl": "firrtl",
    ".bb": "bitbake",
    ".bbappend": "bitbake",
    ".bsl": "bsl",
    ".cpon": "cpon",
    ".chatito": "chatito",
    ".gn": "gn",
    ".gni": "gn",
    ".as": "actionscript",
    ".hypr": "hyprlang",
    ".netlinx": "netlinx",
    ".axs": "netlinx",
    ".ungram": "ungrammar",
    ".udev": "udev",
    ".rules": "udev",
}

FILENAMES: dict[str, str] = {
    "Dockerfile": "dockerfile",
    "Makefile": "make",
    "GNUmakefile": "make",
    "makefile": "make",
    "CMakeLists.txt": "cmake",
    "Rakefile": "ruby",
    "Gemfile": "ruby",
    "BUILD": "starlark",
    "WORKSPACE": "starlark",
    "BUILD.bazel": "starlark",
    "go.mod": "gomod",
    "go.sum": "gosum",
    "meson.build": "meson",
    "requirements.txt": "requirements",
    ".gitignore": "gitignore",
    ".gitattributes": "gitattributes",
    "Kconfig": "kconfig",
    "MANIFEST.in": "pymanifest",
}


class ParseFailed(Exception):
    """The grammar could not produce a tree within its bounds; `reason` is recorded as the skip."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


def language_for(path: str) -> str | None:
    """The grammar for a repo-relative path, by file name then extension; None if none fits."""
    pure = PurePosixPath(path)
    if pure.name in FILENAMES:
        return FILENAMES[pure.name]
    if pure.name.startswith("Dockerfile"):
        return "dockerfile"
    return EXTENSIONS.get(pure.suffix.lower())


# The command a script's `#!` line runs, by its name without a version (python3.12, ruby3.3, perl5.36), and the grammar
# that reads it: each one a grammar of EXTENSIONS' (tests/test_shebang.py). A TypeScript runner's script is TypeScript.
INTERPRETERS: dict[str, str] = {
    "python": "python",
    "pypy": "python",
    "ruby": "ruby",
    "jruby": "ruby",
    "node": "javascript",
    "nodejs": "javascript",
    "bun": "javascript",
    "deno": "javascript",
    "ts-node": "typescript",
    "tsx": "typescript",
    "sh": "bash",
    "bash": "bash",
    "zsh": "bash",
    "dash": "bash",
    "ksh": "bash",
    "mksh": "bash",
    "ash": "bash",
    "fish": "fish",
    "pwsh": "powershell",
    "perl": "perl",
    "php": "php",
    "lua": "lua",
    "luajit": "lua",
    "Rscript": "r",
    "tclsh": "tcl",
    "wish": "tcl",
    "julia": "julia",
    "elixir": "elixir",
    "escript": "erlang",
    "runghc": "haskell",
    "runhaskell": "haskell",
    "scala": "scala",
    "groovy": "groovy",
    "kotlin": "kotlin",
    "swift": "swift",
    "bb": "clojure",
    "racket": "racket",
    "guile": "scheme",
    "make": "make",
}
_SHEBANG_BYTES = 256  # as much of a `#!` line as Linux reads (BINPRM_BUF_SIZE)
_VERSION = re.compile(r"[\d.]+$")


# A project's documents with no extension, which are never scripts: they need not be read to be skipped (history reads
# every version of a CHANGES file otherwise: sinatra's has 175).
_DOCUMENTS = frozenset(
    "README LICENSE LICENCE COPYING NOTICE PATENTS AUTHORS CONTRIBUTORS MAINTAINERS CODEOWNERS OWNERS CREDITS THANKS"
    " CHANGES CHANGELOG HISTORY NEWS UPGRADING INSTALL TODO VERSION MANIFEST SECURITY KNOWN_ISSUES".split()
)


def _by_shebang(path: str) -> bool:
    """A file with no extension and no name FILENAMES knows (bin/rails, exe/rake): only its `#!` line can say."""
    pure = PurePosixPath(path)
    return not pure.suffix and language_for(path) is None and pure.name.upper() not in _DOCUMENTS


def _interpreter_language(data: bytes) -> str | None:
    """The grammar of the command a `#!` line runs: `#!/usr/bin/ruby -w`, `#!/usr/bin/env python3`,
    `#!/usr/bin/env -S node --no-warnings`; None without such a line or with a command INTERPRETERS lacks."""
    if not data.startswith(b"#!"):
        return None
    words = data[2:_SHEBANG_BYTES].split(b"\n", 1)[0].decode("utf-8", "replace").split()
    command = words[0] if words else ""
    if PurePosixPath(command).name == "env":  # its options (-S, -i) and settings (LANG=C) come before the command
        command = next((w for w in words[1:] if not w.startswith("-") and "=" not in w), "")
    return INTERPRETERS.get(_VERSION.sub("", PurePosixPath(command).name))


def may_have_language(path: str) -> bool:
    """Whether language_of can find a grammar for a file at this path: its name or extension names one, or it has
    no extension and its `#!` line may. A file for which this is False need not be read to be skipped."""
    return language_for(path) is not None or _by_shebang(path)


# A `.h` header is C, C++ or Objective-C, which only its text tells; these are the markers GitHub's linguist reads
# (its heuristics.yml), anchored to a line's start so that a comment or a string rarely fakes them. Read with the
# C grammar, a C++ header loses its classes: leveldb's db/db_impl.h came out as four symbols, one a run of
# method declarations read as a single function.
_OBJC_HEADER = re.compile(
    rb"^[ \t]*(@(interface|class|protocol|property|end|synchronised|selector|implementation)\b|#import\s+.+\.h[\">])",
    re.M,
)
_CPP_HEADER = re.compile(
    rb"^[ \t]*#[ \t]*include[ \t]*<(cstdint|string|vector|map|list|array|bitset|queue|stack|forward_list"
    rb"|unordered_map|unordered_set|memory|utility|(i|o|io)stream)>"
    rb"|^[ \t]*template[ \t]*<|^[ \t]*(try|constexpr)\b|^[ \t]*catch[ \t]*\("
    rb"|^[ \t]*(class|(using[ \t]+)?namespace)[ \t]+\w+|^[ \t]*(private|public|protected):[ \t]*$"
    rb"|__has_cpp_attribute|\bstd::\w",
    re.M,
)
_HEADER_SNIFF_BYTES = 1 << 16
# Not read for markers: comments ("try to port your code" in Python's unicodeobject.h) and what only a C++ compiler
# sees (`#ifdef __cplusplus` / `class GLUnurbs;` / `#else` in GL/glu.h, a C header).
_NOT_MARKERS = re.compile(
    rb"/\*.*?\*/|//[^\n]*"
    rb"|^[ \t]*#[ \t]*if(?:def)?\b(?![^\n]*__cplusplus[ \t]*[<>=!])[^\n]*\b__cplusplus\b[^\n]*\n.*?"
    rb"^[ \t]*#[ \t]*(?:else|elif|endif)",
    re.S | re.M,
)


def language_of(path: str, data: bytes) -> str | None:
    """The grammar for a file with these bytes: language_for's, except that a `.h` header of C++ or
    Objective-C is read as that language rather than as C, and a script with no extension is read as the
    language of the command its `#!` line runs. The one rule for the work tree and git blobs alike."""
    lang = language_for(path)
    if lang is None:
        return _interpreter_language(data) if _by_shebang(path) else None
    if lang != "c" or PurePosixPath(path).suffix.lower() != ".h":
        return lang
    head = _NOT_MARKERS.sub(b"", data[:_HEADER_SNIFF_BYTES])
    if _OBJC_HEADER.search(head):
        return "objc"
    if _CPP_HEADER.search(head):
        return "cpp"
    return lang


def captured(query: Query, node: Node) -> dict[str, list[Node]]:
    """Each capture's nodes in source order, outer before inner. `QueryCursor.captures` returns them in an order
    that varies with what the process parsed before (py-tree-sitter issue 450), and the refs read bindings in the
    order they come: a file's calls came out differently from one index to the next (hugo's batch.go: 274 or 276)."""
    found = QueryCursor(query).captures(node)
    return {name: sorted(nodes, key=_source_order) for name, nodes in found.items()}


def _source_order(node: Node) -> tuple[int, int]:
    return node.start_byte, -node.end_byte


@functools.cache
def language(name: str) -> Language:
    return get_language(name)  # type: ignore[arg-type]


_THREAD = threading.local()


def _parser(name: str) -> Parser:
    """This thread's parser for the language. A tree-sitter parser must not parse in two threads at once: `annals
    serve` parses in its watcher and in answers that index a file first (indexer/complete.py), and one parser shared
    by all of them crashed the process (SIGSEGV) under bench/load_bench.py."""
    parsers: dict[str, Parser] = _THREAD.__dict__.setdefault("parsers", {})
    if name not in parsers:
        parsers[name] = Parser(language(name))
    return parsers[name]


def parse(source: bytes, lang: str, *, seconds: float = PARSE_SECONDS, old_tree: Tree | None = None) -> Tree:
    """Parse, giving up (ParseFailed) when the grammar runs past `seconds`; `old_tree`, edited to match `source`,
    lets the parser reuse what did not change."""
    deadline = time.monotonic() + seconds

    def read(offset: int, _point: object) -> bytes:
        return source[offset : offset + _READ_CHUNK]

    def over_time(_offset: int, _has_error: bool) -> bool:
        return time.monotonic() > deadline

    try:
        parser = _parser(lang)
        if old_tree is None:  # the binding takes no None for it
            return parser.parse(read, progress_callback=over_time)
        return parser.parse(read, old_tree, progress_callback=over_time)
    except ValueError as exc:
        raise ParseFailed("parse timeout", f"{lang} grammar ran past {seconds:g}s") from exc


_INHERITS = "; inherits:"  # first line of a query that extends another language's (TypeScript: JavaScript)
_NOT_INHERITED = "; not inherited:"  # what follows in a query is for its own grammar only


def _query_text(lang: str, *, inherited: bool = False) -> str | None:
    if lang not in QUERY_LANGUAGES:
        return None
    text = resources.files("codeannals.data").joinpath("queries", f"{lang}.scm").read_text("utf-8")
    if inherited:
        text = text.split(_NOT_INHERITED, 1)[0]
    first = text.split("\n", 1)[0]
    if first.startswith(_INHERITS):
        base = _query_text(first[len(_INHERITS) :].strip(), inherited=True) or ""
        text = base + "\n" + text
    return text


def _definitions_text(lang: str) -> str:
    return _query_text(lang) or fallback.query_text(language(lang))


@functools.cache
def definitions_query(lang: str) -> Query | None:
    """Our own query for the main languages, a query derived from the grammar for the rest."""
    text = _definitions_text(lang)
    return Query(language(lang), text) if text.strip() else None


@functools.cache
def outline_query(lang: str) -> Query | None:
    """The definitions query with its other patterns (calls, imports, `__all__`) turned off."""
    text = _definitions_text(lang)
    if not text.strip():
        return None
    query, raw = Query(language(lang), text), text.encode()
    for pattern in range(query.pattern_count):
        if b"@definition." not in raw[query.start_byte_for_pattern(pattern) : query.end_byte_for_pattern(pattern)]:
            query.disable_pattern(pattern)
    return query


@functools.cache
def comments_query(lang: str) -> Query | None:
    """Every comment-like node of the grammar, for requirement tags and leading comments."""
    grammar = language(lang)
    kinds = {
        grammar.node_kind_for_id(i)
        for i in range(grammar.node_kind_count)
        if grammar.node_kind_is_named(i) and grammar.node_kind_is_visible(i)
    }
    comment_kinds = sorted(k for k in kinds if k and "comment" in k.split("_"))
    text = fallback.possible_patterns(grammar, [f"({kind}) @comment" for kind in comment_kinds])
    return Query(grammar, text) if text else None


def node_text(node: Node, source: bytes, limit: int | None = None) -> str:
    end = node.end_byte if limit is None else min(node.end_byte, node.start_byte + limit)
    return source[node.start_byte : end].decode("utf-8", errors="replace")


_WHITESPACE = frozenset(b" \t\r\n")


def blanked(source: bytes, spans: list[tuple[int, int]]) -> bytes:
    """`source` with every byte of `spans` but line breaks and tabs a space: offsets and lines stay as they are, so
    a tree parsed from it points into `source` (a macro the grammar cannot read, taken out of its way)."""
    out = bytearray(source)
    for start, end in spans:
        for i in range(start, end):
            if out[i] not in _WHITESPACE:
                out[i] = 0x20
    return bytes(out)
