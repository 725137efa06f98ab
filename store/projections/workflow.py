"""Workflow sessions: each session's state, intent, plan, approval and counters, and its step history.

The state machine lives here, in one place: every `workflow.*` event moves a session as below,
so a replay of the log gives back exactly the state the live session had.

received -> intent_captured -> plan_generated -> plan_approved -> action_executed -> verify_run -> summarized
A failed verification goes back to plan_approved (fix, then run again); a rejected result goes back
to intent_captured; a blocked action returns to approval (plan_generated); `failed` and
`manual_review` are written by the engine's failure policy (server/workflow.py).
"""

from __future__ import annotations

import json
import os
import sqlite3
from typing import Any

from ..log import StoredEvent
from ..workflow_events import (
    WORKFLOW_TYPES,
    ActionExecuted,
    ActionStarted,
    FeedbackRecorded,
    IntentCaptured,
    IntentClarified,
    PlanGenerated,
    PlanReviewed,
    SessionSummarized,
    TransitionChecked,
    VerificationRun,
)
from .base import Projection

APPROVED_STATES = ("plan_approved", "action_executed", "verify_run")
# What a session has counted so far; the status answer shows them together.
COUNTERS = (
    "blocks_in_row",
    "blocks_total",
    "clarifications",
    "fix_loops",
    "rerequests",
    "verifies",
    "verifies_passed",
    "resets",
)
# Columns holding JSON (lists and objects): written with sorted keys, read back decoded.
JSON_COLUMNS = (
    "intent",
    "missing",
    "git_start",
    "plan",
    "approval",
    "running",
    "executed",
    "last_verify",
    "summary",
    "feedback",
    "warnings",
    "last_block",
)
COLUMNS = ("session_id", "state", "request", *JSON_COLUMNS, "cause", *COUNTERS, "last_head", "created_at", "updated_at")


class WorkflowProjection(Projection):
    name = "workflow"
    version = 1
    handles = WORKFLOW_TYPES
    tables = ("workflow_sessions", "workflow_steps")

    def create(self, conn: sqlite3.Connection) -> None:
        conn.execute("""CREATE TABLE IF NOT EXISTS workflow_sessions (
            session_id TEXT PRIMARY KEY, state TEXT NOT NULL, request TEXT NOT NULL, intent TEXT NOT NULL,
            missing TEXT NOT NULL, git_start TEXT NOT NULL, plan TEXT, approval TEXT, running TEXT,
            executed TEXT NOT NULL, last_verify TEXT, summary TEXT, feedback TEXT, warnings TEXT NOT NULL,
            last_block TEXT, cause TEXT NOT NULL DEFAULT '', blocks_in_row INTEGER NOT NULL DEFAULT 0,
            blocks_total INTEGER NOT NULL DEFAULT 0, clarifications INTEGER NOT NULL DEFAULT 0,
            fix_loops INTEGER NOT NULL DEFAULT 0, rerequests INTEGER NOT NULL DEFAULT 0,
            verifies INTEGER NOT NULL DEFAULT 0, verifies_passed INTEGER NOT NULL DEFAULT 0,
            resets INTEGER NOT NULL DEFAULT 0, last_head TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL)""")
        conn.execute("""CREATE TABLE IF NOT EXISTS workflow_steps (
            seq INTEGER PRIMARY KEY, session_id TEXT NOT NULL, ordinal INTEGER NOT NULL, type TEXT NOT NULL,
            state TEXT NOT NULL, why TEXT NOT NULL, at TEXT NOT NULL)""")
        conn.execute("CREATE INDEX IF NOT EXISTS workflow_steps_session ON workflow_steps(session_id, ordinal)")

    def apply(self, conn: sqlite3.Connection, event: StoredEvent) -> None:
        p = event.payload
        sid = p["session_id"]
        row = load(conn, sid)
        if event.type == IntentCaptured.TYPE:
            kept = row or {}
            row = {c: None for c in COLUMNS} | {
                "session_id": sid,
                "request": p["request"],
                "executed": [],
                "warnings": [],
                "cause": "",
                "created_at": kept.get("created_at", event.recorded_at),
                "rerequests": kept.get("rerequests", 0),
                "resets": kept.get("resets", 0) + (1 if row else 0),
                "blocks_in_row": 0,
                "blocks_total": 0,
                "clarifications": 0,
                "fix_loops": 0,
                "verifies": 0,
                "verifies_passed": 0,
            }
            row.update(
                intent=p["intent"],
                missing=p["missing"],
                git_start=p["git"],
                last_head=p["git"].get("head"),
                state="received" if p["missing"] else "intent_captured",
            )
            todo = ", ".join(p["missing"])
            why = f"request captured; to clarify: {todo}" if todo else "request captured; intent complete"
        elif row is None:
            return  # a stray event of a session never started: nothing to project
        else:
            why = _advance(row, event.type, p)
        if event.type != TransitionChecked.TYPE or p["allowed"]:
            row["blocks_in_row"] = 0
        row["updated_at"] = event.recorded_at
        save(conn, row)
        ordinal = conn.execute("SELECT COUNT(*) FROM workflow_steps WHERE session_id = ?", (sid,)).fetchone()[0] + 1
        conn.execute(
            "INSERT INTO workflow_steps VALUES (?, ?, ?, ?, ?, ?, ?)",
            (event.seq, sid, ordinal, event.type.removeprefix("workflow."), row["state"], why, event.recorded_at),
        )


