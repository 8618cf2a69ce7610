"""Slow is not endless: every graded check's public cases include one of the largest size a hidden
case can have (`rnnkit.checking.case_size`), so that a function too slow for it fails the
self-check, with the grader's own per-call limit and the same "too slow on a case of this size"
message, before it fails at grading. (How far the limit stands above the reference's cost on the
costliest case is measured in benchmarks/call_limits.py, not here.)"""
from __future__ import annotations

import pytest

from autograder.assignments import get
from autograder.coursedir.config import load
from autograder.grading.checks import _public_cases, hidden_cases
from rnnkit.checking import case_size

from ..attempts import attempt
from ..conftest import ASSIGNMENTS

GRADED = [(name, check) for name in ASSIGNMENTS for check in get(name).graded]


@pytest.mark.parametrize("pair", GRADED, ids=[f"{a}-{c.name}" for a, c in GRADED])
def test_the_public_cases_hold_one_of_the_largest_size_drawn(pair):
    name, check = pair
    public = max((case_size(case) or 0 for case, _, _ in _public_cases(check)), default=0)
    drawn = max((case_size(case) or 0 for student in ("s1", "s2", "s3", "s4")
                 for case, _, _ in hidden_cases(get(name), check, attempt(student), load().HIDDEN_CASES)), default=0)
    assert public >= drawn, f"{name}.{check.name}: the largest hidden case has size {drawn}, the largest public case {public}"
