"""The class report's plots have words: alt text that says what each shows (the assignment, the axes,
where most students are, how many at full marks, the most common misconception) and the values
drawn as a table folded beside it, in both languages; and the page around them reads without sight
or colour: headings in order, wide tables in named scroll regions, signs after a score spelled out.

In-memory class data (no nbgrader run)."""

from __future__ import annotations

import html
import re

import pytest

from autograder.labels import label
from autograder.reporting import report
from autograder.reporting.classdata import GRADED, REFUSED, ClassData, Row, Student, Submission
from autograder.reporting.stats import misconception_stats

A = "ch12_bptt"  # a real assignment: its misconceptions have their explanations
#: Final grades 0, 3, 3.5, 3, 4 of 4 points: the bin "3 to 4" (the last, closed) holds four of five.
SCORES = {"s1": 0.0, "s2": 3.0, "s3": 3.5, "s4": 3.0, "s5": 4.0}
NAMED = {"s1": ["m_common", "m_rare"], "s2": ["m_common"], "s3": ["m_common"]}


def _class() -> ClassData:
    rows = [Row(s, A, "q1", score, 4.0, NAMED.get(s, [])) for s, score in SCORES.items()]
    return ClassData.from_rows(rows)


def _figure(page: str, n: int) -> str:
    """The n-th plot of the page: its figure and its table of values."""
    return re.findall(r'<figure class="plot">(.*?)</figure>', page, flags=re.S)[n]


def _values(plot: str) -> list[tuple[str, int]]:
    """The rows of a plot's table of values: (name, students)."""
    table = re.search(r"<details><summary>[^<]+</summary><table>(.*?)</table></details>", plot, flags=re.S).group(1)
    return [
        (re.sub(r"<[^>]+>", "", name), int(count))
        for name, count in re.findall(r'<tr><td>(.*?)</td><td class="num">(\d+)</td></tr>', table)
    ]


def _alt(plot: str) -> str:
    return html.unescape(re.search(r'alt="([^"]*)"', plot).group(1))


def test_the_histogram_draws_the_bins_it_counts():
    edges, counts = report.score_bins(list(SCORES.values()), 4.0)
    assert (edges, counts) == ([0, 1, 2, 3, 4], [1, 0, 0, 4])  # the last bin holds its upper edge: full marks
    figure = report.histogram_figure(A, list(SCORES.values()), 4.0)
    assert [patch.get_height() for patch in figure.axes[0].patches] == counts
    assert report.score_bins([0.0, 59.5, 60.0], 60.0)[0][:3] == [0, 2, 4]  # wider bins for a long assignment


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_histogram_says_what_it_shows_and_holds_its_values_in_a_table(monkeypatch, lang):
    monkeypatch.setenv("COURSE_LANG", lang)
    plot = _figure(report.render(_class()), 0)
    ranges = [
        label("report.plot.range", low="0", high="1"),
        label("report.plot.range", low="1", high="2"),
        label("report.plot.range", low="2", high="3"),
        label("report.plot.range_last", low="3", high="4"),
    ]
    assert _values(plot) == list(zip(ranges, [1, 0, 0, 4]))
    assert f"<summary>{html.escape(label('report.plot.scores_data'))}</summary>" in plot
    alt = _alt(plot)
    assert alt.startswith(
        label("report.plot.scores", assignment=A, count="5", points="4", width="1", peak="", summary="").strip()
    )
    assert label("report.plot.scores_peak", ranges=ranges[3], count="4", total="5") in alt  # where most students are
    assert (
        label(
            "report.plot.scores_summary", lowest="0.00", highest="4.00", median="3.00", points="4", full="1", zero="1"
        )
        in alt
    )


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_misconception_chart_names_the_most_common_and_holds_its_counts_in_a_table(monkeypatch, lang):
    monkeypatch.setenv("COURSE_LANG", lang)
    data = _class()
    plot = _figure(report.render(data), 1)
    assert _values(plot) == [("m_common", 3), ("m_rare", 1)]
    found = misconception_stats(data, A)
    drawn = [patch.get_width() for patch in report.misconception_figure(A, found).axes[0].patches][
        ::-1
    ]  # drawn bottom up
    assert drawn == [3, 1]
    alt = _alt(plot)
    assert alt.startswith(label("report.plot.misconceptions", assignment=A, count="2", top="").strip())
    assert label("report.plot.misconceptions_top", ids="m_common", count="3", total="5") in alt


