"""rnnkit.plots: a plot shown with words. Its text alternative names what the plot shows and its axes
and tells each series' trend, computed from the values drawn; its table holds every value drawn; both
speak the notebook's language; no text of the plot or of its words ever becomes markup."""

from __future__ import annotations

import html
import math
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "kit"))

import pytest  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st
from matplotlib.figure import Figure  # noqa: E402

from rnnkit import messages, plots, selfcheck  # noqa: E402
from rnnkit.plots import Words, alt_text, table_html, table_text, views, words_of  # noqa: E402

CJK = re.compile("[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")
WORDS = Words("What the plot shows.", "the x things", "the y things", {"a": "series a", "b": "series b", "m": "mark m"})
#: Values that differ enough to be told apart at six digits.
VALUES = st.lists(st.integers(-10_000, 10_000), min_size=plots.LISTED + 1, max_size=30, unique=True)
SLOW = settings(max_examples=40, deadline=None)


def num(value: float) -> str:
    return f"{value:.6g}"


def line_figure(*series: tuple[str, list, list], marks: tuple[tuple[str, str, float], ...] = ()) -> Figure:
    """A figure with one panel: a line per (gid, xs, ys), a reference line per (gid, "x" or "y", at)."""
    figure = Figure()
    axes = figure.subplots()
    for gid, xs, ys in series:
        axes.plot(xs, ys, gid=gid)
    for gid, axis, at in marks:
        (axes.axvline if axis == "x" else axes.axhline)(at, gid=gid)
    return figure


def alt_of(figure: Figure, words: Words = WORDS) -> str:
    return alt_text(words, views(figure))


def said(figure: Figure, words: Words = WORDS) -> str:
    """The text alternative of `figure` with one line `a`: the sentence about that line."""
    return next(s for s in re.split(r"(?<=\.) ", alt_of(figure, words)) if s.startswith("“series a”"))


# --------------------------------------------------------------------------- the text alternative


@SLOW
@given(VALUES)
def test_a_rising_or_falling_line_is_told_so_from_its_first_to_its_last_value(values):
    rising = sorted(map(float, values))
    xs = list(range(1, len(rising) + 1))
    assert said(line_figure(("a", xs, rising))).startswith(
        f"“series a” rises from {num(rising[0])} to {num(rising[-1])}"
    )
    falling = rising[::-1]
    assert said(line_figure(("a", xs, falling))).startswith(
        f"“series a” falls from {num(falling[0])} to {num(falling[-1])}"
    )


@SLOW
@given(
    st.integers(-1000, 1000).filter(bool),
    st.sampled_from([0.25, 0.5, 0.9, 0.99, 1.5, 3.0]),
    st.integers(plots.LISTED + 1, 40),
)
def test_a_line_that_changes_by_one_ratio_is_told_its_ratio(start, ratio, count):
    ys = [start * ratio**k for k in range(count)]
    sentence = said(line_figure(("a", list(range(count)), ys)))
    assert sentence.endswith(f", each value {num(ratio)} times the one before."), sentence


@SLOW
@given(VALUES.filter(lambda v: v != sorted(v) and v != sorted(v, reverse=True)))
def test_a_line_that_goes_up_and_down_is_told_its_lowest_and_highest_points(values):
    ys = list(map(float, values))
    xs = [x / 2 for x in range(len(ys))]
    low, high = ys.index(min(ys)), ys.index(max(ys))
    assert said(line_figure(("a", xs, ys))) == (
        f"“series a” goes from {num(ys[0])} to {num(ys[-1])}, lowest {num(ys[low])} at "
        f"x = {num(xs[low])}, highest {num(ys[high])} at x = {num(xs[high])}."
    )


@SLOW
@given(st.lists(st.integers(-100, 100), min_size=plots.LISTED, max_size=10, unique=True), st.integers(1, 6))
def test_a_line_that_settles_is_told_from_where_it_stays(head, stays):
    ys = sorted(map(float, head)) + [float(max(head))] * stays
    xs = list(range(1, len(ys) + 1))
    settled = len(head)  # the x of the first of the equal last values
    assert said(line_figure(("a", xs, ys))).endswith(f", then stays at {num(ys[-1])} from x = {settled} on."), ys


