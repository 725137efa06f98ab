"""Rust calls by what qualifies them (store/rustcalls.py): a type's, a module's, the calling method's own type's.

Without these rules `Decoder::new()` was a call of every `new` in the file, `Vec::new()` of every `new` in the
files it imports, and `self.len()` of Square's `len` in any file the caller's file declared as a module: hyper's
`impact Conn::new` listed 293 callers, of which 2 by a resolved basis, both wrong.
"""

from __future__ import annotations

from pathlib import Path

from codeannals.store import queries
from codeannals.store.callgraph import callees
from codeannals.store.rustcfg import builds

from .conftest import Repo, caller_bases, indexed_crate

LIB = """pub mod h1;
pub mod h2;
pub mod proto;
pub mod server;
pub mod shape;

pub struct Point { x: f64 }

impl Point {
    pub fn new(x: f64) -> Self {
        Self::check(x);
        Point { x }
    }
    fn check(x: f64) {}
    pub fn norm(&self) -> f64 { self.len() }
    fn len(&self) -> f64 { self.x }
}

pub struct Decoder;

impl Decoder {
    pub fn new() -> Self { Decoder }
}

pub fn make() -> Point { Point::new(1.0) }

pub fn parts() -> (Decoder, Vec<u8>) { (Decoder::new(), Vec::new()) }

pub fn total(p: &Point) -> f64 { shape::area(p) }

pub struct Canvas { frame: shape::Frame }

impl Canvas {
    pub fn inner(&self) -> f64 { self.frame.edge.len() }
}

pub fn edge_len() -> f64 { shape::Frame::make().edge().len() }

pub fn first_len(f: &shape::Frame) -> Option<f64> { Some(f.first()?.len()) }
"""
SHAPE = """use crate::Point;

pub struct Square;

impl Square {
    fn len(&self) -> f64 { 1.0 }
    pub fn check(x: f64) {}
}

pub fn area(p: &Point) -> f64 { p.norm() + Point::new(2.0).norm() }

pub fn side(s: &Square) -> f64 { s.len() }

pub fn shared(p: std::sync::Arc<Point>) -> f64 { p.norm() }

pub fn fresh() -> f64 {
    let p = Point::new(3.0);
    p.norm()
}

pub struct Frame { edge: Square }

impl Frame {
    pub fn width(&self) -> f64 { self.edge.len() }
    pub fn make() -> Self { Frame { edge: Square } }
    pub fn edge(&self) -> &Square { &self.edge }
    pub fn first(&self) -> Option<&Square> { Some(&self.edge) }
}

pub trait Area {
    fn size(&self) -> f64;
}

impl Area for Square {
    fn size(&self) -> f64 { 1.0 }
}

pub struct Disk;

impl Disk {
    pub fn size(&self) -> f64 { 3.14 }
}

pub fn measure<S>(s: &S) -> f64 where S: Area + Send { s.size() }

pub fn measure_any(s: Box<dyn Area>) -> f64 { s.size() }

impl Area for &'static str {
    fn size(&self) -> f64 { 0.0 }
}

pub fn label() -> f64 { "edge".len() as f64 + "edge".size() }
"""
SENDER = """pub struct Sender;

impl Sender {
    pub fn send(&self) {}
    pub fn flush(&self) { self.send() }
}
"""


