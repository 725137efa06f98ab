"""The rules of the workflow layer: how a request becomes an intent, which question comes next, and
whether a step may be taken. Each rule is a small named function with a test
(tests/test_workflow_rules.py); no language model is called anywhere.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from .words import content_words

STATES = (
    "received",
    "intent_captured",
    "plan_generated",
    "plan_approved",
    "action_executed",
    "verify_run",
    "summarized",
    "failed",
    "manual_review",
)
# Where each state may go next (failed and manual_review are reachable from anywhere).
NEXT: dict[str, frozenset[str]] = {
    "received": frozenset({"intent_captured"}),
    "intent_captured": frozenset({"intent_captured", "plan_generated"}),
    "plan_generated": frozenset({"plan_generated", "plan_approved"}),
    "plan_approved": frozenset({"plan_generated", "plan_approved", "action_executed"}),
    "action_executed": frozenset({"plan_generated", "action_executed", "verify_run"}),
    "verify_run": frozenset({"action_executed", "verify_run", "summarized"}),
    "summarized": frozenset({"intent_captured", "summarized"}),
    "failed": frozenset({"summarized"}),
    "manual_review": frozenset({"summarized"}),
}
ITEMS = ("goal", "scope", "success_criteria", "requirement_tags", "constraints")  # most important first
DEFAULT_CRITERIA = ("the tests affected by the change pass", "the static checks pass")
DEFAULT_TAG = "change"
MIN_GOAL_WORDS = 2  # content words a goal needs beyond vague ones ("make it better" has none)
MAX_LOOKUPS = 2  # extra index lookups allowed when the context is insufficient; then hold
MAX_BLOCKS_IN_ROW = 3  # blocks in a row that fail the session
VAGUE_WORDS = frozenset(
    """better good nice bad stuff something everything anything whatever improve improved
    fix change update handle work code issue problem cleanup clean up thing ok okay properly""".split()
)
TAG_WORDS: dict[str, frozenset[str]] = {
    "bugfix": frozenset(
        "fix fixes fixed bug bugs broken break breaks crash crashes wrong error errors fails failing "
        "regression incorrect 버그 오류".split()
    ),
    "feature": frozenset(
        "add adds implement support supports new allow allows accept accepts feature 추가 기능".split()
    ),
    "refactor": frozenset("refactor rename move extract split simplify restructure 리팩터링".split()),
    "performance": frozenset("faster slow slower speed performance perf latency memory 성능".split()),
    "docs": frozenset("doc docs documentation readme docstring docstrings 문서".split()),
    "tests": frozenset("test tests coverage 테스트".split()),
    "security": frozenset("security vulnerability injection permission permissions auth 보안".split()),
}
# "You decide": the item takes its rule-based default, recorded as such.
DEFER = re.compile(
    r"^\s*(you decide|up to you|your call|whatever|any|default|don'?t care|no preference|"
    r"알아서|맡길게|상관\s*없)",
    re.I,
)
_SECTION = re.compile(
    r"(?im)^[ \t]*[-*]?[ \t]*(success criteria|acceptance criteria|성공\s*기준|constraints?|"
    r"제약(?:\s*조건)?|tags?|requirement tags|태그)[ \t]*[:：][ \t]*(.*)$"
)
_HASHTAG = re.compile(r"(?<![\w#])#([A-Za-z][\w-]{1,30})")
_NETWORK_OK = re.compile(
    r"\b(network|internet|online|download)\b[^.;\n]{0,20}\b(allowed|ok|yes|permitted)\b|"
    r"\ballow(?:ed|s)?\b[^.;\n]{0,12}\b(network|internet|download)",
    re.I,
)
QUESTIONS = {
    "goal": "What should be true when this is done? One sentence: what changes, and how it should behave.",
    "scope": "Which files, modules or symbols should change (for example `{example}`)?",
    "success_criteria": "How will we know it worked? Name the tests or behaviour that must pass.",
    "requirement_tags": "What kind of change is it: bugfix, feature, refactor, performance, docs, tests or security?",
    "constraints": "What must not change, and may commands use the network?",
}


# --- the request -> intent ------------------------------------------------------------------------


def sections(request: str) -> tuple[str, dict[str, list[str]]]:
    """The request without its labelled sections, and the sections: criteria, constraints, tags.

    A section is `label: a; b` on one line, continued by `- item` lines below it.
    """
    found: dict[str, list[str]] = {}
    body: list[str] = []
    current: str | None = None
    for line in request.splitlines():
        m = _SECTION.match(line)
        if m:
            label = m.group(1).lower()
            current = (
                "criteria"
                if "criteria" in label or "기준" in label
                else "constraints"
                if label.startswith(("constraint", "제약"))
                else "tags"
            )
            found.setdefault(current, []).extend(
                x.strip() for x in re.split(r"[;,]" if current == "tags" else ";", m.group(2)) if x.strip()
            )
        elif current and re.match(r"^\s*[-*]\s+\S", line):
            found[current].append(line.strip()[1:].strip())
        else:
            current = None
            body.append(line)
    return "\n".join(body).strip(), found


def goal_of(text: str) -> str | None:
    """The request's first sentence as the goal, or None when it says too little to act on."""
    first = re.split(r"(?<=[.!?])\s+|\n", text.strip(), maxsplit=1)[0].strip()
    meaningful = [w for w in content_words(first) if w not in VAGUE_WORDS]
    return first[:300] if len(meaningful) >= MIN_GOAL_WORDS else None


