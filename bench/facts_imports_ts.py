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

The pnpm monorepos added as dev projects (query, vitest, kit, vite: `links`) resolve their workspace packages as
their developers' checkouts do, through the links pnpm makes (workspace_links): in the scratch tree only,
<package>/node_modules/<name> -> the package's folder, for each dependency by the `workspace:` protocol (or any
version when the workspace sets linkWorkspacePackages) and each `link:` dependency. Both the compiler and Node
follow a link to the file it points at, a file of the tree. No third-party package is installed. trpc and the
hold-out are run as before, without links.

The index is this checkout's `annals -C ROOT index --no-vectors` of the same tree (fresh every run), made a git
repository of one commit that tracks what the tag tracks (as_clone: the index walks a clone's tracked files, those a
.gitignore matches too, which it leaves out of a plain folder); its edges are store/lookups.py's `import_edges`:
resolved_imports' targets, and the origins of names taken through a module re-exporting them (`targets only` scores
the targets alone). The baseline in the same run is what a grep-level tool does: relative specifiers alone (of the
same statements), the path as written, then with .ts .tsx .d.ts .js .jsx .mjs .cjs .mts .cts appended, then its
index file with those, no tsconfig, no package.json.

Projects: ky (TypeScript, ESM, `./x.js` written for x.ts), trpc (a pnpm monorepo, tsconfig `paths` to the
workspace packages' sources), pino (CommonJS JavaScript with .d.ts types and TypeScript type tests), axios (ESM
JavaScript, CommonJS tests, index.d.ts), fastify and undici (CommonJS with .d.ts types and type tests), typeorm
(TypeScript, 3,500 files); four TypeScript monorepos of pnpm workspaces: query (TanStack Query: workspace packages
through the links, their package.json `exports` with a custom condition, `@tanstack/custom-condition`, to
src/index.ts that the root tsconfig's `customConditions` names, `moduleResolution: bundler`; examples of every
framework), vitest (`paths` in a tsconfig.base.json the packages' tsconfigs `extend`, `#` specifiers in `paths`
and package.json `imports`, `allowImportingTsExtensions`, .mts/.cts), kit (SvelteKit: JavaScript with JSDoc types
that imports its own package by name, resolved through its `exports` (a self-reference), `imports` with a
`browser` condition, node16 resolution, test apps whose tsconfig extends a generated one) and vite (`imports`
with `#types/*` to .d.ts files and a `module-sync` condition, `paths` in a nested tsconfig, a playground of 250
small packages linked by `link:` and `workspace:`). The hold-out, zod (a TypeScript monorepo), chosen before any
figure was read, is printed in total only. For the dev projects, the truth's edges are counted by how the
specifier is written (tsconfig paths, `.js` written for `.ts`, a folder's index file, a .d.ts, JSON, a
self-reference, a workspace package) and by statement (type-only, import(), `export * from`, require), with the
index's recall of each; and misses and extras by cause: the statement, and what the other side made of it
(`--show N` adds examples and N edges of each). A cause notes where the index read other settings than the
truth: an ancestor's tsconfig `paths` (the file's nearest tsconfig sets none), a tsconfig's `paths` for a
JavaScript file (Node reads none), a tsconfig or package.json the index's Layout never read (past resolve.py's
MAX_SETTINGS_FILES).

Where the truth is a choice: a workspace package named by a file whose tsconfig has no `paths` to it (trpc's
examples: `@trpc/server`; query's examples, vite's create-vite templates and playground, vitest's examples) resolves
to nothing, as it does for the compiler until node_modules is installed and the package built (then its dist/ .d.ts,
not a file of the tree); the index's edge to its source counts as extra. So does an extensionless relative import in
an ES module (axios' test/specs, which rollup bundles; vite's playground and kit's test apps, which vite bundles):
Node's ESM resolver searches no extension; and an import of a .css, .vue or .svelte file from TypeScript, which the
compiler resolves to no file. Node's ESM resolver does find an asset a JavaScript file imports (vite's templates'
`./assets/vite.svg`), a file the index does not index: a miss. And the index's origins (a name's defining file
behind a re-export) are no statement's resolution: they are extras by design, which `targets only` leaves out.

