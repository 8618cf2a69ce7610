"""Extensions: `python -m autograder extend STUDENT ASSIGNMENT --until TIME --reason TEXT`.

An extension is appended to the ledger (`autograder.coursedir.ledger.EXTENSIONS`; `--revoke`
appends its end), the student's late penalties are written again from the ledger's receipt times
(`autograder.term.penalties`), and what moved goes into the grade history with the reason.
Only the student's submissions move: the one the extension covers, and with a late-day budget the
later ones whose budget it frees.
"""

from __future__ import annotations

from pathlib import Path

from nbgrader.api import MissingEntry

from ..coursedir import config
from ..coursedir.gradebook import CourseGradebook
from ..coursedir.graded import grader_version
from ..coursedir.layout import Course
from ..coursedir.ledger import Ledger
from . import history, penalties, policy


def grant(root: Path, student: str, assignment: str, until: str | None, reason: str) -> list[history.Change]:
    """Extend `student`'s due date of `assignment` to `until` (a time of the course's TIMEZONE, or
    with an offset; None revokes the extension in force); the grades that moved."""
    course = Course(Path(root))
    settings = config.load(course.root)
    if assignment not in settings.ASSIGNMENTS:
        raise ValueError(f"unknown assignment {assignment!r}; course_config.py lists {settings.ASSIGNMENTS}")
    if not reason.strip():
        raise ValueError("an extension needs a reason (--reason TEXT): it is kept with the grade history")
    if policy.rules(settings, assignment).due is None:
        raise ValueError(
            f"{assignment} has no due date in TERM (course_config.py) for an extension to move: give it one first"
        )
    when = policy.parse_time(until, policy.zone(settings), "--until") if until is not None else None
    url = config.database_url(course.root, settings)
    ledger = Ledger(url, settings.COURSE_ID)
    with CourseGradebook(url, settings.COURSE_ID) as gradebook:
        try:
            gradebook.find_student(student)
        except MissingEntry:
            raise ValueError(
                f"no student {student!r} in the gradebook: import the roster first (nbgrader db student import "
                "students.csv), or check the id"
            ) from None
        keys = [(name, student) for name in settings.ASSIGNMENTS]
        before = history.Snapshot.take(gradebook, keys)
        ledger.extend(assignment, student, when, reason.strip())
        penalties.write(gradebook, ledger, settings, student)
        gradebook.db.commit()
        moved = history.changes(before, history.Snapshot.take(gradebook, keys))
    if not any(change.assignment == assignment for change in moved):  # nothing moved: the entry still names them
        key = (assignment, student)
        scores, penalty = before.scores(key), before.penalty(key)
        moved.append(history.Change(assignment, student, scores, scores, penalty, penalty))
    history.append(
        ledger,
        "extend" if when else "revoke",
        reason.strip(),
        grader_version(settings, settings.ASSIGNMENTS),
        moved,
        before,
    )
    return moved
