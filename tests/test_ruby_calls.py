"""Ruby calls by what Ruby's syntax says: the calling class's methods for a bare name or `self`, a constant's class for
`Const.new` and `Const.m`, a variable made by `Const.new`, the modules a class mixes in."""

from __future__ import annotations

import sqlite3

from codeannals.indexer.run import index_tree
from codeannals.store import queries
from codeannals.store.callgraph import callees

from .conftest import Repo, caller_bases

PARSER = """module Shop
  module Helpers
    def shout(text)
      text.upcase
    end
  end

  class Parser
    include Helpers

    class << self
      def parse(data)
        new(data).rows
      end
    end

    def initialize(data)
      @data = data
    end

    def rows
      @data.split(",").each { |row| shout(row) } if ready?
      tidy
    end

    def ready?
      true
    end

    def tidy
      nil
    end

    def each
      rows
    end
  end

  class Table
    def each
      []
    end

    def rows
      []
    end
  end
end
"""

TEST = """require_relative "../lib/shop/parser"

class BaseTest
  def setup
    @parser = Shop::Parser.new("a,b")
  end
end

class ParserTest < BaseTest
  def test_rows
    table = Shop::Table.new
    table.rows
    @parser.rows
    Shop::Parser.parse("c").each
    options = {}
    options.each { |k, v| k }
  end
end
"""


def test_a_call_runs_what_ruby_s_syntax_says(repo: Repo, store: sqlite3.Connection) -> None:
    """`Shop::Parser.parse(...)` runs the method written in `class << self`, `new(data)` in it Parser#initialize;
    `table.rows` on `table = Shop::Table.new` is Table's, `@parser.rows` on a variable a base class's `setup` makes
    Parser's; a bare `tidy` (no arguments: a call, no local binds the name) and `ready?` the calling class's, `shout`
    a mixed-in module's. `options.each` on a value of a class the index does not know is Ruby's own each (a Hash's),
    never a guess at ours; and a workflow's `on:` key is nobody's callee. Before, every Ruby call was a guess by name,
    and `tidy` was no call at all."""
    repo.write("lib/shop/parser.rb", PARSER)
    repo.write("test/parser_test.rb", TEST)
    repo.write(".github/workflows/ci.yml", "on:\n  push:\njobs:\n  test:\n    runs-on: ubuntu-latest\n")
    repo.write("lib/shop/cli.rb", "class Cli\n  def run(opts)\n    opts.on(1)\n  end\nend\n")
    index_tree(repo.root, store)
    lib = "lib/shop/parser.rb::Shop"

    def called(symbol: str) -> set[tuple[str, str | None, str | None, str]]:
        found = callees(store, queries.find_symbol(store, symbol))
        return {(c["name"], c["qualifier"], c["target"], c["basis"]) for c in found}

    assert called("test/parser_test.rb::ParserTest.test_rows") == {
        ("new", "Shop::Table", None, "external"),  # Table has no initialize of its own: Object's
        ("rows", "table", f"{lib}.Table.rows", "method"),
        ("rows", "@parser", f"{lib}.Parser.rows", "method"),
        ("parse", "Shop::Parser", f"{lib}.Parser.parse", "method"),
        ("each", 'Shop::Parser.parse("c")', None, "unresolved"),  # what parse returns, Ruby does not say
        ("each", "options", None, "unresolved"),
    }
    assert called(f"{lib}.Parser.parse") >= {("new", None, f"{lib}.Parser.initialize", "same file")}
    assert called(f"{lib}.Parser.rows") >= {
        ("shout", None, f"{lib}.Helpers.shout", "same file"),
        ("ready?", None, f"{lib}.Parser.ready?", "same file"),
        ("tidy", None, f"{lib}.Parser.tidy", "same file"),
    }
    assert caller_bases(store, f"{lib}.Parser.initialize") == {
        "test/parser_test.rb::BaseTest.setup": "method",
        f"{lib}.Parser.parse": "same file",
    }
    assert caller_bases(store, f"{lib}.Table.each") == {}  # neither `options.each` nor the chain's each
    assert called("lib/shop/cli.rb::Cli.run") == {("on", "opts", None, "unresolved")}  # not ci.yml's `on`


