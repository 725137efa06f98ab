"""JavaScript and TypeScript calls as their files say (indexer/parsing/jsrefs.py): `this.m()` is the class's own
method, a value made by `new C()` (C a class of the file or imported, also through a namespace) or typed `x: C`
runs C's methods and no other class's, and a call through an import of another package is never a call of a
same-named function of the repository."""

from __future__ import annotations

import sqlite3

import pytest

from .conftest import Repo, caller_bases


@pytest.fixture
def shop(repo: Repo, store: sqlite3.Connection) -> sqlite3.Connection:
    from codeannals.indexer.run import index_tree

    repo.write("package.json", '{"name": "shop", "type": "module"}\n')
    repo.write(
        "lib/cart.js",
        "export class Cart {\n  total() { return this.sum(); }\n  sum() { return 1; }\n"
        "  name() { return 'cart'; }\n  clear() { return []; }\n}\n",
    )
    repo.write("lib/item.js", "export class Item {\n  name() { return 'item'; }\n}\n")
    repo.write("lib/paths.js", "export function join(a, b) { return a + b; }\n")
    repo.write("index.js", "export { Cart } from './lib/cart.js';\nexport { Item } from './lib/item.js';\n")
    repo.write(
        "test/cart.test.js",
        "import * as shop from '../index.js';\nimport { Item } from '../lib/item.js';\nimport path from 'node:path';\n"
        "import { join } from 'node:path';\n\n"
        "test('total', () => {\n  const cart = new shop.Cart();\n  cart.total();\n  cart.name();\n"
        "  const item = new Item();\n  item.name();\n  join('a', 'b');\n});\n",
    )
    repo.write(
        "src/report.ts",
        "import { Cart } from '../lib/cart.js';\n\nexport function report(cart: Cart): number {\n"
        "  return cart.total();\n}\n",
    )
    index_tree(repo.root, store)
    return store


def test_this_and_a_value_of_a_class_call_that_classes_methods_and_no_other(shop: sqlite3.Connection) -> None:
    """`this.sum()` in Cart.total is Cart.sum; `cart.name()` on `new shop.Cart()` (through the namespace import
    and index.js's re-export) is Cart.name, not Item.name, and `item.name()` on `new Item()` is Item.name;
    `cart: Cart` in TypeScript is a Cart. Before, each `name()` was a guess at both classes."""
    assert caller_bases(shop, "lib/cart.js::Cart.sum") == {"lib/cart.js::Cart.total": "method"}
    assert caller_bases(shop, "lib/cart.js::Cart.name") == {"test/cart.test.js": "imported name"}
    assert caller_bases(shop, "lib/item.js::Item.name") == {"test/cart.test.js": "imported name"}
    assert caller_bases(shop, "lib/cart.js::Cart.total") == {
        "test/cart.test.js": "imported name",
        "src/report.ts::report": "imported name",
    }


def test_a_call_through_an_import_of_another_package_is_not_the_repositorys(shop: sqlite3.Connection) -> None:
    """`join` imported from node:path is Node's, whatever the repository names join."""
    assert caller_bases(shop, "lib/paths.js::join") == {}


def test_a_test_constructing_a_class_is_not_taken_to_run_every_method_of_it(shop: sqlite3.Connection) -> None:
    """`new shop.Cart()` is a call of Cart's constructor, through the namespace import; the test then calls
    total and name, so it is listed for them and not for clear, which nothing calls. (In Python, where a test
    constructing a class is taken to run its methods, calls on instances are fewer to type.)"""
    from codeannals.store import queries, testmap

    assert caller_bases(shop, "lib/cart.js::Cart") == {"test/cart.test.js": "constructor"}

    def tests(symbol_id: str) -> list[str]:
        found = testmap.tests_for_symbol(shop, queries.find_symbol(shop, symbol_id), fallback=False)
        return [t.test for t in found if t.by_call]

    assert tests("lib/cart.js::Cart.name") == ["test/cart.test.js"]
    assert tests("lib/cart.js::Cart.clear") == []


