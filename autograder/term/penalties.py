"""Late penalties written into the gradebook from the ledger's receipt times, the student's
extensions and the term's rules (`autograder.term.policy`), never from a time the student wrote.

nbgrader keeps a late penalty per submitted notebook (`late_submission_penalty`, points taken off its
score); `write` sets it for a student's graded submissions, so formgrader, nbgrader's own exports and
the course's show the same penalty. The submission's `timestamp` is the ledger's receipt time of
its attempt, and its `extension` the one the course granted, so nbgrader's "seconds late" agree.
"""

from __future__ import annotations

import datetime as dt

from nbgrader.api import MissingEntry

from ..coursedir.ledger import Grant, Ledger, Receipt
from ..coursedir.settings import Settings
from .policy import Lateness, Rules, assess, rules


def naive_utc(when: dt.datetime | None) -> dt.datetime | None:
    """An aware time as nbgrader stores times (naive UTC)."""
    return when.astimezone(dt.timezone.utc).replace(tzinfo=None) if when is not None else None


def graded_receipts(ledger: Ledger, student: str) -> dict[str, Receipt]:
    """assignment -> the student's receipt that is graded now: the latest receipt of an attempt that
    was graded, else the latest receipt."""
    found: dict[str, Receipt] = {}
    for receipt in ledger.receipts(student=student):
        found.setdefault(receipt.assignment, [])
        found[receipt.assignment].append(receipt)
    chosen = {}
    for assignment, receipts in found.items():
        scored = ledger.scores(assignment, student)
        graded = [r for r in receipts if r.attempt in scored]
        chosen[assignment] = (graded or receipts)[-1]
    return chosen


def lateness(settings: Settings, ledger: Ledger, student: str) -> dict[str, Lateness]:
    """assignment -> the lateness of the student's graded receipt, in release order, each drawing on
    what is left of the student's LATE_DAYS."""
    receipts, extensions, grants = graded_receipts(ledger, student), ledger.extensions(), ledger.grants()
    left, found = settings.LATE_DAYS, {}
    for assignment in settings.ASSIGNMENTS:
        receipt = receipts.get(assignment)
        if receipt is None:
            continue
        extension = extensions.get((assignment, student))
        granted = grants.get((assignment, student), Grant())
        term = rules(settings, assignment)
        until = extension.until if extension else None
        when = handed_in_at(ledger.receipts(assignment, student), receipt, term, until)
        found[assignment] = late = assess(term, when, until, left, granted.late_days)
        left -= late.budget_days
    return found


def closes(rules_: Rules, ledger: Ledger, assignment: str, student: str) -> dt.datetime | None:
    """The student's close date of `assignment`: the term's, moved by their extension or a granted
    close date past it (`Rules.closes_for`); None where the term gives none."""
    extension = ledger.extensions().get((assignment, student))
    granted = ledger.grants().get((assignment, student), Grant())
    return rules_.closes_for(extension.until if extension else None, granted.closes)


def handed_in_at(
    receipts: list[Receipt], receipt: Receipt, rules_: Rules, extension: dt.datetime | None
) -> dt.datetime:
    """When the attempt of `receipt` was handed in, as far as lateness goes: the first of `receipts`
    (the student's of that assignment) with its bytes, or for a collection without times
    (`Receipt.timed`) the LMS's word: on time, or one day late where it flagged the file late."""
    due = rules_.due_for(extension)
    if receipt.timed or due is None:
        return min(r.received for r in receipts if r.digest == receipt.digest)
    return due.astimezone(dt.timezone.utc) + rules_.grace + dt.timedelta(microseconds=1) if receipt.late_flag else due


def write(gradebook, ledger: Ledger, settings: Settings, student: str) -> dict[str, tuple[float, float]]:
    """Set the late penalty, due date, timestamp and extension of every graded submission of
    `student` in `gradebook` (an open nbgrader Gradebook; the caller commits); assignment ->
    (penalty before, after) of those whose penalty moved."""
    moved = {}
    receipts = graded_receipts(ledger, student)
    for assignment, late in lateness(settings, ledger, student).items():
        try:
            submission = gradebook.find_submission(assignment, student)
        except MissingEntry:
            continue
        due = rules(settings, assignment).due
        if due is not None:
            submission.assignment.duedate = naive_utc(due)
        submission.timestamp = naive_utc(ledger.first_received(receipts[assignment]))
        base = submission.assignment.duedate
        submission.extension = (
            naive_utc(late.due) - base if late.due is not None and base is not None and late.due != due else None
        )
        for notebook in submission.notebooks:
            before = notebook.late_submission_penalty or 0.0
            after = round(late.penalty(notebook.score), 6) if late.share else 0.0
            notebook.late_submission_penalty = after or None
            if abs(after - before) > 1e-9:
                moved[assignment] = (before, after)
    return moved


def counted(
    rules_: Rules, scores: dict[int, tuple[float, float, float]], current: int | None, live: tuple[float, float]
) -> tuple[int | None, float, float]:
    """(attempt, raw score, penalty) of the attempt whose grade counts: with "counts": "last" the one
    the gradebook holds (`current`, its `live` raw score and penalty, a TA's scores included), with
    "best" the best final grade among the ledger's graded attempts (`scores`: attempt -> (raw, max,
    penalty)), the live values standing for the current one's."""
    candidates = {n: (raw, penalty) for n, (raw, _, penalty) in scores.items()}
    if current is not None:
        candidates[current] = live
    if rules_.counts != "best" or not candidates:
        return (current, *live)
    best = max(candidates, key=lambda n: (max(0.0, candidates[n][0] - candidates[n][1]), n == current, n))
    return (best, *candidates[best])
