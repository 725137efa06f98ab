"""Extraction for JavaScript, TypeScript, TSX, Go, Rust, Java, C, C++ and Ruby.

Each language has a realistic file in tests/fixtures/languages; its qualified names, kinds,
exported flags, docs, signatures, imports and calls are checked exactly, then its hashes: layout,
comments and trailing commas change nothing, a body edit changes the body hash only, and a
parameter edit changes the signature hash.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from codeannals.indexer.parsing.extract import FileFacts, extract, symbols_of
from codeannals.store.effects import direct_effects as side_effects

FIXTURES = Path(__file__).parent / "fixtures" / "languages"


def facts(name: str, lang: str, source: bytes | None = None) -> FileFacts:
    return extract(f"src/{name}", (FIXTURES / name).read_bytes() if source is None else source, lang)


def table(found: FileFacts) -> dict[str, dict[str, Any]]:
    return {s["qualname"]: s for s in found.symbols}


def kinds(found: FileFacts) -> dict[str, str]:
    return {s["qualname"]: s["kind"] for s in found.symbols}


def exported(found: FileFacts) -> set[str]:
    return {s["qualname"] for s in found.symbols if s["exported"]}


def imports(found: FileFacts) -> list[tuple[str, list[str], str]]:
    return [(i["module"], i["names"], i["kind"]) for i in found.imports]


def calls(found: FileFacts) -> set[tuple[str | None, str | None, str]]:
    return {(c["caller"].split("::")[1] if c["caller"] else None, c["qualifier"], c["name"]) for c in found.calls}


def test_javascript() -> None:
    found = facts("shapes.js", "javascript")
    assert kinds(found) == {
        "Shape": "class",
        "Shape.constructor": "method",
        "Shape.area": "method",
        "Shape.make": "method",
        "Shape.onClick": "method",
        "perimeter": "function",
        "internal": "function",
        "main": "function",
        "legacy": "function",
    }
    # `export class`, class members, `export const`, `export default`, CommonJS `module.exports.x =`.
    assert exported(found) == {
        "Shape",
        "Shape.constructor",
        "Shape.area",
        "Shape.make",
        "Shape.onClick",
        "perimeter",
        "main",
        "legacy",
    }
    symbols = table(found)
    assert found.module_doc == "Shapes and their areas."
    assert symbols["Shape"]["doc"] == "A shape with sides."
    assert symbols["Shape.area"]["doc"] == "The area, scaled."
    assert symbols["perimeter"]["doc"] == "Perimeter of a shape.\n@param shape the shape"
    assert symbols["perimeter"]["signature"] == "const perimeter = (shape, unit) =>"
    assert symbols["perimeter"]["params"] == ["shape", "unit"]
    assert (symbols["perimeter"]["start_line"], symbols["Shape"]["start_line"]) == (36, 10)
    assert symbols["Shape.area"]["parent"] == "src/shapes.js::Shape"
    assert imports(found) == [
        ("./util", ["helper", "PI"], "import"),
        ("../lib/log.js", ["*"], "import"),
        ("./square", ["square"], "reexport"),
        ("fs", [], "require"),
        ("./lazy", [], "dynamic"),
    ]
    assert {
        ("Shape.area", None, "helper"),
        ("Shape.onClick", "log", "info"),
        ("main", "fs", "writeFileSync"),
        ("Shape.make", None, "Shape"),
        ("legacy", None, "internal"),
    } <= calls(found)


def test_a_javascript_method_of_a_computed_name_is_a_method() -> None:
    """undici's `async [kDestroy] (err)` and `[Symbol.iterator] ()` are methods as written: a function defined in one
    was its class's method (`Client.callback`), and a change to one was a change to the whole class."""
    source = (
        b"class Client {\n  async [kDestroy] (err) {\n    const callback = () => err\n    return callback\n  }\n"
        b"  [Symbol.iterator] () { return this }\n}\nmodule.exports = Client\n"
    )
    assert kinds(facts("client.js", "javascript", source)) == {
        "Client": "class",
        "Client.[kDestroy]": "method",
        "Client.[kDestroy].callback": "function",
        "Client.[Symbol.iterator]": "method",
    }


def test_typescript() -> None:
    found = facts("api.ts", "typescript")
    assert kinds(found) == {
        "Entity": "interface",
        "Entity.describe": "method",
        "Id": "type",
        "Status": "enum",
        "Store": "namespace",
        "Store.VERSION": "const",
        "Store.open": "function",
        "Repository": "class",
        "Repository.constructor": "method",
        "Repository.find": "method",
        "Repository.save": "method",
        "Repository.key": "method",
        "byId": "function",
        "parse": "function",
    }
    # `protected` is not API; the overload signatures of `parse` give way to its implementation.
    assert exported(found) == set(kinds(found)) - {"Repository.key", "parse"}
    symbols = table(found)
    assert found.module_doc == "The public API of the store."
    assert symbols["Repository"]["signature"] == "abstract class Repository<T extends Entity<Id>> implements Disposable"
    assert symbols["Repository.find"]["returns"] == "Promise<T | undefined>"
    assert symbols["byId"]["signature"] == "const byId = <T extends Entity<Id>>(items: T[], id: Id): T | undefined =>"
    assert (symbols["byId"]["params"], symbols["byId"]["returns"]) == (["items: T[]", "id: Id"], "T | undefined")
    assert symbols["parse"]["signature"] == "function parse(text: string, strict = false): Row"
    assert [s["id"] for s in found.symbols if s["name"] == "parse"] == ["src/api.ts::parse"]
    assert symbols["Entity"]["doc"] == "Something with an id."
    assert imports(found) == [("@db/types", ["Row"], "import"), ("./db", ["connect"], "import"), ("fs", [], "require")]
    assert {("Repository.save", None, "connect"), ("parse", "JSON", "parse")} <= calls(found)


