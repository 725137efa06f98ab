"""Answers worked out once per file and kept, where working one out may lead back to itself: a Python file's refs
(callrefs.py) follow names to values to names, and `a = b; b = a`, or relay returning hop's result while hop
returns relay's, leads back to an answer still being worked out. Such a lookup meets nothing on its way back.

An answer that met an outer one still unfinished lacks what that one adds, so it is kept only until that one is
done; and an answer cut short at the walk's depth limit is whole only for the outermost answer asking. Kept as if
whole, either made a file's refs depend on the order its calls were asked in (jinja2's `self.node.as_const()` was
unknown after some calls and `Expr().as_const` before them)."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

Answer = TypeVar("Answer")
_WHOLE = 1 << 30  # no answer still being worked out was met


class CycleMemo:
    """Where answers are being worked out (by depth) and what each met; the answers themselves are kept in the
    dictionaries the caller passes, one per kind of question."""

    def __init__(self) -> None:
        self._active: dict[Hashable, int] = {}  # answers being worked out, by depth
        self._reached = _WHOLE  # the outermost of them the answer being worked out came back to
        self._provisional: dict[Hashable, tuple[object, int]] = {}  # answers that met one still being worked out
        self._waiting: dict[int, list[Hashable]] = {}  # those, by the depth of the one they met

    def answer(
        self, key: Hashable, work: Callable[[], Answer], kept: dict[Any, Answer], nothing: Answer, too_deep: bool
    ) -> Answer:
        """`kept[key]`, else `work()`'s answer, kept there when whole; `nothing` for a key already being worked out,
        and for one asked `too_deep` in a walk (cut short: see `cut`)."""
        if key in kept:
            return kept[key]
        if key in self._active:
            self._reached = min(self._reached, self._active[key])
            return nothing
        if key in self._provisional:
            found, reached = self._provisional[key]
            self._reached = min(self._reached, reached)
            return found  # type: ignore[return-value]  # kept under this key by this method, from `work()`
        if too_deep:
            self.cut()
            return nothing
        depth = len(self._active)
        self._active[key] = depth
        outer, self._reached = self._reached, _WHOLE
        answer = work()
        del self._active[key]
        for stale in self._waiting.pop(depth, []):  # answers that met this one: they may lack it no longer
            self._provisional.pop(stale, None)
        if self._reached >= depth:  # it met only itself, or answers inside it: whole
            kept[key] = answer
        else:
            self._provisional[key] = (answer, self._reached)
            self._waiting.setdefault(self._reached, []).append(key)
            outer = min(outer, self._reached)
        self._reached = outer
        if not self._active:
            self._provisional.clear()
            self._waiting.clear()
        return answer

    def cut(self) -> None:
        """A walk was cut short at its depth limit: no answer on the way is whole until the outermost one is done,
        since the same question asked fewer steps in may give more."""
        self._reached = -1

    def unfinished(self, work: Callable[[], Answer]) -> tuple[Answer, bool]:
        """`work()`'s answer, and whether it met an answer still being worked out (a function whose `return`s lead
        back to it gives nothing yet, which is not 'nothing')."""
        outer, self._reached = self._reached, _WHOLE
        answer = work()
        met = self._reached != _WHOLE
        self._reached = min(outer, self._reached)
        return answer, met
