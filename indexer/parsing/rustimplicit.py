"""Rust's calls without call syntax: the method of a standard trait that Rust calls for an operator, a formatting
macro's placeholder, or a conversion.

- `a == b` and `a != b` call PartialEq's `eq` (so do `assert_eq!(a, b)` and `assert_ne!`), `a < b` (`>`, `<=`,
  `>=`) PartialOrd's `partial_cmp`; `a + b` Add's `add`, `a += b` AddAssign's `add_assign`, and so on for the
  arithmetic and bit operators; `-x` Neg's `neg`, `!x` Not's `not`, `*x` Deref's `deref`, `xs[i]` Index's `index`;
- `{}` in `format!`, `write!`, `println!`, `panic!`... and `x.to_string()` call Display's `fmt` of the value, `{:?}`
  (and `dbg!(x)`) Debug's;
- `s.parse::<Version>()` calls `Version::from_str`, as the code would write it;
- a local bound to a value of a type the code names (rustfields.typed_local) and a parameter taking its value
  (`p: Prerelease`) call Drop's `drop`: where it goes out of scope, or wherever it is moved to (a value of a
  type the index does not know, a temporary's, is not read: that would take inferring every expression's type).

Each is a call of the method's name qualified `<operand as Trait>` (store/rusttraits.py: which of our
implementations it runs, by the operand's type where the code declares it), the operand as written, `_` where
longer than a qualifier is kept. A literal operand is of a type the standard library defines, whose implementations
of its own traits (by Rust's orphan rule) are never ours: no call; nor is a placeholder's `{:x}`, `{:e}` or `{:p}`
(LowerHex, LowerExp, Pointer: rarely ours). A call written out (`Display::fmt(&x, f)`, `Version::from_str(s)`) has
its own row, qualified `<x as Display>` too where the trait is a standard one taking the value first; `x.into()`
and `s.parse()` without a turbofish say no type here, and stay no call.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Sequence
from typing import Any

from tree_sitter import Language, Node, Query, Tree

from ...store.rusttraits import UNKNOWN, trait_qualifier
from .callsites import QUALIFIER_LIMIT, Caller, caller_at
from .parse import captured, node_text
from .rustfields import argument_type, typed_local

_COMPARISONS = {
    "==": ("PartialEq", "eq"),
    "!=": ("PartialEq", "eq"),  # `ne` is PartialEq's provided method: it calls `eq`
    "<": ("PartialOrd", "partial_cmp"),  # so do `lt`, `gt`, `le` and `ge`
    ">": ("PartialOrd", "partial_cmp"),
    "<=": ("PartialOrd", "partial_cmp"),
    ">=": ("PartialOrd", "partial_cmp"),
}
_ARITHMETIC = {
    "+": ("Add", "add"),
    "-": ("Sub", "sub"),
    "*": ("Mul", "mul"),
    "/": ("Div", "div"),
    "%": ("Rem", "rem"),
    "&": ("BitAnd", "bitand"),
    "|": ("BitOr", "bitor"),
    "^": ("BitXor", "bitxor"),
    "<<": ("Shl", "shl"),
    ">>": ("Shr", "shr"),
}
BINARY = {**_COMPARISONS, **_ARITHMETIC}
ASSIGNING = {f"{op}=": (f"{trait}Assign", f"{method}_assign") for op, (trait, method) in _ARITHMETIC.items()}
UNARY = {"-": ("Neg", "neg"), "!": ("Not", "not"), "*": ("Deref", "deref")}
_LITERALS = frozenset(
    "integer_literal float_literal string_literal raw_string_literal char_literal boolean_literal".split()
)
_WRAPPING = frozenset({"reference_expression", "parenthesized_expression"})  # `&a == &b` compares a and b
# The formatting macros (rustmacros.py reads them as calls), by the argument their format string is
_FORMAT_AT = {
    **dict.fromkeys("format format_args print println eprint eprintln panic todo unimplemented unreachable".split(), 0),
    **dict.fromkeys("write writeln assert debug_assert".split(), 1),
    **dict.fromkeys("assert_eq assert_ne debug_assert_eq debug_assert_ne".split(), 2),
}
_COMPARING = frozenset("assert_eq assert_ne debug_assert_eq debug_assert_ne".split())  # `left == right` inside
_PLACEHOLDER = re.compile(r"\{(?P<argument>[^{}:]*)(?::(?P<spec>[^{}]*))?\}")
_ESCAPED = re.compile(r"\{\{|\}\}")
_OTHER_TRAITS = frozenset("xXobeEp")  # `{:x}` LowerHex, `{:e}` LowerExp, `{:p}` Pointer...

# The standard traits whose methods take the value first, as a call written through the trait names them
_TAKING_SELF = frozenset(
    {trait for trait, _ in (*BINARY.values(), *ASSIGNING.values(), *UNARY.values())}
    | {"Ord", "Display", "Debug", "Hash", "Clone", "Index", "IndexMut", "DerefMut"}
)
# `Ord::cmp`, `fmt::Display::fmt`, `::core::ops::Add::add`: a trait's function, by the module paths it is written with
_STD_PATH = re.compile(r"^(?:(?:::)?[a-z_]\w*::)*(?P<trait>[A-Z]\w*)::[a-z_]\w*$")

# where, the operand as written, the trait (None: a type's), the method, and the other operand of a comparison
_Site = tuple[Node, str, str | None, str, Node | None]


def trait_calls(tree: Tree, source: bytes, defs: Sequence[Caller], starts: list[int]) -> list[dict[str, Any]]:
    """The file's calls through the standard traits, as call rows (callsites.call_site's fields); `defs` and
    `starts` as call_site takes them."""
    out = []
    for site, operand, trait, method, other in _sites(tree, source):
        caller = caller_at(defs, starts, site.start_byte)
        call: dict[str, Any] = {
            "caller": caller.id if caller is not None else None,
            "name": method,
            "qualifier": trait_qualifier(operand, trait) if trait else operand,
            "line": site.start_point[0] + 1,
            "ref": None,
        }
        if other is not None and (argument := argument_type(other, source)) is not None:
            call["arguments"] = [argument]  # `a == "x"`: which of a's PartialEq impls runs (rustcalls.may_run)
        out.append(call)
    return out


def written_calls(calls: list[dict[str, Any]], call_caps: list[dict[str, list[Node]]], source: bytes) -> None:
    """How each of the file's calls (callsites.call_site's rows, beside the captures they came of) is written, as the
    store reads it: through a standard trait (`Display::fmt(&x, f)`: `<x as Display>`, as `format!` is), as a path
    (`io::copy(r, w)` is qualified by `io::`, never `io.copy(w)`: rustnames.path_qualifier), and with its one
    argument's type where the syntax says it (`Bytes::from(v)`: which From impl runs, rustcalls.may_run)."""
    for call, caps in zip(calls, call_caps, strict=True):
        site = caps["reference.call"][0]
        through = _written_through_trait(site, source)
        if through is not None:
            call["qualifier"] = through
        elif caps["name"][0].type == "scoped_identifier" and call["qualifier"]:
            call["qualifier"] += "::"
        passed = _arguments(site)
        if len(passed) == 1 and (argument := argument_type(passed[0], source)) is not None:
            call["arguments"] = [argument]


