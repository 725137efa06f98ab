"""Whole workflow sessions through the SDK's MCP client, on the real shop repository in tmp_path:
clarified, planned from the index, refused where the rules say so, executed in the sandbox,
failed and fixed, summarised, failed by three blocks, and replayed to the same state."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from codeannals.server.app import App
from codeannals.server.mcp import DEFAULT_TOOLSETS, build_server, toolsets
from codeannals.store import default_db_path, log, open_store, queries
from codeannals.store.maintenance import rebuild, verify
from mcp import Client

from .conftest import Repo
from .mcp_support import CHANGED_PRICES, call, data, make_shop

ANNALS = str(Path(sys.executable).parent / "annals")
PYTHON = sys.executable
BROKEN_PRICES = CHANGED_PRICES.replace("return int(euros) * 100 + int(cents or 0)", "return int(euros) * 100")
TOOLS_LIST_BUDGET = 25_000  # bytes of tools/list an agent reads in its first minute


@pytest.fixture
def shop(tmp_path: Path) -> Repo:
    return make_shop(tmp_path / "repo")


def tool(server: Any, name: str, **arguments: Any) -> dict[str, Any]:
    return data(call(server, name, arguments))


def session_events(root: Path, session_id: str) -> list[log.StoredEvent]:
    conn = open_store(default_db_path(root))
    try:
        return list(log.read(conn, stream=f"workflow:{session_id}"))
    finally:
        conn.close()


def without_freshness(answer: dict[str, Any]) -> dict[str, Any]:
    found = {k: v for k, v in answer.items() if k != "freshness"}
    found["result"] = {k: v for k, v in found["result"].items() if k != "git_drift"}
    return found


def approve(server: Any, sid: str) -> dict[str, Any]:
    answer = tool(
        server,
        "approve_plan",
        session_id=sid,
        approve=True,
        requirement_tags=["bugfix"],
        success_criteria=["the tests affected pass"],
    )
    assert answer["state"] == "plan_approved", answer
    return answer


def test_a_vague_request_is_clarified_planned_refused_executed_failed_fixed_and_replayed(shop: Repo) -> None:
    server = build_server(App.for_repo(shop.root), tools=["workflow"])
    started = tool(server, "ingest_intent", request="make it better")
    sid = started["session_id"]
    assert started["state"] == "received"
    assert started["result"]["missing"] == ["goal", "scope", "requirement_tags"]
    assert started["result"]["question"]["item"] == "goal"

    # Two clarifications: the goal (whose words imply the tag), then the scope, left to the rules.
    first = tool(server, "clarify_intent", session_id=sid, answer="spaces around a price should not break parsing")
    assert first["result"]["missing"] == ["scope"] and first["result"]["intent"]["requirement_tags"] == ["bugfix"]
    assert first["result"]["question"]["item"] == "scope"
    second = tool(server, "clarify_intent", session_id=sid, answer="you decide")
    assert second["state"] == "intent_captured" and second["result"]["defaulted"] is True
    intent = second["result"]["intent"]
    assert intent["sources"]["scope"] == "default"
    assert "shop/prices.py" in [s["path"] for s in intent["scope"]]

    shop.write("notes.txt", "an uncommitted file\n")  # a dirty tree warns when planning
    planned = tool(server, "generate_plan", session_id=sid)
    assert planned["state"] == "plan_generated"
    assert any("uncommitted" in w for w in planned["warnings"])
    plan = planned["result"]["plan"]
    step = plan["steps"][0]
    conn = open_store(default_db_path(shop.root))
    try:
        impact = queries.impact(conn, "shop/prices.py")
    finally:
        conn.close()
    assert step["module"] == "shop/prices.py" and step["tests"] == impact["tests"]
    assert step["why"][0].startswith("a default scope you accepted")  # not 'named in the request': it was not
    assert "tests/test_prices.py::test_parse_price" in step["tests"]  # runnable node ids (store/testmap.py)
    assert step["commands"][0][-len(step["tests"]) :] == step["tests"]
    assert all(s["module"] != "shop/prices.py" for s in plan["steps"][1:])  # one module a step

    refused = tool(server, "run_action", session_id=sid, step="step-1", command=step["commands"][0])
    assert not refused["allowed"] and "the plan is not approved" in refused["blocking_reasons"]
    not_yet = tool(server, "approve_plan", session_id=sid, approve=True, requirement_tags=[], success_criteria=[])
    assert not not_yet["allowed"] and "no requirement tags and no success criteria" in not_yet["blocking_reasons"][0]

    bad_commands: list[tuple[dict[str, Any], str]] = [
        ({"command": ["curl", "https://example.com"]}, "not on the allowed list"),
        ({"command": ["git", "log", "|", "head"]}, "shell metacharacter"),
        ({"command": ["git", "status"], "cwd": "/"}, "outside the allowed roots"),
        ({"command": ["PAGER=cat", "rm", "-rf", "shop"]}, "not on the allowed list"),
    ]
    for arguments, reason in bad_commands:
        approve(server, sid)
        answer = tool(server, "run_action", session_id=sid, step="step-1", **arguments)
        assert not answer["allowed"] and any(reason in r for r in answer["blocking_reasons"]), answer
        assert answer["state"] == "plan_generated"  # a refused action returns to approval
    approve(server, sid)
    slow = tool(
        server,
        "run_action",
        session_id=sid,
        step="step-1",
        timeout_seconds=1,
        command=[PYTHON, "-c", "import time\ntime.sleep(30)"],
    )
    assert slow["allowed"] and slow["result"]["timed_out"] is True and slow["result"]["exit_code"] is None
    assert slow["result"]["duration_ms"] < 10_000 and slow["result"]["safepoint"]  # python -c may write
    assert any("not one of step-1's planned commands" in w for w in slow["warnings"])

    shop.write("shop/prices.py", BROKEN_PRICES)
    ran = tool(server, "run_action", session_id=sid, step="step-1", command=step["commands"][0])
    assert ran["result"]["exit_code"] == 1 and ran["result"]["planned"] is True
    failed = tool(server, "verify_result", session_id=sid)
    assert failed["result"]["passed"] is False and failed["state"] == "plan_approved"  # back to fixing
    assert "test_parse_price" in failed["result"]["cause"] and "run_action" in failed["result"]["advice"]
    assert "tests/test_prices.py" in failed["result"]["tests"]
    assert "shop/prices.py::parse_price" in failed["result"]["changed"]
    early = tool(server, "summarize", session_id=sid)
    assert not early["allowed"] and early["blocking_reasons"] == ["verification failed"]

    shop.write("shop/prices.py", CHANGED_PRICES.replace("text.strip()", "text.strip(' ')"))
    tool(server, "run_action", session_id=sid, step="step-1", command=step["commands"][0])
    passed = tool(server, "verify_result", session_id=sid)
    assert passed["result"]["passed"] is True and passed["state"] == "verify_run"
    summary = tool(server, "summarize", session_id=sid)
    assert summary["state"] == "summarized"
    assert summary["result"]["checks"] == {
        "intent_complete": True,
        "every_step_recorded": True,
        "no_approval_skipped": True,
        "next_action_on_failure": True,
    }
    assert any("uncommitted" in w for w in summary["result"]["summary"]["warnings"])
    tool(server, "record_user_feedback", session_id=sid, approved=True, notes="works")

    types = [e.type for e in session_events(shop.root, sid)]
    assert types.count("workflow.transition_checked") >= 7  # six blocks and the dirty-tree warning
    assert types.count("workflow.action_started") == types.count("workflow.action_executed") == 3
    status = tool(server, "get_session_status", session_id=sid)
    assert [h["step"] for h in status["result"]["history"]][:3] == [
        "intent_captured",
        "intent_clarified",
        "intent_clarified",
    ]
    assert all(h["why"] for h in status["result"]["history"])
    measured = tool(server, "get_workflow_metrics", session_id=sid)["sessions"][0]
    assert measured["intent_match"] == 1.0 and measured["verification_pass_rate"] == 0.5
    assert measured["plan_fidelity"] == round(1 / len(plan["steps"]), 3)

    # Replay: the projection rebuilt from the log equals the live one, and answers the same.
    conn = open_store(default_db_path(shop.root))
    try:
        assert {r["projection"]: r["equal"] for r in verify(conn)["projections"]}["workflow"] is True
        rebuild(conn)
    finally:
        conn.close()
    replayed = tool(build_server(App.for_repo(shop.root), tools=["workflow"]), "get_session_status", session_id=sid)
    assert without_freshness(replayed) == without_freshness(status)


def test_three_blocks_in_a_row_fail_the_session(shop: Repo) -> None:
    server = build_server(App.for_repo(shop.root), tools=["workflow"])
    sid = tool(
        server,
        "ingest_intent",
        request="Fix `parse_price` so that it strips spaces.\nsuccess criteria: tests/test_prices.py passes",
    )["session_id"]
    plan = tool(server, "generate_plan", session_id=sid)["result"]["plan"]
    assert tool(server, "get_session_status", session_id=sid)["result"]["intent"]["success_criteria"] == [
        "tests/test_prices.py passes"
    ]
    for n in range(3):
        answer = tool(server, "run_action", session_id=sid, step="step-1", command=plan["steps"][0]["commands"][0])
        assert not answer["allowed"]
        assert answer["state"] == ("failed" if n == 2 else "plan_generated")
    status = tool(server, "get_session_status", session_id=sid)
    assert "3 blocks in a row" in status["result"]["cause"]
    assert status["suggested_next_actions"][0].startswith("ingest_intent")
    assert [e.type for e in session_events(shop.root, sid)][-1] == "workflow.failed"


def test_dry_runs_are_not_recorded_and_hold_after_two_lookups(shop: Repo) -> None:
    server = build_server(App.for_repo(shop.root), tools=["workflow"])
    sid = tool(server, "ingest_intent", request="make it better")["session_id"]
    before = len(session_events(shop.root, sid))
    dry = tool(
        server, "validate_workflow_transition", session_id=sid, current_step="received", next_step="plan_generated"
    )
    assert not dry["allowed"] and dry["next_step"] == "intent_captured" and not dry["recorded"]
    assert dry["blocking_reasons"] == ["the intent lacks goal, scope, requirement_tags"]
    assert len(session_events(shop.root, sid)) == before
    held = tool(
        server,
        "validate_workflow_transition",
        session_id=sid,
        next_step="intent_captured",
        context={"insufficient": True, "lookups": 2},
        dry_run=False,
    )
    assert not held["allowed"] and held["recorded"] and "after 2 lookups" in held["blocking_reasons"][0]
    assert len(session_events(shop.root, sid)) == before + 1


def test_rejected_results_loop_back_then_go_to_manual_review_and_resuming_reports_git_drift(shop: Repo) -> None:
    (shop.root / ".annals" / "config.json").write_text(json.dumps({"workflow": {"max_fix_loops": 1}}))
    server = build_server(App.for_repo(shop.root), tools=["workflow"])
    sid = tool(server, "ingest_intent", request="Fix `parse_price` so that it strips spaces.")["session_id"]
    first = tool(server, "record_user_feedback", session_id=sid, approved=False, notes="not what I meant")
    assert first["state"] == "intent_captured"
    second = tool(server, "record_user_feedback", session_id=sid, approved=False, notes="still not")
    assert second["state"] == "manual_review"
    shop.write("shop/extra.py", "X = 1\n")
    shop.commit("meanwhile")
    drift = tool(server, "get_session_status", session_id=sid)["result"]["git_drift"]["changes"]
    assert any(change.startswith("HEAD moved") for change in drift)
    assert tool(server, "get_workflow_metrics")["overall"]["rerequests"] == 2


def test_a_killed_run_action_leaves_a_recorded_recoverable_state(shop: Repo) -> None:
    env = {**os.environ, "ANNALS_VECTORS": "off"}

    def annals(*args: str) -> dict[str, Any]:
        done = subprocess.run(
            [ANNALS, "-C", str(shop.root), "workflow", *args, "--json"],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        return json.loads(done.stdout)

    sid = annals("start", "Fix `parse_price` so that it strips spaces.")["session_id"]
    annals("plan", sid)
    annals("approve", sid, "--tag", "bugfix", "--criterion", "the tests affected pass")
    proc = subprocess.Popen(
        [
            ANNALS,
            "-C",
            str(shop.root),
            "workflow",
            "run",
            sid,
            "step-1",
            "--",
            PYTHON,
            "-c",
            "import time\ntime.sleep(3)",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while not any(e.type == "workflow.action_started" for e in session_events(shop.root, sid)):
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.1)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    status = annals("status", sid)
    running = status["result"]["running"]
    assert running["step"] == "step-1" and running["safepoint"]
    assert "interrupted" in status["suggested_next_actions"][0]
    assert running["safepoint"] in status["suggested_next_actions"][0]
    printed = subprocess.run(
        [ANNALS, "-C", str(shop.root), "workflow", "metrics"], capture_output=True, text=True, env=env, check=True
    ).stdout
    assert printed.startswith("1 sessions") and "plan fidelity" in printed


def test_the_default_tool_set_fits_an_agents_first_minute(shop: Repo) -> None:
    async def listed(tools: Any) -> list[dict[str, Any]]:
        async with Client(build_server(App.for_repo(shop.root), tools=tools)) as client:
            return [
                t.model_dump(mode="json", exclude_none=True, by_alias=True) for t in (await client.list_tools()).tools
            ]

    default = anyio.run(listed, None)
    everything = anyio.run(listed, "all")
    print(
        f"tools/list: default {DEFAULT_TOOLSETS} {len(default)} tools {len(json.dumps(default))} bytes; "
        f"all {len(everything)} tools {len(json.dumps(everything))} bytes"
    )
    assert len(json.dumps(default)) <= TOOLS_LIST_BUDGET < len(json.dumps(everything))
    assert "get_context_pack" in {t["name"] for t in default}
    workflow = {t["name"] for t in anyio.run(listed, "workflow")}
    assert workflow == {
        "ingest_intent",
        "clarify_intent",
        "generate_plan",
        "approve_plan",
        "run_action",
        "verify_result",
        "summarize",
        "validate_workflow_transition",
        "record_user_feedback",
        "get_session_status",
        "get_workflow_metrics",
    }
    with pytest.raises(ValueError, match="unknown tool set nope"):
        toolsets("code,nope")


def test_destructive_commands_and_widened_scope_wait_for_a_human_check(shop: Repo) -> None:
    server = build_server(App.for_repo(shop.root), tools=["workflow"])
    sid = tool(server, "ingest_intent", request="Fix `parse_price` so that it strips spaces.")["session_id"]
    tool(server, "generate_plan", session_id=sid)
    approve(server, sid)
    reset = tool(server, "run_action", session_id=sid, step="step-1", command=["git", "reset", "--hard"])
    assert not reset["allowed"] and reset["result"]["required_checks"] == ["human: destructive"]
    approve(server, sid)
    widened = tool(
        server, "run_action", session_id=sid, step="step-1", command=["sed", "-i", "s/tiny/small/", "shop/__init__.py"]
    )
    assert not widened["allowed"] and widened["result"]["required_checks"] == ["human: widened_scope"]
    shop.write("shop/prices.py", BROKEN_PRICES)  # uncommitted work a reset would lose
    allowed = tool(
        server,
        "approve_plan",
        session_id=sid,
        approve=True,
        requirement_tags=["bugfix"],
        success_criteria=["the tests affected pass"],
        edits={"allow": ["destructive"]},
    )
    assert allowed["result"]["approval"]["risk_tags"] == ["destructive"]
    done = tool(server, "run_action", session_id=sid, step="step-1", command=["git", "reset", "--hard"])
    assert done["allowed"] and done["result"]["exit_code"] == 0 and done["result"]["safepoint"]
    assert (shop.root / "shop/prices.py").read_text() == CHANGED_PRICES
    saved = shop.git("show", f"refs/annals/safepoints/{done['result']['safepoint']}:shop/prices.py")
    assert saved == BROKEN_PRICES  # the safe point kept what the reset threw away
