"""Module names of files, and the repository files an import could mean, best first.

Candidates are either module keys (`module:pkg.mod`, matched against files' module names when
read, so a module added later still resolves) or paths; the `resolved_imports` view picks the
first candidate that matches an indexed file at the time it is read.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

_JS_EXTENSIONS = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs")
_JS_LANGUAGES = frozenset({"javascript", "typescript", "tsx"})


@dataclass
class Layout:
    """What resolution needs to know about the whole tree."""

    paths: frozenset[str]
    python_roots: tuple[str, ...] = ("",)
    go_module: str | None = None
    ts_paths: dict[str, list[str]] = field(default_factory=dict)
    ts_base: str = ""
    _by_suffix: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def of(cls, paths: Iterable[str], read_text: Any = None) -> Layout:
        """Infer package roots (`src/`, `lib/`, top-level packages) and module settings."""
        paths = frozenset(paths)
        package_dirs = {posixpath.dirname(p) for p in paths if posixpath.basename(p) == "__init__.py"}
        roots = {posixpath.dirname(d) for d in package_dirs if posixpath.dirname(d) not in package_dirs}
        roots |= {"", "src", "lib"}
        layout = cls(paths, tuple(sorted(roots, key=lambda r: (r.count("/"), r))))
        if read_text is not None:
            layout._read_settings(read_text)
        return layout

    def _read_settings(self, read_text: Any) -> None:
        if "go.mod" in self.paths:
            for line in (read_text("go.mod") or "").splitlines():
                if line.startswith("module "):
                    self.go_module = line.split()[1].strip()
        for name in ("tsconfig.json", "jsconfig.json"):
            if name in self.paths:
                try:
                    options = json.loads(read_text(name) or "{}").get("compilerOptions", {})
                except (ValueError, AttributeError):
                    continue  # tsconfig allows comments; a file we cannot read resolves nothing extra
                self.ts_base = posixpath.normpath(options.get("baseUrl", ".")).lstrip("./")
                self.ts_paths = {k: list(v) for k, v in (options.get("paths") or {}).items()}

    def python_module(self, path: str) -> str:
        if not path.endswith((".py", ".pyi")):
            return ""
        for root in sorted(self.python_roots, key=len, reverse=True):
            prefix = f"{root}/" if root else ""
            if path.startswith(prefix):
                rel = path[len(prefix):].rsplit(".", 1)[0]
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


def module_name(path: str, language: str, layout: Layout) -> str:
    if language == "python":
        return layout.python_module(path)
    if language == "go":
        directory = posixpath.dirname(path)
        if layout.go_module:
            return f"{layout.go_module}/{directory}" if directory else layout.go_module
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
    """Module keys (order-independent: a module added later still resolves), then sibling files."""
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
    else:
        base = module
    out.extend(f"{MODULE_KEY}{base}.{name}" if base else f"{MODULE_KEY}{name}" for name in names)
    if base:
        out.append(f"{MODULE_KEY}{base}")
    if not imp.get("level"):  # a script importing a module that sits beside it
        own_dir = posixpath.dirname(path)
        out.extend(_python_files(posixpath.join(own_dir, module.replace(".", "/"))))
    return out


def _js(imp: dict[str, Any], path: str, layout: Layout) -> list[str]:
    spec = imp["module"]
    bases: list[str] = []
    if spec.startswith("."):
        bases.append(posixpath.normpath(posixpath.join(posixpath.dirname(path), spec)))
    else:
        for pattern, targets in layout.ts_paths.items():
            prefix = pattern.rstrip("*")
            if pattern.endswith("*") and spec.startswith(prefix) or spec == pattern:
                rest = spec[len(prefix):] if pattern.endswith("*") else ""
                for target in targets:
                    bases.append(posixpath.normpath(posixpath.join(layout.ts_base, target.replace("*", rest))))
        if layout.ts_base:
            bases.append(posixpath.normpath(posixpath.join(layout.ts_base, spec)))
    out: list[str] = []
    for base in bases:
        base = base.lstrip("./") if base.startswith("./") else base
        stem = base[:-3] if base.endswith((".js", ".jsx")) and not base.endswith(".d.ts") else base
        out.append(base)
        out.extend(stem + ext for ext in _JS_EXTENSIONS)
        out.extend(f"{base}/index{ext}" for ext in _JS_EXTENSIONS)
    return out


def _go(imp: dict[str, Any], layout: Layout) -> list[str]:
    spec = imp["module"]
    if layout.go_module and (spec == layout.go_module or spec.startswith(layout.go_module + "/")):
        directory = spec[len(layout.go_module):].strip("/")
        return sorted(p for p in layout.paths if posixpath.dirname(p) == directory
                      and p.endswith(".go") and not p.endswith("_test.go"))
    return []


def _java(imp: dict[str, Any], layout: Layout) -> list[str]:
    spec = imp["module"].removeprefix("static ").rstrip(".*")
    parts = spec.split(".")
    out = layout.ending_with("/".join(parts) + ".java")
    if len(parts) > 1:  # a static import names a member of the class
        out += layout.ending_with("/".join(parts[:-1]) + ".java")
    return out


def _include(imp: dict[str, Any], path: str, layout: Layout) -> list[str]:
    spec = imp["module"]
    local = posixpath.normpath(posixpath.join(posixpath.dirname(path), spec))
    return [local, spec, *layout.ending_with("/" + spec)]


def candidates(imp: dict[str, Any], path: str, language: str, layout: Layout) -> list[str]:
    """Repository files this import could refer to, most likely first, only ones that exist."""
    if language == "python":
        found = _python(imp, path, layout)
    elif language in _JS_LANGUAGES:
        found = _js(imp, path, layout)
    elif language == "go":
        found = _go(imp, layout)
    elif language == "java":
        found = _java(imp, layout)
    elif language in ("c", "cpp"):
        found = _include(imp, path, layout)
    elif language == "ruby":
        found = [f"{imp['module']}.rb", f"lib/{imp['module']}.rb",
                 posixpath.normpath(posixpath.join(posixpath.dirname(path), imp["module"] + ".rb"))]
    else:
        found = []
    if language == "python":  # module keys and sibling paths are resolved when read
        return [p for p in dict.fromkeys(found) if p != path]
    return [p for p in dict.fromkeys(found) if p in layout.paths and p != path]
