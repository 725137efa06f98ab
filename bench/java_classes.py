"""A reader of the JVM's class files (JVMS chapter 4), as far as bench/facts_calls_java.py needs one: a class's
name, supertypes, flags and source file, and per method its flags, first line and every invoke instruction with
the line it is on.

Read straight from the bytes, not from `javap`'s text: one pass over the constant pool and the code, no JVM to
start per class, and nothing to parse that a JDK's next release may word differently.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field, replace
from pathlib import Path

ACC_STATIC = 0x0008
ACC_FINAL = 0x0010
ACC_PRIVATE = 0x0002
ACC_BRIDGE = 0x0040
ACC_ABSTRACT = 0x0400
ACC_SYNTHETIC = 0x1000
ACC_ENUM = 0x4000
INVOKES = {0xB6: "invokevirtual", 0xB7: "invokespecial", 0xB8: "invokestatic", 0xB9: "invokeinterface"}
INVOKEDYNAMIC = 0xBA
NEW = 0xBB
_TABLESWITCH, _LOOKUPSWITCH, _WIDE, _IINC = 0xAA, 0xAB, 0xC4, 0x84
# a constant pool entry's size after its tag, by tag (a Utf8's, tag 1, is its own length's)
_CONSTANT_SIZE = {
    3: 4,
    4: 4,
    5: 8,
    6: 8,
    7: 2,
    8: 2,
    9: 4,
    10: 4,
    11: 4,
    12: 4,
    15: 3,
    16: 2,
    17: 4,
    18: 4,
    19: 2,
    20: 2,
}


def _instruction_sizes() -> list[int]:
    """The size of each fixed-size instruction, by opcode (the switches and `wide` are sized where read)."""
    sizes = [1] * 256
    for opcode in (0x10, 0x12, *range(0x15, 0x1A), *range(0x36, 0x3B), 0xA9, 0xBC):  # bipush, ldc, loads, stores, ...
        sizes[opcode] = 2
    for opcode in (0x11, 0x13, 0x14, _IINC, *range(0x99, 0xA9), *range(0xB2, 0xB9), 0xBB, 0xBD, 0xC0, 0xC1, 0xC6, 0xC7):
        sizes[opcode] = 3
    sizes[0xC5] = 4  # multianewarray
    for opcode in (0xB9, INVOKEDYNAMIC, 0xC8, 0xC9):  # invokeinterface, invokedynamic, goto_w, jsr_w
        sizes[opcode] = 5
    return sizes


_SIZES = _instruction_sizes()


@dataclass(frozen=True)
class Invoke:
    """One invoke instruction: `kind` is its opcode's name; for invokedynamic, `owner` is the bootstrap method's
    class (java/lang/invoke/LambdaMetafactory for a lambda or a method reference) and `name` the call site's."""

    kind: str
    owner: str
    name: str
    descriptor: str
    line: int | None
    new: bool = False  # a constructor run on an object a `new` instruction made (`new C()`, not `super()`)
    # `new C(...)`'s line is its statement's first, javac marking none for the expression: `C(` may be on a line
    # after it, as late as this one, the invoke's (its last argument's code's)
    until: int | None = None


@dataclass
class Method:
    name: str
    descriptor: str
    flags: int
    first_line: int | None  # the line of the code's first instruction; none without code (abstract, native)
    invokes: list[Invoke] = field(default_factory=list)


@dataclass
class ClassFile:
    name: str  # binary name with slashes: com/google/gson/Gson$FutureTypeAdapter
    flags: int
    super_name: str | None
    interfaces: list[str]
    source_file: str | None
    methods: list[Method]


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.at = 0

    def u1(self) -> int:
        self.at += 1
        return self.data[self.at - 1]

    def u2(self) -> int:
        self.at += 2
        return int.from_bytes(self.data[self.at - 2 : self.at], "big")

    def u4(self) -> int:
        self.at += 4
        return int.from_bytes(self.data[self.at - 4 : self.at], "big")

    def take(self, size: int) -> bytes:
        self.at += size
        return self.data[self.at - size : self.at]


class _Pool:
    """The constant pool: each entry's tag and bytes (a Utf8's text)."""

    def __init__(self, r: _Reader) -> None:
        self.entries: list[tuple[int, bytes | str]] = [(0, b"")] * r.u2()
        index = 1
        while index < len(self.entries):
            tag = r.u1()
            # modified UTF-8 differs from UTF-8 only in NUL and supplementary characters, which no name here holds
            body: bytes | str = (
                r.take(r.u2()).decode("utf-8", errors="replace") if tag == 1 else r.take(_CONSTANT_SIZE[tag])
            )
            self.entries[index] = (tag, body)
            index += 2 if tag in (5, 6) else 1  # a Long or a Double takes two slots

    def utf8(self, i: int) -> str:
        return str(self.entries[i][1])

    def u2s(self, i: int) -> tuple[int, ...]:
        """The entry's two-byte indexes (a MethodHandle's one byte of kind before them skipped)."""
        body = self.entries[i][1]
        assert isinstance(body, bytes)
        return tuple(int.from_bytes(body[k : k + 2], "big") for k in range(len(body) % 2, len(body), 2))

    def class_name(self, i: int) -> str:
        return self.utf8(self.u2s(i)[0])

    def name_and_type(self, i: int) -> tuple[str, str]:
        name, descriptor = self.u2s(i)
        return self.utf8(name), self.utf8(descriptor)

    def member(self, i: int) -> tuple[str, str, str]:
        """A Methodref's (or Fieldref's) class, name and descriptor."""
        owner, name_and_type = self.u2s(i)
        return (self.class_name(owner), *self.name_and_type(name_and_type))

    def handle_owner(self, i: int) -> str:
        """The class of a MethodHandle's method."""
        return self.member(self.u2s(i)[0])[0]


