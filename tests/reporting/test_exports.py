"""The grade sheets: rounded and sorted, "not submitted" told apart from 0, one row per student,
the points awaiting a TA apart from those lost, a Canvas import and the per-question sheets, all
from the one graded class."""

import csv
import re

import pytest

from autograder.assignments import get
from autograder.commands import cli
from autograder.reporting import classdata
from autograder.reporting.exports import export

from ..conftest import ASSIGNMENTS

pytestmark = pytest.mark.nbgrader

POINTS = re.compile(r"^\d+\.\d\d$")


def _read(path):
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def sheets(graded_class, tmp_path_factory):
    return export(graded_class.root, tmp_path_factory.mktemp("exports"))


@pytest.fixture(scope="module")
def students(graded_class):
    return sorted({student for (_, student) in graded_class.table})


@pytest.fixture(scope="module")
def data(graded_class):
    return classdata.load(graded_class.root)


def _total(graded_class, assignment, student):
    rows = graded_class.table[(assignment, student)].values()
    return sum(row.score for row in rows), sum(row.max_score for row in rows)


def test_grades_csv_is_rounded_sorted_and_tells_not_submitted_from_zero(graded_class, sheets, students, data):
    rows = _read(sheets.grades)
    assert list(rows[0]) == [
        "assignment",
        "duedate",
        "timestamp",
        "student_id",
        "last_name",
        "first_name",
        "email",
        "submitted",
        "state",
        "attempt",
        "attempts",
        "days_late",
        "late_days_used",
        "extended_until",
        "extra_attempts",
        "extra_late_days",
        "closes",
        "raw_score",
        "late_submission_penalty",
        "final_score",
        "points_awaiting_ta",
        "max_score",
        "reason",
    ]
    assert [(r["assignment"], r["student_id"]) for r in rows] == [(a, s) for a in ASSIGNMENTS for s in students]
    for row in rows:
        assert all(
            POINTS.match(row[key])
            for key in ("raw_score", "late_submission_penalty", "final_score", "points_awaiting_ta", "max_score")
        ), row
        cells = graded_class.table.get((row["assignment"], row["student_id"]), {}).values()
        assert row["points_awaiting_ta"] == f"{sum(cell.max_score for cell in cells if cell.needs_manual):.2f}"
        handed_in = (row["assignment"], row["student_id"]) in graded_class.table
        assert row["submitted"] == ("yes" if handed_in else "no")
        sub = data.submissions.get((row["assignment"], row["student_id"]))
        assert row["state"] == (sub.state if sub else "not_submitted")
        score, maximum = _total(graded_class, row["assignment"], row["student_id"]) if handed_in else (0.0, None)
        assert row["final_score"] == f"{score:.2f}" and row["raw_score"] == f"{score:.2f}"  # no due dates: no penalty
        assert (row["late_submission_penalty"], row["days_late"]) == ("0.00", "0")
        if maximum is not None:
            assert row["max_score"] == f"{maximum:.2f}"
        if row["state"] == "graded":  # the ledger's attempts (a test of the shared class may hand in again)
            assert 1 <= int(row["attempt"]) <= int(row["attempts"]) and row["reason"] == "", row
        elif row["state"] == "refused":
            assert row["reason"] == sub.failed != "", row
    assert {r["state"] for r in rows} >= {"graded"}
    if len(ASSIGNMENTS) > 1:
        assert {r["submitted"] for r in rows} == {"yes", "no"}  # a mutant hands in one assignment only
        assert "not_submitted" in {r["state"] for r in rows}


