"""get_context_pack: an agent's starting context for a task, fitted to a token budget.

1. Ranking (store/ranking.py, the core `search_symbols` and vibe_check share): the paths,
   identifiers and words of the task; a symbol scores its relevance plus bonuses for being named,
   a module its best few symbols plus being named. Tests rank low as things to edit unless the
   task is about tests.
2. What to show (store/ranking.py too): the best modules, and the edit candidates: the best
   symbols, at most two per module, none nested in another chosen one.
3. Evidence: each candidate comes with its body (from the file as indexed), its callers with the
   calling line, and the tests that call it.
4. Budget: blocks in priority order (first body, first contract, its callers, the first tests,
   the second body...) each take the fullest rendering that still fits; what does not fit is
   listed in `omitted` with the tool call that fetches it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Generator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, NamedTuple, ParamSpec, TypeVar

from ..store import memory, testmap
from ..store.callgraph import BASIS_ORDER
from ..store.candidates import (
    MAX_CANDIDATES,
    MORE_CANDIDATES,
    about_tests,
    confidence,
    files_to_show,
    lead_candidates,
    more_candidates,
)
from ..store.graph import ImportGraph, import_graph
from ..store.history import last_seen
from ..store.lookups import outlined_count
from ..store.modulefacts import module_facts
from ..store.projections.contracts import first_sentence
from ..store.queries import is_test_path
from ..store.ranking import NOTHING_NEAR, Candidate, Nearest, rank_task
from ..store.snippets import indexed_lines
from ..store.summarize import estimate_tokens
from ..store.symbol import SymbolRow
from ..store.tasktext import missing_paths

DEFAULT_BUDGET = 8_000
MIN_BUDGET = 500
MAX_BUDGET = 100_000
MAX_MODULES = 6
MAX_CALLERS = 6
MAX_TESTS = testmap.PACK_TESTS
TESTS_FROM_CANDIDATES = 3  # tests that call one of the best few candidates rank first
MAX_BODY_LINES = 150
MAX_CALL_SITES = 200
MAX_MORE_LINES = 5  # the further lines a caller calls a candidate on, shown in the markdown
CALLABLE_KINDS = frozenset({"function", "method", "constructor", "macro", "test"})

_P = ParamSpec("_P")
_T = TypeVar("_T")


class Omission(NamedTuple):
    """What a pack left out for its budget (a body, a contract, callers, tests), and the call that fetches it."""

    what: str
    tool: str  # the MCP tool
    subject: str = ""  # the symbol id or path it is of, the tool's argument ("" for what the note says)
    note: str = ""  # how to call the tool, when it is not given the subject

    def __str__(self) -> str:
        return (
            f"{self.what} of {self.subject}: {self.tool}('{self.subject}')"
            if self.subject
            else f"{self.what}: {self.tool}{self.note}"
        )


@dataclass
class Block:
    """One piece of the pack: its renderings from fullest to leanest (made only if the budget still
    has room when its turn comes: a contract or a caller list costs queries), and its section."""

    section: str
    make: Callable[[], list[tuple[str, dict[str, Any]]]]  # markdown, structured item
    omission: Omission | None  # what to say when no rendering fits (None for an extra that is not missed)


# --- what to show about each --------------------------------------------------------------------


class Sources:
    """File lines as indexed, read once per file."""

    def __init__(self, root: Path, conn: sqlite3.Connection) -> None:
        self.root, self.conn = root, conn
        self._lines: dict[str, list[str] | None] = {}

    def lines(self, path: str) -> list[str] | None:
        if path not in self._lines:
            self._lines[path] = indexed_lines(self.root, self.conn, {path}).get(path)
        return self._lines[path]

    def line(self, path: str, number: int | None) -> str | None:
        lines = self.lines(path)
        return lines[number - 1].strip() if lines and number and 0 < number <= len(lines) else None


def callers_of(conn: sqlite3.Connection, graph: ImportGraph, symbol: SymbolRow) -> list[dict[str, Any]]:
    """Call sites, resolved ones first, code before tests."""
    rows = graph.callers(conn, symbol, limit=MAX_CALL_SITES)
    rows.sort(key=lambda r: (BASIS_ORDER.get(r["basis"], 3), is_test_path(r["path"]), r["path"], r["line"] or 0))
    return [
        {"caller": r["caller"], "path": r["path"], "line": r["line"], "basis": r["basis"]}
        | ({"lines": r["lines"]} if len(r["lines"]) > 1 else {})  # it calls it again: each line is a site to edit
        for r in rows
    ]


def module_entry(
    conn: sqlite3.Connection, graph: ImportGraph, path: str, score: float, why: list[str]
) -> dict[str, Any]:
    facts = module_facts(conn, graph, path)
    head = {"path": path, "module": facts.pop("module"), "role": facts.pop("role"), "lines": facts.pop("lines")}
    return {**head, "score": round(score, 3), "why": why, **facts}


# --- rendering and fitting ----------------------------------------------------------------------


def _fence(path: str, code: str) -> str:
    language = {
        "py": "python",
        "pyi": "python",
        "js": "javascript",
        "ts": "typescript",
        "rs": "rust",
        "go": "go",
        "rb": "ruby",
        "java": "java",
    }.get(path.rsplit(".", 1)[-1], "")
    ticks = "````" if "```" in code else "```"
    return f"{ticks}{language}\n{code}\n{ticks}"


def body_renderings(rank_: int, c: Candidate, sources: Sources) -> list[tuple[str, dict[str, Any]]]:
    s = c.symbol
    head = f"### {rank_}. `{s['id']}` ({s['kind']}, {s['path']}:{s['start_line']}-{s['end_line']}) — {'; '.join(c.why)}"
    item = {
        "id": s["id"],
        "kind": s["kind"],
        "path": s["path"],
        "start_line": s["start_line"],
        "end_line": s["end_line"],
        "signature": s["signature"],
        "score": round(c.score, 3),
        "why": c.why,
    }
    lines = sources.lines(s["path"])
    if lines is None or not s["start_line"]:
        text = "\n".join(p for p in (s["signature"], first_sentence(s["doc"])) if p)
        note = "(the file changed since it was indexed: signature only)"
        return [(f"{head}\n{note}\n{_fence(s['path'], text)}", {**item, "source": None, "truncated": True})]
    body = lines[s["start_line"] - 1 : s["end_line"]]
    out: list[tuple[str, dict[str, Any]]] = []
    for keep in (min(len(body), MAX_BODY_LINES), 60, 25, 8):
        if keep > len(body) or (out and keep >= len(body)):
            continue
        code = "\n".join(body[:keep])
        more = len(body) - keep
        tail = f"\n… {more} more lines: get_symbol('{s['id']}')" if more else ""
        out.append((f"{head}\n{_fence(s['path'], code)}{tail}", {**item, "source": code, "truncated": more > 0}))
    signature = s["signature"] or s["qualname"]
    out.append(
        (f"{head}\n`{signature}` (body left out: get_symbol('{s['id']}'))", {**item, "source": None, "truncated": True})
    )
    return out


def callers_renderings(c: Candidate, calls: list[dict[str, Any]], sources: Sources) -> list[tuple[str, dict[str, Any]]]:
    if not calls:
        text = f"Callers of `{c.symbol['qualname']}`: none found in the index."
        return [(text, {"symbol": c.symbol["id"], "callers": [], "total": 0})]
    out = []
    for keep in (MAX_CALLERS, 3, 1):
        shown = [{**x, "code": sources.line(x["path"], x["line"])} for x in calls[:keep]]  # the calling line
        lines = [
            f"- {x['path']}:{x['line']} in `{x['caller'] or '(module level)'}` ({x['basis']})"
            + (f": `{x['code']}`" if x["code"] else "")
            + (f" (again at {_more_lines(x['lines'][1:])})" if "lines" in x else "")
            for x in shown
        ]
        more = f"\n- … {len(calls) - keep} more: get_symbol('{c.symbol['id']}')" if len(calls) > keep else ""
        text = f"Callers of `{c.symbol['qualname']}` ({len(calls)}):\n" + "\n".join(lines) + more
        out.append((text, {"symbol": c.symbol["id"], "callers": shown, "total": len(calls)}))
    return out


def _more_lines(lines: list[int]) -> str:
    """A caller's further lines calling the candidate, the first MAX_MORE_LINES of them (the structured answer has
    them all): a loop body calling it forty times would spend the budget on line numbers."""
    shown = ", ".join(map(str, lines[:MAX_MORE_LINES]))
    return shown + (f" and {len(lines) - MAX_MORE_LINES} more" if len(lines) > MAX_MORE_LINES else "")


MODULE_IMPORTS_SHOWN = 8


def _some(shown: list[str], total: int) -> str:
    """The items shown of a list, and `…` where it has more: a pack said "used by 6" beside five files, as if it had
    miscounted. One token: "and 1 more" cost a second guess of a pack near its budget (gson's symbol Acc@10 .66 ->
    .65)."""
    return ", ".join([*shown, "…"] if total > len(shown) else shown)


def module_renderings(m: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    declared = f" (declared in {', '.join(m['declarations'])})" if m["declarations"] else ""
    title = (
        f"### {m['path']}{declared}"
        + (f" — {m['role']}" if m["role"] else "")
        + f"  (ranked for: {'; '.join(m['why'])})"
    )
    facts = (
        f"Side effects: {', '.join(m['side_effects']) or 'none detected'} · imports: "
        f"{_some(m['imports'][:MODULE_IMPORTS_SHOWN], len(m['imports'])) or 'nothing'} · used by {m['dependents']}"
        + (f" ({_some(m['dependents_sample'], m['dependents'])})" if m["dependents_sample"] else "")
        + f" · tests: {testmap.tests_line(m['tests'], m.get('tests_note'))}"
        + (f" (more: get_module_contract {m['path']})" if m["more_tests"] else "")
    )
    full = []
    for a in m["api"]:
        said = a["summary"] and a["summary"] != m["role"]  # a one-class file's role is its class's summary already
        full.append(f"- {a['signature'] or a['name']}" + (f" — {a['summary']}" if said else ""))
        full.extend(f"  - {sig}" for sig in a.get("methods", []))
    lean = [f"- {a['signature'] or a['name']}" for a in m["api"]]
    named = list(dict.fromkeys(a["name"] for a in m["api"]))  # a Rust type's impl blocks are its name again
    names = ", ".join(named)
    return [
        (f"{title}\n" + "\n".join(full) + f"\n{facts}", m),
        (f"{title}\n" + "\n".join(lean) + f"\n{facts}", {**m, "api": [{**a, "summary": ""} for a in m["api"]]}),
        (f"{title}\nAPI: {names or 'nothing public'}\n{facts}", {**m, "api": [{"name": name} for name in named]}),
        (
            f"- {m['path']}{declared}" + (f" — {m['role']}" if m["role"] else ""),
            {
                "path": m["path"],
                "declarations": m["declarations"],
                "role": m["role"],
                "why": m["why"],
                "score": m["score"],
            },
        ),
    ]


def tests_renderings(tests: list[dict[str, Any]], more_call: str) -> list[tuple[str, dict[str, Any]]]:
    """The best MAX_TESTS (then fewer), never the alphabetically first; the cut says how many more and
    the call that lists them."""
    out: list[tuple[str, dict[str, Any]]] = []
    for keep in (min(len(tests), MAX_TESTS), 6, 3):
        if out and keep >= len(out[-1][1]["tests"]):
            continue
        lines = [f"- {t['test']} — {t['why']}" for t in tests[:keep]]
        more = len(tests) - keep
        tail = f"\n- … at least {more} more: {more_call}" if more > 0 else ""  # the pack's walks stop early
        out.append(
            (
                "\n".join(lines) + tail,
                {"tests": tests[:keep], "total": len(tests), "more_call": more_call if more > 0 else None},
            )
        )
    return out


SECTIONS = (
    ("modules", "## Modules"),
    ("symbols", "## Likely edits"),
    ("callers", "## Callers"),
    ("tests", "## Tests to run"),
    ("contexts", "## Conversations about this code"),
)
NOTE_TOKENS = 45  # the freshness line the MCP answer appends (server/tools/code.py's pack_result)
# One block takes at most this share of the room left (unless it is its leanest rendering). localize_bench:
# 1.0 (no limit) let a huge contract crowd out later modules (typeorm file Acc@5 .65, .68 at 0.5); 0.3 leaves
# room for the second guesses (dev symbol Acc@10 .63 at 0.5, .64 at 0.4, .65 at 0.3; hold-out .57 either way).
BLOCK_SHARE = 0.3
MIN_BLOCK_TOKENS = 12  # no rendering is smaller: with less room left, a block is not even made
TASK_ECHO_CHARS = 300
LEFT_OUT_NAMED = 4
Pick = tuple[str, str, dict[str, Any], Omission | None]  # section, markdown, structured item, what to say if dropped


def assemble(header: str, picks: list[Pick], omitted: list[Omission]) -> str:
    parts = [header]
    for section, title in SECTIONS:
        texts = [text for s, text, _, _ in picks if s == section]
        if texts:
            parts += [title, *texts]
    if omitted:
        parts.append("## Left out (budget)\n" + "\n".join(f"- {line}" for line in left_out(omitted)))
    return "\n\n".join(parts)


def left_out(omitted: list[Omission]) -> list[str]:
    """The omissions a line per tool, each symbol or module named once (`get_symbol: a.py::f (body, callers)`),
    the best LEFT_OUT_NAMED of each tool's and how many more (the structured answer lists them all): a line per
    omission, with its call, took most of a small budget, and the pack dropped what it had shown to make room
    for the list of what it had not. localize_bench tasks at 500 and 1,000 tokens, packs showing nothing (of
    100): click 100 and 0 before, 1 and 0 a line per tool; typeorm 100 and 39, 50 and 0; naming four at most,
    click 1 and 0, typeorm 19 and 0 (their Acc@5 at 1,000 tokens .85 -> .92 and .35 -> .73)."""
    lines: dict[str, dict[str, list[str]]] = {}  # a tool, or an omission of no subject whole -> subject -> what
    for o in omitted:
        subjects = lines.setdefault(o.tool if o.subject else str(o), {})
        if o.subject and o.what not in (whats := subjects.setdefault(o.subject, [])):
            whats.append(o.what)
    out = []
    for line, subjects in lines.items():
        if not subjects:
            out.append(line)
            continue
        kinds = {w for whats in subjects.values() for w in whats}
        named = list(subjects.items())[:LEFT_OUT_NAMED]
        more = f", and {len(subjects) - len(named)} more" if len(subjects) > len(named) else ""
        if len(kinds) == 1:
            out.append(f"{line} ({kinds.pop()}): {', '.join(s for s, _ in named)}{more}")
        else:
            out.append(f"{line}: " + ", ".join(f"{s} ({', '.join(whats)})" for s, whats in named) + more)
    return out


def in_ranked_order(picks: list[Pick], order: list[str]) -> list[Pick]:
    """The picks with the modules among them in `order` (the others where they were)."""
    place = {path: i for i, path in enumerate(order)}
    modules = iter(sorted((p for p in picks if p[0] == "modules"), key=lambda p: place.get(p[2]["path"], len(place))))
    return [next(modules) if p[0] == "modules" else p for p in picks]


def fit(blocks: list[Block], budget: int, header: str) -> tuple[list[Pick], list[Omission], str]:
    """Each block's fullest rendering that fits what is left, in priority order; then, while the whole
    (headings and the list of what was left out included) is over budget, drop the last pick."""
    used = estimate_tokens(header) + NOTE_TOKENS
    picks: list[Pick] = []
    omitted: list[Omission] = []
    titles = dict(SECTIONS)
    for block in blocks:
        heading = 0 if any(p[0] == block.section for p in picks) else estimate_tokens(titles[block.section]) + 1
        if budget - used - heading < MIN_BLOCK_TOKENS:
            if block.omission is not None:
                omitted.append(block.omission)
            continue
        renderings = block.make()
        for n, (text, item) in enumerate(renderings, 1):
            cost = estimate_tokens(text) + 1 + heading
            # One block takes at most a share of what is left unless it is its leanest: a module of a
            # thousand names must not crowd out the modules ranked after it.
            if used + cost <= budget and (n == len(renderings) or cost <= BLOCK_SHARE * (budget - used)):
                picks.append((block.section, text, item, block.omission))
                used += cost
                break
        else:
            if block.omission is not None:
                omitted.append(block.omission)
    markdown = assemble(header, picks, omitted)
    while picks and estimate_tokens(markdown) + NOTE_TOKENS > budget:
        dropped = picks.pop()[3]
        if dropped is not None:
            omitted.insert(0, dropped)
        markdown = assemble(header, picks, omitted)
    return picks, omitted, markdown


def pack_steps(
    root: Path,
    conn: sqlite3.Connection,
    task: str,
    budget: int = DEFAULT_BUDGET,
    focus: list[str] | None = None,
    nearest: Nearest = NOTHING_NEAR,
    source: str | None = "mcp",
) -> Generator[None, None, tuple[dict[str, Any], str]]:
    """build_pack, pausing after each part that takes long on cold read caches: the ranking, each walk up the call
    graph to a candidate's or a module's tests, each module's facts (up to a few hundred ms each on sqlalchemy).
    The server builds the last pack again this way after a change, answering the agent's calls between the parts
    (server/reader.py). `source` says who completes the files the pack shows when they are search-ready only (None:
    nobody, as when the reader answers a pack again only to fill the caches)."""
    ranking = rank_task(conn, task, focus or [], root, nearest)
    yield
    cands, module_scores, module_why, words = ranking.symbols, ranking.files, ranking.why, ranking.words
    order = files_to_show(ranking, MAX_MODULES)
    sure = confidence(ranking, order[0] if order else None)
    # by symbol score alone: hold-out file Acc@1/@5 .51/.86
    chosen, hedged = lead_candidates(ranking, order[0] if order else None, not about_tests(ranking))
    completed = complete_shown(root, conn, [*order, *(c.symbol["path"] for c in chosen)], chosen, source)
    sources = Sources(root, conn)
    graph = import_graph(conn)  # once the files shown are complete: their imports count
    calls: dict[str, list[dict[str, Any]]] = {}

    def calls_of(c: Candidate) -> list[dict[str, Any]]:
        if c.symbol["id"] not in calls:
            calls[c.symbol["id"]] = callers_of(conn, graph, c.symbol)
        return calls[c.symbol["id"]]

    tested = [c.symbol for c in chosen[:TESTS_FROM_CANDIDATES]]
    for symbol in tested:  # the walks tests_to_run reads, each held once found
        testmap.symbol_tests_held(conn, graph, symbol, MAX_TESTS, root)
        yield
    for path in order[:3]:  # also read by their facts below: walked first, so a step is the walk or the contract
        testmap.module_tests_held(conn, graph, path, MAX_TESTS)
        yield
    for path in order:  # what the pack shows of each module (budgets drop 1 in 180 on sqlalchemy and typeorm)
        module_facts(conn, graph, path)
        yield
    tests = testmap.tests_to_run(conn, graph, tested, order[:3], MAX_TESTS, root)
    more_tests = (
        f"impact_analysis('{chosen[0].symbol['id']}') (and on the other symbols above)"
        if chosen
        else f"get_module_contract('{order[0]}')"
        if order
        else "impact_analysis"
    )
    contexts = memory.contexts_about(
        conn, [*(("module", p) for p in order), *(("symbol", c.symbol["id"]) for c in chosen)]
    )

    def contract_of(path: str) -> list[tuple[str, dict[str, Any]]]:
        return module_renderings(
            module_entry(conn, graph, path, module_scores.get(path, 0.0), module_why.get(path, []))
        )

    def callers_of_candidate(c: Candidate) -> list[tuple[str, dict[str, Any]]]:
        return callers_renderings(c, calls_of(c), sources)

    blocks: list[Block] = []
    module_blocks = {
        p: Block("modules", partial(contract_of, p), Omission("contract", "get_module_contract", p)) for p in order
    }
    test_block = Block(
        "tests",
        lambda: tests_renderings(tests, more_tests),
        Omission("tests to run", "impact_analysis", note=" on the symbols above"),
    )
    for i, c in enumerate(chosen, 1):
        blocks.append(
            Block(
                "symbols",
                partial(body_renderings, i, c, sources),
                Omission("body", "get_symbol", c.symbol["id"]),
            )
        )
        if c.symbol["path"] in module_blocks:
            blocks.append(module_blocks.pop(c.symbol["path"]))
        blocks.append(
            Block(
                "callers",
                partial(callers_of_candidate, c),
                Omission("callers", "get_symbol", c.symbol["id"]),
            )
        )
        if i == 1 and tests:
            blocks.append(test_block)
    room = MAX_CANDIDATES + MORE_CANDIDATES - len(chosen)
    for i, c in enumerate(more_candidates(cands, chosen, module_scores, room, hedged), len(chosen) + 1):
        blocks.append(
            Block("symbols", partial(lambda i, c: body_renderings(i, c, sources)[-1:], i, c), None)
        )  # a second guess by signature: a line each, before the budget is spent on more contracts
    if tests and test_block not in blocks:
        blocks.append(test_block)
    blocks.extend(module_blocks.values())
    if contexts:
        text = "\n".join(
            f"- {x['contextId']} ({x['relationshipType']} {x['about']})" + (f": {x['summary']}" if x["summary"] else "")
            for x in contexts
        )
        blocks.append(
            Block(
                "contexts",
                lambda: [(text, {"contexts": contexts})],
                Omission("linked conversations", "retrieve_context"),
            )
        )

    echo = task if len(task) <= TASK_ECHO_CHARS else task[:TASK_ECHO_CHARS] + "…"
    header = (
        f"# Context pack\nTask: {echo}\nRanked by: {', '.join(words) or 'names in the task'}"
        f" (rarest first). Budget {budget} tokens."
    )
    header += f"\nConfidence in the first module: {sure['level']} ({sure['why']})."
    if not chosen:
        header += "\nNo symbol matched the task: name a file or identifier, or try search_symbols."
    if incomplete := outlined_count(conn):
        header += (
            f"\nThe index is still completing {incomplete} files (`annals status`): their imports, calls and tests"
            " are not read yet, so callers, dependents and tests below may be missing some."
        )
    missing = [{"path": path, "last_seen": last_seen(conn, path)} for path in missing_paths(conn, task)]
    if missing:
        header += "\nNot in this tree: " + "; ".join(_missing_line(m) for m in missing) + "."
    picks, omitted, markdown = fit(blocks, budget, header)
    # The budget goes to the modules of the edit candidates first (their contracts explain the bodies shown),
    # but the modules are shown in the ranking's order, its best estimate of where the change goes (with its
    # last step, a module without a matching symbol may well be first). The candidates' modules first
    # instead: localize_bench file Acc@1/@5 on tasks the ranking's models never saw (the later dev tasks)
    # .557/.820 against .563/.831 in the ranking's order; fastify (hold-out) .55/.80 against .58/.82.
    picks = in_ranked_order(picks, order)
    markdown = assemble(header, picks, omitted)
    picked: dict[str, list[dict[str, Any]]] = {}
    for section, _, item, _ in picks:
        picked.setdefault(section, []).append(item)
    callers_by_symbol = {item["symbol"]: item for item in picked.get("callers", [])}
    data = {
        "task": task,
        "budget_tokens": budget,
        "tokens_used": estimate_tokens(markdown) + NOTE_TOKENS,
        "terms": words,
        "confidence": sure,
        "modules": picked.get("modules", []),
        "symbols": [
            {
                **item,
                "callers": callers_by_symbol.get(item["id"], {}).get("callers", []),
                "callers_total": len(calls.get(item["id"], [])),
            }
            for item in picked.get("symbols", [])
        ],
        "tests": next((item["tests"] for item in picked.get("tests", [])), []),
        "contexts": next((item["contexts"] for item in picked.get("contexts", [])), []),
        "omitted": [str(o) for o in omitted],
        "missing": missing,
        "completed_on_demand": completed,
    }
    return data, markdown


def complete_shown(
    root: Path, conn: sqlite3.Connection, paths: list[str], chosen: list[Candidate], source: str | None
) -> list[str]:
    """Tier 2 on demand, as the other tools do before they read imports, calls or tests: while the index completes
    in the background, the search-ready files among those the pack shows, and those naming its candidates (where
    their callers and tests are), are completed first; which they were. Without it a pack made in the first
    seconds after `annals index` said "imports: nothing · used by 0 · tests: none found" of every module."""
    if source is None or not outlined_count(conn):
        return []
    from ..indexer.complete import on_demand  # the parser loads only when there is something to complete

    return on_demand(root, conn, list(dict.fromkeys(paths)), [c.symbol["name"] for c in chosen], source=source)


def _missing_line(missing: dict[str, Any]) -> str:
    """`lib/router/index.js (removed by cec5780db4f0 "Use router module for routing")`: a file the task names
    that the tree does not hold, and where the recorded history last saw it."""
    seen = missing["last_seen"]
    return missing["path"] + (f' ({seen["how"]} by {seen["commit"][:12]} "{seen["title"]}")' if seen else "")


def _to_the_end(steps: Callable[_P, Generator[None, None, _T]]) -> Callable[_P, _T]:
    """A function made of steps as one call that takes them all and returns what the last one returns."""

    def whole(*args: _P.args, **kwargs: _P.kwargs) -> _T:
        taking = steps(*args, **kwargs)
        while True:
            try:
                next(taking)
            except StopIteration as done:
                return done.value

    return whole


# The pack as structured data (ContextPackAnswer's fields but freshness and vectors) and as markdown; `nearest`:
# what the vectors find nearest the task, when they can say.
build_pack = _to_the_end(pack_steps)
