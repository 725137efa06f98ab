"""The nearest vectors of a local store by a full scan: exact, and the same answer in every process.

Chroma's HNSW graph is approximate, and a local store's graph is not the same from one process to the next:
what was upserted since chromadb last saved the graph is inserted again, in threads, whenever a process opens
it. On Healthchecks (5,896 symbols, ef_search 1,000) the 40 symbols nearest a task were the exact 40 in only 5
of 10 processes, so the same pack differed between two servers. A scan of every vector costs 2-5 ms a query at
these sizes, so a local store answers by scanning a copy of its vectors held in memory; the copy follows every
write the store makes, and is saved next to the store, tagged with its checkpoint, so that the next process
loads it in milliseconds instead of reading Chroma again (two seconds for sqlalchemy's 37,000).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

# Larger collections keep HNSW: a scan of 200,000 vectors would take about 20 ms a query and 300 MB of memory.
MAX_SCANNED = 200_000
PAGE = 10_000  # vectors read from Chroma per request (a request for every one fails: "too many SQL variables")
SEPARATOR = "\x00"  # between ids and labels in the saved copy: it cannot occur in a path or a commit id
DIGITS = 6  # similarities are compared rounded, so ties (and float noise) are broken by id, the same everywhere
# A keeper following a watched tree saves a changed copy at most this often (sqlalchemy's is 57 MB); a process
# opening the store after a later change reads Chroma instead (2 s for sqlalchemy's 37,000 vectors).
SAVE_EVERY = 60.0

Labeller = Callable[[dict[str, Any] | None], str]


class ExactNearest:
    """One collection's vectors, ids and labels (a symbol's kind, a message's context), scanned for the nearest."""

    def __init__(self, ids: Sequence[str], vectors: np.ndarray, labels: Sequence[str]) -> None:
        self._lock = threading.Lock()  # a server's query threads scan while its catch-up thread writes
        self._ids = list(ids)
        self._labels = list(labels)
        self._matrix = _unit_rows(vectors)
        self._row = {sid: i for i, sid in enumerate(self._ids)}

    def __len__(self) -> int:
        return len(self._ids)

    def nearest(self, vector: np.ndarray, n: int, label: str | None = None) -> list[tuple[str, float, str]]:
        """(id, cosine similarity, label) of the `n` nearest, most similar first, ties by id; only those with
        `label` when one is given."""
        query = np.asarray(vector, dtype=np.float32).ravel()
        query = query / (float(np.linalg.norm(query)) or 1.0)
        with self._lock:
            if label is None:
                rows = np.arange(len(self._ids))
                similarities = _dot(self._matrix, query) if self._ids else np.zeros(0, dtype=np.float32)
            else:
                rows = np.flatnonzero(np.asarray(self._labels) == label)
                similarities = _dot(self._matrix[rows], query) if rows.size else np.zeros(0, dtype=np.float32)
            if n <= 0 or not rows.size:
                return []
            similarities = np.round(similarities, DIGITS)
            if n < rows.size:  # every row tied with the n-th stays a candidate: which of them is kept goes by id
                nth = -np.partition(-similarities, n - 1)[n - 1]
                within = np.flatnonzero(similarities >= nth)
            else:
                within = np.arange(rows.size)
            ranked = sorted(within.tolist(), key=lambda i: (-similarities[i], self._ids[rows[i]]))[:n]
            return [(self._ids[rows[i]], round(float(similarities[i]), DIGITS), self._labels[rows[i]]) for i in ranked]

    def upsert(self, ids: Sequence[str], vectors: Any, labels: Sequence[str]) -> None:
        unit = _unit_rows(np.asarray(vectors, dtype=np.float32).reshape(len(ids), -1))
        with self._lock:
            added: list[int] = []
            for i, (sid, label) in enumerate(zip(ids, labels, strict=True)):
                row = self._row.get(sid)
                if row is None:
                    self._row[sid] = len(self._ids)
                    self._ids.append(sid)
                    self._labels.append(label)
                    added.append(i)
                else:
                    self._matrix[row] = unit[i]
                    self._labels[row] = label
            if added:
                self._matrix = np.vstack([self._matrix, unit[added]]) if len(self._matrix) else unit[added]

    def delete(self, ids: Sequence[str]) -> None:
        with self._lock:
            gone = {self._row[sid] for sid in ids if sid in self._row}
            if not gone:
                return
            keep = [row for row in range(len(self._ids)) if row not in gone]
            self._matrix = self._matrix[keep]
            self._ids = [self._ids[row] for row in keep]
            self._labels = [self._labels[row] for row in keep]
            self._row = {sid: i for i, sid in enumerate(self._ids)}

    # --- loading and saving ------------------------------------------------------------------------

    @classmethod
    def read(cls, collection: Any, labeller: Labeller) -> ExactNearest | None:
        """Every vector of a Chroma collection, page by page; None when it holds more than MAX_SCANNED."""
        count = int(collection.count())
        if count > MAX_SCANNED:
            return None
        ids: list[str] = []
        pages: list[np.ndarray] = []
        labels: list[str] = []
        for offset in range(0, count, PAGE):
            got = collection.get(include=["embeddings", "metadatas"], limit=PAGE, offset=offset)
            ids += got["ids"]
            pages.append(np.asarray(got["embeddings"], dtype=np.float32))
            labels += [labeller(meta) for meta in got["metadatas"]]
        return cls(ids, np.vstack(pages) if pages else np.zeros((0, 0), dtype=np.float32), labels)

    @classmethod
    def load(cls, path: Path, tag: str) -> ExactNearest | None:
        """The copy saved at `path` when it was saved at the store's checkpoint `tag`; else None."""
        try:
            with np.load(path, allow_pickle=False) as saved:
                if str(saved["tag"]) != tag:
                    return None
                ids = _split(saved["ids"]) if saved["ids"].size else []  # "" is one label, but no id
                return cls(ids, saved["matrix"], _split(saved["labels"]) if ids else [])
        except (OSError, KeyError, ValueError) as exc:
            if path.exists():
                log.info("the saved vectors %s are unreadable (%s); reading them from the store", path, exc)
            return None

    def save(self, path: Path, tag: str) -> None:
        """Save a copy tagged with the store's checkpoint, whole or not at all (written aside, then renamed)."""
        with self._lock:
            ids, labels, matrix = list(self._ids), list(self._labels), self._matrix.copy()
        aside = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        try:
            with aside.open("wb") as fh:
                np.savez(fh, tag=np.asarray(tag), ids=_joined(ids), labels=_joined(labels), matrix=matrix)
            os.replace(aside, path)
        except OSError as exc:
            log.warning("could not save the vectors to %s (%s); the next process reads them from the store", path, exc)
            aside.unlink(missing_ok=True)