Figures (2026-12-05; typescript 5.9.3, node v20.20.2; 80-150 s with the truths cached, by load):

    project   truth  index  recall precision  (targets only)  baseline recall precision
    ky          127    127   1.000   1.000    1.000 1.000       0.000   0.000
    trpc       2006   2219   1.000   0.904    1.000 0.917       0.640   0.991
    pino        161    161   1.000   1.000    1.000 1.000       0.373   0.632
    axios       191    243   1.000   0.786    1.000 0.786       1.000   0.823
    fastify     598    598   1.000   1.000    1.000 1.000       0.609   0.825
    undici     1255   1323   1.000   0.949    1.000 0.998       0.713   0.989
    typeorm   11282  11565   1.000   0.976    1.000 1.000       1.000   1.000
    query      1905   2446   0.980   0.763    0.980 0.862       0.636   0.924
    vitest     3511   4294   0.991   0.810    0.991 0.819       0.592   0.971
    kit         977   1084   0.968   0.873    0.968 0.878       0.688   0.944
    vite       1627   2288   0.956   0.680    0.956 0.688       0.838   0.732
    dev total 23640  26348   0.993   0.891    0.993 0.916       0.821   0.957
    zod (hold-out) 688 737   0.997   0.931    0.997 0.931       0.003   0.667

