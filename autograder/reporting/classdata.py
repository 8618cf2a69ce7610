"""The class as graded: per student and graded cell the score and the misconceptions the grader
named (`Row`), with the roster, the submissions and the assignments' questions (`ClassData`).

Everything here comes from structured data: the gradebook (nbgrader.api.Gradebook) for students,
submissions and scores, the result the grader stores with each grade cell
(`autograder.grading.result.GradeResult`) for the misconceptions it named, and the record of a
submission's failed autograde (`autograder.coursedir.layout.FailedAttempt`). Printed feedback and
logs are never parsed.
The statistics are `autograder.reporting.stats`; the pages and tables, `autograder.reporting.report`.
"""
from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from ..coursedir import config
from ..coursedir.layout import Course, FailedAttempt
from ..grading.result import CaseOutcome, GradeResult

#: Scores within this of full marks (or of zero) count as full marks (or zero).
EPS = 1e-9


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
    #: a written answer (or a refused submission's cell) no TA has graded yet
    needs_manual: bool = False
    #: the check's function was still the stub
    not_started: bool = False

    @property
    def lost(self) -> float:
        return max(0.0, self.max_score - self.score)


@dataclass(frozen=True)
class Student:
    """A student of the gradebook (names and email as nbgrader holds them, often empty)."""

    id: str
    first_name: str = ""
    last_name: str = ""
    email: str = ""

    @property
    def display(self) -> str:
        """"Last, First" when the gradebook has a name, else the student id."""
        name = ", ".join(part for part in (self.last_name, self.first_name) if part)
        return name or self.id


@dataclass(frozen=True)
class Submission:
    """One student's graded submission of one assignment (nbgrader's SubmittedAssignment)."""

    student: str
    assignment: str
    raw_score: float
    penalty: float
    max_score: float
    timestamp: str = ""
    #: why the last autograde of it failed (the grades are then an earlier attempt's, or none), else ""
    failed: str = ""

    @property
    def score(self) -> float:
        """The score after the late penalty, as nbgrader's export computes it."""
        return max(0.0, self.raw_score - self.penalty)


@dataclass
class ClassData:
    """The class as the gradebook and the graded notebooks hold it."""

    course_id: str
    assignments: list[str]
    max_scores: dict[str, float]
    duedates: dict[str, str]
    questions: dict[str, list[tuple[str, float]]]
    students: list[Student]
    submissions: dict[tuple[str, str], Submission]
    rows: list[Row]

    def submitted(self, assignment: str, student: str) -> bool:
        return (assignment, student) in self.submissions

    def missing(self, assignment: str) -> list[str]:
        """Students of the gradebook with no graded submission of `assignment`."""
        return [s.id for s in self.students if (assignment, s.id) not in self.submissions]

    def rows_of(self, assignment: str) -> list[Row]:
        return [row for row in self.rows if row.assignment == assignment]

    def total(self, student: str) -> float:
        return sum(sub.score for (a, s), sub in self.submissions.items() if s == student)

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
            "", assignments, {a: sum(questions[a].values()) for a in assignments}, {a: "" for a in assignments},
            {a: list(questions[a].items()) for a in assignments}, [Student(s) for s in sorted({row.student for row in rows})],
            {key: Submission(key[1], key[0], score, 0.0, maximum) for key, (score, maximum) in submissions.items()}, list(rows))


def results_in(notebook_path: Path) -> dict[str, GradeResult]:
    """grade id -> the result the grader stored with that grade cell (`autograder.grading.result`)."""
    found: dict[str, GradeResult] = {}
    with open(notebook_path, encoding="utf-8") as handle:  # plain JSON: no schema validation for each of a class's notebooks
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


def load(root: Path, students: list[str] | None = None) -> ClassData:
    """The class from the gradebook of course root `root`, with the misconceptions the grader named.

    Assignments come in course_config.py order (then any other the gradebook knows); students,
    submissions and graded cells are sorted. `students` limits the data to those student ids."""
    from nbgrader.api import Gradebook

    course = Course(Path(root))
    settings = config.load(course.root)
    wanted = set(students) if students else None
    data = ClassData(settings.COURSE_ID, [], {}, {}, {}, [], {}, [])
    with Gradebook(config.database_url(course.root, settings)) as gradebook:
        known = {assignment.name: assignment for assignment in gradebook.assignments}
        data.assignments = [a for a in settings.ASSIGNMENTS if a in known] + sorted(set(known) - set(settings.ASSIGNMENTS))
        data.students = _roster(gradebook, wanted)
        for name in data.assignments:
            assignment = known[name]
            data.max_scores[name] = float(assignment.max_score or 0.0)
            data.duedates[name] = _text(assignment.duedate)
            data.questions[name] = _questions(course, assignment)
            data.submissions.update(_submissions(gradebook, course, assignment, wanted))
            for student, grades in sorted(_grades(gradebook, assignment, wanted).items()):
                data.rows += _rows(course, name, student, grades, [g for g, _ in data.questions[name]])
    data.rows.sort(key=lambda row: (data.assignments.index(row.assignment), row.student))  # stable: cell order kept
    return data


