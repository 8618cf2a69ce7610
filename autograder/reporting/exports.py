"""The grade sheets: grades.csv, scores.csv, canvas.csv, questions.csv, question_stats.csv and
parameter_stats.csv (see docs/grade-sheets.md), from the gradebook, the submission ledger and the results of the
autograded notebooks: each student's state per assignment, raw score, late penalty and final grade
(`autograder.reporting.classdata`)."""

from __future__ import annotations

import csv
import datetime as dt
from dataclasses import dataclass
from pathlib import Path

from ..coursedir.layout import Course
from ..labels import label


class UnknownStudent(LookupError):
    """A student id the gradebook does not hold."""


@dataclass(frozen=True)
class Exports:
    """The files `export` writes (see docs/grade-sheets.md)."""

    grades: Path
    scores: Path
    canvas: Path
    questions: Path
    question_stats: Path
    parameter_stats: Path

    def __iter__(self):
        return iter((self.grades, self.scores, self.canvas, self.questions, self.question_stats, self.parameter_stats))


def _points(value: float) -> str:
    return f"{value:.2f}"


#: canvas.csv's header: the column names Canvas's gradebook importer requires, in every course language.
CANVAS_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]


def _header(*columns: str) -> list[str]:
    """Column names in the course language (label `export.<column>`)."""
    return [label(f"export.{column}") for column in columns]


