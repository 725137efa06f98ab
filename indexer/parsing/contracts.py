"""Module-contract facts found while indexing: side effects detected per language by name."""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

_SHARED_RULES = {"typescript": "javascript", "tsx": "javascript"}


def _dotted(name: str) -> str:
    """`std::fs::read` and `std.fs.read` alike: rules and calls compare with `.` between parts."""
    return name.replace("::", ".")


@functools.cache
def _rules(language: str) -> dict[str, tuple[frozenset[str], tuple[str, ...]]]:
    """kind -> (exact names, prefixes) for a language; empty for languages without a table."""
    table = json.loads(resources.files("codeannals.data").joinpath("side_effects.json").read_text("utf-8"))
    rules = table.get(_SHARED_RULES.get(language, language), {})
    return {kind: (frozenset(_dotted(n) for n in names if not n.endswith((".", "::"))),
                   tuple(_dotted(n) for n in names if n.endswith((".", "::"))))
            for kind, names in rules.items()}


@functools.lru_cache(maxsize=65_536)  # a repository calls the same few thousand names again and again
def _kinds(language: str, written: str, name: str) -> tuple[str, ...]:
    """The kinds of effect a call shows, by the rules of its language."""
    qualified = _dotted(written)
    # A bare rule name (`execute`, `write_text`) matches as a method of anything too.
    return tuple(kind for kind, (exact, prefixes) in _rules(language).items()
                 if qualified in exact or name in exact or qualified.startswith(prefixes))


def side_effects(language: str, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each kind of effect (files, network, processes, ...) with the first few calls that show it."""
    if not _rules(language):
        return []
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for call in calls:
        written = f"{call['qualifier']}.{call['name']}" if call.get("qualifier") else call["name"]
        for kind in _kinds(language, written, call["name"]):
            key = (kind, _dotted(written))
            if key not in found:
                found[key] = {"kind": kind, "via": written, "line": call.get("line"),
                              "symbol": call.get("caller")}
    per_kind: dict[str, int] = {}
    out = []
    for (kind, _), effect in sorted(found.items(), key=lambda kv: (kv[0][0], kv[1]["line"] or 0)):
        per_kind[kind] = per_kind.get(kind, 0) + 1
        if per_kind[kind] <= 8:
            out.append(effect)
    return out
