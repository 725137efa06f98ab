"""Parse results of git blobs, cached by blob id so history is parsed once.

Blobs come from `gitobjects.BlobReader`. Parse results are kept in the `blob_facts` table keyed
by blob id, language and extractor version (`<version>/symbols` for the symbols alone, all history's symbol
diffs parse: `extract.symbols_of`, which costs half of `extract`); stored without their path, so a file moved or copied
unchanged is never parsed again, and compressed: the facts of a history are most of an index otherwise (babybuddy's
1,000 commits: 174 MB of JSON, 30 MB compressed, in 1 s of their 84).
"""

from __future__ import annotations

import json
import sqlite3
import zlib
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import fields
from typing import TYPE_CHECKING, Any, cast

from ...store import transaction
from ...store.symbol import Symbol
from ..parsing.extract import Extractor, FileFacts, extract, symbols_of
from ..parsing.parse import ParseFailed, language_for, language_of, may_have_language
from ..parsing.version import extractor_version

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

    from ..run import Job

MAX_BLOB_BYTES = 2 * 1024 * 1024  # the indexer's file size limit
BINARY_SNIFF_BYTES = 8192
_PATH_MARK = "\x00path\x00"  # stands for the file's path in a cached, path-free result
COMPRESSION = 3  # zlib's level: 6 makes 12% less in twice the time


def unreadable(data: bytes) -> tuple[str, str] | None:
    """Why the indexer would skip these bytes (reason, detail), or None when it can parse them."""
    if len(data) > MAX_BLOB_BYTES:
        return "too large", f"{len(data)} bytes, limit {MAX_BLOB_BYTES}"
    if b"\0" in data[:BINARY_SNIFF_BYTES]:
        return "binary", "NUL bytes in the first 8 KiB"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return "undecodable", f"not UTF-8 at byte {exc.start}"
    return None


def _moved(value: str | None, old: str, new: str) -> str | None:
    if value is None:
        return None
    if value == old:
        return new
    return new + value[len(old) :] if value.startswith(old + "::") else value


def _relocated_symbols(symbols: list[dict[str, Any]], old: str, new: str) -> list[dict[str, Any]]:
    return [
        {**s, "id": _moved(s["id"], old, new), "path": new, "parent": _moved(s.get("parent"), old, new)}
        for s in symbols
    ]


def _relocate(facts: dict[str, Any], old: str, new: str) -> dict[str, Any]:
    """The facts as if of file `new` instead of `old`: the path lives in ids, `path` and links."""
    out = dict(facts)
    out["symbols"] = _relocated_symbols(facts["symbols"], old, new)
    out["calls"] = [{**c, "caller": _moved(c.get("caller"), old, new)} for c in facts["calls"]]
    out["fields"] = [{**f, "owner": _moved(f["owner"], old, new)} for f in facts.get("fields", [])]
    out["routes"] = [{**r, "symbol": _moved(r["symbol"], old, new)} for r in facts.get("routes", [])]
    out["tags"] = [{**t, "symbol": _moved(t.get("symbol"), old, new)} for t in facts["tags"]]
    return out


Parsed = FileFacts | tuple[str, str]  # the facts, or (reason, detail) when they cannot be had
Symbols = list[Symbol] | tuple[str, str]  # a file's symbols, or (reason, detail)
# The symbols of the blobs read last, as their files (FactsCache.symbols): a file a commit changes is read again as the
# old side of the next commit changing it. tmux's 1,000 newest commits read 5,305 sides of 1,879 blobs; 2,760 kept.
RECENT_BLOBS = 64
SYMBOLS_ONLY = "/symbols"  # the extractor of a cached result of `symbols_of`: its version and this
NO_GRAMMAR = ("no grammar", "no tree-sitter grammar for this file type")


def _missing(blob: str) -> tuple[str, str]:
    return ("missing", f"git has no blob {blob}")


