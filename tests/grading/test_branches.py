"""Every branch drawn: each graded check lists its contract's branches and extremes
(`autograder.vocabulary.spec.Branch`: an answer of 0 or of the bound, None, ties, far-apart values,
empty and length-one sequences, all-padding batches), and each of them is among the public or the
hidden cases of every attempt, and a public case is of the largest size drawn. The list is read from
the spec itself, never typed again here.
"""

from __future__ import annotations

import pytest

from autograder.assignments import get
from autograder.coursedir.config import load
from autograder.grading.checks import _public_cases, hidden_cases, unshown_branches
from rnnkit.checking import case_size

from ..attempts import attempt
from ..conftest import ASSIGNMENTS

HIDDEN = load().HIDDEN_CASES
GRADED = [(name, check) for name in ASSIGNMENTS for check in get(name).graded]


def _id(pair) -> str:
    return f"{pair[0]}-{pair[1].name}"


@pytest.mark.parametrize("pair", GRADED, ids=map(_id, GRADED))
def test_a_graded_check_lists_its_branches_each_named_and_drawn_or_shown(pair):
    name, check = pair
    assert check.branches, f"{name}.{check.name} lists no branch of its contract"
    names = [branch.name for branch in check.branches]
    assert len(set(names)) == len(names), names
    for branch in check.branches:
        assert branch.en and branch.zh, f"{check.name}: branch {branch.name} says what it is in both languages"
    unshown = [branch.name for branch in unshown_branches(check) if branch.draw is None]
    assert not unshown, f"{check.name}: branches neither shown by a public case nor drawn: {unshown}"


@pytest.mark.parametrize("pair", GRADED, ids=map(_id, GRADED))
def test_every_branch_is_among_the_public_or_hidden_cases_of_every_attempt_and_a_public_case_is_the_largest(pair):
    """Three students' attempts. Slow is not endless: a public case has the largest size a hidden case
    has (`rnnkit.checking.case_size`), so a function too slow for it fails the self-check, with the
    grader's own per-call limit and its "too slow on a case of this size", before it fails at grading
    (how far the limit stands above the reference's cost: benchmarks/call_limits.py)."""
    name, check = pair
    public = [(case, expected) for case, _, expected in _public_cases(check)]
    largest = 0
    for student in ("s1", "s2", "s3"):
        hidden = [(case, expected) for case, _, expected in hidden_cases(get(name), check, attempt(student), HIDDEN)]
        missing = [
            branch.name
            for branch in check.branches
            if not any(branch.holds(case, expected) for case, expected in public + hidden)
        ]
        assert not missing, f"{name}.{check.name}, attempt of {student}: no case in branches {missing}"
        largest = max([largest, *(case_size(case) or 0 for case, _ in hidden)])
    shown = max((case_size(case) or 0 for case, _ in public), default=0)
    assert shown >= largest, (
        f"{name}.{check.name}: the largest hidden case has size {largest}, the largest public case {shown}"
    )


def test_a_branch_drawn_when_no_public_case_shows_it_leads_the_hidden_cases():
    """The guarantee is the drawer's, not luck's: a branch no public case shows is the first hidden
    cases' own, in spec order."""
    found = 0
    for name, check in GRADED:
        drawn = [branch for branch in unshown_branches(check) if branch.draw]
        hidden = hidden_cases(get(name), check, attempt("s1"), HIDDEN)
        for branch, (case, _, expected) in zip(drawn, hidden):
            assert branch.holds(case, expected), (check.name, branch.name)
            found += 1
    assert found, "no check draws a branch its public cases do not show"
