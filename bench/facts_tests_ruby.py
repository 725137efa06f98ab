"""Tests to run in a Ruby project, against the test methods that really execute the code.

    python bench/facts_tests_ruby.py [--mirrors DIR] [--cache DIR] [--per-project N]

Ground truth written by Ruby: each project's suite run once, offline, as bench/facts_calls_ruby.py runs it (the same
trees, tags, arguments and `core_assertions` shim), with bench/facts_tests_ruby.rb loaded first. It prepends a
module to test-unit's `Test::Unit::TestCase#run` and minitest's `Minitest::Test#run` that makes the test current
from before its `setup` to after its `teardown`, and a TracePoint on `:call` records each method of the project's
lib/ entered (any depth) while a test is current: what that test executes. What runs outside any test (a test
file's class body, test-unit's `startup`) counts for none, and a method run once per process (a memo, an autoload)
counts for the first test reaching it. Not seen: a lambda (`CSV::Converters[:integer]`, no method), code a test runs
in a Ractor (a TracePoint is its own Ractor's) or in a child `ruby`.

A method is our symbol of its name starting at its `def` line in its file (as bench/facts_calls_ruby.py maps a
callee; `initialize` is its own symbol, not its class); one `class_eval` makes from a string has none (rake's
FileList delegators), and the lines on stderr count them. A test is `path::Class#test_name`, the file and class (or
module) defining the method, `Outer::Inner` as Ruby names it (`class TestOptionParser::WithPattern` written inside
`module TestOptionParserReqArg` is `TestOptionParser::WithPattern`): a test a subclass inherits is its base class's,
all its runs together, and so is one of a module of shared tests (`TestCSVWriteGeneral`, included in two classes).
test-unit runs every public method named `test...` (`testParse`, not only `test_parse`); its `test "parses" do`
defines `test: parses`, and `sub_test_case "quoted" do` a class Ruby names `Outer::quoted`.

Each project is indexed with this checkout's `annals index --no-vectors` (fresh every run). The methods asked about
follow a fixed rule: the symbols some test executes, in (path, line) order, evenly spaced, N per project. Scored as
bench/facts_tests_java.py scores them, per method, then averaged: recall and precision of the tests `impact` lists
(ids) and of their files; its first 12 (as many as a context pack shows); its entries with a call path only; and two
baselines: `ruby test/test_table.rb`, every test of the test files named after the method's file
(`lib/csv/table.rb`: `test/**/test_table.rb`, `table_test.rb` or `test_csv_table.rb`), and every test of the
project. A listed test is judged when it or its file ran; the others (a file the suite does not load) are counted on
stderr. Projects: ruby/csv v3.3.5, ruby/rake v13.4.2 and ruby/optparse v0.8.1, and the hold-out ruby/rexml v3.4.4,
read in total only. The dev projects' misses and wrong listings are written to --cache's misses-dev.json.

First run (the index at 7fcd443, before Ruby's tests were known to it; ruby 3.1.2, test-unit 3.5.3; 37 s with the
suites traced, 16 s with the truth cached): the truth holds csv's 461 tests (521 runs: inherited and shared tests run
more than once) and the 197 methods they execute, rake's 602 and 345 (41 without a symbol), optparse's 89 (109 runs)
and 77, rexml's 730 and 486. `impact` listed no Ruby test (R 0). Baselines, dev: `test_foo.rb` R .244 P .580 (files
.215 / .900), every test 1 / .212; hold-out: `test_foo.rb` .063 / .588, every test 1 / .175.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from facts_calls_ruby import HOLD_OUT, PROJECTS, Project, Symbols, traced_run  # noqa: E402
from facts_tests import ANNALS, add_scores, averages, evenly_spaced, indexed_copy, print_totals, test_files  # noqa: E402  (bench/ is not a package)
from facts_tests_java import miss  # noqa: E402
from facts_tests_js import tag_tree  # noqa: E402

PER_PROJECT = 60
TRUTH_VERSION = 1
TRACER = Path(__file__).with_name("facts_tests_ruby.rb")
ANSWERS = ("testmap", "testmap first 12", "testmap calls only", "test_foo.rb", "every test")


def default_cache() -> Path:
    return Path(os.environ.get("ANNALS_FACTS_TESTS_RUBY_CACHE", "/work/corpora/tests/facts_ruby"))


# --- ground truth -------------------------------------------------------------------------------


def ground_truth(work: Path, cache: Path, project: Project) -> dict[str, Any]:
    """{"facts": {"path:line:name": {path, name, line, tests}}, "tests": {id: passed}, "unnamed": n}: the tests
    executing each lib/ method, every test that ran, and how many ran with no file of the project to name them by."""
    tracer = hashlib.sha256(TRACER.read_bytes()).hexdigest()[:12]
    out = cache / f"truth-{project.name}-{project.tag}-v{TRUTH_VERSION}-{tracer}.json"
    if out.exists():
        return json.loads(out.read_text())
    record = cache / f"record-{project.name}-{project.tag}.jsonl"
    traced_run(work, cache, project, record, TRACER, "TESTS")
    facts: dict[str, dict[str, Any]] = {}
    tests: dict[str, bool] = {}
    unnamed = 0
    for line in map(json.loads, record.read_text().splitlines()):
        path, owner, name = line["test"]
        if path is None or path.startswith("/") or owner is None:
            unnamed += 1  # defined outside the project (a library's), or in a class without a name
            continue
        test = f"{path}::{owner}#{name}"
        tests[test] = line["passed"]
        for method_path, def_line, method in line["methods"]:
            key = f"{method_path}:{def_line}:{method}"
            fact = facts.setdefault(key, {"path": method_path, "name": method, "line": def_line, "tests": []})
            fact["tests"].append(test)
    truth = {"facts": facts, "tests": tests, "unnamed": unnamed}
    out.write_text(json.dumps(truth, indent=1, sort_keys=True))
    return truth


def chosen(conn: Any, truth: dict[str, Any], per_project: int) -> tuple[list[tuple[dict[str, Any], set[str]]], int]:
    """The fixed rule: the symbols some test executes (the method of that name at the `def` line), in (path, line)
    order, evenly spaced; and how many of the executed methods have no symbol."""
    from codeannals.store.lookups import symbol_dict

    symbols = Symbols(conn)
    executed: dict[str, set[str]] = {}
    unmatched = 0
    for fact in truth["facts"].values():
        at = [s for s in symbols.by_path[fact["path"]] if (s["start_line"], s["name"]) == (fact["line"], fact["name"])]
        unmatched += not at
        for s in at:
            executed.setdefault(s["id"], set()).update(fact["tests"])
    rows = [conn.execute("SELECT * FROM symbols WHERE id = ?", (i,)).fetchone() for i in executed]
    ordered = sorted(map(symbol_dict, rows), key=lambda s: (s["path"], s["start_line"], s["id"]))
    return [(s, executed[s["id"]]) for s in evenly_spaced(ordered, per_project)], unmatched


# --- the answers --------------------------------------------------------------------------------


def named_after(path: str, project: str, every_test: set[str]) -> set[str]:
    """`ruby test/test_table.rb`: every test of the test files named after the method's file, lib/csv/table.rb (or
    with the project's name first, as rake's test_rake_task.rb tests lib/rake/task.rb)."""
    stem = path.rpartition("/")[2].removesuffix(".rb")
    names = {f"test_{stem}.rb", f"{stem}_test.rb", f"test_{project}_{stem}.rb"}
    return {t for t in every_test if t.split("::")[0].rpartition("/")[2] in names}


def of_judged(tests: list[str], judged: set[str]) -> set[str]:
    """The tests that ran, or whose file ran: a wrong id in a file that ran is judged (and wrong)."""
    return {t for t in tests if t in judged or t.split("::")[0] in judged}


def answers(conn: Any, repo: Path, project: str, symbol: dict[str, Any], every_test: set[str]) -> dict[str, Any]:
    """Each answer's tests for a method, of those judged (a test that ran, or of a file that ran), and impact's."""
    from codeannals.store import queries, testmap

    judged = every_test | test_files(every_test)
    impact = queries.impact(conn, symbol["id"], root=repo)
    ranked = testmap.tests_for_symbol(conn, symbol, root=repo)
    listed = of_judged(impact["tests"], judged)
    return {
        "impact": impact,
        "testmap": listed,
        "testmap first 12": listed & set(impact["tests"][:12]),
        "testmap calls only": of_judged([t.test for t in ranked if t.by_call], judged),
        "test_foo.rb": named_after(symbol["path"], project, every_test),
        "every test": every_test,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirrors", type=Path, default=Path(os.environ.get("LOCALIZE_MIRRORS", "/work/.mirror")))
    parser.add_argument("--cache", type=Path, default=default_cache())
    parser.add_argument("--per-project", type=int, default=PER_PROJECT)
    args = parser.parse_args()
    from codeannals.store.db import connect

    cache: Path = args.cache.resolve()
    cache.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    totals = {hold_out: {a: [0.0] * 4 for a in ANSWERS} for hold_out in (False, True)}
    asked = Counter[bool]()
    misses: list[dict[str, Any]] = []
    for project in PROJECTS:
        hold_out = project.name in HOLD_OUT
        work = tag_tree(args.mirrors, cache, project.github, project.name, project.tag)
        truth = ground_truth(work, cache, project)
        every_test = set(truth["tests"])
        repo = indexed_copy(cache, project.name, project.tag, work)
        conn = connect(repo / ".annals" / "annals.db")
        methods, unmatched = chosen(conn, truth, args.per_project)
        scores = {a: [0.0] * 4 for a in ANSWERS}
        listed = Counter[str]()
        for symbol, real in methods:
            given = answers(conn, repo, project.name, symbol, every_test)
            impact = given.pop("impact")
            ran = given["testmap"] & every_test
            listed.update(all=len(impact["tests"]), judged=len(given["testmap"]), ran=len(ran))
            add_scores({a: given[a] for a in ANSWERS}, real, totals[hold_out], scores)
            if not hold_out and given["testmap"] != real:
                misses.append(miss(project.name, symbol, real, impact, given["testmap"]))
        asked[hold_out] += len(methods)
        conn.close()
        print(suite_line(project, truth, len(methods), unmatched, listed), file=sys.stderr)
        if not hold_out:
            tested = f"{len(methods)} methods, {len(every_test)} tests"
            print(f"{project.name} {project.tag}: {tested}; " + averages(scores, len(methods)))
    (cache / "misses-dev.json").write_text(json.dumps(misses, indent=1))
    print(f"\n{sum(asked.values())} methods asked, {time.perf_counter() - started:.1f} s (annals: {ANNALS})")
    print(f"dev misses and wrong listings: {cache / 'misses-dev.json'}")
    print_totals(totals, asked, ANSWERS)


def suite_line(project: Project, truth: dict[str, Any], asked: int, unmatched: int, listed: Counter[str]) -> str:
    """The truth's size and what impact listed outside it (to stderr: the hold-out's too, no figures)."""
    tests = truth["tests"]
    failed = sum(not passed for passed in tests.values())
    return (
        f"  {project.name}: {len(tests)} tests ran ({failed} failed or errored; {truth['unnamed']} unnamed), "
        f"in {len(test_files(set(tests)))} files; {len(truth['facts'])} lib/ methods executed, {unmatched} without a "
        f"symbol; {asked} asked; impact listed {listed['all']} tests, {listed['all'] - listed['judged']} not judged "
        f"(neither they nor their files ran), {listed['judged'] - listed['ran']} of those judged named no test that ran"
    )


if __name__ == "__main__":
    main()
