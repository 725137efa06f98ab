"""Rust callers and callees of the index against the calls rustc compiles, read from its LLVM IR.

    python bench/facts_calls_rust.py [--mirrors DIR] [--cache DIR] [--wrong N] [--only NAME,...] [--json FILE]

The crates registry is unreachable here, so only crates that build with no dependency can be compiled: each crate's
Cargo.toml is trimmed of its optional and dev-dependencies (and the features naming them), and its targets are
compiled with `cargo rustc --offline ... -- --emit=llvm-ir -C debuginfo=2 -C codegen-units=1`: the library, the
library's unit tests (`--profile test`, which instantiate more of its generic code) and each integration test that
builds without a dev-dependency. Crates (`fetch`ed mirrors at a release tag): dtolnay/semver 1.0.27, tokio-rs/bytes
v1.12.1, seanmonstar/httparse v1.10.1, dtolnay/itoa 1.0.18, and the hold-out servo/rust-smallvec v1.13.2, added
after the rules were read on the others and never read call by call (`--wrong` prints nothing of it).

Ground truth written by the compiler: every `call`/`invoke` of a named function in the IR carries a DILocation
(line, scope) whose scopes lead up to the DISubprogram of the function the source holds the call in (its own
location is the innermost, where `#[inline(always)]` code was inlined into it); every inlined call is a call too,
at its `inlinedAt` location. A function is the crate's when its DISubprogram's file is in the crate's tree; a
closure (`{closure#0}`) is attributed, as the index attributes its calls, to the function whose lines hold it. Each
function is matched to the index's innermost function or method holding its DISubprogram's line (a callee: of the
same name; a derive's functions, at the derive's line, have none), each callee outside the crate is known by its
demangled path. A call site is (caller, line, callee).

Kept apart: (a) the calls the source spells at that line (the callee's name there as `name(`, `name::<`, `.name(` or
`::name(`), and (b) the implicit ones (operators, `?`'s `From`, `Drop`, auto-`Deref`, a `for` loop's `into_iter` and
`next`, formatting). Recall of the crate's callees, per site: followed at the line (the caller's callees answer,
`lookups.callees`, names the callee at that line on a followed basis, `callgraph.FOLLOWED`; the index keeps one call per
caller, qualifier and name with every line it is made on: indexer/parsing/callsites.py's unique_calls), or at the first
call of its name (what it was while the index kept the first line alone), followed (the callee's callers answer,
`lookups.callers`, at most 500, holds the caller on a followed basis), and any basis (a `name only` guess too: the
baseline, what a grep of the name gives). Precision, at every site where the IR calls some function of a given name at
that line (the crate's or not: `Vec::new()` calling alloc's `new` decides that site too): of the callees the index gives
that caller at that line for a call of that name on a followed basis, the share the IR calls there (a `through a field`
answer, `a == b` of a type deriving PartialEq, is right when the derived functions called there reach it); beside it the
name-only baseline, every function or method of the crate of that name. A call through a pointer (a `dyn` method, a
function value) names no callee: the index's answers on a line where the IR makes one are not judged. `--wrong N` prints
N wrong callees and N missed calls of each crate but the hold-out; `--json FILE` writes them all, and the missed
implicit calls and the answers no IR call decides (`Err(e)`, `write!` handing `fmt` on, `a >= b` calling PartialOrd's
`ge`).

First run (2026-12-05, rustc 1.95.0, about a minute with the IR cached, two without, at 50bb9fb), over the dev
crates: spelled calls recall 0.443 at the line (0.622 at the first call of the name), 0.728 followed, 0.990 any
basis; implicit calls 0.253 followed; precision 0.792 of 1,249 followed callees at 2,928 sites (name-only baseline
0.152). The hold-out smallvec: spelled 0.556 / 0.843 / 0.984 / 0.984, precision 0.776 of 389 (baseline 0.298). At
d60bfb2, the same day: dev spelled 0.577 / 0.790 / 0.869 / 0.990, implicit 0.209 followed, precision 0.930 of 1,395
(0.973 with a trait's own method right where an impl of it runs); hold-out 0.564 / 0.807 / 0.813 / 0.988, precision
0.966 of 320. With every line of a call kept (the same day): dev spelled 0.790 at the line, precision 0.932 of 1,903
(judged at every line); hold-out 0.807, 0.975 of 443. The README's figures say what each rule moved.
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from facts_tests import Lines, indexed_copy, run  # noqa: E402  (bench/ is not a package)

TRUTH_VERSION = 1  # of the cached ground truth's format
RUSTC_FLAGS = ("--emit=llvm-ir", "-C", "debuginfo=2", "-C", "codegen-units=1")


@dataclass(frozen=True)
class Crate:
    name: str
    github: str
    tag: str
    holdout: bool = False  # never read call by call: the rules were not made on it


CRATES = (
    Crate("semver", "dtolnay/semver", "1.0.27"),
    Crate("bytes", "tokio-rs/bytes", "v1.12.1"),
    Crate("httparse", "seanmonstar/httparse", "v1.10.1"),
    Crate("itoa", "dtolnay/itoa", "1.0.18"),
    Crate("smallvec", "servo/rust-smallvec", "v1.13.2", holdout=True),
)

# --- the crate, built offline --------------------------------------------------------------------------------------


def checkout(mirrors: Path, cache: Path, crate: Crate) -> Path:
    """A clone of the crate's mirror at its tag, trimmed to build offline (made once)."""
    root = cache / "src" / f"{crate.name}-{crate.tag}"
    if (root / ".trimmed").exists():
        return root
    mirror = mirrors / crate.github.replace("/", "+") / "repo"
    if not mirror.exists():
        raise SystemExit(f"{mirror}: no mirror of {crate.github} (bring it with `fetch github:{crate.github}`)")
    shutil.rmtree(root, ignore_errors=True)
    root.parent.mkdir(parents=True, exist_ok=True)
    run(["git", "clone", "-q", str(mirror), str(root)])
    run(["git", "-c", "advice.detachedHead=false", "checkout", "-q", crate.tag], root)
    trim(root / "Cargo.toml")
    (root / ".trimmed").write_text(crate.tag)
    return root


