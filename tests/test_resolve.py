"""Import resolution: JS/TS (extensions, index files, tsconfig paths), Go packages, Java packages,
C includes, Ruby and Rust; only files of the tree are candidates. Then end to end through
index_tree: the resolved_imports edges of a small multi-language repository."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from codeannals.indexer.parsing.resolve import Layout, candidates, module_name
from codeannals.indexer.run import index_tree
from codeannals.store import lookups, open_store, queries
from codeannals.store.maintenance import verify


def imp(module: str, names: list[str] | None = None, kind: str = "import") -> dict[str, Any]:
    return {"module": module, "names": names or [], "kind": kind, "level": 0, "line": 1}


def layout(paths: list[str], files: dict[str, str] | None = None) -> Layout:
    files = files or {}
    return Layout.of(paths + list(files), lambda rel: files.get(rel))


def test_js_relative_imports_probe_extensions_and_index_files() -> None:
    tree = layout(
        ["src/app.ts", "src/util.ts", "src/components/index.tsx", "lib/log.ts", "src/legacy.js", "src/types.d.ts"]
    )
    assert candidates(imp("./util"), "src/app.ts", "typescript", tree) == ["src/util.ts"]
    assert candidates(imp("./components"), "src/app.ts", "typescript", tree) == ["src/components/index.tsx"]
    assert candidates(imp("../lib/log.js"), "src/app.ts", "typescript", tree) == ["lib/log.ts"]  # ESM-style TS
    assert candidates(imp("./legacy.js"), "src/app.ts", "javascript", tree) == ["src/legacy.js"]
    assert candidates(imp("./types"), "src/app.ts", "typescript", tree) == ["src/types.d.ts"]
    assert candidates(imp("./missing"), "src/app.ts", "typescript", tree) == []
    assert candidates(imp("../../outside"), "src/app.ts", "typescript", tree) == []
    assert candidates(imp("react"), "src/app.ts", "typescript", tree) == []  # a package: external


def test_a_folder_import_takes_its_package_entry_then_its_index_the_root_too() -> None:
    """`require('..')` in a package's tests (express's test/res.send.js), `require('.')` and `require('../')`:
    the folder's package.json entry point as Node reads it, else its index file, the top folder included."""
    root_index = layout(["index.js", "lib/express.js", "test/res.send.js", "test/acceptance/routes.js"])
    assert candidates(imp(".."), "test/res.send.js", "javascript", root_index) == ["index.js"]
    assert candidates(imp("../"), "test/res.send.js", "javascript", root_index) == ["index.js"]
    assert candidates(imp("../.."), "test/acceptance/routes.js", "javascript", root_index) == ["index.js"]
    assert candidates(imp("."), "lib/express.js", "javascript", root_index) == []  # lib/ has no index
    main = layout(["index.js", "lib/main.js", "test/a.js"], {"package.json": '{"name": "p", "main": "lib/main.js"}'})
    assert candidates(imp(".."), "test/a.js", "javascript", main)[0] == "lib/main.js"  # Node reads main first


def test_tsconfig_paths_and_base_url_with_comments_and_trailing_commas() -> None:
    tsconfig = """{
      // paths are relative to baseUrl
      "compilerOptions": {
        "baseUrl": "./src",
        "paths": { "@lib/*": ["lib/*", "vendor/*"], "@config": ["config/index.ts"], },
      },
    }"""
    tree = layout(
        ["src/app.ts", "src/lib/http.ts", "src/vendor/dates.ts", "src/config/index.ts", "src/shared.ts"],
        {"tsconfig.json": tsconfig},
    )
    assert candidates(imp("@lib/http"), "src/app.ts", "typescript", tree) == ["src/lib/http.ts"]
    assert candidates(imp("@lib/dates"), "src/app.ts", "typescript", tree) == ["src/vendor/dates.ts"]
    assert candidates(imp("@config"), "src/app.ts", "typescript", tree) == ["src/config/index.ts"]
    assert candidates(imp("shared"), "src/app.ts", "typescript", tree) == ["src/shared.ts"]  # from baseUrl


def test_the_nearest_tsconfig_applies() -> None:
    web = '{"compilerOptions": {"paths": {"~/*": ["./app/*"]}}}'
    api = '{"compilerOptions": {"baseUrl": "src"}}'
    tree = layout(
        ["packages/web/app/page.ts", "packages/web/app/nav.ts", "packages/api/src/db.ts", "packages/api/src/main.ts"],
        {"packages/web/tsconfig.json": web, "packages/api/tsconfig.json": api},
    )
    assert candidates(imp("~/nav"), "packages/web/app/page.ts", "typescript", tree) == ["packages/web/app/nav.ts"]
    assert candidates(imp("db"), "packages/api/src/main.ts", "typescript", tree) == ["packages/api/src/db.ts"]
    assert candidates(imp("~/nav"), "packages/api/src/main.ts", "typescript", tree) == []


def test_tsconfig_extends_a_base_config_as_in_an_nx_workspace() -> None:
    base = '{"compilerOptions": {"baseUrl": ".", "paths": {"@org/ui": ["libs/ui/src/index.ts"]}}}'
    web = '{"extends": "../../tsconfig.base.json", "compilerOptions": {"jsx": "react-jsx"}}'
    api = '{"extends": "../../tsconfig.base", "compilerOptions": {"paths": {"~/*": ["./src/*"]}}}'
    tree = layout(
        [
            "libs/ui/src/index.ts",
            "apps/web/src/main.ts",
            "apps/api/src/db.ts",
            "apps/api/src/main.ts",
            "apps/api/lodash.ts",
            "tsconfig.base.json",
        ],
        {
            "tsconfig.base.json": base,
            "apps/web/tsconfig.json": web,
            "apps/api/tsconfig.json": api,
            "apps/cli/tsconfig.json": '{"compilerOptions": {"paths": {"~/*": ["./src/*"]}}}',
        },
    )
    assert candidates(imp("@org/ui"), "apps/web/src/main.ts", "typescript", tree) == ["libs/ui/src/index.ts"]
    # Its own paths replace the base's and, with the base's baseUrl, resolve from the top.
    assert candidates(imp("@org/ui"), "apps/api/src/main.ts", "typescript", tree) == []
    assert candidates(imp("~/db"), "apps/api/src/main.ts", "typescript", tree) == []
    assert candidates(imp("apps/api/src/db"), "apps/api/src/main.ts", "typescript", tree) == ["apps/api/src/db.ts"]