def test_typescript_object_type_members_on_lines_of_their_own_stay_apart() -> None:
    # typeorm writes no semicolons: its `{transaction?: "all" | "none" fake?: boolean}` read as if fake were a value.
    source = (
        b"export class Runner {\n"
        b"    async run(options?: {\n"
        b'        transaction?: "all" | "none"\n'
        b'        "content-type"?: string\n'
        b"        readonly fake: boolean\n"
        b"        retries: number,\n"
        b"    }): Promise<void> {}\n"
        b"}\n"
    )
    signature = table(facts("runner.ts", "typescript", source))["Runner.run"]["signature"]
    assert signature == (
        'async run(options?: {transaction?: "all" | "none"; "content-type"?: string; readonly fake: boolean; '
        "retries: number}): Promise<void>"
    )


def test_a_java_annotation_element_s_default_array_is_in_its_signature() -> None:
    # `String[] value() default {};` was served as `String[] value() default`: its braces are a value, not a block.
    source = (
        b"public @interface Marks {\n    String[] value() default {};\n"
        b"    Class<?>[] types() default { String.class };\n}\n"
    )
    symbols = table(facts("Marks.java", "java", source))
    assert symbols["Marks.value"]["signature"] == "String[] value() default {}"
    assert symbols["Marks.types"]["signature"] == "Class<?>[] types() default {String.class}"


def test_a_signature_too_long_ends_at_a_whole_parameter_and_says_it_goes_on() -> None:
    # httpx's Client.__init__ was cut where the limit fell, as if its parameters ended there.
    parameters = ", ".join(f"hook{n}: Callable[[Request, Response], None] | None = None" for n in range(12))
    source = f"def request(self, url: str, {parameters}) -> Response:\n    return send(url)\n".encode()
    signature = table(facts("client.py", "python", source))["request"]["signature"]
    assert signature.endswith("= None, …") and len(signature) < 500
    assert signature.count("Callable[[Request, Response], None]") == signature.count("hook")


def test_a_constant_s_or_type_alias_s_signature_has_its_value_whole_when_short_and_elided_when_long() -> None:
    # `X = {}`, `static final int[] SIZES = {1, 2};` were served `X =`, `... SIZES =`: a brace read as a block, and a
    # declaration on lines of its own cut at its first line (`type Kind =`, a C typedef's first parameter).
    python = (
        b'EMPTY = {}\nNAMES = {\n    "a": 1,  # the first\n    "b": 2,\n}\n'
        b"BIG = {\n" + b"".join(b'    "key%d": %d,\n' % (n, n) for n in range(20)) + b"}\n"
        b"CALL = make(\n" + b"".join(b"    argument_%d,\n" % n for n in range(20)) + b")\n"
        b'DOC = """A text\n' + b"more text " * 20 + b'"""\n'
    )
    symbols = table(facts("settings.py", "python", python))
    assert symbols["EMPTY"]["signature"] == "EMPTY = {}"
    assert symbols["NAMES"]["signature"] == 'NAMES = {"a": 1, "b": 2}'
    assert symbols["BIG"]["signature"] == "BIG = {…}"
    assert symbols["CALL"]["signature"] == "CALL = make(…)"
    assert symbols["DOC"]["signature"] == 'DOC = """A text'
    java = (
        b"public class Sizes {\n    static final int[] SIZES = {1, 2};\n"
        b"    static final Reader NONE = new Reader() {\n        public int read(char[] buffer, int offset, int n) {\n"
        b"            throw new UnsupportedOperationException();\n        }\n    };\n}\n"
    )
    symbols = table(facts("Sizes.java", "java", java))
    assert symbols["Sizes.SIZES"]["signature"] == "static final int[] SIZES = {1, 2}"
    assert symbols["Sizes.NONE"]["signature"] == "static final Reader NONE = new Reader() {…}"  # an anonymous class
    c = (
        b"typedef void (*uv_read_cb)(uv_stream_t* stream,\n                           ssize_t nread,\n"
        b"                           const uv_buf_t* buf,\n                           void* user_data_given);\n"
    )
    assert table(facts("uv.h", "c", c))["uv_read_cb"]["signature"] == "typedef void (*uv_read_cb)(…)"
    typescript = (
        b'export type Kind =\n    | "one"\n    | "two"\nexport type Handler<This, Return = This> =\n'
        + b"".join(b"    | ((this: This, event_%d: Event) => Return)\n" % n for n in range(5))
    )
    symbols = table(facts("kinds.ts", "typescript", typescript))
    assert symbols["Kind"]["signature"] == 'type Kind = | "one" | "two"'
    assert symbols["Handler"]["signature"] == "type Handler<This, Return = This> = …"


def test_tsx_components_and_jsx_references() -> None:
    found = facts("App.tsx", "tsx")
    assert kinds(found) == {"Props": "interface", "App": "function", "Footer": "function"}
    assert exported(found) == {"App", "Footer"}
    app = table(found)["App"]
    assert (app["doc"], app["returns"], app["params"]) == ("The main screen.", "JSX.Element", ["{ title }: Props"])
    assert imports(found) == [("react", ["default", "useState"], "import"), ("./components", ["Button"], "import")]
    assert {("App", None, "useState"), ("App", None, "Button")} <= calls(found)  # <Button/> uses the component
    assert ("App", None, "div") not in calls(found)  # an HTML element is no reference


