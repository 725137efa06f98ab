"""Path traversal through every path argument of every MCP tool: zero escapes.

The repository sits at BASE/repo; a sibling BASE/repo-evil (sharing the repository's name as a
prefix) holds secret.py with a canary. Inside the repository, committed symlinks lead out (to the
sibling, to /etc/passwd, to themselves), and in the work tree an indexed file is replaced by a
symlink to the secret and an untracked one points at it too.

The path arguments are found from the tools' schemas (names such as path, files, target, focus,
symbol, and context ids that take 'module:<path>'), so a new tool is covered when it is listed.
Each hostile value (`..`, absolute paths, the sibling, symlinks, NUL bytes, 10k characters, ...)
must be refused (-32602 naming the field) or not found (a tool error saying what to send), never
answered, and the canary must never appear: not in any answer, not in the index.
"""

from __future__ import annotations

import re
import sqlite3
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from mcp.types import Tool

from .mcp_support import isolated_git_env, make_shop
from .test_mcp_fuzz import INVALID_PARAMS, Outcome, Session, crashed, open_session

PATH_FIELD = re.compile(r"^(path|paths|file|files|module|target|focus|symbol)$")
CODE_TARGET = "'module:<path"  # a context id that may name code: 'module:<path>' or 'symbol:<id>'
# What the schemas must yield at least (tool, field); more is welcome, fewer means the finder broke.
KNOWN_PATH_FIELDS = {
    ("get_module_contract", "path"),
    ("get_dependencies", "path"),
    ("get_dependents", "path"),
    ("impact_analysis", "target"),
    ("get_context_pack", "focus"),
    ("git_resolve_conflict", "files"),
    ("get_symbol", "symbol"),
    ("symbol_history", "symbol"),
    ("symbol_at", "symbol"),
    ("add_relationship", "targetContextId"),
}
PASSWD_MARK = "root:x:0:0"


@dataclass
class Layout:
    base: Path
    root: Path
    evil: Path
    canary: str
    function: str

    def leaks(self, text: str) -> list[str]:
        return [mark for mark in (self.canary, self.function, PASSWD_MARK) if mark in text]


@pytest.fixture(scope="module")
def layout(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Layout]:
    from codeannals.indexer.run import index_tree
    from codeannals.store import default_db_path, open_store

    home = tmp_path_factory.mktemp("home")
    with isolated_git_env(home):
        base = tmp_path_factory.mktemp("paths")
        token = uuid.uuid4().hex
        evil = base / "repo-evil"
        evil.mkdir()
        canary, function = f"canary-{token}", f"leak_{token}"
        (evil / "secret.py").write_text(
            f'"""Secret {canary}."""\nSECRET_TOKEN = "{canary}"\n\n\n'
            f"def {function}() -> str:\n    return SECRET_TOKEN\n"
        )
        repo = make_shop(base / "repo")
        root = repo.root
        links = root / "links"
        links.mkdir()
        (links / "evil_dir").symlink_to("../../repo-evil")
        (links / "leak.py").symlink_to("../../repo-evil/secret.py")
        (links / "passwd").symlink_to("/etc/passwd")
        (links / "loop.py").symlink_to("loop.py")
        repo.commit("symlinks that lead out")
        conn = open_store(default_db_path(root))
        try:
            index_tree(root, conn, source="cli")
        finally:
            conn.close()
        # the work tree now differs from the index: an indexed file and an untracked one lead out
        (root / "shop" / "report.py").unlink()
        (root / "shop" / "report.py").symlink_to("../../repo-evil/secret.py")
        (root / "untracked_leak.py").symlink_to("../repo-evil/secret.py")
        yield Layout(base, root, evil, canary, function)


@pytest.fixture(scope="module")
def session(layout: Layout) -> Iterator[Session]:
    with open_session(layout.root) as opened:
        yield opened


def escaping_values(layout: Layout) -> list[str]:
    """Paths that lead outside the repository, one way or another."""
    secret = layout.evil / "secret.py"
    return [
        "..",
        "../",
        "../..",
        "../../etc/passwd",
        "/etc/passwd",
        "/etc",
        "//etc/passwd",
        "/./etc/passwd",
        str(secret),
        f"{layout.root}-evil/secret.py",
        f"{layout.root}/../repo-evil/secret.py",
        "../repo-evil/secret.py",
        "./../repo-evil/secret.py",
        "shop/../../repo-evil/secret.py",
        "shop/prices.py/../../../repo-evil/secret.py",
        "links/evil_dir",
        "links/evil_dir/secret.py",
        "links/leak.py",
        "links/passwd",
        "shop/report.py",
        "untracked_leak.py",
        "~",
        "~/.gitconfig",
        "~root/.ssh/id_rsa",
        "../" * 3400 + "etc/passwd",
        str(layout.base),
    ]


