"""The ranking core: which files and symbols a task (a sentence, an issue, a commit message) is about.

`get_context_pack`, `annals pack` and task-sized searches (`search_symbols`, `annals search`, through
store/tasksearch.py) all rank here, so they agree. The task is read as an engineer reads it:

1. Paths and identifiers it names (`MultiDict.to_dict`, `src/app/http.py`, the file a conventional commit's
   scope names, `fix(Headers):`; read by store/tasktext.py) are the strongest evidence; the rarest of its
   plain words rank symbols by BM25 after them (store/relevance.py).
2. Symbols next to what the task names (one import away) count more than symbols far from it, and symbols
   calling what it names rank too (the evidence of the graph and the vectors: store/evidence.py).
3. Files rank as code (what each file is: store/filekinds.py): tests, type declarations, configuration,
   CI, docs and lock files only when the task is about them, and after the code unless it names them. A
   `.pyi` or `.d.ts` stub folds into the module it describes instead of taking a second slot, and a
   matching test file speaks for the code it imports, a matching template for the code behind it (store/folds.py).
4. The recorded history (`annals index` records it): a commit the task names by its id (`Correct 1049dd6`)
   names the files it changed, past commits whose messages read like the task vote for the files they
   changed, following code that moved since (store/history_rank.py), and the files changed most often gain
   a little: the next change likely goes where the last ones went.
5. Within the best files, a symbol whose own lines hold the task's words ranks up (store/bodies.py):
   the full-text index knows names and docstrings, the edit goes where the words are used.
6. When the vectors are built, the symbols and the past commits nearest the task by meaning rank too (the
   caller asks the vector store and passes them in): they find what a task describes in words the code,
   or the commit titles, do not use.
7. A task about what the package exports goes to its entry point (`index.ts`, `__init__.py`).
8. Last, the best files are put in order by a linear model of all that evidence, fitted on real tasks
   (store/rerank.py).
9. A task fixing what a linter flags (`remove unneeded return`) goes where the lint matches (store/lints.py).

Every score carries its evidence (`why`), so an agent can trust or overrule it.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from . import bodies, evidence, folds, lints, lookups, rerank
from .cprototypes import HUB_HEADER_FACTOR, definitions_of_prototypes, hub_headers
from .filekinds import about_kind, entry_files, file_kind, index_stubs, indexed_kinds, project_name
from .history_rank import (
    AGREEMENT,
    CHURN_SCALE,
    HISTORY_SCALE,
    MEANING_SCALE,
    add_churn,
    add_history,
    add_scope_history,
    named_commits,
    task_scope,
)
from .lookups import is_test_path
from .pathwords import add_path_words
from .relevance import CODE_NOISE, discriminating, relevant_symbols, stem
from .symbol import SymbolRow
from .tasktext import (
    capitalized_types,
    commit_ids,
    in_scope,
    named_module,
    named_packages,
    named_path,
    named_symbols,
    scope_files,
    task_terms,
    without_commit_ids,
)
from .words import content_words
from .workspace import members_named, workspace_members

# Tried and not kept (2026-12-07, in process, the ranking's order, file Acc@1/@5): a class whose fields' names (the
# fields table: a Django model's `ping_key`) hold two of the ranked words, or one, matching as its own words do, at 0.5
# or 1.0 of the best hit's score: dev .608/.872 -> .609/.872-.873, the hold-outs .647/.854 -> .646/.854.
RELEVANT_LIMIT = 200
EXPLAINED_HITS = 40
# The rarest words ranked by; more add matches to score, not relevance. localize_bench, 4 dev repositories,
# pack file Acc@1/@5: 4 .47/.76, 6 .48/.77, 10 .49/.78, 16 .48/.78; on the hold-out 10 did not move Acc@5
# (.88 either way) and cost Acc@1 (.57 -> .54): 6 stayed. With the code read (store/bodies.py), 5 dev
# repositories, file Acc@1/@5 and symbol Acc@10: 4 .519/.810 .645, 6 .513/.823 .653, 10 .530/.831 .667,
# 16 .525/.829 .664; hold-out 6 -> 10: file .58/.90 and MRR .72 unchanged, symbol Acc@5/@10 .36/.57 -> .38/.58.
# The subject's words come first (_subject_stems): localize_bench --vectors pack file Acc@1/@5, hold-outs
# fastify .58 -> .60, sqlalchemy .80 -> .83 (symbol Acc@10 .80 -> .85), gin .70 -> .69, httpx and axum the
# same; --tasks 300 fastify .62 -> .63, sqlalchemy .61 -> .62, gin .75 -> .74. Dev: typeorm .61 -> .60, pino
# .91 -> .90 Acc@5, ripgrep .63/.94 -> .62/.95, hyper .39/.72 -> .38/.73. Keeping the ten rarest and adding
# the subject's after them: sqlalchemy .83/.92, typeorm .59.
MAX_RANK_WORDS = 10
# Taken out (bench/ablation.py, 2026-12-07) the words cost the dev lists 11 tasks of Acc@5 and the hold-outs' symbols 5
# of Acc@10, but gave the hold-outs 5 of Acc@5 (of 816). At 3, 5, 7 and 13 (in process, the dev lists, file Acc@1/@5)
# .614/.880, .612/.881, .617/.879 and .612/.872 against .615/.879: the dev lists cannot choose a scale, and a scale
# chosen on the hold-outs alone would be fitted to them.
WORD_SCALE = 10.0  # the best word match scores this much; the rest in proportion to their BM25
FOCUS_BONUS = 20.0
PATH_BONUS = 15.0
NAME_BONUS = 12.0
# A symbol calling a word of the task (once per symbol, however many words it calls; one calling an
# identifier of the task gains NAME_BONUS). localize_bench pack file Acc@1/@5, 4 dev repositories: no word
# calls .48/.77, 6 summed .48/.78, 6 once .48/.78, 3 once .49/.78; hold-out (whole): no calls at all .58/.84,
# no word calls .59/.86, 6 summed .54/.88, 3 once .59/.88.
CALL_BONUS = 3.0
# A file importing a package the task names (`replace glob with tinyglobby`: tasktext.named_packages).
# bench/rerank_fit.py, file Acc@1/@5 after the model, on tasks it was not fitted on: later dev .563/.833 ->
# .563/.836 (typeorm .866 -> .875 Acc@5), httpx .651/.940 -> .663/.940, sqlalchemy (300) .607/.837 ->
# .617/.837, fastify the same; 20: fastify (185) .854 -> .859 Acc@5, sqlalchemy .613/.837, the rest as 10.
PACKAGE_BONUS = 10.0
TEST_FACTOR = 0.3
# Swept again on 2026-12-07 (in process, the ranking's order, tests aside, file Acc@1/@5; dev .611/.872, hold-outs
# together .667/.861): NAME_BONUS 8 .609/.871 and .663/.859, 18 .612/.871 and .670/.861; NEAR_BONUS 1 .612/.872 and
# .669/.861, 6 .611/.870 and .666/.861; FAR_FACTOR 0.4 .610/.872 and .666/.861, 0.8 .609/.871 and .670/.861: flat.
NEAR_BONUS = 3.0  # a symbol in a file the task names, or one import away from it
FAR_FACTOR = 0.6  # a symbol far from everything the task names
TOP_SYMBOL_WEIGHTS = (1.0, 0.5, 0.25)  # a file scores its best three symbols, the best counting most
# Configuration, CI, docs, generated files: ranked only when the task is about them. localize_bench, 4 dev
# repositories, pack file Acc@1/@5: 1.0 (off) .36/.70, 0.2 .45/.74, 0.05 .47/.74; hold-out Acc@5 .84 off, .88 on.
NOT_CODE_FACTOR = 0.05
MEANING_ASKED = 30  # what to ask the vector store for: commits too big or empty to vote are among the nearest
# The symbols of the best BODY_FILES code files gain up to BODY_SCALE by the task's words in their own lines
# (store/bodies.py). localize_bench symbol Acc@5/@10, 5 dev repositories: off .37/.44, on .43/.51 (scale 5
# .41/.50, 20 .44/.51, 40 .44/.52); hold-out .28/.32 -> .38/.45; file accuracy unchanged.
BODY_FILES = 5
BODY_SCALE = 10.0
# The READ_FILES best code files gain up to FILE_BODY_SHARE of the best file's score by the task's words in
# their whole text. localize_bench pack file Acc@1/@5 and symbol Acc@10, 5 dev repositories: off .48/.76 .58,
# 0.5 .52/.81 .61, 1.0 .53/.82 .62 (READ_FILES 10 .51/.81, 30 .53/.81); hold-out off .58/.89 .57, 0.5
# .58/.89 .55, 1.0 .60/.88 .55: 0.5, the share that lowers no file figure of the hold-out.
# When fewer code files than READ_FILES rank at all, the biggest of the others are read too (dev file
# Acc@1/@5 .52/.81 -> .51/.82, ky .72 -> .77 Acc@5; a share of their own, .1 or .25, changed nothing;
# hold-out .58/.89 -> .58/.90, MRR .71 -> .72).
# Nor (2026-12-07, in process as above) BM25 over every code file's whole text (localize_bench's bm25code, FTS5), its
# first 10 or 20 crediting up to 0.25-0.5 of the best file's score as code words: dev .611/.872 -> .599-.613/.865-.870.
# Where the pack misses the first five, bm25code has a changed file in its first five for 0-4 tasks a repository.
# Nor (2026-12-07, in process, the ranking's order, file Acc@1/@5) the code files whose top-level symbols cover under
# half their 100 lines or more read as well (tmux's options-table.c is one array no symbol holds): dev .608/.872 ->
# .608/.871, tmux .50/.81 -> .53/.80, but actix-web .71 -> .69 and axios .61 -> .59.
READ_FILES = 20
FILE_BODY_SHARE = 0.5
# The subject's words weigh this many times the body's in the code's text (_subject_stems). localize_bench
# --vectors pack file Acc@1/@5: hold-outs sqlalchemy .93 -> .95 Acc@5, httpx symbol Acc@10 .69 -> .68, the rest
# the same; --tasks 300 sqlalchemy .62/.87 -> .63/.88, gin .74 -> .75. Dev: undici .53 -> .55, axios .88 ->
# .91 Acc@5, click .94 -> .95, typeorm .60 -> .61; ripgrep .62 -> .59 and hyper .40/.74 -> .39/.73 (a Rust
# subject's area, `searcher:`, names a crate: its files gain). 3: the same figures but werkzeug .63 -> .62.
SUBJECT_WEIGHT = 2.0
MIN_BODY_WORD = 3
MAX_WHY_WORDS = 4

# A file outside the members of the workspace the task names (store/workspace.py) ranks at this share, after the
# model. Over the 300-task lists the named member holds a changed file in 28 of actix-web's 29 such tasks, 93 of
# ripgrep's 98, 30 of the hold-out axum's 32 and 3 of the hold-out tokio's 3. localize_bench in process, pack
# file Acc@1/@5 and symbol Acc@10, 6882c20 -> this: actix-web .43/.68 -> .47/.70, ripgrep .74/.95/.85 ->
# .79/.96/.88, axum and tokio the same; --tasks 300: actix-web .48/.71 -> .51/.72, ripgrep .68/.93/.76 ->
# .71/.94/.79, the hold-out axum .54/.71/.63 -> .56/.72/.64, tokio the same (.66/.86). An earlier form, a
# member named by its manifest's name alone, was not kept on 2026-12-03 with axum the only Rust hold-out: the
# same there at 0.5, .56 -> .55 Acc@1 at 0.2; a bonus of 10 or 20 inside the member, before the model, moved
# actix-web by a task or two only.
# At 0.3 and 0.2 (2026-12-07, in process, the ranking's order, file Acc@1/@5): actix-web .48 -> .49 Acc@1, ripgrep
# .96 -> .94 Acc@5 at 0.2, the hold-outs axum and tokio together .615/.805 -> .610/.805. The symbols outside the named
# members scaled as well (the pack's symbol Acc@10): actix-web and ripgrep the same; the candidates go by their files.
OUTSIDE_MEMBER_FACTOR = 0.5
# Tried and not kept (2026-12-07): a task about tests by its subject's words only (a squash merge's body lists `* Add
# test ...`: 116 dev tasks and 115 of the hold-outs' are about tests by their bodies alone): the pack's file figures
# the same to the task on every dev repository, symbol Acc@10 .707 -> .708.
TEST_WORDS = frozenset({"test", "tests", "testing", "pytest", "unittest", "spec", "specs"})
# A task about what the package exports goes to its entry point (`src/index.ts`, `httpx/__init__.py`, or
# `lib/axios.js`, named after the project), which re-exports what the task names from where it is defined.
EXPORT_WORDS = frozenset("export exports exported exporting expose exposes exposed reexport".split())
# localize_bench pack file Acc@1/@5: dev 0 .57/.85, 5 .57/.85, 10 .57/.86 (axios .54/.82 -> .55/.85, ky
# .57/.85 -> .57/.87), 15 .57/.86; hold-outs: httpx unchanged (.61/.90), fastify (10) .34/.65 -> .35/.65,
# symbol Acc@10 .52 -> .53. Not tried (2026-12-07, read offline): the module root re-exporting a symbol the task names
# (`expose Service and HttpService trait unconditionally`: src/service/mod.rs's `pub use`). Over the dev repositories'
# 300-task lists it finds a file for 5 of the 42 tasks about exports, 4 of them changed: one task out of the first five.
EXPORT_BONUS = 10.0
# Tried and not kept (2026-12-03, localize_bench in process, 300 tasks a hold-out):
# - The files that import what the task says to export (`expose Service and HttpService`: service/mod.rs, which
#   re-exports them) gaining 10 or 20: hyper +1 task at Acc@5, the rest of the dev lists the same, but the
#   hold-out httpx .69 -> .67 Acc@1.
# - A task about typos (`doc: fix some typos`) going to the files with typos: a small word twice (`the the`) or a
#   word no English word, rare in the repository and one letter from one it uses often (`explictly`). Found
#   with few false alarms, and on the dev lists 3 of 16 typo tasks came into the first five (hyper's `remove
#   repetitive words`, rank 7 -> 2), but the typos a tree has are not those the next commit fixes: fastify .87 ->
#   .86 Acc@5, and sqlalchemy .90 -> .89 without dropping the task's `doc` and `comments` from its words.
# - A task removing unused imports going to the files that bind a name they never use again (2026-12-06, in process):
#   hc/lib/badges.py's `reverse` was the one such file of Healthchecks, and the change's; Healthchecks .54/.80 ->
#   .55/.81 at a bonus of 40, but the hold-out fastify's one such task did not move (.60/.84), nor did anything else.
# A file of a kind the task mentions ('docs', 'pyproject') but does not name by its path ranks at this share:
# its words say what else the change touches, not where it goes first. localize_bench --vectors pack file
# Acc@1/@5, MRR, symbol Acc@10: dev (7 repositories) 1.0 .593/.880 .709 .681, 0.5 .596/.883 .712 .685 (pino
# .54/.90 -> .55/.92), 0.3 the same; httpx .627/.928 .749 -> .651/.928 .763 (0.3: Acc@5 .940), fastify
# .53/.78 .620 -> .53/.79 .625.
MENTIONED_KIND_FACTOR = 0.5
# What store/rerank.py reads each part against: the most it can add, and the factors of the kinds of file.
RERANK_SCALES = {
    "similar commits": HISTORY_SCALE * (1 + AGREEMENT),
    "commits meaning the same": MEANING_SCALE,
    "churn": CHURN_SCALE,
    "mentioned": MENTIONED_KIND_FACTOR,
    "not code": NOT_CODE_FACTOR,
}


@dataclass(frozen=True)
class Nearest:
    """What the vectors say about a task: the symbols and the recorded commits (by their titles) nearest it
    by meaning, each as (id, cosine similarity), nearest first. Empty when the vectors cannot say."""

    symbols: Sequence[tuple[str, float]] = ()
    commits: Sequence[tuple[str, float]] = ()


NOTHING_NEAR = Nearest()


@dataclass
class Candidate:
    symbol: SymbolRow
    score: float
    why: list[str] = field(default_factory=list)
    parts: dict[str, float] = field(default_factory=dict)  # words, meaning, named, calls, body

    def credit(self, part: str, value: float) -> None:
        """Add `value` to the score, as `part` of it (the factors of tests and far symbols apply after)."""
        self.score += value
        self.parts[part] = self.parts.get(part, 0.0) + value


@dataclass
class Ranking:
    symbols: dict[str, Candidate]  # by id
    files: dict[str, float]  # path -> score
    why: dict[str, list[str]]  # path -> evidence
    words: list[str]  # the words ranked by, as the task spells them
    # path -> what its score is made of (named, symbols, similar commits, ...; a stub's under "stub", and the
    # factor of a file that is not code): the evidence `why` says in words, as figures
    parts: dict[str, dict[str, float]] = field(default_factory=dict)

    def credit(self, path: str, part: str, value: float) -> None:
        """Add `value` to the file's score, as `part` of it."""
        self.files[path] = self.files.get(path, 0.0) + value
        shares = self.parts.setdefault(path, {})
        shares[part] = shares.get(part, 0.0) + value

    def ranked_files(self) -> list[str]:
        return sorted(self.files, key=lambda p: (-self.files[p], p))

    def ranked_symbols(self) -> list[Candidate]:
        return sorted(self.symbols.values(), key=lambda c: (-c.score, c.symbol["id"]))


