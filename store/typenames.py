"""What a signature or an annotation names, as the call graph (store/callgraph.py) reads them: the classes a
return annotation gives (Python's `-> "t.Optional[Context]"`, TypeScript's `: Promise<Builder<T>>`), a class's
bases (`class A(B, mod.C)`, `class A<T extends X> extends B<T>`, `interface A extends B, C`) and the interfaces
a TypeScript class implements."""

from __future__ import annotations

import functools
import re

_EXTENDS = re.compile(r"^(?:export\s+)?(?:default\s+)?(?:abstract\s+)?class\b[^{(]*?\bextends\s+([A-Za-z_$][\w$.]*)")
# TypeScript: `interface A extends B, C<T>` (an interface's bases); `class A implements I, J<T>`
_INTERFACE_EXTENDS = re.compile(r"^(?:export\s+)?(?:default\s+)?interface\s+[\w$]+\s+extends\s+(.+)$", re.S)
_IMPLEMENTS = re.compile(r"\bimplements\s+(.+)$", re.S)
_GENERICS = re.compile(r"<[^<>]*>")  # innermost first: `<K extends keyof T<U>>` in two passes
_PROMISE = re.compile(r"^Promise<(.*)>$", re.S)  # what an async method's caller gets, awaited
TYPESCRIPT_SUFFIXES = (".ts", ".tsx", ".mts", ".cts")
SCRIPT_SUFFIXES = (".js", ".cjs", ".mjs", ".jsx", *TYPESCRIPT_SUFFIXES)  # JavaScript's and TypeScript's
JAVASCRIPT_FAMILY = frozenset({"javascript", "typescript", "tsx"})  # the languages the index gives those files
_COLLECTION = re.compile(r"(.+)\[\]|(?:Readonly)?Array<(.+)>|(?:Readonly)?Set<(.+)>", re.S)  # what `for of` walks
_CLASS_HEAD = re.compile(r"^class\s+[\w.]+\s*(?:\[[^\]]*\])?\s*\((.*)\)\s*$", re.S)


_WRAPPERS = frozenset({"Optional", "Union", "Type", "type", "Final", "ClassVar", "Annotated"})


def holds_class(written: str) -> bool:
    """Whether a Python type is a class itself (`t.Type["CodeGenerator"]`, `type[Context]`), or None where it is
    not set (`type[FlaskClient] | None`, `t.Optional[t.Type[Context]]`), which calling makes an instance of;
    annotation_names reads the class it holds."""
    text = written.strip().strip("\"'").strip()
    optional = re.fullmatch(r"(?:[\w.]+\.)?Optional\[(.*)\]", text, re.S)
    parts = [p.strip() for p in _top_level_split(optional.group(1) if optional else text, "|")]
    held = [p for p in parts if p != "None"]
    return len(held) == 1 and re.fullmatch(r"(?:[\w.]+\.)?[Tt]ype\[(.*)\]", held[0], re.S) is not None


