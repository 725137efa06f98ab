"""The last step of the ranking core: the best files put in order by a linear model of their evidence.

A file's score adds up its evidence with weights set one at a time by hand (ranking.py). The model weighs
the same evidence together, with a little more that the ranking has at hand: how near by meaning the
file's nearest symbols are, the task's words in the file's path, its size. Its weights are fitted on real
tasks (`python bench/rerank_fit.py`: the first 100 tasks of each localize_bench dev repository, a softmax
over each task's best files) and checked on tasks it never saw (the later tasks of those repositories,
and the hold-outs).

It only re-orders the TOP_FILES best files, and hands their scores out again in its order: a score keeps
its scale (the pack's confidence reads ratios of scores), and every file past them stays where it was.

A second model does the same for the symbols within each file (which one the edit goes in), from what
their scores are made of, their size and kind, and how near by meaning they are.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .lookups import is_test_path
from .relevance import stem
from .symbol import TYPE_KINDS
from .words import content_words

if TYPE_CHECKING:
    from .ranking import Candidate, Ranking

# Re-ordering the best 10 or 40 instead (2026-12-07, in process, the ranking's order, file Acc@1/@5, not refitted):
# dev .608/.872 -> .611/.872 and .609/.872; nor the size weighing -0.5 or +0.2: .609/.871 both. Nor a bias of each file
# of its own (how often it was changed against how often the ranking put it among the first five), fitted on tasks
# 101-300 of each repository and tried on its first 100, an upper bound (those tasks came after the base): dev
# .584/.848 -> .574/.851 and .555/.850 (weighing 0.1, 0.2), the hold-outs .666/.859 -> .664/.864 and .653/.864.
TOP_FILES = 20
MAX_NEAREST = 40  # the nearest symbols by meaning the model reads (SEMANTIC_ASKED in evidence.py)
FEATURES = (
    "score",  # the file's score over the best file's
    "rank",  # 1 / its place
    "symbols",  # its best symbols' part, over the largest among the best files
    "matching",  # how many of its symbols match (log)
    "named",  # the task names the file
    "symbol_named",  # the task names one of its symbols
    "similar",  # its vote from similar past commits (0-1)
    "meaning",  # its vote from the past commits nearest by meaning (0-1)
    "churn",  # how often it changed (0-1)
    "code_words",  # the task's words in its code, over the most among the best files
    "tested",  # what a matching test gave it, over the best file's score
    "entry",  # the package's entry point, for a task about exports
    "mentioned",  # a kind of file the task mentions (docs, config)
    "not_code",  # not code, and the task is not about its kind
    "test",  # a test file
    "stub",  # a stub folded into it
    "nearest_similarity",  # the similarity of its nearest symbol by meaning
    "size",  # its lines (log, over the largest file's)
    "calls",  # one of its symbols calls what the task says
    "path_words",  # the task's words in its path (0-1, three or more)
    "nearest_rank",  # 1 / (1 + the place of its nearest symbol among the nearest)
    "nearest_count",  # how many of the nearest symbols it holds (0-1, ten or more)
    "top_similar",  # the best vote from similar past commits is its
    "top_meaning",  # the best vote from the commits nearest by meaning is its
    "package",  # it imports a package the task names
)
# Fitted by bench/rerank_fit.py on the first 100 tasks of each dev repository (674 tasks), but for "similar".
# That fit weighed the similar commits' part at 0 (-0.003). Once commits that agree on a file counted more
# (history_rank.AGREEMENT), a fit with ripgrep and hyper among the dev repositories put it at 0.89, but its other
# weights cost typeorm and undici their targets. So "similar" alone was set to 1.0. localize_bench --vectors
# pack file Acc@1/@5: the hold-outs all the same or up, fastify .58/.80 -> .58/.84, sqlalchemy .75/.92 ->
# .80/.93, httpx .66 -> .67 (2.0: sqlalchemy .83/.94, gin .70 -> .69). --tasks 300: fastify .85 -> .87 Acc@5,
# sqlalchemy .60/.86 -> .61/.87, axum .52 -> .53. The dev lists, which the other weights were fitted on, lose:
# undici .58 -> .53 Acc@1 (lib/client.js, which most commits change, comes first more often); werkzeug .89 ->
# .87 Acc@5; click, axios and ky one task each. ripgrep .54 -> .63 Acc@1.
# Tried and not kept: a model of each language's own, fitted on its dev repositories alone. For Rust (ripgrep,
# hyper, actix-web: path_words weighs 2.3, similar 1.4, size -1.0), localize_bench in process, pack file
# Acc@1/@5: the hold-out axum .56/.72 -> .58/.74 (--tasks 300 .55/.71 -> .56/.73), ripgrep .68/.93 ->
# .73/.94 on its 300, but hyper .82 -> .80 Acc@5; fitted with the L2 penalty at 0.03 or 0.003 instead of
# 0.01, axum's gain went (rerank_fit's own figures, later tasks: .554/.716 -> .554/.716 and .554/.716 ->
# .527/.736). For Python (werkzeug, click) and JavaScript (axios, pino, undici) the hold-outs went down:
# sqlalchemy .80/.94 -> .79/.91, fastify .60/.81 -> .60/.80 on their first 100 tasks.
# Nor a model of each repository's own, fitted on its own history (at index time, as it could be): tried offline on
# the 300-task lists (2026-12-04), fitted on tasks 101-300 of each and pulled toward these weights by an L2 penalty,
# measured on its first 100 against these weights, file Acc@1/@5. At 0.01: ripgrep .74/.95 -> .81/.97, tokio .68 ->
# .73 Acc@1, but hyper .80 -> .75, tokio .88 -> .84 and fastify .84 -> .81 Acc@5, sqlalchemy .81 -> .74 Acc@1; at 0.1
# and 1.0 every repository within a task or two of these weights. A few hundred tasks fit 25 weights no better.
# Nor a refit of both models on the same tasks once Rust's imports were read one per name (2026-12-03, "similar"
# at 1.0 as below): pack file Acc@1/@5 hold-outs fastify .60/.84 -> .60/.81, httpx .69/.94 -> .67/.95, axum
# .56/.71 -> .55/.70; the symbol model's alone moved one task here and there, up or down.
# Nor once Healthchecks joined the dev repositories (2026-12-06, both models refitted, rerank_fit's order, file
# Acc@1/@5): the later dev tasks .562/.834 -> .569/.840, the hold-outs' first 100 .666/.859 -> .669/.854 (fastify
# .84 -> .81 Acc@5, its target lost), babybuddy the same (.556/.778), the hold-outs whole .642/.848 -> .640/.849.
# Nor a model that is not linear (2026-12-04): a small network (8 to 32 hidden units, tanh, beside these weights as
# a linear path, fitted as rerank_fit fits), offline on the 300-task lists, file Acc@1/@5: the later dev tasks
# .563/.841 -> .567-.580/.843-.844, the hold-outs' 300 .646/.852 -> .647-.651/.849-.852, fastify .84 -> .81-.82 and
# axum .73 -> .71-.72 Acc@5 on their first 100. The evidence, not how it is weighed, is what the misses lack.
# Nor boosted trees (2026-12-07): LightGBM's lambdarank, 4 or 8 leaves, 100-300 trees, fitted on the same tasks on top
# of these weights, offline, file Acc@1/@5: the later dev tasks .562/.836 -> .576-.578/.839-.843, the hold-outs' first
# 100 .667/.861 -> .667-.675/.858-.865 (fastify .84 -> .82-.85, axum .73 -> .71-.73). A point of Acc@1 and none of
# Acc@5 would not pay for a tree evaluator here.
# Nor a refit of both once the vectors' nearest were exact (2026-12-07; rerank_fit as it stands, in process, the pack's
# order, the first 100, file Acc@1/@5 and symbol Acc@5/@10): the dev lists .615/.877 .578/.740 -> .618/.874 .575/.741,
# the hold-outs .667/.861 .600/.732 -> .670/.853 .602/.741 ("similar" at 1.0: the same but .854); the symbols' model
# alone, the hold-outs .600/.732 -> .597/.734 and the dev lists .575/.740.
# Nor the task's words in a file's path weighed by their rarity among the paths (the "path words" part of
# store/pathwords.py) for the count of them, or beside it (2026-12-04, refitted on the same tasks, file Acc@1/@5):
# the later dev tasks .580/.844 -> .577/.844 and .582/.843, the hold-outs' 300 .646/.850 -> .649/.850 and .651/.849.
# Nor a feature for a module's root file (lib.rs, mod.rs, __init__.py, index.ts) where the task is about docs (20 of
# the 70 docs tasks of hyper's and actix-web's 300 change a root, 44 of their 249 others), set by hand (2026-12-05):
# in process, 300 tasks, pack file Acc@1/@5, at 0.5, 1.0, 2.0: hyper .57/.81 -> .58/.82 and actix-web .73 -> .74
# Acc@5 at 1.0, but the hold-out axum .56 -> .55, .55, .53 Acc@1 (.72 -> .73 Acc@5 at 2.0) and tokio .85 -> .84
# Acc@5 at 1.0; the other hold-outs the same.
# Nor the best files spread across folders after the model (2026-12-06, in process, the dev lists' first 100): each of
# the 20 best scoring 0.9 or 0.8 times less for every file of its folder (or top folder) already placed before it,
# file Acc@5 .879 -> .875-.876 and .864-.873 (actix-web .71 -> .69 and .67); nor a vector per file (its path's words,
# its symbols' names and first doc lines, MiniLM as the symbols'), which put a changed file in its first five where
# the ranking does not for 1-3 tasks of a hundred (actix-web, hyper, ripgrep, werkzeug, pino, typeorm): too few to
# weigh.
WEIGHTS: dict[str, float] = {
    "score": 1.779,
    "rank": 0.588,
    "symbols": 0.081,
    "matching": 0.157,
    "named": 1.065,
    "symbol_named": 0.342,
    "similar": 1.0,  # set by hand: see above
    "meaning": 0.393,
    "churn": 0.402,
    "code_words": 1.153,
    "tested": 0.090,
    "entry": 1.336,
    "mentioned": -0.500,
    "not_code": -0.343,
    "test": -1.263,
    "stub": -0.477,
    "nearest_similarity": 0.955,
    "size": -0.164,
    "calls": 0.234,
    "path_words": 0.780,
    "nearest_rank": 0.460,
    "nearest_count": 0.309,
    "top_similar": 0.199,
    "top_meaning": 0.118,
    "package": 0.208,
}


def features(
    ranking: Ranking,
    nearest: Sequence[tuple[str, float]],
    lines: dict[str, int],
    words: Sequence[str],
    scales: dict[str, float],
) -> dict[str, list[float]]:
    """Each of the TOP_FILES best files' FEATURES, from what their scores and their candidate symbols' scores
    are made of (`parts`), the nearest symbols by meaning (id, similarity) and the files' lines.
    `scales`: the most a part can add (similar commits, commits meaning the same, churn) and the factors
    of a kind the task mentions and of one it is not about."""
    files, parts = ranking.files, ranking.parts
    best = ranking.ranked_files()[:TOP_FILES]
    if not best:
        return {}
    matching: dict[str, int] = {}
    symbol_parts: dict[str, set[str]] = {}  # the kinds of evidence the file's candidates have
    for c in ranking.symbols.values():
        matching[c.symbol["path"]] = matching.get(c.symbol["path"], 0) + 1
        symbol_parts.setdefault(c.symbol["path"], set()).update(c.parts)
    top = files[best[0]] or 1.0

    def most(part: str) -> float:
        return max((parts.get(p, {}).get(part, 0.0) for p in best), default=0.0) or 1.0

    most_symbols, most_code = most("symbols"), most("code words")
    longest = math.log1p(max(lines.values(), default=0)) or 1.0
    stems = {stem(w) for w in words if len(w) >= 3}
    places: dict[str, list[tuple[int, float]]] = {}
    for place, (sid, similarity) in enumerate(nearest[:MAX_NEAREST]):
        places.setdefault(sid.split("::", 1)[0], []).append((place, similarity))
    top_similar = max(best, key=lambda p: parts.get(p, {}).get("similar commits", 0.0))
    top_meaning = max(best, key=lambda p: parts.get(p, {}).get("commits meaning the same", 0.0))
    out: dict[str, list[float]] = {}
    for place, path in enumerate(best):
        part = parts.get(path, {})
        kinds = symbol_parts.get(path, set())
        near = places.get(path, [])
        in_path = {stem(w) for w in content_words(path.replace("/", " ").replace(".", " "))} & stems
        values = {
            "score": files[path] / top,
            "rank": 1 / (place + 1),
            "symbols": part.get("symbols", 0.0) / most_symbols,
            "matching": math.log1p(matching.get(path, 0)) / 5,
            "named": float(part.get("named", 0.0) > 0),
            "symbol_named": float("named" in kinds),
            "similar": part.get("similar commits", 0.0) / scales["similar commits"],
            "meaning": part.get("commits meaning the same", 0.0) / scales["commits meaning the same"],
            "churn": part.get("churn", 0.0) / scales["churn"],
            "code_words": part.get("code words", 0.0) / most_code,
            "tested": part.get("tested by", 0.0) / top,
            "entry": float("entry point" in part),
            "mentioned": float(part.get("factor") == scales["mentioned"]),
            "not_code": float(part.get("factor") == scales["not code"]),
            "test": float(is_test_path(path)),
            "stub": float("stub" in part),
            "nearest_similarity": max((s for _, s in near), default=0.0),
            "size": math.log1p(lines.get(path) or 0) / longest,
            "calls": float("calls" in kinds),
            "path_words": min(len(in_path), 3) / 3,
            "nearest_rank": 1 / (1 + near[0][0]) if near else 0.0,
            "nearest_count": min(len(near), 10) / 10,
            "top_similar": float(path == top_similar and "similar commits" in part),
            "top_meaning": float(path == top_meaning and "commits meaning the same" in part),
            "package": float("package" in part),
        }
        out[path] = [values[name] for name in FEATURES]
    return out


def reorder(files: dict[str, float], found: dict[str, list[float]], weights: dict[str, float]) -> None:
    """Hand the scores of the files in `found` out again, the best by the model first (ties: as they were).
    A file the task names by its path keeps its place: the model weighs evidence, it does not overrule what
    the task says."""
    named = FEATURES.index("named")
    found = {p: x for p, x in found.items() if not x[named]}
    if not weights or len(found) < 2:
        return
    w = [weights.get(name, 0.0) for name in FEATURES]
    scores = sorted((files[p] for p in found), reverse=True)
    by_model = sorted(found, key=lambda p: (-sum(a * b for a, b in zip(w, found[p], strict=True)), -files[p], p))
    for path, score in zip(by_model, _strictly_falling(scores), strict=True):
        files[path] = score


TOP_SYMBOLS = 20  # the best candidates of each file the symbol model re-orders
SYMBOL_FEATURES = (
    "score",  # the symbol's score over its file's best
    "rank",  # 1 / its place in its file
    "named",  # the task names it
    "calls",  # it calls what the task names or says
    "words",  # its name, signature or docstring match the task's words
    "meaning",  # its similarity to the task by meaning (0 when not among the nearest)
    "body",  # its own lines hold the task's words
    "size",  # its lines (log, over its file's longest candidate)
    "type",  # a class, struct, enum, interface, trait or type (its methods and impls are where edits go)
    "depth",  # how deeply nested (0-1, three levels or more)
    "test",  # in a test file
    "evidence",  # how many kinds of evidence it has (0-1, five or more)
)
# Fitted by bench/rerank_fit.py on the same tasks: a softmax over the candidates of each file a task changed.
# "type" was fitted as "class", a class only. Read for every kind of type, it weighs a struct, an enum or an
# interface as a class: their impls and methods are where the edits go. localize_bench --vectors symbol
# Acc@10: hold-out gin .81 -> .83, hyper .59 -> .61, actix-web .56 -> .58, ripgrep .82 -> .83, the rest and
# every file figure the same; --tasks 300: gin .85 -> .86, hyper .63 -> .64 (structs and enums alone: the
# same, but actix-web .56). The impls of a Rust type among the candidates as candidates too, at 0.9 of its
# score: ripgrep s@5 .74 -> .76, hyper .52/.61 -> .53/.62, actix-web s@10 .58 -> .60; the hold-out axum the
# same (--tasks 300 .42/.68 -> .41/.67): not kept.
# A Rust impl block is read as a type too: it holds methods as a class does, and the edit goes in one of
# them (the figures above counted a block as right whenever a method of it changed; localize_bench no longer
# does). Symbol Acc@10 on those lists: hold-out axum .54 -> .56, actix-web .43 -> .48, ripgrep .83 -> .85,
# hyper .55, every other figure the same; --tasks 300: axum .59 -> .62, ripgrep, hyper, actix-web +1 task.
# Tried and not kept: a type weighs more when the task's subject says it adds something (`add`, `feat:`; 32% of
# those tasks change a type of the dev lists, 9% of the others): fitted at 0.5, and at 0.5 or 1.2, symbol
# Acc@10 the same everywhere but actix-web .48 -> .46 and undici or httpx one task.
# Nor a feature for a code file's `mod tests` (Rust's unit tests), fitted at -0.47: hyper .55 -> .57, the rest
# the same; --tasks 300 hyper .58 -> .59, actix-web .54 -> .55, but the hold-out axum .62 -> .61.
# Nor the symbols' own history (the recorded commits' commit_symbols): how many commits changed each (log, over
# its file's most) fitted at 0.52, and whether one of the similar past commits changed it at 0.76. In the fit a
# gold symbol came first of its file more often (hold-out sqlalchemy .64 -> .71), but the pack's symbol
# Acc@10 fell: werkzeug .73 -> .70, click .72 -> .68, actix-web .48 -> .41, gin .83 -> .81, with sqlalchemy
# .84 -> .86 and hyper .55 -> .57; the similar commits' alone, the same way (werkzeug .69, actix-web .43).
# Nor a C++ namespace a task does not name scaled after the model (2026-12-07, in process, the pack's symbol Acc@5/@10):
# its own lines are those between its classes and functions, which match a task's words as the file does. At 0.8 and
# 0.6: leveldb .468/.597 -> .519/.610 and .506/.610, but the hold-out Catch2 .524/.631 -> .536/.619 and .536/.607. A
# Ruby or Rust module so at 0.8: rack .446 -> .482 Acc@5, ripgrep .899 -> .888 Acc@10, the rest the same.
SYMBOL_WEIGHTS: dict[str, float] = {
    "score": 1.933,
    "rank": 0.727,
    "named": 0.391,
    "calls": 0.087,
    "words": -0.352,
    "meaning": 0.637,
    "body": 0.038,
    "size": 2.231,
    "type": -1.173,
    "depth": 0.416,
    "test": 0.000,
    "evidence": -0.027,
}


def symbol_features(
    ranking: Ranking, nearest: Sequence[tuple[str, float]]
) -> dict[str, tuple[list[str], list[list[float]]]]:
    """Per file: its TOP_SYMBOLS best candidates (ids) and their SYMBOL_FEATURES."""
    similarity = dict(nearest[:MAX_NEAREST])
    by_file: dict[str, list[Candidate]] = {}
    for c in ranking.symbols.values():
        by_file.setdefault(c.symbol["path"], []).append(c)
    out: dict[str, tuple[list[str], list[list[float]]]] = {}
    for path, found in by_file.items():
        best = sorted(found, key=lambda c: (-c.score, c.symbol["id"]))[:TOP_SYMBOLS]
        top = best[0].score if best[0].score > 0 else 1.0
        spans = [_lines(c) for c in best]
        longest = math.log(max(*spans, 2))
        rows = []
        for place, (c, span) in enumerate(zip(best, spans, strict=True)):
            values = {
                "score": c.score / top,
                "rank": 1 / (place + 1),
                "named": float("named" in c.parts),
                "calls": float("calls" in c.parts),
                "words": float("words" in c.parts),
                "meaning": similarity.get(c.symbol["id"], 0.0),
                "body": float("body" in c.parts),
                "size": math.log(span) / longest,
                "type": float(c.symbol["kind"] in TYPE_KINDS or c.symbol["kind"] == "impl"),
                "depth": min(c.symbol["qualname"].count("."), 3) / 3,
                "test": float(is_test_path(path)),
                "evidence": min(len(c.why), 5) / 5,
            }
            rows.append([values[name] for name in SYMBOL_FEATURES])
        out[path] = ([c.symbol["id"] for c in best], rows)
    return out


def reorder_symbols(
    ranking: Ranking, found: dict[str, tuple[list[str], list[list[float]]]], weights: dict[str, float]
) -> None:
    """Within each file, hand its best candidates' scores out again, the best by the symbol model first."""
    if not weights:
        return
    w = [weights.get(name, 0.0) for name in SYMBOL_FEATURES]
    for ids, rows in found.values():
        if len(ids) < 2:
            continue
        model = {i: sum(a * b for a, b in zip(w, x, strict=True)) for i, x in zip(ids, rows, strict=True)}
        scores = sorted((ranking.symbols[i].score for i in ids), reverse=True)
        by_model = sorted(ids, key=lambda i: (-model[i], -ranking.symbols[i].score, i))
        for i, score in zip(by_model, _strictly_falling(scores), strict=True):
            ranking.symbols[i].score = score


def _strictly_falling(scores: list[float]) -> list[float]:
    """Scores from the best down, each a hair below the one before where they were equal: the ranking sorts
    equal scores by name, which would undo the model's order of two it scored alike."""
    out: list[float] = []
    for score in scores:
        out.append(math.nextafter(out[-1], -math.inf) if out and score >= out[-1] else score)
    return out


def _lines(c: Candidate) -> int:
    return max((c.symbol.get("end_line") or 0) - (c.symbol.get("start_line") or 0) + 1, 1)
