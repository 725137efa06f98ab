"""The wheel's package list is kept by hand (each top folder maps to a `codeannals.*` subpackage);
an editable install reads the folders directly, so only this comparison notices a folder the
list leaves out."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOT_SHIPPED = {"tests", "bench", ".ci", ".git", ".venv", "build"}


def package_folders() -> dict[str, str]:
    """`codeannals.<dotted>` -> folder, for every folder with an `__init__.py` that ships."""
    found = {}
    for init in ROOT.rglob("__init__.py"):
        folder = init.parent.relative_to(ROOT)
        if folder.parts and folder.parts[0] not in NOT_SHIPPED and not folder.parts[0].startswith("."):
            found["codeannals." + ".".join(folder.parts)] = folder.as_posix()
    return found


def test_every_package_folder_is_in_the_wheel_and_nothing_else() -> None:
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    folders = package_folders()
    assert sorted(setuptools["packages"]) == sorted(folders)
    assert setuptools["package-dir"] == folders


def test_every_top_package_says_it_is_typed() -> None:
    tops = {folder.split("/")[0] for folder in package_folders().values()} - {"data"}
    assert tops and all((ROOT / top / "py.typed").is_file() for top in tops)
