"""The classes Ruby's values are made of, where the code says so.

- `csv = CSV.new(data)` in a method makes the local `csv` a CSV; `@tm = Rake::TaskManager.new` an instance variable of
  the method's class (any method of the class may read it: a test's `setup` sets what its tests call).
- A method whose value is `FieldsConverter.new(...)` (its last expression, or what it returns) returns one, kept
  under the name RETURNED; a variable bound to what a method of its own class returns (`@fields_converter =
  build_fields_converter(options)`) is kept as `=build_fields_converter`, for the store to follow.
- What a method yields (`yield csv`, `yield self`) is kept under YIELDED, and a block's parameter is what the method it
  is passed to yields (`CSV.open(path) do |csv|`: `&CSV.open`).

Kept as the fields projection keeps declared types (owner, name, type): store/rubycalls.py reads from them what class
a call on `csv` or `@tm` is a method of. A variable made of two classes in one owner is kept with both, for the store
to leave alone."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Protocol

from tree_sitter import Node

from .callsites import Caller
from .cppfields import call_arguments
from .parse import node_text
from .rubynames import MethodNodes, bare_name_calls, bound_names, sent_calls, super_calls, walked_methods

MAX_TYPE = 200
_METHODS = frozenset({"method", "singleton_method"})
_HOLDERS = frozenset({"class", "module"})
_CONSTANTS = frozenset({"constant", "scope_resolution"})
_LITERALS = frozenset(
    "integer float rational complex string simple_symbol delimited_symbol array hash regex nil true false".split()
)
ALTERNATIVES = " | "  # as javafields.ALTERNATIVES
MIXINS = frozenset({"include", "extend", "prepend"})  # their arguments are kept: the modules a class mixes in
READERS = frozenset({"attr_reader", "attr_accessor", "attr"})  # their arguments are kept: the readers a class has
RETURNED = "return"  # the name a method's returned class is kept under (no variable is named so: a keyword)
RESULT_OF = "="  # before a method's name: the value is what that method of the same class returns
YIELDED = "yield"  # the name the class a method yields to its block is kept under (a keyword, as RETURNED)
SELF = "self"  # the value is the method's own class (`yield self`, a class method's bare `new(...)`)
GIVEN_BY = "&"  # before `CSV.open` or `.each`: the block parameter is what that method yields
ALIAS = ":"  # before a name a class gives a method of it (`alias def_option define`): kept as the class's field


class _Definition(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def node(self) -> Node: ...


def ruby_facts(
    defs: Sequence[Caller],
    starts: list[int],
    calls: list[dict[str, Any]],
    call_caps: list[dict[str, list[Node]]],
    source: bytes,
) -> list[dict[str, str]]:
    """What store/rubycalls.py reads of a Ruby file beside its call sites (`calls`, one per capture of `call_caps`):
    the modules each `include`, `extend` or `prepend` names and the readers `attr_reader` makes, kept as the call's
    arguments; an attribute written
    (`Rake.application = app`) as the call of its writer, `application=`; the calls of bare names, of `super` and of
    the methods a `send` names, added to `calls`; and what its values are made of, returned as the fields projection
    keeps them. Each method is walked once for all of it."""
    written: list[dict[str, Any]] = []  # `row[0] += "X"`, `t.count += 1`: the reader's call, and the writer's
    for call, caps in zip(calls, call_caps, strict=True):
        node = caps["reference.call"][0]
        if call["name"] in MIXINS | READERS and call["qualifier"] is None:  # `include Rake::DSL`, `attr_reader :row`
            call["arguments"] = call_arguments(node, source)
        if node.type == "element_reference":
            call["name"] = "[]"  # `table[0]`
        assigned = node.parent
        if assigned is not None and assigned.type == "assignment" and _is_left(assigned, node):
            call["name"] += "="  # was read as the reader `application` (or `[]`), which does not run
        elif assigned is not None and assigned.type == "operator_assignment" and _is_left(assigned, node):
            written.append({**call, "name": call["name"] + "="})
    calls += written
    walked = walked_methods(defs)
    calls += bare_name_calls(defs, starts, source, walked) + super_calls(defs, starts, source, walked)
    calls += sent_calls(defs, starts, source, walked)
    return _ruby_fields(defs, source, walked)


def may_call_ours(caps: dict[str, list[Node]]) -> bool:
    """Whether a call site may run a method of the project's: not an operator on a literal (`1 + n`, `"a" << s`, `[] <<
    x`), which runs Ruby's own."""
    node, qualifier = caps["reference.call"][0], caps.get("qualifier")
    return node.type == "call" or not qualifier or qualifier[0].type not in _LITERALS


def _is_left(assignment: Node, node: Node) -> bool:
    left = assignment.child_by_field_name("left")
    return left is not None and left.id == node.id


def _ruby_fields(defs: Sequence[_Definition], source: bytes, walked: dict[str, MethodNodes]) -> list[dict[str, str]]:
    """Each method's locals and its class's instance variables bound to `Const.new(...)`, as the fields projection
    keeps them ({owner, name, type})."""
    holders = [d for d in defs if d.node.type in _HOLDERS]
    found: dict[tuple[str, str], list[str]] = {}
    for method in (d for d in defs if d.id in walked):
        nodes = walked[method.id]
        holder = _innermost_holder(holders, method.node)
        locals_ = frozenset(bound_names(nodes, source))
        bindings = list(_made_in(nodes, source, locals_))
        returned = _returned(method.node, nodes, source, dict(bindings), locals_)
        if returned is not None:
            bindings.append((RETURNED, returned))
        yielded = _yielded(nodes, source, dict(bindings), locals_)
        if yielded is not None:
            bindings.append((YIELDED, yielded))
        bindings += _block_parameters(nodes, source)
        for variable, made in bindings:
            owner = method.id if not variable.startswith("@") else holder.id if holder is not None else None
            if owner is not None and made not in found.setdefault((owner, variable), []):
                found[(owner, variable)].append(made)
    for holder in holders:
        for new, old in _aliases(holder.node, source):
            found.setdefault((holder.id, ALIAS + new), [old])
    return [{"owner": owner, "name": name, "type": ALTERNATIVES.join(types)} for (owner, name), types in found.items()]


def _aliases(holder: Node, source: bytes) -> Iterator[tuple[str, str]]:
    """(new name, the method's) for each `alias new old` and `alias_method :new, :old` in a class's own body."""
    body = holder.child_by_field_name("body")
    for node in body.named_children if body is not None else ():
        if node.type == "alias":
            new, old = node.child_by_field_name("name"), node.child_by_field_name("alias")
            if new is not None and old is not None:
                yield node_text(new, source, MAX_TYPE), node_text(old, source, MAX_TYPE)
        elif node.type == "call" and node.child_by_field_name("receiver") is None:
            method, arguments = node.child_by_field_name("method"), node.child_by_field_name("arguments")
            names = [c for c in arguments.named_children if c.type == "simple_symbol"] if arguments is not None else []
            if method is not None and node_text(method, source, 20) == "alias_method" and len(names) == 2:
                yield node_text(names[0], source, MAX_TYPE)[1:], node_text(names[1], source, MAX_TYPE)[1:]


def _innermost_holder(holders: Sequence[_Definition], node: Node) -> _Definition | None:
    around = [h for h in holders if h.node.start_byte <= node.start_byte and node.end_byte <= h.node.end_byte]
    return max(around, key=lambda h: h.node.start_byte, default=None)


def _made_in(nodes: MethodNodes, source: bytes, locals_: frozenset[str]) -> Iterator[tuple[str, str]]:
    """(variable, class) for each `x = Const.new(...)` or `@x = Const.new(...)` in a method (or `= own_method(...)`,
    `= Const.factory(...)`, `= cond ? A.new : B.new`), not in the methods or classes inside it."""
    for node in _in_order(nodes.of("assignment", "operator_assignment")):
        right = node.child_by_field_name("right")
        made = _last_class(right, source, {}, locals_) if right is not None else None
        left = node.child_by_field_name("left")
        if made is not None and left is not None and left.type in ("identifier", "instance_variable"):
            yield node_text(left, source, MAX_TYPE), made


def _made_class(value: Node | None, source: bytes) -> str | None:
    """`CSV.new(...)`, `Rake::Task.new { ... }`: the class written, as written (`Rake::Task`); a bare `new(...)` (in a
    class method), `self.new` or `self.class.new`, SELF."""
    if value is None or value.type != "call":
        return None
    receiver, method = value.child_by_field_name("receiver"), value.child_by_field_name("method")
    if method is None or node_text(method, source, 10) != "new":
        return None
    if receiver is None or receiver.type == "self" or node_text(receiver, source, 20) == "self.class":
        return SELF
    return node_text(receiver, source, MAX_TYPE) if receiver.type in _CONSTANTS else None


def _yielded(nodes: MethodNodes, source: bytes, bound: dict[str, str], locals_: frozenset[str]) -> str | None:
    """The class a method yields to its block, where its first `yield` that says one says: `yield csv` of a variable
    made so, `yield self`, `yield Row.new(...)`."""
    for node in _in_order(nodes.of("yield")):
        if node.named_child_count:
            values = node.named_children[0]
            value = values.named_children[0] if values.type == "argument_list" and values.named_child_count else values
            if value.type == "self":
                return SELF
            if (made := _value_class(value, source, bound, locals_)) is not None:
                return made
    return None


def _block_parameters(nodes: MethodNodes, source: bytes) -> Iterator[tuple[str, str]]:
    """(parameter, `&CSV.open`) for the first parameter of each block passed to a call on a constant, on `self` or on
    no receiver (`CSV.open(path) do |csv|`): what that method yields to it."""
    for node in _in_order(nodes.of("call")):
        block = next((c for c in node.named_children if c.type in ("block", "do_block")), None)
        parameters = block.child_by_field_name("parameters") if block is not None else None
        first = parameters.named_children[0] if parameters is not None and parameters.named_child_count else None
        receiver, called = node.child_by_field_name("receiver"), node.child_by_field_name("method")
        if first is None or first.type != "identifier" or called is None:
            continue
        if receiver is None or receiver.type == "self":
            yield node_text(first, source, MAX_TYPE), f"{GIVEN_BY}.{node_text(called, source, MAX_TYPE)}"
        elif receiver.type in _CONSTANTS:
            on = node_text(receiver, source, MAX_TYPE)
            yield node_text(first, source, MAX_TYPE), f"{GIVEN_BY}{on}.{node_text(called, source, MAX_TYPE)}"


def _own_result(value: Node | None, source: bytes, locals_: frozenset[str] = frozenset()) -> str | None:
    """`build_parser(options)`, `self.parser`, a bare `build_parser` no local of the method binds (`locals_`): what a
    method of the same class returns, as `=build_parser`; `Rake.application`, `LinkedList.make(...)`: what that
    method of the class or module returns, as `=Rake.application`."""
    if value is not None and value.type == "identifier":
        name = node_text(value, source, MAX_TYPE)
        return RESULT_OF + name if name not in locals_ else None
    if value is None or value.type != "call":
        return None
    receiver, method = value.child_by_field_name("receiver"), value.child_by_field_name("method")
    if method is None or method.type != "identifier":
        return None
    if receiver is not None and receiver.type in _CONSTANTS:
        return f"{RESULT_OF}{node_text(receiver, source, MAX_TYPE)}.{node_text(method, source, MAX_TYPE)}"
    if receiver is not None and receiver.type != "self":
        return None
    return RESULT_OF + node_text(method, source, MAX_TYPE)


def _returned(
    method: Node, nodes: MethodNodes, source: bytes, bound: dict[str, str], locals_: frozenset[str]
) -> str | None:
    """The class a method returns where its last expression, or a `return` in it, says: `Foo.new(...)`, a variable
    made so (`bound`), `@x ||= build_x` (what build_x returns)."""
    body = method.child_by_field_name("body")
    if body is None or body.named_child_count == 0:
        return None
    made = _last_class(body.named_children[-1], source, bound, locals_)
    if made is not None:
        return made
    for node in _in_order(nodes.of("return")):
        if node.named_child_count:
            values = node.named_children[0]
            value = values.named_children[0] if values.type == "argument_list" and values.named_child_count else values
            if (made := _value_class(value, source, bound, locals_)) is not None:
                return made
    return None


def _last_class(last: Node, source: bytes, bound: dict[str, str], locals_: frozenset[str]) -> str | None:
    """The class of a method's last expression; of an `if`, `unless` or `case`, the classes of each branch's last
    expression, where every branch says (csv's `build_scanner` ends `if string; Scanner.new(string); else;
    InputsScanner.new(...); end`)."""
    ends = _branch_ends(last)
    if ends is None:
        return _value_class(last, source, bound, locals_)
    found: list[str] = []
    for end in ends:
        made = _last_class(end, source, bound, locals_) if end is not None else None
        if made is None:
            return None  # a branch that says nothing, or returns nil
        found += [m for m in made.split(ALTERNATIVES) if m not in found]
    return ALTERNATIVES.join(found)


def _branch_ends(node: Node) -> list[Node | None] | None:
    """The last expression of each branch of an `if`, `unless`, `case` or `?:` (None for one that is empty, or not
    written: it gives nil); None for any other expression."""
    if node.type in ("if", "unless", "elsif"):
        then, otherwise = node.child_by_field_name("consequence"), node.child_by_field_name("alternative")
        rest = _branch_ends(otherwise) if otherwise is not None and otherwise.type == "elsif" else [_last(otherwise)]
        return [_last(then), *(rest or [None])]
    if node.type == "conditional":  # `quoted ? Quoted.new : Plain.new`
        return [node.child_by_field_name("consequence"), node.child_by_field_name("alternative")]
    if node.type == "case":
        branches = [c.child_by_field_name("body") if c.type == "when" else c for c in node.named_children]
        written = [b for b, c in zip(branches, node.named_children, strict=True) if c.type in ("when", "else")]
        has_else = any(c.type == "else" for c in node.named_children)
        return [_last(b) for b in written] + ([] if has_else else [None])
    return None


def _last(block: Node | None) -> Node | None:
    return block.named_children[-1] if block is not None and block.named_child_count else None


def _value_class(value: Node, source: bytes, bound: dict[str, str], locals_: frozenset[str]) -> str | None:
    if value.type in ("identifier", "instance_variable") and node_text(value, source, MAX_TYPE) in bound:
        return bound[node_text(value, source, MAX_TYPE)]
    if value.type == "instance_variable":  # `def table; @table; end`: whatever the class makes it, in any method
        return node_text(value, source, MAX_TYPE)
    if value.type in ("assignment", "operator_assignment"):
        right = value.child_by_field_name("right")
        return _made_class(right, source) or _own_result(right, source, locals_)
    return _made_class(value, source) or _own_result(value, source, locals_)


def _in_order(nodes: list[Node]) -> list[Node]:
    """The nodes as the source has them: the first of several says."""
    return sorted(nodes, key=lambda n: n.start_byte)
