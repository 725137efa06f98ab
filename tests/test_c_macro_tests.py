"""C tests a project's own macro defines, as its runner takes them: libuv's `TEST_IMPL(tcp_bind) { ... }` is the test
`tcp_bind` (`uv_run_tests_a tcp_bind`), reached through the helpers of its file. bench/facts_tests_cpp.py measures
the same against gcov's per-test coverage of libuv."""

from __future__ import annotations

from codeannals.store import queries

from .conftest import Repo, indexed

HEADER = b"""#ifndef UV_H
#define UV_H
int uv_tcp_bind(int port);
int uv_now(void);
void uv_library_shutdown(void);
#endif
"""

SOURCE = b"""#include "uv.h"
static int checked(int port) { return port > 0 ? port : -1; }
int uv_tcp_bind(int port) { return checked(port); }
int uv_now(void) { return 0; }
void uv_library_shutdown(void) {}
"""

TASK = b"""#include "uv.h"
#define MAKE_VALGRIND_HAPPY() \\
  do { \\
    uv_library_shutdown(); \\
  } while (0)
#define TEST_IMPL(name) \\
  int run_test_##name(void); \\
  int run_test_##name(void)
#define BENCHMARK_IMPL(name) \\
  int run_benchmark_##name(void); \\
  int run_benchmark_##name(void)
"""

TESTS = b"""#include "uv.h"
#include "task.h"

static int start_server(void) {
  return uv_tcp_bind(9123);
}

TEST_IMPL(tcp_bind) {
  ASSERT(start_server() == 9123);
  return 0;
}

TEST_IMPL(tcp_now) {
  int now = uv_now();
  MAKE_VALGRIND_HAPPY();
  return now;
}
"""

BENCHMARK = b"""#include "uv.h"
#include "task.h"
BENCHMARK_IMPL(tcp_binds) {
  return uv_tcp_bind(1);
}
"""


def test_a_c_test_a_macro_defines_reaches_the_code_through_the_helpers_of_its_file(repo: Repo) -> None:
    repo.write("include/uv.h", HEADER)
    repo.write("src/tcp.c", SOURCE)
    repo.write("test/task.h", TASK)
    repo.write("test/test-tcp.c", TESTS)
    repo.write("test/benchmark-tcp.c", BENCHMARK)
    repo.write("CMakeLists.txt", "include_directories(include)\n")
    conn = indexed(repo)
    try:
        answer = queries.impact(conn, "src/tcp.c::checked")
        # the helper is no test, and a benchmark's macro makes none
        assert answer["tests"] == ["test/test-tcp.c::tcp_bind"]
        assert queries.impact(conn, "src/tcp.c::uv_now")["tests"] == ["test/test-tcp.c::tcp_now"]
        # through the body of a macro the test calls
        assert queries.impact(conn, "src/tcp.c::uv_library_shutdown")["tests"] == ["test/test-tcp.c::tcp_now"]
    finally:
        conn.close()


def test_c_tests_are_unknown_where_no_macro_defines_a_test(repo: Repo) -> None:
    """A test file with a `main` of its own runs however its build says: not "no tests", but unknown."""
    repo.write("include/uv.h", HEADER)
    repo.write("src/tcp.c", SOURCE)
    repo.write("test/test-tcp.c", b'#include "uv.h"\nint main(void) { return uv_tcp_bind(1); }\n')
    conn = indexed(repo)
    try:
        answer = queries.impact(conn, "src/tcp.c::uv_tcp_bind")
        assert answer["tests"] == []
        assert answer["tests_note"].startswith("tests unknown: no test runner of c is known here")
    finally:
        conn.close()


def test_check_s_tests_are_the_names_start_test_gives(repo: Repo) -> None:
    """The Check framework's `START_TEST(name) { ... } END_TEST`: the grammar read each `END_TEST` as the type of the
    next test's function, named START_TEST."""
    repo.write(
        "src/money.h", b"typedef struct Money Money;\nMoney* money_create(int amount);\nvoid money_free(Money* m);\n"
    )
    repo.write(
        "src/money.c",
        b'#include "money.h"\n#include <stdlib.h>\nstruct Money { int amount; };\n'
        b"Money* money_create(int amount) { Money* m = malloc(sizeof *m); m->amount = amount; return m; }\n"
        b"void money_free(Money* m) { free(m); }\n",
    )
    repo.write(
        "tests/check_money.c",
        b"""#include <check.h>
#include "../src/money.h"

START_TEST(test_money_create)
{
    ck_assert_ptr_nonnull(money_create(5));
}
END_TEST

START_TEST(test_money_free)
{
    money_free(money_create(1));
}
END_TEST

Suite* money_suite(void)
{
    Suite* s = suite_create("Money");
    return s;
}
""",
    )
    conn = indexed(repo)
    try:
        assert queries.impact(conn, "src/money.c::money_free")["tests"] == ["tests/check_money.c::test_money_free"]
        assert set(queries.impact(conn, "src/money.c::money_create")["tests"]) == {
            "tests/check_money.c::test_money_create",
            "tests/check_money.c::test_money_free",
        }
    finally:
        conn.close()
