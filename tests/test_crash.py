"""SIGKILL the indexer at named points and at random moments: the database opens, verify passes,
no committed event is lost or duplicated, and the next run equals a clean index of the tree."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from codeannals.indexer.complete import complete_all
from codeannals.indexer.run import index_tree
from codeannals.store import open_store
from codeannals.store.maintenance import verify

ANNALS = str(Path(sys.executable).parent / "annals")
FILES = 260  # more than one 200-file transaction, so a crash can land between batches


def make_tree(root: Path, variant: int = 0) -> None:
    for i in range(FILES):
        path = root / f"pkg{i % 7}" / f"mod{i}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            f'"""Module {i}."""\nimport os\n\n\ndef f{i}(x):\n    return x + {i + variant}\n\n\n'
            f"class C{i}:\n    def m(self):\n        return f{i}({variant})\n"
        )


def snapshot(conn: sqlite3.Connection) -> tuple:
    return (
        conn.execute("SELECT path, content_hash FROM files ORDER BY path").fetchall(),
        conn.execute("SELECT id, signature_hash, body_hash, start_line FROM symbols ORDER BY id").fetchall(),
    )


def duplicated_file_events(conn: sqlite3.Connection) -> list[str]:
    """Streams where the same content was recorded twice in a row: a re-appended event."""
    last: dict[str, str] = {}
    dupes = []
    for stream, payload in conn.execute("SELECT stream, payload FROM events WHERE type = 'file.indexed' ORDER BY seq"):
        digest = json.loads(payload)["content_hash"]
        if last.get(stream) == digest:
            dupes.append(stream)
        last[stream] = digest
    return dupes


def run_index(root: Path, db: Path, crash_at: str | None = None, *options: str) -> subprocess.Popen:
    env = dict(os.environ)
    env.pop("ANNALS_CRASH_AT", None)
    if crash_at:
        env["ANNALS_CRASH_AT"] = crash_at
    # No pipes: a pipe held open by a straggler would hang the test, not fail it.
    return subprocess.Popen(
        [ANNALS, "--db", str(db), "-C", str(root), "index", "--no-vectors", "--json", *options],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def check_recovered(root: Path, db: Path, tmp_path: Path) -> None:
    conn = open_store(db)
    assert verify(conn)["ok"]
    committed = conn.execute("SELECT MAX(seq) FROM events").fetchone()[0] or 0
    index_tree(root, conn)
    complete_all(root, db, conn)  # as `annals index --wait`: what a killed run outlined, and its completer's work
    assert verify(conn)["ok"]
    assert conn.execute("SELECT COUNT(*) FROM events WHERE seq <= ?", (committed,)).fetchone()[0] == committed
    assert duplicated_file_events(conn) == []
    fresh = open_store(tmp_path / f"fresh-{random.random()}.db")
    index_tree(root, fresh)
    assert snapshot(conn) == snapshot(fresh)


def test_a_first_index_killed_midway_is_finished_not_extracted_again(tmp_path: Path) -> None:
    """What a killed first index recorded is this code's facts: the next run records only the rest. It used to
    find every recorded file stale (no facts version yet) and append the same content again."""
    root = tmp_path / "tree"
    make_tree(root)
    db = tmp_path / "annals.db"
    # In one pass (a first index otherwise outlines first), killed in its second batch of files, the first committed
    proc = run_index(root, db, "mid-batch:230", "--wait")
    proc.wait(timeout=120)
    assert proc.returncode == -signal.SIGKILL
    conn = open_store(db)
    recorded = conn.execute("SELECT COUNT(*) FROM events WHERE type = 'file.indexed'").fetchone()[0]
    assert 0 < recorded < FILES  # killed between its batches
    index_tree(root, conn)
    assert duplicated_file_events(conn) == []
    assert conn.execute("SELECT COUNT(*) FROM events WHERE type = 'file.indexed'").fetchone()[0] == FILES
    conn.close()


# On a new database the first commits are the schema's: `after-commit` and `after-commit:3` land there, `mid-batch:230`
# between the first index's batches of files (the first committed).
@pytest.mark.parametrize(
    "point", ["before-commit", "after-commit", "mid-batch:150", "before-projections", "after-commit:3", "mid-batch:230"]
)
def test_kill_at_named_point_then_recover(tmp_path: Path, point: str) -> None:
    root = tmp_path / "tree"
    make_tree(root)
    db = tmp_path / "annals.db"
    proc = run_index(root, db, crash_at=point)
    proc.wait(timeout=120)
    assert proc.returncode == -signal.SIGKILL
    make_tree(root, variant=1)  # the tree moves on while the indexer is down
    check_recovered(root, db, tmp_path)


def test_kill_at_random_moments_then_recover(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    make_tree(root)
    db = tmp_path / "annals.db"
    rng = random.Random(7)
    for round_ in range(4):
        proc = run_index(root, db)
        time.sleep(rng.uniform(0.05, 1.0))
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        make_tree(root, variant=round_ + 2)
    check_recovered(root, db, tmp_path)


@pytest.mark.parametrize("nth", [1, 2])
def test_a_hook_killed_after_its_commit_adds_no_duplicate_when_rerun(repo, tmp_path: Path, nth: int) -> None:
    env = {k: v for k, v in os.environ.items() if k != "ANNALS_CRASH_AT"}
    repo.write("a.py", "def a():\n    return 1\n")
    repo.commit("first")
    subprocess.run([ANNALS, "index"], cwd=repo.root, env=env, check=True, capture_output=True)
    repo.write("a.py", "def a():\n    return 2\n")
    commit = repo.commit("second")  # hooks are not installed: the commit is not recorded yet
    # The hook writes twice (the commit's files, then the commit): die after either.
    killed = subprocess.run(
        [ANNALS, "hooks", "run", "post-commit"],
        cwd=repo.root,
        env={**env, "ANNALS_CRASH_AT": f"after-commit:{nth}"},
        capture_output=True,
    )
    assert killed.returncode == -signal.SIGKILL
    rerun = subprocess.run([ANNALS, "hooks", "run", "post-commit"], cwd=repo.root, env=env, capture_output=True)
    assert rerun.returncode == 0, rerun.stderr
    conn = open_store(repo.root / ".annals" / "annals.db")
    recorded = conn.execute(
        "SELECT COUNT(*) FROM events WHERE type = 'commit.recorded' AND json_extract(payload, '$.commit') = ?",
        (commit,),
    ).fetchone()[0]
    assert recorded == 1
    assert verify(conn)["ok"]


def test_a_killed_watcher_leaves_an_index_the_next_run_completes(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    make_tree(root)
    db = tmp_path / "annals.db"
    env = {k: v for k, v in os.environ.items() if k != "ANNALS_CRASH_AT"}
    rng = random.Random(11)
    for round_ in range(3):
        proc = subprocess.Popen(
            [ANNALS, "--db", str(db), "-C", str(root), "watch"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(rng.uniform(0.3, 1.5))
        make_tree(root, variant=round_ + 5)  # edits arrive while it runs
        time.sleep(rng.uniform(0.0, 0.5))
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    check_recovered(root, db, tmp_path)