def test_a_function_handed_on_as_an_argument_is_reached_through_the_function_handing_it_on(
    repo: Repo, store: sqlite3.Connection
) -> None:
    """An event handler is never called by name: `socket.on('error', onError)` hands it to whoever emits. The
    function handing it on stands in for that caller, whether the handler is the file's, imported by name or
    through a namespace, `this.m` or a method of a value of a known class; a parameter handed on says nothing."""
    from codeannals.indexer.run import index_tree

    repo.write(
        "lib/handlers.js",
        "function onError (err) { return err.message }\nconst format = (x) => String(x)\n"
        "module.exports = { onError, format }\n",
    )
    repo.write(
        "lib/client.js",
        "const { onError } = require('./handlers')\nconst handlers = require('./handlers')\n\n"
        "function onClose () { return 1 }\n\n"
        "class Client {\n  connect (socket, listener) {\n    socket.on('error', onError)\n"
        "    socket.on('close', onClose)\n    socket.on('data', this.onData)\n    socket.on('x', listener)\n"
        "    return [1].map(handlers.format)\n  }\n\n  onData (d) { return d }\n}\n\n"
        "function start (socket) { const c = new Client(); socket.on('end', c.onData) }\n\n"
        "module.exports = { Client, start }\n",
    )
    index_tree(repo.root, store)
    connect = "lib/client.js::Client.connect"
    assert caller_bases(store, "lib/handlers.js::onError") == {connect: "named as a value"}
    assert caller_bases(store, "lib/handlers.js::format") == {connect: "named as a value"}
    assert caller_bases(store, "lib/client.js::onClose") == {connect: "named as a value"}
    assert caller_bases(store, "lib/client.js::Client.onData") == {
        connect: "named as a value",
        "lib/client.js::start": "named as a value",
    }


def test_typescript_types_what_its_files_declare(repo: Repo, store: sqlite3.Connection) -> None:
    """TypeScript says what a value is, and the index reads what it says: a field the class declares (in its body
    or as a constructor's parameter property), what a method returns (`: this`, `: Builder<T>`, `: Promise<T>`),
    `x as C` and `const b: C`. A name an index.ts brings with `export * from` is the module's. A call of an
    interface's method calls the interface's declaration, and may run the method of each class implementing it
    (`through an interface`). A value the file does not type (`response.clone()`) is a guess by name: before,
    a file importing the module the method is in made it a resolved call."""
    from codeannals.indexer.run import index_tree
    from codeannals.store import lookups, queries

    repo.write("package.json", '{"name": "orm"}\n')
    repo.write("src/driver.ts", "export interface Driver {\n  connect(): void;\n}\n")
    repo.write(
        "src/postgres.ts",
        "import { Driver } from './driver';\n\nexport class PostgresDriver implements Driver {\n  connect() {}\n}\n\n"
        "export class Other {\n  connect() {}\n}\n",
    )
    repo.write(
        "src/builder.ts",
        "import { Driver } from './driver';\n\n"
        "export class Builder<T> {\n  where(c: string): this { return this; }\n"
        "  select(): Builder<T> { return this; }\n  async run(): Promise<Result> { return new Result(); }\n"
        "  clone() { return this; }\n}\n\n"
        "export class Result {\n  rows(): number { return 0; }\n}\n\n"
        "export function make(): any { return null; }\n\n"
        "export class Repo {\n  private readonly cache: Builder<number>;\n\n"
        "  constructor(private readonly builder: Builder<string>, readonly driver: Driver) {\n"
        "    this.cache = builder as any;\n  }\n\n"
        "  async find() {\n    return (await this.builder.where('a').select().run()).rows();\n  }\n\n"
        "  open() {\n    this.driver.connect();\n    this.cache.clone();\n  }\n\n"
        "  cast(x: unknown) {\n    (x as Builder<string>).where('b');\n    const b: Builder<string> = make();\n"
        "    b.select();\n  }\n}\n",
    )
    repo.write("src/index.ts", "export * from './driver';\nexport * from './postgres';\nexport * from './builder';\n")
    repo.write(
        "test/repo.test.ts",
        "import { Repo, Builder } from '../src/index';\n\n"
        "test('find', async () => {\n  const repo = new Repo(new Builder(), null);\n  await repo.find();\n"
        "  const response = await fetch('x');\n  response.clone();\n});\n",
    )
    index_tree(repo.root, store)

    def callees(symbol_id: str) -> dict[str, tuple[str | None, str]]:
        found = lookups.callees(store, queries.find_symbol(store, symbol_id))
        return {c["name"]: (c["target"], c["basis"]) for c in found}

    builder = "src/builder.ts::Builder"
    assert callees("src/builder.ts::Repo.find") == {
        "where": (f"{builder}.where", "method"),  # a field: the constructor's parameter property
        "select": (f"{builder}.select", "method"),  # what `where(): this` returns
        "run": (f"{builder}.run", "method"),  # what `select(): Builder<T>` returns
        "rows": ("src/builder.ts::Result.rows", "method"),  # awaited, what `run(): Promise<Result>` returns
    }
    assert callees("src/builder.ts::Repo.open") == {
        "connect": ("src/driver.ts::Driver.connect", "method"),  # the interface's declaration
        "clone": (f"{builder}.clone", "method"),  # a field declared in the class's body
    }
    assert callees("src/builder.ts::Repo.cast") == {
        "where": (f"{builder}.where", "method"),
        "make": ("src/builder.ts::make", "same file"),
        "select": (f"{builder}.select", "method"),
    }
    # PostgresDriver implements Driver; Other has a connect too, but says it implements nothing.
    assert caller_bases(store, "src/postgres.ts::PostgresDriver.connect") == {
        "src/builder.ts::Repo.open": "through an interface"
    }
    assert caller_bases(store, "src/postgres.ts::Other.connect") == {}
    # `export * from './builder'` in src/index.ts: the test's Repo is builder.ts's.
    assert caller_bases(store, "src/builder.ts::Repo") == {"test/repo.test.ts": "constructor"}
    assert caller_bases(store, f"{builder}.clone") == {
        "src/builder.ts::Repo.open": "method",
        "test/repo.test.ts": "name only",  # `response.clone()`: fetch's Response, as far as the file says
    }


