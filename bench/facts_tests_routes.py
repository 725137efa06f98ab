"""Tests to run for a web app's code, its routes' functions most of all, against the tests that really execute it.

    python bench/facts_tests_routes.py [--cache DIR] [--show N]

A test reaches a Flask, FastAPI or Django route by requesting its path (`client.get("/auth/register")`) or its name
(`reverse("authors")`), never by a call naming its function. Ground truth, written by no one here, is each app's own
suite run under coverage with a context per test (pytest-cov `--cov-context=test`):
- flaskr, the tutorial app in Flask 3.0.3's sdist (examples/tutorial), in bench/facts_tests.py's venv for Flask;
- FastAPI's documentation apps (docs_src) with their tests (tests/test_tutorial, each test importing its app), at the
  tag 0.115.0 of a `fetch`ed mirror (github:fastapi/fastapi), in a venv of the bench's own with the libraries the
  tag's requirements-tests.txt names;
- the backend of github:fastapi/full-stack-fastapi-template at its tag 0.9.0 (routers under `settings.API_V1_STR`,
  requested as `f"{settings.API_V1_STR}/items/"`), its suite run on SQLite (ON_SQLITE) in a venv of its own;
- two Django apps run by pytest-django, each in a venv of its own: MDN's LocalLibrary tutorial (github:mdn/django-
  locallibrary-tutorial, views requested by path and by name, class-based views) and Healthchecks at its tag v3.9
  (github:healthchecks/healthchecks, on SQLite, its default; its tests request `self.url`, set in setUp).
Each tree is indexed by this checkout (FastAPI's without its docs/ folder of Markdown). Every function of the app code
some test executes is asked (`impact`'s tests, their files), and apart the routes among them: a function a route
decorator names (`@bp.route("/x")`, `@app.get("/items/{id}")`), or in a views module one a URL configuration names
(a function, or the methods of a class-based view), as Python's own `ast` reads the files.

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
from dataclasses import dataclass
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
# Django: MDN's tutorial app (views by path and by name, `reverse("authors")`, class-based views), at the newest
# commit when it was fetched, with its requirements.txt (gunicorn and psycopg2 left out) and pytest-django
LOCALLIBRARY_COMMIT = "3dbedbed216386e068723f5d3fefeae63bcfe16d"
LOCALLIBRARY_TOOLS = (
    "Django==5.1.15",
    "dj-database-url==2.1.0",
    "whitenoise==6.6.0",
    "python-dotenv==1.0.1",
    "pytest==7.4.4",
    "coverage==7.17.4",
    "pytest-cov==6.0.0",
    "pytest-django==4.9.0",
)
# and Healthchecks, a Django service whose tests request `self.url`, set in setUp (on SQLite, its default), with its
# requirements.txt at the tag (psycopg left out) and what its tests import
HEALTHCHECKS_TAG = "v3.9"
HEALTHCHECKS_TOOLS = (
    "aiosmtpd==1.4.6",
    "cronsim==2.6",
    "Django==5.1.4",
    "django-compressor==4.5.1",
    "django-stubs-ext==5.1.1",
    "fido2==1.2.0",
    "oncalendar==1.1",
    "pycurl==7.45.4",
    "pydantic==2.10.3",
    "pyotp==2.9.0",
    "segno==1.6.1",
    "statsd==4.0.1",
    "whitenoise==6.8.2",
    "apprise==2.3.0",
    "tblib==3.2.2",
    "time-machine==2.16.0",
    "pytest==7.4.4",
    "coverage==7.17.4",
    "pytest-cov==6.0.0",
    "pytest-django==4.9.0",
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


@dataclass(frozen=True)
class MirroredApp:
    """An app of a `fetch`ed mirror at a tag (or commit): its suite's venv, the package its truth covers, and how
    coverage_truth runs the suite."""

    label: str
    repo: str
    tag: str
    key: str  # its name in the cache: truth-KEY-TAG-v1.json, index/KEY-TAG
    venv: str
    tools: tuple[str, ...]
    package: str
    tests: str
    run_in: str = ""
    plugin: str | None = None
    options: tuple[str, ...] = ()
    prepare: tuple[str, ...] = ()
    leave_out: tuple[str, ...] = ()


MIRRORED = (
    MirroredApp(
        f"FastAPI {FASTAPI_TAG}'s docs_src",
        "fastapi/fastapi",
        FASTAPI_TAG,
        "fastapi-docs",
        "venv-fastapi",
        FASTAPI_TOOLS,
        "docs_src",
        "tests/test_tutorial",
        leave_out=("docs",),
    ),
    MirroredApp(
        f"full-stack-fastapi-template {TEMPLATE_TAG}'s backend",
        "fastapi/full-stack-fastapi-template",
        TEMPLATE_TAG,
        "fastapi-template",
        "venv-fastapi-template",
        TEMPLATE_TOOLS,
        "app",
        "tests",
        run_in="backend",
        plugin=ON_SQLITE,
    ),
    MirroredApp(
        f"MDN's Django LocalLibrary ({LOCALLIBRARY_COMMIT[:8]})",
        "mdn/django-locallibrary-tutorial",
        LOCALLIBRARY_COMMIT,
        "locallibrary",
        "venv-django-locallibrary",
        LOCALLIBRARY_TOOLS,
        "catalog",
        "catalog",
        options=("--ds=locallibrary.settings",),
        prepare=("manage.py", "collectstatic", "--noinput", "-v", "0"),  # whitenoise's manifest of the static files
    ),
    MirroredApp(
        f"Healthchecks {HEALTHCHECKS_TAG}",
        "healthchecks/healthchecks",
        HEALTHCHECKS_TAG,
        "healthchecks",
        "venv-healthchecks",
        HEALTHCHECKS_TOOLS,
        "hc",
        "hc",
        options=("--ds=hc.settings",),
    ),
)


def mirrored(cache: Path, mirrors: Path, app: MirroredApp) -> tuple[str, Path, dict[str, Any]]:
    """The app's label, its tree indexed by this checkout, and its ground truth."""
    tree = mirror_tree(cache, mirrors, app.repo, app.tag)
    truth = coverage_truth(
        cache / f"truth-{app.key}-{app.tag[:8]}-v1.json",
        facts_tests.venv_python(cache / app.venv, app.tools),
        tree,
        app.package,
        app.tests,
        run_in=app.run_in,
        plugin=app.plugin,
        options=app.options,
        prepare=app.prepare,
    )
    return app.label, facts_tests.indexed_copy(cache, app.key, app.tag[:8], tree / app.run_in, app.leave_out), truth


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
    options: tuple[str, ...] = (),
    prepare: tuple[str, ...] = (),
) -> dict[str, Any]:
    """{path: {qualname: {line, tests, files}}}: the tests executing each function of `package` (cached in `out`),
    the suite run in the tree's folder `run_in` with it and `path` importable, with `plugin` (a pytest plugin's
    source, kept out of the tree) loaded and pytest's `options`, after the python command `prepare`, if any."""
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
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([".", *map(str, path)])}
    if prepare:
        facts_tests.run([python, *prepare], work, env)
    print(f"running {tests} of {root.name} under coverage...", file=sys.stderr)
    rc = work / "bench.coveragerc"  # not the project's own (FastAPI's asks for contexts of its own, in parallel files)
    rc.write_text("[run]\n")
    proc = subprocess.run(
        [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "ignore::DeprecationWarning"]
        + [*extra, *options, f"--cov={package}", f"--cov-config={rc}", "--cov-context=test", "--cov-report=", tests],
        cwd=work,
        env=env,
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
    for file, data in report["files"].items():
        for qualname, region in data["functions"].items():
            found = {
                c.split("|")[0].split("[")[0]
                for line in region["executed_lines"]
                for c in data["contexts"].get(str(line), [])
                if c
            }
            if qualname and found:
                truth.setdefault(file, {})[qualname] = {
                    "line": region["start_line"],
                    "tests": sorted(found),
                    "files": sorted({t.split("::")[0] for t in found}),
                }
    out.write_text(json.dumps(truth, indent=1, sort_keys=True))
    shutil.rmtree(top, ignore_errors=True)
    return truth


def django_views(root: Path) -> tuple[set[str], set[str]]:
    """The names of the functions and of the classes (`X.as_view()`) the tree's URL configurations (files with
    `urlpatterns`) name as views, by `ast`: `path("books/", views.BookListView.as_view())`."""
    functions: set[str] = set()
    classes: set[str] = set()
    for file in root.rglob("*.py"):
        text = file.read_text(errors="replace")
        if "urlpatterns" not in text:
            continue
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            called = node.func if isinstance(node, ast.Call) else None
            name = getattr(called, "attr", None) or getattr(called, "id", "")
            if not isinstance(node, ast.Call) or name not in ("path", "re_path", "url") or len(node.args) < 2:
                continue
            view = node.args[1]
            if isinstance(view, ast.Call) and isinstance(view.func, ast.Attribute) and view.func.attr == "as_view":
                target = view.func.value
                classes.add(target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", ""))
            elif isinstance(view, ast.Attribute | ast.Name):
                functions.add(view.attr if isinstance(view, ast.Attribute) else view.id)
    return functions, classes


def route_lines(root: Path, path: str, views: tuple[set[str], set[str]] = (set(), set())) -> set[int]:
    """The lines (each `def` and each of its decorators) of the functions a route decorator names, and in a views
    module those a URL configuration names (`views`: django_views), with the methods of the classes it names, by
    `ast`."""
    try:
        tree = ast.parse((root / path).read_text(errors="replace"))
    except SyntaxError:
        return set()
    lines: set[int] = set()
    if "views" in path:
        for top in tree.body:
            if isinstance(top, ast.FunctionDef | ast.AsyncFunctionDef) and top.name in views[0]:
                lines.update({top.lineno, *(x.lineno for x in top.decorator_list)})
            if isinstance(top, ast.ClassDef) and top.name in views[1]:
                for method in top.body:
                    if isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef):
                        lines.update({method.lineno, *(x.lineno for x in method.decorator_list)})
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
    views = django_views(repo)
    for path in sorted(truth):
        routes = route_lines(repo, path, views)
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
    for recall, where, executing, count in sorted(worst)[:show]:
        print(f"    recall {recall:.2f}: {where} (executed by {executing} test files; {count} listed)")
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

    apps += [mirrored(cache, args.mirrors, app) for app in MIRRORED]

    pooled = {"all": [0.0, 0.0, 0, 0], "routes": [0.0, 0.0, 0, 0]}
    for name, repo, truth in apps:
        for kind, s in score_app(name, repo, truth, args.show).items():
            pooled[kind] = [a + b for a, b in zip(pooled[kind], s, strict=True)]
    print_sums("pooled", pooled)


if __name__ == "__main__":
    main()