def test_a_rust_call_is_of_the_type_module_or_own_type_its_qualifier_names(repo: Repo, db_path: Path) -> None:
    repo.write("src/lib.rs", LIB)
    repo.write("src/shape.rs", SHAPE)
    repo.write("src/h1.rs", SENDER)  # two types of one name: each file's `self.send()` is its own Sender's
    repo.write("src/h2.rs", SENDER)
    repo.write("src/proto/mod.rs", "mod conn;\npub use self::conn::Conn;\n")
    repo.write("src/proto/conn.rs", "pub struct Conn;\n\nimpl Conn {\n    pub fn open() -> Conn { Conn }\n}\n")
    repo.write(
        "src/server.rs",
        "use crate::proto;\nuse crate::proto::Conn as Link;\n\npub fn serve() {\n    proto::Conn::open();\n}\n\n"
        "pub fn relink() {\n    Link::open();\n}\n\npub struct Conn;\n",  # a Conn of its own beside
    )
    with indexed_crate(repo, db_path, "geo") as conn:
        assert caller_bases(conn, "src/lib.rs::Point.check") == {"src/lib.rs::Point.new": "same file"}
        assert caller_bases(conn, "src/shape.rs::Square.check") == {}  # `Self::check` in Point is Point's
        assert caller_bases(conn, "src/lib.rs::Point.len") == {"src/lib.rs::Point.norm": "same file"}
        # `s: &Square` says whose `len` `s.len()` is, and so does Frame's field `edge: Square`; `p: Arc<Point>`
        # hands Point's methods on, and `let p = Point::new(3.0)` is a Point
        assert caller_bases(conn, "src/shape.rs::Square.len") == {
            "src/shape.rs::side": "same file",
            "src/shape.rs::Frame.width": "same file",
            "src/lib.rs::Canvas.inner": "imported name",  # `self.frame.edge`: Canvas's frame's edge, a Square
            "src/lib.rs::edge_len": "imported name",  # `Frame::make()` is a Frame (`-> Self`), `.edge()` a Square
            "src/lib.rs::first_len": "imported name",  # `f.first()?`: the Square out of `Option<&Square>`
        }
        assert caller_bases(conn, "src/lib.rs::Point.norm") == {
            "src/shape.rs::area": "imported name",
            "src/shape.rs::shared": "imported name",
            "src/shape.rs::fresh": "imported name",
        }
        # `Decoder::new()` and `Vec::new()` beside it call no Point::new
        assert caller_bases(conn, "src/lib.rs::Point.new") == {
            "src/lib.rs::make": "same file",
            "src/shape.rs::area": "imported name",
            "src/shape.rs::fresh": "imported name",
        }
        assert caller_bases(conn, "src/lib.rs::Decoder.new") == {"src/lib.rs::parts": "same file"}
        assert caller_bases(conn, "src/shape.rs::area") == {"src/lib.rs::total": "imported name"}
        assert caller_bases(conn, "src/h2.rs::Sender.send") == {"src/h2.rs::Sender.flush": "same file"}
        # `proto::Conn` is the Conn proto/mod.rs re-exports from conn.rs
        # a value known by a trait it implements calls the trait's method, which each implementation may run;
        # never Disk's own `size`
        bounded = {"src/shape.rs::measure": "method", "src/shape.rs::measure_any": "method"}
        assert caller_bases(conn, "src/shape.rs::Area.size") == bounded
        assert caller_bases(conn, "src/shape.rs::Square.size") == dict.fromkeys(bounded, "through an interface")
        assert caller_bases(conn, "src/shape.rs::Disk.size") == {}
        # a literal's method is its type's: `"edge".len()` is str's, none of ours; `"edge".size()` is Area's for str
        assert caller_bases(conn, "src/shape.rs::str.size") == {
            **dict.fromkeys(bounded, "through an interface"),
            "src/shape.rs::label": "same file",
        }
        # ...and `Link` the Conn the file imports as Link, whatever Conn of its own the file has
        assert caller_bases(conn, "src/proto/conn.rs::Conn.open") == {
            "src/server.rs::serve": "imported name",
            "src/server.rs::relink": "imported name",
        }
        new = queries.find_symbol(conn, "src/lib.rs::Point.new")
        assert [(c["name"], c["target"]) for c in callees(conn, new)] == [("check", "src/lib.rs::Point.check")]
        reached = {s["id"] for s in queries.impact(conn, "src/lib.rs::Point.check")["symbols"]}
        assert reached == {
            "src/lib.rs::Point.new",
            "src/lib.rs::make",
            "src/shape.rs::area",
            "src/shape.rs::fresh",
            "src/lib.rs::total",
        }


KINDS = """pub trait Open {
    fn open() -> Self;
    fn reopen(&self) {}
}

pub struct Conn;

impl Open for Conn {
    fn open() -> Self { Conn }
}

impl Default for Conn {
    fn default() -> Self { Conn }
}

pub type Link = Conn;

pub struct Pipe;

impl Pipe {
    pub fn open() -> Pipe { Pipe }
}
"""
USES = """use crate::kinds::{Conn, Link, Open, Pipe};

pub fn fresh() -> Conn { Default::default() }

pub fn linked() -> Conn { Link::open() }

pub fn again(c: &Conn) { Conn::reopen(c) }

pub fn again_by_value(c: Conn) { c.reopen() }

pub fn again_boxed(c: &mut Pin<Box<Box<dyn Open>>>) { c.reopen() }

pub fn piped() -> Pipe { Pipe::open() }
"""


def test_a_rust_call_qualified_by_a_trait_an_alias_or_an_implementor_reaches_the_method(
    repo: Repo, db_path: Path
) -> None:
    """A call's qualifier names another type than the method's, yet may run it: the trait it implements
    (`Default::default()`), an alias of it (`Link::open()` of `type Link = Conn`), or, for a trait's provided
    method, a type implementing the trait (`Conn::reopen(c)`, `c.reopen()` with `c: Conn`). The call graph reads
    a name's sites by the type their qualifier names (callgraph._of_other_types); these must stay read."""
    repo.write("src/lib.rs", "pub mod kinds;\npub mod uses;\n")
    repo.write("src/kinds.rs", KINDS)
    repo.write("src/uses.rs", USES)
    with indexed_crate(repo, db_path, "net") as conn:
        assert caller_bases(conn, "src/kinds.rs::Conn.default") == {"src/uses.rs::fresh": "name only"}
        assert caller_bases(conn, "src/kinds.rs::Conn.open") == {"src/uses.rs::linked": "name only"}
        assert caller_bases(conn, "src/kinds.rs::Open.reopen") == {
            "src/uses.rs::again": "method",
            "src/uses.rs::again_by_value": "method",
            "src/uses.rs::again_boxed": "method",  # every wrapper taken off, outermost first
        }
        assert caller_bases(conn, "src/kinds.rs::Pipe.open") == {"src/uses.rs::piped": "imported name"}


