"""The class as graded: per student and graded cell the score and the misconceptions the grader
named (`Row`), a submission's points by who gives them, those awaiting a TA apart (`Points`), with
the roster, what became of each hand-in (`Submission`, decided by `autograder.term.standing`: its
state, the grade that counts, lateness) and the assignments' questions (`ClassData`).

Everything here comes from structured data: the gradebook (nbgrader.api.Gradebook) for students,
submissions and scores, the course's submission ledger (`autograder.coursedir.ledger`: receipts,
attempts and the scores of earlier attempts) with the term's rules (`autograder.term.policy`),
the folders in submitted/, the result the grader stores with each grade cell
(`autograder.grading.result.GradeResult`) for the misconceptions it named, and the record of a
submission's failed autograde (`autograder.coursedir.layout.FailedAttempt`). Printed feedback and
logs are never parsed.
The statistics are `autograder.reporting.stats`; the pages and tables, `autograder.reporting.report`.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import NamedTuple

import nbformat

from ..coursedir import config
from ..coursedir.gradebook import awaiting_ta
from ..coursedir.layout import Course
from ..coursedir.ledger import Ledger
from ..grading.result import CaseOutcome, GradeResult
from ..term.standing import (
    EPS,
    GRADED,
    NOT_SUBMITTED,
    RECEIVED,
    REFUSED,
    STATES,
    Allowance,
    Submission,
    allowances,
    standing,
)

__all__ = [
    "EPS",
    "GRADED",
    "NOT_SUBMITTED",
    "RECEIVED",
    "REFUSED",
    "STATES",
    "Allowance",
    "ClassData",
    "Row",
    "Student",
    "Submission",
]


@dataclass
class Row:
    """One graded cell of one student's submission."""

    student: str
    assignment: str
    grade_id: str
    score: float
    max_score: float
    misconceptions: list[str] = field(default_factory=list)
    cases: list[CaseOutcome] = field(default_factory=list)
    #: a written answer (or a refused or flagged submission's cell) no TA has graded yet: its points
    #: await a TA, neither lost nor earned
    needs_manual: bool = False
    #: the check's function was still the stub
    not_started: bool = False
    #: a TA gave its score and the autograder none (a written answer graded by hand)
    by_ta: bool = False

    @property
    def lost(self) -> float:
        """Points lost (none while the cell awaits a TA)."""
        return 0.0 if self.needs_manual else max(0.0, self.max_score - self.score)

    @property
    def awaiting(self) -> float:
        """Points that await a TA: the cell's whole maximum while no TA has graded it."""
        return self.max_score if self.needs_manual else 0.0


@dataclass
class Points:
    """A submission's points by who gives them: the autograder, a TA, or nobody yet (awaiting a TA)."""

    auto: float = 0.0
    auto_max: float = 0.0
    by_ta: float = 0.0
    by_ta_max: float = 0.0
    awaiting: float = 0.0

    def add(self, row: Row) -> None:
        """Count `row`'s points where they belong."""
        if row.needs_manual:
            self.awaiting += row.max_score
        elif row.by_ta:
            self.by_ta, self.by_ta_max = self.by_ta + row.score, self.by_ta_max + row.max_score
        else:
            self.auto, self.auto_max = self.auto + row.score, self.auto_max + row.max_score


def points(rows: list[Row]) -> dict[tuple[str, str], Points]:
    """(assignment, student) -> the points of that submission's cells, by who gives them."""
    found: dict[tuple[str, str], Points] = defaultdict(Points)
    for row in rows:
        found[(row.assignment, row.student)].add(row)
    return dict(found)


@dataclass(frozen=True)
class Student:
    """A student of the gradebook (names and email as nbgrader holds them, often empty)."""

    id: str
    first_name: str = ""
    last_name: str = ""
    email: str = ""

    @property
    def display(self) -> str:
        """ "Last, First" when the gradebook has a name, else the student id."""
        name = ", ".join(part for part in (self.last_name, self.first_name) if part)
        return name or self.id


