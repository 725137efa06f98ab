"""Import statements read per language: the module (or path) each names, and the names it takes.

Each import becomes `{module, names, line, kind, level}`: `names` are the names taken from the
module (`*` for all of them), `kind` says which statement it was (`from`, `import`, `require`,
`reexport`, `dynamic`, `augment`, `use`, `mod`, `static`, `include`, `system`...), `level` counts the dots
of a relative Python import. A Python `from` import also says the name it binds when that is
another (`alias`) and whether it binds it inside a function or class (`local`): what a module
re-exports is what it binds at module level. Resolution to files happens later, in resolve.py.
"""

from __future__ import annotations

from typing import Any

from tree_sitter import Node

from .fallback import import_path
from .language_rules import JS_LANGUAGES
from .nodes import MODULE_LIMIT, NAME_LIMIT, dotted
from .parse import QUERY_LANGUAGES, node_text

_QUOTES = "\"'`<>"


def read_imports(node: Node, caps: dict[str, list[Node]], source: bytes, lang: str) -> list[dict[str, Any]]:
    """The imports one `@import` match stands for (a Rust `use` tree or a Python import can be several)."""
    line = node.start_point[0] + 1
    if lang == "python":
        return _python(node, source, line)
    if lang == "java":
        return _java(node, source, line)
    if lang not in QUERY_LANGUAGES:  # a grammar of the fallback: the path the statement names
        found = import_path(node, source)
        return [_record(found[0], found[1], line, "import")] if found else []
    if lang == "ruby" and caps.get("import.path"):  # `require File.expand_path("../helper", __FILE__)`
        spec = _ruby_beside(caps["import.path"][0], source)
        return [_record(spec, [], line, "require_relative")] if spec else []
    module_nodes = caps.get("import.module")
    if not module_nodes:
        return []
    module = module_nodes[0]
    if lang in JS_LANGUAGES:
        return [_js(node, module, source, line)]
    if lang == "rust":
        return _rust(node, module, source, line)
    text = _unquote(module, source)
    if not text:
        return []
    kind = lang
    names: list[str] = []
    alias = None
    if lang == "go":
        name = node.child_by_field_name("name")
        kind = "import"
        alias = node_text(name, source, NAME_LIMIT) if name is not None else None
        names = ["*"] if alias == "." else []
    elif lang in ("c", "cpp"):
        kind = "system" if module.type == "system_lib_string" else "include"
    elif lang == "ruby":
        method = node.child_by_field_name("method")
        kind = node_text(method, source, 40) if method is not None else "require"
    else:
        names = [node_text(n, source, NAME_LIMIT) for n in caps.get("import.name", [])]
    record = _record(text, names, line, kind)
    if alias not in (None, "."):  # `import yaml "gopkg.in/yaml.v3"`: the name code uses (indexer/parsing/gorefs.py)
        record["alias"] = alias
    return [record]


def _record(module: str, names: list[str], line: int, kind: str, level: int = 0) -> dict[str, Any]:
    return {"module": module, "names": names, "line": line, "kind": kind, "level": level}


def _unquote(node: Node, source: bytes) -> str:
    return node_text(node, source, MODULE_LIMIT).strip().strip(_QUOTES)


# The folder of the file a Ruby path is built from: `__dir__`, `File.dirname(__FILE__)`.
_RUBY_OWN_FOLDER = ("__dir__", "File.dirname(__FILE__)", "File.dirname(File.expand_path(__FILE__))")


