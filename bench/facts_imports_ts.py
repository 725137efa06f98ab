"""TypeScript and JavaScript file import edges of the index against the TypeScript compiler's and Node's resolution.

    python bench/facts_imports_ts.py [--mirrors DIR] [--cache DIR] [--show N] [--only NAME,...]

Ground truth written by others (bench/facts_imports_ts.mjs, node v20 with npm's `typescript`, installed once under
--cache): every import, export-from, require and import() of each file of a project (a `fetch`ed mirror at a
release tag, `git archive`d), as `ts.preProcessFile` lists them, resolved
- in a .ts/.tsx/.mts/.cts file (.d.ts too) by `ts.resolveModuleName` with the compiler options of the file's nearest
  tsconfig.json (`ts.getParsedCommandLineOfConfigFile`, `extends` followed; a base config from a package, as
  ky's `@sindresorhus/tsconfig`, is not installed, so its options are the compiler's defaults), in the mode the
  statement asks (require: CommonJS, import(): ESM, else the file's own format); a resolved .d.ts is itself;
- in a .js/.jsx/.mjs/.cjs file as Node loads it: require by `createRequire(file).resolve`, import, export-from
  and import() by the ESM resolver (`import.meta.resolve(spec, file)`); a specifier Node cannot resolve (a
  package not installed: no node_modules is) is no edge.
An edge counts when both ends are files of the tree (none in node_modules), the source a JS/TS file.

The index is this checkout's `annals -C ROOT index --no-vectors` of the same tree (fresh every run); its edges are
store/lookups.py's `import_edges`: resolved_imports' targets, and the origins of names taken through a module
re-exporting them (`targets only` scores the targets alone). The baseline in the same run is what a grep-level tool
does: relative specifiers alone (of the same statements), the path as written, then with .ts .tsx .d.ts .js .jsx
.mjs .cjs .mts .cts appended, then its index file with those, no tsconfig, no package.json.

Projects: ky (TypeScript, ESM, `./x.js` written for x.ts), trpc (a pnpm monorepo, tsconfig `paths` to the
workspace packages' sources), pino (CommonJS JavaScript with .d.ts types and TypeScript type tests), axios (ESM
JavaScript, CommonJS tests, index.d.ts), fastify and undici (CommonJS with .d.ts types and type tests), typeorm
(TypeScript, 3,500 files); the hold-out, zod (a TypeScript monorepo), chosen before any figure was read, is printed
in total only. For the dev projects, the truth's edges are counted by how the specifier is written (tsconfig paths,
`.js` written for `.ts`, a folder's index file, a .d.ts, JSON) and by statement (type-only, import(), `export *
from`, require), with the index's recall of each; and misses and extras by cause: the statement, and what the other
side made of it (`--show N` adds examples and N edges of each).

Where the truth is a choice: a workspace package named by a file whose tsconfig has no `paths` to it (trpc's
examples: `@trpc/server`) resolves to nothing, as it does for the compiler until node_modules is installed and the
package built (then its dist/ .d.ts, not a file of the tree); the index's edge to its source counts as extra. So does
an extensionless relative import in an ES module (axios' test/specs, which rollup bundles): Node's ESM resolver
searches no extension. And the index's origins (a name's defining file behind a re-export) are no statement's
resolution: they are extras by design, which `targets only` leaves out.

First figures (2026-12-05; typescript 5.9.3, node v20.20.2; 100 s, 70 s with the truth cached):

    project   truth  index  recall precision  (targets only)  baseline recall precision
    ky          127    127   1.000   1.000    1.000 1.000       0.000   0.000
    trpc       2006   2219   0.998   0.902    0.998 0.915       0.640   0.991
    pino        161    163   0.739   0.730    0.739 0.730       0.373   0.632
    axios       191    243   1.000   0.786    1.000 0.786       1.000   0.823
    fastify     598    598   0.871   0.871    0.871 0.871       0.609   0.825
    undici     1255   1325   0.968   0.917    0.968 0.967       0.713   0.989
    typeorm   11282  11565   1.000   0.976    1.000 1.000       1.000   1.000
    dev total 15620  16240   0.990   0.952    0.990 0.975       0.901   0.988
    zod (hold-out) 688 526   0.763   0.998    0.763 0.998       0.003   0.667

The misses are the index choosing x.d.ts for a JavaScript file's `require('./x')` (Node: x.js; pino 35, fastify 60,
undici 10), x.js for a TypeScript file's `'./x.js'` or a package folder where the compiler reads x.ts or the .d.ts
(the folder's package.json `types`) first (fastify 17, undici 30, pino 7, trpc 5); each also makes an extra.
"""

