"""Git hooks installed into real repositories and driven by real `git commit`, rebase and merge."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest
from codeannals.hooks import install as hook_install

PLAIN_PATH = "/usr/local/bin:/usr/bin:/bin"  # no venv on PATH: the shim must find Python by itself


def git_run(
    repo, *args: str, check: bool = True, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, "PATH": PLAIN_PATH, **(env or {})}
    proc = subprocess.run(["git", *args], cwd=repo.root, capture_output=True, text=True, env=full_env)
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} exited {proc.returncode}: {proc.stderr}")
    return proc


def events(repo, *types: str) -> list[dict]:
    conn = sqlite3.connect(repo.root / ".annals" / "annals.db")
    try:
        sql = 'SELECT type, source, "commit", payload FROM events'
        rows = conn.execute(
            sql + (f" WHERE type IN ({','.join('?' * len(types))})" if types else "") + " ORDER BY seq", types
        ).fetchall()
    finally:
        conn.close()
    return [{"type": t, "source": s, "commit": c, "payload": json.loads(p)} for t, s, c, p in rows]


def blake(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


@pytest.fixture
def hooked(repo, annals):
    repo.write("app.py", "def serve():\n    return 1\n")
    repo.commit("base")
    annals("index", "--no-history")  # the hooks record the commits here
    annals("hooks", "install")
    return repo


def test_commit_indexes_staged_blobs_and_records_the_commit(hooked, annals) -> None:
    repo = hooked
    repo.write("app.py", "def serve():\n    return 2\n")
    git_run(repo, "add", "app.py")
    repo.write("app.py", "def serve():\n    return 3\n")  # the work tree moves on; the commit has 2
    git_run(repo, "commit", "-q", "-m", "serve two\n\nGoal-Id: G-9\nAgent-Id: claude")
    head = repo.git("rev-parse", "HEAD").strip()
    indexed = [e for e in events(repo, "file.indexed") if e["source"] == "hook"]
    assert [e["payload"]["content_hash"] for e in indexed] == [blake("def serve():\n    return 2\n")]
    (recorded,) = events(repo, "commit.recorded")
    assert recorded["commit"] == head and recorded["source"] == "hook"
    p = recorded["payload"]
    assert (p["goal_id"], p["agent"], p["author"]) == ("G-9", "claude", "Test <test@example.com>")
    assert [(c["id"], c["changed"]) for c in p["changed_symbols"]] == [("app.py::serve", "body")]
    assert p["modules"] == ["app"]
    assert json.loads(annals("verify", "--json").stdout)["ok"] is True
    # The hook ran again for nothing: no duplicate.
    annals("hooks", "run", "post-commit")
    assert len(events(repo, "commit.recorded")) == 1


def test_a_file_committed_as_it_is_on_disk_is_not_pending_after_the_commit(hooked, annals) -> None:
    """The hooks index the staged blob; the work tree's file holds the same bytes, so freshness must not count it
    as differing from the index (it did until the next `annals index`). One edited since it was staged is."""
    repo = hooked
    repo.write("app.py", "def serve():\n    return 2\n")
    repo.write("other.py", "def other():\n    return 0\n")
    git_run(repo, "add", "app.py", "other.py")
    repo.write("other.py", "def other():\n    return 1\n")  # edited after it was staged
    git_run(repo, "commit", "-q", "-m", "serve two")
    status = json.loads(annals("status", "--json").stdout)
    assert (status["pending_sample"], status["head_matches"]) == (["other.py"], True)


def test_commit_all_and_commit_path_use_their_temporary_index(hooked) -> None:
    repo = hooked
    repo.write("other.py", "def other():\n    return 0\n")
    git_run(repo, "add", "other.py")
    git_run(repo, "commit", "-q", "-m", "other")
    repo.write("app.py", "def serve():\n    return 'all'\n")
    git_run(repo, "commit", "-q", "-a", "-m", "commit -a")
    hashes = [e["payload"]["content_hash"] for e in events(repo, "file.indexed") if e["source"] == "hook"]
    assert blake("def serve():\n    return 'all'\n") in hashes
    repo.write("other.py", "def other():\n    return 'staged, not committed'\n")
    git_run(repo, "add", "other.py")
    repo.write("app.py", "def serve():\n    return 'path'\n")
    git_run(repo, "commit", "-q", "-m", "commit PATH", "app.py")
    hashes = [e["payload"]["content_hash"] for e in events(repo, "file.indexed") if e["source"] == "hook"]
    assert blake("def serve():\n    return 'path'\n") in hashes
    assert blake("def other():\n    return 'staged, not committed'\n") not in hashes


def test_an_existing_hook_is_chained_and_restored_byte_for_byte(repo, annals, tmp_path: Path) -> None:
    repo.write("a.py", "x = 1\n")
    repo.commit()
    annals("index", "--no-history")
    marker = tmp_path / "ran"
    hook = repo.root / ".git" / "hooks" / "pre-commit"
    original = f"#!/bin/sh\n# hand-written\necho ran >> '{marker}'\nexit ${{FAIL:-0}}\n".encode()
    hook.write_bytes(original)
    hook.chmod(0o751)
    report = json.loads(annals("hooks", "install", "--json").stdout)
    assert report["hooks"]["pre-commit"] == {"state": "chained", "chained": True}
    assert json.loads(annals("hooks", "status", "--json").stdout)["installed"] is True
    repo.write("a.py", "def f():\n    return 1\n")
    git_run(repo, "add", "a.py")
    git_run(repo, "commit", "-q", "-m", "chained")
    assert marker.read_text() == "ran\n" and len(events(repo, "commit.recorded")) == 1
    repo.write("a.py", "def f():\n    return 2\n")
    git_run(repo, "add", "a.py")
    failed = git_run(repo, "commit", "-q", "-m", "blocked by the original", check=False, env={"FAIL": "1"})
    assert failed.returncode != 0 and len(events(repo, "commit.recorded")) == 1
    annals("hooks", "uninstall")
    assert hook.read_bytes() == original and oct(hook.stat().st_mode & 0o777) == oct(0o751)
    assert not (repo.root / ".git" / "hooks" / "post-commit").exists()


def test_husky_style_hooks_path_keeps_working(repo, annals, tmp_path: Path) -> None:
    """husky v9 sets core.hooksPath=.husky/_ and finds the user's script from $0."""
    repo.write("a.py", "x = 1\n")
    repo.write(".husky/pre-commit", f"echo husky-user-hook >> '{tmp_path}/husky'\n")
    repo.write(
        ".husky/_/h",
        '#!/usr/bin/env sh\nn=$(basename "$0")\ns=$(dirname "$(dirname "$0")")/$n\n'
        '[ ! -f "$s" ] && exit 0\nsh -e "$s" "$@"\n',
    )
    repo.write(".husky/_/pre-commit", '#!/usr/bin/env sh\n. "$(dirname "$0")/h"\n')
    os.chmod(repo.root / ".husky/_/pre-commit", 0o755)  # noqa: S103 - a hook must be executable
    repo.commit()
    repo.git("config", "core.hooksPath", ".husky/_")
    annals("index", "--no-history")
    report = json.loads(annals("hooks", "install", "--json").stdout)
    assert report["hooks_dir"].endswith(".husky/_") and report["hooks"]["pre-commit"]["state"] == "chained"
    repo.write("a.py", "def f():\n    return 1\n")
    git_run(repo, "add", "a.py")
    git_run(repo, "commit", "-q", "-m", "through husky")
    assert (tmp_path / "husky").read_text() == "husky-user-hook\n"
    assert len(events(repo, "commit.recorded")) == 1 and events(repo, "file.indexed")[-1]["source"] == "hook"