@given(st.floats(-1e6, 1e6), st.integers(plots.LISTED + 1, 20))
def test_a_flat_line_stays(value, count):
    assert said(line_figure(("a", list(range(count)), [value] * count))) == f"“series a” stays at {num(value)}."


@given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=plots.LISTED))
def test_a_short_line_is_told_value_by_value(ys):
    xs = list(range(10, 10 + len(ys)))
    assert (
        said(line_figure(("a", xs, ys)))
        == "“series a” is " + ", ".join(f"{num(y)} at x = {x}" for x, y in zip(xs, ys)) + "."
    )


def test_a_line_with_values_that_are_not_finite_says_so():
    assert said(line_figure(("a", [1, 2, 3, 4, 5], [1, 2, math.nan, 4, 5]))) == (
        "“series a” holds values that are not finite numbers (NaN or infinity)."
    )


@SLOW
@given(VALUES, st.integers(-10_000, 10_000))
def test_where_a_line_ends_up_across_a_horizontal_line_is_computed(values, at):
    ys = list(map(float, values))
    xs = list(range(1, len(ys) + 1))
    alt = alt_of(line_figure(("a", xs, ys), marks=(("m", "y", at),)))
    side = [math.copysign(1, y - at) if y != at else 0 for y in ys]
    if side[-1] in (0, side[0]):
        assert "is below" not in alt and "is above" not in alt
    else:
        start = max(i for i, s in enumerate(side) if s != side[-1]) + 1
        assert f"“series a” is {'below' if side[-1] < 0 else 'above'} “mark m” from x = {xs[start]} on." in alt
    assert f"“mark m” is a horizontal line at y = {num(at)}." in alt


@SLOW
@given(VALUES, VALUES, st.floats(-1e3, 1e3))
def test_the_axes_are_named_with_the_range_of_x_drawn(a, b, at):
    figure = line_figure(("a", a, list(range(len(a)))), ("b", b, list(range(len(b)))), marks=(("m", "x", at),))
    xs = [*a, *b, at]
    assert f"x axis: the x things, from {num(min(xs))} to {num(max(xs))}. y axis: the y things." in alt_of(figure)


def test_a_log_scale_is_named_and_panels_that_draw_the_same_are_told_once():
    figure = Figure()
    for axes, scale in zip(figure.subplots(1, 2), ("linear", "log")):
        axes.plot([1, 2, 3, 4, 5], [1, 2, 4, 8, 16], gid="a")
        axes.set_yscale(scale)
    (view,) = views(figure)
    assert view.scales == ("linear", "log")
    alt = alt_of(figure)
    assert "y axis: the y things, in 2 panels: linear scale, log scale." in alt and alt.count("“series a”") == 1
    figure.axes[1].lines[0].set_ydata([1, 2, 4, 8, 32])
    alt = alt_of(figure)
    assert "Panel 1: x axis" in alt and "Panel 2: x axis" in alt and "log scale" in alt


def test_two_lines_are_told_how_far_they_agree_or_that_they_coincide():
    xs = [1, 2, 3, 4, 5, 6]
    apart = line_figure(("a", xs, [1, 2, 3, 4, 5, 6]), ("b", xs, [1, 2, 3, 0, 0, 0]))
    assert "“series a” and “series b” agree up to x = 3 and differ after it." in alt_of(apart)
    same = line_figure(("a", xs, [1, 2, 3, 4, 5, 6]), ("b", xs, [1, 2, 3, 4, 5, 6]))
    assert "“series a” and “series b” coincide at every point." in alt_of(same)


def test_the_words_of_a_notebook_plot_are_its_messages():
    figure = line_figure(("blue", [1, 2, 3, 4, 5], [1, 0.5, 0.25, 0.125, 0.0625]), marks=(("bias", "y", 0.125),))
    found = views(figure)
    words = words_of("blue_clue", found)
    assert words.about.startswith("Table 11.4") and words.names == {
        "blue": "blue coordinate of h_t",
        "bias": "red bias b_y (red - blue)",
    }
    alt = alt_text(words, found)
    assert alt.startswith(words.about) and f"x axis: {words.x}" in alt and f"y axis: {words.y}" in alt
    assert (
        "falls from 1 to 0.0625, each value 0.5 times the one before" in alt
        and "is below “red bias b_y (red - blue)” from x = 5 on" in alt
    )


