"""Bring the event log in line with a tree: walk, hash, extract what changed, append events.

Two tiers (issue 16). A file the index has no complete facts of may first be outlined
(`file.outlined`: definitions, spans, signatures, docs; search-ready for a third of the CPU), when
the caller asks for it with `outline_from` (`annals index` on a first index or a large new tree).
`complete` then brings outlined files to full facts through this same walk, as a re-extraction.
"""

from __future__ import annotations

import collections
import hashlib
import logging
import multiprocessing
import os
import signal
import sqlite3
import sys
import time
from collections.abc import Callable, Collection, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..store import catch_up, transaction, writing
from ..store.events import (
    Event,
    FileIndexed,
    FileOutlined,
    FileRemoved,
    FileSkipped,
    SymbolAdded,
    SymbolChanged,
    SymbolRemoved,
)
from ..store.failpoints import crash_point
from ..store.lookups import complete_paths, file_hashes, stored_symbol_rows
from ..store.projections import CORE
from ..store.projections.symbols import COLUMNS, symbol_row
from ..store.symbol import Symbol
from .git.gitcmd import head_commit, run_git
from .parsing import resolve
from .parsing.extract import Extractor, FileFacts, extract, outline
from .parsing.parse import ParseFailed, language_of
from .parsing.resolve import Layout, candidates, module_name
from .parsing.version import extractor_version, module_sources
from .recorded import completed_hash, content_hash, is_skip_marker, known_hashes, last_hash, skip_marker
from .walk import ANNALS_DIR, MAX_FILE_BYTES, Entry, in_tree_links, walk

log = logging.getLogger(__name__)

BINARY_SNIFF_BYTES = 8192
FILES_PER_TRANSACTION = 200
PARALLEL_THRESHOLD = 64  # below this many files a process pool costs more than it saves

Progress = Callable[[int, int], None]


@dataclass
class IndexReport:
    files: int = 0
    indexed: int = 0
    skipped: int = 0
    removed: int = 0
    unchanged: int = 0
    symbols: int = 0
    events: int = 0
    seconds: float = 0.0
    head: str | None = None
    reextracted: int = 0  # unchanged files extracted again: the extractor or resolver changed since
    outlined: int = 0  # files made search-ready only (tier 1): `complete` finishes them
    completed: int = 0  # outlined files brought to complete facts
    skips: list[dict[str, str]] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


FACTS_VERSION = "facts version"  # the index_settings row: what produced the facts of the work tree


def facts_version(layout: Layout) -> str:
    """The code facts come from (`facts_code`) and what the tree's settings files say (`Layout.settings`):
    what a file.indexed event's facts (symbols, calls, import candidates, module name) depend on besides the
    file's bytes."""
    return hashlib.blake2b(facts_code() + layout.settings().encode(), digest_size=8).hexdigest()


def facts_code() -> bytes:
    """The extractor's version and the resolver's code (resolve.py and what it imports: pypackages.py reads the build
    settings): what facts depend on of this package (bench/localize_bench.py keeps its cached indexes to it)."""
    resolver = b"".join(path.read_bytes() for path in module_sources(Path(resolve.__file__)))
    return extractor_version().encode() + resolver


def _stale_facts(conn: sqlite3.Connection, known: dict[str, str | None], layout: Layout) -> set[str]:
    """Files whose facts older code, or other settings, gave (after an upgrade, or an edit of pyproject.toml's
    package-dir, a tsconfig's paths, a go.mod's module): every indexed file, once."""
    row = conn.execute("SELECT value FROM index_settings WHERE name = ?", (FACTS_VERSION,)).fetchone()
    if row is not None and row[0] == facts_version(layout):
        return set()
    return {path for path, marker in known.items() if marker and not is_skip_marker(marker)}


def _record_facts_version(conn: sqlite3.Connection, layout: Layout) -> None:
    """Every file's facts are this code's (in the caller's transaction): after a whole-tree run, and with each
    batch of a first index. Written only at the end of a first index, a run killed midway left every file it had
    recorded stale, and the next run extracted them all again, appending the same content once more
    (tests/test_crash.py)."""
    conn.execute("INSERT OR REPLACE INTO index_settings VALUES (?, ?)", (FACTS_VERSION, facts_version(layout)))


