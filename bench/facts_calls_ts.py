"""Call edges of TypeScript (and JavaScript) projects against the TypeScript compiler's own resolution, with a
baseline.

    python bench/facts_calls_ts.py [--mirrors DIR] [--cache DIR] [--only NAME,...]

Ground truth written by others: for every call site of a project's .ts files (a `fetch`ed mirror at a fixed
tag; a JavaScript project's .js files, which the checker reads with `allowJs`: CommonJS, classes, JSDoc), what
the TypeScript checker says the called name is declared as (bench/facts_calls_ts.mjs, with npm's
`typescript`, installed once under --cache). A site the checker cannot resolve (a value of
type `any`, an import of a package not installed) is not judged. A declaration of the project is matched to
our symbol of that name whose lines hold it (a class for `new C()`, or its constructor); one in a library
(`xs.map()` is lib.d.ts's) is matched by no symbol of ours, so an answer naming one of ours there is wrong.

Each project is indexed with this checkout's `annals index --no-vectors` (fresh every run), and each of our
call rows at a judged site (same file, line and name) is answered three ways:
- `resolved`: the targets whose basis the code gives (store/callgraph.py: same file, method, imported name,
  constructor, same package) or a stand-in (an override, a value handed on); nothing where it says none;
- `+guesses`: those, and where the index does not know (no ref, or a ref it cannot follow), the guess by
  name that `callees` gives;
- `baseline`: the name-only rule on every site (the first symbol of the name: same file, then a file the
  caller imports, then any), as a tool matching names answers.
Precision: right answers of those given; recall: right answers of the sites the checker resolves to one of
the project's symbols we index. `wrong outside`: answers naming one of ours where the checker says a
library's. mikro-orm is the hold-out: its figures are read in total only, never site by site.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from facts_tests import indexed_copy, run  # noqa: E402  (bench/ is not a package)
from facts_tests_js import tag_tree  # noqa: E402


@dataclass(frozen=True)
class Project:
    name: str
    github: str  # the mirror's owner/name
    tag: str
    hold_out: bool = False
    folders: tuple[str, ...] = ()  # the tree's folders read (all: ()); a mirror may lack its docs' large files
    language: str = "ts"  # "js": a JavaScript project, as the checker reads JavaScript (CommonJS, JSDoc)


PROJECTS = (
    Project("ky", "sindresorhus/ky", "v2.0.2"),
    Project("typeorm", "typeorm/typeorm", "0.3.20"),
    Project("undici", "nodejs/undici", "v6.28.0", language="js"),
    Project("mikro-orm", "mikro-orm/mikro-orm", "v6.4.0", hold_out=True, folders=("packages",)),
)
TYPESCRIPT = "typescript@5.9.3"
TRUTH_VERSION = 2  # 2: the project's own .d.ts declarations are not judged; JavaScript projects
ANSWERS = ("resolved", "+guesses", "baseline")


def default_cache() -> Path:
    return Path(os.environ.get("ANNALS_FACTS_TS_CACHE", "/work/corpora/calls_ts"))


def typescript(cache: Path) -> Path:
    module = cache / "node_modules" / "typescript"
    if not (module / "package.json").exists():
        print(f"installing {TYPESCRIPT} from npm...", file=sys.stderr)
        cache.mkdir(parents=True, exist_ok=True)
        run(["npm", "install", "--silent", "--no-save", "--prefix", str(cache), TYPESCRIPT], cache)
    return module


def checkout(mirrors: Path, cache: Path, project: Project) -> Path:
    return tag_tree(mirrors, cache, project.github, project.name, project.tag, project.folders)


def ground_truth(work: Path, cache: Path, project: Project) -> list[dict[str, Any]]:
    out = cache / f"truth-{project.name}-{project.tag}-v{TRUTH_VERSION}.jsonl"
    if not out.exists():
        script = Path(__file__).with_name("facts_calls_ts.mjs")
        print(f"resolving {project.name}'s calls with the TypeScript checker...", file=sys.stderr)
        argv = ["node", "--max-old-space-size=8192", str(script), str(typescript(cache)), str(work), project.language]
        text = run(argv, cache)
        out.write_text(text)
    return [json.loads(line) for line in out.read_text().splitlines() if line]


def truth_symbols(conn: Any, callee: dict[str, Any], name: str, new: bool) -> set[str]:
    """Our symbols standing for the checker's declaration: same file and name, its lines holding the
    declaration's (a class for `new C()`, and its constructor)."""
    rows = conn.execute(
        "SELECT id, name, kind FROM symbols WHERE path = ? AND start_line <= ? AND end_line >= ?",
        (callee["file"], callee["line"], callee["line"]),
    ).fetchall()
    found = {r["id"] for r in rows if r["name"] == name}
    if new or any(r["kind"] == "class" for r in rows if r["id"] in found):
        for cls in [r["id"] for r in rows if r["id"] in found and r["kind"] == "class"]:
            found |= {
                r[0] for r in conn.execute("SELECT id FROM symbols WHERE parent = ? AND name = 'constructor'", (cls,))
            }
    return found


def answers(conn: Any, resolver: Any, call: Any) -> dict[str, set[str]]:
    """A call row answered as `resolved`, `+guesses` and `baseline` do (sets of our symbol ids)."""
    from codeannals.store.callgraph import RESOLVED, STAND_INS, call_targets

    found = call_targets(conn, resolver, call["path"], call)
    return {
        "resolved": {t for t, basis in found if t is not None and basis in RESOLVED | STAND_INS},
        "+guesses": {t for t, _ in found if t is not None},
        "baseline": name_rule(conn, call["path"], call["name"]),
    }


