"""`annals serve` as a real process: over stdio with the SDK's stdio client (stdout carries MCP and
nothing else; the watcher runs inside), and over Streamable HTTP (Origin, Host, token)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from .mcp_support import isolated_git_env, make_shop

ANNALS = str(Path(sys.executable).parent / "annals")
TOKEN = "t0ken-for-tests"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}},
}
MCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("home")
    with isolated_git_env(home):
        yield make_shop(tmp_path_factory.mktemp("shop") / "repo").root


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def http_server(shop: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One `annals serve --port` for the module, with a token; its address."""
    port = free_port()
    logs = tmp_path_factory.mktemp("http")
    env = {**os.environ, "ANNALS_TOKEN": TOKEN, "ANNALS_VECTORS": "off"}
    with (logs / "stdout").open("wb") as out, (logs / "stderr").open("wb") as err:
        proc = subprocess.Popen(
            [ANNALS, "-C", str(shop), "serve", "--port", str(port), "--no-watch"], stdout=out, stderr=err, env=env
        )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"annals serve did not start: {(logs / 'stderr').read_text()}") from None
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert (logs / "stdout").read_bytes() == b""  # logs go to stderr and the log file


def post(url: str, headers: dict[str, str]) -> httpx.Response:
    return httpx.post(f"{url}/mcp", json=INITIALIZE, headers={**MCP_HEADERS, **headers}, timeout=10)


def test_a_foreign_origin_is_refused_before_anything_runs(http_server: str) -> None:
    for origin in ("http://evil.example", "http://127.0.0.1.evil.example", "null"):
        refused = post(http_server, {"Origin": origin, "Authorization": f"Bearer {TOKEN}"})
        assert refused.status_code == 403, origin
        assert "Origin" in refused.text
    no_token = post(http_server, {"Origin": "http://evil.example"})
    assert no_token.status_code == 403  # the Origin check comes before everything else
    own = post(http_server, {"Origin": http_server, "Authorization": f"Bearer {TOKEN}"})
    assert own.status_code == 200


def test_a_foreign_host_is_refused(http_server: str) -> None:
    port = http_server.rsplit(":", 1)[1]
    refused = post(http_server, {"Host": f"attacker.example:{port}", "Authorization": f"Bearer {TOKEN}"})
    assert refused.status_code == 403 and "Host" in refused.text
    assert post(http_server, {"Host": f"localhost:{port}", "Authorization": f"Bearer {TOKEN}"}).status_code == 200


def test_the_token_is_required(http_server: str) -> None:
    missing = post(http_server, {})
    assert missing.status_code == 401 and missing.headers["www-authenticate"].startswith("Bearer")
    assert "ANNALS_TOKEN" in missing.text
    assert post(http_server, {"Authorization": "Bearer wrong"}).status_code == 401
    assert post(http_server, {"Authorization": TOKEN}).status_code == 401


def test_an_mcp_session_over_http_with_the_token(http_server: str) -> None:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    async def session() -> tuple[Any, Any, MCPError | None]:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30)
        async with http, Client(streamable_http_client(f"{http_server}/mcp", http_client=http)) as client:
            found = await client.call_tool("search_symbols", {"query": "parse price"})
            pack = await client.call_tool("get_context_pack", {"task": "Cart.total rounds wrong"})
            try:
                await client.call_tool("get_module_contract", {"path": "../../etc/passwd"})
                error = None
            except MCPError as exc:
                error = exc
            return found, pack, error

    found, pack, error = anyio.run(session)
    assert "shop/prices.py::parse_price" in {r["id"] for r in found.structured_content["results"]}
    assert pack.structured_content["symbols"][0]["id"] == "shop/cart.py::Cart.total"
    assert error is not None and error.error.code == -32602


def test_binding_beyond_loopback_needs_a_token(shop: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "ANNALS_TOKEN"}
    for host in ("0.0.0.0", "192.168.1.10"):  # noqa: S104 - refused, never bound
        proc = subprocess.run(
            [ANNALS, "-C", str(shop), "serve", "--port", str(free_port()), "--host", host],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
        )
        assert proc.returncode == 1
        assert f"refusing to listen on {host} without a token" in proc.stderr and "ANNALS_TOKEN" in proc.stderr
        assert proc.stdout == ""
    no_port = subprocess.run(
        [ANNALS, "-C", str(shop), "serve", "--host", "10.0.0.1"], capture_output=True, text=True, env=env, timeout=60
    )
    assert no_port.returncode == 1 and "--host needs --port" in no_port.stderr


def test_stdio_speaks_only_mcp_on_stdout_and_watches_the_tree(shop: Path) -> None:
    transport_faults: list[Exception] = []

    async def record(message: Any) -> None:
        if isinstance(message, Exception):  # a stdout line that is not an MCP message
            transport_faults.append(message)

    params = StdioServerParameters(
        command=ANNALS, args=["-C", str(shop), "serve", "--tools", "all"], env={**os.environ, "ANNALS_VECTORS": "off"}
    )
    added = shop / "shop" / "discounts.py"

    async def session() -> dict[str, Any]:
        seen: dict[str, Any] = {}
        async with Client(params, message_handler=record) as client:
            seen["tools"] = {t.name for t in (await client.list_tools()).tools}
            seen["ping"] = (await client.call_tool("ping", {})).content[0].text
            seen["status"] = (await client.call_tool("index_status", {})).structured_content
            try:
                await client.call_tool("search_symbols", {"query": "x", "limit": 10_000})
            except MCPError as exc:
                seen["invalid"] = exc.error.code
            seen["missing"] = (await client.call_tool("get_symbol", {"symbol": "nothing_here"})).is_error
            added.write_text(
                '"""Discounts."""\n\n\ndef apply_discount(cents: int, percent: int) -> int:\n'
                "    return cents - cents * percent // 100\n"
            )
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:  # the watcher inside the server indexes the new file
                found = await client.call_tool("search_symbols", {"query": "apply discount"})
                if found.structured_content["results"]:
                    seen["watched"] = found.structured_content["results"][0]["id"]
                    break
                await anyio.sleep(0.2)
        return seen

    try:
        seen = anyio.run(session)
    finally:
        added.unlink(missing_ok=True)
    assert transport_faults == []
    assert {"get_context_pack", "vibe_check", "add_message"} <= seen["tools"]
    assert seen["ping"] == "pong"
    assert seen["status"]["watcher"]["running"] is True and seen["status"]["watcher"]["kind"] == "serve"
    assert seen["invalid"] == -32602 and seen["missing"] is True
    assert seen["watched"] == "shop/discounts.py::apply_discount"
    log = (shop / ".annals" / "logs" / "serve.log").read_text()
    assert "over stdio" in log
