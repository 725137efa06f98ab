"""C++ tests as googletest runs them: `TEST_F(StoreTest, Empty)` is the test `StoreTest.Empty`, reached through the
fixture's helpers, and a fixture's constructor and SetUp run for each of its tests. bench/facts_tests_cpp.py measures
the same against gcov's per-test coverage."""

from __future__ import annotations

from codeannals.store import queries
from codeannals.store.suite import googletest_name

from .conftest import Repo, indexed

HEADER = b"""#ifndef KV_H_
#define KV_H_
namespace kv {
class Store {
 public:
  Store();
  int Get(int key) const;
  int Size() const;
 private:
  int size_;
};
}  // namespace kv
#endif
"""

SOURCE = b"""#include "kv.h"
namespace kv {
Store::Store() : size_(0) {}
int Store::Get(int key) const { return key + size_; }
int Store::Size() const { return size_; }
}  // namespace kv
"""

TESTS = b"""#include "gtest/gtest.h"
#include "kv.h"
namespace kv {
class StoreTest : public testing::Test {
 public:
  StoreTest() { Reset(); }
  void Reset() { store_ = new Store(); }
  int Lookup(int key) { return store_->Get(key); }
  Store* store_;
};

TEST_F(StoreTest, Empty) { EXPECT_EQ(1, Lookup(1)); }

TEST_F(StoreTest, Nothing) { EXPECT_TRUE(true); }

TEST(Free, Get) {
  Store* store = new Store();
  EXPECT_EQ(2, store->Get(2));
}
}  // namespace kv
"""


def test_googletest_s_tests_reach_the_code_through_fixtures_and_their_helpers(repo: Repo) -> None:
    repo.write("include/kv.h", HEADER)
    repo.write("src/kv.cc", SOURCE)
    repo.write("test/kv_test.cc", TESTS)
    repo.write("test/other_test.cc", b'#include "gtest/gtest.h"\n#include "kv.h"\nTEST(Other, Nothing) {}\n')
    repo.write("CMakeLists.txt", "include_directories(include)\n")
    conn = indexed(repo)
    try:
        get = queries.impact(conn, "src/kv.cc::kv.Store.Get")
        assert set(get["tests"]) == {"test/kv_test.cc::StoreTest.Empty", "test/kv_test.cc::Free.Get"}
        assert get["tests_note"] == (
            "1 more test file includes the headers of src/kv.cc with no call path found to it:"
            " impact_analysis('src/kv.cc') lists them"
        )
        # googletest constructs the fixture for each of its tests: its constructor makes a Store
        made = queries.impact(conn, "src/kv.cc::kv.Store.Store")
        assert {"test/kv_test.cc::StoreTest.Empty", "test/kv_test.cc::StoreTest.Nothing"} <= set(made["tests"])
        assert "googletest runs for each of its tests" in " ".join(t["basis"] for t in made["tests_basis"])
        # nothing calls it: the test files including the header that declares it may use it, and are listed whole
        size = queries.impact(conn, "src/kv.cc::kv.Store.Size")
        assert size["tests"] == ["test/kv_test.cc", "test/other_test.cc"]
        basis = size["tests_basis"][0]["basis"]
        assert basis.startswith("includes include/kv.h, declaring what src/kv.cc defines; no call path found")
    finally:
        conn.close()


def test_c_plus_plus_tests_are_unknown_where_the_project_has_no_googletest_tests(repo: Repo) -> None:
    repo.write("include/kv.h", HEADER)
    repo.write("src/kv.cc", SOURCE)
    repo.write("test/kv_test.cc", b'#include "kv.h"\nint main() { return kv::Store().Get(0); }\n')
    conn = indexed(repo)
    try:
        answer = queries.impact(conn, "src/kv.cc::kv.Store.Get")
        assert answer["tests"] == []
        assert answer["tests_note"].startswith("tests unknown: no test runner of cpp is known here")
    finally:
        conn.close()


def test_a_parameterized_or_typed_test_is_named_by_the_filter_running_its_instances() -> None:
    """googletest runs `TEST_P(CodecTest, RoundTrip)` once per instance, as `Prefix/CodecTest.RoundTrip/0`...:
    `--gtest_filter=CodecTest.RoundTrip` would run none of them."""
    assert googletest_name("t/codec_test.cc", "TEST_F(CodecTest, RoundTrip)") == "CodecTest.RoundTrip"
    assert googletest_name("t/codec_test.cc", "TEST_P(CodecTest, RoundTrip)") == "*/CodecTest.RoundTrip/*"
    assert googletest_name("t/codec_test.cc", "TYPED_TEST(CodecTest, RoundTrip)") == "CodecTest/*.RoundTrip"
    assert googletest_name("t/codec_test.cc", "TYPED_TEST_P(CodecTest, RoundTrip)") == "*/CodecTest/*.RoundTrip"
    assert googletest_name("t/codec_test.cc", "FRIEND_TEST(CodecTest, RoundTrip)") is None
    assert googletest_name("t/codec_test.py", "TEST(CodecTest, RoundTrip)") is None


