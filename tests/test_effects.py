"""Side effects in module contracts: by the rules of data/side_effects.json, for calls as written and
as imported, and through the calls a function makes, each with its chain of calls as evidence."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from codeannals.indexer.run import index_tree
from codeannals.store import open_store
from codeannals.store.effects import EVIDENCE_PER_KIND, direct_effects, rules_digest
from codeannals.store.projections.contracts import RULES_DIGEST, ContractsProjection
from codeannals.store.queries import module_contract

from .conftest import Repo


def contract(repo: Repo, db_path: Path, path: str) -> dict[str, Any]:
    conn = open_store(db_path)
    index_tree(repo.root, conn)
    return module_contract(conn, path, with_tests=False)


def chains(c: dict[str, Any], kind: str) -> list[str]:
    return [e["evidence"] for e in c["side_effect_evidence"] if e["kind"] == kind]


def kinds_by_function(repo: Repo, db_path: Path, path: str, source: str, functions: list[str]) -> dict[str, list[str]]:
    """The kinds of effect each of the file's `functions` shows, the file written from `source` and indexed."""
    repo.write(path, source)
    evidence = contract(repo, db_path, path)["side_effect_evidence"]
    return {f: sorted({e["kind"] for e in evidence if e["symbol"] == f"{path}::{f}"}) for f in functions}


def test_an_effect_two_calls_away_is_reported_with_its_chain(repo: Repo, db_path: Path) -> None:
    repo.write(
        "store.py",
        "def save(data):\n    _prepare(data)\n\n\ndef _prepare(data):\n    _write(data)\n\n\n"
        "def _write(data):\n    with open('out.txt', 'w') as fh:\n        fh.write(data)\n",
    )
    c = contract(repo, db_path, "store.py")
    assert c["side_effects"] == ["files"]
    [save] = [e for e in c["side_effect_evidence"] if e["symbol"] == "store.py::save"]
    assert save["evidence"] == "save() -> _prepare() -> _write() -> open(...)"
    assert save["chain"] == ["store.py::save", "store.py::_prepare", "store.py::_write"]
    assert (save["path"], save["line"], save["calls"], save["basis"]) == ("store.py", 10, 2, "same file")
    assert chains(c, "files")[0].startswith("save()")  # the public function first


def test_an_effect_in_another_module_is_reached_through_the_import(repo: Repo, db_path: Path) -> None:
    repo.write("pkg/__init__.py", "")
    repo.write("pkg/disk.py", "import shutil\n\n\ndef wipe(path):\n    shutil.rmtree(path)\n")
    repo.write(
        "pkg/jobs.py",
        "from .disk import wipe\nfrom pkg import disk\n\n\n"
        "def clean(path):\n    wipe(path)\n\n\ndef reset(path):\n    disk.wipe(path)\n",
    )
    c = contract(repo, db_path, "pkg/jobs.py")
    assert c["side_effects"] == ["files"]
    assert set(chains(c, "files")) == {
        "clean() -> wipe() -> shutil.rmtree(...)",
        "reset() -> wipe() -> shutil.rmtree(...)",
    }
    assert {e["basis"] for e in c["side_effect_evidence"]} == {"imported name"}


def test_a_call_of_our_own_function_is_no_library_s_effect(repo: Repo, db_path: Path) -> None:
    """Rake's Task#invoke calls its own `execute(args)`: the code resolves the call to Task#execute, so it is not the
    database's `execute` its name would say (before, every Rake task said it touched a database); what execute itself
    calls still counts."""
    repo.write(
        "lib/task.rb",
        "class Task\n  def execute(args)\n    File.write(args, 'x')\n  end\n\n"
        "  def invoke\n    execute('out')\n  end\nend\n",
    )
    c = contract(repo, db_path, "lib/task.rb")
    assert c["side_effects"] == ["files"]
    assert "Task.invoke() -> Task.execute() -> File.write(...)" in chains(c, "files")


