"""Tests to run in a Rust crate, against the functions each of its tests really enters.

    python bench/facts_tests_rust.py [--mirrors DIR] [--cache DIR]

The crates registry is unreachable here, so only a crate that builds with no dependency can run: its optional
dependencies, dev-dependencies and benches are dropped from a copy of its Cargo.toml (dtolnay/semver at 1.0.27:
serde, optional, and criterion, for its benches). Ground truth written by others: `cargo test -- --list` names
every test (doc tests aside), and each test binary runs one test at a time under gdb with a breakpoint on every
function gdb's symbol table gives the crate (the rustc here speaks a newer LLVM than the machine's llvm-cov, so no
coverage report can be read); the functions a test stops in are those it entered. The tree as built is indexed
with this checkout's `annals index --no-vectors --wait`, and for every function some test enters (our innermost
function or method whose lines hold gdb's line for it), `impact` lists its tests; scored as bench/facts_tests.py
scores them (recall and precision of the tests listed, averaged over the functions; precision over the functions
it lists any test for), beside two baselines: every test of the crate, and the tests whose text names the
function. Before 2026-12-05 every Rust answer said "tests unknown" (recall 0).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from facts_tests import ANNALS, indexed_copy, run, score  # noqa: E402  (bench/ is not a package)
from facts_tests_js import tag_tree  # noqa: E402

CRATE = ("semver", "dtolnay/semver", "1.0.27")
# Run inside gdb: a breakpoint on each function of the crate (gdb's own listing), each disabled at its first stop.
GDB_SCRIPT = r"""
import gdb, os, re
gdb.execute("set pagination off")
gdb.execute("set confirm off")
gdb.execute("set breakpoint pending off")
crate, current, spots = os.environ["CRATE"], None, set()
for line in gdb.execute("info functions .", to_string=True).splitlines():
    if line.startswith("File "):
        current = line[5:].rstrip(":") if line[5:].startswith("src/") else None
    elif current and (m := re.match(r"^(\d+):\s+(?:static )?fn (\S+)", line)) and m.group(2).startswith(crate + "::"):
        spots.add((current, int(m.group(1))))
for path, number in sorted(spots):
    try:
        gdb.execute(f"break {path}:{number}", to_string=True)
    except gdb.error:
        pass
out = open(os.environ["HITS_OUT"], "w")
def stop(event):
    if isinstance(event, gdb.BreakpointEvent):
        for bp in event.breakpoints:
            out.write(f"{bp.location}\n")
            bp.enabled = False
gdb.events.stop.connect(stop)
gdb.execute("run", to_string=True)
while True:
    try:
        gdb.execute("continue", to_string=True)
    except gdb.error:
        break