def ensure_git_excludes_annals(root: Path) -> None:
    """Keep `.annals/` out of `git status` without touching the user's .gitignore."""
    out = run_git(root, "rev-parse", "--git-path", "info/exclude", check=False).decode().strip()
    if not out:
        return
    exclude = (root / out) if not os.path.isabs(out) else Path(out)
    existing = exclude.read_text("utf-8", "replace") if exclude.exists() else ""
    if f"{ANNALS_DIR}/" in existing.split("\n"):
        return
    exclude.parent.mkdir(parents=True, exist_ok=True)
    with exclude.open("a", encoding="utf-8") as fh:
        fh.write(("" if existing.endswith("\n") or not existing else "\n") + f"{ANNALS_DIR}/\n")


@dataclass
class _Candidate:
    """A file to parse. Not its bytes: a parser process reads them again (from the page cache), so
    memory stays flat however large the tree, and nothing megabytes long is pickled to it."""

    path: str
    language: str
    hash: str
    size: int
    file: str  # where the parser reads it
    outline: bool = False  # tier 1 only: file.outlined


def _classify(
    root: Path, entry: Entry, cache: dict[str, tuple[int, int, str]], known: dict[str, str | None]
) -> tuple[str, Any]:
    """('same' | 'skip' | 'parse', detail) for one walked entry."""
    if entry.skip is not None:
        return "skip", FileSkipped(entry.path, entry.skip, entry.detail)
    full = root / entry.path
    cached = cache.get(entry.path)
    if cached and cached[:2] == (entry.size, entry.mtime_ns) and known.get(entry.path) == cached[2]:
        return "same", None
    if entry.size > MAX_FILE_BYTES:
        return "skip", FileSkipped(
            entry.path, "too large", f"{entry.size} bytes, limit {MAX_FILE_BYTES}", None, entry.size
        )
    try:
        data = full.read_bytes()
    except FileNotFoundError:
        return "gone", None
    except OSError as exc:
        return "skip", FileSkipped(entry.path, "unreadable", exc.strerror or str(exc))
    digest = content_hash(data)
    cache[entry.path] = (entry.size, entry.mtime_ns, digest)
    if known.get(entry.path) == digest:
        return "same", None
    lang = language_of(entry.path, data)
    if b"\0" in data[:BINARY_SNIFF_BYTES]:
        return "skip", FileSkipped(entry.path, "binary", "NUL bytes in the first 8 KiB", digest, len(data))
    if lang is None:
        return "skip", FileSkipped(
            entry.path, "no grammar", "no tree-sitter grammar for this file type", digest, len(data)
        )
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return "skip", FileSkipped(entry.path, "undecodable", f"not UTF-8 at byte {exc.start}", digest, len(data))
    return "parse", _Candidate(entry.path, lang, digest, len(data), str(full))


Job = tuple[str, str, bytes | str, Extractor]  # path, language, its bytes or the file to read, what to extract
Read = tuple[str, int] | None  # the content hash and size of the bytes a job read from its file
CHUNK = 4  # jobs a worker takes at a time: fewer round trips
IN_FLIGHT_PER_WORKER = 16  # chunks handed to the pool ahead of the results taken: memory stays flat


def _extract_job(job: Job) -> tuple[str, FileFacts | tuple[str, str], Read]:
    path, lang, source, extractor = job
    read: Read = None
    try:
        if isinstance(source, str):
            source = Path(source).read_bytes()
            read = (content_hash(source), len(source))
        return path, extractor(path, source, lang), read
    except OSError as exc:
        return path, ("unreadable", exc.strerror or str(exc)), read
    except ParseFailed as exc:
        return path, (exc.reason, exc.detail), read
    except Exception as exc:  # noqa: BLE001 - one file's extractor bug must not end the run
        log.exception("extracting %s failed", path)
        return path, ("extractor error", f"{type(exc).__name__}: {exc}"), read


@dataclass(frozen=True)
class _Derived:
    """What a file.indexed event needs beyond the facts: worked out where the facts are extracted,
    so the writer only writes."""

    module: str
    imports: list[dict[str, Any]]  # with their candidate files


def derive(path: str, lang: str, facts: FileFacts, layout: Layout) -> _Derived:
    return _Derived(
        module_name(path, lang, layout),
        [{**imp, "candidates": candidates(imp, path, lang, layout)} for imp in facts.imports],
    )


_worker_layout: Layout | None = None  # a pool worker's copy, sent once (not with every job)


def _start_worker(layout: Layout | None) -> None:
    global _worker_layout
    _die_with_parent()
    _worker_layout = layout


Extracted = tuple[str, FileFacts | tuple[str, str], _Derived | None, Read]


def _extract_and_derive(job: Job, layout: Layout | None = None) -> Extracted:
    path, facts, read = _extract_job(job)
    layout = layout or _worker_layout
    if not isinstance(facts, FileFacts) or layout is None:
        return path, facts, None, read
    return path, facts, derive(path, job[1], facts, layout), read


