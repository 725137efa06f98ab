"""A Django data migration's function is run by the first test using the test database, where Django migrates it:
no code of the project calls it, so it was said untested."""

from __future__ import annotations

from typing import Any

from codeannals.store import queries

from .conftest import Repo, indexed

MIGRATION = (
    "from django.db import migrations\n\n\ndef fill_slug(apps, schema_editor):\n"
    '    Check = apps.get_model("api", "Check")\n    for check in Check.objects.all():\n        check.save()\n\n\n'
    "class Migration(migrations.Migration):\n"
    '    dependencies = [("api", "0001_initial")]\n'
    "    operations = [migrations.RunPython(fill_slug, migrations.RunPython.noop)]\n"
)
PROJECT = {
    "hc/__init__.py": "",
    "hc/api/__init__.py": "",
    "hc/api/migrations/__init__.py": "",
    "hc/api/migrations/0002_fill_slug.py": MIGRATION,
    "hc/test.py": "from django.test import TestCase\n\n\nclass BaseTestCase(TestCase):\n    pass\n",
    "hc/api/tests/__init__.py": "",
    # before the database's tests in path order, and using none
    "hc/api/tests/test_a_plain.py": "from unittest import TestCase\n\n\nclass PlainTestCase(TestCase):\n"
    "    def test_adds(self):\n        assert 1 + 1 == 2\n",
    "hc/api/tests/test_checks.py": "from hc.test import BaseTestCase\n\n\nclass ChecksTestCase(BaseTestCase):\n"
    "    def test_lists(self):\n        pass\n\n    def test_creates(self):\n        pass\n",
}


def _migration_tests(repo: Repo, project: dict[str, str]) -> list[dict[str, Any]]:
    """What `impact` lists for the data migration's function of the project, with each test's basis."""
    for path, text in project.items():
        repo.write(path, text)
    conn = indexed(repo)
    try:
        listed: list[dict[str, Any]] = queries.impact(conn, "hc/api/migrations/0002_fill_slug.py::fill_slug")[
            "tests_basis"
        ]
        return listed
    finally:
        conn.close()


def test_a_data_migration_runs_in_the_first_test_using_the_database(repo: Repo) -> None:
    """The first test pytest runs of a class deriving from Django's TestCase (through the project's own): unittest's
    loader runs a class's tests by name."""
    listed = _migration_tests(repo, PROJECT)
    assert [t["test"] for t in listed] == ["hc/api/tests/test_checks.py::ChecksTestCase::test_creates"]
    assert "migrates the test database" in listed[0]["basis"]


def test_a_pytest_django_test_asks_for_the_database_by_its_mark_or_a_fixture(repo: Repo) -> None:
    """pytest-django's tests use the database when marked `django_db` or given the `db` fixture; a Django project's
    unittest class deriving from unittest's TestCase has none."""
    project = {k: v for k, v in PROJECT.items() if k != "hc/api/tests/test_checks.py"}
    project["hc/api/tests/test_b_marked.py"] = (
        "import pytest\n\n\ndef test_plain():\n    pass\n\n\n@pytest.mark.django_db\ndef test_marked():\n    pass\n"
    )
    project["hc/api/tests/test_c_fixture.py"] = "def test_with_db(db):\n    pass\n"
    assert [t["test"] for t in _migration_tests(repo, project)] == ["hc/api/tests/test_b_marked.py::test_marked"]
