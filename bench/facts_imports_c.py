"""C and C++ `#include` edges of the index against the files the compiler opens for them.

    python bench/facts_imports_c.py [--mirrors DIR] [--cache DIR] [--show N] [--project NAME]

Ground truth written by gcc: each project (a `fetch`ed mirror at a fixed tag) is configured with CMake (`cmake -S
ROOT -B BUILD -DCMAKE_EXPORT_COMPILE_COMMANDS=ON` and the project's options; CMake's own probes are compiled, the
project never is), and every `#include` of every C/C++ file of the tree (sources and headers, by suffix) is resolved
by the compiler itself, one directive at a time: a translation unit holding only that directive, read from stdin by
the file's own compiler (cc or c++) with the file's include path (`-I`, `-iquote`, `-isystem`, `-idirafter` of its
compile command) and `-iquote` of the file's own folder first, preprocessed with `-E -H`; its first depth-1 header
is the file gcc opens for it. That is exact for gcc's search, which for `"x"` starts in the including file's own
folder (not its includer's), then the quote and bracket chains, and for `<x>` takes the bracket chain alone. A
source takes the flags of its compile commands; a header those of every translation unit that enters it (a directive
is resolved with each distinct include path, and each file opened is an edge); a file no unit enters (a test CMake
does not build, another platform's code) takes the flags of the unit nearest it in the tree.

Reading the units' `-H` trees alone would miss edges: a header guarded by `#pragma once` or an include guard is
not opened, so not printed, the second time. So the units are preprocessed too (`-E -dI`), for three things: which
headers each unit enters (their flags), which directives the preprocessor reached (those in an `#if` branch not
taken, or in a file no unit compiles, are scored all the same, since the index sees every directive, and counted
apart), and a check: for each directive a unit opened a file for, the one-directive resolution must name the same
file (the `check` line). An `#include NAME` is taken as the units expanded it. Only edges between two files of the
tree count: a system header, or one CMake generated in BUILD (leveldb's port_config.h), is none.

The index is this checkout's `annals -C ROOT index --no-vectors` of the same tree (fresh every run); its edges are
those store/lookups.py's `import_edges` serves whose source is a C/C++ file. The baseline in the same run is what a
grep-level tool finds: `#include "x"` beside the including file only, `<x>` never.

Projects, each at a release tag: google/leveldb 1.23 (tests and benchmarks off: their googletest and benchmark
are submodules the tag's tree lacks, so its *_test.cc take their folder's flags), libuv/libuv v1.52.1 (tests on;
src/win/ compiled by no unit here), nlohmann/json v3.11.3 (tests on, multiple headers: include/ and
single_include/ hold the same-named json.hpp), redis/hiredis v1.4.1 (examples on: those whose event library is
missing take example.c's flags) and fmtlib/fmt 11.0.2 (tests and fuzzers on), and jbeder/yaml-cpp
yaml-cpp-0.9.0 (tests on, its googletest vendored), the hold-out, chosen before any figure was read, whose totals
alone are printed. Trees, builds and the compiler's answers are cached under --cache (the answers per project, by
TRUTH_VERSION); the index is made anew every run. `--project NAME` runs one (repeatable).

First figures (2026-12-05, this checkout's index; edges, recall, precision; `compiled`: from files a unit enters):

    project    gcc   annals               annals, compiled    beside only          beside, compiled
    leveldb    488   488  1.000  1.000    309  1.000  1.000     0  0.000  -          0  0.000  -
    libuv      709   709  1.000  1.000    513  1.000  1.000   370  0.522  1.000    267  0.520  1.000
    json       663   665  0.991  0.988    324  0.997  1.000   133  0.201  1.000     27  0.083  1.000
    hiredis    120    92  0.767  1.000     51  0.962  1.000    79  0.658  1.000     51  0.962  1.000
    fmt        161   161  1.000  1.000    131  1.000  1.000    60  0.373  1.000     56  0.427  1.000
    yaml-cpp   667   667  1.000  1.000    471  1.000  1.000    92  0.138  1.000     78  0.166  1.000  (hold-out)

The one-directive answers agreed with every file the units' own preprocessing opened (45,262 directives, 0
differ). The misses: hiredis's examples' `<hiredis.h>`, `<async.h>`, `<hiredis_ssl.h>` (28 edges), a project
header at the root found through `-I`, which the index takes for a system header (a `<x>` without a folder
resolves only under a folder named include), and json's `<doctest.h>` (tests/thirdparty/doctest, by `-I`); json's
5 `#include "*.def"` of libFuzzer, files the index does not hold. The extras: json's 8 includes of libFuzzer's
tests of a header one folder up, which no unit here compiles (their own build has the folder on its path: the
truth, not the index, is short there). json's 302 `<nlohmann/json.hpp>` are right because include/ sorts before
single_include/, not by a rule (the `same-named` line). About 150 s a run with the answers cached, most of it
indexing; cold (trees, configures, answers), about 220 s.

After 37d459d (a `<x.h>` naming the project's top-level header is that file, as the build's `-I .` finds it):
hiredis 120 edges, recall .767 -> 1.000, precision 1.000 (0 wrong); every other project the same, the hold-out
yaml-cpp 1.000 / 1.000.
"""

