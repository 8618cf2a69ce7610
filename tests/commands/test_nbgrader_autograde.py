"""Course operations on the one graded class: every submission graded exactly once by 4 workers,
plain `nbgrader autograde` (the trusted executor wired in nbgrader_config.py) gives the same grades,
so does a Dask LocalCluster, and feedback and exports are written."""

import csv
import html
import re
import shutil
import subprocess
import time

import nbformat
import pytest

from autograder.assignments import get
from autograder.authoring import build
from autograder.commands.course import BIN, autograde, feedback, nbgrader_env, release
from autograder.reporting import classdata, report
from autograder.reporting.exports import export
from rnnkit import messages

from ..classroom import reveals
from ..conftest import ASSIGNMENTS, make_course

pytestmark = pytest.mark.nbgrader


def _scores(table, assignment, students):
    return {
        (student, grade_id): row.score
        for (a, student), rows in table.items()
        if a == assignment and student in students
        for grade_id, row in rows.items()
    }


def test_every_submission_was_autograded_once_by_four_workers(graded_class):
    failed = [o for o in graded_class.outcomes if not o.ok and not o.refused]
    assert graded_class.outcomes and not failed, "\n\n".join(
        f"{o.assignment}/{o.student}:\n{o.log[-4000:]}" for o in failed
    )
    refused = {o.student for o in graded_class.outcomes if o.refused}
    assert refused == {student for student, kind in graded_class.kinds.items() if kind == "refused"}
    submitted = {(p.parent.name, p.name) for p in (graded_class.root / "submitted").glob("*/*") if p.is_dir()}
    assert len(submitted) >= 20 * len(ASSIGNMENTS)  # a class of a few dozen per assignment
    assert sorted((o.student, o.assignment) for o in graded_class.outcomes) == sorted(submitted)
    assert {(a, s) for (a, s) in graded_class.table} == {(a, s) for (s, a) in submitted}


def test_plain_nbgrader_autograde_gives_the_same_grades(graded_class, tmp_path):
    assignment = "ch12_bptt" if "ch12_bptt" in ASSIGNMENTS else ASSIGNMENTS[0]
    cheats = [student for student, kind in graded_class.kinds.items() if kind == "cheat"]
    refused = (
        ["links-beside", "notebook-link", "not-json"] if "links-beside" in graded_class.kinds else []
    )  # links survive the copy below
    faults = ["copied-cells", "odd-metadata", "garbled-timestamp", "hash-set"] if refused else []
    students = sorted(
        [
            "reference",
            "stub",
            *{graded_class.holder(assignment, m.id).student for m in get(assignment).mistakes()[:3]},
            *cheats[:4],
            *refused,
            *faults,
        ]
    )
    other = make_course(tmp_path / "sequential", [assignment])
    shutil.copy2(graded_class.root / "course_config.py", other / "course_config.py")
    with (other / "course_config.py").open("a") as handle:
        handle.write(f"\nASSIGNMENTS = [{assignment!r}]\n")
    release(other, [assignment])
    for student in students:  # links copied as links (they point into this course's source/ as they did there)
        shutil.copytree(
            graded_class.root / "submitted" / student / assignment,
            other / "submitted" / student / assignment,
            symlinks=True,
        )
    result = subprocess.run(
        [str(BIN / "nbgrader"), "autograde", assignment], cwd=other, env=nbgrader_env(), capture_output=True, text=True
    )
    log = result.stdout + result.stderr
    assert "sandbox: user, pid, net, mount" in log
    assert (result.returncode != 0) == bool(refused) and all(
        f"refused {assignment} of {student}" in log for student in refused
    )
    if faults:  # one submission's fault is its own: one line each, the class goes on
        assert "nbgrader update" not in log and "Traceback" not in log and "\x1b" not in log, log[-3000:]
        assert log.count("of copied-cells: the cell ") == 2 and "garbled-timestamp: its hand-in claims the time" in log
    sequential = {(row.student, row.grade_id): row.score for row in classdata.collect(other)}
    assert sequential == _scores(graded_class.table, assignment, students)


def test_a_dask_local_cluster_gives_the_same_grades(graded_class, tmp_path):
    assignment = ASSIGNMENTS[0]
    students = ["reference", graded_class.holder(assignment, get(assignment).mistakes()[0].id).student]
    other = make_course(tmp_path / "dask", [assignment])
    shutil.copy2(graded_class.root / "course_config.py", other / "course_config.py")
    with (other / "course_config.py").open("a") as handle:
        handle.write(f"\nASSIGNMENTS = [{assignment!r}]\n")
    release(other, [assignment])
    for student in students:
        shutil.copytree(
            graded_class.root / "submitted" / student / assignment, other / "submitted" / student / assignment
        )
    outcomes = autograde(other, [assignment], workers=2, dask="local")
    assert [o.student for o in outcomes if o.ok] == sorted(students)
    on_dask = {(row.student, row.grade_id): row.score for row in classdata.collect(other)}
    assert on_dask == _scores(graded_class.table, assignment, students)