def test_super_what_a_method_returns_and_a_name_only_one_method_has(repo: Repo, store: sqlite3.Connection) -> None:
    """`super` runs the method of its name up the superclasses; `table.rows`, where `table` is a method of the class
    whose value is `@table ||= build_table` and build_table's `Table.new`, runs Table#rows; a call on a value the
    index cannot follow of a name only one method of the project has (`item.flatten_all`) is that method, by its
    unique name (followed to the tests, as Python's), not a guess among many; `Plain.new` of a class with no
    `initialize` of its own runs its superclass's."""
    repo.write(
        "lib/report.rb",
        "class Base\n  def initialize\n    @ready = true\n  end\nend\n\n"
        "class Table\n  def rows\n    []\n  end\n\n  def flatten_all\n    []\n  end\nend\n\n"
        "class Report < Base\n  def initialize\n    super()\n  end\n\n"
        "  def table\n    @table ||= build_table\n  end\n\n  def build_table\n    Table.new\n  end\n\n"
        "  def render(item)\n    table.rows\n    item.flatten_all\n    Plain.new\n  end\nend\n\n"
        "class Plain < Base\nend\n",
    )
    index_tree(repo.root, store)
    found = callees(store, queries.find_symbol(store, "lib/report.rb::Report.render"))
    assert {(c["name"], c["target"], c["basis"]) for c in found} == {
        ("table", "lib/report.rb::Report.table", "same file"),
        ("rows", "lib/report.rb::Table.rows", "same file"),
        ("flatten_all", "lib/report.rb::Table.flatten_all", "unique name"),
        ("new", "lib/report.rb::Base.initialize", "same file"),  # Plain has none: its superclass's runs
    }
    assert caller_bases(store, "lib/report.rb::Base.initialize") == {
        "lib/report.rb::Report.initialize": "same file",
        "lib/report.rb::Report.render": "same file",
    }


def test_a_block_s_parameter_is_what_the_method_yields(repo: Repo, store: sqlite3.Connection) -> None:
    """`CSV.open(path) do |csv|` hands the block what CSV.open yields: `yield csv` of a `csv = new(...)` in the class
    method, a CSV; so `csv.read` in the block is CSV#read. Before, `csv` was a value of no known class, and `read` a
    guess by name."""
    repo.write(
        "lib/csv.rb",
        "class CSV\n  class << self\n    def open(path)\n      csv = new(path)\n      yield csv\n    end\n  end\n\n"
        "  def initialize(path)\n    @path = path\n  end\n\n  def read\n    []\n  end\nend\n\n"
        "class Reader\n  def read\n    nil\n  end\nend\n",
    )
    repo.write("test/csv_test.rb", 'class CSVTest\n  def test_read\n    CSV.open("a") { |csv| csv.read }\n  end\nend\n')
    index_tree(repo.root, store)
    found = callees(store, queries.find_symbol(store, "test/csv_test.rb::CSVTest.test_read"))
    assert {(c["name"], c["target"], c["basis"]) for c in found} == {
        ("open", "lib/csv.rb::CSV.open", "method"),
        ("read", "lib/csv.rb::CSV.read", "method"),
    }


