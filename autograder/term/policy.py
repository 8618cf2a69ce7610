"""The term's rules as data: each assignment's due date, grace, late policy, attempts, feedback, close
date and cap on late days, from `course_config.TERM` (read into `Rules`), and the late policy's
arithmetic.

Times are the grader's (`autograder.coursedir.ledger`): a submission is late when the ledger
received it after its due date (the student's extension, where one was granted, in its place) plus
the grace. A day late is a calendar day of the course's `TIMEZONE`: the first day ends at the
due time one day later on the wall clock, so a day is 23 or 25 hours across a daylight-saving
change. The penalty is a share of the raw score, `per_day` for each day or part of one, at most
`cap`; with `late_days` the student's budget of `LATE_DAYS` (for the whole term, used in release
order) is drawn on first.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass, field
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ..coursedir.settings import FEEDBACK_POLICIES as FEEDBACK
from ..coursedir.settings import Settings, SettingsError

#: Which attempt's grade counts.
COUNTS = ("last", "best")
#: The keys an assignment's rules may have in TERM.
KEYS = ("due", "grace_minutes", "late", "attempts", "counts", "feedback", "closes", "max_late_days")
LATE_KEYS = ("per_day", "cap", "late_days")


@dataclass(frozen=True)
class LatePolicy:
    """What lateness costs: `per_day` (a share of the raw score per day or part of one late, after
    the budget), at most `cap` in all; `late_days`: draw on the student's term budget first."""

    per_day: float = 0.0
    cap: float = 1.0
    late_days: bool = False

    def share(self, days: int) -> float:
        """The share of the raw score lost for `days` penalised days (0 <= share <= cap)."""
        return min(self.cap, self.per_day * max(0, days))


@dataclass(frozen=True)
class Rules:
    """One assignment's rules for the term (the default: no due date, anything goes)."""

    due: dt.datetime | None = None  # aware
    grace: dt.timedelta = dt.timedelta(0)
    late: LatePolicy = field(default_factory=LatePolicy)
    attempts: int | None = None  # attempts that count (None: every one)
    counts: str = "last"
    feedback: str = "after_due"
    zone: dt.tzinfo = dt.timezone.utc
    closes: dt.datetime | None = None  # aware: a hand-in received after it is recorded and not graded
    max_late_days: int | None = None  # of the student's LATE_DAYS, the most this assignment may use

    def closes_for(self, extension: dt.datetime | None, granted: dt.datetime | None = None) -> dt.datetime | None:
        """The close date of a student with `extension` and a `granted` close date: the latest of
        them and the term's (an extension past the close date moves it there); None where the term
        gives none."""
        if self.closes is None:
            return None
        return max(when for when in (self.closes, extension, granted) if when is not None)

    def due_for(self, extension: dt.datetime | None) -> dt.datetime | None:
        """The due date of a student with `extension` (an aware time, or None)."""
        return extension if extension is not None else self.due

    def days_late(self, received: dt.datetime, extension: dt.datetime | None = None) -> int:
        """Calendar days (of the course's time zone, a part counted whole) by which a submission
        received at `received` (aware) is late; 0 within the due date plus grace."""
        due = self.due_for(extension)
        if due is None:
            return 0
        due, received = (
            due.astimezone(dt.timezone.utc),
            received.astimezone(dt.timezone.utc),
        )  # real time, not wall-clock arithmetic
        if received <= due + self.grace:
            return 0
        wall = due.astimezone(self.zone).replace(tzinfo=None)
        days = max(1, math.ceil((received - due) / dt.timedelta(days=1)) - 1)
        while received > _on_wall(wall + dt.timedelta(days=days), self.zone):
            days += 1
        while days > 1 and received <= _on_wall(wall + dt.timedelta(days=days - 1), self.zone):
            days -= 1
        return days


def _on_wall(wall: dt.datetime, zone: dt.tzinfo) -> dt.datetime:
    """The instant a naive wall-clock time names in `zone` (the earlier one where the clock repeats)."""
    return wall.replace(tzinfo=zone, fold=0)


def zone(settings: Settings) -> dt.tzinfo:
    """The course's time zone (`TIMEZONE`); SettingsError for a name the zone database lacks."""
    try:
        return ZoneInfo(settings.TIMEZONE)
    except (ZoneInfoNotFoundError, ValueError) as error:
        raise SettingsError(
            f'TIMEZONE is {settings.TIMEZONE!r}, not a time zone name (such as "Europe/Berlin" or "UTC"): {error}'
        ) from None


def shown(when: dt.datetime, tz: dt.tzinfo) -> str:
    """A time as an instructor or a student reads it: the wall clock of the course's zone `tz`, to
    the minute, and the zone's name ("2027-03-01 23:59 (Europe/Berlin)")."""
    return f"{when.astimezone(tz):%Y-%m-%d %H:%M} ({tz})"


def parse_time(text: str, tz: dt.tzinfo, what: str) -> dt.datetime:
    """An aware time from `text` ("2027-03-01 23:59", ISO 8601, with or without an offset; without
    one it is a wall-clock time of `tz`); SettingsError naming `what` otherwise."""
    try:
        when = dt.datetime.fromisoformat(str(text).strip())
    except ValueError:
        raise SettingsError(
            f'{what} is {text!r}, not a time: write it as "2027-03-01 23:59" '
            '(the course\'s TIMEZONE) or with an offset, "2027-03-01T23:59+01:00"'
        ) from None
    return _on_wall(when, tz) if when.tzinfo is None else when


