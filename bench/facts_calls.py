"""Call edges against PyCG's micro-benchmark: precision and recall per category, with a baseline.

    python bench/facts_calls.py [SNIPPETS]   (or PYCG_SNIPPETS=...; default /work/corpora/calls/PyCG/...)

The ground truth is written by others: each `micro-benchmark/snippets/<category>/<case>/` of PyCG
(github.com/vitsalis/PyCG) holds small programs and the `callgraph.json` its authors wrote by
hand. Each case is indexed as it is (a real index in a temporary database), and the call edges
of the index are compared with theirs. Only edges between functions defined in the case count
(internal): calls to builtins (`<builtin>.print`) and to other packages are left out, and so are
edges into classes without `__init__` (PyCG has no node for them). A called class is an edge to
its `__init__`, as PyCG counts it.

Three rows per category:
- `resolved`: edges whose basis the code gives (same file, method, imported name, constructor);
- `+values`: those plus `named as a value`: a function handed on (`map(f, xs)`, `Thread(target=f)`),
  an edge from the function handing it on, which stands in for whoever calls it. PyCG draws that
  edge where the receiver is a builtin it models (`map`) and from the receiver where it is the case's
  own function, so against it these edges are partly right by construction;
- `+unique`: the resolved ones plus `unique name` (the only symbol of that name in the case);
- `baseline`: the name-only rule the index used before calls had refs, on the same call sites:
  each call goes to the first symbol of its name, same file first, then a file the caller imports,
  then any.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

DEFAULT = "/work/corpora/calls/PyCG/micro-benchmark/snippets"
Edge = tuple[str, str]


def node_name(symbol_id: str | None, path: str) -> str:
    """PyCG's name of a symbol or of a module's top level: `pkg.mod.Class.method`, `main`."""
    module = path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
    if symbol_id is None:
        return module
    return f"{module}.{symbol_id.split('::', 1)[1]}"


def index_case(case: Path, work: Path) -> Any:
    from codeannals.indexer.run import index_tree
    from codeannals.store import open_store

    tree = work / "tree"
    shutil.copytree(case, tree, ignore=shutil.ignore_patterns("callgraph.json"))
    conn = open_store(work / "annals.db")
    index_tree(tree, conn)
    return conn


def our_edges(conn: Any, bases: frozenset[str]) -> set[Edge]:
    from codeannals.store.resolver import CallResolver

    resolver = CallResolver(conn)
    edges = set()
    for call in conn.execute("SELECT path, caller, name, qualifier, ref FROM calls"):
        for found in resolver.resolve(call["path"], call["ref"]):
            target, basis = found.target, found.basis
            if target is None and "unique name" in bases and call["qualifier"] and basis == "unknown":
                rows = conn.execute(
                    "SELECT id FROM symbols WHERE name = ? AND kind IN ('function', 'method')", (call["name"],)
                ).fetchall()
                target, basis = (rows[0]["id"], "unique name") if len(rows) == 1 else (None, basis)
            if target is None or basis not in bases:
                continue
            target = _function_of(conn, resolver, target)
            if target is not None:
                edges.add((node_name(call["caller"], call["path"]), node_name(target, target.split("::", 1)[0])))
    return edges


def _function_of(conn: Any, resolver: Any, target: str) -> str | None:
    """A class stands for its `__init__` (its own or inherited), as PyCG counts a constructor call."""
    row = conn.execute("SELECT * FROM symbols WHERE id = ?", (target,)).fetchone()
    if row is None or row["kind"] != "class":
        return target
    init = resolver.member(row, "__init__")
    return init["id"] if init is not None else None


def baseline_edges(conn: Any) -> set[Edge]:
    """The name-only rule the index had before refs: the first symbol of the call's name."""
    from codeannals.store.refs import PROTOCOL_METHODS

    edges = set()
    # Call syntax only, as a tool matching names sees it: neither a value handed on (`value:` refs) nor the
    # dunder methods a `for` or `with` statement runs (rows named `__iter__` with no qualifier).
    for call in conn.execute(
        "SELECT path, caller, name FROM calls WHERE (ref IS NULL OR ref NOT LIKE 'value%')"
        f" AND NOT (qualifier IS NULL AND name IN ({', '.join(repr(m) for m in sorted(PROTOCOL_METHODS))}))"
    ):
        row = conn.execute(
            """SELECT s.id, s.kind, s.qualname, s.path,
                      CASE WHEN s.path = :path THEN 0
                           WHEN EXISTS (SELECT 1 FROM imports r WHERE r.path = :path AND r.target = s.path)
                           THEN 1 ELSE 2 END AS rank
               FROM symbols s WHERE s.name = :name ORDER BY rank, s.id LIMIT 1""",
            {"path": call["path"], "name": call["name"]},
        ).fetchone()
        if row is None:
            continue
        target = row["id"]
        if row["kind"] == "class":
            init = conn.execute(
                "SELECT id FROM symbols WHERE path = ? AND qualname = ?", (row["path"], f"{row['qualname']}.__init__")
            ).fetchone()
            if init is None:
                continue
            target = init["id"]
        edges.add((node_name(call["caller"], call["path"]), node_name(target, target.split("::", 1)[0])))
    return edges