def test_a_fields_declared_type_and_a_collections_elements_type_the_calls_across_files(
    repo: Repo, store: sqlite3.Connection
) -> None:
    """`column.relation.join()` where another file's class declares `relation?: Relation`: the declared types of
    classes' fields are indexed (the dependencies projection's `fields`), so the store follows them from any
    file, a base class's too. An element of a collection the code declares (`columns: Column[]`, `let sources:
    Source[]`) types `for (const c of ...)`, a callback's parameter (`sources.map(s => s.open())`) and what
    `find` gives; a method of the array itself (`sources.map`) is none of ours."""
    from codeannals.indexer.run import index_tree
    from codeannals.store import lookups, queries

    repo.write("package.json", '{"name": "orm"}\n')
    repo.write("src/relation.ts", "export class Relation {\n  join(): void {}\n}\n")
    repo.write(
        "src/column.ts",
        "import { Relation } from './relation';\n\nexport class Base {\n  relation?: Relation;\n}\n\n"
        "export class Column extends Base {\n  open(): void {}\n}\n\n"
        "export class Table {\n  columns: Column[] = [];\n  map(): void {}\n}\n",
    )
    repo.write(
        "src/use.ts",
        "import { Column, Table } from './column';\n\n"
        "export function each(table: Table, column: Column) {\n  column.relation!.join();\n"
        "  for (const c of table.columns) {\n    c.open();\n  }\n"
        "  table.columns.forEach((c) => c.relation?.join());\n"
        "  let sources: Column[] = [];\n  sources.map((s) => s.open());\n"
        "  sources.find((s) => s.open)!.open();\n}\n",
    )
    index_tree(repo.root, store)
    found = lookups.callees(store, queries.find_symbol(store, "src/use.ts::each"))
    called = {(c["name"], c["target"], c["basis"]) for c in found}
    assert called == {
        ("join", "src/relation.ts::Relation.join", "imported name"),  # Base's field, through Column
        ("open", "src/column.ts::Column.open", "imported name"),  # for of, the callbacks, find's element
        ("forEach", None, "unresolved"),  # on a field: what its `Column[]` has, the store does not say
        ("map", None, "external"),  # on `sources: Column[]`: Array's map, not Table.map
        ("find", None, "external"),
    }


