"""Messages that earn their words, and the rules every call is held to, as the kit applies them in
the self-check and the runner alike (`rnnkit.checking.run_cases`, `call_student`):

* one float policy: a value that is the right one computed in float32 is named `float32_precision`,
  whether it loses points (the default tolerances) or not (a check's own looser `rtol`);
* a relation ("exactly 3 times", "1 minus") is told only where it is no coincidence;
* an exact reference of a float computation is shown as a decimal, not a 45-digit fraction;
* a function that changes an argument it was given breaks its contract, named by argument and change;
* a call stopped by its time limit is "too slow on a case of this size (n = ...)", not "endless".
"""

from __future__ import annotations

import re
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from rnnkit import messages
from rnnkit.checking import FLOAT32_PRECISION, Case, Rules, StudentFailure, call_student, run_cases
from rnnkit.compare import Real, compare, float32_values, relation, show


def _sigmoid(a) -> Real:
    return Real(str(sp.N(1 / (1 + sp.exp(-sp.nsimplify(a))), 30)))


CASES = [(Case((a,)), public, _sigmoid(a)) for a, public in ((0.5, True), (2.0, False), (-1.25, False), (3.5, False))]


def sigmoid64(a):
    return 1 / (1 + np.exp(-np.asarray(a, dtype=float)))


def sigmoid32(a):
    return 1 / (1 + np.exp(-np.asarray(a, dtype=np.float32)))


def test_float32_arithmetic_is_named_where_it_costs_points():
    report = run_cases("a", "sigmoid", sigmoid32, CASES, Rules())
    assert report.score == 0 and report.misconceptions == [FLOAT32_PRECISION]
    text = " ".join(report.lines(graded=True))
    assert "float32" in text and "[float32_precision]" in text
    assert run_cases("a", "sigmoid", sigmoid64, CASES, Rules()).misconceptions == []


def test_float32_arithmetic_is_named_where_a_looser_tolerance_keeps_the_points():
    report = run_cases("a", "sigmoid", sigmoid32, CASES, Rules(rtol=1e-6))
    assert report.score == 1 and report.misconceptions == [FLOAT32_PRECISION]
    assert "Noted [float32_precision], though no point is lost" in re.sub(
        r"\s+", " ", " ".join(report.lines(graded=True))
    )
    with messages.speaking("zh"):
        assert "没有因此扣分" in "".join(
            run_cases("a", "sigmoid", sigmoid32, CASES, Rules(rtol=1e-6)).lines(graded=True)
        )


def test_dyadic_values_that_float32_holds_exactly_are_not_float32_arithmetic():
    """A right answer in 1/8 steps is a float32 number too: only a reference float32 cannot hold
    makes a float32 answer a sign of float32 arithmetic."""
    assert not float32_values(0.375, Fraction(3, 8))
    assert not float32_values(np.array([0.5, -1.25]), np.array([Fraction(1, 2), Fraction(-5, 4)], dtype=object))
    assert float32_values(float(np.float32(0.1)), Fraction(1, 10))
    assert not float32_values(float(np.float32(0.1)) * 3, Fraction(1, 10))  # another value altogether


@settings(max_examples=200, deadline=None)
@given(st.fractions(min_value=-100, max_value=100, max_denominator=10**6))
def test_a_float64_value_is_never_taken_for_float32(value):
    wide = float(np.float32(float(value))) != float(value)  # a value float32 cannot hold
    assert not (wide and float32_values(float(value), value))


@pytest.mark.parametrize("got, expected", [(1, 0), (0, 1), (2, 1), (-1, 1), (1, Fraction(1, 2))])
def test_no_relation_is_claimed_on_0_1_or_minus_1(got, expected):
    assert relation(Fraction(got), Fraction(expected), 1e-12) is None


def test_a_relation_on_one_case_of_several_is_a_coincidence_and_is_not_told():
    """A residual update h_prev + new: 1 + 0.5 is "3 times" 0.5 on one case only."""
    cases = [(Case((x,)), False, Fraction(x)) for x in (Fraction(1, 2), Fraction(3, 4), Fraction(5, 8))]
    report = run_cases("a", "f", lambda x: 1 + x, cases, Rules(), params=("x",))
    assert all("Yours" not in (r.message + r.expected) for r in report.results), [r.expected for r in report.results]
    report = run_cases("a", "f", lambda x: 3 * x, cases, Rules(), params=("x",))
    assert all("exactly 3 times" in r.expected for r in report.results)
    one = run_cases("a", "f", lambda x: 3 * x, cases[:1], Rules(), params=("x",))
    assert "exactly 3 times" in one.results[0].expected


def test_a_value_off_in_its_fourth_digit_is_another_computation_not_a_rounding():
    """A backward pass started from zeros instead of h0 is off in the seventh digit: told as another
    computation, not left to read as a tolerance; a value far off, or a decimal rounding, is not."""
    expected = Fraction("-0.731570920579")
    near = compare(-0.7315706135, expected, rtol=1e-9)
    assert near.relation_found() == ("relation.near", 1)
    assert "another computation" in near.relation() and "not a rounding" in near.relation()
    assert relation(-0.74, expected, 1e-9) is None  # the second digit: no claim
    assert compare(-0.7316, expected, rtol=1e-9).relation_found() != ("relation.near", 1)  # rounded to 4 places
    cases = [(Case((x,)), False, Fraction(x) / 3) for x in (Fraction(1, 2), Fraction(3, 4), Fraction(5, 8))]
    report = run_cases("a", "f", lambda x: float(x) / 3 * (1 + 1e-5), cases, Rules(), params=("x",))
    assert all("another computation" in r.expected for r in report.results), [r.expected for r in report.results]


