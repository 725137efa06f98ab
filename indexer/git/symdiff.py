"""Symbol-level diff between two revisions, read from git's object store without a checkout.

Changed files come from `git diff-tree`/`diff-index --raw -M`; both sides of each are parsed
(through the blob cache) and their symbols matched: same id -> modified when the signature or
the body's syntax tree changed (layout and comments never count); left-overs are paired into
renames and moves by body hash, then by token similarity; the rest are added or deleted.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import sqlite3
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...store import log as event_log
from ...store.symbol import Symbol
from ..parsing.parse import may_have_language
from .gitblobs import NO_GRAMMAR, FactsCache
from .gitcmd import EMPTY_TREE, BadRef, GitError, check_ref_text, run_git, verify_commit
from .gitobjects import BlobReader, FileChange, blob_id, parse_raw

WORKTREE = "WORKTREE"  # the files on disk
INDEX = "INDEX"  # what is staged
RENAME_THRESHOLD = 0.75  # token similarity for a rename under a new name
MOVE_THRESHOLD = 0.5  # same name, another place: a move even when the body changed more
MIN_RENAME_TOKENS = 8  # bodies this small (`pass`) match too much to prove a rename alone
PAIR_LIMIT = 250_000  # beyond this many (deleted x added) pairs, only same-name or same-body pairs
SHARED_SPAN = 8  # symbols starting on one line beyond which none of them is paired: a minified bundle's
_TOKEN = re.compile(r"\w+|[^\w\s]")


def worktree_bytes(root: Path, path: str) -> bytes:
    """A work-tree file's bytes, never read through a symlink (in `path` or a directory above it):
    git keeps the link, not the file it points to, which may lie outside the repository."""
    full = root / path
    if os.path.realpath(full) != os.path.join(os.path.realpath(root), os.path.normpath(path)):
        raise OSError(errno.ELOOP, "a symbolic link: git keeps the link, not the file it points to", path)
    return full.read_bytes()


@dataclass(frozen=True)
class Revision:
    label: str  # as the caller sent it
    kind: str  # "commit", "index" or "worktree"
    commit: str | None  # the commit id (for index and worktree: None)

    @property
    def tree(self) -> str:
        return self.commit or EMPTY_TREE


def resolve(root: Path, ref: str, what: str = "revision") -> Revision:
    """A commit (checked with rev-parse --verify), or WORKTREE, or INDEX."""
    check_ref_text(ref, what)
    if ref.upper() == WORKTREE:
        return Revision(ref, "worktree", None)
    if ref.upper() == INDEX:
        return Revision(ref, "index", None)
    return Revision(ref, "commit", verify_commit(root, ref, what))


def changed_files(root: Path, base: Revision, target: Revision, *, include_untracked: bool = False) -> list[FileChange]:
    """What differs between two revisions, renames found by git (-M)."""
    if base.kind != "commit":
        raise BadRef(f"BASE must be a commit, not {base.label!r}: send a branch, tag or commit id")
    common = ("-r", "-z", "--raw", "-M", "--no-textconv", "--no-ext-diff", "--abbrev=40", "--end-of-options")
    if target.kind == "commit":
        out = run_git(root, "diff-tree", *common, base.tree, target.tree)
    elif target.kind == "index":
        out = run_git(root, "diff-index", "--cached", *common, base.tree)
    else:
        out = run_git(root, "diff-index", *common, base.tree)
    changes = parse_raw(out)
    if target.kind == "worktree":
        for change in changes:  # diff-index leaves work-tree files unhashed; read them from disk
            if change.new_path is not None:
                change.new_blob = None
        if include_untracked:
            listed = run_git(root, "ls-files", "-z", "--others", "--exclude-standard")
            changes += [
                FileChange("A", None, p, None, None)
                for p in listed.decode("utf-8", "surrogateescape").split("\0")
                if p and not p.startswith(".annals/")
            ]
    return changes


def signature_key(symbol: Mapping[str, Any]) -> str:
    """The signature and decorators as text tokens: spacing, commas and quote style do not count.

    Only for symbols the extractor hashes from text (definitions without a body); the others
    carry a syntax-tree signature hash that leaves the name out.
    """
    text = " ".join([*symbol.get("decorators", []), symbol.get("signature") or ""])
    tokens = [t for t in _TOKEN.findall(text.replace("'", '"')) if t != ","]
    return "\x00".join(tokens)


def symbol_hash(symbol: Mapping[str, Any]) -> str:
    """One hash of a symbol's syntax: its signature hash, kind and body hash."""
    h = hashlib.blake2b(digest_size=8)
    for part in (symbol.get("signature_hash"), _family(symbol.get("kind") or ""), symbol.get("body_hash")):
        h.update((part or "").encode() + b"\x01")
    return h.hexdigest()


