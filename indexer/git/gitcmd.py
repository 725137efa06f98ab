"""The one way we run git: an argv list, no shell, and a repository's own config defused.

A repository can name programs in its config (filters, diff and merge drivers, fsmonitor, pager,
hooks, signing programs); none of them may run for us. Fixed keys are overridden on the command
line; driver names are open-ended, so each process reads the config once per repository (again
when a config file changes) and overrides every driver it names through GIT_CONFIG_COUNT, which,
unlike `-c`, has no trouble with `=` or dots in a driver's name.
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

SAFE_CONFIG = (
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.pager=cat",
    "-c",
    "core.askPass=",
    "-c",
    "diff.external=",
    "-c",
    "protocol.ext.allow=never",
    "-c",
    "core.untrackedCache=false",
    # Signing and signature checks run gpg.program (or its ssh/x509 cousins).
    "-c",
    "commit.gpgSign=false",
    "-c",
    "tag.gpgSign=false",
    "-c",
    "log.showSignature=false",
    "-c",
    "merge.verifySignatures=false",
    "-c",
    "gpg.program=",
    "-c",
    "gpg.ssh.program=",
    "-c",
    "gpg.x509.program=",
    "-c",
    "gpg.ssh.defaultKeyCommand=",
    # Submodules carry configs of their own that we never read; and no background gc in a hook.
    "-c",
    "submodule.recurse=false",
    "-c",
    "diff.ignoreSubmodules=all",
    "-c",
    "status.submoduleSummary=false",
    "-c",
    "gc.auto=0",
    "-c",
    "maintenance.auto=false",
)

# The text merge git would do itself, for a merge driver we must not run.
BUILTIN_MERGE = "git merge-file --marker-size=%L -L ours -L base -L theirs %A %O %B"

# Config keys that name a program, per driver; the value we put in its place. An empty filter
# command means "no filter" to git; empty diff programs make git fail rather than run anything.
_DRIVER_KEY = re.compile(r"^(filter|diff|merge|trailer)\.(.+)\.([^.]+)$", re.DOTALL)
_OVERRIDES: dict[str, dict[str, str]] = {
    "filter": {"clean": "", "smudge": "", "process": "", "required": "false"},
    "diff": {"textconv": "", "command": ""},
    "merge": {"driver": BUILTIN_MERGE},
    "trailer": {"cmd": "", "command": ""},
}


class GitError(Exception):
    """git refused or failed; the message carries its stderr."""


class GitRefused(GitError):
    """git will not work in this repository until its owner says so; the message says how."""


class BadRef(ValueError):
    """A revision argument we will not pass to git; the message says what to send."""


@dataclass
class _Defused:
    stamp: tuple[tuple[str, int, int], ...]
    keys: tuple[tuple[str, str], ...]
    settings: tuple[tuple[str, str], ...]  # every (key, value) not from the command line


_defused: dict[tuple[str, str | None], _Defused] = {}
_defused_lock = threading.Lock()


def _stamp(files: list[str]) -> tuple[tuple[str, int, int], ...]:
    out = []
    for name in files:
        try:
            st = os.stat(name)
            out.append((name, st.st_mtime_ns, st.st_size))
        except OSError:
            out.append((name, 0, -1))
    return tuple(out)


def _base_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        {
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_PAGER": "cat",
            "PAGER": "cat",
            "LC_ALL": "C",
            "GIT_OPTIONAL_LOCKS": "0",
            "GIT_EDITOR": ":",
            "GIT_SEQUENCE_EDITOR": ":",
        }
    )
    for name in ("GIT_EXTERNAL_DIFF", "GIT_ASKPASS", "SSH_ASKPASS"):
        env.pop(name, None)
    return env


def _read_config(cwd: Path | str, git_dir: str | None) -> _Defused:
    argv = ["git", "--no-pager", *SAFE_CONFIG]
    if git_dir is not None:
        argv.append(f"--git-dir={git_dir}")
    argv += ["config", "--list", "-z", "--show-origin", "--show-scope"]
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, env=_base_env(), check=False, timeout=60)
    fields = proc.stdout.decode("utf-8", "surrogateescape").split("\0")
    files: list[str] = []
    keys: dict[str, str] = {}
    settings: list[tuple[str, str]] = []
    for i in range(0, len(fields) - 2, 3):
        scope, origin, entry = fields[i], fields[i + 1], fields[i + 2]
        if scope == "command":
            continue
        if origin.startswith("file:"):
            name = os.path.join(str(cwd), origin[5:])
            if name not in files:
                files.append(name)
        key, _, value = entry.partition("\n")
        settings.append((key, value))
        match = _DRIVER_KEY.match(key)
        if match is None:
            continue
        section, driver = match.group(1).lower(), match.group(2)
        for variable, safe in _OVERRIDES[section].items():
            keys[f"{section}.{driver}.{variable}"] = safe
    return _Defused(_stamp(files), tuple(keys.items()), tuple(settings))


def _config(cwd: Path | str, git_dir: str | None) -> _Defused:
    key = (os.path.realpath(cwd), git_dir)
    with _defused_lock:
        known = _defused.get(key)
        if known is not None and _stamp([f for f, _, _ in known.stamp]) == known.stamp:
            return known
    fresh = _read_config(cwd, git_dir)
    with _defused_lock:
        _defused[key] = fresh
    return fresh


def git_env(cwd: Path | str = ".", git_dir: str | None = None, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment for a git child: no prompts, no pager, no editor, drivers defused."""
    env = _base_env()
    overrides = _config(cwd, git_dir).keys
    if overrides:
        start = int(env.get("GIT_CONFIG_COUNT", "0") or 0)
        for n, (key, value) in enumerate(overrides, start):
            env[f"GIT_CONFIG_KEY_{n}"] = key
            env[f"GIT_CONFIG_VALUE_{n}"] = value
        env["GIT_CONFIG_COUNT"] = str(start + len(overrides))
    if extra:
        env.update(extra)
    return env


