"""Tests to run in a Java project, against the tests that really execute the code.

    python bench/facts_tests_java.py [--mirrors DIR] [--cache DIR] [--per-project N]

Ground truth written by the JVM: a project's main sources (the trees and `javac -g` build of
bench/facts_calls_java.py) and its test sources compiled offline, and its real suite run once on the JUnit Platform
(Jupiter, and Vintage for JUnit 4) under a probe of ours (bench/java_probe/): a `-javaagent` adding, with the JDK's
own ASM, a call at the entry of every method and constructor of the main classes, and a listener taking what ran
in each test (its runs together, for a parameterized one). What runs in a test class outside its tests (static
initialization, `@BeforeAll`, `@BeforeClass`) counts for each of its tests, as it runs for each run alone; a main
class's static initializer runs once per JVM, so what only it runs counts for the first test reaching it. A method
counts once its body starts. The test classes are those Surefire runs by default (`Test*`, `*Test`, `*Tests`,
`*TestCase`, not nested, not abstract); a test file whose dependencies are not on this machine (it needs no network:
the jars are ~/.m2's and Debian's, see REQUIRED) is left out, and so is each test file needing it, as javac says.

A method of the bytecode is our symbol of its name (a constructor: its class's) in the file its class file names,
the innermost whose lines hold the method's first line (javac's LineNumberTable); a test is `path::Class#method`,
the file and class declaring the method (an inherited test is its superclass's), `Outer$Inner#method` for a nested
class's: the ids our index gives (store/suite.py).

Each project is indexed with this checkout's `annals index --no-vectors` (fresh every run). The methods asked about
follow a fixed rule: the symbols some test executes, in (path, line) order, evenly spaced, N per project. Scored as
bench/facts_tests_go.py scores them, per method, then averaged: recall and precision of the tests `impact` lists
(ids) and of their files; its first 12 (as many as a context pack shows); its entries with a call path only; and
two baselines a Java user has: `mvn test -Dtest=FooTest` (every test of the classes named after the method's file,
`FooTest`, `FooTests`, `TestFoo`) and every test of the method's package. Projects: google/gson 2.13.2 (its gson
module), apache/commons-cli 1.11.0 and square/javapoet 1.13.0, and the hold-out apache/commons-codec 1.22.1, read in
total only. The dev projects' misses and wrong listings, with the basis impact gives each test it lists, are written
to --cache's misses-dev.json. A listed test that did not run here (its file left out, or another module's: gson's
extras and proto) is not judged, and the lines on stderr count them.

First run (the index at 563f057, JDK 17.0.15; 71 s, javac, the suites and the indexing included): left out, javac
naming what this machine lacks, 13 of gson's 122 test files (Truth 1.x's assertions, `isSameInstanceAs`, that
Debian's Truth 0.39 lacks), 2 of commons-cli's 51 (junit-pioneer), 9 of javapoet's 22 (compile-testing), none of
commons-codec's; 298 of gson's tests are guava-testlib's, which no id of ours names. Dev, 180 methods: `impact`'s
tests R .848 P .341 (files .917 / .452; gson .73 / .25, commons-cli .85 / .44, javapoet .96 / .34), its first 12
.406 / .588, calls only .848 / .392; `FooTest` .237 / .609, the package's tests .711 / .132. Hold-out: `impact`
.924 / .483 (files .971 / .723), first 12 .727 / .519, `FooTest` .711 / .341, the package's .944 / .092.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from facts_calls_java import PROJECTS as SOURCES  # noqa: E402  (bench/ is not a package)
from facts_calls_java import Hierarchy, checkout, compiled, simple_name  # noqa: E402
from facts_imports_java import Project  # noqa: E402
from facts_tests import ANNALS, add_scores, averages, evenly_spaced, indexed_copy, print_totals  # noqa: E402
from facts_tests_js import symbol_for  # noqa: E402
from java_classes import ACC_ABSTRACT, ClassFile, read_class  # noqa: E402

M2 = Path.home() / ".m2" / "repository"
DEBIAN = Path("/usr/share/java")
# Debian's packages for what ~/.m2 lacks offline: JUnit 4's engine on the Platform, Truth, mockito and their kin
REQUIRED = ("junit5", "libtruth-java", "libguava-testlib-java", "libjimfs-java", "libmockito-java")
MOCKS = (
    DEBIAN / "mockito-core.jar",
    DEBIAN / "byte-buddy.jar",
    DEBIAN / "byte-buddy-agent.jar",
    DEBIAN / "objenesis.jar",
)
# JUnit 4 suites: Debian's console launcher holds the Platform with Jupiter's and Vintage's engines (1.9.1)
JUNIT4 = (
    M2 / "junit/junit/4.13.2/junit-4.13.2.jar",
    M2 / "org/hamcrest/hamcrest-core/1.3/hamcrest-core-1.3.jar",
    DEBIAN / "junit-platform-console-standalone.jar",
    DEBIAN / "truth.jar",  # 0.39: javapoet's own; gson's 1.4 files using newer assertions are left out
    DEBIAN / "guava.jar",
    DEBIAN / "guava-testlib.jar",
    DEBIAN / "jimfs.jar",
    *MOCKS,
)
_JUPITER, _PLATFORM = "org/junit/jupiter", "org/junit/platform"
# JUnit 5 suites: a Jupiter as recent as the projects', with the commons their tests use
JUNIT5 = (
    *(M2 / f"{_JUPITER}/junit-jupiter-{a}/5.14.4/junit-jupiter-{a}-5.14.4.jar" for a in ("api", "engine", "params")),
    *(
        M2 / f"{_PLATFORM}/junit-platform-{a}/1.14.4/junit-platform-{a}-1.14.4.jar"
        for a in ("commons", "engine", "launcher")
    ),
    M2 / "org/opentest4j/opentest4j/1.3.0/opentest4j-1.3.0.jar",
    M2 / "org/apiguardian/apiguardian-api/1.1.2/apiguardian-api-1.1.2.jar",
    M2 / "commons-io/commons-io/2.22.0/commons-io-2.22.0.jar",
    M2 / "org/apache/commons/commons-lang3/3.20.0/commons-lang3-3.20.0.jar",
    M2 / "org/apache/commons/commons-text/1.12.0/commons-text-1.12.0.jar",
    *MOCKS,
)


@dataclass(frozen=True)
class Suite:
    jars: tuple[Path, ...]
    hold_out: bool = False


SUITES = {
    "gson": Suite(JUNIT4),
    "commons-cli": Suite(JUNIT5),
    "javapoet": Suite(JUNIT4),
    "commons-codec": Suite(JUNIT5, hold_out=True),
}
PROJECTS = tuple(p for name in SUITES for p in SOURCES if p.name == name)
PER_PROJECT = 60
TRUTH_VERSION = 4
SUREFIRE_CLASSES = re.compile(r"^(Test[^$]*|[^$]*(Test|Tests|TestCase))$")  # its default includes, nested excluded
JAVAC_ERROR = re.compile(r"^(/\S+\.java):\d+: error: (.*)$", re.M)
ASM = ("--add-exports", "java.base/jdk.internal.org.objectweb.asm=ALL-UNNAMED")
PROBE = Path(__file__).with_name("java_probe")
SUITE_TIMEOUT = 3600  # seconds: gson's suite runs in well under a minute
# The same heap on every machine: commons-codec's Base64Test.testCodec265 runs when the heap may grow past 5.3 GiB
# (a quarter of the memory, by default), and there it fails to allocate and ends the run; with 2 GiB it is skipped
HEAP = "-Xmx2g"


def default_cache() -> Path:
    return Path(os.environ.get("ANNALS_FACTS_TESTS_JAVA_CACHE", "/work/corpora/tests/facts_java"))


def completed(argv: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The finished process, failed or not: javac's errors and a suite's output are read either way."""
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False, timeout=SUITE_TIMEOUT)


