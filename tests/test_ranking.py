"""The ranking core (store/ranking.py) on small real repositories: what a task is about, as an engineer reads it."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from codeannals.indexer.git.githistory import backfill
from codeannals.indexer.run import index_tree
from codeannals.server.contextpack import build_pack
from codeannals.store import open_store, queries
from codeannals.store.ranking import MAX_CANDIDATES, about_kind, file_kind, is_task_sized, rank_task

from .conftest import Repo


@pytest.fixture
def conn(db_path: Path) -> Iterator[sqlite3.Connection]:
    c = open_store(db_path)
    yield c
    c.close()


def indexed(repo: Repo, conn: sqlite3.Connection, files: dict[str, str]) -> sqlite3.Connection:
    for path, text in files.items():
        repo.write(path, text)
    repo.commit("initial import")
    index_tree(repo.root, conn, source="cli")
    return conn


def first_file(conn: sqlite3.Connection, task: str) -> str:
    return rank_task(conn, task).ranked_files()[0]


def test_an_identifier_in_the_task_wins_over_its_words(repo: Repo, conn: sqlite3.Connection) -> None:
    # Every word of the task is in cookies.py's docstrings; only headers.py has the function it names.
    indexed(
        repo,
        conn,
        {
            "app/cookies.py": '"""Cookies."""\n\n\ndef parse_cookie(value):\n'
            '    """Parse a cookie header value into options."""\n    return value\n\n\n'
            'def dump_cookie(options):\n    """Dump cookie options into a header value."""\n'
            "    return options\n",
            "app/headers.py": "def parse_options_header(value):\n    return value.split(';')\n",
        },
    )
    ranking = rank_task(conn, "parse_options_header drops the cookie header value options")
    assert ranking.ranked_files()[0] == "app/headers.py"
    best = ranking.ranked_symbols()[0]
    assert best.symbol["id"] == "app/headers.py::parse_options_header"
    assert "named in the task" in best.why
    # A file named as a maintainer names it, without its folder, wins over the words as well.
    ranking = rank_task(conn, "Update headers.py: the cookie header value options are dumped twice")
    assert ranking.ranked_files()[0] == "app/headers.py"
    assert "named in the task" in ranking.why["app/headers.py"]


def test_a_config_file_does_not_outrank_code(repo: Repo, conn: sqlite3.Connection) -> None:
    indexed(
        repo,
        conn,
        {
            "pyproject.toml": "[tool.retry]\nretry_timeout = 5\nbackoff = 2\n",
            ".github/workflows/tests.yaml": "name: retry timeout backoff\non: push\njobs:\n  retry:\n    runs-on: x\n",
            "app/net.py": "def fetch(url, retries=3):\n"
            '    """Fetch a url, retrying with backoff until the timeout."""\n    return url\n',
        },
    )
    ranking = rank_task(conn, "retry backoff ignores the timeout")
    assert ranking.ranked_files()[0] == "app/net.py"
    assert any("the task is not about config" in w for w in ranking.why["pyproject.toml"])
    # ... unless the task is about configuration.
    assert first_file(conn, "pyproject retry timeout setting is ignored") == "pyproject.toml"


def test_a_stub_folds_into_its_module(repo: Repo, conn: sqlite3.Connection) -> None:
    indexed(
        repo,
        conn,
        {
            "pkg/structures.py": (
                "class MultiDict(dict):\n    def to_dict(self, flat=True):\n        return dict(self)\n"
            ),
            "pkg/structures.pyi": "class MultiDict(dict):\n    def to_dict(self, flat: bool = ...) -> dict: ...\n",
            "pkg/other.py": "def to_list(multi):\n    return list(multi)\n",
        },
    )
    ranking = rank_task(conn, "MultiDict.to_dict ignores flat")
    files = ranking.ranked_files()
    assert files[0] == "pkg/structures.py"
    assert "pkg/structures.pyi" not in files
    assert any("stub structures.pyi" in w for w in ranking.why["pkg/structures.py"])
    assert all(c.symbol["path"] != "pkg/structures.pyi" for c in ranking.ranked_symbols())


def test_history_ranks_a_file_that_changed_with_a_similar_message(repo: Repo, conn: sqlite3.Connection) -> None:
    # The task's words are in no symbol of the right file; a past commit with a message like it changed that file.
    repo.write("app/serving.py", "def run(app):\n    return app\n")
    repo.write(
        "app/routing.py",
        'def match(rule, path):\n    """Match a request path against a rule."""\n    return rule == path\n',
    )
    repo.commit("initial import")
    repo.write("app/serving.py", "def run(app):\n    started = [app]\n    return started[0]\n")
    repo.commit("Reloader restarts twice on Windows")
    index_tree(repo.root, conn, source="cli")
    task = "reloader restarts the request twice"
    assert rank_task(conn, task).ranked_files() == ["app/routing.py"]  # words alone: 'request' is in its docstring
    backfill(repo.root, conn)
    ranking = rank_task(conn, task)
    assert "app/serving.py" in ranking.ranked_files()
    assert any(w.startswith("changed with similar commits") for w in ranking.why["app/serving.py"])


def test_a_task_sized_search_finds_symbols_holding_some_of_its_words(repo: Repo, conn: sqlite3.Connection) -> None:
    indexed(
        repo,
        conn,
        {
            "app/multipart.py": 'def parse_boundary(header):\n    """The multipart boundary of a content type."""\n'
            "    return header\n",
            "app/json.py": "def loads(text):\n    return text\n",
        },
    )
    hits = queries.search(conn, "the multipart boundary is lost when the header is quoted")
    assert hits and hits[0]["id"] == "app/multipart.py::parse_boundary"
    assert hits[0]["why"]
    assert queries.search(conn, "parse boundary")[0]["id"] == "app/multipart.py::parse_boundary"
    assert queries.search(conn, "json boundary") == []  # two words: every word must match, as before


def test_file_kinds_and_task_sized_queries() -> None:
    assert file_kind("dist/esm/axios.js", "javascript") == "generated"
    assert file_kind("karma.conf.cjs", "javascript") == "config"
    assert file_kind(".github/workflows/ci.yml", "yaml") == "ci"
    assert file_kind("examples/server.js", "javascript") == "example"
    assert file_kind("lib/axios.js", "javascript") == "code"
    assert not about_kind("generated", "dist/axios.js", {"axios", "exports"}, [])  # a bundle bears the project's name
    assert about_kind("config", "pyproject.toml", {"pyproject", "version"}, [])
    assert not is_task_sized("parse_options_header_value")
    assert is_task_sized("multipart boundary quoted header")


def test_annals_pack_prints_the_pack_and_its_json(repo: Repo, annals) -> None:  # type: ignore[no-untyped-def]
    repo.write(
        "shop/prices.py",
        'def parse_price(text):\n    """A price from text like \'12.50\'."""\n    return float(text)\n',
    )
    repo.commit("prices")
    annals("index", "--no-vectors")
    text = annals("pack", "parse_price rejects a comma", "--budget", "1000").stdout
    assert "# Context pack" in text and "shop/prices.py::parse_price" in text
    data = json.loads(annals("pack", "parse_price rejects a comma", "--json").stdout)
    assert data["symbols"][0]["id"] == "shop/prices.py::parse_price"
    assert "named in the task" in data["symbols"][0]["why"]
    assert data["tokens_used"] <= data["budget_tokens"]
    bad = annals("pack", "parse_price", "--budget", "10", check=False)
    assert bad.returncode != 0 and "--budget" in bad.stderr and "Traceback" not in bad.stderr


