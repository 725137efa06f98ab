"""The file system side of the watcher: observers that deliver events, and what an event means.

inotify is preferred. Two of its failures are silent in watchdog, so our inotify instance reports
them: hitting the per-user watch limit (watchdog skips a subdirectory it cannot watch) and a
kernel queue overflow (events were lost). The watcher answers the first by falling back to
polling and the second with one reconcile of the whole tree.
"""

from __future__ import annotations

import errno
import logging
import os
import sys
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from watchdog.events import (
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
    FileAttribEvent,
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
    FileSystemMovedEvent,
)
from watchdog.observers.api import BaseObserver

from ..git.gitcmd import repo_top, run_git
from ..walk import ANNALS_DIR, IGNORE_FILE

log = logging.getLogger(__name__)

# A directory deleted and re-created in a burst (`git checkout`) can come back under the same
# inotify watch; watchdog then re-registers its callback and warns, with a repr of every watch.
warnings.filterwarnings("ignore", message=r"Callback with id '\d+' already exists for watch", category=RuntimeWarning)

WATCH_LIMIT_SYSCTL = "fs.inotify.max_user_watches"
INSTANCE_LIMIT_SYSCTL = "fs.inotify.max_user_instances"
BARRIER_PREFIX = f"{ANNALS_DIR}/watch-barrier-"
DISPATCH_TIMEOUT_SECONDS = 0.2  # how long observer threads block before looking at their stop flag

# Opening and reading files (our own indexer reads every file it hashes) and directory mtimes are
# noise; these are the events that can change what the walk lists or what a file holds.
EVENT_TYPES: list[type[FileSystemEvent]] = [
    FileCreatedEvent,
    FileModifiedEvent,
    FileClosedEvent,
    FileAttribEvent,
    FileDeletedEvent,
    FileMovedEvent,
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
]

# Files whose change alters which paths the walk lists: they call for a reconcile of the tree.
RULE_FILES = frozenset({".gitignore", IGNORE_FILE, ".git/info/exclude"})


@dataclass
class Change:
    """What one batch of events asks for: these files, everything under these directories, or all."""

    paths: set[str] = field(default_factory=set)
    dirs: set[str] = field(default_factory=set)
    reconcile: str | None = None  # why the whole tree must be reconciled, when it must

    def __bool__(self) -> bool:
        return bool(self.paths or self.dirs or self.reconcile)

    def size(self) -> int:
        return len(self.paths) + len(self.dirs)


class Pruned:
    """Directories the walk can never list anything under: `.git`, `.annals`, ignored directories.

    Computed from git (`ls-files --others --ignored --directory` with the walk's exclude rules),
    so a directory holding a tracked file is never pruned, whatever the patterns say.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self.dirs: frozenset[str] = frozenset()

    def refresh(self) -> None:
        if repo_top(self.root) is None:
            self.dirs = frozenset()
            return
        ignore = self.root / IGNORE_FILE
        excludes = [f"--exclude-from={ignore}"] if ignore.is_file() else []
        out = run_git(
            self.root,
            "ls-files",
            "-z",
            "--others",
            "--ignored",
            "--exclude-standard",
            "--directory",
            *excludes,
            check=False,
        )
        listed = out.decode("utf-8", "surrogateescape").split("\0")
        self.dirs = frozenset(p.rstrip("/") for p in listed if p.endswith("/"))

    def covers(self, rel: str) -> bool:
        """Whether `rel` lies in a pruned directory (the path itself or any of its parents)."""
        parts = rel.split("/")
        if ".git" in parts or parts[0] == ANNALS_DIR:
            return True
        dirs = self.dirs
        if not dirs:
            return False
        prefix = ""
        for part in parts:
            prefix = f"{prefix}/{part}" if prefix else part
            if prefix in dirs:
                return True
        return False


class EventSink(FileSystemEventHandler):
    """Turns watchdog events into repo-relative paths for the watcher, dropping what cannot matter."""

    def __init__(
        self, root: Path, pruned: Pruned, record: Callable[[Change], None], barrier: Callable[[str], None]
    ) -> None:
        self.root = str(root)
        self.pruned = pruned
        self.record = record
        self.barrier = barrier

    def relative(self, path: str | bytes) -> str | None:
        text = os.fsdecode(path)
        if not text:
            return None
        rel = os.path.relpath(text, self.root)
        if rel == ".":
            return ""
        if rel == ".." or rel.startswith(f"..{os.sep}"):
            return None  # moved out of the tree: only the source side concerns us
        return rel.replace(os.sep, "/")

    def dispatch(self, event: FileSystemEvent) -> None:
        change = Change()
        sides = [event.src_path]
        if isinstance(event, FileSystemMovedEvent):
            sides.append(event.dest_path)
        for side in sides:
            rel = self.relative(side)
            if rel is None:
                continue
            if rel == "":
                change.reconcile = "the root directory itself changed"
            elif rel.startswith(BARRIER_PREFIX):
                self.barrier(rel)
            elif rel in RULE_FILES or rel.endswith("/.gitignore"):
                change.reconcile = f"{rel} changed"
            elif self.pruned.covers(rel):
                continue
            elif event.is_directory:
                change.dirs.add(rel)
            else:
                change.paths.add(rel)
        if change:
            self.record(change)


# --- observers -------------------------------------------------------------------------------------


class WatchLimitReached(OSError):
    """inotify cannot watch every directory; the message names the sysctl to raise."""


def _inotify_observer(on_limit: Callable[[str], None], on_overflow: Callable[[], None]) -> BaseObserver:
    """watchdog's inotify observer, on an inotify instance that reports the limit and overflows."""
    from watchdog.observers.inotify import InotifyEmitter
    from watchdog.observers.inotify_c import InotifyEvent, InotifyFD

    class ReportingInotifyFD(InotifyFD):
        def add_callback(self, path: bytes, mask: Any, callback: Any, id_: Any) -> Any:  # watchdog's own types
            try:
                return super().add_callback(path, mask, callback, id_)
            except OSError as exc:
                if exc.errno == errno.ENOSPC:  # watchdog drops it silently for subdirectories
                    on_limit(os.fsdecode(path))
                raise

        def handle_event(self, event: InotifyEvent) -> None:
            if event.is_queue_overflow:
                on_overflow()
            super().handle_event(event)

    class ReportingInotifyObserver(BaseObserver):
        def __init__(self) -> None:
            self.inotify_fd = ReportingInotifyFD()
            self.inotify_fd.start()
            super().__init__(InotifyEmitter, timeout=DISPATCH_TIMEOUT_SECONDS, inotify_fd=self.inotify_fd)

        def on_thread_stop(self) -> None:
            super().on_thread_stop()
            self.inotify_fd.stop()
            self.inotify_fd.join()

    return ReportingInotifyObserver()


