"""C and C++ headers as the compiler reads them: a `.h` of C++ is read as C++, and the macros tree-sitter cannot
expand (export and calling-convention macros, thread-safety annotations, `extern "C"` under `#ifdef __cplusplus`)
no longer break the declarations around them."""

from __future__ import annotations

import pytest
from codeannals.indexer.parsing.extract import extract
from codeannals.indexer.parsing.parse import language_of
from codeannals.indexer.run import index_tree
from codeannals.store import default_db_path, open_store, queries

from .conftest import Repo

CPP_HEADER = b"""#ifndef DB_H_
#define DB_H_
#include <string>
#include "export.h"

namespace store {

// A key-value store. Thread-safe.
class STORE_EXPORT DB {
 public:
  DB() = default;
  DB(const DB&) = delete;
  virtual ~DB();
  Status Get(const std::string& key, std::string* value) LOCKS_EXCLUDED(mu_);
  void Compact() EXCLUSIVE_LOCKS_REQUIRED(mu_);

 private:
  Mutex mu_;
  MemTable* mem_ GUARDED_BY(mu_);
  uint64_t seq_ GUARDED_BY(mu_);
};

class Iterator STORE_FINAL : public Base {
 public:
  bool Valid() const;
};

STORE_EXPORT Status DestroyDB(const std::string& name);
STORE_EXPORT const Comparator* BytewiseComparator();

}  // namespace store

#endif
"""


@pytest.mark.parametrize(
    ("text", "language"),
    [
        (CPP_HEADER, "cpp"),
        (b"template <typename T>\nT twice(T x);\n", "cpp"),
        (b"@interface Shape : NSObject\n- (double)area;\n@end\n", "objc"),
        # C with its C++ accommodations, and words of C++ in its comments, is C
        (
            b'/* try to port your code: the class of errors */\n#ifdef __cplusplus\nextern "C" {\nclass Shim;\n#endif\n'
            b"int area(int w, int h);\n#ifdef __cplusplus\n}\n#endif\n",
            "c",
        ),
        (b"#include <stdio.h>\nint area(int w, int h);\n", "c"),
    ],
)
def test_a_header_is_read_as_the_language_its_text_is(text: bytes, language: str) -> None:
    assert language_of("include/shape.h", text) == language
    assert language_of("src/shape.c", text) == "c"  # only a `.h` is in doubt


def test_a_cpp_header_s_classes_and_methods_are_read_through_its_macros() -> None:
    found = extract("include/db.h", CPP_HEADER, language_of("include/db.h", CPP_HEADER) or "c")
    assert found.language == "cpp"
    assert [(s["qualname"], s["kind"]) for s in found.symbols] == [
        ("store", "namespace"),
        ("store.DB", "class"),
        ("store.DB.DB", "method"),
        ("store.DB.DB", "method"),
        ("store.DB.~DB", "method"),
        ("store.DB.Get", "method"),
        ("store.DB.Compact", "method"),
        ("store.Iterator", "class"),
        ("store.Iterator.Valid", "method"),
        ("store.DestroyDB", "function"),
        ("store.BytewiseComparator", "function"),
    ]
    signatures = {s["qualname"]: s["signature"] for s in found.symbols}
    # the file's own text: the annotations are kept, only the grammar was spared them
    assert signatures["store.DB.Compact"] == "void Compact() EXCLUSIVE_LOCKS_REQUIRED(mu_)"
    assert signatures["store.DB"] == "class STORE_EXPORT DB"
    returns = {s["qualname"]: s["returns"] for s in found.symbols if s["kind"] == "function"}
    assert returns == {"store.DestroyDB": "Status", "store.BytewiseComparator": "const Comparator *"}


