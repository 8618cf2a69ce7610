"""Admission: what a submission folder may hold before nbgrader copies or reads any of it.

Everything under `submitted/<student>/<assignment>/` is the student's, so nothing here follows a
link: the folder is walked with `lstat` through directory descriptors (`O_NOFOLLOW`), without
recursion, so a folder chain of any depth is read in bounded memory. A submission is refused when
it holds anything but regular files and folders (symbolic links, hard links, devices, FIFOs,
sockets), when its notebook is missing, or when it is larger than the limits below. A refused
submission is not graded: the gradebook gets it flagged for manual review with the reasons as a
comment, and the log says why; the rest of the class is graded as usual.

Of an admitted submission only the notebook and `CARRIED` go on to `autograded/` (and so to
`feedback/`); the data files come from `source/`.

`install()` puts `AdmittedAutograde` in the place of nbgrader's `Autograde` in its command line
and API (called from the course's nbgrader configuration), so plain `nbgrader autograde` and
`python -m autograder autograde` admit the same way.
"""
from __future__ import annotations

import os
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path

from nbgrader import utils
from nbgrader.api import MissingEntry
from nbgrader.converters import Autograde, BaseConverter, NbGraderException

from .gradebook import CourseGradebook

#: The files besides the notebook that nbgrader's own steps read from a submission.
CARRIED = ("timestamp.txt", "submission_secret.txt")
#: Entries (files and folders) a submission folder may hold, and how deep its folders may go.
MAX_ENTRIES = 2000
MAX_DEPTH = 32
#: Bytes one carried file may have (the notebook included).
MAX_FILE_BYTES = 64 * 1024 * 1024

_KINDS = {stat.S_IFLNK: "a symbolic link", stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device",
          stat.S_IFIFO: "a FIFO", stat.S_IFSOCK: "a socket"}
_OPEN_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class Refused(NbGraderException):
    """A submission that admission refused; its reasons are in the message."""


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


def inspect(folder: Path, notebook: str) -> Verdict:
    """Walk `folder` without following links and say whether it may be graded; `notebook` is the
    assignment's notebook file name, which must be a top-level regular file."""
    verdict = Verdict(Path(folder))
    try:
        top = os.open(folder, _OPEN_DIR)
    except OSError as error:
        verdict.reasons.append(f"the submission folder cannot be opened as a plain folder ({error.strerror})")
        return verdict
    seen = 0
    stack = [(top, "")]
    try:
        while stack and len(verdict.reasons) < 10:
            fd, prefix = stack.pop()
            try:
                for name, info in _entries(fd):
                    seen += 1
                    path = prefix + name
                    kind = stat.S_IFMT(info.st_mode)
                    if seen > MAX_ENTRIES:
                        verdict.reasons.append(f"it holds more than {MAX_ENTRIES} files and folders")
                        stack.clear()
                        break
                    if kind == stat.S_IFDIR:
                        if path.count("/") + 1 >= MAX_DEPTH:
                            verdict.reasons.append(f"its folders are nested more than {MAX_DEPTH} deep ({path[:80]}...)")
                            stack.clear()
                            break
                        stack.append((os.open(name, _OPEN_DIR, dir_fd=fd), path + "/"))
                    elif kind != stat.S_IFREG:
                        verdict.reasons.append(f"{path} is {_KINDS.get(kind, 'not a regular file')}")
                    elif info.st_nlink > 1:
                        verdict.reasons.append(f"{path} is a hard link ({info.st_nlink} names for one file)")
                    elif not prefix:
                        verdict.files[name] = info.st_size
            finally:
                os.close(fd)
    except OSError as error:
        verdict.reasons.append(f"it could not be read ({error.strerror})")
    finally:
        for fd, _ in stack:
            os.close(fd)
    if not verdict.reasons:
        if notebook not in verdict.files:
            verdict.reasons.append(f"it has no {notebook} (a regular file) at its top")
        for name in (notebook, *CARRIED):
            if verdict.files.get(name, 0) > MAX_FILE_BYTES:
                verdict.reasons.append(f"{name} is larger than {MAX_FILE_BYTES // 2**20} MB")
    return verdict