def test_an_alias_and_a_constant_a_top_level_include_brings(repo: Repo, store: sqlite3.Connection) -> None:
    """`include Shop` at a test file's top makes `Cart` Shop::Cart there, as Ruby's constant lookup does through the
    modules mixed in; `cart.def_option(1)` runs Cart#define, which `alias def_option define` names so. Before, `Cart`
    was taken for a library's class and `def_option` for nobody's method."""
    repo.write(
        "lib/shop.rb",
        "module Shop\n  class Cart\n    def define(x)\n      x\n    end\n    alias def_option define\n  end\nend\n",
    )
    repo.write(
        "test/cart_test.rb",
        "include Shop\n\nclass CartTest\n  def test_option\n    cart = Cart.new\n    cart.def_option(1)\n  end\nend\n",
    )
    index_tree(repo.root, store)
    found = callees(store, queries.find_symbol(store, "test/cart_test.rb::CartTest.test_option"))
    assert {(c["name"], c["target"], c["basis"]) for c in found} == {
        ("new", None, "external"),  # Cart has no initialize of its own: Object's
        ("def_option", "lib/shop.rb::Shop.Cart.define", "method"),
    }
    assert caller_bases(store, "lib/shop.rb::Shop.Cart.define") == {"test/cart_test.rb::CartTest.test_option": "method"}


def test_a_chain_of_calls_is_of_what_each_method_returns(repo: Repo, store: sqlite3.Connection) -> None:
    """`Rake.application.thread_pool.join`: Rake.application returns `@application ||= Application.new`, whose
    thread_pool returns a ThreadPool, so join is ThreadPool#join; `rows[0].join` is of an element, which the index
    does not know, and stays a guess."""
    repo.write(
        "lib/rake.rb",
        "module Rake\n  class ThreadPool\n    def join\n      nil\n    end\n  end\n\n"
        "  class Application\n    def thread_pool\n      ThreadPool.new\n    end\n  end\n\n"
        "  class Other\n    def join\n      nil\n    end\n  end\n\n"
        "  class << self\n    def application\n      @application ||= Application.new\n    end\n  end\nend\n",
    )
    repo.write(
        "test/rake_test.rb",
        "class RakeTest\n  def test_join\n    Rake.application.thread_pool.join\n    rows[0].join\n  end\nend\n",
    )
    index_tree(repo.root, store)
    found = callees(store, queries.find_symbol(store, "test/rake_test.rb::RakeTest.test_join"))
    joins = {(c["qualifier"], c["target"], c["basis"]) for c in found if c["name"] == "join"}
    assert joins == {
        ("Rake.application.thread_pool", "lib/rake.rb::Rake.ThreadPool.join", "method"),
        ("rows[0]", None, "unresolved"),  # Array's join, as Ruby's own classes have it: no guess at ours
    }


def test_new_runs_the_initialize_of_a_module_mixed_in(repo: Repo, store: sqlite3.Connection) -> None:
    """`TM.new` of `class TM; include TaskManager; end` runs TaskManager#initialize: the callees answer says so, and
    so does the callers answer of that initialize (answers_sweep found the two disagreeing)."""
    repo.write("lib/task_manager.rb", "module TaskManager\n  def initialize\n    @tasks = {}\n  end\nend\n")
    repo.write(
        "test/tm_test.rb",
        "class TM\n  include TaskManager\nend\n\nclass TMTest\n  def test_new\n    TM.new\n  end\nend\n",
    )
    index_tree(repo.root, store)
    found = callees(store, queries.find_symbol(store, "test/tm_test.rb::TMTest.test_new"))
    assert {(c["name"], c["target"]) for c in found} == {("new", "lib/task_manager.rb::TaskManager.initialize")}
    assert caller_bases(store, "lib/task_manager.rb::TaskManager.initialize") == {
        "test/tm_test.rb::TMTest.test_new": "method"
    }


def test_a_name_rails_classes_have_is_never_the_one_method_of_ours(repo: Repo, store: sqlite3.Connection) -> None:
    """`user.save` on a value the index cannot type: in a Rails app it is most often ActiveRecord's save, so the one
    `save` of the project is only a guess (`name only`), where `item.flatten_all`, a name Rails does not have, is
    the project's one method of that name."""
    repo.write(
        "app/models/draft.rb",
        "class Draft\n  def save\n    true\n  end\n\n  def flatten_all\n    []\n  end\nend\n",
    )
    repo.write(
        "app/jobs/sync.rb", "class Sync\n  def run(user, item)\n    user.save\n    item.flatten_all\n  end\nend\n"
    )
    index_tree(repo.root, store)
    found = callees(store, queries.find_symbol(store, "app/jobs/sync.rb::Sync.run"))
    assert {(c["name"], c["basis"]) for c in found} == {("save", "name only"), ("flatten_all", "unique name")}


