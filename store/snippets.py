"""The source text of indexed symbols, and the text the embedding model reads for each (the read side:
the context pack, get_symbol, similar code, and the vectors' catch-up all read code through here).

Source comes from the file on disk, and only when the file is byte for byte what was indexed (its
content hash matches), so a span never points into a different version of the file.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from .projections.files import indexed_content
from .projections.fulltext import identifier_words
from .symbol import SymbolRow

BODY_LINES = 40  # the model reads embed.MAX_TOKENS tokens at most: a symbol's head says what it does
TEXT_CHARS = 1_500


def symbol_texts(root: Path, conn: sqlite3.Connection, rows: Iterable[sqlite3.Row]) -> list[str]:
    """The text embedded for each symbol: its name in words, qualified name, path, then its source
    (signature, docstring, the head of its body) read from the file as indexed. A file edited since
    it was indexed gives only the name, signature and docstring until the file is indexed again."""
    rows = list(rows)
    lines_of = indexed_lines(root, conn, {r["path"] for r in rows})
    return [symbol_text(r, lines_of.get(r["path"])) for r in rows]


def symbol_text(row: sqlite3.Row | dict[str, Any], lines: Sequence[str] | None) -> str:
    qualname = row["qualname"]
    header = f"{' '.join(identifier_words(qualname))} ({row['kind']} {qualname} in {row['path']})"
    source = ""
    if lines is not None and row["start_line"]:
        end = min(row["end_line"] or row["start_line"], row["start_line"] + BODY_LINES - 1)
        source = "\n".join(line.strip() for line in lines[row["start_line"] - 1 : end])
    parts = [header]
    doc = row["doc"] or ""
    if not source:
        parts.append(row["signature"] or "")
    if doc and doc[:60] not in source:  # a leading comment sits above the span; a docstring inside it
        parts.append(doc)
    parts.append(source)
    return "\n".join(p for p in parts if p)[:TEXT_CHARS]


def indexed_lines(root: Path, conn: sqlite3.Connection, paths: set[str]) -> dict[str, list[str]]:
    """Each file's lines, only where the file on disk is exactly the content that was indexed."""
    if not paths:
        return {}
    marks = ",".join("?" * len(paths))
    hashes = {
        r[0]: r[1] for r in conn.execute(f"SELECT path, content_hash FROM files WHERE path IN ({marks})", list(paths))
    }
    out: dict[str, list[str]] = {}
    for path, expected in hashes.items():
        if (data := indexed_content(root / path, expected)) is not None:
            out[path] = data.decode("utf-8", "replace").splitlines()
    return out


def symbol_source(root: Path, conn: sqlite3.Connection, symbol: SymbolRow) -> str:
    """A symbol's source as indexed; its signature and docstring when the file changed since."""
    lines = indexed_lines(root, conn, {symbol["path"]}).get(symbol["path"])
    if lines is None or not symbol["start_line"]:
        return "\n".join(p for p in (symbol["signature"], symbol["doc"]) if p)
    return "\n".join(lines[symbol["start_line"] - 1 : symbol["end_line"]])
