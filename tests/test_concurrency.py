"""Many writers at once: appends queue on the write lock instead of failing, nothing is lost, and
the write-ahead log stays bounded while readers keep reading."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
from pathlib import Path

from codeannals.indexer.run import index_tree
from codeannals.store import log, open_store, transaction
from codeannals.store.events import FileRemoved
from codeannals.store.maintenance import verify

WRITER = textwrap.dedent("""
    import sys
    from codeannals.store import open_store, transaction, log
    from codeannals.store.events import FileRemoved
    conn = open_store(sys.argv[1], catch_up_now=False)
    for i in range(int(sys.argv[3])):
        with transaction(conn):
            log.append(conn, [FileRemoved(f"{sys.argv[2]}/{i}.py")], source="hook")
""")


def test_twenty_processes_append_while_the_indexer_runs(repo, db_path: Path) -> None:
    for i in range(150):
        repo.write(f"m{i}.py", f"def f{i}():\n    return {i}\n")
    conn = open_store(db_path)
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(db_path), f"w{n}", "25"], stderr=subprocess.PIPE, text=True)
        for n in range(20)
    ]
    index_tree(repo.root, conn)
    errors = [w.communicate(timeout=120)[1] for w in writers]
    assert [w.returncode for w in writers] == [0] * 20, errors
    assert not any("locked" in e for e in errors)
    hook_events = conn.execute("SELECT COUNT(*) FROM events WHERE source = 'hook'").fetchone()[0]
    assert hook_events == 20 * 25
    assert verify(conn)["ok"]


def test_wal_stays_bounded_while_a_reader_keeps_reading(db_path: Path) -> None:
    conn = open_store(db_path)
    reader = open_store(db_path)
    stop = threading.Event()

    def read_forever() -> None:
        while not stop.is_set():
            reader.execute("SELECT COUNT(*) FROM events").fetchone()

    thread = threading.Thread(target=read_forever)
    thread.start()
    wal = Path(f"{db_path}-wal")
    largest = 0
    try:
        payload_path = "x" * 2000
        for batch in range(60):  # about 25 MB of events in all
            with transaction(conn):
                log.append(conn, [FileRemoved(f"{payload_path}/{batch}/{i}") for i in range(200)], source="cli")
            largest = max(largest, wal.stat().st_size)
    finally:
        stop.set()
        thread.join()
    assert largest < 12 * 1024 * 1024, f"the WAL grew to {largest} bytes"
    assert log.head(conn) == 60 * 200


def test_threads_parse_at_once_without_crashing_the_process(tmp_path: Path) -> None:
    # `annals serve` parses in its watcher and in answers that index a file first; one tree-sitter parser shared
    # by both crashed the server with SIGSEGV under bench/load_bench.py. A crash kills the process: a child runs it.
    source = tmp_path / "big.py"
    source.write_text("".join(f"def f{i}(x):\n    return [y * {i} for y in x if y]\n\n" for i in range(3000)))
    script = textwrap.dedent(
        f"""
        import sys, threading
        from codeannals.indexer.parsing.parse import parse
        source = open({str(source)!r}, "rb").read()
        def work():
            for _ in range(20):
                assert parse(source, "python").root_node.child_count == 3000
        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads: t.start()
        for t in threads: t.join()
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
