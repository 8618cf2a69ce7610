"""The comparison ladder (`rnnkit.compare`): exact, float, rounded, shape, type, NaN, and
transcendental values, against references as the grader hands them to the kit
(`autograder.symbolic.public_value` of the SymPy engine's values)."""
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

from rnnkit.compare import RATIONAL_RTOL, Real, compare

from autograder.symbolic import public_value

fractions = st.fractions(min_value=-1000, max_value=1000, max_denominator=10_000)


@given(fractions)
def test_an_exact_value_equals_itself_in_every_exact_type(value):
    symbolic = sp.Rational(value.numerator, value.denominator)
    reference = public_value(symbolic)
    assert isinstance(reference, Fraction) and reference == value
    assert compare(value, reference, exact=True).ok
    assert compare(symbolic, reference, exact=True).ok
    if value.denominator == 1:
        assert compare(int(value), reference, exact=True).ok


@given(fractions)
def test_a_float_is_accepted_within_tolerance_unless_exactness_was_asked(value):
    assert compare(float(value), value).ok
    assert compare(float(value), value, exact=True).reason == "compare.not_exact"


@given(fractions)
def test_a_float_beyond_the_tolerance_is_wrong(value):
    off = float(value) + 10 * RATIONAL_RTOL * max(1.0, abs(float(value)))
    assert not compare(off, value).ok


def test_a_rounded_value_is_called_rounded():
    verdict = compare(0.0039, Fraction(1, 256))
    assert verdict.reason == "compare.rounded"
    assert "0.0039" in verdict.message(reveal=False)


def test_a_wrong_exact_value_says_so_and_reveals_only_when_asked():
    verdict = compare(Fraction(-3, 8), Fraction(-3, 4), exact=True, where="grad")
    assert verdict.reason == "compare.wrong_value"
    assert "-3/4" not in verdict.message(reveal=False)
    assert "-3/4" in verdict.message(reveal=True)


def test_transcendental_references_compare_to_thirty_digits():
    reference = public_value(sp.Rational(3, 4) * sp.tanh(sp.Rational(41, 50)))
    assert isinstance(reference, Real) and reference.digits.startswith("0.506302406128955885397391168")
    assert compare(0.75 * np.tanh(0.82), reference).ok
    assert compare(0.506302, reference).reason == "compare.rounded"


def test_shape_type_nan_and_keys_are_named():
    reference = public_value(np.array([sp.Integer(1), sp.Integer(2)], dtype=object))
    one = public_value(sp.Integer(1))
    assert compare(np.array([[1.0, 2.0]]), reference).reason == "compare.wrong_shape"
    assert compare("1, 2", one).reason == "compare.wrong_type"
    assert compare(float("nan"), one).reason == "compare.nan"
    assert compare({"a": 1}, {"a": 1, "b": 2}).reason == "compare.wrong_keys"
    assert compare([1, 2, 3], [1, 2]).reason == "compare.wrong_length"
    assert compare(True, one).reason == "compare.wrong_type"


def test_nested_structures_report_the_first_difference():
    verdict = compare({"states": [1, Fraction(1, 2)], "grad": Fraction(-3, 8)},
                      {"states": [1, Fraction(1, 2)], "grad": Fraction(-3, 4)}, where="the result")
    assert verdict.fields["where"] == "the result['grad']"


@pytest.mark.parametrize("choices, ok", [({"a", "c"}, True), (["c", "a"], True), ({"a"}, False)])
def test_choice_sets_compare_as_sets(choices, ok):
    assert compare(choices, frozenset({"a", "c"})).ok is ok