from __future__ import annotations

import argparse
import json
import os
import posixpath
import re
import shlex
import shutil
import sqlite3
import subprocess
import sys
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

from codeannals.store.lookups import import_edges

sys.path.insert(0, str(Path(__file__).parent))
from facts_tests_js import tag_tree  # noqa: E402  (bench/ is not a package)

ANNALS = str(Path(sys.executable).parent / "annals")
TRUTH_VERSION = 2
C_SUFFIXES = frozenset({".c", ".h", ".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".ipp", ".inl"})
BUILD = "<build>/"  # a file opened from the build folder: generated, no file of the tree
SYSTEM = "<system>"  # a file opened outside the tree and the build folder


@dataclass(frozen=True)
class Project:
    name: str
    github: str  # the mirror's owner/name
    tag: str
    options: tuple[str, ...] = ()  # CMake options
    holdout: bool = False


PROJECTS = (
    Project("leveldb", "google/leveldb", "1.23", ("-DLEVELDB_BUILD_TESTS=OFF", "-DLEVELDB_BUILD_BENCHMARKS=OFF")),
    Project("libuv", "libuv/libuv", "v1.52.1"),
    Project("json", "nlohmann/json", "v3.11.3"),
    Project("hiredis", "redis/hiredis", "v1.4.1", ("-DENABLE_EXAMPLES=ON",)),
    Project("fmt", "fmtlib/fmt", "11.0.2", ("-DFMT_TEST=ON", "-DFMT_FUZZ=ON")),
    Project("yaml-cpp", "jbeder/yaml-cpp", "yaml-cpp-0.9.0", ("-DYAML_CPP_BUILD_TESTS=ON",), holdout=True),
)

_DIRECTIVE = re.compile(r'^[ \t]*#[ \t]*include\b[ \t]*(?:"([^"\n]+)"|<([^>\n]+)>|([A-Za-z_]\w*))')
_MARKER = re.compile(r'^# \d+ "((?:[^"\\]|\\.)*)"((?: \d)*)$')
_PATH_FLAGS = ("-I", "-iquote", "-isystem", "-idirafter")
_DROPPED_WITH_VALUE = frozenset({"-o", "-MF", "-MT", "-MQ"})
_DROPPED = frozenset({"-c", "-MD", "-MMD", "-MP"})


@dataclass(frozen=True)
class Unit:
    """One compile command: the compiler, its flags but output and dependency files, the search path alone."""

    source: str  # absolute
    directory: str
    argv: tuple[str, ...]
    key: tuple[str, ...]  # compiler, language, then the include path flags (absolute): what a search depends on


@dataclass
class Directive:
    file: str  # the including file, a tree path
    line: int  # 0 for one only a unit's preprocessing showed
    written: str  # as the file has it: `"x.h"`, `<x.h>`, or `NAME`
    spec: str  # the header named, a macro's as the units expanded it
    quoted: bool
    opened: list[str]  # what gcc opens for it, for each include path the file is compiled with ("" for nothing)
    reached: bool = False  # a unit's preprocessing passed it
    compiled: bool = False  # some unit enters the file


def run(argv: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False, env=env)
    if proc.returncode != 0:
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(argv)}\n{proc.stderr[-2000:]}")
    return proc.stdout


# --- the build: CMake's compile commands ---


def configure(project: Project, root: Path, cache: Path) -> Path:
    """The project's build folder, configured once (nothing is built: only compile_commands.json is read)."""
    build = cache / "builds" / f"{project.name}-{project.tag}"
    if not (build / "compile_commands.json").exists():
        shutil.rmtree(build, ignore_errors=True)
        run(
            [
                "cmake",
                "-S",
                str(root),
                "-B",
                str(build),
                "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",
                "-DCMAKE_BUILD_TYPE=Release",
                "-DCMAKE_C_COMPILER=gcc",
                "-DCMAKE_CXX_COMPILER=g++",
                *project.options,
            ]
        )
    return build


def units(build: Path) -> list[Unit]:
    out = []
    for entry in json.loads((build / "compile_commands.json").read_text()):
        argv = entry.get("arguments") or shlex.split(entry["command"])
        directory = entry["directory"]
        source = os.path.normpath(os.path.join(directory, entry["file"]))
        kept: list[str] = []
        paths: list[str] = []
        args = iter(argv[1:])
        for arg in args:
            if arg in _DROPPED_WITH_VALUE:
                next(args, None)
                continue
            if arg in _DROPPED or os.path.normpath(os.path.join(directory, arg)) == source:
                continue
            kept.append(arg)
            flag = next((f for f in _PATH_FLAGS if arg.startswith(f)), None)
            if flag is not None:
                value = arg[len(flag) :] or next(args, "")
                if value != arg[len(flag) :]:
                    kept.append(value)
                paths += [flag, os.path.normpath(os.path.join(directory, value))]
            elif arg.startswith("-nostdinc"):
                paths.append(arg)
        language = "c" if source.endswith(".c") else "c++"
        out.append(Unit(source, directory, (argv[0], *kept), (argv[0], language, *paths)))
    return out


# --- the compiler's answers ---


@dataclass
class Pass:
    """What preprocessing one unit showed."""

    entered: set[str]  # absolute paths of the files it entered, its source too
    reached: set[tuple[str, bool, str]]  # (file, quoted, spec) of each directive it passed
    opened: dict[tuple[str, bool, str], str]  # a reached directive -> the file then entered


def preprocess(unit: Unit) -> Pass:
    """The unit's `-E -dI` stream: line markers say which file the text comes from, and `-dI` keeps each
    directive in place, the next entering marker (flag 1) naming the file opened for it, if any."""
    done = Pass({unit.source}, set(), {})
    proc = subprocess.Popen(
        [*unit.argv, "-E", "-dI", "-o", "-", unit.source],
        cwd=unit.directory,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        errors="replace",
    )
    assert proc.stdout is not None
    current: str | None = None
    pending: tuple[str, bool, str] | None = None
    for line in proc.stdout:
        if not line.startswith("#"):
            if pending is not None and line.strip():
                pending = None
            continue
        if marker := _MARKER.match(line):
            name = marker.group(1).replace('\\"', '"').replace("\\\\", "\\")
            path = None if name.startswith("<") else os.path.normpath(os.path.join(unit.directory, name))
            flags = marker.group(2).split()
            if "1" in flags and path is not None:
                done.entered.add(path)
                if pending is not None:
                    done.opened[pending] = path
                pending = None
            elif "2" in flags:
                pending = None
            current = path
        elif line.startswith("#include ") and current is not None:
            written = line[len("#include ") :].strip()
            pending = (current, written.startswith('"'), written[1:-1])
            done.reached.add(pending)
        else:
            pending = None
    proc.wait()
    return done


def resolve(key: tuple[str, ...], folder: str, quoted: bool, spec: str, empty: Path) -> str:
    """The file gcc opens for one directive: the header of depth 1 in `-H`, read from stdin in an empty folder
    with the including file's folder first on the quote chain."""
    compiler, language, *paths = key
    directive = f'#include "{spec}"' if quoted else f"#include <{spec}>"
    quote = ["-iquote", folder] if quoted else []
    proc = subprocess.run(
        [compiler, "-x", language, "-E", "-H", "-o", os.devnull, *quote, *paths, "-"],
        input=directive + "\n",
        cwd=empty,
        capture_output=True,
        text=True,
        errors="replace",
        check=False,
    )
    for line in proc.stderr.splitlines():
        if line.startswith(". "):
            return os.path.normpath(os.path.join(empty, line[2:]))
    return ""


def label(path: str, root: str, build: str) -> str:
    """A tree path, `<build>/...`, `<system>...`, or "" for no file."""
    if not path:
        return ""
    if path.startswith(root + "/"):
        return path[len(root) + 1 :]
    if path.startswith(build + "/"):
        return BUILD + path[len(build) + 1 :]
    return SYSTEM + path


def c_files(root: Path) -> list[str]:
    return sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.suffix.lower() in C_SUFFIXES and p.is_file() and ".annals" not in p.relative_to(root).parts
    )


