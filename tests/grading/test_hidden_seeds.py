"""The reference solution earns full marks on the hidden cases of many different students
(`HIDDEN_SEEDS`, default 8; `HIDDEN_SEEDS=200 make test` for a longer search)."""

import os

import pytest

from autograder.assignments import get
from autograder.coursedir import config
from autograder.grading.checks import grade

from ..attempts import attempt
from ..conftest import ASSIGNMENTS

SEEDS = int(os.environ.get("HIDDEN_SEEDS", "8"))


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_the_reference_solution_gets_full_marks_on_every_seed(assignment):
    solution = get(assignment).solution()
    settings = config.load()
    failures = []
    for index in range(SEEDS):
        for check in get(assignment).graded:
            report = grade(
                get(assignment),
                check,
                getattr(solution, check.name),
                attempt=attempt(f"seed-{index}"),
                hidden=settings.HIDDEN_CASES,
                timeout=settings.CALL_TIMEOUT,
                points=get(assignment).points(check.name, config.load().POINTS),
            )
            if report.passed != len(report.results):
                failures.append((index, check.name, report.lines(graded=True)))
    assert not failures, failures[:3]
