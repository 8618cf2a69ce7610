"""Submissions in: nbgrader's exchange collect and LMS zip_collect, refusing what a student could
use to hand in as someone else or to smuggle links past admission.

Both are wired through the course's nbgrader configuration (`autograder.coursedir.config`):

* `SafeCollect` (`ExchangeFactory.collect`). On a shared host every student is an account and the
  inbound folder is writable by all, so each inbound folder to be filed is opened once
  (`walk.open_folder`, never through a link) and everything else is done on that descriptor:
  its owner (fstat) must be the student it names, it is admitted by walking from it, and only its
  notebooks and `CARRIED` files are copied, relative to it (`walk.copy_at`), into a staging
  folder that replaces the student's folder in submitted/ once the copy is whole. A copy during
  which the folder's entries or mtime, or a copied file, changed is made again, `TRIES` times in
  all, then refused in one line (the student's earlier submission stays). An exchange whose folders
  are owned by an account that names no student (`SHARED_ACCOUNTS`, a uid with no account, or the
  collecting account itself unless the course's `SHARED_HOST` is False) stops the collect before
  anything is filed. Of a student's folders the newest by the grader's clock (the folder's ctime,
  not the time in its name) is taken, and the ledger records it with the time its bytes had arrived
  by (`ledger.arrived_by` of the ctimes read after the last byte).
* `RosterCollector` (`ZipCollectApp.collector_plugin`): nbgrader's file-name collector that takes
  the student id from the *first* `_<id>_attempt_` of a name, reads `yyyy-mm-dd-hh-mm-ss` times
  as times, checks ids against the gradebook's roster once one was imported, skips links, orders a
  student's resubmissions (a `resubmission` group: Canvas's `-1`, `-2`) so that the newest is
  taken, notes a `late` group (Canvas's `LATE_`), skips (instead of stopping the class on) a second
  file for one student and notebook with nothing to choose by, copies each file through one
  descriptor (`walk.copy_at`), and has the ledger record what zip_collect filed: the time in
  the name where the pattern gives one, else the time of collection.
"""

from __future__ import annotations

import datetime as dt
import functools
import os
import pwd
import re
import shutil
import tempfile
from pathlib import Path

from nbgrader.api import Gradebook
from nbgrader.exchange.default.collect import ExchangeCollect
from nbgrader.plugins import FileNameCollectorPlugin
from nbgrader.utils import parse_utc
from traitlets import Unicode

from ..coursedir import config
from ..coursedir.ledger import CARRIED, Ledger, arrived_by, changed_at, claimed_time, now
from ..term import penalties, policy
from ..term.penalties import naive_utc
from .admission import record_refusal
from .walk import Changed, Refused, Verdict, copy_at, inspect, open_folder, open_plain

#: nbgrader's documented LMS naming, `<anything>_<student>_attempt_<yyyy-mm-dd-hh-mm-ss>_<notebook>.ipynb`:
#: the prefix may not hold `_attempt_`, so the id is the one before the first `_attempt_` (an
#: uploaded file name cannot put another student's id there), and the id holds no `_`.
DOCUMENTED_PATTERN = (
    r".*/(?:(?!_attempt_)[^/])*?_(?P<student_id>[A-Za-z0-9]+)_attempt_"
    r"(?P<timestamp>\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d)_(?P<file_id>\w+)\.ipynb$"
)
_LMS_TIME = re.compile(r"(\d{4}-\d\d-\d\d)-(\d\d)-(\d\d)-(\d\d)$")
#: Accounts that name no student: Zero to JupyterHub runs every student as `jovyan` (uid 1000);
#: NFS and user namespaces show an owner they cannot map as `nobody`.
SHARED_ACCOUNTS = ("jovyan", "nobody", "nfsnobody")
#: Copies made of an inbound folder that changes while it is copied before it is refused.
TRIES = 3
#: The one line that stops a collect whose exchange cannot tell students apart.
_UNNAMED = (
    "collect stopped, nothing was collected: this exchange cannot tell students apart, since {path} is owned "
    "by {owner}, not by an account of {student}'s own. Give each student an account of their own "
    "(docs/students.md#a-shared-machine-or-jupyterhub), or download the submissions from the LMS and use "
    "`nbgrader zip_collect` (docs/instructor.md); a folder you place yourself belongs in "
    "submitted/<student>/<assignment>/, and SHARED_HOST = False in course_config.py says this host has one user"
)


def _account(uid: int) -> str | None:
    """The name of the account `uid`, None where there is none."""
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return None


#: How far ahead of the grader's receipt a claimed time may be before collect reports it (clocks drift).
CLOCK_SLACK = dt.timedelta(minutes=5)