def written_directives(root: Path, path: str) -> list[Directive]:
    """Every `#include` the file has, in every `#if` branch, as the index's parser sees them."""
    out = []
    text = (root / path).read_bytes().decode("utf-8", errors="replace")
    for number, line in enumerate(text.splitlines(), 1):
        if found := _DIRECTIVE.match(line):
            quoted, angled, macro = found.groups()
            if macro:
                out.append(Directive(path, number, macro, macro, False, []))
            else:
                spec = quoted or angled
                written = f'"{spec}"' if quoted else f"<{spec}>"
                out.append(Directive(path, number, written, spec, quoted is not None, []))
    return out


def nearest(path: str, sources: list[str]) -> str:
    """The unit's source sharing most folders with `path` (one of its language first, then by path)."""
    folders = path.split("/")[:-1]
    c = path.endswith(".c")

    def shared(source: str) -> tuple[int, bool]:
        parts = source.split("/")[:-1]
        n = 0
        while n < min(len(parts), len(folders)) and parts[n] == folders[n]:
            n += 1
        return n, source.endswith(".c") == c

    return max(sorted(sources), key=shared)


def compiler_answers(root: Path, build: Path, cache: Path) -> tuple[list[Directive], dict[str, int]]:
    """Each directive of the tree with the files gcc opens for it, and the check of those answers against what
    the units' own preprocessing opened."""
    root_s, build_s = str(root), str(build)
    found = units(build)
    workers = os.cpu_count() or 2
    with ThreadPoolExecutor(workers) as pool:
        passes = list(pool.map(preprocess, found))
    keys: dict[str, set[tuple[str, ...]]] = defaultdict(set)  # tree path -> the search paths it is compiled with
    reached: set[tuple[str, bool, str]] = set()
    for unit, done in zip(found, passes, strict=True):
        for path in done.entered:
            if (tree := label(path, root_s, build_s)) and not tree.startswith("<"):
                keys[tree].add(unit.key)
        reached |= {(label(f, root_s, build_s), q, s) for f, q, s in done.reached}
    compiled = set(keys)
    by_source = {label(u.source, root_s, build_s): u.key for u in found}
    sources = sorted(s for s in by_source if not s.startswith("<"))
    directives: list[Directive] = []
    reached_in: dict[str, list[tuple[bool, str]]] = defaultdict(list)
    for file, quoted, spec in sorted(reached):
        reached_in[file].append((quoted, spec))
    for path in c_files(root):
        own = written_directives(root, path)
        if path not in keys:
            keys[path].add(by_source[nearest(path, sources)])
        written = {(d.quoted, d.spec) for d in own}
        macros = [d for d in own if d.written[0] not in '"<']
        for quoted, spec in reached_in[path]:  # an `#include NAME` as a unit expanded it (or one the regex missed)
            if (quoted, spec) not in written:
                shown = macros[0].written if macros else (f'"{spec}"' if quoted else f"<{spec}>")
                own.append(Directive(path, 0, shown, spec, quoted, [], reached=True))
                written.add((quoted, spec))
                for macro in macros:
                    macro.reached = True
        for d in own:
            d.compiled = path in compiled
            d.reached = d.reached or (d.quoted, d.spec) in reached_in[path]
        directives += own
    empty = cache / "scratch"
    empty.mkdir(parents=True, exist_ok=True)
    asked = sorted(
        {
            (key, str(root / posixpath.dirname(d.file)) if d.quoted else "", d.quoted, d.spec)
            for d in directives
            if d.written[0] in '"<' or d.line == 0
            for key in keys[d.file]
        }
    )
    with ThreadPoolExecutor(workers) as pool:
        answers = dict(zip(asked, pool.map(lambda a: resolve(*a, empty), asked), strict=True))
    for d in directives:
        if d.written[0] in '"<' or d.line == 0:
            folder = str(root / posixpath.dirname(d.file)) if d.quoted else ""
            d.opened = sorted({label(answers[(k, folder, d.quoted, d.spec)], root_s, build_s) for k in keys[d.file]})
    check = Counter()
    for unit, done in zip(found, passes, strict=True):
        for (file, quoted, spec), path in done.opened.items():
            folder = os.path.dirname(file) if quoted else ""
            answer = answers.get((unit.key, folder, quoted, spec))
            if answer is not None:
                check["agree" if answer == path else "disagree"] += 1
    return directives, {"units": len(found), **check}


