"""Fixtures: real git repositories in tmp_path with isolated git config, real databases."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def isolated_git(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No user or system git config leaks into a test; commits have a fixed author."""
    home = tmp_path_factory.mktemp("home")
    config = home / ".gitconfig"
    config.write_text("[user]\n\tname = Test\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("ANNALS_DB", raising=False)
    # No background embedding after every `annals index` of every test; tests/test_vectors.py turns it on.
    monkeypatch.setenv("ANNALS_VECTORS", "off")


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout


class Repo:
    """A real git repository to write files into and commit."""

    def __init__(self, root: Path) -> None:
        self.root = root
        git(root, "init", "-q")

    def write(self, rel: str, text: str | bytes) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text)
        return path

    def remove(self, rel: str) -> None:
        (self.root / rel).unlink()

    def commit(self, message: str = "change") -> str:
        git(self.root, "add", "-A")
        git(self.root, "commit", "-q", "--allow-empty", "-m", message)
        return git(self.root, "rev-parse", "HEAD").strip()

    def git(self, *args: str) -> str:
        return git(self.root, *args)


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    root = tmp_path / "repo"
    root.mkdir()
    return Repo(root)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "annals.db"


@pytest.fixture
def store(db_path: Path) -> Iterator[object]:
    from codeannals.store import open_store

    conn = open_store(db_path)
    yield conn
    conn.close()


@pytest.fixture
def annals(repo: Repo) -> Callable[..., subprocess.CompletedProcess[str]]:
    """Run the real `annals` command line in the repository."""
    exe = Path(sys.executable).parent / "annals"  # the console script of the environment under test
    argv0 = str(exe) if exe.exists() else "annals"

    def run(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run([argv0, *args], cwd=repo.root, capture_output=True, text=True)
        if check and proc.returncode != 0:
            raise AssertionError(f"annals {' '.join(args)} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
        return proc

    return run


def indexed(repo: Repo) -> sqlite3.Connection:
    """The repository's work tree indexed into its default store, which the caller closes."""
    from codeannals.indexer.run import index_tree
    from codeannals.store import default_db_path, open_store

    conn = open_store(default_db_path(repo.root))
    index_tree(repo.root, conn)
    return conn


@contextmanager
def indexed_crate(repo: Repo, db_path: Path, name: str) -> Iterator[sqlite3.Connection]:
    """The repository's files as a Cargo package of that name, indexed: the store, open until the block ends."""
    from codeannals.indexer.run import index_tree
    from codeannals.store import open_store

    repo.write("Cargo.toml", f'[package]\nname = "{name}"\nversion = "0.1.0"\n')
    conn = open_store(db_path)
    try:
        index_tree(repo.root, conn)
        yield conn
    finally:
        conn.close()


def caller_bases(store: sqlite3.Connection, symbol_id: str) -> dict[str, str]:
    """Who calls a symbol, by caller (the file, for a call at module level), with each call's basis."""
    from codeannals.store import lookups, queries

    return {c["caller"] or c["path"]: c["basis"] for c in lookups.callers(store, queries.find_symbol(store, symbol_id))}
