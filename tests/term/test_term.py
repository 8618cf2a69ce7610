"""A term run through real nbgrader: times and attempts the grader keeps, late penalties from them,
extensions, and regrades that preview, apply, explain and revert - tried as a student who forges
times and replays hand-ins, and as an instructor who fixes a check mid-term and has TAs grading."""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from autograder.assignments import get
from autograder.authoring.submissions import filled, write_submission
from autograder.commands.course import autograde, feedback, nbgrader, release
from autograder.coursedir import config
from autograder.coursedir.config import database_url, load
from autograder.coursedir.gradebook import CourseGradebook
from autograder.coursedir.ledger import Ledger
from autograder.grading.worker import nbgrader_env
from autograder.reporting import classdata, exports, feedback_record, report
from autograder.reporting.classdata import results_in
from autograder.term import extensions, history, policy
from autograder.term.notes import notes

from ..classroom import LIMITS
from ..conftest import make_course

pytestmark = pytest.mark.nbgrader
A = "ch12_bptt"
NOW = dt.datetime.now(dt.timezone.utc)
DUE = (NOW - dt.timedelta(days=20)).replace(microsecond=0)
TERM = {A: {"due": DUE.isoformat(), "late": {"per_day": 0.1, "cap": 0.5}}}
WRITTEN = "ex_12_7_1_written"


@pytest.fixture(scope="module")
def released(tmp_path_factory) -> Path:
    root = make_course(tmp_path_factory.mktemp("term") / "course", [A])
    with open(root / "course_config.py", "a", encoding="utf-8") as settings:
        settings.write(LIMITS + f"TERM = {TERM!r}\n")
    release(root, [A])
    return root


def _course(released: Path, folder: Path, extra: str = "") -> Path:
    """A fresh copy of the released course (its gradebook, figures and secret), `extra` settings added."""
    shutil.copytree(
        released, folder, symlinks=True, ignore=shutil.ignore_patterns("submitted", "autograded", "feedback")
    )
    if extra:
        with open(folder / "course_config.py", "a", encoding="utf-8") as settings:
            settings.write(extra)
    return folder


def _ledger(root: Path) -> Ledger:
    return Ledger(database_url(root, load(root)), load(root).COURSE_ID)


def _gradebook(root: Path) -> CourseGradebook:
    return CourseGradebook(database_url(root, load(root)), load(root).COURSE_ID)


def _reference() -> nbformat.NotebookNode:
    return filled(Path(__file__).resolve().parents[2] / "release" / A / f"{A}.ipynb", get(A))


def _mistaken(index: int = 0) -> nbformat.NotebookNode:
    return filled(Path(__file__).resolve().parents[2] / "release" / A / f"{A}.ipynb", get(A), get(A).mistakes()[index])


def _inbound(root: Path, student: str, claimed: str, notebook: nbformat.NotebookNode) -> Path:
    """A folder as `nbgrader submit` writes it into the exchange, its name and timestamp.txt claiming `claimed`."""
    folder = root / "exchange" / load(root).COURSE_ID / "inbound" / f"{student}+{A}+{claimed}+1"
    folder.mkdir(parents=True)
    (folder / "timestamp.txt").write_text(claimed)
    nbformat.write(notebook, folder / f"{A}.ipynb")
    return folder


def _cli(root: Path, *args: str, fails: bool = False) -> str:
    """What a command printed on stdout, or with `fails` (it must stop) on stderr."""
    result = subprocess.run(
        [sys.executable, "-m", "autograder", "--root", str(root), *args],
        capture_output=True,
        text=True,
        env=nbgrader_env(),
        timeout=600,
    )
    if fails:
        assert result.returncode != 0, result.stdout
        return result.stderr
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