def check_jars() -> None:
    missing = [str(j) for s in SUITES.values() for j in s.jars if not j.is_file()]
    if missing:
        sys.exit(f"missing {', '.join(sorted(set(missing)))}: `apt-get install -y {' '.join(REQUIRED)}`")


def probe_jar(cache: Path) -> Path:
    """bench/java_probe compiled into an agent jar (once per version of its sources)."""
    sources = sorted(PROBE.rglob("*.java"))
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in sources)).hexdigest()[:12]
    jar = cache / f"probe-{digest}.jar"
    if jar.exists():
        return jar
    classes = cache / "probe-classes"
    shutil.rmtree(classes, ignore_errors=True)
    platform = str(DEBIAN / "junit-platform-console-standalone.jar")  # its API: the same in 1.9 and 1.14
    built = completed(["javac", "-nowarn", *ASM, "-cp", platform, "-d", str(classes), *map(str, sources)])
    if built.returncode != 0:
        sys.exit(f"bench/java_probe does not compile:\n{built.stderr[-2000:]}")
    manifest = cache / "probe-manifest"
    manifest.write_text("Premain-Class: codeannals.probe.Agent\n")
    packed = completed(["jar", "--create", "--file", str(jar), "--manifest", str(manifest), "-C", str(classes), "."])
    if packed.returncode != 0:
        sys.exit(f"jar: {packed.stderr[-2000:]}")
    return jar


