"""The writer lock, the background watcher (driven by flush, never by sleeping) and `annals watch`."""

from __future__ import annotations

import itertools
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from codeannals.indexer.run import index_tree
from codeannals.indexer.watching.watch import Watcher
from codeannals.store import connect, open_store, transaction
from codeannals.store.events import FileSkipped
from codeannals.store.lock import LockHeld, WriterLock
from codeannals.store.log import append

from .conftest import Repo

# watchdog warns when a directory that left the tree comes back under its old inotify watch;
# indexer/watching/watchfs.py silences it for the process, pytest resets filters for each test.
pytestmark = pytest.mark.filterwarnings("ignore:Callback with id:RuntimeWarning")

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
    proc = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
    )
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


# --- the watcher, driven by flush ------------------------------------------------------------------

QUIET = 3600.0  # a debounce no test outlives: only flush() runs batches, so counts are exact


def _tables(db: Path) -> dict[str, list[tuple[object, ...]]]:
    """The files (but their log position) and symbols tables, in a stable order."""
    conn = sqlite3.connect(db)
    try:
        files = conn.execute(
            "SELECT path, status, reason, language, module, content_hash, size, lines,"
            " module_doc, declared_api FROM files ORDER BY path"
        ).fetchall()
        symbols = conn.execute("SELECT * FROM symbols ORDER BY id").fetchall()
    finally:
        conn.close()
    return {"files": files, "symbols": symbols}


def _fresh(root: Path, scratch: Path) -> dict[str, list[tuple[object, ...]]]:
    """What a cold `index_tree` of the same tree builds, in a database of its own."""
    db = scratch / f"fresh-{len(list(scratch.glob('fresh-*')))}.db"
    conn = open_store(db)
    try:
        index_tree(root, conn)
    finally:
        conn.close()
    return _tables(db)


def _events(db: Path) -> int:
    conn = sqlite3.connect(db)
    try:
        return int(conn.execute("SELECT COUNT(*) FROM events").fetchone()[0])
    finally:
        conn.close()


def _save(path: Path, text: str) -> None:
    """An editor's atomic save: write a temporary file beside it, then rename it over the original."""
    scratch = path.with_name(f".{path.name}.swp")
    scratch.write_text(text)
    os.replace(scratch, path)


@pytest.fixture
def watching(repo: Repo, tmp_path: Path) -> Iterator[Callable[..., Watcher]]:
    """Start watchers on the test repository; stop them all after the test and check no thread leaked."""
    before = set(threading.enumerate())
    started: list[Watcher] = []

    def start(**options: object) -> Watcher:
        # kept_quiet: no process of its own keeps the answers mid-test (tests/test_kept.py tests that)
        watcher = Watcher(
            repo.root, repo.root / ".annals" / "annals.db", **{"debounce": QUIET, "kept_quiet": None, **options}
        )
        watcher.start()
        started.append(watcher)
        return watcher

    yield start
    for watcher in started:
        watcher.stop()
    leaked = [t for t in set(threading.enumerate()) - before if t.is_alive()]
    assert leaked == []


def _py(name: str, body: str = "return 1") -> str:
    return f"def {name}():\n    {body}\n"


def test_start_brings_the_index_to_the_tree_before_it_is_ready(repo: Repo, tmp_path: Path, watching) -> None:
    repo.write("keep.py", _py("keep"))
    repo.write("edit.py", _py("before"))
    repo.write("gone.py", _py("gone"))
    repo.commit()
    db = repo.root / ".annals" / "annals.db"
    conn = open_store(db)
    index_tree(repo.root, conn)
    conn.close()
    # Changes while no watcher ran: an edit, a deletion, a new file.
    repo.write("edit.py", _py("after"))
    repo.remove("gone.py")
    repo.write("new/mod.py", _py("new"))

    watcher = watching()
    watcher.flush()
    state = watcher.status()
    assert state["ready"] and state["running"] and state["role"] == "owner"
    assert state["mode"] == "inotify" and state["pending_paths"] == 0 and state["reconciles"] == 1
    assert _tables(db) == _fresh(repo.root, tmp_path)
    assert {r[0] for r in _tables(db)["files"]} == {"keep.py", "edit.py", "new/mod.py"}


