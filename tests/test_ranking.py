"""The ranking core (store/ranking.py) on small real repositories: what a task is about, as an engineer reads it."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from codeannals.indexer.git.githistory import backfill
from codeannals.indexer.run import index_tree
from codeannals.server.contextpack import (
    LEFT_OUT_NAMED,
    Block,
    Omission,
    build_pack,
    fit,
    in_ranked_order,
    left_out,
    module_renderings,
)
from codeannals.server.vibecheck import touched_modules
from codeannals.store import lints, open_store, queries, relevance
from codeannals.store.candidates import LEAD_BODIES, MAX_CANDIDATES, MORE_CANDIDATES, lead_candidates, more_candidates
from codeannals.store.filekinds import about_kind, file_kind, indexed_kinds, project_name
from codeannals.store.ranking import Candidate, Nearest, Ranking, rank_task, score_task
from codeannals.store.tasksearch import is_task_sized
from codeannals.store.tasktext import named_module, named_packages, named_symbols, task_terms

from .conftest import Repo


@pytest.fixture
def conn(db_path: Path) -> Iterator[sqlite3.Connection]:
    c = open_store(db_path)
    yield c
    c.close()


def indexed(repo: Repo, conn: sqlite3.Connection, files: dict[str, str]) -> sqlite3.Connection:
    for path, text in files.items():
        repo.write(path, text)
    repo.commit("initial import")
    index_tree(repo.root, conn, source="cli")
    return conn


def first_file(conn: sqlite3.Connection, task: str) -> str:
    return rank_task(conn, task).ranked_files()[0]


def first_by_history(repo: Repo, conn: sqlite3.Connection, task: str) -> str:
    """The first file for a task once the repository's commits are recorded, which a similar commit put there."""
    index_tree(repo.root, conn, source="cli")
    backfill(repo.root, conn)
    ranking = rank_task(conn, task)
    first = ranking.ranked_files()[0]
    assert any(w.startswith("changed with similar commits") for w in ranking.why[first])
    return first


def test_an_identifier_in_the_task_wins_over_its_words(repo: Repo, conn: sqlite3.Connection) -> None:
    # Every word of the task is in cookies.py's docstrings; only headers.py has the function it names.
    indexed(
        repo,
        conn,
        {
            "app/cookies.py": '"""Cookies."""\n\n\ndef parse_cookie(value):\n'
            '    """Parse a cookie header value into options."""\n    return value\n\n\n'
            'def dump_cookie(options):\n    """Dump cookie options into a header value."""\n'
            "    return options\n",
            "app/headers.py": "def parse_options_header(value):\n    return value.split(';')\n",
        },
    )
    ranking = rank_task(conn, "parse_options_header drops the cookie header value options")
    assert ranking.ranked_files()[0] == "app/headers.py"
    best = ranking.ranked_symbols()[0]
    assert best.symbol["id"] == "app/headers.py::parse_options_header"
    assert "named in the task" in best.why
    # A file named as a maintainer names it, without its folder, wins over the words as well.
    ranking = rank_task(conn, "Update headers.py: the cookie header value options are dumped twice")
    assert ranking.ranked_files()[0] == "app/headers.py"
    assert "named in the task" in ranking.why["app/headers.py"]
    # Named twice, it is said once.
    ranking = rank_task(conn, "Update headers.py (app/headers.py): the cookie header value options are dumped twice")
    assert ranking.why["app/headers.py"].count("named in the task") == 1


def test_a_file_name_several_code_files_share_names_none_of_them(repo: Repo, conn: sqlite3.Connection) -> None:
    # As a workspace's crates each have a middleware/mod.rs: the task's `mod.rs` does not say which one.
    indexed(
        repo,
        conn,
        {
            "web/src/middleware/mod.rs": "pub fn wrap() {}\n",
            "client/src/middleware/mod.rs": "pub fn wrap() {}\n",
            "lib/transport.js": "function transport () {}\nmodule.exports = transport\n",
            "examples/transport.js": "const transport = require('../lib/transport')\ntransport()\n",
        },
    )
    for task in ("Corrected a typo in mod.rs", "Fix the docs of middleware/mod.rs"):
        ranking = rank_task(conn, task)
        assert not any("named in the task" in why for why in ranking.why.values())
    # Of a code file and an example of one name, the name is the code's.
    assert "named in the task" in rank_task(conn, "Let transport.js take options").why["lib/transport.js"]


def test_a_capitalized_word_inside_a_sentence_names_the_type_of_that_name(repo: Repo, conn: sqlite3.Connection) -> None:
    # Every word of the task but `Data` is in render.py's names and docstrings; store.py defines the class Data.
    indexed(
        repo,
        conn,
        {
            "app/render.py": 'def render_doc(doc):\n    """Render a doc page, fixing its layout."""\n'
            "    return doc\n\n\n"
            'def fix_doc(doc):\n    """Fix the doc before rendering."""\n    return doc\n',
            "app/store.py": 'class Data:\n    """Holds a value."""\n\n    def __init__(self, value):\n'
            "        self.value = value\n",
        },
    )
    ranking = rank_task(conn, "docs: fix Data doc rendering")
    assert ranking.ranked_files()[0] == "app/store.py"
    assert "the task names the type Data" in ranking.symbols["app/store.py::Data"].why
    # A sentence's first word names nothing: it is capitalized because it comes first.
    assert first_file(conn, "Data doc rendering: fix the doc layout") == "app/render.py"
    assert first_file(conn, "The doc is off. Data doc rendering needs a fix") == "app/render.py"
    # Nor does a word two types have: it does not say which.
    repo.write("app/legacy.py", "class Data:\n    pass\n")
    repo.commit("a second Data")
    index_tree(repo.root, conn, source="cli")
    ranking = rank_task(conn, "docs: fix Data doc rendering")
    assert not any(w.startswith("the task names the type") for c in ranking.symbols.values() for w in c.why)


def test_a_conventional_commit_s_scope_names_its_file(repo: Repo, conn: sqlite3.Connection) -> None:
    # client.js holds more of the task's words; `fix(File):` says the change is in file.js.
    indexed(
        repo,
        conn,
        {
            "lib/client.js": "function writeTypedArray (array, byteLength) {\n  return array.length + byteLength\n}\n",
            "lib/fetch/file.js": "class File {\n  constructor (parts, name) {\n    this.parts = parts\n  }\n}\n",
            "lib/mock/mock-utils.js": "function typedArrayOf (array) {\n  return array\n}\n",
        },
    )
    words = "respect typed array byteOffset and byteLength"
    assert first_file(conn, words) == "lib/client.js"
    ranking = rank_task(conn, f"fix(File): {words}")
    assert ranking.ranked_files()[0] == "lib/fetch/file.js"
    assert "named by the commit's scope 'File'" in ranking.why["lib/fetch/file.js"]
    # Case and separators aside; a folder's name is no file's.
    assert first_file(conn, f"fix(mock utils): {words}") == "lib/mock/mock-utils.js"
    assert first_file(conn, f"fix(fetch): {words}") == "lib/client.js"
    # The part a subject starts with is a scope only where the project's commits start so: none recorded here.
    assert first_file(conn, f"File: {words}") == "lib/client.js"


def test_symbols_relevant_to_some_words_rank_as_fts5_ranks_the_words_or_ed(
    repo: Repo, conn: sqlite3.Connection
) -> None:
    # relevant_symbols adds up each word's share of BM25, read once per word; FTS5 ranks the whole query. The same
    # scores to the bit, ties (the same function in two files) in rowid order, and a new file's symbols at once.
    words = ["cookie", "header", "pars", "valu"]

    def fts5_or(limit: int) -> list[tuple[str, float]]:
        query = f"SELECT id, {relevance._BM25} FROM symbols_fts WHERE symbols_fts MATCH ? ORDER BY 2, rowid LIMIT ?"
        expression = " OR ".join(f'"{w}"*' for w in words)
        return [(row[0], -row[1]) for row in conn.execute(query, (expression, limit))]

    body = '    """Parse the {0} header value."""\n    return value\n'
    files = {
        f"app/m{i}.py": "".join(f"def {name}(value):\n{body.format(name)}\n\n" for name in names)
        for i, names in enumerate(
            [["parse_cookie", "dump_cookie"], ["parse_header", "cookie_value"], ["parse_cookie"], ["values", "other"]]
        )
    }
    indexed(repo, conn, files)
    for limit in (3, 200):
        expected = fts5_or(limit)
        assert len(expected) == min(limit, 7)
        assert [(s["id"], s["score"]) for s in relevance.relevant_symbols(conn, words, limit)] == expected
    assert [s["id"] for s in relevance.relevant_symbols(conn, words)][:2] == [
        "app/m0.py::parse_cookie",
        "app/m2.py::parse_cookie",
    ]
    repo.write("app/m4.py", "def cookie_header_parser(value):\n" + body.format("cookie"))
    index_tree(repo.root, conn, source="cli")
    assert [(s["id"], s["score"]) for s in relevance.relevant_symbols(conn, words)] == fts5_or(200)
    assert "app/m4.py::cookie_header_parser" in [s["id"] for s in relevance.relevant_symbols(conn, words)]


def test_a_config_file_does_not_outrank_code(repo: Repo, conn: sqlite3.Connection) -> None:
    indexed(
        repo,
        conn,
        {
            "pyproject.toml": "[tool.retry]\nretry_timeout = 5\nbackoff = 2\n",
            ".github/workflows/tests.yaml": "name: retry timeout backoff\non: push\njobs:\n  retry:\n    runs-on: x\n",
            "app/net.py": "def fetch(url, retries=3):\n"
            '    """Fetch a url, retrying with backoff until the timeout."""\n    return url\n',
        },
    )
    ranking = rank_task(conn, "retry backoff ignores the timeout")
    assert ranking.ranked_files()[0] == "app/net.py"
    assert any("the task is not about config" in w for w in ranking.why["pyproject.toml"])
    # ... unless the task is about configuration.
    assert first_file(conn, "pyproject retry timeout setting is ignored") == "pyproject.toml"


def test_a_file_its_head_says_a_tool_generated_ranks_after_code(repo: Repo, conn: sqlite3.Connection) -> None:
    # fastify's lib/configValidator.js, which build/build-validation.js writes: the validator has the task's words
    # most often, but the change goes in what generates it. Its path cannot say so; its first line does.
    validator = "// This file is autogenerated by scripts/options.js, do not edit\n"
    validator += "".join(
        f"function check{n}(bodyLimit) {{\n  return bodyLimit > {n} && isInteger(bodyLimit)\n}}\n" for n in range(4)
    )
    indexed(
        repo,
        conn,
        {
            "lib/configValidator.js": validator,
            # the generator holds the mark it writes, in a string
            "scripts/options.js": f"const header = '{validator.splitlines()[0]}'\n"
            "const options = {\n  bodyLimit: { type: 'integer', minimum: 0 },\n}\n"
            "function build(options) {\n  return JSON.stringify(options)\n}\nmodule.exports = build\n",
            # Go's mark, and a decorator that only looks like one (TypeORM's `@Generated`)
            "pill_string.go": '// Code generated by "stringer -type=Pill"; DO NOT EDIT.\n\npackage pill\n',
            "post.ts": "// Posts of the blog; do not edit them by hand.\n@Entity()\nexport class Post {\n"
            "  @Generated()\n  id: number\n}\n",
            # Catch2's amalgamation of its sources, which says so in words of its own
            "extras/catch_amalgamated.hpp": "//  Catch v3.3.0\n//  Generated: 2023-01-22 19:46:23.163056\n//  ---\n"
            "//  This file is an amalgamation of multiple different files.\n"
            "//  You probably shouldn't edit it directly.\n\nnamespace Catch {\n    int registerTest();\n}\n",
        },
    )
    kinds = indexed_kinds(conn)
    paths = (
        "lib/configValidator.js",
        "pill_string.go",
        "extras/catch_amalgamated.hpp",
        "scripts/options.js",
        "post.ts",
    )
    assert [kinds[p] for p in paths] == ["generated", "generated", "generated", "code", "code"]
    ranking = rank_task(conn, "bodyLimit must be an integer", root=repo.root)
    assert ranking.ranked_files()[0] == "scripts/options.js"
    assert "generated, and the task is not about generated" in ranking.why["lib/configValidator.js"]


