"""What became of each hand-in, from a small course state built by hand (a gradebook and the course's
submission ledger, no autograde): not submitted, received and not yet graded, graded, refused with
the reason, late with its days and penalty; the grade that counts under "last" and "best"; and the
report, the score table and the grade sheets showing raw score, penalty, final grade and state, with
work received and not yet graded never shown as not submitted, and a refused hand-in's points
awaiting a TA."""

from __future__ import annotations

import csv
import datetime as dt
import html
import re

import pytest
from nbgrader.api import Gradebook

from autograder.commands.course import nbgrader_env
from autograder.coursedir import config
from autograder.coursedir.layout import Course, FailedAttempt
from autograder.coursedir.ledger import Ledger
from autograder.reporting import classdata, report
from autograder.reporting.classdata import GRADED, NOT_SUBMITTED, RECEIVED, REFUSED
from autograder.reporting.exports import export
from autograder.term import penalties

from ..conftest import ASSIGNMENTS, make_course

pytestmark = pytest.mark.filterwarnings(
    "ignore::sqlalchemy.exc.SAWarning"
)  # nbgrader's own, on a submission it creates

A = ASSIGNMENTS[0]
UTC = dt.timezone.utc
DUE = dt.datetime(2027, 3, 1, 23, 59, tzinfo=UTC)
ON_TIME, TWO_DAYS_LATE = DUE - dt.timedelta(days=1), DUE + dt.timedelta(days=1, hours=12)
REASON = "its notebook is larger than the limit"
ROSTER = ("ann", "bob", "cat", "dan", "eve", "fay")


@pytest.fixture(scope="module", autouse=True)
def _alembic_on_path():
    """A new gradebook asks `alembic` for its version: nbgrader's PATH while this module runs."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PATH", nbgrader_env()["PATH"])
        yield


class Course_:
    """A course root with one assignment of one 10-point grade cell, its gradebook and ledger."""

    def __init__(self, folder, term: dict):
        self.root = make_course(folder, [A])
        with (self.root / "course_config.py").open("a", encoding="utf-8") as handle:
            handle.write(f"\nTIMEZONE = 'UTC'\nTERM = {term!r}\n")
        self.settings = config.load(self.root)
        self.db = config.database_url(self.root, self.settings)
        with self.gradebook() as gb:
            gb.add_assignment(A, duedate=DUE.replace(tzinfo=None))
            gb.add_notebook(A, A)
            gb.add_grade_cell("q1", A, A, max_score=10, cell_type="code")
        self.ledger = Ledger(self.db, self.settings.COURSE_ID)
        self.inbound = folder / "inbound"

    def gradebook(self) -> Gradebook:
        return Gradebook(self.db, self.settings.COURSE_ID)

    def hand_in(self, student: str, text: str, when: dt.datetime, *, submitted: bool = True):
        """A hand-in of `text` received at `when`: in submitted/ (found by autograde), or only in
        the exchange's inbound folder (collected into the ledger, not yet into submitted/)."""
        folder = Course(self.root).submitted(student, A) if submitted else self.inbound / student / A
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{A}.ipynb").write_text(text, encoding="utf-8")
        return self.ledger.receive(A, student, folder, source="submitted" if submitted else "exchange", received=when)

    def grade(self, student: str, auto: float | None, manual: float | None = None) -> None:
        """The gradebook's submission of `student` with the q1 score given (None: not graded), its
        late penalty and (where it has a receipt) the attempt's score recorded, as autograde does."""
        with self.gradebook() as gb:
            gb.update_or_create_student(student)
            gb.update_or_create_submission(A, student)
            grade = gb.find_grade("q1", A, A, student)
            grade.auto_score, grade.manual_score = auto, manual
            grade.needs_manual_grade = auto is None and manual is None
            gb.db.commit()
            receipts = self.ledger.receipts(A, student)
            if auto is None or not receipts:
                return
            submission = gb.find_submission(A, student)
            self.ledger.record_score(A, student, receipts[-1].attempt, submission.score, submission.max_score, 0.0)
            penalties.write(gb, self.ledger, self.settings, student)
            gb.db.commit()
            self.ledger.record_score(
                A,
                student,
                receipts[-1].attempt,
                submission.score,
                submission.max_score,
                submission.late_submission_penalty or 0.0,
            )


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """ann on time, bob two days late, cat received through the exchange only, dan nothing, eve
    refused, fay a folder in submitted/ never autograded, gus a folder there and not on the roster."""
    course = Course_(
        tmp_path_factory.mktemp("states"), {A: {"due": "2027-03-01 23:59", "late": {"per_day": 0.1, "cap": 0.5}}}
    )
    with course.gradebook() as gb:
        for student in ROSTER:
            gb.add_student(student, first_name=student.title())
    course.hand_in("ann", "ann 1", ON_TIME)
    course.grade("ann", 8.0)
    course.hand_in("bob", "bob 1", TWO_DAYS_LATE)
    course.grade("bob", 10.0)
    course.hand_in("cat", "cat 1", ON_TIME, submitted=False)
    course.hand_in("eve", "eve 1", ON_TIME)
    course.grade("eve", None)  # admission's record of a refusal: in the gradebook, every grade left to a TA
    FailedAttempt(REASON, refused=True).write(Course(course.root).failed_attempt("eve", A))
    for student in ("fay", "gus"):
        folder = Course(course.root).submitted(student, A)
        folder.mkdir(parents=True)
        (folder / f"{A}.ipynb").write_text(f"{student} 1", encoding="utf-8")
    return course