def tags_of(text: str) -> list[str]:
    """Requirement tags the words of the request imply, plus any #hashtags, in a fixed order."""
    words = set(re.findall(r"\w+", text.lower()))
    tags = [tag for tag, cues in TAG_WORDS.items() if words & cues]
    return list(dict.fromkeys([*tags, *(t.lower() for t in _HASHTAG.findall(text))]))


def network_allowed(text: str) -> bool:
    return bool(_NETWORK_OK.search(text))


def default_constraints(
    scope_paths: list[str], *, network: bool = False, notes: list[str] | None = None
) -> dict[str, Any]:
    return {"paths": scope_paths or ["."], "network": network, "commands": "allow list", "notes": notes or []}


def normalise(request: str, scope: list[dict[str, Any]], risk: dict[str, Any]) -> dict[str, Any]:
    """The intent of a request: each item with where it came from (request, index, default, missing)."""
    body, found = sections(request)
    goal = goal_of(body)
    tags = [t.lower() for t in found.get("tags", [])] or tags_of(body)
    criteria = found.get("criteria", [])
    constraint_notes = found.get("constraints", [])
    scope_paths = sorted({s["path"] for s in scope})
    return {
        "goal": goal,
        "scope": scope,
        "risk": risk,
        "requirement_tags": tags,
        "success_criteria": criteria or list(DEFAULT_CRITERIA),
        "constraints": default_constraints(scope_paths, network=network_allowed(request), notes=constraint_notes),
        "sources": {
            "goal": "request" if goal else "missing",
            "scope": "index" if scope else "missing",
            "requirement_tags": "request" if tags else "missing",
            "success_criteria": "request" if criteria else "default",
            "constraints": "request" if constraint_notes else "default",
        },
    }


def missing_items(intent: dict[str, Any]) -> list[str]:
    return [item for item in ITEMS if intent["sources"].get(item) == "missing"]


def question_for(item: str, example: str) -> str:
    return QUESTIONS[item].format(example=example)


def is_deferral(answer: str) -> bool:
    return bool(DEFER.match(answer))


