"""Safe points: the whole state saved under a ref before anything destructive, and the ways back.

A safe point is a commit like `git stash` makes, but holding untracked files too: its tree is
the work tree (tracked and untracked, ignored files left out), its first parent is HEAD, and its
second parent holds the index (what was staged). It lives at refs/annals/safepoints/<name>, out
of the way of branches and the stash, and nothing here ever deletes one.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any

from ..indexer.git.gitcmd import (
    EMPTY_TREE,
    BadRef,
    GitError,
    current_branch,
    git_path,
    head_commit,
    run_git,
    run_git_full,
    verify_commit,
)
from ..store import writing
from ..store.events import SafePointCreated

REF_PREFIX = "refs/annals/safepoints/"
ACTIONS = ("checkout_safe_point", "undo_uncommitted", "restore_branch")
_IDENTITY = {
    "GIT_AUTHOR_NAME": "annals",
    "GIT_AUTHOR_EMAIL": "annals@localhost",
    "GIT_COMMITTER_NAME": "annals",
    "GIT_COMMITTER_EMAIL": "annals@localhost",
}
_SLUG = re.compile(r"[^A-Za-z0-9._-]+")
KEEP_OUT = ":(exclude,top).annals"  # our own database is never saved, restored or cleaned away


class RecoverError(Exception):
    """A recovery step that was refused; the message says why and what to do instead."""


def _slug(text: str) -> str:
    return _SLUG.sub("-", text).strip("-.")[:40] or "safepoint"


def _check_name(root: Path, name: str) -> str:
    ref = REF_PREFIX + name
    if not name or name.startswith("-") or run_git_full(root, "check-ref-format", ref).returncode != 0:
        raise BadRef(f"{name!r} cannot name a safe point: use letters, digits, '.', '_' and '-'")
    return ref


def ensure_own_worktree(root: Path) -> None:
    """Refuse to change files when git's idea of the work tree is not this directory (core.worktree)."""
    top = run_git(root, "rev-parse", "--show-toplevel").decode().strip()
    if os.path.realpath(top) != os.path.realpath(root):
        raise RecoverError(
            f"git's work tree is {top}, not {root}: the repository config points elsewhere "
            "(core.worktree?); run from the work tree's top directory"
        )


def unmerged_paths(root: Path) -> list[str]:
    out = run_git(root, "ls-files", "-u", "-z").decode("utf-8", "surrogateescape")
    return sorted({item.split("\t", 1)[1] for item in out.split("\0") if "\t" in item})


def _keep_out(root: Path) -> list[str]:
    """The pathspec that leaves `.annals/` alone, unless git ignores it already (naming an ignored
    path in a pathspec is an error to `git add`)."""
    ignored = run_git_full(root, "check-ignore", "-q", "--no-index", ".annals/").returncode == 0
    return [] if ignored else [KEEP_OUT]


def _write_tree(root: Path, index_file: str | None = None) -> str:
    env = {"GIT_INDEX_FILE": index_file} if index_file else None
    return run_git(root, "write-tree", env=env).decode().strip()


def _worktree_tree(root: Path) -> tuple[str, int]:
    """A tree of the work tree, untracked files included, built in a scratch copy of the index."""
    real_index = git_path(root, "index")
    with tempfile.TemporaryDirectory(prefix="annals-safepoint-") as scratch:
        index_file = os.path.join(scratch, "index")
        if real_index.exists():
            # copy2 keeps the index's mtime: git trusts a cached stat only for files older than the
            # index file, so a fresh mtime would hide an edit made in the index's second (same size)
            # on file systems with coarse timestamps, and the safe point would keep the old content.
            shutil.copy2(real_index, index_file)
        env = {"GIT_INDEX_FILE": index_file}
        untracked = run_git(root, "ls-files", "-z", "--others", "--exclude-standard", env=env)
        run_git(root, "add", "-A", "--", ".", *_keep_out(root), env=env)
        tree = _write_tree(root, index_file)
    count = sum(1 for p in untracked.split(b"\0") if p and not p.startswith(b".annals/"))
    return tree, count


