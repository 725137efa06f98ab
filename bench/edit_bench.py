"""Context packs right after an edit: what an agent waits for when it asks again after saving a file.

    python bench/edit_bench.py DIR --tasks FILE [--warm 20] [--edits 20] [--work DIR] [--keep]
                               [--think S [--ask next|same|impact]]

DIR is a tree indexed with `annals index` (localize_bench.py's indexes under its --work, for one);
FILE a task list of localize_bench.py (bench/data/localize/<repo>.json): its messages are the tasks.
The tree and its index are copied under --work, so DIR is left as it was. One connection serves the
packs, as a server's thread does; another indexes, as the watcher does (`index_tree(only=[path])`).

Figures, each over --edits packs (p50 / p95 / max, ms):
- warm: the serving connection after --warm packs, no edit between;
- after an edit: a source file gains a function and is indexed, then the next task's pack;
- new connection: the same task on a connection opened after that edit, as a new server's first
  answer finds it (the shared snapshots and the embedding model aside; vectors are not used).
Each pack after an edit must equal the new connection's, to the byte: a cache kept across an edit
must not change an answer.

With --think S, the calls go through the MCP server instead (the SDK's client, in process), whose watcher
indexes each edit. Per edit: a task's pack, then the edit, then S seconds after the watcher's batch (an agent
asks after thinking) what --ask says: the next task's pack (next), the same task's again (same), or
impact_analysis of the pack's first symbol (impact). Meanwhile the server answers the last pack again
(server/reader.py); S 0 is a call that comes at once.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from codeannals.indexer.run import index_tree
from codeannals.server.contextpack import build_pack
from codeannals.store import default_db_path, open_store
from codeannals.store.lookups import indexed_paths, is_test_path

CODE_SUFFIXES = (".py", ".ts", ".js", ".mjs", ".cjs", ".go")


def figures(times: list[float]) -> str:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"p50 {statistics.median(ordered):6.0f}  p95 {p95:6.0f}  max {ordered[-1]:6.0f}"


def timed_pack(root: Path, conn: sqlite3.Connection, task: str) -> tuple[float, str]:
    started = time.perf_counter()
    answer, markdown = build_pack(root, conn, task)
    ms = (time.perf_counter() - started) * 1000
    return ms, json.dumps(answer, sort_keys=True, default=str) + markdown


def edit(root: Path, rel: str, number: int) -> None:
    """What an agent's save does to a file: a new function at its end, written whole."""
    path = root / rel
    text = path.read_text(encoding="utf-8", errors="replace")
    if rel.endswith(".py"):
        added = f"\n\ndef annals_edit_bench_{number}():\n    return {number}\n"
    elif rel.endswith(".go"):
        added = f"\n\nfunc annalsEditBench{number}() int {{ return {number} }}\n"
    else:
        added = f"\n\nfunction annalsEditBench{number} () {{ return {number} }}\n"
    path.write_text(text + added, encoding="utf-8")


ASKED = ("next", "same", "impact")  # after an edit: the next task's pack, the same task's, impact of its first symbol


