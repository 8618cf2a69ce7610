"""The check runner: stubs, crashes, timeouts, stderr, seeds and redraws, on ch12_bptt."""

import re
import sys
import time
from fractions import Fraction

import pytest

from autograder.assignments import get
from autograder.grading import checks
from autograder.grading.checks import hidden_cases, mistaken_output
from rnnkit import messages
from rnnkit.checking import Case, Rules, named, run_cases
from rnnkit.compare import compare

from ..attempts import attempt

ASSIGNMENT = "ch12_bptt"
CHECKS = {check.name: check for check in get(ASSIGNMENT).checks}


def grade(name, fn, student="s1", hidden=4, timeout=2.0):
    return checks.grade(
        get(ASSIGNMENT), CHECKS[name], fn, attempt=attempt(student), hidden=hidden, timeout=timeout, points=2
    )


def test_the_stub_scores_zero_with_one_clear_message():
    def stub(w, grad, lr):
        raise NotImplementedError()

    report = grade("sgd_update", stub)
    assert report.score == 0
    lines = report.lines(graded=True)
    text = "\n".join(lines)
    assert text.count("still the stub") == 1 and "4 more hidden cases wrong" in text
    assert [line for line in lines if not line.startswith("    ")] == lines[:2]  # the summary, the reason once
    assert all(len(line) <= messages.WIDTH for line in lines)  # nbgrader validate shows each line whole


def test_a_crash_costs_its_cases_and_says_what_was_raised_without_a_traceback():
    def crashes(w, grad, lr):
        step = lr * grad
        return {}["missing"] + step

    report = grade("sgd_update", crashes)
    text = " ".join(line.strip() for line in report.lines(graded=True))
    assert "KeyError" in text and "Traceback" not in text
    # the line of the student's code that raised, quoted and counted in the function (no cell line numbers)
    assert 'in line 3 of crashes (its def line is line 1): return {}["missing"] + step' in text
    label = report.results[0].label
    assert text.count(label) == 1, text  # the case is named once, before the reason


def test_a_failed_hidden_case_shows_its_inputs_and_the_students_value_only_when_asked_never_its_expected_value():
    def wrong(w, grad, lr):
        return w + lr * grad

    report = grade("sgd_update", wrong)
    hidden = report.first_hidden_failure
    assert hidden.inputs.count(",") == 2 and "Fraction(" not in hidden.inputs and hidden.expected
    shown = " ".join(line.strip() for line in report.lines(graded=True, show_hidden=True))
    assert f"inputs: {hidden.inputs}." in shown and f"{hidden.label}: {hidden.message}" in shown
    assert hidden.expected not in shown  # the feedback adds it where the course allows (autograder.grading.reveal)
    assert hidden.inputs not in "\n".join(report.lines(graded=True))


def test_a_float_answer_to_an_exercise_is_float_where_exact():
    def ex_12_7_1(rate, factor, distance):
        return float(rate * factor**distance)

    report = grade("ex_12_7_1", ex_12_7_1)
    assert report.score == 0 and report.misconceptions == ["float_where_exact"]
    assert "inputs were exact" in " ".join(report.lines(graded=True))  # the exercise computes from its givens
    # a question without inputs (an answer, not a computation) is asked for the exact value, inputs unmentioned
    answer = run_cases(
        ASSIGNMENT,
        "answer",
        lambda: 0.125,
        [(Case(label="an answer"), True, Fraction(1, 8))],
        Rules(exact=True, reveal=False),
        timeout=0,
    )
    assert answer.misconceptions == ["float_where_exact"]
    text = " ".join(answer.lines(graded=False))
    assert "inputs were exact" not in text and "Fraction(1, 8)" in text


def test_a_function_that_never_returns_is_stopped():
    """Every call is stopped at the limit, each case called once. (The loop ends by itself only at
    a deadline far beyond any stop, so that a limit that stops nothing fails the test instead of
    hanging it.)"""
    calls, ran_out = [], []
    deadline = time.monotonic() + 60

    def forever(w, grad, lr):
        calls.append(None)
        while time.monotonic() < deadline:
            pass
        ran_out.append(None)
        return w

    report = grade("sgd_update", forever, hidden=1, timeout=0.2)
    assert not ran_out, "nothing stopped the function: it ran to the test's own deadline"
    assert report.score == 0 and len(calls) == len(report.results) > 1
    assert all("stopped after 0.2 s" in result.message for result in report.results)
    assert "too slow on a case of this size" in report.results[0].message  # numbers alone: no size to name