def test_without_base_url_a_bare_specifier_is_a_package_not_a_file() -> None:
    tree = layout(
        ["apps/cli/src/main.ts", "apps/cli/src/db.ts", "apps/cli/lodash.ts"],
        {"apps/cli/tsconfig.json": '{"compilerOptions": {"paths": {"~/*": ["./src/*"]}}}'},
    )
    assert candidates(imp("~/db"), "apps/cli/src/main.ts", "typescript", tree) == ["apps/cli/src/db.ts"]
    assert candidates(imp("lodash"), "apps/cli/src/main.ts", "typescript", tree) == []


def test_workspace_packages_resolve_through_their_package_json() -> None:
    ui = """{"name": "@acme/ui", "exports": {
        ".": {"types": "./dist/index.d.ts", "import": "./dist/index.js"},
        "./button": "./src/button.tsx", "./icons/*": "./src/icons/*.tsx"}}"""
    tree = layout(
        [
            "packages/ui/src/index.ts",
            "packages/ui/src/button.tsx",
            "packages/ui/src/icons/star.tsx",
            "packages/ui/src/internal.ts",
            "packages/util/lib/index.js",
            "packages/util/format.js",
            "apps/web/page.ts",
        ],
        {
            "packages/ui/package.json": ui,
            "packages/util/package.json": '{"name": "util-lib", "main": "lib/index.js"}',
            "node_modules/react/package.json": '{"name": "react", "main": "index.js"}',
        },
    )
    page = "apps/web/page.ts"
    assert candidates(imp("@acme/ui"), page, "typescript", tree) == ["packages/ui/src/index.ts"]  # dist/ is built
    assert candidates(imp("@acme/ui/button"), page, "typescript", tree) == ["packages/ui/src/button.tsx"]
    assert candidates(imp("@acme/ui/icons/star"), page, "typescript", tree) == ["packages/ui/src/icons/star.tsx"]
    assert candidates(imp("@acme/ui/src/internal"), page, "typescript", tree) == []  # not exported
    assert candidates(imp("util-lib"), page, "javascript", tree) == ["packages/util/lib/index.js"]
    assert candidates(imp("util-lib/format"), page, "javascript", tree) == ["packages/util/format.js"]
    assert candidates(imp("react"), page, "typescript", tree) == []


def test_a_javascript_file_imports_what_node_loads_a_typescript_file_what_the_compiler_reads() -> None:
    """Measured against Node and `ts.resolveModuleName` (bench/facts_imports_ts.py): Node never reads a `.d.ts`;
    the compiler reads `./x.js` as x.ts or x.d.ts where there is one, and a folder's package.json `types` first."""
    tree = layout(
        ["pino.js", "pino.d.ts", "file.js", "test/types.ts", "lib/util.js", "lib/util.d.ts", "lib/util.ts"],
        {"package.json": '{"name": "pino", "main": "pino.js", "types": "pino.d.ts"}'},
    )
    assert candidates(imp("./pino"), "file.js", "javascript", tree)[0] == "pino.js"
    assert candidates(imp("./pino.js"), "test/types.ts", "typescript", tree) == []  # not beside it
    assert candidates(imp("../pino.js"), "test/types.ts", "typescript", tree)[0] == "pino.d.ts"
    assert candidates(imp(".."), "test/types.ts", "typescript", tree)[0] == "pino.d.ts"
    assert candidates(imp(".."), "test/types.ts", "javascript", tree)[0] == "pino.js"
    assert candidates(imp("../lib/util.js"), "test/types.ts", "typescript", tree)[0] == "lib/util.ts"
    assert candidates(imp("./lib/util"), "file.js", "javascript", tree)[0] == "lib/util.js"
    assert "lib/util.d.ts" not in candidates(imp("./lib/util"), "file.js", "javascript", tree)


def test_node_skips_an_exports_maps_types_and_private_imports_map_through_the_nearest_package_json() -> None:
    axios = """{"name": "axios", "main": "index.js", "exports": {
        ".": {"types": {"require": "./index.d.cts", "default": "./index.d.ts"}, "default": "./index.js"}},
        "imports": {"#platform/*": "./lib/platform/node/*.js", "#env": {"node": "./lib/env/node.js"}}}"""
    tree = layout(
        ["index.js", "index.d.ts", "index.d.cts", "lib/platform/node/classes.js", "lib/env/node.js", "lib/core.js"],
        {"package.json": axios},
    )
    assert candidates(imp("axios"), "lib/core.js", "javascript", tree) == ["index.js"]
    assert candidates(imp("axios"), "lib/core.ts", "typescript", tree)[0] == "index.d.ts"  # the first condition met
    assert candidates(imp("axios", kind="require"), "lib/core.cts", "typescript", tree)[0] == "index.d.cts"
    assert candidates(imp("#platform/classes"), "lib/core.js", "javascript", tree) == ["lib/platform/node/classes.js"]
    assert candidates(imp("#env"), "lib/core.js", "javascript", tree) == ["lib/env/node.js"]
    assert candidates(imp("#missing"), "lib/core.js", "javascript", tree) == []