def _extract_chunk(jobs: list[Job]) -> list[Extracted]:
    return [_extract_and_derive(job) for job in jobs]


def _die_with_parent() -> None:
    """A killed indexer must not leave parsers running (Linux: PR_SET_PDEATHSIG)."""
    if sys.platform.startswith("linux"):
        import ctypes

        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)
        if os.getppid() == 1:  # the parent died before we could ask
            os._exit(1)


def _extract_all(
    jobs: list[Job], pool: ProcessPoolExecutor | None = None
) -> Iterator[tuple[str, FileFacts | tuple[str, str]]]:
    """Facts of each job (path, language, bytes, extractor), in order; in worker processes when many, or in `pool`'s
    (extract_pool()) whenever it is given."""
    for path, facts, _, _ in _extract_derived(jobs, None, pool):
        yield path, facts


def extract_pool(layout: Layout | None = None) -> ProcessPoolExecutor:
    """Worker processes to extract in, one a core. Spawned: they inherit none of our threads (progress bar,
    watcher) nor the open database, and, being our own children, die with us (see _die_with_parent). Starting
    one costs about a second (its imports); a caller extracting batch after batch keeps one."""
    return ProcessPoolExecutor(
        max_workers=os.cpu_count() or 1,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_start_worker,
        initargs=(layout,),
    )


def _extract_derived(
    jobs: list[Job], layout: Layout | None, pool: ProcessPoolExecutor | None = None
) -> Iterator[Extracted]:
    """Facts and, given a layout, what the writer needs from them (see _Derived), in order."""
    workers = os.cpu_count() or 1
    if workers < 2 or (pool is None and len(jobs) < PARALLEL_THRESHOLD):
        yield from (_extract_and_derive(job, layout) for job in jobs)
        return
    if pool is not None:
        yield from _in_workers(pool, jobs, workers)
        return
    with extract_pool(layout) as own:
        yield from _in_workers(own, jobs, workers)


def _in_workers(pool: ProcessPoolExecutor, jobs: list[Job], workers: int) -> Iterator[Extracted]:
    # Not pool.map: it submits every job at once, and their results wait in memory for the
    # writer. A window of chunks keeps the workers busy and memory flat.
    window: collections.deque[Future[list[Extracted]]] = collections.deque()
    for start in range(0, len(jobs), CHUNK):
        window.append(pool.submit(_extract_chunk, jobs[start : start + CHUNK]))
        if len(window) >= IN_FLIGHT_PER_WORKER * workers:
            yield from window.popleft().result()
    while window:
        yield from window.popleft().result()


def symbol_events(path: str, new: list[Symbol], old: dict[str, sqlite3.Row]) -> list[Event]:
    """Added, changed (saying whether signature, body, both, or only details) and removed symbols of one file.

    "details" is a change nothing but the stored row shows: a leading-comment docstring, the
    enclosing definition (a same-named local class earlier in the function renumbers its
    neighbours), the export status, the signature's layout. Missing it would leave the live index
    different from a fresh one.
    """
    events: list[Event] = []
    # An outline's rows (no hashes) are no facts to compare with: the file's first complete facts
    # add every symbol, and the projections drop the outline's rows themselves.
    old = {sid: row for sid, row in old.items() if row["body_hash"] is not None}
    for symbol in new:
        before = old.get(symbol["id"])
        if before is None:
            events.append(SymbolAdded(symbol))
            continue
        changed = []
        if before["signature_hash"] != symbol["signature_hash"] or before["kind"] != symbol["kind"]:
            changed.append("signature")
        if before["body_hash"] != symbol["body_hash"]:
            changed.append("body")
        if not changed and any(
            before[col] != value for col, value in zip(COLUMNS, symbol_row(symbol), strict=True) if col not in _LINES
        ):
            changed.append("details")
        if changed:
            events.append(
                SymbolChanged(
                    symbol,
                    changed,
                    {
                        "signature_hash": before["signature_hash"],
                        "body_hash": before["body_hash"],
                        "kind": before["kind"],
                        "signature": before["signature"],
                    },
                )
            )
    new_ids = {s["id"] for s in new}
    for sid, before in old.items():
        if sid not in new_ids:
            events.append(SymbolRemoved(sid, path, before["qualname"], before["kind"]))
    return events


_LINES = ("start_line", "end_line")  # kept current by file.indexed's spans, not by symbol events