def annotation_names(text: str) -> list[str]:
    """The classes an annotation names: `"t.Optional[Context]"` -> ["Context"], `A | None` -> ["A"], a generic
    class of ours itself (`"ProgressBar[V]"` -> ["ProgressBar"]); nothing for a container (`list[A]`: its items
    are not what a call on it reaches)."""
    text = text.strip().strip("\"'").strip()
    wrapped = re.fullmatch(r"([\w.]+)\[(.*)\]", text, re.S)
    if wrapped is not None:
        wrapper = wrapped.group(1).rsplit(".", 1)[-1]
        if wrapper in _PYTHON_COLLECTIONS or not wrapped.group(2).strip():  # or TypeScript's array, `Column[]`
            return []
        if wrapper not in _WRAPPERS:  # a class taking type parameters; typing's own forms name nothing of ours
            return [wrapped.group(1)]
        parts = _top_level_split(wrapped.group(2), ",")
        if wrapper == "Annotated":  # `Annotated[Context, Marker]`: the rest is metadata, not what the value is
            parts = parts[:1]
        return [n for part in parts for n in annotation_names(part)]
    parts = _top_level_split(text, "|")
    if len(parts) > 1:
        return [n for part in parts for n in annotation_names(part)]
    return [text] if re.fullmatch(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*", text) and text != "None" else []


def python_builtin_classes(text: str, *, throughout: bool = False) -> list[str] | None:
    """The builtin classes a Python annotation says a value is one of: `bytes`, `list[str]`, `t.Optional[str]`, `str
    | None`, `Tuple[int, str]` -> their names (None itself left out); None where any part is anything else. With
    `throughout`, a container's type arguments must be builtins too: `dict[str, tuple[int, ...]]`, not `dict[str,
    Handler]` (whose `.get(k)` gives a Handler) nor `list[Any]`."""
    text = text.strip().strip("\"'").strip()
    wrapped = re.fullmatch(r"([\w.]+)\[(.*)\]", text, re.S)
    if wrapped is not None:
        wrapper = wrapped.group(1).rsplit(".", 1)[-1]
        arguments = [a for a in _top_level_split(wrapped.group(2), ",") if a.strip() != "..."]
        if wrapper in _PYTHON_BUILTIN_VALUES:
            held = [python_builtin_classes(a, throughout=True) for a in arguments] if throughout else []
            return None if None in held else [wrapper]
        if wrapper not in ("Optional", "Union") or not arguments:
            return None
        parts = arguments
    else:
        parts = _top_level_split(text, "|")
        if len(parts) == 1:
            return [] if text == "None" else [text] if text in _PYTHON_BUILTIN_VALUES else None
    found: list[str] = []
    for part in parts:
        named = python_builtin_classes(part, throughout=throughout)
        if named is None:
            return None
        found += named
    return found


def python_builtin_value(text: str) -> bool:
    """Whether a Python annotation says a value is builtin through and through (`python_builtin_classes`'s
    `throughout`): `list[str]`, `Optional[bytes]`, None; not `dict[str, Handler]`."""
    return python_builtin_classes(text, throughout=True) is not None


# Python's builtin classes of values, and typing's aliases of them: a call on one is theirs, never ours.
_PYTHON_BUILTIN_VALUES = frozenset(
    "str bytes bytearray int float complex bool list dict set frozenset tuple List Dict Set FrozenSet Tuple"
    " deque Deque defaultdict DefaultDict OrderedDict Counter".split()  # and collections', concrete as the builtins
)


# Python's collections, by what their first parameter is: what `for` over one gives (a mapping's keys)
_PYTHON_COLLECTIONS = frozenset(
    {
        *("list", "List", "set", "Set", "frozenset", "FrozenSet", "deque", "Deque", "dict", "Dict", "DefaultDict"),
        *("Sequence", "MutableSequence", "AbstractSet", "MutableSet", "Collection", "Iterable", "Iterator"),
        *("Generator", "Reversible", "Mapping", "MutableMapping", "OrderedDict", "KeysView"),
        *("AsyncIterable", "AsyncIterator", "AsyncGenerator"),
    }
)


def _containers(text: str) -> list[tuple[str, list[str]]]:
    """A Python type's generic containers, each as its name and its type arguments as written, with `Optional`,
    `Union` and `|` unwrapped: `t.Optional[t.Dict[str, A]]` is the one container Dict, of str and A."""
    text = text.strip().strip("\"'").strip()
    parts = _top_level_split(text, "|")
    if len(parts) > 1:
        return [c for part in parts for c in _containers(part)]
    wrapped = re.fullmatch(r"([\w.]+)\[(.*)\]", text, re.S)
    if wrapped is None:
        return []
    outer, inner = wrapped.group(1).rsplit(".", 1)[-1], _top_level_split(wrapped.group(2), ",")
    if outer in _WRAPPERS:
        return [c for part in inner for c in _containers(part)]
    return [(outer, inner)]


def _of_any_length(container: str, arguments: list[str]) -> bool:
    """`tuple[A, ...]`: a tuple whose items are all one type, as a list's are."""
    return container in ("tuple", "Tuple") and len(arguments) == 2 and arguments[1].strip() == "..."


def _element_names(container: str, arguments: list[str]) -> list[str]:
    if container in ("tuple", "Tuple"):
        return annotation_names(arguments[0]) if _of_any_length(container, arguments) else []
    return annotation_names(arguments[0]) if container in _PYTHON_COLLECTIONS else []


def python_elements(text: str) -> list[str]:
    """The classes an element of a Python collection type is: `t.List["Parameter"]` -> ["Parameter"],
    `Optional[Sequence[A]]` -> ["A"], `tuple[A, ...]` -> ["A"]; nothing for a tuple of several types or what is
    no collection."""
    return [n for container, arguments in _containers(text) for n in _element_names(container, arguments)]


_PYTHON_MAPPINGS = frozenset(
    {"dict", "Dict", "DefaultDict", "defaultdict", "OrderedDict", "Mapping", "MutableMapping", "ChainMap"}
)


def is_mapping(text: str) -> bool:
    """Whether a Python type is a mapping (`t.Optional[t.Dict[str, A]]`), whose `[k]` gives a value, not a key."""
    return any(container in _PYTHON_MAPPINGS and len(arguments) == 2 for container, arguments in _containers(text))


def python_mapping(text: str, part: int) -> list[str]:
    """The classes a Python mapping type's keys (`part` 0) or values (1) are: `t.Dict[str, "Command"]` at 1 ->
    ["Command"], `Optional[Mapping[str, A]]` at 1 -> ["A"]; nothing for what is no mapping."""
    return [
        n
        for container, arguments in _containers(text)
        if container in _PYTHON_MAPPINGS and len(arguments) == 2
        for n in annotation_names(arguments[part])
    ]


def python_item(text: str, position: int) -> list[str]:
    """The classes the item at a place of a Python type is, unpacked (`a, b = f()`): `t.Tuple[str, "Command"]`
    at 1 -> ["Command"], `Optional[tuple[A, B]]` at 0 -> ["A"]; any place of `tuple[A, ...]` or `List[A]` -> ["A"];
    nothing past a tuple's end or for what is no collection."""
    out: list[str] = []
    for container, arguments in _containers(text):
        if container in ("tuple", "Tuple") and not _of_any_length(container, arguments):
            out += annotation_names(arguments[position]) if position < len(arguments) else []
        else:
            out += _element_names(container, arguments)
    return out


def _top_level_split(text: str, separator: str, *, generics: bool = False, most: int = -1) -> list[str]:
    """`text` split at each `separator` outside brackets (and with `generics`, outside `<...>`: `Map<K, V>`,
    where `=>` closes nothing), at most `most` times."""
    opening, closing = ("([{<", ")]}>") if generics else ("([{", ")]}")
    depth, start, parts = 0, 0, list[str]()
    for index, ch in enumerate(text):
        if ch in opening:
            depth += 1
        elif ch in closing and text[index - 1 : index + 1] != "=>":
            depth -= 1
        elif ch == separator and depth == 0 and len(parts) != most and text[index : index + 2] != "=>":
            parts.append(text[start:index])
            start = index + 1
    return [*parts, text[start:]]


def bases_all_named(signature: str) -> bool:
    """Whether each base a Python class head lists is a dotted name (`class A(B, mod.C[T], metaclass=M)`), none an
    expression naming a class only when it runs (`class A(with_metaclass(M, B))`, `class A(*bases)`)."""
    return all(_base_named(p) or ("=" in p and not p.startswith("*")) for p in _class_head_items(signature))


def base_names(signature: str) -> list[str]:
    """`class A(B, mod.C[T], metaclass=M)` -> ["B", "mod.C"]: the dotted names of its bases; JavaScript's and
    TypeScript's `class A<T extends X> extends mod.B<T>` -> ["mod.B"], `interface A extends B, C<T>` -> ["B",
    "C"]."""
    plain = _without_generics(signature.strip())
    extends = _EXTENDS.match(plain)
    if extends is not None:
        return [extends.group(1)]
    interface = _INTERFACE_EXTENDS.match(plain)
    if interface is not None:
        return _dotted_names(interface.group(1))
    return [name for item in _class_head_items(signature) if (name := _base_named(item))]


def _class_head_items(signature: str) -> list[str]:
    """What a Python class head lists between its parentheses, each stripped: its bases and its keywords."""
    match = _CLASS_HEAD.match(signature.strip())
    items = _top_level_split(match.group(1), ",") if match is not None else []
    return [item.strip() for item in items if item.strip()]


def _base_named(item: str) -> str | None:
    """The dotted name an item of a class head names as a base (`mod.C[T]`: mod.C); None for a keyword
    (`metaclass=M`) or an expression (`with_metaclass(M, B)`, `*bases`)."""
    name = item.split("[", 1)[0].strip()
    return name if re.fullmatch(r"[A-Za-z_][\w.]*", name) else None


def implemented_names(signature: str) -> list[str]:
    """The interfaces a TypeScript class says it implements: `class A<T> extends B implements I, ns.J<T>` ->
    ["I", "ns.J"]."""
    found = _IMPLEMENTS.search(_without_generics(signature.strip()))
    return _dotted_names(found.group(1)) if found is not None else []


def _dotted_names(listed: str) -> list[str]:
    return [n.strip() for n in listed.split(",") if re.fullmatch(r"[A-Za-z_$][\w$.]*", n.strip())]


def _without_generics(text: str) -> str:
    while (stripped := _GENERICS.sub("", text)) != text:
        text = stripped
    return text


def returned_names(returns: str, *, typescript: bool, element: bool = False, position: int | None = None) -> list[str]:
    """The classes a declared type names (a function's result, a field's), the one a call of it gives first:
    `["Context"]` for `-> Context`; in TypeScript `Promise<T>` is T (awaited or chained, what an async method's
    caller works with), generics are dropped (`Builder<T>`: a Builder) and `: this` is ["this"], the receiver's
    class. With `element`, what an element of it is: `Column[]`, `Array<Column>`, `Set<Column>` give Column; with
    `position`, what the item at that place is, unpacked (Python's `Tuple[str, Command]`: 1 gives Command)."""
    if position is not None:
        return python_item(returns, position) if not typescript else []
    if not typescript:
        return python_elements(returns) if element else annotation_names(returns)
    returns = _PROMISE.sub(r"\1", returns.strip())
    if element:
        collection = _COLLECTION.fullmatch(returns)
        if collection is None:
            return []
        returns = next(group for group in collection.groups() if group is not None).strip().strip("()")
    returns = _without_generics(returns)
    return ["this"] if returns == "this" else annotation_names(returns)


def python_callback_parameter(signature: str, argument: int, parameter: int) -> str | None:
    """The type a Python signature declares for a parameter of the callable it takes as its argument `argument`
    (`self` and `cls` not counted): "Context" for (0, 0) of `pass_context(f: "t.Callable[te.Concatenate[Context,
    P], R]")`, B for (0, 1) of `f(g: Callable[[A, B], R])`; None where it does not say."""
    listed = _python_parameters(signature)
    declared = [d for d in listed if d[0] not in ("self", "cls")] if listed is not None else []
    written = (declared[argument][1] or "").strip().strip("\"'") if argument < len(declared) else ""
    callable_ = re.fullmatch(r"(?:[\w.]+\.)?Callable\[(.*)\]", written, re.S)
    if callable_ is None:
        return None
    taken = _top_level_split(callable_.group(1), ",")[0].strip()
    concatenate = re.fullmatch(r"(?:[\w.]+\.)?Concatenate\[(.*)\]", taken, re.S)
    if concatenate is not None:  # `Concatenate[Context, P]`: the types before the ParamSpec
        parameters = _top_level_split(concatenate.group(1), ",")[:-1]
    elif taken.startswith("[") and taken.endswith("]"):
        parameters = _top_level_split(taken[1:-1], ",")
    else:
        return None
    return parameters[parameter].strip().strip("\"'") or None if parameter < len(parameters) else None


@functools.lru_cache(maxsize=16_384)  # the walks ask of the same methods' signatures at every step
def _python_parameters(signature: str) -> tuple[tuple[str, str | None], ...] | None:
    """Each parameter of a Python signature with its declared type as written (None for none); None for a
    signature that is cut off. A `*args` or `**kwargs` parameter keeps its stars in its name."""
    opening = signature.find("(")
    end = _closing(signature, opening) if opening >= 0 else -1
    if end < 0:
        return None
    out: list[tuple[str, str | None]] = []
    for part in _top_level_split(signature[opening + 1 : end], ","):
        written, colon, declared = part.partition(":")
        if written.strip() and written.strip() != "/":
            typed = _top_level_split(declared, "=", most=1)[0].strip() if colon else None
            out.append((written.split("=")[0].strip(), typed or None))
    return tuple(out)


def python_parameter_type(signature: str, name: str) -> str | None:
    """The type a Python signature declares for its parameter `name`: "t.Optional[Context]" of `ctx` in
    `def convert(self, value: t.Any, ctx: t.Optional[Context] = None) -> t.Any`; None where it declares none
    (and for `*args: X`, a tuple of X)."""
    return next((typed for written, typed in _python_parameters(signature) or [] if written == name), None)


_SELF = re.compile(r"(?:[\w.]+\.)?Self")  # typing's Self, however imported
_CLASS_OF = re.compile(r"(?:[\w.]+\.)?[Tt]ype\[\s*(\w+)\s*\]")  # a classmethod's `cls: type[T]`


def python_self_type(signature: str, returns: str) -> bool:
    """Whether a Python method's declared result is the instance it is called on: `-> Self`, or the type its first
    parameter declares (`def __enter__(self: T) -> T`, a classmethod's `def create(cls: type[T]) -> T`): an
    instance of the receiver's class, a subclass's where it is called on one."""
    returns = returns.strip().strip("\"'")
    if _SELF.fullmatch(returns):
        return True
    declared = _python_parameters(signature)
    if not declared or declared[0][1] is None:
        return False
    first, typed = declared[0][0], declared[0][1].strip().strip("\"'")
    if first == "self":
        return typed == returns
    of_class = _CLASS_OF.fullmatch(typed) if first == "cls" else None
    return of_class is not None and of_class.group(1) == returns


def callback_parameter(signature: str, argument: int, parameter: int) -> str | None:
    """The type a TypeScript signature declares for a parameter of the callback it takes as an argument:
    `transaction<T>(run: (manager: EntityManager) => Promise<T>)` gives "EntityManager" for (0, 0). A union
    (`level | ((manager: EntityManager) => R)`) gives its function's; None where the signature does not say
    (no such argument, a rest parameter before it, a type that is no function type, a name for one)."""
    declared = _parameter_types(signature)
    written = declared[argument] if declared is not None and argument < len(declared) else None
    for member in _top_level_split(written, "|", generics=True) if written is not None else []:
        function = member.strip()
        while function.startswith("(") and _closing(function, 0) == len(function) - 1:
            function = function[1:-1].strip()  # `((m: EntityManager) => R)`
        if function.startswith("(") and "=>" in function:
            taken = _parameter_types(function)
            return taken[parameter] if taken is not None and parameter < len(taken) else None
    return None


def _parameter_types(signature: str) -> list[str | None] | None:
    """Each parameter's declared type in the first parameter list of a signature (None for one with no type);
    None for a rest parameter's and every one after it, and for a signature that is cut off."""
    depth = 0
    for index, ch in enumerate(signature):  # `transaction<T extends X>(`: the list follows the generics
        if ch == "<":
            depth += 1
        elif ch == ">" and signature[index - 1 : index] != "=":
            depth -= 1
        elif ch == "(" and depth == 0:
            end = _closing(signature, index)
            if end < 0:
                return None
            out: list[str | None] = []
            for written in _top_level_split(signature[index + 1 : end], ",", generics=True):
                if written.strip().startswith("..."):
                    break
                parts = _top_level_split(written, ":", generics=True, most=1)
                typed = (
                    _top_level_split(parts[1], "=", generics=True, most=1)[0] if len(parts) == 2 else ""
                )  # `= default`
                out.append(typed.strip() or None)
            return out if signature[index + 1 : end].strip() else []
    return None


def _closing(text: str, opening: int) -> int:
    """Where the bracket opened at `opening` closes (-1: not in the text)."""
    depth = 0
    for index in range(opening, len(text)):
        if text[index] in "([{":
            depth += 1
        elif text[index] in ")]}":
            depth -= 1
            if depth == 0:
                return index
    return -1