def test_gate_warns_or_blocks_naming_files_and_fix(hooked) -> None:
    repo = hooked
    repo.git("config", "annals.protectedPath", "secrets/*")
    repo.write("secrets/key.py", "KEY = 1\n")
    git_run(repo, "add", "secrets/key.py")
    repo.git("config", "annals.gate", "block")
    blocked = git_run(repo, "commit", "-q", "-m", "leak", check=False)
    assert blocked.returncode != 0
    assert "secrets/key.py" in blocked.stderr and "fix: unstage them" in blocked.stderr
    assert "commit blocked" in blocked.stderr
    repo.git("config", "annals.gate", "warn")
    repo.write("unindexed.py", "def later():\n    return 0\n")  # the work tree is ahead of the index
    warned = git_run(repo, "commit", "-q", "-m", "leak anyway")
    assert "secrets/key.py" in warned.stderr and "unindexed.py" in warned.stderr
    assert "run `annals index`" in warned.stderr
    repo.git("config", "annals.gate", "sometimes")
    bad = git_run(repo, "commit", "-q", "--allow-empty", "-m", "bad config", check=False)
    assert bad.returncode != 0 and "annals.gate warn" in bad.stderr


def test_commit_msg_policy_requires_goal_id_when_on(hooked) -> None:
    repo = hooked
    repo.write("app.py", "def serve():\n    return 5\n")
    git_run(repo, "add", "app.py")
    repo.git("config", "annals.requireGoalId", "true")
    refused = git_run(repo, "commit", "-q", "-m", "no goal", check=False)
    assert refused.returncode != 0 and "Goal-Id" in refused.stderr
    git_run(repo, "commit", "-q", "-m", "with goal\n\nGoal-Id: G-1")
    assert events(repo, "commit.recorded")[-1]["payload"]["goal_id"] == "G-1"


