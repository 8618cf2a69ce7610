"""What a student's HTML does in the pages people open, in a real browser (tests/browser.py): the
feedback page and formgrader's submission view of the shared graded class. `html-injector`
(tests/hostile.py) writes markdown and outputs whose script, when it runs, appends its name to
`window.<SCRIPT_FLAG>`; a plain unsanitised render of the submission shows that it would. And a TA's
manual score and comment, typed into formgrader, reaching the gradebook, the feedback, the exports and
the class report (in a copy of the class: the other tests check the shared class's scores)."""

from __future__ import annotations

import csv
import itertools
import json
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from nbconvert import HTMLExporter
from nbconvert.filters.markdown_mistune import markdown2html_mistune
from nbgrader.api import Gradebook

from autograder.assignments import get
from autograder.authoring import build
from autograder.commands.course import feedback, nbgrader_env
from autograder.coursedir import config
from autograder.labels import label
from autograder.reporting import classdata, report
from autograder.reporting.exports import export

from .. import hostile
from ..browser import LOAD_MS, browser_test, login, start_server, visit
from ..classroom import copy_class
from ..conftest import ASSIGNMENTS, make_course
from ..intake.test_escape import feedback_html, refusal_comment

pytestmark = [
    pytest.mark.nbgrader,
    pytest.mark.skipif(
        hostile.ASSIGNMENT not in ASSIGNMENTS, reason=f"TEST_ASSIGNMENTS leaves out {hostile.ASSIGNMENT}"
    ),
]

A, INJECTOR, FLAG = hostile.ASSIGNMENT, "html-injector", hostile.SCRIPT_FLAG
#: How many of the listed submissions the last test opens in formgrader (in student order).
OPENED = 16


def _submission_ids(root) -> dict[str, str]:
    """student -> formgrader's submission notebook id, for every submission of `A` in the gradebook."""
    with Gradebook(config.database_url(root, config.load(root))) as gradebook:
        return {s.student.id: s.id for s in gradebook.notebook_submissions(A, A)}


def _grade_cells(page) -> dict[str, tuple[str, str]]:
    """grade id -> (score shown, text of the cell) of formgrader's grade cells, once its scripts showed
    the scores (a manual score in the box, else the autograded one as its placeholder)."""
    page.wait_for_function(
        "() => window.formgrader && formgrader.grades && formgrader.grades.loaded"
        " && document.querySelectorAll('input.score').length > 0",
        timeout=15_000,
    )
    cells = page.evaluate(
        "() => [...document.querySelectorAll('input.score')]"
        ".map(i => [i.id, i.value || i.placeholder, i.closest('div.cell').innerText])"
    )
    return {grade_id: (shown, text) for grade_id, shown, text in cells}


def _rubric_start(grade_id: str) -> str:
    """The first words of a written answer's rubric, up to its first formula, as a page shows them once
    MathJax has drawn the formulas (formgrader's MathJax comes from the course's own server)."""
    words = list(
        itertools.takewhile(lambda w: "$" not in w and "\\" not in w, build.rubric(get(A), grade_id, "en").split())
    )
    assert len(words) >= 3, f"{grade_id}: its rubric starts with a formula: compare other words"
    return " ".join(words[:8])


def _reports(root, student: str) -> dict[str, str]:
    """grade id -> first line of the grader's report in the autograded notebook's grade cell."""
    notebook = nbformat.read(root / "autograded" / student / A / f"{A}.ipynb", as_version=4)
    return {
        cell.metadata.nbgrader.grade_id: next(o.text for o in cell.outputs if o.output_type == "stream").splitlines()[0]
        for cell in notebook.cells
        if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("grade")
    }


@pytest.fixture(scope="module")
def feedback_page(graded_class):
    """The feedback page of html-injector, written by the course's `feedback`."""
    feedback(graded_class.root, [A], students=[INJECTOR])
    return graded_class.root / "feedback" / INJECTOR / A / f"{A}.html"


def _assert_no_student_script(seen, where: str) -> None:
    assert seen.flag is None, f"student script ran in {where}: {seen.flag}"
    assert not seen.dialogs, f"student script opened dialogs in {where}: {seen.dialogs}"


@browser_test
def test_positive_control_an_unsanitised_render_of_the_submission_runs_its_script(graded_class, context, tmp_path):
    html, _ = HTMLExporter(sanitize_html=False).from_filename(
        str(graded_class.root / "submitted" / INJECTOR / A / f"{A}.ipynb")
    )
    page = tmp_path / "plain.html"
    page.write_text(html, encoding="utf-8")
    seen = visit(context, page.as_uri(), FLAG)
    assert seen.flag, "the harness saw no student script in a plain nbconvert render: it could not see one elsewhere"