from __future__ import annotations

import argparse
import json
import os
import posixpath
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from codeannals.store.lookups import import_edges  # noqa: E402
from facts_tests import ANNALS, run  # noqa: E402  (bench/ is not a package)
from facts_tests_js import tag_tree  # noqa: E402


@dataclass(frozen=True)
class Project:
    name: str
    github: str  # the mirror's owner/name
    tag: str
    hold_out: bool = False


PROJECTS = (
    Project("ky", "sindresorhus/ky", "v2.0.2"),
    Project("trpc", "trpc/trpc", "v11.18.0"),
    Project("pino", "pinojs/pino", "v10.3.1"),
    Project("axios", "axios/axios", "v1.7.9"),
    Project("fastify", "fastify/fastify", "v5.12.1"),
    Project("undici", "nodejs/undici", "v8.10.0"),
    Project("typeorm", "typeorm/typeorm", "0.3.20"),
    Project("zod", "colinhacks/zod", "v4.4.3", hold_out=True),
)
TYPESCRIPT = "typescript@5.9.3"
TRUTH_VERSION = 2  # 2: syntax read from the syntax tree (and `export * as ns from` added), ESM misses are none
SOURCE = re.compile(r"\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$")
BASELINE_EXTENSIONS = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")
JS_WRITTEN = re.compile(r"\.(js|jsx|mjs|cjs)$")
CAUSES_SHOWN = 12  # the most frequent causes of each project's misses and extras
EXAMPLES = 3  # edges printed under each cause (at most --show)
Edge = tuple[str, str]


def typescript(cache: Path) -> Path:
    module = cache / "node_modules" / "typescript"
    if not (module / "package.json").exists():
        print(f"installing {TYPESCRIPT} from npm...", file=sys.stderr)
        cache.mkdir(parents=True, exist_ok=True)
        run(["npm", "install", "--silent", "--no-save", "--prefix", str(cache), TYPESCRIPT], cache)
    return module


def source_files(root: Path) -> list[str]:
    out = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d not in ("node_modules", ".annals", ".git")]
        out.extend(str(Path(folder, n).relative_to(root)) for n in names if SOURCE.search(n))
    return sorted(out)


def ground_truth(root: Path, cache: Path, project: Project) -> dict[str, Any]:
    """{files: {path: {config, imports: [{spec, line, syntax, target}]}}, configs: {path: {paths, ...}}}."""
    out = cache / f"truth-{project.name}-{project.tag}-v{TRUTH_VERSION}.json"
    if not out.exists():
        print(f"resolving {project.name}'s imports with the TypeScript compiler and node...", file=sys.stderr)
        script = Path(__file__).with_name("facts_imports_ts.mjs")
        argv = ["node", "--experimental-import-meta-resolve", str(script), str(typescript(cache)), str(root)]
        proc = subprocess.run(
            argv, input="\n".join(source_files(root)), capture_output=True, text=True, check=False, cwd=cache
        )
        if proc.returncode != 0:
            raise SystemExit(f"failed ({proc.returncode}): {' '.join(argv)}\n{proc.stderr[-2000:]}")
        out.write_text(proc.stdout)
    return json.loads(out.read_text())


