"""Calls that run the code for some of the tests reaching them, and which tests those are. store/testwalk.py marks the
routes through such calls (CallConditions.met); store/testmap.py keeps, of the tests every route to which met one, those
whose file says what meets one (`selecting`). Two kinds:

- PICKS: a call written against a base of the class the walk asks about that picks its override among several
  (`self.transport.notify(flip)`, where `transport` is `TRANSPORTS[self.kind]`): it runs the override for a test naming
  the class (or a subclass of it) or a key the calling file maps to it (`"email": ("Email", transports.Email)`). Every
  test of every kind of channel calls Channel.notify, and only those making an email channel run Email.notify.
- GATED: a request through a Django middleware that opts out unless a setting is set (`if not
  settings.REMOTE_USER_HEADER: raise MiddlewareNotUsed()`): it runs the middleware for a test naming the setting
  (`@override_settings(REMOTE_USER_HEADER=...)`).

Where no test of a condition says what meets it, its tests all stay: it is met some way the text does not show.

Tried and not kept (2026-12-07): a third kind, a Python call in a branch taken for some values of the object's own
field (`elif self.kind == "zulip": ... self.zulip` in Channel.__str__), met by a test whose file quotes a value.
Healthchecks' test files, recall / precision .9929 / .9190 -> .9929 / .9193 (3 of 2,363 functions); bench/facts_tests.py
and the other apps of bench/facts_tests_routes.py the same. The properties it was for (Channel.zulip, 176 test files
listed, 1-3 run it) list their module's importers anyway (testmap._ranked), and it reads every calling file a walk
passes.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .lookups import is_test_path
from .resolver import shared_resolver
from .routes import REQUESTS
from .snippets import indexed_lines
from .symbol import SymbolRow

if TYPE_CHECKING:
    from .testwalk import Reach

# How many other classes below a base must define a method for a call of it on that base to pick one: Healthchecks'
# 30 transports each define `notify` (see CallConditions._picks).
CHOSEN_AMONG = 2
PICKS, GATED = "picks ", "gated "  # the two kinds of condition a call puts on the tests it leads to
LOOKED_UP = re.compile(r"[.\[(]")  # a receiver that is an attribute, an item or a result: looked up where it is called


class CallConditions:
    """The conditions one walk's calls put on the tests they lead to, and what deciding them read: the class the walk
    asks about (testmap._walk_from sets it), the files making PICKS calls, and by class what was found of it."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.asked_class: SymbolRow | None = None
        self.dispatch_sites: set[str] = set()
        self._choices: dict[str, int] = {}  # by method name: how many other classes below its base define it
        self._opting_out: dict[str, bool] = {}  # by class: whether it is a middleware that may opt out

    def met(self, call: dict[str, Any], callee: SymbolRow) -> str | None:
        """The condition the call of `callee` puts on the tests it leads to, if any."""
        if self._picks(call, callee):
            return PICKS + str(callee["parent"])
        if call["basis"] != REQUESTS:
            return None
        if callee["kind"] == "class":  # the class standing for the method asked about (not for its constructor)
            asked = self.asked_class is not None and callee["id"] == self.asked_class["id"]
            middleware = callee["id"] if asked else None
        else:
            middleware = callee["parent"]
        return GATED + str(middleware) if middleware and self._opts_out(str(middleware)) else None

    def _opts_out(self, cls: str) -> bool:
        """Whether the class is a Django middleware whose `__init__` may raise MiddlewareNotUsed (Healthchecks'
        CustomHeaderMiddleware, unless settings.REMOTE_USER_HEADER is set): Django then leaves it out of every request.
        bench/facts_tests_routes.py: its `__call__` listed 130 test files, of which 1 runs it."""
        if cls not in self._opting_out:
            row = self.conn.execute(
                "SELECT 1 FROM calls WHERE caller = ? AND name = 'MiddlewareNotUsed' LIMIT 1", (f"{cls}.__init__",)
            ).fetchone()
            self._opting_out[cls] = row is not None
        return self._opting_out[cls]

    def _picks(self, call: dict[str, Any], callee: SymbolRow) -> bool:
        """Whether the call is one written against a base of the class asked about that may run its override, and
        picks among several here: on a value it looks up (`self.transport.notify()`, `self.tags[key].to_python()`),
        not on `self` or a parameter, whose class whoever calls decides (a projection's `self.create()`, which every
        index run calls for every projection: this suite's tests, bench/facts_tests_self.py, recall .777 -> .768);
        and CHOSEN_AMONG other classes below the base define the method too (every transport its `notify`). Where
        the class asked about is the one override (click's Command below BaseCommand, Signer's TimestampSigner), the
        tests' instances are likely of it: bench/facts_tests.py lost tests there."""
        asked = self.asked_class
        if call["basis"] != "override" or asked is None or callee["parent"] != asked["id"]:
            return False
        if not LOOKED_UP.search(call.get("qualifier") or ""):
            return False
        if callee["name"] not in self._choices:
            self._choices[callee["name"]] = _alternatives(self.conn, asked, callee["name"])
        if self._choices[callee["name"]] < CHOSEN_AMONG:
            return False
        self.dispatch_sites.add(call["path"])
        return True


