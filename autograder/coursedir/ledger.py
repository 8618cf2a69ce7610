"""The submission ledger: what the course received, when, and which attempt it is - kept by the
grader, in the gradebook's database, never taken from what a student wrote.

Every hand-in the course receives (`nbgrader collect` from the exchange, `nbgrader zip_collect`
from an LMS download, a folder put in `submitted/` by hand and found by autograde) gets a
`Receipt`: the time the instructor's side saw it, the attempt number, the SHA-256 of every byte
handed in (the notebook and the files carried with it, `CARRIED`), where it came from, and the time
the student claimed where it differs. A receipt is written before the submission is graded and is
never changed: the table refuses UPDATE and DELETE.

An attempt is a set of bytes: a hand-in whose bytes equal an earlier one's is that attempt again
(so a regrade gives the same grade), any other is the next attempt. The attempt's receipt time is
the first time its bytes arrived.

Beside the receipts the course keeps, in the same database: extensions (`Extension`, appended; the
latest for a student and assignment holds, a revoked one has no `until`), grants of extra attempts,
late days or a later close date (`Grant`, appended; the latest of each value holds), the grade
history (`autograder.term.history`), the scores of earlier attempts (for "counts": "best"), each
attempt's written answers by digest (whose TA grade is whose: `autograder.intake.bookkeeping`), and
which students grading created (so that the roster check of zip_collect waits for a real roster).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from nbgrader.utils import parse_utc
from sqlalchemy import Boolean, Column, Float, Integer, MetaData, String, Table, Text, and_, event, insert, select

from .gradebook import CourseGradebook

#: The files besides the notebooks that a submission carries (nbgrader's own steps read them).
CARRIED = ("timestamp.txt", "submission_secret.txt")
#: Where a receipt came from.
SOURCES = ("exchange", "lms", "submitted")
#: How far a ctime may lag the change it stamps: the kernel stamps from its coarse clock, at most one
#: tick (10 ms at the slowest common HZ, 100) behind the moment of the change.
STAMP_LAG = dt.timedelta(milliseconds=10)

METADATA = MetaData()
RECEIPTS = Table(
    "course_receipts",
    METADATA,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("assignment", String(128), nullable=False, index=True),
    Column("student", String(128), nullable=False, index=True),
    Column("received", String(40), nullable=False),  # ISO 8601, UTC
    Column("attempt", Integer, nullable=False),
    Column("digest", String(64), nullable=False),
    Column("files", Text, nullable=False),  # JSON {file name: sha256}
    Column("source", String(16), nullable=False),
    Column("claimed", String(128), nullable=True),  # what the hand-in said of its own time, where it differs
    Column(
        "timed", Boolean, nullable=False, default=True
    ),  # `received` is when it was handed in, not when it was collected
    Column("late_flag", Boolean, nullable=False, default=False),  # the LMS marked it late (Canvas's LATE_)
    Column("origin", Text, nullable=False, default=""),  # the inbound folder or downloaded file
)
EXTENSIONS = Table(
    "course_extensions",
    METADATA,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("assignment", String(128), nullable=False),
    Column("student", String(128), nullable=False),
    Column("until", String(40), nullable=True),  # ISO 8601 UTC; None: revoked
    Column("reason", Text, nullable=False),
    Column("granted", String(40), nullable=False),
)
GRANTS = Table(
    "course_grants",  # one student's extra attempts, late days or later close date on one assignment
    METADATA,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("assignment", String(128), nullable=False),
    Column("student", String(128), nullable=False),
    Column("attempts", Integer, nullable=True),  # None: as before
    Column("late_days", Integer, nullable=True),
    Column("closes", String(40), nullable=True),  # ISO 8601 UTC
    Column("reason", Text, nullable=False),
    Column("granted", String(40), nullable=False),
)
ATTEMPT_SCORES = Table(
    "course_attempt_scores",
    METADATA,
    Column("assignment", String(128), primary_key=True),
    Column("student", String(128), primary_key=True),
    Column("attempt", Integer, primary_key=True),
    Column("raw", Float, nullable=False),
    Column("max", Float, nullable=False),
    Column("penalty", Float, nullable=False),
)
ANSWERS = Table(
    "course_answers",  # what each attempt answered in a cell a TA grades (a written answer), by digest
    METADATA,
    Column("assignment", String(128), primary_key=True),
    Column("student", String(128), primary_key=True),
    Column("attempt", Integer, primary_key=True),
    Column("cell", String(128), primary_key=True),
    Column("digest", String(64), nullable=False),  # sha256 of the cell's source
)
GRADING_CREATED = Table(
    "course_grading_created",
    METADATA,
    Column("student", String(128), primary_key=True),
)
HISTORY = Table(
    "course_grade_history",
    METADATA,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("at", String(40), nullable=False),
    Column("action", String(16), nullable=False),  # regrade, extend, revert, answer
    Column("reason", Text, nullable=False),
    Column("grader", String(64), nullable=False),  # digest of the assignments' specs
    Column("changes", Text, nullable=False),  # JSON list of `autograder.term.history.Change`
)
_IMMUTABLE = (
    "CREATE TRIGGER IF NOT EXISTS course_receipts_{op} BEFORE {op} ON course_receipts "
    "BEGIN SELECT RAISE(ABORT, 'the submission ledger is append-only'); END"
)


@event.listens_for(METADATA, "after_create")
def _append_only(target, connection, **kw) -> None:
    if connection.dialect.name == "sqlite":
        for op in ("UPDATE", "DELETE"):
            connection.exec_driver_sql(_IMMUTABLE.format(op=op))


def now() -> dt.datetime:
    """The grader's clock, aware UTC."""
    return dt.datetime.now(dt.timezone.utc)


