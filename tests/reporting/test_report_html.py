"""The class report: per-question statistics, the students behind each misconception, points lost
outside the catalogue, points awaiting a TA apart from them, a student x assignment table,
whole-number axes, and a page that renders."""

import html
import re
import subprocess
from collections import defaultdict
from datetime import datetime
from pathlib import Path

import pytest

from autograder.assignments import get
from autograder.commands import cli
from autograder.coursedir.layout import Course
from autograder.labels import label
from autograder.reporting import classdata, report, stats

from ..conftest import ASSIGNMENTS

pytestmark = pytest.mark.nbgrader

CHROMIUM = Path("/usr/bin/chromium")


@pytest.fixture(scope="module")
def data(graded_class):
    return classdata.load(graded_class.root)


@pytest.fixture(scope="module")
def page(data, tmp_path_factory):
    path = tmp_path_factory.mktemp("report") / "class-report.html"
    return report.write_html(data, path, generated=datetime(2025, 3, 14, 9, 26).astimezone())


def _section(text: str, anchor: str) -> str:
    start = text.index(f'<h2 id="{anchor}">')
    end = text.find("<h2", start + 1)
    return text[start : end if end > 0 else len(text)]


def _row(section: str, part: str, first_cell: str) -> str:
    """The row of `first_cell` in the table under the heading `part` of an assignment's section (a
    grade id also heads rows of the drawn variants' table, where the class's draws make it show)."""
    start = section.index(f"<h3>{part}</h3>")
    end = section.find("<h3", start + 1)
    (row,) = re.findall(
        rf'<tr><td class="id">{re.escape(first_cell)}</td>.*?</tr>',
        section[start : end if end > 0 else None],
        flags=re.S,
    )
    return row


def _cells(graded_class, data, assignment):
    """grade id -> the rows of the class's graded submissions (a hand-in refused before any grade has none to count)."""
    cells = defaultdict(list)
    for (a, student), rows in graded_class.table.items():
        if a == assignment and data.submissions[(a, student)].graded:
            for grade_id, row in rows.items():
                cells[grade_id].append(row)
    return cells


def test_the_report_names_the_course_the_date_and_who_did_not_submit(graded_class, data, page):
    text = page.read_text(encoding="utf-8")
    course_id = Course(graded_class.root).settings.COURSE_ID
    assert f"<title>Class report: {course_id}</title>" in text and "generated 2025-03-14 09:26" in text
    for assignment in ASSIGNMENTS:
        missing = [s for s in {s for (_, s) in graded_class.table} if (assignment, s) not in graded_class.table]
        section = _section(text, assignment)
        assert f"<b>{len(missing)}</b> not submitted" in section
        assert all(f'<span class="id">{html.escape(s)}</span>' in section for s in missing)


def test_each_question_has_its_mean_share_at_full_marks_zeros_and_points_lost_outside_the_catalogue_or_not_started(
    graded_class, data, page
):
    text = page.read_text(encoding="utf-8")
    for assignment in ASSIGNMENTS:
        section = _section(text, assignment)
        for grade_id, cells in _cells(graded_class, data, assignment).items():
            row = _row(section, "Per question", grade_id)
            rows = [
                r for r in cells if not r.needs_manual
            ]  # graded: a cell awaiting a TA is neither lost nor in the mean
            waiting = sorted(r.student for r in cells if r.needs_manual)
            full = sum(1 for r in rows if r.score >= r.max_score)
            idle = sorted(r.student for r in rows if r.not_started)
            outside = sorted(
                r.student for r in rows if r.score < r.max_score and not r.misconceptions and r.student not in idle
            )
            numbers = re.findall(r'<td class="num"[^>]*>([^<]*)</td>', row)
            facility = numbers.pop(2)  # beside the mean: the item analysis (tests/reporting/test_item_analysis.py)
            assert facility == (
                f"{sum(r.score for r in rows) / (len(rows) * rows[0].max_score):.2f}"
                if rows and rows[0].max_score
                else "&ndash;"
            )
            numbers.pop(2)  # the discrimination
            assert numbers[1:7] == (
                [f"{sum(r.score for r in rows) / len(rows):.2f}", f"{100 * full / len(rows):.0f}% ({full})"]
                if rows
                else ["&ndash;", "&ndash;"]
            ) + [
                str(sum(1 for r in rows if r.score == 0)),
                f"{sum(r.max_score - r.score for r in rows):.2f}",
                f"{sum(r.max_score - r.score for r in rows if r.student in outside):.2f}",
                f"{sum(r.max_score - r.score for r in rows if r.student in idle):.2f}",
            ], (assignment, grade_id)
            assert numbers[7] == (
                f"{sum(r.max_score for r in cells if r.needs_manual):.2f} ({len(waiting)})" if waiting else "&ndash;"
            )
            outside_who, idle_who = re.findall(r'<td class="who">(.*?)</td>', row, flags=re.S)
            assert re.findall(r'<span class="id">([^<]*)</span>', outside_who) == [html.escape(s) for s in outside]
            assert re.findall(r'<span class="id">([^<]*)</span>', idle_who) == [html.escape(s) for s in idle]
            if grade_id in {
                check.name for check in get(assignment).graded
            }:  # the untouched notebook did not start; no crash of it is "outside"
                assert "stub" in idle and "stub" not in outside, (assignment, grade_id)


