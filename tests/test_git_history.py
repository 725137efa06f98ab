"""History: backfilled commit events, rename-following symbol history, a symbol at any revision."""

from __future__ import annotations

import json
import sqlite3
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest
from codeannals.indexer.freshness import freshness
from codeannals.indexer.git.gitblobs import FactsCache
from codeannals.indexer.git.githistory import backfill, body, build_event, record_commits, symbol_at, trailers
from codeannals.indexer.git.symdiff import SymbolDiffer
from codeannals.indexer.parsing.extract import FileFacts
from codeannals.indexer.run import index_tree
from codeannals.store import log as event_log
from codeannals.store import open_store, writing
from codeannals.store.events import commit_stream
from codeannals.store.filekinds import indexed_kinds
from codeannals.store.history import rename_chain, symbol_timeline, undescribed_commits
from codeannals.store.maintenance import verify
from codeannals.store.queries import NotFound
from codeannals.store.ranking import rank_task

BODY = "    total = 0\n    for item in items:\n        total += item * {n}\n    return total\n"


@pytest.fixture
def story(repo):
    """parse() is born, changed, renamed to load(), then moved to another file with a change."""
    commits = {}
    repo.write("app/io.py", "def parse(items):\n" + BODY.format(n=1))
    commits["born"] = repo.commit("born")
    repo.write("app/io.py", "def parse(items):\n" + BODY.format(n=2))
    commits["changed"] = repo.commit("changed")
    repo.write("app/io.py", "def load(items):\n" + BODY.format(n=2))
    commits["renamed"] = repo.commit("renamed")
    repo.write("app/io.py", "X = 1\n")
    repo.write("app/loaders.py", "def load(items, strict=False):\n" + BODY.format(n=2))
    commits["moved"] = repo.commit("moved\n\nGoal-Id: G-7\nAgent-Id: codex")
    return repo, commits


@pytest.fixture
def conn(tmp_path: Path):
    connection = open_store(tmp_path / "annals.db")
    yield connection
    connection.close()


def test_backfill_records_each_commit_once(story, conn) -> None:
    repo, commits = story
    report = backfill(repo.root, conn)
    assert (report.commits, report.recorded, report.already) == (4, 4, 0)
    again = backfill(repo.root, conn)
    assert (again.recorded, again.already) == (0, 4)
    rows = conn.execute(
        'SELECT "commit", source, payload FROM events WHERE type = ? ORDER BY seq', ("commit.recorded",)
    ).fetchall()
    assert [json.loads(r[2])["commit"] for r in rows] == [commits[k] for k in ("born", "changed", "renamed", "moved")]
    assert {r[1] for r in rows} == {"cli"}
    moved = json.loads(rows[-1][2])
    assert moved["goal_id"] == "G-7" and moved["agent"] == "codex" and moved["origin"] == "history"
    assert moved["renamed_symbols"][0]["from"] == "app/io.py::load"
    assert moved["renamed_symbols"][0]["to"] == "app/loaders.py::load"
    assert moved["renamed_symbols"][0]["changed"] == "signature"


def test_recording_the_history_leaves_the_index_at_head(story, conn) -> None:
    """The newest event's commit is the HEAD the index reflects (`annals status`, a pack's freshness): the
    commits before HEAD, recorded after the tree was indexed and newest first as `annals index` records
    them, do not move it back to the oldest of them."""
    repo, commits = story
    index_tree(repo.root, conn, source="cli")
    repo.write("app/extra.py", "def extra():\n    return 1\n")  # indexed after the commit below, at it
    head = repo.commit("extra")
    index_tree(repo.root, conn, source="cli")
    newest_first = [head, *(commits[k] for k in ("moved", "renamed", "changed", "born"))]
    assert record_commits(repo.root, conn, newest_first, origin="history", source="cli") == 5
    assert event_log.position(conn).commit == head
    assert freshness(repo.root, conn)["head_matches"] is True


def test_backfill_since_starts_after_the_revision(story, conn) -> None:
    repo, commits = story
    report = backfill(repo.root, conn, since=commits["changed"])
    assert report.recorded == 2
    recorded = {r[0] for r in conn.execute("SELECT commit_id FROM commits")}
    assert recorded == {commits["renamed"], commits["moved"]}


def test_history_follows_renames_and_moves(story, conn) -> None:
    repo, commits = story
    backfill(repo.root, conn)
    assert rename_chain(conn, "app/loaders.py::load") == ["app/loaders.py::load", "app/io.py::load", "app/io.py::parse"]
    timeline = symbol_timeline(conn, "app/loaders.py::load")
    steps = [(e["commit"], e["payload"]["symbol"]["status"]) for e in timeline]
    assert steps == [
        (commits["born"], "added"),
        (commits["changed"], "modified"),
        (commits["renamed"], "renamed"),
        (commits["moved"], "renamed"),
    ]
    # From the oldest name, the same story.
    assert [e["commit"] for e in symbol_timeline(conn, "app/io.py::parse")] == [c for c, _ in steps]


