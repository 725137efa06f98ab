"""Methods a library runs whenever their class is used, which no call of the project names: pydantic's validators
(`@field_validator("tz")`, `@model_validator(mode="before")`, v1's `@validator` and `@root_validator`) run when the
model is made or validated (`Spec(**data)`, `Spec.model_validate(data)`: indexer/parsing/pymodels.py), so whoever
makes the class stands for their callers (store/testwalk.py), as for a dunder method.

bench/facts_tests_routes.py, Healthchecks v3.9's 2,363 functions, recall / precision / said untested: 0.979 / 0.821 /
32 -> 0.981 / 0.820 / 28 (its API's Spec: four validators, each said untested before); the other apps the same."""

from __future__ import annotations

import re

from .symbol import SymbolRow

_VALIDATOR = re.compile(r"@(?:[\w.]*\.)?(?:field_validator|model_validator|validator|root_validator)\b")


def runs_with_its_class(symbol: SymbolRow) -> bool:
    """Whether the method is a pydantic validator, run by whatever makes or validates its model."""
    return (
        symbol["kind"] == "method"
        and symbol["path"].endswith(".py")
        and any(_VALIDATOR.match(d) for d in symbol.get("decorators") or [])
    )