def test_scores_csv_has_one_row_per_student_a_column_per_assignment_and_the_total(graded_class, sheets, students, data):
    rows = _read(sheets.scores)
    assert list(rows[0]) == [
        "student_id",
        "last_name",
        "first_name",
        "email",
        *ASSIGNMENTS,
        "total",
        "max_total",
        "points_awaiting_ta",
        "not_submitted",
        "received",
        "refused",
        "late",
        *(f"{a} raw_score" for a in ASSIGNMENTS),
        *(f"{a} late_submission_penalty" for a in ASSIGNMENTS),
        *(f"{a} points_awaiting_ta" for a in ASSIGNMENTS),
    ]
    assert [r["student_id"] for r in rows] == students
    for row in rows:
        missing = [a for a in ASSIGNMENTS if (a, row["student_id"]) not in graded_class.table]
        ungraded = [
            a
            for a in ASSIGNMENTS
            if (a, row["student_id"]) in graded_class.table and not data.submissions[(a, row["student_id"])].graded
        ]  # refused before any grade
        assert [a for a in ASSIGNMENTS if row[a] == ""] == sorted(missing + ungraded, key=ASSIGNMENTS.index)
        assert missing == row["not_submitted"].split()
        assert row["refused"].split() == [a for a in ASSIGNMENTS if data.state(a, row["student_id"]) == "refused"]
        assert row["received"] == row["late"] == ""
        for assignment in set(ASSIGNMENTS) - set(missing) - set(ungraded):
            assert (
                row[assignment]
                == row[f"{assignment} raw_score"]
                == f"{_total(graded_class, assignment, row['student_id'])[0]:.2f}"
            )
            assert row[f"{assignment} late_submission_penalty"] == "0.00"
        assert float(row["total"]) == pytest.approx(
            sum(float(row[a] or 0) for a in ASSIGNMENTS), abs=0.01 * len(ASSIGNMENTS)
        )
    reference = next(
        r for r in rows if r["student_id"] == "reference"
    )  # full marks but the written answers, left to a TA
    by_hand = {a: sum(answer.points for answer in get(a).written) for a in ASSIGNMENTS}
    assert float(reference["total"]) == pytest.approx(float(reference["max_total"]) - sum(by_hand.values()))
    assert reference["points_awaiting_ta"] == f"{sum(by_hand.values()):.2f}"
    assert [reference[f"{a} points_awaiting_ta"] for a in ASSIGNMENTS] == [f"{by_hand[a]:.2f}" for a in ASSIGNMENTS]


def test_canvas_csv_has_the_import_columns_points_possible_and_blank_for_not_submitted(sheets, students):
    with sheets.canvas.open(newline="", encoding="utf-8") as handle:
        header, possible, *rows = list(csv.reader(handle))
    assert header == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", *ASSIGNMENTS]
    wide = {r["student_id"]: r for r in _read(sheets.scores)}
    assert possible[0] == "Points Possible" and all(POINTS.match(value) for value in possible[5:])
    assert sorted(row[3] for row in rows) == students
    for row in rows:
        assert row[5:] == [wide[row[3]][a] for a in ASSIGNMENTS]


def test_questions_csv_has_every_graded_cell_with_the_misconceptions_named(graded_class, sheets):
    rows = _read(sheets.questions)
    assert list(rows[0]) == [
        "assignment",
        "student_id",
        "grade_id",
        "score",
        "max_score",
        "misconceptions",
        "cases_passed",
        "cases",
    ]
    assert len(rows) == sum(len(cells) for cells in graded_class.table.values())
    keys = [(ASSIGNMENTS.index(r["assignment"]), r["student_id"]) for r in rows]
    assert keys == sorted(keys)
    assert all(POINTS.match(r["score"]) and POINTS.match(r["max_score"]) for r in rows)
    for entry in (m for m in get(ASSIGNMENTS[0]).mistakes() if get(ASSIGNMENTS[0]).check(m.function).graded):
        student = graded_class.holder(ASSIGNMENTS[0], entry.id).student
        (named,) = [
            r
            for r in rows
            if (r["assignment"], r["student_id"], r["grade_id"]) == (ASSIGNMENTS[0], student, entry.function)
        ]
        assert entry.id in named["misconceptions"].split()
    written = {answer.name for a in ASSIGNMENTS for answer in get(a).written}
    reference = [r for r in rows if r["student_id"] == "reference"]
    assert reference and all(r["cases_passed"] == r["cases"] != "" for r in reference if r["grade_id"] not in written)
    assert all(r["cases"] == "" and float(r["score"]) == 0 for r in reference if r["grade_id"] in written)


