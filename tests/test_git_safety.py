"""A hostile repository's configuration never runs, and arguments never become options.

Each program a repository can name in its config is pointed at a script that creates a canary
file; after every git operation of ours, no canary may exist.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest
from codeannals.hooks import gitops, safepoints
from codeannals.indexer.git.gitcmd import BadRef, run_git
from codeannals.indexer.git.githistory import backfill, symbol_at
from codeannals.indexer.git.gitstate import git_state
from codeannals.indexer.git.symdiff import diff_symbols
from codeannals.indexer.run import index_tree
from codeannals.store import open_store

ATTRIBUTES = "*.py filter=evilc diff=evild merge=evilm\n*.txt filter=evilp diff=evilx\n"
HOSTILE_KEYS = {
    "filter.evilc.clean": "clean",
    "filter.evilc.smudge": "smudge",
    "filter.evilc.required": None,
    "filter.evilp.process": "process",
    "diff.evild.textconv": "textconv",
    "diff.evilx.command": "diffcommand",
    "diff.external": "external",
    "merge.evilm.driver": "mergedriver",
    "core.fsmonitor": "fsmonitor",
    "core.pager": "pager",
    "pager.log": "pagerlog",
    "core.editor": "editor",
    "sequence.editor": "seqeditor",
    "alias.status": "!alias",
    "alias.diff-tree": "!alias2",
    "gpg.program": "gpg",
    "commit.gpgSign": None,
    "log.showSignature": None,
    "trailer.evil.cmd": "trailer",
    "trailer.evil.key": None,
    "core.sshCommand": "ssh",
    "credential.helper": "credential",
    "core.askPass": "askpass",
}


def arm(repo, canaries: Path) -> None:
    """Write the hostile config: every program-valued key runs a script that leaves a canary."""
    canaries.mkdir()
    hooks = canaries / "hooks"
    hooks.mkdir()
    for key, name in HOSTILE_KEYS.items():
        if name is None:
            repo.git("config", key, "true")
            continue
        bare = name.lstrip("!")
        script = canaries / f"{bare}.sh"
        script.write_text(f"#!/bin/sh\ntouch '{canaries}/CANARY-{bare}'\n{'exit 1' if bare == 'process' else 'cat'}\n")
        script.chmod(script.stat().st_mode | stat.S_IEXEC)
        repo.git("config", key, ("!" if name.startswith("!") else "") + str(script))
    for hook in (
        "pre-commit",
        "post-commit",
        "commit-msg",
        "post-checkout",
        "reference-transaction",
        "post-rewrite",
        "pre-rebase",
        "post-merge",
        "post-index-change",
        "pre-auto-gc",
    ):
        path = hooks / hook
        path.write_text(f"#!/bin/sh\ntouch '{canaries}/CANARY-hook-{hook}'\n")
        path.chmod(0o755)
    repo.git("config", "core.hooksPath", str(hooks))
    for hook in ("pre-commit", "post-commit", "post-checkout"):
        own = repo.root / ".git" / "hooks" / hook
        own.write_text(f"#!/bin/sh\ntouch '{canaries}/CANARY-githook-{hook}'\n")
        own.chmod(0o755)


def canaries_in(canaries: Path) -> list[str]:
    return sorted(p.name for p in canaries.iterdir() if p.name.startswith("CANARY"))


@pytest.fixture
def hostile(repo, tmp_path: Path):
    repo.write(".gitattributes", ATTRIBUTES)
    repo.write("a.py", "def f():\n    return 1\n\n\ndef g():\n    return 1\n")
    repo.write("notes.txt", "one\n")
    first = repo.commit("one")
    repo.write("a.py", "def f():\n    return 2\n\n\ndef g():\n    return 1\n")
    repo.write("b.py", "def h():\n    return 1\n")
    repo.commit("two")
    canaries = tmp_path / "canaries"
    arm(repo, canaries)
    return repo, first, canaries


def test_hostile_config_never_runs_in_any_operation(hostile, tmp_path: Path) -> None:
    repo, first, canaries = hostile
    conn = open_store(tmp_path / "annals.db")
    root = repo.root
    index_tree(root, conn)
    repo.write("a.py", "def f():\n    return 3\n\n\ndef g():\n    return 1\n")  # dirty: filters would run
    repo.write("untracked.py", "def u():\n    return 0\n")
    run_git(root, "add", "a.py")
    diff_symbols(root, conn, first, "HEAD")
    diff_symbols(root, conn, first, "INDEX")
    diff_symbols(root, conn, first, "WORKTREE", include_untracked=True)
    backfill(root, conn)
    symbol_at(root, conn, "a.py::f", first)
    git_state(root, conn)
    point = safepoints.create(root, conn, "hostile")
    safepoints.list_safepoints(root)
    committed = gitops.commit_with_context(
        root, conn, type="fix", agent_id="bot", goal="hostile commit", goal_id="G-1", risk="low"
    )
    safepoints.undo_uncommitted(root, conn)
    safepoints.checkout_safe_point(root, conn, point["name"])
    safepoints.undo_uncommitted(root, conn)
    found = gitops.bisect(root, first, "HEAD", ["sh", "-c", "head -2 a.py | grep -q 'return 1'"], timeout_seconds=60)
    conn.close()
    assert canaries_in(canaries) == []
    assert found["title"] == "two" and committed["commit"]
    assert run_git(root, "log", "-1", "--format=%G?").decode().strip() == "N"  # not signed: gpg never ran


def test_the_canaries_fire_under_plain_git(hostile) -> None:
    """The control: without our defences the same repository runs its programs."""
    repo, _, canaries = hostile
    repo.write("a.py", "def f():\n    return 9\n")
    repo.write("notes.txt", "two\n")
    # fsmonitor's and the process filter's failures would stop the commands after them
    quiet = ["-c", "core.fsmonitor=false", "-c", "filter.evilp.process="]
    for args in (
        ["status"],
        ["-c", "core.fsmonitor=false", "add", "notes.txt"],
        [*quiet, "diff", "HEAD"],
        [*quiet, "add", "a.py"],
        [*quiet, "checkout", "HEAD", "--", "a.py"],
        [*quiet, "commit", "-q", "--allow-empty", "-m", "x"],
    ):
        subprocess.run(["git", *args], cwd=repo.root, capture_output=True, timeout=20, check=False)
    fired = set(canaries_in(canaries))
    assert {
        "CANARY-fsmonitor",
        "CANARY-clean",
        "CANARY-process",
        "CANARY-smudge",
        "CANARY-gpg",
        "CANARY-hook-pre-commit",
    } <= fired, fired
    assert fired & {"CANARY-textconv", "CANARY-external", "CANARY-diffcommand"}, fired


def test_a_merge_driver_named_in_config_is_replaced_by_gits_own_text_merge(repo, tmp_path: Path) -> None:
    repo.write(".gitattributes", "*.py merge=evilm\n")
    repo.write("a.py", "line1\nline2\nline3\n")
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "side")
    repo.write("a.py", "line1\nside\nline3\n")
    repo.commit("side")
    repo.git("checkout", "-q", "main")
    repo.write("a.py", "line1\nmain\nline3\n")
    repo.commit("main")
    canaries = tmp_path / "canaries"
    arm(repo, canaries)
    proc_out = run_git(repo.root, "merge", "side", check=False)
    del proc_out
    text = (repo.root / "a.py").read_text()
    assert "<<<<<<< ours" in text and ">>>>>>> theirs" in text  # git's text merge, our labels
    assert safepoints.unmerged_paths(repo.root) == ["a.py"]
    result = gitops.resolve_conflict(repo.root, None, strategy="theirs")
    assert result["resolved"] == ["a.py"] and (repo.root / "a.py").read_text() == "line1\nside\nline3\n"
    assert canaries_in(canaries) == []


INJECTIONS = [
    "--output=CANARY-output",
    "-c",
    "--upload-pack=touch CANARY-upload",
    "-oCANARY-o",
    "HEAD;touch CANARY-semi",
    "$(touch CANARY-subst)",
    "HEAD\n--output=CANARY-nl",
    "`touch CANARY-tick`",
    "--exec=touch CANARY-exec",
    "HEAD --output=CANARY-space",
]


@pytest.mark.parametrize("payload", INJECTIONS)
def test_argument_injection_creates_nothing(repo, tmp_path: Path, payload: str, annals) -> None:
    repo.write("a.py", "def f():\n    return 1\n")
    repo.commit()
    conn = open_store(tmp_path / "annals.db")
    attempts = [
        lambda: diff_symbols(repo.root, conn, payload, "HEAD"),
        lambda: diff_symbols(repo.root, conn, "HEAD", payload),
        lambda: backfill(repo.root, conn, since=payload),
        lambda: symbol_at(repo.root, conn, "a.py::f", payload),
        lambda: safepoints.restore_branch(repo.root, conn, "main", payload),
        lambda: safepoints.restore_branch(repo.root, conn, payload),
        lambda: safepoints.create(repo.root, conn, "x", name=payload),
        lambda: gitops.bisect(repo.root, payload, "HEAD", ["true"]),
    ]
    for attempt in attempts:
        with pytest.raises((BadRef, safepoints.RecoverError, gitops.OperationRefused)):
            attempt()
    with pytest.raises(gitops.OperationRefused):
        gitops.resolve_conflict(repo.root, conn, files=[payload], strategy="ours")
    conn.close()
    proc = annals("diff-symbols", "--", payload, "HEAD", check=False)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    created = [p for p in Path(repo.root).rglob("*CANARY*")] + [p for p in Path.cwd().glob("*CANARY*")]
    assert created == []


def test_symbol_paths_cannot_leave_the_repository(repo, tmp_path: Path) -> None:
    repo.write("a.py", "def f():\n    return 1\n")
    repo.commit()
    for path in ("../outside.py", "/etc/passwd", "a.py/../../x"):
        with pytest.raises(gitops.OperationRefused):
            gitops.inside_repo(repo.root, path)
    assert gitops.inside_repo(repo.root, "./a.py") == "a.py"


def test_destructive_steps_refuse_a_work_tree_configured_elsewhere(repo, tmp_path: Path) -> None:
    repo.write("a.py", "x = 1\n")
    repo.commit()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "precious.txt").write_text("keep me")
    repo.git("config", "core.worktree", str(elsewhere))
    with pytest.raises(safepoints.RecoverError, match="core.worktree"):
        safepoints.undo_uncommitted(repo.root, None)
    assert (elsewhere / "precious.txt").read_text() == "keep me"


def test_defused_config_is_reread_when_the_config_changes(repo, tmp_path: Path) -> None:
    repo.write("a.txt", "one\n")
    repo.commit()
    run_git(repo.root, "status")  # cached with no drivers
    canaries = tmp_path / "c"
    canaries.mkdir()
    script = canaries / "clean.sh"
    script.write_text(f"#!/bin/sh\ntouch '{canaries}/CANARY-late'\ncat\n")
    script.chmod(0o755)
    repo.write(".gitattributes", "* filter=late\n")
    repo.git("config", "filter.late.clean", str(script))
    repo.write("a.txt", "two\n")
    os.utime(repo.root / "a.txt", (1, 1))
    run_git(repo.root, "add", "a.txt")
    run_git(repo.root, "diff-index", "HEAD")
    assert canaries_in(canaries) == []
    assert json.loads(json.dumps(run_git(repo.root, "cat-file", "-p", ":a.txt").decode())) == "two\n"