def rules(settings: Settings, assignment: str) -> Rules:
    """The rules of `assignment` from TERM; SettingsError naming the setting for a value the course
    cannot use."""
    tz = zone(settings)
    given = settings.TERM.get(assignment, {})
    where = f"TERM[{assignment!r}]"
    if not isinstance(given, dict):
        raise SettingsError(f"{where} must be a dict of {', '.join(KEYS)}, not {given!r}")
    unknown = sorted(set(given) - set(KEYS))
    if unknown:
        raise SettingsError(f"{where} has unknown key(s) {unknown}; the keys are {', '.join(KEYS)}")
    due = parse_time(given["due"], tz, f"{where}['due']") if given.get("due") is not None else None
    grace = _number(given.get("grace_minutes", 0), f"{where}['grace_minutes']", low=0)
    late = given.get("late", {})
    if not isinstance(late, dict) or set(late) - set(LATE_KEYS):
        raise SettingsError(f"{where}['late'] must be a dict of {', '.join(LATE_KEYS)}, not {late!r}")
    policy = LatePolicy(
        per_day=_number(late.get("per_day", 0.0), f"{where}['late']['per_day']", 0, 1),
        cap=_number(late.get("cap", 1.0), f"{where}['late']['cap']", 0, 1),
        late_days=_flag(late.get("late_days", False), f"{where}['late']['late_days']"),
    )
    attempts = given.get("attempts")
    if attempts is not None and (isinstance(attempts, bool) or not isinstance(attempts, int) or attempts < 1):
        raise SettingsError(
            f"{where}['attempts'] must be a whole number of at least 1 (or None for no limit), not {attempts!r}"
        )
    counts = _choice(given.get("counts", "last"), COUNTS, f"{where}['counts']")
    feedback = _choice(given.get("feedback", settings.FEEDBACK_SHOWS_EXPECTED), FEEDBACK, f"{where}['feedback']")
    closes = parse_time(given["closes"], tz, f"{where}['closes']") if given.get("closes") is not None else None
    if closes is not None and (due is None or closes < due + dt.timedelta(minutes=grace)):
        raise SettingsError(
            f"{where}['closes'] is {given['closes']!r}: a close date comes after the due date and its grace "
            f"({given.get('due')!r}, {grace:g} minutes)"
        )
    most = given.get("max_late_days")
    if most is not None and (isinstance(most, bool) or not isinstance(most, int) or most < 0):
        raise SettingsError(f"{where}['max_late_days'] must be a whole number of 0 or more (or None), not {most!r}")
    return Rules(due, dt.timedelta(minutes=grace), policy, attempts, counts, feedback, tz, closes, most)


def check(settings: Settings) -> None:
    """Refuse (SettingsError) a TERM, TIMEZONE or LATE_DAYS the course cannot use."""
    unknown = sorted(set(settings.TERM) - set(settings.ASSIGNMENTS))
    if unknown:
        raise SettingsError(f"TERM names {unknown}, which ASSIGNMENTS does not list ({settings.ASSIGNMENTS})")
    if settings.LATE_DAYS < 0:
        raise SettingsError(f"LATE_DAYS must be 0 or more, not {settings.LATE_DAYS}")
    for name in settings.ASSIGNMENTS:
        rules(settings, name)


def _number(value, what: str, low: float = 0.0, high: float = math.inf) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high or math.isnan(value):
        raise SettingsError(f"{what} must be a number from {low:g} to {high:g}, not {value!r}")
    return float(value)


def _flag(value, what: str) -> bool:
    if not isinstance(value, bool):
        raise SettingsError(f"{what} must be True or False, not {value!r}")
    return value


def _choice(value, choices: tuple[str, ...], what: str) -> str:
    if value not in choices:
        raise SettingsError(f"{what} is {value!r}; it must be one of: {', '.join(choices)}")
    return value


@dataclass(frozen=True)
class Lateness:
    """What lateness does to one submission: days late, of them covered by the late-day budget,
    the share of the raw score lost, and the due date that applied."""

    days: int = 0
    budget_days: int = 0  # covered by the term's LATE_DAYS budget
    share: float = 0.0
    due: dt.datetime | None = None
    granted_days: int = 0  # covered by late days granted to the student for this assignment

    def penalty(self, raw: float) -> float:
        """Points lost of a raw score `raw`."""
        return raw * self.share


def assess(
    rules_: Rules,
    received: dt.datetime,
    extension: dt.datetime | None = None,
    budget_left: int = 0,
    granted_days: int = 0,
) -> Lateness:
    """The lateness of a submission received at `received`, with the student's `extension`, the late
    days granted to the student for this assignment (`granted_days`, spent first) and `budget_left`
    late days of the term not yet used (ignored unless the policy draws on them; at most the
    assignment's `max_late_days` of them)."""
    days = rules_.days_late(received, extension)
    granted = min(days, max(0, granted_days))
    offered = budget_left if rules_.max_late_days is None else min(budget_left, rules_.max_late_days)
    covered = min(days - granted, max(0, offered)) if rules_.late.late_days else 0
    share = rules_.late.share(days - granted - covered)
    return Lateness(days, covered, share, rules_.due_for(extension), granted)
