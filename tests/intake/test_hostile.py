"""Hostile submissions through real nbgrader, graded in one class with honest students: a cheat
earns nothing, a breaker loses only its own cells, the honest keep full marks, a folder holding
links or special files is refused before anything of it is copied, the course files stay
byte-identical, no process is left over, and the gradebook holds one grade per cell."""

import html
import re
import sqlite3
import subprocess
from html.parser import HTMLParser

import nbformat
import pytest
from nbgrader.api import Gradebook

from autograder.assignments import get
from autograder.commands.course import autograde_one, feedback, nbgrader
from autograder.coursedir.config import database_url, load
from autograder.labels import label

from .. import hostile
from ..classroom import reveals

pytestmark = pytest.mark.nbgrader
A = hostile.ASSIGNMENT


def _students(graded, kind):
    return [student for student, k in graded.kinds.items() if k == kind]


def test_every_hostile_submission_was_graded_but_the_refused(graded_class):
    assert graded_class.kinds
    done = {o.student for o in graded_class.outcomes if o.assignment == A and o.ok}
    refused = set(_students(graded_class, "refused"))
    assert refused and not refused & done
    assert set(graded_class.kinds) - refused <= done


def _texts(graded_class, student: str) -> dict:
    """grade id (or None) -> the text of that code cell's outputs in the autograded notebook, wrapped lines joined."""
    path = graded_class.root / "autograded" / student / A / f"{A}.ipynb"
    return {
        cell.metadata.get("nbgrader", {}).get("grade_id"): re.sub(
            r"\n +", " ", "".join(o.get("text", "") or o.get("evalue", "") for o in cell.outputs)
        )
        for cell in nbformat.read(path, as_version=4).cells
        if cell.cell_type == "code"
    }


def test_a_folder_with_links_or_special_files_is_refused_flagged_and_never_copied(graded_class):
    reasons = {o.student: o.refused for o in graded_class.outcomes if o.assignment == A}
    expected = {
        "notebook-link": "`'ch12_bptt.ipynb'` is a symbolic link",
        "links-beside": "`'gradebook.db'` is a symbolic link",
        "hard-link": "`'ch12_bptt.ipynb'` is a hard link",
        "fifo": "`'pipe'` is a FIFO",
        "deep-folders": "nested more than",
        "not-json": "`'ch12_bptt.ipynb'` is not a notebook nbformat can read (`NotJSONError",
        "many-empty-cells": "cells, more than 1000",
        "hostile-name": "`'\\x1b]0;pwned\\x07\\r\\u202e<img src=x onerror=alert(1)>'` is a FIFO",
    }
    assert set(expected) == set(_students(graded_class, "refused"))
    settings = load(graded_class.root)
    with Gradebook(database_url(graded_class.root, settings), settings.COURSE_ID) as gb:
        for student, reason in expected.items():
            assert reason in reasons[student], (student, reasons[student])
            assert not (graded_class.root / "autograded" / student / A).exists(), student
            submission = gb.find_submission(A, student)
            notebook = submission.notebooks[0]
            assert notebook.flagged and submission.needs_manual_grade and submission.score == 0, student
            assert any(reason in (c.auto_comment or "") for c in notebook.comments), student


def test_only_the_notebook_and_the_course_files_reach_autograded(graded_class):
    source = {p.name for p in (graded_class.root / "source" / A).iterdir()}
    for student in ("extra-files", "honest-a", "html-injector"):
        carried = {p.name for p in (graded_class.root / "autograded" / student / A).iterdir()}
        assert carried <= source | {"timestamp.txt", "submission_secret.txt"}, (student, carried - source)
    rows = graded_class.rows(A, "extra-files")
    assert all(row.score == row.max_score for row in rows.values() if not row.needs_manual)


def test_a_budget_bounds_a_submission_that_restarts_its_runner_on_every_check(graded_class):
    """Each function of slow-replay ends its runner: each check that runs, and each cell that calls
    one, costs the submission a runner (and the replay of its cells on the next). The budget gives
    it at most RUNNER_RESTARTS + 1 runners (fewer once SUBMISSION_TIMEOUT is spent); every check
    after them is refused without one."""
    settings = load(graded_class.root)
    path = graded_class.root / "autograded" / "slow-replay" / A / f"{A}.ipynb"
    cells = [cell for cell in nbformat.read(path, as_version=4).cells if cell.cell_type == "code"]
    texts = [
        " ".join("".join(o.get("text", "") or o.get("evalue", "") for o in cell.outputs).split()) for cell in cells
    ]
    ended = [text for text in texts if "stopped the Python process" in text or "The Python process stopped" in text]
    by_check = _texts(graded_class, "slow-replay")
    checks = [check.name for check in get(A).graded]
    ran = [name for name in checks if "stopped the Python process" in by_check[name]]  # on a runner of its own
    refused = [name for name in checks if "used up its grading budget" in by_check[name]]
    assert ran and refused and sorted(ran + refused) == sorted(checks), {name: by_check[name] for name in checks}
    # every runner replays the slow first cell: the time budget ends them before the restart cap can
    assert len(ended) <= min(
        settings.RUNNER_RESTARTS + 1, settings.SUBMISSION_TIMEOUT // hostile.SLOW_CELL_SECONDS + 1
    ), ended


