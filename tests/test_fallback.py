"""The generic fallback: every grammar of the language pack parses without crashing, and languages
without a query of our own still yield their definitions (from the grammar's kind names, Lisp
and Elixir `def` forms, and the sections of data and markup formats)."""

from __future__ import annotations

import typing

import pytest
import tree_sitter_language_pack
from codeannals.indexer.parsing.extract import extract
from codeannals.indexer.parsing.fallback import definition_kind
from codeannals.indexer.parsing.parse import QUERY_LANGUAGES, ParseFailed

ALL_GRAMMARS = typing.get_args(tree_sitter_language_pack.SupportedLanguage)

# Text that is valid in some grammars and nonsense in the rest: every grammar must cope.
MIXED = b"""// comment
function area(r) { return r * r; }
class Shape { def go(x): pass }
def main(): x = [1, (2, {3: "a"})]
(defn f [x] x)
fn helper(a: u8) u8 { return a; }
"""


def qualified(path: str, source: str, lang: str) -> dict[str, str]:
    return {s["qualname"]: s["kind"] for s in extract(path, source.encode(), lang).symbols}


def test_every_grammar_of_the_pack_extracts_without_crashing() -> None:
    assert len(ALL_GRAMMARS) > 150
    failures = []
    for lang in ALL_GRAMMARS:
        try:
            found = extract("x", MIXED, lang)
        except ParseFailed as exc:  # a bound we set (time, depth): allowed, and recorded as a skip
            failures.append((lang, exc.reason))
            continue
        assert found.lines == 6
        assert all(s["name"] and s["qualname"] and s["id"].startswith("x::") for s in found.symbols), lang
    assert failures == []


def test_kotlin() -> None:
    source = """package demo
import kotlin.math.sqrt

/** A circle. */
class Circle(val r: Double) : Shape {
    fun area(): Double = Math.PI * r * r
    private fun secret() = 1
    companion object { const val MAX = 3 }
}
interface Shape { fun area(): Double }
object Registry { fun register(s: Shape) {} }
fun main(args: Array<String>) { println(Circle(1.0).area()) }
typealias Id = String
"""
    found = extract("Main.kt", source.encode(), "kotlin")
    assert {s["qualname"]: s["kind"] for s in found.symbols} == {
        "Circle": "class",
        "Circle.area": "method",
        "Circle.secret": "method",
        "Circle.MAX": "property",
        "Shape": "class",
        "Shape.area": "method",
        "Registry": "object",
        "Registry.register": "method",
        "main": "function",
        "Id": "type",
    }
    symbols = {s["qualname"]: s for s in found.symbols}
    assert symbols["Circle"]["doc"] == "A circle."
    assert symbols["Circle.secret"]["exported"] is False
    assert symbols["main"]["params"] == ["args: Array<String>"]
    assert symbols["main"]["signature"] == "fun main(args: Array<String>)"


def test_php() -> None:
    source = """<?php
namespace Geo;
/** A shape. */
interface Shape { public function area(): float; }
class Circle implements Shape {
    const PI = 3.14;
    public function area(): float { return helper($this->r); }
    private static function secret() {}
}
trait Named { function name() {} }
function helper($x) { return $x; }
"""
    assert qualified("geo.php", source, "php") == {
        "Geo": "namespace",
        "Shape": "interface",
        "Shape.area": "method",
        "Circle": "class",
        "Circle.PI": "const",
        "Circle.area": "method",
        "Circle.secret": "method",
        "Named": "trait",
        "Named.name": "method",
        "helper": "function",
    }
    symbols = {s["qualname"]: s for s in extract("geo.php", source.encode(), "php").symbols}
    assert (symbols["Shape"]["doc"], symbols["Circle.secret"]["exported"]) == ("A shape.", False)


def test_lua_and_r_name_functions_by_what_they_are_assigned_to() -> None:
    lua = """-- Shapes.
local M = {}
function M.area(r) return r * r end
function M:describe() return "shape" end
local function helper(x) return x end
return M
"""
    assert qualified("shapes.lua", lua, "lua") == {
        "M": "variable",
        "M.area": "function",
        "M.describe": "function",
        "helper": "function",
    }
    r = "area <- function(r) {\n  r * r\n}\nhelper = function(x) x\n"
    assert qualified("shapes.R", r, "r") == {"area": "function", "helper": "function"}


def test_csharp() -> None:
    source = """using System;
namespace Geo {
  /// <summary>A shape.</summary>
  public interface IShape { double Area(); }
  public class Circle : IShape {
    public double R { get; set; }
    public Circle(double r) { R = r; }
    public double Area() { return Math.PI * R * R; }
    private void Secret() {}
  }
  public struct Point { public int X; }
  public enum Color { Red }
  public record Pair(int A, int B);
}
"""
    found = extract("Geo.cs", source.encode(), "csharp")
    assert {s["qualname"]: s["kind"] for s in found.symbols} == {
        "Geo": "namespace",
        "Geo.IShape": "interface",
        "Geo.IShape.Area": "method",
        "Geo.Circle": "class",
        "Geo.Circle.R": "property",
        "Geo.Circle.Circle": "method",
        "Geo.Circle.Area": "method",
        "Geo.Circle.Secret": "method",
        "Geo.Point": "struct",
        "Geo.Point.X": "field",
        "Geo.Color": "enum",
        "Geo.Pair": "record",
    }
    assert [s["qualname"] for s in found.symbols if not s["exported"]] == ["Geo.Circle.Secret"]


