"""A student's own set-up, end to end through nbgrader's exchange, as other Linux users.

The instructor (this process, root) makes a course root private to them, puts its exchange outside
it (world-writable with the sticky bit, as nbgrader wants it) and releases ch12_bptt. The student,
a real unprivileged account (`rnnstudent`) with a home folder and a `~/.jupyter/nbgrader_config.py`
naming only the course id and the exchange (the README's student set-up), fetches it, answers it
(the reference solution and a written answer), validates and submits it. A second account
(`rnnmallory`) places a newer folder in the inbound exchange in rnnstudent's name. The instructor
collects (the course's SafeCollect passes over the forged folder), autogrades, generates and
releases feedback, and the student fetches it.

Runs only as root where `useradd` and `runuser` exist (it creates the two accounts once and leaves
them); everything else lives in a folder of its own under /tmp, removed at the end.
"""

from __future__ import annotations

import json
import shutil
from datetime import datetime, timedelta, timezone
from pathlib import Path

import nbformat
import pytest

from autograder.assignments import get
from autograder.authoring.submissions import filled
from autograder.commands.course import BIN, nbgrader, nbgrader_env, release
from autograder.reporting import classdata

from ..accounts import User, account, needs_accounts, shared_area, student_python
from ..accounts import ok as _ok
from ..accounts import run as _run
from ..classroom import LIMITS
from ..conftest import make_course

pytestmark = pytest.mark.nbgrader

ASSIGNMENT = "ch12_bptt"
COURSE_ID = "rnn-chapters"
WRITTEN = "ex_12_7_1_written"
STUDENT, MALLORY = "rnnstudent", "rnnmallory"


@pytest.fixture
def area():
    with shared_area("rnn-exchange-users-") as folder:
        yield folder


def _forge(mallory: User, inbound: Path, notebook: Path) -> str:
    """As mallory: a folder in the inbound exchange named as if rnnstudent had handed it in, an hour
    newer than anything real, holding `notebook` (the untouched stub). Its name."""
    when = (datetime.now(timezone.utc) + timedelta(hours=1)).strftime("%Y-%m-%d %H:%M:%S.%f %Z")
    staged = mallory.home / "forged"
    staged.mkdir()
    shutil.copy(notebook, staged / f"{ASSIGNMENT}.ipynb")
    (staged / "timestamp.txt").write_text(when)
    mallory.give(staged)
    name = f"{STUDENT}+{ASSIGNMENT}+{when}+forged"
    _ok(mallory.run("cp", "-r", str(staged), str(inbound / name)))
    return name