def test_c_prototypes_behind_export_and_calling_convention_macros_are_functions() -> None:
    """libxml2's `XMLPUBFUN xmlChar * XMLCALL xmlStrdup(...)`, OpenGL's `GL_APICALL void GL_APIENTRY glClear(...)`,
    in a header whose `extern "C" {` and `}` each sit under their own `#ifdef __cplusplus`."""
    header = b"""#ifndef XS_H
#define XS_H
#ifdef __cplusplus
extern "C" {
#endif
XSPUBFUN xsChar * XSCALL xsStrdup (const xsChar *cur);
XSPUBFUN int XSCALL xsStrlen (const xsChar *str);
XS_APICALL void XS_APIENTRY xsClear (unsigned int mask);
XS_APICALL void XS_APIENTRY xsFlush (void);
XS_DEPRECATED const xs_method *xs_default_method(void);
int xs_plain(int x);
#ifdef __cplusplus
}
#endif
#endif
"""
    found = extract("include/xs.h", header, "c")
    assert found.language == "c"
    assert {s["name"]: s["returns"] for s in found.symbols if s["kind"] == "function"} == {
        "xsStrdup": "xsChar *",
        "xsStrlen": "int",
        "xsClear": "void",
        "xsFlush": "void",
        "xs_default_method": "const xs_method *",
        "xs_plain": "int",
    }


def test_a_macro_call_at_file_level_is_no_function() -> None:
    found = extract("test/list.h", b"TEST_DECLARE(loop_alive)\nTEST_DECLARE(loop_close)\nint run_tests(void);\n", "c")
    assert [s["name"] for s in found.symbols] == ["run_tests"]


def test_an_indexed_cpp_header_is_cpp_and_its_contract_lists_its_namespace_s_classes(repo: Repo) -> None:
    repo.write("include/db.h", CPP_HEADER)
    repo.write(
        "src/db.cc",
        '#include "include/db.h"\n#define LIMIT 3\nnamespace store {\nstruct Writer {};\nenum State { OPEN };\n'
        "void DB::Compact() {}\n}\n",
    )
    repo.commit("db")
    conn = open_store(default_db_path(repo.root))
    try:
        index_tree(repo.root, conn)
        row = conn.execute("SELECT language FROM files WHERE path = 'include/db.h'").fetchone()
        assert row["language"] == "cpp"
        assert queries.find_symbol(conn, "include/db.h::store.DB.Compact")["kind"] == "method"
        # a namespace is where the names live: the contract lists what it holds
        api = queries.module_contract(conn, "include/db.h")["public_api"]
        assert [entry["name"] for entry in api] == ["DB", "Iterator", "DestroyDB", "BytewiseComparator"]
        assert "Compact" in [method["name"] for method in api[0]["methods"]]
        # a source's own types and macros are no one else's: its API is what it defines of the header's
        assert [entry["name"] for entry in queries.module_contract(conn, "src/db.cc")["public_api"]] == ["Compact"]
    finally:
        conn.close()


def test_a_test_a_macro_defines_is_named_as_the_test() -> None:
    """googletest's `TEST_F(Fixture, Name) { ... }` and libuv's `TEST_IMPL(name) { ... }` define functions named by
    their arguments; each was a function named TEST_F."""
    source = b"""namespace store {
class EnvTest : public testing::Test {};
TEST_F(EnvTest, ReadWrite) {
  ASSERT_TRUE(Write());
}
TEST(Hash, SignedUnsigned) {}
}  // namespace store
TEST_IMPL(loop_alive) {
  return 0;
}
"""
    found = extract("store/env_test.cc", source, "cpp")
    assert [(s["qualname"], s["signature"]) for s in found.symbols] == [
        ("store", "namespace store"),
        ("store.EnvTest", "class EnvTest : public testing::Test"),
        ("store.EnvTest.ReadWrite", "TEST_F(EnvTest, ReadWrite)"),
        ("store.Hash.SignedUnsigned", "TEST(Hash, SignedUnsigned)"),
        ("loop_alive", "TEST_IMPL(loop_alive)"),
    ]


