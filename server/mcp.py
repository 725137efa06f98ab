"""The MCP server: tool families registered on one MCPServer, with the behaviour they all share.

`build_server(app)` registers the tool families chosen from the registry (server/tools/__init__.py:
each family's module adds its tools with `register(server, app)`). Every tool call then goes
through `AnnalsServer.call_tool`:
- arguments that fail the tool's schema become JSON-RPC error -32602 naming the field;
- `queries.NotFound` becomes a tool error whose message says what to send instead, and a repository
  git refuses (another user owns it) one that says what the user must allow;
- the call is timed and recorded as a `tool.called` event (in batches, off the event loop).
"""

from __future__ import annotations

import inspect
import logging
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from importlib.metadata import version
from typing import Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, CallToolResult, Icon, TextContent, ToolAnnotations
from pydantic import ValidationError

from ..indexer.git.gitcmd import GitRefused
from ..store import DatabaseError, memory
from ..store.db import explain
from ..store.events import ToolCalled
from ..store.log import now_iso
from ..store.queries import NotFound
from .app import App
from .reader import ChangeNotices, ReaderThread
from .tools import FAMILIES as TOOL_FAMILIES
from .tools import register as register_families
from .warm import start_warming

log = logging.getLogger(__name__)

# The families served when none are chosen (`annals serve --tools`, or "tools" in .annals/config.json):
# what an agent uses in its first minute, its tools/list small enough to read (tests/test_workflow_mcp.py).
DEFAULT_TOOLSETS: tuple[str, ...] = ("code",)

INSTRUCTIONS = """\
codeannals answers questions about this repository from an event-sourced index, without reading files.
Start a task with get_context_pack(task, budget_tokens): the modules' contracts, the symbol bodies you
will most likely edit, their callers, and the tests to run. Then search_symbols / get_symbol /
get_module_contract / impact_analysis for detail, vibe_check before a large change, vibe_learn after a
mistake, and add_message to keep a conversation's memory. Every answer says how fresh it is."""

FLUSH_CALLS = 50  # tool calls buffered before they are appended as events
FLUSH_SECONDS = 2.0  # ... or at least this often


class CallLog:
    """Tool calls waiting to be appended to the log: a thread of its own appends them in batches, so
    no tool call waits for a write of metrics."""

    def __init__(self, app: App) -> None:
        self.app = app
        self._pending: list[ToolCalled] = []
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._users = 0  # lifespans running at once (each stdio or in-process connection has one)

    def start(self) -> None:
        with self._lock:
            self._users += 1
            if self._thread is not None:
                return
            self._stopping = False
            self._thread = threading.Thread(target=self._run, name="annals-call-log", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """Append what is buffered; the last lifespan to stop ends the thread."""
        with self._wake:
            self._users -= 1
            thread = self._thread if self._users == 0 else None
            if thread is not None:
                self._stopping = True
                self._thread = None
                self._wake.notify()
        if thread is not None:
            thread.join()
        self.flush()

    def add(self, call: ToolCalled) -> None:
        with self._wake:
            self._pending.append(call)
            if len(self._pending) >= FLUSH_CALLS:
                self._wake.notify()

    def _run(self) -> None:
        while True:
            with self._wake:
                self._wake.wait_for(lambda: self._stopping or len(self._pending) >= FLUSH_CALLS, FLUSH_SECONDS)
                if self._stopping:
                    return
            self.flush()

    def flush(self) -> int:
        """Append the buffered calls; on a database error keep them for the next flush and log it."""
        with self._lock:
            batch, self._pending = self._pending, []
        if not batch:
            return 0
        try:
            memory.record(self.app.conn(), batch)
        except DatabaseError as exc:  # said in every tool answer already; one line here, no traceback
            log.error("could not record %d tool calls: %s", len(batch), exc)
            return 0
        except sqlite3.Error:
            log.exception("could not record %d tool calls; keeping them for the next flush", len(batch))
            with self._lock:
                self._pending[:0] = batch[-10 * FLUSH_CALLS :]
            return 0
        return len(batch)


class AnnalsServer(MCPServer):
    """An MCPServer whose tool calls share argument errors, NotFound handling and metrics."""

    def __init__(self, app: App, **kwargs: Any) -> None:
        self.reader = ReaderThread()  # before the SDK registers any tool
        super().__init__(**kwargs)
        self.app = app
        self.calls = CallLog(app)
        self.watcher: Any = None  # the Watcher while the lifespan runs one (index_status reports it)
        self.vectors: Any = None  # the VectorKeeper while the lifespan runs one (tools/similarity.py)

    def add_tool(
        self,
        fn: Callable[..., Any],
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        annotations: ToolAnnotations | None = None,
        icons: list[Icon] | None = None,
        meta: dict[str, Any] | None = None,
        structured_output: bool | None = None,
    ) -> None:
        """Register the tool; a read-only one runs on the reader thread (server/reader.py says why)."""
        super().add_tool(fn, name, title, description, annotations, icons, meta, structured_output)
        if annotations is not None and annotations.read_only_hint and not inspect.iscoroutinefunction(fn):
            tool = self._tool_manager.get_tool(name or fn.__name__)  # the SDK keeps its tools in no public place
            if tool is not None:
                tool.fn, tool.is_async = self.reader.runs(fn), True

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Context | None = None) -> Any:
        started, at = time.perf_counter(), now_iso()
        ok = False
        try:
            result = await super().call_tool(name, arguments, context)
            ok = not getattr(result, "is_error", False)
            return result
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(cause, ValidationError):
                raise MCPError(
                    code=INVALID_PARAMS, message=_argument_errors(name, cause), data={"fields": _fields(cause)}
                ) from exc
            answerable = NotFound | GitRefused | DatabaseError | sqlite3.Error
            if isinstance(exc, UnexpectedToolError) and isinstance(cause, answerable):
                return CallToolResult(content=[TextContent(type="text", text=self._error_text(cause))], is_error=True)
            raise
        finally:
            args = arguments if isinstance(arguments, dict) else {}
            session = args.get("sessionId") or args.get("session_id")
            context_id = args.get("contextId")
            self.calls.add(
                ToolCalled(
                    name,
                    at,
                    round((time.perf_counter() - started) * 1000, 3),
                    ok,
                    session if isinstance(session, str) else None,
                    context_id if isinstance(context_id, str) else None,
                )
            )

    def _error_text(self, cause: BaseException) -> str:
        """What the caller reads: NotFound says what to send instead, GitRefused what the user must allow;
        a database that cannot be opened or read says which file, why, and the command that repairs it
        (the cause no longer goes to stderr alone, where an agent never sees it)."""
        if isinstance(cause, NotFound | GitRefused):
            return str(cause)
        if isinstance(cause, sqlite3.Error):  # opened, then failed: full, locked, damaged (explain says which)
            return f"the index database failed while answering: {explain(cause, self.app.db_path)}"
        db, root = self.app.db_path, self.app.root
        return (
            f"the index database cannot be used, so no tool can answer: {cause} A new index: "
            f"`mv {db} {db}.damaged && annals -C {root} --db {db} index` (this server opens it again "
            "on the next call)."
        )