def answer_item(
    intent: dict[str, Any], item: str, answer: str, scope: list[dict[str, Any]], default_scope: list[dict[str, Any]]
) -> tuple[dict[str, Any], bool]:
    """The intent with `item` answered (`scope` is what the index found in the answer); True when
    the answer deferred to the rules and the item took its default."""
    intent = {**intent, "sources": dict(intent["sources"])}
    deferred = is_deferral(answer)
    if item == "goal":
        intent["goal"] = answer.strip()[:300] if not deferred else intent.get("goal") or "as requested"
    elif item == "scope":
        intent["scope"] = default_scope if deferred else scope
        if not intent["scope"]:
            return intent, deferred  # nothing the index knows: the item stays missing
    elif item == "success_criteria":
        intent["success_criteria"] = (
            list(DEFAULT_CRITERIA) if deferred else [c.strip() for c in re.split(r";|\n", answer) if c.strip()]
        )
    elif item == "requirement_tags":
        intent["requirement_tags"] = (
            (tags_of(intent.get("goal") or "") or [DEFAULT_TAG])
            if deferred
            else ([t.strip().lower() for t in re.split(r"[,;\s]+", answer) if t.strip()])
        )
    elif item == "constraints":
        paths = sorted({s["path"] for s in intent["scope"]})
        intent["constraints"] = default_constraints(
            paths, network=not deferred and network_allowed(answer), notes=[] if deferred else [answer.strip()]
        )
    intent["sources"][item] = "default" if deferred else "answer"
    if item != "scope" and intent["sources"]["scope"] == "missing" and scope:
        intent["scope"], intent["sources"]["scope"] = scope, "answer"  # the answer named code: take it
    if item != "requirement_tags" and intent["sources"]["requirement_tags"] == "missing" and not deferred:
        implied = tags_of(answer)
        if implied:
            intent["requirement_tags"], intent["sources"]["requirement_tags"] = implied, "answer"
    if intent["sources"]["constraints"] == "default":
        intent["constraints"] = {
            **intent["constraints"],
            "paths": sorted({s["path"] for s in intent["scope"]}) or ["."],
        }
    return intent, deferred


# --- commands ------------------------------------------------------------------------------------

DESTRUCTIVE_BINARIES = frozenset({"rm", "rmdir", "shred", "dd", "mkfs", "truncate", "unlink"})
PERMISSION_BINARIES = frozenset({"chmod", "chown", "chgrp", "sudo", "su", "doas", "setfacl", "setcap"})
EXTERNAL_BINARIES = frozenset({"curl", "wget", "ssh", "scp", "rsync", "nc", "ftp", "telnet"})
DESTRUCTIVE_GIT = frozenset({"reset", "clean", "rebase", "filter-branch", "gc", "prune", "update-ref"})
EXTERNAL_GIT = frozenset({"push", "fetch", "pull", "clone", "remote", "submodule"})
INSTALLERS = frozenset({"pip", "pip3", "npm", "yarn", "pnpm", "cargo", "gem", "go", "apt", "apt-get"})


def command_risks(binary: str, args: list[str]) -> list[str]:
    """destructive / permission / external_call: what a human must have seen before this runs."""
    risks = []
    sub = next((a for a in args if not a.startswith("-")), "")
    if (
        binary in DESTRUCTIVE_BINARIES
        or (binary == "git" and sub in DESTRUCTIVE_GIT)
        or (
            binary == "git"
            and sub in ("push", "branch", "checkout")
            and any(a in ("--force", "-f", "-D") for a in args)
        )
    ):
        risks.append("destructive")
    if binary in PERMISSION_BINARIES:
        risks.append("permission")
    if (
        binary in EXTERNAL_BINARIES
        or (binary == "git" and sub in EXTERNAL_GIT)
        or (binary in INSTALLERS and sub in ("install", "add", "get", "update", "upgrade"))
        or (binary.startswith("python") and args[:2] == ["-m", "pip"])
    ):
        risks.append("external_call")
    return risks


def paths_outside(paths: list[str], allowed: list[str]) -> list[str]:
    """Repository-relative paths that lie under none of the allowed ones ('.' allows everything)."""
    if "." in allowed or not paths:
        return []
    return [p for p in paths if not any(PurePosixPath(p).is_relative_to(a) for a in allowed)]


