"""Shared by the MCP tests: a small real repository, indexed twice (so symbols have history), and a
helper that calls a tool through the SDK's in-process client."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult

from .conftest import Repo

FILES = {
    "shop/__init__.py": '"""A tiny shop."""\n',
    "shop/config.py": '"""Settings read from the environment."""\nimport os\n\n'
    'CURRENCY = os.environ.get("SHOP_CURRENCY", "EUR")\n\n\n'
    'def currency() -> str:\n    """The currency prices are shown in."""\n    return CURRENCY\n',
    "shop/prices.py": '"""Prices: parse and format money amounts."""\nfrom shop.config import currency\n\n\n'
    'def parse_price(text: str) -> int:\n    """Parse a price such as \'12.50\' into cents."""\n'
    '    euros, _, cents = text.partition(".")\n    return int(euros) * 100 + int(cents or 0)\n\n\n'
    'def format_price(cents: int) -> str:\n    """Format cents as a price with its currency."""\n'
    '    return f"{cents // 100}.{cents % 100:02d} {currency()}"\n\n\n'
    'class PriceCache:\n    """Remember prices already parsed."""\n\n'
    "    def __init__(self) -> None:\n        self.seen: dict[str, int] = {}\n\n"
    '    def get(self, text: str) -> int:\n        """The price of text, parsed once."""\n'
    "        if text not in self.seen:\n            self.seen[text] = parse_price(text)\n"
    "        return self.seen[text]\n",
    "shop/cart.py": '"""A shopping cart that totals its items."""\nfrom shop.config import currency\n'
    "from shop.prices import format_price, parse_price\n\n\n"
    'class Cart:\n    """Items and their prices."""\n\n'
    "    def __init__(self) -> None:\n        self.items: list[tuple[str, int]] = []\n\n"
    "    def add_item(self, name: str, price_text: str) -> None:\n"
    '        """Add an item at a price given as text."""\n'
    "        self.items.append((name, parse_price(price_text)))\n\n"
    '    def total(self) -> str:\n        """The sum of the prices, formatted."""\n'
    "        return format_price(sum(p for _, p in self.items))\n",
    "shop/checkout.py": '"""Checkout: total a cart and write the receipt."""\nfrom shop.cart import Cart\n'
    "from shop.config import currency\n\n\n"
    "def checkout(items: list[tuple[str, str]], receipt: str) -> str:\n"
    '    """Total the items and write a receipt file."""\n    cart = Cart()\n'
    "    for name, price in items:\n        cart.add_item(name, price)\n"
    '    with open(receipt, "w") as fh:\n        fh.write(cart.total())\n    return cart.total()\n',
    "shop/report.py": '"""Sales reports."""\nfrom shop.config import currency\n\n\n'
    'def report_header() -> str:\n    return f"Sales in {currency()}"\n',
    "shop/api.py": '"""HTTP handlers."""\nfrom shop.config import currency\nfrom shop.prices import parse_price\n\n\n'
    'def handle_quote(text: str) -> dict:\n    """Answer a price quote request."""\n'
    '    return {"cents": parse_price(text), "currency": currency()}\n',
    "tests/__init__.py": "",
    "tests/test_prices.py": "from shop.prices import format_price, parse_price\n\n\n"
    'def test_parse_price():\n    assert parse_price("1.50") == 150\n\n\n'
    'def test_format_price():\n    assert format_price(150).startswith("1.50")\n',
    "tests/test_cart.py": "from shop.cart import Cart\n\n\ndef test_total():\n    cart = Cart()\n"
    '    cart.add_item("tea", "2.00")\n    assert cart.total().startswith("2.00")\n',
}
CHANGED_PRICES = FILES["shop/prices.py"].replace(
    '    euros, _, cents = text.partition(".")\n', '    euros, _, cents = text.strip().partition(".")\n'
)


@contextmanager
def isolated_git_env(home: Path) -> Iterator[None]:
    """Module-scoped fixtures cannot use the function-scoped monkeypatch: set the same isolation here."""
    config = home / ".gitconfig"
    config.write_text("[user]\n\tname = Test\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GIT_CONFIG_GLOBAL", str(config))
        mp.setenv("GIT_CONFIG_NOSYSTEM", "1")
        mp.setenv("HOME", str(home))
        mp.delenv("ANNALS_DB", raising=False)
        mp.setenv("ANNALS_VECTORS", "off")
        yield


def make_shop(root: Path) -> Repo:
    """The shop repository, indexed at its first commit and again after parse_price changed."""
    from codeannals.indexer.run import ensure_git_excludes_annals, index_tree
    from codeannals.store import default_db_path, open_store

    root.mkdir(parents=True, exist_ok=True)
    repo = Repo(root)
    for rel, text in FILES.items():
        repo.write(rel, text)
    repo.commit("shop")
    ensure_git_excludes_annals(root)
    conn = open_store(default_db_path(root))
    try:
        index_tree(root, conn, source="cli")
        repo.write("shop/prices.py", CHANGED_PRICES)
        repo.commit("parse_price strips spaces")
        index_tree(root, conn, source="cli")
    finally:
        conn.close()
    return repo


def call(server: Any, name: str, arguments: dict[str, Any] | None = None) -> CallToolResult:
    """One tool call through the SDK's client, connected to the server in-process."""

    async def go() -> tuple[CallToolResult | None, MCPError | None]:
        async with Client(server) as client:
            try:
                return await client.call_tool(name, arguments or {}), None
            except MCPError as exc:  # raised outside the client's task group, not as an ExceptionGroup
                return None, exc

    result, error = anyio.run(go)
    if error is not None:
        raise error
    assert result is not None
    return result


def data(result: CallToolResult) -> dict[str, Any]:
    """The structured answer of a successful call."""
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


def error_text(result: CallToolResult) -> str:
    assert result.is_error, result.structured_content
    return " ".join(getattr(block, "text", "") for block in result.content)


def environ_without(*names: str) -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in names}