def test_go() -> None:
    found = facts("store.go", "go")
    assert kinds(found) == {
        "MaxRows": "const",
        "defaultName": "const",
        "Version": "const",
        "ErrFull": "variable",
        "Store": "struct",
        "Row": "type",
        "Reader": "interface",
        "Reader.Get": "method",
        "New": "function",
        "Store.Get": "method",
        "Store.size": "method",
        "dump": "function",
    }
    assert exported(found) == {
        "MaxRows",
        "Version",
        "ErrFull",
        "Store",
        "Row",
        "Reader",
        "Reader.Get",
        "New",
        "Store.Get",
    }
    symbols = table(found)
    assert found.module_doc == "Package store keeps rows in memory."
    # A method belongs to its receiver's type, pointer or not.
    assert symbols["Store.Get"]["parent"] == symbols["Store.size"]["parent"] == "src/store.go::Store"
    assert symbols["Store.Get"]["signature"] == "func (s *Store) Get(id int) (Row, error)"
    assert (symbols["Store.Get"]["params"], symbols["Store.Get"]["returns"]) == (["id int"], "(Row, error)")
    # A struct's signature shows its fields: their types type the calls on them (`s.rows`).
    assert (symbols["Store"]["signature"], symbols["Store"]["doc"]) == (
        "type Store struct {rows []Row; name string}",
        "Store holds rows.",
    )
    assert symbols["MaxRows"]["doc"] == "MaxRows bounds a table."
    # A spec of a grouped declaration reads as one on its own line: with its keyword.
    assert (symbols["MaxRows"]["signature"], symbols["Version"]["signature"]) == (
        "const MaxRows = 1000",
        "const Version = 2",
    )
    assert imports(found) == [
        ("fmt", [], "import"),
        ("os", [], "import"),
        ("example.com/app/internal/codec", [], "import"),
        ("example.com/app/pkg/util", [], "import"),
    ]
    assert {("New", "util", "Clean"), ("dump", "os", "WriteFile"), ("Store.Get", "fmt", "Errorf")} <= calls(found)


def test_rust() -> None:
    found = facts("lib.rs", "rust")
    assert kinds(found) == {
        "shapes": "module",
        "shapes.unit": "function",
        "Point": "struct",
        "Area": "trait",
        "Area.area": "method",
        "Area.describe": "method",
        "Shape": "enum",
        "ORIGIN": "const",
        "COUNTER": "variable",
        "square": "macro",
        "impl Point": "impl",
        "Point.new": "method",
        "Point.norm": "method",
        "impl Area for Point": "impl",
        "Point.area": "method",
        "helper": "function",
    }
    # `pub`, trait items, trait impls and #[macro_export]; not a private fn, static or method.
    assert exported(found) == set(kinds(found)) - {"COUNTER", "Point.norm"}
    symbols = table(found)
    assert found.module_doc == "Geometry for the crate."
    assert symbols["Point"]["doc"] == "A point on the plane."  # the doc comment above #[derive(...)]
    assert symbols["Point.new"]["doc"] == "Make a point."
    assert symbols["Point.new"]["parent"] == "src/lib.rs::impl Point"
    assert symbols["Point.area"]["parent"] == "src/lib.rs::impl Area for Point"
    assert (symbols["Point.new"]["signature"], symbols["Point.new"]["returns"]) == (
        "pub fn new(x: f64, y: f64) -> Self",
        "Self",
    )
    assert imports(found) == [  # one per name, as Python's `from m import a, b`
        ("std::collections", ["HashMap"], "use"),
        ("std::collections", ["HashSet"], "use"),
        ("crate", ["units"], "use"),
        ("crate::units", ["Meters"], "use"),
        ("super", ["*"], "use"),
        ("units", [], "mod"),
    ]
    assert [i.get("alias") for i in found.imports] == [None, "Set", None, None, None, None]  # `HashSet as Set`
    assert {
        ("Point.area", "HashMap::", "new"),  # a path keeps its `::`: no value HashMap
        ("Point.area", "units::", "to_meters"),
        ("Point.area", "self", "norm"),
        ("helper", None, "println"),
    } <= calls(found)


def test_rust_doc_comments_of_several_lines() -> None:
    # Each `///` line is a comment node holding its newline: the next one starts where it ends (ripgrep's docs
    # were cut to nothing but their one-line ones).
    source = (
        b"/// Controls when to use memory maps.\n///\n/// By default, memory maps are disabled.\n"
        b"#[derive(Clone, Debug)]\npub struct MmapChoice;\n\nimpl MmapChoice {\n"
        b"    /// Use memory maps when they help.\n    ///\n    /// # Safety\n"
        b"    ///\n    /// The file must not change.\n"
        b"    pub unsafe fn auto() -> MmapChoice {\n        MmapChoice\n    }\n}\n"
    )
    symbols = table(facts("mmap.rs", "rust", source))
    assert symbols["MmapChoice"]["doc"] == "Controls when to use memory maps.\nBy default, memory maps are disabled."
    assert symbols["MmapChoice.auto"]["doc"] == "Use memory maps when they help.\n# Safety\nThe file must not change."


def test_the_first_definition_of_a_body_keeps_its_doc_and_ruby_s_may_stand_a_blank_line_below_it() -> None:
    # tree-sitter puts the comments before a Ruby module's first statement beside its body, not in it: each of rack's
    # classes (`module Rack` / `# The Rack::Static middleware...` / `class Static`) and each class's first method had
    # no doc. A blank line between a doc and its definition is YARD's rule (`Rack::Request provides...`); two are not.
    source = (
        b"# frozen_string_literal: true\n\nmodule Rack\n"
        b"  # Serves static files.\n  class Static\n    # Makes one.\n    def initialize(app); end\n\n"
        b"    # Calls it.\n\n    def call(env); end\n\n"
        b"    # A section, not a doc.\n\n\n    def close; end\n  end\nend\n"
    )
    symbols = table(facts("static.rb", "ruby", source))
    assert symbols["Rack"]["doc"] is None  # the magic comment is no doc
    assert symbols["Rack.Static"]["doc"] == "Serves static files."
    assert symbols["Rack.Static.initialize"]["doc"] == "Makes one."
    assert symbols["Rack.Static.call"]["doc"] == "Calls it."
    assert symbols["Rack.Static.close"]["doc"] is None
    # A C++ struct declared as a member: leveldb's `// Files produced by compaction` / `struct Output {`.
    nested = b"class State {\n  // Files produced by compaction\n  struct Output {\n    int number;\n  };\n};\n"
    assert table(facts("db_impl.cc", "cpp", nested))["State.Output"]["doc"] == "Files produced by compaction"
    # A comment for a tool is no doc (ky's methods had `eslint-disable-next-line complexity` for theirs).
    tooled = b"class Ky {\n\t// eslint-disable-next-line complexity\n\tconstructor(input) {}\n}\n"
    assert table(facts("Ky.ts", "typescript", tooled))["Ky.constructor"]["doc"] is None