def _arguments(call: Node) -> list[Node]:
    """A call's arguments, its comments left out."""
    arguments = call.child_by_field_name("arguments")
    return [a for a in arguments.named_children if not a.type.endswith("comment")] if arguments is not None else []


def _written_through_trait(call: Node, source: bytes) -> str | None:
    """The qualifier of a call written through a standard trait, `Display::fmt(&self.0, f)` or `Ord::cmp(a, b)`:
    `<self.0 as Display>`, the value whose implementation runs; None for any other call."""
    function = call.child_by_field_name("function")
    if call.type != "call_expression" or function is None or function.type != "scoped_identifier":
        return None
    found = _STD_PATH.match(node_text(function, source))
    given = _arguments(call)
    if found is None or found["trait"] not in _TAKING_SELF or not given:
        return None
    return trait_qualifier(_written(given[0], source), found["trait"])


@functools.cache
def _site_query(language: Language) -> Query:
    """The nodes that may call through a trait (a walk over every node of a file, in Python, took longer)."""
    kinds = "binary_expression compound_assignment_expr unary_expression index_expression call_expression"
    return Query(
        language, f"[{' '.join(f'({kind})' for kind in (*kinds.split(), 'let_declaration', 'parameter'))}] @site"
    )


def _sites(tree: Tree, source: bytes) -> Iterator[_Site]:
    found = captured(_site_query(tree.language), tree.root_node).get("site", [])
    for node in sorted(found, key=lambda n: (n.start_byte, -n.end_byte)):  # an outer expression first, always
        if node.type in ("binary_expression", "compound_assignment_expr"):
            operator, left, right = (node.child_by_field_name(f) for f in ("operator", "left", "right"))
            table = BINARY if node.type == "binary_expression" else ASSIGNING
            known = table.get(node_text(operator, source)) if operator is not None else None
            if known is not None and left is not None and right is not None and not _literal(left, right):
                yield node, _written(_first(left, node, source), source), *known, right
        elif node.type == "unary_expression" and node.named_children:
            known = UNARY.get(node_text(node.children[0], source))
            if known is not None and not _literal(node.named_children[0]):
                yield node, _written(node.named_children[0], source), *known, None
        elif node.type == "index_expression" and len(node.named_children) == 2:
            if not _literal(node.named_children[0]):
                yield node, _written(node.named_children[0], source), "Index", "index", None
        elif node.type == "call_expression":
            yield from _call_sites(node, source)
        elif node.type == "let_declaration" and (local := typed_local(node, source)) is not None:
            yield node, local[0], "Drop", "drop", None  # where it goes out of scope, or wherever it is moved to
        elif node.type == "parameter" and _owned(node):
            pattern = node.child_by_field_name("pattern")
            if pattern is not None and pattern.type == "identifier":
                yield node, node_text(pattern, source), "Drop", "drop", None


