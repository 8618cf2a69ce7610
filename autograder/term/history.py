"""The grade history: grades that move say when, why and by which grader.

A `Snapshot` is the state of some submissions' grades in the gradebook: per grade cell its
autograded and manual score, extra credit and whether it waits for a TA, per comment the
autograder's and the TA's text, per notebook the late penalty and flag, per submission its time and
extension. Two snapshots make the `Change`s (per check, before and after) of one `Entry`, which is
appended to the ledger's history table (`autograder.coursedir.ledger.HISTORY`), never rewritten.
`restore` writes a snapshot back, which is how a regrade is reverted.

Each entry names the grader's version (`autograder.coursedir.graded.grader_version`).
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import asdict, dataclass, field

from nbgrader.api import MissingEntry
from sqlalchemy import insert, select

from ..coursedir.ledger import HISTORY, Ledger, iso, now, parse

Key = tuple[str, str]  # (assignment, student)


@dataclass
class Snapshot:
    """The grades of some submissions as the gradebook holds them: (assignment, student) -> state."""

    states: dict[Key, dict] = field(default_factory=dict)

    @classmethod
    def take(cls, gradebook, keys: list[Key]) -> "Snapshot":
        snapshot = cls()
        for assignment, student in keys:
            submission = _submission(gradebook, assignment, student)
            if submission is not None:
                snapshot.states[(assignment, student)] = _state(submission)
        return snapshot

    def scores(self, key: Key) -> dict[str, float]:
        """grade id -> the score counted (manual over autograded, plus extra credit)."""
        state = self.states.get(key)
        if state is None:
            return {}
        return {
            name: _counted(grade)
            for notebook in state["notebooks"].values()
            for name, grade in notebook["grades"].items()
        }

    def penalty(self, key: Key) -> float:
        state = self.states.get(key)
        return sum(notebook["penalty"] or 0.0 for notebook in state["notebooks"].values()) if state else 0.0

    def to_json(self) -> str:
        return json.dumps([[list(key), state] for key, state in sorted(self.states.items())], sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> "Snapshot":
        return cls({tuple(key): state for key, state in json.loads(text)})


def _submission(gradebook, assignment: str, student: str):
    """The gradebook's submission of `assignment` by `student`, None where there is none."""
    try:
        return gradebook.find_submission(assignment, student)
    except MissingEntry:
        return None


def _counted(grade: dict) -> float:
    score = grade["manual_score"] if grade["manual_score"] is not None else grade["auto_score"]
    return round(float(score or 0.0) + float(grade["extra_credit"] or 0.0), 6)


def _state(submission) -> dict:
    return {
        "timestamp": submission.timestamp.isoformat() if submission.timestamp else None,
        "extension": submission.extension.total_seconds() if submission.extension else None,
        "notebooks": {
            notebook.name: {
                "penalty": notebook.late_submission_penalty,
                "flagged": bool(notebook.flagged),
                "grades": {
                    grade.name: {
                        "auto_score": grade.auto_score,
                        "manual_score": grade.manual_score,
                        "extra_credit": grade.extra_credit,
                        "needs_manual_grade": bool(grade.needs_manual_grade),
                    }
                    for grade in notebook.grades
                },
                "comments": {
                    comment.name: {"auto_comment": comment.auto_comment, "manual_comment": comment.manual_comment}
                    for comment in notebook.comments
                },
            }
            for notebook in submission.notebooks
        },
    }


def restore(gradebook, snapshot: Snapshot) -> None:
    """Write `snapshot` back into `gradebook` (an open nbgrader Gradebook; the caller commits)."""
    for (assignment, student), state in snapshot.states.items():
        submission = _submission(gradebook, assignment, student)
        if submission is None:
            continue
        submission.timestamp = dt.datetime.fromisoformat(state["timestamp"]) if state["timestamp"] else None
        submission.extension = dt.timedelta(seconds=state["extension"]) if state["extension"] is not None else None
        for notebook in submission.notebooks:
            kept = state["notebooks"].get(notebook.name)
            if kept is None:
                continue
            notebook.late_submission_penalty, notebook.flagged = kept["penalty"], kept["flagged"]
            for grade in notebook.grades:
                for column, value in kept["grades"].get(grade.name, {}).items():
                    setattr(grade, column, value)
            for comment in notebook.comments:
                for column, value in kept["comments"].get(comment.name, {}).items():
                    setattr(comment, column, value)


@dataclass(frozen=True)
class Change:
    """One submission's grades before and after: per check, and the late penalty."""

    assignment: str
    student: str
    before: dict[str, float]
    after: dict[str, float]
    penalty_before: float = 0.0
    penalty_after: float = 0.0

    @property
    def moved(self) -> dict[str, tuple[float | None, float | None]]:
        """check -> (before, after) of the checks whose score moved."""
        names = sorted(set(self.before) | set(self.after))
        return {
            name: (self.before.get(name), self.after.get(name))
            for name in names
            if abs((self.before.get(name) or 0.0) - (self.after.get(name) or 0.0)) > 1e-9
            or (name in self.before) != (name in self.after)
        }

    @property
    def total_before(self) -> float:
        return round(sum(self.before.values()) - self.penalty_before, 6)

    @property
    def total_after(self) -> float:
        return round(sum(self.after.values()) - self.penalty_after, 6)

    @property
    def any(self) -> bool:
        return bool(self.moved) or abs(self.penalty_before - self.penalty_after) > 1e-9


def changes(before: Snapshot, after: Snapshot) -> list[Change]:
    """The submissions whose grades moved from `before` to `after`."""
    found = [
        Change(a, s, before.scores((a, s)), after.scores((a, s)), before.penalty((a, s)), after.penalty((a, s)))
        for a, s in sorted(set(before.states) | set(after.states))
    ]
    return [change for change in found if change.any]


@dataclass(frozen=True)
class Entry:
    """One appended history entry: what moved, when, why, by which grader; `snapshot` is the state
    before (what `--revert` restores)."""

    id: int
    at: dt.datetime
    action: str
    reason: str
    grader: str
    changes: tuple[Change, ...]
    snapshot: Snapshot | None = None


def append(
    ledger: Ledger, action: str, reason: str, grader: str, moved: list[Change], before: Snapshot | None = None
) -> Entry:
    """Append one entry to the history; the entry."""
    at = now()
    payload = {"changes": [asdict(change) for change in moved], "before": before.to_json() if before else None}
    with ledger.engine.begin() as connection:
        key = connection.execute(
            insert(HISTORY).values(at=iso(at), action=action, reason=reason, grader=grader, changes=json.dumps(payload))
        ).inserted_primary_key[0]
    return Entry(key, at, action, reason, grader, tuple(moved), before)


def entries(ledger: Ledger, assignment: str | None = None, student: str | None = None) -> list[Entry]:
    """The history, oldest first; with `assignment`/`student`, the entries that moved their grades
    (only their changes kept)."""
    with ledger.engine.connect() as connection:
        rows = connection.execute(select(HISTORY).order_by(HISTORY.c.id)).all()
    found = []
    for row in rows:
        payload = json.loads(row.changes)
        moved = tuple(
            Change(**change)
            for change in payload["changes"]
            if (assignment is None or change["assignment"] == assignment)
            and (student is None or change["student"] == student)
        )
        if moved or (assignment is None and student is None):
            found.append(
                Entry(
                    row.id,
                    parse(row.at),
                    row.action,
                    row.reason,
                    row.grader,
                    moved,
                    Snapshot.from_json(payload["before"]) if payload.get("before") else None,
                )
            )
    return found
