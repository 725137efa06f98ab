"""A module's public API in its contract: functions and classes, and its module-level constants."""

from __future__ import annotations

from pathlib import Path

from codeannals.indexer.run import index_tree
from codeannals.store import open_store
from codeannals.store.queries import find_symbol, module_contract

from .conftest import Repo

TYPES = '''"""Parameter types."""
import typing as t

T = t.TypeVar("T")
STRING = StringParamType()
MAX_WIDTH: int = 80
X = Y = 3
lower_state = {}
_PRIVATE = 1


def convert(value):
    LOCAL = 1
    return value


class Choice:
    DEFAULT = "a"


if t.TYPE_CHECKING:
    GUARDED = 1
'''


def test_module_level_constants_are_in_the_public_api(repo: Repo, db_path: Path) -> None:
    repo.write("types.py", TYPES)
    conn = open_store(db_path)
    index_tree(repo.root, conn)
    api = [(a["name"], a["kind"], a["signature"]) for a in module_contract(conn, "types.py")["public_api"]]
    assert api == [
        ("T", "const", 'T = t.TypeVar("T")'),
        ("STRING", "const", "STRING = StringParamType()"),
        ("MAX_WIDTH", "const", "MAX_WIDTH: int = 80"),
        ("X", "const", "X = Y = 3"),
        ("convert", "function", "def convert(value)"),
        ("Choice", "class", "class Choice"),
    ]
    assert find_symbol(conn, "types.STRING")["id"] == "types.py::STRING"


def test_a_declared_all_still_decides_the_public_api(repo: Repo, db_path: Path) -> None:
    repo.write("mod.py", '__all__ = ["convert"]\n\nSTRING = 1\n\n\ndef convert(value):\n    return value\n')
    conn = open_store(db_path)
    index_tree(repo.root, conn)
    assert [a["name"] for a in module_contract(conn, "mod.py")["public_api"]] == ["convert"]


def test_a_ruby_namespace_module_gives_way_to_what_it_holds(repo: Repo, db_path: Path) -> None:
    """Every file of a Ruby gem opens `module Rack`: its API is the classes and modules inside, each with its
    methods, where the contract said only "module Rack"; a module of methods alone is an entry with its methods."""
    repo.write(
        "lib/shop/cart.rb",
        "module Shop\n  class Cart\n    def add(item)\n      item\n    end\n  end\n\n"
        "  module Pricing\n    def self.total(items)\n      items.sum\n    end\n  end\nend\n",
    )
    conn = open_store(db_path)
    index_tree(repo.root, conn)
    api = module_contract(conn, "lib/shop/cart.rb")["public_api"]
    assert [(a["name"], a["kind"], [m["name"] for m in a["methods"]]) for a in api] == [
        ("Cart", "class", ["add"]),
        ("Pricing", "module", ["total"]),
    ]


def test_a_rust_impl_is_as_public_as_its_type(repo: Repo, db_path: Path) -> None:
    """An impl block has no visibility of its own: `impl Default for Config` of a private struct is not the
    module's API (ripgrep's printer led with it), `impl Printer` of a `pub struct` is."""
    repo.write(
        "src/printer.rs",
        "struct Config { width: usize }\n\n"
        "impl Default for Config {\n    fn default() -> Config { Config { width: 0 } }\n}\n\n"
        "pub struct Printer { config: Config }\n\nimpl Printer {\n    pub fn new() -> Printer {\n"
        "        Printer { config: Config::default() }\n    }\n}\n",
    )
    conn = open_store(db_path)
    index_tree(repo.root, conn)
    api = module_contract(conn, "src/printer.rs")["public_api"]
    assert [(a["kind"], a["name"]) for a in api] == [("struct", "Printer"), ("impl", "Printer")]


def test_a_module_of_one_documented_class_has_its_summary_for_a_role(repo: Repo, db_path: Path) -> None:
    """A Java or TypeScript file of one class documents the class, not the file: its summary is the module's role
    where the module states none (a pack's entry of typeorm's QueryRunner.ts said nothing past its path)."""
    repo.write(
        "src/QueryRunner.ts",
        "import { Table } from './Table';\n\n/**\n * Runs queries on a single database connection.\n */\n"
        "export interface QueryRunner {\n  query(sql: string): Promise<Table>;\n}\n",
    )
    repo.write("src/Table.ts", "/** A table. */\nexport class Table {}\n\n/** A column. */\nexport class Column {}\n")
    conn = open_store(db_path)
    index_tree(repo.root, conn)
    assert module_contract(conn, "src/QueryRunner.ts")["role"] == "Runs queries on a single database connection."
    assert module_contract(conn, "src/Table.ts")["role"] == ""  # two classes: neither speaks for the file


def test_a_ruby_file_has_the_summary_of_the_documented_module_it_opens_for_a_role(repo: Repo, db_path: Path) -> None:
    """rack's utils.rb: `module Rack` / `# Rack::Utils contains a grab-bag...` / `module Utils`, a module of classes
    and methods whose API is what it holds, had no role; its doc (a blank line above it, as YARD reads it) is it."""
    repo.write(
        "lib/rack/utils.rb",
        "# frozen_string_literal: true\n\nmodule Rack\n  # Rack::Utils contains a grab-bag of useful methods.\n\n"
        "  module Utils\n    class Context\n    end\n\n    def escape(s)\n      s\n    end\n  end\nend\n",
    )
    repo.write("lib/rack/shop.rb", "module Rack\n  class Cart\n  end\n\n  class Till\n  end\nend\n")
    conn = open_store(db_path)
    index_tree(repo.root, conn)
    contract = module_contract(conn, "lib/rack/utils.rb")
    assert [a["name"] for a in contract["public_api"]] == ["Context", "escape"]
    assert contract["role"] == "Rack::Utils contains a grab-bag of useful methods."
    assert module_contract(conn, "lib/rack/shop.rb")["role"] == ""  # nothing documented: nothing said
