"""The commands of a click or Typer command line, and which of them a call runs by name.

A test runs a command by the words of its command line (`CliRunner().invoke(cli, ["-C", root, "pack", task])`),
never by a call naming its function: indexer/parsing/pycommands.py writes each word that may name a command as a
call (`import#4:cli."pack"`). A command is a function decorated `@G.command(...)` or `@G.group(...)` (click, Typer,
Flask's `@app.cli.command()`) or handed to a group's `add_command` (click's `cli.add_command(serve)`, Flask's
`self.add_command(routes_command)` in FlaskGroup's `__init__`). The group G is what the decorator's name is at the
file's top level (a function decorated as a group, a module constant: `app = typer.Typer()`), or for `self`, the
class whose instances are groups. A command's names are its decorator's (`@cli.command("diff-symbols")`,
`name="status"`) or its function's as click and Typer derive them (`watch_status` -> `watch-status`; click 8.2
drops a `_command`, `_cmd`, `_group` or `_grp` suffix). A word names a command of the group, or of the group the
word before it named (`["hooks", "install"]`); any other word is an argument, and names nothing of ours.

Not followed: a command added under another name (`cli.add_command(f, "alias")`: the call's words are not kept),
Typer's `add_typer`, and a group held in a constant of a class of ours (`cli = FlaskGroup()` in another module)."""

from __future__ import annotations

import re
import sqlite3
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace

from .db import call_lines, stored_list
from .outsidevalues import OutsideValues
from .refs import Ref, command_word, parse_refs

COMMAND = "runs the command by name"  # a call's basis: `invoke(cli, ["pack"])` runs the function of `pack`

_DECORATOR = re.compile(r"@\s*(?P<group>[A-Za-z_][\w.]*)\.(?P<kind>command|group)\b\s*(?:\((?P<arguments>.*)\))?\s*")
_FIRST_STRING = re.compile(r"""\s*(?P<quote>["'])(?P<name>[^"'\\]+)(?P=quote)""")
_NAME_KEYWORD = re.compile(r"""\bname\s*=\s*(?P<quote>["'])(?P<name>[^"'\\]+)(?P=quote)""")
_CLICK_SUFFIXES = ("command", "cmd", "group", "grp")  # click 8.2's `_get_default_name`


def command_decorators(decorators: Sequence[str]) -> list[re.Match[str]]:
    """The decorators making a function a command or a group of commands."""
    return [found for d in decorators if (found := _DECORATOR.fullmatch(d.strip())) is not None]


def command_names(name: str, decorators: Sequence[str]) -> list[str]:
    """The names a command line runs a command by: the one its decorator gives, else its function's as click and
    Typer derive it; none for a function that is no command."""
    made = command_decorators(decorators)
    if not made:
        return []
    for found in made:
        arguments = found["arguments"] or ""
        given = _FIRST_STRING.match(arguments) or _NAME_KEYWORD.search(arguments)
        if given is not None:
            return [given["name"]]
    derived = name.lower().replace("_", "-")
    left, dash, suffix = derived.rpartition("-")
    return [derived, left] if dash and left and suffix in _CLICK_SUFFIXES else [derived]


class CommandLines(OutsideValues):
    """The commands of every group the index holds, read when a command line is first followed."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        super().__init__(conn)
        self._commands: dict[str, dict[str, str]] | None = None  # group id -> name -> the command's function id

    def command_run(self, path: str, ref: Ref) -> str | None:
        """The function a command line's word runs (`import#4:cli."hooks"."install"`: install of the group hooks of
        cli); None where the last word names no command of the group the words before it reached."""
        cut = next((i for i, s in enumerate(ref.segments) if command_word(s) is not None), len(ref.segments))
        if cut == 0 or ref.root not in ("module", "import"):
            return None
        groups = self._groups_named(path, replace(ref, segments=ref.segments[:cut]), inherited=True)
        commands = self._every_command()
        run = None
        for segment in ref.segments[cut:]:
            word = command_word(segment) or ""
            run = next((c for g in groups if (c := commands.get(g, {}).get(word)) is not None), None)
            if run is not None:
                groups = [run]  # a group's command may be a group itself (`@hooks.command()` of `@cli.group()`)
        return run

    def _groups_named(self, path: str, ref: Ref, inherited: bool) -> list[str]:
        """The groups a ref names: the function or constant it names; for an instance, its class (and the bases,
        which may add commands to every instance, where `inherited`)."""
        if ref.segments[-1].endswith("()"):
            cls = self._class_named(path, ref, 0)
            return [] if cls is None else [c["id"] for c in self.mro(cls)] if inherited else [cls["id"]]
        target = self._target_of(path, ref)
        return [target] if target is not None else []

    def _every_command(self) -> dict[str, dict[str, str]]:
        if self._commands is None:
            found: dict[str, dict[str, str]] = defaultdict(dict)
            for group, name, command in [*self._decorated(), *self._added()]:
                found[group].setdefault(name, command)
            self._commands = dict(found)
        return self._commands

    def _decorated(self) -> list[tuple[str, str, str]]:
        """(group, name, command) of each function a group's decorator makes a command."""
        rows = self.conn.execute(
            "SELECT id, name, path, decorators FROM symbols WHERE kind IN ('function', 'method')"
            " AND (decorators LIKE '%.command%' OR decorators LIKE '%.group%')"
        )
        out: list[tuple[str, str, str]] = []
        for row in rows:
            decorators = stored_list(row["decorators"])
            names = command_names(row["name"], decorators)
            for found in command_decorators(decorators):
                group = self._walk(row["path"], tuple(found["group"].split(".")), 0)
                out.extend((group["id"], name, row["id"]) for name in names if group is not None)
        return out

    def _added(self) -> list[tuple[str, str, str]]:
        """(group, name, command) of each command function handed to a group's `add_command`."""
        out: list[tuple[str, str, str]] = []
        for call in self.conn.execute("SELECT path, caller, ref, line, lines FROM calls WHERE name = 'add_command'"):
            groups = [
                g
                for ref in parse_refs(call["ref"])
                if len(ref.segments) > 1 and ref.root in ("module", "import")
                for g in self._groups_named(call["path"], replace(ref, segments=ref.segments[:-1]), inherited=False)
            ]
            if not groups:
                continue
            lines = set(call_lines(call))  # one row holds a caller's every `add_command` of one group
            handed = self.conn.execute(
                "SELECT ref, line, lines FROM calls WHERE path = ? AND caller IS ? AND ref LIKE 'value%'",
                (call["path"], call["caller"]),
            )
            for value in (v for v in handed if lines.intersection(call_lines(v))):
                for ref in parse_refs(value["ref"]):
                    command = self.symbol(self._target_of(call["path"], ref))
                    if command is None:
                        continue
                    names = command_names(command["name"], stored_list(command["decorators"]))
                    out.extend((g, name, command["id"]) for g in groups for name in names)
        return out
