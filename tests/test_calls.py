"""Call facts an agent can trust: overload sets, calls resolved through imports, impact by fan-in."""

from __future__ import annotations

import json

from codeannals.indexer.parsing.extract import extract
from codeannals.indexer.run import index_tree
from codeannals.store import lookups, queries
from codeannals.store.callreach import HIGH_REACH
from codeannals.store.events import upcast

from .conftest import Repo, caller_bases, indexed

OVERLOADED = '''import typing
from typing import overload


class Command:
    @typing.overload
    def main(self, standalone: "typing.Literal[True]" = True) -> "typing.NoReturn": ...

    @typing.overload
    def main(self, standalone: bool = ...) -> int: ...

    def main(self, standalone=True):
        """Run the command."""
        return run(standalone)


@overload
def prompt(text: str) -> str: ...
@overload
def prompt(text: str, kind: type[int]) -> int: ...
def prompt(text, kind=str):
    return kind(text)


def run(standalone):
    return Command().main(standalone) if standalone is None else prompt("x")
'''


def test_an_overload_set_is_one_symbol_with_its_signatures(repo: Repo, annals) -> None:  # type: ignore[no-untyped-def]
    repo.write("app/cli.py", OVERLOADED)
    repo.commit("cli")
    conn = indexed(repo)
    try:
        ids = [s["id"] for s in queries.list_symbols(conn, path="app/cli.py")]
        assert ids == ["app/cli.py::Command", "app/cli.py::Command.main", "app/cli.py::prompt", "app/cli.py::run"]
        main = queries.find_symbol(conn, "Command.main")  # one symbol: the name is not ambiguous
        assert main["signature"] == "def main(self, standalone=True)" and main["doc"] == "Run the command."
        assert [s.split("->")[1].strip() for s in main["overloads"]] == ['"typing.NoReturn"', "int"]
        prompt = queries.find_symbol(conn, "prompt")
        assert len(prompt["overloads"]) == 2
        # the stubs are no callers, callees or edit candidates: the calls in run reach the implementations
        assert {c["target"] for c in queries.callees(conn, queries.find_symbol(conn, "run"))} >= {
            "app/cli.py::Command.main",
            "app/cli.py::prompt",
        }
    finally:
        conn.close()
    shown = json.loads(annals("show", "app/cli.py::Command.main@HEAD", "--json").stdout)
    assert "return run(standalone)" in shown["source"]
    assert "def prompt(text, kind=str)" in annals("show", "app/cli.py::prompt@HEAD").stdout


def test_a_stub_only_overload_set_keeps_the_first_stub() -> None:
    facts = extract(
        "m.pyi",
        b"from typing import overload\n@overload\ndef f(x: int) -> int: ...\n@overload\ndef f(x: str) -> str: ...\n",
        "python",
    )
    assert [(s["id"], s["signature"], s["overloads"]) for s in facts.symbols] == [
        ("m.pyi::f", "def f(x: int) -> int", ["def f(x: str) -> str"])
    ]


def test_an_overload_changes_the_signature_hash() -> None:
    before = extract("m.py", OVERLOADED.encode(), "python").symbols
    after = extract("m.py", OVERLOADED.replace("-> int: ...", "-> str: ...", 1).encode(), "python").symbols
    by_id = {s["id"]: s for s in before}
    changed = [s["id"] for s in after if s["signature_hash"] != by_id[s["id"]]["signature_hash"]]
    assert changed == ["m.py::Command.main"]


def test_pathlib_path_beside_a_local_path_class_is_not_its_caller(repo: Repo) -> None:
    repo.write("pkg/__init__.py", "from .types import Path\n")
    repo.write("pkg/types.py", "class Path:\n    def __init__(self, exists=False):\n        self.exists = exists\n")
    repo.write(
        "pkg/termui.py",
        "import pathlib\nfrom pathlib import Path as StdPath\n\n\n"
        "def edit(name):\n    return pathlib.Path(name).read_text()\n\n\n"
        "def other(name):\n    return StdPath(name)\n",
    )
    repo.write(
        "pkg/options.py",
        "import pkg\nfrom .types import Path\n\n\n"
        "def option():\n    return Path(exists=True)\n\n\n"
        "def argument():\n    return pkg.Path()\n",
    )
    conn = indexed(repo)
    try:
        local = queries.find_symbol(conn, "pkg/types.py::Path")
        found = {(c["caller"], c["basis"]) for c in queries.callers(conn, local)}
        assert found == {("pkg/options.py::option", "constructor"), ("pkg/options.py::argument", "constructor")}
        init = queries.find_symbol(conn, "Path.__init__")  # a called class runs its __init__
        assert {c["caller"] for c in queries.callers(conn, init)} == {
            "pkg/options.py::option",
            "pkg/options.py::argument",
        }
        edit = queries.callees(conn, queries.find_symbol(conn, "edit"))
        assert [(c["name"], c["target"], c["basis"]) for c in edit if c["name"] == "Path"] == [
            ("Path", None, "external")
        ]
    finally:
        conn.close()


def test_self_calls_resolve_through_base_classes_and_overrides(repo: Repo) -> None:
    repo.write(
        "core.py",
        "class Base:\n    def make(self):\n        return self.parse()\n\n"
        "    def parse(self):\n        raise NotImplementedError\n\n\n"
        "class Command(Base):\n    def parse(self):\n        return self.helper()\n\n"
        "    def helper(self):\n        return 1\n",
    )
    repo.write("use.py", "from core import Command as Cmd\n\n\ndef main():\n    c = Cmd()\n    return c.make()\n")
    conn = indexed(repo)
    try:
        make = queries.find_symbol(conn, "Base.make")
        assert [(c["caller"], c["basis"]) for c in queries.callers(conn, make)] == [("use.py::main", "imported name")]
        parse = queries.find_symbol(conn, "Command.parse")  # Base.make's self.parse() may run this override
        assert [(c["caller"], c["basis"]) for c in queries.callers(conn, parse)] == [("core.py::Base.make", "override")]
        helper = queries.find_symbol(conn, "Command.helper")
        assert [(c["caller"], c["basis"]) for c in queries.callers(conn, helper)] == [
            ("core.py::Command.parse", "method")
        ]
    finally:
        conn.close()


def test_a_base_class_named_through_a_dotted_import_is_the_module_s_class(repo: Repo) -> None:
    """`import web.app`, then `class Quiet(web.app.App)`: App of web/app.py, which the package's `__init__.py` does
    not import: a Quiet's `self.run()` is App.run."""
    repo.write("web/__init__.py", "")
    repo.write("web/app.py", "class App:\n    def run(self):\n        return 1\n")
    repo.write(
        "quiet.py",
        "import web.app\n\n\nclass Quiet(web.app.App):\n    def start(self):\n        return self.run()\n",
    )
    conn = indexed(repo)
    try:
        start = queries.find_symbol(conn, "Quiet.start")
        assert {(c["target"], c["basis"]) for c in queries.callees(conn, start)} == {("web/app.py::App.run", "method")}
    finally:
        conn.close()


def test_a_super_call_runs_the_base_method_never_a_sibling_override(repo: Repo) -> None:
    """`super().describe()` in Choice runs ParamType.describe, the method Choice's bases name; it cannot run
    Path.describe, another subclass's override, as `self.describe()` in ParamType may. A value that may be
    super() or something else (`field = super()` in one branch) is no `super()` call: it may run an override."""
    repo.write(
        "types.py",
        "class ParamType:\n    def describe(self):\n        return {}\n\n    def show(self):\n"
        "        return self.describe()\n\n\n"
        "class Choice(ParamType):\n    def describe(self):\n        return super().describe()\n\n"
        "    def other(self, flag):\n        field = super() if flag else None\n        return field.describe()\n\n\n"
        "class Path(ParamType):\n    def describe(self):\n        return {'path': 1}\n",
    )
    conn = indexed(repo)
    try:
        path_describe = queries.find_symbol(conn, "Path.describe")
        found = {c["caller"]: c["basis"] for c in queries.callers(conn, path_describe)}
        assert "types.py::Choice.describe" not in found
        assert found["types.py::ParamType.show"] == "override" and "types.py::Choice.other" in found
        base = queries.find_symbol(conn, "ParamType.describe")
        assert ("types.py::Choice.describe", "method") in {
            (c["caller"], c["basis"]) for c in queries.callers(conn, base)
        }
    finally:
        conn.close()


def test_an_override_runs_only_on_instances_of_its_own_class(repo: Repo) -> None:
    """`self.metavar()` in Parameter may run Argument.metavar, an override below it; in Option, a sibling of
    Argument, it runs Parameter.metavar (found in Option's bases), never Argument's: an Option is no Argument."""
    repo.write(
        "params.py",
        "class Parameter:\n    def metavar(self):\n        return 'X'\n\n    def show(self):\n"
        "        return self.metavar()\n\n\n"
        "class Option(Parameter):\n    def help(self):\n        return self.metavar()\n\n\n"
        "class Argument(Parameter):\n    def metavar(self):\n        return 'ARG'\n",
    )
    conn = indexed(repo)
    try:
        argument = queries.find_symbol(conn, "Argument.metavar")
        assert [(c["caller"], c["basis"]) for c in queries.callers(conn, argument)] == [
            ("params.py::Parameter.show", "override")
        ]
        base = queries.find_symbol(conn, "Parameter.metavar")
        assert {c["caller"] for c in queries.callers(conn, base)} == {
            "params.py::Parameter.show",
            "params.py::Option.help",
        }
    finally:
        conn.close()


def test_a_name_bound_by_a_def_in_one_branch_and_a_value_in_another_calls_either(repo: Repo) -> None:
    """`func = make_getter(attr)` in one branch, `def func(x)` in the other: `func(i)` may call the getter
    make_getter returns or the local def (Jinja's do_sum). Where the value assigned is one the file cannot tell
    (`func = handlers[0]`), the def is not all it may be: the call stays a guess by name."""
    repo.write(
        "sums.py",
        "def make_getter(attr):\n    def getter(item):\n        return item[attr]\n\n    return getter\n\n\n"
        "def total(items, attr=None):\n    if attr is not None:\n        func = make_getter(attr)\n    else:\n\n"
        "        def func(x):\n            return x\n\n    return sum(func(i) for i in items)\n\n\n"
        "def first(items, handlers):\n    if handlers:\n        run = handlers[0]\n    else:\n\n"
        "        def run(x):\n            return x\n\n    return run(items[0])\n",
    )
    conn = indexed(repo)
    try:

        def calling(qualname: str) -> dict[str, str]:
            return {c["caller"]: c["basis"] for c in queries.callers(conn, queries.find_symbol(conn, qualname))}

        assert calling("total.func") == {"sums.py::total": "same file"}
        assert calling("make_getter.getter") == {"sums.py::total": "same file"}
        assert calling("first.run") == {"sums.py::first": "name only"}
    finally:
        conn.close()


def test_names_unpacked_from_a_call_are_the_items_its_declared_tuple_gives(repo: Repo) -> None:
    """`cmd_name, cmd, args = self.resolve_command(ctx)` (click's Group.invoke): cmd is item 1 of what
    resolve_command declares, `t.Tuple[t.Optional[str], t.Optional[Command], t.List[str]]`, so `cmd.main()` is
    Command.main. After a `*rest`, a place is no longer known from the start: `*rest, last = ...` types nothing."""
    repo.write(
        "cli.py",
        "import typing as t\n\n\nclass Command:\n    def main(self):\n        return 1\n\n\n"
        "class Group:\n    def resolve_command(self, ctx)"
        " -> t.Tuple[t.Optional[str], t.Optional[Command], t.List[str]]:\n"
        "        return 'x', Command(), []\n\n"
        "    def invoke(self, ctx):\n        cmd_name, cmd, args = self.resolve_command(ctx)\n"
        "        return cmd.main()\n\n"
        "    def last(self, ctx):\n        *rest, cmd = self.resolve_command(ctx)\n        return cmd.main()\n",
    )
    conn = indexed(repo)
    try:
        main = queries.find_symbol(conn, "Command.main")
        assert {(c["caller"], c["basis"]) for c in queries.callers(conn, main)} == {
            ("cli.py::Group.invoke", "method"),
            ("cli.py::Group.last", "unique name"),
        }
    finally:
        conn.close()


def test_a_loop_unpacking_a_mapping_or_enumerate_gives_each_name_its_item(repo: Repo) -> None:
    """`for name, cmd in self.commands.items()` over `commands: t.Dict[str, Command]` makes cmd a Command, as do
    `self.commands.values()` and `.get(name)`; `enumerate(xs)` pairs a count with an element of xs, `zip(xs, ys)` an
    element of each. A key is what the mapping's keys are (here a str: nothing of ours)."""
    repo.write(
        "cli.py",
        "import typing as t\n\n\nclass Command:\n    def main(self):\n        return 1\n\n\n"
        "class Group:\n    commands: t.Dict[str, Command]\n    ordered: t.List[Command]\n\n"
        "    def each(self):\n        for name, cmd in self.commands.items():\n            cmd.main()\n\n"
        "    def values(self):\n        for cmd in self.commands.values():\n            cmd.main()\n\n"
        "    def one(self, name):\n        return self.commands.get(name).main()\n\n"
        "    def counted(self):\n        for i, cmd in enumerate(self.ordered):\n            cmd.main()\n\n"
        "    def zipped(self):\n        for a, b in zip(self.ordered, self.ordered):\n            b.main()\n\n"
        "    def keys(self):\n        for name, cmd in self.commands.items():\n            name.main()\n",
    )
    conn = indexed(repo)
    try:
        main = queries.find_symbol(conn, "Command.main")
        found = {c["caller"]: c["basis"] for c in queries.callers(conn, main)}
        assert {c: found[c] for c in found if found[c] == "method"} == {
            f"cli.py::Group.{name}": "method" for name in ("each", "values", "one", "counted", "zipped")
        }
        assert found.get("cli.py::Group.keys") != "method"
    finally:
        conn.close()


def test_a_loop_over_a_declared_collection_gives_its_elements(repo: Repo) -> None:
    """`for p in projections` over a parameter `projections: Sequence[Projection]` (or a typed local, or a field
    assigned that parameter) makes p a Projection, and a mapping's key what its keys are; an attribute assigned
    what the file cannot type stays a guess. Before, each was a guess by name: our own store's projections were
    reached from catch-up by no call."""
    repo.write(
        "proj.py",
        "from typing import Optional, Sequence\n\n\nclass Projection:\n    def apply(self):\n        return 1\n\n\n"
        "def each(projections: Sequence[Projection]):\n    for p in projections:\n        p.apply()\n\n\n"
        "def maybe(projections: Optional[list[Projection]] = None):\n    for p in projections:\n        p.apply()\n\n\n"
        "def keys(table: dict[Projection, int]):\n    for p in table:\n        p.apply()\n\n\n"
        "def local():\n    ps: list[Projection] = []\n    for p in ps:\n        p.apply()\n\n\n"
        "class Follower:\n    def __init__(self, projections: Sequence[Projection], other):\n"
        "        self.projections = projections\n        self.other = other\n\n"
        "    def catch_up(self):\n        for p in self.projections:\n            p.apply()\n\n"
        "    def guess(self):\n        self.other.apply()\n",
    )
    conn = indexed(repo)
    try:
        apply = queries.find_symbol(conn, "Projection.apply")
        found = {c["caller"]: c["basis"] for c in queries.callers(conn, apply)}
        assert found == {
            **{f"proj.py::{name}": "method" for name in ("each", "maybe", "keys", "local", "Follower.catch_up")},
            "proj.py::Follower.guess": "unique name",
        }
    finally:
        conn.close()


