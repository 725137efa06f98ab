"""A module's tests, as a contract and a context pack list them, against the tests that really execute it.

    python bench/facts_tests_modules.py [--cache DIR] [--self-cache DIR] [--no-self]
        [--js-cache DIR] [--mirrors DIR] [--no-js] [--show N]

Ground truth is the one of bench/facts_tests.py (the suites of click, itsdangerous, markupsafe, jinja2,
python-dateutil and Flask run under coverage with a context per test), of bench/facts_tests_self.py (this
repository's suite, cached by commit; the tree must be clean to make it) and of bench/facts_tests_js.py
(npm/node-semver and tj/commander.js, each test file run alone under V8's coverage; `fetch`ed mirrors, node and
npm needed): a module's tests are the test files executing any of its functions (a line of it for Python, a
named function for JavaScript). Every module of the package that coverage reports is asked (for JavaScript: with
a named function some test executes), with the index as each bench builds it.

Answers, each the test files of the first N entries (N: 12 for a pack, 25 for a contract):
- module tests: what `get_module_contract` and `get_context_pack` list (store/testmap.tests_for_module);
- near only: the tests calling its code or one function away, then the test files importing it (the answer
  before 2026-12-06, which said "none found" of a module its tests reach through two calls or more).

Printed per project, per language and in total: recall and precision averaged over the modules (an empty list
has precision 1), and "untested, wrongly": how many modules some test executes get no test at all.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import facts_tests  # noqa: E402
import facts_tests_js  # noqa: E402
import facts_tests_self  # noqa: E402

LISTS = {"pack": 12, "contract": 25}
Project = tuple[str, Path, dict[str, set[str]]]  # name, indexed tree, module path -> test files executing it


def module_truth(functions: dict[str, dict[str, set[str]]]) -> dict[str, set[str]]:
    """path -> the test files executing any of its functions."""
    return {path: set().union(*fs.values()) if fs else set() for path, fs in functions.items()}


def answers(conn, graph, path: str) -> dict[str, list[str]]:  # type: ignore[no-untyped-def]
    from codeannals.store import testmap

    out = {}
    for label, n in LISTS.items():
        given = testmap.tests_for_module(conn, path, graph=graph, enough=n)
        near = testmap._module_tests(conn, graph, path, testmap.MODULE_CALL_DEPTH, 1, n)  # the answer before
        out[f"module tests, {label}"] = testmap.files_of(given)[:n]
        out[f"near only, {label}"] = testmap.files_of(near)[:n]
    return out


def score_project(name: str, repo: Path, truth: dict[str, set[str]], show: int) -> dict[str, list[float]]:
    """Each answer's [recall sum, precision sum, modules, wrongly untested]."""
    from codeannals.store.db import connect
    from codeannals.store.graph import import_graph

    conn = connect(repo / ".annals" / "annals.db", readonly=True)
    graph = import_graph(conn)
    sums: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0, 0])
    worst = []
    for path in sorted(truth):
        if conn.execute("SELECT 1 FROM files WHERE path = ?", (path,)).fetchone() is None:
            continue
        real = truth[path]
        for label, listed in answers(conn, graph, path).items():
            recall, precision = facts_tests.score(set(listed), real)
            s = sums[label]
            s[0] += recall
            s[1] += precision
            s[2] += 1
            s[3] += bool(real) and not listed
            if label == "module tests, pack":
                worst.append((recall, path, len(real), listed))
    conn.close()
    print(f"{name}: {int(sums['module tests, pack'][2])} modules")
    print_sums(sums)
    for recall, path, executing, listed in sorted(worst)[:show]:
        print(f"    recall {recall:.2f}: {path} (executed by {executing} test files; {len(listed)} listed)")
    return sums


