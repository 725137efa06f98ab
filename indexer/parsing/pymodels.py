"""Validating a pydantic model makes one: `Spec.model_validate(request.json)` runs what `Spec(**data)` runs, its
validators among it (store/validators.py). Each such call is also a call of the class, from where it is written."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tree_sitter import Node

from .nodes import method_call

if TYPE_CHECKING:
    from .callrefs import PythonRefs
    from .pyscopes import Definition

# pydantic's class methods that validate data into an instance (v2's, then v1's); `model_construct` skips validation
MAKERS = frozenset(
    {"model_validate", "model_validate_json", "model_validate_strings", "parse_obj", "parse_raw", "parse_file"}
)


def models_made(refs: PythonRefs) -> list[tuple[Node, Definition | None, str]]:
    """`Spec.model_validate(data)`, as a call of Spec at `Spec`."""
    out: list[tuple[Node, Definition | None, str]] = []
    for call, where in refs.calls:
        called = method_call(call, refs.source)
        function = call.child_by_field_name("function")
        model = function.child_by_field_name("object") if function is not None else None
        if called is None or called[0] not in MAKERS or model is None or model.type != "identifier":
            continue
        classes = refs.code_refs(model, where)
        if classes:
            out.append((model, where, "|".join(classes)))
    return out