def trim(manifest: Path) -> None:
    """The manifest without what the registry would have to give: optional, dev- and target-specific dependencies,
    benches, and in each feature the entries that name no other feature."""
    tables: list[tuple[str, list[str]]] = [("", [])]
    for line in manifest.read_text().splitlines():
        if line.startswith("["):
            tables.append((line.strip(), []))
        tables[-1][1].append(line)
    kept: list[tuple[str, list[str]]] = []
    for table, lines in tables:
        dependency = re.match(r"\[dependencies\.(\S+)\]", table)  # `[dependencies.serde]`
        if re.search(r"dev[-_]dependencies|^\[target\.", table) or table == "[[bench]]":
            continue
        if dependency and any("optional = true" in line for line in lines):
            continue
        if table == "[dependencies]":
            lines = [line for line in lines if "optional = true" not in line]
        kept.append((table, lines))
    features = {m[1] for table, lines in kept if table == "[features]" for m in map(_KEY.match, lines) if m}
    out = []
    for table, lines in kept:
        if table == "[features]":
            lines = [_own_features(line, features) for line in lines]
        out.extend(lines)
    manifest.write_text("\n".join(out) + "\n")


_KEY = re.compile(r"^\s*([\w-]+)\s*=")


def _own_features(line: str, features: set[str]) -> str:
    """A feature's line keeping only the features it enables (`std = ["alloc", "serde?/std", "dep:serde"]`)."""
    key = _KEY.match(line)
    if key is None or "[" not in line:
        return line
    entries = re.findall(r'"([^"]*)"', line.split("=", 1)[1])
    return f"{key[1]} = [{', '.join(json.dumps(e) for e in entries if e in features)}]"