def test_root(sources: str) -> str:
    """`gson/src/main/java` -> `gson/src/test/java`."""
    return sources.replace("/main/java", "/test/java")


def compiled_tests(work: Path, cache: Path, name: str, sources: str, class_path: str) -> tuple[Path, dict[str, str]]:
    """The test sources javac compiles offline, and those left out with javac's first error in each: each file javac
    names an error in goes, and javac runs again, until what is left compiles."""
    root = work / test_root(sources)
    files = sorted(str(p) for p in root.rglob("*.java"))
    left_out: dict[str, str] = {}
    classes = cache / f"{name}-test-classes"
    listing = cache / f"{name}-test-sources.txt"
    while files:
        shutil.rmtree(classes, ignore_errors=True)
        listing.write_text("\n".join(files) + "\n")
        argv = ["javac", "-nowarn", "-proc:none", "-encoding", "UTF-8", "-cp", class_path, "-d", str(classes)]
        done = completed([*argv, f"@{listing}"])
        if done.returncode == 0:
            break
        failing: dict[str, str] = {}
        for path, error in JAVAC_ERROR.findall(done.stderr):
            failing.setdefault(path, error)
        if not failing:
            sys.exit(f"javac failed on {name}'s tests without naming a file:\n{done.stderr[-2000:]}")
        left_out |= failing
        files = [f for f in files if f not in failing]
    return classes, {os.path.relpath(f, work): error for f, error in sorted(left_out.items())}


def test_classes(classes: Path) -> list[ClassFile]:
    """Every class of the compiled tests (their files and nested classes)."""
    return [read_class(p) for p in sorted(classes.rglob("*.class"))]


def surefire_runs(tests: list[ClassFile]) -> list[str]:
    """The classes Surefire runs by default: by name, top-level, concrete."""
    return [
        c.name.replace("/", ".")
        for c in tests
        if SUREFIRE_CLASSES.match(c.name.rpartition("/")[2]) and not c.flags & ACC_ABSTRACT
    ]