def test_atomic_saves_deletions_and_new_directories_follow_the_tree(repo: Repo, tmp_path: Path, watching) -> None:
    repo.write("a.py", _py("alpha"))
    repo.commit()
    db = repo.root / ".annals" / "annals.db"
    watcher = watching()
    watcher.flush()

    _save(repo.root / "a.py", _py("alpha_renamed"))
    assert watcher.flush() == 1
    assert [r[2] for r in _tables(db)["symbols"]] == ["alpha_renamed"]

    (repo.root / "deep" / "er" / "still").mkdir(parents=True)  # files created inside new directories
    (repo.root / "deep" / "er" / "still" / "x.py").write_text(_py("x"))
    (repo.root / "deep" / "y.py").write_text(_py("y"))
    assert watcher.flush() == 2
    repo.remove("a.py")
    assert watcher.flush() == 1
    assert _tables(db) == _fresh(repo.root, tmp_path)
    assert {r[0] for r in _tables(db)["files"]} == {"deep/er/still/x.py", "deep/y.py"}


def test_moves_into_within_and_out_of_the_tree(repo: Repo, tmp_path: Path, watching) -> None:
    repo.write("pkg/a.py", _py("a"))
    repo.write("pkg/sub/b.py", _py("b"))
    repo.write("solo.py", _py("solo"))
    repo.commit()
    db = repo.root / ".annals" / "annals.db"
    outside = tmp_path / "outside"
    (outside / "lib").mkdir(parents=True)
    (outside / "lib" / "c.py").write_text(_py("c"))
    watcher = watching()
    watcher.flush()

    os.rename(repo.root / "solo.py", repo.root / "renamed.py")  # a file within the tree
    os.rename(repo.root / "pkg", repo.root / "moved")  # a directory within the tree
    assert watcher.flush() == 6  # both sides of each move
    assert _tables(db) == _fresh(repo.root, tmp_path)

    os.rename(outside / "lib", repo.root / "lib")  # a directory into the tree
    assert watcher.flush() == 1
    os.rename(repo.root / "moved", outside / "moved")  # a directory out of the tree
    assert watcher.flush() == 2
    assert _tables(db) == _fresh(repo.root, tmp_path)
    assert {r[0] for r in _tables(db)["files"]} == {"renamed.py", "lib/c.py"}


def test_ignored_paths_and_annals_itself_start_nothing(repo: Repo, tmp_path: Path, watching) -> None:
    repo.write(".gitignore", "build/\n*.log\n")
    repo.write("src.py", _py("src"))
    repo.commit()
    db = repo.root / ".annals" / "annals.db"
    watcher = watching()
    watcher.flush()
    events = _events(db)

    repo.write("build/out.py", _py("generated"))
    repo.write("run.log", "noise")
    (repo.root / ".annals" / "scratch.py").write_text(_py("ours"))
    assert watcher.flush() == 0
    assert _events(db) == events

    repo.write(".gitignore", "*.log\n")  # new rules: one reconcile, and build/ comes into view
    watcher.flush()
    assert watcher.status()["reconciles"] == 2
    assert {r[0] for r in _tables(db)["files"]} == {".gitignore", "build/out.py", "src.py"}
    assert _tables(db) == _fresh(repo.root, tmp_path)


def test_nothing_is_indexed_twice(repo: Repo, annals, watching) -> None:
    repo.write("a.py", _py("a"))
    repo.commit()
    db = repo.root / ".annals" / "annals.db"
    watcher = watching()
    watcher.flush()
    events = _events(db)

    _save(repo.root / "a.py", _py("a"))  # saved as it was
    (repo.root / "a.py").touch()
    assert watcher.flush() == 1
    assert _events(db) == events
    repo.write("b.py", _py("b"))
    annals("index", "--json")  # the command line indexes b.py while the watcher runs ...
    after_cli = _events(db)
    assert after_cli > events
    watcher.flush()  # ... and the watcher, seeing the same file, appends nothing more
    assert _events(db) == after_cli
    status = json.loads(annals("status", "--json").stdout)
    assert status["pending_files"] == 0
    assert status["watcher"]["pid"] == os.getpid() and status["watcher"]["ready"] is True


def test_the_owner_catches_up_with_events_appended_by_others(repo: Repo, watching) -> None:
    repo.write("a.py", _py("a"))
    repo.commit()
    db = repo.root / ".annals" / "annals.db"
    watcher = watching()
    watcher.flush()
    other = connect(db)  # a hook's connection: it appends, and leaves the projections to the owner
    with transaction(other):
        append(other, [FileSkipped("a.py", "too large", "a test's claim")], source="hook")
    other.close()
    watcher.flush()
    assert _tables(db)["files"][0][:3] == ("a.py", "skipped", "too large: a test's claim")
    assert watcher.status()["log_position"] == _events(db)


