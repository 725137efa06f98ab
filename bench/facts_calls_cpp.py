"""C++ callers of the index against the call graph g++ writes while it compiles.

    python bench/facts_calls_cpp.py [--mirrors DIR] [--cache DIR] [--wrong N] [--only NAME,...]

Ground truth written by the compiler: each Linux translation unit of a project's library (a `fetch`ed mirror at a
fixed tag; leveldb's tests need googletest, a submodule the mirror does not hold; yaml-cpp and tinyxml2, with its
test program, are hold-outs, added after the rules were made on leveldb and never read call by call; pugixml, with
three of its test files, was added as a dev twin of tinyxml2 when overloads were typed) compiled with
`g++ -O0 -fcallgraph-info`. A unit's .ci file lists every function it compiles (the inline ones of its headers too)
with the file and line defining it, and every direct call each makes, with the call's own file, line and column. A
function is known across the units by its mangled name. Calls through a pointer or a virtual method are left out
(g++ names no callee), and so are calls of constructors and destructors (most of them the compiler's, a
declaration's or a scope's end), the calls a reader of the source cannot see (a conversion: the call's lines must
spell the callee's name before a `(`), and callees outside the project (the standard library's). The calls of the
project's operators (`out << node`, `node["key"]`, `a == b`) are judged apart, as a line of their own.

Each function g++ compiled is matched to the index's innermost symbol of the same name holding its line. For each
call, whether the index's callers of the callee (`lookups.callers`, at most 500) hold the caller: on a basis the
index follows (`callgraph.FOLLOWED`), or at all (a `name only` guess too). Precision: of the callers the index gives
on a followed basis among the functions g++ compiled, the share g++ lists, leaving out those on a line where g++
calls through a pointer (a virtual call, which may run the method or an override), and those named as a value
(`&DBImpl::BGWork` handed on: no call, whoever gets it calls it); `--wrong N` prints N of those it
does not, and N calls missed, with their bases. The baseline in the same run: every caller the index gives, on any
basis, `name only` guesses included (what a grep of the callee's name gives).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from facts_imports_java import ANNALS, checkout  # noqa: E402  (bench/ is not a package)

_NODE = re.compile(
    r'node: \{ title: "(?P<title>[^"]+)" label: "(?P<label>[^"\\]+)\\n'
    r'(?P<file>[^":]+):(?P<line>\d+):\d+"(?P<rest>[^}]*)\}'
)
_EDGE = re.compile(
    r'edge: \{ sourcename: "(?P<source>[^"]+)" targetname: "(?P<target>[^"]+)" '
    r'label: "(?P<file>[^":]+):(?P<line>\d+):(?P<col>\d+)"'
)
_OPERATOR = re.compile(r"\boperator\s*(?P<op>\(\s*\)|\[\s*\]|[^\w\s()\[\]]+)\s*$")  # not a conversion (`operator bool`)
SITE_LINES = 4  # a call's lines, up to the one g++ gives
SITE_AFTER = 10  # and after it: `Log(log, "...", versions_->LevelSummary(&tmp))` is the line the Log starts on


Calls = set[tuple[str, str]]  # (caller, callee)


@dataclass(frozen=True)
class Project:
    name: str
    github: str
    tag: str
    units: tuple[str, ...]  # globs of the library's translation units
    left_out: tuple[str, ...]  # name patterns of units that are not the library's, or not Linux's
    includes: tuple[str, ...]
    defines: tuple[str, ...]
    generated: dict[str, str]  # files the build would write (a configured header), by path under the generated dir
    holdout: bool = False  # never read call by call (`--wrong` prints nothing of it): the rules were not made on it


PROJECTS = (
    Project(
        "leveldb",
        "google/leveldb",
        "1.23",
        ("db/*.cc", "table/*.cc", "util/*.cc", "helpers/memenv/*.cc"),
        ("*_test.cc", "*_bench.cc", "*windows*", "testutil.cc", "leveldbutil.cc", "dumpfile.cc"),
        (".", "include"),
        ("LEVELDB_PLATFORM_POSIX=1", "LEVELDB_HAS_PORT_CONFIG_H=1"),
        {
            "port/port_config.h": "\n".join(
                f"#define {flag} {value}"
                for flag, value in (
                    ("HAVE_FDATASYNC", 1),
                    ("HAVE_FULLFSYNC", 0),
                    ("HAVE_O_CLOEXEC", 1),
                    ("HAVE_CRC32C", 0),
                    ("HAVE_SNAPPY", 0),
                    ("HAVE_ZSTD", 0),
                )
            )
            + "\n"
        },
    ),
    Project(
        "yaml-cpp",
        "jbeder/yaml-cpp",
        "yaml-cpp-0.9.0",
        ("src/*.cpp", "src/contrib/*.cpp"),
        (),
        ("include", "src"),
        ("YAML_CPP_STATIC_DEFINE",),
        {},
        holdout=True,
    ),
    Project(
        "tinyxml2",
        "leethomason/tinyxml2",
        "11.0.0",
        ("tinyxml2.cpp", "xmltest.cpp"),
        (),
        (".",),
        (),
        {},
        holdout=True,
    ),
    Project(  # a dev twin of tinyxml2: overloads of one arity by their parameters' types (`set_value` of an int, a
        # double, a bool, a string), and its tests, which call them
        "pugixml",
        "zeux/pugixml",
        "v1.14",
        ("src/pugixml.cpp", "tests/test_dom_modify.cpp", "tests/test_dom_traverse.cpp", "tests/test_document.cpp"),
        (),
        ("src",),
        (),
        {},
    ),
    Project(
        "jsoncpp",
        "open-source-parsers/jsoncpp",
        "1.9.8",
        ("src/lib_json/*.cpp",),
        (),
        ("include", "src/lib_json"),
        (),
        {},
    ),
)


@dataclass(frozen=True)
class Function:
    name: str  # its own name, as a call spells it (`Write`, `Slice`, `~Status`)
    path: str
    line: int


def compile_unit(root: Path, unit: str, obj: Path, flags: list[str]) -> str | None:
    """The unit's .ci text, or None when it does not compile here (another platform's)."""
    proc = subprocess.run(["g++", *flags, "-c", unit, "-o", str(obj)], cwd=root, capture_output=True, text=True)
    return obj.with_suffix(".ci").read_text() if proc.returncode == 0 else None


def gcc_calls(
    project: Project, root: Path, cache: Path
) -> tuple[dict[str, Function], Calls, Calls, Counter[str], list[str], set[tuple[str, int]]]:
    """The project's functions g++ compiled (by mangled name), the calls between them that the source spells, the
    calls of its operators, why the other calls were left out, the units compiled, and the lines where a function
    calls through a pointer."""
    out = cache / f"{project.name}-ci"
    shutil.rmtree(out, ignore_errors=True)
    generated = out / "generated"
    generated.mkdir(parents=True)
    for path, text in project.generated.items():
        (generated / path).parent.mkdir(parents=True, exist_ok=True)
        (generated / path).write_text(text)
    units = sorted(
        {
            str(p.relative_to(root))
            for pattern in project.units
            for p in root.glob(pattern)
            if not any(p.match(skip) for skip in project.left_out)
        }
    )
    flags = [
        "-std=c++17",
        "-O0",
        "-fcallgraph-info",
        *(f"-I{d}" for d in project.includes),
        f"-I{generated}",
        *(f"-D{d}" for d in project.defines),
    ]
    with ThreadPoolExecutor(max(1, os.cpu_count() or 1)) as pool:
        texts = list(pool.map(lambda n: compile_unit(root, units[n], out / f"{n}.o", flags), range(len(units))))
    functions: dict[str, Function] = {}
    labels: dict[str, str] = {}  # what g++ says each function is: `leveldb::Status leveldb::DBImpl::Write(...)`
    calls: list[tuple[str, str, str, int]] = []  # caller, callee, call site
    indirect: set[tuple[str, int]] = set()  # where a function calls through a pointer (a virtual method, a callback)
    compiled = [unit for unit, text in zip(units, texts, strict=True) if text is not None]
    for unit, text in zip(units, texts, strict=True):
        if text is None:
            continue
        for m in _NODE.finditer(text):
            if "ellipse" in m["rest"] or m["file"].startswith("/") or m["file"].startswith("<"):
                continue  # declared only, or not the project's
            name = _function_name(m["label"])
            path = os.path.relpath(os.path.normpath(root / m["file"]), root)
            if name is not None:
                functions.setdefault(_mangled(m["title"], unit), Function(name, path, int(m["line"])))
                labels.setdefault(_mangled(m["title"], unit), m["label"])
        for m in _EDGE.finditer(text):
            if m["target"] == "__indirect_call":
                indirect.add((_mangled(m["source"], unit), int(m["line"])))
            else:
                calls.append((_mangled(m["source"], unit), _mangled(m["target"], unit), m["file"], int(m["line"])))
    spelled: set[tuple[str, str]] = set()
    operators: set[tuple[str, str]] = set()
    left: Counter[str] = Counter()
    lines: dict[str, list[str]] = {}
    for caller, callee, file, line in calls:
        if caller not in functions or callee not in functions:
            left["a function outside the project"] += 1
            continue
        if file.startswith("/"):
            left["a call the standard library's code makes"] += 1
            continue
        text = lines.setdefault(file, (root / file).read_text(errors="replace").splitlines())
        name = functions[callee].name
        if name == _class_of(callee_label := labels[callee]) or name.startswith("~"):
            left["a constructor or destructor"] += 1
            continue
        if name.startswith("operator"):
            operators.add((caller, callee))
            continue
        # g++ gives a line of the call: its last, or for a call in another's arguments the outer call's first
        site = "\n".join(text[max(0, line - SITE_LINES) : line + SITE_AFTER])
        if not re.search(rf"(?<![\w~]){re.escape(name)}\s*(<[^;]*>)?\s*\(", site) or "operator" in callee_label:
            left["a call the source does not spell (a conversion)"] += 1
            continue
        spelled.add((caller, callee))
    return functions, spelled, operators, left, compiled, indirect


def _function_name(label: str) -> str | None:
    """A function's own name from g++'s label: the name before its parameters, the last parenthesized part
    (`void f(int)::H::Put(const Slice&) const` is Put, a method of a class local to f)."""
    text = label.rstrip()
    end = text.rfind(")")
    depth = 0
    for at in range(end, -1, -1):
        depth += {")": 1, "(": -1}.get(text[at], 0)
        if depth == 0:
            operator = _OPERATOR.search(text[:at])
            if operator is not None:  # `operator<<`, `operator[]`, `operator()`: as the index names it
                return "operator" + operator["op"].replace(" ", "")
            found = re.search(r"(~?[A-Za-z_]\w*)\s*(?:<[^()]*>)?\s*$", text[:at])
            return found.group(1) if found is not None else None
    return None


def _class_of(label: str) -> str | None:
    """The class a method's label qualifies it by (`leveldb::Slice::Slice(const char*)`: Slice)."""
    parts = re.findall(r"(\w+)::", label.split("(", 1)[0])
    return parts[-1] if parts else None


