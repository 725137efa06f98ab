"""Commits into the log: one CommitRecorded per commit id with its symbol-level changes.

Used by the post-commit, post-merge and post-rewrite hooks, by `annals commit`, and by
`annals index --history`, which walks past commits oldest first. Recording is idempotent by
commit id (checked inside the write transaction), so hooks, rebases and backfills never
duplicate. A merge records only what the merge itself changed: symbols that differ from
every parent.
"""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

from ...store import log as event_log
from ...store import writing
from ...store.events import CommitDescribed, CommitRecorded, CommitRewritten, commit_stream, rewrite_stream
from ...store.history import undescribed_commits
from ...store.lookups import module_of
from ..parsing.parse import may_have_language
from .gitcmd import BadRef, GitError, check_ref_text, head_commit, run_git, verify_commit
from .gitobjects import FileChange
from .symdiff import Revision, SymbolDiffer, changed_files, tests_affected

COMMITS_PER_TRANSACTION = 50
HOOK_COMMIT_LIMIT = 500  # a hook records at most this many new commits; the rest wait for --history
_TRAILER = re.compile(r"^([A-Za-z0-9][A-Za-z0-9-]*)\s*:\s?(.*)$")
_SIGN_OFF = re.compile(r"^\s*[A-Za-z][A-Za-z0-9-]*-by\s*:", re.IGNORECASE)
MAX_BODY = 4_000  # a squash merge's list of every commit says little more after this


@dataclass
class CommitInfo:
    commit: str
    tree: str
    parents: list[str]
    author: str
    authored_at: str
    committed_at: str
    message: str

    @property
    def title(self) -> str:
        return self.message.split("\n", 1)[0].strip()


