"""Call edges of Java projects against the compiler's own bytecode, with a baseline.

    python bench/facts_calls_java.py [--mirrors DIR] [--cache DIR] [--only NAME,...] [--wrong N] [--json FILE]

Ground truth written by others: a project's main sources (a `fetch`ed mirror at a fixed tag, with no dependency a
JDK lacks, so `javac` alone builds them offline; gson's annotations jar and template as bench/facts_imports_java.py
fills them) compiled with `javac -g`, and every invoke instruction of the class files read (bench/java_classes.py):
the line it is on (the LineNumberTable; for `new C()`, the line writing it at or below its statement's first, javac
marking none for it), and what its Methodref names, resolved as the JVM resolves it, through the project's class
hierarchy, to the class declaring the method (the superclasses first, then the interfaces). A declaration in a class
of the JDK's, or inherited from one, is `outside`. A virtual call (invokevirtual, invokeinterface) may run an
override too: the methods of the project's subclasses with the same name and descriptor, or the one a bridge method
of theirs hands on to (`write(JsonWriter, String)` for TypeAdapter<String>'s `write(JsonWriter, Object)`); of a JDK
type, only those whose supertypes our classes name (`java.lang.Object`, `Iterable`, ... but not what a JDK class
implements in turn).

Not judged, and counted apart: a method reference or a lambda (invokedynamic; the calls in a lambda's body are
judged, at their lines); what javac generates (a string concatenation, a record's equals, a for-each loop's
`iterator()`, autoboxing's `valueOf`, an implicit `super()`, an enum's `values()` and its constants' constructors):
a call whose name (`super` or `this` for a constructor's, `new` and the class's for `new C()`) is not written on its
line, or made by a synthetic method or a bridge; a call of a synthetic method (an accessor); `new I() {...}` of an
interface; and two calls of one name on one line to different methods (the bytecode does not say which call of the
line our row is of). A declaration of the project is matched to our symbol of that name in its file (the class
file's package and SourceFile) whose lines hold the method's first line; a method without code (abstract, an
interface's) by the qualified name of its class and its number of parameters; a constructor is also the class
(`new C()` runs C's field initializers, and a default constructor is the class). Our index keeps overloads as
symbols of their own (`toJson#2`), so a call of the wrong overload is a wrong answer.

Each project is indexed with this checkout's `annals index --no-vectors` (fresh every run), and our call rows at a
judged site (same file, a line the row lists, and name) are answered three ways, as bench/facts_calls_go.py does:
- `resolved`: the targets on a followed basis (store/callgraph.py's FOLLOWED: same file, imported name, ...);
  nothing where it says none;
- `+guesses`: those, and where the index does not know, the guess by name that `callees` gives;
- `baseline`: the name-only rule on every site (the first symbol of the name: same file, then a file the
  caller imports, then any), as a tool matching names answers.
An answer is right when every target it names is the declaration or, for a virtual call, an override (the lines
under the table say how many right answers named which). Precision: right answers of those given; recall: right
answers of the sites the bytecode resolves to one of the project's symbols we index; `wrong outside`: answers
naming ours where the bytecode says the JDK's, but for an override of ours of the JDK's method, which is right and
left out of recall. Projects: google/gson 2.13.2 (its gson module), square/javapoet 1.13.0 and apache/commons-cli
1.11.0, and the hold-out apache/commons-codec 1.22.1, whose figures are read in total only, never site by site
(`--wrong` and `--json` leave its sites out). `--wrong N` prints N wrong `+guesses` answers (each target with its
basis: one on a followed basis is a wrong `resolved` answer) and N missed calls of each dev project, with the source
line; `--json FILE` writes them all.

First run (the index at 005c7ce, JDK 17.0.15; 26 s, javac and the indexing included): dev `resolved` precision .661
of 3,958 answers, recall .740 of 3,386 judged sites (gson .750 / .832, javapoet .541 / .631, commons-cli .623 /
.686), 512 wrong outside; `+guesses` .591 / .741, 993 wrong outside; the name-only baseline .590 / .741, 1,005 wrong
outside. Hold-out: `resolved` .755 of 1,897, recall .751 of 1,908; `+guesses` .615 / .779; baseline .615 / .779.
Constructors' calls (412 judged, dev) are near right (`resolved` P .995, R .886): what is missed is `super(...)` and
`this(...)`, which had no call row (our rows name them by the class whose constructor runs, as `new C()` is named). The
wrong `resolved` answers (1,343, dev): a call on a receiver of another type named a method of that name in the same file
or an imported one (489: `codeWriter.emit(..)` taken for AnnotationSpec.emit), a JDK call named ours (488:
`values.add(x)` on a List taken for CodeBlock.Builder.add), the class's first overload where the call's arguments name
another (320: `toJsonTree(src, src.getClass())`), a JDK method named another of ours than its overrides (22), a bare
call in a nested class's method taken for another class's of the file (22), `new URL(s)` taken for a field named URL
(2)."""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import os
import re
import shutil
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from facts_calls_go import _row, answers, print_sites  # noqa: E402  (bench/ is not a package)
from facts_imports_java import PROJECTS as GSON  # noqa: E402
from facts_imports_java import Project, run  # noqa: E402
from facts_tests import Lines, indexed_copy  # noqa: E402
from facts_tests_js import tag_tree  # noqa: E402
from java_classes import (  # noqa: E402
    ACC_ABSTRACT,
    ACC_BRIDGE,
    ACC_ENUM,
    ACC_FINAL,
    ACC_PRIVATE,
    ACC_STATIC,
    ACC_SYNTHETIC,
    ClassFile,
    Invoke,
    Method,
    read_class,
)