def read_class(path: Path) -> ClassFile:
    r = _Reader(path.read_bytes())
    if r.u4() != 0xCAFEBABE:
        raise ValueError(f"{path}: not a class file")
    r.take(4)  # minor and major version
    pool = _Pool(r)
    flags, this, super_index = r.u2(), r.u2(), r.u2()
    interfaces = [pool.class_name(r.u2()) for _ in range(r.u2())]
    for _ in range(r.u2()):  # fields
        r.take(6)
        _skip_attributes(r)
    methods = [_method(r, pool) for _ in range(r.u2())]
    source_file = None
    bootstraps: list[str] = []  # each bootstrap method's class
    for _ in range(r.u2()):
        attribute, size = pool.utf8(r.u2()), r.u4()
        if attribute == "SourceFile":
            source_file = pool.utf8(r.u2())
        elif attribute == "BootstrapMethods":
            for _ in range(r.u2()):
                bootstraps.append(pool.handle_owner(r.u2()))
                r.take(2 * r.u2())
        else:
            r.take(size)
    for method in methods:  # an invokedynamic's owner is its bootstrap method's class, known once that is read
        method.invokes = [
            replace(i, owner=bootstraps[int(i.owner)]) if i.kind == "invokedynamic" else i for i in method.invokes
        ]
    super_name = pool.class_name(super_index) if super_index else None
    return ClassFile(pool.class_name(this), flags, super_name, interfaces, source_file, methods)


def _skip_attributes(r: _Reader) -> None:
    for _ in range(r.u2()):
        r.take(2)
        r.take(r.u4())


def _method(r: _Reader, pool: _Pool) -> Method:
    flags, name, descriptor = r.u2(), pool.utf8(r.u2()), pool.utf8(r.u2())
    code, lines = b"", list[tuple[int, int]]()
    for _ in range(r.u2()):
        attribute, size = pool.utf8(r.u2()), r.u4()
        if attribute != "Code":
            r.take(size)
            continue
        r.take(4)  # max_stack, max_locals
        code = r.take(r.u4())
        r.take(8 * r.u2())  # the exception table
        for _ in range(r.u2()):
            inner, inner_size = pool.utf8(r.u2()), r.u4()
            if inner == "LineNumberTable":
                lines += [(r.u2(), r.u2()) for _ in range(r.u2())]
            else:
                r.take(inner_size)
    lines.sort()
    method = Method(name, descriptor, flags, _line_at(lines, 0))
    method.invokes = _invokes(code, lines, pool)
    return method


def _line_at(lines: list[tuple[int, int]], offset: int) -> int | None:
    """The line of the instruction at `offset`: of the table's entries starting at or before it, the last."""
    line = lines[0][1] if lines else None
    for start, number in lines:
        if start > offset:
            break
        line = number
    return line


def _invokes(code: bytes, lines: list[tuple[int, int]], pool: _Pool) -> list[Invoke]:
    out = []
    # classes `new` made whose constructor has not run yet, innermost last, with the line of the `new`
    made: list[tuple[str, int | None]] = []
    at = 0
    while at < len(code):
        opcode = code[at]
        operand = int.from_bytes(code[at + 1 : at + 3], "big")
        if opcode == INVOKEDYNAMIC:
            bootstrap, name_and_type = pool.u2s(operand)
            name, descriptor = pool.name_and_type(name_and_type)
            out.append(Invoke("invokedynamic", str(bootstrap), name, descriptor, _line_at(lines, at)))
        elif opcode in INVOKES:
            owner, name, descriptor = pool.member(operand)
            line = until = _line_at(lines, at)
            new = name == "<init>" and bool(made) and made[-1][0] == owner
            if new:
                line = made.pop()[1]
            out.append(Invoke(INVOKES[opcode], owner, name, descriptor, line, new, until if new else None))
        elif opcode == NEW:
            made.append((pool.class_name(operand), _line_at(lines, at)))
        at += _size(code, at)
    return out


def _size(code: bytes, at: int) -> int:
    opcode = code[at]
    if opcode in (_TABLESWITCH, _LOOKUPSWITCH):
        pad = 3 - at % 4  # the operands start at the next multiple of four
        start = at + 1 + pad
        if opcode == _TABLESWITCH:
            low, high = struct.unpack(">ii", code[start + 4 : start + 12])
            return 1 + pad + 12 + 4 * (high - low + 1)
        pairs = int.from_bytes(code[start + 4 : start + 8], "big")
        return 1 + pad + 8 + 8 * pairs
    if opcode == _WIDE:
        return 6 if code[at + 1] == _IINC else 4
    return _SIZES[opcode]
