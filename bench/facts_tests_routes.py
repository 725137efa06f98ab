"""Tests to run for a web app's code, its routes' functions most of all, against the tests that really execute it.

    python bench/facts_tests_routes.py [--cache DIR] [--show N]

A test reaches a Flask or FastAPI route by requesting its path (`client.get("/auth/register")`), never by a call
naming its function. Ground truth, written by no one here, is each app's own suite run under coverage with a context
per test (pytest-cov `--cov-context=test`):
- flaskr, the tutorial app in Flask 3.0.3's sdist (examples/tutorial), in bench/facts_tests.py's venv for Flask;
- FastAPI's documentation apps (docs_src) with their tests (tests/test_tutorial, each test importing its app), at the
  tag 0.115.0 of a `fetch`ed mirror (github:fastapi/fastapi), in a venv of the bench's own with the libraries the
  tag's requirements-tests.txt names;
- the backend of github:fastapi/full-stack-fastapi-template at its tag 0.9.0 (routers under `settings.API_V1_STR`,
  requested as `f"{settings.API_V1_STR}/items/"`), its suite run on SQLite (ON_SQLITE) in a venv of its own.
Each tree is indexed by this checkout (FastAPI's without its docs/ folder of Markdown). Every function of the app code
some test executes is asked (`impact`'s tests, their files), and apart the routes among them: a function a route
decorator names (`@bp.route("/x")`, `@app.get("/items/{id}")`), as Python's own `ast` reads the file.

Printed per app and pooled: recall and precision of the test files (averaged over the functions; an empty list has
precision 1), and "untested, wrongly": functions some test executes for which no test is listed.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import facts_tests  # noqa: E402

FASTAPI_TAG = "0.115.0"
FASTAPI_TOOLS = (  # the tag's requirements-tests.txt, where the tutorial apps' tests need them
    f"fastapi=={FASTAPI_TAG}",
    "pytest==7.4.4",
    "coverage==7.17.4",
    "pytest-cov==6.0.0",
    "httpx==0.24.1",
    "sqlalchemy==1.4.41",
    "databases[sqlite]==0.6.2",
    "flask==2.3.3",
    "anyio[trio]==3.7.1",
    "PyJWT==2.8.0",
    "pyyaml==6.0.2",
    "passlib[bcrypt]==1.7.4",
    "dirty-equals==0.6.0",
    "inline-snapshot==0.13.0",
    "python-multipart==0.0.9",
    "email-validator==2.2.0",
    "orjson==3.10.7",
    "ujson==5.10.0",
    "jinja2==3.1.4",
    "itsdangerous==2.2.0",
    "peewee==3.17.6",
    "pydantic-settings==2.4.0",
)
TEMPLATE_TAG = "0.9.0"
TEMPLATE_TOOLS = (  # its backend's pyproject.toml at the tag (psycopg left out: the suite runs on SQLite here)
    "fastapi[standard]==0.115.6",
    "python-multipart==0.0.20",
    "email-validator==2.2.0",
    "passlib[bcrypt]==1.7.4",
    "bcrypt==4.3.0",
    "tenacity==8.5.0",
    "pydantic==2.10.6",
    "emails==0.6",
    "jinja2==3.1.4",
    "alembic==1.14.1",
    "httpx==0.28.1",
    "sqlmodel==0.0.22",
    "pydantic-settings==2.7.1",
    "sentry-sdk[fastapi]==1.45.1",
    "pyjwt==2.10.1",
    "pytest==7.4.4",
    "coverage==7.17.4",
    "pytest-cov==6.0.0",
)
# The template's suite wants PostgreSQL, which this machine has not: its engine is made on a SQLite file instead, the
# tables its migrations would make are made from its models before the session starts, and a UUID given as text is
# read as PostgreSQL reads it (`session.get(User, token.sub)`). The tree is untouched.
ON_SQLITE = """
import uuid

import sqlmodel
from sqlalchemy.sql import sqltypes

_bind_processor = sqltypes.Uuid.bind_processor


def _text_too(self, dialect):
    process = _bind_processor(self, dialect)
    if process is None:
        return None
    return lambda value: process(uuid.UUID(value) if isinstance(value, str) else value)


sqltypes.Uuid.bind_processor = _text_too

_create_engine = sqlmodel.create_engine


def _on_sqlite(url, *args, **kwargs):
    return _create_engine("sqlite:///bench.sqlite3", connect_args={"check_same_thread": False})