PROJECTS = (
    *GSON,
    Project("javapoet", "square/javapoet", "javapoet-1.13.0", "src/main/java", "", ""),
    Project("commons-cli", "apache/commons-cli", "rel/commons-cli-1.11.0", "src/main/java", "", ""),
    Project("commons-codec", "apache/commons-codec", "rel/commons-codec-1.22.1", "src/main/java", "", ""),
)
HOLD_OUT = frozenset({"commons-codec"})
ANSWERS = ("resolved", "+guesses", "baseline")
DECLARED = ("virtual method", "static method", "private or super method", "constructor")  # the judged kinds
TRUTH_VERSION = 5  # 5: `super(...)` and `this(...)` named by the class whose constructor runs
# How far below its statement's first line `new C(` is looked for, where its constructor's invoke says no later line:
# `static final TypeAdapter<Class> CLASS =` and then `new TypeAdapter<Class>() {` (javac marks no line for it)
NEW_SPAN = 3
OBJECT = "java/lang/Object"
LAMBDAS = "java/lang/invoke/LambdaMetafactory"


def default_cache() -> Path:
    return Path(os.environ.get("ANNALS_FACTS_CALLS_JAVA_CACHE", "/work/corpora/calls_java"))


def checkout(mirrors: Path, cache: Path, project: Project) -> Path:
    return tag_tree(mirrors, cache, project.github, project.name, project.tag)


def compiled(project: Project, work: Path, cache: Path) -> Path:
    """The main sources' class files, with javac's lines and source files (`-g`), compiled as
    bench/facts_imports_java.py compiles them (its jdeps_edges, which goes on to run jdeps)."""
    sources = [p for p in (work / project.sources).rglob("*.java") if p.name != "module-info.java"]
    filled = cache / f"{project.name}-filled"
    shutil.rmtree(filled, ignore_errors=True)
    if project.templates:  # what Maven fills in: a version
        for template in (work / project.templates).rglob("*.java"):
            target = filled / template.relative_to(work / project.templates)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(template.read_text().replace("${project.version}", "0.0.0"))
            sources.append(target)
    class_path: list[str] = []
    if project.class_path:
        jars = sorted((Path.home() / ".m2" / "repository").glob(project.class_path))
        if not jars:
            raise SystemExit(f"~/.m2/repository/{project.class_path}: not found (run `mvn dependency:get` for it)")
        class_path = ["-cp", str(jars[-1])]
    classes = cache / f"{project.name}-classes"
    shutil.rmtree(classes, ignore_errors=True)
    listing = cache / f"{project.name}-sources.txt"
    listing.write_text("\n".join(str(p) for p in sources) + "\n")
    run(["javac", "-g", "-nowarn", "-proc:none", "-encoding", "UTF-8", *class_path, "-d", str(classes), f"@{listing}"])
    return classes


