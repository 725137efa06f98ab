"""The writer lock, the background watcher (driven by flush, never by sleeping) and `annals watch`."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from codeannals.store.lock import LockHeld, WriterLock

# --- the writer lock ------------------------------------------------------------------------------

HOLD_LOCK = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from codeannals.store.lock import WriterLock
    lock = WriterLock(Path(sys.argv[1]))
    assert lock.acquire()
    print("held", flush=True)
    time.sleep(60)
""")


def _dead_pid() -> int:
    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True)
    return int(proc.stdout)


def test_two_writer_locks_exclude_each_other(tmp_path: Path) -> None:
    path = tmp_path / ".annals" / "writer.lock"
    first, second = WriterLock(path), WriterLock(path)
    assert first.owner() is None
    assert first.acquire()
    assert not second.acquire()
    assert not second.acquire(blocking=True, timeout=0.2)
    assert second.owner() == os.getpid()
    with pytest.raises(LockHeld, match="writer.lock is held by pid"):
        with second:
            pass
    first.release()
    assert second.owner() is None
    with second:
        assert first.owner() == os.getpid()
    assert first.owner() is None


def test_a_lock_held_by_another_process_names_its_pid(tmp_path: Path) -> None:
    path = tmp_path / "writer.lock"
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        lock = WriterLock(path)
        assert lock.owner() == holder.pid
        assert not lock.acquire()
        holder.send_signal(signal.SIGKILL)  # a crash: no release, the pid stays in the file
        holder.wait()
        assert path.read_text().strip() == str(holder.pid)
        assert lock.owner() is None
        assert lock.acquire()
        assert path.read_text().strip() == str(os.getpid())
        lock.release()
    finally:
        holder.kill()
        holder.wait()


def test_a_stale_pid_file_from_a_dead_process_is_taken_over(tmp_path: Path) -> None:
    path = tmp_path / "writer.lock"
    path.write_text(f"{_dead_pid()}\n")
    lock = WriterLock(path)
    assert lock.owner() is None
    assert lock.acquire()
    assert lock.owner() == os.getpid()
    assert path.read_text() == f"{os.getpid()}\n"
    lock.release()
    assert path.read_text() == ""