def test_monorepo_settings_as_the_compiler_and_node_read_them() -> None:
    """What TanStack/query, vitest, SvelteKit and vite showed (bench/facts_imports_ts.py): the nearest tsconfig is
    the file's even when it sets no `paths` (an ancestor's are not its); `customConditions` pick an `exports`
    entry; `#x` goes through tsconfig `paths` first; an `exports` target not starting `./` is none; Node reads
    `main`, not `module`; `./x.ts` and `./Button.svelte` through their declarations."""
    root = '{"compilerOptions": {"baseUrl": ".", "paths": {"$app/*": ["app/*"], "#src/*": ["src/*"]}}}'
    kit = '{"compilerOptions": {"strict": true, "customConditions": ["@kit/source"]}}'
    pkg = """{"name": "@kit/core", "main": "dist/index.js", "module": "esm/index.js", "exports": {
        ".": {"@kit/source": "./src/index.ts", "types": "./dist/index.d.ts", "import": "./dist/index.js"},
        "./bad": "dist/bad.js"}}"""
    legacy = '{"name": "legacy", "main": "index.js", "module": "index-es.js"}'
    tree = layout(
        [
            "app/server.ts",
            "src/createNode.ts",
            "test/dom.test.ts",
            "packages/kit/src/index.ts",
            "packages/kit/test/a.ts",
            "packages/kit/src/bad.ts",
            "packages/legacy/index.js",
            "packages/legacy/index-es.js",
            "packages/ui/aria.d.ts",
            "packages/ui/jest.d.ts",
            "packages/ui/Button.svelte",
            "packages/ui/Button.svelte.d.ts",
            "use.js",
        ],
        {
            "tsconfig.json": root,
            "packages/kit/tsconfig.json": kit,
            "packages/kit/package.json": pkg,
            "packages/legacy/package.json": legacy,
        },
    )
    assert candidates(imp("$app/server"), "test/dom.test.ts", "typescript", tree) == ["app/server.ts"]
    assert candidates(imp("#src/createNode"), "test/dom.test.ts", "typescript", tree) == ["src/createNode.ts"]
    assert candidates(imp("$app/server"), "packages/kit/test/a.ts", "typescript", tree) == []  # not its config's
    assert candidates(imp("@kit/core"), "packages/kit/test/a.ts", "typescript", tree)[0] == "packages/kit/src/index.ts"
    assert candidates(imp("@kit/core/bad"), "packages/kit/test/a.ts", "typescript", tree) == []
    assert candidates(imp("legacy"), "use.js", "javascript", tree)[0] == "packages/legacy/index.js"
    assert candidates(imp("./aria.ts"), "packages/ui/jest.d.ts", "typescript", tree) == ["packages/ui/aria.d.ts"]
    assert candidates(imp("./Button.svelte"), "packages/ui/jest.d.ts", "typescript", tree)[0] == (
        "packages/ui/Button.svelte.d.ts"
    )
    assert candidates(imp("./Button.svelte"), "use.js", "javascript", tree) == []  # not beside it


def test_a_module_typescript_augments_is_a_dependency() -> None:
    """`declare module "vitest/browser" { ... }` adds to that module: the file depends on it (vitest's commands)."""
    from codeannals.indexer.parsing.extract import extract

    source = b'declare module "@acme/ui/button" {\n  interface ButtonProps { size: number }\n}\n'
    (augment,) = extract("src/ui.d.ts", source, "typescript").imports
    assert (augment["module"], augment["kind"]) == ("@acme/ui/button", "augment")
    tree = layout(
        ["packages/ui/src/button.tsx", "src/ui.d.ts"],
        {"packages/ui/package.json": '{"name": "@acme/ui", "exports": {"./button": "./src/button.tsx"}}'},
    )
    assert candidates(augment, "src/ui.d.ts", "typescript", tree) == ["packages/ui/src/button.tsx"]


def test_go_imports_name_the_package_directory_of_their_module() -> None:
    tree = layout(
        [
            "main.go",
            "internal/store/store.go",
            "internal/store/rows.go",
            "internal/store/store_test.go",
            "internal/store/sub/deep.go",
            "tools/gen/gen.go",
        ],
        {"go.mod": "module example.com/app\n\ngo 1.22\n", "tools/go.mod": "module example.com/tools\n"},
    )
    assert candidates(imp("example.com/app/internal/store"), "main.go", "go", tree) == [
        "internal/store/rows.go",
        "internal/store/store.go",
    ]  # not its tests, not its subpackages
    assert candidates(imp("example.com/tools/gen"), "main.go", "go", tree) == ["tools/gen/gen.go"]
    assert candidates(imp("github.com/other/lib"), "main.go", "go", tree) == []
    assert candidates(imp("fmt"), "main.go", "go", tree) == []
    assert module_name("internal/store/rows.go", "go", tree) == "example.com/app/internal/store"
    assert module_name("tools/gen/gen.go", "go", tree) == "example.com/tools/gen"


def test_java_imports_find_classes_by_package_path() -> None:
    tree = layout(
        [
            "src/main/java/com/acme/geo/Shape.java",
            "src/main/java/com/acme/util/Format.java",
            "src/main/java/com/acme/util/Strings.java",
            "src/main/java/com/acme/App.java",
        ]
    )
    app = "src/main/java/com/acme/App.java"
    assert candidates(imp("com.acme.geo.Shape", ["Shape"]), app, "java", tree) == [
        "src/main/java/com/acme/geo/Shape.java"
    ]
    assert candidates(imp("com.acme.util", ["*"]), app, "java", tree) == [
        "src/main/java/com/acme/util/Format.java",
        "src/main/java/com/acme/util/Strings.java",
    ]
    assert candidates(imp("com.acme.util.Format.pad", ["pad"], "static"), app, "java", tree) == [
        "src/main/java/com/acme/util/Format.java"
    ]
    assert candidates(imp("com.acme.geo.Shape.Kind", ["Kind"]), app, "java", tree) == [
        "src/main/java/com/acme/geo/Shape.java"
    ]  # a nested class lives in its outer class's file
    assert candidates(imp("java.util.List", ["List"]), app, "java", tree) == []


