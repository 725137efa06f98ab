"""Context memory, with the prompt-context server's tool names, inputs and output fields.

A context is any id (a file path, a topic, a ticket); its messages, summaries and relationships
are events in the log. `add_relationship` also ties a context to code: a target of
`symbol:<id or qualified name>` or `module:<path or module name>`.
"""

from __future__ import annotations

import os
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent
from pydantic import Field

from ...store import memory, queries
from ..app import App
from ._answer import READ_ONLY, WRITES, Answer, freshness, invalid, repo_path, symbol_ref
from .similarity import similar_contexts as similar_contexts_by_meaning

SUMMARIZE_AFTER_ENV = "ANNALS_SUMMARIZE_AFTER"  # messages since the last summary that trigger one (0: never)
MAX_ID_CHARS = 500

ContextId = Annotated[
    str, Field(min_length=1, max_length=MAX_ID_CHARS, description="The context's id: a file path, a topic, a ticket...")
]
Importance = Literal["LOW", "MEDIUM", "HIGH", "CRITICAL"]
RelationshipType = Literal["similar", "continues", "references", "parent", "child"]


class PingAnswer(Answer):
    message: str


class AddMessageAnswer(Answer):
    success: bool
    contextId: str
    messageCount: int
    summarized: bool = Field(description="Whether this message triggered an automatic summary.")


class RetrieveAnswer(Answer):
    success: bool
    contextId: str
    messages: list[dict[str, Any]]
    hasSummary: bool
    summary: dict[str, Any] | None


class SimilarAnswer(Answer):
    contexts: list[dict[str, Any]] = Field(description="contextId and similarity (0..1), best first.")
    method: str = Field(description="How similarity was measured.")


class RelationshipAnswer(Answer):
    success: bool
    sourceContextId: str
    targetContextId: str
    targetKind: Literal["context", "symbol", "module"]
    relationshipType: str
    weight: float


class RelatedAnswer(Answer):
    contextId: str
    relatedContexts: list[dict[str, Any]] = Field(
        description="contextId (or code target), kind, relationshipType, weight, direction."
    )


class SummaryAnswer(Answer):
    success: bool
    contextId: str
    summary: str
    codeBlocks: list[dict[str, Any]]
    keyInsights: list[str]
    importanceScore: float
    messageCount: int
    version: int
    tokensUsed: int
    tokenLimit: int
    createdAt: int = Field(description="Milliseconds since the epoch.")


class VisualizeAnswer(Answer):
    success: bool
    format: str
    contextId: str | None = None
    contexts: list[dict[str, Any]] | None = Field(default=None, description="Without contextId: every context.")
    messageCount: int | None = None
    hasSummary: bool | None = None
    summary: dict[str, Any] | None = None
    relatedContexts: list[dict[str, Any]] | None = None
    nodes: list[dict[str, Any]] | None = None
    edges: list[dict[str, Any]] | None = None
    text: str | None = Field(default=None, description="The mermaid or text rendering.")


class MetricsAnswer(Answer):
    success: bool
    period: str
    totalCalls: int
    byType: dict[str, int] = Field(description="Calls per tool.")
    errors: int
    averageMs: float
    historyTrend: list[dict[str, Any]]
    contextStats: dict[str, Any]
    relationshipMetrics: dict[str, Any]


def summarize_after() -> int:
    value = os.environ.get(SUMMARIZE_AFTER_ENV, str(memory.DEFAULT_SUMMARIZE_AFTER))
    if not value.isdigit():
        raise ValueError(f"{SUMMARIZE_AFTER_ENV}={value!r}: set a whole number of messages (0 turns it off)")
    return int(value)


