"""Code-knowledge tools through the SDK's in-process client, on a real indexed repository."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from codeannals.server.app import FRESHNESS_TTL_SECONDS, App
from codeannals.server.mcp import build_server
from mcp.shared.exceptions import MCPError

from .mcp_support import call, data, error_text, isolated_git_env, make_shop

CODE_TOOLS = {
    "search_symbols",
    "get_symbol",
    "get_module_contract",
    "get_dependencies",
    "get_dependents",
    "impact_analysis",
    "symbol_history",
    "index_status",
    "get_context_pack",
}
MEMORY_TOOLS = {
    "ping",
    "add_message",
    "retrieve_context",
    "get_similar_contexts",
    "add_relationship",
    "get_related_contexts",
    "summarize_context",
    "visualize_context",
    "get_context_metrics",
}
LEARNING_TOOLS = {"vibe_learn", "update_constitution", "reset_constitution", "check_constitution", "vibe_check"}
WRITING_TOOLS = {
    "add_message",
    "add_relationship",
    "summarize_context",
    "vibe_learn",
    "update_constitution",
    "reset_constitution",
}


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("home")
    with isolated_git_env(home):
        yield make_shop(tmp_path_factory.mktemp("shop") / "repo").root


@pytest.fixture(scope="module")
def server(shop: Path):  # type: ignore[no-untyped-def]
    return build_server(App.for_repo(shop))


def test_every_tool_is_listed_typed_and_annotated(server) -> None:  # type: ignore[no-untyped-def]
    import anyio
    from mcp import Client

    async def listing():  # type: ignore[no-untyped-def]
        async with Client(server) as client:
            return (await client.list_tools()).tools

    tools = {t.name: t for t in anyio.run(listing)}
    assert CODE_TOOLS | MEMORY_TOOLS | LEARNING_TOOLS <= set(tools)
    for name in CODE_TOOLS | MEMORY_TOOLS | LEARNING_TOOLS:
        tool = tools[name]
        assert tool.description, name
        assert tool.output_schema and "freshness" in tool.output_schema["properties"], name
        assert tool.annotations is not None and tool.annotations.read_only_hint is (name not in WRITING_TOOLS), name
    # A nullable field is a list of types, not pydantic's anyOf: clients check every answer against it.
    hit = tools["search_symbols"].output_schema["$defs"]["SymbolHit"]["properties"]
    assert hit["start_line"]["type"] == ["integer", "null"] and "anyOf" not in hit["start_line"]
    assert tools["search_symbols"].output_schema["properties"]["note"]["type"] == ["string", "null"]


def test_search_finds_identifier_parts_and_filters_kind(server) -> None:  # type: ignore[no-untyped-def]
    found = data(call(server, "search_symbols", {"query": "parse price"}))
    hits = {r["id"]: r for r in found["results"]}
    assert set(list(hits)[:2]) == {"shop/prices.py::parse_price", "tests/test_prices.py::test_parse_price"}
    assert found["method"] == "fulltext"
    assert hits["shop/prices.py::parse_price"]["summary"] == "Parse a price such as '12.50' into cents."
    classes = data(call(server, "search_symbols", {"query": "price", "kind": "class"}))
    assert [r["id"] for r in classes["results"]][0] == "shop/prices.py::PriceCache"
    assert {r["kind"] for r in classes["results"]} == {"class"}


def test_invalid_arguments_are_json_rpc_errors_naming_the_field(server) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(MCPError) as bad_limit:
        call(server, "search_symbols", {"query": "price", "limit": 0})
    assert bad_limit.value.error.code == -32602 and "limit" in bad_limit.value.error.message
    with pytest.raises(MCPError) as missing:
        call(server, "get_symbol", {})
    assert missing.value.error.code == -32602 and "symbol: required" in missing.value.error.message
    with pytest.raises(MCPError) as bad_kind:
        call(server, "search_symbols", {"query": "price", "kind": "spaceship"})
    assert bad_kind.value.error.code == -32602
    assert "send one of class, const, function, method" in bad_kind.value.error.message
    with pytest.raises(MCPError) as wrong_type:
        call(server, "get_dependents", {"path": "shop/cart.py", "depth": "deep"})
    assert wrong_type.value.error.code == -32602 and "depth" in wrong_type.value.error.message


def test_get_symbol_has_source_callers_callees_and_tests(server) -> None:  # type: ignore[no-untyped-def]
    found = data(call(server, "get_symbol", {"symbol": "parse_price"}))
    assert found["symbol"]["id"] == "shop/prices.py::parse_price"
    assert "text.strip().partition" in found["source"]  # the body as last indexed
    callers = {(c["path"], c["basis"]) for c in found["callers"]}
    assert ("shop/cart.py", "imported name") in callers and ("shop/prices.py", "same file") in callers
    assert found["tests"][0] == "tests/test_prices.py::test_parse_price"  # calls it: first, as a node id
    method = data(call(server, "get_symbol", {"symbol": "shop.cart.Cart.add_item"}))
    assert any(c["target"] == "shop/prices.py::parse_price" for c in method["callees"])


def test_unknown_symbol_is_a_tool_error_that_says_what_to_send(server) -> None:  # type: ignore[no-untyped-def]
    text = error_text(call(server, "get_symbol", {"symbol": "no_such_thing"}))
    assert "no symbol 'no_such_thing'" in text and "send an id like" in text


def test_contract_by_path_or_module_name(server) -> None:  # type: ignore[no-untyped-def]
    by_path = data(call(server, "get_module_contract", {"path": "shop/prices.py"}))
    by_module = data(call(server, "get_module_contract", {"path": "shop.prices"}))
    assert by_path["path"] == by_module["path"] == "shop/prices.py"
    assert by_path["role"] == "Prices: parse and format money amounts."
    assert {a["name"] for a in by_path["public_api"]} == {"parse_price", "format_price", "PriceCache"}
    assert set(by_path["dependents"]) == {"shop/api.py", "shop/cart.py", "tests/test_prices.py"}
    assert {"tests/test_prices.py::test_parse_price", "tests/test_cart.py::test_total"} <= set(by_path["tests"])
    assert by_path["last_commit"]["subject"] == "parse_price strips spaces"
    assert by_path["freshness"]["head_matches"] is True
    checkout = data(call(server, "get_module_contract", {"path": "shop/checkout.py"}))
    assert checkout["side_effects"] == ["files"]


def test_paths_outside_the_repository_are_refused(server, shop: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    secret = tmp_path / "secret.py"
    secret.write_text("PASSWORD = 'hunter2'\n")
    link = shop / "shop" / "leak.py"
    link.symlink_to(secret)
    try:
        for path in ("../../secret.py", str(secret), "shop/leak.py", "shop/../../x.py"):
            with pytest.raises(MCPError) as refused:
                call(server, "get_module_contract", {"path": path})
            assert refused.value.error.code == -32602
            assert "outside the repository" in refused.value.error.message
            assert "hunter2" not in refused.value.error.message and str(tmp_path) not in refused.value.error.message
        for tool, args in (
            ("get_dependencies", {"path": "../x.py"}),
            ("impact_analysis", {"target": "/etc/passwd"}),
            ("get_symbol", {"symbol": "../../etc/passwd::x"}),
            ("get_context_pack", {"task": "anything", "focus": ["../outside.py"]}),
        ):
            with pytest.raises(MCPError) as refused:
                call(server, tool, args)
            assert refused.value.error.code == -32602, tool
        inside = data(call(server, "get_module_contract", {"path": str(shop / "shop" / "cart.py")}))
        assert inside["path"] == "shop/cart.py"  # an absolute path inside the repository is fine
    finally:
        link.unlink()


def test_dependencies_and_dependents_to_a_depth(server) -> None:  # type: ignore[no-untyped-def]
    direct = data(call(server, "get_dependencies", {"path": "shop/checkout.py"}))
    assert {(d["target"], d["kind"]) for d in direct["items"]} == {("shop/cart.py", "file"), ("shop/config.py", "file")}
    deep = data(call(server, "get_dependencies", {"path": "shop/checkout.py", "depth": 3}))
    assert {d["path"]: d["distance"] for d in deep["items"] if d["kind"] == "file"}["shop/prices.py"] == 2
    users = data(call(server, "get_dependents", {"path": "shop/prices.py", "depth": 2}))
    assert {d["path"]: d["distance"] for d in users["items"]} == {
        "shop/api.py": 1,
        "shop/cart.py": 1,
        "tests/test_prices.py": 1,
        "shop/checkout.py": 2,
        "tests/test_cart.py": 2,
    }


def test_impact_of_a_symbol_and_of_a_file(server) -> None:  # type: ignore[no-untyped-def]
    symbol = data(call(server, "impact_analysis", {"target": "shop/prices.py::parse_price"}))
    assert symbol["kind"] == "symbol"
    assert {"shop/cart.py", "shop/api.py"} <= {d["path"] for d in symbol["dependents"]}
    assert symbol["tests"][:2] == ["tests/test_prices.py::test_parse_price", "tests/test_cart.py::test_total"]
    assert [t["distance"] for t in symbol["tests_basis"][:2]] == [1, 2]  # calls it; calls Cart.add_item
    config = data(call(server, "impact_analysis", {"target": "shop/config.py"}))
    assert config["kind"] == "file" and config["risk"] in ("medium", "high")
    assert len([d for d in config["dependents"] if d["distance"] == 1]) == 5


def test_symbol_history_shows_the_body_change(server) -> None:  # type: ignore[no-untyped-def]
    history = data(call(server, "symbol_history", {"symbol": "parse_price"}))
    assert [e["type"] for e in history["events"]] == ["symbol.added", "symbol.changed"]
    assert history["events"][1]["changed"] == ["body"]
    assert error_text(call(server, "symbol_history", {"symbol": "shop/prices.py::gone"})).startswith("no events")


def test_index_status_and_freshness_follow_the_tree(shop: Path) -> None:
    status = data(call(build_server(App.for_repo(shop)), "index_status"))  # a server with its own freshness cache
    assert status["files_indexed"] == 10 and status["symbols"] >= 12
    assert status["freshness"]["pending_files"] == 0 and status["freshness"]["head_matches"] is True
    edited = shop / "shop" / "report.py"
    before, stat = edited.read_text(), edited.stat()
    edited.write_text(before + "\n\ndef footer() -> str:\n    return 'end'\n")
    try:
        answer = data(call(build_server(App.for_repo(shop)), "search_symbols", {"query": "report header"}))
        assert answer["freshness"]["pending_files"] == 1
        assert answer["freshness"]["pending_sample"] == ["shop/report.py"]
    finally:
        edited.write_text(before)
        os.utime(edited, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # as indexed, so nothing stays pending


def test_stale_freshness_is_answered_at_once_and_measured_again_beside_the_answer(shop: Path) -> None:
    app = App.for_repo(shop)
    assert app.freshness()["pending_files"] == 0
    edited = shop / "shop" / "report.py"
    before, stat = edited.read_text(), edited.stat()
    edited.write_text(before + "\n\ndef footer() -> str:\n    return 'end'\n")
    try:
        assert app.freshness()["pending_files"] == 0  # within FRESHNESS_TTL_SECONDS: as measured
        time.sleep(FRESHNESS_TTL_SECONDS + 0.1)
        assert app.freshness()["pending_files"] == 0  # older: answered as it was, measured again beside
        deadline = time.monotonic() + 10
        while app.freshness()["pending_files"] == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert app.freshness()["pending_sample"] == ["shop/report.py"]
        edited.write_text(before)
        os.utime(edited, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        app.forget_freshness()  # this process changed the index: the next answer waits for the figures
        assert app.freshness()["pending_files"] == 0
    finally:
        edited.write_text(before)
        os.utime(edited, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def test_context_pack_ranks_the_code_the_task_is_about(server) -> None:  # type: ignore[no-untyped-def]
    result = call(
        server,
        "get_context_pack",
        {"task": "parse_price should accept prices with a comma, like '12,50'", "budget_tokens": 4000},
    )
    pack = data(result)
    assert pack["symbols"][0]["id"] == "shop/prices.py::parse_price"
    assert "named in the task" in pack["symbols"][0]["why"]
    assert "text.strip().partition" in pack["symbols"][0]["source"]
    assert {c["path"] for c in pack["symbols"][0]["callers"]} >= {"shop/cart.py", "shop/api.py"}
    assert pack["modules"][0]["path"] == "shop/prices.py"
    tests = [t["test"] for t in pack["tests"]]
    assert tests[0] == "tests/test_prices.py::test_parse_price"  # calls it: the first to run
    assert any(t.startswith("tests/test_cart.py") for t in tests)
    text = result.content[0].text
    for heading in ("## Modules", "## Likely edits", "## Callers", "## Tests to run"):
        assert heading in text
    assert pack["tokens_used"] <= 4000


def test_context_pack_fits_any_budget_and_says_what_it_left_out(server) -> None:  # type: ignore[no-untyped-def]
    task = "total of the cart is formatted wrong: Cart.total and format_price"
    previous = 0
    for budget in (500, 900, 2000, 20000):
        pack = data(call(server, "get_context_pack", {"task": task, "budget_tokens": budget}))
        assert pack["tokens_used"] <= budget
        assert pack["tokens_used"] >= previous  # a bigger budget never gives less
        previous = pack["tokens_used"]
        if budget == 500:
            assert pack["omitted"], "a small budget leaves something out, and says so"
    assert {s["id"] for s in pack["symbols"]} >= {"shop/cart.py::Cart.total", "shop/prices.py::format_price"}
    assert not pack["omitted"]


def test_context_pack_focus_ranks_first(server) -> None:  # type: ignore[no-untyped-def]
    pack = data(
        call(
            server,
            "get_context_pack",
            {"task": "make the receipt show the currency", "focus": ["shop/checkout.py::checkout"]},
        )
    )
    assert pack["symbols"][0]["id"] == "shop/checkout.py::checkout"
    assert "in focus" in pack["symbols"][0]["why"]


def test_the_server_builds_the_shared_read_models_as_it_starts(tmp_path: Path) -> None:
    # The first pack on a 3,300-file repository took 0.9 s, the next ones 0.1-0.3 s: the graph and the files
    # each test loads, the message index and the change counts are built by a thread of their own at start.
    import threading
    import time

    from codeannals.store import open_store
    from codeannals.store.graph import import_graph
    from codeannals.store.history_rank import message_index

    (tmp_path / "home").mkdir()
    with isolated_git_env(tmp_path):
        shop = make_shop(tmp_path / "repo").root  # its own: no earlier answer has built anything for it
    call(build_server(App.for_repo(shop)), "ping")
    deadline = time.monotonic() + 30
    while any(t.name == "annals-warm" for t in threading.enumerate()) and time.monotonic() < deadline:
        time.sleep(0.05)
    conn = open_store(shop / ".annals" / "annals.db")
    try:
        graph = import_graph(conn)
        tests = {p for p in graph.forward if p.startswith("tests/test_")}
        assert tests and tests <= set(graph._loads)  # built, not yet asked for by any answer
        assert message_index(conn).counted is not None
    finally:
        conn.close()


def test_read_only_tools_share_one_thread_and_writing_ones_never_wait_for_them(shop: Path) -> None:
    # Each thread has its own connection and read caches. Calls at once ran on two of anyio's workers, and the
    # next call got whichever was idle last: sqlalchemy's packs after such bursts took p50 231 ms against 119.
    import threading

    import anyio
    from codeannals.server.tools._answer import READ_ONLY, WRITES
    from mcp import Client

    server = build_server(App.for_repo(shop))
    both_running = threading.Barrier(2, timeout=10)

    def where() -> str:
        return threading.current_thread().name

    def hold() -> str:
        both_running.wait()  # broken, and an error, unless `write` runs meanwhile
        return threading.current_thread().name

    def write() -> str:
        both_running.wait()
        return threading.current_thread().name

    for tool, kind in ((where, READ_ONLY), (hold, READ_ONLY), (write, WRITES)):
        server.add_tool(tool, annotations=kind)
    threads: dict[str, list[str]] = {"where": [], "hold": [], "write": []}

    async def ask(client: Client, name: str, arguments: dict[str, str] | None = None) -> None:
        answer = await client.call_tool(name, arguments or {})
        assert not answer.is_error, answer
        if name in threads:
            threads[name].append(answer.content[0].text)  # type: ignore[union-attr]

    async def session() -> None:
        async with Client(server) as client:
            await ask(client, "where")
            await ask(client, "get_context_pack", {"task": "parse a price"})  # fills the reader's caches
            async with anyio.create_task_group() as group:
                group.start_soon(ask, client, "hold")
                group.start_soon(ask, client, "write")
            async with anyio.create_task_group() as group:
                group.start_soon(ask, client, "where")
                group.start_soon(ask, client, "where")

    anyio.run(session)
    reader = threads["where"][0]
    assert reader.startswith("annals-reader") and threads["where"] == [reader] * 3
    assert threads["hold"] == [reader] and threads["write"] != [reader]


def test_after_an_edit_the_idle_reader_answers_the_last_pack_again(tmp_path: Path) -> None:
    # Every indexed change drops the read caches: on sqlalchemy the next pack took p50 1.9 s, against 0.14 s warm.
    import time

    import anyio
    from mcp import Client

    with isolated_git_env(tmp_path):
        repo = make_shop(tmp_path / "repo")
        server = build_server(App.for_repo(repo.root), watch=True)

        async def session() -> None:
            async with Client(server) as client:
                while not server.watcher.status()["ready"]:
                    await anyio.sleep(0.05)
                assert not (await client.call_tool("get_context_pack", {"task": "parse a price"})).is_error
                assert server.reader.answered_again == 0
                repo.write(
                    "shop/prices.py", (repo.root / "shop/prices.py").read_text() + "\n\ndef rounded(x):\n    return x\n"
                )
                deadline = time.monotonic() + 30
                while server.reader.answered_again == 0 and time.monotonic() < deadline:
                    await anyio.sleep(0.05)

        anyio.run(session)
        assert server.reader.answered_again == 1


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("get_context_pack", {"task": "parse a price"}),
        ("get_symbol", {"symbol": "shop/prices.py::parse_price"}),
        ("impact_analysis", {"target": "shop/prices.py::parse_price"}),
    ],
)
def test_a_server_not_watching_answers_again_after_the_index_changes(
    tmp_path: Path, tool: str, arguments: dict[str, str]
) -> None:
    # `annals serve --no-watch`: the hooks and `annals index` change the index; the reader hears of it all the same,
    # and answers the last pack again, or walks again from the symbol asked about (nothing else is remembered).
    import time

    import anyio
    from codeannals.indexer.run import index_tree
    from codeannals.store import default_db_path, open_store
    from mcp import Client

    with isolated_git_env(tmp_path):
        repo = make_shop(tmp_path / "repo")
        server = build_server(App.for_repo(repo.root), watch=False)

        async def session() -> None:
            async with Client(server) as client:
                assert not (await client.call_tool(tool, arguments)).is_error
                await anyio.sleep(0.5)
                assert server.reader.answered_again == 0  # nothing changed
                repo.write(
                    "shop/prices.py", (repo.root / "shop/prices.py").read_text() + "\n\ndef rounded(x):\n    return x\n"
                )
                conn = open_store(default_db_path(repo.root))
                try:
                    index_tree(repo.root, conn, source="cli", only=["shop/prices.py"])
                finally:
                    conn.close()
                deadline = time.monotonic() + 30
                while server.reader.answered_again == 0 and time.monotonic() < deadline:
                    await anyio.sleep(0.05)

        anyio.run(session)
        assert server.reader.answered_again == 1


def test_the_last_pack_is_answered_again_a_step_at_a_time_while_no_call_waits() -> None:
    # Answering it again fills the caches for the agent's next question, which waits for one step at most.
    import threading

    import anyio
    from codeannals.server.reader import ReaderThread

    reader = ReaderThread()
    done: list[str] = []

    def pack_steps() -> Iterator[None]:
        for step in range(3):
            done.append(f"step {step} on {threading.current_thread().name.split('_')[0]}")
            yield

    reader.remember_pack(pack_steps)
    running, release = threading.Event(), threading.Event()

    def hold() -> None:
        running.set()
        release.wait(10)

    def answer_and_change() -> None:
        done.append("answer")
        reader.code_changed()  # the steps begun stop; the pack is answered again from its start

    async def calls() -> None:
        with anyio.fail_after(10):
            await steps_between_calls()

    async def steps_between_calls() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(reader.runs(hold))
            await anyio.to_thread.run_sync(running.wait, 10)
            reader.code_changed()  # queued behind `hold`
            reader.code_changed()  # queued once however many changes come meanwhile
            group.start_soon(reader.runs(answer_and_change))  # waits behind both
            await anyio.wait_all_tasks_blocked()
            release.set()
        while reader.answered_again == 0:
            await anyio.sleep(0.01)

    anyio.run(calls)
    on = "on annals-reader"
    assert done == ["answer", f"step 0 {on}", f"step 1 {on}", f"step 2 {on}"]  # no step while `answer` waited
    assert reader.answered_again == 1


def test_after_a_change_the_reader_walks_from_the_symbols_asked_about_after_the_last_pack() -> None:
    # The agent asks about the code it edits (get_symbol, impact_analysis) after saving it: their walks to the tests
    # are taken again, the newest asked first, the last REMEMBERED_SYMBOLS of them.
    import anyio
    from codeannals.server.reader import REMEMBERED_SYMBOLS, ReaderThread

    reader = ReaderThread()
    done: list[str] = []

    def steps(name: str) -> Callable[[], Iterator[None]]:
        def taken() -> Iterator[None]:
            done.append(name)
            yield

        return taken

    reader.code_changed()  # nothing asked yet: nothing to answer again
    for n in range(REMEMBERED_SYMBOLS + 1):
        reader.remember_symbol(f"s{n}", steps(f"s{n}"))
    reader.remember_symbol("s1", steps("s1 again"))  # asked again: the newest
    reader.remember_pack(steps("pack"))

    async def changed() -> None:
        with anyio.fail_after(10):
            reader.code_changed()
            while reader.answered_again == 0:
                await anyio.sleep(0.01)

    anyio.run(changed)
    assert done == ["pack", "s1 again", "s3", "s2"]  # s0, the oldest, is forgotten
