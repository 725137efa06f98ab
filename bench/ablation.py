"""What each signal of the ranking core is worth: the pack over the localize_bench tasks with one signal off.

    python bench/ablation.py [--work DIR] [--mirrors DIR] [--tasks N] [--signal NAME ...] [--jobs N]
                             [--group LABEL=NAME,NAME ...]

Issue 13's rule for the ranking is that a signal stays only if it moves the hold-outs. This measures it for
every signal at once: the pack (`build_pack` in process, the pack's file order as localize_bench reads it)
with all the signals, then with each one off in turn, the rest as they are (store/rerank.py's weights
included, as fitted with everything on). The tasks are localize_bench's (the first --tasks of each list,
100 by default: the lists its targets are judged on), against the bases `localize_bench.py --vectors`
indexes under --work, each task with the symbols and commits nearest it by meaning (rerank_fit's cache
there). Printed for the dev repositories and the hold-outs, each as a whole (a hold-out is never read task
by task): file Acc@1, Acc@5 and MRR and symbol Acc@10, and the change each signal's absence makes, in
tasks; BM25 over whole files on the same tasks first. A change of one or two tasks is within the noise
of a few hundred tasks. --group prints the same for some repositories together as well (`fresh=scrapy,rocket`:
hold-outs no signal has been judged on yet, apart from the rest).
"""

from __future__ import annotations

import argparse
import functools
import sys
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import rerank_fit  # noqa: E402  (bench/ is not a package)
from codeannals.store import evidence, folds, history_rank, ranking, rerank  # noqa: E402

bench = rerank_fit.localize_bench()
Ranks = tuple[int | None, int | None, bool]  # a task's first gold file and symbol in the pack; has it a gold symbol

# name -> the settings of the ranking's modules that take the signal out. A part credited with nothing is still
# evidence to the last step (its features read which parts a file or symbol has), so a signal is taken out
# where it is found, not by zeroing its scale.
NOTHING: dict[str, Any] = {}
SIGNALS: dict[str, list[tuple[Any, str, Any]]] = {
    "words in names and docstrings": [(ranking, "relevant_symbols", lambda *_: [])],
    "named in the task": [
        (ranking, "named_path", lambda *_: None),
        (ranking, "named_symbols", lambda *_: []),
        (ranking, "named_module", lambda *_: None),
    ],
    "capitalized type names": [(ranking, "capitalized_types", lambda *_: [])],
    "calls what the task names": [(evidence, "callers_of_terms", lambda *_: [])],
    "near what the task names": [(ranking, "NEAR_BONUS", 0.0), (ranking, "FAR_FACTOR", 1.0)],
    "symbols near by meaning": [(evidence, "add_semantic", lambda *_: None), (rerank, "MAX_NEAREST", 0)],
    "similar commits": [(history_rank, "similar_commits", lambda *_: NOTHING)],
    "commits meaning the same": [(history_rank, "commits_meaning", lambda *_: NOTHING)],
    "commits of the task's scope": [(history_rank, "scope_commits", lambda *_: (NOTHING, 0))],
    "churn": [(ranking, "add_churn", lambda *_: None)],
    "path words of the subject": [(ranking, "add_path_words", lambda *_: None)],
    "entry points for exports": [(ranking, "entry_files", lambda *_: [])],
    "the workspace member named": [(ranking, "OUTSIDE_MEMBER_FACTOR", 1.0)],
    "the lint the task fixes": [(ranking.lints, "LINTS", ())],
    "not-code factor": [(ranking, "NOT_CODE_FACTOR", 1.0), (ranking, "MENTIONED_KIND_FACTOR", 1.0)],
    "tests fold into code": [(folds, "fold_tests", lambda *_: None)],
    "words in the code (files)": [(ranking.bodies, "file_scores", lambda *_: NOTHING)],
    "words in the code (symbols)": [(ranking.bodies, "body_scores", lambda *_: NOTHING)],
    "the last step (rerank.py)": [(rerank, "WEIGHTS", {}), (rerank, "SYMBOL_WEIGHTS", {})],
}
ALL = "(all signals)"


@contextmanager
def without(signal: str):  # type: ignore[no-untyped-def]
    """The ranking with `signal` taken out, as SIGNALS says; a setting of a name the module no longer has
    would take nothing out, so it stops the run."""
    settings = SIGNALS.get(signal, [])
    for module, name, _ in settings:
        if not hasattr(module, name):
            sys.exit(f"bench/ablation.py: {module.__name__} has no {name}: say in SIGNALS how to take out {signal!r}")
    kept = [(module, name, getattr(module, name)) for module, name, _ in settings]
    for module, name, value in settings:
        setattr(module, name, value)
    try:
        yield
    finally:
        for module, name, value in kept:
            setattr(module, name, value)


