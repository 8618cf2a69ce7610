"""The standing: what became of each student's hand-in of each assignment, and the grade that
counts by the term's rules (`Submission`). `standing` is the one place it is decided; the class data
(`autograder.reporting.classdata.load`), and through it the grade sheets, the report and the LMS
push, read it from there.

It is decided in three steps, from the grader's records alone (never a time or an attempt marker a
student wrote): the `Receipts` of the ledger (`autograder.coursedir.ledger`: each hand-in's attempt,
digest and receipt time, the scores recorded for earlier attempts, the extensions) and the records of
failed autogrades; the attempt that counts (`counted`: "last" or "best", `autograder.term.penalties`)
and its state; and its lateness (`late`: calendar days after the due date or the extension, and the
late days the student's budget covered).
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass

from ..coursedir.graded import stopped
from ..coursedir.layout import Course, FailedAttempt
from ..coursedir.ledger import Ledger, Receipt
from ..coursedir.settings import Settings
from . import penalties, policy

#: Scores within this of full marks (or of zero) count as full marks (or zero).
EPS = 1e-9

#: What became of a student's assignment (`ClassData.state`); the values the grade sheets write.
NOT_SUBMITTED, RECEIVED, GRADED, REFUSED = "not_submitted", "received", "graded", "refused"
STATES = (NOT_SUBMITTED, RECEIVED, GRADED, REFUSED)

#: The gradebook's submission of one (assignment, student): raw score, late penalty, timestamp (text,
#: "" when none) and whether any of its grades is given (by the autograder or a TA).
Found = tuple[float, float, str, bool]


@dataclass(frozen=True)
class Submission:
    """What became of one student's hand-in of one assignment: the gradebook's submission
    (nbgrader's SubmittedAssignment), or a hand-in received and not graded yet.

    `raw_score` and `penalty` are those of the attempt whose grade counts (`attempt`): with the term's
    "counts": "last" the gradebook's (the attempt graded last, a TA's scores included), with "best"
    the attempt of the best final grade among those graded (the ledger's record of earlier attempts,
    the gradebook's live values for the one it holds)."""

    student: str
    assignment: str
    raw_score: float
    penalty: float
    max_score: float
    timestamp: str = ""
    #: why the last autograde of it failed (the grades are then an earlier attempt's, or none), else ""
    failed: str = ""
    #: GRADED; REFUSED (admission refused the last hand-in: `failed` says why); RECEIVED (handed in,
    #: nothing graded yet)
    state: str = GRADED
    #: the attempt whose grade counts (the ledger's numbering; the latest received where none is
    #: graded), None without a receipt in the ledger
    attempt: int | None = None
    #: attempts received (distinct hand-ins)
    attempts: int = 0
    #: calendar days late of the attempt that counts (`autograder.term.policy`), and of them the
    #: days the student's late-day budget covered
    days_late: int = 0
    late_days_used: int = 0
    #: which attempt's grade counts (the term's "counts")
    counts: str = "last"
    #: a newer attempt received and not graded yet (no failure recorded), else None
    pending: int | None = None
    #: whether any of it is graded (by the autograder or a TA): a grade to count
    graded: bool = True

    @property
    def score(self) -> float:
        """The final grade: the raw score after the late penalty, as nbgrader's export computes it."""
        return max(0.0, self.raw_score - self.penalty)

    @property
    def late(self) -> bool:
        """Graded, and handed in after its due date (or with a late penalty)."""
        return self.graded and (self.days_late > 0 or self.penalty > EPS)


@dataclass(frozen=True)
class Allowance:
    """What one student was granted on one assignment beyond the term's rules, as in force (`extend`):
    a due date moved to `until` (aware UTC), extra attempts that count, extra late days, and a later
    close date `closes` (aware UTC)."""

    until: dt.datetime | None = None
    attempts: int = 0
    late_days: int = 0
    closes: dt.datetime | None = None


def allowances(ledger: Ledger, assignments: list[str], wanted: set[str] | None) -> dict[tuple[str, str], Allowance]:
    """(assignment, student) -> what is granted in force to the `wanted` students on `assignments`
    (an extension revoked, and a grant of nothing, are none)."""
    extensions, grants = ledger.extensions(), ledger.grants()
    found = {}
    for key in sorted(set(extensions) | set(grants)):
        if key[0] not in assignments or (wanted is not None and key[1] not in wanted):
            continue
        grant, extension = grants.get(key), extensions.get(key)
        allowance = Allowance(
            extension.until if extension else None,
            grant.attempts if grant else 0,
            grant.late_days if grant else 0,
            grant.closes if grant else None,
        )
        if allowance != Allowance():
            found[key] = allowance
    return found


def failures(course: Course, assignment: str, wanted: set[str] | None) -> dict[str, FailedAttempt]:
    """student -> the record of the failed last autograde of `assignment` (`layout.FailedAttempt`)."""
    base = course.root / "autograded"
    found = {}
    for path in sorted(base.glob(f"*/.{assignment}.failed.json")) if base.is_dir() else ():
        student = path.parent.name
        failure = (
            FailedAttempt.read(course.failed_attempt(student, assignment))
            if wanted is None or student in wanted
            else None
        )
        if failure is not None:
            found[student] = failure
    return found


@dataclass
class Receipts:
    """What the grader recorded of the `wanted` students' hand-ins of some assignments: the ledger's
    receipts by (assignment, student), in order, its extensions, and the records of failed autogrades."""

    ledger: Ledger
    by_key: dict[tuple[str, str], list[Receipt]]
    extensions: dict
    failures: dict[tuple[str, str], FailedAttempt]

    @classmethod
    def read(cls, course: Course, ledger: Ledger, assignments: list[str], wanted: set[str] | None) -> Receipts:
        by_key = defaultdict(list)
        for receipt in ledger.receipts():
            if receipt.assignment in assignments and (wanted is None or receipt.student in wanted):
                by_key[(receipt.assignment, receipt.student)].append(receipt)
        found = {(a, s): failure for a in assignments for s, failure in failures(course, a, wanted).items()}
        return cls(ledger, dict(by_key), ledger.extensions(), found)


def standing(
    course: Course,
    settings: Settings,
    db_url: str,
    max_scores: dict[str, float],
    found: dict[tuple[str, str], Found],
    wanted: set[str] | None,
) -> dict[tuple[str, str], Submission]:
    """(assignment, student) -> what became of every hand-in of the `wanted` students of the
    assignments of `max_scores`: the gradebook's submissions (`found`), the ledger's receipts and
    recorded scores, the folders in submitted/ and the records of failed autogrades (a grading
    stopped before it finished, `graded.stopped`, is not graded: RECEIVED until the next run); the
    grade that counts by the term's rules, and its lateness."""
    assignments = list(max_scores)
    receipts = Receipts.read(course, Ledger(db_url, settings.COURSE_ID), assignments, wanted)
    folders = {(a, s) for a in assignments for s in course.students(a) if wanted is None or s in wanted}
    rules = {a: policy.rules(settings, a) for a in assignments}
    budget = _Budget(settings, receipts.ledger)
    keys = sorted(set(found) | set(receipts.by_key) | folders | set(receipts.failures))
    return {key: _one(course, key, rules[key[0]], max_scores[key[0]], found.get(key), receipts, budget) for key in keys}


class _Budget:
    """Each student's graded receipts and lateness across the term (late days are drawn in release
    order, so one assignment's days depend on the others'), read once per student."""

    def __init__(self, settings: Settings, ledger: Ledger):
        self.settings, self.ledger, self.seen = settings, ledger, {}

    def of(self, student: str) -> tuple[dict[str, Receipt], dict[str, policy.Lateness]]:
        if student not in self.seen:
            self.seen[student] = (
                penalties.graded_receipts(self.ledger, student),
                penalties.lateness(self.settings, self.ledger, student),
            )
        return self.seen[student]


def _one(
    course: Course,
    key: tuple[str, str],
    rules: policy.Rules,
    max_score: float,
    found: Found | None,
    receipts: Receipts,
    budget: _Budget,
) -> Submission:
    """The standing of one (assignment, student)."""
    assignment, student = key
    mine = receipts.by_key.get(key, [])
    scores = receipts.ledger.scores(assignment, student) if mine else {}
    latest = mine[-1] if mine else None
    current = next((r.attempt for r in reversed(mine) if r.attempt in scores), None)  # the attempt the gradebook holds
    raw, penalty, timestamp, marked = found or (0.0, 0.0, "", False)
    graded = found is not None and (marked or current is not None) and not stopped(course, assignment, student)
    failure = receipts.failures.get(key)
    state = REFUSED if failure is not None and failure.refused else GRADED if graded else RECEIVED
    if graded:
        attempt, raw, penalty = penalties.counted(rules, scores, current, (raw, penalty))
    else:
        raw = penalty = 0.0
        attempt = latest.attempt if latest else None
    days = used = 0
    if attempt is not None:
        receipt = [r for r in mine if r.attempt == attempt][-1]
        if graded:
            days, used = late(rules, mine, receipt, receipts.extensions.get(key), budget.of(student), assignment)
        if attempt != current or not timestamp:
            first = min(r.received for r in mine if r.digest == receipt.digest)
            timestamp = str(penalties.naive_utc(first))
    pending = (
        latest.attempt if graded and latest is not None and latest.attempt not in scores and failure is None else None
    )
    attempts = max((r.attempt for r in mine), default=0)
    return Submission(
        student,
        assignment,
        raw,
        penalty,
        max_score,
        timestamp,
        failure.reason if failure else "",
        state,
        attempt,
        attempts,
        days,
        used,
        rules.counts,
        pending,
        graded,
    )


def late(
    rules: policy.Rules,
    mine: list[Receipt],
    receipt: Receipt,
    extension,
    budget: tuple[dict[str, Receipt], dict[str, policy.Lateness]],
    assignment: str,
) -> tuple[int, int]:
    """(calendar days late, late days the budget covered) of the graded attempt `receipt` among the
    student's receipts `mine`: after the due date or the `extension`; where the attempt is the one the
    term's late-day budget was drawn on for, the budget's own count."""
    until = extension.until if extension else None
    days = rules.days_late(penalties.handed_in_at(mine, receipt, rules, until), until)
    chosen, lateness = budget
    if assignment in lateness and chosen[assignment].attempt == receipt.attempt:
        return lateness[assignment].days, lateness[assignment].budget_days
    return days, 0
