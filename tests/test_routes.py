"""A web route's function is called by the tests requesting its path (`client.get("/auth/register")`): no call
names a Flask or FastAPI view, so its tests were missed or guessed by name."""

from __future__ import annotations

import sqlite3

from codeannals.store import queries, testmap

from .conftest import Repo, caller_bases, indexed

FLASK = {
    "app/__init__.py": (
        "from flask import Flask\n\n\ndef create_app():\n    app = Flask(__name__)\n    from . import auth, blog\n\n"
        "    app.register_blueprint(auth.bp)\n    app.register_blueprint(blog.bp)\n\n"
        '    @app.route("/hello")\n    def hello():\n        return "hi"\n\n    return app\n'
    ),
    "app/auth.py": (
        'from flask import Blueprint\n\nbp = Blueprint("auth", __name__, url_prefix="/auth")\n\n\n'
        '@bp.route("/register", methods=("GET", "POST"))\ndef register():\n    return ""\n\n\n'
        '@bp.route("/logout")\ndef logout():\n    return ""\n'
    ),
    "app/blog.py": (
        'from flask import Blueprint\n\nbp = Blueprint("blog", __name__)\n\n\n@bp.route("/")\ndef index():\n'
        '    return ""\n\n\n@bp.route("/<int:id>/update", methods=("GET", "POST"))\ndef update(id):\n'
        '    return ""\n\n\n'
        '@bp.route("/<int:id>/delete", methods=("POST",))\ndef delete(id):\n    return ""\n'
    ),
    "app/remote.py": 'import requests\n\n\ndef register_elsewhere():\n    requests.post("/auth/register")\n',
    "tests/conftest.py": (
        "import pytest\n\nfrom app import create_app\n\n\n@pytest.fixture\ndef client():\n"
        "    return create_app().test_client()\n"
    ),
    "tests/test_blog.py": (
        'def test_index(client):\n    client.get("/")\n\n\n'
        'def test_update(client):\n    client.post("/1/update", data={})\n\n\n'
        'def test_delete_by_get(client):\n    client.get("/1/delete")\n\n\n'
        'def test_register(client):\n    client.open("/auth/register", method="POST")\n\n\n'
        'def test_logout(client):\n    client.get("http://localhost/auth/logout?next=/")\n\n\n'
        'def test_hello(client):\n    client.get("/hello")\n'
    ),
}
FASTAPI = {
    "api/__init__.py": "",
    "api/items.py": (
        'from fastapi import APIRouter\n\nrouter = APIRouter(prefix="/items")\n\n\n'
        '@router.get("/")\ndef read_items():\n    return []\n\n\n'
        '@router.get("/{item_id}")\ndef read_item(item_id: int):\n    return {}\n\n\n'
        '@router.post("/")\ndef create_item():\n    return {}\n'
    ),
    "api/users.py": (
        'from fastapi import APIRouter\n\nrouter = APIRouter(prefix="/users")\n\n\n'
        '@router.get("/{user_id}")\ndef read_user(user_id: int):\n    return {}\n'
    ),
    "api/main.py": (
        "from fastapi import FastAPI\n\nfrom . import items, users\nfrom .settings import API\n\napp = FastAPI()\n"
        'app.include_router(items.router, prefix=API)\napp.include_router(users.router, prefix="/v2")\n'
    ),
    "api/settings.py": 'API = "/api/v1"\n',
    "tests/api/test_api.py": (
        "from fastapi.testclient import TestClient\n\nfrom api.main import app\nfrom api.settings import API\n\n"
        "client = TestClient(app)\n\n\n"
        'def test_items():\n    client.get(f"{API}/items/")\n    client.get(f"{API}/items/{5}")\n\n\n'
        'def test_user():\n    client.get("/v2/users/7")\n\n\n'
        'def test_create():\n    client.post(f"{API}/items/", json={})\n'
    ),
}


def indexed_with(repo: Repo, files: dict[str, str]) -> sqlite3.Connection:
    """The repository with these files written, indexed (the caller closes the store)."""
    for path, text in files.items():
        repo.write(path, text)
    return indexed(repo)


