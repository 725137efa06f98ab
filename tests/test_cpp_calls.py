"""C++ calls named as the compiler names them: a method called on a value is the method of the class the code declares
the value (a parameter, a local, a field of the calling method's class, an alias, a cast), a virtual call may run an
override, a call on a value of a type that is not ours reaches none of ours, and a namespace's function is reached
through the header declaring it. bench/facts_calls_cpp.py measures the same against g++'s call graph."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from codeannals.indexer.run import index_tree
from codeannals.store import default_db_path, open_store, queries
from codeannals.store.callgraph import FOLLOWED

from .conftest import Repo

HEADER = b"""#ifndef STORE_H_
#define STORE_H_
#include <string>

namespace store {

class Status {
 public:
  bool ok() const { return code_ == 0; }
 private:
  int code_;
};

class Builder {
 public:
  void Add(const std::string& key);
  bool ok() const;
  void Set(const std::string& key, int value);
  void Set(const std::string& key, int value, bool sync);
};

class Block {
 public:
  size_t size() const;
};

class Env {
 public:
  virtual ~Env();
  virtual Status Remove(const std::string& name) = 0;
};

class PosixEnv : public Env {
 public:
  Status Remove(const std::string& name) override;
};

class MemTable {
 public:
  void Ref();
};

template <typename Key>
class SkipList {
 public:
  void Insert(const Key& key);
};

class DB {
 public:
  void Compact();
  static void Work(void* db);
  void Background();
 private:
  typedef SkipList<int> Table;
  MemTable* mem_;
  Table table_;
};

std::string FileName(const std::string& db, int number);

}  // namespace store

#endif
"""

SOURCE = b"""#include "store.h"

namespace store {

void Build(Env* env, const std::string& name) {
  Status s;
  Builder* builder = new Builder();
  builder->Add(name);
  builder->Set(name, 1);
  if (s.ok()) {
    env->Remove(FileName(name, 1));
  }
  std::string copy = name;
  copy.size();
}

void DB::Compact() {
  mem_->Ref();
  table_.Insert(1);
}

void DB::Work(void* db) { reinterpret_cast<DB*>(db)->Background(); }

}  // namespace store
"""

REPAIR = b"""#include "store.h"

