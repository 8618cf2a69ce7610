"""The class report as one self-contained HTML page (`render`, `write_html`) in the course language:
an overview of the assignments; per assignment its facts, who did not submit, waits or was refused
or late, the plots (`autograder.reporting.report_plots`) with their alt text, caption and table of
values, the per-question table, the harder ranges of the drawn parameters and the misconceptions
with the students named; then the student x assignment table.
"""

from __future__ import annotations

import base64
import html
import io
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from ..grading.checks import BRANCH
from ..labels import label
from ..term import policy
from .classdata import EPS, GRADED, RECEIVED, REFUSED, Allowance, ClassData, Points, Row, Submission, points
from .page_style import class_style, header_cell, label_html, scroll_region, student_ids
from .report_plots import histogram_figure, misconception_figure, score_bins
from .report_text import _named
from .stats import MisconceptionStats, misconception_stats, question_stats
from .variants import LEVEL, range_stats


def _sign(symbol: str, text: str) -> str:
    """A sign after a score (an HTML entity): `text` on hover, and read out by a screen reader."""
    return f' <span class="note" title="{html.escape(text)}" aria-hidden="true">{symbol}</span><span class="sr">{html.escape(text)}</span>'


def _figure_tag(figure, alt: str, caption: str, values: str) -> str:
    """The figure as an inline PNG with `alt` text, a `caption` (HTML) under it and the table of the
    `values` it draws (HTML) folded in the caption."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=96, bbox_inches="tight")
    return (
        f'<figure class="plot"><img alt="{html.escape(alt)}" '
        f'src="data:image/png;base64,{base64.b64encode(buffer.getvalue()).decode()}">'
        f"<figcaption>{caption}{values}</figcaption></figure>"
    )


def _values(summary: str, header: str, rows: list[tuple[str, int]]) -> str:
    """The values a plot draws as a table (HTML cells `rows` of a name and a number of students),
    folded under `summary` (HTML)."""
    body = "".join(f'<tr><td>{name}</td><td class="num">{count}</td></tr>' for name, count in rows)
    return (
        f"<details><summary>{summary}</summary><table><thead><tr>{header}{header_cell('report.col.students', True)}</tr></thead>"
        f"<tbody>{body}</tbody></table></details>"
    )


def _range(edges: list[int], i: int) -> str:
    """The points of bin `i` in words (the last bin holds its upper edge too)."""
    which = "report.plot.range_last" if i == len(edges) - 2 else "report.plot.range"
    return label(which, low=str(edges[i]), high=str(edges[i + 1]))


def _tallest(names: list[str], counts: list[int], total: int, one: str, many: str, field: str) -> str:
    """The sentence naming the largest of `counts` (label `one`) or, where several tie, all of them
    (label `many`), the names in placeholder `field`."""
    top = max(counts)
    tied = [name for name, count in zip(names, counts) if count == top]
    return label(
        one if len(tied) == 1 else many,
        **{field: label("report.plot.separator").join(tied)},
        count=str(top),
        total=str(total),
    )


def _median(values: list[float]) -> float:
    """The median of `values` (not empty)."""
    ordered = sorted(values)
    return (ordered[(len(ordered) - 1) // 2] + ordered[len(ordered) // 2]) / 2


def _histogram(assignment: str, totals: list[float], maximum: float, caption: str) -> str:
    """The score histogram with its alt text (what the axes show, where most students are, the
    median, how many at full marks and at zero), its `caption` (HTML) and its values as a table."""
    edges, counts = score_bins(totals, maximum)
    ranges = [_range(edges, i) for i in range(len(counts))]
    peak = (
        label("report.plot.scores_spread")
        if max(counts) == 1 < len(totals)
        else _tallest(ranges, counts, len(totals), "report.plot.scores_peak", "report.plot.scores_peaks", "ranges")
    )
    summary = label(
        "report.plot.scores_summary",
        lowest=_num(min(totals)),
        highest=_num(max(totals)),
        median=_num(_median(totals)),
        points=f"{maximum:g}",
        full=str(sum(1 for t in totals if t >= maximum - EPS)),
        zero=str(sum(1 for t in totals if t <= EPS)),
    )
    alt = label(
        "report.plot.scores",
        assignment=assignment,
        count=str(len(totals)),
        points=f"{maximum:g}",
        width=str(edges[1] - edges[0]),
        peak=peak,
        summary=summary,
    )
    values = _values(
        label_html("report.plot.scores_data"),
        header_cell("report.col.range"),
        [(html.escape(name), count) for name, count in zip(ranges, counts)],
    )
    return _figure_tag(histogram_figure(assignment, totals, maximum), alt, caption, values)


def _misconception_plot(assignment: str, found: list[MisconceptionStats], graded: int) -> str:
    """The misconceptions' bar chart with its alt text (what the axes show, the most common one), its
    caption and its values as a table."""
    counts = [len(m.students) for m in found]
    alt = label(
        "report.plot.misconceptions",
        assignment=assignment,
        count=str(len(found)),
        top=_tallest(
            [m.id for m in found],
            counts,
            graded,
            "report.plot.misconceptions_top",
            "report.plot.misconceptions_tops",
            "ids",
        ),
    )
    values = _values(
        label_html("report.plot.misconceptions_data"),
        header_cell("report.col.misconception"),
        [(f'<span class="id">{html.escape(m.id)}</span>', count) for m, count in zip(found, counts)],
    )
    return _figure_tag(
        misconception_figure(assignment, found), alt, label_html("report.plot.misconceptions_caption"), values
    )


def _shade(fraction: float) -> str:
    """A background from pale red (0) through pale yellow to pale green (full marks)."""
    hue = 120 * max(0.0, min(1.0, fraction))
    return f"background: hsl({hue:.0f}, 60%, 88%)"


def _graded_shade(score: float, maximum: float) -> str:
    """`_shade` of `score` of the `maximum` points graded; none where nothing is graded."""
    return f' style="{_shade(score / maximum)}"' if maximum > EPS else ""


def _num(value: float) -> str:
    return f"{value:.2f}"


def _listing(label_id: str, count_id: str, items: list[str], sep: str = ", ") -> list[str]:
    """A note naming the students of `items` (HTML already), folded away when there are many."""
    if not items:
        return []
    if len(items) <= 12:
        return [f'<p class="note">{label_html(label_id, students=sep.join(items))}</p>']
    return [
        f'<details class="note"><summary>{label_html(count_id, count=str(len(items)))}</summary>{sep.join(items)}</details>'
    ]


def _granted(allowance: Allowance, timezone: str) -> str:
    """What `extend` granted one student, times in the course's zone ("due 2027-03-03 23:59 (UTC); attempts +1")."""
    zone = ZoneInfo(timezone)

    def at(when) -> str:
        return policy.shown(when, zone)

    parts = [label("report.extended_until", until=at(allowance.until))] if allowance.until else []
    if allowance.attempts:
        parts.append(label("report.extended_attempts", count=allowance.attempts))
    if allowance.late_days:
        parts.append(label("report.extended_late_days", count=allowance.late_days))
    if allowance.closes:
        parts.append(label("report.extended_closes", closes=at(allowance.closes)))
    return "; ".join(parts)


