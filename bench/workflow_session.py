"""The README's workflow session, run for real: the shop of the tests in a scratch directory, every
workflow tool called through the SDK's MCP client, each answer printed (abridged), then the step
history and the session's metrics.

    python bench/workflow_session.py
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from codeannals.server.app import App  # noqa: E402
from codeannals.server.mcp import build_server  # noqa: E402

from tests.mcp_support import CHANGED_PRICES, call, data, isolated_git_env, make_shop  # noqa: E402

BROKEN = CHANGED_PRICES.replace("return int(euros) * 100 + int(cents or 0)", "return int(euros) * 100")
FIXED = CHANGED_PRICES.replace("text.strip()", "text.strip(' ')")
SHOWN = 600  # characters of each answer printed


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="annals-workflow-") as scratch, isolated_git_env(Path(scratch)):
        repo = make_shop(Path(scratch) / "repo")
        server = build_server(App.for_repo(repo.root), tools=["workflow"])

        def step(name: str, **arguments: Any) -> dict[str, Any]:
            answer = data(call(server, name, arguments))
            answer.pop("freshness", None)
            print(f"## {name}({json.dumps(arguments)[:200]})\n{json.dumps(answer, ensure_ascii=False)[:SHOWN]}\n")
            return answer

        sid = step("ingest_intent", request="make it better")["session_id"]
        step("clarify_intent", session_id=sid, answer="spaces around a price should not break parsing")
        step("clarify_intent", session_id=sid, answer="you decide")
        command = step("generate_plan", session_id=sid)["result"]["plan"]["steps"][0]["commands"][0]
        step("run_action", session_id=sid, step="step-1", command=command)
        approval = {"approve": True, "requirement_tags": ["bugfix"], "success_criteria": ["the tests affected pass"]}
        step("approve_plan", session_id=sid, **approval)
        step("run_action", session_id=sid, step="step-1", command=["git", "log", "|", "head"])
        step("approve_plan", session_id=sid, **approval)
        repo.write("shop/prices.py", BROKEN)
        step("run_action", session_id=sid, step="step-1", command=command)
        step("verify_result", session_id=sid)
        repo.write("shop/prices.py", FIXED)
        step("run_action", session_id=sid, step="step-1", command=command)
        step("verify_result", session_id=sid)
        step("summarize", session_id=sid)
        step("record_user_feedback", session_id=sid, approved=True, notes="works")
        for h in data(call(server, "get_session_status", {"session_id": sid}))["result"]["history"]:
            print(f"{h['seq']:>5} {h['step']:<20} {h['state']:<16} {h['why']}")
        print(json.dumps(data(call(server, "get_workflow_metrics", {}))["overall"]))


if __name__ == "__main__":
    main()