def iso(when: dt.datetime) -> str:
    return when.astimezone(dt.timezone.utc).isoformat(timespec="microseconds")


def parse(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text)


@dataclass(frozen=True)
class Receipt:
    """One hand-in received: `attempt` counts distinct sets of bytes; `received` is aware UTC, the
    time it was handed in where `timed` (the exchange folder's, the LMS's in the file name, the
    folder's in submitted/), else the time it was collected (an LMS download without times, where
    `late_flag` is the LMS's word on lateness)."""

    id: int
    assignment: str
    student: str
    received: dt.datetime
    attempt: int
    digest: str
    files: dict
    source: str
    claimed: str | None = None
    timed: bool = True
    late_flag: bool = False
    origin: str = ""

    @classmethod
    def of(cls, row) -> "Receipt":
        return cls(
            row.id,
            row.assignment,
            row.student,
            parse(row.received),
            row.attempt,
            row.digest,
            json.loads(row.files),
            row.source,
            row.claimed,
            bool(row.timed),
            bool(row.late_flag),
            row.origin or "",
        )


@dataclass(frozen=True)
class Grant:
    """What one student is granted on one assignment beyond the term's rules, as in force (the latest
    grant of each): extra attempts that count, extra late days, a later close date (aware UTC)."""

    attempts: int = 0
    late_days: int = 0
    closes: dt.datetime | None = None


@dataclass(frozen=True)
class Extension:
    """An extension as recorded: `until` (aware UTC) or None where it was revoked."""

    assignment: str
    student: str
    until: dt.datetime | None
    reason: str
    granted: dt.datetime