def truth_edges(truth: dict[str, Any]) -> set[Edge]:
    return {
        (path, imp["target"])
        for path, info in truth["files"].items()
        for imp in info["imports"]
        if imp["target"] and imp["target"] != path
    }


def baseline_edges(truth: dict[str, Any], files: set[str]) -> set[Edge]:
    """Relative specifiers alone: as written, with an extension appended, or the folder's index file."""
    edges = set()
    for path, info in truth["files"].items():
        for imp in info["imports"]:
            spec = imp["spec"]
            if not (spec.startswith("./") or spec.startswith("../") or spec in (".", "..")):
                continue
            base = posixpath.normpath(posixpath.join(posixpath.dirname(path), spec))
            tries = [base, *(base + e for e in BASELINE_EXTENSIONS), *(f"{base}/index{e}" for e in BASELINE_EXTENSIONS)]
            found = next((t for t in tries if t in files), None)
            if found and found != path:
                edges.add((path, found))
    return edges


def index_tree(root: Path) -> sqlite3.Connection:
    shutil.rmtree(root / ".annals", ignore_errors=True)
    env = {**os.environ, "ANNALS_VECTORS": "off"}
    proc = subprocess.run(
        [ANNALS, "-C", str(root), "index", "--no-vectors", "--wait"], capture_output=True, text=True, env=env
    )
    if proc.returncode != 0:
        raise SystemExit(f"annals index failed in {root}:\n{proc.stderr[-2000:]}")
    conn = sqlite3.connect(root / ".annals" / "annals.db")
    conn.row_factory = sqlite3.Row
    return conn


def index_edges(conn: sqlite3.Connection) -> dict[str, set[Edge]]:
    """The index's edges from JS/TS files: import_edges (targets and origins), and the targets alone."""
    every = {(e["source"], e["target"]) for e in import_edges(conn)}
    targets = {
        (r[0], r[1])
        for r in conn.execute("SELECT path, target FROM resolved_imports WHERE target IS NOT NULL AND target != path")
    }
    return {"annals": {e for e in every if _scored(e)}, "targets only": {e for e in targets if _scored(e)}}


def _scored(edge: Edge) -> bool:
    """An edge from a JS/TS file, neither end in node_modules (pino's test fixtures have one in the tree)."""
    return bool(SOURCE.search(edge[0])) and not any("node_modules" in p.split("/") for p in edge)


# --- causes ----------------------------------------------------------------------------------------------------------


def spec_kind(spec: str, target: str | None, config: dict[str, Any] | None) -> str:
    """How a specifier is written, as far as resolution cares."""
    if target and not SOURCE.search(target) and not target.endswith(".json"):
        return f"a {_ext(target) or 'extensionless'} file"
    if spec.startswith(".") or spec.startswith("/"):
        if target and target.endswith(".json"):
            return "JSON file"
        if target and JS_WRITTEN.search(spec) and not target.endswith(JS_WRITTEN.search(spec).group(0)):
            return f"`{JS_WRITTEN.search(spec).group(0)}` written for `{_ext(target)}`"
        if (
            target
            and posixpath.basename(target).startswith("index.")
            and not posixpath.basename(spec).startswith("index")
        ):
            return "folder's index file"
        if target and target.endswith((".d.ts", ".d.mts", ".d.cts")) and not spec.endswith(".d.ts"):
            return "relative to a .d.ts"
        return "relative"
    if spec.startswith("#"):
        return "package.json `imports` (#)"
    for pattern in (config or {}).get("paths") or {}:
        prefix, star, suffix = pattern.partition("*")
        if (star and spec.startswith(prefix) and spec.endswith(suffix)) or spec == pattern:
            return "tsconfig paths"
    if (config or {}).get("baseUrl"):
        return "bare, under baseUrl"
    return "bare (own or workspace package)"


def _ext(path: str) -> str:
    name = posixpath.basename(path)
    for ext in (".d.ts", ".d.mts", ".d.cts"):
        if name.endswith(ext):
            return ext
    return posixpath.splitext(name)[1]