def create(
    root: Path, conn: sqlite3.Connection | None, reason: str, *, name: str | None = None, source: str = "cli"
) -> dict[str, Any]:
    """Save HEAD, the index and the work tree (untracked files too) under a new safe-point ref."""
    head = head_commit(root)
    branch = current_branch(root)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    chosen = name or f"{stamp}-{_slug(reason)}"
    ref = _check_name(root, chosen)
    n = 1
    while run_git_full(root, "rev-parse", "--verify", "--quiet", ref).returncode == 0:
        if name is not None:
            raise BadRef(f"a safe point named {name!r} exists already; choose another name")
        n += 1  # two automatic safe points within one second
        ref = _check_name(root, f"{stamp}-{_slug(reason)}-{n}")
    name = ref[len(REF_PREFIX) :]
    parents = ["-p", head] if head else []
    index_commit = None
    if not unmerged_paths(root):  # an index with conflicts has no tree; the work tree still saves it all
        index_tree = _write_tree(root)
        index_commit = (
            run_git(root, "commit-tree", index_tree, *parents, "-m", f"annals index at {name}", env=_IDENTITY)
            .decode()
            .strip()
        )
    tree, untracked = _worktree_tree(root)
    meta = {
        "name": name,
        "reason": reason,
        "head": head,
        "branch": branch,
        "index": index_commit,
        "untracked": untracked,
        "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    message = f"annals safe point: {reason}\n\n{json.dumps(meta, sort_keys=True)}\n"
    extra = ["-p", index_commit] if index_commit else []
    snapshot = (
        run_git(root, "commit-tree", tree, *parents, *extra, "-F", "-", input=message.encode(), env=_IDENTITY)
        .decode()
        .strip()
    )
    run_git(root, "update-ref", "--create-reflog", "-m", f"annals safe point: {reason}", ref, snapshot, "")
    if conn is not None:
        with writing(conn, source=source) as writer:
            writer.append([SafePointCreated(name, ref, snapshot, head, branch, reason)], commit=head)
    return {**meta, "ref": ref, "commit": snapshot, "how_to_restore": how_to_restore(name, snapshot, index_commit)}


def how_to_restore(name: str, snapshot: str, index_commit: str | None) -> str:
    index_step = f" && git read-tree {index_commit}" if index_commit else ""
    return (
        f"`annals recover checkout_safe_point --name {name}` puts HEAD, the index and every file back; "
        f"with git alone: `git read-tree -u --reset {snapshot}{index_step}` (files and index), "
        f"`git show {snapshot}` (what it holds)"
    )


def _meta(root: Path, ref: str) -> dict[str, Any]:
    body = run_git(root, "log", "-1", "--format=%B", "--end-of-options", ref).decode("utf-8", "replace")
    for line in reversed(body.strip().split("\n")):
        if line.startswith("{"):
            return json.loads(line)
    raise RecoverError(f"{ref} is not a safe point made by annals (no metadata in its message)")


def list_safepoints(root: Path) -> list[dict[str, Any]]:
    """Every safe point, newest first."""
    out = run_git(root, "for-each-ref", "--sort=-creatordate", "--format=%(refname)%00%(objectname)", REF_PREFIX)
    items = []
    for line in out.decode("utf-8", "replace").splitlines():
        ref, _, commit = line.partition("\0")
        meta = _meta(root, commit)
        items.append(
            {
                **meta,
                "ref": ref,
                "commit": commit,
                "how_to_restore": how_to_restore(meta["name"], commit, meta.get("index")),
            }
        )
    return items


def _refuse_during_operation(root: Path, action: str) -> None:
    from ..indexer.git.gitstate import operation_in_progress

    operation = operation_in_progress(root)
    if operation is not None and operation != "bisect":
        raise RecoverError(
            f"a {operation} is in progress: finish or abort it first "
            f"(git_resolve_conflict with strategy 'abort', or `git {operation} --abort`), "
            f"then run {action} again"
        )


def checkout_safe_point(
    root: Path, conn: sqlite3.Connection | None, name: str, *, source: str = "cli"
) -> dict[str, Any]:
    """Put HEAD, the index and the files back as they were at a safe point (saving the present first)."""
    ensure_own_worktree(root)
    _refuse_during_operation(root, "checkout_safe_point")
    ref = _check_name(root, name)
    snapshot = run_git_full(root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}")
    if snapshot.returncode != 0:
        known = ", ".join(s["name"] for s in list_safepoints(root)[:10]) or "none yet"
        raise RecoverError(f"no safe point named {name!r}; known: {known} (`annals safepoints` lists them)")
    target = snapshot.stdout.decode().strip()
    meta = _meta(root, target)
    saved = create(root, conn, f"before restoring {name}", source=source)
    run_git(root, "read-tree", "-u", "--reset", target)
    run_git(root, "read-tree", meta.get("index") or meta.get("head") or EMPTY_TREE)
    head, branch = meta.get("head"), meta.get("branch")
    on = "an unborn branch"
    if head:
        branch_tip = ""
        if branch:
            tip = run_git_full(root, "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}")
            branch_tip = tip.stdout.decode().strip()
        if branch and branch_tip == head:
            run_git(root, "symbolic-ref", "-m", f"annals: restore {name}", "HEAD", f"refs/heads/{branch}")
            on = f"branch {branch}"
        else:
            run_git(root, "update-ref", "--no-deref", "-m", f"annals: restore {name}", "HEAD", head)
            on = f"a detached HEAD at {head[:12]}" + (
                f" (branch {branch} has moved on; `git switch -c NAME` keeps this state on a new branch)"
                if branch
                else ""
            )
    return {
        "action": "checkout_safe_point",
        "restored": name,
        "head": head,
        "on": on,
        "safe_point": saved,
        "how_to_undo": saved["how_to_restore"],
    }


def undo_uncommitted(root: Path, conn: sqlite3.Connection | None, *, source: str = "cli") -> dict[str, Any]:
    """Drop every uncommitted change and untracked file, after saving them all in a safe point."""
    from ..indexer.git.gitstate import status_summary

    ensure_own_worktree(root)
    before = status_summary(root)["counts"]
    saved = create(root, conn, "before undo_uncommitted", source=source)
    head = head_commit(root)
    run_git(root, "read-tree", "-u", "--reset", head or EMPTY_TREE)
    if head:
        run_git(root, "reset", "--quiet", "--hard", head)  # also ends a merge or cherry-pick in progress
    run_git(root, "clean", "-f", "-d", "-q", "-e", "/.annals/", "--", ".", *_keep_out(root))
    return {
        "action": "undo_uncommitted",
        "discarded": before,
        "safe_point": saved,
        "how_to_undo": saved["how_to_restore"],
    }


def restore_branch(
    root: Path, conn: sqlite3.Connection | None, branch: str, to: str | None = None, *, source: str = "cli"
) -> dict[str, Any]:
    """Move a branch back to `to` (a commit, a safe point name, or by default where it was before its
    last move, from the reflog), saving the present first."""
    ensure_own_worktree(root)
    _refuse_during_operation(root, "restore_branch")
    if not branch or branch.startswith("-") or run_git_full(root, "check-ref-format", "--branch", branch).returncode:
        raise BadRef(f"{branch!r} is not a branch name; `git branch` lists them")
    ref = f"refs/heads/{branch}"
    current = run_git_full(root, "rev-parse", "--verify", "--quiet", ref).stdout.decode().strip()
    if not current:
        raise BadRef(f"no branch {branch!r}; `git branch` lists them")
    if to is None:
        target = run_git_full(root, "rev-parse", "--verify", "--quiet", f"{ref}@{{1}}").stdout.decode().strip()
        if not target:
            raise RecoverError(
                f"branch {branch!r} has no earlier position in its reflog; send `to` (a commit or a safe point name)"
            )
    elif run_git_full(
        root, "rev-parse", "--verify", "--quiet", f"{REF_PREFIX}{to}"
    ).returncode == 0 and not to.startswith("-"):
        target = _meta(root, f"{REF_PREFIX}{to}").get("head") or ""
        if not target:
            raise RecoverError(f"safe point {to!r} was taken on an unborn branch: there is no commit to restore")
    else:
        target = verify_commit(root, to, "to")
    saved = create(root, conn, f"before restore_branch {branch}", source=source)
    checked_out = current_branch(root) == branch
    if checked_out:
        run_git(root, "read-tree", "-u", "--reset", target)
    run_git(root, "update-ref", "-m", f"annals: restore_branch to {target[:12]}", ref, target, current)
    return {
        "action": "restore_branch",
        "branch": branch,
        "from": current,
        "to": target,
        "checked_out": checked_out,
        "safe_point": saved,
        "how_to_undo": f"`annals recover restore_branch --branch {branch} --to {current}` "
        f"(or `git update-ref {ref} {current}`); uncommitted work: {saved['how_to_restore']}",
    }


def recover(
    root: Path,
    conn: sqlite3.Connection | None,
    action: str,
    *,
    name: str | None = None,
    branch: str | None = None,
    to: str | None = None,
    source: str = "cli",
) -> dict[str, Any]:
    """git_recover_state: one of checkout_safe_point, undo_uncommitted, restore_branch."""
    if action == "checkout_safe_point":
        if not name:
            raise RecoverError("checkout_safe_point needs the safe point's name (`annals safepoints` lists them)")
        return checkout_safe_point(root, conn, name, source=source)
    if action == "undo_uncommitted":
        return undo_uncommitted(root, conn, source=source)
    if action == "restore_branch":
        if not branch:
            raise RecoverError("restore_branch needs the branch to restore")
        return restore_branch(root, conn, branch, to, source=source)
    raise RecoverError(f"unknown action {action!r}: send one of {', '.join(ACTIONS)}")


__all__ = [
    "ACTIONS",
    "REF_PREFIX",
    "GitError",
    "RecoverError",
    "checkout_safe_point",
    "create",
    "list_safepoints",
    "recover",
    "restore_branch",
    "undo_uncommitted",
    "unmerged_paths",
]