def pypi_projects(cache: Path) -> list[Project]:
    out = []
    for name, version, package in (*facts_tests.PROJECTS, *facts_tests.TESTS_ONLY):
        truth = facts_tests.ground_truth(cache, name, version, package)
        functions = {
            path: {q: set(f["files"]) for q, f in fs.items()} for path, fs in truth.items() if path.startswith(package)
        }
        repo = facts_tests.indexed_copy(cache, name, version, cache / "src" / f"{name}-{version}")
        out.append((name, repo, module_truth(functions)))
    return out


def this_repository(cache: Path, scratch: Path, commit: str) -> Project:
    truth = facts_tests_self.ground_truth(cache, commit)
    functions: dict[str, dict[str, set[str]]] = defaultdict(dict)
    for (path, qualname), (_, files) in truth.items():
        if path.split("/")[0] in facts_tests_self.PACKAGES:
            functions[path][qualname] = files
    tree = facts_tests_self.indexed_clone(scratch, commit)
    return f"codeannals at {commit[:10]}", tree, module_truth(functions)


def js_projects(mirrors: Path, cache: Path) -> list[Project]:
    """The projects of facts_tests_js.py, checked out and indexed as its main() does."""
    if not shutil.which("node") or not shutil.which("npm"):
        sys.exit("node and npm are needed to run the JavaScript suites: install Node.js 18 or later, or pass --no-js")
    cache.mkdir(parents=True, exist_ok=True)
    out = []
    for project in facts_tests_js.PROJECTS:
        work = facts_tests_js.checkout(mirrors, cache, project)
        functions: dict[str, dict[str, set[str]]] = defaultdict(dict)
        for key, fact in facts_tests_js.ground_truth(work, cache, project).items():
            if fact["path"].split("/")[0] in project.folders:
                functions[fact["path"]][key] = set(fact["files"])
        source = cache / "src" / f"{project.name}-{project.tag}"
        if not source.exists():
            facts_tests.run(["git", "clone", "-q", "--no-local", str(work), str(source)], cache)
            shutil.rmtree(source / ".git")
        repo = facts_tests.indexed_copy(cache, project.name, project.tag, source)
        out.append((f"{project.name} {project.tag}", repo, module_truth(functions)))
    return out


def print_sums(sums: dict[str, list[float]]) -> None:
    for label, s in sums.items():
        print(f"  {label:<22} recall {s[0] / s[2]:.3f}  precision {s[1] / s[2]:.3f}  untested, wrongly {int(s[3])}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=facts_tests.default_cache())
    parser.add_argument("--self-cache", type=Path, default=Path.home() / ".cache" / "codeannals-bench" / "self")
    parser.add_argument("--no-self", action="store_true", help="leave this repository's suite out")
    parser.add_argument("--self-commit", help="this repository at another commit (its truth cached), HEAD if none")
    parser.add_argument("--js-cache", type=Path, default=facts_tests_js.default_cache())
    parser.add_argument("--mirrors", type=Path, default=Path(os.environ.get("LOCALIZE_MIRRORS", "/work/.mirror")))
    parser.add_argument("--no-js", action="store_true", help="leave the JavaScript projects out")
    parser.add_argument("--show", type=int, default=0, help="print the N modules of lowest recall per project")
    args = parser.parse_args()
    args.self_cache.mkdir(parents=True, exist_ok=True)
    totals: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0.0, 0.0, 0, 0]))
    with tempfile.TemporaryDirectory() as scratch:
        languages = {"Python": pypi_projects(args.cache.resolve())}
        if not args.no_self:
            commit = facts_tests_self.full_commit(args.self_commit or "HEAD")
            languages["Python"].append(this_repository(args.self_cache, Path(scratch), commit))
        if not args.no_js:
            languages["JavaScript"] = js_projects(args.mirrors, args.js_cache.resolve())
        for language, projects in languages.items():
            for name, repo, truth in projects:
                for label, s in score_project(name, repo, truth, args.show).items():
                    for group in (language, "all"):
                        totals[group][label] = [a + b for a, b in zip(totals[group][label], s, strict=True)]
    for group in (*languages, "all"):
        print(f"{group} projects, modules averaged")
        print_sums(totals[group])


if __name__ == "__main__":
    main()
