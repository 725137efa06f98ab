"""Git figures on real history: release sources of a PyPI package committed one after another.

    python bench/git_bench.py [--package rich] [--versions 121] [--work /tmp/annals-git-bench]

Builds a scratch repository under --work (never committed anywhere) from `pip download
--no-binary :all: --no-deps NAME==V` for each release, oldest first, then prints:
  - diff-symbols between revisions 100 commits apart, cold (empty parse cache) and warm;
  - history backfill throughput (commits/s, blobs parsed);
  - precision and recall of changed, added and deleted symbols against an independent check
    built on Python's `ast` (every consecutive pair, and the 100-apart pair);
  - pre-commit hook latency p50/p95 for 50 staged files in a 10,000-file repository (and
    post-commit, pre-commit with the gate on, and the background job a hook hands its parsing
    to, for information).
Targets (issue 5): the 100-commit diff under 2 s; precision and recall >= 97%; hook p95 < 300 ms.
Downloads are cached under --work/downloads, so a second run starts at once.
"""

from __future__ import annotations

import argparse
import ast
import collections
import concurrent.futures
import importlib
import os
import random
import shutil
import statistics
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path

from codeannals.hooks.jobs import wait as wait_for_jobs
from codeannals.indexer.git.githistory import backfill
from codeannals.indexer.git.symdiff import SymbolDiffer, diff_symbols, resolve
from codeannals.store import open_store
from packaging.version import InvalidVersion, Version

PIP = [sys.executable, "-m", "pip"]
ANNALS = str(Path(sys.executable).parent / "annals")
DIFF_DISTANCE = 100
HOOK_FILES = 10_000
STAGED = 50
HOOK_TRIALS = 20


def run(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    return subprocess.run(
        argv, cwd=cwd, check=True, capture_output=True, text=True, env={**os.environ, **(env or {})}
    ).stdout


# --- the repository of releases ------------------------------------------------------------------


def release_versions(package: str) -> list[str]:
    out = subprocess.run([*PIP, "index", "versions", package], capture_output=True, text=True, check=True).stdout
    line = next(text for text in out.splitlines() if text.startswith("Available versions:"))
    found = []
    for text in line.split(":", 1)[1].split(","):
        try:
            version = Version(text.strip())
        except InvalidVersion:
            continue
        if not version.is_prerelease:
            found.append((version, text.strip()))
    return [text for _, text in sorted(found)]


def download(package: str, version: str, cache: Path) -> Path | None:
    target = cache / version
    done = list(target.glob("*")) if target.exists() else []
    if done:
        return done[0]
    target.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        [*PIP, "download", "-q", "--no-binary", ":all:", "--no-deps", f"{package}=={version}", "-d", str(target)],
        capture_output=True,
        text=True,
        check=False,
    )
    files = list(target.glob("*"))
    if proc.returncode != 0 or not files:
        print(f"  {package} {version}: no sdist ({proc.stderr.strip().splitlines()[-1:] or ['?']})", file=sys.stderr)
        return None
    return files[0]


def unpack(archive: Path, dest: Path) -> None:
    """The archive's files under dest, without its top-level `name-version/` folder."""
    scratch = dest.parent / (dest.name + ".unpack")
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir()
    if archive.suffix == ".zip":
        with zipfile.ZipFile(archive) as zf:
            zf.extractall(scratch)  # noqa: S202 - zipfile strips '..' and absolute names itself
    else:
        with tarfile.open(archive) as tf:
            tf.extractall(scratch, filter="data")
    tops = list(scratch.iterdir())
    source = tops[0] if len(tops) == 1 and tops[0].is_dir() else scratch
    for item in source.iterdir():
        shutil.move(str(item), dest / item.name)
    shutil.rmtree(scratch, ignore_errors=True)