@dataclass
class _Side:
    """The symbols of one side of the diff, with a way back to each file's text."""

    symbols: dict[str, Symbol] = field(default_factory=dict)
    blobs: dict[str, str] = field(default_factory=dict)
    texts: dict[str, bytes] = field(default_factory=dict)
    failed: list[dict[str, str]] = field(default_factory=list)

    def drop(self, path: str | None) -> None:
        for sid in [sid for sid, s in self.symbols.items() if s["path"] == path]:
            del self.symbols[sid]


class SymbolDiffer:
    """Diffs revisions of one repository; reuse it for many diffs (one cat-file, one cache)."""

    def __init__(self, root: Path, conn: sqlite3.Connection) -> None:
        self.root = root
        self.conn = conn
        self.reader = BlobReader(root)
        self.cache = FactsCache(conn)

    def close(self) -> None:
        self.cache.flush()
        self.cache.close()
        self.reader.close()

    def __enter__(self) -> SymbolDiffer:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # --- reading one side -------------------------------------------------------------------

    def _load(self, side: _Side, path: str, blob: str | None) -> None:
        if not may_have_language(path):
            return
        data: bytes | None = None
        if blob is None:  # a work-tree file
            try:
                data = worktree_bytes(self.root, path)
            except OSError as exc:
                side.failed.append({"path": path, "reason": "unreadable", "detail": exc.strerror or str(exc)})
                return
            blob = blob_id(data)
            side.texts[path] = data
        side.blobs[path] = blob
        symbols = self.cache.symbols(path, blob, data, load=lambda: self._text(side, path))
        if symbols == NO_GRAMMAR:  # no extension and no `#!` line we know (LICENSE): a file with no symbols
            return
        if isinstance(symbols, tuple):
            side.failed.append({"path": path, "reason": symbols[0], "detail": symbols[1]})
            return
        for symbol in symbols:
            side.symbols[symbol["id"]] = symbol

    def _text(self, side: _Side, path: str) -> bytes:
        data = side.texts.get(path)
        if data is None:
            data = self.reader.read(side.blobs[path]) or b""
            side.texts[path] = data
        return data

    def _tokens_of(self, side: _Side, ids: list[str]) -> dict[str, Counter[str]]:
        """Each symbol's tokens (`_tokens`), its file's lines split once; none for a symbol whose lines hold more than
        SHARED_SPAN symbols, whose tokens say nothing of it: a bundle of one minified line (a 1.3 MB graph.js of 3,991
        symbols, all on it) split and counted its whole text for each, and weighed each against each (babybuddy's
        history: 11 GB, and no end after 17 minutes)."""
        lines: dict[str, list[bytes]] = {}
        sharing = Counter((side.symbols[sid]["path"], side.symbols[sid]["start_line"]) for sid in ids)
        out = {}
        for sid in ids:
            symbol = side.symbols[sid]
            path, start = symbol["path"], symbol["start_line"]
            if sharing[(path, start)] > SHARED_SPAN:
                continue
            if path not in lines:
                lines[path] = self._text(side, path).split(b"\n")
            out[sid] = _tokens(lines[path][start - 1 : symbol["end_line"]], symbol["name"])
        return out

    # --- the diff -----------------------------------------------------------------------------

    def diff(
        self,
        base: Revision,
        target: Revision,
        *,
        include_untracked: bool = False,
        changes: list[FileChange] | None = None,
    ) -> dict[str, Any]:
        """changed_symbols, deleted_symbols, renamed_symbols and what could not be read."""
        if changes is None:
            changes = changed_files(self.root, base, target, include_untracked=include_untracked)
        old, new = _Side(), _Side()
        for change in changes:
            failures = len(old.failed) + len(new.failed)
            if change.old_path is not None:
                self._load(old, change.old_path, change.old_blob)
            if change.new_path is not None:
                self._load(new, change.new_path, change.new_blob)
            if len(old.failed) + len(new.failed) > failures:
                # One side is unknown: its symbols are neither deleted nor added, just not seen.
                old.drop(change.old_path)
                new.drop(change.new_path)
        changed, deleted_ids, added_ids = [], [], []
        for sid, after in new.symbols.items():
            before = old.symbols.get(sid)
            if before is None:
                added_ids.append(sid)
                continue
            what = _what_changed(before, after)
            if what:
                changed.append(_entry(after, "modified", before, what))
        deleted_ids = [sid for sid in old.symbols if sid not in new.symbols]
        renamed, gone, born = self._pair(old, new, deleted_ids, added_ids)
        changed += [_entry(new.symbols[sid], "added", None, None) for sid in born]
        changed.sort(key=lambda e: (e["path"], e["start_line"], e["id"]))
        deleted = sorted((_gone(old.symbols[sid]) for sid in gone), key=lambda e: (e["path"], e["id"]))
        return {
            "base": base.label,
            "base_commit": base.commit,
            "target": target.label,
            "target_commit": target.commit,
            "files_changed": len(changes),
            "changed_symbols": changed,
            "deleted_symbols": deleted,
            "renamed_symbols": renamed,
            "unparsed_files": old.failed + new.failed,
        }

    def _pair(
        self, old: _Side, new: _Side, deleted: list[str], added: list[str]
    ) -> tuple[list[dict[str, Any]], list[str], list[str]]:
        """Renames and moves among the deleted and added symbols; what is left of each."""
        if not deleted or not added:
            return [], deleted, added
        tokens_old = self._tokens_of(old, deleted)
        tokens_new = self._tokens_of(new, added)
        sizes = {
            **{sid: sum(c.values()) for sid, c in tokens_old.items()},
            **{sid: sum(c.values()) for sid, c in tokens_new.items()},
        }
        everything = len(deleted) * len(added) <= PAIR_LIMIT
        by_name: dict[str, list[str]] = {}
        by_body: dict[str | None, list[str]] = {}  # facts of git blobs: extracted whole, never outlined
        for sid in added:
            s = new.symbols[sid]
            by_name.setdefault(s["name"], []).append(sid)
            by_body.setdefault(s["body_hash"], []).append(sid)
        scored: list[tuple[float, int, str, str]] = []
        for d in (d for d in deleted if d in tokens_old):
            before = old.symbols[d]
            pool = (
                added
                if everything
                else (set(by_name.get(before["name"], [])) | set(by_body.get(before["body_hash"], [])))
            )
            for a in (a for a in pool if a in tokens_new):
                after = new.symbols[a]
                if _family(before["kind"]) != _family(after["kind"]):
                    continue
                same_name = before["name"] == after["name"]
                smaller, larger = sorted((sizes[d], sizes[a]))
                if smaller < MIN_RENAME_TOKENS and not same_name:
                    continue
                threshold = MOVE_THRESHOLD if same_name else RENAME_THRESHOLD
                if before["body_hash"] == after["body_hash"]:
                    similarity = 1.0
                elif 2 * smaller < threshold * (smaller + larger):
                    continue  # even if every token of the smaller one matched, too little alike
                else:
                    similarity = _dice(tokens_old[d], tokens_new[a])
                if similarity < threshold:
                    continue
                scored.append((similarity, int(same_name), d, a))
        scored.sort(key=lambda t: (-t[0], -t[1], t[2], t[3]))
        used_old: set[str] = set()
        used_new: set[str] = set()
        renamed = []
        for similarity, _, d, a in scored:
            if d in used_old or a in used_new:
                continue
            used_old.add(d)
            used_new.add(a)
            before, after = old.symbols[d], new.symbols[a]
            what = _what_changed(before, after, renamed=True)
            renamed.append(
                {
                    "from": d,
                    "to": a,
                    "from_path": before["path"],
                    "to_path": after["path"],
                    "from_qualname": before["qualname"],
                    "to_qualname": after["qualname"],
                    "kind": after["kind"],
                    "similarity": round(similarity, 3),
                    "also_modified": bool(what),
                    "changed": what,
                    "before_hash": symbol_hash(before),
                    "after_hash": symbol_hash(after),
                    "start_line": after["start_line"],
                    "end_line": after["end_line"],
                }
            )
        renamed.sort(key=lambda r: (r["to_path"], r["start_line"], r["to"]))
        return (renamed, [d for d in deleted if d not in used_old], [a for a in added if a not in used_new])


