"""The events of the log: past-tense, frozen, JSON-safe. The stored `type` is a dotted string.

Every class registers itself under its `TYPE`, so a stored row reads back as its class
(`decode`), and lifts its own older payloads: `upcast_v1_v2` and so on, static methods on the
class, as pyeventsourcing's mapper finds them. How rows are stored (canonical JSON, sources) is
`log`'s business; the one way to write them is `writer.writing`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

from .symbol import Symbol

Payload = dict[str, Any]
Upcaster = Callable[[Payload], Payload]

_REGISTRY: dict[str, type[Event]] = {}  # stored type -> its class


class UnknownEventType(LookupError):
    """A stored type no class of this code registers (a newer annals wrote it)."""


@dataclass(frozen=True)
class Event:
    TYPE: ClassVar[str]
    VERSION: ClassVar[int] = 1
    _UPCASTERS: ClassVar[tuple[Upcaster, ...]] = ()  # [v - 1] lifts version v to v + 1

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "TYPE" not in cls.__dict__:
            return  # a base of other events (WorkflowEvent): never stored itself
        taken = _REGISTRY.get(cls.TYPE)
        if taken is not None:
            raise TypeError(
                f"event type {cls.TYPE!r} of {cls.__module__}.{cls.__qualname__} is taken by "
                f"{taken.__module__}.{taken.__qualname__}: give the new class a type of its own"
            )
        missing = [f"upcast_v{v}_v{v + 1}" for v in range(1, cls.VERSION) if not hasattr(cls, f"upcast_v{v}_v{v + 1}")]
        if missing:
            raise TypeError(
                f"{cls.__qualname__} is at VERSION {cls.VERSION} but has no {', '.join(missing)}: stored payloads "
                "of older versions would not read; add the static method that lifts each one a version up"
            )
        cls._UPCASTERS = tuple(getattr(cls, f"upcast_v{v}_v{v + 1}") for v in range(1, cls.VERSION))
        _REGISTRY[cls.TYPE] = cls

    def stream(self) -> str:
        raise NotImplementedError

    def payload(self) -> Payload:
        # Shallow on purpose: dataclasses.asdict deep-copies every nested list, which dominated
        # the cost of a cold index.
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def upcast(cls, version: int, payload: Payload) -> Payload:
        """A payload stored at `version`, lifted to this class's VERSION (stored rows are never rewritten)."""
        for lift in cls._UPCASTERS[version - 1 :]:
            payload = lift(payload)
        return payload


def event_class(event_type: str) -> type[Event]:
    """The class stored as `event_type`."""
    try:
        return _REGISTRY[event_type]
    except KeyError:
        raise UnknownEventType(
            f"no event class has type {event_type!r}: a newer annals wrote it; upgrade annals to read this event"
        ) from None


def upcast(event_type: str, version: int, payload: Payload) -> Payload:
    """A stored payload at its class's current version; a type no class knows stays as stored."""
    cls = _REGISTRY.get(event_type)
    return payload if cls is None or version >= cls.VERSION else cls.upcast(version, payload)


def decode(event_type: str, payload: Payload) -> Event:
    """A payload, upcast to its class's version already (as `log.read` gives it), as its class."""
    return event_class(event_type)(**payload)


# --- streams: one spelling each (readers find a file's or a symbol's history by them) ----------


def file_stream(path: str) -> str:
    return f"file:{path}"


def symbol_stream(symbol_id: str) -> str:
    return f"symbol:{symbol_id}"


def commit_stream(commit: str) -> str:
    return f"commit:{commit}"


def rewrite_stream(old: str) -> str:
    return f"rewrite:{old}"