def test_a_crash_in_graded_code_names_the_line_of_the_students_function(graded_class):
    text = _texts(graded_class, "sleeper-in-function")["sgd_update"]
    assert "raised RuntimeError" in text and "raise RuntimeError('no')" in text, text


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
            elif not row.needs_manual:  # (a written answer waits for a TA)
                assert row.score == row.max_score, (student, grade_id, row.score)


def test_honest_students_keep_full_marks(graded_class):
    for student in _students(graded_class, "honest"):
        rows = graded_class.rows(A, student)
        assert rows and all(row.score == row.max_score for row in rows.values() if not row.needs_manual), student


def test_the_course_files_are_byte_identical_after_grading(graded_class):
    before, after = graded_class.before, graded_class.after
    changed = sorted(path for path in set(before) | set(after) if before.get(path) != after.get(path))
    assert not changed, changed


def test_no_process_started_by_a_submission_is_left(graded_class):
    found = subprocess.run(["pgrep", "-f", hostile.MARKER], capture_output=True, text=True)
    assert found.stdout.strip() == "", found.stdout


def test_the_gradebook_holds_one_grade_per_student_and_cell(graded_class):
    with sqlite3.connect(graded_class.root / "gradebook.db") as db:
        total, distinct = db.execute(
            "select count(*), count(distinct notebook_id || '/' || cell_id) from grade"
        ).fetchone()
    assert total == distinct > 0


def test_output_is_cut_at_the_limit_with_a_note(graded_class):
    path = graded_class.root / "autograded" / "flood" / A / f"{A}.ipynb"
    assert path.stat().st_size < 1_000_000
    text = "".join(
        o.get("text", "") for cell in nbformat.read(path, as_version=4).cells for o in cell.get("outputs", [])
    )
    assert "[output truncated: this cell printed more than 256 KB]" in text


def _graded_notebook(graded_class, student: str):
    return graded_class.root / "autograded" / student / A / f"{A}.ipynb"


def test_the_grader_bounds_the_output_it_keeps_per_cell_and_per_submission(graded_class):
    settings = load(graded_class.root)
    cell_limit, total = settings.OUTPUT_LIMIT_KB * 1024, settings.OUTPUT_TOTAL_KB * 1024
    notebooks = {
        student: nbformat.read(_graded_notebook(graded_class, student), as_version=4)
        for student in ("raised-limit", "many-cells", "empty-lines")
    }
    raised = max(len(o.get("text", "")) for cell in notebooks["raised-limit"].cells for o in cell.get("outputs", []))
    assert raised <= cell_limit + 8 * 1024, raised  # the runner was told to keep 8 MB of this cell
    for student, notebook in notebooks.items():
        assert _graded_notebook(graded_class, student).stat().st_size < total + 2 * cell_limit + 512 * 1024, student
    texts = ["".join(o.get("text", "") for o in cell.get("outputs", [])) for cell in notebooks["many-cells"].cells]
    assert sum("[output dropped: the cells of this submission have already kept" in text for text in texts) > 80


def test_notebook_faults_cost_their_own_submission_only(graded_class):
    faults = {"copied-cells", "odd-metadata", "duplicate-cell-ids", "nbformat-3", "garbled-timestamp"}
    assert faults <= set(_students(graded_class, "honest"))  # full marks: test_honest_students_keep_full_marks
    copied = nbformat.read(_graded_notebook(graded_class, "copied-cells"), as_version=4)
    assert sum("is a copy of the cell" in cell.source for cell in copied.cells if cell.cell_type == "markdown") == 2


def test_a_killed_runner_is_named_and_costs_only_its_cells(graded_class):
    assert "stopped the Python process while sgd_update ran" in _texts(graded_class, "exit-in-function")["sgd_update"]


class _LiveMarkup(HTMLParser):
    """The tags of a text that a browser would run script from: script-like tags, event handler
    attributes and javascript: links (escaped text is data, not tags, and is not counted)."""

    def __init__(self, text: str):
        super().__init__()
        self.found: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "iframe", "svg", "object", "embed"):
            self.found.append(tag)
        self.found += [
            f"{tag} {name}"
            for name, value in attrs
            if name.startswith("on") or (value or "").strip().lower().startswith("javascript:")
        ]


