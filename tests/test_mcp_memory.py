"""Context memory and learning tools through the SDK's in-process client: events in the log, so they
survive a restart and a rebuild; session rules expire after an hour idle; vibe_check asks by rules.

One repository and one server for the module, and one conversation recorded on it first (`recorded`): the
price bug's messages, a second context, their links and a lesson. Every test reads that, never what another
test wrote, so pytest-xdist may run any of them alone in a worker (it did: three failed when split)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from codeannals.server.app import App
from codeannals.server.mcp import build_server
from codeannals.store import memory, open_store
from codeannals.store.events import ToolCalled
from codeannals.store.maintenance import rebuild, verify
from mcp.shared.exceptions import MCPError

from .mcp_support import call, data, error_text, isolated_git_env, make_shop

CONVERSATION = [
    (
        "user",
        "HIGH",
        "Cart totals are wrong when a price has spaces. We must fix parse_price without changing its signature.",
    ),
    (
        "assistant",
        "MEDIUM",
        "The root cause is that parse_price never strips the text.\n```python\n"
        "euros, _, cents = text.strip().partition('.')\n```",
    ),
    ("user", "LOW", "Sounds right."),
    ("assistant", "MEDIUM", "Fixed in shop/prices.py; the cart tests pass now."),
    ("user", "CRITICAL", "Always run tests/test_cart.py before committing changes to prices."),
]


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("home")
    with isolated_git_env(home):
        yield make_shop(tmp_path_factory.mktemp("shop") / "repo").root


@pytest.fixture(scope="module")
def recorded(shop: Path) -> dict[str, Any]:
    """The server, and its answers to the conversation every test reads."""
    server = build_server(App.for_repo(shop))
    answers = [
        add(server, "price-bug", role, importance, text, ["prices"] if i == 1 else None)
        for i, (role, importance, text) in enumerate(CONVERSATION)
    ]
    add(server, "deploy-notes", "user", "MEDIUM", "Deploy the docs site to the staging server tonight.")
    links = [
        data(call(server, "add_relationship", {"sourceContextId": "price-bug", **link}))
        for link in (
            {"targetContextId": "deploy-notes", "relationshipType": "continues", "weight": 0.5},
            {"targetContextId": "symbol:parse_price", "relationshipType": "references"},
            {"targetContextId": "module:shop.cart", "relationshipType": "references", "weight": 0.6},
        )
    ]
    lesson = {
        "mistake": "Wrote a second price parser although parse_price existed. It took an hour.",
        "category": "over-engineering",
        "solution": "Searched first",
    }
    learned = data(call(server, "vibe_learn", lesson))
    return {"server": server, "answers": answers, "links": links, "learned": learned}


@pytest.fixture(scope="module")
def server(recorded: dict[str, Any]):  # type: ignore[no-untyped-def]
    return recorded["server"]


def add(server, context: str, role: str, importance: str, text: str, tags: list[str] | None = None):  # type: ignore[no-untyped-def]
    return data(
        call(
            server,
            "add_message",
            {"contextId": context, "message": text, "role": role, "importance": importance, "tags": tags or []},
        )
    )


def test_ping_answers_pong(server) -> None:  # type: ignore[no-untyped-def]
    result = call(server, "ping")
    assert result.content[0].text == "pong"
    assert result.structured_content["message"] == "pong"


def test_messages_are_summarized_automatically_at_the_threshold(recorded: dict[str, Any]) -> None:
    server = recorded["server"]
    assert [a["summarized"] for a in recorded["answers"]] == [False, False, False, False, True]
    found = data(call(server, "retrieve_context", {"contextId": "price-bug"}))
    assert found["success"] is True and found["hasSummary"] is True
    assert [m["role"] for m in found["messages"]] == [r for r, _, _ in CONVERSATION]
    first = found["messages"][0]
    assert first["importance"] == "HIGH" and first["contextId"] == "price-bug" and first["timestamp"] > 0
    summary = found["summary"]
    assert summary["version"] == 1 and summary["messageCount"] == 5
    assert summary["codeBlocks"] == [
        {"language": "python", "code": "euros, _, cents = text.strip().partition('.')", "importance": 0.5}
    ]
    assert "Always run tests/test_cart.py before committing changes to prices." in summary["keyInsights"]
    assert summary["summary"].startswith("5 messages (3 from the user, 2 from the assistant), tagged prices.")
    assert summary["importanceScore"] == pytest.approx(0.5 * 1.0 + 0.5 * (0.75 + 0.5 + 0.25 + 0.5 + 1.0) / 5)
    assert summary["tokensUsed"] <= summary["tokenLimit"]


def test_summarize_on_request_is_deterministic_and_versioned(server) -> None:  # type: ignore[no-untyped-def]
    before = data(call(server, "retrieve_context", {"contextId": "price-bug"}))["summary"]
    again = data(call(server, "summarize_context", {"contextId": "price-bug"}))
    assert again["version"] == before["version"] + 1
    for field in (
        "summary",
        "codeBlocks",
        "keyInsights",
        "importanceScore",
        "messageCount",
        "tokensUsed",
        "tokenLimit",
    ):
        assert again[field] == before[field], field
    assert "no context 'nowhere'" in error_text(call(server, "summarize_context", {"contextId": "nowhere"}))


def test_threshold_is_configurable(shop: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANNALS_SUMMARIZE_AFTER", "2")
    quick = build_server(App.for_repo(shop))
    assert add(quick, "quick", "user", "LOW", "first thing")["summarized"] is False
    assert add(quick, "quick", "assistant", "LOW", "second thing")["summarized"] is True
    monkeypatch.setenv("ANNALS_SUMMARIZE_AFTER", "soon")
    with pytest.raises(ValueError, match="ANNALS_SUMMARIZE_AFTER"):
        build_server(App.for_repo(shop))


def test_similar_contexts_by_full_text_say_so(server) -> None:  # type: ignore[no-untyped-def]
    similar = data(call(server, "get_similar_contexts", {"query": "price parse spaces", "limit": 3}))
    assert similar["method"].startswith("fulltext")
    assert similar["contexts"][0]["contextId"] == "price-bug"
    assert 0 < similar["contexts"][0]["similarity"] <= 1
    assert "deploy-notes" not in {c["contextId"] for c in similar["contexts"]}
    by_id = data(call(server, "get_similar_contexts", {"query": "deploy"}))
    assert by_id["contexts"][0]["contextId"] == "deploy-notes"


def test_relationships_between_contexts_and_to_code(recorded: dict[str, Any]) -> None:
    server = recorded["server"]
    linked, to_symbol, to_module = recorded["links"]
    assert linked["success"] and linked["targetKind"] == "context"
    assert to_symbol["targetContextId"] == "shop/prices.py::parse_price" and to_symbol["weight"] == 0.8
    assert to_module["targetContextId"] == "shop/cart.py" and to_module["targetKind"] == "module"

    outgoing = data(call(server, "get_related_contexts", {"contextId": "price-bug", "direction": "outgoing"}))
    assert {(r["contextId"], r["kind"]) for r in outgoing["relatedContexts"]} == {
        ("deploy-notes", "context"),
        ("shop/prices.py::parse_price", "symbol"),
        ("shop/cart.py", "module"),
    }
    incoming = data(call(server, "get_related_contexts", {"contextId": "deploy-notes", "direction": "incoming"}))
    assert [(r["contextId"], r["relationshipType"]) for r in incoming["relatedContexts"]] == [
        ("price-bug", "continues")
    ]
    only = data(call(server, "get_related_contexts", {"contextId": "price-bug", "relationshipType": "continues"}))
    assert [r["contextId"] for r in only["relatedContexts"]] == ["deploy-notes"]

    # The code knows the conversation about it.
    symbol = data(call(server, "get_symbol", {"symbol": "parse_price"}))
    assert {c["contextId"] for c in symbol["contexts"]} == {"price-bug"}
    contract = data(call(server, "get_module_contract", {"path": "shop/cart.py"}))
    assert [c["contextId"] for c in contract["contexts"]] == ["price-bug"]
    pack = data(call(server, "get_context_pack", {"task": "parse_price rejects prices with spaces"}))
    assert "price-bug" in {c["contextId"] for c in pack["contexts"]}


def test_relationship_arguments_are_checked(server) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(MCPError) as bad_type:
        call(server, "add_relationship", {"sourceContextId": "a", "targetContextId": "b", "relationshipType": "likes"})
    assert bad_type.value.error.code == -32602 and "relationshipType" in bad_type.value.error.message
    with pytest.raises(MCPError) as heavy:
        call(
            server,
            "add_relationship",
            {"sourceContextId": "a", "targetContextId": "b", "relationshipType": "similar", "weight": 3},
        )
    assert "weight" in heavy.value.error.message
    with pytest.raises(MCPError) as escape:
        call(
            server,
            "add_relationship",
            {"sourceContextId": "a", "targetContextId": "module:../../etc/passwd", "relationshipType": "references"},
        )
    assert escape.value.error.code == -32602 and "outside the repository" in escape.value.error.message
    with pytest.raises(MCPError) as itself:
        call(
            server, "add_relationship", {"sourceContextId": "a", "targetContextId": "a", "relationshipType": "similar"}
        )
    assert "itself" in itself.value.error.message
    missing = call(
        server,
        "add_relationship",
        {"sourceContextId": "a", "targetContextId": "symbol:no_such_symbol", "relationshipType": "references"},
    )
    assert "no symbol 'no_such_symbol'" in error_text(missing)


def test_visualize_a_context_and_the_list_of_contexts(server) -> None:  # type: ignore[no-untyped-def]
    as_json = data(call(server, "visualize_context", {"contextId": "price-bug", "depth": 2}))
    assert as_json["messageCount"] == 5 and as_json["hasSummary"] is True
    assert {n["id"] for n in as_json["nodes"]} >= {"price-bug", "deploy-notes", "shop/prices.py::parse_price"}
    mermaid = data(call(server, "visualize_context", {"contextId": "price-bug", "format": "mermaid"}))
    assert mermaid["text"].startswith("graph LR") and "-->|continues 0.5|" in mermaid["text"]
    text = data(
        call(server, "visualize_context", {"contextId": "price-bug", "format": "text", "includeRelated": False})
    )
    assert text["text"].startswith("Context: price-bug\nMessages: 5") and text["edges"] == []
    listing = data(call(server, "visualize_context", {}))
    assert {"price-bug", "deploy-notes"} <= {c["contextId"] for c in listing["contexts"]}
    with pytest.raises(MCPError):
        call(server, "visualize_context", {"contextId": "price-bug", "depth": 4})


def test_metrics_count_tool_calls_and_describe_memory(server) -> None:  # type: ignore[no-untyped-def]
    add(server, "metrics-a", "user", "CRITICAL", "Count this context.")
    add(server, "metrics-b", "user", "LOW", "And this one.")
    call(
        server,
        "add_relationship",
        {"sourceContextId": "metrics-a", "targetContextId": "symbol:parse_price", "relationshipType": "references"},
    )
    call(server, "search_symbols", {"query": "cart"})
    call(server, "get_symbol", {"symbol": "no_such_symbol"})
    metrics = data(call(server, "get_context_metrics", {"period": "day"}))
    assert metrics["totalCalls"] >= 2 and metrics["byType"]["search_symbols"] >= 1
    assert metrics["errors"] >= 1
    assert metrics["historyTrend"][-1]["calls"] == metrics["totalCalls"] and len(metrics["historyTrend"]) == 1
    assert len(data(call(server, "get_context_metrics", {}))["historyTrend"]) == 7  # a week by default
    stats = metrics["contextStats"]
    assert stats["totalContexts"] >= 2 and stats["messagesByImportance"]["CRITICAL"] >= 1
    assert metrics["relationshipMetrics"]["byTargetKind"]["symbol"] >= 1


def test_memory_survives_a_restart_and_a_rebuild(server, shop: Path) -> None:  # type: ignore[no-untyped-def]
    call(server, "update_constitution", {"sessionId": "keep", "rule": "Small commits only"})
    before = data(call(server, "retrieve_context", {"contextId": "price-bug"}))
    restarted = build_server(App.for_repo(shop))  # a new server: nothing in memory but the log
    after = data(call(restarted, "retrieve_context", {"contextId": "price-bug"}))
    assert after["messages"] == before["messages"] and after["summary"] == before["summary"]
    assert data(call(restarted, "check_constitution", {"sessionId": "keep"}))["rules"] == ["Small commits only"]
    conn = open_store(App.for_repo(shop).db_path)
    try:
        rebuild(conn)
        assert memory.retrieve(conn, "price-bug")["messages"] == before["messages"]
        assert verify(conn)["ok"] is True
    finally:
        conn.close()


def test_vibe_learn_keeps_one_sentence_maps_categories_and_skips_repeats(recorded: dict[str, Any]) -> None:
    server, first = recorded["server"], recorded["learned"]
    assert first["added"] is True and first["alreadyKnown"] is False
    assert first["category"] == "Complex Solution Bias" and first["currentTally"] == 1
    assert first["mistake"] == "Wrote a second price parser although parse_price existed."
    again = data(
        call(
            server,
            "vibe_learn",
            {"mistake": "Wrote another price parser although parse_price existed", "category": "Complex Solution Bias"},
        )
    )
    assert again["added"] is False and again["alreadyKnown"] is True and again["currentTally"] == 1
    assert again["knownAs"]["mistake"] == first["mistake"]
    own = data(
        call(
            server,
            "vibe_learn",
            {"mistake": "Forgot the receipt file encoding", "category": "Encoding", "type": "mistake"},
        )
    )
    assert own["category"] == "Encoding" and own["added"] is True
    for text in ("Guessed the cart API instead of reading it", "Assumed prices are always positive"):
        data(call(server, "vibe_learn", {"mistake": text, "category": "wrong assumptions"}))
    top = data(call(server, "vibe_learn", {"mistake": "Asked nothing about currencies", "category": "unclear asks"}))
    assert [c["category"] for c in top["topCategories"]][0] == "Assumption Error"
    assert len(top["topCategories"]) == 3 and top["topCategories"][0]["count"] == 2
    with pytest.raises(MCPError) as bad:
        call(server, "vibe_learn", {"mistake": "x", "category": "y", "type": "regret"})
    assert bad.value.error.code == -32602 and "type" in bad.value.error.message


def test_constitution_update_check_reset_and_cap(server) -> None:  # type: ignore[no-untyped-def]
    assert data(call(server, "check_constitution", {"sessionId": "s-new"}))["rules"] == []
    for i in range(52):
        call(server, "update_constitution", {"sessionId": "s-cap", "rule": f"rule {i}"})
    rules = data(call(server, "check_constitution", {"sessionId": "s-cap"}))["rules"]
    assert len(rules) == 50 and rules[0] == "rule 2" and rules[-1] == "rule 51"  # the oldest went first
    reset = data(call(server, "reset_constitution", {"sessionId": "s-cap", "rules": ["only this"]}))
    assert reset["rules"] == ["only this"]
    assert data(call(server, "check_constitution", {"sessionId": "s-cap"}))["rules"] == ["only this"]
    with pytest.raises(MCPError) as missing:
        call(server, "update_constitution", {"sessionId": "s-cap"})
    assert missing.value.error.code == -32602 and "rule" in missing.value.error.message


def test_sessions_expire_after_an_hour_idle(server, shop: Path) -> None:  # type: ignore[no-untyped-def]
    call(server, "update_constitution", {"sessionId": "s-idle", "rule": "No new dependencies"})
    conn = open_store(App.for_repo(shop).db_path)
    try:
        from codeannals.store import learning

        later = time.time() + 3601
        assert learning.session_state(conn, "s-idle", now=later) == {
            "sessionId": "s-idle",
            "rules": [],
            "known": True,
            "expired": True,
            "lastActiveAt": learning.session_state(conn, "s-idle")["lastActiveAt"],
        }
        # Activity after the idle hour starts the session afresh: the old rules are gone for good.
        two_hours = (datetime.now(UTC) + timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        memory.record(conn, [ToolCalled("check_constitution", two_hours, 1.0, True, "s-idle")])
        assert learning.session_state(conn, "s-idle", now=later + 3600)["rules"] == []
        # A session kept busy keeps its rules.
        call(server, "update_constitution", {"sessionId": "s-busy", "rule": "Keep it"})
        soon = (datetime.now(UTC) + timedelta(minutes=50)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        memory.record(conn, [ToolCalled("check_constitution", soon, 1.0, True, "s-busy")])
        assert learning.session_state(conn, "s-busy", now=time.time() + 5400)["rules"] == ["Keep it"]
    finally:
        conn.close()


def test_vibe_check_asks_from_rules_lessons_and_the_index(server) -> None:  # type: ignore[no-untyped-def]
    call(
        server,
        "reset_constitution",
        {"sessionId": "vc", "rules": ["Never change a price format without the product owner"]},
    )
    answer = data(
        call(
            server,
            "vibe_check",
            {
                "goal": "Support prices with a comma",
                "plan": "Write a new price parser in shop/config.py and also add a plugin framework for currencies. "
                "I think it should work.",
                "userPrompt": "Prices typed as 12,50 are rejected at checkout",
                "uncertainties": ["whether the API sends commas"],
                "sessionId": "vc",
            },
        )
    )
    questions = answer["questionList"]
    text = answer["questions"]
    assert text.splitlines()[0].startswith('1. Session rule: "Never change a price format')
    assert any("shop/config.py" in q and "imported by 5 files" in q for q in questions)
    assert any("does not mention tests" in q for q in questions)
    assert any('"price parser"' in q and "shop/prices.py::parse_price already exists" in q for q in questions)
    assert any("Wrote a second price parser" in q for q in questions)  # the lesson learned
    assert {"Complex Solution Bias", "Feature Creep", "Assumption Error"} <= set(answer["categories"])
    assert any("whether the API sends commas" in q for q in questions)
    assert any("checkout" in q and "user's request" in q for q in questions)
    assert questions[-4:] == [
        "Does this plan solve what the user asked for, or a neighbouring problem?",
        "Is there a simpler way to meet the same need, with less new code?",
        "Which assumptions does the plan rest on, and which of them have you checked?",
        "Would the user recognise their request in this plan, or has the goal drifted?",
    ]
    assert {t["path"] for t in answer["touched"]} >= {"shop/config.py"}


def test_vibe_check_without_anything_known_still_asks_the_floor(server) -> None:  # type: ignore[no-untyped-def]
    answer = data(call(server, "vibe_check", {"goal": "Tidy", "plan": "Read the module, then decide."}))
    assert len(answer["questionList"]) >= 4
    assert answer["questionList"][-4].startswith("Does this plan solve what the user asked for")
    with pytest.raises(MCPError) as missing:
        call(server, "vibe_check", {"goal": "Tidy"})
    assert missing.value.error.code == -32602 and "plan" in missing.value.error.message