def register(server: MCPServer, app: App) -> None:
    threshold = summarize_after()

    def code_target(target: str) -> tuple[Literal["context", "symbol", "module"], str]:
        """(kind, canonical target) for `symbol:...`, `module:...`, or a plain context id."""
        kind, sep, ref = target.partition(":")
        if sep and kind == "symbol":
            return "symbol", queries.find_symbol(app.conn(), symbol_ref(app, ref, "targetContextId"))["id"]
        if sep and kind == "module":
            return "module", queries.resolve_path(app.conn(), repo_path(app, ref, "targetContextId"))
        return "context", target

    @server.tool(annotations=READ_ONLY)
    def ping() -> Annotated[CallToolResult, PingAnswer]:
        """Check that the server answers: returns pong."""
        answer = PingAnswer(message="pong", freshness=freshness(app))
        return CallToolResult(
            content=[TextContent(type="text", text="pong")], structured_content=answer.model_dump(mode="json")
        )

    @server.tool(annotations=WRITES)
    def add_message(
        contextId: ContextId,
        message: Annotated[str, Field(min_length=1)],
        role: Literal["user", "assistant"],
        importance: Importance = "MEDIUM",
        tags: list[str] | None = None,
    ) -> AddMessageAnswer:
        """Add a message to a conversation context (created on first use). Past a threshold of messages
        (ANNALS_SUMMARIZE_AFTER, default 5) the context is summarized automatically."""
        done = memory.add_message(
            app.conn(), contextId, role, message, importance, tags or [], summarize_after=threshold
        )
        return AddMessageAnswer(**done, freshness=freshness(app))

    @server.tool(annotations=READ_ONLY)
    def retrieve_context(contextId: ContextId) -> RetrieveAnswer:
        """A context's messages, oldest first, and its latest summary."""
        return RetrieveAnswer(**memory.retrieve(app.conn(), contextId), freshness=freshness(app))

    @server.tool(annotations=READ_ONLY)
    def get_similar_contexts(
        query: Annotated[str, Field(min_length=1)],
        limit: Annotated[int, Field(ge=1, le=100)] = 5,
    ) -> SimilarAnswer:
        """Contexts whose conversation is about what the query means (by embeddings, once vectors exist;
        else by its words), most similar first."""
        conn = app.conn()
        found, method = similar_contexts_by_meaning(server, app, conn, query, limit)
        if found is None:
            found = memory.similar_contexts(conn, query, limit)
        return SimilarAnswer(contexts=found, method=method, freshness=freshness(app))

    @server.tool(annotations=WRITES)
    def add_relationship(
        sourceContextId: ContextId,
        targetContextId: Annotated[
            str,
            Field(
                min_length=1,
                max_length=MAX_ID_CHARS,
                description="A context id, or code: 'symbol:<id or qualified name>', 'module:<path or module name>'.",
            ),
        ],
        relationshipType: RelationshipType,
        weight: Annotated[float, Field(ge=0.0, le=1.0)] = 0.8,
    ) -> RelationshipAnswer:
        """Relate a context to another context, or tie it to a symbol or a module."""
        kind, target = code_target(targetContextId)
        if kind == "context" and target == sourceContextId:
            invalid("targetContextId", "a context cannot be related to itself; send another context's id")
        memory.link(app.conn(), sourceContextId, target, kind, relationshipType, weight)
        return RelationshipAnswer(
            success=True,
            sourceContextId=sourceContextId,
            targetContextId=target,
            targetKind=kind,
            relationshipType=relationshipType,
            weight=weight,
            freshness=freshness(app),
        )

    @server.tool(annotations=READ_ONLY)
    def get_related_contexts(
        contextId: ContextId,
        relationshipType: RelationshipType | None = None,
        direction: Literal["incoming", "outgoing", "both"] = "both",
    ) -> RelatedAnswer:
        """Contexts (and code) related to a context, optionally of one type and direction."""
        conn = app.conn()
        memory.retrieve(conn, contextId)  # NotFound for an unknown context, naming the known ones
        return RelatedAnswer(
            contextId=contextId,
            relatedContexts=memory.related(conn, contextId, relationshipType, direction),
            freshness=freshness(app),
        )

    @server.tool(annotations=WRITES)
    def summarize_context(contextId: ContextId) -> SummaryAnswer:
        """Summarize a context now (extractive: key sentences, code blocks, importance; no language model)."""
        summary = memory.summarize_context(app.conn(), contextId)
        fields = {k: v for k, v in summary.items() if k in SummaryAnswer.model_fields}
        return SummaryAnswer(success=True, **fields, freshness=freshness(app))

    @server.tool(annotations=READ_ONLY)
    def visualize_context(
        contextId: Annotated[str | None, Field(max_length=MAX_ID_CHARS)] = None,
        includeRelated: bool = True,
        depth: Annotated[int, Field(ge=1, le=3)] = 1,
        format: Literal["json", "mermaid", "text"] = "json",
    ) -> VisualizeAnswer:
        """A context with its relationships to `depth` (json, mermaid or text); without contextId, every context."""
        conn = app.conn()
        if not contextId:
            listed = memory.list_contexts(conn)
            text = None if format == "json" else _list_text(listed, format)
            return VisualizeAnswer(success=True, format=format, contexts=listed, text=text, freshness=freshness(app))
        found = memory.retrieve(conn, contextId)
        graph = memory.graph(conn, contextId, depth if includeRelated else 0)
        summary = found["summary"]
        return VisualizeAnswer(
            success=True,
            format=format,
            contextId=contextId,
            messageCount=len(found["messages"]),
            hasSummary=found["hasSummary"],
            summary={
                "keyInsights": summary["keyInsights"],
                "messageCount": summary["messageCount"],
                "codeBlocks": [
                    {"language": b["language"], "importance": b["importance"]} for b in summary["codeBlocks"]
                ],
            }
            if summary
            else None,
            relatedContexts=memory.related(conn, contextId) if includeRelated else [],
            nodes=graph["nodes"],
            edges=graph["edges"],
            text=None if format == "json" else _graph_text(contextId, found, graph, format),
            freshness=freshness(app),
        )

    @server.tool(annotations=READ_ONLY)
    def get_context_metrics(period: Literal["day", "week", "month"] = "week") -> MetricsAnswer:
        """Tool calls in the period (total, per tool, per day) and statistics of contexts and relationships."""
        flush = getattr(server, "calls", None)
        if flush is not None:
            flush.flush()  # the calls buffered so far count too
        return MetricsAnswer(success=True, **memory.metrics(app.conn(), period), freshness=freshness(app))


