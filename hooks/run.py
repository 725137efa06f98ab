"""The hooks: pre-commit, commit-msg, post-commit, post-merge and post-rewrite.

Run by the shims as `python -m codeannals.hooks.run NAME ARGS...` (or `annals hooks run NAME`).
A commit waits for us, so imports stay light: no click, mcp, chromadb or rich. Messages go to
stderr. Only the gate (block) and the commit-msg policy ever fail a hook; our own errors are
reported and logged, and the commit goes on.
"""

from __future__ import annotations

import fnmatch
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from ..indexer.git.gitcmd import GitRefused, config_values, head_commit, repo_top, run_git
from ..store import default_db_path, open_store
from ..store import log as event_log
from ..store.events import CommitRecorded
from .hooklog import LOG_FILE, log_failure
from .settings import SettingsError, read_settings

GATE_MODES = ("off", "warn", "block")
PENDING_SHOWN = 10


class HookFailure(Exception):
    """Something the user must fix (bad config); the message names the file and the fix."""


@dataclass
class HookConfig:
    gate: str = "off"
    require_goal_id: bool = False
    protected_paths: list[str] = field(default_factory=list)


def _truthy(value: str) -> bool:
    return value.strip().lower() in ("1", "true", "yes", "on")


def load_config(root: Path) -> HookConfig:
    """`.annals/config.json`, then `git config annals.*` (which wins)."""
    config = HookConfig()
    try:
        data = read_settings(root)
    except SettingsError as exc:
        raise HookFailure(str(exc)) from exc
    if data:
        config.gate = str(data.get("gate", config.gate))
        config.require_goal_id = bool(data.get("require_goal_id", config.require_goal_id))
        config.protected_paths = [str(p) for p in data.get("protected_paths", [])]
    gate = config_values(root, "annals.gate")
    if gate:
        config.gate = gate[-1]
    goal = config_values(root, "annals.requireGoalId")
    if goal:
        config.require_goal_id = _truthy(goal[-1])
    config.protected_paths += config_values(root, "annals.protectedPath")
    if config.gate not in GATE_MODES:
        raise HookFailure(
            f"annals gate {config.gate!r} is not one of {', '.join(GATE_MODES)}: "
            '`git config annals.gate warn` (or "gate" in .annals/config.json)'
        )
    return config


@dataclass
class Finding:
    kind: str
    message: str
    fix: str
    files: list[str] = field(default_factory=list)


def _shown(files: list[str]) -> str:
    more = f" and {len(files) - PENDING_SHOWN} more" if len(files) > PENDING_SHOWN else ""
    return ", ".join(files[:PENDING_SHOWN]) + more


def gate_findings(root: Path, conn: Any, staged: list[str], config: HookConfig) -> list[Finding]:
    """Why a commit should wait: no index, unrecorded commits, work-tree files not indexed, broken rules."""
    findings: list[Finding] = []
    protected = sorted({p for p in staged for pattern in config.protected_paths if fnmatch.fnmatch(p, pattern)})
    if protected:
        findings.append(
            Finding(
                "rule",
                f"staged files are protected by a rule: {_shown(protected)}",
                "unstage them (`git restore --staged FILE`) or change the rule "
                "(annals.protectedPath / protected_paths in .annals/config.json)",
                protected,
            )
        )
    if conn is None:
        findings.append(Finding("stale", "there is no annals index for this repository", "run `annals index`"))
        return findings
    from ..indexer.freshness import pending_paths
    from ..indexer.git.githistory import is_recorded

    head = head_commit(root)
    any_recorded = event_log.has_type(conn, CommitRecorded.TYPE)
    if head and any_recorded and not is_recorded(conn, head):
        findings.append(
            Finding(
                "stale",
                f"the last commit {head[:12]} was not recorded (were hooks off?)",
                "run `annals index --history`",
            )
        )
    pending = sorted(set(pending_paths(root, conn)) - set(staged))
    if pending:
        findings.append(
            Finding(
                "stale",
                f"{len(pending)} work-tree files differ from the index: {_shown(pending)}",
                "run `annals index` (or keep `annals watch` running)",
                pending,
            )
        )
    return findings


def _report(findings: list[Finding], mode: str, err: IO[str]) -> int:
    if not findings:
        return 0
    for f in findings:
        print(f"annals gate ({mode}): {f.message}\n  fix: {f.fix}", file=err)
    if mode == "block":
        print(
            "annals: commit blocked. Fix the above, or commit anyway with `git commit --no-verify`, "
            "or `git config annals.gate warn`",
            file=err,
        )
        return 1
    return 0


def _open(root: Path) -> Any:
    path = default_db_path(root)
    return open_store(path) if path.exists() else None


def _unmerged_message(root: Path, err: IO[str]) -> bool:
    from ..indexer.git.staged import unmerged

    files = unmerged(root)
    if files:
        print(
            f"annals: the index has unmerged entries ({_shown(files)}); nothing recorded. Resolve them "
            "(edit, `git add`), or `annals resolve --strategy abort`",
            file=err,
        )
    return bool(files)


def pre_commit(root: Path, args: list[str], err: IO[str]) -> int:
    """Index the staged blobs (in a background job when there is much to parse); then the gate."""
    from ..indexer.git.staged import index_staged, staged_changes
    from .jobs import SYNC_PARSE_BYTES, submit

    config = load_config(root)
    if _unmerged_message(root, err):
        return 0
    conn = _open(root)
    try:
        changes = staged_changes(root)
        staged = sorted({c.new_path or c.old_path or "" for c in changes})
        if conn is not None:
            report = index_staged(root, conn, source="hook", changes=changes, parse_budget=SYNC_PARSE_BYTES)
            if report.deferred:
                submit(root, "index", changes)
        if config.gate == "off":
            return 0
        return _report(gate_findings(root, conn, staged, config), config.gate, err)
    finally:
        if conn is not None:
            conn.close()