@dataclass
class ClassData:
    """The class as the gradebook, the ledger and the graded notebooks hold it: `submissions` has an
    entry for every hand-in (graded, refused or received); a student with none is not submitted.
    `allowances` holds what `extend` granted, in force (handed in or not)."""

    course_id: str
    assignments: list[str]
    max_scores: dict[str, float]
    duedates: dict[str, str]
    questions: dict[str, list[tuple[str, float]]]
    students: list[Student]
    submissions: dict[tuple[str, str], Submission]
    rows: list[Row]
    allowances: dict[tuple[str, str], Allowance] = field(default_factory=dict)
    #: the course's TIMEZONE, where the pages give times
    timezone: str = "UTC"

    def submitted(self, assignment: str, student: str) -> bool:
        return (assignment, student) in self.submissions

    def state(self, assignment: str, student: str) -> str:
        """NOT_SUBMITTED, RECEIVED, GRADED or REFUSED."""
        sub = self.submissions.get((assignment, student))
        return sub.state if sub else NOT_SUBMITTED

    def missing(self, assignment: str) -> list[str]:
        """Students of the roster who handed nothing of `assignment` in."""
        return [s.id for s in self.students if (assignment, s.id) not in self.submissions]

    def in_state(self, assignment: str, state: str) -> list[Submission]:
        """The submissions of `assignment` in `state`, by student."""
        return [sub for (a, _), sub in sorted(self.submissions.items()) if a == assignment and sub.state == state]

    def graded(self, assignment: str) -> list[Submission]:
        """The submissions of `assignment` with a grade that counts (graded, or refused with an
        earlier attempt's grade), by student."""
        return [sub for (a, _), sub in sorted(self.submissions.items()) if a == assignment and sub.graded]

    def rows_of(self, assignment: str) -> list[Row]:
        return [row for row in self.rows if row.assignment == assignment]

    def graded_rows_of(self, assignment: str) -> list[Row]:
        """The cells of `assignment`'s submissions that have a grade (those of a hand-in refused or
        not graded yet left out)."""

        def counted(row: Row) -> bool:
            sub = self.submissions.get((assignment, row.student))
            return sub is None or sub.graded

        return [row for row in self.rows_of(assignment) if counted(row)]

    def total(self, student: str) -> float:
        """The sum of the student's final grades (nothing graded counts 0)."""
        return sum(sub.score for (a, s), sub in self.submissions.items() if s == student and sub.graded)

    @property
    def max_total(self) -> float:
        return sum(self.max_scores.get(a, 0.0) for a in self.assignments)

    @classmethod
    def from_rows(cls, rows: list[Row]) -> "ClassData":
        """Class data from graded cells alone, without a gradebook (no roster: nobody counts as not
        submitted)."""
        assignments = sorted({row.assignment for row in rows})
        questions: dict[str, dict[str, float]] = defaultdict(dict)
        submissions: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0.0])
        for row in rows:
            questions[row.assignment].setdefault(row.grade_id, row.max_score)
            submissions[(row.assignment, row.student)][0] += row.score
            submissions[(row.assignment, row.student)][1] += row.max_score
        return cls(
            "",
            assignments,
            {a: sum(questions[a].values()) for a in assignments},
            {a: "" for a in assignments},
            {a: list(questions[a].items()) for a in assignments},
            [Student(s) for s in sorted({row.student for row in rows})],
            {key: Submission(key[1], key[0], score, 0.0, maximum) for key, (score, maximum) in submissions.items()},
            list(rows),
        )


def results_in(notebook_path: Path) -> dict[str, GradeResult]:
    """grade id -> the result the grader stored with that grade cell (`autograder.grading.result`)."""
    found: dict[str, GradeResult] = {}
    with open(
        notebook_path, encoding="utf-8"
    ) as handle:  # plain JSON: no schema validation for each of a class's notebooks
        cells = json.load(handle).get("cells", [])
    for cell in cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if not meta.get("grade") or cell.get("cell_type") != "code":
            continue
        result = GradeResult.in_outputs(cell.get("outputs", []))
        if result is not None:
            found[meta.get("grade_id")] = result
    return found