@browser_test
def test_the_feedback_page_opened_as_a_file_runs_no_student_script(feedback_page, context):
    seen = visit(context, feedback_page.as_uri(), FLAG)
    assert "bptt_scalar" in seen.text and "Score:" in seen.text, seen.text[:2000]
    _assert_no_student_script(seen, "the feedback page (file://)")


@browser_test
def test_the_feedback_page_served_by_jupyter_runs_no_student_script(feedback_page, served_class, instructor):
    path = feedback_page.relative_to(served_class.root).as_posix()
    seen = visit(instructor, f"{served_class.url}/files/{path}", FLAG, referer=f"{served_class.url}/tree")
    assert seen.status == 200 and "bptt_scalar" in seen.text, (
        f"{seen.status}: {seen.text[:2000]}\n{served_class.tail()}"
    )
    _assert_no_student_script(seen, "the feedback page served by Jupyter")


@browser_test
def test_formgrader_shows_the_graders_report_and_score_in_each_grade_cell(graded_class, served_class, instructor):
    sid = _submission_ids(graded_class.root)[INJECTOR]
    seen = visit(instructor, f"{served_class.url}/formgrader/submissions/{sid}/", FLAG, read=_grade_cells)
    assert seen.status == 200, served_class.tail()
    assert 'id="toc"' not in served_class.get(f"/formgrader/submissions/{sid}/")[1], (
        "formgrader rendered the feedback template"
    )
    rows = graded_class.rows(A, INJECTOR)
    scores = {grade_id: row.score for grade_id, row in rows.items() if not row.needs_manual}
    reports = _reports(graded_class.root, INJECTOR)
    written = {answer.name for answer in get(A).written}
    assert set(seen.read) == set(rows) == set(reports) | written and "bptt_scalar" in reports
    for grade_id, (shown, text) in seen.read.items():
        if grade_id in written:  # no score until a TA gives one; the rubric below the answer
            assert shown == "" and rows[grade_id].needs_manual, (grade_id, shown)
        else:
            assert reports[grade_id] in text and float(shown) == pytest.approx(scores[grade_id]), (
                grade_id,
                shown,
                text[:500],
            )
    for grade_id in written:
        assert _rubric_start(grade_id) in " ".join(seen.text.split()), grade_id


@browser_test
def test_formgrader_runs_no_student_script(graded_class, served_class, instructor):
    sid = _submission_ids(graded_class.root)[INJECTOR]
    seen = visit(instructor, f"{served_class.url}/formgrader/submissions/{sid}/", FLAG)
    assert seen.status == 200 and "bptt_scalar" in seen.text, (
        f"{seen.status}: {seen.text[:2000]}\n{served_class.tail()}"
    )
    _assert_no_student_script(seen, "formgrader's submission view")


def test_formgrader_lists_every_autograded_submission_and_opens_them(graded_class, served_class):
    status, body = served_class.get(f"/formgrader/api/submitted_notebooks/{A}/{A}")
    assert status == 200, f"{status}: {body[-2000:]}\n{served_class.tail()}"
    listed = {s["student"]: s["id"] for s in json.loads(body)}
    autograded = {p.parent.parent.name for p in (graded_class.root / "autograded").glob(f"*/{A}/{A}.ipynb")}
    assert set(listed) == autograded and INJECTOR in listed
    failed = {}
    for student in sorted(listed)[:OPENED]:  # about 0.5 s a view: a sample keeps the test short
        status, body = served_class.get(f"/formgrader/submissions/{listed[student]}/", timeout=30)
        if status != 200 or 'class="score' not in body:
            failed[student] = f"{status}: {body[-300:]}"
    assert not failed, f"{failed}\n{served_class.tail()}"