def test_a_test_a_macro_defines_in_c_is_named_as_the_test_and_holds_its_calls() -> None:
    """C's grammar reads libuv's `TEST_IMPL(loop_alive) { ... }` as a function of the type TEST_IMPL named
    `(loop_alive)`, with no parameters: it was no symbol at all, and its calls had no caller (libuv's test/ had 369)."""
    source = b"""#include "task.h"
static int alive(void) { return 1; }
TEST_IMPL(loop_alive) {
  ASSERT(alive());
  return 0;
}
BENCHMARK_IMPL(loop_count) {
  int item;
  FOREACH(item) {
    alive();
  }
  return 0;
}
"""
    found = extract("test/test-loop-alive.c", source, "c")
    assert [(s["name"], s["signature"]) for s in found.symbols] == [
        ("alive", "static int alive(void)"),
        ("loop_alive", "TEST_IMPL(loop_alive)"),
        ("loop_count", "BENCHMARK_IMPL(loop_count)"),  # a macro's loop in a body defines nothing
    ]
    assert {(c["caller"], c["name"]) for c in found.calls if c["name"] == "alive"} == {
        ("test/test-loop-alive.c::loop_alive", "alive"),
        ("test/test-loop-alive.c::loop_count", "alive"),
    }


def test_a_conditional_inside_an_initializer_list_leaves_the_classes_after_it_where_they_are() -> None:
    """leveldb's util/env_posix.cc: the grammar reads `#if` only between declarations, so one inside a constructor's
    initializer list nested every later class of the file in that constructor's class."""
    source = b"""namespace store {
class Limiter {
 public:
  Limiter(int max_acquires)
      :
#if !defined(NDEBUG)
        max_acquires_(max_acquires),
#endif  // !defined(NDEBUG)
        acquires_allowed_(max_acquires) {}
  bool Acquire();
};
#if defined(_WIN32)
int Native() { return 1; }
#else
int Native() { return 0; }
#endif
class SequentialFile final : public File {
 public:
  Status Read(size_t n);
};
}  // namespace store
"""
    found = extract("store/env_posix.cc", source, "cpp")
    assert [s["qualname"] for s in found.symbols] == [
        "store",
        "store.Limiter",
        "store.Limiter.Limiter",
        "store.Limiter.Acquire",
        "store.Native",
        "store.Native",
        "store.SequentialFile",
        "store.SequentialFile.Read",
    ]


def test_a_macro_given_a_type_in_a_body_leaves_the_tests_after_it_where_they_are() -> None:
    """re2's `ASSERT_DECIMAL(unsigned short, 9999);` in a test's body reads as a function defined there, and every
    later test of the file came out nested in that test."""
    source = b"""TEST(RE2, DecimalTests) {
  ASSERT_DECIMAL(short,              -1);
  ASSERT_DECIMAL(unsigned short,     9999);
  ASSERT_DECIMAL(unsigned int,       12345U);
}
TEST(RE2, FullMatch) {
  Check();
}
"""
    found = extract("re2_test.cc", source, "cpp")
    assert [s["qualname"] for s in found.symbols] == ["RE2.DecimalTests", "RE2.FullMatch"]


def test_a_class_export_macro_before_a_base_clause_leaves_the_class_a_class() -> None:
    """`class JSON_API Exception : public std::exception {`: with a base clause the grammar read no function but an
    error, and the classes were lost (jsoncpp's reader.h and value.h)."""
    header = b"""namespace Json {
class JSON_API Exception : public std::exception {
public:
  Exception(String msg);
  char const* what() const noexcept override;
};
class JSON_API RuntimeError : public Exception {
public:
  RuntimeError(String const& msg);
};
class JSON_API Features final {
public:
  bool strictRoot_;
};
}
"""
    found = extract("include/json/value.h", header, "cpp")
    assert [(s["qualname"], s["kind"]) for s in found.symbols] == [
        ("Json", "namespace"),
        ("Json.Exception", "class"),
        ("Json.Exception.Exception", "method"),
        ("Json.Exception.what", "method"),
        ("Json.RuntimeError", "class"),
        ("Json.RuntimeError.RuntimeError", "method"),
        ("Json.Features", "class"),
    ]
    assert found.symbols[4]["signature"] == "class JSON_API RuntimeError : public Exception"


