"""The blob cache's key covers every module the extractor reads, not just extract.py and parse.py."""

from __future__ import annotations

from codeannals.indexer.parsing import resolve
from codeannals.indexer.parsing.version import extractor_sources, module_sources


def test_every_module_the_extractor_imports_is_in_the_cache_key() -> None:
    names = {path.name for path in extractor_sources()}
    # hashes.py decides body and signature hashes; callrefs.py the calls' refs; docs.py docstrings:
    # a change to any of them changes cached facts, so it must change the key.
    assert {
        "extract.py",
        "parse.py",
        "hashes.py",
        "callrefs.py",
        "docs.py",
        "imports.py",
        "language_rules.py",
        "fallback.py",
    } <= names


def test_only_our_own_modules_are_read() -> None:
    assert all(path.suffix == ".py" and path.is_file() for path in extractor_sources())
    assert not any(".venv" in path.parts or "site-packages" in path.parts for path in extractor_sources())


def test_the_resolvers_key_covers_the_modules_it_imports() -> None:
    """The facts version of the work tree (indexer/run.py) covers how module names and imports are worked out:
    resolve.py, jsmodules.py (JavaScript's and TypeScript's) and pypackages.py, which reads the build settings'
    layouts."""
    from pathlib import Path

    assert {path.name for path in module_sources(Path(resolve.__file__))} == {
        "resolve.py",
        "jsmodules.py",
        "pypackages.py",
    }
