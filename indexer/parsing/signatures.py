"""A definition's signature as the index serves it: its source from the head to the body (or the whole declaration,
a constant's value with it), without comments, layout-free, and within SIGNATURE_LIMIT."""

from __future__ import annotations

import re

from tree_sitter import Node

from .language_rules import JS_LANGUAGES, go_embedded, go_fields, js_member_breaks
from .nesting import Def
from .parse import QUERY_LANGUAGES

SIGNATURE_LIMIT = 500
_SPACES = re.compile(r"\s+")


def signature_of(d: Def, source: bytes, lang: str) -> str:
    """The definition's signature, normalised and within the limit."""
    return _limited(_signature_text(d, source, lang))


def normalise_signature(text: str) -> str:
    """Layout-free signature: one space between words, none inside brackets, no trailing comma."""
    text = _SPACES.sub(" ", text).strip()
    text = re.sub(r"([(\[{])\s+", r"\1", text)
    text = re.sub(r"\s+([)\]},])", r"\1", text)
    text = _tight_angles(text)
    text = re.sub(r",([)\]}>])", r"\1", text)
    return text.rstrip(" :{;").strip()


def _tight_angles(text: str) -> str:
    """No space inside a type's angle brackets (`Map< K, V >`, C++'s `vector<pair<int, int> >`), and the spaces of a
    value's operators kept: gin's `ErrorTypeBind ErrorType = 1 << 63` read `1 <<63`. A `<` with a space on each side
    compares (`a < b`, Ruby's `class A < B`); `<<` and `<=` are operators; a `>` closes only a bracket open."""
    if "<" not in text:
        return text  # no bracket to close: most signatures, Python's `-> int` included
    out: list[str] = []
    depth = 0
    at = 0
    while at < len(text):
        char = text[at]
        pair = text[at : at + 2]
        if pair in ("<<", "<=", ">=", "->", "=>") or (pair == ">>" and depth < 2):
            out.append(pair)
            at += 2
            continue
        if char == "<" and not (text[at - 1 : at] == " " and text[at + 1 : at + 2] == " "):
            depth += 1
            out.append(char)
            at += 1
            while at < len(text) and text[at] == " ":
                at += 1
            continue
        if char == ">" and depth:
            depth -= 1
            while out and out[-1] == " ":
                out.pop()
        out.append(char)
        at += 1
    return "".join(out)


def _limited(text: str) -> str:
    """The signature, normalised, up to SIGNATURE_LIMIT characters of its source: a longer one ends at its last whole
    parameter there, and `…` says it goes on. Cut where the limit fell, scrapy's `Response.follow` ended `errback:
    Callable[[Failure], Any] | None =` and httpx's `Client.__init__` `proxies: ... = None,`, with nothing to say that
    more parameters follow (about 110 signatures of the localize_bench bases)."""
    if len(text) <= SIGNATURE_LIMIT:
        return normalise_signature(text)
    cut = text[:SIGNATURE_LIMIT]
    depth, between_parameters = 0, 0
    for at, char in enumerate(cut):
        depth += (char in "([{") - (char in ")]}")
        if char == "," and depth == 1:  # between two parameters, not inside one's type (`Callable[[Failure], Any]`)
            between_parameters = at
    return normalise_signature(cut[: between_parameters + 1] if between_parameters else cut) + " …"


def _signature_text(d: Def, source: bytes, lang: str) -> str:
    """From the head (`def`, `const f =`, `type T`, `template <...>`) to the body, or the declaration; a TypeScript
    object type's members parted by `;` where a line break alone parted them."""
    text = _signature_source(d, source, lang)
    return js_member_breaks(text) if lang in JS_LANGUAGES else text


def _signature_source(d: Def, source: bytes, lang: str) -> str:
    node = d.node
    start = (d.head or node).start_byte
    body = node.child_by_field_name("body")
    if body is not None and body.start_byte > node.start_byte:
        # Up to the last token before the body: a comment between them is not signature.
        head = [c for c in node.children if c.end_byte <= body.start_byte and not c.is_extra]
        while head and head[-1].type == "field_initializer_list":  # a C++ constructor's `: env_(options.env), ...`
            head.pop()  # sets members: leveldb's DBImpl::DBImpl read as 600 characters of them
        end = head[-1].end_byte if head else body.start_byte
        return _without_comments(head, source, start, end)
    # No body: a declaration is all signature, up to a block of members (`type T struct {`).
    text = source[start : min(node.end_byte, start + SIGNATURE_LIMIT * 2)].decode("utf-8", "replace")
    if lang not in QUERY_LANGUAGES:  # grammars we know less of: the first line, up to a block
        return re.split(r"\s\{", text.split("\n", 1)[0], maxsplit=1)[0].rstrip().rstrip(";")
    if node.type != "annotation_type_element_declaration":  # Java's `String[] value() default {};` has no block
        text = _before_block(text, '"' if lang == "rust" else "\"'`")
    text = text.rstrip().rstrip(";")
    text = text.split("\n", 1)[0] if "\n" in text and d.kind not in ("function", "method") else text
    if d.kind in VALUE_KINDS:
        text = _with_value(node, source, start, text)
    if lang == "go":
        text = _go_keyword(node, start) + text
    if lang == "go" and d.kind == "struct":
        return text + go_fields(node, source)
    return text + go_embedded(node, source) if lang == "go" and d.kind == "interface" else text


VALUE_KINDS = frozenset({"const", "variable", "type"})
VALUE_SHOWN = 100  # characters: a declaration this short is shown whole, its value with it


