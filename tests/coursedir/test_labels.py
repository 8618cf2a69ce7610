"""The instructor's labels: English and Chinese hold the same ids and placeholders, and the class
report, its score table, its plots and the grade sheets' headers follow COURSE_LANG.

Everything here runs on small in-memory data (no nbgrader run)."""

from __future__ import annotations

import csv
import html
import io
import json
import re
import warnings
from datetime import datetime
from pathlib import Path

import matplotlib.pyplot as plt
import pytest
from matplotlib.text import Text

from autograder import labels
from autograder.assignments import get
from autograder.grading.result import CaseOutcome
from autograder.labels import label
from autograder.reporting import classdata, report, stats
from autograder.reporting.classdata import ClassData, Row, Student, Submission
from autograder.reporting.exports import CANVAS_COLUMNS, export
from rnnkit import messages
from rnnkit.messages import _FIELD

REPO = Path(__file__).resolve().parents[2]
LABELS = Path(labels.__file__).resolve().parent
_CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")
GENERATED = datetime(2025, 3, 14, 9, 26).astimezone()

#: A real assignment and one of its catalogued mistakes, so that the explanation comes from the kit.
ASSIGNMENT = "ch12_bptt"
MISTAKE = get(ASSIGNMENT).mistakes()[0].id


def _load(lang: str) -> dict[str, str]:
    return json.loads((LABELS / f"{lang}.json").read_text(encoding="utf-8"))


def _placeholders(text: str) -> list[str]:
    return sorted(match.group(0) for match in _FIELD.finditer(text))


# ---------------------------------------------------------------------------------------------
# The catalogue


def test_every_label_is_in_both_languages_with_the_same_placeholders():
    english, chinese = _load("en"), _load("zh")
    assert english and set(english) == set(chinese)
    for key, text in english.items():
        assert text.strip() and chinese[key].strip(), key
        assert _placeholders(text) == _placeholders(chinese[key]), key


def test_chinese_labels_are_written_in_chinese():
    for key, text in _load("zh").items():
        if key == "page.lang":
            assert text == "zh-Hans"
        else:
            assert _CJK.search(_FIELD.sub("", text)), (key, text)
    assert _load("en")["page.lang"] == "en"


def test_every_label_the_code_asks_for_exists():
    known = set(_load("en"))
    used = set(
        re.findall(
            r"""["']((?:report|table)\.[a-z_.]+)["']""",
            (REPO / "autograder" / "reporting" / "report.py").read_text(encoding="utf-8"),
        )
    )
    for call in re.findall(
        r"_header\(([^)]*)\)", (REPO / "autograder" / "reporting" / "exports.py").read_text(encoding="utf-8")
    ):
        used |= {f"export.{name}" for name in re.findall(r"""["'](\w+)["']""", call)}
    assert used and {u for u in used if u.startswith("export.")}
    assert used <= known, sorted(used - known)


def test_label_follows_course_lang_falls_back_to_english_and_refuses_unknown_ids(monkeypatch):
    monkeypatch.setenv("COURSE_LANG", "en")
    assert label("report.title", course="c1") == "Class report: c1"
    monkeypatch.setenv("COURSE_LANG", "zh")
    assert label("report.title", course="c1") == "班级报告：c1"
    assert label("report.of_points") == "满分 {points}"  # a field not given stays as written
    real = labels.catalogue
    monkeypatch.setattr(
        labels, "catalogue", lambda lang: {k: v for k, v in real(lang).items() if (lang, k) != ("zh", "report.title")}
    )
    assert label("report.title", course="c1") == "Class report: c1"
    with pytest.raises(KeyError, match="no.such.label"):
        label("no.such.label")
    monkeypatch.setenv("COURSE_LANG", "fr")
    with pytest.raises(ValueError, match="COURSE_LANG"):
        label("report.title")


# ---------------------------------------------------------------------------------------------
# The class report