def ground_truth(work: Path, cache: Path, project: Project) -> list[dict[str, Any]]:
    reader = hashlib.sha256(Path(__file__).with_name("java_classes.py").read_bytes()).hexdigest()[:12]
    out = cache / f"truth-{project.name}-{project.tag.replace('/', '-')}-v{TRUTH_VERSION}-{reader}.jsonl"
    if not out.exists():
        print(f"compiling {project.name} and reading its bytecode...", file=sys.stderr)
        classes = compiled(project, work, cache)
        hierarchy = Hierarchy([read_class(p) for p in sorted(classes.rglob("*.class"))], work, project.sources)
        sites = hierarchy.sites(Lines(work))
        out.write_text("".join(json.dumps(s) + "\n" for s in sites))
    return [json.loads(line) for line in out.read_text().splitlines() if line]


def parameters(descriptor: str) -> int:
    """How many parameters a method descriptor lists: `(I[JLjava/lang/String;)V` has three."""
    return len(re.findall(r"\[*(?:[BCDFIJSZ]|L[^;]*;)", descriptor[1 : descriptor.index(")")]))


def simple_name(binary: str) -> str:
    """A class's name as the source writes it: `Outer$Inner` is Inner, a local class `Outer$1Local` is Local, an
    anonymous class `Outer$1` has none."""
    return re.sub(r"^\d+", "", binary.rsplit("/", 1)[-1].rsplit("$", 1)[-1])


def _target(callee: dict[str, Any]) -> str:
    """What judges a site's answers: two calls of the JDK's `append` on one line are one site."""
    return json.dumps([callee["kind"] in DECLARED, callee.get("declaration"), callee.get("overrides")])


