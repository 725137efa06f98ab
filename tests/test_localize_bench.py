"""bench/localize_bench.py: the rules that pick tasks and gold, the BM25 baseline, and one whole run on a
small real repository (tasks from its commits, an index of the base that later commits cannot reach)."""

from __future__ import annotations

import importlib.util
import sqlite3
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import anyio
import pytest

from .conftest import Repo, git

BENCH = Path(__file__).resolve().parent.parent / "bench" / "localize_bench.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("localize_bench", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["localize_bench"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def test_task_text_drops_trailers_and_co_author_lines(bench: ModuleType) -> None:
    message = (
        "Fix header parsing (#12)\n\n* Handle quoted commas\n\nCo-authored-by: A <a@x.org>\n"
        "---------\n\nSigned-off-by: B <b@x.org>\nReviewed-by: C <c@x.org>\n"
    )
    assert bench.task_text(message) == "Fix header parsing (#12)\n\n* Handle quoted commas"
    assert bench.task_text("docs: explain retries\n\nfix: keep the timeout") == (
        "docs: explain retries\n\nfix: keep the timeout"
    )  # lower-case `type:` lines are not trailers


@pytest.mark.parametrize(
    ("subject", "skipped"),
    [
        ("Release 8.2.1", True),
        ("chore: release v1.1.0", True),
        ("chore(release): v1.2.0", True),
        ("chore: v1.2.0 pre-release", True),
        ("Bump version to 1.2", True),
        ("Reformat with black", True),
        ("[pre-commit.ci] auto fixes", True),
        ('Revert "Add retries"', True),
        ("Update CHANGES", True),
        ("Add version_option", False),
        ("fix(http): support IPv6 literals", False),
        ("Fix CI-only flake", False),
    ],
)
def test_release_and_formatting_subjects_are_skipped(bench: ModuleType, subject: str, skipped: bool) -> None:
    assert bool(bench._SKIP_SUBJECT.match(subject) or bench._RELEASE.match(subject)) is skipped


def test_tool_upkeep_subjects_are_skipped(bench: ModuleType) -> None:
    assert bench._UPKEEP.search("update mypy")
    assert bench._UPKEEP.search("update dev dependencies")
    assert bench._UPKEEP.search("chore: address clippy lint")
    assert bench._UPKEEP.search("address lints")
    assert bench._UPKEEP.search("ignore: apply rustfmt")
    assert bench._UPKEEP.search("fix golangci-lint findings")
    assert not bench._UPKEEP.search("fix: linting of the route table")  # a word in another sense
    assert not bench._UPKEEP.search("Fix multipart parsing of huge files")


@pytest.mark.parametrize(
    ("path", "source"),
    [
        ("src/click/core.py", True),
        ("lib/adapters/http.js", True),
        ("source/core/Ky.ts", True),
        ("crates/ignore/src/default_types.rs", True),
        ("crates/globset/benches/bench.rs", False),
        ("axum/tests/routing.rs", False),
        ("binding/form_mapping.go", True),
        ("binding/form_mapping_test.go", False),
        ("tests/test_core.py", False),
        ("src/pkg/test_utils.py", False),
        ("test/specs/http.spec.js", False),
        ("source/index.test.ts", False),
        ("index.d.ts", False),
        ("docs/conf.py", False),
        ("dist/axios.js", False),
        ("examples/app.py", False),
        ("setup.py", False),
        ("README.md", False),
    ],
)
def test_source_files_leave_out_tests_docs_and_build_output(bench: ModuleType, path: str, source: bool) -> None:
    assert bench.is_source(path) is source


def test_identifiers_split_into_their_words(bench: ModuleType) -> None:
    assert bench.split_words("parseOptionsHeader parse_options_header HTTPError") == [
        "parse",
        "options",
        "header",
        "parse",
        "options",
        "header",
        "http",
        "error",
    ]


def test_innermost_drops_a_class_whose_method_changed(bench: ModuleType) -> None:
    symbols = [
        {"path": "a.py", "qualname": "Cart"},
        {"path": "a.py", "qualname": "Cart.total"},
        {"path": "a.py", "qualname": "Cartography"},
        {"path": "b.py", "qualname": "Cart"},
    ]
    assert [(s["path"], s["qualname"]) for s in bench.innermost(symbols)] == [
        ("a.py", "Cart.total"),
        ("a.py", "Cartography"),
        ("b.py", "Cart"),
    ]


