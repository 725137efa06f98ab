"""The one way we run git: an argv list, no shell, and a repository's own config defused."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

# A hostile repository can name programs in its config; none of them may run for us.
SAFE_CONFIG = (
    "-c", "core.fsmonitor=false",
    "-c", "core.hooksPath=/dev/null",
    "-c", "core.pager=cat",
    "-c", "core.askPass=",
    "-c", "diff.external=",
    "-c", "protocol.ext.allow=never",
    "-c", "core.untrackedCache=false",
)


class GitError(Exception):
    """git refused or failed; the message carries its stderr."""


def git_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update({"GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat", "PAGER": "cat", "LC_ALL": "C",
                "GIT_OPTIONAL_LOCKS": "0"})
    env.pop("GIT_EXTERNAL_DIFF", None)
    return env


def run_git(cwd: Path | str, *args: str, check: bool = True, input: bytes | None = None,
            git_dir: str | None = None, work_tree: str | None = None, timeout: float = 120) -> bytes:
    """Run git with our safe config; return stdout bytes. Raises GitError when check fails."""
    argv = ["git", "--no-pager", *SAFE_CONFIG]
    if git_dir is not None:
        argv.append(f"--git-dir={git_dir}")
    if work_tree is not None:
        argv.append(f"--work-tree={work_tree}")
    argv.extend(args)
    proc = subprocess.run(argv, cwd=cwd, input=input, capture_output=True, env=git_env(),
                          timeout=timeout, check=False)
    if check and proc.returncode != 0:
        raise GitError(f"git {' '.join(args[:3])} failed: {proc.stderr.decode('utf-8', 'replace').strip()}")
    return proc.stdout


def repo_top(path: Path) -> Path | None:
    """The work tree's top directory when `path` is inside a git work tree, else None."""
    out = run_git(path, "rev-parse", "--show-toplevel", check=False).decode().strip()
    return Path(out) if out else None


def head_commit(root: Path) -> str | None:
    out = run_git(root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}", check=False).decode().strip()
    return out or None