def name_rule(conn: Any, path: str, name: str) -> set[str]:
    row = conn.execute(
        """SELECT s.id FROM symbols s WHERE s.name = :name
           ORDER BY s.path != :path, NOT EXISTS (
               SELECT 1 FROM resolved_imports r WHERE r.path = :path AND r.target = s.path), s.id LIMIT 1""",
        {"path": path, "name": name},
    ).fetchone()
    return {row[0]} if row is not None else set()


def _bare(text: str | None) -> str:
    return "".join((text or "").split())


class CallRows:
    """Our call rows, as a checker's site finds them. The index keeps one row per function, receiver as
    written and name (the calls table is of edges, not of every site), so a site is matched by the symbol
    around its line, its receiver's text and its name."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.rows: dict[tuple[str, str | None, str], list[Any]] = {}
        for call in conn.execute(
            "SELECT path, caller, line, name, qualifier, ref FROM calls WHERE ref IS NULL OR ref NOT LIKE 'value%'"
        ):
            self.rows.setdefault((call["path"], call["caller"], call["name"]), []).append(call)
        self.spans: dict[str, list[Any]] = {}

    def at(self, site: dict[str, Any]) -> list[Any]:
        """The rows of the site's call: of the innermost symbol around it that has calls of that name, else of
        the file's top level (a class's decorator runs there)."""
        if site["path"] not in self.spans:
            self.spans[site["path"]] = self.conn.execute(
                "SELECT id, start_line, end_line FROM symbols WHERE path = ? ORDER BY start_line DESC, end_line",
                (site["path"],),
            ).fetchall()
        around = [s["id"] for s in self.spans[site["path"]] if s["start_line"] <= site["line"] <= s["end_line"]]
        receiver = _bare(site.get("receiver"))
        for caller in [*around, None]:
            candidates = self.rows.get((site["path"], caller, site["name"]), [])
            # the index keeps QUALIFIER_LIMIT characters of a receiver: a long chain's start
            same = [c for c in candidates if c["qualifier"] and receiver.startswith(_bare(c["qualifier"]))]
            same = [c for c in candidates if _bare(c["qualifier"]) == receiver] or same
            if candidates:
                return _nearest(same, site["line"]) or (candidates if len(candidates) == 1 else [])
        return []


def _nearest(rows: list[Any], line: int) -> list[Any]:
    """Of rows differing in what they call (one per closure binding the name its own way), the one whose first
    call is nearest before the site's line."""
    if len(rows) < 2:
        return rows
    before = [r for r in rows if r["line"] is not None and r["line"] <= line]
    return [max(before, key=lambda r: r["line"])] if before else rows


def score(conn: Any, sites: list[dict[str, Any]]) -> dict[str, list[int]]:
    """Per answer: [right, given, judged with a symbol of ours, wrong outside]."""
    from codeannals.store.resolver import CallResolver

    resolver = CallResolver(conn)
    rows = CallRows(conn)
    totals = {a: [0, 0, 0, 0] for a in ANSWERS}
    for site in sites:
        callee = site["callee"]
        if callee == "unknown":
            continue
        expected = truth_symbols(conn, callee, site["name"], site["new"]) if callee != "outside" else set()
        if callee != "outside" and not expected:
            continue  # a declaration we index no symbol for (an interface's property, a parameter)
        given = {a: set[str]() for a in ANSWERS}
        for call in rows.at(site):
            for a, targets in answers(conn, resolver, call).items():
                given[a] |= targets
        for a in ANSWERS:
            t = totals[a]
            if expected:
                t[2] += 1
            if given[a]:
                t[1] += 1
                t[0] += bool(given[a] & expected) and not (given[a] - expected)
                t[3] += callee == "outside"
    return totals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirrors", type=Path, default=Path(os.environ.get("LOCALIZE_MIRRORS", "/work/.mirror")))
    parser.add_argument("--cache", type=Path, default=default_cache())
    parser.add_argument("--only", default="", help="projects by name, comma-separated")
    args = parser.parse_args()
    from codeannals.store.db import connect

    cache: Path = args.cache.resolve()
    cache.mkdir(parents=True, exist_ok=True)
    only = {n for n in args.only.split(",") if n}
    started = time.perf_counter()
    print(f"{'project':<22} {'answer':<10} {'P':>6} {'R':>6} {'given':>7} {'judged':>7} {'wrong outside':>14}")
    for group in (False, True):
        pooled = {a: [0, 0, 0, 0] for a in ANSWERS}
        for project in (p for p in PROJECTS if p.hold_out == group and (not only or p.name in only)):
            work = checkout(args.mirrors, cache, project)
            sites = ground_truth(work, cache, project)
            repo = indexed_copy(cache, project.name, project.tag, work)
            conn = connect(repo / ".annals" / "annals.db")
            totals = score(conn, sites)
            conn.close()
            for a, t in totals.items():
                pooled[a] = [x + y for x, y in zip(pooled[a], t, strict=True)]
                label = f"{project.name} {project.tag}" + (" (hold-out)" if project.hold_out else "")
                print(_row(label, a, t))
        if not group:
            for a, t in pooled.items():
                print(_row("dev, pooled", a, t))
    print(f"\n{time.perf_counter() - started:.1f} s")


def _row(label: str, answer: str, t: list[int]) -> str:
    right, given, judged, outside = t
    precision = right / given if given else 0.0
    recall = right / judged if judged else 0.0
    return f"{label:<22} {answer:<10} {precision:>6.3f} {recall:>6.3f} {given:>7} {judged:>7} {outside:>14}"


if __name__ == "__main__":
    main()
