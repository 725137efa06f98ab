"""The vector projection: every symbol, context message and commit title embedded in chromadb collections.

Chroma is a projection like the SQLite tables and follows the log the same way
(`store/projections/follower.py`), but it lives outside SQLite, so it keeps its own checkpoint in
its collection metadata: the log position it reflects, the model version, and which log it came
from. It is rebuilt from the log whenever that checkpoint is missing, stale (another model,
another log, a position past the log's head) or unreadable. Applying the log is idempotent
(upsert and delete by id), so a run killed between a write and its checkpoint repeats safely.

chromadb is not process-safe: only the process holding the writer lock opens a local store
(see `owner.VectorOwner`). Importing this module imports chromadb (about a second).

A local store answers "what is nearest" by scanning a copy of its vectors (`exact`), not by Chroma's HNSW
graph, which gave other neighbours in each process; a Chroma server (ANNALS_CHROMA_URL) and a collection too
large to scan answer by HNSW.
"""

from __future__ import annotations

import logging
import shutil
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import chromadb
import numpy as np
from chromadb.api.shared_system_client import SharedSystemClient
from chromadb.api.types import Documents, EmbeddingFunction, Embeddings
from chromadb.config import DEFAULT_DATABASE, DEFAULT_TENANT, Settings
from chromadb.errors import ChromaError
from chromadb.utils.embedding_functions import register_embedding_function

from ...store import log as event_log
from ...store.events import FileIndexed, SymbolRemoved
from ...store.log import StoredEvent
from ...store.lookups import symbol_rows
from ...store.projections import positions
from ...store.projections.follower import Batch, follow, log_identity
from ...store.similar import symbol_ids_in
from ...store.snippets import TEXT_CHARS, symbol_texts
from .embed import MODEL_VERSION, CacheStats, embed_cached, load_embedder
from .exact import ExactNearest, Labeller, SavedCopies
from .progress import (
    APPLIED_EVENTS,
    BUILT_WITH,
    COMMIT_EVENT,
    FORMAT_VERSION,
    MESSAGE_EVENT,
    SYMBOL_EVENTS,
    CatchUpInterrupted,
    Location,
    VectorsUnavailable,
    record_progress,
)

log = logging.getLogger(__name__)

SYMBOLS = "annals_symbols"
CONTEXTS = "annals_contexts"
COMMITS = "annals_commits"
COLLECTIONS = (SYMBOLS, CONTEXTS, COMMITS)
EVENTS_PER_CHECKPOINT = 2_000
IDS_PER_CHUNK = 256
MESSAGES_PER_CONTEXT = 5  # nearest messages fetched per context asked for, before grouping by context
# How many candidates the HNSW search keeps, where HNSW answers: a Chroma server, or a collection too large to
# scan (`exact`). At chromadb's 100, the 40 symbols nearest a task were 97% of the exact 40 on typeorm's 8,432.
EF_SEARCH = 1_000
# chromadb's own knobs: never phone home, and let us delete a damaged store ourselves.
SETTINGS = Settings(anonymized_telemetry=False, allow_reset=True)
# A damaged store raises any of these on open or read; each means "rebuild it from the log".
UNREADABLE = (ChromaError, OSError, sqlite3.Error, ValueError, KeyError, RuntimeError)

Progress = Callable[[int, int], None]


@dataclass
class CatchUpReport:
    position: int = 0
    rebuilt: str | None = None  # why the store was rebuilt from the log, if it was
    symbols_upserted: int = 0
    symbols_deleted: int = 0
    contexts_upserted: int = 0
    commits_upserted: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0  # this process's CPU time: the cost on a machine that others share too
    stats: CacheStats = field(default_factory=CacheStats, repr=False)

    def as_json(self) -> dict[str, Any]:
        """The counts, plus the texts the model ran on (`embedded`) and those the cache had (`cached`)."""
        out = {k: v for k, v in self.__dict__.items() if k != "stats"}
        out.update(embedded=self.stats.embedded, cached=self.stats.hits, embed_seconds=round(self.stats.seconds, 3))
        return out


