"""The class's final grades to the LMS as LTI 1.3 Assignment and Grade Services scores.

A push asks the platform for an access token with the line-item and score scopes only (an RS256
client assertion signed with the tool's key, pylti1p3's `ServiceConnector`; the token is asked again
once when the platform says it expired), finds each assignment's line item by its `resourceId` (the
assignment's name) across every page of the container, creates it only when there is none and sets
its `scoreMaximum` again (a PUT of the line item) where the assignment's points changed since, then
posts one score per student whose grade changed since the last push: `scoreGiven` (the course's final
grade: late policy, extension and TA scores included) never above `scoreMaximum`, both rounded to
two decimals as in the Canvas export, `activityProgress` Completed and `gradingProgress`
PendingManual while points await a TA, FullyGraded after.

What the platform accepted is recorded (`SENT`, in the course's database) score by score, so a
refused score (a 4xx, reported with the platform's own message) and any score after a failure are
sent again next time, and nothing is recorded that was not accepted. A network failure, a refused
token or a 5xx stops the push with one line.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path

import requests
from nbgrader.api import Student
from pylti1p3.assignments_grades import AssignmentsGradesService
from pylti1p3.exception import LtiException, LtiServiceException
from pylti1p3.grade import Grade
from pylti1p3.lineitem import LineItem
from sqlalchemy import Column, Float, MetaData, String, Table, and_, delete, insert, select

from ..coursedir import config
from ..coursedir.ledger import Ledger, iso, now
from ..reporting import classdata
from ..reporting.classdata import ClassData, points
from . import registration, roster
from .connection import Connector, Stopped, platform_message, stopped, token_request

#: The only scopes a push asks for.
LINEITEM_SCOPE = ["https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"]
SCOPES = [*LINEITEM_SCOPE, "https://purl.imsglobal.org/spec/lti-ags/scope/score"]
#: The media type of one line item.
LINEITEM_TYPE = "application/vnd.ims.lis.v2.lineitem+json"

METADATA = MetaData()
#: The last score the platform accepted, per assignment and student.
SENT = Table(
    "course_lti_scores",
    METADATA,
    Column("assignment", String(128), primary_key=True),
    Column("student", String(128), primary_key=True),
    Column("user_id", String(255), nullable=False),
    Column("lineitem", String(1000), nullable=False),
    Column("given", Float, nullable=False),
    Column("maximum", Float, nullable=False),
    Column("progress", String(32), nullable=False),
    Column("sent", String(40), nullable=False),  # ISO 8601, UTC
)


@dataclass(frozen=True)
class Score:
    """One student's grade of one assignment as the LMS gets it."""

    assignment: str
    student: str
    user_id: str
    given: float
    maximum: float
    progress: str  # gradingProgress: FullyGraded or PendingManual

    def same_as(self, row) -> bool:
        return row is not None and (row.user_id, row.given, row.maximum, row.progress) == (
            self.user_id,
            self.given,
            self.maximum,
            self.progress,
        )


@dataclass
class Outcome:
    """What a push did: the scores sent and accepted, left as they were, refused (with the platform's
    message), the students without an LMS user id, the line items created, and why it stopped."""

    sent: list[Score] = field(default_factory=list)
    unchanged: list[Score] = field(default_factory=list)
    refused: list[tuple[Score, str]] = field(default_factory=list)
    unmapped: list[str] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    #: (assignment, the line item's scoreMaximum before, after) where the points changed since it was made
    updated: list[tuple[str, object, float]] = field(default_factory=list)
    stopped: str = ""

    @property
    def exit_code(self) -> int:
        """0: every mapped student's score accepted (or unchanged); 1: some refused; 2: stopped."""
        return 2 if self.stopped else 1 if self.refused else 0


def scores(data: ClassData, users: dict[str, str], assignments: list[str]) -> list[Score]:
    """The scores of every graded submission of `assignments` whose student has an LMS user id in `users`."""
    waiting = points(data.rows)
    found = []
    for assignment in (a for a in assignments if a in data.max_scores):  # one the gradebook knows
        maximum = round(data.max_scores[assignment], 2)
        for (name, student), sub in sorted(data.submissions.items()):
            if name == assignment and sub.graded and student in users:
                pending = waiting.get((assignment, student))
                found.append(
                    Score(
                        assignment,
                        student,
                        users[student],
                        min(round(sub.score, 2), maximum),
                        maximum,
                        "PendingManual" if pending and pending.awaiting > 0 else "FullyGraded",
                    )
                )
    return found