class Hierarchy:
    """The project's classes: where each is declared, what each method resolves to and what may override it."""

    def __init__(self, classes: list[ClassFile], work: Path, sources: str) -> None:
        self.classes = {c.name: c for c in classes}
        self.work = work
        self.sources = sources
        self.known: dict[str, set[str]] = {}  # ancestors, by class

    def file(self, c: ClassFile) -> str | None:
        """The tree's file declaring the class (a template Maven fills in is none)."""
        folder = c.name.rpartition("/")[0]
        path = f"{self.sources}/{folder}/{c.source_file}" if folder else f"{self.sources}/{c.source_file}"
        return path if c.source_file and (self.work / path).is_file() else None

    def supertypes(self, name: str) -> list[str]:
        c = self.classes.get(name)
        if c is None:
            return []
        return [*([c.super_name] if c.super_name else []), *c.interfaces]

    def ancestors(self, name: str) -> set[str]:
        """Every supertype our classes name, ours and the JDK's (a JDK class's own supertypes are not read)."""
        if name not in self.known:
            seen: set[str] = set()
            todo = self.supertypes(name)
            while todo:
                t = todo.pop()
                if t not in seen:
                    seen.add(t)
                    todo += self.supertypes(t)
            self.known[name] = seen | {OBJECT}
        return self.known[name]

    def resolve(self, owner: str, name: str, descriptor: str) -> tuple[ClassFile, Method] | None:
        """The class and method a Methodref resolves to, as the JVM resolves it (JVMS 5.4.3.3): the class and its
        superclasses, then their interfaces; none where that reaches the JDK's code (or an array's `clone()`)."""
        chain, at = [], self.classes.get(owner)
        while at is not None:
            chain.append(at)
            found = _declared(at, name, descriptor)
            if found is not None:
                return at, found
            at = self.classes.get(at.super_name or "")
        library_superclass = bool(chain) and (chain[-1].super_name or OBJECT) != OBJECT
        todo = [i for c in chain for i in c.interfaces]
        while todo:
            interface = self.classes.get(todo.pop(0))
            if interface is None:
                continue
            found = _declared(interface, name, descriptor)
            # past a JDK superclass, an interface of ours declaring the name abstractly is most likely the JDK's
            if found is not None and not (library_superclass and found.flags & ACC_ABSTRACT):
                return interface, found
            todo += interface.interfaces
        return None

    def overrides(self, declaring: str, method: Method) -> list[tuple[ClassFile, Method]]:
        """The methods of our classes below `declaring` (ours or the JDK's) that a virtual call of `method` may run
        instead."""
        if method.flags & (ACC_STATIC | ACC_PRIVATE | ACC_FINAL) or method.name == "<init>":
            return []
        out = []
        for c in self.classes.values():
            if c.name == declaring or declaring not in self.ancestors(c.name):
                continue
            found = _declared(c, method.name, method.descriptor)
            if found is not None and found.flags & ACC_BRIDGE:  # generics' erasure: the bridge hands the call on
                target = next((i for i in found.invokes if i.name == method.name and i.owner == c.name), None)
                found = _declared(c, method.name, target.descriptor) if target else None
            if found is not None and not found.flags & ACC_STATIC:
                out.append((c, found))
        return out

    def declaration(self, c: ClassFile, method: Method) -> dict[str, Any]:
        """What finds our symbol for a method: its file, name, first line, and without one (no code) its class's
        qualified name and its number of parameters."""
        constructor = method.name == "<init>"
        name = simple_name(c.name) if constructor else method.name
        outer = c.name.rpartition("/")[2].replace("$", ".")
        return {
            "file": self.file(c),
            "line": method.first_line,
            "name": name,
            "qualname": f"{outer}.{name}",
            "parameters": parameters(method.descriptor),
            "constructor": constructor,
        }

    def sites(self, line_of: Lines) -> list[dict[str, Any]]:
        """Every invoke of the tree's classes, as a judged site or one of a kind not judged."""
        out = []
        for c in self.classes.values():
            path = self.file(c)
            if path is None:
                continue
            for method in c.methods:
                for invoke in method.invokes:
                    if invoke.line is None:
                        continue
                    site = self.site(c, method, invoke, functools.partial(line_of, path))
                    where = {"file": path, "line": invoke.line, "caller": f"{c.name}.{method.name}"}
                    out.append({**where, **site})
        unique = {json.dumps([s["file"], s["line"], s["name"], _target(s["callee"])]): s for s in out}
        of_line = Counter((s["file"], s["line"], s["name"]) for s in unique.values() if s["callee"]["kind"] in DECLARED)
        for s in unique.values():  # which row of the line's is which call's, the bytecode does not say
            if s["callee"]["kind"] in DECLARED and of_line[(s["file"], s["line"], s["name"])] > 1:
                s["callee"] = {"kind": "one name, several methods on the line", "was": s["callee"]}
        return list(unique.values())

    def site(self, c: ClassFile, caller: Method, invoke: Invoke, text: Callable[[int], str]) -> dict[str, Any]:
        """The site's name as the source writes it and its callee: a judged kind with the declaration (or
        `outside`) and the overrides of ours, or a kind not judged."""
        if invoke.kind == "invokedynamic":
            kind = "method reference or lambda" if invoke.owner == LAMBDAS else "compiler-generated"
            return {"name": invoke.name, "callee": {"kind": kind}}
        generated = caller.flags & (ACC_SYNTHETIC | ACC_BRIDGE) and not caller.name.startswith("lambda$")
        if c.flags & ACC_ENUM and caller.name in ("values", "valueOf"):
            generated = True
        if invoke.name == "<init>":
            return self.constructor_site(c, invoke, text, bool(generated))
        name = invoke.name
        if generated or not re.search(rf"\b{re.escape(name)}\b", text(invoke.line or 0)):
            return {"name": name, "callee": {"kind": "compiler-generated"}}
        resolved = self.resolve(invoke.owner, name, invoke.descriptor)
        virtual = invoke.kind in ("invokevirtual", "invokeinterface")
        if resolved is None:  # the JDK's: an override of ours below the Methodref's class may run
            method = Method(name, invoke.descriptor, 0, None)
            standing = self.overrides(invoke.owner, method) if virtual else []
            return {"name": name, "callee": self.callee(invoke, invoke.owner, None, standing)}
        declaring_class, method = resolved
        if method.flags & (ACC_SYNTHETIC | ACC_BRIDGE):
            return {"name": name, "callee": {"kind": "synthetic method"}}
        standing = self.overrides(declaring_class.name, method) if virtual else []
        return {"name": name, "callee": self.callee(invoke, declaring_class.name, (declaring_class, method), standing)}

    def constructor_site(
        self, c: ClassFile, invoke: Invoke, text: Callable[[int], str], generated: bool
    ) -> dict[str, Any]:
        """`new C()` (named C, as our rows name it, at the line writing it) or a constructor's `super(...)` or
        `this(...)`."""
        made = self.classes.get(invoke.owner)
        owner = invoke.owner
        if invoke.new and made is not None and not simple_name(owner):  # `new C() {...}` runs C's constructor
            if made.super_name == OBJECT and made.interfaces:
                return {"name": simple_name(made.interfaces[0]), "callee": {"kind": "new interface() {...}"}}
            owner = made.super_name or OBJECT
            init = next(m for m in made.methods if m.name == "<init>")
            runs = next((i for i in init.invokes if i.name == "<init>" and i.owner == owner), invoke)
            invoke = replace(invoke, owner=owner, descriptor=runs.descriptor)
        name = simple_name(owner)  # `super(...)` and `this(...)` too: our rows name the class whose constructor runs
        line = invoke.line or 0
        if invoke.new:
            written = re.compile(rf"\bnew\b.*\b{re.escape(name)}\b")
            last = max(invoke.until or line, line + NEW_SPAN)
            line = next((n for n in range(line, last + 1) if written.search(text(n))), 0)
        elif not re.search(rf"\b{'this' if owner == c.name else 'super'}\s*\(", text(line)):
            line = 0  # the `super()` javac writes where the source writes none
        if generated or not line:
            return {"name": name, "callee": {"kind": "compiler-generated"}}
        declaring = self.classes.get(owner)
        method = _declared(declaring, "<init>", invoke.descriptor) if declaring else None
        found = (declaring, method) if declaring is not None and method is not None else None
        return {"name": name, "line": line, "callee": self.callee(invoke, owner, found, [])}

    def callee(
        self,
        invoke: Invoke,
        declaring: str,
        found: tuple[ClassFile, Method] | None,
        overrides: list[tuple[ClassFile, Method]],
    ) -> dict[str, Any]:
        """A judged site's callee: its kind, the class declaring it, and the declarations that find our symbols."""
        if invoke.name == "<init>":
            kind = "constructor"
        elif invoke.kind == "invokestatic":
            kind = "static method"
        elif invoke.kind == "invokespecial":
            kind = "private or super method"
        else:
            kind = "virtual method"
        return {
            "kind": kind,
            "class": declaring,
            "name": invoke.name,
            "descriptor": invoke.descriptor,
            "outside": found is None,
            "declaration": self.declaration(*found) if found else None,
            "overrides": [self.declaration(c, m) for c, m in overrides if self.file(c)],
        }


