"""`annals watch` (foreground), `annals watch --daemon`, `annals watch status`, `annals watch stop`.

Loaded with every command: watchdog and the indexer are imported only when a watcher starts.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

import click

from ...indexer.detached import start_detached
from ..cli import Context, cli, emit, json_option

DAEMON_READY_SECONDS = 120.0  # `--daemon` waits this long for the start-up reconcile, then leaves it running
STOP_SECONDS = 15.0  # `watch stop` waits this long for a clean exit before SIGKILL
LOG_TAIL_LINES = 20
STOPPABLE_KINDS = ("daemon", "foreground")  # a server's watcher is stopped with its server


def _files(obj: Context) -> Any:
    from ...indexer.watching.watchstate import WatchFiles

    return WatchFiles(obj.db_path)


def _daemon_pid(pid_file: Path) -> int | None:
    """The pid the daemon's pid file names, when that process is alive."""
    from ...store.lock import pid_alive

    try:
        text = pid_file.read_text("ascii").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() and pid_alive(int(text)) else None


@cli.group(invoke_without_command=True)
@click.option(
    "--daemon", is_flag=True, help="Detach and keep watching in the background (pid file and log in .annals/logs/)."
)
@click.option("--polling", is_flag=True, help="Poll the tree instead of using inotify (network file systems).")
@click.option("--as-daemon", is_flag=True, hidden=True)
@json_option
@click.pass_context
def watch(ctx: click.Context, daemon: bool, polling: bool, as_daemon: bool, as_json: bool) -> None:
    """Keep the index following the working tree until Ctrl-C (--daemon detaches; see also status, stop)."""
    if ctx.invoked_subcommand is not None:
        return
    obj: Context = ctx.obj
    with obj.store(must_exist=False):
        pass  # a database that will not open is this one line, not a traceback from each of our threads
    if daemon:
        data = _start_daemon(obj, polling)
        emit(data, as_json, _daemon_text)
        return
    data = _run_here(obj, polling, "daemon" if as_daemon else "foreground")
    emit(data, as_json, lambda d: click.echo(f"stopped watching {d['root']}", err=True))


def _run_here(obj: Context, polling: bool, kind: str) -> dict[str, Any]:
    """Watch in this process until SIGINT or SIGTERM; return the watcher's last status."""
    from ...indexer.run import ensure_git_excludes_annals
    from ...indexer.watching.watch import Watcher
    from ...store.lock import LockHeld

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(f"%(asctime)s watch[{os.getpid()}] %(levelname)s %(message)s"))
    package_log = logging.getLogger("codeannals")
    package_log.addHandler(handler)
    package_log.setLevel(logging.INFO)
    ensure_git_excludes_annals(obj.repo)
    files = _files(obj)
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)}
    keeper = _vector_keeper(obj)
    watcher = Watcher(
        obj.repo,
        obj.db_path,
        polling=polling or None,
        standby=False,
        kind=kind,
        on_batch=lambda batch: keeper.poke() if keeper is not None and batch["events"] else None,
    )
    try:
        try:
            watcher.start()
        except LockHeld as exc:
            raise click.ClickException(str(exc)) from exc
        if keeper is not None:
            keeper.start()
        if kind == "daemon":
            files.pid.parent.mkdir(parents=True, exist_ok=True)
            files.pid.write_text(f"{os.getpid()}\n", "ascii")
        while not stop.wait(0.5):
            state = watcher.status()
            if not state["running"]:
                raise click.ClickException(f"the watcher of {obj.repo} stopped: {state['error']}")
        return watcher.status()
    finally:
        watcher.stop()
        if keeper is not None:
            keeper.stop()
        if kind == "daemon" and _daemon_pid(files.pid) in (os.getpid(), None):
            files.pid.unlink(missing_ok=True)
        for sig, old in previous.items():
            signal.signal(sig, old)
        package_log.removeHandler(handler)


def _vector_keeper(obj: Context) -> Any:
    """The vectors follow the index while we watch (the keeper takes their lock when it is free),
    unless ANNALS_VECTORS=off."""
    from .similarity import VECTORS_ENV

    if os.environ.get(VECTORS_ENV) == "off":
        return None
    from ...indexer.vectors.owner import VectorKeeper

    return VectorKeeper(obj.repo, obj.db_path)


