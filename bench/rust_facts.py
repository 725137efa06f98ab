"""Rust facts the index serves, checked against the code itself (no truth written by others reaches here: the
crates registry is unreachable, so rustc cannot build these crates to say what they define or call).

    python bench/rust_facts.py [--work DIR] [--repo NAME ...] [--sample N]

On localize_bench's base indexes of its Rust repositories (built by `python bench/localize_bench.py`), prints:
- items in macro braces: symbols the index holds inside an item-level macro's braces (`pin_project! { pub
  struct Connection ... }`, indexer/parsing/rustmacros.py), which a grammar alone reads as tokens;
- methods of unnamed types: methods of `impl ... for [u8]`, `&'a str`, `dyn Io + Send`, once free functions;
- `use` of one name: whether the file a `use a::b::Name;` resolves to defines Name, re-exports it, declares it
  as a module, or is that module, or none of these (`unexplained`: the resolver's miss, or a name from
  outside re-exported, `pub use http::header;`);
- callers: for N functions and methods (seeded), the call sites of their names (the baseline: any call by the
  name, as a grep would count) and those Rust's rules keep (store/rustcalls.py), by basis;
- call syntax: the callees answers the call's own syntax rules out (`watch::channel(0)` no method's, `rx.close()`
  no function's), on a trusted basis and as guesses by name (bench/call_syntax.py).
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import sys
from collections import Counter
from pathlib import Path

RUST_REPOS = ("ripgrep", "hyper", "actix", "axum", "tokio")


def macro_items(root: Path, conn: sqlite3.Connection) -> int:
    """Symbols whose first line is inside an item-level macro wrapper of their file."""
    from codeannals.indexer.parsing.parse import parse
    from codeannals.indexer.parsing.rustmacros import unwrapped

    found = 0
    for (path,) in conn.execute("SELECT path FROM files WHERE path LIKE '%.rs' AND status = 'indexed'"):
        source = (root / path).read_bytes()
        _, wrappers = unwrapped(source, parse(source, "rust"), lambda text: parse(text, "rust"))
        spans = [(w.start_point[0] + 1, w.end_point[0] + 1) for w in wrappers]
        if spans:
            lines = [r[0] for r in conn.execute("SELECT start_line FROM symbols WHERE path = ?", (path,))]
            found += sum(any(a < line <= b for a, b in spans) for line in lines)
    return found


def unnamed_type_methods(conn: sqlite3.Connection) -> int:
    from codeannals.store.rustnames import owner_type

    rows = conn.execute("SELECT kind, qualname FROM symbols WHERE kind = 'method' AND path LIKE '%.rs'")
    return sum(not (owner_type(r) or "x").isidentifier() for r in rows)


def use_consistency(conn: sqlite3.Connection) -> Counter[str]:
    defined: dict[str, set[str]] = {}
    for path, name in conn.execute("SELECT path, name FROM symbols"):
        defined.setdefault(path, set()).add(name)
    bound: dict[str, set[str]] = {}
    for path, names, alias, kind, module in conn.execute("SELECT path, names, bound, kind, module FROM imports"):
        bound.setdefault(path, set()).update(json.loads(names or "[]"), [alias] if alias else [])
        if kind == "mod":
            bound[path].add(module)
    stars = {p for (p,) in conn.execute("""SELECT path FROM imports WHERE names = '["*"]'""")}
    out: Counter[str] = Counter()
    query = "SELECT names, target FROM imports WHERE kind = 'use' AND target IS NOT NULL AND path LIKE '%.rs'"
    for names, target in conn.execute(query):
        one = json.loads(names)
        if len(one) != 1 or one[0] == "*":
            continue
        name, (folder, stem) = one[0], (target.rsplit("/", 2)[-2], target.rsplit("/", 1)[-1][:-3])
        if stem == name or (stem == "mod" and folder == name):
            out["the module itself"] += 1
        elif name in defined.get(target, ()):
            out["defined there"] += 1
        elif name in bound.get(target, ()):
            out["re-exported or declared there"] += 1
        elif target in stars:
            out["maybe through a glob"] += 1
        else:
            out["unexplained"] += 1
    return out


def callers_by_basis(conn: sqlite3.Connection, sample: int) -> tuple[int, Counter[str]]:
    from codeannals.store import callgraph
    from codeannals.store.symbol import symbol_dict

    rows = conn.execute(
        "SELECT * FROM symbols WHERE kind IN ('function', 'method') AND path LIKE '%.rs' ORDER BY id"
    ).fetchall()
    chosen = random.Random(3).sample(rows, min(sample, len(rows)))
    query = "SELECT COUNT(*) FROM calls WHERE name = ? AND caller IS NOT ?"
    by_name = sum(conn.execute(query, (r["name"], r["id"])).fetchone()[0] for r in chosen)
    kept: Counter[str] = Counter()
    for r in chosen:
        kept.update(c["basis"] for c in callgraph.callers(conn, symbol_dict(r), limit=10_000))
    return by_name, kept


def main() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import localize_bench
    from call_syntax import call_syntax, report

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=localize_bench.DEFAULT_WORK, help="localize_bench's --work")
    parser.add_argument("--repo", action="append", choices=RUST_REPOS, help="only this repository (repeatable)")
    parser.add_argument("--sample", type=int, default=400, help="functions and methods whose callers are counted")
    args = parser.parse_args()
    from codeannals.store.db import connect

    for name in args.repo or RUST_REPOS:
        spec = localize_bench.REPOS[name]
        root = args.work / "idx" / f"{name}-{spec.base}"
        if not (root / ".annals" / "bench-indexed").exists():
            sys.exit(f"no base index of {name} under {args.work}: run python bench/localize_bench.py first")
        conn = connect(root / ".annals" / "annals.db", readonly=True)
        symbols = conn.execute("SELECT COUNT(*) FROM symbols WHERE path LIKE '%.rs'").fetchone()[0]
        by_name, kept = callers_by_basis(conn, args.sample)
        print(f"\n{name} ({spec.github} at {spec.base}): {symbols} symbols")
        print(f"  items in macro braces: {macro_items(root, conn)}")
        print(f"  methods of unnamed types: {unnamed_type_methods(conn)}")
        print(f"  `use` of one name: {dict(use_consistency(conn).most_common())}")
        print(f"  callers of {args.sample} functions and methods: {by_name} call sites by name alone (baseline);")
        print(f"    kept by Rust's rules {sum(kept.values())}: {dict(kept.most_common())}")
        print("\n".join(report(call_syntax(root, conn))))
        conn.close()


if __name__ == "__main__":
    main()