def test_written_answers_awaiting_a_ta_are_never_lost_nor_outside_the_catalogue(graded_class, data, page):
    text = page.read_text(encoding="utf-8")
    for assignment in ASSIGNMENTS:
        written = [answer.name for answer in get(assignment).written]
        section = _section(text, assignment)
        for q in stats.question_stats(data, assignment):
            if q.grade_id in written:
                graded = [sub.student for sub in data.graded(assignment)]
                assert (q.lost, q.lost_uncatalogued, q.uncatalogued, q.mean) == (0.0, 0.0, (), None), q
                assert q.awaiting == tuple(sorted(graded)) and "reference" in q.awaiting and "stub" in q.awaiting
                assert '<td class="who">&ndash;</td>' in _row(section, "Per question", q.grade_id)
        waiting = [
            r for (a, _), rows in graded_class.table.items() if a == assignment for r in rows.values() if r.needs_manual
        ]
        if waiting:
            fact = label(
                "report.fact.awaiting",
                points=f"<b>{sum(r.max_score for r in waiting):g}</b>",
                count=str(len({r.student for r in waiting})),
                cells=str(len(waiting)),
            )
            assert f"<li>{fact}</li>" in section  # the label has no character to escape


def test_the_reference_reads_full_marks_of_the_autograded_points_with_its_written_answers_apart(graded_class, data):
    written = {a: sum(answer.points for answer in get(a).written) for a in ASSIGNMENTS}
    lines = {tuple(line.split()[:2]): line.split() for line in report.score_table(data).splitlines()[1:]}
    for assignment in ASSIGNMENTS:
        maximum = data.max_scores[assignment]
        autograded = f"{maximum - written[assignment]:.2f}/{maximum - written[assignment]:.1f}"
        line = lines[("reference", assignment)]
        assert line[2:11] == [
            "graded",
            f"{maximum - written[assignment]:.2f}",
            "0.00",
            f"{maximum - written[assignment]:.2f}",
            "-",
            autograded,
            "-",
            f"{written[assignment]:.1f}" if written[assignment] else "-",
            "-",
        ], line
        rows = [row for row in data.rows if (row.assignment, row.student) == (assignment, "reference")]
        assert report.score_table(rows).splitlines()[1].split()[2:] == [
            autograded,
            "-",
            f"{written[assignment]:.1f}" if written[assignment] else "-",
            "-",
        ]


def test_each_misconception_is_explained_once_with_the_students_who_hold_it(graded_class, page):
    text = page.read_text(encoding="utf-8")
    for assignment in ASSIGNMENTS:
        section = _section(text, assignment)
        holders = defaultdict(set)
        for (a, student), rows in graded_class.table.items():
            for row in rows.values():
                if a == assignment:
                    for name in row.misconceptions:
                        holders[name].add(student)
        assert holders, assignment
        for entry in get(assignment).mistakes():
            if entry.id in holders:
                assert section.count(html.escape(entry.text)) == 1, entry.id
                row = _row(section, "Misconceptions", entry.id)
                named = set(re.findall(r'<td class="who">(.*?)</td>', row)[0].split(", "))
                assert named == {f'<span class="id">{html.escape(s)}</span>' for s in holders[entry.id]}


def test_the_student_table_has_every_student_and_marks_not_submitted(data, page):
    table = _section(page.read_text(encoding="utf-8"), "students")
    assert table.count("<tr>") == len(data.students) + 1
    assert table.count('title="not submitted"') == sum(len(data.missing(a)) for a in data.assignments)


def test_the_student_table_tells_refused_and_graded_apart_with_the_reason(data, page):
    text = page.read_text(encoding="utf-8")
    table = _section(text, "students")
    refused = [sub for sub in data.submissions.values() if sub.state == "refused"]
    assert table.count('<td class="refused"') == sum(1 for sub in refused if not sub.graded)
    assert table.count('<td class="received"') == 0  # every hand-in of the class was autograded
    for sub in refused:
        assert html.escape(f"the last hand-in was refused: {sub.failed}") in table
        assert html.escape(sub.failed) in _section(text, sub.assignment)
    for assignment in ASSIGNMENTS:
        graded = sum(1 for (a, _), sub in data.submissions.items() if a == assignment and sub.state == "graded")
        assert f"<li><b>{graded}</b> graded</li>" in _section(text, assignment)


