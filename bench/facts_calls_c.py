"""C callers of the index against the call graph GCC writes while it compiles.

    python bench/facts_calls_c.py [--mirrors DIR] [--cache DIR]

Ground truth written by the compiler: each Linux translation unit of a project (a `fetch`ed mirror at a fixed tag:
its library sources and its tests) compiled with `gcc -O0 -fcallgraph-info`, whose .ci files list every direct call
a function makes and where each function is defined (a `static` one under its unit's name, a global one by its
name, linked to the unit defining it). Calls through a pointer are left out (GCC names no callee), and so are
callees no compiled unit defines (the C library's).

For each call GCC lists, whether the index's callers of the callee (`lookups.callers`, at most 500) hold the caller:
on a basis the index follows (a resolved call or a stand-in: `callgraph.FOLLOWED`), or at all (a `name only` guess
too), for the callers in each top folder (the library's src/, the tests'). A function of GCC's is the index's
symbol defined on its line, else the one of its name: libuv's `TEST_IMPL(loop_alive) { ... }` defines
`run_test_loop_alive`, which the index knows as the test loop_alive. The calls a macro's body makes (libuv's
`MAKE_VALGRIND_HAPPY(loop)` calls close_loop, uv_loop_close and uv_library_shutdown) GCC sees expanded and a
reader of the source does not: those stay out of reach. Precision: of the callers the index gives on a followed
basis from functions GCC compiled (not from another platform's `#ifdef` branch), the share GCC lists.
The baseline in the same run is the index's answer with the basis `through its prototype` counted as the guess it
was before 2026-12-04 (a C call of a function declared in a header reached its definition by name only).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from codeannals.store.lookups import is_test_path  # noqa: E402
from facts_imports_java import ANNALS, checkout  # noqa: E402  (bench/ is not a package)

_NODE = re.compile(
    r'node: \{ title: "(?P<title>[^"]+)" label: "(?P<name>[^"\\]+)\\n(?P<file>[^":]+):(?P<line>\d+):\d+" \}'
)
_EDGE = re.compile(r'edge: \{ sourcename: "(?P<source>[^"]+)" targetname: "(?P<target>[^"]+)"')


@dataclass(frozen=True)
class Project:
    name: str
    github: str
    tag: str
    units: tuple[str, ...]  # globs of the translation units compiled on Linux
    includes: tuple[str, ...]


PROJECTS = (
    Project(
        "libuv",
        "libuv/libuv",
        "v1.52.1",
        (
            "src/*.c",
            *(
                f"src/unix/{n}.c"
                for n in (
                    "async core dl fs getaddrinfo getnameinfo loop-watcher loop pipe poll process random-devurandom "
                    "signal stream tcp thread tty udp linux procfs-exepath proctitle random-getrandom "
                    "random-sysctl-linux"
                ).split()
            ),
            "test/test-*.c",
        ),
        ("include", "src", "test"),
    ),
    # The hold-out (2026-12-05, after the rules for libuv's macros): read in total only. Its library and test.c sit
    # at the top level; ssl.c and the examples need libraries this machine lacks, and are left uncompiled.
    Project("hiredis", "redis/hiredis", "v1.4.1", ("*.c", "examples/*.c"), (".",)),
)
HOLDOUTS = frozenset({"hiredis"})


def area(caller: str) -> str:
    """Where a caller is: the tests (libuv's test/, hiredis's test.c), or the top folder of the code (`.` at the
    top level)."""
    path = caller.split("::")[0]
    return "tests" if is_test_path(path) else (path.split("/")[0] + "/" if "/" in path else "./")


Function = tuple[str, str, int]  # GCC's function: its file, name and line


def gcc_calls(
    project: Project, root: Path, cache: Path
) -> tuple[set[tuple[Function, Function]], set[str], set[Function]]:
    """(caller, callee) of every direct call GCC compiled between functions of the compiled units, the files of those
    units, and every function GCC compiled (a function under another platform's `#ifdef` is none of them)."""
    out = cache / f"{project.name}-ci"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir()
    units = sorted({str(p.relative_to(root)) for pattern in project.units for p in root.glob(pattern)})
    flags = ["-O0", "-D_GNU_SOURCE", "-fcallgraph-info", *(f"-I{d}" for d in project.includes)]
    nodes: dict[str, Function] = {}  # title -> function (a global function: by its name, across the units)
    edges: list[tuple[str, str]] = []
    compiled = set()
    for n, unit in enumerate(units):
        obj = out / f"{n}.o"
        proc = subprocess.run(["gcc", *flags, "-c", unit, "-o", str(obj)], cwd=root, capture_output=True, text=True)
        if proc.returncode != 0:
            continue  # a unit of another platform's: its calls are no truth here
        compiled.add(unit)
        text = obj.with_suffix(".ci").read_text()
        for m in _NODE.finditer(text):
            path = os.path.relpath(os.path.normpath(root / m["file"]), root)
            nodes.setdefault(m["title"], (path, m["name"], int(m["line"])))
        edges += [(m["source"], m["target"]) for m in _EDGE.finditer(text)]
    calls = {(nodes[s], nodes[t]) for s, t in edges if s in nodes and t in nodes and nodes[s] != nodes[t]}
    return calls, compiled, set(nodes.values())


def index_callers(root: Path, functions: set[Function]) -> tuple[dict[Function, str], dict[str, dict[str, str]]]:
    """The index's id of each of GCC's functions, and its callers of each: caller id -> basis. A function is the
    symbol defined where GCC says it is, or by its name: libuv's `TEST_IMPL(loop_alive)` defines run_test_loop_alive,
    which the index knows as the test loop_alive."""
    shutil.rmtree(root / ".annals", ignore_errors=True)
    env = {**os.environ, "ANNALS_VECTORS": "off"}
    subprocess.run(
        [ANNALS, "-C", str(root), "index", "--no-vectors", "--wait"], check=True, capture_output=True, env=env
    )
    from codeannals.store import lookups, open_store, queries

    conn = open_store(root / ".annals" / "annals.db")
    try:
        defined_at = {
            (row["path"], row["start_line"]): row["id"]
            for row in conn.execute("SELECT id, path, start_line FROM symbols WHERE kind = 'function'")
        }
        ids = {f: defined_at.get((f[0], f[2]), f"{f[0]}::{f[1]}") for f in functions}
        callees = set(ids.values())
        found: dict[str, dict[str, str]] = {}
        for callee in sorted(callees):
            try:
                symbol = queries.find_symbol(conn, callee)
            except lookups.NotFound:
                continue
            found[callee] = {}
            for c in lookups.callers(conn, symbol, 500):  # best basis first: a caller's first call is its best
                if c["caller"]:
                    found[callee].setdefault(c["caller"], c["basis"])
        return ids, found
    finally:
        conn.close()


def main() -> None:
    from codeannals.store.callgraph import FOLLOWED
    from codeannals.store.cprototypes import THROUGH_PROTOTYPE

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mirrors", type=Path, default=Path(os.environ.get("LOCALIZE_MIRRORS", "/work/.mirror")))
    parser.add_argument("--cache", type=Path, default=Path("/work/corpora/calls_c"))
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    print(f"{'project':<8} {'method':<22} {'calls':>6} {'recall':>7} {'any basis':>9} {'precision':>9}")
    for project in PROJECTS:
        root = checkout(project.name, project.github, project.tag, args.mirrors, args.cache)
        calls, compiled, functions = gcc_calls(project, root, args.cache)
        ids, known = index_callers(root, functions)
        compiled_ids = {ids[f] for f in functions}
        truth = {(ids[caller], ids[callee]) for caller, callee in calls if ids[caller] != ids[callee]}
        scored = {(caller, callee) for caller, callee in truth if callee in known}
        units = f"({len(compiled)} units, {len(scored)} calls of indexed callees)"
        label = f"{units} (hold-out)" if project.name in HOLDOUTS else units
        print(f"{project.name:<8} {'gcc -fcallgraph-info':<22} {len(truth):>6}  {label}")
        for place in sorted({area(caller) for caller, _ in scored}):  # the library's callers, the tests'
            print(f"  callers in {place}")
            among = {(caller, callee) for caller, callee in scored if area(caller) == place}
            for method, followed in (("annals", FOLLOWED), ("by name (before)", FOLLOWED - {THROUGH_PROTOTYPE})):
                hit = sum(1 for caller, callee in among if known[callee].get(caller) in followed)
                anyhow = sum(1 for caller, callee in among if caller in known[callee])
                given = [
                    (caller, callee)
                    for callee, callers in known.items()
                    for caller, basis in callers.items()
                    if basis in followed and caller in compiled_ids and area(caller) == place
                ]
                right = sum(1 for edge in given if edge in truth)
                recall, any_basis = hit / max(1, len(among)), anyhow / max(1, len(among))
                precision = right / max(1, len(given))
                print(
                    f"{project.name:<8} {method:<22} {len(given):>6} {recall:>7.3f} {any_basis:>9.3f} {precision:>9.3f}"
                )


if __name__ == "__main__":
    main()
