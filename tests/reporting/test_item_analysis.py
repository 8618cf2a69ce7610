"""The item analysis of the report and question_stats.csv: a check's facility (the mean share of its
points) and discrimination (the corrected item-total correlation, scipy's point-biserial where a check
is right or wrong), computed without scipy and equal to it."""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import stats as scipy_stats

from autograder.reporting.classdata import ClassData, Row, Submission
from autograder.reporting.stats import FEWEST, discrimination, question_stats

SCORES = st.lists(st.tuples(st.integers(0, 1), st.integers(0, 40).map(lambda n: n / 4)), min_size=FEWEST, max_size=60)


@settings(max_examples=200, deadline=None)
@given(SCORES)
def test_discrimination_is_scipys_point_biserial_correlation(pairs):
    item, rest = [float(a) for a, _ in pairs], [b for _, b in pairs]
    assume(len(set(item)) > 1 and len(set(rest)) > 1)
    assert discrimination(item, rest) == pytest.approx(scipy_stats.pointbiserialr(item, rest).statistic, abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 30)), min_size=FEWEST, max_size=40))
def test_a_check_with_partial_points_is_pearsons_r(pairs):
    item, rest = [float(a) for a, _ in pairs], [float(b) for _, b in pairs]
    assume(len(set(item)) > 1 and len(set(rest)) > 1)
    assert discrimination(item, rest) == pytest.approx(scipy_stats.pearsonr(item, rest).statistic, abs=1e-12)


def test_without_enough_students_or_spread_there_is_none():
    assert discrimination([1.0, 0.0], [3.0, 1.0]) is None
    assert (
        discrimination([1.0, 1.0, 1.0], [3.0, 1.0, 2.0]) is None
        and discrimination([1.0, 0.0, 1.0], [2.0, 2.0, 2.0]) is None
    )


def test_a_check_the_strong_get_right_discriminates_and_one_they_miss_does_not():
    """Four checks over four students: `q1` right for the two strongest on `q4`, `q2` for the two
    weakest, `q3` for all; a written answer awaiting a TA counts in no total."""
    marks = {"ann": (2, 0, 1, 4), "bob": (2, 0, 1, 3), "cy": (0, 2, 1, 1), "dee": (0, 2, 1, 0)}
    rows = [
        Row(s, "a1", q, float(p), 2.0 if q != "q3" else 1.0)
        for s, (a, b, c, _) in marks.items()
        for q, p in (("q1", a), ("q2", b), ("q3", c))
    ]
    rows += [Row(s, "a1", "q4", float(w), 4.0) for s, (*_, w) in marks.items()]
    rows += [Row("ann", "a1", "w", 0.0, 5.0, needs_manual=True)]
    subs = {("a1", s): Submission(s, "a1", 0.0, 0.0, 14.0) for s in marks}
    data = ClassData(
        "c",
        ["a1"],
        {"a1": 14.0},
        {"a1": ""},
        {"a1": [("q1", 2.0), ("q2", 2.0), ("q3", 1.0), ("q4", 4.0), ("w", 5.0)]},
        [],
        subs,
        rows,
    )
    found = {q.grade_id: q for q in question_stats(data, "a1")}
    assert found["q1"].facility == pytest.approx(0.5) and found["q3"].facility == 1.0
    # q1 against the rest without it (ann 5, bob 4, cy 4, dee 3): r = 1/sqrt(2); q2 against (7, 6, 2, 1)
    assert (
        found["q1"].discrimination == pytest.approx(1 / math.sqrt(2), abs=1e-12) and found["q2"].discrimination < -0.9
    )
    assert found["q3"].discrimination is None  # everyone right: no spread
    assert found["w"].facility is None and found["w"].discrimination is None  # awaiting a TA
