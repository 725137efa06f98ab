"""The repository files a JavaScript or TypeScript import means, as the program reading the importer finds them.

A TypeScript file is read by the compiler: through its nearest tsconfig's `paths` and `baseUrl`; `./x.js` is x.ts
where there is one; a package.json by its `types` first and an `exports` map by the `types` condition and the
tsconfig's `customConditions`; a `.d.ts` describes a module as well as its code does. A JavaScript file is run by
Node: `require('./x')` loads x.js (never x.d.ts, which Node does not read), a package.json by its `main`, an
`exports` or `imports` map by the runtime conditions (`node`, `import` or `require`). Measured against
`ts.resolveModuleName` and Node's own resolution by bench/facts_imports_ts.py.

What neither finds until the project is installed and built is followed too: a package of the tree (a workspace) by
its package.json's `name`, a built file of it (`dist/index.js`, absent from the tree) read as its source
(`src/index.ts`); and a JavaScript file's bare specifiers through the nearest tsconfig's or jsconfig's `paths`, as
bundlers read them.
"""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass, field, replace
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
# `./x.js` written in TypeScript names x.ts when there is one (the compiler's rule for ES modules); `./x.ts` (with
# allowImportingTsExtensions) x.ts, else the declarations of it.
_TS_FOR_WRITTEN = {
    ".js": (".ts", ".tsx", ".d.ts"),
    ".jsx": (".tsx", ".d.ts"),
    ".mjs": (".mts", ".d.mts"),
    ".cjs": (".cts", ".d.cts"),
    ".ts": (".ts", ".d.ts"),
    ".tsx": (".tsx", ".d.ts"),
    ".mts": (".mts", ".d.mts"),
    ".cts": (".cts", ".d.cts"),
}
_RUNTIME = (".js", ".jsx", ".mjs", ".cjs")
_DECLARATIONS = (".d.ts", ".d.mts", ".d.cts")
_CODE = (*_TS_FOR_WRITTEN, ".json")


@dataclass
class TsConfig:
    """compilerOptions of one tsconfig.json and those it extends: `baseUrl` and `paths`.

    `base` is the folder `paths` targets are relative to: `baseUrl` when there is one, else the
    folder of the config that set `paths`; bare specifiers resolve from it only with a `baseUrl`.
    """

    base: str
    paths: dict[str, list[str]]
    base_url: bool = True
    conditions: tuple[str, ...] = ()  # `customConditions`: what the compiler matches in `exports` beside its own


@dataclass
class JsPackage:
    """A package of the tree by its package.json: its folder and what each subpath it exports (`.`, `./utils`,
    `./*`) maps to, relative to that folder: a path, fallbacks, or conditions (`{"import": ..., "types": ...}`),
    as written; without `exports`, `main` and the folder itself (its index file), and apart the fields a compiler
    or a bundler reads first (`types`, `typings`, `source`, `module`), which Node does not."""

    directory: str
    entries: dict[str, Any]
    exports: bool  # with `exports`, a subpath it does not list is not importable
    typed_entries: tuple[str, ...] = ()
    imports: dict[str, Any] = field(default_factory=dict)  # `#internal` -> its targets, as `exports` writes them


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
    # A config that sets neither is still the file's config: the compiler reads no other (an ancestor's paths
    # are not this one's).
    config = (_ts_merged(inherited, own) if own is not None else inherited) or TsConfig(directory, {}, False)
    custom = options.get("customConditions")
    if isinstance(custom, list):
        config = replace(config, conditions=tuple(c for c in custom if isinstance(c, str)))
    elif inherited is not None:
        config = replace(config, conditions=inherited.conditions)
    return config


def _ts_merged(parent: TsConfig | None, child: TsConfig | None) -> TsConfig | None:
    """A config over the one it extends: the child's `paths` replace the parent's, as in TypeScript;
    paths inherited under the child's new `baseUrl` resolve from it."""
    if parent is None or child is None:
        return child or parent
    if child.paths and not child.base_url and parent.base_url:  # own paths, inherited baseUrl
        return TsConfig(parent.base, child.paths, True, child.conditions)
    return child


