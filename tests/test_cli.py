"""The `annals` command line, run as a real process: JSON on stdout and nothing else, clear errors."""

from __future__ import annotations

import json
import sqlite3

import pytest


@pytest.fixture
def indexed(repo, annals):
    repo.write("src/webapp/__init__.py", "")
    repo.write(
        "src/webapp/urls.py",
        '"""URL helpers for the web app."""\nimport os\n\n\n'
        'def parse_url(raw: str) -> dict:\n    """Split a URL into parts."""\n'
        "    return {'raw': raw}\n\n\ndef _hidden():\n    print('x')\n",
    )
    repo.write(
        "src/webapp/views.py",
        "from webapp.urls import parse_url\n\n\ndef show(request):\n    return parse_url(request)\n",
    )
    repo.write(
        "tests/test_urls.py",
        "from webapp.urls import parse_url\n\n\ndef test_parse_url():\n    assert parse_url('a')\n",
    )
    repo.commit("initial")
    annals("index")
    return repo


def as_json(annals, *args):
    proc = annals(*args, "--json")
    return json.loads(proc.stdout)


def test_index_json_reports_counts(repo, annals) -> None:
    repo.write("a.py", "def f():\n    pass\n")
    report = as_json(annals, "index")
    assert (report["files"], report["indexed"], report["symbols"]) == (1, 1, 1)
    assert as_json(annals, "index")["events"] == 0
    assert ".annals/" in (repo.root / ".git/info/exclude").read_text()


@pytest.mark.parametrize("query", ["parse url", "parseUrl", "url", "parse_url", "PARSE"])
def test_search_is_identifier_aware(indexed, annals, query) -> None:
    ids = [r["id"] for r in as_json(annals, "search", query)]
    assert "src/webapp/urls.py::parse_url" in ids


def test_symbols_rows_carry_the_documented_fields(indexed, annals) -> None:
    rows = as_json(annals, "symbols", "--path", "src/webapp/urls.py")
    assert {
        "id",
        "qualname",
        "name",
        "kind",
        "language",
        "path",
        "start_line",
        "end_line",
        "signature",
        "signature_hash",
        "body_hash",
    } <= set(rows[0])
    assert [r["qualname"] for r in rows] == ["parse_url", "_hidden"]
    assert [r["qualname"] for r in as_json(annals, "symbols", "--kind", "class")] == []


def test_contract_by_path_or_module(indexed, annals) -> None:
    by_path = as_json(annals, "contract", "src/webapp/urls.py")
    by_module = as_json(annals, "contract", "webapp.urls")
    assert by_path == by_module
    assert by_path["role"] == "URL helpers for the web app."
    assert [a["name"] for a in by_path["public_api"]] == ["parse_url"]
    assert by_path["public_api"][0]["inputs"] == ["raw: str"] and by_path["public_api"][0]["output"] == "dict"
    assert by_path["side_effects"] == ["printing"]
    assert by_path["dependents"] == ["src/webapp/views.py", "tests/test_urls.py"]
    assert by_path["tests"] == ["tests/test_urls.py::test_parse_url"]
    assert by_path["last_commit"]["subject"] == "initial"


