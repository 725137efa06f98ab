"""vibe_check: questions that interrupt a plan, built by rules from what we know. No language model.

Asked in this order, each kind capped (QUESTION_CAPS), the most concrete first:
1. the session's rules, sharper when the plan touches their words;
2. code that already does what the plan proposes to write (found in the index);
3. the plan's own uncertainties, and words of the user's request the plan leaves out;
4. the index on what the plan names or implies (by search): files depending on it, tests covering
   it (and whether the plan runs them);
5. learned mistakes sharing the plan's words or of the categories the plan shows signs of, then
   the signs themselves;
6. four generic questions, always, as the floor.
"""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from ..store import learning, queries
from ..store.candidates import files_to_show
from ..store.graph import import_graph
from ..store.queries import is_test_path
from ..store.ranking import rank_task
from ..store.relevance import stem
from ..store.tasktext import task_terms
from ..store.words import content_words

GENERIC_QUESTIONS = (
    "Does this plan solve what the user asked for, or a neighbouring problem?",
    "Is there a simpler way to meet the same need, with less new code?",
    "Which assumptions does the plan rest on, and which of them have you checked?",
    "Would the user recognise their request in this plan, or has the goal drifted?",
)
# Signs in a plan of the standard mistake categories.
CATEGORY_SIGNS: dict[str, tuple[str, ...]] = {
    "Complex Solution Bias": (
        "framework",
        "abstraction",
        "abstract",
        "generic",
        "plugin",
        "factory",
        "layer",
        "architecture",
        "rewrite",
        "redesign",
        "engine",
        "extensible",
        "registry",
        "metaclass",
        "configurable",
    ),
    "Feature Creep": (
        "also",
        "additionally",
        "extra",
        "bonus",
        "nice to have",
        "as well",
        "future-proof",
        "while we're at it",
        "while i'm at it",
        "and maybe",
        "could also",
    ),
    "Premature Implementation": ("implement", "write", "build", "code", "create", "start coding"),
    "Assumption Error": (
        "assume",
        "assuming",
        "probably",
        "should work",
        "i think",
        "likely",
        "presumably",
        "guess",
        "maybe",
        "i believe",
    ),
    "Communication Gap": ("unclear", "not sure what", "clarify", "ambiguous", "interpret"),
}
LOOKING_FIRST = (
    "read",
    "investigate",
    "understand",
    "look at",
    "explore",
    "reproduce",
    "inspect",
    "search",
    "check how",
    "find out",
    "trace",
)
TEST_MENTIONS = ("test", "pytest", "unittest", "spec", "verify", "check")
_PROPOSAL = re.compile(
    r"\b(?:add|write|create|implement|build|introduce|make)\s+(?:a\s+|an\s+|the\s+|our\s+|my\s+)?"
    r"(?:new\s+)?((?:[\w-]+\s+){0,3}?[\w-]+?)"
    r"(?=\s+(?:to|for|in|into|that|which|so|and|with|on|from|using)\b|[.,;:!?)]|\s*$)",
    re.IGNORECASE,
)
MANY_DEPENDENTS = 5
IMPLIED_FILES = 3  # the files the plan's words rank first, asked about beside those it names
# Kinds of question in the order they are asked, each with the most of it asked at once.
QUESTION_CAPS = {"rules": 6, "existing": 3, "doubts": 4, "index": 4, "lessons": 3, "signs": 3}


def _mentions(text: str, phrases: tuple[str, ...]) -> list[str]:
    lowered = f" {text.lower()} "
    return [p for p in phrases if re.search(rf"(?<![a-z]){re.escape(p)}(?![a-z])", lowered)]


def plan_categories(plan: str, uncertainties: list[str]) -> dict[str, list[str]]:
    """Standard categories the plan shows signs of, with the signs."""
    found = {c: _mentions(plan, signs) for c, signs in CATEGORY_SIGNS.items()}
    if found["Premature Implementation"] and _mentions(plan, LOOKING_FIRST):
        found["Premature Implementation"] = []  # it looks before it builds
    if uncertainties:
        found["Assumption Error"].append("stated uncertainties")
    return {c: signs for c, signs in found.items() if signs}


def touched_modules(conn: sqlite3.Connection, text: str) -> list[dict[str, Any]]:
    """Files the text names, then files its words imply (by search), with dependents and tests."""
    paths, names, _ = task_terms(text)
    named: list[str] = []
    for ref in [*paths, *names]:
        try:
            named.append(queries.resolve_path(conn, ref))
        except queries.NotFound:
            try:
                named.append(queries.find_symbol(conn, ref)["path"])
            except queries.NotFound:
                continue
    implied = files_to_show(rank_task(conn, text, churn=False), IMPLIED_FILES, tests=False)
    graph = import_graph(conn)
    out = []
    for path in dict.fromkeys([*named, *implied]):
        out.append(
            {
                "path": path,
                "how": "named" if path in named else "implied by the plan's words",
                "dependents": queries.dependents(conn, path),
                "tests": graph.tests_for_path(path),
            }
        )
    return out


