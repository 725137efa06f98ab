"""Every `annals` command, and the entry point (pyproject's `annals = ...:main`).

server/cli.py holds the click group, its `Context` and the output helpers; each family here
(server/commands/<family>.py) adds its commands to that group when imported. Importing this package
loads every family, so `cli` below is the whole command line. A new family is a module here and a
name in the import below; nothing heavy at the top of any of them (`annals --help` stays fast).
"""

from __future__ import annotations

from ..cli import cli
from . import code, git, hooks, index, log, pack, serve, similarity, watch, workflow

FAMILIES = (code, index, log, similarity, git, hooks, watch, serve, workflow, pack)
__all__ = ["FAMILIES", "cli", "main"]


def main() -> None:
    cli(prog_name="annals")
