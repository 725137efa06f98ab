"""The MCP tool families, and the one registry that names them.

A family is a module with `register(server, app) -> None` that adds its tools to the server. Its
tools are functions inside `register` because each one reads the app it serves (its database and
root) and some the server (the watcher, the vectors); what they share without either lives at
module level (tools/_answer.py, tools/similarity.py's `search_symbols`, ...).

FAMILIES is the registry: each family's name, in the order tools/list shows them, and the module
that registers it. A family is imported only when served (`annals serve --tools code` never loads
the workflow engine), so the registry names modules instead of holding them. A new family is a
module and one entry here (or, from outside, `FAMILIES["name"] = "package.module"`).
"""

from __future__ import annotations

import importlib
from typing import Any

FAMILIES: dict[str, str] = {
    name: f"{__name__}.{name}" for name in ("code", "memory", "learning", "git", "similarity", "workflow")
}


def register(server: Any, app: Any, names: tuple[str, ...]) -> None:
    """Add the tools of each family in `names` (FAMILIES' keys, as mcp.toolsets checked them) to the server."""
    for name in names:
        importlib.import_module(FAMILIES[name]).register(server, app)
