"""The catalogue covers every check, and every message a student can read exists."""
import pytest

from autograder import catalogue, config, messages
from autograder.assignments import checks_of
from autograder.checks import run

from .conftest import ASSIGNMENTS


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_check_has_a_catalogued_mistake_that_it_catches_and_names(assignment):
    settings = config.load()
    for name, check in checks_of(assignment).items():
        caught = []
        for entry in catalogue.for_check(assignment, name):
            report = run(assignment, check, entry.namespace()[name], student="catalogue", hidden=settings.HIDDEN_CASES, timeout=settings.CALL_TIMEOUT)
            if report.passed < len(report.results) and any(r.misconception for r in report.results):
                caught.append(entry.id)
        assert caught, f"{assignment}.{name}: no catalogued mistake is caught and named"


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_mistake_has_a_sentence_and_every_check_has_points(assignment):
    for entry in catalogue.mistakes(assignment):
        assert len(entry.text) > 30, entry.id
    assert set(checks_of(assignment)) == set(config.load().ASSIGNMENTS[assignment])


def test_message_ids_are_unique_across_the_catalogue_files():
    assert messages.catalogue("en")  # raises on an id defined twice