def test_a_subscript_of_a_field_gives_a_sequences_element_and_a_mappings_value(repo: Repo) -> None:
    """`self._long_opt[k]` of a `t.Dict[str, Option]` is an Option (click's OptionParser), as `self._order[0]` of a
    `t.List[Option]` is; iterating a mapping gives its keys, so `for key in self._by_opt` over a
    `t.Dict[Option, str]` is an Option and `self._by_opt[k]` a str, no Option."""
    repo.write(
        "parser.py",
        "import typing as t\n\n\nclass Option:\n    def process(self):\n        return 1\n\n\n"
        "class Parser:\n    _long_opt: t.Dict[str, Option]\n    _order: t.List[Option]\n"
        "    _by_opt: t.Dict[Option, str]\n\n"
        "    def by_name(self, k):\n        return self._long_opt[k].process()\n\n"
        "    def first(self):\n        return self._order[0].process()\n\n"
        "    def keys(self):\n        for key in self._by_opt:\n            key.process()\n\n"
        "    def value(self, k):\n        return self._by_opt[k].process()\n",
    )
    conn = indexed(repo)
    try:
        process = queries.find_symbol(conn, "Option.process")
        found = {c["caller"]: c["basis"] for c in queries.callers(conn, process)}
        assert {c for c, basis in found.items() if basis == "method"} == {
            "parser.py::Parser.by_name",
            "parser.py::Parser.first",
            "parser.py::Parser.keys",
        }
        assert found.get("parser.py::Parser.value") != "method"
    finally:
        conn.close()


def test_impact_lists_the_chain_and_rates_risk_by_fan_in(repo: Repo) -> None:
    repo.write("app/__init__.py", "")
    repo.write(
        "app/values.py", "def consume(value):\n    return value.strip()\n\n\ndef leaf(value):\n    return value\n"
    )
    repo.write(
        "app/params.py",
        "from app.values import consume\n\n\n"
        "class Param:\n    def handle(self, value):\n        return consume(value)\n",
    )
    callers = "".join(f"\n\ndef command_{i}(value):\n    return run(value)\n" for i in range(HIGH_REACH))
    repo.write(
        "app/commands.py",
        "from app.params import Param\n\n\ndef run(value):\n    return Param().handle(value)\n" + callers,
    )
    repo.write("app/other.py", "from app.values import leaf\n\n\ndef only(value):\n    return leaf(value)\n")
    repo.write("tests/test_values.py", "from app.values import leaf\n\n\ndef test_leaf():\n    assert leaf(1) == 1\n")
    conn = indexed(repo)
    try:
        hub = queries.impact(conn, "app/values.py::consume")
        by_id = {s["id"]: s for s in hub["symbols"]}
        assert by_id["app/commands.py::command_0"]["chain"] == [
            "app/commands.py::command_0",
            "app/commands.py::run",
            "app/params.py::Param.handle",
            "app/values.py::consume",
        ]
        assert by_id["app/commands.py::command_0"]["distance"] == 3
        # two dependent files only, but every command reaches it: the fan-in decides
        assert {d["path"] for d in hub["dependents"]} == {"app/params.py", "app/commands.py"}
        assert hub["risk"] == "high" and f"{HIGH_REACH + 2} symbols reach it" in hub["why"]
        leaf = queries.impact(conn, "app/values.py::leaf")
        assert leaf["risk"] == "low" and [s["id"] for s in leaf["symbols"]] == [
            "app/other.py::only",
            "tests/test_values.py::test_leaf",
        ]
    finally:
        conn.close()


def test_calls_indexed_before_refs_resolve_by_name_as_before() -> None:
    old = {"path": "a.py", "calls": [{"caller": None, "name": "f", "qualifier": None, "line": 1}]}
    assert upcast("file.indexed", 1, old)["calls"][0]["ref"] is None
    symbol = upcast("symbol.added", 1, {"symbol": {"id": "a.py::f"}})["symbol"]
    assert symbol["overloads"] == []


def test_a_decorator_runs_where_the_definition_is() -> None:
    facts = extract(
        "m.py",
        b"import click\n\n\ndef dec(f):\n    return f\n\n\nclass C:\n"
        b"    @click.command()\n    @dec\n    def run(self):\n        return dec(1)\n",
        "python",
    )
    assert {(c["caller"], c["name"]) for c in facts.calls} == {
        ("m.py::C", "command"),
        ("m.py::C", "dec"),
        ("m.py::C.run", "dec"),
    }


def test_methods_are_found_in_method_resolution_order(repo: Repo) -> None:
    repo.write(
        "shapes.py",
        "class A:\n    def area(self):\n        return 0\n\n\nclass B(A):\n    pass\n\n\n"
        "class C(A):\n    def area(self):\n        return 1\n\n\nclass D(B, C):\n    pass\n\n\n"
        "def measure():\n    return D().area()\n",
    )
    conn = indexed(repo)
    try:  # D, B, C, A: C's area comes before A's, though B (looked at first) inherits A's
        c_area = queries.find_symbol(conn, "C.area")
        assert [c["caller"] for c in queries.callers(conn, c_area)] == ["shapes.py::measure"]
        assert queries.callers(conn, queries.find_symbol(conn, "A.area")) == []
    finally:
        conn.close()


def test_a_method_inherited_down_a_deep_hierarchy_is_found_whoever_asked_first(repo: Repo) -> None:
    # A class's order was cut after eight levels of bases, counted from where a lookup began, and kept for every
    # later question: L20's order ended at L14, and a pack's tests depended on which packs were asked before.
    repo.write("pkg/__init__.py", "")
    repo.write("pkg/l0.py", "class L0:\n    def area(self):\n        return 0\n")
    repo.write("pkg/l1.py", "from pkg.l0 import L0\n\n\nclass L1(L0):\n    def area(self):\n        return 1\n")
    for i in range(2, 21):
        repo.write(f"pkg/l{i}.py", f"from pkg.l{i - 1} import L{i - 1}\n\n\nclass L{i}(L{i - 1}):\n    pass\n")
    repo.write("use.py", "from pkg.l20 import L20\n\n\ndef measure():\n    return L20().area()\n")
    conn = indexed(repo)
    try:
        callers = queries.callers(conn, queries.find_symbol(conn, "L1.area"))
        assert [(c["caller"], c["basis"]) for c in callers] == [("use.py::measure", "imported name")]  # not a guess
        assert queries.callers(conn, queries.find_symbol(conn, "L0.area")) == []
    finally:
        conn.close()


def test_annotations_name_the_instance_and_builtins_are_no_local_calls(repo: Repo) -> None:
    repo.write(
        "ctx.py",
        "import typing as t\n\n\nclass Context:\n    def invoke(self):\n        return 1\n\n\n"
        'def current() -> "t.Optional[Context]":\n    return None\n\n\n'
        "class Files:\n    def open(self, name):\n        return name\n",
    )
    repo.write(
        "run.py",
        "from ctx import Context, current\n\n\n"
        'def handle(ctx: "Context", other: t.Optional[Context] = None):\n'
        "    return ctx.invoke()\n\n\n"
        "def later():\n    return current().invoke()\n\n\n"
        "def read(name):\n    return open(name).read()\n",
    )
    conn = indexed(repo)
    try:
        invoke = queries.find_symbol(conn, "Context.invoke")
        assert {(c["caller"], c["basis"]) for c in queries.callers(conn, invoke)} == {
            ("run.py::handle", "imported name"),
            ("run.py::later", "imported name"),
        }
        assert queries.callers(conn, queries.find_symbol(conn, "Files.open")) == []  # open() is the builtin
    finally:
        conn.close()


def test_a_literals_method_is_the_languages_and_never_ours(repo: Repo) -> None:
    # sqlalchemy's `impact FromClause.join` listed 149 callers by `", ".join(names)` alone, as guesses
    repo.write("sql.py", "class Select:\n    def join(self, other):\n        return self\n")
    repo.write(
        "use.py",
        "def names(xs):\n    return ', '.join(xs) + f'{xs}'.join(xs)\n\n\n"
        "def rows(xs):\n    return [x for x in xs].copy()\n\n\n"
        "def joined(q, xs):\n    return q.join(xs)\n",  # `q` may be a Select: the one `join` there is
    )
    repo.write("use.js", "function label(xs) {\n  return ', '.join(xs) + `${xs}`.join(xs)\n}\n")
    conn = indexed(repo)
    try:
        assert caller_bases(conn, "sql.py::Select.join") == {"use.py::joined": "unique name"}
        names = queries.find_symbol(conn, "use.py::names")
        assert {(c["name"], c["target"], c["basis"]) for c in queries.callees(conn, names)} == {
            ("join", None, "external")
        }
    finally:
        conn.close()


def test_a_python_name_assigned_only_literals_calls_their_class_s_methods(repo: Repo) -> None:
    # werkzeug's `parts = []; parts.append(x)` was a guess at any `append` of ours: its guesses by name 563 -> 471
    bag = "class Bag:\n    def append(self, x):\n        pass\n\n    def update(self, d):\n        pass\n"
    repo.write("bag.py", bag)
    repo.write(
        "use.py",
        "def collect(c):\n    parts = []\n    parts.append(c)\n    seen = {k: 1 for k in c}\n    seen.update(c)\n\n\n"
        "def given(parts):\n    parts.append(1)\n\n\n"  # a parameter: whatever was handed in
        "def either(c):\n    parts = []\n    if c:\n        parts = c.bag()\n    parts.append(1)\n\n\n"
        "items = []\n\n\ndef shadowed(items):\n    items.update({})\n",  # the parameter, not the module's list
    )
    conn = indexed(repo)
    try:
        assert set(caller_bases(conn, "bag.py::Bag.append")) == {"use.py::given", "use.py::either"}
        assert set(caller_bases(conn, "bag.py::Bag.update")) == {"use.py::shadowed"}
        collect = queries.find_symbol(conn, "use.py::collect")
        assert {(c["name"], c["basis"]) for c in queries.callees(conn, collect)} == {
            ("append", "external"),
            ("update", "external"),
        }
    finally:
        conn.close()


def test_a_script_s_name_bound_to_a_literal_calls_the_language_s_methods(repo: Repo) -> None:
    # undici's `const chunks = []; chunks.push(c)` was a guess at BodyReadable.push, `re.test(s)` at a test's
    # `test` (bench/facts_calls_ts.py: precision .495 -> .525)
    repo.write("readable.js", "export class Readable {\n  push(x) {}\n\n  test(s) {}\n}\n")
    repo.write(
        "use.js",
        "export function collect(c) {\n  const chunks = []\n  chunks.push(c)\n  return chunks\n}\n\n"
        "export function matches(s) {\n  const re = /x/\n  const name = `${s}`\n  return re.test(name)\n}\n\n"
        "export function each(a, b) {\n  for (const h of [a, b]) h.push(1)\n}\n",  # an element: whatever was put in
    )
    conn = indexed(repo)
    try:
        assert caller_bases(conn, "readable.js::Readable.push") == {"use.js::each": "name only"}
        assert caller_bases(conn, "readable.js::Readable.test") == {}
        collect = queries.find_symbol(conn, "use.js::collect")
        assert [(c["name"], c["target"], c["basis"]) for c in queries.callees(conn, collect)] == [
            ("push", None, "external")
        ]
    finally:
        conn.close()


def test_a_call_on_what_a_builtin_gives_is_the_builtins_unless_ours_may_give_the_class(repo: Repo) -> None:
    # typeorm's `impact SelectQueryBuilder.join` listed 220 guesses, most of them `cols.map(f).join(", ")`; in
    # JavaScript, where no value is typed (in TypeScript, an untyped value's `join` is never a guess at ours)
    repo.write(
        "query.ts",
        "export class Query {\n  join(other: Query): Query {\n    return this\n  }\n}\n\n"
        "export class Table {\n  pick(f: any): Query {\n    return new Query()\n  }\n}\n",
    )
    repo.write(
        "use.js",
        'export function names(cols) {\n  return cols.map((c) => c.name).join(", ")\n}\n\n'
        'export function parts(s) {\n  return s.split(",").join(";")\n}\n\n'
        "export function picked(t, q) {\n  return t.pick(q).join(q)\n}\n",  # Table.pick gives a Query
    )
    conn = indexed(repo)
    try:
        assert caller_bases(conn, "query.ts::Query.join") == {"use.js::picked": "name only"}
        names = queries.find_symbol(conn, "use.js::names")
        assert [(c["name"], c["target"]) for c in queries.callees(conn, names)] == [("map", None), ("join", None)]
        # ...and once a `map` of ours may give a Query, `cols.map(f).join()` may be its join again
        repo.write("table.ts", "export class Rows {\n  map(f: any): Query {\n    return new Query()\n  }\n}\n")
        index_tree(repo.root, conn)
        assert caller_bases(conn, "query.ts::Query.join") == {
            "use.js::picked": "name only",
            "use.js::names": "name only",
        }
    finally:
        conn.close()


def test_a_scripts_unexplained_call_is_guessed_only_at_what_javascript_can_call_so(repo: Repo) -> None:
    # undici's guesses named a Python file's `respond`, a method for a bare `Error(...)`, and another file's
    # top-level `close` for `controller.close()` (bench/facts_calls_ts.py: precision .470 -> .495)
    repo.write("helpers.js", "function close() {}\n\nmodule.exports = { close }\n")
    repo.write("server.py", "def respond():\n    return 1\n")
    repo.write("channel.ts", "export class Channel {\n  Error(text: string) {\n    return text\n  }\n}\n")
    repo.write(
        "use.js",
        "function stop(controller, request) {\n  controller.close()\n  request.respond()\n  throw Error('x')\n}\n\n"
        "function testComplete() {}\n\nconst Counter = { testComplete: testComplete }\n\n"
        "function run() {\n  Counter.testComplete()\n}\n",
    )
    conn = indexed(repo)
    try:
        assert caller_bases(conn, "helpers.js::close") == {}
        assert caller_bases(conn, "server.py::respond") == {}
        assert caller_bases(conn, "channel.ts::Channel.Error") == {}
        assert "use.js::run" in caller_bases(conn, "use.js::testComplete")  # its own file's function, on an object
        stop = queries.find_symbol(conn, "use.js::stop")
        assert [c["target"] for c in queries.callees(conn, stop)] == [None, None, None]
    finally:
        conn.close()


def test_a_bare_name_is_guessed_at_a_global_only_scripts_declare(repo: Repo) -> None:
    # undici's WPT scripts call the global `fetch()`, no module's (bench/facts_calls_ts.py: precision .525 -> .579)
    repo.write("fetch.js", "function fetch(url) {}\n\nmodule.exports = { fetch }\n")
    repo.write("harness.js", "function promise_test(f) {}\n")  # a script: its functions are globals
    repo.write("test.any.js", "function run() {\n  promise_test(() => fetch('/'))\n}\n")
    repo.write(  # a module's bare call of a parameter: whatever was handed in
        "retry.js", "function retry(fetch) {\n  return fetch()\n}\n\nmodule.exports = { retry }\n"
    )
    conn = indexed(repo)
    try:
        assert caller_bases(conn, "fetch.js::fetch") == {}
        assert caller_bases(conn, "harness.js::promise_test") == {"test.any.js::run": "name only"}
    finally:
        conn.close()