def test_a_java_class_of_the_files_own_package_is_a_dependency_without_an_import(repo: Any, db_path: Path) -> None:
    """Java needs no import for a class of the file's own package (gson's JsonParserTest uses JsonParser so); a
    class-like name no file of the package holds (java.lang's String) is no dependency and no external module."""
    main, test = "src/main/java/com/acme/geo", "src/test/java/com/acme/geo"
    repo.write(
        f"{main}/Parser.java",
        "package com.acme.geo;\n\npublic final class Parser {\n"
        "  public static Shape parse(String text) { return new Shape(text.length()); }\n}\n",
    )
    repo.write(f"{main}/Shape.java", "package com.acme.geo;\n\npublic class Shape {\n  Shape(int n) {}\n}\n")
    repo.write(
        f"{test}/ParserTest.java",
        "package com.acme.geo;\n\nimport org.junit.Test;\n\n"
        'public class ParserTest {\n  @Test\n  public void parses() { Parser.parse("[]"); }\n}\n',
    )
    conn = open_store(db_path)
    try:
        index_tree(repo.root, conn)
        assert lookups.dependents(conn, f"{main}/Parser.java") == [f"{test}/ParserTest.java"]
        assert [(d["kind"], d["target"]) for d in lookups.dependencies(conn, f"{main}/Parser.java")] == [
            ("file", f"{main}/Shape.java")
        ]
        assert [(d["kind"], d["target"]) for d in lookups.dependencies(conn, f"{test}/ParserTest.java")] == [
            ("external", "org.junit.Test"),
            ("file", f"{main}/Parser.java"),
        ]
    finally:
        conn.close()


def test_c_includes_resolve_beside_the_file_then_by_path() -> None:
    tree = layout(["src/shape.c", "src/shape.h", "include/geo/point.h", "include/config.h", "src/stdio.h"])
    assert candidates(imp("shape.h", kind="include"), "src/shape.c", "c", tree) == ["src/shape.h"]
    assert candidates(imp("geo/point.h", kind="include"), "src/shape.c", "c", tree) == ["include/geo/point.h"]
    assert candidates(imp("../include/geo/point.h", kind="include"), "src/shape.c", "cpp", tree) == [
        "include/geo/point.h"
    ]
    assert candidates(imp("stdio.h", kind="system"), "src/shape.c", "c", tree) == []  # <stdio.h> is no sibling
    assert candidates(imp("config.h", kind="system"), "src/shape.c", "c", tree) == ["include/config.h"]
    assert candidates(imp("geo/point.h", kind="system"), "src/shape.c", "c", tree) == ["include/geo/point.h"]


def test_a_system_include_of_a_header_at_the_top_is_the_projects_as_gcc_finds_it_through_its_include_path() -> None:
    """hiredis's examples write `<hiredis.h>` for its top-level header (`-I .`); libuv's `<errno.h>` is the
    system's, not include/uv/errno.h (bench/facts_imports_c.py)."""
    tree = layout(["hiredis.h", "examples/example.c", "include/uv/errno.h", "src/unix/core.c"])
    assert candidates(imp("hiredis.h", kind="system"), "examples/example.c", "c", tree) == ["hiredis.h"]
    assert candidates(imp("errno.h", kind="system"), "src/unix/core.c", "c", tree) == []


def test_ruby_and_rust_files() -> None:
    tree = layout(
        [
            "lib/geo/shape.rb",
            "lib/geo/units.rb",
            "app/main.rb",
            "src/lib.rs",
            "src/units.rs",
            "src/shapes/mod.rs",
            "src/shapes/circle.rs",
        ]
    )
    assert candidates(imp("units", kind="require_relative"), "lib/geo/shape.rb", "ruby", tree) == ["lib/geo/units.rb"]
    assert candidates(imp("geo/shape", kind="require"), "app/main.rb", "ruby", tree) == ["lib/geo/shape.rb"]
    assert candidates(imp("json", kind="require"), "app/main.rb", "ruby", tree) == []
    assert candidates(imp("units", kind="mod"), "src/lib.rs", "rust", tree) == ["src/units.rs"]
    assert candidates(imp("circle", kind="mod"), "src/shapes/mod.rs", "rust", tree) == ["src/shapes/circle.rs"]
    assert candidates(imp("crate::shapes::circle", ["Circle"], "use"), "src/lib.rs", "rust", tree) == [
        "src/shapes/circle.rs",
        "src/shapes/mod.rs",
        "src/lib.rs",  # an inline `mod shapes { }` of the crate root, last
    ]
    assert candidates(imp("std::collections", ["HashMap"], "use"), "src/lib.rs", "rust", tree) == []


def test_a_ruby_test_requires_from_its_test_folder_after_lib() -> None:
    """`rake test` and RSpec put test/ (spec/) on the load path after lib/: `require "test_helper"`."""
    tree = layout(["lib/geo.rb", "test/test_helper.rb", "test/geo/area_test.rb", "gems/b/spec/spec_helper.rb"])
    assert candidates(imp("test_helper", kind="require"), "test/geo/area_test.rb", "ruby", tree) == [
        "test/test_helper.rb"
    ]
    assert candidates(imp("geo", kind="require"), "test/geo/area_test.rb", "ruby", tree) == ["lib/geo.rb"]
    assert candidates(imp("test_helper", kind="require"), "lib/geo.rb", "ruby", tree) == []  # not from lib/
    assert candidates(imp("spec_helper", kind="require"), "gems/b/spec/x_spec.rb", "ruby", tree) == [
        "gems/b/spec/spec_helper.rb"
    ]