def test_symbol_at_any_revision_under_its_old_names(story, conn) -> None:
    repo, commits = story
    backfill(repo.root, conn)
    old = symbol_at(repo.root, conn, "app/loaders.py::load", commits["born"])
    assert old["id"] == "app/io.py::parse" and old["renamed"] is True
    assert old["source"] == "def parse(items):\n" + BODY.format(n=1).rstrip("\n")
    now = symbol_at(repo.root, conn, "app/loaders.py::load", "HEAD")
    assert now["source"].startswith("def load(items, strict=False):")
    with pytest.raises(NotFound):
        symbol_at(repo.root, conn, "app/loaders.py::nothing", "HEAD")


def test_cli_index_history_then_history_and_show(story, annals) -> None:
    repo, commits = story
    data = json.loads(annals("index", "--history", "--json").stdout)
    assert data["history"]["recorded"] == 4
    history = json.loads(annals("history", "app/loaders.py::load", "--json").stdout)
    commit_steps = [e["commit"] for e in history if e["type"] == "commit.recorded"]
    assert commit_steps == [commits[k] for k in ("born", "changed", "renamed", "moved")]
    assert {e["type"] for e in history} == {"commit.recorded", "symbol.added"}
    shown = json.loads(annals("show", f"app/loaders.py::load@{commits['changed']}", "--json").stdout)
    assert "item * 2" in shown["source"] and shown["path"] == "app/io.py"
    text = annals("show", "app/loaders.py::load@HEAD~3").stdout
    assert "def parse(items):" in text
    proc = annals("show", "app/loaders.py::load", check=False)
    assert proc.returncode == 1 and "SYMBOL@REV" in proc.stderr
    proc = annals("show", "app/loaders.py::load@--output=x", check=False)
    assert proc.returncode == 1 and "not a revision" in proc.stderr
    assert (
        json.loads(annals("index", "--history", "--since", commits["renamed"], "--json").stdout)["history"]["recorded"]
        == 0
    )
    assert json.loads(annals("verify", "--json").stdout)["ok"] is True


def test_trailers_parse_the_last_paragraph_only() -> None:
    assert trailers("title\n\nbody text: not a trailer\n\nGoal-Id: G-1\nRisk: low\n") == {
        "goal-id": ["G-1"],
        "risk": ["low"],
    }
    assert trailers("title\n\nGoal-Id: G-1\nthis line breaks it\n") == {}
    assert trailers("Goal-Id: G-1") == {}


def test_a_commit_body_is_its_message_after_the_title_without_trailers() -> None:
    message = (
        "fix: compare array columns\nwrapped title\n\nNormalize date arrays first.\n"
        "Co-authored-by: A <a@x>\n\n* add tests\n\nGoal-Id: G-1\nRisk: low\n"
    )
    assert body(message) == "wrapped title\nNormalize date arrays first.\n* add tests"
    assert body("title only") == ""


@dataclass(frozen=True)
class RecordedByAnOlderAnnals:
    """A `commit.recorded` as annals stored it before the event carried the message's body."""

    TYPE: ClassVar[str] = "commit.recorded"
    VERSION: ClassVar[int] = 1
    commit: str
    fields: dict[str, Any]

    def stream(self) -> str:
        return commit_stream(self.commit)

    def payload(self) -> dict[str, Any]:
        return self.fields


def test_a_commit_an_older_annals_recorded_gets_its_body_from_git(repo, conn) -> None:  # type: ignore[no-untyped-def]
    repo.write("app/cache.py", "def evict(entries):\n    return entries\n")
    repo.write("app/serving.py", "def run(app):\n    return app\n")
    repo.commit("initial import")
    repo.write("app/cache.py", "def evict(entries):\n    return entries[1:]\n")
    fix = repo.commit("Fix #1203\n\nStale entries survived an eviction.")
    index_tree(repo.root, conn, source="cli")
    with SymbolDiffer(repo.root, conn) as differ:
        fields = build_event(conn, differ, fix, "history", source="cli").payload()
    del fields["body"]
    with writing(conn, source="cli") as writer:
        writer.append([RecordedByAnOlderAnnals(fix, fields)])
    assert undescribed_commits(conn) == [fix]
    before = rank_task(conn, "stale entries survive").why["app/cache.py"]
    assert not any(w.startswith("changed with similar commits") for w in before)  # its title says nothing of it
    report = backfill(repo.root, conn)
    assert (report.recorded, report.described) == (1, 1)  # the initial import, and the fix described
    assert undescribed_commits(conn) == []
    ranking = rank_task(conn, "stale entries survive")
    assert ranking.ranked_files()[0] == "app/cache.py"
    assert any(w.startswith("changed with similar commits") for w in ranking.why["app/cache.py"])
    assert verify(conn)["ok"] is True  # replayed, the log gives the same commits table
    assert backfill(repo.root, conn).described == 0


