"""C++'s rules for what a call names, which the call graph (store/callgraph.py) follows for C++ files.

The index keeps no refs for C++: a call is its name and the text it is called on. C++ declares its values'
types, and indexer/parsing/cppfields.py records them (a class's data members, a function's parameters and
locals), so the call graph reads a call as the compiler does:
- `s.ok()`, `builder->Add(k, v)`, `mem_->Ref()`: a method of the class the value is declared (`Status s;`,
  `TableBuilder* builder`, the calling method's class's `MemTable* mem_`), the first of it and its bases that
  declares the name; `versions_->current()->Ref()` the class the method called before it returns. Where the
  value's class is a base of the method's, the call may run the method as an override (`env->RemoveFile(f)` on
  an Env runs PosixEnv's). On a value of a class the index does not hold (`std::string`, `int`), none of ours.
- `f()` and `this->f()` in a method: the member the calling class has or inherits, else a free function.
- `Status::OK()`: a member of Status (or of its bases); `port::f()`, `leveldb::f()`: a function of a namespace.
- A call on a value whose type the code does not say here (an element, a template's parameter, a chain) is a
  guess by name, never followed.
Measured against the calls g++ compiles (bench/facts_calls_cpp.py).
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .cprototypes import C_HEADERS, C_SOURCES

if TYPE_CHECKING:
    from .resolver import CallResolver
    from .symbol import SymbolRow

    _Symbol = SymbolRow | sqlite3.Row

AS_BEFORE = "as before"  # cpp_basis leaves the call to the rules of C: a free function's, by the includes
# A call's arguments where it takes a function rather than calling it (`&DBImpl::BGWork` handed to `Schedule`): as
# the extractor gives them, and as the calls projection keeps them (JSON).
TAKEN = "&"
TAKEN_KEPT = '"&"'
OVERRIDE = "override"  # callgraph's stand-in: a virtual call on the base may run this method
_TYPES = ("class", "struct")
# a file that may be read as C++ (a `.c` never is; a `.h` when its text says so)
_C_FAMILY = (*(e for e in C_SOURCES if e != ".c"), ".C", *C_HEADERS, ".inl", ".ipp", ".tcc")
_ALIASES = ("type",)  # `typedef X Y;`, `using Y = X;`
_OTHER_TYPES = ("enum", "union")  # types of ours that are no class: a call on their values reaches none of ours
_OWN = "this"
MAX_DEPTH = 6  # bases followed up from a class (a deeper chain is a cycle of same-named classes)
MAX_STEPS = 3  # `a->b.c`, `a->f()->g`: the members and calls a receiver is followed through
# `a`, `a_`, `this->a`, `a.b`, `a->b`, `a->f()`, `(*a)`: a receiver whose steps are names and calls without arguments
# the rules can follow (`f(x)->g` and `a[i]` are not: which overload, which element)
# a step of a receiver: a name, a call without arguments (which overload is then plain) or an element (`prev[i]`)
_KEYED = re.compile(r'\[\s*(?:u8|[uUL])?R?"')  # an index no array takes: a string (`node["key"]`)
_STEP = re.compile(r"(?P<name>[A-Za-z_]\w*)(?P<call>\(\))?(?P<element>\[.*\])?", re.S)
CAST = re.compile(r"(?:static|reinterpret|dynamic|const)_cast\s*<(?P<type>.+)>\s*\(.*\)", re.S)
# What an element of these is: their first argument (`std::vector<FileMetaData*> files; files[i]->refs`)
_CONTAINERS = frozenset({"vector", "deque", "array", "span", "list", "initializer_list"})
_MAPS = frozenset({"map", "unordered_map", "multimap", "unordered_multimap", "flat_map"})
ALIAS_DEPTH = 3  # `typedef SkipList<const char*, KeyComparator> Table;`: aliases followed to the class
_PATH = re.compile(r"(?:::)?[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*")
QUALIFIERS = re.compile(r"\b(?:const|volatile|struct|class|typename|mutable|static|inline|constexpr)\b")
# What a value of these calls its methods on: the class inside (`std::unique_ptr<Foo> foo_; foo_->f()`)
_HANDING_ON = frozenset({"unique_ptr", "shared_ptr", "weak_ptr", "scoped_ptr", "optional", "reference_wrapper"})
PRIMITIVE = frozenset(
    "void bool char short int long float double signed unsigned size_t ssize_t ptrdiff_t intptr_t uintptr_t "
    "int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t wchar_t char16_t char32_t auto".split()
)
NOT_OURS = ""  # a type the index holds no class of: `std::string`, `int`, another library's


@dataclass
class CppCaches:
    """What C++'s rules read more than once, held as long as the call resolver holding them. A class is known by its
    qualified name (`leveldb.SkipList.Iterator` is not `leveldb.Iterator`)."""

    classes: dict[str, list[sqlite3.Row]] | None = None  # C++ classes and structs, by qualified name
    named: dict[str, list[str]] = field(default_factory=dict)  # the classes' qualified names, by name
    members: dict[str, set[str]] = field(default_factory=dict)  # a class's members' names (declared or defined)
    types: set[str] = field(default_factory=set)  # the names of our types that are no class nor alias (enums)
    aliases: dict[str, str] = field(default_factory=dict)  # what an alias stands for as written, by qualified name
    namespaces: set[str] = field(default_factory=set)
    cpp_paths: set[str] = field(default_factory=set)
    bases: dict[str, list[str]] = field(default_factory=dict)  # a class's bases, by qualified name
    receivers: dict[tuple[str, str], str | None] = field(default_factory=dict)  # a call's receiver's class
    enumerators: dict[str, set[str]] | None = None  # the enums of ours declaring each enumerator's name
    functions: dict[str, list[sqlite3.Row]] = field(default_factory=dict)  # functions and methods, by qualified name
    # store/cppoverloads.py's: what the functions of a qualified name take (arguments at least and at most, their
    # types), and the overloads a call's arguments fit best
    overloads: dict[str, dict[str, tuple[int, int | None, tuple[str, ...]]]] = field(default_factory=dict)
    fitting: dict[tuple[str, str, tuple[str, ...]], set[tuple[str, ...]]] = field(default_factory=dict)


def is_cpp(resolver: CallResolver, path: str) -> bool:
    """Whether the file is read as C++ (a `.h` is, when its text says so: indexer/parsing/parse.language_of)."""
    if not path.endswith(_C_FAMILY):
        return False  # asked of every call the other languages' rules leave: no read of the C++ symbols for them
    read_symbols(resolver)
    return path in resolver.cpp.cpp_paths


def cpp_basis(
    resolver: CallResolver, path: str, caller: str | None, qualifier: str | None, symbol: _Symbol
) -> str | None:
    """The basis of a call by the symbol's name in the C++ file `path`, made in `caller`, by what it is called on (which
    of a name's overloads, store/cppoverloads.py): None where C++'s rules say it cannot be this symbol, AS_BEFORE where
    they leave it to C's (a free function, by the includes)."""
    read_symbols(resolver)
    owner = class_of(resolver, symbol)
    context, own = calling_context(resolver, caller)
    qualifier = _unwrapped(qualifier)
    if qualifier is None or qualifier == _OWN:  # `f()`, `this->f()`: the calling class's member first
        reached = declaring(resolver, own, symbol["name"]) if own is not None else None
        if reached is not None:
            return _member_basis(resolver, path, symbol, owner, reached)
        if qualifier == _OWN:
            return None if owner is None else "name only"  # a member of a base the index cannot see
        return AS_BEFORE if owner is None else None  # a method is called on something, or from its class
    if _PATH.fullmatch(qualifier) and not _declared_value(resolver, caller, own, qualifier):
        named = _class_at(resolver, qualifier, context)
        if named is not None:  # `Status::OK()`, `Base::f()`
            reached = declaring(resolver, named, symbol["name"])
            return _member_basis(resolver, path, symbol, owner, reached) if reached is not None else None
        last = qualifier.rpartition("::")[2]
        if last in resolver.cpp.namespaces:  # `port::f()`: that namespace's function
            holder = symbol["qualname"].rpartition(".")[0]
            return AS_BEFORE if owner is None and holder.rpartition(".")[2] == last else None
        if last == "std" or last in resolver.cpp.types:
            return None
        # a namespace the grammar never saw open (`impl::strcpy_insitu()`, where `PUGI_IMPL_NS_BEGIN` opens it): a free
        # function of the file, or by C's rules one its includes declare
        if owner is None:
            return "same file" if path == symbol["path"] else AS_BEFORE
        return "name only"
    typed = receiver_class(resolver, path, caller, own, qualifier)
    if typed is None:
        return None if owner is None else "name only"  # a function is never called on a value
    if typed == NOT_OURS:
        return None
    reached = declaring(resolver, typed, symbol["name"])
    if reached is None:  # a member of a base the index cannot see, or of a class the grammar misread
        return "name only"
    if owner is None:
        return None  # the class's member, never a function
    return _member_basis(resolver, path, symbol, owner, reached)


