"""Every `annals` command and every MCP tool, given a target it cannot answer for, says so in one
line that names the target and the fix: a file the index skipped, a non-code file, a missing path,
an unknown symbol, a path outside the repository, an unindexed repository, a damaged database.
Never a traceback, never the SDK's bare "Error executing tool", never an empty answer that looks
like a real one."""

from __future__ import annotations

import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner
from codeannals.server.app import App
from codeannals.server.commands import cli
from codeannals.server.mcp import build_server
from mcp import Client
from mcp.shared.exceptions import MCPError

from .conftest import Repo
from .mcp_support import isolated_git_env

UNEXPECTED = "Error executing tool"
SKIPPED = {"LICENSE.txt": "MIT License\n", "blob.py": b"\x00\x01binary\x00"}
BAD_TARGETS = {
    "a non-code file": "LICENSE.txt",
    "a skipped file": "blob.py",
    "a missing path": "missing.py",
    "an unknown symbol": "no_such_thing",
    "a path outside the repo": "../outside.py",
    "an absolute path outside": "/etc/passwd",
    "an unknown member": "app.py::nope",
}
# The commands that take a file, module or symbol, with the argument list around the target.
TARGET_COMMANDS = {
    "contract": ["contract"],
    "deps": ["deps"],
    "deps --reverse": ["deps", "--reverse"],
    "impact": ["impact"],
    "history": ["history"],
    "similar": ["similar"],
    "symbols --path": ["symbols", "--path"],
    "show": ["show"],
}
READ_COMMANDS = [
    ["status"],
    ["symbols"],
    ["search", "save"],
    ["contract", "app.py"],
    ["deps"],
    ["impact", "app.py"],
    ["history", "app.py::save"],
    ["events"],
    ["verify"],
    ["rebuild"],
    ["similar", "app.py::save"],
    ["vectors"],
]


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("home")
    with isolated_git_env(home):
        repo = Repo(tmp_path_factory.mktemp("repo"))
        repo.write("app.py", "def save(path):\n    with open(path, 'w') as fh:\n        fh.write('x')\n")
        for rel, data in SKIPPED.items():
            repo.write(rel, data)
        repo.commit("start")
        assert CliRunner().invoke(cli, ["-C", str(repo.root), "index", "--no-vectors"]).exit_code == 0
        yield repo.root