def _start_daemon(obj: Context, polling: bool) -> dict[str, Any]:
    from ...indexer.watching.watchstate import watcher_state

    files = _files(obj)
    running = watcher_state(obj.db_path)
    if running is not None:
        raise click.ClickException(
            f"a watcher already keeps {obj.repo} fresh (pid {running['pid']}, "
            f"{running.get('kind') or 'starting'}): `annals watch stop` stops a daemon"
        )
    files.log.parent.mkdir(parents=True, exist_ok=True)
    # The entry point itself (pyproject's `annals`), not `-m`: run as __main__, a module would be a
    # second copy that the command families (this one included) never register with.
    argv = [
        sys.executable,
        "-c",
        "from codeannals.server.commands import main; main()",
        "-C",
        str(obj.repo),
        "--db",
        str(obj.db_path),
        "watch",
        "--as-daemon",
        *(["--polling"] if polling else []),
    ]
    proc = start_detached(argv, files.log)
    deadline = time.monotonic() + DAEMON_READY_SECONDS
    while True:
        state = watcher_state(obj.db_path)
        if state is not None and state["pid"] == proc.pid and state.get("ready"):
            break
        if proc.poll() is not None:
            raise click.ClickException(
                f"the watcher daemon exited with status {proc.returncode} before it was "
                f"ready; the end of its log ({files.log}):\n{_tail(files.log)}"
            )
        if time.monotonic() > deadline:
            return {"pid": proc.pid, "ready": False, "log": str(files.log), "pid_file": str(files.pid)}
        time.sleep(0.05)
    return {**state, "log": str(files.log), "pid_file": str(files.pid)}


def _daemon_text(d: dict[str, Any]) -> None:
    if d.get("ready"):
        click.echo(f"watching in the background: pid {d['pid']} ({d['mode']}), log {d['log']}")
    else:
        click.echo(
            f"watcher started (pid {d['pid']}), still reconciling the index with the tree; "
            f"`annals watch status` says when it is ready; log {d['log']}"
        )


def _tail(path: Path) -> str:
    try:
        return "\n".join(path.read_text("utf-8", "replace").splitlines()[-LOG_TAIL_LINES:])
    except OSError as exc:
        return f"(cannot read it: {exc.strerror})"


@watch.command(name="status")
@json_option
@click.pass_obj
def watch_status(obj: Context, as_json: bool) -> None:
    """Whether a watcher runs (pid, kind, ready, inotify or polling) and how fresh the index is."""
    from ...indexer.freshness import freshness
    from ...indexer.watching.watchstate import watcher_state

    files = _files(obj)
    state = watcher_state(obj.db_path)
    data: dict[str, Any] = {
        "running": state is not None,
        "watcher": state,
        "lock": str(files.lock),
        "log": str(files.log) if files.log.exists() else None,
    }
    if obj.db_path.exists():
        with obj.store() as conn:
            data.update({k: v for k, v in freshness(obj.repo, conn).items() if k != "watcher"})

    def text(d: dict[str, Any]) -> None:
        w = d["watcher"]
        if w is None:
            click.echo("no watcher runs (`annals watch` or `annals watch --daemon` starts one)")
        else:
            ready = {True: "ready", False: "reconciling", None: "starting"}[w.get("ready")]
            click.echo(f"watcher    pid {w['pid']}, {w.get('kind') or '?'}, {ready}, {w.get('mode') or '-'}")
        if "pending_files" in d:
            click.echo(f"pending    {d['pending_files']} files differ from the index")
            click.echo(f"head       indexed {(d['indexed_head'] or '-')[:12]}, current {(d['head'] or '-')[:12]}")

    emit(data, as_json, text)


@watch.command(name="stop")
@json_option
@click.pass_obj
def watch_stop(obj: Context, as_json: bool) -> None:
    """Stop the watcher daemon (or a foreground `annals watch`) and wait for it to exit."""
    from ...indexer.watching.watchstate import watcher_state
    from ...store.lock import WriterLock

    files = _files(obj)
    state = watcher_state(obj.db_path)
    if state is None:
        files.pid.unlink(missing_ok=True)  # whatever it names is gone
        emit({"stopped": None, "running": False}, as_json, lambda d: click.echo("no watcher runs"))
        return
    pid = state["pid"]
    if state.get("kind") not in STOPPABLE_KINDS:
        raise click.ClickException(
            f"the watcher (pid {pid}) belongs to {state.get('kind') or 'a starting process'}"
            ": stop that process, or start `annals serve --no-watch`"
        )
    os.kill(pid, signal.SIGTERM)
    lock = WriterLock(files.lock)
    deadline = time.monotonic() + STOP_SECONDS
    forced = False
    while lock.owner() == pid:
        if time.monotonic() > deadline and not forced:
            os.kill(pid, signal.SIGKILL)  # the kernel frees its lock; the log is safe (transactions)
            forced = True
        time.sleep(0.05)
    files.pid.unlink(missing_ok=True)
    emit(
        {"stopped": pid, "forced": forced, "running": False},
        as_json,
        lambda d: click.echo(f"stopped the watcher (pid {d['stopped']})" + (" with SIGKILL" if forced else "")),
    )
