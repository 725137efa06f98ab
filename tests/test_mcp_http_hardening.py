"""`annals serve --port` as most users run it (no token, default host), and what
tests/test_mcp_transports.py leaves out: the socket is bound to loopback only; foreign Origins and
rebinding Host headers are refused on every method and path, with or without a token; tokens are
compared exactly and only taken from the Authorization header."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from .mcp_support import isolated_git_env, make_shop
from .test_mcp_transports import ANNALS, INITIALIZE, MCP_HEADERS, free_port

TOKEN = "hardening-t0ken-0123456789"
FOREIGN_ORIGINS = [
    "http://evil.example",
    "https://evil.example",
    "null",
    "file://",
    "chrome-extension://abcdef",
    "http://127.0.0.1.evil.example",
    "http://localhost.evil.example",
]
LISTEN = "0A"  # TCP state in /proc/net/tcp


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("home")
    with isolated_git_env(home):
        yield make_shop(tmp_path_factory.mktemp("shop") / "repo").root


def start(shop: Path, logs: Path, *, token: str | None, host: str = "127.0.0.1") -> tuple[subprocess.Popen[bytes], int]:
    """`annals serve --port` (with --host unless it is the default); the process and its port."""
    port = free_port()
    extra = () if host == "127.0.0.1" else ("--host", host)
    env = {k: v for k, v in os.environ.items() if k != "ANNALS_TOKEN"} | {"ANNALS_VECTORS": "off"}
    if token:
        env["ANNALS_TOKEN"] = token
    with (logs / f"{port}.err").open("wb") as err:
        proc = subprocess.Popen(
            [ANNALS, "-C", str(shop), "serve", "--port", str(port), "--no-watch", *extra],
            stdout=subprocess.DEVNULL,
            stderr=err,
            env=env,
        )
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection((host, port), timeout=0.2).close()
            return proc, port
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise AssertionError(f"annals serve did not start: {(logs / f'{port}.err').read_text()}") from None
            time.sleep(0.1)


@pytest.fixture(scope="module")
def default_server(shop: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """`annals serve --port P` with no token and no --host: its port."""
    proc, port = start(shop, tmp_path_factory.mktemp("default"), token=None)
    try:
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.fixture(scope="module")
def token_server(shop: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    proc, port = start(shop, tmp_path_factory.mktemp("token"), token=TOKEN)
    try:
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def send(port: int, method: str = "POST", path: str = "/mcp", headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.request(
        method,
        f"http://127.0.0.1:{port}{path}",
        json=INITIALIZE if method == "POST" else None,
        headers={**MCP_HEADERS, **(headers or {})},
        timeout=10,
    )


def listening_addresses(port: int) -> list[str]:
    """The local addresses of the sockets listening on `port` (hex, as /proc/net/tcp{,6} has them)."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as fh:
            for line in fh.readlines()[1:]:
                local, state = line.split()[1], line.split()[3]
                address, hex_port = local.rsplit(":", 1)
                if int(hex_port, 16) == port and state == LISTEN:
                    found.append(address)
    return found


def test_the_default_binds_loopback_only(default_server: int) -> None:
    if not os.path.exists("/proc/net/tcp"):
        pytest.skip("needs Linux's /proc/net/tcp")
    assert listening_addresses(default_server) == ["0100007F"]  # 127.0.0.1, and nothing on 0.0.0.0 or ::
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:  # no packet is sent
        probe.connect(("192.0.2.1", 9))
        own_address = probe.getsockname()[0]
    if own_address.startswith("127."):
        return
    with pytest.raises(OSError):  # this machine's other address does not reach the server
        socket.create_connection((own_address, default_server), timeout=2).close()


def test_without_a_token_the_server_still_refuses_foreign_origins(default_server: int) -> None:
    assert send(default_server).status_code == 200  # no token needed on loopback by default
    for origin in [*FOREIGN_ORIGINS, f"http://localhost:{default_server + 1}", f"http://127.0.0.1:{default_server}.x"]:
        refused = send(default_server, headers={"Origin": origin})
        assert refused.status_code == 403, origin
        assert "Origin" in refused.text
    for own in (f"http://127.0.0.1:{default_server}", f"http://localhost:{default_server}"):
        assert send(default_server, headers={"Origin": own}).status_code == 200, own