namespace store {

class Repairer {
 public:
  Repairer(const std::string& name, Env* env);
  Status Run();
};

Status Repair(const std::string& name, Env* env) {
  Repairer repairer(name, env);
  return repairer.Run();
}

}  // namespace store
"""


FILENAME = (
    b"#include <string>\nnamespace store {\nstd::string FileName(const std::string& db, int n) { return db; }\n}\n"
)


@contextmanager
def indexed(repo: Repo, files: dict[str, bytes]) -> Iterator[sqlite3.Connection]:
    """The index of a repository holding these files, committed."""
    for path, text in files.items():
        repo.write(path, text)
    repo.commit("code")
    conn = open_store(default_db_path(repo.root))
    try:
        index_tree(repo.root, conn)
        yield conn
    finally:
        conn.close()


@pytest.fixture
def conn(repo: Repo) -> Iterator[sqlite3.Connection]:
    files = {"store.h": HEADER, "store.cc": SOURCE, "repair.cc": REPAIR, "filename.cc": FILENAME}
    with indexed(repo, files) as conn:
        yield conn


def callers(conn: sqlite3.Connection, symbol_id: str) -> dict[str, str]:
    return {c["caller"]: c["basis"] for c in queries.callers(conn, queries.find_symbol(conn, symbol_id))}


def test_a_method_called_on_a_declared_value_is_its_class_s(conn: sqlite3.Connection) -> None:
    # `Status s; s.ok()` is Status's ok, not Builder's, which store.cc includes as well
    assert callers(conn, "store.h::store.Status.ok") == {"store.cc::store.Build": "method"}
    assert "store.cc::store.Build" not in callers(conn, "store.h::store.Builder.ok")
    # `Builder* builder = new Builder(); builder->Add(name)`
    assert callers(conn, "store.h::store.Builder.Add") == {"store.cc::store.Build": "method"}


def test_of_a_name_s_overloads_the_one_taking_that_many_arguments_is_called(conn: sqlite3.Connection) -> None:
    assert callers(conn, "store.h::store.Builder.Set") == {"store.cc::store.Build": "method"}
    assert callers(conn, "store.h::store.Builder.Set#2") == {}


def test_a_call_on_a_value_of_a_type_not_ours_reaches_none_of_ours(conn: sqlite3.Connection) -> None:
    # `std::string copy; copy.size()` is the string's size, never Block's
    assert callers(conn, "store.h::store.Block.size") == {}


def test_a_virtual_call_on_the_base_may_run_the_override(conn: sqlite3.Connection) -> None:
    assert callers(conn, "store.h::store.Env.Remove") == {"store.cc::store.Build": "method"}
    assert callers(conn, "store.h::store.PosixEnv.Remove") == {"store.cc::store.Build": "override"}


def test_a_field_an_alias_a_cast_and_a_local_made_by_a_constructor_say_the_class(conn: sqlite3.Connection) -> None:
    assert callers(conn, "store.h::store.MemTable.Ref") == {"store.cc::store.DB.Compact": "method"}
    assert callers(conn, "store.h::store.SkipList.Insert") == {"store.cc::store.DB.Compact": "method"}
    assert callers(conn, "store.h::store.DB.Background") == {"store.cc::store.DB.Work": "method"}
    # `Repairer repairer(name, env);` reads as a function's declaration to the grammar (C++'s most vexing parse)
    assert callers(conn, "repair.cc::store.Repairer.Run") == {"repair.cc::store.Repair": "same file"}


def test_a_namespace_s_function_is_reached_through_the_header_declaring_it(conn: sqlite3.Connection) -> None:
    assert callers(conn, "filename.cc::store.FileName") == {"store.cc::store.Build": "through its prototype"}
    found = queries.callees(conn, queries.find_symbol(conn, "store.cc::store.Build"))
    assert {c["name"]: c["target"] for c in found if c["target"]} == {
        "Add": "store.h::store.Builder.Add",
        "Set": "store.h::store.Builder.Set",
        "ok": "store.h::store.Status.ok",
        "Remove": "store.h::store.Env.Remove",
        "FileName": "filename.cc::store.FileName",
        "Builder": "store.h::store.Builder",
    }


def test_a_class_known_only_by_its_methods_defined_out_of_it_is_a_class(repo: Repo) -> None:
    """Where the grammar misread a class's header (or it is not in the tree), `void Value::swap(...)` still says Value
    is a class with a method swap: a call on a Value is its swap, never dropped as a function called on a value."""
    value = b"namespace Json {\nvoid Value::swap(Value& other) {}\nbool Value::empty() const { return true; }\n}\n"
    use = b"namespace Json {\nvoid exchange(Value& a, Value& b) { a.swap(b); }\n}\n"
    with indexed(repo, {"value.cpp": value, "use.cpp": use}) as conn:
        assert callers(conn, "value.cpp::Json.Value.swap") == {"use.cpp::Json.exchange": "method"}


def test_a_default_written_in_the_declaration_counts_for_the_definition(repo: Repo) -> None:
    """C++ writes a default argument in the declaration only: `Put(key)` calls the definition that the .cc writes with
    two parameters, not nothing, though another overload takes one."""
    header = b"class DB {\n public:\n  void Put(const char* key, bool sync = false);\n  void Put(int key);\n};\n"
    source = b'#include "db.h"\nvoid DB::Put(const char* key, bool sync) {}\nvoid DB::Put(int key) {}\n'
    use = b'#include "db.h"\nvoid Save(DB* db) { db->Put("k"); }\n'
    with indexed(repo, {"db.h": header, "db.cc": source, "use.cc": use}) as conn:
        assert callers(conn, "db.cc::DB.Put") == {"use.cc::Save": "method"}


def test_of_overloads_taking_as_many_arguments_the_one_their_types_fit_is_called(repo: Repo) -> None:
    """`valueToString(h.count_)` on a LargestInt member is the overload taking a LargestInt (an alias of an alias of
    long long), `valueToString(ratio)` on a double the double's, `valueToString(true)` the bool's; `cmp.Compare(x, y)`
    on two Keys compares Keys, `cmp.Compare(x, "b")` on a Slice and a string literal compares Slices (the literal
    makes a Slice). An argument whose type the code does not say fits every overload alike."""
    header = b"""namespace lib {
typedef long long Int64;
typedef Int64 LargestInt;
const char* valueToString(LargestInt value);
const char* valueToString(double value);
const char* valueToString(bool value);
class Key {};
class Slice {
 public:
  Slice(const char* p);
};
class Comparator {
 public:
  int Compare(const Slice& a, const Slice& b) const;
  int Compare(const Key& a, const Key& b) const;
};
}
"""
    source = b"""#include "lib.h"