def test_typescript_s_untyped_value_calls_the_language_s_method_of_a_builtin_s_name(repo: Repo) -> None:
    # typeorm's `x.push(...)`, `x.get(...)` on values the file does not type were guesses at any push or get of
    # ours; TypeScript's checker says they are Array's, Map's (bench/facts_calls_ts.py: precision .932 -> .995)
    repo.write("queue.ts", "export class Queue {\n  push(x: any) {}\n\n  drain(q: any) {\n    q.push(1)\n  }\n}\n")
    repo.write("use.ts", "export function add(items: any) {\n  items.push(1)\n}\n")
    repo.write("use.js", "export function add(queue) {\n  queue.push(1)\n}\n")  # JavaScript: no type to say
    conn = indexed(repo)
    try:
        assert caller_bases(conn, "queue.ts::Queue.push") == {
            "queue.ts::Queue.drain": "name only",  # its own file's
            "use.js::add": "name only",
        }
    finally:
        conn.close()


def test_a_file_extracts_to_the_same_calls_whatever_was_extracted_before() -> None:
    """tree-sitter's captures() order varied with the process's history, and with it which assignment
    a call's ref saw: the same file gave different call refs, and a live index differed from a fresh one."""
    import sysconfig
    from pathlib import Path

    files = sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))[:60]
    first = {p: json.dumps(extract(p.name, p.read_bytes(), "python").calls, sort_keys=True) for p in files}
    again = {p: json.dumps(extract(p.name, p.read_bytes(), "python").calls, sort_keys=True) for p in reversed(files)}
    assert [p.name for p in files if first[p] != again[p]] == []


def test_a_calls_ref_does_not_depend_on_which_of_its_files_calls_were_read_first() -> None:
    """A value found while working out another that it leads back to (relay returns hop's, which returns relay's)
    lacked that one's part, and was kept: `relay(a).run()` was `A().run` or also `relay().run` (what relay's
    annotation might say) by the order the file's definitions came in."""
    relay = "def relay(x):\n    return hop(x)\n\n\ndef hop(y):\n    if y:\n        return relay(y)\n    return y\n"
    main = "def main():\n    a = A()\n    relay(a).run()\n    hop(a).run()\n"
    cls = "class A:\n    def run(self):\n        return 1\n"
    for source in (f"{cls}\n\n{relay}\n\n{main}", f"{cls}\n\n{main}\n\n{relay}"):
        refs = {c["ref"] for c in extract("m.py", source.encode(), "python").calls if c["name"] == "run"}
        assert refs == {"module:A().run"}


def test_a_function_handed_on_to_other_code_is_reached_through_the_function_handing_it_on(repo: Repo) -> None:
    repo.write("helpers.py", "def shout(s):\n    return s.upper()\n")
    repo.write(
        "work.py",
        "import threading\nfrom helpers import shout\n\nLIMIT = 3\n\n\n"
        "def worker(x):\n    return x * 2\n\n\n"
        "def by_name(p):\n    return p.name\n\n\n"
        "class Job:\n    def run(self):\n        return 1\n\n"
        "    def start(self):\n        threading.Thread(target=self.run).start()\n\n\n"
        "def run_all(xs):\n    sorted(xs, key=by_name)\n    print(LIMIT, Job)\n"
        "    return list(map(worker, xs)) + list(map(shout, xs))\n",
    )
    repo.write("test_work.py", "from work import run_all\n\n\ndef test_run_all():\n    assert run_all([]) == []\n")
    conn = indexed(repo)
    try:
        for handed_on in ("work.py::worker", "work.py::by_name", "helpers.py::shout"):
            assert caller_bases(conn, handed_on) == {"work.py::run_all": "named as a value"}
        assert caller_bases(conn, "work.py::Job.run") == {"work.py::Job.start": "named as a value"}
        assert caller_bases(conn, "work.py::Job") == {}  # `print(LIMIT, Job)` hands a class on: no call of it
        impact = queries.impact(conn, "work.py::worker")
        assert [(s["id"], s["basis"]) for s in impact["symbols"]] == [
            ("work.py::run_all", "named as a value"),
            ("test_work.py::test_run_all", "imported name"),
        ]
        assert impact["tests"] == ["test_work.py::test_run_all"]
        assert impact["tests_basis"][0]["basis"] == "calls run_all, which reaches worker (line 5)"
    finally:
        conn.close()


def test_a_module_handed_on_is_no_call_and_its_callers_contract_and_tests_still_answer(repo: Repo) -> None:
    # sqlalchemy's testing/engines.py: `import sqlalchemy.dialects as d`, then `getattr(d, name, None)`. The
    # module handed on was resolved as a function of it with no name, and every answer reading that call failed.
    repo.write("pkg/__init__.py", "")
    repo.write("pkg/dialects.py", "def d():\n    return 1\n\n\n__all__ = ['d']\n")
    repo.write(
        "pkg/engines.py",
        "import pkg.dialects as d\n\n\ndef all_dialects():\n    return [getattr(d, n, None) for n in d.__all__]\n",
    )
    repo.write("test_engines.py", "from pkg.engines import all_dialects\n\n\ndef test_all():\n    all_dialects()\n")
    conn = indexed(repo)
    try:
        assert caller_bases(conn, "pkg/dialects.py::d") == {}  # no call runs the function `d`
        assert lookups.callees(conn, queries.find_symbol(conn, "pkg/engines.py::all_dialects"))  # answers, not fails
        assert queries.module_contract(conn, "pkg/engines.py")["path"] == "pkg/engines.py"
        assert queries.impact(conn, "pkg/engines.py::all_dialects")["tests"] == ["test_engines.py::test_all"]
    finally:
        conn.close()


def test_a_function_handed_to_the_files_own_function_is_called_by_its_parameter(repo: Repo) -> None:
    repo.write(
        "apply.py",
        "def helper():\n    return 1\n\n\ndef apply(f):\n    return f()\n\n\ndef use():\n    return apply(helper)\n",
    )
    conn = indexed(repo)
    try:  # the call of `f` in apply resolves to helper: `use` handing it on says nothing more
        assert caller_bases(conn, "apply.py::helper") == {"apply.py::apply": "same file"}
    finally:
        conn.close()


def test_a_parameter_handed_different_functions_is_a_caller_of_each(repo: Repo) -> None:
    # click's _force_correct_text_stream: `is_binary(stream, False)` runs _is_binary_reader or _is_binary_writer,
    # as its callers pass. The call was found by the first one's name only: the other had no caller there.
    repo.write(
        "streams.py",
        "def is_reader(s):\n    return 1\n\n\ndef is_writer(s):\n    return 2\n\n\n"
        "def force(s, is_binary):\n    return is_binary(s)\n\n\n"
        "def reader(s):\n    return force(s, is_reader)\n\n\ndef writer(s):\n    return force(s, is_writer)\n",
    )
    repo.write("test_streams.py", "from streams import writer\n\n\ndef test_writer():\n    writer(1)\n")
    conn = indexed(repo)
    try:
        for handed in ("streams.py::is_reader", "streams.py::is_writer"):
            assert caller_bases(conn, handed) == {"streams.py::force": "same file"}
        assert queries.impact(conn, "streams.py::is_writer")["tests"] == ["test_streams.py::test_writer"]
    finally:
        conn.close()


def test_a_field_holding_a_class_called_is_among_the_classs_callers(repo: Repo) -> None:
    # sqlalchemy's `self._joined_dispatch_cls(self, other)`, the field declared `Type[_JoinedDispatcher[_ET]]`:
    # callees named the class constructed (53d67a4), its callers did not, as they looked for calls by its name.
    repo.write(
        "widgets.py",
        "from typing import Generic, TypeVar\n\nT = TypeVar('T')\n\n\n"
        "class Widget(Generic[T]):\n    def __init__(self, size):\n        self.size = size\n",
    )
    repo.write(
        "shop.py",
        "from typing import Type\n\nfrom widgets import Widget\n\n\n"
        "class Shop:\n    maker: Type[Widget[int]]\n\n    def build(self):\n        return self.maker(3)\n",
    )
    conn = indexed(repo)
    try:
        build = queries.find_symbol(conn, "shop.py::Shop.build")
        assert [c["target"] for c in lookups.callees(conn, build)] == ["widgets.py::Widget"]
        assert caller_bases(conn, "widgets.py::Widget") == {"shop.py::Shop.build": "constructor"}
        assert caller_bases(conn, "widgets.py::Widget.__init__") == {"shop.py::Shop.build": "constructor"}
    finally:
        conn.close()


def test_for_and_with_call_the_protocol_methods_of_the_class_the_value_is(repo: Repo) -> None:
    repo.write(
        "rows.py",
        "class Rows:\n    def __iter__(self):\n        return self\n\n"
        "    def __next__(self):\n        raise StopIteration\n\n"
        "    def chunks(self):\n        return []\n\n\n"
        "class Session:\n    def __enter__(self):\n        return self\n\n"
        "    def __exit__(self, *exc):\n        return False\n\n"
        "    async def __aenter__(self):\n        return self\n\n"
        "    async def __aexit__(self, *exc):\n        return False\n",
    )
    repo.write(
        "use.py",
        "from rows import Rows, Session\n\n\ndef total():\n    with Session() as s:\n"
        "        return sum(1 for r in Rows()) + len([r for r in range(3)])\n\n\n"
        "async def fetch():\n    async with Session():\n        pass\n\n\n"
        "def loose(values):\n    for v in values:\n        pass\n    for c in Rows().chunks():\n        pass\n",
    )
    conn = indexed(repo)
    try:
        for method in ("Rows.__iter__", "Rows.__next__", "Session.__enter__", "Session.__exit__"):
            assert caller_bases(conn, f"rows.py::{method}") == {"use.py::total": "imported name"}, method
        for method in ("Session.__aenter__", "Session.__aexit__"):
            assert caller_bases(conn, f"rows.py::{method}") == {"use.py::fetch": "imported name"}, method
        # `range(3)`, an unknown `values` and what unannotated `chunks()` returns run their own `__iter__`: the
        # last is written down as a call, and it is no guess at Rows' (`loose` is not among its callers above)
        loose = queries.callees(conn, queries.find_symbol(conn, "use.py::loose"))
        assert sorted((c["name"], c["target"], c["basis"]) for c in loose) == [
            ("Rows", "rows.py::Rows", "constructor"),
            ("__iter__", None, "external"),
            ("__next__", None, "external"),
            ("chunks", "rows.py::Rows.chunks", "imported name"),
        ]
    finally:
        conn.close()


def test_calling_an_instance_runs_its_call_method_and_a_classmethods_cls_constructs(repo: Repo) -> None:
    repo.write(
        "app.py",
        "class App:\n    def __call__(self, environ):\n        return environ\n\n\n"
        "class Lexer:\n    def __init__(self, text):\n        self.text = text\n\n"
        "    @classmethod\n    def split(cls, text):\n        return cls(text).words()\n\n"
        "    def words(self):\n        return self.text.split()\n\n\n"
        "def serve():\n    app = App()\n    return app({})\n",
    )
    conn = indexed(repo)
    try:
        assert caller_bases(conn, "app.py::App.__call__") == {"app.py::serve": "method"}
        assert caller_bases(conn, "app.py::App") == {"app.py::serve": "constructor"}  # `app({})` constructs nothing
        assert caller_bases(conn, "app.py::Lexer.__init__") == {"app.py::Lexer.split": "constructor"}
        assert caller_bases(conn, "app.py::Lexer.words") == {"app.py::Lexer.split": "method"}
    finally:
        conn.close()


def test_a_declared_type_types_the_calls_on_an_attribute_or_a_name(repo: Repo) -> None:
    repo.write(
        "kinds.py",
        "class Store:\n    def get(self, k):\n        return k\n\n\n"
        "class Cache:\n    def get(self, k):\n        return None\n\n\n"
        "class Signer:\n    def __init__(self, key):\n        self.key = key\n",
    )
    repo.write(
        "holder.py",
        "from dataclasses import dataclass\n\nfrom kinds import Signer, Store\n\n\n"
        "@dataclass\nclass Holder:\n    store: Store\n    backup: 'Store | None' = None\n"
        "    signer: type[Signer] = Signer\n\n"
        "    def read(self):\n        return self.store.get(1), self.signer('k')\n\n\n"
        "class Later:\n    def __init__(self, make):\n        self.store: Store = make()\n\n"
        "    def read(self):\n        return self.store.get(2)\n\n\n"
        "def local(make):\n    store: Store | None = make()\n    return store.get(3)\n",
    )
    # in another file: the declared types are indexed with the class (the dependencies projection's `fields`)
    repo.write("use.py", "from holder import Holder\n\n\ndef outside(h: Holder):\n    return h.store.get(4)\n")
    conn = indexed(repo)
    try:  # `Cache.get` is no longer a guess: the fields say Store
        assert caller_bases(conn, "kinds.py::Store.get") == {
            "holder.py::Holder.read": "imported name",
            "holder.py::Later.read": "imported name",
            "holder.py::local": "imported name",
            "use.py::outside": "imported name",
        }
        assert caller_bases(conn, "kinds.py::Cache.get") == {}
        assert caller_bases(conn, "kinds.py::Signer.__init__") == {"holder.py::Holder.read": "constructor"}
    finally:
        conn.close()


def test_reading_a_property_runs_its_getter(repo: Repo) -> None:
    """`self.host` and `req.host` read a property: its callers are the functions reading it (the impact of a
    change to it), while a plain attribute read (`r.environ`) is no call, and an attribute written is not read.
    The tests importing its module still follow the tests the reads reach: most reads are on values the index
    cannot type."""
    repo.write(
        "req.py",
        "from functools import cached_property\n\n\nclass Request:\n    def __init__(self, environ):\n"
        "        self.environ = environ\n\n    @property\n    def host(self):\n        return self.environ['HOST']\n\n"
        "    @cached_property\n    def url(self):\n        return 'http://' + self.host\n",
    )
    repo.write(
        "use.py",
        "from req import Request\n\n\ndef handle(environ):\n    r = Request(environ)\n    r.environ = {}\n"
        "    return r.url, r.environ\n\n\ndef other(req: Request):\n    return req.host\n",
    )
    repo.write("test_use.py", "import use\n\n\ndef test_other():\n    assert use.other\n")
    repo.write("test_req.py", "from req import Request\n\n\ndef test_host():\n    assert Request({}).host\n")
    conn = indexed(repo)
    try:
        assert caller_bases(conn, "req.py::Request.host") == {
            "req.py::Request.url": "method",
            "use.py::other": "method",
            "test_req.py::test_host": "method",
        }
        assert caller_bases(conn, "req.py::Request.url") == {"use.py::handle": "method"}
        assert not any(
            c["name"] == "environ" and c["target"]
            for c in queries.callees(conn, queries.find_symbol(conn, "use.py::handle"))
        )
        basis = {t["test"]: t["basis"] for t in queries.impact(conn, "req.py::Request.host")["tests_basis"]}
        assert basis["test_req.py::test_host"] == "reads Request.host (line 5)"
        assert "host is a property, read on values the index cannot type" in basis["test_use.py"]
    finally:
        conn.close()


