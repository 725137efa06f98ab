"""Files whose path says what the task's subject says.

A project files its code under names: `src/client/dispatch.rs`, `src/proto/h1/dispatch.rs`. A subject that
names one of those folders or files says where the change goes: hyper's `perf(client): create DispatchGone error
only if needed` changed the client's dispatch.rs, where the pack had put the protocol's first (`client` is too
common in the code's text to count for much there, not among the paths). Each code file whose path has some of
the subject's words gains for each, the more the rarer the word is among the paths: `client` names a few files,
`src` all of them.
"""

from __future__ import annotations

import functools
import math
import sqlite3
from typing import TYPE_CHECKING

from .db import snapshot
from .projections.fulltext import identifier_words
from .relevance import stem

if TYPE_CHECKING:
    from .ranking import Ranking

# A file whose path has a word of the subject gains this much for it, if the word is rare among the paths (below).
# localize_bench --vectors, pack file Acc@1/@5 (3, 5, 7 tried; 5 kept): hold-outs axum .54/.71 -> .56/.72, gin
# .69/.91 -> .72/.92, sqlalchemy .83 -> .82 Acc@1, httpx and fastify the same; dev ripgrep .59 -> .67 Acc@1, click
# .73 -> .76, undici .55 -> .57, werkzeug .63/.87 -> .64/.90, hyper .39/.73 -> .41/.77, typeorm .61/.85 -> .60/.86.
# `--tasks 300`: gin .75/.91 -> .77/.92, sqlalchemy .63/.88 -> .64/.89, axum .53/.69 -> .54/.71, fastify .63 -> .62
# Acc@1, ripgrep .57 -> .62, hyper .42/.76 -> .45/.77, undici .83 -> .82 Acc@5. Every code file gains, as a scope
# names its file: crediting only those the task's other evidence scored was the same to the task but for undici
# .85 -> .84 Acc@5 and axios .91 -> .92.
PATH_WORD_SCALE = 5.0
# A word in one code file's path of this many, or fewer, gains in full; a commoner one, by how much rarer than
# everywhere it is (log n/df against log RARE_PATHS). In a project of a few files a name in one of them is little
# evidence: one of two gains a fifth. Against the rarity among all the paths (log n/df / log n) on the lists
# above, the same but for typeorm .61/.85 -> .60/.86, undici .56 -> .57, ripgrep .65 -> .67 and click .77 -> .76
# Acc@1 (100 or 300 tried: a little lower).
RARE_PATHS = 30
# Tried and not kept (2026-12-05): a number kept with the word before it, in the paths and the subject alike and in
# the model's "path_words" (`fix(http1)` names http1.rs and http.rs but never http2.rs; `h1` names proto/h1/), where
# today `http1` and `http2` are both `http` and `h1` is no word. localize_bench --vectors: every pack file figure of
# every repository the same but MRR (hyper .65 -> .66, gin .81 -> .82), typeorm s@10 .75 -> .74.


def add_path_words(
    conn: sqlite3.Connection,
    ranking: Ranking,
    kinds: dict[str, str],
    subject: set[str],
    spelled: dict[str, str],
) -> None:
    """Credit each code file whose path has some of the subject's stems, by how rare each is among the paths
    of the code; `spelled` says a stem as the task wrote it."""
    filed, code = snapshot(conn, "path words", "files", lambda: _filed_under(kinds))
    gains = {  # what each of the subject's stems is worth to a path that has it: a word's rarity among the paths
        w: PATH_WORD_SCALE * min(1.0, math.log(code / len(filed[w])) / math.log(RARE_PATHS))
        for w in sorted(subject)
        if w in filed
    }
    matched: dict[str, list[str]] = {}  # path -> the subject's stems its path has
    for w in gains:
        for path in filed[w]:
            matched.setdefault(path, []).append(w)
    for path, stems in matched.items():
        ranking.credit(path, "path words", sum(gains[w] for w in stems))
        said = ", ".join(repr(spelled.get(w, w)) for w in stems)
        ranking.why.setdefault(path, []).append(f"its path has {said}, as the task's subject does")


def _filed_under(kinds: dict[str, str]) -> tuple[dict[str, list[str]], int]:
    """Each stem of the code files' paths -> those files, and how many code files there are."""
    code = [p for p, kind in kinds.items() if kind == "code"]
    filed: dict[str, list[str]] = {}
    for path in code:
        for w in path_stems(path):
            filed.setdefault(w, []).append(path)
    return filed, len(code)


@functools.lru_cache(maxsize=1 << 16)  # every file of the project, again whenever one changes
def path_stems(path: str) -> frozenset[str]:
    """The stems of a path's folders and file name, its extension aside: `src/client/conn/http2.rs` -> src,
    client, conn, http2."""
    *folders, name = path.split("/")
    return frozenset(stem(w) for part in (*folders, name.split(".")[0]) for w in identifier_words(part) if len(w) > 1)