def js_package(text: str, directory: str) -> tuple[str, JsPackage] | None:
    """A package.json's name ("" for none), its entry points and its `imports`."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    name, imports, exports = data.get("name"), data.get("imports"), data.get("exports")
    name = name if isinstance(name, str) else ""
    private = {k: v for k, v in imports.items() if k.startswith("#")} if isinstance(imports, dict) else {}
    typed: tuple[str, ...] = ()
    if isinstance(exports, dict) and any(str(k).startswith(".") for k in exports):
        entries = {key: value for key, value in exports.items() if key.startswith(".")}
    elif exports is not None:
        entries = {".": exports}
    else:
        entries = {".": [data["main"], "."] if isinstance(data.get("main"), str) else ["."]}
        fields = (data.get(f) for f in ("types", "typings", "source", "module"))
        typed = tuple(f for f in fields if isinstance(f, str))
    return name, JsPackage(directory, entries, exports is not None, typed, private)


def _targets(value: Any, conditions: frozenset[str]) -> list[str]:
    """The paths an `exports` or `imports` value gives a reader matching these conditions, as Node reads it: a
    path; each of a list's fallbacks; of conditions, the first (in the order written) that is `default` or one
    of the reader's and gives a path."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [t for item in value for t in _targets(item, conditions)]
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "default" or key in conditions:
                found = _targets(item, conditions)
                if found:
                    return found
    return []


def _substituted(value: Any, rest: str) -> Any:
    """A `*` pattern's value with what the `*` matched put in its paths."""
    if isinstance(value, str):
        return value.replace("*", rest)
    if isinstance(value, list):
        return [_substituted(v, rest) for v in value]
    if isinstance(value, dict):
        return {k: _substituted(v, rest) for k, v in value.items()}
    return value


_BUILT_DIRS = ("dist", "build", "lib", "out", "esm", "cjs")
_BUILT_SUFFIX = re.compile(r"\.(d\.ts|d\.mts|d\.cts|js|mjs|cjs)$")


def _package_targets(spec: str, layout: Layout, conditions: frozenset[str], typed: bool) -> list[str]:
    """A specifier naming a package of this tree (a workspace) or a folder holding a package.json: the files
    its package.json points a reader of these conditions at (the compiler, `typed`, or Node)."""
    parts = spec.split("/")
    cut = 2 if spec.startswith("@") else 1
    package = layout.js_packages.get("/".join(parts[:cut]))
    if package is None:
        return []
    subpath = "./" + "/".join(parts[cut:]) if parts[cut:] else "."
    targets = _targets(_matched(package.entries, subpath), conditions)
    if package.exports:  # an `exports` target is a path in the package, `./...`
        targets = [t for t in targets if t.startswith("./")]
    elif not targets:
        targets = [subpath]
    if typed and subpath == ".":
        targets = [*package.typed_entries, *targets]
    return _in_package(package.directory, targets, typed)


def _private_targets(spec: str, path: str, layout: Layout, conditions: frozenset[str], typed: bool) -> list[str]:
    """`#internal`: what the `imports` of the package.json nearest the importer map it to (a path in the package;
    one naming another package is not followed)."""
    found = layout.nearest(layout.js_imports, path)
    if found is None:
        return []
    targets = [t for t in _targets(_matched(found[1], spec), conditions) if t.startswith("./")]
    return _in_package(found[0], targets, typed)


def _matched(entries: dict[str, Any], subpath: str) -> Any:
    """What a subpath maps to in an `exports` or `imports` map: its own key, else the first `*` pattern's."""
    if subpath in entries:
        return entries[subpath]
    for key, value in entries.items():
        if "*" in key and (rest := _star(key, subpath)) is not None:
            return _substituted(value, rest)
    return None


def _star(pattern: str, text: str) -> str | None:
    """What the one `*` of a pattern (`@lib/*`, `./icons/*.js`) stands for in text (`@lib/http`: `http`); "" for
    text that is the pattern without one; None where it does not match (its prefix and suffix may not overlap)."""
    prefix, star, suffix = pattern.partition("*")
    if not star:
        return "" if text == pattern else None
    if text.startswith(prefix) and text.endswith(suffix) and len(text) >= len(prefix) + len(suffix):
        return text[len(prefix) : len(text) - len(suffix)]
    return None