def test_ties_are_named_together_and_a_spread_class_is_said_to_be_spread(monkeypatch):
    monkeypatch.setenv("COURSE_LANG", "en")
    rows = [
        Row(s, A, "q1", score, 4.0, [m])
        for s, score, m in (("a", 0.0, "m1"), ("b", 2.0, "m2"), ("c", 4.0, "m2"), ("d", 1.0, "m1"))
    ]
    page = report.render(ClassData.from_rows(rows))
    assert label("report.plot.scores_spread") in _alt(_figure(page, 0))  # one student per bin: no peak to name
    assert label("report.plot.misconceptions_tops", ids="m1; m2", count="2", total="4") in _alt(_figure(page, 1))


# ---------------------------------------------------------------------------------------------
# The page around the plots


def _states_class() -> ClassData:
    """One graded submission whose last hand-in was refused, one whose last attempt failed, one with
    a newer hand-in waiting, one not submitted; a student id and a reason with markup in them."""
    rows = [Row(s, A, "q1", 1.0, 2.0) for s in ("r1", "f1", "p1", "<b>x")]
    subs = {
        (A, "r1"): Submission("r1", A, 1.0, 0.0, 2.0, failed="<i>too big</i>", state=REFUSED),
        (A, "f1"): Submission("f1", A, 1.0, 0.0, 2.0, failed="timeout"),
        (A, "p1"): Submission("p1", A, 1.0, 0.0, 2.0, pending=3),
        (A, "<b>x"): Submission("<b>x", A, 1.0, 0.0, 2.0, state=GRADED),
    }
    students = [Student(s) for s in ("<b>x", "f1", "nobody", "p1", "r1")]
    return ClassData("c", [A], {A: 2.0}, {A: ""}, {A: [("q1", 2.0)]}, students, subs, rows)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_signs_after_a_score_are_spelled_out_for_a_screen_reader(monkeypatch, lang):
    monkeypatch.setenv("COURSE_LANG", lang)
    page = report.render(_states_class())
    for sign, text in (
        ("&#8856;", label("report.cell.refused_title", reason="<i>too big</i>")),
        ("&#9888;", label("report.cell.last_attempt_failed", reason="timeout")),
        ("&#8635;", label("report.cell.pending", attempt="3")),
    ):
        assert f'aria-hidden="true">{sign}</span><span class="sr">{html.escape(text)}</span>' in page, sign
    missing = html.escape(label("report.cell.not_submitted"))
    assert f'<span aria-hidden="true">&ndash;</span><span class="sr">{missing}</span>' in page
    assert "<b>x" not in page and "<i>too big" not in page  # student-controlled text is escaped


def test_headings_come_in_order_and_wide_tables_scroll_in_named_regions(monkeypatch):
    monkeypatch.setenv("COURSE_LANG", "en")
    page = report.render(_class())
    levels = [int(level) for level in re.findall(r"<h([1-6])[ >]", page)]
    assert levels[0] == 1 and all(b <= a + 1 for a, b in zip(levels, levels[1:])), levels
    outside = re.sub(r"<details>.*?</details>", "", page, flags=re.S)  # the plots' small tables of values fold away
    regions = re.findall(r'<div class="scroll" tabindex="0" role="region" aria-label="([^"]+)"><table', outside)
    assert outside.count("<table") == len(regions) == 4  # overview, per question, misconceptions, students
    assert regions[0] == label("report.region.overview") and label("report.region.questions", assignment=A) in regions
    assert "text-decoration: underline" in page
