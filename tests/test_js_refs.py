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
