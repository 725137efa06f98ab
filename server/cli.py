"""The `annals` click group, its `Context` and the output helpers every command uses.

The commands live in server/commands/<family>.py, each adding its commands to `cli`;
server/commands/__init__.py loads them all and is the entry point (`main`). This module imports
none of them. Heavy packages (mcp, chromadb, rich) are imported only where used."""

from __future__ import annotations

import json
import shlex
import sqlite3
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from ..indexer.git.gitcmd import GitRefused
from ..store import DatabaseError, default_db_path, open_store
from ..store.db import explain
from ..store.queries import NotFound


@dataclass
class Context:
    repo: Path
    db_option: str | None

    @property
    def db_path(self) -> Path:
        return default_db_path(self.repo, self.db_option)

    @contextmanager
    def store(self, *, must_exist: bool = True) -> Iterator[sqlite3.Connection]:
        path = self.db_path
        if must_exist and not path.exists():
            raise click.ClickException(f"no index at {path}: run `annals index {self.repo}` first")
        try:
            conn = open_store(path)
        except DatabaseError as exc:
            raise click.ClickException(str(exc)) from exc
        try:
            yield conn
        except sqlite3.Error as exc:
            raise click.ClickException(explain(exc, path)) from exc
        finally:
            conn.close()


def emit(data: Any, as_json: bool, text: Callable[[Any], None]) -> None:
    """One JSON document on stdout for machines, or readable lines for people."""
    if as_json:
        click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))
    else:
        text(data)


@contextmanager
def progress_bar(description: str) -> Iterator[Callable[[int, int], None] | None]:
    """A rich progress bar (done of total) on a terminal; None when piped, so scripts get no noise."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    bar = Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        transient=True,
    )
    bar.start()
    task = bar.add_task(description, total=None)
    try:
        yield lambda done, total: bar.update(task, completed=done, total=total or None)
    finally:
        bar.stop()


def echo_lines(lines: Iterable[str]) -> None:
    for line in lines:
        click.echo(line)


def repo_dir(value: str) -> Path:
    path = Path(value).expanduser()
    if not path.exists():
        raise click.ClickException(f"{value}: no such directory; pass the root of the repository to index")
    if not path.is_dir():
        raise click.ClickException(f"{value} is a file, not a directory; pass the repository's root directory")
    return path.resolve()


json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON document on stdout.")


class AnnalsGroup(click.Group):
    """The root group: what the index cannot answer (an unknown symbol, a skipped file, a database
    that will not open, a repository git refuses) is a one-line error naming it and the fix, in every
    command, never a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (NotFound, DatabaseError, GitRefused) as exc:
            raise click.ClickException(str(exc)) from exc
        except click.NoSuchOption as exc:
            if not any(c.isspace() for c in exc.option_name):
                raise
            # Text, not an option: a task that starts with a flag it is about (`--max-columns-preview truncates ...`)
            command = exc.ctx.command_path if exc.ctx is not None else "annals"
            raise click.UsageError(
                f"{exc.option_name!r} is no option but text starting with '-': send it after '--', as in "
                f"`{command} -- {shlex.quote(exc.option_name)}`",
                exc.ctx,
            ) from exc


@click.group(cls=AnnalsGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("-C", "--repo", default=".", show_default=True, help="The repository's root directory.")
@click.option(
    "--db", "db_option", default=None, envvar="ANNALS_DB", help="The database file (default <repo>/.annals/annals.db)."
)
@click.version_option(package_name="codeannals")
@click.pass_context
def cli(ctx: click.Context, repo: str, db_option: str | None) -> None:
    """An event-sourced knowledge index of a code repository, for people and coding agents."""
    ctx.obj = Context(repo_dir(repo), db_option)


def symbol_line(s: dict[str, Any]) -> str:
    """One symbol on one line, as `annals symbols`, `search` and `similar` print it."""
    return f"{s['path']}:{s['start_line']}  {s['kind']:<9} {s['qualname']}  {s.get('signature') or ''}"