def test_a_constant_naming_a_class_and_the_calls_of_a_class_body_and_a_files_top(
    repo: Repo, store: sqlite3.Connection
) -> None:
    """`FileList = Shop::List` in a test class names the class (rake's tests write so): `FileList.new` runs its
    initialize; so does `EMPTY = Empty.new` in a class body, and `ALL = ::Shop::List.new` at a file's top. Before,
    the first was taken for a library's class and the other two were not read at all (rake: calls resolved .779 ->
    .791 of what its suite runs)."""
    repo.write(
        "lib/shop.rb",
        "module Shop\n  class List\n    def initialize\n      @items = []\n    end\n\n    class Empty\n"
        "      def initialize\n        @none = true\n      end\n    end\n\n    EMPTY = Empty.new\n  end\nend\n"
        "\nALL = ::Shop::List.new\n",
    )
    repo.write(
        "test/list_test.rb", "class ListTest\n  FileList = Shop::List\n\n  def test_new\n    FileList.new\n  end\nend\n"
    )
    index_tree(repo.root, store)
    assert caller_bases(store, "lib/shop.rb::Shop.List.initialize") == {
        "test/list_test.rb::ListTest.test_new": "method",
        "lib/shop.rb::ALL": "same file",
    }
    assert caller_bases(store, "lib/shop.rb::Shop.List.Empty.initialize") == {
        "lib/shop.rb::Shop.List.EMPTY": "same file"
    }


def test_writing_an_attribute_calls_its_writer_not_its_reader(repo: Repo, store: sqlite3.Connection) -> None:
    """`Shop.current = cart` runs `Shop.current=`, not the reader `Shop.current` it was taken for (rake's
    `Rake.application = Rake::Application.new`); and a writer is no guess by its name alone, since `attr_accessor`
    makes most writers, which the index holds as no method."""
    repo.write(
        "lib/shop.rb",
        "module Shop\n  def self.current=(cart)\n    @current = cart\n  end\n\n  def self.current\n    @current\n"
        "  end\n\n  class Cart\n    def total=(value)\n      @total = value\n    end\n  end\nend\n",
    )
    repo.write(
        "test/shop_test.rb",
        "class ShopTest\n  def test_current\n    Shop.current = 1\n    Shop.current\n  end\n\n"
        "  def test_total(cart)\n    cart.total = 2\n  end\nend\n",
    )
    index_tree(repo.root, store)
    assert caller_bases(store, "lib/shop.rb::Shop.current=") == {"test/shop_test.rb::ShopTest.test_current": "method"}
    assert caller_bases(store, "lib/shop.rb::Shop.current") == {"test/shop_test.rb::ShopTest.test_current": "method"}
    found = callees(store, queries.find_symbol(store, "test/shop_test.rb::ShopTest.test_total"))
    assert [(c["name"], c["basis"]) for c in found] == [("total=", "name only")]


