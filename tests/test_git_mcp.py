"""The git tools through the real MCP client, in process."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

mcp = pytest.importorskip("mcp")
server_module = pytest.importorskip("codeannals.server.mcp")


def call_all(app: Any, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    """Run the calls in order on one in-process server: each result, or the MCPError it raised."""
    from mcp import Client
    from mcp.shared.exceptions import MCPError

    async def main() -> list[Any]:
        out: list[Any] = []
        async with Client(server_module.build_server(app)) as client:
            for name, args in calls:
                try:
                    out.append(await client.call_tool(name, args))
                except MCPError as exc:
                    out.append(exc)
        return out

    return anyio.run(main)


@pytest.fixture
def app(repo, annals):
    from codeannals.server.app import App

    repo.write(
        "src/shop.py",
        "def price(amount):\n    return amount * 2\n\n\ndef old_name(x):\n"
        "    total = 0\n    for i in range(x):\n        total += i * 3 + 1\n    return total\n",
    )
    repo.write("tests/test_shop.py", "from shop import price\n\n\ndef test_price():\n    assert price(1) == 2\n")
    repo.commit("base")
    repo.write(
        "src/shop.py",
        "def price(amount, tax=0):\n    return amount * 2\n\n\ndef new_name(x):\n"
        "    total = 0\n    for i in range(x):\n        total += i * 3 + 1\n    return total\n",
    )
    repo.commit("change")
    annals("index", "--history")
    return App.for_repo(repo.root)


def test_read_only_tools_and_argument_errors(app, repo) -> None:
    from mcp import Client
    from mcp.shared.exceptions import MCPError

    async def listed() -> dict[str, Any]:
        async with Client(server_module.build_server(app)) as client:
            return {t.name: t for t in (await client.list_tools()).tools}

    tools = anyio.run(listed)
    for name in (
        "git_get_state",
        "git_diff_symbols",
        "symbol_at",
        "git_commit_with_context",
        "git_recover_state",
        "git_safepoints",
        "git_resolve_conflict",
        "git_bisect_start",
    ):
        assert name in tools
    assert tools["git_diff_symbols"].annotations.read_only_hint is True
    assert tools["git_recover_state"].annotations.destructive_hint is True

    state, diff, old, history, *refused = call_all(
        app,
        [
            ("git_get_state", {}),
            ("git_diff_symbols", {"base": "HEAD~1"}),
            ("symbol_at", {"symbol": "src/shop.py::new_name", "rev": "HEAD~1"}),
            ("symbol_history", {"symbol": "src/shop.py::new_name"}),
            ("git_diff_symbols", {"base": "--output=/tmp/x"}),
            ("git_diff_symbols", {"base": "HEAD", "target": "no-such-rev"}),
            ("git_resolve_conflict", {"strategy": "ours", "files": ["../../etc/passwd"]}),
            ("symbol_at", {"symbol": "src/shop.py::price", "rev": "no-such-rev"}),
        ],
    )
    for error, field in zip(refused, ("base", "target", "files", "rev"), strict=True):
        assert isinstance(error, MCPError), error
        assert error.error.code == -32602 and f"'{field}'" in error.error.message
    s = state.structured_content
    assert s["branch"] == "main" and s["clean"] is True and s["stale_symbols"] == []
    assert s["freshness"]["head_matches"] is True
    d = diff.structured_content
    assert [(c["id"], c["changed"]) for c in d["changed_symbols"]] == [("src/shop.py::price", "signature")]
    assert [(r["from"], r["to"]) for r in d["renamed_symbols"]] == [("src/shop.py::old_name", "src/shop.py::new_name")]
    assert d["tests_affected"] == ["tests/test_shop.py"]
    o = old.structured_content
    assert o["id"] == "src/shop.py::old_name" and o["source"].startswith("def old_name(x):")
    events = history.structured_content["events"]
    assert len([e for e in events if e.get("commit")]) >= 2  # born as old_name, then renamed


def test_commit_recover_and_push_refusal(app, repo) -> None:
    repo.write("src/shop.py", (repo.root / "src/shop.py").read_text().replace("amount * 2", "amount * 3"))
    repo.git("add", "src/shop.py")
    repo.write("notes.txt", "untracked work\n")
    pushed, committed, points, undone = call_all(
        app,
        [
            ("git_commit_with_context", {"type": "fix", "agent_id": "codex", "goal": "triple", "auto_push": True}),
            (
                "git_commit_with_context",
                {
                    "type": "fix",
                    "agent_id": "codex",
                    "goal": "triple",
                    "goal_id": "G-3",
                    "requirement_tags": ["SHOP-1"],
                    "risk": "medium",
                },
            ),
            ("git_safepoints", {}),
            ("git_recover_state", {"action": "undo_uncommitted"}),
        ],
    )
    assert pushed.is_error and "auto_push is refused" in pushed.content[0].text
    c = committed.structured_content
    assert c["title"] == "fix(codex): triple" and "Goal-Id: G-3" in c["message"] and c["pushed"] is False
    assert c["changed_symbols"] == ["src/shop.py::price"]
    assert points.structured_content["safe_points"][0]["name"] == c["safe_point"]["name"]
    u = undone.structured_content
    assert not (repo.root / "notes.txt").exists() and "checkout_safe_point" in u["how_to_undo"]
    (restored,) = call_all(
        app, [("git_recover_state", {"action": "checkout_safe_point", "name": u["safe_point"]["name"]})]
    )
    assert not restored.is_error and (repo.root / "notes.txt").read_text() == "untracked work\n"


def test_bisect_through_the_tool(app, repo) -> None:
    for n in range(4):
        repo.write("v.txt", f"{n}\n")
        repo.commit(f"v{n}")
    (found,) = call_all(
        app,
        [
            (
                "git_bisect_start",
                {"good": "HEAD~3", "bad": "HEAD", "test_command": ["sh", "-c", "test $(cat v.txt) -lt 2"]},
            )
        ],
    )
    assert found.structured_content["title"] == "v2"
