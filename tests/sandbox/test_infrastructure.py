"""Infrastructure faults are never the student's, through the command line: a course whose `.venv`
is a link grades as any other; where the runner cannot run student code (a module its cells need
that it cannot import, namespaces the machine refuses) autograde stops before the first submission
with one line naming the cause, exits non-zero and writes no grade; and a fan-out past the runner's
budget is stopped in every submission of classes graded through the warm command process (the
same fan-out in process, under load: tests/sandbox/test_runner_budget.py)."""

from __future__ import annotations

import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook

from autograder.assignments import get
from autograder.authoring.submissions import filled, write_submission
from autograder.commands import warm
from autograder.commands.course import nbgrader_env, release
from autograder.coursedir import config
from autograder.reporting import classdata
from rnnkit import jail

from .. import hostile
from ..conftest import make_course
from .fanout import CHILDREN, FAN_OUT, LIMIT, foreign_sweeps, stopped

pytestmark = [
    pytest.mark.nbgrader,
    pytest.mark.skipif(jail.available() is None, reason=f"no namespace sandbox on this machine: {jail.refusal()}"),
]
A = "ch12_bptt"
#: Python that refuses unshare() with EPERM from here on, as Docker's default seccomp profile does,
#: then runs the rest of its command line (`python -c REFUSE_UNSHARE -m autograder ...`).
REFUSE_UNSHARE = """
import ctypes, os, platform, struct, sys
machine = platform.machine()
arch, unshare = {"x86_64": (0xC000003E, 272), "aarch64": (0xC00000B7, 97)}[machine]
def op(code, jt, jf, k):
    return struct.pack("HBBI", code, jt, jf, k)
allow, refuse = 0x7FFF0000, 0x00050000 | 1  # SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO | EPERM
# load the architecture; another one: allow; load the call's number; unshare: refuse; else allow
rules = ctypes.create_string_buffer(b"".join([op(0x20, 0, 0, 4), op(0x15, 1, 0, arch), op(0x06, 0, 0, allow), op(0x20, 0, 0, 0),
                                              op(0x15, 0, 1, unshare), op(0x06, 0, 0, refuse), op(0x06, 0, 0, allow)]))
program = ctypes.create_string_buffer(struct.pack("HxxxxxxQ", 7, ctypes.addressof(rules)))
libc = ctypes.CDLL(None, use_errno=True)
libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
assert libc.prctl(38, 1, 0, 0, 0) == 0 and libc.prctl(22, 2, ctypes.addressof(program), 0, 0) == 0  # no_new_privs; the filter
os.execv(sys.executable, [sys.executable, *sys.argv[1:]])
"""


@pytest.fixture(scope="module")
def released(tmp_path_factory) -> Path:
    """A course of one assignment, released, with the reference solution handed in."""
    root = make_course(tmp_path_factory.mktemp("infrastructure") / "course", [A])
    release(root, [A])
    write_submission(root, "reference", A, filled(root / "release" / A / f"{A}.ipynb", get(A)))
    return root


@pytest.fixture
def course(released, tmp_path) -> Path:
    """A copy of `released` of the test's own."""
    return Path(shutil.copytree(released, tmp_path / "course", symlinks=True))


def _autograde(root: Path, python: str | Path = sys.executable, *before: str) -> subprocess.CompletedProcess:
    """`python [before...] -m autograder autograde` in the course `root`, in a process of its own."""
    env = nbgrader_env() | {"AUTOGRADER_WARM": "0"}
    return subprocess.run(
        [str(python), *before, "-m", "autograder", "--root", str(root), "autograde", A],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
    )


def _lines(text: str) -> list[str]:
    """The lines of a command's output, without progress bars."""
    return [line for line in text.splitlines() if line.strip() and "it/s" not in line and "submission/s" not in line]


def _nothing_graded(root: Path) -> bool:
    settings = config.load(root)
    with Gradebook(config.database_url(root, settings), settings.COURSE_ID) as gradebook:
        students = gradebook.students
    return not students and not classdata.collect(root) and not (root / "autograded").exists()


def test_a_course_whose_venv_is_a_link_grades_the_reference_to_full_marks(course):
    """`course/.venv` a link to the environment, the command run by its path: the runner finds the
    interpreter and its packages where that path says (cells failed with "No module named
    IPython.core.logger" before: the sandbox showed the environment at its real path only)."""
    (course / ".venv").symlink_to(Path(sys.prefix).resolve(), target_is_directory=True)
    done = _autograde(course, course / ".venv" / "bin" / "python")
    assert done.returncode == 0, done.stderr[-3000:]
    points = classdata.points(classdata.collect(course))[(A, "reference")]
    assert points.auto == points.auto_max > 0, done.stdout