# --- ranking ------------------------------------------------------------------------------------


def rank_task(
    conn: sqlite3.Connection,
    task: str,
    focus: list[str] | tuple[str, ...] = (),
    root: Path | None = None,
    nearest: Nearest = NOTHING_NEAR,
    churn: bool = True,
) -> Ranking:
    """Scored symbols and files for a task, each with why. Given the repository's root, the symbols of the
    best files are ranked by their bodies as well; given what the vectors find nearest the task (`nearest`),
    those symbols rank too, and the files of those past commits. Without `churn`, only what
    the task says ranks: not the files changed most, which a question of what a text implies must not
    count."""
    ranking = score_task(conn, task, focus, root, nearest, churn)
    found = rerank.features(ranking, nearest.symbols, lookups.file_lines(conn), task_terms(task)[2], RERANK_SCALES)
    rerank.reorder(ranking.files, found, rerank.WEIGHTS)
    rerank.reorder_symbols(ranking, rerank.symbol_features(ranking, nearest.symbols), rerank.SYMBOL_WEIGHTS)
    if root is not None:
        _keep_to_named_members(conn, root, task, ranking)
        _lead_with_lint_findings(conn, root, task, ranking)
    return ranking


def _keep_to_named_members(conn: sqlite3.Connection, root: Path, task: str, ranking: Ranking) -> None:
    """A task naming members of the workspace (`actix-test: ...`) changes those: the files outside them fall
    to OUTSIDE_MEMBER_FACTOR of their scores, after the model, which weighs no such evidence."""
    named = members_named(workspace_members(conn, root), task)
    for path in ranking.files if named else ():
        member = next((m for m in named if path.startswith(f"{m.folder}/")), None)
        if member is None:
            ranking.files[path] *= OUTSIDE_MEMBER_FACTOR
        else:
            ranking.why.setdefault(path, []).insert(0, f"in {member.name}, which the task names")


