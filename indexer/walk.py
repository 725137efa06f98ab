"""Which files make up the tree: git's ignore rules, `.annals/ignore`, never through symlinks."""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from .git.gitcmd import repo_top, run_git

ANNALS_DIR = ".annals"
IGNORE_FILE = f"{ANNALS_DIR}/ignore"
MAX_FILE_BYTES = 2 * 1024 * 1024  # a larger file is recorded as skipped, never read


@dataclass(frozen=True)
class Entry:
    """A path git would consider part of the tree; `skip` says why we will not read it."""

    path: str  # repo-relative, POSIX
    skip: str | None = None
    detail: str = ""
    size: int = 0  # a regular file's, as the walk's one lstat found them: the indexer and freshness need no other
    mtime_ns: int = 0


def in_tree_links(root: Path, paths: Iterable[str]) -> dict[str, str]:
    """Of these paths, the symlinks into the tree, each with the path it points at (a file or a folder): the walk
    reads none of them, but an import naming one means what it points at, as Node and the compilers find it."""
    real_root = root.resolve()
    links = {}
    for rel in paths:
        full = root / rel
        if full.is_symlink():
            real = Path(os.path.realpath(full))
            if real.is_relative_to(real_root) and real != real_root:
                links[rel] = real.relative_to(real_root).as_posix()
    return links


def _ls_files(root: Path, extra: list[str], git_dir: str | None, work_tree: str | None) -> list[str]:
    out = run_git(root, "ls-files", "-z", *extra, git_dir=git_dir, work_tree=work_tree)
    return [p for p in out.decode("utf-8", "surrogateescape").split("\0") if p]


PATHSPEC_LIMIT = 1_000  # beyond this many paths, listing the whole tree is cheaper than argv


def list_paths(root: Path, only: Collection[str] | None = None) -> list[str]:
    """Tracked and untracked-but-not-ignored files under root (or among `only`), as git sees them.

    Outside a git repository, git is pointed at an empty scratch repository with `root` as its
    work tree, so `.gitignore` files are honoured the same way everywhere.
    """
    ignore = root / IGNORE_FILE
    excludes = [f"--exclude-from={ignore}"] if ignore.is_file() else []
    limit = ["--", *(f":(literal){p}" for p in sorted(only))] if only and len(only) <= PATHSPEC_LIMIT else []
    if only is not None and not only:
        return []
    top = repo_top(root)
    if top is not None:
        listed = _ls_files(root, ["--cached", "--others", "--exclude-standard", *excludes, *limit], None, None)
        if excludes:  # exclude files only filter untracked files; drop tracked ones they match too
            dropped = set(_ls_files(root, ["--cached", "--ignored", *excludes, *limit], None, None))
            listed = [p for p in listed if p not in dropped]
    else:
        with tempfile.TemporaryDirectory(prefix="annals-git-") as scratch:
            run_git(root, "init", "-q", "--bare", scratch)
            listed = _ls_files(root, ["--others", "--exclude-standard", *excludes, *limit], scratch, str(root))
    if only is not None:
        wanted = set(only)
        listed = [p for p in listed if p in wanted]
    return sorted({p for p in listed if not p.startswith(f"{ANNALS_DIR}/") and p != ANNALS_DIR})


def walk(root: Path, only: Collection[str] | None = None) -> Iterator[Entry]:
    """Every file of the tree (or of `only`); symlinks and vanished files come back with a skip reason."""
    real_root = root.resolve()
    top = str(root)
    # Plain strings and one lstat a file: this runs over every file of the tree for each index run,
    # status and pre-commit gate, and pathlib objects cost more than the system calls.
    for rel in list_paths(root, only):
        full = os.path.join(top, rel)
        try:
            st = os.lstat(full)
        except FileNotFoundError:
            continue  # listed by the index but gone from the disk: a deletion
        mode = st.st_mode
        if stat.S_ISLNK(mode):
            inside = Path(os.path.realpath(full)).is_relative_to(real_root)
            yield Entry(
                rel,
                "symlink",
                f"points {'inside' if inside else 'outside'} the tree" + ("" if inside else ": not followed"),
            )
            continue
        if not stat.S_ISREG(mode):
            yield Entry(rel, "not a regular file")
            continue
        yield Entry(rel, size=st.st_size, mtime_ns=st.st_mtime_ns)