sqlmodel.create_engine = _on_sqlite


def pytest_sessionstart(session):
    import app.models  # noqa: F401
    from app.core.db import engine

    sqlmodel.SQLModel.metadata.create_all(engine)
"""
_ROUTE_DECORATORS = frozenset(
    {"route", "api_route", "get", "post", "put", "delete", "patch", "head", "options", "websocket"}
)


def mirror_tree(cache: Path, mirrors: Path, repo: str, tag: str) -> Path:
    """A `fetch`ed mirror's tree at a tag (`git archive`), kept under the cache."""
    dest = cache / "src" / f"{repo.replace('/', '+')}-{tag}"
    if (dest / ".archived").exists():
        return dest
    git_dir = mirrors / repo.replace("/", "+") / "repo"
    if not git_dir.exists():
        raise SystemExit(f"no mirror at {git_dir}: fetch github:{repo} first")
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    archive = cache / f"{repo.replace('/', '+')}-{tag}.tar"
    facts_tests.run(["git", "--git-dir", str(git_dir), "archive", "-o", str(archive), tag])
    with tarfile.open(archive) as tf:
        tf.extractall(dest, filter="data")
    archive.unlink()
    (dest / ".archived").write_text(tag)
    return dest


def coverage_truth(
    out: Path,
    python: str,
    root: Path,
    package: str,
    tests: str,
    path: tuple[Path, ...] = (),
    run_in: str = "",
    plugin: str | None = None,
) -> dict[str, Any]:
    """{path: {qualname: {line, tests, files}}}: the tests executing each function of `package` (cached in `out`),
    the suite run in the tree's folder `run_in` with it and `path` importable, and with `plugin` (a pytest plugin's
    source, kept out of the tree) loaded."""
    if out.exists():
        return json.loads(out.read_text())
    top = out.with_suffix(".run")
    shutil.rmtree(top, ignore_errors=True)
    shutil.copytree(root, top, ignore=shutil.ignore_patterns("docs"))
    work = top / run_in
    extra: list[str] = []
    if plugin is not None:
        (top / "bench_plugin").mkdir()
        (top / "bench_plugin" / "bench_setup.py").write_text(plugin)
        extra = ["-p", "bench_setup"]
        path = (*path, top / "bench_plugin")
    print(f"running {tests} of {root.name} under coverage...", file=sys.stderr)
    rc = work / "bench.coveragerc"  # not the project's own (FastAPI's asks for contexts of its own, in parallel files)
    rc.write_text("[run]\n")
    proc = subprocess.run(
        [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "ignore::DeprecationWarning"]
        + [*extra, f"--cov={package}", f"--cov-config={rc}", "--cov-context=test", "--cov-report=", tests],
        cwd=work,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([".", *map(str, path)])},
        capture_output=True,
        text=True,
        check=False,
    )
    print(f"  {proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else proc.stderr[-500:]}", file=sys.stderr)
    facts_tests.run(
        [python, "-m", "coverage", "json", f"--rcfile={rc}", "--show-contexts", "-q", "-o", str(work / "cov.json")],
        work,
    )
    report = json.loads((work / "cov.json").read_text())
    truth: dict[str, Any] = {}
    for path, data in report["files"].items():
        for qualname, region in data["functions"].items():
            found = {
                c.split("|")[0].split("[")[0]
                for line in region["executed_lines"]
                for c in data["contexts"].get(str(line), [])
                if c
            }
            if qualname and found:
                truth.setdefault(path, {})[qualname] = {
                    "line": region["start_line"],
                    "tests": sorted(found),
                    "files": sorted({t.split("::")[0] for t in found}),
                }
    out.write_text(json.dumps(truth, indent=1, sort_keys=True))
    shutil.rmtree(top, ignore_errors=True)
    return truth


def route_lines(root: Path, path: str) -> set[int]:
    """The lines (each `def` and each of its decorators) of the functions a route decorator names, by `ast`."""
    try:
        tree = ast.parse((root / path).read_text(errors="replace"))
    except SyntaxError:
        return set()
    lines: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for d in node.decorator_list:
            called = d.func if isinstance(d, ast.Call) else None
            first = d.args[0] if isinstance(d, ast.Call) and d.args else None
            if (
                isinstance(called, ast.Attribute)
                and called.attr in _ROUTE_DECORATORS
                and isinstance(first, ast.Constant)
                and isinstance(first.value, str)
                and first.value.startswith("/")
            ):
                lines.update({node.lineno, *(x.lineno for x in node.decorator_list)})
    return lines


