"""The names each function of a file binds, found by byte offset: what gorefs.py and jsrefs.py type calls with.

Functions nest, so their spans do: the function holding a byte is found by bisecting their starts and walking
out, without asking tree-sitter for a node's parent (each one a walk down from the root).
"""

from __future__ import annotations

import bisect
from typing import Generic, TypeVar

from tree_sitter import Node

T = TypeVar("T")


class FunctionScopes(Generic[T]):
    """Per function (and at the top of the file), each name with what it is bound to, in the order bound."""

    def __init__(self, functions: list[Node]) -> None:
        self.functions = sorted(functions, key=lambda n: n.start_byte)
        self._starts = [f.start_byte for f in self.functions]
        self._ends = [f.end_byte for f in self.functions]
        self.outer: list[int] = []  # each function's enclosing function (-1: none)
        open_functions: list[int] = []
        for index, function in enumerate(self.functions):
            while open_functions and self._ends[open_functions[-1]] <= function.start_byte:
                open_functions.pop()
            self.outer.append(open_functions[-1] if open_functions else -1)
            open_functions.append(index)
        self.names: list[dict[str, list[T]]] = [{} for _ in self.functions]
        self.top: dict[str, list[T]] = {}  # the file's own: its module or package level

    def innermost(self, offset: int) -> int:
        """The index of the innermost function holding a byte; -1 for the file's top level."""
        index = bisect.bisect_right(self._starts, offset) - 1
        while index >= 0 and not offset < self._ends[index]:
            index = self.outer[index]
        return index

    def around(self, offset: int) -> list[dict[str, list[T]]]:
        """The names bound around a byte: by each function holding it, innermost first, then at the top."""
        index, scopes = self.innermost(offset), []
        while index >= 0:
            scopes.append(self.names[index])
            index = self.outer[index]
        return [*scopes, self.top]

    def at(self, offset: int) -> dict[str, list[T]]:
        """Where a name bound at this byte goes: the innermost function's names, or the top's."""
        index = self.innermost(offset)
        return self.names[index] if index >= 0 else self.top


def lookup(name: str, scopes: list[dict[str, list[T]]]) -> list[T]:
    """The bindings of a name in the innermost scope binding it; none when no scope does."""
    return next((scope[name] for scope in scopes if name in scope), [])