def build_ir(root: Path, cache: Path, crate: Crate) -> dict[str, Path]:
    """The LLVM IR of each target that builds offline: the library, its unit tests, each integration test."""
    out = cache / "ir" / f"{crate.name}-{crate.tag}"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    target = cache / "target" / f"{crate.name}-{crate.tag}"
    shutil.rmtree(target, ignore_errors=True)  # cargo would not compile a fresh target again, nor write its IR
    targets = {"lib": ["--lib"], "lib-tests": ["--lib", "--profile", "test"]}
    targets.update({f"tests/{p.name}": ["--test", p.stem] for p in sorted((root / "tests").glob("*.rs"))})
    built = {}
    for unit, select in targets.items():
        deps = target / "debug" / "deps"
        before = {p: p.stat().st_mtime for p in deps.glob("*.ll")} if deps.exists() else {}
        proc = subprocess.run(
            ["cargo", "rustc", "--offline", "-q", *select, "--", *RUSTC_FLAGS],
            cwd=root,
            env={**os.environ, "CARGO_TARGET_DIR": str(target)},
            capture_output=True,
            text=True,
        )
        written = [p for p in deps.glob("*.ll") if before.get(p) != p.stat().st_mtime] if deps.exists() else []
        if proc.returncode != 0 or len(written) != 1:
            continue  # a target needing a dev-dependency
        built[unit] = out / (unit.replace("/", "_") + ".ll")
        shutil.copyfile(written[0], built[unit])
    return built


# --- reading the IR -------------------------------------------------------------------------------------------------

_META = re.compile(r"^!(\d+) = (?:distinct )?!(\w+)\((.*)\)\s*$")
_FIELD = re.compile(r'(\w+): (?:"((?:[^"\\]|\\.)*)"|!(\d+)|(-?\w+))')
_DEFINE = re.compile(r'^define [^@]*@("[^"]+"|[\w.$]+)\(.*!dbg !(\d+)')
_CALL = re.compile(r'\b(?:call|invoke)\b[^@%]*?(@"[^"]+"|@[\w.$]+|%[\w.]+)\(.*!dbg !(\d+)')
_DEMANGLE = (
    ("$LT$", "<"),
    ("$GT$", ">"),
    ("$u20$", " "),
    ("$RF$", "&"),
    ("$BP$", "*"),
    ("$C$", ","),
    ("$u5b$", "["),
    ("$u5d$", "]"),
    ("$u7b$", "{"),
    ("$u7d$", "}"),
    ("$LP$", "("),
    ("$RP$", ")"),
    ("$SP$", "@"),
    ("$u27$", "'"),
    ("$u3b$", ";"),
    ("$u7e$", "~"),
    ("$u21$", "!"),
    ("$u2b$", "+"),
    ("..", "::"),
)


def demangled(symbol: str) -> list[str]:
    """A legacy-mangled Rust symbol's path (`_ZN4core3fmt5write17h..E`: core, fmt, write), hash left out."""
    symbol = symbol.strip('"')
    if symbol.startswith("_R"):  # v0 mangling (a few of std's own): its identifiers, each after its length
        parts, at = [], 2
        while (m := re.compile(r"([1-9]\d*)([A-Za-z_])").search(symbol, at)) is not None:
            parts.append(symbol[m.start(2) : m.start(2) + int(m[1])])
            at = m.start(2) + int(m[1])
        return [p for p in parts if not re.fullmatch(r"\w?\d\w?", p)] or [symbol]  # not a crate's hash (`I1`)
    if not symbol.startswith("_ZN"):
        return [symbol]
    parts, at = [], 3
    while at < len(symbol) and symbol[at].isdigit():
        digits = re.match(r"\d+", symbol[at:])[0]  # type: ignore[index]
        at += len(digits)
        part = symbol[at : at + int(digits)]
        at += int(digits)
        for code, text in _DEMANGLE:
            part = part.replace(code, text)
        parts.append(part[1:] if part.startswith("_<") or part.startswith("_$") else part)
    if parts and re.fullmatch(r"h[0-9a-f]{16}", parts[-1]):
        parts.pop()
    return parts


def base_name(name: str) -> str:
    """A function's own name from a DISubprogram's (`try_fold<core::slice::iter::Iter<u8>, ...>`: try_fold)."""
    return name.split("<", 1)[0].strip()


def _value(field: re.Match[str]) -> str | int:
    """A metadata field's value: a string, a node's number, a plain number, or a word (`DIFlagPrototyped`)."""
    if field[2] is not None:
        return field[2]
    if field[3] is not None:
        return int(field[3])
    return int(field[4]) if field[4].lstrip("-").isdigit() else field[4]