def test_a_checkout_storm_is_one_reconcile(repo: Repo, tmp_path: Path, watching) -> None:
    # Fewer than 64 files per revision: the indexer parses them in-process, which keeps this fast.
    for i in range(60):
        repo.write(f"m/f{i:03}.py", _py(f"main_{i}"))
    repo.commit("main")
    repo.git("checkout", "-q", "-b", "other")
    changed, removed = set(range(0, 60, 2)), set(range(1, 60, 6))
    for i in changed:
        repo.write(f"m/f{i:03}.py", _py(f"other_{i}"))
    for i in removed:
        repo.remove(f"m/f{i:03}.py")
    for i in range(3):
        repo.write(f"n/g{i:03}.py", _py(f"new_{i}"))
    repo.commit("other")
    repo.git("checkout", "-q", "main")
    db = repo.root / ".annals" / "annals.db"
    watcher = watching(storm_paths=20)  # the default is 500; this checkout touches 43 files
    watcher.flush()
    assert watcher.status()["reconciles"] == 1

    repo.git("checkout", "-q", "other")
    watcher.flush()
    state = watcher.status()
    assert state["reconciles"] == 2 and state["batches"] == 2  # the start-up reconcile, then this one
    assert state["last_batch"]["reconcile"] == "a burst of over 20 paths"
    assert state["last_batch"]["indexed"] == len(changed - removed) + 3
    assert state["last_batch"]["removed"] == len(removed)
    assert state["head_matches"] and state["indexed_head"] == repo.git("rev-parse", "HEAD").strip()
    assert _tables(db) == _fresh(repo.root, tmp_path)

    repo.git("checkout", "-q", "main")
    watcher.flush()
    assert watcher.status()["reconciles"] == 3
    assert _tables(db) == _fresh(repo.root, tmp_path)
    events = _events(db)
    repo.git("checkout", "-q", "main")  # already there: nothing changes, nothing is appended
    watcher.flush()
    assert _events(db) == events


def test_a_random_run_of_file_operations_ends_equal_to_a_fresh_index(repo: Repo, tmp_path: Path, watching) -> None:
    rng = random.Random(6)
    outside = tmp_path / "outside"
    outside.mkdir()
    repo.write("seed/s.py", _py("seed"))
    repo.commit()
    watcher = watching()
    watcher.flush()
    names = itertools.count()

    def files() -> list[Path]:
        return sorted(p for p in repo.root.rglob("*.py") if ".annals" not in p.parts and ".git" not in p.parts)

    def dirs() -> list[Path]:
        return sorted(
            p for p in repo.root.rglob("*") if p.is_dir() and ".annals" not in p.parts and ".git" not in p.parts
        )

    done: list[list[str]] = []  # each round's operations, said when the index differs (a rare flake, 2026-12-04)

    def step() -> None:
        kind = rng.choice(["new", "new", "save", "save", "rename", "delete", "mkdir", "move_dir", "out", "in"])
        done[-1].append(kind)
        existing, folders = files(), dirs()
        if kind == "new" or not existing:
            base = rng.choice([repo.root, *folders])
            (base / f"n{next(names)}.py").write_text(_py(f"n{next(names)}"))
        elif kind == "save":
            _save(rng.choice(existing), _py(f"saved{next(names)}"))
        elif kind == "rename":
            os.rename(rng.choice(existing), rng.choice([repo.root, *folders]) / f"r{next(names)}.py")
        elif kind == "delete":
            rng.choice(existing).unlink()
        elif kind == "mkdir":
            deep = repo.root / f"d{next(names)}" / f"e{next(names)}"
            deep.mkdir(parents=True)
            (deep / "inner.py").write_text(_py(f"inner{next(names)}"))
        elif kind == "move_dir" and folders:
            source = rng.choice(folders)
            target = repo.root / f"m{next(names)}"
            os.rename(source, target)
        elif kind == "out" and folders:
            os.rename(rng.choice(folders), outside / f"o{next(names)}")
        elif kind == "in" and list(outside.iterdir()):
            os.rename(rng.choice(sorted(outside.iterdir())), repo.root / f"i{next(names)}")

    for round_ in range(12):
        done.append([])
        for _ in range(rng.randint(1, 5)):  # several operations in one batch: coalesced paths
            step()
        watcher.flush()
        if round_ % 4 == 3:
            said = (round_, watcher.status()["mode"], done)
            assert _tables(repo.root / ".annals" / "annals.db") == _fresh(repo.root, tmp_path), said


