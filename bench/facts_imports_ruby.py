"""Ruby file dependencies of the index against the files Ruby itself loads, with a baseline.

    python bench/facts_imports_ruby.py [--mirrors DIR] [--cache DIR] [--only NAME,...] [--show N]

Two ground truths, both written by Ruby (3.1, Debian's), each an edge from a file of the project's tree to another:
- `runtime`: the project's own test suite (a `fetch`ed mirror at a fixed tag, run offline as bench/facts_calls_ruby.py
  runs it, its `core_assertions` shim included) with bench/facts_imports_ruby.rb loaded first, by `-r` and by RUBYOPT
  in each `ruby` the suite starts. It prepends hooks to Kernel (as Object has it and as `Kernel.require` has it) and to
  Module#autoload, and records for each `require`, `require_relative`, `load` and `autoload` a file of the tree
  makes, the file it loads: `$LOAD_PATH.resolve_feature_path` (which finds a feature already loaded among
  `$LOADED_FEATURES` first, as `require` does, so a second `require` of a file still names it), else what
  `$LOADED_FEATURES` gained. An autoload is its registration, the file writing `autoload :X, "path"` -> the file
  (when it fires, Ruby's `require` from the line naming the constant is no edge of that file). Scored on the files
  the run loaded: an edge of the index from a file Ruby never loaded is neither right nor wrong here.
- `static`: every literal `require`, `Kernel.require`, `require_relative`, `load` and `autoload` (any receiver)
  Ripper reads in each Ruby file of the tree, resolved by Ruby's own `$LOAD_PATH.resolve_feature_path` with the
  project's lib/ (and test/lib where there is one; sinatra's rack-protection/lib and sinatra-contrib/lib, the gems
  its Gemfile takes from the tree) first on the load path; `require_relative` against the file's folder, `load` on
  the load path and then from the project's top. A suite does not load every file; a file may load what no literal
  names (`require File.expand_path(..)`, `Dir.glob(..).each { require }`).

The index is this checkout's `annals index --no-vectors` of the same tree (fresh every run, ANNALS_VECTORS=off), its
edges as store/lookups.py's `import_edges` serves them, from a Ruby file (.rb, .rake, .gemspec, Rakefile, Gemfile,
as indexer/parsing/parse.py names them). The baseline in the same run: the index's `require_relative` rows resolved
beside the file only, `require` never. Recall: edges of the truth named; precision: edges named that are the truth's.
`--show N` prints N missed and N extra edges of each dev project and truth, with the call as written, what Ruby
loaded and what the index resolved; the dev projects' misses and extras are counted by cause (the call's kind; a
`require` found through a test folder on $LOAD_PATH; another file of the same name chosen; a path built with
`File.expand_path`/`__dir__`; a `Dir.glob` load) and all are written to `dev-edges.jsonl` under the cache.

Projects: ruby/csv v3.3.5, ruby/rake v13.4.2, ruby/optparse v0.8.1 (bench/facts_calls_ruby.py's tags and runs);
ruby/logger v1.7.0 and ruby/webrick v1.9.2, run as optparse is (`-Itest/lib -rhelper`; webrick's helpers use
test-unit-ruby-core's EnvUtil and assert_join_threads, shimmed beside `core_assertions`); rack/rack v3.2.7 (minitest,
with Debian's ruby-minitest-global-expectations) and sinatra/sinatra v3.2.0 (the newest on rack 2, the rack Debian
ships; Debian's ruby-mustermann and ruby-tilt; rack-protection/lib and sinatra-contrib/lib on the load path, as its
Gemfile has them; its integration tests, which need puma and childprocess, left out): `apt-get install
ruby-minitest-global-expectations ruby-mustermann ruby-tilt`. The hold-out is ruby/rexml v3.4.4, chosen before any
figure was read (the hold-out of the calls bench), whose figures are read in total only, never edge by edge.

First run (the index at 04c22e1, ruby 3.1.2; 78 s with the suites run, 59 s with their records cached, most of it
indexing): dev, runtime (582 edges Ruby made, from the 371 files the suites loaded): annals recall .859, precision
.812 (616 edges); baseline .608 / .753. Static (746 edges): annals 1.000 / 1.000, the same literal calls as Ripper
reads, call for call, each resolved to Ruby's file; baseline .654 / 1.000. Hold-out rexml: runtime 146 edges,
annals 1.000 / .993, baseline .603 / .989; static 161, annals 1.000 / 1.000, baseline .640 / 1.000. What the index
misses (dev, runtime, 82): a path built from `__FILE__`/`__dir__` (47: rake's 46 `require File.expand_path("../helper",
__FILE__)`, webrick's `File.expand_path("utils.rb", File.dirname(__FILE__))`), a `Dir.glob` load (30: csv's
run-test.rb), `require 'contest'` found through test/ on $LOAD_PATH (sinatra), a script named without .rb (rake's
exe/rake, not indexed as Ruby), a path in a variable (rack's `require path`, rake's `load @loader`). Its extras
against the runtime truth (116) are all calls the suite does not reach (rack's 115 in `separate_testing do` blocks
and `require_relative 'multipart' unless defined?(Rack::Multipart)`), right by the static truth.

After 37d459d (`require File.expand_path("../helper", __FILE__)`, `(x, __dir__)`, `File.join(__dir__, ...)` read as
`require_relative`; a test's `require` from its own test/ or spec/ folder after lib/): dev, runtime, recall .859 ->
.942, precision .812 -> .825 (664 edges); static 1.000 / .916: its 68 new extras are the calls the static truth
cannot see (50 paths built from `__FILE__`, 18 requires of spec/ or test/ files, which RSpec's and `rake test`'s
load path holds: the runtime truth has those it ran). The hold-out rexml the same. Since 58c37a5 a script whose
first line runs ruby (rake's exe/rake) is indexed as Ruby, and both truths count its loads: runtime .943 / .826,
static 1.000 / .917 of 751.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import posixpath
import re
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from facts_calls_ruby import PROJECTS as CALLS_PROJECTS  # noqa: E402  (bench/ is not a package)
from facts_calls_ruby import RUN_FILES, Project, traced_run  # noqa: E402
from facts_tests import Lines, indexed_copy  # noqa: E402
from facts_tests_js import tag_tree  # noqa: E402

HELPER_RUN = ("-Ilib", "-Itest/lib", "-ISHIM", "-rhelper", "-e", RUN_FILES % "test/**/test_*.rb")
PROJECTS = (
    *CALLS_PROJECTS,
    Project("logger", "ruby/logger", "v1.7.0", HELPER_RUN),
    Project("webrick", "ruby/webrick", "v1.9.2", HELPER_RUN),
    Project("rack", "rack/rack", "v3.2.7", ("-Ilib", "-Itest", "-e", RUN_FILES % "test/**/{spec_*,*_test}.rb")),
    Project(
        "sinatra",
        "sinatra/sinatra",
        "v3.2.0",
        (
            *("-Ilib", "-Itest", "-I.", "-Irack-protection/lib", "-Isinatra-contrib/lib", "-rminitest/autorun", "-e"),
            # the integration tests start servers needing puma and childprocess
            'Dir["test/*_test.rb"].sort.each { |f| require File.expand_path(f) unless f.include?("integration") }',
        ),
    ),
)
HOLD_OUT = frozenset({"rexml"})  # chosen before any figure was read, as bench/facts_calls_ruby.py's
# The load path of the static truth beyond lib/ and test/lib: the gems of the tree a Gemfile takes by `path:`
LIBS = {"sinatra": ("rack-protection/lib", "sinatra-contrib/lib")}
TRUTH_VERSION = 1
# test-unit-ruby-core's EnvUtil and assert_join_threads, which webrick's test helpers use, beside the calls bench's
# CoreAssertions shim
ENVUTIL = """require "core_assertions"
require "rbconfig"
require "timeout"
module EnvUtil
  def self.rubybin = RbConfig.ruby
  def self.apply_timeout_scale(seconds) = seconds
  def self.timeout(seconds, &block) = Timeout.timeout(seconds, &block)