def _read(path):
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_each_hand_in_has_its_state_and_work_in_submitted_is_received_not_not_submitted(small):
    data = classdata.load(small.root)
    assert [s.id for s in data.students] == [*ROSTER, "gus"]  # gus is not on the gradebook's roster, yet handed in
    states = {s.id: data.state(A, s.id) for s in data.students}
    assert states == {
        "ann": GRADED,
        "bob": GRADED,
        "cat": RECEIVED,
        "dan": NOT_SUBMITTED,
        "eve": REFUSED,
        "fay": RECEIVED,
        "gus": RECEIVED,
    }
    assert data.missing(A) == ["dan"]
    ann, bob, cat, eve = (data.submissions[(A, s)] for s in ("ann", "bob", "cat", "eve"))
    assert (ann.raw_score, ann.penalty, ann.score, ann.attempt, ann.days_late, ann.late) == (8.0, 0.0, 8.0, 1, 0, False)
    assert (bob.raw_score, bob.penalty, bob.score, bob.attempt, bob.days_late, bob.late) == (
        10.0,
        pytest.approx(2.0),
        8.0,
        1,
        2,
        True,
    )
    assert (cat.attempt, cat.graded, cat.failed) == (1, False, "")
    assert (eve.failed, eve.graded) == (REASON, False)
    assert [sub.student for sub in data.graded(A)] == ["ann", "bob"]
    assert data.total("cat") == data.total("eve") == 0.0 and data.total("bob") == pytest.approx(8.0)


