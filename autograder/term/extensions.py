"""Extensions and grants: `python -m autograder extend STUDENT ASSIGNMENT --until TIME --reason TEXT`
(or `--revoke`), `--attempts N`, `--late-days N`, `--closes TIME`, and `extend --csv FILE` for many.

An extension is appended to the ledger (`autograder.coursedir.ledger.EXTENSIONS`; `--revoke`
appends its end), and so is a grant of extra attempts that count, extra late days (spent before the
term's `LATE_DAYS`) or a later close date (`GRANTS`). The student's late penalties are then written
again from the ledger's receipt times (`autograder.term.penalties`), and what moved goes into the
grade history with the reason, in one entry that names every student and assignment concerned. Only
their submissions move: the one the extension covers, and with a late-day budget the later ones
whose budget it frees. Everything asked is checked before anything is written: all of it, or none.
"""

from __future__ import annotations

import csv
import datetime as dt
from dataclasses import dataclass
from pathlib import Path

from nbgrader.api import MissingEntry

from ..coursedir import config
from ..coursedir.gradebook import CourseGradebook
from ..coursedir.graded import grader_version
from ..coursedir.layout import Course
from ..coursedir.ledger import Ledger
from . import history, penalties, policy

#: The columns of an extensions file (`extend --csv`): the first two always, and at least one other.
FILE_COLUMNS = ("student", "assignment", "until", "attempts", "late_days", "closes")


@dataclass(frozen=True)
class Wanted:
    """One student's extension or grant on one assignment, as asked (times and numbers as written)."""

    student: str
    assignment: str
    until: str | None = None
    revoke: bool = False
    attempts: str | int | None = None
    late_days: str | int | None = None
    closes: str | None = None


@dataclass(frozen=True)
class _Checked:
    student: str
    assignment: str
    until: dt.datetime | None
    extends: bool  # an extension (or its revocation) was asked
    attempts: int | None
    late_days: int | None
    closes: dt.datetime | None


def _count(value, what: str) -> int | None:
    if value is None or str(value).strip() == "":
        return None
    try:
        number = int(str(value).strip())
    except ValueError:
        number = -1
    if number < 0:
        raise ValueError(f"{what} is {value!r}, not a whole number of 0 or more")
    return number


def _checked(settings, gradebook, wanted: Wanted) -> _Checked:
    """`wanted` with its times and numbers read, or ValueError saying why it cannot be granted."""
    assignment, student = wanted.assignment, wanted.student
    if assignment not in settings.ASSIGNMENTS:
        raise ValueError(f"unknown assignment {assignment!r}; course_config.py lists {settings.ASSIGNMENTS}")
    rules = policy.rules(settings, assignment)
    extends = wanted.revoke or bool(wanted.until and wanted.until.strip())
    if extends and rules.due is None:
        raise ValueError(
            f"{assignment} has no due date in TERM (course_config.py) for an extension to move: give it one first"
        )
    try:
        gradebook.find_student(student)
    except MissingEntry:
        raise ValueError(
            f"no student {student!r} in the gradebook: import the roster first (nbgrader db student import "
            "students.csv), or check the id"
        ) from None
    zone = policy.zone(settings)
    until = policy.parse_time(wanted.until, zone, "until") if extends and not wanted.revoke else None
    closes = policy.parse_time(wanted.closes, zone, "closes") if wanted.closes and wanted.closes.strip() else None
    if closes is not None and rules.closes is None:
        raise ValueError(f"{assignment} has no close date in TERM for a later one to be granted")
    found = _Checked(
        student,
        assignment,
        until,
        extends,
        _count(wanted.attempts, "attempts"),
        _count(wanted.late_days, "late_days"),
        closes,
    )
    if not (found.extends or found.attempts is not None or found.late_days is not None or found.closes is not None):
        raise ValueError("nothing to grant: give an until, attempts, late_days or closes")
    return found


