"""`.annals/config.json`: the project's settings for annals, read in one place.

The hooks read `gate`, `require_goal_id` and `protected_paths`; `annals serve` reads `tools`; the
workflow reads `workflow` (and `protected_paths`). Kept light: the hooks import it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SETTINGS_FILE = ".annals/config.json"


class SettingsError(ValueError):
    """The settings file cannot be read; the message names the file and the fix."""


def read_settings(root: Path) -> dict[str, Any]:
    """The settings object, or {} when there is no file."""
    path = root / SETTINGS_FILE
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise SettingsError(f"{path} is not valid JSON ({exc}); fix it or delete it") from exc
    if not isinstance(data, dict):
        raise SettingsError(f'{path} must hold a JSON object such as {{"gate": "warn"}}; fix it or delete it')
    return data
