"""Where a Python project's packages are: the roots its folders make (`find_python_roots`: the top, a project's
`src/` or `lib/`, the folder holding a top-level package), and where its build settings put them, when that is not
where their folders say (`package_folders`).

A project may install the folder `store/` as the package `codeannals.store` (setuptools' `package-dir`), or
its code may live under a folder that is on `sys.path` only because the settings say so (`package_dir={"":
"python"}`): the folders give the wrong module names, and every absolute import of such a project resolves
to nothing. Read here, statically (no setup.py is run): setuptools' `package-dir` and `packages.find.where`
in pyproject.toml, `package_dir` in setup.cfg and as a literal in setup.py's `setup(...)` call; hatch's wheel
`sources` and `packages`; poetry's `packages` (`from`); pdm's `package-dir`.

Each answer maps a folder of the repository to the dotted package it is installed as, "" for a folder that is
a root (on `sys.path`): {"store": "codeannals.store", "python": ""}.
"""

from __future__ import annotations

import ast
import configparser
import posixpath
import tomllib
from typing import Any

PROJECT_FILES = ("pyproject.toml", "setup.cfg", "setup.py")
_SOURCE_DIRS = ("src", "lib")


def find_python_roots(paths: frozenset[str], package_dirs: frozenset[str]) -> tuple[str, ...]:
    """The directories of the tree that would be on `sys.path`, shallowest first.

    A root is the top, a project (a directory with pyproject.toml, setup.py or setup.cfg) and
    the `src/` or `lib/` of either. Below those, a directory without `__init__.py` is a namespace
    package (`src/opentelemetry/` of `src/opentelemetry/trace/`), never a root. Elsewhere (a tree
    without project metadata at its top) the directory holding a top-level package is a root, as
    it would be on `sys.path` for the package to import: `services/api/` of `services/api/app/`.
    """
    dirs = {""}
    for path in paths:
        directory = posixpath.dirname(path)
        while directory not in dirs:
            dirs.add(directory)
            directory = posixpath.dirname(directory)
    projects = {""} | {posixpath.dirname(p) for p in paths if posixpath.basename(p) in PROJECT_FILES}
    explicit = {
        r
        for p in projects
        for r in (p, *(posixpath.join(p, s) for s in _SOURCE_DIRS))
        if r in dirs and r not in package_dirs
    }
    top_is_project = any(posixpath.basename(p) in PROJECT_FILES and "/" not in p for p in paths)
    fenced = {r for r in explicit if r or top_is_project}
    roots = set(explicit)
    for package in package_dirs:
        parent = posixpath.dirname(package)
        if parent not in package_dirs and not _within_any(parent, fenced):
            roots.add(parent)
    return tuple(sorted(roots, key=lambda r: (r.count("/"), r)))


def has_folder(paths: frozenset[str], folder: str) -> bool:
    """Whether the tree holds a file inside the folder."""
    prefix = f"{folder}/"
    return any(p.startswith(prefix) for p in paths)


def _within_any(path: str, directories: set[str]) -> bool:
    """Whether path is one of the directories or inside one (walking up: a few lookups, not one a directory)."""
    while True:
        if path in directories:
            return True
        if not path:
            return False
        path = posixpath.dirname(path)


def package_folders(name: str, text: str) -> dict[str, str]:
    """The folders (relative to the project's) a project file (one of `PROJECT_FILES`, by `name`) maps to
    packages; {} when it maps none or cannot be read."""
    try:
        read = _pyproject if name == "pyproject.toml" else _setup_cfg if name == "setup.cfg" else _setup_py
        found = read(text)
    except (ValueError, SyntaxError, configparser.Error, RecursionError):
        return {}  # a file we cannot read maps nothing: the folders' own names stand
    return {folder.strip("/") or ".": package.strip(".") for folder, package in found.items() if _dotted(package)}


def _pyproject(text: str) -> dict[str, str]:
    data = tomllib.loads(text)
    tool = _table(data.get("tool"))
    setuptools, hatch = _table(tool.get("setuptools")), _table(tool.get("hatch"))
    out = {str(v): str(k) for k, v in _table(setuptools.get("package-dir")).items() if isinstance(v, str)}
    where = _table(_table(setuptools.get("packages")).get("find")).get("where")
    out.update((w, "") for w in _strings(where))
    wheel = _table(_table(_table(hatch.get("build")).get("targets")).get("wheel"))
    sources = wheel.get("sources")
    if isinstance(sources, dict):  # a source folder -> what it is in the wheel
        out.update((str(k), str(v).replace("/", ".")) for k, v in sources.items() if isinstance(v, str))
    else:  # a list of prefixes dropped: each folder is a root
        out.update((s, "") for s in _strings(sources))
    out.update((posixpath.dirname(p.rstrip("/")), "") for p in _strings(wheel.get("packages")) if "/" in p.rstrip("/"))
    for entry in _list(_table(tool.get("poetry")).get("packages")):
        if isinstance(entry, dict) and isinstance(entry.get("from"), str):
            out[entry["from"]] = ""
    pdm = _table(_table(tool.get("pdm")).get("build")).get("package-dir")
    out.update((p, "") for p in _strings([pdm] if isinstance(pdm, str) else []))
    return out


def _setup_cfg(text: str) -> dict[str, str]:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read_string(text)
    value = parser.get("options", "package_dir", fallback="")
    out: dict[str, str] = {}
    for line in value.replace(";", "\n").splitlines():  # `=src` or `pkg = lib/pkg`, one a line
        package, equals, folder = line.partition("=")
        if equals and folder.strip():
            out[folder.strip()] = package.strip()
    return out


def _setup_py(text: str) -> dict[str, str]:
    """`package_dir=` given as a literal dict to a call (`setup(..., package_dir={"": "src"})`)."""
    if "package_dir" not in text:
        return {}
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Call):
            for keyword in node.keywords:
                if keyword.arg == "package_dir" and isinstance(keyword.value, ast.Dict):
                    try:
                        value = ast.literal_eval(keyword.value)
                    except ValueError:
                        return {}  # computed (`{"": lib_dir}`): not known without running it
                    return {str(v): str(k) for k, v in value.items() if isinstance(v, str)}
    return {}


def _table(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _strings(value: Any) -> list[str]:
    return [v for v in _list(value) if isinstance(v, str) and v.strip("./")]


def _dotted(package: str) -> bool:
    return all(part.isidentifier() for part in package.strip(".").split(".")) or not package.strip(".")
