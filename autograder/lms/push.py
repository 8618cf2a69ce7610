"""The class's final grades to the LMS as LTI 1.3 Assignment and Grade Services scores.

A push asks the platform for an access token with the line-item and score scopes only (an RS256
client assertion signed with the tool's key, pylti1p3's `ServiceConnector`; the token is asked again
once when the platform says it expired), finds each assignment's line item by its `resourceId` (the
assignment's name) across every page of the container and creates it only when there is none, then
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
from pylti1p3.service_connector import ServiceConnector
from sqlalchemy import Column, Float, MetaData, String, Table, and_, delete, insert, select

from ..coursedir import config
from ..coursedir.ledger import Ledger, iso, now
from ..intake.escape import shown
from ..reporting import classdata
from ..reporting.classdata import ClassData, points
from . import registration, roster

#: The only scopes a push asks for.
SCOPES = [
    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
    "https://purl.imsglobal.org/spec/lti-ags/scope/score",
]
#: Seconds the platform may take to answer one request.
TIMEOUT = 30
#: Seconds before its end that a token is no longer used.
TOKEN_MARGIN = 10

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
    stopped: str = ""

    @property
    def exit_code(self) -> int:
        """0: every mapped student's score accepted (or unchanged); 1: some refused; 2: stopped."""
        return 2 if self.stopped else 1 if self.refused else 0


class PushStopped(RuntimeError):
    """The push cannot go on (one line): the platform cannot be reached, refused the token or failed."""


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


class _Session(requests.Session):
    """requests' session with a timeout on every request: a platform that does not answer stops the push."""

    def request(self, *args, **kwargs):
        kwargs.setdefault("timeout", TIMEOUT)
        return super().request(*args, **kwargs)


class _Connector(ServiceConnector):
    """pylti1p3's connector with its token kept for the life of the push (until `TOKEN_MARGIN`
    seconds before it ends), and asked for again once when the platform answers 401."""

    def __init__(self, reg):
        super().__init__(reg, _Session())
        self._tokens: dict[str, tuple[str, float]] = {}

    def _get_cached_access_token(self, scope_key: str) -> str | None:
        token, until = self._tokens.get(scope_key, ("", 0.0))
        return token if token and now().timestamp() < until else None

    def _cache_access_token(self, scope_key: str, access_token: str, expires_in: float) -> None:
        self._tokens[scope_key] = (access_token, now().timestamp() + float(expires_in or 0) - TOKEN_MARGIN)

    def make_service_request(self, scopes, url, **kwargs):
        try:
            return super().make_service_request(scopes, url, **kwargs)
        except LtiServiceException as error:
            if error.response.status_code != 401:
                raise
            self._tokens.pop(self._scope_key(sorted(scopes)), None)
            return super().make_service_request(scopes, url, **kwargs)


def platform_message(response: requests.Response) -> str:
    """What the platform said of a refused request, as one shown line: its JSON error message where
    it gives one (Canvas's {"errors": {"message"}} or [{"message"}], {"error", "error_description"},
    {"message"}), else the start of its text."""
    try:
        body = response.json()
    except ValueError:
        body = None
    message = None
    if isinstance(body, dict):
        errors = body.get("errors")
        if isinstance(errors, dict):
            message = errors.get("message")
        elif isinstance(errors, list) and errors and isinstance(errors[0], dict):
            message = errors[0].get("message")
        message = message or body.get("error_description") or body.get("message") or body.get("error")
    text = str(message) if message else response.text
    return shown(f"HTTP {response.status_code}: {' '.join(text.split())[:300]}")


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
    service = AssignmentsGradesService(_Connector(reg), {"scope": SCOPES, "lineitems": settings.LTI_LINEITEMS_URL})
    try:
        items = _line_items(service, sorted({s.assignment for s in changed}), data, outcome)
        for score in changed:
            _post(service, engine, score, items[score.assignment], outcome)
    except PushStopped as stop:
        outcome.stopped = str(stop)
    return outcome


def _line_items(
    service: AssignmentsGradesService, assignments: list[str], data: ClassData, outcome: Outcome
) -> dict[str, LineItem]:
    """assignment -> its line item, found by resourceId on every page of the container, created where missing."""
    try:
        existing = {item.get("resourceId"): LineItem(item) for item in service.get_lineitems()}
        items = {}
        for assignment in assignments:
            if assignment not in existing:
                existing[assignment] = service.create_lineitem(
                    LineItem()
                    .set_label(assignment)
                    .set_resource_id(assignment)
                    .set_score_maximum(round(data.max_scores[assignment], 2))
                )
                outcome.created.append(assignment)
            items[assignment] = existing[assignment]
        return items
    except (LtiException, requests.RequestException) as error:
        raise _stopped(error, "the line items") from None


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
        status, token = error.response.status_code, _token_request(error.response)
        if 400 <= status < 500 and status != 401 and not token:
            outcome.refused.append((score, platform_message(error.response)))
            return
        raise _stopped(error, f"{score.assignment}/{score.student}") from None
    except (LtiException, requests.RequestException) as error:
        raise _stopped(error, f"{score.assignment}/{score.student}") from None
    _record(engine, score, item.get_id() or "")
    outcome.sent.append(score)


def _token_request(response: requests.Response) -> bool:
    """Whether `response` answered the request for an access token (a POST of grant_type)."""
    body = response.request.body if response.request is not None else None
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else str(body or "")
    return "grant_type=client_credentials" in text


def _stopped(error: Exception, what: str) -> PushStopped:
    """Why the push stops, in one line: the token refused, the platform's answer, or no answer."""
    if isinstance(error, LtiServiceException):
        if _token_request(error.response):
            return PushStopped(f"the LMS refused the tool's access token request: {platform_message(error.response)}")
        return PushStopped(f"{what}: {platform_message(error.response)}")
    if isinstance(error, requests.RequestException):
        return PushStopped(f"the LMS cannot be reached ({shown(type(error).__name__)})")
    return PushStopped(f"{what}: {shown(str(error))[:300]}")