def cached_answers(project: Project, root: Path, cache: Path) -> tuple[list[Directive], dict[str, int]]:
    stored = cache / "answers" / f"{project.name}-{project.tag}.v{TRUTH_VERSION}.json"
    if stored.exists():
        data = json.loads(stored.read_text())
        return [Directive(**d) for d in data["directives"]], data["check"]
    directives, check = compiler_answers(root, configure(project, root, cache), cache)
    stored.parent.mkdir(parents=True, exist_ok=True)
    stored.write_text(json.dumps({"directives": [asdict(d) for d in directives], "check": check}))
    return directives, check


# --- the index ---


@dataclass
class Indexed:
    edges: set[tuple[str, str]]
    chose: dict[tuple[str, str], str]  # (file, spec) -> the target the index gave a directive ("" for none)
    files: set[str]  # the paths the index holds as indexed


def index(root: Path) -> Indexed:
    shutil.rmtree(root / ".annals", ignore_errors=True)
    run([ANNALS, "-C", str(root), "index", "--no-vectors", "--wait"], env={**os.environ, "ANNALS_VECTORS": "off"})
    conn = sqlite3.connect(root / ".annals" / "annals.db")
    try:
        edges = {(e["source"], e["target"]) for e in import_edges(conn) if _is_c(e["source"])}
        chose = {}
        for path, module, target in conn.execute("SELECT path, module, target FROM resolved_imports ORDER BY ordinal"):
            if _is_c(path) and (path, module) not in chose:
                chose[(path, module)] = target or ""
        files = {r[0] for r in conn.execute("SELECT path FROM files WHERE status = 'indexed'")}
    finally:
        conn.close()
    return Indexed(edges, chose, files)


