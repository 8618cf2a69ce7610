"""Whether every variant was equally hard: a check's facility for each value range of each drawn
parameter (the branch drawn for, a sequence's length, an array's shape, a number's value, as
`autograder.grading.checks.drawn` records each hidden case), with Fisher's exact test of "this range
is harder than the rest of the check" and the Benjamini-Hochberg adjustment over every range of an
assignment.

Each hidden case is one trial, right or wrong. Its parameters are drawn independently of the student,
so where a parameter does not matter its values are exchangeable across the cases, and the 2x2
table (this range or the rest, right or wrong) follows the hypergeometric law Fisher's test
assumes; the students' own strengths only make it conservative. Cases of a check still the stub,
and of a hand-in without a grade, are left out.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from ..grading.checks import BRANCH, ORDINARY
from .classdata import ClassData, Row

#: The level at which a range is flagged harder (after the Benjamini-Hochberg adjustment).
LEVEL = 0.05
#: A numeric parameter with more distinct values than this is cut into `RANGES` ranges of about
#: equal counts; one with fewer keeps a group per value.
DISTINCT, RANGES = 6, 4


@dataclass(frozen=True)
class RangeStats:
    """One value range of one drawn parameter of one check: its cases and facility (the share right),
    the rest of the check's, the one-sided p-value of Fisher's exact test (this range harder) and
    its Benjamini-Hochberg adjustment over the assignment's ranges; `harder` where that is below
    `LEVEL`."""

    assignment: str
    grade_id: str
    parameter: str
    range: str
    cases: int
    facility: float
    rest_cases: int
    rest_facility: float
    p_value: float
    p_adjusted: float
    harder: bool


def _number(value: float) -> str:
    return f"{value:.4g}"


def ranges(values: list[float | str]) -> list[str]:
    """The range each value falls in: a word as it is; numbers each as itself where they take at most
    DISTINCT values, else "[low, high]" among RANGES ranges of about equal counts (equal values
    always in one range). A mix of words and numbers is read as words."""
    if not values:
        return []
    if any(isinstance(value, str) for value in values):
        return [str(value) for value in values]
    numbers = np.asarray(values, dtype=float)
    distinct = np.unique(numbers)
    if len(distinct) <= DISTINCT:
        return [_number(value) for value in numbers]
    edges = np.unique(np.quantile(numbers, np.linspace(0, 1, RANGES + 1)[1:-1], method="lower"))
    index = np.searchsorted(edges, numbers, side="right")  # equal values share a bin
    bins = [distinct[np.searchsorted(edges, distinct, side="right") == i] for i in range(len(edges) + 1)]
    labels = [f"[{_number(b.min())}, {_number(b.max())}]" if len(b) else "" for b in bins]
    return [labels[i] for i in index]


def _trials(rows: list[Row]) -> dict[str, list[tuple[dict, bool]]]:
    """grade id -> each hidden case's (drawn, right), over the cells graded by the autograder."""
    found: dict[str, list[tuple[dict, bool]]] = defaultdict(list)
    for row in rows:
        if row.needs_manual or row.by_ta or row.not_started:
            continue
        for case in row.cases:
            if not case.public and case.drawn:
                found[row.grade_id].append((case.drawn, case.ok))
    return found


def range_stats(data: ClassData, assignment: str, level: float = LEVEL) -> list[RangeStats]:
    """Per check of `assignment` (notebook order), per drawn parameter with two ranges or more, per
    range: its facility against the rest's, with Fisher's one-sided exact test and the
    Benjamini-Hochberg adjustment over all of them. The ordinary draws (no branch) are a range of
    the branch parameter of their own."""
    from scipy.stats import false_discovery_control, fisher_exact

    trials = _trials(data.graded_rows_of(assignment))
    found: list[tuple] = []
    for grade_id, _ in data.questions.get(assignment, []):
        cases = trials.get(grade_id, [])
        parameters = sorted({name for drawn, _ in cases for name in drawn}, key=lambda name: (name != BRANCH, name))
        for parameter in parameters:
            present = [(drawn[parameter], ok) for drawn, ok in cases if parameter in drawn]
            labels = ranges([value for value, _ in present])
            groups: dict[str, list[bool]] = defaultdict(list)
            for label, (_, ok) in zip(labels, present):
                groups[label].append(ok)
            if len(groups) < 2:
                continue
            right, total = sum(ok for _, ok in present), len(present)
            for label in _ordered(groups, present, labels):
                mine = groups[label]
                ok, n = sum(mine), len(mine)
                rest_ok, rest_n = right - ok, total - n
                p = fisher_exact([[n - ok, ok], [rest_n - rest_ok, rest_ok]], alternative="greater").pvalue
                found.append((grade_id, parameter, label, n, ok / n, rest_n, rest_ok / rest_n, float(p)))
    adjusted = false_discovery_control([item[-1] for item in found], method="bh") if found else []
    return [RangeStats(assignment, *item, float(q), bool(q < level)) for item, q in zip(found, adjusted)]


def _ordered(groups: dict[str, list[bool]], present: list, labels: list[str]) -> list[str]:
    """The ranges of one parameter in the order of their values (words as sorted, the ordinary draws
    first)."""
    first = {}
    for label, (value, _) in zip(labels, present):
        first.setdefault(label, value)
    return sorted(
        groups,
        key=lambda label: (
            label != ORDINARY,
            isinstance(first[label], str),
            first[label] if not isinstance(first[label], str) else 0,
            label,
        ),
    )
