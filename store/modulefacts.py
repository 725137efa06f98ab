"""What a context pack shows of a module whatever the task: its role, public API, effects, imports, dependents and
tests. Kept by `annals index` for every module (store/kept.py), else worked out once while the files stand: packs
in a row show the same central modules, and a module's tests and effects are walks over the whole graph."""

from __future__ import annotations

import copy
import sqlite3
from typing import Any

from . import queries, testmap
from .db import held_per_key
from .filekinds import stubs_by_module
from .graph import ImportGraph
from .kept import MODULE_FACTS, kept

MODULE_TESTS_SHOWN = 8  # of the module's best testmap.PACK_TESTS


def module_facts(conn: sqlite3.Connection, graph: ImportGraph, path: str) -> dict[str, Any]:
    """The module's facts, the caller's own to change."""
    found = kept(conn, MODULE_FACTS, path)  # what `annals index` found, decoded anew at each read
    if found is not None:
        return found
    return copy.deepcopy(held_per_key(conn, "pack module facts", path, lambda: made_facts(conn, graph, path)))


def made_facts(conn: sqlite3.Connection, graph: ImportGraph, path: str) -> dict[str, Any]:
    """The module's facts, worked out (store/lookups.NotFound for a file that is not an indexed module)."""
    c = queries.module_contract(conn, path, with_tests=False)
    tests = [t.test for t in testmap.module_tests_held(conn, graph, path, testmap.PACK_TESTS)]
    return {
        "module": c["module"],
        "role": c["role"],
        "lines": c["lines"],
        "declarations": stubs_by_module(conn).get(path, []),
        "api": [
            {
                "name": a["name"],
                "kind": a["kind"],
                "signature": a["signature"],
                "summary": a["summary"],
                **({"methods": [m["signature"] for m in a["methods"]]} if a.get("methods") else {}),
            }
            for a in c["public_api"]
        ],
        "side_effects": c["side_effects"],
        "imports": [i["target"] for i in c["imports"]],
        "dependents": len(c["dependents"]),
        "dependents_sample": c["dependents"][:5],
        "tests": tests[:MODULE_TESTS_SHOWN],
        "more_tests": len(tests) > MODULE_TESTS_SHOWN,
        "tests_note": None if tests else testmap.tests_unknown(conn, path),
    }