def test_a_directory_moved_out_and_back_in_under_another_name_is_still_watched(
    repo: Repo, tmp_path: Path, watching
) -> None:
    """One inode, two paths: the move-out is handled after the move-in (watchdog holds an unpaired move-out back
    half a second), and must not take the watch the directory has under its new name (watchdog 7.1.1 does)."""
    repo.write("seed/s.py", _py("seed"))
    repo.commit()
    watcher = watching()
    watcher.flush()
    (tmp_path / "outside").mkdir()
    os.rename(repo.root / "seed", tmp_path / "outside" / "seed")
    os.rename(tmp_path / "outside" / "seed", repo.root / "back")
    watcher.flush()
    time.sleep(1.0)  # past watchdog's move-out delay: the move-out has been handled
    (repo.root / "back" / "s.py").unlink()
    (repo.root / "back" / "n.py").write_text(_py("n"))
    watcher.flush()
    assert [row[0] for row in _tables(repo.root / ".annals" / "annals.db")["files"]] == ["back/n.py"]


def test_an_inotify_overflow_turns_into_one_reconcile(repo: Repo, tmp_path: Path, watching) -> None:
    from watchdog.observers.inotify_c import InotifyConstants, InotifyEvent

    repo.write("a.py", _py("a"))
    repo.commit()
    watcher = watching()
    watcher.flush()
    repo.write("b.py", _py("b"))
    # The kernel's word for "events were lost", as the inotify reader receives it.
    watcher._observer.inotify_fd.handle_event(InotifyEvent(-1, InotifyConstants.IN_Q_OVERFLOW, 0, b""))
    watcher.flush()
    state = watcher.status()
    assert state["reconciles"] == 2 and "overflowed" in state["last_batch"]["reconcile"]
    assert _tables(repo.root / ".annals" / "annals.db") == _fresh(repo.root, tmp_path)


def test_a_second_watcher_stands_by_and_takes_over(repo: Repo, tmp_path: Path, watching) -> None:
    repo.write("a.py", _py("a"))
    repo.commit()
    first = watching()
    first.flush()
    with pytest.raises(LockHeld, match=f"pid {os.getpid()} already watches this index"):
        Watcher(repo.root, repo.root / ".annals" / "annals.db", standby=False).start()
    second = watching()
    assert second.status()["role"] == "standby" and second.flush() == 0
    first.stop()
    repo.write("b.py", _py("b"))
    deadline = time.monotonic() + 10
    while not second.status()["ready"]:  # it asks for the lock every STANDBY_RETRY_SECONDS
        assert time.monotonic() < deadline, second.status()
        time.sleep(0.05)
    second.flush()
    assert second.status()["role"] == "owner"
    assert _tables(repo.root / ".annals" / "annals.db") == _fresh(repo.root, tmp_path)


def test_a_watcher_standing_by_says_when_the_owner_changed_the_code(repo: Repo, watching) -> None:
    # A second `annals serve` on the index (a second agent session) answers its last pack again then too.
    from codeannals.indexer.watching.watch import STANDBY_RETRY_SECONDS

    repo.write("a.py", _py("a"))
    repo.commit()
    first = watching()
    first.flush()
    noticed: list[dict[str, object]] = []
    second = watching(on_batch=noticed.append)
    deadline = time.monotonic() + 6 * STANDBY_RETRY_SECONDS
    for number in itertools.count():  # changes until one lands between two of its looks
        assert time.monotonic() < deadline, second.status()
        repo.write(f"new_{number}.py", _py(f"new_{number}"))
        first.flush()
        time.sleep(0.5)
        if noticed:
            break
    assert second.status()["role"] == "standby"
    assert noticed[0]["by"] == os.getpid() and noticed[0]["events"] >= 1 and noticed[0]["indexed"] == 0


def test_polling_watches_the_same(repo: Repo, tmp_path: Path, watching) -> None:
    repo.write("a.py", _py("a"))
    repo.commit()
    watcher = watching(polling=True, poll_interval=0.05)
    watcher.flush()
    assert watcher.status()["mode"] == "polling"
    _save(repo.root / "a.py", _py("a2"))
    os.makedirs(repo.root / "d")
    (repo.root / "d" / "c.py").write_text(_py("c"))
    assert watcher.flush() == 2
    assert _tables(repo.root / ".annals" / "annals.db") == _fresh(repo.root, tmp_path)


# --- the command line ------------------------------------------------------------------------------


def _until(check: Callable[[], object], what: str, seconds: float = 15.0) -> object:
    """Poll a separate process's observable state (never a fixed sleep), failing after `seconds`."""
    deadline = time.monotonic() + seconds
    while not (result := check()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)
    return result


