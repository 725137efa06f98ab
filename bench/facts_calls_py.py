"""Call edges of real Python projects against the calls their own test suites make, with a baseline.

    python bench/facts_calls_py.py [--cache DIR] [--only NAME,...]

Ground truth written by others: the suites of click, itsdangerous, markupsafe, jinja2, python-dateutil,
packaging and marshmallow (their PyPI sdists, the venv and sources of bench/facts_tests.py) run once under a profiler
(`sys.setprofile`, every thread) that records each call between functions of the package and its tests: the
function that ran and where it was called from, the calling code's file and the exact expression (the call
instruction's line and columns). A site is judged when that expression is a call written out (`obj.name(...)`,
`name(...)`) and what ran there is a function we index under that name: `name` itself, or `__init__` for a
class called (the class or that `__init__` finds it). Left out and counted: calls made implicitly (a
property, an operator, `for` over a generator), calls where what ran has another name (a decorator's inner
function, `__call__`), and generators and coroutines, whose frames start where they are first resumed rather
than where they are called.

Each project is indexed with this checkout's `annals index --no-vectors` (fresh every run). The answer at a site
is what `callers` and `impact` show (store/callgraph.py): the symbols whose callers list our call row there
(same file, symbol around it, receiver and name). Per basis:
- `resolved`: the code gives it (same file, method, imported name, constructor);
- `+stand-ins`: and the calls that may run it: an override reached through its base's method
  (`self.invoke()` in BaseCommand, for Command.invoke), a function handed on as a value;
- `+guesses`: and the guesses by name (`unique name`, `name only`);
- `baseline`: the name-only rule at every site (the first symbol of the name: same file, then a file the
  caller imports, then any), as a tool matching names answers.
An edge is a function that ran at a site. Recall: edges found of those that ran. Precision: edges found of the
answers given, each symbol named that did not run there counted wrong. The truth is what one run executed, so
an override that exists for other programs (click's examples/) counts wrong where it is named: stand-ins'
precision is a floor. python-dateutil is the hold-out: its figures are read in total only, never site by site.
Sites in the package and in its tests are shown apart.

The profiler also records the calls our code makes to code not ours (the standard library, site-packages, a
dataclass's generated `__init__`, a compiled template): a Python function's `call` event and a C function's
`c_call` (`rows.append`, `conn.close`), at the same positions, marked `outside`. A call written out where such
code ran and nothing of ours is an outside-only site, where every symbol an answer names is wrong
(`rows.append(x)` guessed to be a method of ours). Not outside-only, so not judged: a site where a function of
ours ran, directly or under the code not ours (a callback, `functools.singledispatch`'s wrapper), where that
code holds a function of ours in its closure (`contextlib.contextmanager`'s wrapper, whose generator runs
later) or was handed a generator or coroutine of ours (asyncio's hook at an `async for`), or where it made an
instance of a class of ours (a dataclass's or NamedTuple's constructor, `Enum.__call__`; not
`super().__init__()` to a base not ours, nor `pytest.raises(OurError)`). A site where both ran stays a site of
ours as above, even when what ours ran has another name (`rows.index(x)` running our `__eq__`). Not recorded:
calling a class not ours that runs no Python function (`list()`, `ValueError(...)`: no event), and what the
garbage collector or a loop runs at whatever instruction it is (a weakref's callback, `__del__`, a generator not
ours resumed or closed). These wrong answers are printed apart, per basis, never in the precision above.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from facts_calls_ts import CallRows, name_rule  # noqa: E402  (bench/ is not a package)
from facts_tests import PROJECTS, PYTEST_ARGS, bench_python, default_cache, indexed_copy, source  # noqa: E402

HOLD_OUT = "python-dateutil"
# Judged here only, added after the rules of 63e21d6..d8aab4f were written on the others (2026-11-27), and pooled
# apart: their first figures are of rules not fitted to them (resolved P/R, package and tests together: packaging
# 1.000/.994, marshmallow 1.000/.953); they are dev projects after that, whose sites may be read.
CALLS_ONLY = (("packaging", "24.2", "src/packaging"), ("marshmallow", "3.23.1", "src/marshmallow"))
ANSWERS = ("resolved", "+stand-ins", "+guesses", "baseline")
TRUTH_VERSION = 3  # 2: functions of the tests called too (a test's subclass overriding a method); 3: the calls
# of code not ours too
CONSTRUCTORS = ("__init__", "__new__")
GENERATOR_FLAGS = 0x20 | 0x80 | 0x100 | 0x200  # CO_GENERATOR, CO_COROUTINE, CO_ITERABLE_COROUTINE, CO_ASYNC_GENERATOR

# Loaded into the suite's pytest with `-p`: records (calling code, instruction, called code) for every call between
# functions of the package and its tests, and per instruction of ours that called code not ours, what it reached
# of ours; then writes them as JSON lines at the end of the session.
TRACER = """
import inspect, json, os, sys, threading, types, weakref

