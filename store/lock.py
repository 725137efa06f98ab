"""One writer per repository: an flock'd lock file that also says who holds it (the owner's pid).

The kernel drops an flock when its holder dies, however it dies, so a dead owner never blocks
anyone: its pid file is simply taken over by the next process to ask. The pid written into the
file is only for messages and `annals watch status`; the flock alone decides who holds the lock.

flock is per open file, so two `WriterLock` objects in one process exclude each other as two
processes would.
"""

from __future__ import annotations

import errno
import fcntl
import os
import threading
import time
from pathlib import Path
from types import TracebackType

RETRY_SECONDS = 0.05  # how often a timed acquire asks again


class LockHeld(RuntimeError):
    """The lock belongs to another live process; the message names it and the lock file."""


def pid_alive(pid: int) -> bool:
    """Whether a process with this pid exists (it may belong to another user)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _flocked_inodes() -> set[int] | None:
    """Inodes of files someone holds an flock on (Linux /proc/locks), or None where unknown."""
    try:
        with open("/proc/locks", encoding="ascii", errors="replace") as fh:
            lines = fh.readlines()
    except OSError:
        return None
    inodes = set()
    for line in lines:
        fields = line.split()
        # "1: FLOCK  ADVISORY  WRITE 5618 fe:00:2146527 0 EOF"; blocked waiters carry "->" first
        if len(fields) >= 6 and fields[1] == "FLOCK":
            inodes.add(int(fields[5].rsplit(":", 1)[-1]))
    return inodes


class WriterLock:
    """An exclusive, non-reentrant lock on `path`, holding the owner's pid while held."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._fd: int | None = None
        self._guard = threading.Lock()  # one acquire/release at a time on this object

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self, blocking: bool = False, timeout: float | None = None) -> bool:
        """Take the lock; without `blocking`, give up at once; with a `timeout`, after that long."""
        with self._guard:
            if self._fd is not None:
                return True
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            try:
                if not self._lock(fd, blocking, timeout):
                    os.close(fd)
                    return False
                self._write_pid(fd)
            except BaseException:
                os.close(fd)
                raise
            self._fd = fd
            return True

    @staticmethod
    def _lock(fd: int, blocking: bool, timeout: float | None) -> bool:
        if blocking and timeout is None:
            fcntl.flock(fd, fcntl.LOCK_EX)
            return True
        deadline = time.monotonic() + (timeout if blocking and timeout is not None else 0.0)
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return True
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES):
                    raise
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            time.sleep(min(RETRY_SECONDS, remaining))

    @staticmethod
    def _write_pid(fd: int) -> None:
        # Write before truncating: a reader never sees an empty file, only the new pid first.
        data = f"{os.getpid()}\n".encode()
        os.pwrite(fd, data, 0)
        os.ftruncate(fd, len(data))
        os.fsync(fd)

    def release(self) -> None:
        """Give the lock up; releasing a lock not held does nothing."""
        with self._guard:
            fd, self._fd = self._fd, None
            if fd is None:
                return
            try:
                os.ftruncate(fd, 0)  # nobody's pid: the file stays, so no one races on re-creating it
            finally:
                os.close(fd)  # closing drops the flock

    def owner(self) -> int | None:
        """The pid of the live process holding the lock, or None when nobody holds it.

        Reads the pid file and never touches the flock itself: probing with a lock of our own
        would make a concurrent non-blocking `acquire` fail for no reason.
        """
        if self._fd is not None:
            return os.getpid()
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
        except FileNotFoundError:
            return None
        try:
            text = os.pread(fd, 64, 0).decode("ascii", "replace").split("\n", 1)[0].strip()
            inode = os.fstat(fd).st_ino
        finally:
            os.close(fd)
        pid = int(text) if text.isdigit() else None
        if pid is None or not pid_alive(pid):
            return None  # a dead owner's pid file: stale, the next acquire takes it over
        held = _flocked_inodes()
        if held is not None and inode not in held:
            return None  # the pid was reused by an unrelated process after the owner died
        return pid

    def __enter__(self) -> WriterLock:
        if not self.acquire():
            owner = self.owner()
            raise LockHeld(
                f"{self.path} is held by {f'pid {owner}' if owner else 'another process'}; "
                "wait for it to finish or stop it (`annals watch status` shows the watcher)"
            )
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()

    def __repr__(self) -> str:
        return f"WriterLock({str(self.path)!r}, held={self.held})"
