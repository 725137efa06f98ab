"""`diff-symbols` against git's own line diff: do the symbols it reports cover the code lines a commit changed?

    python bench/symdiff_lines.py [--repo hyperium+hyper ...] [--commits 300] [--work DIR]

For each repository (a mirror brought here with `fetch`, cloned under --work without a checkout), the last
--commits non-merge commits on its first-parent line: `git diff -U0 PARENT COMMIT` says which lines each commit
added or changed (the truth: git's, not ours), and diff-symbols (one SymbolDiffer, as `annals diff-symbols` runs)
says which symbols changed. A changed line of Rust, TypeScript or JavaScript code (neither blank nor a comment)
is covered when it lies in the span of a symbol reported modified, added or renamed. Printed per repository: the lines
judged, the share covered, and the same for the lines that are attributes or decorators (`#[derive(Default)]`,
`@Column()`), which a grammar puts beside the item they belong to rather than in it. What stays uncovered by
design: `use` and `import` lines, `mod x;`, item-level macros; compare runs of two versions of the code, not
the share against 1.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from codeannals.indexer.git.symdiff import SymbolDiffer, resolve
from codeannals.indexer.parsing.parse import language_for
from codeannals.store import open_store

MIRRORS = Path("/work/.mirror")
JUDGED = frozenset({"rust", "typescript", "tsx", "javascript"})
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")
_COMMENT = re.compile(r"^\s*(?://|/\*|\*)")
_ATTRIBUTE = re.compile(r"^\s*(?:#\[|@[A-Za-z_])")


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True).stdout


def added_lines(root: Path, parent: str, commit: str) -> dict[str, list[tuple[int, str]]]:
    """The lines `commit` added or changed, by file: (line in the new file, text), judged languages only."""
    found: dict[str, list[tuple[int, str]]] = {}
    path, line = None, 0
    for text in git(root, "diff", "-U0", "--no-color", "--no-renames", parent, commit).splitlines():
        if text.startswith("+++ "):
            name = text[4:].removeprefix("b/")
            path = name if text[4:] != "/dev/null" and language_for(name) in JUDGED else None
        elif (hunk := _HUNK.match(text)) is not None:
            line = int(hunk.group(1))
        elif text.startswith("+") and path is not None:
            if text[1:].strip() and not _COMMENT.match(text[1:]):
                found.setdefault(path, []).append((line, text[1:]))
            line += 1
    return found


def judge(root: Path, store: Path, commits: int) -> Counter[str]:
    counts: Counter[str] = Counter()
    listed = git(root, "rev-list", "--first-parent", "--no-merges", f"--max-count={commits}", "HEAD").split()
    conn = open_store(store)
    try:
        with SymbolDiffer(root, conn) as differ:
            for commit in listed:
                parents = git(root, "rev-list", "--parents", "-n", "1", commit).split()[1:]
                if len(parents) != 1:
                    continue
                lines = added_lines(root, parents[0], commit)
                if not lines:
                    continue
                result = differ.diff(resolve(root, parents[0]), resolve(root, commit))
                spans: dict[str, list[tuple[int, int]]] = {}
                for s in result["changed_symbols"]:
                    spans.setdefault(s["path"], []).append((s["start_line"], s["end_line"]))
                for s in result["renamed_symbols"]:  # moved or renamed: reported, where it is now
                    spans.setdefault(s["to_path"], []).append((s["start_line"], s["end_line"]))
                counts["commits"] += 1
                for path, added in lines.items():
                    for number, text in added:
                        kind = "attribute" if _ATTRIBUTE.match(text) else "code"
                        counts[f"{kind} lines"] += 1
                        if any(a <= number <= b for a, b in spans.get(path, ())):
                            counts[f"{kind} covered"] += 1
    finally:
        conn.close()
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", action="append", help="a mirror under /work/.mirror (owner+name)")
    parser.add_argument("--commits", type=int, default=300)
    parser.add_argument("--work", type=Path, default=None, help="where clones and the diff cache go (kept)")
    args = parser.parse_args()
    repos = args.repo or ["hyperium+hyper", "tokio-rs+axum", "typeorm+typeorm"]
    work = args.work or Path(tempfile.mkdtemp(prefix="symdiff-lines-"))
    work.mkdir(parents=True, exist_ok=True)
    print(f"{'repository':<22} {'commits':>7} {'code lines':>10} {'covered':>8} {'attr lines':>10} {'covered':>8}")
    for repo in repos:
        mirror = MIRRORS / repo / "repo"
        if not mirror.is_dir():
            sys.exit(f"no mirror {mirror}: bring it with `fetch github:{repo.replace('+', '/')}`")
        clone = work / repo
        if not clone.is_dir():
            subprocess.run(["git", "clone", "-q", "--no-checkout", str(mirror), str(clone)], check=True)
        c = judge(clone, work / f"{repo}.db", args.commits)
        code = c["code covered"] / max(1, c["code lines"])
        attributes = c["attribute covered"] / max(1, c["attribute lines"])
        print(
            f"{repo:<22} {c['commits']:>7} {c['code lines']:>10} {code:>8.3f}"
            f" {c['attribute lines']:>10} {attributes:>8.3f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
