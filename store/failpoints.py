"""Named crash points for the fault tests: `ANNALS_CRASH_AT=name[:N]` SIGKILLs this process the
Nth time (default first) execution passes `crash_point(name)`. Unset, it costs one comparison."""

from __future__ import annotations

import os
import signal

_SPEC = os.environ.get("ANNALS_CRASH_AT", "")
_NAME, _, _NTH = _SPEC.partition(":")
_remaining = int(_NTH or 1)


def crash_point(name: str) -> None:
    global _remaining
    if not _SPEC or name != _NAME:
        return
    _remaining -= 1
    if _remaining <= 0:
        os.kill(os.getpid(), signal.SIGKILL)
