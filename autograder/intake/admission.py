"""Admission: what a submission folder may hold before nbgrader copies or reads any of it.

Everything under `submitted/<student>/<assignment>/` is the student's, so nothing here follows a
link: the folder is opened once (`open_folder`, `O_NOFOLLOW`) and walked with `lstat` through
directory descriptors from that one, without recursion, so a folder chain of any depth is read in
bounded memory; its notebooks are read and its `CARRIED` files copied relative to the same
descriptor (`copy_at`). A submission is refused when
it holds anything but regular files and folders (symbolic links, hard links, devices, FIFOs,
sockets), when its notebook is missing, or when it is larger than the limits below. A refused
submission is not graded: the gradebook gets it flagged for manual review with the reasons as a
comment, and the log says why; the rest of the class is graded as usual. The reasons name files
through `autograder.intake.escape.quoted`, so no control character of a name reaches a terminal or the comment.

Of an admitted submission only the notebook and `CARRIED` go on to `autograded/` (and so to
`feedback/`); the data files come from `source/`.

`install()` puts `AdmittedAutograde` in the place of nbgrader's `Autograde` in its command line
and API (called from the course's nbgrader configuration), so plain `nbgrader autograde` and
`python -m autograder autograde` admit the same way; it also makes every log record of the process
escape its control characters (`autograder.intake.escape.ShownRecord`).
"""
from __future__ import annotations

import errno
import logging
import os
import re
import shutil
import sqlite3
import stat
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import jsonschema
import nbformat
from nbformat.reader import NotJSONError
from nbgrader import utils
from nbgrader.nbgraderformat import SchemaTooNewError, SchemaTooOldError, ValidationError
from nbgrader.api import MissingEntry, Student
from nbgrader.converters import Autograde, NbGraderException
from sqlalchemy.exc import SQLAlchemyError

from ..coursedir import config, term
from ..coursedir.gradebook import CourseGradebook
from ..coursedir.graded import GradedRecord, graded_record, grader_version
from ..coursedir.layout import FailedAttempt, failed_attempt_record
from ..coursedir.ledger import CARRIED, Ledger, claimed_time
from ..coursedir.penalties import naive_utc
from ..grading.attempts import NoSecret, read_secret
from ..labels import label
from .escape import ShownRecord, code_span, quoted, shown

#: Entries (files and folders) a submission folder may hold, and how deep its folders may go.
MAX_ENTRIES = 2000
MAX_DEPTH = 32
#: Cells a notebook may have (the released ones have about forty): each costs the grader a round
#: trip to the runner and may add a note to the graded notebook.
MAX_CELLS = 1000
#: Bytes a timestamp.txt may have (nbgrader writes about thirty).
MAX_TIMESTAMP_BYTES = 100
#: Bytes one carried file may have (the notebook included).
MAX_FILE_BYTES = 64 * 1024 * 1024

#: The label of each kind of file admission refuses (`admission.kind.*`).
_KINDS = {stat.S_IFLNK: "link", stat.S_IFCHR: "character_device", stat.S_IFBLK: "block_device", stat.S_IFIFO: "fifo",
          stat.S_IFSOCK: "socket"}
_OPEN_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
#: A file opened to be read: never through a link, never waiting for the writer of a FIFO.
_OPEN_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


class Refused(NbGraderException):
    """A submission that admission refused, for its `reasons` (a list of phrases)."""

    def __init__(self, reasons: list[str]):
        super().__init__(reasons)
        self.reasons = reasons

    def __str__(self) -> str:
        return label("admission.join").join(self.reasons)


class Changed(Exception):
    """A file or folder changed while it was read: what was read is not one state of it."""


@dataclass
class Verdict:
    """What admission found in one submission folder."""

    folder: Path
    reasons: list[str] = field(default_factory=list)
    files: dict[str, int] = field(default_factory=dict)  # top-level regular file -> size

    @property
    def admitted(self) -> bool:
        return not self.reasons


def _entries(fd: int):
    """(name, lstat) of each entry of the open folder `fd`, links not followed."""
    with os.scandir(fd) as listing:
        for entry in listing:
            yield entry.name, os.stat(entry.name, dir_fd=fd, follow_symlinks=False)


