"""The commands of a command line that Python code runs by their names: click's and Typer's test runners
(`CliRunner().invoke(cli, ["-C", root, "pack", task])`) run the command `pack` of the group `cli`, which no call
names. Each word of the arguments that may be a command's name is a call where it is written, its ref the group's
followed by the words up to it (`import#4:cli."pack"`, store/refs.py's command_segment); the store decides which
words are commands of which group (store/commands.py)."""

from __future__ import annotations

import re
import shlex
from typing import TYPE_CHECKING

from tree_sitter import Node

from ...store.refs import command_segment
from .nodes import keyword_argument, method_call, positional_arguments, string_literal

if TYPE_CHECKING:
    from .callrefs import PythonRefs
    from .pyscopes import Definition

# A word a command line may name a command by: not an option (`--json`), a path or a sentence
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
_RUNNERS = frozenset({"invoke"})  # click.testing.CliRunner.invoke, typer.testing.CliRunner.invoke
MAX_WORDS = 8  # the words of one call followed: a command line names its commands first


def commands_run(refs: PythonRefs) -> list[tuple[Node, Definition | None, str]]:
    """`runner.invoke(G, ["sub", "name", ...])` or `runner.invoke(G, "sub name")`: a call at each word that may name a
    command, its ref the group's (every alternative) followed by the words so far."""
    out = []
    for call, where in refs.calls:
        called = method_call(call, refs.source)
        if called is None or called[0] not in _RUNNERS:
            continue
        arguments = called[1]
        given = positional_arguments(arguments)
        group = given[0] if given and given[0].type in ("identifier", "attribute", "call") else None
        line = given[1] if len(given) > 1 else keyword_argument(arguments, "args", refs.source)
        words = _words(line, refs.source) if group is not None and line is not None else []
        if group is None or not words:
            continue
        groups = refs.code_refs(group, where)
        written: list[str] = []
        for node, word in words[:MAX_WORDS] if groups else ():
            written.append(command_segment(word))
            out.append((node, where, "|".join(".".join((g, *written)) for g in groups)))
    return out


def _words(line: Node, source: bytes) -> list[tuple[Node, str]]:
    """The literal words of a command line given as a list or tuple of strings (the others, `str(root)` or an
    f-string, are skipped) or as one string, with the node each is written in."""
    if line.type == "string":
        text = string_literal(line, source)
        try:
            split = shlex.split(text) if text is not None else []
        except ValueError:  # an unclosed quote: click would refuse it too
            split = []
        return [(line, w) for w in split if _WORD.fullmatch(w)]
    if line.type not in ("list", "tuple"):
        return []
    found = [(item, string_literal(item, source)) for item in line.named_children if item.type == "string"]
    return [(item, w) for item, w in found if w is not None and _WORD.fullmatch(w)]
