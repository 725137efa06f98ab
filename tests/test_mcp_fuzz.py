"""Hostile arguments and malformed JSON-RPC: the MCP server answers everything with a result, a tool
error or the JSON-RPC error the protocol defines; it never crashes, never hangs, and writes nothing
but JSON-RPC messages on stdout.

- In process (fast): hypothesis draws arguments for every tool the server lists, from that tool's
  own inputSchema: valid values, wrong JSON types, missing required fields, extra fields, values
  beyond the schema's bounds, huge and unusual strings. Each call is bounded in time and followed
  by a call of the `ping` tool. A call whose arguments break the schema must be -32602; any call
  may be a tool error, but never the SDK's "Error executing tool" (an exception the tool let out).
- Over a real `annals serve --no-watch` stdio process: bad JSON, JSON that is not JSON-RPC, wrong
  types for id, method and params, an unknown method, a 10 MB argument and a 10 MB line of garbage.

ANNALS_FUZZ_EXAMPLES sets the examples per tool (default 25) for a longer run.
"""

from __future__ import annotations

import concurrent.futures
import json
import math
import os
import queue
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from codeannals.server.app import App
from codeannals.server.mcp import build_server
from hypothesis import HealthCheck, Phase, given, note, settings
from hypothesis import strategies as st
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult, Tool

from .mcp_support import isolated_git_env, make_shop

ANNALS = str(Path(sys.executable).parent / "annals")
INVALID_PARAMS = -32602
METHOD_NOT_FOUND = -32601
INVALID_REQUEST = -32600
PARSE_ERROR = -32700
CALL_SECONDS = 30.0  # a git tool forks git several times; a hang is what this bound catches
EXAMPLES = int(os.environ.get("ANNALS_FUZZ_EXAMPLES", "25"))
HUGE_CHARS = 200_000  # beyond every maxLength; cheap in process (the stdio test sends 10 MB)
HUGE_CALL_SECONDS = 5.0  # linear work on 200k characters takes well under a second
HUGE_VALUES = ("x" * HUGE_CHARS, "a_b/" * (HUGE_CHARS // 4), "é." * (HUGE_CHARS // 2), "ab-" * (HUGE_CHARS // 3))
TEN_MB = 10 * 1024 * 1024
UNEXPECTED = "Error executing tool"  # the SDK's text for an exception a tool let out, when bare
# Programs git_bisect_start may run: it executes its argv, so fuzzed text must never choose one.
SAFE_TEST_COMMANDS = [["true"], ["false"], ["/nonexistent/test-runner"], [sys.executable, "-c", "exit(125)"]]


# --- an in-process client that lives for the whole module -------------------------------------


@dataclass
class Outcome:
    result: CallToolResult | None = None
    error: MCPError | None = None

    def text(self) -> str:
        if self.error is not None:
            return f"{self.error.error.code} {self.error.error.message} {self.error.error.data!r}"
        assert self.result is not None
        blocks = " ".join(getattr(b, "text", "") for b in self.result.content)
        return f"{blocks} {json.dumps(self.result.structured_content, default=str)}"


class Session:
    """One in-process client session, driven from the test thread through a blocking portal, so
    every call is bounded by a timeout even if the tool blocks the server's event loop."""

    def __init__(self, portal: BlockingPortal, client: Client) -> None:
        self.portal = portal
        self.client = client

    def call(self, name: str, arguments: dict[str, Any], seconds: float = CALL_SECONDS) -> Outcome:
        async def go() -> Outcome:
            try:
                return Outcome(result=await self.client.call_tool(name, arguments))
            except MCPError as exc:
                return Outcome(error=exc)

        future = self.portal.start_task_soon(go)
        try:
            return future.result(timeout=seconds)
        except concurrent.futures.TimeoutError:
            pytest.fail(f"{name} did not answer within {seconds} s: arguments {_short(arguments)}")

    def tools(self) -> list[Tool]:
        async def go() -> list[Tool]:
            return (await self.client.list_tools()).tools

        return self.portal.start_task_soon(go).result(timeout=CALL_SECONDS)

    def assert_alive(self) -> None:
        """The server still answers: its `ping` tool returns pong."""
        pong = self.call("ping", {}, seconds=10)
        assert pong.result is not None and not pong.result.is_error, pong.text()
        assert getattr(pong.result.content[0], "text", None) == "pong"


@contextmanager
def open_session(root: Path) -> Iterator[Session]:
    server = build_server(App.for_repo(root))
    with start_blocking_portal() as portal, portal.wrap_async_context_manager(Client(server)) as client:
        yield Session(portal, client)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) < 300 else f"{text[:300]}... ({len(text)} characters)"


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("home")
    with isolated_git_env(home):
        yield make_shop(tmp_path_factory.mktemp("fuzz") / "repo").root


@pytest.fixture(scope="module")
def session(shop: Path) -> Iterator[Session]:
    with open_session(shop) as opened:
        yield opened


# --- strategies derived from a JSON schema --------------------------------------------------------

JSON_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=20)
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)),
    max_leaves=8,
)
LETTERS = st.text(alphabet="qwxzjk", min_size=2, max_size=12)  # never a number, a bool word or a date
# A JSON type -> values of that type only (booleans are not integers here: pydantic takes True for 1).
BY_TYPE: dict[str, st.SearchStrategy[Any]] = {
    "string": st.text(max_size=20),
    "integer": st.integers(),
    "number": st.floats(allow_nan=False, allow_infinity=False).filter(lambda f: not f.is_integer()),
    "boolean": st.booleans(),
    "array": st.lists(JSON_SCALARS, max_size=3),
    "object": st.dictionaries(st.text(max_size=8), JSON_SCALARS, min_size=1, max_size=3),
    "null": st.none(),
}
# What each declared type must refuse (pydantic's lax mode takes 1 for True, 5 for 5.0, "5" for 5).
REFUSED_BY: dict[str, tuple[str, ...]] = {
    "string": ("integer", "number", "boolean", "array", "object", "null"),
    "integer": ("number", "array", "object", "null", "letters"),
    "number": ("array", "object", "null", "letters"),
    "boolean": ("array", "object", "null", "letters"),
    "array": ("string", "integer", "number", "boolean", "object", "null"),
    "object": ("string", "integer", "number", "boolean", "array", "null"),
    "null": ("string", "integer", "number", "boolean", "array", "object"),
}