def test_innermost_drops_a_rust_impl_block_whose_method_changed_but_not_its_type(bench: ModuleType) -> None:
    def symbol(qualname: str, start: int, end: int) -> dict[str, object]:
        return {"path": "src/body.rs", "qualname": qualname, "start_line": start, "end_line": end}

    symbols = [
        symbol("Body", 1, 4),  # `pub struct Body { ... }`: its fields changed, and they are no method's
        symbol("impl Body", 10, 40),
        symbol("Body.poll_frame", 12, 20),
        symbol("impl Default for Body", 42, 46),
        symbol("Body.default", 42, 46),  # a one-line impl: the method's lines are the block's
    ]
    assert [s["qualname"] for s in bench.innermost(symbols)] == [
        "Body",
        "Body.poll_frame",
        "impl Default for Body",
        "Body.default",
    ]


def test_pack_files_follow_the_markdown_modules_then_likely_edits(bench: ModuleType) -> None:
    answer = {
        "modules": [{"path": "b.py"}, {"path": "c.py"}],
        "symbols": [{"path": "a.py"}, {"path": "b.py"}, {"path": "d.py"}],
    }
    assert bench.pack_files(answer) == ["b.py", "c.py", "a.py", "d.py"]
    assert bench.rank_of(bench.pack_files(answer), {"a.py"}) == 3
    assert bench.rank_of([], {"a.py"}) is None


def test_metrics_count_misses_as_zero(bench: ModuleType) -> None:
    ranks = [1, 3, None, 7]
    assert bench.acc(ranks, 1) == 0.25
    assert bench.acc(ranks, 5) == 0.5
    assert bench.mrr(ranks) == pytest.approx((1 + 1 / 3 + 1 / 7) / 4)


def test_an_accuracy_comes_with_the_interval_a_hundred_tasks_allow(bench: ModuleType) -> None:
    assert bench.wilson(0.8, 100) == pytest.approx((0.711, 0.867), abs=1e-3)
    assert bench.wilson(1.0, 10)[1] == pytest.approx(1.0)


def test_targets_say_which_hold_and_time_only_a_large_repository(bench: ModuleType) -> None:
    pack = {"acc5": 0.9, "acc1": 0.5, "sym10": 0.7, "over_budget": 0, "ms_p50": 60.0, "ms_p95": 320.0}
    pack |= {"n": 100, "n_symbols": 80}
    rows = {"pack": pack, "search": {"acc5": 0.6}, "bm25": {"acc5": 0.8}}  # 10 points under the pack only
    missed = [what for what, met in bench.targets(rows, 300) if not met]
    assert [m.split(" ")[:2] for m in missed] == [["pack", "f@1"], ["pack", "f@5"], ["search", "f@5"]]
    assert missed[0] == "pack f@1 0.500 >= 0.55 (the target is inside its 95% interval 0.40-0.60)"
    pack["acc1"] = 0.4  # .31-.50: another hundred tasks would not reach .55
    assert [what for what, met in bench.targets(rows, 300) if not met][0] == "pack f@1 0.400 >= 0.55"
    assert not any("p95" in what for what, _ in bench.targets(rows, 300))  # a small repository: no latency target
    assert [what for what, met in bench.targets(rows, 3_000) if not met][-1].startswith("pack p50/p95 60/320")


PRICES = (
    '"""Prices."""\n\n\ndef parse_price(text):\n    """Parse a price such as 12.50 into cents."""\n'
    '    euros, _, cents = text.partition(".")\n    return int(euros) * 100 + int(cents or 0)\n\n\n'
    'def format_price(cents):\n    return f"{cents // 100}.{cents % 100:02d}"\n'
)
CART = (
    '"""A cart."""\nfrom shop.prices import parse_price\n\n\nclass Cart:\n    def __init__(self):\n'
    "        self.items = []\n\n    def add_item(self, name, price_text):\n"
    "        self.items.append((name, parse_price(price_text)))\n"
)


