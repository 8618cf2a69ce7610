"""Each student's LMS user id (the LTI `sub` the platform knows them by).

`LTI_ROSTER` names a CSV file in the course root: the course's own, with the columns
`student_id,lti_user_id`, or Canvas's gradebook export as Canvas writes it (`Student, ID, SIS User ID,
SIS Login ID, ...`: the student id is the `SIS Login ID`, the LMS user id Canvas's user `ID`, which
Canvas's scores service takes as `userId`). docs/lms.md says how to make one from Moodle. Without
it the LMS user id is the student id the course already uses. A student the file does not map is
listed by `mapped`, never guessed.
"""

from __future__ import annotations

import csv
from pathlib import Path

from ..coursedir.settings import Settings

#: The course's roster header.
COLUMNS = ("student_id", "lti_user_id")
#: Of a Canvas gradebook export: (the column of the student id, the column of the LMS user id).
CANVAS = ("SIS Login ID", "ID")


class RosterError(ValueError):
    """The roster file cannot be used (one line: where, and what is wrong)."""


def user_ids(root: Path, settings: Settings) -> dict[str, str] | None:
    """student id -> LMS user id from `LTI_ROSTER`, or None when the course has no roster file (the
    student id is the LMS user id). RosterError for a missing file, another header, a student named
    twice or one LMS user id given to two students."""
    if not settings.LTI_ROSTER.strip():
        return None
    return read(Path(root) / settings.LTI_ROSTER)


def read(path: Path) -> dict[str, str]:
    """student id -> LMS user id of the roster file at `path` (RosterError as `user_ids`)."""
    try:
        with path.open(newline="", encoding="utf-8-sig") as file:
            rows = list(csv.reader(file))
    except OSError as error:
        raise RosterError(f"LTI_ROSTER: cannot read {path} ({error.strerror})") from None
    except (UnicodeDecodeError, csv.Error) as error:
        raise RosterError(f"LTI_ROSTER: {path} is not a UTF-8 CSV file ({error})") from None
    header = [cell.strip() for cell in rows[0]] if rows else []
    if tuple(header) == COLUMNS:
        columns = (0, 1)
    elif header[:1] == ["Student"] and all(name in header for name in CANVAS):
        columns = tuple(header.index(name) for name in CANVAS)
    else:
        raise RosterError(
            f"LTI_ROSTER: {path} must start with the header {','.join(COLUMNS)} (or be Canvas's gradebook export)"
        )
    found: dict[str, str] = {}
    for line, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row) or row[0].strip() == "Points Possible":  # Canvas's second line
            continue
        if len(row) < len(header):
            raise RosterError(f"LTI_ROSTER: {path}, line {line}: {len(row)} columns, not {len(header)}")
        student, user = (row[column].strip() for column in columns)
        if student in found:
            raise RosterError(f"LTI_ROSTER: {path}, line {line}: student {student!r} is mapped twice")
        if user and user in found.values():
            raise RosterError(f"LTI_ROSTER: {path}, line {line}: LMS user {user!r} is mapped to two students")
        if user:
            found[student] = user
    return found


def mapped(students: list[str], ids: dict[str, str] | None) -> tuple[dict[str, str], list[str]]:
    """({student: LMS user id} of the `students` that have one, [the students that have none])."""
    if ids is None:
        return {student: student for student in students}, []
    return {s: ids[s] for s in students if s in ids}, [s for s in students if s not in ids]