def special_strings(canary_dir: Path) -> list[str]:
    """Strings that reach real code paths (known names, refs, paths) or are known troublemakers.
    No lone surrogates: no transport can carry one (JSON parsers refuse the escape, the stdio test
    sends it), and in process they only test pydantic's serializer."""
    return [
        "",
        " ",
        "\0",
        "\n",
        "..",
        "../../etc/passwd",
        "/etc/passwd",
        "~",
        "~root/.ssh/id_rsa",
        "-x",
        f"--output={canary_dir / 'output'}",
        f"--upload-pack=touch {canary_dir / 'upload'}",
        f"-c core.pager=touch {canary_dir / 'pager'}",
        "$(touch /tmp/x)",
        "a;b",
        "HEAD",
        "HEAD~1",
        "@",
        "main",
        "INDEX",
        "WORKTREE",
        "shop/prices.py",
        "shop.prices",
        "shop/cart.py::Cart.total",
        "parse_price",
        "Cart.total",
        "symbol:parse_price",
        "module:shop/cart.py",
        "a::",
        "::",
        "%s%n%x",
        "\u202e\u200b\ufeff",
        "😀" * 50,
        "Ω≈ç√∫",
        "' OR 1=1 --",
        '"',
        "NEAR(a b)",
        "*",
        "a AND OR NOT",
        "\\",
        "🚀::🚀",
    ]


def _types(schema: dict[str, Any]) -> set[str]:
    if "anyOf" in schema:
        return {t for branch in schema["anyOf"] for t in _types(branch)}
    if "enum" in schema and "type" not in schema:
        return {type(v).__name__.replace("str", "string") for v in schema["enum"]}
    declared = schema.get("type", "object")
    return set(declared) if isinstance(declared, list) else {declared}


