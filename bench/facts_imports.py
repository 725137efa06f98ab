"""Python import edges of the index against grimp's import graph, on real projects of each layout.

    python bench/facts_imports.py [--cache DIR] [--show N]

Each project is a release source from PyPI (`pip download --no-binary :all:`), kept in the cache
(default ~/.cache/codeannals-bench/imports/). And this repository at HEAD (`git archive`), whose pyproject.toml installs
each top-level folder as a subpackage of `codeannals` (setuptools' `package-dir`): grimp reads it through a
folder of links placing each where it is installed. The whole release tree (tests, docs and examples
too) is indexed with the real `index_tree` into a scratch database; its resolved imports are
compared with grimp's graph (written by others: `pip install grimp`, or the `bench` extra) at
grimp's granularity: module -> module, both modules grimp lists, self-imports left out. (grimp
does not list the modules of a folder without `__init__.py` inside a package; the edges of ours
to them are counted and left out, not scored.)

The baseline in the same run is the resolution of the code before this work (indexer/resolve.py
at BASELINE_COMMIT, read with `git show`) applied to the same import statements, picking the first
candidate as the dependencies projection did then. Targets (issue 14): precision and recall >= 0.98.

A second table scores where a name taken from a module is defined (`origin`, re-exports followed:
`from click import Command` is click/core.py's) against Python's own answer, the `__module__` of
the class or function, for the names Python can import in this environment (a project whose
dependencies are not installed answers fewer) and that are defined inside the package; beside
it, the baseline of taking the module named as the answer.
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import json
import re
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parent.parent
BASELINE_COMMIT = "fbb4ff3"  # the last commit before the resolution of issue 14
DEFAULT_CACHE = Path.home() / ".cache" / "codeannals-bench" / "imports"
TARGET = 0.98


@dataclass(frozen=True)
class Project:
    layout: str
    requirement: str  # name==version on PyPI
    root: str  # the directory of the release that holds the packages (what `sys.path` gets)
    packages: tuple[str, ...]  # grimp's top-level packages; a namespace package: its portions in this release
    # (package, folder) as the build settings install them (setuptools' package-dir): grimp reads them installed
    folders: tuple[tuple[str, str], ...] = ()


THIS_REPOSITORY = "this repository"  # codeannals itself at HEAD (`git archive`): no release has its layout


PROJECTS = (
    Project("src layout", "click==8.1.7", "src", ("click",)),
    Project("src layout, two packages", "attrs==24.2.0", "src", ("attr", "attrs")),
    Project("flat", "rich==13.7.1", "", ("rich",)),
    Project("flat", "httpx==0.27.0", "", ("httpx",)),
    Project("flat, tests a package", "requests==2.31.0", "", ("requests",)),
    Project("src layout, two packages", "pytest==8.3.3", "src", ("_pytest", "pytest")),
    Project("src layout, examples", "flask==3.0.3", "src", ("flask",)),
    Project("namespace package (src)", "opentelemetry-api==1.27.0", "src", ("opentelemetry.*",)),
    Project("namespace package (src)", "opentelemetry-sdk==1.27.0", "src", ("opentelemetry.*",)),
    Project(
        "package-dir (folders renamed)",
        THIS_REPOSITORY,
        "",
        ("codeannals.indexer", "codeannals.store", "codeannals.server", "codeannals.hooks"),
        (("codeannals.indexer", "indexer"), ("codeannals.store", "store"), ("codeannals.server", "server"))
        + (("codeannals.hooks", "hooks"),),
    ),
)

_DEFINED_IN = """
import importlib, inspect, json, sys
sys.path.insert(0, sys.argv[1])
answers = {}
for module, name in json.loads(sys.stdin.read()):
    try:
        obj = getattr(importlib.import_module(module), name)
    except BaseException:
        continue
    if inspect.isclass(obj) or inspect.isfunction(obj):
        answers[module + ":" + name] = obj.__module__
print(json.dumps(answers))
"""

_FOUND = """
import importlib.util, json, sys
sys.path.insert(0, sys.argv[1])
found = {}
for module in json.loads(sys.stdin.read()):
    try:
        spec = importlib.util.find_spec(module)
    except BaseException:
        continue
    if spec is not None and spec.origin not in (None, "built-in", "frozen"):
        found[module] = spec.name
print(json.dumps(found))
"""

_GRIMP = """
import json, sys
sys.path.insert(0, sys.argv[1])
import grimp
graph = grimp.build_graph(*sys.argv[2:], cache_dir=None)
print(json.dumps({"modules": sorted(graph.modules),
                  "edges": [[m, i] for m in graph.modules for i in graph.find_modules_directly_imported_by(m)]}))
