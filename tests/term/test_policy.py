"""The term's rules (`autograder.term.policy`) read from TERM, and the late policy's arithmetic:
on time within the grace, a day late a calendar day of the course's TIMEZONE (23 or 25 hours across a
daylight-saving change), a penalty that never grows the grade and stops at the cap, the late-day
budget drawn on in release order, an extension for one student (`autograder.term.penalties`)."""

from __future__ import annotations

import datetime as dt
import itertools
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autograder.coursedir.ledger import Ledger
from autograder.coursedir.settings import Settings, SettingsError
from autograder.grading.worker import nbgrader_env
from autograder.term import penalties, policy

UTC = dt.timezone.utc
US = dt.timedelta(microseconds=1)
#: Zones and the days their clocks change in 2027 (Lord Howe's by half an hour).
CHANGES = {
    "Europe/Berlin": [dt.date(2027, 3, 28), dt.date(2027, 10, 31)],
    "America/New_York": [dt.date(2027, 3, 14), dt.date(2027, 11, 7)],
    "Australia/Sydney": [dt.date(2027, 4, 4), dt.date(2027, 10, 3)],
    "Australia/Lord_Howe": [dt.date(2027, 4, 4), dt.date(2027, 10, 3)],
    "UTC": [dt.date(2027, 3, 28)],
}


def course(term_: dict | None = None, zone: str = "UTC", assignments=("a",), late_days: int = 0) -> Settings:
    return Settings(TIMEZONE=zone, ASSIGNMENTS=list(assignments), TERM=term_ or {}, LATE_DAYS=late_days)


def rules_of(due: str | None, zone: str = "UTC", **given_) -> policy.Rules:
    return policy.rules(course({"a": {"due": due, **given_}}, zone), "a")


@st.composite
def walls(draw) -> tuple[str, dt.datetime]:
    """A zone and a wall-clock due time within days of one of its clock changes (gaps and repeats included)."""
    zone = draw(st.sampled_from(sorted(CHANGES)))
    day = draw(st.sampled_from(CHANGES[zone]))
    minutes = draw(st.integers(-6 * 1440, 2 * 1440))
    return zone, dt.datetime.combine(day, dt.time()) + dt.timedelta(
        minutes=minutes, seconds=draw(st.sampled_from([0, 59]))
    )


@st.composite
def dues(draw, **given_) -> policy.Rules:
    """Rules with a due date drawn by `walls`, written as a wall time of the zone or with its offset."""
    zone, wall = draw(walls())
    text = wall.isoformat(sep=" ")
    if draw(st.booleans()):
        text = wall.replace(tzinfo=ZoneInfo(zone), fold=draw(st.integers(0, 1))).isoformat()
    return rules_of(text, zone, **given_)


def wall_of(rules: policy.Rules) -> dt.datetime:
    """What the zone's clock shows at the due time (a due time written in a gap is the instant it names)."""
    return rules.due.astimezone(UTC).astimezone(rules.zone).replace(tzinfo=None)


def at_wall(rules: policy.Rules, wall: dt.datetime) -> dt.datetime:
    """The instant (UTC, as the ledger keeps it) of a wall-clock time of the rules' zone."""
    return wall.replace(tzinfo=rules.zone).astimezone(UTC)


# the calendar day


@settings(max_examples=300, deadline=None)
@given(dues(), st.integers(1, 9))
def test_the_same_wall_clock_time_k_days_on_is_k_days_late(rules, k):
    """k days after the due time on the zone's wall clock is k days late, a microsecond more k + 1, however it is written."""
    received = at_wall(rules, wall_of(rules) + dt.timedelta(days=k))
    assert rules.days_late(received) == k
    assert rules.days_late(received + US) == k + 1
    for shown in (received.astimezone(rules.zone), (received + US).astimezone(rules.zone)):
        assert rules.days_late(shown) == rules.days_late(shown.astimezone(UTC))