def test_ruby_paths_built_from_the_files_own_place_resolve_as_require_relative(repo: Any, db_path: Path) -> None:
    """`require File.expand_path("../helper", __FILE__)` (rake's tests) is relative to the file itself; with
    `__dir__` or `File.dirname(__FILE__)` to its folder. A path only running the code knows is no import."""
    repo.write("test/helper.rb", "module Helper; end\n")
    repo.write("test/webrick/helper.rb", "module WebrickHelper; end\n")
    repo.write("test/webrick/utils.rb", "module Utils; end\n")
    repo.write(
        "test/webrick/test_proxy.rb",
        'require File.expand_path("../helper", __FILE__)\n'
        'require File.expand_path("utils.rb", File.dirname(__FILE__))\n'
        'require File.join(__dir__, "..", "helper")\n'
        "require File.expand_path(test_rb)\n",
    )
    repo.commit("ruby tests")
    conn = open_store(db_path)
    index_tree(repo.root, conn)
    rows = conn.execute("SELECT module, target FROM resolved_imports WHERE path = 'test/webrick/test_proxy.rb'")
    assert [tuple(r) for r in rows] == [
        ("helper", "test/webrick/helper.rb"),  # `..` of the file itself is its folder
        ("utils.rb", "test/webrick/utils.rb"),
        ("../helper", "test/helper.rb"),
    ]
    conn.close()


def test_rust_paths_name_the_crate_by_its_name_its_root_and_the_files_own_items() -> None:
    """An item of the crate root is in lib.rs (`crate::add`); an integration test names the crate by its name in
    Cargo.toml (`-` read as `_`); `self::*` (how `use super::*` inside `mod tests { }` is recorded) is the
    file's own items; `super::` from a module file is its parent module's file."""
    tree = layout(
        ["src/lib.rs", "src/shapes/mod.rs", "src/shapes/circle.rs", "tests/area.rs"],
        {"Cargo.toml": '[package]\nname = "geo-calc"\nversion = "0.1.0"\n\n[dependencies]\nname = "not-this"\n'},
    )
    assert candidates(imp("crate", ["add"], "use"), "src/shapes/circle.rs", "rust", tree) == ["src/lib.rs"]
    assert candidates(imp("geo_calc", ["add"], "use"), "tests/area.rs", "rust", tree) == ["src/lib.rs"]
    assert candidates(imp("geo_calc::shapes", ["Circle"], "use"), "tests/area.rs", "rust", tree) == [
        "src/shapes/mod.rs",
        "src/lib.rs",
    ]
    assert candidates(imp("self", ["*"], "use"), "src/shapes/circle.rs", "rust", tree) == ["src/shapes/circle.rs"]
    assert candidates(imp("super", ["Shape"], "use"), "src/shapes/circle.rs", "rust", tree)[0] == "src/shapes/mod.rs"
    assert candidates(imp("geo_calc", ["add"], "use"), "tests/area.rs", "rust", layout(["src/lib.rs"])) == []


def test_a_rust_use_of_one_module_is_that_modules_file_and_each_super_goes_one_module_up() -> None:
    """`use crate::common::watch;` is recorded as the name `watch` of module `crate::common`: the import is of
    common/watch.rs, not of common/mod.rs, which only declares it. hyper's src/client/conn/http1.rs has `use
    super::super::dispatch;`: src/client/dispatch.rs, two modules up, where it was read as one."""
    tree = layout(
        [
            "src/lib.rs",
            "src/proto/mod.rs",
            "src/common/mod.rs",
            "src/common/watch.rs",
            "src/client/mod.rs",
            "src/client/dispatch.rs",
            "src/client/conn/mod.rs",
            "src/client/conn/http1.rs",
        ]
    )
    use = "use"
    assert candidates(imp("crate::common", ["watch"], use), "src/lib.rs", "rust", tree)[0] == "src/common/watch.rs"
    assert candidates(imp("crate", ["proto"], use), "src/client/mod.rs", "rust", tree)[0] == "src/proto/mod.rs"
    assert candidates(imp("crate::common", ["Watch"], use), "src/lib.rs", "rust", tree)[0] == "src/common/mod.rs"
    assert candidates(imp("crate::common", ["watch", "Other"], use), "src/lib.rs", "rust", tree)[0] == (
        "src/common/mod.rs"  # two names, one row: the module holding both
    )
    http1 = "src/client/conn/http1.rs"
    assert candidates(imp("super::super", ["dispatch"], use), http1, "rust", tree)[0] == "src/client/dispatch.rs"
    assert candidates(imp("super::super", ["Thing"], use), http1, "rust", tree)[0] == "src/client/mod.rs"
    assert candidates(imp("super", ["Builder"], use), http1, "rust", tree)[0] == "src/client/conn/mod.rs"
    assert candidates(imp("super::super::super", ["proto"], use), http1, "rust", tree)[0] == "src/proto/mod.rs"