# --------------------------------------------------------------------------- time: the grader's
def test_a_forged_time_through_the_exchange_is_a_claim_and_the_late_penalty_applies(released, tmp_path):
    root = _course(
        released, tmp_path / "course", "\nSHARED_HOST = False\n"
    )  # one user: the inbound folder placed by hand
    forged = (DUE - dt.timedelta(days=1)).strftime("%Y-%m-%d %H:%M:%S.%f UTC")
    inbound = _inbound(root, "ann", forged, _reference())
    os.utime(inbound / f"{A}.ipynb", (0, 0))  # the student's own clock: what a student can set
    nbgrader(root, "collect", A)
    (receipt,) = _ledger(root).receipts(A, "ann")
    assert receipt.source == "exchange" and receipt.claimed == forged and receipt.attempt == 1
    assert abs(receipt.received - dt.datetime.now(dt.timezone.utc)) < dt.timedelta(minutes=5)
    assert [o.ok for o in autograde(root, [A])] == [True]
    with _gradebook(root) as gb:
        submission = gb.find_submission(A, "ann")
        assert submission.total_seconds_late > 19 * 86400
        assert submission.late_submission_penalty == pytest.approx(submission.score * 0.5)  # capped at half


def test_collect_update_takes_the_newest_receipt_whatever_a_hand_in_claims(released, tmp_path):
    """A first hand-in that claims 2099 (its folder name and timestamp.txt) does not hide the hand-ins
    after it: `collect --update` compares the grader's receipts (it took timestamp.txt, and said "No
    newer submission to collect" for ever after); the claim is kept in the ledger and reported in one
    line."""
    root = _course(released, tmp_path / "course", "\nSHARED_HOST = False\n")
    future = "2099-01-01 00:00:00.000000 UTC"
    _inbound(root, "cal", future, _mistaken())
    first = nbgrader(root, "collect", A)
    said = [line for line in (first.stdout + first.stderr).splitlines() if "claims the time" in line]
    assert len(said) == 1 and "cal's hand-in of ch12_bptt claims the time '2099-01-01" in said[0], said
    time.sleep(0.05)  # a later receipt by the grader's clock
    honest = NOW.strftime("%Y-%m-%d %H:%M:%S.%f UTC")
    _inbound(root, "cal", honest, _reference())
    second = nbgrader(root, "collect", "--update", A)
    assert "Updating submission: cal" in second.stdout + second.stderr, second.stdout + second.stderr
    receipts = _ledger(root).receipts(A, "cal")
    assert [r.attempt for r in receipts] == [1, 2] and receipts[0].claimed == future
    assert receipts[1].received > receipts[0].received
    assert nbformat.read(root / "submitted" / "cal" / A / f"{A}.ipynb", as_version=4).cells == _reference().cells
    again = nbgrader(root, "collect", "--update", A)
    assert "No newer submission to collect: cal" in again.stdout + again.stderr
    assert len(_ledger(root).receipts(A, "cal")) == 2


def test_garbage_in_timestamp_txt_is_kept_as_a_claim_and_the_folder_time_counts(released, tmp_path):
    root = _course(released, tmp_path / "course")
    write_submission(root, "bea", A, _reference())
    (root / "submitted" / "bea" / A / "timestamp.txt").write_text("tomorrow, honestly \x1b[2J")
    assert [o.ok for o in autograde(root, [A])] == [True]
    (receipt,) = _ledger(root).receipts(A, "bea")
    assert receipt.source == "submitted" and receipt.timed and receipt.claimed == "tomorrow, honestly \x1b[2J"
    with _gradebook(root) as gb:
        assert gb.find_submission(A, "bea").late_submission_penalty > 0


# --------------------------------------------------------------------------- attempts: the bytes handed in
def _hidden_inputs(root: Path, student: str) -> dict[str, str]:
    """check -> the inputs of the first wrong hidden case its graded cell shows."""
    results = results_in(root / "autograded" / student / A / f"{A}.ipynb")
    return {name: result.hidden_failure.inputs for name, result in results.items() if result.hidden_failure}


def _scores(root: Path, student: str) -> dict[str, float]:
    with _gradebook(root) as gb:
        return {grade.name: grade.score for grade in gb.find_submission_notebook(A, A, student).grades}