def test_rust_impls_for_references_slices_and_primitives_hold_methods() -> None:
    # ripgrep's `impl Index<Match> for [u8]` and hyper's `impl dyn Io + Send` hold methods, not free functions.
    source = (
        b"impl Index<Match> for [u8] {\n    type Output = [u8];\n    fn index(&self, m: Match) -> &[u8] { self }\n}\n"
        b"impl<'a, T> Sink for &'a mut Vec<T> {\n    fn matched(&mut self) {}\n}\n"
        b"impl IntoName for &'static str {\n    fn into_name(self) {}\n}\n"
        b"impl dyn Io + Send {\n    fn is(&self) -> bool { true }\n}\n"
        b"impl Sealed for u8 {}\n"
    )
    found = kinds(facts("matcher.rs", "rust", source))
    assert found == {
        "impl Index for [u8]": "impl",
        "[u8].Output": "type",
        "[u8].index": "method",
        "impl Sink for Vec": "impl",
        "Vec.matched": "method",
        "impl IntoName for str": "impl",
        "str.into_name": "method",
        "impl dyn Io + Send": "impl",
        "dyn Io + Send.is": "method",
        "impl Sealed for u8": "impl",
    }


def test_rust_items_inside_macro_braces() -> None:
    # hyper writes its public Connection in `pin_project_lite::pin_project! { ... }`, its modules in
    # `cfg_feature! { ... }` and its C API in `ffi_fn! { fn ... { ... } ?= default }`: items all, at their lines.
    source = (
        b"cfg_feature! {\n"  # 1
        b'    #![feature = "client"]\n'
        b"    pub mod client;\n"
        b"}\n"
        b"pin_project_lite::pin_project! {\n"  # 5
        b"    /// A future of one connection.\n"
        b"    pub struct Connection<T> where T: Read {\n"
        b"        #[pin]\n"
        b"        conn: T,\n"
        b"    }\n"  # 10
        b"}\n"
        b"mod ffi {\n"
        b"    ffi_fn! {\n"
        b"        /// Starts a handshake.\n"
        b"        fn hyper_handshake(io: *mut Io) -> *mut Task {\n"  # 15
        b"            Task::boxed(io)\n"
        b"        } ?= std::ptr::null_mut()\n"
        b"    }\n"
        b"}\n"
        b"quote! { a + b }\n"  # 20: no item in it
        b"fn after() { wrap! { fn inner() {} } }\n"  # in a function's body, an expression
        b"cfg_proto! {\n"
        b"    pin_project! { struct Nested { x: u8 } }\n"  # 23: a wrapper in a wrapper
        b"}\n"
        b"test! { name: get, client: { request: { method: GET } } }\n"  # settings, not items
    )
    found = facts("lib.rs", "rust", source)
    symbols = table(found)
    assert kinds(found) == {
        "Connection": "struct",
        "ffi": "module",
        "ffi.hyper_handshake": "function",
        "after": "function",
        "Nested": "struct",
    }
    assert (symbols["Connection"]["start_line"], symbols["Connection"]["end_line"]) == (7, 10)
    assert symbols["Connection"]["doc"] == "A future of one connection."
    assert symbols["Connection"]["signature"] == "pub struct Connection<T> where T: Read"
    assert (symbols["ffi.hyper_handshake"]["start_line"], symbols["ffi.hyper_handshake"]["doc"]) == (
        15,
        "Starts a handshake.",
    )
    assert imports(found) == [("client", [], "mod")]
    assert {
        (None, None, "cfg_feature"),  # the wrappers are still calls of their macros
        (None, "pin_project_lite::", "pin_project"),
        ("ffi", None, "ffi_fn"),
        ("ffi.hyper_handshake", "Task::", "boxed"),
        (None, None, "quote"),
        ("after", None, "wrap"),
        (None, None, "cfg_proto"),
        (None, None, "pin_project"),
        (None, None, "test"),
    } == calls(found)
    assert symbols["Nested"]["start_line"] == 23


def test_rust_calls_inside_a_macro_whose_tokens_are_expressions() -> None:
    """httparse's `complete!(parse_uri(&mut bytes))`, a macro of its own, and `ready!(self.poll_read(cx))`: their
    tokens parse as a call's arguments, so the calls inside are calls. `json!({...})` holds no expression, and an
    item-level `define!(thing(1));` is no call of thing."""
    source = (
        b"fn parse(bytes: &mut Bytes) {\n"
        b"    let uri = complete!(parse_uri(&mut bytes));\n"
        b"    ready!(self.poll_read(cx))?;\n"
        b'    let j = json!({"a": inner(x)});\n'
        b"}\n"
        b"define!(thing(1));\n"
    )
    found = calls(facts("lib.rs", "rust", source))
    assert {("parse", None, "parse_uri"), ("parse", "self", "poll_read")} <= found
    assert not {name for _, _, name in found} & {"inner", "thing"}


