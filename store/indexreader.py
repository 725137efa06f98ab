"""What the projections say about one file (its symbols, its imports and the names they bind, what it exports, its
module's name), one class's typed fields, and one name (the calls by it, the functions of it, the fields holding a
class of it), each read once per answer: a walk up the call graph (store/resolver.py, store/callgraph.py) asks for
the same files and names again and again."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from .db import stored_list
from .refs import DEFAULT
from .symbol import RESOLVER_COLUMNS
from .typenames import annotation_names, holds_class

# Imports whose `*` brings the module's names into the file's own (not `import * as ns`, which binds ns alone)
STAR_KINDS = frozenset({"reexport", "from", "use"})  # Rust's `use crate::util::*;`
# A file's imports by the names they bind (how, the file, the name there), its star imports' files, and the names
# only imports of outside code bind (IndexReader.import_index)
ImportIndex = tuple[dict[str, tuple[str, str, str]], list[str], set[str]]


def _name_bound(imp: sqlite3.Row, names: tuple[Any, ...]) -> str | None:
    """The name a Python `from m import A as B` or a Rust `use m::A as B;` binds (B; A where it has no `as`);
    None for another import."""
    if imp["kind"] not in ("from", "use") or len(names) != 1 or names[0] == "*" or not isinstance(names[0], str):
        return None
    return str(imp["bound"] or names[0])


class IndexReader:
    """A file's facts from the projections, cached for the life of one reader."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self._symbols: dict[str, dict[str, sqlite3.Row]] = {}
        self._by_id: dict[str, sqlite3.Row | None] = {}
        self._imports: dict[str, list[sqlite3.Row]] = {}
        self._imported: dict[str, list[tuple[sqlite3.Row, tuple[Any, ...]]]] = {}
        self._modules: dict[str, str] = {}
        self._exported_as: dict[str, dict[str, str]] = {}  # a module's renamed exports, by its path
        self._renaming_importers: dict[str, list[tuple[str, list[str]]]] | None = None  # by the file they import
        self._fields: dict[str, dict[str, str]] = {}  # a class's fields' declared types, by its id
        self._calls_named: dict[str, list[sqlite3.Row]] = {}
        self._functions_named: dict[str, int] = {}
        self._class_fields: dict[str, set[str]] | None = None  # by class name: the fields declared to hold it
        self._dispatches: list[str] | None = None  # the `prefix*` names calls are indexed under
        self._import_indexes: dict[str, ImportIndex] = {}  # by path: import_index
        self._outside_modules: dict[str, dict[str, str]] = {}  # by path: outside_modules

    def symbols_of(self, path: str) -> dict[str, sqlite3.Row]:
        """A file's symbols by qualified name (`f` is the first definition of f), and the later ones of a name by
        their ids' `f#2`, which a JavaScript ref names where scoping says which (two tests' own `makeRequest`)."""
        if path not in self._symbols:
            found: dict[str, sqlite3.Row] = {}
            query = f"SELECT {RESOLVER_COLUMNS} FROM symbols WHERE path = ? ORDER BY id DESC"
            for r in self.conn.execute(query, (path,)):
                found[r["qualname"]] = r  # `f` before `f#2`: the first definition wins
                found[r["id"].partition("::")[2]] = r
            self._symbols[path] = found
        return self._symbols[path]

    def symbol(self, symbol_id: str | None) -> sqlite3.Row | None:
        """One symbol, by its id (None for none): a method's class, asked of each of its callers' walks."""
        if symbol_id is None:
            return None
        if symbol_id not in self._by_id:
            query = f"SELECT {RESOLVER_COLUMNS} FROM symbols WHERE id = ?"
            self._by_id[symbol_id] = self.conn.execute(query, (symbol_id,)).fetchone()
        return self._by_id[symbol_id]

    def imports_of(self, path: str) -> list[sqlite3.Row]:
        if path not in self._imports:
            self._imports[path] = self.conn.execute(
                "SELECT ordinal, module, names, kind, target, bound, origin FROM imports WHERE path = ?"
                " ORDER BY ordinal",
                (path,),
            ).fetchall()
        return self._imports[path]

    def import_numbered(self, path: str, ordinal: int | None) -> sqlite3.Row | None:
        """The file's import number `ordinal` (a ref's `import#K`); None where it has none."""
        return next((i for i in self.imports_of(path) if i["ordinal"] == ordinal), None)

    def imported_names(self, path: str) -> list[tuple[sqlite3.Row, tuple[Any, ...]]]:
        """The file's imports, each with the names it imports, parsed once: a walk up the call graph
        follows the same imports again and again (550k parses for 20 packs on sqlalchemy)."""
        if path not in self._imported:
            self._imported[path] = [(imp, tuple(stored_list(imp["names"]))) for imp in self.imports_of(path)]
        return self._imported[path]

    def import_index(self, path: str) -> ImportIndex:
        """A file's resolved imports by the names they bind, each with how, the file it resolved to and its name
        there, the first import binding it winning (`named`: `from m import f`, or `from m import A as B`, which
        binds B to m's A; `bound`: a name bound to a whole module, `const Base = require('./base')`; `module`:
        `import m`, and last, the package a of `import a.b`, its `__init__.py`); the targets of its star imports
        in order; and the names only imports of outside code bind (`from unittest import mock`): a walk asks the
        same file thousands of times (sqlalchemy)."""
        if path not in self._import_indexes:
            by_name: dict[str, tuple[str, str, str]] = {}
            python = path.endswith((".py", ".pyi"))
            stars = []
            packages = []
            outside = set(self.outside_modules(path)) if python else set()  # `import sys`, `from unittest import mock`
            for imp, names in self.imported_names(path):
                if imp["target"] is None:
                    continue
                renamed = _name_bound(imp, names)
                for name in names:
                    by_name.setdefault(renamed or name, ("named", imp["target"], name))
                if imp["bound"] and names in ((), (DEFAULT,)):
                    by_name.setdefault(imp["bound"], ("bound", imp["target"], imp["bound"]))
                if imp["kind"] == "import" and imp["module"]:
                    by_name.setdefault(imp["module"], ("module", imp["target"], imp["module"]))
                    packages.append(imp)
                if "*" in names and imp["kind"] in STAR_KINDS:
                    stars.append(imp["target"])
            for imp in packages:  # `import a.b` binds a too: `a.f()` is the package's f
                first, dot, _ = imp["module"].partition(".")
                package = _package_of(imp["target"], imp["module"].count(".")) if dot else None
                if package is not None and first not in by_name and self.module_of(package):
                    by_name[first] = ("module", package, first)
            self._import_indexes[path] = (by_name, stars, outside - by_name.keys())
        return self._import_indexes[path]

    def outside_modules(self, path: str) -> dict[str, str]:
        """The names a Python file's imports of outside code bind, each with its module ("" where it names none):
        `import sqlite3` binds sqlite3 (sqlite3), `from pathlib import Path as P` P (pathlib)."""
        if path not in self._outside_modules:
            bound: dict[str, str] = {}
            for imp, names in self.imported_names(path):
                if imp["target"] is None:
                    whole = imp["module"].partition(".")[0] if imp["kind"] == "import" and imp["module"] else None
                    local = _name_bound(imp, names) or imp["bound"] or whole
                    if local and local != "*":
                        bound.setdefault(local, imp["module"] or "")
            self._outside_modules[path] = bound
        return self._outside_modules[path]

    def exported_as(self, path: str) -> dict[str, str]:
        """What a JavaScript or TypeScript module exports under other names than its definitions' own, with each
        definition's name: `default` for what it exports as itself (`module.exports = Agent`, `export default
        class`), `Readable` for `module.exports = { Readable: BodyReadable }`; none in an older index."""
        if path not in self._exported_as:
            row = self.conn.execute("SELECT exported_as FROM import_files WHERE path = ?", (path,)).fetchone()
            self._exported_as[path] = json.loads(row[0]) if row is not None and row[0] else {}
        return self._exported_as[path]

    def reexported_as(self, path: str, name: str) -> set[str]:
        """The other names JavaScript or TypeScript modules export a definition under that they import by its own
        (vitest's utils/error.ts: `import { serializeValue } from './serialize'; export { serializeValue as
        serializeError }`): calls by those names are its callers' too."""
        if self._renaming_importers is None:  # the imports of the modules exporting something under another name
            self._renaming_importers = {}
            for importer, target, names in self.conn.execute(
                "SELECT i.path, i.target, i.names FROM imports i JOIN import_files f ON f.path = i.path"
                " WHERE i.target IS NOT NULL AND f.exported_as IS NOT NULL AND f.exported_as NOT IN ('', '{}')"
            ):
                self._renaming_importers.setdefault(target, []).append((importer, json.loads(names or "[]")))
        return {
            alias
            for importer, names in self._renaming_importers.get(path, ())
            if name in names
            for alias, exported in self.exported_as(importer).items()
            if exported == name and alias != name
        }

    def default_export(self, path: str) -> str | None:
        """The name of the definition a module exports as itself; None for none."""
        return self.exported_as(path).get(DEFAULT)

    def module_of(self, path: str) -> str:
        if path not in self._modules:
            row = self.conn.execute("SELECT module FROM import_files WHERE path = ?", (path,)).fetchone()
            self._modules[path] = (row[0] or "") if row is not None else ""
        return self._modules[path]

    def typed_members(self, owner: str) -> dict[str, str]:
        """A class's fields with their types as written, or a function's result where the code says it (RESULT):
        the dependencies projection's `fields`, by the owner's id."""
        if owner not in self._fields:
            self._fields[owner] = dict(
                self.conn.execute("SELECT name, type FROM fields WHERE owner = ?", (owner,)).fetchall()
            )
        return self._fields[owner]

    def calls_named(self, name: str) -> list[sqlite3.Row]:
        """The call sites of a name: called by it, or by another name its ref resolves through (`ref_name`, and
        the other alternatives' `call_names`). The callers of every `__init__`, `execute` or `close` read the
        same sites: on sqlalchemy, a context pack's walks asked for 4,000 names 6,700 times."""
        if name not in self._calls_named:
            columns = "path, ordinal, caller, name, qualifier, line, lines, ref, arguments"
            self._calls_named[name] = self.conn.execute(
                f"SELECT {columns} FROM calls WHERE name = ? OR ref_name = ? UNION SELECT {columns} FROM calls"
                " WHERE (path, ordinal) IN (SELECT path, ordinal FROM call_names WHERE name = ?)",
                (name, name, name),
            ).fetchall()
        return self._calls_named[name]

    def dispatched_names(self, name: str) -> list[str]:
        """The names built at run time that `name` may be (store/refs.py's `parse_*`, from
        `getattr(self, f"parse_{kind}")()`): the callers of parse_for look for the calls indexed under them."""
        if self._dispatches is None:
            self._dispatches = [
                r[0]
                for r in self.conn.execute(
                    "SELECT ref_name FROM calls WHERE ref_name LIKE '%*' UNION SELECT name FROM call_names"
                    " WHERE name LIKE '%*'"
                )
            ]
        return [d for d in self._dispatches if name.startswith(d[:-1])]

    def functions_named(self, name: str) -> int:
        """How many functions and methods have this name."""
        if name not in self._functions_named:
            self._functions_named[name] = self.conn.execute(
                "SELECT COUNT(*) FROM symbols WHERE name = ? AND kind IN ('function', 'method')", (name,)
            ).fetchone()[0]
        return self._functions_named[name]

    def fields_holding(self, class_name: str) -> set[str]:
        """The names of the fields declared to hold this class itself (`maker: Type[Widget]`): calling one
        constructs it (typedvalues._class_held), and the class's callers look for the calls by those names too."""
        if self._class_fields is None:
            self._class_fields = {}
            for name, written in self.conn.execute("SELECT name, type FROM fields"):
                if holds_class(written):
                    for held in annotation_names(written):
                        self._class_fields.setdefault(held.rpartition(".")[2], set()).add(name)
        return self._class_fields.get(class_name, set())


def _package_of(target: str, levels: int) -> str | None:
    """The `__init__.py` of the package `levels` above a Python module's file (`src/a/b.py`, 1: `src/a/__init__.py`);
    None where the path is not that deep."""
    folder = target.removesuffix(".py").removesuffix("/__init__")
    for _ in range(levels):
        if "/" not in folder:
            return None
        folder = folder.rpartition("/")[0]
    return f"{folder}/__init__.py"