IN_TREE_ODDITIES = ["links/loop.py", "links"]  # tracked and inside: may be answered, must not leak or crash


def bogus_values() -> list[str]:
    """Paths that escape nothing but name nothing (or nothing a path can be)."""
    return [
        "",
        " ",
        ".",
        "./",
        "\0",
        "shop/prices.py\0",
        "shop/\0../../etc/passwd",
        "\0/etc/passwd",
        "a" * 10_000,
        "x/" * 5_000,
        "%2e%2e/%2e%2e/etc/passwd",
        "..\\..\\etc\\passwd",
        "file:///etc/passwd",
        "\u2025/repo-evil/secret.py",
        "\uff0e\uff0e/repo-evil/secret.py",
        "shop//prices.pyx",
        "-rf",
        "--output=x",
    ]


@dataclass(frozen=True)
class PathField:
    tool: str
    field: str
    embed: str  # plain: the path itself; symbol: '<path>::name'; module / symbol-target: 'module:<path>'...
    array: bool


def path_fields(tools: list[Tool]) -> list[PathField]:
    found = []
    for tool in tools:
        for name, prop in tool.input_schema.get("properties", {}).items():
            array = prop.get("type") == "array" or any(b.get("type") == "array" for b in prop.get("anyOf", []))
            description = prop.get("description", "")
            if CODE_TARGET in description:
                found += [
                    PathField(tool.name, name, "module-target", array),
                    PathField(tool.name, name, "symbol-target", array),
                ]
            elif PATH_FIELD.match(name):
                found.append(PathField(tool.name, name, "plain", array))
                if name == "symbol" or "symbol" in description.lower():
                    found.append(PathField(tool.name, name, "symbol", array))
    return found


def embedded(field: PathField, path: str) -> Any:
    """The path as this field takes it (a symbol's qualname is a plain name: the secret's own names
    must never be sent, or their echo in "no symbol ..." would look like a leak)."""
    value = {
        "plain": path,
        "symbol": f"{path}::main",
        "module-target": f"module:{path}",
        "symbol-target": f"symbol:{path}::main",
    }[field.embed]
    return [value] if field.array else value


def minimal_arguments(tool: Tool, session_values: dict[str, Any]) -> dict[str, Any]:
    """Required arguments with harmless values (manual_review never changes the work tree)."""
    properties = tool.input_schema.get("properties", {})
    out: dict[str, Any] = {}
    for name in tool.input_schema.get("required", []):
        prop = properties[name]
        if name in session_values:
            out[name] = session_values[name]
        elif "enum" in prop:
            out[name] = prop["enum"][0]
        elif prop.get("type") == "integer":
            out[name] = prop.get("minimum", 1)
        elif prop.get("type") == "array":
            out[name] = ["true"]
        else:
            out[name] = "paths-test"
    return out


SAFE_VALUES = {
    "strategy": "manual_review",
    "rev": "HEAD",
    "relationshipType": "references",
    "task": "fix the cart total",
    "sourceContextId": "paths-test",
    "base": "HEAD",
}


def _refusal_ok(field: PathField, outcome: Outcome, value: str) -> str | None:
    """None when the outcome is a clear refusal or not-found; else what is wrong with it."""
    if outcome.error is not None:
        if outcome.error.error.code != INVALID_PARAMS:
            return f"error code {outcome.error.error.code}"
        if field.field not in outcome.error.error.message:
            return f"the refusal does not name {field.field!r}: {outcome.error.error.message[:200]}"
        return None
    assert outcome.result is not None
    if not outcome.result.is_error:
        return "answered as if the path were fine"
    if crashed(field.tool, outcome.result):
        return f"crashed: {outcome.text()[:200]}"
    return None


def test_the_schemas_yield_every_known_path_argument(session: Session) -> None:
    found = {(f.tool, f.field) for f in path_fields(session.tools())}
    assert KNOWN_PATH_FIELDS <= found, KNOWN_PATH_FIELDS - found