def build_history(package: str, count: int, work: Path) -> tuple[Path, list[str]]:
    repo = work / f"{package}-history"
    marker = repo / ".git" / "annals-bench-done"
    if marker.exists():
        commits = run(["git", "rev-list", "--reverse", "HEAD"], repo).split()
        return repo, commits
    versions = release_versions(package)[-count:]
    cache = work / "downloads" / package
    print(f"downloading {len(versions)} releases of {package} (cached in {cache})...", file=sys.stderr)
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        archives = list(pool.map(lambda v: (v, download(package, v, cache)), versions))
    shutil.rmtree(repo, ignore_errors=True)
    repo.mkdir(parents=True)
    run(["git", "init", "-q"], repo)
    env = {
        "GIT_AUTHOR_NAME": "bench",
        "GIT_AUTHOR_EMAIL": "bench@localhost",
        "GIT_COMMITTER_NAME": "bench",
        "GIT_COMMITTER_EMAIL": "bench@localhost",
    }
    for n, (version, archive) in enumerate(archives):
        if archive is None:
            continue
        for item in repo.iterdir():
            if item.name != ".git":
                shutil.rmtree(item) if item.is_dir() and not item.is_symlink() else item.unlink()
        unpack(archive, repo)
        stamp = f"{1_300_000_000 + n * 86_400} +0000"
        run(["git", "-c", "core.hooksPath=/dev/null", "add", "-A", "-f", "."], repo)
        run(
            ["git", "-c", "core.hooksPath=/dev/null", "commit", "-q", "--allow-empty", "-m", f"{package} {version}"],
            repo,
            {**env, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp},
        )
    marker.write_text("built\n")
    return repo, run(["git", "rev-list", "--reverse", "HEAD"], repo).split()


# --- the independent check ----------------------------------------------------------------------


class Blobs:
    """`git cat-file --batch` of our own, so the check shares no code with what it checks."""

    def __init__(self, repo: Path) -> None:
        self.proc = subprocess.Popen(
            ["git", "cat-file", "--batch"], cwd=repo, stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )

    def read(self, name: str) -> bytes | None:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(name.encode() + b"\n")
        self.proc.stdin.flush()
        header = self.proc.stdout.readline().split()
        if len(header) != 3:
            return None
        data = self.proc.stdout.read(int(header[2]))
        self.proc.stdout.read(1)
        return data


