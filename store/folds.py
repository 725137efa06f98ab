"""What speaks for the code a task is about without being it: a matching test file, or a matching template.

A test that matches the task tells which code it exercises (the files it imports), and a template that matches
(a page's words, `the report template`) points to the code that renders it and to the tags, filters and methods it
runs. Each gives part of its score to those files, after the ranking core (store/ranking.py) has scored every file.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from . import callgraph, lookups
from .graph import import_graph
from .lookups import is_test_path
from .templatetags import LOOKS_UP, RENDERS, USES_TAG, templates

if TYPE_CHECKING:
    from .ranking import Ranking

# Test files fold into the code they import. Dev file Acc@1/@5, MRR, symbol Acc@10: off .508/.816 .635 .647,
# 0.5 .513/.823 .641 .653 (1.0 .500/.827 .635 .656); hold-out unchanged (.58/.90 .72 .57).
TEST_FOLD = 0.5
# Templates fold into the code behind them (fold_templates). In process, the ranking's order (as
# bench/localize_ceiling.py reads it), file Acc@1/@5; only the Django apps have templates their code renders
# (werkzeug's debugger's move nothing). Tried after the code's words were read: Healthchecks .49/.80 -> .52/.81 at 0.5,
# .53/.81 at 1.0, .54/.81 at 2.0 (three templates; one or five the same at 0.5), the hold-out babybuddy .556/.778 ->
# .571/.778 at 0.5 and 1.0. Here, before them (the code behind the templates gets read): Healthchecks .54/.80,
# babybuddy .571/.778; symbol Acc@10 of the ranking's order, Healthchecks .584 -> .607, babybuddy the same.
# localize_bench --vectors, pack file Acc@1/@5, MRR, symbol Acc@10: Healthchecks .49/.80 .62 .62 -> .54/.80 .65 .66, the
# hold-out babybuddy .56/.78 .65 .525 -> .57/.78 .66 .55; every other repository the same.
# Tried and not kept (2026-12-06, in process as above): a template's own text as well, BM25 over every template's words
# (`the "Show details" button`), its three best giving up to 0.1-0.5 of the best code file's score to the code behind
# them: Healthchecks .54/.80 -> .53-.55/.79-.80. Nor the symbols behind the best templates credited as edit candidates
# too (the view rendering one, its filters, the methods it looks up), sharing 1.0 or 3.0 of its score: localize_bench
# --vectors symbol Acc@5/@10, Healthchecks .48/.66 -> .49/.67 and .46/.66, the hold-out babybuddy the same (.40/.55).
# Nor (2026-12-07, in process as above) the scripts a best template loads (`{% static 'js/login_tfa.js' %}`, two at
# most) sharing 0.5 or 1.0 of its score: Healthchecks .54/.80 -> .53/.80, the hold-out babybuddy the same (.571/.778);
# a template's score is small beside its scripts' own. Nor a doc file speaking for the code file of its name
# (docs/Reference/Reply.md for lib/reply.js; its three best docs, 0.25-1.0 of their score): the dev lists .611/.872
# -> .612/.872 (undici +1 task), the hold-outs together .667/.861 -> .667/.858.
TEMPLATE_FOLD = 1.0
FOLD_TEMPLATES = 3
TEMPLATE_CALLS = 200  # a page's template runs a few hundred tags and lookups
# Once `require('..')` resolved (2026-12-04), every fastify and pino test imported fastify.js and pino.js, which the
# fold made first: localize_bench --vectors pack file Acc@1/@5, the hold-out fastify .60/.84 -> .58/.83, pino
# .55/.90 -> .54/.92, undici .56 -> .55 Acc@1. Without the top entry file as a target, every figure is as
# before; without any entry file (src/index.ts too) typeorm .61/.87 -> .60/.86, and without Python's
# `__init__.py` as well, httpx symbol Acc@10 .68 -> .65.
# Nor (2026-12-07, in process, the ranking's order, file Acc@1/@5) a test importing no code file but the package's own
# entry folding into the one or two code files of its name (test/levels.test.js for lib/levels.js): dev .615/.879 ->
# .615/.878 (undici .87 -> .86), the hold-outs .667/.861 -> .667/.862.
# Nor (2026-12-07, the same way) a test named for a code file (ElementTest.java, test_dispatcher.py, auth_test.go,
# spec_request.rb; the one code file of that stem) folding into it alone, whatever it imports: Java's tests import
# five classes or more and same-package ones not at all. Dev .608/.872 -> .608/.870: jsoup .54/.84 -> .53/.82,
# werkzeug .91 -> .90 Acc@5, leveldb .67 -> .68 Acc@1.
FOLD_TESTS = 5
FOLD_MAX_TARGETS = 5


def fold_tests(conn: sqlite3.Connection, ranking: Ranking, kinds: dict[str, str], entries: list[str]) -> None:
    """A test file that matches the task speaks for the code it tests: the FOLD_TESTS best test files give
    TEST_FOLD of their score to the code files they import (shared among them; a test importing more
    than FOLD_MAX_TARGETS code files says little about any one). Not to the package's entry point at the top of
    the tree (`fastify.js`, as `require('..')` reaches it): a test importing the package as its users do says
    nothing of which file, its name does."""
    front = {e for e in entries if "/" not in e}
    graph = import_graph(conn)
    for path in [p for p in ranking.ranked_files() if is_test_path(p)][:FOLD_TESTS]:
        targets = [t for t in graph.forward.get(path, ()) if kinds.get(t) == "code" and t not in front]
        if not targets or len(targets) > FOLD_MAX_TARGETS:
            continue
        for t in targets:
            ranking.credit(t, "tested by", TEST_FOLD * ranking.files[path] / len(targets))
            ranking.why.setdefault(t, []).append(f"tested by {path}, which matches")


def fold_templates(conn: sqlite3.Connection, ranking: Ranking, kinds: dict[str, str]) -> None:
    """A template that matches the task (a page's words, `the report template`) is not where a change to what the page
    does goes, but it points there: to the code that renders it and to the tags, filters and methods it runs
    (store/templatetags.py). The FOLD_TEMPLATES best templates give TEMPLATE_FOLD of their score, as it was before
    the factor of a file that is not code, to those files (shared among them; a template reaching more than
    FOLD_MAX_TARGETS says little about any one)."""
    by_file = {i.split("::", 1)[0]: i for ids in templates(conn).values() for i in ids}
    if not by_file:  # most repositories: no need to sort every ranked file
        return
    best = [by_file[p] for p in ranking.ranked_files() if kinds.get(p) == "style" and p in by_file][:FOLD_TEMPLATES]
    rows = lookups.symbol_rows(conn, best)
    for template in [lookups.symbol_dict(rows[i]) for i in best if i in rows]:  # best first
        path = template["path"]
        behind = {c["path"] for c in callgraph.callers(conn, template) if c["basis"] == RENDERS}
        behind |= {
            c["target"].split("::", 1)[0]
            for c in callgraph.callees(conn, template, TEMPLATE_CALLS)
            if c["target"] and c["basis"] in (USES_TAG, LOOKS_UP)
        }
        targets = sorted(t for t in behind if kinds.get(t) == "code")
        if targets and len(targets) <= FOLD_MAX_TARGETS:
            evidence = ranking.files[path] / ranking.parts.get(path, {}).get("factor", 1.0)
            for target in targets:
                ranking.credit(target, "template", TEMPLATE_FOLD * evidence / len(targets))
                ranking.why.setdefault(target, []).append(f"its template {path} matches")