def valid_value(schema: dict[str, Any], strings: list[str]) -> st.SearchStrategy[Any]:
    """Values the schema accepts (plus strings that may be refused by the tool, not by the schema)."""
    if "anyOf" in schema:
        return st.one_of([valid_value(branch, strings) for branch in schema["anyOf"]])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kind = schema.get("type")
    if kind == "string":
        low, high = schema.get("minLength", 0), schema.get("maxLength", HUGE_CHARS)
        if "pattern" in schema:
            return st.from_regex(schema["pattern"], fullmatch=True).filter(lambda s: low <= len(s) <= high)
        fitting = [s for s in strings if low <= len(s) <= high]
        huge = st.sampled_from(["x", "é", "𝔘", "\u200b", "'", "/", "\0"]).map(lambda c: c * high)
        text = st.text(min_size=low, max_size=max(low, min(high, 40)))
        return st.one_of(text, huge, *([st.sampled_from(fitting)] if fitting else []))
    if kind == "integer":
        low = schema.get("minimum", schema.get("exclusiveMinimum", -(2**63) - 1) + 1)
        high = schema.get("maximum", schema.get("exclusiveMaximum", 2**63) - 1)
        return st.integers(low, high)
    if kind == "number":
        return st.floats(
            schema.get("minimum", schema.get("exclusiveMinimum")),
            schema.get("maximum", schema.get("exclusiveMaximum")),
            exclude_min="exclusiveMinimum" in schema,
            exclude_max="exclusiveMaximum" in schema,
            allow_nan=False,
            allow_infinity=False,
        )
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        items = valid_value(schema.get("items", {"type": "string"}), strings)
        return st.lists(items, min_size=schema.get("minItems", 0), max_size=max(schema.get("minItems", 0), 4))
    return st.dictionaries(st.text(max_size=8), JSON_SCALARS, max_size=3)