def test_graded_notebooks_keep_the_students_plots_and_the_graders_messages(graded_class):
    assignment = ASSIGNMENTS[0]
    notebook = nbformat.read(
        graded_class.root / "autograded" / "reference" / assignment / f"{assignment}.ipynb", as_version=4
    )
    outputs = [o for cell in notebook.cells for o in cell.get("outputs", [])]
    assert any("image/png" in o.get("data", {}) for o in outputs)
    assert any("cases right" in o.get("text", "") for o in outputs)


def test_feedback_is_written_for_the_students_asked_for_and_names_each_check(graded_class):
    """Feedback for three students of one assignment: written for them only; the page names each
    check in its contents, wraps the messages, shows a failed hidden case and the grader's summary."""
    assignment = "ch12_bptt" if "ch12_bptt" in ASSIGNMENTS else ASSIGNMENTS[0]
    mistake = get(assignment).mistakes()[0].id
    holder = graded_class.holder(assignment, mistake).student
    students = ["reference", "stub", holder]
    start = time.time() - 1  # other tests write feedback into the shared class too: count only this run's pages
    feedback(graded_class.root, [assignment], students=students)
    for outcome in graded_class.outcomes:
        written = [
            p
            for p in (graded_class.root / "feedback" / outcome.student / outcome.assignment).glob("*.html")
            if p.stat().st_mtime >= start
        ]
        assert bool(written) == (outcome.student in students and outcome.assignment == assignment), outcome
    page = (graded_class.root / "feedback" / holder / assignment / f"{assignment}.html").read_text(encoding="utf-8")
    toc = page[page.index('<div id="toc">') : page.index("</ol>")]
    names = [check.name for check in get(assignment).graded]
    assert [f"<code>{name}</code>" in toc for name in names] == [True] * len(names) and "Test cell" not in toc
    assert "white-space: pre-wrap" in page
    text = html.unescape(re.sub(r"<[^>]+>", "", page))
    assert "That hidden case's inputs:" in text and f"[{mistake}]" in text
    assert not reveals(text)  # FEEDBACK_SHOWS_EXPECTED = "after_due", and no due date is set
    rows = graded_class.rows(assignment, holder)
    right = sum(row.score == row.max_score for name, row in rows.items() if name in names)
    assert 0 < right < len(names) and messages.text("notebook.summary", right=right, total=len(names)) in text
    for answer in get(assignment).written:  # below each written answer, the rubric: the book's reference answer
        assert rows[answer.name].needs_manual
        assert " ".join(build.rubric(get(assignment), answer.name, "en").split()[:8]) in " ".join(text.split()), (
            answer.name
        )
    printed = re.findall(r'output_text">\s*<pre>(.*?)</pre>', page, flags=re.S)  # what the cells printed
    assert printed and max(len(html.unescape(line)) for output in printed for line in output.splitlines()) <= 110


def test_export_writes_nbgrader_grades_and_a_per_question_breakdown(graded_class):
    root, outcomes = graded_class.root, graded_class.outcomes
    sheets = export(root)
    grades, breakdown = sheets.grades, sheets.questions
    assert grades.parent == root / "exports"
    with grades.open() as handle:
        rows = list(csv.DictReader(handle))
    # nbgrader lists every student for every assignment; those who handed nothing in score 0 and are marked so
    submitted = {(o.assignment, o.student) for o in outcomes}
    assert submitted <= {(row["assignment"], row["student_id"]) for row in rows}
    assert all(
        float(row["final_score"]) == 0 and row["submitted"] == "no"
        for row in rows
        if (row["assignment"], row["student_id"]) not in submitted
    )
    assert all(row["submitted"] == "yes" for row in rows if (row["assignment"], row["student_id"]) in submitted)
    with breakdown.open() as handle:
        questions = list(csv.DictReader(handle))
    entry = get(ASSIGNMENTS[0]).mistakes()[0]
    student = graded_class.holder(ASSIGNMENTS[0], entry.id).student
    named = [q for q in questions if q["student_id"] == student and q["grade_id"] == entry.function]
    assert named and entry.id in named[0]["misconceptions"].split()
    html = report.write_html(classdata.load(root), root / "reports" / "class.html").read_text()
    assert html.count("<img") >= len(ASSIGNMENTS)
    assert all(assignment in html for assignment in ASSIGNMENTS)