def _roster(gradebook, wanted: set[str] | None) -> list[Student]:
    """The gradebook's students (the `wanted` ones), by id."""
    return sorted((Student(s.id, _text(s.first_name), _text(s.last_name), _text(s.email))
                   for s in gradebook.students if wanted is None or s.id in wanted), key=lambda s: s.id)


def _questions(course: Course, assignment) -> list[tuple[str, float]]:
    """(grade id, max score) of each grade cell of the gradebook's `assignment`, in notebook order."""
    cells = {cell.name: float(cell.max_score or 0.0) for notebook in assignment.notebooks for cell in notebook.grade_cells}
    ordered = [g for g in _grade_ids_in_order(course, assignment.name) if g in cells]
    return [(g, cells[g]) for g in ordered + [g for g in cells if g not in ordered]]


def _submissions(gradebook, course: Course, assignment, wanted: set[str] | None) -> dict[tuple[str, str], Submission]:
    """(assignment, student) -> the gradebook's submission of `assignment` (of the `wanted` students),
    with why its last autograde failed where it did (`layout.FailedAttempt`)."""
    from nbgrader.api import SubmittedAssignment

    name, maximum = assignment.name, float(assignment.max_score or 0.0)
    found = (gradebook.db.query(SubmittedAssignment.student_id, SubmittedAssignment.score,
                                SubmittedAssignment.late_submission_penalty, SubmittedAssignment.timestamp)
             .filter(SubmittedAssignment.assignment_id == assignment.id).all())
    return {(name, student): Submission(student, name, float(score or 0.0), float(penalty or 0.0), maximum, _text(timestamp),
                                        _failed(course, student, name))
            for student, score, penalty, timestamp in found if wanted is None or student in wanted}


def _failed(course: Course, student: str, assignment: str) -> str:
    """Why the last autograde of the submission failed, from its record; "" where it did not."""
    failure = FailedAttempt.read(course.failed_attempt(student, assignment))
    return failure.reason if failure else ""


def _grades(gradebook, assignment, wanted: set[str] | None) -> dict[str, list[tuple[str, str, float, float, bool]]]:
    """student -> (notebook, grade id, score, max score, needs manual grade) of each of the gradebook's
    grades of `assignment` (of the `wanted` students)."""
    from nbgrader.api import BaseCell, Grade, Notebook, SubmittedAssignment, SubmittedNotebook

    grades = defaultdict(list)
    for student, notebook, grade_id, score, maximum, manual in (
            gradebook.db.query(SubmittedAssignment.student_id, Notebook.name, BaseCell.name, Grade.score, Grade.max_score,
                               Grade.needs_manual_grade)
            .join(SubmittedNotebook, Grade.notebook_id == SubmittedNotebook.id)
            .join(SubmittedAssignment, SubmittedNotebook.assignment_id == SubmittedAssignment.id)
            .join(Notebook, SubmittedNotebook.notebook_id == Notebook.id)
            .join(BaseCell, Grade.cell_id == BaseCell.id)
            .filter(SubmittedAssignment.assignment_id == assignment.id).all()):
        if wanted is None or student in wanted:
            grades[student].append((notebook, grade_id, float(score or 0.0), float(maximum or 0.0), bool(manual)))
    return grades


def _rows(course: Course, assignment: str, student: str, grades: list[tuple[str, str, float, float, bool]],
          order: list[str]) -> list[Row]:
    """One student's graded cells of `assignment` (`grades` as `_grades` gives them), with the result
    the grader stored in each graded notebook, in the `order` of grade ids."""
    results = {}
    for notebook in {entry[0] for entry in grades}:
        path = course.autograded(student, assignment) / f"{notebook}.ipynb"
        results[notebook] = results_in(path) if path.is_file() else {}
    rows = []
    for notebook, grade_id, score, maximum, manual in grades:
        result = results[notebook].get(grade_id) or GradeResult(grade_id, score, maximum)
        rows.append(Row(student, assignment, grade_id, score, maximum, list(result.misconceptions), list(result.cases),
                        manual, result.not_started))
    position = {g: i for i, g in enumerate(order)}
    return sorted(rows, key=lambda row: position.get(row.grade_id, len(position)))


def collect(root: Path) -> list[Row]:
    """Every graded cell in the gradebook, with the misconceptions the grader named."""
    return load(root).rows


# ---------------------------------------------------------------------------------------------
# Statistics shared by the exports and the report