def test_writes_to_stderr_and_warnings_are_swallowed(capsys):
    def noisy(w, grad, lr):
        print("debug", file=sys.stderr)
        import warnings

        warnings.warn("careful")
        return w - lr * grad

    assert grade("sgd_update", noisy).score == 2
    assert capsys.readouterr().err == ""


def test_hidden_cases_depend_on_student_assignment_and_check_and_are_stable():
    seed = lambda student, check: attempt(student).seed(ASSIGNMENT, check)  # noqa: E731
    assert seed("a", "bptt_scalar") == seed("a", "bptt_scalar")
    assert len({seed("a", "bptt_scalar"), seed("b", "bptt_scalar"), seed("a", "scalar_forward")}) == 3
    first = [case.args for case, _, _ in hidden_cases(get(ASSIGNMENT), CHECKS["bptt_scalar"], attempt("a"), 3)]
    again = [case.args for case, _, _ in hidden_cases(get(ASSIGNMENT), CHECKS["bptt_scalar"], attempt("a"), 3)]
    other = [case.args for case, _, _ in hidden_cases(get(ASSIGNMENT), CHECKS["bptt_scalar"], attempt("b"), 3)]
    assert first == again and first != other


def test_a_typed_in_book_answer_fails_the_hidden_cases():
    def book_answer(w, grad, lr):
        return Fraction(23, 40)

    report = grade("sgd_update", book_answer)
    assert report.results[0].ok and report.passed == 1 and report.score < 2


@pytest.mark.parametrize("student", [f"student-{i}" for i in range(20)])
def test_every_hidden_draw_separates_every_mistake(student):
    for name, check in CHECKS.items():
        for case, public, expected in hidden_cases(get(ASSIGNMENT), check, attempt(student), 3):
            assert not public
            for entry in get(ASSIGNMENT).for_check(name):
                output = mistaken_output(entry, check, case)
                assert output is None or not compare(output, expected, exact=check.exact, rtol=check.rtol).ok, (
                    name,
                    entry.id,
                )


def test_a_misconception_is_named_where_it_explains_two_wrong_cases_or_the_only_one():
    assert named([("a",)], 1) == ["a"]
    assert named([("a",), ()], 2) == ["", ""]  # one of two wrong cases (the other crashed, say)
    assert named([("a",), ("b",), ()], 3) == ["", "", ""]
    assert named([("a", "b"), ("b",), (), ("a",)], 4) == ["a", "", "", "a"]  # b is left with one case
    assert named([("a", "b"), ("a", "b"), ("b",)], 3) == ["b", "b", "b"]  # the one that explains most
    # at least half of the wrong values: agreeing on two of six is a coincidence, not the mistake made
    assert named([("a",), ("a",), (), (), (), ()], 6) == [""] * 6
    assert named([("a",), ("a",), None, None, None, None], 6) == ["a", "a", "", "", "", ""]  # the others crashed


def test_a_mistake_that_explains_some_wrong_cases_says_how_many_and_one_that_explains_one_is_not_named():
    def sign_wrong_for_positive_grads(w, grad, lr):  # update_sign where grad > 0, else no step at all
        return w + lr * grad if grad > 0 else w

    seen = set()
    for student in (f"s{i}" for i in range(40)):
        report = grade("sgd_update", sign_wrong_for_positive_grads, student=student, hidden=6)
        failed = len(report.results) - report.passed
        matched = sum(
            case.args[1] > 0 for case, _, _ in hidden_cases(get(ASSIGNMENT), CHECKS["sgd_update"], attempt(student), 6)
        )
        text = re.sub(r"\s+", " ", " ".join(report.lines(graded=True)))
        if matched >= 2 and 2 * matched >= failed:  # two wrong cases or more, and half of them at least
            assert report.misconceptions == ["update_sign"], student
            assert f"[update_sign] (it matches {matched} of the {failed} wrong cases)" in text or matched == failed, (
                text
            )
            seen.add("named")
        else:
            assert report.misconceptions == [] and "Likely misconception" not in text, student
            seen.add("not named")
    assert seen == {"named", "not named"}


