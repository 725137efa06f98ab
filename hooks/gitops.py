"""Git operations an agent asks for: a commit with its context, conflict steps, a bounded bisect.

Each one that could lose work saves a safe point first (see safepoints.py) and says how to get
back. Nothing here pushes.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sqlite3
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from ..indexer.git.gitcmd import BadRef, GitError, head_commit, run_git, run_git_full, verify_commit
from ..indexer.git.githistory import record_commits
from ..indexer.git.gitstate import operation_in_progress
from ..indexer.git.staged import UnmergedIndex, index_staged
from ..indexer.git.symdiff import INDEX, Revision, SymbolDiffer, resolve, tests_affected
from ..store import writing
from ..store.events import ConflictResolved
from . import safepoints

COMMIT_TYPES = ("feat", "fix", "refactor", "perf", "test", "docs", "build", "ci", "chore", "style", "revert")
RISKS = ("low", "medium", "high")
STRATEGIES = ("abort", "manual_review", "ours", "theirs", "skip")
TRAILER_SYMBOLS = 25  # more changed symbols than this are summarised as "(+N more)"
TITLE_LIMIT = 100
BISECT_SECONDS = 600.0
_AGENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_TAG = re.compile(r"^[A-Za-z][\w.\-/#]{0,63}$")
_MARKERS = re.compile(rb"^(<{7} |={7}$|>{7} )", re.MULTILINE)


class OperationRefused(Exception):
    """The operation was not done; the message says why and what to send or do instead."""


def inside_repo(root: Path, path: str) -> str:
    """A repository-relative POSIX path for `path`, refusing anything that leaves the repository."""
    if not path or "\0" in path:
        raise OperationRefused(f"{path!r} is not a path; send a path relative to the repository root")
    real_root = os.path.realpath(root)
    full = os.path.realpath(os.path.join(real_root, path))
    if not Path(full).is_relative_to(real_root) or full == real_root:
        raise OperationRefused(f"{path!r} is outside the repository; send a path relative to its root")
    return Path(os.path.relpath(full, real_root)).as_posix()


# --- commit with context -----------------------------------------------------------------------


def _one_line(value: str, what: str, limit: int = TITLE_LIMIT) -> str:
    value = value.strip()
    if not value or "\n" in value or "\r" in value:
        raise OperationRefused(f"{what} must be one non-empty line")
    if len(value) > limit:
        raise OperationRefused(f"{what} is {len(value)} characters; keep it under {limit}")
    return value


def _listing(items: list[str], limit: int = TRAILER_SYMBOLS) -> str:
    if not items:
        return "none"
    shown = ", ".join(items[:limit])
    return shown + (f" (+{len(items) - limit} more)" if len(items) > limit else "")


def commit_message(
    *,
    type: str,
    agent_id: str,
    goal: str,
    goal_id: str | None,
    requirement_tags: list[str],
    risk: str,
    changed: list[str],
    tests: list[str],
    body: str | None = None,
) -> str:
    """`type(agent_id): goal` and the trailers (validated: one line each, known type and risk)."""
    if type not in COMMIT_TYPES:
        raise OperationRefused(f"type {type!r} is not one of {', '.join(COMMIT_TYPES)}")
    if not _AGENT.match(agent_id or ""):
        raise OperationRefused(f"agent_id {agent_id!r}: use letters, digits, '.', '_' or '-' (at most 64)")
    if risk not in RISKS:
        raise OperationRefused(f"risk {risk!r} is not one of {', '.join(RISKS)}")
    bad_tags = [t for t in requirement_tags if not _TAG.match(t)]
    if bad_tags:
        raise OperationRefused(f"requirement tags {bad_tags} are not tags: send names like 'AUTH-12'")
    title = f"{type}({agent_id}): {_one_line(goal, 'goal summary')}"
    trailers = []
    if goal_id:
        trailers.append(f"Goal-Id: {_one_line(goal_id, 'goal_id', 100)}")
    trailers.append(f"Agent-Id: {agent_id}")
    if requirement_tags:
        trailers.append(f"Requirement-Tags: {', '.join(requirement_tags)}")
    trailers.append(f"Risk: {risk}")
    trailers.append(f"Changed-Symbols: {_listing(changed)}")
    trailers.append(f"Tests-Affected: {_listing(tests)}")
    parts = [title]
    if body and body.strip():
        parts.append(body.strip())
    parts.append("\n".join(trailers))
    return "\n\n".join(parts) + "\n"


def commit_with_context(
    root: Path,
    conn: sqlite3.Connection,
    *,
    type: str,
    agent_id: str,
    goal: str,
    goal_id: str | None = None,
    requirement_tags: list[str] | None = None,
    risk: str = "low",
    body: str | None = None,
    auto_push: bool = False,
    source: str = "cli",
) -> dict[str, Any]:
    """Commit what is staged with a structured message; save a safe point first; record the commit."""
    if auto_push:
        raise OperationRefused(
            "auto_push is refused: annals never pushes. Review the commit, then run `git push` yourself"
        )
    tags = list(requirement_tags or [])

    def message_with(changed: list[str], tests: list[str]) -> str:
        return commit_message(
            type=type,
            agent_id=agent_id,
            goal=goal,
            goal_id=goal_id,
            requirement_tags=tags,
            risk=risk,
            changed=changed,
            tests=tests,
            body=body,
        )

    message_with([], [])  # refuse bad input before touching anything
    if safepoints.unmerged_paths(root):
        raise OperationRefused("the index has unmerged files: resolve them first (git_resolve_conflict)")
    if run_git_full(root, "diff", "--cached", "--quiet", "--no-ext-diff", "--no-textconv").returncode == 0:
        raise OperationRefused("nothing is staged: `git add` the changes to commit first")
    try:
        index_staged(root, conn, source=source)
    except UnmergedIndex as exc:
        raise OperationRefused(str(exc)) from exc
    head = head_commit(root)
    with SymbolDiffer(root, conn) as differ:
        base = resolve(root, head) if head else Revision("(root)", "commit", None)
        result = differ.diff(base, resolve(root, INDEX))
    changed = (
        [e["id"] for e in result["changed_symbols"]]
        + [r["to"] for r in result["renamed_symbols"]]
        + [e["id"] for e in result["deleted_symbols"]]
    )
    tests = tests_affected(root, conn, result, source=source)
    message = message_with(changed, tests)
    saved = safepoints.create(root, conn, "before commit", source=source)
    proc = run_git_full(root, "commit", "--quiet", "--no-verify", "-F", "-", input=message.encode())
    if proc.returncode != 0:
        raise OperationRefused(f"git commit failed: {proc.stderr.decode('utf-8', 'replace').strip()}")
    commit = head_commit(root)
    if commit is None:
        raise OperationRefused("git commit reported success but HEAD names no commit")
    record_commits(root, conn, [commit], origin="annals", source=source)
    return {
        "commit": commit,
        "title": message.split("\n", 1)[0],
        "message": message,
        "changed_symbols": changed,
        "tests_affected": tests,
        "safe_point": saved,
        "pushed": False,
    }


# --- conflicts ---------------------------------------------------------------------------------

_CONTINUE = {
    "merge": "git commit --no-edit",
    "rebase": "git rebase --continue",
    "cherry-pick": "git cherry-pick --continue",
    "revert": "git revert --continue",
}


def _stages(root: Path, path: str) -> set[int]:
    out = run_git(root, "ls-files", "-u", "-z", "--", f":(literal){path}").decode("utf-8", "surrogateescape")
    return {int(item.split()[2]) for item in out.split("\0") if item.strip()}


def _markers(root: Path, path: str) -> int:
    try:
        return len(_MARKERS.findall((root / path).read_bytes())) // 3
    except OSError:
        return 0


def _take_side(root: Path, path: str, side: str) -> None:
    stage = 2 if side == "ours" else 3
    if stage in _stages(root, path):
        run_git(root, "checkout", f"--{side}", "--", f":(literal){path}")
        run_git(root, "add", "--", f":(literal){path}")
    else:  # this side deleted the file
        run_git(root, "rm", "--quiet", "--force", "--", f":(literal){path}")


def resolve_conflict(
    root: Path,
    conn: sqlite3.Connection | None,
    *,
    files: list[str] | None = None,
    strategy: str = "manual_review",
    notes: str = "",
    source: str = "cli",
) -> dict[str, Any]:
    """One step on a conflict: abort, review (files without markers are marked resolved), ours, theirs, skip."""
    if strategy not in STRATEGIES:
        raise OperationRefused(f"unknown strategy {strategy!r}: send one of {', '.join(STRATEGIES)}")
    safepoints.ensure_own_worktree(root)
    operation = operation_in_progress(root)
    conflicts = safepoints.unmerged_paths(root)
    chosen = [inside_repo(root, f) for f in files] if files else list(conflicts)
    not_conflicted = [f for f in chosen if f not in conflicts]
    if strategy in ("manual_review", "ours", "theirs") and not_conflicted:
        raise OperationRefused(
            f"{', '.join(not_conflicted)} {'is' if len(not_conflicted) == 1 else 'are'} not in "
            f"conflict; conflicted files: {', '.join(conflicts) or 'none'}"
        )
    saved = None
    resolved: list[str] = []
    remaining_detail: dict[str, int] = {}
    if strategy == "abort":
        if operation is None or operation == "bisect":
            raise OperationRefused("no merge, rebase, cherry-pick or revert is in progress: nothing to abort")
        saved = safepoints.create(root, conn, f"before aborting {operation}", source=source)
        run_git(root, operation, "--abort")
    elif strategy == "skip":
        if operation not in ("rebase", "cherry-pick", "revert"):
            raise OperationRefused(
                f"skip works during a rebase, cherry-pick or revert, not "
                f"{'a ' + operation if operation else 'with nothing in progress'}; "
                "use abort, ours, theirs or manual_review"
            )
        saved = safepoints.create(root, conn, f"before skipping in {operation}", source=source)
        proc = run_git_full(root, operation, "--skip")
        if proc.returncode != 0 and not safepoints.unmerged_paths(root):
            raise OperationRefused(f"git {operation} --skip failed: {proc.stderr.decode('utf-8', 'replace').strip()}")
    elif strategy in ("ours", "theirs"):
        saved = safepoints.create(root, conn, f"before taking {strategy} for {len(chosen)} files", source=source)
        for path in chosen:
            _take_side(root, path, strategy)
            resolved.append(path)
    else:
        for path in chosen:
            count = _markers(root, path)
            if count:
                remaining_detail[path] = count
            else:
                run_git(root, "add", "--all", "--", f":(literal){path}")
                resolved.append(path)
    remaining = safepoints.unmerged_paths(root)
    operation_after = operation_in_progress(root)
    if remaining:
        next_action = (
            f"resolve {len(remaining)} file(s): {', '.join(remaining[:10])} (edit out the conflict "
            "markers), then call again with strategy manual_review to mark them resolved"
        )
    elif operation_after in _CONTINUE:
        next_action = f"every conflict is resolved: run `{_CONTINUE[operation_after]}`"
    elif strategy == "abort":
        next_action = f"the {operation} is aborted; the branch is as it was before it"
    else:
        next_action = "nothing left to do: no operation is in progress"
    if conn is not None:
        with writing(conn, source=source) as writer:
            writer.append(
                [ConflictResolved(operation or "none", strategy, chosen, resolved, remaining, notes)],
                commit=head_commit(root),
            )
    answer: dict[str, Any] = {
        "operation": operation,
        "strategy": strategy,
        "resolved": resolved,
        "remaining_conflicts": remaining,
        "markers": remaining_detail,
        "next_action": next_action,
        "notes": notes,
    }
    if strategy in ("ours", "theirs") and operation == "rebase":
        answer["warning"] = (
            "during a rebase 'ours' is the branch being rebased onto and 'theirs' is your commit being replayed"
        )
    if saved is not None:
        answer["safe_point"] = saved
    return answer


# --- bisect ------------------------------------------------------------------------------------


def _test_argv(test_command: str | list[str]) -> list[str]:
    argv = shlex.split(test_command) if isinstance(test_command, str) else list(test_command)
    if not argv:
        raise OperationRefused("test_command is empty: send the command that exits 0 on a good commit")
    return argv


def _child_env() -> dict[str, str]:
    """The test's environment: none of git's per-repository variables (a hook may have set them)."""
    env = dict(os.environ)
    for name in ("GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE", "GIT_PREFIX", "GIT_OBJECT_DIRECTORY"):
        env.pop(name, None)
    return env


def bisect(
    root: Path, good: str, bad: str, test_command: str | list[str], *, timeout_seconds: float = BISECT_SECONDS
) -> dict[str, Any]:
    """Find the first bad commit in a separate worktree, so the user's checkout is never touched.

    The test command runs with the worktree as its directory and no shell: exit 0 is good, 125
    skip, 1-127 bad; 128 and above, a signal, or running out of time stops the bisect.
    """
    argv = _test_argv(test_command)
    good_commit = verify_commit(root, good, "good")
    bad_commit = verify_commit(root, bad, "bad")
    if run_git_full(root, "merge-base", "--is-ancestor", good_commit, bad_commit).returncode != 0:
        raise OperationRefused(f"good {good!r} is not an ancestor of bad {bad!r}: send an older good commit")
    deadline = time.monotonic() + timeout_seconds
    scratch = Path(tempfile.mkdtemp(prefix="annals-bisect-"))
    worktree = scratch / "worktree"
    steps: list[dict[str, Any]] = []
    first_bad: str | None = None
    stopped: str | None = None
    run_git(root, "worktree", "add", "--detach", "--quiet", str(worktree), bad_commit)
    try:
        out = run_git(worktree, "bisect", "start", bad_commit, good_commit).decode("utf-8", "replace")
        first_bad = _first_bad(out)
        while first_bad is None and stopped is None:
            current = run_git(worktree, "rev-parse", "HEAD").decode().strip()
            left = deadline - time.monotonic()
            if left <= 0:
                stopped = f"out of time after {timeout_seconds:g}s"
                break
            started = time.monotonic()
            try:
                proc = subprocess.run(
                    argv, cwd=worktree, env=_child_env(), capture_output=True, timeout=left, check=False
                )
            except subprocess.TimeoutExpired:
                stopped = f"the test ran past the {timeout_seconds:g}s limit at {current[:12]}"
                steps.append({"commit": current, "verdict": "timeout", "seconds": round(time.monotonic() - started, 3)})
                break
            except OSError as exc:
                raise OperationRefused(f"cannot run test_command {argv[0]!r}: {exc.strerror or exc}") from exc
            code = proc.returncode
            verdict = "good" if code == 0 else "skip" if code == 125 else "bad" if 0 < code < 128 else "stop"
            steps.append(
                {
                    "commit": current,
                    "verdict": verdict,
                    "exit_code": code,
                    "seconds": round(time.monotonic() - started, 3),
                }
            )
            if verdict == "stop":
                stopped = f"the test exited {code} at {current[:12]} (128 or more, or a signal, stops a bisect)"
                break
            step = run_git_full(worktree, "bisect", verdict)
            text = step.stdout.decode("utf-8", "replace")
            first_bad = _first_bad(text)
            if "only 'skip'ped commits left" in text:
                stopped = "only skipped commits are left: the first bad commit is one of them"
            elif step.returncode != 0 and first_bad is None:
                stopped = f"git bisect {verdict} failed: {step.stderr.decode('utf-8', 'replace').strip()}"
    finally:
        if worktree.exists():
            run_git_full(worktree, "bisect", "reset", "--quiet")
        run_git_full(root, "worktree", "remove", "--force", str(worktree))
        shutil.rmtree(scratch, ignore_errors=True)
        run_git_full(root, "worktree", "prune")
    title = None
    if first_bad:
        subject = run_git(root, "log", "-1", "--format=%s", "--end-of-options", first_bad)
        title = subject.decode("utf-8", "replace").strip()
    return {
        "first_bad_commit": first_bad,
        "title": title,
        "good": good_commit,
        "bad": bad_commit,
        "steps": steps,
        "stopped": stopped,
        "worktree_used": str(worktree),
        "checkout_touched": False,
    }


def _first_bad(text: str) -> str | None:
    match = re.search(r"^([0-9a-f]{40}) is the first bad commit", text, re.MULTILINE)
    return match.group(1) if match else None


__all__ = [
    "BadRef",
    "COMMIT_TYPES",
    "GitError",
    "OperationRefused",
    "RISKS",
    "STRATEGIES",
    "bisect",
    "commit_message",
    "commit_with_context",
    "inside_repo",
    "resolve_conflict",
]
