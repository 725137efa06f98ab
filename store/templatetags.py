"""What a template's calls reach (indexer/parsing/templates.py): the templates it extends or includes, and the
functions the project's template tag libraries register for the tags and filters it uses.

A library is a module `<app>/templatetags/<library>.py`, which a template loads by its name (`{% load hc_extras %}`).
It registers a function under its own name (`@register.filter def down_title(check)`, `register.tag("linemode",
linemode)`), or under the name a decorator gives (`@register.filter(name="hc_duration")`). A tag or filter no
library of the project registers is Django's own (`url`, `date`) or a package's: it reaches nothing here.

A template whose name a view writes with a value in it (`render_to_string("emails/%s-subject.html" % name)`) is any
template whose name fits (`rendered`), unless the value is a parameter the file's own calls give a string
(indexer/parsing/pytemplates.py): rendering every email's template would reach the tests of every email.

bench/facts_tests_routes.py, Healthchecks v3.9 (truth: coverage with a context per test): its template tag libraries'
36 functions, recall / precision of the test files listed, 0.433 / 0.441 -> 0.937 / 0.406 (with every template a
name with a value fits: 0.938 / 0.297); all 2,363 functions 0.967 / 0.823 -> 0.976 / 0.822, said untested 48 -> 42
(linemode.py's six).

An attribute a template looks up on a value (`{{ check.cloaked_url }}`) calls the method of that name of the class the
value is named after (Check), where it needs no argument (`looked_up`): a model method only templates call had no
caller. Healthchecks' 2,363 functions, recall 0.98954 -> 0.98982 (Project.checks_url's 0.33 -> 1.00), precision the
same to the third digit; with the one method of ours of the name for a value named otherwise (`{{ c.kind }}`), 0.821:
a model's field (Check.kind) took Spec.kind's 5 test files to 67."""

from __future__ import annotations

import re
import sqlite3

from .db import held_while_unchanged, stored_list
from .refs import PATH_HOLE, TEMPLATE
from .symbol import TEMPLATE_KIND

RENDERS = "renders the template"  # a call's basis: `render(request, "x.html")`, `{% extends "base.html" %}`
USES_TAG = "uses the template tag"  # `{{ check|down_title }}`, `{% linemode %}`
LOOKS_UP = "looks it up in a template"  # `{{ check.cloaked_url }}`
_LIBRARY = re.compile(r"(?:^|/)templatetags/(\w+)\.py$")
_REGISTERED_AS = re.compile(r"""@register\.\w+\(\s*(?:name\s*=\s*)?["'](\w+)["']""")
# Flask's `@app.template_filter()`, `@bp.app_template_global("now")`, `@app.template_test(name="prime")`
_FLASK_REGISTERED = re.compile(
    r"""@[\w.]*\.(?:app_)?template_(?:filter|global|test)\(\s*(?:name\s*=\s*)?(?:["'](?P<name>\w+)["'])?"""
)
EVERY_TEMPLATE = ""  # the library of what every template may use, loaded or not


def templates(conn: sqlite3.Connection) -> dict[str, list[str]]:
    """Each template's name -> its symbols' ids (one per file of that name: apps may each have one)."""

    def read() -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for name, symbol_id in conn.execute("SELECT name, id FROM symbols WHERE kind = ?", (TEMPLATE_KIND,)):
            out.setdefault(name, []).append(symbol_id)
        return out

    return held_while_unchanged(conn, "templates", read)


def rendered(conn: sqlite3.Connection, name: str) -> list[str]:
    """The templates a TEMPLATE ref's name renders: the one so named, or, where values are written into it
    (`emails/{}-subject.html`), every one whose name fits."""
    found = templates(conn)
    if PATH_HOLE not in name:
        return found.get(name, [])
    fits = _pattern(name)
    return [t for written, ids in found.items() if fits.fullmatch(written) for t in ids]