def _call_sites(call: Node, source: bytes) -> Iterator[_Site]:
    """`x.to_string()`, `s.parse::<T>()`, and the formatting and comparing macros (read as calls)."""
    function = call.child_by_field_name("function")
    if function is None or call.child_by_field_name("arguments") is None:
        return
    given = _arguments(call)
    if function.type == "field_expression" and not given:  # `x.to_string()`
        field, value = function.child_by_field_name("field"), function.child_by_field_name("value")
        if field is not None and value is not None and node_text(field, source) == "to_string" and not _literal(value):
            yield call, _written(value, source), "Display", "fmt", None
    elif function.type == "generic_function" and not given:  # `s.parse::<Version>()`
        inner, types = function.child_by_field_name("function"), function.child_by_field_name("type_arguments")
        field = inner.child_by_field_name("field") if inner is not None and inner.type == "field_expression" else None
        parsed = types.named_children[0] if types is not None and types.named_children else None
        if field is not None and node_text(field, source) == "parse" and parsed is not None:
            if parsed.type in ("type_identifier", "scoped_type_identifier"):  # not `u64`: the standard library's
                yield call, _written(parsed, source), None, "from_str", None
    elif function.type == "identifier" and source[function.end_byte : function.end_byte + 1] == b"!":
        macro = node_text(function, source)
        if macro in _COMPARING and len(given) >= 2 and not _literal(given[0], given[1]):
            yield call, _written(given[0], source), "PartialEq", "eq", given[1]
        if macro == "dbg":
            yield from ((call, _written(v, source), "Debug", "fmt", None) for v in given if not _literal(v))
        elif macro in _FORMAT_AT and len(given) > _FORMAT_AT[macro]:
            text, after = given[_FORMAT_AT[macro]], given[_FORMAT_AT[macro] + 1 :]
            if text.type in ("string_literal", "raw_string_literal"):
                yield from _formatted(call, node_text(text, source), after, source)