@dataclass(frozen=True)
class Why:
    """An edge's cause, and the statement behind it: its specifier, and what each side resolved it to."""

    cause: str
    spec: str
    truth: str | None
    index: str | None


class Causes:
    """Why an edge is missed or extra: the statements behind it on both sides."""

    def __init__(self, truth: dict[str, Any], conn: sqlite3.Connection) -> None:
        self.truth = truth
        self.rows: dict[str, list[sqlite3.Row]] = {}
        for r in conn.execute("SELECT path, module, kind, target, origin FROM resolved_imports"):
            self.rows.setdefault(r["path"], []).append(r)
        self.indexed = {r[0] for r in conn.execute("SELECT path FROM files WHERE status = 'indexed'")}

    def config(self, path: str) -> dict[str, Any] | None:
        name = (self.truth["files"].get(path) or {}).get("config")
        return self.truth["configs"].get(name) if name is not None else None

    def imports(self, path: str) -> list[dict[str, Any]]:
        return (self.truth["files"].get(path) or {}).get("imports", [])

    def of_miss(self, edge: Edge) -> Why:
        source, target = edge
        imp = next(i for i in self.imports(source) if i["target"] == target)
        rows = [r for r in self.rows.get(source, []) if r["module"] == imp["spec"]]
        chose = next((r["target"] for r in rows if r["target"]), None)
        if source not in self.indexed:
            index = "source not indexed"
        elif target not in self.indexed:
            index = "target not indexed"
        elif not rows:
            index = "no import row"
        else:
            index = f"chose {_ext(chose)}" if chose else "unresolved"
        kind = spec_kind(imp["spec"], target, self.config(source))
        return Why(f"{kind}, {imp['syntax']} -> index {index}", imp["spec"], target, chose)

    def of_extra(self, edge: Edge) -> Why:
        source, target = edge
        rows = self.rows.get(source, [])
        row = next((r for r in rows if r["target"] == target), None)
        if row is None:
            via = next((r["module"] for r in rows if r["origin"] == target), "?")
            return Why("origin (a name followed through a re-export)", via, None, target)
        spec = row["module"]
        imps = [i for i in self.imports(source) if i["spec"] == spec]
        other = next((i["target"] for i in imps if i["target"]), None)
        if not imps:
            truth = "no such statement"
        elif other:
            truth = f"chose {_ext(other)}" + (" (same stem)" if _stem(other) == _stem(target) else "")
        elif any(i["resolved"] for i in imps):
            truth = "outside the tree"
        elif spec.startswith(".") and JS_WRITTEN.search(source) and imps[0]["syntax"] != "require":
            truth = "not found by Node's ESM resolver (no extension or index search)"
        else:
            truth = "unresolved"
        kind = spec_kind(spec, target, self.config(source))
        return Why(f"{kind}, {imps[0]['syntax'] if imps else row['kind']} -> truth {truth}", spec, other, target)


def _stem(path: str) -> str:
    return path[: -len(_ext(path))] if _ext(path) else path


def show_kinds(truth: dict[str, Any], expected: set[Edge], ours: set[Edge], causes: Causes) -> None:
    """The truth's edges by how the specifier is written and by statement, with the index's recall of each."""
    first: dict[Edge, dict[str, Any]] = {}
    for path, info in truth["files"].items():
        for imp in info["imports"]:
            if (path, imp["target"]) in expected:
                first.setdefault((path, imp["target"]), imp)
    for title, key in (
        ("specifier", lambda e, i: spec_kind(i["spec"], e[1], causes.config(e[0]))),
        ("statement", lambda e, i: i["syntax"]),
    ):
        counts: Counter[str] = Counter()
        found: Counter[str] = Counter()
        for edge, imp in first.items():
            counts[key(edge, imp)] += 1
            found[key(edge, imp)] += edge in ours
        cells = ", ".join(f"{k} {n} ({found[k] / n:.3f})" for k, n in counts.most_common())
        print(f"  truth by {title} (recall): {cells}")


