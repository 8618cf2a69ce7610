"""A term run through real nbgrader: times and attempts the grader keeps, late penalties from them,
extensions, and regrades that preview, apply, explain and revert - tried as a student who forges
times and replays hand-ins, and as an instructor who fixes a check mid-term and has TAs grading."""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.assignments import get
from autograder.authoring.submissions import filled, write_submission
from autograder.commands.course import autograde, nbgrader, release
from autograder.coursedir.config import database_url, load
from autograder.coursedir.gradebook import CourseGradebook
from autograder.coursedir.ledger import Ledger
from autograder.grading.worker import nbgrader_env
from autograder.reporting.classdata import results_in
from autograder.term import extensions, history
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


def _cli(root: Path, *args: str) -> str:
    result = subprocess.run(
        [sys.executable, "-m", "autograder", "--root", str(root), *args],
        capture_output=True,
        text=True,
        env=nbgrader_env(),
        timeout=600,
    )
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
    granted = _cli(root, "extend", "dan", A, "--until", until, "--reason", "illness, note from the office")
    assert f"{A} dan: " in granted and f"late penalty: {late['dan']:g} -> 0" in granted
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
    assert preview == applied and applied  # the same lines: whose grades, per check, before and after
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


def test_an_attempt_past_the_ones_that_count_is_refused_and_the_last_counted_grade_stands(released, tmp_path):
    root = _course(released, tmp_path / "course", f"TERM = {{'{A}': {{**{TERM[A]!r}, 'attempts': 1}}}}\n")
    write_submission(root, "fay", A, _reference())
    autograde(root, [A])
    graded = _scores(root, "fay")
    write_submission(root, "fay", A, _mistaken())
    (outcome,) = autograde(root, [A])
    assert not outcome.ok and "it is attempt 2, and only 1 count" in outcome.refused
    assert _scores(root, "fay") == graded and [r.attempt for r in _ledger(root).receipts(A, "fay")] == [1, 2]
