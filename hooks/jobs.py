"""Hook work a commit should not wait for, done by a detached process, one job at a time.

git waits for pre-commit and post-commit, and parsing fifty staged files takes most of a second.
So a hook with more unparsed content than SYNC_PARSE_BYTES writes a job file under
`.annals/jobs/`, starts `python -m codeannals.hooks.jobs ROOT` detached, and returns. A job names
everything by blob and commit id, so it means the same whenever it runs, and running it twice
appends nothing new (recorded content and commits are skipped). Jobs run under `.annals/jobs.lock`
one at a time, oldest first; a runner also takes what a killed runner left. `wait` runs or waits
for every job: `annals hooks wait`, scripts and tests use it.
"""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ..indexer.detached import start_detached
from ..indexer.git.gitobjects import FileChange
from ..store import default_db_path, open_store
from ..store.lock import WriterLock
from .hooklog import LOG_FILE, log_failure

SYNC_PARSE_BYTES = 64 * 1024  # about 60 ms of parsing: more than this and the commit does not wait
JOBS_DIR = ".annals/jobs"
JOBS_LOCK = ".annals/jobs.lock"
FAILED_SUFFIX = ".failed"


def _jobs_dir(root: Path) -> Path:
    return root / JOBS_DIR


def pending(root: Path) -> list[Path]:
    """Job files not yet done, oldest first (their names start with the time they were written)."""
    folder = _jobs_dir(root)
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


def failed(root: Path) -> list[Path]:
    folder = _jobs_dir(root)
    return sorted(folder.glob(f"*.json{FAILED_SUFFIX}")) if folder.is_dir() else []


def submit(root: Path, kind: str, changes: list[FileChange], **fields: Any) -> Path:
    """Write a job and start a detached runner; the caller returns at once."""
    folder = _jobs_dir(root)
    folder.mkdir(parents=True, exist_ok=True)
    name = f"{time.time_ns():020d}-{os.getpid()}-{kind}.json"
    scratch = folder / f".{name}.tmp"
    scratch.write_text(json.dumps({"kind": kind, "changes": [asdict(c) for c in changes], **fields}), "utf-8")
    os.replace(scratch, folder / name)  # a runner never sees half a job
    _start_runner(root)
    return folder / name


def _start_runner(root: Path) -> None:
    # A commit's temporary index is gone by the time the job runs; jobs name their blobs instead.
    env = {key: value for key, value in os.environ.items() if key != "GIT_INDEX_FILE"}
    # No pipe of the hook's: git (or an IDE reading the hook's output) must not wait for it.
    start_detached([sys.executable, "-m", "codeannals.hooks.jobs", str(root)], root / LOG_FILE, env=env, cwd=root)


def _run(root: Path, conn: Any, job: dict[str, Any]) -> None:
    from ..indexer.git.githistory import record_range
    from ..indexer.git.staged import index_staged

    if job["kind"] not in ("index", "record"):
        raise ValueError(f"unknown hook job kind {job['kind']!r}")
    changes = [FileChange(**c) for c in job["changes"]]
    index_staged(root, conn, source="hook", changes=changes, check_unmerged=False)
    if job["kind"] == "record":
        record_range(root, conn, job["old"], job["head"], origin="hook", source="hook")


def run_pending(root: Path) -> int:
    """Run every pending job under the jobs lock (waiting for a runner that holds it); how many failed.

    A job that fails is logged with its traceback and renamed `*.failed`, so it is neither lost nor
    retried forever; `annals hooks status` lists it.
    """
    failures = 0
    lock = WriterLock(root / JOBS_LOCK)
    lock.acquire(blocking=True)
    conn = None
    try:
        while jobs := pending(root):
            for path in jobs:
                conn = conn or open_store(default_db_path(root))
                try:
                    _run(root, conn, json.loads(path.read_text("utf-8")))
                except Exception:  # noqa: BLE001 - logged with its traceback and kept as *.failed
                    failures += 1
                    log_failure(root, f"job {path.name}")
                    path.rename(path.with_name(path.name + FAILED_SUFFIX))
                    continue
                path.unlink()
    finally:
        if conn is not None:
            conn.close()
        lock.release()
    return failures


def wait(root: Path) -> int:
    """Until no job is pending: run them here, or wait for the runner that is. How many failed."""
    return run_pending(root) if (root / ".annals").is_dir() else 0  # no index, no jobs


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m codeannals.hooks.jobs REPOSITORY_ROOT", file=sys.stderr)
        return 2
    return 1 if run_pending(Path(argv[0])) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
