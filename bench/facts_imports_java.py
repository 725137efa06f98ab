"""Java file dependencies of the index against the class dependencies of the compiled code.

    python bench/facts_imports_java.py [--mirrors DIR] [--cache DIR] [--show N]

Ground truth written by the JDK: a project's main sources (a `fetch`ed mirror at a fixed tag) compiled with
`javac`, their class dependencies read by `jdeps -verbose:class -filter:none` (same-package ones included), each
class mapped to the file declaring its top-level class. Only edges between two files of those sources count.
jdeps sees what the bytecode references: a class named only in javadoc, or only for a constant the compiler
inlined, is no dependency to it, so a few of the index's edges (an import used by javadoc) count against it.

The index is this checkout's `annals index --no-vectors` of the same tree (fresh every run); its edges are
`resolved_imports` with a target. The baseline in the same run is what the import statements alone give (the
index's edges but those of kind `package`, a class of the file's own package, which needs no import: what the
index served before 2026-12-04).

gson's main code needs error_prone_annotations on the class path (taken from ~/.m2, where Maven keeps it); its
GsonBuildConfig is a template Maven fills in, filled here with a version.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ANNALS = str(Path(sys.executable).parent / "annals")


@dataclass(frozen=True)
class Project:
    name: str
    github: str  # the mirror's owner/name
    tag: str
    sources: str  # the main source root, inside the repository
    templates: str  # sources Maven fills in (`${project.version}`), or ""
    class_path: str  # jars under ~/.m2/repository, as a glob


PROJECTS = (
    Project(
        "gson",
        "google/gson",
        "gson-parent-2.13.2",
        "gson/src/main/java",
        "gson/src/main/java-templates",
        "com/google/errorprone/error_prone_annotations/*/error_prone_annotations-*.jar",
    ),
)
_JDEPS_LINE = re.compile(r"^\s+(\S+)\s+->\s+(\S+)\s+(\S+)$")


def run(argv: list[str], cwd: Path | None = None) -> str:
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(argv)}\n{proc.stderr[-2000:]}")
    return proc.stdout


def checkout(name: str, github: str, tag: str, mirrors: Path, cache: Path) -> Path:
    """A clone of the `fetch`ed mirror of `github` at `tag`, under `cache` (made once)."""
    root = cache / f"{name}-{tag}"
    if not root.exists():
        mirror = mirrors / github.replace("/", "+") / "repo"
        if not mirror.exists():
            raise SystemExit(f"{mirror}: no mirror of {github} (bring it with `fetch github:{github}`)")
        run(["git", "clone", "-q", "--branch", tag, str(mirror), str(root)])
    return root


def jdeps_edges(project: Project, root: Path, cache: Path) -> set[tuple[str, str]]:
    """File -> file dependencies of the compiled main sources."""
    jars = sorted((Path.home() / ".m2" / "repository").glob(project.class_path))
    if not jars:
        raise SystemExit(f"~/.m2/repository/{project.class_path}: not found (run `mvn dependency:get` for it)")
    sources = [p for p in (root / project.sources).rglob("*.java") if p.name != "module-info.java"]
    filled = cache / f"{project.name}-filled"
    shutil.rmtree(filled, ignore_errors=True)
    if project.templates:
        for template in (root / project.templates).rglob("*.java"):
            target = filled / template.relative_to(root / project.templates)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(template.read_text().replace("${project.version}", "0.0.0"))
            sources.append(target)
    classes = cache / f"{project.name}-classes"
    shutil.rmtree(classes, ignore_errors=True)
    listing = cache / f"{project.name}-sources.txt"
    listing.write_text("\n".join(str(p) for p in sources) + "\n")
    run(["javac", "-nowarn", "-proc:none", "-cp", str(jars[-1]), "-d", str(classes), f"@{listing}"])
    edges = set()
    for line in run(["jdeps", "-verbose:class", "-filter:none", str(classes)]).splitlines():
        if (m := _JDEPS_LINE.match(line)) and m.group(3) == classes.name:
            source, target = _file_of(m.group(1), project, root), _file_of(m.group(2), project, root)
            if source and target and source != target:
                edges.add((source, target))
    return edges


def _file_of(class_name: str, project: Project, root: Path) -> str | None:
    path = f"{project.sources}/{class_name.split('$')[0].replace('.', '/')}.java"
    return path if (root / path).is_file() else None  # a filled template is no file of the tree


def index_edges(project: Project, root: Path) -> dict[str, set[tuple[str, str]]]:
    """The index's edges between main source files, all of them and those of import statements alone."""
    shutil.rmtree(root / ".annals", ignore_errors=True)
    env_free = {**os.environ, "ANNALS_VECTORS": "off"}
    subprocess.run(
        [ANNALS, "-C", str(root), "index", "--no-vectors", "--wait"], check=True, capture_output=True, env=env_free
    )
    conn = sqlite3.connect(root / ".annals" / "annals.db")
    try:
        rows = conn.execute("SELECT path, target, kind FROM resolved_imports WHERE target IS NOT NULL").fetchall()
    finally:
        conn.close()
    inside = [
        (a, b, kind)
        for a, b, kind in rows
        if a != b and a.startswith(project.sources + "/") and b.startswith(project.sources + "/")
    ]
    return {
        "annals": {(a, b) for a, b, _ in inside},
        "imports only": {(a, b) for a, b, kind in inside if kind != "package"},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mirrors", type=Path, default=Path(os.environ.get("LOCALIZE_MIRRORS", "/work/.mirror")))
    parser.add_argument("--cache", type=Path, default=Path("/work/corpora/imports_java"))
    parser.add_argument("--show", type=int, default=0, help="print up to N missed and N extra edges of the index")
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    print(f"{'project':<10} {'method':<14} {'edges':>6} {'recall':>7} {'precision':>9}")
    for project in PROJECTS:
        root = checkout(project.name, project.github, project.tag, args.mirrors, args.cache)
        truth = jdeps_edges(project, root, args.cache)
        print(f"{project.name:<10} {'jdeps':<14} {len(truth):>6}")
        for method, edges in index_edges(project, root).items():
            found = edges & truth
            recall, precision = len(found) / max(1, len(truth)), len(found) / max(1, len(edges))
            print(f"{project.name:<10} {method:<14} {len(edges):>6} {recall:>7.3f} {precision:>9.3f}")
            if method == "annals":
                for edge in sorted(truth - edges)[: args.show]:
                    print(f"  missed {edge[0]} -> {edge[1]}")
                for edge in sorted(edges - truth)[: args.show]:
                    print(f"  extra  {edge[0]} -> {edge[1]}")


if __name__ == "__main__":
    main()