def _family(kind: str) -> str:
    return "function" if kind in ("function", "method") else kind


def _what_changed(before: Symbol, after: Symbol, *, renamed: bool = False) -> str | None:
    """'signature', 'body', 'both' or None; for a rename the new name alone is no change."""
    signature = before.get("signature_hash") != after.get("signature_hash")
    if signature and renamed:  # a text-hashed signature holds the name: compare it without
        signature = _without_name(signature_key(before), before["name"]) != _without_name(
            signature_key(after), after["name"]
        )
    signature = signature or _family(before["kind"]) != _family(after["kind"])
    body = before["body_hash"] != after["body_hash"]
    if signature and body:
        return "both"
    return "signature" if signature else "body" if body else None


def _without_name(key: str, name: str) -> str:
    return "\x00".join("\x01" if t == name else t for t in key.split("\x00"))


def _tokens(lines: list[bytes], name: str) -> Counter[str]:
    """A symbol's lines as a multiset of tokens, without its own name."""
    counts = Counter(_TOKEN.findall(b"\n".join(lines).decode("utf-8", "replace")))
    counts.pop(name, None)
    return counts


def _dice(a: Counter[str], b: Counter[str]) -> float:
    total = a.total() + b.total()
    if not total:
        return 1.0
    return 2 * sum((a & b).values()) / total


