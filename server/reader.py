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
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import anyio


class ReaderThread:
    """One long-lived thread, which runs the calls given to it one at a time, in order."""

    def __init__(self) -> None:
        # Its thread starts with the first call and ends with the server (the executor, once collected, stops it).
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="annals-reader")

    def runs(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """`fn` as a coroutine function that runs it on this thread, in the caller's context (as anyio would)."""

        @functools.wraps(fn)
        async def on_reader(**kwargs: Any) -> Any:
            future = self._executor.submit(contextvars.copy_context().run, functools.partial(fn, **kwargs))
            with anyio.CancelScope(shield=True):  # as anyio.to_thread.run_sync: a call begun is waited for
                return await asyncio.wrap_future(future)

        return on_reader
