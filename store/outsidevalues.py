"""Which Python values are outside code's, so that a method called on one is theirs (store/resolver.py: basis
`external`), never a guess by name at a method of ours: what a function of ours returns declared a builtin class
(`-> bytes`, `-> list[str]`) or a class of the standard library (`-> sqlite3.Connection`); an instance's field
declared a builtin class (`loads: t.Dict[str, t.Any]`), or assigned nothing but literals of one (pymembers.py);
what one of pytest's own fixtures gives (`tmp_path`). The extraction says the rest (callrefs.py): literals,
`*args` and `**kwargs`, `with open(p) as f`, names declared builtin containers.

bench/facts_calls_py.py counts the answers given where only code not ours ran: with the guesses, 290 on the dev
projects at 18fc813, 122 with these rules and the extraction's; every figure of the sites where code of ours ran the
same but the operators' (callrefs.py). This repository's own index: 1,161 guesses of 1,890 gone, each a builtin's."""

from __future__ import annotations

import sqlite3
import sys
from dataclasses import replace

from .db import stored_list
from .refs import Ref
from .typedvalues import TypedValues
from .typenames import annotation_names, python_builtin_classes

# pytest's own fixtures whose values are pytest's or the standard library's objects (`tmp_path / "x"` a Path): a
# method of one is never ours. Not `request` (`request.getfixturevalue(name)` gives any fixture's value), nor a
# plugin's fixture, which may give one of ours (pytest-factoryboy's `register(UserFactory)` makes `user`).
PYTEST_FIXTURES = frozenset(
    "tmp_path tmp_path_factory tmpdir tmpdir_factory monkeypatch capsys capsysbinary capfd capfdbinary caplog recwarn"
    " pytestconfig record_property record_xml_attribute record_testsuite_property cache doctest_namespace".split()
)

# Modules of abstract types (a class of ours may implement `Iterator`, `Mapping`): a value declared one may be ours.
ABSTRACT_MODULES = frozenset({"typing", "typing_extensions", "collections.abc", "abc", "numbers", "_typeshed"})


def _standard_class(module: str | None) -> bool:
    """Whether a class of this module is the standard library's own, none of whose methods runs code of ours by
    its name. Not a third-party library's, which may be handed our objects and call them back: Flask hands
    itsdangerous its session serializer, whose `dumps` runs Flask's TaggedJSONSerializer.dumps (bench/facts_tests.py:
    Flask's recall 0.95 -> 0.92 when a method of any outside class was outside code)."""
    return module is not None and module.split(".")[0] in sys.stdlib_module_names and module not in ABSTRACT_MODULES


class OutsideValues(TypedValues):
    """The rules above, read through the class hierarchy, the declared types and the resolver's walk."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        super().__init__(conn)
        self._fixture_names: dict[str, bool] = {}  # _ours_as_fixture, by name

    def _target_of(self, path: str, ref: Ref) -> str | None:
        """The symbol a ref of `path` names: CallResolver's."""
        raise NotImplementedError

    def of_outside_value(self, path: str, ref: Ref) -> bool:
        """Whether a Python call the walk could not follow is of a method of a value outside code's."""
        return self._on_an_outside_result(path, ref) or self._on_a_builtin_field(path, ref)

    def pytests_fixture(self, name: str) -> bool:
        """Whether a fixture a test takes is one of pytest's own (no fixture of ours has the name)."""
        return name in PYTEST_FIXTURES and not self._ours_as_fixture(name)

    def _on_a_builtin_field(self, path: str, ref: Ref) -> bool:
        """Whether the call is of a method of a Python instance's field declared a builtin class (`self.loads.items()`,
        `loads: t.Dict[str, t.Any]`; `self.__dict__.copy()`): that class's method. Not of what it holds
        (`self.blocks[k].run()`), nor of a field declared abstract (`t.Mapping[str, str]`: it may be ours)."""
        if len(ref.segments) < 3 or not ref.segments[-3].endswith("()") or not path.endswith(".py"):
            return False
        field = ref.segments[-2]
        if not field.isidentifier():
            return False
        owner = self._class_named(path, replace(ref, segments=ref.segments[:-2]), 0)
        if owner is None or not owner["path"].endswith((".py", ".pyi")):
            return False
        if field == "__dict__":
            return True
        declared = self._declared_field(owner, field)
        if declared is None:
            return False
        return self._builtins_there(declared[0]["path"], python_builtin_classes(declared[1]))

    def _on_an_outside_result(self, path: str, ref: Ref) -> bool:
        """Whether the call is of a method of what a Python function of ours returns, declared a builtin class or
        one imported from outside (`run_git(...).decode()`, run_git `-> bytes`; `names().append(x)`, `-> list[str]`;
        `connect(db).close()`, `-> sqlite3.Connection`): that class's method. Every `conn.close()` of this
        repository was a guess at each `close` of ours, `run_git(...).decode()` a sure-looking `unique name` one."""
        if len(ref.segments) < 2 or not ref.segments[-2].endswith("()") or not path.endswith(".py"):
            return False
        called = replace(ref, segments=(*ref.segments[:-2], ref.segments[-2].removesuffix("()")))
        target = self._target_of(path, called)
        function = self.symbol(target) if target is not None else None
        if function is None or function["kind"] not in ("function", "method"):
            return False
        if not function["path"].endswith((".py", ".pyi")):
            return False
        written = function["returns"] or ""
        builtin = python_builtin_classes(written)
        if builtin:
            return self._builtins_there(function["path"], builtin)
        named = annotation_names(written)
        outside = self.outside_modules(function["path"])
        return bool(named) and all(_standard_class(outside.get(n.split(".")[0])) for n in named)

    def _builtins_there(self, path: str, names: list[str] | None) -> bool:
        """Whether the builtin classes an annotation of `path` names are the builtins there: none of them a name the
        file binds to something of ours (`class List`)."""
        return bool(names) and all(self._walk(path, (n,), 0) is None for n in names or ())

    def _ours_as_fixture(self, name: str) -> bool:
        """Whether some function of the repository of this name is a pytest fixture (overriding pytest's own)."""
        if name not in self._fixture_names:
            rows = self.conn.execute("SELECT decorators FROM symbols WHERE name = ? AND kind = 'function'", (name,))
            self._fixture_names[name] = any("fixture" in d for row in rows for d in stored_list(row[0]))
        return self._fixture_names[name]
