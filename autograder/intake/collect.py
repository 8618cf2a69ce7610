"""Submissions in: nbgrader's exchange collect and LMS zip_collect, refusing what a student could
use to hand in as someone else or to smuggle links past admission.

Both are wired through the course's nbgrader configuration (`autograder.coursedir.config`):

* `SafeCollect` (`ExchangeFactory.collect`): an inbound folder counts only when its owner is the
  student it names (or the collecting user, who may place files there by hand); it is admitted
  like a submission (`autograder.intake.admission`) and only its notebooks and `CARRIED` files are copied,
  never through a link. Of the folders left, the newest is taken, as nbgrader does.
* `RosterCollector` (`ZipCollectApp.collector_plugin`): nbgrader's file-name collector that takes
  the student id from the *first* `_<id>_attempt_` of a name, reads `yyyy-mm-dd-hh-mm-ss` times
  as times, checks ids against the gradebook's roster, skips links, and skips (instead of
  stopping the class on) a second file for one student and notebook with no time to choose by.
"""
from __future__ import annotations

import os
import pwd
import re
import stat
from pathlib import Path

from nbgrader.api import Gradebook
from nbgrader.exchange.default.collect import ExchangeCollect
from nbgrader.plugins import FileNameCollectorPlugin
from traitlets import Unicode

from .admission import CARRIED, copy_file, inspect, record_refusal

#: nbgrader's documented LMS naming, `<anything>_<student>_attempt_<yyyy-mm-dd-hh-mm-ss>_<notebook>.ipynb`:
#: the prefix may not hold `_attempt_`, so the id is the one before the first `_attempt_` (an
#: uploaded file name cannot put another student's id there), and the id holds no `_`.
DOCUMENTED_PATTERN = (r".*/(?:(?!_attempt_)[^/])*?_(?P<student_id>[A-Za-z0-9]+)_attempt_"
                      r"(?P<timestamp>\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d)_(?P<file_id>\w+)\.ipynb$")
_LMS_TIME = re.compile(r"(\d{4}-\d\d-\d\d)-(\d\d)-(\d\d)-(\d\d)$")


def _owner(path: str) -> tuple[int, str]:
    uid = os.lstat(path).st_uid
    try:
        return uid, pwd.getpwuid(uid).pw_name
    except KeyError:
        return uid, f"uid {uid}"


class SafeCollect(ExchangeCollect):
    """nbgrader's exchange collect, with foreign-owned and non-admitted inbound folders refused."""

    def _sort_by_timestamp(self, records):
        """Newest first, and the folders the student may have written before all others (the base
        class takes the first); a folder passed over for its owner is logged."""
        for record in records:
            why = self._refusal(record)
            if why:
                self.log.error("refused: %s; nothing of it is collected", why)
        return sorted(records, key=lambda r: (self._refusal(r) is None, r["timestamp"]), reverse=True)

    def _refusal(self, record) -> str | None:
        """Why one inbound folder is not the student's own submission, or None."""
        path = os.path.join(self.inbound_path, record["filename"])
        if not self.check_owner:
            return None
        uid, name = _owner(path)
        if name != record["username"] and uid != os.geteuid():
            return f"{path} claims to be handed in by {record['username']} but is owned by {name}"
        return None

    def copy_files(self):
        """Refuse foreign-owned folders (logged) and folders admission refuses (logged and flagged in
        the gradebook) before nbgrader replaces anything in submitted/; collect the rest."""
        kept = []
        notebook = f"{self.coursedir.assignment_id}.ipynb"
        for record in self.src_records:
            path = Path(self.inbound_path) / record["filename"]
            verdict = inspect(path, notebook)
            if self._refusal(record):
                continue  # logged when the folders were sorted
            if not verdict.admitted:
                self.log.error("refused %s of %s: %s (flagged for manual review)", self.coursedir.assignment_id,
                               record["username"], "; ".join(verdict.reasons))
                record_refusal(self.coursedir.db_url, self.coursedir.course_id, self.coursedir.assignment_id,
                               record["username"], verdict.reasons)
            else:
                kept.append(record)
        self.src_records, check_owner = kept, self.check_owner
        self.check_owner = False  # checked above; the base class would warn about the instructor's own folders
        try:
            super().copy_files()
        finally:
            self.check_owner = check_owner

    def do_copy(self, src, dest, log=None):
        """Copy an admitted inbound folder's notebooks and `CARRIED` files, links never followed."""
        os.makedirs(dest)
        for name in inspect(Path(src), f"{self.coursedir.assignment_id}.ipynb").files:
            if name.endswith(".ipynb") or name in CARRIED:
                copy_file(Path(src) / name, Path(dest) / name)


class RosterCollector(FileNameCollectorPlugin):
    """nbgrader's file-name collector for zip_collect, made safe for names students choose."""

    named_regexp = Unicode(DOCUMENTED_PATTERN, help="As FileNameCollectorPlugin's; defaults to nbgrader's documented "
                                                    "naming, read from the first _<id>_attempt_.").tag(config=True)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._seen: set[tuple[str, str]] = set()
        self._roster: set[str] | None = None

    def roster(self) -> set[str]:
        """The gradebook's student ids (empty when no roster was added)."""
        if self._roster is None:
            coursedir = self.parent.coursedir
            with Gradebook(coursedir.db_url, coursedir.course_id) as gb:
                self._roster = {student.id for student in gb.students}
            if not self._roster:
                self.log.warning("the gradebook has no students, so collected ids are not checked against a roster "
                                 "(add it with `nbgrader db student import`)")
        return self._roster

    def collect(self, submitted_file: str) -> dict | None:
        info = os.lstat(submitted_file)
        if not stat.S_ISREG(info.st_mode) or info.st_nlink > 1:
            self.log.warning("skipped %s: not a plain file (a link or a special file)", submitted_file)
            return None
        found = super().collect(submitted_file)
        if not found:
            return None
        student, file_id = found.get("student_id") or "", found.get("file_id") or ""
        if self.roster() and student not in self.roster():
            self.log.warning("skipped %s: student id %r is not on the gradebook's roster", submitted_file, student)
            return None
        when = found.get("timestamp")
        if isinstance(when, str) and _LMS_TIME.search(when):
            found["timestamp"] = _LMS_TIME.sub(r"\1 \2:\3:\4", when)
        elif not when:
            if (student, file_id) in self._seen:
                self.log.warning("skipped %s: a second %s for %s with no time to choose by; collect it by hand",
                                 submitted_file, file_id, student)
                return None
            self._seen.add((student, file_id))
        return found