@pytest.mark.parametrize(
    "zone, due, hours",
    [
        ("Europe/Berlin", "2027-03-27 18:00", 23),  # spring forward: the first day late is 23 hours
        ("Europe/Berlin", "2027-10-30 18:00", 25),  # fall back: 25
        ("America/New_York", "2027-03-13 23:59", 23),
        ("America/New_York", "2027-11-06 09:00", 25),
        ("Australia/Lord_Howe", "2027-04-03 12:00", 24.5),
        ("UTC", "2027-03-27 18:00", 24),
    ],
)
def test_a_day_late_is_a_calendar_day_of_the_course_time_zone(zone, due, hours):
    rules = rules_of(due, zone)
    end = rules.due.astimezone(UTC) + dt.timedelta(hours=hours)  # real hours, not the wall clock's
    assert [rules.days_late(end - US), rules.days_late(end), rules.days_late(end + US)] == [1, 1, 2]
    assert rules.days_late(rules.due.astimezone(UTC) + US) == 1


def test_a_due_date_without_an_offset_is_a_wall_time_of_the_time_zone():
    assert rules_of("2027-03-01 23:59", "Europe/Berlin").due == dt.datetime(2027, 3, 1, 22, 59, tzinfo=UTC)
    assert rules_of("2027-07-01 23:59", "Europe/Berlin").due == dt.datetime(2027, 7, 1, 21, 59, tzinfo=UTC)
    assert rules_of("2027-07-01T23:59+00:00", "Europe/Berlin").due == dt.datetime(2027, 7, 1, 23, 59, tzinfo=UTC)


# grace


@settings(max_examples=200, deadline=None)
@given(st.data(), st.integers(0, 600))
def test_within_the_grace_is_on_time_and_past_it_days_count_from_the_due_time(data, grace):
    """The grace is real minutes (also across a clock change); past it, lateness is as without a grace."""
    rules = data.draw(dues(grace_minutes=grace))
    bare = rules_of(rules.due.isoformat(), rules.zone.key)
    end = rules.due.astimezone(UTC) + dt.timedelta(minutes=grace)
    assert rules.days_late(end) == 0 and rules.days_late(end.astimezone(rules.zone)) == 0
    assert rules.days_late(end + US) == 1 == bare.days_late(end + US)
    later = end + data.draw(st.timedeltas(min_value=US, max_value=dt.timedelta(days=20)))
    assert rules.days_late(later) == bare.days_late(later) >= 1


# the penalty


policies = st.builds(
    lambda per_day, cap, late_days: {"per_day": per_day, "cap": cap, "late_days": late_days},
    st.floats(0, 1),
    st.floats(0, 1),
    st.booleans(),
)
offsets = st.timedeltas(min_value=-dt.timedelta(days=2), max_value=dt.timedelta(days=40))


@settings(max_examples=300, deadline=None)
@given(st.data(), policies, st.integers(0, 120), st.floats(0, 100), st.integers(0, 6), offsets, offsets)
def test_the_grade_never_rises_with_lateness_and_never_falls_below_the_cap(data, late, grace, raw, budget, one, two):
    rules = data.draw(dues(grace_minutes=grace, late=late))
    due = rules.due.astimezone(UTC)
    early, later = sorted([due + one, due + two])
    first, second = policy.assess(rules, early, None, budget), policy.assess(rules, later, None, budget)
    assert first.days <= second.days
    final = [raw - first.penalty(raw), raw - second.penalty(raw)]
    assert final[1] <= final[0] <= raw
    assert min(final) >= raw * (1 - late["cap"]) - 1e-9
    if early <= due + rules.grace:
        assert (first.days, first.share, first.penalty(raw)) == (0, 0.0, 0.0)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 30), st.integers(0, 10), st.booleans(), st.floats(0, 1), st.floats(0, 1))
def test_budget_days_cost_nothing_and_the_rest_cost_per_day(days, budget, late_days, per_day, cap):
    rules = rules_of("2027-03-01 12:00", late={"per_day": per_day, "cap": cap, "late_days": late_days})
    received = rules.due + dt.timedelta(days=days)
    late = policy.assess(rules, received, None, budget)
    covered = min(days, budget) if late_days else 0
    assert (late.days, late.budget_days) == (days, covered)
    assert late.share == pytest.approx(min(cap, per_day * (days - covered)))


