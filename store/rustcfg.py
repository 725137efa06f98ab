"""Whether an ordinary build compiles a Rust item, by its `#[cfg(...)]` attributes: where a type has one method twice
under two cfgs (bytes' `Bytes::new`, `#[cfg(not(all(loom, test)))]` and `#[cfg(all(loom, test))]`), the call runs the
one the build has (store/rustcalls.py).

An ordinary build is `cargo build` without flags of its own: not a test (`test`), not documentation (`doc`), not
under Miri (`miri`), and no cfg a project sets through RUSTFLAGS (`loom`, `tokio_unstable`, `docsrs`: any name
rustc does not set itself). What turns on the target or the features chosen (`unix`, `target_os = "linux"`,
`feature = "std"`, `debug_assertions`) is not known: a cfg naming one may be either.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

# The cfgs rustc sets as the target and the build say, which an ordinary build may have or not
_TARGET = frozenset(
    {"unix", "windows", "debug_assertions", "overflow_checks", "panic", "feature", "proc_macro", "relocation_model"}
)
_CFG = re.compile(r"^#\[\s*cfg\s*\((?P<predicate>.*)\)\s*\]$", re.S)
_TOKEN = re.compile(r'\s*(?:(?P<name>[A-Za-z_]\w*)(?:\s*=\s*"(?:[^"\\]|\\.)*")?|(?P<punct>[(),]))')


def builds(attributes: Sequence[str] | str | None) -> bool | None:
    """Whether an ordinary build compiles the item with these attributes (a symbol's `decorators`, a JSON list as
    stored): False where a cfg of it is off, True where every one is on (or it has none), None where one turns on
    what is not known."""
    if isinstance(attributes, str):
        attributes = json.loads(attributes)
    known: bool | None = True
    for attribute in attributes or ():
        found = _CFG.match(attribute.strip())
        if found is None:
            continue
        value = _evaluate(found["predicate"])
        if value is False:
            return False
        if value is None:
            known = None
    return known


_Token = tuple[str | None, str | None]  # a cfg's name, or a parenthesis or comma


def _evaluate(predicate: str) -> bool | None:
    tokens: list[_Token] = [(m["name"], m["punct"]) for m in _TOKEN.finditer(predicate)]
    value, rest = _predicate(tokens)
    return value if not rest else None  # what this grammar does not read is not known


def _predicate(tokens: list[_Token]) -> tuple[bool | None, list[_Token]]:
    """One predicate from the front of the tokens: `all(...)`, `any(...)`, `not(...)`, `name` or `name = "value"`."""
    if not tokens or tokens[0][0] is None:
        return None, tokens
    name, rest = tokens[0][0], tokens[1:]
    if name in ("all", "any", "not") and rest and rest[0][1] == "(":
        values: list[bool | None] = []
        rest = rest[1:]
        while rest and rest[0][1] != ")":
            value, after = _predicate(rest)
            if after is rest:  # `all((a))`: nothing this grammar reads; not known
                return None, []
            values.append(value)
            rest = after[1:] if after and after[0][1] == "," else after
        if not rest:
            return None, rest
        return _combine(name, values), rest[1:]
    if name in _TARGET or name.startswith("target_"):
        return None, rest
    return False, rest  # rustc's own an ordinary build lacks (`test`, `doc`, `miri`), or a project's own


def _combine(operator: str, values: list[bool | None]) -> bool | None:
    if operator == "not":
        return None if len(values) != 1 or values[0] is None else not values[0]
    if operator == "all":
        return False if False in values else (None if None in values else True)
    return True if True in values else (None if None in values else False)