def _late_note(sub: Submission) -> str:
    """Below a late submission's grade: its days late and the points lost (raw score, penalty and
    final grade on hover)."""
    title = label(
        "report.cell.late_title",
        raw=_num(sub.raw_score),
        penalty=_num(sub.penalty),
        final=_num(sub.score),
        days=str(sub.days_late),
        used=str(sub.late_days_used),
    )
    text = label("report.cell.late", days=str(sub.days_late), penalty=_num(sub.penalty))
    return f'<br><span class="note late" title="{html.escape(title)}">{html.escape(text)}</span>'


def _awaiting_note(awaiting: float) -> str:
    """Below a grade: the points that await a TA (a pencil), where there are any."""
    if awaiting <= EPS:
        return ""
    return (
        '<br><span class="note"><span aria-hidden="true">&#9998;</span> '
        f"{label_html('report.cell.awaiting', points=f'{awaiting:g}')}</span>"
    )


def _facts(data: ClassData, assignment: str, found: dict[tuple[str, str], Points]) -> list[str]:
    """The assignment's facts: its submissions in each state, its points, lateness, the counting
    rule, the grades' mean, median and full marks, the points that await a TA, failed attempts."""
    maximum = data.max_scores.get(assignment, 0.0)
    graded = data.graded(assignment)
    totals = [sub.score for sub in graded]
    handed_in = [sub for (a, _), sub in data.submissions.items() if a == assignment]
    received, refused = data.in_state(assignment, RECEIVED), data.in_state(assignment, REFUSED)
    late = [sub for sub in graded if sub.late]
    facts = [
        label_html("report.fact.submitted", count=f"<b>{len(handed_in)}</b>"),
        label_html("report.fact.not_submitted", count=f"<b>{len(data.missing(assignment))}</b>"),
        label_html("report.fact.points", points=f"<b>{maximum:g}</b>"),
        label_html("report.fact.graded", count=f"<b>{len(data.in_state(assignment, GRADED))}</b>"),
    ]
    if received:
        facts.append(label_html("report.fact.received", count=f"<b>{len(received)}</b>"))
    if refused:
        facts.append(label_html("report.fact.refused", count=f"<b>{len(refused)}</b>"))
    if late:
        facts.append(
            label_html("report.fact.late", count=f"<b>{len(late)}</b>", points=_num(sum(sub.penalty for sub in late)))
        )
    if any(sub.counts == "best" for sub in handed_in):
        facts.append(label_html("report.fact.best"))
    if totals:
        facts += [
            label_html("report.fact.mean", value=f"<b>{sum(totals) / len(totals):.2f}</b>"),
            label_html("report.fact.median", value=f"<b>{_median(totals):.2f}</b>"),
            label_html("report.fact.full_marks", count=f"<b>{sum(1 for t in totals if t >= maximum - EPS)}</b>"),
        ]
    waiting = [row for row in data.rows_of(assignment) if row.needs_manual]
    if waiting:
        facts.append(
            label_html(
                "report.fact.awaiting",
                points=f"<b>{sum(row.awaiting for row in waiting):g}</b>",
                count=str(len({row.student for row in waiting})),
                cells=str(len(waiting)),
            )
        )
        awaited = {sub.student: found.get((assignment, sub.student), Points()).awaiting for sub in graded}
        facts.append(
            label_html(
                "report.fact.full_of_graded",
                count=f"<b>{sum(1 for sub in graded if sub.score >= maximum - awaited[sub.student] - EPS)}</b>",
            )
        )
    failed = [sub for sub in handed_in if sub.failed]
    if failed:
        facts.append(label_html("report.fact.last_attempt_failed", count=f"<b>{len(failed)}</b>"))
    return ['<ul class="facts">' + "".join(f"<li>{fact}</li>" for fact in facts) + "</ul>"]