def _mangled(title: str, unit: str) -> str:
    """A function's name across the units: a unit's own nodes are titled `unit:mangled`."""
    return title.split(":", 1)[1] if title.startswith(f"{unit}:") else title


def index_symbols(root: Path, functions: dict[str, Function]) -> tuple[dict[str, str], object]:
    """Index the tree; each compiled function's symbol id (the innermost symbol of its name holding its line)."""
    shutil.rmtree(root / ".annals", ignore_errors=True)
    env = {**os.environ, "ANNALS_VECTORS": "off"}
    subprocess.run(
        [ANNALS, "-C", str(root), "index", "--no-vectors", "--wait"], check=True, capture_output=True, env=env
    )
    from codeannals.store import lookups, open_store

    conn = open_store(root / ".annals" / "annals.db")
    by_path: dict[str, list[dict]] = {}
    ids: dict[str, str] = {}
    for mangled, fn in functions.items():
        symbols = by_path.setdefault(fn.path, lookups.symbols_in(conn, fn.path))
        holding = [s for s in symbols if s["name"] == fn.name and s["start_line"] <= fn.line <= s["end_line"]]
        if holding:
            ids[mangled] = min(holding, key=lambda s: s["end_line"] - s["start_line"])["id"]
    return ids, conn


def judged(
    edges: list[tuple[str, str]],
    truth: set[tuple[str, str]],
    lines: dict[tuple[str, str], int],
    through_pointer: set[tuple[str, int]],
) -> tuple[list[tuple[str, str]], int]:
    """The edges g++ can judge, and how many it cannot: a call not in its list made on a line where it calls through
    a pointer is virtual (g++ names no callee: the method, or an override of it, runs)."""
    kept = [
        edge
        for edge in edges
        if edge in truth
        or not any((edge[0], n) in through_pointer for n in range(lines[edge] - SITE_AFTER, lines[edge] + SITE_LINES))
    ]
    return kept, len(edges) - len(kept)