# --------------------------------------------------------------------------- the table


class Tables(HTMLParser):
    """The tables of an HTML text: each a caption and rows of cell texts; and every start tag with its attributes."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.tables: list[dict] = []
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] | None = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "table":
            self.tables.append({"caption": "", "rows": []})
        elif tag == "tr":
            self.tables[-1]["rows"].append([])
        elif tag in ("th", "td", "caption", "summary"):
            self.text = []

    def handle_data(self, data):
        if self.text is not None:
            self.text.append(data)

    def handle_endtag(self, tag):
        if tag in ("th", "td"):
            self.tables[-1]["rows"][-1].append("".join(self.text))
        elif tag == "caption":
            self.tables[-1]["caption"] = "".join(self.text)
        if tag in ("th", "td", "caption", "summary"):
            self.text = None


@SLOW
@given(
    st.lists(
        st.lists(
            st.tuples(st.integers(0, 30), st.floats(-1e9, 1e9, allow_nan=False)),
            min_size=1,
            max_size=12,
            unique_by=lambda point: point[0],
        ),
        min_size=1,
        max_size=4,
    )
)
def test_the_table_holds_every_value_drawn_in_its_row_and_column(drawn):
    series = [(f"s{index}", [x for x, _ in points], [y for _, y in points]) for index, points in enumerate(drawn)]
    words = Words("About.", "x", "y", {gid: f"name {gid}" for gid, _, _ in series})
    found = views(line_figure(*series))
    (table,) = Tables(table_html(words, found)).tables
    header, *rows = table["rows"]
    assert header == ["x", *(f"name {gid}" for gid, _, _ in series)] and table["caption"] == "About."
    by_x = {row[0]: row[1:] for row in rows}
    assert list(by_x) == [num(x) for x in sorted({x for _, xs, _ in series for x in xs})]
    for column, (_, xs, ys) in enumerate(series):
        assert {x: cells[column] for x, cells in by_x.items() if cells[column]} == {
            num(x): num(y) for x, y in zip(xs, ys)
        }
    plain = table_text(words, found).splitlines()
    assert plain[3:] == [" | ".join(row) for row in [header, *rows]]


def test_reference_lines_bars_points_and_tick_labels_are_in_the_tables():
    figure = Figure()
    axes = figure.subplots()
    axes.bar([1, 2, 3], [-0.5, 0.25, 2], gid="a")
    axes.scatter([2, 3], [7, 8], gid="b")
    axes.axhline(0.125, gid="m")
    axes.set_xticks([1, 2, 3], ["1\nfirst", "2\nsecond", "3\nthird"])
    values, marks = Tables(table_html(WORDS, views(figure))).tables
    assert values["rows"] == [
        ["the x things", "series a", "series b"],
        ["1 first", "-0.5", ""],
        ["2 second", "0.25", "7"],
        ["3 third", "2", "8"],
    ]
    assert (
        marks["rows"] == [["line", "at"], ["mark m", "y = 0.125"]]
        and marks["caption"] == "Reference lines across the plot"
    )
    assert "“series a” is -0.5 at x = 1, 0.25 at x = 2, 2 at x = 3." in alt_of(figure)
    assert "“series b” is 7 at x = 2, 8 at x = 3." in alt_of(figure)


HOSTILE = [
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(2)>',
    "a & b < c",
    "' onmouseover='alert(3)",
    "&lt;b&gt;",
]


@given(st.lists(st.one_of(st.sampled_from(HOSTILE), st.text(min_size=1)), min_size=5, max_size=5))
def test_no_label_text_ever_becomes_markup(texts):
    about, x, y, name, tick = texts
    figure = Figure()
    axes = figure.subplots()
    axes.plot([1, 2], [3, 4], gid="a")
    axes.set_xticks([1, 2], [tick, "2"])
    words = Words(about, x, y, {"a": name})
    page = table_html(words, views(figure))
    parsed = Tables(page)
    allowed = {
        **dict.fromkeys(("details", "summary", "table", "caption", "thead", "tbody", "tr", "td"), set()),
        "th": {"scope"},
    }
    assert all(tag in allowed and set(attrs) <= allowed[tag] for tag, attrs in parsed.tags), parsed.tags
    (table,) = parsed.tables
    shown_tick = " ".join(tick.split()) or "1"
    assert table["caption"] == about and table["rows"][0] == [x, name] and table["rows"][1][0] == shown_tick
    assert html.unescape(re.sub(r"<[^>]+>", "", page)).count(about) >= 1


def test_a_plot_without_words_fails_closed_with_one_line():
    figure = Figure()
    figure.subplots().plot([1, 2], [3, 4])
    with pytest.raises(
        ValueError, match=r"^show_plot: a line has no gid; give each line.*\(gid=\.\.\.\), which names its words$"
    ):
        views(figure)
    with pytest.raises(
        ValueError, match="^show_plot: the figure draws no line, bar, point or reference line to describe$"
    ):
        views(Figure())
    figure = line_figure(("unknown", [1, 2], [3, 4]))
    with pytest.raises(KeyError, match="no message 'plot.blue_clue.unknown'"):
        words_of("blue_clue", views(figure))


# --------------------------------------------------------------------------- both languages


def test_the_words_are_the_notebooks_language():
    figure = line_figure(("blue", [1, 2, 3, 4, 5], [1, 0.5, 0.25, 0.125, 0.0625]), marks=(("bias", "y", 0.125),))
    found = views(figure)
    with messages.speaking("en"):
        english = [alt_text(words_of("blue_clue", found), found), table_html(words_of("blue_clue", found), found)]
    with messages.speaking("zh"):
        chinese = alt_text(words_of("blue_clue", found), found), table_html(words_of("blue_clue", found), found)
    assert not any(CJK.search(text) for text in english), english
    assert (
        "从1降到0.0625，每个值是前一个的0.5倍" in chinese[0]
        and "从x = 5起，“状态h_t的蓝色坐标”低于“红色偏置b_y（红减蓝）”" in chinese[0]
    )
    assert "<summary>图中画出的数值（表格）</summary>" in chinese[1] and ". " not in chinese[0]


SHOW = """
import matplotlib.pyplot as plt
from rnnkit import selfcheck
from rnnkit.plots import show_plot
selfcheck._edition[:] = [{lang!r}]
plt.plot([1, 2, 3, 4, 5], [1, 0.5, 0.25, 0.125, 0.0625], gid="blue")
plt.axhline(0.125, gid="bias")
show_plot("blue_clue")
"""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_show_plot_shows_the_figure_with_its_alt_then_the_table_and_closes_it(lang):
    from matplotlib._pylab_helpers import Gcf

    from rnnkit.cells import CellRunner

    before = selfcheck._edition[:]
    try:
        outputs = CellRunner().run(SHOW.format(lang=lang))
    finally:
        selfcheck._edition[:] = before
    figure, table = outputs
    assert figure["output_type"] == table["output_type"] == "display_data", outputs
    assert set(figure["data"]) == {"image/png", "text/plain"} and set(table["data"]) == {"text/html", "text/plain"}
    alt = figure["metadata"]["image/png"]["alt"]
    assert bool(CJK.search(alt)) == (lang == "zh") and bool(CJK.search(table["data"]["text/html"])) == (lang == "zh")
    assert table["data"]["text/html"].startswith("<details><summary>") and "0.0625" in table["data"]["text/plain"]
    assert Gcf.get_all_fig_managers() == []


HALF_DRAWN = """
import matplotlib.pyplot as plt
from rnnkit.plots import show_plot
from rnnkit.selfcheck import uses_your_functions

def wrong(xs):
    raise ValueError("a student's bug")

with uses_your_functions():
    plt.plot([1, 2, 3], [1, 2, 3], gid="blue")
    plt.plot([1, 2, 3], wrong([1, 2, 3]), gid="red")
    show_plot("blue_clue")
"""


def test_a_plot_cell_whose_function_raises_shows_the_error_and_no_figure_without_words():
    from matplotlib._pylab_helpers import Gcf

    from rnnkit.cells import CellRunner

    outputs = CellRunner().run(HALF_DRAWN)
    assert [output["output_type"] for output in outputs] == ["error"], outputs
    assert outputs[0]["ename"] == "ValueError" and Gcf.get_all_fig_managers() == []