def _lead_with_lint_findings(conn: sqlite3.Connection, root: Path, task: str, ranking: Ranking) -> None:
    """A task fixing what a linter flags (`remove unneeded return`) goes where the lint matches (store/lints.py): those
    files, and the symbols holding the matches, lead, after the model, in the order the ranking had them.

    localize_bench --vectors: only hyper has such tasks (6 of 100; none of the hold-outs' lists does), pack file
    Acc@1/@5 .55/.80 -> .59/.86, symbol Acc@10 .62 -> .70. bench/lint_tasks.py judges the lints on 22 repositories of
    its own no one read: where one flags a few files, a changed file is among them for .63 of the tasks (BM25's first
    five: .44), and first for .44 (.15).

    Tried and not kept (2026-12-07): the code a task says to replace or remove (`Switch from Response.content.decode()
    to Response.text`, "replace `instanceof FormData`") as such a finding, the 1-5 code files holding its text (the
    last two parts of a dotted name) gaining the best file's score, or half of it, after the model; before it, as a
    path named (15): nothing. In process, the ranking's order, file Acc@1/@5: dev .615/.879 -> .615/.880 (Healthchecks
    .81 -> .82 Acc@5, axios one task down at Acc@1), the hold-outs .667/.861 -> .670/.861 and .672/.861."""
    found = lints.flagged(conn, root, task, indexed_kinds(conn))
    if not found:
        return
    best_file = max(ranking.files.values(), default=0.0) or 1.0
    best_symbol = max((c.score for c in ranking.symbols.values()), default=0.0) or 1.0
    for flagged in found:
        for path, lines in flagged.lines.items():
            said = f"{flagged.lint.name} matches line{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines[:3]))}"
            ranking.credit(path, "lint", best_file)
            ranking.why.setdefault(path, []).insert(0, f"{said}, which the task asks to fix")
            for symbol in lookups.innermost_symbols(conn, path, lines):
                c = ranking.symbols.setdefault(symbol["id"], Candidate(symbol, 0.0))
                c.credit("lint", best_symbol)
                c.why.insert(0, f"{said}: the task asks to fix it")