def test_a_tests_parameter_is_its_fixtures_value_and_a_function_gives_what_it_makes(repo: Repo) -> None:
    """pytest passes a test's parameter the value of the fixture of that name: the test file's own, else the one
    in the conftest.py of its folder or the nearest above it (a `yield` fixture's value is what it yields). A
    function declaring no result gives what each of its `return`s makes. A parametrized name is no fixture, and
    a fixture's name the conftest files lack stays a guess (a plugin's may give one of ours), but pytest's own
    (`tmp_path`, `monkeypatch`) give pytest's objects."""
    repo.write(
        "pkg/testing.py",
        "class Runner:\n    def invoke(self, cli):\n        return cli\n\n\n"
        "class Other:\n    def invoke(self, cli):\n        return None\n\n\n"
        "class Env:\n    def render(self):\n        return ''\n\n    @classmethod\n    def make(cls):\n"
        "        return cls()\n\n\ndef make_runner():\n    return Runner()\n",
    )
    repo.write(
        "tests/conftest.py",
        "import pytest\n\nfrom pkg.testing import Env, make_runner\n\n\n@pytest.fixture\ndef runner():\n"
        "    return make_runner()\n\n\n@pytest.fixture(scope='session')\ndef env():\n    made = Env.make()\n"
        "    yield made\n",
    )
    repo.write(
        "tests/unit/test_cli.py",
        "import pytest\n\nfrom pkg.testing import Other\n\n\n@pytest.fixture\ndef other():\n    return Other()\n\n\n"
        "def test_invoke(runner, other):\n    runner.invoke(1)\n    other.invoke(2)\n\n\n"
        "class TestEnv:\n    def test_render(self, env):\n        env.render()\n\n\n"
        "@pytest.mark.parametrize('runner', [None])\ndef test_given(runner):\n    runner.invoke(3)\n\n\n"
        "def test_unknown(factory):\n    factory.render()\n\n\n"
        "def test_pytests(tmp_path, monkeypatch):\n    tmp_path.render()\n    monkeypatch.invoke()\n",
    )
    conn = indexed(repo)
    try:
        guessed = {"tests/unit/test_cli.py::test_given": "name only"}  # `runner` is parametrized there
        for runner in ("Runner", "Other"):
            assert caller_bases(conn, f"pkg/testing.py::{runner}.invoke") == {
                "tests/unit/test_cli.py::test_invoke": "imported name",
                **guessed,
            }
        assert caller_bases(conn, "pkg/testing.py::Env.render") == {
            "tests/unit/test_cli.py::TestEnv.test_render": "imported name",
            "tests/unit/test_cli.py::test_unknown": "unique name",  # no fixture `factory` in the conftest files
        }  # and not test_pytests: pytest's tmp_path is a Path
        calls = {(c["caller"], c["qualifier"]): c["ref"] for c in conn.execute("SELECT * FROM calls")}
        assert calls[("tests/unit/test_cli.py::test_given", "runner")] == "?"
        assert calls[("tests/unit/test_cli.py::test_invoke", "runner")] == "fixture:runner().invoke"
    finally:
        conn.close()


def test_a_loop_or_comprehension_variable_is_an_element_of_the_declared_collection(repo: Repo) -> None:
    """`for p in self.get_params()` and `[t.describe() for t in self.types]` call the element type's methods, as
    the result or attribute declares it (`t.List["Param"]`, `Sequence[Kind]`); a comprehension's variable shadows
    a module of the same name (`import typing as t`)."""
    repo.write(
        "params.py",
        "class Param:\n    def describe(self):\n        return ''\n\n\nclass Kind:\n    def describe(self):\n"
        "        return ''\n",
    )
    repo.write(
        "command.py",
        "import typing as t\n\nfrom params import Kind, Param\n\n\nclass Command:\n"
        "    def __init__(self, kinds):\n        self.kinds: t.Sequence[Kind] = kinds\n\n"
        "    def get_params(self) -> t.List['Param']:\n        return []\n\n"
        "    def help(self):\n        for p in self.get_params():\n            p.describe()\n"
        "        return [t.describe() for t in self.kinds]\n",
    )
    conn = indexed(repo)
    try:
        assert caller_bases(conn, "params.py::Param.describe") == {"command.py::Command.help": "method"}
        assert caller_bases(conn, "params.py::Kind.describe") == {"command.py::Command.help": "method"}
    finally:
        conn.close()


def test_importing_a_submodule_binds_its_package(repo: Repo) -> None:
    """`import click.testing` binds `click` as well: `click.echo()` is the package's echo, re-exported by its
    `__init__.py`, and `click.testing.CliRunner()` the submodule's class."""
    repo.write("click/__init__.py", "from .utils import echo as echo\n")
    repo.write("click/utils.py", "def echo(message):\n    return message\n")
    repo.write("click/testing.py", "class CliRunner:\n    def __init__(self):\n        self.out = []\n")
    repo.write(
        "tests/test_echo.py",
        "import click.testing\n\n\ndef test_echo():\n    click.echo('x')\n    click.testing.CliRunner()\n",
    )
    conn = indexed(repo)
    try:
        assert caller_bases(conn, "click/utils.py::echo") == {"tests/test_echo.py::test_echo": "imported name"}
        assert caller_bases(conn, "click/testing.py::CliRunner.__init__") == {
            "tests/test_echo.py::test_echo": "constructor"
        }
    finally:
        conn.close()


def test_an_attribute_assigned_an_instance_and_a_cast_value_are_typed_in_other_files(repo: Repo) -> None:
    """`self.current = Token()` (and later `= next(it)`, which says nothing against it) and `self.cache = cache`
    of a parameter `cache: Cache | None` type the attribute for other files too; `t.cast(Group, cmd)` is a
    Group."""
    repo.write(
        "lexer.py",
        "class Token:\n    def test(self, expr):\n        return expr\n\n\nclass Cache:\n    def get(self, k):\n"
        "        return k\n\n\nclass Stream:\n    def __init__(self, it, cache: 'Cache | None' = None):\n"
        "        self._it = it\n        self.current = Token()\n        self.cache = cache\n\n"
        "    def __next__(self):\n        self.current = next(self._it)\n        return self.current\n",
    )
    repo.write("group.py", "class Group:\n    def list_commands(self):\n        return []\n")
    repo.write(
        "parser.py",
        "import typing as t\n\nfrom group import Group\nfrom lexer import Stream\n\n\n"
        "def parse(stream: Stream, cmd):\n    stream.cache.get(1)\n    t.cast(Group, cmd).list_commands()\n"
        "    return stream.current.test('name')\n",
    )
    conn = indexed(repo)
    try:
        assert caller_bases(conn, "lexer.py::Token.test") == {"parser.py::parse": "imported name"}
        assert caller_bases(conn, "lexer.py::Cache.get") == {"parser.py::parse": "imported name"}
        assert caller_bases(conn, "group.py::Group.list_commands") == {"parser.py::parse": "imported name"}
    finally:
        conn.close()


def test_a_with_statements_name_is_what_enter_gives(repo: Repo) -> None:
    """`with cmd.make_context() as ctx` binds ctx to what Context's `__enter__` gives: its annotation's class, or
    the instance itself where it returns `self`, which another file reads as the method's recorded result."""
    repo.write(
        "context.py",
        "class Context:\n    def __enter__(self):\n        return self\n\n    def __exit__(self, *exc):\n"
        "        return None\n\n    def exit(self):\n        return 0\n\n\nclass Command:\n"
        "    def make_context(self) -> Context:\n        return Context()\n",
    )
    repo.write(
        "main.py",
        "from context import Command\n\n\ndef main(cmd: Command):\n    with cmd.make_context() as ctx:\n"
        "        ctx.exit()\n",
    )
    conn = indexed(repo)
    try:
        assert caller_bases(conn, "context.py::Context.exit") == {"main.py::main": "imported name"}
    finally:
        conn.close()


def test_a_method_annotated_to_give_its_own_instance_gives_the_receivers(repo: Repo) -> None:
    """`def __enter__(self: T) -> T` (httpx's Client, sqlalchemy's Session), `-> Self`, and a classmethod's
    `def create(cls: type[T]) -> T` give an instance of the class they are called on, a subclass's too; `async
    with` enters by `__aenter__`."""
    repo.write(
        "client.py",
        "import typing\nfrom typing import TypeVar\n\nT = TypeVar('T', bound='Client')\n\n\nclass Client:\n"
        "    def __enter__(self: T) -> T:\n        return self\n\n"
        "    def __exit__(self, *exc):\n        return None\n\n"
        "    @classmethod\n    def create(cls: type[T]) -> T:\n        return cls()\n\n"
        "    def get(self):\n        return 0\n\n\nclass Special(Client):\n    def get(self):\n        return 1\n\n\n"
        "class AsyncClient:\n    async def __aenter__(self) -> 'typing.Self':\n        return self\n\n"
        "    async def __aexit__(self, *exc):\n        return None\n\n    async def get(self):\n        return 0\n",
    )
    repo.write(
        "main.py",
        "from client import AsyncClient, Client, Special\n\n\n"
        "def sync():\n    with Client() as c:\n        c.get()\n\n\n"
        "async def asynchronous():\n    async with AsyncClient() as c:\n        await c.get()\n\n\n"
        "def made():\n    Special.create().get()\n",
    )
    conn = indexed(repo)
    try:
        assert caller_bases(conn, "client.py::Client.get") == {"main.py::sync": "imported name"}
        assert caller_bases(conn, "client.py::AsyncClient.get") == {"main.py::asynchronous": "imported name"}
        assert caller_bases(conn, "client.py::Special.get")["main.py::made"] == "imported name"
    finally:
        conn.close()


def test_a_name_a_package_imports_from_outside_is_outside_code_where_it_is_imported_from(repo: Repo) -> None:
    """sqlalchemy.testing's `from unittest import mock`, which its tests import from it: `mock.call()` there is
    unittest's, not a guess at the one function of ours named `call` (its name is unique, so impact followed it),
    through a re-export of the re-export too. An import of outside code does not hide one of ours binding the same
    name (`try: from _speedups import escape` / `except ImportError: from ._native import escape`)."""
    repo.write(
        "pkg/__init__.py",
        "from unittest import mock\n\ntry:\n    from _speedups import escape\n"
        "except ImportError:\n    from ._native import escape\n",
    )
    repo.write("pkg/_native.py", "def escape(s):\n    return s\n")
    repo.write("pkg/testing.py", "from . import mock\n")
    repo.write("pkg/calls.py", "def call():\n    return 0\n")
    repo.write(
        "tests/test_it.py",
        "from pkg import escape, mock\nfrom pkg.testing import mock as again\n\n\n"
        "def test_it():\n    mock.call()\n    again.call()\n    escape('x')\n",
    )
    conn = indexed(repo)
    try:
        assert caller_bases(conn, "pkg/calls.py::call") == {}
        assert caller_bases(conn, "pkg/_native.py::escape") == {"tests/test_it.py::test_it": "imported name"}
    finally:
        conn.close()


def test_a_name_imported_under_another_name_is_what_it_names_there(repo: Repo) -> None:
    """`from m import A as B` binds B to m's A: sqlalchemy's `from ...sql.dml import Insert as StandardInsert`,
    then `class Insert(StandardInsert)`, whose instances have StandardInsert's methods; and a package
    re-exporting a name under another (`from .core import Engine as Connectable`) gives it under that name, and
    its callers include the calls by that name."""
    repo.write("pkg/core.py", "class Engine:\n    def values(self):\n        return 0\n")
    repo.write("pkg/__init__.py", "from .core import Engine as Connectable\n")
    repo.write(
        "pkg/dialect.py",
        "from .core import Engine as StandardEngine\n\n\nclass Engine(StandardEngine):\n    pass\n\n\n"
        "def make() -> Engine:\n    return Engine()\n",
    )
    repo.write(
        "main.py",
        "from pkg import Connectable\nfrom pkg.dialect import make\n\n\n"
        "def direct():\n    Connectable().values()\n\n\ndef derived():\n    make().values()\n",
    )
    repo.write("pkg/visitors.py", "from .core import Engine as anon_map\n")
    repo.write("pkg/annotation.py", "from .visitors import anon_map\n\n\ndef key():\n    return anon_map()\n")
    conn = indexed(repo)
    try:
        assert caller_bases(conn, "pkg/core.py::Engine.values") == {
            "main.py::direct": "imported name",
            "main.py::derived": "imported name",
        }
        # a call by the name a module re-exports it under is among its callers (sqlalchemy's `anon_map()`)
        assert caller_bases(conn, "pkg/core.py::Engine")["pkg/annotation.py::key"] == "constructor"
    finally:
        conn.close()


def test_an_instance_a_module_holds_is_that_class_where_it_is_imported(repo: Repo) -> None:
    """A module's top level holding one instance of a class (`smth = Smth()`, dateutil's `rrulestr = _rrulestr()`,
    `app = Flask(__name__)`): another file importing it calls that class's methods on it, and calling it runs the
    class's `__call__`, through a package's re-export too (PyCG's imports/init_import). A name bound to anything
    else besides, or to what no class of ours makes, stays unknown."""
    repo.write(
        "nested/nested.py",
        "class Smth:\n    def func(self):\n        return 0\n\n    def __call__(self, s):\n        return s\n\n\n"
        "class Special(Smth):\n    pass\n\n\nsmth = Smth()\nspecial = Special()\nmaybe = Smth()\nif maybe:\n"
        "    maybe = object()\n",
    )
    repo.write("nested/__init__.py", "from .nested import maybe, smth, special\n")
    repo.write(
        "main.py",
        "from nested import maybe, smth, special\n\n\ndef use():\n    smth.func()\n    smth('x')\n\n\n"
        "def other():\n    maybe.func()\n\n\ndef sub():\n    special('y')\n",
    )
    conn = indexed(repo)
    try:
        assert caller_bases(conn, "nested/nested.py::Smth.func") == {
            "main.py::use": "imported name",
            "main.py::other": "unique name",
        }
        assert caller_bases(conn, "nested/nested.py::Smth.__call__") == {
            "main.py::use": "imported name",
            "main.py::sub": "imported name",
        }
    finally:
        conn.close()


def test_a_function_a_module_binds_a_name_to_runs_where_the_name_is_imported(repo: Repo) -> None:
    """A module's top level binding a name to a function (`alias = work`, `fetch = partial(work, 3)`, or what a
    wrapper returns: `run = wrap(work)`, wrap's inner function): another file importing the name and calling it
    runs that function, and its tests reach what it calls, saying the name they call it by. A name bound to two things,
    or to an instance, is not."""
    repo.write(
        "pkg/core.py",
        "import functools\n\n\ndef wrap(steps):\n    def whole(*a):\n        return steps(*a)\n\n    return whole\n\n\n"
        "def work(x=0):\n    return x\n\n\ndef other():\n    return 1\n\n\nrun = wrap(work)\nalias = work\n"
        "fetch = functools.partial(work, 3)\nmaybe = work\nif maybe:\n    maybe = other\n",
    )
    repo.write("pkg/__init__.py", "")
    repo.write(
        "tests/test_core.py",
        "from pkg.core import alias, fetch, maybe, run\n\n\ndef test_run():\n    assert run(1) == 1\n\n\n"
        "def test_alias():\n    assert alias(1) == fetch()\n\n\ndef test_maybe():\n    assert maybe()\n",
    )
    conn = indexed(repo)
    try:
        assert caller_bases(conn, "pkg/core.py::wrap.whole") == {"tests/test_core.py::test_run": "imported name"}
        callers = caller_bases(conn, "pkg/core.py::work")
        assert callers["tests/test_core.py::test_alias"] == "imported name"
        assert callers.get("tests/test_core.py::test_maybe") != "imported name"  # work or other: not a sure answer
        tests = queries.impact(conn, "pkg/core.py::work", root=repo.root)["tests_basis"]
        why = {t["test"]: t["basis"] for t in tests}
        # each says the name its test writes, then what the index found it to be
        assert why["tests/test_core.py::test_run"] == "calls run (wrap.whole), which reaches work (line 5)"
        assert why["tests/test_core.py::test_alias"] == "calls alias (work) (line 9)"
    finally:
        conn.close()