namespace lib {
const char* valueToString(LargestInt value) { return ""; }
const char* valueToString(double value) { return ""; }
const char* valueToString(bool value) { return ""; }
int Comparator::Compare(const Slice& a, const Slice& b) const { return 0; }
int Comparator::Compare(const Key& a, const Key& b) const { return 0; }
}
"""
    use = b"""#include "lib.h"
namespace lib {
struct Holder { LargestInt count_; };
const char* ShowCount(const Holder& h) { return valueToString(h.count_); }
const char* ShowRatio(double ratio) { return valueToString(ratio); }
const char* ShowFlag() { return valueToString(true); }
const char* ShowAny(Unknown u) { return valueToString(u.value()); }
int Order(const Comparator& cmp, const Key& x, const Key& y) { return cmp.Compare(x, y); }
int OrderSlices(const Comparator& cmp, const Slice& x) { return cmp.Compare(x, "b"); }
}
"""
    with indexed(repo, {"lib.h": header, "lib.cc": source, "use.cc": use}) as conn:
        reached = {n: set(callers(conn, f"lib.cc::lib.valueToString{n}")) for n in ("", "#2", "#3")}
        assert reached == {
            "": {"use.cc::lib.ShowCount", "use.cc::lib.ShowAny"},
            "#2": {"use.cc::lib.ShowRatio", "use.cc::lib.ShowAny"},
            "#3": {"use.cc::lib.ShowFlag", "use.cc::lib.ShowAny"},
        }
        assert set(callers(conn, "lib.cc::lib.Comparator.Compare")) == {"use.cc::lib.OrderSlices"}
        assert set(callers(conn, "lib.cc::lib.Comparator.Compare#2")) == {"use.cc::lib.Order"}


def test_a_template_s_call_with_its_arguments_and_a_namespace_a_macro_opens_name_the_function(repo: Repo) -> None:
    """`impl::set_value<unsigned int>(x)` calls set_value, whose namespace `IMPL_BEGIN` opens where the grammar cannot
    see it: a free function of the file, by C's rules, not a guess by name."""
    source = b"""#define IMPL_BEGIN namespace lib { namespace impl {
#define IMPL_END } }
IMPL_BEGIN
template <typename U> bool set_value(U value) { return value != 0; }
IMPL_END
namespace lib {
bool Store(unsigned int x) { return impl::set_value<unsigned int>(x); }
}
"""
    with indexed(repo, {"lib.cc": source}) as conn:
        assert callers(conn, "lib.cc::set_value") == {"lib.cc::lib.Store": "same file"}