def test_a_go_file_depends_on_the_files_of_its_package_whose_names_it_uses(
    repo: Any, db_path: Path, tmp_path: Path
) -> None:
    """Go needs no import between the files of a package (chi's mux.go names tree.go's `node` and calls its
    functions so): a name a file uses is a dependency on the file declaring it, a test file's only for a test; a
    name the file binds itself (`routes :=`) or a struct literal's field (`node{typ: 1}`) is no use of another
    file's. The edges follow a declaration that moves to another file, and equal a replay's. The tests of a Go file are
    its package's, whatever it declares."""
    repo.write("go.mod", "module example.com/app\n\ngo 1.22\n")
    repo.write("cmd/main.go", 'package main\n\nimport "example.com/app/chi"\n\nfunc main() { chi.New() }\n')
    repo.write(
        "chi/mux.go",
        "package chi\n\nfunc New() *node {\n\troutes := 1\n\t_ = routes\n\treturn &node{typ: helper()}\n}\n",
    )
    repo.write("chi/tree.go", "package chi\n\ntype node struct{ typ int }\n\nvar routes = []string{}\n")
    repo.write("chi/util.go", "package chi\n\nfunc helper() int { return 1 }\n\nvar typ = 0\n")
    repo.write("chi/util_test.go", "package chi\n\nfunc fixture() *node { return New() }\n")
    repo.write("chi/mux_test.go", 'package chi\n\nimport "testing"\n\nfunc TestNew(t *testing.T) { fixture() }\n')
    repo.write("chi/format.go", 'package chi\n\nfunc (n *node) String() string { return "node" }\n')
    conn = open_store(db_path)
    try:
        index_tree(repo.root, conn)

        def files(path: str) -> list[str]:
            return sorted(d["target"] for d in lookups.dependencies(conn, path) if d["kind"] == "file")

        assert files("chi/mux.go") == ["chi/tree.go", "chi/util.go"]
        assert [d["names"] for d in lookups.dependencies(conn, "chi/mux.go")] == [["node"], ["helper"]]
        assert files("chi/mux_test.go") == ["chi/util_test.go"]
        assert files("chi/util_test.go") == ["chi/mux.go", "chi/tree.go"]
        assert files("cmd/main.go") == ["chi/format.go", "chi/mux.go", "chi/tree.go", "chi/util.go"]  # `go build`s
        assert lookups.dependents(conn, "chi/util.go") == ["chi/mux.go", "cmd/main.go"]
        assert lookups.dependents(conn, "chi/util_test.go") == ["chi/mux_test.go"]
        # a name taken from the package is the declaring file's: mux.go binds (re-exports) none of them
        assert (
            conn.execute("SELECT count(*) FROM imports WHERE kind = 'package' AND bound IS NOT NULL").fetchone()[0] == 0
        )
        # a method no name leads to (`n.String()`): its package's tests, which `go test` builds with it
        assert lookups.dependents(conn, "chi/format.go") == ["cmd/main.go"]  # importing the package
        assert queries.tests_for_path(conn, "chi/format.go") == ["chi/mux_test.go", "chi/util_test.go"]

        repo.write("chi/util.go", "package chi\n\nvar typ = 0\n")
        repo.write("chi/helper.go", "package chi\n\nfunc helper() int { return 2 }\n")
        index_tree(repo.root, conn)
        assert files("chi/mux.go") == ["chi/helper.go", "chi/tree.go"]
        assert verify(conn)["ok"]
        fresh = open_store(tmp_path / "fresh.db")  # the edges followed the move as a fresh index finds them
        index_tree(repo.root, fresh)
        rows = "SELECT path, ordinal, module, names, kind, target FROM imports ORDER BY path, ordinal"
        assert [tuple(r) for r in conn.execute(rows)] == [tuple(r) for r in fresh.execute(rows)]
        fresh.close()
    finally:
        conn.close()


def _edges(conn: Any) -> set[tuple[str, str]]:
    return {
        (r["path"], r["target"])
        for r in conn.execute("SELECT path, target FROM resolved_imports WHERE target IS NOT NULL")
    }


def test_rust_paths_as_rustc_resolves_them_in_tests_and_2018_paths() -> None:
    """Measured against rustc's own resolution (bench/facts_imports_rust.py): an integration test is a crate root
    whose `mod util;` is tests/util/mod.rs; `use ::bytes::Buf` names the crate; `use traits::Flags` in lib.rs
    (Rust 2018) is its module `traits`; a `src/tests/` module is no test crate."""
    tree = layout(
        ["src/lib.rs", "src/traits.rs", "src/buf/mod.rs", "tests/util/mod.rs", "tests/version.rs", "src/tests/mod.rs"],
        {"Cargo.toml": '[package]\nname = "bytes"\n'},
    )
    assert candidates(imp("util", kind="mod"), "tests/version.rs", "rust", tree) == ["tests/util/mod.rs"]
    assert candidates(imp("::bytes", ["Buf"], "use"), "tests/version.rs", "rust", tree)[0] == "src/lib.rs"
    assert candidates(imp("::bytes::buf", ["Buf"], "use"), "tests/version.rs", "rust", tree)[0] == "src/buf/mod.rs"
    assert candidates(imp("traits", ["Flags"], "use"), "src/lib.rs", "rust", tree)[0] == "src/traits.rs"
    assert candidates(imp("serde", ["Serialize"], "use"), "src/lib.rs", "rust", tree) == []  # another crate
    assert candidates(imp("crate::util", ["f"], "use"), "tests/version.rs", "rust", tree)[0] == "tests/util/mod.rs"
    assert candidates(imp("helpers", kind="mod"), "src/tests/mod.rs", "rust", tree) == []


def test_index_tree_resolves_imports_across_a_multi_language_repo(repo: Any, db_path: Path) -> None:
    repo.write("go.mod", "module example.com/app\n\ngo 1.22\n")
    repo.write("main.go", 'package main\n\nimport "example.com/app/internal/store"\n\nfunc main() { store.Open() }\n')
    repo.write("internal/store/store.go", "package store\n\n// Open opens.\nfunc Open() {}\n")
    repo.write("tsconfig.json", '{"compilerOptions": {"baseUrl": ".", "paths": {"@ui/*": ["web/ui/*"]}}}')
    repo.write(
        "web/app.ts",
        'import { Button } from "@ui/button";\nimport { api } from "./api";\n'
        'import { format } from "./lib";\nexport const run = () => api(Button, format);\n',
    )
    repo.write("web/api.js", "export function api(a, b) { return [a, b]; }\n")
    repo.write("web/lib/index.ts", "export const format = (x: string) => x.trim();\n")
    repo.write("web/ui/button.tsx", "export const Button = () => <button/>;\n")
    repo.write(
        "src/main/java/com/acme/App.java", "package com.acme;\nimport com.acme.geo.Shape;\npublic class App {}\n"
    )
    repo.write("src/main/java/com/acme/geo/Shape.java", "package com.acme.geo;\npublic class Shape {}\n")
    repo.write("c/shape.c", '#include "shape.h"\n#include <stdio.h>\nint area(void) { return 1; }\n')
    repo.write("c/shape.h", "int area(void);\n")
    repo.commit("a small multi-language repository")
    conn = open_store(db_path)
    report = index_tree(repo.root, conn)
    assert report.skipped == 0, report.skips
    assert _edges(conn) == {
        ("main.go", "internal/store/store.go"),
        ("web/app.ts", "web/ui/button.tsx"),
        ("web/app.ts", "web/api.js"),
        ("web/app.ts", "web/lib/index.ts"),
        ("src/main/java/com/acme/App.java", "src/main/java/com/acme/geo/Shape.java"),
        ("c/shape.c", "c/shape.h"),
    }
    externals = {r[0] for r in conn.execute("SELECT module FROM resolved_imports WHERE target IS NULL")}
    assert externals == {"stdio.h"}
    rows = {
        r["qualname"]: (r["kind"], r["exported"])
        for r in conn.execute(
            "SELECT qualname, kind, exported FROM symbols WHERE path LIKE 'web/%' OR path LIKE '%.go'"
        )
    }
    assert rows == {
        "run": ("function", 1),
        "api": ("function", 1),
        "format": ("function", 1),
        "Button": ("function", 1),
        "main": ("function", 0),
        "Open": ("function", 1),
    }
    assert index_tree(repo.root, conn).events == 0  # unchanged: nothing appended
    conn.close()


