"""Start a background process of ours that outlives the command that started it: its own session
(a terminal's Ctrl-C or a git hook's exit does not reach it), no pipe of ours (nothing waits on its
output), its output appended to a log file."""

from __future__ import annotations

import subprocess
from pathlib import Path


def start_detached(
    argv: list[str], log: Path, *, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.Popen[bytes]:
    """Run `argv` (our own interpreter or CLI) detached, writing to `log`."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as sink:
        proc = subprocess.Popen(  # noqa: S603 - our own interpreter and module or CLI, an argv list
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=sink,
            start_new_session=True,
            close_fds=True,
        )
    return proc
