"""How far down the ranking the code a task changed lies: what re-ordering the best files can reach, and what needs
evidence the ranking does not have.

    python bench/localize_ceiling.py [--work DIR] [--mirrors DIR] [--repo NAME ...]

For the first 100 tasks of each localize_bench repository (the lists its targets are judged on), asked in process
against the base index localize_bench.py --vectors leaves under --work, with the symbols and commits nearest each
task by meaning (rerank_fit.py's cache): the place of the first changed file in the ranking's whole order (rank_task,
tests left out, as the pack leaves them out), as the share of tasks at or above 1, 5, 10, 20 and 50, and unranked
(no evidence at all named the file). The share at 20 is the most file Acc@5 any re-ordering of the best 20 files can
reach (store/rerank.py re-orders those); a target above it needs evidence that brings a file from further down. The
shares at 1 and 5 are the pack's file Acc@1 and Acc@5 (localize_bench measures them through the MCP client).
Hold-outs are printed as their totals, as everywhere: never task by task.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import rerank_fit  # noqa: E402  (bench/ is not a package)

TASKS = 100
PLACES = (1, 5, 10, 20, 50)


def places(name: str, mirrors: Path, work: Path) -> list[int | None]:
    """The place of each task's first changed file in the ranking's order, None where it is not ranked."""
    from codeannals.store import ranking
    from codeannals.store.db import connect
    from codeannals.store.lookups import is_test_path

    root, tasks, near = rerank_fit.prepared(name, mirrors, work, TASKS)
    conn = connect(root / ".annals" / "annals.db", readonly=True)
    out = []
    for task in tasks[:TASKS]:
        n = near[task["commit"]]
        nearest = ranking.Nearest([tuple(x) for x in n["symbols"]], [tuple(x) for x in n["commits"]])
        ranked = ranking.rank_task(conn, task["message"], (), root, nearest)
        files = [p for p in ranked.ranked_files() if not is_test_path(p)]
        gold = set(task["gold_files"])
        out.append(next((i + 1 for i, path in enumerate(files) if path in gold), None))
    conn.close()
    return out


def main() -> None:
    bench = rerank_fit.localize_bench()
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--work", type=Path, default=bench.DEFAULT_WORK)
    parser.add_argument("--mirrors", type=Path, default=bench.DEFAULT_MIRRORS)
    parser.add_argument("--repo", choices=sorted(bench.REPOS), action="append", help="only this repository")
    args = parser.parse_args()
    print("the first changed file at or above each place of the ranking (share of tasks); unranked: nowhere in it")
    for name in args.repo or list(bench.REPOS):
        found = places(name, args.mirrors, args.work)
        shares = " ".join(f"@{k} {sum(1 for p in found if p is not None and p <= k) / len(found):.2f}" for k in PLACES)
        label = f"{name} (hold-out)" if name in bench.HOLDOUTS else name
        unranked = sum(1 for p in found if p is None) / len(found)
        print(f"  {label:<22} {len(found):>3} tasks  {shares}  unranked {unranked:.2f}", flush=True)


if __name__ == "__main__":
    main()