end
module Test::Unit::CoreAssertions
  def assert_join_threads(threads, message = nil) = threads.each(&:join)
end
"""
HOOKS = Path(__file__).with_suffix(".rb")
RUBY_SUFFIXES = (".rb", ".rake", ".gemspec")  # and the names below: indexer/parsing/parse.py's
RUBY_NAMES = ("Rakefile", "Gemfile")
KINDS = ("require", "require_relative", "load", "autoload")
BUILT_HERE = re.compile(r"__dir__|__FILE__")  # a path built from the file's own place: known without running it
BUILT = re.compile(r"File\.(expand_path|join|dirname)")
GLOB = re.compile(r"Dir\s*\[|Dir\.(glob|each_child|entries|children|foreach)")


RUBY_SHEBANG = re.compile(rb"#![^\n]*\bruby\b")  # `#!/usr/bin/env ruby`: exe/rake, a script Ruby runs


def is_ruby(path: str, root: Path | None = None) -> bool:
    """A Ruby file by its name, or (given the tree) a script with no extension whose first line runs ruby."""
    if path.endswith(RUBY_SUFFIXES) or posixpath.basename(path) in RUBY_NAMES:
        return True
    if root is None or "." in posixpath.basename(path) or not (root / path).is_file():
        return False
    with (root / path).open("rb") as script:
        return RUBY_SHEBANG.match(script.readline(256)) is not None


@dataclass(frozen=True)
class Load:
    """A call Ruby made (or would make, for the static truth) and the file it loads, relative to the tree."""

    kind: str
    source: str
    line: int
    feature: str
    target: str | None  # a file of the tree, else None (a gem's, the standard library's, none)
    base: str | None = None  # the $LOAD_PATH entry a `require` found it under


@dataclass
class Truth:
    loads: list[Load]
    ran: set[str] | None  # the files the run loaded (None: every file, the static truth)
    fired: int = 0  # the autoloads registered whose file the run loaded

    def by_kind(self) -> Counter[str]:
        """Each edge once, by the kind of its first call."""
        kinds: dict[tuple[str, str], str] = {}
        for a in self.loads:
            if a.target and a.target != a.source:
                kinds.setdefault((a.source, a.target), a.kind)
        return Counter(kinds.values())

    def edges(self) -> set[tuple[str, str]]:
        return {(a.source, a.target) for a in self.loads if a.target and a.target != a.source}


def tree_files(root: Path) -> set[str]:
    return {
        str(p.relative_to(root))
        for p in root.rglob("*")
        if p.is_file() and not p.relative_to(root).parts[0].startswith((".git", ".annals"))
    }


def _inside(path: str | None, prefix: str, files: set[str]) -> str | None:
    """A path Ruby wrote, as a file of the tree (None where it is not one)."""
    if path is None:
        return None
    relative = path.removeprefix(prefix)
    return relative if relative in files else None


def _load(record: dict[str, Any], prefix: str, files: set[str]) -> Load:
    base = record.get("base")
    return Load(
        record["call"],
        record["from"].removeprefix(prefix),
        record["line"],
        record["feature"],
        _inside(record["to"], prefix, files),
        base.removeprefix(prefix) if base else None,
    )


def runtime_truth(work: Path, cache: Path, project: Project, files: set[str]) -> Truth:
    """What the suite loaded: its calls from files of the tree (autoloads firing left out) and the files it loaded."""
    digest = hashlib.sha256(HOOKS.read_bytes()).hexdigest()[:12]
    out = cache / f"runtime-{project.name}-{project.tag}-v{TRUTH_VERSION}-{digest}.jsonl"
    if not out.exists():
        part = out.with_suffix(".part")
        part.unlink(missing_ok=True)
        (cache / "shim").mkdir(exist_ok=True)
        (cache / "shim" / "envutil.rb").write_text(ENVUTIL)
        os.environ["RUBYOPT"] = f"-r{HOOKS}"  # the `ruby` processes the suite starts load the hooks too
        try:
            traced_run(work, cache, project, part, HOOKS, "IMPORTS")
        finally:
            del os.environ["RUBYOPT"]
        part.rename(out)
    loads: list[Load] = []
    ran: set[str] = set()
    for record in map(json.loads, out.read_text().splitlines()):
        if "loaded" in record:
            ran.update(p for p in record["loaded"] if p in files)
        elif record["call"] != "fired" and record["from"] in files:
            loads.append(_load(record, "", files))
    ran |= {a.source for a in loads} | {a.target for a in loads if a.target and a.kind != "autoload"}
    fired = len({(a.source, a.target) for a in loads if a.kind == "autoload" and a.target in ran})
    return Truth(sorted(set(loads), key=lambda a: (a.source, a.line, a.kind)), ran, fired)


def static_truth(work: Path, project: Project, files: set[str]) -> Truth:
    """Every literal load of each Ruby file, resolved by Ruby with the project's lib folders on the load path."""
    ruby_files = sorted(p for p in files if is_ruby(p, work))
    listing = work.parent / f"{work.name}-ruby-files.txt"
    listing.write_text("".join(f"{p}\n" for p in ruby_files))
    dirs = [d for d in ("lib", "test/lib", *LIBS.get(project.name, ())) if (work / d).is_dir()]
    env = {k: v for k, v in os.environ.items() if k != "RUBYOPT"}
    proc = subprocess.run(
        ["ruby", "--disable-gems", str(HOOKS), str(work), str(listing), *dirs],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    if proc.returncode != 0:
        raise SystemExit(f"the static scan of {project.name} failed:\n{proc.stderr[-2000:]}")
    prefix = str(work.resolve()) + "/"
    loads = [_load(json.loads(line), prefix, files) for line in proc.stdout.splitlines()]
    return Truth(loads, None)


@dataclass(frozen=True)
class Row:
    """An import row of the index."""

    source: str
    line: int
    module: str
    kind: str
    target: str | None


def index_rows(repo: Path) -> tuple[set[tuple[str, str]], list[Row]]:
    """The index's edges from Ruby files, as import_edges serves them, and its import rows of Ruby files."""
    from codeannals.store.lookups import import_edges

    conn = sqlite3.connect(repo / ".annals" / "annals.db")
    try:
        edges = {(e["source"], e["target"]) for e in import_edges(conn) if is_ruby(e["source"], repo)}
        query = "SELECT path, line, module, kind, target FROM imports ORDER BY path, ordinal"
        rows = [Row(*r) for r in conn.execute(query) if is_ruby(r[0], repo)]
    finally:
        conn.close()
    return edges, rows


def baseline(rows: list[Row], files: set[str]) -> set[tuple[str, str]]:
    """`require_relative` resolved beside the file only, `require` never."""
    edges = set()
    for row in rows:
        if row.kind != "require_relative":
            continue
        spec = row.module if row.module.endswith(".rb") else f"{row.module}.rb"
        target = posixpath.normpath(posixpath.join(posixpath.dirname(row.source), spec))
        if target in files and target != row.source:
            edges.add((row.source, target))
    return edges


class Source(Lines):
    """Lines of the tree, read once, and the lines leading to one."""

    def around(self, path: str, line: int, before: int = 6) -> str:
        return " ".join(self(path, n) for n in range(max(1, line - before), line + 1))


def miss_cause(load: Load, rows: list[Row], text: Source) -> str:
    """Why the index lacks an edge Ruby made: the call's kind, then what the index made of it."""
    if not any(r.source == load.source for r in rows):
        return f"{load.kind}: from a file with no import row (not indexed as Ruby)"
    kind = load.kind
    if kind == "require" and load.base and load.base.split("/")[0] in ("test", "spec"):
        kind = f"require through {load.base}/ on $LOAD_PATH"
    here = [r for r in rows if r.source == load.source and r.line == load.line and r.kind == load.kind]
    here = here or [r for r in rows if r.source == load.source and r.module == load.feature]
    if any(r.target and r.target != load.target for r in here):
        return f"{kind}: another file of the name chosen"
    if here:
        return f"{kind}: written, not resolved"
    line = text(load.source, load.line)
    if GLOB.search(text.around(load.source, load.line)):
        return f"{kind}: Dir.glob load"
    if BUILT_HERE.search(line):
        return f"{kind}: path built from __FILE__/__dir__ (File.expand_path, File.join)"
    if BUILT.search(line):
        return f"{kind}: path built from a variable (File.join(@dir, ..))"
    if re.search(rf"\.\s*{load.kind}\b", line):
        return f"{kind}: with a receiver"
    return f"{kind}: no import row (a name, not a literal)"


def extra_cause(edge: tuple[str, str], truth: Truth, rows: list[Row]) -> str:
    """Why the index names an edge Ruby did not make: what Ruby did with that call."""
    made = [r for r in rows if (r.source, r.target) == edge]
    row = made[0] if made else None
    if row is None:
        return "no row of its own (import_edges)"
    at = [a for a in truth.loads if a.source == row.source and a.line == row.line]
    if any(a.target and a.target != row.target for a in at):
        return f"{row.kind}: Ruby loads another file of ours"
    if at and all(a.target is None for a in at):
        return f"{row.kind}: Ruby loads a gem's or the standard library's, or none"
    if truth.ran is not None:
        return f"{row.kind}: the call did not run (a branch or method the suite does not reach)"
    return f"{row.kind}: no literal call there (Ripper)"


def score(label: str, truth: Truth, edges: set[tuple[str, str]]) -> tuple[Counter[str], str]:
    """The counts of one method against one truth, and its printed row."""
    expected = truth.edges()
    if truth.ran is not None:
        edges = {e for e in edges if e[0] in truth.ran}
    found = len(edges & expected)
    counts = Counter({"truth": len(expected), "given": len(edges), "found": found})
    return counts, _row(label, counts)


def _row(label: str, c: Counter[str]) -> str:
    recall = c["found"] / c["truth"] if c["truth"] else 0.0
    precision = c["found"] / c["given"] if c["given"] else 0.0
    return f"{label:<40} {c['given']:>6} {recall:>7.3f} {precision:>9.3f}"


def explain(
    name: str, truth_name: str, truth: Truth, edges: set[tuple[str, str]], rows: list[Row], text: Source, show: int
) -> list[dict[str, Any]]:
    """The misses and extras of the index against a truth, counted by cause, and N of each printed."""
    expected = truth.edges()
    if truth.ran is not None:
        edges = {e for e in edges if e[0] in truth.ran}
    notes: list[dict[str, Any]] = []
    for edge in sorted(expected - edges):
        load = next(a for a in truth.loads if (a.source, a.target) == edge)
        ours = [r.target or "(unresolved)" for r in rows if r.source == load.source and r.line == load.line]
        notes.append(
            {
                "project": name,
                "truth": truth_name,
                "kind": "missed",
                "cause": miss_cause(load, rows, text),
                "at": f"{load.source}:{load.line}",
                "call": text(load.source, load.line),
                "ruby": [load.target],
                "ours": ours,
            }
        )
    for edge in sorted(edges - expected):
        made = [r for r in rows if (r.source, r.target) == edge]
        line = made[0].line if made else 0
        ruby = sorted({a.target or "(outside the tree)" for a in truth.loads if (a.source, a.line) == (edge[0], line)})
        notes.append(
            {
                "project": name,
                "truth": truth_name,
                "kind": "extra",
                "cause": extra_cause(edge, truth, rows),
                "at": f"{edge[0]}:{line}",
                "call": text(edge[0], line) if line else "",
                "ruby": ruby,
                "ours": [edge[1]],
            }
        )
    for kind in ("missed", "extra"):
        causes = Counter(n["cause"] for n in notes if n["kind"] == kind)
        if causes:
            print(f"  {truth_name} {kind}, {causes.total()}: " + "; ".join(f"{n} {c}" for c, n in causes.most_common()))
        for note in [n for n in notes if n["kind"] == kind][:show]:
            print(f"    {note['at']}: `{note['call']}` [{note['cause']}]")
            print(f"      ruby {', '.join(note['ruby']) or 'none'}; ours {', '.join(note['ours']) or 'no row'}")
    return notes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mirrors", type=Path, default=Path(os.environ.get("LOCALIZE_MIRRORS", "/work/.mirror")))
    parser.add_argument("--cache", type=Path, default=Path("/work/corpora/imports_ruby"))
    parser.add_argument("--only", default="", help="projects by name, comma-separated")
    parser.add_argument("--show", type=int, default=0, help="print N missed and N extra edges of each dev project")
    args = parser.parse_args()
    cache: Path = args.cache.resolve()
    cache.mkdir(parents=True, exist_ok=True)
    os.environ["ANNALS_VECTORS"] = "off"
    only = {n for n in args.only.split(",") if n}
    started = time.perf_counter()
    dev_notes: list[dict[str, Any]] = []
    print(f"{'project, truth, method':<40} {'edges':>6} {'recall':>7} {'precision':>9}")
    for hold_out in (False, True):
        pooled: dict[str, Counter[str]] = {}
        chosen = [p for p in PROJECTS if (p.name in HOLD_OUT) == hold_out and (not only or p.name in only)]
        for project in chosen:
            work = tag_tree(args.mirrors, cache, project.github, project.name, project.tag)
            files = tree_files(work)
            truths = {
                "runtime": runtime_truth(work, cache, project, files),
                "static": static_truth(work, project, files),
            }
            repo = indexed_copy(cache, project.name, project.tag, work)
            edges, rows = index_rows(repo)
            methods = {"annals": edges, "baseline": baseline(rows, files)}
            name = f"{project.name} {project.tag}" + (" (hold-out)" if hold_out else "")
            for truth_name, truth in truths.items():
                kinds = ", ".join(f"{kind} {n}" for kind, n in truth.by_kind().most_common())
                scope = f"; {len(truth.ran)} files loaded, {truth.fired} autoloaded" if truth.ran is not None else ""
                print(f"{name + ' ' + truth_name:<40} {len(truth.edges()):>6}  (ruby: {kinds}{scope})")
                for method, given in methods.items():
                    counts, row = score(f"  {method}", truth, given)
                    pooled.setdefault(f"{truth_name} {method}", Counter()).update(counts)
                    print(row)
                if not hold_out:
                    text = Source(work)
                    dev_notes += explain(project.name, truth_name, truth, edges, rows, text, args.show)
        if len(chosen) > (1 if hold_out else 0):
            for label, counts in pooled.items():
                print(_row(f"{'hold-out' if hold_out else 'dev'} total, {label}", counts) + f"  of {counts['truth']}")
    (cache / "dev-edges.jsonl").write_text("".join(json.dumps(n) + "\n" for n in dev_notes))
    print(f"\n{time.perf_counter() - started:.1f} s; dev misses and extras in {cache / 'dev-edges.jsonl'}")


if __name__ == "__main__":
    main()
