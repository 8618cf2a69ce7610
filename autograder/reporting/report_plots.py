"""The class report's plots as matplotlib figures: the score distribution (`score_bins`: whole-point
bins, wider for long assignments, the last one closed) and the students per misconception, most first.

They hold no words (numbers, ids, the assignment's name, "#"), so they draw with any font: the page
says what they show beside them (`autograder.reporting.report_page`). matplotlib is imported only
when a figure is drawn.
"""

from __future__ import annotations

import math

from .stats import MisconceptionStats


def _figure(width: float, height: float):
    """A matplotlib figure of that size in inches and its one axis (matplotlib is imported only by
    the commands that draw: it costs half a second of start-up)."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height))
    return figure, figure.subplots()


def _whole():
    """A tick locator of whole numbers only."""
    from matplotlib.ticker import MaxNLocator

    return MaxNLocator(integer=True)


def score_bins(totals: list[float], maximum: float) -> tuple[list[int], list[int]]:
    """The histogram's bin edges (whole points, wider for long assignments, the last bin closed) and
    the number of `totals` in each bin."""
    import numpy

    top = max(1, math.ceil(maximum))
    width = max(1, math.ceil(top / 30))
    edges = list(range(0, top + width, width))
    counts, _ = numpy.histogram(totals, bins=edges)
    return edges, [int(count) for count in counts]


def histogram_figure(assignment: str, totals: list[float], maximum: float):
    """The score distribution (`score_bins`), whole-number axes.

    No words in the figure (the title is the assignment, the student axis "#", the score axis ends at
    the maximum): the page's alt text, caption and table of values say what it shows, in the course
    language."""
    edges, counts = score_bins(totals, maximum)
    figure, axis = _figure(5.2, 2.8)
    axis.bar(edges[:-1], counts, width=edges[1] - edges[0], align="edge", color="#2f5d8a", edgecolor="white")
    axis.set(xlabel=f"0 – {maximum:g}", ylabel="#", title=assignment)
    axis.set_xlim(0, edges[-1])
    axis.xaxis.set_major_locator(_whole())
    axis.yaxis.set_major_locator(_whole())
    axis.spines[["top", "right"]].set_visible(False)
    return figure


def misconception_figure(assignment: str, found: list[MisconceptionStats]):
    """Students per misconception, most first, on a whole-number axis (ids and "#", no words)."""
    labels = [m.id for m in found][::-1]
    counts = [len(m.students) for m in found][::-1]
    figure, axis = _figure(5.2, 0.3 * len(labels) + 1.1)
    axis.barh(labels, counts, color="#b5473a")
    axis.set(xlabel="#", title=assignment)
    axis.xaxis.set_major_locator(_whole())
    axis.set_xlim(0, max(counts, default=0) + 0.5)
    axis.spines[["top", "right"]].set_visible(False)
    return figure
