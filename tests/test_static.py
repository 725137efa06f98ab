"""Static checks run with the tests: ruff's security rules (bandit) and its formatter, mypy and the layers contract
(import-linter, in pyproject.toml), with no findings."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CODE = ["indexer", "store", "server", "hooks"]


def test_ruff_finds_nothing() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "ruff", "check", *CODE, "bench", "tests"], cwd=ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_tree_is_formatted_by_ruff() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "."], cwd=ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 0, "run `ruff format .`:\n" + proc.stdout + proc.stderr


def test_mypy_finds_nothing(tmp_path: Path) -> None:
    # mypy reads source trees, not editable-install finders: give it a `codeannals` to import.
    (tmp_path / "codeannals").symlink_to(ROOT, target_is_directory=True)
    packages = [arg for name in CODE for arg in ("-p", f"codeannals.{name}")]
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--explicit-package-bases",
            "--cache-dir",
            str(tmp_path / "cache"),
            *packages,
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "MYPYPATH": str(tmp_path)},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_imports_point_down_the_layers_only() -> None:
    lint_imports = Path(sys.executable).parent / "lint-imports"
    proc = subprocess.run([str(lint_imports)], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


# SQL naming a table after one of these words: what a statement reads or writes.
_SQL_TABLE = re.compile(r"\b(?:FROM|JOIN|INTO|UPDATE)\s+([a-z_]+)\b")


def tables_named(source: str, tables: set[str]) -> set[str]:
    """The tables among `tables` that SQL in `source` reads or writes."""
    return {name for name in _SQL_TABLE.findall(source) if name in tables}


def test_sql_on_the_log_and_the_projections_lives_in_store() -> None:
    """The indexer, the hooks and the server read the log and the projections through named functions of
    store/; SQL of their own goes only to their own tables (stat_cache, index_settings, blob_facts; the
    vectors' vector_progress and embedding_cache)."""
    from codeannals.store.projections import CORE

    tables = {t for p in CORE for t in p.tables} | {"events", "projection_state", "resolved_imports"}
    assert tables_named('conn.execute("SELECT path FROM files WHERE status = ?")', tables) == {"files"}
    assert not tables_named('conn.execute("SELECT * FROM stat_cache")', tables)
    found = {
        str(path.relative_to(ROOT)): named
        for folder in ("indexer", "hooks", "server")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if (named := tables_named(path.read_text(encoding="utf-8"), tables))
    }
    assert not found, f"SQL on the log or a projection outside store/ (give store/ a function for it): {found}"


def import_circles(imports: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan): each is an import circle."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(module: str) -> None:
        order[module] = low[module] = len(order)
        stack.append(module)
        for target in sorted(imports.get(module, ())):
            if target not in order:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], order[target])
        if low[module] == order[module]:
            component = []
            while (member := stack.pop()) != module:
                component.append(member)
            if component:
                circles.append(sorted([module, *component]))

    for module in sorted(imports):
        if module not in order:
            visit(module)
    return circles


def test_import_circles_found_by_tarjan() -> None:
    assert import_circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert import_circles({"a": {"b"}, "b": set()}) == []


def test_no_module_is_in_an_import_circle() -> None:
    """server/cli.py <-> server/commands and store/queries <-> graph/testmap/ranking were circles; an
    import inside a function counts (it is an edge all the same), one under TYPE_CHECKING does not."""
    import grimp

    graph = grimp.build_graph(*(f"codeannals.{name}" for name in CODE), exclude_type_checking_imports=True)
    imports = {m: graph.find_modules_directly_imported_by(m) for m in graph.modules}
    circles = import_circles(imports)
    assert not circles, "import circles (move what both sides need into a module below them):\n" + "\n".join(
        " <-> ".join(circle) for circle in circles
    )
