"""pydantic's validators run when their model is made or validated, which no call of the project names."""

from __future__ import annotations

from codeannals.store import queries

from .conftest import Repo, indexed

FILES = {
    "app/__init__.py": "",
    "app/models.py": "from pydantic import BaseModel, field_validator\n\n\nclass Spec(BaseModel):\n    tz: str\n\n"
    '    @field_validator("tz")\n    @classmethod\n    def check_tz(cls, value):\n        return value\n\n'
    "    def describe(self):\n        return self.tz\n\n\nclass Other(BaseModel):\n"
    '    @field_validator("name")\n    @classmethod\n    def check_name(cls, value):\n        return value\n',
    "app/views.py": "from app.models import Spec\n\n\ndef create(data):\n    return Spec.model_validate(data)\n",
    "tests/test_views.py": "from app.views import create\n\n\ndef test_create():\n    create({})\n",
    "tests/test_models.py": "from app import models\n\n\ndef test_nothing():\n    assert models\n",
}


def test_a_validator_runs_where_its_model_is_validated(repo: Repo) -> None:
    """`Spec.model_validate(data)` makes a Spec, and runs its `@field_validator`s: the tests reaching that call are the
    validator's. Another model's validator is not reached by it."""
    for path, text in FILES.items():
        repo.write(path, text)
    conn = indexed(repo)
    try:
        tests = queries.impact(conn, "app/models.py::Spec.check_tz")["tests"]
        assert tests == ["tests/test_views.py::test_create"]
        assert (
            "tests/test_views.py::test_create" not in queries.impact(conn, "app/models.py::Other.check_name")["tests"]
        )
    finally:
        conn.close()
