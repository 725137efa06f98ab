"""Who watches an index: the files its watcher keeps (lock, state, pid, log) and what it says.

Light on purpose: `annals status` and every MCP answer read this, so it imports no watchdog.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...store.lock import WriterLock


@dataclass(frozen=True)
class WatchFiles:
    """Where a watcher of one database keeps its lock, state, pid file and log."""

    db_path: Path

    def _named(self, suffix: str) -> Path:
        stem = "watch" if self.db_path.name == "annals.db" else f"{self.db_path.name}.watch"
        return self.db_path.parent / "logs" / f"{stem}.{suffix}"

    @property
    def lock(self) -> Path:
        """`.annals/writer.lock` beside the default database; `<name>.writer.lock` beside any other."""
        if self.db_path.name == "annals.db":
            return self.db_path.parent / "writer.lock"
        return self.db_path.with_name(self.db_path.name + ".writer.lock")

    @property
    def state(self) -> Path:
        return self._named("json")

    @property
    def pid(self) -> Path:
        return self._named("pid")

    @property
    def log(self) -> Path:
        return self._named("log")


def watcher_state(db_path: Path) -> dict[str, Any] | None:
    """What the live watcher of this database says about itself, or None when none runs."""
    files = WatchFiles(db_path)
    owner = WriterLock(files.lock).owner()
    if owner is None:
        return None
    try:
        state = json.loads(files.state.read_text("utf-8"))
    except (OSError, ValueError):
        state = {}
    if state.get("pid") != owner:
        return {"pid": owner, "ready": None, "mode": None, "kind": None}  # between start and first report
    return state
