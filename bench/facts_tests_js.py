"""Tests to run in a JavaScript project, against the test files that really execute the code.

    python bench/facts_tests_js.py [--mirrors DIR] [--cache DIR] [--per-project N]

The Python suites of bench/facts_tests.py have per-test coverage contexts; a JavaScript suite has none,
but its runner runs files (tap, Mocha, Jest, node --test are given test files), so the ground truth
here is per file: each test file of a project (a `fetch`ed mirror, at a fixed tag) run alone under
node with V8's coverage (NODE_V8_COVERAGE, which child processes inherit), and, for each named function
of the package, the test files that execute it. The test files are those the project's runner runs:
npm/node-semver's tap runs every file under test/ but fixtures; tj/commander.js's `node --test` runs
its `*.test.js` (and node's other default patterns). commander was added after the rules for JavaScript
test files were chosen on semver. Dev dependencies come from the npm registry once; everything is
cached under --cache.

Each project is indexed with this checkout's `annals index --no-vectors` (fresh every run). The
functions asked about follow a fixed rule: the named functions some test file executes, in (path,
line) order, evenly spaced, N per project. Scored as bench/facts_tests.py scores them: recall and
precision of the test files `impact` lists, averaged over the functions, with the answers beside it:
its first 12 (as many as a context pack shows), its entries with a call path only, and every test file
importing the module (up to 3 imports away).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from facts_tests import ANNALS, evenly_spaced, indexed_copy, run, score  # noqa: E402  (bench/ is not a package)


@dataclass(frozen=True)
class Project:
    name: str
    github: str  # the mirror's owner/name
    tag: str
    deps: tuple[str, ...]  # dev dependencies to install for the tests (none: node alone runs them)
    folders: tuple[str, ...]  # where the functions asked about are
    tests: str  # the tracked files the project's runner runs, as a regular expression
    added_last: bool = False


# node --test's default patterns (Node 20): *.test.js, *-test.js, *_test.js, test-*.js, test.js, test/**.
NODE_TEST_FILES = r"(^|/)([^/]*[.\-_]test|test-[^/]*|test)\.[cm]?js$"
PROJECTS = (
    Project(
        "semver",
        "npm/node-semver",
        "v7.8.5",
        ("tap@16",),
        ("classes", "functions", "internal", "ranges"),
        r"^test/(?!(.*/)?fixtures/).*\.[cm]?js$",
    ),
    Project("commander", "tj/commander.js", "v15.0.0", (), ("lib",), NODE_TEST_FILES, added_last=True),
)
PER_PROJECT = 60
TRUTH_VERSION = 2


def default_cache() -> Path:
    return Path(os.environ.get("ANNALS_FACTS_JS_CACHE", "/work/corpora/tests/facts_js"))


def mirror_of(mirrors: Path, github: str) -> Path:
    """The `fetch`ed mirror of a GitHub repository (owner/name); a one-line exit naming the fix when missing."""
    mirror = mirrors / github.replace("/", "+") / "repo"
    if not mirror.is_dir():
        sys.exit(f"no mirror of {github} at {mirror}: fetch github:{github} or pass --mirrors DIR")
    return mirror


def tag_tree(mirrors: Path, cache: Path, github: str, name: str, tag: str, folders: tuple[str, ...] = ()) -> Path:
    """A project's tree at its tag (or those folders of it), extracted once under `cache/runs`: the tag's tree
    alone, since a mirror may lack objects of its older history (or its docs' largest files) that a clone
    would read."""
    work = cache / "runs" / f"{name}-{tag}"
    if (work / ".ready").exists():
        return work
    mirror = mirror_of(mirrors, github)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    archive = cache / "archive.tar"
    run(["git", f"--git-dir={mirror}", "archive", "-o", str(archive), tag, *folders], cache)
    run(["tar", "-xf", str(archive), "-C", str(work)], cache)
    (work / ".ready").write_text(tag)
    return work


def checkout(mirrors: Path, cache: Path, project: Project) -> Path:
    """The project at its tag, with the dev dependencies its tests need (installed once)."""
    work = cache / "runs" / f"{project.name}-{project.tag}"
    if (work / ".ready").exists():
        return work
    mirror = mirror_of(mirrors, project.github)
    shutil.rmtree(work, ignore_errors=True)
    work.parent.mkdir(parents=True, exist_ok=True)
    run(["git", "clone", "-q", "--no-local", str(mirror), str(work)], cache)
    run(["git", "checkout", "-q", project.tag], work)
    if project.deps:
        print(f"installing {project.name}'s test dependencies ({', '.join(project.deps)})...", file=sys.stderr)
        run(["npm", "install", "--no-audit", "--no-fund", "--ignore-scripts", "--no-save", *project.deps], work)
    (work / ".ready").write_text(project.tag)
    return work


def test_files(work: Path, project: Project) -> list[str]:
    return sorted(p for p in run(["git", "ls-files"], work).split() if re.search(project.tests, p))


def line_of(source: str, offset: int) -> int:
    return source.count("\n", 0, offset) + 1


def ground_truth(work: Path, cache: Path, project: Project) -> dict[str, dict[str, Any]]:
    """{"path::name@line": {path, name, line, files}}: the test files executing each named function."""
    out = cache / f"truth-{project.name}-{project.tag}-v{TRUTH_VERSION}.json"
    if out.exists():
        return json.loads(out.read_text())
    truth: dict[str, dict[str, Any]] = {}
    sources: dict[str, str] = {}
    files = test_files(work, project)
    print(f"running {len(files)} test files of {project.name} under V8 coverage...", file=sys.stderr)
    for test in files:
        coverage = cache / "v8" / test.replace("/", "+")
        shutil.rmtree(coverage, ignore_errors=True)
        subprocess.run(
            ["node", test], cwd=work, env={**os.environ, "NODE_V8_COVERAGE": str(coverage)}, capture_output=True
        )
        for report in coverage.glob("*.json"):
            for script in json.loads(report.read_text())["result"]:
                url = script["url"]
                if not url.startswith(f"file://{work}/") or "/node_modules/" in url:
                    continue
                path = url.removeprefix(f"file://{work}/")
                if path.split("/")[0] not in project.folders:
                    continue
                if path not in sources:
                    sources[path] = (work / path).read_text(encoding="utf-8", errors="replace")
                for fn in script["functions"]:
                    if not fn["functionName"] or fn["ranges"][0]["count"] == 0:
                        continue
                    line = line_of(sources[path], fn["ranges"][0]["startOffset"])
                    key = f"{path}::{fn['functionName']}@{line}"
                    entry = truth.setdefault(key, {"path": path, "name": fn["functionName"], "line": line, "files": []})
                    if test not in entry["files"]:
                        entry["files"].append(test)
    out.write_text(json.dumps(truth, indent=1, sort_keys=True))
    return truth


def chosen(truth: dict[str, dict[str, Any]], folders: tuple[str, ...], n: int) -> list[dict[str, Any]]:
    every = sorted(
        (f for f in truth.values() if f["path"].split("/")[0] in folders), key=lambda f: (f["path"], f["line"])
    )
    return evenly_spaced(every, n)


def symbol_for(conn: Any, fact: dict[str, Any]) -> dict[str, Any] | None:
    """Our symbol for V8's (or `go tool cover`'s) function: same file and name, the innermost whose lines hold
    the first line it gives. Both name a function whole (`module.exports`, `String` of a method), where
    facts_tests.symbol_for takes the last part of coverage's dotted qualname."""
    from codeannals.store import lookups

    rows = conn.execute(
        "SELECT * FROM symbols WHERE path = ? AND name = ? AND start_line <= ? AND end_line >= ?"
        " ORDER BY end_line - start_line LIMIT 1",
        (fact["path"], fact["name"], fact["line"], fact["line"]),
    ).fetchall()
    return lookups.symbol_dict(rows[0]) if rows else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirrors", type=Path, default=Path(os.environ.get("LOCALIZE_MIRRORS", "/work/.mirror")))
    parser.add_argument("--cache", type=Path, default=default_cache())
    parser.add_argument("--per-project", type=int, default=PER_PROJECT)
    args = parser.parse_args()
    from codeannals.store import queries, testmap
    from codeannals.store.db import connect

    if not shutil.which("node") or not shutil.which("npm"):
        sys.exit("node and npm are needed to run the JavaScript suites: install Node.js 18 or later")
    cache: Path = args.cache.resolve()
    cache.mkdir(parents=True, exist_ok=True)
    answers = ("testmap", "testmap first 12", "testmap calls only", "testmap + importers")
    sums = {a: [0.0, 0.0] for a in answers}
    asked = 0
    started = time.perf_counter()
    for project in PROJECTS:
        work = checkout(args.mirrors, cache, project)
        truth = ground_truth(work, cache, project)
        source = cache / "src" / f"{project.name}-{project.tag}"
        if not source.exists():
            run(["git", "clone", "-q", "--no-local", str(work), str(source)], cache)
            shutil.rmtree(source / ".git")
        repo = indexed_copy(cache, project.name, project.tag, source)
        conn = connect(repo / ".annals" / "annals.db")
        scores = {a: [0.0, 0.0] for a in answers}
        functions = chosen(truth, project.folders, args.per_project)
        found = 0
        for fact in functions:
            symbol = symbol_for(conn, fact)
            if symbol is None:  # a getter, `module.exports = (...) => ...`: no symbol of that name
                print(f"  no symbol for {fact['path']}::{fact['name']} (line {fact['line']})", file=sys.stderr)
                continue
            found += 1
            ranked = testmap.tests_for_symbol(conn, symbol, root=repo)
            listed = queries.impact(conn, symbol["id"], root=repo)["tests"]  # test files, for JavaScript
            lists = {
                "testmap": set(listed),
                "testmap first 12": set(listed[:12]),  # as many as a context pack shows
                "testmap calls only": set(testmap.files_of([t for t in ranked if t.by_call])),
                "testmap + importers": set(
                    testmap.files_of(ranked + testmap.unlisted_importers(conn, symbol["path"], ranked))
                ),
            }
            for a, listed in lists.items():
                r, p = score(listed, set(fact["files"]))
                for total in (sums[a], scores[a]):
                    total[0] += r
                    total[1] += p
        asked += found
        n = found or 1
        held = " (added last)" if project.added_last else ""
        print(
            f"{project.name} {project.tag}{held}: {found} of {len(functions)} functions, "
            f"{len(test_files(work, project))} test files; "
            + "; ".join(f"{a} R {s[0] / n:.2f} P {s[1] / n:.2f}" for a, s in scores.items())
        )
        conn.close()
    print(f"\n{asked} functions asked, {time.perf_counter() - started:.1f} s (annals: {ANNALS})")
    print(f"{'answer':<22} {'recall':>7} {'precision':>9}")
    for a in answers:
        print(f"{a:<22} {sums[a][0] / max(asked, 1):>7.3f} {sums[a][1] / max(asked, 1):>9.3f}")


if __name__ == "__main__":
    main()