def test_java() -> None:
    found = facts("Shapes.java", "java")
    assert kinds(found) == {
        "Shape": "class",
        "Shape.EPSILON": "const",
        "Shape.Shape": "method",
        "Shape.area": "method",
        "Shape.describe": "method",
        "Shape.compareTo": "method",
        "Shape.Cache": "class",
        "Shape.Cache.clear": "method",
        "Shape.Visitor": "interface",
        "Shape.Visitor.visit": "method",
        "Shape.Kind": "enum",
        "Shape.Kind.curved": "method",
        "Shape.Size": "record",
    }
    # `public`, and interface members (public without saying so).
    assert exported(found) == {
        "Shape",
        "Shape.EPSILON",
        "Shape.Shape",
        "Shape.area",
        "Shape.compareTo",
        "Shape.Visitor",
        "Shape.Visitor.visit",
        "Shape.Kind",
        "Shape.Size",
    }
    symbols = table(found)
    assert symbols["Shape"]["doc"] == "Shapes and their areas."
    assert symbols["Shape.Shape"]["doc"] == "Make a named shape."
    assert (symbols["Shape.area"]["signature"], symbols["Shape.area"]["returns"]) == (
        "public abstract double area()",
        "double",
    )
    assert symbols["Shape.describe"]["params"] == ["int precision"]
    assert symbols["Shape.Size"]["params"] == ["double width", "double height"]
    assert imports(found) == [
        ("java.util.List", ["List"], "import"),
        ("java.util.Map", ["Map"], "import"),
        ("java.lang.Math.sqrt", ["sqrt"], "static"),
        ("com.acme.util", ["*"], "import"),
        # Class-like names the code uses, as classes of its own package (a file of the tree, else nothing).
        ("com.acme.geo.Comparable", ["Comparable"], "package"),
        ("com.acme.geo.String", ["String"], "package"),
        ("com.acme.geo.Format", ["Format"], "package"),
        ("com.acme.geo.Override", ["Override"], "package"),
        ("com.acme.geo.Double", ["Double"], "package"),
    ]
    assert {("Shape.describe", "Format", "number"), ("Shape.compareTo", "other", "area")} <= calls(found)


def test_a_version_control_keyword_or_a_licence_is_no_module_doc() -> None:
    # Every file of tmux starts `/* $OpenBSD$ */`, then its licence: the pack said "tmux.h — $OpenBSD$" of each.
    licence = b"/*\n * Copyright (c) 2007 Nicholas Marriott\n *\n * Permission to use, copy, modify.\n */\n\n"
    source = b"/* $OpenBSD$ */\n\n" + licence + b"#include <stdlib.h>\n\nint\nf(void)\n{\n\treturn 0;\n}\n"
    assert facts("grid.c", "c", source).module_doc is None
    source = b"/* $Id: grid.c,v 1.9 2009/01/05 nicm Exp $ */\n\n/* The grid of cells. */\n\nstatic int width;\n"
    assert facts("grid.c", "c", source).module_doc == "The grid of cells."
    # Nor is a licence's head, however short (ky's source/index.ts, Catch2's fuzzers).
    assert (
        facts(
            "index.ts", "typescript", b"/*! MIT License \xc2\xa9 Sindre Sorhus */\n\nexport const a = 1;\n"
        ).module_doc
        is None
    )
    assert (
        facts("fuzz.cpp", "cpp", b"//License: Boost 1.0\n//By Paul Dreik 2020\n\n#include <string>\n").module_doc
        is None
    )
    # Nor a banner linking to it (babybuddy's 88 vendored Select2 files), nor a linter's or coverage tool's line.
    banner = b"/*! Select2 4.0.13 | https://github.com/select2/select2/blob/master/LICENSE.md */\n\nvar a = 1;\n"
    assert facts("i18n/af.js", "javascript", banner).module_doc is None
    tools = b"/* global gettext, jQuery:false */\n/* istanbul ignore file */\n\nvar a = 1;\n"
    assert facts("actions.js", "javascript", tools).module_doc is None
    kept = (
        b"/*global SelectBox, gettext*/\n/* SelectFilter2 - Turns a multiple-select box into a filter. */\n\nvar a;\n"
    )
    assert (
        facts("SelectFilter2.js", "javascript", kept).module_doc
        == "SelectFilter2 - Turns a multiple-select box into a filter."
    )
    assert facts("reset.js", "javascript", b"// Global reset of the page's state.\n\nvar a = 1;\n").module_doc
    # Doxygen's `\file` (and the file's name after it) says which file, not what it is (29 of Catch2's files).
    doxygen = b"/** \\file Wrapper for the CONFIG option.\n */\n\n#include <string>\n"
    assert facts("counter.hpp", "cpp", doxygen).module_doc == "Wrapper for the CONFIG option."
    named = b"/**\n * @file catch_counter.hpp\n * Counts the tests.\n */\n\n#include <string>\n"
    assert facts("counter.hpp", "cpp", named).module_doc == "Counts the tests."
    # A link alone says where the code came from (undici's lib/fetch/index.js); a sentence with one is a doc.
    link = b"// https://github.com/Ethan-Arrowood/undici-fetch\n\n'use strict'\nconst a = 1\n"
    assert facts("fetch/index.js", "javascript", link).module_doc is None
    spec = b"// Follows https://fetch.spec.whatwg.org/ to the letter.\n\n'use strict'\nconst a = 1\n"
    assert (
        facts("fetch/index.js", "javascript", spec).module_doc
        == "Follows https://fetch.spec.whatwg.org/ to the letter."
    )
    links = b"# docs https://docs.github.com/en/forms https://docs.github.com/en/schema\nname: Bug\n"
    assert facts("bug_report.yaml", "yaml", links).module_doc is None  # sqlalchemy's issue templates
    theme = b"/* GitHub theme for highlight.js (c) Vasily Polovnyov <vast@whiteants.net> */\n.hljs { color: #333; }\n"
    assert facts("github.css", "css", theme).module_doc is None  # an author's mark, as a copyright is
    # Nor a note to the maintainers (hyper's src/mock.rs), Ruby's magic comment however spelt (jekyll's), or
    # TypeScript's triple-slash directive (pino.d.ts).
    assert facts("mock.rs", "rust", b"// FIXME: re-implement tests with async\n\nuse std::io;\n").module_doc is None
    assert facts("parser.rb", "ruby", b"# Frozen-string-literal: true\n\nmodule Jekyll\nend\n").module_doc is None
    assert (
        facts("pino.d.ts", "typescript", b'/// <reference types="node"/>\n\nexport const a = 1;\n').module_doc is None
    )