ROWS = [
    Row("ann", ASSIGNMENT, "q1", 1.0, 2.0, [MISTAKE]),
    Row("ann", ASSIGNMENT, "q2", 2.0, 2.0),
    Row("bob", ASSIGNMENT, "q1", 0.0, 2.0),
    Row("bob", ASSIGNMENT, "q2", 2.0, 2.0),
    Row("bob", "ch12_gates", "q1", 3.0, 3.0),  # ann did not submit ch12_gates
]


def _page(tmp_path, monkeypatch, lang: str) -> str:
    monkeypatch.setenv("COURSE_LANG", lang)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        path = report.write_html(ROWS, tmp_path / f"report-{lang}.html", generated=GENERATED)
    assert not [str(w.message) for w in caught if "Glyph" in str(w.message)]
    return path.read_text(encoding="utf-8")


def _headers(page: str) -> list[str]:
    """The text of every table header cell, without the assignment names and the notes under them."""
    cells = re.findall(r"<th[^>]*>(.*?)</th>", page, flags=re.S)
    return [
        re.sub(r"<[^>]+>", " ", re.sub(r'<span class="note">.*?</span>', "", cell))
        .replace(ASSIGNMENT, "")
        .replace("ch12_gates", "")
        .strip()
        for cell in cells
    ]


def test_a_chinese_report_is_in_chinese(tmp_path, monkeypatch):
    page = _page(tmp_path, monkeypatch, "zh")
    assert '<html lang="zh-Hans">' in page
    assert "<title>班级报告：（未设置课程编号）</title>" in page and "<h1>班级报告：" in page
    assert "生成于 2025-03-14 09:26" in page
    assert "<h3>各题统计</h3>" in page and "<h3>误区</h3>" in page and '<h2 id="students">学生 × 作业</h2>' in page
    assert "<li>已提交 <b>2</b> 人</li>" in page and "<li>未提交 <b>1</b> 人</li>" in page
    assert '未提交：<span class="id">ann</span>' in page and 'title="未提交"' in page
    headers = [h for h in _headers(page) if h]
    assert {"作业", "平均分", "满分人数", "零分人数", "误区", "学生", "总分"} <= set(headers)
    assert all(_CJK.search(h) and not re.search("[A-Za-z]", h) for h in headers), headers
    english = _load("en")
    for key in english:
        if key.startswith("report.col."):
            assert f">{english[key]}</th>" not in page, key
    for phrase in (
        "not submitted",
        "Per question",
        "Misconceptions",
        "Class report",
        "at full marks",
        "score distribution",
    ):
        assert phrase not in page, phrase
    # the misconception's explanation is the kit's Chinese message
    monkeypatch.setenv("COURSE_LANG", "zh")
    explanation = messages.text(f"mistake.{MISTAKE}")
    assert _CJK.search(explanation) and page.count(html.escape(explanation)) == 1
    # the plots are captioned in Chinese
    assert re.findall(r"<figcaption>([^<]*)", page)[0].startswith("得分分布")
    assert 'alt="ch12_bptt：' in page and "份已评分提交的最终成绩直方图" in page


def test_an_english_report_has_no_chinese(tmp_path, monkeypatch):
    page = _page(tmp_path, monkeypatch, "en")
    assert '<html lang="en">' in page and "<title>Class report: (course id not set)</title>" in page
    assert (
        "<h3>Per question</h3>" in page
        and "<li><b>1</b> not submitted</li>" in page
        and 'title="not submitted"' in page
    )
    assert not _CJK.search(page)


def test_the_score_table_follows_the_language_and_stays_aligned(monkeypatch):
    monkeypatch.setenv("COURSE_LANG", "en")
    english = report.score_table(ROWS).splitlines()
    monkeypatch.setenv("COURSE_LANG", "zh")
    chinese = report.score_table(ROWS).splitlines()
    assert english[0].split()[:3] == ["student", "assignment", "autograded"] and "misconceptions named" in english[0]
    assert chinese[0].split() == ["学生", "作业", "自动评分", "助教评分", "待人工评分", "检出的误区"]
    for lines in (english, chinese):  # the names line up, a Chinese character two columns wide
        starts = {_columns(line[: line.rindex("  ") + 2]) for line in lines}
        assert len(starts) == 1, lines
    assert [line.split()[2:] for line in english[1:]] == [line.split()[2:] for line in chinese[1:]]