def test_a_field_a_chained_assignment_or_an_initializer_makes_types_its_calls(
    repo: Repo, store: sqlite3.Connection
) -> None:
    """undici's FixedQueue: `this.head = this.tail = new FixedCircularBuffer()` types both fields, and SendQueue's
    `#queue = new FixedQueue()` its private field, so `this.head.push()` and `this.#queue.push()` are those classes'
    methods, not guesses among every `push`; a static field's initializer is no instance's."""
    from codeannals.indexer.run import index_tree
    from codeannals.store import lookups, queries

    repo.write("package.json", '{"name": "queue"}\n')
    repo.write(
        "lib/queue.js",
        "class Buffer {\n  push (x) { return x }\n}\n\nclass Other {\n  push (x) { return x }\n}\n\n"
        "class Queue {\n  static spare = new Other()\n  #backlog = new Buffer()\n"
        "  constructor () {\n    this.head = this.tail = new Buffer()\n  }\n"
        "  push (x) {\n    this.head.push(x)\n    this.tail.push(x)\n    this.#backlog.push(x)\n  }\n}\n\n"
        "module.exports = { Queue, Other }\n",
    )
    index_tree(repo.root, store)
    found = lookups.callees(store, queries.find_symbol(store, "lib/queue.js::Queue.push"))
    assert {(c["qualifier"], c["target"], c["basis"]) for c in found} == {
        ("this.head", "lib/queue.js::Buffer.push", "method"),
        ("this.tail", "lib/queue.js::Buffer.push", "method"),
        ("this.#backlog", "lib/queue.js::Buffer.push", "method"),
    }


def test_a_bare_call_is_the_function_its_name_is_bound_to_where_it_is_called(
    repo: Repo, store: sqlite3.Connection
) -> None:
    """JavaScript scopes a name lexically: `makeRequest()` in each test's callback is that callback's own function
    (two of one name: two edges, each its own), `setTimeout()` in an exported object's methods is the global
    (the object's own `setTimeout` method binds no name), and so is `new Headers()` where the file declares none. In a
    script without import or export, a name bound nowhere may be another script's global function: the rules by
    name apply there."""
    from codeannals.indexer.run import index_tree
    from codeannals.store import lookups, queries

    repo.write("package.json", '{"name": "lex"}\n')
    repo.write(
        "lib/timers.js",
        "module.exports = {\n  setTimeout (fn, ms) {\n    return setTimeout(fn, ms)\n  },\n"
        "  later (fn) {\n    return setTimeout(fn, 0)\n  },\n  headers () {\n    return new Headers()\n  }\n}\n",
    )
    repo.write(
        "test/pipelining.js",
        "const { test } = require('node:test')\n\n"
        "test('one', () => {\n  makeRequest(1)\n  function makeRequest (i) { return i }\n})\n\n"
        "test('two', () => {\n  makeRequest()\n  function makeRequest () { return 2 }\n})\n",
    )
    repo.write("web/page.js", "function helper () { return 1 }\n")
    repo.write("web/app.js", "function main () { return helper() }\n")
    index_tree(repo.root, store)
    assert caller_bases(store, "lib/timers.js::setTimeout") == {}
    assert caller_bases(store, "test/pipelining.js::makeRequest") == {"test/pipelining.js": "same file"}
    assert caller_bases(store, "test/pipelining.js::makeRequest#2") == {"test/pipelining.js": "same file"}
    found = lookups.callees(store, queries.find_symbol(store, "lib/timers.js::headers"))
    assert [(c["name"], c["target"], c["basis"]) for c in found] == [("Headers", None, "external")]
    assert caller_bases(store, "web/page.js::helper") == {"web/app.js::main": "name only"}