def handed_in(folder: Path) -> dict[str, str]:
    """{file name: sha256} of what a submission folder carries: its top-level notebooks and `CARRIED`
    files, read without following links (admission has refused any other kind of entry)."""
    found = {}
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        if entry.name.endswith(".ipynb") or entry.name in CARRIED:
            fd = os.open(entry.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
            with os.fdopen(fd, "rb") as file:
                if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
                    continue
                digest = hashlib.sha256()
                while chunk := file.read(1 << 20):
                    digest.update(chunk)
            found[entry.name] = digest.hexdigest()
    return found


def digest(files: dict[str, str]) -> str:
    """The digest of a whole hand-in from its files' digests (names included)."""
    return hashlib.sha256(json.dumps(sorted(files.items())).encode()).hexdigest()


def arrived_by(ctimes_ns) -> dt.datetime:
    """The time by which bytes had arrived whose files and folder last changed at `ctimes_ns` (their
    ctimes, which no user can set back, in ns, read after the last byte): the latest plus
    `STAMP_LAG`, so never earlier than the last change, and never later than now."""
    latest = dt.datetime.fromtimestamp(0, dt.timezone.utc) + dt.timedelta(microseconds=max(ctimes_ns) // 1000)
    return min(latest + STAMP_LAG, now())


def changed_at(folder: Path) -> dt.datetime:
    """When the last change of `folder` (opened without following a link) and of its top-level
    entries had arrived by (`arrived_by`)."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        with os.scandir(fd) as listing:
            times = [os.stat(entry.name, dir_fd=fd, follow_symlinks=False).st_ctime_ns for entry in listing]
        return arrived_by([os.fstat(fd).st_ctime_ns, *times])
    finally:
        os.close(fd)


def claimed_time(folder: Path, limit: int = 100) -> str | None:
    """What the hand-in's `timestamp.txt` says (at most `limit` bytes, shown as text), or None."""
    path = folder / "timestamp.txt"
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as file:
        return file.read(limit).decode("utf-8", "replace").strip() or None


def _differs(claimed: str | None, received: dt.datetime) -> str | None:
    """A claimed time as recorded: None where it is missing or within a minute of the receipt."""
    if not claimed:
        return None
    try:
        try:
            when = dt.datetime.fromisoformat(claimed.strip().replace(" ", "T", 1))
        except ValueError:  # nbgrader's own timestamp.txt, "2027-03-01 12:00:00.123456 UTC", read as nbgrader reads it
            when = parse_utc(claimed.strip())
        when = when if when.tzinfo else when.replace(tzinfo=dt.timezone.utc)
        if abs(when - received) <= dt.timedelta(minutes=1):
            return None
    except (ValueError, OverflowError, TypeError):
        pass
    return claimed[:128]


class Ledger:
    """The course's ledger tables in the gradebook database at `db_url` (nbgrader's own tables are
    made first, by opening the gradebook)."""

    def __init__(self, db_url: str, course_id: str = "default_course"):
        with CourseGradebook(db_url, course_id) as gradebook:
            self.engine = gradebook.engine
        METADATA.create_all(self.engine)

    # receipts

    def receipts(self, assignment: str | None = None, student: str | None = None) -> list[Receipt]:
        """Receipts in the order they were written, of one assignment and/or student."""
        query = select(RECEIPTS).order_by(RECEIPTS.c.id)
        if assignment is not None:
            query = query.where(RECEIPTS.c.assignment == assignment)
        if student is not None:
            query = query.where(RECEIPTS.c.student == student)
        with self.engine.connect() as connection:
            return [Receipt.of(row) for row in connection.execute(query)]

    def receive(
        self,
        assignment: str,
        student: str,
        folder: Path,
        *,
        source: str,
        received: dt.datetime | None = None,
        claimed: str | None = None,
        timed: bool = True,
        late_flag: bool = False,
        origin: str = "",
    ) -> Receipt:
        """Record the hand-in now in `folder` (its bytes: `handed_in`), unless the latest receipt of
        the student's assignment holds the very same bytes; the receipt of those bytes either way.
        Without `received`, the time is `folder`'s own (`changed_at`), taken after its bytes were read."""
        if source not in SOURCES:
            raise ValueError(f"unknown source {source!r}")
        files = handed_in(folder)
        whole = digest(files)
        received = received or changed_at(folder)
        with self.engine.begin() as connection:
            rows = connection.execute(
                select(RECEIPTS)
                .where(and_(RECEIPTS.c.assignment == assignment, RECEIPTS.c.student == student))
                .order_by(RECEIPTS.c.id)
            ).all()
            if rows and rows[-1].digest == whole:
                return Receipt.of(rows[-1])
            earlier = next((row.attempt for row in rows if row.digest == whole), None)
            attempt = earlier or 1 + max((row.attempt for row in rows), default=0)
            values = dict(
                assignment=assignment,
                student=student,
                received=iso(received),
                attempt=attempt,
                digest=whole,
                files=json.dumps(files, sort_keys=True),
                source=source,
                claimed=_differs(claimed, received),
                timed=timed,
                late_flag=late_flag,
                origin=origin[:1000],
            )
            key = connection.execute(insert(RECEIPTS).values(**values)).inserted_primary_key[0]
        return Receipt(
            key,
            assignment,
            student,
            received,
            attempt,
            whole,
            files,
            source,
            values["claimed"],
            timed,
            late_flag,
            values["origin"],
        )

    def current(self, assignment: str, student: str, folder: Path) -> Receipt | None:
        """The receipt of the bytes now in `folder`, the latest with them; None when none holds them."""
        whole = digest(handed_in(folder))
        found = [r for r in self.receipts(assignment, student) if r.digest == whole]
        return found[-1] if found else None

    def first_received(self, receipt: Receipt) -> dt.datetime:
        """When the bytes of `receipt` first arrived (the attempt's receipt time)."""
        return min(r.received for r in self.receipts(receipt.assignment, receipt.student) if r.digest == receipt.digest)

    # extensions

    def extend(self, assignment: str, student: str, until: dt.datetime | None, reason: str) -> Extension:
        """Record an extension to `until` (None revokes the one in force)."""
        granted = now()
        with self.engine.begin() as connection:
            connection.execute(
                insert(EXTENSIONS).values(
                    assignment=assignment,
                    student=student,
                    reason=reason,
                    until=iso(until) if until else None,
                    granted=iso(granted),
                )
            )
        return Extension(assignment, student, until, reason, granted)

    def extensions(self) -> dict[tuple[str, str], Extension]:
        """(assignment, student) -> the extension in force (revoked ones left out)."""
        with self.engine.connect() as connection:
            rows = connection.execute(select(EXTENSIONS).order_by(EXTENSIONS.c.id)).all()
        latest = {(row.assignment, row.student): row for row in rows}
        return {
            key: Extension(row.assignment, row.student, parse(row.until), row.reason, parse(row.granted))
            for key, row in latest.items()
            if row.until
        }

    def grant(
        self,
        assignment: str,
        student: str,
        reason: str,
        attempts: int | None = None,
        late_days: int | None = None,
        closes: dt.datetime | None = None,
    ) -> None:
        """Record a grant to `student` on `assignment` (a value left None stays as it was)."""
        with self.engine.begin() as connection:
            connection.execute(
                insert(GRANTS).values(
                    assignment=assignment,
                    student=student,
                    attempts=attempts,
                    late_days=late_days,
                    closes=iso(closes) if closes else None,
                    reason=reason,
                    granted=iso(now()),
                )
            )

    def grants(self) -> dict[tuple[str, str], Grant]:
        """(assignment, student) -> what is granted in force: of each value, the latest grant's."""
        with self.engine.connect() as connection:
            rows = connection.execute(select(GRANTS).order_by(GRANTS.c.id)).all()
        found: dict[tuple[str, str], dict] = {}
        for row in rows:
            values = found.setdefault((row.assignment, row.student), {})
            for column in ("attempts", "late_days"):
                if getattr(row, column) is not None:
                    values[column] = getattr(row, column)
            if row.closes is not None:
                values["closes"] = parse(row.closes)
        return {key: Grant(**values) for key, values in found.items()}

    # attempts' scores

    def record_score(
        self, assignment: str, student: str, attempt: int, raw: float, maximum: float, penalty: float
    ) -> None:
        with self.engine.begin() as connection:
            connection.execute(
                ATTEMPT_SCORES.delete().where(
                    and_(
                        ATTEMPT_SCORES.c.assignment == assignment,
                        ATTEMPT_SCORES.c.student == student,
                        ATTEMPT_SCORES.c.attempt == attempt,
                    )
                )
            )
            connection.execute(
                insert(ATTEMPT_SCORES).values(
                    assignment=assignment, student=student, attempt=attempt, raw=raw, max=maximum, penalty=penalty
                )
            )

    def scores(self, assignment: str, student: str) -> dict[int, tuple[float, float, float]]:
        """attempt -> (raw, max, penalty) as last graded."""
        with self.engine.connect() as connection:
            rows = connection.execute(
                select(ATTEMPT_SCORES).where(
                    and_(ATTEMPT_SCORES.c.assignment == assignment, ATTEMPT_SCORES.c.student == student)
                )
            )
            return {row.attempt: (row.raw, row.max, row.penalty) for row in rows}

    # the answers a TA grades

    def record_answers(self, assignment: str, student: str, attempt: int, digests: dict[str, str]) -> None:
        """What `attempt` answered in each cell a TA grades (cell -> sha256 of its source)."""
        with self.engine.begin() as connection:
            for cell, value in digests.items():
                key = and_(
                    ANSWERS.c.assignment == assignment,
                    ANSWERS.c.student == student,
                    ANSWERS.c.attempt == attempt,
                    ANSWERS.c.cell == cell,
                )
                connection.execute(ANSWERS.delete().where(key))
                connection.execute(
                    insert(ANSWERS).values(
                        assignment=assignment, student=student, attempt=attempt, cell=cell, digest=value
                    )
                )

    def answers(self, assignment: str, student: str) -> dict[int, dict[str, str]]:
        """attempt -> {cell: digest} of what each attempt answered in the cells a TA grades."""
        found: dict[int, dict[str, str]] = {}
        with self.engine.connect() as connection:
            rows = connection.execute(
                select(ANSWERS).where(and_(ANSWERS.c.assignment == assignment, ANSWERS.c.student == student))
            )
            for row in rows:
                found.setdefault(row.attempt, {})[row.cell] = row.digest
        return found

    # students grading created

    def created_by_grading(self, student: str) -> None:
        with self.engine.begin() as connection:
            if not connection.execute(select(GRADING_CREATED).where(GRADING_CREATED.c.student == student)).first():
                connection.execute(insert(GRADING_CREATED).values(student=student))

    def grading_created(self) -> set[str]:
        with self.engine.connect() as connection:
            return {row.student for row in connection.execute(select(GRADING_CREATED))}