def invalid_value(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values the schema refuses: another JSON type, or a value beyond a bound it declares."""
    declared = _types(schema)
    refused = set.intersection(*(set(REFUSED_BY[t]) for t in declared))
    options = [LETTERS if t == "letters" else BY_TYPE[t] for t in sorted(refused)]
    if "anyOf" not in schema:
        if "enum" in schema:
            options.append(st.text(max_size=12).filter(lambda s: s not in schema["enum"]))
        if "maxLength" in schema:
            options.append(st.sampled_from(["x", "é", "😀", " "]).map(lambda c: c * (schema["maxLength"] + 1)))
        if schema.get("minLength", 0) > 0:
            options.append(st.text(max_size=schema["minLength"] - 1))
        if "pattern" in schema:
            options.append(st.text(max_size=70).filter(lambda s: not re.search(schema["pattern"], s)))
        if "minimum" in schema:
            options.append(st.integers(max_value=math.ceil(schema["minimum"]) - 1) | st.just(-(10**30)))
        if "exclusiveMinimum" in schema:
            options.append(st.integers(max_value=math.floor(schema["exclusiveMinimum"])))
        if "maximum" in schema:
            options.append(st.integers(min_value=math.floor(schema["maximum"]) + 1) | st.just(10**30))
        if schema.get("minItems", 0) > 0:
            options.append(st.just([]))
        if schema.get("type") == "array" and "items" in schema:
            options.append(invalid_value(schema["items"]).map(lambda v: [v]))
    return st.one_of(options)


@st.composite
def tool_arguments(
    draw: st.DrawFn, schema: dict[str, Any], strings: list[str], overrides: dict[str, st.SearchStrategy[Any]]
) -> tuple[dict[str, Any], str]:
    """Arguments for one call and how they were made: valid, extra (an unknown field added), wrong
    (one field refused by the schema) or missing (a required field left out)."""
    properties: dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", []))
    args = {
        name: draw(overrides[name] if name in overrides else valid_value(prop, strings))
        for name, prop in properties.items()
        if name in required or draw(st.booleans())
    }
    modes = ["valid", "extra"] + (["wrong"] if properties else []) + (["missing"] if required else [])
    mode = draw(st.sampled_from(modes))
    if mode == "extra":
        args[draw(st.text(min_size=1, max_size=20).filter(lambda k: k not in properties))] = draw(JSON_VALUES)
    elif mode == "wrong":
        name = draw(st.sampled_from(sorted(properties)))
        args[name] = draw(invalid_value(properties[name]))
    elif mode == "missing":
        del args[draw(st.sampled_from(sorted(required)))]
    return args, mode


def crashed(tool: str, result: CallToolResult) -> bool:
    """A tool error the tool did not mean: the SDK's bare "Error executing tool NAME" (a deliberate
    ToolError reads "Error executing tool NAME: <what to do>"), or no message at all."""
    text = " ".join(getattr(b, "text", "") for b in result.content).strip()
    return not text or (text.startswith(UNEXPECTED) and not text.startswith(f"{UNEXPECTED} {tool}: "))


def check_outcome(tool: str, outcome: Outcome, mode: str) -> None:
    if mode in ("wrong", "missing"):
        assert outcome.error is not None, f"{tool} accepted arguments its schema refuses: {outcome.text()[:500]}"
    if outcome.error is not None:
        assert outcome.error.error.code == INVALID_PARAMS, f"{tool}: unexpected error {outcome.text()[:500]}"
        assert outcome.error.error.message.strip(), tool
        return
    assert outcome.result is not None
    if outcome.result.is_error:
        assert not crashed(tool, outcome.result), f"{tool} let an exception out: {outcome.text()[:500]}"
    json.dumps(outcome.result.model_dump(mode="json"))  # the answer is plain JSON


# --- in process: every listed tool ------------------------------------------------------------------


def test_every_listed_tool_survives_generated_arguments(
    session: Session, shop: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    canaries = tmp_path_factory.mktemp("canaries")
    strings = special_strings(canaries)
    overrides = {"test_command": st.sampled_from(SAFE_TEST_COMMANDS)}
    tools = session.tools()
    assert len(tools) >= 30, [t.name for t in tools]  # every family registered
    seen_modes: dict[str, set[str]] = {}
    for tool in tools:
        arguments = tool_arguments(tool.input_schema, strings, overrides)
        fuzz(session, tool, arguments, seen_modes.setdefault(tool.name, set()))
    assert {t.name for t in tools} == set(seen_modes)
    assert sum(len(m) for m in seen_modes.values()) > 2 * len(tools)  # not only the one easy mode
    assert sorted(p.name for p in canaries.iterdir()) == []  # no argument ever reached git as an option
    assert session.tools() == tools


def fuzz(
    session: Session, tool: Tool, arguments: st.SearchStrategy[tuple[dict[str, Any], str]], seen_modes: set[str]
) -> None:
    # No shrinking: a failing call is reported as drawn (note() shows it), not re-run for minutes.
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        derandomize=True,
        phases=(Phase.explicit, Phase.generate),
        suppress_health_check=list(HealthCheck),
    )
    @given(drawn=arguments)
    def check(drawn: tuple[dict[str, Any], str]) -> None:
        args, mode = drawn
        note(f"{tool.name} ({mode}): {_short(args)}")
        seen_modes.add(mode)
        check_outcome(tool.name, session.call(tool.name, args), mode)
        session.assert_alive()

    check()


def test_each_bound_and_type_of_each_tool_is_refused_with_invalid_params(session: Session) -> None:
    """Deterministic companion of the fuzz: for every field of every tool, the first refused value of
    each kind is -32602 and names the field."""
    for tool in session.tools():
        properties = tool.input_schema.get("properties", {})
        required = tool.input_schema.get("required", [])
        base = {name: _minimal(properties[name]) for name in required}
        for name, prop in properties.items():
            for bad in _refused_examples(prop):
                outcome = session.call(tool.name, {**base, name: bad})
                assert outcome.error is not None, f"{tool.name}.{name}={_short(bad)} accepted: {outcome.text()[:300]}"
                assert outcome.error.error.code == INVALID_PARAMS
                assert name in outcome.error.error.message, outcome.error.error.message
        for name in required:
            outcome = session.call(tool.name, {k: v for k, v in base.items() if k != name})
            assert outcome.error is not None and outcome.error.error.code == INVALID_PARAMS
            assert f"{name}: required" in outcome.error.error.message
    unknown = session.call("no_such_tool", {})
    assert unknown.result is not None and unknown.result.is_error and "no_such_tool" in unknown.text()
    session.assert_alive()


def test_a_huge_string_in_any_field_is_answered_promptly(session: Session) -> None:
    """200k characters in each string field in turn (regressions: a context pack task scanned by a
    quadratic regex took minutes, and `ab-ab-...` by another, read for links, longer than this waits; a
    200k-character revision crashed git's exec with E2BIG)."""
    for tool in session.tools():
        properties = tool.input_schema.get("properties", {})
        base = {name: _minimal(properties[name]) for name in tool.input_schema.get("required", [])}
        for name, prop in properties.items():
            types = _types(prop) | _types(prop.get("items", {})) if "items" in prop else _types(prop)
            if "string" not in types or "enum" in prop:
                continue
            for huge in HUGE_VALUES:
                value = [huge] if prop.get("type") == "array" else huge
                started = time.monotonic()
                outcome = session.call(tool.name, {**base, name: value}, seconds=HUGE_CALL_SECONDS)
                check_outcome(tool.name, outcome, "valid")
                took = time.monotonic() - started
                assert took < HUGE_CALL_SECONDS, f"{tool.name}.{name}: {took:.1f} s for {len(huge)} characters"
    session.assert_alive()


def _minimal(schema: dict[str, Any]) -> Any:
    """The simplest value a schema accepts."""
    if "anyOf" in schema:
        return None
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "string":
        return "a" * max(1, schema.get("minLength", 0))
    if kind in ("integer", "number"):
        return schema.get("minimum", 1)
    if kind == "array":
        return ["true"] * max(1, schema.get("minItems", 0))
    return {"boolean": False}.get(str(kind))


def _refused_examples(schema: dict[str, Any]) -> list[Any]:
    declared = _types(schema)
    refused = set.intersection(*(set(REFUSED_BY[t]) for t in declared))
    samples = {
        "string": "text",
        "integer": 7,
        "number": 0.5,
        "boolean": True,
        "array": ["a"],
        "object": {"a": 1},
        "null": None,
        "letters": "qwx",
    }
    out = [samples[t] for t in sorted(refused)]
    if "anyOf" not in schema:
        if "maxLength" in schema:
            out.append("x" * (schema["maxLength"] + 1))
        if "minimum" in schema:
            out.append(schema["minimum"] - 1)
        if "maximum" in schema:
            out.append(schema["maximum"] + 1)
        if "enum" in schema:
            out.append("not-one-of-them")
        if "pattern" in schema:
            out.append(" not an id")
        if schema.get("minLength", 0) > 0:
            out.append("")
    return out


# --- over a real stdio process --------------------------------------------------------------------


class StdioServer:
    """`annals serve --no-watch` with raw pipes: we write lines, a thread collects every stdout line."""

    def __init__(self, root: Path, stderr_path: Path) -> None:
        self.stderr_path = stderr_path
        with stderr_path.open("wb") as err:
            self.proc = subprocess.Popen(
                [ANNALS, "-C", str(root), "serve", "--no-watch", "--tools", "all"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
                env={**os.environ, "ANNALS_VECTORS": "off"},
            )
        self.lines: list[bytes] = []
        self._queue: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._next_id = 1000

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line)
            try:
                self._queue.put(json.loads(line))
            except ValueError:
                self._queue.put({"not json": line[:200].decode("utf-8", "replace")})
        self._queue.put(None)

    def send(self, raw: bytes | str | dict[str, Any]) -> None:
        data = json.dumps(raw).encode() if isinstance(raw, dict) else raw.encode() if isinstance(raw, str) else raw
        assert self.proc.stdin is not None
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: Any = None, seconds: float = 60) -> dict[str, Any]:
        """Send a well-formed request; return its response (after any other messages, kept aside)."""
        self._next_id += 1
        rid = self._next_id
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, **({"params": params} if params else {})})
        before, answer = self.until(rid, seconds)
        self.stray = before
        return answer

    def until(self, rid: int, seconds: float) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        deadline = time.monotonic() + seconds
        before: list[dict[str, Any]] = []
        while True:
            try:
                message = self._queue.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                pytest.fail(f"no answer to request {rid} within {seconds} s; stderr:\n{self._stderr_tail()}")
            if message is None:
                pytest.fail(f"the server closed stdout (exit {self.proc.poll()}); stderr:\n{self._stderr_tail()}")
            if message.get("id") == rid:
                return before, message
            before.append(message)

    def answers_after(self, raw: bytes | str | dict[str, Any], seconds: float = 60) -> list[dict[str, Any]]:
        """Send one (possibly malformed) line, then a ping; the messages that came before the pong.
        The pong proves the process survived and still answers in order."""
        self.send(raw)
        pong = self.request("ping", seconds=seconds)
        assert pong.get("result") == {}, pong
        return self.stray

    def _stderr_tail(self) -> str:
        return self.stderr_path.read_text("utf-8", "replace")[-3000:]

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            return self.proc.wait(timeout=30)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
            self._reader.join(timeout=10)