def _in_the_future(claimed: str | None, received: dt.datetime) -> bool:
    """Whether the time a hand-in claims (`nbgrader submit`'s folder name or timestamp.txt) is later
    than the grader's receipt `received` (aware), by more than `CLOCK_SLACK`; False where it is no time."""
    try:
        when = parse_utc(claimed)
    except (TypeError, ValueError, OverflowError):
        return False
    return when.replace(tzinfo=dt.timezone.utc) > received + CLOCK_SLACK


def _folder_state(fd: int) -> tuple:
    """What adding, removing or renaming an entry changes of the open folder `fd`: its mtime and its
    entries with their inodes."""
    with os.scandir(fd) as listing:
        entries = sorted((entry.name, entry.inode()) for entry in listing)
    return os.fstat(fd).st_mtime_ns, entries


class SafeCollect(ExchangeCollect):
    """nbgrader's exchange collect by descriptor: stopped by folders whose owner names no student;
    foreign-owned, non-admitted and changing inbound folders refused."""

    def _sort_by_timestamp(self, records):
        """Newest first, and the folders the student may have written before all others (the base
        class takes the first); each examined first (`_examine`)."""
        for record in records:
            self._examine(record)
        return sorted(records, key=lambda r: (r["refusal"] is None, r["timestamp"]), reverse=True)

    def _examine(self, record) -> None:
        """Stop the collect where the owner of the inbound folder of `record` names no student
        (`_unnamed`); else note in it why it is passed over (`refusal`, logged; None where it is not)
        and the grader's time of it (`timestamp`: its ctime, never the time in its name)."""
        path = os.path.join(self.inbound_path, record["filename"])
        try:
            uid, when = os.lstat(path).st_uid, changed_at(Path(path))
        except OSError as error:
            record["refusal"] = f"{path} cannot be read as a plain folder ({error.strerror})"
        else:
            unnamed = self.check_owner and self._unnamed(uid)
            if unnamed:
                self.fail(_UNNAMED.format(path=path, owner=unnamed, student=record["username"]))
            record["refusal"], record["timestamp"] = self._refusal(record, uid), naive_utc(when)
        if record["refusal"]:
            self.log.error("refused: %s; nothing of it is collected", record["refusal"])

    @functools.cached_property
    def _shared_host(self) -> bool:
        return config.load(self.coursedir.root).SHARED_HOST

    def _unnamed(self, uid: int) -> str | None:
        """Why the owner `uid` of an inbound folder names no student, or None: the collecting account
        itself (unless the course's `SHARED_HOST` is False: then the instructor placed it), a uid with
        no account, or an account students share (`SHARED_ACCOUNTS`)."""
        if uid == os.geteuid():
            return "the collecting account itself" if self._shared_host else None
        name = _account(uid)
        if name is None:
            return f"uid {uid}, which has no account"
        return f"{name}, an account many share" if name in SHARED_ACCOUNTS else None

    def _refusal(self, record, uid: int) -> str | None:
        """Why the inbound folder of `record`, owned by `uid`, is not the student's own, or None."""
        if not self.check_owner:
            return None
        path = os.path.join(self.inbound_path, record["filename"])
        unnamed = self._unnamed(uid)
        if unnamed:
            return f"{path} is owned by {unnamed}"
        owner = _account(uid)
        if owner == record["username"] or uid == os.geteuid():  # the instructor's own, on a host of one user
            return None
        return f"{path} claims to be handed in by {record['username']} but is owned by {owner}"

    def copy_files(self):
        """Stage a copy of each inbound folder to be filed (`_stage`; refused ones logged, and those
        admission refuses flagged in the gradebook) before nbgrader replaces anything in submitted/;
        nbgrader's copy then files the staged copies (`do_copy`)."""
        submitted = Path(self.coursedir.root) / self.coursedir.submitted_directory
        submitted.mkdir(parents=True, exist_ok=True)
        self._staging, self._staged = Path(tempfile.mkdtemp(prefix=".collecting-", dir=submitted)), {}
        check_owner = self.check_owner
        try:
            self.src_records = [record for record in self.src_records if not record["refusal"] and self._stage(record)]
            self.check_owner = (
                False  # checked on each folder's descriptor; the base class would warn about the instructor's own
            )
            # "newer" is the grader's receipt against the grader's receipt, never timestamp.txt (a claim)
            self.coursedir.get_existing_timestamp = self._received_at
            super().copy_files()
        finally:
            self.check_owner = check_owner
            vars(self.coursedir).pop("get_existing_timestamp", None)
            shutil.rmtree(self._staging, ignore_errors=True)

    def _received_at(self, folder: str) -> dt.datetime | None:
        """When the grader received the bytes filed in submitted/ at `folder` (naive UTC, as nbgrader
        compares it with each inbound folder's `timestamp`, the grader's too): the first receipt of
        those bytes in the ledger; None where it has none (a folder put there by hand)."""
        ledger = Ledger(self.coursedir.db_url, self.coursedir.course_id)
        receipt = ledger.current(self.coursedir.assignment_id, Path(folder).parent.name, Path(folder))
        return None if receipt is None else naive_utc(ledger.first_received(receipt))

    def _stage(self, record) -> bool:
        """Copy the inbound folder of `record` to the staging folder through one descriptor of it: its
        owner checked on it (fstat), then admitted and copied from it (`_copy`); False (logged) where it
        is refused."""
        path = os.path.join(self.inbound_path, record["filename"])
        try:
            fd = open_folder(path)
        except Refused as refusal:
            return self._refuse(record, refusal.reasons)
        try:
            why = self._refusal(record, os.fstat(fd).st_uid)
            if why:
                self.log.error("refused: %s; nothing of it is collected", why)
                return False
            return self._copy(record, path, fd)
        finally:
            os.close(fd)

    def _refuse(self, record, reasons: list[str]) -> bool:
        """Log the inbound folder of `record` as refused by admission and flag it in the gradebook; False."""
        self.log.error(
            "refused %s of %s: %s (flagged for manual review)",
            self.coursedir.assignment_id,
            record["username"],
            "; ".join(reasons),
        )
        record_refusal(
            self.coursedir.db_url, self.coursedir.course_id, self.coursedir.assignment_id, record["username"], reasons
        )
        return False

    def _copy(self, record, path: str, fd: int) -> bool:
        """Admit and copy the inbound folder `path`, open at `fd`, to the staging folder, again where it
        changed meanwhile, `TRIES` times in all; False (logged) where admission refuses it or it never
        held still."""
        staged = Path(tempfile.mkdtemp(dir=self._staging)) / "hand-in"  # never a path made of the name a student chose
        for _ in range(TRIES):
            shutil.rmtree(staged, ignore_errors=True)
            try:
                verdict, received = self._copy_once(path, fd, staged)
            except Changed:
                continue
            if not verdict.admitted:
                return self._refuse(record, verdict.reasons)
            self._staged[record["filename"]] = staged, received
            record["timestamp"] = naive_utc(received)
            return True
        self.log.error(
            "refused %s of %s: %s changed while it was copied, %d times; nothing of it is collected and what was "
            "collected of it before stays (collect again once it is left alone)",
            self.coursedir.assignment_id,
            record["username"],
            path,
            TRIES,
        )
        return False

    def _copy_once(self, path: str, fd: int, staged: Path) -> tuple[Verdict, dt.datetime | None]:
        """Admit the inbound folder `path`, open at `fd`, and copy its notebooks and `CARRIED` files
        into `staged`, all from `fd`; the verdict and the time its bytes had arrived by (`arrived_by`
        of the ctimes read after the last byte), None where it is refused. Changed where its entries
        or mtime, or a file, changed meanwhile."""
        before = _folder_state(fd)
        verdict = inspect(Path(path), f"{self.coursedir.assignment_id}.ipynb", fd)
        if not verdict.admitted:
            return verdict, None
        staged.mkdir()
        copied = [
            copy_at(fd, name, staged / name) for name in verdict.files if name.endswith(".ipynb") or name in CARRIED
        ]
        if _folder_state(fd) != before:
            raise Changed(f"{path} changed while it was copied")
        return verdict, arrived_by([os.fstat(fd).st_ctime_ns, *(info.st_ctime_ns for info in copied)])

    def do_copy(self, src, dest, log=None):
        """File the copy `_stage` made of the inbound folder `src` as `dest`, and record it in the ledger
        with the time its bytes had arrived by."""
        staged, received = self._staged.pop(os.path.basename(src))
        os.rename(staged, dest)
        parts = Path(src).name.split("+")  # student+assignment+time(+random), as `nbgrader submit` names it
        claimed = parts[2] if len(parts) >= 3 else claimed_time(Path(dest))
        rules = policy.rules(config.load(self.coursedir.root), self.coursedir.assignment_id)
        if _in_the_future(claimed, received):
            self.log.warning(
                "%s's hand-in of %s claims the time %r, after the grader received it (%s): kept as a claim, never used",
                Path(dest).parent.name,
                self.coursedir.assignment_id,
                claimed[:40],
                policy.shown(received, rules.zone),
            )
        ledger = Ledger(self.coursedir.db_url, self.coursedir.course_id)
        student = Path(dest).parent.name
        ledger.receive(
            self.coursedir.assignment_id,
            student,
            Path(dest),
            source="exchange",
            received=received,
            claimed=claimed,
            origin=str(src),
        )
        closes = penalties.closes(rules, ledger, self.coursedir.assignment_id, student)
        if closes is not None and received > closes:
            self.log.warning(
                "%s's hand-in of %s arrived after it closed (%s): recorded, and autograde will not grade it",
                student,
                self.coursedir.assignment_id,
                policy.shown(closes, rules.zone),
            )