def _who(data: ClassData, assignment: str) -> list[str]:
    """The notes naming who did not submit, whose work waits for grading, who was refused (and why)
    and who was late."""
    graded = data.graded(assignment)
    parts = _listing(
        "report.not_submitted", "report.not_submitted_count", [student_ids([s]) for s in data.missing(assignment)]
    )
    parts += _listing(
        "report.received",
        "report.received_count",
        [student_ids([sub.student]) for sub in data.in_state(assignment, RECEIVED)],
    )
    parts += _listing(
        "report.refused",
        "report.refused_count",
        [
            label_html(
                "report.refused_entry_counts" if sub.graded else "report.refused_entry",
                student=student_ids([sub.student]),
                reason=html.escape(sub.failed),
                attempt=str(sub.attempt),
            )
            for sub in data.in_state(assignment, REFUSED)
        ],
        "; ",
    )
    parts += _listing(
        "report.extended",
        "report.extended_count",
        [
            f"{student_ids([student])} ({html.escape(_granted(allowance, data.timezone))})"
            for (a, student), allowance in sorted(data.allowances.items())
            if a == assignment
        ],
        "; ",
    )
    parts += _listing(
        "report.late",
        "report.late_count",
        [
            label_html(
                "report.late_entry",
                student=student_ids([sub.student]),
                days=str(sub.days_late),
                penalty=_num(sub.penalty),
            )
            for sub in graded
            if sub.late
        ],
        "; ",
    )
    return parts


