"""`annals workflow ...`: the workflow tools from the command line, on the same engine.

Loaded with every command: the engine is imported only when a workflow command runs.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import click

from ...store.queries import NotFound
from ..cli import Context, cli, echo_lines, emit, json_option


@cli.group()
def workflow() -> None:
    """Workflow sessions: a request captured, clarified, planned, approved, executed, verified, summarised."""


@contextmanager
def _engine(obj: Context) -> Iterator[Any]:
    from ..workflow import Engine

    with obj.store() as conn:
        try:
            yield Engine(obj.repo, conn, source="cli")
        except (NotFound, ValueError) as exc:
            raise click.ClickException(str(exc)) from exc


def _outcome_lines(d: dict[str, Any]) -> None:
    verdict = "" if d["allowed"] else "  BLOCKED: " + "; ".join(d["blocking_reasons"])
    click.echo(f"session {d['session_id']}: {d['state']}{verdict}")
    for warning in d["warnings"]:
        click.echo(f"  warning: {warning}")
    result = d["result"]
    if "question" in result:
        click.echo(f"  question ({result['question']['item']}): {result['question']['question']}")
    if "plan" in result and result["plan"]:
        for step in result["plan"]["steps"]:
            click.echo(f"  {step['id']} {step['module']}: {', '.join(step['symbols'][:4])}; tests {len(step['tests'])}")
    if "history" in result:
        echo_lines(f"  {h['seq']:>6} {h['step']:<20} -> {h['state']:<16} {h['why']}" for h in result["history"])
        echo_lines(f"  git: {change}" for change in result["git_drift"]["changes"])
    if "exit_code" in result:
        click.echo(
            f"  exit {result['exit_code']} in {result['duration_ms']:.0f} ms, {result['output_bytes']} bytes"
            + (" (timed out)" if result["timed_out"] else "")
        )
    if "passed" in result:
        click.echo(f"  verification {'passed' if result['passed'] else 'failed: ' + result['cause']}")
    for action in d["suggested_next_actions"]:
        click.echo(f"  next: {action}")


def _run(obj: Context, as_json: bool, call: Callable[[Any], Any]) -> None:
    with _engine(obj) as engine:
        emit(call(engine).as_json(), as_json, _outcome_lines)


@workflow.command("start")
@click.argument("request")
@click.option("--session", "session_id", default=None, help="Reset this session instead of starting a new one.")
@json_option
@click.pass_obj
def start(obj: Context, request: str, session_id: str | None, as_json: bool) -> None:
    """Start a session from a request (ingest_intent)."""
    _run(obj, as_json, lambda e: e.ingest_intent(request, session_id))


@workflow.command("clarify")
@click.argument("session_id")
@click.argument("answer", required=False)
@json_option
@click.pass_obj
def clarify(obj: Context, session_id: str, answer: str | None, as_json: bool) -> None:
    """Show the next question, or answer it (clarify_intent)."""
    _run(obj, as_json, lambda e: e.clarify_intent(session_id, answer))


@workflow.command("plan")
@click.argument("session_id")
@json_option
@click.pass_obj
def plan(obj: Context, session_id: str, as_json: bool) -> None:
    """Plan the session's steps from the index (generate_plan)."""
    _run(obj, as_json, lambda e: e.generate_plan(session_id))


@workflow.command("approve")
@click.argument("session_id")
@click.option("--tag", "tags", multiple=True, help="A requirement tag (repeat).")
@click.option("--criterion", "criteria", multiple=True, help="A success criterion (repeat).")
@click.option("--reject", is_flag=True, help="Send the plan back instead of approving it.")
@click.option("--edits", default=None, help="JSON edits: drop_steps, allow, network, paths.")
@json_option
@click.pass_obj
def approve(
    obj: Context,
    session_id: str,
    tags: tuple[str, ...],
    criteria: tuple[str, ...],
    reject: bool,
    edits: str | None,
    as_json: bool,
) -> None:
    """Approve the plan with requirement tags and success criteria (approve_plan)."""
    try:
        parsed = json.loads(edits) if edits else None
    except ValueError as exc:
        raise click.ClickException(f'--edits is not JSON ({exc}); send e.g. \'{{"allow": ["destructive"]}}\'') from exc
    _run(obj, as_json, lambda e: e.approve_plan(session_id, not reject, list(tags), list(criteria), parsed))


@workflow.command("run", context_settings={"ignore_unknown_options": True})
@click.argument("session_id")
@click.argument("step")
@click.argument("argv", nargs=-1, required=True, type=click.UNPROCESSED)
@click.option("--timeout", type=click.FloatRange(0.1, 1800), default=None, help="Seconds before it is stopped.")
@json_option
@click.pass_obj
def run(obj: Context, session_id: str, step: str, argv: tuple[str, ...], timeout: float | None, as_json: bool) -> None:
    """Run one command of an approved step, as argv after `--` (run_action)."""
    _run(obj, as_json, lambda e: e.run_action(session_id, step, list(argv), None, timeout))


@workflow.command("verify")
@click.argument("session_id")
@json_option
@click.pass_obj
def verify(obj: Context, session_id: str, as_json: bool) -> None:
    """Run the tests affected and the static checks (verify_result)."""
    _run(obj, as_json, lambda e: e.verify_result(session_id))


@workflow.command("summarize")
@click.argument("session_id")
@json_option
@click.pass_obj
def summarize(obj: Context, session_id: str, as_json: bool) -> None:
    """Results, risks, warnings, next actions and the end checks (summarize)."""
    _run(obj, as_json, lambda e: e.summarize(session_id))


@workflow.command("feedback")
@click.argument("session_id")
@click.option("--reject", is_flag=True, help="The result is not what was wanted.")
@click.option("--notes", default="", help="What the user said.")
@json_option
@click.pass_obj
def feedback(obj: Context, session_id: str, reject: bool, notes: str, as_json: bool) -> None:
    """Record the user's verdict on the result (record_user_feedback)."""
    _run(obj, as_json, lambda e: e.record_user_feedback(session_id, not reject, notes))


@workflow.command("status")
@click.argument("session_id")
@json_option
@click.pass_obj
def status(obj: Context, session_id: str, as_json: bool) -> None:
    """A session's state, history, next actions and git drift (get_session_status)."""
    _run(obj, as_json, lambda e: e.status(session_id))


@workflow.command("metrics")
@click.option("--session", "session_id", default=None, help="One session only.")
@json_option
@click.pass_obj
def metrics(obj: Context, session_id: str | None, as_json: bool) -> None:
    """Intent match, plan fidelity, verification pass rate, re-requests (get_workflow_metrics)."""
    from ...store.workflow_metrics import metrics as compute

    with obj.store() as conn:
        try:
            found = compute(conn, session_id)
        except sqlite3.Error as exc:
            raise click.ClickException(str(exc)) from exc

    def text(d: dict[str, Any]) -> None:
        o = d["overall"]
        click.echo(
            f"{o['sessions']} sessions {o['by_state']}: intent match {o['intent_match']}, plan fidelity "
            f"{o['plan_fidelity']}, verification pass rate {o['verification_pass_rate']}, "
            f"re-requests {o['rerequests']}, blocks {o['blocks']}"
        )
        for s in d["sessions"]:
            click.echo(
                f"  {s['session_id']} {s['state']:<15} match {s['intent_match']} fidelity {s['plan_fidelity']}"
                f" pass {s['verification_pass_rate']} re-requests {s['rerequests']}"
            )

    emit(found, as_json, text)
