"""The extractor's version: a digest of the code and queries facts come from.

Facts extracted by other code mean something else (an overload set folded, a call's ref), so
whatever keeps facts keys them by it: the git blob cache (indexer/git/gitblobs.py), and the index
of the work tree, which extracts every file again when it changes (indexer/run.py).
"""

from __future__ import annotations

import functools
import hashlib
import re
from importlib import resources
from pathlib import Path

_RELATIVE_IMPORT = re.compile(r"^\s*from (\.+)([\w.]*) import \(?([\w, ]*)", re.MULTILINE)


def extractor_sources() -> list[Path]:
    """extract.py and every module of ours it imports, however indirectly: what facts depend on."""
    return module_sources(Path(__file__).resolve().with_name("extract.py"))


def module_sources(start: Path) -> list[Path]:
    """A module of ours and every module of ours it imports, however indirectly (by relative imports)."""
    package = Path(__file__).resolve().parents[2]
    found: set[Path] = set()
    todo = [start.resolve()]
    while todo:
        path = todo.pop()
        if path in found or not path.is_file():
            continue
        found.add(path)
        for dots, module, names in _RELATIVE_IMPORT.findall(path.read_text("utf-8")):
            base = path.parent
            for _ in range(len(dots) - 1):
                base = base.parent
            if module:
                todo.append(base.joinpath(*module.split(".")).with_suffix(".py"))
            else:  # `from . import fallback`
                todo += [base / f"{name.strip()}.py" for name in names.split(",") if name.strip()]
    return sorted(found, key=lambda p: p.relative_to(package).as_posix())


@functools.cache
def extractor_version() -> str:
    """Changes whenever the extractor (any module it imports), the parser or a query changes."""
    import tree_sitter

    h = hashlib.blake2b(digest_size=8)
    for path in extractor_sources():
        h.update(path.read_bytes())
    queries = resources.files("codeannals.data").joinpath("queries")
    for item in sorted(queries.iterdir(), key=lambda p: p.name):
        if item.name.endswith(".scm"):
            h.update(item.read_bytes())
    h.update(getattr(tree_sitter, "__version__", "").encode())
    return h.hexdigest()
