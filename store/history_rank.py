"""Past commits like a task, and the files they changed: the history signal of the ranking core.

A maintainer's commit message says what a change was for ("Fix strict slash redirects", and the body
after it); a new task that reads like it usually touches the same files. Messages (title and body,
trailers left out) are matched by BM25 over their stemmed words; each file a matching commit changed
(its symbol changes, as recorded by `annals index` or the hooks) gets the commit's score, shared among
the files of that commit. Commits recorded before bodies were (2026-11-25) match by their titles.

The messages are held in memory per database and rebuilt when a commit is recorded: one pass over
`commits` and `commit_symbols`, then a lookup per task word.

What the ranking core (store/ranking.py) gains from them is credited here too: each file's vote from the
similar commits and from the commits meaning the same (`add_history`), from the commits of the task's scope
(`add_scope_history`: `fix(http2): ...` goes where the past `(http2)` commits went), and how often each file
changed (`add_churn`).

Code moves: a commit from before `index.js` became `source/core/Ky.ts` speaks for the new file. A vote
follows the code the commit changed: each symbol it changed, through the renames recorded after it, to the
file that holds it now (ripgrep's `ignore/types: add verilog` changed DEFAULT_TYPES in ignore/src/types.rs,
since moved to crates/ignore/src/default_types.rs while the rest of types.rs went to crates/ignore/src/types.rs).
Where a symbol's trail ends in a file that is gone, the vote follows that file's code as a whole, shared by how
many of its symbols went where.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Collection, Container, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .db import snapshot
from .relevance import stem
from .tasktext import commit_scope, leading_part, squashed
from .words import content_words

if TYPE_CHECKING:
    from .ranking import Ranking

BM25_K1 = 1.2
BM25_B = 0.75
SIMILAR_COMMITS = 20  # the most similar commits that vote
MIN_SHARE = 0.3  # a commit votes only if it scores this share of the best one
MAX_FILES = 30  # a commit touching more files (a reformat, a rename sweep) says little about any one
MEANING_COMMITS = 10  # the commits nearest the task by embeddings that vote...
# ...each as similar as this to the task: a short history has every commit among the nearest, however unlike
# the task ('initial' and 'make a photo smaller': 0.0; the nearest title to a localize_bench task is at
# 0.28-0.47 for a tenth of them, 0.45-0.65 for half). Dev pack file Acc@1/@5, MRR: no floor .603/.882 .715,
# 0.3 .601/.880 .714. (Only the commits at 0.8 of the nearest one's similarity or more, as similar_commits
# does by BM25: dev unchanged, hold-outs httpx down and fastify up by 2-3 points each: left out.)
MEANING_MIN_SIMILARITY = 0.3
MAX_MOVES = 5  # a file moved again and again: follow this many moves at most
COMMON_SHARE = 0.2  # a word in this share of all messages (`fix`, `update`) matches too much to count...
COMMON_FROM = 50  # ... once there are this many messages to tell

# The file most changed by the most similar past commits gains this much. localize_bench, 4 dev
# repositories (374 tasks), pack file Acc@5: 0 -> .70, 5 -> .72, 10 -> .74, 20 -> .72 (Acc@1 .42, .47, .45, .43);
# hold-out (whole) Acc@5 .84 without, .88 with.
# (Adding the symbols those commits modified to the candidates moved symbol Acc@5 by .01 only: left out.)
# Votes follow code that moved since (`_followed`): dev pack file Acc@1/@5 .53/.83 -> .57/.84 (ky
# .37/.78 -> .54/.81, its history is from before `index.js` became `source/core/Ky.ts`); httpx (the hold-out) unchanged.
HISTORY_SCALE = 10.0
# When the similar commits agree, most of their vote going to one file (ripgrep's 59 `ignore/types: add X` commits
# all changed one table), that file's part is worth up to 1 + AGREEMENT times more: by its share of the vote,
# squared, so the usual spread vote (the best file holds a fifth of it) moves by a few percent only.
# localize_bench --vectors pack file Acc@1/@5: dev 774 tasks .60/.89 -> .61/.90 (ripgrep .49/.85 -> .53/.94,
# undici .54 -> .55 Acc@1, nothing down); hold-outs sqlalchemy .68/.89 -> .72/.90, httpx, fastify, axum, gin the
# same. --tasks 300: sqlalchemy .58 -> .60 Acc@1, ripgrep .50/.86 -> .53/.92, the rest within a task. The share
# itself (1 + share): dev .61/.90 but undici .54 -> .52 and click, axios down a task; AGREEMENT 1, squared:
# sqlalchemy .72/.90, ripgrep .52/.90.
# Nor (2026-12-07, in process, the ranking's order, file Acc@1/@5) a file's vote weighed down by how often any commit
# changes it, as a word's by its document frequency (log(1 + N/n) / log(1 + N), to the power 0.5, 1 or 2; jsoup's
# Element.java changed with 106 of 663 commits): dev .608/.872 -> .610/.872, .614/.872, .613/.868 (axios .61 -> .58,
# Healthchecks .55 -> .58 Acc@1 at 1), the hold-outs .647/.854 -> .648/.855 at 1; the commits meaning the same so as
# well, dev .613/.869.
AGREEMENT = 2.0
AGREED = 0.5  # a share of the vote the evidence states
# The files changed by the past commits whose titles mean what the task says (by embeddings, when the vectors
# are built) gain up to MEANING_SCALE. localize_bench --vectors pack file Acc@1/@5, MRR, symbol Acc@10: dev
# .576/.876 .698 .689 -> .601/.880 .714 .708 (ky .52 -> .60 Acc@1; scale 3 .601/.878, 10 .589/.880);
# hold-outs httpx .64/.92 .753 .662 -> .65/.90 .757 .649, fastify .41/.69 .516 .597 -> .41/.71 .523 .597.
# With the newest 1,000 commits recorded (server/commands/index.py): dev .586/.886 .708 .683 -> .603/.888
# .718 .683; httpx .614/.928 .738 .676 -> .627/.928 .746 .689, fastify .45/.71 .548 .649 -> .49/.72 .576 .662.
MEANING_SCALE = 5.0
# Every code file gains up to CHURN_SCALE by how many recorded commits changed it (log, over the most
# changed). localize_bench pack file Acc@1/@5, MRR, symbol Acc@10: dev off .57/.84 .68 .68, 3 .57/.85 .68
# .67, 6 .56/.85 .68 .66; httpx (hold-out) off .58/.90 .72 .59, 3 .61/.90 .74 .61, 6 .63/.89 .74 .61. Only
# to files the words found: dev .57/.85, httpx the same as to all. fastify (the later hold-out), moves and
# churn together: .34/.60 -> .34/.65.
CHURN_SCALE = 3.0
# Tried and not kept (2026-12-05, evening): the newest commits counting more, each weighing 0.5 ** (its generations
# before the newest recorded / H). bench/localize_ceiling.py, file Acc@1/@5 (the pack's): H = 50, fastify (hold-out)
# .60/.84 -> .58/.81, hyper .80 -> .78, actix-web .71 -> .70, undici .87 -> .84, pino .91 -> .93; H = 200, fastify
# .61/.81, hyper .79, the rest within a task. Where the next change goes is not where the last ones went.
# Tried and not kept (2026-12-05): each code file as a document of the messages of the commits that changed it, scored
# against the task's subject by BM25 (all the past commits saying a word, not only the most similar messages; a
# file every commit changed has a long document), gaining up to 5 or 10. localize_bench --vectors pack file Acc@1/@5
# at 5 / 10: hold-outs fastify .60/.84 -> .62/.82 / .61/.83, sqlalchemy .81/.92 -> .82/.93 / .83/.95, axum .55/.73 ->
# .54/.73 / .55/.74, httpx, tokio, gin the same; dev axios .61 -> .55 Acc@1, actix-web .71 -> .68 Acc@5, pino .90
# -> .92, the rest within a task or two.
# Tried and not kept (2026-12-05): the files that changed together with the best file, after the model: each of the
# 20 best gaining 0.2 of the best one's score times the share of the best file's recorded commits that changed it
# too (three or more commits). Over hyper's and actix-web's tasks, a gold file among the next nine changed with the
# first in .22 and .15 of its commits, the others in .18 and .06; but localize_bench --vectors pack file Acc@1/@5:
# hold-outs httpx .67 -> .63, fastify .60 -> .57, axum .55 -> .49, tokio .69/.87 -> .65/.88 Acc@1; dev axios .61
# -> .57, ripgrep .78 -> .75, hyper .55/.80 -> .52/.81, pino .55/.90 -> .53/.92.
# Tried and not kept (2026-12-04): the latest commits' changes, a commit's weight halving every 30 (or 100) commits
# back and shared among the code files it changed, crediting up to 3 (or 10) and read by the files model, refitted.
# Alone that order puts a gold file among its first five for more tasks than the count of all changes does (ripgrep
# .61 against .07, hyper .34 against .14), but the other evidence already finds those: refitted on the same tasks,
# file Acc@1/@5 of the ranking's order, the later dev tasks .580/.844 -> .582/.848 and the hold-outs' 300 tasks
# .646/.850 -> .643/.854 (at 10 and 100: .589/.849 and .637/.849); hyper, actix-web, axum within a task or two.
# The files the past commits of the task's scope changed (`fix(http2): ...`: hyper's earlier `(http2)` commits
# changed src/proto/h2/ most, which no path names `http2`) gain up to SCOPE_SCALE, the file most changed by them
# in full. localize_bench --vectors pack file Acc@1/@5, symbol Acc@10 (scale 5, 10, 15, 20, 30, 45 tried; only
# hyper, ripgrep, undici and the hold-out gin have scopes in their histories): hold-out gin .72 -> .74 Acc@1,
# the other hold-outs the same; hyper .41/.77 .52 -> .52/.80 .56, ripgrep .67/.95 .83 -> .73/.95 .82 (at 20:
# gin .74, hyper .49/.81, ripgrep .71; at 45: the same as 30 to a task or two). `--tasks 300`: gin .77 -> .79,
# hyper .45/.77 .56 -> .56/.82 .61, ripgrep .62 -> .67 Acc@1 (s@10 .78 -> .77), undici .82 -> .83 Acc@5.
# Scopes read only as `type(scope):` (not ripgrep's `printer:`), at 20: ripgrep .67, gin .73 Acc@1. A leading part
# is a scope only where MIN_SCOPED recorded commits start with it (task_scope): undici .57 -> .56 Acc@1 (its
# `mock: ...` task, whose history has `fix(mock)` only), so that a task starting `Error: ...` is not the error module.
# Nor the scope's part scaled down where its commits spread over many files (by the best file's vote over the scope's
# commits, in full from 0.3 or 0.5; 2026-12-06, in process, 300 tasks): hyper .577/.812 -> .570/.805 and .523/.785,
# the hold-out gin .916 -> .910 Acc@5 at 0.5, ripgrep and undici within a task.
SCOPE_SCALE = 30.0
MIN_SCOPED = 3  # a scope of fewer past commits says nothing of its own (2 or 6: the same to a task or two)

# A symbol's recorded renames: old id -> (the commit's generation, new id, new path), oldest first
Renames = dict[str, list[tuple[int, str, str]]]


@dataclass
class Vote:
    score: float = 0.0
    commits: list[str] = field(default_factory=list)


@dataclass
class MessageIndex:
    # commit id, and where the code it changed is now: for each file it changed, the files its changed symbols
    # were in after their later renames, with the share of them each holds (`_followed`)
    commits: list[tuple[str, dict[str, dict[str, float]]]]
    lengths: list[int]
    postings: dict[str, list[int]]  # stem -> commit indexes
    moves: dict[str, dict[str, int]]  # old path -> new path -> symbols that moved there
    scoped: dict[str, list[int]]  # a subject's scope (`fix(http2):`, `printer:`), squashed -> commit indexes
    leading: dict[str, int]  # a subject's leading part (`printer:`), squashed -> how many commits start so
    positions: dict[str, int] = field(default_factory=dict)  # commit id -> its index in `commits`
    counted: tuple[frozenset[str], dict[str, float]] | None = None  # change_counts' answer, and for which files

    def __post_init__(self) -> None:
        self.positions = {commit: i for i, (commit, _) in enumerate(self.commits)}

    @classmethod
    def build(cls, conn: sqlite3.Connection) -> MessageIndex:
        # the order renames follow a change in: not seq (the order of recording, newest first on a first index) nor
        # the commit time (a rebased series shares one second)
        generation = _generations({c: json.loads(p) for c, p in conn.execute("SELECT commit_id, parents FROM commits")})
        changed: dict[str, dict[str, list[str]]] = {}  # commit -> path -> the symbols it changed there
        renames: Renames = {}
        moves: dict[str, dict[str, int]] = {}
        rows = "SELECT commit_id, symbol_id, path, status, from_id FROM commit_symbols WHERE path IS NOT NULL"
        for commit, symbol, path, status, from_id in conn.execute(rows):
            changed.setdefault(commit, {}).setdefault(path, []).append(symbol)
            if status != "renamed" or from_id is None:
                continue
            renames.setdefault(from_id, []).append((generation.get(commit, 0), symbol, path))
            old = from_id.split("::", 1)[0]
            if old != path:
                moves.setdefault(old, {})
                moves[old][path] = moves[old].get(path, 0) + 1
        for trail in renames.values():
            trail.sort()
        commits: list[tuple[str, dict[str, dict[str, float]]]] = []
        lengths: list[int] = []
        postings: dict[str, list[int]] = {}
        scoped: dict[str, list[int]] = {}
        leading: dict[str, int] = {}
        for commit, title, body in conn.execute("SELECT commit_id, title, body FROM commits ORDER BY seq"):
            files = changed.get(commit, {})
            if not files or len(files) > MAX_FILES:
                continue
            terms = list(dict.fromkeys(stem(w) for w in content_words(f"{title or ''}\n{body or ''}")))
            for term in terms:
                postings.setdefault(term, []).append(len(commits))
            part = leading_part(title or "")
            if part is not None:
                leading[squashed(part)] = leading.get(squashed(part), 0) + 1
            scope = squashed(commit_scope(title or "") or part or "")
            if scope:
                scoped.setdefault(scope, []).append(len(commits))
            at = generation.get(commit, 0)
            commits.append((commit, {path: _followed(ids, path, at, renames) for path, ids in sorted(files.items())}))
            lengths.append(len(terms))
        return cls(commits, lengths, postings, moves, scoped, leading)

    def now_in(self, followed: dict[str, float], present: Container[str]) -> dict[str, float]:
        """The present files holding the code a commit changed in one file (`followed`, as `_followed` gives
        it), as shares: where its symbols' trails end in a file that is gone, that file's `successors`."""
        shares: dict[str, float] = {}
        for path, share in followed.items():
            for now, part in self.successors(path, present).items():
                shares[now] = shares.get(now, 0.0) + share * part
        return shares

    def successors(self, path: str, present: Container[str]) -> dict[str, float]:
        """Where a file's code is now, as shares: itself when present, else the present files its symbols
        moved to (following later moves)."""
        shares: dict[str, float] = {}
        frontier = {path: 1.0}
        for _ in range(MAX_MOVES + 1):
            following: dict[str, float] = {}
            for p, share in frontier.items():
                if p in present:
                    shares[p] = shares.get(p, 0.0) + share
                    continue
                went = self.moves.get(p, {})
                total = sum(went.values())
                for q, n in went.items():
                    following[q] = following.get(q, 0.0) + share * n / total
            if not following:
                break
            frontier = following
        return shares

    def similar(self, text: str, limit: int = SIMILAR_COMMITS) -> list[tuple[int, float]]:
        """(commit index, BM25 score) of the messages most like `text`, best first."""
        n = len(self.commits)
        if not n:
            return []
        average = sum(self.lengths) / n
        scores: dict[int, float] = {}
        for term in dict.fromkeys(stem(w) for w in content_words(text)):
            posting = self.postings.get(term, [])
            if not posting or (n >= COMMON_FROM and len(posting) > COMMON_SHARE * n):
                continue
            idf = math.log(1 + (n - len(posting) + 0.5) / (len(posting) + 0.5))
            for i in posting:
                norm = BM25_K1 * (1 - BM25_B + BM25_B * self.lengths[i] / average)
                scores[i] = scores.get(i, 0.0) + idf * (BM25_K1 + 1) / (1 + norm)
        return sorted(scores.items(), key=lambda kv: (-kv[1], -kv[0]))[:limit]


def message_index(conn: sqlite3.Connection) -> MessageIndex:
    """The message index of this database, rebuilt when the recorded commits change."""
    return snapshot(conn, "commit messages", "commits", lambda: MessageIndex.build(conn))


def change_counts(conn: sqlite3.Connection, present: Collection[str]) -> tuple[dict[str, float], int]:
    """How many recorded commits changed each present file (code since moved counting where it went), and of
    how many commits. Every task asks it of the same history and files: kept with the message index."""
    index = message_index(conn)
    files = frozenset(present)
    if index.counted is None or index.counted[0] != files:
        counts: dict[str, float] = {}
        for _, changed in index.commits:
            for followed in changed.values():
                for path, part in index.now_in(followed, files).items():
                    counts[path] = counts.get(path, 0.0) + part
        index.counted = (files, counts)
    return dict(index.counted[1]), len(index.commits)


# Tried and not kept (2026-12-07, in process, file Acc@1/@5): the similar commits found by the subject's words alone
# (a squash merge's body lists its commits: `* fix changelog`): dev .608/.872 -> .603/.868 (axios .61 -> .57, jsoup .54
# -> .51 Acc@1). Nor, offline, a table from the recorded commits of which words of a message go with which words of
# the changed files' paths (`http2` with `h2`): alone it put a changed file first-five for 24-49 of 100 tasks, and for
# 0-3 a repository where the ranking's first five had none.
def similar_commits(conn: sqlite3.Connection, task: str, present: Container[str]) -> dict[str, Vote]:
    """Present files changed by the recorded commits most like the task (or holding the code those commits
    changed, since moved), each with its score and those commits."""
    index = message_index(conn)
    found = index.similar(task)
    if not found:
        return {}
    best = found[0][1]
    return _votes(index, [(i, score) for i, score in found if score >= MIN_SHARE * best], present)


def task_scope(conn: sqlite3.Connection, task: str) -> str | None:
    """The scope of the task's subject: a conventional commit's (`fix(http2): ...`), or the part it starts with
    (`printer: ...`) where MIN_SCOPED of the recorded commits start with it too."""
    scope = commit_scope(task)
    if scope is not None:
        return scope
    part = leading_part(task)
    if part is None or message_index(conn).leading.get(squashed(part), 0) < MIN_SCOPED:
        return None
    return part


def scope_commits(conn: sqlite3.Connection, scope: str, present: Container[str]) -> tuple[dict[str, Vote], int]:
    """Present files changed by the recorded commits of a scope (`http2`: the past `fix(http2): ...` commits),
    each commit voting 1, and how many commits there are (none voting when fewer than MIN_SCOPED)."""
    index = message_index(conn)
    found = index.scoped.get(squashed(scope), [])
    if len(found) < MIN_SCOPED:
        return {}, len(found)
    return _votes(index, [(i, 1.0) for i in found], present), len(found)


def commits_meaning(
    conn: sqlite3.Connection, nearest: Sequence[tuple[str, float]], present: Container[str]
) -> dict[str, Vote]:
    """Present files changed by the MEANING_COMMITS recorded commits whose titles are nearest the task by
    embeddings (`nearest`: commit id and cosine similarity, nearest first), as `similar_commits` has them,
    when they are near enough: they find a past change told in other words than the task's."""
    index = message_index(conn)
    found = [(index.positions[c], sim) for c, sim in nearest if c in index.positions and sim >= MEANING_MIN_SIMILARITY]
    return _votes(index, found[:MEANING_COMMITS], present)