def test_html_and_script_a_student_wrote_are_sanitised_in_the_autograded_notebook(graded_class):
    submitted = nbformat.read(graded_class.root / "submitted" / "html-injector" / A / f"{A}.ipynb", as_version=4)
    assert all(
        _LiveMarkup(text).found for text in hostile.INJECTED_MARKDOWN[:3] + hostile.INJECTED_MARKDOWN[4:]
    )  # the test can fail
    notebook = nbformat.read(graded_class.root / "autograded" / "html-injector" / A / f"{A}.ipynb", as_version=4)
    rubric = label("written.rubric")  # the instructor's rubric, below each written answer
    written = [
        cell
        for cell in notebook.cells
        if cell.cell_type != "code"
        and cell.source
        not in {c.source for c in nbformat.read(graded_class.root / "source" / A / f"{A}.ipynb", as_version=4).cells}
        and not cell.metadata.get("nbgrader", {}).get("grade")
        and not cell.source.startswith(rubric)
    ]
    assert (
        len(written)
        == len(hostile.INJECTED_MARKDOWN) + 1
        == sum(1 for c in submitted.cells if hostile.SCRIPT_FLAG in c.source) - 1
    )
    for cell in written:
        assert not _LiveMarkup(cell.source).found, cell.source
    outputs = [
        o
        for cell in notebook.cells
        if cell.cell_type == "code"
        for o in cell.outputs
        if o.output_type == "display_data"
    ]
    assert outputs and not {mime for o in outputs for mime in o.data} & {"image/svg+xml", "application/javascript"}
    assert not any(_LiveMarkup(o.data.get("text/html", "")).found for o in outputs)


def test_feedback_and_release_feedback_carry_the_page_only(graded_class):
    students = ["extra-files", "html-injector", "many-cells", "empty-lines"]
    feedback(graded_class.root, [A], students=students)
    settings = load(graded_class.root)
    for student in ("many-cells", "empty-lines"):  # the page of a flood is bounded as its notebook is
        page = graded_class.root / "feedback" / student / A / f"{A}.html"
        assert (
            page.stat().st_size < 3 * (settings.OUTPUT_TOTAL_KB + 2 * settings.OUTPUT_LIMIT_KB) * 1024 + 1024 * 1024
        ), student
    course_files = {p.name for p in (graded_class.root / "source" / A).iterdir() if p.suffix != ".ipynb"}
    for student in students:
        given = {p.name for p in (graded_class.root / "feedback" / student / A).iterdir()}
        assert f"{A}.html" in given and given <= {
            f"{A}.html",
            "submission_secret.txt",
            "timestamp.txt",
            *course_files,
        }, given
    nbgrader(graded_class.root, "release_feedback", A, "--student=extra-files")
    released = [p for p in (graded_class.root / "exchange").rglob("*") if p.is_file() and "feedback" in p.parts]
    assert released and all(p.suffix == ".html" for p in released), released


def _shown_case(graded_class, student: str, check: str) -> str:
    """What a grade cell says from its first wrong hidden case on: the case, its inputs, the student's value."""
    text = _texts(graded_class, student)[check]
    assert "That hidden case's inputs:" in text, text
    return text[text.index("hidden case") :]


def test_a_regrade_draws_the_same_cases_a_new_attempt_new_ones(graded_class):
    """Through nbgrader: the same submission graded again shows the same hidden case; handed in again
    (a new submission timestamp), it is graded on new numbers, worth the same."""
    entry = get(A).mistakes()[1]
    student = graded_class.holder(A, entry.id).student
    stamp = graded_class.root / "submitted" / student / A / "timestamp.txt"
    first, score = _shown_case(graded_class, student, entry.function), _score(graded_class, student, entry.function)
    original = stamp.read_text()
    try:
        assert autograde_one(str(graded_class.root), A, student).ok
        assert _shown_case(graded_class, student, entry.function) == first
        stamp.write_text("2026-11-30 09:00:00.000000 UTC")
        assert autograde_one(str(graded_class.root), A, student).ok
        assert _shown_case(graded_class, student, entry.function) != first
        assert _score(graded_class, student, entry.function) == score
    finally:
        stamp.write_text(original)
        assert autograde_one(str(graded_class.root), A, student).ok
    assert _shown_case(graded_class, student, entry.function) == first


def _score(graded_class, student: str, check: str) -> float:
    settings = load(graded_class.root)
    with Gradebook(database_url(graded_class.root, settings), settings.COURSE_ID) as gb:
        return gb.find_grade(check, A, A, student).score


def test_the_feedback_shows_expected_values_only_as_the_course_allows(graded_class):
    student = graded_class.holder(A, get(A).mistakes()[1].id).student
    page = graded_class.root / "feedback" / student / A / f"{A}.html"
    text = lambda: html.unescape(re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8")))  # noqa: E731
    try:
        nbgrader(
            graded_class.root,
            "generate_feedback",
            A,
            f"--student={student}",
            "--force",
            "--RevealExpected.shows_expected=always",
        )
        assert reveals(text())
        nbgrader(
            graded_class.root,
            "generate_feedback",
            A,
            f"--student={student}",
            "--force",
            "--RevealExpected.shows_expected=never",
        )
        assert "That hidden case's inputs:" in text() and not reveals(text())
        raw = page.read_text(encoding="utf-8")  # what the grader keeps of each hidden case stays in the graded notebook
        assert '"drawn":' not in raw and '"expected":' not in raw and '"got":' not in raw
    finally:
        feedback(graded_class.root, [A], students=[student])
    assert not reveals(text())  # after_due, and no due date