def test_a_type_the_index_cannot_see_may_be_the_argument_s(repo: Repo) -> None:
    """`char_t` stands for whatever the macro CHAR_TYPE says, which the index cannot read: `set("x")` may be the
    overload taking a `const char_t*` (it is), and the one taking a bool is never preferred to it."""
    header = b"#define CHAR_TYPE char\ntypedef CHAR_TYPE char_t;\nclass Node {\n public:\n"
    header += b"  void set(const char_t* value);\n  void set(bool value);\n};\n"
    source = b'#include "node.h"\nvoid Node::set(const char_t* value) {}\nvoid Node::set(bool value) {}\n'
    use = b'#include "node.h"\nvoid Name(Node* node) { node->set("x"); }\nvoid Flag(Node* node) { node->set(true); }\n'
    with indexed(repo, {"node.h": header, "node.cc": source, "use.cc": use}) as conn:
        assert set(callers(conn, "node.cc::Node.set")) == {"use.cc::Name"}
        assert set(callers(conn, "node.cc::Node.set#2")) == {"use.cc::Flag"}


def test_a_method_taken_as_a_value_is_called_by_whoever_gets_it(repo: Repo) -> None:
    """`env->Schedule(&DBImpl::Work, this)` calls no Work: it hands Work to Schedule, which calls it later. Its
    taker stands for that caller ("named as a value"), so a walk up the calls from Work reaches what schedules it."""
    source = b"""namespace db {
class Env { public: void Schedule(void (*work)(void*), void* arg); };
class DBImpl {
 public:
  void MaybeCompact();
  static void Work(void* db);
  void Compact();
 private:
  Env* env_;
};
void DBImpl::MaybeCompact() { env_->Schedule(&DBImpl::Work, this); }
void DBImpl::Work(void* db) { reinterpret_cast<DBImpl*>(db)->Compact(); }
void DBImpl::Compact() {}
}  // namespace db
"""
    with indexed(repo, {"db_impl.cc": source}) as conn:
        assert callers(conn, "db_impl.cc::db.DBImpl.Work") == {"db_impl.cc::db.DBImpl.MaybeCompact": "named as a value"}
        reached = queries.impact(conn, "db_impl.cc::db.DBImpl.Compact")["symbols"]
        assert "db_impl.cc::db.DBImpl.MaybeCompact" in {s["id"] for s in reached}


OPERATORS = b"""#include <ostream>
#include <string>
namespace yaml {
class Node {
 public:
  Node operator[](const std::string& key);
  Node& operator=(int value);
  bool operator==(const Node& other) const;
};
class Emitter {
 public:
  Emitter& Write(const std::string& text);
  Emitter& operator=(const Emitter& other);
  Emitter& operator=(Emitter&& other);
};
enum EMITTER_MANIP { BeginMap, EndMap };
Emitter& operator<<(Emitter& out, const Node& node);
Emitter& operator<<(Emitter& out, const char* text);
std::ostream& operator<<(std::ostream& out, const Node& node);
Emitter& operator<<(Emitter& out, EMITTER_MANIP value);
Emitter Make();
class Token {};
Emitter& operator<<(Emitter& out, const std::string_view& text);
}  // namespace yaml
"""

OPERATOR_USES = b"""#include <sstream>
#include "node.h"
namespace yaml {
void Emit(Emitter& out, Node node) {
  out << node;
  out << "text";
}
void Map(Emitter& out) { out << yaml::BeginMap; }
void Copy(Emitter& out, Emitter& other) { out = other; }
void Move(Emitter& out) { out = Make(); }
void Number(Emitter& out) { out = 2.5; }
void Print(std::ostream& os, Node& node) { os << node; }
void Log(std::ostream& os, int count) { os << "count " << count; }
void Dump(std::ostream& os, Token& token) { os << token; }
bool Same(Node a, Node b) { return a == b; }
bool SamePlace(Node* a, Node* b) { return a == b; }
void Fill(Node node) { node["size"] = 3; }
int Sum(int a, int b) { return a + b == 4; }
}  // namespace yaml
"""