def test_a_dict_result_shows_its_one_failing_value_its_relation_and_the_inputs_by_name():
    """A loss without its 1/2: the self-check and the feedback name the one wrong key, its expected
    value beside the student's, "exactly twice", and the hidden case's inputs by parameter name."""
    bptt_scalar = get(ASSIGNMENT).solution().bptt_scalar

    def no_half(xs, w, target, h0=0):
        result = bptt_scalar(xs, w, target, h0)
        return {**result, "loss": 2 * result["loss"]}

    report = grade("bptt_scalar", no_half)
    public = next(result for result in report.results if result.public and not result.ok)
    assert "the result['loss'] is not right" in public.message and "this case needs" in public.message
    assert public.message.endswith("Yours is exactly twice the expected value."), public.message
    hidden = report.first_hidden_failure
    assert re.fullmatch(r"xs=\[.*\], w=\S+, target=\S+, h0=\S+", hidden.inputs), hidden.inputs
    expected = re.fullmatch(
        r"On that case, the result\['loss'\] should be (\S+)\. Yours is exactly twice the expected value\.",
        hidden.expected,
    )
    assert expected, hidden.expected
    drawn = {case.label: case for case, _, _ in hidden_cases(get(ASSIGNMENT), CHECKS["bptt_scalar"], attempt("s1"), 4)}
    case = drawn[hidden.label]
    assert Fraction(expected.group(1)) == bptt_scalar(*case.args, **case.kwargs)["loss"]  # that one value, not the dict
    assert "states" not in hidden.expected


@pytest.mark.parametrize(
    "factor, relation",
    [
        (-1, "with its sign flipped"),
        (Fraction(1, 2), "exactly half"),
        (3, "exactly 3 times"),
        (Fraction(1, 4), "exactly 1/4 of"),
        (None, "1 minus"),
    ],
)
def test_a_wrong_value_names_a_simple_relation_to_the_expected_one(factor, relation):
    expected = Fraction(3, 8)
    got = 1 - expected if factor is None else factor * expected
    for value in (got, float(got)):  # exact or float alike
        message = compare({"z": value}, {"z": expected}).message(reveal=True)
        assert message.startswith("the result['z'] is not right") and relation in message, message
    assert "Yours" not in compare(Fraction(5, 7), expected).message(reveal=True)  # no relation: none claimed
    assert "Yours" not in compare(got, expected).message(reveal=False)  # a hidden case reveals nothing here


def test_a_wrong_value_that_saw_later_inputs_is_told_as_the_leak():
    """generation_features that adds a little of the next input: wrong values, and the causal probe's
    sentence beside them (on the public cases and the first hidden one), not a number alone."""
    import numpy as np

    spec = get("ch12_boundaries")
    check = spec.check("generation_features")

    def peeks(step, xs, h0):
        features = np.asarray(spec.reference.generation_features(step, xs, h0), dtype=float)
        ahead = np.asarray(xs, dtype=float)[1:, :1]  # x_{t+1}, first input column
        features[:-1, :1] += 0.01 * ahead[:, :1]
        return features

    cases = checks.public_cases(check) + hidden_cases(spec, check, attempt(), 3)
    report = run_cases(spec.name, check.name, peeks, cases, check.rules, probes=check.probes)
    wrong = [result for result in report.results if not result.ok]
    told = [result for result in wrong if "changing only the inputs after step" in result.message]
    assert wrong and told
    assert {result.label for result in told} == {
        result.label for result in wrong if result.public or result is next(r for r in wrong if not r.public)
    }
    report = run_cases(
        spec.name,
        check.name,
        lambda *args: spec.reference.generation_features(*args) * 2,
        cases,
        check.rules,
        probes=check.probes,
    )
    assert all("after step" not in result.message for result in report.results), "a causal function leaks nothing"


def test_a_wrong_value_a_second_call_does_not_give_again_is_named_as_state_kept_between_calls():
    """`Rules.kept`: however the state is kept (here a module-level dict), a wrong value that a second
    call on the same case does not give again is named as the check's state-kept mistake; a right
    value costs no second call."""
    total, calls = {"sum": Fraction(0)}, []

    def accumulating(x):
        total["sum"] += x
        return total["sum"]

    def honest(x):
        calls.append(x)
        return x

    def wrong_alike(x):
        return x + 1

    cases = [(Case((Fraction(k),), {}, f"case {k}"), True, Fraction(k)) for k in (1, 2, 3)]
    rules = Rules(exact=True, kept="kept_between_calls")
    report = run_cases("a", "f", accumulating, cases, rules, timeout=0)
    assert [result.misconception for result in report.results] == ["", "kept_between_calls", "kept_between_calls"]
    assert run_cases("a", "f", honest, cases, rules, timeout=0).passed == 3 and len(calls) == 3
    assert run_cases("a", "f", wrong_alike, cases, rules, timeout=0).misconceptions == []