class Module:
    """One .ll file: its debug metadata, its functions and their calls."""

    def __init__(self, text: str) -> None:
        self.meta: dict[int, tuple[str, dict[str, Any]]] = {}
        self.defined: dict[str, int] = {}  # linkage name -> its DISubprogram
        self.calls: list[tuple[str | None, int]] = []  # callee's linkage name (None: through a pointer), location
        lines = text.splitlines()
        for at, line in enumerate(lines):
            if "invoke " in line and "!dbg" not in line and not line.lstrip().startswith(";"):
                line += lines[at + 1]  # `to label %bb1 unwind label %cleanup, !dbg !N` is the next line
            if line.startswith("!"):
                m = _META.match(line)
                if m is not None:
                    fields = {f[1]: _value(f) for f in _FIELD.finditer(m[3])}
                    self.meta[int(m[1])] = (m[2], fields)
            elif line.startswith("define "):
                m = _DEFINE.match(line)
                if m is not None:
                    self.defined[m[1].strip('"')] = int(m[2])
            elif ("call" in line or "invoke" in line) and not line.lstrip().startswith(";"):
                m = _CALL.search(line)
                if m is not None and not m[1].startswith("@llvm."):
                    self.calls.append((m[1][1:].strip('"') if m[1].startswith("@") else None, int(m[2])))

    def subprogram(self, scope: int) -> int:
        """The DISubprogram a scope (a lexical block, a subprogram) belongs to."""
        while self.meta[scope][0] != "DISubprogram":
            scope = self.meta[scope][1]["scope"]
        return scope

    def file_of(self, subprogram: int) -> str:
        fields = self.meta[self.meta[subprogram][1]["file"]][1]
        return os.path.normpath(os.path.join(fields.get("directory", ""), fields["filename"]))

    def sites(self) -> list[tuple[int, int, int | None, str | None]]:
        """Every call: (the calling DISubprogram, the call's line, the called DISubprogram or None, the called linkage
        name or None: through a pointer). A call compiled as a call, and a call inlined, at its inlinedAt."""
        out = []
        for callee, location in self.calls:
            fields = self.meta[location][1]
            called = self.defined.get(callee) if callee else None
            out.append((self.subprogram(fields["scope"]), fields["line"], called, callee))
        for kind, fields in self.meta.values():
            if kind == "DILocation" and isinstance(fields.get("inlinedAt"), int):
                at = self.meta[fields["inlinedAt"]][1]
                inlined = self.subprogram(fields["scope"])
                out.append(
                    (self.subprogram(at["scope"]), at["line"], inlined, self.meta[inlined][1].get("linkageName"))
                )
        return out


@dataclass(frozen=True)
class Function:
    path: str  # in the crate's tree; "" for a function outside it
    line: int
    name: str  # its own name (`parse`, `{closure#0}`)
    full: str  # what it is: its demangled path, or its DISubprogram's name


def read_truth(root: Path, units: dict[str, Path]) -> dict[str, Any]:
    """The crate's call sites, by unit: caller (path, line, name) -> the functions called at each line."""
    sites = []
    indirect = set()
    functions: dict[str, Function] = {}
    for unit, path in units.items():
        module = Module(path.read_text())

        def function(subprogram: int | None, linkage: str | None, module: Module = module) -> Function:
            if subprogram is None:
                parts = demangled(linkage or "")
                return Function("", 0, parts[-1] if parts else "", "::".join(parts))
            fields = module.meta[subprogram][1]
            file = module.file_of(subprogram)
            inside = file.startswith(str(root) + os.sep) and "/target/" not in file
            name = base_name(fields.get("name", ""))
            full = "::".join(demangled(fields["linkageName"])) if "linkageName" in fields else fields.get("name", "")
            return Function(os.path.relpath(file, root) if inside else "", fields.get("line", 0), name, full)

        for linkage, subprogram in module.defined.items():  # a later unit may only declare it (a test's call)
            functions.setdefault(linkage, function(subprogram, linkage))
        for caller_sp, line, callee_sp, linkage in module.sites():
            caller = function(caller_sp, None)
            if not caller.path:
                continue  # a call inside code of std's, instantiated or inlined here
            if callee_sp is None and linkage is None:
                indirect.add((caller.path, caller.line, line))
                continue
            if callee_sp is None and linkage in functions:  # declared here, defined by another unit (the library)
                callee = functions[linkage]
            else:
                callee = function(callee_sp, linkage)
            sites.append((unit, caller, line, callee))
    return {
        "version": TRUTH_VERSION,
        "units": sorted(units),
        "sites": sorted({(u, *_fields(c), line, *_fields(e)) for u, c, line, e in sites}),
        "indirect": sorted(indirect),
    }