def test_a_method_implemented_in_another_file_for_the_calling_file_s_own_type_is_called(
    repo: Repo, db_path: Path
) -> None:
    """semver's lib.rs defines Version and calls `Version::from_str(text)`; parse.rs, after `use crate::Version;`,
    implements FromStr for it. A file's own type of the name was taken to rule out every other file's method, so
    nothing called from_str and none of semver's tests reached its parser. A file with a Version of its own still
    implements for that one, not the caller's."""
    repo.write(
        "src/lib.rs",
        "mod other;\nmod parse;\n\nuse core::str::FromStr;\n\npub struct Version;\n\n"
        "impl Version {\n    pub fn parse(text: &str) -> Result<Self, ()> {\n"
        "        Version::from_str(text)\n    }\n}\n",
    )
    repo.write(
        "src/parse.rs",
        "use crate::Version;\nuse core::str::FromStr;\n\nimpl FromStr for Version {\n    type Err = ();\n"
        "    fn from_str(text: &str) -> Result<Self, ()> {\n        Ok(Version)\n    }\n}\n",
    )
    repo.write(
        "src/other.rs",
        "use core::str::FromStr;\n\npub struct Version;\n\nimpl FromStr for Version {\n    type Err = ();\n"
        "    fn from_str(text: &str) -> Result<Self, ()> {\n        Ok(Version)\n    }\n}\n",
    )
    with indexed_crate(repo, db_path, "semver") as conn:
        assert caller_bases(conn, "src/parse.rs::Version.from_str") == {"src/lib.rs::Version.parse": "imported name"}
        assert caller_bases(conn, "src/other.rs::Version.from_str") == {}


ERRORS = """pub enum ParseError {
    Incomplete,
    Io(String),
    TooLarge { size: usize },
}

impl ParseError {
    pub fn describe(&self) -> &str { "parse" }
}

pub struct Other;

impl Other {
    pub fn describe(&self) -> &str { "other" }
}

pub trait Responder {
    fn status(&self) -> u16 { 500 }
    fn respond(&self) -> u16 { self.status() }
}

impl Responder for ParseError {
    fn status(&self) -> u16 { 400 }
}

impl Responder for Other {}

pub fn incomplete() -> &'static str { ParseError::Incomplete.describe() }

pub fn io(text: String) -> &'static str { ParseError::Io(text).describe() }

pub fn too_large() -> &'static str { ParseError::TooLarge { size: 1 }.describe() }

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn responds_400() {
        assert_eq!(ParseError::Incomplete.respond(), 400);
    }
}
"""


def test_an_enum_variant_is_a_value_of_the_enum_and_a_provided_method_runs_each_override(
    repo: Repo, db_path: Path
) -> None:
    """actix-web's `UrlencodedError::UnknownLength.error_response()`: a method called on an enum's variant (unit,
    tuple or struct) is the enum's, never another type's of that name; the trait's provided `error_response` calls
    `self.status_code()`, which the trait provides too and UrlencodedError overrides, so each implementation's
    runs. Impact said no test reached UrlencodedError's status_code, its own unit test calling it so."""
    repo.write("src/lib.rs", "pub mod errors;\n")
    repo.write("src/errors.rs", ERRORS)
    with indexed_crate(repo, db_path, "web") as conn:
        variants = {"src/errors.rs::incomplete", "src/errors.rs::io", "src/errors.rs::too_large"}
        assert set(caller_bases(conn, "src/errors.rs::ParseError.describe")) == variants
        assert caller_bases(conn, "src/errors.rs::Other.describe") == {}
        assert caller_bases(conn, "src/errors.rs::Responder.respond") == {"src/errors.rs::tests.responds_400": "method"}
        assert caller_bases(conn, "src/errors.rs::ParseError.status") == {
            "src/errors.rs::Responder.respond": "through an interface"
        }
        assert queries.impact(conn, "src/errors.rs::ParseError.status")["tests"] == [
            "src/errors.rs::tests::responds_400"
        ]


ROUTER = """pub struct Router;

pub struct RouterBuilder;

pub struct Builder;

macro_rules! ok {
    () => {
        pub fn Ok() -> Builder { Builder }
    };
}

impl Router {
    pub fn build() -> RouterBuilder { RouterBuilder }
    pub fn finish(&self) {}
    ok!();
}

impl RouterBuilder {
    pub fn finish(self) -> Router { Router }
}

impl Builder {
    pub fn append(&mut self) {}
}

pub fn routes() {
    let router = Router::build();
    let router = router.finish();
}

pub fn respond() {
    let mut res = Router::Ok();
    res.append();
}
"""