def calling_context(resolver: CallResolver, caller: str | None) -> tuple[str, str | None]:
    """Where a call is made, as names are read from there: the calling function's qualified name, and its class."""
    calling = resolver.symbol(caller)
    if calling is None:
        return "", None
    return calling["qualname"], class_of(resolver, calling)


def class_of(resolver: CallResolver, symbol: _Symbol) -> str | None:
    """The qualified name of the class a C++ member belongs to, in the class or defined out of it (`void
    DBImpl::Write(...)` in db_impl.cc belongs to leveldb.DBImpl); None for a free function."""
    holder = symbol["qualname"].rpartition(".")[0]
    return holder if holder and holder in read_symbols(resolver) else None


def _member_basis(resolver: CallResolver, path: str, symbol: _Symbol, owner: str | None, reached: str) -> str | None:
    """A call of the member `reached` declares: this symbol's own class's (`method`), or an override of it in a
    class deriving from it, which a virtual call may run."""
    if owner is None:
        return None
    if owner == reached:
        return "same file" if path == symbol["path"] else "method"
    if reached in ancestors(resolver, owner):
        return OVERRIDE
    return None


def declaring(resolver: CallResolver, cls: str, member: str) -> str | None:
    """The first of the class and its bases (breadth first) declaring or defining a member of that name."""
    seen: set[str] = set()
    level = [cls]
    for _ in range(MAX_DEPTH):
        for name in level:
            if member in resolver.cpp.members.get(name, ()):
                return name
        seen.update(level)
        level = [base for name in level for base in _bases(resolver, name) if base not in seen]
        if not level:
            break
    return None