def test_watch_daemon_starts_reports_and_stops(repo: Repo, annals) -> None:
    repo.write("a.py", _py("a"))
    repo.commit()
    started = json.loads(annals("watch", "--daemon", "--json").stdout)
    pid = started["pid"]
    try:
        assert started["ready"] is True and started["kind"] == "daemon" and started["mode"] == "inotify"
        assert (repo.root / ".annals" / "logs" / "watch.pid").read_text().strip() == str(pid)
        assert WriterLock(repo.root / ".annals" / "writer.lock").owner() == pid
        status = json.loads(annals("watch", "status", "--json").stdout)
        assert status["running"] and status["watcher"]["pid"] == pid and status["pending_files"] == 0
        assert json.loads(annals("status", "--json").stdout)["watcher"]["pid"] == pid
        again = annals("watch", "--daemon", check=False)
        assert again.returncode == 1 and f"pid {pid}" in again.stderr

        repo.write("b.py", _py("b_from_the_daemon"))
        _until(lambda: json.loads(annals("search", "b_from_the_daemon", "--json").stdout), "the daemon to index b.py")
    finally:
        stopped = json.loads(annals("watch", "stop", "--json").stdout)
    assert stopped == {"stopped": pid, "forced": False, "running": False}
    assert not (repo.root / ".annals" / "logs" / "watch.pid").exists()
    assert WriterLock(repo.root / ".annals" / "writer.lock").owner() is None
    assert json.loads(annals("watch", "status", "--json").stdout)["running"] is False
    assert "no watcher runs" in annals("watch", "stop").stdout
    log = (repo.root / ".annals" / "logs" / "watch.log").read_text()
    assert "the index matches the tree" in log and "stopped watching" in log


def test_watch_in_the_foreground_stops_cleanly_on_ctrl_c(repo: Repo) -> None:
    repo.write("a.py", _py("a"))
    repo.commit()
    exe = Path(sys.executable).parent / "annals"
    proc = subprocess.Popen(
        [str(exe), "watch", "--json"], cwd=repo.root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stderr is not None
        for line in proc.stderr:
            if "the index matches the tree" in line:
                break
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=15)
    finally:
        proc.kill()
    assert proc.returncode == 0
    final = json.loads(out)
    assert final["ready"] is True and final["reconciles"] == 1
    assert WriterLock(repo.root / ".annals" / "writer.lock").owner() is None


UNSHARE = "/usr/bin/unshare"
WATCH_WITH_FEW_WATCHES = textwrap.dedent("""
    import json, logging, sys
    from pathlib import Path
    from codeannals.indexer.watching.watch import Watcher
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    root = Path(sys.argv[1])
    watcher = Watcher(root, root / ".annals" / "annals.db", debounce=3600, poll_interval=0.05)
    watcher.start()
    watcher.flush()
    (root / "d07" / "late.py").write_text("def late():\\n    return 1\\n")
    handled = watcher.flush()
    print(json.dumps({"mode": watcher.status()["mode"], "handled": handled}))
    watcher.stop()
""")


def _can_limit_watches() -> bool:
    """Whether a user namespace of our own, with its own inotify limits, can be made here."""
    if not os.path.exists(UNSHARE):
        return False
    probe = subprocess.run(
        [UNSHARE, "-U", "-r", "sh", "-c", "echo 5 > /proc/sys/user/max_inotify_watches"], capture_output=True
    )
    return probe.returncode == 0


@pytest.mark.skipif(not _can_limit_watches(), reason="needs unshare and per-namespace inotify limits")
def test_the_watch_limit_falls_back_to_polling_and_names_the_sysctl(repo: Repo, db_path: Path) -> None:
    for i in range(30):
        repo.write(f"d{i:02}/m.py", _py(f"m{i}"))
    repo.commit()
    script = f'echo 10 > /proc/sys/user/max_inotify_watches && exec {sys.executable} -c "$0" "$1"'
    proc = subprocess.run(
        [UNSHARE, "-U", "-r", "sh", "-c", script, WATCH_WITH_FEW_WATCHES, str(repo.root)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"mode": "polling", "handled": 1}
    assert "fs.inotify.max_user_watches" in proc.stderr and "polling" in proc.stderr
    conn = sqlite3.connect(repo.root / ".annals" / "annals.db")
    assert conn.execute("SELECT COUNT(*) FROM files").fetchone()[0] == 31
    conn.close()