def test_rebinding_host_headers_are_refused_with_or_without_a_token(default_server: int, token_server: int) -> None:
    for port, auth in ((default_server, {}), (token_server, {"Authorization": f"Bearer {TOKEN}"})):
        for host in (
            f"evil.example:{port}",
            "evil.example",
            f"127.0.0.1.evil.example:{port}",
            f"localhost.evil.example:{port}",
            "127.0.0.1:1",
            f"localhost:{port + 1}",
            f"10.0.0.1:{port}",
            f"127.0.0.1:{port}@evil.example",
            f"0.0.0.0:{port}",
        ):
            refused = send(port, headers={"Host": host, **auth})
            assert refused.status_code == 403, (port, host)
            assert "Host" in refused.text
        assert send(port, headers={"Host": f"localhost:{port}", **auth}).status_code == 200


def test_a_request_without_a_host_header_is_refused(default_server: int) -> None:
    body = b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}'
    request = (
        b"POST /mcp HTTP/1.0\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream"
        b"\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
    )
    with socket.create_connection(("127.0.0.1", default_server), timeout=10) as conn:
        conn.sendall(request)
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    assert answer.split(b"\r\n", 1)[0].split()[1] == b"403", answer[:200]


def test_every_method_and_path_passes_the_guard_first(default_server: int, token_server: int) -> None:
    for method in ("GET", "POST", "DELETE", "OPTIONS", "PUT"):
        for path in ("/mcp", "/", "/mcp/", "/anything"):
            foreign = send(default_server, method, path, {"Origin": "http://evil.example"})
            assert foreign.status_code == 403, (method, path)
            rebound = send(default_server, method, path, {"Host": "evil.example"})
            assert rebound.status_code == 403, (method, path)
            anonymous = send(token_server, method, path)
            assert anonymous.status_code == 401, (method, path)


def test_the_token_is_compared_exactly_and_only_from_the_header(token_server: int) -> None:
    for value in (
        f"Bearer {TOKEN}x",
        f"Bearer {TOKEN[:-1]}",
        f"Bearer  {TOKEN}",
        f"Basic {TOKEN}",
        f"{TOKEN}",
        "Bearer",
        f"Bearer {TOKEN.upper()}",
    ):
        assert send(token_server, headers={"Authorization": value}).status_code == 401, value
    in_query = httpx.post(
        f"http://127.0.0.1:{token_server}/mcp?token={TOKEN}&access_token={TOKEN}",
        json=INITIALIZE,
        headers=MCP_HEADERS,
        timeout=10,
    )
    assert in_query.status_code == 401
    assert send(token_server, headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200
    refused = send(token_server, headers={"Authorization": "Bearer wrong"})
    assert TOKEN not in refused.text and TOKEN not in str(refused.headers)  # a refusal never echoes the secret


def test_ipv6_loopback_needs_no_token_and_checks_its_host(shop: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    if not socket.has_ipv6:
        pytest.skip("no IPv6")
    try:
        proc, port = start(shop, tmp_path_factory.mktemp("v6"), token=None, host="::1")
    except AssertionError as exc:
        if "Cannot assign requested address" in str(exc) or "address not available" in str(exc).lower():
            pytest.skip("no ::1 on this machine")
        raise
    try:
        url = f"http://[::1]:{port}/mcp"
        assert httpx.post(url, json=INITIALIZE, headers=MCP_HEADERS, timeout=10).status_code == 200
        rebound = httpx.post(url, json=INITIALIZE, headers={**MCP_HEADERS, "Host": f"evil.example:{port}"}, timeout=10)
        assert rebound.status_code == 403
        foreign = httpx.post(url, json=INITIALIZE, headers={**MCP_HEADERS, "Origin": "http://evil.example"}, timeout=10)
        assert foreign.status_code == 403
    finally:
        proc.terminate()
        proc.wait(timeout=30)