def _declared(c: ClassFile, name: str, descriptor: str) -> Method | None:
    return next((m for m in c.methods if m.name == name and m.descriptor == descriptor), None)


def declared(conn: Any, declaration: dict[str, Any], how: Counter[str]) -> set[str]:
    """Our symbols standing for a declaration: same file and name, their lines holding its first line (a constructor:
    the class's too); without a line, its class's qualified name and its number of parameters."""
    file, name, line = declaration["file"], declaration["name"], declaration["line"]
    if line is not None:
        rows = conn.execute(
            "SELECT id FROM symbols WHERE path = ? AND name = ? AND start_line <= ? AND end_line >= ?",
            (file, name, line, line),
        ).fetchall()
        how["by its first line"] += bool(rows)
        return {r[0] for r in rows}
    rows = conn.execute(
        "SELECT id, params FROM symbols WHERE path = ? AND qualname = ?", (file, declaration["qualname"])
    ).fetchall()
    counted = [r for r in rows if len(json.loads(r["params"] or "[]")) == declaration["parameters"]]
    how["by class and name, no code"] += len(rows) == 1
    how["by class, name and number of parameters, no code"] += len(rows) > 1 and len(counted) == 1
    how["several overloads of that many parameters, no code: all taken"] += len(counted) > 1
    return {r[0] for r in (counted if len(rows) > 1 else rows)}


