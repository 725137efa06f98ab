"""The ranking's last step (store/rerank.py): a linear model re-orders the best files by their evidence,
handing their scores out again; and bench/rerank_fit.py fits that model."""

from __future__ import annotations

import importlib.util
import math
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from codeannals.indexer.run import index_tree
from codeannals.store import open_store
from codeannals.store.lookups import file_lines
from codeannals.store.ranking import RERANK_SCALES, Ranking, rank_task, score_task
from codeannals.store.rerank import (
    FEATURES,
    SYMBOL_FEATURES,
    SYMBOL_WEIGHTS,
    TOP_FILES,
    features,
    reorder,
    reorder_symbols,
    symbol_features,
)

from .conftest import Repo

Candidates = tuple[list[str], list[list[float]]]  # a file's candidates (ids), and the features of each


def vector(**values: float) -> list[float]:
    return [values.get(name, 0.0) for name in FEATURES]


def test_the_model_puts_the_best_files_in_its_order_and_hands_their_scores_out_again() -> None:
    files = {"a.py": 10.0, "b.py": 8.0, "c.py": 5.0, "far.py": 1.0}
    found = {"a.py": vector(test=1.0), "b.py": vector(), "c.py": vector(entry=1.0)}
    reorder(files, found, {"test": -1.0, "entry": 1.0})
    assert files == {"c.py": 10.0, "b.py": 8.0, "a.py": 5.0, "far.py": 1.0}
    unchanged = dict(files)
    reorder(files, found, {})  # no weights: the ranking as it was
    assert files == unchanged


def test_of_two_files_scored_alike_the_model_s_choice_stays_first() -> None:
    # The ranking orders equal scores by path; handed out as they were, both 5.0, a.py would be first again.
    files = {"a.py": 5.0, "b.py": 5.0, "c.py": 1.0}
    reorder(files, {"a.py": vector(test=1.0), "b.py": vector(), "c.py": vector(test=1.0)}, {"test": -1.0})
    assert sorted(files, key=lambda p: (-files[p], p)) == ["b.py", "a.py", "c.py"]
    assert files["a.py"] == pytest.approx(5.0) and files["c.py"] == 1.0  # a score keeps its scale


def test_a_file_the_task_names_keeps_its_place_whatever_the_model_says() -> None:
    files = {"named.py": 10.0, "b.py": 8.0, "c.py": 5.0}
    found = {"named.py": vector(named=1.0, test=1.0), "b.py": vector(), "c.py": vector(entry=1.0)}
    reorder(files, found, {"test": -5.0, "entry": 1.0})
    assert files == {"named.py": 10.0, "c.py": 8.0, "b.py": 5.0}


@pytest.fixture
def conn(db_path: Path) -> Iterator[sqlite3.Connection]:
    c = open_store(db_path)
    yield c
    c.close()


def test_the_features_read_what_each_score_is_made_of(repo: Repo, conn: sqlite3.Connection) -> None:
    sources = {
        "shop/prices.py": '"""Prices."""\n\n\ndef parse_price(text):\n    """Parse a price into cents."""\n'
        "    return int(text)\n",
        "shop/cart.py": "from shop.prices import parse_price\n\n\ndef add_item(items, text):\n"
        "    items.append(parse_price(text))\n",
        "tests/test_prices.py": "from shop.prices import parse_price\n\n\ndef test_price():\n"
        '    assert parse_price("12") == 12\n',
    }
    for path, text in sources.items():
        repo.write(path, text)
    repo.commit("shop")
    index_tree(repo.root, conn)
    task = "shop/cart.py: parse the price of every item"
    scored = score_task(conn, task, (), repo.root)
    lines = file_lines(conn)
    nearest = [("shop/prices.py::parse_price", 0.6), ("shop/cart.py::add_item", 0.5)]
    found = features(scored, nearest, lines, ["parse", "shop", "item"], RERANK_SCALES)
    assert set(found) == set(scored.ranked_files()[:TOP_FILES])
    row = {path: dict(zip(FEATURES, values, strict=True)) for path, values in found.items()}
    assert row["shop/cart.py"]["named"] == 1.0 and row["shop/prices.py"]["named"] == 0.0
    assert row["shop/prices.py"]["nearest_similarity"] == 0.6 and row["shop/prices.py"]["nearest_rank"] == 1.0
    assert row["shop/prices.py"]["path_words"] == pytest.approx(1 / 3)  # 'shop'
    assert row["tests/test_prices.py"]["path_words"] == 0.0
    assert row["tests/test_prices.py"]["test"] == 1.0
    assert max(r["score"] for r in row.values()) == 1.0
    assert all(math.isfinite(v) for r in row.values() for v in r.values())
    # The whole ranking: the file the task names stays first.
    assert rank_task(conn, task, root=repo.root).ranked_files()[0] == "shop/cart.py"
    # The symbols model: per file, its candidates and what their scores are made of.
    by_file = symbol_features(scored, nearest)
    ids, rows = by_file["shop/prices.py"]
    symbol = dict(zip(SYMBOL_FEATURES, rows[ids.index("shop/prices.py::parse_price")], strict=True))
    assert symbol["meaning"] == 0.6 and symbol["words"] == 1.0 and symbol["type"] == 0.0
    assert symbol["rank"] == 1.0 and symbol["score"] == 1.0
    before = {i: c.score for i, c in scored.symbols.items()}
    reorder_symbols(scored, by_file, {"size": -1.0})  # the shortest first: scores move within files only
    for ids, _ in by_file.values():
        assert sorted(scored.symbols[i].score for i in ids) == sorted(before[i] for i in ids)


