"""Which files' code can call which: no code calls a YAML key or a Markdown heading, whatever their names
(`opts.on(...)` in Ruby is no workflow's `on:`), and a file of a language the index has rules for calls code of its
own language, or of one its compiler or runtime links with (C with C++, JavaScript with TypeScript). A file of
another language (a Vue component, an HTML page's script) may call any code. The guesses by name keep to it."""

from __future__ import annotations

import sqlite3

from .db import snapshot
from .typenames import JAVASCRIPT_FAMILY

# what no code calls: data and documents
_NOT_CALLED = frozenset(
    "yaml json toml xml ini markdown rst css scss less gitignore gitattributes properties csv dockerfile".split()
)
# the languages with rules of their own (data/queries/), which say what a call in their files may name
_RULED = frozenset("python javascript typescript tsx go rust java c cpp ruby".split())
_FAMILIES = {
    **dict.fromkeys(JAVASCRIPT_FAMILY, "javascript"),
    **dict.fromkeys(("c", "cpp", "objc", "cuda"), "c"),
}


def file_languages(conn: sqlite3.Connection) -> dict[str, str | None]:
    """Each indexed file's language, kept until the files change."""
    query = "SELECT path, language FROM files WHERE status = 'indexed'"
    return snapshot(conn, "file languages", "files", lambda: dict(conn.execute(query).fetchall()))


def may_call(conn: sqlite3.Connection, path: str, target_path: str) -> bool:
    """Whether code in `path` may call code in `target_path`, by their languages."""
    languages = file_languages(conn)
    caller, target = languages.get(path), languages.get(target_path)
    if target in _NOT_CALLED:
        return False
    if caller not in _RULED or target not in _RULED:
        return True
    return _FAMILIES.get(caller, caller) == _FAMILIES.get(target, target)
