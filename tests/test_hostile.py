"""Hostile submissions through real nbgrader, graded in one class with two honest students: a cheat
earns nothing, a breaker loses only its own cells, the honest keep full marks, the course files
stay byte-identical, no process is left over, and the gradebook holds one grade per cell."""
import re
import sqlite3
import subprocess

import nbformat
import pytest

from . import hostile

pytestmark = pytest.mark.nbgrader
A = hostile.ASSIGNMENT


def _students(graded, kind):
    return [student for student, k in graded.kinds.items() if k == kind]


def test_every_hostile_submission_was_graded(graded_class):
    assert graded_class.kinds
    done = {o.student for o in graded_class.outcomes if o.assignment == A and o.ok}
    assert set(graded_class.kinds) <= done


def test_a_cheat_earns_nothing(graded_class):
    for student in _students(graded_class, "cheat"):
        rows = graded_class.rows(A, student)
        assert rows, student
        earned = {grade_id: row.score for grade_id, row in rows.items() if row.score}
        assert not earned, (student, earned)


def test_a_breaker_loses_only_the_checks_it_breaks(graded_class):
    for student in _students(graded_class, "breaker"):
        rows = graded_class.rows(A, student)
        for grade_id, row in rows.items():
            if grade_id in hostile.broken_checks(student):
                assert row.score == 0, (student, grade_id, row.score)
            else:
                assert row.score == row.max_score, (student, grade_id, row.score)


def test_honest_students_keep_full_marks(graded_class):
    for student in _students(graded_class, "honest"):
        rows = graded_class.rows(A, student)
        assert rows and all(row.score == row.max_score for row in rows.values()), student


def test_the_course_files_are_byte_identical_after_grading(graded_class):
    before, after = graded_class.before, graded_class.after
    changed = sorted(path for path in set(before) | set(after) if before.get(path) != after.get(path))
    assert not changed, changed


def test_no_process_started_by_a_submission_is_left(graded_class):
    found = subprocess.run(["pgrep", "-f", hostile.MARKER], capture_output=True, text=True)
    assert found.stdout.strip() == "", found.stdout


def test_the_gradebook_holds_one_grade_per_student_and_cell(graded_class):
    with sqlite3.connect(graded_class.root / "gradebook.db") as db:
        total, distinct = db.execute("select count(*), count(distinct notebook_id || '/' || cell_id) from grade").fetchone()
    assert total == distinct > 0


def test_output_is_cut_at_the_limit_with_a_note(graded_class):
    path = graded_class.root / "autograded" / "flood" / A / f"{A}.ipynb"
    assert path.stat().st_size < 1_000_000
    text = "".join(o.get("text", "") for cell in nbformat.read(path, as_version=4).cells for o in cell.get("outputs", []))
    assert "[output truncated: this cell printed more than 256 KB]" in text


def test_a_killed_runner_is_named_and_costs_only_its_cells(graded_class):
    path = graded_class.root / "autograded" / "exit-in-function" / A / f"{A}.ipynb"
    texts = {cell.metadata.get("nbgrader", {}).get("grade_id"): re.sub(r"\n +", " ", "".join(o.get("text", "") for o in cell.outputs))
             for cell in nbformat.read(path, as_version=4).cells if cell.cell_type == "code"}  # wrapped lines joined again
    assert "stopped the Python process while sgd_update ran" in texts["sgd_update"]


def test_the_sandbox_hides_the_instructor_package(graded_class):
    path = graded_class.root / "autograded" / "engine-import" / A / f"{A}.ipynb"
    cells = [cell for cell in nbformat.read(path, as_version=4).cells if "from autograder" in cell.source]
    errors = [o.evalue for cell in cells for o in cell.get("outputs", []) if o.output_type == "error"]
    assert cells and len(errors) == len(cells) and all("No module named 'autograder'" in e for e in errors), errors