"""


def fetch(project: Project, cache: Path) -> Path:
    """The unpacked release source, downloaded once (this repository: its HEAD, once a commit)."""
    if project.requirement == THIS_REPOSITORY:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True)
        tree = cache / f"this-repository-{head.stdout.strip()}"
        if not tree.is_dir():
            tree.mkdir(parents=True)
            archive = subprocess.run(["git", "archive", "HEAD"], cwd=REPO, capture_output=True, check=True).stdout
            with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
                tar.extractall(tree, filter="data")
        return tree
    name, version = project.requirement.split("==")

    def same(p: Path) -> bool:  # sdists spell the name with _, - or . (jaraco_functools-4.0.2)
        return _normal(p.name.removesuffix(".tar.gz")) == _normal(f"{name}-{version}")

    found = [p for p in cache.glob("*") if p.is_dir() and same(p)]
    if found:
        return found[0]
    cache.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "-q",
            "--no-binary",
            ":all:",
            "--no-deps",
            "-d",
            str(cache),
            project.requirement,
        ],
        capture_output=True,
        text=True,
    )
    archives = [p for p in cache.glob("*.tar.gz") if same(p)]
    if proc.returncode != 0 or not archives:
        sys.exit(f"facts_imports: could not download {project.requirement}: {proc.stderr.strip()[-300:]}")
    with tarfile.open(archives[0]) as tar:
        tar.extractall(cache, filter="data")
    return fetch(project, cache)


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name.lower())


def packages(tree: Path, project: Project) -> tuple[str, ...]:
    """The packages to graph: `ns.*` names every regular package of this release inside the namespace `ns`,
    so that other portions of `ns` installed in this environment stay out of the graph."""
    out: list[str] = []
    for name in project.packages:
        if not name.endswith(".*"):
            out.append(name)
            continue
        out.extend(_portions(tree / project.root / name[:-2].replace(".", "/"), name[:-2]))
    return tuple(out)


def _portions(folder: Path, namespace: str) -> list[str]:
    """The regular packages inside a namespace package, through nested namespace packages."""
    out = []
    for child in sorted(d for d in folder.iterdir() if d.is_dir()):
        name = f"{namespace}.{child.name}"
        out.extend([name] if (child / "__init__.py").is_file() else _portions(child, name))
    return out


def importable(tree: Path, project: Project) -> Path:
    """The folder whose packages Python imports as installed: the release's root, or for a project whose
    settings rename its folders, a folder of links placing each where it is installed."""
    if not project.folders:
        return tree / project.root
    installed = tree.parent / f"{tree.name}-installed"
    for package, folder in project.folders:
        link = installed / package.replace(".", "/")
        if not link.exists():
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(tree / folder, target_is_directory=True)
    return installed


def grimp_graph(path: Path, names: tuple[str, ...]) -> tuple[set[str], set[tuple[str, str]]]:
    """grimp's modules and its edges between them, the packages imported from `path`."""
    proc = subprocess.run(
        [sys.executable, "-c", _GRIMP, str(path), *names],
        capture_output=True,
        text=True,
        cwd=tempfile.gettempdir(),
    )
    if proc.returncode != 0:
        sys.exit(
            "facts_imports: grimp failed (install it: pip install grimp, or pip install -e '.[bench]'): "
            + proc.stderr.strip().splitlines()[-1]
        )
    graph = json.loads(proc.stdout)
    return set(graph["modules"]), {(a, b) for a, b in graph["edges"] if a != b}


def module_of(path: str, project: Project, names: tuple[str, ...]) -> str | None:
    """The module a file of the packages is, as grimp names it (None outside them)."""
    for package, folder in project.folders:  # where the file is installed
        if path.startswith(f"{folder}/"):
            path = package.replace(".", "/") + path[len(folder) :]
            break
    prefix = f"{project.root}/" if project.root else ""
    if not path.startswith(prefix) or not path.endswith(".py"):
        return None
    parts = path[len(prefix) : -3].split("/")
    if parts[-1] == "__init__":
        parts.pop()
    module = ".".join(parts)
    return module if any(module == n or module.startswith(n + ".") for n in names) else None


def module_edges(pairs: list[tuple[str, str]], project: Project, names: tuple[str, ...]) -> set[tuple[str, str]]:
    edges = set()
    for importer, target in pairs:
        a, b = module_of(importer, project, names), module_of(target, project, names)
        if a and b and a != b:
            edges.add((a, b))
    return edges