def named_commits(conn: sqlite3.Connection, ids: Sequence[str], present: Container[str]) -> dict[str, Vote]:
    """Present files changed by the recorded commits the task names by id (`Correct 1049dd6`), each commit voting 1
    as similar commits do: the change to mend or follow is where the engineer looks first. An id that is not
    recorded, or an abbreviation of two, names none."""
    index = message_index(conn)
    found = []
    for named in ids:
        matches = [i for commit, i in index.positions.items() if commit.startswith(named)]
        if len(matches) == 1:
            found.append((matches[0], 1.0))
    return _votes(index, found, present)


def _votes(index: MessageIndex, found: list[tuple[int, float]], present: Container[str]) -> dict[str, Vote]:
    """Each commit's score, shared among the files it changed (by the square root of how many), given to
    where their code is now."""
    votes: dict[str, Vote] = {}
    for i, score in found:
        commit, changed = index.commits[i]
        share = score / math.sqrt(len(changed))
        for followed in changed.values():
            for path, part in index.now_in(followed, present).items():
                vote = votes.setdefault(path, Vote())
                vote.score += share * part
                if commit not in vote.commits:
                    vote.commits.append(commit)
    return votes


def _followed(symbols: list[str], path: str, generation: int, renames: Renames) -> dict[str, float]:
    """The files the symbols a commit (of that `generation`) changed in `path` were in after the renames of later
    commits, each with the share of those symbols it holds (`path` itself for symbols never renamed since)."""
    shares: dict[str, float] = {}
    for symbol in symbols:
        where, at = path, generation
        for _ in range(MAX_MOVES):
            later = next((r for r in renames.get(symbol, ()) if r[0] > at), None)
            if later is None:
                break
            at, symbol, where = later
        shares[where] = shares.get(where, 0.0) + 1 / len(symbols)
    return shares