def _grade_ids_in_order(course: Course, assignment: str) -> list[str]:
    """The grade cells of an assignment in notebook order (source notebook, else the release)."""
    for folder in (course.source(assignment), course.release(assignment)):
        path = course.notebook(folder, assignment)
        if path.is_file():
            cells = nbformat.read(path, as_version=4).cells
            return [c.metadata["nbgrader"]["grade_id"] for c in cells if c.metadata.get("nbgrader", {}).get("grade")]
    return []


def _text(value) -> str:
    return "" if value is None else str(value)


def load(root: Path, students: list[str] | None = None, *, values_of: str | None = None) -> ClassData:
    """The class from the gradebook and the submission ledger of course root `root`, with the
    misconceptions the grader named and what became of every hand-in (`Submission.state`: a folder
    in submitted/ or a receipt in the ledger with nothing graded yet is RECEIVED, its student on the
    roster even where the gradebook does not know them yet).

    Assignments come in course_config.py order (then any other the gradebook knows); students,
    submissions and graded cells are sorted. `students` limits the data to those student ids. The
    hidden cases' expected and wrong values (`CaseOutcome.expected`, `got`) are kept for the
    assignment `values_of` alone (`autograder.reporting.similarity` reads them), so that a large
    class's data stays small."""
    from nbgrader.api import Gradebook

    course = Course(Path(root))
    settings = config.load(course.root)
    wanted = set(students) if students else None
    db_url = config.database_url(course.root, settings)
    data = ClassData(settings.COURSE_ID, [], {}, {}, {}, [], {}, [], timezone=settings.TIMEZONE)
    found: dict[tuple[str, str], tuple[float, float, str, bool]] = {}
    with Gradebook(db_url) as gradebook:
        known = {assignment.name: assignment for assignment in gradebook.assignments}
        data.assignments = [a for a in settings.ASSIGNMENTS if a in known] + sorted(
            set(known) - set(settings.ASSIGNMENTS)
        )
        data.students = _roster(gradebook, wanted)
        for name in data.assignments:
            assignment = known[name]
            data.max_scores[name] = float(assignment.max_score or 0.0)
            data.duedates[name] = _text(assignment.duedate)
            data.questions[name] = _questions(course, assignment)
            grades = _grades(gradebook, assignment, wanted)
            for student, (raw, penalty, timestamp) in _submissions(gradebook, assignment, wanted).items():
                found[(name, student)] = (
                    raw,
                    penalty,
                    timestamp,
                    any(entry.given for entry in grades.get(student, [])),
                )
            for student, entries in sorted(grades.items()):
                data.rows += _rows(
                    course, name, student, entries, [g for g, _ in data.questions[name]], values=name == values_of
                )
    data.submissions = standing(course, settings, db_url, data.max_scores, found, wanted)
    data.allowances = allowances(Ledger(db_url, settings.COURSE_ID), data.assignments, wanted)
    roster = {s.id for s in data.students}
    data.students = sorted(
        data.students + [Student(s) for s in {s for (_, s) in data.submissions} - roster], key=lambda s: s.id
    )
    data.rows.sort(key=lambda row: (data.assignments.index(row.assignment), row.student))  # stable: cell order kept
    return data


def _roster(gradebook, wanted: set[str] | None) -> list[Student]:
    """The gradebook's students (the `wanted` ones), by id."""
    return sorted(
        (
            Student(s.id, _text(s.first_name), _text(s.last_name), _text(s.email))
            for s in gradebook.students
            if wanted is None or s.id in wanted
        ),
        key=lambda s: s.id,
    )


def _questions(course: Course, assignment) -> list[tuple[str, float]]:
    """(grade id, max score) of each grade cell of the gradebook's `assignment`, in notebook order."""
    cells = {
        cell.name: float(cell.max_score or 0.0) for notebook in assignment.notebooks for cell in notebook.grade_cells
    }
    ordered = [g for g in _grade_ids_in_order(course, assignment.name) if g in cells]
    return [(g, cells[g]) for g in ordered + [g for g in cells if g not in ordered]]