def _is_c(path: str) -> bool:
    return posixpath.splitext(path)[1].lower() in C_SUFFIXES


# --- scoring ---


def truth_edges(directives: list[Directive]) -> set[tuple[str, str]]:
    return {(d.file, o) for d in directives for o in d.opened if o and not o.startswith("<") and o != d.file}


def beside_edges(directives: list[Directive], tree: set[str]) -> set[tuple[str, str]]:
    """`#include "x"` beside the including file, if the tree has it there; `<x>` never."""
    out = set()
    for d in directives:
        if d.line and d.written.startswith('"'):
            beside = posixpath.normpath(posixpath.join(posixpath.dirname(d.file), d.spec))
            if beside in tree and beside != d.file:
                out.add((d.file, beside))
    return out


def only(files: set[str], edges: set[tuple[str, str]], truth: set[tuple[str, str]]) -> tuple[set, set]:
    """The edges and the truth from the files some unit compiles: a file none compiles took a neighbour's flags,
    which its own build (another platform's, a vendored project's) may not share."""
    return {e for e in edges if e[0] in files}, {e for e in truth if e[0] in files}


def where(d: Directive) -> str:
    """Why the compiler may not have passed the directive."""
    if d.reached:
        return ""
    return " (never reached: file compiled by no unit)" if not d.compiled else " (never reached: #if branch)"


