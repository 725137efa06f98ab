"""What a ranked task shows first: the context pack's edit candidates (bodies, then second guesses by
signature) and the files it and vibe_check show. The ranking itself is `ranking.py`'s."""

from __future__ import annotations

import math

from .lookups import is_test_path, is_test_symbol
from .ranking import TEST_WORDS, Candidate, Ranking
from .symbol import SymbolRow

MAX_CANDIDATES = 5
# By signature, after the rest of the pack (see more_candidates): symbol Acc@10 .35 -> .40 over the dev
# repositories, .32 -> .35 on the hold-out; file accuracy unchanged.
MORE_CANDIDATES = 5
# The second guesses go to the best file first. Tried and not kept (localize_bench --vectors symbol Acc@10, Rust
# impl blocks no longer gold): at most 3 per file before any file's 4th, werkzeug .73 -> .77 and hyper .55 ->
# .58 but click .72 -> .65, typeorm .75 -> .72, fastify .73 -> .70, axum .56 -> .54; at most 4, ripgrep .85 ->
# .88 but click .72 -> .70, fastify .73 -> .71, gin .83 -> .81; round robin across files (the lists before),
# lower everywhere; a Rust file's `mod tests` after its code, axum .56 -> .52.
# Nor Rust's impl blocks left out of the candidates with bodies (2026-12-05): 31 to 58 of the first five of the Rust
# dev lists' packs were blocks and 3 of those gold (a block is gold only when its own lines changed, not a method's).
# Symbol Acc@5/@10: hyper .44/.59 -> .44/.60, actix-web .33/.50 -> .34/.53, but the hold-outs axum .29/.58 ->
# .33/.56 and tokio .39 -> .32 Acc@5; out of the second guesses as well, tokio .73 -> .50 Acc@10.
# Nor a file's best joining the first round only when it scores half (or 0.6) of the best candidate or more, so that a
# weak fifth file does not take the place of a strong file's second (2026-12-06, in process, symbol Acc@10): the Rust
# dev lists .700 -> .700 (.705), the other dev lists .763 -> .756 (.745; typeorm .753 -> .728, ky .773 -> .742).
# Nor the second guesses by their own scores across the chosen files, or by the file's and their own together
# (2026-12-06, symbol Acc@10 over the dev lists, in process): .743 -> .714 and .740 (click .728 -> .663 and .707).
# Nor an inherent `impl X` block chosen giving its place to the type X (2026-12-06, in process, symbol Acc@10): hyper
# .587 -> .603, but the hold-out tokio .732 -> .696; X first among the second guesses instead: hyper .603, ripgrep
# .899 -> .888, tokio .714.
# Edit candidates (with bodies) from one module, the second only when fewer files than MAX_CANDIDATES have
# any: the bodies hedge across the best files, the second guesses (more_candidates) go deeper into them.
# localize_bench symbol Acc@5/@10, 5 dev repositories: two per file at once .43/.51, one per file first
# .40/.54; with second guesses inside a chosen symbol allowed .43/.58 and .40/.60.
PER_MODULE = 2
# Where the ranking leads with a file (`confidence` high, or its score 1.2 times the next file's or more), that file's
# best four come first, then the others' best: hedging across files cost the file that is likely right its second to
# fourth bodies. Where it is not sure of it (under CLEAR_LEAD), the best of the files the lead took the place of come
# first among the second guesses, so the ten candidates hedge as before. localize_bench --vectors symbol Acc@5 / Acc@10
# against the bodies one per file first, in the same hour: dev .51 / .73 -> .57 / .73 (hyper s@10 .59 -> .62, click .72
# -> .74, ky .77 -> .79, actix-web .52 -> .50, Healthchecks .63 -> .62); hold-outs httpx .43 -> .50 (.66), fastify .47
# -> .58 (.73), sqlalchemy .62 / .84 -> .75 / .85, axum .29 / .58 -> .44 / .62, tokio .41 / .75 -> .59 / .77, gin .65 /
# .81 -> .77 / .83, babybuddy .40 -> .42 (.53); file figures the same. The lead for a high confidence alone: s@5 dev
# .55, hold-outs lower (httpx .45, sqlalchemy .68, axum .40, tokio .55, gin .72), s@10 hyper .59, httpx .64; three
# bodies or five instead of four: hold-outs lower; with no hedge where the lead is fair: s@10 dev .72 (axios .84 -> .77,
# pino .82 -> .77, babybuddy .53 -> .50); the lead for every first file (1.0), with the hedge: dev s@5 .58, s@10 the
# same, hold-outs s@5 httpx .49, fastify .60, axum .42, tokio .54, gin .76, babybuddy .45 (their sum lower).
LEAD_BODIES = 4
FAIR_LEAD = 1.2  # how far the first file leads the next for its bodies to come first