def _question_table(data: ClassData, assignment: str) -> list[str]:
    """The per-question table: mean, full marks and zeros of the cells graded, points lost, lost
    outside the catalogue and on a check not started (with whom), and the points that await a TA."""
    rows = []
    for q in question_stats(data, assignment):
        shade = f' style="{_shade(q.mean / q.max_score if q.max_score else 1)}"' if q.mean is not None else ""
        rows.append(
            f'<tr><td class="id">{html.escape(q.grade_id)}</td><td class="num">{q.max_score:g}</td>'
            f'<td class="num"{shade}>{_num(q.mean) if q.mean is not None else "&ndash;"}</td>'
            f'<td class="num">{f"{q.facility:.2f}" if q.facility is not None else "&ndash;"}</td>'
            f'<td class="num">{f"{q.discrimination:.2f}" if q.discrimination is not None else "&ndash;"}</td>'
            f'<td class="num">{f"{100 * q.full_share:.0f}% ({q.full_marks})" if q.full_share is not None else "&ndash;"}</td>'
            f'<td class="num">{q.zeros}</td><td class="num">{_num(q.lost)}</td><td class="num">{_num(q.lost_uncatalogued)}</td>'
            f'<td class="who">{student_ids(q.uncatalogued)}</td>'
            f'<td class="num">{_num(q.lost_not_started)}</td><td class="who">{student_ids(q.not_started)}</td>'
            f'<td class="num">{f"{_num(q.points_awaiting)} ({len(q.awaiting)})" if q.awaiting else "&ndash;"}</td></tr>'
        )
    widths = (13, 4, 5, 6, 7, 8, 5, 5, 8, 13, 6, 12, 8)
    table = (
        '<table class="wide"><colgroup>'
        + "".join(f'<col style="width:{w}%">' for w in widths)
        + "</colgroup><thead><tr>"
        + header_cell("report.col.question")
        + header_cell("report.col.points", True)
        + header_cell("report.col.mean", True)
        + header_cell("report.col.facility", True)
        + header_cell("report.col.discrimination", True)
        + header_cell("report.col.full_share", True)
        + header_cell("report.col.zeros", True)
        + header_cell("report.col.lost", True)
        + header_cell("report.col.lost_outside", True)
        + header_cell("report.col.lost_outside_who")
        + header_cell("report.col.not_started", True)
        + header_cell("report.col.not_started_who")
        + header_cell("report.col.awaiting", True)
        + "</tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table>"
    )
    return [
        f"<h3>{label_html('report.per_question')}</h3>",
        scroll_region(label("report.region.questions", assignment=assignment), table),
        f'<p class="note">{label_html("report.note.outside")}</p>',
        f'<p class="note">{label_html("report.note.items")}</p>',
    ]


def parameter_name(parameter: str) -> str:
    """A drawn parameter as a reader says it ("branch", "len:xs", "shape:X" or a number's name:
    `autograder.grading.checks.drawn`), in the course language."""
    kind, _, name = parameter.partition(":")
    if parameter == BRANCH:
        return label("report.param.branch")
    return label(f"report.param.{kind}", name=name) if name and kind in ("len", "shape") else parameter