def test_a_local_bound_to_a_type_s_function_is_what_the_function_returns(repo: Repo, db_path: Path) -> None:
    """actix-router's tests: `let mut router = Router::<usize>::build();` binds a RouterBuilder, which build returns,
    not a Router; `router.finish()` was taken for Router's, and no test reached RouterBuilder's finish. Where the
    index does not have the function (a macro writes actix-web's `HttpResponse::Ok()`), the value's type is not
    known, and a call on it stays the guess it was rather than nobody's."""
    repo.write("src/lib.rs", "pub mod router;\n")
    repo.write("src/router.rs", ROUTER)
    with indexed_crate(repo, db_path, "router") as conn:
        assert caller_bases(conn, "src/router.rs::RouterBuilder.finish") == {"src/router.rs::routes": "same file"}
        assert caller_bases(conn, "src/router.rs::Router.finish") == {}
        assert set(caller_bases(conn, "src/router.rs::Builder.append")) == {"src/router.rs::respond"}


INCOMING = """use crate::watch;
use futures_channel::mpsc;

pub struct Incoming;

impl Incoming {
    pub fn channel() -> Incoming {
        Self::new_channel(0)
    }

    pub fn new_channel(want: usize) -> Incoming {
        let rx = watch::channel(want);
        Incoming
    }

    pub fn pair() {
        let (tx, rx) = mpsc::channel(0);
    }

    pub fn run() {
        tokio::spawn(0);
    }

    pub fn close_all(all: Vec<watch::Receiver>) {
        all.into_iter().for_each(|rx| rx.close());
    }

    pub fn watch_all(watch: &watch::Receiver) {
        watch.channel();
    }
}
"""
WATCH = """pub struct Receiver;

impl Receiver {
    pub fn channel(&self) {}

    pub fn spawn(&self) {}
}

pub fn channel(want: usize) -> Receiver { Receiver }

pub fn close() {}
"""


def test_a_module_the_file_imports_qualifies_its_function_in_callers_and_callees_alike(
    repo: Repo, db_path: Path
) -> None:
    """hyper's `Incoming::new_channel` calls `watch::channel(want)` after `use crate::common::watch;`. The callers of
    watch.rs's function had it and Incoming's own `channel` did not, but the callees answer said Incoming's (the same
    file's method): each answer now reads a module the file imports the same way. A module of others' the file brings
    in (`use futures_channel::mpsc;`) calls no method of ours either, and a value no function. Until the index kept
    the `::` of a path (`watch::`, not `watch`), `watch::channel(want)` and `watch.channel()` were stored alike, and
    which one a call was had to be guessed from the names in scope."""
    repo.write("src/lib.rs", "pub mod body;\npub mod watch;\n\nuse tokio::runtime;\n")
    repo.write("src/body.rs", INCOMING)
    repo.write("src/watch.rs", WATCH)
    with indexed_crate(repo, db_path, "body") as conn:
        assert caller_bases(conn, "src/watch.rs::channel") == {
            "src/body.rs::Incoming.new_channel": "imported name",
            "src/body.rs::Incoming.pair": "name only",  # mpsc, another's, might re-export a function of ours
        }
        # nor is `mpsc::channel(0)`, after `use futures_channel::mpsc;`, any method of ours
        assert caller_bases(conn, "src/body.rs::Incoming.channel") == {}
        made = queries.find_symbol(conn, "src/body.rs::Incoming.new_channel")
        assert [(c["name"], c["target"]) for c in callees(conn, made)] == [("channel", "src/watch.rs::channel")]
        # `watch: &watch::Receiver`, a parameter named as the module: its method, not the module's function; and
        # `watch::channel(want)` no method at all
        assert caller_bases(conn, "src/watch.rs::Receiver.channel") == {
            "src/body.rs::Incoming.watch_all": "imported name"
        }
        # `tokio::spawn(0)`: a crate of others' (a `use` of the project starts with it), whose function no method is
        assert caller_bases(conn, "src/watch.rs::Receiver.spawn") == {}
        # `rx.close()` on a closure's parameter: a value's method, so no function is its call
        assert caller_bases(conn, "src/watch.rs::close") == {}
        watching = queries.find_symbol(conn, "src/body.rs::Incoming.watch_all")
        assert [(c["name"], c["target"]) for c in callees(conn, watching)] == [
            ("channel", "src/watch.rs::Receiver.channel")
        ]


def test_a_module_of_ours_qualifies_a_call_only_where_the_file_can_name_it(repo: Repo, db_path: Path) -> None:
    """tokio has a module `loom` (tokio/src/loom/) and uses the crate loom, and tokio-util's tests call
    `loom::model(...)`, the crate's: a one-word qualifier naming a module of ours is that module only where the
    calling file brings it in or declares it, or glob-imports a file declaring it (`use crate::fs::mocks::*;` and
    mocks.rs's inline `mod pool`, whose `pool::run_one()` tokio's file tests call). Elsewhere the word is a value or
    another's crate, and no function of ours is its call."""
    repo.write("src/lib.rs", "pub mod loom;\npub mod mocks;\npub mod tests;\n\nuse loom::sync::Arc;\n")
    repo.write("src/loom.rs", "pub fn model() {}\n")
    repo.write("src/mocks.rs", "pub mod pool {\n    pub fn run_one() {}\n}\n")
    repo.write(
        "src/tests.rs",
        "use crate::mocks::*;\n\npub fn checks() {\n    loom::model();\n    pool::run_one();\n}\n",
    )
    with indexed_crate(repo, db_path, "rt") as conn:
        assert caller_bases(conn, "src/loom.rs::model") == {}
        assert set(caller_bases(conn, "src/mocks.rs::pool.run_one")) == {"src/tests.rs::checks"}


