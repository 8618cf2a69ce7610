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
import os
import pwd
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import warnings
from datetime import datetime, timedelta, timezone
from pathlib import Path

import nbformat
import pytest

from autograder.assignments import get
from autograder.reporting import classdata
from autograder.commands.course import BIN, nbgrader, nbgrader_env, release
from autograder.authoring.submissions import filled

from ..classroom import LIMITS
from ..conftest import make_course

pytestmark = pytest.mark.nbgrader

ASSIGNMENT = "ch12_bptt"
COURSE_ID = "rnn-chapters"
WRITTEN = "ex_12_7_1_written"
STUDENT, MALLORY = "rnnstudent", "rnnmallory"
#: Seconds any one command may take before its process group is killed.
TIMEOUT = 300

STUDENT_CONFIG = """\
c = get_config()  # noqa: F821
c.CourseDirectory.course_id = {course_id!r}
c.Exchange.root = {exchange!r}
"""


def _run(command: list[str], cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run one command in a process group of its own, killed (the group) when it outlasts TIMEOUT."""
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
        pytest.fail(f"{' '.join(command)} took more than {TIMEOUT} s:\n{stdout[-3000:]}\n{stderr[-3000:]}")
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def _ok(result: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert result.returncode == 0, f"{' '.join(result.args)} failed ({result.returncode}):\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}"
    return result


def _account(name: str) -> pwd.struct_passwd:
    """The unprivileged account `name`, created (no home, no login shell) when it is missing."""
    try:
        return pwd.getpwnam(name)
    except KeyError:
        pass
    made = subprocess.run(["useradd", "--user-group", "--no-create-home", "--home-dir", "/nonexistent",
                           "--shell", "/usr/sbin/nologin", name], capture_output=True, text=True)
    try:
        return pwd.getpwnam(name)  # made now, or by a concurrent run
    except KeyError:
        pytest.skip(f"could not create the user {name} with useradd: {made.stderr.strip()}")


class Student:
    """One account, with a home folder of its own under the test's folder; its commands run through
    `runuser -u <name>` with a clean environment (HOME, USER, PATH: the student's Python first)."""

    def __init__(self, name: str, area: Path, python_bin: Path, exchange: Path):
        self.account = _account(name)
        self.name = name
        self.home = area / "home" / name
        self.home.mkdir(parents=True)
        (self.home / ".jupyter").mkdir()  # where the README tells students to put it
        (self.home / ".jupyter" / "nbgrader_config.py").write_text(STUDENT_CONFIG.format(course_id=COURSE_ID, exchange=str(exchange)))
        self.give(self.home)
        self.home.chmod(0o700)
        self.python_bin = python_bin

    def give(self, path: Path) -> None:
        """Make `path` (and everything under it) the student's, as if they had written it."""
        for item in [path, *(path.rglob("*") if path.is_dir() else [])]:
            os.chown(item, self.account.pw_uid, self.account.pw_gid)

    def run(self, *command: str) -> subprocess.CompletedProcess:
        env = ["env", "-i", f"HOME={self.home}", f"USER={self.name}", f"LOGNAME={self.name}", "LANG=C.UTF-8",
               f"PATH={self.python_bin}:/usr/local/bin:/usr/bin:/bin"]
        return _run(["runuser", "-u", self.name, "--", *env, *command], cwd=self.home)

    def nbgrader(self, *args: str) -> subprocess.CompletedProcess:
        """`nbgrader ...` as the student types it in their home folder (`python -m nbgrader`: the
        student's Python is on PATH, whatever the script's first line says)."""
        return self.run(str(self.python_bin / "python"), "-m", "nbgrader", *args)

    def can_read(self, path: Path) -> bool:
        return self.run("cat", str(path)).returncode == 0


def _student_python(area: Path, probe: str) -> Path:
    """A bin folder whose `python` another user can run and that imports nbgrader and the kit.

    The course venv's own when `probe` (an unprivileged account) can run it. A venv's `python` is a
    link to the interpreter it was made from, so a venv made from a Python in root's home (pyenv's
    under /root, mode 0700) cannot be run by anyone else, however open the venv's folder is: then a
    venv is made here from a system Python of the same version, holding only a `.pth` that adds the
    course venv's site-packages (the venv folder itself is readable). Skips when neither works."""
    check = ["-c", "import nbgrader, ipykernel, rnnkit"]
    env = ["env", "-i", "HOME=/tmp", "PATH=/usr/bin:/bin"]

    def runs(python: Path) -> subprocess.CompletedProcess:
        return _run(["runuser", "-u", probe, "--", *env, str(python), *check], cwd=Path("/"))

    own = runs(BIN / "python")
    if own.returncode == 0:
        return BIN
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    real = Path(os.path.realpath(BIN / "python"))
    where = (f"the course venv {sys.prefix} cannot be run by {probe}: its python is {real}, and every folder above "
             f"the venv and above that interpreter must be readable (r-x) by all users, so the venv must be made from "
             f"a Python outside a 0700 home such as /root (e.g. /usr/bin/{version}, or one in /opt) and live outside "
             f"one too ({own.stderr.strip()[-300:]})")
    system = next((Path(p) for p in (f"/usr/bin/{version}", f"/usr/local/bin/{version}") if Path(p).is_file()), None)
    if system is None:
        pytest.skip(where + f"; and there is no system {version} to make a student venv from")
    venv = area / "student-venv"
    made = subprocess.run([str(system), "-m", "venv", "--without-pip", str(venv)], capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip(where + f"; and {system} -m venv failed: {made.stderr.strip()[-300:]}")
    site = Path(sysconfig.get_paths()["purelib"])  # the course venv's site-packages
    (venv / "lib" / version / "site-packages" / "course-venv.pth").write_text(f"import site; site.addsitedir({str(site)!r})\n")
    found = runs(venv / "bin" / "python")
    if found.returncode != 0:
        pytest.skip(where + f"; and a {system} venv over its site-packages does not import nbgrader: {found.stderr.strip()[-300:]}")
    warnings.warn(f"{where}; the students use a venv made from {system} over the course venv's site-packages instead")
    return venv / "bin"


@pytest.fixture
def area():
    """A folder of the test's own under /tmp that other users may enter (pytest's tmp_path is 0700)."""
    folder = Path(tempfile.mkdtemp(prefix="rnn-exchange-users-", dir="/tmp"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _forge(mallory: Student, inbound: Path, notebook: Path) -> str:
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
    if os.geteuid() != 0:
        pytest.skip("needs root: it creates the student accounts and runs commands as them")
    missing = [tool for tool in ("useradd", "runuser") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"needs {' and '.join(missing)} to make and act as a student account")
    python_bin = _student_python(area, _account(STUDENT).pw_name)

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

    student = Student(STUDENT, area, python_bin, exchange)
    mallory = Student(MALLORY, area, python_bin, exchange)

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
    assert json.loads((submitted / f"{ASSIGNMENT}.ipynb").read_text()) == json.loads(fetched.read_text()), \
        "the collected notebook is the one rnnstudent submitted"
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
    assert automatic and all(row.max_score > 0 and row.score == row.max_score for row in automatic.values()), \
        {grade_id: (row.score, row.max_score) for grade_id, row in automatic.items()}
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
    graded = data.max_scores[ASSIGNMENT] - pending
    assert f"({round(score, 2)} of {round(graded, 2)} points graded so far; {round(pending, 2)} points await a TA)" in text
    assert f"{WRITTEN}" in text
    assert (course_exchange / "feedback").stat().st_mode & 0o777 == 0o711
    assert student.run("ls", str(course_exchange / "feedback")).returncode != 0, "nobody lists the feedback folder"
