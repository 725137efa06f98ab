"""Lint-fix tasks: does the code say where a commit fixing a lint goes? (store/lints.py)

    python bench/lint_tasks.py [--mirrors DIR] [--repo NAME] [--show]

Tasks. Every non-merge commit of the repositories in DEV and HOLDOUTS (the `fetch` tool's mirrors; none of them a
localize_bench repository, so no list a ranking was tuned on) whose message asks for a lint store/lints.py knows
(`lints.asked`) and which changes at least one code file of the lint's language that existed in its parent (tests
left out: lookups.is_test_path). The task is the message; the gold is those changed files. The lists are written to
bench/data/lint_tasks.json the first time and read from there afterwards, so a run is repeatable.

Methods, each at the task's parent commit (the tree the fix was written against):
- lints: the files the asked lints flag (`lints.flag` over the parent's code files of their language), most matches
  first; it answers only where a lint flags 1 to lints.MAX_FLAGGED files (`fired`).
- bm25: the baseline, FTS5 over the parent's whole text files (localize_bench.FileBM25), the message as the query.

Prints per repository and pooled (dev, hold-outs): tasks, how many fired, each method's file Acc@1 / Acc@5 over all the
tasks (lints counts a task it did not fire on as a miss), the share of flagged files the commit changed, and both
methods' Acc@1 / Acc@5 over the tasks where lints fired.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from codeannals.store import lints  # noqa: E402
from codeannals.store.lookups import is_test_path  # noqa: E402
from localize_bench import DEFAULT_MIRRORS, FileBM25, task_text  # noqa: E402

# The lints' words and shapes were read off hyper's tasks (localize_bench's) and these repositories' ("dev")...
DEV = (
    "hyperium+h2",
    "hyperium+tonic",
    "tokio-rs+tracing",
    "tokio-rs+mio",
    "clap-rs+clap",
    "sharkdp+bat",
    "sharkdp+fd",
    "actix+actix-net",
    "seanmonstar+reqwest",
    "pallets+flask",
    "encode+starlette",
    "psf+requests",
    "fastapi+fastapi",
)
# ...and judged on these, chosen (2026-12-07) before any of their commits was read, and never read task by task
# (`--show` leaves them out).
HOLDOUTS = (
    "rustls+rustls",
    "serde-rs+serde",
    "rust-lang+regex",
    "tower-rs+tower",
    "crossbeam-rs+crossbeam",
    "rayon-rs+rayon",
    "alacritty+alacritty",
    "starship+starship",
    "helix-editor+helix",
    "diesel-rs+diesel",
    "launchbadge+sqlx",
    "rwf2+Rocket",
    "image-rs+image",
    "rust-random+rand",
    "chronotope+chrono",
    "tokio-rs+prost",
    "bevyengine+bevy",
    "python-attrs+attrs",
    "pytest-dev+pytest",
    "aio-libs+aiohttp",
    "marshmallow-code+marshmallow",
    "scrapy+scrapy",
)
LANGUAGES = {".rs": "rust", ".py": "python"}
DATA = Path(__file__).parent / "data" / "lint_tasks.json"


def language(path: str) -> str | None:
    return LANGUAGES.get(Path(path).suffix)


def git(repo: Path, *args: str) -> bytes:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=True).stdout


def build_tasks(name: str, repo: Path) -> list[dict[str, Any]]:
    """The repository's commits asking for a known lint, oldest first."""
    log = git(repo, "log", "--no-merges", "--reverse", "--format=%H%x00%P%x00%B%x1e").decode("utf-8", "replace")
    tasks = []
    for record in log.split("\x1e"):
        if record.count("\x00") != 2:
            continue
        commit, parents, message = record.strip().split("\x00")
        asked = lints.asked(message)
        if not asked or len(parents.split()) != 1:
            continue
        wanted = {lint.language for lint in asked}
        changed = git(repo, "diff", "--name-only", "--diff-filter=M", parents, commit).decode().split()
        gold = sorted(p for p in changed if language(p) in wanted and not is_test_path(p))
        if gold:
            task = {"repo": name, "commit": commit, "parent": parents, "message": task_text(message), "gold": gold}
            tasks.append(task)
    return tasks