The hold-out's recall was .763 (precision .998) while each tree was indexed as a plain folder, before as_clone;
the dev projects' figures are the same either way (kit has the one tracked file a .gitignore matches, which no
statement imports). In the new dev projects the index misses a symlinked file (query's
packages/*/root.eslint.config.js, 38: the walk follows no symlink), a file the extractor fails on (vitest's
packages/runner/src/run.ts, 20), a tsconfig or package.json past MAX_SETTINGS_FILES (vite, 23), an asset (vite 40,
kit 10, vitest 6), `declare module 'x'` (vitest 5), an ancestor's tsconfig `paths` taken where the nearest tsconfig
has none (kit 12), and single statements (export and import conditions, `#` specifiers in `paths`, `./x.ts`
written for x.d.ts, `./x.svelte` for x.svelte.d.ts, a package.json's `module` read for Node).

After 526d149, fd0f92a and cd0ab54 (conditions read as each reader reads them, the nearest tsconfig the file's,
settings files up to 2,000, the extractor's endless walk, `declare module`, symlinks followed): query 1.000 / .828,
vitest .998 / .935, kit .990 / .944, vite .975 / .674 (its extras: a bundler's extensionless imports and unbuilt
workspace packages, above), the first seven the same; dev total .998 / .919 (targets only .945); zod (hold-out)
1.000 / .960.
"""

from __future__ import annotations

import argparse
import fnmatch
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
from codeannals.indexer.parsing.resolve import Layout  # noqa: E402
from codeannals.store.lookups import import_edges  # noqa: E402
from facts_tests import ANNALS, run  # noqa: E402  (bench/ is not a package)
from facts_tests_js import mirror_of, tag_tree  # noqa: E402


@dataclass(frozen=True)
class Project:
    name: str
    github: str  # the mirror's owner/name
    tag: str
    hold_out: bool = False
    links: bool = False  # the pnpm workspace's node_modules links (workspace_links), which its sources resolve through
    paths: tuple[str, ...] = ()  # pathspecs of the tree taken (the mirror lacks some large media files)


PROJECTS = (
    Project("ky", "sindresorhus/ky", "v2.0.2"),
    Project("trpc", "trpc/trpc", "v11.18.0"),
    Project("pino", "pinojs/pino", "v10.3.1"),
    Project("axios", "axios/axios", "v1.7.9"),
    Project("fastify", "fastify/fastify", "v5.12.1"),
    Project("undici", "nodejs/undici", "v8.10.0"),
    Project("typeorm", "typeorm/typeorm", "0.3.20"),
    Project("query", "TanStack/query", "@tanstack/query-core@5.102.0", links=True, paths=(".", ":(exclude)media")),
    Project("vitest", "vitest-dev/vitest", "v4.1.11", links=True, paths=(".", ":(exclude)docs/public")),
    Project("kit", "sveltejs/kit", "@sveltejs/kit@2.70.2", links=True),
    Project("vite", "vitejs/vite", "v8.2.2", links=True),
    Project("zod", "colinhacks/zod", "v4.4.3", hold_out=True),
)
TYPESCRIPT = "typescript@5.9.3"
TRUTH_VERSION = 2  # 2: syntax read from the syntax tree (and `export * as ns from` added), ESM misses are none
SOURCE = re.compile(r"\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$")
BASELINE_EXTENSIONS = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")
JS_WRITTEN = re.compile(r"\.(js|jsx|mjs|cjs)$")
CAUSES_SHOWN = 12  # the most frequent causes of each project's misses and extras
EXAMPLES = 3  # edges printed under each cause (at most --show)
SCRATCH = {".annals", ".git", "node_modules"}  # folders of the scratch tree that are no file of the project's
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


DEPENDENCIES = ("dependencies", "devDependencies", "optionalDependencies")


def workspace_packages(root: Path) -> dict[str, Path]:
    """The packages of a pnpm workspace (pnpm-workspace.yaml's `packages` globs, `!` ones left out) by name."""
    text = (root / "pnpm-workspace.yaml").read_text()
    block = re.search(r"^packages:\s*\n((?:[ \t]+-.*\n|[ \t]*#.*\n|[ \t]*\n)+)", text, re.M)
    globs = re.findall(r"-\s*['\"]?([^'\"\s#]+)", block.group(1)) if block else []
    keep = [g for g in globs if not g.startswith("!")]
    drop = [g[1:] for g in globs if g.startswith("!")]
    out = {}
    for folder in sorted({f.parent for g in keep for f in root.glob(f"{g}/package.json")}):
        rel = folder.relative_to(root).as_posix()
        if "node_modules" in folder.parts or any(fnmatch.fnmatch(rel, g) for g in drop):
            continue
        name = _manifest(folder).get("name")
        if isinstance(name, str):
            out.setdefault(name, folder)
    return out


def _manifest(folder: Path) -> dict[str, Any]:
    try:
        data = json.loads((folder / "package.json").read_text(encoding="utf-8-sig"))
    except ValueError:
        return {}  # a fixture's broken package.json: pnpm would stop, a bench run goes on without its links
    return data if isinstance(data, dict) else {}


def workspace_links(root: Path) -> None:
    """The links pnpm makes in a workspace, as <package>/node_modules/<name> -> a folder of the tree: each package's
    (and the root's) dependency on a workspace package, by the `workspace:` protocol or by any version when the
    workspace sets linkWorkspacePackages, and a `link:` dependency on a folder. No third-party package is
    installed: those stay unresolved, as without node_modules; a `file:` dependency is a copy in pnpm's store,
    no file of the tree, so it stays unresolved too."""
    root = root.resolve()
    packages = workspace_packages(root)
    npmrc = root / ".npmrc"
    settings = (root / "pnpm-workspace.yaml").read_text() + (npmrc.read_text() if npmrc.exists() else "")
    any_version = re.search(r"^\s*(linkWorkspacePackages:\s*true|link-workspace-packages\s*=\s*true)", settings, re.M)
    for folder in [root, *packages.values()]:
        manifest = _manifest(folder)
        for field in DEPENDENCIES:
            for name, version in (manifest.get(field) or {}).items():
                version = str(version)
                if version.startswith("link:"):
                    target: Path | None = (folder / version.removeprefix("link:")).resolve()
                elif any_version or version.startswith("workspace:"):
                    target = packages.get(name)
                else:
                    continue
                if target is None or target == folder or not target.is_dir() or not target.is_relative_to(root):
                    continue
                link = folder / "node_modules" / name
                if not link.is_symlink():
                    link.parent.mkdir(parents=True, exist_ok=True)
                    link.symlink_to(os.path.relpath(target, link.parent), target_is_directory=True)


GIT_ENV = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}  # the scratch repository's git: no user's


def as_clone(root: Path, mirror: Path, tag: str) -> None:
    """The extracted tree as a clone holds it: a git repository of one commit tracking every file the tag tracks,
    those a .gitignore matches too (kit's playgrounds/basic/src/lib/index.js under its `/src/lib`), which the index
    walks in a clone (git ls-files --cached) but leaves out of a plain folder."""
    if (root / ".git").exists():
        return
    listing = run(["git", f"--git-dir={mirror}", "ls-tree", "-r", "-z", tag], root).split("\0")
    blobs = [line.split("\t", 1)[1] for line in listing if line and line.split(" ", 2)[1] == "blob"]
    present = [path for path in blobs if os.path.lexists(root / path)]  # a project's `paths` may leave some out
    env = {**os.environ, **GIT_ENV}
    run(["git", "init", "-q"], root, GIT_ENV)
    argv = ["git", "add", "-f", "--pathspec-from-file=-", "--pathspec-file-nul"]
    proc = subprocess.run(argv, input="\0".join(present), cwd=root, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(argv)} in {root}\n{proc.stderr[-2000:]}")
    identity = ["-c", "user.name=bench", "-c", "user.email=bench@localhost", "-c", "core.hooksPath=/dev/null"]
    run(["git", *identity, "commit", "-q", "--no-verify", "-m", tag], root, GIT_ENV)


def ground_truth(root: Path, cache: Path, project: Project) -> dict[str, Any]:
    """{files: {path: {config, imports: [{spec, line, syntax, target}]}}, configs: {path: {paths, ...}}}."""
    linked = "-links" if project.links else ""
    out = cache / f"truth-{project.name}-{project.tag.replace('/', '+')}{linked}-v{TRUTH_VERSION}.json"
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


def spec_kind(
    spec: str,
    target: str | None,
    config: dict[str, Any] | None,
    own: str | None = None,
    workspace: frozenset[str] = frozenset(),
) -> str:
    """How a specifier is written, as far as resolution cares; `own` is the name in the importer's nearest
    package.json, `workspace` the names of the tree's packages."""
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
    for pattern in (config or {}).get("paths") or {}:  # the compiler tries `paths` first, `#x` too
        prefix, star, suffix = pattern.partition("*")
        if (star and spec.startswith(prefix) and spec.endswith(suffix)) or spec == pattern:
            return "tsconfig paths, a `#` specifier" if spec.startswith("#") else "tsconfig paths"
    if spec.startswith("#"):
        return "package.json `imports` (#)"
    if (config or {}).get("baseUrl"):
        return "bare, under baseUrl"
    name = "/".join(spec.split("/")[: 2 if spec.startswith("@") else 1])
    if name == own:
        return "self-reference (own package name)"
    if name in workspace:
        return "workspace package"
    return "bare (another package)"


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

    def __init__(self, truth: dict[str, Any], conn: sqlite3.Connection, root: Path) -> None:
        self.truth = truth
        self.rows: dict[str, list[sqlite3.Row]] = {}
        for r in conn.execute("SELECT path, module, kind, target, origin FROM resolved_imports"):
            self.rows.setdefault(r["path"], []).append(r)
        self.indexed = {r[0] for r in conn.execute("SELECT path FROM files WHERE status = 'indexed'")}
        walked = [r[0] for r in conn.execute("SELECT path FROM files")]
        self.packages: dict[str, str] = {}  # directory of a package.json -> its name ("" for none)
        for path in walked:
            if posixpath.basename(path) == "package.json":
                self.packages[posixpath.dirname(path)] = _manifest(root / posixpath.dirname(path)).get("name") or ""
        self.workspace = frozenset(n for n in self.packages.values() if n)
        # the settings files the index's Layout reads (resolve.py reads MAX_SETTINGS_FILES of them, shallowest first)
        self.read: set[str] = set()
        self.layout = Layout.of(walked, self._reader(root))

    def _reader(self, root: Path) -> Any:
        def read(rel: str) -> str | None:
            self.read.add(rel)
            return (root / rel).read_text(errors="replace") if (root / rel).is_file() else None  # `extends` may miss

        return read

    def kind(self, spec: str, target: str | None, source: str) -> str:
        config = self.config(source)
        kind = spec_kind(spec, target, config, self.own(source), self.workspace)
        if kind == "tsconfig paths" or spec.startswith((".", "/", "#")):
            return kind
        # Node reads no tsconfig, and the compiler only the file's nearest; the index reads the nearest it recorded
        found = self.layout.nearest(self.layout.ts_configs, source)
        if found is None or spec_kind(spec, target, {"paths": found[1].paths}) != "tsconfig paths":
            return kind
        if config is None:
            return "tsconfig paths, in a JavaScript file"
        return f"{kind}, where an ancestor's tsconfig paths match"

    def own(self, path: str) -> str | None:
        scope = self.scope(path)
        return self.packages[scope] if scope is not None else None

    def unread(self, source: str, spec: str, target: str | None) -> str:
        """What the index's Layout never read of the settings resolving a specifier (resolve.py reads only
        MAX_SETTINGS_FILES of them, shallowest first): the importer's tsconfig (the truth's), the package.json
        whose `imports` map a `#` specifier, or the one of the package a bare specifier names."""
        if spec.startswith(".") or spec.startswith("/"):
            return ""
        if spec.startswith("#"):
            scope = self.scope(source)
            unread = scope is not None and posixpath.join(scope, "package.json") not in self.read
            return ", its package.json unread" if unread else ""
        config = (self.truth["files"].get(source) or {}).get("config")
        if config and config not in self.read:
            return ", its tsconfig unread"
        scope = self.scope(target) if target else None
        if scope is not None and posixpath.join(scope, "package.json") not in self.read:
            return ", the target's package.json unread"
        return ""

    def scope(self, path: str) -> str | None:
        """The folder of the package.json nearest the file (Node's and the compiler's package scope)."""
        folder = posixpath.dirname(path)
        while True:
            if folder in self.packages:
                return folder
            if not folder:
                return None
            folder = posixpath.dirname(folder)

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
            index = (f"chose {_ext(chose)}" if chose else "unresolved") + self.unread(source, imp["spec"], target)
        kind = self.kind(imp["spec"], target, source)
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
        kind = self.kind(spec, target, source)
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
        ("specifier", lambda e, i: causes.kind(i["spec"], e[1], e[0])),
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
        version = project.tag.rsplit("@", 1)[-1]  # `@tanstack/query-core@5.102.0`: 5.102.0
        label = f"{project.name} {version}" + (" (hold-out)" if project.hold_out else "")
        root = tag_tree(args.mirrors, args.cache, project.github, project.name, project.tag, project.paths)
        as_clone(root, mirror_of(args.mirrors, project.github), project.tag)
        if project.links:
            workspace_links(root)
        truth = ground_truth(root, args.cache, project)
        expected = truth_edges(truth)
        files = {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and not SCRATCH & set(p.parts)}
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
                causes = Causes(truth, conn, root)
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
