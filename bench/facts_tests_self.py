"""Tests to run for codeannals' own code, against the tests of its own suite that really execute it.

    python bench/facts_tests_self.py [--cache DIR] [--functions N] [--show N] [--commit REV]

Ground truth: this repository's suite at HEAD run once under coverage with a context per test (pytest-cov,
`--cov-context=test`; the `bench` extra installs it), kept in --cache by commit. Code the tests run in another
process (the `annals` command, hooks run by git, index workers) is not seen by coverage, and so is in no test's
truth. A clone of HEAD is indexed with this checkout's `annals index --no-vectors --wait`, and for N functions of
store/, indexer/, server/ and hooks/ that some test executes (in (path, line) order, evenly spaced) the test
files `impact` lists are scored against the files whose tests execute a line of the function's body: recall and
precision, averaged over the functions (an empty list has precision 1; "answered" averages only the others), and
the same for the files of its first 12 entries (what a context pack shows). Baseline in the same run: every test
file importing the function's module, directly or through others (what a reverse-import walk lists).

This is the deepest code the bench has (a test reaches the index projections through eight or more calls), and
its tests reach much of it through a registry by name (MCP tools, loaded by computed module names): figures here
are lower than on the PyPI projects of bench/facts_tests.py, and move with rules that pass over what those lack.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
ANNALS = str(Path(sys.executable).parent / "annals")
PACKAGES = ("store", "indexer", "server", "hooks")
FUNCTIONS = 200
FIRST = 12  # the tests a context pack shows


def full_commit(rev: str = "HEAD") -> str:
    return subprocess.run(
        ["git", "rev-parse", rev], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.strip()


def ground_truth(cache: Path, commit: str) -> dict[tuple[str, str], tuple[int, set[str]]]:
    """(path, qualname) -> (first line, the test files executing its body), from the suite run at `commit`."""
    kept = cache / f"truth-{commit[:12]}.json"
    if not kept.exists():
        changed = subprocess.run(["git", "status", "--porcelain", "-uno"], cwd=REPO, capture_output=True, text=True)
        if changed.stdout.strip():
            sys.exit("facts_tests_self: the suite runs as committed: commit or stash the changes first")
        print("running this repository's suite under coverage (a few minutes)...", file=sys.stderr)
        data = cache / ".coverage"
        coverage = [f"--cov={p}" for p in PACKAGES] + ["--cov-context=test", "--cov-report="]
        env = {**os.environ, "COVERAGE_FILE": str(data)}
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", *coverage, "tests"],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
        )
        if "passed" not in proc.stdout:
            sys.exit(f"facts_tests_self: the suite did not run: {(proc.stdout + proc.stderr)[-500:]}")
        report = cache / "cov.json"
        subprocess.run(
            [sys.executable, "-m", "coverage", "json", "--show-contexts", "-q", "-o", str(report)],
            cwd=REPO,
            env=env,
            check=True,
        )
        kept.write_text(json.dumps(_functions(json.loads(report.read_text()))))
        report.unlink()
    found = json.loads(kept.read_text())
    return {(path, q): (line, set(files)) for path, q, line, files in found}


def _functions(report: dict[str, Any]) -> list[tuple[str, str, int, list[str]]]:
    """Each function some test executes: path, qualname, first line, the test files executing its body."""
    out = []
    for name, data in report["files"].items():
        path = str(Path(name).resolve().relative_to(REPO)) if Path(name).is_absolute() else name
        for qualname, region in data["functions"].items():
            files = {
                context.split("::")[0]
                for line in region["executed_lines"]
                for context in data["contexts"].get(str(line), [])
                if context
            }
            if qualname and files:
                out.append((path, qualname, region["start_line"], sorted(files)))
    return out


def indexed_clone(scratch: Path, commit: str) -> Path:
    tree = scratch / "repo"
    subprocess.run(["git", "clone", "-q", str(REPO), str(tree)], check=True)
    subprocess.run(["git", "checkout", "-q", commit], cwd=tree, check=True)
    subprocess.run([ANNALS, "-C", str(tree), "index", "--no-vectors", "--wait"], check=True, capture_output=True)
    return tree


def evenly_spaced(items: list[Any], n: int) -> list[Any]:
    if len(items) <= n:
        return items
    step = len(items) / n
    return [items[int(i * step)] for i in range(n)]


def score(listed: set[str], truth: set[str]) -> tuple[float, float]:
    hit = len(listed & truth)
    return (hit / len(truth) if truth else 1.0), (hit / len(listed) if listed else 1.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "codeannals-bench" / "self")
    parser.add_argument("--functions", type=int, default=FUNCTIONS)
    parser.add_argument("--show", type=int, default=0, help="print the N functions of lowest recall")
    parser.add_argument("--commit", default="HEAD", help="this repository at another commit, its truth cached")
    args = parser.parse_args()
    from codeannals.store import queries
    from codeannals.store.db import connect
    from codeannals.store.graph import import_graph

    args.cache.mkdir(parents=True, exist_ok=True)
    commit = full_commit(args.commit)
    truth = ground_truth(args.cache, commit)
    keys = sorted(truth, key=lambda k: (k[0], truth[k][0], k[1]))
    chosen = evenly_spaced([k for k in keys if k[0].split("/")[0] in PACKAGES], args.functions)
    rows: dict[str, list[tuple[float, float, bool]]] = {"impact": [], f"its first {FIRST}": [], "importers": []}
    lowest = []
    with tempfile.TemporaryDirectory() as scratch:
        tree = indexed_clone(Path(scratch), commit)
        conn = connect(tree / ".annals" / "annals.db", readonly=True)
        graph = import_graph(conn)
        for path, qualname in chosen:
            line, files = truth[(path, qualname)]
            name = qualname.rsplit(".", 1)[-1]
            found = conn.execute(
                "SELECT id FROM symbols WHERE path = ? AND name = ? AND start_line <= ? AND end_line >= ?"
                " ORDER BY start_line DESC",
                (path, name, line, line),
            ).fetchone()
            if found is None:
                continue
            tests = queries.impact(conn, found[0], root=tree)["tests"]
            importers = {
                d["path"] for d in graph.transitive(path, reverse=True, depth=8) if d["path"].startswith("tests/")
            }
            for label, listed in (
                ("impact", {t.split("::")[0] for t in tests}),
                (f"its first {FIRST}", {t.split("::")[0] for t in tests[:FIRST]}),
                ("importers", importers),
            ):
                rows[label].append((*score(listed, files), bool(listed)))
            lowest.append((rows["impact"][-1][0], found[0], len(files), len({t.split("::")[0] for t in tests})))
        conn.close()
    print(f"codeannals at {commit[:10]}: {len(truth)} functions some test executes; {len(lowest)} asked")
    for label, scored in rows.items():
        answered = [p for _, p, listed in scored if listed]
        print(
            f"  {label:<14} recall {sum(r for r, _, _ in scored) / len(scored):.3f}"
            f"  precision {sum(p for _, p, _ in scored) / len(scored):.3f}"
            f"  (over the {len(answered)} answered {sum(answered) / max(len(answered), 1):.3f})"
        )
    for recall, symbol, executing, shown in sorted(lowest)[: args.show]:
        print(f"    recall {recall:.2f}: {symbol} (executed by {executing} test files; {shown} listed)")


if __name__ == "__main__":
    main()