def test_a_method_reaches_effects_through_self(repo: Repo, db_path: Path) -> None:
    repo.write(
        "runner.py",
        "import subprocess\n\n\nclass Runner:\n    def run(self, argv):\n"
        "        return self._spawn(argv)\n\n"
        "    def _spawn(self, argv):\n        return subprocess.run(argv)\n",
    )
    c = contract(repo, db_path, "runner.py")
    assert "Runner.run() -> Runner._spawn() -> subprocess.run(...)" in chains(c, "processes")


@pytest.mark.parametrize(
    ("refs", "basis"),
    [(True, "method"), (False, "base class")],
    ids=["the call graph resolves it", "calls indexed before refs: resolved here"],
)
def test_a_method_of_a_base_class_called_on_self_is_followed(repo: Repo, db_path: Path, refs: bool, basis: str) -> None:
    repo.write("base.py", "import os\n\n\nclass Store:\n    def remove(self, path):\n        os.unlink(path)\n")
    repo.write(
        "cache.py",
        "from base import Store\n\n\nclass Middle(Store):\n    pass\n\n\n"
        "class Cache(Middle):\n    def clear(self, path):\n        self.remove(path)\n",
    )
    conn = open_store(db_path)
    index_tree(repo.root, conn)
    if not refs:
        conn.execute("UPDATE calls SET ref = NULL")
    c = module_contract(conn, "cache.py", with_tests=False)
    [clear] = [e for e in c["side_effect_evidence"] if e["symbol"] == "cache.py::Cache.clear"]
    assert (clear["evidence"], clear["basis"]) == ("Cache.clear() -> Store.remove() -> os.unlink(...)", basis)


@pytest.mark.parametrize(
    "source",
    [
        "import os\n\n\ndef check(p):\n    return os.stat(p).st_size and os.access(p, os.R_OK)\n",
        "from os import stat\n\n\ndef check(p):\n    return stat(p).st_size\n",
        "from os import path\n\n\ndef check(p):\n    return path.exists(p)\n",
        "import os.path\n\n\ndef check(p):\n    return os.path.isfile(p)\n",
    ],
    ids=["import os", "from os import stat", "from os import path", "import os.path"],
)
def test_qualified_and_imported_file_calls_count_however_they_are_imported(
    repo: Repo, db_path: Path, source: str
) -> None:
    repo.write("check.py", source)
    assert contract(repo, db_path, "check.py")["side_effects"] == ["files"]


@pytest.mark.parametrize(
    "source",
    [
        "from pkg.shapes import open\n\n\ndef door():\n    return open('door')\n",
        "from . import log\n\n\ndef last():\n    return log.head()\n",
        "from pkg import requests\n\n\ndef fetch():\n    return requests.get('x')\n",
    ],
    ids=["builtin open", "logging", "requests"],
)
def test_a_name_imported_from_elsewhere_is_not_the_library_of_that_name(repo: Repo, db_path: Path, source: str) -> None:
    repo.write("pkg/__init__.py", "")
    repo.write("pkg/use.py", source)
    assert contract(repo, db_path, "pkg/use.py")["side_effects"] == []
    assert [e["kind"] for e in direct_effects("python", [{"name": "open", "qualifier": None, "line": 1}])] == ["files"]


def test_an_effect_run_on_import_says_so(repo: Repo, db_path: Path) -> None:
    repo.write(
        "setup_log.py",
        "import logging\nimport os\n\nlogging.basicConfig(level=logging.INFO)\nLOG = logging.getLogger(__name__)\n"
        "HOME = os.environ.get('HOME')\n",
    )
    c = contract(repo, db_path, "setup_log.py")
    assert chains(c, "logging") == ["on import: logging.basicConfig(...)"]  # a logger got writes nothing
    assert chains(c, "environment") == ["on import: HOME = os.environ.get(...)"]


