"""A click or Typer command a test runs by its name on a command line (`runner.invoke(cli, ["pack"])`) is called
by that test: no call names its function, so it was "untested" and impact missed the test."""

from __future__ import annotations

from codeannals.store import queries, testmap

from .conftest import Repo, caller_bases, indexed

CLI = "import click\n\n\n@click.group()\ndef cli():\n    pass\n"
COMMANDS = (
    "import click\n\nfrom .cli import cli\n\n\n@cli.command()\ndef pack():\n    pass\n\n\n"
    '@cli.command("diff-symbols")\ndef diff_symbols():\n    pass\n\n\n'
    "@cli.group()\ndef hooks():\n    pass\n\n\n"
    '@hooks.command(name="status")\ndef hooks_status():\n    pass\n\n\n'
    "@cli.command()\ndef show_command():\n    pass\n\n\n"
    '@click.command("routes")\ndef routes_command():\n    pass\n\n\n'
    "cli.add_command(routes_command)\n"
)
GROUP = (
    "import click\n\n\n@click.command()\ndef serve():\n    pass\n\n\n"
    "class Group(click.Group):\n    def __init__(self, **extra):\n        super().__init__(**extra)\n"
    "        self.add_command(serve)\n"
)
OTHER = "def status():\n    pass\n\n\ndef pack():\n    pass\n"
TESTS = (
    "from click.testing import CliRunner\n\nfrom pkg.cli import cli\nfrom pkg.group import Group\n\n\n"
    'def test_pack():\n    CliRunner().invoke(cli, ["--repo", ".", "pack", "a task"])\n\n\n'
    'def test_hooks_status():\n    CliRunner().invoke(cli, "hooks status --json")\n\n\n'
    'def test_diff():\n    runner = CliRunner()\n    runner.invoke(cli, args=["diff-symbols", "HEAD"])\n\n\n'
    'def test_show():\n    CliRunner().invoke(cli, ("show",))\n\n\n'
    'def test_routes():\n    CliRunner().invoke(cli, ["routes"])\n\n\n'
    'def test_serve():\n    CliRunner().invoke(Group(), ["serve"])\n\n\n'
    'def test_no_such_command():\n    CliRunner().invoke(cli, ["status", "unknown"])\n'
)


def test_a_command_run_by_name_is_called_by_the_test_running_it(repo: Repo) -> None:
    """A command is its decorator's (`@cli.command("diff-symbols")`, `name="status"`) or its function's name as
    click derives it (`show_command` -> `show`), in the group its decorator names, or the group that the word
    before named (`hooks status`); one handed to a group's `add_command` (at the top level, or by a class of groups
    on `self`) too. A word naming no command of the group (`status` of `cli`) calls nothing, not a same-named
    function (pkg/other.py's `status`), nor the `pack` of other.py, which is no command."""
    repo.write("pkg/__init__.py", "")
    repo.write("pkg/cli.py", CLI)
    repo.write("pkg/commands.py", COMMANDS)
    repo.write("pkg/group.py", GROUP)
    repo.write("pkg/other.py", OTHER)
    repo.write("tests/test_cli.py", TESTS)
    conn = indexed(repo)
    try:
        run = "runs the command by name"
        expected = {
            "pkg/commands.py::pack": "tests/test_cli.py::test_pack",
            "pkg/commands.py::hooks_status": "tests/test_cli.py::test_hooks_status",
            "pkg/commands.py::diff_symbols": "tests/test_cli.py::test_diff",
            "pkg/commands.py::show_command": "tests/test_cli.py::test_show",
            "pkg/commands.py::routes_command": "tests/test_cli.py::test_routes",
            "pkg/group.py::serve": "tests/test_cli.py::test_serve",
        }
        for command, test in expected.items():
            assert caller_bases(conn, command).get(test) == run, command
        assert caller_bases(conn, "pkg/commands.py::hooks").get("tests/test_cli.py::test_hooks_status") == run
        assert not any(c.startswith("tests/") for c in caller_bases(conn, "pkg/other.py::status"))
        assert not any(c.startswith("tests/") for c in caller_bases(conn, "pkg/other.py::pack"))
        tests = testmap.tests_for_module(conn, "pkg/commands.py", enough=12)
        assert {t.test for t in tests} >= {"tests/test_cli.py::test_pack", "tests/test_cli.py::test_diff"}
        pack = next(t for t in tests if t.test == "tests/test_cli.py::test_pack")
        assert pack.basis.startswith("runs pack as a command"), pack.basis
        callees = queries.callees(conn, queries.find_symbol(conn, "tests/test_cli.py::test_hooks_status"))
        assert {(c["name"], c["target"]) for c in callees} >= {
            ("hooks", "pkg/commands.py::hooks"),
            ("status", "pkg/commands.py::hooks_status"),
        }
    finally:
        conn.close()