def commit_msg(root: Path, args: list[str], err: IO[str]) -> int:
    """With the policy on (annals.requireGoalId), a message without a Goal-Id trailer is refused."""
    config = load_config(root)
    if not config.require_goal_id or not args:
        return 0
    from ..indexer.git.githistory import trailers

    message_file = Path(args[0]) if Path(args[0]).is_absolute() else root / args[0]
    text = message_file.read_text("utf-8", "replace")
    message = "\n".join(line for line in text.split("\n") if not line.startswith("#"))
    if trailers(message).get("goal-id"):
        return 0
    print(
        "annals: this commit message has no Goal-Id trailer, which this repository requires.\n"
        "  fix: end the message with a paragraph holding a line like `Goal-Id: TASK-12`, or turn the "
        "policy off: `git config annals.requireGoalId false`",
        file=err,
    )
    return 1


def _commit_files(root: Path, old: str | None, new: str) -> Any:
    from ..indexer.git.gitcmd import EMPTY_TREE
    from ..indexer.git.gitobjects import parse_raw

    out = run_git(
        root,
        "diff-tree",
        "-r",
        "-z",
        "--raw",
        "--no-renames",
        "--abbrev=40",
        "--end-of-options",
        old or EMPTY_TREE,
        new,
    )
    return parse_raw(out)


def _record(root: Path, old: str | None, err: IO[str]) -> int:
    """Index the files of the new commits (if pre-commit did not) and record the commits."""
    from ..indexer.git.githistory import record_range
    from ..indexer.git.staged import index_staged
    from .jobs import SYNC_PARSE_BYTES, pending, submit

    if _unmerged_message(root, err):
        return 0
    head = head_commit(root)
    conn = _open(root)
    if conn is None or head is None:
        return 0
    try:
        first_parent = run_git(root, "rev-parse", "--verify", "--quiet", f"{head}^1", check=False).decode().strip()
        changes = _commit_files(root, old or first_parent or None, head)
        report = index_staged(root, conn, source="hook", changes=changes, parse_budget=SYNC_PARSE_BYTES)
        if report.deferred or pending(root):  # recorded after its files and after the jobs before it
            submit(root, "record", changes, old=old, head=head)
        else:
            record_range(root, conn, old, head, origin="hook", source="hook")
    finally:
        conn.close()
    return 0


def post_commit(root: Path, args: list[str], err: IO[str]) -> int:
    head = head_commit(root)
    parent = ""
    if head:
        parent = run_git(root, "rev-parse", "--verify", "--quiet", f"{head}^1", check=False).decode().strip()
    return _record(root, parent or None, err)


def post_merge(root: Path, args: list[str], err: IO[str]) -> int:
    """A merge or a pull: record each new commit (ORIG_HEAD..HEAD), once."""
    orig = run_git(root, "rev-parse", "--verify", "--quiet", "ORIG_HEAD^{commit}", check=False).decode().strip()
    return _record(root, orig or None, err)


def post_rewrite(root: Path, args: list[str], err: IO[str], stdin: IO[str] | None = None) -> int:
    """amend or rebase: map each old commit to its new id, and record the new commits."""
    from ..indexer.git.githistory import record_rewrites

    # The pre-commit framework names the command in its environment instead of an argument.
    kind = args[0] if args else os.environ.get("PRE_COMMIT_REWRITE_COMMAND", "rebase")
    lines = (stdin or sys.stdin).read().split("\n")
    pairs = [(parts[0], parts[1]) for parts in (line.split() for line in lines) if len(parts) >= 2]
    if not pairs or _unmerged_message(root, err):
        return 0
    conn = _open(root)
    if conn is None:
        return 0
    try:
        record_rewrites(root, conn, kind, pairs, source="hook")
    finally:
        conn.close()
    return 0


HOOK_FUNCTIONS = {
    "pre-commit": pre_commit,
    "commit-msg": commit_msg,
    "post-commit": post_commit,
    "post-merge": post_merge,
    "post-rewrite": post_rewrite,
}


def run_hook(name: str, args: list[str], *, cwd: Path | None = None, err: IO[str] | None = None) -> int:
    """Run one hook by name; the exit code git should see."""
    err = err or sys.stderr
    if name not in HOOK_FUNCTIONS:
        print(f"annals: no hook {name!r}; annals runs {', '.join(HOOK_FUNCTIONS)}", file=err)
        return 2
    try:
        root = repo_top(cwd or Path.cwd())
    except GitRefused as exc:
        print(f"annals: {exc}", file=err)
        return 0
    if root is None:
        print("annals: not inside a git work tree; hooks run from git", file=err)
        return 0
    try:
        return HOOK_FUNCTIONS[name](root, args, err)
    except HookFailure as exc:
        print(f"annals: {exc}", file=err)
        return 1 if name in ("pre-commit", "commit-msg") else 0
    except Exception as exc:  # noqa: BLE001 - a hook of ours must never break the user's commit; logged
        log_failure(root, name)
        print(
            f"annals: hook {name} failed ({type(exc).__name__}: {exc}); the commit is not affected. "
            f"Details in {root / LOG_FILE}",
            file=err,
        )
        return 0


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print(
            f"usage: python -m codeannals.hooks.run HOOK [ARGS...]; hooks: {', '.join(HOOK_FUNCTIONS)}", file=sys.stderr
        )
        return 2
    return run_hook(args[0], args[1:])


if __name__ == "__main__":
    sys.exit(main())