def candidates_of(repo: Repo, conn: sqlite3.Connection, path: str, text: str, task: str) -> tuple[Ranking, Candidates]:
    """The ranking of a task over a repository of one file, and that file's candidates with their features."""
    repo.write(path, text)
    repo.commit(path)
    index_tree(repo.root, conn)
    scored = score_task(conn, task, (), repo.root)
    return scored, symbol_features(scored, [])[path]


def test_the_symbols_model_reads_a_rust_enum_and_an_impl_block_as_types(repo: Repo, conn: sqlite3.Connection) -> None:
    # The edit goes in a method more often than in the type, or the impl block, that holds it, in Rust as in
    # a class: the model weighs both as it weighs a class.
    source = (
        "/// A form body that could not be read.\npub enum UrlencodedError {\n    /// Not a form's content type.\n"
        "    ContentType,\n}\n\nimpl ResponseError for UrlencodedError {\n    fn status_code(&self) -> StatusCode {\n"
        "        match self {\n            UrlencodedError::ContentType => StatusCode::BAD_REQUEST,\n"
        "        }\n    }\n}\n"
    )
    task = "Return 415 on a UrlencodedError content type mismatch"
    _, (ids, rows) = candidates_of(repo, conn, "src/error.rs", source, task)
    kinds = {i: dict(zip(SYMBOL_FEATURES, row, strict=True))["type"] for i, row in zip(ids, rows, strict=True)}
    impl, method = "src/error.rs::impl ResponseError for UrlencodedError", "src/error.rs::UrlencodedError.status_code"
    assert kinds == {"src/error.rs::UrlencodedError": 1.0, impl: 1.0, method: 0.0}


def test_the_symbols_model_puts_a_method_before_the_impl_block_around_it(repo: Repo, conn: sqlite3.Connection) -> None:
    source = (
        "pub struct Body {\n    limit: usize,\n}\n\nimpl Body {\n"
        "    /// The body's bytes, up to its limit.\n    pub fn to_bytes(&self) -> Bytes {\n"
        "        self.read(self.limit)\n    }\n\n"
        "    /// A body that reads no more than `limit` bytes.\n    pub fn with_limit(limit: usize) -> Body {\n"
        "        Body { limit }\n    }\n}\n"
    )
    scored, found = candidates_of(repo, conn, "src/body.rs", source, "bound the body's limit when reading bytes")
    reorder_symbols(scored, {"src/body.rs": found}, SYMBOL_WEIGHTS)
    best = max(found[0], key=lambda i: scored.symbols[i].score)
    assert best == "src/body.rs::Body.with_limit"  # not `impl Body`, whose lines hold every word of the task


def test_the_symbols_model_puts_each_file_s_candidates_in_its_order(repo: Repo, conn: sqlite3.Connection) -> None:
    source = (
        "class Cart:\n    def add(self, item):\n        self.items.append(item)\n        self.total += item.price\n"
        "        self.count += 1\n\n    def clear(self):\n        self.items = []\n"
    )
    scored, (ids, rows) = candidates_of(repo, conn, "shop/cart.py", source, "the cart adds an item twice")
    assert ids == ["shop/cart.py::Cart.add", "shop/cart.py::Cart", "shop/cart.py::Cart.clear"]
    scores = [scored.symbols[i].score for i in ids]
    reorder_symbols(scored, {"shop/cart.py": (ids, rows)}, {"size": -1.0})  # the shortest first
    order = ["shop/cart.py::Cart.clear", "shop/cart.py::Cart.add", "shop/cart.py::Cart"]  # 2, 4 and 7 lines
    assert [scored.symbols[i].score for i in order] == scores


def fit_script() -> ModuleType:
    path = Path(__file__).resolve().parent.parent / "bench" / "rerank_fit.py"
    spec = importlib.util.spec_from_file_location("rerank_fit", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["rerank_fit"] = module
    spec.loader.exec_module(module)
    return module


def test_the_fit_learns_which_evidence_marks_the_changed_file() -> None:
    fitting = fit_script()
    rng = np.random.default_rng(7)
    rows = []
    for _ in range(60):  # the ranking puts the changed file second; only the entry point says which it is
        x = np.array([vector(score=1.0 - i / 10, rank=1 / (i + 1)) for i in range(5)])
        x[1, FEATURES.index("entry")] = 1.0
        x[rng.integers(2, 5), FEATURES.index("test")] = 1.0  # noise
        rows.append((x, np.array([i == 1 for i in range(5)])))
    w = fitting.fit(rows, FEATURES, l2=0.01, steps=500)
    assert w[FEATURES.index("entry")] > 1.0
    assert fitting.accuracy(rows, None) == (0.0, 1.0)
    assert fitting.accuracy(rows, w) == (1.0, 1.0)
