"""Submissions in: nbgrader's exchange collect and LMS zip_collect, refusing what a student could
use to hand in as someone else or to smuggle links past admission.

Both are wired through the course's nbgrader configuration (`autograder.coursedir.config`):

* `SafeCollect` (`ExchangeFactory.collect`): an inbound folder counts only when its owner is the
  student it names (or the collecting user, who may place files there by hand); it is admitted
  like a submission (`autograder.intake.admission`) and only its notebooks and `CARRIED` files are copied,
  never through a link. Of the folders left, the newest by the grader's clock (the folder's ctime,
  not the time in its name) is taken, and the ledger records it with that time.
* `RosterCollector` (`ZipCollectApp.collector_plugin`): nbgrader's file-name collector that takes
  the student id from the *first* `_<id>_attempt_` of a name, reads `yyyy-mm-dd-hh-mm-ss` times
  as times, checks ids against the gradebook's roster once one was imported, skips links, orders a
  student's resubmissions (a `resubmission` group: Canvas's `-1`, `-2`) so that the newest is
  taken, notes a `late` group (Canvas's `LATE_`), skips (instead of stopping the class on) a second
  file for one student and notebook with nothing to choose by, and has the ledger record what
  zip_collect filed: the time in the name where the pattern gives one, else the time of collection.
"""
from __future__ import annotations

import datetime as dt
import os
import pwd
import re
import stat
from pathlib import Path

from nbgrader.api import Gradebook
from nbgrader.exchange.default.collect import ExchangeCollect
from nbgrader.plugins import FileNameCollectorPlugin
from traitlets import Unicode

from ..coursedir.ledger import CARRIED, Ledger, changed_at, claimed_time, now
from ..coursedir.penalties import naive_utc
from .admission import copy_file, inspect, record_refusal

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
        for record in records:  # the grader's time, never the one in the folder's name
            record["timestamp"] = naive_utc(changed_at(Path(self.inbound_path) / record["filename"]))
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
        """Copy an admitted inbound folder's notebooks and `CARRIED` files, links never followed, and
        record the copy in the ledger with the inbound folder's time."""
        received = changed_at(Path(src))
        os.makedirs(dest)
        for name in inspect(Path(src), f"{self.coursedir.assignment_id}.ipynb").files:
            if name.endswith(".ipynb") or name in CARRIED:
                copy_file(Path(src) / name, Path(dest) / name)
        parts = Path(src).name.split("+")  # student+assignment+time(+random), as `nbgrader submit` names it
        claimed = parts[2] if len(parts) >= 3 else claimed_time(Path(dest))
        Ledger(self.coursedir.db_url, self.coursedir.course_id).receive(
            self.coursedir.assignment_id, Path(dest).parent.name, Path(dest), source="exchange", received=received,
            claimed=claimed, origin=str(src))


class RosterCollector(FileNameCollectorPlugin):
    """nbgrader's file-name collector for zip_collect, made safe for names students choose."""

    named_regexp = Unicode(DOCUMENTED_PATTERN, help="As FileNameCollectorPlugin's; defaults to nbgrader's documented "
                                                    "naming, read from the first _<id>_attempt_.").tag(config=True)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._seen: set[tuple[str, str]] = set()
        self._roster: set[str] | None = None
        self._facts: dict[str, dict] = {}  # collected file -> {"late": bool, "timed": bool}
        self._collected_at = now()
        app = self.parent  # zip_collect: its files ordered by resubmission, and what it filed recorded
        if app is not None and hasattr(app, "_transfer_files"):
            collect_files, transfer_files = app._collect_files, app._transfer_files
            app._collect_files = lambda files: collect_files(sorted(files, key=self._order))
            app._transfer_files = lambda data: (transfer_files(data), self._record(data))

    def _order(self, path: str) -> tuple:
        """A file's place among zip_collect's: a resubmission after the file it follows."""
        match = re.match(self.named_regexp, path)
        again = match.groupdict().get("resubmission") if match else None
        return (int(again) if again else 0, path)

    def _record(self, data: dict) -> None:
        """Record in the ledger each student's files that zip_collect filed under submitted/."""
        coursedir = self.parent.coursedir
        ledger = Ledger(coursedir.db_url, coursedir.course_id)
        for student, filed in (data or {}).items():
            facts = [self._facts.get(src, {}) for src in filed["src_files"]]
            timed = any(fact.get("timed") for fact in facts)
            when = filed["timestamp"].replace(tzinfo=dt.timezone.utc) if timed and filed.get("timestamp") else self._collected_at
            folder = Path(coursedir.format_path(coursedir.submitted_directory, student, coursedir.assignment_id))
            if not timed:  # zip_collect wrote the time of collection there: no byte of the hand-in, and never the same twice
                (folder / "timestamp.txt").unlink(missing_ok=True)
            ledger.receive(coursedir.assignment_id, student, folder, source="lms", received=when, timed=timed,
                           late_flag=any(fact.get("late") for fact in facts), origin=", ".join(filed["src_files"]))

    def roster(self) -> set[str]:
        """The gradebook's student ids; empty until a roster was imported (while every student in it
        is one that grading added)."""
        if self._roster is None:
            coursedir = self.parent.coursedir
            with Gradebook(coursedir.db_url, coursedir.course_id) as gb:
                self._roster = {student.id for student in gb.students}
            if not self._roster - Ledger(coursedir.db_url, coursedir.course_id).grading_created():
                self._roster = set()  # only students that grading added: no roster was imported
            if not self._roster:
                self.log.warning("no roster was imported (the gradebook holds no student, or only those grading added), "
                                 "so collected ids are not checked against one (import it with `nbgrader db student import`)")
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
        self._facts[submitted_file] = {"late": bool(found.get("late")), "timed": bool(when)}
        if isinstance(when, str) and _LMS_TIME.search(when):
            found["timestamp"] = _LMS_TIME.sub(r"\1 \2:\3:\4", when)
            try:
                dt.datetime.fromisoformat(found["timestamp"])
            except ValueError:
                self.log.warning("skipped %s: %r is not a time; collect it by hand", submitted_file, when)
                return None
        elif not when:
            if (student, file_id) in self._seen and "resubmission" not in found:
                self.log.warning("skipped %s: a second %s for %s with no time to choose by; collect it by hand",
                                 submitted_file, file_id, student)
                return None
            self._seen.add((student, file_id))
            found["timestamp"] = naive_utc(self._collected_at).isoformat(" ")  # equal times: the later file (`_order`) wins
        return found