def _with_value(node: Node, source: bytes, start: int, text: str) -> str:
    """A constant's, variable's or type alias's declaration with its value, which a block's brace or a line break
    cut off: `X = {}`, `SIZES = {1, 2}` and `type Kind = "a" | "b"` whole when short; `BIG = {…}`, `set(…)`,
    `Callback = …` and a C typedef's `(*read_cb)(…)` when long. They were served `X =`, `static final int[] SIZES
    =`, `type Kind =` and `(*read_cb)(uv_stream_t* stream,`, as if the declaration ended there: 905 of the 151,174
    signatures of the localize_bench bases, 205 of typeorm's."""
    whole = _without_comments([node], source, start, node.end_byte).rstrip().rstrip(";")
    whole = re.sub(r"\n\s*\.(?=\w)", ".", whole)  # a method chain's next line: `PATH_SET` `.add(b'%')`
    if len(normalise_signature(whole)) <= VALUE_SHOWN:
        return whole
    line = whole.split("\n", 1)[0].rstrip()
    if len(text) == len(line) and not text.endswith(("=", "(", "[", "{", ",")):
        return text  # the first line is the whole of what it says (`X = """text` of a long string)
    equals = _top_level_equals(line)  # None: no value but a C typedef's (`typedef void (*read_cb)(uv_stream_t* s,`)
    at = _first_unclosed(line, equals or 0)
    if at is None:
        return line[: equals + 1] + " …" if equals is not None else text
    return line[: at + 1] + "…" + _CLOSERS[line[at]]


_CLOSERS = {"(": ")", "[": "]", "{": "}"}


def _first_unclosed(line: str, after: int) -> int | None:
    """Where the first bracket after `after` that the line leaves open is: `char_table(&[` -> the `(`; Java's
    `new Reader() {` -> the `{` of its anonymous class, not the `(` closed before it."""
    open_at: list[int] = []
    for at in range(after, len(line)):
        if line[at] in _CLOSERS:
            open_at.append(at)
        elif line[at] in ")]}" and open_at:
            open_at.pop()
    return open_at[0] if open_at else None


def _top_level_equals(line: str) -> int | None:
    """Where the `=` giving a declaration its value is: the first outside brackets, type parameters' included (not
    `Return = This` of TypeScript's `type Method<This, Return = This> =`), and not part of `==`, `=>` or `<=`."""
    depth = 0
    for at, char in enumerate(line):
        if char in "([{<":
            depth += 1
        elif char in ")]}>" and depth:
            depth -= 1
        elif (
            char == "="
            and not depth
            and line[at - 1 : at] not in ("=", "!", "<", ">", ":")
            and line[at + 1 : at + 2] not in ("=", ">")
        ):
            return at
    return None


_GO_DECLARATIONS = {"const_declaration": "const ", "var_declaration": "var ", "type_declaration": "type "}


def _go_keyword(node: Node, start: int) -> str:
    """A Go spec of a grouped declaration (`const (` ... `)`) with its declaration's keyword, as a spec on its own
    line has it: gin's `const ( DebugMode = "debug"` ... read `DebugMode = "debug"`, and a `type (` block's types
    `Name string`, beside `const Single = "x"` and `type Solo struct {...}`."""
    declaration = node.parent
    if declaration is not None and declaration.type == "var_spec_list":
        declaration = declaration.parent
    if declaration is None or declaration.start_byte == start:  # the signature starts at the keyword already
        return ""
    return _GO_DECLARATIONS.get(declaration.type, "")


def _before_block(text: str, quotes: str) -> str:
    """The text up to its first `{` outside a string: a block of members or a literal's (`DEFAULTS = {`), not the
    brace of a pattern (`PARAM_REGEX = re.compile("{([a-zA-Z_]...`, once served cut to `re.compile("`). `quotes`:
    what opens a string (not Rust's `'`, a lifetime's as often as a character's). Nor Ruby's interpolation in a
    pattern or its `%r{...}` literals (`CONDISP = /Content-Disposition:\\s*#{TOKEN}\\s*/i`, served as `CONDISP =
    /Content-Disposition:\\s*#`): those braces are skipped to their close."""
    quote = ""
    escaped = False
    depth = 0  # inside braces skipped
    for at, char in enumerate(text):
        if escaped:
            escaped = False
        elif quote:
            escaped = char == "\\"
            quote = "" if char == quote else quote
        elif depth:
            depth += {"{": 1, "}": -1}.get(char, 0)
        elif char in quotes:
            quote = char
        elif char == "{" and _LITERAL_BRACE.search(text, 0, at):
            depth = 1
        elif char == "{":
            return text[:at]
    return text


_LITERAL_BRACE = re.compile(r"(?:#|%[a-zA-Z]?)\Z")  # `#{...}`, `%r{...}`, `%w{...}`: no block


def _without_comments(nodes: list[Node], source: bytes, start: int, end: int) -> str:
    """The source from `start` to `end` without the comments inside these nodes: `def loads(  # type: ignore[...]`
    then `self, s)` on the next lines is `def loads(self, s)`, whose first parameter is `self`."""
    comments: list[Node] = []
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if node.is_extra and start <= node.start_byte and node.end_byte <= end:
            comments.append(node)
        else:
            stack.extend(node.children)
    text, at = [], start
    for comment in sorted(comments, key=lambda c: c.start_byte):
        text.append(source[at : comment.start_byte].decode("utf-8", "replace"))
        at = comment.end_byte
    text.append(source[at:end].decode("utf-8", "replace"))
    return " ".join(text) if len(text) > 1 else text[0]
