"""Rust file dependencies of the index (`use` and `mod` items) against the names rustc resolves.

    python bench/facts_imports_rust.py [--mirrors DIR] [--cache DIR] [--show N] [--only NAME,...]

Ground truth written by rustc. The crates registry is unreachable here, so each crate's Cargo.toml is trimmed of its
optional and dev-dependencies as bench/facts_calls_rust.py trims it (a feature array over several lines joined
first), and every target that then builds is compiled with `RUSTC_BOOTSTRAP=1 cargo rustc --offline ... --
-Zunpretty=hir-tree`: the library, its unit tests (`--profile test`), each integration test, example and bench. Its
HIR is read as rustc prints it: every module with the span of its `mod` item and its own file (its inner span), every
item with its span, and every `use` item (lowered to one per name) with its span and the `Res` rustc resolved the name
to in each namespace (`Def(Struct, DefId(0:396 ~ semver[b566]::BuildMetadata))`: the item itself, through any
re-export), and the `Res` of each segment of its path (the HIR leaves `self` and `super` as `Err`: they are the
module holding the `use` and the one above it, read off the same module tree). A def path is in the file of the
item's span, else (a variant, a field; an item a macro wrote, whose span is the macro's) in its module's file; an
integration test's, example's or bench's path into the library (`semver::Version`) is read in the library's tree.
The edges, from a file rustc compiled to a file of the crate's tree (src/, tests/, benches/, examples/):
  - `mod x;`: the declaring file to the module's file (`#[path]` followed; an inline `mod x { }` is no edge);
  - each name a `use` takes: the `use`'s file (a macro's `use`: the file of the module it expands in) to the file
    defining the name; a glob `use a::*` to a's file; a name of another crate is no edge. Where the module the path
    names (`crate` of `use crate::Error`) is not the one defining the name, it re-exports it: the edge is found if
    the index has it to either file, and an edge to the re-exporting module's file is right; how many of these the
    index has at each file is printed apart.

The index is this checkout's `annals index --no-vectors --wait` of a fresh copy of the tree (one commit,
ANNALS_VECTORS=off), its edges `lookups.import_edges` (each import's target and, for one name, its origin through
re-exports) from a file rustc compiled. Precision is given twice: over all its edges, and leaving out those to a
file rustc compiled in no target (`#[cfg(feature = "serde")] mod serde;`, an aarch64 module on this x86_64 machine:
right in another configuration, not judged by this one). Beside the edges, each statement: whether the index's
import of a `mod` declaration, or of each name a `use` takes (its statement found by first line, the name by its
last segment), resolves to rustc's file (`--show N` lists N of those that do not, as it lists N missed and N extra
edges of each dev crate, each with its causes). The baseline in the same run is what the text gives a grep: `mod
x;` to x.rs or x/mod.rs beside the file, and `use crate::a::b::C` (braces expanded) to the longest of src/a/b/C.rs,
src/a/b.rs, src/a.rs (or their mod.rs) that exists, else src/lib.rs.

Crates (`fetch`ed mirrors at a release tag): those of bench/facts_calls_rust.py, dtolnay/semver 1.0.27,
tokio-rs/bytes v1.12.1, seanmonstar/httparse v1.10.1, dtolnay/itoa 1.0.18, servo/rust-smallvec v1.13.2 (not held
out here), and two with deeper module trees, BurntSushi/memchr 2.8.3 (its library alone: its unit tests need
quickcheck; the mirror lacks its benchmark haystacks, left out of the checkout) and bitflags/bitflags 2.13.1. The
hold-out, chosen before any figure was read and never read edge by edge (only its totals are printed): rust-lang/regex's
regex-syntax 0.8.11 (the workspace member built as a workspace of its own; its library, unit tests and bench).
BurntSushi/toml is a Go library. Not measured: a path written in code without a `use` (`crate::a::f()`),
`extern crate`, `#[macro_use]`, what a `use` under a cfg this machine does not enable would name, memchr's unit tests.

First run (2026-12-05, rustc 1.95.0, at e65f503; 2.6 minutes building the HIR, 55 s with it cached), dev crates:
recall 0.973 of 300 edges, precision 0.953 of 342 (0.994 on compiled targets); the baseline 0.620, 0.887 (0.945);
statements: 98 of 101 `mod` declarations right, 293 of 312 names a `use` takes. The hold-out regex-syntax: recall
1.000 of 73, precision 0.926 of 81 (0.974); baseline 0.986, 0.946 (1.000); statements 30/30 and 114/114. What the
index misses: `use ::bytes::Buf` (a leading `::`), a `use` in a macro's body (memchr), `mod util;` in tests/x.rs
(rustc reads tests/util/mod.rs, the index tests/x/util), a bare `pub use traits::Flags` in lib.rs (so bitflags' 33
re-exported names are found at lib.rs only, never followed to src/traits.rs).

After 37d459d (a leading `::`; an integration test, bench, example or bin a crate root; a 2018 bare path to a module
the file declares), dev crates: recall 0.983 of 300 (the 5 left: `use` in macro bodies), precision 0.955 (0.995 on
compiled targets); the hold-out the same, 1.000 / 0.926 (0.974).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from facts_calls_rust import trim  # noqa: E402  (bench/ is not a package)
from facts_tests import indexed_copy, run  # noqa: E402

TRUTH_VERSION = 1  # of the cached ground truth's format
CARGO = str(Path.home() / ".cargo" / "bin" / "cargo")


@dataclass(frozen=True)
class Crate:
    name: str
    github: str
    tag: str
    subdir: str = ""  # a workspace member, built on its own
    holdout: bool = False  # only its totals are printed: the rules were not made on it


CRATES = (
    Crate("semver", "dtolnay/semver", "1.0.27"),
    Crate("bytes", "tokio-rs/bytes", "v1.12.1"),
    Crate("httparse", "seanmonstar/httparse", "v1.10.1"),
    Crate("itoa", "dtolnay/itoa", "1.0.18"),
    Crate("smallvec", "servo/rust-smallvec", "v1.13.2"),
    Crate("memchr", "BurntSushi/memchr", "2.8.3"),
    Crate("bitflags", "bitflags/bitflags", "2.13.1"),
    Crate("regex-syntax", "rust-lang/regex", "regex-syntax-0.8.11", subdir="regex-syntax", holdout=True),
)

# --- the crate, built offline --------------------------------------------------------------------------------------


def checkout(mirrors: Path, cache: Path, crate: Crate) -> Path:
    """The crate's tree at its tag, its manifest trimmed to build offline (made once); a workspace member is a
    workspace of its own."""
    clone = cache / "src" / f"{crate.name}-{crate.tag}"
    root = clone / crate.subdir if crate.subdir else clone
    if (clone / ".trimmed").exists():
        return root
    mirror = mirrors / crate.github.replace("/", "+") / "repo"
    if not mirror.exists():
        raise SystemExit(f"{mirror}: no mirror of {crate.github} (bring it with `fetch github:{crate.github}`)")
    shutil.rmtree(clone, ignore_errors=True)
    clone.parent.mkdir(parents=True, exist_ok=True)
    run(["git", "clone", "-q", "--no-checkout", str(mirror), str(clone)])
    missing = _missing_blobs(clone, crate.tag)
    if missing:  # a mirror may lack its largest files (memchr's benchmark haystacks): check out the others
        run(["git", "sparse-checkout", "set", "--no-cone", "/*", *(f"!/{path}" for path in missing)], clone)
    run(["git", "-c", "advice.detachedHead=false", "checkout", "-q", crate.tag], clone)
    manifest = root / "Cargo.toml"
    if crate.subdir:  # `workspace = ".."`, `include.workspace = true`: the member's own table instead
        lines = [line for line in manifest.read_text().splitlines() if not re.match(r"^\s*[\w.]*workspace\s*=", line)]
        manifest.write_text("\n".join(lines) + "\n\n[workspace]\n")
    manifest.write_text(_one_line_arrays(manifest.read_text()))
    trim(manifest)
    (clone / ".trimmed").write_text(crate.tag)
    return root


def _one_line_arrays(text: str) -> str:
    """The manifest with each array on its key's line (`unicode = [` over several lines), as `trim` reads them."""
    out: list[str] = []
    open_array = False
    for line in text.splitlines():
        if open_array:
            item = line.split("#", 1)[0].strip()
            out[-1] += (" " if item and not out[-1].endswith("[") else "") + item
            open_array = "]" not in item
        else:
            out.append(line)
            open_array = bool(re.match(r"^\s*[\w-]+\s*=\s*\[[^\]]*$", line.split("#", 1)[0]))
    return "\n".join(out) + "\n"