def test_scala_and_swift() -> None:
    scala = """package geo
/** A shape. */
trait Shape { def area: Double }
case class Circle(r: Double) extends Shape { def area: Double = r * r }
object Main { def main(args: Array[String]): Unit = println(Circle(1).area) }
"""
    assert qualified("Geo.scala", scala, "scala") == {
        "Shape": "trait",
        "Shape.area": "method",
        "Circle": "class",
        "Circle.area": "method",
        "Main": "object",
        "Main.main": "method",
    }
    swift = """import Foundation
/// A shape.
protocol Shape { func area() -> Double }
struct Circle: Shape {
    let r: Double
    func area() -> Double { return r * r }
}
class Box { init() {}; func grow() {} }
func main() { print(Circle(r: 1).area()) }
"""
    assert qualified("Geo.swift", swift, "swift") == {
        "Shape": "protocol",
        "Shape.area": "method",
        "Circle": "class",
        "Circle.r": "property",
        "Circle.area": "method",
        "Box": "class",
        "Box.init": "method",
        "Box.grow": "method",
        "main": "function",
    }


def test_elixir_and_lisps_define_with_forms() -> None:
    elixir = """defmodule Geo.Shape do
  @moduledoc "Shapes."
  def area(%{r: r}), do: r * r
  defp secret(x) do
    x + 1
  end
  defmacro twice(x), do: x
  defstruct [:r]
end
"""
    found = extract("shape.ex", elixir.encode(), "elixir")
    assert {s["qualname"]: (s["kind"], s["exported"]) for s in found.symbols} == {
        "Geo.Shape": ("module", True),
        "Geo.Shape.area": ("function", True),
        "Geo.Shape.secret": ("function", False),
        "Geo.Shape.twice": ("macro", True),
    }
    clojure = '(ns geo.shape)\n(defn area "Area." [r] (* r r))\n(defprotocol Shape (perimeter [s]))\n(def pi 3.14)\n'
    assert qualified("shape.clj", clojure, "clojure") == {"area": "function", "Shape": "protocol", "pi": "variable"}
    scheme = "(define (area r) (* r r))\n(define pi 3.14)\n"
    assert qualified("shape.scm", scheme, "scheme") == {"area": "function", "pi": "variable"}


def test_haskell() -> None:
    source = """module Geo (area) where
import Data.List (sort)
data Shape = Circle Double | Square Double
newtype Id = Id Int
type Name = String
class Area a where
  area :: a -> Double
instance Area Shape where
  area (Circle r) = pi * r * r
area2 :: Shape -> Double
area2 s = 1.0
main = print 1
"""
    # Function types (`a -> Double`) and signatures are no definitions of their own.
    assert qualified("Geo.hs", source, "haskell") == {
        "Shape": "type",
        "Id": "type",
        "Name": "type",
        "Area": "class",
        "impl Area": "impl",
        "Area.area": "method",
        "area2": "function",
        "main": "function",
    }


@pytest.mark.parametrize(
    ("path", "lang", "source", "expected"),
    [
        (
            "main.zig",
            "zig",
            "const Point = struct {\n    x: i32,\n    pub fn norm(self: Point) i32 { return self.x; }\n};"
            "\nfn helper(a: u8) u8 { return a; }\n",
            {"Point", "Point.norm", "helper"},
        ),
        (
            "geo.dart",
            "dart",
            "abstract class Shape { double area(); }\nint helper(int x) => x;\n",
            {"Shape", "Shape.area", "helper"},
        ),
        (
            "geo.jl",
            "julia",
            "module Geo\nfunction area(r)\n    r * r\nend\nstruct Point\n    x::Int\nend\nend\n",
            {"Geo", "Geo.area", "Geo.Point"},
        ),
        ("deploy.sh", "bash", "deploy() { echo hi; }\nfunction build { make; }\n", {"deploy", "build"}),
        ("geo.ml", "ocaml", "type shape = Circle of float\nlet area s = 1.0\n", {"shape", "shape.Circle", "area"}),
        ("Geo.pm", "perl", "package Geo::Shape;\nsub area { return 1; }\n1;\n", {"Geo.Shape", "area"}),
        (
            "schema.sql",
            "sql",
            "CREATE TABLE users (id INT);\nCREATE VIEW active AS SELECT * FROM users;\n",
            {"users", "active"},
        ),
        (
            "api.proto",
            "proto",
            'syntax = "proto3";\nmessage User { string name = 1; }\nservice Users {}\n',
            {"User", "Users"},
        ),
        (
            "Cargo.toml",
            "toml",
            '[package]\nname = "x"\n[dependencies.serde]\nversion = "1"\n',
            {"package", "dependencies.serde"},
        ),
        ("README.md", "markdown", "# Title\ntext\n## Install\nmore\n", {"Title", "Title.Install"}),
        ("compose.yaml", "yaml", "services:\n  web:\n    image: x\nversion: 3\n", {"services"}),
        ("Makefile", "make", "build: main.o\n\tcc -o app main.o\nclean:\n\trm -f app\n", {"build", "clean"}),
        ("style.css", "css", ".button { color: red; }\n", {".button"}),
    ],
)
def test_more_languages_yield_their_definitions(path: str, lang: str, source: str, expected: set[str]) -> None:
    assert lang not in QUERY_LANGUAGES
    assert set(qualified(path, source, lang)) == expected


