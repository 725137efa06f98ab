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
- call syntax: the index keeps `watch::channel(0)` and `watch.channel()` alike, as qualified by `watch`; the
  source line of each call qualified by one lowercase word that names no type of ours says which it is (a path
  or a value; a line with both, or neither, is left out), and a path's call is never a method's (the word is a
  module or a crate), a value's never a function's. The callees answers Rust's syntax rules out, on a trusted
  basis and as guesses by name, over those the answers resolve.
"""

from __future__ import annotations

import argparse
import json
import random
import re
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


def call_syntax(root: Path, conn: sqlite3.Connection) -> Counter[str]:
    """Callees answers of calls qualified by one lowercase word, against the call's syntax in its source line."""
    from codeannals.store import callgraph, queries

    kinds = dict(conn.execute("SELECT id, kind FROM symbols WHERE path LIKE '%.rs'").fetchall())
    type_kinds = "('struct', 'enum', 'union', 'trait', 'type')"
    types = {n for (n,) in conn.execute(f"SELECT name FROM symbols WHERE path LIKE '%.rs' AND kind IN {type_kinds}")}
    lines: dict[str, list[str]] = {}
    wanted: dict[str, set[tuple[int, str, str, str]]] = {}
    query = "SELECT * FROM calls WHERE path LIKE '%.rs' AND caller IS NOT NULL AND qualifier GLOB '[a-z_]*'"
    for r in conn.execute(query):
        word, name = r["qualifier"], r["name"]
        if not re.fullmatch(r"[a-z_][a-z0-9_]*", word) or word == "self" or word in types:
            continue  # a lowercase type's function is a method (hyper's C API: `hyper_task::boxed(f)`)
        if r["path"] not in lines:
            lines[r["path"]] = (root / r["path"]).read_text(encoding="utf-8", errors="replace").splitlines()
        text = lines[r["path"]][r["line"] - 1] if r["line"] <= len(lines[r["path"]]) else ""
        path = re.search(rf"\b{word}\s*::\s*{re.escape(name)}\b", text) is not None
        value = re.search(rf"\b{word}\s*\.\s*{re.escape(name)}\b", text) is not None
        if path != value:
            wanted.setdefault(r["caller"], set()).add((r["line"], word, name, "path" if path else "value"))
    out: Counter[str] = Counter()
    for caller, sites in wanted.items():
        symbol = queries.find_symbol(conn, caller)
        answers = {(c["line"], c["qualifier"], c["name"]): c for c in callgraph.callees(conn, symbol, limit=10_000)}
        for line, word, name, syntax in sites:
            answer = answers.get((line, word, name))
            if answer is None or answer["target"] is None:
                continue
            out[f"{syntax} resolved"] += 1
            ruled_out = kinds.get(answer["target"]) == ("method" if syntax == "path" else "function")
            if ruled_out:
                out[f"{syntax} ruled out, {'guessed' if answer['basis'] == 'name only' else 'trusted'}"] += 1
    return out


def main() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import localize_bench

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
        syntax = call_syntax(root, conn)
        for kind in ("path", "value"):
            ruled = ", ".join(f"{syntax[f'{kind} ruled out, {b}']} {b}" for b in ("trusted", "guessed"))
            print(
                f"  callees of `x{'::' if kind == 'path' else '.'}f` calls: {syntax[f'{kind} resolved']} resolved, "
                f"ruled out by the syntax: {ruled}"
            )
        conn.close()


if __name__ == "__main__":
    main()
