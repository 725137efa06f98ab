"""Side effects of an indexed repository's modules: what its functions' own calls show (the plain
baseline: what a contract said before effects followed calls) against what they reach through the
calls they make, and what the walk costs.

    annals -C REPO index --no-vectors && python bench/effects_bench.py REPO [--show PATH ...]

Prints, per kind, the modules and the functions with that effect, directly and through calls; the
time for every module's contract; and the evidence of each --show module.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from codeannals.store import default_db_path, open_store
from codeannals.store.queries import module_contract


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("--show", nargs="*", default=[], help="Modules whose evidence to print.")
    args = parser.parse_args()
    conn = open_store(default_db_path(args.repo.resolve()))
    paths = [r[0] for r in conn.execute("SELECT path FROM files WHERE status = 'indexed' ORDER BY path")]
    direct: dict[str, set[str]] = {}
    reached: dict[str, set[str]] = {}
    started = time.perf_counter()
    contracts = {p: module_contract(conn, p, with_tests=False) for p in paths}
    seconds = time.perf_counter() - started
    for row in conn.execute("SELECT DISTINCT path, symbol, kind FROM call_effects"):
        direct.setdefault(row["kind"], set()).add(row["path"])
    functions_direct = {
        (r["symbol"], r["kind"]) for r in conn.execute("SELECT symbol, kind FROM call_effects") if r["symbol"]
    }
    functions_reached: set[tuple[str, str]] = set()
    for path, c in contracts.items():
        for kind in c["side_effects"]:
            reached.setdefault(kind, set()).add(path)
        functions_reached |= {(e["symbol"], e["kind"]) for e in c["side_effect_evidence"] if e["symbol"]}
    each_ms = 1000 * seconds / max(1, len(paths))
    print(f"{len(paths)} indexed files; every contract in {seconds:.2f} s ({each_ms:.1f} ms each)")
    print(f"{'kind':<12} {'modules, own calls':>19} {'modules, through calls':>23}")
    for kind in sorted(reached):
        print(f"{kind:<12} {len(direct.get(kind, ())):>19} {len(reached[kind]):>23}")
    shown_chains = sum(1 for c in contracts.values() for e in c["side_effect_evidence"] if e["calls"] > 0)
    print(
        f"functions with an effect by their own calls: {len({s for s, _ in functions_direct})}; "
        f"evidence items that are chains of calls: {shown_chains}"
    )
    for path in args.show:
        c = contracts[path]
        print(f"\n{path}: {', '.join(c['side_effects']) or 'none detected'} (omitted: {c['side_effects_omitted']})")
        for e in c["side_effect_evidence"]:
            print(f"  {e['kind']:<11} {e['evidence']}  ({e['path']}:{e['line']}, {e['basis']})")


if __name__ == "__main__":
    main()