def test_kind_names_that_define_and_those_that_do_not() -> None:
    assert definition_kind("function_definition") == "function"
    assert definition_kind("class_declaration") == "class"
    assert definition_kind("FnProto") == "function"  # Zig's CamelCase kinds
    assert definition_kind("declProc") == "function"  # Pascal's
    assert definition_kind("local_function_declaration") == "function"
    assert definition_kind("class_method_definition") == "method"
    assert definition_kind("create_table") == "table"
    for reference in (
        "function_call",
        "call_expression",
        "class_body",
        "type_identifier",
        "generic_type",
        "function_type",
        "if_statement",
        "message_or_enum_type",
        "type",
        "parameter_declaration",
    ):
        assert definition_kind(reference) is None, reference


@pytest.mark.parametrize(
    ("path", "lang", "source", "imports", "calls"),
    [
        (
            "Main.kt",
            "kotlin",
            "import kotlin.math.sqrt\nimport com.acme.util.*\nfun main() { val x = sqrt(2.0); Registry.register(x) }\n",
            [("kotlin.math.sqrt", []), ("com.acme.util", ["*"])],
            {("main", None, "sqrt"), ("main", "Registry", "register")},
        ),
        (
            "A.cs",
            "csharp",
            "using System;\nusing Acme.Util;\nclass A { void M() { Console.WriteLine(1); Helper(); } }\n",
            [("System", []), ("Acme.Util", [])],
            {("A.M", "Console", "WriteLine"), ("A.M", None, "Helper")},
        ),
        (
            "a.php",
            "php",
            '<?php\nuse Foo\\Bar;\nrequire_once "x.php";\nfunction f() { helper(1); $this->go(); Foo::make(); }\n',
            [("Foo\\Bar", []), ("x.php", [])],
            {("f", None, "helper"), ("f", "$this", "go"), ("f", "Foo", "make")},
        ),
        (
            "M.scala",
            "scala",
            "import scala.math._\nobject M { def main() = println(Registry.register(1)) }\n",
            [("scala.math", ["*"])],
            {("M.main", None, "println"), ("M.main", "Registry", "register")},
        ),
        (
            "a.swift",
            "swift",
            "import Foundation\nfunc main() { print(1); Registry.shared.register(x) }\n",
            [("Foundation", [])],
            {("main", None, "print"), ("main", "Registry.shared", "register")},
        ),
        (
            "A.pm",
            "perl",
            "use strict;\nuse Foo::Bar;\nsub f { helper(1); Foo::Bar->new(); }\n",
            [("strict", []), ("Foo::Bar", [])],
            {("f", None, "helper"), ("f", "Foo::Bar", "new")},
        ),
        (
            "A.hs",
            "haskell",
            "import Data.List (sort)\nimport qualified Data.Map as M\nmain = print 1\n",
            [("Data.List", []), ("Data.Map", [])],
            set(),
        ),
        (
            "a.ex",
            "elixir",
            "defmodule A do\n  def f(x), do: Enum.map(x, &helper/1) |> Bar.go()\nend\n",
            [],
            {("A.f", "Enum", "map"), ("A.f", "Bar", "go")},
        ),  # not `f` itself: `def f(x)` is no call
    ],
)
def test_imports_and_calls_of_other_languages(
    path: str, lang: str, source: str, imports: list[tuple[str, list[str]]], calls: set[tuple[str, str | None, str]]
) -> None:
    found = extract(path, source.encode(), lang)
    assert [(i["module"], i["names"]) for i in found.imports] == imports
    assert {(c["caller"].split("::")[1], c["qualifier"], c["name"]) for c in found.calls if c["caller"]} == calls


def test_a_long_section_name_drops_that_section_not_the_file() -> None:
    # over the name limit: no symbol, and no skip (one selector a line, as people write them; on one line the file
    # would be a minified bundle's, indexed without its symbols)
    selectors = ",\n".join(f".c{i}" for i in range(400))
    found = extract("style.css", f"{selectors} {{ color: red; }}\n.ok {{ margin: 0; }}\n".encode(), "css")
    assert [s["name"] for s in found.symbols] == [".ok"]