# --- transitions ---------------------------------------------------------------------------------


@dataclass
class Facts:
    """What the rules look at: the session as projected, plus what the step would do."""

    state: str
    next_step: str
    missing: list[str]
    approved: bool = False  # an approval stands for the plan and intent as they are now
    approval_stale: bool = False  # an approval exists but the intent or plan changed after it
    requirement_tags: list[str] = field(default_factory=list)
    success_criteria: list[str] = field(default_factory=list)
    verify_passed: bool | None = None
    command_problems: list[str] = field(default_factory=list)  # from the sandbox's checks
    paths: list[str] = field(default_factory=list)  # paths the step touches
    allowed_paths: list[str] = field(default_factory=lambda: ["."])
    network_wanted: bool = False
    network_allowed: bool = False
    risks: list[str] = field(default_factory=list)  # destructive, permission, external_call, widened_scope
    approved_risks: list[str] = field(default_factory=list)
    dirty_files: int = 0
    index_behind: bool = False
    repo_policy: str = "warn"  # off | warn | block: dirty tree or index behind HEAD
    lookups: int = 0
    context_insufficient: bool = False


@dataclass(frozen=True)
class Finding:
    rule: str
    level: str  # block | warn | human | hold
    reason: str
    next_action: str
    check: str = ""


Rule = Callable[[Facts], list[Finding]]


def out_of_order(f: Facts) -> list[Finding]:
    if f.next_step in ("failed", "manual_review") or f.next_step in NEXT.get(f.state, frozenset()):
        return []
    if f.next_step in ("plan_generated", "action_executed") and f.missing:
        return []  # intent_incomplete says it better
    if f.next_step == "action_executed" and f.state in ("plan_generated", "intent_captured"):
        return []  # plan_not_approved says it better
    if f.next_step == "summarized" and f.state in ("action_executed", "plan_approved"):
        return []  # verification_not_passed says it better
    return [
        Finding(
            "out_of_order",
            "block",
            f"{f.state} cannot go to {f.next_step}",
            f"from {f.state} go to one of: {', '.join(sorted(NEXT.get(f.state, ())))}",
        )
    ]


def intent_incomplete(f: Facts) -> list[Finding]:
    if f.next_step in ("plan_generated", "plan_approved", "action_executed") and f.missing:
        return [
            Finding(
                "intent_incomplete",
                "block",
                f"the intent lacks {', '.join(f.missing)}",
                f"clarify_intent: answer the question about {f.missing[0]}",
            )
        ]
    return []


def plan_not_approved(f: Facts) -> list[Finding]:
    if f.next_step != "action_executed" or f.missing:
        return []
    if f.approval_stale:
        return [
            Finding(
                "plan_not_approved",
                "block",
                "the intent or plan changed after it was approved",
                "approve_plan again: the approval must match what runs",
            )
        ]
    if not f.approved:
        return [
            Finding(
                "plan_not_approved",
                "block",
                "the plan is not approved",
                "approve_plan with requirement_tags and success_criteria",
            )
        ]
    return []


def verification_not_passed(f: Facts) -> list[Finding]:
    if f.next_step == "summarized" and f.state not in ("failed", "manual_review") and f.verify_passed is not True:
        why = "verification failed" if f.verify_passed is False else "nothing has been verified yet"
        return [Finding("verification_not_passed", "block", why, "fix, run_action again, then verify_result")]
    return []


def constraint_breach(f: Facts) -> list[Finding]:
    out = [
        Finding("constraint_breach", "block", problem, "run a command from the plan, as argv, inside the roots")
        for problem in f.command_problems
    ]
    outside = paths_outside(f.paths, f.allowed_paths)
    if outside:
        out.append(
            Finding(
                "constraint_breach",
                "block",
                f"{', '.join(outside[:5])} outside the session's paths ({', '.join(f.allowed_paths)})",
                "stay inside the scope, or widen it with approve_plan",
            )
        )
    if f.network_wanted and not f.network_allowed:
        out.append(
            Finding(
                "constraint_breach",
                "block",
                "the step needs the network and the intent does not allow it",
                "approve_plan with edits {'network': true} if the user allows it",
            )
        )
    return out


