"""Write data/rust_std_methods.json: the names of the methods the Rust standard library's types and traits have.

    python bench/rust_std_methods.py [--docs DIR]

Read from the documentation rustup installs beside rustc (`rustc --print sysroot`/share/doc/rust/html): each page of
a struct, enum, union, trait or primitive type of std, core and alloc, its `method.NAME` and `tymethod.NAME` anchors.
store/rustcalls.py reads the list: a value whose type the index does not know, calling a method of such a name
(`rest.is_empty()`, `iter.next()`), may be calling the standard library's, so a method of ours of that name is a
guess there.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "data" / "rust_std_methods.json"
_PAGE = re.compile(r"^(?:struct|enum|union|trait|primitive)\..+\.html$")
_ANCHOR = re.compile(r'id="(?:ty)?method\.([a-z_][a-z0-9_]*)"')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=Path, help="the html folder of the Rust documentation")
    args = parser.parse_args()
    version = subprocess.run(["rustc", "--version"], capture_output=True, text=True, check=True).stdout.strip()
    if args.docs is None:
        sysroot = subprocess.run(["rustc", "--print", "sysroot"], capture_output=True, text=True, check=True).stdout
        args.docs = Path(sysroot.strip()) / "share" / "doc" / "rust" / "html"
    names: set[str] = set()
    for crate in ("std", "core", "alloc"):
        for page in (args.docs / crate).rglob("*.html"):
            if _PAGE.match(page.name):
                names.update(_ANCHOR.findall(page.read_text("utf-8", errors="replace")))
    if not names:
        raise SystemExit(f"no method found under {args.docs}: `rustup component add rust-docs`, or pass --docs DIR")
    OUT.write_text(json.dumps({"source": f"the documentation of {version}", "methods": sorted(names)}, indent=0) + "\n")
    print(f"{len(names)} method names -> {OUT}")


if __name__ == "__main__":
    main()