def ancestors(resolver: CallResolver, cls: str) -> set[str]:
    found: set[str] = set()
    level = [cls]
    for _ in range(MAX_DEPTH):
        level = [base for name in level for base in _bases(resolver, name) if base not in found]
        found.update(level)
    return found


def _bases(resolver: CallResolver, cls: str) -> list[str]:
    """A class's bases, as its signatures name them (`class DBImpl : public DB`), seen from where it is."""
    caches = resolver.cpp
    if cls not in caches.bases:
        found: list[str] = []
        for row in read_symbols(resolver).get(cls, ()):
            for part in _top_level_split(_base_clause(row["signature"] or "")):
                written = re.sub(r"\b(?:public|protected|private|virtual)\b", " ", part)
                base = _class_at(resolver, _type_path(written), cls.rpartition(".")[0]) if written.strip() else None
                if base is not None and base != cls and base not in found:
                    found.append(base)
        caches.bases[cls] = found
    return caches.bases[cls]


def _base_clause(signature: str) -> str:
    """What follows a class's single `:` (not a `::` of its name)."""
    at = re.search(r"(?<!:):(?!:)", signature)
    return signature[at.end() :] if at is not None else ""


def _top_level_split(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += {"<": 1, ">": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    return [*parts, text[start:]]


def _type_path(written: str) -> str:
    """The path of the class a type as written names, without its arguments (`const std::unique_ptr<Foo>&`: Foo;
    `SkipList<Key, Cmp>::Iterator*`: SkipList::Iterator); empty for a primitive."""
    text = QUALIFIERS.sub(" ", written).strip().rstrip("*& ").strip()
    while True:
        opened = text.find("<")
        head = text[:opened].strip() if opened >= 0 else text
        if opened >= 0 and head.rpartition("::")[2] in _HANDING_ON and text.endswith(">"):
            text = _top_level_split(text[opened + 1 : -1])[0].strip().rstrip("*& ").strip()
            continue
        path = re.sub(r"\s+", "", _without_arguments(text)).lstrip(":")
        return "" if path in PRIMITIVE or not _PATH.fullmatch(path) else path


def _without_arguments(text: str) -> str:
    """A type's path without its template arguments: `SkipList<Key, Cmp>::Iterator` is SkipList::Iterator."""
    out, depth = [], 0
    for char in text:
        depth += {"<": 1, ">": -1}.get(char, 0)
        if depth == 0 and char != ">":
            out.append(char)
    return "".join(out)


def _class_at(resolver: CallResolver, path: str, context: str) -> str | None:
    """The class a path names where `context` (a qualified name) is: `Iterator` inside SkipList is its nested
    Iterator, elsewhere the namespace's; `port::Mutex` the Mutex of a namespace port; an alias, the class it
    stands for. None for no class of ours."""
    return _type_at(resolver, path, context, ALIAS_DEPTH) or None


def _type_at(resolver: CallResolver, path: str, context: str, depth: int) -> str | None:
    """As _class_at, but NOT_OURS for an alias of a type that is not (`typedef uint64_t SequenceNumber;`)."""
    found = visible(resolver, path, context)
    if found is None or found not in resolver.cpp.aliases:
        return found
    written = resolver.cpp.aliases[found]
    target = _type_path(written)
    if not target:
        return NOT_OURS
    reached = _type_at(resolver, target, found.rpartition(".")[0], depth - 1) if depth > 0 else None
    return NOT_OURS if reached is None and "std::" in written else reached


def visible(resolver: CallResolver, path: str, context: str) -> str | None:
    """The class or alias a path names where `context` is: one nested in another class (or an alias in a class)
    is named through it, or from inside it, where it comes before the namespace's of that name."""
    segments = path.lstrip(":").split("::")
    candidates = resolver.cpp.named.get(segments[-1], [])
    if len(segments) > 1:
        named = [c for c in candidates if f".{c}".endswith("." + ".".join(segments))]
        if not named and _type_at(resolver, "::".join(segments[:-1]), context, ALIAS_DEPTH) == NOT_OURS:
            return None  # `ObjectValues::const_iterator`, ObjectValues a std::map: the map's, not Value's
        candidates = named or candidates  # `Table::Iterator`, Table standing for a SkipList: the SkipList's
    visible = []
    for candidate in candidates:
        holder = candidate.rpartition(".")[0]
        nested = holder in (resolver.cpp.classes or {})
        if nested and len(segments) == 1 and not (context == holder or context.startswith(holder + ".")):
            continue
        visible.append((nested, _shared(candidate, context), candidate))
    return max(visible)[2] if visible else None


def _shared(a: str, b: str) -> int:
    """How many leading segments two qualified names share."""
    n = 0
    for x, y in zip(a.split("."), b.split("."), strict=False):
        if x != y:
            break
        n += 1
    return n


def _unwrapped(qualifier: str | None) -> str | None:
    """The receiver without what does not change its type: `(*it)`, `*it` and `it` are one value."""
    if qualifier is None:
        return None
    text = qualifier.strip()
    while text.startswith("(") and text.endswith(")") or text.startswith("*") or text.startswith("&"):
        text = text[1:-1].strip() if text.startswith("(") else text[1:].strip()
    return text or None


def _declared_value(resolver: CallResolver, caller: str | None, own: str | None, name: str) -> bool:
    """Whether a name is a value the calling function or its class declares (`s`, `mem_`), not a type's."""
    if "::" in name:
        return False
    if caller is not None and name in resolver.typed_members(caller):
        return True
    return own is not None and _field_type(resolver, own, name) is not None


def receiver_class(
    resolver: CallResolver, path: str, caller: str | None, own: str | None, qualifier: str
) -> str | None:
    """The class of the value a method is called on (NOT_OURS for one the index holds none of), or None where
    the code here does not say."""
    key = (caller or path, qualifier)
    if key not in resolver.cpp.receivers:
        resolver.cpp.receivers[key] = _read_receiver(resolver, caller, own, qualifier)
    return resolver.cpp.receivers[key]


def _read_receiver(resolver: CallResolver, caller: str | None, own: str | None, qualifier: str) -> str | None:
    calling = resolver.symbol(caller)
    context = calling["qualname"] if calling is not None else (own or "")
    cast = CAST.fullmatch(qualifier)
    if cast is not None:  # `reinterpret_cast<DBImpl*>(db)`
        return _class_named(resolver, cast["type"], context)
    steps = receiver_steps(qualifier)
    if steps is None or len(steps) > MAX_STEPS + 1:
        return None
    typed: str | None = own
    for n, step in enumerate(steps):
        name = step["name"]
        if n == 0 and name == _OWN:
            continue
        if n > 0 and (typed is None or typed == NOT_OURS):
            return typed
        holder = typed if n > 0 else own  # a first step's member is the calling class's
        if step["call"]:  # `current()->Ref()`: the method's result
            typed = _result_class(resolver, holder, name) if holder is not None else None
            continue
        written = resolver.typed_members(caller).get(name) if n == 0 and caller is not None else None
        if written is None and holder is not None and (found := field_of(resolver, holder, name)) is not None:
            written, context = found
        if written is not None and step["element"]:
            written = element_type(resolver, written, context, step["element"])
        typed = _class_named(resolver, written, context) if written is not None else None
    return typed


def receiver_steps(qualifier: str) -> list[re.Match[str]] | None:
    """A receiver's steps (`compact->builder`, `versions_->current()`, `prev[i]`), split where `.` or `->` is
    outside brackets; None where a step is no name, call without arguments or element."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(qualifier):
        char = qualifier[i]
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(char, 0)
        separator = 1 if char == "." else 2 if qualifier.startswith("->", i) else 0
        if depth == 0 and separator:
            parts.append(qualifier[start:i])
            start = i + separator
            i += separator
            continue
        i += 1
    parts.append(qualifier[start:])
    steps = [_STEP.fullmatch(part.strip()) for part in parts]
    return None if any(step is None for step in steps) else [step for step in steps if step is not None]


def _class_named(resolver: CallResolver, written: str, context: str) -> str | None:
    """The class a declared type is, seen from `context`: ours by its name, NOT_OURS for one the index has no
    type of (`std::string`, `int`), None for a type of ours that is no class (an enum, a template's parameter)."""
    path = _type_path(written)
    if not path:
        return NOT_OURS
    found = _type_at(resolver, path, context, ALIAS_DEPTH)
    if found is not None:
        return found
    last = path.rpartition("::")[2]
    if last in resolver.cpp.types or len(last) == 1 or last[:1].isupper() and not path.startswith("std::"):
        return None  # an enum of ours; `T`, a template's parameter; a type another header may define
    return NOT_OURS


def element_type(resolver: CallResolver, written: str, context: str, index: str = "") -> str | None:
    """The type of an element of a value declared so, through an alias of ours: a standard sequence's first argument,
    a map's second (`typedef std::map<std::string, FileState*> FileSystem; file_map_[name]->Size()`), a raw array's
    or pointer's own type, or what the operator[] of a class of ours returns where the index (`["key"]`, as written) is
    no array's; None for another template."""
    for _ in range(ALIAS_DEPTH):
        found = visible(resolver, _type_path(written), context) if _type_path(written) else None
        if found is None or found not in resolver.cpp.aliases:
            break
        written, context = resolver.cpp.aliases[found], found.rpartition(".")[0]
    text = QUALIFIERS.sub(" ", written).strip()
    opened = text.find("<")
    if opened >= 0 and text.endswith(">"):
        arguments = _top_level_split(text[opened + 1 : -1])
        container = text[:opened].strip().rpartition("::")[2]
        if container in _CONTAINERS:
            return arguments[0]
        return arguments[1] if container in _MAPS and len(arguments) > 1 else None
    held = _class_named(resolver, written, context) if _KEYED.match(index) else None
    subscript = result_type(resolver, held, "operator[]") if held else None
    if subscript is not None:  # `node["key"]` indexes no array: what the operator[] of a class of ours returns
        return subscript[0]
    # `Node* prev[kMaxHeight]`: an array of them (its `[]` is not kept); `Slice* keys`: what the pointer points at
    return written[:-1] if written.rstrip().endswith("*") else written


def field_of(resolver: CallResolver, cls: str, name: str) -> tuple[str, str] | None:
    """The type a class (or a base) declares a data member as, as written, and the class declaring it."""
    seen: set[str] = set()
    level = [cls]
    for _ in range(MAX_DEPTH):
        for holder in level:
            for row in read_symbols(resolver).get(holder, ()):
                written = resolver.typed_members(row["id"]).get(name)
                if written is not None:
                    return written, holder
        seen.update(level)
        level = [base for holder in level for base in _bases(resolver, holder) if base not in seen]
    return None


def _field_type(resolver: CallResolver, cls: str, name: str) -> str | None:
    found = field_of(resolver, cls, name)
    return found[0] if found is not None else None


def _result_class(resolver: CallResolver, cls: str, method: str) -> str | None:
    """The class a method of the class (or a base) returns, as its declaration says (`Version* current()`)."""
    found = result_type(resolver, cls, method)
    return _class_named(resolver, *found) if found is not None else None


def result_type(resolver: CallResolver, cls: str, method: str) -> tuple[str, str] | None:
    """The type a method of the class (or a base) returns, as its declaration writes it, and the class declaring it."""
    reached = declaring(resolver, cls, method)
    if reached is None:
        return None
    for row in read_symbols(resolver).get(reached, ()):
        found = resolver.symbols_of(row["path"]).get(f"{row['qualname']}.{method}")
        if found is not None and found["returns"]:
            return found["returns"], reached
    return None


def _aliased(signature: str, name: str) -> str | None:
    """What an alias stands for as written: `typedef SkipList<const char*, Cmp> Table` and `using Table =
    SkipList<...>` both SkipList<...>."""
    text = signature.strip().rstrip(";")
    if text.startswith("typedef ") and text.endswith(name):
        return text[len("typedef ") : -len(name)].strip() or None
    head, equals, aliased = text.partition("=")
    return aliased.strip() or None if equals and head.strip().startswith("using") else None


def read_symbols(resolver: CallResolver) -> dict[str, list[sqlite3.Row]]:
    """The C++ classes by qualified name, read once per resolver with their members' names, the names of the
    other types and the namespaces."""
    caches = resolver.cpp
    if caches.classes is None:
        caches.classes = {}
        rows = resolver.conn.execute(
            "SELECT id, name, qualname, kind, path, signature, params FROM symbols WHERE language = 'cpp'"
        ).fetchall()
        for row in rows:
            caches.cpp_paths.add(row["path"])
            if row["kind"] in ("function", "method"):
                caches.functions.setdefault(row["qualname"], []).append(row)
            if row["kind"] in _TYPES:
                caches.classes.setdefault(row["qualname"], []).append(row)
                if row["qualname"] not in caches.named.setdefault(row["name"], []):
                    caches.named[row["name"]].append(row["qualname"])
            elif row["kind"] == "namespace":
                caches.namespaces.add(row["name"])
            elif row["kind"] in _ALIASES and (aliased := _aliased(row["signature"] or "", row["name"])):
                caches.aliases[row["qualname"]] = aliased
                caches.named.setdefault(row["name"], []).append(row["qualname"])
            elif row["kind"] in _OTHER_TYPES:
                caches.types.add(row["name"])
        for row in rows:  # `void Value::swapPayload(...)` defined out of its class: a class, if the grammar misread it
            holder = row["qualname"].rpartition(".")[0]
            if row["kind"] == "method" and holder and holder.rpartition(".")[2] not in caches.namespaces:
                if holder not in caches.classes:
                    caches.classes[holder] = []
                    caches.named.setdefault(holder.rpartition(".")[2], []).append(holder)
        for row in rows:
            holder = row["qualname"].rpartition(".")[0]
            if holder in caches.classes and row["kind"] not in _TYPES:
                caches.members.setdefault(holder, set()).add(row["name"])
    return caches.classes


def enumerator_type(resolver: CallResolver, text: str) -> str | None:
    """The enum of ours an enumerator as written is of (`YAML::BeginMap`, `Color::Red`, `kFlag`), where one enum of
    that name declares it (its enumerators are kept as its fields, of its type)."""
    caches = resolver.cpp
    if caches.enumerators is None:
        caches.enumerators = {}
        rows = resolver.conn.execute(
            "SELECT f.name, s.name FROM fields f JOIN symbols s ON s.id = f.owner WHERE s.kind = 'enum'"
            " AND s.language = 'cpp'"
        )
        for enumerator, enum in rows:
            caches.enumerators.setdefault(enumerator, set()).add(enum)
    if not _PATH.fullmatch(text):
        return None
    scope, _, name = text.lstrip(":").rpartition("::")
    enums = caches.enumerators.get(name, set())
    named = enums & {scope.rpartition("::")[2]}  # `Color::Red`: the scoped enum's own
    found = named or enums
    return next(iter(found)) if len(found) == 1 else None