OURS = (os.environ["CALLS_PACKAGE"], os.environ["CALLS_TESTS"])
seen = {}
# (calling code, instruction) -> [first code not ours run there, function of ours it reached, class of ours it took]
outside = {}
looked_at = set()
RESUMED = {types.GeneratorType: "gi_code", types.CoroutineType: "cr_code", types.AsyncGeneratorType: "ag_code"}
RESUMABLE = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ITERABLE_COROUTINE | inspect.CO_ASYNC_GENERATOR


def class_of_ours(cls, code):
    module = sys.modules.get(getattr(cls, "__module__", None) or "")
    path = getattr(module, "__file__", "") or ""
    return [path, cls.__qualname__, code.co_name] if path.startswith(OURS) else None


def called_outside(frame, code, back):
    if (back.f_code, back.f_lasti, code) in looked_at:
        return
    looked_at.add((back.f_code, back.f_lasti, code))
    if code.co_flags & RESUMABLE or code.co_name == "__del__":
        return  # runs where a loop or the garbage collector resumes or drops it, not where it was called
    local = frame.f_locals
    arguments = [local.get(name) for name in code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]]
    if any(issubclass(type(value), weakref.ref) for value in arguments):
        return  # a weakref's callback: the garbage collector's, at whatever instruction it ran
    entry = outside.setdefault((back.f_code, back.f_lasti), [code.co_qualname, None, None])
    if arguments and entry[2] is None:
        first = arguments[0]
        # type() and issubclass() only: an attribute of a value of ours may run our code inside the profiler
        if issubclass(type(first), type):
            entry[2] = class_of_ours(first, code)
        elif code.co_name == "__init__":
            entry[2] = class_of_ours(type(first), code)
    # a function of ours in its closure (contextmanager's wrapper: the generator runs later, elsewhere)
    for name in code.co_freevars:
        held = local.get(name)
        held = held.__func__ if type(held) is types.MethodType else held
        if type(held) is types.FunctionType:
            reach(entry, held.__code__)
    # a generator or coroutine of ours as an argument (asyncio's hook at the first `async for` over one)
    for held in arguments:
        if type(held) in RESUMED:
            reach(entry, getattr(held, RESUMED[type(held)]))


def reach(entry, code):
    if entry[1] is None and code.co_filename.startswith(OURS):
        entry[1] = [code.co_filename, code.co_qualname]


