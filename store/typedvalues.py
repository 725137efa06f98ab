"""The classes of values as their code declares them, which store/resolver.py follows a call through: what a
function returns (its annotation, TypeScript's `: this`, what pymembers.py and jsmembers.py infer), a parameter's
declared type and a callback's, a field's (its element's, a mapping's keys' or values'), and the nearest base a union
of classes shares. Each reads names in the declaring file, through its imports: the resolver's walk."""

from __future__ import annotations

import sqlite3

from .db import stored_list
from .hierarchy import TYPES, ClassHierarchy, is_protocol
from .refs import GIVEN, RESULT, Ref, item_of, parse_ref, passed
from .symbol import is_property
from .typenames import (
    SCRIPT_SUFFIXES,
    TYPESCRIPT_SUFFIXES,
    callback_parameter,
    holds_class,
    python_callback_parameter,
    python_mapping,
    python_parameter_type,
    python_self_type,
    returned_names,
)

# where a function's result may be inferred (jsmembers.py's `return this`, callrefs.py's `return CliRunner()`)
_INFERRED_RESULTS = (*SCRIPT_SUFFIXES, ".py")


class TypedValues(ClassHierarchy):
    """The declared classes of values, read through the class hierarchy and the resolver's walk of a file's names."""

    def _class_named(self, path: str, ref: Ref, hops: int) -> sqlite3.Row | None:
        """The class of what a `module:` or `import#K:` ref of `path` names: CallResolver's."""
        raise NotImplementedError

    def _value_of(
        self,
        symbol: sqlite3.Row,
        written: str,
        hops: int,
        receiver: sqlite3.Row | None = None,
        read_on: bool = False,
    ) -> sqlite3.Row | None:
        """What a segment gives of the symbol it names: `f()` what f returns (`: this`, the `receiver` it is called
        on), `f()[]` an element of that, `f()[1]` the item at that place of it, `m(i,j)` a parameter of the callback
        handed to m, a getter read on (`a.manager.save()`: `read_on`) what it returns; a class, or a name as it is,
        the symbol itself. None for an element of anything else: nothing the index can type."""
        item = item_of(written)
        if item is not None:
            called = symbol["kind"] not in TYPES and item[0].endswith("()")
            return self._returned(symbol, hops, receiver=receiver, position=item[1]) if called else None
        segment = written.removesuffix("[]")
        element = segment != written
        handed = passed(segment)
        if handed is not None:
            return None if element else self._parameter_type(symbol, handed[1], handed[2], hops, receiver)
        if symbol["kind"] not in TYPES and (segment.endswith("()") or (read_on and _getter(symbol))):
            return self._returned(symbol, hops, element, receiver)
        return None if element else symbol

    def _returned(
        self,
        function: sqlite3.Row,
        hops: int,
        element: bool = False,
        receiver: sqlite3.Row | None = None,
        position: int | None = None,
    ) -> sqlite3.Row | None:
        """The class a function's return annotation names (`-> Context`, `-> "t.Optional[Context]"`; TypeScript's
        `: SelectQueryBuilder<T>`, `: Promise<User | undefined>`, and `: this`, the class it is called on); with
        `element`, an element of it; with `position`, the item at that place (`-> Tuple[str, Command]`)."""
        written = function["returns"] or ""
        if not written and function["path"].endswith(_INFERRED_RESULTS):  # jsmembers.py's: `return this`
            written = self.typed_members(function["id"]).get(RESULT, "")
            if written and function["path"].endswith(".py"):  # pymembers.py's: `return Runner()`, `make_runner()`
                whole = not element and position is None
                made = self._walk(function["path"], tuple(written.split(".")), hops + 1) if whole else None
                if made is not None and made["kind"] in ("function", "method") and made["id"] != function["id"]:
                    return self._returned(made, hops + 1)
                return made if made is not None and made["kind"] in TYPES else None
        if not element and position is None and function["path"].endswith((".py", ".pyi")):
            if written and python_self_type(function["signature"] or "", written):
                return self._receiving_class(function, receiver)
        return self._declared(function, written, hops, element, receiver, position)

    def _receiving_class(self, method: sqlite3.Row, receiver: sqlite3.Row | None) -> sqlite3.Row | None:
        """The class a method is called on (`receiver`), else the method's own: what `: this` and `-> Self` give."""
        owner = receiver or self.symbol(method["parent"])
        return owner if owner is not None and owner["kind"] in TYPES else None

    def _parameter_declared(self, method: sqlite3.Row, parameter: str) -> sqlite3.Row | None:
        """The class a Python method declares for one of its parameters (`parser: "Parser"`), read in its file."""
        if method["kind"] not in ("function", "method") or not method["path"].endswith((".py", ".pyi")):
            return None
        written = python_parameter_type(method["signature"] or "", parameter)
        return self._declared(method, written, 0) if written is not None else None

    def _parameter_type(
        self, called: sqlite3.Row, argument: int, parameter: int, hops: int, receiver: sqlite3.Row | None = None
    ) -> sqlite3.Row | None:
        """The class a function (a TypeScript class: its constructor) declares for a parameter of the callback it
        takes as an argument: TypeScript's `transaction(run: (manager: EntityManager) => R)`, Python's
        `pass_context(f: Callable[Concatenate[Context, P], R])`, the decorator handing the Context to what it wraps."""
        function = self.member(called, "constructor") if called["kind"] == "class" else called
        if function is None or function["kind"] in TYPES:
            return None
        if function["path"].endswith(TYPESCRIPT_SUFFIXES):
            written = callback_parameter(function["signature"] or "", argument, parameter)
        elif function["path"].endswith((".py", ".pyi")):
            written = python_callback_parameter(function["signature"] or "", argument, parameter)
        else:
            return None
        return self._declared(function, written, hops, receiver=receiver) if written is not None else None

    def _declared(
        self,
        function: sqlite3.Row,
        written: str,
        hops: int,
        element: bool = False,
        receiver: sqlite3.Row | None = None,
        position: int | None = None,
    ) -> sqlite3.Row | None:
        """The class a type written in a function's signature names, read in the function's file. `this` is the
        class the method is called on (`qb.clone()` on a SelectQueryBuilder, of QueryBuilder's `clone(): this`),
        else the method's own."""
        typescript = function["path"].endswith(TYPESCRIPT_SUFFIXES)
        names = returned_names(written, typescript=typescript, element=element, position=position)
        if names == ["this"]:
            return self._receiving_class(function, receiver)
        return self._class_of(function["path"], names, hops)

    def _given_class(self, path: str, written: str, hops: int) -> sqlite3.Row | None:
        """The class of what a call assigned gives, a GIVEN ref of `fields` (pymembers.py, jsrefs.py), read in the
        file that assigns it."""
        given = parse_ref(written.removeprefix(GIVEN))
        return self._class_named(path, given, hops + 1) if given is not None else None

    def field_class(self, cls: sqlite3.Row, name: str) -> sqlite3.Row | None:
        """The class of what a class's field holds (`headers = HeadersField()`, `store: Store`), its own or a base's."""
        return self._field_type(cls, name, 0)

    def _field_type(self, cls: sqlite3.Row, name: str, hops: int, element: bool = False) -> sqlite3.Row | None:
        """The class a field's declared type names (`store: Store`, `relation?: RelationMetadata`), or with
        `element` an element of it (`columns: ColumnMetadata[]`), the class's own or a base's, read in the file
        declaring it."""
        declared = self._declared_field(cls, name)
        return self._field_class(declared, hops, element) if declared is not None else None

    def _field_class(
        self, declared: tuple[sqlite3.Row, str], hops: int, element: bool = False, part: int | None = None
    ) -> sqlite3.Row | None:
        """What `_field_type` says of a field `_declared_field` found (the class declaring it, its type as written);
        with `part`, its keys' (0) or values' (1) of a Python mapping (`commands: Dict[str, Command]`)."""
        owner, written = declared
        if written.startswith(GIVEN):  # what a call assigned gives (pymembers.py): no type written
            return self._given_class(owner["path"], written, hops) if not element and part is None else None
        typescript = owner["path"].endswith(TYPESCRIPT_SUFFIXES)
        if part is not None:  # only asked of a Python mapping
            named_types = python_mapping(written, part)
        else:
            named_types = returned_names(written, typescript=typescript, element=element)
        return self._class_of(owner["path"], named_types, hops)

    def _class_of(self, path: str, names: list[str], hops: int) -> sqlite3.Row | None:
        """The class the types a declaration of `path` names give (`Optional[Context]`: Context); for a union of
        classes (`Union[Option, Argument]`, `A | B`), the nearest base they share, whose method is what a call
        on either may run (the overrides are callgraph.py's stand-ins); None where they share none: to name one
        of them would be a sure answer, and a wrong one for the others."""
        classes: dict[str, sqlite3.Row] = {}
        for name in names:
            found = self._walk(path, tuple(name.split(".")), hops + 1)
            if found is not None and found["kind"] in TYPES and not is_protocol(found):
                classes.setdefault(found["id"], found)
        if len(classes) < 2:
            return next(iter(classes.values()), None)
        first, *others = [self.mro(cls) for cls in classes.values()]
        shared = [{row["id"] for row in line} for line in others]
        return next((row for row in first if all(row["id"] in ids for ids in shared)), None)

    def _declared_field(self, cls: sqlite3.Row, name: str) -> tuple[sqlite3.Row, str] | None:
        """The class declaring a field (the class or a base) and the field's type as written."""
        for owner in self.mro(cls):
            written = self.typed_members(owner["id"]).get(name)
            if written is not None:
                return owner, written
        return None

    def _class_held(self, cls: sqlite3.Row, name: str, hops: int) -> sqlite3.Row | None:
        """The class a field declared to hold one gives (`context_class: t.Type[Context] = Context`): calling it
        constructs a Context (`environment.context_class(...)`, Jinja's runtime)."""
        declared = self._declared_field(cls, name)
        return self._field_class(declared, hops) if declared is not None and holds_class(declared[1]) else None


def _getter(method: sqlite3.Row) -> bool:
    """A getter, which reading gives what it returns: TypeScript's or JavaScript's (`get manager(): EntityManager`),
    Python's property (`@property def lexer(self) -> Lexer`: `env.lexer.tokenize()` is Lexer's)."""
    if method["kind"] != "method":
        return False
    if method["path"].endswith((".py", ".pyi")):
        return is_property(stored_list(method["decorators"]))
    return (method["signature"] or "").startswith(("get ", "static get "))
