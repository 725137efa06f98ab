"""The templates Python code renders: `render(request, "front/details.html", ctx)` in a Django view, a class-based
view's `template_name = "catalog/book_list.html"`, Flask's `render_template("auth/login.html")`. Each is a call of
the template (store/refs.py's TEMPLATE ref) where it is written, so that the template's tags and filters
(templates.py) are reached from the view, and from the tests requesting it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tree_sitter import Node

from ...store.refs import PATH_HOLE, template_ref
from .nodes import called_name, keyword_argument, positional_arguments, string_literal
from .parse import node_text
from .pyroutes import formatted, with_holes

if TYPE_CHECKING:
    from .callrefs import PythonRefs
    from .pyscopes import Definition

# The calls rendering a template, by the last name of what they call. Its name is the first or the second argument
# (`render(request, "x.html")` of django.shortcuts, `render("x.html", ctx)` where render_to_string is imported so), or
# `template_name=`.
RENDERING = frozenset(
    {
        "render",
        "render_to_response",
        "render_to_string",
        "get_template",
        "select_template",  # a list of names: the first found renders
        "TemplateResponse",
        "SimpleTemplateResponse",
        "render_template",  # Flask's
    }
)
TEMPLATE_ATTRIBUTE = "template_name"  # a class-based view's (or a form widget's): the template it renders


def renders(refs: PythonRefs) -> list[tuple[Node, Definition | None, str]]:
    """Each template a call renders or a class's body names, as a call of it from where it is written."""
    out: list[tuple[Node, Definition | None, str]] = []
    for call, where in refs.calls:
        arguments = call.child_by_field_name("arguments")
        if called_name(call, refs.source) not in RENDERING or arguments is None or arguments.type != "argument_list":
            continue
        given = [*positional_arguments(arguments)[:2], keyword_argument(arguments, TEMPLATE_ATTRIBUTE, refs.source)]
        named = next((found for argument in given if (found := _names(argument, refs.source))), [])
        for node, name in named:
            filled = _filled_by_callers(refs, node, name, where)
            out += filled or [(node, where, template_ref(name))]
    for scope, cls in refs.class_scopes.values():
        for value in scope.values.get(TEMPLATE_ATTRIBUTE, []):
            out += [(node, cls, template_ref(name)) for node, name in _names(value, refs.source)]
    return out


def _filled_by_callers(
    refs: PythonRefs, node: Node, name: str, where: Definition | None
) -> list[tuple[Node, Definition | None, str]]:
    """A name whose one hole a parameter of its function fills (`def make_message(name, ...)`: `"emails/%s-subject.html"
    % name`), as the calls of that function in the file give it (`make_message("report", ...)`): the template each
    renders, from where that call is. Rendering every template the hole fits would reach the tests of every email for
    the filter of one. None where no call in the file gives it a string."""
    if where is None or name.count(PATH_HOLE) != 1 or where.kind not in ("function", "method"):
        return []
    scope = refs.scopes.get(where.node.id)
    parameter = _filler(node, refs.source)
    if scope is None or parameter is None or parameter not in scope.params:
        return []
    function = where.qualname.rpartition(".")[2]
    place = scope.params.index(parameter) - (
        1 if where.kind == "method" and scope.params[:1] in (["self"], ["cls"]) else 0
    )
    out: list[tuple[Node, Definition | None, str]] = []
    for call, caller in refs.calls:
        arguments = call.child_by_field_name("arguments")
        if called_name(call, refs.source) != function or arguments is None or arguments.type != "argument_list":
            continue
        given = positional_arguments(arguments)
        value = given[place] if 0 <= place < len(given) else keyword_argument(arguments, parameter, refs.source)
        written = string_literal(value, refs.source) if value is not None else None
        if value is not None and written:
            out.append((value, caller, template_ref(name.replace(PATH_HOLE, written))))
    return out


def _filler(node: Node, source: bytes) -> str | None:
    """The name whose value fills a template name's one hole: `name` of `"emails/%s.html" % name`, `f"x/{name}"` or
    `"x/{}".format(name)`; None for anything else."""
    if node.type == "binary_operator":
        value = node.child_by_field_name("right")
    elif node.type == "string":
        held = [c for c in node.named_children if c.type == "interpolation"]
        value = held[0].child_by_field_name("expression") if len(held) == 1 else None
    elif node.type == "call":
        arguments = node.child_by_field_name("arguments")
        given = positional_arguments(arguments) if arguments is not None else []
        value = given[0] if len(given) == 1 else None
    else:
        value = None
    return node_text(value, source) if value is not None and value.type == "identifier" else None


def _names(node: Node | None, source: bytes) -> list[tuple[Node, str]]:
    """The template names an argument gives: a string, or the strings of a list or tuple of them. A value written
    into one (`"emails/%s-subject.html" % name`, an f-string, `.format()`) is a hole (PATH_HOLE): whichever
    template's name fits."""
    if node is None:
        return []
    items = node.named_children if node.type in ("list", "tuple") else [node]
    return [(item, name) for item in items if (name := _name(item, source))]


def _name(node: Node, source: bytes) -> str | None:
    if node.type == "string":
        return with_holes(node, source) or None
    shaped = formatted(node, source)
    if shaped is None:
        return None
    written = _name(shaped[0], source)
    return shaped[1].sub(PATH_HOLE, written) if written else None