def compare(
    conn: object, truth: set[tuple[str, str]], compiled_ids: set[str], through_pointer: set[tuple[str, int]], wrong: int
) -> None:
    """Print the index's callers of the callees in `truth` against it: given on a followed basis, and on any (the
    baseline); `wrong` of the wrong callers and of the missed calls."""
    from codeannals.store import lookups
    from codeannals.store.callgraph import FOLLOWED
    from codeannals.store.gocalls import NAMED_AS_VALUE

    known: dict[str, dict[str, str]] = {}
    lines: dict[tuple[str, str], int] = {}  # a given call's line
    for callee in sorted({b for _, b in truth}):
        row = lookups.match_symbol(conn, callee)
        reaching = lookups.callers(conn, row, 500) if row is not None else []
        known[callee] = {}
        for c in reaching:  # best basis first: a caller's first call is its best
            if c["caller"] and c["caller"] not in known[callee]:
                known[callee][c["caller"]] = c["basis"]
                lines[(c["caller"], callee)] = c["line"] or 0
    hit = [edge for edge in truth if known[edge[1]].get(edge[0]) in FOLLOWED]
    anyhow = [edge for edge in truth if edge[0] in known[edge[1]]]
    given = [(a, b) for b, callers in known.items() for a, basis in callers.items() if basis in FOLLOWED]
    given = [edge for edge in given if edge[0] in compiled_ids]
    taken = [edge for edge in given if known[edge[1]][edge[0]] == NAMED_AS_VALUE]  # no call: g++ lists none
    given = [edge for edge in given if edge not in taken]
    n = max(1, len(truth))
    every = [(a, b) for b, callers in known.items() for a in callers if a in compiled_ids]
    for method, edges, found in (("annals", given, hit), ("any basis (baseline)", every, anyhow)):
        kept, virtual = judged(edges, truth, lines, through_pointer)
        right = sum(1 for edge in kept if edge in truth)
        print(
            f"  {method:<22} {len(edges):>6} {len(found) / n:>7.3f} {len(anyhow) / n:>9.3f} "
            f"{right / max(1, len(kept)):>9.3f}  ({virtual} virtual calls not judged)"
        )
    if taken:
        print(f"  {len(taken)} functions taken as values (`&C::f`), not called: not judged")
    if wrong:
        print("  wrong callers (given on a followed basis, not in g++'s calls):")
        for a, b in sorted(set(judged(given, truth, lines, through_pointer)[0]) - truth)[:wrong]:
            print(f"    {a} -> {b} [{known[b][a]}]")
        print("  missed calls (basis given, or none):")
        for a, b in sorted(set(truth) - set(hit))[:wrong]:
            print(f"    {a} -> {b} [{known[b].get(a, '-')}]")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mirrors", type=Path, default=Path(os.environ.get("LOCALIZE_MIRRORS", "/work/.mirror")))
    parser.add_argument("--cache", type=Path, default=Path("/work/corpora/calls_cpp"))
    parser.add_argument("--wrong", type=int, default=0, help="print this many wrong callers and missed calls")
    parser.add_argument("--only", help="these projects only (comma-separated names)")
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    for project in PROJECTS:
        if args.only and project.name not in args.only.split(","):
            continue
        root = checkout(project.name, project.github, project.tag, args.mirrors, args.cache)
        functions, spelled, operators, left, compiled, indirect = gcc_calls(project, root, args.cache)
        ids, conn = index_symbols(root, functions)
        truth = {(ids[a], ids[b]) for a, b in spelled if a in ids and b in ids and ids[a] != ids[b]}
        unmatched = {f"{functions[m].path}::{functions[m].name}" for pair in spelled for m in pair if m not in ids}
        through_pointer = {(ids[f], line) for f, line in indirect if f in ids}
        print(
            f"{project.name} {project.tag}: {len(compiled)} units compiled, {len(functions)} functions, "
            f"{len(spelled)} calls the source spells ({len(truth)} between indexed symbols; "
            f"{len(unmatched)} functions without a symbol of theirs)"
        )
        for why, n in left.most_common():
            print(f"  left out: {n} {why}")
        print(f"  {'method':<22} {'given':>6} {'recall':>7} {'any basis':>9} {'precision':>9}")
        shown = args.wrong if not project.holdout else 0
        compare(conn, truth, set(ids.values()), through_pointer, shown)
        called = {(ids[a], ids[b]) for a, b in operators if a in ids and b in ids and ids[a] != ids[b]}
        print(f"  the calls of its operators ({len(called)} between indexed symbols):")
        compare(conn, called, set(ids.values()), through_pointer, shown)
        conn.close()


if __name__ == "__main__":
    main()
