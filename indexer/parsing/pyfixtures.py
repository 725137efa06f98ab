"""pytest's fixtures, as a test file's calls need them: a parameter of a test function (or of a fixture) is the
value of the fixture of that name, found by pytest in the test's own file or in a conftest.py of its folder or
one above it. The file can tell which parameters are fixtures; callrefs.py writes those it does not define as
`fixture:NAME()` (store/refs.py), and the store looks the fixture up in the conftest.py files. In a fixture
declaring `params=`, `request.param` is each of them in turn."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from tree_sitter import Node

from .docs import string_value
from .nodes import decorator_expressions, decorators, positional_arguments
from .parse import node_text

if TYPE_CHECKING:
    from .callrefs import PythonRefs
    from .pyscopes import Definition

_FIXTURE = ("@pytest.fixture", "@fixture")
_PARAMETRIZE = ("@pytest.mark.parametrize", "@mark.parametrize")


def is_fixture(d: Any, source: bytes) -> bool:
    """Whether a definition is a fixture: `@pytest.fixture`, `@pytest.fixture(scope="session")`, `@fixture`."""
    return any(_decorator_is(written, _FIXTURE) for written in decorators(d.outer, d.node, source))


def fixture_parameter(d: Any, name: str, source: bytes) -> bool:
    """Whether pytest passes this parameter of a function a fixture's value: the function is a test (`test*`) or a
    fixture, and no `parametrize` of it names the parameter."""
    if d.kind not in ("function", "method"):
        return False
    written = decorators(d.outer, d.node, source)
    if not d.qualname.rsplit(".", 1)[-1].startswith("test") and not any(_decorator_is(w, _FIXTURE) for w in written):
        return False
    word = re.compile(rf"\b{re.escape(name)}\b")
    return not any(_decorator_is(w, _PARAMETRIZE) and word.search(w) for w in written)


def fixture_value(refs: PythonRefs, test: Definition, name: str, hops: int) -> frozenset[str]:
    """The refs of a fixture's value, where pytest looks for it: the test's class, its file (what the fixture
    returns, or yields), else the conftest.py files, which the store reads (`fixture:NAME()`)."""
    where = [f"{test.parent.qualname}.{name}"] if test.parent is not None else []
    found = (refs.by_qualname.get(qualname) for qualname in [*where, name])
    fixture = next((f for f in found if f is not None and is_fixture(f, refs.source)), None)
    if fixture is None:
        return frozenset({f"fixture:{name}()"})
    return refs.given_by(fixture, hops)


def fixture_params(d: Any, name: str, source: bytes) -> Node | None:
    """The `params=` of `@pytest.fixture(params=(A, B))` where `name` is that fixture's `request` parameter: what
    `request.param` takes, one run each; None for anything else."""
    if d is None or name != "request" or d.kind not in ("function", "method"):
        return None
    parameters = d.node.child_by_field_name("parameters")
    if parameters is None or not any(node_text(p, source) == name for p in parameters.named_children):
        return None
    for arguments in _decorator_arguments(d, _FIXTURE, source):
        for argument in arguments.named_children:
            key = argument.child_by_field_name("name") if argument.type == "keyword_argument" else None
            if key is not None and node_text(key, source) == "params":
                return argument.child_by_field_name("value")
    return None


def parametrized(d: Any, name: str, source: bytes) -> tuple[Node, int, int] | None:
    """Where `@pytest.mark.parametrize(("type", "value"), [(IntRange(0, 5), "3"), ...])` gives a test's parameter
    its values: the cases (the list, or the name holding it), the parameter's place among the names, and how
    many names there are (one name: each case is the value itself). None where no parametrize names it."""
    if d is None or d.kind not in ("function", "method"):
        return None
    for arguments in _decorator_arguments(d, _PARAMETRIZE, source):
        given = _parametrize_arguments(arguments, source)
        if given is None:
            continue
        names, cases = given
        if name in names:
            return cases, names.index(name), len(names)
    return None


def _parametrize_arguments(arguments: Node, source: bytes) -> tuple[list[str], Node] | None:
    """A parametrize call's names (`"a, b"`, `("a", "b")`) and its cases, by place or by keyword."""
    positional = positional_arguments(arguments)
    keywords = {
        node_text(key, source): a.child_by_field_name("value")
        for a in arguments.named_children
        if a.type == "keyword_argument" and (key := a.child_by_field_name("name")) is not None
    }
    written = keywords.get("argnames") or (positional[0] if positional else None)
    cases = keywords.get("argvalues") or (positional[1] if len(positional) > 1 else None)
    if written is None or cases is None:
        return None
    if written.type == "string":
        names = [n.strip() for n in string_value(written, source).split(",")]
    elif written.type in ("tuple", "list"):
        names = [string_value(n, source) for n in written.named_children if n.type == "string"]
    else:
        return None
    return names, cases


def _decorator_arguments(d: Any, names: tuple[str, ...], source: bytes) -> Iterator[Node]:
    """The arguments of each of a definition's decorators that calls one of `names` (`@pytest.fixture(params=...)`)."""
    for call in decorator_expressions(d.outer, d.node):
        function, arguments = call.child_by_field_name("function"), call.child_by_field_name("arguments")
        if call.type == "call" and function is not None and arguments is not None:
            if _decorator_is("@" + node_text(function, source), names):
                yield arguments


def _decorator_is(written: str, names: tuple[str, ...]) -> bool:
    return any(written == name or written.startswith(name + "(") for name in names)