def _in_package(directory: str, targets: list[str], typed: bool) -> list[str]:
    """Targets of a package.json as paths of the tree; a built file (`dist/index.js`, not in the tree) read as
    its source (`src/index.ts`) too. Node reads no declarations."""
    out = []
    for target in targets if typed else [t for t in targets if not t.endswith(_DECLARATIONS)]:
        out.append(target)
        first, _, rest = posixpath.normpath(target).partition("/")
        if first in _BUILT_DIRS and rest:
            out.append(_BUILT_SUFFIX.sub("", f"src/{rest}"))
    return [p for p in (inside(posixpath.join(directory, t)) for t in out) if p is not None]


def _conditions(imp: dict[str, Any], typed: bool, config: TsConfig | None) -> frozenset[str]:
    """What the reader matches in `exports` and `imports`: Node `node` and `require` or `import` by the statement;
    the compiler `types` too, and the tsconfig's `customConditions`."""
    statement = "require" if imp.get("kind") == "require" else "import"
    own = ("types", *(config.conditions if config is not None else ())) if typed else ("module-sync",)
    return frozenset(("node", statement, *own))


def js_candidates(imp: dict[str, Any], path: str, language: str, layout: Layout) -> list[str]:
    """Relative specifiers from the file; others through the nearest tsconfig's `paths` (and `baseUrl`), then
    `#internal` ones through the nearest package.json's `imports`, the rest through the package.json of a package
    of the tree that has the specifier's package name."""
    typed = language != "javascript"
    spec = imp["module"].split("?", 1)[0]
    found = layout.nearest(layout.ts_configs, path)
    config: TsConfig | None = found[1] if found is not None else None
    conditions = _conditions(imp, typed, config)
    bases: list[str | None] = []
    if spec.startswith("."):
        folder = inside(posixpath.join(posixpath.dirname(path), spec))
        # a folder with a package.json (`require('..')` in a package's tests): its entry point
        bases.extend(
            t
            for name, p in layout.js_packages.items()
            if p.directory == folder
            for t in _package_targets(name, layout, conditions, typed)
        )
        bases.append(folder)
    else:
        if config is not None:
            for pattern, targets in config.paths.items():
                if (rest := _star(pattern, spec)) is not None:
                    bases.extend(inside(posixpath.join(config.base, t.replace("*", rest))) for t in targets)
        if spec.startswith("#"):
            bases.extend(_private_targets(spec, path, layout, conditions, typed))
        else:
            if config is not None and config.base_url:
                bases.append(inside(posixpath.join(config.base, spec)))
            bases.extend(_package_targets(spec, layout, conditions, typed))
    return [p for base in bases if base is not None for p in _files_for(base, typed)]


def _files_for(base: str, typed: bool) -> list[str]:
    """The files a path written in an import may be, in the order the compiler (`typed`) or Node tries them:
    as written, with an extension, then as a folder's index file (the root's too: `require('..')`). The
    compiler reads `./Button.svelte` through its declarations (Button.svelte.d.ts) where there are some."""
    stem, dot, written = base.rpartition(".")
    extension = f".{written}" if dot and "/" not in written else ""
    order = _TS_ORDER if typed else _NODE_ORDER
    if not typed and base.endswith(_DECLARATIONS):
        return []
    out = []
    if typed:
        out += [stem + ext for ext in _TS_FOR_WRITTEN.get(extension, ())]  # `./x.js` for x.ts
        if extension and extension not in _CODE:
            out += [base + ".ts", base + ".d.ts", f"{stem}.d{extension}.ts"]
    out.append(base)
    if extension in _RUNTIME and not typed:
        out.extend(stem + ext for ext in _TS_ORDER if ext not in _DECLARATIONS)  # a bundler's: x.js for x.ts
    out.extend(base + ext for ext in order)
    out.extend(posixpath.join(base, f"index{ext}") for ext in order)
    return out