@settings(max_examples=100, deadline=None)
@given(dues(late={"per_day": 0.1}), offsets, offsets)
def test_an_extension_replaces_the_due_date(rules, moved, handed):
    """With an extension, the days late are those of the extension as the due date (earlier or later)."""
    extension = rules.due.astimezone(UTC) + moved
    received = rules.due.astimezone(UTC) + handed
    instead = rules_of(extension.isoformat(), rules.zone.key, late={"per_day": 0.1})
    assert rules.days_late(received, extension) == instead.days_late(received)
    assert policy.assess(rules, received, extension) == policy.assess(instead, received)


# the settings


@pytest.mark.parametrize(
    "given_, named",
    [
        ({"due": "next friday"}, r"TERM\['a'\]\['due'\] is 'next friday', not a time"),
        ({"due": "2027-03-01 23:59", "dew": 1}, r"TERM\['a'\] has unknown key\(s\) \['dew'\]"),
        ({"late": {"per_day": 1.5}}, r"TERM\['a'\]\['late'\]\['per_day'\] must be a number from 0 to 1, not 1.5"),
        ({"late": {"cap": -0.1}}, r"TERM\['a'\]\['late'\]\['cap'\]"),
        ({"late": {"late_days": 1}}, r"TERM\['a'\]\['late'\]\['late_days'\] must be True or False"),
        ({"late": {"per_day": 0.1, "penalty": 1}}, r"TERM\['a'\]\['late'\] must be a dict of per_day, cap, late_days"),
        ({"grace_minutes": -5}, r"TERM\['a'\]\['grace_minutes'\]"),
        ({"attempts": 0}, r"TERM\['a'\]\['attempts'\] must be a whole number of at least 1"),
        ({"attempts": True}, r"TERM\['a'\]\['attempts'\] must be a whole number of at least 1 .*, not True"),
        ({"attempts": 2.0}, r"TERM\['a'\]\['attempts'\]"),
        ({"counts": "first"}, r"TERM\['a'\]\['counts'\] is 'first'; it must be one of: last, best"),
        (
            {"feedback": "later"},
            r"TERM\['a'\]\['feedback'\] is 'later'; it must be one of: public, never, after_due, always",
        ),
        ({"due": "2027-03-01 23:59", "closes": "soon"}, r"TERM\['a'\]\['closes'\] is 'soon', not a time"),
        (
            {"due": "2027-03-01 23:59", "grace_minutes": 15, "closes": "2027-03-02 00:10"},
            r"TERM\['a'\]\['closes'\] is '2027-03-02 00:10': a close date comes after the due date and its grace",
        ),
        ({"closes": "2027-03-02 00:10"}, r"TERM\['a'\]\['closes'\] .* after the due date .*\(None, 0 minutes\)"),
        ({"max_late_days": -1}, r"TERM\['a'\]\['max_late_days'\] must be a whole number of 0 or more"),
        ({"max_late_days": 1.5}, r"TERM\['a'\]\['max_late_days'\]"),
    ],
)
def test_a_rule_the_course_cannot_use_is_named(given_, named):
    settings_ = course({"a": given_})
    for refuse in (lambda: policy.rules(settings_, "a"), lambda: policy.check(settings_)):
        with pytest.raises(SettingsError, match=named):
            refuse()


@pytest.mark.parametrize(
    "settings_, named",
    [
        (course(zone="Mars/Olympus_Mons"), "TIMEZONE is 'Mars/Olympus_Mons', not a time zone name"),
        (course(zone="../etc/passwd"), "TIMEZONE is '../etc/passwd'"),
        (course({"b": {"due": "2027-03-01 23:59"}}), r"TERM names \['b'\], which ASSIGNMENTS does not list"),
        (course({"a": "2027-03-01"}), r"TERM\['a'\] must be a dict"),
        (course(late_days=-1), "LATE_DAYS must be 0 or more"),
    ],
)
def test_a_term_the_course_cannot_use_is_refused_by_check(settings_, named):
    with pytest.raises(SettingsError, match=named):
        policy.check(settings_)


