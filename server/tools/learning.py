"""Learning and session rules, with the vibe-check server's tool names and fields.

Lessons and rules are events in the log: they survive restarts. A session idle for an hour has
expired (its rules are gone); vibe_check builds its questions from the session's rules, learned
lessons and the index (server/vibecheck.py).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from pydantic import Field

from ...store import learning
from ..app import App
from ..vibecheck import build_questions
from ._answer import READ_ONLY, WRITES, Answer, freshness

SessionId = Annotated[str, Field(min_length=1, max_length=200, description="The agent session's id.")]
Text = Annotated[str, Field(min_length=1, max_length=20_000)]


class LearnAnswer(Answer):
    added: bool
    alreadyKnown: bool = Field(description="True when the category already holds this mistake (60% shared words).")
    currentTally: int = Field(description="Lessons in this category now.")
    category: str = Field(description="The category it was filed under.")
    mistake: str = Field(description="The mistake as recorded: one sentence.")
    knownAs: dict[str, Any] | None = Field(description="The lesson already known, when alreadyKnown.")
    topCategories: list[dict[str, Any]] = Field(description="The three categories with most lessons.")


class ConstitutionAnswer(Answer):
    success: bool
    sessionId: str
    rules: list[str]


class CheckConstitutionAnswer(Answer):
    sessionId: str
    rules: list[str]
    expired: bool = Field(description="True when the session went idle for over an hour and lost its rules.")


class VibeCheckAnswer(Answer):
    questions: str = Field(description="The questions, numbered, one a line.")
    questionList: list[str]
    sessionRules: list[str]
    categories: dict[str, list[str]] = Field(description="Mistake categories the plan shows signs of, with the signs.")
    lessons: list[dict[str, Any]] = Field(description="Learned mistakes the questions draw on.")
    touched: list[dict[str, Any]] = Field(description="Modules the plan names or implies: dependents, tests.")
    existingCode: list[dict[str, Any]] = Field(description="Code that may already do what the plan proposes.")


def register(server: MCPServer, app: App) -> None:
    @server.tool(annotations=WRITES)
    def vibe_learn(
        mistake: Text,
        category: Annotated[
            str,
            Field(
                min_length=1,
                max_length=200,
                description=(
                    "Complex Solution Bias, Feature Creep, Premature Implementation, Assumption Error, "
                    "Communication Gap, or your own"
                ),
            ),
        ],
        solution: Annotated[str, Field(max_length=20_000)] = "",
        type: Literal["mistake", "preference", "success"] = "mistake",
        sessionId: SessionId | None = None,
    ) -> LearnAnswer:
        """Record a mistake (or preference, or success) and how it was put right, so later vibe_checks
        can ask about it. Kept to one sentence; a mistake the category already holds is not added twice."""
        return LearnAnswer(
            **learning.learn(app.conn(), mistake, category, solution, type, sessionId), freshness=freshness(app)
        )

    @server.tool(annotations=WRITES)
    def update_constitution(sessionId: SessionId, rule: Text) -> ConstitutionAnswer:
        """Add a rule to the session's constitution (at most 50: the oldest goes first)."""
        rules = learning.add_rule(app.conn(), sessionId, rule)
        return ConstitutionAnswer(success=True, sessionId=sessionId, rules=rules, freshness=freshness(app))

    @server.tool(annotations=WRITES)
    def reset_constitution(sessionId: SessionId, rules: list[Text]) -> ConstitutionAnswer:
        """Replace the session's rules with these (the last 50 are kept)."""
        kept = learning.reset_rules(app.conn(), sessionId, rules)
        return ConstitutionAnswer(success=True, sessionId=sessionId, rules=kept, freshness=freshness(app))

    @server.tool(annotations=READ_ONLY)
    def check_constitution(sessionId: SessionId) -> CheckConstitutionAnswer:
        """The session's rules; none once it has been idle for an hour."""
        state = learning.session_state(app.conn(), sessionId)
        return CheckConstitutionAnswer(
            sessionId=sessionId, rules=state["rules"], expired=state["expired"], freshness=freshness(app)
        )

    @server.tool(annotations=READ_ONLY)
    def vibe_check(
        goal: Text,
        plan: Text,
        userPrompt: Annotated[str, Field(max_length=20_000)] = "",
        progress: Annotated[str, Field(max_length=20_000)] = "",
        uncertainties: list[str] | None = None,
        uncertainty: Annotated[
            str, Field(max_length=20_000, description="One uncertainty (the same as a one-item uncertainties).")
        ] = "",
        taskContext: Annotated[str, Field(max_length=20_000)] = "",
        sessionId: SessionId | None = None,
    ) -> VibeCheckAnswer:
        """Questions to ask yourself before (or while) carrying out a plan, built from the session's rules,
        learned mistakes and what the index knows of the code the plan touches."""
        doubts = [*(uncertainties or []), *([uncertainty] if uncertainty.strip() else [])]
        found = build_questions(
            app.conn(),
            goal,
            plan,
            user_prompt=userPrompt,
            progress=progress,
            uncertainties=doubts,
            task_context=taskContext,
            session_id=sessionId,
        )
        return VibeCheckAnswer(**found, freshness=freshness(app))
