"""State, commits with context, safe points and recovery, conflicts and bisect, on real repositories."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from codeannals.hooks import gitops, safepoints
from codeannals.indexer.git.gitstate import git_state
from codeannals.indexer.run import index_tree
from codeannals.store import open_store


@pytest.fixture
def conn(tmp_path: Path):
    connection = open_store(tmp_path / "annals.db")
    yield connection
    connection.close()


def test_state_counts_and_stale_symbols_with_reasons(repo, conn) -> None:
    repo.write("a.py", "def f():\n    return 1\n\n\ndef g():\n    return 1\n")
    repo.write("b.py", "def h():\n    return 1\n")
    repo.commit()
    repo.write("b.py", "def h():\n    return 2\n")  # indexed, not committed
    index_tree(repo.root, conn)
    repo.write("a.py", "def f():\n    return 5\n\n\ndef g():\n    return 1\n")  # not indexed, not committed
    repo.write("c.py", "def new():\n    return 0\n")
    repo.write("fmt.py", "x = 1\n")
    state = git_state(repo.root, conn)
    assert state["branch"] == "main" and state["head_commit"] == repo.git("rev-parse", "HEAD").strip()
    assert state["clean"] is False
    assert state["status_summary"]["modified"] == 2 and state["status_summary"]["untracked"] == 2
    stale = {s["id"]: s["reasons"] for s in state["stale_symbols"]}
    assert stale["a.py::f"] == ["differs from the work tree"]
    assert stale["b.py::h"] == ["differs from HEAD"]
    assert stale["c.py::new"] == ["in the work tree, not indexed yet"]
    assert "a.py::g" not in stale
    assert state["stale_count"] == 3
    repo.write("b.py", "def h():\n    # layout and a comment only\n\n    return 2\n")
    again = {s["id"]: s["reasons"] for s in git_state(repo.root, conn)["stale_symbols"]}
    assert again["b.py::h"] == ["differs from HEAD"]  # the reformatted work tree matches the index


def test_commit_with_context_writes_message_trailers_event_and_safe_point(repo, conn) -> None:
    repo.write("src/app.py", "def serve():\n    return 1\n")
    repo.write("tests/test_app.py", "from app import serve\n\n\ndef test_serve():\n    assert serve()\n")
    repo.commit("base")
    index_tree(repo.root, conn)
    repo.write("src/app.py", "def serve(port=80):\n    return 1\n")
    repo.write("scratch.txt", "unstaged work\n")
    repo.git("add", "src/app.py")
    result = gitops.commit_with_context(
        repo.root,
        conn,
        type="feat",
        agent_id="codex",
        goal="serve on a port",
        goal_id="G-42",
        requirement_tags=["NET-1"],
        risk="medium",
    )
    message = repo.git("log", "-1", "--format=%B")
    assert message.startswith("feat(codex): serve on a port\n\n")
    for trailer in (
        "Goal-Id: G-42",
        "Agent-Id: codex",
        "Requirement-Tags: NET-1",
        "Risk: medium",
        "Changed-Symbols: src/app.py::serve",
        "Tests-Affected: tests/test_app.py",
    ):
        assert trailer in message
    assert result["commit"] == repo.git("rev-parse", "HEAD").strip() and result["pushed"] is False
    event = conn.execute(
        "SELECT payload, source FROM events WHERE stream = ?", (f"commit:{result['commit']}",)
    ).fetchone()
    payload = json.loads(event[0])
    assert payload["goal_id"] == "G-42" and payload["agent"] == "codex" and payload["origin"] == "annals"
    assert payload["changed_symbols"][0]["changed"] == "signature" and event[1] == "cli"
    assert safepoints.list_safepoints(repo.root)[0]["name"] == result["safe_point"]["name"]
    assert (repo.root / "scratch.txt").exists()  # unstaged work untouched


def test_commit_with_context_refusals(repo, conn) -> None:
    repo.write("a.py", "x = 1\n")
    repo.commit()
    with pytest.raises(gitops.OperationRefused, match="auto_push is refused"):
        gitops.commit_with_context(repo.root, conn, type="fix", agent_id="a", goal="g", auto_push=True)
    with pytest.raises(gitops.OperationRefused, match="nothing is staged"):
        gitops.commit_with_context(repo.root, conn, type="fix", agent_id="a", goal="g")
    repo.write("a.py", "x = 2\n")
    repo.git("add", "a.py")
    with pytest.raises(gitops.OperationRefused, match="type 'wip'"):
        gitops.commit_with_context(repo.root, conn, type="wip", agent_id="a", goal="g")
    with pytest.raises(gitops.OperationRefused, match="one non-empty line"):
        gitops.commit_with_context(repo.root, conn, type="fix", agent_id="a", goal="two\nlines")
    assert repo.git("rev-list", "--count", "HEAD").strip() == "1"


def test_safe_point_saves_index_worktree_and_untracked_and_restores_them(repo, conn) -> None:
    repo.write("a.py", "v = 1\n")
    repo.write(".gitignore", "ignored.log\n")
    repo.commit("base")
    repo.write("a.py", "v = 2\n")
    repo.git("add", "a.py")
    repo.write("a.py", "v = 3\n")  # staged 2, work tree 3
    repo.write("new/untracked.py", "u = 1\n")
    repo.write("ignored.log", "noise\n")
    repo.write(".annals/annals.db", "a database, never saved, restored or cleaned away\n")
    point = safepoints.create(repo.root, conn, "before experiment")
    assert ".annals" not in repo.git("ls-tree", "-r", "--name-only", point["commit"])
    assert point["untracked"] == 1 and point["ref"].startswith("refs/annals/safepoints/")
    assert "annals recover checkout_safe_point" in point["how_to_restore"]
    undone = safepoints.undo_uncommitted(repo.root, conn)
    assert (repo.root / "a.py").read_text() == "v = 1\n" and not (repo.root / "new/untracked.py").exists()
    assert (repo.root / "ignored.log").exists()  # ignored files are not ours to delete
    assert (repo.root / ".annals/annals.db").exists()
    assert undone["discarded"]["untracked"] == 1
    restored = safepoints.checkout_safe_point(repo.root, conn, point["name"])
    assert (repo.root / "a.py").read_text() == "v = 3\n"
    assert repo.git("show", ":a.py") == "v = 2\n"
    assert (repo.root / "new/untracked.py").read_text() == "u = 1\n"
    assert "?? new/" in repo.git("status", "--porcelain")  # untracked again, as it was
    assert restored["on"] == "branch main"
    names = [p["name"] for p in safepoints.list_safepoints(repo.root)]
    assert point["name"] in names and len(names) == 3  # the restore saved the present first
    with pytest.raises(safepoints.RecoverError, match="no safe point named"):
        safepoints.recover(repo.root, conn, "checkout_safe_point", name="nope")


def test_safe_point_keeps_an_edit_made_in_the_index_second(repo, conn) -> None:
    """Coarse timestamps (whole seconds, no ctime): an edit of the same size within the second the
    index was written is visible to git only through its racy-file check; the safe point must see it."""
    import os
    import time

    repo.git("config", "core.checkStat", "minimal")
    repo.git("config", "core.trustctime", "false")
    then = time.time() - 10
    path = repo.write("a.py", "v = 1\n")
    os.utime(path, (then, then))
    repo.commit()
    repo.write("a.py", "v = 2\n")
    os.utime(path, (then, then))
    os.utime(repo.root / ".git/index", (then, then))  # written in the same second as the file
    point = safepoints.create(repo.root, conn, "racy")
    assert repo.git("show", f"{point['commit']}:a.py") == "v = 2\n"


def test_restore_branch_from_the_reflog(repo, conn) -> None:
    repo.write("a.py", "v = 1\n")
    first = repo.commit("one")
    repo.write("a.py", "v = 2\n")
    second = repo.commit("two")
    repo.git("reset", "-q", "--hard", first)  # the mistake
    result = safepoints.recover(repo.root, conn, "restore_branch", branch="main")
    assert result["to"] == second and repo.git("rev-parse", "HEAD").strip() == second
    assert (repo.root / "a.py").read_text() == "v = 2\n"
    assert first in result["how_to_undo"]
    with pytest.raises(gitops.BadRef):
        safepoints.recover(repo.root, conn, "restore_branch", branch="-x")


def test_cli_recover_and_safepoints(repo, annals) -> None:
    repo.write("a.py", "v = 1\n")
    repo.commit()
    repo.write("a.py", "v = 2\n")
    data = json.loads(annals("recover", "undo_uncommitted", "--json").stdout)
    assert (repo.root / "a.py").read_text() == "v = 1\n"
    listed = json.loads(annals("safepoints", "--json").stdout)
    assert listed[0]["name"] == data["safe_point"]["name"]
    annals("recover", "checkout_safe_point", "--name", listed[0]["name"])
    assert (repo.root / "a.py").read_text() == "v = 2\n"
    assert json.loads(annals("status", "--json").stdout)["log_position"] > 0  # the database survived
    proc = annals("recover", "checkout_safe_point", check=False)
    assert proc.returncode == 1 and "needs the safe point's name" in proc.stderr


@pytest.fixture
def conflict(repo):
    repo.write("a.py", "value = 'base'\n")
    repo.write("b.py", "other = 'base'\n")
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "side")
    repo.write("a.py", "value = 'side'\n")
    repo.write("b.py", "other = 'side'\n")
    repo.commit("side")
    repo.git("checkout", "-q", "main")
    repo.write("a.py", "value = 'main'\n")
    repo.write("b.py", "other = 'main'\n")
    repo.commit("main")
    subprocess.run(["git", "merge", "side"], cwd=repo.root, capture_output=True, check=False)  # conflicts
    return repo


def test_resolve_conflict_review_ours_theirs(conflict, conn) -> None:
    repo = conflict
    review = gitops.resolve_conflict(repo.root, conn, strategy="manual_review")
    assert review["operation"] == "merge" and review["resolved"] == []
    assert review["remaining_conflicts"] == ["a.py", "b.py"] and review["markers"] == {"a.py": 1, "b.py": 1}
    repo.write("a.py", "value = 'both'\n")
    marked = gitops.resolve_conflict(repo.root, conn, files=["a.py"], strategy="manual_review", notes="merged by hand")
    assert marked["resolved"] == ["a.py"] and marked["remaining_conflicts"] == ["b.py"]
    taken = gitops.resolve_conflict(repo.root, conn, files=["b.py"], strategy="theirs")
    assert (repo.root / "b.py").read_text() == "other = 'side'\n" and taken["remaining_conflicts"] == []
    assert "git commit --no-edit" in taken["next_action"] and "safe_point" in taken
    with pytest.raises(gitops.OperationRefused, match="not in conflict"):
        gitops.resolve_conflict(repo.root, conn, files=["a.py"], strategy="ours")
    rows = conn.execute("SELECT payload FROM events WHERE type = 'conflict.resolved'")
    notes = [json.loads(r[0])["notes"] for r in rows]
    assert "merged by hand" in notes


def test_resolve_conflict_abort_keeps_a_safe_point(conflict, conn) -> None:
    repo = conflict
    before = repo.git("rev-parse", "HEAD").strip()
    result = gitops.resolve_conflict(repo.root, conn, strategy="abort")
    assert result["remaining_conflicts"] == [] and "aborted" in result["next_action"]
    assert repo.git("rev-parse", "HEAD").strip() == before and (repo.root / "a.py").read_text() == "value = 'main'\n"
    assert result["safe_point"]["name"]
    with pytest.raises(gitops.OperationRefused, match="nothing to abort"):
        gitops.resolve_conflict(repo.root, conn, strategy="abort")


def test_rebase_skip(repo, conn) -> None:
    repo.write("a.py", "v = 0\n")
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "topic")
    repo.write("a.py", "v = 'topic'\n")
    repo.commit("topic change")
    repo.write("c.py", "c = 1\n")
    repo.commit("topic adds c")
    repo.git("checkout", "-q", "main")
    repo.write("a.py", "v = 'main'\n")
    repo.commit("main change")
    repo.git("checkout", "-q", "topic")
    subprocess.run(["git", "rebase", "main"], cwd=repo.root, capture_output=True, check=False)
    with pytest.raises(gitops.OperationRefused, match="c.py is not in conflict; conflicted files: a.py"):
        gitops.resolve_conflict(repo.root, conn, files=["c.py"], strategy="ours")
    result = gitops.resolve_conflict(repo.root, conn, strategy="skip")
    assert result["operation"] == "rebase" and result["remaining_conflicts"] == []
    assert (repo.root / "c.py").exists() and (repo.root / "a.py").read_text() == "v = 'main'\n"
    assert repo.git("log", "--format=%s", "-2").split("\n")[:2] == ["topic adds c", "main change"]


def test_bisect_finds_the_first_bad_commit_without_touching_the_checkout(repo) -> None:
    commits = []
    for n in range(8):
        repo.write("value.txt", f"{n}\n")
        commits.append(repo.commit(f"step {n}"))
    repo.write("value.txt", "uncommitted\n")  # the user's work in progress
    test = ["sh", "-c", "test $(cat value.txt) -lt 5"]
    result = gitops.bisect(repo.root, commits[0], commits[-1], test, timeout_seconds=60)
    assert result["first_bad_commit"] == commits[5] and result["title"] == "step 5"
    assert result["stopped"] is None and 1 <= len(result["steps"]) <= 4
    assert (repo.root / "value.txt").read_text() == "uncommitted\n"
    assert repo.git("rev-parse", "HEAD").strip() == commits[-1]
    assert repo.git("worktree", "list").count("\n") == 1
    assert not (repo.root / ".git" / "BISECT_LOG").exists()


def test_bisect_is_bounded_in_time(repo) -> None:
    for n in range(4):
        repo.write("v.txt", f"{n}\n")
        repo.commit(f"s{n}")
    result = gitops.bisect(repo.root, "HEAD~3", "HEAD", ["sleep", "5"], timeout_seconds=1)
    assert result["first_bad_commit"] is None and "1s" in result["stopped"]
    assert repo.git("worktree", "list").count("\n") == 1
