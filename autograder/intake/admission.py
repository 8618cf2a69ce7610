"""Admission in nbgrader's autograde: a submission graded only once its folder passes the walk
(`autograder.intake.walk`), and a refused one recorded for manual review.

`AdmittedAutograde` restates nbgrader's `Autograde.init_assignment`: the submission's folder walked,
its notebooks read and only its `CARRIED` files copied through one descriptor of it, then the
student, the submission and its notebooks put in the gradebook. A refused submission is not graded:
the gradebook gets it flagged for manual review with the reasons as a comment
(`record_refusal`), and the log says why; the rest of the class is graded as usual. Its earlier
grading is kept while it is graded again (`autograder.intake.putback`). Of an admitted submission
only the notebook and `CARRIED` go on to `autograded/` (and so to `feedback/`); the data files come
from `source/`.

`install()` puts `AdmittedAutograde` in the place of nbgrader's `Autograde` in its command line
and API (called from the course's nbgrader configuration), so plain `nbgrader autograde` and
`python -m autograder autograde` admit the same way; it also makes every log record of the process
escape its control characters (`autograder.intake.escape.ShownRecord`).
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import sqlite3
import traceback
from pathlib import Path

from nbgrader import utils
from nbgrader.api import MissingEntry, Student
from nbgrader.converters import Autograde, NbGraderException
from sqlalchemy.exc import SQLAlchemyError

from ..coursedir import config
from ..coursedir.gradebook import CourseGradebook
from ..coursedir.graded import GradedRecord, grader_version
from ..coursedir.layout import FailedAttempt
from ..coursedir.ledger import CARRIED, Grant, Ledger, claimed_time
from ..grading.attempts import NoSecret, read_secret
from ..labels import label
from ..term import penalties, policy
from ..term.penalties import naive_utc
from .escape import ShownRecord, code_span, shown
from .putback import EarlierCopy
from .walk import MAX_TIMESTAMP_BYTES, UNREADABLE, Refused, cause, copy_at, inspect, open_folder, unreadable


def record_refusal(db_url: str, course_id: str, assignment: str, student: str, reasons: list[str]) -> None:
    """Put the refused submission in the gradebook: flagged, and the reasons as the comment of its
    first cell (plain text, controls escaped), so formgrader shows why. A submission graded before
    keeps its grades (an earlier hand-in's: a refused one never costs them); one never graded has
    every grade left for manual grading."""
    from nbgrader.api import Gradebook

    why = label("admission.join").join(reasons)
    with Gradebook(db_url, course_id) as gb:
        gb.update_or_create_student(student)
        submission = gb.update_or_create_submission(assignment, student)
        graded = any(
            grade.auto_score is not None or grade.manual_score is not None
            for notebook in submission.notebooks
            for grade in notebook.grades
        )
        text = shown(label("admission.refused_after_grades" if graded else "admission.refused", why=why))
        for notebook in submission.notebooks:
            notebook.flagged = True
            for grade in notebook.grades if not graded else ():
                grade.auto_score = None
                grade.needs_manual_grade = True
            comments = sorted(notebook.comments, key=lambda c: c.cell.id)
            if comments:
                comments[0].auto_comment = text
        gb.db.commit()


class AdmittedAutograde(Autograde):
    """nbgrader's `Autograde`, with each submission admitted before anything of it is copied or
    read; a refused one is recorded in the gradebook and fails alone. nbgrader's `init_assignment`
    is restated below: the submission admitted, its notebooks read and only its `CARRIED` files
    copied through one descriptor of its folder (`_admit`), then the student, the submission and its
    timestamp, the source files and the known notebooks on one `CourseGradebook` session instead of
    five new gradebooks."""

    def start(self) -> None:
        """nbgrader's autograde, stopped once, before any submission is read, where the course has no
        secret to draw hidden cases from."""
        try:
            read_secret(self.coursedir.root)
        except NoSecret as error:
            self.log.error("%s", error)
            raise NbGraderException(str(error)) from None
        super().start()

    def convert_notebooks(self) -> None:
        """nbgrader's loop over the submissions (`BaseConverter.convert_notebooks`, 0.9.6), each on its
        own (`_attempt`): where nbgrader stops the class on a notebook's metadata schema, a failed
        submission costs itself alone, and its earlier graded copy is put back.
        NbGraderException at the end when any submission failed."""
        failed = []
        pattern = self._format_source("(?P<assignment_id>.*)", "(?P<student_id>.*)", escape=True)
        for folder in sorted(self.assignments):
            self.notebooks = sorted(self.assignments[folder])
            assignment_id, student_id = re.match(pattern, folder).group("assignment_id", "student_id")
            with EarlierCopy(Path(self._format_dest(assignment_id, student_id))) as earlier:
                earlier.attempt = self._attempt(assignment_id, student_id, earlier)
            if earlier.attempt:
                failed.append(student_id)
        if failed:
            raise NbGraderException(f"{len(failed)} submission(s) not autograded: {', '.join(failed)}")

    def _attempt(self, assignment_id: str, student_id: str, earlier: "EarlierCopy") -> FailedAttempt | None:
        """Autograde one submission; why it failed, or None. What the submission holds (a refused
        folder, an unreadable notebook, metadata nbgrader cannot read) is a refusal, recorded and
        logged in one line (`_refuse`); any other fault is the grader's, logged with its traceback."""
        try:
            reasons = self._grade(assignment_id, student_id, earlier)
            return self._refuse(assignment_id, student_id, reasons) if reasons else None
        except Exception as error:  # noqa: BLE001 - a grader fault costs this submission, never the class
            self.log.error("failed %s of %s: %s\n%s", assignment_id, student_id, cause(error), traceback.format_exc())
            return FailedAttempt(f"the grader failed: {cause(error)}", refused=False, transient=_in_gradebook(error))

    def _grade(self, assignment_id: str, student_id: str, earlier: "EarlierCopy") -> list[str]:
        """nbgrader's steps for one submission; admission's reasons where it refused it, else []."""
        try:
            if not self.init_destination(assignment_id, student_id):
                earlier.done(graded=False)
                return []
            self.run_pre_convert_hook()
            self.init_assignment(assignment_id, student_id)
            for notebook in self.notebooks:
                self.convert_single_notebook(notebook)
            self.set_permissions(assignment_id, student_id)
            self.run_post_convert_hook()
            receipt = self._receipt
            earlier.done(record=GradedRecord(receipt.digest, receipt.attempt, self._grader_version(assignment_id)))
            return []
        except Refused as refusal:
            return refusal.reasons
        except UNREADABLE as error:
            return [label("admission.cannot_be_graded", cause=code_span(cause(error)))]

    def _grader_version(self, assignment_id: str) -> str:
        """The grader's version of `assignment_id` (`coursedir.graded.grader_version`), once per run."""
        versions = self.__dict__.setdefault("_versions", {})
        if assignment_id not in versions:
            versions[assignment_id] = grader_version(config.load(self.coursedir.root), [assignment_id])
        return versions[assignment_id]

    def _refuse(self, assignment_id: str, student_id: str, reasons: list[str]) -> FailedAttempt:
        """Record and log one refused submission; its failed attempt."""
        record_refusal(self.coursedir.db_url, self.coursedir.course_id, assignment_id, student_id, reasons)
        self.log.error(
            "refused %s of %s: %s (flagged for manual review)", assignment_id, student_id, "; ".join(reasons)
        )
        return FailedAttempt("; ".join(reasons), refused=True)

    def init_assignment(self, assignment_id: str, student_id: str) -> None:
        self._admit(assignment_id, student_id)
        with CourseGradebook(self.coursedir.db_url, self.coursedir.course_id) as gb:
            self._record_submission(gb, assignment_id, student_id)
            self._copy_source_files(assignment_id, student_id)
            self._keep_known_notebooks(gb, assignment_id, student_id)

    def _admit(self, assignment_id: str, student_id: str) -> None:
        """Admit the submission (Refused with the reasons where admission refuses it or a notebook
        cannot be read) and copy its `CARRIED` files to the graded folder, all through one
        descriptor of its folder."""
        source = Path(self._format_source(assignment_id, student_id))
        dest = Path(self._format_dest(assignment_id, student_id))
        notebooks = sorted({Path(nb).name for nb in self.notebooks} or {f"{assignment_id}.ipynb"})
        fd = open_folder(source)
        try:
            verdicts = [inspect(source, name, fd) for name in notebooks]
            reasons = [reason for verdict in verdicts for reason in verdict.reasons]
            reasons = reasons or [reason for name in notebooks if (reason := unreadable(fd, name))]
            if reasons:
                raise Refused(reasons)
            for name in CARRIED:
                if name in verdicts[0].files:
                    dest.mkdir(parents=True, exist_ok=True)
                    copy_at(fd, name, dest / name)
        finally:
            os.close(fd)

    # nbgrader's `Autograde.init_assignment` (0.9.6), step by step, in one gradebook session

    def _record_submission(self, gb: CourseGradebook, assignment_id: str, student_id: str) -> None:
        """The student (created if allowed), the assignment, the hand-in's receipt in the ledger (the
        grader's time and attempt: `autograder.coursedir.ledger`; the attempts the term allows), and
        the submission with the receipt's time."""
        created = False
        if self.create_student:
            created = not gb.db.query(Student).filter(Student.id == student_id).count()
            self.log.info("Creating/updating student with ID '%s': %s", student_id, {})
            gb.update_or_create_student(student_id)
        else:
            self._known(gb.find_student, "student", student_id)
        self._known(gb.find_assignment, "assignment", assignment_id)
        folder = Path(self._format_source(assignment_id, student_id))
        ledger = Ledger(self.coursedir.db_url, self.coursedir.course_id)
        if created:
            ledger.created_by_grading(student_id)
        receipt = self._receipt = ledger.receive(
            assignment_id, student_id, folder, source="submitted", claimed=claimed_time(folder, MAX_TIMESTAMP_BYTES)
        )
        rules = policy.rules(config.load(self.coursedir.root), assignment_id)
        closes = penalties.closes(rules, ledger, assignment_id, student_id)
        if closes is not None and ledger.first_received(receipt) > closes:
            shown = policy.shown(closes, rules.zone)
            raise Refused([label("admission.after_close", assignment=assignment_id, closes=shown)])
        granted = ledger.grants().get((assignment_id, student_id), Grant())
        allowed = rules.attempts + granted.attempts if rules.attempts is not None else None
        if allowed is not None and receipt.attempt > allowed:
            raise Refused(
                [
                    label(
                        "admission.over_attempts",
                        attempt=str(receipt.attempt),
                        allowed=str(allowed),
                        assignment=assignment_id,
                    )
                ]
            )
        timestamp = naive_utc(ledger.first_received(receipt))
        submission = gb.update_or_create_submission(assignment_id, student_id, timestamp=timestamp)
        self.log.info("%s received at %s (attempt %d, %s)", submission, timestamp, receipt.attempt, receipt.source)
        if receipt.claimed:
            self.log.warning(
                "%s of %s: its hand-in claims the time %r; the course received it at %s UTC (the claim is kept "
                "in the ledger, the time is the course's)",
                assignment_id,
                student_id,
                receipt.claimed,
                timestamp,
            )

    def _known(self, find, kind: str, entry_id: str) -> None:
        """nbgrader's error when the gradebook has no `kind` `entry_id`."""
        try:
            find(entry_id)
        except MissingEntry:
            msg = f"No {kind} with ID '{entry_id}' exists in the database"
            self.log.error(msg)
            raise NbGraderException(msg) from None

    def _copy_source_files(self, assignment_id: str, student_id: str) -> None:
        """The files of source/ (but notebooks and `exclude_overwriting`) over the autograded folder."""
        self.log.info("Overwriting files with master versions from the source directory")
        dest_path = self._format_dest(assignment_id, student_id)
        source_path = self.coursedir.format_path(self.coursedir.source_directory, ".", assignment_id)
        source_files = set(utils.find_all_files(source_path, self.coursedir.ignore + ["*.ipynb"]))
        exclude_files = {os.path.join(source_path, x) for x in self.exclude_overwriting.get(assignment_id, [])}
        for filename in list(source_files - exclude_files):
            dest = os.path.join(dest_path, os.path.relpath(filename, source_path))
            if not os.path.exists(os.path.dirname(dest)):
                os.makedirs(os.path.dirname(dest))
            if os.path.exists(dest):
                os.remove(dest)
            self.log.info("Copying %s -> %s", filename, dest)
            shutil.copy(filename, dest)

    def _keep_known_notebooks(self, gb: CourseGradebook, assignment_id: str, student_id: str) -> None:
        """Only the notebooks the gradebook knows; a released notebook missing from the submission scores zero."""
        notebooks = []
        for notebook in self.notebooks:
            try:
                gb.find_notebook(os.path.splitext(os.path.basename(notebook))[0], assignment_id)
            except MissingEntry:
                self.log.warning("Skipping unknown notebook: %s", notebook)
            else:
                notebooks.append(notebook)
        self.notebooks = notebooks
        if not self.notebooks:
            msg = "No notebooks found, did you forget to run 'nbgrader generate_assignment'?"
            self.log.error(msg)
            raise NbGraderException(msg)
        for notebook in gb.find_assignment(assignment_id).notebooks:
            path = os.path.join(
                self.coursedir.format_path(self.coursedir.submitted_directory, student_id, assignment_id),
                "{}.ipynb".format(notebook.name),
            )
            if not os.path.exists(path):
                self.log.warning("No submitted file: {}".format(path))
                submission = gb.find_submission_notebook(notebook.name, assignment_id, student_id)
                for grade in submission.grades:
                    grade.auto_score = 0
                    grade.needs_manual_grade = False
                gb.db.commit()


def _in_gradebook(error: BaseException) -> bool:
    """Whether `error` came from the gradebook's database: an SQLite or SQLAlchemy error, itself or
    as the cause of the one raised (nbgrader's `InvalidEntry` wraps an `IntegrityError`)."""
    seen = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, (SQLAlchemyError, sqlite3.Error)):
            return True
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return False


def install() -> None:
    """Make nbgrader's autograde command and API use `AdmittedAutograde`, and every log record of
    the process come out with its controls escaped (`ShownRecord`)."""
    from nbgrader.apps import api, autogradeapp

    api.Autograde = autogradeapp.Autograde = AdmittedAutograde
    logging.setLogRecordFactory(ShownRecord)