def make_upstream(root: Path) -> dict[str, str]:
    """A public repository in miniature: a base tag, then a real fix, a release, a whitespace-only
    change and a new file."""
    root.mkdir(parents=True)
    repo = Repo(root)
    repo.write("README.md", "A shop that prices and totals carts.\n")
    repo.write("shop/__init__.py", "")
    repo.write("shop/prices.py", PRICES)
    repo.write("shop/cart.py", CART)
    repo.write("tests/test_prices.py", "from shop.prices import parse_price\n")
    repo.commit("shop")
    git(root, "tag", "v1")
    repo.write("shop/prices.py", PRICES.replace('text.partition(".")', 'text.strip().partition(".")'))
    repo.write("tests/test_prices.py", "from shop.prices import parse_price\n\n\ndef test_spaces(): ...\n")
    fix = repo.commit(
        "parse_price ignores surrounding spaces\n\nPrices pasted from forms carry blanks.\n\n"
        "Co-authored-by: A <a@example.org>"
    )
    repo.write("shop/__init__.py", '__version__ = "1.1"\n')
    repo.commit("Release 1.1")
    repo.write("shop/cart.py", CART.replace("class Cart:\n", "class Cart:\n\n"))
    repo.commit("Tidy the cart")
    repo.write("shop/tax.py", "def vat(cents):\n    return cents // 5\n")
    repo.commit("Add VAT")
    return {"fix": fix, "later": git(root, "rev-parse", "HEAD").strip()}


def test_a_whole_run_on_a_small_repository(
    bench: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ANNALS_VECTORS", "off")
    commits = make_upstream(tmp_path / "mirrors" / "acme+shop" / "repo")
    spec = bench.Spec("acme/shop", "v1", "python")
    listing = bench.build_tasks("shop", spec, tmp_path / "mirrors", tmp_path / "work")

    (task,) = listing["tasks"]  # the release, the whitespace change and the new file are no tasks
    assert task["commit"] == commits["fix"]
    assert task["message"] == "parse_price ignores surrounding spaces\n\nPrices pasted from forms carry blanks."
    assert task["gold_files"] == ["shop/prices.py"]
    assert task["gold_symbols"] == ["shop/prices.py::parse_price"]
    assert listing["selection"]["skipped"] == {"subject": 1, "whitespace": 1}

    root = bench.base_index("shop", spec, listing, tmp_path / "mirrors", tmp_path / "work")
    assert git(root, "rev-parse", "HEAD").strip() == listing["base_commit"]
    for later in commits.values():  # nothing after the base reached the indexed clone
        assert subprocess.run(["git", "cat-file", "-e", later], cwd=root, capture_output=True).returncode != 0
    # A cached base is brought to this code: indexed again where an older extractor made its facts (the marker says
    # which), and left as it is where this one did.
    (root / ".annals" / "bench-facts").write_text("an older extractor\n")
    bench.base_current("shop", root)
    assert "facts made again" in capsys.readouterr().out
    assert (root / ".annals" / "bench-facts").read_text().strip() == bench.facts_code_version()
    bench.base_current("shop", root)
    assert capsys.readouterr().out == ""
    baselines = {"bm25": bench.FileBM25.of_tree(root), "bm25code": bench.FileBM25.of_tree(root, code_only=True)}
    assert baselines["bm25code"].count < baselines["bm25"].count  # the readme is text, not code
    db = bench.snapshot(root, tmp_path)
    results = anyio.run(bench.ask_all, root, db, listing["tasks"], baselines)
    (result,) = results
    assert result["gold_symbols"] == ["shop/prices.py::parse_price"]
    assert result["pack"]["symbol"] == 1 and result["pack"]["file"] == 1
    assert result["bm25"]["file"] is not None and result["bm25code"]["file"] is not None
    events = "SELECT COUNT(*) FROM events"
    assert (
        sqlite3.connect(db).execute(events).fetchone()
        > sqlite3.connect(root / ".annals" / "annals.db").execute(events).fetchone()
    )  # the calls were logged in the run's copy, the cached index is as it was
    row = bench.summary(results)["pack"]
    assert row["acc1"] == 1.0 and row["n_symbols"] == 1 and row["over_budget"] == 0


def test_every_signal_the_ablation_takes_out_names_what_the_ranking_has() -> None:
    # A setting of a renamed constant or function would take nothing out, and the ablation would say the
    # signal is worth nothing.
    path = BENCH.parent / "ablation.py"
    spec = importlib.util.spec_from_file_location("ablation", path)
    assert spec is not None and spec.loader is not None
    ablation = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ablation)
    for signal, settings in ablation.SIGNALS.items():
        for module, name, _ in settings:
            assert hasattr(module, name), (signal, module.__name__, name)
    with pytest.raises(SystemExit, match="has no NOT_A_SETTING"):
        ablation.SIGNALS["renamed"] = [(ablation.ranking, "NOT_A_SETTING", 0.0)]
        with ablation.without("renamed"):
            pass