@dataclass(frozen=True)
class FileIndexed(Event):
    """A file's current facts: everything about it except its symbols, which have events of their own."""

    TYPE: ClassVar[str] = "file.indexed"
    VERSION: ClassVar[int] = 2  # 2: each call carries `ref`, what its callee names in the file (or None)
    path: str
    language: str
    content_hash: str
    size: int
    lines: int
    module: str = ""  # the name other files import it by (`pkg.mod`), "" when it has none
    module_doc: str | None = None
    declared_api: list[str] | None = None  # Python `__all__`, when the module declares one
    generated: bool = False  # its head says a tool wrote it, not to be edited by hand; False in older events
    imports: list[dict[str, Any]] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)
    tags: list[dict[str, Any]] = field(default_factory=list)
    # No longer written: the contracts projection finds effects from `calls` and `imports` by the
    # rules of data/side_effects.json, so new rules reach old events on replay. Old events keep it.
    effects: list[dict[str, Any]] = field(default_factory=list)
    spans: dict[str, list[int]] = field(default_factory=dict)  # symbol id -> [start_line, end_line]
    # a class's fields with a declared type, {owner (the class's id), name, type}; none in older events
    fields: list[dict[str, Any]] = field(default_factory=list)
    # JavaScript's exports under other names than the definitions' own, {name: definition}: `default`, what the
    # module exports as itself (`module.exports = Agent`); none in older events
    exported_as: dict[str, str] = field(default_factory=dict)
    # Python's web routes, {symbol, method, path}, and the prefixes the file mounts routes under; none in older events
    routes: list[dict[str, Any]] = field(default_factory=list)
    route_prefixes: list[str] = field(default_factory=list)

    def stream(self) -> str:
        return file_stream(self.path)

    @staticmethod
    def upcast_v1_v2(payload: Payload) -> Payload:
        """Calls indexed before `ref` existed resolve by name only."""
        return {**payload, "calls": [{**c, "ref": None} for c in payload.get("calls", [])]}


@dataclass(frozen=True)
class FileOutlined(Event):
    """A file made search-ready (tier 1): its definitions with names, kinds, spans, signatures and
    docs, in one event. Hashes, imports, calls, contracts and tags come with the `file.indexed`
    that completes it (tier 2), which then adds its symbols one event each as a first index does.

    Written only for a file the index has no complete facts of (a cold index, a new file), so a
    completed file's symbol events always compare with complete facts."""

    TYPE: ClassVar[str] = "file.outlined"
    path: str
    language: str
    content_hash: str
    size: int
    lines: int
    module: str = ""
    module_doc: str | None = None
    generated: bool = False
    symbols: list[Symbol] = field(default_factory=list)  # without signature_hash and body_hash (None)

    def stream(self) -> str:
        return file_stream(self.path)


@dataclass(frozen=True)
class FileSkipped(Event):
    TYPE: ClassVar[str] = "file.skipped"
    path: str
    reason: str
    detail: str = ""
    content_hash: str | None = None
    size: int = 0

    def stream(self) -> str:
        return file_stream(self.path)


@dataclass(frozen=True)
class FileRemoved(Event):
    TYPE: ClassVar[str] = "file.removed"
    path: str

    def stream(self) -> str:
        return file_stream(self.path)


def _symbol_without_overloads(payload: Payload) -> Payload:
    """symbol.added / symbol.changed 1 -> 2: before overload sets, every stub was its own symbol."""
    return {**payload, "symbol": {**payload["symbol"], "overloads": payload["symbol"].get("overloads", [])}}


@dataclass(frozen=True)
class SymbolAdded(Event):
    TYPE: ClassVar[str] = "symbol.added"
    VERSION: ClassVar[int] = 2  # 2: `symbol.overloads`, the stub signatures of an overload set
    symbol: Symbol

    def stream(self) -> str:
        return symbol_stream(self.symbol["id"])

    upcast_v1_v2 = staticmethod(_symbol_without_overloads)


@dataclass(frozen=True)
class SymbolChanged(Event):
    TYPE: ClassVar[str] = "symbol.changed"
    VERSION: ClassVar[int] = 2  # as symbol.added
    symbol: Symbol
    changed: list[str]  # "signature", "body", or both; or "details" alone (doc, parent, export, layout)
    before: dict[str, Any]

    def stream(self) -> str:
        return symbol_stream(self.symbol["id"])

    upcast_v1_v2 = staticmethod(_symbol_without_overloads)


