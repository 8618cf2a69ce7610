"""The catalogue covers every check, and every message a student can read exists."""
import pytest
from rnnkit import messages

from autograder import config
from autograder.assignments import get
from autograder.checks import grade

from .conftest import ASSIGNMENTS
from .attempts import attempt


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_check_has_a_catalogued_mistake_that_it_catches_and_names(assignment):
    settings = config.load()
    for check in get(assignment).checks:
        caught = []
        for entry in get(assignment).for_check(check.name):
            report = grade(get(assignment), check, entry.namespace()[check.name], attempt=attempt("catalogue"), hidden=settings.HIDDEN_CASES,
                           timeout=settings.CALL_TIMEOUT, points=get(assignment).points(check.name, config.load().POINTS))
            if report.passed < len(report.results) and report.misconceptions:
                caught.append(entry.id)
        assert caught, f"{assignment}.{check.name}: no catalogued mistake is caught and named"


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_mistake_has_a_sentence_and_every_check_has_points(assignment):
    for entry in get(assignment).mistakes():
        assert len(entry.text) > 30, entry.id
        assert entry.text == messages.text(f"mistake.{entry.id}")
    settings = config.load()
    spec = get(assignment)
    names = [check.name for check in spec.checks]
    graded = [check.name for check in spec.graded] + [answer.name for answer in spec.written]
    assert assignment in settings.ASSIGNMENTS
    ids = names + [answer.name for answer in spec.written]
    assert len(ids) == len(set(ids)), "two checks or written answers of one name"
    assert all(get(assignment).points(name, config.load().POINTS) > 0 for name in graded)
    for check in spec.checks:  # a check without hidden draws is a self-check, whose points are a written answer's
        assert check.graded or f"{check.name}_written" in graded, check.name
    assert set(getattr(settings, "POINTS", {}).get(assignment, {})) <= set(graded), "course_config.POINTS names no graded check or written answer"


def test_message_ids_are_unique_across_the_catalogue_files():
    assert messages.catalogue("en")  # raises on an id defined twice