def test_evidence_is_cut_to_the_best_and_says_how_many_more(repo: Repo, db_path: Path) -> None:
    body = "".join(f"def f{i}():\n    print({i})\n\n\n" for i in range(EVIDENCE_PER_KIND + 3))
    repo.write("talk.py", body + "def _quiet():\n    print('x')\n")
    c = contract(repo, db_path, "talk.py")
    assert len(chains(c, "printing")) == EVIDENCE_PER_KIND
    assert c["side_effects_omitted"] == {"printing": 4}
    assert not any(e["symbol"] == "talk.py::_quiet" for e in c["side_effect_evidence"])  # public ones first
    from click.testing import CliRunner
    from codeannals.server.commands import cli

    text = CliRunner().invoke(cli, ["-C", str(repo.root), "--db", str(db_path), "contract", "talk.py"]).output
    assert "printing    ... 4 more: `annals contract --all-effects talk.py`" in text
    everything = (
        CliRunner()
        .invoke(cli, ["-C", str(repo.root), "--db", str(db_path), "contract", "--all-effects", "talk.py"])
        .output
    )
    assert everything.count("    printing ") == EVIDENCE_PER_KIND + 4 and "more:" not in everything


@pytest.mark.parametrize(
    ("path", "source", "kind", "chain"),
    [
        (
            "app.js",
            "const fs = require('fs');\nfunction save(d) { return write(d); }\n"
            "function write(d) { fs.writeFileSync('out', d); }\nmodule.exports = { save };\n",
            "files",
            "save() -> write() -> fs.writeFileSync(...)",
        ),
        (
            "main.go",
            'package main\n\nimport "os"\n\nfunc Save(d []byte) error { return write(d) }\n\n'
            'func write(d []byte) error { return os.WriteFile("out", d, 0o644) }\n',
            "files",
            "Save() -> write() -> os.WriteFile(...)",
        ),
        (
            "lib.rs",
            "pub fn run() { helper(); }\n\nfn helper() { std::process::exit(1); }\n",
            "processes",
            "run() -> helper() -> std::process::exit(...)",
        ),
        (
            "shape.c",
            '#include <stdio.h>\nstatic void log_it(int x) { printf("%d", x); }\nvoid area(int x) { log_it(x); }\n',
            "printing",
            "area() -> log_it() -> printf(...)",
        ),
        (
            "Store.java",
            "import java.nio.file.Files;\nimport java.nio.file.Path;\npublic class Store {\n"
            "  public void save(Path p) throws Exception { this.write(p); }\n"
            '  private void write(Path p) throws Exception { Files.writeString(p, "x"); }\n}\n',
            "files",
            "Store.save() -> Store.write() -> Files.writeString(...)",
        ),
        (
            "app.ts",
            "import { readFileSync } from 'fs';\nexport function load(): string { return read(); }\n"
            "function read(): string { return readFileSync('x', 'utf8'); }\n",
            "files",
            "load() -> read() -> readFileSync(...)",
        ),
    ],
    ids=["javascript", "go", "rust", "c", "java", "typescript"],
)
def test_chains_in_other_languages(repo: Repo, db_path: Path, path: str, source: str, kind: str, chain: str) -> None:
    repo.write(path, source)
    assert chain in chains(contract(repo, db_path, path), kind)


