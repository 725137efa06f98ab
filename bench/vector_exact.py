"""Whether the symbols nearest a task by meaning are the exact nearest, and the same in every process.

    python bench/vector_exact.py ROOT... [--processes N] [--tasks T] [--nearest K]

Each ROOT is an indexed tree whose vectors are built, e.g. the localize bases (`/tmp/.../idx/healthchecks-v3.9`);
its tasks are the first T messages of bench/data/localize/<name>.json, the name being the file's that starts the
folder's name. Its `.annals` is copied aside first, so the original is never written. In N fresh processes, one
after the other, each task's K nearest symbols are asked two ways: Chroma's HNSW search of the collection (how the
store answered before 2026-12-07, ef_search as the store configures it), and the store's own answer
(`nearest_symbols`). The truth is an exact cosine scan, in float64, of every embedding the collection holds (ties
by id). Printed per tree: how many (process, task) answers hold the truth's K symbols, the share of the truth's
symbols found, and how many tasks got one answer in every process.

First run (2026-12-07, 5 processes, 100 tasks, K 40), HNSW then the store's scan: Healthchecks exact 488/500 answers
and the same in every process for 99/100 tasks, then 500/500 and 100/100; sqlalchemy 458/500 and 97/100, then
500/500 and 100/100; typeorm 495/500 and 100/100, then 500/500; hyper 500/500 both ways.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

TASKS = Path(__file__).parent / "data" / "localize"
PAGE = 5_000


def tasks_of(root: Path, count: int) -> list[str]:
    names = sorted((p for p in TASKS.glob("*.json") if "." not in p.stem), key=lambda p: -len(p.stem))
    for path in names:
        if root.name.startswith(path.stem):
            return [t["message"] for t in json.loads(path.read_text())["tasks"][:count]]
    sys.exit(f"{root}: no task list in {TASKS} whose name starts the folder's name")


def worker(root: Path, tasks_file: Path, nearest: int) -> None:
    """One process: (HNSW ids, the store's ids, the truth's ids) per task, as JSON on stdout."""
    import numpy as np
    from codeannals.indexer.vectors.embed import load_embedder
    from codeannals.indexer.vectors.progress import Location
    from codeannals.indexer.vectors.vector_store import VectorStore
    from codeannals.store.db import connect

    db = root / ".annals" / "annals.db"
    conn = connect(db, readonly=True)
    store = VectorStore(Location.for_db(db), root)
    store.open(conn, repair=False)
    ids: list[str] = []
    pages = []
    for offset in range(0, store.symbols.count(), PAGE):
        got = store.symbols.get(include=["embeddings"], limit=PAGE, offset=offset)
        ids += got["ids"]
        pages.append(np.asarray(got["embeddings"], dtype=np.float64))
    matrix = np.vstack(pages)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    embedder = load_embedder()
    answers = []
    for task in json.loads(tasks_file.read_text()):
        vector = embedder.query(task)
        similarities = matrix @ (np.asarray(vector, dtype=np.float64) / np.linalg.norm(vector))
        truth = sorted(range(len(ids)), key=lambda i: (-round(float(similarities[i]), 6), ids[i]))[:nearest]
        hnsw = store.symbols.query(query_embeddings=[vector], n_results=nearest, include=["distances"])["ids"][0]
        mine = [sid for sid, _ in store.nearest_symbols(vector, nearest)]
        answers.append({"hnsw": hnsw, "store": mine, "truth": [ids[i] for i in truth]})
    print(json.dumps(answers))


def measure(root: Path, processes: int, count: int, nearest: int) -> None:
    tasks = tasks_of(root, count)
    with tempfile.TemporaryDirectory(prefix="vector-exact-") as scratch:
        copy = Path(scratch) / root.name
        shutil.copytree(root / ".annals", copy / ".annals", ignore=shutil.ignore_patterns("*.scan.npz"))
        tasks_file = Path(scratch) / "tasks.json"
        tasks_file.write_text(json.dumps(tasks))
        runs = []
        for _ in range(processes):
            argv = [sys.executable, __file__, "--worker", str(copy), str(tasks_file), str(nearest)]
            runs.append(json.loads(subprocess.run(argv, check=True, capture_output=True, text=True).stdout))
    print(f"{root.name} ({len(tasks)} tasks, {processes} processes, the {nearest} nearest)")
    for way in ("hnsw", "store"):
        exact = sum(set(a[way]) == set(a["truth"]) for run in runs for a in run)
        found = sum(len(set(a[way]) & set(a["truth"])) for run in runs for a in run)
        asked = sum(len(a["truth"]) for run in runs for a in run)
        stable = sum(len({json.dumps(run[t][way]) for run in runs}) == 1 for t in range(len(tasks)))
        print(
            f"  {way:6} exact {exact}/{processes * len(tasks)} answers, {found / asked:.4f} of the truth found, "
            f"the same in every process for {stable}/{len(tasks)} tasks"
        )


def main() -> None:
    if sys.argv[1:2] == ["--worker"]:
        worker(Path(sys.argv[2]), Path(sys.argv[3]), int(sys.argv[4]))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("roots", nargs="+", type=Path)
    parser.add_argument("--processes", type=int, default=5)
    parser.add_argument("--tasks", type=int, default=20)
    parser.add_argument("--nearest", type=int, default=40)
    args = parser.parse_args()
    for root in args.roots:
        measure(root, args.processes, args.tasks, args.nearest)


if __name__ == "__main__":
    main()