@register_embedding_function
class AnnalsEmbeddingFunction(EmbeddingFunction[Documents]):
    """The chromadb embedding function of every collection we open: always passed explicitly, so
    chromadb never falls back to its default model (which it would download)."""

    def __init__(self) -> None:
        pass  # the model loads on first use: chromadb builds instances just to read their config

    def __call__(self, input: Documents) -> Embeddings:  # noqa: A002 - chromadb's protocol names it so
        return list(load_embedder().embed(list(input)))

    @staticmethod
    def name() -> str:
        return "codeannals-minilm-int8"

    def default_space(self) -> Any:
        return "cosine"

    def supported_spaces(self) -> Any:
        return ["cosine"]

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> AnnalsEmbeddingFunction:
        return AnnalsEmbeddingFunction()

    def get_config(self) -> dict[str, Any]:
        return {"model_version": MODEL_VERSION}


class VectorStore:
    """An open chroma client and its collections. One per process; the caller owns the lock."""

    def __init__(self, location: Location, root: Path) -> None:
        self.location = location
        self.root = root
        self.embedding_function = AnnalsEmbeddingFunction()
        self._client: Any = None
        self.symbols: Any = None
        self.contexts: Any = None
        self.commits: Any = None
        self.broken = False  # a read failed: the owner destroys and rebuilds the store
        self._interrupt: threading.Event | None = None
        # A local store answers by scanning these copies of its collections (`exact`), None where one is too large.
        self._copies = SavedCopies(location.local_dir)
        self._writing = threading.Lock()  # a copy is read whole or changed with its collection, never in between

    # --- opening, validating, resetting ----------------------------------------------------------

    def open(self, conn: sqlite3.Connection, *, repair: bool = True) -> str | None:
        """Open the store, rebuilding an unreadable or stale one; return why it was reset, if it was.

        Without `repair` (a reader of a shared Chroma server that does not hold the lock), an
        unreadable or stale store is an error instead: only the owner rebuilds it.
        """
        try:
            self._connect()
            reason = self._stale_reason(conn)
        except UNREADABLE as exc:
            if not repair:
                raise VectorsUnavailable(
                    f"the vector store {self.location.describe()} is unreadable "
                    f"({type(exc).__name__}); its owner rebuilds it"
                ) from exc
            log.warning(
                "vector store %s is unreadable (%s: %s); rebuilding it from the log",
                self.location.describe(),
                type(exc).__name__,
                exc,
            )
            self.destroy()
            self._connect()
            reason = f"unreadable ({type(exc).__name__})"
        if reason is not None and not repair:
            raise VectorsUnavailable(f"the vector store {self.location.describe()} is {reason}; its owner rebuilds it")
        if reason is not None:
            self.reset(conn)
        return reason

    def _connect(self) -> None:
        if self.location.url:
            self._client = _http_client(self.location.url)
        else:
            self.location.local_dir.mkdir(parents=True, exist_ok=True)
            self._client = chromadb.PersistentClient(path=str(self.location.local_dir), settings=SETTINGS)
        self._open_collections()
        self.symbols.count()  # touch the store, so damage shows here and not mid-query

    def _open_collections(self) -> None:
        self._copies.forget()
        self.symbols = self._collection(SYMBOLS)
        self.contexts = self._collection(CONTEXTS)
        self.commits = self._collection(COMMITS)

    def _collection(self, name: str) -> Any:
        collection = self._client.get_or_create_collection(
            name,
            embedding_function=self.embedding_function,
            configuration={"hnsw": {"space": "cosine", "ef_search": EF_SEARCH}},
        )
        if (collection.configuration.get("hnsw") or {}).get("ef_search") != EF_SEARCH:  # made by an older annals
            collection.modify(configuration={"hnsw": {"ef_search": EF_SEARCH}})
        return collection

    def _stale_reason(self, conn: sqlite3.Connection) -> str | None:
        meta = self.symbols.metadata or {}
        if "annals_position" not in meta:
            return "new" if self.symbols.count() == 0 else "no checkpoint"
        if meta.get("annals_format") != FORMAT_VERSION:
            return "format changed"
        if meta.get("annals_model") != MODEL_VERSION:
            return "model changed"
        if meta.get("annals_log") != log_identity(conn):
            return "built from another log"
        if int(meta["annals_position"]) > event_log.head(conn):
            return "ahead of the log"
        return None

    def is_intact(self) -> bool:
        """False when a local store's files vanished under us (someone deleted the directory)."""
        return bool(self.location.url) or (self.location.local_dir / "chroma.sqlite3").exists()

    def destroy(self) -> None:
        """Drop a damaged store entirely: the local directory, or the remote collections."""
        SharedSystemClient.clear_system_cache()  # chromadb caches one system per path
        self._client = self.symbols = self.contexts = self.commits = None
        self._copies.forget()
        if self.location.url:
            client = _http_client(self.location.url)
            for name in COLLECTIONS:
                try:
                    client.delete_collection(name)
                except (ChromaError, ValueError) as exc:
                    log.info("collection %s not deleted: %s", name, exc)
        elif self.location.local_dir.exists():
            shutil.rmtree(self.location.local_dir)

    def reset(self, conn: sqlite3.Connection) -> None:
        """Empty collections at position 0, ready for a replay of the whole log."""
        for name in COLLECTIONS:
            try:
                self._client.delete_collection(name)
            except (ChromaError, ValueError):
                pass  # it did not exist: nothing to drop
        self._open_collections()
        self._checkpoint(conn, 0)

    def reopen_if_gone(self, conn: sqlite3.Connection) -> str | None:
        if self.is_intact():
            return None
        log.warning("vector store %s disappeared; rebuilding it from the log", self.location.describe())
        self.destroy()
        return self.open(conn) or "deleted"

    @property
    def position(self) -> int:
        return int((self.symbols.metadata or {}).get("annals_position", 0))

    def _checkpoint(self, conn: sqlite3.Connection, position: int, target: int | None = None) -> None:
        self.symbols.modify(
            metadata={
                "annals_position": position,
                "annals_format": FORMAT_VERSION,
                "annals_model": MODEL_VERSION,
                "annals_log": log_identity(conn),
            }
        )
        record_progress(conn, self.location, position, target if target is not None else position, BUILT_WITH)

    # --- catching up with the log ----------------------------------------------------------------

    def catch_up(
        self,
        conn: sqlite3.Connection,
        progress: Progress | None = None,
        report: CatchUpReport | None = None,
        interrupt: threading.Event | None = None,
    ) -> CatchUpReport:
        """Follow the log past the checkpoint, in batches that each end in a checkpoint.

        Setting `interrupt` stops it between chunks (CatchUpInterrupted); the unfinished batch is
        simply applied again next time.
        """
        report = report or CatchUpReport()
        self._interrupt = interrupt
        started, cpu_started = time.perf_counter(), time.process_time()
        gone = self.reopen_if_gone(conn)
        report.rebuilt = report.rebuilt or gone
        # The vectors read the symbols table, so they never run ahead of it.
        following = _Following(self, conn, positions(conn).get("symbols", 0), report, progress)
        record_progress(conn, self.location, following.start, following.target, BUILT_WITH)
        follow(conn, following, until=following.target)
        self.keep_scans()
        report.position = following.at
        report.seconds = round(report.seconds + time.perf_counter() - started, 3)
        report.cpu_seconds = round(report.cpu_seconds + time.process_time() - cpu_started, 3)
        return report

    def _sync_symbols(
        self, conn: sqlite3.Connection, ids: Sequence[str], report: CatchUpReport, progress: Progress
    ) -> None:
        from ...store.failpoints import crash_point

        for chunk_start in range(0, len(ids), IDS_PER_CHUNK):
            if self._interrupt is not None and self._interrupt.is_set():
                raise CatchUpInterrupted("vector catch-up interrupted; it resumes from its checkpoint")
            chunk = list(ids[chunk_start : chunk_start + IDS_PER_CHUNK])
            rows = symbol_rows(conn, chunk)
            gone = [sid for sid in chunk if sid not in rows]
            if gone:
                self._delete(SYMBOLS, gone)
                report.symbols_deleted += len(gone)
            present = [rows[sid] for sid in chunk if sid in rows]
            if not present:
                continue
            texts = symbol_texts(self.root, conn, present)
            vectors = embed_cached(conn, texts, stats=report.stats)
            crash_point("vectors.mid_upsert")
            self._upsert(SYMBOLS, [r["id"] for r in present], vectors, [_symbol_metadata(r) for r in present])
            report.symbols_upserted += len(present)
            progress(chunk_start + len(chunk), len(ids))

    def _sync_messages(self, conn: sqlite3.Connection, events: Sequence[StoredEvent], report: CatchUpReport) -> None:
        """Context messages, straight from their events: a message is never edited or removed."""
        for start in range(0, len(events), IDS_PER_CHUNK):
            chunk = events[start : start + IDS_PER_CHUNK]
            vectors = embed_cached(conn, [e.payload["content"][:TEXT_CHARS] for e in chunk], stats=report.stats)
            metadatas = [
                {
                    "context_id": e.payload["context_id"],
                    "role": e.payload["role"],
                    "importance": e.payload.get("importance", "MEDIUM"),
                }
                for e in chunk
            ]
            self._upsert(CONTEXTS, [str(e.seq) for e in chunk], vectors, metadatas)
            report.contexts_upserted += len(chunk)

    def _sync_commits(self, conn: sqlite3.Connection, events: Sequence[StoredEvent], report: CatchUpReport) -> None:
        """Commit titles, straight from their events (one per commit id): what each past change was for."""
        titled = [e for e in events if (e.payload.get("title") or "").strip()]
        for start in range(0, len(titled), IDS_PER_CHUNK):
            chunk = titled[start : start + IDS_PER_CHUNK]
            vectors = embed_cached(conn, [e.payload["title"][:TEXT_CHARS] for e in chunk], stats=report.stats)
            self._upsert(COMMITS, [e.payload["commit"] for e in chunk], vectors, None)
            report.commits_upserted += len(chunk)

    # --- reading ------------------------------------------------------------------------------------

    @contextmanager
    def _reading(self) -> Iterator[None]:
        """A read that fails marks the store broken, for its owner to rebuild, and says so."""
        if not self.is_intact():
            self.broken = True
        if self.broken:
            raise VectorsUnavailable(
                f"the vector store {self.location.describe()} is damaged or gone; it is being rebuilt from the log"
            )
        try:
            yield
        except UNREADABLE as exc:
            self.broken = True
            log.warning("reading the vector store failed (%s: %s)", type(exc).__name__, exc)
            raise VectorsUnavailable(
                f"the vector store {self.location.describe()} is unreadable "
                f"({type(exc).__name__}); it is being rebuilt from the log"
            ) from exc

    def nearest_symbols(self, vector: np.ndarray, limit: int, *, kind: str | None = None) -> list[tuple[str, float]]:
        """(symbol id, cosine similarity), most similar first."""
        scan = self._scan(SYMBOLS)
        if scan is not None:
            return [(sid, round(similarity, 4)) for sid, similarity, _ in scan.nearest(vector, limit, kind)]
        return _similarities(self._query(self.symbols, vector, limit, where={"kind": kind} if kind else None))

    def nearest_contexts(self, vector: np.ndarray, limit: int) -> list[tuple[str, float]]:
        """(context id, similarity of its closest message), most similar first."""
        asked = limit * MESSAGES_PER_CONTEXT
        scan = self._scan(CONTEXTS)
        if scan is not None:
            messages = [(cid, similarity) for _, similarity, cid in scan.nearest(vector, asked)]
        else:
            found = self._query(self.contexts, vector, asked, include=("distances", "metadatas"))
            pairs = zip(found["metadatas"][0], found["distances"][0], strict=True) if found else ()
            messages = [(_context(meta), 1.0 - float(distance)) for meta, distance in pairs]
        best: dict[str, float] = {}
        for cid, similarity in messages:
            best[cid] = max(best.get(cid, -1.0), round(similarity, 4))
        return sorted(best.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]

    def nearest_commits(self, vector: np.ndarray, limit: int) -> list[tuple[str, float]]:
        """(commit id, cosine similarity of its title), most similar first."""
        scan = self._scan(COMMITS)
        if scan is not None:
            return [(commit, round(similarity, 4)) for commit, similarity, _ in scan.nearest(vector, limit)]
        return _similarities(self._query(self.commits, vector, limit))

    # --- the scanned copies (`exact`) -----------------------------------------------------------------

    def _scan(self, name: str) -> ExactNearest | None:
        """The scanned copy of a local store's collection, read on first use; None for a Chroma server or a
        collection too large to scan, which HNSW answers."""
        if self.location.url:
            return None
        if not self._copies.opened(name):
            with self._writing, self._reading():
                if not self._copies.opened(name):
                    collection = self._collections()[name]
                    self._copies.open(name, self._tag(name), lambda: ExactNearest.read(collection, LABELLERS[name]))
        return self._copies.held(name)

    def _upsert(self, name: str, ids: list[str], vectors: Any, metadatas: list[dict[str, Any]] | None) -> None:
        """Write to a collection and to its scanned copy, when one is held, as one step for a reader."""
        with self._writing:
            self._collections()[name].upsert(ids=ids, embeddings=vectors, metadatas=metadatas)
            copy = self._copies.held(name)
            if copy is not None:
                labels = [LABELLERS[name](meta) for meta in metadatas] if metadatas else [""] * len(ids)
                copy.upsert(ids, vectors, labels)

    def _delete(self, name: str, ids: list[str]) -> None:
        with self._writing:
            self._collections()[name].delete(ids=ids)
            copy = self._copies.held(name)
            if copy is not None:
                copy.delete(ids)

    def keep_scans(self) -> None:
        """After a catch-up: read each collection's copy if not held yet, and save those that changed, so that
        the next process to open the store loads them instead of reading Chroma."""
        if self.location.url:
            return
        for name in COLLECTIONS:
            if self._scan(name) is not None:
                with self._writing:
                    self._copies.keep(name, self._tag(name))

    def _tag(self, name: str) -> str:
        """What a saved copy must match: the checkpoint (format, model, log, position) and the collection's size."""
        meta = self.symbols.metadata or {}
        checkpoint = [meta.get(key) for key in ("annals_format", "annals_model", "annals_log", "annals_position")]
        return "|".join(map(str, [*checkpoint, self._collections()[name].count()]))

    def _collections(self) -> dict[str, Any]:
        return {SYMBOLS: self.symbols, CONTEXTS: self.contexts, COMMITS: self.commits}

    def _query(
        self,
        collection: Any,
        vector: np.ndarray,
        n: int,
        *,
        where: dict[str, Any] | None = None,
        include: tuple[str, ...] = ("distances",),
    ) -> dict[str, Any] | None:
        """The `n` nearest of a collection (all of them when it holds fewer); None when it is empty. Chroma 1.x
        answers with what it has (counting first, as 0.x needed, took as long as the query: 2.5 ms of each)."""
        with self._reading():
            found: dict[str, Any] = collection.query(
                query_embeddings=[vector], n_results=n, where=where, include=list(include)
            )
        return found if found["ids"] and found["ids"][0] else None

    def symbol_vector(self, symbol_id: str) -> np.ndarray | None:
        with self._reading():
            got = self.symbols.get(ids=[symbol_id], include=["embeddings"])
        if not got["ids"]:
            return None
        return np.asarray(got["embeddings"][0], dtype=np.float32)


