"""What a test replaces with a mock: `@patch("hc.api.transports.curl.request")` on a test or on its class. The test
does not run the code it patches (a mock runs instead), nor what it reaches only through that code: the walk that
finds it is walked again with the patched code as a dead end (store/testmap.py), and a test it no longer finds is not
listed.

A patch names what it replaces by the dotted path of where it is looked up (`hc.api.transports.curl.request`: the
`request` of the `curl` module transports imports), which the resolver follows to our code; a patch of outside code
(`django.utils.timezone.now`) replaces nothing of ours.

bench/facts_tests_routes.py, Healthchecks v3.9, whose notification tests patch the HTTP client their transports call
(`hc.api.transports.curl.request`): its five functions list 126 -> 120 test files (one runs them), the other tests
reaching them by guesses through `self.client.post()` and a channel's dispatch to every transport; the bench's
figures the same to the third digit, its 3,125 answers 36.6 -> 39.0 s."""

from __future__ import annotations

import re
import sqlite3

from .db import held_per_key
from .resolver import shared_resolver
from .suite import SuiteFiles

# `@patch("a.b.c")`, `@mock.patch("a.b.c", ...)`, `@unittest.mock.patch(target="a.b.c")`
_PATCH = re.compile(r"""^@(?:\w+\.)*patch\(\s*(?:target\s*=\s*)?(['"])([A-Za-z_][\w.]*)\1""")


def patched(conn: sqlite3.Connection, files: SuiteFiles, test: str) -> frozenset[str]:
    """The ids of our symbols a test (a node id: `path::Class::test`, `path::test`) patches, by its decorators and
    its class's."""
    return held_per_key(conn, "patched by test", test, lambda: _patched(conn, files, test))


def _patched(conn: sqlite3.Connection, files: SuiteFiles, test: str) -> frozenset[str]:
    path, _, qualname = test.partition("::")
    symbols = files.symbols(path) if qualname else {}
    found = symbols.get(f"{path}::{qualname.replace('::', '.')}")
    decorators: list[str] = []
    while found is not None:
        decorators += [str(d) for d in found["decorators"]]
        found = symbols.get(found["parent"] or "")
    targets = [m[2] for d in decorators if (m := _PATCH.match(d))]
    if not targets:
        return frozenset()
    resolver = shared_resolver(conn)
    return frozenset(row["id"] for t in targets if (row := resolver.dotted(t)) is not None)
