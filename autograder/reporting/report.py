"""The class report (one self-contained HTML page) and the score table the CLI prints, from
`autograder.reporting.classdata.ClassData` and `autograder.reporting.stats`.

Every word of the report and the score table is a label (`autograder.labels`) in the course language
(`COURSE_LANG`); the plots hold no words (numbers, ids, assignment names, "#"), so they draw with any
font, and their translated captions sit beside them in the page.
"""
from __future__ import annotations

import base64
import html
import io
import math
from collections import defaultdict
from datetime import datetime
from pathlib import Path

from rnnkit.messages import _columns

from ..labels import fill, label, template
from .classdata import EPS, GRADED, NOT_SUBMITTED, RECEIVED, REFUSED, ClassData, Row, Submission
from .stats import MisconceptionStats, misconception_stats, question_stats

#: The score table's word for each state.
STATE_LABELS = {NOT_SUBMITTED: "table.state.not_submitted", RECEIVED: "table.state.received", GRADED: "table.state.graded",
                REFUSED: "table.state.refused"}

def _pad(text: str, width: int, right: bool = False) -> str:
    """`text` padded with spaces to `width` columns (a CJK character takes two)."""
    space = " " * max(0, width - sum(map(_columns, text)))
    return space + text if right else text + space


def failed_lines(data: ClassData) -> list[str]:
    """One line per submission whose last autograde failed, with the reason."""
    return [label("table.last_attempt_failed", submission=f"{a}/{s}", reason=sub.failed)
            for (a, s), sub in sorted(data.submissions.items()) if sub.failed]


def _width(text: str) -> int:
    return sum(map(_columns, text))


def _by_hand_and_named(rows: list[Row]) -> dict[tuple[str, str], list]:
    """(student, assignment) -> [score, max score, cells to grade by hand, misconceptions named]."""
    totals: dict[tuple[str, str], list] = defaultdict(lambda: [0.0, 0.0, 0, []])
    for row in rows:
        entry = totals[(row.student, row.assignment)]
        entry[0] += row.score
        entry[1] += row.max_score
        entry[2] += row.needs_manual
        entry[3] += [m for m in row.misconceptions if m not in entry[3]]
    return totals


def score_table(data: ClassData | list[Row]) -> str:
    """A plain-text table: one line per student and assignment, with the cells still to grade by
    hand (written answers, flagged cells) and the misconceptions named (headers in the course
    language).

    Given the class (`ClassData`), every student of the roster and assignment, with its state (not
    submitted, received and not yet graded, graded, refused), the raw score, the late penalty, the
    final grade and the days late; given graded cells alone, the graded submissions and their scores."""
    if isinstance(data, ClassData):
        return _class_table(data)
    lines = [f"{_pad(label('table.student'), 12)} {_pad(label('table.assignment'), 16)} "
             f"{_pad(label('table.score'), 11, right=True)}  {_pad(label('table.by_hand'), 10, right=True)}  {label('table.misconceptions')}"]
    for (student, assignment), (score, maximum, pending, named) in sorted(_by_hand_and_named(data).items()):
        lines.append(f"{student:<12} {assignment:<16} {score:>5.2f}/{maximum:<5.1f}  {pending or '-':>10}  {', '.join(named) or '-'}")
    return "\n".join(lines)