def _columns(text: str) -> int:
    """How many terminal columns `text` takes."""
    return sum(2 if _CJK.match(char) else 1 for char in text)


# ---------------------------------------------------------------------------------------------
# The plots: no words, so no missing glyph in any language


def _missing_glyphs(figure) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        figure.savefig(io.BytesIO(), format="png")
    return [str(w.message) for w in caught if re.search(r"Glyph .* missing", str(w.message))]


def test_a_missing_glyph_is_seen():
    """The check below would see a CJK word drawn in a figure (with matplotlib's default fonts)."""
    figure, axis = plt.subplots()
    axis.set_title("班级报告")
    found = _missing_glyphs(figure)
    plt.close(figure)
    if not found:
        pytest.skip("matplotlib found a CJK font here: nothing would be missing")
    assert "missing" in found[0]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_plots_draw_every_glyph(monkeypatch, lang):
    monkeypatch.setenv("COURSE_LANG", lang)
    found = [
        stats.MisconceptionStats(MISTAKE, messages.text(f"mistake.{MISTAKE}"), ("ann", "bob"), (("q1", 2),)),
        stats.MisconceptionStats("other_mistake", "", ("bob",), (("q2", 1),)),
    ]
    figures = [
        report.histogram_figure(ASSIGNMENT, [0.5, 2.0, 3.0, 4.0], 4.0),
        report.misconception_figure(ASSIGNMENT, found),
    ]
    try:
        for figure in figures:
            assert _missing_glyphs(figure) == []
            texts = [text.get_text() for text in figure.findobj(Text) if text.get_text()]
            assert ASSIGNMENT in texts and not any(_CJK.search(text) for text in texts), texts
    finally:
        for figure in figures:
            plt.close(figure)


# ---------------------------------------------------------------------------------------------
# The grade sheets


def _class() -> ClassData:
    rows = [
        Row("ann", "a1", "q1", 1.0, 2.0, ["m1"], [CaseOutcome("c1", True, True), CaseOutcome("c2", False, False)]),
        Row("ann", "a1", "q2", 2.0, 2.0),
        Row("bob", "a1", "q1", 2.0, 2.0),
        Row("bob", "a1", "q2", 0.0, 2.0),
        Row("bob", "a2", "q1", 3.0, 3.0),
    ]
    return ClassData(
        "c1",
        ["a1", "a2"],
        {"a1": 4.0, "a2": 3.0},
        {"a1": "2025-03-01 00:00:00", "a2": ""},
        {"a1": [("q1", 2.0), ("q2", 2.0)], "a2": [("q1", 3.0)]},
        [Student("ann", "Ann", "Lee", "ann@example.org"), Student("bob")],
        {
            ("a1", "ann"): Submission("ann", "a1", 3.0, 0.5, 4.0, "2025-03-02 10:00:00"),
            ("a1", "bob"): Submission("bob", "a1", 2.0, 0.0, 4.0, "2025-02-28 10:00:00"),
            ("a2", "bob"): Submission("bob", "a2", 3.0, 0.0, 3.0, "2025-03-05 10:00:00"),
        },
        rows,
    )