@dataclass(frozen=True)
class SymbolRemoved(Event):
    TYPE: ClassVar[str] = "symbol.removed"
    id: str
    path: str
    qualname: str
    kind: str

    def stream(self) -> str:
        return symbol_stream(self.id)


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
    body: str = ""  # the message after its title, trailers left out (recorded since 2026-11-25)

    def stream(self) -> str:
        return commit_stream(self.commit)


@dataclass(frozen=True)
class CommitRewritten(Event):
    """An amend or a rebase replaced commit `old` by `new` (git's post-rewrite list)."""

    TYPE: ClassVar[str] = "commit.rewritten"
    old: str
    new: str
    kind: str  # "amend" or "rebase"

    def stream(self) -> str:
        return rewrite_stream(self.old)


@dataclass(frozen=True)
class CommitDescribed(Event):
    """The body of a commit recorded before `commit.recorded` carried one (2026-11-25), read again from git:
    events are never rewritten, and the history the ranking matches is the whole message."""

    TYPE: ClassVar[str] = "commit.described"
    commit: str
    body: str

    def stream(self) -> str:
        return commit_stream(self.commit)


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


# --- memory: conversations, learned mistakes, session rules, tool calls (the MCP server) -------


@dataclass(frozen=True)
class MessageAdded(Event):
    """A message of a conversation context; the first one creates the context."""

    TYPE: ClassVar[str] = "context.message_added"
    context_id: str
    role: str  # user | assistant
    content: str
    importance: str = "MEDIUM"  # LOW | MEDIUM | HIGH | CRITICAL
    tags: list[str] = field(default_factory=list)

    def stream(self) -> str:
        return f"context:{self.context_id}"


@dataclass(frozen=True)
class ContextSummarized(Event):
    """An extractive summary of a context's messages, made when asked or past the threshold."""

    TYPE: ClassVar[str] = "context.summarized"
    context_id: str
    summary: str
    code_blocks: list[dict[str, Any]]  # language, code, importance
    key_insights: list[str]
    importance_score: float
    message_count: int
    version: int
    tokens_used: int
    token_limit: int
    trigger: str  # "threshold" or "request"

    def stream(self) -> str:
        return f"context:{self.context_id}"


@dataclass(frozen=True)
class ContextLinked(Event):
    """A relationship from a context to another context, a symbol or a module."""

    TYPE: ClassVar[str] = "context.linked"
    source: str  # a context id
    target: str  # a context id, a symbol id, or a repository-relative path
    target_kind: str  # context | symbol | module
    relationship_type: str  # similar | continues | references | parent | child
    weight: float = 0.8

    def stream(self) -> str:
        return f"context:{self.source}"


@dataclass(frozen=True)
class LessonLearned(Event):
    """A mistake (or preference, or success) and how it was put right, under a category."""

    TYPE: ClassVar[str] = "learning.recorded"
    category: str
    mistake: str
    solution: str = ""
    kind: str = "mistake"  # mistake | preference | success
    session_id: str | None = None

    def stream(self) -> str:
        return f"learning:{self.category}"


@dataclass(frozen=True)
class SessionRuleAdded(Event):
    TYPE: ClassVar[str] = "session.rule_added"
    session_id: str
    rule: str

    def stream(self) -> str:
        return f"session:{self.session_id}"


@dataclass(frozen=True)
class SessionRulesReset(Event):
    TYPE: ClassVar[str] = "session.rules_reset"
    session_id: str
    rules: list[str]

    def stream(self) -> str:
        return f"session:{self.session_id}"


@dataclass(frozen=True)
class ToolCalled(Event):
    """One MCP tool call: for metrics, and as activity of the session it names."""

    TYPE: ClassVar[str] = "tool.called"
    tool: str
    at: str  # when the call started (ISO 8601, UTC); calls are appended in batches, later
    duration_ms: float
    ok: bool
    session_id: str | None = None
    context_id: str | None = None

    def stream(self) -> str:
        return f"tool:{self.tool}"