def test_a_rust_item_s_doc_is_not_its_module_s() -> None:
    """`///` documents the item after it, `//!` the module: actix's body/size.rs had the role "Body size hint." of
    its first enum, and a crate's `//!` lines ran on into its first function's `///`."""
    item = b"/// Body size hint.\n#[derive(Debug)]\npub enum BodySize { None }\n"
    assert facts("size.rs", "rust", item).module_doc is None
    crate = b"//! The crate.\n\n/// The first function.\npub fn f() {}\n"
    assert facts("lib.rs", "rust", crate).module_doc == "The crate."
    plain = b"// This module defines the arguments.\n\nuse std::io;\n\npub fn app() {}\n"
    assert facts("app.rs", "rust", plain).module_doc == "This module defines the arguments."  # ripgrep's way


def test_c_header_and_source() -> None:
    header = facts("shape.h", "c")
    assert kinds(header) == {
        "MAX_SIDES": "macro",
        "AREA": "macro",
        "shape_t": "struct",
        "node": "struct",
        "kind": "enum",
        "visit_fn": "type",
        "shape_area": "function",
        "shape_new": "function",
    }
    symbols = table(header)
    assert header.module_doc == "Shapes in C."
    assert symbols["shape_t"]["doc"] == "A shape."
    assert symbols["shape_area"]["doc"] == "The area of a shape."
    assert (symbols["shape_new"]["signature"], symbols["shape_new"]["returns"]) == (
        "shape_t *shape_new(double w, double h)",
        "shape_t *",
    )
    assert imports(header) == [("stddef.h", [], "system"), ("point.h", [], "include")]

    source = facts("shape.c", "c")
    assert kinds(source) == {"shape_new": "function", "shape_area": "function", "log_shape": "function"}
    assert exported(source) == {"shape_new", "shape_area"}  # static is file-local
    assert table(source)["shape_new"]["doc"] == "Make a shape."
    assert table(source)["shape_new"]["params"] == ["double w", "double h"]
    assert imports(source) == [("stdio.h", [], "system"), ("stdlib.h", [], "system"), ("shape.h", [], "include")]
    assert {("shape_new", None, "malloc"), ("log_shape", None, "shape_area")} <= calls(source)


def test_c_prototype_gives_way_to_its_definition() -> None:
    found = extract(
        "a.c", b"int twice(int x);\nint twice(int x) { return 2 * x; }\nvoid run(void) { int local(int); }\n", "c"
    )
    assert [(s["id"], s["end_line"]) for s in found.symbols] == [("a.c::twice", 2), ("a.c::run", 3)]


def test_c_prototypes_of_a_header_the_grammar_reads_as_one_error_are_its_functions() -> None:
    """Struct bodies made of macros (libuv's `UV_HANDLE_FIELDS`) turn a whole header into one error, its prototypes
    into declarations or fields inside it: they are still the header's API. A prototype in a body is not."""
    header = b"""#ifndef GEO_H
#define GEO_H
#define GEO_SHAPE_FIELDS int kind; void* data;
struct geo_shape_s {
  GEO_SHAPE_FIELDS
};
struct geo_circle_s {
  GEO_SHAPE_FIELDS
  GEO_CIRCLE_PRIVATE_FIELDS
};
GEO_EXTERN int geo_area(geo_shape_t* shape,
                        int precise);
GEO_EXTERN const char* geo_name(int kind);
union geo_any_shape {
  GEO_SHAPE_FIELDS
};
#endif
"""
    found = extract("include/geo.h", header, "c")
    functions = {s["name"]: s["signature"] for s in found.symbols if s["kind"] == "function"}
    # read once the member macros are out of the way, the export macro is blanked as a leading annotation
    assert functions == {
        "geo_area": "int geo_area(geo_shape_t* shape, int precise)",
        "geo_name": "const char* geo_name(int kind)",
    }
    # The export macro is no return type (the grammar takes it for one, and `int` for an error).
    assert {s["name"]: s["returns"] for s in found.symbols if s["kind"] == "function"} == {
        "geo_area": "int",
        "geo_name": "const char *",
    }


def test_cpp() -> None:
    found = facts("shape.cpp", "cpp")
    assert kinds(found) == {
        "geo": "namespace",
        "geo.Shape": "class",
        "geo.Shape.area": "method",
        "geo.Shape.sides": "method",
        "geo.Point": "struct",
        "geo.Point.norm": "method",
        "geo.Box": "class",
        "geo.Box.get": "method",
        "geo.Color": "enum",
        "geo.Id": "type",
        "geo.Shape.Shape": "method",
        "geo.Shape.~Shape": "method",
        "geo.Shape.reset": "method",
        "geo.largest": "function",
        "geo.hidden": "function",
    }
    # Out-of-class definitions keep the access of their in-class declaration; an anonymous
    # namespace is file-local.
    assert exported(found) == set(kinds(found)) - {"geo.Shape.reset", "geo.hidden"}
    symbols = table(found)
    assert found.module_doc == "Shapes in C++."
    assert symbols["geo.Shape"]["doc"] == "A shape."
    assert symbols["geo.Shape.reset"]["parent"] == "src/shape.cpp::geo.Shape"
    assert symbols["geo.Shape.reset"]["signature"] == "void Shape::reset()"
    assert symbols["geo.Shape.Shape"]["signature"] == "Shape::Shape(int sides)"  # not its `: sides_(sides)`
    assert symbols["geo.largest"]["signature"] == "template <typename T> T largest(const std::vector<T>& items)"
    assert symbols["geo.Box"]["start_line"] == 28  # the template line
    assert imports(found) == [("shape.hpp", [], "include"), ("cmath", [], "system"), ("vector", [], "system")]
    assert {
        ("geo.Point.norm", "std", "sqrt"),
        ("geo.Shape.reset", "helper", "log"),
        ("geo.largest", "items", "begin"),
    } <= calls(found)


