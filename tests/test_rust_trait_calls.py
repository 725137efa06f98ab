"""Rust's calls through the standard traits (indexer/parsing/rustimplicit.py, store/rusttraits.py): `a == b` runs
PartialEq's `eq`, `format!("{}", v)` Display's `fmt`, a local going out of scope Drop's `drop`.

Without them no call reached semver's `impl Display for Version`, its `impl PartialEq for Identifier` or its Drop,
and `impact` said no test reaches them, though most of its tests do.
"""

from __future__ import annotations

from pathlib import Path

from codeannals.indexer.parsing.extract import extract
from codeannals.store import queries

from .conftest import Repo, caller_bases, indexed_crate

LIB = """pub mod ident;

use ident::Ident;
use std::fmt;

#[derive(Clone, PartialEq, PartialOrd)]
pub struct Version {
    pub major: u64,
    pub pre: Ident,
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}-{}", self.major, self.pre)
    }
}

impl fmt::Debug for Version {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

pub struct Meters(pub u64);

impl std::ops::Add for Meters {
    type Output = Meters;
    fn add(self, rhs: Meters) -> Meters { Meters(self.0 + rhs.0) }
}

pub fn version(text: &str) -> Version { Version { major: 1, pre: Ident::new(text) } }

pub fn same(a: &Version, b: &Version) -> bool { a == b }

pub fn older(a: &Version, b: &Version) -> bool { a < b }

pub fn label(v: &Version) -> String { v.to_string() }

pub fn debugged(v: &Version) -> String { format!("{:?}", v.pre) }

pub fn shown(value: impl fmt::Display) -> String { value.to_string() }

pub fn counts(n: u64, m: u64) -> bool { n == m && n < m }

pub fn total(a: Meters, b: Meters) -> Meters { a + b }

pub fn made() -> u64 {
    let v = version("1");
    v.major
}
"""
IDENT = """use std::cmp::Ordering;
use std::fmt::{self, Debug, Display};

pub struct Ident(String);

impl Ident {
    pub fn new(text: &str) -> Ident { Ident(text.to_string()) }
}

impl PartialEq for Ident {
    fn eq(&self, other: &Ident) -> bool { self.0 == other.0 }
}

impl PartialOrd for Ident {
    fn partial_cmp(&self, other: &Ident) -> Option<Ordering> { self.0.partial_cmp(&other.0) }
}

impl Display for Ident {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { f.write_str(&self.0) }
}

impl Debug for Ident {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { write!(f, "Ident({})", self) }
}

impl Drop for Ident {
    fn drop(&mut self) {}
}
"""
TESTS = """use geo::{same, version};

#[test]
fn compares() {
    assert!(same(&version("1"), &version("1")));
}

#[test]
fn prints() {
    assert_eq!(version("1").to_string(), "1-1");
}
"""


def test_operators_and_formatting_call_the_implementation_of_the_operand_s_type(repo: Repo, db_path: Path) -> None:
    """Each implicit call reaches the implementation the operand's declared type runs: its own (`method`), its
    fields' where it derives the trait (`through a field`), each one for a value known by the trait alone; a
    value of a type none of ours implements for (`u64`) reaches none."""
    repo.write("src/lib.rs", LIB)
    repo.write("src/ident.rs", IDENT)
    repo.write("tests/versions.rs", TESTS)
    with indexed_crate(repo, db_path, "geo") as conn:
        # Version derives PartialEq and PartialOrd: they compare its `pre`, an Ident; `n == m` on u64s is no call
        assert caller_bases(conn, "src/ident.rs::Ident.eq") == {"src/lib.rs::same": "through a field"}
        assert caller_bases(conn, "src/ident.rs::Ident.partial_cmp") == {"src/lib.rs::older": "through a field"}
        # Display's fmt of Version for `v.to_string()` and for Debug's `fmt::Display::fmt(self, f)`; each Display of
        # ours for a value known only as `impl Display`
        assert caller_bases(conn, "src/lib.rs::Version.fmt") == {
            "src/lib.rs::label": "method",
            "tests/versions.rs::prints": "method",  # `version("1").to_string()`: what version returns
            "src/lib.rs::Version.fmt#2": "method",
            "src/lib.rs::shown": "through an interface",
        }
        # Ident's Display for Version's `{}` of self.pre and Debug's `{}` of self; its Debug for `{:?}` alone
        assert caller_bases(conn, "src/ident.rs::Ident.fmt") == {
            "src/lib.rs::Version.fmt": "method",
            "src/ident.rs::Ident.fmt#2": "method",
            "src/lib.rs::shown": "through an interface",
        }
        assert caller_bases(conn, "src/ident.rs::Ident.fmt#2") == {"src/lib.rs::debugged": "method"}
        assert caller_bases(conn, "src/lib.rs::Meters.add") == {"src/lib.rs::total": "method"}
        # `let v = version("1")`: a Version, whose drop drops its Ident
        assert caller_bases(conn, "src/ident.rs::Ident.drop") == {"src/lib.rs::made": "through a field"}
        assert queries.impact(conn, "src/ident.rs::Ident.eq")["tests"] == ["tests/versions.rs::compares"]
        assert queries.impact(conn, "src/lib.rs::Version.fmt")["tests"] == ["tests/versions.rs::prints"]


def test_a_formatting_macro_calls_display_or_debug_of_each_value_it_shows() -> None:
    """`{}` shows a value by Display, `{:?}` by Debug, `{:x}` by neither of them; by position, index, name or the
    variable named; a literal is the standard library's to show, and so is a comparison with one."""
    source = b"""fn f(a: A, b: B, c: C, v: V, n: N) {
    println!("{} {:?} {:x} {v} {1:?} {w}", a, b, c, w = n);
    let x = "1.0.0".parse::<Version>();
    assert_eq!(a, "text");
    assert_eq!(a, b);
    if n == 0 { let _ = -a + b[0]; }
}
"""
    calls = {(c["name"], c["qualifier"]) for c in extract("src/f.rs", source, "rust").calls}
    assert {(name, q) for name, q in calls if q and q.startswith("<")} == {
        ("fmt", "<a as Display>"),
        ("fmt", "<b as Debug>"),
        ("fmt", "<v as Display>"),
        ("fmt", "<n as Display>"),
        ("eq", "<a as PartialEq>"),  # `assert_eq!(a, b)`: not with a literal
        ("neg", "<a as Neg>"),
        ("add", "<-a as Add>"),
        ("index", "<b as Index>"),
        ("drop", "<a as Drop>"),  # the parameters it takes the values of
        ("drop", "<b as Drop>"),
        ("drop", "<c as Drop>"),
        ("drop", "<v as Drop>"),
        ("drop", "<n as Drop>"),
    }
    assert ("from_str", "Version") in calls  # `parse::<Version>()` calls Version::from_str