def edit_candidates(
    cands: dict[str, Candidate],
    limit: int = MAX_CANDIDATES,
    files: dict[str, float] | None = None,
    tests_last: bool = False,
    lead: str | None = None,
) -> list[Candidate]:
    """The best symbols, none inside (or around) one already chosen: each file's best first, the best file's
    first (a file's score holds evidence its symbols lack: history, a stub, a path the task names), then
    each file's second best while there is room, up to PER_MODULE per file; with `tests_last`, the
    code's before any test's (a test is what to run, not what to edit, unless the task is about tests). The `lead`
    file (one the ranking is sure of) gives its best LEAD_BODIES before any other file gives one."""
    ordered = _best_files_first(cands, files or {})
    # A Rust file's `mod tests` counts as a test here, not in the ranking: its words matching the task say the
    # file is the place (and the symbol model weighs its candidates as it was fitted). localize_bench --vectors
    # symbol Acc@10: hyper .56 -> .59, actix-web .58 -> .56, the rest the same; --tasks 300: hold-out axum
    # .67 -> .68, hyper .61 -> .63, actix-web .59 -> .58. As a test in the ranking too (TEST_FACTOR): axum
    # .65 -> .63, and .72 -> .71 file Acc@5.
    groups = [ordered]
    if tests_last:
        tests = {c.symbol["id"] for c in ordered if is_test_symbol(c.symbol["path"], c.symbol["qualname"])}
        groups = [[c for c in ordered if c.symbol["id"] not in tests], [c for c in ordered if c.symbol["id"] in tests]]
    chosen: list[Candidate] = []
    taken: set[str] = set()
    per_module: dict[str, int] = {}
    for c in (c for c in groups[0] if c.symbol["path"] == lead):  # the file the ranking is sure of: its best first
        if len(chosen) >= min(LEAD_BODIES, limit):
            break
        if not any(_nested(c.symbol, o.symbol) for o in chosen):
            chosen.append(c)
            taken.add(c.symbol["id"])
    for group in groups:
        for round_ in range(1, PER_MODULE + 1):
            for c in group:
                if len(chosen) >= limit:
                    return chosen
                s = c.symbol
                if (
                    s["id"] in taken
                    or s["path"] == lead
                    or per_module.get(s["path"], 0) >= round_
                    or any(_nested(s, o.symbol) for o in chosen)
                ):
                    continue
                chosen.append(c)
                taken.add(s["id"])
                per_module[s["path"]] = per_module.get(s["path"], 0) + 1
    return chosen


def more_candidates(
    cands: dict[str, Candidate],
    chosen: list[Candidate],
    files: dict[str, float],
    limit: int = MORE_CANDIDATES,
    hedged: list[Candidate] | None = None,
) -> list[Candidate]:
    """The next best symbols of the chosen files, shown by signature: a second guess at where the edit goes
    that costs a line each, and adds no file the ranking did not put first. A method of a class shown in
    full may be one: it says where in the class to look. The `hedged` (the bodies a lead took the place of,
    `lead_candidates`) first."""
    paths = {c.symbol["path"] for c in chosen}
    picked = {c.symbol["id"] for c in chosen}
    deeper = [c for c in _best_files_first(cands, files) if c.symbol["path"] in paths]
    guesses = {c.symbol["id"]: c for c in [*(hedged or []), *deeper] if c.symbol["id"] not in picked}
    return list(guesses.values())[:limit]


