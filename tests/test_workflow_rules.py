"""Each workflow rule on its own: request parsing, clarification, command risks, and every
transition rule (store/workflow_rules.py), plus the verification and write rules beside them."""

from __future__ import annotations

from typing import Any

from codeannals.server.workflow import may_write
from codeannals.server.workflow_plan import commands_to_test, python
from codeannals.server.workflow_verify import criterion_met, notes_on_tests
from codeannals.store import workflow_rules as rules
from codeannals.store.workflow_rules import Facts

SCOPE = [{"kind": "symbol", "ref": "shop/prices.py::parse_price", "path": "shop/prices.py"}]
RISK: dict[str, Any] = {"level": "low", "tags": []}


def test_explicit_success_criteria_replace_the_defaults_in_english_and_korean() -> None:
    body, found = rules.sections(
        "Fix parse_price.\nsuccess criteria: spaces are stripped; tests pass\n"
        "- tests/test_prices.py passes\nconstraints: only shop/\ntags: bugfix, perf"
    )
    assert body == "Fix parse_price."
    assert found == {
        "criteria": ["spaces are stripped", "tests pass", "tests/test_prices.py passes"],
        "constraints": ["only shop/"],
        "tags": ["bugfix", "perf"],
    }
    _, korean = rules.sections("가격 파싱 수정\n성공기준: 테스트 통과")
    assert korean["criteria"] == ["테스트 통과"]
    intent = rules.normalise("Fix parse_price.\nsuccess criteria: spaces are stripped", SCOPE, RISK)
    assert intent["success_criteria"] == ["spaces are stripped"] and intent["sources"]["success_criteria"] == "request"
    default = rules.normalise("Fix parse_price so it strips spaces", SCOPE, RISK)
    assert default["success_criteria"] == list(rules.DEFAULT_CRITERIA)


def test_goal_of_refuses_a_request_that_says_too_little() -> None:
    assert rules.goal_of("make it better") is None
    assert rules.goal_of("please fix the stuff") is None
    assert rules.goal_of("parse_price should strip spaces. Then more.") == "parse_price should strip spaces."


def test_tags_of_reads_cues_and_hashtags() -> None:
    assert rules.tags_of("fix the crash when adding a new item #checkout") == ["bugfix", "feature", "checkout"]
    assert rules.tags_of("rename the module") == ["refactor"]
    assert rules.tags_of("make it better") == []


def test_network_is_allowed_only_when_the_request_says_so() -> None:
    assert rules.network_allowed("network access is allowed for the download")
    assert rules.network_allowed("allow network calls")
    assert not rules.network_allowed("fix the network parser")


def test_normalise_says_where_each_item_came_from() -> None:
    intent = rules.normalise("make it better", [], RISK)
    assert rules.missing_items(intent) == ["goal", "scope", "requirement_tags"]
    full = rules.normalise("Fix `parse_price` so it strips spaces", SCOPE, RISK)
    assert rules.missing_items(full) == []
    assert full["sources"] == {
        "goal": "request",
        "scope": "index",
        "requirement_tags": "request",
        "success_criteria": "default",
        "constraints": "default",
    }
    assert full["constraints"]["paths"] == ["shop/prices.py"] and full["constraints"]["network"] is False


def test_you_decide_takes_the_rule_based_default_and_records_it() -> None:
    intent = rules.normalise("make it better", [], RISK)
    assert rules.is_deferral("you decide") and rules.is_deferral("알아서 해줘") and not rules.is_deferral("bugfix")
    answered, deferred = rules.answer_item(intent, "goal", "spaces around a price should not break parsing", [], [])
    assert not deferred and answered["sources"]["goal"] == "answer"
    assert answered["requirement_tags"] == ["bugfix"] and answered["sources"]["requirement_tags"] == "answer"
    scoped, deferred = rules.answer_item(answered, "scope", "you decide", [], SCOPE)
    assert deferred and scoped["scope"] == SCOPE and scoped["sources"]["scope"] == "default"
    assert scoped["constraints"]["paths"] == ["shop/prices.py"]
    tagged, deferred = rules.answer_item(intent, "requirement_tags", "whatever", [], [])
    assert deferred and tagged["requirement_tags"] == [rules.DEFAULT_TAG]


def test_command_risks_name_destructive_permission_and_external_commands() -> None:
    assert rules.command_risks("rm", ["-rf", "x"]) == ["destructive"]
    assert rules.command_risks("git", ["push", "--force"]) == ["destructive", "external_call"]
    assert rules.command_risks("git", ["reset", "--hard"]) == ["destructive"]
    assert rules.command_risks("chmod", ["777", "x"]) == ["permission"]
    assert rules.command_risks("pip", ["install", "x"]) == ["external_call"]
    assert rules.command_risks("python", ["-m", "pip", "install", "x"]) == ["external_call"]
    assert rules.command_risks("python", ["-m", "pytest"]) == []


