"""Points that await a TA (written answers, flagged cells no TA has graded yet) are a category of
their own: never lost, never "outside the catalogue", apart from the autograded points and those a
TA gave, in the score table, the statistics, the class report and the grade sheets.

In-memory class data (no nbgrader run)."""

from __future__ import annotations

import csv
import re

import pytest

from autograder.labels import label
from autograder.reporting import classdata, report
from autograder.reporting.classdata import ClassData, Row, points
from autograder.reporting.exports import export
from autograder.reporting.stats import question_stats

A = "a1"
#: ref: every autograded point, two written answers waiting (3 points); stu: a catalogued mistake,
#: a crash outside the catalogue, a written answer a TA graded and one waiting; stub: nothing started.
ROWS = [
    Row("ref", A, "q1", 2.0, 2.0),
    Row("ref", A, "q2", 3.0, 3.0),
    Row("ref", A, "w1", 0.0, 1.0, needs_manual=True),
    Row("ref", A, "w2", 0.0, 2.0, needs_manual=True),
    Row("stu", A, "q1", 1.0, 2.0, ["m1"]),
    Row("stu", A, "q2", 0.0, 3.0),
    Row("stu", A, "w1", 1.0, 1.0, by_ta=True),
    Row("stu", A, "w2", 0.0, 2.0, needs_manual=True),
    Row("stub", A, "q1", 0.0, 2.0, not_started=True),
    Row("stub", A, "q2", 0.0, 3.0, not_started=True),
    Row("stub", A, "w1", 0.0, 1.0, needs_manual=True),
    Row("stub", A, "w2", 0.0, 2.0, needs_manual=True),
]


@pytest.fixture
def data() -> ClassData:
    return ClassData.from_rows(ROWS)


def _lines(table: str) -> dict[str, list[str]]:
    return {line.split()[0]: line.split() for line in table.splitlines()[1:]}


def test_a_row_awaiting_a_ta_loses_nothing_and_its_points_are_apart():
    waiting, by_ta, auto = ROWS[2], ROWS[6], ROWS[5]
    assert (waiting.lost, waiting.awaiting) == (0.0, 1.0)
    assert (by_ta.lost, by_ta.awaiting, auto.lost, auto.awaiting) == (0.0, 0.0, 3.0, 0.0)
    found = points(ROWS)
    assert found[(A, "ref")] == classdata.Points(5.0, 5.0, 0.0, 0.0, 3.0)
    assert found[(A, "stu")] == classdata.Points(1.0, 5.0, 1.0, 1.0, 2.0)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_reference_reads_full_marks_of_the_autograded_points_with_its_pending_points_apart(data, monkeypatch, lang):
    monkeypatch.setenv("COURSE_LANG", lang)
    cells = _lines(report.score_table(ROWS))
    assert cells["ref"][2:] == ["5.00/5.0", "-", "3.0", "-"]  # autograded x/y, by a TA, awaiting a TA, misconceptions
    assert cells["stu"][2:] == ["1.00/5.0", "1.00/1.0", "2.0", "m1"]
    assert report.score_table(ROWS).splitlines()[0].split()[:2] == [label("table.student"), label("table.assignment")]
    whole = _lines(report.score_table(data))
    assert whole["ref"][2:] == [label("table.state.graded"), "5.00", "0.00", "5.00", "-", "5.00/5.0", "-", "3.0", "-"]
    assert whole["stub"][-4:] == ["0.00/5.0", "-", "3.0", "-"]
    for table in (report.score_table(ROWS), report.score_table(data)):
        assert (
            len({line.index("3.0") + 3 for line in table.splitlines()[1:] if line.split()[0] in ("ref", "stub")}) == 1
        )  # aligned


