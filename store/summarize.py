"""Extractive, deterministic summaries of a conversation: no language model, same input same summary.

Sentences are scored by the importance of their message, words that mark decisions and problems,
and their place in the conversation (the first request, the latest answer); the best few become
the key insights. Fenced code blocks are kept whole, with their message's importance.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

CHARS_PER_TOKEN = 3.5
IMPORTANCE = {"LOW": 0.25, "MEDIUM": 0.5, "HIGH": 0.75, "CRITICAL": 1.0}
SUMMARY_TOKEN_LIMIT = 400  # the summary text is fitted to this many (estimated) tokens
KEY_INSIGHTS = 5
MAX_CODE_BLOCKS = 10
MIN_SENTENCE_WORDS = 4
LONG_SENTENCE_WORDS = 60

_FENCE = re.compile(r"```([\w+#.-]*)[^\n]*\n(.*?)(?:```|\Z)", re.S)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n\s*[-*•]\s+|\n{2,}")
_WORD = re.compile(r"[A-Za-z0-9_']+")
# Words that mark what a later reader needs: decisions, constraints, problems and their fixes.
SIGNAL_WORDS = frozenset(
    """
    must should never always decided decide decision agreed use instead because requirement required
    important note error errors bug bugs fix fixed fails failing failed broken crash problem issue
    todo avoid don't cannot can't rule constraint prefer instead root cause workaround deadline
""".split()
)


def estimate_tokens(text: str) -> int:
    """Tokens a model will count, erring high: English runs ~4 characters a token, code ~3.5."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def sentences(text: str) -> list[str]:
    prose = _FENCE.sub(" ", text)
    return [" ".join(s.split()) for s in _SENTENCE_END.split(prose) if s.strip()]


def code_blocks(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    blocks = []
    for m in messages:
        for language, code in _FENCE.findall(m["content"]):
            blocks.append(
                {
                    "language": language or None,
                    "code": code.rstrip("\n"),
                    "importance": IMPORTANCE.get(m["importance"], 0.5),
                }
            )
    # The most important blocks, latest first among equals, then back in conversation order.
    ranked = sorted(range(len(blocks)), key=lambda i: (-blocks[i]["importance"], -i))[:MAX_CODE_BLOCKS]
    return [blocks[i] for i in sorted(ranked)]


def _score(sentence: str, importance: float, first_request: bool, latest_answer: bool, tagged: bool) -> float:
    words = [w.lower() for w in _WORD.findall(sentence)]
    signal = min(3, sum(1 for w in words if w in SIGNAL_WORDS))
    score = importance + 0.15 * signal + (0.3 if first_request else 0) + (0.2 if latest_answer else 0)
    score += 0.1 if tagged else 0
    return score * (0.8 if len(words) > LONG_SENTENCE_WORDS else 1.0)


def key_insights(messages: Sequence[dict[str, Any]], limit: int = KEY_INSIGHTS) -> list[str]:
    first_user = next((i for i, m in enumerate(messages) if m["role"] == "user"), None)
    last_assistant = next((i for i in range(len(messages) - 1, -1, -1) if messages[i]["role"] == "assistant"), None)
    scored: list[tuple[float, int, str]] = []
    seen: set[str] = set()
    order = 0
    for i, m in enumerate(messages):
        for n, sentence in enumerate(sentences(m["content"])):
            key = sentence.lower().rstrip(".!?")
            if len(_WORD.findall(sentence)) < MIN_SENTENCE_WORDS or key in seen:
                continue
            seen.add(key)
            score = _score(
                sentence,
                IMPORTANCE.get(m["importance"], 0.5),
                i == first_user and n == 0,
                i == last_assistant and n == 0,
                bool(m.get("tags")),
            )
            scored.append((score, order, sentence))
            order += 1
    best = sorted(scored, key=lambda t: (-t[0], t[1]))[:limit]
    return [sentence for _, _, sentence in sorted(best, key=lambda t: t[1])]


def importance_score(messages: Sequence[dict[str, Any]]) -> float:
    """Half the most important message, half the average: one critical message counts."""
    values = [IMPORTANCE.get(m["importance"], 0.5) for m in messages] or [0.0]
    return round(0.5 * max(values) + 0.5 * sum(values) / len(values), 3)


def _first_sentence(text: str) -> str:
    found = sentences(text)
    return found[0] if found else ""


def _fit(parts: list[str], token_limit: int) -> str:
    """Whole parts while they fit; the first part is cut to the limit if it alone is too long."""
    out: list[str] = []
    for part in parts:
        candidate = " ".join([*out, part])
        if estimate_tokens(candidate) > token_limit:
            if not out:
                out.append(part[: int(token_limit * CHARS_PER_TOKEN) - 1].rstrip() + "…")
            break
        out.append(part)
    return " ".join(out)


def summarize(messages: Sequence[dict[str, Any]], token_limit: int = SUMMARY_TOKEN_LIMIT) -> dict[str, Any]:
    """Summary text, code blocks, key insights and importance of `messages` (role, content, importance, tags)."""
    users = sum(1 for m in messages if m["role"] == "user")
    tags = sorted({t for m in messages for t in m.get("tags", [])})
    head = f"{len(messages)} messages ({users} from the user, {len(messages) - users} from the assistant)"
    parts = [head + (f", tagged {', '.join(tags)}." if tags else ".")]
    first_user = next((m for m in messages if m["role"] == "user"), None)
    if first_user and _first_sentence(first_user["content"]):
        parts.append(f"Asked: {_first_sentence(first_user['content'])}")
    insights = key_insights(messages)
    asked = parts[-1].removeprefix("Asked: ") if first_user else ""
    parts.extend(f"- {s}" for s in insights if s != asked)
    last_assistant = next((m for m in reversed(messages) if m["role"] == "assistant"), None)
    if last_assistant and _first_sentence(last_assistant["content"]) not in insights:
        parts.append(f"Latest answer: {_first_sentence(last_assistant['content'])}")
    text = _fit(parts, token_limit)
    return {
        "summary": text,
        "code_blocks": code_blocks(messages),
        "key_insights": insights,
        "importance_score": importance_score(messages),
        "message_count": len(messages),
        "tokens_used": estimate_tokens(text),
        "token_limit": token_limit,
    }
