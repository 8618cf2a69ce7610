"""Which submissions are graded already: the record a finished autograde leaves, and the grader's
version it names.

`autograder.intake.admission` writes a `GradedRecord` beside a graded folder (`graded_record`) as the
very last step of grading one submission, after the graded folder is in place and the gradebook and
the ledger hold its grades; it removes the record before grading starts. So a run stopped at any
point (SIGKILL included) leaves a record only where a submission was graded whole, and
`python -m autograder autograde` grades again only a submission without a record that matches what
is handed in now (`is_graded`): the same bytes (the ledger's digest), graded by the same grader.

The grader's version is a digest of what makes a grade: each assignment's folder (its checks,
references, catalogue and notebook) and the settings that change points, cases or penalties.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from .config import ASSIGNMENT_FOLDERS
from .settings import Settings


def grader_version(settings: Settings, assignments: list[str]) -> str:
    """A digest (16 hex digits) of the grader of `assignments`: their folders' files and the
    settings that change a grade."""
    digest = hashlib.sha256()
    for name in sorted(assignments):
        for path in sorted((ASSIGNMENT_FOLDERS / name).rglob("*")):
            if path.is_file() and path.suffix in (".py", ".md"):
                digest.update(f"{path.relative_to(ASSIGNMENT_FOLDERS)}\0".encode() + path.read_bytes())
    wanted = {key: getattr(settings, key) for key in ("HIDDEN_CASES", "POINTS", "TERM", "LATE_DAYS", "TIMEZONE")}
    digest.update(json.dumps(wanted, sort_keys=True, default=str).encode())
    return digest.hexdigest()[:16]


def graded_record(graded: Path) -> Path:
    """Beside a graded folder `autograded/<student>/<assignment>`: the record that its grading finished."""
    return graded.parent / f".{graded.name}.graded.json"


@dataclass(frozen=True)
class GradedRecord:
    """A submission graded whole: the digest and attempt of the hand-in (the ledger's receipt) and
    the grader's version."""

    digest: str
    attempt: int
    grader: str

    def write(self, path: Path) -> None:
        """Write it whole or not at all (a temporary file renamed over the record)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(path.name + ".tmp")
        temporary.write_text(json.dumps(asdict(self)) + "\n", encoding="utf-8")
        os.replace(temporary, path)

    @classmethod
    def read(cls, path: Path) -> "GradedRecord | None":
        """The record at `path`; None where there is none or it cannot be read (then the submission
        is graded again)."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return cls(str(data["digest"]), int(data["attempt"]), str(data["grader"]))
        except (OSError, ValueError, KeyError, TypeError):
            return None


def stopped(course, assignment: str, student: str) -> bool:
    """Whether a grading of the submission `submitted/<student>/<assignment>` of `course` stopped
    before it finished (its earlier graded folder still kept beside the graded one): its gradebook
    rows may hold part of the new grading; the next autograde puts the folder back and grades it."""
    dest = course.autograded(student, assignment)
    return (dest.parent / f".{dest.name}.earlier").exists()


def graded_by_another(course, assignment: str, student: str, grader: str) -> bool:
    """Whether the submission `submitted/<student>/<assignment>` of `course` was graded whole, as it is
    now, by a grader of another version than `grader` (a check or a setting edited since): grading
    it again would move its grade, which only a recorded regrade may do."""
    dest = course.autograded(student, assignment)
    record = GradedRecord.read(graded_record(dest))
    return record is not None and record.grader != grader and is_graded(course, assignment, student, record.grader)


def is_graded(course, assignment: str, student: str, grader: str) -> bool:
    """Whether the submission `submitted/<student>/<assignment>` of `course` (a `layout.Course`) was
    graded whole, as it is now, by the grader of version `grader`: its record names the digest of
    what it hands in now, and its graded folder holds the notebook. A folder that cannot be read is
    not graded (grading it says why)."""
    from .layout import failed_attempt_record
    from .ledger import digest, handed_in

    dest = course.autograded(student, assignment)
    record = GradedRecord.read(graded_record(dest))
    if record is None or record.grader != grader or failed_attempt_record(dest).exists():
        return False
    if not course.notebook(dest, assignment).is_file() or stopped(course, assignment, student):
        return False
    try:
        return digest(handed_in(course.submitted(student, assignment))) == record.digest
    except OSError:
        return False
