"""Conversation memory and tool-call metrics: writes (events through the log) and reads (projections).

Everything here is an event in the one log, so contexts, summaries and links survive restarts and
rebuild by replay. Writes append and then bring the projections up to date, so a read that
follows sees them.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections import Counter, deque
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from . import log
from .events import ContextLinked, ContextSummarized, Event, MessageAdded
from .projections.learning import parse_time
from .queries import NotFound
from .summarize import summarize
from .words import content_words
from .writer import writing

IMPORTANCE_LEVELS = ("LOW", "MEDIUM", "HIGH", "CRITICAL")
RELATIONSHIP_TYPES = ("similar", "continues", "references", "parent", "child")
TARGET_KINDS = ("context", "symbol", "module")
DEFAULT_SUMMARIZE_AFTER = 5  # messages since the last summary that trigger a new one
SIMILARITY_METHOD = "fulltext"  # FTS5 over messages and context ids; vectors will replace it
SIMILAR_CANDIDATE_ROWS = 2_000
PERIOD_DAYS = {"day": 1, "week": 7, "month": 30}


def record(conn: sqlite3.Connection, events: Sequence[Event], *, source: str = "mcp") -> list[int]:
    """Append events, the projections taking them in the same transaction; return their seqs.

    The events carry the commit the log stands at, so "the indexed HEAD" (the commit of the newest
    event) reads the same with or without memory events in the log.
    """
    with writing(conn, source=source) as writer:
        stored = writer.append(events, commit=log.last_commit(conn))
    return [event.seq for event in stored]


def epoch_ms(iso: str) -> int:
    return int(parse_time(iso).timestamp() * 1000)


def _context_row(conn: sqlite3.Connection, context_id: str) -> sqlite3.Row:
    row = conn.execute("SELECT * FROM memory_contexts WHERE context_id = ?", (context_id,)).fetchone()
    if row is None:
        known = [
            r[0] for r in conn.execute("SELECT context_id FROM memory_contexts ORDER BY last_activity_at DESC LIMIT 5")
        ]
        hint = f" Recent contexts: {', '.join(known)}." if known else " No context exists yet."
        raise NotFound(f"no context {context_id!r}; send the contextId given to add_message.{hint}")
    return row


# --- messages and summaries -------------------------------------------------------------------


def add_message(
    conn: sqlite3.Connection,
    context_id: str,
    role: str,
    content: str,
    importance: str = "MEDIUM",
    tags: Sequence[str] = (),
    *,
    summarize_after: int = DEFAULT_SUMMARIZE_AFTER,
) -> dict[str, Any]:
    """Add a message (creating the context); past `summarize_after` unsummarized messages, summarize."""
    record(conn, [MessageAdded(context_id, role, content, importance, list(tags))])
    row = _context_row(conn, context_id)
    summarized = None
    if summarize_after > 0 and row["message_count"] - row["summarized_count"] >= summarize_after:
        summarized = summarize_context(conn, context_id, trigger="threshold")
    return {
        "success": True,
        "contextId": context_id,
        "messageCount": row["message_count"],
        "summarized": summarized is not None,
    }


def messages(conn: sqlite3.Connection, context_id: str) -> list[dict[str, Any]]:
    return [
        {
            "role": r["role"],
            "content": r["content"],
            "timestamp": epoch_ms(r["at"]),
            "importance": r["importance"],
            "tags": json.loads(r["tags"]),
            "contextId": context_id,
        }
        for r in conn.execute("SELECT * FROM memory_messages WHERE context_id = ? ORDER BY ordinal", (context_id,))
    ]


def summarize_context(conn: sqlite3.Connection, context_id: str, *, trigger: str = "request") -> dict[str, Any]:
    """Summarize every message of the context now, as the next summary version."""
    _context_row(conn, context_id)
    found = messages(conn, context_id)
    if not found:
        raise NotFound(f"context {context_id!r} has no messages to summarize; add_message first")
    made = summarize(found)
    row = conn.execute("SELECT version FROM memory_summaries WHERE context_id = ?", (context_id,)).fetchone()
    version = (row[0] if row else 0) + 1
    record(
        conn,
        [
            ContextSummarized(
                context_id,
                made["summary"],
                made["code_blocks"],
                made["key_insights"],
                made["importance_score"],
                made["message_count"],
                version,
                made["tokens_used"],
                made["token_limit"],
                trigger,
            )
        ],
    )
    summary = latest_summary(conn, context_id)
    if summary is None:
        raise RuntimeError(f"the summary of {context_id!r} was recorded but its projection has no row")
    return summary


def latest_summary(conn: sqlite3.Connection, context_id: str) -> dict[str, Any] | None:
    r = conn.execute("SELECT * FROM memory_summaries WHERE context_id = ?", (context_id,)).fetchone()
    if r is None:
        return None
    return {
        "contextId": context_id,
        "summary": r["summary"],
        "codeBlocks": json.loads(r["code_blocks"]),
        "keyInsights": json.loads(r["key_insights"]),
        "importanceScore": r["importance_score"],
        "messageCount": r["message_count"],
        "version": r["version"],
        "tokensUsed": r["tokens_used"],
        "tokenLimit": r["token_limit"],
        "createdAt": epoch_ms(r["created_at"]),
        "trigger": r["trigger"],
        "relatedContexts": [x["contextId"] for x in related(conn, context_id) if x["kind"] == "context"],
    }


def retrieve(conn: sqlite3.Connection, context_id: str) -> dict[str, Any]:
    _context_row(conn, context_id)
    summary = latest_summary(conn, context_id)
    return {
        "success": True,
        "contextId": context_id,
        "messages": messages(conn, context_id),
        "hasSummary": summary is not None,
        "summary": summary,
    }


# --- similarity ---------------------------------------------------------------------------------


def similar_contexts(conn: sqlite3.Connection, query: str, limit: int = 5) -> list[dict[str, Any]]:
    """Contexts whose messages (or id) share the query's words: the share of query words found,
    blended with the best BM25 relevance of a message."""
    words = content_words(query)
    if not words:
        return []
    expression = " OR ".join(f'"{w}"*' for w in words)
    best: dict[str, float] = {}
    found: dict[str, set[str]] = {}
    for r in conn.execute(
        "SELECT context_id, id_words, content, bm25(memory_fts) AS score FROM memory_fts"
        " WHERE memory_fts MATCH ? ORDER BY score LIMIT ?",
        (expression, SIMILAR_CANDIDATE_ROWS),
    ):
        cid = r["context_id"]
        best[cid] = min(best.get(cid, 0.0), r["score"])
        present = set(content_words(f"{r['id_words']} {r['content']}"))
        found.setdefault(cid, set()).update(w for w in words if any(p.startswith(w) for p in present))
    results: list[dict[str, Any]] = []
    for cid, score in best.items():
        relevance = -score / (1 - score)  # BM25 (negative, lower is better) squashed into 0..1
        coverage = len(found[cid]) / len(words)
        results.append({"contextId": cid, "similarity": round(0.7 * coverage + 0.3 * relevance, 4)})
    results.sort(key=lambda x: (-x["similarity"], x["contextId"]))
    return results[:limit]


# --- relationships ------------------------------------------------------------------------------


def link(
    conn: sqlite3.Connection, source: str, target: str, target_kind: str, relationship_type: str, weight: float = 0.8
) -> None:
    record(conn, [ContextLinked(source, target, target_kind, relationship_type, weight)])


def related(
    conn: sqlite3.Connection, context_id: str, relationship_type: str | None = None, direction: str = "both"
) -> list[dict[str, Any]]:
    """Links out of the context (to contexts and code) and into it (from other contexts)."""
    out: list[dict[str, Any]] = []
    if direction in ("outgoing", "both"):
        for r in conn.execute("SELECT * FROM memory_links WHERE source = ? ORDER BY created_at, target", (context_id,)):
            out.append(
                {
                    "contextId": r["target"],
                    "kind": r["target_kind"],
                    "relationshipType": r["relationship_type"],
                    "weight": r["weight"],
                    "direction": "outgoing",
                }
            )
    if direction in ("incoming", "both"):
        for r in conn.execute(
            "SELECT * FROM memory_links WHERE target = ? AND target_kind = 'context' ORDER BY created_at, source",
            (context_id,),
        ):
            out.append(
                {
                    "contextId": r["source"],
                    "kind": "context",
                    "relationshipType": r["relationship_type"],
                    "weight": r["weight"],
                    "direction": "incoming",
                }
            )
    if relationship_type:
        out = [x for x in out if x["relationshipType"] == relationship_type]
    return out


def contexts_about(conn: sqlite3.Connection, targets: Sequence[tuple[str, str]]) -> list[dict[str, Any]]:
    """Contexts linked to any of these (kind, target) pairs of code, with their latest summary line."""
    out = []
    for kind, target in targets:
        for r in conn.execute(
            """SELECT l.source, l.relationship_type, l.weight, s.summary FROM memory_links l
                                 LEFT JOIN memory_summaries s ON s.context_id = l.source
                                 WHERE l.target = ? AND l.target_kind = ? ORDER BY l.weight DESC, l.source""",
            (target, kind),
        ):
            out.append(
                {
                    "contextId": r["source"],
                    "about": target,
                    "kind": kind,
                    "relationshipType": r["relationship_type"],
                    "weight": r["weight"],
                    "summary": r["summary"],
                }
            )
    return out


def list_contexts(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    return [
        {
            "contextId": r["context_id"],
            "messageCount": r["message_count"],
            "hasSummary": r["version"] is not None,
            "createdAt": epoch_ms(r["created_at"]),
            "lastActivityAt": epoch_ms(r["last_activity_at"]),
        }
        for r in conn.execute("""SELECT c.*, s.version FROM memory_contexts c
                                     LEFT JOIN memory_summaries s ON s.context_id = c.context_id
                                     ORDER BY c.last_activity_at DESC, c.context_id""")
    ]


def graph(conn: sqlite3.Connection, context_id: str, depth: int = 1) -> dict[str, Any]:
    """Nodes and edges within `depth` links of a context, following links both ways."""
    _context_row(conn, context_id)
    nodes: dict[str, dict[str, Any]] = {context_id: {"id": context_id, "kind": "context", "distance": 0}}
    edges: list[dict[str, Any]] = []
    seen_edges: set[tuple[str, str, str]] = set()
    queue = deque([context_id])
    while queue:
        current = queue.popleft()
        if nodes[current]["distance"] >= depth or nodes[current]["kind"] != "context":
            continue
        for link_ in related(conn, current):
            other = link_["contextId"]
            edge = (
                (current, other, link_["relationshipType"])
                if link_["direction"] == "outgoing"
                else (other, current, link_["relationshipType"])
            )
            if edge not in seen_edges:
                seen_edges.add(edge)
                edges.append(
                    {"source": edge[0], "target": edge[1], "relationshipType": edge[2], "weight": link_["weight"]}
                )
            if other not in nodes:
                nodes[other] = {"id": other, "kind": link_["kind"], "distance": nodes[current]["distance"] + 1}
                queue.append(other)
    for node in nodes.values():
        if node["kind"] == "context":
            row = conn.execute(
                "SELECT message_count FROM memory_contexts WHERE context_id = ?", (node["id"],)
            ).fetchone()
            node["messageCount"] = row[0] if row else 0
    return {"nodes": list(nodes.values()), "edges": edges}


# --- metrics ------------------------------------------------------------------------------------


def metrics(conn: sqlite3.Connection, period: str = "week", now: float | None = None) -> dict[str, Any]:
    """Tool calls in the period (in total, by tool, per day), and how contexts and links stand."""
    end = datetime.fromtimestamp(now if now is not None else time.time(), UTC)
    start = end - timedelta(days=PERIOD_DAYS[period])
    since = start.strftime("%Y-%m-%dT%H:%M:%S")
    rows = conn.execute(
        "SELECT tool, at, duration_ms, ok FROM tool_calls WHERE at >= ? ORDER BY at", (since,)
    ).fetchall()
    by_day: dict[str, list[sqlite3.Row]] = {}
    for r in rows:
        by_day.setdefault(r["at"][:10], []).append(r)
    trend = []
    for offset in range(PERIOD_DAYS[period] - 1, -1, -1):
        day = (end - timedelta(days=offset)).strftime("%Y-%m-%d")
        calls = by_day.get(day, [])
        trend.append(
            {
                "date": day,
                "calls": len(calls),
                "errors": sum(1 for c in calls if not c["ok"]),
                "averageMs": round(sum(c["duration_ms"] for c in calls) / len(calls), 2) if calls else 0.0,
            }
        )
    durations = [r["duration_ms"] for r in rows]
    ctx = conn.execute("""SELECT COUNT(*) AS contexts, COALESCE(SUM(message_count), 0) AS messages,
                                 (SELECT COUNT(*) FROM memory_summaries) AS summarized
                          FROM memory_contexts""").fetchone()
    importance = Counter(r[0] for r in conn.execute("SELECT importance FROM memory_messages"))
    links = conn.execute("SELECT relationship_type, target_kind, weight FROM memory_links").fetchall()
    return {
        "period": period,
        "totalCalls": len(rows),
        "byType": dict(sorted(Counter(r["tool"] for r in rows).items(), key=lambda kv: (-kv[1], kv[0]))),
        "errors": sum(1 for r in rows if not r["ok"]),
        "averageMs": round(sum(durations) / len(durations), 2) if durations else 0.0,
        "historyTrend": trend,
        "contextStats": {
            "totalContexts": ctx["contexts"],
            "totalMessages": ctx["messages"],
            "summarizedContexts": ctx["summarized"],
            "averageMessagesPerContext": round(ctx["messages"] / ctx["contexts"], 2) if ctx["contexts"] else 0.0,
            "messagesByImportance": {level: importance.get(level, 0) for level in IMPORTANCE_LEVELS},
        },
        "relationshipMetrics": {
            "totalRelationships": len(links),
            "byType": {t: sum(1 for r in links if r[0] == t) for t in RELATIONSHIP_TYPES},
            "byTargetKind": {k: sum(1 for r in links if r[1] == k) for k in TARGET_KINDS},
            "averageWeight": round(sum(r[2] for r in links) / len(links), 3) if links else 0.0,
        },
    }