def _class_table(data: ClassData) -> str:
    """`score_table` of the whole class."""
    found = _by_hand_and_named(data.rows)
    states = {state: label(label_id) for state, label_id in STATE_LABELS.items()}
    wide = max(map(_width, [label("table.state"), *states.values()]))
    raw, penalty, final, late = (label(f) for f in ("table.raw", "table.penalty", "table.final", "table.days_late"))
    widths = [max(7, _width(raw)), max(7, _width(penalty)), max(11, _width(final)), max(4, _width(late)),
              max(10, _width(label("table.by_hand")))]
    lines = [f"{_pad(label('table.student'), 12)} {_pad(label('table.assignment'), 16)} {_pad(label('table.state'), wide)} "
             f"{_pad(raw, widths[0], right=True)} {_pad(penalty, widths[1], right=True)} {_pad(final, widths[2], right=True)} "
             f"{_pad(late, widths[3], right=True)}  {_pad(label('table.by_hand'), widths[4], right=True)}  {label('table.misconceptions')}"]
    for student in data.students:
        for assignment in data.assignments:
            sub = data.submissions.get((assignment, student.id))
            _, _, pending, named = found.get((student.id, assignment), (0, 0, 0, []))
            maximum = data.max_scores.get(assignment, 0.0)
            graded = sub is not None and sub.graded
            numbers = ((f"{sub.raw_score:.2f}", f"{sub.penalty:.2f}", f"{sub.score:>5.2f}/{maximum:<5.1f}", str(sub.days_late or "-"))
                       if graded else ("-", "-", f"{'-':>5}/{maximum:<5.1f}", "-"))
            lines.append(f"{student.id:<12} {assignment:<16} {_pad(states[data.state(assignment, student.id)], wide)} "
                         + " ".join(_pad(value, width, right=True) for value, width in zip(numbers, widths))
                         + f"  {_pad(str(pending or '-'), widths[4], right=True)}  {', '.join(named) or '-'}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# The HTML report

STYLE = """
:root { --ink: #1f2933; --muted: #616e7c; --line: #d9dee4; --band: #f5f7fa; --accent: #2f5d8a; }
* { box-sizing: border-box; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "PingFang SC", "Microsoft YaHei",
       "Noto Sans CJK SC", sans-serif; color: var(--ink);
       margin: 0; background: #fff; }
main { max-width: 1120px; margin: 0 auto; padding: 24px 32px 64px; }
header { border-bottom: 3px solid var(--accent); margin-bottom: 24px; padding-bottom: 12px; }
h1 { font-size: 28px; margin: 0 0 4px; }
h2 { font-size: 22px; margin: 40px 0 8px; padding-top: 8px; border-top: 1px solid var(--line); }
h3 { font-size: 17px; margin: 24px 0 8px; color: var(--accent); }
.meta { color: var(--muted); margin: 0; }
.facts { display: flex; flex-wrap: wrap; gap: 12px; margin: 12px 0; padding: 0; list-style: none; }
.facts li { background: var(--band); border: 1px solid var(--line); border-radius: 6px; padding: 6px 12px; }
.facts b { font-size: 18px; }
table { border-collapse: collapse; margin: 8px 0 16px; font-size: 14px; }
th, td { border: 1px solid var(--line); padding: 4px 10px; vertical-align: top; text-align: left; }
th { background: var(--band); font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.num { white-space: nowrap; }
tbody tr:nth-child(even) td { background: #fbfcfd; }
td.missing { color: var(--muted); text-align: center; background: #eef0f3 !important; }
td.received { color: var(--accent); text-align: center; background: #e8f0f8 !important; }
td.refused { color: #8a2f2f; text-align: center; background: #f8e8e8 !important; }
.late { color: #8a2f2f; }
td.who { font-size: 13px; max-width: 300px; }
table.wide { table-layout: fixed; width: 100%; }
table.wide td { overflow-wrap: anywhere; }
.id { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 13px; }
.note { color: var(--muted); font-size: 13px; }
.late.note { color: #6b1f1f; }  /* on a shaded score cell: AA contrast, muted grey is not */
img.plot { display: block; max-width: 100%; height: auto; margin: 8px 0; }
figure.plot { margin: 0; }
figure.plot figcaption { color: var(--muted); font-size: 13px; max-width: 500px; }
details.note { margin: 4px 0 8px; }
summary { cursor: pointer; }
.plots { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; }
"""


def _h(label_id: str, **fields) -> str:
    """A label as HTML: its words escaped, `fields` (HTML already) in its placeholders."""
    return fill(html.escape(template(label_id)), **fields)


def _figure_tag(figure, alt: str, caption: str) -> str:
    """The figure as an inline PNG, with `alt` text and a `caption` (HTML) under it."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=96, bbox_inches="tight")
    return (f'<figure class="plot"><img class="plot" alt="{html.escape(alt)}" '
            f'src="data:image/png;base64,{base64.b64encode(buffer.getvalue()).decode()}">'
            f"<figcaption>{caption}</figcaption></figure>")


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


def histogram_figure(assignment: str, totals: list[float], maximum: float):
    """The score distribution: bins of whole points (wider for long assignments), whole-number axes.

    No words in the figure (the title is the assignment, the student axis "#", the score axis ends at
    the maximum): the page's caption says what it shows, in the course language."""
    top = max(1, math.ceil(maximum))
    width = max(1, math.ceil(top / 30))
    edges = list(range(0, top + width, width))
    figure, axis = _figure(5.2, 2.8)
    axis.hist(totals, bins=edges, color="#2f5d8a", edgecolor="white")
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


def _shade(fraction: float) -> str:
    """A background from pale red (0) through pale yellow to pale green (full marks)."""
    hue = 120 * max(0.0, min(1.0, fraction))
    return f"background: hsl({hue:.0f}, 60%, 88%)"


def _num(value: float) -> str:
    return f"{value:.2f}"


def _people(ids) -> str:
    return ", ".join(f'<span class="id">{html.escape(i)}</span>' for i in ids) or "&ndash;"


def _th(label_id: str, num: bool = False) -> str:
    return f'<th class="num">{_h(label_id)}</th>' if num else f"<th>{_h(label_id)}</th>"


def _listing(label_id: str, count_id: str, items: list[str], sep: str = ", ") -> list[str]:
    """A note naming the students of `items` (HTML already), folded away when there are many."""
    if not items:
        return []
    if len(items) <= 12:
        return [f'<p class="note">{_h(label_id, students=sep.join(items))}</p>']
    return [f'<details class="note"><summary>{_h(count_id, count=str(len(items)))}</summary>{sep.join(items)}</details>']


def _late_note(sub: Submission) -> str:
    """Below a late submission's grade: its days late and the points lost (raw score, penalty and
    final grade on hover)."""
    title = label("report.cell.late_title", raw=_num(sub.raw_score), penalty=_num(sub.penalty), final=_num(sub.score),
                  days=str(sub.days_late), used=str(sub.late_days_used))
    text = label("report.cell.late", days=str(sub.days_late), penalty=_num(sub.penalty))
    return f'<br><span class="note late" title="{html.escape(title)}">{html.escape(text)}</span>'


def _assignment_section(data: ClassData, assignment: str) -> list[str]:
    parts = [f'<h2 id="{html.escape(assignment)}">{html.escape(assignment)}</h2>']
    maximum = data.max_scores.get(assignment, 0.0)
    graded = data.graded(assignment)
    totals = [sub.score for sub in graded]
    missing = data.missing(assignment)
    handed_in = [sub for (a, _), sub in data.submissions.items() if a == assignment]
    received, refused = data.in_state(assignment, RECEIVED), data.in_state(assignment, REFUSED)
    late = [sub for sub in graded if sub.late]
    facts = [_h("report.fact.submitted", count=f"<b>{len(handed_in)}</b>"),
             _h("report.fact.not_submitted", count=f"<b>{len(missing)}</b>"),
             _h("report.fact.points", points=f"<b>{maximum:g}</b>"),
             _h("report.fact.graded", count=f"<b>{len(data.in_state(assignment, GRADED))}</b>")]
    if received:
        facts.append(_h("report.fact.received", count=f"<b>{len(received)}</b>"))
    if refused:
        facts.append(_h("report.fact.refused", count=f"<b>{len(refused)}</b>"))
    if late:
        facts.append(_h("report.fact.late", count=f"<b>{len(late)}</b>", points=_num(sum(sub.penalty for sub in late))))
    if any(sub.counts == "best" for sub in handed_in):
        facts.append(_h("report.fact.best"))
    if totals:
        ordered = sorted(totals)
        median = (ordered[(len(ordered) - 1) // 2] + ordered[len(ordered) // 2]) / 2
        facts += [_h("report.fact.mean", value=f"<b>{sum(totals) / len(totals):.2f}</b>"),
                  _h("report.fact.median", value=f"<b>{median:.2f}</b>"),
                  _h("report.fact.full_marks", count=f"<b>{sum(1 for t in totals if t >= maximum - EPS)}</b>")]
    waiting = [row for row in data.rows_of(assignment) if row.needs_manual]
    if waiting:
        facts.append(_h("report.fact.needs_manual", count=f"<b>{len({row.student for row in waiting})}</b>", cells=str(len(waiting))))
    failed = [sub for (a, _), sub in data.submissions.items() if a == assignment and sub.failed]
    if failed:
        facts.append(_h("report.fact.last_attempt_failed", count=f"<b>{len(failed)}</b>"))
    parts.append('<ul class="facts">' + "".join(f"<li>{fact}</li>" for fact in facts) + "</ul>")
    parts += _listing("report.not_submitted", "report.not_submitted_count", [_people([s]) for s in missing])
    parts += _listing("report.received", "report.received_count", [_people([sub.student]) for sub in received])
    parts += _listing("report.refused", "report.refused_count",
                      [_h("report.refused_entry", student=_people([sub.student]), reason=html.escape(sub.failed)) for sub in refused], "; ")
    parts += _listing("report.late", "report.late_count",
                      [_h("report.late_entry", student=_people([sub.student]), days=str(sub.days_late), penalty=_num(sub.penalty))
                       for sub in late], "; ")
    if not totals:
        parts.append(f"<p>{_h('report.no_submission')}</p>")
        return parts
    found = misconception_stats(data, assignment)
    plots = [_figure_tag(histogram_figure(assignment, totals, maximum), label("report.plot.scores", assignment=assignment),
                         _h("report.plot.scores_caption", points=f"{maximum:g}"))]
    if found:
        plots.append(_figure_tag(misconception_figure(assignment, found), label("report.plot.misconceptions", assignment=assignment),
                                 _h("report.plot.misconceptions_caption")))
    parts.append('<div class="plots">' + "".join(plots) + "</div>")

    parts.append(f"<h3>{_h('report.per_question')}</h3>")
    parts.append('<table class="wide"><colgroup><col style="width:17%"><col style="width:6%"><col style="width:6%">'
                 '<col style="width:9%"><col style="width:6%"><col style="width:7%"><col style="width:9%"><col style="width:17%">'
                 '<col style="width:8%"><col style="width:15%"></colgroup><thead><tr>'
                 + _th("report.col.question") + _th("report.col.points", True) + _th("report.col.mean", True)
                 + _th("report.col.full_share", True) + _th("report.col.zeros", True) + _th("report.col.lost", True)
                 + _th("report.col.lost_outside", True) + _th("report.col.lost_outside_who")
                 + _th("report.col.not_started", True) + _th("report.col.not_started_who")
                 + "</tr></thead><tbody>")
    for q in question_stats(data, assignment):
        parts.append(
            f'<tr><td class="id">{html.escape(q.grade_id)}</td><td class="num">{q.max_score:g}</td>'
            f'<td class="num" style="{_shade(q.mean / q.max_score if q.max_score else 1)}">{_num(q.mean)}</td>'
            f'<td class="num">{100 * q.full_share:.0f}% ({q.full_marks})</td><td class="num">{q.zeros}</td>'
            f'<td class="num">{_num(q.lost)}</td><td class="num">{_num(q.lost_uncatalogued)}</td>'
            f'<td class="who">{_people(q.uncatalogued)}</td>'
            f'<td class="num">{_num(q.lost_not_started)}</td><td class="who">{_people(q.not_started)}</td></tr>')
    parts.append("</tbody></table>")
    parts.append(f'<p class="note">{_h("report.note.outside")}</p>')

    parts.append(f"<h3>{_h('report.misconceptions')}</h3>")
    if found:
        parts.append('<table class="wide"><colgroup><col style="width:21%"><col style="width:37%"><col style="width:9%">'
                     '<col style="width:17%"><col style="width:16%"></colgroup><thead><tr>'
                     + _th("report.col.misconception") + _th("report.col.meaning") + _th("report.col.students", True)
                     + _th("report.col.checks") + _th("report.col.who") + "</tr></thead><tbody>")
        for m in found:
            checks = ", ".join(f'<span class="id">{html.escape(g)}</span> ({n})' for g, n in m.checks)
            parts.append(f'<tr><td class="id">{html.escape(m.id)}</td><td>{html.escape(m.text) or "&ndash;"}</td>'
                         f'<td class="num">{len(m.students)}</td><td>{checks}</td><td class="who">{_people(m.students)}</td></tr>')
        parts.append("</tbody></table>")
    else:
        parts.append(f"<p>{_h('report.no_misconceptions')}</p>")
    return parts


def _overview(data: ClassData) -> list[str]:
    parts = ["<table><thead><tr>" + _th("report.col.assignment") + _th("report.col.points", True)
             + _th("report.col.submitted", True) + _th("report.col.graded", True) + _th("report.col.received", True)
             + _th("report.col.refused", True) + _th("report.col.late", True)
             + _th("report.col.not_submitted", True) + _th("report.col.mean", True)
             + _th("report.col.full_marks", True) + _th("report.col.misconceptions_named", True) + "</tr></thead><tbody>"]
    for a in data.assignments:
        graded = data.graded(a)
        totals = [sub.score for sub in graded]
        maximum = data.max_scores.get(a, 0.0)
        mean = sum(totals) / len(totals) if totals else 0.0
        full = sum(1 for t in totals if t >= maximum - EPS)
        handed_in = sum(1 for (name, _) in data.submissions if name == a)
        counts = [handed_in, *(len(data.in_state(a, state)) for state in (GRADED, RECEIVED, REFUSED)),
                  sum(1 for sub in graded if sub.late), len(data.missing(a))]
        parts.append(f'<tr><td><a href="#{html.escape(a)}">{html.escape(a)}</a></td><td class="num">{maximum:g}</td>'
                     + "".join(f'<td class="num">{count}</td>' for count in counts) +
                     f'<td class="num" style="{_shade(mean / maximum if maximum and totals else 1)}">{_num(mean) if totals else "&ndash;"}</td>'
                     f'<td class="num">{full}</td><td class="num">{len(misconception_stats(data, a))}</td></tr>')
    parts.append("</tbody></table>")
    return parts


def _student_table(data: ClassData) -> list[str]:
    parts = [f'<h2 id="students">{_h("report.students")}</h2>',
             f'<p class="note">{_h("report.note.students")}</p>',
             "<table><thead><tr>" + _th("report.col.student")]
    parts += [f'<th class="num">{html.escape(a)}<br><span class="note">{_h("report.of_points", points=f"{data.max_scores[a]:g}")}</span></th>'
              for a in data.assignments]
    parts.append(f'<th class="num">{_h("report.col.total")}<br><span class="note">{_h("report.of_points", points=f"{data.max_total:g}")}</span>'
                 "</th></tr></thead><tbody>")
    named = defaultdict(list)
    for row in data.rows:
        named[(row.assignment, row.student)] += [m for m in row.misconceptions if m not in named[(row.assignment, row.student)]]
    not_submitted = html.escape(label("report.cell.not_submitted"))
    none_named = label("report.cell.no_misconception")
    waiting = {(row.assignment, row.student) for row in data.rows if row.needs_manual}
    manual = f' <span class="note" title="{html.escape(label("report.cell.needs_manual"))}">&#9998;</span>'  # a pencil
    for student in data.students:
        name = html.escape(student.id) + (f' <span class="note">{html.escape(student.display)}</span>' if student.display != student.id else "")
        cells = [f'<td class="id">{name}</td>']
        for a in data.assignments:
            sub = data.submissions.get((a, student.id))
            if sub is None:
                cells.append(f'<td class="missing" title="{not_submitted}">&ndash;</td>')
                continue
            marks = _marks(sub)
            if not sub.graded:
                state = "refused" if sub.state == REFUSED else "received"
                title = (label("report.cell.refused_title", reason=sub.failed) if sub.state == REFUSED
                         else label("report.cell.received_title"))
                word = label("report.cell.refused") if sub.state == REFUSED else label("report.cell.received")
                cells.append(f'<td class="{state}" title="{html.escape(title)}">{html.escape(word)}'
                             f"{manual if (a, student.id) in waiting and sub.state == REFUSED else ''}{marks}</td>")
                continue
            title = ", ".join(named[(a, student.id)]) or none_named
            if sub.counts == "best" and sub.attempt is not None:
                title += " · " + label("report.cell.best", attempt=str(sub.attempt), attempts=str(sub.attempts))
            late = _late_note(sub) if sub.late else ""
            cells.append(f'<td class="num" title="{html.escape(title)}" style="{_shade(sub.score / sub.max_score if sub.max_score else 1)}">'
                         f"{_num(sub.score)}{manual if (a, student.id) in waiting else ''}{marks}{late}</td>")
        total = data.total(student.id)
        cells.append(f'<td class="num" style="{_shade(total / data.max_total if data.max_total else 1)}"><b>{_num(total)}</b></td>')
        parts.append("<tr>" + "".join(cells) + "</tr>")
    parts.append("</tbody></table>")
    return parts


def _marks(sub: Submission) -> str:
    """The signs after a score: admission refused the last hand-in (a slashed circle), its last
    autograde failed otherwise (a warning sign), a newer hand-in waits for grading (a circular arrow);
    the reason on hover."""
    if sub.state == REFUSED and sub.graded:
        return f' <span class="note" title="{html.escape(label("report.cell.refused_title", reason=sub.failed))}">&#8856;</span>'
    if sub.failed and sub.state != REFUSED:
        return f' <span class="note" title="{html.escape(label("report.cell.last_attempt_failed", reason=sub.failed))}">&#9888;</span>'
    if sub.pending is not None:
        return f' <span class="note" title="{html.escape(label("report.cell.pending", attempt=str(sub.pending)))}">&#8635;</span>'
    return ""


def render(data: ClassData, generated: datetime | None = None) -> str:
    """The class report as one self-contained HTML page, in the course language."""
    generated = generated or datetime.now().astimezone()
    stamp = generated.strftime("%Y-%m-%d %H:%M %Z").strip()
    course = html.escape(data.course_id or label("report.no_course_id"))
    handed_in = len(data.submissions)
    expected = len(data.students) * len(data.assignments)
    states = [sub.state for sub in data.submissions.values()]
    meta = _h("report.meta", course=f"<b>{course}</b>", stamp=html.escape(stamp), students=str(len(data.students)),
              assignments=str(len(data.assignments)), graded=str(states.count(GRADED)), received=str(states.count(RECEIVED)),
              refused=str(states.count(REFUSED)), missing=str(expected - handed_in))
    heading = _h("report.title", course=f'<span class="id" style="font-size:inherit">{course}</span>')
    parts = ["<!doctype html>", f'<html lang="{html.escape(label("report.lang"))}"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             f"<title>{_h('report.title', course=course)}</title><style>{STYLE}</style></head><body><main>",
             f"<header><h1>{heading}</h1>", f'<p class="meta">{meta}</p>']
    links = " &middot; ".join(f'<a href="#{html.escape(a)}">{html.escape(a)}</a>' for a in data.assignments)
    parts.append(f'<p class="meta">{links} &middot; <a href="#students">{_h("report.students_link")}</a></p></header>')
    if not data.assignments:
        parts.append(f"<p>{_h('report.no_assignments')}</p>")
    else:
        parts += _overview(data)
    for assignment in data.assignments:
        parts += _assignment_section(data, assignment)
    if data.students:
        parts += _student_table(data)
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
