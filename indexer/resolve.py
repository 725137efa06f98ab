"""Module names of files, and the repository files an import could mean, best first.

Candidates are the files of the tree, as walked when the importing file was indexed, that the
import could mean; the `resolved_imports` view picks the first that is still indexed when read.
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


def _python_files(base: str) -> list[str]:
    return [f"{base}.py", f"{base}.pyi", f"{base}/__init__.py"]


def _python(imp: dict[str, Any], path: str, layout: Layout) -> list[str]:
    module = imp["module"].replace(".", "/")
    names = [n for n in imp.get("names", []) if n != "*"]
    if imp.get("level"):
        base = posixpath.dirname(path)
        for _ in range(imp["level"] - 1):
            base = posixpath.dirname(base)
        bases = [posixpath.join(base, module) if module else base]
    else:
        own_dir = posixpath.dirname(path)
        roots = list(layout.python_roots) + ([own_dir] if own_dir not in layout.python_roots else [])
        bases = [posixpath.join(root, module) if root else module for root in roots]
    out: list[str] = []
    for base in bases:
        for name in names:  # `from pkg import mod` may name a submodule
            out.extend(_python_files(posixpath.join(base, name.replace(".", "/"))))
        if base:
            out.extend(_python_files(base))
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
    return [p for p in dict.fromkeys(found) if p in layout.paths and p != path]
