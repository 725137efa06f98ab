"""Python imports resolve as Python finds modules: roots from the layout (the top, projects, `src/`,
namespace packages), the standard library before any file of the tree, relative imports from
the package, a script's own folder. End to end through index_tree on real repositories."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from codeannals.indexer.parsing.resolve import Layout, candidates, module_name
from codeannals.indexer.run import index_tree
from codeannals.store import open_store, queries
from codeannals.store.maintenance import verify

from .conftest import Repo


def _index(repo: Repo, db_path: Path, files: dict[str, str]) -> sqlite3.Connection:
    for rel, text in files.items():
        repo.write(rel, text)
    repo.commit("a python project")
    conn = open_store(db_path)
    report = index_tree(repo.root, conn)
    assert report.skipped == 0, report.skips
    return conn


def test_a_package_module_named_like_the_stdlib_is_reached_only_through_its_package(repo: Repo, db_path: Path) -> None:
    conn = _index(
        repo,
        db_path,
        {
            "pyproject.toml": '[project]\nname = "pkg"\n',
            "src/pkg/__init__.py": "",
            "src/pkg/types.py": "class ParamType:\n    pass\n",
            "src/pkg/yaml.py": "def load(text):\n    return text\n",
            "src/pkg/_compat.py": "from types import TracebackType\nimport types\nimport yaml\n",
            "src/pkg/relative.py": "from . import types\n",
            "src/pkg/qualified.py": "from pkg import types\n",
            "src/pkg/dotted.py": "import pkg.types\n",
            "src/pkg/named.py": "from pkg.types import ParamType\n",
            "tests/test_types.py": "from pkg.types import ParamType\nfrom types import SimpleNamespace\n",
        },
    )
    assert queries.dependents(conn, "src/pkg/types.py") == [
        "src/pkg/dotted.py",
        "src/pkg/named.py",
        "src/pkg/qualified.py",
        "src/pkg/relative.py",
        "tests/test_types.py",
    ]
    assert queries.dependents(conn, "src/pkg/yaml.py") == []  # `import yaml`: installed
    unresolved = {
        r[0]
        for r in conn.execute(
            "SELECT module FROM resolved_imports WHERE path = 'src/pkg/_compat.py' AND target IS NULL"
        )
    }
    assert unresolved == {"types", "yaml"}


def test_a_script_finds_the_modules_beside_it_but_not_over_the_stdlib(repo: Repo, db_path: Path) -> None:
    conn = _index(
        repo,
        db_path,
        {
            "scripts/release.py": "import helpers\nimport json\n",
            "scripts/helpers.py": "def tag():\n    return 1\n",
            "scripts/json.py": "def dumps(x):\n    return x\n",
            "app/__init__.py": "",
            "app/cli.py": "import helpers\n",  # a module of a package: its folder is not on sys.path
            "app/helpers.py": "",
        },
    )
    assert queries.dependents(conn, "scripts/helpers.py") == ["scripts/release.py"]
    assert queries.dependents(conn, "scripts/json.py") == []
    assert queries.dependents(conn, "app/helpers.py") == []


def test_a_root_folder_is_also_a_namespace_package_from_the_top(repo: Repo, db_path: Path) -> None:
    conn = _index(
        repo,
        db_path,
        {
            "src/models.py": "class User:\n    pass\n",
            "src/service.py": "from src.models import User\n",
            "lib/helpers.py": "def slug(t):\n    return t\n",
            "tests/test_service.py": "from src.service import User\nfrom lib.helpers import slug\n",
        },
    )
    assert queries.dependents(conn, "src/models.py") == ["src/service.py", "tests/test_service.py"]
    assert queries.dependents(conn, "lib/helpers.py") == ["tests/test_service.py"]


def test_an_import_of_the_module_itself_is_no_edge_to_its_package(repo: Repo, db_path: Path) -> None:
    conn = _index(
        repo,
        db_path,
        {
            "rich/__init__.py": "",
            "rich/box.py": "if __name__ == '__main__':\n    from . import box as box\n",
        },
    )
    assert queries.dependents(conn, "rich/__init__.py") == []


def test_each_example_project_imports_its_own_module_of_a_shared_name(repo: Repo, db_path: Path) -> None:
    conn = _index(
        repo,
        db_path,
        {
            "pyproject.toml": '[project]\nname = "lib"\n',
            "examples/todo/pyproject.toml": '[project]\nname = "todo"\n',
            "examples/todo/main.py": "from app import run\n",
            "examples/todo/app.py": "def run():\n    pass\n",
            "examples/blog/pyproject.toml": '[project]\nname = "blog"\n',
            "examples/blog/main.py": "from app import run\n",
            "examples/blog/app.py": "def run():\n    pass\n",
        },
    )
    assert queries.dependents(conn, "examples/blog/app.py") == ["examples/blog/main.py"]
    assert queries.dependents(conn, "examples/todo/app.py") == ["examples/todo/main.py"]


def test_a_name_taken_through_a_package_leads_to_the_module_defining_it(repo: Repo, db_path: Path) -> None:
    conn = _index(
        repo,
        db_path,
        {
            "pyproject.toml": '[project]\nname = "pkg"\n',
            "src/pkg/__init__.py": "from .core import Command\nfrom .core import group as make_group\n",
            "src/pkg/core.py": "class Command:\n    pass\n\n\ndef group():\n    pass\n",
            "src/pkg/_impl.py": "def getchar():\n    pass\n",
            "src/pkg/termui.py": "def getchar():\n    from ._impl import getchar\n    return getchar()\n",
            "src/pkg/cli/__init__.py": "from pkg import Command\n",  # two hops: pkg, then pkg.core
            "app.py": "from pkg import Command\nimport pkg\n",
            "tool.py": "from pkg.cli import Command\n",  # three hops
            "alias.py": "from pkg import make_group\nfrom pkg.termui import getchar\n",
        },
    )
    taken = {r[0]: r[1] for r in conn.execute("SELECT names, origin FROM imports WHERE path = 'alias.py'")}
    assert taken == {
        '["make_group"]': "src/pkg/core.py",  # bound as make_group, defined as group
        '["getchar"]': "src/pkg/termui.py",
    }  # its own getchar: the import is inside it
    origins = {
        (r["path"], r["module"], r["names"]): (r["target"], r["origin"])
        for r in conn.execute(
            "SELECT path, module, names, target, origin FROM resolved_imports WHERE path IN ('app.py', 'tool.py')"
        )
    }
    assert origins == {
        ("app.py", "pkg", '["Command"]'): ("src/pkg/__init__.py", "src/pkg/core.py"),
        ("app.py", "pkg", "[]"): ("src/pkg/__init__.py", "src/pkg/__init__.py"),
        ("tool.py", "pkg.cli", '["Command"]'): ("src/pkg/cli/__init__.py", "src/pkg/core.py"),
    }
    assert queries.dependents(conn, "src/pkg/core.py") == [
        "alias.py",
        "app.py",
        "src/pkg/__init__.py",
        "src/pkg/cli/__init__.py",
        "tool.py",
    ]
    assert {
        "target": "src/pkg/core.py",
        "kind": "file",
        "line": 1,
        "names": ["Command"],
        "via": "src/pkg/__init__.py",
    } in queries.dependencies(conn, "app.py")

    repo.write("src/pkg/__init__.py", "class Command:\n    pass\n")  # now defined in the package itself
    index_tree(repo.root, conn)
    assert queries.dependents(conn, "src/pkg/core.py") == []
    assert queries.dependents(conn, "src/pkg/__init__.py") == [
        "alias.py",
        "app.py",
        "src/pkg/cli/__init__.py",
        "tool.py",
    ]
    assert conn.execute("SELECT origin FROM imports WHERE path = 'tool.py'").fetchone()[0] == "src/pkg/__init__.py"
    assert verify(conn)["ok"]  # a replay of the log gives the same origins
    conn.close()


def _modules(paths: list[str]) -> dict[str, str]:
    layout = Layout.of(paths)
    return {p: module_name(p, "python", layout) for p in paths if p.endswith(".py")}


def test_roots_from_the_layout_src_flat_and_projects() -> None:
    assert _modules(
        ["pyproject.toml", "src/click/__init__.py", "src/click/types.py", "tests/conftest.py", "docs/conf.py"]
    ) == {
        "src/click/__init__.py": "click",
        "src/click/types.py": "click.types",
        "tests/conftest.py": "tests.conftest",
        "docs/conf.py": "docs.conf",
    }
    assert _modules(["setup.py", "rich/__init__.py", "rich/box.py", "tests/__init__.py", "tests/test_box.py"]) == {
        "setup.py": "setup",
        "rich/__init__.py": "rich",
        "rich/box.py": "rich.box",
        "tests/__init__.py": "tests",
        "tests/test_box.py": "tests.test_box",
    }
    # No project metadata at the top: the folder holding a top-level package is where Python finds it.
    assert _modules(["services/api/app/__init__.py", "services/api/app/db.py"]) == {
        "services/api/app/__init__.py": "app",
        "services/api/app/db.py": "app.db",
    }
    # A project of its own below the top: its folder and its src/ are roots.
    assert _modules(["pyproject.toml", "plugins/tool/pyproject.toml", "plugins/tool/src/tool/__init__.py"]) == {
        "plugins/tool/src/tool/__init__.py": "tool"
    }


def test_namespace_packages_are_packages_not_roots() -> None:
    assert _modules(
        [
            "pyproject.toml",
            "src/opentelemetry/trace/__init__.py",
            "src/opentelemetry/trace/span.py",
            "src/opentelemetry/sdk/metrics/__init__.py",
        ]
    ) == {
        "src/opentelemetry/trace/__init__.py": "opentelemetry.trace",  # not the standard library's `trace`
        "src/opentelemetry/trace/span.py": "opentelemetry.trace.span",
        "src/opentelemetry/sdk/metrics/__init__.py": "opentelemetry.sdk.metrics",
    }
    assert _modules(["pyproject.toml", "sphinxcontrib/applehelp/__init__.py"]) == {
        "sphinxcontrib/applehelp/__init__.py": "sphinxcontrib.applehelp"
    }


def test_python_candidates_follow_absolute_and_relative_imports() -> None:
    layout = Layout.of(
        ["pyproject.toml", "src/pkg/__init__.py", "src/pkg/types.py", "src/pkg/sub/__init__.py", "src/pkg/sub/leaf.py"]
    )

    def python(module: str, names: list[str], path: str, level: int = 0) -> list[str]:
        return candidates(
            {"module": module, "names": names, "kind": "from", "level": level, "line": 1}, path, "python", layout
        )

    assert python("types", ["TracebackType"], "src/pkg/__init__.py") == []  # the standard library
    assert python("os.path", ["join"], "src/pkg/types.py") == []
    assert python("pkg", ["types"], "src/pkg/sub/leaf.py") == ["module:pkg.types", "module:pkg"]
    assert python("", ["types"], "src/pkg/sub/leaf.py", level=2) == ["module:pkg.types", "module:pkg"]
    assert python("types", ["ParamType"], "src/pkg/sub/leaf.py", level=2) == [
        "module:pkg.types.ParamType",
        "module:pkg.types",
    ]
    assert python("", ["leaf"], "src/pkg/sub/__init__.py", level=1) == ["module:pkg.sub.leaf", "module:pkg.sub"]


def _installed(files: dict[str, str]) -> dict[str, str]:
    layout = Layout.of(files, files.get)
    return {p: module_name(p, "python", layout) for p in files if p.endswith(".py") and p != "setup.py"}


def test_folders_the_build_settings_install_under_other_names() -> None:
    # setuptools' package-dir in pyproject.toml: each folder is a subpackage of a namespace package
    pyproject = '[tool.setuptools.package-dir]\n"acme.core" = "core"\n"acme.cli" = "tools/cli"\n'
    assert _installed(
        {
            "pyproject.toml": pyproject,
            "core/__init__.py": "",
            "core/db/rows.py": "",
            "tools/cli/main.py": "",
            "t.py": "",
        }
    ) == {
        "core/__init__.py": "acme.core",
        "core/db/rows.py": "acme.core.db.rows",
        "tools/cli/main.py": "acme.cli.main",
        "t.py": "t",  # outside them: named by the folders
    }
    # a root no heuristic knows, from setup.cfg, from a literal in setup.py, from hatch's and poetry's settings
    assert _installed({"setup.cfg": "[options]\npackage_dir =\n    =lib3\n", "lib3/yaml/__init__.py": ""}) == {
        "lib3/yaml/__init__.py": "yaml"
    }
    setup = 'from setuptools import setup\nsetup(name="x", package_dir={"": "python"})\n'
    assert _installed({"setup.py": setup, "python/grpc/_channel.py": ""}) == {
        "python/grpc/_channel.py": "grpc._channel"
    }
    hatch = '[tool.hatch.build.targets.wheel.sources]\n"code" = "pkg"\n'
    assert _installed({"pyproject.toml": hatch, "code/api.py": ""}) == {"code/api.py": "pkg.api"}
    poetry = '[tool.poetry]\npackages = [{ include = "app", from = "source" }]\n'
    assert _installed({"pyproject.toml": poetry, "source/app/__init__.py": ""}) == {"source/app/__init__.py": "app"}
    # what cannot be read without running it, or at all, maps nothing: the folders' names stand
    computed = 'import sys\nsetup(package_dir={"": "lib" + str(sys.version_info[0])})\n'
    assert _installed({"setup.py": computed, "lib3/yaml/__init__.py": ""}) == {"lib3/yaml/__init__.py": "lib3.yaml"}
    assert _installed({"pyproject.toml": "[tool.setuptools\n", "core/a.py": ""}) == {"core/a.py": "core.a"}


def test_imports_of_a_package_its_settings_place_in_another_folder_resolve(repo: Repo, db_path: Path) -> None:
    # This repository's own layout: `store/` installed as `codeannals.store`. Before, every such import
    # resolved to nothing, and a test's call reached any function of that name.
    conn = _index(
        repo,
        db_path,
        {
            "pyproject.toml": '[project]\nname = "acme"\n[tool.setuptools.package-dir]\n"acme.core" = "core"\n',
            "core/__init__.py": "",
            "core/names.py": "def module_name(path):\n    return path.split('/')[-1]\n",
            "other/__init__.py": "",
            "other/names.py": "def module_name(path):\n    return path\n",
            "tests/test_names.py": (
                "from acme.core.names import module_name\n\n\ndef test_module_name():\n"
                "    assert module_name('a/b') == 'b'\n"
            ),
        },
    )
    assert queries.dependents(conn, "core/names.py") == ["tests/test_names.py"]
    assert queries.impact(conn, "core/names.py::module_name")["tests"] == ["tests/test_names.py::test_module_name"]
    assert "tests/test_names.py::test_module_name" not in queries.impact(conn, "other/names.py::module_name")["tests"]
    conn.close()


def test_an_edit_of_the_settings_names_the_unchanged_files_again(repo: Repo, db_path: Path) -> None:
    files = {
        "pyproject.toml": '[project]\nname = "acme"\n',
        "core/__init__.py": "",
        "core/names.py": "def short(path):\n    return path\n",
        "tests/test_names.py": "from acme.core.names import short\n",
    }
    conn = _index(repo, db_path, files)
    assert queries.dependents(conn, "core/names.py") == []  # `acme` is installed from elsewhere, as far as we know
    repo.write("pyproject.toml", files["pyproject.toml"] + '[tool.setuptools.package-dir]\n"acme.core" = "core"\n')
    repo.commit("install core/ as acme.core")
    index_tree(repo.root, conn)
    assert queries.dependents(conn, "core/names.py") == ["tests/test_names.py"]
    assert verify(conn)["ok"]
    conn.close()
