"""`annals hooks install|uninstall|status|run NAME`: the git hooks that keep the log in step with commits."""

from __future__ import annotations

import sys
from typing import Any

import click

from ..cli import Context, cli, echo_lines, emit, json_option
from .git import git_root


@cli.group()
def hooks() -> None:
    """Git hooks: index staged changes, record commits, optional gate and goal-id policy."""


def _hook_errors(call: Any) -> Any:
    from ...hooks.install import HookError

    try:
        return call()
    except HookError as exc:
        raise click.ClickException(str(exc)) from exc


@hooks.command()
@click.argument("names", nargs=-1)
@json_option
@click.pass_obj
def install(obj: Context, names: tuple[str, ...], as_json: bool) -> None:
    """Install the shims (all hooks, or NAMES), chaining any hook already there."""
    from ...hooks.install import HOOKS
    from ...hooks.install import install as run

    root = git_root(obj)
    data = _hook_errors(lambda: run(root, names or HOOKS))
    emit(
        data,
        as_json,
        lambda d: echo_lines(
            f"{name:<13} {h['state']}" + (" (runs the original first)" if h["chained"] else "")
            for name, h in d["hooks"].items()
        ),
    )


@hooks.command()
@json_option
@click.pass_obj
def uninstall(obj: Context, as_json: bool) -> None:
    """Remove the shims and put chained hooks back byte for byte."""
    from ...hooks.install import uninstall as run

    root = git_root(obj)
    data = _hook_errors(lambda: run(root))
    emit(data, as_json, lambda d: echo_lines(f"{name:<13} {h['state']}" for name, h in d["hooks"].items()))


@hooks.command()
@json_option
@click.pass_obj
def status(obj: Context, as_json: bool) -> None:
    """Which hooks are installed, chained, and whether their interpreter still exists."""
    from ...hooks.install import status as run

    data = run(git_root(obj))

    def text(d: dict[str, Any]) -> None:
        click.echo(f"hooks dir {d['hooks_dir']}")
        for name, h in d["hooks"].items():
            state = "installed" if h["installed"] else "present, not ours" if h["present"] else "absent"
            extra = " chained" if h["chained"] else ""
            gone = h["installed"] and not h["python_exists"]
            missing = " (interpreter gone: run `annals hooks install`)" if gone else ""
            click.echo(f"  {name:<13} {state}{extra}{missing}")
        if d["jobs_pending"]:
            click.echo(f"{len(d['jobs_pending'])} hook jobs pending (`annals hooks wait` runs them)")
        if d["jobs_failed"]:
            click.echo(
                f"{len(d['jobs_failed'])} hook jobs failed: {', '.join(d['jobs_failed'])}; the reasons are "
                "in .annals/logs/hooks.log (fix, then rename a job back to *.json to run it again)"
            )

    emit(data, as_json, text)


@hooks.command()
@json_option
@click.pass_obj
def wait(obj: Context, as_json: bool) -> None:
    """Wait for the hooks' background jobs (big commits are indexed after git returns), running any left."""
    from ...hooks.jobs import failed
    from ...hooks.jobs import wait as run

    root = git_root(obj)
    failures = run(root)
    emit(
        {"failed": failures, "jobs_failed": [p.name for p in failed(root)]},
        as_json,
        lambda d: click.echo(
            "hook jobs done" if not d["failed"] else f"{d['failed']} hook jobs failed; see .annals/logs/hooks.log"
        ),
    )
    if failures:
        sys.exit(1)


@hooks.command(context_settings={"ignore_unknown_options": True})
@click.argument("name")
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@click.pass_obj
def run(obj: Context, name: str, args: tuple[str, ...]) -> None:
    """Run hook NAME as git would (the shims call this)."""
    from ...hooks.run import run_hook

    sys.exit(run_hook(name, list(args), cwd=obj.repo))
