"""What Django's models and forms do that no code of the project says.

A model's manager gives its instances: `Check.objects.filter(...)` is a query of Checks, each of its elements a Check,
and so is what `get()` or `first()` returns. The call on one (`check.to_dict()` in `for check in
Check.objects.filter(...)`) is that model's method, not a guess at every method of the name (Channel.to_dict,
Flip.to_dict, Ping.to_dict: four models of Healthchecks have one).

A model is a class deriving, itself or through classes of the project, from django.db.models' `Model` (or
django.contrib.auth's abstract users); its manager is its `objects`, Django's unless the class says otherwise: a
manager of the project's own (`objects = ProfileManager()`) is read as any attribute is, and only what it leaves
unsaid (a query method it inherits from Django's) is read here. A model's `check_set` is the manager of the Checks
relating to it (by a ForeignKey or a ManyToManyField), where the index has one model named so.

Where queries are read so: callrefs.py gives the elements of `list(q)`, `sorted(q)` and `q[:10]` as q's, pylibcalls.py
reads `get_object_or_404(Check, ...)` and a relation field (`owner = models.ForeignKey(Check, ...)`: `flip.owner` is a
Check), and store/resolver.py walks from the model past its manager's query (`past_the_query`). With a model's methods
called on values the index follows, a test making a model no longer stands for every method of it (store/testmap.py).

bench/facts_tests_routes.py, Healthchecks v3.9's 2,363 functions, recall / precision of the test files listed 0.991 /
0.823 -> 0.992 / 0.823 (mean precision 0.8232 -> 0.8233): Ping.to_dict's one test file listed (42 test files ->
17), Flip.to_dict 48 -> 28, Channel.to_dict 164 -> 140; Member.is_rw 55 of its 67 -> all 67, in 178 (the views
read it only for a member who owns no project, as few tests are). With `check_set` read too: mean precision 0.82332,
Ping.to_dict 14, Flip.to_dict 25, absolute_url 84 -> 81, no function's list longer. The other apps,
bench/facts_tests.py and bench/facts_calls_py.py the same.

A form's `is_valid()` (or `full_clean()`) runs its `clean()` and a `clean_<field>()` per field, which no code of the
project calls by name (store/resolver.py's `dispatched`): its Healthchecks test files 0.991 / 0.896 -> 0.993 / 0.899
(mean precision 0.8957 -> 0.8988), the clean methods' own lists mostly halved (`TimeoutForm.clean_grace` 2 -> its 1);
with what its fields' `clean()` runs of the project's field classes, mean precision 0.8989 (`_is_latin1`, which
HeadersField.to_python calls, 0 of its 2 test files -> both).
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from .db import held_while_unchanged
from .hierarchy import ClassHierarchy
from .symbol import RESOLVER_COLUMNS
from .typenames import base_names

if TYPE_CHECKING:
    from .resolver import CallResolver

# Django's model bases, by their last name, in a file importing django: `models.Model`, `AbstractUser`.
MODEL_BASES = frozenset({"Model", "AbstractUser", "AbstractBaseUser"})
MANAGERS = frozenset({"objects", "_default_manager", "_base_manager"})
# QuerySet's methods giving a query of the same model
QUERIES = frozenset(
    """all filter exclude order_by distinct select_related prefetch_related annotate alias only defer using reverse
    none select_for_update extra union intersection difference complex_filter""".split()
)
# ...and those giving one of its instances (`get_or_create()` a pair: the instance, whether it was made)
INSTANCES = frozenset("get first last latest earliest create".split())
PAIRS = frozenset({"get_or_create", "update_or_create"})


# A form's base classes, by their last name: `forms.Form`, `forms.ModelForm`
FORM_BASES = frozenset({"Form", "ModelForm", "BaseForm", "BaseModelForm"})
# What validates a form (`is_valid()` runs `full_clean()`), running its `clean()` and a `clean_<field>()` per field
VALIDATING = frozenset({"is_valid", "full_clean"})
# ...and each field's `clean()`, which runs these
FIELD_CLEANING = ("clean", "to_python", "validate", "run_validators")


def validates(ref_text: str) -> bool:
    """Whether a call's ref may validate a Django form: a method of VALIDATING, on some value."""
    return any(alternative.rpartition(".")[2] in VALIDATING for alternative in ref_text.split("|"))


def cleans(name: str) -> bool:
    """Whether a form's method of that name is one validating it runs: `clean`, `clean_email`."""
    return name == "clean" or name.startswith("clean_")