def run_suite(work: Path, cache: Path, project: Project, main: Path, tests: Path, runs: list[str]) -> list[str]:
    """The probe's record of the suite, as lines (see bench/java_probe/codeannals/probe/Run.java)."""
    names = cache / f"{project.name}-test-names.txt"
    names.write_text("\n".join(runs) + "\n")
    out = cache / f"{project.name}-probe.tsv"
    resources = [work / f.replace("/java", "/resources") for f in (project.sources, test_root(project.sources))]
    jar = probe_jar(cache)
    class_path = [jar, main, tests, *resources, *SUITES[project.name].jars, *jars_of(project)]
    argv = [
        "java",
        HEAP,
        *ASM,
        f"-javaagent:{jar}={main}",
        "-cp",
        ":".join(map(str, class_path)),
        "codeannals.probe.Run",
        str(names),
        str(out),
    ]
    module = work / project.sources.removesuffix("src/main/java")  # where Maven runs the module's tests
    done = completed(argv, cwd=module)
    (cache / f"{project.name}-suite.log").write_text(done.stdout + done.stderr)
    if done.returncode != 0 or not out.exists():
        sys.exit(f"{project.name}'s suite did not run ({done.returncode}):\n{done.stderr[-2000:]}")
    return out.read_text().splitlines()


def jars_of(project: Project) -> list[Path]:
    """The main code's own dependencies (gson's annotations), as bench/facts_calls_java.py compiles it."""
    return sorted(M2.glob(project.class_path))[-1:] if project.class_path else []


def test_ids(tests: list[ClassFile], test_sources: str) -> dict[str, str]:
    """`Outer$Inner#` prefixes of our index's test ids, by the binary name of the class declaring the test."""
    out = {}
    for c in tests:
        package, _, name = c.name.rpartition("/")
        if c.source_file:
            path = f"{test_sources}/{package}/{c.source_file}" if package else f"{test_sources}/{c.source_file}"
            out[c.name.replace("/", ".")] = f"{path}::{name}"
    return out


def ground_truth(work: Path, cache: Path, project: Project) -> dict[str, Any]:
    """{"facts": {"path:line:name": {path, name, line, tests}}, "suite": counts}: the tests executing each method."""
    probe = hashlib.sha256(b"".join(p.read_bytes() for p in sorted(PROBE.rglob("*.java")))).hexdigest()[:8]
    out = cache / f"truth-{project.name}-{project.tag.replace('/', '-')}-v{TRUTH_VERSION}-{probe}.json"
    if out.exists():
        return json.loads(out.read_text())
    print(f"compiling {project.name} and running its suite under the probe...", file=sys.stderr)
    main = compiled(project, work, cache)
    libraries = [*SUITES[project.name].jars, *jars_of(project)]
    tests, left_out = compiled_tests(work, cache, project.name, project.sources, ":".join(map(str, [main, *libraries])))
    classes = test_classes(tests)
    runs = surefire_runs(classes)
    record = run_suite(work, cache, project, main, tests, runs)
    hierarchy = Hierarchy([read_class(p) for p in sorted(main.rglob("*.class"))], work, project.sources)
    methods = declarations(record, hierarchy)
    prefixes = test_ids(classes, test_root(project.sources))
    facts, outcomes, ran, unnamed = attributed(record, methods, prefixes)
    ran_files = {prefixes[c].split("::")[0] for c in runs if c in prefixes} | {t.split("::")[0] for t in ran}
    suite = {
        "test classes run": len(runs),
        "test files left out": left_out,
        "tests": dict(outcomes),
        "tests declared outside the project": unnamed,
        "tests run": sorted(ran),
        "files run": sorted(ran_files),
    }
    truth = {"facts": facts, "suite": suite}
    out.write_text(json.dumps(truth, indent=1, sort_keys=True))
    return truth


def attributed(
    record: list[str], methods: dict[int, dict[str, Any]], prefixes: dict[str, str]
) -> tuple[dict[str, dict[str, Any]], Counter[str], set[str], int]:
    """Each method's tests, from the probe's record; the tests' outcomes, the ids of those run, and how many tests a
    class outside the project declares."""
    outside = {fields[1]: ids(fields[2]) for fields in (line.split("\t") for line in record) if fields[0] == "C"}
    facts: dict[str, dict[str, Any]] = {}
    outcomes: Counter[str] = Counter()
    ran: set[str] = set()
    unnamed = 0
    for fields in (line.split("\t") for line in record):
        if fields[0] != "T":
            continue
        runtime, declaring, method, outcome, hits = fields[1:6]
        outcomes[outcome] += 1
        if declaring not in prefixes:
            unnamed += 1
            continue
        test = f"{prefixes[declaring]}#{method}"
        ran.add(test)
        # what ran in the test's class (or a class enclosing it, for a nested one) outside any test
        around = {i for c, found in outside.items() if runtime == c or runtime.startswith(c + "$") for i in found}
        for i in ids(hits) | around:
            if i in methods:
                fact = facts.setdefault(methods[i]["key"], {**methods[i]["fact"], "tests": []})
                if test not in fact["tests"]:
                    fact["tests"].append(test)
    return facts, outcomes, ran, unnamed