def ranks(signal: str, repos: dict[str, tuple[Path, list[dict[str, Any]], dict[str, Any]]]) -> dict[str, list[Ranks]]:
    """Per repository, each task's Ranks in the pack with `signal` off."""
    from codeannals.server.contextpack import build_pack
    from codeannals.store.db import connect

    out: dict[str, list[Ranks]] = {}
    for name, (root, tasks, near) in repos.items():
        conn = connect(root / ".annals" / "annals.db", readonly=True)
        at_base = {r[0] for r in conn.execute("SELECT id FROM symbols")}
        rows = []
        with without(signal):
            for t in tasks:
                n = near[t["commit"]]
                nearest = ranking.Nearest([tuple(x) for x in n["symbols"]], [tuple(x) for x in n["commits"]])
                answer, _ = build_pack(root, conn, t["message"], nearest=nearest)
                gold_symbols = {s for s in t["gold_symbols"] if s in at_base}
                file = bench.rank_of(bench.pack_files(answer), set(t["gold_files"]))
                symbol = bench.rank_of([s["id"] for s in answer["symbols"]], gold_symbols)
                rows.append((file, symbol, bool(gold_symbols)))
        conn.close()
        out[name] = rows
    return out


def bm25_ranks(repos: dict[str, tuple[Path, list[dict[str, Any]], dict[str, Any]]]) -> dict[str, list[int | None]]:
    out = {}
    for name, (root, tasks, _) in repos.items():
        index = bench.FileBM25.of_tree(root)
        out[name] = [bench.rank_of(index.files(t["message"]), set(t["gold_files"])) for t in tasks]
    return out


def figures(rows: list[Ranks]) -> tuple[float, float, float, float]:
    """File Acc@1, Acc@5 and MRR, and symbol Acc@10 over the tasks with a gold symbol, as localize_bench's."""
    files = [file for file, _, _ in rows]
    symbols = [symbol for _, symbol, has in rows if has]
    return bench.acc(files, 1), bench.acc(files, 5), bench.mrr(files), bench.acc(symbols, 10)


def named_group(spec: str) -> tuple[str, list[str]]:
    """`LABEL=NAME,NAME` as (label, names); a name localize_bench does not know stops the run."""
    label, _, names = spec.partition("=")
    members = [n.strip() for n in names.split(",") if n.strip()]
    unknown = [n for n in members if n not in bench.REPOS]
    if not label or not members or unknown:
        sys.exit(f"bench/ablation.py: --group {spec!r}: give LABEL=NAME,NAME with names of {', '.join(bench.REPOS)}")
    return label, members


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--work", type=Path, default=bench.DEFAULT_WORK)
    parser.add_argument("--mirrors", type=Path, default=bench.DEFAULT_MIRRORS)
    parser.add_argument("--tasks", type=int, default=bench.MAX_TASKS)
    parser.add_argument("--signal", action="append", choices=list(SIGNALS), help="only these (default: all)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--group", action="append", default=[], metavar="LABEL=NAME,NAME", help="also these together")
    args = parser.parse_args()
    signals = [ALL, *(args.signal or SIGNALS)]
    groups = {
        "dev": [n for n in bench.REPOS if n not in bench.HOLDOUTS],
        "hold-outs": [n for n in bench.REPOS if n in bench.HOLDOUTS],
        **dict(named_group(g) for g in args.group),
    }
    repos = {name: rerank_fit.prepared(name, args.mirrors, args.work, args.tasks) for name in bench.REPOS}
    with ProcessPoolExecutor(args.jobs) as pool:
        found = dict(zip(signals, pool.map(functools.partial(ranks, repos=repos), signals), strict=True))
    bm25 = bm25_ranks(repos)
    for group, names in groups.items():
        baseline = [r for name in names for r in bm25[name]]
        n = len(baseline)
        print(f"\n{group} ({', '.join(names)}; {n} tasks): BM25 over files f@5 {bench.acc(baseline, 5):.3f}")
        print(f"  {'signal off':<32} {'f@1':>6} {'f@5':>6} {'MRR':>6} {'s@10':>6}   change in tasks f@1 f@5 s@10")
        with_symbol = sum(has for name in names for _, _, has in found[ALL][name])
        base = figures([r for name in names for r in found[ALL][name]])
        for signal in signals:
            one, five, mrr, sym = figures([r for name in names for r in found[signal][name]])
            tasks = (one - base[0]) * n, (five - base[1]) * n, (sym - base[3]) * with_symbol
            change = "" if signal == ALL else "   " + " ".join(f"{round(t):+4d}" for t in tasks)
            print(f"  {signal:<32} {one:6.3f} {five:6.3f} {mrr:6.3f} {sym:6.3f}{change}")


if __name__ == "__main__":
    main()
