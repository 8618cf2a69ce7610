"""Fail closed: a course whose settings, secret or pipeline cannot be loaded stops every command with
one line and a non-zero exit before any student file is read, on the project's command line and on
plain nbgrader alike; a failed regrade never costs an earlier graded copy or its grades; empty and
odd runs get one clear line. (Notebook faults through both paths: the shared class's
`hostile.notebook_faults`.)

One small course (ch12_bptt: the reference and one catalogued mistake) is released and graded once
for the module; each test works on a copy of it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook

from autograder.assignments import get
from autograder.authoring.submissions import filled, write_submission
from autograder.commands.course import BIN, autograde, nbgrader_env, release
from autograder.coursedir import config
from autograder.coursedir.layout import Course
from autograder.grading.attempts import SECRET_FILE
from autograder.reporting import classdata

from .. import hostile
from ..conftest import make_course

pytestmark = pytest.mark.nbgrader
A = hostile.ASSIGNMENT
BROKEN_SETTINGS = {
    "wrong type": ('HIDDEN_CASES = "6"\n', "HIDDEN_CASES must be int, not '6'"),
    "syntax error": ("HIDDEN_CASES = (\n", "course_config.py does not run: SyntaxError"),
    "unknown language": ('COURSE_LANG = "fr"\n', "COURSE_LANG is 'fr'"),
    "missing file": (None, "no course_config.py in"),
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> Path:
    root = make_course(tmp_path_factory.mktemp("fail-closed") / "course", [A])
    with (root / "course_config.py").open("a") as handle:
        handle.write("\nCELL_TIMEOUT = 5\nCALL_TIMEOUT = 1\nHIDDEN_CASES = 2\n")
    release(root, [A])
    notebook = root / "release" / A / f"{A}.ipynb"
    write_submission(root, "reference", A, filled(notebook, get(A)))
    write_submission(root, "mistaken", A, filled(notebook, get(A), get(A).mistakes()[0]))
    assert all(outcome.ok for outcome in autograde(root, [A], workers=1))
    return root


@pytest.fixture
def course(graded, tmp_path) -> Path:
    """A copy of the graded course (its gradebook's paths are relative, so the copy is its own)."""
    return Path(shutil.copytree(graded, tmp_path / "course", symlinks=True))


def _nbgrader(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / "nbgrader"), *args], cwd=root, env=nbgrader_env(), capture_output=True, text=True)


def _cli(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "autograder", "--root", str(root), *args], capture_output=True, text=True
    )


def _scores(root: Path) -> dict:
    return {(row.student, row.grade_id): row.score for row in classdata.collect(root)}


def _graded_copy(root: Path, student: str) -> bytes:
    return (Course(root).autograded(student, A) / f"{A}.ipynb").read_bytes()


def _break(root: Path, line: str | None) -> None:
    path = root / "course_config.py"
    if line is None:
        path.unlink()
    else:
        path.write_text(path.read_text() + line)