def served(root: Path, tasks: list[str], edited: list[str], warm: int, think: float, asked: str) -> None:
    """Warm packs, then per edit: a task's pack, the edit, and `asked` timed S seconds after the watcher's batch."""
    os.environ["ANNALS_VECTORS"] = "off"  # as the in-process figures: the same packs, without the vector keeper
    from codeannals.server.app import App
    from codeannals.server.mcp import build_server
    from mcp import Client

    server = build_server(App.for_repo(root, default_db_path(root)), watch=True)

    async def session() -> tuple[list[float], list[float]]:
        async with Client(server) as client:

            async def timed(tool: str, arguments: dict[str, str]) -> tuple[float, dict[str, Any]]:
                started = time.perf_counter()
                answer = await client.call_tool(tool, arguments)
                if answer.is_error:
                    raise SystemExit(f"{tool} failed: {answer.content}")
                return (time.perf_counter() - started) * 1000, answer.structured_content or {}

            while not server.watcher.status()["ready"]:
                await asyncio.sleep(0.1)
            for task in tasks[:warm]:
                await timed("get_context_pack", {"task": task})
            warmed = [(await timed("get_context_pack", {"task": t}))[0] for t in tasks[warm : warm + len(edited)]]
            after = []
            first = warm + len(edited)
            for number, rel in enumerate(edited):
                task, following = tasks[first + number], tasks[first + number + 1]
                symbols = (await timed("get_context_pack", {"task": task}))[1]["symbols"]
                batches = server.watcher.status()["batches"]
                edit(root, rel, number)
                while server.watcher.status()["batches"] == batches:
                    await asyncio.sleep(0.02)
                await asyncio.sleep(think)
                if asked == "impact" and symbols:
                    after.append((await timed("impact_analysis", {"target": symbols[0]["id"]}))[0])
                elif asked != "impact":
                    after.append((await timed("get_context_pack", {"task": following if asked == "next" else task}))[0])
            return warmed, after

    warmed, after = asyncio.run(session())
    what = {"next": "the next task's pack", "same": "the same task's pack", "impact": "impact of its first symbol"}
    print(f"{root.name}: through the MCP server, ms")
    print(f"  warm packs                {figures(warmed)}")
    print(f"  {think:g} s after an edit, {what[asked]}: {figures(after)}")
    print(f"  the last pack answered again to its end {server.reader.answered_again} times")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dir", type=Path)
    parser.add_argument("--tasks", type=Path, required=True)
    parser.add_argument("--warm", type=int, default=20)
    parser.add_argument("--edits", type=int, default=20)
    parser.add_argument("--work", type=Path)
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--think", type=float, help="through the MCP server, asking S seconds after each edit")
    parser.add_argument("--ask", choices=ASKED, default="next", help="with --think: what is asked after the edit")
    args = parser.parse_args()
    tasks = [t["message"] for t in json.loads(args.tasks.read_text())["tasks"]]
    if len(tasks) < args.warm + 2 * args.edits + 1:
        print(f"{args.tasks}: {len(tasks)} tasks, fewer than --warm + 2 x --edits + 1; ask for fewer", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="edit-bench-", dir=args.work))
    root = work / args.dir.name
    try:
        copy_started = time.perf_counter()
        shutil.copytree(args.dir, root, symlinks=True)
        print(f"copied {args.dir} in {time.perf_counter() - copy_started:.0f} s", flush=True)
        db = default_db_path(root)
        serving, indexing = open_store(db), open_store(db)
        sources = sorted(p for p in indexed_paths(serving) if p.endswith(CODE_SUFFIXES) and not is_test_path(p))
        edited = random.Random(13).sample(sources, args.edits)
        if args.think is not None:
            serving.close()
            indexing.close()
            served(root, tasks, edited, args.warm, args.think, args.ask)
            return 0
        for task in tasks[: args.warm]:
            build_pack(root, serving, task)
        warm = [timed_pack(root, serving, t)[0] for t in tasks[args.warm : args.warm + args.edits]]
        after: list[float] = []
        fresh: list[float] = []
        differ: list[int] = []
        for number, (rel, task) in enumerate(zip(edited, tasks[args.warm + args.edits :], strict=False)):
            edit(root, rel, number)
            index_tree(root, indexing, source="watcher", only=[rel])
            ms, answer = timed_pack(root, serving, task)
            after.append(ms)
            new = open_store(db)
            ms, expected = timed_pack(root, new, task)
            new.close()
            fresh.append(ms)
            if answer != expected:
                differ.append(number)
        print(f"{args.dir.name}: {len(sources)} source files; packs, ms")
        print(f"  warm            {figures(warm)}")
        print(f"  after an edit   {figures(after)}")
        print(f"  new connection  {figures(fresh)}")
        print(f"  after an edit equal to a new connection's: {len(after) - len(differ)}/{len(after)}")
        if differ:
            print(f"  differ after edits {differ} (files {[edited[i] for i in differ]})")
        return 1 if differ else 0
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