def test_the_grade_sheets_show_state_attempt_lateness_raw_penalty_and_final_grade(small, tmp_path):
    sheets = export(small.root, tmp_path)
    rows = {r["student_id"]: r for r in _read(sheets.grades)}
    assert list(rows["ann"]) == [
        "assignment",
        "duedate",
        "timestamp",
        "student_id",
        "last_name",
        "first_name",
        "email",
        "submitted",
        "state",
        "attempt",
        "attempts",
        "days_late",
        "late_days_used",
        "extended_until",
        "extra_attempts",
        "extra_late_days",
        "closes",
        "raw_score",
        "late_submission_penalty",
        "final_score",
        "points_awaiting_ta",
        "max_score",
        "reason",
    ]
    picked = {
        s: (
            r["submitted"],
            r["state"],
            r["attempt"],
            r["days_late"],
            r["raw_score"],
            r["late_submission_penalty"],
            r["final_score"],
            r["points_awaiting_ta"],
            r["reason"],
        )
        for s, r in rows.items()
    }
    assert picked == {
        "ann": ("yes", "graded", "1", "0", "8.00", "0.00", "8.00", "0.00", ""),
        "bob": ("yes", "graded", "1", "2", "10.00", "2.00", "8.00", "0.00", ""),
        "cat": ("yes", "received", "1", "0", "0.00", "0.00", "0.00", "0.00", ""),
        "dan": ("no", "not_submitted", "", "0", "0.00", "0.00", "0.00", "0.00", ""),
        "eve": ("yes", "refused", "1", "0", "0.00", "0.00", "0.00", "10.00", REASON),  # left to a TA by admission
        "fay": ("yes", "received", "", "0", "0.00", "0.00", "0.00", "0.00", ""),
        "gus": ("yes", "received", "", "0", "0.00", "0.00", "0.00", "0.00", ""),
    }
    assert rows["bob"]["timestamp"].startswith(TWO_DAYS_LATE.strftime("%Y-%m-%d %H:%M"))
    wide = {r["student_id"]: r for r in _read(sheets.scores)}
    assert list(wide["ann"]) == [
        "student_id",
        "last_name",
        "first_name",
        "email",
        A,
        "total",
        "max_total",
        "points_awaiting_ta",
        "not_submitted",
        "received",
        "refused",
        "late",
        f"{A} raw_score",
        f"{A} late_submission_penalty",
        f"{A} points_awaiting_ta",
    ]
    assert (
        wide["bob"][A],
        wide["bob"][f"{A} raw_score"],
        wide["bob"][f"{A} late_submission_penalty"],
        wide["bob"]["late"],
    ) == ("8.00", "10.00", "2.00", A)
    assert (wide["cat"][A], wide["cat"]["received"], wide["cat"]["not_submitted"]) == ("", A, "")
    assert (
        wide["eve"][A],
        wide["eve"]["refused"],
        wide["eve"]["points_awaiting_ta"],
        wide["eve"][f"{A} points_awaiting_ta"],
    ) == ("", A, "10.00", "10.00")
    assert all(wide[s]["not_submitted"] == "" for s in ROSTER + ("gus",) if s != "dan")  # received, refused: handed in
    assert (wide["dan"][A], wide["dan"]["not_submitted"]) == ("", A)
    with sheets.canvas.open(newline="", encoding="utf-8") as handle:
        canvas = {row[3]: row[5] for row in list(csv.reader(handle))[2:]}
    assert canvas == {
        "ann": "8.00",
        "bob": "8.00",
        "cat": "",
        "dan": "",
        "eve": "",
        "fay": "",
        "gus": "",
    }  # the final grade


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_report_and_the_score_table_tell_the_states_apart(small, tmp_path, monkeypatch, lang):
    monkeypatch.setenv("COURSE_LANG", lang)
    data = classdata.load(small.root)
    page = report.write_html(data, tmp_path / "r.html").read_text(encoding="utf-8")
    table = page[page.index('<h2 id="students">') :]
    cells = dict(
        re.findall(
            r'<tr><td class="id">(\w+)(?: <span class="note">[^<]*</span>)?</td>(<td.*?</td>)<td class="num"(?: style="[^"]*")?><b>',
            table,
        )
    )
    word = {"received": classdata_label("report.cell.received"), "refused": classdata_label("report.cell.refused")}
    assert cells["dan"].startswith(f'<td class="missing" title="{classdata_label("report.cell.not_submitted")}"')
    for student in ("cat", "fay", "gus"):
        assert cells[student].startswith('<td class="received"') and f">{word['received']}<" in cells[student], cells[
            student
        ]
    assert (
        cells["eve"].startswith('<td class="refused"')
        and REASON in cells["eve"]
        and f">{word['refused']}" in cells["eve"]
    )
    assert classdata_label("report.cell.awaiting", points="10") in cells["eve"]  # admission left every point to a TA
    assert table.count('<td class="missing"') == 1  # dan's alone: nothing received is "not submitted"
    assert ">8.00" in cells["bob"] and classdata_label("report.cell.late", days="2", penalty="2.00") in cells["bob"]
    assert re.search(r">8\.00</td>$", cells["ann"])  # on time: the grade alone
    section = page[page.index(f'<h2 id="{A}">') : page.index('<h2 id="students">')]
    for fact, count in (
        ("report.fact.submitted", 6),
        ("report.fact.not_submitted", 1),
        ("report.fact.graded", 2),
        ("report.fact.received", 3),
        ("report.fact.refused", 1),
    ):
        assert classdata_label(fact, count=f"<b>{count}</b>") in section, fact
    assert classdata_label("report.fact.late", count="<b>1</b>", points="2.00") in section
    assert REASON in section  # the refusal's reason, named in the assignment's section
    assert (
        classdata_label(
            "report.received", students=", ".join(f'<span class="id">{s}</span>' for s in ("cat", "fay", "gus"))
        )
        in section
    )
    assert classdata_label("report.not_submitted", students='<span class="id">dan</span>') in section
    start = page.index(f'<td><a href="#{A}">')
    overview = page[start : page.index("</tr>", start)]
    assert re.findall(r'<td class="num">(\d+)</td>', overview)[1:7] == [
        "6",
        "2",
        "3",
        "1",
        "1",
        "1",
    ]  # submitted, graded, received, refused, late, not submitted
    counts = classdata_label("report.meta", graded="2", received="3", refused="1", missing="1").split("·")[-1]
    assert counts in page  # the page's head: graded, received, refused, not submitted
    lines = report.score_table(data).splitlines()
    assert len(lines) == 1 + 7
    states = {line.split()[0]: line for line in lines[1:]}
    assert (
        classdata_label("table.state.not_submitted") in states["dan"]
        and classdata_label("table.state.refused") in states["eve"]
    )
    assert all(classdata_label("table.state.received") in states[s] for s in ("cat", "fay", "gus"))
    assert re.search(r"10\.00\s+2\.00\s+8\.00\s+2\s+10\.00/10\.0\s+-\s+-", states["bob"]), states[
        "bob"
    ]  # raw, penalty, final, days late, autograded
    assert states["eve"].split()[3:] == ["-"] * 6 + ["10.0", "-"]  # nothing graded; every point awaits a TA
    header = [
        "student",
        "assignment",
        "state",
        "raw",
        "penalty",
        "final",
        "days",
        "late",
        "autograded",
        "by",
        "a",
        "TA",
        "awaiting",
        "a",
        "TA",
        "misconceptions",
        "named",
    ]
    assert lines[0].split() == (
        header
        if lang == "en"
        else [
            "学生",
            "作业",
            "状态",
            "原始分",
            "迟交罚分",
            "最终成绩",
            "迟交天数",
            "自动评分",
            "助教评分",
            "待人工评分",
            "检出的误区",
        ]
    )
    assert len({_columns_to(line, "/10.0") for line in lines if "/10.0" in line}) == 1  # the columns line up


