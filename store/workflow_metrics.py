"""Workflow metrics, per session and over sessions, read from the `workflow` projection.

- intent match: the share of success criteria met at the last verification;
- plan fidelity: the share of approved steps that were executed (unplanned commands counted apart);
- verification pass rate: verifications passed over verifications run;
- re-requests: results the user sent back.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from .projections.workflow import COLUMNS, load


def session_metrics(row: dict[str, Any]) -> dict[str, Any]:
    criteria = [c for c in (row["last_verify"] or {}).get("criteria", []) if c["criterion"] != "(note)"]
    approved = (row["approval"] or {}).get("steps", [])
    executed = {e["step"] for e in row["executed"]}
    return {
        "session_id": row["session_id"],
        "state": row["state"],
        "intent_match": round(sum(1 for c in criteria if c["met"]) / len(criteria), 3) if criteria else None,
        "plan_fidelity": round(len(executed & set(approved)) / len(approved), 3) if approved else None,
        "unplanned_steps": sorted(executed - set(approved)),
        "verification_pass_rate": round(row["verifies_passed"] / row["verifies"], 3) if row["verifies"] else None,
        "rerequests": row["rerequests"],
        "clarifications": row["clarifications"],
        "fix_loops": row["fix_loops"],
        "blocks": row["blocks_total"],
        "actions": len(row["executed"]),
    }


def metrics(conn: sqlite3.Connection, session_id: str | None = None) -> dict[str, Any]:
    ids = (
        [session_id]
        if session_id
        else [r[0] for r in conn.execute("SELECT session_id FROM workflow_sessions ORDER BY created_at, session_id")]
    )
    rows = [load(conn, sid) for sid in ids]
    sessions = [session_metrics(r) for r in rows if r is not None]

    def mean(key: str) -> float | None:
        values = [s[key] for s in sessions if s[key] is not None]
        return round(sum(values) / len(values), 3) if values else None

    states: dict[str, int] = {}
    for s in sessions:
        states[s["state"]] = states.get(s["state"], 0) + 1
    return {
        "sessions": sessions,
        "overall": {
            "sessions": len(sessions),
            "by_state": states,
            "intent_match": mean("intent_match"),
            "plan_fidelity": mean("plan_fidelity"),
            "verification_pass_rate": mean("verification_pass_rate"),
            "rerequests": sum(s["rerequests"] for s in sessions),
            "blocks": sum(s["blocks"] for s in sessions),
        },
    }


__all__ = ["COLUMNS", "metrics", "session_metrics"]