def _variants(data: ClassData, assignment: str) -> list[str]:
    """The facility of each value range of each drawn parameter: how many were tested, and the
    ranges harder than the rest of their check (`autograder.reporting.variants`)."""
    found = range_stats(data, assignment)
    parts = [f"<h3>{label_html('report.variants')}</h3>"]
    if not found:
        return parts + [f"<p>{label_html('report.variants.none')}</p>"]
    harder = [r for r in found if r.harder]
    parts.append(
        "<p>"
        + label_html(
            "report.variants.summary",
            ranges=str(len(found)),
            checks=str(len({r.grade_id for r in found})),
            harder=str(len(harder)),
        )
        + "</p>"
    )
    if harder:
        rows = "".join(
            f'<tr><td class="id">{html.escape(r.grade_id)}</td><td>{html.escape(parameter_name(r.parameter))}</td>'
            f'<td class="id">{html.escape(r.range)}</td><td class="num">{r.cases}</td><td class="num">{r.facility:.2f}</td>'
            f'<td class="num">{r.rest_facility:.2f} ({r.rest_cases})</td><td class="num">{r.p_adjusted:.2g}</td></tr>'
            for r in harder
        )
        table = (
            "<table><thead><tr>"
            + header_cell("report.col.question")
            + header_cell("report.col.parameter")
            + header_cell("report.col.range")
            + header_cell("report.col.cases", True)
            + header_cell("report.col.facility", True)
            + header_cell("report.col.rest_facility", True)
            + header_cell("report.col.p_adjusted", True)
            + "</tr></thead><tbody>"
            + rows
            + "</tbody></table>"
        )
        parts.append(scroll_region(label("report.region.variants", assignment=assignment), table))
    return parts + [f'<p class="note">{label_html("report.note.variants", level=f"{LEVEL:g}")}</p>']


def _misconception_table(assignment: str, found: list[MisconceptionStats]) -> list[str]:
    """Each misconception named once, with its explanation, the checks it showed in and who holds it."""
    parts = [f"<h3>{label_html('report.misconceptions')}</h3>"]
    if not found:
        return parts + [f"<p>{label_html('report.no_misconceptions')}</p>"]
    rows = []
    for m in found:
        checks = ", ".join(f'<span class="id">{html.escape(g)}</span> ({n})' for g, n in m.checks)
        rows.append(
            f'<tr><td class="id">{html.escape(m.id)}</td><td>{html.escape(m.text) or "&ndash;"}</td>'
            f'<td class="num">{len(m.students)}</td><td>{checks}</td><td class="who">{student_ids(m.students)}</td></tr>'
        )
    table = (
        '<table class="wide"><colgroup><col style="width:21%"><col style="width:37%"><col style="width:9%">'
        '<col style="width:17%"><col style="width:16%"></colgroup><thead><tr>'
        + header_cell("report.col.misconception")
        + header_cell("report.col.meaning")
        + header_cell("report.col.students", True)
        + header_cell("report.col.checks")
        + header_cell("report.col.who")
        + "</tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table>"
    )
    return parts + [scroll_region(label("report.region.misconceptions", assignment=assignment), table)]


def _assignment_section(data: ClassData, assignment: str, found: dict[tuple[str, str], Points]) -> list[str]:
    parts = [
        f'<h2 id="{html.escape(assignment)}">{html.escape(assignment)}</h2>',
        *_facts(data, assignment, found),
        *_who(data, assignment),
    ]
    graded = data.graded(assignment)
    if not graded:
        return parts + [f"<p>{label_html('report.no_submission')}</p>"]
    maximum = data.max_scores.get(assignment, 0.0)
    awaiting = sum(found.get((assignment, sub.student), Points()).awaiting for sub in graded)
    caption = label_html(
        "report.plot.scores_caption",
        points=f"{maximum:g}",
        awaiting=label_html("report.plot.scores_awaiting", points=f"{awaiting:g}") if awaiting > EPS else "",
    )
    named = misconception_stats(data, assignment)
    plots = [_histogram(assignment, [sub.score for sub in graded], maximum, caption)]
    if named:
        plots.append(_misconception_plot(assignment, named, len(graded)))
    parts.append('<div class="plots">' + "".join(plots) + "</div>")
    return (
        parts
        + _question_table(data, assignment)
        + _variants(data, assignment)
        + _misconception_table(assignment, named)
    )


