"""Call edges of Ruby projects against the methods their own test suites run, with a baseline.

    python bench/facts_calls_ruby.py [--mirrors DIR] [--cache DIR] [--only NAME,...] [--wrong N]

Ground truth written by Ruby itself: each project's test suite (a `fetch`ed mirror at a fixed tag, run offline with
Ruby's bundled test-unit; `core_assertions`, which the ruby/* gems' helpers require from a gem not bundled, is an
empty module, so the few tests using its assertions fail) run once with bench/facts_calls_ruby.rb loaded first: a
TracePoint on `:call` records, for each method defined in the project's lib/ that is entered, the line of lib/ or
test/ it was called from (`caller_locations`: the caller's frame) and the method (its file, `def` line, name and
the name it was called by, an alias's); Ripper, Ruby's own parser, reads the method calls written on each line of
those files, and Coverage the lines that ran. A site is (file, line, name called) with the methods of ours that ran
there; an edge is one of those methods. It is judged when the name is written as a method call on that line
(`obj.name(..)`, `name(..)`, bare `name`, `obj.name = v` for `name=`; `new` for `initialize`, where the method
entered from there is `new`, a C method), or where a `send` is written there (`__send__(@parse_method)` ran
`parse_quotable_robust`). An operator (`==`, `<<`, `[]`), which Ripper gives no line of its own, is judged where Ruby
entered ours from that line, not through a C method; its figures are printed apart. Not judged, and counted apart: a
method entered through another C method (`map(&:name)`, `each` that `to_a` calls, `instance_exec`), a name not
written there (`super`); methods we index no symbol for. A caller is our innermost symbol whose
lines hold the line; a callee the method symbol of its name starting at its `def` line (for `new`, its class too).

Each project is indexed with this checkout's `annals index --no-vectors` (fresh every run), and our call rows at a
judged site (same file, a line the row lists, the name: a writer's, `name=`, as Ruby names it) are answered three
ways, as bench/facts_calls_go.py does (its `answers`):
- `resolved`: the targets on a followed basis (store/callgraph.py's FOLLOWED: same file, method, imported name,
  constructor, ..., unique name);
- `+guesses`: those, and where the index does not know, the guess by name that `callees` gives (`name only`);
- `baseline`: the name-only rule on every site (the first symbol of the name: same file, then a file the
  caller imports, then any), as a tool matching names answers.
Recall: edges named, of the edges that ran. Precision: edges named, of the symbols named (each one that did not
run there is wrong: `wrong target`, a method of ours where Ruby ran another of ours). Beside: `ran none`, the
answers naming ours at a call row on a line that ran where no method of ours of that name was entered (Ruby ran the
core library's: `rows.each`, `str.split`); a line that ran may hold a call that did not (`f(x) if cond`), so it is
an upper bound. The truth is what one run executed: an override the suite never reaches counts wrong where named.

Projects: ruby/csv v3.3.5, ruby/rake v13.4.2 and ruby/optparse v0.8.1, and the hold-out ruby/rexml v3.4.4
(chosen before any figure was read), whose figures are read in total only, never site by site. `--wrong N` prints
N wrong answers and N missed edges of each dev project, with the source line; every dev one is written to
`dev-misses.jsonl` under the cache.

First run (the index at 563f057, ruby 3.1.2; 46 s with the suites traced, 10 s with the truth cached): dev
`resolved` precision .690 of 629 answers, recall .124 of 3,489 edges (csv .700 / .088, rake .898 / .118, optparse
.465 / .225), 195 wrong targets, 159 answers where no method of ours ran; `+guesses` .775 / .608 (615 wrong targets,
727 where none of ours ran), the same as the name-only baseline at every site: Ruby's calls have no rule of their
own, only the guess by name (same file, imported, any). Hold-out: `resolved` .689 / .230 of 3,278 edges; `+guesses`
.557 / .376, as the baseline. What is missed (dev): a method on a receiver of a type the index does not know, named
only by its name (2,107: `@opt.parse!(..)`, `t.invoke(..)`, `@table.dig(..)`, right by name in 1,687), a bare
call without arguments, which has no call row (315: `parser.parse`, `options.silent = true`), `Const.new`, answered
by nothing (295: `CSV.new(data)`, `Rake::TestTask.new { .. }`), an alias (`@row.header?`, `def_option`).
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from facts_calls_go import answers  # noqa: E402  (bench/ is not a package)
from facts_tests import Lines, indexed_copy  # noqa: E402
from facts_tests_js import tag_tree  # noqa: E402

# Each suite as its own Rakefile runs it, without rake or bundler; SHIM is a folder on the load path.
RUN_FILES = "Dir[%r].sort.each { |f| require File.expand_path(f) }"


@dataclass(frozen=True)
class Project:
    name: str
    github: str
    tag: str
    argv: tuple[str, ...]  # ruby's arguments after the tracer's `-r`


PROJECTS = (
    Project("csv", "ruby/csv", "v3.3.5", ("run-test.rb",)),
    Project("rake", "ruby/rake", "v13.4.2", ("-Ilib", "-Itest", "-e", RUN_FILES % "test/test_*.rb")),
    Project(
        "optparse",
        "ruby/optparse",
        "v0.8.1",
        ("-Ilib", "-Itest/lib", "-ISHIM", "-rhelper", "-e", RUN_FILES % "test/**/test_*.rb"),
    ),
    Project("rexml", "ruby/rexml", "v3.4.4", ("-ISHIM", "test/run.rb")),
)
HOLD_OUT = frozenset({"rexml"})
ANSWERS = ("resolved", "+guesses", "baseline")
TRUTH_VERSION = 2  # 2: the tests' own methods recorded too (an answer there names no core method)
TRACER = Path(__file__).with_name("facts_calls_ruby.rb")
# test-unit-ruby-core's CoreAssertions, a gem Ruby does not bundle: the suites' helpers include it
CORE_ASSERTIONS = "module Test\n  module Unit\n    module CoreAssertions\n    end\n  end\nend\n"
WORD = re.compile(r"[A-Za-z_]\w*[?!=]?")  # a method name a call can spell; the rest are operators
OPERATOR = "operator"  # a judged site's form: `a << b`, `a == b`, `t[k]`, whose totals are printed apart
SENT = "sent"  # a judged site's form: a method of the name a `send` written there ran
SENDS = frozenset({"send", "__send__", "public_send"})


def default_cache() -> Path:
    return Path(os.environ.get("ANNALS_FACTS_CALLS_RUBY_CACHE", "/work/corpora/calls_ruby"))


@dataclass
class Truth:
    """What one run of a suite recorded, its paths relative to the project."""

    sites: list[dict[str, Any]]
    written: dict[str, dict[int, dict[str, str]]]  # file -> line -> name called there -> Ripper's form
    covered: dict[str, set[int]]


def traced_run(
    work: Path, cache: Path, project: Project, out: Path, tracer: Path = TRACER, variables: str = "CALLS"
) -> None:
    """The suite run on a scratch copy (tests write files) with a tracer loaded first (this bench's, or
    facts_tests_ruby.py's), told where the tree is and where to write by `{variables}_ROOT` and `{variables}_OUT`."""
    scratch = cache / "runs" / f"traced-{variables.lower()}-{project.name}-{project.tag}"
    shutil.rmtree(scratch, ignore_errors=True)
    shutil.copytree(work, scratch)
    shim = cache / "shim"
    shim.mkdir(exist_ok=True)
    (shim / "core_assertions.rb").write_text(CORE_ASSERTIONS)
    argv = [a.replace("SHIM", str(shim)) for a in project.argv]
    print(f"running {project.name}'s suite under a TracePoint...", file=sys.stderr)
    env = {**os.environ, f"{variables}_ROOT": str(scratch), f"{variables}_OUT": str(out)}
    proc = subprocess.run(
        ["ruby", "-r", str(tracer), *argv], cwd=scratch, env=env, capture_output=True, text=True, check=False
    )
    summary = [line for line in proc.stdout.splitlines() if " tests, " in line]
    print(f"  {summary[-1] if summary else proc.stderr[-800:]}", file=sys.stderr)
    if not out.exists():
        raise SystemExit(f"the tracer wrote nothing for {project.name}:\n{proc.stderr[-2000:]}")
    _relative(out, scratch)


def _relative(out: Path, root: Path) -> None:
    """The records with their paths relative to the project, rewritten in place."""
    prefix = str(root.resolve()) + "/"
    text = out.read_text().replace(json.dumps(prefix)[1:-1], "")
    out.write_text(text)


def ground_truth(work: Path, cache: Path, project: Project) -> Truth:
    tracer = hashlib.sha256(TRACER.read_bytes()).hexdigest()[:12]
    out = cache / f"truth-{project.name}-{project.tag}-v{TRUTH_VERSION}-{tracer}.jsonl"
    if not out.exists():
        part = out.with_suffix(".part")
        traced_run(work, cache, project, part)
        part.rename(out)
    truth = Truth([], {}, {})
    for record in map(json.loads, out.read_text().splitlines()):
        if "site" in record:
            keys = ("path", "line", "label", "through_c", "callee", "def_line", "method", "owner", "called")
            truth.sites.append(dict(zip(keys, record["site"], strict=True)))
        elif "written" in record:
            lines: dict[int, dict[str, str]] = defaultdict(dict)
            for line, name, form in record["calls"]:
                lines[line][name] = form
            truth.written[record["written"]] = lines
        else:
            truth.covered[record["covered"]] = set(record["lines"])
    return truth


@dataclass
class Site:
    """A judged call: the file, line and name written, the edges that ran (each a set of our symbols standing for
    one method: a constructor's `initialize` or its class) and how Ripper reads the call."""

    path: str
    line: int
    name: str
    form: str
    edges: list[frozenset[str]] = field(default_factory=list)


class Symbols:
    """Our symbols of each file, read once."""

    def __init__(self, conn: Any) -> None:
        self.by_path: dict[str, list[Any]] = defaultdict(list)
        for row in conn.execute("SELECT id, path, name, kind, parent, start_line, end_line FROM symbols"):
            self.by_path[row["path"]].append(row)

    def innermost(self, path: str, line: int) -> str:
        """The symbol around a line (the file where none is): what the site's caller is."""
        around = [s for s in self.by_path[path] if s["start_line"] <= line <= s["end_line"]]
        return min(around, key=lambda s: s["end_line"] - s["start_line"])["id"] if around else path

    def method(self, path: str, line: int, name: str) -> frozenset[str]:
        """The method of that name defined at the line, and for `initialize` its class (`new` names either)."""
        found = {s for s in self.by_path[path] if s["start_line"] == line and s["name"] == name}
        ids = {s["id"] for s in found}
        if name == "initialize":
            ids |= {s["parent"] for s in found if s["parent"]}
        return frozenset(ids)


def judged_sites(truth: Truth, symbols: Symbols) -> tuple[list[Site], Counter[str]]:
    """The sites a call written on the line explains, and why the others were not judged."""
    skipped: Counter[str] = Counter()
    sites: dict[tuple[str, int, str], Site] = {}
    for record in truth.sites:
        constructor = record["method"] == "initialize" and record["label"] == "new"
        name = "new" if constructor else record["called"]
        written = truth.written.get(record["path"], {}).get(record["line"], {})
        if not record["callee"].startswith("lib/"):
            skipped["a method of the tests"] += 1  # entered: no answer there names ours wrongly, but not judged
            continue
        if record["through_c"] and not constructor:
            skipped["entered through a C method (`map(&:name)`, `instance_exec`)"] += 1
            continue
        operator = not WORD.fullmatch(name)
        if operator:  # Ripper gives an operator no line of its own; Ruby entered ours from this one, not through C
            written = {name: OPERATOR}
        elif name not in written and SENDS & set(written):  # `__send__(@parse_method)`: the name it holds ran
            written = {name: SENT}
        if name not in written:
            skipped["a name not written there (`__send__`, `super`)"] += 1
            continue
        callee = symbols.method(record["callee"], record["def_line"], record["method"])
        if not callee:
            skipped["no symbol of ours for the method"] += 1
            continue
        site = sites.setdefault(
            (record["path"], record["line"], name), Site(record["path"], record["line"], name, written[name])
        )
        if callee not in site.edges:
            site.edges.append(callee)
    return list(sites.values()), skipped


class CallRows:
    """Our Ruby call rows by file, line (every line a row lists) and name."""

    def __init__(self, conn: Any) -> None:
        from codeannals.store.callgraph import call_lines

        self.at_line: dict[tuple[str, int, str], list[Any]] = defaultdict(list)
        for call in conn.execute(
            "SELECT path, caller, line, lines, name, qualifier, ref, arguments FROM calls"
            " WHERE path LIKE '%.rb' AND (ref IS NULL OR ref NOT LIKE 'value%')"
        ):
            for line in call_lines(call):
                self.at_line[(call["path"], line, call["name"])].append(call)

    def at(self, path: str, line: int, name: str) -> list[Any]:
        return self.at_line.get((path, line, name), [])


def given_at(conn: Any, resolver: Any, rows: list[Any]) -> dict[str, dict[str, str]]:
    """Each answer's symbols at a site (with their basis), over the rows of its line and name."""
    given: dict[str, dict[str, str]] = {a: {} for a in ANSWERS}
    for call in rows:
        for a, targets in answers(conn, resolver, call).items():
            given[a] |= targets
    return given


def score(conn: Any, root: Path, truth: Truth, project: str) -> dict[str, Any]:
    """Per answer: `found` (edges named), `given` (found and wrong symbols named), `edges`, `wrong target`; then
    `ran none` per answer, the skipped sites, and the misses and wrong answers with their source lines."""
    from codeannals.store.resolver import CallResolver

    resolver = CallResolver(conn)
    symbols = Symbols(conn)
    rows = CallRows(conn)
    line_of = Lines(root)
    sites, skipped = judged_sites(truth, symbols)
    totals = {a: Counter[str]() for a in ANSWERS}
    operators = {a: Counter[str]() for a in ANSWERS}
    notes: list[dict[str, Any]] = []
    for site in sites:
        given = given_at(conn, resolver, rows.at(site.path, site.line, site.name))
        expected = frozenset().union(*site.edges)
        for a in ANSWERS:
            named = set(given[a])
            found = sum(bool(named & edge) for edge in site.edges)
            wrong = len(named - expected)
            counted = operators if site.form == OPERATOR else totals
            counted[a].update({"found": found, "given": found + wrong, "edges": len(site.edges), "wrong target": wrong})
        shown = {
            "project": project,
            "at": f"{site.path}:{site.line}",
            "caller": symbols.innermost(site.path, site.line),
            "source": line_of(site.path, site.line),
            "form": site.form,
            "ran": sorted(max(edge) for edge in site.edges),  # a constructor's `initialize` rather than its class
            "ours": [f"{t} [{basis}]" for t, basis in sorted(given["+guesses"].items())],
        }
        if set(given["+guesses"]) - expected:
            notes.append({**shown, "kind": "wrong target"})
        if not all(set(given["resolved"]) & edge for edge in site.edges):
            notes.append({**shown, "kind": "missed"})
    ran_none, none_notes = answers_where_none_ran(conn, resolver, rows, truth, project, line_of)
    for a in ANSWERS:
        totals[a]["ran none"] = ran_none[a]
    return {
        "totals": totals,
        "operators": operators,
        "skipped": skipped,
        "sites": len(sites),
        "notes": notes + none_notes,
    }


def answers_where_none_ran(
    conn: Any, resolver: Any, rows: CallRows, truth: Truth, project: str, line_of: Lines
) -> tuple[Counter[str], list[dict[str, Any]]]:
    """The answers naming ours at call rows on lines that ran, where Ruby entered no method of ours of that name."""
    entered = {(s["path"], s["line"], s["called"]) for s in truth.sites}
    entered |= {(s["path"], s["line"], "new") for s in truth.sites if s["method"] == "initialize"}
    counts: Counter[str] = Counter()
    notes: list[dict[str, Any]] = []
    for (path, line, name), calls in rows.at_line.items():
        if line not in truth.covered.get(path, set()) or (path, line, name) in entered:
            continue
        given = given_at(conn, resolver, calls)
        if name == "new":  # `Foo.new` of a class with no `initialize` of ours: naming the class is right
            given = {a: {t: b for t, b in g.items() if not _is_class(resolver, t)} for a, g in given.items()}
        counts.update({a: 1 for a in ANSWERS if given[a]})
        if given["+guesses"]:
            ours = [f"{t} [{basis}]" for t, basis in sorted(given["+guesses"].items())]
            shown = {"project": project, "at": f"{path}:{line}", "source": line_of(path, line), "ours": ours}
            notes.append({**shown, "kind": "ran none"})
    return counts, notes


def _is_class(resolver: Any, symbol_id: str) -> bool:
    symbol = resolver.symbol(symbol_id)
    return symbol is not None and symbol["kind"] == "class"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirrors", type=Path, default=Path(os.environ.get("LOCALIZE_MIRRORS", "/work/.mirror")))
    parser.add_argument("--cache", type=Path, default=default_cache())
    parser.add_argument("--only", default="", help="projects by name, comma-separated")
    parser.add_argument("--wrong", type=int, default=0, help="print this many wrong answers and misses a project")
    args = parser.parse_args()
    from codeannals.store.db import connect

    cache: Path = args.cache.resolve()
    cache.mkdir(parents=True, exist_ok=True)
    only = {n for n in args.only.split(",") if n}
    started = time.perf_counter()
    dev_notes: list[dict[str, Any]] = []
    header = f"{'project':<24} {'answer':<10} {'P':>6} {'R':>6} {'given':>7} {'edges':>7}"
    print(f"{header} {'wrong target':>13} {'ran none':>9}")
    for hold_out in (False, True):
        pooled = {a: Counter[str]() for a in ANSWERS}
        pooled_operators = {a: Counter[str]() for a in ANSWERS}
        chosen = [p for p in PROJECTS if (p.name in HOLD_OUT) == hold_out and (not only or p.name in only)]
        for project in chosen:
            work = tag_tree(args.mirrors, cache, project.github, project.name, project.tag)
            truth = ground_truth(work, cache, project)
            repo = indexed_copy(cache, project.name, project.tag, work)
            conn = connect(repo / ".annals" / "annals.db")
            result = score(conn, repo, truth, project.name)
            conn.close()
            label = f"{project.name} {project.tag}" + (" (hold-out)" if hold_out else "")
            for a, t in result["totals"].items():
                pooled[a].update(t)
                print(_row(label, a, t))
            for a, t in result["operators"].items():
                pooled_operators[a].update(t)
                print(_row(f"  {project.name}'s operators", a, t))
            skipped = ", ".join(f"{n} {why}" for why, n in result["skipped"].most_common())
            print(f"  {result['sites']} judged sites; not judged: {skipped}")
            if not hold_out:
                dev_notes += result["notes"]
                _print_notes(result["notes"], args.wrong)
        if len(chosen) > (1 if hold_out else 0):
            for a, t in pooled.items():
                print(_row("hold-out, total" if hold_out else "dev, total", a, t))
            for a, t in pooled_operators.items():
                print(_row("  hold-out operators" if hold_out else "  dev operators", a, t))
    (cache / "dev-misses.jsonl").write_text("".join(json.dumps(n) + "\n" for n in dev_notes))
    print(f"\n{time.perf_counter() - started:.1f} s; dev misses and wrong answers in {cache / 'dev-misses.jsonl'}")


def _print_notes(notes: list[dict[str, Any]], n: int) -> None:
    for kind in ("wrong target", "ran none", "missed"):
        of_kind = [note for note in notes if note["kind"] == kind]
        if not n or not of_kind:
            continue
        print(f"  {kind}, {len(of_kind)}:")
        for note in of_kind[:n]:
            ran = f"; ruby ran {', '.join(note['ran'])}" if "ran" in note else ""
            print(f"    {note['at']}: `{note['source']}`\n      ours {', '.join(note['ours']) or 'none'}{ran}")


def _row(label: str, answer: str, t: Counter[str]) -> str:
    precision = t["found"] / t["given"] if t["given"] else 0.0
    recall = t["found"] / t["edges"] if t["edges"] else 0.0
    return (
        f"{label:<24} {answer:<10} {precision:>6.3f} {recall:>6.3f} {t['given']:>7} {t['edges']:>7}"
        f" {t['wrong target']:>13} {t['ran none']:>9}"
    )


if __name__ == "__main__":
    main()