def show_causes(title: str, edges: set[Edge], explain: Any, examples: int) -> None:
    """Edges counted by cause, the most frequent first, with up to `examples` of each."""
    whys = [(edge, explain(edge)) for edge in sorted(edges)]
    counts = Counter(why.cause for _, why in whys)
    print(f"  {title} by cause ({len(edges)}): statement as written -> what the other side made of it")
    for cause, n in counts.most_common(CAUSES_SHOWN):
        print(f"    {n:>5}  {cause}")
        for edge, why in [(e, w) for e, w in whys if w.cause == cause][:examples]:
            print(f"             {edge[0]}: {why.spec!r} truth={why.truth} index={why.index}")
    rest = counts.most_common()[CAUSES_SHOWN:]
    if rest:
        print(f"    ({len(rest)} more causes, {sum(n for _, n in rest)} edges)")


def score(edges: set[Edge], truth: set[Edge]) -> tuple[float, float]:
    found = len(edges & truth)
    return found / max(1, len(truth)), found / max(1, len(edges))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mirrors", type=Path, default=Path(os.environ.get("LOCALIZE_MIRRORS", "/work/.mirror")))
    parser.add_argument("--cache", type=Path, default=Path("/work/corpora/imports_ts"))
    parser.add_argument("--show", type=int, default=0, help="print N missed and N extra edges of each dev project")
    parser.add_argument("--only", default="", help="projects to run, by name, comma-separated")
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    only = {n for n in args.only.split(",") if n}
    started = time.perf_counter()
    pooled: dict[str, Counter[str]] = {}  # method -> found, answered and truth edges of the dev projects
    print(f"{'project':<22} {'method':<13} {'edges':>6} {'recall':>7} {'precision':>9}")
    for project in (p for p in PROJECTS if not only or p.name in only):
        began = time.perf_counter()
        label = f"{project.name} {project.tag}" + (" (hold-out)" if project.hold_out else "")
        root = tag_tree(args.mirrors, args.cache, project.github, project.name, project.tag)
        truth = ground_truth(root, args.cache, project)
        expected = truth_edges(truth)
        files = {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and ".annals" not in p.parts}
        conn = index_tree(root)
        try:
            answers = {**index_edges(conn), "baseline": baseline_edges(truth, files)}
            print(f"{label:<22} {'truth':<13} {len(expected):>6}")
            for method, edges in answers.items():
                recall, precision = score(edges, expected)
                print(f"{label:<22} {method:<13} {len(edges):>6} {recall:>7.3f} {precision:>9.3f}")
                if not project.hold_out:
                    pooled.setdefault(method, Counter()).update(
                        found=len(edges & expected), edges=len(edges), truth=len(expected)
                    )
            if not project.hold_out:
                causes = Causes(truth, conn)
                ours = answers["annals"]
                show_kinds(truth, expected, ours, causes)
                show_causes("misses", expected - ours, causes.of_miss, min(args.show, EXAMPLES))
                show_causes("extras", ours - expected, causes.of_extra, min(args.show, EXAMPLES))
                for edge in sorted(expected - ours)[: args.show]:
                    print(f"  missed {edge[0]} -> {edge[1]}  ({causes.of_miss(edge).spec!r})")
                for edge in sorted(ours - expected)[: args.show]:
                    print(f"  extra  {edge[0]} -> {edge[1]}  ({causes.of_extra(edge).spec!r})")
        finally:
            conn.close()
        print(f"{label:<22} ({time.perf_counter() - began:.0f} s)")
    for method, n in pooled.items():
        recall, precision = n["found"] / max(1, n["truth"]), n["found"] / max(1, n["edges"])
        print(f"{'dev total':<22} {method:<13} {n['edges']:>6} {recall:>7.3f} {precision:>9.3f}  of {n['truth']}")
    print(f"\n{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
