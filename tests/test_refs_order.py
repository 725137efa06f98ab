"""A file's facts do not depend on what was asked before: the refs of Go and TypeScript keep what a name is only when
the walk that found it was whole (indexer/parsing/cyclememo.py), and the captures they read come in source order
(parse.captured). Before, a name first reached at the end of a long chain was kept as unknown for the whole file,
and which name came first varied from one index to the next (hugo's batch.go had 274 or 276 calls)."""

from __future__ import annotations

from codeannals.indexer.parsing.extract import extract
from codeannals.indexer.parsing.parse import captured, language, parse
from tree_sitter import Query

# v9 := v8 ... v1 := v0: v9's type is past the walk's depth limit, v1's two steps away
GO_CHAIN = "\n".join(f"\tv{k} := v{k - 1}" for k in range(9, 0, -1))
JS_CHAIN = "\n".join(f"  const v{k} = v{k - 1};" for k in range(9, 0, -1))


def refs(path: str, source: str, lang: str) -> dict[str | None, str | None]:
    return {c["qualifier"]: c["ref"] for c in extract(path, source.encode(), lang).calls}


def test_a_name_first_met_at_the_end_of_a_long_chain_is_typed_where_it_is_near() -> None:
    go = f"package p\n\ntype T struct{{}}\n\nfunc (t *T) M() {{}}\n\nfunc f() {{\n{GO_CHAIN}\n\tv0 := &T{{}}\n"
    go += "\tv9.M()\n\tv1.M()\n}\n"
    found = refs("p/p.go", go, "go")
    assert found["v1"] == "module:T().M"
    assert found["v9"] is None  # past the depth limit: unknown, and said so
    ts = f"class T {{ m() {{}} }}\nfunction f() {{\n{JS_CHAIN}\n  const v0 = new T();\n  v9.m();\n  v1.m();\n}}\n"
    found = refs("p.ts", ts, "typescript")
    assert found["v1"] == "module:T().m"
    assert found["v9"] == "?"


def test_captures_come_in_source_order_outer_first() -> None:
    source = b"package p\n\nfunc a() { b(c(d())) }\n\nfunc e() { f() }\n"
    calls = captured(Query(language("go"), "(call_expression) @call"), parse(source, "go").root_node)["call"]
    assert [source[n.start_byte : n.start_byte + 1].decode() for n in calls] == ["b", "c", "d", "f"]