def past_the_query(segments: tuple[str, ...]) -> tuple[str, ...] | None:
    """What is read of an instance after a manager's query (`filter()`, `order_by()[]`, `get()`, `to_dict`: the
    `to_dict` of what `get()` gives), or None where the segments give no instance (a call of the query's own
    method, `filter`; what `values()` gives, dictionaries)."""
    for i, written in enumerate(segments):
        element = written.endswith("[]")
        called = written.removesuffix("[]")
        if not called.endswith("()"):
            pair = called.endswith("[0]") and called.removesuffix("[0]").removesuffix("()") in PAIRS
            return segments[i + 1 :] if pair else None
        name = called.removesuffix("()")
        if name in INSTANCES and not element:
            return segments[i + 1 :]
        if name not in QUERIES:
            return None
        if element:
            return segments[i + 1 :]
    return None


def derives_from_django(classes: ClassHierarchy, cls: sqlite3.Row, bases: frozenset[str]) -> bool:
    """Whether a Python class derives from one of Django's classes named so (MODEL_BASES, FORM_BASES), itself or through
    classes of ours."""
    return bool(django_bases(classes, cls) & bases)


def django_bases(classes: ClassHierarchy, cls: sqlite3.Row) -> set[str]:
    """The last names of the bases outside the project a Python class derives from, itself or through classes of ours,
    where the file naming them imports django (`Model` of `models.Model`)."""
    found: set[str] = set()
    for c in classes.mro(cls):
        if any((i["module"] or "").startswith("django") for i in classes.imports_of(c["path"])):
            found.update(b.rsplit(".", 1)[-1] for b in base_names(c["signature"] or ""))
    return found


def queried_model(classes: ClassHierarchy, cls: sqlite3.Row, manager: str) -> sqlite3.Row | None:
    """The model a Django model's manager queries: its own (`objects`), or, for the manager of what relates to it
    (`check_set` of a Project: the Checks whose ForeignKey is that project), the one model of the index so named."""
    if not derives_from_django(classes, cls, MODEL_BASES):
        return None
    if manager in MANAGERS:
        return cls
    if not manager.endswith("_set") or manager == "_set":
        return None
    return _models_by_name(classes).get(manager.removesuffix("_set"))


def _models_by_name(classes: ClassHierarchy) -> dict[str, sqlite3.Row]:
    """The project's Django models by their names in lower case, those no other model shares."""

    def read() -> dict[str, sqlite3.Row]:
        rows = classes.conn.execute(f"SELECT {RESOLVER_COLUMNS} FROM symbols WHERE kind = 'class' AND path LIKE '%.py'")
        found: dict[str, list[sqlite3.Row]] = {}
        for row in rows.fetchall():
            if derives_from_django(classes, row, MODEL_BASES):
                found.setdefault(row["name"].lower(), []).append(row)
        return {name: models[0] for name, models in found.items() if len(models) == 1}

    return held_while_unchanged(classes.conn, "django models by name", read)


def run_by_validation(classes: ClassHierarchy, cls: sqlite3.Row, name: str) -> bool:
    """Whether validating a form may run a method of that name of the class: a clean method of a form, or what a field's
    `clean()` runs of a field class (the calls `cleaning` says they may be)."""
    if cleans(name) and derives_from_django(classes, cls, FORM_BASES):
        return True
    return name in FIELD_CLEANING and _is_field(classes, cls)


def _is_field(classes: ClassHierarchy, cls: sqlite3.Row) -> bool:
    """Whether a class derives from one of Django's form fields (`forms.Field`, `forms.URLField`)."""
    return any(b.endswith("Field") for b in django_bases(classes, cls))


def cleaning(classes: CallResolver, form: sqlite3.Row) -> list[str]:
    """The methods validating a Django form runs (`cleans`): its own or inherited, and those of the forms deriving from
    it, on whose instances the call may be too, and those of its fields of the project's own field classes
    (`headers = HeadersField()`: its `to_python`, `validate`); none for a class that is no Django form."""
    if not derives_from_django(classes, form, FORM_BASES):
        return []
    found: dict[str, None] = {}
    forms = [form, *classes.descendants(form)]
    for cls in forms:
        own = (m for c in classes.mro(cls) for m in classes.symbols_of(c["path"]).values() if m["parent"] == c["id"])
        names = sorted({m["name"] for m in own if cleans(m["name"])})
        found.update((m["id"], None) for n in names if (m := classes.member(cls, n)) is not None)
    declaring = {c["id"]: c for cls in forms for c in classes.mro(cls)}  # each class declaring fields, once
    for c in declaring.values():
        for name in classes.typed_members(c["id"]):
            field = classes.field_class(c, name)
            if field is not None and _is_field(classes, field):
                cleaned = (classes.member(field, n) for n in FIELD_CLEANING)
                found.update((m["id"], None) for m in cleaned if m is not None)
    return list(found)