@pytest.mark.parametrize(
    ("path", "source", "effects"),
    [
        (  # a method named as a logging macro, or as a database call, is neither: Uri::query parses a URL
            "lib.rs",
            "pub fn handle(res: &Response) -> Option<String> {\n    if let Some(e) = res.error() {\n"
            '        error!("failed: {}", e);\n    }\n    res.uri().query().map(String::from)\n}\n\n'
            "pub fn quiet(res: &Response) -> bool {\n    res.error().is_some() && res.info().is_none()\n}\n",
            {"handle": ["logging"], "quiet": []},
        ),
        (  # an address or a response made is no network; binding a socket is
            "serve.rs",
            "use std::net::{SocketAddr, TcpListener};\n\npub fn addr() -> SocketAddr {\n"
            "    SocketAddr::from(([127, 0, 0, 1], 3000))\n}\n\npub fn reply() -> hyper::Response<()> {\n"
            "    hyper::Response::new(())\n}\n\npub fn listen() {\n    TcpListener::bind(addr()).unwrap();\n}\n",
            {"addr": [], "reply": [], "listen": ["network"]},
        ),
        (  # RegExp's exec is no process; child_process's, imported, is
            "run.js",
            "const { exec } = require('child_process');\n"
            "function version(s) { return /v(\\d+)/.exec(s); }\n"
            "function build() { exec('make'); }\nmodule.exports = { version, build };\n",
            {"version": [], "build": ["processes"]},
        ),
        (  # url.URL's Query parses a URL; QueryRow asks a database
            "main.go",
            'package main\n\nimport "net/url"\n\nfunc Page(u *url.URL) string { return u.Query().Get("page") }\n\n'
            'func Count(db DB) int { var n int; db.QueryRow("SELECT 1").Scan(&n); return n }\n',
            {"Page": [], "Count": ["database"]},
        ),
        (  # a tracker's open is no file's, nor std::bind a socket's; C's remove deletes one
            "track.cpp",
            "#include <cstdio>\n#include <functional>\nstruct Tracker { void open(); };\n"
            "void step(Tracker& t) { t.open(); std::bind(&Tracker::open, &t); }\n"
            'void wipe() { remove("out.txt"); }\n',
            {"step": [], "wipe": ["files"]},
        ),
    ],
    ids=["rust", "rust values", "javascript", "go", "cpp"],
)
def test_a_method_of_a_common_name_shows_no_effect_its_library_call_does(
    repo: Repo, db_path: Path, path: str, source: str, effects: dict[str, list[str]]
) -> None:
    assert kinds_by_function(repo, db_path, path, source, list(effects)) == effects


