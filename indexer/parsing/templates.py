"""Django's (and Jinja's) templates: what a template runs when a view renders it.

A test requesting a view runs the template tags and filters of the template the view renders: `{{ check|down_title }}`
runs the function hc_extras.py registers as the filter `down_title`, after `{% load hc_extras %}`. No Python call
names it, so without the template the index would say the filter is untested, or guess its tests by name.

A template file (below a `templates/` folder, with `{%` or `{{` in it) is one symbol, of kind "template", named as
Django's loaders find it: the path below the folder (`front/details.html`). Its calls, each made by that symbol:
- the templates it extends or includes (`{% extends "base.html" %}`, Jinja's `{% import %}` too), each a TEMPLATE ref:
  rendering it renders them;
- each tag and filter it uses (`{% linemode %}`, `|down_title`, Jinja's globals called `{{ site_name() }}`), a TAG ref
  with the libraries it loads, which the store resolves to the function a library of the project registers under that
  name, or Flask registers for every template (store/templatetags.py);
- each attribute it looks up on a value (`{{ check.cloaked_url }}`, `{% if project.have_channel_issues %}`), a LOOKUP
  ref with the value's name, which the store resolves to the methods of ours a template can call so.

The views' side (`render(request, "front/details.html")`) is pytemplates.py's.
"""

from __future__ import annotations

import bisect
import re
from typing import Any

from ...store.refs import lookup_ref, tag_ref, template_ref
from ...store.symbol import TEMPLATE_KIND, Symbol
from .hashes import digest

_FOLDER = "templates"
_COMMENT = re.compile(r"{#.*?#}|{%-?\s*comment\b.*?{%-?\s*endcomment\s*-?%}", re.DOTALL)
_TAG = re.compile(r"{%-?\s*(\w+)(.*?)-?%}", re.DOTALL)
_VARIABLE = re.compile(r"{{(.*?)}}", re.DOTALL)
_FILTER = re.compile(r"\|\s*(\w+)")
_CALLED = re.compile(r"(?<![\w.])(\w+)\s*\(")  # Jinja's call of a global (`{{ site_name() }}`)
_QUOTED = re.compile(r"""(["'])([^"'{}]+)\1""")
_STRING = re.compile(r"""(["'])[^"']*\1""")
_LOOKED_UP = re.compile(r"(?<![\w.])([A-Za-z_]\w*)((?:\.[A-Za-z_]\w*)+)")  # `check.project.owner`
_NO_VALUE = frozenset({"forloop", "loop", "block", "super"})  # the language's own: `forloop.counter`, `block.super`
# Tags that load other templates: what they name renders with this one
_RENDERING = frozenset({"extends", "include", "import", "from"})
# Tags of the language itself, which no library registers: not worth a call each
_LANGUAGE = frozenset(
    "block comment else elif empty endblock endcomment endfor endif endwith for if load plural with".split()
)


def template_name(path: str) -> str | None:
    """The name Django's loaders find a template file by: its path below the last `templates/` folder on it."""
    parts = path.split("/")
    if _FOLDER not in parts[:-1]:
        return None
    below = len(parts) - 1 - parts[::-1].index(_FOLDER)
    return "/".join(parts[below + 1 :])


def is_template(path: str, source: bytes) -> bool:
    return template_name(path) is not None and (b"{%" in source or b"{{" in source)


def template_facts(path: str, source: bytes, lang: str, lines: int, *, complete: bool) -> tuple[Symbol, list[dict]]:
    """The template's one symbol and, when `complete`, its calls (an outline has none)."""
    name = template_name(path) or path
    text = source.decode("utf-8", "replace")
    symbol: Symbol = {
        "id": f"{path}::{name}",
        "name": name,
        "qualname": name,
        "kind": TEMPLATE_KIND,
        "language": lang,
        "path": path,
        "start_line": 1,
        "end_line": max(lines, 1),
        "signature": f"template {name}",
        "signature_hash": digest(name) if complete else None,
        "body_hash": digest(source) if complete else None,
        "doc": None,
        "parent": None,
        "exported": True,
        "params": [],
        "returns": None,
        "decorators": [],
    }
    return symbol, _calls(symbol["id"], _COMMENT.sub(_blanked, text)) if complete else []


def _calls(caller: str, text: str) -> list[dict[str, Any]]:
    """The templates it renders with it and the tags, filters and globals it uses, each a call by the template's
    symbol at its line."""
    libraries = sorted({lib for m in _TAG.finditer(text) if m[1] == "load" for lib in _loaded(m[2])})
    line_starts = [0, *(m.end() for m in re.finditer("\n", text))]
    out: list[dict[str, Any]] = []

    def call(name: str, ref: str, at: int) -> None:
        line = bisect.bisect_right(line_starts, at)
        out.append({"caller": caller, "name": name, "qualifier": None, "line": line, "ref": ref})

    for m in _TAG.finditer(text):
        tag, rest = m[1], m[2]
        if tag in _RENDERING:
            named = _QUOTED.search(rest)
            if named is not None:
                call(named[2], template_ref(named[2]), m.start())
        elif tag not in _LANGUAGE and not tag.startswith("end"):
            call(tag, tag_ref(libraries, tag), m.start())
        for f in [*_FILTER.finditer(rest), *_CALLED.finditer(rest)]:
            call(f[1], tag_ref(libraries, f[1]), m.start())
        if tag not in _RENDERING and tag != "load":
            for value, attribute in _lookups(rest):
                call(attribute, lookup_ref(value, attribute), m.start())
    for m in _VARIABLE.finditer(text):
        for f in [*_FILTER.finditer(m[1]), *_CALLED.finditer(m[1])]:
            call(f[1], tag_ref(libraries, f[1]), m.start())
        for value, attribute in _lookups(m[1]):
            call(attribute, lookup_ref(value, attribute), m.start())
    return out


def _lookups(expression: str) -> list[tuple[str, str]]:
    """(the value's name, the attribute) of each attribute an expression looks up: `check.project.owner` looks up
    `project` on `check` and `owner` on `project`. Not in a string; not the language's own (`forloop.counter`), nor a
    private name, which Django's templates do not look up."""
    out = []
    for chain in _LOOKED_UP.finditer(_STRING.sub("", expression)):
        names = [chain[1], *chain[2][1:].split(".")]
        if names[0] in _NO_VALUE:
            continue
        pairs = zip(names, names[1:], strict=False)
        out += [(value, attribute) for value, attribute in pairs if not attribute.startswith("_")]
    return out


def _loaded(rest: str) -> list[str]:
    """The libraries a `{% load %}` names: `hc_extras linemode`, or the one after `from` (`{% load x y from lib %}`)."""
    words = rest.split()
    return words[words.index("from") + 1 :][:1] if "from" in words else words


def _blanked(comment: re.Match[str]) -> str:
    """A comment as its lines, so that the calls after it keep their lines."""
    return "\n" * comment[0].count("\n")
