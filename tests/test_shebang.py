"""Scripts with no extension (bin/rails, exe/rake, script/bootstrap) are read as the language of the command their
`#!` line runs, by one rule (parse.language_of) that the work tree's index, the staged blobs, `annals state`, the
symbol history and diff-symbols share."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from codeannals.indexer.git.githistory import backfill, symbol_at
from codeannals.indexer.git.gitstate import stale_symbols
from codeannals.indexer.git.staged import index_staged
from codeannals.indexer.git.symdiff import diff_symbols
from codeannals.indexer.parsing.parse import EXTENSIONS, INTERPRETERS, language, language_of, may_have_language
from codeannals.indexer.run import index_tree
from codeannals.store import open_store
from codeannals.store.history import symbol_timeline

from .conftest import Repo

TOOL = "#!/usr/bin/env python3\nfrom mypkg.cli import run\n\n\ndef main():\n    return run([])\n"
APP = '#!/usr/bin/env ruby\nrequire "app"\n\ndef launch\n  App.new.start\nend\n'


@pytest.mark.parametrize(
    ("first_line", "lang"),
    [
        (b"#!/usr/bin/env python3", "python"),
        (b"#!/usr/bin/python3.12 -u", "python"),
        (b"#! /usr/local/bin/python", "python"),
        (b"#!/usr/bin/env python3\r", "python"),  # a CRLF file
        (b"#!/usr/bin/ruby -w", "ruby"),
        (b"#!/usr/bin/env ruby", "ruby"),
        (b"#!/usr/bin/env -S ruby -w", "ruby"),
        (b"#!/usr/bin/env -S LANG=C node --no-warnings", "javascript"),
        (b"#!/usr/bin/env nodejs", "javascript"),
        (b"#!/usr/bin/env bun", "javascript"),
        (b"#!/usr/bin/env ts-node", "typescript"),
        (b"#!/bin/sh", "bash"),
        (b"#!/usr/bin/env zsh", "bash"),
        (b"#!/usr/bin/perl -w", "perl"),
        (b"#!/usr/bin/env Rscript", "r"),
        (b"#!/usr/bin/env", None),
        (b"#!/usr/bin/awk -f", None),  # no grammar of tree-sitter-language-pack reads awk
        (b"# a comment, not a #! line", None),
        (b"MIT License", None),
    ],
)
def test_a_file_with_no_extension_is_read_as_the_language_its_shebang_runs(first_line: bytes, lang: str | None) -> None:
    assert language_of("bin/tool", first_line + b"\nrest = 1\n") == lang


def test_only_a_file_with_no_extension_is_read_by_its_shebang() -> None:
    ruby = b"#!/usr/bin/env ruby\nputs 1\n"
    assert language_of("tool.py", ruby) == "python"  # its extension says
    assert language_of("tool.cgi", ruby) is None  # an extension no grammar reads stays skipped
    assert language_of("Makefile", ruby) == "make"  # a name FILENAMES knows keeps its grammar
    assert language_of("LICENSE", b"MIT License\n") is None
    # What a caller must read to decide: an extensionless file, never one with an extension no grammar reads, nor a
    # project's document (LICENSE, CHANGES: history would read each of their versions)
    assert may_have_language("bin/tool") and may_have_language("scripts/bootstrap") and may_have_language("a.py")
    assert not may_have_language("tool.cgi") and not may_have_language("notes.txt")
    assert not may_have_language("LICENSE") and not may_have_language("docs/ChangeLog")
    assert language_of("CHANGES", ruby) is None


def test_every_interpreter_is_read_by_a_grammar_of_the_table() -> None:
    assert set(INTERPRETERS.values()) <= set(EXTENSIONS.values())
    for name in set(INTERPRETERS.values()):
        assert language(name) is not None


def _scripts(repo: Repo) -> None:
    repo.write("mypkg/__init__.py", "")
    repo.write("mypkg/cli.py", "def run(argv):\n    return 0\n")
    repo.write("bin/tool", TOOL)
    repo.write("lib/app.rb", "class App\n  def start\n  end\nend\n")
    repo.write("exe/app", APP)
    repo.write("LICENSE", "MIT License\n")
    repo.write("Makefile", "all:\n\techo hi\n")


def test_scripts_are_indexed_in_their_language_and_their_imports_resolve(repo: Repo, db_path: Path) -> None:
    _scripts(repo)
    repo.commit("scripts")
    conn = open_store(db_path)
    report = index_tree(repo.root, conn)
    assert [(s["path"], s["reason"]) for s in report.skips] == [("LICENSE", "no grammar")]
    languages = dict(conn.execute("SELECT path, language FROM files").fetchall())
    assert (languages["bin/tool"], languages["exe/app"], languages["Makefile"]) == ("python", "ruby", "make")
    assert languages["LICENSE"] is None
    symbols = {r[0] for r in conn.execute("SELECT id FROM symbols WHERE path IN ('bin/tool', 'exe/app')")}
    assert symbols == {"bin/tool::main", "exe/app::launch"}
    edges = {tuple(r) for r in conn.execute("SELECT path, target FROM resolved_imports WHERE target IS NOT NULL")}
    assert ("bin/tool", "mypkg/cli.py") in edges and ("exe/app", "lib/app.rb") in edges
    assert index_tree(repo.root, conn).events == 0
    conn.close()


def test_staged_scripts_and_the_state_read_them_as_the_work_tree_does(repo: Repo, db_path: Path) -> None:
    """The pre-commit hook's index of staged blobs and `annals state` (HEAD vs the work tree) read a script's
    language from its bytes too."""
    _scripts(repo)
    repo.git("add", "-A")
    conn = open_store(db_path)
    staged = index_staged(repo.root, conn, source="hook")
    assert [(s["path"], s["reason"]) for s in staged.skips] == [("LICENSE", "no grammar")]
    languages = dict(conn.execute("SELECT path, language FROM files").fetchall())
    assert (languages["bin/tool"], languages["exe/app"]) == ("python", "ruby")
    repo.commit("scripts")
    index_tree(repo.root, conn)
    repo.write("bin/tool", TOOL.replace("run([])", "run(['--help'])"))
    stale, _ = stale_symbols(repo.root, conn, source="cli")
    assert [(s["id"], s["reasons"]) for s in stale] == [("bin/tool::main", ["differs from the work tree"])]
    conn.close()


def test_a_scripts_history_and_symbol_diff_see_its_functions(repo: Repo, db_path: Path) -> None:
    repo.write("LICENSE", "MIT License\n")
    repo.write("bin/tool", TOOL)
    born = repo.commit("a script")
    repo.write("LICENSE", "MIT License\n\nCopyright\n")
    repo.write("bin/tool", TOOL.replace("def main():", "def main(argv=None):") + "\n\ndef usage():\n    return 1\n")
    changed = repo.commit("a script grows")
    conn: sqlite3.Connection = open_store(db_path)
    result = diff_symbols(repo.root, conn, born, changed)
    statuses = {c["id"]: (c["status"], c.get("changed")) for c in result["changed_symbols"]}
    assert statuses == {"bin/tool::main": ("modified", "signature"), "bin/tool::usage": ("added", None)}
    assert result["unparsed_files"] == []  # LICENSE has no grammar: no symbols, and nothing left unread
    backfill(repo.root, conn)
    steps = [e["commit"] for e in symbol_timeline(conn, "bin/tool::main") if e["type"] == "commit.recorded"]
    assert steps == [born, changed]
    assert symbol_at(repo.root, conn, "bin/tool::main", born)["signature"] == "def main()"
    conn.close()