def test_the_pack_lists_more_symbols_of_its_files_by_signature(repo: Repo, conn: sqlite3.Connection) -> None:
    body = '    """Retry the request with backoff."""\n    return request\n\n\n'
    functions = "".join(f"def retry_{n}(request):\n{body}" for n in range(8))
    indexed(repo, conn, {"app/retry.py": functions, "app/other.py": "def unrelated():\n    return 1\n"})
    pack, _ = build_pack(repo.root, conn, "retry backoff for the request", 8000)
    symbols = pack["symbols"]
    assert len(symbols) > MAX_CANDIDATES
    assert {s["path"] for s in symbols} == {"app/retry.py"}  # no file the ranking did not put first
    assert all(s["source"] for s in symbols[:2]) and all(s["source"] is None for s in symbols[MAX_CANDIDATES:])


def test_a_call_the_task_names_ranks_its_caller(repo: Repo, conn: sqlite3.Connection) -> None:
    indexed(
        repo,
        conn,
        {
            "app/pin.py": "import getpass\n\n\ndef machine_pin():\n    return getpass.getuser()\n",
            "app/users.py": 'def current_user(request):\n    """The user of the request, or an anonymous one."""\n'
            "    return request\n",
        },
    )
    ranking = rank_task(conn, "catch OSError from getpass.getuser when the user is unknown")
    best = ranking.ranked_symbols()[0]
    assert best.symbol["id"] == "app/pin.py::machine_pin"
    assert "calls getpass.getuser" in best.why
    assert ranking.ranked_files()[0] == "app/pin.py"


def test_index_records_the_newest_commits_within_a_limit_and_says_how_many_are_left(
    repo: Repo, conn: sqlite3.Connection, annals
) -> None:  # type: ignore[no-untyped-def]
    for n in range(4):
        repo.write("app/mod.py", f"def f():\n    return {n}\n")
        repo.commit(f"change {n}")
    index_tree(repo.root, conn, source="cli")
    report = backfill(repo.root, conn, limit=2)
    assert (report.recorded, report.already, report.reachable) == (2, 0, 4)
    titles = {r[0] for r in conn.execute("SELECT title FROM commits")}
    assert titles == {"change 3", "change 2"}  # the newest
    assert backfill(repo.root, conn, limit=2, seconds=0.0).recorded == 0  # both known already
    data = json.loads(annals("index", "--no-vectors", "--json").stdout)
    assert data["history"]["reachable"] == 4 and data["history"]["recorded"] + data["history"]["already"] == 4