def test_ruby() -> None:
    found = facts("shapes.rb", "ruby")
    assert kinds(found) == {
        "Geo": "module",
        "Geo.VERSION": "const",
        "Geo.Shape": "class",
        "Geo.Shape.initialize": "method",
        "Geo.Shape.area": "method",
        "Geo.Shape.build": "method",
        "Geo.Shape.to_json": "method",
        "Geo.Shape.compare": "method",
        "Geo.Shape.secret": "method",
        "Geo.Circle": "class",
        "helper": "function",
    }
    assert exported(found) == set(kinds(found)) - {"Geo.Shape.compare", "Geo.Shape.secret"}  # protected, private
    symbols = table(found)
    assert found.module_doc == "Shapes and their areas."
    assert symbols["Geo.Shape"]["doc"] == "A shape with sides."
    assert symbols["Geo.Shape.area"]["doc"] == "The area, scaled."
    assert symbols["Geo.Shape"]["signature"] == "class Shape < Base"
    assert symbols["Geo.Shape.build"]["params"] == ["sides:"]
    assert imports(found) == [("json", [], "require"), ("../lib/units", [], "require_relative")]
    assert {("Geo.Shape.area", "Units", "convert"), ("Geo.Shape.to_json", "JSON", "generate")} <= calls(found)


# --- hashes ------------------------------------------------------------------------------------------

Edit = tuple[str, str]
HASH_CASES: list[tuple[str, str, str, list[Edit], Edit, Edit]] = [
    # (fixture, language, symbol, layout-only edits, a body edit, a parameter edit)
    (
        "shapes.js",
        "javascript",
        "Shape.area",
        [
            (
                "  area(scale = 1) {\n    return helper(this.sides)",
                "  area(scale = 1) {\n    // scaled\n\n    return helper(\n      this.sides,\n    )",
            )
        ],
        ("* scale * pi", "* scale + pi"),
        ("area(scale = 1)", "area(scale = 1, unit)"),
    ),
    (
        "shapes.js",
        "javascript",
        "perimeter",
        [("(shape, unit) => shape.sides * unit", "(shape, unit) =>\n  /* sides */ shape.sides  *  unit")],
        ("shape.sides * unit", "shape.sides / unit"),
        ("(shape, unit)", "(shape)"),
    ),
    (
        "api.ts",
        "typescript",
        "Repository.save",
        [("await connect(this.url).insert(item);", "// store it\n    await connect(this.url)\n      .insert(item,);")],
        ("insert(item)", "update(item)"),
        ("save(item: T)", "save(item: T, force: boolean)"),
    ),
    (
        "App.tsx",
        "tsx",
        "App",
        [("useState(0);", "useState(\n    0, // start\n  );")],
        ("useState(0)", "useState(1)"),
        ("{ title }: Props", "{ title, subtitle }: Props"),
    ),
    (
        "store.go",
        "go",
        "Store.Get",
        [('fmt.Errorf("no row %d", id)', 'fmt.Errorf(\n\t\t\t"no row %d", // which\n\t\t\tid,\n\t\t)')],
        ("id >= len(s.rows)", "id > len(s.rows)"),
        ("Get(id int) (Row, error) {", "Get(id int, strict bool) (Row, error) {"),
    ),
    (
        "lib.rs",
        "rust",
        "Point.new",
        [("        Point { x, y }\n", "        // both\n        Point {\n            x,\n            y,\n        }\n")],
        ("Point { x, y }", "Point { x: y, y: x }"),
        ("new(x: f64, y: f64)", "new(x: f64)"),
    ),
    (
        "Shapes.java",
        "java",
        "Shape.describe",
        [
            (
                "return Format.number(area(), precision)",
                "/* shown */ return Format.number(\n            area(),  precision)",
            )
        ],
        ('+ " " + name', '+ ":" + name'),
        ("describe(int precision)", "describe(int precision, boolean units)"),
    ),
    (
        "shape.c",
        "c",
        "shape_new",
        [("    s->width = w;\n", "    /* set */\n    s->width   =   w;\n\n")],
        ("created++;", "created--;"),
        ("shape_new(double w, double h) {", "shape_new(double w) {"),
    ),
    (
        "shape.cpp",
        "cpp",
        "geo.Shape.reset",
        [("    sides_ = 0;\n", "    // clear\n    sides_ =\n        0;\n")],
        ("sides_ = 0;", "sides_ = 1;"),
        ("void Shape::reset() {", "void Shape::reset(int to) {"),
    ),
    (
        "shapes.rb",
        "ruby",
        "Geo.Shape.area",
        [("Units.convert(sides * scale)", "# convert\n      Units.convert(\n        sides * scale,\n      )")],
        ("sides * scale", "sides + scale"),
        ("def area(scale = 1)", "def area(scale = 1, unit = nil)"),
    ),
]


def _edited(name: str, edits: list[Edit]) -> bytes:
    text = (FIXTURES / name).read_text()
    for old, new in edits:
        assert text.count(old) == 1, f"{name}: {old!r} must occur exactly once"
        text = text.replace(old, new)
    return text.encode()