def test_a_route_is_called_by_the_tests_requesting_its_path(repo: Repo) -> None:
    """A Flask route's path under its Blueprint's `url_prefix`, a FastAPI route's under its APIRouter's `prefix`,
    each under a prefix the app mounts its routers at (`include_router(r, prefix="/v2")`) or an unknown one
    (`f"{API}/items/"`); a parameter (`<int:id>`, `{item_id}`) any one segment; the methods agreeing (a GET of a
    POST-only route reaches nothing). A request reaches only the routes of files its test loads, itself or through
    its conftest.py (tests/test_blog.py's `/items/` is none of the API's), and code that is no test requests no
    route of ours (`requests.post(...)` in app/remote.py)."""
    for path, text in {
        **FLASK,
        **FASTAPI,
        "tests/test_other.py": 'def test_x(client):\n    client.get("/items/")\n',
    }.items():
        repo.write(path, text)
    conn = indexed(repo)
    try:
        request = "requests the route"
        expected = {
            "app/blog.py::index": {"tests/test_blog.py::test_index"},
            "app/blog.py::update": {"tests/test_blog.py::test_update"},
            "app/blog.py::delete": set(),
            "app/auth.py::register": {"tests/test_blog.py::test_register"},
            "app/auth.py::logout": {"tests/test_blog.py::test_logout"},
            "app/__init__.py::create_app.hello": {"tests/test_blog.py::test_hello"},
            "api/items.py::read_items": {"tests/api/test_api.py::test_items"},
            "api/items.py::read_item": {"tests/api/test_api.py::test_items"},
            "api/items.py::create_item": {"tests/api/test_api.py::test_create"},
            "api/users.py::read_user": {"tests/api/test_api.py::test_user"},
        }
        for route, tests in expected.items():
            callers = caller_bases(conn, route)
            assert {c for c, basis in callers.items() if basis == request} == tests, (route, callers)
        assert "app/remote.py::register_elsewhere" not in caller_bases(conn, "app/auth.py::register")
        listed = testmap.tests_for_module(conn, "api/items.py", enough=12)
        create = next(t for t in listed if t.test == "tests/api/test_api.py::test_create")
        assert create.basis.startswith("requests POST {}/items/ of create_item"), create.basis
    finally:
        conn.close()


def test_a_route_a_test_defines_is_requested_by_that_test_alone(repo: Repo) -> None:
    """Flask's own tests make an app per test, each with its `@app.route("/")`: a test's request of `/` reaches its
    own route, not another test's; an app factory's route (`create_app.hello`) is the code's, any test's. A route's
    decorator (`@app.get('/')`) requests nothing."""
    repo.write(
        "tests/test_apps.py",
        "import flask\n\n\ndef test_one(app, client):\n    @app.get('/')\n    def one():\n        return ''\n\n"
        "    client.get('/')\n\n\ndef test_two(app, client):\n    @app.route('/')\n    def two():\n"
        "        return ''\n\n"
        "    client.get('/')\n\n\ndef test_three(app, client):\n    @app.get('/')\n    def three():\n"
        "        return ''\n",
    )
    conn = indexed(repo)
    try:
        assert caller_bases(conn, "tests/test_apps.py::test_one.one") == {
            "tests/test_apps.py::test_one": "requests the route"
        }
        assert caller_bases(conn, "tests/test_apps.py::test_two.two") == {
            "tests/test_apps.py::test_two": "requests the route"
        }
        made = conn.execute("SELECT count(*) FROM calls WHERE caller LIKE '%test_three%' AND ref LIKE 'route:%'")
        assert made.fetchone()[0] == 0  # its decorator is no request
    finally:
        conn.close()