def miss_cause(d: Directive, target: str, chose: str | None, held: set[str]) -> str:
    if target not in held or d.file not in held:
        suffix = posixpath.splitext(target if target not in held else d.file)[1] or "no suffix"
        return f"a file the index does not hold ({suffix})"
    if not d.line or d.written[0] not in '"<':
        return "#include NAME (a macro) left unresolved"
    if chose is None:
        return "a directive the index does not record"
    if chose and chose != target:
        if posixpath.basename(chose) == posixpath.basename(target):
            return "a same-named header in another folder chosen"
        return "another file chosen"
    if not d.quoted:
        return "<x> of a project header via -I, left unresolved"
    if "/" in d.spec:
        return '"x/y.h" relative to an include dir, left unresolved'
    return '"x.h" in an include dir (not beside the file), left unresolved'


def extra_cause(d: Directive | None, chose: str) -> str:
    if d is None:
        return "no directive of the file names it"
    tree = [o for o in d.opened if o and not o.startswith("<")]
    if tree:
        same = any(posixpath.basename(o) == posixpath.basename(chose) for o in tree)
        return "a same-named header in another folder chosen" if same else "another file chosen"
    if any(o.startswith(BUILD) for o in d.opened):
        return "a header generated in the build folder, a tree file chosen"
    if any(o.startswith(SYSTEM) for o in d.opened):
        return "a system header, a tree file chosen"
    return "a header the compiler finds nowhere, a tree file chosen"


def causes(
    directives: list[Directive], truth: set[tuple[str, str]], indexed: Indexed
) -> tuple[dict[str, list[tuple[tuple[str, str], Directive | None]]], ...]:
    """Each missed and each extra edge under its cause, with the directive behind it."""
    of_file: dict[str, list[Directive]] = defaultdict(list)
    for d in directives:
        of_file[d.file].append(d)
    missed: dict[str, list[tuple[tuple[str, str], Directive | None]]] = defaultdict(list)
    for edge in sorted(truth - indexed.edges):
        d = next(d for d in of_file[edge[0]] if edge[1] in d.opened)
        chose = indexed.chose.get((d.file, d.spec))
        missed[miss_cause(d, edge[1], chose, indexed.files) + where(d)].append((edge, d))
    extra: dict[str, list[tuple[tuple[str, str], Directive | None]]] = defaultdict(list)
    for edge in sorted(indexed.edges - truth):
        d = next((d for d in of_file[edge[0]] if indexed.chose.get((d.file, d.spec)) == edge[1]), None)
        extra[extra_cause(d, edge[1]) + (where(d) if d else "")].append((edge, d))
    return missed, extra


