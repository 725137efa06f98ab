"""The package as a user installs it: a wheel built from HEAD's files (what `git archive` ships,
not the work tree), installed without -e into a fresh venv, then `annals --version`, `annals
index` on a tiny repository and `annals serve` answering `initialize` and a tool call over stdio.

An editable install reads the source folders directly, so a module left out of the wheel goes
unnoticed by the test suite; this is the check that notices. Run: `python3 .ci/wheel_check.py`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SERVE_TIMEOUT_S = 60


def run(argv: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(argv, capture_output=True, text=True, **kwargs)  # type: ignore[call-overload]
    if done.returncode != 0:
        sys.exit(f"wheel check: `{' '.join(argv)}` exited {done.returncode}:\n{done.stdout}{done.stderr}")
    return done


def build_wheel(scratch: Path) -> Path:
    source = scratch / "source"
    source.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "HEAD"], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(source)], input=archive, check=True)
    run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(scratch / "dist"), str(source)])
    (wheel,) = (scratch / "dist").glob("codeannals-*.whl")
    return wheel


def tiny_repository(scratch: Path, env: dict[str, str]) -> Path:
    repo = scratch / "tiny"
    (repo / "tiny").mkdir(parents=True)
    (repo / "tiny" / "__init__.py").write_text('"""A tiny package."""\n')
    (repo / "tiny" / "greet.py").write_text(
        '"""Greetings."""\n\n\ndef greet(name: str) -> str:\n    """Say hello to name."""\n    return f"hello {name}"\n'
    )
    run(["git", "init", "-q", str(repo)], env=env)
    run(["git", "-C", str(repo), "add", "-A"], env=env)
    run(["git", "-C", str(repo), "commit", "-q", "-m", "tiny"], env=env)
    return repo


def serve_over_stdio(annals: Path, repo: Path, env: dict[str, str]) -> dict[str, object]:
    """initialize, initialized, then index_status: the answers by id."""
    requests = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "wheel-check", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "index_status", "arguments": {}}},
    ]
    proc = subprocess.Popen(
        [str(annals), "-C", str(repo), "serve", "--no-watch"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    if proc.stdin is None or proc.stdout is None:
        sys.exit("wheel check: `annals serve` started without pipes")
    answers: dict[str, object] = {}
    deadline = time.monotonic() + SERVE_TIMEOUT_S
    try:
        for request in requests:
            proc.stdin.write(json.dumps(request) + "\n")
            proc.stdin.flush()
            if "id" not in request:
                continue
            while time.monotonic() < deadline:
                line = proc.stdout.readline()
                if not line:
                    sys.exit("wheel check: `annals serve` closed stdout before answering")
                message = json.loads(line)  # anything but MCP on stdout fails here
                if message.get("id") == request["id"]:
                    answers[str(request["method"])] = message
                    break
    finally:
        proc.kill()
        proc.wait()
    return answers


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="annals-wheel-") as tmp:
        scratch = Path(tmp)
        wheel = build_wheel(scratch)
        venv = scratch / "venv"
        run([sys.executable, "-m", "venv", str(venv)])
        run([str(venv / "bin" / "pip"), "install", "-q", str(wheel)])
        annals = venv / "bin" / "annals"
        env = {
            **os.environ,
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": str(scratch / "gitconfig"),
            "GIT_AUTHOR_NAME": "ci",
            "GIT_AUTHOR_EMAIL": "ci@example.invalid",
            "GIT_COMMITTER_NAME": "ci",
            "GIT_COMMITTER_EMAIL": "ci@example.invalid",
        }
        version = run([str(annals), "--version"], env=env).stdout.strip()
        repo = tiny_repository(scratch, env)
        indexed = json.loads(run([str(annals), "-C", str(repo), "index", "--wait", "--json"], env=env).stdout)
        found = json.loads(run([str(annals), "-C", str(repo), "search", "say hello", "--json"], env=env).stdout)
        answers = serve_over_stdio(annals, repo, env)
        initialize = answers.get("initialize", {})
        status = answers.get("tools/call", {})
        if not isinstance(initialize, dict) or "result" not in initialize:
            sys.exit(f"wheel check: `annals serve` did not answer initialize: {initialize}")
        if not isinstance(status, dict) or status.get("result", {}).get("isError"):
            sys.exit(f"wheel check: index_status over stdio failed: {status}")
        hits = [hit["id"] for hit in found]
        if "tiny/greet.py::greet" not in hits:
            sys.exit(f"wheel check: the installed index does not find tiny/greet.py::greet: {hits}")
        print(
            f"wheel check: {wheel.name} installs; {version}; indexed {indexed.get('files')} files; "
            f"search finds greet; serve answers initialize and index_status over stdio"
        )


if __name__ == "__main__":
    main()
