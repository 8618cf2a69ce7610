"""The shared contract of every assignment, through real nbgrader on the one graded class: the
reference earns full marks, the untouched stub zero, each catalogued mistake loses points on its own
check (and only on the checks it can reach) and is named there, and the release holds no solution,
no hidden test and nothing of the grader."""
import json

import pytest

from autograder import catalogue

from .conftest import ASSIGNMENTS, REPO

pytestmark = pytest.mark.nbgrader


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_the_reference_earns_full_marks_and_the_stub_zero(graded_class, assignment):
    reference, stub = graded_class.rows(assignment, "reference"), graded_class.rows(assignment, "stub")
    assert reference and all(row.score == row.max_score for row in reference.values()), {k: r.score for k, r in reference.items()}
    assert set(stub) == set(reference) and all(row.score == 0 for row in stub.values())


@pytest.mark.parametrize("assignment, mistake", [(a, m.id) for a in ASSIGNMENTS for m in catalogue.mistakes(a)])
def test_each_mistake_loses_points_on_its_check_only_and_is_named(graded_class, assignment, mistake):
    entry = next(m for m in catalogue.mistakes(assignment) if m.id == mistake)
    rows = graded_class.rows(assignment, mistake)
    own = rows[entry.function]
    assert own.score < own.max_score
    assert mistake in own.misconceptions, own.misconceptions
    untouched = {name: row.score for name, row in rows.items() if name not in entry.checks and row.score != row.max_score}
    assert not untouched, f"points lost outside the checks it can affect: {untouched}"


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_the_release_holds_no_solution_hidden_test_or_grader(assignment):
    notebook = (REPO / "release" / assignment / f"{assignment}.ipynb").read_text(encoding="utf-8")
    for marker in ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "hidden=True", "autograder", "solutions", "sympy"):
        assert marker not in notebook, marker
    assert "from rnnkit import checker" in notebook
    cells = json.loads(notebook)["cells"]
    assert any(cell.get("metadata", {}).get("nbgrader", {}).get("grade") for cell in cells)
