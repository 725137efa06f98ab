"""Symbol-level diffs between revisions of real repositories."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from codeannals.indexer.git.gitcmd import BadRef
from codeannals.indexer.git.symdiff import SymbolDiffer, diff_symbols, resolve
from codeannals.store import open_store

BASE = '''\
def alpha(x, y):
    """Add with a loop."""
    total = x + y
    for i in range(10):
        total += i * x
    return total


def beta(x):
    return x * 2


class Gamma:
    def method(self, a):
        return [a, a, a, a + 1]


def travels(q):
    value = q ** 2 + q ** 3 + q ** 4
    return value - 1


def renamed_me(items):
    out = []
    for item in items:
        out.append(item * 3 + 1)
    return out


def doomed():
    return "bye"
'''

CHANGED = '''\
def alpha(x,y):
    """Add with a loop."""
    # a comment and new layout change nothing
    total = x + y

    for i in range(10):
        total += i * x
    return total


def beta(x, scale=2):
    return x * 2


class Gamma:
    def method(self, a):
        return [a, a, a, a + 2]


def new_name(items):
    out = []
    for item in items:
        out.append(item * 3 + 1)
    return out


def fresh():
    return 4
'''

MOVED = """\
def travels(q):
    value = q ** 2 + q ** 3 + q ** 4
    return value - 1
