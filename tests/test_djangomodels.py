"""A Django model's queries give its instances: `check.to_dict()` in `for check in Check.objects.filter(...)` is
Check's method, where it was a guess at every model's `to_dict` (Healthchecks has four); and validating a form runs its
clean methods."""

from __future__ import annotations

from .conftest import Repo, caller_bases, indexed

MODELS = (
    "from django.db import models\n\n\nclass Project(models.Model):\n    pass\n\n\n"
    "class Check(models.Model):\n    project = models.ForeignKey(Project, models.CASCADE)\n\n"
    "    def to_dict(self):\n        return {}\n\n\n"
    "class Flip(models.Model):\n    owner = models.ForeignKey(Check, models.CASCADE)\n"
    '    previous = models.ForeignKey("self", models.CASCADE)\n\n    def to_dict(self):\n        return {}\n\n\n'
    "class Plain:\n    objects = None\n\n    def to_dict(self):\n        return {}\n"
)
VIEWS = (
    "from django.shortcuts import get_object_or_404\n\nfrom .models import Check, Flip, Plain, Project\n\n\n"
    "def checks():\n    for check in Check.objects.filter(kind=1).order_by('id'):\n        check.to_dict()\n\n\n"
    "def flips():\n    latest = list(Flip.objects.filter(kind=1)[:10])\n    return [f.to_dict() for f in latest]\n\n\n"
    "def one(code):\n    return get_object_or_404(Check, code=code).to_dict()\n\n\n"
    "def owner():\n    return Flip.objects.get(id=1).owner.to_dict()\n\n\n"
    "def previous():\n    flip, _ = Flip.objects.get_or_create(id=1)\n    return flip.previous.to_dict()\n\n\n"
    "def first_of(q):\n    return get_object_or_404(Flip.objects.filter(q)).to_dict()\n\n\n"
    "def plain():\n    return Plain.objects.get().to_dict()\n\n\n"
    "def of_project(pk):\n    return [c.to_dict() for c in Project.objects.get(pk=pk).check_set.all()]\n\n\n"
    "def narrowed(tags, slug):\n    q = Check.objects.filter(kind=1)\n    q = q.prefetch_related('channels')\n"
    "    for tag in tags:\n        q = q.filter(tags__contains=tag)\n    if slug:\n        q = q.filter(slug=slug)\n"
    "    return [c.to_dict() for c in q]\n"
)


def test_a_models_query_gives_its_instances(repo: Repo) -> None:
    """Its manager's queries (`objects.filter()`, `order_by()`), what they give (iterated, sliced, copied into a
    list, `get()`, `get_or_create()`'s first item, `get_object_or_404()`), and what its relation fields hold
    (`ForeignKey(Check)`, `ForeignKey("self")`) are instances of the model named, as are the elements of the manager
    of what relates to a model (a Project's `check_set`) and of a query narrowed in several places (`q = q.filter()`):
    their methods are called exactly.
    Not a class that is no model: its `objects` is what its body says."""
    repo.write("shop/__init__.py", "")
    repo.write("shop/models.py", MODELS)
    repo.write("shop/views.py", VIEWS)
    conn = indexed(repo)
    try:
        exact = "imported name"  # the method of the class the file imports, not a guess by its name
        check = caller_bases(conn, "shop/models.py::Check.to_dict")
        flip = caller_bases(conn, "shop/models.py::Flip.to_dict")
        views = "shop/views.py::"
        assert {c for c, basis in check.items() if basis == exact} == {
            f"{views}{f}" for f in ("checks", "one", "owner", "of_project", "narrowed")
        }
        assert {c for c, basis in flip.items() if basis == exact} == {
            f"{views}{f}" for f in ("flips", "previous", "first_of")
        }
        assert check[f"{views}plain"] == flip[f"{views}plain"] == "name only"
    finally:
        conn.close()


def test_a_test_making_a_model_runs_only_the_methods_it_calls(repo: Repo) -> None:
    """A Django model's methods are called on values the index types (its queries, its relations): a test making a
    Check does not stand for every method of Check, as a class whose instances the index cannot follow does."""
    from codeannals.store import queries

    repo.write("shop/__init__.py", "")
    repo.write("shop/models.py", MODELS)
    repo.write("shop/tests/__init__.py", "")
    repo.write(
        "shop/tests/test_models.py",
        "from django.test import TestCase\n\nfrom shop.models import Check, Plain\n\n\n"
        "class ModelsTestCase(TestCase):\n    def test_makes(self):\n        Check(kind=1).save()\n        Plain()\n\n"
        "    def test_lists(self):\n        for check in Check.objects.all():\n            check.to_dict()\n",
    )
    conn = indexed(repo)
    try:
        case = "shop/tests/test_models.py::ModelsTestCase::"
        assert queries.impact(conn, "shop/models.py::Check.to_dict")["tests"] == [f"{case}test_lists"]
        assert queries.impact(conn, "shop/models.py::Plain.to_dict")["tests"] == [f"{case}test_makes"]
    finally:
        conn.close()


def test_validating_a_django_form_runs_its_clean_methods(repo: Repo) -> None:
    """`form.is_valid()` runs the form's `clean()` and its `clean_<field>()` methods, which no code calls by name: those
    of the form's class, of its bases and of the forms deriving from it, and what its fields' `clean()` runs of the
    project's field classes (`to_python`); not a `clean` of a class that is no form."""
    repo.write("shop/__init__.py", "")
    repo.write(
        "shop/forms.py",
        "from django import forms\n\n\nclass TagsField(forms.CharField):\n    def to_python(self, value):\n"
        "        return value.split()\n\n\nclass SignupForm(forms.Form):\n    tags = TagsField()\n\n"
        "    def clean_email(self):\n        return 'a'\n\n\n"
        "class InviteForm(SignupForm):\n    def clean(self):\n        return {}\n\n\n"
        "class Cleaner:\n    def clean(self):\n        return None\n",
    )
    repo.write(
        "shop/views.py",
        "from .forms import SignupForm\n\n\ndef signup(request):\n    form = SignupForm(request.POST)\n"
        "    if form.is_valid():\n        return 'ok'\n",
    )
    conn = indexed(repo)
    try:
        signup = "shop/views.py::signup"
        assert caller_bases(conn, "shop/forms.py::SignupForm.clean_email")[signup] == "dispatched by name"
        assert caller_bases(conn, "shop/forms.py::InviteForm.clean")[signup] == "dispatched by name"
        assert caller_bases(conn, "shop/forms.py::TagsField.to_python")[signup] == "dispatched by name"
        assert signup not in caller_bases(conn, "shop/forms.py::Cleaner.clean")
    finally:
        conn.close()