def _named(name: str) -> str:
    """A student's file name in a reason: quoted (`quoted`) in a markdown code span, so that the
    gradebook comment shows it as written."""
    return code_span(quoted(name))


def _not_regular(path: str, kind: int | None) -> str:
    """Why a file of `kind` (a stat S_IFMT value, None when unknown) at `path` is refused."""
    return label("admission.special_file", path=_named(path), kind=label(f"admission.kind.{_KINDS.get(kind, 'other')}"))


def open_folder(path: str | Path) -> int:
    """A descriptor of the submission folder `path`, its last component never followed as a link;
    Refused where it cannot be opened as a plain folder."""
    try:
        return os.open(path, _OPEN_DIR)
    except OSError as error:
        raise Refused([label("admission.folder_unopenable", error=error.strerror)]) from None


def _close_all(stack: list[tuple[int, str]]) -> None:
    """Close the folders still to be walked and forget them (a walk that stops early)."""
    for current, _ in stack:
        os.close(current)
    stack.clear()


def inspect(folder: Path, notebook: str, fd: int | None = None) -> Verdict:
    """Walk the submission folder `folder` from a descriptor of it, `fd` where given (`open_folder`;
    left open), without following links, and say whether it may be graded; `notebook` is the
    assignment's notebook file name, which must be a top-level regular file."""
    verdict = Verdict(Path(folder))
    try:
        top = os.dup(fd) if fd is not None else open_folder(folder)
    except Refused as refusal:
        verdict.reasons += refusal.reasons
        return verdict
    seen = 0
    stack = [(top, "")]
    try:
        while stack and len(verdict.reasons) < 10:
            current, prefix = stack.pop()
            try:
                for name, info in _entries(current):
                    seen += 1
                    path = prefix + name
                    kind = stat.S_IFMT(info.st_mode)
                    if seen > MAX_ENTRIES:
                        verdict.reasons.append(label("admission.too_many_entries", count=str(MAX_ENTRIES)))
                        _close_all(stack)
                        break
                    if kind == stat.S_IFDIR:
                        if path.count("/") + 1 >= MAX_DEPTH:
                            verdict.reasons.append(label("admission.too_deep", depth=str(MAX_DEPTH), path=_named(path)))
                            _close_all(stack)
                            break
                        stack.append((os.open(name, _OPEN_DIR, dir_fd=current), path + "/"))
                    elif kind != stat.S_IFREG:
                        verdict.reasons.append(_not_regular(path, kind))
                    elif info.st_nlink > 1:
                        verdict.reasons.append(label("admission.hard_link", path=_named(path), links=str(info.st_nlink)))
                    elif not prefix:
                        verdict.files[name] = info.st_size
            finally:
                os.close(current)
    except OSError as error:
        verdict.reasons.append(label("admission.unreadable", error=error.strerror))
    finally:
        _close_all(stack)
    if not verdict.reasons:
        if notebook not in verdict.files:
            verdict.reasons.append(label("admission.no_notebook", notebook=_named(notebook)))
        for name in (notebook, *CARRIED):
            if verdict.files.get(name, 0) > MAX_FILE_BYTES:
                verdict.reasons.append(label("admission.too_large", name=_named(name), megabytes=str(MAX_FILE_BYTES // 2**20)))
    return verdict


def open_plain(name: str | Path, dir_fd: int | None = None) -> int | None:
    """A descriptor of the file `name` (relative to `dir_fd` where given), opened without following
    a link at its last component, where fstat says it is a regular file of one name; None where it
    is a link or anything else."""
    try:
        fd = os.open(name, _OPEN_FILE, dir_fd=dir_fd)
    except OSError as error:
        if error.errno == errno.ELOOP:
            return None
        raise
    info = os.fstat(fd)
    if stat.S_ISREG(info.st_mode) and info.st_nlink == 1:
        return fd
    os.close(fd)
    return None


def _state(info: os.stat_result) -> tuple:
    """What a write or a replacement changes of a file: its inode, size, mtime and ctime."""
    return info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns


def copy_at(dir_fd: int | None, name: str | Path, target: Path) -> os.stat_result:
    """Copy the file `name` of the open folder `dir_fd` (a path where `dir_fd` is None) to `target`,
    through one descriptor (`open_plain`); its fstat after the last byte was read. Changed where it is
    gone, or no longer a regular file of one name, or was written while it was read (its fstat before
    and after differ)."""
    try:
        fd = open_plain(name, dir_fd)
    except FileNotFoundError:
        fd = None
    if fd is None:
        raise Changed(f"{name} is no longer a regular file of one name")
    with os.fdopen(fd, "rb") as source:
        before = os.fstat(fd)
        with open(target, "wb") as copy:
            shutil.copyfileobj(source, copy)
        after = os.fstat(fd)
    if _state(before) != _state(after):
        raise Changed(f"{name} was written while it was copied")
    return after


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
        graded = any(grade.auto_score is not None or grade.manual_score is not None
                     for notebook in submission.notebooks for grade in notebook.grades)
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
            with _EarlierCopy(Path(self._format_dest(assignment_id, student_id))) as earlier:
                earlier.attempt = self._attempt(assignment_id, student_id, earlier)
            if earlier.attempt:
                failed.append(student_id)
        if failed:
            raise NbGraderException(f"{len(failed)} submission(s) not autograded: {', '.join(failed)}")

    def _attempt(self, assignment_id: str, student_id: str, earlier: "_EarlierCopy") -> FailedAttempt | None:
        """Autograde one submission; why it failed, or None. What the submission holds (a refused
        folder, an unreadable notebook, metadata nbgrader cannot read) is a refusal, recorded and
        logged in one line (`_refuse`); any other fault is the grader's, logged with its traceback."""
        try:
            reasons = self._grade(assignment_id, student_id, earlier)
            return self._refuse(assignment_id, student_id, reasons) if reasons else None
        except Exception as error:  # noqa: BLE001 - a grader fault costs this submission, never the class
            self.log.error("failed %s of %s: %s\n%s", assignment_id, student_id, _cause(error), traceback.format_exc())
            return FailedAttempt(f"the grader failed: {_cause(error)}", refused=False, transient=_in_gradebook(error))

    def _grade(self, assignment_id: str, student_id: str, earlier: "_EarlierCopy") -> list[str]:
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
            return [label("admission.cannot_be_graded", cause=code_span(_cause(error)))]

    def _grader_version(self, assignment_id: str) -> str:
        """The grader's version of `assignment_id` (`coursedir.graded.grader_version`), once per run."""
        versions = self.__dict__.setdefault("_versions", {})
        if assignment_id not in versions:
            versions[assignment_id] = grader_version(config.load(self.coursedir.root), [assignment_id])
        return versions[assignment_id]

    def _refuse(self, assignment_id: str, student_id: str, reasons: list[str]) -> FailedAttempt:
        """Record and log one refused submission; its failed attempt."""
        record_refusal(self.coursedir.db_url, self.coursedir.course_id, assignment_id, student_id, reasons)
        self.log.error("refused %s of %s: %s (flagged for manual review)", assignment_id, student_id, "; ".join(reasons))
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
        receipt = self._receipt = ledger.receive(assignment_id, student_id, folder, source="submitted",
                                                 claimed=claimed_time(folder, MAX_TIMESTAMP_BYTES))
        allowed = term.rules(config.load(self.coursedir.root), assignment_id).attempts
        if allowed is not None and receipt.attempt > allowed:
            raise Refused([label("admission.over_attempts", attempt=str(receipt.attempt), allowed=str(allowed),
                                 assignment=assignment_id)])
        timestamp = naive_utc(ledger.first_received(receipt))
        submission = gb.update_or_create_submission(assignment_id, student_id, timestamp=timestamp)
        self.log.info("%s received at %s (attempt %d, %s)", submission, timestamp, receipt.attempt, receipt.source)
        if receipt.claimed:
            self.log.warning("%s of %s: its hand-in claims the time %r; the course received it at %s UTC (the claim is kept "
                             "in the ledger, the time is the course's)", assignment_id, student_id, receipt.claimed, timestamp)

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
            path = os.path.join(self.coursedir.format_path(self.coursedir.submitted_directory, student_id, assignment_id),
                                "{}.ipynb".format(notebook.name))
            if not os.path.exists(path):
                self.log.warning("No submitted file: {}".format(path))
                submission = gb.find_submission_notebook(notebook.name, assignment_id, student_id)
                for grade in submission.grades:
                    grade.auto_score = 0
                    grade.needs_manual_grade = False
                gb.db.commit()


#: What reading a notebook, or its nbgrader metadata, raises where the notebook is at fault.
UNREADABLE = (NotJSONError, nbformat.ValidationError, jsonschema.ValidationError, ValidationError, SchemaTooOldError,
              SchemaTooNewError)


def unreadable(folder_fd: int, name: str) -> str | None:
    """Why the notebook `name` of the open folder `folder_fd` (an admitted regular file) cannot be
    graded, or None."""
    try:
        with open(name, "rb", opener=lambda path, flags: os.open(path, flags | _OPEN_FILE, dir_fd=folder_fd)) as file:
            notebook = nbformat.reads(file.read().decode("utf-8"), as_version=4)
    except (*UNREADABLE, UnicodeDecodeError, RecursionError, ValueError, KeyError, TypeError, AttributeError) as error:
        return label("admission.not_a_notebook", name=_named(name), cause=code_span(_cause(error)))
    if len(notebook.cells) > MAX_CELLS:
        return label("admission.too_many_cells", name=_named(name), cells=str(len(notebook.cells)), most=str(MAX_CELLS))
    return None


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


def _cause(error: BaseException) -> str:
    """An exception as one short line: its type and the first line of its message."""
    lines = str(error).strip().splitlines()
    return shown(f"{type(error).__name__}: {lines[0] if lines else ''}"[:300])


class _EarlierCopy:
    """A submission's graded folder (autograded/<student>/<assignment>) kept beside it while it is
    graded again: put back unless the new grading finished or was skipped (`done`), and its failed
    `attempt`, where there is one, recorded (`layout.failed_attempt_record`) until a grading succeeds.

    The record that the submission is graded (`coursedir.graded.graded_record`) is removed first and
    written last, once the kept copy is gone: a run stopped at any point leaves either the new
    grading with its record, or the earlier copy and no record (graded again by the next run)."""

    #: In a kept folder: there was no graded folder before (a first grading), so none is put back.
    NONE = ".none"

    def __init__(self, dest: Path):
        self.dest, self.kept = dest, dest.parent / f".{dest.name}.earlier"
        self.finished, self.graded, self.attempt, self.record = False, False, None, None
        graded_record(dest).unlink(missing_ok=True)
        if self.kept.is_dir():  # left by a run that was stopped before it finished: what was there before
            self._put_back()
        copying = self.kept.with_name(self.kept.name + ".copying")  # whole, or not there: renamed into place
        shutil.rmtree(copying, ignore_errors=True)
        if self.dest.is_dir():
            shutil.copytree(self.dest, copying, symlinks=True)
        else:
            copying.mkdir(parents=True)
            (copying / self.NONE).touch()
        os.replace(copying, self.kept)

    def _put_back(self) -> None:
        """The graded folder as it was before this grading (none, for a first one)."""
        if self.dest.exists():
            shutil.rmtree(self.dest, ignore_errors=True)
        if (self.kept / self.NONE).exists():
            shutil.rmtree(self.kept)
        else:
            os.replace(self.kept, self.dest)

    def done(self, graded: bool = True, record: GradedRecord | None = None) -> None:
        self.finished, self.graded, self.record = True, graded, record

    def __enter__(self) -> "_EarlierCopy":
        return self

    def __exit__(self, *exc) -> None:
        record = failed_attempt_record(self.dest)
        if self.finished:
            shutil.rmtree(self.kept, ignore_errors=True)
            if self.graded:
                record.unlink(missing_ok=True)
                if self.record is not None:
                    self.record.write(graded_record(self.dest))
            return
        if self.kept.is_dir():
            self._put_back()
        if self.attempt:
            self.attempt.write(record)


def install() -> None:
    """Make nbgrader's autograde command and API use `AdmittedAutograde`, and every log record of
    the process come out with its controls escaped (`ShownRecord`)."""
    from nbgrader.apps import api, autogradeapp

    api.Autograde = autogradeapp.Autograde = AdmittedAutograde
    logging.setLogRecordFactory(ShownRecord)