def test_commits_projection_replays_to_the_same_state(story, tmp_path: Path) -> None:
    from codeannals.store.maintenance import verify

    repo, _ = story
    conn = open_store(tmp_path / "replay.db")
    backfill(repo.root, conn)
    assert verify(conn)["ok"] is True
    raw = sqlite3.connect(tmp_path / "replay.db")
    assert raw.execute("SELECT COUNT(*) FROM commit_symbols WHERE status = 'renamed'").fetchone()[0] == 2
    raw.close()
    conn.close()


def test_a_parse_of_history_that_fails_midway_leaves_no_blob_cached_unparsed(conn) -> None:  # type: ignore[no-untyped-def]
    source = b"def evict(entries):\n    return entries\n"

    def git_died() -> bytes:
        raise OSError("git cat-file --batch exited")

    cache = FactsCache(conn)
    with pytest.raises(OSError):
        cache.prefetch([("app/cache.py", "b1", lambda: source), ("app/serving.py", "b2", git_died)])
    cache.flush()  # as SymbolDiffer.close() does on the way out
    assert conn.execute("SELECT count(*) FROM blob_facts").fetchone()[0] == 0
    facts = FactsCache(conn).facts("app/cache.py", "b1", source)  # parsed now, not read back as nothing
    assert isinstance(facts, FileFacts) and [s["name"] for s in facts.symbols] == ["evict"]


def test_parsed_blobs_are_kept_compressed_and_older_text_is_still_read(conn) -> None:  # type: ignore[no-untyped-def]
    source = b"def evict(entries):\n    return entries\n" * 50
    cache = FactsCache(conn)
    cache.facts("app/cache.py", "b1", source)
    cache.flush()
    (stored,) = conn.execute("SELECT facts FROM blob_facts").fetchone()
    assert isinstance(stored, bytes) and len(stored) * 5 < len(zlib.decompress(stored))
    # as an earlier annals kept them, under the same extractor version: JSON text
    conn.execute("UPDATE blob_facts SET facts = ?", (zlib.decompress(stored).decode(),))
    facts = FactsCache(conn).facts("app/cache.py", "b1", None, load=lambda: None)  # read back, not parsed
    assert isinstance(facts, FileFacts) and [s["name"] for s in facts.symbols] == ["evict"] * 50


def test_a_commit_git_cannot_read_is_left_out_and_said(story, conn) -> None:
    """Objects missing (a blobless clone offline, a damaged repository): the commits whose changes git cannot say
    are not recorded, and the report names them; the others are, where before the whole history stopped at the
    first (hugo's mirror, one missing blob: `annals index` ended in an error after indexing the tree)."""
    repo, commits = story
    tree = repo.git("rev-parse", f"{commits['changed']}:app").strip()
    (repo.root / ".git" / "objects" / tree[:2] / tree[2:]).unlink()
    report = backfill(repo.root, conn)
    assert report.unreadable == [commits["changed"], commits["renamed"]]
    assert report.recorded == 2
    rows = conn.execute("SELECT payload FROM events WHERE type = 'commit.recorded' ORDER BY seq")
    assert [json.loads(r[0])["commit"] for r in rows] == [commits["born"], commits["moved"]]


def test_a_minified_bundle_is_generated_and_its_rebuilds_change_no_symbol(repo, conn) -> None:  # type: ignore[no-untyped-def]
    # babybuddy's graph.js: a build writes 3,991 definitions on one line, and rebuilds it in a commit of every release
    def bundle(n: int) -> str:
        return "".join(f"function f{i}(a){{return a+{n}}}" for i in range(100))

    # A long line of data is no bundle: undici's llhttp.wasm.js, WebAssembly as base64, beside code people wrote
    logo = "function draw(canvas) {\n  return canvas\n}\nconst LOGO = '" + "QUJD" * 5_000 + "'\n"
    for n in (1, 2):
        repo.write("static/app.js", bundle(n))
        repo.write("static/app.css", "".join(f".c{i}{{margin:{n}px}}" for i in range(100)))  # a stylesheet's build
        repo.write("src/app.js", f"function add(a) {{\n  return a + {n}\n}}\n")
        repo.write("src/logo.js", logo.replace("canvas\n", f"canvas + {n}\n"))
        repo.commit(f"release {n}")
    index_tree(repo.root, conn, source="cli")
    backfill(repo.root, conn)
    assert indexed_kinds(conn)["static/app.js"] == indexed_kinds(conn)["static/app.css"] == "generated"
    assert conn.execute("SELECT COUNT(*) FROM symbols WHERE path LIKE 'static/%'").fetchone()[0] == 0
    assert {path for (path,) in conn.execute("SELECT DISTINCT path FROM commit_symbols")} == {
        "src/app.js",
        "src/logo.js",
    }
    assert indexed_kinds(conn)["src/app.js"] == indexed_kinds(conn)["src/logo.js"] == "code"