def score_task(
    conn: sqlite3.Connection,
    task: str,
    focus: list[str] | tuple[str, ...] = (),
    root: Path | None = None,
    nearest: Nearest = NOTHING_NEAR,
    churn: bool = True,
) -> Ranking:
    """The ranking before its last step (`rank_task` re-orders the best files by the model of store/rerank.py):
    every file's score as the evidence adds up, each part in `parts`."""
    commits_named = commit_ids(task)
    task = without_commit_ids(task)
    paths, names, words = task_terms(task)
    word_set = set(words)
    about_tests = bool(TEST_WORDS & word_set) or any(is_test_path(p) for p in paths)
    subject = _subject_stems(task)
    ranked_words = sorted(discriminating(conn, words)[0], key=lambda w: w not in subject)[:MAX_RANK_WORDS]
    cands: dict[str, Candidate] = {}
    spelled = {stem(w): w for w in reversed(words)}  # say 'writes', not the stem 'writ'
    ranking = Ranking(cands, {}, {}, [spelled.get(w, w) for w in ranked_words])
    file_why = ranking.why

    def bump(symbol: SymbolRow, score: float, why: str, part: str) -> None:
        c = cands.setdefault(symbol["id"], Candidate(symbol, 0.0))
        c.credit(part, score)
        if why not in c.why:
            c.why.append(why)

    kinds = indexed_kinds(conn)
    hits = relevant_symbols(conn, ranked_words, RELEVANT_LIMIT)
    top = hits[0]["score"] if hits else 1.0
    for n, hit in enumerate(hits):
        # Only the first few can be shown: saying which words they match is worth its cost there.
        matched = [spelled.get(w, w) for w in matched_words(hit, ranked_words)] if n < EXPLAINED_HITS else []
        said = ", ".join(repr(w) for w in matched) or "words of the task"
        bump(hit, WORD_SCALE * hit["score"] / top, f"matches {said}", "words")
    evidence.add_semantic(conn, nearest.symbols, kinds, bump)
    named = [
        *((f, FOCUS_BONUS, "in focus") for f in focus),
        *((p, PATH_BONUS, "named in the task") for p in paths),
        *((n, NAME_BONUS, "named in the task") for n in names),
    ]
    anchors: set[str] = set()  # files the task names, or that hold symbols it names
    project = project_name(root) if root is not None else None
    scope = task_scope(conn, task)
    for ref, bonus, label in named:
        path = None if "::" in ref else named_path(conn, ref, project)
        symbols = in_scope(named_symbols(conn, ref), scope) if path is None else []
        if path is None and not symbols and "::" in ref:
            path = named_module(conn, ref, project)
        if path is not None:  # a file or a module: the module ranks up
            ranking.credit(path, "named", bonus)
            if label not in file_why.setdefault(path, []):  # `api.md` and `docs/api.md` name one file
                file_why[path].append(label)
            anchors.add(path)
        for symbol in symbols:
            bump(symbol, bonus, label, "named")
            anchors.add(symbol["path"])
    # Tried and not kept (2026-12-03): a name the index lacks (`to_bytes_limited`, which the change adds) crediting
    # the symbols of the longest name it starts with (`to_bytes`, at most three of them) as a name, 12: actix-web
    # symbol Acc@10 .50 -> .52, no file figure of any repository and nothing of the hold-outs moved.
    # Nor a lowercase word that is a type's name squashed (`httprequest` for HttpRequest; 2026-12-06): over the dev
    # 300-task lists it names a changed file's type in 2 of actix-web's tasks, and in ripgrep and axios mostly a crate's
    # or a package's name that a type shares (`globset`: 15 of 25, axios 0 of 7).
    # Nor a module named with the word module (2026-12-07): "the `middleware` module", "guard mod docs" crediting the
    # module's files of that name (X/mod.rs, X.rs, X/__init__.py, X.py, X/index.js; three at most) PATH_BONUS each.
    # Over the dev 300-task lists 4 tasks say so, each naming a changed file; localize_bench --vectors pack file
    # Acc@1/@5: actix-web .71 -> .72 Acc@5, hyper .55 -> .56 Acc@1, but the hold-out sqlalchemy .81 -> .80 Acc@1 (it
    # fires on 2 of its tasks, one naming a changed file; tokio's 1, a changed file, moved nothing).
    # Nor a hyphenated name of the task (`move-pane`, `status-keys`) held whole as a string in one to three code files
    # (tmux's command and option tables), crediting those files as a name, 12 or 20 (2026-12-07, in process): tmux's
    # 300 tasks .46/.76 -> .48/.77 (.48/.78 at 20, werkzeug -.01), every hold-out the same to the task, 100 or 300 tasks
    # each. Nor, offline, a quoted fragment (`"raise e"`, `'abs:'`) found verbatim in one to three code files: over the
    # dev 300-task lists it fires for 222 tasks, a changed file among those found for 154, of which the ranking has
    # first already all but 29, and among its first five all but 4; for 35 where it was wrong, the first was right.
    # Nor two or three words of the task that join into a symbol's name as a name (2026-12-07; `ping keys`: ping_key,
    # `default types`: DEFAULT_TYPES), a name of three symbols at most, NAME_BONUS: over the dev lists a changed file
    # holds one of them in 84 of 185 such pairs (typeorm's prose names its classes: 12 of 49), and in process (the
    # ranking's order, tests aside) file Acc@1/@5 .611/.872 the same, typeorm .61/.87 -> .59/.86.
    for symbol in capitalized_types(conn, task, names):
        bump(symbol, NAME_BONUS, f"the task names the type {symbol['name']}", "named")
    # localize_bench in process (the ranking's order, tests aside), tasks whose first changed file ranks first / in
    # the first five: dev +1 / 0 of 1,474 (werkzeug's `(cherry picked from commit de546be...)`, its id no longer words),
    # the hold-outs 0 / +1 of 1,209 (gin); nothing down. 28 dev tasks name commits: of the 33 ids git knows, 28 are of a
    # commit that changed one of the task's files, but only 6 of one before the base, all the benchmark's index holds.
    votes = named_commits(conn, commits_named, kinds.keys()) if commits_named else {}
    best_vote = max((v.score for v in votes.values()), default=1.0)
    for path, vote in votes.items():  # a commit named by its id names the files it changed
        ranking.credit(path, "named", PATH_BONUS * vote.score / best_vote)
        shown = ", ".join(c[:8] for c in vote.commits)
        file_why.setdefault(path, []).append(f"changed by {shown}, which the task names")
    # `fix(Headers): ...` names lib/fetch/headers.js as a path would, but not as an anchor: the scope says
    # which part, the words matched elsewhere are no further from the change for it. As anchors: axios and
    # typeorm Acc@1 -2 each (`fix(headers)` tasks went to the headers' module, where they were first).
    for path in scope_files(scope, kinds) if scope is not None else ():
        ranking.credit(path, "named", PATH_BONUS)
        file_why.setdefault(path, []).append(f"named by the commit's scope '{scope}'")
    for package, importing in named_packages(conn, task).items():
        for path in importing:
            ranking.credit(path, "package", PACKAGE_BONUS)
            file_why.setdefault(path, []).append(f"imports {package}, which the task names")
    by_word: set[str] = set()  # a word of the task counts once per symbol, however many it calls
    for symbol, term, named_ in evidence.callers_of_terms(conn, names, words):
        if named_:
            bump(symbol, NAME_BONUS, f"calls {term}", "calls")
        elif symbol["id"] not in by_word:
            by_word.add(symbol["id"])
            bump(symbol, CALL_BONUS, f"calls {term}", "calls")
    for declared, defined in definitions_of_prototypes(conn, [c.symbol for c in cands.values()]).items():
        prototype = cands.pop(declared)
        _fold_into(prototype, cands.setdefault(defined["id"], Candidate(defined, 0.0)))
        if prototype.symbol["path"] in anchors:
            anchors.add(defined["path"])
    near = evidence.neighbourhood(conn, anchors)
    for c in cands.values():
        if is_test_path(c.symbol["path"]) and not about_tests:
            c.score *= TEST_FACTOR  # a test is what to run, not (usually) what to edit
        if anchors:  # words matched next to what the task names count; far away, less
            c.score = c.score + NEAR_BONUS if c.symbol["path"] in near else c.score * FAR_FACTOR
    by_file: dict[str, list[float]] = {}
    for c in cands.values():
        by_file.setdefault(c.symbol["path"], []).append(c.score)
    for path, values in by_file.items():
        best = sorted(values, reverse=True)[: len(TOP_SYMBOL_WEIGHTS)]
        ranking.credit(path, "symbols", sum(v * w for v, w in zip(best, TOP_SYMBOL_WEIGHTS, strict=False)))
        file_why.setdefault(path, []).append(f"{len(values)} matching symbol{'s' if len(values) != 1 else ''}")
    add_history(conn, task, nearest.commits, ranking, kinds)
    if scope is not None:
        add_scope_history(conn, scope, ranking, kinds)
    if churn:
        add_churn(conn, ranking, kinds)
    if EXPORT_WORDS & word_set:
        for path in entry_files(kinds, project):
            ranking.credit(path, "entry point", EXPORT_BONUS)
            file_why.setdefault(path, []).append("the package's entry point, and the task is about what it exports")
    # Not a file's module doc (Rust's `//!`, a docstring) matching the ranked words, up to 8 (localize_bench --vectors
    # in process, Acc@1/@5: hyper .56 -> .57, undici and actix-web -.01 Acc@1, hold-outs httpx .94 -> .95 Acc@5 but
    # sqlalchemy .95 -> .93, axum .56 -> .57 Acc@1); nor only for tasks saying docs or module (8: sqlalchemy Acc@1
    # .83 -> .84, the rest the same; 20: hyper .56 -> .54, axum .56 -> .55).
    # Nor, for a task fixing typos, the files with a rare word one edit from a frequent one (2026-12-06, offline): it
    # flagged 25-35% of hyper's and ripgrep's files and missed `occuring`; the repository's words are no dictionary.
    # Nor the docs as a bridge from the task's prose to the code (2026-12-07, offline): the two docs pages nearest the
    # task by BM25, and the code files of the names they quote (`GZipMiddleware`, :class:`scrapy.http.Request`, a
    # name of three files at most), the three most quoted. Over the dev lists it put a changed file among those three
    # for 1-3 tasks a repository whose first five lacked one, and a wrong three for 26-83 whose first five held one.
    add_path_words(conn, ranking, kinds, subject, spelled)
    stubs = index_stubs(conn)
    _rank_as_code(ranking, kinds, stubs, word_set, paths)
    folds.fold_tests(conn, ranking, kinds, entry_files(kinds, project))
    folds.fold_templates(conn, ranking, kinds)
    if root is not None:
        _rank_bodies(conn, root, ranking, words, kinds, subject)
    _scale_hub_headers(conn, ranking)
    return ranking