def test_only_python_tests_are_run_through_pytest() -> None:
    # A JavaScript test file handed to pytest fails ("no tests ran"): it is listed for the project's runner.
    tests = ["tests/test_a.py::test_x", "tests/conftest.py", "test/parse.test.js", "tests/test_b.py"]
    pytest = [python(), "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    assert commands_to_test(tests) == [[*pytest, "tests/test_a.py::test_x", "tests/test_b.py"]]
    assert commands_to_test(["test/parse.test.js"]) == []


def test_verification_says_which_tests_it_did_not_run_and_where_tests_are_unknown() -> None:
    assert notes_on_tests([], ["shop/prices.py"]) == ["no tests are affected by the change"]
    assert notes_on_tests(["tests/test_a.py::test_x"], ["shop/prices.py"]) == []
    [go] = notes_on_tests(["calc/calc_test.go::TestTwice"], ["calc/calc.go"])
    assert go.startswith("1 affected test(s) not run here (calc/calc_test.go::TestTwice)")
    # A PHP change with no test listed: unknown, never "no tests are affected".
    assert notes_on_tests([], ["lib/calc.php"]) == [
        "tests unknown for lib/calc.php: no test runner of their language is known here; run the project's own tests"
    ]


def test_paths_outside_respects_the_allowed_paths() -> None:
    assert rules.paths_outside(["shop/prices.py", "README.md"], ["shop"]) == ["README.md"]
    assert rules.paths_outside(["anything"], ["."]) == []


def facts(**overrides: Any) -> Facts:
    base: dict[str, Any] = {
        "state": "plan_approved",
        "next_step": "action_executed",
        "missing": [],
        "approved": True,
        "requirement_tags": ["bugfix"],
        "success_criteria": ["tests pass"],
    }
    return Facts(**{**base, **overrides})


def test_out_of_order_blocks_a_jump_the_state_machine_has_no_edge_for() -> None:
    assert rules.out_of_order(facts(state="received", next_step="verify_run"))
    assert not rules.out_of_order(facts(state="plan_approved", next_step="action_executed"))
    assert not rules.out_of_order(facts(state="summarized", next_step="failed"))


def test_intent_incomplete_blocks_plan_and_action() -> None:
    for step in ("plan_generated", "action_executed"):
        found = rules.intent_incomplete(facts(next_step=step, missing=["scope"]))
        assert found and found[0].level == "block" and "scope" in found[0].reason
    assert not rules.intent_incomplete(facts(next_step="summarized", missing=["scope"]))


def test_plan_not_approved_blocks_action_and_so_does_a_stale_approval() -> None:
    assert rules.plan_not_approved(facts(approved=False))[0].reason == "the plan is not approved"
    assert "changed after" in rules.plan_not_approved(facts(approval_stale=True))[0].reason
    assert not rules.plan_not_approved(facts())


def test_verification_not_passed_blocks_the_summary() -> None:
    assert rules.verification_not_passed(facts(state="action_executed", next_step="summarized", verify_passed=False))
    assert rules.verification_not_passed(facts(state="action_executed", next_step="summarized"))
    assert not rules.verification_not_passed(facts(state="verify_run", next_step="summarized", verify_passed=True))
    assert not rules.verification_not_passed(facts(state="failed", next_step="summarized"))


def test_constraint_breach_blocks_commands_paths_and_network() -> None:
    assert rules.constraint_breach(facts(command_problems=["'curl' is not on the allowed list"]))
    assert "outside" in rules.constraint_breach(facts(paths=["README.md"], allowed_paths=["shop"]))[0].reason
    assert "network" in rules.constraint_breach(facts(network_wanted=True))[0].reason
    assert not rules.constraint_breach(facts(network_wanted=True, network_allowed=True))


def test_requirements_missing_blocks_execution_without_tags_or_criteria() -> None:
    found = rules.requirements_missing(facts(requirement_tags=[], success_criteria=[]))
    assert found[0].reason.startswith("no requirement tags and no success criteria")
    assert rules.requirements_missing(facts(next_step="plan_approved", success_criteria=[]))
    assert not rules.requirements_missing(facts())


def test_repo_state_warns_or_blocks_as_configured() -> None:
    dirty = {"next_step": "plan_generated", "state": "intent_captured", "dirty_files": 2}
    assert rules.repo_state(facts(**dirty))[0].level == "warn"
    assert rules.repo_state(facts(**dirty, repo_policy="block"))[0].level == "block"
    assert not rules.repo_state(facts(**dirty, repo_policy="off"))
    assert rules.repo_state(facts(index_behind=True))[0].reason == "the index is behind HEAD"


def test_human_check_needed_until_the_approval_allows_the_risk() -> None:
    found = rules.human_check_needed(facts(risks=["destructive", "widened_scope"]))
    assert [f.check for f in found] == ["human: destructive", "human: widened_scope"]
    assert not rules.human_check_needed(facts(risks=["destructive"], approved_risks=["destructive"]))


def test_insufficient_context_allows_two_lookups_then_holds() -> None:
    assert rules.insufficient_context(facts(context_insufficient=True, lookups=0))[0].level == "warn"
    assert rules.insufficient_context(facts(context_insufficient=True, lookups=1))[0].level == "warn"
    assert rules.insufficient_context(facts(context_insufficient=True, lookups=2))[0].level == "hold"


def test_validate_lets_warnings_through_and_points_a_block_back() -> None:
    warned = rules.validate(facts(index_behind=True))
    assert warned["allowed"] and warned["warnings"] == ["the index is behind HEAD"] and warned["confidence"] == 0.9
    blocked = rules.validate(facts(state="intent_captured", next_step="action_executed", approved=False))
    assert not blocked["allowed"] and blocked["next_step"] == "plan_generated"
    assert blocked["suggested_next_actions"] == ["approve_plan with requirement_tags and success_criteria"]


def test_criterion_met_measures_tests_and_checks_and_leaves_the_rest_to_the_user() -> None:
    assert criterion_met("the tests affected pass", True, False)[0] is True
    assert criterion_met("tests/test_prices.py passes", False, True)[0] is False
    assert criterion_met("the static checks pass", True, False)[0] is False
    assert criterion_met("테스트 통과", True, True)[0] is True
    assert criterion_met("the receipt looks nicer", True, True)[0] is None


def test_may_write_spares_known_readers_only() -> None:
    assert not may_write("python", ["-m", "pytest", "-q"])
    assert not may_write("git", ["status"])
    assert may_write("git", ["commit", "-m", "x"])
    assert may_write("python", ["-c", "open('x', 'w')"])
    assert may_write("sed", ["-i", "s/a/b/", "f"])
