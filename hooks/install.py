"""Install, remove and inspect the git hook shims: small sh scripts that call `annals hooks run NAME`.

The hooks directory is the one git uses (core.hooksPath when set, husky's `.husky/_` included).
A hook already there is kept beside the shim as `NAME.annals-orig` and run first; a shell
script is sourced with `$0` still naming the hook, because husky and pre-commit find their
files from `$0`. Uninstall moves the original back, so it is restored byte for byte.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from ..indexer.git.gitcmd import config_values, run_git

HOOKS = ("pre-commit", "commit-msg", "post-commit", "post-merge", "post-rewrite")
MARKER = "# codeannals hook shim"
ORIGINAL_SUFFIX = ".annals-orig"
_STDIN_HOOKS = frozenset({"post-rewrite"})  # hooks git feeds on stdin: the original and we both read it
_BLOCKING_HOOKS = frozenset({"pre-commit", "commit-msg"})  # an original's failure stops the commit


class HookError(Exception):
    """A hook could not be installed or removed; the message names the file and the fix."""


def hooks_dir(root: Path) -> Path:
    """Where git looks for hooks: core.hooksPath (relative to the work tree) or the common git dir."""
    configured = config_values(root, "core.hooksPath")
    if configured and configured[-1]:
        path = Path(os.path.expanduser(configured[-1]))
        return path if path.is_absolute() else root / path
    common = run_git(root, "rev-parse", "--git-common-dir").decode().strip()
    base = Path(common) if os.path.isabs(common) else root / common
    return base / "hooks"


def interpreter() -> str:
    """This interpreter by absolute path, so the shim works outside the venv.

    Not resolved through symlinks: a venv's python is a link to the system one, and only the
    link's path makes Python find the venv's packages.
    """
    return os.path.abspath(sys.executable)


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\"'\"'") + "'"


def shim_text(name: str, python: str) -> str:
    """The sh script for one hook; `$0` is the hook's own path, as git ran it."""
    if name in _STDIN_HOOKS:
        feed_setup = (
            'stdin_copy=$(mktemp "${TMPDIR:-/tmp}/annals-hook.XXXXXX") || exit 0\n'
            "trap 'rm -f \"$stdin_copy\"' EXIT\n"
            'cat > "$stdin_copy"\n'
        )
        original_in, annals_in = ' < "$stdin_copy"', ' < "$stdin_copy"'
    else:
        feed_setup, original_in, annals_in = "", "", ""
    on_failure = "exit $status" if name in _BLOCKING_HOOKS else ":"
    return f"""#!/bin/sh
{MARKER} v1 ({name}): runs the hook it replaced, then `annals hooks run {name}`.
# `annals hooks uninstall` puts the original back byte for byte.
ANNALS_PYTHON={_quote(python)}
original="$0{ORIGINAL_SUFFIX}"
{feed_setup}run_original() {{
    [ -x "$original" ] || return 0
    first=$(head -n 1 "$original" 2>/dev/null)
    case "$first" in
        '#!'*[/\\ ]sh|'#!'*[/\\ ]sh\\ *|'#!'*bash*|'#!'*dash*|'#!'*zsh*|'#!'*ksh*)
            interpreter=${{first#??}}
            # Sourced so that $0 still names this hook (husky and pre-commit find their files by it).
            $interpreter -c '. "$0{ORIGINAL_SUFFIX}"' "$0" "$@" ;;
        *) "$original" "$@" ;;
    esac
}}
run_original "$@"{original_in}
status=$?
[ $status -eq 0 ] || {on_failure}
if [ -x "$ANNALS_PYTHON" ]; then
    "$ANNALS_PYTHON" -m codeannals.hooks.run {name} "$@"{annals_in}
    exit $?
fi
echo "annals: $ANNALS_PYTHON is gone; run \\`annals hooks install\\` again (hook {name} skipped)" >&2
exit $status
"""


def is_shim(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            return MARKER.encode() in fh.read(512)
    except OSError:
        return False


def install(root: Path, names: tuple[str, ...] = HOOKS, python: str | None = None) -> dict[str, Any]:
    """Install (or refresh) the shims, keeping any hook already there as the chained original."""
    directory = hooks_dir(root)
    directory.mkdir(parents=True, exist_ok=True)
    python = python or interpreter()
    report: dict[str, Any] = {"hooks_dir": str(directory), "python": python, "hooks": {}}
    for name in names:
        if name not in HOOKS:
            raise HookError(f"unknown hook {name!r}: annals provides {', '.join(HOOKS)}")
        hook = directory / name
        original = directory / (name + ORIGINAL_SUFFIX)
        if hook.exists() or hook.is_symlink():
            if is_shim(hook):
                state = "refreshed"
            elif original.exists() or original.is_symlink():
                raise HookError(
                    f"{hook} is not ours and {original} already holds an earlier hook: move one "
                    "of them aside, then run `annals hooks install` again"
                )
            else:
                os.replace(hook, original)
                state = "chained"
        else:
            state = "installed"
        temporary = directory / f".{name}.annals-tmp"
        temporary.write_text(shim_text(name, python), encoding="utf-8")
        temporary.chmod(0o755)
        os.replace(temporary, hook)
        report["hooks"][name] = {"state": state, "chained": original.exists() or original.is_symlink()}
    return report


def uninstall(root: Path, names: tuple[str, ...] = HOOKS) -> dict[str, Any]:
    """Remove our shims; put each chained original back exactly as it was."""
    directory = hooks_dir(root)
    report: dict[str, Any] = {"hooks_dir": str(directory), "hooks": {}}
    for name in names:
        hook = directory / name
        original = directory / (name + ORIGINAL_SUFFIX)
        if not is_shim(hook):
            report["hooks"][name] = {"state": "not ours, left alone" if hook.exists() else "absent"}
            continue
        if original.exists() or original.is_symlink():
            os.replace(original, hook)
            report["hooks"][name] = {"state": "original restored"}
        else:
            hook.unlink()
            report["hooks"][name] = {"state": "removed"}
    return report


def status(root: Path) -> dict[str, Any]:
    """Which hooks are ours, which chain an original, and whether the interpreter still exists."""
    directory = hooks_dir(root)
    hooks: dict[str, Any] = {}
    for name in HOOKS:
        hook = directory / name
        original = directory / (name + ORIGINAL_SUFFIX)
        python = None
        if is_shim(hook):
            for line in hook.read_text("utf-8", "replace").splitlines():
                if line.startswith("ANNALS_PYTHON="):
                    python = line.split("=", 1)[1].strip("'")
        hooks[name] = {
            "installed": is_shim(hook),
            "present": hook.exists(),
            "chained": original.exists(),
            "python": python,
            "python_exists": bool(python and os.access(python, os.X_OK)),
        }
    from .jobs import failed, pending

    return {
        "hooks_dir": str(directory),
        "hooks": hooks,
        "installed": all(h["installed"] for h in hooks.values()),
        "jobs_pending": [p.name for p in pending(root)],
        "jobs_failed": [p.name for p in failed(root)],
    }
