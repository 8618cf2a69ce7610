"""Regrades that explain themselves: `python -m autograder regrade ASSIGNMENT [--student S]
(--preview | --reason TEXT | --revert ENTRY)`.

* `preview` grades the submissions again in a scratch copy of the course (its gradebook, secret,
  source, release and the submissions; the real course is not written) and returns whose grades
  would move, per check, before and after - after an author changed a check, a tolerance or a
  catalogue entry. The hidden cases are the same (the same bytes are the same attempt), so a
  preview shows exactly what applying it writes.
* `apply` grades them again in the course itself, after keeping the state before (the gradebook's
  grades and the graded folders, under `.grade-history/<entry>/`), and appends an entry to the grade
  history with the reason and the grader's version.
* `revert` puts back the state an applied entry kept, and appends that too.

A TA's manual scores, comments and "graded" state survive all three (`autograder.intake.bookkeeping`).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import tempfile
from pathlib import Path

from ..coursedir import config
from ..coursedir.gradebook import CourseGradebook
from ..coursedir.graded import graded_record, grader_version
from ..coursedir.layout import Course
from ..coursedir.ledger import Ledger
from ..grading import attempts, figures
from ..term import history
from . import course as operations

#: Where an applied regrade keeps the graded folders it replaced, per history entry (`<entry>/`), and
#: the (assignment, student) submissions it graded again (`<entry>.json`).
KEPT = ".grade-history"


def _jobs(course: Course, names: list[str], students: list[str] | None) -> list[history.Key]:
    return [
        (name, student)
        for name in names
        for student in (students or course.students(name))
        if course.submitted(student, name).is_dir()
    ]


def _touched(course: Course, keys: list[history.Key]) -> list[history.Key]:
    """What grading `keys` again may move: every assignment of each of their students, since a late
    penalty is written for all of a student's graded submissions at once (a late-day budget spans
    the term), not only the one graded."""
    students = sorted({student for _, student in keys})
    return [(name, student) for name in course.settings.ASSIGNMENTS for student in students]


def _snapshot(course: Course, keys: list[history.Key]) -> history.Snapshot:
    settings = course.settings
    with CourseGradebook(config.database_url(course.root, settings), settings.COURSE_ID) as gradebook:
        return history.Snapshot.take(gradebook, keys)


def _scratch(course: Course, names: list[str], keys: list[history.Key], folder: Path) -> Course:
    """A copy of the course at `folder` with what grading `keys` reads: its settings, secret, gradebook
    (a consistent copy through SQLite's backup), source, release, figures and the submissions."""
    url = config.database_url(course.root, course.settings)
    if not url.startswith("sqlite:///"):
        raise ValueError(
            f"a preview copies the gradebook, which it can do for an SQLite gradebook only (DATABASE_URL is {url})"
        )
    scratch = course.start_course(folder)
    with open(scratch.root / "course_config.py", "a", encoding="utf-8") as settings:
        settings.write("\nDATABASE_URL = \"sqlite:///gradebook.db\"  # the scratch copy's own, never the course's\n")
    shutil.copy2(course.root / attempts.SECRET_FILE, scratch.root / attempts.SECRET_FILE)
    source = sqlite3.connect(url.removeprefix("sqlite:///"))
    target = sqlite3.connect(config.database_url(scratch.root, scratch.settings).removeprefix("sqlite:///"))
    with source, target:
        source.backup(target)
    source.close()
    target.close()
    for name in names:
        for kind in ("source", "release"):
            if (course.root / kind / name).is_dir():
                shutil.copytree(course.root / kind / name, scratch.root / kind / name, symlinks=True)
        if figures.path(course.root, name).is_file():
            figures.path(scratch.root, name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(figures.path(course.root, name), figures.path(scratch.root, name))
    for name, student in keys:
        shutil.copytree(course.submitted(student, name), scratch.submitted(student, name), symlinks=True)
    return scratch


def _grade_again(root: Path, names: list[str], keys: list[history.Key], workers: int | None) -> None:
    """Grade the submissions `keys` of `names` in the course at `root` again, whatever graded them before."""
    students = sorted({student for _, student in keys}) or None
    operations.autograde(root, names, students=students, workers=workers, redo=True, regrading=True)


def preview(
    root: Path, names: list[str], students: list[str] | None = None, workers: int | None = None
) -> list[history.Change]:
    """Whose grades a regrade of `names` (of `students`) would move, graded in a scratch copy."""
    course = Course(Path(root).resolve())
    keys = _jobs(course, names, students)
    touched = _touched(course, keys)
    before = _snapshot(course, touched)
    with tempfile.TemporaryDirectory(prefix="regrade-preview-") as folder:
        scratch = _scratch(course, names, keys, Path(folder) / "course")
        _grade_again(scratch.root, names, keys, workers)
        after = _snapshot(scratch, touched)
    return history.changes(before, after)


def apply(
    root: Path, names: list[str], students: list[str] | None, reason: str, workers: int | None = None
) -> history.Entry:
    """Grade `names` (of `students`) again in the course and append the history entry."""
    if not reason.strip():
        raise ValueError("a regrade needs a reason (--reason TEXT): the students' feedback says why their grade moved")
    course = Course(Path(root).resolve())
    settings = course.settings
    keys = _jobs(course, names, students)
    touched = _touched(course, keys)
    before = _snapshot(course, touched)
    kept = Path(tempfile.mkdtemp(prefix=".pending-", dir=_kept_root(course)))
    try:
        kept.with_suffix(".json").write_text(json.dumps(keys) + "\n", encoding="utf-8")
        for name, student in keys:
            if course.autograded(student, name).is_dir():
                shutil.copytree(course.autograded(student, name), kept / student / name, symlinks=True)
            if (record := graded_record(course.autograded(student, name))).is_file():
                (kept / student).mkdir(parents=True, exist_ok=True)
                shutil.copy2(record, kept / student / record.name)
        _grade_again(course.root, names, keys, workers)
    except BaseException:
        shutil.rmtree(kept, ignore_errors=True)
        kept.with_suffix(".json").unlink(missing_ok=True)
        raise
    moved = history.changes(before, _snapshot(course, touched))
    ledger = Ledger(config.database_url(course.root, settings), settings.COURSE_ID)
    entry = history.append(ledger, "regrade", reason.strip(), grader_version(settings, names), moved, before)
    kept.with_suffix(".json").rename(_kept_root(course) / f"{entry.id}.json")
    kept.rename(_kept_root(course) / str(entry.id))
    return entry


def revert(root: Path, entry_id: int) -> history.Entry:
    """Put back the grades and graded folders as they were before regrade entry `entry_id`; the
    entry that records the revert."""
    course = Course(Path(root).resolve())
    settings = course.settings
    url = config.database_url(course.root, settings)
    ledger = Ledger(url, settings.COURSE_ID)
    entry = next((e for e in history.entries(ledger) if e.id == entry_id), None)
    if entry is None or entry.action != "regrade" or entry.snapshot is None:
        known = [e.id for e in history.entries(ledger) if e.action == "regrade"]
        raise ValueError(
            f"no regrade entry {entry_id} in the grade history (regrade entries: {known or 'none'}); "
            "an extension is undone with `extend --revoke`"
        )
    keys = sorted(entry.snapshot.states)
    with CourseGradebook(url, settings.COURSE_ID) as gradebook:
        current = history.Snapshot.take(gradebook, keys)
        history.restore(gradebook, entry.snapshot)
        gradebook.db.commit()
    folder = _kept_root(course) / str(entry.id)
    try:  # the graded folders of the submissions graded again (an entry's snapshot may hold more)
        regraded = [tuple(key) for key in json.loads(folder.with_suffix(".json").read_text(encoding="utf-8"))]
    except FileNotFoundError:
        regraded = keys  # an entry kept before the snapshot covered more than the submissions graded again
    for name, student in regraded:
        if (folder / student / name).is_dir():
            shutil.rmtree(course.autograded(student, name), ignore_errors=True)
            shutil.copytree(folder / student / name, course.autograded(student, name), symlinks=True)
        record = graded_record(course.autograded(student, name))  # the record of the grading put back, or none
        if (folder / student / record.name).is_file():
            shutil.copy2(folder / student / record.name, record)
        else:
            record.unlink(missing_ok=True)
    return history.append(
        ledger,
        "revert",
        f"revert of entry {entry.id} ({entry.reason})",
        entry.grader,
        history.changes(current, entry.snapshot),
        current,
    )


def _kept_root(course: Course) -> Path:
    folder = course.root / KEPT
    folder.mkdir(mode=0o700, exist_ok=True)
    return folder


def lines(moved: list[history.Change]) -> list[str]:
    """A preview's or an entry's changes as lines: per submission, each check before -> after."""
    out = []
    for change in moved:
        out.append(f"{change.assignment} {change.student}: {change.total_before:g} -> {change.total_after:g}")
        for check, (before, after) in change.moved.items():
            out.append(
                f"    {check}: {'-' if before is None else f'{before:g}'} -> {'-' if after is None else f'{after:g}'}"
            )
        if abs(change.penalty_before - change.penalty_after) > 1e-9:
            out.append(f"    late penalty: {change.penalty_before:g} -> {change.penalty_after:g}")
    return out