def _generations(parents: dict[str, list[str]]) -> dict[str, int]:
    """Each recorded commit's generation: one more than its recorded parents' (1 for the oldest recorded), so a commit
    comes after everything it descends from."""
    found: dict[str, int] = {}
    for start in parents:
        stack = [start]
        while stack:
            commit = stack[-1]
            waiting = [p for p in parents[commit] if p in parents and p not in found]
            if waiting:
                stack.extend(waiting)
                continue
            found[commit] = 1 + max((found[p] for p in parents[commit] if p in found), default=0)
            stack.pop()
    return found


# --- what the ranking core gains from them ------------------------------------------------------


def add_history(
    conn: sqlite3.Connection,
    task: str,
    nearest_commits: Sequence[tuple[str, float]],
    ranking: Ranking,
    indexed: dict[str, str],
) -> None:
    """Files that past commits like this task changed gain up to HISTORY_SCALE (more where those commits agree
    on them: AGREEMENT), with those commits as evidence (a file since moved votes for the files its code went
    to; one since deleted, for none); the files of the commits nearest it by meaning, up to MEANING_SCALE."""
    for votes, scale, agreement, part, said in (
        (
            similar_commits(conn, task, indexed.keys()),
            HISTORY_SCALE,
            AGREEMENT,
            "similar commits",
            "changed with similar commits",
        ),
        (
            commits_meaning(conn, nearest_commits, indexed.keys()),
            MEANING_SCALE,
            0.0,
            "commits meaning the same",
            "changed by commits meaning the same",
        ),
    ):
        if not votes:
            continue
        best = max(v.score for v in votes.values())
        total = sum(v.score for v in votes.values())
        for path, vote in votes.items():
            share = vote.score / total
            ranking.credit(path, part, scale * vote.score / best * (1 + agreement * share**2))
            shown = ", ".join(c[:8] for c in vote.commits[:3])
            held = f" ({share:.0%} of their vote)" if agreement and share >= AGREED else ""
            ranking.why.setdefault(path, []).append(f"{said} {shown}{held}")