def _missing_blobs(clone: Path, tag: str) -> list[str]:
    """The files of the tag whose content the mirror does not hold."""
    listing = [line.split("\t", 1) for line in run(["git", "ls-tree", "-r", tag], clone).splitlines()]
    blobs = [(meta.split()[2], path) for meta, path in listing if meta.split()[1] == "blob"]
    proc = subprocess.run(
        ["git", "cat-file", "--batch-check"],
        cwd=clone,
        input="".join(f"{sha}\n" for sha, _ in blobs),
        capture_output=True,
        text=True,
        check=True,
    )
    return [path for (_, path), line in zip(blobs, proc.stdout.splitlines(), strict=True) if line.endswith("missing")]


def units(root: Path) -> dict[str, list[str]]:
    """Cargo's selection of each target to try: the library, its unit tests, integration tests, examples, benches."""
    out = {"lib": ["--lib"], "lib-tests": ["--lib", "--profile", "test"]}
    for folder, flag in (("tests", "--test"), ("examples", "--example"), ("benches", "--bench")):
        for path in sorted((root / folder).glob("*.rs")):
            out[f"{folder}/{path.name}"] = [flag, path.stem]
    return out


def build_hir(root: Path, cache: Path, crate: Crate) -> dict[str, Any]:
    """What rustc resolved in each target that builds offline, read from its `-Zunpretty=hir-tree` as it prints."""
    target = cache / "target" / f"{crate.name}-{crate.tag}"
    read: dict[str, Any] = {}
    for unit, select in units(root).items():
        shutil.rmtree(target, ignore_errors=True)  # cargo would not run rustc again for a target it thinks fresh
        proc = subprocess.Popen(
            [CARGO, "rustc", "--offline", "-q", *select, "--", "-Zunpretty=hir-tree"],
            cwd=root,
            env={**os.environ, "CARGO_TARGET_DIR": str(target), "RUSTC_BOOTSTRAP": "1"},
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert proc.stdout is not None
        tree = read_tree(proc.stdout)
        if proc.wait() == 0 and tree["root"]:
            read[unit] = tree
    shutil.rmtree(target, ignore_errors=True)
    return read


# --- reading rustc's HIR tree ---------------------------------------------------------------------------------------

_OWNER = re.compile(r"^DefId\((\d+):\d+ ~ (.*)\) => OwnerNodes \{$")
_DEF_ID = re.compile(r"(?<!HirId\()DefId\((\d+):\d+ ~ ([^)]*)\)")
_SPAN = re.compile(r"^\s*(inner_span|span): (.+?):(\d+):\d+: \d+:\d+ \(#(\d+)\),$")
_ITEM_FIELD = " " * 16  # an owner's own fields (kind, span), inside `node: Item(` / `Item {`
_HASH = re.compile(r"^([\w-]+)\[[0-9a-f]+\]")  # `semver[b566]::parse`: the crate's name without its hash


def def_path(text: str) -> str:
    return _HASH.sub(r"\1", text)


@dataclass
class Owner:
    """One owner of rustc's HIR: an item, an impl's or trait's item, the crate."""

    path: str  # its def path, the crate's name first (`semver::parse::Error`)
    node: str = ""  # Crate, Item, ImplItem, TraitItem, ForeignItem
    kind: str = ""  # an item's kind: Use, Mod, Struct, Fn...
    span: tuple[str, int, int] | None = None  # file, line, syntax context (0: written, not from a macro)
    inner: tuple[str, int, int] | None = None  # a module's own file (its inner span)
    res: list[tuple[int, str]] = field(default_factory=list)  # a use: what it imports (crate number, def path)
    segments: list[tuple[str, tuple[int, str] | None]] = field(default_factory=list)  # a use's path: ident, res
    use_kind: str = ""  # Single, Glob, ListStem


def read_tree(lines: Iterable[str]) -> dict[str, Any]:
    """The crate's modules (def path -> declaring span, own file), its items' files and its `use` items."""
    modules: dict[str, Any] = {}
    items: dict[str, Any] = {}
    uses: list[Any] = []
    use_lines: set[tuple[str, int]] = set()  # where each `use` item rustc compiled starts (a list's stem too)
    root = None
    for owner in _owners(lines):
        if owner.node == "Crate" and owner.inner:
            root = owner.inner[0]
            modules[owner.path] = {"file": owner.inner[0], "declared": None}
        elif owner.kind == "Mod" and owner.inner and owner.span:
            modules[owner.path] = {"file": owner.inner[0], "declared": list(owner.span)}
        elif owner.kind == "Use" and owner.span and owner.use_kind in ("Single", "Glob"):
            uses.append(
                {
                    "owner": owner.path,
                    "at": list(owner.span),
                    "kind": owner.use_kind,
                    "res": [list(r) for r in owner.res],
                    "segments": [[ident, list(res) if res else None] for ident, res in owner.segments],
                }
            )
        elif owner.span and owner.kind != "Use":
            items[owner.path] = list(owner.span)
        if owner.kind == "Use" and owner.span:
            use_lines.add((owner.span[0], owner.span[1]))
    return {"root": root, "modules": modules, "items": items, "uses": uses, "use_lines": sorted(use_lines)}


def _owners(lines: Iterable[str]) -> Iterator[Owner]:
    """Each owner of the tree, its fields read off the lines that matter (the bodies are skipped)."""
    owner: Owner | None = None
    in_node = False
    region = ""  # inside a use: "res" (what it imports) or "segments" (its path)
    for line in lines:
        if line.startswith("DefId("):
            m = _OWNER.match(line)
            if m is not None and m[1] == "0":
                owner, in_node, region = Owner(def_path(m[2])), True, ""
            continue
        if owner is None or not in_node:
            if line.startswith("}") and owner is not None:
                yield owner
                owner = None
            continue
        if line.startswith("    parents:"):
            in_node = False
            continue
        stripped = line.strip()
        if line.startswith("        node: "):
            owner.node = stripped[len("node: ") :].rstrip("(")
        elif line.startswith(_ITEM_FIELD + "kind: "):
            owner.kind = re.split(r"[( {]", stripped[len("kind: ") :], maxsplit=1)[0]
        elif stripped.startswith(("span:", "inner_span:")):
            m = _SPAN.match(line)
            if m is None:
                continue
            spot = (m[2], int(m[3]), int(m[4]))
            if m[1] == "inner_span" and owner.inner is None:
                owner.inner = spot
            elif line.startswith(_ITEM_FIELD + "span:") and owner.span is None:
                owner.span = spot
        elif owner.kind == "Use":
            if stripped == "res: PerNS {":
                region = "res"
            elif stripped == "segments: [":
                region = "segments"
            elif stripped.startswith("ident: ") and region == "segments":
                owner.segments.append((stripped[len("ident: ") :].rsplit("#", 1)[0], None))
            elif line.startswith(_ITEM_FIELD + "    ") and stripped in ("Glob,", "ListStem,", "Single("):
                owner.use_kind, region = stripped.rstrip("(,"), ""
            elif "DefId(" in stripped and region:
                m = _DEF_ID.search(stripped)
                if m is None:
                    continue
                found = (int(m[1]), def_path(m[2]))
                if region == "res" and found not in owner.res:
                    owner.res.append(found)
                elif region == "segments" and owner.segments and owner.segments[-1][1] is None:
                    owner.segments[-1] = (owner.segments[-1][0], found)
    if owner is not None:
        yield owner


def ground_truth(mirrors: Path, cache: Path, crate: Crate) -> tuple[Path, dict[str, Any]]:
    """The crate's tree and rustc's resolution of each target that builds (cached under `cache`)."""
    root = checkout(mirrors, cache, crate)
    saved = cache / f"truth-{crate.name}-{crate.tag}.json"
    if saved.exists():
        truth = json.loads(saved.read_text())
        if truth.get("version") == TRUTH_VERSION:
            return root, truth
    truth = {"version": TRUTH_VERSION, "units": build_hir(root, cache, crate)}
    saved.write_text(json.dumps(truth))
    return root, truth


# --- rustc's edges --------------------------------------------------------------------------------------------------

TREE = ("src/", "tests/", "benches/", "examples/")  # the crate's own files: an edge joins two of them
_GENERATED = re.compile(r"::\{(?:constructor|synthetic)#\d+\}$")  # a tuple struct's constructor: the struct


@dataclass(frozen=True)
class Found:
    """Where one edge of rustc's comes from: a `mod` declaration or one name a `use` takes."""

    kind: str  # "mod" or "use"
    source: str
    line: int
    written: str  # the path as rustc lowered it (`crate::parse::Error`, `super::*`) or `mod name`
    defined: str  # the file defining what it names
    via: str | None = None  # the file of the module the path names, when it re-exports the name from another file
    causes: tuple[str, ...] = ()
    resolved: str = ""  # rustc's def path


@dataclass
class Truth:
    edges: dict[tuple[str, str], list[Found]]  # (source, defining file) -> where it comes from
    outside: dict[tuple[str, int], set[str]]  # (file, line) of a `use` -> what it takes from another crate
    compiled: set[str]  # every file of a module rustc compiled, in any target
    use_lines: set[tuple[str, int]]  # (file, line) of each `use` item rustc compiled
    library: str  # the library crate's name, as its paths begin (`regex_syntax`)

    def accepted(self) -> set[tuple[str, str]]:
        """Edges that are right: to the defining file, or to the file of the module the path names."""
        return set(self.edges) | {(f.source, f.via) for found in self.edges.values() for f in found if f.via}


class Tree:
    """One target's modules and items, each def path to its file."""

    def __init__(self, unit: dict[str, Any], root: Path) -> None:
        self.modules: dict[str, dict[str, Any]] = unit["modules"]
        self.items: dict[str, list[Any]] = unit["items"]
        self.root = root
        self.crate_root = unit["root"]
        self.inline = {  # modules written `mod x { ... }`, in the file of the module holding them
            path
            for path, m in self.modules.items()
            if m["declared"] and m["declared"][0] == m["file"] and path.rpartition("::")[0] in self.modules
        }
        self.path_attr = {
            path for path, m in self.modules.items() if m["declared"] and not _conventional(path, m, self.crate_root)
        }

    def file_of(self, path: str) -> tuple[str | None, bool]:
        """The file defining a def path (an item's own file, else its module's), and whether a macro made it."""
        path = _GENERATED.sub("", path)
        macro = False
        while path:
            if path in self.modules:
                return self.modules[path]["file"], macro
            span = self.items.get(path)
            if span is not None and span[2] == 0 and _in_tree(span[0]):
                return span[0], macro
            macro = macro or (span is not None and span[2] != 0)
            path = path.rpartition("::")[0]
        return None, macro

    def module_of(self, path: str) -> str:
        """The module holding a def path (itself, if a module)."""
        while path and path not in self.modules:
            path = path.rpartition("::")[0]
        return path

    def expanded_in(self, path: str) -> str:
        """The module a def path is in, out of the modules a macro declares (`mod __private { ... }` of bitflags!,
        whose file is the macro's)."""
        module = self.module_of(path)
        while self.modules[module]["declared"] and self.modules[module]["declared"][2]:
            module = self.module_of(module.rpartition("::")[0])
        return module

    def through_inline(self, path: str) -> bool:
        """Whether the def path is in, or passes through, a module written inline (`mod tests { ... }`)."""
        module = self.module_of(path)
        while module:
            if module in self.inline:
                return True
            module = module.rpartition("::")[0]
        return False


def _in_tree(file: str) -> bool:
    return file.startswith(TREE) and file.endswith(".rs")


def _conventional(path: str, module: dict[str, Any], crate_root: str) -> bool:
    """Whether a module's file is where `mod name;` looks without `#[path]`: name.rs or name/mod.rs beside the
    declaring file (in its own folder, for a file other than the crate's root and a mod.rs)."""
    declared, name = module["declared"][0], path.rpartition("::")[2]
    folder, stem = os.path.split(declared)
    own = folder if declared == crate_root or stem == "mod.rs" else declared[:-3]
    return module["file"] in (f"{own}/{name}.rs", f"{own}/{name}/mod.rs") or module["file"] == declared


def rustc_edges(truth: dict[str, Any], root: Path) -> Truth:
    """Every file -> file edge rustc's resolution gives, over the targets that built."""
    trees = {unit: Tree(data, root) for unit, data in truth["units"].items()}
    library_tree = trees.get("lib") or trees.get("lib-tests")
    library = next((p for p, m in library_tree.modules.items() if m["declared"] is None), "") if library_tree else ""
    edges: dict[tuple[str, str], list[Found]] = defaultdict(list)
    outside: dict[tuple[str, int], set[str]] = defaultdict(set)
    compiled: set[str] = set()
    use_lines: set[tuple[str, int]] = set()
    for unit, data in truth["units"].items():
        tree = trees[unit]
        compiled |= {m["file"] for m in tree.modules.values() if _in_tree(m["file"])}
        use_lines |= {(f, line) for f, line in data["use_lines"]}
        for path, m in tree.modules.items():
            if m["declared"] and m["declared"][0] != m["file"] and _in_tree(m["declared"][0]):
                causes = ["mod"]
                causes += ["#[path] attribute"] if path in tree.path_attr else []
                causes += ["mod inside an inline mod"] if tree.through_inline(path.rpartition("::")[0]) else []
                causes += ["mod from a macro"] if m["declared"][2] else []
                root_file = m["declared"][0] == tree.crate_root and not tree.crate_root.startswith("src/")
                causes += ["mod in a test's, bench's or example's root file"] if root_file else []
                name = path.rpartition("::")[2]
                found = Found("mod", m["declared"][0], m["declared"][1], f"mod {name}", m["file"], None, (), path)
                edges[(found.source, found.defined)].append(_with_causes(found, causes, root))
        for use in data["uses"]:
            for found in _use_edges(use, tree, library_tree, library, outside):
                edges[(found.source, found.defined)].append(found)
    once = {key: sorted(set(found), key=lambda f: (f.line, f.written)) for key, found in edges.items()}
    return Truth(once, dict(outside), compiled, use_lines, library)


def _with_causes(found: Found, causes: list[str], root: Path) -> Found:
    """The causes, with those the source lines above the item say (`#[cfg(...)]`, `#[path = ...]`)."""
    lines = _source_lines(root, found.source)
    above: list[str] = []
    at = found.line - 2
    while at >= 0 and lines[at].strip().startswith(("#[", "//")):
        above.append(lines[at].strip())
        at -= 1
    if any(a.startswith("#[cfg") for a in above):
        causes.append(f"{found.kind} under #[cfg]")
    if any(a.startswith("#[path") for a in above) and "#[path] attribute" not in causes:
        causes.append("#[path] attribute")
    return Found(**{**found.__dict__, "causes": tuple(causes)})


_SOURCES: dict[tuple[Path, str], list[str]] = {}


def _source_lines(root: Path, file: str) -> list[str]:
    if (root, file) not in _SOURCES:
        path = root / file
        _SOURCES[(root, file)] = path.read_text(errors="replace").splitlines() if path.is_file() else []
    return _SOURCES[(root, file)]


def _use_edges(
    use: dict[str, Any],
    tree: Tree,
    library_tree: Tree | None,
    library: str,
    outside: dict[tuple[str, int], set[str]],
) -> list[Found]:
    """The edges one name a `use` takes gives: to the file defining it, and the re-exporting module's (what it takes
    from another crate goes to `outside`)."""
    source, line, context = use["at"]
    segments = _segments(use, tree)
    written = "::".join(ident for ident, _ in segments).replace("{{root}}", "")
    written += "::*" if use["kind"] == "Glob" else ""
    if context:  # a macro's `use`, written in the macro's file: it is a use of the module it expands in
        written += f" (expanded from {source}:{line})"
        source = tree.modules[tree.expanded_in(use["owner"])]["file"]
    if not _in_tree(source):
        return []

    def locate(res: list[Any] | None) -> tuple[str | None, bool, Tree | None]:
        if res is None:
            return None, False, None
        crate, path = res
        if crate == 0:
            return (*tree.file_of(path), tree)
        if library_tree is not None and path.split("::")[0] == library:  # a test's `use semver::Version`
            return (*library_tree.file_of(path), library_tree)
        return None, False, None

    if use["kind"] == "Glob":  # the module (or enum) the glob takes all of
        targets = use["res"] or ([segments[-1][1]] if segments else [])
    else:
        targets = use["res"]
    out = []
    first = next((ident for ident, _ in segments if ident != "{{root}}"), "")  # `::bytes::Buf`: bytes
    prefix = first if first in ("crate", "self", "super") else ("the library's name" if first == library else "bare")
    for res in targets:
        defined, macro, where = locate(res)
        if defined is None or where is None:
            if res is not None and res[0] != 0:
                outside[(source, line)].add(res[1])
            continue
        via = None
        if use["kind"] == "Single" and len(segments) >= 2 and segments[-2][1] is not None:
            named, _, _ = locate(segments[-2][1])
            parent = _GENERATED.sub("", res[1]).rpartition("::")[0]
            if named and segments[-2][1][1] != parent and named != defined:
                via = named
        causes = [f"use {prefix}::" if prefix != "bare" else "use a bare path (`a::b`, 2018 edition)"]
        causes += ["glob import"] if use["kind"] == "Glob" else []
        causes += ["re-export"] if via else []
        causes += ["macro-generated"] if macro or context else []
        causes += ["use inside an inline mod"] if tree.through_inline(use["owner"]) else []
        causes += ["target in an inline mod"] if where.through_inline(_GENERATED.sub("", res[1])) else []
        causes += ["target through a #[path] module"] if _through(where, where.path_attr, res[1]) else []
        found = Found("use", source, line, written, defined, via, tuple(causes), res[1])
        if defined == source and via:
            found = Found(**{**found.__dict__, "defined": via, "via": None})
        if found.defined != source:
            out.append(found)
    return out


def _segments(use: dict[str, Any], tree: Tree) -> list[tuple[str, list[Any] | None]]:
    """The use's path, each segment with what it names. The HIR leaves `self` and `super` unresolved (`res: Err`):
    they are the module holding the use and the one above it, and a segment after them is a module of theirs."""
    out: list[tuple[str, list[Any] | None]] = []
    for at, (ident, res) in enumerate(use["segments"]):
        before = out[-1][1] if out else None
        if res is None and ident == "self" and at == 0:
            res = [0, tree.module_of(use["owner"])]
        elif res is None and ident == "super":
            below = before[1] if before else tree.module_of(use["owner"])
            res = [0, tree.module_of(below.rpartition("::")[0])]
        elif res is None and before is not None and before[0] == 0 and at < len(use["segments"]) - 1:
            inner = f"{before[1]}::{ident}"
            res = [0, inner] if inner in tree.modules or inner in tree.items else None
        out.append((ident, res))
    return out


def _through(tree: Tree, modules: set[str], path: str) -> bool:
    module = tree.module_of(path)
    while module:
        if module in modules:
            return True
        module = module.rpartition("::")[0]
    return False


# --- the index's edges, and the baseline ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    """One import of the index (resolved_imports)."""

    path: str
    line: int
    kind: str
    written: str  # module::{names}
    target: str | None
    origin: str | None


def index_edges(repo: Path) -> tuple[set[tuple[str, str]], list[Row]]:
    """The index's file -> file edges (`lookups.import_edges`) and its Rust imports."""
    from codeannals.store import lookups, open_store
    from codeannals.store.db import stored_list

    conn = open_store(repo / ".annals" / "annals.db")
    try:
        edges = {(e["source"], e["target"]) for e in lookups.import_edges(conn)}
        rows = [
            Row(r[0], r[1] or 0, r[2] or "", _written(r[3], stored_list(r[4])), r[5], r[6])
            for r in conn.execute(
                "SELECT path, line, kind, module, names, target, origin FROM resolved_imports"
                " WHERE path LIKE '%.rs' ORDER BY path, line, ordinal"
            )
        ]
    finally:
        conn.close()
    return edges, rows


def _written(module: str, names: list[str]) -> str:
    return f"{module}::{names[0]}" if len(names) == 1 and module else f"{module}::{{{', '.join(names)}}}".rstrip(":{}")


_MOD = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", re.MULTILINE)
_USE_CRATE = re.compile(r"\buse\s+crate::([^;]*);")


def baseline_edges(root: Path, sources: Iterable[str]) -> set[tuple[str, str]]:
    """What the text alone gives: `mod x;` to x.rs or x/mod.rs beside the file, `use crate::a::b::C` to the
    longest of src/a/b/C.rs, src/a/b.rs, src/a.rs (or their mod.rs) that exists, else the crate root."""
    edges = set()
    for source in sources:
        text = (root / source).read_text(errors="replace")
        folder = os.path.dirname(source)
        for name in _MOD.findall(text):
            for candidate in (f"{folder}/{name}.rs", f"{folder}/{name}/mod.rs"):
                if (root / candidate).is_file():
                    edges.add((source, candidate))
                    break
        for tree in _USE_CRATE.findall(text):
            for path in _expanded(re.sub(r"\s+", "", tree)):
                parts = [p for p in path.split("::") if p not in ("", "*", "self")]
                edges.add((source, _longest_file(root, parts)))
    return {(a, b) for a, b in edges if a != b}


def _expanded(tree: str) -> list[str]:
    """`a::{b, c::{d, e}}` as its paths: a::b, a::c::d, a::c::e."""
    if "{" not in tree:
        return [tree.split(" as ")[0]]
    head, _, rest = tree.partition("{")
    inner, depth, parts, current = rest[: rest.rfind("}")], 0, [], ""
    for char in inner:
        depth += (char == "{") - (char == "}")
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    return [path for part in parts if part for path in _expanded(head + part)]


def _longest_file(root: Path, parts: list[str]) -> str:
    for cut in range(len(parts), 0, -1):
        module = "src/" + "/".join(parts[:cut])
        for candidate in (f"{module}.rs", f"{module}/mod.rs"):
            if (root / candidate).is_file():
                return candidate
    return "src/lib.rs"


# --- scoring --------------------------------------------------------------------------------------------------------


@dataclass
class Scored:
    truth: int
    edges: int
    found: int
    right: int
    missed: list[tuple[str, str]]
    extra: list[tuple[str, str]]
    uncompiled: int = 0  # edges to a file rustc compiled in no target (a `mod` under `#[cfg]`): not judged
    by_defining: int = 0  # of the re-exported names found, those found at the defining file
    by_named: int = 0  # ... at the file of the module the path names
    reexported: int = 0  # truth edges whose name comes through a re-export

    def recall(self) -> float:
        return self.found / max(1, self.truth)

    def precision(self) -> float:
        return self.right / max(1, self.edges)

    def precision_compiled(self) -> float:
        return self.right / max(1, self.edges - self.uncompiled)


def score(truth: Truth, edges: set[tuple[str, str]]) -> Scored:
    """Recall of rustc's edges (an edge to a re-exported name is found at its defining file or at the file of the
    module the path names), precision of the edges given (right when rustc has either)."""
    accepted = truth.accepted()
    scored = Scored(len(truth.edges), len(edges), 0, len(edges & accepted), [], sorted(edges - accepted))
    scored.uncompiled = sum(target not in truth.compiled for _, target in edges)
    for key, found in sorted(truth.edges.items()):
        vias = {(f.source, f.via) for f in found if f.via}
        hit = key in edges or bool(vias & edges)
        scored.found += hit
        if not hit:
            scored.missed.append(key)
        if vias:
            scored.reexported += 1
            scored.by_defining += key in edges
            scored.by_named += bool(vias & edges)
    return scored


def scored_edges(edges: set[tuple[str, str]], truth: Truth) -> set[tuple[str, str]]:
    """The edges scored: from a file rustc compiled to another file of the crate's tree."""
    return {(a, b) for a, b in edges if a in truth.compiled and _in_tree(b) and a != b}


def miss_causes(truth: Truth, key: tuple[str, str]) -> tuple[str, ...]:
    return truth.edges[key][0].causes


def extra_causes(truth: Truth, rows: list[Row], key: tuple[str, str]) -> tuple[str, ...]:
    """Why the index gives an edge rustc does not have, from the first of its imports that gives it."""
    giving = [r for r in rows if r.path == key[0] and key[1] in (r.target, r.origin)]
    if not giving:
        return ("no import of the index gives it",)
    row = giving[0]
    if row.kind == "mod":
        return ("mod", "mod of a file rustc did not compile (cfg)" if key[1] not in truth.compiled else "mod elsewhere")
    first = row.written.split("::")[0]
    if first in ("crate", "self", "super"):
        causes = [f"use {first}::"]
    else:
        causes = ["use the library's name::" if first == truth.library else "use a bare path (`a::b`, 2018 edition)"]
    start, end = statement_lines(rows, row)
    if not any((row.path, line) in truth.use_lines for line in range(start, end)):
        causes.append("use rustc did not compile (cfg)")
    elif any((row.path, line) in truth.outside for line in range(start, end)) and not rustc_at(truth, row, rows):
        causes.append("rustc resolves it in another crate")
    if row.written.endswith("*"):
        causes.append("glob import")
    if key[1] == row.origin and row.origin != row.target:
        causes.append("re-export followed (origin)")
    return tuple(causes)


def statement_lines(rows: list[Row], row: Row) -> tuple[int, int]:
    """The lines of the index's `use` statement holding an import: to the next statement's first line."""
    later = sorted({r.line for r in rows if r.path == row.path and r.line > row.line})
    return row.line, later[0] if later else row.line + 1


def rustc_at(truth: Truth, row: Row, rows: list[Row]) -> list[Found]:
    """rustc's edges from the statement of an import of the index, those of the same name if any."""
    start, end = statement_lines(rows, row)
    at = [f for found in truth.edges.values() for f in found if f.source == row.path and start <= f.line < end]
    name = row.written.rpartition("::")[2]
    return [f for f in at if f.written.rpartition("::")[2] == name] or at


def statements(truth: Truth, rows: list[Row]) -> list[tuple[Found, str]]:
    """Each `mod` declaration and each name a `use` takes that rustc resolves in the crate, and what the index's
    import of it gives: "right" (rustc's file: the defining one, or the re-exporting module's), "nothing" (an
    import resolved to no file), "elsewhere" (to another file), "no import" (none read there: a `use` a macro
    writes, or a name the index does not read)."""
    seen: set[tuple[str, str, int, str, str]] = set()
    out = []
    for found in truth.edges.values():
        for f in found:
            key = (f.kind, f.source, f.line, f.written, f.defined)
            if key in seen:
                continue
            seen.add(key)
            if f.kind == "mod":
                name = f.written.split()[-1]
                ours = [r for r in rows if r.kind == "mod" and r.path == f.source and r.line == f.line]
                ours = [r for r in ours if r.written == name]
            elif "(expanded from" in f.written:
                ours = []
            else:
                held = [r for r in rows if r.path == f.source and r.line <= f.line]
                start = max((r.line for r in held), default=0)
                name = f.written.rpartition("::")[2]
                ours = [r for r in held if r.line == start and r.written.rpartition("::")[2] == name]
            given = ({r.target for r in ours} | {r.origin for r in ours}) - {None}
            if not ours:
                status = "no import"
            elif {f.defined, f.via} & given:
                status = "right"
            else:
                status = "elsewhere" if given else "nothing"
            out.append((f, status))
    return out


def statement_line(judged: list[tuple[Found, str]]) -> str:
    counts = Counter((f.kind, status) for f, status in judged)
    macro = sum("(expanded from" in f.written for f, _ in judged)
    parts = []
    for kind, label in (("mod", "mod declarations"), ("use", "names taken by a `use`")):
        n = sum(v for (k, _), v in counts.items() if k == kind)
        wrong = ", ".join(
            f"{counts[(kind, st)]} {st}" for st in ("nothing", "elsewhere", "no import") if counts[(kind, st)]
        )
        parts.append(f"{label} {counts[(kind, 'right')]}/{n} right" + (f" ({wrong})" if wrong else ""))
    return "; ".join(parts) + f"; {macro} of the names are a macro's `use` (no statement to read)"


# --- the report -----------------------------------------------------------------------------------------------------


def statement_rows(rows: list[Row], source: str, line: int) -> list[Row]:
    """The index's imports of the `use` statement holding a line (the last statement starting at or above it)."""
    above = [r.line for r in rows if r.path == source and r.line <= line]
    return [r for r in rows if r.path == source and above and r.line == max(above)]


def shown_miss(truth: Truth, rows: list[Row], key: tuple[str, str]) -> str:
    f = truth.edges[key][0]
    via = f" (the path names {f.via})" if f.via else ""
    name = f.written.rpartition("::")[2]
    ours = statement_rows(rows, f.source, f.line) if f.kind == "use" else [r for r in rows if r.path == f.source]
    ours = [r for r in ours if r.written.rpartition("::")[2] == name] or ours[:3]
    given = "; ".join(f"`{r.written}` -> {r.target or 'nothing'}" + _origin(r) for r in ours[:3]) or "no import"
    return (
        f"    {f.source}:{f.line} `{f.written}`  [{', '.join(f.causes)}]\n"
        f"      rustc: {f.resolved} in {f.defined}{via}; index: {given}"
    )


def shown_extra(truth: Truth, rows: list[Row], key: tuple[str, str], causes: tuple[str, ...]) -> str:
    giving = [r for r in rows if r.path == key[0] and key[1] in (r.target, r.origin)]
    if not giving:
        return f"    {key[0]} -> {key[1]}  [{', '.join(causes)}]"
    row = giving[0]
    at = rustc_at(truth, row, rows)
    start, end = statement_lines(rows, row)
    outside = sorted({p for line in range(start, end) for p in truth.outside.get((row.path, line), ())})
    rustc = "; ".join(sorted({f"{f.resolved} in {f.defined}" for f in at})[:3]) or (
        f"another crate's {', '.join(outside[:3])}" if outside else "no edge of this statement"
    )
    return (
        f"    {row.path}:{row.line} `{row.written}` -> {key[1]}  [{', '.join(causes)}]\n"
        f"      index: {row.target or 'nothing'}{_origin(row)}; rustc: {rustc}"
    )


def _origin(row: Row) -> str:
    return f" (origin {row.origin})" if row.origin and row.origin != row.target else ""


def figures_line(label: str, method: str, s: Scored) -> str:
    return (
        f"{label:<14} {method:<9} {s.edges:>6} {s.found:>6}/{s.truth:<6} {s.recall():>7.3f} {s.precision():>9.3f}"
        f" {s.precision_compiled():>9.3f}"
    )


def total(results: list[dict[str, Scored]], method: str) -> Scored:
    parts = [r[method] for r in results]
    out = Scored(0, 0, 0, 0, [], [])
    for s in parts:
        out.truth, out.edges, out.found, out.right = (
            out.truth + s.truth,
            out.edges + s.edges,
            out.found + s.found,
            out.right + s.right,
        )
        out.reexported += s.reexported
        out.uncompiled += s.uncompiled
        out.by_defining += s.by_defining
        out.by_named += s.by_named
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mirrors", type=Path, default=Path(os.environ.get("LOCALIZE_MIRRORS", "/work/.mirror")))
    parser.add_argument("--cache", type=Path, default=Path("/work/corpora/imports_rust"))
    parser.add_argument("--show", type=int, default=0, help="print N missed and N extra edges of each dev crate")
    parser.add_argument("--only", help="these crates only (comma-separated names)")
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    results: dict[str, dict[str, Scored]] = {}
    judged: dict[str, list[tuple[Found, str]]] = {}
    sides = ("missed", "extra", "statements")
    causes: dict[str, Counter[str]] = {side: Counter() for side in sides}
    print(
        f"{'crate':<14} {'method':<9} {'edges':>6} {'found/truth':>13} {'recall':>7} {'precision':>9}"
        " (compiled targets)"
    )
    for crate in CRATES:
        if args.only and crate.name not in args.only.split(","):
            continue
        root, built = ground_truth(args.mirrors, args.cache, crate)
        truth = rustc_edges(built, root)
        edges, rows = index_edges(indexed_copy(args.cache, crate.name, crate.tag, root, (".git", "target")))
        ours = scored_edges(edges, truth)
        base = scored_edges(baseline_edges(root, sorted(truth.compiled)), truth)
        results[crate.name] = {"annals": score(truth, ours), "baseline": score(truth, base)}
        judged[crate.name] = statements(truth, rows)
        if crate.holdout:
            continue  # its totals only, below
        label = crate.name
        print(f"{label:<14} {'rustc':<9} {len(truth.edges):>6}   ({', '.join(sorted(built['units']))})")
        for method, s in results[crate.name].items():
            print(figures_line(label, method, s))
        annals = results[crate.name]["annals"]
        crate_causes: dict[str, Counter[str]] = {side: Counter() for side in sides}
        for key in annals.missed:
            crate_causes["missed"].update(miss_causes(truth, key))
        extra_why = {key: extra_causes(truth, rows, key) for key in annals.extra}
        for why in extra_why.values():
            crate_causes["extra"].update(why)
        wrong = [(f, status) for f, status in judged[crate.name] if status != "right"]
        for f, _ in wrong:
            crate_causes["statements"].update(f.causes)
        for side in sides:
            causes[side].update(crate_causes[side])
        print(
            f"  re-exported names: {annals.reexported} edges, the index has {annals.by_defining} at the defining file,"
            f" {annals.by_named} at the file of the module the path names"
        )
        print(f"  statements: {statement_line(judged[crate.name])}")
        kinds = sorted(set().union(*crate_causes.values()))
        counts = [f"{k} {'/'.join(str(crate_causes[side][k]) for side in sides)}" for k in kinds]
        print(f"  by cause (missed edges/extra edges/statements not right): {'; '.join(counts) or 'none'}")
        if args.show:
            print(f"  missed edges ({len(annals.missed)}):")
            for key in annals.missed[: args.show]:
                print(shown_miss(truth, rows, key))
            print(f"  extra edges ({len(annals.extra)}):")
            for key in annals.extra[: args.show]:
                print(shown_extra(truth, rows, key, extra_why[key]))
            print(f"  statements not right ({len(wrong)}):")
            for f, status in wrong[: args.show]:
                via = f" (the path names {f.via})" if f.via else ""
                print(f"    {f.source}:{f.line} `{f.written}`: {status}  [{', '.join(f.causes)}]")
                print(f"      rustc: {f.resolved} in {f.defined}{via}")
    for label, holdout in (("total (dev)", False), ("hold-out", True)):
        among = [c.name for c in CRATES if c.name in results and c.holdout == holdout]
        if among:
            for method in ("annals", "baseline"):
                print(figures_line(label, method, total([results[name] for name in among], method)))
            print(f"  statements: {statement_line([j for name in among for j in judged[name]])}")
    kinds = sorted(set().union(*causes.values()), key=lambda k: -sum(causes[side][k] for side in sides))
    print("dev crates by cause (an edge or statement counts under each cause it has):")
    print(f"  {'':<48} {'missed edges':>12} {'extra edges':>12} {'statements not right':>21}")
    for k in kinds:
        print(f"  {k:<48} {causes['missed'][k]:>12} {causes['extra'][k]:>12} {causes['statements'][k]:>21}")
    print(f"({time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()