def test_an_operator_is_a_call_of_the_method_the_class_defines(repo: Repo, store: sqlite3.Connection) -> None:
    """`csv << row`, `a == b`, `table[0]` and `table[0] = v` run the class's `<<`, `==`, `[]` and `[]=` where the
    value's class is known (`row[0] += 1` runs both `[]` and `[]=`); on a value of no known class, or on a literal,
    Ruby's own classes define every operator, so none is a guess at ours (csv's `CSV#<<`, which 114 of its tests run,
    had no caller at all)."""
    repo.write(
        "lib/sheet.rb",
        "class Sheet\n  def <<(row)\n    @rows << row\n    self\n  end\n\n  def ==(other)\n    true\n  end\n\n"
        "  def [](at)\n    @rows[at]\n  end\n\n  def []=(at, row)\n    @rows[at] = row\n  end\nend\n",
    )
    repo.write(
        "test/sheet_test.rb",
        "class SheetTest\n  def test_write\n    sheet = Sheet.new\n    sheet << [1]\n    sheet[0] = [2]\n"
        "    sheet == Sheet.new\n  end\n\n  def test_read(rows)\n    sheet = Sheet.new\n    sheet[1] += 1\n"
        "    rows << 3\n    [] << 4\n    1 + 2\n  end\nend\n",
    )
    index_tree(repo.root, store)
    write, read = "test/sheet_test.rb::SheetTest.test_write", "test/sheet_test.rb::SheetTest.test_read"
    assert caller_bases(store, "lib/sheet.rb::Sheet.<<") == {write: "method"}
    assert caller_bases(store, "lib/sheet.rb::Sheet.==") == {write: "method"}
    assert caller_bases(store, "lib/sheet.rb::Sheet.[]=") == {write: "method", read: "method"}
    assert caller_bases(store, "lib/sheet.rb::Sheet.[]") == {read: "method"}
    found = callees(store, queries.find_symbol(store, read))
    operators = [(c["name"], c["qualifier"], c["target"]) for c in found if c["name"] in ("<<", "+")]
    assert operators == [("<<", "rows", None)]


def test_a_send_calls_the_method_its_symbol_names(repo: Repo, store: sqlite3.Connection) -> None:
    """`__send__(@parse_method)` runs the method whose symbol the instance variable holds, wherever the class assigns
    it (csv's parser picks its parse method so); `send(name)` in a block over a literal list runs each name listed; a
    parameter sent (`el.__send__(id)`) runs what the file's calls of the method pass there (optparse's `visit`)."""
    repo.write(
        "lib/reader.rb",
        "class Reader\n  def initialize(quoted)\n    @parse_method = quoted ? :parse_quoted : :parse_plain\n"
        "    @parse_method = :parse_plain unless quoted\n  end\n\n  def parse\n    __send__(@parse_method)\n  end\n\n"
        "  def parse_plain\n    1\n  end\n\n  def parse_quoted\n    2\n  end\n\n  def inspect\n"
        '    %w[sep quote].map { |name| send(name) }\n  end\n\n  def sep\n    ","\n  end\n\n  def quote\n'
        "    '\"'\n  end\n\n  def each_list\n    visit(:sep_list, 1)\n  end\n\n  def visit(id, arg)\n"
        "    @lists.each { |list| list.__send__(id, arg) }\n  end\nend\n\nclass List\n  def sep_list(arg)\n"
        "    arg\n  end\nend\n",
    )
    index_tree(repo.root, store)
    assert caller_bases(store, "lib/reader.rb::Reader.parse_plain") == {"lib/reader.rb::Reader.parse": "same file"}
    assert caller_bases(store, "lib/reader.rb::Reader.parse_quoted") == {"lib/reader.rb::Reader.parse": "same file"}
    assert caller_bases(store, "lib/reader.rb::Reader.sep") == {"lib/reader.rb::Reader.inspect": "same file"}
    assert caller_bases(store, "lib/reader.rb::Reader.quote") == {"lib/reader.rb::Reader.inspect": "same file"}
    assert caller_bases(store, "lib/reader.rb::List.sep_list") == {"lib/reader.rb::Reader.visit": "unique name"}


SCANNERS = """class Scanner
  def keep_start
    1
  end
end

class InputsScanner
  def keep_start
    2
  end
end
"""

SCANNING_PARSER = """require_relative "scanners"

class Parser
  if ENV["TEST"]
    def build_scanner
      InputsScanner.new
    end
  else
    def build_scanner
      if @string
        Scanner.new
      else
        InputsScanner.new
      end
    end
  end

  def build_other
    @string ? Scanner.new : something
  end

  def parse
    @scanner = build_scanner
    @scanner.keep_start
  end

  def other
    build_other.keep_start
  end
end
"""


