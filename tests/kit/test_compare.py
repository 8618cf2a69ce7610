"""The comparison ladder (`rnnkit.compare`): exact, float, rounded, shape, type, NaN, and
transcendental values, against references as the grader hands them to the kit
(`autograder.vocabulary.symbolic.public_value` of the SymPy engine's values)."""

from fractions import Fraction

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from autograder.vocabulary.symbolic import public_value
from rnnkit.compare import RATIONAL_RTOL, Real, compare, explains, show

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
    verdict = compare(
        {"states": [1, Fraction(1, 2)], "grad": Fraction(-3, 8)},
        {"states": [1, Fraction(1, 2)], "grad": Fraction(-3, 4)},
        where="the result",
    )
    assert verdict.fields["where"] == "the result['grad']"


@pytest.mark.parametrize("choices, ok", [({"a", "c"}, True), (["c", "a"], True), ({"a"}, False)])
def test_choice_sets_compare_as_sets(choices, ok):
    assert compare(choices, frozenset({"a", "c"})).ok is ok


def test_a_checks_rtol_applies_to_exact_values_too():
    reference = Fraction(3, 4)
    assert not compare(reference + Fraction(1, 10**8), reference).ok
    assert compare(reference + Fraction(1, 10**8), reference, rtol=1e-6).ok
    assert compare(sp.Rational(3, 4) + sp.Rational(1, 10**8), reference, rtol=1e-6).ok
    assert compare(reference + Fraction(1, 10**5), reference, rtol=1e-6).reason == "compare.wrong_value"


def test_huge_exact_values_compare_exactly():
    big = 10**400
    assert compare(big, big).ok and compare(Fraction(big + 1, big), Fraction(big + 1, big)).ok
    assert compare(big, Fraction(1, 2)).reason == "compare.wrong_value"
    assert compare(big, Real("0.5")).reason == "compare.wrong_value"
    assert compare(1e300, big).reason == "compare.wrong_value"
    assert compare(float(big // 10**100), big // 10**100, rtol=1e-6).ok  # 1e300 against an exact 10**300
    assert "1.000000e+5000" in compare(10**5000, 1).message(reveal=True)  # beyond what str() prints


def _object_array(items):
    array = np.empty(len(items), dtype=object)
    for index, item in enumerate(items):
        array[index] = item
    return array


hashable = st.one_of(
    st.integers(),
    st.integers(min_value=10**300, max_value=10**5000),
    st.fractions(),
    st.builds(Fraction, st.integers(min_value=10**400, max_value=10**600), st.integers(min_value=1, max_value=10**500)),
    st.floats(),
    st.text(max_size=5),
    st.booleans(),
    st.none(),
    st.complex_numbers(),
    st.sampled_from(
        [
            Real("nan"),
            Real("inf"),
            Real("0.75"),
            sp.Rational(10**500, 3),
            sp.Symbol("x"),
            sp.Float(0.5),
            b"x",
            np.float64("nan"),
            np.int64(-5),
            np.bool_(True),
            np.str_("a"),
            np.complex128(1j),
        ]
    ),
)
odd_values = st.recursive(
    hashable,
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.tuples(children, children),
        st.dictionaries(hashable, children, max_size=3),
        st.frozensets(hashable, max_size=3),
        st.lists(children, max_size=3).map(_object_array),
        st.lists(st.floats(), max_size=3).map(np.array),
    ),
    max_leaves=10,
)


@settings(max_examples=400, deadline=None)
@given(odd_values, odd_values, st.booleans(), st.sampled_from([None, 1e-6]))
def test_compare_never_raises(got, ref, exact, rtol):
    verdict = compare(got, ref, exact=exact, rtol=rtol)
    assert (
        verdict.ok or isinstance(verdict.message(reveal=True), str) and isinstance(verdict.message(reveal=False), str)
    )


def test_deep_nesting_is_wrong_not_an_error():
    deep = 0
    for _ in range(10_000):
        deep = [deep]
    assert not compare(deep, [[0]]).ok and not compare([[0]], deep).ok


def test_the_exact_value_of_a_float_is_shown_as_that_float():
    assert show(Fraction(0.3)) == "0.3" and show(Fraction(-1, 2**60)) == repr(-(2.0**-60))
    assert (
        show(Fraction(1, 3)) == "1/3"
        and show(Fraction(3, 1 << 21)) == repr(3 / (1 << 21))
        and show(Fraction(1, 256)) == "1/256"
    )


def test_a_mistake_explains_a_record_wrong_in_its_parts_only_where_a_number_or_an_array_agrees():
    """`explains`: the mistake's output itself, or a record (tuple, dict) whose every part is right or
    the mistake's, with some number or array among the mistake's parts; a label agreeing by chance, a
    part wrong in another way, or a sequence of steps matched piecewise explains nothing."""
    right = (np.array([[1.0, 2.0]]), np.array([0.5, 0.25]))
    mistaken = (np.array([[1.0, 3.0]]), np.array([0.75, 0.25]))
    assert explains(mistaken, mistaken, right)
    assert explains((right[0], mistaken[1]), mistaken, right)  # the outputs right, the final state the mistake's
    assert not explains((right[0], np.array([0.5, 0.5])), mistaken, right)  # wrong in another way
    assert not explains(right, mistaken, right)  # nothing wrong: nothing to explain
    expected = {"final_h": np.array([1.0, 0.0]), "choice": "blue"}
    other = {"final_h": np.array([2.0, 0.0]), "choice": "red"}
    assert not explains({"final_h": expected["final_h"], "choice": "red"}, other, expected)  # a label by chance
    assert explains({"final_h": other["final_h"], "choice": "blue"}, other, expected)
    steps, wrong_steps = [Fraction(1), Fraction(2)], [Fraction(1), Fraction(3)]
    assert not explains([Fraction(1), Fraction(5)], wrong_steps, steps)
    assert not explains({"a": Fraction(1)}, {"b": Fraction(2)}, {"a": Fraction(2)})  # other keys: not one record