def test_amend_rebase_cherry_pick_and_merge_record_each_new_commit_once(hooked) -> None:
    repo = hooked
    repo.write("app.py", "def serve():\n    return 10\n")
    git_run(repo, "commit", "-q", "-a", "-m", "ten")
    old = repo.git("rev-parse", "HEAD").strip()
    git_run(repo, "commit", "-q", "--amend", "-m", "ten, amended")
    amended = repo.git("rev-parse", "HEAD").strip()
    rewrites = [e["payload"] for e in events(repo, "commit.rewritten")]
    assert rewrites == [{"kind": "amend", "new": amended, "old": old}]
    git_run(repo, "checkout", "-q", "-b", "topic", "HEAD~1")
    for n in (1, 2):
        repo.write(f"t{n}.py", f"def t{n}():\n    return {n}\n")
        git_run(repo, "add", f"t{n}.py")
        git_run(repo, "commit", "-q", "-m", f"topic {n}")
    git_run(repo, "rebase", "-q", "main")
    rebased = repo.git("rev-list", "main..topic").split()
    git_run(repo, "checkout", "-q", "main")
    repo.write("c.py", "def c():\n    return 0\n")
    git_run(repo, "add", "c.py")
    git_run(repo, "commit", "-q", "-m", "to pick")
    git_run(repo, "checkout", "-q", "topic")
    git_run(repo, "cherry-pick", "main")
    picked = repo.git("rev-parse", "HEAD").strip()
    git_run(repo, "checkout", "-q", "main")
    git_run(repo, "merge", "-q", "--no-ff", "topic", "-m", "merge topic")
    merge = repo.git("rev-parse", "HEAD").strip()
    recorded = [e["commit"] for e in events(repo, "commit.recorded")]
    assert len(recorded) == len(set(recorded))
    for commit in [amended, *rebased, picked, merge]:
        assert commit in recorded
    assert len([e for e in events(repo, "commit.rewritten") if e["payload"]["kind"] == "rebase"]) == 2


def test_unmerged_index_gets_a_message_and_no_events(hooked, annals) -> None:
    repo = hooked
    git_run(repo, "checkout", "-q", "-b", "side")
    repo.write("app.py", "def serve():\n    return 'side'\n")
    git_run(repo, "commit", "-q", "-a", "-m", "side")
    git_run(repo, "checkout", "-q", "main")
    repo.write("app.py", "def serve():\n    return 'main'\n")
    git_run(repo, "commit", "-q", "-a", "-m", "main")
    before = len(events(repo))
    git_run(repo, "merge", "side", check=False)
    proc = annals("hooks", "run", "pre-commit", check=False)
    assert proc.returncode == 0 and "unmerged entries (app.py)" in proc.stderr
    assert len(events(repo)) == before


def test_install_refreshes_and_reports_a_missing_interpreter(repo, annals) -> None:
    repo.write("a.py", "x = 1\n")
    repo.commit()
    first = hook_install.install(repo.root, python="/nonexistent/python")
    assert first["hooks"]["post-commit"]["state"] == "installed"
    status = hook_install.status(repo.root)
    assert status["hooks"]["post-commit"]["python_exists"] is False
    proc = git_run(repo, "commit", "-q", "--allow-empty", "-m", "still commits")
    assert "is gone" in proc.stderr
    again = json.loads(annals("hooks", "install", "--json").stdout)
    assert again["hooks"]["post-commit"] == {"state": "refreshed", "chained": False}
    assert hook_install.status(repo.root)["hooks"]["post-commit"]["python_exists"] is True