def _fields(f: Function) -> tuple[str, int, str, str]:
    return (f.path, f.line, f.name, f.full)


def ground_truth(mirrors: Path, cache: Path, crate: Crate) -> tuple[Path, dict[str, Any]]:
    """The crate's tree and its call sites as rustc compiled them (cached under `cache`)."""
    root = checkout(mirrors, cache, crate)
    saved = cache / f"truth-{crate.name}-{crate.tag}.json"
    if saved.exists():
        truth = json.loads(saved.read_text())
        if truth.get("version") == TRUTH_VERSION:
            return root, truth
    truth = read_truth(root, build_ir(root, cache, crate))
    saved.write_text(json.dumps(truth))
    return root, truth


# --- the index against it ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Site:
    caller: str  # the index's symbol
    path: str
    line: int
    name: str  # the callee's own name
    callee: str  # the index's symbol, or OUTSIDE or UNHELD and the demangled path


class Symbols:
    """The index's functions and methods, by file."""

    def __init__(self, conn: Any) -> None:
        self.by_path: dict[str, list[tuple[int, int, str, str]]] = defaultdict(list)
        self.names: dict[str, set[str]] = defaultdict(set)
        self.lines: dict[str, tuple[int, int]] = {}
        for row in conn.execute("SELECT id, name, path, start_line, end_line FROM symbols WHERE kind IN (?, ?)", _FN):
            self.by_path[row[2]].append((row[3], row[4], row[0], row[1]))
            self.names[row[1]].add(row[0])
            self.lines[row[0]] = (row[3], row[4])

    def holding(self, path: str, line: int, name: str | None) -> str | None:
        """The innermost function or method holding the line (of that name, unless None)."""
        holding = [s for s in self.by_path.get(path, ()) if s[0] <= line <= s[1] and name in (None, s[3])]
        return min(holding, key=lambda s: s[1] - s[0])[2] if holding else None


_FN = ("function", "method")
OUTSIDE = "outside: "  # a function outside the crate, by its demangled path
TRAIT_WRONG = "wrong, naming a trait's own method"
TRAIT_RUNS = "wrong, naming a trait's own method an impl of which runs"
# A blanket impl's method, which the crate has no symbol for: `<&mut T as bytes::buf::buf_impl::Buf>::remaining`
_BLANKET = re.compile(r" as (?:[\w:]*::)?(?P<trait>\w+)(?:<.*>)?>::(?P<name>\w+)$")
_IMPL_OF = re.compile(r"(?:^|\.)impl (?P<trait>[\w:]+?)(?:<.*>)? for ")
UNHELD = "no symbol: "  # a function of the crate's no symbol of ours holds (a derive's `eq`, at the derive)
_CLOSURE = "{closure#"


def spelled(text: str, name: str) -> bool:
    """Whether a source line spells a call of this name: `name(`, `name::<`, `.name(`, `::name(`."""
    return re.search(rf"(?<![\w]){re.escape(name)}\s*(?:\(|::<)", text) is not None


