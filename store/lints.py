"""A task fixing what a linter flags (`remove unneeded return`, `replace manual unwrap_or_else with unwrap_or_default`)
names no file, but the code says where: a linter reports every place its rule matches, and the commit fixing it
changes those. The lints here are a few of clippy's and pyupgrade's, each read from the task by its words and found in
the code by its shape, line by line (a file's text as indexed; no parser): where a task names one and it matches in
few files, those are where the change goes. Only a task asking for one reads the code files of its language.

The words and shapes were read off hyper's tasks (localize_bench) and those of bench/lint_tasks.py's dev repositories;
that bench judges them on 22 other repositories' histories, which no one read task by task."""

from __future__ import annotations

import bisect
import itertools
import re
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from . import lookups, snippets
from .languages import file_languages

# The most lines of a language's code a pack reads to find a lint: sqlalchemy's 226 Python files (211,000 lines) take
# 0.3 s, tokio's Rust 0.2 s; a tree much larger than that (a monorepo) answers without lints rather than in seconds.
MAX_LINES_READ = 500_000
# A lint matching in more files than this (`switch to f-strings` in a project of printf formatting) is a sweep the
# commit does part of: its matches say little about which part.
MAX_FLAGGED = 5


@dataclass(frozen=True)
class Lint:
    name: str  # as its linter names it
    language: str
    asked: re.Pattern[str]  # the task's words asking for the fix (matched on the task in lower case)
    found: Callable[[Sequence[str]], list[int]]  # the 1-based lines of a file's text where it matches
    skipped: re.Pattern[str] | None = None  # the paths it does not read

    def skips(self, path: str) -> bool:
        return self.skipped is not None and self.skipped.search(path) is not None


def _lines_matching(pattern: str, *needles: str) -> Callable[[Sequence[str]], list[int]]:
    """The lines the pattern matches, comments aside. Only the lines holding one of the `needles` (text every match
    holds), found by str.find over the whole text, are searched: a pack reads a whole language's code for a lint, and a
    regular expression tried on each of sqlalchemy's 211,000 lines took 150 ms for the f-strings, these 37 ms."""
    compiled = re.compile(pattern)

    def found(lines: Sequence[str]) -> list[int]:
        text = "\n".join(lines)
        ends = list(itertools.accumulate(len(line) + 1 for line in lines))  # where each line ends, its newline after
        held: set[int] = set()  # 0-based
        for needle in needles:
            at = text.find(needle)
            while at >= 0:
                n = bisect.bisect_right(ends, at)
                held.add(n)
                at = text.find(needle, ends[n])  # on from the next line
        return [n + 1 for n in sorted(held) if compiled.search(lines[n]) and not lines[n].lstrip().startswith("//")]

    return found


_FUNCTION = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const\s+|async\s+|unsafe\s+|extern\s+\"\w+\"\s+)*fn\b")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _needless_returns(lines: Sequence[str]) -> list[int]:
    """`return x;` in a function's tail (clippy::needless_return): its body's last statement, one line or several
    (`return Foo {` ... `};`), or the last statement of an arm or a branch of the `match` or `if` its body ends in."""
    found: list[int] = []
    opened: list[int] = []  # the indents of the functions whose bodies are open
    signature: int | None = None  # the indent of a `fn` whose body has not opened yet
    for n, line in enumerate(lines):
        indent, text = _indent(line), line.strip()
        if _FUNCTION.match(line):
            signature = indent
        if signature is not None and text.endswith("{"):
            opened.append(signature)
            signature = None
        elif signature is not None and text.endswith(";"):  # a trait's method without a body
            signature = None
        elif opened and text == "}" and indent == opened[-1]:
            opened.pop()
            found += [k + 1 for k in _tail_returns(lines, n)]
    return sorted(set(found))


def _opening(lines: Sequence[str], last: int, indent: int) -> int | None:
    """The line opening the chain of blocks (`if ... {`, `} else {`, ... or `match ... {`) that line `last` closes."""
    for k in range(last - 1, -1, -1):
        if lines[k].strip() and _indent(lines[k]) < indent:
            return None
        if _indent(lines[k]) == indent and lines[k].rstrip().endswith("{") and not lines[k].lstrip().startswith("}"):
            return k
    return None


