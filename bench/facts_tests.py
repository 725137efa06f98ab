"""Tests to run, against the tests that really execute the code (issue 14).

    python bench/facts_tests.py [--cache DIR] [--per-project N]

Ground truth, written by no one here: the real suites of click, itsdangerous, markupsafe, jinja2,
python-dateutil and Flask (their PyPI sdists; the last three added later, see ADDED_LAST) run once under
coverage with a context per test (pytest-cov `--cov-context=test`), in a venv of the bench's own; for each
function, the test files whose tests execute a line of its body. Everything is cached under --cache (default
$ANNALS_FACTS_CACHE or /work/corpora/tests/facts_tests); a missing piece is rebuilt, so one command
reproduces the figures.

Each project is indexed with this checkout's `annals index --no-vectors` (fresh every run). The
functions asked about follow a fixed rule: every function coverage reports in the package whose
body at least one test executes, in (path, line) order, taken evenly spaced, N per project.

For each, the test files each answer lists are scored against the files that execute it: recall
(of the executing files, how many are listed) and precision (of the listed files, how many
execute it), averaged over the functions (an empty list has precision 1). Answers:

- testmap: what `impact` lists (queries.impact, from store/testmap.py): the tests with a call path to
  the function, ranked; when there is none, the test files importing its module;
- testmap first 12: the files of its first 12 entries, in its order (a context pack shows 12 tests);
- testmap calls only: its entries with a call path;
- testmap + importers: also every test file importing the module (up to 3 imports away), which
  impact counts in its tests_note;
- issue 14 (before): the tests `impact` listed before this change (a copy of that code);
- package importers: every test file importing a file of the function's package.

Also the node ids: of the tests (node ids without parameters) executing a function, how many the
testmap lists, directly or through its file. Target (issue 14): recall >= 0.9, precision >= 0.5.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tarfile
import time
from collections import deque
from pathlib import Path
from typing import Any

ANNALS = str(Path(sys.executable).parent / "annals")
PROJECTS = (
    ("click", "8.1.7", "src/click"),
    ("itsdangerous", "2.2.0", "src/itsdangerous"),
    ("MarkupSafe", "2.1.5", "src/markupsafe"),
    ("Jinja2", "3.1.4", "src/jinja2"),
    ("python-dateutil", "2.9.0.post0", "src/dateutil"),
)
TESTS_ONLY = (("Flask", "3.0.3", "src/flask"),)  # judged here, not by bench/facts_calls_py.py
# Added after store/testmap.py's rules were chosen on the other three. Jinja2's first figure, with those
# rules: recall 0.73, precision 0.33; IMPORT_DEPTH and the rule for functions nothing calls by name
# were then set with it in view, so it is no longer held out. python-dateutil came with the rule that a
# unittest TestCase is a test class whatever its name (`class RelativeDeltaTest(unittest.TestCase)`):
# pytest's own rule, not one fitted to it. Flask came on 2026-11-29, to check the rules on a framework whose code
# runs through decorators, dispatch and signals (the rule for code nothing calls by name, chosen with Jinja2's
# filters in view, most of all); no rule was chosen with it in view.
ADDED_LAST = {"Jinja2", "python-dateutil", "Flask"}
TOOLS = (
    "pytest==9.2.0",
    "coverage==7.17.4",
    "pytest-cov==7.1.0",
    "freezegun==1.5.5",
    "MarkupSafe==2.1.5",
    "six==1.17.0",  # python-dateutil 2.9's own dependency
    "hypothesis==6.115.0",  # python-dateutil's tests/property
    "pretend==1.0.9",  # packaging's tests (bench/facts_calls_py.py)
    "simplejson==3.19.3",  # marshmallow's tests (bench/facts_calls_py.py)
)
# A suite the bench's pytest cannot run gets a venv of its own: Flask 3's imports `_pytest.monkeypatch.notset`,
# which pytest 9 dropped. With Flask's dependencies, and asgiref for its async views' tests.
OWN_TOOLS = {
    "Flask": (
        "pytest==8.3.5",
        "coverage==7.17.4",
        "pytest-cov==7.1.0",
        "Werkzeug==3.0.3",
        "Jinja2==3.1.4",
        "itsdangerous==2.2.0",
        "click==8.1.7",
        "blinker==1.8.2",
        "asgiref==3.8.1",
    )
}
PER_PROJECT = 40
TRUTH_VERSION = 1
# The sdists' setup.cfg turn every warning into an error; the newer pytest of the bench warns about
# their fixtures' style. Those warnings are not what the suites test.
QUIET_PYTEST = ("-q", "-p", "no:cacheprovider", "-W", "ignore::DeprecationWarning")
PYTEST_ARGS = (*QUIET_PYTEST, "-W", "ignore::pytest.PytestRemovedIn10Warning")  # a warning pytest 9 names


def pytest_args(project: str) -> tuple[str, ...]:
    """What the project's suite runs with: a suite in a venv of its own (OWN_TOOLS) has a pytest before 9."""
    return QUIET_PYTEST if project in OWN_TOOLS else PYTEST_ARGS


