"""Module names of files, and the repository files an import could mean, best first.

Candidates are either module keys (`module:pkg.mod`, matched against the modules of indexed
files) or paths; the dependencies projection picks the first candidate that matches an indexed
file, and picks again whenever a file appears or goes, so a module added later still resolves.
Path candidates name only files of the walked tree.
"""

from __future__ import annotations

import json
import posixpath
import re
import sys
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from .jsmodules import JS_LANGUAGES, TS_CONFIGS, JsPackage, TsConfig, inside, js_candidates, js_package, ts_config
from .pypackages import PROJECT_FILES, find_python_roots, has_folder, package_folders

_PYTHON_STDLIB = frozenset(sys.stdlib_module_names)
# Settings files (go.mod, package.json, tsconfig, Cargo.toml, pyproject.toml) read per run, the shallowest first:
# vite's monorepo has 259 within three folders of the top (its playground's packages), which 200 cut short.
MAX_SETTINGS_FILES = 2000
MAX_LINK_HOPS = 8  # a link to a link to ... is followed this far (a cycle stops there)


@dataclass
class Layout:
    """What resolution needs to know about the whole tree."""

    paths: frozenset[str]
    python_roots: tuple[str, ...] = ("",)
    go_modules: dict[str, str] = field(default_factory=dict)  # directory of a go.mod -> its module path
    ts_configs: dict[str, TsConfig] = field(default_factory=dict)  # directory of a tsconfig -> its options
    js_packages: dict[str, JsPackage] = field(default_factory=dict)  # name in package.json -> the package
    # directory of a package.json -> its `imports` (`#internal` -> targets as written): Node reads the nearest one's
    js_imports: dict[str, dict[str, Any]] = field(default_factory=dict)
    rust_crates: dict[str, str] = field(default_factory=dict)  # a crate's name in Rust paths -> its directory
    links: dict[str, str] = field(default_factory=dict)  # a symlink of the tree -> the path inside it it points at
    # a folder installed as another package than its path says (`store` -> `codeannals.store`): pypackages.py
    python_packages: dict[str, str] = field(default_factory=dict)
    _by_suffix: dict[str, list[str]] = field(default_factory=dict)
    _by_dir: dict[str, list[str]] = field(default_factory=dict)

    _package_dirs: frozenset[str] = frozenset()

    @classmethod
    def of(cls, paths: Iterable[str], read_text: Any = None, links: dict[str, str] | None = None) -> Layout:
        """Infer Python's roots (the top, `src/`, `lib/`, projects, top-level packages) and module settings;
        `links`: the tree's symlinks into itself (indexer/walk.py's in_tree_links)."""
        paths = frozenset(paths)
        package_dirs = frozenset(posixpath.dirname(p) for p in paths if posixpath.basename(p) == "__init__.py")
        layout = cls(paths, find_python_roots(paths, package_dirs), links=links or {}, _package_dirs=package_dirs)
        if read_text is not None:
            layout._read_settings(read_text)
        return layout

    def followed(self, path: str) -> str:
        """The path itself, or where the symlinks on its way point (`packages/a/eslint.config.js` -> the top's
        eslint.config.js; a linked folder: `app/lib/x.ts` -> `src/x.ts`)."""
        for _ in range(MAX_LINK_HOPS if self.links else 0):
            parts = path.split("/")
            cut = next((i for i in range(len(parts), 0, -1) if "/".join(parts[:i]) in self.links), None)
            if cut is None:
                break
            path = posixpath.join(self.links["/".join(parts[:cut])], *parts[cut:])
        return path

    def settings(self) -> str:
        """What the project's settings files made of the tree (roots, packages, modules, path aliases,
        crates), as one string: the module names and import candidates of unchanged files change with it."""
        read = {
            "python": [self.python_roots, self.python_packages],
            "go": self.go_modules,
            "ts": {d: asdict(c) for d, c in self.ts_configs.items()},
            "js": {n: asdict(p) for n, p in self.js_packages.items()},
            "js imports": self.js_imports,
            "rust": self.rust_crates,
            "links": self.links,
        }
        return json.dumps(read, sort_keys=True)

    def in_package(self, path: str) -> bool:
        """Whether a file sits in a regular package (a directory with an `__init__.py`)."""
        return posixpath.dirname(path) in self._package_dirs

    @property
    def go_module(self) -> str | None:
        """The module path of the go.mod at the top of the tree, if there is one."""
        return self.go_modules.get("")

    def _read_settings(self, read_text: Any) -> None:
        settings = sorted(
            (
                p
                for p in self.paths
                if posixpath.basename(p) in ("go.mod", "package.json", "Cargo.toml", *TS_CONFIGS, *PROJECT_FILES)
                and "node_modules/" not in p
            ),
            key=lambda p: (p.count("/"), p),
        )[:MAX_SETTINGS_FILES]
        for path in settings:
            directory = posixpath.dirname(path)
            if path.endswith("package.json"):
                found = js_package(read_text(path) or "", directory)
                if found is not None:
                    self.js_imports[directory] = found[1].imports
                    if found[0] and found[0] not in self.js_packages:
                        self.js_packages[found[0]] = found[1]
            elif path.endswith("Cargo.toml"):
                name = _crate_name(read_text(path) or "")
                if name is not None and name not in self.rust_crates:
                    self.rust_crates[name] = directory
            elif path.endswith("go.mod"):
                for line in (read_text(path) or "").splitlines():
                    if line.startswith("module ") and len(line.split()) > 1:
                        self.go_modules[directory] = line.split()[1].strip().strip('"')
            elif posixpath.basename(path) in PROJECT_FILES:
                self._read_python_project(directory, package_folders(posixpath.basename(path), read_text(path) or ""))
            elif directory not in self.ts_configs:
                config = ts_config(path, read_text)
                if config is not None:
                    self.ts_configs[directory] = config

    def _read_python_project(self, directory: str, folders: dict[str, str]) -> None:
        """A project's folders as its build settings install them: a root joins the roots, a folder installed
        under another name maps to it (the shallowest project file to say so wins)."""
        roots = set(self.python_roots)
        for folder, package in folders.items():
            found = inside(posixpath.join(directory, folder))
            if found is None or (found and not has_folder(self.paths, found)):
                continue  # a folder the tree does not have
            if package:
                self.python_packages.setdefault(found, package)
            else:
                roots.add(found)
        self.python_roots = tuple(sorted(roots, key=lambda r: (r.count("/"), r)))

    def python_module(self, path: str) -> str:
        if not path.endswith((".py", ".pyi")):
            return ""
        folder = posixpath.dirname(path)
        while self.python_packages:  # a folder installed under another name: the name it is imported by
            if folder in self.python_packages:
                rest = path[len(folder) + 1 if folder else 0 :].rsplit(".", 1)[0].split("/")
                parts = self.python_packages[folder].split(".") + (rest if rest[-1] != "__init__" else rest[:-1])
                return ".".join(parts)
            if not folder:
                break
            folder = posixpath.dirname(folder)
        for root in sorted(self.python_roots, key=len, reverse=True):
            prefix = f"{root}/" if root else ""
            if path.startswith(prefix):
                rel = path[len(prefix) :].rsplit(".", 1)[0]
                parts = rel.split("/")
                if parts[-1] == "__init__":
                    parts = parts[:-1]
                return ".".join(parts)
        return ""

    def ending_with(self, suffix: str) -> list[str]:
        if not self._by_suffix:
            for p in self.paths:
                self._by_suffix.setdefault(posixpath.basename(p), []).append(p)
        name = posixpath.basename(suffix)
        return sorted(p for p in self._by_suffix.get(name, []) if p.endswith(suffix))

    def in_directory(self, directory: str) -> list[str]:
        """The files directly in a directory (not in its subdirectories)."""
        if not self._by_dir:
            for p in self.paths:
                self._by_dir.setdefault(posixpath.dirname(p), []).append(p)
        return sorted(self._by_dir.get(directory, []))

    def nearest(self, configs: dict[str, Any], path: str) -> tuple[str, Any] | None:
        """The setting whose directory is the closest ancestor of path."""
        directory = posixpath.dirname(path)
        while True:
            if directory in configs:
                return directory, configs[directory]
            if not directory:
                return None
            directory = posixpath.dirname(directory)