@pytest.fixture
def outside_tmp():
    """A folder of the test's own outside /tmp (the sandbox gives the runner a /tmp of its own), open
    to the runner's uid (as root, an unprivileged one)."""
    folder = Path(tempfile.mkdtemp(prefix="autograder-test-", dir="/var/tmp"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_a_venv_over_another_environments_site_packages_grades_the_reference_to_full_marks(course, outside_tmp):
    """A venv of the system Python whose `.pth` adds the course environment's site-packages (the hub's
    staff Python, `autograder.hub.environments.staff_python`): the runner sees that folder too (its
    cells failed with "No module named IPython.core.logger" before, when formgrader graded them)."""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    system = Path("/usr/bin") / version
    if not system.is_file():
        pytest.skip(f"no system {version} to make a venv from")
    venv = outside_tmp / "staff-env"
    subprocess.run(
        [str(system), "-m", "venv", "--without-pip", str(venv)], check=True, umask=0o022
    )  # the runner reads it
    site = Path(sysconfig.get_paths()["purelib"])
    link = venv / "lib" / version / "site-packages" / "course-env.pth"
    link.write_text(f"import site; site.addsitedir({str(site)!r})\n")
    link.chmod(0o644)
    done = _autograde(course, venv / "bin" / "python")
    assert done.returncode == 0, done.stderr[-3000:]
    points = classdata.points(classdata.collect(course))[(A, "reference")]
    assert points.auto == points.auto_max > 0, done.stdout


def _refusing_venv(folder: Path) -> Path:
    """A copy of the course environment whose runner cannot import IPython.core.logger (its
    sitecustomize refuses it to pid 1 of a pid namespace, the runner's cell process, and to nothing
    else); its python."""

    def link_or_copy(source: str, target: str) -> None:
        try:
            os.link(source, target)
        except OSError:  # another file system
            shutil.copy2(source, target)

    venv = Path(shutil.copytree(Path(sys.prefix).resolve(), folder, symlinks=True, copy_function=link_or_copy))
    site = next(venv.glob("lib/python3*/site-packages"))
    (site / "sitecustomize.py").write_text(
        "import os, sys\n\n\n"
        "class Refused:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'IPython.core.logger' and os.getpid() == 1:\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n\n\n"
        "sys.meta_path.insert(0, Refused())\n"
    )
    return venv / "bin" / "python"


BROKEN = "a sandboxed runner cannot run a cell: ModuleNotFoundError: No module named 'IPython.core.logger'; nothing was graded"


def test_a_runner_that_cannot_import_what_cells_need_stops_the_class_before_any_grade(course, tmp_path):
    """An environment whose runner cannot import a module its cells need: one line naming the module,
    a non-zero exit, no grade and no student in the gradebook (every cell failed and the reference
    earned 0 before, exit 0)."""
    done = _autograde(course, _refusing_venv(tmp_path / "venv"))
    assert done.returncode != 0 and _lines(done.stdout) == []
    assert _lines(done.stderr) == [BROKEN]
    assert _nothing_graded(course)


def test_a_broken_runner_grades_nothing_through_plain_nbgrader_either(course, tmp_path):
    """The same environment through `nbgrader autograde` (as formgrader's autograde button runs it, in
    the hub's formgrader service): nbgrader fails the submission with the line, exits non-zero, and
    no score is written and no autograded notebook left (the reference earned 0 there before)."""
    python = _refusing_venv(tmp_path / "venv")
    done = subprocess.run(
        [str(python), "-m", "nbgrader", "autograde", A, "--student", "reference"],
        cwd=course,
        env=nbgrader_env() | {"AUTOGRADER_WARM": "0"},
        capture_output=True,
        text=True,
    )
    assert done.returncode != 0 and BROKEN in done.stderr, done.stderr[-3000:]
    settings = config.load(course)
    with Gradebook(config.database_url(course, settings), settings.COURSE_ID) as gradebook:
        scores = [grade.auto_score for grade in gradebook.find_submission(A, "reference").notebooks[0].grades]
    assert scores and all(score is None for score in scores), scores
    assert not list((course / "autograded").rglob("*.ipynb"))


@pytest.mark.skipif(
    os.geteuid() != 0 or platform.machine() not in ("x86_64", "aarch64"),
    reason="a seccomp filter as root, on an architecture whose unshare number is known here",
)
def test_namespaces_the_machine_refuses_stop_the_class_with_the_step_refused(course):
    """unshare() refused (EPERM, as Docker's default seccomp profile does; Ubuntu's AppArmor
    restriction refuses a step of the same setup): one line that names the refused step and says
    how to grade anyway, a non-zero exit, no grade."""
    done = _autograde(course, sys.executable, "-c", REFUSE_UNSHARE)
    assert done.returncode != 0 and _lines(done.stdout) == []
    assert _lines(done.stderr) == [
        "this machine gives no sandbox for student code: jail: unshare(user, mount, net, pid, ipc, uts "
        "namespaces) failed: Operation not permitted; refusing to autograde - pass --unsandboxed to grade "
        "anyway"
    ]
    assert _nothing_graded(course)


@pytest.mark.skipif(
    os.geteuid() != 0 or jail.budgets() is None, reason="needs root and a writable cgroup (the budgets under test)"
)
def test_a_fan_out_past_the_budget_is_stopped_in_every_class_graded_through_the_warm_process(course, capfd):
    """Four students whose first cell fans out past MEMORY_LIMIT_MB, graded twice by commands the
    warm process answers (its children take the zygotes it keeps ahead: the second one kept beside
    the first), beside a foreign grader's sweeps: in every
    submission fewer than all the children held their blocks at once."""
    with (course / "course_config.py").open("a") as handle:
        handle.write(f"\nMEMORY_LIMIT_MB = {LIMIT}\nHIDDEN_CASES = 1\n")
    students = [f"fan-out-{n}" for n in range(4)]
    for student in students:
        write_submission(course, student, A, hostile._prepend(hostile._reference(course), FAN_OUT))
    passed = {
        number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)
    }
    argv = [
        "--root",
        str(course),
        "autograde",
        A,
        "--workers",
        "2",
        "--redo",
        *(f"--student={student}" for student in students),
    ]
    said = []
    try:
        with foreign_sweeps():
            for _ in range(2):
                deadline = time.monotonic() + 180
                while (status := warm.forwarded(argv)) is None:  # None: no warm process yet (the first call starts one)
                    assert time.monotonic() < deadline, "no warm process answered"
                    time.sleep(0.5)
                assert status == 0, capfd.readouterr().err[-3000:]
                for student in students:
                    notebook = nbformat.read(course / "autograded" / student / A / f"{A}.ipynb", as_version=4)
                    said += [
                        found.group(0)
                        for cell in notebook.cells
                        if cell.cell_type == "code"
                        for output in cell.get("outputs", [])
                        if (found := re.search(rf"holding \d of {CHILDREN}", output.get("text", "")))
                    ]
    finally:
        for number, handler in passed.items():  # forwarded() passes these on to the command while it runs
            signal.signal(number, handler)
    assert len(said) == 2 * len(students) and all(map(stopped, said)), said


def test_a_class_the_warm_process_answered_keeps_its_runners_when_the_warm_process_ends(course, monkeypatch, capfd):
    """A warm process that ends (its idle time, 3 s here, passes) while the command it answered is
    grading: the zygote it handed that command lives on until the command is done (it ended with
    the warm process before, killing the runners of the submissions in flight: their cells failed
    as if the students' code had killed them)."""
    monkeypatch.setenv("AUTOGRADER_WARM", "3")  # a warm process of its own (the idle time is in its key)
    students = [f"slow-{n}" for n in range(2)]
    for student in students:
        write_submission(
            course,
            student,
            A,
            hostile._prepend(hostile._reference(course), "import time\ntime.sleep(8)\nprint('slept')"),
        )
    argv = ["--root", str(course), "autograde", A, "--workers", "2", *(f"--student={student}" for student in students)]
    passed = {
        number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)
    }
    try:
        deadline = time.monotonic() + 180
        while (status := warm.forwarded(argv)) is None:
            assert time.monotonic() < deadline, "no warm process answered"
            time.sleep(0.2)
    finally:
        for number, handler in passed.items():
            signal.signal(number, handler)
    assert status == 0, capfd.readouterr().err[-3000:]
    for student in students:
        text = (course / "autograded" / student / A / f"{A}.ipynb").read_text(encoding="utf-8")
        assert "slept" in text and "KernelDied" not in text, student
    points = classdata.points(classdata.collect(course))
    assert all(points[(A, student)].auto == points[(A, student)].auto_max > 0 for student in students)