def ids(text: str) -> set[int]:
    return {int(i) for i in text.split(",") if i}


def declarations(record: list[str], hierarchy: Hierarchy) -> dict[int, dict[str, Any]]:
    """The probe's methods that have a place in the tree: file, name (a constructor's is its class's) and first
    line; an anonymous class's constructor, named nowhere, has none."""
    out = {}
    for fields in (line.split("\t") for line in record):
        if fields[0] != "M":
            continue
        owner, name, descriptor = fields[2].split(" ")
        c = hierarchy.classes.get(owner)
        method = next((m for m in c.methods if m.name == name and m.descriptor == descriptor), None) if c else None
        if c is None or method is None or method.first_line is None:
            continue
        declared = hierarchy.declaration(c, method)
        if declared["file"] is None or not declared["name"] or (name == "<init>" and not simple_name(owner)):
            continue
        fact = {"path": declared["file"], "name": declared["name"], "line": declared["line"]}
        out[int(fields[1])] = {"key": f"{fact['path']}:{fact['line']}:{fact['name']}", "fact": fact}
    return out


# --- the answers --------------------------------------------------------------------------------


def named_after(path: str, every_test: set[str]) -> set[str]:
    """`mvn test -Dtest=FooTest`: every test of the classes named after the method's file, Foo.java."""
    stem = path.rpartition("/")[2].removesuffix(".java")
    classes = {f"{stem}Test", f"{stem}Tests", f"Test{stem}"}
    return {t for t in every_test if t.split("::")[1].split("#")[0].split("$")[0] in classes}


def same_package(path: str, sources: str, every_test: set[str]) -> set[str]:
    """Every test of the method's package: the test tree's folder of the same name."""
    folder = test_root(sources) + path.removeprefix(sources).rpartition("/")[0]
    return {t for t in every_test if t.split("::")[0].rpartition("/")[0] == folder}


def chosen(conn: Any, truth: dict[str, Any], per_project: int) -> tuple[list[tuple[dict[str, Any], set[str]]], int]:
    """The fixed rule: the symbols some test executes (every method of the bytecode standing for one symbol, their
    tests together), in (path, line) order, evenly spaced; and how many of the bytecode's methods have no symbol."""
    symbols: dict[str, tuple[dict[str, Any], set[str]]] = {}
    unmatched = 0
    for fact in truth["facts"].values():
        symbol = symbol_for(conn, fact)
        if symbol is None:
            unmatched += 1
            continue
        symbols.setdefault(symbol["id"], (symbol, set()))[1].update(fact["tests"])
    ordered = sorted(symbols.values(), key=lambda s: (s[0]["path"], s[0]["start_line"], s[0]["id"]))
    return evenly_spaced(ordered, per_project), unmatched