def _fields(error: ValidationError) -> list[str]:
    return sorted({".".join(str(part) for part in e["loc"]) or "arguments" for e in error.errors()})


def _argument_errors(tool: str, error: ValidationError) -> str:
    """One line per bad field: which, what was wrong, what to send (the values sent are not echoed)."""
    lines = []
    for e in error.errors():
        field = ".".join(str(part) for part in e["loc"]) or "arguments"
        if e["type"] == "missing":
            lines.append(f"{field}: required; send it")
        elif e["type"] == "extra_forbidden":
            lines.append(f"{field}: not an argument of {tool}; leave it out")
        else:
            lines.append(f"{field}: {e['msg']}")
    return f"invalid arguments for {tool}: " + "; ".join(lines) + " (tools/list has the schema)"


def toolsets(chosen: str | list[str] | None) -> tuple[str, ...]:
    """The families to serve: a comma list or list of names, "all", or None for the default set."""
    if chosen is None:
        return DEFAULT_TOOLSETS
    names = [n.strip() for n in (chosen.split(",") if isinstance(chosen, str) else chosen) if n.strip()]
    if names == ["all"]:
        return tuple(TOOL_FAMILIES)
    unknown = [n for n in names if n not in TOOL_FAMILIES]
    if unknown or not names:
        raise ValueError(
            f"unknown tool set {', '.join(unknown) or '(none)'}: choose from {', '.join(TOOL_FAMILIES)} or all"
        )
    return tuple(dict.fromkeys(names))


def build_server(app: App, *, watch: bool = False, tools: str | list[str] | None = "all") -> AnnalsServer:
    """The MCP server for one repository; with `watch`, the index follows the tree while it runs.
    `tools` chooses the families served (None: DEFAULT_TOOLSETS)."""

    @asynccontextmanager
    async def lifespan(server: MCPServer) -> AsyncIterator[dict[str, Any]]:
        usable = _database_usable(app)  # the watcher and the vectors would only fail on it, in threads
        watcher = server_.watcher = _start_watcher(app, server_.reader) if watch and usable else None
        notices = ChangeNotices(app.db_path, server_.reader) if not watch and usable else None
        if notices is not None:  # the hooks and `annals index` still change the index
            notices.start()
        keeper = server_.vectors = _start_vectors(app) if usable else None
        if usable:
            start_warming(app, vectors=keeper is not None)
        server_.calls.start()
        try:
            yield {"app": app}
        finally:
            if keeper is not None:
                server_.vectors = None
                await anyio.to_thread.run_sync(keeper.stop)
            if watcher is not None:
                server_.watcher = None
                await anyio.to_thread.run_sync(watcher.stop)
            if notices is not None:
                await anyio.to_thread.run_sync(notices.stop)
            await anyio.to_thread.run_sync(server_.calls.stop)

    server_ = AnnalsServer(
        app, name="codeannals", version=version("codeannals"), instructions=INSTRUCTIONS, lifespan=lifespan
    )
    register_families(server_, app, toolsets(tools))
    return server_


def _database_usable(app: App) -> bool:
    """A database that will not open is said once on stderr at start; every tool answer says it too."""
    try:
        app.conn()
    except (DatabaseError, sqlite3.Error) as exc:
        log.error(
            "annals serve: %s (every tool answers with this error until it is repaired; "
            "restart the server after that to watch the tree again)",
            exc,
        )
        return False
    return True


def _start_vectors(app: App) -> Any:
    """The vectors follow the log while we serve: the keeper owns them whenever their lock is free."""
    from ..indexer.vectors.owner import VectorKeeper, vectors_enabled

    if not vectors_enabled():
        return None
    keeper = VectorKeeper(app.root, app.db_path)
    keeper.start()
    return keeper


def _start_watcher(app: App, reader: ReaderThread) -> Any:
    from ..indexer.watching.watch import Watcher

    def changed(batch: dict[str, Any]) -> None:
        if batch["events"]:
            reader.code_changed()

    watcher = Watcher(app.root, app.db_path, kind="serve", on_batch=changed)
    watcher.start()
    log.info("watching %s (role %s)", app.root, watcher.status()["role"])
    return watcher