class RosterCollector(FileNameCollectorPlugin):
    """nbgrader's file-name collector for zip_collect, made safe for names students choose."""

    named_regexp = Unicode(
        DOCUMENTED_PATTERN,
        help="As FileNameCollectorPlugin's; defaults to nbgrader's documented "
        "naming, read from the first _<id>_attempt_.",
    ).tag(config=True)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._seen: set[tuple[str, str]] = set()
        self._roster: set[str] | None = None
        self._facts: dict[str, dict] = {}  # collected file -> {"late": bool, "timed": bool}
        self._collected_at = now()
        app = self.parent  # zip_collect: its files ordered by resubmission, and what it filed recorded
        if app is not None and hasattr(app, "_transfer_files"):
            collect_files = app._collect_files
            app._collect_files = lambda files: collect_files(sorted(files, key=self._order))
            app._transfer_files = lambda data: (self._transfer(data), self._record(data))

    def _order(self, path: str) -> tuple:
        """A file's place among zip_collect's: a resubmission after the file it follows."""
        match = re.match(self.named_regexp, path)
        again = match.groupdict().get("resubmission") if match else None
        return (int(again) if again else 0, path)

    def _transfer(self, data: dict) -> None:
        """nbgrader's `ZipCollectApp._transfer_files` (0.9.6), each file copied through one descriptor
        (`walk.copy_at`: never through a link, a regular file of one name, unchanged while read)."""
        app = self.parent
        coursedir = app.coursedir
        for student, filed in (data or {}).items():
            folder = coursedir.format_path(coursedir.submitted_directory, student, coursedir.assignment_id)
            app._mkdirs_if_missing(folder)
            app._clear_existing_files(folder)
            for src, dest in zip(filed["src_files"], filed["dest_files"]):
                app._mkdirs_if_missing(os.path.dirname(dest))
                if os.path.exists(dest):
                    app.fail(f"Trying to overwrite existing file: {dest}")
                app.log.info("Copying %s -> %s", src, dest)
                try:
                    copy_at(None, src, Path(dest))
                except Changed as change:
                    app.fail(f"{change}; run zip_collect again")
            stamp = Path(folder) / "timestamp.txt"
            if not stamp.exists() and filed["timestamp"] is not None:
                stamp.write_text(filed["timestamp"].isoformat(" "))

    def _record(self, data: dict) -> None:
        """Record in the ledger each student's files that zip_collect filed under submitted/."""
        coursedir = self.parent.coursedir
        ledger = Ledger(coursedir.db_url, coursedir.course_id)
        for student, filed in (data or {}).items():
            facts = [self._facts.get(src, {}) for src in filed["src_files"]]
            timed = any(fact.get("timed") for fact in facts)
            when = (
                filed["timestamp"].replace(tzinfo=dt.timezone.utc)
                if timed and filed.get("timestamp")
                else self._collected_at
            )
            folder = Path(coursedir.format_path(coursedir.submitted_directory, student, coursedir.assignment_id))
            if (
                not timed
            ):  # zip_collect wrote the time of collection there: no byte of the hand-in, and never the same twice
                (folder / "timestamp.txt").unlink(missing_ok=True)
            ledger.receive(
                coursedir.assignment_id,
                student,
                folder,
                source="lms",
                received=when,
                timed=timed,
                late_flag=any(fact.get("late") for fact in facts),
                origin=", ".join(filed["src_files"]),
            )

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
                self.log.warning(
                    "no roster was imported (the gradebook holds no student, or only those grading added), "
                    "so collected ids are not checked against one (import it with `nbgrader db student import`)"
                )
        return self._roster

    def collect(self, submitted_file: str) -> dict | None:
        plain = open_plain(submitted_file)
        if plain is None:
            self.log.warning("skipped %s: not a plain file (a link or a special file)", submitted_file)
            return None
        os.close(plain)
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
                self.log.warning(
                    "skipped %s: a second %s for %s with no time to choose by; collect it by hand",
                    submitted_file,
                    file_id,
                    student,
                )
                return None
            self._seen.add((student, file_id))
            found["timestamp"] = naive_utc(self._collected_at).isoformat(
                " "
            )  # equal times: the later file (`_order`) wins
        return found