def _codes(messages: list[dict[str, Any]]) -> list[int]:
    return [m["error"]["code"] for m in messages if "error" in m]


def _no_answer_or(messages: list[dict[str, Any]], code: int) -> bool:
    """JSON-RPC 2.0 answers an unparsable or invalid request with `code` and id null; the MCP SDK drops
    such lines (its schema has no error without an id). Either is accepted; anything else is not."""
    return all("error" in m and m["error"]["code"] == code and m.get("id") is None for m in messages)


@pytest.fixture(scope="module")
def stdio(shop: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[StdioServer]:
    server = StdioServer(shop, tmp_path_factory.mktemp("stdio") / "stderr")
    try:
        init = server.request(
            "initialize",
            {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "1"}},
        )
        assert init["result"]["serverInfo"]["name"] == "codeannals", init
        server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        yield server
    finally:
        if server.proc.poll() is None:
            server.close()


BAD_JSON = [
    '{"jsonrpc": "2.0", "id": 2, "method": ',
    "{",
    "}",
    "[1, 2",
    "nul",
    "'single'",
    '{"a":1}}',
    "\x00",
    '{"jsonrpc":"2.0","id":3,"method":"ping",}',
]
NOT_JSON_RPC = [
    "[1, 2, 3]",
    '"hello"',
    '{"foo": 1}',
    "null",
    "[]",
    "{}",
    "42",
    "true",
    '{"jsonrpc": "2.0"}',
    '{"jsonrpc": "1.0", "id": 5, "method": "ping"}',
    '{"id": 6, "method": "ping"}',
]
WRONG_TYPES = [
    '{"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}',
    '{"jsonrpc": "2.0", "id": [1], "method": "ping"}',
    '{"jsonrpc": "2.0", "id": true, "method": "ping"}',
    '{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}',
    '{"jsonrpc": "2.0", "id": 7, "method": 5}',
    '{"jsonrpc": "2.0", "id": 8, "method": null}',
    '{"jsonrpc": "2.0", "id": 9, "method": ["ping"]}',
    '{"jsonrpc": 2, "id": 10, "method": "ping"}',
    '{"jsonrpc": "2.0", "id": 12, "method": "tools/call", "params": "just a string"}',
    '{"jsonrpc": "2.0", "id": 13, "method": "tools/list", "params": [1, 2]}',
]


