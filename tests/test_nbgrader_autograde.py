"""Every assignment through real nbgrader: the reference earns full marks, the stub zero, and each
catalogued mistake loses points on its own check only and is named in that check's feedback."""
import csv
import shutil
from collections import defaultdict

import pytest

from autograder import catalogue, report
from autograder.course import autograde, export, feedback, nbgrader, release
from autograder.submissions import filled, write_submission

from .conftest import ASSIGNMENTS, make_course

pytestmark = pytest.mark.nbgrader


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """All assignments released and autograded once: reference, stub and one mutant per mistake."""
    root = make_course(tmp_path_factory.mktemp("class") / "course")
    release(root, ASSIGNMENTS)
    for assignment in ASSIGNMENTS:
        notebook = root / "release" / assignment / f"{assignment}.ipynb"
        write_submission(root, "reference", assignment, filled(notebook, assignment))
        write_submission(root, "stub", assignment, None)
        for entry in catalogue.mistakes(assignment):
            write_submission(root, entry.id, assignment, filled(notebook, assignment, entry))
    outcomes = autograde(root, ASSIGNMENTS, workers=2)
    table = defaultdict(dict)
    for row in report.collect(root):
        table[(row.assignment, row.student)][row.grade_id] = row
    return root, outcomes, table


def test_every_submission_was_autograded(graded):
    _, outcomes, _ = graded
    failed = [o for o in outcomes if not o.ok]
    assert outcomes and not failed, "\n\n".join(f"{o.assignment}/{o.student}:\n{o.log[-4000:]}" for o in failed)


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_the_reference_earns_full_marks_and_the_stub_zero(graded, assignment):
    _, _, table = graded
    reference, stub = table[(assignment, "reference")], table[(assignment, "stub")]
    assert reference and all(row.score == row.max_score for row in reference.values()), {k: r.score for k, r in reference.items()}
    assert set(stub) == set(reference) and all(row.score == 0 for row in stub.values())


@pytest.mark.parametrize("assignment, mistake", [(a, m.id) for a in ASSIGNMENTS for m in catalogue.mistakes(a)])
def test_each_mistake_loses_points_on_its_check_only_and_is_named(graded, assignment, mistake):
    _, _, table = graded
    entry = next(m for m in catalogue.mistakes(assignment) if m.id == mistake)
    rows = table[(assignment, mistake)]
    own = rows[entry.function]
    assert own.score < own.max_score
    assert mistake in own.misconceptions, own.misconceptions
    untouched = {name: row.score for name, row in rows.items() if name not in entry.checks and row.score != row.max_score}
    assert not untouched, f"points lost outside the checks it can affect: {untouched}"


def test_feedback_is_written_for_every_student(graded):
    root, outcomes, _ = graded
    feedback(root, ASSIGNMENTS)
    for outcome in outcomes:
        assert list((root / "feedback" / outcome.student / outcome.assignment).glob("*.html")), outcome


def test_parallel_grades_equal_sequential_nbgrader_autograde(graded, tmp_path):
    root, _, table = graded
    assignment = ASSIGNMENTS[0]
    students = ["reference", "stub", *(m.id for m in catalogue.mistakes(assignment)[:2])]
    other = make_course(tmp_path / "sequential", [assignment])
    release(other, [assignment])
    for student in students:
        shutil.copytree(root / "submitted" / student / assignment, other / "submitted" / student / assignment)
    nbgrader(other, "autograde", assignment)
    sequential = {(row.student, row.grade_id): row.score for row in report.collect(other)}
    parallel = {(student, grade_id): row.score for (a, student), rows in table.items() if a == assignment and student in students
                for grade_id, row in rows.items()}
    assert sequential == parallel


def test_a_dask_local_cluster_gives_the_same_grades(graded, tmp_path):
    root, _, table = graded
    assignment = ASSIGNMENTS[0]
    students = ["reference", catalogue.mistakes(assignment)[0].id]
    other = make_course(tmp_path / "dask", [assignment])
    release(other, [assignment])
    for student in students:
        shutil.copytree(root / "submitted" / student / assignment, other / "submitted" / student / assignment)
    outcomes = autograde(other, [assignment], workers=2, dask="local")
    assert [o.student for o in outcomes if o.ok] == sorted(students)
    on_dask = {(row.student, row.grade_id): row.score for row in report.collect(other)}
    local = {(student, grade_id): row.score for (a, student), rows in table.items() if a == assignment and student in students
             for grade_id, row in rows.items()}
    assert on_dask == local


def test_export_writes_nbgrader_grades_and_a_per_question_breakdown(graded):
    root, outcomes, _ = graded
    grades, breakdown = export(root)
    with grades.open() as handle:
        rows = list(csv.DictReader(handle))
    # nbgrader lists every student for every assignment; those who handed nothing in score 0
    submitted = {(o.assignment, o.student) for o in outcomes}
    assert submitted <= {(row["assignment"], row["student_id"]) for row in rows}
    assert all(float(row["score"]) == 0 for row in rows if (row["assignment"], row["student_id"]) not in submitted)
    with breakdown.open() as handle:
        questions = list(csv.DictReader(handle))
    entry = catalogue.mistakes(ASSIGNMENTS[0])[0]
    named = [q for q in questions if q["student_id"] == entry.id and q["grade_id"] == entry.function]
    assert named and entry.id in named[0]["misconceptions"].split()
    html = report.write_html(report.collect(root), root / "reports" / "class.html").read_text()
    assert html.count("<img") >= len(ASSIGNMENTS)
    assert all(assignment in html for assignment in ASSIGNMENTS)
