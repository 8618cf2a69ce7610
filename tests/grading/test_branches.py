"""Every branch drawn: each graded check lists its contract's branches and extremes
(`autograder.grading.spec.Branch`: an answer of 0 or of the bound, None, ties, far-apart values,
empty and length-one sequences, all-padding batches), and each of them is among the public or the
hidden cases of every attempt. The list is read from the spec itself, never typed again here.
"""
from __future__ import annotations

import pytest

from autograder.assignments import get
from autograder.coursedir.config import load
from autograder.grading.checks import _public_cases, hidden_cases, unshown_branches

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
@pytest.mark.parametrize("student", ["s1", "s2"])
def test_every_branch_is_among_the_public_or_hidden_cases_of_every_attempt(pair, student):
    name, check = pair
    cases = [(case, expected) for case, _, expected in _public_cases(check)]
    cases += [(case, expected) for case, _, expected in hidden_cases(get(name), check, attempt(student), HIDDEN)]
    missing = [branch.name for branch in check.branches if not any(branch.holds(case, expected) for case, expected in cases)]
    assert not missing, f"{name}.{check.name}, attempt of {student}: no case in branches {missing}"


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
