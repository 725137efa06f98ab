"""Django's templates: the tags and filters a template uses run when a view renders it, and the tests requesting the
view reach them."""

from __future__ import annotations

from codeannals.store import queries

from .conftest import Repo, caller_bases, indexed

EXTRAS = """from django import template

register = template.Library()


@register.filter
def down_title(check):
    return "DOWN" if check else ""


@register.filter(name="hc_duration")
def format_duration(td):
    return str(td)


@register.simple_tag
def site_name():
    return "Mychecks"


@register.filter
def add6days(dt):
    return dt


def unused(x):
    return x
"""

VIEWS = """from django.shortcuts import render


def details(request):
    return render(request, "front/details.html", {})


def about(request):
    return render(request, "front/about.html", {})
"""

EMAILS = """from django.template.loader import render_to_string as render


def make_message(name, ctx):
    return render("emails/%s-subject.html" % name, ctx)


def report(ctx):
    return make_message("report", ctx)


def alert(ctx):
    return make_message("alert", ctx)
"""

PROJECT = {
    "hc/front/templatetags/__init__.py": "",
    "hc/front/templatetags/hc_extras.py": EXTRAS,
    "hc/front/views.py": VIEWS,
    "hc/front/urls.py": "from django.urls import path\n\nfrom . import views\n\nurlpatterns = [\n"
    '    path("details/", views.details),\n    path("about/", views.about),\n]\n',
    "hc/lib/emails.py": EMAILS,
    "templates/base.html": "<!DOCTYPE html>{% load hc_extras %}<title>{% site_name %}</title>{% block content %}"
    "{% endblock %}\n",
    "templates/front/details.html": '{% extends "base.html" %}\n{% load hc_extras humanize %}\n{% block content %}\n'
    "{{ check|down_title }} {{ check.timeout|hc_duration }} {{ check.created|date:'M j' }}\n{% endblock %}\n",
    "templates/front/about.html": '{% extends "base.html" %}{# {{ check|down_title }} #}\n'
    "{% comment %}{{ check|down_title }}{% endcomment %}\n",
    "templates/emails/report-subject.html": "{% load hc_extras %}Report for {{ dt|add6days }}\n",
    "templates/emails/alert-subject.html": "{% load hc_extras %}{{ check|down_title }}\n",
    "hc/front/tests/test_details.py": "from django.test import TestCase\n\n\nclass DetailsTestCase(TestCase):\n"
    '    def test_it_works(self):\n        self.client.get("/details/")\n',
    "hc/front/tests/test_about.py": "from django.test import TestCase\n\n\nclass AboutTestCase(TestCase):\n"
    '    def test_it_works(self):\n        self.client.get("/about/")\n',
    "hc/lib/tests/test_emails.py": "from hc.lib import emails\n\n\ndef test_report():\n    emails.report({})\n\n\n"
    "def test_alert():\n    emails.alert({})\n",
}


def _test_files(conn, symbol_id: str) -> set[str]:  # type: ignore[no-untyped-def]
    return {t.split("::")[0] for t in queries.impact(conn, symbol_id)["tests"]}


def test_the_tests_requesting_a_view_reach_the_template_tags_it_renders(repo: Repo) -> None:
    """A view renders a template (`render(request, "front/details.html")`); the template runs the filters and tags of
    the libraries it loads (`|down_title`, a name a decorator gives, `|hc_duration`), and those of the templates it
    extends (`{% site_name %}` in base.html). Django's own filters (`date`) and a comment's text reach nothing."""
    for path, text in PROJECT.items():
        repo.write(path, text)
    conn = indexed(repo)
    try:
        extras = "hc/front/templatetags/hc_extras.py"
        assert _test_files(conn, f"{extras}::down_title") == {
            "hc/front/tests/test_details.py",
            "hc/lib/tests/test_emails.py",  # the alert's subject uses it
        }
        assert _test_files(conn, f"{extras}::format_duration") == {"hc/front/tests/test_details.py"}
        assert _test_files(conn, f"{extras}::site_name") == {
            "hc/front/tests/test_details.py",
            "hc/front/tests/test_about.py",
        }
        callers = caller_bases(conn, f"{extras}::down_title")
        assert callers["templates/front/details.html::front/details.html"] == "uses the template tag"
        assert "templates/front/about.html::front/about.html" not in callers  # only in comments there
        assert caller_bases(conn, "templates/base.html::base.html") == {
            "templates/front/details.html::front/details.html": "renders the template",
            "templates/front/about.html::front/about.html": "renders the template",
        }
        assert caller_bases(conn, f"{extras}::unused") == {}
    finally:
        conn.close()