def test_malformed_lines_get_no_answer_or_the_defined_error_and_the_process_lives(stdio: StdioServer) -> None:
    for line in BAD_JSON:
        assert _no_answer_or(stdio.answers_after(line), PARSE_ERROR), line
    assert _no_answer_or(stdio.answers_after(b"\xff\xfe\x00garbage \xc3\x28"), PARSE_ERROR)
    lone_surrogate = (
        '{"jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": {"name": "vibe_check", '
        '"arguments": {"goal": "g", "plan": "p", "uncertainties": ["\\ud800"]}}}'
    )
    assert all(m.get("id") != 11 or "error" in m for m in stdio.answers_after(lone_surrogate))
    for line in NOT_JSON_RPC + WRONG_TYPES:
        answered = stdio.answers_after(line)
        assert _no_answer_or(answered, INVALID_REQUEST), (line, answered)
    # a notification (no id) is never answered, even for a method nobody knows
    assert stdio.answers_after({"jsonrpc": "2.0", "method": "notifications/no_such_thing"}) == []
    # a response to a request the server never sent is ignored
    assert stdio.answers_after({"jsonrpc": "2.0", "id": 777_777, "result": {}}) == []


def test_protocol_errors_carry_the_codes_the_protocol_defines(stdio: StdioServer) -> None:
    unknown = stdio.request("no/such/method")
    assert unknown["error"]["code"] == METHOD_NOT_FOUND
    arguments_not_object = stdio.request("tools/call", {"name": "search_symbols", "arguments": "parse"})
    assert arguments_not_object["error"]["code"] == INVALID_PARAMS
    no_name = stdio.request("tools/call", {"arguments": {}})
    assert no_name["error"]["code"] == INVALID_PARAMS
    wrong_type = stdio.request("tools/call", {"name": "search_symbols", "arguments": {"query": 5}})
    assert wrong_type["error"]["code"] == INVALID_PARAMS and "query" in wrong_type["error"]["message"]
    missing = stdio.request("tools/call", {"name": "get_symbol", "arguments": {}})
    assert missing["error"]["code"] == INVALID_PARAMS and "symbol: required" in missing["error"]["message"]
    unknown_tool = stdio.request("tools/call", {"name": "no_such_tool", "arguments": {}})
    assert unknown_tool.get("result", {}).get("isError") is True or _codes([unknown_tool]) == [INVALID_PARAMS]
    listed = stdio.request("tools/list")
    assert len(listed["result"]["tools"]) >= 30


