"""The callees answers a call's own syntax rules out, in Rust, C and C++ indexes.

    python bench/call_syntax.py DIR...

Each DIR an indexed tree (with its .annals/). The index keeps a call by its name and what qualifies it. In C++ a
qualifier of one word is kept the same way whether the code wrote a path or a value (`ns::f()` and `obj.f()`,
`obj->f()`), and so it was in Rust (`watch::channel(0)` and `watch.channel()`) until the index kept a Rust path's
`::` (`watch::`). The source line of the call says which; a line with both forms of the call, or neither, is left
out. Then:
- a value's call is never a free function's, in Rust and C++ (`rx.close()`, `mock.AsStdFunction()`); in C it may be
  (`req->work_cb(req)` calls what a struct's field holds, perhaps a function of that name), and is not counted;
- in Rust, a path's call whose word is lowercase and names no type of ours (`watch::channel`, `tokio::spawn`) is a
  module's or a crate's function, never a method (a lowercase type's is: hyper's C API, `hyper_task::boxed(f)`).
For each language, the answers resolved and those ruled out, on a trusted basis and as guesses by name. No truth by
others here: the code itself, read as the language reads it. bench/rust_facts.py prints this for localize_bench's
Rust bases.
"""

from __future__ import annotations

import argparse
import re
import sqlite3
from collections import Counter
from pathlib import Path

_WORD = re.compile(r"[A-Za-z_]\w*")
_TYPE_KINDS = ("struct", "enum", "union", "trait", "type", "class")
_LANGUAGES = ("rust", "c", "cpp")


def call_syntax(root: Path, conn: sqlite3.Connection) -> Counter[tuple[str, str]]:
    """(language, what) -> count: `path resolved`, `value resolved`, and `... ruled out, trusted` / `guessed`."""
    from codeannals.store import callgraph, queries

    kinds = dict(conn.execute("SELECT id, kind FROM symbols").fetchall())
    languages = {p: lang for p, lang in conn.execute("SELECT path, language FROM files") if lang in _LANGUAGES}
    marks = ", ".join("?" * len(_TYPE_KINDS))
    types = {n for (n,) in conn.execute(f"SELECT name FROM symbols WHERE kind IN ({marks})", _TYPE_KINDS)}
    lines: dict[str, list[str]] = {}
    wanted: dict[str, set[tuple[int, str, str, str]]] = {}
    for r in conn.execute("SELECT * FROM calls WHERE caller IS NOT NULL AND qualifier IS NOT NULL"):
        stored, name, language = r["qualifier"], r["name"], languages.get(r["path"])
        word = stored.removesuffix("::")
        if language is None or not _WORD.fullmatch(word) or word in ("self", "this"):
            continue
        if r["path"] not in lines:
            lines[r["path"]] = (root / r["path"]).read_text(encoding="utf-8", errors="replace").splitlines()
        text = lines[r["path"]][r["line"] - 1] if r["line"] <= len(lines[r["path"]]) else ""
        path = re.search(rf"\b{word}\s*::\s*{re.escape(name)}\b", text) is not None
        value = re.search(rf"\b{word}\s*(?:\.|->)\s*{re.escape(name)}\b", text) is not None
        if path == value:
            continue
        syntax = "path" if path else "value"
        if syntax == "path" and (language != "rust" or not word.islower() or word in types):
            continue  # `Conn::new`, C++'s `Class::method`, a lowercase type's function: a method may be meant
        wanted.setdefault(r["caller"], set()).add((r["line"], stored, name, syntax))
    out: Counter[tuple[str, str]] = Counter()
    for caller, sites in wanted.items():
        symbol = queries.find_symbol(conn, caller)
        language = languages[symbol["path"]]
        answers = {(c["line"], c["qualifier"], c["name"]): c for c in callgraph.callees(conn, symbol, limit=10_000)}
        for line, stored, name, syntax in sites:
            answer = answers.get((line, stored, name))
            if answer is None or answer["target"] is None:
                continue
            out[language, f"{syntax} resolved"] += 1
            if kinds.get(answer["target"]) == ("method" if syntax == "path" else "function") and language != "c":
                out[language, f"{syntax} ruled out, {'guessed' if answer['basis'] == 'name only' else 'trusted'}"] += 1
    return out


def report(counts: Counter[tuple[str, str]]) -> list[str]:
    """A line per language and form of call: resolved, and ruled out by the syntax (trusted, guessed)."""
    out = []
    for language in sorted({lang for lang, _ in counts}):
        for syntax, written in (("path", "x::f"), ("value", "x.f")):
            resolved = counts[language, f"{syntax} resolved"]
            if resolved:
                trusted, guessed = (counts[language, f"{syntax} ruled out, {b}"] for b in ("trusted", "guessed"))
                counted = language != "c" or syntax == "path"
                ruled = f"{trusted} trusted, {guessed} guessed" if counted else "not counted"
                out.append(f"  {language} `{written}` calls: {resolved} resolved, ruled out by the syntax: {ruled}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("roots", type=Path, nargs="+", help="indexed trees (each with its .annals/)")
    args = parser.parse_args()
    from codeannals.store.db import connect

    for root in args.roots:
        conn = connect(root / ".annals" / "annals.db", readonly=True)
        print(root.name)
        print("\n".join(report(call_syntax(root, conn))) or "  no Rust, C or C++ call qualified by one word")
        conn.close()


if __name__ == "__main__":
    main()