def test_a_name_a_class_body_binds_to_a_method_runs_that_method(repo: Repo) -> None:
    """`fetch = get` (or `__repr__ = __str__`) in a class body: `box.fetch()` runs get, on a subclass's instance too;
    a name the methods assign an instance to (`self.read = ...`) is that instance, not the method."""
    repo.write(
        "pkg/box.py",
        "class Box:\n    def get(self, k):\n        return k\n\n    fetch = get\n    read = get\n\n"
        "    def __init__(self):\n        self.read = Reader()\n\n\nclass Reader:\n    def __call__(self):\n"
        "        return 0\n\n\nclass Crate(Box):\n    pass\n",
    )
    repo.write(
        "main.py",
        "from pkg.box import Box, Crate\n\n\ndef use():\n    Box().fetch(1)\n\n\ndef sub():\n    Crate().fetch(2)\n\n\n"
        "def other():\n    Box().read()\n",
    )
    conn = indexed(repo)
    try:
        callers = caller_bases(conn, "pkg/box.py::Box.get")
        assert callers["main.py::use"] == callers["main.py::sub"] == "imported name"
        assert "main.py::other" not in callers
    finally:
        conn.close()


def test_super_in_a_class_of_outside_bases_runs_outside_code_never_a_guess(repo: Repo) -> None:
    """`super().__init__()` in an Exception's subclass, or in a class deriving from an imported library's, runs their
    method: no `__init__` of ours is guessed by name. Where a subclass mixes in a class of ours after it
    (`class Both(Outside, Mixin)`), or a base is not one the index can tell (`class X(make_base())`), it may be
    ours, and stays a guess."""
    repo.write(
        "pkg/errors.py",
        "from string import Formatter\n\n\nclass Failure(Exception):\n    def __init__(self, message):\n"
        "        super().__init__(message)\n\n\nclass Shown(Formatter):\n    def format(self, text):\n"
        "        return super().format(text)\n\n\nclass Cache:\n    def __init__(self, size):\n"
        "        self.size = size\n\n"
        "    def format(self, text):\n        return text\n\n\nclass Made(make_base()):\n    def __init__(self):\n"
        "        super().__init__(1)\n",
    )
    conn = indexed(repo)
    try:
        assert "pkg/errors.py::Failure.__init__" not in caller_bases(conn, "pkg/errors.py::Cache.__init__")
        assert "pkg/errors.py::Shown.format" not in caller_bases(conn, "pkg/errors.py::Cache.format")
        assert caller_bases(conn, "pkg/errors.py::Cache.__init__").get("pkg/errors.py::Made.__init__") == "name only"
    finally:
        conn.close()
    repo.write("pkg/mixed.py", "from .errors import Cache, Shown\n\n\nclass Both(Shown, Cache):\n    pass\n")
    conn = indexed(repo)
    try:  # Both's order puts Cache after Shown: Shown's super().format() runs Cache.format on a Both
        assert "pkg/errors.py::Shown.format" in caller_bases(conn, "pkg/errors.py::Cache.format")
    finally:
        conn.close()


def test_assigning_a_property_runs_its_setter(repo: Repo) -> None:
    """`t.celsius = 5` (or `+=`) on a Temp, in its file or where it is imported, runs the def decorated
    `@celsius.setter`; reading it runs the getter (`+=` both); assigning an attribute that is no property calls
    nothing."""
    repo.write(
        "temp.py",
        "class Temp:\n    def __init__(self):\n        self._c = 0\n        self.unit = 'C'\n\n    @property\n"
        "    def celsius(self):\n        return self._c\n\n    @celsius.setter\n    def celsius(self, value):\n"
        "        self._c = value\n\n\ndef warm(t: Temp):\n    t.celsius += 1\n",
    )
    repo.write(
        "main.py",
        "from temp import Temp\n\n\ndef use():\n    t = Temp()\n    t.celsius = 5\n    t.unit = 'F'\n\n\n"
        "def show():\n    return Temp().celsius\n",
    )
    conn = indexed(repo)
    try:
        assert caller_bases(conn, "temp.py::Temp.celsius#2") == {"main.py::use": "method", "temp.py::warm": "method"}
        assert caller_bases(conn, "temp.py::Temp.celsius") == {"main.py::show": "method", "temp.py::warm": "method"}
    finally:
        conn.close()


def test_a_name_a_decorator_makes_into_an_object_calls_that_objects_methods(repo: Repo) -> None:
    """`@cli.group() def cli(): ...` makes cli a Group (what `group()` is annotated to give), so `cli.command()` is
    Group's; calling `cli()` itself still reaches the function."""
    repo.write(
        "clicky.py",
        "import typing as t\n\n\nclass Group:\n    def command(self):\n        return None\n\n\n"
        "class Other:\n    def command(self):\n        return None\n\n\n"
        "def group(name=None) -> t.Union[Group, t.Callable[[t.Any], Group]]:\n    return Group()\n",
    )
    repo.write(
        "app.py",
        "import clicky\n\n\n@clicky.group()\ndef cli():\n    pass\n\n\ndef main():\n    cli.command()\n    cli()\n",
    )
    conn = indexed(repo)
    try:
        assert caller_bases(conn, "clicky.py::Group.command") == {"app.py::main": "imported name"}
        assert caller_bases(conn, "clicky.py::Other.command") == {}
        assert caller_bases(conn, "app.py::cli") == {"app.py::main": "same file"}
    finally:
        conn.close()


def test_a_parameter_is_what_the_calls_of_its_own_method_pass_it_and_no_other_classs() -> None:
    """What a file's calls pass a parameter was once read while the file's scopes were still being noted: an
    attribute set on a parameter (`other.held = 1`) asked for it before any call was, and every parameter
    of the file then had no arguments. A call of another class's method of the name passes nothing to it
    (`ctx.invoke(Other())` calls Context.invoke, not Command.invoke); an override's base is called for it."""
    source = (
        "class Sink:\n    def write(self):\n        return 1\n\n\n"
        "class Other:\n    def close(self):\n        return 2\n\n\n"
        "class Context:\n    def invoke(self, callback):\n        return callback\n\n"
        "    def close(self):\n        return 3\n\n\n"
        "class Command:\n    def invoke(self, ctx):\n        ctx.close()\n\n\n"
        "class Base:\n    def run(self, x):\n        return x\n\n\n"
        "class Child(Base):\n    def run(self, x):\n        x.write()\n\n\n"
        "class Box:\n    def fill(self, other):\n        other.held = 1\n\n"
        "    def put(self, sink):\n        sink.write()\n\n\n"
        "def main(b: Base):\n    Box().put(Sink())\n    ctx = Context()\n    ctx.invoke(Other())\n"
        "    Command().invoke(ctx)\n    b.run(Sink())\n"
    )
    calls = extract("m.py", source.encode(), "python").calls
    refs = {(c["caller"], c["name"]): c["ref"] for c in calls}
    assert refs[("m.py::Box.put", "write")] == "module:Sink().write"
    assert refs[("m.py::Command.invoke", "close")] == "module:Context().close"
    # and what Base.run declares for x, which is nothing here (the store finds no class for it)
    assert refs[("m.py::Child.run", "write")] == "module:Sink().write|super:Child().run(x).write"


def test_a_line_continuation_among_the_arguments_takes_no_place() -> None:
    """tree-sitter names a `\\` continuation and a comment among a call's arguments: neither is an argument, so
    neither moves the place of those after it (a parameter, a zip's item, a parametrize case's value)."""
    source = (
        "import pytest\n\n\nclass Job:\n    def run(self):\n        return 1\n\n\n"
        "class Other:\n    def run(self):\n        return 2\n\n\n"
        "def go(first, job):\n    job.run()\n\n\n"
        "def use():\n    go(Other(), \\\n       Job())\n    for a, b in zip([Other()], \\\n            [Job()]):\n"
        "        b.run()\n\n\n"
        '@pytest.mark.parametrize("x, job", \\\n    [(1, Job())])\ndef test_it(x, job):\n    job.run()\n'
    )
    calls = extract("m.py", source.encode(), "python").calls
    refs = {(c["caller"], c["name"]): c["ref"] for c in calls}
    assert refs[("m.py::go", "run")] == "module:Job().run"
    assert refs[("m.py::use", "run")] == "module:Job().run"
    assert refs[("m.py::test_it", "run")] == "module:Job().run"


def test_a_caught_exception_is_an_instance_of_a_class_it_catches() -> None:
    """`except (Invalid, KeyError) as e` binds an instance of a class it catches; `except*` an ExceptionGroup."""
    source = (
        "class Invalid(Exception):\n    def describe(self):\n        return 1\n\n\n"
        "def check(run):\n    try:\n        run()\n    except (Invalid, KeyError) as e:\n        e.describe()\n\n\n"
        "def check_all(run):\n    try:\n        run()\n    except* Invalid as group:\n        group.describe()\n"
    )
    refs = {c["caller"]: c["ref"] for c in extract("m.py", source.encode(), "python").calls if c["name"] == "describe"}
    assert refs == {"m.py::check": "builtin:KeyError().describe|module:Invalid().describe", "m.py::check_all": "?"}


def test_an_attribute_holds_what_the_call_assigned_it_gives_for_other_files_too(repo: Repo) -> None:
    """`self.stream = environment.tokenize(...)` holds what `tokenize` declares it returns: an extension's
    `parser.stream.expect()` calls TokenStream's."""
    repo.write("lexer.py", "class TokenStream:\n    def expect(self, kind):\n        return kind\n")
    repo.write(
        "environment.py",
        "from lexer import TokenStream\n\n\nclass Environment:\n"
        "    def tokenize(self, source) -> TokenStream:\n        return TokenStream()\n",
    )
    repo.write(
        "parser.py",
        "from environment import Environment\n\n\nclass Parser:\n"
        "    def __init__(self, environment: Environment, source):\n"
        "        self.stream = environment.tokenize(source)\n",
    )
    repo.write(
        "ext.py", "from parser import Parser\n\n\ndef parse(parser: Parser):\n    return parser.stream.expect('n')\n"
    )
    conn = indexed(repo)
    try:
        assert caller_bases(conn, "lexer.py::TokenStream.expect") == {"ext.py::parse": "imported name"}
    finally:
        conn.close()


def test_an_overrides_parameter_declaring_no_type_is_what_the_overridden_method_declares(repo: Repo) -> None:
    """`def convert(self, value, param, ctx)` in a subclass of ParamType: `ctx` is what ParamType.convert declares,
    `t.Optional["Context"]`, so `ctx.fail()` calls Context.fail (type checkers read an override so). A parameter
    the base declares as `*args: Context` is a tuple, no Context; a method overriding nothing stays a guess."""
    repo.write("context.py", "class Context:\n    def fail(self, message):\n        raise ValueError(message)\n")
    repo.write(
        "paramtypes.py",
        "import typing as t\n\nif t.TYPE_CHECKING:\n    from context import Context\n\n\nclass ParamType:\n"
        "    def convert(self, value, param, ctx: t.Optional['Context']) -> t.Any:\n        return value\n\n"
        "    def split(self, *ctx: 'Context'):\n        return ctx\n",
    )
    repo.write(
        "user.py",
        "from paramtypes import ParamType\n\n\nclass Upper(ParamType):\n    def convert(self, value, param, ctx):\n"
        "        ctx.fail('no')\n\n    def split(self, *ctx):\n        ctx.fail('no')\n\n"
        "    def check(self, ctx):\n        ctx.fail('no')\n",
    )
    conn = indexed(repo)
    try:
        bases = caller_bases(conn, "context.py::Context.fail")
        assert bases["user.py::Upper.convert"] == "method"
        assert bases.get("user.py::Upper.split") != "method"
        assert bases.get("user.py::Upper.check") != "method"
    finally:
        conn.close()


def test_a_value_its_type_declares_is_an_instance_and_calling_it_runs_its_class_s_call(repo: Repo) -> None:
    """A parameter an overridden method declares `dispatch: Dispatch` holds a Dispatch, as an element of a
    `List[Dispatch]` does: calling either runs Dispatch.__call__, and constructs no Dispatch (sqlalchemy's
    `fn(orm_exec_state)` over `_remaining_events() -> List[_InstanceLevelDispatch[Session]]`, where callees named
    the class and its callers left the call out). A parameter declared `Type[Comparator]` is the class: calling
    it makes one (which the class's callers do not find yet: they look for calls by its name and its fields')."""
    repo.write(
        "dispatch.py",
        "from typing import List, Type\n\n\nclass Dispatch:\n    def __call__(self, state):\n        return state\n"
        "\n\nclass Comparator:\n    pass\n\n\nclass Base:\n"
        "    def __init__(self, dispatch: Dispatch, maker: Type[Comparator]):\n        self.dispatch = dispatch\n\n"
        "    def pending(self) -> List[Dispatch]:\n        return [self.dispatch]\n\n\nclass Child(Base):\n"
        "    def __init__(self, dispatch, maker):\n        dispatch(1)\n        maker()\n"
        "        for fn in self.pending():\n            fn(2)\n",
    )
    conn = indexed(repo)
    try:
        child = queries.find_symbol(conn, "dispatch.py::Child.__init__")
        called = {(c["line"], c["target"]) for c in lookups.callees(conn, child) if c["target"]}
        assert (23, "dispatch.py::Dispatch.__call__") in called and (26, "dispatch.py::Dispatch.__call__") in called
        assert (24, "dispatch.py::Comparator") in called
        assert not any(target == "dispatch.py::Dispatch" for _, target in called)
        calls = [c for c in lookups.callers(conn, queries.find_symbol(conn, "dispatch.py::Dispatch.__call__"))]
        assert sorted(c["line"] for c in calls if c["caller"] == "dispatch.py::Child.__init__") == [23, 26]
        assert "dispatch.py::Child.__init__" not in caller_bases(conn, "dispatch.py::Dispatch")
    finally:
        conn.close()


def test_a_method_a_class_body_binds_a_dispatched_name_to_is_called_by_the_dispatch(repo: Repo) -> None:
    """`visit_Block = _simple_visit` in a visitor's body (Jinja's RootVisitor): `getattr(self, "visit_" + name)()` may
    run _simple_visit, which otherwise no call names."""
    repo.write(
        "visitor.py",
        "class Visitor:\n    def visit(self, node):\n"
        "        return getattr(self, 'visit_' + type(node).__name__)(node)\n\n\n"
        "class Root(Visitor):\n    def _simple_visit(self, node):\n        return node\n\n"
        "    visit_Block = _simple_visit\n    visit_If = _simple_visit\n",
    )
    conn = indexed(repo)
    try:
        assert caller_bases(conn, "visitor.py::Root._simple_visit") == {
            "visitor.py::Visitor.visit": "dispatched by name"
        }
    finally:
        conn.close()