def test_a_class_is_made_by_a_declared_local_a_member_s_holder_and_a_derived_class(repo: Repo) -> None:
    """No call names `Arena` in `Arena arena;`, in a class holding `Arena arena_;` or in `new Pool()` of a class
    deriving from it, yet each makes one, and runs its constructor; a parameter of its type makes none, nor does a
    pointer to one (`Arena* arena = Borrow();`)."""
    repo.write(
        "include/arena.h",
        b"namespace kv {\nclass Arena {\n public:\n  Arena();\n};\nclass Table {\n public:\n  Arena arena_;\n};\n"
        b"class Pool : public Arena {\n public:\n  Pool() {}\n};\nint Use(const Arena& arena);\n}  // namespace kv\n",
    )
    repo.write(
        "src/arena.cc",
        b'#include "arena.h"\nnamespace kv {\nArena::Arena() {}\nint Use(const Arena& arena) { return 0; }\n}\n',
    )
    repo.write(
        "test/arena_test.cc",
        b'#include "gtest/gtest.h"\n#include "arena.h"\nnamespace kv {\n'
        b"TEST(Arena, Local) {\n  Arena arena;\n  EXPECT_TRUE(true);\n}\n"
        b"TEST(Arena, Member) {\n  Table* table = new Table();\n  EXPECT_TRUE(table != nullptr);\n}\n"
        b"TEST(Arena, Derived) {\n  Pool* pool = new Pool();\n  EXPECT_TRUE(pool != nullptr);\n}\n"
        b"TEST(Arena, Parameter) {\n  EXPECT_EQ(0, Use(*static_cast<Arena*>(nullptr)));\n}\n"
        b"TEST(Arena, Pointer) {\n  Arena* arena = Borrow();\n  EXPECT_TRUE(arena != nullptr);\n}\n"
        b"}  // namespace kv\n",
    )
    repo.write("CMakeLists.txt", "include_directories(include)\n")
    conn = indexed(repo)
    try:
        made = queries.impact(conn, "src/arena.cc::kv.Arena.Arena")
        by_call = {t["test"] for t in made["tests_basis"] if "no call path" not in t["basis"]}
        assert by_call == {
            "test/arena_test.cc::Arena.Local",
            "test/arena_test.cc::Arena.Member",
            "test/arena_test.cc::Arena.Derived",
        }
    finally:
        conn.close()


def test_a_test_googletest_runs_is_called_by_no_code(repo: Repo) -> None:
    """`TEST(Free, Get)` defines the test `Free.Get` and `TEST_F(StoreTest, Size)` the test `StoreTest.Size`, which
    googletest runs: no call is theirs, not even `t.Size()` on a value of a type parameter, a guess by name (yaml-cpp's
    googlemock: `mock.AsStdFunction()` was guessed to be `TEST(MockMethodMockFunctionTest, AsStdFunction)` twenty
    times)."""
    repo.write("include/kv.h", HEADER)
    repo.write("src/kv.cc", SOURCE + b"template <typename T> int Use(T t) { return t.Get(1) + t.Size(); }\n")
    repo.write(
        "test/kv_test.cc", TESTS + b"namespace kv {\nTEST_F(StoreTest, Size) { EXPECT_EQ(0, store_->Size()); }\n}\n"
    )
    conn = indexed(repo)
    try:
        from codeannals.store import lookups

        for test in ("test/kv_test.cc::kv.Free.Get", "test/kv_test.cc::kv.StoreTest.Size"):
            assert lookups.callers(conn, queries.find_symbol(conn, test)) == []
        # `t.Get(1)` on a value of a type parameter: Store's Get, as a guess, and no test's
        get = queries.find_symbol(conn, "src/kv.cc::kv.Store.Get")
        assert {c["caller"] for c in lookups.callers(conn, get)} >= {
            "test/kv_test.cc::kv.Free.Get",
            "test/kv_test.cc::kv.StoreTest.Lookup",
            "src/kv.cc::Use",
        }
    finally:
        conn.close()