def copy_file(source: Path, target: Path) -> None:
    """Copy one regular file without following a link at `source` (the final component)."""
    fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as src:
        if not stat.S_ISREG(os.fstat(src.fileno()).st_mode):
            raise Refused(f"{source} is not a regular file")
        with open(target, "wb") as dst:
            shutil.copyfileobj(src, dst)


def record_refusal(db_url: str, course_id: str, assignment: str, student: str, reasons: list[str]) -> None:
    """Put the refused submission in the gradebook: flagged, every grade left for manual grading,
    and the reasons as the comment of its first cell, so formgrader shows why."""
    from nbgrader.api import Gradebook

    text = "Not autograded: admission refused this submission because " + "; ".join(reasons) + ". Review it by hand."
    with Gradebook(db_url, course_id) as gb:
        gb.update_or_create_student(student)
        submission = gb.update_or_create_submission(assignment, student)
        for notebook in submission.notebooks:
            notebook.flagged = True
            for grade in notebook.grades:
                grade.auto_score = None
                grade.needs_manual_grade = True
            comments = sorted(notebook.comments, key=lambda c: c.cell.id)
            if comments:
                comments[0].auto_comment = text
        gb.db.commit()


class _CarryAdmitted(BaseConverter):
    """nbgrader's copy of a submission's other files, limited to `CARRIED` and done without
    following links (it sits under `Autograde` in `AdmittedAutograde`'s method order)."""

    def init_assignment(self, assignment_id: str, student_id: str) -> None:
        source = Path(self._format_source(assignment_id, student_id))
        dest = Path(self._format_dest(assignment_id, student_id))
        for name in CARRIED:
            if (source / name).exists():
                dest.mkdir(parents=True, exist_ok=True)
                copy_file(source / name, dest / name)


class AdmittedAutograde(Autograde, _CarryAdmitted):
    """nbgrader's `Autograde`, with each submission admitted before anything of it is copied or
    read; a refused one is recorded in the gradebook and fails alone. The rest of nbgrader's
    `init_assignment` (student, submission and its timestamp, the source files, the known
    notebooks) is restated below on one `CourseGradebook` session instead of five new gradebooks."""

    def init_assignment(self, assignment_id: str, student_id: str) -> None:
        source = Path(self._format_source(assignment_id, student_id))
        notebooks = {Path(nb).name for nb in self.notebooks} or {f"{assignment_id}.ipynb"}
        reasons = [reason for name in sorted(notebooks) for reason in inspect(source, name).reasons]
        if reasons:
            record_refusal(self.coursedir.db_url, self.coursedir.course_id, assignment_id, student_id, reasons)
            message = f"refused {assignment_id} of {student_id}: " + "; ".join(reasons) + " (flagged for manual review)"
            self.log.error(message)
            raise Refused(message)
        super(Autograde, self).init_assignment(assignment_id, student_id)  # _CarryAdmitted's copy
        with CourseGradebook(self.coursedir.db_url, self.coursedir.course_id) as gb:
            self._record_submission(gb, assignment_id, student_id)
            self._copy_source_files(assignment_id, student_id)
            self._keep_known_notebooks(gb, assignment_id, student_id)

    # nbgrader's `Autograde.init_assignment` (0.9.6), step by step, in one gradebook session

    def _record_submission(self, gb: CourseGradebook, assignment_id: str, student_id: str) -> None:
        """The student (created if allowed), the assignment, and the submission with its timestamp."""
        if self.create_student:
            self.log.info("Creating/updating student with ID '%s': %s", student_id, {})
            gb.update_or_create_student(student_id)
        else:
            self._known(gb.find_student, "student", student_id)
        self._known(gb.find_assignment, "assignment", assignment_id)
        timestamp = self.coursedir.get_existing_timestamp(self._format_source(assignment_id, student_id))
        if timestamp:
            submission = gb.update_or_create_submission(assignment_id, student_id, timestamp=timestamp)
            self.log.info("%s submitted at %s", submission, timestamp)
            if submission.total_seconds_late > 0:
                self.log.warning("%s is %s seconds late", submission, submission.total_seconds_late)
        else:
            gb.update_or_create_submission(assignment_id, student_id)

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


def install() -> None:
    """Make nbgrader's autograde command and API use `AdmittedAutograde`."""
    from nbgrader.apps import api, autogradeapp

    api.Autograde = autogradeapp.Autograde = AdmittedAutograde