def test_a_value_of_either_of_two_classes_calls_the_method_of_each(repo: Repo, store: sqlite3.Connection) -> None:
    """A method ending in an `if`, a `case` or a `?:` whose every branch says its class returns either (csv's
    `build_scanner`: a Scanner or an InputsScanner); a method defined twice (under two conditions) returns what either
    definition does; a call on such a value runs the method of each class, and its callees name both. A branch of no
    known class leaves the value unknown: the call is a guess by its name."""
    repo.write("lib/scanners.rb", SCANNERS)
    repo.write("lib/parser.rb", SCANNING_PARSER)
    index_tree(repo.root, store)
    for scanner in ("Scanner", "InputsScanner"):
        found = caller_bases(store, f"lib/scanners.rb::{scanner}.keep_start")
        assert found == {"lib/parser.rb::Parser.parse": "method", "lib/parser.rb::Parser.other": "name only"}
    parse = callees(store, queries.find_symbol(store, "lib/parser.rb::Parser.parse"))
    assert sorted(c["target"] for c in parse if c["name"] == "keep_start") == [
        "lib/scanners.rb::InputsScanner.keep_start",
        "lib/scanners.rb::Scanner.keep_start",
    ]


def test_a_value_a_class_method_returns_and_one_a_library_may_make(repo: Repo, store: sqlite3.Connection) -> None:
    """`@app = Shop.current` is what `Shop.current` returns (rake's tests set `@app = Rake.application`); a value made
    by our class in one branch and by a library's in another (`File.open`) runs our class's method where it runs any
    of ours, since none of the library's is ours."""
    repo.write(
        "lib/shop.rb",
        "module Shop\n  def self.current\n    @current ||= App.new\n  end\n\n  class App\n    def options\n      1\n"
        "    end\n  end\n\n  class Other\n    def options\n      2\n    end\n  end\n\n  class Runner\n"
        "    def initialize\n      @app = Shop.current\n    end\n\n    def run\n      @app.options\n    end\n\n"
        "    def read(path)\n      io = path ? File.open(path) : App.new\n      io.options\n    end\n  end\nend\n",
    )
    index_tree(repo.root, store)
    assert caller_bases(store, "lib/shop.rb::Shop.App.options") == {
        "lib/shop.rb::Shop.Runner.run": "same file",
        "lib/shop.rb::Shop.Runner.read": "same file",
    }
    assert caller_bases(store, "lib/shop.rb::Shop.Other.options") == {}


def test_a_module_s_instance_variable_is_its_includers(repo: Repo, store: sqlite3.Connection) -> None:
    """A module's method reads the instance variables of the classes including it: optparse's shared tests, a module
    included in two test classes whose base class's `setup` sets `@opt = OptionParser.new`, run `@opt.parse!` on an
    OptionParser. Modules that include each other are no endless walk."""
    repo.write(
        "lib/opts.rb",
        "class Opts\n  def parse!\n    1\n  end\nend\n\nclass Other\n  def parse!\n    2\n  end\nend\n\n"
        "class BaseTest\n  def setup\n    @opt = Opts.new\n  end\nend\n\nmodule Shared\n"
        "  def test_parse\n    @opt.parse!\n  end\nend\n\n"
        "class OneTest < BaseTest\n  include Shared\nend\n\nclass TwoTest < BaseTest\n  include Shared\nend\n\n"
        "module Ping\n  include Pong\n\n  def go\n    @opt.parse!\n  end\nend\n\nmodule Pong\n  include Ping\nend\n",
    )
    index_tree(repo.root, store)
    assert caller_bases(store, "lib/opts.rb::Opts.parse!") == {
        "lib/opts.rb::Shared.test_parse": "same file",
        "lib/opts.rb::Ping.go": "name only",  # no class includes either: unknown, a guess by its name
    }
    assert caller_bases(store, "lib/opts.rb::Other.parse!") == {"lib/opts.rb::Ping.go": "name only"}


