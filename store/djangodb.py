"""What Django's test database runs: every migration, before the first test using the database.

A data migration's function (`migrations.RunPython(fill_slug)` in a `Migration` class's `operations`) is called by no
code of the project: Django migrates the test database when a test run first needs it, so the first test using the
database runs every migration, and any such test run alone does too. That test is what to run for a migration's code.

The tests using the database are the test methods of classes deriving from django.test's TestCase,
TransactionTestCase or LiveServerTestCase (or Django REST framework's APITestCase and its kin), directly or through
the project's own classes, and pytest-django's tests marked `django_db` or taking a database fixture. The first is the
first pytest collects: files in path order, a unittest class's methods in the order of their names (unittest's loader
sorts them), a pytest function in the order of the file. (pytest-django runs Django's TestCase tests and those marked
without transactions first, keeping that order: a suite mixing them may first migrate for a later file's test.)

bench/facts_tests_routes.py, Healthchecks v3.9 (21 data migrations), its 2,363 functions' recall / precision / said
untested: 0.981 / 0.820 / 28 -> 0.990 / 0.820 / 7; the other apps the same."""

from __future__ import annotations

import re
import sqlite3
from pathlib import PurePosixPath

from .db import held_while_unchanged, stored_list
from .suite import SuiteFiles, is_pytest_file, is_test_name
from .symbol import SymbolRow
from .typenames import base_names

MIGRATES = "migrates the test database"  # a test's basis: the first using the database, where Django migrates it

# Django's test cases using the test database, and the modules giving them (a `SimpleTestCase` has none)
_DATABASE_CASES = frozenset(
    {
        "TestCase",
        "TransactionTestCase",
        "LiveServerTestCase",
        "StaticLiveServerTestCase",
        "APITestCase",
        "APITransactionTestCase",
        "APILiveServerTestCase",
    }
)
_DATABASE_CASE_MODULES = ("django.test", "django.contrib.staticfiles.testing", "rest_framework.test")
# pytest-django's ways for a test to ask for the database
_DATABASE_MARK = re.compile(r"\bmark\.django_db\b")
_DATABASE_FIXTURES = frozenset({"db", "transactional_db", "django_db_setup", "admin_user", "admin_client"})


def is_migration(symbol: SymbolRow) -> bool:
    """A Django migration: the `Migration` class of a module of a `migrations` package."""
    return (
        symbol["kind"] == "class"
        and symbol["name"] == "Migration"
        and symbol["parent"] is None
        and "migrations" in PurePosixPath(symbol["path"]).parts[:-1]
        and any(b.rpartition(".")[2] == "Migration" for b in base_names(symbol.get("signature") or ""))
    )


def first_database_test(conn: sqlite3.Connection, files: SuiteFiles) -> tuple[str, str] | None:
    """(node id, file) of the first test of the suite using Django's test database, if any."""
    return held_while_unchanged(conn, "first database test", lambda: _first_database_test(conn, files))


def _first_database_test(conn: sqlite3.Connection, files: SuiteFiles) -> tuple[str, str] | None:
    cases = _database_cases(conn)
    for path in files.test_files():
        if not is_pytest_file(path):
            continue
        rows = conn.execute(
            "SELECT id, name, kind, parent, decorators, params FROM symbols WHERE path = ? ORDER BY start_line", (path,)
        ).fetchall()
        classes = {r["id"]: r for r in rows if r["kind"] == "class" and r["parent"] is None}
        tests = [r for r in rows if r["kind"] in ("function", "method") and is_test_name(r["name"])]
        for test in tests:  # in the file's order
            holder = classes.get(test["parent"] or "")
            if test["parent"] is None and _asks_for_database(test, None):
                return f"{path}::{test['name']}", path
            if holder is not None and holder["name"] in cases:  # unittest's loader runs a class's tests by name
                first = min(t["name"] for t in tests if t["parent"] == holder["id"])
                return f"{path}::{holder['name']}::{first}", path
            if holder is not None and _asks_for_database(test, holder):
                return f"{path}::{holder['name']}::{test['name']}", path
    return None


def _asks_for_database(test: sqlite3.Row, holder: sqlite3.Row | None) -> bool:
    """A pytest test marked `django_db` (or in a class so marked) or taking a database fixture."""
    marks = [*stored_list(test["decorators"]), *(stored_list(holder["decorators"]) if holder is not None else [])]
    params = {str(p).split(":")[0].split("=")[0].strip() for p in stored_list(test["params"])}
    return any(_DATABASE_MARK.search(str(m)) for m in marks) or bool(params & _DATABASE_FIXTURES)


def _database_cases(conn: sqlite3.Connection) -> frozenset[str]:
    """The names of the project's classes deriving from Django's database test cases: a base its file imports from
    Django, or one of the project's classes so deriving."""
    from_django: dict[str, set[str]] = {}  # per file, the database test cases it imports
    for r in conn.execute("SELECT path, module, names FROM resolved_imports"):
        if str(r["module"]).startswith(_DATABASE_CASE_MODULES):
            names = {str(n) for n in stored_list(r["names"])} & _DATABASE_CASES
            from_django.setdefault(r["path"], set()).update(names)
    classes = [
        (r["name"], r["path"], {b.rpartition(".")[2] for b in base_names(r["signature"] or "")})
        for r in conn.execute("SELECT name, path, signature FROM symbols WHERE kind = 'class'")
    ]
    found = {name for name, path, bases in classes if bases & from_django.get(path, set())}
    while more := {name for name, _, bases in classes if name not in found and found & bases}:
        found |= more
    return frozenset(found)
