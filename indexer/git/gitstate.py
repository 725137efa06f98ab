"""Where the repository stands: branch, HEAD, what is uncommitted, and which indexed symbols are stale.

A symbol is stale when the version the index holds differs from the work tree (the index has
not caught up) or from HEAD (the change is not committed). Both are judged by syntax, through
the same hashes as the symbol diff, so a reformatted file has no stale symbols.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...store.lookups import outlined_paths, symbols_in
from ...store.symbol import Symbol, SymbolRow
from ..parsing.parse import may_have_language
from .gitcmd import git_path, run_git
from .gitobjects import NULL_ID, parse_raw
from .symdiff import SymbolDiffer, symbol_hash, worktree_bytes

STALE_LIMIT = 500  # a state answer stays small; the count says how many there were


def operation_in_progress(root: Path) -> str | None:
    """merge, rebase, cherry-pick, revert or bisect when git is in the middle of one."""
    for marker, name in (
        ("rebase-merge", "rebase"),
        ("rebase-apply", "rebase"),
        ("MERGE_HEAD", "merge"),
        ("CHERRY_PICK_HEAD", "cherry-pick"),
        ("REVERT_HEAD", "revert"),
        ("BISECT_LOG", "bisect"),
    ):
        if git_path(root, marker).exists():
            return name
    return None


def status_summary(root: Path) -> dict[str, Any]:
    """Counts from `git status --porcelain=v2` plus branch, HEAD and upstream distance."""
    out = run_git(
        root,
        "status",
        "--porcelain=v2",
        "-z",
        "--branch",
        "--untracked-files=all",
        "--ignore-submodules=all",
        "--no-renames",
    )
    counts = {"staged": 0, "modified": 0, "added": 0, "deleted": 0, "renamed": 0, "untracked": 0, "unmerged": 0}
    branch: dict[str, Any] = {"head": None, "oid": None, "upstream": None, "ahead": 0, "behind": 0}
    files: dict[str, list[str]] = {"unmerged": [], "untracked": []}
    for item in out.decode("utf-8", "surrogateescape").split("\0"):
        if not item:
            continue
        kind = item[0]
        if kind == "#":
            key, _, value = item[2:].partition(" ")
            if key == "branch.head":
                branch["head"] = None if value == "(detached)" else value
            elif key == "branch.oid":
                branch["oid"] = None if value == "(initial)" else value
            elif key == "branch.upstream":
                branch["upstream"] = value
            elif key == "branch.ab":
                ahead, behind = value.split()
                branch["ahead"], branch["behind"] = int(ahead), abs(int(behind))
        elif kind == "?":
            if item[2:].startswith(".annals/"):
                continue  # our own database
            counts["untracked"] += 1
            files["untracked"].append(item[2:])
        elif kind == "u":
            counts["unmerged"] += 1
            files["unmerged"].append(item.split(" ", 10)[-1])
        elif kind in "12":
            xy = item[2:4]
            if xy[0] != ".":
                counts["staged"] += 1
            if "M" in xy:
                counts["modified"] += 1
            if "A" in xy:
                counts["added"] += 1
            if "D" in xy:
                counts["deleted"] += 1
            if "R" in xy:
                counts["renamed"] += 1
    return {"counts": counts, "branch": branch, "files": files}


def _compare(indexed: Mapping[str, SymbolRow], other: dict[str, Symbol] | None, against: str) -> dict[str, str]:
    """symbol id -> why the indexed version differs from `other` (None: the file is absent there)."""
    reasons = {}
    for sid, symbol in indexed.items():
        theirs = None if other is None else other.get(sid)
        if theirs is None:
            reasons[sid] = f"not in {against}"
        elif symbol_hash(theirs) != symbol_hash(symbol):
            reasons[sid] = f"differs from {against}"
    for sid in other or {}:
        if sid not in indexed:
            reasons[sid] = f"in {against}, not indexed yet"
    return reasons


def stale_symbols(root: Path, conn: sqlite3.Connection, *, source: str) -> tuple[list[dict[str, Any]], int]:
    """Symbols whose indexed version differs from the work tree or HEAD, with reasons; and the total.
    Search-ready files among them are completed first: the comparison is by their hashes."""
    from ..complete import complete
    from ..freshness import pending_paths

    pending = set(pending_paths(root, conn))
    head = run_git(root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}", check=False).decode().strip()
    head_blobs: dict[str, str | None] = {}
    if head:
        raw = run_git(root, "diff-index", "-z", "--raw", "--no-renames", "--abbrev=40", "--end-of-options", head)
        for change in parse_raw(raw):
            if change.old_path is not None:
                head_blobs[change.old_path] = change.old_blob
            if change.new_path is not None and change.old_path is None:
                head_blobs[change.new_path] = None  # added since HEAD: not in HEAD
    candidates = sorted(p for p in pending | set(head_blobs) if may_have_language(p))
    untracked = (
        set(
            run_git(root, "ls-files", "-z", "--others", "--exclude-standard")
            .decode("utf-8", "surrogateescape")
            .split("\0")
        )
        if pending
        else set()
    )
    outlined = outlined_paths(conn, candidates)
    if outlined:
        complete(root, conn, only=outlined, source=source)
    found: dict[str, dict[str, Any]] = {}
    with SymbolDiffer(root, conn) as differ:
        for path in candidates:
            indexed = {s["id"]: s for s in symbols_in(conn, path)}
            worktree = _parse(differ, path, None) if (root / path).is_file() else None
            if path in head_blobs:
                blob = head_blobs[path]
                at_head = _parse(differ, path, blob) if blob and blob != NULL_ID else None
            elif path in untracked or not head:
                at_head = None
            else:
                at_head = worktree  # unchanged since HEAD
            symbols: dict[str, Mapping[str, Any]] = {**(at_head or {}), **(worktree or {}), **indexed}
            for against, other in (("the work tree", worktree), ("HEAD", at_head)):
                for sid, reason in _compare(indexed, other, against).items():
                    entry = found.setdefault(
                        sid,
                        {
                            "id": sid,
                            "path": path,
                            "kind": symbols[sid]["kind"],
                            "qualname": symbols[sid]["qualname"],
                            "reasons": [],
                        },
                    )
                    entry["reasons"].append(reason)
    items = sorted(found.values(), key=lambda e: (e["path"], e["id"]))
    return items[:STALE_LIMIT], len(items)


def _parse(differ: SymbolDiffer, path: str, blob: str | None) -> dict[str, Symbol] | None:
    if blob is None:
        from .gitobjects import blob_id

        try:
            data = worktree_bytes(differ.root, path)
        except OSError:
            return None
        symbols = differ.cache.symbols(path, blob_id(data), data)
    else:
        symbols = differ.cache.symbols(path, blob, None, load=lambda: differ.reader.read(blob))
    if isinstance(symbols, tuple):
        return None
    return {s["id"]: s for s in symbols}


def git_state(root: Path, conn: sqlite3.Connection, *, source: str = "cli") -> dict[str, Any]:
    """The answer of `annals state` / git_get_state (`source`: who completes search-ready files it reads)."""
    from ..freshness import freshness

    summary = status_summary(root)
    counts = summary["counts"]
    stale, total = stale_symbols(root, conn, source=source)
    return {
        "branch": summary["branch"]["head"],
        "head_commit": summary["branch"]["oid"],
        "upstream": summary["branch"]["upstream"],
        "ahead": summary["branch"]["ahead"],
        "behind": summary["branch"]["behind"],
        "clean": not any(counts.values()),
        "operation_in_progress": operation_in_progress(root),
        "status_summary": counts,
        "unmerged_files": summary["files"]["unmerged"],
        "stale_symbols": stale,
        "stale_count": total,
        "stale_truncated": total > len(stale),
        "index": freshness(root, conn),
    }