def existing_code(conn: sqlite3.Connection, plan: str) -> list[dict[str, Any]]:
    """For each thing the plan proposes to write, the symbol that may already do it."""
    out = []
    for match in _PROPOSAL.finditer(plan):
        phrase = match.group(1).strip()
        words = [
            w
            for w in content_words(phrase)
            if w not in {"new", "function", "method", "class", "helper", "module", "file", "test", "tests"}
        ]
        if not words:
            continue
        stems = [stem(w) for w in words]
        hits = queries.search(conn, " ".join(stems), limit=5)
        # Every word matched somewhere, and the name itself says at least one of them.
        hits = [
            h
            for h in hits
            if not is_test_path(h["path"])
            and any(word.startswith(s) for word in content_words(h["qualname"]) for s in stems)
        ]
        if hits:
            out.append(
                {
                    "proposal": phrase,
                    "existing": hits[0]["id"],
                    "signature": hits[0]["signature"],
                    "doc": (hits[0]["doc"] or "").split("\n")[0],
                }
            )
    return out


def build_questions(
    conn: sqlite3.Connection,
    goal: str,
    plan: str,
    *,
    user_prompt: str = "",
    progress: str = "",
    uncertainties: list[str] | None = None,
    task_context: str = "",
    session_id: str | None = None,
) -> dict[str, Any]:
    uncertainties = uncertainties or []
    text = f"{goal}\n{plan}\n{task_context}"
    plan_words = set(content_words(f"{goal} {plan}"))
    # Each kind of question in its own list, most concrete kinds first; each kind has its own cap.
    asked: dict[str, list[str]] = {kind: [] for kind in QUESTION_CAPS}

    rules = learning.session_rules(conn, session_id) if session_id else []
    for rule in rules:
        shared = sorted(set(content_words(rule)) & plan_words)
        ask = (
            f"The plan touches {', '.join(shared)}: does it follow the rule?" if shared else "Does the plan respect it?"
        )
        asked["rules"].append(f'Session rule: "{rule}". {ask}')

    existing = existing_code(conn, plan)
    for found in existing:
        asked["existing"].append(
            f'The plan proposes to write "{found["proposal"]}", but {found["existing"]} '
            f"already exists ({found['signature'] or found['doc']}): could you reuse or extend it "
            "instead?"
        )
    for doubt in uncertainties:
        asked["doubts"].append(f'You are unsure about "{doubt}": what would settle it before you write code?')
    missing = [w for w in content_words(user_prompt) if w not in plan_words][:5]
    if missing:
        asked["doubts"].append(
            f"The user's request mentions {', '.join(missing)}, which the plan does not: are they covered?"
        )

    touched = touched_modules(conn, text)
    mentions_tests = bool(_mentions(f"{plan} {progress}", TEST_MENTIONS))
    for t in touched:
        deps, tests = t["dependents"], t["tests"]
        if len(deps) >= MANY_DEPENDENTS:
            asked["index"].append(
                f"{t['path']} ({t['how']}) is imported by {len(deps)} files, e.g. "
                f"{', '.join(deps[:3])}: will the change keep working for them?"
            )
        if tests and not mentions_tests:
            asked["index"].append(
                f"The plan does not mention tests, yet {len(tests)} cover {t['path']} "
                f"({', '.join(tests[:3])}): when will you run them?"
            )
        elif not tests:
            asked["index"].append(f"No test covers {t['path']} ({t['how']}): how will you know the change works?")

    categories = plan_categories(plan, uncertainties)
    in_categories = learning.lessons(conn, list(categories)) if categories else []
    sharing_words = [x for x in learning.lessons(conn) if len(set(content_words(x["mistake"])) & plan_words) >= 2]
    lessons = list({x["mistake"]: x for x in [*sharing_words[:3], *in_categories[:4]]}.values())
    for lesson in lessons:
        fix = f" (put right by: {lesson['solution']})" if lesson["solution"] else ""
        asked["lessons"].append(
            f'Learned before, under {lesson["category"]}: "{lesson["mistake"]}"{fix}. Could this plan repeat it?'
        )
    for category, signs in categories.items():
        if not any(lesson["category"] == category for lesson in lessons):
            asked["signs"].append(f"The plan shows signs of {category} ({', '.join(signs[:3])}): is that warranted?")

    specific = [q for kind, cap in QUESTION_CAPS.items() for q in asked[kind][:cap]]
    final = [*specific, *GENERIC_QUESTIONS]
    return {
        "questions": "\n".join(f"{i}. {q}" for i, q in enumerate(final, 1)),
        "questionList": final,
        "sessionRules": rules,
        "categories": categories,
        "lessons": lessons[: QUESTION_CAPS["lessons"]],
        "touched": [
            {"path": t["path"], "how": t["how"], "dependents": len(t["dependents"]), "tests": t["tests"][:10]}
            for t in touched
        ],
        "existingCode": existing,
    }