def sites_of(
    truth: dict[str, Any], symbols: Symbols
) -> tuple[set[Site], set[tuple[str, int]], dict[str, set[str]], Counter[str]]:
    """The crate's call sites as the index's symbols, the lines calling through a pointer, what each of the crate's
    functions without a symbol (a derive's `eq`) calls, and what was left out."""
    sites: set[Site] = set()
    left: Counter[str] = Counter()
    unheld: dict[str, set[str]] = defaultdict(set)
    for _unit, path, line, name, full, at, callee_path, callee_line, callee_name, callee_full in truth["sites"]:
        caller = symbols.holding(path, line, None if name.startswith(_CLOSURE) else name)
        callee = symbols.holding(callee_path, callee_line, callee_name) if callee_path else None
        if callee is None:
            callee = f"{UNHELD if callee_path else OUTSIDE}{callee_full}"
        if caller is None:
            left["calls by a function no symbol of ours holds (a derive's, a macro's)"] += 1
            unheld[f"{UNHELD}{full}"].add(callee)
            continue
        if not symbols.lines[caller][0] <= at <= symbols.lines[caller][1]:
            left["calls a macro's body makes where the caller expands it"] += 1
            continue
        if callee.startswith(UNHELD) and callee_name.startswith(_CLOSURE):
            left["calls of a closure"] += 1
            continue
        sites.add(Site(caller, path, at, callee_name, callee))
    indirect = set()
    for path, line, at in truth["indirect"]:
        caller = symbols.holding(path, line, None)
        if caller is not None:
            indirect.add((caller, at))
    return sites, indirect, unheld, left


