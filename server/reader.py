"""The thread that answers every read-only tool, so that all their answers share one connection's caches.

The read caches (store/db.py's `held_while_unchanged`: the call resolver, the class hierarchy, what the test walks
read) belong to a connection, and App gives each thread its own. The SDK runs a sync tool on one of anyio's worker
threads: two calls at once start a second worker, whose connection starts with empty caches (and is opened, with
the projections caught up, on its first call), and which worker the next call gets is chance (anyio reuses the one
idle last and stops the others after 10 s). On sqlalchemy, packs asked after three bursts of two calls at once took
p50 231 ms, against 119 ms with the same calls asked one at a time.

Read-only tools run here, one at a time: computing over SQLite's cached pages, they hold the GIL anyway, and one
set of caches does each piece of work once. Under bench/load_bench.py's 50 calls a second, with the watcher dropping
the caches at every save, anyio's workers answered 5 calls a second at p50 56 s; the graph-walking tools alone
here, 8 a second at p50 19 s; every read-only tool here, 14 a second at p50 1.5 s. Tools that write keep anyio's
workers: a workflow step may run a test suite for minutes, and none of them reads the caches much.

Every indexed change drops those caches (they hold answers that may read any file), so the first pack after a save
starts cold: on sqlalchemy p50 1.9 s, against 0.14 s warm. An agent saves, then thinks for seconds before it asks
again, so after each watcher batch that changed facts (standing by: each change the watching process made, seen
within 2 s; not watching: each change to the index, seen as soon by ChangeNotices), this thread answers the last
context pack again: its ranking, test walks and call resolution fill the caches around the code the agent is working
on. Then it walks again from the symbols the agent asked about last (get_symbol, impact_analysis, the pack's first to
edit) to their tests, which it keeps (testmap.walk_steps): the agent edits those, and asks what they reach.
bench/edit_bench.py on sqlalchemy, impact of the pack's first symbol 5 s after an edit, 20 edits: p50 / p95 1.5 / 6.9
s with the pack alone, 56 ms / 4.0 s with the symbols' walks too. It goes a step at a time (contextpack.pack_steps, a
symbol's callers per step), and only while no call waits, so a call waits for one step at most.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import logging
import sqlite3
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anyio

from ..store import DatabaseError
from ..store.db import connect, files_stamp

log = logging.getLogger("codeannals.serve")

REMEMBERED_SYMBOLS = 3


class ReaderThread:
    """One long-lived thread, which runs the calls given to it one at a time, in order."""

    def __init__(self) -> None:
        # Its thread starts with the first call and ends with the server (the executor, once collected, stops it).
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="annals-reader")
        self._lock = threading.Lock()
        self._waiting = 0  # calls given and not yet answered
        self._last_pack: Callable[[], Iterator[object]] | None = None
        self._symbols: dict[str, Callable[[], Iterator[object]]] = {}  # the last asked about, newest last
        self._changes = 0  # the index changes seen: a pack answered again for an older one stops
        self._again_queued = False
        self.answered_again = 0  # times the last pack and symbols were answered again to the end (tests read it)

    def runs(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """`fn` as a coroutine function that runs it on this thread, in the caller's context (as anyio would)."""

        @functools.wraps(fn)
        async def on_reader(**kwargs: Any) -> Any:
            with self._lock:
                self._waiting += 1
            future = self._executor.submit(contextvars.copy_context().run, functools.partial(fn, **kwargs))
            future.add_done_callback(self._answered)  # run by this thread as the call ends, before its next work
            with anyio.CancelScope(shield=True):  # as anyio.to_thread.run_sync: a call begun is waited for
                return await asyncio.wrap_future(future)

        return on_reader

    def _answered(self, _: object) -> None:
        with self._lock:
            self._waiting -= 1

    def remember_pack(self, steps: Callable[[], Iterator[object]]) -> None:
        """The last context pack, as its steps (contextpack.pack_steps): answered again after each change."""
        self._last_pack = steps

    def remember_symbol(self, symbol_id: str, steps: Callable[[], Iterator[object]]) -> None:
        """A symbol the agent asked about (or the last pack's first to edit), as the steps of its walk to the tests
        (testmap.walk_steps): walked again after each change, after the last pack, the newest first."""
        with self._lock:
            self._symbols.pop(symbol_id, None)
            self._symbols[symbol_id] = steps
            while len(self._symbols) > REMEMBERED_SYMBOLS:
                del self._symbols[next(iter(self._symbols))]

    def code_changed(self) -> None:
        """The index took a change (the watcher's thread says so): answer the last pack again, then walk from the
        symbols asked about again, a step at a time."""
        with self._lock:
            if self._last_pack is None and not self._symbols:
                return
            self._changes += 1
            if self._again_queued:
                return  # the start already queued answers it for this change
            self._again_queued = True
        self._executor.submit(self._answer_again)

    def _answer_again(self) -> None:
        with self._lock:
            self._again_queued = False
            change = self._changes
            makes = [*([self._last_pack] if self._last_pack else []), *reversed(self._symbols.values())]
        self._step((step for make in makes for step in make()), change)

    def _step(self, steps: Iterator[object], change: int) -> None:
        """One step, then the next one queued behind the calls that came meanwhile: a call waits for one step at
        most, and while calls wait, none is taken (under a stream of calls and saves, the next save would drop
        what it fills: bench/load_bench.py answered 7% fewer calls). Steps begun for an older change stop: a newer
        one has started again."""
        if change != self._changes:
            return
        if self._waiting:
            self._executor.submit(self._step, steps, change)
            return
        try:
            next(steps)
        except StopIteration:
            self.answered_again += 1
            return
        except Exception:  # noqa: BLE001 - a cache not filled here is filled by the next answer instead
            log.exception("answering the last pack or symbols again after a change failed; the next answers fill them")
            return
        self._executor.submit(self._step, steps, change)


class ChangeNotices:
    """What tells the reader the code's facts changed when the server does not watch the tree (`annals serve
    --no-watch`): the index still moves (the git hooks, `annals index`), so a thread reads its files stamp every
    CHECK_SECONDS, as a watcher standing by does, and says when it moved."""

    CHECK_SECONDS = 2.0

    def __init__(self, db_path: Path, reader: ReaderThread) -> None:
        self._db_path, self._reader = db_path, reader
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="annals-change-notices", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        self._thread.join()

    def _run(self) -> None:
        conn: sqlite3.Connection | None = None
        seen: tuple[int, int] | None = None
        try:
            while True:  # read at once, then every CHECK_SECONDS: a change in the first seconds counts too
                try:
                    conn = conn or connect(self._db_path, readonly=True)
                    stamp = files_stamp(conn)
                    if seen is not None and stamp != seen:
                        self._reader.code_changed()
                    seen = stamp
                except (DatabaseError, sqlite3.Error):
                    pass  # whoever reads the index says what is wrong with it
                if self._stopping.wait(self.CHECK_SECONDS):
                    return
        finally:
            if conn is not None:
                conn.close()