def run(root: Path, *args: str) -> Any:
    result = CliRunner().invoke(cli, ["-C", str(root), *args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError("".join(traceback.format_exception(result.exception)))
    return result


def one_line_error(result: Any) -> str:
    assert result.exit_code != 0, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    assert "Traceback" not in result.output
    return lines[0]


@pytest.mark.parametrize("command", TARGET_COMMANDS, ids=list(TARGET_COMMANDS))
@pytest.mark.parametrize("target", BAD_TARGETS.values(), ids=list(BAD_TARGETS))
def test_every_command_answers_a_bad_target_with_one_line_naming_it(indexed: Path, command: str, target: str) -> None:
    args = [*TARGET_COMMANDS[command], target + "@HEAD" if command == "show" else target]
    line = one_line_error(run(indexed, *args))
    assert target in line


@pytest.mark.parametrize("target", list(SKIPPED))
@pytest.mark.parametrize("command", ["contract", "deps", "impact", "symbols --path"])
def test_a_skipped_file_is_refused_with_the_reason_it_was_skipped(indexed: Path, command: str, target: str) -> None:
    line = one_line_error(run(indexed, *TARGET_COMMANDS[command], target))
    assert "skipped:" in line and "indexed source file" in line


def test_the_contract_of_a_skipped_file_is_no_traceback_over_a_real_process(indexed: Path) -> None:
    import subprocess
    import sys

    exe = Path(sys.executable).parent / "annals"
    proc = subprocess.run([str(exe), "-C", str(indexed), "contract", "blob.py"], capture_output=True, text=True)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("Error: 'blob.py' is not indexed (skipped: binary")


@pytest.mark.parametrize("args", READ_COMMANDS, ids=[" ".join(a) for a in READ_COMMANDS])
def test_every_read_command_in_an_unindexed_repository_says_to_index_it(repo: Repo, args: list[str]) -> None:
    repo.write("app.py", "def save():\n    pass\n")
    repo.commit()
    line = one_line_error(run(repo.root, *args))
    assert "annals index" in line


@pytest.mark.parametrize("args", [["symbols"], ["search", "save"], ["deps"]], ids=["symbols", "search", "deps"])
def test_an_empty_index_is_said_to_be_empty_not_answered_with_nothing(repo: Repo, args: list[str]) -> None:
    repo.write("app.py", "def save():\n    pass\n")
    repo.commit()
    assert run(repo.root, "state").exit_code == 0  # git commands may create the database, empty
    line = one_line_error(run(repo.root, *args))
    assert "nothing is indexed yet" in line and "annals index" in line


# --- MCP ----------------------------------------------------------------------------------------

REQUIRED = {
    "query": "save",
    "symbol": "app.py::save",
    "path": "app.py",
    "target": "app.py",
    "base": "HEAD",
    "rev": "HEAD",
    "task": "fix save",
    "contextId": "c1",
    "message": "hello",
    "role": "user",
    "mistake": "m",
    "category": "c",
    "goal": "g",
    "plan": "p",
    "sourceContextId": "c1",
    "targetContextId": "c2",
    "relationshipType": "similar",
    "type": "fix",
    "agent_id": "a",
    "action": "undo_uncommitted",
    "strategy": "abort",
    "good": "HEAD",
    "bad": "HEAD",
    "test_command": ["true"],
    "sessionId": "s1",
    "rule": "r",
    "rules": ["r"],
    "next_step": "intent_captured",
}
ONE_OF = {"find_similar_code": {"symbol": "app.py::save"}}  # one of two optional arguments is needed
TARGET_FIELDS = ("symbol", "path", "target")
# Tools that change the repository or run commands: their refusals are tested in their own files.
ACTING = {"git_recover_state", "git_bisect_start", "git_commit_with_context", "git_resolve_conflict"}


def _plain_value(schema: dict[str, Any]) -> Any:
    """A valid value for an argument REQUIRED does not know, from its schema."""
    if "enum" in schema:
        return schema["enum"][0]
    kinds = schema.get("type", "string")
    kind = next((k for k in kinds if k != "null"), "string") if isinstance(kinds, list) else kinds
    return {"string": "fix-save", "integer": 1, "number": 1, "boolean": False, "array": ["fix-save"], "object": {}}.get(
        kind, "fix-save"
    )


def call_every_tool(root: Path, variants: Any) -> list[tuple[str, dict[str, Any], str, bool]]:
    """(tool, arguments, text, is_error) for each tool and each argument set `variants(tool, args)` gives."""
    out: list[tuple[str, dict[str, Any], str, bool]] = []

    async def go() -> None:
        async with Client(build_server(App.for_repo(root))) as client:
            for tool in (await client.list_tools()).tools:
                properties = tool.input_schema.get("properties", {})
                required = {
                    **{
                        k: REQUIRED.get(k, _plain_value(properties.get(k, {})))
                        for k in tool.input_schema.get("required", [])
                    },
                    **ONE_OF.get(tool.name, {}),
                }
                for args in variants(tool.name, required):
                    try:
                        result = await client.call_tool(tool.name, args)
                    except MCPError as exc:
                        out.append((tool.name, args, exc.error.message, True))
                        continue
                    text = " ".join(getattr(b, "text", "") for b in result.content)
                    out.append((tool.name, args, text, bool(result.is_error)))

    anyio.run(go)
    return out


@pytest.mark.parametrize("kind", list(BAD_TARGETS))
def test_every_tool_answers_a_bad_target_with_an_error_that_says_what_to_send(indexed: Path, kind: str) -> None:
    bad = BAD_TARGETS[kind]

    def variants(name: str, required: dict[str, Any]) -> list[dict[str, Any]]:
        if name in ACTING:
            return []
        return [{**required, field: bad} for field in TARGET_FIELDS if field in required]

    answers = call_every_tool(indexed, variants)
    assert {name for name, *_ in answers} >= {"get_symbol", "get_module_contract", "impact_analysis", "symbol_at"}
    for name, args, text, is_error in answers:
        assert not text.startswith(UNEXPECTED) or ":" in text, (name, args, text)
        assert is_error, (name, args, text)
        assert "send" in text or "search_symbols" in text or "did not exist" in text, (name, args, text)


def test_a_context_pack_for_a_task_naming_a_skipped_file_still_answers(indexed: Path) -> None:
    answers = call_every_tool(
        indexed,
        lambda name, required: (
            [{"task": "fix the LICENSE.txt and blob.py handling in save", "focus": ["LICENSE.txt", "app.py"]}]
            if name == "get_context_pack"
            else []
        ),
    )
    [(_, _, text, is_error)] = answers
    assert not is_error, text
    assert "app.py" in text


def test_a_search_of_an_unindexed_repository_says_to_index_it(repo: Repo) -> None:
    repo.write("app.py", "def save():\n    pass\n")
    repo.commit()
    [(_, _, text, is_error)] = call_every_tool(
        repo.root, lambda name, required: [{"query": "save"}] if name == "search_symbols" else []
    )
    assert not is_error and f"run `annals -C {repo.root} index`" in text


# --- a repository git refuses -------------------------------------------------------------------

# git's own test switch: it takes every repository for one another user owns, as a checkout mounted
# into a container is (git then refuses it until safe.directory names it).
DIFFERENT_OWNER = "GIT_TEST_ASSUME_DIFFERENT_OWNER"


@pytest.fixture
def committed(repo: Repo) -> Repo:
    repo.write("app.py", "def save():\n    pass\n")
    repo.commit()
    return repo


def test_indexing_a_repository_git_refuses_says_how_to_allow_it_and_writes_nothing(
    committed: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = committed
    monkeypatch.setenv(DIFFERENT_OWNER, "1")
    line = one_line_error(run(repo.root, "index", "--no-vectors"))
    assert f"git config --global --add safe.directory {repo.root}" in line
    assert not (repo.root / ".annals" / "annals.db").exists()  # no index that silently lacks history


def test_every_tool_on_a_repository_git_now_refuses_says_how_to_allow_it(
    committed: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = committed
    assert run(repo.root, "index", "--no-vectors").exit_code == 0
    monkeypatch.setenv(DIFFERENT_OWNER, "1")
    answers = call_every_tool(repo.root, lambda name, required: [] if name in ACTING else [required])
    refused = [name for name, _, text, is_error in answers if is_error and "safe.directory" in text]
    assert {"get_context_pack", "search_symbols", "index_status"} <= set(refused)
    for name, args, text, _ in answers:
        assert not text.startswith(UNEXPECTED), (name, args, text)
    line = one_line_error(run(repo.root, "status"))
    assert "safe.directory" in line


def test_a_hook_in_a_repository_git_refuses_says_why_and_lets_git_go_on(
    committed: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    from codeannals.hooks.run import run_hook

    repo = committed
    monkeypatch.setenv(DIFFERENT_OWNER, "1")
    err = io.StringIO()
    assert run_hook("post-commit", [], cwd=repo.root, err=err) == 0
    assert "safe.directory" in err.getvalue() and "Traceback" not in err.getvalue()


@pytest.mark.parametrize("command", ["pack", "search"])
def test_a_task_that_starts_with_a_flag_is_told_to_go_after_a_double_dash(indexed: Path, command: str) -> None:
    """`annals pack "--max-columns-preview truncates ..."`: click read the task as an unknown option. Text with a space
    is no option: the error says how to send it; a mistyped option is still named as one."""
    result = run(indexed, command, "--max-columns-preview truncates text")
    assert result.exit_code == 2
    assert f"{command} -- '--max-columns-preview truncates text'" in result.output
    assert "Did you mean '--budget'" in run(indexed, "pack", "--budgt", "9", "task").output
    assert "Did you mean" not in result.output
