"""Fit store/rerank.py's weights on real tasks, and check them on tasks the fit never saw.

    python bench/rerank_fit.py [--work DIR] [--mirrors DIR] [--tasks N] [--l2 X]

For every localize_bench repository: its task list (--tasks, 300 by default: the first 100 of each are
the lists localize_bench judges its targets on), its base index with the vectors (as `localize_bench.py
--vectors` leaves it, under the same --work), and for each task the ranking before its last step
(`score_task`, given the symbols and commits nearest the task by meaning) and the features of its best
files (`rerank.features`).

The fit: a softmax over each task's TOP_FILES best files, the gold files its target, with an L2
penalty, on the first 100 tasks of each dev repository; it starts from the ranking's own order (all
weight on the score). Printed: file Acc@1/Acc@5 of the ranking's order and of the model's, on the
fitted tasks, on the later tasks of each dev repository (which the fit never saw) and on each hold-out
(whole, never task by task), then the weights, as Python for store/rerank.py. The order here is the
ranking's; localize_bench measures the pack's, which starts with the files of its edit candidates.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
FITTED = 100  # the first tasks of each dev repository: the lists localize_bench judges, fitted here


def localize_bench() -> Any:
    spec = importlib.util.spec_from_file_location("localize_bench", HERE / "localize_bench.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["localize_bench"] = module
    spec.loader.exec_module(module)
    return module


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


def task_rows(root: Path, tasks: list[dict[str, Any]], near: dict[str, Any]) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per task: the features of its best files (rows, in the ranking's order) and which are gold."""
    from codeannals.store import ranking, rerank
    from codeannals.store.db import connect
    from codeannals.store.tasktext import task_terms

    conn = connect(root / ".annals" / "annals.db", readonly=True)
    lines = dict(conn.execute("SELECT path, lines FROM files WHERE status = 'indexed'").fetchall())
    rows = []
    for t in tasks:
        n = near[t["commit"]]
        nearest = ranking.Nearest([tuple(x) for x in n["symbols"]], [tuple(x) for x in n["commits"]])
        scored = ranking.score_task(conn, t["message"], (), root, nearest)
        found = rerank.features(scored, nearest.symbols, lines, task_terms(t["message"])[2], ranking.RERANK_SCALES)
        gold = set(t["gold_files"])
        x = np.array(list(found.values())).reshape(len(found), len(rerank.FEATURES))
        rows.append((x, np.array([p in gold for p in found])))
    conn.close()
    return rows


def fit(rows: list[tuple[np.ndarray, np.ndarray]], l2: float, steps: int = 3000) -> np.ndarray:
    """Weights maximising the softmax likelihood of each task's gold files among its best files."""
    from codeannals.store.rerank import FEATURES, TOP_FILES

    usable = [(x, y) for x, y in rows if y.any()]
    size = (len(usable), TOP_FILES, len(FEATURES))
    xs, ys, mask = np.zeros(size), np.zeros(size[:2]), np.zeros(size[:2], dtype=bool)
    for i, (x, y) in enumerate(usable):
        xs[i, : len(x)], ys[i, : len(y)], mask[i, : len(x)] = x, y, True
    target = ys / ys.sum(1, keepdims=True)
    w = np.zeros(len(FEATURES))
    w[FEATURES.index("score")] = 5.0
    for _ in range(steps):
        s = np.where(mask, xs @ w, -1e9)
        p = np.exp(s - s.max(1, keepdims=True)) * mask
        p /= p.sum(1, keepdims=True)
        w -= np.einsum("tk,tkf->f", p - target, xs) / len(usable) + l2 * w
    return w


def accuracy(rows: list[tuple[np.ndarray, np.ndarray]], w: np.ndarray | None) -> tuple[float, float]:
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


def main() -> None:
    bench = localize_bench()
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--work", type=Path, default=bench.DEFAULT_WORK)
    parser.add_argument("--mirrors", type=Path, default=bench.DEFAULT_MIRRORS)
    parser.add_argument("--tasks", type=int, default=300)
    parser.add_argument("--l2", type=float, default=0.01)
    args = parser.parse_args()
    fitted, later, held = [], {}, {}
    for name, spec in bench.REPOS.items():
        listing = bench.load_tasks(name, spec, args.mirrors, args.work, args.tasks)
        root = bench.base_index(name, spec, listing, args.mirrors, args.work)
        near = nearest_of(root, listing["tasks"], args.work / "rerank" / f"{name}.{spec.base}.json")
        rows = task_rows(root, listing["tasks"], near)
        if name in bench.HOLDOUTS:
            held[name] = rows
        else:
            fitted += rows[:FITTED]
            later[name] = rows[FITTED:]
    w = fit(fitted, args.l2)

    def line(label: str, rows: list[tuple[np.ndarray, np.ndarray]]) -> None:
        (b1, b5), (m1, m5) = accuracy(rows, None), accuracy(rows, w)
        print(f"  {label:<28} {len(rows):>4}  ranking {b1:.3f}/{b5:.3f}  model {m1:.3f}/{m5:.3f}")

    print("file Acc@1/Acc@5 of the ranking's order and the model's:")
    line("fitted (dev, first 100)", fitted)
    line("later dev tasks (all)", [r for rows in later.values() for r in rows])
    for name, rows in later.items():
        if rows:
            line(f"later {name}", rows)
    for name, rows in held.items():
        line(f"{name} (hold-out)", rows)
        line(f"{name} (hold-out, first 100)", rows[:FITTED])
    from codeannals.store.rerank import FEATURES

    print("\nWEIGHTS = {\n" + "".join(f'    "{n}": {v:.3f},\n' for n, v in zip(FEATURES, w, strict=True)) + "}")


if __name__ == "__main__":
    main()