def _scale_hub_headers(conn: sqlite3.Connection, ranking: Ranking) -> None:
    """A header declaring many files' functions (cprototypes.hub_headers) ranks after the file the change goes in,
    unless the task names it (its "named" part: by path, in focus, by its scope)."""
    for path, files in hub_headers(conn).items():
        if path in ranking.files and "named" not in ranking.parts.get(path, {}):
            ranking.files[path] *= HUB_HEADER_FACTOR
            ranking.why.setdefault(path, []).append(
                f"declares the functions of {files} files, whose changes go in those files"
            )


def _fold_into(prototype: Candidate, definition: Candidate) -> None:
    """A prototype's evidence is its definition's (cprototypes.definitions_of_prototypes): each part the better of
    the two, not their sum, for the header repeats the definition's name and comment."""
    for part, value in prototype.parts.items():
        definition.credit(part, max(value - definition.parts.get(part, 0.0), 0.0))
    for line in prototype.why:  # one line of each evidence: `means what the task says (0.55)`, the nearer of two
        said = line.partition(" (")[0]
        same = next((i for i, w in enumerate(definition.why) if w.partition(" (")[0] == said), None)
        if same is None:
            definition.why.append(line)
        elif line > definition.why[same]:
            definition.why[same] = line


def _subject_stems(task: str) -> set[str]:
    """The stems of the task's first line: a commit's subject is its author's own summary, where a long body's
    rarest words are often its prose (`fix(http1): add internal limit for chunked extensions`, where 'chunked'
    came after 'many', 'within' and 'single'). They rank before the body's (MAX_RANK_WORDS) and weigh
    SUBJECT_WEIGHT times as much in the code's text."""
    return {stem(w) for w in content_words(task.split("\n", 1)[0])}