"""


@pytest.fixture
def conn(tmp_path: Path):
    connection = open_store(tmp_path / "annals.db")
    yield connection
    connection.close()


@pytest.fixture
def history(repo):
    repo.write("pkg/mod.py", BASE)
    first = repo.commit("base")
    repo.write("pkg/mod.py", CHANGED)
    repo.write("pkg/other.py", MOVED)
    second = repo.commit("change")
    return repo, first, second


def by_id(items: list[dict]) -> dict[str, dict]:
    return {item["id"]: item for item in items}


def test_signature_body_layout_rename_move_add_delete(history, conn) -> None:
    repo, first, second = history
    result = diff_symbols(repo.root, conn, first, second)
    changed = by_id(result["changed_symbols"])
    assert "pkg/mod.py::alpha" not in changed  # layout and a comment only
    assert changed["pkg/mod.py::beta"]["changed"] == "signature"
    assert changed["pkg/mod.py::beta"]["status"] == "modified"
    assert changed["pkg/mod.py::Gamma.method"]["changed"] == "body"
    assert changed["pkg/mod.py::fresh"]["status"] == "added"
    assert changed["pkg/mod.py::fresh"]["before_hash"] is None
    assert changed["pkg/mod.py::beta"]["before_hash"] != changed["pkg/mod.py::beta"]["after_hash"]
    assert [d["id"] for d in result["deleted_symbols"]] == ["pkg/mod.py::doomed"]
    renames = {(r["from"], r["to"]): r for r in result["renamed_symbols"]}
    move = renames[("pkg/mod.py::travels", "pkg/other.py::travels")]
    assert move["similarity"] == 1.0 and move["also_modified"] is False
    rename = renames[("pkg/mod.py::renamed_me", "pkg/mod.py::new_name")]
    assert rename["similarity"] == 1.0 and rename["also_modified"] is False
    assert len(renames) == 2
    assert result["confidence"] > 0.5


def test_renamed_and_modified_symbol_is_one_rename_with_also_modified(repo, conn) -> None:
    repo.write("a.py", BASE)
    first = repo.commit()
    repo.write(
        "a.py",
        BASE.replace("def renamed_me(items):", "def spread(items, extra=0):").replace(
            "item * 3 + 1", "item * 3 + extra"
        ),
    )
    second = repo.commit()
    result = diff_symbols(repo.root, conn, first, second)
    (rename,) = result["renamed_symbols"]
    assert (rename["from"], rename["to"]) == ("a.py::renamed_me", "a.py::spread")
    assert rename["also_modified"] is True and rename["changed"] == "both"
    assert 0.75 <= rename["similarity"] < 1.0
    assert result["deleted_symbols"] == [] and result["changed_symbols"] == []


def test_git_file_rename_moves_every_symbol(repo, conn) -> None:
    repo.write("old/place.py", BASE)
    first = repo.commit()
    repo.git("mv", "old/place.py", "new_place.py")
    second = repo.commit()
    result = diff_symbols(repo.root, conn, first, second)
    assert result["changed_symbols"] == [] and result["deleted_symbols"] == []
    moved = {(r["from"], r["to"]) for r in result["renamed_symbols"]}
    assert ("old/place.py::Gamma.method", "new_place.py::Gamma.method") in moved
    assert len(moved) == 7


def test_a_minified_bundle_moved_is_no_rename_of_each_of_its_symbols(repo, conn) -> None:
    """A bundle's symbols on one minified line share its every token: weighing each against each (a 1.3 MB plotly
    bundle of 3,991) took hours and gigabytes. Such symbols are added and deleted, never paired; a file's own
    renames beside it still are."""
    # under MINIFIED_SIZE: a bigger bundle is indexed without its symbols (test_git_history.py)
    bundle = ";".join(f"function f{n}(a){{return a+{n}}}" for n in range(30))
    repo.write("static/app.1a2b.js", bundle + "\n")
    repo.write("a.py", BASE)
    first = repo.commit()
    repo.git("rm", "-q", "static/app.1a2b.js")
    repo.write("static/app.3c4d.js", bundle + "\n")
    repo.write("a.py", BASE.replace("def renamed_me(items):", "def spread(items):"))
    second = repo.commit()
    result = diff_symbols(repo.root, conn, first, second)
    assert [(r["from"], r["to"]) for r in result["renamed_symbols"]] == [("a.py::renamed_me", "a.py::spread")]
    assert len(result["deleted_symbols"]) == 30
    assert len([c for c in result["changed_symbols"] if c["path"] == "static/app.3c4d.js"]) == 30


def test_comments_and_blank_lines_are_no_change_but_a_docstring_is(repo, conn) -> None:
    repo.write("a.py", "def f(x):\n    return x + 1\n")
    first = repo.commit()
    repo.write("a.py", "def f(x):  # why\n    # comment\n\n    return x+1  # trailing\n")
    second = repo.commit()
    assert diff_symbols(repo.root, conn, first, second)["changed_symbols"] == []
    repo.write("a.py", 'def f(x):\n    """Now documented."""\n    return x + 1\n')
    third = repo.commit()
    (doc,) = diff_symbols(repo.root, conn, second, third)["changed_symbols"]
    assert doc["changed"] == "body"  # a docstring is part of the syntax tree


def test_an_attribute_written_before_an_item_is_part_of_its_signature(repo, conn) -> None:
    """Rust's attributes and a TypeScript member's decorators are the item's siblings in the syntax tree, not its
    children as a Python decorator is: adding `#[derive(Default)]` changes the struct, `@Memo()` the method."""
    repo.write("src/lib.rs", "pub struct Ka {\n    x: u32,\n}\n\n/// Doc.\npub fn g() -> u32 {\n    1\n}\n")
    repo.write("src/a.ts", "export class A {\n  m(): number {\n    return 2\n  }\n}\n")
    first = repo.commit()
    repo.write(
        "src/lib.rs",
        "#[derive(Default)]\npub struct Ka {\n    x: u32,\n}\n\n"
        "// note\n#[inline]\n/// Doc.\npub fn g() -> u32 {\n    1\n}\n",
    )
    repo.write("src/a.ts", "export class A {\n  @Memo()\n  m(): number {\n    return 2\n  }\n}\n")
    second = repo.commit()
    changed = by_id(diff_symbols(repo.root, conn, first, second)["changed_symbols"])
    assert {k: (v["changed"], v["start_line"]) for k, v in changed.items()} == {
        "src/lib.rs::Ka": ("signature", 1),
        "src/lib.rs::g": ("signature", 7),  # its span starts at its attribute, not at the comment above
        "src/a.ts::A": ("body", 1),
        "src/a.ts::A.m": ("signature", 2),
    }


def test_worktree_index_and_untracked_targets(repo, conn) -> None:
    repo.write("a.py", "def f():\n    return 1\n")
    first = repo.commit()
    repo.write("a.py", "def f():\n    return 2\n")
    repo.git("add", "a.py")
    repo.write("a.py", "def f():\n    return 3\n\n\ndef g():\n    return 0\n")
    repo.write("untracked.py", "def u():\n    return 5\n")
    staged = diff_symbols(repo.root, conn, first, "INDEX")
    assert [(c["id"], c["status"]) for c in staged["changed_symbols"]] == [("a.py::f", "modified")]
    work = diff_symbols(repo.root, conn, first, "WORKTREE")
    assert {c["id"] for c in work["changed_symbols"]} == {"a.py::f", "a.py::g"}
    assert "untracked.py::u" not in {c["id"] for c in work["changed_symbols"]}
    everything = diff_symbols(repo.root, conn, first, "WORKTREE", include_untracked=True)
    assert "untracked.py::u" in {c["id"] for c in everything["changed_symbols"]}
    assert staged["changed_symbols"][0]["after_hash"] != work["changed_symbols"][0]["after_hash"]


def test_parse_results_are_cached_by_blob(history, conn) -> None:
    repo, first, second = history
    with SymbolDiffer(repo.root, conn) as differ:
        differ.diff(resolve(repo.root, first), resolve(repo.root, second))
        assert differ.cache.misses == 3 and differ.cache.hits == 0
    with SymbolDiffer(repo.root, conn) as differ:
        again = differ.diff(resolve(repo.root, first), resolve(repo.root, second))
        assert differ.cache.misses == 0 and differ.cache.hits == 3
    assert again["changed_symbols"] == diff_symbols(repo.root, conn, first, second)["changed_symbols"]


def test_unparseable_file_lowers_confidence(repo, conn) -> None:
    repo.write("a.py", "def f():\n    return 1\n")
    first = repo.commit()
    repo.write("a.py", b"def f():\n    return '\xff\xfe'\n")
    second = repo.commit()
    result = diff_symbols(repo.root, conn, first, second)
    assert result["unparsed_files"] == [{"path": "a.py", "reason": "undecodable", "detail": "not UTF-8 at byte 21"}]
    assert result["deleted_symbols"] == [] and result["changed_symbols"] == []
    assert result["confidence"] < 0.9 and any("could not be parsed" in n for n in result["confidence_notes"])


def test_tests_affected_come_from_the_index(repo, conn, annals) -> None:
    repo.write("src/app/core.py", "def compute(x):\n    return x\n")
    repo.write("tests/test_core.py", "from app.core import compute\n\n\ndef test_it():\n    assert compute(1) == 1\n")
    first = repo.commit()
    repo.write("src/app/core.py", "def compute(x):\n    return x * 1\n")
    second = repo.commit()
    annals("index")
    data = json.loads(annals("diff-symbols", first, second, "--json").stdout)
    assert data["tests_affected"] == ["tests/test_core.py"]
    assert [c["id"] for c in data["changed_symbols"]] == ["src/app/core.py::compute"]


def test_merge_commit_records_only_what_the_merge_changed(repo, conn) -> None:
    from codeannals.indexer.git.githistory import commit_changes, read_commit

    repo.write("a.py", "def f():\n    return 1\n\n\ndef g():\n    return 1\n")
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "side")
    repo.write("a.py", "def f():\n    return 2\n\n\ndef g():\n    return 1\n")
    repo.commit("side changes f")
    repo.git("checkout", "-q", "main")
    repo.write("b.py", "def h():\n    return 1\n")
    repo.commit("main adds b")
    repo.git("merge", "-q", "--no-ff", "side", "-m", "merge side")
    merge = repo.git("rev-parse", "HEAD").strip()
    with SymbolDiffer(repo.root, conn) as differ:
        clean = commit_changes(differ, read_commit(differ, merge))
    assert clean["changed_symbols"] == [] and clean["renamed_symbols"] == []
    # An evil merge: the merge commit changes g itself.
    repo.git("reset", "-q", "--hard", "HEAD~1")
    repo.git("merge", "-q", "--no-ff", "--no-commit", "side")
    repo.write("a.py", "def f():\n    return 2\n\n\ndef g():\n    return 3\n")
    repo.git("add", "a.py")
    repo.git("commit", "-q", "-m", "evil merge")
    evil = repo.git("rev-parse", "HEAD").strip()
    with SymbolDiffer(repo.root, conn) as differ:
        result = commit_changes(differ, read_commit(differ, evil))
    assert [c["id"] for c in result["changed_symbols"]] == ["a.py::g"]


def test_a_merge_is_diffed_against_its_other_parents_only_in_the_files_its_first_diff_touches(repo, conn) -> None:
    """A merge of a branch far behind (tmux merging OpenBSD's tree) differs from that branch in every file the main
    line changed since: none of them holds what the merge changed itself, so none is read."""
    from codeannals.indexer.git.githistory import commit_changes, plan, read_commit

    repo.write("a.py", "def f():\n    return 1\n")
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "side")
    repo.write("a.py", "def f():\n    return 2\n")
    repo.commit("side changes f")
    repo.git("checkout", "-q", "main")
    for n in range(5):
        repo.write(f"main{n}.py", f"def m{n}():\n    return {n}\n")
        repo.commit(f"main adds main{n}")
    repo.git("merge", "-q", "--no-ff", "--no-commit", "side")
    repo.write("a.py", "def f():\n    return 3\n")  # the merge's own change
    repo.git("add", "a.py")
    repo.git("commit", "-q", "-m", "evil merge")
    merge = repo.git("rev-parse", "HEAD").strip()
    with SymbolDiffer(repo.root, conn) as differ:
        info = read_commit(differ, merge)
        planned = plan(differ, info)
        result = commit_changes(differ, info, planned)
    assert [[c.new_path for c in changes] for _, changes in planned] == [["a.py"], ["a.py"]]
    assert [c["id"] for c in result["changed_symbols"]] == ["a.py::f"]


@pytest.mark.parametrize("ref", ["--output=/tmp/x", "-c", "", "HEAD\nHEAD", "no-such-branch"])
def test_bad_revisions_are_refused(repo, conn, ref: str) -> None:
    repo.write("a.py", "x = 1\n")
    repo.commit()
    with pytest.raises(BadRef):
        diff_symbols(repo.root, conn, ref, "HEAD")


def test_a_blob_of_which_history_kept_the_symbols_alone_is_parsed_whole_for_its_facts(repo, conn) -> None:
    """History caches a blob's symbols alone (symbols_of); a reader of its whole facts (a staged file's events) must
    not take those for facts with no imports or calls."""
    from codeannals.indexer.git.gitblobs import SYMBOLS_ONLY, FactsCache

    data = b"import os\n\n\ndef where():\n    return os.getcwd()\n"
    repo.write("a.py", data.decode())
    repo.commit("a")
    blob = repo.git("rev-parse", "HEAD:a.py").strip()
    history = FactsCache(conn)
    assert history.prefetch([("a.py", blob, lambda: data)]) == 1
    history.flush()
    assert [e for (e,) in conn.execute("SELECT extractor FROM blob_facts")] == [history.version + SYMBOLS_ONLY]
    symbols = FactsCache(conn).symbols("a.py", blob, None)
    facts = FactsCache(conn).facts("a.py", blob, data)
    assert not isinstance(facts, tuple) and not isinstance(symbols, tuple)
    assert [c["name"] for c in facts.calls] == ["getcwd"] and [i["module"] for i in facts.imports] == ["os"]
    assert symbols == facts.symbols and [s["id"] for s in symbols] == ["a.py::where"]