@pytest.mark.parametrize(
    ("path", "source", "effects"),
    [
        (  # a status code handed to a function is no request; http.Get makes one
            "main.go",
            'package main\n\nimport "net/http"\n\nfunc Status() int { return code(http.StatusOK) }\n\n'
            "func code(c int) int { return c }\n\nfunc Fetch(u string) { http.Get(u) }\n\n"
            'func Build(u string) { http.NewRequest("GET", u, nil) }\n',
            {"Status": [], "Fetch": ["network"], "Build": []},  # nor is a request made
        ),
        (  # a reader read whole is no file (a request's body, most often), nor a logger made a line logged
            "read.go",
            'package main\n\nimport (\n\t"io"\n\t"io/ioutil"\n\t"log"\n\t"os"\n)\n\n'
            "func Body(r io.Reader) []byte { b, _ := ioutil.ReadAll(r); return b }\n\n"
            "func Load(p string) []byte { b, _ := ioutil.ReadFile(p); return b }\n\n"
            'func Logger() *log.Logger { return log.New(os.Stderr, "", 0) }\n\n'
            'func Say() { log.Printf("hi") }\n',
            {"Body": [], "Load": ["files"], "Logger": [], "Say": ["logging"]},
        ),
        (  # a connection's builder made is no network, nor a variable `conn` the module it shadows; a handshake and
            # serving a connection are; a piped stdio is no process, nor a path list's text the environment
            "conn.rs",
            "use hyper::client::conn;\nuse hyper::server::conn::http1;\nuse std::env;\nuse std::process::Stdio;\n\n"
            "pub fn builder() -> http1::Builder {\n    http1::Builder::new()\n}\n\n"
            "pub async fn client(io: Io) {\n    let (_tx, conn) = conn::http1::handshake(io).await.unwrap();\n"
            "    conn.await.unwrap();\n}\n\n"
            "pub async fn serve(io: Io, svc: Svc) {\n    http1::Builder::new().serve_connection(io, svc).await;\n}\n\n"
            "pub fn piped() -> Stdio {\n    Stdio::piped()\n}\n\n"
            "pub fn paths(s: &str) -> usize {\n    env::split_paths(s).count()\n}\n\n"
            'pub fn home() -> Option<String> {\n    env::var("HOME").ok()\n}\n',
            {
                "builder": [],
                "client": ["network"],
                "serve": ["network"],
                "piped": [],
                "paths": [],
                "home": ["environment"],
            },
        ),
        (  # a request's query string printed is printing, not a database's query
            "show.js",
            "function show(request) { console.log(request.query); }\nmodule.exports = { show };\n",
            {"show": ["printing"]},
        ),
        (  # a path's text is no file read; File.read is
            "lib/site.rb",
            "class Site\n  def dest(root)\n    File.join(File.expand_path(root), '_site')\n  end\n\n"
            "  def config(path)\n    File.read(path)\n  end\nend\n",
            {"Site.dest": [], "Site.config": ["files"]},
        ),
        (  # a URL made is no request; opening its stream is
            "Fetch.java",
            "import java.net.URL;\nimport java.io.InputStream;\nimport java.nio.file.Path;\n"
            "import java.nio.file.Paths;\npublic class Fetch {\n"
            "  public URL parse(String s) throws Exception { return new URL(s); }\n"
            "  public Path at(String s) { return Paths.get(s); }\n"
            "  public InputStream get(URL u) throws Exception { return u.openStream(); }\n}\n",
            {"Fetch.parse": [], "Fetch.at": [], "Fetch.get": ["network"]},
        ),
        (  # a request, an error, a logger or a terminal's size made is none; opening the URL, logging, running are
            "fetch.py",
            "import logging\nimport shutil\nimport subprocess\nimport urllib.request\n\n\n"
            "def build(url):\n    return urllib.request.Request(url), subprocess.CalledProcessError(1, 'x')\n\n\n"
            "def setup():\n    return logging.getLogger(__name__), shutil.get_terminal_size()\n\n\n"
            "def get(url):\n    logging.info('get %s', url)\n    subprocess.run(['curl', url])\n"
            "    return urllib.request.urlopen(url)\n",
            {"build": [], "setup": [], "get": ["logging", "network", "processes"]},
        ),
        (  # a client made, a logger's child, an address checked are none; a default import's server is network
            "serve.js",
            "import axios from 'axios';\nimport http from 'http';\nimport net from 'net';\n"
            "export function client() { return axios.create({ baseURL: '/' }); }\n"
            "export function child(logger) { return logger.child({ id: 1 }) && net.isIP('::1'); }\n"
            "export function serve() { return http.createServer(); }\n"
            "export function get(logger) { logger.info('get'); return axios.get('/x'); }\n",
            {"client": [], "child": [], "serve": ["network"], "get": ["logging", "network"]},
        ),
    ],
    ids=["go", "go readers", "rust", "javascript", "ruby", "java", "python", "javascript imports"],
)
def test_a_value_handed_on_or_made_shows_no_effect(
    repo: Repo, db_path: Path, path: str, source: str, effects: dict[str, list[str]]
) -> None:
    assert kinds_by_function(repo, db_path, path, source, list(effects)) == effects


@pytest.mark.parametrize("star", [False, True])
def test_a_python_variable_named_as_a_module_is_not_that_module(repo: Repo, db_path: Path, star: bool) -> None:
    """A module is a name in a Python file only once it is imported: a list named `requests`, a mock named `socket`,
    call no library. A star import may bring the module (Django's settings), so its names are taken as written."""
    source = (
        ("from .base import *\n" if star else "import os\n")
        + "\n\ndef queue(requests, socket):\n    requests.get('/x')\n    socket.getaddrinfo('x', 80)\n\n\n"
        "def env():\n    return os.environ.get('HOME')\n"
    )
    effects = {"queue": ["network"] if star else [], "env": ["environment"]}
    assert kinds_by_function(repo, db_path, "settings.py", source, list(effects)) == effects