def _ruby_beside(call: Node, source: bytes) -> str | None:
    """A path built from the file's own place as `require_relative` would write it: `File.expand_path(
    "../helper", __FILE__)` (relative to the file itself: its folder's `helper`), `File.expand_path("utils",
    __dir__)`, `File.join(__dir__, "lib", "x")`; None for any other path, which only running the code knows."""
    method = call.child_by_field_name("method")
    arguments = call.child_by_field_name("arguments")
    if method is None or arguments is None:
        return None
    args = [a for a in arguments.named_children if a.type != "comment"]
    texts = ["".join(node_text(a, source, MODULE_LIMIT).split()) for a in args]
    literal = [a.type == "string" and len(a.named_children) == 1 for a in args]
    name = node_text(method, source, 40)
    if name == "expand_path" and len(args) == 2 and literal[0]:
        written = _unquote(args[0], source)
        if texts[1] in _RUBY_OWN_FOLDER:
            return written
        if texts[1] == "__FILE__" and written.startswith("../"):
            return written[3:]
    if name == "join" and len(args) > 1 and texts[0] in _RUBY_OWN_FOLDER and all(literal[1:]):
        return "/".join(_unquote(a, source) for a in args[1:])
    return None


# --- JavaScript and TypeScript ------------------------------------------------------------------


def _js(node: Node, module: Node, source: bytes, line: int) -> dict[str, Any]:
    spec = _unquote(module, source)
    names: list[str] = []
    bound_as = None  # the name the module's own value is bound to: `import X from`, `const X = require()`
    if node.type == "import_statement":
        kind = "import"
        for clause in node.named_children:
            if clause.type == "import_clause":
                names.extend(_js_clause_names(clause, source))
                default = next((c for c in clause.named_children if c.type == "identifier"), None)
                bound_as = node_text(default, source, NAME_LIMIT) if default is not None else None
            elif clause.type == "import_require_clause":  # TypeScript `import fs = require("fs")`
                kind = "require"
    elif node.type == "export_statement":
        kind = "reexport"
        exported = next((c for c in node.named_children if c.type == "export_clause"), None)
        names = (
            [
                node_text(s.child_by_field_name("name") or s, source, NAME_LIMIT)
                for s in exported.named_children
                if s.type == "export_specifier"
            ]
            if exported is not None
            else ["*"]
        )
    elif node.type == "ambient_declaration":  # `declare module "x" { ... }`
        kind = "augment"
    else:  # require('x') or import('x')
        function = node.child_by_field_name("function")
        kind = "dynamic" if function is not None and function.type == "import" else "require"
        holder = node.parent
        pattern = (
            holder.child_by_field_name("name") if holder is not None and holder.type == "variable_declarator" else None
        )
        if pattern is not None and pattern.type == "object_pattern":
            for prop in pattern.named_children:
                key = prop.child_by_field_name("key") if prop.type == "pair_pattern" else prop
                if key is not None and "identifier" in key.type:
                    names.append(node_text(key, source, NAME_LIMIT))
        elif pattern is not None and pattern.type == "identifier" and kind == "require":
            bound_as = node_text(pattern, source, NAME_LIMIT)
    record = _record(spec, names, line, kind)
    if bound_as is not None:
        record["alias"] = bound_as
    return record


def _js_clause_names(clause: Node, source: bytes) -> list[str]:
    names = []
    for part in clause.named_children:
        if part.type == "identifier":
            names.append("default")
        elif part.type == "namespace_import":
            names.append("*")
        elif part.type == "named_imports":
            names.extend(
                node_text(s.child_by_field_name("name") or s, source, NAME_LIMIT)
                for s in part.named_children
                if s.type == "import_specifier"
            )
    return names


# --- Rust ---------------------------------------------------------------------------------------


