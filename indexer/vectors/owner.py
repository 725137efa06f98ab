"""Who owns the vector store, how far it has caught up, and catching it up in the background.

This is the light half of the vector projection: nothing here imports chromadb, numpy or the
model, so `annals index` can report "vectors pending" and start a catch-up for the price of one
SQLite read. The heavy half, which opens chroma, is `vector_store`; what both need (the
store's location, the progress row, the errors) is `progress`.

chromadb is not process-safe, so exactly one process opens a local store: the holder of the
writer lock next to it. `annals index` starts a detached process that takes the lock, embeds what
the log added and exits when it has caught up; a watcher or server that holds the lock catches up
itself. Everyone else reads the progress row in SQLite and answers from full text.

Run as `python -m codeannals.indexer.vectors.owner --root R --db D` it is that background process.
"""

from __future__ import annotations

import argparse
import logging
import os
import sqlite3
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...store import log as event_log
from ..detached import start_detached
from .progress import (
    BUILT_WITH,
    CatchUpInterrupted,
    Location,
    VectorsUnavailable,
    pending_events,
    read_progress,
)

if TYPE_CHECKING:
    from .vector_store import CatchUpReport, VectorStore

log = logging.getLogger(__name__)

VECTORS_ENV = "ANNALS_VECTORS"  # "off": no process builds or follows the vectors (as `annals index --no-vectors`)
POLL_SECONDS = 0.25
KEEP_UP_SECONDS = 2.0  # how often a keeper looks at the log when nobody pokes it
WORKER_MODULE = "codeannals.indexer.vectors.owner"

Progress = Callable[[int, int], None]


# --- owning the store ---------------------------------------------------------------------------


class VectorOwner:
    """This process's claim on the vector store: the writer lock first, then the open store."""

    def __init__(self, root: Path, db_path: Path) -> None:
        from ...store.lock import WriterLock

        self.root = root
        self.location = Location.for_db(db_path)
        self.location.lock_path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = WriterLock(self.location.lock_path)
        self._held = False
        self._store: VectorStore | None = None
        self.interrupt = threading.Event()  # set to stop a catch-up between chunks
        self._opening = threading.Lock()  # a server's query threads and its catch-up thread share the store
        self.reset_reason: str | None = None  # why the store was emptied for a rebuild, until it is rebuilt

    def claim(self) -> bool:
        """Take the lock if nobody holds it; never waits."""
        if not self._held:
            self._held = bool(self._lock.acquire(blocking=False))
        return self._held

    def holder(self) -> str:
        """Who holds the lock, for messages."""
        owner = self._lock.owner()
        return f"pid {owner}" if owner else "another process"

    def store(self, conn: sqlite3.Connection) -> VectorStore:
        """The open store, opened (and rebuilt if unreadable or stale) on first use."""
        if not self._held and not self.location.url:
            raise VectorsUnavailable(f"the vector store {self.location.describe()} is owned by {self.holder()}")
        with self._opening:
            if self._store is not None and self._store.broken and self._held:
                self._store.destroy()
                self._store = None
            if self._store is None:
                from .vector_store import VectorStore

                store = VectorStore(self.location, self.root)
                self.reset_reason = store.open(conn, repair=self._held)
                self._store = store
            return self._store

    def catch_up(self, conn: sqlite3.Connection, progress: Progress | None = None) -> CatchUpReport:
        """Embed everything the log holds that the store lacks, until nothing is left (the lock holder only)."""
        from ...store.projections import CORE, catch_up

        if not self._held:
            raise VectorsUnavailable(f"only the owner writes vectors; {self.holder()} holds {self.location.lock_path}")
        store = self.store(conn)
        report = None
        while True:
            catch_up(conn, CORE)  # vectors follow the symbols table, so it must be current first
            report = store.catch_up(conn, progress, report, interrupt=self.interrupt)
            if report.rebuilt is None and self.reset_reason:
                report.rebuilt = self.reset_reason
            if not pending_events(conn, store.position):
                self.reset_reason = None
                return report

    def release(self) -> None:
        if self._held:
            self._lock.release()
            self._held = False
        self._store = None

    def __enter__(self) -> VectorOwner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


@dataclass
class VectorAccess:
    """The vector store if this process may query it, else None and the reason (for `note`)."""

    store: VectorStore | None
    note: str | None
    progress: dict[str, Any] = field(default_factory=dict)


def vector_access(conn: sqlite3.Connection, owner: VectorOwner) -> VectorAccess:
    """Open the store for queries when it is built and ours to open; chromadb is imported only then."""
    progress = read_progress(conn, owner.location)
    if not progress["built"]:
        why = (
            "vectors are not built yet (`annals index` builds them)"
            if not progress["model"]
            else "the vector store is missing and is being rebuilt from the log"
            if progress["model"] == BUILT_WITH
            else "the vector store was built by another version of annals (`annals index` rebuilds it)"
        )
        return VectorAccess(None, f"{why}; answered from full text", progress)
    if not owner.location.url and not owner.claim():
        return VectorAccess(None, f"the vector store is in use by {owner.holder()}; answered from full text", progress)
    try:
        store = owner.store(conn)
    except VectorsUnavailable as exc:
        return VectorAccess(None, f"{exc}; answered from full text", progress)
    if owner.reset_reason is not None:
        return VectorAccess(
            None,
            f"the vector store was {owner.reset_reason} and is being rebuilt from the log; answered from full text",
            read_progress(conn, owner.location),
        )
    note = None
    if progress["pending_events"]:
        note = (
            f"vectors are {progress['pending_events']} changes behind the log; "
            "symbols indexed since then are found by full text only"
        )
    return VectorAccess(store, note, progress)


def vectors_enabled() -> bool:
    return os.environ.get(VECTORS_ENV) != "off"