@pytest.mark.parametrize(
    ("name", "lang", "qualname", "layout", "body", "params"),
    HASH_CASES,
    ids=[f"{case[1]}-{case[2]}" for case in HASH_CASES],
)
def test_hashes(name: str, lang: str, qualname: str, layout: list[Edit], body: Edit, params: Edit) -> None:
    before = table(facts(name, lang))[qualname]
    relaid = table(facts(name, lang, _edited(name, layout)))[qualname]
    assert (relaid["body_hash"], relaid["signature_hash"]) == (before["body_hash"], before["signature_hash"])
    changed = table(facts(name, lang, _edited(name, [body])))[qualname]
    assert changed["body_hash"] != before["body_hash"]
    assert changed["signature_hash"] == before["signature_hash"]
    reparametered = table(facts(name, lang, _edited(name, [params])))[qualname]
    assert reparametered["signature_hash"] != before["signature_hash"]


def test_a_value_s_shifts_and_comparisons_keep_their_spaces_and_type_brackets_lose_theirs() -> None:
    # gin's `ErrorTypeBind ErrorType = 1 << 63` was served `1 <<63`: the second `<` read as a type's bracket.
    go = b"package gin\n\ntype ErrorType uint64\n\nconst ErrorTypeBind ErrorType = 1 << 63\nconst Big = Limit > 3\n"
    symbols = table(facts("errors.go", "go", go))
    assert symbols["ErrorTypeBind"]["signature"] == "const ErrorTypeBind ErrorType = 1 << 63"
    assert symbols["Big"]["signature"] == "const Big = Limit > 3"
    cpp = b"std::vector<std::pair<int, int> > Pairs(std::map< int, int > m);\n"
    assert table(facts("pairs.h", "cpp", cpp))["Pairs"]["signature"] == (
        "std::vector<std::pair<int, int>> Pairs(std::map<int, int> m)"
    )


def test_cpp_remove_of_a_range_is_the_algorithm_and_of_a_path_deletes_a_file() -> None:
    # Catch2's popScopedMessage, `v.erase(std::remove(v.begin(), v.end(), m), v.end())`, was said to touch files.
    source = (
        b"#include <algorithm>\n#include <cstdio>\n#include <vector>\n"
        b"void forget(std::vector<int>& v, int m) {\n    v.erase(std::remove(v.begin(), v.end(), m), v.end());\n}\n"
        b"void clean(const char* path) {\n    std::remove(path);\n}\n"
    )
    effects = side_effects("cpp", facts("scope.cpp", "cpp", source).calls)
    assert [(e["kind"], e["via"], e["symbol"]) for e in effects] == [("files", "std.remove", "src/scope.cpp::clean")]


@pytest.mark.parametrize(
    ("name", "lang", "expected"),
    [
        ("shapes.js", "javascript", {("files", "fs.writeFileSync", "main"), ("logging", "log.info", "Shape.onClick")}),
        ("store.go", "go", {("files", "os.WriteFile", "dump")}),
        ("lib.rs", "rust", {("printing", "println", "helper")}),
        ("shape.c", "c", {("printing", "printf", "log_shape")}),
        ("shape.cpp", "cpp", set()),
        ("shapes.rb", "ruby", {("printing", "puts", "Geo.Shape.secret")}),
    ],
)
def test_side_effects_by_language(name: str, lang: str, expected: set[tuple[str, str, str]]) -> None:
    found = facts(name, lang)
    effects = side_effects(lang, found.calls)
    assert {(e["kind"], e["via"], e["symbol"].split("::")[1]) for e in effects} == expected


def test_rust_and_cpp_paths_match_rules_written_with_double_colons() -> None:
    calls = [
        {"caller": None, "name": "read_to_string", "qualifier": "std::fs", "line": 1},
        {"caller": None, "name": "new", "qualifier": "Command", "line": 2},
    ]
    assert [(e["kind"], e["via"]) for e in side_effects("rust", calls)] == [
        ("files", "std::fs.read_to_string"),
        ("processes", "Command.new"),
    ]
    assert [e["kind"] for e in side_effects("cpp", [{"name": "getenv", "qualifier": "std", "line": 3}])] == [
        "environment"
    ]
    assert [e["kind"] for e in side_effects("tsx", [{"name": "log", "qualifier": "console", "line": 1}])] == [
        "printing"
    ]


@pytest.mark.parametrize(
    ("name", "lang"),
    [
        ("App.tsx", "tsx"),
        ("Shapes.java", "java"),
        ("api.ts", "typescript"),
        ("lib.rs", "rust"),
        ("shape.c", "c"),
        ("shape.cpp", "cpp"),
        ("shape.h", "c"),
        ("shapes.js", "javascript"),
        ("shapes.rb", "ruby"),
        ("store.go", "go"),
    ],
)
def test_symbols_of_finds_the_symbols_extract_finds_and_nothing_else(name: str, lang: str) -> None:
    """What a symbol diff of git's history reads (indexer/git/gitblobs.py): the same symbols, hashes included."""
    source = (FIXTURES / name).read_bytes()
    whole, symbols = extract(f"src/{name}", source, lang), symbols_of(f"src/{name}", source, lang)
    assert symbols.symbols == whole.symbols and whole.symbols
    assert symbols.calls == [] and symbols.imports == [] and symbols.tags == []


def test_symbols_of_finds_the_functions_a_macro_of_the_file_writes() -> None:
    source = b"""#define DEFINE_GETTER(name) int get_##name(void) { return name; }
static int width;
DEFINE_GETTER(width)

int area(void) {
    return get_width() * 2;
}
"""
    whole, symbols = extract("shape.c", source, "c"), symbols_of("shape.c", source, "c")
    assert "get_width" in [s["name"] for s in symbols.symbols]
    assert symbols.symbols == whole.symbols