def _entry(symbol: Symbol, status: str, before: Symbol | None, what: str | None) -> dict[str, Any]:
    return {
        "id": symbol["id"],
        "qualname": symbol["qualname"],
        "path": symbol["path"],
        "kind": symbol["kind"],
        "status": status,
        "before_hash": symbol_hash(before) if before else None,
        "after_hash": symbol_hash(symbol),
        "changed": what,
        "signature": symbol.get("signature"),
        "start_line": symbol["start_line"],
        "end_line": symbol["end_line"],
    }


def _gone(symbol: Symbol) -> dict[str, Any]:
    return {
        "id": symbol["id"],
        "qualname": symbol["qualname"],
        "path": symbol["path"],
        "kind": symbol["kind"],
        "before_hash": symbol_hash(symbol),
    }


# --- tests and confidence --------------------------------------------------------------------


def tests_affected(root: Path, conn: sqlite3.Connection, result: dict[str, Any], *, source: str) -> list[str]:
    """Tests that import a changed file (up to graph.TEST_IMPORT_DEPTH imports away), call a changed name, or
    changed themselves. Search-ready files that can hold them are completed first (their imports and
    calls are what this reads)."""
    from ...store.lookups import files_calling, indexed_paths
    from ...store.queries import is_test_path, tests_reaching
    from ..complete import module_word, on_demand

    paths: set[str] = set()
    names: set[str] = set()
    for item in result["changed_symbols"] + result["deleted_symbols"]:
        paths.add(item["path"])
        names.add(item["qualname"].rsplit(".", 1)[-1])
    for item in result["renamed_symbols"]:
        paths.update((item["from_path"], item["to_path"]))
        names.update((item["from_qualname"].rsplit(".", 1)[-1], item["to_qualname"].rsplit(".", 1)[-1]))
    tests = {p for p in paths if is_test_path(p)}
    if paths:
        on_demand(root, conn, paths, sorted(names | {module_word(p) for p in paths}), source=source)
    indexed = indexed_paths(conn) if paths else set()
    tests.update(tests_reaching(conn, sorted(paths & indexed)))  # one walk, not one per changed file
    tests.update(p for p in files_calling(conn, names) if is_test_path(p))
    return sorted(tests)


def confidence(result: dict[str, Any], *, index_matches_target: bool) -> tuple[float, list[str]]:
    """How far to trust the answer (0..1), and why it is not 1."""
    score, notes = 1.0, []
    unparsed = result["unparsed_files"]
    if unparsed:
        share = len({u["path"] for u in unparsed}) / max(1, result["files_changed"])
        score -= min(0.5, share)
        notes.append(f"{len(unparsed)} changed files could not be parsed (see unparsed_files)")
    fuzzy = [r for r in result["renamed_symbols"] if r["similarity"] < 1.0]
    if fuzzy:
        score -= min(0.2, 0.02 * len(fuzzy))
        notes.append(f"{len(fuzzy)} renames found by token similarity, not an identical body")
    if not index_matches_target:
        score -= 0.1
        notes.append("tests_affected come from the current index, not from the target revision")
    return round(max(0.0, score), 2), notes


def diff_symbols(
    root: Path,
    conn: sqlite3.Connection,
    base: str,
    target: str = "HEAD",
    *,
    include_untracked: bool = False,
    source: str = "cli",
) -> dict[str, Any]:
    """The whole answer of `annals diff-symbols` / git_diff_symbols."""
    from .gitcmd import head_commit

    base_rev = resolve(root, base, "BASE")
    target_rev = resolve(root, target, "TARGET")
    with SymbolDiffer(root, conn) as differ:
        result = differ.diff(base_rev, target_rev, include_untracked=include_untracked)
    result["tests_affected"] = tests_affected(root, conn, result, source=source)
    indexed_head = event_log.position(conn).commit
    matches = target_rev.kind == "worktree" or (
        target_rev.commit is not None and indexed_head == target_rev.commit and target_rev.commit == head_commit(root)
    )
    result["confidence"], result["confidence_notes"] = confidence(result, index_matches_target=matches)
    return result


__all__ = [
    "INDEX",
    "WORKTREE",
    "BadRef",
    "FileChange",
    "GitError",
    "Revision",
    "SymbolDiffer",
    "changed_files",
    "diff_symbols",
    "resolve",
    "signature_key",
    "symbol_hash",
    "tests_affected",
]
