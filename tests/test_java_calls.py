"""Java calls by the types Java declares: a field's, a parameter's, a local's, a class's for a static call."""

from __future__ import annotations

import sqlite3

from codeannals.indexer.run import index_tree
from codeannals.store import queries
from codeannals.store.callgraph import callees

from .conftest import Repo, caller_bases


def test_a_call_runs_the_method_its_value_s_declared_type_declares_or_inherits(
    repo: Repo, store: sqlite3.Connection
) -> None:
    """`store.put(k)` on a field declared `Store store` runs Store.put, on a `Cache cache` parameter Store's put too
    (Cache inherits it) but Cache's own get; `names.add(x)` on a `List<String>` runs java.util's, never a method of
    ours that happens to be called add; `Keys.of(k)` is Keys' static method; a bare `helper()` the calling class's.
    The index had named Other.put and Other.add by their names alone, as `imported name`; a call on a value of a type
    it does not know (`item.add(x)`, item of a type variable) is a guess by name."""
    java = "src/main/java/com/shop"
    repo.write(
        f"{java}/Store.java",
        "package com.shop;\n\npublic class Store {\n  void put(String k) {}\n\n  void get() {}\n}\n",
    )
    repo.write(f"{java}/Cache.java", "package com.shop;\n\npublic class Cache extends Store {\n  void get() {}\n}\n")
    repo.write(
        f"{java}/Keys.java", "package com.shop;\n\nclass Keys {\n  static String of(String k) { return k; }\n}\n"
    )
    repo.write(
        "src/main/java/com/other/Other.java",
        "package com.other;\n\npublic class Other {\n  public void put(String s) {}\n\n"
        "  public void add(String s) {}\n}\n",
    )
    repo.write(
        f"{java}/Service.java",
        "package com.shop;\n\nimport com.other.Other;\nimport java.util.List;\n\n"
        "public class Service {\n  private final Store store = new Store();\n  private List<String> names;\n\n"
        '  void run(Cache cache, Other other) {\n    store.put(Keys.of("a"));\n    names.add("x");\n'
        '    cache.put("b");\n    cache.get();\n    Store local = cache;\n    local.get();\n    helper();\n  }\n\n'
        '  void helper() {}\n\n  <T> void each(T item) {\n    item.add("y");\n  }\n}\n',
    )
    index_tree(repo.root, store)
    run = queries.find_symbol(store, f"{java}/Service.java::Service.run")
    found = {(c["name"], c["qualifier"], c["target"], c["basis"]) for c in callees(store, run)}
    assert found == {
        ("put", "store", f"{java}/Store.java::Store.put", "method"),
        ("of", "Keys", f"{java}/Keys.java::Keys.of", "method"),
        ("add", "names", None, "external"),
        ("put", "cache", f"{java}/Store.java::Store.put", "method"),
        ("get", "cache", f"{java}/Cache.java::Cache.get", "method"),
        ("get", "local", f"{java}/Store.java::Store.get", "method"),
        ("helper", None, f"{java}/Service.java::Service.helper", "same file"),
    }
    assert caller_bases(store, "src/main/java/com/other/Other.java::Other.put") == {}
    # `item.add(...)` on a value of a type variable: which add, the index does not know; a guess, not a resolved call
    assert caller_bases(store, "src/main/java/com/other/Other.java::Other.add") == {
        f"{java}/Service.java::Service.each": "name only"
    }
    assert caller_bases(store, f"{java}/Store.java::Store.get") == {f"{java}/Service.java::Service.run": "method"}


