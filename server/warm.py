"""Before the first question: the read models every answer shares, built while the agent starts up.

A server answers its first context pack on a 3,300-file repository in 0.9-1.7 s and the next ones in
0.1-0.3 s: the first builds the import graph and the files each test loads, the message index of the
recorded commits and how often each file changed, and loads the embedding model. These are shared by
every connection (`store.db.snapshot`, the model's one instance), so one thread builds them as soon as
the server starts, and the agent's first question finds them ready (or waits only for the rest).
"""

from __future__ import annotations

import logging
import threading

from ..store.graph import import_graph
from ..store.history_rank import change_counts
from ..store.lookups import indexed_paths, is_test_path
from .app import App

log = logging.getLogger("codeannals.serve")


def warm(app: App, *, vectors: bool) -> None:
    """Build what the first answers would: in this thread, on its own connection."""
    conn = app.conn()
    graph = import_graph(conn)
    for path in [p for p in graph.forward if is_test_path(p)]:
        graph.loads(path)  # what the tests to run are found by
    change_counts(conn, indexed_paths(conn))  # builds the message index as well
    if vectors:
        from ..indexer.vectors.embed import ModelUnavailable, load_embedder

        try:
            load_embedder()
        except ModelUnavailable:
            pass  # said by the answers that would use it


def start_warming(app: App, *, vectors: bool) -> threading.Thread:
    def run() -> None:
        try:
            warm(app, vectors=vectors)
        except Exception:  # noqa: BLE001 - a cache not built is built by the first answer instead
            log.exception("warming the read caches failed; the first answers build them")

    thread = threading.Thread(target=run, name="annals-warm", daemon=True)
    thread.start()
    return thread
