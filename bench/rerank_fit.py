"""Fit store/rerank.py's two models on real tasks, and check them on tasks the fit never saw.

    python bench/rerank_fit.py [--work DIR] [--mirrors DIR] [--tasks N] [--l2 X]

For every localize_bench repository: its task list (--tasks, 300 by default: the first 100 of each are
the lists localize_bench judges its targets on), its base index with the vectors (as `localize_bench.py
--vectors` leaves it, under the same --work), and for each task the ranking before its last step
(`score_task`, given the symbols and commits nearest the task by meaning) and the features of its best
files (`rerank.features`).

The fits, on the first 100 tasks of each dev repository, each a softmax with an L2 penalty that starts
from the ranking's own order (all weight on the score): the files model over each task's TOP_FILES best
files, the gold files its target; the symbols model over the TOP_SYMBOLS best candidates of each file
the task changed, its gold symbols the target. Printed: file Acc@1/Acc@5 of the ranking's order and of
the model's, and the gold symbol first / among the first three of its file, on the fitted tasks, on the
later tasks of each dev repository (which the fits never saw) and on each hold-out (whole, never task
by task); then both sets of weights, as Python for store/rerank.py. The order here is the ranking's,
with tests; localize_bench measures the pack's, which leaves tests out unless the task is about them.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
FITTED = 100  # the first tasks of each dev repository: the lists localize_bench judges, fitted here


@functools.cache  # one module per process: its classes and caches are shared by whoever asks
def localize_bench() -> Any:
    spec = importlib.util.spec_from_file_location("localize_bench", HERE / "localize_bench.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["localize_bench"] = module
    spec.loader.exec_module(module)
    return module


def prepared(name: str, mirrors: Path, work: Path, tasks: int) -> tuple[Path, list[dict[str, Any]], dict[str, Any]]:
    """A repository's base index, its task list (`tasks` at most), and what is nearest each task by meaning
    (built when missing), as localize_bench --vectors leaves them under `work`."""
    bench = localize_bench()
    spec = bench.REPOS[name]
    listing = bench.load_tasks(name, spec, mirrors, work, tasks)
    root = bench.base_index(name, spec, listing, mirrors, work)
    near = nearest_of(root, listing["tasks"], work / "rerank" / f"{name}.{spec.base}.json")
    return root, listing["tasks"], near


def nearest_of(root: Path, tasks: list[dict[str, Any]], cache: Path) -> dict[str, Any]:
    """The symbols and commits nearest each task by meaning (cached by commit under --work)."""
    from codeannals.indexer.vectors.owner import VectorOwner, vector_access
    from codeannals.indexer.vectors.similarity import nearest_to_task
    from codeannals.store.db import connect

    known = json.loads(cache.read_text()) if cache.exists() else {}
    missing = [t for t in tasks if t["commit"] not in known]
    if missing:
        db = root / ".annals" / "annals.db"
        conn = connect(db, readonly=True)
        with VectorOwner(root, db) as owner:
            access = vector_access(conn, owner)
            for t in missing:
                near, note = nearest_to_task(access, t["message"])
                if not near.symbols:
                    sys.exit(f"{root}: no vectors to ask ({note}): run localize_bench.py --vectors first")
                known[t["commit"]] = {"symbols": list(near.symbols), "commits": list(near.commits)}
        conn.close()
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps(known))
    return known


Rows = list[tuple[np.ndarray, np.ndarray]]  # per group (a task's files, a file's symbols): features, which are gold


def task_rows(root: Path, tasks: list[dict[str, Any]], near: dict[str, Any]) -> list[tuple[Rows, Rows]]:
    """Per task: the features of its best files (in the ranking's order) and which are gold; and per file
    holding a gold symbol, the features of its best candidates and which are gold."""
    from codeannals.store import lookups, ranking, rerank
    from codeannals.store.db import connect
    from codeannals.store.tasktext import task_terms

    conn = connect(root / ".annals" / "annals.db", readonly=True)
    lines = lookups.file_lines(conn)
    at_base = {row[0] for row in conn.execute("SELECT id FROM symbols")}
    rows = []
    for t in tasks:
        n = near[t["commit"]]
        nearest = ranking.Nearest([tuple(x) for x in n["symbols"]], [tuple(x) for x in n["commits"]])
        scored = ranking.score_task(conn, t["message"], (), root, nearest)
        found = rerank.features(scored, nearest.symbols, lines, task_terms(t["message"])[2], ranking.RERANK_SCALES)
        gold = set(t["gold_files"])
        x = np.array(list(found.values())).reshape(len(found), len(rerank.FEATURES))
        changed = {s for s in t["gold_symbols"] if s in at_base}
        symbols = [
            (np.array(features), np.array([i in changed for i in ids]))
            for path, (ids, features) in rerank.symbol_features(scored, nearest.symbols).items()
            if any(s.startswith(path + "::") for s in changed)
        ]
        rows.append(([(x, np.array([p in gold for p in found]))], symbols))
    conn.close()
    return rows


def fit(rows: Rows, names: tuple[str, ...], l2: float, steps: int = 3000) -> np.ndarray:
    """Weights (of `names`) maximising the softmax likelihood of each group's gold rows among its rows."""
    usable = [(x, y) for x, y in rows if y.any()]
    size = (len(usable), max(len(y) for _, y in usable), len(names))
    xs, ys, mask = np.zeros(size), np.zeros(size[:2]), np.zeros(size[:2], dtype=bool)
    for i, (x, y) in enumerate(usable):
        xs[i, : len(x)], ys[i, : len(y)], mask[i, : len(x)] = x, y, True
    target = ys / ys.sum(1, keepdims=True)
    w = np.zeros(len(names))
    w[names.index("score")] = 5.0
    for _ in range(steps):
        s = np.where(mask, xs @ w, -1e9)
        p = np.exp(s - s.max(1, keepdims=True)) * mask
        p /= p.sum(1, keepdims=True)
        w -= np.einsum("tk,tkf->f", p - target, xs) / len(usable) + l2 * w
    return w


def accuracy(rows: Rows, w: np.ndarray | None) -> tuple[float, float]:
    """File Acc@1 and Acc@5 of the ranking's order (w None) or the model's, as `rerank.reorder` makes it."""
    from codeannals.store.rerank import FEATURES, reorder

    weights = {} if w is None else dict(zip(FEATURES, w.tolist(), strict=True))
    first = five = 0
    for x, y in rows:
        files = {str(i): float(len(y) - i) for i in range(len(y))}  # the ranking's order
        reorder(files, {str(i): x[i].tolist() for i in range(len(y))}, weights)
        order = [int(p) for p in sorted(files, key=lambda p: -files[p])]
        first += bool(order) and bool(y[order[0]])
        five += bool(order) and bool(y[order[:5]].any())
    return first / len(rows), five / len(rows)


def symbol_accuracy(rows: Rows, w: np.ndarray | None) -> tuple[float, float]:
    """A gold symbol first, and among the first three, of its file's candidates: the ranking's order
    (w None) or the model's (ties in the ranking's order)."""
    usable = [(x, y) for x, y in rows if y.any()]
    first = three = 0
    for x, y in usable:
        order = np.arange(len(y)) if w is None else np.argsort(-(x @ w), kind="stable")
        first += bool(y[order[0]])
        three += bool(y[order[:3]].any())
    return first / len(usable), three / len(usable)


def main() -> None:
    from codeannals.store.rerank import FEATURES, SYMBOL_FEATURES

    bench = localize_bench()
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--work", type=Path, default=bench.DEFAULT_WORK)
    parser.add_argument("--mirrors", type=Path, default=bench.DEFAULT_MIRRORS)
    parser.add_argument("--tasks", type=int, default=300)
    parser.add_argument("--l2", type=float, default=0.01)
    args = parser.parse_args()
    fitted: list[tuple[Rows, Rows]] = []
    later: dict[str, list[tuple[Rows, Rows]]] = {}
    held: dict[str, list[tuple[Rows, Rows]]] = {}
    for name in bench.REPOS:
        root, tasks, near = prepared(name, args.mirrors, args.work, args.tasks)
        rows = task_rows(root, tasks, near)
        if name in bench.HOLDOUTS:
            held[name] = rows
        else:
            fitted += rows[:FITTED]
            later[name] = rows[FITTED:]
    files_w = fit([r for files, _ in fitted for r in files], FEATURES, args.l2)
    symbols_w = fit([r for _, symbols in fitted for r in symbols], SYMBOL_FEATURES, args.l2)

    def line(label: str, tasks: list[tuple[Rows, Rows]]) -> None:
        if not tasks:
            return
        files, symbols = [r for f, _ in tasks for r in f], [r for _, s in tasks for r in s]
        (b1, b5), (m1, m5) = accuracy(files, None), accuracy(files, files_w)
        (s1, s3), (t1, t3) = symbol_accuracy(symbols, None), symbol_accuracy(symbols, symbols_w)
        print(
            f"  {label:<28} {len(files):>4}  files {b1:.3f}/{b5:.3f} -> {m1:.3f}/{m5:.3f}"
            f"  symbols {s1:.3f}/{s3:.3f} -> {t1:.3f}/{t3:.3f}"
        )

    print(
        "before -> after the models: file Acc@1/Acc@5 (the ranking's order); a gold symbol first/in three of its file:"
    )
    line("fitted (dev, first 100)", fitted)
    line("later dev tasks (all)", [r for rows in later.values() for r in rows])
    for name, rows in later.items():
        line(f"later {name}", rows)
    for name, rows in held.items():
        line(f"{name} (hold-out)", rows)
        line(f"{name} (hold-out, first 100)", rows[:FITTED])
    for title, names, w in (("WEIGHTS", FEATURES, files_w), ("SYMBOL_WEIGHTS", SYMBOL_FEATURES, symbols_w)):
        print(f"\n{title}: dict[str, float] = {{")
        print("".join(f'    "{n}": {v:.3f},\n' for n, v in zip(names, w, strict=True)) + "}")


if __name__ == "__main__":
    main()
