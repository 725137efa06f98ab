"""What a name of a JavaScript or TypeScript file is bound to, as jsrefs.py records it per function: a value, an
import's name, an element of a collection, or a callback's parameter as the function it is handed to declares it.
"""

from __future__ import annotations

from typing import NamedTuple

from tree_sitter import Node

from .scopes import lookup


class ElementOf(NamedTuple):
    """What a name is bound to as an element of a collection: `for (const c of cols)`, `cols.map(c => ...)`."""

    collection: Node


class Passed(NamedTuple):
    """A callback's parameter, as the function it is handed to declares it: `em` in `m.transaction(em => ...)`."""

    call: Node  # the call it is handed to
    argument: int  # where among the call's arguments
    parameter: int  # which of the callback's parameters


class Imported(NamedTuple):
    """A name an import binds: the module itself (`import * as ns`, `const ns = require()`) or one name of it."""

    namespace: bool
    ordinal: int  # the import's
    name: str  # the name inside the module ("" for the module itself)


Binding = Node | Imported | ElementOf | Passed | None  # a value, an import's, an element's, a callback's
# parameter, or one the rules do not type
Bindings = dict[str, list[Binding]]


def imported_by(name: str, scopes: list[Bindings]) -> Imported | None:
    """What import a name is, where its one binding is an import's."""
    bound = lookup(name, scopes)
    return bound[0] if len(bound) == 1 and isinstance(bound[0], Imported) else None
