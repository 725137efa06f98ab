"""The workflow engine: one core under the MCP tools (tools/workflow.py) and `annals workflow`.

Every operation reads the session from its projection, asks the rules (store/workflow_rules.py)
whether the step may be taken, and records the step as an event of `workflow:<session_id>`. The
failure policy: a blocked step (not a dry run) is recorded with its reasons and a refused action
returns the session to approval; three blocks in a row fail the session; past the configured
number of fix loops the session goes to manual review.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..store import log as event_log
from ..store import memory
from ..store import workflow_rules as rules
from ..store.projections import workflow as projection
from ..store.queries import NotFound, file_with_most_symbols
from ..store.workflow_events import (
    ActionExecuted,
    ActionStarted,
    FeedbackRecorded,
    IntentCaptured,
    IntentClarified,
    PlanGenerated,
    PlanReviewed,
    SessionEscalated,
    SessionFailed,
    SessionSummarized,
    TransitionChecked,
    VerificationRun,
    WorkflowEvent,
    workflow_stream,
)
from . import workflow_plan as planner
from .workflow_verify import verify_changes

DEFAULT_MAX_FIX_LOOPS = 3
READ_ONLY = {
    "pytest": (),
    "ruff": ("check",),
    "mypy": (),
    "ls": (),
    "cat": (),
    "grep": (),
    "head": (),
    "tail": (),
    "wc": (),
    "diff": (),
    "true": (),
    "false": (),
    "echo": (),
    "git": ("status", "diff", "log", "show", "rev-parse", "ls-files", "blame"),
}
NEXT_ACTIONS = {
    "received": "clarify_intent: answer the question about {missing}",
    "intent_captured": "generate_plan",
    "plan_generated": "approve_plan with requirement_tags and success_criteria",
    "plan_approved": "edit the code, then run_action for {step}",
    "action_executed": "verify_result",
    "verify_run": "summarize",
    "summarized": "record_user_feedback",
    "failed": "ingest_intent to start again (cause: {cause})",
    "manual_review": "a person reviews the session; then record_user_feedback or ingest_intent",
}


@dataclass
class Outcome:
    """What every workflow operation answers: where the session is, and whether the step was taken."""

    session_id: str
    state: str
    allowed: bool = True
    blocking_reasons: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    suggested_next_actions: list[str] = field(default_factory=list)
    result: dict[str, Any] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


class Engine:
    def __init__(self, root: Path, conn: sqlite3.Connection, source: str = "mcp") -> None:
        self.root, self.conn, self.source = root, conn, source
        self.config = planner.load_config(root)

    # --- plumbing ---------------------------------------------------------------------------------

    def record(self, events: list[WorkflowEvent]) -> None:
        memory.record(self.conn, events, source=self.source)

    def session(self, session_id: str) -> dict[str, Any]:
        row = projection.load(self.conn, session_id)
        if row is None:
            known = projection.recent_sessions(self.conn, 5)
            hint = f" Recent sessions: {', '.join(known)}." if known else " No session exists yet."
            raise NotFound(f"no workflow session {session_id!r}; start one with ingest_intent.{hint}")
        return row

    def git_state(self) -> dict[str, Any]:
        from ..indexer.git.gitcmd import GitError, current_branch, head_commit
        from ..indexer.git.gitstate import status_summary

        indexed = event_log.last_commit(self.conn)
        try:
            summary = status_summary(self.root)
            dirty = sum(v for k, v in summary["counts"].items() if k != "staged")
        except (GitError, OSError):  # not a git repository: no git facts, not an error
            return {"head": None, "branch": None, "dirty_files": 0, "indexed_head": indexed}
        return {
            "head": head_commit(self.root),
            "branch": current_branch(self.root),
            "dirty_files": dirty,
            "indexed_head": indexed,
        }

    def next_actions(self, row: dict[str, Any]) -> list[str]:
        steps = (row.get("plan") or {}).get("steps", [])
        action = NEXT_ACTIONS[row["state"]].format(
            missing=(row["missing"] or ["?"])[0], cause=row["cause"] or "?", step=steps[0]["id"] if steps else "a step"
        )
        if row["state"] == "summarized" and (row.get("feedback") or {}).get("approved"):
            action = "done: the user accepted the result; ingest_intent starts the next request"
        out = [action]
        if row.get("running"):
            sp = row["running"].get("safepoint")
            out.insert(
                0,
                f"{row['running']['step']} was interrupted: run it again"
                + (f", or `annals recover checkout_safe_point --name {sp}`" if sp else ""),
            )
        return out

    def outcome(self, session_id: str, **extra: Any) -> Outcome:
        row = self.session(session_id)
        out = Outcome(session_id, row["state"], **extra)
        if not out.suggested_next_actions:
            out.suggested_next_actions = self.next_actions(row)
        return out

    # --- the gate: rules, then the failure policy ---------------------------------------------------

    def facts(self, row: dict[str, Any], next_step: str, context: dict[str, Any] | None = None) -> rules.Facts:
        context = context or {}
        approval = row.get("approval") or {}
        git = self.git_state()
        intent = row["intent"]
        allowed_paths = intent["constraints"]["paths"] + approval.get("paths", [])
        return rules.Facts(
            state=row["state"],
            next_step=next_step,
            missing=list(row["missing"]),
            approved=row["state"] in projection.APPROVED_STATES and bool(approval),
            approval_stale=bool(approval) and approval.get("digest") != approval_digest(row),
            requirement_tags=context.get("requirement_tags", approval.get("requirement_tags", [])),
            success_criteria=context.get("success_criteria", approval.get("success_criteria", [])),
            verify_passed=None if row["last_verify"] is None else row["last_verify"]["passed"],
            command_problems=context.get("command_problems", []),
            paths=context.get("paths", []),
            allowed_paths=allowed_paths,
            network_wanted=bool(context.get("network")),
            network_allowed=bool(intent["constraints"].get("network") or approval.get("network")),
            risks=context.get("risks", []),
            approved_risks=approval.get("allow", []),
            dirty_files=git["dirty_files"] if next_step == "plan_generated" else 0,
            index_behind=bool(git["head"] and git["indexed_head"] and git["head"] != git["indexed_head"]),
            repo_policy=self.config.get("repo_policy", "warn"),
            lookups=int(context.get("lookups", 0)),
            context_insufficient=bool(context.get("insufficient")),
        )

    def gate(
        self, row: dict[str, Any], next_step: str, context: dict[str, Any] | None = None, dry_run: bool = False
    ) -> dict[str, Any]:
        """The rules' verdict; unless a dry run, a block is recorded (three in a row fail the session)."""
        verdict = rules.validate(self.facts(row, next_step, context))
        if dry_run:
            return verdict
        sid = row["session_id"]
        if not verdict["allowed"]:
            events: list[WorkflowEvent] = [
                TransitionChecked(sid, row["state"], next_step, False, verdict["blocking_reasons"], verdict["warnings"])
            ]
            if row["blocks_in_row"] + 1 >= rules.MAX_BLOCKS_IN_ROW:
                cause = f"{rules.MAX_BLOCKS_IN_ROW} blocks in a row; last: {'; '.join(verdict['blocking_reasons'])}" + (
                    f"; before: {'; '.join(row['last_block']['reasons'])}" if row["last_block"] else ""
                )
                events.append(SessionFailed(sid, cause, row["state"]))
                verdict["suggested_next_actions"] = [f"ingest_intent to start again (cause: {cause})"]
            self.record(events)
        elif verdict["warnings"]:
            self.record([TransitionChecked(sid, row["state"], next_step, True, [], verdict["warnings"])])
        return verdict

    def blocked(self, session_id: str, verdict: dict[str, Any]) -> Outcome:
        return self.outcome(
            session_id,
            allowed=False,
            blocking_reasons=verdict["blocking_reasons"],
            warnings=verdict["warnings"],
            suggested_next_actions=verdict["suggested_next_actions"],
            result={"required_checks": verdict["required_checks"], "rules": verdict["rules"]},
        )

    # --- intent -------------------------------------------------------------------------------------

    def ingest_intent(self, request: str, session_id: str | None = None) -> Outcome:
        request = request.strip()
        if not request:
            raise ValueError("request is empty; send what the user asked for, in their words")
        sid = session_id or uuid.uuid4().hex[:12]
        scope = planner.find_scope(self.conn, request)
        risk = planner.risk_of(self.root, self.conn, scope, self.config.get("protected_paths", []))
        intent = rules.normalise(request, scope, risk)
        missing = rules.missing_items(intent)
        reset = projection.load(self.conn, sid) is not None
        self.record([IntentCaptured(sid, request, intent, missing, self.git_state(), reset)])
        out = self.outcome(sid, result={"intent": intent, "missing": missing, "reset": reset})
        if missing:
            out.result["question"] = self.question(intent, missing[0])
        return out

    def question(self, intent: dict[str, Any], item: str) -> dict[str, str]:
        # The module with most symbols makes a telling example of what to name.
        busiest = file_with_most_symbols(self.conn)
        return {"item": item, "question": rules.question_for(item, busiest or "src/module.py")}

    def clarify_intent(self, session_id: str, answer: str | None = None) -> Outcome:
        row = self.session(session_id)
        if not row["missing"]:
            return self.outcome(
                session_id,
                result={"intent": row["intent"], "missing": [], "note": "the intent is complete: nothing to clarify"},
            )
        item = row["missing"][0]
        asked = self.question(row["intent"], item)
        if answer is None or not answer.strip():
            return self.outcome(session_id, result={"question": asked, "missing": row["missing"]})
        scope = planner.find_scope(self.conn, answer)
        default_scope = planner.find_scope(self.conn, row["request"]) or self._pack_scope(row)
        intent, deferred = rules.answer_item(row["intent"], item, answer, scope, default_scope)
        if intent["sources"]["scope"] != "missing" and intent["scope"] != row["intent"]["scope"]:
            intent["risk"] = planner.risk_of(
                self.root, self.conn, intent["scope"], self.config.get("protected_paths", [])
            )
        missing = rules.missing_items(intent)
        self.record([IntentClarified(session_id, item, asked["question"], answer.strip(), intent, missing, deferred)])
        out = self.outcome(
            session_id, result={"item": item, "defaulted": deferred, "intent": intent, "missing": missing}
        )
        if missing:
            out.result["question"] = self.question(intent, missing[0])
        return out

    def _pack_scope(self, row: dict[str, Any]) -> list[dict[str, Any]]:
        """The rule-based default scope: the best modules of a context pack for the goal."""
        from .contextpack import build_pack

        pack, _ = build_pack(
            self.root, self.conn, row["intent"].get("goal") or row["request"], 2_000, source=self.source
        )
        return [{"kind": "module", "ref": m["path"], "path": m["path"]} for m in pack["modules"][:2]]

    # --- plan and approval ----------------------------------------------------------------------------

    def generate_plan(self, session_id: str) -> Outcome:
        row = self.session(session_id)
        verdict = self.gate(row, "plan_generated")
        if not verdict["allowed"]:
            return self.blocked(session_id, verdict)
        plan = planner.make_plan(self.root, self.conn, row["intent"], self.config, self.source)
        self.record([PlanGenerated(session_id, plan)])
        return self.outcome(session_id, warnings=verdict["warnings"], result={"plan": plan})

    def approve_plan(
        self,
        session_id: str,
        approve: bool,
        requirement_tags: list[str],
        success_criteria: list[str],
        edits: dict[str, Any] | None = None,
    ) -> Outcome:
        row = self.session(session_id)
        edits = edits or {}
        tags = [t.strip().lower() for t in requirement_tags if t.strip()]
        criteria = [c.strip() for c in success_criteria if c.strip()]
        if not approve:
            self.record([PlanReviewed(session_id, False, tags, criteria, edits, {})])
            return self.outcome(session_id, result={"edits": edits})
        verdict = self.gate(row, "plan_approved", {"requirement_tags": tags, "success_criteria": criteria})
        if not verdict["allowed"]:
            return self.blocked(session_id, verdict)
        plan = row["plan"] or {}
        dropped = set(edits.get("drop_steps", []))
        approval = {
            "digest": approval_digest(row),
            "request_summary": row["intent"].get("goal") or row["request"],
            "risk_tags": sorted(set(row["intent"]["risk"].get("tags", [])) | set(edits.get("allow", []))),
            "steps": [s["id"] for s in plan.get("steps", []) if s["id"] not in dropped],
            "requirement_tags": tags,
            "success_criteria": criteria,
            "allow": list(edits.get("allow", [])),
            "network": bool(edits.get("network", False)),
            "paths": list(edits.get("paths", [])),
        }
        self.record([PlanReviewed(session_id, True, tags, criteria, edits, approval)])
        return self.outcome(session_id, warnings=verdict["warnings"], result={"approval": approval})

    # --- actions --------------------------------------------------------------------------------------

    def policy(self, network: bool) -> Any:
        from .sandbox import DEFAULT_ALLOWED, Policy

        roots = tuple(
            [self.root, *(Path(r) if Path(r).is_absolute() else self.root / r for r in self.config.get("roots", []))]
        )
        return Policy(
            roots,
            tuple(self.config.get("allowed_commands", DEFAULT_ALLOWED)),
            float(self.config.get("timeout_seconds", 120)),
            int(self.config.get("cpu_seconds", 300)),
            int(self.config.get("memory_bytes", 2 << 30)),
            network,
        )

    def run_action(
        self, session_id: str, step: str, command: list[str], cwd: str | None = None, timeout: float | None = None
    ) -> Outcome:
        from . import sandbox

        row = self.session(session_id)
        approval = row.get("approval") or {}
        network = bool(row["intent"]["constraints"].get("network") or approval.get("network"))
        policy = self.policy(network)
        workdir = Path(cwd) if cwd and Path(cwd).is_absolute() else self.root / (cwd or ".")
        checked = sandbox.check(list(command), workdir, policy)
        plan_steps = {s["id"]: s for s in (row.get("plan") or {}).get("steps", [])}
        problems = list(checked.problems)
        if step not in plan_steps:
            problems.append(f"{step!r} is not a step of the plan ({', '.join(plan_steps) or 'no plan yet'})")
        elif approval and step not in approval.get("steps", []):
            problems.append(f"{step} was dropped from the approved plan")
        writes = may_write(checked.binary, checked.args)
        paths = touched_paths(self.root, checked.cwd, checked.args) if writes else []
        risks = rules.command_risks(checked.binary, checked.args)
        if (
            writes
            and rules.paths_outside(paths, row["intent"]["constraints"]["paths"] + approval.get("paths", []))
            and row["intent"]["sources"]["constraints"] == "default"
        ):
            risks.append("widened_scope")  # beyond the scope found, not beyond what the user said: ask
            paths = []
        context = {"command_problems": problems, "paths": paths, "risks": risks, "network": "external_call" in risks}
        verdict = self.gate(row, "action_executed", context)
        if not verdict["allowed"]:
            return self.blocked(session_id, verdict)
        planned = list(command) in [list(c) for c in plan_steps[step]["commands"]]
        warnings = list(verdict["warnings"])
        if not planned:
            warnings.append(f"{' '.join(command[:3])} is not one of {step}'s planned commands")
        safepoint = None
        if writes:
            from ..hooks import safepoints

            safepoint = safepoints.create(self.root, self.conn, f"workflow {session_id} {step}", source=self.source)[
                "name"
            ]
        self.record([ActionStarted(session_id, step, checked.argv, str(checked.cwd), planned, safepoint)])
        ran = sandbox.run(checked, policy, timeout)
        self.record(
            [
                ActionExecuted(
                    session_id,
                    step,
                    checked.argv,
                    ran["exit_code"],
                    ran["duration_ms"],
                    ran["output_digest"],
                    ran["output_bytes"],
                    ran["output"],
                    ran["truncated"],
                    ran["timed_out"],
                    ran["limits"],
                    self.git_state()["head"],
                )
            ]
        )
        if ran["timed_out"]:
            warnings.append(f"stopped after the {ran['limits']['timeout_s']:.0f} s timeout")
        if ran["limits"]["network"] == "not enforced":
            warnings.append("network isolation is not available on this platform: not enforced")
        return self.outcome(
            session_id, warnings=warnings, result={**ran, "step": step, "planned": planned, "safepoint": safepoint}
        )

    # --- verification, summary, feedback ---------------------------------------------------------------

    def verify_result(self, session_id: str) -> Outcome:
        row = self.session(session_id)
        verdict = self.gate(row, "verify_run")
        if not verdict["allowed"]:
            return self.blocked(session_id, verdict)
        found = verify_changes(self, row)
        events: list[WorkflowEvent] = [VerificationRun(session_id, **found)]
        max_loops = int(self.config.get("max_fix_loops", DEFAULT_MAX_FIX_LOOPS))
        if not found["passed"] and row["fix_loops"] + 1 > max_loops:
            events.append(
                SessionEscalated(
                    session_id,
                    f"{row['fix_loops'] + 1} fix loops, more than {max_loops}: {found['cause']}",
                    row["state"],
                )
            )
        self.record(events)
        return self.outcome(session_id, warnings=verdict["warnings"], result=found)

    def summarize(self, session_id: str) -> Outcome:
        row = self.session(session_id)
        verdict = self.gate(row, "summarized")
        if not verdict["allowed"]:
            return self.blocked(session_id, verdict)
        summary, checks = self.summary(row)
        self.record([SessionSummarized(session_id, summary, checks)])
        return self.outcome(session_id, result={"summary": summary, "checks": checks})

    def summary(self, row: dict[str, Any]) -> tuple[dict[str, Any], dict[str, bool]]:
        verify = row["last_verify"] or {}
        failed = row["state"] in ("failed", "manual_review") or verify.get("passed") is False
        next_actions = (
            [
                f"recover: {row['cause'] or verify.get('cause')}",
                verify.get("advice") or "ingest_intent with what was learned",
            ]
            if failed
            else ["record_user_feedback"]
        )
        summary = {
            "goal": row["intent"].get("goal"),
            "state": row["state"],
            "executed": row["executed"],
            "verified": verify.get("passed"),
            "criteria": verify.get("criteria", []),
            "tests": verify.get("tests", []),
            "risks": (row.get("plan") or {}).get("risks", []),
            "warnings": row["warnings"],
            "cause": row["cause"],
            "next_actions": next_actions,
        }
        checks = {
            "intent_complete": not row["missing"],
            "every_step_recorded": row["running"] is None,
            "no_approval_skipped": not self.skipped_approvals(row["session_id"]),
            "next_action_on_failure": not failed or bool(next_actions),
        }
        return summary, checks

    def skipped_approvals(self, session_id: str) -> list[int]:
        """Actions started while no approval stood, read from the session's own events."""
        approved, skipped = False, []
        for stored in event_log.read(self.conn, stream=workflow_stream(session_id)):
            match stored.event:
                case PlanReviewed(approved=reviewed):
                    approved = reviewed
                case PlanGenerated() | IntentCaptured() | FeedbackRecorded():
                    approved = False
                case TransitionChecked(allowed=False, next="action_executed"):
                    approved = False
                case ActionStarted() if not approved:
                    skipped.append(stored.seq)
        return skipped

    def record_user_feedback(self, session_id: str, approved: bool, notes: str = "") -> Outcome:
        row = self.session(session_id)
        events: list[WorkflowEvent] = [FeedbackRecorded(session_id, approved, notes)]
        max_loops = int(self.config.get("max_fix_loops", DEFAULT_MAX_FIX_LOOPS))
        if not approved and row["fix_loops"] + 1 > max_loops:
            events.append(
                SessionEscalated(
                    session_id,
                    f"{row['fix_loops'] + 1} fix loops, more than {max_loops}: {notes or 'result rejected'}",
                    "intent_captured",
                )
            )
        self.record(events)
        return self.outcome(session_id, result={"approved": approved, "notes": notes})

    def validate(
        self,
        session_id: str,
        current_step: str,
        next_step: str,
        context: dict[str, Any] | None,
        artifacts: dict[str, Any] | None,
        dry_run: bool,
    ) -> dict[str, Any]:
        row = self.session(session_id)
        if current_step and current_step != row["state"]:
            raise ValueError(
                f"current_step {current_step!r} is not the session's state {row['state']!r}; "
                "send the state get_session_status reports"
            )
        verdict = self.gate(row, next_step, {**(artifacts or {}), **(context or {})}, dry_run=dry_run)
        return {**verdict, "recorded": not dry_run and (not verdict["allowed"] or bool(verdict["warnings"]))}

    def status(self, session_id: str) -> Outcome:
        row = self.session(session_id)
        history = projection.steps(self.conn, session_id)
        return self.outcome(
            session_id,
            warnings=list(row["warnings"]),
            result={
                "history": history,
                "intent": row["intent"],
                "missing": row["missing"],
                "plan": row["plan"],
                "approval": row["approval"],
                "running": row["running"],
                "cause": row["cause"],
                "counters": {k: row[k] for k in projection.COUNTERS},
                "git_drift": self.drift(row),
            },
        )

    def drift(self, row: dict[str, Any]) -> dict[str, Any]:
        """What changed in git since the session last recorded its state (on resuming it)."""
        now = self.git_state()
        start = row["git_start"]
        changes = []
        if row["last_head"] != now["head"]:
            changes.append(f"HEAD moved from {str(row['last_head'])[:10]} to {str(now['head'])[:10]}")
        if start.get("branch") != now["branch"]:
            changes.append(f"branch changed from {start.get('branch')} to {now['branch']}")
        if now["dirty_files"] != start.get("dirty_files"):
            changes.append(f"uncommitted files: {start.get('dirty_files')} at the start, {now['dirty_files']} now")
        return {"recorded_head": row["last_head"], "head": now["head"], "changes": changes}