def _submissions(gradebook, assignment, wanted: set[str] | None) -> dict[str, tuple[float, float, str]]:
    """student -> (raw score, late penalty, timestamp) of the gradebook's submission of `assignment`
    (of the `wanted` students)."""
    from nbgrader.api import SubmittedAssignment

    found = (
        gradebook.db.query(
            SubmittedAssignment.student_id,
            SubmittedAssignment.score,
            SubmittedAssignment.late_submission_penalty,
            SubmittedAssignment.timestamp,
        )
        .filter(SubmittedAssignment.assignment_id == assignment.id)
        .all()
    )
    return {
        student: (float(score or 0.0), float(penalty or 0.0), _text(timestamp))
        for student, score, penalty, timestamp in found
        if wanted is None or student in wanted
    }


class _Grade(NamedTuple):
    """One of the gradebook's grades: `awaiting_ta` whether it waits for a TA (`awaiting_ta` of
    coursedir.gradebook), `given` whether the autograder or a TA gave it a score, `by_ta` whether a
    TA did and the autograder did not."""

    notebook: str
    grade_id: str
    score: float
    max_score: float
    awaiting_ta: bool
    given: bool
    by_ta: bool


def _grades(gradebook, assignment, wanted: set[str] | None) -> dict[str, list[_Grade]]:
    """student -> each of the gradebook's grades of `assignment` (of the `wanted` students)."""
    from nbgrader.api import BaseCell, Grade, Notebook, SubmittedAssignment, SubmittedNotebook

    grades = defaultdict(list)
    for grade in (
        gradebook.db.query(
            SubmittedAssignment.student_id,
            Notebook.name.label("notebook"),
            BaseCell.name.label("grade_id"),
            Grade.score,
            Grade.max_score,
            Grade.needs_manual_grade,
            Grade.auto_score,
            Grade.manual_score,
        )
        .join(SubmittedNotebook, Grade.notebook_id == SubmittedNotebook.id)
        .join(SubmittedAssignment, SubmittedNotebook.assignment_id == SubmittedAssignment.id)
        .join(Notebook, SubmittedNotebook.notebook_id == Notebook.id)
        .join(BaseCell, Grade.cell_id == BaseCell.id)
        .filter(SubmittedAssignment.assignment_id == assignment.id)
        .all()
    ):
        if wanted is None or grade.student_id in wanted:
            grades[grade.student_id].append(
                _Grade(
                    grade.notebook,
                    grade.grade_id,
                    float(grade.score or 0.0),
                    float(grade.max_score or 0.0),
                    awaiting_ta(grade),
                    grade.auto_score is not None or grade.manual_score is not None,
                    grade.auto_score is None and grade.manual_score is not None,
                )
            )
    return grades


def _rows(
    course: Course, assignment: str, student: str, grades: list[_Grade], order: list[str], values: bool = False
) -> list[Row]:
    """One student's graded cells of `assignment` (`grades` as `_grades` gives them), with the result
    the grader stored in each graded notebook (its hidden cases' values only with `values`), in the
    `order` of grade ids."""
    results = {}
    for notebook in {grade.notebook for grade in grades}:
        path = course.autograded(student, assignment) / f"{notebook}.ipynb"
        results[notebook] = results_in(path) if path.is_file() else {}
    rows = []
    for grade in grades:
        result = results[grade.notebook].get(grade.grade_id) or GradeResult(
            grade.grade_id, grade.score, grade.max_score
        )
        rows.append(
            Row(
                student,
                assignment,
                grade.grade_id,
                grade.score,
                grade.max_score,
                list(result.misconceptions),
                [case if values else replace(case, expected=None, got=None) for case in result.cases],
                grade.awaiting_ta,
                result.not_started,
                grade.by_ta,
            )
        )
    position = {g: i for i, g in enumerate(order)}
    return sorted(rows, key=lambda row: position.get(row.grade_id, len(position)))


def collect(root: Path) -> list[Row]:
    """Every graded cell in the gradebook, with the misconceptions the grader named."""
    return load(root).rows