def _sent_rows(engine) -> dict[tuple[str, str], object]:
    with engine.connect() as connection:
        return {(row.assignment, row.student): row for row in connection.execute(select(SENT))}


def _record(engine, score: Score, lineitem: str) -> None:
    with engine.begin() as connection:
        connection.execute(
            delete(SENT).where(and_(SENT.c.assignment == score.assignment, SENT.c.student == score.student))
        )
        connection.execute(
            insert(SENT).values(
                assignment=score.assignment,
                student=score.student,
                user_id=score.user_id,
                lineitem=lineitem,
                given=score.given,
                maximum=score.maximum,
                progress=score.progress,
                sent=iso(now()),
            )
        )


def push(root: Path, assignments: list[str] | None = None, dry_run: bool = False) -> Outcome:
    """Send the changed scores of `assignments` (default: all) to the LMS; with `dry_run` decide what
    would be sent and send nothing. Raises RegistrationError or RosterError before anything is sent."""
    root = Path(root)
    settings = config.load(root)
    names = assignments or list(settings.ASSIGNMENTS)
    reg = registration.registration(root, settings)
    ids = roster.user_ids(root, settings)
    engine = Ledger(config.database_url(root, settings), settings.COURSE_ID).engine
    with engine.connect() as connection:
        users, unmapped = roster.mapped(sorted(connection.execute(select(Student.id)).scalars()), ids)
    data = classdata.load(root, students=sorted(users)) if users else None  # the mapped students' grades alone
    found = scores(data, users, names) if data else []
    METADATA.create_all(engine)
    before = _sent_rows(engine)
    outcome = Outcome(unmapped=unmapped)
    changed = []
    for score in found:
        (outcome.unchanged if score.same_as(before.get((score.assignment, score.student))) else changed).append(score)
    if dry_run or not changed:
        outcome.sent = changed if dry_run else []
        return outcome
    connector = Connector(reg)
    service = AssignmentsGradesService(connector, {"scope": SCOPES, "lineitems": settings.LTI_LINEITEMS_URL})
    try:
        items = _line_items(service, connector, sorted({s.assignment for s in changed}), data, outcome)
        for score in changed:
            _post(service, engine, score, items[score.assignment], outcome)
    except Stopped as stop:
        outcome.stopped = str(stop)
    return outcome


def _line_items(
    service: AssignmentsGradesService, connector: Connector, assignments: list[str], data: ClassData, outcome: Outcome
) -> dict[str, LineItem]:
    """assignment -> its line item, found by resourceId on every page of the container, created where
    missing, its scoreMaximum set to the assignment's points where they changed since."""
    try:
        found = {item.get("resourceId"): item for item in service.get_lineitems()}
        items = {}
        for assignment in assignments:
            maximum = round(data.max_scores[assignment], 2)
            if assignment not in found:
                items[assignment] = service.create_lineitem(
                    LineItem().set_label(assignment).set_resource_id(assignment).set_score_maximum(maximum)
                )
                outcome.created.append(assignment)
                continue
            item = found[assignment]
            if item.get("scoreMaximum") != maximum:
                was = item.get("scoreMaximum")
                item = connector.put(LINEITEM_SCOPE, item["id"], {**item, "scoreMaximum": maximum}, LINEITEM_TYPE)
                outcome.updated.append((assignment, was, maximum))
            items[assignment] = LineItem(item)
        return items
    except (LtiException, requests.RequestException) as error:
        raise stopped(error, "the line items") from None


def _post(service: AssignmentsGradesService, engine, score: Score, item: LineItem, outcome: Outcome) -> None:
    """Post one score; record it once the platform accepted it, report it where a 4xx refused it."""
    grade = (
        Grade()
        .set_user_id(score.user_id)
        .set_score_given(score.given)
        .set_score_maximum(score.maximum)
        .set_activity_progress("Completed")
        .set_grading_progress(score.progress)
        .set_timestamp(dt.datetime.now(dt.timezone.utc).isoformat(timespec="milliseconds"))
    )
    try:
        service.put_grade(grade, item)
    except LtiServiceException as error:
        status, token = error.response.status_code, token_request(error.response)
        if 400 <= status < 500 and status != 401 and not token:
            outcome.refused.append((score, platform_message(error.response)))
            return
        raise stopped(error, f"{score.assignment}/{score.student}") from None
    except (LtiException, requests.RequestException) as error:
        raise stopped(error, f"{score.assignment}/{score.student}") from None
    _record(engine, score, item.get_id() or "")
    outcome.sent.append(score)