def patterns_naming(conn: sqlite3.Connection, name: str) -> list[str]:
    """The names with holes the code renders (`emails/{}-subject.html`) that fit this template's name: the callers of
    its symbol are looked up by them too."""

    def read() -> list[tuple[str, re.Pattern[str]]]:
        rows = conn.execute(
            "SELECT DISTINCT name FROM calls WHERE ref LIKE ? AND name LIKE ?", (f"{TEMPLATE}:%", f"%{PATH_HOLE}%")
        )
        return [(written, _pattern(written)) for (written,) in rows]

    return [written for written, fits in held_while_unchanged(conn, "template patterns", read) if fits.fullmatch(name)]


def _pattern(name: str) -> re.Pattern[str]:
    return re.compile(".+".join(re.escape(part) for part in name.split(PATH_HOLE)))


def tag_functions(conn: sqlite3.Connection) -> dict[tuple[str, str], list[str]]:
    """(library, tag or filter name) -> the functions registered so: a library's top-level functions, each under its
    own name and the one its `@register...(name=...)` decorator gives; and under EVERY_TEMPLATE, Flask's filters,
    globals and tests (`@app.template_filter()`, `@bp.app_template_filter("ago")`), which every template has."""

    def read() -> dict[tuple[str, str], list[str]]:
        out: dict[tuple[str, str], list[str]] = {}
        rows = conn.execute(
            "SELECT id, name, path, decorators FROM symbols WHERE kind = 'function' AND parent IS NULL"
            " AND (path LIKE '%templatetags/%.py' OR decorators LIKE '%template\\_%' ESCAPE '\\')"
        )
        for symbol_id, name, path, decorators in rows:
            written = " ".join(stored_list(decorators))
            library = _LIBRARY.search(path)
            if library is not None:
                for registered in {name, *_REGISTERED_AS.findall(written)}:
                    out.setdefault((library[1], registered), []).append(symbol_id)
            for flask in _FLASK_REGISTERED.finditer(written):
                out.setdefault((EVERY_TEMPLATE, flask["name"] or name), []).append(symbol_id)
        return out

    return held_while_unchanged(conn, "template tags", read)


def registered_names(conn: sqlite3.Connection, symbol_id: str) -> set[str]:
    """The names a library registers this function under (`hc_duration` of `@register.filter(name="hc_duration")`): the
    templates' calls of it are looked up by them."""

    def read() -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        for (_, name), ids in tag_functions(conn).items():
            for i in ids:
                out.setdefault(i, set()).add(name)
        return out

    return held_while_unchanged(conn, "template tag names", read).get(symbol_id, set())


def looked_up(conn: sqlite3.Connection, value: str, attribute: str) -> list[str]:
    """The method a template's lookup of an attribute on a value runs (`{{ check.cloaked_url }}`): one of ours of that
    name a template can call, needing no argument (Django calls a callable attribute so), of the class named as the
    value (`check`: Check). Of a value named otherwise the template does not say which class it is, and the attribute
    is as likely a model's field (`{{ c.kind }}`) as the one method of ours of that name: nothing."""
    return [symbol_id for cls, symbol_id in _template_callable(conn).get(attribute, []) if cls.lower() == value.lower()]


def _template_callable(conn: sqlite3.Connection) -> dict[str, list[tuple[str, str]]]:
    """The Python methods a template can call, by name: (their class's name, their id). A property, or a method
    whose parameters after the instance all have defaults."""

    def read() -> dict[str, list[tuple[str, str]]]:
        out: dict[str, list[tuple[str, str]]] = {}
        for name, symbol_id, params, cls in conn.execute(
            "SELECT s.name, s.id, s.params, c.name FROM symbols s JOIN symbols c ON c.id = s.parent"
            " WHERE s.kind = 'method' AND c.kind = 'class' AND s.language = 'python'"
        ):
            given = [str(p) for p in stored_list(params)[1:]]
            if not name.startswith("_") and all("=" in p or p.startswith("*") for p in given):
                out.setdefault(name, []).append((cls, symbol_id))
        return out

    return held_while_unchanged(conn, "template callable methods", read)