def _similarities(found: dict[str, Any] | None) -> list[tuple[str, float]]:
    """(id, cosine similarity) of a query's answer, in its order (nearest first)."""
    if found is None:
        return []
    return [(i, round(1.0 - float(d), 4)) for i, d in zip(found["ids"][0], found["distances"][0], strict=True)]


class _Following:
    """The vector store as a follower of the log (`store/projections/follower.py`). Its position
    is the checkpoint in Chroma's collection metadata; each batch ends in a checkpoint, and the
    progress row says how far it is on the way to `target`."""

    reads = APPLIED_EVENTS
    batch_size = EVENTS_PER_CHECKPOINT

    def __init__(
        self,
        store: VectorStore,
        conn: sqlite3.Connection,
        target: int,
        report: CatchUpReport,
        progress: Progress | None,
    ) -> None:
        self.store = store
        self.conn = conn
        self.target = target
        self.report = report
        self.progress = progress
        self.start = self.at = store.position  # the checkpoint when this catch-up began, and now

    def step(self) -> AbstractContextManager[None]:
        return nullcontext()  # Chroma has no transaction with SQLite: applying twice is harmless instead

    def position(self) -> int:
        return self.at

    def apply(self, batch: Batch) -> None:
        """Embed what the batch changed: its symbols, every symbol of a file indexed again, its messages and
        the titles of its commits."""
        symbol_ids = list(
            dict.fromkeys(
                e.payload["id"] if e.type == SymbolRemoved.TYPE else e.payload["symbol"]["id"]
                for e in batch.events
                if e.type in SYMBOL_EVENTS
            )
        )
        # A re-indexed file may have moved its unchanged symbols, or been edited when they were
        # embedded: re-reading them costs cache hits only, unless their text changed.
        symbol_ids += symbol_ids_in(
            self.conn, {e.payload["path"] for e in batch.events if e.type == FileIndexed.TYPE}, exclude=set(symbol_ids)
        )

        def chunk_done(done: int, total: int) -> None:
            if self.progress:  # between checkpoints, the share of the batch's symbols embedded so far
                self._report(batch.start + (batch.end - batch.start) * done // max(total, 1))

        self.store._sync_symbols(self.conn, symbol_ids, self.report, chunk_done)
        self.store._sync_messages(self.conn, [e for e in batch.events if e.type == MESSAGE_EVENT], self.report)
        self.store._sync_commits(self.conn, [e for e in batch.events if e.type == COMMIT_EVENT], self.report)

    def record(self, position: int) -> None:
        self.store._checkpoint(self.conn, position, self.target)
        self.at = position
        self._report(position)

    def _report(self, position: int) -> None:
        if self.progress:
            self.progress(position - self.start, self.target - self.start)


def _http_client(url: str) -> Any:
    """ANNALS_CHROMA_URL: http(s)://host:port[/?tenant=T&database=D]."""
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise VectorsUnavailable(
            f"ANNALS_CHROMA_URL={url!r} is not a Chroma server address; "
            "use http://host:8000 (optionally ?tenant=T&database=D)"
        )
    query = {k: v[0] for k, v in parse_qs(parsed.query).items()}
    port = parsed.port or (443 if parsed.scheme == "https" else 8000)
    return chromadb.HttpClient(
        host=parsed.hostname,
        port=port,
        ssl=parsed.scheme == "https",
        settings=SETTINGS,
        tenant=query.get("tenant", DEFAULT_TENANT),
        database=query.get("database", DEFAULT_DATABASE),
    )


def _kind(meta: dict[str, Any] | None) -> str:
    return str((meta or {}).get("kind", ""))


def _context(meta: dict[str, Any] | None) -> str:
    return str((meta or {}).get("context_id", ""))


LABELLERS: dict[str, Labeller] = {SYMBOLS: _kind, CONTEXTS: _context, COMMITS: lambda meta: ""}


def _symbol_metadata(row: sqlite3.Row) -> dict[str, Any]:
    return {"path": row["path"], "kind": row["kind"], "qualname": row["qualname"], "line": row["start_line"] or 0}