def test_a_restructuredtext_title_is_not_the_role_the_paragraph_after_it_is(repo, annals) -> None:
    repo.write(
        "pkg/sessions.py",
        '"""\npkg.sessions\n~~~~~~~~~~~~\n\nThis module keeps settings across requests.\nMore.\n"""\n\n\n'
        "def session():\n    return 1\n",
    )
    # Nor is a directive or a field list (werkzeug's and sqlalchemy's modules said ".."): the title stands alone.
    repo.write(
        "pkg/proxy.py",
        '"""\nBasic HTTP Proxy\n================\n\n.. autoclass:: ProxyMiddleware\n\n'
        ':copyright: 2007 Pallets\n:license: BSD-3-Clause\n"""\n\n\nclass ProxyMiddleware:\n    pass\n',
    )
    repo.write(
        "pkg/aio.py",
        '"""\n.. dialect:: mssql+aioodbc\n    :name: aioodbc\n\nSupport for SQL Server in asyncio style. More.\n"""\n',
    )
    repo.write(  # nor a section's title after it
        "pkg/dialect.py",
        '"""\n.. dialect:: mssql\n\nExternal Dialects\n-----------------\n\nThird parties add more. Here.\n"""\n',
    )
    repo.write(  # nor a list's number (normalize.css's `1. Change the default font family...` said "1.")
        "pkg/fonts.py", '"""\n1. Change the default font family. 2. Correct the line height.\n"""\n'
    )
    repo.commit("initial")
    annals("index")
    assert as_json(annals, "contract", "pkg/fonts.py")["role"] == "Change the default font family."
    assert as_json(annals, "contract", "pkg/sessions.py")["role"] == "This module keeps settings across requests."
    assert as_json(annals, "contract", "pkg/dialect.py")["role"] == "Third parties add more."
    assert as_json(annals, "contract", "pkg/proxy.py")["role"] == "Basic HTTP Proxy"
    assert as_json(annals, "contract", "pkg/aio.py")["role"] == "Support for SQL Server in asyncio style."


def test_deps_edges_reverse_and_impact(indexed, annals) -> None:
    edges = as_json(annals, "deps")
    assert {"source": "src/webapp/views.py", "target": "src/webapp/urls.py", "kind": "import"} in edges
    forward = as_json(annals, "deps", "src/webapp/views.py")
    assert [d["target"] for d in forward] == ["src/webapp/urls.py"]
    reverse = [d["path"] for d in as_json(annals, "deps", "src/webapp/urls.py", "--reverse")]
    assert reverse == ["src/webapp/views.py", "tests/test_urls.py"]
    impact = as_json(annals, "impact", "src/webapp/urls.py::parse_url")
    assert impact["tests"] == ["tests/test_urls.py::test_parse_url"]
    assert "src/webapp/views.py" in [d["path"] for d in impact["dependents"]]


def test_history_events_status_rebuild_verify(indexed, annals) -> None:
    urls = (indexed.root / "src/webapp/urls.py").read_text()
    indexed.write("src/webapp/urls.py", urls.replace("'raw': raw", "'raw': raw.strip()"))
    annals("index")
    everything = as_json(annals, "history", "src/webapp/urls.py::parse_url")
    assert "commit.recorded" in [e["type"] for e in everything]  # `annals index` records recent commits
    history = [e for e in everything if e["type"] != "commit.recorded"]
    assert [e["type"] for e in history] == ["symbol.added", "symbol.changed"]
    assert history[1]["payload"]["changed"] == ["body"]
    events = as_json(annals, "events", "--since", str(history[0]["seq"]), "--type", "symbol.changed")
    assert [e["seq"] for e in events] == [history[1]["seq"]]
    status = as_json(annals, "status")
    assert status["files_indexed"] == 4 and status["pending_files"] == 0
    assert status["head"] == indexed.git("rev-parse", "HEAD").strip()
    assert as_json(annals, "rebuild")["events_replayed"] == status["log_position"]
    assert as_json(annals, "verify")["ok"] is True


def test_verify_fails_when_a_projection_differs_from_replay(indexed, annals) -> None:
    conn = sqlite3.connect(indexed.root / ".annals/annals.db")
    conn.execute("UPDATE symbols SET signature = 'tampered'")
    conn.commit()
    conn.close()
    proc = annals("verify", check=False)
    assert proc.returncode == 1
    assert "DIFFERS" in proc.stdout


def test_status_counts_pending_files(indexed, annals) -> None:
    indexed.write("src/webapp/new.py", "def n():\n    pass\n")
    assert as_json(annals, "status")["pending_files"] == 1


def test_unknown_things_get_errors_that_say_what_to_send(indexed, annals) -> None:
    proc = annals("contract", "no/such.py", check=False)
    assert proc.returncode == 1 and "send a repository-relative path" in proc.stderr
    proc = annals("history", "nope", check=False)
    assert proc.returncode == 1 and "annals search" in proc.stderr


def test_commands_before_any_index_say_to_run_index(repo, annals) -> None:
    proc = annals("symbols", check=False)
    assert proc.returncode == 1 and "annals index" in proc.stderr
