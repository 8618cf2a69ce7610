"""The contract's fast twin, in-process and without nbgrader, over every assignment: the stub earns
zero, each catalogued mistake loses points on its own check and is named there (the reference's
full marks on every seed are tests/grading/test_hidden_seeds.py's), the catalogue covers every check, and
every message a student can read exists. tests/test_contract.py proves the same through real
nbgrader on the shared graded classes."""

import pytest

from autograder.assignments import get
from autograder.coursedir import config
from autograder.grading.checks import grade
from rnnkit import messages

from ..attempts import attempt
from ..conftest import ASSIGNMENTS

SETTINGS = config.load()
#: Assignments whose every mistake is named on every student's draws, not only on some.
NAMED_ON_EVERY_DRAW = ("ch12_bptt",)
MISTAKES = [(assignment, entry.id) for assignment in ASSIGNMENTS for entry in get(assignment).mistakes()]


def _grade(assignment: str, name: str, fn, student: str):
    """The check `name` of `assignment` on `fn`, as the grader runs it (the course's hidden cases)."""
    spec = get(assignment)
    return grade(
        spec,
        spec.check(name),
        fn,
        attempt=attempt(student),
        hidden=SETTINGS.HIDDEN_CASES,
        timeout=SETTINGS.CALL_TIMEOUT,
        points=spec.points(name, SETTINGS.POINTS),
    )


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_the_stub_earns_zero_on_every_check(assignment):
    def stub(*args, **kwargs):
        raise NotImplementedError

    for check in get(assignment).checks:
        report = _grade(assignment, check.name, stub, "stub")
        assert report.score == 0 and report.passed == 0, check.name


@pytest.mark.parametrize("assignment, mistake", MISTAKES, ids=[f"{a}.{m}" for a, m in MISTAKES])
def test_each_mistake_loses_points_on_its_own_check_and_is_named(assignment, mistake):
    """On three students' hidden cases; named at least once, and in the grader's report where named."""
    spec = get(assignment)
    entry = next(m for m in spec.mistakes() if m.id == mistake)
    check = spec.check(entry.function)
    named = False
    for student in ("m1", "m2", "m3"):
        report = _grade(assignment, check.name, entry.namespace()[check.name], student)
        assert report.passed < len(report.results), (mistake, student)
        assert report.score < spec.points(check.name, SETTINGS.POINTS) or not check.graded, (mistake, student)
        named_here = mistake in report.misconceptions
        assert named_here or assignment not in NAMED_ON_EVERY_DRAW, (mistake, student, report.misconceptions)
        if named_here:
            named = True
            assert f"[{mistake}]" in "\n".join(report.lines(graded=True)), mistake
        if not check.reveal:  # an exercise's check names the misconception, never the expected answer
            assert all(mistake not in line or "expected" not in line for line in report.lines(graded=False)), mistake
    assert named, f"{mistake} is never named"


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_check_catches_and_names_a_catalogued_mistake(assignment):
    """A check with a mistake of its own function does (the test above); one without, such as a
    caller of other solution functions, catches and names a mistake of a function it calls."""
    spec = get(assignment)
    own = {entry.function for entry in spec.mistakes()}
    for check in spec.checks:
        if check.name in own:
            continue
        caught = [
            entry.id
            for entry in spec.for_check(check.name)
            if (report := _grade(assignment, check.name, entry.namespace()[check.name], "catalogue")).passed
            < len(report.results)
            and report.misconceptions
        ]
        assert caught, f"{assignment}.{check.name}: no catalogued mistake is caught and named"


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_mistake_has_a_sentence_and_every_check_has_points(assignment):
    for entry in get(assignment).mistakes():
        assert len(entry.text) > 30, entry.id
        assert entry.text == messages.text(f"mistake.{entry.id}")
    spec = get(assignment)
    names = [check.name for check in spec.checks]
    graded = [check.name for check in spec.graded] + [answer.name for answer in spec.written]
    assert assignment in SETTINGS.ASSIGNMENTS
    ids = names + [answer.name for answer in spec.written]
    assert len(ids) == len(set(ids)), "two checks or written answers of one name"
    assert all(spec.points(name, SETTINGS.POINTS) > 0 for name in graded)
    for check in spec.checks:  # a check without hidden draws is a self-check, whose points are a written answer's
        assert check.graded or f"{check.name}_written" in graded, check.name
    assert set(SETTINGS.POINTS.get(assignment, {})) <= set(graded), (
        "course_config.POINTS names no graded check or written answer"
    )


def test_message_ids_are_unique_across_the_catalogue_files():
    assert messages.catalogue("en")  # raises on an id defined twice
