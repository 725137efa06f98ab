"""The lints a task may ask to fix (store/lints.py): read from the task's words, found in the code by their shapes."""

from __future__ import annotations

from codeannals.store import lints


def found(name: str, text: str) -> list[int]:
    lint = next(lint for lint in lints.LINTS if lint.name == name)
    return lint.found(text.splitlines())


def test_a_lint_is_asked_by_the_words_its_fix_is_said_in() -> None:
    def names(task: str) -> list[str]:
        return [lint.name for lint in lints.asked(task)]

    assert names("refactor(lib): remove unneeded return") == ["clippy::needless_return"]
    assert names("Fix `clippy::needless_return` warnings") == ["clippy::needless_return"]
    assert names("chore: replace manual unwrap_or_else with unwrap_or_default") == ["clippy::unwrap_or_default"]
    assert names("chore: remove importing prelude trait in 2021 edition") == ["rust_2021_prelude"]
    assert names("Switch to f-strings") == ["pyupgrade: f-strings"]
    # The same words about something else: a bound is no lifetime to drop, a prelude module no import to drop.
    assert names("chore(server): remove unnecessary static lifetime bound") == []
    assert names("Remove `mio::prelude`") == []
    assert names("Remove unused f-string") == []
    assert names("make ArgPredicate non_exhaustive in v5") == []


def test_a_needless_return_is_a_function_s_last_statement_of_one_line_or_several() -> None:
    text = """
pub fn early(x: u8) -> Option<u8> {
    if x == 0 {
        return None;
    }
    Some(x)
}

pub fn last(x: u8) -> u8 {
    return x;
}

pub fn new(
    text: &str,
) -> Iter {
    return Iter {
        text,
    };
}

trait Named {
    fn name(&self) -> String;
}
"""
    assert found("clippy::needless_return", text) == [10, 16]
    # In tail position too: the last statement of an arm or a branch of the match or if a function ends in.
    tails = """
fn poll(&mut self) -> Poll<()> {
    match self.conn.poll() {
        Ok(done) => {
            self.finish(done);
            return Poll::Ready(Ok(()));
        }
        Err(e) => return Poll::Ready(Err(e)),
    }
}

fn pick(x: u8) -> u8 {
    if x > 1 {
        return x;
    } else {
        let y = x + 1;
        y
    }
}

fn early(x: u8) -> u8 {
    let y = match x {
        0 => return 1,
        _ => x,
    };
    y
}
"""
    assert found("clippy::needless_return", tails) == [6, 8, 14]


def test_lints_matched_by_the_shape_of_a_line() -> None:
    assert found("clippy::redundant_field_names", "Body { len: len }\nBody { len: other }\n") == [1]
    assert found("clippy::unwrap_or_default", "a.unwrap_or_else(Bytes::new)\nb.unwrap_or_else(|| make())\n") == [1]
    lazy = ".or_else(|| Some(BodyLength::Unknown))\n.unwrap_or_else(|| slice.len())\n.or_else(|| compute(x))\n"
    assert found("clippy::unnecessary_lazy_evaluations", lazy) == [1, 2]
    assert found("pyupgrade: f-strings", "x = '%s!' % name\ny = '{}'.format(a)\nz = f'{a}'\n") == [1, 2]


def test_an_unused_import_is_a_name_the_rest_of_the_file_never_says() -> None:
    text = """from __future__ import annotations

import os
import json  # noqa: F401
from typing import (
    Any,
    Iterable,
)
from django.urls import reverse as url_for

__all__ = ["Iterable"]


def read(path: str) -> Any:
    return path.reverse().url_for
"""
    # os and url_for are never said as names (`.url_for` is an attribute); Iterable is, in `__all__`; json is noqa'd.
    assert found("pyflakes: unused imports", text) == [3, 9]
    assert [lint.name for lint in lints.asked("Remove unused imports")] == ["pyflakes: unused imports"]
    assert next(lint for lint in lints.LINTS if lint.name == "pyflakes: unused imports").skips("app/__init__.py")