def score(conn: Any, root: Path, truth: dict[str, Any]) -> dict[str, Any]:
    """Recall of the crate's spelled and implicit calls, precision at the sites the IR decides, with the wrong
    answers and the missed calls."""
    from codeannals.store import lookups
    from codeannals.store.callgraph import FOLLOWED
    from codeannals.store.rusttraits import THROUGH_FIELD

    symbols = Symbols(conn)
    line_of = Lines(root)
    sites, indirect, unheld, left = sites_of(truth, symbols)
    rows = lookups.symbol_rows(conn, {s.caller for s in sites} | {s.callee for s in sites})
    # each caller's callees answer: (line, name) -> target -> basis (None: a call there the index resolves to nothing)
    given: dict[str, dict[tuple[int, str], dict[str | None, str]]] = {}
    for caller in sorted({s.caller for s in sites} & rows.keys()):
        given[caller] = defaultdict(dict)
        for c in lookups.callees(conn, rows[caller], 100_000):
            for line in c["lines"]:  # each line the caller calls it on (the index keeps one row, with its lines)
                given[caller][(line, c["name"])].setdefault(c["target"], c["basis"])

    # recall: the callers answer of each of the crate's callees, and the caller's callees answer at the line
    callers: dict[str, list[dict[str, Any]]] = {}
    ours = [s for s in sites if s.callee in rows and s.callee != s.caller]
    for callee in sorted({s.callee for s in ours}):
        callers[callee] = lookups.callers(conn, rows[callee], 500)
    recall: dict[str, Counter[str]] = {"spelled": Counter(), "implicit": Counter()}
    missed: dict[str, list[dict[str, Any]]] = {"spelled": [], "implicit": []}
    for s in sorted(ours, key=lambda s: (s.path, s.line, s.callee)):
        kind = "spelled" if spelled(line_of(s.path, s.line), s.name) else "implicit"
        answers = [c for c in callers[s.callee] if c["caller"] == s.caller]
        followed = [c for c in answers if c["basis"] in FOLLOWED]
        here = given.get(s.caller, {}).get((s.line, s.name), {})
        # before the index kept every line of a call (unique_calls), only the first of a caller's calls of a name
        repeat = not here and any(
            line < s.line and name == s.name and targets.get(s.callee) in FOLLOWED
            for (line, name), targets in given.get(s.caller, {}).items()
        )
        recall[kind]["sites"] += 1
        recall[kind]["followed at the line"] += here.get(s.callee) in FOLLOWED
        recall[kind]["followed at the line or its first"] += here.get(s.callee) in FOLLOWED or repeat
        recall[kind]["followed"] += bool(followed)
        recall[kind]["any basis"] += bool(answers)
        if here.get(s.callee) not in FOLLOWED and not repeat:
            at_line = [f"{t} [{b}]" for t, b in here.items()] or [f"no call of `{s.name}` at this line"]
            elsewhere = sorted({f"{c['basis']} at {c['line']}" for c in answers}) or ["none"]
            shown = _shown(s, line_of, {"ours": at_line, "callers answer": elsewhere, "truth": s.callee})
            missed[kind].append(shown)

    # precision: at each (caller, line, name) the IR calls, the callees the index gives there
    called: dict[tuple[str, int, str], set[str]] = defaultdict(set)
    for s in sites:
        called[(s.caller, s.line, s.name)].add(s.callee)
    judged: Counter[str] = Counter()
    wrong, undecided = [], []
    # a trait's own method (`Buf::remaining`, declared with no body): what runs is an impl's
    trait_methods = {
        row[0]: row[1]
        for row in conn.execute(
            "SELECT s.id, t.name FROM symbols s JOIN symbols t ON t.id = s.parent"
            " WHERE s.kind = 'method' AND t.kind = 'trait'"
        )
    }
    impl_traits = {  # a method of `impl Buf for Cursor`: Buf
        row[0]: found["trait"].rpartition("::")[2]
        for row in conn.execute(
            "SELECT s.id, t.qualname FROM symbols s JOIN symbols t ON t.id = s.parent"
            " WHERE s.kind = 'method' AND t.kind = 'impl'"
        )
        if (found := _IMPL_OF.search(row[1]))
    }
    for caller, answers in given.items():
        for (line, name), targets in sorted(answers.items()):
            followed = {t: b for t, b in targets.items() if t is not None and b in FOLLOWED}
            truth_here = called.get((caller, line, name))
            if truth_here is None:
                judged["calls the IR does not decide"] += 1
                judged["followed answers not decided"] += len(followed)
                for target, basis in followed.items():
                    site = Site(caller, rows[caller]["path"], line, name, target)
                    undecided.append(_shown(site, line_of, {"ours": f"{target} [{basis}]"}))
                continue
            if (caller, line) in indirect and not followed.keys() <= truth_here:
                judged["calls on a line calling through a pointer"] += 1
                continue
            judged["call sites"] += 1
            baseline = symbols.names.get(name, set())
            judged["baseline answers"] += len(baseline)
            judged["baseline right"] += len(baseline & truth_here)
            derived = _through_derives(truth_here, unheld)
            for target, basis in sorted(followed.items()):
                judged["answers"] += 1
                right = target in truth_here or (basis == THROUGH_FIELD and target in derived)
                judged["right"] += right
                if basis == THROUGH_FIELD:
                    judged["through a field"] += 1
                    judged["through a field, right"] += right
                if not right:
                    judged[TRAIT_WRONG] += target in trait_methods
                    judged[TRAIT_RUNS] += target in trait_methods and any(
                        impl_traits.get(t) == trait_methods[target]
                        or ((found := _BLANKET.search(t)) is not None and found["trait"] == trait_methods[target])
                        for t in truth_here
                    )
                    site = Site(caller, rows[caller]["path"], line, name, target)
                    wrong.append(_shown(site, line_of, {"ours": f"{target} [{basis}]", "truth": sorted(truth_here)}))
    return {
        "left out": dict(left),
        "recall": recall,
        "precision": judged,
        "wrong": wrong,
        "missed": missed,
        "not decided": undecided,
    }


def _through_derives(called: set[str], unheld: dict[str, set[str]]) -> set[str]:
    """What the derives' functions called there run, through other derives' (`==` of Versions: Version's derived
    `eq` calls Prerelease's, which calls `Identifier::eq`)."""
    found: set[str] = set()
    todo = [c for c in called if c in unheld]
    while todo:
        for callee in unheld[todo.pop()] - found:
            found.add(callee)
            if callee in unheld:
                todo.append(callee)
    return found


def _shown(site: Site, line_of: Lines, more: dict[str, Any]) -> dict[str, Any]:
    return {"caller": site.caller, "at": f"{site.path}:{site.line}", "source": line_of(site.path, site.line), **more}