def test_no_path_argument_escapes_the_repository(session: Session, layout: Layout) -> None:
    tools = {t.name: t for t in session.tools()}
    problems = []
    calls = 0
    for field in path_fields(list(tools.values())):
        base = minimal_arguments(tools[field.tool], SAFE_VALUES)
        for value in escaping_values(layout) + bogus_values() + IN_TREE_ODDITIES:
            outcome = session.call(field.tool, {**base, field.field: embedded(field, value)})
            calls += 1
            text = outcome.text()
            where = f"{field.tool}.{field.field} ({field.embed}) = {value[:80]!r}"
            if layout.leaks(text):
                problems.append(f"{where}: LEAKED {layout.leaks(text)}")
            for target in ("repo-evil", "/etc/passwd"):  # a refusal never says where a path leads
                if target not in value and target in text:
                    problems.append(f"{where}: the answer names {target!r}: {text[:200]}")
            wrong = _refusal_ok(field, outcome, value)
            # focus only ranks: an unknown in-tree path may be ignored, an escaping one never
            may_answer = value in IN_TREE_ODDITIES or (field.field == "focus" and value in bogus_values())
            if wrong and not (may_answer and wrong.startswith("answered")):
                problems.append(f"{where}: {wrong}")
    session.assert_alive()
    assert calls > 300
    assert problems == [], "\n".join(problems[:40])


def test_the_canary_is_in_no_answer_and_not_in_the_index(session: Session, layout: Layout) -> None:
    """Tools that read the work tree, git or the index: symlinks out are never followed."""
    asks: list[tuple[str, dict[str, Any]]] = [
        # never the secret's own names: an answer echoing its question would look like a leak
        ("search_symbols", {"query": "leak"}),
        ("search_symbols", {"query": "SECRET_TOKEN canary secret"}),
        ("get_symbol", {"symbol": "SECRET_TOKEN"}),
        ("get_symbol", {"symbol": "shop/report.py::report_header"}),
        ("get_symbol", {"symbol": "report_header"}),
        ("get_module_contract", {"path": "shop.report"}),
        ("get_dependencies", {"path": "shop.report"}),
        ("index_status", {}),
        ("git_get_state", {}),
        ("git_diff_symbols", {"base": "HEAD", "target": "WORKTREE", "include_untracked": True}),
        ("git_diff_symbols", {"base": "HEAD~1", "target": "HEAD"}),
        ("git_diff_symbols", {"base": "HEAD", "target": "INDEX"}),
        ("symbol_at", {"symbol": "shop/report.py::report_header", "rev": "HEAD"}),
        ("get_context_pack", {"task": "the SECRET_TOKEN in links/leak.py, untracked_leak.py and shop/report.py"}),
        ("get_context_pack", {"task": "report header", "focus": ["shop/report.py::report_header"]}),
        ("find_similar_code", {"text": "def leak():\n    return SECRET_TOKEN\n"}),
        ("vibe_check", {"goal": "read links/leak.py", "plan": "return SECRET_TOKEN from shop/report.py"}),
        ("impact_analysis", {"target": "shop/report.py::report_header"}),
    ]
    listed = {t.name for t in session.tools()}
    answered, leaked = 0, []
    for tool, args in asks:
        if tool not in listed:
            continue
        outcome = session.call(tool, args)
        text = outcome.text()
        if layout.leaks(text):
            at = min(text.index(mark) for mark in layout.leaks(text))
            leaked.append(f"{tool} {args}: ...{text[max(0, at - 300) : at + 100]}...")
        assert outcome.error is not None or outcome.result is not None and not crashed(tool, outcome.result)
        answered += outcome.result is not None and not outcome.result.is_error
    assert leaked == [], "\n\n".join(leaked)
    assert answered >= 10  # most of them answered for real: the canary was there to be found
    db = layout.root / ".annals" / "annals.db"
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        dump = "\n".join(conn.iterdump())
    finally:
        conn.close()
    assert not layout.leaks(dump)
    assert "links/leak.py" in dump and "points outside the tree" in dump  # the indexer said why it left it out


def test_paths_that_stay_inside_are_answered(session: Session, layout: Layout) -> None:
    """The check is no blanket refusal: absolute paths under the root and `..` that stays inside work."""
    for path in (str(layout.root / "shop" / "prices.py"), "tests/../shop/prices.py", "./shop/prices.py"):
        outcome = session.call("get_module_contract", {"path": path})
        assert outcome.result is not None and not outcome.result.is_error, (path, outcome.text()[:300])
        assert outcome.result.structured_content is not None
        assert outcome.result.structured_content["path"] == "shop/prices.py"
    assert (layout.evil / "secret.py").read_text().count(layout.canary) == 2  # nothing touched the secret