def module_name(path: str, language: str, layout: Layout) -> str:
    if language == "python":
        return layout.python_module(path)
    if language == "go":
        directory = posixpath.dirname(path)
        found = layout.nearest(layout.go_modules, path)
        if found is not None:
            mod_dir, module = found
            rest = directory[len(mod_dir) :].strip("/")
            return f"{module}/{rest}" if rest else module
        return directory
    return path.rsplit(".", 1)[0]


MODULE_KEY = "module:"  # a candidate naming a module: matched against files' module names when read


def _python_files(base: str) -> list[str]:
    return [f"{base}.py", f"{base}.pyi", f"{base}/__init__.py"]


def _python_package(path: str, layout: Layout) -> list[str] | None:
    """The package a file belongs to, as parts (a package's __init__ belongs to itself)."""
    own = layout.python_module(path)
    if not own and posixpath.basename(path) != "__init__.py":
        return None
    parts = own.split(".") if own else []
    return parts if posixpath.basename(path) == "__init__.py" else parts[:-1]


def _python(imp: dict[str, Any], path: str, layout: Layout) -> list[str]:
    """Module keys (order-independent: a module added later still resolves), then sibling files.

    An absolute import names a top-level module: a module key matches a file only by its full
    module name, so `import types` never means a package's own `pkg/types.py`, and a name of the
    standard library means the standard library whatever the tree holds. Only a script (a file
    outside any regular package) also finds modules beside it: its directory is `sys.path[0]`
    when it runs, as pytest's rootdir insertion makes it for a test outside a package. Last, a
    module by its path from the top of the tree, which is on `sys.path` when the code runs from
    there: `from src.app import x` where `src/` is a root but also a namespace package.
    """
    module = imp["module"]
    names = [n for n in imp.get("names", []) if n != "*"]
    out: list[str] = []
    if imp.get("level"):
        package = _python_package(path, layout)
        up = imp["level"] - 1
        if package is None or up > len(package):  # outside any package: fall back to paths
            base_dir = posixpath.dirname(path)
            for _ in range(up):
                base_dir = posixpath.dirname(base_dir)
            base_dir = posixpath.join(base_dir, module.replace(".", "/")) if module else base_dir
            for name in names:
                out.extend(_python_files(posixpath.join(base_dir, name)))
            return out + (_python_files(base_dir) if base_dir else [])
        base = ".".join(package[: len(package) - up] + ([module] if module else []))
    elif module.split(".", 1)[0] in _PYTHON_STDLIB:
        return []
    else:
        base = module
    out.extend(f"{MODULE_KEY}{base}.{name}" if base else f"{MODULE_KEY}{name}" for name in names)
    if base:
        out.append(f"{MODULE_KEY}{base}")
    if not imp.get("level") and not layout.in_package(path):  # a script importing a module beside it
        own_dir = posixpath.dirname(path)
        out.extend(_python_files(posixpath.join(own_dir, module.replace(".", "/"))))
    if not imp.get("level"):  # from the top, as run from there: `from src.app import x` with src/ no package
        top = module.replace(".", "/")  # only files there now: a rare fallback is not worth a row each
        out.extend(p for name in names for p in _python_files(f"{top}/{name}") if p in layout.paths)
        out.extend(p for p in _python_files(top) if p in layout.paths)
    return out


