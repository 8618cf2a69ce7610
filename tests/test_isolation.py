"""A crash, a timeout or a killed kernel costs only the cells it touches, never another student's;
edited test cells are put back."""
import nbformat
import pytest

from autograder import report
from autograder.course import autograde, release
from autograder.submissions import filled, write_submission

from .conftest import make_course

pytestmark = pytest.mark.nbgrader
ASSIGNMENT = "ch12_bptt"


def _with_sgd_update(notebook, prefix: str, body: str):
    for cell in notebook.cells:
        if "def sgd_update" in cell.source:
            cell.source = prefix + cell.source.replace("    return w - lr * grad", body)
    return notebook


def test_kernel_death_endless_loops_and_edited_tests_cost_only_their_cells(tmp_path):
    root = make_course(tmp_path / "course", [ASSIGNMENT])
    with (root / "course_config.py").open("a") as handle:
        handle.write("\nCELL_TIMEOUT = 5\n")
    release(root, [ASSIGNMENT])
    notebook = root / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    write_submission(root, "reference", ASSIGNMENT, filled(notebook, ASSIGNMENT))
    write_submission(root, "killer", ASSIGNMENT, _with_sgd_update(filled(notebook, ASSIGNMENT), "import os\n", "    os._exit(1)"))
    write_submission(root, "looper", ASSIGNMENT, _with_sgd_update(filled(notebook, ASSIGNMENT), "while True:\n    pass\n", "    return w - lr * grad"))
    tampered = nbformat.read(notebook, as_version=4)
    for cell in tampered.cells:
        if cell.metadata.get("nbgrader", {}).get("grade"):
            cell.source = "1.0  # full marks, please"
    write_submission(root, "tamperer", ASSIGNMENT, tampered)
    outcomes = autograde(root, [ASSIGNMENT], workers=2)
    assert all(o.ok for o in outcomes), [o.log for o in outcomes if not o.ok]
    scores = {(row.student, row.grade_id): row for row in report.collect(root)}
    callers = {"sgd_update", "update_and_recompute", "ex_12_7_2"}
    for student in ("killer", "looper"):
        for (who, grade_id), row in scores.items():
            if who == student:
                assert (row.score == 0) if grade_id in callers else (row.score == row.max_score), (student, grade_id, row.score)
    assert all(row.score == row.max_score for (who, _), row in scores.items() if who == "reference")
    # nbgrader restores locked test cells (hidden tests included) from the gradebook
    assert all(row.score == 0 for (who, _), row in scores.items() if who == "tamperer")
    killed = nbformat.read(root / "autograded" / "killer" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    assert any(o.get("ename") == "KernelDied" for cell in killed.cells for o in cell.get("outputs", []))