def _columns_to(line: str, text: str) -> int:
    """The display width of `line` up to `text` (a CJK character takes two columns)."""
    from rnnkit.messages import _columns

    return sum(map(_columns, line[: line.index(text)]))


def classdata_label(label_id: str, **fields) -> str:
    from autograder.labels import label

    return label(label_id, **fields)


def test_the_best_attempt_counts_where_the_term_says_so_with_the_live_scores_of_the_one_graded_now(tmp_path):
    best = Course_(tmp_path / "best", {A: {"counts": "best"}})
    best.hand_in("ann", "ann 1", ON_TIME)
    best.grade("ann", 9.0)
    best.hand_in("ann", "ann 2", ON_TIME + dt.timedelta(hours=1))
    best.grade("ann", 6.0)
    assert best.ledger.scores(A, "ann") == {1: (9.0, 10.0, 0.0), 2: (6.0, 10.0, 0.0)}
    sub = classdata.load(best.root).submissions[(A, "ann")]
    assert (sub.state, sub.score, sub.raw_score, sub.attempt, sub.attempts, sub.counts) == (
        GRADED,
        9.0,
        9.0,
        1,
        2,
        "best",
    )
    best.grade("ann", 6.0, manual=9.5)  # a TA's score on the attempt the gradebook holds now: its live value counts
    sub = classdata.load(best.root).submissions[(A, "ann")]
    assert (sub.score, sub.attempt) == (9.5, 2)
    last = Course_(tmp_path / "last", {A: {"counts": "last"}})
    last.hand_in("ann", "ann 1", ON_TIME)
    last.grade("ann", 9.0)
    last.hand_in("ann", "ann 2", ON_TIME + dt.timedelta(hours=1))
    last.grade("ann", 6.0)
    sub = classdata.load(last.root).submissions[(A, "ann")]
    assert (sub.score, sub.attempt, sub.counts) == (6.0, 2, "last")