def default_cache() -> Path:
    return Path(os.environ.get("ANNALS_FACTS_CACHE", "/work/corpora/tests/facts_tests"))


def run(argv: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(argv, cwd=cwd, env={**os.environ, **(env or {})}, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(argv)}\n{proc.stderr[-2000:]}{proc.stdout[-2000:]}")
    return proc.stdout


# --- ground truth -------------------------------------------------------------------------------


def bench_python(cache: Path, project: str | None = None) -> str:
    """The python of the venv the project's suite runs in (the bench's own, unless OWN_TOOLS names one)."""
    tools = OWN_TOOLS.get(project or "", TOOLS)
    return venv_python(cache / (f"venv-{project}" if project in OWN_TOOLS else "venv"), tools)


def venv_python(venv: Path, tools: tuple[str, ...]) -> str:
    """The python of a venv with these tools, made again when they change."""
    python = venv / "bin" / "python"
    ready = venv / "ready"
    if not ready.exists() or ready.read_text() != " ".join(tools):
        print(f"making the bench's venv ({venv})...", file=sys.stderr)
        shutil.rmtree(venv, ignore_errors=True)
        run([sys.executable, "-m", "venv", str(venv)])
        run([str(python), "-m", "pip", "install", "-q", *tools])
        ready.write_text(" ".join(tools))
    return str(python)


def source(cache: Path, name: str, version: str, python: str) -> Path:
    """The sdist, unpacked (tests included), as released."""
    dest = cache / "src" / f"{name}-{version}"
    if (dest / "PKG-INFO").exists():
        return dest
    downloads = cache / "downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    run(
        [
            python,
            "-m",
            "pip",
            "download",
            "-q",
            "--no-binary",
            ":all:",
            "--no-deps",
            f"{name}=={version}",
            "-d",
            str(downloads),
        ]
    )
    archive = next(p for p in downloads.iterdir() if p.name.lower().startswith(f"{name.lower()}-{version}"))
    with tarfile.open(archive) as tf:
        tf.extractall(cache / "src", filter="data")
    unpacked = next(p for p in (cache / "src").iterdir() if p.name.lower() == f"{name.lower()}-{version}")
    if unpacked != dest:
        unpacked.rename(dest)
    return dest


def ground_truth(cache: Path, name: str, version: str, package: str) -> dict[str, Any]:
    """{path: {qualname: {line, files, tests}}}: the tests executing each function's body."""
    out = cache / f"truth-{name}-{version}-v{TRUTH_VERSION}.json"
    if out.exists():
        return json.loads(out.read_text())
    python = bench_python(cache, name)
    root = source(cache, name, version, python)
    work = cache / "runs" / f"{name}-{version}"
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(root, work)
    print(f"running the {name} suite under coverage...", file=sys.stderr)
    coverage = (f"--cov={package}", "--cov-context=test", "--cov-report=")
    proc = subprocess.run(
        [python, "-m", "pytest", *pytest_args(name), *coverage, "tests"],
        cwd=work,
        env={**os.environ, "PYTHONPATH": "src"},
        capture_output=True,
        text=True,
        check=False,
    )
    print(f"  {proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else proc.stderr[-500:]}", file=sys.stderr)
    run([python, "-m", "coverage", "json", "--show-contexts", "-q", "-o", str(work / "cov.json")], work)
    report = json.loads((work / "cov.json").read_text())
    truth: dict[str, Any] = {}
    for path, data in report["files"].items():
        for qualname, region in data["functions"].items():
            if not qualname:
                continue  # module level
            tests: set[str] = set()
            for line in region["executed_lines"]:
                for context in data["contexts"].get(str(line), []):
                    if context:
                        tests.add(context.split("|")[0].split("[")[0])
            files = sorted({t.split("::")[0] for t in tests})
            truth.setdefault(path, {})[qualname] = {
                "line": region["start_line"],
                "tests": sorted(tests),
                "files": files,
            }
    out.write_text(json.dumps(truth, indent=1, sort_keys=True))
    return truth