def test_a_method_named_at_run_time_is_called_by_the_dispatch(repo: Repo) -> None:
    """`getattr(self, f"parse_{kind}")()` (Jinja's parser), `getattr(self, "visit_" + name, self.generic_visit)`
    (a visitor in a base class, its methods in a subclass), or what a method returning such a getattr gives (Jinja's
    NodeVisitor.get_visitor): each method of the instance named so may run, its class's or a subclass's, own or
    inherited from another base (a mixin's): a stand-in the callers list as `dispatched by name`, and the callees
    too; a method of another class, or named otherwise, is not."""
    repo.write(
        "visitor.py",
        "class Visitor:\n    def visit(self, node):\n        name = 'visit_' + type(node).__name__\n"
        "        method = getattr(self, name, self.generic_visit)\n        return method(node)\n\n"
        "    def generic_visit(self, node):\n        return None\n\n\n"
        "class Walker:\n    def get_walker(self, node) -> 'Callable':\n"
        "        return getattr(self, f'walk_{type(node).__name__}', None)\n\n"
        "    def walk(self, node):\n        f = self.get_walker(node)\n        return f(node) if f else None\n",
    )
    repo.write(
        "parser.py",
        "from visitor import Visitor, Walker\n\n\nclass Parser:\n    def parse_for(self):\n        return 1\n\n"
        "    def statement(self, kind):\n        return getattr(self, f'parse_{kind}')()\n\n\n"
        "class Mixin:\n    def visit_Call(self, node):\n        return node\n\n\n"
        "class Printer(Mixin, Visitor):\n    def visit_Name(self, node):\n        return node\n\n\n"
        "class Counter(Walker):\n    def walk_Name(self, node):\n        return 1\n\n\n"
        "class Other:\n    def parse_if(self):\n        return 2\n\n"
        "    def visit_Call(self, node):\n        return 3\n",
    )
    conn = indexed(repo)
    try:
        assert caller_bases(conn, "parser.py::Parser.parse_for") == {
            "parser.py::Parser.statement": "dispatched by name"
        }
        assert caller_bases(conn, "parser.py::Printer.visit_Name") == {
            "visitor.py::Visitor.visit": "dispatched by name"
        }
        assert "visitor.py::Visitor.visit" in caller_bases(conn, "visitor.py::Visitor.generic_visit")  # the default
        # behind a method returning the getattr, whose annotation names no class (Jinja's get_visitor)
        assert caller_bases(conn, "parser.py::Counter.walk_Name") == {"visitor.py::Walker.walk": "dispatched by name"}
        assert caller_bases(conn, "parser.py::Other.parse_if") == {}
        assert caller_bases(conn, "parser.py::Other.visit_Call") == {}
        assert caller_bases(conn, "parser.py::Mixin.visit_Call") == {"visitor.py::Visitor.visit": "dispatched by name"}
        dispatched = {
            caller: {(c["target"], c["basis"]) for c in lookups.callees(conn, queries.find_symbol(conn, caller))}
            for caller in ("parser.py::Parser.statement", "visitor.py::Visitor.visit")
        }
        assert ("parser.py::Parser.parse_for", "dispatched by name") in dispatched["parser.py::Parser.statement"]
        assert {"parser.py::Printer.visit_Name", "parser.py::Mixin.visit_Call"} == {
            target for target, basis in dispatched["visitor.py::Visitor.visit"] if basis == "dispatched by name"
        }
        assert (None, "unresolved") not in dispatched["parser.py::Parser.statement"]  # not a guess saying nothing
    finally:
        conn.close()


def test_getattr_after_a_star_import_is_still_the_builtin() -> None:
    """ast.py imports `from _ast import *`, so its `getattr` might come from there: it is still the builtin, and
    NodeVisitor.visit's `getattr(self, method, self.generic_visit)(node)` names `visit_*` or the default."""
    source = (
        "from _ast import *\n\n\nclass NodeVisitor:\n    def visit(self, node):\n"
        "        method = 'visit_' + node.__class__.__name__\n"
        "        visitor = getattr(self, method, self.generic_visit)\n        return visitor(node)\n\n"
        "    def generic_visit(self, node):\n        return node\n"
    )
    refs = {c["name"]: c["ref"] for c in extract("ast.py", source.encode(), "python").calls}
    assert refs["visitor"] == "module:NodeVisitor().generic_visit|module:NodeVisitor().visit_*"


def test_what_a_class_is_made_with_is_what_its_init_is_passed() -> None:
    """`Holder(Worker())` passes a Worker to Holder.__init__'s `worker`, so `self.worker.work()` in Holder is
    Worker.work; a subclass without an `__init__` of its own passes to the same parameters (`SubHolder(worker=...)`),
    one with its own does not (MarkupSafe's `EscapeFormatter(self.escape)`: `self.escape(rv)` was unknown)."""
    source = (
        "class Holder:\n    def __init__(self, worker):\n        self.worker = worker\n\n"
        "    def go(self):\n        self.worker.work()\n\n\n"
        "class SubHolder(Holder):\n    pass\n\n\n"
        "class OwnHolder(Holder):\n    def __init__(self, worker):\n        super().__init__(Worker())\n\n\n"
        "class Worker:\n    def work(self):\n        pass\n\n\n"
        "class Other:\n    def work(self):\n        pass\n\n\n"
        "class Third:\n    def work(self):\n        pass\n\n\n"
        "def main():\n    Holder(Worker()).go()\n    SubHolder(worker=Other()).go()\n    OwnHolder(Third()).go()\n"
    )
    refs = {(c["caller"], c["name"]): c["ref"] for c in extract("m.py", source.encode(), "python").calls}
    assert refs[("m.py::Holder.go", "work")] == "module:Other().work|module:Worker().work"


def test_a_value_annotated_any_may_be_ours(repo: Repo) -> None:
    """`def escape(s: t.Any)` takes anything (so does `'t.Any'`, quoted), ours too: `s.__html__()` is a call the
    file does not explain, a guess by name among the callers of each `__html__` (MarkupSafe's), not a call of
    typing's Any that no code of ours answers."""
    repo.write(
        "markup.py",
        "import typing as t\nfrom typing import Any, Optional\n\n\n"
        "def escape(s: t.Any, o: Optional[Any], q: 'Any', r: 't.Any'):\n"
        "    s.__html__()\n    o.__html__()\n    q.__html__()\n    r.__html__()\n\n\n"
        "class Markup(str):\n    def __html__(self):\n        return self\n",
    )
    source = (repo.root / "markup.py").read_bytes()
    assert {c["ref"] for c in extract("markup.py", source, "python").calls} == {"?"}
    conn = indexed(repo)
    try:
        assert caller_bases(conn, "markup.py::Markup.__html__") == {"markup.py::escape": "unique name"}
    finally:
        conn.close()


def test_an_isinstance_test_says_what_a_name_is_inside_it() -> None:
    """Inside `if isinstance(x, A):` (an `elif`, a tuple of classes) x is an instance of what it tests, whatever
    else the file says it may be; outside, and under a condition that is more than the test, it is as before."""
    source = (
        "class A:\n    def m(self):\n        pass\n\n\nclass B:\n    def m(self):\n        pass\n\n\n"
        "def f(x, y):\n    if isinstance(x, A):\n        x.m()\n    elif isinstance(x, (B, str)):\n"
        "        x.encode()\n    x.m()\n    if isinstance(y, A) and y:\n        y.m()\n"
    )
    calls = extract("m.py", source.encode(), "python").calls
    refs = {c["line"]: c["ref"] for c in calls if c["name"] in ("m", "encode")}
    assert refs == {13: "module:A().m", 15: "builtin:str().encode|module:B().encode", 16: "?", 18: "?"}


def test_an_isinstance_guard_says_what_a_name_is_after_it() -> None:
    """After `if not isinstance(x, A): raise ...` x is an A, and so is what a function returning it gives
    (marshmallow's resolve_field_instance); a guard whose body may fall through, or `isinstance(x, type)`, says
    nothing."""
    source = (
        "class A:\n    def m(self):\n        pass\n\n\n"
        "def resolve(x):\n    if isinstance(x, type):\n        return x()\n    else:\n"
        "        if not isinstance(x, A):\n            raise TypeError(x)\n        return x\n\n\n"
        "def use(f, y):\n    resolve(f).m()\n    if not isinstance(y, A):\n        print(y)\n    y.m()\n"
    )
    calls = extract("m.py", source.encode(), "python").calls
    refs = {c["line"]: c["ref"] for c in calls if c["name"] in ("m", "x")}
    assert refs == {8: "?", 16: "module:A().m", 19: "?"}


def test_reading_a_property_gives_what_it_returns(repo: Repo) -> None:
    """`env.lexer.tokenize()` reads the property `lexer`, declared `-> Lexer`: the call is Lexer.tokenize, as a
    TypeScript getter's already was."""
    repo.write("lexer.py", "class Lexer:\n    def tokenize(self, source):\n        return source\n")
    repo.write(
        "environment.py",
        "from lexer import Lexer\n\n\nclass Environment:\n    @property\n    def lexer(self) -> Lexer:\n"
        "        return Lexer()\n\n    def parse(self, source):\n        return self.lexer.tokenize(source)\n",
    )
    conn = indexed(repo)
    try:
        assert caller_bases(conn, "lexer.py::Lexer.tokenize") == {"environment.py::Environment.parse": "method"}
    finally:
        conn.close()


def test_type_of_a_value_and_its_class_attribute_are_its_class() -> None:
    """`self.__class__(s)` and `type(self)(s)` make another instance of self's class."""
    source = (
        "class Markup(str):\n    def unescape(self):\n        return 1\n\n"
        "    def striptags(self):\n        return self.__class__(self).unescape()\n\n"
        "    def again(self):\n        return type(self)(self).unescape()\n"
    )
    refs = {(c["caller"], c["name"]): c["ref"] for c in extract("m.py", source.encode(), "python").calls}
    assert refs[("m.py::Markup.striptags", "unescape")] == "module:Markup().unescape"
    assert refs[("m.py::Markup.again", "unescape")] == "module:Markup().unescape"


def test_a_partial_calls_what_it_wraps_and_request_param_is_each_of_a_fixtures_params() -> None:
    """`functools.partial(Serializer, key=k)`, called, makes a Serializer; in a fixture declaring
    `params=(Serializer, partial(Serializer, fast=True))`, `request.param` is either, so a test calling what the
    fixture gives calls Serializer's methods."""
    source = (
        "import functools\nfrom functools import partial\n\nimport pytest\n\nfrom app import Serializer\n\n\n"
        "class TestSerializer:\n    @pytest.fixture(params=(Serializer, partial(Serializer, fast=True)))\n"
        "    def factory(self, request):\n        return partial(request.param, key='k')\n\n"
        "    def test_dumps(self, factory):\n        factory().dumps(1)\n\n\n"
        "def test_loads():\n    make = functools.partial(Serializer, key='k')\n    make().loads(1)\n"
    )
    refs = {c["name"]: c["ref"] for c in extract("tests/test_s.py", source.encode(), "python").calls}
    assert refs["dumps"] == "import#3:Serializer().dumps"
    assert refs["loads"] == "import#3:Serializer().loads"


def test_a_parametrized_parameter_is_each_of_its_cases_values() -> None:
    """`@pytest.mark.parametrize(("type", "value"), [(click.IntRange(0, 5), "3"), ...])` (click's test_types.py): `type`
    is the first item of each case, an IntRange or a FloatRange; one name makes each case the value itself;
    `pytest.param(...)` holds the case in its arguments, `*HELLO` the tuple HELLO holds."""
    source = (
        "import pytest\n\nimport click\n\nHELLO = (click.Command('hello'), {'name': 'hello'})\n\n\n"
        "@pytest.mark.parametrize(\n    ('type', 'value'),\n"
        "    [(click.IntRange(0, 5), '3'), (click.FloatRange(0.5), '1.2')],\n)\n"
        "def test_range(type, value):\n    assert type.convert(value)\n\n\n"
        "@pytest.mark.parametrize('obj', [click.Choice(['a']), pytest.param(click.Path(), id='path')])\n"
        "def test_one(obj):\n    obj.to_info_dict()\n\n\n"
        "@pytest.mark.parametrize(argnames='obj, expect', argvalues=[pytest.param(*HELLO, id='Command')])\n"
        "def test_splat(obj, expect):\n    obj.to_info_dict()\n"
    )
    refs = {c["caller"]: c["ref"] for c in extract("tests/t.py", source.encode(), "python").calls if c["qualifier"]}
    assert set(refs["tests/t.py::test_range"].split("|")) == {
        "import#1:IntRange().convert",
        "import#1:FloatRange().convert",
    }
    assert set(refs["tests/t.py::test_one"].split("|")) == {
        "import#1:Choice().to_info_dict",
        "import#1:Path().to_info_dict",
    }
    assert refs["tests/t.py::test_splat"] == "import#1:Command().to_info_dict"


def test_a_staticmethod_called_on_self_takes_its_arguments_from_the_first() -> None:
    """`self._check(Environment())` passes a staticmethod its first parameter (Jinja's
    `_test_indent_multiline_template(env)` helpers): no `self` is among its parameters to skip, so
    `env.from_string()` is Environment's."""
    source = (
        "from jinja2 import Environment\n\n\nclass TestFilter:\n    @staticmethod\n"
        "    def _check(env, markup=False):\n        return env.from_string('x')\n\n"
        "    def test_a(self):\n        self._check(Environment())\n"
    )
    refs = {c["name"]: c["ref"] for c in extract("tests/t.py", source.encode(), "python").calls}
    assert refs["from_string"] == "import#0:Environment().from_string"


def test_a_copy_is_what_it_copies_and_object_new_makes_an_instance() -> None:
    """`copy.copy(self)`, `deepcopy(self)` and `object.__new__(self.__class__)` are Frames: their methods are
    Frame's, not some other package's (a call on a copy was read as one into the copy module)."""
    source = (
        "import copy\nfrom copy import deepcopy\n\n\nclass Frame:\n    def inner(self):\n        return 1\n\n"
        "    def soft(self):\n        rv = object.__new__(self.__class__)\n        return rv.inner()\n\n"
        "    def twin(self):\n        return copy.copy(self).inner()\n\n"
        "    def deep(self):\n        other = deepcopy(self)\n        return other.inner()\n"
    )
    refs = {c["caller"]: c["ref"] for c in extract("m.py", source.encode(), "python").calls if c["name"] == "inner"}
    assert set(refs.values()) == {"module:Frame().inner"} and len(refs) == 3