@browser_test
def test_a_comment_naming_a_hostile_file_runs_no_script_on_the_served_feedback_page(context, tmp_path, monkeypatch):
    """A refused hand-in's reasons, the gradebook comment of the student's earlier submission, on the
    course's feedback page served by Jupyter: a file named as an `<img onerror>` is shown as written
    and runs nothing there, nor in the same comment as plain markdown (nbgrader's own feedback
    template), since each name is a code span; the name alone as plain markdown runs its script."""
    monkeypatch.setenv("PATH", nbgrader_env()["PATH"])  # a new gradebook asks `alembic` for its version
    names = [
        f"<img src=x onerror=Object.assign(window,{{{FLAG}:[1]}})>.txt",
        "\x1b]0;pwned\x07",
        "\u202egnp.exe",
    ]  # raw HTML to markdown
    comment, _ = refusal_comment(tmp_path, names)
    root = make_course(tmp_path / "course", [])
    pages = root / "feedback" / "mallory" / A
    pages.mkdir(parents=True)
    (pages / "course.html").write_text(feedback_html(root, comment), encoding="utf-8")
    (pages / "plain.html").write_text(f"<html><body>{markdown2html_mistune(comment)}</body></html>", encoding="utf-8")
    (pages / "raw.html").write_text(f"<html><body>{markdown2html_mistune(names[0])}</body></html>", encoding="utf-8")
    server = start_server(root, tmp_path / "jupyter")
    try:
        login(context, server)
        raw, plain, course = [
            visit(context, f"{server.url}/files/feedback/mallory/{A}/{page}", FLAG, referer=f"{server.url}/tree")
            for page in ("raw.html", "plain.html", "course.html")
        ]
    finally:
        server.stop()
    assert raw.flag == [1], "the harness saw no script in the file name rendered as plain markdown"
    for visited in (plain, course):
        assert (
            visited.status == 200
            and names[0] in visited.text
            and "'\\x1b]0;pwned\\x07' is a symbolic link" in visited.text
        ), visited.text[:2000]
    _assert_no_student_script(plain, "the comment in nbgrader's own feedback template (plain markdown)")
    _assert_no_student_script(course, "a comment on the course's feedback page")


# ---------------------------------------------------------------------------------------------
# Manual grading: a TA's score and comment, from formgrader's submission view to every output

#: The honest student (full marks) a TA marks down on one check, and that check's solution cell.
TA_STUDENT, TA_CHECK, TA_SOLUTION = "honest-b", "bptt_scalar", "solution-bptt_scalar"
#: How long formgrader may take to load the grades and comments of a view, or to save one (ms).
SAVE_MS = 10_000


@dataclass(frozen=True)
class _Marked:
    """One grade cell and one comment of a submission as the gradebook holds them."""

    auto: float | None
    manual: float | None
    score: float
    max_score: float
    comment: str | None
    total: float


def _marked(root: Path, student: str) -> _Marked:
    with Gradebook(config.database_url(root, config.load(root))) as gradebook:
        grade = gradebook.find_grade(TA_CHECK, A, A, student)
        comment = gradebook.find_comment(TA_SOLUTION, A, A, student)
        return _Marked(
            grade.auto_score,
            grade.manual_score,
            grade.score,
            grade.max_score,
            comment.manual_comment,
            gradebook.find_submission(A, student).score,
        )


def _wait_for_formgrader(page) -> None:
    """Until formgrader's scripts loaded the grades and comments of the view into its boxes."""
    page.wait_for_function(
        "() => window.formgrader && formgrader.grades && formgrader.grades.loaded"
        " && formgrader.comments && formgrader.comments.loaded",
        timeout=SAVE_MS,
    )


def _save(page, box, text: str, api: str) -> dict:
    """Type `text` into `box` and Tab out of it, as a TA does; return what formgrader's PUT to its
    `api` (grade or comment) answered, once it has."""
    with page.expect_response(
        lambda r: r.request.method == "PUT" and f"/formgrader/api/{api}/" in r.url, timeout=SAVE_MS
    ) as saved:
        box.click()
        box.fill(text)
        box.press("Tab")
    response = saved.value
    assert response.ok, f"formgrader's save of the {api} answered {response.status}: {response.text()[:500]}"
    return response.json()


def _read_csv(path: Path) -> list[dict]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