def load_tasks(mirrors: Path, names: list[str]) -> list[dict[str, Any]]:
    known = json.loads(DATA.read_text()) if DATA.exists() else {}
    missing = [n for n in names if n not in known]
    for name in missing:
        known[name] = build_tasks(name, mirrors / name / "repo")
    if missing:
        DATA.write_text(json.dumps(known, indent=1, sort_keys=True) + "\n")
    return [t for n in names for t in known[n]]


def tree_texts(repo: Path, commit: str) -> dict[str, bytes]:
    """Every file of the commit's tree, by path (a mirror may lack its largest blobs: those are left out)."""
    entries = [e.split("\t", 1) for e in git(repo, "ls-tree", "-r", "-z", commit).decode().split("\0") if e]
    blobs = [(meta.split()[2], path) for meta, path in entries if meta.split()[1] == "blob"]
    batch = "".join(f"{sha}\n" for sha, _ in blobs).encode()
    out = subprocess.run(["git", "-C", str(repo), "cat-file", "--batch"], input=batch, capture_output=True, check=True)
    data, at, texts = out.stdout, 0, {}
    for _, path in blobs:
        end = data.index(b"\n", at)
        header = data[at:end].split()
        at = end + 1
        if header[-1] == b"missing":
            continue
        size = int(header[2])
        texts[path] = data[at : at + size]
        at += size + 1
    return texts


def ask(repo: Path, task: dict[str, Any]) -> dict[str, Any]:
    texts = tree_texts(repo, task["parent"])
    code = {
        p: raw.decode("utf-8", "replace").splitlines()
        for p, raw in texts.items()
        if language(p) and not is_test_path(p)
    }
    flagged = lints.flag(lints.asked(task["message"]), code, {p: language(p) for p in code})
    matches: dict[str, int] = {}
    for found in flagged:
        for path, lines in found.lines.items():
            matches[path] = matches.get(path, 0) + len(lines)
    return {
        "lints": sorted(matches, key=lambda p: (-matches[p], p)),
        "bm25": FileBM25(texts).files(task["message"]),
    }


def summary(name: str, results: list[tuple[dict[str, Any], dict[str, Any]]]) -> str:
    def acc(method: str, k: int, among: list[tuple[dict[str, Any], dict[str, Any]]]) -> float:
        return sum(bool(set(a[method][:k]) & set(t["gold"])) for t, a in among) / max(len(among), 1)

    flagged = [p in t["gold"] for t, a in results for p in a["lints"]]
    share = sum(flagged) / len(flagged) if flagged else 0.0
    fired = [(t, a) for t, a in results if a["lints"]]
    return (
        f"{name:22} {len(results):5} {len(fired):5}  {acc('lints', 1, results):9.2f} {acc('lints', 5, results):.2f} "
        f"{acc('bm25', 1, results):7.2f} {acc('bm25', 5, results):.2f}  {share:.2f} of {len(flagged):<3}  "
        f"where fired: lints @1 @5 {acc('lints', 1, fired):.2f} {acc('lints', 5, fired):.2f}, "
        f"bm25 {acc('bm25', 1, fired):.2f} {acc('bm25', 5, fired):.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--mirrors", type=Path, default=DEFAULT_MIRRORS)
    parser.add_argument("--repo", action="append", help="only these (owner+name)")
    parser.add_argument("--show", action="store_true", help="each task's flagged and changed files")
    args = parser.parse_args()
    names = args.repo or [*DEV, *HOLDOUTS]
    tasks = load_tasks(args.mirrors, names)
    rows: dict[str, list[tuple[dict[str, Any], dict[str, Any]]]] = {}
    for task in tasks:
        rows.setdefault(task["repo"], []).append((task, ask(args.mirrors / task["repo"] / "repo", task)))
    print(f"{'repository':22} {'tasks':>5} {'fired':>5}  lints @1 @5  bm25 @1 @5  flagged changed")
    dev = [r for n in names if n not in HOLDOUTS for r in rows.get(n, [])]
    held = [r for n in names if n in HOLDOUTS for r in rows.get(n, [])]
    for name, results in [*((n, rows.get(n, [])) for n in names), ("dev", dev), ("hold-outs", held)]:
        if results:
            print(summary(name, results))
    for task, answer in dev if args.show else ():
        subject = re.sub(r"\s+", " ", task["message"])[:70]
        print(task["repo"], task["commit"][:8], subject, answer["lints"], task["gold"])


if __name__ == "__main__":
    main()