def test_ten_megabyte_arguments_and_lines_are_answered_without_a_crash(stdio: StdioServer) -> None:
    huge = "x" * TEN_MB
    found = stdio.request("tools/call", {"name": "search_symbols", "arguments": {"query": huge}}, seconds=120)
    assert "result" in found or _codes([found]) == [INVALID_PARAMS], str(found)[:500]
    if "result" in found and found["result"].get("isError"):
        assert not crashed("search_symbols", CallToolResult.model_validate(found["result"]))
    path = stdio.request("tools/call", {"name": "get_module_contract", "arguments": {"path": huge}}, seconds=120)
    assert path.get("result", {}).get("isError") is True or _codes([path]) == [INVALID_PARAMS], str(path)[:500]
    message = stdio.request(
        "tools/call",
        {
            "name": "add_message",
            "arguments": {"contextId": "fuzz-huge", "message": huge[: TEN_MB // 10], "role": "user"},
        },
        seconds=120,
    )
    assert "result" in message or _codes([message]) == [INVALID_PARAMS], str(message)[:500]
    assert _no_answer_or(stdio.answers_after("{" + huge, seconds=120), PARSE_ERROR)
    assert _no_answer_or(stdio.answers_after('"' + huge + '"', seconds=120), INVALID_REQUEST)


def test_stdout_carries_only_json_rpc_and_the_process_exits_cleanly(stdio: StdioServer) -> None:
    # runs last in this module: afterwards the server is gone
    assert stdio.request("ping")["result"] == {}
    assert stdio.close() == 0
    assert stdio.lines, "nothing was read from stdout"
    for line in stdio.lines:
        message = json.loads(line)
        assert isinstance(message, dict) and message.get("jsonrpc") == "2.0", line[:300]
        assert "id" in message and ("result" in message or "error" in message) or "method" in message, line[:300]
    stderr = stdio.stderr_path.read_text("utf-8", "replace")
    assert "Traceback" not in stderr, stderr[-3000:]
    assert "raised an unexpected exception" not in stderr, stderr[-3000:]