def test_a_crate_of_the_workspace_named_in_a_path_qualifies_no_method(repo: Repo, db_path: Path) -> None:
    """actix-web-actors' tests call `actix_test::start(...)`, the function of the workspace's crate actix-test, with no
    `use` of it: it was read as a value, and WsResponseBuilder's method `start` taken for the call."""
    repo.write("helper-kit/src/lib.rs", "pub fn start() {}\n")
    repo.write("src/lib.rs", "pub struct Builder;\n\nimpl Builder {\n    pub fn start(self) {}\n}\n")
    repo.write("tests/run.rs", "use rt::Builder;\n\nfn runs() {\n    helper_kit::start();\n}\n")
    with indexed_crate(repo, db_path, "rt") as conn:
        assert caller_bases(conn, "src/lib.rs::Builder.start") == {}


def test_a_path_and_a_value_of_one_name_call_what_their_syntax_says(repo: Repo, db_path: Path) -> None:
    """`file::seek(0)` calls the module file's function and `file.seek()` a value's method, even where a local and a
    module share the name: the index keeps a path's `::` (the qualifier `file::`), where it used to store both as
    `file` and guess which one a call was from the names in scope. tokio's `runtime.block_on(f)` beside its module
    runtime was read as a path. `self::flush()` is the calling module's own function."""
    repo.write("src/lib.rs", "pub mod file;\npub mod reader;\n")
    repo.write("src/file.rs", "pub fn seek(at: u64) {}\n\npub fn flush() {}\n\nfn again() {\n    self::flush();\n}\n")
    repo.write(
        "src/reader.rs",
        "use crate::file;\n\npub struct Reader;\n\n"
        "impl Reader {\n    pub fn seek(&self) {}\n    pub fn flush(&self) {}\n}\n\n"
        "pub fn rewind(file: Reader) {\n    file::seek(0);\n}\n\npub fn skip(file: Reader) {\n    file.seek();\n}\n\n"
        "pub fn close() {\n    let file = open();\n    file.flush();\n}\n",
    )
    with indexed_crate(repo, db_path, "rt") as conn:
        assert set(caller_bases(conn, "src/file.rs::seek")) == {"src/reader.rs::rewind"}
        assert set(caller_bases(conn, "src/reader.rs::Reader.seek")) == {"src/reader.rs::skip"}
        assert caller_bases(conn, "src/file.rs::flush") == {"src/file.rs::again": "same file"}
        assert set(caller_bases(conn, "src/reader.rs::Reader.flush")) == {"src/reader.rs::close"}


def test_a_value_whose_type_derefs_calls_its_own_method_first(repo: Repo, db_path: Path) -> None:
    """semver's Prerelease derefs to str and has its own `is_empty`: `ver.pre.is_empty()` is Prerelease's (Rust looks
    a method up on the value's type before the type it derefs to), not BuildMetadata's beside it. rustc's IR said so
    (bench/facts_calls_rust.py); the index had given every `is_empty` of the crate as a guess, and named the first."""
    repo.write(
        "src/lib.rs",
        "use std::ops::Deref;\n\npub struct Prerelease;\npub struct BuildMetadata;\npub struct Version {\n"
        "    pub pre: Prerelease,\n}\n\nimpl Deref for Prerelease {\n    type Target = str;\n"
        '    fn deref(&self) -> &str {\n        ""\n    }\n}\n\n'
        "impl Prerelease {\n    pub fn is_empty(&self) -> bool {\n        true\n    }\n}\n\n"
        "impl BuildMetadata {\n    pub fn is_empty(&self) -> bool {\n        true\n    }\n}\n\n"
        "pub fn stable(ver: &Version) -> bool {\n    ver.pre.is_empty()\n}\n\n"
        "pub fn short(pre: &Prerelease) -> bool {\n    pre.len() < 3\n}\n",
    )
    with indexed_crate(repo, db_path, "semver") as conn:
        stable = queries.find_symbol(conn, "src/lib.rs::stable")
        assert [(c["target"], c["basis"]) for c in callees(conn, stable)] == [
            ("src/lib.rs::Prerelease.is_empty", "same file")
        ]
        assert caller_bases(conn, "src/lib.rs::BuildMetadata.is_empty") == {}