def test_docs_the_task_mentions_rank_after_the_code_it_changes(repo: Repo, conn: sqlite3.Connection) -> None:
    # The docs match the task's words best; the code, less so, is the code most worked on.
    indexed(
        repo,
        conn,
        {
            "docs/api.md": "# API\n\n## flush\n\nFlush the logger. Pass a callback to know when the flush is done.\n",
            "app/logger.py": "def flush(stream):\n    stream.flush()\n",
        },
    )
    repo.write("app/logger.py", "def flush(stream):\n    stream.flush()\n    return stream\n")
    repo.commit("tidy")
    index_tree(repo.root, conn, source="cli")
    backfill(repo.root, conn)
    ranking = rank_task(conn, "allow passing a callback to flush, and document it in the docs")
    assert ranking.ranked_files() == ["app/logger.py", "docs/api.md"]
    assert "docs, which the task mentions" in ranking.why["docs/api.md"]
    assert first_file(conn, "docs/api.md: a callback to flush is not documented") == "docs/api.md"  # named: first


def test_a_stub_folds_into_its_module(repo: Repo, conn: sqlite3.Connection) -> None:
    indexed(
        repo,
        conn,
        {
            "pkg/structures.py": (
                "class MultiDict(dict):\n    def to_dict(self, flat=True):\n        return dict(self)\n"
            ),
            "pkg/structures.pyi": "class MultiDict(dict):\n    def to_dict(self, flat: bool = ...) -> dict: ...\n",
            "pkg/other.py": "def to_list(multi):\n    return list(multi)\n",
        },
    )
    ranking = rank_task(conn, "MultiDict.to_dict ignores flat")
    files = ranking.ranked_files()
    assert files[0] == "pkg/structures.py"
    assert "pkg/structures.pyi" not in files
    assert any("stub structures.pyi" in w for w in ranking.why["pkg/structures.py"])
    assert all(c.symbol["path"] != "pkg/structures.pyi" for c in ranking.ranked_symbols())
    # Reading the code of more files than the words found does not bring the stub back as a file of its own.
    assert "pkg/structures.pyi" not in rank_task(conn, "MultiDict.to_dict ignores flat", root=repo.root).files


def test_a_c_prototype_folds_into_its_definition(repo: Repo, conn: sqlite3.Connection) -> None:
    # tmux.h declares most of tmux's functions: each prototype matched a task as much as its definition did, and
    # the header, holding all of them, came first. The edit goes in the definition.
    header = "struct screen { int lines; };\n\n"
    header += "".join(f"void screen_write_{n}(struct screen *);\n" for n in ("trim", "clear", "cell", "line"))
    header += "static void helper(void);\n"
    writer = '#include "app.h"\n\n'
    writer += "".join(
        f"void\nscreen_write_{n}(struct screen *s)\n{{\n\ts->lines = 0;\n}}\n\n" for n in ("trim", "clear")
    )
    indexed(
        repo,
        conn,
        {
            "app.h": header,
            "screen-write.c": writer,
            "grid.c": '#include "app.h"\n\nstatic void\nhelper(void)\n{\n}\n\n'
            "void\nscreen_write_cell(struct screen *s)\n{\n}\n\nvoid\nscreen_write_line(struct screen *s)\n{\n}\n",
            "tty.c": "static void\nhelper(void)\n{\n}\n",
        },
    )
    ranking = rank_task(conn, "Fix screen_write_trim and screen_write_clear losing the screen's lines")
    assert ranking.ranked_files()[0] == "screen-write.c"
    assert not [i for i in ranking.symbols if i.startswith("app.h::screen_write_")]
    assert "named in the task" in ranking.symbols["screen-write.c::screen_write_trim"].why
    # The vectors find both the prototype and its definition: the evidence says so once, the nearer of the two.
    nearest = Nearest([("app.h::screen_write_clear", 0.61), ("screen-write.c::screen_write_clear", 0.57)], [])
    why = rank_task(
        conn, "Fix screen_write_trim and screen_write_clear losing the screen's lines", nearest=nearest
    ).symbols
    assert [w for w in why["screen-write.c::screen_write_clear"].why if w.startswith("means")] == [
        "means what the task says (0.61)"
    ]
    # A prototype of two static functions of one name (grid.c's and tty.c's helper) declares neither for sure.
    ranking = rank_task(conn, "helper should not touch the screen")
    assert "app.h::helper" in ranking.symbols


def test_a_hub_header_ranks_after_the_file_the_change_goes_in(repo: Repo, conn: sqlite3.Connection) -> None:
    # tmux.h declares the functions of 75 of tmux's files, and its flags, and changes with most commits: it matched
    # `Set PANE_STYLECHANGED ...` first, where the flag is defined, though options.c is where it gets set.
    parts = ("options", "window", "screen", "status", "input")
    header = "#define PANE_STYLECHANGED 0x1\n#define PANE_REDRAW 0x2\n\nstruct window_pane { int flags; };\n\n"
    header += "".join(f"void {p}_update(struct window_pane *);\n" for p in parts)
    files = {"tmux.h": header}
    for part in parts:
        files[f"{part}.c"] = f'#include "tmux.h"\n\nvoid\n{part}_update(struct window_pane *wp)\n{{\n}}\n'
    files["options.c"] = (
        '#include "tmux.h"\n\n/* A user option changed: every pane redraws with its new style. */\n'
        "void\noptions_update(struct window_pane *wp)\n{\n\twp->flags |= PANE_REDRAW;\n}\n"
    )
    indexed(repo, conn, files)
    task = "Set PANE_STYLECHANGED when user options change"
    ranking = rank_task(conn, task)
    assert ranking.ranked_files()[0] == "options.c"
    assert "declares the functions of 5 files, whose changes go in those files" in ranking.why["tmux.h"]
    # A task naming the header changes it.
    assert rank_task(conn, f"{task}, in tmux.h").ranked_files()[0] == "tmux.h"


def test_a_one_class_module_s_role_is_its_class_s_summary_said_once(repo: Repo, conn: sqlite3.Connection) -> None:
    """A file of one documented class (gson's, typeorm's) takes the class's summary for its role: the pack says it in
    the module's title, and not again on the class's line."""
    summary = "Type adapter that reflects over the fields of a class."
    indexed(repo, conn, {"src/Reflective.java": f"/** {summary} */\npublic final class Reflective {{\n}}\n"})
    pack, _ = build_pack(repo.root, conn, "reflective type adapter", 8000)
    module = next(m for m in pack["modules"] if m["path"] == "src/Reflective.java")
    assert module["role"] == summary
    text, _ = module_renderings(module)[0]
    assert text.count(summary) == 1 and f"### src/Reflective.java — {summary}" in text


def test_a_module_s_dependents_and_imports_say_how_many_are_not_shown(repo: Repo, conn: sqlite3.Connection) -> None:
    # "used by 7 (five files)" read as if the pack had miscounted: it says there are more.
    files = {"src/pool.py": '"""A pool of connections."""\n\ndef acquire():\n    return 1\n'}
    files.update({f"src/user{n}.py": "from .pool import acquire\n\nacquire()\n" for n in range(7)})
    indexed(repo, conn, files)
    pack, _ = build_pack(repo.root, conn, "acquire from the pool", 8000)
    module = next(m for m in pack["modules"] if m["path"] == "src/pool.py")
    text, _ = module_renderings(module)[0]
    assert module["dependents"] == 7 and len(module["dependents_sample"]) == 5
    assert "used by 7 (src/user0.py, src/user1.py, src/user2.py, src/user3.py, src/user4.py, …)" in text
    user = next(m for m in pack["modules"] if m["path"].startswith("src/user"))
    assert "imports: src/pool.py · used by 0 · " in module_renderings(user)[0][0]


def test_the_pack_s_shortest_module_line_names_each_public_name_once(repo: Repo, conn: sqlite3.Connection) -> None:
    # A Rust type's impl blocks are public items named after it: the line a tight budget leaves says `API: Body,
    # Frame`, not Body four times (actix-web's response.rs: HttpResponse seven times).
    indexed(
        repo,
        conn,
        {
            "src/body.rs": "pub struct Body;\n\nimpl Body {\n    pub fn new() -> Self { Body }\n}\n\n"
            "impl Default for Body {\n    fn default() -> Self { Body }\n}\n\n"
            "impl Clone for Body {\n    fn clone(&self) -> Self { Body }\n}\n\npub struct Frame;\n"
        },
    )
    pack, _ = build_pack(repo.root, conn, "body frame", 8000)
    module = next(m for m in pack["modules"] if m["path"] == "src/body.rs")
    assert [a["name"] for a in module["api"]].count("Body") > 1
    text, shortest = module_renderings(module)[2]
    assert "\nAPI: Body, Frame\n" in text
    assert shortest["api"] == [{"name": "Body"}, {"name": "Frame"}]


def test_a_declaration_file_elsewhere_folds_into_the_one_module_of_its_name(
    repo: Repo, conn: sqlite3.Connection
) -> None:
    # types/reply.d.ts declares lib/reply.js, types/content-type-parser.d.ts lib/contentTypeParser.js (the same
    # name, spelt another way); types/index.d.ts has no one module of its name, so it stays.
    indexed(
        repo,
        conn,
        {
            "lib/reply.js": "function serialize(payload) {\n  return JSON.stringify(payload);\n}\n",
            "lib/contentTypeParser.js": "function parseBody(body) {\n  return body;\n}\n",
            "types/content-type-parser.d.ts": "/** Parse a request body. */\ndeclare function parseBody(b): string;\n",
            "types/reply.d.ts": "/** Serialize a reply payload. */\ndeclare function serialize(p: unknown): string;\n",
            "lib/index.js": "module.exports = {};\n",
            "src/index.js": "module.exports = {};\n",
            "types/index.d.ts": "/** Serialize everything. */\nexport declare function serializeAll(): string;\n",
        },
    )
    ranking = rank_task(conn, "serialize reply payload")
    assert "types/reply.d.ts" not in ranking.files
    assert ranking.ranked_files()[0] == "lib/reply.js"
    assert any("stub reply.d.ts" in w for w in ranking.why["lib/reply.js"])
    assert "types/index.d.ts" in rank_task(conn, "serialize everything").files
    parsing = rank_task(conn, "parse request body")
    assert "types/content-type-parser.d.ts" not in parsing.files
    assert parsing.ranked_files()[0] == "lib/contentTypeParser.js"
    # The pack's module names the declarations an edit of its API must keep in step.
    pack, markdown = build_pack(repo.root, conn, "serialize reply payload")
    module = next(m for m in pack["modules"] if m["path"] == "lib/reply.js")
    assert module["declarations"] == ["types/reply.d.ts"]
    assert "### lib/reply.js (declared in types/reply.d.ts)" in markdown
    assert all(m["declarations"] == [] for m in pack["modules"] if m["path"] != "lib/reply.js")