def config_values(cwd: Path | str, key: str) -> list[str]:
    """A key's values from the config files (not from our own overrides), in git's order."""
    wanted = key.lower()
    return [v for k, v in _config(cwd, None).settings if k.lower() == wanted]


def _argv(args: tuple[str, ...], git_dir: str | None, work_tree: str | None) -> list[str]:
    argv = ["git", "--no-pager", *SAFE_CONFIG]
    if git_dir is not None:
        argv.append(f"--git-dir={git_dir}")
    if work_tree is not None:
        argv.append(f"--work-tree={work_tree}")
    argv.extend(args)
    return argv


def run_git_full(
    cwd: Path | str,
    *args: str,
    input: bytes | None = None,
    git_dir: str | None = None,
    work_tree: str | None = None,
    timeout: float = 120,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run git with our safe config; the whole result, whatever the exit code."""
    return subprocess.run(
        _argv(args, git_dir, work_tree),
        cwd=cwd,
        input=input,
        capture_output=True,
        env=git_env(cwd, git_dir, env),
        timeout=timeout,
        check=False,
    )


def run_git(
    cwd: Path | str,
    *args: str,
    check: bool = True,
    input: bytes | None = None,
    git_dir: str | None = None,
    work_tree: str | None = None,
    timeout: float = 120,
    env: dict[str, str] | None = None,
) -> bytes:
    """Run git with our safe config; return stdout bytes. Raises GitError when check fails."""
    proc = run_git_full(cwd, *args, input=input, git_dir=git_dir, work_tree=work_tree, timeout=timeout, env=env)
    if check and proc.returncode != 0:
        raise GitError(f"git {' '.join(args[:3])} failed: {proc.stderr.decode('utf-8', 'replace').strip()}")
    return proc.stdout


def start_git(cwd: Path | str, *args: str) -> subprocess.Popen[bytes]:
    """A long-running git child with pipes on stdin and stdout (for `cat-file --batch`)."""
    return subprocess.Popen(
        _argv(args, None, None),
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=git_env(cwd),
    )


_DUBIOUS = re.compile(rb"dubious ownership in repository at '([^']*)'")


def repo_top(path: Path) -> Path | None:
    """The work tree's top directory when `path` is inside a git work tree, else None.

    Raises GitRefused for a repository another user owns (git's safe.directory check, usual in
    containers and on mounted volumes). Taking it for no repository would index without history,
    diffs or hooks and say nothing; overriding the check is the owner's call, not ours.
    """
    proc = run_git_full(path, "rev-parse", "--show-toplevel")
    refused = _DUBIOUS.search(proc.stderr)
    if refused:
        where = refused.group(1).decode("utf-8", "replace")
        raise GitRefused(
            f"git refuses the repository at {where}: another user owns it; if you trust it, run "
            f"`git config --global --add safe.directory {where}` and try again"
        )
    out = proc.stdout.decode().strip() if proc.returncode == 0 else ""
    return Path(out) if out else None


def head_commit(root: Path) -> str | None:
    out = run_git(root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}", check=False).decode().strip()
    return out or None


EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
_HEX = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")


def check_ref_text(ref: str, what: str = "revision") -> str:
    """Refuse what could be read as an option or break a line protocol, before git sees it."""
    if not ref or ref.startswith("-") or any(c in ref for c in "\0\n\r"):
        raise BadRef(
            f"{what} {ref!r} is not a revision: send a branch, tag or commit id "
            "(it may not be empty, start with '-', or hold control characters)"
        )
    return ref


def verify_commit(root: Path | str, ref: str, what: str = "revision") -> str:
    """The full commit id `ref` names, checked with `git rev-parse --verify`; BadRef otherwise."""
    check_ref_text(ref, what)
    out = (
        run_git(root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}", check=False)
        .decode()
        .strip()
    )
    if not _HEX.match(out):
        raise BadRef(
            f"{what} {ref!r} names no commit in {root}: send a branch, tag or commit id "
            "(`git log --oneline` lists them)"
        )
    return out


def is_object_id(text: str) -> bool:
    return bool(_HEX.match(text))


def current_branch(root: Path | str) -> str | None:
    """The checked-out branch's short name, None on a detached HEAD."""
    out = run_git(root, "symbolic-ref", "--quiet", "--short", "HEAD", check=False).decode().strip()
    return out or None


def git_path(root: Path | str, name: str) -> Path:
    """Where git keeps `name` (index, MERGE_HEAD, ...) for this work tree."""
    out = run_git(root, "rev-parse", "--git-path", name).decode().strip()
    return Path(out) if os.path.isabs(out) else Path(root) / out