def test_a_method_a_type_has_twice_is_the_one_its_build_or_its_own_impl_says(repo: Repo, db_path: Path) -> None:
    """bytes has `Bytes::new` twice, under `#[cfg(not(all(loom, test)))]` and `#[cfg(all(loom, test))]`: an ordinary
    build has the first. Of a method a type has as its own and through a trait, the call is its own (Rust looks that
    up first). Of `impl From<String> for Bytes` and `impl From<Vec<u8>> for Bytes`, which `Bytes::from(v)` runs turns
    on v's type: the index had named the first, and rustc's IR said otherwise 74 times of bytes' 202 wrong callees;
    now the one whose parameter is of the type the argument is declared (a `Vec`), and where that is not known, each
    a guess. A method of a slice is the slice's, ours only by a trait of ours for `[u8]`."""
    repo.write(
        "src/lib.rs",
        "pub struct Bytes;\n\npub trait Buf {\n    fn len(&self) -> usize;\n    fn remaining(&self) -> usize;\n}\n\n"
        "impl Buf for Bytes {\n    fn len(&self) -> usize {\n        0\n    }\n\n"
        "    fn remaining(&self) -> usize {\n        0\n    }\n}\n\n"
        "impl Bytes {\n    #[cfg(all(loom, test))]\n    pub fn new() -> Self {\n        Bytes\n    }\n\n"
        "    #[cfg(not(all(loom, test)))]\n    pub const fn new() -> Self {\n        Bytes\n    }\n\n"
        "    pub fn len(&self) -> usize {\n        0\n    }\n}\n\n"
        "impl Buf for &[u8] {\n    fn len(&self) -> usize {\n        0\n    }\n\n"
        "    fn remaining(&self) -> usize {\n        0\n    }\n}\n\n"
        "impl From<String> for Bytes {\n    fn from(s: String) -> Bytes {\n        Bytes\n    }\n}\n\n"
        "impl From<Vec<u8>> for Bytes {\n    fn from(vec: Vec<u8>) -> Bytes {\n        Bytes\n    }\n}\n\n"
        "pub fn guess(x: Thing) {\n    Bytes::from(x.into());\n}\n\n"
        "pub fn make(v: Vec<u8>, slice: &[u8]) -> usize {\n    let b = Bytes::new();\n    let c = Bytes::from(v);\n"
        "    slice.remaining() + slice.is_empty() as usize + b.len()\n}\n",
    )
    with indexed_crate(repo, db_path, "bytes") as conn:
        make = queries.find_symbol(conn, "src/lib.rs::make")
        spelled = {"new", "from", "remaining", "is_empty", "len"}  # not `+`'s add, nor drop
        assert {c["name"]: (c["target"], c["basis"]) for c in callees(conn, make) if c["name"] in spelled} == {
            "new": ("src/lib.rs::Bytes.new#2", "same file"),
            "from": ("src/lib.rs::Bytes.from#2", "same file"),
            "remaining": ("src/lib.rs::[u8].remaining", "same file"),
            "is_empty": (None, "unresolved"),
            "len": ("src/lib.rs::Bytes.len#2", "same file"),
        }
        assert caller_bases(conn, "src/lib.rs::Bytes.new") == {}
        assert caller_bases(conn, "src/lib.rs::Bytes.len") == {}
        assert caller_bases(conn, "src/lib.rs::Bytes.from") == {"src/lib.rs::guess": "name only"}


def test_an_ordinary_build_has_no_cfg_of_a_project_s_own_and_a_target_s_is_not_known() -> None:
    assert builds(["#[inline]", "#[cfg(not(all(loom, test)))]"]) is True
    assert builds(["#[cfg(all(loom, test))]"]) is False
    assert builds('["#[cfg(miri)]"]') is False  # as the index stores a symbol's attributes
    assert builds(['#[cfg(feature = "std")]']) is None
    assert builds(['#[cfg(not(feature = "std"))]']) is None
    assert builds(["#[cfg(any(unix, loom))]"]) is None
    assert builds(["#[cfg(all(unix, loom))]"]) is False
    assert builds(["#[cfg_attr(docsrs, doc(cfg(x)))]"]) is True  # no cfg of the item's own
    assert builds(["#[cfg(all((a)))]"]) is None  # nor a loop on what the grammar does not read
    assert builds(["#[cfg(all(loom,,))]"]) is None


def test_a_value_of_a_type_not_known_calling_a_name_the_standard_library_has_is_a_guess(
    repo: Repo, db_path: Path
) -> None:
    """semver's `let (pre, rest) = prerelease_identifier(text)?; rest.is_empty()`: the index does not know rest's type
    (a &str), and gave Identifier's `is_empty` of the file it imports as the call. Where the standard library has a
    method of that name, a value of a type the index does not know may be of its types: ours is a guess there. A name
    it lacks (`parse_digits`) stays ours."""
    repo.write("src/lib.rs", "pub mod identifier;\npub mod parse;\n")
    repo.write(
        "src/identifier.rs",
        "pub struct Identifier;\n\nimpl Identifier {\n    pub fn is_empty(&self) -> bool {\n        true\n    }\n\n"
        "    pub fn parse_digits(&self) -> u64 {\n        0\n    }\n}\n",
    )
    repo.write(
        "src/parse.rs",
        "use crate::identifier::Identifier;\n\n"
        "fn split(text: &str) -> (Identifier, &str) {\n    (Identifier, text)\n}\n\n"
        "pub fn parse(text: &str) -> u64 {\n    let (id, rest) = split(text);\n    if rest.is_empty() {\n"
        "        return 0;\n    }\n    id.parse_digits()\n}\n",
    )
    with indexed_crate(repo, db_path, "semver") as conn:
        assert caller_bases(conn, "src/identifier.rs::Identifier.is_empty") == {"src/parse.rs::parse": "name only"}
        assert caller_bases(conn, "src/identifier.rs::Identifier.parse_digits") == {
            "src/parse.rs::parse": "imported name"
        }


