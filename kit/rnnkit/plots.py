"""A notebook's plot shown with words: a text alternative, and the values drawn as a table.

`show_plot(name)` takes the place of `plt.show()` in a plot cell. It shows the figure with a text
alternative (the PNG's `alt`, in the output's metadata {"image/png": {"alt": ...}}) that says what
the plot shows, its axes and, computed from the values drawn, each series' trend; then the values
drawn as a table folded in a <details> element (an HTML output with a text/plain fallback). The
words are the kit's messages, in the notebook's language: `plot.<name>` (what the plot shows),
`plot.<name>.x` and `plot.<name>.y` (the axes) and `plot.<name>.<gid>` for each line, bar set,
point set and reference line, named by its matplotlib `gid`. The numbers are read off the figure.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping
from dataclasses import dataclass

from . import messages
from .selfcheck import _edition

__all__ = ["show_plot", "Words", "words_of", "views", "alt_text", "table_html", "table_text"]

#: A series of at most this many values is told value by value, not by its trend.
LISTED = 4
#: Relative tolerance within which two drawn values count as the same.
SAME = 1e-9
#: What joins a language's sentences, and the items of a list (English: " " and ", ").
_SENTENCE_GAP = {"zh": ""}
_LIST_GAP = {"zh": "、"}


@dataclass(frozen=True)
class Series:
    """One line, bar set or point set (`kind`), with its x and y values (n,) in drawing order."""

    gid: str
    kind: str
    xs: tuple[float, ...]
    ys: tuple[float, ...]


@dataclass(frozen=True)
class Mark:
    """A reference line across a panel: vertical at x = `at` (`axis` "x") or horizontal at y = `at` ("y")."""

    gid: str
    axis: str
    at: float


@dataclass(frozen=True)
class View:
    """What one or more panels draw (panels that draw the same are one view): the series, the
    reference lines, the x axis' own tick labels by x (where it has them), the y scale of each panel."""

    series: tuple[Series, ...]
    marks: tuple[Mark, ...]
    ticks: tuple[tuple[float, str], ...]
    scales: tuple[str, ...]


@dataclass(frozen=True)
class Words:
    """A plot's words: what it shows, its x and y axes, and the name of each series and mark by gid."""

    about: str
    x: str
    y: str
    names: Mapping[str, str]


def show_plot(name: str, figure=None) -> None:
    """Show `figure` (default: the current one) with its words `plot.<name>...`, then its values as a
    table, and close it."""
    import matplotlib.pyplot as plt
    from IPython.display import display

    figure = plt.gcf() if figure is None else figure
    with messages.speaking(_edition[0]):
        found = views(figure)
        words = words_of(name, found)
        alt, table, plain = alt_text(words, found), table_html(words, found), table_text(words, found)
    display(figure, metadata={"image/png": {"alt": alt}})
    display({"text/html": table, "text/plain": plain}, raw=True)
    plt.close(figure)


def words_of(name: str, found: list[View]) -> Words:
    """The messages `plot.<name>`, `.x`, `.y` and `.<gid>` of every series and mark in `found`."""
    gids = {item.gid for view in found for item in (*view.series, *view.marks)}
    prefix = f"plot.{name}"
    return Words(
        messages.text(prefix),
        messages.text(f"{prefix}.x"),
        messages.text(f"{prefix}.y"),
        {gid: messages.text(f"{prefix}.{gid}") for gid in sorted(gids)},
    )


# --------------------------------------------------------------------------- reading the figure


def views(figure) -> list[View]:
    """What the panels of `figure` draw, panels that draw the same values merged (their scales kept);
    a panel that draws nothing is left out."""
    found: dict[tuple, list[str]] = {}
    for axes in figure.axes:
        series, marks = _series(axes), _marks(axes)
        if series or marks:
            found.setdefault((series, marks, _ticks(axes)), []).append(axes.get_yscale())
    if not found:
        raise ValueError("show_plot: the figure draws no line, bar, point or reference line to describe")
    return [View(*drawn, tuple(scales)) for drawn, scales in found.items()]