def _formatted(call: Node, format_string: str, given: list[Node], source: bytes) -> Iterator[_Site]:
    """The values a format string shows, each with the trait its placeholder shows it by (`{}` Display, `{:?}`
    Debug): by position, by index (`{0}`), by name (`{v}`: `v = x` among the arguments, or else the variable v)."""
    positional = [a for a in given if a.type != "assignment_expression"]
    named = {
        node_text(left, source): right
        for a in given
        if a.type == "assignment_expression"
        and (left := a.child_by_field_name("left")) is not None
        and (right := a.child_by_field_name("right")) is not None
    }
    following = 0
    for placeholder in _PLACEHOLDER.finditer(_ESCAPED.sub("", format_string)):
        argument, spec = placeholder["argument"].strip(), placeholder["spec"] or ""
        trait = "Debug" if spec.endswith("?") else None if spec[-1:] in _OTHER_TRAITS else "Display"
        if ".*" in spec:
            following += 1  # the precision comes first, an argument of its own
        value: Node | None = None
        if argument.isdigit():
            value = positional[int(argument)] if int(argument) < len(positional) else None
        elif argument:
            value = named.get(argument)
            if value is None and trait is not None and argument.isidentifier():
                yield call, argument, trait, "fmt", None  # `{version}`: the variable, captured where the macro is
                continue
        else:
            value = positional[following] if following < len(positional) else None
            following += 1
        if value is not None and trait is not None and not _literal(value):
            yield call, _written(value, source), trait, "fmt", None


def _first(left: Node, operation: Node, source: bytes) -> Node:
    """`a + b + c` adds c to what `a + b` gives, a value of a's type as most implementations of Add have it: a."""
    while left.type == "binary_expression" and (inner := left.child_by_field_name("left")) is not None:
        if node_text(left.child_by_field_name("operator") or left, source) not in _ARITHMETIC:
            break
        if (
            operation.type == "binary_expression"
            and node_text(operation.child_by_field_name("operator") or operation, source) not in _ARITHMETIC
        ):
            break
        left = inner
    return left


def _owned(parameter: Node) -> bool:
    """Whether a parameter takes its value (`p: Prerelease`), which the function drops unless it moves it on; not a
    reference's, a pointer's or a type parameter's (`impl Read`, `T`: the index knows no type to drop)."""
    written = parameter.child_by_field_name("type")
    return written is not None and written.type in ("type_identifier", "generic_type", "scoped_type_identifier")


def _bare(node: Node) -> Node:
    """`&a`, `(a)`, `*a`: the value a, whose implementation runs."""
    while node.type in _WRAPPING or (node.type == "unary_expression" and node.children[0].type == "*"):
        if not node.named_children:
            break
        node = node.named_children[-1]
    return node


def _literal(*nodes: Node) -> bool:
    """Whether any of the operands is a literal (`n == 0`, `"x".to_string()`): of the standard library's types."""
    for node in nodes:
        bare = _bare(node)
        if bare.type == "unary_expression" and bare.children[0].type == "-" and bare.named_children:
            bare = bare.named_children[0]  # `-1`
        if bare.type in _LITERALS:
            return True
    return False


def _written(node: Node, source: bytes) -> str:
    """The operand as a qualifier holds it: its value's text on one line, `_` where too long to keep."""
    text = " ".join(node_text(_bare(node), source).split())
    return text if len(text) <= QUALIFIER_LIMIT else UNKNOWN
