"""A symbol is what store/symbol.py declares, key for key and type for type: as extraction finds it
in every language the tests have a file of (and Python, and a grammar without a query of ours), and
as the symbols table gives it back. mypy checks the code against the types; this checks the types
against the data."""

from __future__ import annotations

import types
from pathlib import Path
from typing import Any, get_args, get_origin, get_type_hints

import pytest
from codeannals.indexer.parsing.extract import extract
from codeannals.indexer.parsing.parse import language_for
from codeannals.indexer.run import index_tree
from codeannals.store.projections.symbols import COLUMNS
from codeannals.store.symbol import Symbol, SymbolRow, symbol_dict

FIXTURES = Path(__file__).parent / "fixtures" / "languages"
PYTHON = b'''"""Shapes."""
from typing import overload


class Shape:
    """A shape."""

    @overload
    def scale(self, by: int) -> Shape: ...
    @overload
    def scale(self, by: float) -> Shape: ...
    def scale(self, by):
        return self


def area(shape: Shape, *, exact: bool = False) -> float:
    return 0.0
'''
KOTLIN = b"class Circle(val r: Double) { fun area(): Double = r * r }\nfun main() { println(Circle(1.0).area()) }\n"


def conforms(value: Any, hint: Any) -> bool:
    if isinstance(hint, types.UnionType):
        return any(conforms(value, h) for h in get_args(hint))
    if get_origin(hint) is list:
        return isinstance(value, list) and all(conforms(v, get_args(hint)[0]) for v in value)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint)


def mismatches(symbol: dict[str, Any], declared: Any) -> list[str]:
    """Keys missing, keys undeclared, and values of another type than declared."""
    hints = get_type_hints(declared)
    out = [f"missing {k}" for k in sorted(declared.__required_keys__ - symbol.keys())]
    out += [f"undeclared {k}" for k in sorted(symbol.keys() - hints.keys())]
    out += [
        f"{k}={symbol[k]!r} is no {hints[k]}"
        for k in sorted(symbol.keys() & hints.keys())
        if not conforms(symbol[k], hints[k])
    ]
    return out


SOURCES = [(f"src/{p.name}", p.read_bytes()) for p in sorted(FIXTURES.iterdir())]
SOURCES += [("src/shapes.py", PYTHON), ("src/Main.kt", KOTLIN)]


@pytest.mark.parametrize(("path", "source"), SOURCES, ids=[path for path, _ in SOURCES])
def test_extracted_symbols_are_what_the_type_declares(path: str, source: bytes) -> None:
    lang = language_for(path)
    assert lang is not None
    found = extract(path, source, lang).symbols
    assert found, path
    for symbol in found:
        assert mismatches(dict(symbol), Symbol) == [], symbol["id"]


def test_an_overload_set_carries_its_stubs_and_other_symbols_leave_the_key_out() -> None:
    found = {s["qualname"]: s for s in extract("src/shapes.py", PYTHON, "python").symbols}
    assert found["Shape.scale"].get("overloads") == [
        "def scale(self, by: int) -> Shape",
        "def scale(self, by: float) -> Shape",
    ]
    assert "overloads" not in found["area"]


def test_the_symbols_table_reads_back_as_its_type_declares(repo, store) -> None:  # type: ignore[no-untyped-def]
    assert list(COLUMNS) == list(get_type_hints(SymbolRow))  # one list of keys, in the table's order
    repo.write("src/shapes.py", PYTHON)
    repo.write("src/Shapes.java", (FIXTURES / "Shapes.java").read_bytes())
    index_tree(repo.root, store)
    rows = [symbol_dict(r) for r in store.execute("SELECT * FROM symbols")]
    assert len(rows) > 5
    for row in rows:
        assert list(row) == list(COLUMNS)
        assert mismatches(dict(row), SymbolRow) == [], row["id"]