@browser_test
def test_a_score_and_comment_given_in_formgrader_reach_the_gradebook_feedback_exports_and_report(
    graded_class, context, tmp_path
):
    root = copy_class(graded_class.root, tmp_path / "course")
    before = _marked(root, TA_STUDENT)
    score = before.max_score / 2  # honest-b has full marks: a TA takes half of this check's points
    assert before.manual is None and not before.comment and before.auto == before.score == before.max_score != score, (
        before
    )
    (written,) = get(A).written  # the written answer a TA grades beside its rubric
    total = before.total - before.score + score + written.points
    typed, note = f"{score:g}", f"TA {TA_STUDENT}: half marks, the sum over time steps needs a word of explanation"
    reason = f"TA {TA_STUDENT}: the four edges are counted rightly"
    sid = _submission_ids(root)[TA_STUDENT]
    server = start_server(root, tmp_path / "jupyter")
    try:
        login(context, server)
        page = context.new_page()
        url = f"{server.url}/formgrader/submissions/{sid}/"
        assert page.goto(url, timeout=LOAD_MS).status == 200, server.tail()
        _wait_for_formgrader(page)
        box, comment_box = (
            page.locator(f"input.score#{TA_CHECK}"),
            page.locator(f"textarea.comment#{TA_SOLUTION}-comment"),
        )
        assert (
            box.input_value() == "" and box.get_attribute("placeholder") == f"{before.auto:g}"
        )  # the autograded score
        assert float(_save(page, box, typed, "grade")["manual_score"]) == score
        assert _save(page, comment_box, note, "comment")["manual_comment"] == note
        answer = page.locator(f"input.score#{written.name}")  # no autograded score; the rubric right below the answer
        assert answer.input_value() == "" and not answer.get_attribute("placeholder")
        rubric = page.locator("div.cell", has_text=label("written.rubric").strip("*")).first.inner_text()
        assert _rubric_start(written.name) in " ".join(rubric.split()), rubric[:500]
        assert float(_save(page, answer, f"{written.points:g}", "grade")["manual_score"]) == written.points
        assert (
            _save(page, page.locator(f"textarea.comment#{written.name}-comment"), reason, "comment")["manual_comment"]
            == reason
        )
        page.reload(timeout=LOAD_MS)
        _wait_for_formgrader(page)
        kept = (box.input_value(), comment_box.input_value())
        page.close()
    finally:
        server.stop()
    assert float(kept[0]) == score and kept[1] == note, f"formgrader showed {kept} after a reload"
    after = _marked(root, TA_STUDENT)
    assert (after.manual, after.score, after.comment) == (score, score, note) and after.total == pytest.approx(total), (
        after
    )
    assert after.auto == before.auto  # the autograded score stays beside the manual one

    feedback(root, [A], students=[TA_STUDENT])
    page_html = (root / "feedback" / TA_STUDENT / A / f"{A}.html").read_text(encoding="utf-8")
    heading = re.search(r"\(Score: ([\d.]+) / ([\d.]+)\)</h1>", page_html)
    assert heading and float(heading[1]) == pytest.approx(total), heading and heading[0]
    check = re.search(rf'<a href="#{TA_CHECK}"><code>{TA_CHECK}</code></a> \(Score: ([\d.]+) / ([\d.]+)\)', page_html)
    assert check and (float(check[1]), float(check[2])) == (score, before.max_score), check and check[0]
    assert re.search(r"<b>Comments:</b>\s*<p>" + re.escape(note) + "</p>", page_html), (
        "the TA's comment is not in the feedback"
    )
    text = " ".join(
        re.sub(r"<[^>]+>", " ", page_html).split()
    )  # the written answer's score, the TA's comment and the rubric
    assert reason in text and " ".join(build.rubric(get(A), written.name, "en").split()[:8]) in text
    assert re.search(
        rf"<code>{written.name}</code></a> \(Score: {written.points:.1f} / {written.points:.1f}\)", page_html
    )

    sheets = export(root, tmp_path / "exports")
    (graded,) = [r for r in _read_csv(sheets.grades) if (r["assignment"], r["student_id"]) == (A, TA_STUDENT)]
    (wide,) = [r for r in _read_csv(sheets.scores) if r["student_id"] == TA_STUDENT]
    (cell,) = [
        r
        for r in _read_csv(sheets.questions)
        if (r["assignment"], r["student_id"], r["grade_id"]) == (A, TA_STUDENT, TA_CHECK)
    ]
    assert (graded["raw_score"], graded["final_score"], graded["state"]) == (
        f"{total:.2f}",
        f"{total:.2f}",
        "graded",
    ), graded
    assert (wide[A], wide["total"]) == (f"{total:.2f}",) * 2, wide
    assert (cell["score"], cell["max_score"]) == (f"{score:.2f}", f"{before.max_score:.2f}"), cell

    data = classdata.load(root)
    assert data.submissions[(A, TA_STUDENT)].score == pytest.approx(total)
    html_text = report.write_html(data, tmp_path / "report.html").read_text(encoding="utf-8")
    row = re.search(rf'<tr><td class="id">{re.escape(TA_STUDENT)}</td>(.*?)</tr>', html_text)
    assert row, "the class report has no row for the student"
    assert re.findall(r">([\d.]+)</(?:b|td)>", row[1]) == [f"{total:.2f}"] * 2, row[
        0
    ]  # the assignment's column, then the total
    assert "&#9998;" not in row[0]  # graded by hand now: no longer marked as waiting for a TA
