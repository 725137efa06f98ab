"""The hooks' log: where a hook or a background hook job that failed leaves its traceback.

Its own module because both the hooks (run.py) and the detached job runner (jobs.py) write it,
and run.py starts jobs: neither should import the other for it.
"""

from __future__ import annotations

import sys
import traceback
from pathlib import Path

LOG_FILE = ".annals/logs/hooks.log"


def log_failure(root: Path, name: str) -> None:
    """The traceback being handled, appended to the hooks' log under `--- hook NAME`."""
    log = root / LOG_FILE
    try:
        log.parent.mkdir(parents=True, exist_ok=True)
        with log.open("a", encoding="utf-8") as fh:
            fh.write(f"--- hook {name}\n{traceback.format_exc()}\n")
    except OSError:
        traceback.print_exc(file=sys.stderr)