def test_plot_axes_count_whole_students_and_points():
    figure = report.histogram_figure("a", [1.5, 2.0, 2.25], 3.0)
    axis = figure.axes[0]
    assert all(float(t).is_integer() for t in (*axis.get_xticks(), *axis.get_yticks()))
    found = [stats.MisconceptionStats("m", "text", ("s",), (("check", 1),))]
    assert all(float(t).is_integer() for t in report.misconception_figure("a", found).axes[0].get_xticks())


def test_the_report_command_writes_the_page(graded_class, tmp_path, capsys):
    out = tmp_path / "r.html"
    assert cli.main(["--root", str(graded_class.root), "report", "--out", str(out)]) == 0
    assert "misconceptions named" in capsys.readouterr().out and out.read_text(encoding="utf-8").count("<img") >= len(
        ASSIGNMENTS
    )


@pytest.mark.skipif(not CHROMIUM.is_file(), reason="no /usr/bin/chromium on this machine to render the report")
def test_the_report_renders_in_headless_chromium(page, tmp_path):
    from matplotlib import image

    shot = tmp_path / "report.png"
    result = subprocess.run(
        [
            str(CHROMIUM),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={tmp_path / 'profile'}",
            f"--screenshot={shot}",
            "--window-size=1200,2000",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert shot.is_file(), result.stderr[-2000:]
    pixels = image.imread(shot)[..., :3]
    assert pixels.shape[:2] == (2000, 1200)
    ink = (pixels.min(axis=2) < 0.5).mean()  # text, plots and table rules
    colour = (pixels.max(axis=2) - pixels.min(axis=2) > 0.2).mean()  # the plots' bars and the shaded cells
    assert 0.01 < ink < 0.6 and colour > 0.005, (ink, colour)
    top = pixels[:120].min(axis=2)
    assert (top < 0.5).mean() > 0.005  # the title is drawn at the top


CJK = re.compile(r"[\u4e00-\u9fff]")


def test_the_class_report_in_chinese(data, tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_LANG", "zh")
    text = report.write_html(data, tmp_path / "zh.html", generated=datetime(2025, 3, 14, 9, 26).astimezone()).read_text(
        encoding="utf-8"
    )
    assert (
        '<html lang="zh-Hans">' in text
        and f"<title>班级报告：{data.course_id}</title>" in text
        and "生成于 2025-03-14 09:26" in text
    )
    assert '<h2 id="students">学生 × 作业</h2>' in text
    assert text.count('title="未提交"') == sum(len(data.missing(a)) for a in data.assignments)
    for assignment in data.assignments:
        section = _section(text, assignment)
        assert f"未提交 <b>{len(data.missing(assignment))}</b> 人" in section
        assert "<h3>各题统计</h3>" in section and "<h3>误区</h3>" in section
        found = stats.misconception_stats(data, assignment)  # explanations in the course language
        assert found, assignment
        for m in found:
            assert CJK.search(m.text) and section.count(html.escape(m.text)) == 1, m.id
    headers = [re.sub(r"<[^>]+>", "", h) for h in re.findall(r"<th[^>]*>(.*?)</th>", text, flags=re.S)]
    for assignment in data.assignments:
        headers = [h.replace(assignment, "") for h in headers]
    headers = [re.sub(r"\bp\b", "", h) for h in headers]  # the p of a p-value (the drawn variants' table) is a symbol
    assert headers and all(CJK.search(h) and not re.search(r"[A-Za-z]", h) for h in headers), headers
    for phrase in ("not submitted", "at full marks", "Per question", "Misconceptions", "what it means", "points lost"):
        assert phrase not in text, phrase


def test_the_report_command_speaks_the_course_language(graded_class, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COURSE_LANG", "zh")
    out = tmp_path / "r.html"
    assert cli.main(["--root", str(graded_class.root), "report", "--out", str(out)]) == 0
    assert capsys.readouterr().out.splitlines()[0].split() == [
        "学生",
        "作业",
        "状态",
        "原始分",
        "迟交罚分",
        "最终成绩",
        "迟交天数",
        "自动评分",
        "助教评分",
        "待人工评分",
        "检出的误区",
    ]
    assert '<html lang="zh-Hans">' in out.read_text(encoding="utf-8")