def test_max_late_days_caps_what_one_assignment_draws_from_the_budget():
    given = {"due": "2027-03-01 23:59", "late": {"per_day": 0.1, "cap": 0.5, "late_days": True}}
    capped = policy.rules(course({"a": {**given, "max_late_days": 1}}), "a")
    free = policy.rules(course({"a": given}), "a")
    three_days = capped.due + dt.timedelta(days=2, hours=12)
    assert policy.assess(free, three_days, None, budget_left=5).budget_days == 3
    late = policy.assess(capped, three_days, None, budget_left=5)
    assert (late.days, late.budget_days, late.share) == (3, 1, pytest.approx(0.2))


def test_a_close_date_moves_with_an_extension_past_it():
    rules = policy.rules(course({"a": {"due": "2027-03-01 23:59", "closes": "2027-03-05 23:59"}}), "a")
    closes = rules.closes
    assert rules.closes_for(None) == closes
    assert rules.closes_for(closes - dt.timedelta(days=2)) == closes  # an extension before the close: it stands
    assert rules.closes_for(closes + dt.timedelta(days=2)) == closes + dt.timedelta(days=2)


def test_the_rules_as_read():
    settings_ = course(
        {
            "a": {
                "due": "2027-03-01 23:59",
                "grace_minutes": 15,
                "attempts": 3,
                "counts": "best",
                "late": {"per_day": 0.1, "cap": 0.5, "late_days": True},
                "feedback": "public",
            }
        },
        "Europe/Berlin",
        ("a", "b"),
        late_days=2,
    )
    policy.check(settings_)
    assert policy.rules(settings_, "a") == policy.Rules(
        dt.datetime(2027, 3, 1, 23, 59, tzinfo=ZoneInfo("Europe/Berlin")),
        dt.timedelta(minutes=15),
        policy.LatePolicy(0.1, 0.5, True),
        3,
        "best",
        "public",
        ZoneInfo("Europe/Berlin"),
    )
    free = policy.rules(settings_, "b")  # not in TERM: no due date, anything goes
    assert (free.due, free.attempts, free.counts, free.feedback) == (None, None, "last", "after_due")
    assert free.days_late(dt.datetime(2099, 1, 1, tzinfo=UTC)) == 0


# through the ledger: the budget over the term, extensions, collections without times


@pytest.fixture(scope="module")
def ledger(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ledger")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PATH", nbgrader_env()["PATH"])  # a new gradebook asks `alembic` for its version
        ledger = Ledger(f"sqlite:///{folder / 'gradebook.db'}", "course")
    (folder / "hand-in").mkdir()
    (folder / "hand-in" / "a.ipynb").write_text('{"cells": []}')
    ledger.folder = folder / "hand-in"
    return ledger


STUDENTS = (f"student{n}" for n in itertools.count())
RELEASED = {"a1": "2027-02-01 23:59", "a2": "2027-02-15 23:59", "a3": "2027-03-01 23:59"}


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=3, max_size=3), st.integers(0, 8))
def test_the_late_day_budget_is_used_in_release_order(ledger, days, budget):
    """Covered days cost nothing, the rest per_day each; the budget goes to the earliest released assignment first."""
    settings_ = course(
        {name: {"due": due, "late": {"per_day": 0.1, "late_days": True}} for name, due in RELEASED.items()},
        "Europe/Berlin",
        list(RELEASED),
        budget,
    )
    student = next(STUDENTS)
    for name, late in reversed(list(zip(RELEASED, days))):  # received last to first: the order of release counts
        due = policy.rules(settings_, name).due.astimezone(UTC)
        received = due + dt.timedelta(days=late - 1, hours=1) if late else due - dt.timedelta(hours=1)
        ledger.receive(name, student, ledger.folder, source="exchange", received=received)
    found = [penalties.lateness(settings_, ledger, student)[name] for name in RELEASED]
    assert [late.days for late in found] == days
    assert sum(late.budget_days for late in found) == min(budget, sum(days))
    for earlier, later in itertools.combinations(found, 2):
        assert later.budget_days == 0 or earlier.budget_days == earlier.days
    for late in found:
        assert late.share == pytest.approx(0.1 * (late.days - late.budget_days))