def test_a_method_of_what_an_effect_returned_is_not_its_evidence_again() -> None:
    """`fs::read(p).unwrap()` reads a file once: the read is the evidence, not the unwrap on what it returned."""
    calls = [
        {"name": "read", "qualifier": "fs::", "line": 3, "caller": "lib.rs::load"},
        {"name": "unwrap", "qualifier": 'fs::read("Cargo.toml")', "line": 3, "caller": "lib.rs::load"},
        {"name": "read_text", "qualifier": "Path(p)", "line": 4, "caller": "lib.rs::load"},
    ]
    assert [e["via"] for e in direct_effects("rust", calls[:2])] == ["fs::read"]
    assert [e["via"] for e in direct_effects("python", calls[2:])] == ["Path(p).read_text"]  # a method by its name


def test_the_rules_are_pinned_by_the_projection_version() -> None:
    """Change data/side_effects.json and this fails until RULES_DIGEST is set and the contracts
    projection's version bumped: then every database replays the new rules on its next open."""
    assert rules_digest() == RULES_DIGEST, "rules changed: set RULES_DIGEST and bump ContractsProjection.version"
    assert ContractsProjection.version >= 2


def test_rules_apply_to_old_events_on_replay(repo: Repo, db_path: Path) -> None:
    """Effects are found from the calls the log keeps, not stored when indexed: a replay finds them
    for events written before the rules changed."""
    from codeannals.store.maintenance import rebuild

    repo.write("check.py", "import os\n\n\ndef check(p):\n    return os.access(p, os.R_OK)\n")
    conn = open_store(db_path)
    index_tree(repo.root, conn)
    conn.execute("DELETE FROM call_effects")  # as a database of rules that knew no os.access
    assert module_contract(conn, "check.py", with_tests=False)["side_effects"] == []
    rebuild(conn)
    assert module_contract(conn, "check.py", with_tests=False)["side_effects"] == ["files"]


def test_the_mcp_contract_carries_the_chains_and_the_constants(repo: Repo) -> None:
    from codeannals.server.app import App
    from codeannals.server.mcp import build_server
    from codeannals.store import default_db_path

    from .mcp_support import call, data

    repo.write(
        "store.py",
        "DEFAULT_PATH = 'out.txt'\n_CACHE = {}\n\n\ndef save(data):\n    _write(data)\n\n\n"
        "def _write(data):\n    open(DEFAULT_PATH, 'w').write(data)\n",
    )
    repo.commit()
    conn = open_store(default_db_path(repo.root))
    index_tree(repo.root, conn)
    conn.close()
    answer = data(call(build_server(App.for_repo(repo.root)), "get_module_contract", {"path": "store.py"}))
    assert answer["side_effects"] == ["files"] and answer["side_effects_omitted"] == {}
    assert answer["side_effect_evidence"][0]["evidence"] == "save() -> _write() -> open(...)"
    assert [(a["name"], a["kind"], a["signature"]) for a in answer["public_api"]] == [
        ("DEFAULT_PATH", "const", "DEFAULT_PATH = 'out.txt'"),
        ("save", "function", "def save(data)"),
    ]
    symbol = data(call(build_server(App.for_repo(repo.root)), "get_symbol", {"symbol": "store.py::save"}))
    assert [(e["kind"], e["evidence"], e["calls"]) for e in symbol["side_effects"]] == [
        ("files", "save() -> _write() -> open(...)", 1)
    ]


@pytest.mark.parametrize(
    "source",
    [
        "import subprocess as sp\n\n\ndef go(argv):\n    return sp.run(argv)\n",
        "from subprocess import run as launch\n\n\ndef go(argv):\n    return launch(argv)\n",
    ],
    ids=["import as", "from import as"],
)
def test_calls_through_an_import_alias_count(repo: Repo, db_path: Path, source: str) -> None:
    repo.write("go.py", source)
    assert contract(repo, db_path, "go.py")["side_effects"] == ["processes"]