def test_typescript_types_callbacks_statics_getters_and_this_as_their_declarations_say(
    repo: Repo, store: sqlite3.Connection
) -> None:
    """A callback's parameter is what the function it is handed to declares (`manager.transaction(em =>
    em.save())`, `new Brackets(qb => qb.where())`, a union's function type included), `connect().then(ds =>
    ...)` what the promise gives, and an element of what a call returns (`(await connectAll()).map(...)`). A
    class's own name calls its statics (an inherited one too); a getter gives what it returns; a method declared
    `: this` in a base gives the class it is called on (`qb.clone().orderBy()` on a Select). A global in a module
    (`Promise.all`) is none of ours. Before, each was a guess by name or nothing."""
    from codeannals.indexer.run import index_tree
    from codeannals.store import lookups, queries

    repo.write("package.json", '{"name": "orm"}\n')
    repo.write(
        "src/query.ts",
        "export class Query {\n  clone(): this { return this; }\n  where(): void {}\n}\n\n"
        "export class Select extends Query {\n  orderBy(): void {}\n}\n\n"
        "export class Brackets {\n  constructor(factory: (qb: Query) => any) {}\n}\n",
    )
    repo.write(
        "src/manager.ts",
        "import { Select } from './query';\n\nexport class Entity {\n  static create(): void {}\n}\n\n"
        "export class Manager {\n  save(): void {}\n  get select(): Select { return new Select(); }\n"
        "  async transaction<T>(levelOrRun: string | ((em: Manager) => Promise<T>), run?: (em: Manager) => T) {}\n"
        "  static open(): Manager { return Manager.build(); }\n"
        "  static build(): Manager { return new Manager(); }\n}\n\n"
        "export async function connect(): Promise<Manager> { return new Manager(); }\n"
        "export async function connectAll(): Promise<Manager[]> { return []; }\n",
    )
    repo.write(
        "src/use.ts",
        "import { Brackets } from './query';\nimport { Entity, Manager, connect, connectAll } from './manager';\n\n"
        "class User extends Entity {}\n\n"
        "export async function use(manager: Manager) {\n"
        "  await manager.transaction(async (em) => em.save());\n"
        "  await manager.transaction('serializable', async (em) => em.save());\n"
        "  new Brackets((qb) => qb.where());\n"
        "  connect().then((m) => m.save());\n"
        "  (await connectAll()).map((m) => m.save());\n"
        "  User.create();\n"
        "  manager.select.clone().orderBy();\n"
        "  await Promise.all([]);\n}\n",
    )
    index_tree(repo.root, store)
    assert caller_bases(store, "src/manager.ts::Manager.build") == {"src/manager.ts::Manager.open": "method"}
    found = lookups.callees(store, queries.find_symbol(store, "src/use.ts::use"))
    called = {(c["name"], c["target"], c["basis"]) for c in found}
    assert called == {
        ("transaction", "src/manager.ts::Manager.transaction", "imported name"),
        ("save", "src/manager.ts::Manager.save", "imported name"),  # each callback's `em` and `m`
        ("Brackets", "src/query.ts::Brackets", "constructor"),
        ("where", "src/query.ts::Query.where", "imported name"),
        ("connect", "src/manager.ts::connect", "imported name"),
        ("then", None, "unresolved"),  # a Promise's, which the store reads as what it gives
        ("connectAll", "src/manager.ts::connectAll", "imported name"),
        ("map", None, "unresolved"),
        ("create", "src/manager.ts::Entity.create", "method"),  # User's own name: its base's static
        ("clone", "src/query.ts::Query.clone", "imported name"),
        ("orderBy", "src/query.ts::Select.orderBy", "imported name"),
        ("all", None, "external"),
    }