def test_a_student_account_fetches_submits_and_gets_feedback_through_the_exchange(area):
    needs_accounts()
    python_bin = student_python(area, account(STUDENT).pw_name)

    # The instructor: a course root private to them, the exchange beside it, world-writable and sticky.
    exchange = area / "exchange"
    exchange.mkdir()
    exchange.chmod(0o1777)
    root = make_course(area / "course", [ASSIGNMENT])
    root.chmod(0o700)  # the gradebook, the course secret and the solutions (source/) are the instructor's
    with (root / "course_config.py").open("a") as handle:
        handle.write(LIMITS)
    with (root / "nbgrader_config.py").open("a") as handle:
        handle.write(f"\nc.Exchange.root = {str(exchange)!r}\n")
    release(root, [ASSIGNMENT])
    nbgrader(root, "release_assignment", ASSIGNMENT)
    nbgrader(root, "db", "student", "add", STUDENT, "--first-name=Rnn", "--last-name=Student")
    course_exchange = exchange / COURSE_ID
    assert (course_exchange / "outbound" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").is_file()
    assert exchange.stat().st_mode & 0o7777 == 0o1777, "release_assignment kept the exchange world-writable and sticky"
    modes = {name: (course_exchange / name).stat().st_mode & 0o7777 for name in ("outbound", "inbound")}
    assert modes == {"outbound": 0o755, "inbound": 0o2733}, {name: oct(mode) for name, mode in modes.items()}

    student = User(STUDENT, area, python_bin, exchange)
    mallory = User(MALLORY, area, python_bin, exchange)

    # What the student cannot read: the course root and what it holds.
    assert (root / "course_secret").stat().st_mode & 0o077 == 0, "course_secret is its owner's alone (0600)"
    for private in ("course_secret", "gradebook.db", f"source/{ASSIGNMENT}/{ASSIGNMENT}.ipynb"):
        assert (root / private).is_file()
        assert not student.can_read(root / private), f"{STUDENT} can read {private} of the course root"
    assert student.run("ls", str(root)).returncode != 0

    # The student: fetch, answer, validate, submit.
    _ok(student.nbgrader("fetch_assignment", ASSIGNMENT))
    fetched = student.home / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    assert fetched.is_file() and fetched.stat().st_uid == student.account.pw_uid
    assert (fetched.parent / "README.md").is_file(), "the student's instructions come with the notebook"
    answered = filled(fetched, get(ASSIGNMENT))  # the reference solution, typed in by the student
    written = [cell for cell in answered.cells if cell.metadata.get("nbgrader", {}).get("grade_id") == WRITTEN]
    assert len(written) == 1 and written[0].cell_type == "markdown"
    written[0].source = "The gradient of an early state shrinks or grows with each step back through time."
    nbformat.write(answered, fetched)
    student.give(fetched)
    validated = _ok(student.nbgrader("validate", f"{ASSIGNMENT}/{ASSIGNMENT}.ipynb"))
    assert "Success! Your notebook passes all the tests." in validated.stdout, validated.stdout + validated.stderr
    _ok(student.nbgrader("submit", ASSIGNMENT))
    inbound = course_exchange / "inbound"
    handed_in = [p for p in inbound.iterdir() if p.name.startswith(f"{STUDENT}+{ASSIGNMENT}+")]
    assert len(handed_in) == 1 and handed_in[0].stat().st_uid == student.account.pw_uid
    assert student.run("ls", str(inbound)).returncode != 0, "students cannot list each other's submissions"

    # mallory: a newer folder in the inbound exchange under rnnstudent's name, holding the stub.
    forged = _forge(mallory, inbound, course_exchange / "outbound" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    assert (inbound / forged).stat().st_uid == mallory.account.pw_uid

    # The instructor: collect (the forged folder passed over), autograde, feedback out.
    collected = nbgrader(root, "collect", ASSIGNMENT)
    log = collected.stdout + collected.stderr
    assert f"claims to be handed in by {STUDENT} but is owned by {MALLORY}" in log, log
    submitted = root / "submitted" / STUDENT / ASSIGNMENT
    assert json.loads((submitted / f"{ASSIGNMENT}.ipynb").read_text()) == json.loads(fetched.read_text()), (
        "the collected notebook is the one rnnstudent submitted"
    )
    assert (submitted / "timestamp.txt").read_text() == (handed_in[0] / "timestamp.txt").read_text()
    assert sorted(p.name for p in (root / "submitted").iterdir()) == [STUDENT]
    command = [str(BIN / "python"), "-m", "autograder", "--root", str(root)]
    _ok(_run([*command, "autograde", ASSIGNMENT], cwd=root, env=nbgrader_env()))
    _ok(_run([*command, "feedback", ASSIGNMENT], cwd=root, env=nbgrader_env()))
    nbgrader(root, "release_feedback", ASSIGNMENT)

    data = classdata.load(root)
    rows = {row.grade_id: row for row in data.rows if row.student == STUDENT and row.assignment == ASSIGNMENT}
    assert WRITTEN in rows and rows[WRITTEN].needs_manual, "the written answer waits for a TA"
    automatic = {grade_id: row for grade_id, row in rows.items() if not row.needs_manual}
    assert automatic and all(row.max_score > 0 and row.score == row.max_score for row in automatic.values()), {
        grade_id: (row.score, row.max_score) for grade_id, row in automatic.items()
    }
    assert [grade_id for grade_id, row in rows.items() if row.needs_manual] == [WRITTEN]
    score = data.submissions[(ASSIGNMENT, STUDENT)].raw_score
    assert score == sum(row.score for row in rows.values())

    # The student: their feedback, in their own folder.
    _ok(student.nbgrader("fetch_feedback", ASSIGNMENT))
    pages = list((student.home / ASSIGNMENT / "feedback").glob(f"*/{ASSIGNMENT}.html"))
    assert len(pages) == 1, sorted(str(p) for p in (student.home / ASSIGNMENT).rglob("*"))
    page = pages[0]
    assert page.stat().st_uid == student.account.pw_uid
    assert pages[0].parent.name == (handed_in[0] / "timestamp.txt").read_text()
    text = page.read_text(encoding="utf-8")
    pending = rows[WRITTEN].max_score  # the written answer awaits a TA: neither lost nor earned yet
    total = data.max_scores[ASSIGNMENT]
    assert f"({round(score, 2)} of {round(total, 2)} points; {round(pending, 2)} of them await a TA)" in text
    assert f"{WRITTEN}" in text
    assert (course_exchange / "feedback").stat().st_mode & 0o777 == 0o711
    assert student.run("ls", str(course_exchange / "feedback")).returncode != 0, "nobody lists the feedback folder"