def test_an_extension_is_the_due_date_of_that_student_only(ledger):
    settings_ = course({"a1": {"due": RELEASED["a1"], "late": {"per_day": 0.25}}}, "Europe/Berlin", ["a1"])
    due = policy.rules(settings_, "a1").due
    given_, plain = next(STUDENTS), next(STUDENTS)
    for student in (given_, plain):
        ledger.receive("a1", student, ledger.folder, source="exchange", received=due + dt.timedelta(days=1, hours=12))
    ledger.extend("a1", given_, due + dt.timedelta(days=2), "ill")
    found = {student: penalties.lateness(settings_, ledger, student)["a1"] for student in (given_, plain)}
    assert (found[given_].days, found[given_].share, found[given_].due) == (0, 0.0, due + dt.timedelta(days=2))
    assert (found[plain].days, found[plain].share, found[plain].due) == (2, 0.5, due)
    ledger.extend("a1", given_, None, "revoked")
    assert penalties.lateness(settings_, ledger, given_)["a1"] == found[plain]


@pytest.mark.parametrize("due", ["2027-03-28 01:30", "2027-10-31 02:30", "2027-03-01 12:00"])
def test_a_collection_without_times_is_late_as_the_lms_flagged_it(ledger, due):
    """Across a clock change as anywhere: flagged late is one day late past the grace, unflagged on time."""
    settings_ = course({"a1": {"due": due, "grace_minutes": 90, "late": {"per_day": 0.1}}}, "Europe/Berlin", ["a1"])
    found = {}
    for flagged in (True, False):
        student = next(STUDENTS)
        ledger.receive(
            "a1",
            student,
            ledger.folder,
            source="lms",
            received=dt.datetime(2027, 12, 1, tzinfo=UTC),
            timed=False,
            late_flag=flagged,
        )
        found[flagged] = penalties.lateness(settings_, ledger, student)["a1"]
    assert (found[True].days, found[True].share) == (1, pytest.approx(0.1))
    assert (found[False].days, found[False].share) == (0, 0.0)


def test_the_grade_that_counts_is_the_last_or_the_best_with_the_gradebooks_live_values_for_the_current_attempt():
    """`penalties.counted`, which the report, the sheets and the feedback share: "last" is the attempt
    the gradebook holds; "best" the best final grade, the live values (a TA's score) standing for the
    recorded ones of the current attempt."""
    scores = {1: (15.0, 19.0, 0.0), 2: (12.0, 19.0, 0.0), 3: (18.0, 19.0, 6.0)}
    last = policy.Rules(counts="last")
    best = policy.Rules(counts="best")
    assert penalties.counted(last, scores, 3, (18.0, 6.0)) == (3, 18.0, 6.0)
    assert penalties.counted(best, scores, 3, (18.0, 6.0)) == (1, 15.0, 0.0)  # 15 - 0 beats 18 - 6
    assert penalties.counted(best, scores, 2, (16.0, 0.0)) == (2, 16.0, 0.0)  # a TA's points on attempt 2, live
    assert penalties.counted(best, {}, None, (0.0, 0.0)) == (None, 0.0, 0.0)


FIRST, OTHER = "ch12_bptt", "ch11_rnn_state"
DUE = dt.datetime(2027, 3, 1, 12, tzinfo=dt.timezone.utc)


def _two_assignments(tmp_path, monkeypatch):
    """A course where zed's work on FIRST and OTHER is graded 10 of 10, handed in two days after the
    due date, before OTHER had a late rule: its penalty is 2 once written by the term as it is now."""
    from nbgrader.api import Gradebook

    from autograder.coursedir import config
    from autograder.coursedir.graded import graded_record
    from autograder.coursedir.layout import Course

    from ..conftest import make_course

    monkeypatch.setenv("PATH", nbgrader_env()["PATH"])  # a new gradebook asks `alembic` for its version
    root = make_course(tmp_path / "course", [FIRST, OTHER])
    with open(root / "course_config.py", "a", encoding="utf-8") as handle:
        handle.write(
            f"\nTERM = {{'{OTHER}': {{'due': '{DUE.isoformat()}', 'late': {{'per_day': 0.1, 'cap': 0.5}}}}}}\n"
        )
    course, url = Course(root), config.database_url(root, config.load(root))
    ledger = Ledger(url, config.load(root).COURSE_ID)
    with Gradebook(url, config.load(root).COURSE_ID) as gb:
        gb.add_student("zed")
        for name in (FIRST, OTHER):
            gb.add_assignment(name, duedate=DUE.replace(tzinfo=None))
            gb.add_notebook(name, name)
            gb.add_grade_cell("q1", name, name, max_score=10, cell_type="code")
            gb.update_or_create_submission(name, "zed")
            grade = gb.find_grade("q1", name, name, "zed")
            grade.auto_score, grade.needs_manual_grade = 10.0, False
            gb.db.commit()
            folder = course.submitted("zed", name)
            folder.mkdir(parents=True)
            (folder / f"{name}.ipynb").write_text(name, encoding="utf-8")
            ledger.receive(name, "zed", folder, source="submitted", received=DUE + dt.timedelta(days=2))
            ledger.record_score(name, "zed", 1, 10.0, 10.0, 0.0)
            graded = course.autograded("zed", name)
            graded.mkdir(parents=True)
            graded_record(graded).write_text("{}", encoding="utf-8")
    return course, url, ledger