def _go(imp: dict[str, Any], layout: Layout) -> list[str]:
    """A package of this repository: the non-test Go files of the directory its import path names. A name of the
    file's own package (kind `package`) is resolved by the files declaring it (store/projections/gonames.py)."""
    if imp.get("kind") == "package":
        return []
    spec = imp["module"]
    for mod_dir, module in sorted(layout.go_modules.items(), key=lambda kv: -len(kv[1])):
        if spec == module or spec.startswith(module + "/"):
            directory = posixpath.join(mod_dir, spec[len(module) :].strip("/")).strip("/")
            return [p for p in layout.in_directory(directory) if p.endswith(".go") and not p.endswith("_test.go")]
    return []


def _java(imp: dict[str, Any], layout: Layout) -> list[str]:
    """A class by its package path; `a.b.*` every class of that package; a static import its class."""
    parts = imp["module"].split(".")
    if imp.get("kind") == "package":  # a class of the file's own package: its file or nothing (imports.py)
        return _suffixed(layout, "/".join(parts) + ".java")
    if imp.get("names") == ["*"] and imp.get("kind") != "static":
        suffix = "/".join(parts)
        return sorted(
            p
            for p in layout.paths
            if p.endswith(".java") and (posixpath.dirname(p) == suffix or posixpath.dirname(p).endswith("/" + suffix))
        )
    out = _suffixed(layout, "/".join(parts) + ".java")
    for cut in range(len(parts) - 1, 0, -1):  # a nested class or a static member: its outer class
        out += _suffixed(layout, "/".join(parts[:cut]) + ".java")
    return out