def profile(frame, event, arg):
    if event == "c_call":
        # a builtin's qualname only: keeping `arg` would keep its bound object alive
        if frame.f_code.co_filename.startswith(OURS) and (frame.f_code, frame.f_lasti) not in outside:
            outside[frame.f_code, frame.f_lasti] = [getattr(arg, "__qualname__", ""), None, None]
        return
    if event != "call":
        return
    code = frame.f_code
    back = frame.f_back
    if not code.co_filename.startswith(OURS):
        if back is not None and back.f_code.co_filename.startswith(OURS):
            called_outside(frame, code, back)
        return
    if back is None or not back.f_code.co_filename.startswith(OURS):
        # run by code not ours: the instruction of ours nearest up the stack reached it
        while back is not None and not back.f_code.co_filename.startswith(OURS):
            back = back.f_back
        if back is not None:
            reach(outside.setdefault((back.f_code, back.f_lasti), ["", None, None]), code)
        return
    key = (back.f_code, back.f_lasti, code)
    if key in seen:
        return
    made = None
    if code.co_name in ("__init__", "__new__") and code.co_argcount:
        first = frame.f_locals.get(code.co_varnames[0])
        cls = first if isinstance(first, type) else type(first)
        made = [getattr(sys.modules.get(cls.__module__), "__file__", "") or "", cls.__qualname__]
    seen[key] = [frame.f_lasti, made]


def pytest_configure(config):
    sys.setprofile(profile)
    threading.setprofile(profile)