def ast_defs(source: bytes) -> dict[str, str] | None:
    """qualname (`#n` for repeats, in source order) -> ast.dump of every def and class; None if unparsable. An
    overload set is one symbol, as the index has it (indexer/parsing/extract.py): `@overload` stubs fold into the
    definition of their name that follows, whose dump they join."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant):
            node.kind = None  # u"x" is "x" in Python 3; ast keeps the prefix, the language ignores it
    defs: list[tuple[int, int, str, str, bool]] = []  # line, column, qualname, dump, an overload stub

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                qual = f"{prefix}.{child.name}" if prefix else child.name
                start = min([child.lineno] + [d.lineno for d in child.decorator_list])
                stub = any(
                    (isinstance(d, ast.Name) and d.id == "overload")
                    or (isinstance(d, ast.Attribute) and d.attr == "overload")
                    for d in child.decorator_list
                )
                defs.append((start, child.col_offset, qual, ast.dump(child), stub))
                visit(child, qual)
            else:
                visit(child, prefix)

    visit(tree, "")
    seen: collections.Counter[str] = collections.Counter()
    out = {}
    stubs: dict[str, str] = {}  # qualname -> the dumps of the overload stubs waiting for their definition
    for _, _, qual, dump, stub in sorted(defs, key=lambda d: (d[0], d[1])):
        if stub:
            stubs[qual] = stubs.get(qual, "") + dump
            continue
        seen[qual] += 1
        out[qual if seen[qual] == 1 else f"{qual}#{seen[qual]}"] = stubs.pop(qual, "") + dump
    return out


def truth(repo: Path, blobs: Blobs, old: str, new: str) -> tuple[dict[str, set[str]], set[str]]:
    """Added, deleted, modified symbol ids by `ast`; and the files the check could read."""
    out = run(["git", "diff-tree", "-r", "--no-renames", "--name-status", old, new], repo)
    found: dict[str, set[str]] = {"added": set(), "deleted": set(), "modified": set()}
    readable: set[str] = set()
    for line in out.splitlines():
        status, path = line.split("\t", 1)
        if not path.endswith(".py"):
            continue
        before = ast_defs(blobs.read(f"{old}:{path}") or b"") if status != "A" else {}
        after = ast_defs(blobs.read(f"{new}:{path}") or b"") if status != "D" else {}
        if before is None or after is None:
            continue  # Python 2 sources and the like: outside what `ast` can check
        readable.add(path)
        found["added"] |= {f"{path}::{q}" for q in after.keys() - before.keys()}
        found["deleted"] |= {f"{path}::{q}" for q in before.keys() - after.keys()}
        found["modified"] |= {f"{path}::{q}" for q in after.keys() & before.keys() if after[q] != before[q]}
    return found, readable


def ours(result: dict) -> dict[str, set[str]]:
    """Our changes of defs and classes, which the `ast` check knows: not of module constants (kind `const`)."""
    changed = [c for c in result["changed_symbols"] if c["kind"] != "const"]
    found = {
        "added": {c["id"] for c in changed if c["status"] == "added"},
        "modified": {c["id"] for c in changed if c["status"] == "modified"},
        "deleted": {d["id"] for d in result["deleted_symbols"] if d["kind"] != "const"},
    }
    for r in result["renamed_symbols"]:  # `ast` knows no renames: a rename is a deletion and an addition
        if r["kind"] != "const":
            found["deleted"].add(r["from"])
            found["added"].add(r["to"])
    return found


def score(pairs: list[tuple[dict[str, set[str]], dict[str, set[str]]]]) -> dict[str, tuple[float, float, int]]:
    table = {}
    for kind in ("added", "deleted", "modified", "all"):
        tp = fp = fn = 0
        for mine, real in pairs:
            a = set().union(*mine.values()) if kind == "all" else mine[kind]
            b = set().union(*real.values()) if kind == "all" else real[kind]
            if kind == "all":  # a symbol must land in the right category to count
                a = {(k, s) for k in ("added", "deleted", "modified") for s in mine[k]}
                b = {(k, s) for k in ("added", "deleted", "modified") for s in real[k]}
            tp += len(a & b)
            fp += len(a - b)
            fn += len(b - a)
        table[kind] = (tp / (tp + fp) if tp + fp else 1.0, tp / (tp + fn) if tp + fn else 1.0, tp + fn)
    return table


def restrict(found: dict[str, set[str]], readable: set[str]) -> dict[str, set[str]]:
    return {k: {s for s in v if s.split("::", 1)[0] in readable} for k, v in found.items()}


# --- the hook --------------------------------------------------------------------------------


def build_big_repo(source: Path, commits: list[str], work: Path) -> Path:
    """About HOOK_FILES files: the releases side by side (one folder per release), then indexed."""
    big = work / "big-repo"
    marker = big / ".git" / "annals-bench-done"
    if marker.exists():
        return big
    shutil.rmtree(big, ignore_errors=True)
    big.mkdir(parents=True)
    run(["git", "init", "-q"], big)
    total = 0
    for n, commit in enumerate(reversed(commits)):
        if total >= HOOK_FILES:
            break
        dest = big / f"r{n:03d}"
        dest.mkdir()
        archive = subprocess.run(["git", "archive", commit], cwd=source, capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
        total += sum(1 for p in dest.rglob("*") if p.is_file())
    n = 0
    while total < HOOK_FILES:  # pad with small modules when the releases hold fewer files
        pad = big / "pad" / f"m{n:05d}.py"
        pad.parent.mkdir(exist_ok=True)
        pad.write_text(f"def pad_{n}(x):\n    return x + {n}\n")
        n += 1
        total += 1
    run(["git", "add", "-A", "-f", "."], big)
    run(["git", "-c", "user.name=bench", "-c", "user.email=b@localhost", "commit", "-q", "-m", "big"], big)
    print(f"indexing the {total}-file repository...", file=sys.stderr)
    run([ANNALS, "index", "--no-vectors", "--wait"], big, {"ANNALS_VECTORS": "off"})
    run([ANNALS, "hooks", "install"], big)
    marker.write_text("built\n")
    return big


def time_hook(repo: Path, name: str, env: dict[str, str] | None = None) -> float:
    started = time.perf_counter()
    subprocess.run(
        [str(repo / ".git" / "hooks" / name)],
        cwd=repo,
        check=True,
        capture_output=True,
        env={**os.environ, **(env or {})},
    )
    return time.perf_counter() - started


def time_jobs(repo: Path) -> float:
    """Until the hooks' background jobs (parsing handed on by a hook) are done."""
    started = time.perf_counter()
    wait_for_jobs(repo)
    return time.perf_counter() - started


def hook_latency(big: Path) -> dict[str, list[float]]:
    files = sorted(p for p in big.rglob("*.py") if ".git" not in p.parts and ".annals" not in p.parts)
    rng = random.Random(5)
    timings: dict[str, list[float]] = {
        "pre-commit": [],
        "post-commit": [],
        "pre-commit (gate warn)": [],
        "background job after pre-commit": [],
    }
    for trial in range(HOOK_TRIALS):
        chosen = rng.sample(files, STAGED)
        for n, path in enumerate(chosen):
            with path.open("a", encoding="utf-8") as fh:
                fh.write(f"\n\ndef bench_{trial}_{n}(value):\n    return value * {trial} + {n}\n")
        run(["git", "add", "--", *[str(p.relative_to(big)) for p in chosen]], big)
        gate = "warn" if trial % 2 else "off"
        run(["git", "config", "annals.gate", gate], big)
        timings["pre-commit (gate warn)" if gate == "warn" else "pre-commit"].append(time_hook(big, "pre-commit"))
        timings["background job after pre-commit"].append(time_jobs(big))
        run(
            [
                "git",
                "-c",
                "user.name=bench",
                "-c",
                "user.email=b@localhost",
                "commit",
                "-q",
                "--no-verify",
                "-m",
                f"trial {trial}",
            ],
            big,
        )
        timings["post-commit"].append(time_hook(big, "post-commit"))
        time_jobs(big)
    run(["git", "config", "annals.gate", "off"], big)
    return timings


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


