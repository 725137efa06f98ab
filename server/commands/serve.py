"""`annals serve`: the MCP server over stdio, or over Streamable HTTP at /mcp with `--port`.

Loaded with every command: mcp, starlette and uvicorn are imported only when serving.

Over stdio nothing but MCP messages reaches stdout: logs go to stderr and .annals/logs/serve.log
(the SDK also points fd 1 at stderr while it serves, so stray prints of libraries cannot corrupt
the stream). Over HTTP every request passes `http_guard` before the MCP app sees it:
1. an Origin header that is not this server's own gets 403 (DNS rebinding: a web page in the
   user's browser must not reach a local server);
2. a Host header that names another host gets 403;
3. with ANNALS_TOKEN set, a request without `Authorization: Bearer <token>` gets 401.
Binding anything but loopback without ANNALS_TOKEN is refused.
"""

from __future__ import annotations

import gc
import hmac
import ipaddress
import logging
import os
import sys
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

import click

from ..cli import Context, cli

TOKEN_ENV = "ANNALS_TOKEN"  # noqa: S105 - the variable's name, not a secret
MCP_PATH = "/mcp"
LOOPBACK_NAMES = ("localhost",)

Scope = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]], Awaitable[None]]


def is_loopback(host: str) -> bool:
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def allowed_hosts(host: str, port: int) -> set[str]:
    """Host header values naming this server: its loopback names, and the address it binds."""
    names = {"127.0.0.1", "localhost", "[::1]"}
    if not is_loopback(host) and host not in ("0.0.0.0", "::"):  # noqa: S104 - compared, not bound
        names.add(f"[{host}]" if ":" in host else host)
    return {n for name in names for n in (name, f"{name}:{port}")}


def allowed_origins(hosts: set[str]) -> set[str]:
    return {f"{scheme}://{h}" for h in hosts for scheme in ("http", "https")}


def http_guard(app: ASGIApp, *, hosts: set[str], token: str | None) -> ASGIApp:
    """Refuse foreign Origins and Hosts (403) and, with a token, unauthenticated requests (401)."""
    origins = allowed_origins(hosts)
    expected = f"Bearer {token}".encode() if token else None

    async def guarded(
        scope: Scope, receive: Callable[[], Awaitable[Any]], send: Callable[[Any], Awaitable[None]]
    ) -> None:
        if scope["type"] != "http":  # lifespan events pass through
            await app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v for k, v in scope.get("headers", [])}
        origin = headers.get("origin", b"").decode("latin-1")
        host = headers.get("host", b"").decode("latin-1")
        if origin and origin not in origins:
            await _refuse(send, 403, f"Origin {origin!r} is not allowed: this server answers its own origin only")
            return
        if host not in hosts:
            await _refuse(send, 403, f"Host {host!r} is not this server: connect to 127.0.0.1 or localhost")
            return
        if expected is not None and not hmac.compare_digest(headers.get("authorization", b""), expected):
            await _refuse(
                send,
                401,
                f"send the token of {TOKEN_ENV} as 'Authorization: Bearer <token>'",
                [(b"www-authenticate", b'Bearer realm="annals"')],
            )
            return
        await app(scope, receive, send)

    return guarded


async def _refuse(
    send: Callable[[Any], Awaitable[None]], status: int, message: str, extra: list[tuple[bytes, bytes]] | None = None
) -> None:
    body = message.encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
                *(extra or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _configure_logging(log_file: Path) -> None:
    """Our logs, the SDK's and uvicorn's: to stderr and to the log file, never to stdout."""
    log_file.parent.mkdir(parents=True, exist_ok=True)
    formatter = logging.Formatter(f"%(asctime)s serve[{os.getpid()}] %(name)s %(levelname)s %(message)s")
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr), logging.FileHandler(log_file)]
    root = logging.getLogger()
    for handler in handlers:
        handler.setFormatter(formatter)
        root.addHandler(handler)
    root.setLevel(logging.INFO)


@cli.command()
@click.option(
    "--port",
    type=click.IntRange(1, 65535),
    default=None,
    help="Serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio.",
)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help=f"Address to bind with --port; anything but loopback needs {TOKEN_ENV}.",
)
@click.option("--no-watch", is_flag=True, help="Do not keep the index following the working tree while serving.")
@click.option(
    "--tools",
    "tools",
    default=None,
    metavar="SETS",
    help="Tool families to serve, comma-separated: code,git,memory,learning,similarity,workflow or all "
    '(default: "tools" in .annals/config.json, else code).',
)
@click.pass_obj
def serve(obj: Context, port: int | None, host: str, no_watch: bool, tools: str | None) -> None:
    """Serve the MCP tools to coding agents: stdio by default, Streamable HTTP with --port."""
    token = os.environ.get(TOKEN_ENV) or None
    if port is None and host != "127.0.0.1":
        raise click.ClickException("--host needs --port: over stdio there is nothing to bind")
    if port is not None and not is_loopback(host) and token is None:
        raise click.ClickException(
            f"refusing to listen on {host} without a token: anyone who can reach it could read the repository. "
            f"Set {TOKEN_ENV} to a long random secret (clients send 'Authorization: Bearer <it>'), or bind 127.0.0.1"
        )
    if not obj.db_path.exists():
        raise click.ClickException(f"no index at {obj.db_path}: run `annals index {obj.repo}` first")
    _configure_logging(obj.db_path.parent / "logs" / "serve.log")

    from ..app import App
    from ..mcp import build_server, toolsets

    try:
        chosen = toolsets(tools if tools is not None else _configured_tools(obj.repo))
    except ValueError as exc:
        raise click.ClickException(f"--tools: {exc}") from exc
    app = App.for_repo(obj.repo, obj.db_option)
    server = build_server(app, watch=not no_watch, tools=list(chosen))
    # The imported modules and the server live as long as the process (some 85,000 objects): frozen, the
    # collector stops walking them in every full collection, which made the slowest packs on a 3,300-file
    # repository 60 ms slower (localize_bench, typeorm pack p95 230 -> 168 ms).
    gc.freeze()
    log = logging.getLogger("codeannals.serve")
    if port is None:
        log.info("serving %s over stdio (watch: %s)", obj.repo, not no_watch)
        server.run("stdio")
        return
    _serve_http(server, host, port, token)


def _configured_tools(repo: Path) -> str | list[str] | None:
    """ "tools" of .annals/config.json (a comma list or a list), None when it names none."""
    from ...hooks.settings import SettingsError, read_settings

    try:
        data = read_settings(repo)
    except SettingsError as exc:
        raise click.ClickException(str(exc)) from exc
    return data.get("tools")


def _serve_http(server: Any, host: str, port: int, token: str | None) -> None:
    import anyio
    import uvicorn
    from mcp.server.transport_security import TransportSecuritySettings

    # Our guard checks Origin, Host and the token first; the SDK's own check is the same lists.
    hosts = allowed_hosts(host, port)
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=sorted(hosts),
        allowed_origins=sorted(allowed_origins(hosts)),
    )
    app = http_guard(
        server.streamable_http_app(streamable_http_path=MCP_PATH, transport_security=security, host=host),
        hosts=hosts,
        token=token,
    )
    config = uvicorn.Config(app, host=host, port=port, log_config=None, log_level="info", lifespan="on")
    logging.getLogger("codeannals.serve").info(
        "serving MCP at http://%s:%d%s (token: %s)", host, port, MCP_PATH, "required" if token else "none"
    )
    anyio.run(uvicorn.Server(config).serve)