out.close()
"""


def default_cache() -> Path:
    return Path(os.environ.get("ANNALS_FACTS_TESTS_RUST_CACHE", "/work/corpora/tests_rust"))


def buildable(root: Path) -> None:
    """The crate's Cargo.toml without what the registry would have to give: optional and dev-dependencies,
    target-specific dependencies, benches, and the features naming `dep:` crates."""
    manifest = root / "Cargo.toml"
    kept, table = [], ""
    for line in manifest.read_text().splitlines():
        if line.startswith("["):
            table = line.strip()
        whole = "dev-dependencies" in table or table == "[[bench]]" or table.startswith("[target.")
        optional = table == "[dependencies]" and "optional = true" in line
        feature = table == "[features]" and "dep:" in line
        if not (whole or optional or feature):
            kept.append(line)
    manifest.write_text("\n".join(kept) + "\n")


def ground_truth(cache: Path, root: Path, crate: str) -> dict[str, Any]:
    """Every test (`tests/x.rs::name`, `src/lib.rs::tests::name`) and the crate functions it enters."""
    path = cache / f"truth-{root.name}.json"
    if path.exists():
        return json.loads(path.read_text())
    script = cache / "gdb_hits.py"
    script.write_text(GDB_SCRIPT)
    listed = run(["sh", "-c", "cargo test --offline -- --list 2>&1"], root)
    binaries = {m.group(1): m.group(2) for m in re.finditer(r"Running (?:unittests )?(\S+) \((\S+)\)", listed)}
    run(["cargo", "test", "--offline", "--no-run", "-q"], root)
    tests, entered = [], defaultdict(set)
    for source, binary in binaries.items():
        listing = run([str(root / binary), "--list"], root).splitlines()
        for name in (line.removesuffix(": test") for line in listing if line.endswith(": test")):
            test = f"{source}::{name}"
            tests.append(test)
            hits = cache / "hits.txt"
            gdb = ["gdb", "-q", "-batch", "-x", str(script), "--args", str(root / binary), "--exact", name]
            run([*gdb, "--test-threads=1"], root, {"CRATE": crate, "HITS_OUT": str(hits)})
            for spot in hits.read_text().split():
                entered[spot].add(test)
    truth = {"tests": tests, "entered": {spot: sorted(t) for spot, t in sorted(entered.items())}}
    path.write_text(json.dumps(truth, indent=1))
    return truth


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mirrors", type=Path, default=Path(os.environ.get("LOCALIZE_MIRRORS", "/work/.mirror")))
    parser.add_argument("--cache", type=Path, default=default_cache())
    args = parser.parse_args()
    from codeannals.store import queries
    from codeannals.store.db import connect

    name, github, tag = CRATE
    args.cache.mkdir(parents=True, exist_ok=True)
    root = tag_tree(args.mirrors, args.cache, github, name, tag)
    buildable(root)
    truth = ground_truth(args.cache, root, name)
    repo = indexed_copy(args.cache, name, tag, root)
    run([ANNALS, "-C", str(repo), "index", "--no-vectors", "--wait"], repo)
    conn = connect(repo / ".annals" / "annals.db", readonly=True)
    tests = set(truth["tests"])
    texts = {}
    for test in tests:  # each test's own lines, for the baseline naming the function
        path, _, qualname = test.partition("::")
        at = (path, qualname.replace("::", "."))
        row = conn.execute("SELECT start_line, end_line FROM symbols WHERE path = ? AND qualname = ?", at).fetchone()
        texts[test] = "\n".join((repo / path).read_text().splitlines()[row[0] - 1 : row[1]]) if row else ""
    reached: dict[str, set[str]] = defaultdict(set)
    for spot, entering in truth["entered"].items():
        path, line = spot.rsplit(":", 1)
        row = conn.execute(
            "SELECT id FROM symbols WHERE path = ? AND kind IN ('function', 'method') AND start_line <= ? AND"
            " end_line >= ? ORDER BY start_line DESC LIMIT 1",
            (path, int(line), int(line)),
        ).fetchone()
        if row is not None:  # none: a derive's function, at the derive's line
            reached[row[0]].update(entering)
    ours, every, naming = [], [], []
    for symbol, truth_tests in sorted(reached.items()):
        listed = {t for t in queries.impact(conn, symbol, root=repo)["tests"] if t in tests}
        word = re.escape(symbol.rsplit("::", 1)[1].rsplit(".", 1)[-1])
        named = {t for t, text in texts.items() if re.search(rf"\b{word}\b", text)}
        ours.append((score(listed, truth_tests), bool(listed)))
        every.append((score(tests, truth_tests), True))
        naming.append((score(named, truth_tests), bool(named)))
    conn.close()
    print(f"{name} {tag}: {len(tests)} tests, {len(reached)} functions some test enters")
    for label, results in (("impact", ours), ("every test", every), ("tests naming it", naming)):
        recall = sum(r for (r, _), _ in results) / len(results)
        answered = [p for (_, p), listed in results if listed]
        precision = sum(answered) / len(answered) if answered else 0.0
        print(f"  {label:<16} recall {recall:.3f}  precision {precision:.3f} (over the {len(answered)} answered)")


if __name__ == "__main__":
    main()
