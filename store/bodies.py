"""Which symbols of a file a task's words are in: their bodies, not only their names and docstrings.

The full-text index holds names, signatures, docstrings and paths; the code that a change goes in
often shows the task's words only in its body (`validate trusted_hosts during routing` edits the
method that reads `self.trusted_hosts`). Once the ranking core has chosen the few files a task is
about, each symbol of those files is scored by BM25 over the words of its lines, read from the
file as indexed (a file changed on disk since is skipped: its line spans would point elsewhere).

Tokenizing a large file takes 10-60 ms (sqlalchemy's compiler.py: 275 kB), and a fresh process's packs tokenize a few
each: `annals index` keeps every indexed content's words (`keep_words`), and a file whose content has them kept is
read from there (2 ms for compiler.py).
"""

from __future__ import annotations

import functools
import math
import re
import sqlite3
import sys
import threading
import zlib
from array import array
from dataclasses import dataclass
from pathlib import Path

from .db import transaction
from .kept import code_version
from .projections.files import indexed_content
from .projections.fulltext import identifier_words
from .relevance import stem

BM25_K1 = 1.2
BM25_B = 0.75
CACHED_FILES = 512
KEEP_BATCH = 500  # files tokenized per transaction by keep_words
_TOKEN = re.compile(r"[A-Za-z0-9_]+")  # as identifier_words splits text


@dataclass(frozen=True)
class FileWords:
    """Kept in tuples, not lists: a tuple of numbers drops out of the garbage collector's sight, and 512 cached
    files hold some 60,000 of them (as lists they made every full collection in a server 120 ms long)."""

    lines: dict[str, tuple[int, ...]]  # stem -> the line numbers (1-based, ascending) it is on, once per line
    words_per_line: tuple[int, ...]  # how many distinct stems each line has (index 0 is line 1)


def file_words(root: Path, conn: sqlite3.Connection, path: str) -> FileWords | None:
    """The stems of each line of a file, when the file on disk is the content that was indexed; tokenized
    once per content. A file whose size and modification time are those it had when it was found to be
    the indexed content is not read again (as git trusts its index): hashing the twenty files a task reads
    took 3 ms of each sqlalchemy pack, reading them 4 more."""
    row = conn.execute("SELECT content_hash FROM files WHERE path = ?", (path,)).fetchone()
    if row is None:
        return None
    try:
        stat = (root / path).stat()
    except OSError:
        return None
    key = (str(root / path), str(row[0]), stat.st_mtime_ns, stat.st_size)
    with _LOCK:
        found = _CACHE.get(key)
    if found is None:
        data = indexed_content(root / path, str(row[0]))
        if data is None:
            return None
        found = kept_words(conn, row[0]) or _tokenize(data)
        with _LOCK:
            _CACHE[key] = found
            while len(_CACHE) > CACHED_FILES:
                _CACHE.pop(next(iter(_CACHE)))  # the oldest first
    return found


def kept_words(conn: sqlite3.Connection, content: str) -> FileWords | None:
    """The words kept for a file content (its hash), when kept by this code."""
    row = conn.execute(
        "SELECT words FROM kept_file_words WHERE content_hash = ? AND code = ?", (content, code_version())
    ).fetchone()
    return _unpacked(row[0]) if row is not None else None


def keep_words(conn: sqlite3.Connection, root: Path) -> int:
    """Tokenize every indexed file whose content has no words kept by this code, as it is on disk under `root` when
    that is the content indexed, and keep them, KEEP_BATCH files to a transaction (a process holds only those);
    forget those of contents no longer indexed. How many were kept."""
    code = code_version()
    with transaction(conn):
        conn.execute(
            "DELETE FROM kept_file_words WHERE code != ? OR content_hash NOT IN (SELECT content_hash FROM files)",
            (code,),
        )
    kept = {r[0] for r in conn.execute("SELECT content_hash FROM kept_file_words")}
    files = conn.execute("SELECT path, content_hash FROM files WHERE status = 'indexed' ORDER BY path").fetchall()
    count, rows = 0, []
    for n, (path, content) in enumerate(files, 1):
        if content not in kept and (data := indexed_content(root / path, content)) is not None:
            rows.append((content, code, _packed(_tokenize(data))))
            kept.add(content)
        if rows and (len(rows) == KEEP_BATCH or n == len(files)):
            with transaction(conn):
                conn.executemany(
                    "INSERT OR REPLACE INTO kept_file_words (content_hash, code, words) VALUES (?, ?, ?)", rows
                )
            count, rows = count + len(rows), []
    return count


def _packed(words: FileWords) -> bytes:
    """The stems, one per line, then three arrays of 32-bit numbers: how many lines each stem is on, those lines, and
    the words per line; after a head of the four sizes."""
    stems = "\n".join(words.lines).encode()
    counts = [len(on) for on in words.lines.values()]
    numbers = [number for on in words.lines.values() for number in on]
    head = [len(stems), len(counts), len(numbers), len(words.words_per_line)]
    arrays = (_little_endian(array("I", a)).tobytes() for a in (counts, numbers, words.words_per_line))
    return zlib.compress(_little_endian(array("I", head)).tobytes() + stems + b"".join(arrays))


