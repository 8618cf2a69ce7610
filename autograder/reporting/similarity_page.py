"""What `python -m autograder similarity ASSIGNMENT` writes: reports/similarity-<assignment>.html (the
pairs ranked, the value flags, the pairs above `similarity.SHOWN` side by side with the matching
spans marked) and, with fixed English headers in every course language, so that any script can read
them, exports/similarity-<assignment>.csv (`student_a,student_b,score`) and
exports/variant-flags-<assignment>.csv (`student,check,case,matches_student`).

Every student's code and id is shown as written and escaped; nothing a student wrote becomes markup.
"""

from __future__ import annotations

import html
from datetime import datetime
from pathlib import Path

import numpy as np

from ..labels import label
from .exports import write_csv
from .page_style import class_style, header_cell, label_html, mono_stack, scroll_region, student_ids
from .similarity import CODE_CHARS, FLOOR, SHOWN, SHOWN_PAIRS, Pair, Similarity, analyse, code_cells, released_cells

#: The most pairs the page lists (the CSV lists every pair from the floor on).
LISTED = 200

#: Extra CSS of the side-by-side view: two columns that stack on a narrow screen.
SIDE_STYLE = """
.sides { display: flex; flex-wrap: wrap; gap: 16px; }
.sides > div { flex: 1 1 320px; min-width: 0; }
pre.code { font-family: MONO; font-size: 13px; margin: 0; padding: 8px; background: var(--band); border: 1px solid var(--line);
           white-space: pre; }
mark { background: #ffe08a; color: var(--ink); }
"""


class NoRelease(FileNotFoundError):
    """The assignment has no released notebook: what is given cannot be told from what was written."""


def write(root: Path, assignment: str, generated: datetime | None = None) -> tuple[Path, Path, Path, Similarity]:
    """Compare the graded submissions of `assignment` in the course at `root` (the autograded notebooks)
    and write the page and the two CSVs; NoRelease where the release is missing."""
    from ..coursedir.layout import Course
    from .classdata import load

    course = Course(Path(root))
    release = course.notebook(course.release(assignment), assignment)
    if not release.is_file():
        raise NoRelease(label("similarity.no_release", assignment=assignment, path=str(release)))
    data = load(course.root, values_of=assignment)
    released = released_cells(release)  # a stub handed in as it was released is no one's code
    codes = {
        sub.student: code_cells(
            course.notebook(course.autograded(sub.student, assignment), assignment), written=True, released=released
        )
        for sub in data.graded(assignment)
    }
    found = analyse(data, assignment, codes, code_cells(release))
    page = write_html(found, course.reports / f"similarity-{assignment}.html", data.course_id, generated)
    return (page, *write_csvs(found, course.exports), found)


def write_csvs(found: Similarity, exports: Path) -> tuple[Path, Path]:
    """The ranked pairs and the value flags as CSV (fixed English headers)."""
    exports.mkdir(parents=True, exist_ok=True)
    ranked = write_csv(
        exports / f"similarity-{found.assignment}.csv",
        ["student_a", "student_b", "score"],
        ([p.student_a, p.student_b, f"{p.score:.4f}"] for p in found.pairs),
    )
    flagged = write_csv(
        exports / f"variant-flags-{found.assignment}.csv",
        ["student", "check", "case", "matches_student"],
        ([f.student, f.check, f.case, f.matches_student] for f in found.flags),
    )
    return ranked, flagged


def _marked(text: str, spans: tuple[tuple[int, int], ...]) -> str:
    """`text` escaped, each span in a <mark>."""
    from copydetect.utils import highlight_overlap

    if not spans:
        return html.escape(text)
    slices = np.array([[start for start, _ in spans], [end for _, end in spans]])
    marked, _ = highlight_overlap(text, slices, "<mark>", "</mark>", escape_html=True)
    return marked


def _anchor(index: int) -> str:
    return f"pair-{index + 1}"


def _side_by_side(found: Similarity, index: int, pair: Pair) -> list[str]:
    columns = []
    for student, spans, share in (
        (pair.student_a, pair.spans_a, pair.share_a),
        (pair.student_b, pair.spans_b, pair.share_b),
    ):
        code = _marked(found.codes.get(student, ""), spans)
        region = label("similarity.region.code", student=student)
        columns.append(
            f'<div><p><span class="id">{html.escape(student)}</span> &middot; {label_html("similarity.share", share=f"{share:.0%}")}</p>'
            f"{scroll_region(region, f'<pre class=code>{code}</pre>')}</div>"
        )
    heading = label_html(
        "similarity.pair", a=student_ids([pair.student_a]), b=student_ids([pair.student_b]), score=f"{pair.score:.2f}"
    )
    return [f'<h3 id="{_anchor(index)}">{heading}</h3>', '<div class="sides">' + "".join(columns) + "</div>"]