def _big_module(n: int) -> str:
    """About 5 KB of Python: a dozen functions."""
    doc = "Padding the docstring. " * 12
    return "".join(f'def f{n}_{i}(value):\n    """{doc}"""\n    return value + {i}\n\n\n' for i in range(12))


def test_a_big_commit_is_indexed_by_a_background_job_and_recorded_after_its_files(hooked, annals) -> None:
    from codeannals.hooks.jobs import SYNC_PARSE_BYTES

    repo = hooked
    texts = {f"pkg/m{n}.py": _big_module(n) for n in range(20)}
    assert sum(map(len, texts.values())) > SYNC_PARSE_BYTES  # too much to parse while git waits
    for rel, text in texts.items():
        repo.write(rel, text)
    git_run(repo, "add", "pkg")
    repo.write("app.py", "def serve():\n    return 'all'\n")
    git_run(repo, "commit", "-q", "-a", "-m", "big")  # -a: a temporary index, gone when the job runs
    assert (repo.root / ".annals" / "jobs").is_dir()  # the hooks handed their work on
    assert json.loads(annals("hooks", "wait", "--json").stdout) == {"failed": 0, "jobs_failed": []}
    status = json.loads(annals("hooks", "status", "--json").stdout)
    assert status["jobs_pending"] == [] and status["jobs_failed"] == []

    conn = sqlite3.connect(repo.root / ".annals" / "annals.db")
    rows = conn.execute(
        'SELECT seq, type, source, payload, "commit" FROM events'
        " WHERE type IN ('file.indexed', 'commit.recorded') ORDER BY seq"
    ).fetchall()
    conn.close()
    indexed = {
        json.loads(p)["path"]: (seq, json.loads(p)["content_hash"])
        for seq, t, source, p, _ in rows
        if t == "file.indexed" and source == "hook"
    }
    assert {path: digest for path, (_, digest) in indexed.items()} == {
        **{rel: blake(text) for rel, text in texts.items()},
        "app.py": blake("def serve():\n    return 'all'\n"),
    }
    (recorded,) = [
        (seq, json.loads(p))
        for seq, t, _, p, commit in rows
        if t == "commit.recorded" and commit == repo.git("rev-parse", "HEAD").strip()
    ]
    assert recorded[0] > max(seq for seq, _ in indexed.values())  # the commit after its files
    added = {c["id"] for c in recorded[1]["changed_symbols"] if c["status"] == "added"}
    assert added == {f"pkg/m{n}.py::f{n}_{i}" for n in range(20) for i in range(12)}
    assert json.loads(annals("verify", "--json").stdout)["ok"] is True


def test_a_job_left_by_a_killed_runner_runs_on_wait_and_a_failing_one_is_kept(hooked, annals) -> None:
    repo = hooked
    repo.write("left.py", "def left():\n    return 1\n")
    blob = repo.git("hash-object", "-w", "left.py").strip()
    jobs = repo.root / ".annals" / "jobs"
    jobs.mkdir(parents=True)
    change = {"status": "A", "old_path": None, "new_path": "left.py", "old_blob": None, "new_blob": blob}
    (jobs / "00000000000000000001-1-index.json").write_text(json.dumps({"kind": "index", "changes": [change]}))
    (jobs / "00000000000000000002-1-mystery.json").write_text(json.dumps({"kind": "mystery", "changes": []}))
    waited = annals("hooks", "wait", check=False)
    assert waited.returncode == 1 and "1 hook jobs failed" in waited.stdout
    indexed = [e["payload"]["path"] for e in events(repo, "file.indexed") if e["source"] == "hook"]
    assert indexed == ["left.py"]
    status = annals("hooks", "status").stdout
    assert "00000000000000000002-1-mystery.json.failed" in status and "hooks.log" in status
    assert "unknown hook job kind 'mystery'" in (repo.root / ".annals" / "logs" / "hooks.log").read_text()