def _polling_observer(root: Path, pruned: Pruned, interval: float) -> BaseObserver:
    """A polling observer that never descends into pruned directories nor follows symlinks."""
    from watchdog.observers.polling import PollingObserverVFS

    top = str(root)
    annals = os.path.join(top, ANNALS_DIR)
    barrier_name = os.path.basename(BARRIER_PREFIX)

    def listdir(path: str | None) -> Iterator[os.DirEntry[str]]:
        for entry in os.scandir(path or top):
            if path == annals:
                if entry.name.startswith(barrier_name) or entry.name == os.path.basename(IGNORE_FILE):
                    yield entry
                continue
            if entry.name == ANNALS_DIR and path == top:
                yield entry
                continue
            rel = os.path.relpath(entry.path, top).replace(os.sep, "/")
            if entry.is_dir(follow_symlinks=False) and pruned.covers(rel):
                continue
            yield entry

    return PollingObserverVFS(os.lstat, listdir, polling_interval=interval)


def start_observer(
    root: Path,
    sink: EventSink,
    *,
    polling: bool,
    poll_interval: float,
    on_limit: Callable[[str], None],
    on_overflow: Callable[[], None],
) -> tuple[BaseObserver, str]:
    """Start watching `root`; return the observer and its mode ('inotify', 'polling', or the native kind).

    Raises WatchLimitReached when inotify cannot even watch the root (or open an instance).
    """
    if polling:
        observer: BaseObserver = _polling_observer(root, sink.pruned, poll_interval)
        mode = "polling"
    elif sys.platform.startswith("linux"):
        try:
            observer = _inotify_observer(on_limit, on_overflow)
        except OSError as exc:
            if exc.errno == errno.EMFILE:
                raise WatchLimitReached(
                    exc.errno, f"no inotify instance left: raise the sysctl {INSTANCE_LIMIT_SYSCTL}"
                ) from exc
            raise
        mode = "inotify"
    else:
        from watchdog.observers import Observer

        observer = Observer(timeout=DISPATCH_TIMEOUT_SECONDS)
        mode = type(observer).__name__.removesuffix("Observer").lower()
    observer.schedule(sink, str(root), recursive=True, event_filter=EVENT_TYPES)
    try:
        observer.start()
    except OSError as exc:
        stop_observer(observer)
        if exc.errno == errno.ENOSPC:
            raise WatchLimitReached(
                exc.errno, f"inotify watch limit reached: raise the sysctl {WATCH_LIMIT_SYSCTL}"
            ) from exc
        raise
    return observer, mode


def stop_observer(observer: BaseObserver) -> None:
    """Stop every thread of an observer (emitters, dispatcher, inotify reader) and wait for them."""
    observer.stop()
    if observer.is_alive():
        observer.join()