def test_a_rust_crates_unit_and_integration_tests_import_it_as_rust_reads_them(repo: Any, db_path: Path) -> None:
    """`use super::*` inside `mod tests { }` takes the file's own items: no import of another file, and never an
    external crate named `super`. An integration test's `use geo_calc::add` is the crate's lib.rs."""
    repo.write("Cargo.toml", '[package]\nname = "geo-calc"\nversion = "0.1.0"\n')
    repo.write(
        "src/lib.rs",
        "pub fn add(a: i32, b: i32) -> i32 { a + b }\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n"
        "    #[test]\n    fn adds() { assert_eq!(add(1, 2), 3); }\n}\n",
    )
    repo.write("tests/area.rs", "use geo_calc::add;\n\n#[test]\nfn sums() { assert_eq!(add(2, 2), 4); }\n")
    conn = open_store(db_path)
    try:
        index_tree(repo.root, conn)
        assert lookups.dependencies(conn, "src/lib.rs") == []
        assert [d["target"] for d in lookups.dependencies(conn, "tests/area.rs")] == ["src/lib.rs"]
        assert lookups.dependents(conn, "src/lib.rs") == ["tests/area.rs"]
    finally:
        conn.close()


def test_a_rust_files_imports_of_another_crate_name_the_module_they_reach_not_the_crate(
    repo: Any, db_path: Path
) -> None:
    """`use std::fmt;` imports the module std::fmt and `use std::io::{self, Write};` the module std::io (with its
    trait Write): a contract listing `std` for every file said nothing. A type is taken from the module naming it.
    A `mod` no file answers is the crate's own, never another crate."""
    repo.write("Cargo.toml", '[package]\nname = "geo-calc"\nversion = "0.1.0"\n')
    repo.write(
        "src/lib.rs",
        "use std::fmt;\nuse std::io::{self, Write};\nuse std::collections::HashMap;\nuse serde_json as json;\n"
        '#[path = "../support/mod.rs"]\nmod support;\n\n'
        "pub fn show(m: HashMap<u8, u8>) -> fmt::Result { Ok(()) }\n",
    )
    conn = open_store(db_path)
    try:
        index_tree(repo.root, conn)
        assert [(d["kind"], d["target"], d["names"]) for d in lookups.dependencies(conn, "src/lib.rs")] == [
            ("external", "std::fmt", []),
            ("external", "std::io", ["Write"]),
            ("external", "std::collections", ["HashMap"]),
            ("external", "serde_json", []),
            ("unresolved", "support", []),  # its own module, at a path the index does not follow: no crate's
        ]
    finally:
        conn.close()


def test_a_rust_use_list_imports_each_module_it_names_and_calls_through_an_alias_resolve(
    repo: Any, db_path: Path
) -> None:
    """`use crate::shapes::{circle, square as sq};` imports two module files, each its own edge, and `sq::area`
    is square.rs's area by the import, not a guess at either `area`. `use crate::body::Length;` reaches the
    file defining Length through body/mod.rs's `pub use self::length::{Length, MAX};`."""
    repo.write("Cargo.toml", '[package]\nname = "geo-calc"\nversion = "0.1.0"\n')
    repo.write("src/lib.rs", "pub mod body;\npub mod report;\npub mod shapes;\n")
    repo.write("src/shapes/mod.rs", "pub mod circle;\npub mod square;\n")
    repo.write("src/shapes/circle.rs", "pub fn area(r: f64) -> f64 {\n    r * r * 3.14\n}\n")
    repo.write("src/shapes/square.rs", "pub fn area(s: f64) -> f64 {\n    s * s\n}\n")
    repo.write("src/body/mod.rs", "mod length;\npub use self::length::{Length, MAX};\n")
    repo.write("src/body/length.rs", "pub struct Length(pub u64);\npub const MAX: u64 = 10;\n")
    repo.write(
        "src/report.rs",
        "use crate::body::Length;\nuse crate::shapes::{circle, square as sq};\n\n"
        "pub fn total(x: f64) -> f64 {\n    circle::area(x) + sq::area(x)\n}\n\n"
        "pub fn size(l: Length) -> u64 {\n    l.0\n}\n",
    )
    conn = open_store(db_path)
    try:
        index_tree(repo.root, conn)
        edges = {e["target"] for e in lookups.import_edges(conn) if e["source"] == "src/report.rs"}
        assert edges == {"src/body/mod.rs", "src/body/length.rs", "src/shapes/circle.rs", "src/shapes/square.rs"}
        square = queries.find_symbol(conn, "src/shapes/square.rs::area")
        assert [(c["caller"], c["basis"]) for c in queries.callers(conn, square)] == [
            ("src/report.rs::total", "imported name")
        ]
    finally:
        conn.close()