def selecting(
    calls: CallConditions, met: dict[str, set[str] | None], found: dict[str, Reach], root: Path
) -> dict[str, Reach]:
    """The tests `found` but those every route to which met a condition (`met`, by test: None where a route met none)
    whose file says none of what meets one, where some test of each of those conditions says it.
    Tried and not kept (2026-12-07): any class such a call picks, not only the one asked about (Telegram, for the
    Channel.telegram that Telegram.notify reads), each test to make one of the classes its routes picked (every step
    of the walk kept, and the routes' classes added up after it): Healthchecks' test files, recall / precision .993 /
    .918 -> .991 / .919. What it loses are tests the walk finds by another transport's route than the one that runs
    the code: each transport renders its own template (`tmpl("gotify_message.html", ...)`, under a path built at run
    time) and most of them call `name_then_code`, but the walk sees the calls of a few."""
    conditioned = {t: held for t, held in met.items() if held and t in found}
    if not conditioned:
        return found
    lines = indexed_lines(root, calls.conn, {found[t].path for t in conditioned})
    texts = {path: "\n".join(text) for path, text in lines.items()}
    saying = {condition: _meeting(calls, root, condition) for condition in set().union(*conditioned.values())}
    conditions_of: dict[str, set[str]] = {}  # a file's tests share its text: each file is searched once
    for t, held in conditioned.items():
        conditions_of.setdefault(found[t].path, set()).update(held)
    said_in = {(path, c) for path, held in conditions_of.items() for c in held if _says(saying[c], texts.get(path))}
    meets = {t: {c for c in held if (found[t].path, c) in said_in} for t, held in conditioned.items()}
    said = {c for met_ in meets.values() for c in met_}  # conditions some test of theirs says how it meets
    dropped = {
        t for t, held in conditioned.items() if found[t].path in texts and not meets[t] and all(c in said for c in held)
    }
    return {t: reach for t, reach in found.items() if t not in dropped}


def _says(meeting: re.Pattern[str], text: str | None) -> bool:
    return text is not None and meeting.search(text) is not None


def _meeting(calls: CallConditions, root: Path, condition: str) -> re.Pattern[str]:
    """What a test's file says where it meets the condition: the names of the class picked (and its subclasses') and
    the keys the calling files map to them; the settings a middleware's `__init__` reads."""
    resolver = shared_resolver(calls.conn)
    row = resolver.symbol(condition.removeprefix(PICKS).removeprefix(GATED))
    if row is None:
        return re.compile("(?!)")
    if condition.startswith(GATED):
        init = calls.conn.execute("SELECT start_line, end_line FROM symbols WHERE id = ?", (f"{row['id']}.__init__",))
        span = init.fetchone()
        text = indexed_lines(root, calls.conn, {row["path"]}).get(row["path"], [])
        body = "\n".join(text[span[0] - 1 : span[1]]) if span is not None and span[0] else ""
        read = sorted(set(re.findall(r"\bsettings\.([A-Z][A-Z0-9_]*)", body)))
        return re.compile(r"\b(?:" + "|".join(read) + r")\b" if read else "(?!)")
    names = "|".join(re.escape(c["name"]) for c in [row, *resolver.descendants(row)])
    sites = "\n".join(line for text in indexed_lines(root, calls.conn, calls.dispatch_sites).values() for line in text)
    keys = re.findall(rf"[\"']([\w.-]+)[\"']\s*:[^\n]*?\b(?:{names})\b", sites)
    return re.compile("|".join([rf"\b(?:{names})\b", *(rf"[\"']{re.escape(k)}[\"']" for k in sorted(set(keys)))]))


def _alternatives(conn: sqlite3.Connection, cls: SymbolRow, name: str) -> int:
    """How many other classes define the method `name` below the nearest base of `cls` that defines it: neither cls
    nor its own subclasses (which run cls's method or extend it), nor test doubles."""
    resolver = shared_resolver(conn)
    row = resolver.symbol(cls["id"])
    base = next((b for b in resolver.mro(row)[1:] if resolver.own_member(b, name) is not None), None) if row else None
    if row is None or base is None:
        return 0
    own_line = {row["id"], *(d["id"] for d in resolver.descendants(row))}
    return sum(
        1
        for d in resolver.descendants(base)
        if d["id"] not in own_line and not is_test_path(d["path"]) and resolver.own_member(d, name) is not None
    )
