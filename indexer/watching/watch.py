"""The background watcher: the index follows the working tree by itself, and says how far behind it is.

One thread of ours (plus watchdog's) per watcher:

    watchdog events -> EventSink -> pending Change (paths, directories, or "reconcile all")
    worker: wait for a quiet moment (debounce) or a flush -> index_tree(only=those paths)
            a burst past STORM_PATHS, an inotify overflow or a changed ignore file -> index_tree(all)

index_tree compares content hashes, so a reconcile re-reads what changed and appends nothing for
the rest: nothing is indexed twice, whoever else (hooks, `annals index`) appends meanwhile.

Only the holder of the repository's writer lock watches. A second watcher (say `annals serve`
while `annals watch --daemon` runs) stands by and takes over when the owner goes away.
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...store import log as event_log
from ...store import open_store, transaction
from ...store.db import DatabaseError, connect, files_stamp
from ...store.kept import kinds_standing
from ...store.lock import LockHeld, WriterLock
from ...store.lookups import held_paths, paths_under
from ...store.projections import CORE, catch_up
from ..git.gitcmd import GitRefused, head_commit
from ..keep import QUIET_SECONDS, start_keeping
from ..run import ensure_git_excludes_annals, index_tree
from ..walk import ANNALS_DIR, list_paths
from .watchfs import (
    BARRIER_PREFIX,
    WATCH_LIMIT_SYSCTL,
    Change,
    EventSink,
    Pruned,
    WatchLimitReached,
    start_observer,
    stop_observer,
)
from .watchstate import WatchFiles

log = logging.getLogger(__name__)

DEBOUNCE_SECONDS = 0.1  # quiet time after the last event before a batch runs (editors write in bursts)
MAX_BATCH_DELAY_SECONDS = 2.0  # a stream of events that never pauses still gets a batch this often
# A storm waits for a longer pause: reconciling while `git checkout` still writes would parse files
# it is about to overwrite, and reconcile again after.
STORM_QUIET_SECONDS = 0.5
MAX_STORM_DELAY_SECONDS = 30.0
STORM_PATHS = 500  # past this many paths in one batch, reconcile the whole tree instead
TICK_SECONDS = 1.0  # how often an idle watcher catches projections up with others' events
STANDBY_RETRY_SECONDS = 2.0  # how often a standby watcher asks for the lock again
POLL_INTERVAL_SECONDS = 1.0
POLLING_ENV = "ANNALS_WATCH_POLLING"  # "1": poll even where inotify works (network file systems)


def _sysctl(name: str) -> str:
    try:
        return Path("/proc/sys", *name.split(".")).read_text("ascii").strip()
    except OSError:
        return "?"


class Watcher:
    """Keeps the index of `root` in `db_path` equal to the working tree while it runs."""

    def __init__(
        self,
        root: Path,
        db_path: Path,
        *,
        debounce: float = DEBOUNCE_SECONDS,
        polling: bool | None = None,
        poll_interval: float = POLL_INTERVAL_SECONDS,
        standby: bool = True,
        storm_paths: int = STORM_PATHS,
        kind: str = "library",
        on_batch: Callable[[dict[str, Any]], None] | None = None,
        kept_quiet: float | None = QUIET_SECONDS,
    ) -> None:
        self.root = Path(root).resolve()
        self.db_path = Path(db_path)
        self.files = WatchFiles(self.db_path)
        self.debounce = debounce
        self.poll_interval = poll_interval
        self.storm_paths = storm_paths
        # called on the worker thread after each batch (say, to poke the vectors); while standing by, when the
        # watching process changed the code's facts ("by": its pid)
        self.on_batch = on_batch
        self.kind = kind  # who runs it, for `annals watch status`: foreground, daemon, serve, library
        # how long the index stays still before the answers are kept again (indexer/keep.py); None: never
        self.kept_quiet = kept_quiet
        self._still_since: float | None = None  # the last change to the index not yet followed by kept answers
        self._force_polling = polling if polling is not None else os.environ.get(POLLING_ENV) == "1"
        self._standby_allowed = standby
        self._lock = WriterLock(self.files.lock)
        self._pruned = Pruned(self.root)
        self._cond = threading.Condition()
        self._pending = Change()
        self._first_event_at: float | None = None
        self._last_event_at: float | None = None
        self._flush_requested = 0
        self._flush_served = 0
        self._handled_total = 0
        self._barriers: dict[str, threading.Event] = {}
        self._barrier_ids = itertools.count(1)
        self._limit_hit: str | None = None
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._standby_conn: sqlite3.Connection | None = None  # while standing by: what the owner's index says
        self._standby_seen: tuple[tuple[int, int], int] | None = None  # its files stamp and log position
        self._observer: Any = None
        self._info: dict[str, Any] = {
            "role": "stopped",
            "ready": False,
            "mode": None,
            "error": None,
            "owner": None,
            "started_at": None,
            "ready_at": None,
            "last_batch": None,
            "log_position": 0,
            "last_event_at": None,
            "indexed_head": None,
            "reconciles": 0,
            "batches": 0,
        }

    # --- the public face: start, stop, flush, status ---------------------------------------------

    def start(self) -> None:
        """Start watching in the background. The worker first reconciles the index with the tree,
        then reports ready (`status()["ready"]`, or `flush()`, which waits for it).

        With `standby=False`, raise LockHeld when another process already watches this index.
        """
        if self._thread is not None:
            raise RuntimeError("this watcher was already started; make a new Watcher to watch again")
        owned = self._lock.acquire()
        if not owned and not self._standby_allowed:
            owner = self._lock.owner()
            raise LockHeld(
                f"{f'pid {owner}' if owner else 'another process'} already watches this index "
                f"({self.files.lock}): `annals watch status` shows it, `annals watch stop` stops a daemon"
            )
        self._set(
            role="owner" if owned else "standby",
            started_at=event_log.now_iso(),
            owner=os.getpid() if owned else self._lock.owner(),
        )
        self._thread = threading.Thread(target=self._run, name=f"annals-watch {self.root.name}", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop watching, wait for every thread we started, give the lock back."""
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join()
        self._lock.release()

    def flush(self, timeout: float = 10.0) -> int:
        """Index everything observed so far, now; return how many paths were examined.

        Waits for the start-up reconcile first. Events still on their way from the kernel are
        drawn in by a barrier: a file we create in `.annals/` and wait to see come through, after
        every event that happened before it.
        """
        if self._thread is None:
            raise RuntimeError("flush() before start(): start the watcher first")
        deadline = time.monotonic() + timeout
        started_total = self._handled_total
        if not self._wait(lambda: self._info["ready"] or self._info["role"] != "owner" or self._stopping, deadline):
            self._raise_if_dead()
            raise TimeoutError(f"the watcher of {self.root} did not finish its start-up reconcile in {timeout} s")
        self._raise_if_dead()
        if self._info["role"] != "owner" or self._stopping:
            return 0  # a standby watcher indexes nothing: the owner does
        self._pass_barrier(deadline)
        if self._info["mode"] == "polling":
            self._pass_barrier(deadline)  # the first barrier's poll may have queued its events after it
        with self._cond:
            self._flush_requested += 1
            ticket = self._flush_requested
            self._cond.notify_all()
        if not self._wait(lambda: self._flush_served >= ticket or self._stopping, deadline):
            self._raise_if_dead()
            raise TimeoutError(f"the watcher of {self.root} did not finish its batch in {timeout} s")
        return self._handled_total - started_total

    def _raise_if_dead(self) -> None:
        if self._thread is not None and not self._thread.is_alive() and not self._stopping:
            raise RuntimeError(
                f"the watcher of {self.root} stopped: {self._info['error'] or 'no error recorded'} "
                f"(its log has the traceback)"
            )

    def status(self) -> dict[str, Any]:
        """running, ready, pending paths, last event seq/time, indexed HEAD against HEAD, observer mode."""
        with self._cond:
            info = dict(self._info)
            pending = self._pending.size()
            reconcile = self._pending.reconcile
        head = head_commit(self.root)
        running = self._thread is not None and self._thread.is_alive() and not self._stopping
        return {
            "running": running,
            "ready": bool(info["ready"]) and running,
            "role": info["role"],
            "pid": os.getpid(),
            "owner": info["owner"],
            "kind": self.kind,
            "mode": info["mode"],
            "root": str(self.root),
            "database": str(self.db_path),
            "pending_paths": pending,
            "reconcile_pending": reconcile,
            "log_position": info["log_position"],
            "last_event_at": info["last_event_at"],
            "indexed_head": info["indexed_head"],
            "head": head,
            "head_matches": info["indexed_head"] == head,
            "started_at": info["started_at"],
            "ready_at": info["ready_at"],
            "last_batch": info["last_batch"],
            "batches": info["batches"],
            "reconciles": info["reconciles"],
            "error": info["error"],
        }

    def reconcile(self, reason: str = "asked to") -> None:
        """Ask for one reconcile of the whole tree (what an inotify overflow does)."""
        self._record(Change(reconcile=reason))

    # --- what the file system tells us --------------------------------------------------------------

    def _record(self, change: Change) -> None:
        now = time.monotonic()
        with self._cond:
            pending = self._pending
            pending.paths |= change.paths
            pending.dirs |= change.dirs
            if change.reconcile and not pending.reconcile:
                pending.reconcile = change.reconcile
            if pending.size() > self.storm_paths and not pending.reconcile:
                pending.reconcile = f"a burst of over {self.storm_paths} paths"
            if pending.reconcile:  # the reconcile covers them all: hold no more paths than that
                pending.paths.clear()
                pending.dirs.clear()
            if self._first_event_at is None:
                self._first_event_at = now
            self._last_event_at = now
            self._cond.notify_all()

    def _on_barrier(self, rel: str) -> None:
        with self._cond:
            seen = self._barriers.get(rel)
        if seen is not None:
            seen.set()

    def _on_limit(self, path: str) -> None:
        with self._cond:
            if self._limit_hit is None:
                self._limit_hit = path
            self._cond.notify_all()

    def _on_overflow(self) -> None:
        self.reconcile("the inotify queue overflowed: events were lost")

    def _pass_barrier(self, deadline: float) -> None:
        rel = f"{BARRIER_PREFIX}{os.getpid()}-{id(self)}-{next(self._barrier_ids)}"
        seen = threading.Event()
        with self._cond:
            self._barriers[rel] = seen
        path = self.root / rel
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(b"")
            if not seen.wait(max(deadline - time.monotonic(), 0)):
                raise TimeoutError(
                    f"file events under {self.root} did not come through in time "
                    f"(the barrier {rel} was never seen); is the watcher running?"
                )
        finally:
            with self._cond:
                self._barriers.pop(rel, None)
            path.unlink(missing_ok=True)

    def _wait(self, ready: Any, deadline: float) -> bool:
        with self._cond:
            while not ready():
                remaining = deadline - time.monotonic()
                if remaining <= 0 or (self._thread is not None and not self._thread.is_alive()):
                    return bool(ready())
                self._cond.wait(min(remaining, 0.5))
            return True

    def _set(self, **fields: Any) -> None:
        with self._cond:
            self._info.update(fields)
            self._cond.notify_all()

    # --- the worker ---------------------------------------------------------------------------

    def _run(self) -> None:
        conn: sqlite3.Connection | None = None
        try:
            while self._info["role"] == "standby":
                self._notice_owners_changes()
                if self._wait_stopping(STANDBY_RETRY_SECONDS):
                    return
                if self._lock.acquire():
                    log.info("the previous watcher went away; this one takes over")
                    self._set(role="owner", owner=os.getpid())
                    if self._standby_conn is not None:  # from now on, our own batches say what changed
                        self._standby_conn.close()
                        self._standby_conn = None
                else:
                    self._set(owner=self._lock.owner())
            conn = open_store(self.db_path)
            self._serve(conn)
        except GitRefused as exc:  # the user's call, and the message says how: no traceback
            log.error("the watcher of %s stopped: %s", self.root, exc)
            self._set(error=str(exc))
        except Exception as exc:  # noqa: BLE001 - the thread's last word: logged, and kept for status()
            log.exception("the watcher of %s stopped on an error", self.root)
            self._set(error=f"{type(exc).__name__}: {exc}")
        finally:
            if self._observer is not None:
                stop_observer(self._observer)
                self._observer = None
            if conn is not None:
                conn.close()
            if self._standby_conn is not None:
                self._standby_conn.close()
            if self._info["role"] == "owner":
                self.files.state.unlink(missing_ok=True)
            self._set(ready=False, role="stopped")

    def _notice_owners_changes(self) -> None:
        """While another process watches: call on_batch when the code's facts it keeps changed, as after a batch of
        our own (a server's reader answers its last pack again then: server/reader.py), with the events since."""
        if self.on_batch is None:
            return
        try:
            if self._standby_conn is None:
                self._standby_conn = connect(self.db_path, readonly=True)
            seen = files_stamp(self._standby_conn), event_log.position(self._standby_conn).seq
        except (DatabaseError, sqlite3.Error):
            return  # whoever reads the index says what is wrong with it
        before, self._standby_seen = self._standby_seen, seen
        if before is not None and seen[0] != before[0]:
            events = seen[1] - before[1]
            self.on_batch(
                {
                    "paths": 0,
                    "indexed": 0,
                    "removed": 0,
                    "skipped": 0,
                    "events": events,
                    "ms": 0.0,
                    "reconcile": None,
                    "at": event_log.now_iso(),
                    "by": self._info["owner"],
                }
            )

    def _wait_stopping(self, seconds: float) -> bool:
        with self._cond:
            if not self._stopping:
                self._cond.wait(seconds)
            return self._stopping

    def _serve(self, conn: sqlite3.Connection) -> None:
        ensure_git_excludes_annals(self.root)
        (self.root / ANNALS_DIR).mkdir(exist_ok=True)  # flush barriers live there
        self._watch(polling=self._force_polling)
        # Watching began first, so nothing that changes during the reconcile goes unseen.
        self._process(conn, Change(reconcile="start-up"))
        self._set(ready=True, ready_at=event_log.now_iso())
        self._still_since = time.monotonic()  # hooks or the command line may have changed it before we started
        self._publish()
        log.info("watching %s (%s); the index matches the tree", self.root, self._info["mode"])
        while True:
            change, ticket = self._next_batch()
            if self._stopping:
                return
            try:
                if self._limit_hit is not None and self._info["mode"] == "inotify":
                    self._fall_back_to_polling()
                    change.reconcile = change.reconcile or "the watch moved to polling"
                if change:
                    self._process(conn, change)
                else:
                    self._catch_up(conn)
            except Exception as exc:  # noqa: BLE001 - the watcher must outlive one bad batch
                log.exception("a batch under %s failed; it will be retried as a reconcile", self.root)
                self._set(error=f"{type(exc).__name__}: {exc}")
                self._record(Change(reconcile=f"retry after {type(exc).__name__}"))
                if self._wait_stopping(TICK_SECONDS):
                    return
            finally:
                with self._cond:
                    self._flush_served = max(self._flush_served, ticket)
                    self._cond.notify_all()

    def _watch(self, *, polling: bool) -> None:
        sink = EventSink(self.root, self._pruned, self._record, self._on_barrier)
        self._pruned.refresh()
        try:
            self._observer, mode = start_observer(
                self.root,
                sink,
                polling=polling,
                poll_interval=self.poll_interval,
                on_limit=self._on_limit,
                on_overflow=self._on_overflow,
            )
        except WatchLimitReached as exc:
            log.warning("%s; watching %s by polling instead (every %g s)", exc.strerror, self.root, self.poll_interval)
            self._observer, mode = start_observer(
                self.root,
                sink,
                polling=True,
                poll_interval=self.poll_interval,
                on_limit=self._on_limit,
                on_overflow=self._on_overflow,
            )
        self._set(mode=mode)
        if self._limit_hit is not None and mode == "inotify":
            self._fall_back_to_polling()

    def _fall_back_to_polling(self) -> None:
        log.warning(
            "inotify watch limit reached (%s = %s; could not watch %s): watching %s by polling "
            "instead, every %g s. Raise the limit to watch with inotify: sudo sysctl %s=524288",
            WATCH_LIMIT_SYSCTL,
            _sysctl(WATCH_LIMIT_SYSCTL),
            self._limit_hit,
            self.root,
            self.poll_interval,
            WATCH_LIMIT_SYSCTL,
        )
        stop_observer(self._observer)
        self._observer = None
        self._watch(polling=True)
        self._publish()

    def _next_batch(self) -> tuple[Change, int]:
        """Block until a batch is due (quiet after events, or a flush) and take it; or, at a tick,
        return an empty change and leave what is pending to its time."""
        with self._cond:
            tick_at = time.monotonic() + TICK_SECONDS
            while not self._stopping:
                now = time.monotonic()
                if self._flush_requested > self._flush_served or self._limit_hit and self._info["mode"] == "inotify":
                    break
                if self._pending and self._last_event_at is not None and self._first_event_at is not None:
                    if self._pending.reconcile:
                        quiet_at = self._last_event_at + max(self.debounce, STORM_QUIET_SECONDS)
                        latest_at = self._first_event_at + max(MAX_STORM_DELAY_SECONDS, self.debounce)
                    else:
                        quiet_at = self._last_event_at + self.debounce
                        latest_at = self._first_event_at + max(MAX_BATCH_DELAY_SECONDS, self.debounce)
                    due_at = min(quiet_at, latest_at)
                    if now >= due_at:
                        break
                    wake_at = min(due_at, tick_at)
                else:
                    wake_at = tick_at
                if now >= tick_at:
                    return Change(), self._flush_served
                self._cond.wait(wake_at - now)
            change, self._pending = self._pending, Change()
            self._first_event_at = self._last_event_at = None
            return change, self._flush_requested

    def _process(self, conn: sqlite3.Connection, change: Change) -> None:
        started = time.perf_counter()
        paths = self._expand(conn, change) if change.reconcile is None else None
        if paths is None:
            change.reconcile = change.reconcile or f"a burst of over {self.storm_paths} paths"
            self._pruned.refresh()  # ignore rules may be what changed
            report = index_tree(self.root, conn, source="watcher")
            examined = report.files + report.removed
            self._set(reconciles=self._info["reconciles"] + 1)
        else:
            relevant = self._relevant(conn, paths)
            if not relevant:
                return
            # stat_cache is the indexer's own table (what it hashed at which size and mtime), not a projection.
            with transaction(conn):  # an event means: hash it, whatever its size and mtime say
                conn.executemany("DELETE FROM stat_cache WHERE path = ?", [(p,) for p in relevant])
            report = index_tree(self.root, conn, source="watcher", only=relevant)
            examined = len(relevant)
        ms = (time.perf_counter() - started) * 1000
        batch = {
            "paths": examined,
            "indexed": report.indexed,
            "removed": report.removed,
            "skipped": report.skipped,
            "events": report.events,
            "ms": round(ms, 1),
            "reconcile": change.reconcile,
            "at": event_log.now_iso(),
        }
        if report.events:
            self._still_since = time.monotonic()
        with self._cond:
            self._handled_total += examined
            self._info.update(last_batch=batch, batches=self._info["batches"] + 1, error=None)
        self._note_log(conn)
        if self.on_batch is not None:
            self.on_batch(batch)
        if report.events or change.reconcile:
            log.info(
                "%s%d paths: %d indexed, %d removed, %d skipped, %d events in %.0f ms",
                f"reconcile ({change.reconcile}): " if change.reconcile else "",
                examined,
                report.indexed,
                report.removed,
                report.skipped,
                report.events,
                ms,
            )

    def _expand(self, conn: sqlite3.Connection, change: Change) -> set[str] | None:
        """The files a change concerns: its paths, and what is or was under its directories."""
        paths = set(change.paths)
        for rel in sorted(change.dirs):
            if self._pruned.covers(rel):
                continue
            # What we hold under it (a deleted or moved-away directory) ...
            paths.update(paths_under(conn, rel))
            # ... and what the disk holds under it now (a new or moved-in directory).
            for top, dirs, names in os.walk(self.root / rel):
                dirs[:] = [d for d in dirs if d != ".git"]
                base = os.path.relpath(top, self.root).replace(os.sep, "/")
                paths.update(f"{base}/{name}" for name in names)
                if len(paths) > self.storm_paths:
                    return None
        return paths if len(paths) <= self.storm_paths else None

    def _relevant(self, conn: sqlite3.Connection, paths: set[str]) -> list[str]:
        """The paths the walk lists, plus those we hold (a path that vanished or became ignored goes)."""
        held = held_paths(conn, paths)
        return sorted(held | set(list_paths(self.root, paths)))

    def _catch_up(self, conn: sqlite3.Connection) -> None:
        """An idle tick: apply what hooks and the command line appended meanwhile; once the index has been still a
        while, have the answers kept again."""
        if catch_up(conn, CORE):
            self._note_log(conn)
            self._still_since = time.monotonic()
        quiet = self.kept_quiet
        if quiet is not None and self._still_since is not None and time.monotonic() - self._still_since >= quiet:
            self._still_since = None
            if not all(kinds_standing(conn).values()) and start_keeping(self.root, self.db_path) is not None:
                log.info("the index has been still for %.0f s: keeping the answers again", quiet)

    def _note_log(self, conn: sqlite3.Connection) -> None:
        position = event_log.position(conn)
        if position.seq:
            self._set(log_position=position.seq, last_event_at=position.recorded_at, indexed_head=position.commit)

    def _publish(self) -> None:
        """Tell other processes (`annals status`, `annals watch status`) who watches and how."""
        state = {
            "pid": os.getpid(),
            "kind": self.kind,
            "ready": bool(self._info["ready"]),
            "mode": self._info["mode"],
            "root": str(self.root),
            "started_at": self._info["started_at"],
            "ready_at": self._info["ready_at"],
        }
        path = self.files.state
        path.parent.mkdir(parents=True, exist_ok=True)
        scratch = path.with_name(f".{path.name}.{os.getpid()}")
        scratch.write_text(json.dumps(state), "utf-8")
        os.replace(scratch, path)
