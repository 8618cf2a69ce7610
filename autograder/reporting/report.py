"""The class report (one self-contained HTML page) and the score table the CLI prints, from
`autograder.reporting.classdata.ClassData` and `autograder.reporting.stats`: what the commands call,
from `report_text` (the score table), `report_page` (the page) and `report_plots` (its figures).

Every word of the report and the score table is a label (`autograder.labels`) in the course language
(`COURSE_LANG`); the plots hold no words (numbers, ids, assignment names, "#"), so they draw with any
font: their alt text (what the axes show and what the data says), their captions and the tables of
the values they draw sit beside them in the page, in the course language.

Points of cells that no TA has graded yet (written answers, flagged cells) are a category of their
own everywhere: awaiting a TA, never lost (`autograder.reporting.classdata.Points`).
"""

from __future__ import annotations

from .report_page import parameter_name, render, write_html
from .report_plots import histogram_figure, misconception_figure, score_bins
from .report_text import STATE_LABELS, failed_lines, score_table

__all__ = [
    "STATE_LABELS",
    "failed_lines",
    "score_table",
    "render",
    "write_html",
    "parameter_name",
    "score_bins",
    "histogram_figure",
    "misconception_figure",
]
