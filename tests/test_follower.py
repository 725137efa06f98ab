"""Following the log: the one loop the SQLite projections and the vectors both catch up through."""

from __future__ import annotations

import sqlite3
from contextlib import AbstractContextManager, nullcontext

import pytest
from codeannals.store import log, transaction
from codeannals.store.events import FileRemoved, SessionRuleAdded
from codeannals.store.projections.follower import Batch, follow, pending


class Removals:
    """A follower outside SQLite's transactions, as the vectors are: it reads file removals only."""

    reads = ("file.removed",)
    batch_size = 2

    def __init__(self, fail_at: int | None = None) -> None:
        self.at = 0
        self.batches: list[tuple[list[int], int, int]] = []
        self.fail_at = fail_at  # raise when a batch holds this event, as a killed process stops

    def step(self) -> AbstractContextManager[None]:
        return nullcontext()

    def position(self) -> int:
        return self.at

    def apply(self, batch: Batch) -> None:
        seqs = [e.seq for e in batch.events]
        if self.fail_at in seqs:
            raise KeyboardInterrupt
        self.batches.append((seqs, batch.start, batch.end))

    def record(self, position: int) -> None:
        self.at = position


def append_mixed(conn: sqlite3.Connection) -> None:
    """seq 1-3 removals, 4 a rule, 5 a removal, 6 a rule."""
    with transaction(conn):
        log.append(conn, [FileRemoved(f"{n}.py") for n in range(3)] + [SessionRuleAdded("s", "r")], source="cli")
    with transaction(conn):
        log.append(conn, [FileRemoved("x.py"), SessionRuleAdded("s", "q")], source="cli")


def test_a_follower_reads_its_types_in_batches_that_end_where_the_next_begins(store: sqlite3.Connection) -> None:
    append_mixed(store)
    removals = Removals()
    assert follow(store, removals) == 4
    # A full batch ends at its last event; the short one at the head, past events of other types.
    assert removals.batches == [([1, 2], 0, 2), ([3, 5], 2, 5), ([], 5, 6)]
    assert removals.at == log.head(store) == 6
    assert follow(store, removals) == 0 and len(removals.batches) == 3


def test_a_follower_stops_at_until_and_counts_what_is_pending(store: sqlite3.Connection) -> None:
    append_mixed(store)
    removals = Removals()
    follow(store, removals, until=3)
    assert removals.at == 3
    assert pending(store, removals.at, removals.reads) == 1  # seq 5; the rules are not its type
    assert pending(store, removals.at, removals.reads, until=4) == 0


def test_a_follower_stopped_mid_batch_applies_that_batch_again_and_nothing_before(store: sqlite3.Connection) -> None:
    append_mixed(store)
    stopped = Removals(fail_at=5)
    with pytest.raises(KeyboardInterrupt):
        follow(store, stopped)
    assert stopped.at == 2 and stopped.batches == [([1, 2], 0, 2)]
    stopped.fail_at = None
    follow(store, stopped)
    assert stopped.batches[1:] == [([3, 5], 2, 5), ([], 5, 6)]
