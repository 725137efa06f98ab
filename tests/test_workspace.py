"""The members of a workspace a task names keep its ranking to them."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from codeannals.indexer.run import index_tree
from codeannals.store import open_store
from codeannals.store.ranking import rank_task
from codeannals.store.workspace import members_named, workspace_members

from .conftest import Repo

SERVER = """pub struct Server { port: u16 }

impl Server {
    /// Set the port: a dynamic port setting, the port chosen when the server binds.
    pub fn port(mut self, port: u16) -> Self { self.port = port; self }
    pub fn dynamic_port(self) -> Self { self.port(0) }
}
"""


@pytest.fixture
def conn(db_path: Path) -> Iterator[sqlite3.Connection]:
    c = open_store(db_path)
    yield c
    c.close()


def crate(name: str) -> str:
    return f'[package]\nname = "{name}"\nversion = "0.1.0"\n'


def test_a_member_the_task_names_holds_the_files_that_rank(repo: Repo, conn: sqlite3.Connection) -> None:
    # As actix-web's workspace: `actix-test: allow dynamic port setting` is a change to actix-test, though the
    # words match the server of another crate better.
    files = {
        "Cargo.toml": '[workspace]\nmembers = ["app", "crates/core", "app-test"]\n',
        "app/Cargo.toml": crate("app"),
        "app/src/lib.rs": "pub use app_core::Server;\n",
        "crates/core/Cargo.toml": crate("app-core"),  # as ripgrep's crates/printer, grep-printer
        "crates/core/src/server.rs": SERVER,
        "app-test/Cargo.toml": crate("app-test"),
        "app-test/src/lib.rs": "pub struct TestServer {}\n\npub fn start() -> TestServer { TestServer {} }\n",
        "tests/fixtures/app-fixture/package.json": '{"name": "app-fixture"}\n',
    }
    for path, text in files.items():
        repo.write(path, text)
    repo.commit("initial import")
    index_tree(repo.root, conn, source="cli")
    members = workspace_members(conn, repo.root)
    assert sorted(m.name for m in members) == ["app", "app-core", "app-test"]  # no fixture, not the top

    def first(task: str) -> str:
        return rank_task(conn, task, root=repo.root).ranked_files()[0]

    assert first("allow dynamic port setting") == "crates/core/src/server.rs"
    assert first("app-test: allow dynamic port setting") == "app-test/src/lib.rs"
    assert first("allow dynamic port setting in app_test") == "app-test/src/lib.rs"
    ranking = rank_task(conn, "fix(app-test): allow dynamic port setting", root=repo.root)
    assert ranking.why["app-test/src/lib.rs"][0] == "in app-test, which the task names"
    # `app` starts the others' names: the whole project's name, said by any task, names no part of it.
    assert [m.name for m in members_named(members, "app: allow dynamic port setting")] == []
    assert first("app: allow dynamic port setting") == "crates/core/src/server.rs"
    # A word of the prose is no name: only spelled with its separator, or as the subject's part (the folder's
    # name as well as the manifest's).
    assert [m.name for m in members_named(members, "core: allow dynamic port setting")] == ["app-core"]
    assert members_named(members, "the test server: allow dynamic port setting") == []