def test_a_template_matching_the_task_speaks_for_the_code_behind_it(repo: Repo, conn: sqlite3.Connection) -> None:
    # The task's words name the page's template only: the view rendering it and the filter it uses are what a change
    # to the page's behaviour edits. A template no code renders (the reminder email's) speaks for nothing.
    indexed(
        repo,
        conn,
        {
            "hc/front/views.py": "from django.shortcuts import render\n\n\ndef pause(request):\n"
            '    return render(request, "front/pause_monitoring.html", {})\n\n\ndef about(request):\n'
            '    return render(request, "front/about.html", {})\n',
            "hc/front/templatetags/__init__.py": "",
            "hc/front/templatetags/hc_extras.py": "from django import template\n\nregister = template.Library()\n"
            "\n\n@register.filter\ndef down_title(check):\n    return check\n",
            "templates/front/pause_monitoring.html": "{% load hc_extras %}<h1>{{ check|down_title }}</h1>\n",
            "templates/front/about.html": "{% load hc_extras %}<p>About us</p>\n",
            "templates/emails/monitoring_reminder.html": "{{ check.name }} is still paused\n",
        },
    )
    ranking = rank_task(conn, "Ask for confirmation on the pause monitoring page")
    said = "its template templates/front/pause_monitoring.html matches"
    assert said in ranking.why["hc/front/views.py"]
    assert said in ranking.why["hc/front/templatetags/hc_extras.py"]
    assert ranking.ranked_files()[0] in ("hc/front/views.py", "hc/front/templatetags/hc_extras.py")
    assert not any("monitoring_reminder.html" in w for why in ranking.why.values() for w in why)


def test_declarations_of_no_one_module_rank_only_when_the_task_is_about_types(
    repo: Repo, conn: sqlite3.Connection
) -> None:
    # types/fetch.d.ts declares what lib/fetch/*.js define, and is named like the feature every fetch task names;
    # types/hooks.d.ts declares lib/hooks.js, not examples/hooks.js, an example of the same name.
    indexed(
        repo,
        conn,
        {
            "lib/fetch/body.js": "function consumeBody(body) {\n  return body.bodyUsed;\n}\n",
            "types/fetch.d.ts": "/** Fetch: consume body, bodyUsed. */\ndeclare function consumeBody(b): boolean;\n",
            "lib/hooks.js": "function runHooks(hooks) {\n  return hooks;\n}\n",
            "examples/hooks.js": "const runHooks = require('../lib/hooks')\nrunHooks([])\n",
            "types/hooks.d.ts": "/** Run the hooks. */\nexport declare function runHooks(h): void;\n",
        },
    )
    fetching = rank_task(conn, "fetch: consume body sets bodyUsed")
    assert fetching.ranked_files()[0] == "lib/fetch/body.js"
    assert any("not about declarations" in w for w in fetching.why["types/fetch.d.ts"])
    typing = rank_task(conn, "fix the typings of consume body")
    assert "types/fetch.d.ts" in typing.ranked_files()[:2]
    hooks = rank_task(conn, "run the hooks")
    assert "types/hooks.d.ts" not in hooks.files
    assert hooks.ranked_files()[0] == "lib/hooks.js"


def test_a_qualified_name_in_the_task_names_the_symbol_its_qualifier_holds(
    repo: Repo, conn: sqlite3.Connection
) -> None:
    # hyper's `http2::Builder`: four files have a Builder; the module path says which two, and the call's
    # arguments, `(num)`, are not part of the name.
    builder = "pub struct Builder {\n    max: u32,\n}\n\nimpl Builder {\n    pub fn new() -> Builder {\n"
    builder += "        Builder { max: 0 }\n    }\n}\n"
    indexed(
        repo,
        conn,
        {
            "src/client/http1.rs": builder,
            "src/client/http2.rs": builder,
            "src/server/http1.rs": builder,
            "src/server/http2.rs": builder.replace("}\n}\n", "}\n\n    pub fn max_header_list_size(&mut self) {}\n}\n"),
            "src/service.rs": "pub trait Service {\n    fn call(&self);\n}\n",
            "src/util.rs": "pub struct ServiceFn;\n\nimpl ServiceFn {\n    fn call(&self) {}\n}\n\npub fn make() {}\n"
            "\nimpl<T: Fn()> Service for T {\n    fn call(&self) {}\n}\n",
            "tests/client.rs": "mod conn {\n    fn handshake() {}\n}\n",
            "src/request.rs": "pub struct HttpRequest;\n\nimpl HttpRequest {\n    fn new() {}\n}\n\n"
            "impl Drop for HttpRequest {\n    fn drop(&mut self) {}\n}\n\nimpl HttpRequest {\n    fn url_for() {}\n}\n",
        },
    )

    def named(name: str) -> list[str]:
        return [s["id"] for s in named_symbols(conn, name)]

    assert named("http2::Builder") == [
        "src/client/http2.rs::Builder",
        "src/client/http2.rs::impl Builder",
        "src/server/http2.rs::Builder",
        "src/server/http2.rs::impl Builder",
    ]
    assert named("max_header_list_size(num)") == ["src/server/http2.rs::Builder.max_header_list_size"]
    assert named("Service::call") == ["src/service.rs::Service.call"]
    # A method the change adds names its type; a qualifier naming none of the symbols of a name, nothing.
    assert named("http1::Builder::ignore_invalid_headers(bool)") == [
        "src/client/http1.rs::Builder",
        "src/client/http1.rs::impl Builder",
        "src/server/http1.rs::Builder",
        "src/server/http1.rs::impl Builder",
    ]
    assert named("TrySendError::call()") == []
    # An integration test is a crate of its own: hyper's `hyper::client::conn::TrySendError<T>` (a type the change
    # adds) names no `mod conn` of tests/client.rs.
    assert named("hyper::client::conn::TrySendError<T>") == []
    assert named("conn::handshake") == ["tests/client.rs::conn.handshake"]
    # A Rust method goes in its type's own impl blocks (actix-web's `add HttpRequest::full_url()`), not a trait's.
    assert named("HttpRequest::full_url()") == [
        "src/request.rs::HttpRequest",
        "src/request.rs::impl HttpRequest",
        "src/request.rs::impl HttpRequest#2",
    ]
    # Type arguments are no part of the name (`Builder<T>`, `make::<u8>()`); `T` (`the T-typed value`) is a type
    # parameter, though an impl is named by the type it is for (`impl<T: Fn()> Service for T`).
    assert named("Service<T>") == ["src/service.rs::Service"]
    assert named("make::<u8>()") == ["src/util.rs::make"]
    assert named("T") == []
    # A top-level function is held by its module, not by a name like its own.
    assert named("util::make") == ["src/util.rs::make"]
    assert named("make::make") == []
    # Nor does a name built to be slow take long: no backtracking over brackets, no walk out through every part.
    assert named("(" * 100_000 + "x)") == []
    assert named("::".join(["a"] * 10_000) + "::Builder::gone") == []
    ranking = rank_task(conn, "feat(client): add `max_header_list_size(num)` to `http2::Builder`")
    assert set(ranking.ranked_files()[:2]) == {"src/client/http2.rs", "src/server/http2.rs"}
    # The commit's scope says which of the name's files it means: the server's http1.rs, not the client's.
    ranking = rank_task(conn, "feat(server): add `http1::Builder::ignore_invalid_headers(bool)` option")
    assert ranking.ranked_files()[0] == "src/server/http1.rs"
    named_here = {i for i, c in ranking.symbols.items() if "named in the task" in c.why}
    assert named_here == {"src/server/http1.rs::Builder", "src/server/http1.rs::impl Builder"}


def test_a_method_written_as_its_docs_write_it_names_the_method(repo: Repo, conn: sqlite3.Connection) -> None:
    # Ruby's, Java's and JavaScript's docs write an instance method as `Class#method` (rack's `Rack::Request#POST`,
    # jsoup's `W3CDom#convert`); before, `Rack::Request#POST` named every module called Rack, in every file.
    indexed(
        repo,
        conn,
        {
            "lib/rack/request.rb": "module Rack\n  class Request\n    module Helpers\n      def POST\n        1\n"
            "      end\n    end\n  end\nend\n",
            "lib/rack/utils.rb": "module Rack\n  module Utils\n    def self.escape(s)\n      s\n    end\n  end\nend\n",
            "lib/rack/multipart/parser.rb": "module Rack\n  module Multipart\n    class Parser\n      def dequote(s)\n"
            "        s\n      end\n    end\n  end\nend\n",
            "lib/rack/auth/digest.rb": "module Rack\n  module Auth\n    class Params\n      def dequote(s)\n        s\n"
            "      end\n    end\n  end\nend\n",
            "src/main/java/org/jsoup/helper/W3CDom.java": "package org.jsoup.helper;\n\npublic class W3CDom {\n"
            "    public Object convert(Object in) { return in; }\n    public Object convert(Object in, Object out) {"
            " return out; }\n}\n",
        },
    )

    def named(name: str) -> list[str]:
        return [s["id"] for s in named_symbols(conn, name)]

    # The holder may be any of the method's enclosing modules and classes, not only the innermost.
    assert named("Rack::Request#POST") == ["lib/rack/request.rb::Rack.Request.Helpers.POST"]
    assert named("Multipart::Parser#dequote") == ["lib/rack/multipart/parser.rb::Rack.Multipart.Parser.dequote"]
    assert named("Multipart::Parser") == ["lib/rack/multipart/parser.rb::Rack.Multipart.Parser"]
    assert named("W3CDom#convert") == [
        "src/main/java/org/jsoup/helper/W3CDom.java::W3CDom.convert",
        "src/main/java/org/jsoup/helper/W3CDom.java::W3CDom.convert#2",
    ]
    # An overload's own id keeps its `#2`; a method the change adds names its class.
    assert named("src/main/java/org/jsoup/helper/W3CDom.java::W3CDom.convert#2") == [
        "src/main/java/org/jsoup/helper/W3CDom.java::W3CDom.convert#2"
    ]
    assert named("Rack::Utils#unescape") == ["lib/rack/utils.rb::Rack.Utils"]
    # Unquoted in a sentence as well; an issue number (`#2010`) is none of it.
    assert "Multipart::Parser#dequote" in task_terms("Remove Multipart::Parser#dequote private method (#2010)")[1]
    ranking = rank_task(conn, "Remove Multipart::Parser#dequote private method (#2010)")
    assert ranking.ranked_files()[0] == "lib/rack/multipart/parser.rb"