def _unpacked(blob: bytes) -> FileWords:
    data = zlib.decompress(blob)
    stems_size, *sizes = _little_endian(array("I", data[:16]))
    stems = data[16 : 16 + stems_size].decode().split("\n") if sizes[0] else []
    arrays, at = [], 16 + stems_size
    for size in sizes:
        arrays.append(tuple(_little_endian(array("I", data[at : at + 4 * size]))))
        at += 4 * size
    counts, numbers, per_line = arrays
    lines, start = {}, 0
    for stem_, count in zip(stems, counts, strict=True):
        lines[stem_] = numbers[start : start + count]
        start += count
    return FileWords(lines, per_line)


def _little_endian(numbers: array[int]) -> array[int]:
    """The array as kept, whatever the machine: little-endian (swapped in place on a big-endian one)."""
    if sys.byteorder == "big":
        numbers.byteswap()
    return numbers


def _tokenize(data: bytes) -> FileWords:
    lines: dict[str, list[int]] = {}
    counts: list[int] = []
    for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
        stems = set().union(*map(_token_stems, _TOKEN.findall(line)))
        counts.append(len(stems))
        for s in stems:
            lines.setdefault(s, []).append(number)
    return FileWords({s: tuple(numbers) for s, numbers in lines.items()}, tuple(counts))


@functools.lru_cache(maxsize=131_072)  # a file is made of the same few thousand tokens
def _token_stems(token: str) -> tuple[str, ...]:  # a tuple of strings, untracked by the collector as above
    return tuple({stem(w) for w in identifier_words(token) if len(w) > 1})


_CACHE: dict[tuple[str, str, int, int], FileWords] = {}
_LOCK = threading.Lock()


def body_scores(
    words: FileWords, spans: dict[str, tuple[int, int]], stems: list[str]
) -> dict[str, tuple[float, list[str]]]:
    """BM25 of each symbol (id -> its first and last line) over the task's stems, with the stems it has. The
    file's symbols are the documents: a word every symbol of the file has says nothing about which one to
    edit. A symbol counts only its own lines, not those of the symbols inside it (a class's methods): the
    edit goes in the method with the words.
    Tried and not kept (2026-12-06): the comments and attributes right above a symbol (a Rust method's `///` docs,
    which lie in its impl block) counted as the symbol's lines. localize_bench --vectors in process, symbol Acc@10:
    instead of the block's, hyper .587 -> .603 and the hold-out axum .582 -> .600, but actix-web .517 -> .466,
    ripgrep .899 -> .876 and the hold-out tokio .732 -> .679; as the block's and the method's both, axum the same
    and tokio .714. The docstring already ranks a symbol by its words (relevance.py); its code is what this adds."""
    if not spans:
        return {}
    owner: list[str | None] = [None] * (len(words.words_per_line) + 1)  # line -> the innermost symbol on it
    for i in sorted(spans, key=lambda i: (spans[i][0], -spans[i][1], i)):  # outer first, inner overwrite
        start, end = spans[i]
        owner[start : end + 1] = [i] * len(owner[start : end + 1])
    lengths = dict.fromkeys(spans, 0)
    for line, count in enumerate(words.words_per_line, 1):
        if (o := owner[line]) is not None:
            lengths[o] += count
    average = max(sum(lengths.values()) / len(lengths), 1.0)
    n = len(spans)
    scores: dict[str, tuple[float, list[str]]] = {}
    for s in stems:
        found: dict[str, int] = {}
        for line in words.lines.get(s, ()):
            if (o := owner[line]) is not None:
                found[o] = found.get(o, 0) + 1
        idf = math.log(1 + (n - len(found) + 0.5) / (len(found) + 0.5))
        for i, tf in found.items():
            norm = BM25_K1 * (1 - BM25_B + BM25_B * max(lengths[i], 1) / average)
            score, matched = scores.get(i, (0.0, []))
            scores[i] = (score + idf * tf * (BM25_K1 + 1) / (tf + norm), [*matched, s])
    return scores


def file_scores(
    files: dict[str, FileWords], stems: list[str], weights: dict[str, float] | None = None
) -> dict[str, tuple[float, list[str]]]:
    """BM25 of whole files over the task's stems, these files being the documents, with the stems each has; a
    stem in `weights` counts that many times its own (1 for the rest)."""
    if not files:
        return {}
    lengths = {p: max(sum(w.words_per_line), 1) for p, w in files.items()}
    average = sum(lengths.values()) / len(lengths)
    n = len(files)
    scores: dict[str, tuple[float, list[str]]] = {}
    for s in stems:
        found = {p: len(on) for p, w in files.items() if (on := w.lines.get(s))}
        idf = math.log(1 + (n - len(found) + 0.5) / (len(found) + 0.5)) * (weights or {}).get(s, 1.0)
        for p, tf in found.items():
            norm = BM25_K1 * (1 - BM25_B + BM25_B * lengths[p] / average)
            score, matched = scores.get(p, (0.0, []))
            scores[p] = (score + idf * tf * (BM25_K1 + 1) / (tf + norm), [*matched, s])
    return scores