class VectorKeeper:
    """A long-running process's part in the vectors (`annals serve`, `annals watch`): it takes the
    lock as soon as it is free, catches up whenever the log moves, and answers queries from the
    store it owns. While another process holds the lock, queries get full text and say so."""

    def __init__(self, root: Path, db_path: Path, *, interval: float = KEEP_UP_SECONDS) -> None:
        self.owner = VectorOwner(root, db_path)
        self.interval = interval
        self.last_error: str | None = None  # why the last catch-up failed, for status answers
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="annals-vectors", daemon=True)
            self._thread.start()

    def poke(self) -> None:
        """Catch up now rather than at the next interval (after appending events, say)."""
        self._wake.set()

    def stop(self, timeout: float = 30.0) -> None:
        """Stop the thread (a catch-up stops between chunks) and give the lock up."""
        self._stop.set()
        self.owner.interrupt.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
            if self._thread.is_alive():
                log.error("the vector thread did not stop within %.0fs; keeping the lock until exit", timeout)
                return
            self._thread = None
        self.owner.release()

    def access(self, conn: sqlite3.Connection) -> VectorAccess:
        """What a query may use: the store (when ours) or the reason it is not."""
        return vector_access(conn, self.owner)

    def _run(self) -> None:
        from ...store import open_store
        from .embed import ModelUnavailable

        conn = open_store(self.owner.location.db_path)
        try:
            while not self._stop.is_set():
                try:
                    if self.owner.claim():
                        self.owner.catch_up(conn)
                        self.last_error = None
                except CatchUpInterrupted:
                    break
                except (ModelUnavailable, VectorsUnavailable) as exc:
                    if self.last_error != str(exc):
                        log.error("vectors cannot catch up: %s", exc)
                    self.last_error = str(exc)
                except Exception as exc:  # noqa: BLE001 - the top of a loop that must survive; logged
                    log.exception("vector catch-up failed; retrying in %.0fs", self.interval)
                    self.last_error = f"{type(exc).__name__}: {exc}"
                self._wake.wait(self.interval)
                self._wake.clear()
        finally:
            conn.close()


# --- catching up: here, in the background, or by waiting for the owner --------------------------


def start_background(root: Path, db_path: Path) -> int:
    """A detached process that takes the lock and embeds until it has caught up; return its pid."""
    argv = [sys.executable, "-m", WORKER_MODULE, "--root", str(root), "--db", str(db_path)]
    return start_detached(argv, Location.for_db(db_path).log_path).pid


def wait_until_caught_up(
    root: Path, db_path: Path, conn: sqlite3.Connection, progress: Progress | None = None
) -> dict[str, Any]:
    """Block until the vectors reflect the whole log: catch up here, or wait for the owner to."""
    from .embed import ModelUnavailable

    location = Location.for_db(db_path)
    target = event_log.head(conn)
    while True:
        with VectorOwner(root, db_path) as owner:
            if owner.claim():
                try:
                    report = owner.catch_up(conn, progress)
                except ModelUnavailable as exc:
                    raise VectorsUnavailable(
                        f"vectors cannot be built: {exc}. Full-text search works meanwhile."
                    ) from exc
                return {
                    **read_progress(conn, location),
                    "state": "caught up",
                    "caught_up_by": "this process",
                    "report": report.as_json(),
                }
        state = read_progress(conn, location)
        if state["built"] and not pending_events(conn, state["position"], until=target):
            return {**state, "state": "caught up", "caught_up_by": state["owner"]}
        if progress:
            progress(state["position"], target)
        time.sleep(POLL_SECONDS)


def after_index(
    root: Path, db_path: Path, conn: sqlite3.Connection, *, wait: bool, progress: Progress | None = None
) -> dict[str, Any]:
    """What `annals index` does for vectors once full text is ready: start or wait for the catch-up."""
    from .embed import ModelUnavailable, check_model

    location = Location.for_db(db_path)
    try:
        check_model()
    except ModelUnavailable as exc:
        if wait:
            raise VectorsUnavailable(f"vectors cannot be built: {exc}. Full-text search works meanwhile.") from exc
        return {**read_progress(conn, location), "state": "unavailable", "error": str(exc)}
    state = read_progress(conn, location)
    if state["built"] and state["pending_events"] == 0:
        return {**state, "state": "caught up"}
    if wait:
        return wait_until_caught_up(root, db_path, conn, progress)
    return {**state, "state": "pending", "worker_pid": start_background(root, db_path), "log": str(location.log_path)}


def main(argv: list[str] | None = None) -> int:
    """The background catch-up: take the lock or leave it to whoever holds it; loop until current."""
    from ...store import open_store
    from .embed import ModelUnavailable

    parser = argparse.ArgumentParser(prog=WORKER_MODULE, description=main.__doc__)
    parser.add_argument("--root", required=True, type=Path)
    parser.add_argument("--db", required=True, type=Path)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format=f"%(asctime)s vectors[{os.getpid()}] %(levelname)s %(message)s")
    conn = open_store(args.db)
    try:
        while True:
            with VectorOwner(args.root, args.db) as owner:
                if not owner.claim():
                    log.info("%s owns the vector store; it will catch up", owner.holder())
                    return 0
                try:
                    report = owner.catch_up(conn, lambda done, total: log.info("%d/%d log events", done, total))
                except (ModelUnavailable, VectorsUnavailable) as exc:
                    log.error("cannot embed: %s", exc)
                    return 2
                log.info("caught up: %s", report.as_json())
            # Events appended while we held the lock and finished are ours to embed: another worker
            # started meanwhile found the lock taken and left.
            if not read_progress(conn, Location.for_db(args.db))["pending_events"]:
                return 0
    finally:
        conn.close()


if __name__ == "__main__":
    sys.exit(main())