def test_an_export_macro_ending_in_an_underscore_is_a_macro_too() -> None:
    """googletest's `class GTEST_API_ Cardinality {` (its macros end in `_`): the class was lost, its methods read as
    functions of the namespace (yaml-cpp's vendored googlemock: `impl_->ConservativeLowerBound()` then called the
    function it was written in)."""
    header = b"""namespace testing {
class GTEST_API_ Cardinality {
 public:
  int ConservativeLowerBound() const { return impl_->ConservativeLowerBound(); }
};
class GTEST_API_ Matcher : public MatcherBase {
 public:
  bool Matches() const;
};
}
"""
    found = extract("gmock/gmock-cardinalities.h", header, "cpp")
    assert [(s["qualname"], s["kind"]) for s in found.symbols] == [
        ("testing", "namespace"),
        ("testing.Cardinality", "class"),
        ("testing.Cardinality.ConservativeLowerBound", "method"),
        ("testing.Matcher", "class"),
        ("testing.Matcher.Matches", "method"),
    ]


def test_a_macro_given_a_message_before_a_method_leaves_its_class_a_class() -> None:
    """`JSONCPP_DEPRECATED("Use setComment(String const&) instead.")` before a method made jsoncpp's Value one
    error: the class, its 140 methods and the classes nested in it were lost."""
    header = b"""namespace Json {
class Value {
public:
  bool isMember(const char* key) const;

  JSONCPP_DEPRECATED("Use setComment(String const&) instead.")
  void setComment(const char* comment, CommentPlacement placement) {
    setComment(String(comment, strlen(comment)), placement);
  }
  void setComment(String comment, CommentPlacement placement);
};
}
"""
    found = extract("include/json/value.h", header, "cpp")
    assert [(s["qualname"], s["kind"]) for s in found.symbols] == [
        ("Json", "namespace"),
        ("Json.Value", "class"),
        ("Json.Value.isMember", "method"),
        ("Json.Value.setComment", "method"),  # its two overloads, one symbol
    ]


def test_members_a_macro_declares_leave_the_prototypes_after_the_struct_at_file_level() -> None:
    """libuv's uv.h: `UV_UDP_SEND_PRIVATE_FIELDS` alone on the last line of a struct's body (members a macro
    declares, no `;`) kept the struct open to the file's end, and 77 of its 318 prototypes were no symbol."""
    source = b"""#ifndef UV_H
#define UV_H
#define UV_EXTERN extern
struct uv_udp_s {
  UV_HANDLE_FIELDS
  /* read-only */
  size_t send_queue_size;
  UV_UDP_PRIVATE_FIELDS
};
struct uv_udp_send_s {
  UV_REQ_FIELDS
  uv_udp_t* handle;
  UV_UDP_SEND_PRIVATE_FIELDS  /* platform's */
};
UV_EXTERN int uv_udp_init(uv_loop_t*, uv_udp_t* handle);
UV_EXTERN int uv_udp_bind(uv_udp_t* handle, const struct sockaddr* addr, unsigned int flags);
#endif
"""
    found = extract("include/uv.h", source, "c")
    assert [s["qualname"] for s in found.symbols if s["kind"] != "macro"] == [
        "uv_udp_s",
        "uv_udp_send_s",
        "uv_udp_init",
        "uv_udp_bind",
    ]


