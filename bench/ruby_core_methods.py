"""Write data/ruby_core_methods.json: the names of the instance methods of Ruby's own classes and modules, and of
Rails' most used ones.

    python bench/ruby_core_methods.py

Asked of the `ruby` on the PATH: the public instance methods of the core classes and modules a value most often is
(Object and Kernel, the collections, strings, numbers, IO and its kin) and of the standard library's Set, StringIO
and Pathname (`methods`); then, where Rails is installed (Debian's ruby-activerecord and ruby-actionpack), those of
ActiveRecord's models and relations and ActionController's controllers, with ActiveSupport's extensions of Object
(`frameworks`). store/rubycalls.py reads both: a call on a value whose class the index does not know of a core name
(`options.each`, `@converters.empty?`) is most often Ruby's own method, so no method of ours of that name is guessed
there; of a Rails name (`user.save`) it may be Rails' as well as ours, so the one method of ours so named is only a
guess, never the call's sure target.
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


FRAMEWORKS = (
    "require 'active_record'; require 'action_controller'; require 'active_support/all'; require 'json'\n"
    "names = [ActiveRecord::Base, ActiveRecord::Relation, ActionController::Base, Object]"
    ".flat_map { |c| c.public_instance_methods(true) }.map(&:to_s).uniq.sort\n"
    "puts JSON.generate({rails: ActiveRecord::VERSION::STRING, methods: names.grep(/\\A[a-z_]\\w*[?!=]?\\z/)})"
)


def main() -> None:
    out = subprocess.run(["ruby", "-e", SCRIPT, *CLASSES.split()], capture_output=True, text=True, check=True).stdout
    found = json.loads(out)
    rails = subprocess.run(["ruby", "-e", FRAMEWORKS], capture_output=True, text=True, check=False)
    frameworks = json.loads(rails.stdout) if rails.returncode == 0 else {"rails": None, "methods": []}
    if rails.returncode != 0:
        print("Rails is not installed (apt-get install ruby-activerecord ruby-actionpack): no framework names")
    extra = sorted(set(frameworks["methods"]) - set(found["methods"]))
    written = {"ruby": found["ruby"], "methods": found["methods"], "rails": frameworks["rails"], "frameworks": extra}
    OUT.write_text(json.dumps(written, indent=0) + "\n")
    print(f"{len(found['methods'])} names of Ruby {found['ruby']}'s methods, {len(extra)} more of Rails' -> {OUT}")


if __name__ == "__main__":
    main()
