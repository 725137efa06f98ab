"""Python extraction: qualified names, kinds, spans, hashes, docstrings, imports, calls, tags."""

from __future__ import annotations

from codeannals.indexer.parsing.extract import extract

SOURCE = b'''"""Shapes and their areas.

More text.
"""
import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .units import Unit

__all__ = ["Circle", "area"]


# req: GEOM-1
@dataclass(frozen=True)
class Circle:
    """A circle."""

    radius: float

    @property
    def area(self) -> float:
        """Its area."""
        def square(x):
            return x * x
        return math.pi * square(self.radius)

    class Meta:
        pass


async def area(shape: "Circle", *, precise: bool = False) -> float:
    # req: GEOM-2, GEOM-3
    return shape.area


def _private():
    import json
    return json.dumps({})
'''


def by_qualname(source: bytes = SOURCE) -> dict[str, dict]:
    return {s["qualname"]: s for s in extract("pkg/shapes.py", source, "python").symbols}


def test_qualified_names_and_kinds() -> None:
    symbols = by_qualname()
    assert {q: s["kind"] for q, s in symbols.items()} == {
        "Circle": "class",
        "Circle.area": "method",
        "Circle.area.square": "function",
        "Circle.Meta": "class",
        "area": "function",
        "_private": "function",
    }
    assert symbols["Circle.area"]["id"] == "pkg/shapes.py::Circle.area"
    assert symbols["Circle.area.square"]["parent"] == "pkg/shapes.py::Circle.area"


def test_span_includes_decorators_and_docstring() -> None:
    circle = by_qualname()["Circle"]
    assert circle["start_line"] == 15  # the @dataclass line
    assert circle["decorators"] == ["@dataclass(frozen=True)"]
    assert by_qualname()["Circle.area"]["start_line"] == 21  # @property


def test_signature_params_returns_and_doc() -> None:
    area = by_qualname()["area"]
    assert area["signature"] == 'async def area(shape: "Circle", *, precise: bool = False) -> float'
    assert area["params"] == ['shape: "Circle"', "*", "precise: bool = False"]
    assert area["returns"] == "float"
    assert by_qualname()["Circle"]["doc"] == "A circle."
    assert by_qualname()["_private"]["exported"] is False


def test_module_doc_all_imports_and_calls() -> None:
    facts = extract("pkg/shapes.py", SOURCE, "python")
    assert facts.module_doc and facts.module_doc.startswith("Shapes and their areas.")
    assert facts.declared_api == ["Circle", "area"]
    imports = [(i["module"], i["names"], i["level"]) for i in facts.imports]
    assert ("math", [], 0) in imports
    assert ("units", ["Unit"], 1) in imports  # inside TYPE_CHECKING
    assert ("json", [], 0) in imports  # inside a function
    calls = {(c["caller"], c["qualifier"], c["name"]) for c in facts.calls}
    assert ("pkg/shapes.py::Circle.area", None, "square") in calls
    assert ("pkg/shapes.py::_private", "json", "dumps") in calls


def test_requirement_tags_in_comments_attach_to_their_symbol() -> None:
    tags = {(t["tag"], t["symbol"]) for t in extract("pkg/shapes.py", SOURCE, "python").tags}
    assert tags == {
        ("GEOM-1", "pkg/shapes.py::Circle"),
        ("GEOM-2", "pkg/shapes.py::area"),
        ("GEOM-3", "pkg/shapes.py::area"),
    }


def test_layout_comments_and_trailing_commas_do_not_change_hashes() -> None:
    before = by_qualname(b"def f(a, b):\n    return g(a,\n             b)\n")["f"]
    after = by_qualname(b"def f(a, b,):\n    # why\n    return g(a, b,)  # done\n")["f"]
    assert (before["body_hash"], before["signature_hash"]) == (after["body_hash"], after["signature_hash"])