def same_named(directives: list[Directive], tree: set[str], indexed: Indexed) -> tuple[int, int, int, Counter]:
    """Directives whose header name fits several tree files by path suffix (what "anywhere that ends so"
    weighs): how many, on how many the index chose gcc's file, on how many gcc's file is the alphabetically
    first of them, and their names."""
    by_name: dict[str, list[str]] = defaultdict(list)
    for path in tree:
        by_name[posixpath.basename(path)].append(path)
    count = right = first = 0
    names: Counter = Counter()
    for d in directives:
        for target in (o for o in d.opened if o and not o.startswith("<")):
            fits = sorted(p for p in by_name[posixpath.basename(d.spec)] if p == d.spec or p.endswith("/" + d.spec))
            if len(fits) > 1:
                count += 1
                right += indexed.chose.get((d.file, d.spec)) == target
                first += fits[0] == target
                names[d.spec] += 1
    return count, right, first, names


def show(title: str, grouped: dict, indexed: Indexed, n: int) -> None:
    total = sum(len(v) for v in grouped.values())
    print(f"  {title} {total} edges, by cause:")
    for cause, items in sorted(grouped.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        print(f"    {len(items):>5}  {cause}")
        seen: set[str] = set()
        firsts = [i for i in items if i[1] is None or not (i[1].written in seen or seen.add(i[1].written))]
        for (source, target), d in (firsts + [i for i in items if i not in firsts])[:n]:  # distinct directives first
            if d is None:
                print(f"             {source} -> {target}")
                continue
            opened = ", ".join(o or "nothing" for o in d.opened) or "nothing"
            chose = indexed.chose.get((d.file, d.spec), "") or "nothing"
            at = f":{d.line}" if d.line else ""
            print(f"             {source}{at} #include {d.written}: gcc opens {opened}; the index {chose}")
        if len(items) > n > 0:
            print(f"             ... {len(items) - n} more (--show {len(items)})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mirrors", type=Path, default=Path(os.environ.get("LOCALIZE_MIRRORS", "/work/.mirror")))
    parser.add_argument("--cache", type=Path, default=Path("/work/corpora/imports_c"))
    parser.add_argument("--show", type=int, default=0, help="print up to N missed and N extra edges of each cause")
    parser.add_argument("--project", action="append", help="only this project (repeatable)")
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    cache = args.cache.resolve()
    start = time.monotonic()
    print(f"{'project':<10} {'method':<21} {'edges':>6} {'recall':>7} {'precision':>9}")
    for project in PROJECTS:
        if args.project and project.name not in args.project:
            continue
        root = tag_tree(args.mirrors, cache, project.github, project.name, project.tag).resolve()
        indexed = index(root)
        directives, check = cached_answers(project, root, cache)
        truth = truth_edges(directives)
        tree = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}
        print(f"{project.name:<10} {'gcc':<21} {len(truth):>6}")
        compiled = {d.file for d in directives if d.compiled}
        for method, edges in (("annals", indexed.edges), ("beside only", beside_edges(directives, tree))):
            for name, scored, among in ((method, edges, truth), (f"{method}, compiled", *only(compiled, edges, truth))):
                found = scored & among
                recall, precision = len(found) / max(1, len(among)), len(found) / max(1, len(scored))
                print(f"{project.name:<10} {name:<21} {len(scored):>6} {recall:>7.3f} {precision:>9.3f}")
        unreached = sum(1 for d in directives if not d.reached)
        print(
            f"  check: {check['units']} units; of the {check.get('agree', 0) + check.get('disagree', 0)} directives"
            f" a unit opened a file for, the one-directive answer differs on {check.get('disagree', 0)};"
            f" {unreached} of {len(directives)} directives never reached"
        )
        if project.holdout:
            continue
        count, right, first, names = same_named(directives, tree, indexed)
        print(
            f"  same-named: {count} directives name a header several tree files end with; the index chose gcc's"
            f" file for {right}; gcc's is the alphabetically first for {first}"
            + (f" ({', '.join(f'{spec} x{n}' for spec, n in names.most_common(4))})" if names else "")
        )
        missed, extra = causes(directives, truth, indexed)
        show("missed", missed, indexed, args.show)
        show("extra", extra, indexed, args.show)
    print(f"({time.monotonic() - start:.0f} s)")


if __name__ == "__main__":
    main()