def _series(axes) -> tuple[Series, ...]:
    """The lines (but reference lines), bar sets and point sets of one panel, in that order."""
    from matplotlib.collections import PathCollection
    from matplotlib.container import BarContainer

    lines = [
        Series(_gid([line], "line"), "line", *_pairs(line.get_xdata(), line.get_ydata()))
        for line in axes.get_lines()
        if _mark_axis(axes, line) is None
    ]
    bars = [
        Series(
            _gid(c.patches, "bar set"),
            "bars",
            *_pairs([p.get_x() + p.get_width() / 2 for p in c.patches], c.datavalues),
        )
        for c in axes.containers
        if isinstance(c, BarContainer)
    ]
    points = [
        Series(_gid([c], "point set"), "points", *_pairs(*_columns(c.get_offsets())))
        for c in axes.collections
        if isinstance(c, PathCollection)
    ]
    return tuple(lines + bars + points)


def _marks(axes) -> tuple[Mark, ...]:
    """The reference lines of one panel (`axvline`, `axhline`)."""
    found = []
    for line in axes.get_lines():
        axis = _mark_axis(axes, line)
        if axis is not None:
            at = line.get_xdata() if axis == "x" else line.get_ydata()
            found.append(Mark(_gid([line], "reference line"), axis, float(at[0])))
    return tuple(found)


def _mark_axis(axes, line) -> str | None:
    """Which axis a line across the whole panel marks: "x" for a vertical one (`axvline`), "y" for a
    horizontal one (`axhline`); None for a line of values."""
    transform = line.get_transform()
    if transform is axes.get_xaxis_transform("grid"):
        return "x"
    if transform is axes.get_yaxis_transform("grid"):
        return "y"
    return None


def _ticks(axes) -> tuple[tuple[float, str], ...]:
    """The x axis' tick labels by x where its ticks are set by hand (`plt.xticks`), whitespace joined."""
    from matplotlib.ticker import FixedLocator

    if not isinstance(axes.xaxis.get_major_locator(), FixedLocator):
        return ()
    return tuple(
        (float(x), " ".join(label.get_text().split()))
        for x, label in zip(axes.get_xticks(), axes.get_xticklabels())
        if label.get_text().strip()
    )


def _gid(artists: list, kind: str) -> str:
    """The one gid the artists of a series or mark share, which names its words."""
    gids = {artist.get_gid() for artist in artists}
    if len(gids) != 1 or not isinstance(next(iter(gids)), str):
        raise ValueError(
            f"show_plot: a {kind} has no gid; give each line, bar set, point set and reference line a gid "
            "(gid=...), which names its words"
        )
    return gids.pop()


def _columns(offsets) -> tuple[list, list]:
    """The x and y columns of an (n, 2) array of points."""
    return [row[0] for row in offsets], [row[1] for row in offsets]


