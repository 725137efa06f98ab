"""Git's object store, read without a checkout and without loading the parser (hooks start fast).

A raw diff (`git diff-tree`/`diff-index --raw -z`) becomes one FileChange per file; blobs come
through one long-running `git cat-file --batch`, about 0.1 ms a blob.
"""

from __future__ import annotations

import hashlib
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

from .gitcmd import GitError, start_git

NULL_ID = "0" * 40
_SKIPPED_MODES = ("120000", "160000")  # symlinks and submodules hold no source


@dataclass
class FileChange:
    status: str  # A, M, D, R, C, T
    old_path: str | None
    new_path: str | None
    old_blob: str | None
    new_blob: str | None  # None with a new_path: read the work-tree file


def parse_raw(out: bytes) -> list[FileChange]:
    fields = out.decode("utf-8", "surrogateescape").split("\0")
    changes: list[FileChange] = []
    i = 0
    while i < len(fields) and fields[i].startswith(":"):
        meta = fields[i][1:].split()
        old_mode, new_mode, old_blob, new_blob, status = meta[0], meta[1], meta[2], meta[3], meta[4][0]
        old_path: str | None
        new_path: str | None
        if status in "RC":
            old_path, new_path = fields[i + 1], fields[i + 2]
            i += 3
        else:
            old_path = new_path = fields[i + 1]
            i += 2
        if status == "A":
            old_path = None
        if status == "D":
            new_path = None
        if old_mode in _SKIPPED_MODES:
            old_path = None
        if new_mode in _SKIPPED_MODES:
            new_path = None
        if old_path is None and new_path is None:
            continue
        changes.append(
            FileChange(
                status,
                old_path,
                new_path,
                old_blob if old_path is not None and old_blob != NULL_ID else None,
                new_blob if new_path is not None and new_blob != NULL_ID else None,
            )
        )
    return changes


class BlobReader:
    """One long-running `git cat-file --batch`; `read(name)` by blob id or `rev:path`."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)
        self._proc: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()

    def __enter__(self) -> BlobReader:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def _child(self) -> subprocess.Popen[bytes]:
        if self._proc is None or self._proc.poll() is not None:
            self._proc = start_git(self.root, "cat-file", "--batch")
        return self._proc

    def read(self, name: str) -> bytes | None:
        """A blob's bytes, or None when git has no such blob."""
        found = self.read_object(name)
        return found[1] if found is not None and found[0] == "blob" else None

    def read_object(self, name: str) -> tuple[str, bytes] | None:
        """(type, bytes) of any object, or None when git has none by that name."""
        if not name or "\n" in name or "\r" in name or name.startswith("-"):
            raise GitError(f"cannot ask git for object {name!r}: names may not hold newlines or start with '-'")
        with self._lock:
            proc = self._child()
            if proc.stdin is None or proc.stdout is None:
                raise GitError("git cat-file was started without pipes")
            proc.stdin.write(name.encode("utf-8", "surrogateescape") + b"\n")
            proc.stdin.flush()
            header = proc.stdout.readline()
            if not header:
                self._proc = None
                raise GitError(f"git cat-file stopped while reading {name!r}")
            parts = header.split()
            if len(parts) != 3:  # "<name> missing" or "<name> ambiguous"
                return None
            data = proc.stdout.read(int(parts[2]))
            proc.stdout.read(1)  # the newline after the contents
        return parts[1].decode(), data

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.stdin is not None:
            proc.stdin.close()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


def blob_id(data: bytes) -> str:
    """The id git gives these bytes as a blob (for work-tree files, to share the cache)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()