@dataclass
class Indexed:
    pairs: list[tuple[str, str]]  # (importer, target) of every resolved import
    files: list[str]
    imports: list[tuple[str, dict[str, Any]]]  # (importer, import as the indexer recorded it) of Python files
    origins: set[tuple[str, str, str]]  # (target, name, origin) of the imports of one name


def index(tree: Path) -> Indexed:
    """Index the tree for real: its resolved imports, its files, its Python imports and their origins."""
    from codeannals.indexer.run import index_tree
    from codeannals.store import open_store

    with tempfile.TemporaryDirectory() as scratch:
        conn = open_store(Path(scratch) / "annals.db")
        try:
            index_tree(tree, conn)
            pairs = [
                (r[0], r[1]) for r in conn.execute("SELECT path, target FROM resolved_imports WHERE target IS NOT NULL")
            ]
            files = [r[0] for r in conn.execute("SELECT path FROM import_files")]
            origins = {
                (r[0], json.loads(r[1])[0], r[2])
                for r in conn.execute(
                    "SELECT target, names, origin FROM resolved_imports WHERE target IS NOT NULL"
                    " AND json_array_length(names) = 1 AND names != '[\"*\"]' AND path LIKE '%.py'"
                )
            }
            imports = [
                (payload["path"], imp)
                for (text,) in conn.execute("SELECT payload FROM events WHERE type = 'file.indexed' ORDER BY seq")
                for payload in [json.loads(text)]
                if payload.get("language") == "python"
                for imp in payload.get("imports", [])
            ]
        finally:
            conn.close()
    return Indexed(pairs, files, imports, origins)