def requirements_missing(f: Facts) -> list[Finding]:
    if f.next_step in ("plan_approved", "action_executed") and (not f.requirement_tags or not f.success_criteria):
        lacking = [
            n for n, v in (("requirement tags", f.requirement_tags), ("success criteria", f.success_criteria)) if not v
        ]
        return [
            Finding(
                "requirements_missing",
                "block",
                f"no {' and no '.join(lacking)}: nothing to execute against",
                "approve_plan with requirement_tags and success_criteria",
            )
        ]
    return []


def repo_state(f: Facts) -> list[Finding]:
    if f.repo_policy == "off" or f.next_step not in ("plan_generated", "action_executed", "verify_run"):
        return []
    out = []
    level = "block" if f.repo_policy == "block" else "warn"
    if f.dirty_files and f.next_step == "plan_generated":
        out.append(
            Finding(
                "repo_state",
                level,
                f"{f.dirty_files} uncommitted files when planning",
                "commit or stash them, or accept that the plan starts from a dirty tree",
            )
        )
    if f.index_behind:
        out.append(Finding("repo_state", level, "the index is behind HEAD", "run `annals index` (or serve with watch)"))
    return out


def human_check_needed(f: Facts) -> list[Finding]:
    return [
        Finding(
            "human_check_needed",
            "human",
            f"{risk.replace('_', ' ')} needs a human check",
            f"approve_plan with edits {{'allow': ['{risk}']}} after the user agreed",
            check=f"human: {risk}",
        )
        for risk in f.risks
        if risk not in f.approved_risks
    ]


def insufficient_context(f: Facts) -> list[Finding]:
    if not f.context_insufficient:
        return []
    if f.lookups < MAX_LOOKUPS:
        return [
            Finding(
                "insufficient_context",
                "warn",
                f"context insufficient: lookup {f.lookups + 1} of {MAX_LOOKUPS}",
                "get_context_pack or search_symbols, then try again",
            )
        ]
    return [
        Finding(
            "insufficient_context",
            "hold",
            f"context still insufficient after {f.lookups} lookups",
            "hold: ask the user with clarify_intent",
        )
    ]


RULES: tuple[Rule, ...] = (
    out_of_order,
    intent_incomplete,
    plan_not_approved,
    verification_not_passed,
    constraint_breach,
    requirements_missing,
    repo_state,
    human_check_needed,
    insufficient_context,
)
FALLBACK = {
    "intent_incomplete": "intent_captured",
    "plan_not_approved": "plan_generated",
    "requirements_missing": "plan_generated",
    "verification_not_passed": "action_executed",
    "constraint_breach": "plan_generated",
    "human_check_needed": "plan_generated",
}


def validate(f: Facts) -> dict[str, Any]:
    """Every rule over the facts: allowed, why not, what to check and do next."""
    findings = [finding for rule in RULES for finding in rule(f)]
    blocking = [x for x in findings if x.level != "warn"]
    warnings = [x.reason for x in findings if x.level == "warn"]
    next_step = f.next_step if not blocking else FALLBACK.get(blocking[0].rule, f.state)
    return {
        "allowed": not blocking,
        "blocking_reasons": [x.reason for x in blocking],
        "warnings": warnings,
        "required_checks": [x.check for x in findings if x.check],
        "suggested_next_actions": list(dict.fromkeys(x.next_action for x in findings)),
        "rules": [x.rule for x in findings],
        "next_step": next_step,
        "confidence": round(max(0.5, 1.0 - 0.1 * len(warnings)), 2),
    }
