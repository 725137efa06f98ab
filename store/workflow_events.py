"""The events of a workflow session: one stream per session (`workflow:<session_id>`).

Each step an agent takes on a request (captured, clarified, planned, approved, executed, verified,
summarised) is one of these, and carries the reason it was taken; the session's state is the
`workflow` projection of them (store/projections/workflow.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from .events import Event


def workflow_stream(session_id: str) -> str:
    return f"workflow:{session_id}"


@dataclass(frozen=True)
class WorkflowEvent(Event):
    session_id: str

    def stream(self) -> str:
        return workflow_stream(self.session_id)


@dataclass(frozen=True)
class IntentCaptured(WorkflowEvent):
    """A request normalised into an intent; a second one for the same session resets it."""

    TYPE: ClassVar[str] = "workflow.intent_captured"
    request: str
    intent: dict[str, Any]  # goal, scope, constraints, success_criteria, risk, requirement_tags, sources
    missing: list[str]  # intent items still to clarify, most important first
    git: dict[str, Any]  # head, branch, dirty files, indexed head: the session's start
    reset: bool = False


@dataclass(frozen=True)
class IntentClarified(WorkflowEvent):
    TYPE: ClassVar[str] = "workflow.intent_clarified"
    item: str
    question: str
    answer: str
    intent: dict[str, Any]  # the whole intent after the answer
    missing: list[str]
    defaulted: bool = False  # "you decide": the item took its rule-based default


@dataclass(frozen=True)
class PlanGenerated(WorkflowEvent):
    TYPE: ClassVar[str] = "workflow.plan_generated"
    plan: dict[str, Any]  # steps, tests, risks, basis


@dataclass(frozen=True)
class PlanReviewed(WorkflowEvent):
    """Approval or changes: the approval record run_action checks before it executes anything."""

    TYPE: ClassVar[str] = "workflow.plan_reviewed"
    approved: bool
    requirement_tags: list[str]
    success_criteria: list[str]
    edits: dict[str, Any]
    approval: dict[str, Any]  # digest of intent+plan, request summary, risk tags, step ids


@dataclass(frozen=True)
class ActionStarted(WorkflowEvent):
    """Written before the command runs: a killed run leaves this without its ActionExecuted."""

    TYPE: ClassVar[str] = "workflow.action_started"
    step: str
    argv: list[str]
    cwd: str
    planned: bool
    safepoint: str | None = None


@dataclass(frozen=True)
class ActionExecuted(WorkflowEvent):
    TYPE: ClassVar[str] = "workflow.action_executed"
    step: str
    argv: list[str]
    exit_code: int | None
    duration_ms: float
    output_digest: str
    output_bytes: int
    output: str  # head and tail of stdout+stderr when longer than the cap
    truncated: bool
    timed_out: bool
    limits: dict[str, Any]
    head: str | None = None


@dataclass(frozen=True)
class VerificationRun(WorkflowEvent):
    TYPE: ClassVar[str] = "workflow.verify_run"
    passed: bool
    changed: list[str]  # changed symbol ids since the session's start
    tests: list[str]
    checks: list[dict[str, Any]]  # each test run and static check: argv, exit_code, passed, output_digest
    criteria: list[dict[str, Any]]  # criterion, met (true, false, null when rules cannot tell), basis
    cause: str = ""  # why it failed (facts)
    advice: str = ""  # what to try next (kept apart from the cause)


@dataclass(frozen=True)
class SessionSummarized(WorkflowEvent):
    TYPE: ClassVar[str] = "workflow.summarized"
    summary: dict[str, Any]
    checks: dict[str, bool]


@dataclass(frozen=True)
class TransitionChecked(WorkflowEvent):
    """A rule check that blocked a step, or let it through with warnings (dry runs are not recorded)."""

    TYPE: ClassVar[str] = "workflow.transition_checked"
    current: str
    next: str
    allowed: bool
    blocking_reasons: list[str]
    warnings: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class FeedbackRecorded(WorkflowEvent):
    TYPE: ClassVar[str] = "workflow.feedback_recorded"
    approved: bool
    notes: str


@dataclass(frozen=True)
class SessionFailed(WorkflowEvent):
    TYPE: ClassVar[str] = "workflow.failed"
    cause: str
    state: str  # where it stood when it failed


@dataclass(frozen=True)
class SessionEscalated(WorkflowEvent):
    """Past the allowed number of fix loops: a person has to look."""

    TYPE: ClassVar[str] = "workflow.manual_review"
    cause: str
    state: str


WORKFLOW_TYPES = frozenset(
    cls.TYPE
    for cls in (
        IntentCaptured,
        IntentClarified,
        PlanGenerated,
        PlanReviewed,
        ActionStarted,
        ActionExecuted,
        VerificationRun,
        SessionSummarized,
        TransitionChecked,
        FeedbackRecorded,
        SessionFailed,
        SessionEscalated,
    )
)
