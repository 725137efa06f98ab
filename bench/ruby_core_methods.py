"""Write data/ruby_core_methods.json: the names of the instance methods of Ruby's own classes and modules.

    python bench/ruby_core_methods.py

Asked of the `ruby` on the PATH: the public instance methods of the core classes and modules a value most often is
(Object and Kernel, the collections, strings, numbers, IO and its kin) and of the standard library's Set, StringIO
and Pathname. store/rubycalls.py reads the list: a call on a value whose class the index does not know
(`options.each`, `@converters.empty?`) of such a name is most often Ruby's own method, so no method of ours of that
name is guessed there.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "data" / "ruby_core_methods.json"
CLASSES = (
    "BasicObject Object Kernel Comparable Enumerable Enumerator Array Hash String Symbol Integer Float Numeric Rational"
    " Range Regexp MatchData Proc Method Module Class IO File File::Stat Dir Time Struct NilClass TrueClass Exception"
    " Set StringIO Pathname"
)
SCRIPT = (
    "require 'set'; require 'stringio'; require 'pathname'; require 'json'\n"
    "names = ARGV.flat_map { |c| Object.const_get(c).public_instance_methods(true) }.map(&:to_s).uniq.sort\n"
    "puts JSON.generate({ruby: RUBY_VERSION, methods: names.grep(/\\A[a-z_]\\w*[?!=]?\\z/)})"
)


def main() -> None:
    out = subprocess.run(["ruby", "-e", SCRIPT, *CLASSES.split()], capture_output=True, text=True, check=True).stdout
    found = json.loads(out)
    OUT.write_text(json.dumps({"ruby": found["ruby"], "methods": found["methods"]}, indent=0) + "\n")
    print(f"{len(found['methods'])} names of Ruby {found['ruby']}'s methods -> {OUT}")


if __name__ == "__main__":
    main()
