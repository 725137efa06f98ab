"""Static checks run with the tests: ruff's security rules (bandit), mypy and the layers contract
(import-linter, in pyproject.toml), with no findings."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CODE = ["indexer", "store", "server", "hooks"]


def test_ruff_finds_nothing() -> None:
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", *CODE, "bench", "tests"], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy_finds_nothing(tmp_path: Path) -> None:
    # mypy reads source trees, not editable-install finders: give it a `codeannals` to import.
    (tmp_path / "codeannals").symlink_to(ROOT, target_is_directory=True)
    packages = [arg for name in CODE for arg in ("-p", f"codeannals.{name}")]
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), "--explicit-package-bases",
         "--cache-dir", str(tmp_path / "cache"), *packages],
        cwd=tmp_path, capture_output=True, text=True, env={**os.environ, "MYPYPATH": str(tmp_path)})
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_imports_point_down_the_layers_only() -> None:
    lint_imports = Path(sys.executable).parent / "lint-imports"
    proc = subprocess.run([str(lint_imports)], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
