"""What the workflow engine asks of the index: the code a request names, its risk, and a plan.

A plan is never free text alone: its steps are the modules and symbols of the context pack (one
module a step), each with the tests that reach it (impact analysis), the commands that run them,
and the risks the index sees (dependents, protected paths, no tests).
"""

from __future__ import annotations

import fnmatch
import sqlite3
import sys
from pathlib import Path
from typing import Any

from ..hooks.settings import SettingsError, read_settings
from ..store import queries
from ..store.queries import is_test_path
from ..store.tasktext import named_path, named_symbols, task_terms
from .contextpack import build_pack

PLAN_BUDGET = 6_000  # tokens of context pack a plan is drawn from
MAX_STEPS = 6
MAX_STEP_TESTS = 12
MANY_DEPENDENTS = 10


def load_config(root: Path) -> dict[str, Any]:
    """The "workflow" object of .annals/config.json (absent: the defaults), and "protected_paths"."""
    try:
        data = read_settings(root)
    except SettingsError as exc:
        raise ValueError(str(exc)) from exc
    workflow = data.get("workflow", {})
    return {**workflow, "protected_paths": [*data.get("protected_paths", []), *workflow.get("protected_paths", [])]}


def python() -> str:
    return sys.executable


def find_scope(conn: sqlite3.Connection, text: str) -> list[dict[str, Any]]:
    """Paths, modules and symbols the text names that the index knows: {kind, ref, path}."""
    paths, names, _ = task_terms(text)
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for ref in [*paths, *names]:
        path = named_path(conn, ref)
        if path is not None:
            found.setdefault(("module", path), {"kind": "module", "ref": ref, "path": path})
            continue
        for symbol in named_symbols(conn, ref)[:3]:
            found.setdefault(("symbol", symbol["id"]), {"kind": "symbol", "ref": symbol["id"], "path": symbol["path"]})
    return list(found.values())


def protected(path: str, patterns: list[str]) -> bool:
    return any(fnmatch.fnmatch(path, p) or path.startswith(p.rstrip("/") + "/") for p in patterns)


def risk_of(
    root: Path, conn: sqlite3.Connection, scope: list[dict[str, Any]], protected_paths: list[str]
) -> dict[str, Any]:
    """The highest impact risk of the scope, its dependents and tests, and the risk tags."""
    levels = ("low", "medium", "high")
    level = "low"
    dependents: set[str] = set()
    tests: dict[str, None] = {}  # impact's order: the tests calling the code first, never alphabetical
    tags: set[str] = set()
    for item in scope:
        try:
            found = queries.impact(conn, item["ref"] if item["kind"] == "symbol" else item["path"], root=root)
        except queries.NotFound:
            continue
        level = max(level, found["risk"], key=levels.index)
        dependents.update(d["path"] for d in found["dependents"] if not is_test_path(d["path"]))
        tests.update(dict.fromkeys(found["tests"]))
        if protected(item["path"], protected_paths):
            tags.add("protected_path")
    if len(dependents) > MANY_DEPENDENTS:
        tags.add("many_dependents")
    if scope and not tests:
        tags.add("no_tests")
    return {
        "level": level if scope else "unknown",
        "dependents": sorted(dependents)[:20],
        "dependents_total": len(dependents),
        "tests": list(tests)[:20],
        "tests_total": len(tests),
        "tags": sorted(tags),
        "basis": "impact_analysis of each scope item" if scope else "no scope yet",
    }


def commands_to_test(tests: list[str]) -> list[list[str]]:
    """How to run the tests here: pytest's ids and Python test files through pytest. A JavaScript or TypeScript
    test file, or a Go test, is listed, not run: no rule here knows how its project invokes the runner (`npm
    test` may build first, as typeorm's does; a Go module may need build tags), and pytest handed one fails."""
    runnable = [t for t in tests if runs_with_pytest(t)]
    return [[python(), "-m", "pytest", "-q", "-p", "no:cacheprovider", *runnable]] if runnable else []


def runs_with_pytest(test: str) -> bool:
    return test.split("::")[0].endswith(".py") and not test.endswith("conftest.py")


# Where the intent's scope came from, as a plan step says why it is there.
SCOPE_SOURCES = {
    "request": "named in the request",
    "answer": "named in an answer to a clarifying question",
    "default": "a default scope you accepted: the context pack's best module for the goal",
}


def make_plan(
    root: Path, conn: sqlite3.Connection, intent: dict[str, Any], config: dict[str, Any], source: str = "mcp"
) -> dict[str, Any]:
    """Steps from the context pack of the goal, one module each, ranked; tests and risks from impact. `source`: who
    asks (the pack completes the files it shows for them while the index is completing)."""
    scope = intent["scope"]
    task = " ".join([intent.get("goal") or "", *(s["ref"] for s in scope)])
    pack, _ = build_pack(root, conn, task, PLAN_BUDGET, focus=[s["ref"] for s in scope], source=source)
    by_module: dict[str, dict[str, Any]] = {}
    named = SCOPE_SOURCES.get(intent["sources"]["scope"], "in the scope")
    for item in scope:
        if not is_test_path(item["path"]):
            step = by_module.setdefault(item["path"], {"symbols": [], "why": []})
            step["why"].append(f"{named} ({item['ref']})")
            if item["kind"] == "symbol":
                step["symbols"].append(item["ref"])
    for symbol in pack["symbols"]:
        if is_test_path(symbol["path"]):
            continue
        if symbol["path"] not in by_module and len(by_module) >= MAX_STEPS:
            continue
        step = by_module.setdefault(symbol["path"], {"symbols": [], "why": []})
        if symbol["id"] not in step["symbols"]:
            step["symbols"].append(symbol["id"])
            step["why"].append(f"{symbol['id']}: {'; '.join(symbol['why'])}")
    patterns = config.get("protected_paths", [])
    steps: list[dict[str, Any]] = []
    all_tests: list[str] = []
    for priority, (path, found) in enumerate(by_module.items(), 1):
        impact = queries.impact(conn, path, root=root)
        tests = impact["tests"][:MAX_STEP_TESTS]
        risks = []
        dependents = [d["path"] for d in impact["dependents"] if not is_test_path(d["path"])]
        if dependents:
            risks.append(f"{len(dependents)} dependents ({impact['risk']} risk): {', '.join(dependents[:4])}")
        if protected(path, patterns):
            risks.append(f"{path} is a protected path")
        if not tests:
            risks.append("no test reaches this module")
        steps.append(
            {
                "id": f"step-{priority}",
                "module": path,
                "symbols": found["symbols"],
                "why": found["why"],
                "priority": priority,
                "tests": tests,
                "tests_total": len(impact["tests"]),
                "commands": commands_to_test(tests),
                "risks": risks,
                "risk": impact["risk"],
            }
        )
        all_tests.extend(t for t in tests if t not in all_tests)
    checks = [list(c) for c in config.get("static_checks", [])]
    return {
        "steps": steps,
        "tests": all_tests,
        "static_checks": checks,
        "commands": commands_to_test(all_tests),
        "risks": sorted({r for s in steps for r in s["risks"]})
        + [f"risk tag: {t}" for t in intent["risk"].get("tags", [])],
        "basis": f"get_context_pack({task!r}) and impact_analysis of each module",
        "pack_tests": [t["test"] for t in pack["tests"]],
        "omitted": pack["omitted"],
    }