def matched_words(symbol: SymbolRow, words: list[str]) -> list[str]:
    text = " ".join(str(symbol.get(k) or "") for k in ("qualname", "signature", "doc", "path"))
    present = set(content_words(text))
    return [w for w in words if any(p.startswith(w) for p in present)]


def _rank_as_code(
    ranking: Ranking, kinds: dict[str, str], stubs: dict[str, str], words: set[str], paths: list[str]
) -> None:
    """Fold stubs (`stubs`: stub -> its module) into their modules; scale down files that are not code unless
    the task is about them."""
    for path, target in [(p, stubs[p]) for p in ranking.files if p in stubs]:
        score = ranking.files.pop(path)
        ranking.parts.pop(path, None)
        # The stub repeats the module's names and docstrings: its evidence is the module's, not more of it.
        lift = max(score - ranking.files.get(target, 0.0), 0.0)
        ranking.credit(target, "stub", lift)
        ranking.why.setdefault(target, []).append(f"its stub {path.rsplit('/', 1)[-1]} matches too")
        for c in [c for c in ranking.symbols.values() if c.symbol["path"] == path]:
            del ranking.symbols[c.symbol["id"]]  # the stub's declaration: the edit goes in the module
            real = ranking.symbols.get(f"{target}::{c.symbol['qualname']}")
            if real is not None:
                real.score = max(real.score, c.score)
    for path in ranking.files:
        kind = kinds.get(path) or file_kind(path, None)
        if kind in ("code", "test"):
            continue
        if about_kind(kind, path, words, paths):
            if path not in paths:  # 'and add docs': the docs rank, after the code the change goes in
                ranking.files[path] *= MENTIONED_KIND_FACTOR
                ranking.parts.setdefault(path, {})["factor"] = MENTIONED_KIND_FACTOR
                ranking.why.setdefault(path, []).append(f"{kind}, which the task mentions")
            continue
        ranking.files[path] *= NOT_CODE_FACTOR
        ranking.parts.setdefault(path, {})["factor"] = NOT_CODE_FACTOR
        ranking.why.setdefault(path, []).append(f"{kind}, and the task is not about {kind}")
        for c in ranking.symbols.values():
            if c.symbol["path"] == path:
                c.score *= NOT_CODE_FACTOR


