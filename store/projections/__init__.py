"""Every table an agent reads, each derived only from the event log."""

from __future__ import annotations

from .base import Projection, apply_appended, catch_up, ensure, positions
from .commits import CommitsProjection
from .contexts import ContextsProjection
from .contracts import ContractsProjection
from .dependencies import DependenciesProjection
from .files import FilesProjection
from .fulltext import FullTextProjection
from .learning import LearningProjection, ToolCallsProjection
from .symbols import SymbolsProjection
from .tags import TagsProjection
from .workflow import WorkflowProjection

# Files first: the dependencies view joins on it.
CORE: tuple[Projection, ...] = (
    FilesProjection(),
    SymbolsProjection(),
    FullTextProjection(),
    DependenciesProjection(),
    ContractsProjection(),
    TagsProjection(),
    CommitsProjection(),
    # The MCP server's memory: conversations, learned mistakes and session rules, tool calls.
    ContextsProjection(),
    LearningProjection(),
    ToolCallsProjection(),
    WorkflowProjection(),  # workflow sessions: intent, plan, approval, actions, verification
)

__all__ = ["CORE", "Projection", "apply_appended", "catch_up", "ensure", "positions"]