class CallRows:
    """Our call rows, as the bytecode's sites find them: one row per caller, receiver as written and name, with every
    line it is called on (store/callgraph.py's call_lines). The bytecode knows no receiver's text: every row of the
    line and name is the site's."""

    def __init__(self, conn: Any) -> None:
        from codeannals.store.callgraph import call_lines

        self.at_line: dict[tuple[str, int, str], list[Any]] = {}
        for call in conn.execute(
            "SELECT path, caller, line, lines, name, qualifier, ref, arguments FROM calls"
            " WHERE path LIKE '%.java' AND (ref IS NULL OR ref NOT LIKE 'value%')"
        ):
            for line in call_lines(call):
                self.at_line.setdefault((call["path"], line, call["name"]), []).append(call)

    def at(self, site: dict[str, Any]) -> list[Any]:
        return self.at_line.get((site["file"], site["line"], site["name"]), [])


def java_says(callee: dict[str, Any]) -> str:
    """The bytecode's callee, as a reader of the wrong answers wants it."""
    owner = callee["class"].replace("/", ".")
    d = callee["declaration"]
    where = "outside" if d is None else f"{d['file']}:{d['line'] or 'no code'}"
    overrides = len(callee["overrides"])
    also = f", {overrides} overrides of ours" if overrides else ""
    name = simple_name(callee["class"]) if callee["name"] == "<init>" else callee["name"]
    return f"{callee['kind']} {owner}.{name}{callee['descriptor']} ({where}{also})"