def _suffixed(layout: Layout, suffix: str) -> list[str]:
    return [p for p in layout.ending_with(suffix) if p == suffix or p.endswith("/" + suffix)]


def _include(imp: dict[str, Any], path: str, layout: Layout) -> list[str]:
    """`#include "x.h"` beside the file first, then from the top, then anywhere that ends so.

    `<x.h>` is a system header unless the project has it at its top (hiredis's `<hiredis.h>`, which its
    build's `-I .` finds) or under an include directory, or it names a path (`<geo/point.h>`): a `stdio.h`
    of some vendored copy is not what `<stdio.h>` means (measured against gcc: bench/facts_imports_c.py).
    """
    spec = imp["module"]
    if imp.get("kind") == "system":
        found = [
            p for p in _suffixed(layout, spec) if "/" in spec or posixpath.basename(posixpath.dirname(p)) == "include"
        ]
        return [spec, *found] if spec in layout.paths else found
    local = inside(posixpath.join(posixpath.dirname(path), spec))
    return [*([local] if local is not None else []), spec, *_suffixed(layout, spec)]


def _ruby(imp: dict[str, Any], path: str, layout: Layout) -> list[str]:
    """`require_relative` beside the file; `require` on the load path a gem's tests run with: the top and lib/
    (any project's lib/ of the tree), and for a test file its own test folder (`rake test` and RSpec add test/ or
    spec/: `require "test_helper"`)."""
    spec = imp["module"].removesuffix(".rb")
    if imp.get("kind") == "require_relative":
        local = inside(posixpath.join(posixpath.dirname(path), spec + ".rb"))
        return [local] if local is not None else []
    parts = path.split("/")
    tests = next((i for i, part in enumerate(parts[:-1]) if part in ("test", "tests", "spec")), None)
    own_tests = ["/".join([*parts[: tests + 1], f"{spec}.rb"])] if tests is not None else []
    return [f"{spec}.rb", f"lib/{spec}.rb", *own_tests, *_suffixed(layout, f"lib/{spec}.rb")]


_CRATE_NAME = re.compile(r'^\s*name\s*=\s*"([^"]+)"', re.M)
_TOML_TABLE = re.compile(r"^\s*\[([^\]]+)\]", re.M)


def _crate_name(cargo_toml: str) -> str | None:
    """The name Rust code uses for the crate's library: `[lib] name`, else `[package] name` with `-` as `_`."""
    names: dict[str, str] = {}
    tables = list(_TOML_TABLE.finditer(cargo_toml))
    for i, table in enumerate(tables):
        end = tables[i + 1].start() if i + 1 < len(tables) else len(cargo_toml)
        found = _CRATE_NAME.search(cargo_toml, table.end(), end)
        if found is not None:
            names.setdefault(table.group(1).strip(), found.group(1))
    name = names.get("lib") or names.get("package")
    return name.replace("-", "_") if name else None