def pytest_unconfigure(config):
    sys.setprofile(None)
    with open(os.environ["CALLS_OUT"], "w") as out:
        for (caller, lasti, code), (started_at, made) in list(seen.items()):
            line, end_line, col, end_col = list(caller.co_positions())[lasti // 2]
            out.write(json.dumps({
                "path": caller.co_filename, "line": line, "end_line": end_line, "col": col, "end_col": end_col,
                "callee": code.co_filename, "qualname": code.co_qualname, "first_line": code.co_firstlineno,
                "flags": code.co_flags, "started_at": started_at, "made": made,
            }) + "\\n")
        for (caller, lasti), (ran, reaches, made) in list(outside.items()):
            line, end_line, col, end_col = list(caller.co_positions())[lasti // 2]
            out.write(json.dumps({
                "path": caller.co_filename, "line": line, "end_line": end_line, "col": col, "end_col": end_col,
                "outside": True, "ran": ran, "reaches": reaches, "made": made,
            }) + "\\n")
"""


def ground_truth(cache: Path, name: str, version: str, package: str) -> list[dict[str, Any]]:
    """What the suite called from where: one record per (calling instruction, called function)."""
    out = cache / f"calls-truth-{name}-{version}-v{TRUTH_VERSION}.jsonl"
    if not out.exists():
        python = bench_python(cache)
        work = cache / "runs" / f"calls-{name}-{version}"
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(source(cache, name, version, python), work)
        (work / "_calls_tracer.py").write_text(TRACER)
        print(f"running the {name} suite under a profiler...", file=sys.stderr)
        env = {
            **os.environ,
            "PYTHONPATH": f"src{os.pathsep}.",
            "CALLS_PACKAGE": str(work / package) + "/",
            "CALLS_TESTS": str(work / "tests") + "/",
            "CALLS_OUT": str(out) + ".part",
        }
        proc = subprocess.run(
            [python, "-m", "pytest", *PYTEST_ARGS, "-p", "_calls_tracer", "tests"],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        summary = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else proc.stderr[-500:]
        print(f"  {summary}", file=sys.stderr)
        records = [json.loads(line) for line in Path(str(out) + ".part").read_text().splitlines()]
        for record in records:
            for key in ("path", "callee"):
                if key in record:
                    record[key] = os.path.relpath(record[key], work)
            for key in ("made", "reaches"):
                if record.get(key):
                    record[key][0] = os.path.relpath(record[key][0], work) if record[key][0] else ""
        out.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in records))
        Path(str(out) + ".part").unlink()
    return [json.loads(line) for line in out.read_text().splitlines() if line]


class Sources:
    """The text of the calls the suite made, read back from the sdist by the instruction's positions."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.lines: dict[str, list[bytes]] = {}

    def call(self, record: dict[str, Any]) -> tuple[str, str] | None:
        """(name, receiver as written) of a call written out at the record's positions; None for anything else."""
        if record["line"] is None or record["col"] is None:
            return None
        if record["path"] not in self.lines:
            self.lines[record["path"]] = (self.root / record["path"]).read_bytes().splitlines()
        lines = self.lines[record["path"]][record["line"] - 1 : record["end_line"]]
        if not lines:
            return None
        lines[-1] = lines[-1][: record["end_col"]]
        lines[0] = lines[0][record["col"] :]
        text = b"\n".join(lines).decode("utf-8", "replace")
        try:
            node = ast.parse(f"({text})", mode="eval").body
        except SyntaxError:
            return None
        if not isinstance(node, ast.Call):
            return None
        if isinstance(node.func, ast.Name):
            return node.func.id, ""
        if isinstance(node.func, ast.Attribute):
            return node.func.attr, ast.get_source_segment(f"({text})", node.func.value) or ""
        return None


def sites(records: list[dict[str, Any]], sources: Sources, package: str) -> tuple[list[dict[str, Any]], Counter[str]]:
    """The judged sites and why the others were not. A site is {path, line, name, receiver, in_tests, ran}: each
    function that ran there as the (path, qualname, first line) naming it (a constructor's: also its class)."""
    skipped: Counter[str] = Counter()
    grouped: dict[tuple[str, int, int, int, int], dict[str, Any]] = {}
    for record in records:
        if record.get("outside"):
            continue
        if record["flags"] & GENERATOR_FLAGS:
            skipped["generator or coroutine"] += 1
            continue
        call = sources.call(record)
        if call is None:
            skipped["not a call written out"] += 1
            continue
        name, receiver = call
        callee_name = record["qualname"].rsplit(".", 1)[-1]
        callee = (record["callee"], record["qualname"].replace(".<locals>", ""), record["first_line"])
        made = record["made"]
        if callee_name == name:
            ran = frozenset({callee})
        elif callee_name in CONSTRUCTORS and made and made[1].rsplit(".", 1)[-1] == name:
            ran = frozenset({callee, (made[0], made[1].replace(".<locals>", ""), 0)})  # either names it
        else:
            skipped["what ran has another name (a decorator's inner function, `__call__`)"] += 1
            continue
        site = grouped.setdefault(
            _position(record),
            {
                "path": record["path"],
                "line": record["line"],
                "name": name,
                "receiver": receiver,
                "ran": set(),
                "in_tests": not record["path"].startswith(package + "/"),
            },
        )
        site["ran"].add(ran)
    return list(grouped.values()), skipped


def outside_only(records: list[dict[str, Any]], sources: Sources, package: str) -> list[dict[str, Any]]:
    """The sites, as `sites` gives them, where code not ours ran and nothing of ours: no function of ours ran
    there (a generator's resumption included), none ran under the code not ours, that code held none in its
    closure nor was handed a generator of ours (`reaches`), and made no instance of a class of ours there."""
    of_ours = {_position(r) for r in records if not r.get("outside") or r["reaches"]}
    found: dict[tuple[str, int, int, int, int], dict[str, Any]] = {}
    for record in records:
        if not record.get("outside") or _position(record) in of_ours:
            continue
        call = sources.call(record)
        if call is None or _makes_ours(record["made"], call[0]):
            continue
        found[_position(record)] = {
            "path": record["path"],
            "line": record["line"],
            "name": call[0],
            "receiver": call[1],
            "in_tests": not record["path"].startswith(package + "/"),
        }
    return list(found.values())


def _makes_ours(made: list[str] | None, name: str) -> bool:
    """Whether code not ours that took a class of ours as its first argument made one, called by that name: a
    dataclass's `__init__`, `Enum.__call__`, a NamedTuple's `__new__` (a `<lambda>`, so: the class's own name);
    not `pytest.raises(OurError)`, `isinstance(x, OurABC)`, nor `super().__init__()` to a base not ours."""
    if not made:
        return False
    _, qualname, taken_by = made
    return name == qualname.rsplit(".", 1)[-1] or (taken_by in (*CONSTRUCTORS, "__call__") and name not in CONSTRUCTORS)


def _position(record: dict[str, Any]) -> tuple[str, int, int, int, int]:
    return (record["path"], record["line"], record["end_line"], record["col"], record["end_col"])


def truth_symbols(conn: Any, callees: frozenset[tuple[str, str, int]]) -> set[str]:
    """Our symbols for a function that ran: by id (path::qualname), else by name and the lines holding them."""
    found: set[str] = set()
    for path, qualname, first_line in callees:
        symbol_id = f"{path}::{qualname}"
        if conn.execute("SELECT 1 FROM symbols WHERE id = ?", (symbol_id,)).fetchone():
            found.add(symbol_id)
            continue
        row = conn.execute(
            "SELECT id FROM symbols WHERE path = ? AND name = ? AND start_line <= ? AND end_line >= ?"
            " ORDER BY start_line DESC LIMIT 1",
            (path, qualname.rsplit(".", 1)[-1], first_line, first_line),
        ).fetchone()
        if row is not None:
            found.add(row[0])
    return found


def linked(conn: Any, resolver: Any) -> dict[tuple[Any, ...], dict[str, tuple[str, set[str]]]]:
    """Each call row (path, caller, line, receiver) with the symbols whose callers (store/callgraph.py, what
    `impact` and `callers` show) list it: the basis, and the names a call of it is indexed under (a class's, for
    its `__init__`), which tell it from another call of that line and receiver."""
    from codeannals.store.callgraph import CONSTRUCTORS, callers
    from codeannals.store.symbol import symbol_dict

    out: dict[tuple[Any, ...], dict[str, tuple[str, set[str]]]] = defaultdict(dict)
    for row in conn.execute("SELECT * FROM symbols WHERE kind IN ('function', 'method', 'class')").fetchall():
        names = {row["name"]}
        if row["name"] in CONSTRUCTORS and row["parent"]:
            names.add(row["parent"].rsplit("::", 1)[-1].rsplit(".", 1)[-1])
        for call in callers(conn, symbol_dict(row), limit=1_000_000, resolver=resolver):
            out[(call["path"], call["caller"], call["line"], call["qualifier"])][row["id"]] = (call["basis"], names)
    return out


def score(
    conn: Any, judged: list[dict[str, Any]], outside: list[dict[str, Any]]
) -> tuple[dict[str, dict[str, list[int]]], dict[str, Counter[str]]]:
    """Per group (package, tests) and answer: [edges found, answers given, edges that ran]. An edge is a function
    that ran at a site. Answers are counted as edges: each edge found is one right answer (a constructor's class
    and its `__init__` are one), each symbol named that did not run there one wrong. And per group, apart: the
    outside-only sites and the symbols each answer names there, all wrong."""
    from codeannals.store.resolver import CallResolver

    resolver = CallResolver(conn)
    rows = CallRows(conn)
    links = linked(conn, resolver)
    totals = {g: {a: [0, 0, 0] for a in ANSWERS} for g in ("package", "tests")}
    for site in judged:
        at = rows.at(site)
        recursive = {call["caller"] for call in at}  # a function's calls of itself are none of its callers
        edges = [found for ran in site["ran"] if (found := truth_symbols(conn, ran)) and not found & recursive]
        if not edges:
            continue  # functions we index no symbol for
        expected = set().union(*edges)
        given = answers(conn, links, at, site)
        for a in ANSWERS:
            t = totals["tests" if site["in_tests"] else "package"][a]
            hits = sum(bool(given[a] & edge) for edge in edges)
            t[0] += hits
            t[1] += hits + len(given[a] - expected)
            t[2] += len(edges)
    wrong = {g: Counter[str]() for g in ("package", "tests")}
    for site in outside:
        counts = wrong["tests" if site["in_tests"] else "package"]
        counts["sites"] += 1
        counts.update({a: len(symbols) for a, symbols in answers(conn, links, rows.at(site), site).items()})
    return totals, wrong


def answers(
    conn: Any, links: dict[tuple[Any, ...], dict[str, tuple[str, set[str]]]], at: list[Any], site: dict[str, Any]
) -> dict[str, set[str]]:
    """The symbols each answer names at the site: of our call rows there (`at`), those whose name or the names the
    call hands on (`called_names`) are a name the symbol is called by; the baseline's by name alone."""
    from codeannals.store.callgraph import RESOLVED, STAND_INS
    from codeannals.store.refs import called_names

    given = {a: set[str]() for a in ANSWERS}
    for call in at:
        written = {call["name"], *called_names(call["ref"])}
        for symbol, (basis, names) in links.get(
            (call["path"], call["caller"], call["line"], call["qualifier"]), {}
        ).items():
            if names & written:
                level = 0 if basis in RESOLVED else 1 if basis in STAND_INS else 2
                for a in ANSWERS[level:3]:  # resolved, +stand-ins, +guesses: each takes the ones before
                    given[a].add(symbol)
    given["baseline"] = name_rule(conn, site["path"], site["name"])
    return given


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=default_cache())
    parser.add_argument("--only", default="", help="projects by name, comma-separated")
    args = parser.parse_args()
    from codeannals.store.db import connect

    cache: Path = args.cache.resolve()
    only = {n for n in args.only.split(",") if n}
    started = time.perf_counter()
    print(f"{'project':<34} {'answer':<10} {'P':>6} {'R':>6} {'given':>7} {'ran':>7}")
    later = {name for name, _, _ in CALLS_ONLY}
    pooled = {label: {a: [0, 0, 0] for a in ANSWERS} for label in ("dev, pooled", "added later, pooled")}
    pooled_wrong = {label: Counter[str]() for label in pooled}
    for name, version, package in (*PROJECTS, *CALLS_ONLY):
        if only and name not in only:
            continue
        records = ground_truth(cache, name, version, package)
        root = cache / "src" / f"{name}-{version}"
        sources = Sources(root)
        judged, skipped = sites(records, sources, package)
        repo = indexed_copy(cache, name, version, root)
        conn = connect(repo / ".annals" / "annals.db")
        totals, wrong = score(conn, judged, outside_only(records, sources, package))
        conn.close()
        held = " (hold-out)" if name == HOLD_OUT else ""
        for group, by_answer in totals.items():
            for a, t in by_answer.items():
                print(_row(f"{name}{held} {group}", a, t))
                if not held:
                    into = pooled["added later, pooled" if name in later else "dev, pooled"]
                    into[a] = [x + y for x, y in zip(into[a], t, strict=True)]
        print(f"  not judged: {', '.join(f'{n} {why}' for why, n in skipped.most_common())}")
        for group, counts in wrong.items():
            print(_outside_row(f"{name}{held} {group}", counts))
            if not held:
                pooled_wrong["added later, pooled" if name in later else "dev, pooled"].update(counts)
    for label, by_answer in pooled.items():
        for a, t in by_answer.items():
            print(_row(label, a, t))
    for label, counts in pooled_wrong.items():
        print(_outside_row(label, counts))
    print(f"\n{time.perf_counter() - started:.1f} s")


def _row(label: str, answer: str, t: list[int]) -> str:
    found, given, ran = t
    precision = found / given if given else 0.0
    recall = found / ran if ran else 0.0
    return f"{label:<34} {answer:<10} {precision:>6.3f} {recall:>6.3f} {given:>7} {ran:>7}"


def _outside_row(label: str, counts: Counter[str]) -> str:
    named = ", ".join(f"{a} {counts[a]}" for a in ANSWERS)
    return f"{label:<34} outside-only sites {counts['sites']}; answers given there (all wrong): {named}"


if __name__ == "__main__":
    main()