def _penalty(url: str, assignment: str) -> float:
    from nbgrader.api import Gradebook

    with Gradebook(url) as gb:
        return gb.find_submission(assignment, "zed").late_submission_penalty or 0.0


def test_a_regrade_records_every_grade_its_grading_moves_and_a_revert_puts_each_back(tmp_path, monkeypatch):
    """Grading one assignment again writes the late penalties of all the student's graded work (a
    late-day budget spans the term): the entry names each move, of the other assignment too (it moved
    them unrecorded before), and its revert puts them back, leaving the other's graded folder and its
    record as they were."""
    from nbgrader.api import Gradebook

    from autograder.commands import regrade
    from autograder.coursedir import config
    from autograder.coursedir.graded import graded_record
    from autograder.term import penalties

    course, url, _ = _two_assignments(tmp_path, monkeypatch)
    settings_ = config.load(course.root)

    def grade_again(root, names, keys, workers):  # what autograde's late-penalty step does for zed
        with Gradebook(config.database_url(root, settings_), settings_.COURSE_ID) as gb:
            penalties.write(gb, Ledger(config.database_url(root, settings_), settings_.COURSE_ID), settings_, "zed")
            gb.db.commit()

    monkeypatch.setattr(regrade, "_grade_again", grade_again)
    assert [(c.assignment, c.penalty_after) for c in regrade.preview(course.root, [FIRST])] == [(OTHER, 2.0)]
    entry = regrade.apply(course.root, [FIRST], None, "the term's rules")
    assert [(c.assignment, c.student, c.penalty_before, c.penalty_after) for c in entry.changes] == [
        (OTHER, "zed", 0.0, 2.0)  # two days late on the other assignment: recorded, with the reason
    ]
    regrade.revert(course.root, entry.id)
    assert _penalty(url, OTHER) == 0.0
    assert graded_record(course.autograded("zed", OTHER)).is_file()  # not graded again: its record stays


def test_grading_a_new_attempt_records_the_penalty_it_writes_on_the_students_other_work(tmp_path, monkeypatch):
    """A new attempt on FIRST, graded by a plain autograde, writes OTHER's penalty too (the term's
    rules as they are now): a history entry says so, naming both; grading it again records nothing more."""
    import nbformat

    from autograder.coursedir import config
    from autograder.intake.bookkeeping import AssignLatePenalties
    from autograder.term import history

    course, url, ledger = _two_assignments(tmp_path, monkeypatch)
    (course.submitted("zed", FIRST) / f"{FIRST}.ipynb").write_text("attempt 2", encoding="utf-8")
    ledger.receive(FIRST, "zed", course.submitted("zed", FIRST), source="submitted", received=DUE)
    step = AssignLatePenalties(settings=config.load(course.root))
    resources = {"nbgrader": {"assignment": FIRST, "student": "zed", "db_url": url}}
    for _ in range(2):  # the new attempt, then the same attempt again (a regrade records its own)
        step.preprocess(nbformat.v4.new_notebook(), resources)
    (entry,) = history.entries(ledger)
    assert entry.action == "penalty" and f"graded {FIRST} attempt 2" in entry.reason
    assert [(c.assignment, c.penalty_before, c.penalty_after) for c in entry.changes] == [(OTHER, 0.0, 2.0)]
    assert _penalty(url, OTHER) == 2.0