def test_probabilities_that_do_not_sum_to_1_are_told_so_and_only_they():
    """A softmax that divides by the maximum instead of the sum: its entries do not sum to 1."""
    logits = np.array([1.0, 2.0, 0.5])
    expected = np.exp(logits) / np.exp(logits).sum()
    by_max = np.exp(logits) / np.exp(logits).max()
    assert compare(by_max, expected).relation_found() == ("relation.not_a_distribution", 1)
    assert "do not sum to 1" in compare(by_max, expected).relation()
    shifted = np.roll(expected, 1)  # sums to 1, entries in the wrong places: no such claim
    assert compare(shifted, expected).relation_found() != ("relation.not_a_distribution", 1)
    not_probabilities = np.array([0.5, 2.0, -1.5])  # sums to 1 but is no distribution: no claim either
    assert compare(not_probabilities * 2, not_probabilities).relation_found() != ("relation.not_a_distribution", 1)


def test_an_exact_reference_of_a_float_computation_is_shown_as_a_decimal():
    long = Fraction(16725558898964869591747380567855973316763387, 22300745198530623141535718272648361505980416)
    assert show(long) == repr(float(long))
    assert show(Fraction(1147041, 5120000)) == "1147041/5120000" and show(Fraction(23, 40)) == "23/40"
    assert "/" not in compare(0.5, long).message(reveal=True)


def test_changing_an_argument_breaks_the_contract_by_name_and_change():
    def scales_in_place(model, xs):
        model["W"] *= 2
        return 1.0

    def appends(model, xs):
        xs.append(0)
        return 1.0

    case = Case(({"W": np.array([[0.5, 0.25]])}, [1, 2]))
    for fn, found in (
        (scales_in_place, "`model` (model['W'][0, 0] was 0.5, now 1.0)"),
        (appends, "`xs` (xs had 2 items, now 3)"),
    ):
        with pytest.raises(StudentFailure) as failure:
            call_student(fn, case, name=fn.__name__)
        assert failure.value.message_id == "check.contract_broken" and found in failure.value.message, (
            failure.value.message
        )
    assert case.args[0]["W"][0, 0] == 0.5  # the case itself is never touched
    assert call_student(lambda model, xs: float(model["W"].sum()) + len(xs), case, name="reads") == 2.75


def test_a_call_that_runs_out_of_time_is_too_slow_on_a_case_of_its_size():
    def slow(xs):
        while True:
            pass

    with pytest.raises(StudentFailure) as failure:
        call_student(slow, Case((list(range(100)),), label="the longest case"), name="slow", timeout=0.2)
    assert failure.value.message_id == "check.timeout_size"
    assert (
        "too slow on a case of this size (n = 100)" in failure.value.message and "never ends" in failure.value.message
    )


# ----------------------------------------------------------------------------- in the runner, as at self-check


def test_the_runner_holds_a_call_to_its_arguments_and_its_time_as_the_self_check_does(tmp_path):
    from autograder.sandbox.session import Session
    from rnnkit.jail.limits import Limits

    source = (
        "def scales(model, xs):\n    model['W'] *= 2\n    return 1.0\ndef endless(xs):\n    while True:\n        pass\n"
    )
    space: dict = {}
    exec(source, space)
    cases = {
        "scales": [(Case(({"W": np.array([[0.5, 0.25]])}, [1, 2]), label="c"), True, Fraction(1))],
        "endless": [(Case((list(range(100)),), label="c"), True, Fraction(1))],
    }
    with Session(tmp_path, Limits(CELL_TIMEOUT=60), "en", {}) as session:
        session.run_cell(source)
        for name, listed in cases.items():
            own = run_cases("test", name, space[name], listed, Rules(), timeout=0.5)
            graded = run_cases("test", name, session.function(name, timeout=0.5), listed, Rules(), timeout=0)
            assert [r.message for r in own.results] == [r.message for r in graded.results], name
            assert {"scales": "changed its argument `model`", "endless": "(n = 100)"}[name] in own.results[0].message


# ----------------------------------------------------------------------------- hostile arguments


class _Angry:
    """An object whose comparison raises and whose repr is enormous."""

    def __eq__(self, other):
        raise RuntimeError("no comparing me")

    __hash__ = object.__hash__

    def __repr__(self):
        return "x" * 10**6


@pytest.mark.parametrize(
    "vandal",
    [
        lambda xs: xs.__setitem__(0, xs),  # a list made to hold itself
        lambda xs: xs.__setitem__(0, _Angry()),  # an item that cannot be compared or printed short
        lambda xs: xs.extend(range(10**6)),  # a flood
    ],
)
def test_an_argument_vandalised_in_place_is_one_short_clear_failure(vandal):
    def f(xs):
        vandal(xs)
        return 1.0

    with pytest.raises(StudentFailure) as failure:
        call_student(f, Case(([1, 2],)), name="f")
    assert failure.value.message_id in ("check.contract_broken", "check.crashed", "check.crashed_at")
    assert len(failure.value.message) < 600, failure.value.message[:600]
