"""Tests to run in a C or C++ project, against the tests that really execute the code.

    python bench/facts_tests_cpp.py [--mirrors DIR] [--cache DIR]

Ground truth written by gcov: the project's own tests (at a fixed tag of its `fetch`ed mirror), each run alone in a
build with coverage (googletest's by `--gtest_filter=Suite.Name`, libuv's by `uv_run_tests_a NAME`, its helper
processes included), and the functions of the project's code each one executes. Built and run here once, by
hand: the library's rule keeps any script or recipe that would build a fetched project out of this repository, so
what is committed is what the runs found, in bench/data/tests_cpp/: per project, evenly spaced in (path, line)
order, the functions some test executes (tests and their helpers aside), each with the tests (`test
file::Suite.Name`, `test file::name`, as places in the file's list of every test) executing it.

Each project is indexed with this checkout's `annals index --no-vectors` (fresh every run). Scored as
bench/facts_tests.py scores them, per function, then averaged: recall and precision of the tests `impact` lists (a
test file listed whole, where no call path reaches a test of it, as every test of it), and of their files. Beside
it: its first 12 (as many as a context pack shows), its entries with a call path only, and the baseline a
developer has, the test files named after the function's file (`util/coding.cc`: `util/coding_test.cc`;
`src/unix/tcp.c`: libuv's `test/test-tcp-*.c`), every test in them.

leveldb is the project the rules were made on (store/suite.py: googletest's test macros, the test a fixture's
helper runs); yaml-cpp, whose tests run through its parser, is a hold-out, added after them and never read
function by function. libuv (C: its 447 tests are `TEST_IMPL(name) { ... }`, and 76 more `TEST_FS_IMPL(name)`,
each run a second time as `name_iouring`, a name the index cannot know) was added on 2026-12-05 with C's tests.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from facts_tests import ANNALS, indexed_copy, score  # noqa: E402  (bench/ is not a package)
from facts_tests_js import tag_tree  # noqa: E402

DATA = Path(__file__).parent / "data" / "tests_cpp"
_TEMPLATE_ARGUMENTS = re.compile(r"<[^<>]*>")


@dataclass(frozen=True)
class Project:
    name: str
    github: str  # the mirror's owner/name
    tag: str
    holdout: bool = False


PROJECTS = (
    Project("leveldb", "google/leveldb", "1.23"),
    Project("libuv", "libuv/libuv", "v1.52.1"),
    Project("yaml-cpp", "jbeder/yaml-cpp", "yaml-cpp-0.9.0", holdout=True),
)


def default_cache() -> Path:
    return Path(os.environ.get("ANNALS_FACTS_CPP_CACHE", "/work/corpora/tests/facts_cpp"))


def symbol_for(conn: Any, fact: dict[str, Any]) -> dict[str, Any] | None:
    """Our symbol for gcov's function: in the same file, the innermost function or method whose lines hold the
    line gcov gives, of the name its demangled name ends with (`leveldb::Arena::AllocateAligned(unsigned long)`:
    AllocateAligned; `leveldb::NoDestructor<leveldb::(anonymous namespace)::X>::NoDestructor<>()`: NoDestructor)."""
    from codeannals.store import lookups

    name = fact["function"].replace("(anonymous namespace)::", "").replace("[abi:cxx11]", "")
    while (shorter := _TEMPLATE_ARGUMENTS.sub("", name)) != name:
        name = shorter
    name = name.split("(", 1)[0].rsplit("::", 1)[-1].strip()
    rows = conn.execute(
        "SELECT * FROM symbols WHERE path = ? AND name = ? AND start_line <= ? AND end_line >= ?"
        " AND kind IN ('function', 'method') ORDER BY end_line - start_line LIMIT 1",
        (fact["path"], name, fact["line"], fact["line"]),
    ).fetchall()
    return lookups.symbol_dict(rows[0]) if rows else None


def files(tests: set[str]) -> set[str]:
    return {t.split("::")[0] for t in tests}


def run_by(listed: list[str], every_test: set[str]) -> set[str]:
    """The tests the entries run: a test, or a test file listed whole (no call path to a test of it: the file
    includes the header declaring the code), each of its tests."""
    whole = {t for t in listed if "::" not in t}
    return {t for t in listed if "::" in t} | {t for t in every_test if t.split("::")[0] in whole}


def named_test_file(path: str, every_test: set[str]) -> set[str]:
    """The baseline: every test of the files named after the function's (`x.cc`, `x.h`: `x_test.cc`; `x.c`:
    `test/test-x.c`, `test/test-x-*.c`)."""
    stem = PurePosixPath(path).with_suffix("").as_posix()
    named = re.compile(rf"test-{re.escape(PurePosixPath(path).stem)}[-.]")
    return {
        t
        for t in every_test
        if PurePosixPath(t.split("::")[0]).with_suffix("").as_posix() == f"{stem}_test"
        or named.match(PurePosixPath(t.split("::")[0]).name)
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirrors", type=Path, default=Path(os.environ.get("LOCALIZE_MIRRORS", "/work/.mirror")))
    parser.add_argument("--cache", type=Path, default=default_cache())
    args = parser.parse_args()
    from codeannals.store import queries, testmap
    from codeannals.store.db import connect

    cache: Path = args.cache.resolve()
    cache.mkdir(parents=True, exist_ok=True)
    answers = ("testmap", "testmap first 12", "testmap calls only", "named test file")
    started = time.perf_counter()
    table = []
    for project in PROJECTS:
        data = DATA / f"{project.name}-{project.tag}.json"
        if not data.exists():
            print(f"{project.name}: no ground truth at {data}", file=sys.stderr)
            continue
        truth = json.loads(data.read_text())
        tests = truth["tests"]  # each function's tests are places in this list
        every_test = set(tests)
        work = tag_tree(args.mirrors, cache, project.github, project.name, project.tag)
        repo = indexed_copy(cache, project.name, project.tag, work)
        conn = connect(repo / ".annals" / "annals.db")
        sums = {a: [0.0] * 4 for a in answers}  # recall and precision of the tests, then of their files
        found = 0
        for fact in truth["functions"]:
            symbol = symbol_for(conn, fact)
            if symbol is None:
                print(f"  no symbol for {fact['path']}:{fact['line']} {fact['function']}", file=sys.stderr)
                continue
            found += 1
            ranked = testmap.tests_for_symbol(conn, symbol, root=repo)
            listed = queries.impact(conn, symbol["id"], root=repo)["tests"]
            lists = {
                "testmap": run_by(listed, every_test),
                "testmap first 12": run_by(listed[:12], every_test),
                "testmap calls only": {t.test for t in ranked if t.by_call},
                "named test file": named_test_file(fact["path"], every_test),
            }
            real = {tests[i] for i in fact["tests"]}
            for a, given in lists.items():
                for i, v in enumerate((*score(given, real), *score(files(given), files(real)))):
                    sums[a][i] += v
        conn.close()
        label = f"{project.name} {project.tag}" + (" (hold-out)" if project.holdout else "")
        print(f"{label}: {found} of {len(truth['functions'])} functions, {len(every_test)} tests")
        table.append((label, found, sums))
    print(f"\n{time.perf_counter() - started:.1f} s (annals: {ANNALS})")
    print(f"{'project':<32} {'answer':<20} {'tests R':>8} {'P':>6} {'files R':>8} {'P':>6}")
    for label, found, sums in table:
        for a in answers:
            s = [v / max(found, 1) for v in sums[a]]
            print(f"{label:<32} {a:<20} {s[0]:>8.3f} {s[1]:>6.3f} {s[2]:>8.3f} {s[3]:>6.3f}")


if __name__ == "__main__":
    main()
