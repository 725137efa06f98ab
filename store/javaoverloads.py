"""Which of a Java method's overloads a call runs: the ones taking as many arguments as it passes, then the most
specific for the types of the arguments the call says, as javac chooses (store/javacalls.py says what each
argument is)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from .javatypes import IS_CLASS, ancestors, overloads, parameters, resolved, simple

if TYPE_CHECKING:
    from .resolver import CallResolver

LAMBDA = "->"  # what expression_type gives a lambda or a method reference
_PRIMITIVES = frozenset({"int", "long", "double", "float", "boolean", "char", "short", "byte"})
_FINAL = frozenset({"String", "Integer", "Long", "Double", "Float", "Boolean", "Character", "Short", "Byte", "Class"})
_WIDER = {"int": {"long", "float", "double"}, "long": {"float", "double"}, "float": {"double"}, "char": {"int"}}
_BOXED = {
    "Integer": "int",
    "Long": "long",
    "Double": "double",
    "Float": "float",
    "Boolean": "boolean",
    "Character": "char",
    "Short": "short",
    "Byte": "byte",
}


def fitting(
    resolver: CallResolver, candidates: list[str], given: list[str], type_of: Callable[[str], str | None]
) -> list[str]:
    """Of the overloads a name has on a class, those a call passing `given` (its arguments as written) may be, as
    Java chooses: the ones taking that many arguments (a `...` parameter, any more), then the most specific of them
    for the arguments whose type the call says (`type_of`: a literal, `new T(...)`, a cast, a name declared where the
    call is, a field or a method's result): a parameter of the argument's own type fits best, then one of a type it
    extends or converts to (`int` to `long` or `Integer`), then `Object`; a parameter of another type does not fit."""
    counted = [o for o in candidates if _takes(parameters(resolver, o), len(given))]
    if len(counted) < 2:
        return counted or candidates
    known = [type_of(a) for a in given]
    if not any(known):
        return counted
    scored = [(score, o) for o in counted if (score := _specificity(resolver, o, known)) is not None]
    best = max((score for score, _ in scored), default=None)
    return [o for score, o in scored if score == best] or counted


def _specificity(resolver: CallResolver, method: str, known: list[str | None]) -> float | None:
    """How well a method's parameters fit the arguments' types (None: one does not fit)."""
    row = resolver.symbol(method)
    where = str(row["path"]) if row is not None else ""
    total = 0.0
    for parameter, argument in zip(parameters(resolver, method), known, strict=False):
        if argument is None:
            continue
        taken = resolved(resolver, where, parameter.replace("...", "[]"))
        fit = _fit(resolver, taken, argument)
        if fit is None:
            return None
        total += fit
    return total


def _fit(resolver: CallResolver, parameter: str | None, argument: str) -> float | None:
    """2 for a parameter of the argument's type, 1 for a type it extends or converts to, 0 for Object or a type the
    index cannot tell, None for another type."""
    if parameter is None or parameter == "Object":
        return 0.0
    if argument == LAMBDA:  # `() -> value`: a functional interface's
        return None if parameter in _FINAL or parameter in _PRIMITIVES or parameter.endswith("]") else 1.0
    if parameter in _FINAL and parameter != argument and _BOXED.get(parameter) != argument:
        return None  # no other type extends String or Integer
    if parameter == argument or _BOXED.get(parameter) == argument or _BOXED.get(argument) == parameter:
        return 2.0 if parameter == argument else 1.0
    if IS_CLASS in argument:
        if parameter in ancestors(resolver, argument):
            return 1.0
        return None if IS_CLASS in parameter else 0.0  # a library's interface it may implement
    if argument in _WIDER and parameter in _WIDER[argument]:
        return 1.0
    if IS_CLASS in parameter or parameter in _PRIMITIVES or argument in _PRIMITIVES or argument == "String":
        return None
    return 0.0  # two library types: which extends which, the index does not know


def _takes(parameters: list[str], count: int) -> bool:
    """Whether a method of these parameters takes that many arguments (`String... names`: any more)."""
    if parameters and parameters[-1].endswith("..."):
        return count >= len(parameters) - 1
    return len(parameters) == count


def inherited_overloads(resolver: CallResolver, cls: str, name: str) -> list[str]:
    """The methods of that name a class has, its own and those it inherits, nearest first, one of each parameter
    list (an override hides what it overrides)."""
    out: list[str] = []
    seen: set[tuple[str, ...]] = set()
    for holder in [cls, *ancestors(resolver, cls)]:
        for method in overloads(resolver, holder, name):
            taken = tuple(simple(p) for p in parameters(resolver, method))
            if taken not in seen:
                seen.add(taken)
                out.append(method)
    return out
