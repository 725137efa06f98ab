"""Rust's calls through a standard trait, which the language makes without call syntax: `a == b` calls PartialEq's
`eq`, `format!("{}", v)` Display's `fmt`, a local going out of scope Drop's `drop` (indexer/parsing/rustimplicit.py
writes each as a call of the method qualified `<operand as Trait>`). Which of our implementations runs is the
operand's type's:
- a value the code declares a type (store/rusttypes.py: a parameter, a local, a field, `self`, a call's result)
  runs that type's implementation; where the type derives the trait (`#[derive(PartialEq)]`), or for Drop always,
  its fields' types' (`through a field`: Version's derived `eq` compares its `pre`, a Prerelease, whose derived
  `eq` compares its Identifier, whose `eq` is ours); a container or a reference (`Vec<Comparator>`, `&T`) its
  contents', for the traits the standard library implements so (_DELEGATED; not `xs[i]`, Vec's own Index). A
  type whose implementation is none of ours (`u64`, `String`) runs none;
- a value known by traits (`value: impl Display`, `T: Display`) each implementation of ours (`through an
  interface`), as a call of a trait's method on it does. Which one runs turns on what each caller hands in,
  which the call graph does not follow: semver's `assert_to_string(value: impl Display, ..)` reaches every fmt,
  and each of its 16 tests is listed for each (without this rule .809 / .733);
- a value of a type the index does not know: none. Each implementation of ours would be the guess, and on
  semver's tests (bench/facts_tests_rust.py, recall / precision of impact's tests) it cost more than it gave:
  none guessed .938 / .650; PartialEq, PartialOrd, Display and Debug guessed .947 / .598 (`i < vs.len()`,
  `write!(f, "{}", pos)` on a pattern's binding: each a call of every partial_cmp or fmt of ours).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .db import stored_list
from .gocalls import THROUGH_INTERFACE
from .rustcalls import RANK, argument_base, impl_trait, may_run, rust_basis, traits_of
from .rustnames import Site, imported_type, owner_type, path_qualifier, symbols_named
from .rusttypes import bound_traits, declared_type, literal_type, struct_named

if TYPE_CHECKING:
    import sqlite3

    from .resolver import CallResolver
    from .symbol import SymbolRow

    _Symbol = SymbolRow | sqlite3.Row

UNKNOWN = "_"  # an operand too long to keep: a value of a type not known
THROUGH_FIELD = "through a field"
TRAIT_CALL = re.compile(r"^<(?P<operand>.+) as (?P<trait>[A-Z]\w*)>$", re.S)
MAX_DEPTH = 4  # fields followed: Version's pre, a Prerelease; its identifier, an Identifier
# A derive whose method calls the same method of each field (`#[derive(PartialEq)]`'s `eq` compares the fields)
_THROUGH_FIELDS = frozenset({"PartialEq", "PartialOrd", "Ord", "Debug", "Hash", "Clone", "Default"})
# The traits whose implementation for a container or a reference runs its contents' (`Option<T>`'s `eq`, `&T`'s
# `fmt`, Vec's drop): not the operators' (`xs[i]` is Vec's Index, `*b` Box's Deref)
_DELEGATED = frozenset({"PartialEq", "PartialOrd", "Ord", "Debug", "Display", "Hash", "Clone", "Drop"})
_DERIVE = re.compile(r"#\[\s*derive\s*\((?P<names>[^)]*)\)")
_TYPE_WORD = re.compile(r"[A-Za-z_]\w*")
_NUMBER = re.compile(r"^-?\d|^(?:true|false)$")  # `Ord::cmp(&0, &n)`: the standard library's
_OWN = frozenset({"self", "*self", "Self"})
_RANK = {**RANK, THROUGH_FIELD: 0}


def trait_qualifier(operand: str, trait: str) -> str:
    """How a call through a trait is qualified: `<self.pre as Display>`."""
    return f"<{operand} as {trait}>"


def rust_call_basis(
    resolver: CallResolver,
    path: str,
    caller: str | None,
    qualifier: str | None,
    symbol: _Symbol,
    imports_it: bool,
    arguments: str | None = None,
) -> str | None:
    """The basis of any Rust call by the symbol's name (rustcalls.rust_basis, or a call through a standard trait);
    `arguments` as the calls projection keeps them (a JSON list: the type of the call's one argument)."""
    written = path_qualifier(qualifier)[0]  # `<T as Default>::default()` is written as one
    found = TRAIT_CALL.match(written) if written else None
    if found is None:
        return rust_basis(resolver, path, caller, qualifier, symbol, imports_it, _argument(arguments))
    site = Site(path, caller, found["operand"], imports_it, _argument(arguments))
    return _trait_call(resolver, site, found["trait"], symbol)


def rust_callee(
    resolver: CallResolver,
    path: str,
    caller: str | None,
    name: str,
    qualifier: str | None,
    arguments: str | None = None,
) -> tuple[str | None, str]:
    """What a call in the Rust file `path` (made in `caller`) calls: of the Rust symbols of that name, the one with
    the best basis (None, `unresolved` where none may be it)."""
    imported = {imp["target"] for imp in resolver.imports_of(path)}
    best: tuple[int, str, str] | None = None
    for row in symbols_named(resolver, name):
        basis = rust_call_basis(resolver, path, caller, qualifier, row, row["path"] in imported, arguments)
        if basis is not None and (best is None or _RANK.get(basis, 3) < best[0]):
            best = (_RANK.get(basis, 3), row["id"], basis)
    return (best[1], best[2]) if best is not None else (None, "unresolved")


def _argument(arguments: str | None) -> str | None:
    """The one argument's type of a call's stored `arguments` (indexer/parsing/rustfields.argument_type)."""
    given = stored_list(arguments)
    return given[0] if len(given) == 1 and isinstance(given[0], str) else None


def _trait_call(resolver: CallResolver, site: Site, trait: str, symbol: _Symbol) -> str | None:
    """`<operand as Trait>::method`: the symbol where it is the method of an implementation of that trait the
    operand's value may run."""
    if symbol["id"] not in resolver.rust.implementing:  # asked of the symbol at each of its name's sites
        found = owner_type(symbol)
        resolver.rust.implementing[symbol["id"]] = (found, impl_trait(resolver, symbol)) if found else None
    implementing = resolver.rust.implementing[symbol["id"]]
    if implementing is None or implementing[1] != trait:
        return None
    owner = implementing[0]
    key = (site.path, site.caller, site.qualifier, trait)
    if key not in resolver.rust.trait_sites:  # a name's every implementation asks of the same site
        resolver.rust.trait_sites[key] = _runs(resolver, site, trait)
    own, through_fields, any_implementation = resolver.rust.trait_sites[key]
    if owner in own:
        taken = argument_base(resolver, site)  # `a == b` turns on b's type: `eq(&self, other: &Rhs)` takes &b
        runs = may_run(resolver, symbol, trait, f"&{taken}" if taken is not None else None)
        return None if symbol["id"] not in runs else "method" if len(runs) == 1 else "name only"
    if owner in through_fields:
        return THROUGH_FIELD
    return THROUGH_INTERFACE if any_implementation else None


def _runs(resolver: CallResolver, site: Site, trait: str) -> tuple[frozenset[str], frozenset[str], bool]:
    """Whose implementations of the trait a call through it at this site runs: the types whose own does, those
    whose does through a field, and whether each of ours may (a value known by the trait)."""
    operand = site.qualifier or UNKNOWN
    nothing: tuple[frozenset[str], frozenset[str], bool] = (frozenset(), frozenset(), False)
    if operand in _OWN:  # `write!(f, "{}", self)`: the calling method's own type
        operand_type = owner_type(resolver.symbol(site.caller))
        written = operand_type
    elif operand == UNKNOWN:
        return nothing
    elif (literal := literal_type(operand)) is not None or _NUMBER.match(operand):
        return (frozenset({literal}) if literal else frozenset(), frozenset(), False)  # `"%"`'s Display is str's
    else:
        written, operand_type = declared_type(resolver, site)
    if written is not None and operand_type is not None:
        if trait not in _DELEGATED:  # the value's own type's: `*r` of a `&Prerelease` is no Prerelease's deref
            own = written.lstrip()[:1] != "&" and written.partition("<")[0].strip() == operand_type
            name = imported_type(resolver, site.path, operand_type.rpartition("::")[2])
            return (frozenset({name}) if own else frozenset(), frozenset(), False)
        running = _running(resolver, site.path, written, trait, MAX_DEPTH)
        words = set(_TYPE_WORD.findall(written))
        return (frozenset(running & words), frozenset(running - words), False)
    traits = bound_traits(resolver, site.caller, written) if written and site.caller else []
    return (frozenset(), frozenset(), trait in traits)


def _running(resolver: CallResolver, path: str, written: str, trait: str, depth: int) -> set[str]:
    """The types whose own implementation of the trait a value of the type `written` runs: its own, or where it
    derives the trait (or it is Drop), its fields' types'; for a container, `Vec<Comparator>`, its elements'."""
    key = (path, written, trait)
    if key not in resolver.rust.running:
        resolver.rust.running[key] = set()  # a type holding itself (`Box<Node>`) ends here
        found: set[str] = set()
        for word in set(_TYPE_WORD.findall(written)):
            name = imported_type(resolver, path, word)
            if trait in traits_of(resolver, name):
                found.add(name)
            elif depth > 0 and (trait == "Drop" or trait in _THROUGH_FIELDS and trait in _derived(resolver, name)):
                struct = struct_named(resolver, path, name)
                row = resolver.symbol(struct)
                for field_type in resolver.typed_members(struct).values() if struct is not None else ():
                    found |= _running(resolver, row["path"] if row is not None else path, field_type, trait, depth - 1)
        resolver.rust.running[key] = found
    return resolver.rust.running[key]


def _derived(resolver: CallResolver, type_name: str) -> set[str]:
    """The traits a type of that name derives (`#[derive(Clone, PartialEq)]`), by its definitions' attributes."""
    found: set[str] = set()
    for row in symbols_named(resolver, type_name):
        if row["kind"] in ("struct", "enum", "union"):
            for attribute in _DERIVE.finditer(row["decorators"] or ""):
                found.update(name.strip().rpartition("::")[2] for name in attribute["names"].split(","))
    return found
