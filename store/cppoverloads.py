"""Which of a C++ name's overloads a call runs: the one its arguments fit, by their number and their types.

`SetAttribute(name, value)` is not the overload taking three arguments; `valueToString(value_.int_)` is the one
taking a LargestInt, not a double or a bool; `icmp.Compare(a, b)` on two InternalKeys is not the one comparing
Slices. A call keeps its arguments as written (indexer/parsing/cppfields.py), and each is typed as the compiler
would where the code says: a literal, a name the calling function or its class declares (store/cppcalls.py reads
those), a member of it, a method's result, a cast. The overloads are ranked as C++ ranks them, roughly: the exact
type first, then a promotion (`bool` to `int`, `float` to `double`), then a standard conversion (`int` to `long`, a
derived class to its base, a pointer to `bool`), then a conversion a class may define (`"text"` to std::string);
some are impossible (a number to a pointer). An argument whose type the code does not say here fits every
overload alike, and where overloads still tie, each of them may be the one.
An operator is called by an expression (`out << node`, `a == b`): a member operator on its left operand, as a method
on the value it is called on; a free one (`YAML::operator<<(Emitter&, const Node&)`) with every operand as an
argument, and only where one of them is of a class or an enum of ours that it takes (`i + 1` and `os << "text"` call
none of ours, whatever the files include).
Measured against the calls g++ compiles (bench/facts_calls_cpp.py).
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

from .cppcalls import (
    AS_BEFORE,
    CAST,
    PRIMITIVE,
    QUALIFIERS,
    ancestors,
    calling_context,
    class_of,
    cpp_basis,
    element_type,
    enumerator_type,
    field_of,
    read_symbols,
    receiver_class,
    receiver_steps,
    result_type,
    visible,
)
from .cprototypes import GOOGLETEST
from .db import stored_list

if TYPE_CHECKING:
    from .cppcalls import _Symbol
    from .resolver import CallResolver

# An argument's type as a declaration keeps it (indexer/parsing/cppfields.py): without the declarator's `*` or `[]`, so
# a pointer or not
DECLARED = "~"
ZERO = "0"
CLASS = "class:"  # a class of ours, by its qualified name
OTHER = "other:"  # a type the index holds nothing of (another library's, a macro's), by its name
_OPERATOR = re.compile(r"operator\s*(?:\(\)|\[\]|[^\w\s(]+)")  # `operator<<`, `operator[]`: not a conversion
ALIAS_DEPTH = 4  # `typedef Int64 LargestInt; typedef int64_t Int64;`: aliases followed to what they stand for
EXACT, PROMOTION, CONVERSION, DEFINED = 3.0, 2.0, 1.0, 0.5  # how well an argument fits a parameter
TIED = 3  # overloads the operands fit alike, above which an operator's call of any one of them is a guess
TEMPORARY = "&&"  # a parameter taking a temporary only (a move): a named value never binds to it...
TEMPORARY_FIT = 0.25  # ... and a temporary binds to it before a `const T&` (a copy)
_NUMBERS = PRIMITIVE - {"void", "auto"}  # the words of a number's type (`unsigned long`, `int64_t`, `double`)
_PROMOTED = frozenset({("bool", "int"), ("char", "int"), ("short", "int"), ("float", "double")})
_SYNONYMS = {"unsigned": "unsigned int", "signed": "int", "signed int": "int", "long int": "long", "short int": "short"}
_NUMBER = re.compile(
    r"[-+]?(?:0[xX][0-9a-fA-F']+|0[bB][01']+|(?P<real>[0-9][0-9']*\.[0-9']*(?:[eE][-+]?[0-9]+)?|\.[0-9]+(?:[eE][-+]?[0-9]+)?"
    r"|[0-9]+[eE][-+]?[0-9]+)|[0-9][0-9']*)(?P<suffix>[uUlLfF]*)"
)
_STRING = re.compile(r'(?:u8|[uUL])?R?"')
_CHARACTER = re.compile(r"(?:u8|[uUL])?'")
# `LargestInt(value)`, `std::string(x)`, `Slice{p, n}`: a value of a type made there (or a function's result: no type)
_MADE = re.compile(r"(?P<type>(?:::)?[A-Za-z_][\w:]*(?:<.*>)?)\s*(?:\(.*\)|\{.*\})", re.S)


def cpp_call_basis(
    resolver: CallResolver,
    path: str,
    caller: str | None,
    qualifier: str | None,
    symbol: _Symbol,
    arguments: str | None,
) -> str | None:
    """cppcalls.cpp_basis, and of a name's overloads the ones the call's arguments (as the calls projection keeps them:
    a JSON list of their texts, None where not counted) fit best: None for another overload."""
    if GOOGLETEST.match(symbol["signature"] or ""):
        return None  # `TEST(MockTest, AsStdFunction)`: a test googletest runs, which no code calls
    given = _given(arguments)
    if qualifier is not None and _OPERATOR.fullmatch(symbol["name"]):
        if class_of(resolver, symbol) is None:
            return _free_operator_basis(resolver, path, caller, symbol, [qualifier, *(given or ())], given is not None)
        if _pointer(resolver, path, caller, qualifier):
            return None  # `_begin == _end` of two `xpath_node*`: pointers compared, no operator called
    basis = cpp_basis(resolver, path, caller, qualifier, symbol)
    if basis not in (None, "name only") and symbol["name"] == "operator[]":
        basis = "name only" if _indexes_array(resolver, path, caller, given) else basis
    if basis is None or given is None:
        return basis
    overloads = _overloads(resolver, symbol["qualname"])
    own = overloads.get(symbol["id"])
    if own is None:
        return basis  # its parameters unread: it may take any
    fitting = _taking(overloads, len(given))
    if symbol["id"] not in fitting:
        return None if fitting else basis  # no overload takes that many: a macro's call, or a misread
    signatures = {overloads[i][2] for i in fitting}
    if len(signatures) < 2:
        return basis
    return _chosen(_best(resolver, path, caller, symbol, given, signatures), symbol, own[2], basis)


def _chosen(best: set[tuple[str, ...]], symbol: _Symbol, own: tuple[str, ...], basis: str) -> str | None:
    """The basis of a call of the overload taking `own` when its arguments fit the `best` signatures: `basis` where
    this one is among them, None where not; for an operator, a guess where more than TIED overloads fit alike (`out
    << x`, with an `operator<<` for every type and an `x` the code does not type). A call of another name stays one
    of each overload that fits alike: guessing there too (facts_calls_cpp, recall on a followed basis / precision)
    cost the hold-out tinyxml2, whose SetAttribute takes each type, 0.923 / 0.957 -> 0.902 / 0.958, and moved the
    hold-out yaml-cpp 0.948 / 0.992 -> 0.946 / 0.999."""
    if own not in best:
        return None
    return "name only" if len(best) > TIED and _OPERATOR.fullmatch(symbol["name"]) else basis


def _taking(overloads: dict[str, tuple[int, int | None, tuple[str, ...]]], count: int) -> list[str]:
    """The overloads (_overloads) taking that many arguments."""
    return [i for i, (least, most, _) in overloads.items() if least <= count and (most is None or count <= most)]


def _typed_where_called(resolver: CallResolver, path: str, caller: str | None, texts: list[str]) -> list[str | None]:
    """The types of arguments as written (_argument_type), read where the call is made."""
    context, own = calling_context(resolver, caller)
    return [_argument_type(resolver, path, caller, own, text, context) for text in texts]


def _pointer(resolver: CallResolver, path: str, caller: str | None, text: str) -> bool:
    """Whether a value as written is declared a pointer (`xpath_node* _begin`, a field or a local)."""
    context, own = calling_context(resolver, caller)
    written = _value_type(resolver, path, caller, own, text, context)
    return written is not None and written[2] and written[0].rstrip().endswith("*")


def _indexes_array(resolver: CallResolver, path: str, caller: str | None, given: list[str] | None) -> bool:
    """Whether `v[i]` may index an array rather than call operator[]: the index is a number, or of a type the code does
    not say, and the value may be an array (a declaration's `[]` is not kept); `node["key"]` calls operator[]."""
    if not given:
        return True
    index = _typed_where_called(resolver, path, caller, given[:1])[0]
    return index is None or index == ZERO or _arithmetic(index.removeprefix(DECLARED))


def _free_operator_basis(
    resolver: CallResolver, path: str, caller: str | None, symbol: _Symbol, operands: list[str], counted: bool
) -> str | None:
    """The basis of an operator expression (`out << node`: its operands `out` and `node`, all of them where `counted`)
    calling a free operator, where its operands fit this overload best and one of them is a class or an enum of ours
    it takes as such: the compiler looks for it beside that class (`leveldb::operator==` of two leveldb::Slices,
    whichever header brings it), else by the includes (AS_BEFORE: C's rules); a guess where the code says none of
    the operands' types."""
    overloads = _overloads(resolver, symbol["qualname"])
    own = overloads.get(symbol["id"])
    if own is None:
        return "name only"  # its parameters unread
    fitting = _taking(overloads, len(operands)) if counted else list(overloads)
    if symbol["id"] not in fitting:
        return None
    typed = _typed_where_called(resolver, path, caller, operands)
    if all(t is None for t in typed):
        return "name only"
    holder = symbol["qualname"].rpartition(".")[0]
    takes = [_canonical(resolver, written, holder) for written in own[2]]
    fits = [_fit(resolver, t, p) for t, p in zip(typed, takes, strict=False)]
    if any(f is None for f in fits):
        return None
    ours = [  # an operand of a class (or enum) of ours, taken as that class or a base of it (not a pointer to one)
        t is not None
        and p is not None
        and not _pointer(resolver, path, caller, text)
        and t.removeprefix(DECLARED).startswith((CLASS, "enum:"))
        and p.startswith((CLASS, "enum:"))
        and (f or 0.0) >= CONVERSION
        for t, p, f, text in zip(typed, takes, fits, operands, strict=False)
    ]
    if not any(ours):
        return "name only" if None in typed else None
    beside = {  # the namespaces of the operands' classes, and "" for an enum (its namespace is not kept)
        t.removeprefix(DECLARED).removeprefix(CLASS).rstrip("*").rpartition(".")[0] if CLASS in t else ""
        for t, mine in zip(typed, ours, strict=False)
        if t is not None and mine
    }
    basis = "same file" if path == symbol["path"] else "imported name"
    if holder not in beside and "" not in beside:
        basis = AS_BEFORE
    signatures = {overloads[i][2] for i in fitting}
    if len(signatures) < 2:
        return basis
    return _chosen(_best(resolver, path, caller, symbol, operands, signatures), symbol, own[2], basis)


def _given(arguments: str | None) -> list[str] | None:
    if not isinstance(arguments, str) or not arguments.startswith("["):
        return None  # calls indexed before their arguments were kept
    found = json.loads(arguments)
    return [str(a) for a in found] if isinstance(found, list) else None


def _overloads(resolver: CallResolver, qualname: str) -> dict[str, tuple[int, int | None, tuple[str, ...]]]:
    """The functions of a qualified name (a declaration and its definition are two): the arguments each takes, at
    least and at most (None: any number), and its parameters' types (_shape). A default is written in the
    declaration only (`void Put(Slice k, bool sync = false);` in the header, `void Put(Slice k, bool sync) {` in the
    .cc: one function, taking one argument or two)."""
    read_symbols(resolver)
    caches = resolver.cpp
    if qualname not in caches.overloads:
        read = {row["id"]: _parameters(row["params"]) for row in caches.functions.get(qualname, [])}
        taken = caches.overloads[qualname] = {}
        for function_id, found in read.items():
            if found is None:
                continue
            least, most, types = found
            declared = [low for low, high, written in filter(None, read.values()) if high == most and written == types]
            taken[function_id] = (min([least, *declared]), most, types)
    return caches.overloads[qualname]


def _parameters(params: str | None) -> tuple[int, int | None, tuple[str, ...]] | None:
    if params is None:
        return None
    written = [str(p).strip() for p in stored_list(params)]
    if written in ([], ["void"]):
        return 0, 0, ()
    variadic = any("..." in p for p in written)
    least = sum(1 for p in written if "=" not in p and "..." not in p)
    types = tuple(_shape(_parameter_type(p)) for p in written if "..." not in p)
    return least, None if variadic else len(written), types


def _shape(written: str) -> str:
    """A parameter's type as a declaration and its definition may each write it (`const std::string& s` and
    `std::string const &s`, `const Node&` and `const detail::Node&`): its words, unqualified, its pointers, and
    whether it takes a temporary only (`Status&&`)."""
    plain = re.sub(r"<.*>", "<>", written)
    words = [w.rpartition("::")[2] for w in re.findall(r"[\w:]+", plain) if not QUALIFIERS.fullmatch(w)]
    shape = " ".join(words) + ("<>" if "<" in plain else "") + "*" * plain.count("*")
    return shape + TEMPORARY if plain.rstrip().endswith(TEMPORARY) else shape


def _parameter_type(parameter: str) -> str:
    """A parameter's type as written, without its name and default: `const char* name = 0` is `const char*`."""
    text = parameter.partition("=")[0].strip()
    array = re.search(r"\s*\[[^\]]*\]$", text)  # `char buf[]`: a pointer
    if array is not None:
        return _parameter_type(text[: array.start()]) + "*"
    words = re.findall(r"[A-Za-z_]\w*", text)
    last = re.search(r"([A-Za-z_]\w*)\s*\*?$", text)
    types = [w for w in words[:-1] if not QUALIFIERS.fullmatch(w)]
    if last is not None and text.endswith(last.group(1)) and types and last.group(1) not in PRIMITIVE:
        return text[: last.start(1)].strip()  # `int value`: the name goes; `unsigned int`, `const Slice`: none
    return text


def _best(
    resolver: CallResolver,
    path: str,
    caller: str | None,
    symbol: _Symbol,
    given: list[str],
    signatures: set[tuple[str, ...]],
) -> set[tuple[str, ...]]:
    """The signatures the arguments fit best (every one where no argument's type is known), read once per caller,
    name and arguments."""
    key = (caller or path, symbol["qualname"], tuple(given))
    if key not in resolver.cpp.fitting:
        typed = _typed_where_called(resolver, path, caller, given)
        holder = symbol["qualname"].rpartition(".")[0]
        resolver.cpp.fitting[key] = _fitting_best(resolver, typed, given, signatures, holder)
    return resolver.cpp.fitting[key]


def _fitting_best(
    resolver: CallResolver,
    typed: list[str | None],
    given: list[str],
    signatures: set[tuple[str, ...]],
    holder: str,
) -> set[tuple[str, ...]]:
    """The signatures arguments of these types (as written: `given`) fit best, their names seen from `holder`."""
    if all(t is None for t in typed) and not any(TEMPORARY in written for s in signatures for written in s):
        return signatures
    scores: dict[tuple[str, ...], float] = {}
    for signature in signatures:
        score = 0.0
        for argument, written, text in zip(typed, signature, given, strict=False):
            fit = _fit(resolver, argument, _canonical(resolver, written, holder))
            if fit is not None and written.endswith(TEMPORARY):
                # `s = Status::OK()` moves, `s = other` copies; `v = 1.5` makes a Value to move
                temporary = True if fit == DEFINED else _temporary(text)
                fit = None if temporary is False else fit + TEMPORARY_FIT if temporary else fit
            if fit is None:
                break
            score += fit
        else:
            scores[signature] = score
    if not scores:
        return signatures  # none fits as typed: the typing is wrong somewhere, so say nothing
    best = max(scores.values())
    return {signature for signature, score in scores.items() if score == best}


def _temporary(text: str) -> bool | None:
    """Whether an argument as written is a temporary (a call's result, `std::move(x)`), which a `T&&` takes before a
    `const T&`, or a named value (`other`, `a.b`, `p->c`, `v[i]`), which only a `const T&` takes; None where unsure."""
    text = text.strip()
    if re.match(r"(?:std::)?(?:move|forward)\b", text) or text.endswith(")"):
        return True
    return False if receiver_steps(text) else None


def _fit(resolver: CallResolver, argument: str | None, parameter: str | None) -> float | None:
    """How well an argument of this type fits a parameter of that one (both _canonical); None where it cannot."""
    if argument is None or parameter is None:
        return 0.0
    if argument.startswith(DECLARED):  # `const char* p` is kept as `char`: a char, or a pointer to one
        plain = argument[len(DECLARED) :]
        fits = [f for f in (_fit(resolver, plain, parameter), _fit(resolver, plain + "*", parameter)) if f is not None]
        return max(fits) if fits else None
    if argument == ZERO:  # `0` is an int, and a null pointer too
        fits = [f for f in (_fit(resolver, "int", parameter), _fit(resolver, "nullptr", parameter)) if f is not None]
        return max(fits) if fits else None
    if argument == parameter:
        return EXACT
    pointer, takes_pointer = argument.endswith("*"), parameter.endswith("*")
    number, takes_number = _arithmetic(argument), _arithmetic(parameter)
    if argument == "nullptr":
        return PROMOTION if takes_pointer else CONVERSION if parameter == "bool" else None if takes_number else DEFINED
    if OTHER in argument or OTHER in parameter:  # a type the index cannot see (`typedef PUGIXML_CHAR char_t;`) may be
        # the other one, and is never ruled out; but the same name is surer
        return PROMOTION if argument.count("*") == parameter.count("*") else DEFINED
    if parameter.startswith("enum:"):
        return None  # nothing converts to an enum of its own
    if number and takes_number:
        return PROMOTION if (argument, parameter) in _PROMOTED or argument.startswith("enum:") else CONVERSION
    if pointer and parameter == "bool":
        return CONVERSION
    if pointer and takes_pointer:
        if parameter == "void*":
            return CONVERSION
        base, derived = parameter[:-1], argument[:-1]
        if _derives(resolver, derived, base):
            return CONVERSION
        return None
    if (
        number
        and (takes_pointer or parameter == "string")
        or pointer
        and takes_number
        or argument == "string"
        and takes_pointer
    ):
        return None
    if _derives(resolver, argument, parameter):
        return CONVERSION
    return DEFINED  # a class's constructor or conversion may make one of the other


def _derives(resolver: CallResolver, derived: str, base: str) -> bool:
    """Whether one class of ours (_canonical) derives from the other."""
    if not derived.startswith(CLASS) or not base.startswith(CLASS):
        return False
    return base.removeprefix(CLASS) in ancestors(resolver, derived.removeprefix(CLASS))


def _arithmetic(canonical: str) -> bool:
    words = canonical.split()
    return canonical.startswith("enum:") or bool(words) and all(w in _NUMBERS for w in words)


def _canonical(resolver: CallResolver, written: str, context: str, depth: int = ALIAS_DEPTH) -> str | None:
    """A type as written, as it is compared: no qualifiers or references, aliases of ours followed, `class:` and the
    qualified name for a class of ours, `enum:` and the name for an enum, `string` for std::string, `*` kept (`const
    char*` is `char*`); None for a type the code does not say (a template's parameter, another template)."""
    text = QUALIFIERS.sub(" ", written).replace("&", " ").strip()
    stars = ""
    while text.endswith("*"):
        stars, text = stars + "*", text[:-1].strip()
    text = re.sub(r"\s*::\s*", "::", " ".join(text.split())).lstrip(":")
    text = text.removeprefix("std::")
    if text in ("string", "basic_string<char>") or text.startswith("basic_string<char,"):
        return "string" + stars
    if "<" in text:
        return None
    words = text.split()
    if words and all(w in PRIMITIVE for w in words):
        return _SYNONYMS.get(text, text) + stars
    if not re.fullmatch(r"[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*", text) or len(text) == 1:
        return None
    found = visible(resolver, text, context)
    if found is not None and found in resolver.cpp.aliases:
        if depth == 0:
            return None
        aliased = _canonical(resolver, resolver.cpp.aliases[found], found.rpartition(".")[0], depth - 1)
        return aliased + stars if aliased is not None else None
    if found is not None:
        return f"{CLASS}{found}{stars}"
    if text.rpartition("::")[2] in resolver.cpp.types:
        return f"enum:{text.rpartition('::')[2]}{stars}"
    return f"{OTHER}{text}{stars}"


def _argument_type(
    resolver: CallResolver, path: str, caller: str | None, own: str | None, text: str, context: str
) -> str | None:
    """The type of an argument as written (_canonical), where the code says it; None where not."""
    text = text.strip()
    if not text:
        return None
    if _STRING.match(text):
        return "char*"
    if _CHARACTER.match(text):
        return "char"
    if text in ("true", "false"):
        return "bool"
    if text in ("nullptr", "NULL"):
        return "nullptr"
    if text == "0":
        return ZERO
    if text == "this":
        return f"{CLASS}{own}*" if own is not None else None
    number = _NUMBER.fullmatch(text)
    if number is not None:
        return _number_type(number)
    cast = CAST.fullmatch(text)
    if cast is not None:
        return _canonical(resolver, cast["type"], context)
    if text.startswith(("&", "*")):  # `&x`, `*x`: a pointer more or less, where the type is known with its pointers
        inner = _argument_type(resolver, path, caller, own, text[1:], context)
        if inner is None or inner.startswith(DECLARED):
            return inner
        if text.startswith("&"):
            return inner + "*"
        return inner[:-1] if inner.endswith("*") else None
    made = _MADE.fullmatch(text)
    if made is not None:
        made_type = _canonical(resolver, made["type"], context)
        return made_type if made_type is not None and not made_type.startswith(OTHER) else None
    written = _value_type(resolver, path, caller, own, text, context)
    if written is None:
        enum = enumerator_type(resolver, text)
        return f"enum:{enum}" if enum is not None else None
    declared, where, declarator = written
    typed = _canonical(resolver, declared, where)
    return DECLARED + typed.rstrip("*") if typed is not None and declarator else typed


def _number_type(number: re.Match[str]) -> str:
    suffix = number["suffix"].lower()
    if number["real"] is not None or "f" in suffix and not number.group(0).lower().startswith(("0x", "-0x", "+0x")):
        return "float" if "f" in suffix else "double"
    size = "long long" if "ll" in suffix else "long" if "l" in suffix else "int"
    return f"unsigned {size}" if "u" in suffix else size


def _value_type(
    resolver: CallResolver, path: str, caller: str | None, own: str | None, text: str, context: str
) -> tuple[str, str, bool] | None:
    """The type a value is declared as, where (for the names in it), and whether a declaration says it (its
    declarator's pointers not kept) or a method's result: a parameter or local of the calling function, a member of
    its class, a member of a value of a class of ours, or what a method of one returns (`a`, `this->a`, `a.b`,
    `a->f()`, `a[i]`)."""
    steps = receiver_steps(text)
    if not steps:
        return None
    *before, last = steps
    if before and not (len(before) == 1 and before[0]["name"] == "this" and not before[0]["call"]):
        holder = receiver_class(resolver, path, caller, own, ".".join(step.group(0) for step in before))
        if not holder:  # None, or NOT_OURS
            return None
        first = False
    else:
        holder, first = own, not before
    name = last["name"]
    if last["call"]:
        result = result_type(resolver, holder, name) if holder is not None and not last["element"] else None
        return (*result, False) if result is not None else None
    declared = resolver.typed_members(caller).get(name) if first and caller is not None else None
    written = (declared, context) if declared is not None else None
    if written is None and holder is not None:
        written = field_of(resolver, holder, name)
    if written is not None and last["element"]:
        element = element_type(resolver, written[0], written[1], last["element"])
        written = (element, written[1]) if element is not None else None
    return (*written, True) if written is not None else None