def _node_id(index: dict[str, str], name: str) -> str:
    return index.setdefault(name, f"n{len(index)}")


def _label(text: str) -> str:
    return text.replace('"', "'")


def _graph_text(context_id: str, found: dict[str, Any], graph: dict[str, Any], format: str) -> str:
    if format == "mermaid":
        ids: dict[str, str] = {}
        lines = ["graph LR"]
        for node in graph["nodes"]:
            shape = (
                f'["{_label(node["id"])} ({node.get("messageCount", 0)} msgs)"]'
                if node["kind"] == "context"
                else f'[/"{node["kind"]}: {_label(node["id"])}"/]'
            )
            lines.append(f"  {_node_id(ids, node['id'])}{shape}")
        for edge in graph["edges"]:
            lines.append(
                f"  {_node_id(ids, edge['source'])} -->|{edge['relationshipType']} {edge['weight']}| "
                f"{_node_id(ids, edge['target'])}"
            )
        return "\n".join(lines)
    summary = found["summary"]
    lines = [f"Context: {context_id}", f"Messages: {len(found['messages'])}", f"Has summary: {found['hasSummary']}"]
    if summary:
        lines.append(f"Summary (v{summary['version']}, {summary['messageCount']} messages): {summary['summary']}")
    for edge in graph["edges"]:
        lines.append(f"{edge['source']} --{edge['relationshipType']} ({edge['weight']})--> {edge['target']}")
    return "\n".join(lines)


def _list_text(listed: list[dict[str, Any]], format: str) -> str:
    if format == "mermaid":
        ids: dict[str, str] = {}
        return "\n".join(
            [
                "graph LR",
                *(
                    f'  {_node_id(ids, c["contextId"])}["{_label(c["contextId"])} ({c["messageCount"]} msgs)"]'
                    for c in listed
                ),
            ]
        )
    return (
        "\n".join(
            f"{c['contextId']}: {c['messageCount']} messages" + (", summarized" if c["hasSummary"] else "")
            for c in listed
        )
        or "No contexts yet."
    )