def _language(
    path: str, data: bytes | None, load: Callable[[], bytes | None] | None
) -> tuple[str | None, bytes | None]:
    """The language a blob's facts are cached under, and its bytes if they were read to learn it: the path's, or
    for a script with no extension, the one file its path cannot place, its `#!` line's (language_of). Only
    such a file is read before the cache is asked."""
    lang = language_for(path)
    if lang is None and may_have_language(path):
        if data is None and load is not None:
            data = load()
        lang = language_of(path, data) if data is not None else None
    return lang, data


class FactsCache:
    """Parse results by (blob id, language, extractor version), read through and written in batches."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.version = extractor_version()
        self.symbols_version = self.version + SYMBOLS_ONLY
        # parsed since the last flush, path-free, by (blob, language, extractor)
        self._fresh: dict[tuple[str, str, str], bytes] = {}
        self._recent: OrderedDict[tuple[str, str], Symbols] = OrderedDict()  # by (blob, path), last read last
        self._pool: ProcessPoolExecutor | None = None  # prefetch's workers, once a batch was worth starting them
        self.hits = 0
        self.misses = 0

    def close(self) -> None:
        """Stop prefetch's worker processes."""
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None

    def _cached(self, blob: str, lang: str, versions: tuple[str, ...]) -> bytes | str | None:
        """The stored result of any of these extractors."""
        for version in versions:
            stored = self._fresh.get((blob, lang, version))
            if stored:
                return stored
        marks = ", ".join("?" * len(versions))
        row = self.conn.execute(
            f"SELECT facts FROM blob_facts WHERE blob = ? AND language = ? AND extractor IN ({marks}) LIMIT 1",
            (blob, lang, *versions),
        ).fetchone()
        return row[0] if row is not None else None

    def facts(
        self,
        path: str,
        blob: str,
        data: bytes | None,
        load: Callable[[], bytes | None] | None = None,
    ) -> Parsed:
        """Facts of `data` (or of `load()` when data is None and the cache misses, or the language is in the
        bytes) as file `path`."""
        found = self._stored_or_parsed(path, blob, data, load, symbols_only=False)
        return self._load(found, path) if isinstance(found, bytes | str) else found

    def symbols(
        self,
        path: str,
        blob: str,
        data: bytes | None,
        load: Callable[[], bytes | None] | None = None,
    ) -> Symbols:
        """The symbols of facts(), all a symbol diff reads, kept for the next few reads: the list is shared, not
        to be changed. Read from whole facts where they are cached; else parsed by `symbols_of` alone."""
        key = (blob, path)
        kept = self._recent.get(key)
        if kept is not None:
            self._recent.move_to_end(key)
            return kept
        found = self._stored_or_parsed(path, blob, data, load, symbols_only=True)
        if isinstance(found, bytes | str):
            symbols = self._load_symbols(found, path)
        else:
            symbols = found.symbols if isinstance(found, FileFacts) else found
        self._recent[key] = symbols
        if len(self._recent) > RECENT_BLOBS:
            self._recent.popitem(last=False)
        return symbols

    def _stored_or_parsed(
        self,
        path: str,
        blob: str,
        data: bytes | None,
        load: Callable[[], bytes | None] | None,
        *,
        symbols_only: bool,
    ) -> bytes | str | Parsed:
        """The facts as stored (path-free), or parsed now, or why there are none; with `symbols_only`, whole facts
        or the symbols alone as stored, or the symbols alone parsed now."""
        versions = (self.version, self.symbols_version) if symbols_only else (self.version,)
        lang, data = _language(path, data, load)
        if lang is None and data is None and may_have_language(path):
            return _missing(blob)  # a script git lacks the bytes of
        if lang is None:
            return NO_GRAMMAR
        stored = self._cached(blob, lang, versions)
        if stored is not None:
            self.hits += all((blob, lang, v) not in self._fresh for v in versions)  # parsed this session is no hit
            return stored
        self.misses += 1
        if data is None:
            data = load() if load is not None else None
            if data is None:
                return _missing(blob)
        parsed = parse_blob(path, data, lang, symbols_of if symbols_only else extract)
        self._fresh[(blob, lang, versions[-1])] = self._dump(parsed, path)
        return parsed

    def prefetch(self, wanted: list[tuple[str, str, Callable[[], bytes | None]]]) -> int:
        """Parse the symbols (`symbols`) of the (path, blob, loader) the cache lacks, in parallel worker processes;
        how many."""
        from ..run import PARALLEL_THRESHOLD, _extract_all, extract_pool

        jobs: list[Job] = []
        keys: list[tuple[str, str, str]] = []
        versions = (self.version, self.symbols_version)
        for path, blob, load in wanted:
            lang, data = _language(path, None, load)
            if lang is None:
                continue
            key = (blob, lang, self.symbols_version)
            if key in self._fresh or self._cached(blob, lang, versions) is not None:
                continue
            data = data if data is not None else load()
            if data is None:
                continue
            reason = unreadable(data)
            if reason is not None:
                self._fresh[key] = self._dump(reason, path)
                continue
            jobs.append((path, language_of(path, data) or lang, data, symbols_of))
            keys.append(key)
            self._fresh[key] = b""  # claimed: a second path with this blob is not parsed twice
        if self._pool is None and len(jobs) >= PARALLEL_THRESHOLD:  # kept for the next batches: a second to start
            self._pool = extract_pool()
        for (path, parsed), key in zip(_extract_all(jobs, self._pool), keys, strict=True):
            self._fresh[key] = self._dump(parsed, path)
        self.misses += len(jobs)
        return len(jobs)

    @staticmethod
    def _dump(parsed: Parsed, path: str) -> bytes:
        if isinstance(parsed, FileFacts):
            shallow = {f.name: getattr(parsed, f.name) for f in fields(parsed)}
            text = json.dumps(_relocate(shallow, path, _PATH_MARK), separators=(",", ":"))
        else:
            text = json.dumps({"failed": list(parsed)})
        return zlib.compress(text.encode(), COMPRESSION)

    @staticmethod
    def _decoded(stored: bytes | str) -> dict[str, Any] | tuple[str, str]:
        """A stored result, path-free, or (reason, detail) when it is of a file that could not be parsed."""
        # text where an earlier annals kept it so, under the same extractor version
        value = json.loads(zlib.decompress(stored) if isinstance(stored, bytes) else stored)
        return (value["failed"][0], value["failed"][1]) if "failed" in value else value

    @classmethod
    def _load(cls, stored: bytes | str, path: str) -> Parsed:
        value = cls._decoded(stored)
        return value if isinstance(value, tuple) else FileFacts(**_relocate(value, _PATH_MARK, path))

    @classmethod
    def _load_symbols(cls, stored: bytes | str, path: str) -> Symbols:
        value = cls._decoded(stored)
        if isinstance(value, tuple):
            return value
        return cast("list[Symbol]", _relocated_symbols(value["symbols"], _PATH_MARK, path))

    def flush(self) -> None:
        """Write the results parsed since the last flush (one transaction)."""
        if not self._fresh:
            return
        # a blob claimed by a prefetch that failed has nothing stored: left out, to be parsed next time
        rows = [(blob, lang, extractor, stored) for (blob, lang, extractor), stored in self._fresh.items() if stored]
        with transaction(self.conn):
            self.conn.executemany(
                "INSERT OR IGNORE INTO blob_facts (blob, language, extractor, facts) VALUES (?, ?, ?, ?)", rows
            )
        self._fresh = {}


def parse_blob(path: str, data: bytes, lang: str, extractor: Extractor = extract) -> Parsed:
    """extract() (or another extractor) with the indexer's limits; a file beyond them gives (reason, detail)."""
    reason = unreadable(data)
    if reason is not None:
        return reason
    try:
        return extractor(path, data, language_of(path, data) or lang)
    except ParseFailed as exc:
        return (exc.reason, exc.detail)
