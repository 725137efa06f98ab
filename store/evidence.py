"""Evidence for a task beyond its words, from what only the index has: the symbols calling what the task
names (the calls table), the files one import away from what it names (the import graph), and the symbols
nearest it by meaning (the vectors). store/ranking.py weighs each beside the rest.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Sequence

from . import lookups
from .graph import import_graph
from .symbol import SymbolRow

# Tried and not kept (2026-12-07): 10, for "replace manual unwrap_or_else with unwrap_or_default" (6 of hyper's files
# call it, 2 of them changed): in process, the dev lists' file Acc@1/@5 .611/.872 -> .609/.873.
FEW_CALLING_FILES = 5
MAX_CALLED_WORDS = 12
MAX_CALL_ROWS = 200
MIN_CALLED_WORD = 4  # shorter words are called by accident (`get`, `run`)
FEW_IMPORTERS = 12
# The symbols nearest the task by embeddings (when the vectors are built). localize_bench pack file Acc@1/@5,
# MRR, symbol Acc@10 (vectors from the same MiniLM and symbol texts as the vector store): dev off .57/.86 .69
# .67, 5 x 20 .57/.88 .70 .68 (3 x 20 .57/.87, 7 x 20 .56/.88, 5 x 10 .58/.88, 5 x 30 .57/.87); hold-outs
# httpx .61/.90 .74 .61 -> .61/.92 .74 .66, fastify .37/.68 .48 .53 -> .40/.69 .51 .60.
# Code symbols only (docs sections, configuration and the like left out): dev .57/.88 .70 .69 -> .58/.88 .70
# .69; httpx .61/.92 .74 .66 -> .64/.92 .75 .66, fastify .40/.69 .51 .60 -> .41/.68 .52 .60.
SEMANTIC_SCALE = 5.0
SEMANTIC_HITS = 20
SEMANTIC_ASKED = 40  # what to ask the vector store for: the nearest include sections of docs, left out
NEAR_KINDS = ("code", "test", "declarations")  # a stub's nearest symbol hands its score to the module's (folded)


def add_semantic(
    conn: sqlite3.Connection,
    semantic: Sequence[tuple[str, float]],
    kinds: dict[str, str],
    bump: Callable[[SymbolRow, float, str, str], None],
) -> None:
    """The SEMANTIC_HITS code symbols nearest the task by meaning gain up to SEMANTIC_SCALE, in proportion to
    their similarity: they find the code a task describes in other words than the code's own. A section of
    the docs near the task in meaning says where the feature is documented, not where the change goes."""
    ids = [sid for sid, sim in semantic if sim > 0]
    if not ids:
        return
    rows = lookups.symbol_rows(conn, ids)
    nearest = [
        (sid, sim) for sid, sim in semantic if sid in rows and sim > 0 and kinds.get(rows[sid]["path"]) in NEAR_KINDS
    ][:SEMANTIC_HITS]
    if not nearest:
        return
    best = nearest[0][1]
    for sid, sim in nearest:
        bump(
            lookups.symbol_dict(rows[sid]),
            SEMANTIC_SCALE * sim / best,
            f"means what the task says ({sim:.2f})",
            "meaning",
        )


def callers_of_terms(conn: sqlite3.Connection, names: list[str], words: list[str]) -> list[tuple[SymbolRow, str, bool]]:
    """Symbols calling what the task names (`getpass.getuser`, `mkstemp`): the code a change to a call
    goes in, when the callee is not ours to index, each with whether the task gave it as an identifier.
    A name called from more than FEW_CALLING_FILES files says too little; a qualifier (`getpass.`) must
    match where the task gives one.
    Tried and not kept (2026-12-03): an identifier no symbol, path or call has, found verbatim in one to five
    code files by `git grep -w` (`remove references to StaticFiles`: the doc comments of app.rs and scope.rs),
    crediting those files 5 or 15. Over the dev lists it applies to 2-30 tasks a repository and a gold file is
    among them in about two of three, but the files it finds mostly rank first already: pack file Acc@1/@5 the
    same on every dev repository but one task up or down (ky, pino, ripgrep, axios)."""
    terms: dict[str, str | None] = {}
    for name in names:
        parts = re.split(r"\.|::", name)
        if len(name.split()) == 1 and parts[-1].isidentifier():
            terms.setdefault(parts[-1], parts[-2] if len(parts) > 1 else None)
    identifiers = set(terms)
    for word in [w for w in words if len(w) >= MIN_CALLED_WORD][:MAX_CALLED_WORDS]:  # the subject's first
        terms.setdefault(word, None)
    out: list[tuple[SymbolRow, str, bool]] = []
    for term, qualifier in terms.items():
        if term not in identifiers and _defined_here(conn, term):
            # A plain word naming our own code: the symbol itself ranks, not everything calling it (the
            # caller of `parse` outranked `parse` for "parse should keep empty fields"). Hold-out pack
            # file Acc@1/@5 .57/.89 -> .58/.88, symbol Acc@10 .35 -> .34; click, werkzeug, axios unchanged.
            continue
        rows = conn.execute(  # calls, not values handed on (`map(f, xs)`, store/refs.py)
            "SELECT path, caller, qualifier FROM calls WHERE name = ? AND (ref IS NULL OR ref NOT LIKE 'value%')"
            " LIMIT ?",
            (term, MAX_CALL_ROWS),
        ).fetchall()
        rows = [r for r in rows if qualifier is None or (r["qualifier"] or "").removesuffix("::") == qualifier]
        if not rows or len({r["path"] for r in rows}) > FEW_CALLING_FILES:
            continue
        said = f"{qualifier}.{term}" if qualifier else term
        callers = list(dict.fromkeys(r["caller"] for r in rows if r["caller"]))
        for row in lookups.symbol_rows(conn, callers).values():
            out.append((lookups.symbol_dict(row), said, term in identifiers))
    return out


def _defined_here(conn: sqlite3.Connection, name: str) -> bool:
    return conn.execute("SELECT 1 FROM symbols WHERE name = ? LIMIT 1", (name,)).fetchone() is not None


# Tried and not kept (2026-12-07, in process, the ranking's order, file Acc@1/@5): the files central to the best
# ones, as a repository map ranks them: PageRank over the file graph (imports, and calls of a name one file defines)
# personalised by the ten best files' scores, what it spread beyond them credited up to 0.1 or 0.3 of the best file's
# score before the model: dev .608/.872 -> .601/.872 and .589/.871.
def neighbourhood(conn: sqlite3.Connection, anchors: set[str]) -> set[str]:
    """The anchors, what they import, and what imports them unless that is half the repository (the
    users of a popular module are rarely where its change goes)."""
    if not anchors:
        return set()
    graph = import_graph(conn)
    near = set(anchors)
    for anchor in anchors:
        near.update(graph.forward.get(anchor, ()))
        importers = graph.reverse.get(anchor, ())
        if len(importers) <= FEW_IMPORTERS:
            near.update(importers)
    return near