def _rust(node: Node, module: Node, source: bytes, line: int) -> list[dict[str, Any]]:
    if node.type == "mod_item":
        return [_record(node_text(module, source, NAME_LIMIT), [], line, "mod")]
    if node.type == "extern_crate_declaration":
        record = _record(node_text(module, source, NAME_LIMIT), [], line, "extern_crate")
        alias = _rust_alias(node, source)  # `pub extern crate grep_printer as printer;`
        if alias is not None:
            record["alias"] = alias
        return [record]
    taken: list[tuple[str, str, str | None]] = []  # (module, name, alias), one per name the tree takes
    stack: list[tuple[Node, str]] = [(module, "")]
    while stack:  # a `use` tree: a::{b, c::{d, e as f}, g::*}
        tree, prefix = stack.pop()
        if tree.type == "scoped_use_list":
            path = tree.child_by_field_name("path")
            inner = prefix + (dotted(path, source) + "::" if path is not None else "")
            listed = tree.child_by_field_name("list")
            if listed is not None:
                stack.extend((child, inner) for child in reversed(listed.named_children))
        elif tree.type == "use_list":
            stack.extend((child, prefix) for child in reversed(tree.named_children))
        elif tree.type == "use_wildcard":
            path = next((c for c in tree.named_children), None)
            base = prefix + (dotted(path, source) if path is not None else "")
            taken.append((base.rstrip(":"), "*", None))
        elif "comment" not in tree.type:
            target = tree.child_by_field_name("path") if tree.type == "use_as_clause" else tree
            if target is None:
                continue
            full = prefix + dotted(target, source)
            base, _, name = full.rpartition("::")
            if name == "self":  # `use a::b::{self}` takes the module b itself
                base, _, name = base.rpartition("::")
            taken.append((base, name, _rust_alias(tree, source) if tree.type == "use_as_clause" else None))
    # One record per name, as a Python `from m import a, b` is: each name may be a module file of its own
    # (`use hyper::server::conn::{http1, http2}`) and binds itself, or its alias (`Incoming as IncomingBody`).
    depth = _inline_modules(node)
    out = []
    for base, name, alias in taken:
        record = _record(_out_of_inline(base, depth), [name], line, "use") if base else _record(name, [], line, "use")
        if alias is not None:
            record["alias"] = alias
        out.append(record)
    return out


def _rust_alias(node: Node, source: bytes) -> str | None:
    """The name `as` gives (`HashSet as Set`), None without one or for `as _` (a trait taken for its methods)."""
    renamed = node.child_by_field_name("alias")
    alias = node_text(renamed, source, NAME_LIMIT) if renamed is not None else None
    return alias if alias != "_" else None


def _inline_modules(node: Node) -> int:
    """How many `mod name { ... }` blocks hold the node in its file."""
    depth, current = 0, node.parent
    while current is not None:
        depth += current.type == "mod_item"
        current = current.parent
    return depth


def _out_of_inline(path: str, depth: int) -> str:
    """A `super::` path as seen from the file's own module: inside `mod tests { }` (depth 1), `super::x` is the
    file's own `self::x`; each `super` leaves one inline module, and those left over go on from the file."""
    parts = path.split("::")
    leading = next((i for i, p in enumerate(parts) if p != "super"), len(parts))
    if not depth or not leading:
        return path
    left = leading - min(depth, leading)
    if left:
        return "::".join(parts[min(depth, leading) :])
    return "::".join(["self", *parts[leading:]])


# --- Java ---------------------------------------------------------------------------------------


def _java_name(node: Node) -> Node | None:
    """The dotted name an import or package declaration gives (`com.google.gson.stream`)."""
    return next((c for c in node.named_children if c.type in ("scoped_identifier", "identifier")), None)


def _java(node: Node, source: bytes, line: int) -> list[dict[str, Any]]:
    path = _java_name(node)
    if path is None:
        return []
    dotted_name = dotted(path, source)
    static = any(c.type == "static" for c in node.children)
    if any(c.type == "asterisk" for c in node.children):
        return [_record(dotted_name, ["*"], line, "static" if static else "import")]
    return [_record(dotted_name, [dotted_name.rsplit(".", 1)[-1]], line, "static" if static else "import")]


# A class of the file's own package needs no import (JLS 7.3), and a third of gson's class dependencies within
# its main code (jdeps -filter:none) were such: the unit test JsonParserTest used JsonParser, yet was none of its
# dependents. Each class-like name the code uses is a `package` import of `<package>.<Name>`: the candidate file
# `<package path>/<Name>.java` is its target when the tree has it; else the name is another's (java.lang's String,
# a nested class), and the import is no edge nor an external module (store/projections/dependencies.py).
_JAVA_DECLARATIONS = frozenset(
    {
        "class_declaration",
        "interface_declaration",
        "enum_declaration",
        "record_declaration",
        "annotation_type_declaration",
    }
)
_JAVA_QUALIFIER_HOLDERS = frozenset({"method_invocation", "field_access"})