def test_a_module_required_or_imported_as_itself_is_what_it_exports(repo: Repo, store: sqlite3.Connection) -> None:
    """`const Agent = require('./agent')` binds what agent.js exports as itself (`module.exports = Agent`, `=
    class FixedQueue {}`, `= function () {}`), and `import delay from` what `export default` names: `new
    Agent()` is an Agent, whose base (`extends Base`, Base required the same way) has `close`; `Agent.create()`
    is its static; `debug()` the exported function; `this.queue.push()` where the class assigns `this.queue =
    new FixedQueue()` alone is FixedQueue's; `module.exports = { Readable: BodyReadable }` exports BodyReadable
    as Readable. A module exporting an object is not a definition of it: the rules by name apply."""
    from codeannals.indexer.run import index_tree

    repo.write("package.json", '{"name": "agents"}\n')
    repo.write("lib/base.js", "class Base {\n  close () {}\n}\n\nmodule.exports = Base\n")
    repo.write(
        "lib/agent.js",
        "const Base = require('./base')\nconst FixedQueue = require('./queue')\n\nclass Agent extends Base {\n"
        "  #pending\n\n  constructor () {\n    super()\n    this.queue = new FixedQueue()\n"
        "    this.#pending = new FixedQueue()\n  }\n\n  dispatch () {\n    this.queue.push()\n  }\n\n"
        "  flush () {\n    this.#pending.push()\n  }\n\n  static create () {}\n}\n\nmodule.exports = Agent\n",
    )
    repo.write("lib/queue.js", "module.exports = class FixedQueue {\n  push () {}\n}\n")
    repo.write("lib/debug.js", "module.exports = function (message) {\n  return message\n}\n")
    repo.write("lib/util.js", "function helper () {}\n\nmodule.exports = { helper }\n")
    repo.write(
        "lib/readable.js",
        "const { Readable } = require('node:stream')\n\nclass BodyReadable extends Readable {\n  dump () {}\n}\n\n"
        "module.exports = { Readable: BodyReadable }\n",
    )
    repo.write(
        "src/delay.ts",
        "export type Options = {}\n\nexport function other (): void {}\n\n"
        "export default async function delay (ms: number): Promise<void> {}\n",
    )
    repo.write(
        "test/agent.test.js",
        "const Agent = require('../lib/agent')\nconst FixedQueue = require('../lib/queue')\n"
        "const debug = require('../lib/debug')\nconst util = require('../lib/util')\n\n"
        "const agent = new Agent()\nagent.dispatch()\nagent.close()\nAgent.create()\n"
        "new FixedQueue().push()\ndebug('x')\nutil.helper()\n\n"
        "const { Readable } = require('../lib/readable')\nnew Readable().dump()\n",
    )
    repo.write("src/use.ts", "import delay from './delay'\n\nexport async function wait () {\n  await delay(1)\n}\n")
    index_tree(repo.root, store)
    assert caller_bases(store, "lib/agent.js::Agent") == {"test/agent.test.js": "constructor"}
    assert caller_bases(store, "lib/agent.js::Agent.dispatch") == {"test/agent.test.js": "imported name"}
    assert caller_bases(store, "lib/base.js::Base.close") == {"test/agent.test.js": "imported name"}
    assert caller_bases(store, "lib/agent.js::Agent.create") == {"test/agent.test.js": "imported name"}
    assert caller_bases(store, "lib/queue.js::FixedQueue.push") == {
        "test/agent.test.js": "imported name",
        "lib/agent.js::Agent.dispatch": "method",  # `this.queue`, assigned a FixedQueue alone
        "lib/agent.js::Agent.flush": "method",  # `this.#pending`, a private field, the same
    }
    assert caller_bases(store, "lib/debug.js::module.exports") == {"test/agent.test.js": "imported name"}
    assert caller_bases(store, "lib/util.js::helper") == {"test/agent.test.js": "imported name"}
    assert caller_bases(store, "lib/readable.js::BodyReadable") == {"test/agent.test.js": "constructor"}
    assert caller_bases(store, "lib/readable.js::BodyReadable.dump") == {"test/agent.test.js": "imported name"}
    assert caller_bases(store, "src/delay.ts::delay") == {"src/use.ts::wait": "imported name"}
    assert caller_bases(store, "src/delay.ts::other") == {}


def test_interface_properties_and_a_getter_beside_its_setter_type_a_chain(
    repo: Repo, store: sqlite3.Connection
) -> None:
    """`runner.manager.save()` where the interface Runner declares `manager: Manager`, and
    `alias.metadata.build()` where Alias has a setter and a getter of metadata: the getter gives the value."""
    from codeannals.indexer.run import index_tree
    from codeannals.store import lookups, queries

    repo.write("package.json", '{"name": "orm"}\n')
    repo.write(
        "src/model.ts",
        "export class Manager {\n  save(): void {}\n}\n\nexport class Metadata {\n  build(): void {}\n}\n\n"
        "export interface Runner {\n  manager: Manager\n}\n\n"
        "export class Alias {\n  private m?: Metadata\n  set metadata(m: Metadata) { this.m = m }\n"
        "  get metadata(): Metadata { return this.m! }\n}\n",
    )
    repo.write(
        "src/use.ts",
        "import { Alias, Runner } from './model'\n\n"
        "export function use(runner: Runner, alias: Alias) {\n  runner.manager.save()\n  alias.metadata.build()\n}\n",
    )
    index_tree(repo.root, store)
    found = lookups.callees(store, queries.find_symbol(store, "src/use.ts::use"))
    assert {(c["name"], c["target"], c["basis"]) for c in found} == {
        ("save", "src/model.ts::Manager.save", "imported name"),
        ("build", "src/model.ts::Metadata.build", "imported name"),
    }