def _overview(data: ClassData) -> list[str]:
    rows = []
    for a in data.assignments:
        graded = data.graded(a)
        totals = [sub.score for sub in graded]
        maximum = data.max_scores.get(a, 0.0)
        mean = sum(totals) / len(totals) if totals else 0.0
        full = sum(1 for t in totals if t >= maximum - EPS)
        handed_in = sum(1 for (name, _) in data.submissions if name == a)
        counts = [
            handed_in,
            *(len(data.in_state(a, state)) for state in (GRADED, RECEIVED, REFUSED)),
            sum(1 for sub in graded if sub.late),
            len(data.missing(a)),
        ]
        rows.append(
            f'<tr><td><a href="#{html.escape(a)}">{html.escape(a)}</a></td><td class="num">{maximum:g}</td>'
            + "".join(f'<td class="num">{count}</td>' for count in counts)
            + f'<td class="num" style="{_shade(mean / maximum if maximum and totals else 1)}">{_num(mean) if totals else "&ndash;"}</td>'
            f'<td class="num">{full}</td><td class="num">{len(misconception_stats(data, a))}</td></tr>'
        )
    table = (
        "<table><thead><tr>"
        + header_cell("report.col.assignment")
        + header_cell("report.col.points", True)
        + header_cell("report.col.submitted", True)
        + header_cell("report.col.graded", True)
        + header_cell("report.col.received", True)
        + header_cell("report.col.refused", True)
        + header_cell("report.col.late", True)
        + header_cell("report.col.not_submitted", True)
        + header_cell("report.col.mean", True)
        + header_cell("report.col.full_marks", True)
        + header_cell("report.col.misconceptions_named", True)
        + "</tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table>"
    )
    return [scroll_region(label("report.region.overview"), table)]


def _ungraded(sub: Submission | None, found: Points | None) -> float:
    """The points of a hand-in nobody has graded yet: all of them where nothing of it is graded, else
    those awaiting a TA (none where nothing was handed in: those count 0)."""
    if sub is None:
        return 0.0
    return (found or Points()).awaiting if sub.graded else sub.max_score


def _student_cell(sub: Submission | None, found: Points | None, named: list[str]) -> str:
    """One student's cell of an assignment: not submitted, received, refused, or the final grade
    (shaded by the share of the graded points it holds) with its signs, lateness and the points that
    await a TA."""
    if sub is None:
        word = html.escape(label("report.cell.not_submitted"))
        return f'<td class="missing" title="{word}"><span aria-hidden="true">&ndash;</span><span class="sr">{word}</span></td>'
    found = found or Points()
    awaiting = _awaiting_note(found.awaiting)
    if not sub.graded:
        refused = sub.state == REFUSED
        title = (
            label("report.cell.refused_title", reason=sub.failed) if refused else label("report.cell.received_title")
        )
        word = label("report.cell.refused") if refused else label("report.cell.received")
        return (
            f'<td class="{sub.state}" title="{html.escape(title)}">{html.escape(word)}'
            f"{_marks(sub)}{awaiting if refused else ''}</td>"
        )
    title = ", ".join(named) or label("report.cell.no_misconception")
    if sub.counts == "best" and sub.attempt is not None:
        title += " · " + label("report.cell.best", attempt=str(sub.attempt), attempts=str(sub.attempts))
    late = _late_note(sub) if sub.late else ""
    return (
        f'<td class="num" title="{html.escape(title)}"{_graded_shade(sub.score, sub.max_score - _ungraded(sub, found))}>'
        f"{_num(sub.score)}{_marks(sub)}{late}{awaiting}</td>"
    )


