"""Tier 2: bring outlined files (search-ready, `file.outlined`) to complete facts.

`annals index` outlines a first index and returns; completing is re-extracting those files whole
through `run.index_tree`, so it writes what a one-pass index writes (file.indexed, then one
symbol.added per symbol) and stands wherever it is killed: each batch of files commits with its
projections, and the files still outlined are the work left. One process completes at a time (the
lock beside the database): `annals index` starts it in the background, `annals index --wait` does
it in place or waits for it, and an answer that needs one file's complete facts completes that file
itself (`complete(..., only=[path])`), which another completer then skips. The rest go in the
order an agent is likely to ask about them: what the work tree changes, then what the newest
commits changed, then by path. The background process itself is `background.py`.
"""

from __future__ import annotations

import sqlite3
import subprocess
import time
from collections.abc import Collection
from pathlib import Path
from typing import Any

from ..store.lock import WriterLock
from ..store.lookups import indexed_paths, outlined_count, outlined_paths
from .run import IndexReport, Progress, index_tree

OUTLINE_FROM = 64  # `annals index` outlines first when this many files have no complete facts yet
POLL_SECONDS = 0.25
MENTIONS = 200  # an answer completes at most this many outlined files that name what it is about
RECENT_COMMITS = 100  # the files these newest commits changed are completed before the rest


def lock_path(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + ".complete.lock")


def complete(
    root: Path,
    conn: sqlite3.Connection,
    *,
    only: Collection[str] | None = None,
    progress: Progress | None = None,
    source: str = "cli",
) -> IndexReport:
    """Complete the outlined files (of `only`, else all, the likeliest to be asked about first). The
    files an agent does ask about are completed by its answers (`on_demand`) ahead of this order."""
    pending = outlined_paths(conn, only)
    if not pending:
        return IndexReport()
    if only is None:
        pending = likely_first(root, pending)
    return index_tree(root, conn, source=source, only=pending, completing=pending, progress=progress)


def likely_first(root: Path, paths: list[str]) -> list[str]:
    """`paths` in the order an agent is likely to ask about them: the files the work tree changes, then
    those the newest RECENT_COMMITS commits changed (the newest first), then the rest as given. Outside
    a git work tree, as given."""
    from .git.gitcmd import run_git

    listed = ("--name-only", "--relative", "-z")
    try:
        changing = run_git(root, "diff", *listed, "HEAD", check=False)
        recent = run_git(root, "log", f"-n{RECENT_COMMITS}", *listed, "--format=", check=False)
    except (OSError, subprocess.SubprocessError):  # no git to ask: the order stays as given
        return paths
    named = [p.strip("\n") for p in (changing + recent).decode("utf-8", "surrogateescape").split("\0")]
    pending = set(paths)
    first = [p for p in dict.fromkeys(named) if p in pending]
    chosen = set(first)
    return [*first, *(p for p in paths if p not in chosen)]


def on_demand(
    root: Path, conn: sqlite3.Connection, paths: Collection[str], names: Collection[str], *, source: str
) -> list[str]:
    """Complete what one answer reads: the outlined files among `paths`, and those whose text has one
    of `names` (where callers, importers and tests can be), up to MENTIONS of them; which they were."""
    wanted = set(outlined_paths(conn, paths))
    needles = [name.encode() for name in names if name]
    if needles and outlined_count(conn) > len(wanted):
        for path in outlined_paths(conn):
            if len(wanted) >= MENTIONS + len(paths):
                break
            if path in wanted:
                continue
            try:
                text = (root / path).read_bytes()
            except OSError:
                wanted.add(path)  # completing it records what became of it
                continue
            if any(needle in text for needle in needles):
                wanted.add(path)
    if wanted:
        complete(root, conn, only=wanted, source=source)
    return sorted(wanted)


def before_answer(
    root: Path, conn: sqlite3.Connection, paths: list[str], name: str | None = None, *, source: str
) -> list[str]:
    """Tier 2 on demand before an answer about `paths` reads their imports, calls or tests: the outlined files
    among them, and those naming `name` (unset: the first path's module, as its importers write it). What every
    tool and command that reads those facts calls first (none once the index is complete); which were completed."""
    if not paths or not outlined_count(conn):
        return []
    return on_demand(root, conn, paths, [name or module_word(paths[0])], source=source)


def module_word(path: str) -> str:
    """What a file that imports this one writes: its module's last name (`pkg/util.py`: util; a
    package's `__init__`: the package)."""
    parts = path.rsplit(".", 1)[0].split("/")
    return parts[-2] if parts[-1] in ("__init__", "index", "mod") and len(parts) > 1 else parts[-1]


def complete_held(
    root: Path, conn: sqlite3.Connection, progress: Progress | None = None, source: str = "cli"
) -> IndexReport | None:
    """For the holder of the lock: complete until nothing is outlined, files outlined meanwhile too.
    The last round's report (None if there was nothing to do)."""
    done: IndexReport | None = None
    while outlined_count(conn):
        done = complete(root, conn, progress=progress, source=source)
        if not (done.completed or done.removed or done.skipped):
            break  # nothing moved: leave the rest to the next index run rather than spin
    return done


def complete_all(
    root: Path, db_path: Path, conn: sqlite3.Connection, progress: Progress | None = None
) -> IndexReport | None:
    """Every outlined file completed when this returns: here, or by the process that holds the
    lock. The last report of the work done here (None if none was)."""
    lock = WriterLock(lock_path(db_path))
    while outlined_count(conn):
        if lock.acquire(blocking=False):
            try:
                return complete_held(root, conn, progress)
            finally:
                lock.release()
        if progress:
            progress(0, outlined_count(conn))
        time.sleep(POLL_SECONDS)
    return None


def tier_progress(db_path: Path, conn: sqlite3.Connection) -> dict[str, Any]:
    """Each tier's progress, for `annals status`: files search-ready, files complete (and who is
    completing the rest), how far the vectors are behind the log."""
    from .vectors.owner import vectors_enabled
    from .vectors.progress import Location, read_progress

    ready = len(indexed_paths(conn))
    vectors = read_progress(conn, Location.for_db(db_path))
    return {
        "search_ready": ready,
        "complete": ready - outlined_count(conn),
        "completing_pid": WriterLock(lock_path(db_path)).owner(),
        "vectors": {
            "enabled": vectors_enabled(),
            "built": vectors["built"],
            "pending_events": vectors["pending_events"],
        },
    }