def test_a_local_bound_twice_to_two_types_is_of_neither_and_one_type_however_its_functions_write_it(
    repo: Repo, db_path: Path
) -> None:
    """bytes' tests bind `let a = Bytes::from(x);` and then `let a = BytesMut::from(x);` in one function: the index
    keeps one type per name of a function, and took the last for `a.len()` at the first. Where each binding says
    another type, the name is of none; where a type's `from`s write their result `Self` and `BytesMut` alike, it is
    that type (the value's `split_off` is BytesMut's)."""
    repo.write(
        "src/lib.rs",
        "pub struct Bytes;\npub struct BytesMut;\n\n"
        "impl Bytes {\n    pub fn len(&self) -> usize {\n        0\n    }\n}\n\n"
        "impl BytesMut {\n    pub fn len(&self) -> usize {\n        0\n    }\n\n"
        "    pub fn split_off(&mut self, at: usize) -> BytesMut {\n        BytesMut\n    }\n}\n\n"
        "impl From<&str> for Bytes {\n    fn from(s: &str) -> Bytes {\n        Bytes\n    }\n}\n\n"
        "impl From<&str> for BytesMut {\n    fn from(s: &str) -> Self {\n        BytesMut\n    }\n}\n\n"
        "impl From<String> for BytesMut {\n    fn from(s: String) -> BytesMut {\n        BytesMut\n    }\n}\n\n"
        'pub fn lengths() -> usize {\n    let a = Bytes::from("x");\n    let n = a.len();\n'
        '    let a = BytesMut::from("x");\n    n + a.len()\n}\n\n'
        'pub fn split() -> BytesMut {\n    let mut b = BytesMut::from("xy");\n    b.split_off(1)\n}\n',
    )
    with indexed_crate(repo, db_path, "bytes") as conn:
        assert caller_bases(conn, "src/lib.rs::BytesMut.len") == {"src/lib.rs::lengths": "name only"}
        assert caller_bases(conn, "src/lib.rs::BytesMut.split_off") == {"src/lib.rs::split": "same file"}


def test_an_operator_of_a_type_with_two_impls_of_its_trait_is_a_guess(repo: Repo, db_path: Path) -> None:
    """`a == b` with `impl PartialEq<[u8]> for Bytes` beside `impl PartialEq<str> for Bytes`: which runs turns on b's
    type, a guess each where its syntax does not say it (`*s`), and the one taking it where it does (`v[..2]`, a
    slice); with one impl, that one."""
    repo.write(
        "src/lib.rs",
        "pub struct Bytes;\npub struct Other;\n\n"
        "impl PartialEq<[u8]> for Bytes {\n    fn eq(&self, other: &[u8]) -> bool {\n        true\n    }\n}\n\n"
        "impl PartialEq<str> for Bytes {\n    fn eq(&self, other: &str) -> bool {\n        true\n    }\n}\n\n"
        "impl PartialEq for Other {\n    fn eq(&self, other: &Other) -> bool {\n        true\n    }\n}\n\n"
        "pub fn same(a: Bytes, s: &str, o: Other, p: Other) -> bool {\n    a == *s && o == p\n}\n\n"
        "pub fn prefix(a: Bytes, v: &[u8]) -> bool {\n    a == v[..2]\n}\n",
    )
    with indexed_crate(repo, db_path, "bytes") as conn:
        assert caller_bases(conn, "src/lib.rs::Bytes.eq") == {
            "src/lib.rs::same": "name only",
            "src/lib.rs::prefix": "method",
        }
        assert caller_bases(conn, "src/lib.rs::Bytes.eq#2") == {"src/lib.rs::same": "name only"}
        assert caller_bases(conn, "src/lib.rs::Other.eq") == {"src/lib.rs::same": "method"}