def _student_table(data: ClassData, found: dict[tuple[str, str], Points]) -> list[str]:
    header = (
        "<table><thead><tr>"
        + header_cell("report.col.student")
        + "".join(
            f'<th class="num">{html.escape(a)}<br><span class="note">{label_html("report.of_points", points=f"{data.max_scores[a]:g}")}'
            "</span></th>"
            for a in data.assignments
        )
        + f'<th class="num">{label_html("report.col.total")}<br><span class="note">'
        + f"{label_html('report.of_points', points=f'{data.max_total:g}')}"
        "</span></th></tr></thead><tbody>"
    )
    named = _named(data.rows)
    rows = []
    for student in data.students:
        name = html.escape(student.id) + (
            f' <span class="note">{html.escape(student.display)}</span>' if student.display != student.id else ""
        )
        cells = [f'<td class="id">{name}</td>']
        cells += [
            _student_cell(
                data.submissions.get((a, student.id)), found.get((a, student.id)), named.get((a, student.id), [])
            )
            for a in data.assignments
        ]
        total = data.total(student.id)
        awaiting = sum(found[(a, student.id)].awaiting for a in data.assignments if (a, student.id) in found)
        ungraded = sum(
            _ungraded(data.submissions.get((a, student.id)), found.get((a, student.id))) for a in data.assignments
        )
        cells.append(
            f'<td class="num"{_graded_shade(total, data.max_total - ungraded)}><b>{_num(total)}</b>{_awaiting_note(awaiting)}</td>'
        )
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return [
        f'<h2 id="students">{label_html("report.students")}</h2>',
        f'<p class="note">{label_html("report.note.students")}</p>',
        scroll_region(label("report.students"), header + "".join(rows) + "</tbody></table>"),
    ]


def _marks(sub: Submission) -> str:
    """The signs after a score: admission refused the last hand-in (a slashed circle), its last
    autograde failed otherwise (a warning sign), a newer hand-in waits for grading (a circular arrow);
    each says why on hover and to a screen reader."""
    if sub.state == REFUSED and sub.graded:
        return _sign("&#8856;", label("report.cell.refused_title", reason=sub.failed))
    if sub.failed and sub.state != REFUSED:
        return _sign("&#9888;", label("report.cell.last_attempt_failed", reason=sub.failed))
    if sub.pending is not None:
        return _sign("&#8635;", label("report.cell.pending", attempt=str(sub.pending)))
    return ""


def render(data: ClassData, generated: datetime | None = None) -> str:
    """The class report as one self-contained HTML page, in the course language."""
    generated = generated or datetime.now().astimezone()
    stamp = generated.strftime("%Y-%m-%d %H:%M %Z").strip()
    course = html.escape(data.course_id or label("report.no_course_id"))
    handed_in = len(data.submissions)
    expected = len(data.students) * len(data.assignments)
    states = [sub.state for sub in data.submissions.values()]
    meta = label_html(
        "report.meta",
        course=f"<b>{course}</b>",
        stamp=html.escape(stamp),
        students=str(len(data.students)),
        assignments=str(len(data.assignments)),
        graded=str(states.count(GRADED)),
        received=str(states.count(RECEIVED)),
        refused=str(states.count(REFUSED)),
        missing=str(expected - handed_in),
    )
    heading = label_html("report.title", course=f'<span class="id" style="font-size:inherit">{course}</span>')
    parts = [
        "<!doctype html>",
        f'<html lang="{html.escape(label("page.lang"))}"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{label_html('report.title', course=course)}</title><style>{class_style()}</style></head><body><main>",
        f"<header><h1>{heading}</h1>",
        f'<p class="meta">{meta}</p>',
    ]
    links = " &middot; ".join(f'<a href="#{html.escape(a)}">{html.escape(a)}</a>' for a in data.assignments)
    parts.append(
        f'<p class="meta">{links} &middot; <a href="#students">{label_html("report.students_link")}</a></p></header>'
    )
    if not data.assignments:
        parts.append(f"<p>{label_html('report.no_assignments')}</p>")
    else:
        parts += _overview(data)
    found = points(data.rows)
    for assignment in data.assignments:
        parts += _assignment_section(data, assignment, found)
    if data.students:
        parts += _student_table(data, found)
    parts.append("</main></body></html>")
    return "\n".join(parts)


def write_html(data: ClassData | list[Row], path: Path, generated: datetime | None = None) -> Path:
    """Write the class report to `path`: per assignment the score distribution, a per-question table
    and the misconceptions with the students named; then the student x assignment table."""
    if not isinstance(data, ClassData):
        data = ClassData.from_rows(list(data))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(data, generated), encoding="utf-8")
    return path