def test_a_fastapi_dependency_is_run_by_the_routes_declaring_it(repo: Repo) -> None:
    """FastAPI runs a route's dependencies before it: those its parameters' annotations declare through an alias in
    another file (`session: SessionDep`, `SessionDep = Annotated[Session, Depends(get_db)]`) and those its decorator
    lists (`dependencies=[Depends(admin)]`), so the tests requesting the route reach them. An annotation naming a
    plain class declares nothing."""
    repo.write("api/__init__.py", "")
    repo.write(
        "api/deps.py",
        "from typing import Annotated\n\nfrom fastapi import Depends\n\n\nclass Session:\n    pass\n\n\n"
        "def get_db():\n    yield Session()\n\n\nSessionDep = Annotated[Session, Depends(get_db)]\n\n\n"
        "def admin():\n    return True\n",
    )
    repo.write(
        "api/main.py",
        "from fastapi import Depends, FastAPI\n\nfrom .deps import Session, SessionDep, admin\n\napp = FastAPI()\n\n\n"
        '@app.get("/items/")\ndef read_items(session: SessionDep):\n    return []\n\n\n'
        '@app.delete("/items/{item_id}", dependencies=[Depends(admin)])\ndef delete_item(item_id: int, s: Session):\n'
        "    return None\n",
    )
    repo.write(
        "tests/test_api.py",
        "from fastapi.testclient import TestClient\n\nfrom api.main import app\n\nclient = TestClient(app)\n\n\n"
        'def test_read():\n    client.get("/items/")\n\n\ndef test_delete():\n    client.delete("/items/5")\n',
    )
    conn = indexed(repo)
    try:
        assert caller_bases(conn, "api/deps.py::SessionDep") == {"api/main.py::read_items": "declares the dependency"}
        assert caller_bases(conn, "api/deps.py::admin").get("api/main.py::delete_item") == "named as a value"
        assert "api/main.py::delete_item" not in caller_bases(conn, "api/deps.py::Session")
        for dependency, test in (("get_db", "test_read"), ("admin", "test_delete")):
            symbol = queries.find_symbol(conn, f"api/deps.py::{dependency}")
            assert f"tests/test_api.py::{test}" in {t.test for t in testmap.tests_for_symbol(conn, symbol)}
    finally:
        conn.close()


DJANGO = {
    "shop/__init__.py": "",
    "shop/urls.py": (
        "from django.urls import include, path\n\nfrom shop import views\n\n"
        'urlpatterns = [\n    path("catalog/", include("catalog.urls")),\n'
        '    path("", views.home),\n]\n'
    ),
    "shop/settings.py": (
        'MIDDLEWARE = [\n    "django.middleware.common.CommonMiddleware",\n    "shop.middleware.TeamMiddleware",\n]\n'
        'TEMPLATES = [{"OPTIONS": {"context_processors": ["shop.middleware.branding"]}}]\n'
    ),
    "shop/middleware.py": (
        "class TeamMiddleware:\n    def __init__(self, get_response):\n        self.get_response = get_response\n\n"
        "    def __call__(self, request):\n        return self.get_response(request)\n\n\n"
        "def branding(request):\n    return {}\n\n\ndef unused(request):\n    return {}\n"
    ),
    "catalog/admin.py": (
        "from django.contrib import admin\n\nfrom .models import Author, Book\n\n\n@admin.register(Book)\n"
        "class BookAdmin(admin.ModelAdmin):\n    def get_queryset(self, request):\n        return []\n\n\n"
        "class AuthorAdmin(admin.ModelAdmin):\n    def has_add_permission(self, request):\n        return False\n\n\n"
        "admin.site.register(Author, AuthorAdmin)\n"
    ),
    "catalog/__init__.py": "",
    "catalog/views.py": (
        "from django.views import generic\n\n\ndef index(request):\n    return None\n\n\n"
        "def renew(request, pk):\n    return None\n\n\nclass Listing(generic.ListView):\n"
        "    def get_queryset(self):\n        return []\n\n\n"
        "class BookList(Listing):\n    def get_context_data(self):\n        return {}\n"
    ),
    "catalog/urls.py": (
        "from django.urls import include, path, re_path\n\nfrom . import views\n\n"
        'app_name = "catalog"\n\nitem_urls = [\n    path("renew/", views.renew, name="renew"),\n]\n\n'
        'urlpatterns = [\n    path("", views.index, name="index"),\n'
        '    path("books/", views.BookList.as_view(), name="books"),\n'
        '    path("book/<int:pk>/", include(item_urls)),\n'
        '    re_path(r"^old/(?P<pk>[0-9]+)$", views.renew),\n]\n'
    ),
    "catalog/tests/__init__.py": "",
    "catalog/tests/test_views.py": (
        "from urllib.parse import urlencode\n\nfrom django.test import TestCase\nfrom django.urls import reverse\n\n\n"
        'def listing_url(page):\n    return "/catalog/?" + urlencode({"page": page})\n\n\nclass ViewsTest(TestCase):\n'
        '    def setUp(self):\n        self.url = f"/catalog/book/{self.pk}/renew/"\n\n'
        '    def _url(self, state="ABC"):\n        url = "/catalog/old/7?"\n        url += urlencode({"s": state})\n'
        "        return url\n\n    def test_helper(self):\n        self.client.get(self._url())\n\n"
        "    def test_query(self):\n        self.client.get(listing_url(2))\n\n"
        '    def test_index(self):\n        self.client.get(reverse("catalog:index"))\n\n'
        '    def test_books(self):\n        self.client.get(reverse("catalog:books") + "?page=2")\n\n'
        "    def test_renew(self):\n        self.client.post(self.url, {})\n\n"
        '    def test_old(self):\n        url = "/catalog/old/5"\n        self.client.get(url)\n\n'
        '    def test_redirect(self):\n        response = self.client.post("/nowhere/")\n'
        '        self.assertRedirects(response, "/catalog/")\n\n\nclass OldTest(TestCase):\n'
        '    url = "/catalog/old/%d"\n\n    def test_percent(self):\n        self.client.get(self.url % 5)\n\n'
        '    def test_format(self):\n        self.client.get("/catalog/book/{}/renew/".format(5))\n'
        '    def test_admin(self):\n        self.client.get("/admin/catalog/book/1/change/")\n'
    ),
}