def truth(case: Path) -> tuple[set[Edge], set[str], int]:
    """PyCG's internal edges, its internal nodes, and how many edges were left out (builtins, externals)."""
    graph = json.loads((case / "callgraph.json").read_text())
    modules = {
        p.relative_to(case).as_posix().removesuffix(".py").removesuffix("/__init__").replace("/", ".")
        for p in case.rglob("*.py")
    }
    nodes = {n for n in graph if any(n == m or n.startswith(m + ".") for m in modules)}
    edges = {(src, dst) for src, dsts in graph.items() for dst in dsts if dst in nodes}
    left_out = sum(1 for src, dsts in graph.items() for dst in dsts if src in nodes and dst not in nodes)
    return edges, nodes, left_out


def score(found: set[Edge], expected: set[Edge], nodes: set[str]) -> tuple[int, int, int]:
    """(true positives, edges we give between the case's nodes, expected edges)."""
    ours = {e for e in found if e[0] in nodes and e[1] in nodes}
    return len(ours & expected), len(ours), len(expected)


def main() -> None:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("PYCG_SNIPPETS", DEFAULT))
    if not root.is_dir():
        print(
            f"facts_calls: no PyCG snippets at {root} (clone github.com/vitsalis/PyCG and pass its "
            "micro-benchmark/snippets, or set PYCG_SNIPPETS); skipped"
        )
        return
    os.environ.setdefault("ANNALS_VECTORS", "off")
    rows: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0, 0]))
    missed: dict[str, list[str]] = defaultdict(list)
    left_out_total = cases = 0
    for case in sorted(p.parent for p in root.glob("*/*/callgraph.json")):
        category = case.parent.name
        expected, nodes, left_out = truth(case)
        left_out_total += left_out
        cases += 1
        with tempfile.TemporaryDirectory() as tmp:
            conn = index_case(case, Path(tmp))
            try:
                found = {
                    "resolved": our_edges(conn, frozenset({"same file", "method", "imported name", "constructor"})),
                    "+values": our_edges(
                        conn, frozenset({"same file", "method", "imported name", "constructor", "named as a value"})
                    ),
                    "+unique": our_edges(
                        conn, frozenset({"same file", "method", "imported name", "constructor", "unique name"})
                    ),
                    "baseline": baseline_edges(conn),
                }
            finally:
                conn.close()
        for label, edges in found.items():
            for i, n in enumerate(score(edges, expected, nodes)):
                rows[category][label][i] += n
                rows["ALL"][label][i] += n
        missing = expected - found["resolved"]
        if missing:
            missed[category].append(f"{case.name} ({len(missing)})")
    print(f"PyCG micro-benchmark: {cases} cases in {len(rows) - 1} categories at {root}")
    print(f"internal edges only; {left_out_total} edges to builtins or other packages left out\n")
    print(
        f"{'category':<14}{'resolved P':>11}{'R':>7}{'+values P':>11}{'R':>7}{'+unique P':>11}{'R':>7}"
        f"{'baseline P':>12}{'R':>7}{'edges':>7}"
    )
    for category in [*sorted(c for c in rows if c != "ALL"), "ALL"]:
        cells = []
        for label in ("resolved", "+values", "+unique", "baseline"):
            tp, given, wanted = rows[category][label]
            cells.append((tp / given if given else 1.0, tp / wanted if wanted else 1.0))
        wanted = rows[category]["resolved"][2]
        print(
            f"{category:<14}"
            + "".join(f"{p:>11.2f}{r:>7.2f}" if i < 3 else f"{p:>12.2f}{r:>7.2f}" for i, (p, r) in enumerate(cells))
            + f"{wanted:>7}"
        )
    print("\ncases with expected edges the resolved graph misses, by category:")
    for category, items in sorted(missed.items()):
        print(f"  {category}: {', '.join(items)}")


if __name__ == "__main__":
    main()