def test_a_parameter_a_decorator_hands_in_is_what_the_decorator_declares(repo: Repo) -> None:
    """`@pass_context def cli(ctx)`: `pass_context(f: "t.Callable[te.Concatenate[Context, P], R]")` hands the function
    a Context, so `ctx.invoke()` is Context.invoke. A decorator from outside the repository (`@pytest.mark.slow`)
    says nothing of the parameters: their calls stay guesses, not calls into pytest."""
    repo.write("core.py", "class Context:\n    def invoke(self, f):\n        return f()\n")
    repo.write(
        "decorators.py",
        "import typing as t\n\nimport typing_extensions as te\n\nfrom core import Context\n\n"
        "P = te.ParamSpec('P')\nR = t.TypeVar('R')\n\n\n"
        "def pass_context(f: 't.Callable[te.Concatenate[Context, P], R]') -> 't.Callable[P, R]':\n    return f\n",
    )
    repo.write(
        "app.py",
        "import pytest\n\nfrom decorators import pass_context\n\n\n@pass_context\ndef cli(ctx):\n"
        "    return ctx.invoke(print)\n\n\n@pytest.mark.slow\ndef check(ctx):\n    return ctx.invoke(print)\n",
    )
    conn = indexed(repo)
    try:
        bases = caller_bases(conn, "core.py::Context.invoke")
        assert bases["app.py::cli"] == "imported name"
        assert bases["app.py::check"] == "unique name"
    finally:
        conn.close()


def test_a_union_of_classes_is_the_base_they_share_or_no_sure_answer(repo: Repo) -> None:
    """A value declared `Union[Name, Tuple]` of two Nodes may run either one's `visit`: the call is Node.visit,
    with both overrides standing in (Jinja's parser). `Union[Command, Parameter]` share no base: naming Command's
    method would be a sure answer and a wrong one whenever the value is a Parameter (click's shell completion),
    so neither is given as the method. `Annotated[Command, Parameter]` is a Command; the rest is metadata."""
    repo.write(
        "nodes.py",
        "import typing as t\n\n\nclass Node:\n    def visit(self):\n        return 0\n\n\n"
        "class Name(Node):\n    def visit(self):\n        return 1\n\n\n"
        "class Tuple(Node):\n    def visit(self):\n        return 2\n\n\n"
        "class Command:\n    def complete(self):\n        return 3\n\n\n"
        "class Parameter:\n    def complete(self):\n        return 4\n\n\n"
        "def target() -> t.Union[Name, Tuple]:\n    return STACK.pop()\n\n\n"
        "def resolve() -> 't.Union[Command, Parameter]':\n    return STACK.pop()\n\n\n"
        "def marked() -> t.Annotated[Command, Parameter]:\n    return STACK.pop()\n\n\n"
        "def parse():\n    return target().visit()\n\n\n"
        "def complete():\n    return resolve().complete()\n\n\n"
        "def annotated():\n    return marked().complete()\n",
    )
    conn = indexed(repo)
    try:

        def callers(name: str) -> dict[str, str]:
            return {c["caller"]: c["basis"] for c in queries.callers(conn, queries.find_symbol(conn, name))}

        assert callers("Node.visit") == {"nodes.py::parse": "method"}
        assert callers("Name.visit") == callers("Tuple.visit") == {"nodes.py::parse": "override"}
        assert callers("Command.complete") == {"nodes.py::annotated": "method", "nodes.py::complete": "name only"}
        assert callers("Parameter.complete") == {"nodes.py::complete": "name only"}
    finally:
        conn.close()


def test_a_comment_in_a_signature_is_not_a_parameter(repo: Repo) -> None:
    """`def loads(  # type: ignore[override]` with `self` on the next line (itsdangerous' TimedSerializer): the comment
    is neither the first parameter nor part of the signature, so `self` is the instance and `self.unsigners()` is
    the class's own method."""
    repo.write(
        "timed.py",
        "class Base:\n    def loads(self, s):\n        return s\n\n\n"
        "class Timed(Base):\n    def unsigners(self):\n        return []\n\n"
        "    def loads(  # type: ignore[override]\n        self,\n        s: str,  # the payload\n    ) -> str:\n"
        "        return self.unsigners()\n",
    )
    conn = indexed(repo)
    try:
        loads = queries.find_symbol(conn, "Timed.loads")
        assert loads["signature"] == "def loads(self, s: str) -> str"
        unsigners = queries.find_symbol(conn, "Timed.unsigners")
        assert [(c["caller"], c["basis"]) for c in queries.callers(conn, unsigners)] == [
            ("timed.py::Timed.loads", "method")
        ]
    finally:
        conn.close()


def test_a_mixins_method_runs_for_a_call_in_a_class_beside_it(repo: Repo) -> None:
    """`class URLSafeTimed(URLSafeMixin, Timed)` (itsdangerous): on such an instance, `self.load_payload()` in Timed
    runs the mixin's load_payload, which comes first in its method resolution order, though the mixin is no
    subclass of Timed. On a Plain, which has no mixin, the same call never does."""
    repo.write(
        "serializer.py",
        "class Serializer:\n    def load_payload(self, p):\n        return p\n\n\n"
        "class Timed(Serializer):\n    def loads(self, s):\n        return self.load_payload(s)\n\n\n"
        "class URLSafeMixin:\n    def load_payload(self, p):\n        return p\n\n\n"
        "class URLSafeTimed(URLSafeMixin, Timed):\n    pass\n\n\n"
        "class Plain(Serializer):\n    pass\n\n\n"
        "def plain(s):\n    return Plain().load_payload(s)\n",
    )
    conn = indexed(repo)
    try:
        mixin = queries.find_symbol(conn, "URLSafeMixin.load_payload")
        assert [(c["caller"], c["basis"]) for c in queries.callers(conn, mixin)] == [
            ("serializer.py::Timed.loads", "override")
        ]
    finally:
        conn.close()


def test_a_method_only_a_subclass_brings_is_what_a_call_on_the_base_runs(repo: Repo) -> None:
    """`command.resolve_command()` on a value declared a Command, which only MultiCommand declares (click's shell
    completion, after an isinstance check): the call can only run MultiCommand's method, or Group's override of it
    on a Group. Where two unrelated subclasses each bring one (`describe`), or the class answers any name
    (`__getattr__`), nothing is sure."""
    repo.write(
        "core.py",
        "class Command:\n    def main(self):\n        return 0\n\n\n"
        "class MultiCommand(Command):\n    def resolve_command(self, args):\n        return args\n\n"
        "    def describe(self):\n        return 'multi'\n\n\n"
        "class Group(MultiCommand):\n    def resolve_command(self, args):\n        return args\n\n\n"
        "class Single(Command):\n    def describe(self):\n        return 'single'\n\n\n"
        "class Lazy:\n    def __getattr__(self, name):\n        return name\n\n\n"
        "class Loaded(Lazy):\n    def load(self):\n        return 1\n\n\n"
        "def complete(command: Command, lazy: Lazy, args):\n"
        "    command.describe()\n    lazy.load()\n    return command.resolve_command(args)\n",
    )
    conn = indexed(repo)
    try:

        def callers(name: str) -> dict[str, str]:
            return {c["caller"]: c["basis"] for c in queries.callers(conn, queries.find_symbol(conn, name))}

        assert callers("MultiCommand.resolve_command") == {"core.py::complete": "method"}
        assert callers("Group.resolve_command") == {"core.py::complete": "override"}
        assert callers("MultiCommand.describe") == callers("Single.describe") == {"core.py::complete": "name only"}
        assert callers("Loaded.load") == {"core.py::complete": "unique name"}
    finally:
        conn.close()


def test_a_hook_the_base_calls_and_each_subclass_defines_is_reached_through_the_base(repo: Repo) -> None:
    """`self.step()` in a Job that leaves step to its subclasses (a template method): the call may run each
    subclass's step, as its order finds it (Audit's, on an Audited(Audit, Job)), never Plan's, which no Job
    has (callers and callees agree: no guess by name); changing one subclass's step can break what runs
    Job.run, so impact follows the call to the test that runs it, as it follows an override's."""
    repo.write(
        "jobs.py",
        "class Job:\n    def run(self):\n        return self.step()\n\n\n"
        "class Copy(Job):\n    def step(self):\n        return 'copy'\n\n\n"
        "class Move(Job):\n    def step(self):\n        return 'move'\n\n\n"
        "class Plan:\n    def step(self):\n        return 'plan'\n\n\n"
        "class Audit:\n    def step(self):\n        return 'audit'\n\n\n"
        "class Audited(Audit, Job):\n    pass\n",
    )
    repo.write("tests/test_jobs.py", "from jobs import Copy\n\n\ndef test_copy():\n    assert Copy().run() == 'copy'\n")
    conn = indexed(repo)
    try:
        assert [(c["target"], c["basis"]) for c in queries.callees(conn, queries.find_symbol(conn, "Job.run"))] == [
            ("jobs.py::Copy.step", "override"),
            ("jobs.py::Move.step", "override"),
            ("jobs.py::Audit.step", "override"),  # on an Audited, Audit comes before Job
        ]
        assert [s["id"] for s in queries.impact(conn, "jobs.py::Copy.step")["symbols"]] == [
            "jobs.py::Job.run",
            "tests/test_jobs.py::test_copy",
        ]
        assert queries.impact(conn, "jobs.py::Plan.step")["symbols"] == []  # no Job has it: not even a guess
        assert [(c["caller"], c["basis"]) for c in queries.callers(conn, queries.find_symbol(conn, "Audit.step"))] == [
            ("jobs.py::Job.run", "override")
        ]
    finally:
        conn.close()


def test_super_in_a_mixin_runs_the_class_after_it_in_a_class_deriving_from_both(repo: Repo) -> None:
    """`super().save()` in Logging, which has no base of its own, runs Base.save on a `Model(Logging, Base)`:
    Base comes next in Model's order. In Audit, which no class combines with Base, it never does: it runs object's,
    which has none, and is no guess at Base.save either."""
    repo.write(
        "models.py",
        "class Base:\n    def save(self):\n        return 0\n\n\n"
        "class Logging:\n    def save(self):\n        return super().save()\n\n\n"
        "class Audit:\n    def save(self):\n        return super().save()\n\n\n"
        "class Model(Logging, Base):\n    pass\n",
    )
    conn = indexed(repo)
    try:
        base = queries.find_symbol(conn, "Base.save")
        assert {c["caller"]: c["basis"] for c in queries.callers(conn, base)} == {
            "models.py::Logging.save": "override",
        }
    finally:
        conn.close()


def test_a_generic_class_of_ours_is_itself_and_a_protocol_is_no_sure_answer(repo: Repo) -> None:
    """`-> "ProgressBar[V]"` (click's progressbar) is a ProgressBar, as `ProgressBar` would be; `t.List[Bar]` stays a
    list, whose methods are no Bar's. A value declared a Protocol (itsdangerous' `serializer: _PDataSerializer[T]`)
    runs whatever satisfies it, which need not derive from it: its own method is no sure answer."""
    repo.write(
        "bar.py",
        "import typing as t\n\nV = t.TypeVar('V')\n\n\nclass ProgressBar(t.Generic[V]):\n"
        "    def update(self, n):\n        return n\n\n\n"
        "class Dumper(t.Protocol[V]):\n    def dumps(self, obj): ...\n\n\n"
        "class Json:\n    def dumps(self, obj):\n        return str(obj)\n\n\n"
        "def progressbar() -> 'ProgressBar[V]':\n    return make()\n\n\n"
        "class Serializer:\n    serializer: Dumper[str]\n\n"
        "    def dump(self, obj):\n        return self.serializer.dumps(obj)\n\n\n"
        "def run():\n    return progressbar().update(1)\n",
    )
    conn = indexed(repo)
    try:

        def callers(name: str) -> dict[str, str]:
            return {c["caller"]: c["basis"] for c in queries.callers(conn, queries.find_symbol(conn, name))}

        assert callers("ProgressBar.update") == {"bar.py::run": "method"}
        assert callers("Dumper.dumps") == callers("Json.dumps") == {"bar.py::Serializer.dump": "name only"}
    finally:
        conn.close()


def test_a_field_holding_a_class_constructs_it_when_called(repo: Repo) -> None:
    """`code_generator_class: t.Type["CodeGenerator"] = CodeGenerator` (Jinja's Environment): calling the field, from
    another module, makes a CodeGenerator, so `env.code_generator_class().visit()` is its visit, and the call itself
    runs its constructor; so does a field that may be None."""
    repo.write(
        "env.py",
        "import typing as t\n\n\nclass CodeGenerator:\n    def __init__(self, name):\n        self.name = name\n\n"
        "    def visit(self, node):\n        return node\n\n\n"
        "class Environment:\n    code_generator_class: t.Type['CodeGenerator'] = CodeGenerator\n"
        "    test_generator_class: type[CodeGenerator] | None = None\n",
    )
    repo.write(
        "compiler.py",
        "from env import Environment\n\n\n"
        "def generate(env: Environment, node):\n    return env.code_generator_class('x').visit(node)\n\n\n"
        "def generate_test(env: Environment):\n    return env.test_generator_class('t')\n",
    )
    conn = indexed(repo)
    try:
        generate = queries.find_symbol(conn, "generate")
        found = {(c["name"], c["target"], c["basis"]) for c in queries.callees(conn, generate)}
        assert found == {
            ("code_generator_class", "env.py::CodeGenerator", "constructor"),
            ("visit", "env.py::CodeGenerator.visit", "imported name"),
        }
        # None until it is set (Flask's `test_client_class: type[FlaskClient] | None`), a class when called
        generate_test = queries.find_symbol(conn, "generate_test")
        found = {(c["name"], c["target"], c["basis"]) for c in queries.callees(conn, generate_test)}
        assert found == {("test_generator_class", "env.py::CodeGenerator", "constructor")}
    finally:
        conn.close()


def test_an_array_of_a_generic_class_is_no_instance_of_it(repo: Repo) -> None:
    """`repos: Repository<any>[]` is an array (typeorm's EntityManager.treeRepositories): `this.repos.find()` is
    Array's find, never Repository.find, however a generic class's own name is read."""
    repo.write(
        "manager.ts",
        "export class Repository<T> {\n    find(): T[] {\n        return []\n    }\n}\n\n"
        "export class Manager {\n    protected repos: Repository<any>[] = []\n\n"
        "    first(): Repository<any> | undefined {\n"
        "        return this.repos.find((r) => r !== undefined)\n    }\n}\n",
    )
    conn = indexed(repo)
    try:
        find = queries.find_symbol(conn, "Repository.find")
        assert [c["basis"] for c in queries.callers(conn, find)] in ([], ["name only"])
    finally:
        conn.close()


def test_a_c_call_through_a_header_prototype_reaches_the_definition(repo: Repo) -> None:
    """C calls link by name: `geo_area(...)` in a file that includes geo.h (directly, or through another header)
    runs the definition of that name in geo.c. A `static` definition is its file's own, which no other file calls."""
    repo.write(
        "include/geo.h", "#ifndef GEO_H\n#define GEO_H\nint geo_area(int w, int h);\nint geo_kind(void);\n#endif\n"
    )
    repo.write("src/internal.h", '#include "geo.h"\n')
    repo.write("src/geo.c", '#include "internal.h"\nint geo_area(int w, int h) { return w * h; }\n')
    repo.write("src/kind.c", "static int geo_kind(void) { return 1; }\nint kind_of(void) { return geo_kind(); }\n")
    repo.write("test/test_geo.c", '#include "geo.h"\nint main(void) { return geo_area(2, 3) - 6; }\n')
    repo.write("src/shape.c", '#include "internal.h"\nint square(int w) { return geo_area(w, w); }\n')
    repo.write("tools/other.c", "int other(void) { return geo_area(1, 1); }\n")
    repo.write("CMakeLists.txt", "include_directories(include src)\n")
    conn = indexed(repo)
    try:
        assert caller_bases(conn, "src/geo.c::geo_area") == {
            "src/shape.c::square": "through its prototype",
            "test/test_geo.c::main": "through its prototype",
            "tools/other.c::other": "name only",  # no header of it declares geo_area: a guess
        }
        assert caller_bases(conn, "src/kind.c::geo_kind") == {"src/kind.c::kind_of": "same file"}
    finally:
        conn.close()