def test_a_replay_is_the_same_attempt_and_any_changed_byte_a_new_one(released, tmp_path):
    """Identical bytes draw the same cases (a regrade gives the same grade); the same cells with values
    stashed in the notebook's metadata, or another submission_secret.txt, are a new attempt with new
    cases; the runner never sees the handed-in files."""
    root = _course(released, tmp_path / "course")
    notebook = _mistaken()
    cell = next(c for c in notebook.cells if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution"))
    cell.source += "\nimport os as _os\nprint('WORK FOLDER', sorted(_os.listdir('.')))\n"
    write_submission(root, "cal", A, notebook)
    autograde(root, [A])
    first, scores = _hidden_inputs(root, "cal"), _scores(root, "cal")
    ran = nbformat.read(root / "autograded" / "cal" / A / f"{A}.ipynb", as_version=4)
    listing = next(
        o.text
        for c in ran.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if "WORK FOLDER" in o.get("text", "")
    )
    assert not any(name in listing for name in (".ipynb", "timestamp.txt", "submission_secret.txt")), listing
    autograde(root, [A])  # the same bytes again
    assert _hidden_inputs(root, "cal") == first and _scores(root, "cal") == scores
    notebook.metadata["revealed"] = {
        "bptt_scalar": [0.25, 0.5]
    }  # what last feedback showed, kept where the code can read it
    nbformat.write(notebook, root / "submitted" / "cal" / A / f"{A}.ipynb")
    autograde(root, [A])
    second = _hidden_inputs(root, "cal")
    (root / "submitted" / "cal" / A / "submission_secret.txt").write_text("another secret")
    autograde(root, [A])
    third = _hidden_inputs(root, "cal")
    receipts = _ledger(root).receipts(A, "cal")
    assert [r.attempt for r in receipts] == [1, 2, 3] and len({r.digest for r in receipts}) == 3
    assert first and all(
        inputs != second.get(name) and second.get(name) != third.get(name) for name, inputs in first.items()
    )


# --------------------------------------------------------------------------- extensions
def test_an_extension_moves_exactly_the_submission_it_covers_and_its_revocation_moves_it_back(released, tmp_path):
    root = _course(released, tmp_path / "course")
    for student in ("dan", "eve"):
        write_submission(root, student, A, _reference())
    autograde(root, [A])
    with _gradebook(root) as gb:
        late = {s: gb.find_submission(A, s).late_submission_penalty for s in ("dan", "eve")}
    assert all(late.values())
    until = (NOW + dt.timedelta(days=1)).isoformat()
    _cli(root, "feedback", A)
    granted = _cli(root, "extend", "dan", A, "--until", until, "--reason", "illness, note from the office")
    assert f"{A} dan: " in granted and f"late penalty: {late['dan']:g} -> 0" in granted
    assert f"grades moved: 1 feedback page(s) now show an older grade ({A}/dan)" in granted
    made = _cli(root, "feedback", A, "--release")  # what a schedule (cron) runs: only what changed
    assert f"feedback: made 1 page(s) ({A}/dan)" in made  # eve's page shows what it showed: left as it was
    (page,) = (root / "exchange" / load(root).COURSE_ID / "feedback").glob("*.html")  # dan's, released
    assert "illness, note from the office" in page.read_text(encoding="utf-8")
    assert feedback(root) == []  # every page up to date: nbgrader not even started
    (root / feedback_record.RECORD).write_text("[not a record")  # a record gone bad: stop, make nothing
    said = _cli(root, "feedback", fails=True)
    assert "cannot be read" in said and "Traceback" not in said and len(said.strip().splitlines()) == 1
    (root / feedback_record.RECORD).unlink()
    keys = [(A, "dan"), (A, "eve")]
    before, after = (
        feedback_record.inputs(root, keys, now=(NOW + dt.timedelta(days=d)).replace(tzinfo=None)) for d in (0, 2)
    )
    assert before[(A, "eve")] == after[(A, "eve")] and before[(A, "dan")] != after[(A, "dan")]  # dan's date passes
    with _gradebook(root) as gb:
        assert not gb.find_submission(A, "dan").late_submission_penalty
        assert gb.find_submission(A, "eve").late_submission_penalty == late["eve"]
    moved = extensions.grant(root, "dan", A, None, "granted by mistake")
    assert [(c.student, c.penalty_after) for c in moved] == [("dan", late["dan"])]
    entries = history.entries(_ledger(root), A, "dan")
    assert [(e.action, e.reason) for e in entries] == [
        ("extend", "illness, note from the office"),
        ("revoke", "granted by mistake"),
    ]
    assert "granted by mistake" in _cli(root, "history", "--student", "dan") and not history.entries(
        _ledger(root), A, "eve"
    )
    with pytest.raises(ValueError, match="needs a reason"):
        extensions.grant(root, "dan", A, until, "  ")
    with pytest.raises(ValueError, match="no student 'nobody' in the gradebook: import the roster first"):
        extensions.grant(root, "nobody", A, until, "a typo")

    nbgrader(root, "db", "student", "add", "fil")  # on the roster, nothing handed in yet
    _cli(root, "extend", "fil", A, "--until", until, "--reason", "away for a week")
    (named,) = history.entries(_ledger(root), A, "fil")  # it moved nothing, and still names fil and A
    assert named.action == "extend" and [(c.assignment, c.student) for c in named.changes] == [(A, "fil")]
    shown = _cli(root, "history", "--student", "fil")
    assert "away for a week" in shown and f"extend ({named.grader})" in shown
    assert f"#{named.id} {named.at:%Y-%m-%d %H:%M} (UTC) extend" in shown  # the course's TIMEZONE, named


def test_extensions_in_bulk_are_granted_all_or_none_with_the_lines_that_stop_them(released, tmp_path):
    root = _course(released, tmp_path / "course")
    for student in ("ola", "pia"):
        write_submission(root, student, A, _reference())
    autograde(root, [A])
    nbgrader(root, "db", "student", "add", "qi")  # on the roster, nothing handed in yet
    until = (NOW + dt.timedelta(days=2)).strftime("%Y-%m-%d %H:%M")
    bad = tmp_path / "bad.csv"
    bad.write_text(f"student,assignment,until\nola,{A},{until}\nnobody,{A},{until}\npia,{A},soon\n")
    said = _cli(root, "extend", "--csv", str(bad), "--reason", "the storm", fails=True)
    assert "nothing was granted" in said and "line 3: no student 'nobody'" in said and "line 4: until is 'soon'" in said
    assert not _ledger(root).extensions() and not history.entries(_ledger(root))

    good = tmp_path / "storm.csv"
    good.write_text(f"student,assignment,until\nola,{A},{until}\npia,{A},{until}\nqi,{A},{until}\n")
    out = _cli(root, "extend", "--csv", str(good), "--reason", "the storm")
    assert f"granted every extension of {good}" in out
    assert sorted(_ledger(root).extensions()) == [(A, "ola"), (A, "pia"), (A, "qi")]
    (entry,) = history.entries(_ledger(root))
    assert entry.reason == "the storm" and sorted(c.student for c in entry.changes) == ["ola", "pia", "qi"]
    with _gradebook(root) as gb:
        assert not gb.find_submission(A, "ola").late_submission_penalty
    with open(exports.export(root).grades, newline="", encoding="utf-8") as sheet:
        extended = {row["student_id"]: row["extended_until"] for row in csv.DictReader(sheet)}
    wanted = dt.datetime.strptime(until, "%Y-%m-%d %H:%M").replace(tzinfo=policy.zone(load(root)))  # the course's zone
    assert set(extended) == {"ola", "pia", "qi"} and set(extended.values()) == {  # qi too: nothing handed in
        wanted.astimezone(dt.timezone.utc).isoformat()  # ISO 8601 in UTC, as the gradebook keeps it
    }
    assert "Granted by extend: " in report.render(classdata.load(root))


def test_a_student_granted_more_attempts_and_late_days_gets_them_and_no_one_else(released, tmp_path):
    term = {A: {**TERM[A], "attempts": 1}}
    root = _course(released, tmp_path / "course", f"TERM = {term!r}\n")
    for student in ("ria", "sam"):
        write_submission(root, student, A, _mistaken())
    autograde(root, [A])
    with _gradebook(root) as gb:
        assert all(gb.find_submission(A, s).late_submission_penalty for s in ("ria", "sam"))  # 20 days late
    said = _cli(root, "extend", "ria", A, "--attempts", "1", "--late-days", "30", "--reason", "a long illness")
    assert f"granted ria on {A}: attempts 1, late_days 30" in said and "late penalty: " in said
    with _gradebook(root) as gb:
        assert not gb.find_submission(A, "ria").late_submission_penalty  # her 30 days cover the 20 or 21
        assert gb.find_submission(A, "sam").late_submission_penalty
    lines = notes(load(root), database_url(root, load(root)), A, "ria")
    assert any(re.fullmatch(r"(\d+) day\(s\) late, \1 of them from your late days: 0% .*", line) for line in lines), (
        lines
    )
    for student in ("ria", "sam"):
        write_submission(root, student, A, _reference())
    outcomes = {o.student: o for o in autograde(root, [A])}
    assert outcomes["ria"].ok and "only 1 count" in outcomes["sam"].refused

    days = tmp_path / "days.csv"
    days.write_text(f"student,assignment,late_days\nsam,{A},25\n")
    _cli(root, "extend", "--csv", str(days), "--reason", "the same illness")
    with _gradebook(root) as gb:
        assert not gb.find_submission(A, "sam").late_submission_penalty

    with open(exports.export(root).grades, newline="", encoding="utf-8") as sheet:
        rows = {row["student_id"]: row for row in csv.DictReader(sheet)}
    granted = {s: (r["extra_attempts"], r["extra_late_days"], r["extended_until"]) for s, r in rows.items()}
    assert granted == {"ria": ("1", "30", ""), "sam": ("0", "25", "")}  # what extend granted, in the sheet
    assert (rows["sam"]["state"], rows["sam"]["attempt"], rows["sam"]["attempts"]) == ("graded", "1", "2")
    assert re.fullmatch(r"attempt 2 refused: .*only 1 count.*; the grade of attempt 1 counts", rows["sam"]["reason"])
    page = report.render(classdata.load(root))
    assert "Granted by extend: " in page and "(attempts +1; late days +30)" in page and "(late days +25)" in page
    assert "the grade of attempt 1 counts)" in page


def test_release_feedback_leaves_out_a_hand_in_placed_by_hand_with_one_line_and_releases_the_rest(released, tmp_path):
    """A folder put in submitted/ by hand has no submission_secret.txt (from which a student's client
    finds its page): its page is left out with one line, the others released (nbgrader stopped with a
    traceback on it, after releasing part of the class)."""
    root = _course(released, tmp_path / "course")
    for student in ("uma", "vic", "wes"):
        write_submission(root, student, A, _reference())
    for name in ("timestamp.txt", "submission_secret.txt"):
        (root / "submitted" / "vic" / A / name).unlink()
    autograde(root, [A])
    _cli(root, "feedback", A)
    done = nbgrader(root, "release_feedback", A)
    said = done.stdout + done.stderr
    assert "Traceback" not in said
    left_out = [line for line in said.splitlines() if "not released through the exchange" in line]
    assert len(left_out) == 1 and f"feedback of vic on {A}" in left_out[0], said
    released_pages = list((root / "exchange" / load(root).COURSE_ID / "feedback").glob("*.html"))
    assert len(released_pages) == 2 and all(page.stat().st_mode & 0o777 == 0o644 for page in released_pages)


def test_an_extension_of_an_assignment_without_a_due_date_is_refused(released, tmp_path):
    root = _course(released, tmp_path / "course", "TERM = {}\n")
    nbgrader(root, "db", "student", "add", "gil")
    with pytest.raises(ValueError, match=f"{A} has no due date in TERM"):
        extensions.grant(root, "gil", A, (NOW + dt.timedelta(days=1)).isoformat(), "why not")


def test_release_and_extend_say_when_students_need_a_new_kit(released, tmp_path):
    from autograder.authoring import kit
    from autograder.labels import label

    root = _course(released, tmp_path / "course")
    kit.record_built(root)  # what `python -m autograder kit` records (tests/authoring/test_kit.py runs it)
    assert kit.stale(root) is None  # the kit built and the notebooks released are the course's
    nbgrader(root, "db", "student", "add", "hal")
    until = (NOW + dt.timedelta(days=1)).isoformat()

    moved = {A: {**TERM[A], "due": (DUE + dt.timedelta(days=1)).isoformat()}}
    with open(root / "course_config.py", "a", encoding="utf-8") as settings:
        settings.write(f"TERM = {moved!r}\n")  # the due date moved for everyone: the kit carries it
    config.load.cache_clear()
    wheel, version = kit.wheel_name(root), kit.version(root)
    said = _cli(root, "extend", "hal", A, "--until", until, "--reason", "the same note")
    assert label("kit.stale_release", version=version, assignments=A, wheel=wheel) in said
    assert label("kit.stale", version=version, wheel=wheel) in _cli(root, "release", A)  # the notebooks, not the kit
    kit.record_built(root)
    assert kit.stale(root) is None


# --------------------------------------------------------------------------- regrades
def _fingerprint(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _state(root: Path) -> str:
    with _gradebook(root) as gb:
        keys = [(A, s.id) for s in gb.students]
        return history.Snapshot.take(gb, keys).to_json()


def test_a_regrade_previews_what_it_applies_keeps_the_ta_and_reverts_exactly(released, tmp_path):
    root = _course(released, tmp_path / "course")
    write_submission(root, "ref", A, _reference())
    for index in range(3):
        write_submission(root, f"mis{index}", A, _mistaken(index))
    autograde(root, [A])
    with _gradebook(root) as gb:  # a TA grades ref's written answer in formgrader
        grade = gb.find_grade(WRITTEN, A, A, "ref")
        grade.manual_score, grade.needs_manual_grade = 1.0, False
        gb.find_comment(WRITTEN, A, A, "ref").manual_comment = "clear and right"
        gb.db.commit()
    first, folders = _state(root), _fingerprint(root / "autograded")

    # an author's fix: fewer hidden cases and a gentler late policy
    term = {A: {**TERM[A], "late": {"per_day": 0.01, "cap": 0.5}}}
    with open(root / "course_config.py", "a", encoding="utf-8") as settings:
        settings.write(f"HIDDEN_CASES = 2\nTERM = {term!r}\n")
    preview = _cli(root, "regrade", A, "--preview").splitlines()
    assert _state(root) == first and _fingerprint(root / "autograded") == folders  # a preview writes nothing
    applied = _cli(root, "regrade", A, "--reason", "two hidden cases; late policy eased").splitlines()
    preview = preview[next(i for i, line in enumerate(preview) if line.startswith("preview (nothing written)")) + 1 :]
    applied = applied[next(i for i, line in enumerate(applied) if line.startswith("grade history entry")) + 1 :]
    assert applied[-1].startswith("grades moved: 0 feedback page(s) now show an older grade (-)")  # none made yet
    assert preview == applied[:-1] and preview  # the same lines: whose grades, per check, before and after
    assert sum(line.startswith("    late penalty:") for line in applied) == 4  # every one of them was 20 days late
    (entry,) = history.entries(_ledger(root))
    assert (
        entry.action == "regrade" and entry.reason == "two hidden cases; late policy eased" and len(entry.grader) == 16
    )

    _cli(root, "regrade", A, "--reason", "the same again")
    with _gradebook(root) as gb:  # the TA's grade survives both regrades
        grade = gb.find_grade(WRITTEN, A, A, "ref")
        assert (grade.manual_score, grade.needs_manual_grade) == (1.0, False)
        assert gb.find_comment(WRITTEN, A, A, "ref").manual_comment == "clear and right"

    _cli(root, "regrade", A, "--revert", str(entry.id))
    assert _state(root) == first and _fingerprint(root / "autograded") == folders
    actions = [e.action for e in history.entries(_ledger(root))]
    assert actions == ["regrade", "regrade", "revert"]
    shown = _cli(root, "history", "--student", "mis0")
    assert "two hidden cases; late policy eased" in shown and "revert of entry" in shown
    lines = notes(load(root), database_url(root, load(root)), A, "mis0")  # what mis0's feedback says
    assert any("two hidden cases; late policy eased" in line for line in lines)


def _answered(notebook: nbformat.NotebookNode, text: str) -> nbformat.NotebookNode:
    """`notebook` with its written answer replaced by `text`."""
    for cell in notebook.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == WRITTEN:
            cell.source = text
    return notebook


def _ta_grades(root: Path, student: str, score: float, comment: str) -> None:
    """A TA scores the student's written answer in formgrader (its API writes these columns)."""
    with _gradebook(root) as gb:
        grade = gb.find_grade(WRITTEN, A, A, student)
        grade.manual_score, grade.needs_manual_grade = score, False
        gb.find_comment(WRITTEN, A, A, student).manual_comment = comment
        gb.db.commit()


def _written(root: Path, student: str) -> tuple:
    with _gradebook(root) as gb:
        grade = gb.find_grade(WRITTEN, A, A, student)
        return grade.manual_score, grade.needs_manual_grade, gb.find_comment(WRITTEN, A, A, student).manual_comment


def test_a_tas_grade_belongs_to_the_answer_it_graded(released, tmp_path):
    """A TA's 0.5 for attempt 1's written answer is set aside when attempt 2 answers anew (it counted
    and was carried to the new answer before), kept with its comment in the history; the TA's grade of
    attempt 2 stands for attempt 3, whose written answer is the same bytes, and through a regrade."""
    root = _course(released, tmp_path / "course")
    write_submission(root, "dee", A, _answered(_reference(), "The first answer."))
    assert [o.ok for o in autograde(root, [A])] == [True]
    _ta_grades(root, "dee", 0.5, "half: the second clause is wrong")

    write_submission(root, "dee", A, _answered(_reference(), "Another answer entirely."))
    assert [o.ok for o in autograde(root, [A])] == [True]
    assert _written(root, "dee") == (None, True, None)  # awaiting a TA, counted 0
    (entry,) = history.entries(_ledger(root), A, "dee")
    assert entry.action == "answer" and "0.5" in entry.reason and "half: the second clause is wrong" in entry.reason
    assert entry.changes[0].moved == {WRITTEN: (0.5, 0.0)}
    lines = notes(load(root), database_url(root, load(root)), A, "dee")
    assert any("half: the second clause is wrong" in line for line in lines)
    assert any(line.startswith("Points awaiting a TA: 1") for line in lines), lines

    _ta_grades(root, "dee", 1.0, "right now")
    write_submission(root, "dee", A, _answered(_mistaken(), "Another answer entirely."))  # code changed, answer not
    assert [o.ok for o in autograde(root, [A])] == [True]
    assert _written(root, "dee") == (1.0, False, "right now")
    kept = history.entries(_ledger(root), A, "dee")[-1]
    assert kept.action == "answer" and "stands" in kept.reason and not kept.changes[0].any
    assert [r.attempt for r in _ledger(root).receipts(A, "dee")] == [1, 2, 3]
    assert sorted(_ledger(root).answers(A, "dee")) == [1, 2, 3]

    _cli(root, "regrade", A, "--reason", "the same again")
    assert _written(root, "dee") == (1.0, False, "right now")


def test_a_hand_in_after_the_close_date_is_recorded_not_graded_and_an_extension_moves_the_close(released, tmp_path):
    """`TERM[a]["closes"]`: graded while open; once closed, a new hand-in gets a receipt and no grade
    (the grade in force stands, the refusal says why), through collect too (one line); a student
    whose extension runs past the close date hands in and is graded."""
    opened = {A: {**TERM[A], "closes": (NOW + dt.timedelta(days=1)).isoformat()}}
    root = _course(released, tmp_path / "course", f"\nSHARED_HOST = False\nTERM = {opened!r}\n")
    write_submission(root, "jo", A, _reference())
    assert [o.ok for o in autograde(root, [A])] == [True]
    graded = _scores(root, "jo")

    closed = {A: {**TERM[A], "closes": (DUE + dt.timedelta(days=2)).isoformat()}}
    with open(root / "course_config.py", "a", encoding="utf-8") as settings:
        settings.write(f"TERM = {closed!r}\n")
    config.load.cache_clear()  # this process read the open term's settings
    write_submission(root, "jo", A, _mistaken())
    (outcome,) = autograde(root, [A], students=["jo"])
    assert not outcome.ok and f"it was received after {A} closed at" in outcome.refused, outcome
    assert _scores(root, "jo") == graded and [r.attempt for r in _ledger(root).receipts(A, "jo")] == [1, 2]

    _inbound(root, "kit", NOW.strftime("%Y-%m-%d %H:%M:%S.%f UTC"), _reference())
    collected = nbgrader(root, "collect", A)
    said = [line for line in (collected.stdout + collected.stderr).splitlines() if "arrived after it closed" in line]
    assert len(said) == 1 and f"kit's hand-in of {A} arrived after it closed" in said[0], said

    nbgrader(root, "db", "student", "add", "lee")
    _cli(root, "extend", "lee", A, "--until", (NOW + dt.timedelta(days=3)).isoformat(), "--reason", "a flood")
    write_submission(root, "lee", A, _reference())
    outcomes = {o.student: o for o in autograde(root, [A], students=["kit", "lee"])}
    assert outcomes["lee"].ok and not outcomes["kit"].ok and "closed at" in outcomes["kit"].refused


def test_a_plain_autograde_moves_no_grade_a_changed_grader_would_move(released, tmp_path):
    """After a setting that makes grades changed (fewer hidden cases), a plain autograde leaves the
    graded submissions as they were and says how many and how to regrade them (it regraded them all
    before, unrecorded); a recorded regrade moves them, and a revert stays reverted."""
    root = _course(released, tmp_path / "course")
    for student in ("mo", "ned"):
        write_submission(root, student, A, _mistaken())
    table = _cli(root, "autograde", A).splitlines()
    header = next(line for line in table if line.startswith("student"))
    assert header.endswith("awaiting a TA  penalty  final  misconceptions named"), header  # due 20 days ago
    with _gradebook(root) as gb:
        mo = gb.find_submission(A, "mo")
        final = f"{mo.score - mo.late_submission_penalty:.2f}"
    assert any(line.split()[:2] == ["mo", A] and final in line.split() for line in table), table
    graded = _state(root)
    with open(root / "course_config.py", "a", encoding="utf-8") as settings:
        settings.write("HIDDEN_CASES = 1\n")
    said = _cli(root, "autograde", A)
    assert _state(root) == graded and not history.entries(_ledger(root))
    assert f"left 2 submission(s) of {A} as they were: another version of the grader graded them" in said, said
    assert f"python -m autograder regrade {A} --preview" in said

    entry = _cli(root, "regrade", A, "--reason", "one hidden case")
    assert "grade history entry 1 (regrade)" in entry
    _cli(root, "regrade", "--revert", "1")  # the entry names what it moved
    reverted = _state(root)
    _cli(root, "autograde", A)
    assert _state(root) == reverted == graded


def test_an_attempt_past_the_ones_that_count_is_refused_and_the_last_counted_grade_stands(released, tmp_path):
    root = _course(released, tmp_path / "course", f"TERM = {{'{A}': {{**{TERM[A]!r}, 'attempts': 1}}}}\n")
    write_submission(root, "fay", A, _reference())
    autograde(root, [A])
    graded = _scores(root, "fay")
    write_submission(root, "fay", A, _mistaken())
    (outcome,) = autograde(root, [A])
    assert not outcome.ok and "it is attempt 2, and only 1 count" in outcome.refused
    assert _scores(root, "fay") == graded and [r.attempt for r in _ledger(root).receipts(A, "fay")] == [1, 2]