# --- main ------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--package", default="rich")
    parser.add_argument("--versions", type=int, default=121, help="How many of the newest releases to commit.")
    parser.add_argument("--work", type=Path, default=Path("/tmp/annals-git-bench"))
    parser.add_argument("--skip-hooks", action="store_true", help="Leave out the 10k-file hook latency run.")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)

    repo, commits = build_history(args.package, args.versions, args.work)
    print(f"repository  {repo}: {len(commits)} commits ({args.package} releases, oldest first)")
    if len(commits) <= DIFF_DISTANCE:
        print(f"  note: fewer than {DIFF_DISTANCE + 1} releases; the long diff spans {len(commits) - 1} commits")
    distance = min(DIFF_DISTANCE, len(commits) - 1)
    base, target = commits[-1 - distance], commits[-1]

    db = args.work / "bench.db"
    for leftover in args.work.glob("bench.db*"):
        leftover.unlink()
    conn = open_store(db)
    started = time.perf_counter()
    long_diff = diff_symbols(repo, conn, base, target)
    cold = time.perf_counter() - started
    started = time.perf_counter()
    diff_symbols(repo, conn, base, target)
    warm = time.perf_counter() - started
    print(
        f"diff-symbols over {distance} commits: cold {cold:.2f} s, warm {warm:.2f} s (target < 2 s); "
        f"{long_diff['files_changed']} files, {len(long_diff['changed_symbols'])} changed, "
        f"{len(long_diff['deleted_symbols'])} deleted, {len(long_diff['renamed_symbols'])} renamed"
    )
    conn.close()

    for leftover in args.work.glob("bench.db*"):
        leftover.unlink()
    conn = open_store(db)
    report = backfill(repo, conn)
    print(
        f"history backfill: {report.recorded} commits in {report.seconds:.2f} s = "
        f"{report.recorded / max(report.seconds, 1e-9):.1f} commits/s; {report.blobs_parsed} blobs parsed, "
        f"{report.blobs_cached} from cache"
    )
    again = backfill(repo, conn)
    print(f"history backfill again: {again.recorded} new in {again.seconds:.2f} s")

    blobs = Blobs(repo)
    consecutive, long_pair = [], []
    with SymbolDiffer(repo, conn) as differ:
        for old, new in zip(commits, commits[1:], strict=False):
            real, readable = truth(repo, blobs, old, new)
            consecutive.append((restrict(ours(differ.diff(resolve(repo, old), resolve(repo, new))), readable), real))
        real, readable = truth(repo, blobs, base, target)
        long_pair.append((restrict(ours(long_diff), readable), real))
    conn.close()
    for label, pairs in (
        (f"{len(consecutive)} consecutive pairs", consecutive),
        (f"the {distance}-commit pair", long_pair),
    ):
        table = score(pairs)
        cells = "; ".join(f"{k} P {p:.2%} R {r:.2%} (n={n})" for k, (p, r, n) in table.items())
        print(f"vs ast, {label}: {cells}")

    if not args.skip_hooks:
        big = build_big_repo(repo, commits, args.work)
        # An installed package has its bytecode compiled; an editable one under
        # PYTHONDONTWRITEBYTECODE would compile every module in every hook run.
        packages = [
            str(Path(importlib.import_module(f"codeannals.{name}").__file__ or "").parent)
            for name in ("hooks", "indexer", "server", "store")
        ]
        subprocess.run([sys.executable, "-m", "compileall", "-q", *packages], check=True, capture_output=True)
        count = int(run(["git", "ls-files"], big).count("\n"))
        timings = hook_latency(big)
        for name, values in timings.items():
            print(
                f"hook {name}, {STAGED} staged files, {count}-file repo: "
                f"p50 {statistics.median(values) * 1000:.0f} ms, "
                f"p95 {percentile(values, 0.95) * 1000:.0f} ms (n={len(values)})"
                + (" (target p95 < 300 ms)" if name == "pre-commit" else "")
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
