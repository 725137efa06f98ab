"""Run one command for a workflow session: argv only, checked, limited, captured.

- No shell: argv goes to the kernel as it is, and an element holding `;`, `|`, `&&`, `||`, a
  backquote or `$(` is refused (it would mean the caller expected a shell).
- The binary is resolved (leading `NAME=value` assignments and `env` are looked through, a relative
  path is taken from the working directory, symlinks are followed) and its real name must be on
  the allowed list; assignments to PATH, LD_* or PYTHON* variables are refused.
- The working directory must lie inside one of the allowed roots.
- CPU seconds and address space are capped (`prlimit`, else `resource.setrlimit` in the child); a
  wall-clock timeout kills the whole process group.
- Without network in the intent, the command runs in a new network namespace (`unshare -rn`) where
  the platform allows it; where it does not, the result says `network: "not enforced"`.
- Output (stdout and stderr together) is kept whole in its digest and size, and as head and tail
  beyond OUTPUT_CAP characters.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

DEFAULT_ALLOWED = (
    "python",
    "pytest",
    "ruff",
    "mypy",
    "git",
    "make",
    "ls",
    "cat",
    "grep",
    "head",
    "tail",
    "wc",
    "diff",
    "true",
    "false",
    "echo",
    "sed",
    "node",
    "npm",
    "cargo",
    "go",
)
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish", "csh", "tcsh"})
DEFAULT_TIMEOUT = 120.0
MAX_TIMEOUT = 1800.0
DEFAULT_CPU_SECONDS = 300
DEFAULT_MEMORY_BYTES = 2 << 30
OUTPUT_CAP = 16_000  # characters of output kept in the event (head and tail); the digest covers all
_METACHARACTERS = (";", "|", "&&", "`", "$(")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_FORBIDDEN_ENV = re.compile(r"^(PATH|LD_\w+|PYTHON\w*|GIT_\w+|BASH_ENV|ENV|IFS|SHELL)$")
_VERSION_SUFFIX = re.compile(r"[\d.]+$")


@dataclass(frozen=True)
class Policy:
    roots: tuple[Path, ...]
    allowed: tuple[str, ...] = DEFAULT_ALLOWED
    timeout: float = DEFAULT_TIMEOUT
    cpu_seconds: int = DEFAULT_CPU_SECONDS
    memory_bytes: int = DEFAULT_MEMORY_BYTES
    network: bool = False


@dataclass
class Checked:
    """A command after its checks: the argv to run, its environment, and every problem found."""

    argv: list[str]
    binary: str  # the real name, version suffix dropped (python3.11 -> python)
    args: list[str]
    cwd: Path
    env: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def base_name(path: str) -> str:
    return _VERSION_SUFFIX.sub("", os.path.basename(path)) or os.path.basename(path)


def check(argv: list[str], cwd: Path, policy: Policy) -> Checked:
    """Every reason this command may not run (an empty list: it may)."""
    problems = []
    if not argv or not all(isinstance(a, str) and a for a in argv):
        return Checked(
            argv,
            "",
            [],
            cwd,
            problems=["send the command as a non-empty argv list, e.g. ['python', '-m', 'pytest', '-q']"],
        )
    for arg in argv:
        if any(m in arg for m in _METACHARACTERS) or arg in ("&", ">", "<", ">>"):
            problems.append(f"shell metacharacter in {arg!r}: commands run without a shell; send one command as argv")
            break
    real_cwd = Path(os.path.realpath(cwd))
    if not any(real_cwd.is_relative_to(os.path.realpath(r)) for r in policy.roots):
        problems.append(
            f"working directory {cwd} is outside the allowed roots ({', '.join(str(r) for r in policy.roots)})"
        )
    env: dict[str, str] = {}
    rest = list(argv)
    while rest and (_ASSIGNMENT.match(rest[0]) or os.path.basename(rest[0]) == "env"):
        word = rest.pop(0)
        if os.path.basename(word) == "env":
            while rest and rest[0].startswith("-"):
                problems.append(f"env option {rest.pop(0)!r} is not supported; use NAME=value only")
            continue
        name, _, value = word.partition("=")
        if _FORBIDDEN_ENV.match(name):
            problems.append(f"setting {name} is refused: it would change which program runs")
        env[name] = value
    if not rest:
        problems.append("only environment assignments: send the command to run after them")
        return Checked(argv, "", [], cwd, env, problems)
    program, args = rest[0], rest[1:]
    resolved = resolve_binary(program, real_cwd)
    if resolved is None:
        problems.append(f"{program!r} was not found on PATH or relative to the working directory")
        binary = base_name(program)
    else:
        # The file it really is decides, not the name it was called by: a link named python to rm is rm.
        binary = base_name(os.path.realpath(resolved))
        if binary in SHELLS or base_name(program) in SHELLS:
            problems.append(f"{program!r} is a shell: commands run without one")
        elif binary not in policy.allowed:
            problems.append(f"{program!r} ({binary}) is not on the allowed list: {', '.join(policy.allowed)}")
        program = resolved
    return Checked([program, *args], binary, args, real_cwd, env, problems)


def resolve_binary(program: str, cwd: Path) -> str | None:
    """The executable a program name or path means, from cwd for paths, from PATH for names."""
    if "/" in program:
        full = program if os.path.isabs(program) else os.path.join(cwd, program)
        return full if os.path.isfile(full) and os.access(full, os.X_OK) else None
    return shutil.which(program)


@cache
def network_isolation() -> list[str] | None:
    """The prefix that cuts a command off the network here, or None where the platform cannot."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return None
    try:
        ok = subprocess.run([unshare, "-rn", "true"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return None
    return [unshare, "-rn", "--"] if ok else None


def limits_prefix(cpu_seconds: int, memory_bytes: int) -> tuple[list[str], Any]:
    """How to cap the command: `prlimit` in front of it where there is one; else setrlimit in the
    child before exec (a preexec_fn, which Python warns is unsafe while other threads run, as they
    do in the MCP server)."""
    prlimit = shutil.which("prlimit")
    if prlimit is not None:
        return [prlimit, f"--cpu={cpu_seconds}", f"--as={memory_bytes}", "--"], None

    def apply() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds))
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))

    return [], apply