def test_a_c_source_is_used_by_the_callers_nearest_it_of_the_sources_defining_a_name(repo: Repo) -> None:
    """libuv's src/unix/tcp.c and src/win/tcp.c define the same functions for two platforms: a call reaches the one
    nearer the caller by folder, and none where they are as near (the build decides); a file's own `static`
    function of that name is its own."""
    repo.write("include/uv.h", "int tcp_bind(int fd);\nint tcp_keepalive(int fd);\n")
    for platform in ("unix", "win"):
        helper = "static " if platform == "win" else ""
        repo.write(
            f"src/{platform}/tcp.c",
            '#include "uv.h"\nint tcp_bind(int fd) { return fd; }\n'
            f"{helper}int tcp_keepalive(int fd) {{ return fd; }}\n"
            "int tcp_open(int fd) { return tcp_keepalive(fd); }\n",
        )
    repo.write("src/unix/core.c", '#include "uv.h"\nint core(void) { return tcp_bind(1); }\n')
    repo.write("src/win/handle.c", '#include "uv.h"\nint handle(void) { return tcp_bind(2); }\n')
    repo.write("test/test_tcp.c", '#include "uv.h"\nint main(void) { return tcp_bind(3); }\n')
    repo.write("CMakeLists.txt", "include_directories(include)\n")
    conn = indexed(repo)
    try:
        assert queries.dependents(conn, "src/unix/tcp.c") == ["include/uv.h", "src/unix/core.c"]
        assert queries.dependents(conn, "src/win/tcp.c") == ["include/uv.h", "src/win/handle.c"]
    finally:
        conn.close()


def test_a_c_source_s_impact_reaches_the_files_including_its_headers(repo: Repo) -> None:
    """No file includes a `.c` or `.cc`: a change to one reaches whoever includes the headers declaring what it
    defines (a function's prototype, a class's method), one step further than the header, or as near as the header
    where it calls one of the source's functions. Its `static` functions are its own: a header declaring their name
    does not make it the source's, nor does a call of that name."""
    repo.write("include/geo.h", "int geo_area(int w, int h);\n")
    repo.write("include/shape.h", "namespace geo {\nclass Shape {\n public:\n  int Area() const;\n};\n}\n")
    repo.write("include/kind.h", "int geo_kind(void);\n")
    repo.write(
        "src/geo.cc",
        '#include "shape.h"\nnamespace geo {\nint Shape::Area() const { return 1; }\n}\n'
        "int geo_area(int w, int h) { return w * h; }\nstatic int geo_kind(void) { return 0; }\n",
    )
    repo.write("src/internal.h", '#include "geo.h"\n')
    repo.write("src/use.c", '#include "internal.h"\nint square(int w) { return geo_area(w, w); }\n')
    repo.write("src/draw.cc", '#include "shape.h"\nint draw(const geo::Shape& s) { return s.Area(); }\n')
    repo.write("src/kinds.c", '#include "kind.h"\nint kinds(void) { return geo_kind(); }\n')
    repo.write("CMakeLists.txt", "include_directories(include src)\n")
    conn = indexed(repo)
    try:
        answer = queries.impact(conn, "src/geo.cc")
        assert {d["path"]: d["distance"] for d in answer["dependents"]} == {
            "include/geo.h": 1,
            "include/shape.h": 1,
            "src/internal.h": 2,
            "src/draw.cc": 2,  # it calls a method: by a name too common to tell, and its header is there
            "src/use.c": 1,  # it calls geo_area, through internal.h's include of geo.h
        }
        assert "through include/geo.h, include/shape.h" in answer["why"]
        assert queries.impact(conn, "src/use.c")["dependents"] == []  # nothing declares what it defines
        # Its contract, the pack's "used by" and `annals deps --reverse` say the same (the contract said none).
        contract = queries.module_contract(conn, "src/geo.cc", with_tests=False)
        assert contract["dependents"] == ["include/geo.h", "include/shape.h", "src/use.c"]
        assert queries.transitive(conn, "src/geo.cc", reverse=True, depth=4) == answer["dependents"]
        assert queries.module_contract(conn, "src/use.c", with_tests=False)["dependents"] == []
    finally:
        conn.close()


def test_every_line_a_caller_calls_a_function_on_is_a_site(repo: Repo) -> None:
    """A caller calling a function three times is one edge with three lines: an agent changing the function's
    signature edits each, and told of the first alone it would leave the other two broken."""
    from codeannals.server.app import App
    from codeannals.server.mcp import build_server

    from .mcp_support import call, data

    repo.write(
        "shop/prices.py",
        "def parse_price(text):\n    return float(text)\n\n\n"
        "def total(a, b, c):\n"
        "    first = parse_price(a)\n"
        "    second = parse_price(b)\n"
        "    return first + second + parse_price(c)\n\n\n"
        "def one(a):\n    return parse_price(a)\n\n\n"
        "def many(a):\n" + "    parse_price(a)\n" * 8,
    )
    repo.commit("prices")
    conn = indexed(repo)
    try:
        found = queries.find_symbol(conn, "parse_price")
        sites = {c["caller"]: (c["line"], c["lines"]) for c in queries.callers(conn, found)}
        assert sites == {
            "shop/prices.py::total": (6, [6, 7, 8]),
            "shop/prices.py::one": (12, [12]),
            "shop/prices.py::many": (16, list(range(16, 24))),
        }
        total = queries.find_symbol(conn, "total")
        assert [(c["name"], c["lines"]) for c in queries.callees(conn, total)] == [("parse_price", [6, 7, 8])]
    finally:
        conn.close()
    server = build_server(App.for_repo(repo.root))
    symbol = data(call(server, "get_symbol", {"symbol": "parse_price"}))
    assert {c["caller"]: c["lines"] for c in symbol["callers"]}["shop/prices.py::total"] == [6, 7, 8]
    pack = call(server, "get_context_pack", {"task": "parse_price should accept a comma as the decimal point"})
    site = "- shop/prices.py:6 in `shop/prices.py::total` (same file): `first = parse_price(a)` (again at 7, 8)\n"
    assert site in pack.content[0].text
    assert "(again at 17, 18, 19, 20, 21 and 2 more)" in pack.content[0].text  # the markdown keeps to a few
    callers = next(s for s in data(pack)["symbols"] if s["id"] == "shop/prices.py::parse_price")["callers"]
    assert {c["caller"]: c.get("lines") for c in callers} == {
        "shop/prices.py::total": [6, 7, 8],
        "shop/prices.py::one": None,  # once: its line says it all
        "shop/prices.py::many": list(range(16, 24)),  # the structured answer keeps them all
    }


def test_a_method_of_a_value_declared_builtin_is_the_builtins_and_never_a_guess_at_ours(repo: Repo) -> None:
    """`fetch(1).decode()` where fetch is declared `-> bytes`, `rows.append(x)` of a `rows: list[str]`, a local
    `counts: dict[str, int]`: bytes', list's and dict's methods, not a guess at a function of ours of that name (the
    only `decode` of a repository was a sure-looking `unique name`). A container holding something else
    (`dict[str, Handler]`) still gives what a call on its element may be, and a method of what a function returns
    undeclared stays a guess."""
    repo.write(
        "pkg/core.py",
        "def fetch(x) -> bytes:\n    return b'x'\n\n\ndef loose(x):\n    return x\n\n\n"
        "def decode(data):\n    return data\n\n\ndef append(item):\n    return item\n\n\n"
        "class Handler:\n    def run(self):\n        return 1\n\n\n"
        "def use(rows: list[str], handlers: dict[str, Handler]):\n"
        "    fetch(1).decode()\n    rows.append('a')\n    counts: dict[str, int] = {}\n    counts.get('k')\n"
        "    out = fetch(2)\n    out.decode()\n    handlers.get('k').run()\n    loose(3).decode()\n",
    )
    conn = indexed(repo)
    try:
        assert caller_bases(conn, "pkg/core.py::decode") == {"pkg/core.py::use": "unique name"}  # loose(3) alone
        lines = {c["line"] for c in lookups.callers(conn, queries.find_symbol(conn, "pkg/core.py::decode"))}
        assert lines == {30}
        assert caller_bases(conn, "pkg/core.py::append") == {}
        assert "pkg/core.py::use" in caller_bases(conn, "pkg/core.py::Handler.run")
    finally:
        conn.close()


def test_a_method_of_a_standard_library_class_a_function_returns_is_never_a_guess_at_ours(repo: Repo) -> None:
    """`connect(db).close()`, connect declared `-> sqlite3.Connection` in another file, and `where().exists()`, `->
    Optional[Path]`: the standard library's methods, not a guess at each `close` and `exists` of ours. A third-party
    class stays a guess (it may be handed our objects and call them back), and so does an abstract one
    (`Iterator[Box]`)."""
    repo.write(
        "pkg/db.py",
        "import sqlite3\nimport typing as t\nfrom pathlib import Path\n\nimport requests\n\n\n"
        "def connect(db) -> sqlite3.Connection:\n    return make(db)\n\n\n"
        "def where() -> t.Optional[Path]:\n    return find()\n\n\n"
        "def session() -> requests.Session:\n    return make(0)\n\n\n"
        "def boxes() -> t.Iterator['Box']:\n    return make(1)\n",
    )
    repo.write(
        "pkg/box.py",
        "class Box:\n    def close(self):\n        return 1\n\n    def exists(self):\n        return 2\n\n"
        "    def send(self):\n        return 3\n\n    def peek(self):\n        return 4\n",
    )
    repo.write(
        "main.py",
        "from pkg.db import boxes, connect, session, where\n\n\n"
        "def use():\n    conn = connect('x')\n    conn.close()\n    where().exists()\n    session().send()\n"
        "    boxes().peek()\n",
    )
    conn = indexed(repo)
    try:
        assert caller_bases(conn, "pkg/box.py::Box.close") == {}
        assert caller_bases(conn, "pkg/box.py::Box.exists") == {}
        assert caller_bases(conn, "pkg/box.py::Box.send") == {"main.py::use": "unique name"}
        assert caller_bases(conn, "pkg/box.py::Box.peek") == {"main.py::use": "unique name"}
    finally:
        conn.close()


def test_a_method_of_a_literal_a_splat_or_an_open_file_is_the_builtins(repo: Repo) -> None:
    """`kwargs.get(k)` (a `**kwargs`, typed or not: a dict), `args.index(x)` (a tuple), `{...}.get(k)`, `", ".join(xs)
    .split()`, `fh.write(s)` in `with open(p) as fh` and `boxes.get(k)` of a `dict[str, Box]`: builtin methods, never
    a guess at the `get`, `index`, `split` and `write` of a class of ours."""
    repo.write(
        "pkg/box.py",
        "class Box:\n    def get(self):\n        return 1\n\n    def index(self):\n        return 2\n\n"
        "    def split(self):\n        return 3\n\n    def write(self):\n        return 4\n",
    )
    repo.write(
        "main.py",
        "def use(*args, **kwargs):\n    kwargs.get('x')\n    args.index(1)\n    {'a': 1}.get('a')\n"
        "    ', '.join(['a']).split()\n    with open('p') as fh:\n        fh.write('x')\n\n\n"
        "def typed(**options: str):\n    options.get('y')\n\n\n"
        "def held(boxes: dict[str, 'Box']):\n    boxes.get('a').split()\n",
    )
    conn = indexed(repo)
    try:
        for method in ("get", "index", "write"):
            assert caller_bases(conn, f"pkg/box.py::Box.{method}") == {}, method
        # what a container of something else gives may be ours: `boxes.get('a')` is dict's, its `.split()` a guess
        assert caller_bases(conn, "pkg/box.py::Box.split") == {"main.py::held": "unique name"}
    finally:
        conn.close()


def test_a_method_of_a_field_declared_builtin_is_the_builtins(repo: Repo) -> None:
    """`self.loads.items()` of a field declared `dict[str, int]`, `self.seen.copy()` of one assigned nothing but `{}`
    (and None), and `self.__dict__.copy()`: dict's methods, not a guess at a class of ours; a field declared abstract
    (`Mapping[str, Box]`) may hold one of ours, and stays one."""
    repo.write(
        "pkg/box.py",
        "class Box:\n    def items(self):\n        return 1\n\n    def copy(self):\n        return 2\n\n"
        "    def keys(self):\n        return 3\n",
    )
    repo.write(
        "pkg/symbols.py",
        "import typing as t\n\n\nclass Symbols:\n    def __init__(self):\n        self.loads: dict[str, int] = {}\n"
        "        self.named: t.Mapping[str, int] = {}\n        self.seen = None\n\n    def dump(self):\n"
        "        self.loads.items()\n        self.__dict__.copy()\n        self.named.keys()\n        self.seen = {}\n"
        "        self.seen.copy()\n",
    )
    repo.write("main.py", "from pkg.symbols import Symbols\n\n\ndef use(s: Symbols):\n    s.loads.items()\n")
    conn = indexed(repo)
    try:
        assert caller_bases(conn, "pkg/box.py::Box.items") == {}
        assert caller_bases(conn, "pkg/box.py::Box.copy") == {}
        assert caller_bases(conn, "pkg/box.py::Box.keys") == {"pkg/symbols.py::Symbols.dump": "unique name"}
    finally:
        conn.close()


def test_an_operator_gives_what_its_left_sides_method_gives_and_or_gives_either_side(repo: Repo) -> None:
    """`a + b` is `a.__add__(b)`: `(v + w).norm()` runs what Vec's `__add__` is declared to return, `(Path(p) /
    "res").resolve()` pathlib's. `x or y` is either side, and where one side is a value the file cannot tell, a
    call on it stays a guess."""
    repo.write(
        "pkg/vec.py",
        "class Vec:\n    def __add__(self, other) -> 'Vec':\n        return self\n\n    def norm(self):\n"
        "        return 1\n\n    def resolve(self):\n        return 2\n\n\ndef make() -> Vec:\n    return Vec()\n",
    )
    repo.write(
        "main.py",
        "from pathlib import Path\n\nfrom pkg.vec import Vec, make\n\n\ndef added(v: Vec):\n    (v + v).norm()\n\n\n"
        "def either(v: Vec):\n    (v or make()).norm()\n\n\ndef unsure(v: Vec, w):\n    (v or w).norm()\n\n\n"
        "def path():\n    (Path(__file__) / 'res').resolve()\n",
    )
    conn = indexed(repo)
    try:
        norm = caller_bases(conn, "pkg/vec.py::Vec.norm")
        assert norm["main.py::added"] == norm["main.py::either"] == "imported name"
        assert norm["main.py::unsure"] == "unique name"
        assert caller_bases(conn, "pkg/vec.py::Vec.resolve") == {}
    finally:
        conn.close()
