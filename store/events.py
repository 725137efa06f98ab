"""The events of the log: past-tense, frozen, JSON-safe. The stored `type` is a dotted string."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

SOURCES = ("cli", "watcher", "hook", "mcp")


def canonical_json(value: Any) -> str:
    """One spelling per value, so equal payloads are equal bytes (digests, dedupe)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True)
class Event:
    TYPE: ClassVar[str]
    VERSION: ClassVar[int] = 1

    def stream(self) -> str:
        raise NotImplementedError

    def payload(self) -> dict[str, Any]:
        # Shallow on purpose: dataclasses.asdict deep-copies every nested list, which dominated
        # the cost of a cold index.
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class FileIndexed(Event):
    """A file's current facts: everything about it except its symbols, which have events of their own."""

    TYPE: ClassVar[str] = "file.indexed"
    path: str
    language: str
    content_hash: str
    size: int
    lines: int
    module: str = ""  # the name other files import it by (`pkg.mod`), "" when it has none
    module_doc: str | None = None
    declared_api: list[str] | None = None  # Python `__all__`, when the module declares one
    imports: list[dict[str, Any]] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)
    tags: list[dict[str, Any]] = field(default_factory=list)
    effects: list[dict[str, Any]] = field(default_factory=list)
    spans: dict[str, list[int]] = field(default_factory=dict)  # symbol id -> [start_line, end_line]

    def stream(self) -> str:
        return f"file:{self.path}"


@dataclass(frozen=True)
class FileSkipped(Event):
    TYPE: ClassVar[str] = "file.skipped"
    path: str
    reason: str
    detail: str = ""
    content_hash: str | None = None
    size: int = 0

    def stream(self) -> str:
        return f"file:{self.path}"


@dataclass(frozen=True)
class FileRemoved(Event):
    TYPE: ClassVar[str] = "file.removed"
    path: str

    def stream(self) -> str:
        return f"file:{self.path}"


@dataclass(frozen=True)
class SymbolAdded(Event):
    TYPE: ClassVar[str] = "symbol.added"
    symbol: dict[str, Any]

    def stream(self) -> str:
        return f"symbol:{self.symbol['id']}"


@dataclass(frozen=True)
class SymbolChanged(Event):
    TYPE: ClassVar[str] = "symbol.changed"
    symbol: dict[str, Any]
    changed: list[str]  # "signature", "body", or both
    before: dict[str, Any]

    def stream(self) -> str:
        return f"symbol:{self.symbol['id']}"


@dataclass(frozen=True)
class SymbolRemoved(Event):
    TYPE: ClassVar[str] = "symbol.removed"
    id: str
    path: str
    qualname: str
    kind: str

    def stream(self) -> str:
        return f"symbol:{self.id}"


# --- git: commits, rewrites, safe points, conflicts ------------------------------------------

@dataclass(frozen=True)
class CommitRecorded(Event):
    """A commit and what it changed at symbol level: one per commit id, whoever saw it first."""

    TYPE: ClassVar[str] = "commit.recorded"
    commit: str
    parents: list[str]
    author: str  # "Name <email>"
    authored_at: str  # ISO 8601, UTC
    committed_at: str
    title: str
    origin: str  # "hook", "history" (backfill) or "annals" (annals commit / git_commit_with_context)
    agent: str | None = None
    goal_id: str | None = None
    trailers: dict[str, list[str]] = field(default_factory=dict)
    changed_symbols: list[dict[str, Any]] = field(default_factory=list)  # id, status, changed, ...
    deleted_symbols: list[dict[str, Any]] = field(default_factory=list)
    renamed_symbols: list[dict[str, Any]] = field(default_factory=list)  # from, to, similarity, ...
    modules: list[str] = field(default_factory=list)
    tests: list[str] = field(default_factory=list)
    files_changed: int = 0

    def stream(self) -> str:
        return f"commit:{self.commit}"


@dataclass(frozen=True)
class CommitRewritten(Event):
    """An amend or a rebase replaced commit `old` by `new` (git's post-rewrite list)."""

    TYPE: ClassVar[str] = "commit.rewritten"
    old: str
    new: str
    kind: str  # "amend" or "rebase"

    def stream(self) -> str:
        return f"rewrite:{self.old}"


@dataclass(frozen=True)
class SafePointCreated(Event):
    """The whole state (HEAD, index, work tree, untracked files) saved under a ref before a risky step."""

    TYPE: ClassVar[str] = "safepoint.created"
    name: str
    ref: str
    commit: str  # the snapshot commit the ref points at
    head: str | None
    branch: str | None
    reason: str

    def stream(self) -> str:
        return f"safepoint:{self.name}"


@dataclass(frozen=True)
class ConflictResolved(Event):
    """A step taken on a merge, rebase or cherry-pick conflict, with the notes given."""

    TYPE: ClassVar[str] = "conflict.resolved"
    operation: str  # merge, rebase, cherry-pick, revert, or none
    strategy: str
    files: list[str]
    resolved: list[str]
    remaining: list[str]
    notes: str = ""

    def stream(self) -> str:
        return "git:conflicts"


# (type, stored version) -> function lifting that payload one version up. Stored rows are never
# rewritten; readers upcast on the way out.
UPCASTERS: dict[tuple[str, int], Any] = {}


def upcast(event_type: str, version: int, payload: dict[str, Any]) -> dict[str, Any]:
    while (event_type, version) in UPCASTERS:
        payload = UPCASTERS[(event_type, version)](payload)
        version += 1
    return payload