def grant(root: Path, student: str, assignment: str, until: str | None, reason: str) -> list[history.Change]:
    """Extend `student`'s due date of `assignment` to `until` (a time of the course's TIMEZONE, or
    with an offset; None revokes the extension in force); the grades that moved."""
    return grant_all(root, [Wanted(student, assignment, until, revoke=until is None)], reason)


def grant_file(root: Path, path: Path, reason: str) -> list[history.Change]:
    """The extensions and grants of the CSV file `path` (`FILE_COLUMNS`), all of them or, where a row
    cannot be granted, none (ValueError naming each such row by its line); the grades that moved."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as handle:
            reader = csv.DictReader(handle)
            columns = reader.fieldnames or []
            rows = [(reader.line_num, row) for row in reader]
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise ValueError(f"{path}: cannot be read as a CSV file ({error})") from None
    if columns[:2] != list(FILE_COLUMNS[:2]) or len(columns) < 3 or set(columns) - set(FILE_COLUMNS):
        raise ValueError(
            f"{path}: its columns are {columns}; an extensions file has student,assignment and one or more of "
            f"{', '.join(FILE_COLUMNS[2:])}"
        )
    if not rows:
        raise ValueError(f"{path}: no extension in it")
    wanted, seen = [], {}
    for line, row in rows:
        key = ((row["student"] or "").strip(), (row["assignment"] or "").strip())
        if key in seen:
            raise ValueError(
                f"{path}: line {line} names {key[1]} for {key[0]} again (line {seen[key]}); nothing was granted"
            )
        seen[key] = line
        values = {name: row.get(name) for name in FILE_COLUMNS[2:]}
        wanted.append(Wanted(*key, **values))
    return grant_all(root, wanted, reason, path, [line for line, _ in rows])


def grant_all(
    root: Path, wanted: list[Wanted], reason: str, where: Path | None = None, lines: list[int] | None = None
) -> list[history.Change]:
    """Grant every one of `wanted`, each checked before any is granted: ValueError naming each that
    cannot be (by its line of the file `where`, where `lines` are given); one history entry for them
    all; the grades that moved."""
    course = Course(Path(root))
    settings = config.load(course.root)
    if not reason.strip():
        raise ValueError("an extension needs a reason (--reason TEXT): it is kept with the grade history")
    url = config.database_url(course.root, settings)
    ledger = Ledger(url, settings.COURSE_ID)
    with CourseGradebook(url, settings.COURSE_ID) as gradebook:
        checked, errors = [], []
        for index, one in enumerate(wanted):
            try:
                checked.append(_checked(settings, gradebook, one))
            except ValueError as error:
                errors.append(f"line {lines[index]}: {error}" if lines else str(error))
        if errors:
            raise ValueError(errors[0] if not lines else f"{where}: nothing was granted:\n  " + "\n  ".join(errors))
        students = sorted({one.student for one in checked})
        keys = [(name, student) for name in settings.ASSIGNMENTS for student in students]
        before = history.Snapshot.take(gradebook, keys)
        for one in checked:
            if one.extends:
                ledger.extend(one.assignment, one.student, one.until, reason.strip())
            if one.attempts is not None or one.late_days is not None or one.closes is not None:
                ledger.grant(one.assignment, one.student, reason.strip(), one.attempts, one.late_days, one.closes)
        for student in students:
            penalties.write(gradebook, ledger, settings, student)
        gradebook.db.commit()
        moved = history.changes(before, history.Snapshot.take(gradebook, keys))
    for one in checked:  # nothing moved: the entry still names them
        if not any(change.assignment == one.assignment and change.student == one.student for change in moved):
            key = (one.assignment, one.student)
            scores, penalty = before.scores(key), before.penalty(key)
            moved.append(history.Change(one.assignment, one.student, scores, scores, penalty, penalty))
    revoke = all(one.extends and one.until is None for one in checked)
    action = "revoke" if revoke else "extend"
    history.append(ledger, action, reason.strip(), grader_version(settings, settings.ASSIGNMENTS), moved, before)
    return moved