def test_a_string_is_hashed_by_its_value_not_its_spelling() -> None:
    def body(literal: bytes) -> str:
        return by_qualname(b"def f():\n    return " + literal + b"\n")["f"]["body_hash"]

    same = {body(b"'a b'"), body(b'"a b"'), body(b"'''a b'''"), body(b'r"a b"'), body(b'"a\\x20b"'), body(b"'a' ' b'")}
    assert len(same) == 1
    assert len({body(b"'a b'"), body(b"'a c'"), body(b"b'a b'"), body(b"f'a b'"), body(b"f'a {b}'"), body(b"''")}) == 6
    assert body(b"'unterminated") != body(b"'unterminated'")


def test_reindenting_a_whole_function_does_not_change_its_body_hash() -> None:
    two = by_qualname(b"def f(x):\n  if x:\n    return 1\n  return 2\n")["f"]
    four = by_qualname(b"def f(x):\n    if x:\n        return 1\n    return 2\n")["f"]
    assert two["body_hash"] == four["body_hash"]


def test_a_body_change_changes_only_the_body_hash() -> None:
    before = by_qualname(b"def f(a):\n    return a + 1\n")["f"]
    after = by_qualname(b"def f(a):\n    return a - 1\n")["f"]
    assert before["signature_hash"] == after["signature_hash"]
    assert before["body_hash"] != after["body_hash"]


def test_moving_a_statement_out_of_a_block_changes_the_body_hash() -> None:
    inside = by_qualname(b"def f(a):\n    if a:\n        a()\n        b()\n")["f"]
    outside = by_qualname(b"def f(a):\n    if a:\n        a()\n    b()\n")["f"]
    assert inside["body_hash"] != outside["body_hash"]


def test_a_parameter_change_changes_the_signature_hash() -> None:
    before = by_qualname(b"def f(a):\n    return a\n")["f"]
    after = by_qualname(b"def f(a, b=1):\n    return a\n")["f"]
    assert before["signature_hash"] != after["signature_hash"]


def test_redefinitions_get_distinct_ids() -> None:
    symbols = extract("m.py", b"def f():\n    pass\ndef f():\n    return 1\n", "python").symbols
    assert [s["id"] for s in symbols] == ["m.py::f", "m.py::f#2"]


def test_a_constant_signature_reads_a_brace_in_a_string_as_text_and_one_after_its_equals_as_its_value() -> None:
    source = b'import re\nPARAM_REGEX = re.compile("{([a-z_]+)}")\nDEFAULTS = {\n    "a": 1,\n}\n'
    python = {s["name"]: s["signature"] for s in extract("routes.py", source, "python").symbols}
    assert python == {"PARAM_REGEX": 'PARAM_REGEX = re.compile("{([a-z_]+)}")', "DEFAULTS": 'DEFAULTS = {"a": 1}'}
    source = b"export const TEMPLATE = `${base}/{id}`;\nexport const LIMITS = { max: 3 };\n"
    typescript = {s["name"]: s["signature"] for s in extract("limits.ts", source, "typescript").symbols}
    assert typescript == {"TEMPLATE": "const TEMPLATE = `${base}/{id}`", "LIMITS": "const LIMITS = {max: 3}"}
    source = b"module Rack\n  VALUE = /a#{TOKEN}b/ni\n  CHAR = %r{[^ \\t]}\n  LIMITS = { max: 3 }\nend\n"
    ruby = {s["name"]: s["signature"] for s in extract("rack.rb", source, "ruby").symbols if s["kind"] == "const"}
    assert ruby == {"VALUE": "VALUE = /a#{TOKEN}b/ni", "CHAR": "CHAR = %r{[^ \\t]}", "LIMITS": "LIMITS = {max: 3}"}


def test_type_aliases_type_variables_and_the_version_are_symbols() -> None:
    source = b"""from typing import Callable, TypeAlias, TypeVar
type Pair[T] = tuple[T, T]
Scope: TypeAlias = dict[str, object]
T_co = TypeVar("T_co", covariant=True)
ASGIApp = Callable[[Scope], None]
Handler = ASGIApp | None
MAX = 3
__version__ = "1.0"
logger = make_logger()
total = first | second
"""
    kinds = {s["name"]: s["kind"] for s in extract("types.py", source, "python").symbols}
    assert kinds == {
        "Pair": "type",
        "Scope": "type",
        "T_co": "type",
        "ASGIApp": "type",
        "Handler": "type",
        "MAX": "const",
        "__version__": "const",
    }