def test_a_path_from_the_crate_or_the_module_above_names_its_file(repo: Repo, db_path: Path) -> None:
    """httparse's src/simd/avx2.rs calls `super::swar::match_uri_vectored(bytes)`, which names src/simd/swar.rs's
    function as surely as a `use` would, and src/simd/mod.rs has one of that name too: it was a guess for both. A
    type reached so (`crate::buf::BytesMut::with_capacity(n)`) is the one that file defines."""
    repo.write("src/lib.rs", "pub mod buf;\npub mod simd;\n")
    repo.write("src/buf.rs", "pub struct BytesMut;\n\nimpl BytesMut {\n    pub fn with_capacity(n: usize) {}\n}\n")
    repo.write("src/simd/mod.rs", "pub mod avx2;\npub mod swar;\n\npub fn match_uri_vectored(b: &[u8]) {}\n")
    repo.write("src/simd/swar.rs", "pub fn match_uri_vectored(b: &[u8]) {}\n")
    repo.write(
        "src/simd/avx2.rs",
        "pub fn run(b: &[u8]) {\n    super::swar::match_uri_vectored(b);\n"
        "    crate::buf::BytesMut::with_capacity(4);\n}\n",
    )
    with indexed_crate(repo, db_path, "httparse") as conn:
        assert caller_bases(conn, "src/simd/swar.rs::match_uri_vectored") == {"src/simd/avx2.rs::run": "imported name"}
        assert caller_bases(conn, "src/simd/mod.rs::match_uri_vectored") == {}
        assert caller_bases(conn, "src/buf.rs::BytesMut.with_capacity") == {"src/simd/avx2.rs::run": "imported name"}


def test_a_function_twice_under_two_cfgs_and_a_qualified_path_s_type(repo: Repo, db_path: Path) -> None:
    """bytes has `ptr_map` under `#[cfg(miri)]` and again under `#[cfg(not(miri))]`: an ordinary build has the second.
    `<[u8] as PartialOrd<[u8]>>::partial_cmp(a, b)` names the slice's method, never Bytes' of that name."""
    repo.write(
        "src/lib.rs",
        "pub struct Bytes;\n\nimpl PartialOrd for Bytes {\n"
        "    fn partial_cmp(&self, other: &Bytes) -> Option<Ordering> {\n        None\n    }\n}\n\n"
        "#[cfg(miri)]\nfn ptr_map(p: usize) -> usize {\n    p\n}\n\n"
        "#[cfg(not(miri))]\nfn ptr_map(p: usize) -> usize {\n    p\n}\n\n"
        "pub fn run(a: &[u8], b: &[u8]) -> usize {\n    <[u8] as PartialOrd<[u8]>>::partial_cmp(a, b);\n"
        "    ptr_map(1)\n}\n",
    )
    with indexed_crate(repo, db_path, "bytes") as conn:
        assert caller_bases(conn, "src/lib.rs::ptr_map#2") == {"src/lib.rs::run": "same file"}
        assert caller_bases(conn, "src/lib.rs::ptr_map") == {}
        assert caller_bases(conn, "src/lib.rs::Bytes.partial_cmp") == {}


def test_a_vec_macro_and_a_clone_type_the_argument_and_another_file_s_impl_of_an_imported_type_is_reached(
    repo: Repo, db_path: Path
) -> None:
    """bytes' tests: `let vec = vec![33u8; 1024]; let b1 = Bytes::from(vec.clone()); let b1m = BytesMut::from(b1);`.
    The local bound to `vec![..]` is a Vec and `vec.clone()` a value of its type, so `Bytes::from` is the impl taking
    a Vec (it had been each of Bytes' `from`s, a guess); and bytes.rs's `impl From<Bytes> for BytesMut` is BytesMut's,
    reached by the test crate's import of BytesMut (defined in bytes_mut.rs), not a guess by name."""
    repo.write(
        "src/lib.rs",
        "mod bytes;\nmod bytes_mut;\n\npub use crate::bytes::Bytes;\npub use crate::bytes_mut::BytesMut;\n",
    )
    repo.write(
        "src/bytes.rs",
        "use crate::BytesMut;\n\npub struct Bytes;\n\n"
        "impl From<Vec<u8>> for Bytes {\n    fn from(vec: Vec<u8>) -> Bytes {\n        Bytes\n    }\n}\n\n"
        "impl From<&'static str> for Bytes {\n    fn from(s: &'static str) -> Bytes {\n        Bytes\n    }\n}\n\n"
        "impl From<Bytes> for BytesMut {\n    fn from(bytes: Bytes) -> BytesMut {\n        BytesMut\n    }\n}\n",
    )
    repo.write(
        "src/bytes_mut.rs",
        "pub struct BytesMut;\n\n"
        "impl<'a> From<&'a str> for BytesMut {\n    fn from(s: &'a str) -> BytesMut {\n        BytesMut\n    }\n}\n",
    )
    repo.write(
        "tests/test_bytes.rs",
        "use bytes::{Bytes, BytesMut};\n\n#[test]\nfn from_bytes() {\n    let vec = vec![33u8; 1024];\n"
        "    let b1 = Bytes::from(vec.clone());\n    let b1m = BytesMut::from(b1);\n}\n",
    )
    with indexed_crate(repo, db_path, "bytes") as conn:
        test = queries.find_symbol(conn, "tests/test_bytes.rs::from_bytes")
        assert {(c["qualifier"], c["target"], c["basis"]) for c in callees(conn, test) if c["name"] == "from"} == {
            ("Bytes::", "src/bytes.rs::Bytes.from", "imported name"),
            ("BytesMut::", "src/bytes.rs::BytesMut.from", "imported name"),
        }