def _file_events(
    conn: sqlite3.Connection, cand: _Candidate, facts: FileFacts, layout: Layout, derived: _Derived | None = None
) -> list[Event]:
    derived = derived or derive(cand.path, cand.language, facts, layout)
    file_event = FileIndexed(
        path=cand.path,
        language=cand.language,
        content_hash=cand.hash,
        size=cand.size,
        lines=facts.lines,
        module=derived.module,
        module_doc=facts.module_doc,
        declared_api=facts.declared_api,
        generated=facts.generated,
        imports=derived.imports,
        calls=facts.calls,
        tags=facts.tags,
        spans={s["id"]: [s["start_line"], s["end_line"]] for s in facts.symbols},
        fields=facts.fields,
        exported_as=facts.exported_as,
        routes=facts.routes,
        route_prefixes=facts.route_prefixes,
    )
    return [file_event, *symbol_events(cand.path, facts.symbols, stored_symbol_rows(conn, cand.path))]


def _outline_event(cand: _Candidate, facts: FileFacts, layout: Layout, derived: _Derived | None) -> FileOutlined:
    return FileOutlined(
        path=cand.path,
        language=cand.language,
        content_hash=cand.hash,
        size=cand.size,
        lines=facts.lines,
        module=derived.module if derived else module_name(cand.path, cand.language, layout),
        module_doc=facts.module_doc,
        generated=facts.generated,
        symbols=facts.symbols,
    )


def _removal_events(conn: sqlite3.Connection, path: str) -> list[Event]:
    return [FileRemoved(path), *symbol_events(path, [], stored_symbol_rows(conn, path))]