def test_pending_points_are_never_lost_nor_outside_the_catalogue(data):
    stats = {q.grade_id: q for q in question_stats(data, A)}
    w1, w2, q2 = stats["w1"], stats["w2"], stats["q2"]
    assert (w1.lost, w1.lost_uncatalogued, w1.uncatalogued, w1.awaiting, w1.points_awaiting) == (
        0.0,
        0.0,
        (),
        ("ref", "stub"),
        2.0,
    )
    assert (w1.graded, w1.mean, w1.full_marks, w1.full_share, w1.zeros) == (1, 1.0, 1, 1.0, 0)  # stu's, graded by a TA
    assert (w2.lost, w2.uncatalogued, w2.awaiting, w2.points_awaiting) == (0.0, (), ("ref", "stu", "stub"), 6.0)
    assert (w2.mean, w2.full_share, w2.zeros) == (None, None, 0)  # nothing graded yet: no mean, not three zeros
    assert (q2.uncatalogued, q2.lost_uncatalogued, q2.not_started, q2.awaiting) == (("stu",), 3.0, ("stub",), ())


def _row(page: str, grade_id: str) -> str:
    (row,) = re.findall(rf'<tr><td class="id">{grade_id}</td>.*?</tr>', page)
    return row


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_report_shows_pending_points_apart_in_its_facts_its_questions_and_its_students(data, monkeypatch, lang):
    monkeypatch.setenv("COURSE_LANG", lang)
    page = report.render(data)
    assert f"<li>{label('report.fact.awaiting', points='<b>8</b>', count='3', cells='5')}</li>" in page
    assert f"<li>{label('report.fact.full_of_graded', count='<b>1</b>')}</li>" in page  # ref, of the points graded
    w2 = _row(page, "w2")
    assert re.findall(r'<td class="who">(.*?)</td>', w2) == ["&ndash;", "&ndash;"]  # nobody named outside the catalogue
    assert re.findall(r'<td class="num"[^>]*>([^<]*)</td>', w2) == [
        "2",
        "&ndash;",
        "&ndash;",
        "&ndash;",
        "&ndash;",
        "0",
        "0.00",
        "0.00",
        "0.00",
        "6.00 (3)",
    ]  # no mean, facility, discrimination nor share
    assert label("report.col.awaiting") in page
    students = page[page.index('<h2 id="students">') :]
    (ref,) = re.findall(r'<tr><td class="id">ref</td>(<td.*?</td>)<td', students)
    assert 'style="background: hsl(120, 60%, 88%)"' in ref and ">5.00<" in ref  # full marks of the points graded
    assert label("report.cell.awaiting", points="3") in ref


def _sheet(path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_the_sheets_that_sum_points_have_a_column_for_those_awaiting_a_ta(data, tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_LANG", "en")
    monkeypatch.setattr(classdata, "load", lambda root, students=None: data)
    sheets = export(tmp_path, tmp_path / "out")
    grades = {r["student_id"]: r for r in _sheet(sheets.grades)}
    assert {s: (r["final_score"], r["points_awaiting_ta"], r["max_score"]) for s, r in grades.items()} == {
        "ref": ("5.00", "3.00", "8.00"),
        "stu": ("2.00", "2.00", "8.00"),
        "stub": ("0.00", "3.00", "8.00"),
    }
    scores = {r["student_id"]: r for r in _sheet(sheets.scores)}
    assert {s: (r["total"], r["points_awaiting_ta"], r[f"{A} points_awaiting_ta"]) for s, r in scores.items()} == {
        "ref": ("5.00", "3.00", "3.00"),
        "stu": ("2.00", "2.00", "2.00"),
        "stub": ("0.00", "3.00", "3.00"),
    }
    stats = {r["grade_id"]: r for r in _sheet(sheets.question_stats)}
    assert {
        g: (
            r["points_lost"],
            r["points_lost_uncatalogued"],
            r["points_awaiting_ta"],
            r["students_awaiting_ta"],
            r["mean"],
        )
        for g, r in stats.items()
    } == {
        "q1": ("3.00", "0.00", "0.00", "0", "1.00"),
        "q2": ("6.00", "3.00", "0.00", "0", "1.00"),
        "w1": ("0.00", "0.00", "2.00", "2", "1.00"),
        "w2": ("0.00", "0.00", "6.00", "3", ""),
    }
    with sheets.canvas.open(encoding="utf-8") as handle:
        assert "awaiting" not in handle.readline()  # Canvas would import any other column as an assignment