def _iso(epoch: str, offset: str) -> str:
    del offset  # stored in UTC; the author's zone is not needed to order or show commits
    moment = datetime.fromtimestamp(int(epoch), tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _person(line: str) -> tuple[str, str]:
    """'Name <mail> 1700000000 +0100' -> ('Name <mail>', ISO time)."""
    who, _, rest = line.rpartition("> ")
    parts = rest.split()
    when = _iso(parts[0], parts[1] if len(parts) > 1 else "+0000") if parts and parts[0].isdigit() else ""
    return who + ">", when


def read_commit(differ: SymbolDiffer, commit: str) -> CommitInfo:
    """Parse a raw commit object read through the differ's cat-file."""
    raw = differ.reader.read_object(commit)
    if raw is None or raw[0] != "commit":
        raise GitError(f"{commit} is not a commit object")
    text = raw[1].decode("utf-8", "replace")
    header, _, message = text.partition("\n\n")
    tree, parents, author, authored, committed = "", [], "", "", ""
    for line in header.split("\n"):
        key, _, value = line.partition(" ")
        if key == "tree":
            tree = value
        elif key == "parent":
            parents.append(value)
        elif key == "author":
            author, authored = _person(value)
        elif key == "committer":
            committed = _person(value)[1]
    return CommitInfo(commit, tree, parents, author, authored, committed, message)


def trailers(message: str) -> dict[str, list[str]]:
    """The trailers of a commit message (its last paragraph, when every line is `Key: value`)."""
    paragraphs = [p for p in message.strip().split("\n\n") if p.strip()]
    if len(paragraphs) < 2:
        return {}
    out: dict[str, list[str]] = {}
    last_key = None
    for line in paragraphs[-1].split("\n"):
        if line[:1] in (" ", "\t") and last_key is not None:
            out[last_key][-1] += " " + line.strip()
            continue
        match = _TRAILER.match(line)
        if match is None:
            return {}
        last_key = match.group(1).lower()
        out.setdefault(last_key, []).append(match.group(2).strip())
    return out


def body(message: str) -> str:
    """A commit message after its title, without its trailers (the last paragraph of `Key: value` lines, and
    sign-offs anywhere: a squash merge keeps each commit's `Co-authored-by:`), at most MAX_BODY characters."""
    rest = message.strip().partition("\n")[2]
    paragraphs = [p for p in rest.split("\n\n") if p.strip()]
    if paragraphs and trailers(message):
        paragraphs = paragraphs[:-1]
    lines = [line for p in paragraphs for line in p.strip().split("\n") if not _SIGN_OFF.match(line)]
    return "\n".join(lines)[:MAX_BODY]


def _first(values: dict[str, list[str]], *keys: str) -> str | None:
    for key in keys:
        if values.get(key):
            return values[key][0]
    return None


def is_recorded(conn: sqlite3.Connection, commit: str) -> bool:
    return event_log.has_stream(conn, commit_stream(commit))


def _merge_only(per_parent: list[dict[str, Any]]) -> dict[str, Any]:
    """What a merge changed itself: entries present, with the same result, in the diff to every parent."""

    def keyed(result: dict[str, Any]) -> dict[str, dict[tuple[str, str], dict[str, Any]]]:
        return {
            "changed_symbols": {(e["id"], e["after_hash"]): e for e in result["changed_symbols"]},
            "deleted_symbols": {(e["id"], ""): e for e in result["deleted_symbols"]},
            "renamed_symbols": {(e["from"], e["to"]): e for e in result["renamed_symbols"]},
        }

    first, rest = keyed(per_parent[0]), [keyed(r) for r in per_parent[1:]]
    merged = dict(per_parent[0])
    for name, entries in first.items():
        merged[name] = [e for k, e in entries.items() if all(k in other[name] for other in rest)]
    merged["unparsed_files"] = [u for r in per_parent for u in r["unparsed_files"]]
    return merged


Plan = list[tuple[Revision, list[FileChange]]]  # per parent: the base and the files that differ


def plan(differ: SymbolDiffer, info: CommitInfo) -> Plan:
    """The file changes of a commit against each parent (the empty tree for a root commit). Against a merge's
    other parents, only the files its first parent's changes touch: what a merge changed itself changed against
    every parent (_merge_only), and a file the first diff leaves alone holds nothing of it. tmux's merges of
    OpenBSD's tree differ from their second parent in 66,733 files over its 1,000 newest commits, 635 of them
    files the first diff has: their diffs took 110 s of its 256 s of history.

    One thing reads otherwise for it: a symbol that one side moved into a file and the other changed, which the
    merge holds as no parent does, is the merge's change (against the other parent it is added, not moved in
    from a file left unread). Over the 1,000 newest commits of 8 localize_bench repositories, that is pino's
    `asJson` in one merge, and nothing else."""
    target = Revision(info.commit, "commit", info.commit)
    out: Plan = []
    parents: list[str | None] = list(info.parents) or [None]
    touched: set[str] = set()
    for parent in parents:
        base = Revision(parent or "(root)", "commit", parent)
        changes = changed_files(differ.root, base, target)
        if out:
            changes = [c for c in changes if c.old_path in touched or c.new_path in touched]
        else:
            touched = {path for c in changes for path in (c.old_path, c.new_path) if path is not None}
        out.append((base, changes))
    return out


def prefetch(differ: SymbolDiffer, plans: list[Plan]) -> int:
    """Parse every blob these commits need and the cache lacks, in parallel; how many."""
    wanted: list[tuple[str, str, Callable[[], bytes | None]]] = []
    for per_parent in plans:
        for _, changes in per_parent:
            for c in changes:
                for path, blob in ((c.old_path, c.old_blob), (c.new_path, c.new_blob)):
                    if path is not None and blob is not None:
                        wanted.append((path, blob, partial(differ.reader.read, blob)))
    return differ.cache.prefetch(wanted)


def commit_changes(differ: SymbolDiffer, info: CommitInfo, planned: Plan | None = None) -> dict[str, Any]:
    """The symbol diff of a commit against its parent (the empty tree for a root commit)."""
    target = Revision(info.commit, "commit", info.commit)
    results = [differ.diff(base, target, changes=changes) for base, changes in (planned or plan(differ, info))]
    return results[0] if len(results) == 1 else _merge_only(results)


def _modules(conn: sqlite3.Connection, paths: set[str]) -> list[str]:
    return sorted({module_of(conn, path) or path for path in paths})


def _slim(result: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    changed = [
        {k: e[k] for k in ("id", "qualname", "path", "kind", "status", "changed", "before_hash", "after_hash")}
        for e in result["changed_symbols"]
    ]
    renamed = [
        {
            k: r[k]
            for k in (
                "from",
                "to",
                "from_path",
                "to_path",
                "from_qualname",
                "to_qualname",
                "kind",
                "similarity",
                "also_modified",
                "changed",
            )
        }
        for r in result["renamed_symbols"]
    ]
    return changed, result["deleted_symbols"], renamed


def build_event(
    conn: sqlite3.Connection,
    differ: SymbolDiffer,
    commit: str,
    origin: str,
    info: CommitInfo | None = None,
    planned: Plan | None = None,
    *,
    source: str,
) -> CommitRecorded:
    info = info or read_commit(differ, commit)
    result = commit_changes(differ, info, planned)
    found = trailers(info.message)
    changed, deleted, renamed = _slim(result)
    paths = {e["path"] for e in changed + deleted} | {r["to_path"] for r in renamed} | {r["from_path"] for r in renamed}
    return CommitRecorded(
        commit=info.commit,
        parents=info.parents,
        author=info.author,
        authored_at=info.authored_at,
        committed_at=info.committed_at,
        title=info.title,
        body=body(info.message),
        origin=origin,
        agent=_first(found, "agent-id", "agent"),
        goal_id=_first(found, "goal-id", "goal_id"),
        trailers=found,
        changed_symbols=changed,
        deleted_symbols=deleted,
        renamed_symbols=renamed,
        modules=_modules(conn, paths),
        tests=tests_affected(differ.root, conn, result, source=source),
        files_changed=result["files_changed"],
    )


def _append_new(conn: sqlite3.Connection, events: list[CommitRecorded], source: str, head: str | None) -> int:
    """Append the events whose commit is not recorded yet (checked inside the transaction). An event's commit
    column is the HEAD it was seen at, which the newest event's says the index reflects: recording HEAD
    itself (a hook after a commit, `annals commit`) moves it there; recording the commits before it (the
    history `annals index` records) leaves it where the log stands."""
    with writing(conn, source=source) as writer:
        for event in events:
            if not is_recorded(conn, event.commit):
                writer.append([event], commit=event.commit if event.commit == head else event_log.last_commit(conn))
    return len(writer.appended)


def record_commits(
    root: Path,
    conn: sqlite3.Connection,
    commits: list[str],
    *,
    origin: str,
    source: str,
    differ: SymbolDiffer | None = None,
    progress: Callable[[int, int], None] | None = None,
    deadline: float | None = None,
    unreadable: list[str] | None = None,
) -> int:
    """Record each commit not yet in the log, in the order given, stopping after the batch that passes
    `deadline` (a time.perf_counter() value); return how many were added. A commit git cannot read (objects
    missing: a blobless clone offline, a damaged repository) is left unrecorded, and added to `unreadable`: its
    changes would be a guess, and the rest of the history is still worth having."""
    todo = [c for c in commits if not is_recorded(conn, c)]
    if not todo:
        return 0
    own = differ is None
    differ = differ or SymbolDiffer(root, conn)
    head = head_commit(root)
    added = 0
    try:
        for start in range(0, len(todo), COMMITS_PER_TRANSACTION):
            commits_now = todo[start : start + COMMITS_PER_TRANSACTION]
            infos, plans = [], []
            for commit in commits_now:
                try:
                    info = read_commit(differ, commit)
                    plans.append(plan(differ, info))
                except GitError:
                    if unreadable is None:
                        raise
                    unreadable.append(commit)
                    continue
                infos.append(info)
            prefetch(differ, plans)  # the batch's parsing, spread over every core
            batch = [
                build_event(conn, differ, info.commit, origin, info, planned, source=source)
                for info, planned in zip(infos, plans, strict=True)
            ]
            differ.cache.flush()
            added += _append_new(conn, batch, source, head)
            if progress:
                progress(start + len(commits_now), len(todo))
            if deadline is not None and time.perf_counter() >= deadline:
                break
    finally:
        if own:
            differ.close()
    return added


DESCRIBED_PER_TRANSACTION = 500


def describe_recorded(
    conn: sqlite3.Connection, differ: SymbolDiffer, *, source: str, deadline: float | None = None
) -> int:
    """Give each commit recorded before `commit.recorded` carried a body its body, read from git, so that an
    index made by an older annals matches whole messages too (stopping after the batch that passes
    `deadline`); return how many. A commit git no longer has keeps its title alone."""
    todo = undescribed_commits(conn)
    described = 0
    for start in range(0, len(todo), DESCRIBED_PER_TRANSACTION):
        events = []
        for commit in todo[start : start + DESCRIBED_PER_TRANSACTION]:
            try:
                message = read_commit(differ, commit).message
            except GitError:
                message = ""  # gone from the repository (a rewritten history): described as empty, not asked again
            events.append(CommitDescribed(commit=commit, body=body(message)))
        with writing(conn, source=source) as writer:
            writer.append(events, commit=event_log.last_commit(conn))  # a message read again moves no HEAD
        described += len(events)
        if deadline is not None and time.perf_counter() >= deadline:
            break
    return described


@dataclass
class BackfillReport:
    commits: int = 0
    recorded: int = 0
    described: int = 0  # commits recorded by an older annals, given their message body
    already: int = 0
    seconds: float = 0.0
    blobs_parsed: int = 0
    blobs_cached: int = 0
    since: str | None = None
    head: str | None = None
    reachable: int = 0  # commits reachable from HEAD (after `since`): more than `commits` when limited
    unreadable: list[str] = field(default_factory=list)  # commits git could not read: not recorded

    def as_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def backfill(
    root: Path,
    conn: sqlite3.Connection,
    *,
    since: str | None = None,
    source: str = "cli",
    progress: Callable[[int, int], None] | None = None,
    limit: int | None = None,
    seconds: float | None = None,
) -> BackfillReport:
    """Record every commit reachable from HEAD (after `since`), oldest first; or with `limit`, the newest that
    many, newest first, for at most about `seconds` (the newest are the ones a task resembles most)."""
    started = time.perf_counter()
    report = BackfillReport(since=since)
    head = run_git(root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}", check=False).decode().strip()
    if not head:
        report.seconds = round(time.perf_counter() - started, 3)
        return report  # an unborn branch has no history yet
    report.head = head
    spec = [head]
    if since is not None:
        spec = [f"^{verify_commit(root, since, '--since')}", head]
    order = ["--reverse"] if limit is None else [f"--max-count={limit}"]
    commits = run_git(root, "rev-list", *order, "--topo-order", "--end-of-options", *spec).decode().split()
    report.commits = len(commits)
    report.reachable = (
        len(commits)
        if limit is None
        else int(run_git(root, "rev-list", "--count", "--end-of-options", *spec).decode().strip())
    )
    deadline = started + seconds if seconds is not None else None
    report.already = sum(is_recorded(conn, c) for c in commits)  # before: a deadline may leave some undone
    with SymbolDiffer(root, conn) as differ:
        report.recorded = record_commits(
            root,
            conn,
            commits,
            origin="history",
            source=source,
            differ=differ,
            progress=progress,
            deadline=deadline,
            unreadable=report.unreadable,
        )
        report.described = describe_recorded(conn, differ, source=source, deadline=deadline)
        report.blobs_parsed, report.blobs_cached = differ.cache.misses, differ.cache.hits
    report.seconds = round(time.perf_counter() - started, 3)
    return report


def record_range(
    root: Path, conn: sqlite3.Connection, old: str | None, new: str, *, origin: str, source: str
) -> dict[str, Any]:
    """Record the commits reachable from `new` and not from `old` (post-merge, post-rewrite)."""
    spec = [new] if old is None else [new, f"^{old}"]
    commits = (
        run_git(
            root,
            "rev-list",
            "--reverse",
            "--topo-order",
            f"--max-count={HOOK_COMMIT_LIMIT + 1}",
            "--end-of-options",
            *spec,
        )
        .decode()
        .split()
    )
    more = len(commits) > HOOK_COMMIT_LIMIT
    commits = commits[:HOOK_COMMIT_LIMIT]
    return {
        "commits": len(commits),
        "recorded": record_commits(root, conn, commits, origin=origin, source=source),
        "truncated": more,
    }


def record_rewrites(
    root: Path, conn: sqlite3.Connection, kind: str, pairs: list[tuple[str, str]], *, source: str
) -> dict[str, Any]:
    """Map rewritten commits old -> new (amend, rebase), once each; record the new commits."""
    if kind not in ("amend", "rebase"):
        raise ValueError(f"unknown rewrite kind {kind!r}: git sends 'amend' or 'rebase'")
    with writing(conn, source=source) as writer:
        for old, new in pairs:
            if not any(e.payload["new"] == new for e in event_log.read(conn, stream=rewrite_stream(old))):
                writer.append([CommitRewritten(old, new, kind)], commit=new)
    news = list(dict.fromkeys(new for _, new in pairs))
    recorded = record_commits(root, conn, news, origin="hook", source=source)
    return {"mapped": len(writer.appended), "recorded": recorded}


# --- a symbol at any revision ------------------------------------------------------------


def split_symbol_at(text: str) -> tuple[str, str]:
    """'SYMBOL@REV' -> (symbol, rev); the last '@' splits, so ids with '@' in a path still work."""
    symbol, sep, rev = text.rpartition("@")
    if not sep or not symbol or not rev:
        raise BadRef(f"{text!r} is not SYMBOL@REV: send e.g. 'src/app.py::Server.start@HEAD~3'")
    return symbol, rev


def symbol_at(root: Path, conn: sqlite3.Connection, symbol: str, rev: str) -> dict[str, Any]:
    """A symbol's source at a revision, following its renames and moves back in time."""
    from ...store.history import rename_chain
    from ...store.queries import NotFound, find_symbol

    check_ref_text(rev)
    commit = verify_commit(root, rev)
    if "::" in symbol:
        start_id = symbol
    else:
        start_id = find_symbol(conn, symbol)["id"]
    with SymbolDiffer(root, conn) as differ:
        for candidate in rename_chain(conn, start_id):
            path, _, qualname = candidate.partition("::")
            if not may_have_language(path) or "\n" in path:
                continue
            blob = (
                run_git(root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{commit}:{path}", check=False)
                .decode()
                .strip()
            )
            if not blob:
                continue
            data = differ.reader.read(blob)
            if data is None:
                continue
            symbols = differ.cache.symbols(path, blob, data)
            if isinstance(symbols, tuple):
                continue
            found = next((s for s in symbols if s["id"] == candidate), None)
            if found is None:
                continue
            lines = data.decode("utf-8", "replace").split("\n")
            return {
                "id": candidate,
                "asked": symbol,
                "rev": rev,
                "commit": commit,
                "path": path,
                "qualname": found["qualname"],
                "kind": found["kind"],
                "signature": found["signature"],
                "start_line": found["start_line"],
                "end_line": found["end_line"],
                "source": "\n".join(lines[found["start_line"] - 1 : found["end_line"]]),
                "renamed": candidate != start_id,
            }
    raise NotFound(
        f"{symbol!r} did not exist at {rev} ({commit[:12]}) under any name we know; "
        "`annals history SYMBOL` lists its commits, `annals index --history` records older ones"
    )


__all__ = [
    "BackfillReport",
    "CommitInfo",
    "backfill",
    "build_event",
    "is_recorded",
    "read_commit",
    "record_commits",
    "record_range",
    "record_rewrites",
    "split_symbol_at",
    "symbol_at",
    "trailers",
]