def load_baseline() -> ModuleType | None:
    """indexer/resolve.py as it was before this work, or None outside a git checkout."""
    proc = subprocess.run(
        ["git", "-C", str(REPO), "show", f"{BASELINE_COMMIT}:indexer/resolve.py"], capture_output=True, text=True
    )
    if proc.returncode != 0:
        return None
    path = Path(tempfile.mkdtemp()) / "resolve_before.py"
    path.write_text(proc.stdout)
    spec = importlib.util.spec_from_file_location("resolve_before", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def baseline_pairs(
    resolve: ModuleType, files: list[str], imports: list[tuple[str, dict[str, Any]]]
) -> list[tuple[str, str]]:
    """The old candidates and module names, each import taking its first candidate naming a file."""
    layout = resolve.Layout.of(files)
    by_module: dict[str, list[str]] = {}
    for f in files:
        by_module.setdefault(resolve.module_name(f, "python", layout), []).append(f)
    known = set(files)
    pairs = []
    for importer, imp in imports:
        for cand in resolve.candidates(imp, importer, "python", layout):
            named = (
                by_module.get(cand[len("module:") :], [])
                if cand.startswith("module:")
                else [cand]
                if cand in known
                else []
            )
            named = [f for f in named if f != importer]
            if named:
                pairs.append((importer, min(named, key=lambda f: (f.endswith(".pyi"), f))))
                break
    return pairs


def defined_in(path: Path, questions: set[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """Where Python itself says a name taken from a module is defined: the `__module__` of the class
    or function (names it cannot import, or that are neither, are not asked)."""
    proc = subprocess.run(
        [sys.executable, "-c", _DEFINED_IN, str(path)],
        capture_output=True,
        text=True,
        input=json.dumps(sorted(questions)),
        cwd=tempfile.gettempdir(),
        timeout=600,
    )
    if proc.returncode != 0:
        sys.exit(f"facts_imports: asking Python where names are defined failed: {proc.stderr.strip()[-300:]}")
    answers: dict[str, str] = json.loads(proc.stdout)
    return {(key.split(":", 1)[0], key.split(":", 1)[1]): value for key, value in answers.items()}


def origin_scores(
    tree: Path, project: Project, names: tuple[str, ...], indexed: Indexed, show: int = 0
) -> tuple[int, int, int, int]:
    """(names asked, names Python answered, origins right, targets right): for each name one import
    takes from a module of the package, is the origin (or, the baseline, the target) its module?"""
    asked: dict[tuple[str, str], str] = {}
    named: dict[tuple[str, str], str] = {}
    for target, name, origin in indexed.origins:
        module = module_of(target, project, names)
        if module and name:
            asked[(module, name)] = module_of(origin, project, names) or origin
            named[(module, name)] = module
    truth = {
        q: m
        for q, m in defined_in(importable(tree, project), set(asked)).items()
        if any(m == n or m.startswith(n + ".") for n in names)
    }  # defined outside: no file of ours to name
    if show:
        for q in sorted(q for q in truth if asked[q] != truth[q])[:show]:
            print(f"    origin wrong: {q[0]}:{q[1]} -> {asked[q]}, defined in {truth[q]}")
    right = sum(asked[q] == truth[q] for q in truth)
    plain = sum(named[q] == truth[q] for q in truth)
    return len(asked), len(truth), right, plain


def outside_edges(
    tree: Path, project: Project, names: tuple[str, ...], indexed: Indexed
) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    """(Python's, ours): the modules of the packages that files outside them (tests, scripts, docs) import,
    as (file, module). Python's: what `importlib.util.find_spec` finds for each absolute import of a package
    module (for `from m import n`, `m.n` where that is a module, else `m`), the packages importable as installed;
    ours, those to the modules Python could import here."""
    asked: list[tuple[str, str, str | None]] = []  # (importer, module, a name taken from it)
    for importer, imp in indexed.imports:
        module = imp.get("module") or ""
        taken = [n for n in imp.get("names", []) if n != "*"]
        # `from opentelemetry import context`: the namespace package is none of the packages, its module is
        in_packages = _in_packages(module, names) or any(_in_packages(f"{module}.{n}", names) for n in taken)
        if _a_module(importer, project, names) or imp.get("level") or not in_packages:
            continue
        asked.extend((importer, module, name) for name in taken or [None])
    proc = subprocess.run(
        [sys.executable, "-c", _FOUND, str(importable(tree, project))],
        capture_output=True,
        text=True,
        input=json.dumps(sorted({m for _, module, name in asked for m in (module, f"{module}.{name}")})),
        cwd=tempfile.gettempdir(),
        timeout=600,
    )
    if proc.returncode != 0:
        sys.exit(f"facts_imports: asking Python where modules are failed: {proc.stderr.strip()[-300:]}")
    found: dict[str, str] = json.loads(proc.stdout)
    truth = set()
    for importer, module, name in asked:  # as grimp counts: `from m import n` imports m.n where that is a module
        submodule = f"{module}.{name}" if name else None
        target = found.get(submodule) if submodule else None
        if target or module in found:
            truth.add((importer, target or found[module]))
    answered = set(found.values())  # a module Python cannot import here (a dependency missing) is not scored
    ours = {
        (importer, module)
        for importer, target in indexed.pairs
        if importer.endswith((".py", ".pyi")) and not _a_module(importer, project, names)
        for module in [module_of(target, project, names)]
        if module in answered
    }
    return truth, ours


def _a_module(path: str, project: Project, names: tuple[str, ...]) -> bool:
    """Whether a file is one of the packages' modules, its stub (`__init__.pyi`) too."""
    return module_of(path.removesuffix("i") if path.endswith(".pyi") else path, project, names) is not None


def _in_packages(module: str, names: tuple[str, ...]) -> bool:
    return any(module == n or module.startswith(n + ".") for n in names)


def _share(part: int, whole: int) -> str:
    return f"{part / whole:.3f}" if whole else "-"  # nothing answered: no figure, not a zero


def score(found: set[Any], truth: set[Any]) -> tuple[float, float]:
    hits = len(found & truth)
    return (hits / len(found) if found else 1.0), (hits / len(truth) if truth else 1.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="where the release sources are kept")
    parser.add_argument("--show", type=int, default=0, help="print up to N wrong and missed edges a project")
    args, _ = parser.parse_known_args()
    baseline = load_baseline()
    print(f"Python import edges against grimp (module -> module inside the package); target >= {TARGET}")
    print(
        f"baseline: indexer/resolve.py at {BASELINE_COMMIT}"
        if baseline
        else "baseline: unavailable (not a git checkout)"
    )
    print(
        f"{'project':<32} {'layout':<26} {'grimp':>6} {'ours':>6} {'precision':>9} {'recall':>7}"
        f" | {'before':>6} {'precision':>9} {'recall':>7}"
    )
    totals: dict[str, set[tuple[str, str, str]]] = {"truth": set(), "ours": set(), "before": set()}
    ok = True
    origin_rows: list[tuple[Project, tuple[int, int, int, int]]] = []
    outside_rows: list[tuple[Project, tuple[set[tuple[str, str]], set[tuple[str, str]]]]] = []
    for project in PROJECTS:
        tree = fetch(project, args.cache)
        names = packages(tree, project)
        modules, truth = grimp_graph(importable(tree, project), names)
        indexed = index(tree)
        pairs, files, imports = indexed.pairs, indexed.files, indexed.imports
        origin_rows.append((project, origin_scores(tree, project, names, indexed, args.show)))
        outside_rows.append((project, outside_edges(tree, project, names, indexed)))
        ours = module_edges(pairs, project, names)
        unseen = {e for e in ours if not {*e} <= modules}
        ours -= unseen
        precision, recall = score(ours, truth)
        ok &= precision >= TARGET and recall >= TARGET
        line = (
            f"{project.requirement:<32} {project.layout:<26} {len(truth):>6} {len(ours):>6}"
            f" {precision:>9.3f} {recall:>7.3f}"
        )
        name = project.requirement
        totals["truth"] |= {(name, *e) for e in truth}
        totals["ours"] |= {(name, *e) for e in ours}
        if baseline is not None:
            before = {
                e for e in module_edges(baseline_pairs(baseline, files, imports), project, names) if {*e} <= modules
            }
            b_precision, b_recall = score(before, truth)
            line += f" | {len(before):>6} {b_precision:>9.3f} {b_recall:>7.3f}"
            totals["before"] |= {(name, *e) for e in before}
        print(line)
        held = {module_of(f, project, names) for f in files}
        if unheld := {e for e in truth - ours if e[1] not in held}:
            print(
                f"    ({len(unheld)} missed edges name a module whose file the index does not hold:"
                f" {', '.join(sorted({e[1] for e in unheld}))}, left out by .gitignore)"
            )
        if unseen:
            print(
                f"    ({len(unseen)} more edges of ours name modules grimp does not list: folders without"
                " __init__.py inside a package, which Python imports as namespace packages)"
            )
        for label, edges in (("wrong", sorted(ours - truth)), ("missed", sorted(truth - ours))):
            for a, b in edges[: args.show]:
                print(f"    {label}: {a} -> {b}")
    precision, recall = score(totals["ours"], totals["truth"])
    line = f"{'all':<32} {'':<26} {len(totals['truth']):>6} {len(totals['ours']):>6} {precision:>9.3f} {recall:>7.3f}"
    if baseline is not None:
        b_precision, b_recall = score(totals["before"], totals["truth"])
        line += f" | {len(totals['before']):>6} {b_precision:>9.3f} {b_recall:>7.3f}"
    print(line)
    print(f"every project at precision and recall >= {TARGET}: {'yes' if ok else 'NO'}")
    print()
    print(
        "Where a name taken from a module is defined, against Python's own answer (the class's or"
        " function's __module__); baseline: the module named"
    )
    print(f"{'project':<32} {'names':>6} {'answered':>8} {'origin right':>12} | {'module named right':>18}")
    sums = [0, 0, 0, 0]
    for project, (asked, answered, right, plain) in origin_rows:
        sums = [a + b for a, b in zip(sums, (asked, answered, right, plain), strict=True)]
        print(
            f"{project.requirement:<32} {asked:>6} {answered:>8} {_share(right, answered):>12}"
            f" | {_share(plain, answered):>18}"
        )
    print(f"{'all':<32} {sums[0]:>6} {sums[1]:>8} {_share(sums[2], sums[1]):>12} | {_share(sums[3], sums[1]):>18}")

    print()
    print(
        "The packages' modules that files outside them import (tests, scripts, docs), against Python's own"
        " find_spec with the packages installed"
    )
    print(f"{'project':<32} {'python':>6} {'ours':>6} {'precision':>9} {'recall':>7}")
    every: tuple[set[tuple[str, str, str]], set[tuple[str, str, str]]] = (set(), set())
    for project, (truth, ours) in outside_rows:
        precision, recall = score(ours, truth)
        print(f"{project.requirement:<32} {len(truth):>6} {len(ours):>6} {precision:>9.3f} {recall:>7.3f}")
        for label, edges in (("wrong", sorted(ours - truth)), ("missed", sorted(truth - ours))):
            for importer, module in edges[: args.show]:
                print(f"    {label}: {importer} -> {module}")
        every[0].update((project.requirement, *e) for e in truth)
        every[1].update((project.requirement, *e) for e in ours)
    precision, recall = score(every[1], every[0])
    print(f"{'all':<32} {len(every[0]):>6} {len(every[1]):>6} {precision:>9.3f} {recall:>7.3f}")


if __name__ == "__main__":
    main()