def test_a_django_view_is_called_by_the_tests_requesting_its_path_or_name(repo: Repo) -> None:
    """Django's URL configurations name their views (`views.index`, `views.BookList.as_view()`) under the prefixes
    of their includes (another file's, `include("catalog.urls")`, or the file's own list, `include(item_urls)`), and
    Django loads them for every request whatever the test imports. A test requests a view by its path (a literal,
    a local name, the `self.url` its setUp or its class's body assigns, formatted with values by `%` or `format`,
    what a helper of the file returns, a query added),
    by its name (`reverse("catalog:books")`, under the file's
    `app_name`) or through `assertRedirects`, which fetches the page; a class-based view runs its methods, its own
    and those it inherits from classes of the project. What the settings run for every request (MIDDLEWARE, the
    context processors of TEMPLATES) every request reaches; a model's admin pages (`/admin/catalog/book/1/change/`)
    run the methods of the ModelAdmin registered for it (`@admin.register(Book)`, `admin.site.register(...)`)."""
    conn = indexed_with(repo, DJANGO)
    try:
        request = "requests the route"
        expected = {
            "catalog/views.py::index": {"test_index", "test_redirect", "test_query"},
            "catalog/views.py::BookList.get_context_data": {"test_books"},
            "catalog/views.py::Listing.get_queryset": {"test_books"},
            "catalog/views.py::renew": {"test_renew", "test_old", "test_percent", "test_format", "test_helper"},
        }
        for view, tests in expected.items():
            callers = caller_bases(conn, view)
            found = {c.rpartition(".")[2] for c, basis in callers.items() if basis == request}
            assert found == tests, (view, callers)
        every = {"test_index", "test_books", "test_renew", "test_old", "test_redirect", "test_percent", "test_format"}
        every |= {"test_admin", "test_helper", "test_query"}
        admin = caller_bases(conn, "catalog/admin.py::BookAdmin.get_queryset")
        assert {c.rpartition(".")[2] for c, basis in admin.items() if basis == request} == {"test_admin"}
        assert not caller_bases(conn, "catalog/admin.py::AuthorAdmin.has_add_permission")
        for hook in ("shop/middleware.py::TeamMiddleware.__call__", "shop/middleware.py::branding"):
            callers = caller_bases(conn, hook)
            assert {c.rpartition(".")[2] for c, basis in callers.items() if basis == request} == every, hook
        assert caller_bases(conn, "shop/middleware.py::unused") == {}
    finally:
        conn.close()