def test_the_overload_the_arguments_fit_and_a_chain_of_fields_and_results(
    repo: Repo, store: sqlite3.Connection
) -> None:
    """javac's bytecode (bench/facts_calls_java.py) named the overload a call's arguments choose, where the index had
    named a name's first: `toJson(JsonNull.INSTANCE)` is toJson(JsonElement), JsonNull extending JsonElement, and
    `toJson(src, "x")` the one of two parameters; `Adapters.ELEMENT.write(w)` runs the method of the static field's
    type, `reader().peek()` that of what reader() returns. `this(...)` and `super(...)` call the constructors."""
    java = "src/main/java/com/g"
    repo.write(f"{java}/JsonElement.java", "package com.g;\n\npublic abstract class JsonElement {}\n")
    repo.write(
        f"{java}/JsonNull.java",
        "package com.g;\n\npublic final class JsonNull extends JsonElement {\n"
        "  public static final JsonNull INSTANCE = new JsonNull();\n}\n",
    )
    repo.write(
        f"{java}/Adapter.java",
        "package com.g;\n\npublic class Adapter {\n  public void write(String w) {}\n\n"
        "  public Reader reader() { return new Reader(); }\n}\n",
    )
    repo.write(f"{java}/Reader.java", "package com.g;\n\npublic class Reader {\n  public int peek() { return 0; }\n}\n")
    repo.write(
        f"{java}/Adapters.java",
        "package com.g;\n\nclass Adapters {\n  static final Adapter ELEMENT = new Adapter();\n}\n",
    )
    repo.write(
        f"{java}/Gson.java",
        "package com.g;\n\npublic class Gson extends Base {\n"
        "  Gson() {\n    this(1);\n  }\n\n  Gson(int n) {\n    super(n);\n  }\n\n"
        "  String toJson(Object src) { return null; }\n\n  String toJson(JsonElement e) { return null; }\n\n"
        "  String toJson(Object src, String name) { return null; }\n\n"
        '  void run(Object src) {\n    toJson(JsonNull.INSTANCE);\n    toJson(src, "x");\n'
        '    Adapters.ELEMENT.write("w");\n    Adapters.ELEMENT.reader().peek();\n  }\n}\n',
    )
    repo.write(f"{java}/Base.java", "package com.g;\n\nclass Base {\n  Base(int n) {}\n}\n")
    index_tree(repo.root, store)
    run = queries.find_symbol(store, f"{java}/Gson.java::Gson.run")
    assert {(c["name"], c["target"]) for c in callees(store, run)} == {
        ("toJson", f"{java}/Gson.java::Gson.toJson#2"),
        ("toJson", f"{java}/Gson.java::Gson.toJson#3"),
        ("write", f"{java}/Adapter.java::Adapter.write"),
        ("reader", f"{java}/Adapter.java::Adapter.reader"),
        ("peek", f"{java}/Reader.java::Reader.peek"),
    }
    assert caller_bases(store, f"{java}/Gson.java::Gson.toJson") == {}
    assert caller_bases(store, f"{java}/Gson.java::Gson.Gson#2") == {f"{java}/Gson.java::Gson.Gson": "same file"}
    assert caller_bases(store, f"{java}/Base.java::Base.Base") == {f"{java}/Gson.java::Gson.Gson#2": "method"}


def test_a_type_qualified_by_its_outer_class_is_that_class_s_nested_one(repo: Repo, store: sqlite3.Connection) -> None:
    """javapoet's FieldSpec holds `CodeBlock.Builder javadoc` and has a Builder of its own: `builder.javadoc.build()`
    is CodeBlock.Builder's build, never FieldSpec.Builder's; and a String parameter takes no StringReader."""
    java = "src/main/java/com/p"
    repo.write(
        f"{java}/CodeBlock.java",
        "package com.p;\n\npublic final class CodeBlock {\n  public static final class Builder {\n"
        "    public CodeBlock build() { return null; }\n  }\n}\n",
    )
    repo.write(
        f"{java}/FieldSpec.java",
        "package com.p;\n\nimport java.io.Reader;\nimport java.io.StringReader;\n\npublic final class FieldSpec {\n"
        '  FieldSpec(Builder builder) {\n    builder.javadoc.build();\n    read(new StringReader("x"));\n  }\n\n'
        "  void read(String text) {}\n\n  void read(Reader reader) {}\n\n"
        "  public static final class Builder {\n    private final CodeBlock.Builder javadoc = null;\n\n"
        "    public FieldSpec build() { return new FieldSpec(this); }\n  }\n}\n",
    )
    index_tree(repo.root, store)
    made = queries.find_symbol(store, f"{java}/FieldSpec.java::FieldSpec.FieldSpec")
    assert {(c["name"], c["target"]) for c in callees(store, made)} == {
        ("build", f"{java}/CodeBlock.java::CodeBlock.Builder.build"),
        ("read", f"{java}/FieldSpec.java::FieldSpec.read#2"),
        ("StringReader", None),
    }