def _rank_bodies(
    conn: sqlite3.Connection,
    root: Path,
    ranking: Ranking,
    words: list[str],
    kinds: dict[str, str],
    subject: set[str],
) -> None:
    """The words of the task in the code itself (store/bodies.py): the READ_FILES best code files gain up to
    FILE_BODY_SHARE of the best file's score by BM25 over their whole text (the subject's words weighing
    SUBJECT_WEIGHT times the body's), then the symbols of the BODY_FILES best gain up to BODY_SCALE by their
    own lines (which symbol of a file to edit, when its name and docstring do not say). Of two candidates
    scored alike, the longer goes first by the symbol model (store/rerank.py), which weighs their size."""
    stems = list(dict.fromkeys(stem(w) for w in words if w not in CODE_NOISE and len(w) >= MIN_BODY_WORD))
    if not stems:
        return
    spelled = {stem(w): w for w in reversed(words)}

    @functools.cache  # hundreds of symbols of a file match the same few words
    def said_first(matched: tuple[str, ...]) -> str:
        return ", ".join(repr(spelled.get(s, s)) for s in matched)

    def said(matched: list[str]) -> str:
        return said_first(tuple(matched[:MAX_WHY_WORDS]))

    code = [p for p in ranking.ranked_files() if kinds.get(p) == "code"][:READ_FILES]
    best = ranking.files[code[0]] if code else 1.0
    if len(code) < READ_FILES:  # the words found few files: the biggest of the others are read as well
        ranked = set(ranking.files)
        others = [p for p, kind in kinds.items() if p not in ranked and kind == "code"]
        sizes = lookups.file_lines(conn)
        code += sorted(others, key=lambda p: (-(sizes.get(p) or 0), p))[: READ_FILES - len(code)]
    read = {p: w for p in code if (w := bodies.file_words(root, conn, p)) is not None}
    by_file = bodies.file_scores(read, stems, {s: SUBJECT_WEIGHT for s in stems if s in subject})
    if by_file:
        top = max(score for score, _ in by_file.values())
        for path, (score, matched) in by_file.items():
            ranking.credit(path, "code words", FILE_BODY_SHARE * best * score / top)
            ranking.why.setdefault(path, []).append(f"its code has {said(matched)}")
    for path in [p for p in ranking.ranked_files() if p in read][:BODY_FILES]:
        lines = conn.execute("SELECT id, start_line, end_line FROM symbols WHERE path = ? AND start_line > 0", (path,))
        spans = {i: (start, end) for i, start, end in lines}
        found = bodies.body_scores(read[path], spans, stems)
        if not found:
            continue
        top = max(score for score, _ in found.values())
        rows = lookups.symbol_rows(conn, [i for i in found if i not in ranking.symbols])
        for i, (score, matched) in found.items():
            c = ranking.symbols.get(i) or ranking.symbols.setdefault(i, Candidate(lookups.symbol_dict(rows[i]), 0.0))
            c.credit("body", BODY_SCALE * score / top)
            c.why.append(f"its body has {said(matched)}")