def clip(text: str, cap: int = OUTPUT_CAP) -> tuple[str, bool]:
    if len(text) <= cap:
        return text, False
    half = cap // 2
    return f"{text[:half]}\n… [{len(text) - cap} characters cut] …\n{text[-half:]}", True


def run(checked: Checked, policy: Policy, timeout: float | None = None) -> dict[str, Any]:
    """Run a checked command (it must have no problems); exit status, duration, output and limits."""
    if checked.problems:
        raise ValueError("refusing to run a command with problems: " + "; ".join(checked.problems))
    limit = min(timeout or policy.timeout, MAX_TIMEOUT)
    prefix = [] if policy.network else (network_isolation() or [])
    network = "allowed" if policy.network else ("isolated (unshare -rn)" if prefix else "not enforced")
    capped, preexec = limits_prefix(policy.cpu_seconds, policy.memory_bytes)
    env = {**os.environ, **checked.env}
    started = time.perf_counter()
    proc = subprocess.Popen(
        [*capped, *prefix, *checked.argv],
        cwd=checked.cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        preexec_fn=preexec,
    )  # noqa: PLW1509 - only where there is no prlimit
    timed_out = False
    try:
        out, _ = proc.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
    duration = (time.perf_counter() - started) * 1000
    text = out.decode("utf-8", "replace")
    shown, truncated = clip(text)
    return {
        "exit_code": None if timed_out else proc.returncode,
        "timed_out": timed_out,
        "duration_ms": round(duration, 1),
        "output": shown,
        "truncated": truncated,
        "output_bytes": len(out),
        "output_digest": hashlib.sha256(out).hexdigest(),
        "limits": {
            "timeout_s": limit,
            "cpu_s": policy.cpu_seconds,
            "memory_bytes": policy.memory_bytes,
            "network": network,
        },
    }
