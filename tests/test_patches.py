"""A test patching our code with a mock (`@patch("app.transports.curl.request")`) does not run it, nor what it reaches
only through it; and a call of an attribute a class of ours does not define (`Check.objects.get()`, a Django model's
manager) is no guess at a module's function of that name."""

from __future__ import annotations

from codeannals.store import queries

from .conftest import Repo, caller_bases, indexed

PROJECT = {
    "lib/__init__.py": "",
    "lib/curl.py": "def request(method, url):\n    return _send(method, url)\n\n\n"
    "def _send(method, url):\n    return None\n\n\ndef get(url):\n    return request('get', url)\n",
    "app/__init__.py": "",
    "app/models.py": "from django.db import models\n\n\nclass Check(models.Model):\n    pass\n",
    "app/transports.py": "from lib import curl\n\n\ndef notify(url):\n    return curl.request('post', url)\n",
    "tests/test_curl.py": "from lib import curl\n\n\ndef test_request():\n    curl.request('get', '/')\n",
    "tests/test_notify.py": "from unittest import TestCase\nfrom unittest.mock import patch\n\n"
    "from app import transports\n\n\n@patch('app.transports.curl.request')\nclass NotifyTestCase(TestCase):\n"
    "    def test_notifies(self, mock_request):\n        transports.notify('/hook')\n\n\n"
    "@patch('app.transports.curl.request')\ndef test_patched(mock_request):\n    transports.notify('/hook')\n\n\n"
    "@patch('app.transports.other')\ndef test_unpatched(mock_other):\n    transports.notify('/hook')\n",
    "tests/test_models.py": "from app.models import Check\nfrom lib import curl\n\n\ndef test_lookup():\n"
    "    Check.objects.get()\n",
}


def test_a_test_patching_code_does_not_run_it_nor_what_it_reaches_through_it(repo: Repo) -> None:
    for path, text in PROJECT.items():
        repo.write(path, text)
    conn = indexed(repo)
    try:
        notified = {
            "tests/test_notify.py::NotifyTestCase::test_notifies",
            "tests/test_notify.py::test_patched",
            "tests/test_notify.py::test_unpatched",
        }
        assert set(queries.impact(conn, "app/transports.py::notify")["tests"]) == notified
        for code in ("lib/curl.py::request", "lib/curl.py::_send"):
            tests = set(queries.impact(conn, code)["tests"])
            assert tests == {"tests/test_curl.py::test_request", "tests/test_notify.py::test_unpatched"}, code
    finally:
        conn.close()


def test_a_missing_attribute_of_a_class_of_ours_is_no_module_function(repo: Repo) -> None:
    for path, text in PROJECT.items():
        repo.write(path, text)
    conn = indexed(repo)
    try:
        assert "tests/test_models.py::test_lookup" not in caller_bases(conn, "lib/curl.py::get")
    finally:
        conn.close()
