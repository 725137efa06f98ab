"""The packages of a workspace (the members of a Cargo or npm workspace, each a folder with its manifest) and
the ones a task names: `actix-test: allow dynamic port setting` is a change to actix-test/, whatever its
words match in the other crates.
"""

from __future__ import annotations

import posixpath
import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from .db import held_while_unchanged
from .filekinds import indexed_kinds, manifest_name
from .lookups import is_test_path
from .tasktext import commit_scope, leading_part, squashed

MANIFESTS = ("Cargo.toml", "package.json")
# A name spelled with its separator (`actix-test`, `tokio_util`): a package's, not a word of the prose.
_SPELLED_NAME = re.compile(r"(?<![\w-])[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)+")


@dataclass(frozen=True)
class Member:
    name: str  # as its manifest gives it, lowercase, without an npm `@scope/`
    folder: str  # its manifest's folder


def workspace_members(conn: sqlite3.Connection, root: Path) -> list[Member]:
    """The members: the packages below the top of the tree, by the manifests the index holds (read from the
    work tree), tests' fixtures aside."""

    def read() -> list[Member]:
        found = []
        for path in sorted(indexed_kinds(conn)):
            folder, base = posixpath.split(path)
            if base in MANIFESTS and folder and "node_modules/" not in path and not is_test_path(path):
                name = manifest_name(root / path)
                if name:
                    found.append(Member(name, folder))
        return found if len(found) > 1 else []  # one package below the top is no workspace (a fixture)

    return held_while_unchanged(conn, "workspace packages", read)


def members_named(members: list[Member], task: str) -> list[Member]:
    """The members the task names: by a name spelled with its separator (`in actix-test`, `tokio_util::`), or
    by the part its subject starts with (`fix(ignore): ...`, `printer: ...`, a folder's name as well as the
    manifest's). Not a member whose name starts several others' (`axum` of axum-core and axum-extra, `actix-web`
    of actix-web-codegen and actix-web-actors): its name is the whole project's, written in any of its tasks;
    one other (`tokio-stream-fuzz`) is a part of it.

    Nor a scope naming a member by its name less the first part most members share (`chore(files): ...` of
    actix-files, `fix(http): ...` of actix-http), tried on 2026-12-03: localize_bench --vectors --tasks 300,
    pack file Acc@1/@5, actix-web .51/.72 -> .52/.73, the hold-out axum .55/.72 -> .55/.73, but the hold-out
    tokio .66/.86 -> .64/.86."""
    names = {m.name for m in members}
    umbrellas = {n for n in names if sum(o.startswith((f"{n}-", f"{n}_")) for o in names) > 1}
    spelled = {m.group(0).lower().replace("_", "-") for m in _SPELLED_NAME.finditer(task)}
    scope = squashed(commit_scope(task) or leading_part(task) or "")
    named = []
    for member in members:
        keys = {member.name, posixpath.basename(member.folder)}
        if member.name in umbrellas:
            continue
        if spelled & {k.replace("_", "-") for k in keys} or (scope and scope in {squashed(k) for k in keys}):
            named.append(member)
    return named
