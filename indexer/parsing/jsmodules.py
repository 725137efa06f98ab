"""The repository files a JavaScript or TypeScript import means, as the program reading the importer finds them.

A TypeScript file is read by the compiler: `./x.js` is x.ts where there is one, a folder's package.json is read
for its `types` first, and a `.d.ts` describes a module as well as its code does. A JavaScript file is run by Node:
`require('./x')` loads x.js (never x.d.ts, which Node does not read), a folder's package.json by its `main`, and
an `exports` map by its runtime conditions, not `types`. Measured against `ts.resolveModuleName` and Node's own
resolution by bench/facts_imports_ts.py.

Beyond what either reads without installing anything, two things a user's tree holds are followed: a `tsconfig`'s
`paths` and `baseUrl`, and a package of the tree (a workspace) named by its package.json's `name`, a built file of
it (`dist/index.js`, absent from the tree) read as its source (`src/index.ts`).
"""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .resolve import Layout

JS_LANGUAGES = frozenset({"javascript", "typescript", "tsx"})
TS_CONFIGS = ("tsconfig.json", "jsconfig.json")
_JSON_NOISE = re.compile(r'("(?:\\.|[^"\\])*")|//[^\n]*|/\*.*?\*/|,(\s*[}\]])', re.DOTALL)
# What the compiler tries after a specifier's stem (`./x`), and what Node does (then, for a bundler's sake,
# TypeScript's own files: a JavaScript file of a TypeScript project may import one). `.d.ts` is no code Node runs.
_TS_ORDER = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mts", ".cts", ".d.mts", ".d.cts", ".mjs", ".cjs")
_NODE_ORDER = (".js", ".json", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts")
# `./x.js` written in TypeScript names x.ts when there is one (the compiler's rule for ES modules).
_TS_FOR_RUNTIME = {".js": (".ts", ".tsx", ".d.ts"), ".jsx": (".tsx", ".d.ts"), ".mjs": (".mts", ".d.mts")}
_TS_FOR_RUNTIME[".cjs"] = (".cts", ".d.cts")
_DECLARATIONS = (".d.ts", ".d.mts", ".d.cts")


@dataclass
class TsConfig:
    """compilerOptions of one tsconfig.json and those it extends: `baseUrl` and `paths`.

    `base` is the folder `paths` targets are relative to: `baseUrl` when there is one, else the
    folder of the config that set `paths`; bare specifiers resolve from it only with a `baseUrl`.
    """

    base: str
    paths: dict[str, list[str]]
    base_url: bool = True


@dataclass
class JsPackage:
    """A package of the tree by its package.json: its folder, the targets of each subpath it exports (`.`,
    `./utils`, `./*`) relative to that folder in the order Node tries them, and without `exports` the
    `types` (or `typings`) the compiler reads before them."""

    directory: str
    entries: dict[str, list[str]]
    exports: bool  # with `exports`, a subpath it does not list is not importable
    types: tuple[str, ...] = ()
    imports: dict[str, list[str]] = field(default_factory=dict)  # `#internal` -> its targets, as `exports`'


def inside(path: str) -> str | None:
    """A repository-relative normalised path, or None when it leaves the repository."""
    norm = posixpath.normpath(path)
    if norm == ".":
        return ""
    if norm.startswith("../") or norm == ".." or norm.startswith("/"):
        return None
    return norm


def loose_json(text: str) -> Any:
    """JSON as tsconfig writes it: with comments and trailing commas."""
    return json.loads(_JSON_NOISE.sub(lambda m: m.group(1) or m.group(2) or "", text))


MAX_TS_EXTENDS = 8  # a chain of `extends` longer than this is cut (and a cycle stops there)


def ts_config(path: str, read_text: Any, depth: int = 0) -> TsConfig | None:
    """A tsconfig's `baseUrl` and `paths`, over those of the configs it `extends` by relative path
    (a config from a package, `@tsconfig/node20`, is not in the tree). Each is relative to the
    config that sets it, as TypeScript reads them."""
    directory = posixpath.dirname(path)
    try:
        data = loose_json(read_text(path) or "")
        options = data.get("compilerOptions") or {}
    except (ValueError, AttributeError):
        return None  # a file we cannot read resolves nothing extra
    if not isinstance(options, dict):
        return None
    inherited: TsConfig | None = None
    extends = data.get("extends")
    for parent in [extends] if isinstance(extends, str) else extends if isinstance(extends, list) else []:
        if isinstance(parent, str) and parent.startswith(".") and depth < MAX_TS_EXTENDS:
            target = inside(posixpath.join(directory, parent))
            if target is not None:
                found = ts_config(target if target.endswith(".json") else f"{target}.json", read_text, depth + 1)
                inherited = _ts_merged(inherited, found) if found is not None else inherited
    base = options.get("baseUrl")
    paths = options.get("paths")
    own = None
    if isinstance(base, str) or isinstance(paths, dict):
        base_dir = inside(posixpath.join(directory, base)) if isinstance(base, str) else None
        patterns = {k: [t for t in v if isinstance(t, str)] for k, v in (paths or {}).items() if isinstance(v, list)}
        own = TsConfig(base_dir if base_dir is not None else directory, patterns, base_dir is not None)
        if not isinstance(paths, dict) and inherited is not None:  # a new baseUrl: the inherited paths move with it
            own.paths = inherited.paths
    return _ts_merged(inherited, own) if own is not None else inherited


def _ts_merged(parent: TsConfig | None, child: TsConfig | None) -> TsConfig | None:
    """A config over the one it extends: the child's `paths` replace the parent's, as in TypeScript;
    paths inherited under the child's new `baseUrl` resolve from it."""
    if parent is None or child is None:
        return child or parent
    if child.paths and not child.base_url and parent.base_url:  # own paths, inherited baseUrl
        return TsConfig(parent.base, child.paths, True)
    return child


def js_package(text: str, directory: str) -> tuple[str, JsPackage] | None:
    """A package.json's name ("" for none) and entry points: `exports` when it has them, else `source`, `module`,
    `main` and the folder itself (its index file), with `types` and `typings` apart; and its `imports`."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    name, imports = data.get("name"), data.get("imports")
    name = name if isinstance(name, str) else ""
    subpaths = {k: _export_targets(v) for k, v in (imports if isinstance(imports, dict) else {}).items()}
    subpaths = {key: targets for key, targets in subpaths.items() if key.startswith("#")}
    exports = data.get("exports")
    types: tuple[str, ...] = ()
    if isinstance(exports, dict) and any(str(k).startswith(".") for k in exports):
        entries = {key: _export_targets(value) for key, value in exports.items() if key.startswith(".")}
    elif exports is not None:
        entries = {".": _export_targets(exports)}
    else:
        fields = [data.get(f) for f in ("source", "module", "main")]
        entries = {".": [f for f in fields if isinstance(f, str)] + ["."]}
        types = tuple(t for t in (data.get("types"), data.get("typings")) if isinstance(t, str))
    return name, JsPackage(directory, entries, exports is not None, types, subpaths)


def _export_targets(value: Any) -> list[str]:
    """The paths of one `exports` entry, through its conditions in the order written (Node's order)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [t for item in value for t in _export_targets(item)]
    if isinstance(value, dict):
        return [t for item in value.values() for t in _export_targets(item)]
    return []


_BUILT_DIRS = ("dist", "build", "lib", "out", "esm", "cjs")
_BUILT_SUFFIX = re.compile(r"\.(d\.ts|d\.mts|d\.cts|js|mjs|cjs)$")


def _package_targets(spec: str, layout: Layout, typed: bool) -> list[str]:
    """A specifier naming a package of this tree (a workspace) or a folder holding a package.json: the files
    its package.json points the compiler (`typed`) or Node at."""
    parts = spec.split("/")
    cut = 2 if spec.startswith("@") else 1
    package = layout.js_packages.get("/".join(parts[:cut]))
    if package is None:
        return []
    subpath = "./" + "/".join(parts[cut:]) if parts[cut:] else "."
    targets = _matched(package.entries, subpath)
    if not targets and not package.exports:
        targets = [subpath]
    if typed and subpath == ".":
        targets = [*package.types, *targets]
    return _in_package(package.directory, targets, typed)


def _private_targets(spec: str, path: str, layout: Layout, typed: bool) -> list[str]:
    """`#internal`: what the `imports` of the package.json nearest the importer map it to."""
    found = layout.nearest(layout.js_imports, path)
    return _in_package(found[0], _matched(found[1], spec), typed) if found is not None else []


def _matched(entries: dict[str, list[str]], subpath: str) -> list[str]:
    """The targets of a subpath in an `exports` or `imports` map: its own key, else the first `*` pattern."""
    if subpath in entries:
        return entries[subpath]
    for key, values in entries.items():
        prefix, star, suffix = key.partition("*")
        if star and subpath.startswith(prefix) and subpath.endswith(suffix):
            rest = subpath[len(prefix) : len(subpath) - len(suffix)]
            return [v.replace("*", rest) for v in values]
    return []


def _in_package(directory: str, targets: list[str], typed: bool) -> list[str]:
    """Targets of a package.json as paths of the tree; a built file (`dist/index.js`, not in the tree) read as
    its source (`src/index.ts`) too. Node skips a `types` condition's declarations."""
    out = []
    for target in targets if typed else [t for t in targets if not t.endswith(_DECLARATIONS)]:
        out.append(target)
        first, _, rest = posixpath.normpath(target).partition("/")
        if first in _BUILT_DIRS and rest:
            out.append(_BUILT_SUFFIX.sub("", f"src/{rest}"))
    return [p for p in (inside(posixpath.join(directory, t)) for t in out) if p is not None]


def js_candidates(imp: dict[str, Any], path: str, language: str, layout: Layout) -> list[str]:
    """Relative specifiers from the file, `#internal` ones through the nearest package.json's `imports`; others
    through the nearest tsconfig's `paths` and `baseUrl`, then the package.json of a package of the tree that
    has the specifier's package name."""
    typed = language != "javascript"
    spec = imp["module"].split("?", 1)[0]
    bases: list[str | None] = []
    if spec.startswith("."):
        folder = inside(posixpath.join(posixpath.dirname(path), spec))
        # a folder with a package.json (`require('..')` in a package's tests): its entry point
        bases.extend(
            t
            for name, p in layout.js_packages.items()
            if p.directory == folder
            for t in _package_targets(name, layout, typed)
        )
        bases.append(folder)
    elif spec.startswith("#"):
        bases.extend(_private_targets(spec, path, layout, typed))
    else:
        found = layout.nearest(layout.ts_configs, path)
        if found is not None:
            config: TsConfig = found[1]
            for pattern, targets in config.paths.items():
                prefix, star, suffix = pattern.partition("*")
                if (
                    star
                    and spec.startswith(prefix)
                    and spec.endswith(suffix)
                    and len(spec) >= len(prefix) + len(suffix)
                ):
                    rest = spec[len(prefix) : len(spec) - len(suffix)]
                elif not star and spec == pattern:
                    rest = ""
                else:
                    continue
                bases.extend(inside(posixpath.join(config.base, t.replace("*", rest))) for t in targets)
            if config.base_url:
                bases.append(inside(posixpath.join(config.base, spec)))
        bases.extend(_package_targets(spec, layout, typed))
    return [p for base in bases if base is not None for p in _files_for(base, typed)]


def _files_for(base: str, typed: bool) -> list[str]:
    """The files a path written in an import may be, in the order the compiler (`typed`) or Node tries them:
    as written, with an extension, then as a folder's index file (the root's too: `require('..')`)."""
    stem, dot, written = base.rpartition(".")
    extension = f".{written}" if dot and "/" not in written else ""
    order = _TS_ORDER if typed else _NODE_ORDER
    out = [stem + ext for ext in _TS_FOR_RUNTIME.get(extension, ())] if typed else []  # `./x.js` for x.ts
    if not typed and base.endswith(_DECLARATIONS):
        return []
    out.append(base)
    if extension in _TS_FOR_RUNTIME and not typed:
        out.extend(stem + ext for ext in _TS_ORDER if ext not in _DECLARATIONS)  # a bundler's: x.js for x.ts
    out.extend(base + ext for ext in order)
    out.extend(posixpath.join(base, f"index{ext}") for ext in order)
    return out
