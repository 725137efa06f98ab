"""verify_result: the tests affected by what changed since the session started, and the static
checks, run in the sandbox; pass or fail against the success criteria; the cause of a failure kept
apart from the advice on what to try next."""

from __future__ import annotations

import re
import sqlite3
from typing import TYPE_CHECKING, Any

from ..store import workflow_rules as rules
from ..store.suite import runner_known
from .workflow_plan import commands_to_test, python, runs_with_pytest

if TYPE_CHECKING:
    from .workflow import Engine

_FAILED_LINE = re.compile(r"^(?:FAILED|ERROR) (\S+)", re.M)
TEST_CUES = frozenset({"test", "tests", "pytest", "pass", "passes", "테스트", "통과"})
OUTPUT_TAIL = 1_500  # characters of a failing check's output kept with the verification
CHECK_CUES = frozenset({"static", "check", "checks", "lint", "compile", "compiles", "type", "types", "mypy", "ruff"})


def criterion_met(criterion: str, tests_passed: bool, checks_passed: bool) -> tuple[bool | None, str]:
    """Whether a success criterion is met, by rule: tests and static checks are measured here;
    anything else (behaviour, wording) cannot be told by rules and waits for the user's feedback."""
    words = set(re.findall(r"\w+", criterion.lower()))
    if words & CHECK_CUES and not words & {"test", "tests", "pytest"}:
        return checks_passed, "the static checks " + ("passed" if checks_passed else "failed")
    if words & TEST_CUES:
        return tests_passed, "the tests affected " + ("passed" if tests_passed else "failed")
    return None, "rules cannot tell: the user decides with record_user_feedback"


def verify_changes(engine: Engine, row: dict[str, Any]) -> dict[str, Any]:
    from ..indexer.git.symdiff import WORKTREE, diff_symbols
    from . import sandbox

    start = row["git_start"].get("head")
    diff = (
        diff_symbols(engine.root, engine.conn, start, WORKTREE, include_untracked=True, source="mcp") if start else None
    )
    changed = [s["id"] for s in diff["changed_symbols"]] + [s["id"] for s in diff["deleted_symbols"]] if diff else []
    tests = diff["tests_affected"] if diff else list((row.get("plan") or {}).get("tests", []))
    changed_files = sorted({s["id"].split("::")[0] for s in (diff["changed_symbols"] if diff else [])})
    commands: list[tuple[str, list[str]]] = []
    commands += [("tests", argv) for argv in commands_to_test(tests)]
    py_files = [f for f in changed_files if f.endswith(".py") and (engine.root / f).is_file()]
    if py_files:
        commands.append(("static", [python(), "-m", "py_compile", *py_files]))
    commands += [("static", list(c)) for c in (row.get("plan") or {}).get("static_checks", [])]
    policy = engine.policy(bool(row["intent"]["constraints"].get("network")))
    checks: list[dict[str, Any]] = []
    for kind, argv in commands:
        checked = sandbox.check(argv, engine.root, policy)
        if checked.problems:
            checks.append(
                {"kind": kind, "argv": argv, "exit_code": None, "passed": False, "problems": checked.problems}
            )
            continue
        ran = sandbox.run(checked, policy)
        ok = ran["exit_code"] == 0
        checks.append(
            {
                "kind": kind,
                "argv": argv,
                "exit_code": ran["exit_code"],
                "passed": ok,
                "timed_out": ran["timed_out"],
                "output_digest": ran["output_digest"],
                "failed": _FAILED_LINE.findall(ran["output"])[:20],
                **({} if ok else {"output_tail": ran["output"][-OUTPUT_TAIL:]}),
            }
        )
    tests_passed = all(c["passed"] for c in checks if c["kind"] == "tests")
    checks_passed = all(c["passed"] for c in checks if c["kind"] == "static")
    criteria = []
    for criterion in (row.get("approval") or {}).get("success_criteria") or row["intent"]["success_criteria"]:
        met, basis = criterion_met(criterion, tests_passed, checks_passed)
        criteria.append({"criterion": criterion, "met": met, "basis": basis})
    passed = tests_passed and checks_passed and all(c["met"] is not False for c in criteria)
    cause = advice = ""
    if not passed:
        failing = [f for c in checks for f in c.get("failed", [])]
        broken = [" ".join(c["argv"][1:4]) for c in checks if not c["passed"]]
        timed_out = [" ".join(c["argv"][1:4]) for c in checks if c.get("timed_out")]
        cause = (f"{len(failing)} failing: {', '.join(failing[:5])}" if failing else f"{', '.join(broken)} failed") + (
            f"; timed out: {', '.join(timed_out)}" if timed_out else ""
        )
        advice = (
            "fix the code the failing tests exercise (checks[].output_tail shows the failure), "
            "run_action the step again, then verify_result"
        )
    notes = notes_on_tests(tests, changed_files, engine.conn)
    criteria += [{"criterion": "(note)", "met": None, "basis": note} for note in notes]
    return {
        "passed": passed,
        "changed": changed,
        "tests": tests,
        "checks": checks,
        "criteria": criteria,
        "cause": cause,
        "advice": advice,
    }


def notes_on_tests(tests: list[str], changed_files: list[str], conn: sqlite3.Connection | None = None) -> list[str]:
    """What verification says of the tests it did not run: those of a language whose runner is not known here
    (an empty list of tests says nothing of them), those pytest cannot run, or that no test is affected."""
    notes = []
    unknown = [f for f in changed_files if not runner_known(f, conn)]
    if unknown:
        notes.append(
            f"tests unknown for {', '.join(unknown[:3])}: no test runner of their language is known here; "
            "run the project's own tests"
        )
    if unrun := [t for t in tests if not runs_with_pytest(t)]:
        notes.append(
            f"{len(unrun)} affected test(s) not run here ({', '.join(unrun[:3])}): "
            "run them with the project's own test command"
        )
    if not tests and not unknown:
        notes.append("no tests are affected by the change")
    return notes


__all__ = ["criterion_met", "rules", "notes_on_tests", "verify_changes"]