def score_app(name: str, repo: Path, truth: dict[str, Any], show: int) -> dict[str, list[float]]:
    """[recall sum, precision sum, functions, wrongly untested] for every function and for the routes."""
    from codeannals.store import queries
    from codeannals.store.db import connect

    conn = connect(repo / ".annals" / "annals.db")
    sums = {"all": [0.0, 0.0, 0, 0], "routes": [0.0, 0.0, 0, 0]}
    worst: list[tuple[float, str, int, int]] = []
    for path in sorted(truth):
        routes = route_lines(repo, path)
        for qualname, fact in sorted(truth[path].items()):
            symbol = facts_tests.symbol_for(conn, path, qualname, fact["line"])
            if symbol is None:
                continue
            listed = {t.split("::")[0] for t in queries.impact(conn, symbol["id"], root=repo)["tests"]}
            recall, precision = facts_tests.score(listed, set(fact["files"]))
            kinds = ("all", "routes") if fact["line"] in routes else ("all",)
            for kind in kinds:
                s = sums[kind]
                s[0] += recall
                s[1] += precision
                s[2] += 1
                s[3] += not listed
            worst.append((recall, f"{path}::{qualname}", len(fact["files"]), len(listed)))
    conn.close()
    print_sums(name, sums)
    for recall, where, executing, listed in sorted(worst)[:show]:
        print(f"    recall {recall:.2f}: {where} (executed by {executing} test files; {listed} listed)")
    return sums


def print_sums(name: str, sums: dict[str, list[float]]) -> None:
    print(f"{name}:")
    for kind, s in sums.items():
        n = max(s[2], 1)
        print(f"  {kind:<7} {int(s[2]):4d} functions  recall {s[0] / n:.3f}  precision {s[1] / n:.3f}", end="")
        print(f"  untested, wrongly {int(s[3])}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=facts_tests.default_cache())
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--show", type=int, default=0, help="the N functions of each app with the lowest recall")
    args = parser.parse_args()
    cache: Path = args.cache.resolve()
    apps = []

    flask = facts_tests.source(cache, "Flask", "3.0.3", facts_tests.bench_python(cache))
    tutorial = flask / "examples" / "tutorial"
    python = facts_tests.bench_python(cache, "Flask")  # Flask's dependencies; Flask itself from its sdist's src/
    truth = coverage_truth(cache / "truth-flaskr-3.0.3-v1.json", python, tutorial, "flaskr", "tests", (flask / "src",))
    apps.append(
        ("flaskr (Flask 3.0.3's tutorial)", facts_tests.indexed_copy(cache, "flaskr", "3.0.3", tutorial), truth)
    )

    source = mirror_tree(cache, args.mirrors, "fastapi/fastapi", FASTAPI_TAG)
    truth = coverage_truth(
        cache / f"truth-fastapi-docs-{FASTAPI_TAG}-v1.json",
        facts_tests.venv_python(cache / "venv-fastapi", FASTAPI_TOOLS),
        source,
        "docs_src",
        "tests/test_tutorial",
    )
    repo = facts_tests.indexed_copy(cache, "fastapi-docs", FASTAPI_TAG, source, leave_out=("docs",))
    apps.append((f"FastAPI {FASTAPI_TAG}'s docs_src", repo, truth))

    template = mirror_tree(cache, args.mirrors, "fastapi/full-stack-fastapi-template", TEMPLATE_TAG)
    truth = coverage_truth(
        cache / f"truth-fastapi-template-{TEMPLATE_TAG}-v1.json",
        facts_tests.venv_python(cache / "venv-fastapi-template", TEMPLATE_TOOLS),
        template,
        "app",
        "tests",
        run_in="backend",
        plugin=ON_SQLITE,
    )
    repo = facts_tests.indexed_copy(cache, "fastapi-template", TEMPLATE_TAG, template / "backend")
    apps.append((f"full-stack-fastapi-template {TEMPLATE_TAG}'s backend", repo, truth))

    pooled = {"all": [0.0, 0.0, 0, 0], "routes": [0.0, 0.0, 0, 0]}
    for name, repo, truth in apps:
        for kind, s in score_app(name, repo, truth, args.show).items():
            pooled[kind] = [a + b for a, b in zip(pooled[kind], s, strict=True)]
    print_sums("pooled", pooled)


if __name__ == "__main__":
    main()
