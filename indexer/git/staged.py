"""Index what is staged: the blobs in git's index (not the work tree), as the pre-commit hook sees them.

`git commit -a` and `git commit PATH` build a temporary index and name it in GIT_INDEX_FILE;
every git call here inherits that variable, so the blobs read are the ones being committed.
Events are the indexer's own (FileIndexed, Symbol*, FileSkipped, FileRemoved), built by the same
functions, so replay cannot tell a hook's events from `annals index`'s.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...store import catch_up, transaction, writing
from ...store.projections import CORE
from ..recorded import content_hash, known_hashes, last_hash
from .gitcmd import EMPTY_TREE, head_commit, run_git
from .gitobjects import BlobReader, FileChange, parse_raw

if TYPE_CHECKING:
    from ...store.events import Event


class UnmergedIndex(Exception):
    """The index holds conflicts; the message names the files and what to do."""


@dataclass
class StagedReport:
    staged: int = 0
    indexed: int = 0
    unchanged: int = 0
    removed: int = 0
    skipped: int = 0
    events: int = 0
    deferred: bool = False  # over the parse budget: nothing appended, the work handed on
    seconds: float = 0.0
    paths: list[str] = field(default_factory=list)
    skips: list[dict[str, str]] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def unmerged(root: Path) -> list[str]:
    out = run_git(root, "ls-files", "-u", "-z").decode("utf-8", "surrogateescape")
    return sorted({item.split("\t", 1)[1] for item in out.split("\0") if "\t" in item})


def staged_changes(root: Path) -> list[FileChange]:
    """Files whose staged blob differs from HEAD's (all staged files on an unborn branch)."""
    base = head_commit(root) or EMPTY_TREE
    out = run_git(
        root, "diff-index", "--cached", "-z", "--raw", "--no-renames", "--abbrev=40", "--end-of-options", base
    )
    return parse_raw(out)


def index_staged(
    root: Path,
    conn: sqlite3.Connection,
    *,
    source: str = "hook",
    changes: list[FileChange] | None = None,
    parse_budget: int | None = None,
    check_unmerged: bool = True,
) -> StagedReport:
    """Append events for the staged blobs the log does not hold yet. UnmergedIndex on conflicts.

    With a `parse_budget` (bytes), staged content the log lacks beyond that budget is not parsed:
    nothing is appended and the report says `deferred`, for the caller to hand the work on.
    """
    started = time.perf_counter()
    conflicts = unmerged(root) if check_unmerged else []
    if conflicts:
        raise UnmergedIndex(
            f"the index has unmerged entries ({', '.join(conflicts[:10])}): resolve them "
            "(edit, then `git add`), or abort the merge; nothing was indexed"
        )
    report = StagedReport()
    changes = staged_changes(root) if changes is None else changes
    report.staged = len(changes)
    report.paths = sorted({c.new_path or c.old_path or "" for c in changes})
    if not changes:
        return report
    catch_up(conn, CORE)
    known = known_hashes(conn, {path for c in changes for path in (c.old_path, c.new_path) if path})
    removed: list[str] = []
    to_parse: list[tuple[str, str, bytes, str]] = []  # path, blob, content, content hash
    staged_hashes: dict[str, str] = {}  # path -> the staged content's hash
    with BlobReader(root) as reader:
        for change in changes:
            if change.new_path is None:
                if change.old_path in known:
                    removed.append(change.old_path)
                continue
            if change.new_blob is None:
                continue
            data = reader.read(change.new_blob)
            if data is None:
                continue
            digest = content_hash(data)
            staged_hashes[change.new_path] = digest
            if known.get(change.new_path) == digest:
                report.unchanged += 1
                continue
            to_parse.append((change.new_path, change.new_blob, data, digest))
    if not to_parse and not removed:  # all of it recorded already (by the watcher, a job, an index run)
        _stat_worktree(conn, root, staged_hashes)
        report.seconds = round(time.perf_counter() - started, 3)
        return report
    if parse_budget is not None and sum(len(item[2]) for item in to_parse) > parse_budget:
        report.deferred = True
        report.seconds = round(time.perf_counter() - started, 3)
        return report
    # The parser and the event types load only now: a hook that hands its work on never needs them.
    from ...store.events import FileSkipped
    from ..parsing.extract import FileFacts
    from ..parsing.resolve import Layout
    from ..run import _Candidate, _file_events, _links, _read_small, _removal_events
    from .gitblobs import FactsCache

    cache = FactsCache(conn)
    held = known_hashes(conn)
    new_paths = {c.new_path for c in changes if c.new_path}
    layout = Layout.of(set(held) | new_paths, lambda rel: _read_small(root / rel), _links(root, held, new_paths))
    pending: list[list[Event]] = [_removal_events(conn, path) for path in removed]
    report.removed = len(removed)
    for path, blob, data, digest in to_parse:
        parsed = cache.facts(path, blob, data)
        if isinstance(parsed, FileFacts):
            staged = _Candidate(path, parsed.language, digest, len(data), file=f"(staged) {path}")
            pending.append(_file_events(conn, staged, parsed, layout))
            report.indexed += 1
        else:
            pending.append([FileSkipped(path, parsed[0], parsed[1], digest, len(data))])
            report.skipped += 1
            report.skips.append({"path": path, "reason": parsed[0], "detail": parsed[1]})
    head = head_commit(root)
    with writing(conn, source=source) as writer:
        for events in pending:
            first = events[0]
            written: str | None = getattr(first, "path", None)
            recorded: str | None = getattr(first, "content_hash", None)
            if written is not None and recorded is not None and last_hash(conn, written) == recorded:
                continue  # another writer recorded this very content meanwhile
            writer.append(events, commit=head)
    report.events += len(writer.appended)
    cache.flush()
    _stat_worktree(conn, root, staged_hashes)
    report.seconds = round(time.perf_counter() - started, 3)
    return report


def _stat_worktree(conn: sqlite3.Connection, root: Path, staged: dict[str, str]) -> None:
    """The work tree's files that hold what was staged (now what the index holds) get their size and mtime in the
    stat cache, as an index run would: else freshness counted every file committed through the hooks as
    differing from the index until the next `annals index`. A file edited since it was staged keeps its old stat."""
    rows = []
    for path, digest in staged.items():
        full = root / path
        try:
            st = os.lstat(full)
            if not stat.S_ISREG(st.st_mode) or content_hash(full.read_bytes()) != digest:
                continue
        except OSError:
            continue
        rows.append((path, st.st_size, st.st_mtime_ns, digest))
    if rows:
        with transaction(conn):
            conn.executemany("INSERT OR REPLACE INTO stat_cache VALUES (?, ?, ?, ?)", rows)