def _pairs(xs, ys) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The x and y values (n,) of a series as floats."""
    try:
        return tuple(map(float, xs)), tuple(map(float, ys))
    except (TypeError, ValueError):
        raise ValueError("show_plot: a series draws values that are not numbers") from None


# --------------------------------------------------------------------------- the words


def _num(value: float) -> str:
    return f"{value:.6g}"


def _same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=SAME)


def _join(items: list[str], gaps: Mapping[str, str], default: str) -> str:
    return gaps.get(messages.language(), default).join(items)


def _in_panel(panel: int | None, sentence: str) -> str:
    """`sentence` as said of panel number `panel` (None: the plot's only view)."""
    return (
        sentence if panel is None else _join([messages.text("plot.panel", index=panel), sentence], _SENTENCE_GAP, " ")
    )


def alt_text(words: Words, found: list[View]) -> str:
    """The plot's text alternative: what it shows, its axes, each series' trend, where a line
    crosses a horizontal reference line, the reference lines, which lines agree, and where the table is."""
    sentences = [words.about]
    for index, view in enumerate(found, start=1):
        sentences += _view_sentences(words, view, index if len(found) > 1 else None)
    sentences.append(messages.text("plot.table_note"))
    return _join(sentences, _SENTENCE_GAP, " ")


def _view_sentences(words: Words, view: View, panel: int | None) -> list[str]:
    xs = [x for series in view.series for x in series.xs if math.isfinite(x)] + [
        m.at for m in view.marks if m.axis == "x"
    ]
    axes = messages.text(
        "plot.axes",
        x=words.x,
        y=words.y,
        low=_num(min(xs, default=math.nan)),
        high=_num(max(xs, default=math.nan)),
        scale=_scale(view.scales),
    )
    sentences = [_in_panel(panel, axes)]
    sentences += [messages.text("plot.series", name=words.names[s.gid], trend=trend(s)) for s in view.series]
    sentences += [
        said
        for s in view.series
        if s.kind == "line"
        for m in view.marks
        if m.axis == "y"
        if (said := _crossing(words, s, m))
    ]
    sentences += [messages.text(f"plot.mark_{m.axis}", name=words.names[m.gid], at=_num(m.at)) for m in view.marks]
    return sentences + _comparisons(words, [s for s in view.series if s.kind == "line"])


def _scale(scales: tuple[str, ...]) -> str:
    """The y scale in words: nothing for one linear panel, else each panel's."""
    if scales == ("linear",):
        return ""
    named = [messages.text(f"plot.scale.{scale}") for scale in scales]
    if len(named) == 1:
        return messages.text("plot.scale_one", scale=named[0])
    return messages.text("plot.scale_panels", count=len(named), scales=_join(named, _LIST_GAP, ", "))


def trend(series: Series) -> str:
    """What a series does, from its values: its values one by one (a point set, or a short series),
    else whether it stays, rises, falls (by a constant ratio) or varies, and where it settles."""
    xs, ys = series.xs, series.ys
    if not all(map(math.isfinite, ys)):
        return messages.text("plot.trend.not_finite")
    if series.kind == "points" or len(ys) <= LISTED:
        points = [messages.text("plot.point", x=_num(x), value=_num(y)) for x, y in zip(xs, ys)]
        return messages.text("plot.trend.points", points=_join(points, _LIST_GAP, ", "))
    if all(_same(y, ys[0]) for y in ys):
        return messages.text("plot.trend.constant", value=_num(ys[0]))
    settled = _settled(ys)
    if settled < len(ys) - 1:
        return messages.text(
            "plot.trend.then_stays",
            trend=_moves(xs[: settled + 1], ys[: settled + 1]),
            x=_num(xs[settled]),
            value=_num(ys[-1]),
        )
    return _moves(xs, ys)


def _settled(ys: tuple[float, ...]) -> int:
    """The index where the last run of equal values starts."""
    start = len(ys) - 1
    while start > 0 and _same(ys[start - 1], ys[-1]):
        start -= 1
    return start


def _moves(xs: tuple[float, ...], ys: tuple[float, ...]) -> str:
    """How values that do not all stay the same move: rise, fall (each time by the same ratio), or vary."""
    steps = [b - a for a, b in zip(ys, ys[1:])]
    ends = {"first": _num(ys[0]), "last": _num(ys[-1])}
    if all(step >= 0 for step in steps) or all(step <= 0 for step in steps):
        said = messages.text("plot.trend.rises" if ys[-1] > ys[0] else "plot.trend.falls", **ends)
        ratio = _ratio(ys)
        return said if ratio is None else messages.text("plot.trend.ratio", trend=said, ratio=_num(ratio))
    low, high = ys.index(min(ys)), ys.index(max(ys))
    return messages.text(
        "plot.trend.varies", **ends, low=_num(ys[low]), low_x=_num(xs[low]), high=_num(ys[high]), high_x=_num(xs[high])
    )


def _ratio(ys: tuple[float, ...]) -> float | None:
    """The ratio of each value to the one before where it is the same all along (three values at least)."""
    if len(ys) < 3 or 0 in ys:
        return None
    ratio = ys[1] / ys[0]
    return ratio if all(_same(b / a, ratio) for a, b in zip(ys, ys[1:])) else None


def _crossing(words: Words, series: Series, mark: Mark) -> str | None:
    """Where a line ends up on the other side of a horizontal reference line than it started, and stays."""
    sides = [0 if _same(y, mark.at) else math.copysign(1, y - mark.at) for y in series.ys]
    if not sides or not all(map(math.isfinite, series.ys)) or sides[-1] in (0, sides[0]):
        return None
    start = max(i for i, side in enumerate(sides) if side != sides[-1]) + 1
    return messages.text(
        "plot.below" if sides[-1] < 0 else "plot.above",
        name=words.names[series.gid],
        mark=words.names[mark.gid],
        x=_num(series.xs[start]),
    )


def _comparisons(words: Words, lines: list[Series]) -> list[str]:
    """Lines drawn over the same x that coincide; of exactly two lines, how far they agree."""
    said = []
    for index, a in enumerate(lines):
        for b in lines[index + 1 :]:
            if a.xs == b.xs and all(map(_same, a.ys, b.ys)):
                said.append(messages.text("plot.same", a=words.names[a.gid], b=words.names[b.gid]))
    if len(lines) == 2 and not said and lines[0].xs == lines[1].xs:
        a, b = lines
        agree = next((i for i, (p, q) in enumerate(zip(a.ys, b.ys)) if not _same(p, q)), len(a.ys))
        if agree:
            said.append(
                messages.text("plot.agree_until", a=words.names[a.gid], b=words.names[b.gid], x=_num(a.xs[agree - 1]))
            )
    return said


# --------------------------------------------------------------------------- the table


def _rows(view: View) -> list[list[str]]:
    """The table of one view: a row per x drawn (its tick label where it has one), a column per series
    ("" where a series has no value at that x, its values joined where it has several)."""
    ticks = dict(view.ticks)
    order = sorted(dict.fromkeys(x for series in view.series for x in series.xs), key=lambda x: (math.isnan(x), x))
    rows = []
    for x in order:
        cells = [", ".join(_num(y) for at, y in zip(series.xs, series.ys) if at == x) for series in view.series]
        rows.append([ticks.get(x) or _num(x), *cells])
    return rows


def _mark_rows(words: Words, view: View) -> list[list[str]]:
    """A row per reference line: its name, and where it is ("y = 0.125")."""
    return [[words.names[m.gid], f"{m.axis} = {_num(m.at)}"] for m in view.marks]


def _html_table(caption: str, header: list[str], rows: list[list[str]]) -> str:
    """A table with its caption, a column header row, and a row header (the first cell) on each row."""
    head = "".join(f'<th scope="col">{_esc(cell)}</th>' for cell in header)
    body = "".join(
        f'<tr><th scope="row">{_esc(row[0])}</th>' + "".join(f"<td>{_esc(cell)}</td>" for cell in row[1:]) + "</tr>"
        for row in rows
    )
    return f"<table><caption>{_esc(caption)}</caption><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _esc(text: str) -> str:
    """`text` as HTML text (never an attribute value: every attribute of the table is a constant)."""
    return html.escape(text, quote=False)


def _tables(words: Words, found: list[View]) -> list[tuple[str, list[str], list[list[str]]]]:
    """(caption, header, rows) of each table: a view's values, then its reference lines where it has any."""
    tables = []
    for index, view in enumerate(found, start=1):
        panel = index if len(found) > 1 else None
        tables.append(
            (_in_panel(panel, words.about), [words.x, *(words.names[s.gid] for s in view.series)], _rows(view))
        )
        if view.marks:
            tables.append(
                (
                    messages.text("plot.marks_caption"),
                    [messages.text("plot.column.line"), messages.text("plot.column.at")],
                    _mark_rows(words, view),
                )
            )
    return tables


def table_html(words: Words, found: list[View]) -> str:
    """The values drawn as HTML: tables (`_tables`) in a <details> element that opens on its <summary>."""
    tables = "".join(_html_table(*table) for table in _tables(words, found))
    return f"<details><summary>{_esc(messages.text('plot.table_summary'))}</summary>{tables}</details>"


def table_text(words: Words, found: list[View]) -> str:
    """The values drawn as plain text: the summary, then each table's caption and rows, cells joined by " | "."""
    lines = [messages.text("plot.table_summary")]
    for caption, header, rows in _tables(words, found):
        lines += ["", caption, " | ".join(header), *(" | ".join(row) for row in rows)]
    return "\n".join(lines) + "\n"