def test_a_template_name_a_parameter_fills_renders_what_the_callers_give(repo: Repo) -> None:
    """`render("emails/%s-subject.html" % name)` in make_message(name) renders the template each caller names
    (`make_message("report")`): the report's filter is the report test's, not every email's."""
    for path, text in PROJECT.items():
        repo.write(path, text)
    conn = indexed(repo)
    try:
        extras = "hc/front/templatetags/hc_extras.py"
        assert {t.rpartition("::")[2] for t in queries.impact(conn, f"{extras}::add6days")["tests"]} == {"test_report"}
        callers = caller_bases(conn, "templates/emails/report-subject.html::emails/report-subject.html")
        assert callers == {"hc/lib/emails.py::report": "renders the template"}
    finally:
        conn.close()


FLASK = {
    "shop/__init__.py": "from flask import Flask, render_template\n\napp = Flask(__name__)\n\n\n"
    '@app.template_filter("ago")\ndef time_ago(when):\n    return str(when)\n\n\n'
    "@app.template_global()\ndef site_name():\n    return 'Shop'\n\n\n"
    '@app.route("/")\ndef index():\n    return render_template("index.html")\n\n\n'
    '@app.route("/about")\ndef about():\n    return render_template("about.html")\n',
    "shop/templates/index.html": "<h1>{{ site_name() }}</h1>{{ order.placed|ago }}\n",
    "shop/templates/about.html": "<p>About</p>{{ order.placed|default('') }}\n",
    "tests/test_shop.py": "from shop import app\n\n\ndef test_index():\n    app.test_client().get('/')\n\n\n"
    "def test_about():\n    app.test_client().get('/about')\n",
}


def test_a_flask_template_filter_is_reached_by_the_templates_using_it(repo: Repo) -> None:
    """Flask registers a filter for every template (`@app.template_filter("ago")`): a template using it (`|ago`), which
    a view renders (`render_template("index.html")`), runs it for the tests requesting the view."""
    for path, text in FLASK.items():
        repo.write(path, text)
    conn = indexed(repo)
    try:
        assert {t.rpartition("::")[2] for t in queries.impact(conn, "shop/__init__.py::time_ago")["tests"]} == {
            "test_index"
        }
        callers = caller_bases(conn, "shop/__init__.py::time_ago")
        assert callers == {"shop/templates/index.html::index.html": "uses the template tag"}
        site = queries.impact(conn, "shop/__init__.py::site_name")["tests"]
        assert {t.rpartition("::")[2] for t in site} == {"test_index"}
    finally:
        conn.close()


def test_a_template_looks_up_the_methods_of_the_class_its_value_is_named_after(repo: Repo) -> None:
    """`{{ check.cloaked_url }}` calls Check.cloaked_url, which needs no argument, where the value is named after the
    class; `{{ c.kind }}` of a value named otherwise says nothing (a model's field may be the attribute), nor does a
    method needing an argument. A model's manager bound in its class body (`objects = CheckManager()`) is what
    `Check.objects.mine()` calls on."""
    project = dict(PROJECT)
    project["hc/api/models.py"] = (
        "from django.db import models\n\n\nclass CheckManager(models.Manager):\n    def mine(self):\n"
        "        return self.all()\n\n\nclass Check(models.Model):\n    objects = CheckManager()\n\n"
        "    def cloaked_url(self):\n        return ''\n\n    def kind(self):\n        return ''\n\n"
        "    def badge(self, fmt):\n        return fmt\n\n\ndef mine():\n    return Check.objects.mine()\n"
    )
    project["templates/front/details.html"] += "{{ check.cloaked_url }} {{ c.kind }} {{ check.badge }}\n"
    for path, text in project.items():
        repo.write(path, text)
    conn = indexed(repo)
    try:
        details = "templates/front/details.html::front/details.html"
        assert caller_bases(conn, "hc/api/models.py::Check.cloaked_url") == {details: "looks it up in a template"}
        assert _test_files(conn, "hc/api/models.py::Check.cloaked_url") >= {"hc/front/tests/test_details.py"}
        assert details not in caller_bases(conn, "hc/api/models.py::Check.kind")
        assert details not in caller_bases(conn, "hc/api/models.py::Check.badge")
        assert caller_bases(conn, "hc/api/models.py::CheckManager.mine") == {"hc/api/models.py::mine": "method"}
    finally:
        conn.close()