def test_a_union_with_one_class_and_a_conditional_of_two_typed_values_type_their_calls(
    repo: Repo, store: sqlite3.Connection
) -> None:
    """`tableOrName: Table | string` is a Table where a method is called on it (TypeScript narrows it first), and
    `const table = isTable(t) ? t : await this.load(t)` may be either branch's: each is followed. A union of two
    classes names neither."""
    from codeannals.indexer.run import index_tree
    from codeannals.store import lookups, queries

    repo.write("package.json", '{"name": "orm"}\n')
    repo.write(
        "src/table.ts",
        "export class Table {\n  clone(): Table { return this }\n}\n\n"
        "export class View {\n  clone(): View { return this }\n}\n",
    )
    repo.write(
        "src/runner.ts",
        "import { Table, View } from './table'\n\nexport class Runner {\n"
        "  async load(name: string): Promise<Table> { return new Table() }\n"
        "  async drop(tableOrName: Table | string, either: Table | View) {\n"
        "    const table = typeof tableOrName !== 'string' ? tableOrName : await this.load(tableOrName)\n"
        "    table.clone()\n    either.clone()\n  }\n}\n",
    )
    index_tree(repo.root, store)
    found = lookups.callees(store, queries.find_symbol(store, "src/runner.ts::Runner.drop"))
    called = {(c["target"], c["basis"]) for c in found}
    assert ("src/table.ts::Table.clone", "imported name") in called
    assert ("src/table.ts::View.clone", "imported name") not in called  # `either`: a guess, if anything
    assert ("src/runner.ts::Runner.load", "method") in called


def test_what_a_method_returns_where_it_declares_nothing_and_an_element_a_fields_find_gives(
    repo: Repo, store: sqlite3.Connection
) -> None:
    """A method declaring no result whose every `return` is `this` (or `new C()`, an arrow function's expression
    too) gives that, so `qb.where().build()` and `driver.open().save()` are followed; one returning two things
    gives none (a guess by name). `table.columns.find(...)` on a field declared `Column[]` is a Column."""
    from codeannals.indexer.run import index_tree
    from codeannals.store import lookups, queries

    repo.write("package.json", '{"name": "orm"}\n')
    repo.write(
        "src/model.ts",
        "export class Manager {\n  save(): void {}\n}\n\nexport class Column {\n  build(): void {}\n}\n\n"
        "export class Table {\n  columns: Column[] = []\n}\n\n"
        "export class Query {\n  where() {\n    return this\n  }\n  build(): void {}\n"
        "  either(flag: boolean) {\n    if (flag) return new Manager()\n    return new Column()\n  }\n}\n\n"
        "export class Driver {\n  runner = () => new Manager()\n  open() {\n    return new Manager()\n  }\n}\n",
    )
    repo.write(
        "src/use.ts",
        "import { Driver, Query, Table } from './model'\n\n"
        "export function use(qb: Query, driver: Driver, table: Table) {\n"
        "  qb.where().build()\n  driver.open().save()\n  table.columns.find((c) => c)!.build()\n"
        "  qb.either(true).save()\n}\n",
    )
    index_tree(repo.root, store)
    found = lookups.callees(store, queries.find_symbol(store, "src/use.ts::use"))
    assert {(c["name"], c["target"], c["basis"]) for c in found} == {
        ("where", "src/model.ts::Query.where", "imported name"),
        ("build", "src/model.ts::Query.build", "imported name"),
        ("open", "src/model.ts::Driver.open", "imported name"),
        ("save", "src/model.ts::Manager.save", "imported name"),
        ("find", None, "unresolved"),
        ("build", "src/model.ts::Column.build", "imported name"),
        ("either", "src/model.ts::Query.either", "imported name"),
        ("save", "src/model.ts::Manager.save", "name only"),  # on what `either` gives: a guess by name
    }