def approval_digest(row: dict[str, Any]) -> str:
    """What an approval is about: the intent (minus where its items came from) and the plan's steps."""
    intent = {k: v for k, v in row["intent"].items() if k != "sources"}
    steps = [
        {k: s[k] for k in ("id", "module", "symbols", "commands")} for s in (row.get("plan") or {}).get("steps", [])
    ]
    text = json.dumps({"intent": intent, "steps": steps}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def may_write(binary: str, args: list[str]) -> bool:
    """Whether a command may change files (then a safe point is saved first): all but known readers."""
    if binary == "python" and args[:2] == ["-m", "pytest"] or binary == "python" and args[:2] == ["-m", "py_compile"]:
        return False
    if binary not in READ_ONLY:
        return True
    subcommands = READ_ONLY[binary]
    return bool(subcommands) and next((a for a in args if not a.startswith("-")), "") not in subcommands


def touched_paths(root: Path, cwd: Path, args: list[str]) -> list[str]:
    """Arguments that name files in the repository, relative to its root (what a writing command touches)."""
    out = []
    real_root = root.resolve()
    for arg in args:
        if arg.startswith("-"):
            continue
        full = (cwd / arg).resolve()
        if (
            full.is_relative_to(real_root)
            and (full.exists() or full.parent.exists())
            and full != real_root
            and ("/" in arg or full.exists())
        ):
            out.append(full.relative_to(real_root).as_posix())
    return out