def _advance(row: dict[str, Any], kind: str, p: dict[str, Any]) -> str:
    """Move the session for one event; return why the step was taken, in a line."""
    if kind == IntentClarified.TYPE:
        row.update(
            intent=p["intent"],
            missing=p["missing"],
            clarifications=row["clarifications"] + 1,
            state="received" if p["missing"] else "intent_captured",
        )
        how = "rule-based default (the user let us decide)" if p["defaulted"] else "the user's answer"
        return f"{p['item']} clarified from {how}"
    if kind == PlanGenerated.TYPE:
        row.update(plan=p["plan"], approval=None, state="plan_generated")
        return f"plan of {len(p['plan']['steps'])} steps from the index"
    if kind == PlanReviewed.TYPE:
        if p["approved"]:
            row.update(approval=p["approval"], state="plan_approved")
            return f"plan approved with tags {', '.join(p['requirement_tags'])}"
        row.update(approval=None, state="plan_generated")
        return "plan sent back with changes: " + ", ".join(sorted(p["edits"])) if p["edits"] else "plan not approved"
    if kind == ActionStarted.TYPE:
        row["running"] = {"step": p["step"], "argv": p["argv"], "safepoint": p["safepoint"]}
        saved = f" (safe point {p['safepoint']})" if p["safepoint"] else ""
        return f"running {os.path.basename(p['argv'][0])} for {p['step']}{saved}"
    if kind == ActionExecuted.TYPE:
        row["running"] = None
        row["executed"] = [
            *row["executed"],
            {
                "step": p["step"],
                "argv": p["argv"],
                "exit_code": p["exit_code"],
                "timed_out": p["timed_out"],
                "output_digest": p["output_digest"],
            },
        ]
        row.update(state="action_executed", last_head=p.get("head") or row["last_head"])
        status = "timed out" if p["timed_out"] else f"exit {p['exit_code']}"
        command = " ".join([os.path.basename(p["argv"][0]), *p["argv"][1:3]])
        return f"{p['step']}: {command} {status} in {p['duration_ms']:.0f} ms"
    if kind == VerificationRun.TYPE:
        row.update(last_verify=p, verifies=row["verifies"] + 1)
        if p["passed"]:
            row.update(state="verify_run", verifies_passed=row["verifies_passed"] + 1)
            static = sum(1 for c in p["checks"] if c.get("kind") == "static")
            return f"verified: {len(p['tests'])} test files and {static} static checks passed"
        row.update(state="plan_approved", fix_loops=row["fix_loops"] + 1)
        return f"verification failed: {p['cause']}"
    if kind == SessionSummarized.TYPE:
        row.update(
            summary=p["summary"],
            state="summarized" if row["state"] not in ("failed", "manual_review") else row["state"],
        )
        return "summarized; end checks " + ", ".join(
            f"{k}={'ok' if v else 'NO'}" for k, v in sorted(p["checks"].items())
        )
    if kind == TransitionChecked.TYPE:
        if p["allowed"]:
            row["warnings"] = [*row["warnings"], *p["warnings"]]
            return f"{p['next']} allowed with warnings: {'; '.join(p['warnings'])}"
        row.update(
            blocks_in_row=row["blocks_in_row"] + 1,
            blocks_total=row["blocks_total"] + 1,
            last_block={"next": p["next"], "reasons": p["blocking_reasons"]},
        )
        if p["next"] == "action_executed" and row["state"] in APPROVED_STATES:
            row["state"] = "plan_generated"  # a refused action returns the session to approval
        return f"{p['next']} blocked: {'; '.join(p['blocking_reasons'])}"
    if kind == FeedbackRecorded.TYPE:
        row["feedback"] = {"approved": p["approved"], "notes": p["notes"]}
        if p["approved"]:
            return "the user accepted the result"
        row.update(
            state="intent_captured",
            plan=None,
            approval=None,
            rerequests=row["rerequests"] + 1,
            fix_loops=row["fix_loops"] + 1,
        )
        return f"the user rejected the result: {p['notes']}"
    # workflow.failed / workflow.manual_review
    row.update(state=kind.removeprefix("workflow."), cause=p["cause"], running=None)
    return p["cause"]


def load(conn: sqlite3.Connection, session_id: str) -> dict[str, Any] | None:
    r = conn.execute(
        f"SELECT {', '.join(COLUMNS)} FROM workflow_sessions WHERE session_id = ?", (session_id,)
    ).fetchone()
    if r is None:
        return None
    return {c: json.loads(v) if c in JSON_COLUMNS and v is not None else v for c, v in zip(COLUMNS, r, strict=True)}


def recent_sessions(conn: sqlite3.Connection, limit: int) -> list[str]:
    """The ids of the sessions last updated, newest first."""
    sql = "SELECT session_id FROM workflow_sessions ORDER BY updated_at DESC LIMIT ?"
    return [r[0] for r in conn.execute(sql, (limit,))]


def steps(conn: sqlite3.Connection, session_id: str) -> list[dict[str, Any]]:
    """A session's steps in the order they were taken: {seq, step, state, why, at}."""
    sql = "SELECT seq, type, state, why, at FROM workflow_steps WHERE session_id = ? ORDER BY ordinal"
    return [
        {"seq": r[0], "step": r[1], "state": r[2], "why": r[3], "at": r[4]} for r in conn.execute(sql, (session_id,))
    ]


def save(conn: sqlite3.Connection, row: dict[str, Any]) -> None:
    values = [
        json.dumps(row[c], sort_keys=True) if c in JSON_COLUMNS and row[c] is not None else row[c] for c in COLUMNS
    ]
    conn.execute(
        f"INSERT OR REPLACE INTO workflow_sessions ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})",
        values,
    )
