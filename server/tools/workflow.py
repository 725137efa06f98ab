"""The workflow tools: a request captured, clarified, planned against the index, approved, executed
in a sandbox, verified and summarised; each step an event of `workflow:<session_id>`.

The tools are thin: each calls the engine (server/workflow.py) that `annals workflow` uses too,
and answers with the session's state, whether the step was taken, why not, and what to do next.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from pydantic import Field

from ...store.workflow_metrics import metrics
from ...store.workflow_rules import STATES
from ..app import App
from ..workflow import Engine
from ._answer import READ_ONLY, WRITES, Answer, freshness, invalid

SessionId = Annotated[
    str,
    Field(
        min_length=1,
        max_length=200,
        pattern=r"^[\w.:-]+$",
        description="The workflow session's id (from ingest_intent).",
    ),
]
MAX_TIMEOUT = 1800.0


class WorkflowAnswer(Answer):
    session_id: str
    state: str = Field(
        description="received, intent_captured, plan_generated, plan_approved, action_executed, "
        "verify_run, summarized, failed or manual_review."
    )
    allowed: bool = Field(description="False when a rule blocked the step; blocking_reasons say why.")
    blocking_reasons: list[str]
    warnings: list[str]
    suggested_next_actions: list[str]
    result: dict[str, Any] = Field(description="What the step produced (intent, question, plan, output...).")


class TransitionAnswer(Answer):
    allowed: bool
    blocking_reasons: list[str]
    required_checks: list[str]
    suggested_next_actions: list[str]
    next_step: str
    confidence: float
    warnings: list[str]
    rules: list[str] = Field(description="The rules that spoke.")
    recorded: bool = Field(description="Whether the check was recorded as an event (not for dry runs).")


class WorkflowMetricsAnswer(Answer):
    sessions: list[dict[str, Any]]
    overall: dict[str, Any]


def register(server: MCPServer, app: App) -> None:
    def engine() -> Engine:
        return Engine(app.root, app.conn())

    def answer(outcome: Any) -> WorkflowAnswer:
        return WorkflowAnswer(**outcome.as_json(), freshness=freshness(app))

    def guarded(field: str, call: Any) -> WorkflowAnswer:
        try:
            return answer(call())
        except ValueError as exc:
            invalid(field, str(exc))

    @server.tool(annotations=WRITES)
    def ingest_intent(
        request: Annotated[str, Field(min_length=1, max_length=20_000)], session_id: SessionId | None = None
    ) -> WorkflowAnswer:
        """Start (or reset) a workflow session from a user's request: goal, scope and risk from the index,
        success criteria ('success criteria: ...'), requirement tags; says what to clarify first."""
        return guarded("request", lambda: engine().ingest_intent(request, session_id))

    @server.tool(annotations=WRITES)
    def clarify_intent(
        session_id: SessionId, answer: Annotated[str | None, Field(max_length=5_000)] = None
    ) -> WorkflowAnswer:
        """Without answer: the one question about the most important missing item. With it: the answer
        written into the intent ('you decide' takes the rule-based default, recorded as such)."""
        return guarded("answer", lambda: engine().clarify_intent(session_id, answer))

    @server.tool(annotations=WRITES)
    def generate_plan(session_id: SessionId) -> WorkflowAnswer:
        """Plan steps from the index: one module a step, its symbols, tests and commands, risks, priority."""
        return guarded("session_id", lambda: engine().generate_plan(session_id))

    @server.tool(annotations=WRITES)
    def approve_plan(
        session_id: SessionId,
        approve: bool,
        requirement_tags: list[str],
        success_criteria: list[str],
        edits: dict[str, Any] | None = None,
    ) -> WorkflowAnswer:
        """Approve the plan (or send it back). Needs requirement tags and success criteria. edits: drop_steps,
        allow (destructive, permission, external_call, widened_scope), network, paths."""
        return guarded(
            "edits", lambda: engine().approve_plan(session_id, approve, requirement_tags, success_criteria, edits)
        )

    @server.tool(annotations=WRITES)
    def run_action(
        session_id: SessionId,
        step: Annotated[str, Field(min_length=1, max_length=100)],
        command: Annotated[
            list[str], Field(min_length=1, max_length=200, description="argv, no shell: ['python', '-m', 'pytest']")
        ],
        cwd: str | None = None,
        timeout_seconds: Annotated[float | None, Field(gt=0, le=MAX_TIMEOUT)] = None,
    ) -> WorkflowAnswer:
        """Run one command of an approved step: argv only, allowed binaries, inside the roots, with a timeout
        and CPU/memory limits, no network unless allowed; a safe point first if it may write."""
        return guarded("command", lambda: engine().run_action(session_id, step, command, cwd, timeout_seconds))

    @server.tool(annotations=WRITES)
    def verify_result(session_id: SessionId) -> WorkflowAnswer:
        """Run the tests affected by what changed since the session started, and the static checks; pass or
        fail against the success criteria, the cause apart from the advice."""
        return guarded("session_id", lambda: engine().verify_result(session_id))

    @server.tool(annotations=WRITES)
    def summarize(session_id: SessionId) -> WorkflowAnswer:
        """Results, risks, warnings, next actions, and the four end checks of the session."""
        return guarded("session_id", lambda: engine().summarize(session_id))

    @server.tool(annotations=WRITES)
    def validate_workflow_transition(
        session_id: SessionId,
        next_step: str,
        current_step: str = "",
        context: dict[str, Any] | None = None,
        artifacts: dict[str, Any] | None = None,
        dry_run: bool = True,
    ) -> TransitionAnswer:
        """Ask the rules whether the session may go to next_step (context: paths, network, risks, lookups,
        insufficient). Without dry_run a block is recorded and counts toward failing the session."""
        if next_step not in STATES:
            invalid("next_step", f"send one of {', '.join(STATES)}")
        try:
            found = engine().validate(session_id, current_step, next_step, context, artifacts, dry_run)
        except ValueError as exc:
            invalid("current_step", str(exc))
        return TransitionAnswer(**found, freshness=freshness(app))

    @server.tool(annotations=WRITES)
    def record_user_feedback(
        session_id: SessionId, approved: bool, notes: Annotated[str, Field(max_length=5_000)] = ""
    ) -> WorkflowAnswer:
        """The user's verdict on the result; a rejection goes back to intent_captured (past the allowed fix
        loops, to manual_review)."""
        return guarded("notes", lambda: engine().record_user_feedback(session_id, approved, notes))

    @server.tool(annotations=READ_ONLY)
    def get_session_status(session_id: SessionId) -> WorkflowAnswer:
        """A session's state, step history with the reason for each, next actions, and what changed in git
        since it last recorded its state."""
        return guarded("session_id", lambda: engine().status(session_id))

    @server.tool(annotations=READ_ONLY)
    def get_workflow_metrics(session_id: SessionId | None = None) -> WorkflowMetricsAnswer:
        """Intent match, plan fidelity, verification pass rate and re-requests, per session and overall."""
        found = metrics(app.conn(), session_id)
        return WorkflowMetricsAnswer(**found, freshness=freshness(app))