def test_an_instance_a_module_holds_is_that_class_where_it_is_imported(repo: Repo, store: sqlite3.Connection) -> None:
    """`export const registry = new Registry()` (TypeScript) and `const pool = new Pool()` then `module.exports = {
    pool }` (CommonJS): another file's `registry.register()` and `pool.acquire()` are those classes' methods."""
    from codeannals.indexer.run import index_tree

    repo.write(
        "src/registry.ts",
        "export class Registry {\n  register(x: string) { return x }\n}\nexport const registry = new Registry()\n",
    )
    repo.write(
        "src/main.ts",
        'import { registry } from "./registry"\n\nexport function setup() {\n  registry.register("a")\n}\n',
    )
    repo.write(
        "lib/pool.js", "class Pool { acquire() { return 1 } }\nconst pool = new Pool()\nmodule.exports = { pool }\n"
    )
    repo.write(
        "lib/use.js",
        'const { pool } = require("./pool")\nfunction use () { return pool.acquire() }\nmodule.exports = use\n',
    )
    index_tree(repo.root, store)
    assert caller_bases(store, "src/registry.ts::Registry.register") == {"src/main.ts::setup": "imported name"}
    assert caller_bases(store, "lib/pool.js::Pool.acquire") == {"lib/use.js::use": "imported name"}


def test_a_value_typed_through_itself_is_untyped_and_its_file_is_read() -> None:
    """`for (const e of xs) { const xs = e.kids }` binds each name through the other: vitest's run.ts was lost whole
    to an endless walk ("extractor error"); now its symbols and calls are read and the loop's values are untyped."""
    from codeannals.indexer.parsing.extract import extract

    source = b"function walk(xs) {\n  for (const e of xs) { const xs = e.kids.map((k) => k); xs.sort(); }\n}\n"
    facts = extract("run.ts", source, "typescript")
    assert [s["id"] for s in facts.symbols] == ["run.ts::walk"]
    assert {c["name"] for c in facts.calls} >= {"map", "sort"}


def test_a_definition_a_module_re_exports_under_another_name_is_called_by_that_name(
    repo: Repo, store: sqlite3.Connection
) -> None:
    """vitest's utils/error.ts imports serializeValue and exports it as serializeError: `serializeError(e)` elsewhere
    calls serializeValue, and serializeValue's callers say so (answers_sweep found the callees answer alone had it)."""
    from codeannals.indexer.run import index_tree
    from codeannals.store import lookups, queries

    repo.write("utils/serialize.ts", "export function serializeValue(v: unknown): string {\n  return String(v);\n}\n")
    reexport = "import { serializeValue } from './serialize';\nexport { serializeValue as serializeError };\n"
    repo.write("utils/error.ts", reexport)
    repo.write(
        "worker.ts",
        "import { serializeError } from './utils/error';\n\n"
        "export function onMessage(e: Error): string {\n  return serializeError(e);\n}\n",
    )
    index_tree(repo.root, store)
    callees = lookups.callees(store, queries.find_symbol(store, "worker.ts::onMessage"))
    assert [c["target"] for c in callees] == ["utils/serialize.ts::serializeValue"]
    assert "worker.ts::onMessage" in caller_bases(store, "utils/serialize.ts::serializeValue")


def test_a_second_class_of_a_name_is_called_through_the_name_bound_to_it(repo: Repo, store: sqlite3.Connection) -> None:
    """`var z = class r { }` in a bundle holding another `class r`: `new z()` is the second r (`r#2`), and the
    callers of r#2 hold the call as its callees do (hugo's renderkatex.bundle.js: 61 calls one way only)."""
    from codeannals.indexer.run import index_tree
    from codeannals.store import lookups, queries

    repo.write("bundle.js", "class r { m() {} }\nvar z = class r { n() {} };\nfunction use() { return new z(); }\n")
    index_tree(repo.root, store)
    assert caller_bases(store, "bundle.js::r#2") == {"bundle.js::use": "constructor"}
    assert caller_bases(store, "bundle.js::r") == {}
    assert [c["target"] for c in lookups.callees(store, queries.find_symbol(store, "bundle.js::use"))] == [
        "bundle.js::r#2"
    ]