def test_a_django_admin_runs_its_list_filters_and_a_route_its_path_converters(repo: Repo) -> None:
    """A ModelAdmin's pages run what its body names (`list_filter = (NumChecksFilter, ("kind", KindFilter))`), and a
    route the converters its path writes (`<sha1:key>` of `register_converter(SHA1Converter, "sha1")`), by path or
    by the route's name."""
    files = {
        "hc/__init__.py": "",
        "hc/urls.py": "from django.urls import include, path\n\n"
        'urlpatterns = [\n    path("api/", include("hc.api.urls")),\n'
        '    path("admin/", admin.site.urls),\n]\n',
        "hc/api/__init__.py": "",
        "hc/api/views.py": "def by_key(request, key):\n    return None\n",
        "hc/api/urls.py": "from django.urls import path, register_converter\n\nfrom . import views\n\n\n"
        "class SHA1Converter:\n    regex = '[a-f0-9]{40}'\n\n    def to_python(self, value):\n        return value\n\n"
        "    def to_url(self, value):\n        return value\n\n\nclass UnusedConverter:\n"
        "    def to_python(self, value):\n        return value\n\n\n"
        'register_converter(SHA1Converter, "sha1")\nregister_converter(UnusedConverter, "unused")\n\n'
        'urlpatterns = [\n    path("checks/<sha1:key>", views.by_key, name="by-key"),\n]\n',
        "hc/api/admin.py": "from django.contrib import admin\n\nfrom .models import Check\n\n\n"
        "class NumChecksFilter(admin.SimpleListFilter):\n    def lookups(self, request, model_admin):\n"
        "        return []\n\n    def queryset(self, request, queryset):\n        return queryset\n\n\n"
        "class KindFilter(admin.SimpleListFilter):\n    def queryset(self, request, queryset):\n"
        "        return queryset\n\n\n"
        "class IdleFilter(admin.SimpleListFilter):\n    def queryset(self, request, queryset):\n"
        "        return queryset\n\n\n"
        "@admin.register(Check)\nclass ChecksAdmin(admin.ModelAdmin):\n"
        '    list_filter = (NumChecksFilter, ("kind", KindFilter))\n',
        "hc/api/tests/__init__.py": "",
        "hc/api/tests/test_api.py": "from django.test import TestCase\nfrom django.urls import reverse\n\n\n"
        "class ApiTestCase(TestCase):\n    def test_by_path(self):\n"
        '        self.client.get(f"/api/checks/{self.key}")\n\n    def test_by_name(self):\n'
        '        self.client.get(reverse("by-key", args=["a" * 40]))\n\n    def test_admin(self):\n'
        '        self.client.get("/admin/api/check/")\n',
    }
    conn = indexed_with(repo, files)
    try:

        def requesting(symbol_id: str) -> set[str]:
            callers = caller_bases(conn, symbol_id)
            return {c.rpartition(".")[2] for c, basis in callers.items() if basis == "requests the route"}

        assert requesting("hc/api/admin.py::NumChecksFilter.lookups") == {"test_admin"}
        assert requesting("hc/api/admin.py::KindFilter.queryset") == {"test_admin"}
        assert requesting("hc/api/admin.py::IdleFilter.queryset") == set()
        assert requesting("hc/api/urls.py::SHA1Converter.to_python") == {"test_by_path", "test_by_name"}
        assert requesting("hc/api/urls.py::UnusedConverter.to_python") == set()
    finally:
        conn.close()


def test_a_django_backend_authenticates_where_its_credentials_are_given(repo: Repo) -> None:
    """Every request runs the authentication backends' other methods (`get_user`), but `authenticate` runs where
    something authenticates: the test client's `login(...)` or django.contrib.auth's `authenticate(...)`, and only in
    the backends whose parameters take the credentials given, as Django binds them. `force_login` authenticates
    nothing."""
    files = {
        "shop/__init__.py": "",
        "shop/settings.py": 'AUTHENTICATION_BACKENDS = [\n    "shop.backends.EmailBackend",\n'
        '    "shop.backends.TokenBackend",\n]\n',
        "shop/urls.py": "from django.urls import path\n\nfrom shop import views\n\n"
        'urlpatterns = [\n    path("token/", views.by_token),\n    path("", views.home),\n]\n',
        "shop/backends.py": "class BasicBackend:\n    def get_user(self, user_id):\n        return None\n\n\n"
        "class EmailBackend(BasicBackend):\n    def authenticate(self, request, username=None, password=None):\n"
        "        return None\n\n\nclass TokenBackend(BasicBackend):\n"
        "    def authenticate(self, request, username=None, token=None):\n        return None\n",
        "shop/views.py": "from django.contrib import auth\n\n\ndef by_token(request):\n"
        '    return auth.authenticate(request, username="u", token=request.GET["t"])\n\n\n'
        "def home(request):\n    return None\n",
        "shop/tests/__init__.py": "",
        "shop/tests/test_login.py": "from django.test import TestCase\n\n\nclass LoginTest(TestCase):\n"
        '    def test_password(self):\n        self.client.login(username="u", password="p")\n\n'
        '    def test_token(self):\n        self.client.get("/token/?t=abc")\n\n'
        "    def test_forced(self):\n        self.client.force_login(self.user)\n"
        '        self.client.get("/")\n',
    }
    conn = indexed_with(repo, files)
    try:

        def tests_of(symbol_id: str) -> set[str]:
            symbol = queries.find_symbol(conn, symbol_id)
            return {t.test.rpartition("::")[2] for t in testmap.tests_for_symbol(conn, symbol)}

        assert tests_of("shop/backends.py::EmailBackend.authenticate") == {"test_password"}
        assert tests_of("shop/backends.py::TokenBackend.authenticate") == {"test_token"}
        assert tests_of("shop/backends.py::BasicBackend.get_user") == {"test_token", "test_forced"}
        assert caller_bases(conn, "shop/backends.py::TokenBackend.authenticate") == {
            "shop/views.py::by_token": "authenticates with"
        }
    finally:
        conn.close()