def lead_candidates(ranking: Ranking, first: str | None, tests_last: bool) -> tuple[list[Candidate], list[Candidate]]:
    """The edit candidates with bodies (`edit_candidates`), the file shown first leading them where the ranking leads
    with it (FAIR_LEAD, or named in the task); and where it is not sure of it (`confidence` low), the bodies the lead
    took the place of, for the second guesses."""
    sure = first is not None and confidence(ranking, first)["level"] == "high"
    leads = first is not None and (sure or lead_ratio(ranking, first) >= FAIR_LEAD)
    chosen = edit_candidates(ranking.symbols, files=ranking.files, tests_last=tests_last, lead=first if leads else None)
    if not leads or sure:
        return chosen, []
    taken = {c.symbol["id"] for c in chosen}
    spread = edit_candidates(ranking.symbols, files=ranking.files, tests_last=tests_last)
    return chosen, [c for c in spread if c.symbol["id"] not in taken]


def _best_files_first(cands: dict[str, Candidate], files: dict[str, float]) -> list[Candidate]:
    """The candidates of the best files first, each file's by score (ties by id, so answers repeat)."""
    return sorted(cands.values(), key=lambda c: (-files.get(c.symbol["path"], 0.0), -c.score, c.symbol["id"]))


def _nested(a: SymbolRow, b: SymbolRow) -> bool:
    if a["path"] != b["path"] or not a["start_line"] or not b["start_line"]:
        return False
    return not (a["end_line"] < b["start_line"] or b["end_line"] < a["start_line"])


def about_tests(ranking: Ranking) -> bool:
    """Whether the task is about tests: then tests are files to show and symbols to edit."""
    return bool(TEST_WORDS & set(ranking.words))


def files_to_show(ranking: Ranking, limit: int, *, tests: bool | None = None) -> list[str]:
    """The best `limit` files, tests left out unless the task is about tests (`tests` decides instead
    when given: vibe_check asks which code a plan touches, never its tests)."""
    with_tests = about_tests(ranking) if tests is None else tests
    return [p for p in ranking.ranked_files() if with_tests or not is_test_path(p)][:limit]


# How far the first file shown leads the best of the others, as the ratio of their scores. localize_bench
# --vectors, the pack's first file right: 6 dev repositories (574 tasks), named in the task .82, a lead of 1.6
# or more .80, 1.1 to 1.6 .58, under 1.1 .41. The hold-outs bear out the first line only (httpx .84, .52,
# .47; fastify .75, .38, .38): a high confidence, or none.
CLEAR_LEAD = 1.6


def confidence(ranking: Ranking, first: str | None) -> dict[str, str]:
    """How sure the ranking is that `first` (the file a pack shows first) is the one to change: level high
    (right about 4 times in 5 on real tasks) or low (about half the time or less), and why."""
    if first is None or first not in ranking.files:
        return {"level": "low", "why": "nothing in the index matches the task well"}
    if any(w == "named in the task" for w in ranking.why.get(first, [])):
        return {"level": "high", "why": f"{first} is named in the task"}
    lead = lead_ratio(ranking, first)
    if lead == math.inf:
        return {"level": "high", "why": f"{first} is the one file that matches"}
    if lead >= CLEAR_LEAD:
        return {"level": "high", "why": f"{first} scores {lead:.1f}x the next file"}
    return {"level": "low", "why": f"{first} scores {lead:.1f}x the next file: weigh the first few files alike"}


def lead_ratio(ranking: Ranking, first: str) -> float:
    """How far the file leads the best of the others, as the ratio of their scores (infinite where no other scores)."""
    others = max((s for p, s in ranking.files.items() if p != first), default=0.0)
    return ranking.files.get(first, 0.0) / others if others > 0 else math.inf