def test_question_stats_agree_with_the_per_question_sheet(sheets, graded_class, data):
    cells = {}
    for row in _read(sheets.questions):
        if data.submissions[
            (row["assignment"], row["student_id"])
        ].graded:  # a hand-in refused before any grade counts in no statistic
            cells.setdefault((row["assignment"], row["grade_id"]), []).append(row)
    stats = _read(sheets.question_stats)
    assert list(stats[0])[-4:] == ["points_awaiting_ta", "students_awaiting_ta", "facility", "discrimination"]
    assert {(s["assignment"], s["grade_id"]) for s in stats} == set(cells)
    for stat in stats:
        every = cells[(stat["assignment"], stat["grade_id"])]
        waiting = [
            r for r in every if graded_class.table[(r["assignment"], r["student_id"])][r["grade_id"]].needs_manual
        ]
        rows = [r for r in every if r not in waiting]  # a cell awaiting a TA is neither lost nor in the mean
        scores = [float(r["score"]) for r in rows]
        assert int(stat["submissions"]) == len(every)
        assert (int(stat["students_awaiting_ta"]), float(stat["points_awaiting_ta"])) == (
            len(waiting),
            pytest.approx(sum(float(r["max_score"]) for r in waiting)),
        )
        if rows:
            assert float(stat["mean"]) == pytest.approx(sum(scores) / len(scores), abs=0.006)
        else:
            assert stat["mean"] == stat["full_marks_share"] == ""
        _item_analysis_agrees(stat, rows, cells, graded_class)
        assert int(stat["full_marks"]) == sum(1 for r in rows if r["score"] == r["max_score"])
        assert int(stat["zeros"]) == sum(1 for s in scores if s == 0)
        assert float(stat["points_lost"]) == pytest.approx(
            sum(float(r["max_score"]) - float(r["score"]) for r in rows), abs=0.01 * len(every)
        )
        idle = {
            student
            for (a, student), cells in graded_class.table.items()
            if a == stat["assignment"] and stat["grade_id"] in cells and cells[stat["grade_id"]].not_started
        }
        outside = [
            r
            for r in rows
            if r["misconceptions"] == "" and r["score"] != r["max_score"] and r["student_id"] not in idle
        ]
        assert int(stat["students_uncatalogued"]) == len(outside)
        assert float(stat["points_lost_uncatalogued"]) == pytest.approx(
            sum(float(r["max_score"]) - float(r["score"]) for r in outside), abs=0.01 * len(rows)
        )
        assert int(stat["students_not_started"]) == len(idle)
        assert float(stat["points_lost_not_started"]) == pytest.approx(
            sum(float(r["max_score"]) - float(r["score"]) for r in rows if r["student_id"] in idle),
            abs=0.01 * len(rows),
        )
        if stat["grade_id"] in {
            check.name for check in get(stat["assignment"]).graded
        }:  # the untouched stub loses every point and is "not started", not "outside the catalogue"
            assert "stub" in idle and "stub" not in {r["student_id"] for r in outside}
        if stat["grade_id"] in {
            answer.name for answer in get(stat["assignment"]).written
        }:  # every written answer waits for a TA
            assert rows == [] and stat["points_lost"] == stat["points_lost_uncatalogued"] == "0.00"


def test_export_takes_students_on_the_command_line(graded_class, tmp_path, capsys):
    assert (
        cli.main(
            [
                "--root",
                str(graded_class.root),
                "export",
                "--out",
                str(tmp_path),
                "--student",
                "stub",
                "--student",
                "reference",
            ]
        )
        == 0
    )
    assert [r["student_id"] for r in _read(tmp_path / "scores.csv")] == ["reference", "stub"]
    assert {r["student_id"] for r in _read(tmp_path / "grades.csv")} == {"reference", "stub"}
    assert {r["student_id"] for r in _read(tmp_path / "questions.csv")} == {"reference", "stub"}
    assert str(tmp_path / "canvas.csv") in capsys.readouterr().out
    with pytest.raises(SystemExit, match="nobody"):
        cli.main(["--root", str(graded_class.root), "export", "--out", str(tmp_path / "no"), "--student", "nobody"])
    assert not (tmp_path / "no").exists()