def test_a_call_on_an_interface_or_a_base_class_may_run_each_override_of_ours(
    repo: Repo, store: sqlite3.Connection
) -> None:
    """`adapter.write(out)` on a TypeAdapter runs TypeAdapter's write, and, as the value may be of a class extending it,
    the overrides too: their callers list the call (`override`), so an impact of changing one reaches it. A method
    overriding a library's (`toString`) is left out: every Object's toString() would call it."""
    java = "src/main/java/com/g"
    repo.write(
        f"{java}/TypeAdapter.java",
        "package com.g;\n\npublic abstract class TypeAdapter {\n  public abstract void write(String out);\n}\n",
    )
    repo.write(
        f"{java}/DateAdapter.java",
        "package com.g;\n\nfinal class DateAdapter extends TypeAdapter {\n"
        "  @Override public void write(String out) {}\n\n"
        '  public void write(int out) {}\n\n  @Override public String toString() { return ""; }\n}\n',
    )
    repo.write(
        f"{java}/Gson.java",
        "package com.g;\n\npublic class Gson {\n  void toJson(TypeAdapter adapter, Object any) {\n"
        '    adapter.write("x");\n    any.toString();\n  }\n}\n',
    )
    index_tree(repo.root, store)
    to_json = f"{java}/Gson.java::Gson.toJson"
    assert caller_bases(store, f"{java}/TypeAdapter.java::TypeAdapter.write") == {to_json: "method"}
    assert caller_bases(store, f"{java}/DateAdapter.java::DateAdapter.write") == {to_json: "override"}
    assert caller_bases(store, f"{java}/DateAdapter.java::DateAdapter.write#2") == {}
    assert caller_bases(store, f"{java}/DateAdapter.java::DateAdapter.toString") == {}


def test_anonymous_classes_lambdas_casts_and_strings_choose_what_runs(repo: Repo, store: sqlite3.Connection) -> None:
    """gson's adapters are anonymous classes: in one, a bare `delegate()` is its own sibling method, and `longAdapter`
    the parameter of the method writing it. Of commons-cli's getOptionValue(String, String) and (String, Supplier), a
    lambda takes the Supplier, and `String.valueOf(c)` is a String, not the Option an overload also takes; a cast
    types all that follows it (`(Option) found.get()`)."""
    java = "src/main/java/com/c"
    repo.write(
        f"{java}/Option.java", "package com.c;\n\npublic class Option {\n  public String key() { return null; }\n}\n"
    )
    repo.write(
        f"{java}/Adapter.java",
        "package com.c;\n\npublic abstract class Adapter {\n  public abstract void write(String out);\n}\n",
    )
    repo.write(
        f"{java}/Cli.java",
        "package com.c;\n\nimport java.util.function.Supplier;\n\npublic class Cli {\n"
        "  String value(String name, String fallback) { return fallback; }\n\n"
        "  String value(String name, Supplier<String> fallback) { return null; }\n\n"
        "  String value(Option option, String fallback) { return fallback; }\n\n"
        "  Adapter wrap(final Adapter longAdapter, Object found) {\n"
        '    value(String.valueOf(\'x\'), "d");\n    value("n", () -> "d");\n    ((Option) found).key();\n'
        "    return new Adapter() {\n      Adapter delegate() { return longAdapter; }\n\n"
        "      @Override public void write(String out) {\n        delegate().write(out);\n"
        "        longAdapter.write(out);\n      }\n    };\n  }\n}\n",
    )
    index_tree(repo.root, store)
    wrap = queries.find_symbol(store, f"{java}/Cli.java::Cli.wrap")
    assert {(c["name"], c["target"]) for c in callees(store, wrap) if c["name"] in ("value", "key")} == {
        ("value", f"{java}/Cli.java::Cli.value"),
        ("value", f"{java}/Cli.java::Cli.value#2"),
        ("key", f"{java}/Option.java::Option.key"),
    }
    write = queries.find_symbol(store, f"{java}/Cli.java::Cli.wrap.write")
    assert {(c["qualifier"], c["target"], c["basis"]) for c in callees(store, write)} == {
        (None, f"{java}/Cli.java::Cli.wrap.delegate", "same file"),
        ("delegate()", f"{java}/Adapter.java::Adapter.write", "method"),
        ("longAdapter", f"{java}/Adapter.java::Adapter.write", "method"),
    }