def java_package_references(root: Node, source: bytes, imports: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The classes of the file's own package that its code names (`JsonParser.parseString(...)`, `new Streams()`,
    `List<JsonElement>`), as imports of kind `package`, by the line each is first named on; none where the file
    declares no package or imports the name by itself (a single-type import wins over the package)."""
    package = next((c for c in root.named_children if c.type == "package_declaration"), None)
    name_node = _java_name(package) if package is not None else None
    if name_node is None:
        return []
    imported = {imp["names"][0] for imp in imports if imp["names"] and imp["names"][0] != "*"}
    declared: set[str] = set()
    first_line: dict[str, int] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in _JAVA_DECLARATIONS and (declared_name := node.child_by_field_name("name")) is not None:
            declared.add(node_text(declared_name, source, NAME_LIMIT))
        named = node.type == "type_identifier" or (
            node.type == "identifier"
            and node.parent is not None
            and (
                (node.parent.type in _JAVA_QUALIFIER_HOLDERS and node.parent.child_by_field_name("object") == node)
                or node.parent.type in ("marker_annotation", "annotation")
            )
        )
        if named:
            text = node_text(node, source, NAME_LIMIT)
            if text[:1].isupper():
                line = node.start_point[0] + 1
                first_line[text] = min(first_line.get(text, line), line)
        if node.type not in ("package_declaration", "import_declaration"):
            stack.extend(node.named_children)
    package_name = dotted(name_node, source)
    return [
        _record(f"{package_name}.{name}", [name], line, "package")
        for name, line in sorted(first_line.items(), key=lambda item: (item[1], item[0]))
        if name not in imported and name not in declared
    ]


# --- Python -------------------------------------------------------------------------------------


def _python(node: Node, source: bytes, line: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if node.type == "import_statement":
        for imported in node.children_by_field_name("name"):
            target = imported.child_by_field_name("name") if imported.type == "aliased_import" else imported
            alias = imported.child_by_field_name("alias") if imported.type == "aliased_import" else None
            if target is not None:
                record = _record(dotted(target, source), [], line, "import")
                if alias is not None:  # `import subprocess as sp`: store/effects.py reads `sp.run` through it
                    record["alias"] = node_text(alias, source, NAME_LIMIT)
                out.append(record)
        return out
    if node.type == "future_import_statement":
        return [_record("__future__", [], line, "from")]
    module_node = node.child_by_field_name("module_name")
    if module_node is None:
        return out
    level, module = 0, ""
    if module_node.type == "relative_import":
        for child in module_node.children:
            if child.type == "import_prefix":
                level = node_text(child, source).count(".")
            elif child.type == "dotted_name":
                module = dotted(child, source)
    else:
        module = dotted(module_node, source)
    names: list[tuple[str, str | None]] = []  # (name taken, the other name it is bound to)
    for name_node in node.children_by_field_name("name"):
        aliased = name_node.type == "aliased_import"
        target = name_node.child_by_field_name("name") if aliased else name_node
        alias_node = name_node.child_by_field_name("alias") if aliased else None
        if target is not None:
            names.append(
                (dotted(target, source), node_text(alias_node, source, NAME_LIMIT) if alias_node is not None else None)
            )
    if any(c.type == "wildcard_import" for c in node.children):
        names.append(("*", None))
    local = _nested(node)
    for name, bound_as in names or [("", None)]:
        record = _record(module, [name] if name else [], line, "from", level)
        if bound_as is not None and bound_as != name:
            record["alias"] = bound_as
        if local:
            record["local"] = True
        out.append(record)
    return out


def _nested(node: Node) -> bool:
    """Whether a statement runs inside a function or a class body, not at a module's top level."""
    parent = node.parent
    while parent is not None:
        if parent.type in ("function_definition", "class_definition", "lambda"):
            return True
        parent = parent.parent
    return False