def test_a_refusal_after_a_graded_attempt_keeps_that_grade_and_a_newer_hand_in_waiting_is_marked(tmp_path):
    course = Course_(tmp_path / "c", {})
    for student in ("ann", "bob"):
        course.hand_in(student, f"{student} 1", ON_TIME)
        course.grade(student, 7.0)
        course.hand_in(student, f"{student} 2", ON_TIME + dt.timedelta(hours=1))  # received, not autograded yet
    FailedAttempt(REASON, refused=True).write(Course(course.root).failed_attempt("ann", A))
    data = classdata.load(course.root)
    ann, bob = data.submissions[(A, "ann")], data.submissions[(A, "bob")]
    assert (ann.state, ann.graded, ann.score, ann.attempt, ann.attempts, ann.failed, ann.pending) == (
        REFUSED,
        True,
        7.0,
        1,
        2,
        REASON,
        None,
    )
    assert (bob.state, bob.score, bob.attempt, bob.pending) == (GRADED, 7.0, 1, 2)
    assert [sub.student for sub in data.graded(A)] == ["ann", "bob"]
    page = report.render(data)
    assert "&#8856;" in page and "&#8635;" in page  # refused (the earlier grade shown) and a newer hand-in waiting


def test_class_data_from_graded_cells_alone_still_counts_every_submission_as_graded():
    rows = [classdata.Row("ann", "a1", "q1", 1.0, 2.0), classdata.Row("bob", "a1", "q1", 2.0, 2.0)]
    data = classdata.ClassData.from_rows(rows)
    assert [data.state("a1", s) for s in ("ann", "bob", "cat")] == [GRADED, GRADED, NOT_SUBMITTED]
    assert data.submissions[("a1", "ann")].score == 1.0 and data.total("bob") == 2.0


def test_what_extend_granted_shows_escaped_in_the_report_and_the_sheets_for_a_hostile_student_id(tmp_path):
    """A student id chosen to be markup or a formula, granted an extension and extra attempts: the
    report names it as text, the sheets as a cell no spreadsheet runs, times in UTC ISO 8601 there
    and in the course's zone on the page."""
    course = Course_(tmp_path / "c", {A: {"due": "2027-03-01 23:59"}})
    hostile = "<img src=x onerror=alert(1)>"
    formula = "=HYPERLINK(1)"
    until = dt.datetime(2027, 3, 4, 12, 0, tzinfo=UTC)
    for student in (hostile, formula):
        with course.gradebook() as gb:
            gb.add_student(student)
        course.ledger.extend(A, student, until, "a note")
        course.ledger.grant(A, student, "more attempts", attempts=2)
    data = classdata.load(course.root)
    assert data.allowances[(A, hostile)] == classdata.Allowance(until, 2, 0, None)
    page = report.render(data)
    assert hostile not in page and html.escape(hostile) in page
    assert "due 2027-03-04 12:00 (UTC); attempts +2" in page
    rows = {r["student_id"]: r for r in _read(export(course.root, tmp_path / "out").grades)}
    assert set(rows) == {hostile, "'" + formula}
    assert rows["'" + formula]["extended_until"] == until.isoformat() and rows[hostile]["extra_attempts"] == "2"