def _tail_returns(lines: Sequence[str], close: int, depth: int = 0) -> list[int]:
    """The returns (0-based lines) in tail position of the block whose closing brace starts line `close`."""
    indent = _indent(lines[close])
    last = next((k for k in range(close - 1, -1, -1) if lines[k].strip()), None)
    if last is None or _indent(lines[last]) <= indent or depth > 3:
        return []
    text = lines[last].strip()
    if text.endswith(";"):
        start = last
        if text[:1] in ("}", ")", "]"):  # the end of a statement of several lines
            start = next((k for k in range(last - 1, -1, -1) if _indent(lines[k]) == _indent(lines[last])), last)
        return [start] if re.match(r"\s*return\b", lines[start]) else []
    if text != "}":
        return []
    inner = _indent(lines[last])  # the block ends in an expression a brace closes: a `match`, an `if`
    header = _opening(lines, last, inner)
    if header is None:
        return []
    head = lines[header].strip()
    if re.match(r"match\b", head):
        arms = [k for k in range(header + 1, last) if lines[k].strip() and _indent(lines[k]) == inner + 4]
        found = [k for k in arms if re.search(r"=>\s*return\b", lines[k])]
        closes = _closers(lines, header + 1, last, inner + 4)
        for k in (k for k in arms if lines[k].rstrip().endswith("{")):  # an arm's block, up to where it closes
            end = next((c for c in closes if c > k), None)
            found += _tail_returns(lines, end, depth + 1) if end is not None else []
        return found
    if re.match(r"(?:else\s+)?if\b", head):  # each branch, closed by `} else {` or the last `}`
        return [k for end in _closers(lines, header + 1, last + 1, inner) for k in _tail_returns(lines, end, depth + 1)]
    return []


def _closers(lines: Sequence[str], first: int, stop: int, indent: int) -> list[int]:
    """The lines from `first` to before `stop` at `indent` that start with a closing brace (`}`, `},`, `} else {`)."""
    return [k for k in range(first, stop) if _indent(lines[k]) == indent and lines[k].lstrip().startswith("}")]


_IMPORT = re.compile(r"^\s*import\s+(.+)$")
_FROM_IMPORT = re.compile(r"^\s*from\s+(\S+)\s+import\s+(.+)$")


def _unused_imports(lines: Sequence[str]) -> list[int]:
    """An imported name the rest of the file never says (pyflakes' F401): the lines importing it. Any mention counts as
    a use, in a string or a comment too, and names `__all__` lists are said there: where the text may use it, it is no
    finding. A package's `__init__.py` imports to re-export, and is not read (the lint's `skipped`)."""
    bound: list[tuple[str, int, int]] = []  # (name, first line, last line of its import statement)
    for start in (n for n, line in enumerate(lines) if "import" in line):  # most lines import nothing: not matched
        line, end = lines[start].split("#", 1)[0], start
        if (m := _FROM_IMPORT.match(line)) and m.group(1) != "__future__":
            names = m.group(2)
            if names.lstrip().startswith("(") and ")" not in names:  # `from x import (` ... `)`
                while end + 1 < len(lines) and ")" not in lines[end]:
                    end += 1
                    names += " " + lines[end].split("#", 1)[0]
            parts = names.strip(" ()\\").split(",")
        elif m := _IMPORT.match(line):
            parts = [p.split(".", 1)[0] if " as " not in p else p for p in m.group(1).split(",")]
        else:
            continue
        if "noqa" not in lines[start]:
            for part in (p.strip(" ()") for p in parts):
                name = part.split(" as ")[-1].strip()
                if name and name != "*" and name.isidentifier():
                    bound.append((name, start, end))
    if not bound:
        return []
    # Another import saying the name (`import os` and `from os import path`) counts as a use too: bench/lint_tasks.py's
    # dev lists, where a lint fired, a changed file first .67 with it, .33 without.
    imported = {k for _, first, last in bound for k in range(first, last + 1)}
    rest = "\n".join(line for k, line in enumerate(lines) if k not in imported)
    unused, in_order = set(), sorted(imported)
    for name, first, last in bound:
        other_imports = "\n".join(lines[k] for k in in_order if not first <= k <= last)
        if not _says(rest, name) and not _says(other_imports, name):
            unused.add(first + 1)
    return sorted(unused)


def _says(text: str, name: str) -> bool:
    """Whether the text says the name as code does: a word of its own, not an attribute (`x.name`)."""
    at = text.find(name)
    while at >= 0:
        before = text[at - 1] if at else " "
        after = text[at + len(name) : at + len(name) + 1] or " "
        if not (before.isalnum() or before in "_.") and not (after.isalnum() or after == "_"):
            return True
        at = text.find(name, at + 1)
    return False