def test_a_rust_path_through_a_crate_a_facade_re_exports_reaches_the_defining_file(repo: Any, db_path: Path) -> None:
    """ripgrep's grep crate is a facade: `pub extern crate grep_printer as printer;`, and its binary imports
    `use grep::printer::Standard;`. No file is grep's printer module, so the import's target is grep's lib.rs;
    its origin goes on through the re-exported crate to the file defining Standard."""
    repo.write("Cargo.toml", '[workspace]\nmembers = ["crates/*"]\n')
    repo.write("crates/grep/Cargo.toml", '[package]\nname = "grep"\nversion = "0.1.0"\n')
    repo.write("crates/grep/src/lib.rs", "pub extern crate grep_printer as printer;\npub use grep_regex as regex;\n")
    repo.write("crates/printer/Cargo.toml", '[package]\nname = "grep-printer"\nversion = "0.1.0"\n')
    repo.write("crates/printer/src/lib.rs", "mod standard;\npub use crate::standard::{Standard, StandardBuilder};\n")
    repo.write("crates/printer/src/standard.rs", "pub struct Standard;\npub struct StandardBuilder;\n")
    repo.write("crates/regex/Cargo.toml", '[package]\nname = "grep-regex"\nversion = "0.1.0"\n')
    repo.write("crates/regex/src/lib.rs", "pub struct RegexMatcher;\n")
    repo.write(
        "crates/core/main.rs",
        "use grep::printer::Standard;\nuse grep::regex::RegexMatcher;\n\n"
        "fn main() {\n    let _ = (Standard, RegexMatcher);\n}\n",
    )
    conn = open_store(db_path)
    try:
        index_tree(repo.root, conn)
        found = {
            r["names"]: (r["target"], r["origin"])
            for r in conn.execute("SELECT names, target, origin FROM imports WHERE path = 'crates/core/main.rs'")
        }
        assert found == {
            '["Standard"]': ("crates/grep/src/lib.rs", "crates/printer/src/standard.rs"),
            '["RegexMatcher"]': ("crates/grep/src/lib.rs", "crates/regex/src/lib.rs"),
        }
    finally:
        conn.close()


def test_an_import_through_a_symlink_of_the_tree_means_what_it_points_at(repo: Any, db_path: Path) -> None:
    """TanStack/query's packages link their eslint config to the top's, and a folder may be a link (`app/lib` ->
    `src`): Node and the compilers resolve through links, so an import naming one means the file it points at,
    in the work tree's index and in the pre-commit hook's index of staged blobs alike."""
    import os

    from codeannals.indexer.git.staged import index_staged

    repo.write("eslint.config.js", "export default [];\n")
    repo.write("src/util.ts", "export const trim = (s: string) => s.trim();\n")
    repo.write("packages/a/eslint.config.js", "import root from './root.eslint.config.js';\nexport default root;\n")
    os.symlink("../../eslint.config.js", repo.root / "packages/a/root.eslint.config.js")
    os.symlink("src", repo.root / "app-lib")
    repo.write("main.ts", "import { trim } from './app-lib/util';\nexport const go = () => trim(' x ');\n")
    repo.commit("links")
    conn = open_store(db_path)
    index_tree(repo.root, conn)
    edges = {tuple(r) for r in conn.execute("SELECT path, target FROM resolved_imports WHERE target IS NOT NULL")}
    assert ("packages/a/eslint.config.js", "eslint.config.js") in edges
    assert ("main.ts", "src/util.ts") in edges
    repo.write("main.ts", "import { trim } from './app-lib/util';\nexport const go = () => trim(' y ');\n")
    repo.git("add", "main.ts")
    index_staged(repo.root, conn, source="hook")
    assert [r[0] for r in conn.execute("SELECT target FROM resolved_imports WHERE path = 'main.ts'")] == ["src/util.ts"]
    conn.close()


def test_rust_modules_and_items_inside_macro_braces_are_the_crates_own(repo: Any, db_path: Path) -> None:
    """hyper declares modules in `cfg_feature! { pub mod client; }` and its public Connection in `pin_project! {
    pub struct Connection ... }`: lib.rs imports client.rs, Connection is a symbol of its file, and a `use` of it
    resolves to the file defining it, by the name it defines."""
    repo.write("Cargo.toml", '[package]\nname = "hyper"\nversion = "1.0.0"\n')
    repo.write("src/lib.rs", 'cfg_feature! {\n    #![feature = "client"]\n    pub mod client;\n}\n')
    repo.write(
        "src/client.rs",
        "pin_project_lite::pin_project! {\n    /// A connection.\n    pub struct Connection<T> {\n"
        "        #[pin]\n        io: T,\n    }\n}\n",
    )
    repo.write("tests/client.rs", "use hyper::client::Connection;\n\nfn opens(c: Connection<u8>) {}\n")
    conn = open_store(db_path)
    try:
        index_tree(repo.root, conn)
        assert [d["target"] for d in lookups.dependencies(conn, "src/lib.rs")] == ["src/client.rs"]
        connection = queries.find_symbol(conn, "src/client.rs::Connection")
        assert (connection["kind"], connection["start_line"], connection["doc"]) == ("struct", 3, "A connection.")
        assert [d["target"] for d in lookups.dependencies(conn, "tests/client.rs")] == ["src/client.rs"]
    finally:
        conn.close()


def test_a_relative_import_no_indexed_file_answers_is_unresolved_never_external(repo: Any, db_path: Path) -> None:
    """`./logo.svg` (an asset the index does not read) and `./missing` (no file of the tree) name places of the
    project's own: `unresolved`, not an external package as they were; `react` stays external."""
    repo.write("src/logo.svg", "<svg></svg>\n")
    repo.write(
        "src/app.ts",
        'import logo from "./logo.svg";\nimport { x } from "./missing";\nimport React from "react";\n'
        "export const a = [logo, x, React];\n",
    )
    repo.write("lib/a.rb", 'require_relative "gone"\nrequire "json"\n')
    conn = open_store(db_path)
    try:
        index_tree(repo.root, conn)
        assert [(d["kind"], d["target"]) for d in lookups.dependencies(conn, "src/app.ts")] == [
            ("unresolved", "./logo.svg"),
            ("unresolved", "./missing"),
            ("external", "react"),
        ]
        assert [(d["kind"], d["target"]) for d in lookups.dependencies(conn, "lib/a.rb")] == [
            ("unresolved", "gone"),
            ("external", "json"),
        ]
    finally:
        conn.close()