def render(found: Similarity, course_id: str, generated: datetime | None = None) -> str:
    """The page, in the course language."""
    stamp = (generated or datetime.now().astimezone()).strftime("%Y-%m-%d %H:%M %Z").strip()
    title = label("similarity.title", assignment=found.assignment)
    shown = [pair for pair in found.pairs if pair.score >= SHOWN][:SHOWN_PAIRS]
    parts = [
        "<!doctype html>",
        f'<html lang="{html.escape(label("page.lang"))}"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{html.escape(title)}</title><style>{class_style()}{SIDE_STYLE.replace('MONO', mono_stack())}</style></head><body><main>",
        f"<header><h1>{html.escape(title)}</h1>",
        '<p class="meta">'
        + label_html(
            "similarity.meta", course=html.escape(course_id), stamp=html.escape(stamp), students=str(found.students)
        )
        + "</p></header>",
        f"<p><strong>{label_html('similarity.not_a_verdict')}</strong></p>",
        f'<p class="note">{label_html("similarity.how")}</p>',
    ]
    parts.append(f"<h2>{label_html('similarity.pairs')}</h2>")
    if found.pairs:
        position = {id(pair): index for index, pair in enumerate(shown)}
        rows = []
        for rank, pair in enumerate(found.pairs[:LISTED], 1):
            score = f"{pair.score:.2f}"
            if id(pair) in position:
                score = f'<a href="#{_anchor(position[id(pair)])}">{score}</a>'
            rows.append(
                f'<tr><td class="num">{rank}</td><td class="id">{html.escape(pair.student_a)}</td>'
                f'<td class="id">{html.escape(pair.student_b)}</td>'
                f'<td class="num">{score}</td><td class="num">{pair.share_a:.0%}</td><td class="num">{pair.share_b:.0%}</td></tr>'
            )
        table = (
            "<table><thead><tr>"
            + header_cell("similarity.col.rank", True)
            + header_cell("similarity.col.student_a")
            + header_cell("similarity.col.student_b")
            + header_cell("similarity.col.score", True)
            + header_cell("similarity.col.share_a", True)
            + header_cell("similarity.col.share_b", True)
            + "</tr></thead><tbody>"
            + "".join(rows)
            + "</tbody></table>"
        )
        parts += [
            "<p>"
            + label_html(
                "similarity.pairs_found",
                pairs=str(len(found.pairs)),
                floor=f"{FLOOR:g}",
                shown=f"{SHOWN:g}",
                most=str(SHOWN_PAIRS),
            )
            + "</p>",
            scroll_region(label("similarity.region.pairs", assignment=found.assignment), table),
        ]
        if len(found.pairs) > LISTED:
            parts.append(
                f"<p>{label_html('similarity.more_pairs', listed=str(LISTED), assignment=html.escape(found.assignment))}</p>"
            )
    else:
        parts.append(f"<p>{label_html('similarity.no_pairs', floor=f'{FLOOR:g}')}</p>")
    if found.no_code:
        parts.append(f"<p>{label_html('similarity.no_code', students=student_ids(found.no_code))}</p>")
    if found.too_long:
        parts.append(
            f"<p>{label_html('similarity.too_long', students=student_ids(found.too_long), chars=f'{CODE_CHARS:,}')}</p>"
        )
    parts.append(f"<h2>{label_html('similarity.flags')}</h2>")
    parts.append(f'<p class="note">{label_html("similarity.flags_how")}</p>')
    if found.flags:
        rows = "".join(
            f'<tr><td class="id">{html.escape(f.student)}</td><td class="id">{html.escape(f.check)}</td><td>{html.escape(f.case)}</td>'
            f'<td class="id">{html.escape(f.matches_student)}</td><td>{html.escape(f.other_case)}</td></tr>'
            for f in found.flags
        )
        table = (
            "<table><thead><tr>"
            + header_cell("similarity.col.student")
            + header_cell("similarity.col.check")
            + header_cell("similarity.col.case")
            + header_cell("similarity.col.matches_student")
            + header_cell("similarity.col.their_case")
            + "</tr></thead><tbody>"
            + rows
            + "</tbody></table>"
        )
        parts.append(scroll_region(label("similarity.region.flags", assignment=found.assignment), table))
    else:
        parts.append(f"<p>{label_html('similarity.no_flags')}</p>")
    if shown:
        parts.append(f"<h2>{label_html('similarity.side_by_side')}</h2>")
        for index, pair in enumerate(shown):
            parts += _side_by_side(found, index, pair)
    parts.append("</main></body></html>")
    return "\n".join(parts)


def write_html(found: Similarity, path: Path, course_id: str, generated: datetime | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(found, course_id, generated), encoding="utf-8")
    return path
