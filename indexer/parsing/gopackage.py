"""The names a Go file takes from the other files of its package, which it uses without importing them.

A Go package is every `.go` file of a folder: `mux.go` calls `tree.go`'s `node.InsertRoute` and names its `node`
type with no import between them, and in the projects bench/facts_imports_go.py checks, most of what a file uses
is its own package's (go/types: 263 of 351 uses). Each name a file's code uses that neither it declares (at the top
level or in a function) nor an import, nor Go itself, gives, is an import of kind `package` of that one name
(module `.`, the file's own package): store/projections/gonames.py resolves it to the file of the folder declaring
the name at its top level, and leaves it out where none does.

A bare name is a use (`helper(x)`, `methodMap[mGET]`, `*node`), a member after a dot is not (`n.findRoute` is the
call graph's), and neither is a field's name in a struct literal (`node{typ: ntStatic}` uses ntStatic, not typ).
A name any function of the file binds (a parameter, `x :=`, `var x`, `range`) is no use anywhere in the file: the
rule is the file's, not each scope's, so a local that shadows another file's name hides the file's uses of it,
never adds a wrong one.
"""

from __future__ import annotations

import functools
from typing import Any

from tree_sitter import Node, Query

from ...store.gocalls import go_import_name
from .gorefs import UNIVERSE
from .parse import captured, language, node_text

NAME_LIMIT = 200
# One query, not a walk of the tree in Python (which took a third of a Go file's extraction): the names used, and
# what the file declares at its top level (`top`), binds in its functions (`bound`: a declaration's name there is a
# use of nothing) and declares as types in them (`local_type`). A name of another package's type (`http.Handler`)
# and a struct literal's field (`node{typ: 1}`) are no uses (`not_used`), but a map's, an array's or a slice's keys
# are values (`key_value`: `map[T]string{mGET: "GET"}`).
_QUERY = """
(identifier) @value
(type_identifier) @type
(source_file (function_declaration name: (identifier) @top))
(source_file (type_declaration [(type_spec name: (type_identifier) @top) (type_alias name: (type_identifier) @top)]))
(source_file (const_declaration (const_spec name: (identifier) @top)))
(source_file (var_declaration (var_spec name: (identifier) @top)))
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @top))))
(parameter_declaration name: (identifier) @bound)
(variadic_parameter_declaration name: (identifier) @bound)
(var_spec name: (identifier) @bound)
(const_spec name: (identifier) @bound)
(type_parameter_declaration name: (identifier) @local_type)
(type_spec name: (type_identifier) @local_type)
(type_alias name: (type_identifier) @local_type)
(short_var_declaration left: (expression_list (identifier) @bound))
(range_clause left: (expression_list (identifier) @bound))
(receive_statement left: (expression_list (identifier) @bound))
(type_switch_statement alias: (expression_list (identifier) @bound))
(qualified_type name: (type_identifier) @not_used)
(keyed_element key: (literal_element (identifier) @not_used))
(composite_literal type: [(map_type) (array_type) (slice_type) (implicit_length_array_type)]
  body: (literal_value (keyed_element key: (literal_element (identifier) @key_value))))
"""


def go_package_references(root: Node, source: bytes, imports: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The names the file uses from other files of its package, as imports of kind `package` (module `.`), one
    per name by the line it is first used on."""
    found = captured(_query(), root)
    not_used = {n.id for n in found.get("not_used", [])} - {n.id for n in found.get("key_value", [])}

    def texts(capture: str) -> set[str]:
        return {node_text(n, source, NAME_LIMIT) for n in found.get(capture, [])}

    own = texts("top") | UNIVERSE | {imp.get("alias") or go_import_name(imp["module"]) for imp in imports}
    local_types = texts("local_type")  # a type parameter's name is its own value too (`K(x)` converts)
    skipped = {"value": own | texts("bound") | local_types, "type": own | local_types}
    wanted: dict[str, int] = {}
    for capture, unwanted in skipped.items():
        for node in found.get(capture, []):
            if node.id in not_used or (name := node_text(node, source, NAME_LIMIT)) in unwanted:
                continue
            line = node.start_point[0] + 1
            wanted[name] = min(line, wanted.get(name, line))
    return [
        {"module": ".", "names": [name], "line": line, "kind": "package", "level": 0}
        for name, line in sorted(wanted.items(), key=lambda item: (item[1], item[0]))
    ]


@functools.cache
def _query() -> Query:
    return Query(language("go"), _QUERY)