def add_scope_history(conn: sqlite3.Connection, scope: str, ranking: Ranking, indexed: dict[str, str]) -> None:
    """Files the past commits of the task's scope (`task_scope`) changed gain up to SCOPE_SCALE, by how many of
    them did."""
    votes, scoped = scope_commits(conn, scope, indexed.keys())
    if not votes:
        return
    best = max(v.score for v in votes.values())
    for path, vote in votes.items():
        ranking.credit(path, "commits of its scope", SCOPE_SCALE * vote.score / best)
        said = f"changed by {len(vote.commits)} of the {scoped} past commits of the scope '{scope}'"
        ranking.why.setdefault(path, []).append(said)


def add_churn(conn: sqlite3.Connection, ranking: Ranking, kinds: dict[str, str]) -> None:
    """Code files the recorded commits changed most gain up to CHURN_SCALE: where the changes went, the next
    one likely goes (and a task whose words find nothing still gets the files most worked on). By file, not by
    a workspace's crate: the ranked files of the crates changed most gaining up to 3 more, localize_bench
    --vectors pack file Acc@5 ripgrep .95 -> .94, actix-web .67 -> .65, the hold-out axum .72 -> .70 (8: .68). Nor
    the recent commits counting more (each weighed e^(-age/200), age its place from the newest; 2026-12-06, in process,
    300 tasks): actix-web Acc@1 .52 -> .54, symbol Acc@10 .546 -> .574, the other dev lists within a task, but the
    hold-outs fastify .87 -> .85 Acc@5, axum .56 -> .55 and sqlalchemy .66 -> .65 Acc@1 (at 50: hyper .81 -> .79)."""
    counts, total = change_counts(conn, kinds.keys())
    changed = ("code", "declarations")  # a stub's count goes to its module, folded with the rest of its score
    counts = {p: n for p, n in counts.items() if n >= 1 and kinds.get(p) in changed}
    if not counts:
        return
    top = math.log1p(max(counts.values()))
    for path, n in counts.items():
        ranking.credit(path, "churn", CHURN_SCALE * math.log1p(n) / top)
        ranking.why.setdefault(path, []).append(f"changed by {n:.0f} of {total} recorded commits")