def test_a_test_clients_request_is_no_guess_at_a_method_of_that_name(repo: Repo) -> None:
    """`self.client.post("/login/")` requests the route: it calls no `post` of ours by name (a transport's, which every
    Django test posting a form reached), where a call of `post` on a value the file does not type still may."""
    files = {
        "shop/__init__.py": "",
        "shop/urls.py": "from django.urls import path\n\nfrom shop import views\n\n"
        'urlpatterns = [path("login/", views.login)]\n',
        "shop/views.py": "def login(request):\n    return None\n",
        "shop/transport.py": "class Transport:\n    def post(self, url):\n        return url\n",
        "shop/tests/__init__.py": "",
        "shop/tests/test_login.py": "from django.test import TestCase\n\nfrom shop.transport import Transport\n\n\n"
        "class LoginTest(TestCase):\n"
        '    def test_form(self):\n        self.client.post("/login/", {"email": "a@b.c"})\n\n'
        "    def test_sending(self):\n        self.sender.post(self.url)\n",
    }
    conn = indexed_with(repo, files)
    try:
        login = caller_bases(conn, "shop/views.py::login")
        assert login["shop/tests/test_login.py::LoginTest.test_form"] == "requests the route"
        assert caller_bases(conn, "shop/transport.py::Transport.post") == {
            "shop/tests/test_login.py::LoginTest.test_sending": "unique name"
        }
    finally:
        conn.close()


def test_a_django_middleware_that_opts_out_runs_only_for_the_tests_setting_what_it_needs(repo: Repo) -> None:
    """A middleware whose `__init__` raises MiddlewareNotUsed unless a setting is set is left out of every request but
    those of tests setting it (`@override_settings(REMOTE_HEADER=...)`): its other methods, and what they alone call,
    are run by those tests. Its `__init__` runs for every test (Django makes it, then leaves it out)."""
    files = {
        "web/__init__.py": "",
        "web/settings.py": 'MIDDLEWARE = [\n    "web.middleware.HeaderLogin",\n]\nREMOTE_HEADER = None\n',
        "web/urls.py": "from django.urls import path\n\nfrom web import views\n\n"
        'urlpatterns = [\n    path("", views.home),\n]\n',
        "web/views.py": "def home(request):\n    return None\n",
        "web/middleware.py": "from django.conf import settings\n"
        "from django.core.exceptions import MiddlewareNotUsed\n\n\n"
        "class HeaderLogin:\n    def __init__(self, get_response):\n        if not settings.REMOTE_HEADER:\n"
        "            raise MiddlewareNotUsed()\n        self.get_response = get_response\n\n"
        "    def __call__(self, request):\n        return self.get_response(request)\n",
        "web/tests/__init__.py": "",
        "web/tests/test_home.py": "from django.test import TestCase\n\n\nclass HomeTest(TestCase):\n"
        '    def test_home(self):\n        self.client.get("/")\n',
        "web/tests/test_header.py": "from django.test import TestCase, override_settings\n\n\n"
        '@override_settings(REMOTE_HEADER="X-User")\nclass HeaderTest(TestCase):\n'
        '    def test_login(self):\n        self.client.get("/", HTTP_X_USER="alice")\n',
    }
    conn = indexed_with(repo, files)
    try:

        def listed(ref: str, root: bool = True) -> set[str]:
            symbol = queries.find_symbol(conn, ref)
            return {t.test for t in testmap.tests_for_symbol(conn, symbol, root=repo.root if root else None)}

        home = "web/tests/test_home.py::HomeTest::test_home"
        header = "web/tests/test_header.py::HeaderTest::test_login"
        assert listed("web/middleware.py::HeaderLogin.__call__") == {header}
        assert listed("web/middleware.py::HeaderLogin.__call__", root=False) == {home, header}  # no text to read
        assert listed("web/middleware.py::HeaderLogin.__init__") == {home, header}
    finally:
        conn.close()