def _concurrently(commands: list[tuple[Path, list[str]]]) -> list[tuple[int, str]]:
    """(exit code, stderr) of each command, run in its folder, all at once (each stops at start-up)."""
    running = [
        subprocess.Popen(
            command, cwd=folder, env=nbgrader_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        for folder, command in commands
    ]
    return [(process.wait(), process.stderr.read()) for process in running]


def test_a_broken_setting_stops_plain_nbgrader_before_any_student_file_is_read(course, tmp_path):
    gradebook, graded_copy = (course / "gradebook.db").read_bytes(), _graded_copy(course, "mistaken")
    commands, said = [], []
    for number, (case, (line, text)) in enumerate(BROKEN_SETTINGS.items()):
        broken = Path(shutil.copytree(course, tmp_path / f"broken-{number}", symlinks=True))
        _break(broken, line)
        nbgrader = [[str(BIN / "nbgrader"), "autograde", A, "--student", "mistaken", "--force"]]
        if case == "wrong type":  # every command that nbgrader_config.py configures
            nbgrader += [
                [str(BIN / "nbgrader"), *command]
                for command in (["generate_feedback", A], ["collect", A], ["zip_collect", A])
            ]
        if line is not None:  # the command line says the same (without course_config.py the folder is no course root)
            nbgrader.append([sys.executable, "-m", "autograder", "--root", str(broken), "autograde", A])
        commands += [(broken, command) for command in nbgrader]
        said += [(case, text)] * len(nbgrader)
    for (folder, command), (case, text), (status, stderr) in zip(commands, said, _concurrently(commands)):
        assert status != 0 and text in stderr and "Traceback" not in stderr, (case, command, stderr[-2000:])
        assert "Converting notebook" not in stderr and "sandbox:" not in stderr, (case, command)
        assert (folder / "gradebook.db").read_bytes() == gradebook and _graded_copy(
            folder, "mistaken"
        ) == graded_copy, case


def test_without_a_secret_autograde_stops_once_up_front_and_plain_generate_assignment_makes_one(course):
    (course / SECRET_FILE).unlink()
    scores = _scores(course)
    (plain, plain_err), (cli, cli_err) = _concurrently(
        [
            (course, [str(BIN / "nbgrader"), "autograde", A, "--force"]),
            (course, [sys.executable, "-m", "autograder", "autograde", A]),
        ]
    )
    assert plain != 0 and plain_err.count("no course secret at") == 1, plain_err[-2000:]
    assert "Traceback" not in plain_err and "Converting notebook" not in plain_err
    assert cli != 0 and "no course secret at" in cli_err and "nbgrader generate_assignment" in cli_err
    assert "Traceback" not in cli_err and "FAILED" not in cli_err
    assert _scores(course) == scores
    made = _nbgrader(course, "generate_assignment", A, "--force")
    assert made.returncode == 0, made.stderr[-2000:]
    assert (course / SECRET_FILE).stat().st_mode & 0o777 == 0o600 and len(
        (course / SECRET_FILE).read_text().strip()
    ) == 64


def test_an_unreadable_regrade_keeps_the_earlier_graded_copy_and_its_grades_and_the_report_says_so(course):
    scores, graded_copy = _scores(course), _graded_copy(course, "mistaken")
    (Course(course).submitted("mistaken", A) / f"{A}.ipynb").write_text("not a notebook")
    for run in (
        lambda: _nbgrader(course, "autograde", A, "--student", "mistaken", "--force"),
        lambda: _cli(course, "autograde", A),
    ):
        result = run()
        assert result.returncode != 0 and "not a notebook nbformat can read" in result.stderr
        assert "Traceback" not in result.stderr, result.stderr[-3000:]
        assert _graded_copy(course, "mistaken") == graded_copy and _scores(course) == scores
    data = classdata.load(course)
    assert "not a notebook nbformat can read" in data.submissions[(A, "mistaken")].failed
    assert not data.submissions[(A, "reference")].failed
    report = _cli(course, "report")
    assert f"{A}/mistaken: the last attempt was not graded" in report.stderr
    page = (course / "reports" / "class-report.html").read_text()
    assert "whose last attempt was not graded" in page
    with Gradebook(config.database_url(course, config.load(course)), config.load(course).COURSE_ID) as gb:
        notebook = gb.find_submission(A, "mistaken").notebooks[0]
        assert notebook.flagged and any(
            "The last hand-in was not autograded" in (c.auto_comment or "") for c in notebook.comments
        )
    write_submission(
        course, "mistaken", A, nbformat.read(course / "submitted" / "reference" / A / f"{A}.ipynb", as_version=4)
    )
    assert _cli(course, "autograde", A, "--student", "mistaken").returncode == 0
    assert not classdata.load(course).submissions[(A, "mistaken")].failed


#: Runs with nothing to do, or a name that is not there, and what the command line says.
ODD_RUNS = [
    (["feedback"], "no autograded submission of"),
    (["autograde"], "nothing to autograde"),
    (["autograde", A, "--student", "nobody"], "no submission at submitted/nobody/ch12_bptt"),
    (["feedback", A, "--student", "nobody"], "no autograded submission at autograded/nobody/ch12_bptt"),
    (["autograde", "ch99"], "unknown assignment(s) ['ch99']"),
]


def test_empty_and_odd_runs_get_one_line_and_a_non_zero_exit(tmp_path):
    root = make_course(tmp_path / "course", [A])
    results = _concurrently([(root, [sys.executable, "-m", "autograder", *args]) for args, _ in ODD_RUNS])
    for (args, said), (status, stderr) in zip(ODD_RUNS, results):
        assert status != 0 and said in stderr and "Traceback" not in stderr, (args, stderr[-2000:])


def test_a_broken_setting_stops_the_course_jupyter_server_at_formgrader(course, tmp_path):
    line, said = BROKEN_SETTINGS["wrong type"]
    _break(course, line)
    env = {
        **nbgrader_env(),
        "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
    }
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "jupyter",
            "server",
            f"--ServerApp.root_dir={course}",
            "--ServerApp.ip=127.0.0.1",
            "--ServerApp.port=0",
            "--ServerApp.open_browser=False",
            "--ServerApp.allow_root=True",
        ],
        cwd=course,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0 and said in result.stderr, result.stderr[-2000:]
    assert "Loading the formgrader nbgrader serverextension" in result.stderr