def figures(result: dict[str, Any]) -> str:
    lines = []
    for kind, label in (("spelled", "calls the source spells"), ("implicit", "implicit calls (operators, ?, Drop)")):
        r = result["recall"][kind]
        n = max(1, r["sites"])
        lines.append(
            f"  {label:<38} {r['sites']:>5} sites  recall followed at the line {r['followed at the line'] / n:.3f} "
            f"(or at the first call of the name {r['followed at the line or its first'] / n:.3f}), "
            f"followed {r['followed'] / n:.3f}, any basis (baseline) {r['any basis'] / n:.3f}"
        )
    p = result["precision"]
    lines.append(
        f"  precision at {p['call sites']} sites the IR decides: {p['right'] / max(1, p['answers']):.3f} of "
        f"{p['answers']} followed callees; name-only baseline {p['baseline right'] / max(1, p['baseline answers']):.3f}"
        f" of {p['baseline answers']}  ({p['calls the IR does not decide']} calls not decided, "
        f"{p['calls on a line calling through a pointer']} on a line calling through a pointer, "
        f"{p['followed answers not decided']} followed answers at calls not decided; "
        f"{p['through a field, right']} of {p['through a field']} `through a field` right; "
        f"{p[TRAIT_WRONG]} wrong answers name a trait's own method, {p[TRAIT_RUNS]} of them where the IR runs an "
        f"impl of it)\n  precision with a trait's own method right where the IR runs an impl of it (the method the "
        f"source names, as go-to-definition gives it): {(p['right'] + p[TRAIT_RUNS]) / max(1, p['answers']):.3f}"
    )
    return "\n".join(lines)


def summed(results: list[dict[str, Any]]) -> dict[str, Any]:
    total: dict[str, Any] = {"recall": {"spelled": Counter(), "implicit": Counter()}, "precision": Counter()}
    for result in results:
        for kind in ("spelled", "implicit"):
            total["recall"][kind].update(result["recall"][kind])
        total["precision"].update(result["precision"])
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mirrors", type=Path, default=Path(os.environ.get("LOCALIZE_MIRRORS", "/work/.mirror")))
    parser.add_argument("--cache", type=Path, default=Path("/tmp/facts_calls_rust"))
    parser.add_argument("--wrong", type=int, default=0, help="print this many wrong callees and missed calls a crate")
    parser.add_argument("--only", help="these crates only (comma-separated names)")
    parser.add_argument("--json", type=Path, help="write every figure, wrong answer and missed call here")
    args = parser.parse_args()
    from codeannals.store import open_store

    args.cache.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    results: dict[str, dict[str, Any]] = {}
    for crate in CRATES:
        if args.only and crate.name not in args.only.split(","):
            continue
        root, truth = ground_truth(args.mirrors, args.cache, crate)
        repo = indexed_copy(args.cache, crate.name, crate.tag, root)
        conn = open_store(repo / ".annals" / "annals.db")
        result = score(conn, repo, truth)
        conn.close()
        results[crate.name] = result
        held = " (hold-out)" if crate.holdout else ""
        print(f"{crate.name} {crate.tag}{held}: {', '.join(truth['units'])} compiled, {len(truth['sites'])} call sites")
        for why, n in sorted(result["left out"].items()):
            print(f"  left out: {n} {why}")
        print(figures(result))
        if args.wrong and not crate.holdout:
            print(f"  wrong callees (followed, not called there), {len(result['wrong'])}:")
            for w in result["wrong"][: args.wrong]:
                print(f"    {w['at']} {w['caller']}: `{w['source']}`\n      ours {w['ours']}; rustc {w['truth']}")
            print(f"  missed calls the source spells (not followed at the line), {len(result['missed']['spelled'])}:")
            for m in result["missed"]["spelled"][: args.wrong]:
                print(f"    {m['at']} {m['caller']}: `{m['source']}`\n      -> {m['truth']}; ours {m['ours']}")
                print(f"      callers answer: {m['callers answer']}")
    dev = [r for c in CRATES if c.name in results and not c.holdout for r in [results[c.name]]]
    held_out = [r for c in CRATES if c.name in results and c.holdout for r in [results[c.name]]]
    for label, among in (("total (dev crates)", dev), ("total (hold-out)", held_out)):
        if among:
            print(f"{label}:\n{figures(summed(among))}")
    print(f"({time.monotonic() - started:.0f} s)")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, default=list))


if __name__ == "__main__":
    main()