def test_a_rust_module_path_in_the_task_names_its_file(repo: Repo, conn: sqlite3.Connection) -> None:
    # hyper's `common::task` and `common::mod`: module paths, not symbols; task.rs's words are elsewhere too.
    indexed(
        repo,
        conn,
        {
            "src/lib.rs": "mod common;\nmod proto;\npub mod rt;\n",
            "src/rt.rs": "pub use tokio::spawn;\n",
            "src/common/mod.rs": "pub(crate) mod task;\n",
            "src/common/task.rs": "pub(crate) fn yield_now() {}\n",
            "src/proto/h2/mod.rs": "pub(crate) fn ping() {}\n",
            "src/proto/dispatch.rs": "pub(crate) fn common_task_feature_cfg_move() {}\n",
        },
    )
    assert named_module(conn, "common::task") == "src/common/task.rs"
    assert named_module(conn, "crate::common::mod") == "src/common/mod.rs"
    assert named_module(conn, "hyper::proto::h2", project="hyper") == "src/proto/h2/mod.rs"
    assert named_module(conn, "crate::common") == "src/common/mod.rs"
    assert named_module(conn, "std::usize") is None
    assert named_module(conn, "common") is None
    # A module of the crate's root in a file of its own (src/rt.rs), as well as in a folder's mod.rs; actix-web's
    # `rt::spawn` names rt.rs, which re-exports tokio's spawn.
    assert named_module(conn, "crate::rt") == "src/rt.rs"
    assert named_module(conn, "rt::spawn") == "src/rt.rs"
    ranking = rank_task(conn, "refactor(common): move common feature cfg in common::task to common::mod")
    assert set(ranking.ranked_files()[:2]) == {"src/common/task.rs", "src/common/mod.rs"}
    assert "named in the task" in ranking.why["src/common/task.rs"]
    # A function the change adds (`proto::h2::send_ping`) goes in its module; `proto::respond`, whose module
    # is proto/'s, names no method that happens to be called proto (dispatch.rs's Conn.proto).
    repo.write("src/proto/dispatch.rs", "pub(crate) struct Conn;\n\nimpl Conn {\n    fn proto(&self) {}\n}\n")
    repo.write("src/proto/mod.rs", "pub(crate) mod dispatch;\npub(crate) mod h2;\n")
    repo.commit("a method named proto")
    index_tree(repo.root, conn, source="cli")
    assert named_module(conn, "proto::h2::send_ping") == "src/proto/h2/mod.rs"
    assert named_symbols(conn, "proto::respond") == []
    assert named_module(conn, "crate::proto::respond") == "src/proto/mod.rs"


def test_a_subject_naming_a_folder_ranks_the_code_filed_under_it(repo: Repo, conn: sqlite3.Connection) -> None:
    # As hyper's client/ and server/conn/http2.rs, each with a Builder: the client's has a little more of the task's
    # words (in a comment), the subject says the server's.
    builder = (
        "pub struct Builder {}\n\nimpl Builder {\n    pub fn max_header_frames(&mut self) -> &mut Self { self }\n}\n"
    )
    indexed(
        repo,
        conn,
        {
            "src/server/conn/http2.rs": builder,
            "src/client/conn/http2.rs": "// header frames\n// limit header frames\n" + builder,
            "src/body.rs": "pub fn poll() {}\n",
            **{f"src/part{n}.rs": f"pub fn part{n}() {{}}\n" for n in range(30)},  # 'server' is in one path of 33
        },
    )
    ranking = rank_task(conn, "feat(server): limit the header frames of the http2 Builder", root=repo.root)
    assert ranking.ranked_files()[0] == "src/server/conn/http2.rs"
    assert "its path has 'http', 'server', as the task's subject does" in ranking.why["src/server/conn/http2.rs"]
    assert "its path has 'http', as the task's subject does" in ranking.why["src/client/conn/http2.rs"]
    credited = {p for p, parts in ranking.parts.items() if "path words" in parts}
    assert credited == {"src/server/conn/http2.rs", "src/client/conn/http2.rs"}


def test_history_ranks_a_file_that_changed_with_a_similar_message(repo: Repo, conn: sqlite3.Connection) -> None:
    # The task's words are in no symbol of the right file; a past commit with a message like it changed that file.
    repo.write("app/serving.py", "def run(app):\n    return app\n")
    repo.write(
        "app/routing.py",
        'def match(rule, path):\n    """Match a request path against a rule."""\n    return rule == path\n',
    )
    repo.commit("initial import")
    repo.write("app/serving.py", "def run(app):\n    started = [app]\n    return started[0]\n")
    repo.commit("Reloader restarts twice on Windows")
    index_tree(repo.root, conn, source="cli")
    task = "reloader restarts the request twice"
    assert rank_task(conn, task).ranked_files() == ["app/routing.py"]  # words alone: 'request' is in its docstring
    backfill(repo.root, conn)
    ranking = rank_task(conn, task)
    assert "app/serving.py" in ranking.ranked_files()
    assert any(w.startswith("changed with similar commits") for w in ranking.why["app/serving.py"])
    # A message's body counts as well as its title (its trailers do not).
    repo.write("app/cache.py", "def evict(entries):\n    return entries[1:]\n")
    repo.commit("Fix #1203\n\nStale entries survived an eviction.\n\nSigned-off-by: A <a@x>")
    assert first_by_history(repo, conn, "stale entries survive") == "app/cache.py"


def test_a_commit_the_task_names_by_its_id_ranks_the_files_it_changed(repo: Repo, conn: sqlite3.Connection) -> None:
    # `Correct 1049dd6`: the words are in another file; the commit named changed the one to mend. Its id is no words.
    repo.write("app/parsing.py", "def split_parts(data):\n    return data.split(b'--')\n")
    repo.write("app/search.py", 'def find_newline(data):\n    """Search data for the last newline."""\n    return 0\n')
    repo.commit("initial import")
    repo.write("app/parsing.py", "def split_parts(data):\n    start = data.find(b'--')\n    return data[start:]\n")
    named = repo.commit("Skip the preamble")
    index_tree(repo.root, conn, source="cli")
    backfill(repo.root, conn)
    # Abbreviated to 7 characters at least, and to a letter and a digit both: digits alone read as a number, letters
    # alone as a word, not as an id (about 4% of 7-character abbreviations are one or the other).
    short = next(p for p in (named[:n] for n in range(7, len(named) + 1)) if not p.isdigit() and not p.isalpha())
    for task in (f"Correct {named}\n\nSearch for the last newline after the start", f"Fix what {short} broke"):
        ranking = rank_task(conn, task)
        assert ranking.ranked_files()[0] == "app/parsing.py", task
        assert f"changed by {named[:8]}, which the task names" in ranking.why["app/parsing.py"]
        assert not {named[:4], "dd"} & set(ranking.words)
    # An id no recorded commit has names nothing, and neither does a link's (another repository's commit).
    for task in ("Correct 1234567abc", f"search for the newline as https://github.com/o/r/commit/{named} does"):
        said = rank_task(conn, task).why.get("app/parsing.py", [])
        assert not [w for w in said if w.endswith("which the task names")], task