def _rust(imp: dict[str, Any], path: str, layout: Layout) -> list[str]:
    """`mod x;` beside the file; `use crate::a::b` / `super::` / `self::` within the crate's src, and
    `use name::a` for a crate of the repository by its name (an integration test's `use mycrate::f`, a
    workspace member's). An item of a module is in the module's own file: the crate root (lib.rs, main.rs)
    or `a.rs`/`a/mod.rs`; `self::` that names no other file is the file's own items
    (indexer/parsing/imports.py writes `use super::*` inside `mod tests { }` as `self::*`, the file's own).
    One name taken that is a module (`use crate::common::watch;`, `use crate::proto;`, recorded as the name of
    module `crate::common`) is that module's own file, not the file of the module holding it; each `super`
    of `super::super::x` goes one module up."""
    directory = posixpath.dirname(path)
    stem = posixpath.basename(path).rsplit(".", 1)[0]
    modules_beside = stem in ("mod", "lib", "main") or _rust_target_root(path)
    own_dir = directory if modules_beside else posixpath.join(directory, stem)
    if imp.get("kind") == "mod":
        return [posixpath.join(own_dir, f"{imp['module']}.rs"), posixpath.join(own_dir, imp["module"], "mod.rs")]
    parts = imp["module"].removeprefix("::").split("::")  # `use ::bytes::Buf`: the crate, never a module
    if parts[0] == "crate":
        root = directory
        while root and posixpath.basename(root) != "src":
            root = posixpath.dirname(root)
        base = root if posixpath.basename(root) == "src" else _rust_target_folder(directory)
    elif parts[0] in layout.rust_crates:
        base = posixpath.join(layout.rust_crates[parts[0]], "src")
    elif parts[0] == "self":
        base = own_dir
    elif parts[0] == "super":
        ups = next((i for i, p in enumerate(parts) if p != "super"), len(parts))
        base = own_dir
        for _ in range(ups):
            base = posixpath.dirname(base)
        parts = parts[ups - 1 :]  # the last `super` is dropped below, as `crate` and `self` are
    elif any(f"{posixpath.join(own_dir, parts[0])}{end}" in layout.paths for end in (".rs", "/mod.rs")):
        base, parts = own_dir, ["self", *parts]  # `use traits::Flags` (2018): a module of this one, `mod traits;`
    else:
        return []
    parts = parts[1:]
    names = imp.get("names") or []
    out: list[str] = []
    if len(names) == 1 and names[0] not in ("*", "self", ""):  # the name may be a module of its own
        module = posixpath.join(base, *parts, names[0])
        out += [f"{module}.rs", posixpath.join(module, "mod.rs")]
    for cut in range(len(parts), 0, -1):  # `a::b::c`: module a/b/c, else the item c of module a/b
        module = posixpath.join(base, *parts[:cut])
        out += [f"{module}.rs", posixpath.join(module, "mod.rs")]
    own = [path] if base == own_dir else []  # the module is this file's (`self::`, `crate::` in lib.rs)
    roots = ["lib.rs", "main.rs"] if posixpath.basename(base) == "src" else []
    module_files = [*own, *(posixpath.join(base, r) for r in roots), f"{base}.rs", posixpath.join(base, "mod.rs")]
    return out + module_files


_RUST_TARGET_FOLDERS = ("tests", "benches", "examples")


def _rust_target_root(path: str) -> bool:
    """Whether a file is the root of a crate of its own: an integration test, a bench, an example, a binary
    (`tests/version.rs`, whose `mod util;` is tests/util.rs or tests/util/mod.rs)."""
    folders = posixpath.dirname(path).split("/")
    return (folders[-1] in _RUST_TARGET_FOLDERS and "src" not in folders) or folders[-2:] == ["src", "bin"]


def _rust_target_folder(directory: str) -> str:
    """The folder of the crate a file outside src/ belongs to (tests/ for tests/util/mod.rs), else its own."""
    parts = directory.split("/")
    found = next((i for i in range(len(parts) - 1, -1, -1) if parts[i] in _RUST_TARGET_FOLDERS), None)
    return "/".join(parts[: found + 1]) if found is not None else directory


def candidates(imp: dict[str, Any], path: str, language: str, layout: Layout) -> list[str]:
    """Repository files this import could refer to, most likely first, only ones that exist."""
    if language == "python":
        found = _python(imp, path, layout)
    elif language in JS_LANGUAGES:
        found = js_candidates(imp, path, language, layout)
    elif language == "go":
        found = _go(imp, layout)
    elif language == "java":
        found = _java(imp, layout)
    elif language in ("c", "cpp"):
        found = _include(imp, path, layout)
    elif language == "ruby":
        found = _ruby(imp, path, layout)
    elif language == "rust":
        found = _rust(imp, path, layout)
    else:
        found = []
    found = [layout.followed(p) for p in found]
    if language == "python":  # module keys and sibling paths are resolved when read
        return [p for p in dict.fromkeys(found) if p != path]
    if language == "rust":  # `use super::*` in an inline `mod tests` is the file's own items
        return [p for p in dict.fromkeys(found) if p in layout.paths]
    return [p for p in dict.fromkeys(found) if p in layout.paths and p != path]