ANSWERS = ("testmap", "testmap first 12", "testmap calls only", "FooTest", "package tests")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirrors", type=Path, default=Path(os.environ.get("LOCALIZE_MIRRORS", "/work/.mirror")))
    parser.add_argument("--cache", type=Path, default=default_cache())
    parser.add_argument("--per-project", type=int, default=PER_PROJECT)
    args = parser.parse_args()
    from codeannals.store import queries, testmap
    from codeannals.store.db import connect

    check_jars()
    cache: Path = args.cache.resolve()
    cache.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    totals = {hold_out: {a: [0.0] * 4 for a in ANSWERS} for hold_out in (False, True)}
    asked = Counter[bool]()
    misses: list[dict[str, Any]] = []
    for project in PROJECTS:
        hold_out = SUITES[project.name].hold_out
        work = checkout(args.mirrors, cache, project)
        truth = ground_truth(work, cache, project)
        every_test = set(truth["suite"]["tests run"])
        run_here = every_test | set(truth["suite"]["files run"])
        version = project.tag.rsplit("-", 1)[-1]
        repo = indexed_copy(cache, project.name, version, work)
        conn = connect(repo / ".annals" / "annals.db")
        methods, unmatched = chosen(conn, truth, args.per_project)
        scores = {a: [0.0] * 4 for a in ANSWERS}
        unjudged = Counter[str]()
        for symbol, real in methods:
            ranked = testmap.tests_for_symbol(conn, symbol, root=repo)
            impact = queries.impact(conn, symbol["id"], root=repo)
            # a test that did not run here (its file left out, another module's) is not judged
            listed = [t for t in impact["tests"] if t in run_here]
            unjudged.update(listed=len(impact["tests"]), unjudged=len(impact["tests"]) - len(listed))
            lists = {
                "testmap": set(listed),
                "testmap first 12": set(listed) & set(impact["tests"][:12]),
                "testmap calls only": {t.test for t in ranked if t.by_call} & run_here,
                "FooTest": named_after(symbol["path"], every_test),
                "package tests": same_package(symbol["path"], project.sources, every_test),
            }
            add_scores(lists, real, totals[hold_out], scores)
            if not hold_out and set(listed) != real:
                misses.append(miss(project.name, symbol, real, impact, run_here))
        asked[hold_out] += len(methods)
        conn.close()
        print(suite_line(project, truth, len(methods), unmatched), file=sys.stderr)
        print(f"  {unjudged['unjudged']} of the {unjudged['listed']} tests listed did not run here", file=sys.stderr)
        if not hold_out:
            tested = f"{len(methods)} methods, {len(every_test)} tests"
            print(f"{project.name} {version}: {tested}; " + averages(scores, len(methods)))
    (cache / "misses-dev.json").write_text(json.dumps(misses, indent=1))
    print(f"\n{sum(asked.values())} methods asked, {time.perf_counter() - started:.1f} s (annals: {ANNALS})")
    print(f"dev misses and wrong listings: {cache / 'misses-dev.json'}")
    print_totals(totals, asked, ANSWERS)


def suite_line(project: Project, truth: dict[str, Any], asked: int, unmatched: int) -> str:
    """What ran of the project's suite and what was left out (to stderr: the hold-out's too)."""
    suite = truth["suite"]
    outcomes = ", ".join(f"{n} {o.lower()}" for o, n in sorted(suite["tests"].items()))
    return (
        f"  {project.name}: {suite['test classes run']} test classes run ({outcomes}); "
        f"{len(suite['test files left out'])} test files left out, their dependencies not on this machine; "
        f"{suite['tests declared outside the project']} tests declared in a library (guava-testlib's suites); "
        f"{unmatched} of {len(truth['facts'])} executed methods without a symbol; {asked} asked"
    )


def miss(project: str, symbol: dict[str, Any], real: set[str], impact: dict[str, Any], run: set[str]) -> dict[str, Any]:
    """A method whose listed tests differ from the tests executing it: what was missed, and what was listed wrongly
    with impact's basis for it (of the tests that ran here)."""
    listed = [t for t in impact["tests"] if t in run]
    basis = defaultdict(str, {b["test"]: b["basis"] for b in impact.get("tests_basis") or []})
    return {
        "project": project,
        "method": symbol["id"],
        "executing": len(real),
        "listed": len(listed),
        "missed": sorted(real - set(listed)),
        "wrong": [{"test": t, "basis": basis[t]} for t in listed if t not in real],
        "tests_note": impact.get("tests_note"),
    }


if __name__ == "__main__":
    main()
