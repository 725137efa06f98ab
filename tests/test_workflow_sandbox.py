"""The sandbox that runs a workflow session's commands: checks (allow list, shell, env, paths,
roots) and limits (timeout, memory, network, output), on real processes."""

from __future__ import annotations

import contextlib
import os
import socket
import sys
import threading
from pathlib import Path

import pytest
from codeannals.server import sandbox
from codeannals.server.sandbox import Policy

PYTHON = sys.executable


def policy(root: Path, **overrides: object) -> Policy:
    return Policy((root,), **overrides)


def problems(argv: list[str], root: Path, cwd: Path | None = None, **overrides: object) -> list[str]:
    return sandbox.check(argv, cwd or root, policy(root, **overrides)).problems


def test_an_allowed_command_passes_and_runs(tmp_path: Path) -> None:
    checked = sandbox.check([PYTHON, "-c", "print('hi')"], tmp_path, policy(tmp_path))
    assert checked.problems == [] and checked.binary == "python"
    ran = sandbox.run(checked, policy(tmp_path))
    assert ran["exit_code"] == 0 and ran["output"] == "hi\n" and ran["output_bytes"] == 3


def test_binaries_off_the_allowed_list_are_refused_behind_env_and_relative_paths(tmp_path: Path) -> None:
    assert "not on the allowed list" in problems(["curl", "https://example.com"], tmp_path)[0]
    assert "not on the allowed list" in problems(["LANG=C", "rm", "-rf", "x"], tmp_path)[0]
    assert "not on the allowed list" in problems(["env", "LANG=C", "rm", "x"], tmp_path)[0]
    link = tmp_path / "python"
    link.symlink_to("/bin/rm")  # named like an allowed binary, but it is rm
    assert "not on the allowed list" in problems(["./python", "x"], tmp_path)[0]
    assert "refused" in problems(["PATH=/tmp", "python", "-V"], tmp_path)[0]
    assert "only environment assignments" in problems(["A=1"], tmp_path)[0]


def test_shells_and_shell_metacharacters_are_refused(tmp_path: Path) -> None:
    for argv in (["git", "log", "|", "head"], ["git", "status;", "rm"], ["echo", "$(id)"], ["echo", "a", "&&", "b"]):
        assert "shell metacharacter" in problems(argv, tmp_path)[0], argv
    assert "is a shell" in problems(["sh", "-c", "true"], tmp_path, allowed=("sh",))[0]
    assert "non-empty argv" in problems([], tmp_path)[0]


def test_a_working_directory_outside_the_roots_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    assert "outside the allowed roots" in problems(["git", "status"], root, cwd=tmp_path)[0]
    (root / "up").symlink_to(tmp_path)
    assert "outside the allowed roots" in problems(["git", "status"], root, cwd=root / "up")[0]


def test_a_command_past_its_timeout_is_stopped_with_its_children(tmp_path: Path) -> None:
    code = "import subprocess, sys\nsubprocess.run([sys.executable, '-c', 'import time\\ntime.sleep(60)'])"
    checked = sandbox.check([PYTHON, "-c", code], tmp_path, policy(tmp_path))
    ran = sandbox.run(checked, policy(tmp_path), timeout=1)
    assert ran["timed_out"] and ran["exit_code"] is None and ran["duration_ms"] < 10_000


def test_memory_is_capped(tmp_path: Path) -> None:
    limited = policy(tmp_path, memory_bytes=512 << 20)
    checked = sandbox.check([PYTHON, "-c", "b = bytearray(1 << 30)"], tmp_path, limited)
    ran = sandbox.run(checked, limited)
    assert ran["exit_code"] != 0 and "MemoryError" in ran["output"]


def test_long_output_is_cut_to_head_and_tail_with_its_size_and_digest(tmp_path: Path) -> None:
    checked = sandbox.check([PYTHON, "-c", "print('x' * 100000)"], tmp_path, policy(tmp_path))
    ran = sandbox.run(checked, policy(tmp_path))
    assert ran["truncated"] and ran["output_bytes"] == 100_001 and len(ran["output"]) < 20_000
    assert "characters cut" in ran["output"] and len(ran["output_digest"]) == 64


def test_no_network_unless_allowed_where_the_platform_can_enforce_it(tmp_path: Path) -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    port = server.getsockname()[1]

    def accept_until_closed() -> None:
        with contextlib.suppress(OSError):  # closed below while still waiting for the isolated run's connection
            for _ in range(2):
                server.accept()

    threading.Thread(target=accept_until_closed, daemon=True).start()
    code = f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=5)\nprint('connected')"
    try:
        open_ = sandbox.run(
            sandbox.check([PYTHON, "-c", code], tmp_path, policy(tmp_path, network=True)),
            policy(tmp_path, network=True),
        )
        assert open_["exit_code"] == 0 and open_["limits"]["network"] == "allowed"
        closed = sandbox.run(sandbox.check([PYTHON, "-c", code], tmp_path, policy(tmp_path)), policy(tmp_path))
    finally:
        server.close()
    if sandbox.network_isolation() is None:
        assert closed["limits"]["network"] == "not enforced"
        pytest.skip("this platform cannot isolate a process from the network (no user namespaces)")
    assert closed["exit_code"] != 0 and closed["limits"]["network"] == "isolated (unshare -rn)"


def test_run_refuses_a_command_with_problems(tmp_path: Path) -> None:
    checked = sandbox.check(["curl", "x"], tmp_path, policy(tmp_path))
    with pytest.raises(ValueError, match="refusing to run"):
        sandbox.run(checked, policy(tmp_path))
    assert os.path.basename(sandbox.base_name("/usr/bin/python3.11")) == "python"