def _sheet(path: Path) -> list[list[str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


CHINESE_HEADERS = {
    "grades": [
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
    ],
    "scores": [
        "学号",
        "姓",
        "名",
        "邮箱",
        "a1",
        "a2",
        "总分",
        "满分合计",
        "待人工评分的分值",
        "未提交的作业",
        "已收到未评分的作业",
        "被拒收的作业",
        "迟交的作业",
        "a1 原始分",
        "a2 原始分",
        "a1 迟交罚分",
        "a2 迟交罚分",
        "a1 待人工评分的分值",
        "a2 待人工评分的分值",
    ],
    "canvas": [*CANVAS_COLUMNS, "a1", "a2"],
    "questions": ["作业", "学号", "题目编号", "得分", "满分", "误区", "通过用例数", "用例数"],
    "question_stats": [
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
    ],
}
ENGLISH_HEADERS = {
    "grades": [
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
    ],
    "scores": [
        "student_id",
        "last_name",
        "first_name",
        "email",
        "a1",
        "a2",
        "total",
        "max_total",
        "points_awaiting_ta",
        "not_submitted",
        "received",
        "refused",
        "late",
        "a1 raw_score",
        "a2 raw_score",
        "a1 late_submission_penalty",
        "a2 late_submission_penalty",
        "a1 points_awaiting_ta",
        "a2 points_awaiting_ta",
    ],
    "canvas": ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "a1", "a2"],
    "questions": [
        "assignment",
        "student_id",
        "grade_id",
        "score",
        "max_score",
        "misconceptions",
        "cases_passed",
        "cases",
    ],
    "question_stats": [
        "assignment",
        "grade_id",
        "max_score",
        "submissions",
        "mean",
        "full_marks",
        "full_marks_share",
        "zeros",
        "points_lost",
        "points_lost_uncatalogued",
        "students_uncatalogued",
        "points_lost_not_started",
        "students_not_started",
        "points_awaiting_ta",
        "students_awaiting_ta",
        "facility",
        "discrimination",
    ],
}
SHEETS = ("grades", "scores", "canvas", "questions", "question_stats")


def test_the_sheets_have_headers_in_the_course_language_and_the_same_values(tmp_path, monkeypatch):
    monkeypatch.setattr(classdata, "load", lambda root, students=None: _class())
    written = {}
    for lang in ("en", "zh"):
        monkeypatch.setenv("COURSE_LANG", lang)
        written[lang] = dict(zip(SHEETS, export(tmp_path, tmp_path / lang)))
    for name in SHEETS:
        english, chinese = _sheet(written["en"][name]), _sheet(written["zh"][name])
        assert english[0] == ENGLISH_HEADERS[name], name
        assert chinese[0] == CHINESE_HEADERS[name], name
        assert english[1:] == chinese[1:] and len(english) > 1, name
    assert written["en"]["canvas"].read_bytes() == written["zh"]["canvas"].read_bytes()
    grades = _sheet(written["zh"]["grades"])
    assert grades[1:] == [
        [
            "a1",
            "2025-03-01 00:00:00",
            "2025-03-02 10:00:00",
            "ann",
            "Lee",
            "Ann",
            "ann@example.org",
            "yes",
            "graded",
            "",
            "0",
            "0",
            "0",
            "",
            "0",
            "0",
            "",
            "3.00",
            "0.50",
            "2.50",
            "0.00",
            "4.00",
            "",
        ],
        [
            "a1",
            "2025-03-01 00:00:00",
            "2025-02-28 10:00:00",
            "bob",
            "",
            "",
            "",
            "yes",
            "graded",
            "",
            "0",
            "0",
            "0",
            "",
            "0",
            "0",
            "",
            "2.00",
            "0.00",
            "2.00",
            "0.00",
            "4.00",
            "",
        ],
        [
            "a2",
            "",
            "",
            "ann",
            "Lee",
            "Ann",
            "ann@example.org",
            "no",
            "not_submitted",
            "",
            "0",
            "0",
            "0",
            "",
            "0",
            "0",
            "",
            "0.00",
            "0.00",
            "0.00",
            "0.00",
            "3.00",
            "",
        ],
        [
            "a2",
            "",
            "2025-03-05 10:00:00",
            "bob",
            "",
            "",
            "",
            "yes",
            "graded",
            "",
            "0",
            "0",
            "0",
            "",
            "0",
            "0",
            "",
            "3.00",
            "0.00",
            "3.00",
            "0.00",
            "3.00",
            "",
        ],
    ]
    assert _sheet(written["zh"]["scores"])[1] == [
        "ann",
        "Lee",
        "Ann",
        "ann@example.org",
        "2.50",
        "",
        "2.50",
        "7.00",
        "0.00",
        "a2",
        "",
        "",
        "a1",
        "3.00",
        "",
        "0.50",
        "",
        "0.00",
        "",
    ]
    assert _sheet(written["zh"]["questions"])[1] == ["a1", "ann", "q1", "1.00", "2.00", "m1", "1", "2"]