_WORDY = r"(?:needless|unneeded|unnecessary|redundant|useless)"
LINTS = (
    Lint(
        "clippy::needless_return",
        "rust",
        re.compile(rf"{_WORDY}[ _](?:explicit )?returns?\b|{_WORDY} return (?:keyword|statement)s?|needless_return"),
        _needless_returns,
    ),
    Lint(
        "clippy::redundant_field_names",
        "rust",
        re.compile(r"redundant[ _]field[ _]names?|field init shorthand"),
        _lines_matching(r"(?<![\w.:])([a-z_][a-z0-9_]*)\s*:\s*\1\s*(?:,|\}|$)", ":"),
    ),
    Lint(
        "clippy::unwrap_or_default",
        "rust",
        re.compile(r"unwrap_or_default"),
        _lines_matching(
            r"\.(?:unwrap_or_else|or_insert_with)\((?:Default::default|[A-Z]\w*::(?:new|default)"
            r"|\|\|\s*[A-Z]\w*::(?:new|default)\(\))\)",
            "unwrap_or_else",
            "or_insert_with",
        ),
    ),
    Lint(
        "clippy::unnecessary_lazy_evaluations",
        "rust",
        re.compile(r"lazy[ _]evaluations?|unnecessary_lazy"),
        # a closure returning what is cheap to have at once: a literal, a path, a field, a length, or one in Some(..)
        _lines_matching(
            r"\.(?:unwrap_or_else|or_else|ok_or_else|get_or_insert_with|map_or_else|then)\(\|\|\s*"
            r"(?:(?:Some|Ok|Err)\(\s*)?&?(?:[A-Za-z_][\w:.]*(?:\.(?:len|is_empty)\(\))?|\d[\w.]*|\"[^\"]*\"|\(\))"
            r"\s*\)?\s*\)",
            "||",
        ),
    ),
    Lint(
        "clippy::manual_non_exhaustive",
        "rust",
        re.compile(r"manual[ _]non[ _]exhaustive|\buse\s+(?:the\s+)?`?#?\[?non_exhaustive\]?`?\s+attribute"),
        _lines_matching(r"^\s*_[a-z_]*\s*:\s*\(\)\s*,?\s*$", "()"),
    ),
    Lint(
        "clippy::redundant_static_lifetimes",
        "rust",
        re.compile(rf"{_WORDY}\s+`?'?static`?\s+lifetimes?(?!\s+bound)|redundant_static_lifetimes"),
        _lines_matching(r"\b(?:const|static)\s+[A-Z_][A-Z0-9_]*\s*:\s*&'static\b", "&'static"),
    ),
    Lint(
        "clippy::len_zero",
        "rust",
        re.compile(r"len_zero|\b(?:use|prefer)\s+`?(?:\.|\w+\.)?is_empty\b|is_empty\(\)`?\s+instead"),
        _lines_matching(r"\.len\(\)\s*(?:==\s*0|!=\s*0|>\s*0)\b", ".len()"),
    ),
    Lint(  # the 2021 edition's prelude has them: importing them again is left over
        "rust_2021_prelude",
        "rust",
        re.compile(r"prelude\s+traits?|\bimport\w*\s+(?:\w+\s+)?prelude|\bprelude\b.*\b(?:2021|edition)\b"),
        _lines_matching(r"^\s*use\s+(?:std|core)::(?:convert::(?:TryFrom|TryInto)|iter::FromIterator)\s*;", "use "),
    ),
    Lint(
        "pyflakes: unused imports",
        "python",
        re.compile(r"\bunused[ _-]imports?\b|\bf401\b"),
        _unused_imports,
        re.compile(r"(?:^|/)__init__\.py$"),
    ),
    Lint(
        "pyupgrade: f-strings",
        "python",
        re.compile(r"(?<!unused )(?<!empty )(?<!unnecessary )\bf-?strings?\b"),
        _lines_matching(r"""(?:['"]\s*%\s*[\w(\[])|(?:['"]\.format\()""", "%", ".format("),
    ),
)

# Tried and not kept (2026-12-07): clippy::redundant_closure (`.map(|x| Some(x))`) and pyupgrade's super() without
# arguments (`super(Foo, self)`). With them bench/lint_tasks.py's hold-outs fired on 19 more tasks: a changed file among
# the flagged for 9 of them, among BM25's first five for 10.


def asked(task: str) -> list[Lint]:
    """The lints the task asks to fix."""
    text = task.lower()
    return [lint for lint in LINTS if lint.asked.search(text)]


@dataclass(frozen=True)
class Flagged:
    lint: Lint
    lines: dict[str, list[int]]  # path -> the lines it matches, in the code files where it does


def flagged(conn: sqlite3.Connection, root: Path, task: str, kinds: dict[str, str]) -> list[Flagged]:
    """Where each lint the task asks to fix matches, in the code files of its language; a lint matching in more than
    MAX_FLAGGED files, or none, is left out, and so is every lint where those files hold more than MAX_LINES_READ."""
    lints = asked(task)
    if not lints:
        return []
    languages = file_languages(conn)
    wanted = {lint.language for lint in lints}
    paths = {p for p, language in languages.items() if language in wanted and kinds.get(p) == "code"}
    sizes = lookups.file_lines(conn)
    if sum(sizes.get(p) or 0 for p in paths) > MAX_LINES_READ:
        return []
    return flag(lints, snippets.indexed_lines(root, conn, paths), languages)


def flag(lints: Sequence[Lint], texts: dict[str, list[str]], languages: dict[str, str | None]) -> list[Flagged]:
    """Where each lint matches among the files' texts (path -> lines), files of its language only; a lint matching in
    more than MAX_FLAGGED files, or none, is left out."""
    out = []
    for lint in lints:
        ours = [(p, text) for p, text in texts.items() if languages.get(p) == lint.language and not lint.skips(p)]
        lines = {p: found for p, text in ours if (found := lint.found(text))}
        if 0 < len(lines) <= MAX_FLAGGED:
            out.append(Flagged(lint, lines))
    return out