def index_tree(
    root: Path,
    conn: sqlite3.Connection,
    *,
    source: str = "cli",
    only: Iterable[str] | None = None,
    progress: Progress | None = None,
    outline_from: int | None = None,
    completing: Collection[str] = (),
) -> IndexReport:
    """Index `root` (or just the paths in `only`, parsed in that order) into the log and bring the
    projections up to date.

    A file whose content is unchanged appends nothing, so a second run on the same tree appends
    no events at all. With `outline_from`, when at least that many files to parse have no complete
    facts, those are outlined (tier 1) and parsed first. The `completing` paths (outlined files,
    given in `only` too) are extracted whole whatever their content, unless another writer has
    completed them meanwhile.
    """
    started = time.perf_counter()
    root = root.resolve()
    report = IndexReport(head=head_commit(root))
    catch_up(conn, CORE)
    known = known_hashes(conn)
    cache = {row[0]: (row[1], row[2], row[3]) for row in conn.execute("SELECT * FROM stat_cache")}
    stored_cache = dict(cache)
    order: dict[str, int] = {}
    if only is not None:
        order = {path: i for i, path in enumerate(only)}
        wanted = set(order)
        entries = list(walk(root, wanted))
        walked = {e.path for e in entries}
        gone = sorted(p for p in wanted if p in known and p not in walked)
        # The layout (package roots, go.mod, tsconfig) comes from every file we know plus these.
        links = _links(root, known, (e.path for e in entries if e.skip == "symlink"))
        layout = Layout.of((set(known) - set(gone)) | walked, lambda rel: _read_small(root / rel), links)
    else:
        entries = list(walk(root))
        walked = {e.path for e in entries}
        gone = sorted(p for p in known if p not in walked)
        links = _links(root, known, (e.path for e in entries if e.skip == "symlink"))
        layout = Layout.of(walked, lambda rel: _read_small(root / rel), links)
    # A whole-tree run extracts again what older code, or other settings, extracted: same bytes, other facts.
    stale = _stale_facts(conn, known, layout) if only is None else set()
    first_index = not known  # every fact it records is this code's, whether or not the run ends
    completing = set(completing) & set(known)
    stale |= completing
    # A file skipped before is read again too (a grammar may read it now); skipped again alike, it is no news.
    skipped_before = {
        path: (content, (reason or "").split(":")[0]) for path, content, reason in file_hashes(conn, stale) if reason
    }
    known.update(dict.fromkeys(stale, "stale facts"))
    report.files = len(entries)

    pending: list[tuple[str, list[Event]]] = []
    parse_jobs: dict[str, _Candidate] = {}
    for entry in entries:
        verdict, detail = _classify(root, entry, cache, known)
        if verdict == "parse":
            parse_jobs[entry.path] = detail
        elif verdict == "skip":
            marker = detail.content_hash or skip_marker(detail.reason)
            again = skipped_before.get(entry.path) == (detail.content_hash, detail.reason)
            if known.get(entry.path) != marker and not again:
                pending.append((entry.path, [detail]))
                report.skips.append({"path": entry.path, "reason": detail.reason, "detail": detail.detail})
        elif verdict == "same":
            report.unchanged += 1
        elif verdict == "gone" and entry.path in known:
            gone.append(entry.path)

    if outline_from is not None and len(parse_jobs) >= outline_from:
        complete = complete_paths(conn)
        first_facts = [c for path, c in parse_jobs.items() if path not in complete and path not in stale]
        if len(first_facts) >= outline_from:
            for cand in first_facts:
                cand.outline = True
    done = 0
    total = len(parse_jobs) + len(pending) + len(gone)

    def flush(batch: list[tuple[str, Any]]) -> None:
        nonlocal done
        # Projections follow each batch, so they build while the workers are still parsing.
        with writing(conn, source=source) as writer:
            if first_index:
                _record_facts_version(conn, layout)
            for path, item in batch:
                if isinstance(item, str):  # a removal
                    if last_hash(conn, path) is None:
                        continue
                    events = _removal_events(conn, path)
                    report.removed += 1
                elif isinstance(item, list):
                    events = item
                    report.skipped += 1
                else:
                    cand, facts, derived, read = item
                    if read is not None and read[0] != cand.hash:  # changed since the walk: what was parsed
                        cand.hash, cand.size = read
                        cache.pop(path, None)  # its stat is not this content's: the next run hashes it again
                    if not isinstance(facts, FileFacts):
                        reason, detail = facts
                        if skipped_before.get(path) == (cand.hash, reason):
                            continue
                        events = [FileSkipped(path, reason, detail, cand.hash, cand.size)]
                        report.skipped += 1
                        report.skips.append({"path": path, "reason": reason, "detail": detail})
                    else:
                        if path in completing:
                            if completed_hash(conn, path) == cand.hash:
                                continue  # another process completed this very content meanwhile
                        elif path not in stale and last_hash(conn, path) == cand.hash:
                            continue  # another writer recorded this very content meanwhile
                        if cand.outline:
                            events = [_outline_event(cand, facts, layout, derived)]
                            report.outlined += 1
                        else:
                            events = _file_events(conn, cand, facts, layout, derived)
                        report.completed += path in completing
                        report.reextracted += path in stale and path not in completing
                        report.indexed += path not in completing
                        report.symbols += len(facts.symbols)
                writer.append(events, commit=report.head)
                crash_point("mid-batch")
            conn.executemany(
                "INSERT OR REPLACE INTO stat_cache VALUES (?, ?, ?, ?)",
                [(p, *cache[p]) for p, _ in batch if p in cache],
            )
        report.events += len(writer.appended)
        done += len(batch)
        if progress:
            progress(done, total)

    batch: list[tuple[str, Any]] = [*pending, *((p, p) for p in gone)]
    if batch:
        flush(batch)
        batch = []
    # Outlines first (search-ready soonest), then in the order asked for.
    queue = sorted(parse_jobs.values(), key=lambda c: (not c.outline, order.get(c.path, 0)))
    jobs: list[Job] = [(c.path, c.language, c.file, outline if c.outline else extract) for c in queue]
    for path, facts, derived, read in _extract_derived(jobs, layout):
        batch.append((path, (parse_jobs[path], facts, derived, read)))
        if len(batch) >= FILES_PER_TRANSACTION:
            flush(batch)
            batch = []
    if batch:
        flush(batch)
    # Files read but unchanged (touched, saved as they were, skipped again) keep their new stat too,
    # else `annals status` counts them as pending and every run hashes them again.
    refreshed = [(p, *entry) for p, entry in cache.items() if stored_cache.get(p) != entry]
    if refreshed:
        with transaction(conn):
            conn.executemany("INSERT OR REPLACE INTO stat_cache VALUES (?, ?, ?, ?)", refreshed)
    if only is None:
        with transaction(conn):
            _record_facts_version(conn, layout)
    if progress and total == 0:
        progress(0, 0)
    catch_up(conn, CORE)
    report.seconds = round(time.perf_counter() - started, 3)
    return report


def _links(root: Path, known: dict[str, str | None], maybe: Iterable[str] = ()) -> dict[str, str]:
    """The tree's symlinks into itself, among the paths the log holds as symlinks and those `maybe` (the walk's
    symlinks, a commit's new paths)."""
    linked = {path for path, marker in known.items() if marker == skip_marker("symlink")}
    return in_tree_links(root, sorted(linked | set(maybe)))


def _read_small(path: Path) -> str | None:
    try:
        return path.read_text("utf-8") if path.stat().st_size < 1_000_000 else None
    except (OSError, UnicodeDecodeError):
        return None
