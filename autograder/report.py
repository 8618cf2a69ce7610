"""The class report: scores and named misconceptions per student and check, as a table and HTML plots."""
from __future__ import annotations

import base64
import html
import io
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402
import nbformat  # noqa: E402

from . import catalogue, config  # noqa: E402
from .layout import Course  # noqa: E402

@dataclass
class Row:
    """One graded cell of one student's submission."""

    student: str
    assignment: str
    grade_id: str
    score: float
    max_score: float
    misconceptions: list[str] = field(default_factory=list)


def results_in(notebook_path: Path) -> dict[str, dict]:
    """grade id -> the structured result the grader stored with that grade cell
    (`autograder.execute.RESULT_KEY`: check, score, points, misconceptions, cases)."""
    from .execute import RESULT_KEY

    found: dict[str, dict] = {}
    for cell in nbformat.read(notebook_path, as_version=4).cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if not cell.metadata.get("nbgrader", {}).get("grade") or cell.cell_type != "code":
            continue
        for output in cell.get("outputs", []):
            if output.get("output_type") == "execute_result" and RESULT_KEY in output.get("metadata", {}):
                found[grade_id] = dict(output["metadata"][RESULT_KEY])
    return found


def collect(root: Path) -> list[Row]:
    """Every graded cell in the gradebook, with the misconceptions the grader named."""
    from nbgrader.api import Gradebook

    course = Course(Path(root))
    rows: list[Row] = []
    with Gradebook(config.database_url(root, config.load(root))) as gradebook:
        for assignment in gradebook.assignments:
            for submission in gradebook.assignment_submissions(assignment.name):
                for notebook in submission.notebooks:
                    path = course.autograded(submission.student_id, assignment.name) / f"{notebook.name}.ipynb"
                    results = results_in(path) if path.is_file() else {}
                    for grade in notebook.grades:
                        named = results.get(grade.name, {}).get("misconceptions", [])
                        rows.append(Row(submission.student_id, assignment.name, grade.name, grade.score or 0.0, grade.max_score, list(named)))
    return rows


def score_table(rows: list[Row]) -> str:
    """A plain-text table: one line per student and assignment, with the misconceptions named."""
    totals: dict[tuple[str, str], list] = defaultdict(lambda: [0.0, 0.0, []])
    for row in rows:
        entry = totals[(row.student, row.assignment)]
        entry[0] += row.score
        entry[1] += row.max_score
        entry[2] += [m for m in row.misconceptions if m not in entry[2]]
    lines = [f"{'student':<12} {'assignment':<16} {'score':>11}  misconceptions named"]
    for (student, assignment), (score, maximum, named) in sorted(totals.items()):
        lines.append(f"{student:<12} {assignment:<16} {score:>5.2f}/{maximum:<5.1f}  {', '.join(named) or '-'}")
    return "\n".join(lines)


def _figure_tag(figure) -> str:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=90, bbox_inches="tight")
    plt.close(figure)
    return f'<img alt="plot" src="data:image/png;base64,{base64.b64encode(buffer.getvalue()).decode()}">'


def write_html(rows: list[Row], path: Path) -> Path:
    """The class report: per assignment, the score distribution and misconception counts per check."""
    parts = ["<!doctype html><meta charset='utf-8'><title>Class report</title><h1>Class report</h1>"]
    for assignment in sorted({row.assignment for row in rows}):
        mine = [row for row in rows if row.assignment == assignment]
        totals = Counter()
        for row in mine:
            totals[row.student] += row.score
        maximum = sum(row.max_score for row in mine) / max(1, len(totals))
        figure, axis = plt.subplots(figsize=(6, 3))
        axis.hist(list(totals.values()), bins=min(20, max(5, len(totals))), range=(0, maximum), color="tab:blue")
        axis.set(xlabel=f"score (of {maximum:g})", ylabel="students", title=f"{assignment}: score distribution")
        parts.append(f"<h2>{html.escape(assignment)}</h2><p>{len(totals)} submissions, mean {sum(totals.values()) / max(1, len(totals)):.2f} of {maximum:g}.</p>")
        parts.append(_figure_tag(figure))
        counts = Counter((row.grade_id, name) for row in mine for name in row.misconceptions)
        if counts:
            labels = [f"{grade_id}: {name}" for (grade_id, name), _ in counts.most_common()]
            figure, axis = plt.subplots(figsize=(7, 0.35 * len(labels) + 1))
            axis.barh(labels[::-1], [n for _, n in counts.most_common()][::-1], color="tab:red")
            axis.set(xlabel="students", title=f"{assignment}: misconceptions per check")
            axis.xaxis.set_major_locator(MaxNLocator(integer=True))
            parts.append(_figure_tag(figure))
            texts = {entry.id: entry.text for entry in catalogue.mistakes(assignment)}
            parts.append("<table border=1 cellpadding=4><tr><th>check</th><th>misconception</th><th>students</th><th>what it means</th></tr>")
            parts += [f"<tr><td>{html.escape(g)}</td><td>{html.escape(n)}</td><td>{c}</td><td>{html.escape(texts[n])}</td></tr>" for (g, n), c in counts.most_common()]
            parts.append("</table>")
        else:
            parts.append("<p>No catalogued misconception was named.</p>")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(parts), encoding="utf-8")
    return path
