"""Tests to run (store/testmap.py): ranked, runnable, never cut alphabetically, per module."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from codeannals.server import contextpack
from codeannals.store import lookups, queries, testmap
from codeannals.store.db import connect

from .conftest import Repo
from .mcp_support import isolated_git_env

FILES = {
    "pkg/__init__.py": "from pkg.a import parse, parse_all\nfrom pkg.b import render\n",
    "pkg/a.py": '"""Parsing."""\n\n\ndef parse(text):\n    return text.split(",")\n\n\n'
    "def parse_all(texts):\n    return [parse(t) for t in texts]\n",
    "pkg/b.py": '"""Rendering."""\n\n\ndef render(items):\n    return ",".join(items)\n\n\nclass Path:\n    pass\n',
    "tests/conftest.py": "import pytest\nfrom pkg import a\n\n\n@pytest.fixture\ndef parsed():\n"
    '    return a.parse("x,y")\n',
    "tests/test_a.py": (
        "import pkg\n\n\n"
        'def helper():\n    return pkg.parse_all(["q"])\n\n\n'
        "def test_through_helper():\n    assert helper()\n\n\n"
        'def test_parse_all():\n    assert pkg.parse_all(["a"])\n\n\n'
        "class TestParse:\n    def test_method(self):\n        assert pkg.parse('c')\n\n"
        "    def helper_method(self):\n        return pkg.parse('e')\n\n\n"
        "def test_nested():\n    def inner():\n        return pkg.parse('d')\n    assert inner()\n\n\n"
        "def test_with_fixture(parsed):\n    assert parsed\n\n\n"
        "def test_dup():\n    assert True\n\n\n"
        "def test_dup():  # noqa: F811 - pytest runs this one\n    assert pkg.parse('f')\n"
    ),
    "tests/test_b.py": "import pkg\n\n\ndef test_render():\n    assert pkg.render(['a']) == 'a'\n",
    # Alphabetically last, and the only test file calling parse directly by its own import.
    "tests/test_zz.py": "from pkg.a import parse\n\n\n"
    "def test_parse_direct():\n    assert parse('a,b') == ['a', 'b']\n",
    # The package imported by a name the index does not resolve (installed as `myproj`): a call by
    # name cannot be ruled out by imports. `pathlib.Path` is the standard library's, never pkg's.
    "myproj/__init__.py": "import os\n\n__path__ = [os.path.dirname(os.path.dirname(__file__))]\n",
    "tests/test_alias.py": "import pathlib\nfrom myproj.pkg.b import render\n\n\n"
    "def test_alias():\n    assert render(['x']) and pathlib.Path('.')\n",
    # Many test files reaching parse through parse_all: an alphabetical cut kept these, not test_zz.
    **{
        f"tests/test_{n:02d}.py": f"from pkg import a\n\n\ndef test_{n:02d}():\n    assert a.parse_all(['x'])\n"
        for n in range(1, 30)
    },
    "tests/test_00.py": "from pkg import a\n\n\ndef test_00():\n    assert a.__name__\n",  # imports, calls nothing
}


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("home")
    with isolated_git_env(home):
        repo = Repo(tmp_path_factory.mktemp("testmap"))
        for rel, text in FILES.items():
            repo.write(rel, text)
        repo.commit("initial")
        exe = Path(sys.executable).parent / "annals"
        subprocess.run([str(exe), "index", "--no-vectors"], cwd=repo.root, check=True, capture_output=True)
        yield repo.root


@pytest.fixture
def conn(indexed: Path):  # type: ignore[no-untyped-def]
    c = connect(indexed / ".annals" / "annals.db")
    yield c
    c.close()


def reaching(conn, ref: str) -> list[testmap.Reach]:  # type: ignore[no-untyped-def]
    return testmap.tests_for_symbol(conn, queries.find_symbol(conn, ref))


def test_a_direct_caller_ranks_first_and_a_test_through_a_function_after(conn) -> None:  # type: ignore[no-untyped-def]
    ranked = reaching(conn, "pkg/a.py::parse")
    ids = [t.test for t in ranked]
    direct = {
        "tests/test_zz.py::test_parse_direct",
        "tests/test_a.py::TestParse::test_method",
        "tests/test_a.py::test_nested",
        "tests/test_a.py::test_dup",
    }
    assert set(ids[: len(direct)]) == direct, ids
    assert all(t.distance == 1 and t.by_call for t in ranked[: len(direct)])
    assert "calls parse" in ranked[0].basis
    through = {t.test: t for t in ranked}
    assert through["tests/test_a.py::test_parse_all"].distance == 2  # calls parse_all, which calls parse
    assert through["tests/test_a.py::test_with_fixture"].distance == 2  # its fixture calls parse
    assert "uses fixture parsed" in through["tests/test_a.py::test_with_fixture"].basis
    assert through["tests/test_a.py::test_through_helper"].distance == 3  # helper -> parse_all -> parse
    assert ids.index("tests/test_a.py::test_parse_all") < ids.index("tests/test_a.py::test_through_helper")
    assert through["tests/test_01.py::test_01"].distance == 2 and not through["tests/test_01.py::test_01"].name_only
    # Files importing the module with no call path to parse are not listed; impact says how many and how.
    assert all(t.by_call for t in ranked) and "tests/test_00.py" not in through
    note = queries.impact(conn, "pkg/a.py::parse")["tests_note"]
    assert note == (
        "2 more test files import pkg/a.py with no call path found to it: impact_analysis('pkg/a.py') lists them"
    )  # test_00 (directly), test_b (through pkg)


def test_helpers_fixtures_and_nested_functions_are_not_tests(conn) -> None:  # type: ignore[no-untyped-def]
    ids = [t.test for t in reaching(conn, "pkg/a.py::parse")]
    for not_a_test in ("helper", "helper_method", "inner", "parsed"):
        assert not any(i.endswith("::" + not_a_test) or f".{not_a_test}" in i for i in ids), (not_a_test, ids)
    assert not any("#" in i for i in ids)  # test_dup#2 is what pytest calls test_dup
    assert "tests/conftest.py" not in ids


def test_every_entry_runs_with_pytest(indexed: Path, conn) -> None:  # type: ignore[no-untyped-def]
    ids = sorted(
        {t.test for ref in ("pkg/a.py::parse", "pkg/b.py::render", "pkg/a.py::parse_all") for t in reaching(conn, ref)}
    )
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *ids],
        cwd=indexed,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    collected = [line for line in proc.stdout.splitlines() if "::" in line]
    for i in ids:
        assert any(c == i or c.startswith(i + "::") for c in collected), (i, collected)


def test_a_modules_contract_lists_its_tests_not_its_packages(conn) -> None:  # type: ignore[no-untyped-def]
    b_tests = queries.module_contract(conn, "pkg/b.py")["tests"]
    # Every test file imports pkg, whose __init__ imports b; two call render (both by name only).
    assert sorted(b_tests) == ["tests/test_alias.py::test_alias", "tests/test_b.py::test_render"]
    a_tests = queries.module_contract(conn, "pkg/a.py")["tests"]
    assert "tests/test_b.py::test_render" not in a_tests and "tests/test_b.py" not in a_tests
    calling = a_tests[: a_tests.index("tests/test_00.py")]  # tests calling a.py's code, then its importers
    assert {"tests/test_zz.py::test_parse_direct", "tests/test_01.py::test_01"} <= set(calling)
    assert "tests/test_00.py" in a_tests  # imports pkg.a directly: listed, after the tests calling its code
    assert a_tests.index("tests/test_00.py") > a_tests.index("tests/test_zz.py::test_parse_direct")


def test_a_cut_keeps_the_best_and_says_how_many_more_and_how(conn) -> None:  # type: ignore[no-untyped-def]
    ranked = reaching(conn, "pkg/a.py::parse")
    assert len(ranked) > contextpack.MAX_TESTS
    rows = [{"test": t.test, "why": t.basis} for t in ranked]
    text, item = contextpack.tests_renderings(rows, "impact_analysis('pkg/a.py::parse')")[0]
    assert item["tests"] == rows[: contextpack.MAX_TESTS] and item["total"] == len(rows)
    assert text.splitlines()[0].startswith(f"- {rows[0]['test']} — calls parse")
    assert f"… at least {len(rows) - contextpack.MAX_TESTS} more: impact_analysis('pkg/a.py::parse')" in text


def test_the_context_pack_runs_the_direct_caller_first(indexed: Path, conn) -> None:  # type: ignore[no-untyped-def]
    # 'split' is in parse's body only: without it, parse_all (whose body calls parse) ranks as high.
    data, markdown = contextpack.build_pack(indexed, conn, "parse should keep empty fields when it splits", budget=6000)
    tests = [t["test"] for t in data["tests"]]
    whys = [t["why"] for t in data["tests"]]
    # test_zz is alphabetically last: it stays, ahead of every test that reaches a candidate through another.
    direct = tests.index("tests/test_zz.py::test_parse_direct")
    assert all("which reaches" not in why for why in whys[: direct + 1]), data["tests"]
    assert all("::" in t or t.endswith(".py") for t in tests)
    assert "## Tests to run" in markdown and "more: impact_analysis(" in markdown


def test_impact_of_a_file_and_its_basis(conn) -> None:  # type: ignore[no-untyped-def]
    answer = queries.impact(conn, "pkg/b.py")
    assert set(answer["tests"][:2]) == {"tests/test_b.py::test_render", "tests/test_alias.py::test_alias"}
    assert len(answer["tests_basis"]) == len(answer["tests"])
    assert answer["tests_basis"][0]["distance"] == 1 and "calls render" in answer["tests_basis"][0]["basis"]
    assert not any("test_alias" in t.test for t in reaching(conn, "pkg/b.py::Path"))  # it calls pathlib.Path


def test_importers_through_other_modules_are_counted_or_the_fallback(conn) -> None:  # type: ignore[no-untyped-def]
    answer = queries.impact(conn, "pkg/a.py::parse_all")
    files = {t.split("::")[0] for t in answer["tests"]}
    assert "tests/test_b.py" not in files  # imports pkg only, calls nothing of a.py: counted, not listed
    assert answer["tests_note"] and "impact_analysis('pkg/a.py') lists them" in answer["tests_note"]
    assert "tests/test_b.py" in queries.impact(conn, "pkg/a.py")["tests"]  # a change to the file: listed
    # Nothing calls Path and no test imports b.py itself: the tests importing it through pkg are the answer.
    fallback = reaching(conn, "pkg/b.py::Path")
    assert fallback and not any(t.by_call for t in fallback) and "through" in fallback[0].basis


def test_get_symbol_shows_the_best_tests_and_says_how_to_get_the_rest(indexed: Path) -> None:
    from codeannals.server.app import App
    from codeannals.server.mcp import build_server

    from .mcp_support import call, data

    found = data(call(build_server(App.for_repo(indexed)), "get_symbol", {"symbol": "pkg/a.py::parse"}))
    assert len(found["tests"]) == 25 and "tests/test_zz.py::test_parse_direct" in found["tests"][:4]  # calls it
    assert found["tests_note"].endswith("more tests: impact_analysis('pkg/a.py::parse') lists them all")


def test_a_contract_shows_the_nearest_tests_and_says_how_to_get_the_rest(indexed: Path) -> None:
    from codeannals.server.app import App
    from codeannals.server.mcp import build_server

    from .mcp_support import call, data

    server = build_server(App.for_repo(indexed))
    contract = data(call(server, "get_module_contract", {"path": "pkg/a.py"}))
    assert len(contract["tests"]) == 25  # of 30 calling its functions
    assert contract["tests_note"] == "more tests may reach it: impact_analysis('pkg/a.py') lists them all"
    few = data(call(server, "get_module_contract", {"path": "pkg/b.py"}))
    assert few["tests"] and len(few["tests"]) < 25 and few["tests_note"] is None


def test_a_test_class_inheriting_a_same_named_class_is_listed_once(repo: Repo, store: sqlite3.Connection) -> None:
    """`class TestThing(base.TestThing)` (the standard library's tests do this) runs the inherited
    tests under its own name; following subclasses by name must not loop on it, nor take a class of
    the same name in another file for it (the stdlib's csv.py listed 29,394 tests, now 1,804)."""
    from codeannals.indexer.run import index_tree

    repo.write("pkg/__init__.py", "")
    repo.write("pkg/code.py", "def answer():\n    return 42\n")
    repo.write(
        "tests/test_base.py",
        "from pkg.code import answer\n\n\n"
        "class TestThing:\n    def test_answer(self):\n        assert answer() == 42\n",
    )
    repo.write(
        "tests/test_more.py", "from tests import test_base as base\n\n\nclass TestThing(base.TestThing):\n    pass\n"
    )
    # Another file's own TestThing: its subclass inherits nothing from tests/test_base.py.
    repo.write("tests/test_other.py", "class TestThing:\n    pass\n\n\nclass TestMore(TestThing):\n    pass\n")
    index_tree(repo.root, store)
    symbol = queries.find_symbol(store, "pkg/code.py::answer")
    tests = [t.test for t in testmap.tests_for_symbol(store, symbol)]
    assert tests[:2] == ["tests/test_base.py::TestThing::test_answer", "tests/test_more.py::TestThing::test_answer"]
    assert not [t for t in tests if t.startswith("tests/test_other.py")]


def test_a_test_class_imported_into_another_test_file_runs_there_too(repo: Repo, store: sqlite3.Connection) -> None:
    """pytest collects the test classes and functions a module's namespace holds, imported ones too: itsdangerous'
    test_timed.py imports TestSigner from test_signer.py, and pytest runs `test_timed.py::TestSigner::test_sign`
    as well (its node ids were 35% of those bench/facts_tests.py's functions executed that the walk left out).
    A file that is no pytest file, or a name pytest does not collect, runs nothing."""
    from codeannals.indexer.run import index_tree

    repo.write("pkg/__init__.py", "")
    repo.write("pkg/signing.py", "def sign(value):\n    return value + '.sig'\n")
    repo.write(
        "tests/test_signer.py",
        "from pkg.signing import sign\n\n\nclass TestSigner:\n    def test_sign(self):\n"
        "        assert sign('a') == 'a.sig'\n\n\ndef test_plain():\n    assert sign('b')\n",
    )
    repo.write(
        "tests/test_timed.py",
        "from test_signer import TestSigner\nfrom test_signer import test_plain as test_again\n\n\n"
        "class TestTimedSigner(TestSigner):\n    pass\n",
    )
    repo.write("tests/helpers.py", "from test_signer import TestSigner\n")
    repo.write("tests/test_other.py", "from test_signer import TestSigner as Signer\n")
    index_tree(repo.root, store)
    tests = {t.test: t for t in testmap.tests_for_symbol(store, queries.find_symbol(store, "pkg/signing.py::sign"))}
    imported = ["tests/test_timed.py::TestSigner::test_sign", "tests/test_timed.py::test_again"]
    assert set(imported) <= set(tests)
    assert tests[imported[0]].basis == "imports TestSigner.test_sign, which calls sign (line 6)"
    assert "tests/test_timed.py::TestTimedSigner::test_sign" in tests
    assert not [t for t in tests if t.startswith(("tests/helpers.py", "tests/test_other.py"))]
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "tests/test_timed.py"],
        cwd=repo.root,
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    assert all(t in collected for t in imported)


def test_a_test_reaching_a_method_named_at_run_time_says_so(repo: Repo, store: sqlite3.Connection) -> None:
    """A test calling `getattr(visitor, "visit_" + kind)(node)` runs each `visit_*` method of the visitor's class
    that name may be: the test is listed for such a method, and its why says the call is by a name built at run
    time, not a call written."""
    from codeannals.indexer.run import index_tree

    repo.write("pkg/__init__.py", "")
    repo.write(
        "pkg/visitor.py",
        "class Visitor:\n    def visit_Name(self, node):\n        return node.name\n\n"
        "    def visit_Call(self, node):\n        return node.func\n",
    )
    repo.write(
        "tests/test_visitor.py",
        "from pkg.visitor import Visitor\n\n\ndef test_visit(visitor: Visitor, node):\n"
        "    assert getattr(visitor, 'visit_' + node.kind)(node)\n",
    )
    index_tree(repo.root, store)
    method = queries.find_symbol(store, "pkg/visitor.py::Visitor.visit_Name")
    found = {t.test: t.basis for t in testmap.tests_for_symbol(store, method, fallback=False)}
    assert found == {
        "tests/test_visitor.py::test_visit": "may call Visitor.visit_Name by a name built at run time (line 5)"
    }


def test_a_fixture_reaches_the_tests_taking_it_whatever_their_annotation(repo: Repo, store: sqlite3.Connection) -> None:
    """pytest hands a fixture to a parameter by its name, whatever its annotation or default: `def test_x(self,
    serializer: Serializer)` takes the fixture `serializer` (itsdangerous' tests, 55 of whose node ids running
    Serializer.__init__ the walk left out when it compared `serializer` with `serializer: Serializer`)."""
    from codeannals.indexer.run import index_tree

    repo.write("pkg/__init__.py", "")
    repo.write("pkg/code.py", "class Serializer:\n    def __init__(self, key):\n        self.key = key\n")
    repo.write(
        "tests/test_code.py",
        "import pytest\n\nfrom pkg.code import Serializer\n\n\nclass TestSerializer:\n    @pytest.fixture()\n"
        "    def serializer(self):\n        return Serializer('k')\n\n"
        "    def test_key(self, serializer: Serializer):\n        assert serializer.key == 'k'\n\n"
        "    def test_default(self, *, serializer: 'Serializer' = None):\n        assert serializer\n\n"
        "    def test_other(self, serializer_factory: Serializer):\n        assert serializer_factory\n",
    )
    index_tree(repo.root, store)
    method = queries.find_symbol(store, "pkg/code.py::Serializer.__init__")
    found = {t.test: t.basis for t in testmap.tests_for_symbol(store, method, fallback=False)}
    assert found == {
        "tests/test_code.py::TestSerializer::test_key": "uses fixture serializer, which calls Serializer.__init__",
        "tests/test_code.py::TestSerializer::test_default": "uses fixture serializer, which calls Serializer.__init__",
    }


def test_a_test_class_fixture_reaches_the_tests_of_classes_deriving_from_it(
    repo: Repo, store: sqlite3.Connection
) -> None:
    """pytest finds a test class's fixtures in its bases, in whatever file they are: TestSub(TestBase)'s own
    `test_more(self, signer)` takes TestBase's `signer`, and so does a class deriving from TestSub; a class with a
    `signer` fixture of its own takes that one instead."""
    from codeannals.indexer.run import index_tree

    repo.write("pkg/__init__.py", "")
    repo.write("pkg/signing.py", "def sign(value):\n    return value + '.sig'\n")
    repo.write(
        "tests/test_base.py",
        "import pytest\n\nfrom pkg.signing import sign\n\n\nclass TestBase:\n    @pytest.fixture()\n"
        "    def signer(self):\n        return sign('x')\n",
    )
    repo.write(
        "tests/test_sub.py",
        "import pytest\n\nfrom test_base import TestBase\n\n\nclass TestSub(TestBase):\n"
        "    def test_more(self, signer):\n        assert signer\n\n\n"
        "class TestDeeper(TestSub):\n    def test_deeper(self, signer):\n        assert signer\n\n\n"
        "class TestOwn(TestBase):\n    @pytest.fixture()\n    def signer(self):\n        return 'own'\n\n"
        "    def test_own(self, signer):\n        assert signer\n",
    )
    index_tree(repo.root, store)
    found = {t.test for t in testmap.tests_for_symbol(store, queries.find_symbol(store, "pkg/signing.py::sign"))}
    assert {
        "tests/test_sub.py::TestSub::test_more",
        "tests/test_sub.py::TestDeeper::test_more",
        "tests/test_sub.py::TestDeeper::test_deeper",
    } <= found
    assert not [t for t in found if "TestOwn" in t]


def test_the_packs_tests_follow_a_new_test_on_the_same_connection(repo: Repo, store: sqlite3.Connection) -> None:
    """A pack's tests are held while the index stands (the packs of one piece of work come back to the same
    candidates); a test written and indexed since is listed by the next pack of the same connection."""
    from codeannals.indexer.run import index_tree
    from codeannals.store.graph import import_graph

    repo.write("pkg/__init__.py", "")
    repo.write("pkg/code.py", "def answer():\n    return 42\n")
    repo.write("tests/test_one.py", "from pkg.code import answer\n\n\ndef test_one():\n    assert answer() == 42\n")
    index_tree(repo.root, store)

    def listed() -> list[str]:
        symbol = queries.find_symbol(store, "pkg/code.py::answer")
        return [t["test"] for t in testmap.tests_to_run(store, import_graph(store), [symbol], [], 12)]

    assert listed() == ["tests/test_one.py::test_one"]
    repo.write("tests/test_two.py", "from pkg.code import answer\n\n\ndef test_two():\n    assert answer()\n")
    index_tree(repo.root, store)
    assert listed() == ["tests/test_one.py::test_one", "tests/test_two.py::test_two"]


def test_a_walk_in_steps_leaves_its_answer_unless_a_change_overtook_it(
    repo: Repo, store: sqlite3.Connection, db_path: Path
) -> None:
    """The server walks from the symbols the agent asked about again after a change, a step at a time
    (server/reader.py); the answer it leaves is the one a new connection gives, and a walk that an indexed change
    overtook leaves nothing: it read the index before the change."""
    from codeannals.indexer.run import index_tree

    repo.write("pkg/__init__.py", "")
    repo.write("pkg/code.py", "def answer():\n    return 42\n\n\ndef twice():\n    return 2 * answer()\n")
    repo.write("tests/test_one.py", "from pkg.code import twice\n\n\ndef test_one():\n    assert twice() == 84\n")
    index_tree(repo.root, store)

    def listed(conn: sqlite3.Connection) -> list[str]:
        return [t.test for t in testmap.tests_for_symbol(conn, queries.find_symbol(conn, "pkg/code.py::answer"))]

    steps = testmap.walk_steps(store, "pkg/code.py::answer")
    next(steps)  # answer's callers read; twice's not yet
    repo.write("tests/test_two.py", "from pkg.code import answer\n\n\ndef test_two():\n    assert answer()\n")
    index_tree(repo.root, store)
    assert list(steps) == [None]  # twice's callers: then the walk ends
    assert listed(store) == ["tests/test_two.py::test_two", "tests/test_one.py::test_one"]
    assert list(testmap.walk_steps(store, "pkg/code.py::answer")) == [None, None]
    fresh = connect(db_path)
    try:
        assert listed(store) == listed(fresh)
    finally:
        fresh.close()
    assert list(testmap.walk_steps(store, "pkg/code.py::gone")) == []


def test_test_classes_pytest_collects_by_base_or_through_a_plugin_are_tests(tmp_path: Path) -> None:
    """pytest runs a unittest TestCase whatever its name; a class named otherwise (`MergeTest`) only where a
    plugin hooks collection (SQLAlchemy's), and then its file is what to run. Elsewhere it is not a test."""
    from codeannals.indexer.run import index_tree
    from codeannals.store import open_store

    def tests_of(repo: Repo, db: str) -> list[testmap.Reach]:
        conn = open_store(tmp_path / db)
        index_tree(repo.root, conn)
        return testmap.tests_for_symbol(conn, queries.find_symbol(conn, "pkg/code.py::answer"), fallback=False)

    files = {
        "pkg/__init__.py": "",
        "pkg/code.py": "def answer():\n    return 42\n",
        "tests/base.py": "import unittest\n\n\nclass Case(unittest.TestCase):\n    pass\n",
        "tests/test_code.py": "from pkg.code import answer\nfrom tests.base import Case\n\n\n"
        "class AnswerCase(Case):\n    def test_answer(self):\n        self.assertEqual(answer(), 42)\n\n\n"
        "class MergeTest:\n    def test_merge(self):\n        assert answer()\n",
    }
    (tmp_path / "plain").mkdir()
    plain = Repo(tmp_path / "plain")
    for rel, text in files.items():
        plain.write(rel, text)
    found = tests_of(plain, "plain.db")
    assert [t.test for t in found] == ["tests/test_code.py::AnswerCase::test_answer"]
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", found[0].test],
        cwd=plain.root,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0 and "1 passed" in proc.stdout, proc.stdout + proc.stderr

    (tmp_path / "plugin").mkdir()
    plugin = Repo(tmp_path / "plugin")
    for rel, text in files.items():
        plugin.write(rel, text)
    plugin.write("tests/conftest.py", "def pytest_pycollect_makeitem(collector, name, obj):\n    return None\n")
    found = tests_of(plugin, "plugin.db")
    assert {t.test: t.basis for t in found} == {
        "tests/test_code.py::AnswerCase::test_answer": "calls answer (line 7)",
        "tests/test_code.py": "calls answer (line 12) in MergeTest.test_merge",
    }


def test_javascript_test_files_are_what_runs_their_tests(repo: Repo, store: sqlite3.Connection) -> None:
    """A JavaScript test's body is an anonymous callback (`it('...', () => ...)`, `t.test(...)`): the test file
    is what Mocha, Jest, tap or node --test runs. Files under test/ that register no tests (fixtures, helpers)
    are not tests; a test reaching the code through a helper is."""
    from codeannals.indexer.run import index_tree

    repo.write("lib/parse.js", "function parse (text) {\n  return text.split(',')\n}\n\nmodule.exports = { parse }\n")
    repo.write(
        "test/parse.test.js",
        "const { parse } = require('../lib/parse')\n\n"
        "describe('parse', () => {\n  it('splits', () => {\n    parse('a,b')\n  })\n})\n",
    )
    repo.write(
        "test/tap-style.js",
        "const t = require('tap')\nconst { parse } = require('../lib/parse')\n\n"
        "t.test('parses', (t) => {\n  t.same(parse('a'), ['a'])\n  t.end()\n})\n",
    )
    repo.write(
        "test/helpers.js", "const { parse } = require('../lib/parse')\n\nexports.twice = (x) => parse(x + ',' + x)\n"
    )
    repo.write(
        "test/through-helper.js",
        "const test = require('node:test')\nconst { twice } = require('./helpers')\n\n"
        "test('twice', () => twice('a'))\n",
    )
    repo.write("test/fixtures/data.js", "const { parse } = require('../../lib/parse')\n\nmodule.exports = parse('x')\n")
    # As near as parse.test.js and first by name, but not named after the code: it ranks after.
    repo.write("test/aaa.test.js", "const { parse } = require('../lib/parse')\n\ntest('any', () => parse('q'))\n")
    # A helper importing a framework for what it offers the tests, exporting it: not a test itself.
    repo.write(
        "test/helpers/with-page.js",
        "const test = require('ava')\nconst { parse } = require('../../lib/parse')\n\n"
        "module.exports.withPage = (t) => parse('z')\n",
    )
    # `new Reader()` runs Reader's constructor, which calls parse.
    repo.write(
        "lib/reader.js",
        "const { parse } = require('./parse')\n\nclass Reader {\n  constructor (text) {\n"
        "    this.items = parse(text)\n  }\n}\n\nmodule.exports = { Reader }\n",
    )
    repo.write(
        "test/reader.test.js", "const { Reader } = require('../lib/reader')\n\ntest('reads', () => new Reader('a'))\n"
    )
    index_tree(repo.root, store)
    found = testmap.tests_for_symbol(store, queries.find_symbol(store, "lib/parse.js::parse"), fallback=False)
    assert [t.test for t in found][:2] == ["test/parse.test.js", "test/aaa.test.js"]
    assert {t.test: t.distance for t in found} == {
        "test/aaa.test.js": 1,
        "test/parse.test.js": 1,
        "test/tap-style.js": 1,
        "test/through-helper.js": 2,
        "test/reader.test.js": 2,
    }
    assert [t.test for t in testmap.tests_for_module(store, "test/tap-style.js")][:1] == ["test/tap-style.js"]


def test_go_tests_are_the_test_functions_go_test_runs_and_a_package_spans_its_folder(
    repo: Repo, store: sqlite3.Connection
) -> None:
    """A Go package is the .go files of one folder: a bare `Twice(2)` in calc_test.go calls calc.go's Twice,
    and a side effect is reached through another of its files. `go test` runs `TestXxx` and `FuzzXxx` of
    `*_test.go` files; a benchmark or a helper is not a test. An external test package (`calc_test`) sharing the
    folder calls the package through its import (`calc.Add`), and its own `Add` is not calc's, either way."""
    from codeannals.indexer.run import index_tree
    from codeannals.store import callgraph, lookups

    repo.write("go.mod", "module example.com/m\n\ngo 1.21\n")
    repo.write(
        "calc/calc.go",
        "package calc\n\nfunc Add(a, b int) int { return a + b }\n\nfunc Twice(a int) int { return Add(a, a) }\n",
    )
    repo.write(
        "calc/calc_test.go",
        'package calc\n\nimport "testing"\n\n'
        'func TestTwice(t *testing.T) {\n\tif Twice(2) != 4 {\n\t\tt.Fatal("bad")\n\t}\n}\n\n'
        "func helper() int { return Add(1, 1) }\n\n"
        "func BenchmarkAdd(b *testing.B) { Add(1, 2) }\n\n"
        "func Testify(t *testing.T) { Add(3, 4) }\n",  # `Testify`: lowercase after Test, so go test skips it
    )
    repo.write(
        "calc/ext_test.go",
        'package calc_test\n\nimport (\n\t"testing"\n\n\t"example.com/m/calc"\n)\n\n'
        "func Add(a, b int) int { return 0 }\n\n"
        "func TestExternal(t *testing.T) { _ = calc.Add(1, 2) }\n\n"
        "func TestOwnAdd(t *testing.T) { _ = Add(1, 1) }\n",
    )
    repo.write(
        "calc/save.go",
        'package calc\n\nimport "os"\n\nfunc save(b []byte) error { return os.WriteFile("o", b, 0o644) }\n',
    )
    repo.write("calc/store.go", "package calc\n\nfunc Store(b []byte) error { return save(b) }\n")
    index_tree(repo.root, store)
    # A side effect reached through another file of the package.
    [effect] = queries.module_contract(store, "calc/store.go")["side_effect_evidence"]
    assert (effect["kind"], effect["chain"], effect["basis"]) == (
        "files",
        ["calc/store.go::Store", "calc/save.go::save"],
        "same package",
    )
    add = queries.find_symbol(store, "calc/calc.go::Add")
    found = testmap.tests_for_symbol(store, add, fallback=False)
    assert {t.test: t.distance for t in found} == {
        "calc/ext_test.go::TestExternal": 1,
        "calc/calc_test.go::TestTwice": 2,
    }
    bases = {c["caller"]: c["basis"] for c in lookups.callers(store, add)}
    assert bases["calc/calc_test.go::helper"] == "same package"
    assert bases["calc/calc.go::Twice"] == "same file"
    assert "calc/ext_test.go::TestOwnAdd" not in bases
    # What the tests call, the other way: `calc.Add` is the package's Add, `Add` the test file's own.
    external = queries.find_symbol(store, "calc/ext_test.go::TestExternal")
    assert [(c["target"], c["basis"]) for c in callgraph.callees(store, external)] == [
        ("calc/calc.go::Add", "imported name")
    ]
    own = queries.find_symbol(store, "calc/ext_test.go::Add")
    assert [c["caller"] for c in lookups.callers(store, own)] == ["calc/ext_test.go::TestOwnAdd"]
    twice = queries.find_symbol(store, "calc/calc_test.go::TestTwice")
    assert ("calc/calc.go::Twice", "same package") in [
        (c["target"], c["basis"]) for c in callgraph.callees(store, twice)
    ]
    # Both call the module's code directly; calc_test.go is named after calc.go.
    assert [t.test for t in testmap.tests_for_module(store, "calc/calc.go")] == [
        "calc/calc_test.go::TestTwice",
        "calc/ext_test.go::TestExternal",
    ]


def test_a_go_method_import_and_untested_function_are_seen_as_go_sees_them(
    repo: Repo, store: sqlite3.Connection
) -> None:
    """Go declares a method at the top level (`func (c *Counter) Inc()`): `c := New(); c.Inc()` in the
    package's tests runs Counter.Inc, since New returns a *Counter, and its test is listed as a sure one. An
    import of a package imports every file of it, where the resolver names one, so any file of the package has
    the importer as a dependent. A function no call path reaches still has its package's test files to run
    (`go test ./count`)."""
    from codeannals.indexer.run import index_tree
    from codeannals.store import lookups

    repo.write("go.mod", "module example.com/m\n\ngo 1.21\n")
    repo.write(
        "count/count.go",
        "package count\n\ntype Counter struct{ n int }\n\nfunc New() *Counter { return &Counter{} }\n\n"
        "func (c *Counter) Inc() { c.n++ }\n",
    )
    repo.write("count/extra.go", "package count\n\nfunc unused() int { return 1 }\n")
    repo.write(
        "count/count_test.go",
        'package count\n\nimport "testing"\n\nfunc TestInc(t *testing.T) {\n\tc := New()\n\tc.Inc()\n}\n',
    )
    repo.write("cmd/main.go", 'package main\n\nimport "example.com/m/count"\n\nfunc main() { count.New() }\n')
    index_tree(repo.root, store)
    inc = testmap.tests_for_symbol(store, queries.find_symbol(store, "count/count.go::Counter.Inc"), fallback=False)
    assert [(t.test, t.name_only) for t in inc] == [("count/count_test.go::TestInc", False)]
    assert lookups.dependents(store, "count/extra.go") == ["cmd/main.go"]
    assert lookups.dependents(store, "count/count_test.go") == []  # no package imports a test file
    assert {e["target"] for e in lookups.dependencies(store, "cmd/main.go")} == {"count/count.go", "count/extra.go"}
    [untested] = testmap.tests_for_symbol(store, queries.find_symbol(store, "count/extra.go::unused"))
    assert untested.test == "count/count_test.go" and "tests the package" in untested.basis


def test_where_no_test_runner_of_the_language_is_known_tests_are_said_unknown_not_none(repo: Repo) -> None:
    """PHPUnit's tests are not read here: an empty list of tests for a PHP file would tell an agent that nothing tests
    it. Impact, the contract and the pack say "unknown" instead, and a Python file with no tests still says none."""
    from click.testing import CliRunner
    from codeannals.server.commands import cli

    repo.write("lib/calc.php", "<?php\nclass Calc {\n  function add($a, $b) {\n    return $a + $b;\n  }\n}\n")
    repo.write("tool.py", "def run():\n    return 1\n")
    repo.commit()
    assert CliRunner().invoke(cli, ["-C", str(repo.root), "index", "--no-vectors"]).exit_code == 0
    conn = connect(repo.root / ".annals" / "annals.db", readonly=True)
    try:
        php = queries.impact(conn, "lib/calc.php::Calc.add")
        assert php["tests"] == [] and "tests unknown" in php["why"]
        assert (
            php["tests_note"]
            == "tests unknown: no test runner of php is known here, so none is listed for lib/calc.php"
        )
        python = queries.impact(conn, "tool.py::run")
        assert python["tests_note"] is None and "0 tests reach it" in python["why"]
    finally:
        conn.close()
    contract = CliRunner().invoke(cli, ["-C", str(repo.root), "contract", "lib/calc.php"]).output
    assert "tests: unknown: no test runner of php" in contract
    pack = CliRunner().invoke(cli, ["-C", str(repo.root), "pack", "add overflows in lib/calc.php"]).output
    assert "tests: unknown: no test runner of php" in pack


def test_minitest_and_rspec_tests_are_what_runs_ruby_code(repo: Repo) -> None:
    """A minitest or test-unit test is a `test_*` method of a class in a Ruby test file, by the id `-n` takes with its
    class as Ruby names it (`ParserTest#test_rows`, `CalcTest::Edge#test_edge`); what `setup` calls runs for every
    test of its class and of those deriving from it; an RSpec spec file or a file of Rails' `test "..." do` blocks,
    whose tests are blocks, is what to run. Before, every Ruby answer said "tests unknown"."""
    from click.testing import CliRunner
    from codeannals.server.commands import cli

    repo.write(
        "lib/calc.rb",
        "class Calc\n  def add(a, b)\n    a + b\n  end\n\n  def reset\n    0\n  end\n\n"
        "  def neg(a)\n    -a\n  end\nend\n",
    )
    repo.write(
        "test/calc_test.rb",
        'require "minitest/autorun"\nrequire_relative "../lib/calc"\n\nclass BaseTest < Minitest::Test\n'
        "  def setup\n    @calc = Calc.new\n    @calc.reset\n  end\nend\n\n"
        "class CalcTest < BaseTest\n  def test_add\n    assert_equal 3, @calc.add(1, 2)\n  end\n\n"
        "  def test_other\n    assert true\n  end\nend\n",
    )
    repo.write(  # Ruby names the class `CalcTest::Edge`, found from the module around it outwards
        "test/more_test.rb",
        'require_relative "calc_test"\n\nmodule Extra\n  class CalcTest::Edge < CalcTest\n    def test_edge\n'
        "      @calc.add(0, 0)\n    end\n  end\nend\n",
    )
    repo.write(  # Rails' tests are blocks too: the file is what runs
        "test/models/calc_rails_test.rb",
        'class CalcRailsTest < ActiveSupport::TestCase\n  test "negates" do\n    Calc.new.neg(2)\n  end\nend\n',
    )
    repo.write(
        "spec/calc_spec.rb",
        'require_relative "../lib/calc"\n\nRSpec.describe Calc do\n  it "negates" do\n'
        "    expect(Calc.new.neg(1)).to eq(-1)\n  end\nend\n",
    )
    repo.commit()
    assert CliRunner().invoke(cli, ["-C", str(repo.root), "index", "--no-vectors"]).exit_code == 0
    conn = connect(repo.root / ".annals" / "annals.db", readonly=True)
    try:
        assert sorted(queries.impact(conn, "lib/calc.rb::Calc.add")["tests"]) == [
            "test/calc_test.rb::CalcTest#test_add",
            "test/more_test.rb::CalcTest::Edge#test_edge",
        ]
        assert sorted(queries.impact(conn, "lib/calc.rb::Calc.reset")["tests"]) == [
            "test/calc_test.rb::CalcTest#test_add",
            "test/calc_test.rb::CalcTest#test_other",
            "test/more_test.rb::CalcTest::Edge#test_edge",
        ]
        assert sorted(queries.impact(conn, "lib/calc.rb::Calc.neg")["tests"]) == [
            "spec/calc_spec.rb",
            "test/models/calc_rails_test.rb",
        ]
    finally:
        conn.close()


def test_junit_tests_are_the_methods_annotated_as_tests(repo: Repo, store: sqlite3.Connection) -> None:
    """`@Test` (JUnit 4 and 5, TestNG) or JUnit 5's `@ParameterizedTest`: a test, by the id Maven's `-Dtest` takes; a
    helper of the test class is none, the tests calling it are. Before, every Java answer said "tests unknown"."""
    from codeannals.indexer.run import index_tree

    repo.write(
        "src/main/java/calc/Calc.java",
        "package calc;\n\npublic class Calc {\n    public int add(int a, int b) { return a + b; }\n}\n",
    )
    repo.write(
        "src/test/java/calc/CalcTest.java",
        "package calc;\n\nimport org.junit.jupiter.api.Test;\n\nclass CalcTest {\n"
        "    private int three() { return new Calc().add(1, 2); }\n\n"
        "    @Test\n    void adds() { assertEquals(3, three()); }\n\n"
        "    @Nested\n    class Edges {\n        @org.junit.jupiter.params.ParameterizedTest\n"
        "        @ValueSource(ints = {1})\n        void addsOne(int x) { assertEquals(x + 1, new Calc().add(x, 1)); }\n"
        "    }\n}\n",
    )
    repo.commit()
    index_tree(repo.root, store)
    add = queries.impact(store, "src/main/java/calc/Calc.java::Calc.add")
    assert sorted(add["tests"]) == [
        "src/test/java/calc/CalcTest.java::CalcTest#adds",
        "src/test/java/calc/CalcTest.java::CalcTest$Edges#addsOne",
    ]
    assert queries.find_symbol(store, "src/test/java/calc/CalcTest.java::CalcTest.adds")["decorators"] == ["@Test"]


def test_junit_runs_hooks_for_each_test_and_the_jdk_runs_overrides_of_its_types(
    repo: Repo, store: sqlite3.Connection
) -> None:
    """What JUnit runs around each test (a `@BeforeEach`, a field's initializer) reaches every test the class runs,
    those it inherits too; a test making a Calc does not run every method of Calc (Java's calls are typed); the JDK
    calls `hashCode` and a Writer's `write` (whoever makes the class stands for their callers); an anonymous class's
    method runs where its interface's method is called."""
    from codeannals.indexer.run import index_tree

    repo.write(
        "src/main/java/calc/Calc.java",
        "package calc;\n\npublic class Calc {\n    public int add(int a, int b) { return a + b; }\n"
        "    public int neg(int a) { return -a; }\n"
        "    @Override public int hashCode() { return 1; }\n"
        "    public static Op twice() {\n        return new Op() {\n"
        "            @Override public int apply(int a) { return 2 * a; }\n        };\n    }\n}\n",
    )
    repo.write("src/main/java/calc/Op.java", "package calc;\n\npublic interface Op {\n    int apply(int a);\n}\n")
    repo.write(
        "src/main/java/calc/Runner.java",
        "package calc;\n\npublic class Runner {\n    public int run(Op op, int a) { return op.apply(a); }\n}\n",
    )
    repo.write(
        "src/test/java/calc/BaseTest.java",
        "package calc;\n\nimport org.junit.jupiter.api.Test;\n\nabstract class BaseTest {\n"
        "    Calc calc;\n\n    @Test\n    void inherited() { assertEquals(3, calc.add(1, 2)); }\n}\n",
    )
    repo.write(
        "src/test/java/calc/CalcTest.java",
        "package calc;\n\nimport java.util.HashSet;\nimport org.junit.jupiter.api.BeforeEach;\n"
        "import org.junit.jupiter.api.Test;\n\nclass CalcTest extends BaseTest {\n"
        "    private final Runner runner = new Runner();\n\n"
        "    @BeforeEach\n    void setUp() { calc = new Calc(); calc.neg(0); }\n\n"
        "    @Test\n    void adds() { assertEquals(3, calc.add(1, 2)); }\n\n"
        "    @Test\n    void hashes() { new HashSet<Calc>().add(new Calc()); }\n\n"
        "    @Test\n    void doubles() { assertEquals(4, runner.run(Calc.twice(), 2)); }\n}\n",
    )
    repo.commit()
    index_tree(repo.root, store)

    def tests(method: str) -> list[str]:
        return sorted(t.rpartition("::")[2] for t in queries.impact(store, f"src/main/java/calc/{method}")["tests"])

    every = ["BaseTest#inherited", "CalcTest#adds", "CalcTest#doubles", "CalcTest#hashes"]
    assert tests("Calc.java::Calc.neg") == every  # called in the @BeforeEach, inherited tests too
    assert tests("Runner.java::Runner") == every  # made in a field's initializer
    assert tests("Calc.java::Calc.add") == ["BaseTest#inherited", "CalcTest#adds"]  # not `hashes`, which makes a Calc
    assert tests("Calc.java::Calc.hashCode") == every  # the HashSet calls it: whoever makes a Calc
    apply = queries.impact(store, "src/main/java/calc/Calc.java::Calc.twice.apply")
    assert [t["basis"] for t in apply["tests_basis"]] == ["calls Runner.run, which reaches Calc.twice.apply (line 20)"]


def test_cargo_tests_are_the_functions_marked_test_beside_the_code_or_under_tests(repo: Repo) -> None:
    """A `#[test]` (or `#[tokio::test]`) function is a test wherever it is: in the code's own `mod tests` or in a file
    under tests/, which Cargo runs as a test crate; its id is the path `cargo test` filters by. A helper in `mod tests`
    is no test: the tests calling it are. Before, every Rust answer said "tests unknown"."""
    from click.testing import CliRunner
    from codeannals.server.commands import cli

    repo.write("Cargo.toml", '[package]\nname = "calc"\nversion = "0.1.0"\n')
    repo.write(
        "src/lib.rs",
        "pub fn add(a: i32, b: i32) -> i32 { a + b }\n\npub fn twice(a: i32) -> i32 { a * 2 }\n\n"
        "pub fn unused() -> i32 { 0 }\n\n"
        "#[cfg(test)]\nmod tests {\n    use super::*;\n\n    fn three() -> i32 { add(1, 2) }\n\n"
        "    #[test]\n    fn adds() { assert_eq!(three(), 3); }\n}\n",
    )
    repo.write(
        "tests/api.rs",
        'use calc::twice;\n\n#[tokio::test(flavor = "multi_thread")]\nasync fn doubles() {\n'
        "    assert_eq!(twice(2), 4);\n}\n",
    )
    repo.commit()
    assert CliRunner().invoke(cli, ["-C", str(repo.root), "index", "--no-vectors"]).exit_code == 0
    conn = connect(repo.root / ".annals" / "annals.db", readonly=True)
    try:
        add = queries.impact(conn, "src/lib.rs::add")
        assert add["tests"] == ["src/lib.rs::tests::adds"]  # through the helper, inside an assert_eq!
        assert add["tests_note"].startswith("1 more test file imports src/lib.rs")  # tests/api.rs: the crate
        assert queries.impact(conn, "src/lib.rs::twice")["tests"] == ["tests/api.rs::doubles"]
        # tests/api.rs imports the crate but calls nothing of this: listed, and said so, and no lower risk for it
        unused = queries.impact(conn, "src/lib.rs::unused")
        assert unused["tests"] == ["tests/api.rs"] and unused["risk"] == "medium"
        assert unused["why"].endswith("no test reaches it through calls (1 test file imports its module)")
    finally:
        conn.close()
    contract = CliRunner().invoke(cli, ["-C", str(repo.root), "contract", "src/lib.rs"]).output
    assert "tests: src/lib.rs::tests::adds" in contract


def test_a_test_reached_through_a_guess_by_name_is_a_guess_however_sure_its_own_call(
    repo: Repo, store: sqlite3.Connection
) -> None:
    """`test_load` calls the helper `load_all` surely, but `load_all` calls `parse` only by its name (`item.parse()`
    on a value the code does not type, and two classes have a parse): the test runs Reader.parse only if that
    guess holds, so it is listed as a guess, after a test calling it surely, and says so."""
    from codeannals.indexer.run import index_tree

    repo.write("pkg/__init__.py", "")
    repo.write("pkg/reader.py", "class Reader:\n    def parse(self, text):\n        return text.split()\n")
    repo.write("pkg/other.py", "class Other:\n    def parse(self, text):\n        return [text]\n")
    repo.write(
        "pkg/loader.py",
        "from pkg import reader\n\n\ndef load_all(items):\n    return [item.parse('a b') for item in items]\n",
    )
    repo.write(
        "tests/test_loader.py",
        "from pkg.loader import load_all\n\n\ndef test_load():\n    assert load_all([]) == []\n",
    )
    repo.write(
        "tests/test_reader.py", "from pkg.reader import Reader\n\n\ndef test_parse():\n    assert Reader().parse('a')\n"
    )
    index_tree(repo.root, store)
    parse = queries.find_symbol(store, "pkg/reader.py::Reader.parse")
    found = {t.test: t for t in testmap.tests_for_symbol(store, parse, fallback=False)}
    assert found["tests/test_reader.py::test_parse"].name_only is False
    guessed = found["tests/test_loader.py::test_load"]
    assert guessed.name_only and "through a call known by name only" in guessed.basis
    assert list(found)[0] == "tests/test_reader.py::test_parse"


def test_of_tests_as_near_the_one_reaching_the_code_by_more_routes_ranks_first(
    repo: Repo, store: sqlite3.Connection
) -> None:
    """A call path the index finds may sit in a branch a test never takes; a test reaching the code by two paths
    is the likelier to run it. Both tests below are two calls from `encode`, and `test_aa` is first by name,
    but `test_zz` reaches it through both `dump` and `dumps`."""
    from codeannals.indexer.run import index_tree

    repo.write("pkg/__init__.py", "")
    repo.write(
        "pkg/codec.py",
        "def encode(x):\n    return str(x)\n\n\ndef dump(x, out):\n    if x:\n        out.write(encode(x))\n\n\n"
        "def dumps(x):\n    return encode(x) if x else ''\n",
    )
    repo.write("tests/test_aa.py", "from pkg.codec import dumps\n\n\ndef test_aa():\n    assert dumps(0) == ''\n")
    repo.write(
        "tests/test_zz.py",
        "import io\n\nfrom pkg.codec import dump, dumps\n\n\n"
        "def test_zz():\n    dump(1, io.StringIO())\n    assert dumps(1) == '1'\n",
    )
    index_tree(repo.root, store)
    found = testmap.tests_for_symbol(store, queries.find_symbol(store, "pkg/codec.py::encode"), fallback=False)
    assert [(t.test, t.distance, t.routes) for t in found] == [
        ("tests/test_zz.py::test_zz", 2, 2),
        ("tests/test_aa.py::test_aa", 2, 1),
    ]


def test_a_go_package_is_named_in_code_as_go_names_it() -> None:
    """`chi.NewRouter()` after importing github.com/go-chi/chi/v5: the qualifier is the package's name, not
    its path's last element."""
    from codeannals.store.gocalls import go_import_name

    assert go_import_name("github.com/go-chi/chi/v5") == "chi"
    assert go_import_name("gopkg.in/yaml.v3") == "yaml"
    assert go_import_name("github.com/mattn/go-isatty") == "isatty"
    assert go_import_name("example.com/m/calc") == "calc"


def test_code_nothing_calls_by_name_lists_the_importing_tests_that_name_it(
    repo: Repo, store: sqlite3.Connection, db_path: Path
) -> None:
    """A filter run through a registry (`{{ x|round }}` runs do_round): of the test files importing the package, those
    whose text names it are listed, with why; the others are counted. Where none names it, or without the files
    to read, every importer is listed, as before."""
    from codeannals.indexer.run import index_tree

    repo.write(
        "pkg/filters.py",
        "def do_round(value):\n    return round(value)\n\n\ndef do_upper(value):\n    return value.upper()\n\n\n"
        "def do_slugify(value):\n    return value\n\n\n"
        'FILTERS = {"round": do_round, "upper": do_upper, "slugify": do_slugify}\n',
    )
    repo.write(
        "pkg/__init__.py",
        "from .filters import FILTERS\n\n\ndef render(name, value):\n    return FILTERS[name](value)\n",
    )
    repo.write(
        "tests/test_numbers.py", 'from pkg import render\n\n\ndef test_round():\n    assert render("round", 2.4) == 2\n'
    )
    repo.write(
        "tests/test_text.py", 'from pkg import render\n\n\ndef test_upper():\n    assert render("upper", "a") == "A"\n'
    )
    index_tree(repo.root, store)

    answer = queries.impact(store, "pkg/filters.py::do_round", root=repo.root)
    assert answer["tests"] == ["tests/test_numbers.py"]
    assert 'its text says "round"' in answer["tests_basis"][0]["basis"]
    assert answer["tests_note"] and answer["tests_note"].startswith("1 more test file imports pkg/filters.py")
    # Named by no test file: every importer, as the index alone answers.
    slugify = queries.impact(store, "pkg/filters.py::do_slugify", root=repo.root)["tests"]
    assert sorted(slugify) == ["tests/test_numbers.py", "tests/test_text.py"]
    assert sorted(queries.impact(store, "pkg/filters.py::do_round")["tests"]) == sorted(slugify)
    # A test file changed since it was indexed cannot tell by its text: kept (asked on a connection of its own, as
    # answers are kept per connection while the index stands).
    repo.write("tests/test_text.py", 'from pkg import render\n\n\ndef test_upper():\n    assert render("upper", "b")\n')
    other = connect(db_path)
    try:
        after = queries.impact(other, "pkg/filters.py::do_round", root=repo.root)["tests"]
    finally:
        other.close()
    assert sorted(after) == ["tests/test_numbers.py", "tests/test_text.py"]


def test_code_reached_only_through_syntax_a_returned_function_or_a_subclass_reaches_its_tests(
    repo: Repo, store: sqlite3.Connection
) -> None:
    """Three ways code runs that no call names (Flask's suite, bench/facts_tests.py): a WSGI server calls the app
    object, so `__call__` is called by whoever makes an app; `@route("/")` runs the `decorator` that route
    returns; and a test constructing a subclass constructs the class."""
    from codeannals.indexer.run import index_tree

    repo.write("web/__init__.py", "from web.app import App\n")
    repo.write(
        "web/app.py",
        "def dispatch(environ):\n    return environ\n\n\nVIEWS = {}\n\n\n"
        "def register(rule, view):\n    VIEWS[rule] = view\n\n\n"
        "def configure(app):\n    app.views = VIEWS\n\n\n"
        "class App:\n    def __init__(self):\n        configure(self)\n\n"
        "    def __call__(self, environ, start_response):\n        return dispatch(environ)\n\n"
        "    def route(self, rule):\n        def decorator(view):\n            register(rule, view)\n"
        "            return view\n        return decorator\n",
    )
    repo.write(
        "tests/test_app.py",
        "from wsgiref.util import setup_testing_defaults\n\nfrom web.app import App\n\n\n"
        "def test_serve():\n    app = App()\n    setup_testing_defaults({})\n\n\n"
        "def test_route():\n    app = App()\n\n    @app.route('/')\n    def index():\n        return 'hi'\n",
    )
    repo.write(
        "tests/test_sub.py",
        "import web\n\n\ndef test_quiet():\n    class Quiet(web.App):\n        pass\n\n    assert Quiet()\n",
    )
    index_tree(repo.root, store)

    def tests_of(symbol_id: str) -> dict[str, str]:
        symbol = queries.find_symbol(store, symbol_id)
        return {t.test: t.basis for t in testmap.tests_for_symbol(store, symbol, fallback=False)}

    assert "tests/test_app.py::test_serve" in tests_of("web/app.py::dispatch")
    assert "tests/test_app.py::test_route" in tests_of("web/app.py::register")
    assert "tests/test_sub.py::test_quiet" in tests_of("web/app.py::configure")  # Quiet() runs App.__init__


def test_the_wrapper_a_decorator_returns_runs_where_a_function_it_decorates_is_called(
    repo: Repo, store: sqlite3.Connection
) -> None:
    """`@login_required def create()` is the wrapper login_required returns (`@cors("GET")`: the one its decorator
    returns): nothing calls the wrapper by name, so the tests calling a function it decorates (here a Flask view,
    by requesting it) are its tests, not those loading the module that uses the decorator."""
    from codeannals.indexer.run import index_tree

    repo.write("web/__init__.py", "")
    repo.write(
        "web/auth.py",
        "import functools\n\n\ndef login_required(view):\n    @functools.wraps(view)\n    def wrapped(**kw):\n"
        "        return view(**kw)\n\n    return wrapped\n\n\ndef cors(*methods):\n    def decorator(f):\n"
        "        def wrapper(*a):\n            return f(*a)\n\n        return wrapper\n\n    return decorator\n",
    )
    repo.write(
        "web/views.py",
        "from flask import Blueprint\n\nfrom web.auth import cors, login_required\n\n"
        "bp = Blueprint('b', __name__)\n\n\n"
        "@bp.route('/create')\n@login_required\ndef create():\n    return ''\n\n\n"
        "@bp.route('/items')\n@cors('GET')\ndef items():\n    return ''\n\n\ndef undecorated():\n    return ''\n",
    )
    repo.write(
        "tests/test_views.py",
        "from web import views\n\n\ndef test_create(client):\n    client.get('/create')\n\n\n"
        "def test_items(client):\n    client.get('/items')\n\n\ndef test_other():\n    views.undecorated()\n",
    )
    index_tree(repo.root, store)

    def tests_of(symbol_id: str) -> set[str]:
        symbol = queries.find_symbol(store, symbol_id)
        return {t.test for t in testmap.tests_for_symbol(store, symbol, fallback=False)}

    assert tests_of("web/auth.py::login_required.wrapped") == {"tests/test_views.py::test_create"}
    assert tests_of("web/auth.py::cors.decorator.wrapper") == {"tests/test_views.py::test_items"}


def test_a_fixtures_users_are_read_once_and_handed_out_as_copies(repo: Repo, store: sqlite3.Connection) -> None:
    """A conftest fixture's users are read from every test file below it once while the index stands (a walk on
    sqlalchemy asked for the same 155 fixtures' users 2,258 times in 100 packs); the walk adds to the list it
    gets (the users a test class inherits), so each asker gets a list of its own."""
    from codeannals.indexer.run import index_tree
    from codeannals.store.testwalk import suite_files

    repo.write("pkg/__init__.py", "")
    repo.write("pkg/code.py", "def parse(text):\n    return text\n")
    repo.write(
        "tests/conftest.py",
        "import pytest\nfrom pkg.code import parse\n\n\n@pytest.fixture\ndef parsed():\n    return parse('x')\n",
    )
    repo.write("tests/test_one.py", "def test_one(parsed):\n    assert parsed\n\n\ndef test_other():\n    pass\n")
    repo.write(
        "tests/sub/test_two.py", "import pytest\n\n\n@pytest.mark.usefixtures('parsed')\ndef test_two():\n    pass\n"
    )
    index_tree(repo.root, store)
    files = suite_files(store)
    fixture = files.symbols("tests/conftest.py")["tests/conftest.py::parsed"]
    users, autouse = files.fixture_users(fixture)
    assert sorted(u["id"] for u in users) == ["tests/sub/test_two.py::test_two", "tests/test_one.py::test_one"]
    assert not autouse
    users.clear()
    again, _ = files.fixture_users(fixture)
    assert sorted(u["id"] for u in again) == ["tests/sub/test_two.py::test_two", "tests/test_one.py::test_one"]
    found = {t.test for t in testmap.tests_for_symbol(store, queries.find_symbol(store, "pkg/code.py::parse"))}
    assert {"tests/test_one.py::test_one", "tests/sub/test_two.py::test_two"} <= found


def test_code_a_registry_loads_by_a_computed_name_lists_the_tests_naming_what_it_serves(
    repo: Repo, store: sqlite3.Connection
) -> None:
    """Our MCP tools: each family's module is loaded by a name built at run time, its tools registered by a decorator
    inside `register`, and the tests call a tool by its name as a string. Nothing imports the module and nothing
    calls a tool by name: the test files naming the tool, or the tool a helper serves, are listed, with why."""
    from codeannals.indexer.run import index_tree

    repo.write("app/__init__.py", "")
    repo.write(
        "app/families.py",
        "import importlib\n\nFAMILIES = {n: f'app.tools_{n}' for n in ('code',)}\n\n\n"
        "def register(server):\n    for name in FAMILIES.values():\n"
        "        importlib.import_module(name).register(server)\n",
    )
    repo.write(
        "app/tools_code.py",
        "def _hit(row):\n    return dict(row)\n\n\n"
        "def register(server):\n    @server.tool()\n    def search_symbols(query):\n"
        "        return [_hit(r) for r in query]\n",
    )
    repo.write(
        "tests/test_tools.py",
        "from app.families import register\n\n\n"
        "def test_search(client):\n    assert client.call_tool('search_symbols', {'query': 'x'})\n",
    )
    repo.write("tests/test_other.py", "def test_nothing():\n    assert 'symbols' and 'search'\n")
    index_tree(repo.root, store)
    for symbol in ("app/tools_code.py::register.search_symbols", "app/tools_code.py::_hit"):
        answer = queries.impact(store, symbol, root=repo.root)
        assert answer["tests"] == ["tests/test_tools.py"], symbol
    basis = queries.impact(store, "app/tools_code.py::_hit", root=repo.root)["tests_basis"][0]["basis"]
    assert basis == "names search_symbols, which reaches _hit; no test calls it or imports app/tools_code.py"
    assert queries.impact(store, "app/tools_code.py::_hit")["tests"] == []  # without the files to read: none


def test_a_guess_by_name_is_never_a_function_nested_elsewhere_nor_a_parameter_s_value(
    repo: Repo, store: sqlite3.Connection
) -> None:
    """`load()` in one function is never the `load` defined inside another (Python names it there only), and a bare
    call of the caller's own parameter calls the value passed: neither is a guess at a function of that name."""
    from codeannals.indexer.run import index_tree

    repo.write("pkg/__init__.py", "")
    repo.write(
        "pkg/deps.py",
        "def follow(paths):\n    def load(files):\n        return sorted(files)\n\n    return load(paths)\n\n\n"
        "def load_all(files):\n    return files\n",
    )
    repo.write("pkg/blobs.py", "def facts(path, load=None):\n    return load() if load else path\n")
    repo.write("pkg/cache.py", "def warm(path):\n    return load(path)  # a name the file does not bind\n")
    repo.write("pkg/util.py", "def load():\n    return 1\n")
    repo.write(
        "tests/test_blobs.py",
        "from pkg.blobs import facts\nfrom pkg.cache import warm\n\n\n"
        "def test_facts():\n    assert facts('a', lambda: 1)\n\n\ndef test_warm():\n    assert warm('a')\n",
    )
    index_tree(repo.root, store)
    nested = queries.find_symbol(store, "pkg/deps.py::follow.load")
    assert {c["caller"] for c in lookups.callers(store, nested)} == {"pkg/deps.py::follow"}
    util = {c["caller"]: c["basis"] for c in lookups.callers(store, queries.find_symbol(store, "pkg/util.py::load"))}
    assert util == {"pkg/cache.py::warm": "name only"}  # a bare name no parameter binds: still a guess


def test_a_function_of_a_module_loaded_by_a_computed_name_is_reached_by_what_loads_it(
    repo: Repo, store: sqlite3.Connection
) -> None:
    """`importlib.import_module(name).register(server)` runs the `register` of whichever module the name gives: a
    guess at every module's own `register` (not a class's), and the tests building the server reach them."""
    from codeannals.indexer.run import index_tree

    repo.write("app/__init__.py", "")
    repo.write(
        "app/families.py",
        "import importlib\n\nFAMILIES = ('app.tools_code', 'app.tools_git')\n\n\n"
        "def register(server):\n    for name in FAMILIES:\n        importlib.import_module(name).register(server)\n",
    )
    repo.write("app/tools_code.py", "def register(server):\n    server.append('code')\n")
    repo.write("app/tools_git.py", "class Tools:\n    def register(self, server):\n        return server\n")
    repo.write(
        "tests/test_server.py",
        "from app.families import register\n\n\ndef test_build():\n    server = []\n    register(server)\n",
    )
    index_tree(repo.root, store)
    code = queries.find_symbol(store, "app/tools_code.py::register")
    assert [(c["caller"], c["basis"]) for c in lookups.callers(store, code)] == [
        ("app/families.py::register", "name only")
    ]
    assert queries.impact(store, "app/tools_code.py::register")["tests"] == ["tests/test_server.py::test_build"]
    assert lookups.callers(store, queries.find_symbol(store, "app/tools_git.py::Tools.register")) == []


def test_a_test_s_parameter_is_a_fixture_whose_value_may_be_the_function_of_its_name(
    repo: Repo, store: sqlite3.Connection
) -> None:
    """Outside tests a bare call of a parameter calls the value passed, no guess; a test's parameter is a fixture
    (MarkupSafe's tests take `escape`, each implementation of the module's in turn): its call stays a guess."""
    from codeannals.indexer.run import index_tree

    repo.write("pkg/__init__.py", "from ._native import escape\n")
    repo.write("pkg/_native.py", "def escape(s):\n    return s\n")
    repo.write(
        "tests/conftest.py",
        "import pytest\nfrom pkg import _native\n\n\n@pytest.fixture(params=(_native,))\ndef _mod(request):\n"
        "    return request.param\n\n\n@pytest.fixture\ndef escape(_mod):\n    return _mod.escape\n",
    )
    repo.write("tests/test_escape.py", "def test_escape(escape):\n    assert escape('a') == 'a'\n")
    index_tree(repo.root, store)
    escape = queries.find_symbol(store, "pkg/_native.py::escape")
    assert "tests/test_escape.py::test_escape" in {c["caller"] for c in lookups.callers(store, escape)}


def test_a_ruby_file_calls_what_another_file_of_its_process_required(repo: Repo, store: sqlite3.Connection) -> None:
    """Ruby's `require` loads a file for the whole process: `shop/parser.rb` calls the Converter that `shop.rb`, which
    requires them both, loaded, though it requires nothing itself. A call known by its name alone there leads to the
    tests (csv's parser reaches its FieldsConverter so: 297 of its tests run `need_convert?`); it does not lead to a
    file that no process loading the parser loads."""
    repo.write("lib/shop.rb", 'require "shop/parser"\nrequire "shop/converter"\nrequire "shop/printer"\n')
    repo.write(
        "lib/shop/parser.rb",
        "class Parser\n  def initialize(options)\n    @converter = options[:converter]\n  end\n\n"
        "  def parse(text)\n    @converter.convert(text)\n  end\nend\n",
    )
    repo.write("lib/shop/converter.rb", "class Converter\n  def convert(text)\n    text.strip\n  end\nend\n")
    repo.write("lib/shop/printer.rb", "class Printer\n  def convert(text)\n    text\n  end\nend\n")
    repo.write("tools/export.rb", "class Export\n  def convert(text)\n    text\n  end\nend\n")
    repo.write(
        "test/parser_test.rb",
        'require "minitest/autorun"\nrequire "shop"\n\nclass ParserTest < Minitest::Test\n  def test_parse\n'
        '    Parser.new(converter: Converter.new).parse(" a ")\n  end\nend\n',
    )
    from codeannals.indexer.run import index_tree

    index_tree(repo.root, store)
    assert queries.impact(store, "lib/shop/converter.rb::Converter.convert")["tests"] == [
        "test/parser_test.rb::ParserTest#test_parse"
    ]
    assert queries.impact(store, "tools/export.rb::Export.convert")["tests"] == []


def test_a_module_deep_below_what_tests_call_lists_the_tests_reaching_it_one_file_at_a_time(
    repo: Repo, store: sqlite3.Connection
) -> None:
    """A module no test calls, nor through one function, is still run by the tests calling what calls it: its
    contract lists the nearest of those, one of each test file in turn, not "none found"; a module that tests
    call keeps those, in their order."""
    repo.write("app/low.py", "def tokens(text):\n    return text.split()\n")
    repo.write("app/mid.py", "from app.low import tokens\n\n\ndef words(text):\n    return tokens(text)\n")
    repo.write("app/top.py", "from app.mid import words\n\n\ndef count(text):\n    return len(words(text))\n")
    for name in ("one", "two"):
        repo.write(
            f"tests/test_{name}.py",
            "from app.top import count\n\n\n"
            + "".join(f"def test_{name}_{k}():\n    assert count('a b') == 2\n\n\n" for k in range(2)),
        )
    from codeannals.indexer.run import index_tree

    index_tree(repo.root, store)
    in_turn = ["tests/test_one.py::test_one_0", "tests/test_two.py::test_two_0"]
    in_turn += ["tests/test_one.py::test_one_1", "tests/test_two.py::test_two_1"]
    assert queries.module_contract(store, "app/low.py")["tests"] == in_turn
    assert queries.module_contract(store, "app/top.py")["tests"] == sorted(in_turn)


def test_unittest_and_pytest_run_a_test_classs_setup_for_each_of_its_tests(
    repo: Repo, store: sqlite3.Connection
) -> None:
    """A test class's `setUp` (and pytest's `setup_method`) runs for each test of the class and of the classes deriving
    from it, a base of the project's own that pytest does not collect included: the setUp itself, and what it calls,
    reach those tests. No test calls it by name: it listed every test file writing `setUp`."""
    from codeannals.indexer.run import index_tree

    repo.write("pkg/__init__.py", "")
    repo.write("pkg/code.py", "def answer():\n    return 42\n\n\ndef prepare():\n    return 1\n")
    repo.write(
        "tests/base.py",
        "import unittest\n\nfrom pkg.code import prepare\n\n\nclass Base(unittest.TestCase):\n"
        "    def setUp(self):\n        self.ready = prepare()\n",
    )
    repo.write(
        "tests/test_code.py",
        "from pkg.code import answer\nfrom tests.base import Base\n\n\nclass AnswerCase(Base):\n"
        "    def setUp(self):\n        super().setUp()\n\n    def test_answer(self):\n        assert answer()\n\n\n"
        "class OtherCase(Base):\n    def test_other(self):\n        assert self.ready\n\n\n"
        "class TestPlain:\n    def setup_method(self):\n        self.n = 1\n\n    def test_plain(self):\n"
        "        assert self.n\n",
    )
    repo.write(
        "tests/test_more.py",
        "class TestMore:\n    def setUp(self):\n        pass\n\n    def test_more(self):\n        pass\n",
    )
    repo.commit()
    index_tree(repo.root, store)

    def tests(symbol: str) -> list[str]:
        return sorted(queries.impact(store, symbol)["tests"])

    answer, other = "tests/test_code.py::AnswerCase::test_answer", "tests/test_code.py::OtherCase::test_other"
    assert tests("tests/test_code.py::AnswerCase.setUp") == [answer]
    assert tests("tests/base.py::Base.setUp") == [answer, other]
    assert tests("pkg/code.py::prepare") == [answer, other]
    assert tests("tests/test_code.py::TestPlain.setup_method") == ["tests/test_code.py::TestPlain::test_plain"]
    basis = queries.impact(store, "tests/test_code.py::AnswerCase.setUp")["tests_basis"][0]["basis"]
    assert basis == "the test runner runs it for each test of AnswerCase"


def test_a_subclass_picked_from_a_registry_is_run_by_the_tests_making_it_not_by_every_test_of_the_base(
    repo: Repo, store: sqlite3.Connection
) -> None:
    """`self.transport.notify()` on a Transport that a registry picks by key may run any transport's notify, so every
    test notifying a channel reaches Email.notify through it; only those making an email channel (the key `"email"`
    that the calling file maps to Email, or the class's name) run it. Where none says which, all stay."""
    from codeannals.indexer.run import index_tree

    repo.write(
        "app/transports.py",
        "class Transport:\n    def __init__(self, channel):\n        self.channel = channel\n\n"
        "    def notify(self):\n        raise NotImplementedError\n\n\n"
        "class Email(Transport):\n    def notify(self):\n        return 'mailed'\n\n\n"
        "class Slack(Transport):\n    def notify(self):\n        return 'posted'\n\n\n"
        "class Pager(Transport):\n    def notify(self):\n        return 'paged'\n",
    )
    repo.write(
        "app/models.py",
        "from app import transports\n\n"
        'TRANSPORTS = {\n    "email": ("Email", transports.Email),\n    "slack": ("Slack", transports.Slack),\n'
        '    "pager": ("Pager", transports.Pager),\n}\n\n\n'
        "class Channel:\n    def __init__(self, kind):\n        self.kind = kind\n\n"
        "    @property\n    def transport(self) -> transports.Transport:\n"
        "        _, cls = TRANSPORTS[self.kind]\n        return cls(self)\n\n"
        "    def notify(self):\n        return self.transport.notify()\n",
    )
    for kind in ("email", "slack"):
        repo.write(
            f"tests/test_notify_{kind}.py",
            f'from app.models import Channel\n\n\ndef test_{kind}():\n    assert Channel("{kind}").notify()\n',
        )
    repo.write(  # makes its channel from a variable: the text cannot say which transport it runs
        "tests/test_any.py",
        'from app.models import Channel\n\nKIND = "pa" + "ger"\n\n\n'
        "def test_any():\n    assert Channel(KIND).notify()\n",
    )
    # A hook called on `self` runs whichever step the caller holds, and run_all holds them all: nothing is picked here.
    repo.write(
        "app/steps.py",
        "class Step:\n    def run(self):\n        return self.work()\n\n    def work(self):\n        return 0\n\n\n"
        + "".join(f"class {c}(Step):\n    def work(self):\n        return {n}\n\n\n" for n, c in enumerate("ABC", 1))
        + "def run_all():\n    return [step().run() for step in Step.__subclasses__()]\n",
    )
    repo.write("tests/test_steps.py", "from app.steps import B\n\n\ndef test_b():\n    assert B().run() == 2\n")
    repo.write("tests/test_all_steps.py", "from app import steps\n\n\ndef test_all():\n    assert steps.run_all()\n")
    repo.write(
        "tests/test_sum.py",
        "from app import steps\n\n\ndef test_sum():  # A's, B's, C's\n    assert sum(steps.run_all()) == 6\n",
    )
    index_tree(repo.root, store)

    def listed(ref: str) -> list[str]:
        return [t.test for t in testmap.tests_for_symbol(store, queries.find_symbol(store, ref), root=repo.root)]

    assert listed("app/transports.py::Email.notify") == ["tests/test_notify_email.py::test_email"]
    assert listed("app/transports.py::Slack.notify") == ["tests/test_notify_slack.py::test_slack"]
    assert sorted(listed("app/transports.py::Pager.notify")) == [  # no test file names Pager or "pager"
        "tests/test_any.py::test_any",
        "tests/test_notify_email.py::test_email",
        "tests/test_notify_slack.py::test_slack",
    ]
    assert len(listed("app/models.py::Channel.notify")) == 3  # the base's own callers: no dispatch to narrow
    assert {"tests/test_all_steps.py::test_all", "tests/test_sum.py::test_sum"} <= set(listed("app/steps.py::B.work"))
    everything = testmap.tests_for_symbol(store, queries.find_symbol(store, "app/transports.py::Email.notify"))
    assert len(everything) == 3  # without the files to read, the calls alone cannot tell
    data, _ = contextpack.build_pack(repo.root, store, "Email.notify should say sent, not mailed", budget=4000)
    # The pack runs the candidate's own tests first, then its module's: test_notify_slack tests the module, not Email
    assert data["tests"][0] == {
        "test": "tests/test_notify_email.py::test_email",
        "why": "calls Channel.notify, which reaches Email.notify (line 5)",
    }
    assert all("Email.notify" not in t["why"] for t in data["tests"][1:]), data["tests"]