def test_a_reader_returns_what_the_class_makes_its_instance_variable(repo: Repo, store: sqlite3.Connection) -> None:
    """`attr_reader :rows` and `def table; @table; end` return what the class's methods make `@rows` and `@table`, so a
    call on what they return (`rows.run`, `self.table.run`, `doc.table.run`) runs that class's method, not every
    method of the name."""
    repo.write(
        "lib/doc.rb",
        "class Doc\n  attr_reader :rows\n\n  def initialize\n    @rows = Rows.new\n    @table = Table.new\n  end\n\n"
        "  def table\n    @table\n  end\n\n  def go\n    rows.run\n    self.table.run\n  end\nend\n\n"
        "class Rows\n  def run\n    1\n  end\nend\n\nclass Table\n  def run\n    2\n  end\nend\n\n"
        "class Other\n  def run\n    3\n  end\nend\n\nclass Reader\n  def read\n    doc = Doc.new\n"
        "    doc.table.run\n  end\nend\n",
    )
    index_tree(repo.root, store)
    assert caller_bases(store, "lib/doc.rb::Rows.run") == {"lib/doc.rb::Doc.go": "same file"}
    assert caller_bases(store, "lib/doc.rb::Table.run") == {
        "lib/doc.rb::Doc.go": "same file",
        "lib/doc.rb::Reader.read": "same file",
    }
    assert caller_bases(store, "lib/doc.rb::Other.run") == {}


def test_a_constant_holding_an_instance_self_class_and_a_copy(repo: Repo, store: sqlite3.Connection) -> None:
    """`DefaultList = List.new` holds a List: `DefaultList.short` runs List's `short` (it was taken for a library's
    class, whose methods are never ours); `self.class.new(...)` in an instance method runs the class's initialize,
    `self.class.parse` its class method; `dup` and `tap` give back a value of the receiver's class."""
    repo.write(
        "lib/opts.rb",
        "class List\n  def short\n    1\n  end\n\n  def self.parse\n    2\n  end\n\n  def initialize\n    @x = 0\n"
        "  end\n\n  def copy\n    self.class.new\n    self.class.parse\n    @mine = List.new\n"
        "    @mine.dup.short\n  end\nend\n\n"
        "class Other\n  def short\n    3\n  end\nend\n\nDefaultList = List.new\nVERSION = '1.0'\n\n"
        "class Parser\n  def go\n    DefaultList.short\n    VERSION.short\n  end\nend\n",
    )
    index_tree(repo.root, store)
    assert caller_bases(store, "lib/opts.rb::List.short") == {
        "lib/opts.rb::Parser.go": "same file",
        "lib/opts.rb::List.copy": "same file",
    }
    assert caller_bases(store, "lib/opts.rb::List.initialize") == {
        "lib/opts.rb::List.copy": "same file",
        "lib/opts.rb::DefaultList": "same file",
    }
    assert caller_bases(store, "lib/opts.rb::List.parse") == {"lib/opts.rb::List.copy": "same file"}
    assert caller_bases(store, "lib/opts.rb::Other.short") == {}  # `VERSION.short` is a String's


def test_a_chain_through_new_is_of_the_class_made(repo: Repo, store: sqlite3.Connection) -> None:
    """`Doc.new(text).root.name`: `new` on a class gives an instance of it, so the chain goes on through what `root`
    returns."""
    repo.write(
        "lib/doc.rb",
        "class Doc\n  def root\n    Node.new\n  end\nend\n\nclass Node\n  def name\n    1\n  end\nend\n\n"
        "class Other\n  def name\n    2\n  end\nend\n\nclass Reader\n  def read(text)\n    Doc.new(text).root.name\n"
        "  end\nend\n",
    )
    index_tree(repo.root, store)
    assert caller_bases(store, "lib/doc.rb::Node.name") == {"lib/doc.rb::Reader.read": "same file"}
    assert caller_bases(store, "lib/doc.rb::Other.name") == {}