class SavedCopies:
    """The copies of one local store's collections, by name, each saved in `folder` as `<name>.scan.npz` and tagged
    with the store's checkpoint: loaded from there at its tag, else read from the collection and saved for the next
    process; saved again after a change, at most every SAVE_EVERY seconds. The store serialises the calls with its
    writes."""

    def __init__(self, folder: Path) -> None:
        self._folder = folder
        self._held: dict[str, ExactNearest | None] = {}  # None: too large to scan
        self._saved: dict[str, str] = {}  # the tag each copy was last saved or loaded at
        self._saved_at: dict[str, float] = {}  # when this process last saved it (time.monotonic)

    def opened(self, name: str) -> bool:
        return name in self._held

    def held(self, name: str) -> ExactNearest | None:
        return self._held.get(name)

    def open(self, name: str, tag: str, read: Callable[[], ExactNearest | None]) -> None:
        """Hold the copy saved at `tag`, or else the one `read` gives (what the collection holds now), saved."""
        copy = ExactNearest.load(self._path(name), tag)
        if copy is not None:
            self._saved[name] = tag
        else:
            copy = read()
            if copy is not None:
                self._save(name, copy, tag)
        self._held[name] = copy

    def keep(self, name: str, tag: str) -> None:
        """Save the held copy if it changed since it was saved at the store's checkpoint, unless saved lately."""
        copy = self._held.get(name)
        if copy is not None and self._saved.get(name) != tag:
            if time.monotonic() >= self._saved_at.get(name, 0.0) + SAVE_EVERY:
                self._save(name, copy, tag)

    def forget(self) -> None:
        """Hold none (the store's collections were opened anew); the saved files stay, to be loaded at their tags."""
        self._held.clear()

    def _save(self, name: str, copy: ExactNearest, tag: str) -> None:
        copy.save(self._path(name), tag)
        self._saved[name] = tag
        self._saved_at[name] = time.monotonic()

    def _path(self, name: str) -> Path:
        return self._folder / f"{name}.scan.npz"


def _dot(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Each row's dot product with the query, in this thread. `matrix @ query` hands a large product to OpenBLAS's
    threads, which then spin for a while on both cores: the rest of the pack ran 1.5-2x slower (localize_bench
    pack p50 40.6 -> 62.8 ms; werkzeug 54.1 with them, 32.6 without). einsum does not call BLAS: 3.8 ms for
    37,000 rows (one BLAS thread: 3.5 ms)."""
    return np.einsum("ij,j->i", matrix, query)


def _unit_rows(vectors: np.ndarray) -> np.ndarray:
    matrix = np.array(vectors, dtype=np.float32)
    if matrix.size:
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        matrix /= np.where(norms == 0, 1.0, norms)
    return matrix


def _joined(items: Sequence[str]) -> np.ndarray:
    return np.frombuffer(SEPARATOR.join(items).encode(), dtype=np.uint8)


def _split(saved: np.ndarray) -> list[str]:
    return saved.tobytes().decode().split(SEPARATOR)