#: What a spreadsheet reads as the start of a formula in a cell.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _cell(value):
    """A CSV cell that no spreadsheet runs as a formula: text that starts like one (a student id or
    name the student chose, say) gets a leading apostrophe; numbers stay as they are."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        try:
            float(value)
        except ValueError:
            return "'" + value
    return value


def _iso(when) -> str:
    """A time of the sheets: ISO 8601 in UTC (as the gradebook keeps it), "" for none."""
    return when.astimezone(dt.timezone.utc).isoformat() if when else ""


def _reason(sub) -> str:
    """Why the student's last hand-in was refused or not graded, "" where it was not; where it was
    refused and an earlier attempt's grade counts, which one (the state is then that grade's)."""
    from .classdata import REFUSED

    if sub is None or not sub.failed:
        return ""
    if sub.state == REFUSED and sub.graded:
        return label("export.refused_earlier_counts", refused=sub.attempts, reason=sub.failed, attempt=sub.attempt)
    return sub.failed


def write_csv(path: Path, header: list[str], rows) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows([_cell(value) for value in row] for row in rows)
    return path


def export(root: Path, out: Path | None = None, *, students: list[str] | None = None) -> Exports:
    """Write the grade sheets to `out` (default exports/), from the gradebook and the structured
    results of the autograded notebooks; `students` limits them to those student ids.

    grades.csv: nbgrader's export columns plus `submitted`, the state, the attempt that counts and
    its lateness, the final grade, the points that await a TA and why the last hand-in was refused or
    not graded; one row per assignment and student, sorted, scores to 2 decimals. scores.csv: one row
    per student, the final grade per assignment, the total, the points that await a TA, the
    assignments in each state, each assignment's raw score, late penalty and points that await a TA.
    canvas.csv: a Canvas gradebook import of the final grades. questions.csv: one row per graded
    cell. question_stats.csv: one row per graded cell across the class, the points that await a TA
    apart from those lost, its facility and discrimination. parameter_stats.csv: one row per value
    range of each drawn parameter of each check (`autograder.reporting.variants`). Headers are in
    the course language (`COURSE_LANG`, labels `export.*`), except canvas.csv's, which Canvas fixes;
    values (ids, numbers, yes/no, states) are the same in every language."""
    from .classdata import GRADED, RECEIVED, REFUSED, Allowance, load, points
    from .stats import question_stats
    from .variants import range_stats

    course = Course(Path(root))
    data = load(course.root, students)
    if students:
        unknown = sorted(set(students) - {s.id for s in data.students})
        if unknown:
            raise UnknownStudent(f"not students of the gradebook: {unknown}")
    out = Path(out or course.exports)
    out.mkdir(parents=True, exist_ok=True)
    found = points(data.rows)

    def awaiting(assignment: str, student: str) -> float:
        """The points of the student's submission of `assignment` that await a TA."""
        return found[(assignment, student)].awaiting if (assignment, student) in found else 0.0

    def graded(assignment: str, student: str):
        """The student's submission of `assignment` where it has a grade, else None."""
        sub = data.submissions.get((assignment, student))
        return sub if sub is not None and sub.graded else None

    def long_rows():
        for assignment in data.assignments:
            for student in data.students:
                sub = data.submissions.get((assignment, student.id))
                scores = (sub.raw_score, sub.penalty, sub.score) if sub and sub.graded else (0.0, 0.0, 0.0)
                allowance = data.allowances.get((assignment, student.id), Allowance())
                yield [
                    assignment,
                    data.duedates[assignment],
                    sub.timestamp if sub else "",
                    student.id,
                    student.last_name,
                    student.first_name,
                    student.email,
                    "yes" if sub else "no",
                    GRADED if sub and sub.state == REFUSED and sub.graded else data.state(assignment, student.id),
                    sub.attempt if sub and sub.attempt is not None else "",
                    sub.attempts if sub else 0,
                    sub.days_late if sub else 0,
                    sub.late_days_used if sub else 0,
                    _iso(allowance.until),
                    allowance.attempts,
                    allowance.late_days,
                    _iso(allowance.closes),
                    *map(_points, scores),
                    _points(awaiting(assignment, student.id)),
                    _points(data.max_scores[assignment]),
                    _reason(sub),
                ]

    grades = write_csv(
        out / "grades.csv",
        _header(
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
        ),
        long_rows(),
    )

    def wide_rows():
        for student in data.students:
            subs = [graded(a, student.id) for a in data.assignments]
            waiting = [awaiting(a, student.id) for a in data.assignments]
            in_state = {
                state: [a for a in data.assignments if data.state(a, student.id) == state]
                for state in (RECEIVED, REFUSED)
            }
            yield [
                student.id,
                student.last_name,
                student.first_name,
                student.email,
                *(_points(sub.score) if sub else "" for sub in subs),
                _points(data.total(student.id)),
                _points(data.max_total),
                _points(sum(waiting)),
                " ".join(a for a in data.assignments if not data.submitted(a, student.id)),
                " ".join(in_state[RECEIVED]),
                " ".join(in_state[REFUSED]),
                " ".join(a for a, sub in zip(data.assignments, subs) if sub and sub.late),
                *(_points(sub.raw_score) if sub else "" for sub in subs),
                *(_points(sub.penalty) if sub else "" for sub in subs),
                *(
                    _points(points) if data.submitted(a, student.id) else ""
                    for a, points in zip(data.assignments, waiting)
                ),
            ]

    scores = write_csv(
        out / "scores.csv",
        [
            *_header("student_id", "last_name", "first_name", "email"),
            *data.assignments,
            *_header("total", "max_total", "points_awaiting_ta", "not_submitted", "received", "refused", "late"),
            *(label("export.assignment_raw_score", assignment=a) for a in data.assignments),
            *(label("export.assignment_penalty", assignment=a) for a in data.assignments),
            *(label("export.assignment_awaiting", assignment=a) for a in data.assignments),
        ],
        wide_rows(),
    )

    def canvas_rows():
        yield ["Points Possible", "", "", "", "", *(_points(data.max_scores[a]) for a in data.assignments)]
        for student in sorted(data.students, key=lambda s: (s.display.lower(), s.id)):
            yield [
                student.display,
                "",
                "",
                student.id,
                "",
                *(_points(sub.score) if (sub := graded(a, student.id)) else "" for a in data.assignments),
            ]

    canvas = write_csv(out / "canvas.csv", [*CANVAS_COLUMNS, *data.assignments], canvas_rows())

    def question_rows():
        for row in data.rows:
            passed = sum(case.ok for case in row.cases)
            yield [
                row.assignment,
                row.student,
                row.grade_id,
                _points(row.score),
                _points(row.max_score),
                " ".join(row.misconceptions),
                passed if row.cases else "",
                len(row.cases) if row.cases else "",
            ]

    questions = write_csv(
        out / "questions.csv",
        _header(
            "assignment", "student_id", "grade_id", "score", "max_score", "misconceptions", "cases_passed", "cases"
        ),
        question_rows(),
    )

    def stats_rows():
        for assignment in data.assignments:
            for q in question_stats(data, assignment):
                yield [
                    q.assignment,
                    q.grade_id,
                    _points(q.max_score),
                    q.submissions,
                    "" if q.mean is None else _points(q.mean),
                    q.full_marks,
                    "" if q.full_share is None else _points(q.full_share),
                    q.zeros,
                    _points(q.lost),
                    _points(q.lost_uncatalogued),
                    len(q.uncatalogued),
                    _points(q.lost_not_started),
                    len(q.not_started),
                    _points(q.points_awaiting),
                    len(q.awaiting),
                    "" if q.facility is None else f"{q.facility:.4f}",
                    "" if q.discrimination is None else f"{q.discrimination:.4f}",
                ]

    stats = write_csv(
        out / "question_stats.csv",
        _header(
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
        ),
        stats_rows(),
    )

    def parameter_rows():
        for assignment in data.assignments:
            for r in range_stats(data, assignment):
                yield [
                    r.assignment,
                    r.grade_id,
                    r.parameter,
                    r.range,
                    r.cases,
                    f"{r.facility:.4f}",
                    r.rest_cases,
                    f"{r.rest_facility:.4f}",
                    f"{r.p_value:.4g}",
                    f"{r.p_adjusted:.4g}",
                    int(r.harder),
                ]

    parameters = write_csv(
        out / "parameter_stats.csv",
        _header(
            "assignment",
            "grade_id",
            "parameter",
            "range",
            "cases",
            "facility",
            "rest_cases",
            "rest_facility",
            "p_value",
            "p_adjusted",
            "harder",
        ),
        parameter_rows(),
    )
    return Exports(grades, scores, canvas, questions, stats, parameters)