def test_chinese_headers_leave_every_value_as_it_was(graded_class, sheets, tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_LANG", "zh")
    chinese = export(graded_class.root, tmp_path)
    headers = {}
    for english_path, chinese_path in zip(sheets, chinese):
        assert english_path.name == chinese_path.name
        with english_path.open(newline="", encoding="utf-8") as e, chinese_path.open(newline="", encoding="utf-8") as c:
            english, ours = list(csv.reader(e)), list(csv.reader(c))
        assert ours[1:] == english[1:] and len(ours) > 1, chinese_path.name
        headers[chinese_path.name] = ours[0]
    assert chinese.canvas.read_bytes() == sheets.canvas.read_bytes()  # Canvas's importer fixes its columns
    assert headers["grades.csv"] == [
        "作业",
        "截止时间",
        "提交时间",
        "学号",
        "姓",
        "名",
        "邮箱",
        "已提交",
        "状态",
        "第几次提交",
        "提交次数",
        "迟交天数",
        "抵用的迟交天数",
        "延期至",
        "额外提交次数",
        "额外迟交天数",
        "截止收取时间",
        "原始分",
        "迟交罚分",
        "最终成绩",
        "待人工评分的分值",
        "满分",
        "原因",
    ]
    assert headers["scores.csv"] == [
        "学号",
        "姓",
        "名",
        "邮箱",
        *ASSIGNMENTS,
        "总分",
        "满分合计",
        "待人工评分的分值",
        "未提交的作业",
        "已收到未评分的作业",
        "被拒收的作业",
        "迟交的作业",
        *(f"{a} 原始分" for a in ASSIGNMENTS),
        *(f"{a} 迟交罚分" for a in ASSIGNMENTS),
        *(f"{a} 待人工评分的分值" for a in ASSIGNMENTS),
    ]
    assert headers["questions.csv"] == ["作业", "学号", "题目编号", "得分", "满分", "误区", "通过用例数", "用例数"]
    assert headers["question_stats.csv"] == [
        "作业",
        "题目编号",
        "满分",
        "提交数",
        "平均分",
        "满分人数",
        "满分比例",
        "零分人数",
        "失分",
        "未归入已知误区的失分",
        "未归入已知误区的失分人数",
        "尚未开始的失分",
        "尚未开始的人数",
        "待人工评分的分值",
        "待人工评分的人数",
        "得分率",
        "区分度",
    ]


def test_text_a_student_chose_never_reaches_a_spreadsheet_as_a_formula(tmp_path):
    from autograder.reporting.exports import write_csv

    hostile = ['=HYPERLINK("http://x")', "+1+1", "-2+3", "@SUM(A1)", "\tx", "ada"]
    path = write_csv(tmp_path / "sheet.csv", ["student_id", "score"], [[name, "-0.50"] for name in hostile])
    rows = _read(path)
    assert [row["student_id"] for row in rows] == ["'" + name for name in hostile[:-1]] + ["ada"]
    assert {row["score"] for row in rows} == {"-0.50"}  # numbers stay numbers


def _item_analysis_agrees(stat: dict, rows: list[dict], cells: dict, graded_class) -> None:
    """The sheet's facility is the mean share of the points, and its discrimination scipy's
    point-biserial (Pearson) correlation of the check's score with the rest of the assignment's
    graded cells, computed here from the per-question sheet."""
    from scipy import stats as scipy_stats

    if not rows:
        assert stat["facility"] == stat["discrimination"] == ""
        return
    assert float(stat["facility"]) == pytest.approx(
        sum(float(r["score"]) for r in rows) / (float(stat["max_score"]) * len(rows)), abs=1e-3
    )
    rest = {}
    for (assignment, _), others in cells.items():
        for r in others:
            if (
                assignment == stat["assignment"]
                and not graded_class.table[(assignment, r["student_id"])][r["grade_id"]].needs_manual
            ):
                rest[r["student_id"]] = rest.get(r["student_id"], 0.0) + float(r["score"])
    item = [float(r["score"]) for r in rows]
    others = [rest[r["student_id"]] - float(r["score"]) for r in rows]
    if len(set(item)) < 2 or len(set(others)) < 2 or len(rows) < 3:
        assert stat["discrimination"] == ""
    else:
        assert float(stat["discrimination"]) == pytest.approx(
            scipy_stats.pointbiserialr(item, others).statistic, abs=1e-3
        )