def score(conn: Any, root: Path, sites: list[dict[str, Any]]) -> dict[str, Any]:
    """Per answer its counts: `given` (sites it names some of ours at), `right`, `judged` (sites the bytecode names
    one of ours at; at a JDK method none, though an override of ours may be right), `found` (right ones of those)
    and `wrong outside`; what was not judged, how declarations were matched, the virtual calls' right answers, the
    wrong answers of `+guesses` and the missed calls of `resolved`."""
    from codeannals.store.resolver import CallResolver

    resolver = CallResolver(conn)
    rows = CallRows(conn)
    line_of = Lines(root)
    totals = {a: Counter[str]() for a in ANSWERS}
    constructors = {a: Counter[str]() for a in ANSWERS}  # of those, the constructors' calls
    left: Counter[str] = Counter()
    how: Counter[str] = Counter()
    virtual: Counter[str] = Counter()
    wrong: list[dict[str, Any]] = []
    missed: list[dict[str, Any]] = []
    for site in sites:
        callee = site["callee"]
        given = {a: dict[str, str]() for a in ANSWERS}
        for call in rows.at(site):
            for a, targets in answers(conn, resolver, call).items():
                given[a] |= targets
        if callee["kind"] not in DECLARED:
            left[callee["kind"]] += 1
            left[f"{callee['kind']}, answered"] += bool(given["resolved"])
            continue
        own = declared(conn, callee["declaration"], how) if callee["declaration"] else set()
        if callee["declaration"] and not own:
            left["no symbol"] += 1
            continue
        overrides: set[str] = set()
        for d in callee["overrides"]:
            overrides |= declared(conn, d, Counter())
        expected = own | overrides
        for a in ANSWERS:
            named = set(given[a])
            right = bool(named & expected) and not (named - expected)
            counted = {
                "judged": bool(own),  # a JDK method: an override of ours is right, and no recall misses it
                "given": bool(named),
                "right": right,
                "found": right and bool(own),
                "wrong outside": bool(named) and not own and not right,
            }
            totals[a].update(counted)
            if callee["kind"] == "constructor":
                constructors[a].update(counted)
            if a == "resolved" and right and overrides:
                if not own:
                    virtual["at a JDK method, overrides of ours"] += 1
                elif named & own:
                    virtual["the declaration"] += 1
                else:
                    virtual["overrides only"] += 1
        if own and overrides:
            virtual["calls"] += 1
        shown = {"at": f"{site['file']}:{site['line']}", "source": line_of(site["file"], site["line"])}
        guessed = [f"{t} [{basis}]" for t, basis in sorted(given["+guesses"].items())]
        named = set(given["+guesses"])
        if named and (named - expected or not named & expected):
            wrong.append({**shown, "ours": guessed, "java": java_says(callee)})
        if own and not set(given["resolved"]) & expected:
            missed.append({**shown, "ours": guessed or ["no call row here"], "java": java_says(callee)})
    return {
        "totals": totals,
        "constructors": constructors,
        "left out": dict(left),
        "matched": dict(how),
        "virtual": dict(virtual),
        "wrong": wrong,
        "missed": missed,
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
    only = {n for n in args.only.split(",") if n}
    started = time.perf_counter()
    results: dict[str, Any] = {}
    print(f"{'project':<22} {'answer':<10} {'P':>6} {'R':>6} {'given':>7} {'judged':>7} {'wrong outside':>14}")
    for hold_out in (False, True):
        pooled = {a: Counter[str]() for a in ANSWERS}
        chosen = [p for p in PROJECTS if (p.name in HOLD_OUT) == hold_out and (not only or p.name in only)]
        for project in chosen:
            work = checkout(args.mirrors, cache, project)
            sites = ground_truth(work, cache, project)
            version = project.tag.rsplit("-", 1)[-1]
            repo = indexed_copy(cache, project.name, version, work)
            conn = connect(repo / ".annals" / "annals.db")
            result = score(conn, repo, sites)
            conn.close()
            for a, t in result["totals"].items():
                pooled[a].update(t)
                if not hold_out:
                    print(_row(f"{project.name} {version}", a, t))
            if hold_out:
                results[project.name] = {
                    k: result[k] for k in ("totals", "constructors", "left out", "matched", "virtual")
                }
                continue
            print(_constructors(result["constructors"]))
            print(_unjudged(len(sites), result["left out"]))
            print(_matched(result["matched"], result["virtual"]))
            results[project.name] = result
            if args.wrong:
                title = f"wrong `+guesses` answers (a followed basis: a wrong `resolved` one), {len(result['wrong'])}"
                print_sites(title, result["wrong"][: args.wrong], "java", "javac")
                title = f"missed calls (no right `resolved` answer), {len(result['missed'])}"
                print_sites(title, result["missed"][: args.wrong], "java", "javac")
        if chosen:
            for a, t in pooled.items():
                print(_row("hold-out, total" if hold_out else "dev, total", a, t))
    print(f"\n{time.perf_counter() - started:.1f} s")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


def _constructors(counts: dict[str, Counter[str]]) -> str:
    def figures(t: Counter[str]) -> str:
        precision = t["right"] / t["given"] if t["given"] else 0.0
        recall = t["found"] / t["judged"] if t["judged"] else 0.0
        return f"P {precision:.3f} R {recall:.3f} ({t['given']} given, {t['wrong outside']} wrong outside)"

    judged = counts["resolved"]["judged"]
    answers = "; ".join(f"`{a}` {figures(t)}" for a, t in counts.items())
    return f"  of those, calls of constructors (`new C()`, `super(...)`, `this(...)`), {judged} judged: {answers}"


def _unjudged(sites: int, left: dict[str, int]) -> str:
    kinds = ", ".join(
        f"{left[k]} {k} ({left.get(f'{k}, answered', 0)} given a `resolved` answer)"
        for k in sorted(left)
        if not k.endswith(", answered") and k != "no symbol"
    )
    return (
        f"  {sites} call sites; not judged: {kinds}, {left.get('no symbol', 0)} of declarations we index no symbol for"
    )


def _matched(how: dict[str, int], virtual: dict[str, int]) -> str:
    v = Counter(virtual)
    matched = ", ".join(f"{n} {k}" for k, n in sorted(how.items(), key=lambda kv: -kv[1]))
    return (
        f"  declarations matched: {matched}\n  virtual calls of ours with overrides of ours: {v['calls']}; right"
        f" `resolved` answers naming the declaration {v['the declaration']}, overrides only {v['overrides only']},"
        f" and at a JDK method naming overrides of ours {v['at a JDK method, overrides of ours']}"
    )


if __name__ == "__main__":
    main()
