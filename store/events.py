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


# (type, stored version) -> function lifting that payload one version up. Stored rows are never
# rewritten; readers upcast on the way out.
UPCASTERS: dict[tuple[str, int], Any] = {}


def upcast(event_type: str, version: int, payload: dict[str, Any]) -> dict[str, Any]:
    while (event_type, version) in UPCASTERS:
        payload = UPCASTERS[(event_type, version)](payload)
        version += 1
    return payload