def test_a_task_fixing_a_lint_goes_where_the_lint_matches(
    repo: Repo, conn: sqlite3.Connection, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As hyper's `remove unneeded return`: the task names no file and its words match the code that handles returns;
    # the one function ending in `return x;` is where clippy::needless_return points.
    indexed(
        repo,
        conn,
        {
            "src/returns.rs": "/// What a request returns: the needed return value.\n"
            "pub fn returned(value: u8) -> u8 {\n    value\n}\n",
            "src/headers.rs": "pub fn content_length(len: u64) -> Option<u64> {\n"
            "    if len == 0 {\n        return None;\n    }\n    return Some(len);\n}\n",
            "src/body.rs": "pub struct Body {\n    len: u64,\n}\n\n"
            "pub fn body(len: u64) -> Body {\n    Body { len: len }\n}\n",
        },
    )
    task = "refactor(lib): remove unneeded return"
    ranking = rank_task(conn, task, root=repo.root)
    assert ranking.ranked_files()[0] == "src/headers.rs"
    assert ranking.why["src/headers.rs"][0].startswith("clippy::needless_return matches line 5")
    assert ranking.ranked_symbols()[0].symbol["id"] == "src/headers.rs::content_length"
    assert rank_task(conn, task).ranked_files()[0] == "src/returns.rs"  # without the code: the words decide
    # Another lint, another file: `len: len` is a redundant field name.
    assert rank_task(conn, "Remove redundant field names", root=repo.root).ranked_files()[0] == "src/body.rs"
    # A tree too large to read for a pack: the words decide again.
    monkeypatch.setattr(lints, "MAX_LINES_READ", 10)
    assert rank_task(conn, task, root=repo.root).ranked_files()[0] == "src/returns.rs"


def test_past_commits_of_the_task_s_scope_rank_the_files_they_changed(repo: Repo, conn: sqlite3.Connection) -> None:
    # As hyper's `(h1)` commits: they change src/proto/h1/, which neither the scope's words nor a file's name say
    # (`h1` is no word). The task's words are in src/headers.rs; the past messages have none of them.
    repo.write("src/proto/h1/role.rs", "pub fn encode(head: Head) -> Head {\n    head\n}\n")
    repo.write("src/headers.rs", "// the content length of responses to requests\npub fn content_length() {}\n")
    repo.write("src/body.rs", "pub fn poll() {}\n")
    repo.commit("initial import")
    for n, subject in enumerate(
        ("feat(h1): keep the head", "perf(h1): add a reason phrase", "refactor(h1): title case")
    ):
        repo.write("src/proto/h1/role.rs", f"pub fn encode(head: Head) -> Head {{\n    head.step({n})\n}}\n")
        repo.commit(subject)
    repo.write("src/body.rs", "pub fn poll() { wake() }\n")
    repo.commit("chore(body): wake the poller")
    index_tree(repo.root, conn, source="cli")
    backfill(repo.root, conn)
    ranking = rank_task(conn, "fix(h1): strip the content length of responses to CONNECT requests")
    assert ranking.ranked_files()[0] == "src/proto/h1/role.rs"
    assert "changed by 3 of the 3 past commits of the scope 'h1'" in ranking.why["src/proto/h1/role.rs"]
    credited = {p for p, parts in ranking.parts.items() if "commits of its scope" in parts}
    assert credited == {"src/proto/h1/role.rs"}
    # A scope of fewer past commits says nothing: `body` has one.
    assert not any("commits of its scope" in parts for parts in rank_task(conn, "fix(body): poll").parts.values())


def test_a_subject_s_leading_part_is_a_scope_where_the_project_s_commits_start_so(
    repo: Repo, conn: sqlite3.Connection
) -> None:
    # As ripgrep's `cli: ...` commits, which change src/flags/defs.rs. The task's words are in src/search.rs.
    repo.write("src/flags/defs.rs", "pub struct Defs {}\n")
    repo.write("src/search.rs", "// the column of matches on long lines\npub fn column() {}\n")
    repo.commit("initial import")
    subjects = ("cli: add a flag", "cli: rename a switch", "cli: hide an option", "fix: a", "fix: b", "fix: c")
    for n, subject in enumerate(subjects):
        repo.write("src/flags/defs.rs", f"pub struct Defs {{ step: [u8; {n}] }}\n")
        repo.commit(subject)
    index_tree(repo.root, conn, source="cli")
    backfill(repo.root, conn)
    ranking = rank_task(conn, "cli: fix the column of matches on long lines")
    assert ranking.ranked_files()[0] == "src/flags/defs.rs"
    assert "changed by 3 of the 3 past commits of the scope 'cli'" in ranking.why["src/flags/defs.rs"]
    assert all(
        "commits of its scope" not in parts for path, parts in ranking.parts.items() if path != "src/flags/defs.rs"
    )
    # A type of change is no part of the project, however many commits start with it.
    fixed = rank_task(conn, "fix: the column of matches on long lines")
    assert not any("commits of its scope" in parts for parts in fixed.parts.values())


def test_history_follows_code_to_where_it_moved(repo: Repo, conn: sqlite3.Connection) -> None:
    # The similar commit changed index.py, whose code then moved to core/client.py: the vote goes there.
    body = "class Client:\n    def send(self, request):\n        return request\n\n    def close(self):\n        pass\n"
    repo.write("index.py", body)
    repo.write("other.py", "def unrelated():\n    return 1\n")
    repo.commit("initial import")
    repo.write("index.py", body.replace("return request", "return [request][0]"))
    repo.commit("Reloader restarts twice on Windows")
    repo.git("rm", "-q", "index.py")
    repo.write("core/client.py", body.replace("return request", "return [request][0]"))
    repo.commit("Move the client to core")
    assert first_by_history(repo, conn, "reloader restarts twice") == "core/client.py"


def test_history_follows_the_code_a_commit_changed_out_of_a_file_that_stays(
    repo: Repo, conn: sqlite3.Connection
) -> None:
    # ripgrep's `ignore/types: add verilog` changed DEFAULT_TYPES in types.rs, which later moved to
    # default_types.rs while the rest of types.rs stayed: its vote goes where the table is now.
    table = "DEFAULT_TYPES = [\n    ('rust', ['*.rs']),\n]\n"
    longer = table.replace("]),\n]", "]),\n    ('verilog', ['*.v']),\n]")
    code = "def select(name):\n    return name\n\n\ndef negate(name):\n    return name\n\n\ndef clear():\n    pass\n"
    repo.write("types.py", code + "\n\n" + table)
    repo.write("other.py", "def unrelated():\n    return 1\n")
    repo.commit("initial import")
    repo.write("types.py", code + "\n\n" + longer)
    repo.commit("Support hardware description languages")
    repo.write("types.py", code)
    repo.write("default_types.py", longer)
    repo.commit("Split the table out")
    assert first_by_history(repo, conn, "support more hardware description languages") == "default_types.py"


def test_similar_commits_that_agree_outweigh_the_words(repo: Repo, conn: sqlite3.Connection) -> None:
    # ripgrep's `ignore/types: add X`: the words find globs.py (its docstring says 'types', it changed as often),
    # but the past commits that read like the task added rows to the table in default_types.py, all but one of
    # them. Their agreement says where the change goes, and the evidence says how much of their vote it holds.
    code = 'def select(globs, name):\n    """Select the file types named."""\n    return [g for g in globs if g]\n'
    rows = ["rust", "go"]

    def table() -> str:
        return "DEFAULT = [\n" + "".join(f"    ({r!r}, ['*.{r}']),\n" for r in rows) + "]\n"

    repo.write("globs.py", code)
    repo.write("default_types.py", table())
    repo.write("walk.py", "def walk(root):\n    return [root]\n")
    repo.commit("initial import")
    for name in ("verilog", "lilypond", "fennel", "janet"):
        rows.append(name)
        repo.write("default_types.py", table())
        repo.commit(f"types: add {name}")
    for n, message in enumerate(("select: skip hidden files", "negate: handle globs", "Speed up selection", "Lint")):
        repo.write("globs.py", code + f"\n\nVERSION = {n}\n")
        repo.commit(message)
    repo.write("walk.py", "def walk(root):\n    return [root, root]\n")
    repo.commit("walk: the types of a root")
    index_tree(repo.root, conn, source="cli")
    backfill(repo.root, conn)
    ranking = rank_task(conn, "types: add texinfo", root=repo.root)  # the pack's: globs.py's lines hold the words
    assert ranking.ranked_files()[0] == "default_types.py"
    assert any(w.endswith("% of their vote)") for w in ranking.why["default_types.py"])


def test_commits_nearest_the_task_by_meaning_vote_for_the_files_they_changed(
    repo: Repo, conn: sqlite3.Connection
) -> None:
    # No word of the task is in the code or in a commit title; the vectors say which past commit means the
    # same (ids and cosines, as the vector store answers them), and the file it changed ranks, with that
    # commit as evidence. A commit the history does not hold votes for nothing.
    repo.write("app/serving.py", "def run(app):\n    return app\n")
    repo.write("app/other.py", "def helper():\n    return 1\n")
    repo.commit("initial import")
    repo.write("app/serving.py", "def run(app):\n    started = [app]\n    return started[0]\n")
    sha = repo.commit("Reloader restarts twice on Windows")
    index_tree(repo.root, conn, source="cli")
    backfill(repo.root, conn)
    task = "the daemon boots two times"
    assert rank_task(conn, task, churn=False).ranked_files() == []
    ranking = rank_task(conn, task, nearest=Nearest(commits=[("f" * 40, 0.9), (sha, 0.6)]), churn=False)
    assert ranking.ranked_files() == ["app/serving.py"]
    assert ranking.why["app/serving.py"] == [f"changed by commits meaning the same {sha[:8]}"]


def test_a_vague_task_gets_the_code_most_worked_on(repo: Repo, conn: sqlite3.Connection) -> None:
    # 'Minor tweaks' names nothing; the code files the recorded commits changed most come first, docs not at all.
    repo.write("core.py", "def send(request):\n    return request\n")
    repo.write("util.py", "def helper():\n    return 1\n")
    repo.write("README.md", "# Project\n\nWords.\n")
    repo.commit("initial import")
    for n in range(3):
        repo.write("core.py", f"def send(request):\n    return [request][{n} - {n}]\n")
        repo.write("README.md", f"# Project\n\nWords {n}.\n")
        repo.commit(f"Release {n}")
    index_tree(repo.root, conn, source="cli")
    assert rank_task(conn, "Minor tweaks").ranked_files() == []
    backfill(repo.root, conn)
    ranking = rank_task(conn, "Minor tweaks")
    assert ranking.ranked_files()[:2] == ["core.py", "util.py"]
    assert "changed by 4 of 4 recorded commits" in ranking.why["core.py"]
    assert "README.md" not in ranking.files
    # What a plan's words imply (vibe_check) is what they say, not where changes usually go.
    assert touched_modules(conn, "Minor tweaks") == []
    assert [t["path"] for t in touched_modules(conn, "the helper returns one")] == ["util.py"]


def test_a_task_about_exports_goes_to_the_package_s_entry_point(repo: Repo, conn: sqlite3.Connection) -> None:
    # mergeConfig is defined in lib/core/mergeConfig.js; exporting it is a change to what the package's users
    # import: index.js and lib/axios.js (named after the project), not index.js of a subfolder.
    repo.write("package.json", '{"name": "axios", "main": "index.js"}\n')
    repo.write("index.js", "import axios from './lib/axios.js';\nexport default axios;\n")
    repo.write(
        "lib/axios.js", "import Axios from './core/Axios.js';\nconst axios = new Axios();\nexport default axios;\n"
    )
    repo.write("lib/core/Axios.js", "export default class Axios {\n  request(config) {\n    return config;\n  }\n}\n")
    repo.write(
        "lib/core/mergeConfig.js",
        "export default function mergeConfig(config1, config2) {\n  return {...config1, ...config2};\n}\n",
    )
    repo.write("lib/adapters/index.js", "export default {adapters: []};\n")
    indexed(repo, conn, {})
    entry = "the package's entry point, and the task is about what it exports"
    ranking = rank_task(conn, "feat: export mergeConfig", root=repo.root)
    assert set(ranking.ranked_files()[:3]) == {"index.js", "lib/axios.js", "lib/core/mergeConfig.js"}
    assert {p for p, why in ranking.why.items() if entry in why} == {"index.js", "lib/axios.js"}
    ranking = rank_task(conn, "feat: add mergeConfig", root=repo.root)  # no export in the task
    assert ranking.ranked_files()[0] == "lib/core/mergeConfig.js"
    assert not any(entry in why for why in ranking.why.values())


def test_the_symbols_nearest_the_task_by_meaning_rank_with_their_similarity(
    repo: Repo, conn: sqlite3.Connection
) -> None:
    # No word of the task is in the code; the vectors say what it means (ids and cosines, as the vector store
    # answers them), each code symbol in proportion to its similarity; a symbol the index does not hold, or
    # a section of the docs, is left out.
    indexed(
        repo,
        conn,
        {
            "media.py": "def shrink(image, factor):\n    return image.scale(1 / factor)\n",
            "mail.py": 'def send(user):\n    """Send the gallery link to a user."""\n    return user\n',
            "docs/media.md": "# Shrinking\n\nHow thumbnails get made.\n",
        },
    )
    section = conn.execute("SELECT id FROM symbols WHERE path = 'docs/media.md'").fetchone()[0]
    task = "make a picture smaller before upload"
    assert rank_task(conn, task).ranked_files() == []
    semantic = [(section, 0.7), ("media.py::shrink", 0.6), ("gone.py::f", 0.5), ("mail.py::send", 0.3)]
    ranking = rank_task(conn, task, nearest=Nearest(symbols=semantic))
    assert ranking.ranked_files() == ["media.py", "mail.py"]  # where it is documented is not where it changes
    shrink, send = ranking.symbols["media.py::shrink"], ranking.symbols["mail.py::send"]
    assert shrink.why == ["means what the task says (0.60)"] and send.score == pytest.approx(shrink.score / 2)


def test_a_task_sized_search_finds_symbols_holding_some_of_its_words(repo: Repo, conn: sqlite3.Connection) -> None:
    indexed(
        repo,
        conn,
        {
            "app/multipart.py": 'def parse_boundary(header):\n    """The multipart boundary of a content type."""\n'
            "    return header\n",
            "app/json.py": "def loads(text):\n    return text\n",
        },
    )
    hits = queries.search(conn, "the multipart boundary is lost when the header is quoted")
    assert hits and hits[0]["id"] == "app/multipart.py::parse_boundary"
    assert hits[0]["why"]
    assert queries.search(conn, "parse boundary")[0]["id"] == "app/multipart.py::parse_boundary"
    assert queries.search(conn, "json boundary") == []  # two words: every word must match, as before


def test_file_kinds_and_task_sized_queries() -> None:
    assert file_kind("dist/esm/axios.js", "javascript") == "generated"
    assert file_kind("deps/llhttp/src/llhttp.c", "c") == "generated"  # vendored, as Node projects keep it
    assert file_kind("types/fetch.d.ts", "typescript") == "declarations"
    assert file_kind("src/driver/mongodb/bson.typings.ts", "typescript") == "declarations"
    assert file_kind("karma.conf.cjs", "javascript") == "config"
    assert file_kind(".github/workflows/ci.yml", "yaml") == "ci"
    assert file_kind("examples/server.js", "javascript") == "example"
    assert file_kind("lib/axios.js", "javascript") == "code"
    assert not about_kind("generated", "dist/axios.js", {"axios", "exports"}, [])  # a bundle bears the project's name
    assert about_kind("config", "pyproject.toml", {"pyproject", "version"}, [])
    assert not is_task_sized("parse_options_header_value")
    assert is_task_sized("multipart boundary quoted header")


def test_the_issue_a_commit_closes_is_not_what_it_changes() -> None:
    _, _, words = task_terms("fix: compare array columns\n\nCloses: #5967, fixes pallets/click#12\n\nclose the stream")
    assert words == ["compare", "array", "columns", "close", "stream"]


def test_annals_pack_prints_the_pack_and_its_json(repo: Repo, annals) -> None:  # type: ignore[no-untyped-def]
    repo.write(
        "shop/prices.py",
        'def parse_price(text):\n    """A price from text like \'12.50\'."""\n    return float(text)\n',
    )
    repo.commit("prices")
    annals("index", "--no-vectors")
    text = annals("pack", "parse_price rejects a comma", "--budget", "1000").stdout
    assert "# Context pack" in text and "shop/prices.py::parse_price" in text
    data = json.loads(annals("pack", "parse_price rejects a comma", "--json").stdout)
    assert data["symbols"][0]["id"] == "shop/prices.py::parse_price"
    assert "named in the task" in data["symbols"][0]["why"]
    assert data["tokens_used"] <= data["budget_tokens"]
    bad = annals("pack", "parse_price", "--budget", "10", check=False)
    assert bad.returncode != 0 and "--budget" in bad.stderr and "Traceback" not in bad.stderr


def test_a_test_importing_the_package_as_its_users_do_speaks_for_no_one_file(
    repo: Repo, conn: sqlite3.Connection
) -> None:
    """fastify's tests `require('..')`: the package's entry file at the top, which every test imports so. A test
    matching the task says nothing there of which file changes (its name does): the entry file takes no fold
    credit from it, while a file it imports by path does."""
    indexed(
        repo,
        conn,
        {
            "package.json": '{"name": "shop", "main": "shop.js"}',
            "shop.js": "const hooks = require('./lib/hooks')\nmodule.exports = function shop() { return hooks }\n",
            "lib/hooks.js": "function addHook(name, fn) {\n  return [name, fn]\n}\nmodule.exports = { addHook }\n",
            "lib/util.js": "function noop() {}\nmodule.exports = { noop }\n",
            "test/hooks.test.js": "const shop = require('..')\nconst { noop } = require('../lib/util')\n"
            "function onRequestHooksRunOnce() {\n  shop().addHook('onRequest', noop)\n}\n",
        },
    )
    ranking = rank_task(conn, "onRequest hooks run twice", root=repo.root)
    said = "tested by test/hooks.test.js, which matches"
    assert said in ranking.why["lib/util.js"] and said not in ranking.why.get("shop.js", [])


def test_the_pack_says_which_files_the_task_names_are_not_in_the_tree(repo: Repo, conn: sqlite3.Connection) -> None:
    """An agent told of lib/router.js that express no longer has goes looking for it: the pack says it is gone,
    and where the history last saw it (moved, removed or changed)."""
    repo.write("lib/router.js", "function route(path) {\n  return path\n}\n")
    repo.write("lib/legacy.js", "function old() {\n  return 1\n}\n")
    repo.commit("router and legacy")
    repo.write("lib/routing/router.js", (repo.root / "lib/router.js").read_text())
    repo.remove("lib/router.js")
    repo.commit("Move the router into lib/routing")
    repo.remove("lib/legacy.js")
    repo.commit("Drop the legacy helpers")
    index_tree(repo.root, conn, source="cli")
    backfill(repo.root, conn)
    task = "fix lib/router.js, lib/legacy.js and lib/nowhere.js; see routing/router.js and site-packages/x/y.py"
    pack, text = build_pack(repo.root, conn, task, 8000)
    by_path = {m["path"]: m["last_seen"] for m in pack["missing"]}
    assert list(by_path) == ["lib/router.js", "lib/legacy.js", "lib/nowhere.js"]  # routing/router.js is held
    assert by_path["lib/router.js"]["how"] == "moved to lib/routing/router.js"
    legacy = by_path["lib/legacy.js"]
    assert (legacy["how"], legacy["title"]) == ("removed", "Drop the legacy helpers")
    assert by_path["lib/nowhere.js"] is None
    assert "Not in this tree: lib/router.js (moved to lib/routing/router.js by " in text
    assert build_pack(repo.root, conn, "fix routing/router.js", 8000)[0]["missing"] == []


def test_a_javascript_path_names_the_typescript_file_it_is_compiled_from(repo: Repo, conn: sqlite3.Connection) -> None:
    """A TypeScript project's ESM code imports `./core/index.js`, and a stack trace shows the JavaScript: the path
    names source/core/index.ts, which is in the tree."""
    repo.write("source/core/index.ts", "export function retry(limit: number) {\n  return limit\n}\n")
    repo.write("source/core/options.ts", "export function limits() {\n  return retryLimit()\n}\n")
    repo.write("source/index.ts", "export * from './core/index.js';\n")
    repo.commit("got")
    index_tree(repo.root, conn, source="cli")
    pack, text = build_pack(repo.root, conn, "The retry limit in source/core/index.js is ignored", 8000)
    assert pack["missing"] == []
    assert [m["path"] for m in pack["modules"]][0] == "source/core/index.ts"
    assert "named in the task" in pack["modules"][0]["why"]
    assert "Not in this tree" not in text


def test_annals_pack_does_not_load_the_mcp_sdk(repo: Repo, annals, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """The command line's pack is the server's answer without the server: importing the MCP SDK took 0.9 s of a
    5 s `annals pack` on typeorm."""
    repo.write("shop/prices.py", "def parse_price(text):\n    return float(text)\n")
    repo.commit("prices")
    annals("index", "--no-vectors")
    monkeypatch.setenv("PYTHONPROFILEIMPORTTIME", "1")  # every module imported, on stderr
    run = annals("pack", "parse_price rejects a comma", "--json")
    assert json.loads(run.stdout)["symbols"][0]["id"] == "shop/prices.py::parse_price"
    imported = [line.rpartition("|")[2].strip() for line in run.stderr.splitlines() if line.startswith("import time:")]
    assert "codeannals.server.contextpack" in imported
    assert not [m for m in imported if m == "mcp" or m.startswith("mcp.")]


def test_the_pack_lists_more_symbols_of_its_files_by_signature(repo: Repo, conn: sqlite3.Connection) -> None:
    body = '    """Retry the request with backoff."""\n    return request\n\n\n'
    functions = "".join(f"def retry_{n}(request):\n{body}" for n in range(8))
    indexed(repo, conn, {"app/retry.py": functions, "app/other.py": "def unrelated():\n    return 1\n"})
    pack, _ = build_pack(repo.root, conn, "retry backoff for the request", 8000)
    symbols = pack["symbols"]
    assert len(symbols) > MAX_CANDIDATES
    assert {s["path"] for s in symbols} == {"app/retry.py"}  # no file the ranking did not put first
    assert all(s["source"] for s in symbols[:2]) and all(s["source"] is None for s in symbols[MAX_CANDIDATES:])


def test_the_pack_shows_a_module_as_it_is_after_a_change(repo: Repo, conn: sqlite3.Connection) -> None:
    # The pack keeps what it shows of a module between packs; a re-index of any file lets it go.
    indexed(repo, conn, {"app/retry.py": "def retry(request):\n    return request\n"})
    pack, _ = build_pack(repo.root, conn, "retry the request", 8000)
    assert pack["modules"][0]["api"][0]["signature"] == "def retry(request)"
    repo.write("app/retry.py", "def retry(request, attempts=3):\n    return request\n")
    index_tree(repo.root, conn, source="cli")
    pack, _ = build_pack(repo.root, conn, "retry the request", 8000)
    assert pack["modules"][0]["api"][0]["signature"] == "def retry(request, attempts=3)"
    pack["modules"][0]["api"].clear()  # the caller's to change: the next pack is whole
    assert build_pack(repo.root, conn, "retry the request", 8000)[0]["modules"][0]["api"]


def test_a_call_the_task_names_ranks_its_caller(repo: Repo, conn: sqlite3.Connection) -> None:
    indexed(
        repo,
        conn,
        {
            "app/pin.py": "import getpass\n\n\ndef machine_pin():\n    return getpass.getuser()\n",
            "app/users.py": 'def current_user(request):\n    """The user of the request, or an anonymous one."""\n'
            "    return request\n",
        },
    )
    ranking = rank_task(conn, "catch OSError from getpass.getuser when the user is unknown")
    best = ranking.ranked_symbols()[0]
    assert best.symbol["id"] == "app/pin.py::machine_pin"
    assert "calls getpass.getuser" in best.why
    assert ranking.ranked_files()[0] == "app/pin.py"


def test_a_package_the_task_names_ranks_the_files_importing_it(repo: Repo, conn: sqlite3.Connection) -> None:
    # No code says the task's words; scan.js imports the package the task replaces (find.py, Python's own
    # module of that name).
    indexed(
        repo,
        conn,
        {
            "lib/scan.js": "const glob = require('glob')\nconst path = require('path')\n\n"
            "function scan (dir) {\n  return glob.sync(path.join(dir, '*'))\n}\nmodule.exports = { scan }\n",
            "lib/paths.js": "const path = require('path')\n\nfunction joined (a) {\n  return path.join(a)\n}\n",
            "test/scan.test.js": "const glob = require('glob')\ntest('scan', () => glob.sync('*'))\n",
            "tools/find.py": "import glob\n\n\ndef find(pattern):\n    return glob.glob(pattern)\n",
        },
    )
    ranking = rank_task(conn, "replace glob with tinyglobby, which is smaller")
    assert ranking.ranked_files()[0] == "lib/scan.js"
    assert "imports glob, which the task names" in ranking.why["lib/scan.js"]
    # Standard modules are everyday words: `path` names no dependency; nor does a test import one.
    assert not any("imports" in w for w in ranking.why.get("lib/paths.js", []))
    assert not any("imports" in w for w in ranking.why.get("test/scan.test.js", []))
    assert named_packages(conn, "fix the path to the files") == {}
    assert named_packages(conn, "use the glob package") == {"glob": ["lib/scan.js"]}
    assert named_packages(conn, "see https://example.com/glob") == {}


def test_a_rust_crate_the_task_names_ranks_the_files_using_it(repo: Repo, conn: sqlite3.Connection) -> None:
    # actix-web's `chore(files): upgrade v_htmlescape to 0.17` changed the one file that uses the crate.
    indexed(
        repo,
        conn,
        {
            "files/src/directory.rs": "use std::fmt::Write;\nuse v_htmlescape::escape as escape_html_entity;\n\n"
            "pub fn listing(name: &str) -> String {\n    escape_html_entity(name).to_string()\n}\n",
            "http/src/upgrade.rs": "use std::io;\n\n/// Upgrade the connection.\npub fn upgrade() -> io::Result<()> {\n"
            "    use io::Read;\n    Ok(())\n}\n",
        },
    )
    assert named_packages(conn, "upgrade v_htmlescape to 0.17") == {"v-htmlescape": ["files/src/directory.rs"]}
    ranking = rank_task(conn, "chore: bump v_htmlescape to 0.17")
    assert ranking.ranked_files()[0] == "files/src/directory.rs"
    assert "imports v-htmlescape, which the task names" in ranking.why["files/src/directory.rs"]
    # `std`, and a name in scope (`use io::Read` after `use std::io`), name no crate of others.
    assert named_packages(conn, "use std::io instead") == {}
    assert named_packages(conn, "handle io errors") == {}


def test_index_records_the_newest_commits_within_a_limit_and_says_how_many_are_left(  # type: ignore[no-untyped-def]
    repo: Repo, conn: sqlite3.Connection, annals
) -> None:
    for n in range(4):
        repo.write("app/mod.py", f"def f():\n    return {n}\n")
        repo.commit(f"change {n}")
    index_tree(repo.root, conn, source="cli")
    report = backfill(repo.root, conn, limit=2)
    assert (report.recorded, report.already, report.reachable) == (2, 0, 4)
    titles = {r[0] for r in conn.execute("SELECT title FROM commits")}
    assert titles == {"change 3", "change 2"}  # the newest
    assert backfill(repo.root, conn, limit=2, seconds=0.0).recorded == 0  # both known already
    data = json.loads(annals("index", "--no-vectors", "--json").stdout)
    assert data["history"]["reachable"] == 4 and data["history"]["recorded"] + data["history"]["already"] == 4


def test_the_body_that_holds_the_task_s_words_ranks_first_in_its_file(repo: Repo, conn: sqlite3.Connection) -> None:
    # Names and docstrings point at build_url ('routing'); only bind_to_environ's body reads the trusted hosts.
    indexed(
        repo,
        conn,
        {
            "app/routing.py": '"""Routing."""\n\n\ndef bind_to_environ(environ):\n'
            '    """Bind to the WSGI environment."""\n    host = environ["HTTP_HOST"]\n'
            "    if host not in TRUSTED_HOSTS:\n        raise ValueError(host)\n    return host\n\n\n"
            'def build_url(endpoint):\n    """Build the routing URL of an endpoint."""\n    return "/" + endpoint\n',
        },
    )
    task = "validate trusted hosts during routing"
    # The evidence before the last step (the symbols model of store/rerank.py weighs size as well).
    assert score_task(conn, task).ranked_symbols()[0].symbol["name"] == "build_url"  # names and docstrings only
    best = rank_task(conn, task, root=repo.root).ranked_symbols()[0]
    assert best.symbol["id"] == "app/routing.py::bind_to_environ"
    assert "its body has 'trusted', 'hosts'" in best.why
    assert score_task(conn, task, root=repo.root).ranked_symbols()[0].symbol["name"] == "bind_to_environ"
    # A file changed on disk since it was indexed is not read: its line spans would point elsewhere.
    repo.write("app/routing.py", "# moved\n" * 20)
    assert score_task(conn, task, root=repo.root).ranked_symbols()[0].symbol["name"] == "build_url"


def test_a_class_scores_its_own_lines_not_its_methods(repo: Repo, conn: sqlite3.Connection) -> None:
    indexed(
        repo,
        conn,
        {
            "app/store.py": "class Store:\n    capacity = 10\n\n    def evict(self):\n"
            "        self.lru_cache.pop_oldest()\n        return self.lru_cache\n\n"
            "    def size(self):\n        return self.capacity\n",
        },
    )
    ranking = rank_task(conn, "evicts from the lru cache too early", root=repo.root)
    assert ranking.ranked_symbols()[0].symbol["id"] == "app/store.py::Store.evict"
    assert "its body has 'evicts', 'lru', 'cache'" in ranking.symbols["app/store.py::Store.evict"].why
    store = ranking.symbols.get("app/store.py::Store")  # its lines hold the method's words, not its own
    assert store is None or not any(w.startswith("its body has") for w in store.why)


def test_the_pack_s_bodies_cover_the_best_files_before_a_second_symbol_of_one(
    repo: Repo, conn: sqlite3.Connection
) -> None:
    files = {
        f"app/m{n}.py": "".join(
            f'def retry_{n}_{k}(request):\n    """Retry the request with backoff."""\n    return request\n\n\n'
            for k in range(3)
        )
        for n in range(6)
    }
    indexed(repo, conn, files)
    pack, _ = build_pack(repo.root, conn, "retry backoff for the request", 8000)
    bodies = [s for s in pack["symbols"] if s["source"]]
    assert len(bodies) == MAX_CANDIDATES and len({s["path"] for s in bodies}) == MAX_CANDIDATES
    # The second guesses go deeper into the files whose bodies are shown.
    rest = pack["symbols"][MAX_CANDIDATES:]
    assert rest and {s["path"] for s in rest} <= {s["path"] for s in bodies}


def test_the_pack_s_bodies_show_more_of_the_file_the_ranking_is_sure_of(repo: Repo, conn: sqlite3.Connection) -> None:
    files = {
        "app/retry.py": "".join(
            f'def retry_{k}(request):\n    """Retry the request with backoff."""\n    return request\n\n\n'
            for k in range(5)
        ),
        **{
            f"app/m{n}.py": f'def send_{n}(request):\n    """Send the request."""\n    return request\n'
            for n in range(5)
        },
    }
    indexed(repo, conn, files)
    pack, _ = build_pack(repo.root, conn, "app/retry.py: retry the request with backoff", 8000)
    assert pack["confidence"]["level"] == "high"
    bodies = [s["path"] for s in pack["symbols"] if s["source"]]
    assert bodies[:LEAD_BODIES] == ["app/retry.py"] * LEAD_BODIES and len(set(bodies)) > 1


def test_a_fair_lead_shows_its_file_s_bodies_and_hedges_the_second_guesses() -> None:
    """A first file scoring 1.2 to 1.6 times the next gives the first four bodies, and the best of the files it took
    the place of come first among the second guesses; a clear lead needs no hedge; a slight one, the bodies hedge."""

    def candidates(files: dict[str, float]) -> dict[str, Candidate]:
        out = {}
        for path, score in files.items():
            for n in range(6):
                row = {"id": f"{path}::f{n}", "path": path, "qualname": f"f{n}", "start_line": 10 * n + 1}
                out[f"{path}::f{n}"] = Candidate({**row, "end_line": 10 * n + 5}, score - n)
        return out

    files = {"a.py": 13.0, "b.py": 10.0, "c.py": 9.0, "d.py": 8.0, "e.py": 7.0}
    ranking = Ranking(candidates(files), files, {}, [])
    chosen, hedged = lead_candidates(ranking, "a.py", tests_last=True)
    assert [c.symbol["path"] for c in chosen] == ["a.py"] * LEAD_BODIES + ["b.py"]
    seconds = more_candidates(ranking.symbols, chosen, files, MORE_CANDIDATES, hedged)
    assert [c.symbol["id"] for c in seconds] == ["c.py::f0", "d.py::f0", "e.py::f0", "a.py::f4", "a.py::f5"]
    clear = {**files, "a.py": 20.0}
    chosen, hedged = lead_candidates(Ranking(candidates(clear), clear, {}, []), "a.py", tests_last=True)
    assert [c.symbol["path"] for c in chosen][:LEAD_BODIES] == ["a.py"] * LEAD_BODIES and hedged == []
    slight = {**files, "a.py": 11.0}
    chosen, hedged = lead_candidates(Ranking(candidates(slight), slight, {}, []), "a.py", tests_last=True)
    assert [c.symbol["path"] for c in chosen] == ["a.py", "b.py", "c.py", "d.py", "e.py"] and hedged == []


@pytest.mark.parametrize("module", ["tests", "test"])
def test_a_rust_unit_test_beside_the_code_is_an_edit_candidate_after_the_code(
    repo: Repo, conn: sqlite3.Connection, module: str
) -> None:
    # Cargo's unit tests live in the file they test, in `mod tests` (awc's pool: `mod test`): they say which file, not
    # what to edit.
    decode = (
        "pub fn read_size(line: &str) -> usize {\n    line.len()\n}\n\n"
        f"#[cfg(test)]\nmod {module} {{\n    #[test]\n"
        '    fn chunked_size_missing_digit_is_rejected() {\n        super::read_size("chunked");\n    }\n}\n'
    )
    indexed(
        repo, conn, {"src/decode.rs": decode, "src/encode.rs": "pub fn write_size(n: usize) -> usize {\n    n\n}\n"}
    )
    pack, _ = build_pack(repo.root, conn, "reject a chunked size missing a digit", 8000)
    ids = [s["id"] for s in pack["symbols"] if s["path"] == "src/decode.rs"]
    assert ids.index("src/decode.rs::read_size") < ids.index(
        f"src/decode.rs::{module}.chunked_size_missing_digit_is_rejected"
    )


def test_a_method_of_a_class_shown_in_full_is_a_second_guess(repo: Repo, conn: sqlite3.Connection) -> None:
    indexed(
        repo,
        conn,
        {
            "app/cache.py": 'class Cache:\n    """A cache with expiry."""\n\n    def expire(self):\n'
            '        """Expire the cache entries."""\n        return None\n'
        },
    )
    pack, _ = build_pack(repo.root, conn, "Cache expire drops fresh entries", 8000)
    ids = [s["id"] for s in pack["symbols"]]
    assert set(ids) == {"app/cache.py::Cache", "app/cache.py::Cache.expire"}


def test_one_block_of_the_pack_does_not_take_the_room_of_the_blocks_after_it() -> None:
    huge = "- name\n" * 2_000  # a module of a thousand names, in full; then its name alone
    big = Block(
        "modules",
        lambda: [(huge, {"path": "big.py"}), ("- big.py", {"path": "big.py"})],
        Omission("contract", "get_module_contract", "big.py"),
    )
    small = Block(
        "modules",
        lambda: [("- small.py", {"path": "small.py"})],
        Omission("contract", "get_module_contract", "small.py"),
    )
    picks, omitted, _ = fit([big, small], 3_000, "# Context pack")
    assert [item["path"] for _, _, item, _ in picks] == ["big.py", "small.py"] and not omitted


def test_what_a_small_pack_leaves_out_names_each_symbol_and_module_once() -> None:
    omitted = [
        Omission("body", "get_symbol", "a.py::f"),
        Omission("contract", "get_module_contract", "a.py"),
        Omission("callers", "get_symbol", "a.py::f"),
        Omission("tests to run", "impact_analysis", note=" on the symbols above"),
        Omission("body", "get_symbol", "b.py::g"),
        Omission("contract", "get_module_contract", "b.py"),
    ]
    assert left_out(omitted) == [
        "get_symbol: a.py::f (body, callers), b.py::g (body)",
        "get_module_contract (contract): a.py, b.py",
        "tests to run: impact_analysis on the symbols above",
    ]
    assert str(omitted[0]) == "body of a.py::f: get_symbol('a.py::f')"  # the structured answer's, one by one
    many = [Omission("contract", "get_module_contract", f"m{i}.py") for i in range(LEFT_OUT_NAMED + 2)]
    named = ", ".join(f"m{i}.py" for i in range(LEFT_OUT_NAMED))
    assert left_out(many) == [f"get_module_contract (contract): {named}, and 2 more"]


def test_a_pack_of_the_smallest_budget_still_shows_code(repo: Repo, conn: sqlite3.Connection) -> None:
    # Its list of what it left out, a line per body, contract and callers, once took the whole budget.
    indexed(
        repo,
        conn,
        {
            f"app/part{i}.py": f'def handle_order_{i}(order):\n    """Handle order {i}."""\n    return order\n'
            for i in range(12)
        },
    )
    pack, markdown = build_pack(repo.root, conn, "handle order fails for an empty order", 500)
    assert pack["tokens_used"] <= 500 and pack["omitted"]
    assert pack["modules"] or pack["symbols"], markdown


def test_a_file_whose_code_holds_the_task_s_words_ranks_up(repo: Repo, conn: sqlite3.Connection) -> None:
    # The names and docstrings point at views.py; the code that reads the expiry is in store.py.
    indexed(
        repo,
        conn,
        {
            "app/views.py": 'def list_entries(request):\n    """The entries of a request."""\n    return request\n',
            "app/store.py": 'def put(key, value):\n    """Put an entry in the cache."""\n'
            "    deadline = now() + EXPIRY_SECONDS\n    if ignore_expiry or deadline > limit_seconds:\n"
            "        return None\n    return deadline\n",
        },
    )
    task = "cache entries ignore expiry seconds"
    assert rank_task(conn, task).ranked_files()[0] == "app/views.py"
    ranking = rank_task(conn, task, root=repo.root)
    assert ranking.ranked_files()[0] == "app/store.py"
    assert "its code has 'cache', 'ignore', 'expiry', 'seconds'" in ranking.why["app/store.py"]


def test_when_the_words_find_no_file_the_code_is_read(repo: Repo, conn: sqlite3.Connection) -> None:
    indexed(
        repo,
        conn,
        {
            "app/client.py": "def send(request):\n    if running_on_node and not has_native_fetch:\n"
            "        return polyfill(request)\n    return request\n",
            "app/other.py": "def unrelated():\n    return 1\n",
        },
    )
    task = "Fix compatibility with native fetch on Node"
    assert rank_task(conn, task).ranked_files() == []  # no name, signature or docstring has a word of it
    ranking = rank_task(conn, task, root=repo.root)
    assert ranking.ranked_files() == ["app/client.py"]
    assert ranking.ranked_symbols()[0].symbol["id"] == "app/client.py::send"


def test_long_bodies_leave_room_for_the_second_guesses(repo: Repo, conn: sqlite3.Connection) -> None:
    body = "".join(f"    step_{n} = request.retry_count + {n}\n" for n in range(140)) + "    return request\n\n\n"
    head = '(request):\n    """Retry the request with backoff."""\n'
    files = {f"app/m{n}.py": "".join(f"def retry_{n}_{k}{head}{body}" for k in range(3)) for n in range(5)}
    indexed(repo, conn, files)
    pack, _ = build_pack(repo.root, conn, "retry backoff for the request", 8000)
    assert len([s for s in pack["symbols"] if s["source"]]) == MAX_CANDIDATES
    assert len(pack["symbols"]) == 2 * MAX_CANDIDATES and pack["tokens_used"] <= 8000


def test_a_matching_test_file_speaks_for_the_code_it_tests(repo: Repo, conn: sqlite3.Connection) -> None:
    indexed(
        repo,
        conn,
        {
            "app/__init__.py": "",
            "app/cache.py": "def get(key):\n    return STORE.get(key)\n",
            "app/misc.py": 'def helper():\n    """Timing under load."""\n    return 1\n',
            "tests/test_cache.py": "from app.cache import get\n\n\n"
            "def test_entries_expire_under_load():\n    assert get('k') is None\n",
        },
    )
    ranking = rank_task(conn, "entries expire too late under load")
    code = [p for p in ranking.ranked_files() if p.startswith("app/")]
    assert code[0] == "app/cache.py"
    assert "tested by tests/test_cache.py, which matches" in ranking.why["app/cache.py"]


def test_the_ten_rarest_words_rank(repo: Repo, conn: sqlite3.Connection) -> None:
    # Seven words name one helper each; the eighth, rarer than none of them, is the one two symbols share.
    decoys = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf"]
    files = {f"app/m{n}.py": f"def {w}_helper():\n    return 1\n" for n, w in enumerate(decoys)}
    files["app/retry.py"] = "def hotel_retry():\n    return 1\n\n\ndef hotel_backoff():\n    return 2\n"
    files["app/other.py"] = "".join(f"def unrelated_{n}():\n    return {n}\n\n\n" for n in range(40))
    indexed(repo, conn, files)
    ranking = rank_task(conn, " ".join([*decoys, "hotel"]))
    assert "hotel" in ranking.words
    assert ranking.ranked_files()[0] == "app/retry.py"


def test_the_subject_s_words_rank_before_the_body_s_rarer_ones(repo: Repo, conn: sqlite3.Connection) -> None:
    # Ten words of the body name one helper each; 'chunked', the subject's, is in two symbols: rarer than none.
    decoys = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "india", "juliet", "kilo"]
    files = {f"app/m{n}.py": f"def {w}_helper():\n    return 1\n" for n, w in enumerate(decoys)}
    files["app/decode.py"] = "def chunked_size():\n    return 1\n\n\ndef chunked_step():\n    return 2\n"
    files["app/other.py"] = "".join(f"def unrelated_{n}():\n    return {n}\n\n\n" for n in range(40))
    indexed(repo, conn, files)
    ranking = rank_task(conn, "limit chunked\n\n" + " ".join(decoys))
    assert ranking.words[0] == "chunked"
    assert ranking.ranked_files()[0] == "app/decode.py"


def test_the_subject_s_words_weigh_more_in_the_code_than_the_body_s(repo: Repo, conn: sqlite3.Connection) -> None:
    # Each word is in one file's code alone, as often: the subject's word says which file.
    body = "def f{n}(x):\n" + "    x = x.{word}()\n" * 3 + "    return x\n"
    files = {"app/a.py": body.format(n=1, word="prose"), "app/b.py": body.format(n=2, word="chunked")}
    indexed(repo, conn, files)
    ranking = score_task(conn, "limit chunked\n\nsome prose", root=repo.root)
    assert ranking.ranked_files()[0] == "app/b.py"
    assert ranking.parts["app/b.py"]["code words"] > ranking.parts["app/a.py"]["code words"]


def test_of_two_candidates_matching_alike_the_longer_ranks_first(repo: Repo, conn: sqlite3.Connection) -> None:
    # Both match only by their file's path; a_short would come first by its id.
    long_body = "".join(f"    total += {n}\n" for n in range(20))
    short = "def a_short():\n    return 1\n\n\n"
    indexed(repo, conn, {"app/throttle.py": f"{short}def b_long():\n    total = 0\n{long_body}    return total\n"})
    ranking = rank_task(conn, "throttle is too eager", root=repo.root)
    assert [c.symbol["name"] for c in ranking.ranked_symbols()] == ["b_long", "a_short"]


def test_the_pack_says_how_sure_it_is_of_its_first_module(repo: Repo, conn: sqlite3.Connection) -> None:
    indexed(
        repo,
        conn,
        {
            "app/headers.py": "def parse_options_header(value):\n    return value.split(';')\n",
            "app/settings.py": 'def load_settings(path):\n    """Read the settings file."""\n    return path\n',
            "app/config.py": 'def read_config(path):\n    """Read the settings file."""\n    return path\n',
        },
    )
    pack, markdown = build_pack(repo.root, conn, "headers.py: parse_options_header drops the last option")
    assert pack["confidence"] == {"level": "high", "why": "app/headers.py is named in the task"}
    assert "Confidence in the first module: high (app/headers.py is named in the task)." in markdown
    # Two files match alike: the first shown is a guess, and the pack says so.
    pack, markdown = build_pack(repo.root, conn, "read the settings file twice")
    assert pack["confidence"]["level"] == "low"
    assert "weigh the first few files alike" in pack["confidence"]["why"]


def test_a_path_under_the_project_s_own_name_names_its_file(repo: Repo, conn: sqlite3.Connection) -> None:
    # Users import `pino/file`: the task says so, and means file.js at the root.
    indexed(
        repo,
        conn,
        {
            "package.json": '{"name": "pino", "main": "pino.js"}\n',
            "pino.js": "function destination(options) {\n  return options.mode;\n}\n"
            "module.exports = { destination };\n",
            "file.js": "module.exports = function (opts) {\n  return opts;\n};\n",
        },
    )
    ranking = rank_task(conn, "pass the mode option of the pino/file transport to destination", root=repo.root)
    assert ranking.ranked_files()[0] == "file.js"
    assert "named in the task" in ranking.why["file.js"]


def test_the_project_s_name_follows_its_manifest(tmp_path: Path) -> None:
    # Read once while the file stands (every pack asks for it), read again once it changes or goes.
    manifest = tmp_path / "package.json"
    manifest.write_text('{"name": "pino"}\n')
    assert project_name(tmp_path) == project_name(tmp_path) == "pino"
    manifest.write_text('{"name": "@pinojs/pino-pretty"}\n')
    assert project_name(tmp_path) == "pino-pretty"
    manifest.unlink()
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "Werkzeug"\n')
    assert project_name(tmp_path) == "werkzeug"


def test_a_scope_naming_a_path_without_its_extension_names_the_file(repo: Repo, conn: sqlite3.Connection) -> None:
    # A conventional commit's scope names the module as people say it: lower case, no extension.
    indexed(
        repo,
        conn,
        {
            "lib/core/Axios.js": "class Axios {\n  request(config) {\n    return config;\n  }\n}\n",
            "lib/core/AxiosError.js": "class AxiosError extends Error {\n  toJSON() {\n"
            "    return this.stack;\n  }\n}\n",
        },
    )
    ranking = rank_task(conn, "fix(core/axios): handle an un-writable error stack")
    assert ranking.ranked_files()[0] == "lib/core/Axios.js"
    assert "named in the task" in ranking.why["lib/core/Axios.js"]


def test_a_bare_module_name_names_the_project_s_module(repo: Repo, conn: sqlite3.Connection) -> None:
    indexed(
        repo,
        conn,
        {
            "pyproject.toml": '[project]\nname = "shop"\n',
            "src/shop/__init__.py": "",
            "src/shop/utils.py": "class LazyFile:\n    def __init__(self, name):\n        self.name = name\n",
            "src/shop/core.py": "class Command:\n    def __init__(self, name, attributes=None):\n"
            "        self.name = name\n",
        },
    )
    ranking = rank_task(conn, "Add type annotations for instance attributes in `utils`", root=repo.root)
    assert ranking.ranked_files()[0] == "src/shop/utils.py"
    assert "named in the task" in ranking.why["src/shop/utils.py"]


def test_the_pack_shows_its_modules_in_the_ranking_s_order() -> None:
    # The budget went to the edit candidate's module first; the ranking put another module above it.
    picks = [
        ("symbols", "body of b.f", {"id": "b.py::f"}, ""),
        ("modules", "contract of b.py", {"path": "b.py"}, ""),
        ("callers", "callers of b.f", {"symbol": "b.py::f"}, ""),
        ("modules", "contract of a.py", {"path": "a.py"}, ""),
    ]
    shown = in_ranked_order(picks, ["a.py", "b.py"])
    assert [p[1] for p in shown] == ["body of b.f", "contract of a.py", "callers of b.f", "contract of b.py"]


def test_an_acronym_led_name_and_a_constant_are_identifiers_of_the_task(repo: Repo, conn: sqlite3.Connection) -> None:
    assert task_terms("treat SSLEOFError as dropped; wrap IPv6 SERVER_NAME; open PRs and URLs")[1] == [
        "SSLEOFError",
        "SERVER_NAME",
    ]
    indexed(
        repo,
        conn,
        {
            "app/errors.py": "class HTTPError(Exception):\n    pass\n",
            "app/client.py": 'def send(request):\n    """Send the request; an error status raises."""\n'
            "    return request\n",
            "app/settings.py": "MAX_REDIRECTS = 30\n",
        },
    )
    ranking = rank_task(conn, "raise HTTPError on an error status of the request", root=repo.root)
    assert ranking.ranked_files()[0] == "app/errors.py"
    assert "named in the task" in ranking.symbols["app/errors.py::HTTPError"].why
    constant = rank_task(conn, "lower MAX_REDIRECTS", root=repo.root).symbols["app/settings.py::MAX_REDIRECTS"]
    assert "named in the task" in constant.why
