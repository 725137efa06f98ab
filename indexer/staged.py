"""Index what is staged: the blobs in git's index (not the work tree), as the pre-commit hook sees them.

`git commit -a` and `git commit PATH` build a temporary index and name it in GIT_INDEX_FILE;
every git call here inherits that variable, so the blobs read are the ones being committed.
Events are the indexer's own (FileIndexed, Symbol*, FileSkipped, FileRemoved), built by the same
functions, so replay cannot tell a hook's events from `annals index`'s.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..store import catch_up, transaction
from ..store import log as event_log
from ..store.events import Event, FileSkipped
from ..store.projections import CORE
from .extract import FileFacts
from .gitblobs import BlobReader, FactsCache
from .gitcmd import EMPTY_TREE, head_commit, run_git
from .parse import language_for
from .resolve import Layout
from .run import _Candidate, _file_events, _known, _last_hash, _read_small, _removal_events, content_hash
from .symdiff import FileChange, _parse_raw


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
    out = run_git(root, "diff-index", "--cached", "-z", "--raw", "--no-renames", "--abbrev=40",
                  "--end-of-options", base)
    return _parse_raw(out)


def index_staged(root: Path, conn: sqlite3.Connection, *, source: str = "hook",
                 changes: list[FileChange] | None = None) -> StagedReport:
    """Append events for the staged blobs the log does not hold yet. UnmergedIndex on conflicts."""
    started = time.perf_counter()
    conflicts = unmerged(root)
    if conflicts:
        raise UnmergedIndex(f"the index has unmerged entries ({', '.join(conflicts[:10])}): resolve them "
                            "(edit, then `git add`), or abort the merge; nothing was indexed")
    report = StagedReport()
    changes = staged_changes(root) if changes is None else changes
    report.staged = len(changes)
    report.paths = sorted({c.new_path or c.old_path or "" for c in changes})
    if not changes:
        return report
    catch_up(conn, CORE)
    known = _known(conn)
    layout = Layout.of(set(known) | {c.new_path for c in changes if c.new_path},
                       lambda rel: _read_small(root / rel))
    head = head_commit(root)
    cache = FactsCache(conn)
    pending: list[list[Event]] = []
    with BlobReader(root) as reader:
        for change in changes:
            if change.new_path is None:
                if change.old_path in known:
                    pending.append(_removal_events(conn, change.old_path))
                    report.removed += 1
                continue
            path, blob = change.new_path, change.new_blob
            if blob is None:
                continue
            data = reader.read(blob)
            if data is None:
                continue
            digest = content_hash(data)
            if known.get(path) == digest:
                report.unchanged += 1
                continue
            lang = language_for(path)
            parsed = (cache.facts(path, blob, data, lang) if lang
                      else ("no grammar", "no tree-sitter grammar for this file type"))
            if isinstance(parsed, FileFacts):
                pending.append(_file_events(conn, _Candidate(path, parsed.language, data, digest), parsed, layout))
                report.indexed += 1
            else:
                pending.append([FileSkipped(path, parsed[0], parsed[1], digest, len(data))])
                report.skipped += 1
                report.skips.append({"path": path, "reason": parsed[0], "detail": parsed[1]})
    with transaction(conn):
        for events in pending:
            first = events[0]
            written: str | None = getattr(first, "path", None)
            recorded: str | None = getattr(first, "content_hash", None)
            if written is not None and recorded is not None and _last_hash(conn, written) == recorded:
                continue  # another writer recorded this very content meanwhile
            report.events += len(event_log.append(conn, events, source=source, commit=head))
    cache.flush()
    catch_up(conn, CORE)
    report.seconds = round(time.perf_counter() - started, 3)
    return report
