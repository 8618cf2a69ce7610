"""The reference solution earns full marks on the hidden cases of 200 different students."""
import importlib

import pytest

from autograder import config
from autograder.assignments import checks_of
from autograder.checks import run

from .conftest import ASSIGNMENTS

SEEDS = 200


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_the_reference_solution_gets_full_marks_on_every_seed(assignment):
    solution = importlib.import_module(f"solutions.{assignment}")
    settings = config.load()
    failures = []
    for index in range(SEEDS):
        for name, check in checks_of(assignment).items():
            report = run(assignment, check, getattr(solution, name), student=f"seed-{index}",
                         hidden=settings.HIDDEN_CASES, timeout=settings.CALL_TIMEOUT)
            if report.passed != len(report.results):
                failures.append((index, name, report.lines(graded=True)))
    assert not failures, failures[:3]