# --- the answers --------------------------------------------------------------------------------


def indexed_copy(cache: Path, name: str, version: str, root: Path, leave_out: tuple[str, ...] = ()) -> Path:
    """A fresh copy of the tree (one commit, no history; `leave_out`: names of files and folders not copied),
    indexed by this checkout."""
    repo = cache / "index" / f"{name}-{version}"
    shutil.rmtree(repo, ignore_errors=True)
    shutil.copytree(root, repo, ignore=shutil.ignore_patterns(*leave_out) if leave_out else None)
    env = {
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "bench",
        "GIT_AUTHOR_EMAIL": "bench@localhost",
        "GIT_COMMITTER_NAME": "bench",
        "GIT_COMMITTER_EMAIL": "bench@localhost",
    }
    run(["git", "init", "-q"], repo, env)
    run(["git", "add", "-A"], repo, env)
    run(["git", "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "sdist"], repo, env)
    run([ANNALS, "-C", str(repo), "index", "--no-vectors", "--wait"])
    return repo


class Lines:
    """Source lines of the tree, read once."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.files: dict[str, list[str]] = {}

    def __call__(self, path: str, line: int) -> str:
        if path not in self.files:
            self.files[path] = (self.root / path).read_text(errors="replace").splitlines()
        text = self.files[path]
        return text[line - 1].strip() if 0 < line <= len(text) else ""


def symbol_for(conn: sqlite3.Connection, path: str, qualname: str, line: int) -> dict[str, Any] | None:
    """Our symbol for coverage's function: same file, its definition spans coverage's first line, same name."""
    from codeannals.store import queries

    name = qualname.split(".")[-1]
    rows = conn.execute(
        "SELECT * FROM symbols WHERE path = ? AND name = ? AND start_line <= ? AND end_line >= ?"
        " ORDER BY start_line DESC",
        (path, name, line, line),
    ).fetchall()
    return queries.symbol_dict(rows[0]) if rows else None


def before_answer(conn: sqlite3.Connection, symbol: dict[str, Any], depth: int = 4) -> set[str]:
    """The tests `annals impact SYMBOL` listed before issue 14: a copy of that code (queries.impact,
    tests_for_symbol, tests_for_path, tests_reaching), so the baseline stays what it was."""
    from codeannals.store.queries import callers, is_test_path, symbol_dict, transitive

    def reaching(paths: list[str], depth_: int = 3) -> set[str]:
        seen = dict.fromkeys(paths, 0)
        queue = deque(paths)
        while queue:
            current = queue.popleft()
            if seen[current] >= depth_:
                continue
            for nxt in (d["path"] for d in transitive(conn, current, reverse=True, depth=1)):
                if nxt not in seen:
                    seen[nxt] = seen[current] + 1
                    queue.append(nxt)
        return {p for p in seen if is_test_path(p)}

    affected: dict[str, int] = {}
    frontier, seen = [(symbol, 0)], {symbol["id"]}
    while frontier:
        current, dist = frontier.pop(0)
        for call in callers(conn, current, limit=200):
            if call["basis"] == "name only" and dist > 0:
                continue
            affected.setdefault(call["path"], dist + 1)
            if call["caller"] and call["caller"] not in seen and dist + 1 < depth:
                seen.add(call["caller"])
                row = conn.execute("SELECT * FROM symbols WHERE id = ?", (call["caller"],)).fetchone()
                if row is not None:
                    frontier.append((symbol_dict(row), dist + 1))
    tests = {r["path"] for r in callers(conn, symbol, limit=500) if is_test_path(r["path"])}
    tests |= reaching([symbol["path"]])
    tests.update(p for p in affected if is_test_path(p))
    tests |= reaching([p for p in affected if not is_test_path(p)])
    return tests


def package_importers(conn: sqlite3.Connection, package: str) -> set[str]:
    from codeannals.store.queries import is_test_path

    return {
        r[0]
        for r in conn.execute("SELECT DISTINCT path FROM resolved_imports WHERE target LIKE ?", (package + "/%",))
        if is_test_path(r[0])
    }


# --- scoring ------------------------------------------------------------------------------------


def not_collected(cache: Path, name: str, version: str, ids: set[str]) -> list[str]:
    """The listed ids `pytest ID` cannot find, asked of the project's own pytest in one collection."""
    work = cache / "runs" / f"{name}-{version}"
    proc = subprocess.run(
        [bench_python(cache, name), "-m", "pytest", "--collect-only", *pytest_args(name), *sorted(ids)],
        cwd=work,
        env={**os.environ, "PYTHONPATH": "src"},
        capture_output=True,
        text=True,
        check=False,
    )
    prefix = f"ERROR: not found: {work}/"
    return [line.removeprefix(prefix) for line in (proc.stdout + proc.stderr).splitlines() if line.startswith(prefix)]


def score(listed: set[str], truth: set[str]) -> tuple[float, float]:
    hit = len(listed & truth)
    return (hit / len(truth) if truth else 1.0), (hit / len(listed) if listed else 1.0)


def chosen(truth: dict[str, Any], package: str, per_project: int) -> list[tuple[str, str, dict[str, Any]]]:
    """The fixed rule: functions of the package executed by some test, in (path, line) order, evenly spaced."""
    every = sorted(
        (
            (path, q, f)
            for path, fs in truth.items()
            if path.startswith(package + "/")
            for q, f in fs.items()
            if f["files"]
        ),
        key=lambda x: (x[0], x[2]["line"], x[1]),
    )
    return evenly_spaced(every, per_project)


def evenly_spaced(items: list[Any], n: int) -> list[Any]:
    """`n` of the items, evenly spaced from the first (all of them when there are no more)."""
    if len(items) <= n:
        return items
    step = len(items) / n
    return [items[int(i * step)] for i in range(n)]


def test_files(tests: set[str]) -> set[str]:
    """The files of test ids (`calc/calc_test.go::TestTwice`, `src/test/.../CalcTest.java::CalcTest#adds`)."""
    return {t.split("::")[0] for t in tests}


def add_scores(lists: dict[str, set[str]], real: set[str], *totals: dict[str, list[float]]) -> None:
    """Each answer's recall and precision of the tests, then of their files, against the tests that really run the
    code, added to each of `totals` (an answer's four sums)."""
    for answer, given in lists.items():
        values = (*score(given, real), *score(test_files(given), test_files(real)))
        for total in totals:
            for i, v in enumerate(values):
                total[answer][i] += v


def averages(scores: dict[str, list[float]], n: int) -> str:
    """`answer R 0.91 P 0.66; ...`: each answer's recall and precision of the tests over `n` functions."""
    return "; ".join(f"{a} R {s[0] / (n or 1):.2f} P {s[1] / (n or 1):.2f}" for a, s in scores.items())


def print_totals(totals: dict[bool, dict[str, list[float]]], asked: dict[bool, int], answers: tuple[str, ...]) -> None:
    """Each answer's recall and precision of the tests, then of their files, averaged over the functions asked, for
    the dev projects and the hold-out apart (facts_tests_java.py's and facts_tests_ruby.py's tables)."""
    for hold_out, sums in totals.items():
        print(f"\n{'hold-out' if hold_out else 'dev'}, {asked[hold_out]} methods")
        print(f"{'answer':<20} {'tests R':>8} {'P':>6} {'files R':>8} {'P':>6}")
        for a in answers:
            s = [v / max(asked[hold_out], 1) for v in sums[a]]
            print(f"{a:<20} {s[0]:>8.3f} {s[1]:>6.3f} {s[2]:>8.3f} {s[3]:>6.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=default_cache())
    parser.add_argument("--per-project", type=int, default=PER_PROJECT)
    args = parser.parse_args()
    from codeannals.store import queries, testmap
    from codeannals.store.db import connect

    cache: Path = args.cache.resolve()
    cache.mkdir(parents=True, exist_ok=True)
    answers = (
        "testmap",
        "testmap first 12",
        "testmap calls only",
        "testmap + importers",
        "issue 14 (before)",
        "package importers",
    )
    sums = {a: [0.0, 0.0] for a in answers}
    pooled = {a: [0, 0, 0] for a in answers}  # hits, listed, truth
    node_recall: list[float] = []
    ids_listed = ids_missing = 0
    asked = missing = 0
    started = time.perf_counter()
    for name, version, package in (*PROJECTS, *TESTS_ONLY):
        truth = ground_truth(cache, name, version, package)
        repo = indexed_copy(cache, name, version, cache / "src" / f"{name}-{version}")
        conn = connect(repo / ".annals" / "annals.db")
        importers = package_importers(conn, package)
        project_sums = {a: [0.0, 0.0] for a in answers}
        functions = chosen(truth, package, args.per_project)
        project_ids: set[str] = set()
        for path, qualname, fact in functions:
            symbol = symbol_for(conn, path, qualname, fact["line"])
            if symbol is None:
                missing += 1
                print(f"  no symbol for {path}::{qualname} (line {fact['line']})", file=sys.stderr)
                continue
            asked += 1
            ranked = testmap.tests_for_symbol(conn, symbol, root=repo)
            listed_by_impact = queries.impact(conn, symbol["id"], root=repo)["tests"]
            project_ids.update(listed_by_impact)
            lists = {
                "testmap": {t.split("::")[0] for t in listed_by_impact},
                "testmap first 12": {t.split("::")[0] for t in listed_by_impact[:12]},  # as many as a pack shows
                "testmap calls only": set(testmap.files_of([t for t in ranked if t.by_call])),
                "testmap + importers": set(
                    testmap.files_of(ranked + testmap.unlisted_importers(conn, symbol["path"], ranked))
                ),
                "issue 14 (before)": before_answer(conn, symbol),
                "package importers": importers,
            }
            actual = set(fact["files"])
            for a, listed in lists.items():
                r, p = score(listed, actual)
                sums[a][0] += r
                sums[a][1] += p
                project_sums[a][0] += r
                project_sums[a][1] += p
                pooled[a][0] += len(listed & actual)
                pooled[a][1] += len(listed)
                pooled[a][2] += len(actual)
            ids = {t.test for t in ranked}
            tests = set(fact["tests"])
            node_recall.append(
                sum(1 for t in tests if t in ids or t.split("::")[0] in ids or "::".join(t.split("::")[:2]) in ids)
                / len(tests)
            )
        missing_ids = not_collected(cache, name, version, project_ids)
        ids_listed += len(project_ids)
        ids_missing += len(missing_ids)
        for i in missing_ids[:5]:
            print(f"  pytest cannot find {i}", file=sys.stderr)
        n = len(functions) or 1
        held = " (added last)" if name in ADDED_LAST else ""
        print(
            f"{name} {version}{held}: {len(functions)} functions; "
            + "; ".join(f"{a} R {s[0] / n:.2f} P {s[1] / n:.2f}" for a, s in project_sums.items())
        )
        conn.close()
    print(f"\n{asked} functions asked ({missing} without a symbol), {time.perf_counter() - started:.1f} s")
    print(f"{'answer':<22} {'recall':>7} {'precision':>9}   pooled R / P")
    for a in answers:
        print(
            f"{a:<22} {sums[a][0] / asked:>7.3f} {sums[a][1] / asked:>9.3f}   "
            f"{pooled[a][0] / max(pooled[a][2], 1):.3f} / {pooled[a][0] / max(pooled[a][1], 1):.3f}"
        )
    print(f"runnable: pytest collects {ids_listed - ids_missing} of the {ids_listed} distinct ids impact listed")
    print(
        f"node ids: the testmap lists {sum(node_recall) / max(len(node_recall), 1):.3f} of the executing tests"
        " (by node id or its file); target recall >= 0.9, precision >= 0.5 (test files)"
    )


if __name__ == "__main__":
    main()