def test_a_macro_s_body_calls_what_it_calls_and_not_what_its_user_passes() -> None:
    """libuv's tests end with `MAKE_VALGRIND_HAPPY(loop)`, whose body calls uv_loop_close: the compiler sees the
    call in every test. A parameter called (`f(x)`) or a name pasted (`name##_cb`) is whatever the user passes."""
    source = b"""#define MAKE_VALGRIND_HAPPY(loop)  \\
  do {                              \\
    close_loop(loop);               \\
    ASSERT_EQ(0, uv_loop_close(loop)); \\
  } while (0)
#define APPLY(f, x) f(x)
#define DEFINE_CB(name) static void name##_cb(void) { name##_calls++; }
#define NOW (uv_now(uv_default_loop()))
#define LIMIT 10
"""
    found = extract("test/task.h", source, "c")
    assert sorted((c["caller"].partition("::")[2], c["name"], c["line"]) for c in found.calls) == [
        ("MAKE_VALGRIND_HAPPY", "ASSERT_EQ", 4),
        ("MAKE_VALGRIND_HAPPY", "close_loop", 3),
        ("MAKE_VALGRIND_HAPPY", "uv_loop_close", 4),
        ("NOW", "uv_default_loop", 8),
        ("NOW", "uv_now", 8),
    ]


def test_the_functions_a_macro_of_the_file_defines_stand_where_it_is_used() -> None:
    """libuv's loop-watcher.c: `UV_LOOP_WATCHER_DEFINE(prepare, PREPARE)` writes uv_prepare_init and its siblings,
    public functions the index had no symbol of. A macro's own text defines nothing until it is used."""
    source = b"""#include "uv.h"
#define WATCHER_DEFINE(name, type)                          \\
  int uv_##name##_init(uv_loop_t* loop, uv_##name##_t* h) { \\
    uv__handle_init(loop, (uv_handle_t*)h, UV_##type);     \\
    return 0;                                               \\
  }                                                         \\
  const char* uv_##name##_label(void) { return #name; }

WATCHER_DEFINE(prepare, PREPARE)
WATCHER_DEFINE(idle,
               IDLE)
"""
    found = extract("src/loop-watcher.c", source, "c")
    assert [(s["name"], s["start_line"], s["end_line"], s["signature"]) for s in found.symbols][1:] == [
        ("uv_prepare_init", 9, 9, "int uv_prepare_init(uv_loop_t* loop, uv_prepare_t* h)"),
        ("uv_prepare_label", 9, 9, "const char* uv_prepare_label(void)"),
        ("uv_idle_init", 10, 11, "int uv_idle_init(uv_loop_t* loop, uv_idle_t* h)"),
        ("uv_idle_label", 10, 11, "const char* uv_idle_label(void)"),
    ]
    calls = {(c["caller"], c["name"], c["line"]) for c in found.calls}
    assert ("src/loop-watcher.c::uv_idle_init", "uv__handle_init", 10) in calls
    # the calls are the functions' it writes, not the macro's own (cmacrobody.py)
    assert not [call for call in calls if call[0] == "src/loop-watcher.c::WATCHER_DEFINE"]


def test_a_function_whose_head_a_macro_wraps_is_a_function() -> None:
    """libuv's `UV_UNUSED(static void uv__update_time(uv_loop_t* loop)) { ... }` and heap-inl.h's `HEAP_EXPORT(...)`
    were read as a type made by a macro and a block after it: no function."""
    source = b"""HEAP_EXPORT(void heap_init(struct heap* heap));
HEAP_EXPORT(void heap_init(struct heap* heap)) {
  heap->min = NULL;
}
UV_UNUSED(static void uv__update_time(uv_loop_t* loop)) {
  loop->time = uv__hrtime(1) / 1000000;
}
"""
    found = extract("src/heap-inl.h", source, "c")
    assert [(s["name"], s["start_line"], s["signature"]) for s in found.symbols] == [
        ("heap_init", 2, "void heap_init(struct heap* heap)"),
        ("uv__update_time", 5, "static void uv__update_time(uv_loop_t* loop)"),
    ]
