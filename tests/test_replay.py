"""Property: for any sequence of edits, renames, deletions, commits, index runs, outlines (tier 1)
and completions (tier 2), the live projections equal a replay of the log, and once complete equal a
fresh one-pass index of the final tree."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import tempfile
from pathlib import Path

from codeannals.indexer.complete import complete
from codeannals.indexer.run import index_tree
from codeannals.store import open_store
from codeannals.store.maintenance import verify
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

BODIES = [
    "def f():\n    return 1\n",
    "def f():\n    return 2\n",
    "def f(a):\n    return a\n",
    "class C:\n    def m(self):\n        return 1\n\ndef f():\n    pass\n",
    "import pkg.b\n\ndef g():\n    return pkg.b.f()\n",
    "from . import a\n# req: R-1\ndef h():\n    a.f()\n",
    "",
    "def broken(:\n",
]
NAMES = ["pkg/a.py", "pkg/b.py", "pkg/c.py", "d.py"]

step = st.one_of(
    st.tuples(st.just("write"), st.sampled_from(NAMES), st.sampled_from(BODIES)),
    st.tuples(st.just("delete"), st.sampled_from(NAMES), st.none()),
    st.tuples(st.just("rename"), st.sampled_from(NAMES), st.sampled_from(NAMES)),
    st.tuples(st.just("commit"), st.none(), st.none()),
    st.tuples(st.just("index"), st.none(), st.none()),
    st.tuples(st.just("outline"), st.none(), st.none()),
    st.tuples(st.just("complete"), st.sampled_from(NAMES), st.booleans()),
)


def snapshot(conn: sqlite3.Connection) -> dict[str, list[tuple]]:
    return {
        "files": conn.execute("SELECT path, status, content_hash, module FROM files ORDER BY path").fetchall(),
        "symbols": conn.execute(
            "SELECT id, kind, start_line, end_line, signature_hash, body_hash, parent FROM symbols ORDER BY id"
        ).fetchall(),
        "imports": conn.execute("SELECT path, module, target FROM resolved_imports ORDER BY path, ordinal").fetchall(),
        "tags": conn.execute("SELECT * FROM requirement_tags ORDER BY tag, path").fetchall(),
        "full text": conn.execute("SELECT id FROM symbols_fts ORDER BY id").fetchall(),  # each symbol once
    }


def run(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(step, min_size=1, max_size=12))
def test_live_state_equals_replay_and_fresh_index(steps: list[tuple]) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "repo"
        (root / "pkg").mkdir(parents=True)
        (root / "pkg/__init__.py").write_text("")
        run(root, "init", "-q")
        conn = open_store(Path(scratch) / "live.db")
        for action, name, arg in steps:
            path = root / name if name else None
            if action == "write":
                path.write_text(arg)
            elif action == "delete" and path.exists():
                path.unlink()
            elif action == "rename" and path.exists() and name != arg:
                shutil.move(path, root / arg)
            elif action == "commit":
                run(root, "add", "-A")
                run(root, "commit", "-q", "--allow-empty", "-m", "step")
            elif action == "index":
                index_tree(root, conn)
            elif action == "outline":
                index_tree(root, conn, outline_from=1)
            elif action == "complete":  # one file (as an answer does on demand) or all
                complete(root, conn, only=[name] if arg else None)
            assert verify(conn)["ok"]
        index_tree(root, conn)
        complete(root, conn)
        assert verify(conn)["ok"]
        fresh = open_store(Path(scratch) / "fresh.db")
        index_tree(root, fresh)
        assert snapshot(conn) == snapshot(fresh)
        assert index_tree(root, conn).events == 0