def test_an_operator_expression_calls_the_operator_its_operands_fit(repo: Repo) -> None:
    """`out << node` calls the operator<< taking an Emitter and a Node, `out << "text"` the one taking a `const char*`,
    `os << node` the one taking a stream; `a == b` the member operator== of a's class (of two `Node*`, none),
    `node["size"] = 3` Node's operator[] and then the operator= of its result. An enumerator is of its enum's type
    (`out << yaml::BeginMap`), and a temporary is moved (`out = Make()`, `out = 2.5`, which makes an Emitter), a named
    value copied (`out = other`). Operands of no class of ours call none (`os << "count "`, `a + b`), whichever
    operators the file includes, and `os << token` none either: no operator<< takes a Token (the one taking a
    string_view, which is not ours and so never ruled out, takes none)."""
    with indexed(repo, {"node.h": OPERATORS, "use.cc": OPERATOR_USES}) as conn:

        def followed(symbol_id: str) -> set[str]:
            return {caller for caller, basis in callers(conn, symbol_id).items() if basis in FOLLOWED}

        assert followed("node.h::yaml.operator<<") == {"use.cc::yaml.Emit"}
        assert followed("node.h::yaml.operator<<#2") == {"use.cc::yaml.Emit"}
        assert followed("node.h::yaml.operator<<#3") == {"use.cc::yaml.Print"}
        assert followed("node.h::yaml.operator<<#4") == {"use.cc::yaml.Map"}
        assert followed("node.h::yaml.Emitter.operator=") == {"use.cc::yaml.Copy"}
        assert followed("node.h::yaml.operator<<#5") == set()  # a Token is no Emitter, nor a string_view of ours
        assert followed("node.h::yaml.Emitter.operator=#2") == {"use.cc::yaml.Move", "use.cc::yaml.Number"}
        assert followed("node.h::yaml.Node.operator==") == {"use.cc::yaml.Same"}
        assert followed("node.h::yaml.Node.operator[]") == {"use.cc::yaml.Fill"}
        assert followed("node.h::yaml.Node.operator=") == {"use.cc::yaml.Fill"}


def test_an_operator_many_overloads_fit_alike_is_a_guess(repo: Repo) -> None:
    """`attr = Compute()` with a value the code does not type fits each of five `operator=` alike: a call of any one of
    them is a guess, where a typed argument (`attr = 1.5`) names the double's. A parameter of a function returning a
    reference is typed as any other (`Attr& Attr::operator=(double rhs) { set(rhs); ... }` calls set(double))."""
    types = (b"int", b"double", b"bool", b"long", b"const char*")
    header = b"class Attr {\n public:\n" + b"".join(b"  Attr& operator=(%s rhs);\n" % t for t in types)
    header += b"".join(b"  void set(%s value);\n" % t for t in types) + b"};\n"
    source = b'#include "attr.h"\nAttr& Attr::operator=(double rhs) { set(rhs); return *this; }\n'
    source += b"void Any(Attr& attr) { attr = Compute(); }\nvoid Real(Attr& attr) { attr = 1.5; }\n"
    with indexed(repo, {"attr.h": header, "attr.cc": source}) as conn:
        assert callers(conn, "attr.h::Attr.set#2") == {"attr.cc::Attr.operator=": "method"}
        assert callers(conn, "attr.h::Attr.operator=#2") == {"attr.cc::Real": "method", "attr.cc::Any": "name only"}
        assert callers(conn, "attr.h::Attr.operator=") == {"attr.cc::Any": "name only"}


def test_a_type_named_through_an_alias_of_another_library_s_is_none_of_ours(repo: Repo) -> None:
    """`Map::const_iterator`, Map a std::map, is the map's iterator, not the `const_iterator` a class of ours names so:
    `*it` calls none of ours."""
    source = b"""#include <map>
class Iter { public: int& operator*() const; };
class Value { public: typedef Iter const_iterator; };
typedef std::map<int, int> Map;
int Walk(Map::const_iterator it) { return *it; }
int Own(Value::const_iterator it) { return *it; }
"""
    with indexed(repo, {"value.cc": source}) as conn:
        assert callers(conn, "value.cc::Iter.operator*") == {"value.cc::Own": "same file"}
