"""The scanned copy of a vector collection: exact nearest, ties by id, writes followed, saved whole."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from codeannals.indexer.vectors.exact import ExactNearest


def vectors(*rows: list[float]) -> np.ndarray:
    return np.asarray(rows, dtype=np.float32)


def test_the_nearest_are_exact_and_ties_go_by_id() -> None:
    rng = np.random.default_rng(7)
    matrix = rng.normal(size=(500, 16)).astype(np.float32)
    ids = [f"s{i:03}" for i in range(500)]
    copy = ExactNearest(ids, matrix, ["function"] * 500)
    query = rng.normal(size=16).astype(np.float32)
    cosine = matrix @ query / (np.linalg.norm(matrix, axis=1) * np.linalg.norm(query))
    assert [sid for sid, _, _ in copy.nearest(query, 10)] == [ids[i] for i in np.argsort(-cosine)[:10]]
    # Four equal vectors: which two of them are nearest is decided by id, not by where they sit in memory.
    tied = ExactNearest(["d", "b", "c", "a", "e"], vectors([1, 0], [1, 0], [1, 0], [1, 0], [0, 1]), [""] * 5)
    assert [sid for sid, _, _ in tied.nearest(np.asarray([1.0, 0.0]), 2)] == ["a", "b"]
    assert [sid for sid, _, _ in tied.nearest(np.asarray([1.0, 0.0]), 9)] == ["a", "b", "c", "d", "e"]


def test_a_label_filters_and_writes_are_followed() -> None:
    copy = ExactNearest(["f", "c"], vectors([1, 0], [0.9, 0.1]), ["function", "class"])
    assert copy.nearest(np.asarray([1.0, 0.0]), 5, "class") == [("c", 0.993884, "class")]
    copy.upsert(["f", "g"], vectors([0, 1], [1, 0.01]), ["function", "function"])  # f moves, g is new
    assert [sid for sid, _, _ in copy.nearest(np.asarray([1.0, 0.0]), 3)] == ["g", "c", "f"]
    copy.delete(["g", "missing"])
    assert [sid for sid, _, _ in copy.nearest(np.asarray([1.0, 0.0]), 3)] == ["c", "f"] and len(copy) == 2
    assert copy.nearest(np.asarray([1.0, 0.0]), 3, "module") == []


def test_a_saved_copy_is_used_only_at_its_checkpoint(tmp_path: Path) -> None:
    path = tmp_path / "symbols.scan.npz"
    ExactNearest(["a", "b"], vectors([1, 0], [0, 1]), ["", "method"]).save(path, "at 7")
    loaded = ExactNearest.load(path, "at 7")
    assert loaded is not None and loaded.nearest(np.asarray([0.0, 1.0]), 1) == [("b", 1.0, "method")]
    assert ExactNearest.load(path, "at 8") is None  # the store moved on since
    path.write_bytes(b"not a saved copy")
    assert ExactNearest.load(path, "at 7") is None and ExactNearest.load(tmp_path / "none.npz", "at 7") is None
    ExactNearest([], np.zeros((0, 0), dtype=np.float32), []).save(path, "empty")
    empty = ExactNearest.load(path, "empty")
    assert empty is not None and len(empty) == 0 and empty.nearest(np.asarray([1.0, 0.0]), 3) == []
    assert list(tmp_path.iterdir()) == [path]  # nothing left aside
