"""What the feedback page says of the term (`TermNotes`, a preprocessor of `nbgrader generate_feedback`):
when the course received the hand-in and which attempt it is, the due date (the student's
extension in its place), the days late and what they cost, raw score, penalty and final grade (and
the points still waiting for a TA), and every time the grade moved, when and why (`autograder.term.history`).

The lines go to the page's template as `resources["term_notes"]`, which escapes them; none of them
repeats anything the student wrote (their own claimed time is kept in the ledger, not shown).
"""

from __future__ import annotations

from nbgrader.api import MissingEntry
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Instance

from ..coursedir.gradebook import CourseGradebook, awaiting_ta
from ..coursedir.ledger import Ledger
from ..coursedir.settings import Settings
from ..labels import label
from . import history, penalties, policy


def points(value: float) -> str:
    """Points as the feedback and the history show them: two decimals at most, no trailing zeros."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


class TermNotes(NbGraderPreprocessor):
    """Add the term's lines for this submission to the feedback's resources."""

    settings = Instance(
        Settings, kw={}, help="The course's settings (course_config.py): the term's rules, TIMEZONE."
    ).tag(config=True)

    def preprocess(self, nb, resources):
        resources["term_notes"] = notes(
            self.settings,
            resources["nbgrader"]["db_url"],
            resources["nbgrader"]["assignment"],
            resources["nbgrader"]["student"],
        )
        return nb, resources


def notes(settings: Settings, db_url: str, assignment: str, student: str) -> list[str]:
    """The term's lines of one student's feedback on `assignment`, in the course language."""
    ledger = Ledger(db_url, settings.COURSE_ID)
    zone = policy.zone(settings)
    shown = lambda when: policy.shown(when, zone)  # noqa: E731
    lines = []
    receipt = penalties.graded_receipts(ledger, student).get(assignment)
    if receipt is not None:
        lines.append(
            label("feedback.term_received", when=shown(ledger.first_received(receipt)), attempt=receipt.attempt)
        )
    late = penalties.lateness(settings, ledger, student).get(assignment)
    rules = policy.rules(settings, assignment)
    if late is not None and late.due is not None:
        lines.append(
            label("feedback.term_due", due=shown(late.due))
            if late.due == rules.due
            else label("feedback.term_extended", due=shown(rules.due) if rules.due else "-", until=shown(late.due))
        )
        if late.days:
            lines.append(
                label(
                    "feedback.term_late_budget" if late.budget_days + late.granted_days else "feedback.term_late",
                    days=late.days,
                    covered=late.budget_days + late.granted_days,
                    share=points(100 * late.share),
                )
            )
    with CourseGradebook(db_url, settings.COURSE_ID) as gradebook:
        try:
            submission = gradebook.find_submission(assignment, student)
            live, maximum = (submission.score, submission.late_submission_penalty or 0.0), submission.max_score
            waiting = sum(
                grade.max_score or 0.0
                for notebook in submission.notebooks
                for grade in notebook.grades
                if awaiting_ta(grade)
            )
        except MissingEntry:
            live = None
    if live is not None and receipt is not None:
        attempt, raw, penalty = penalties.counted(rules, ledger.scores(assignment, student), receipt.attempt, live)
        lines.append(
            label(
                "feedback.term_grade",
                raw=points(raw),
                points=points(maximum),
                penalty=points(penalty),
                final=points(max(0.0, raw - penalty)),
            )
        )
        if waiting:
            lines.append(label("feedback.term_awaiting_ta", points=points(waiting)))
        if attempt != receipt.attempt:
            lines.append(label("feedback.term_best", attempt=attempt))
    for entry in history.entries(ledger, assignment, student):
        for change in entry.changes:
            lines.append(
                label(
                    "feedback.term_moved",
                    when=shown(entry.at),
                    reason=entry.reason,
                    before=points(change.total_before),
                    after=points(change.total_after),
                )
            )
    return lines
