"""An autograde stopped at any point resumes: killed by SIGKILL at random moments, or stopped by
Ctrl-C, every submission is left graded whole or as it was, and running the same command again
grades only what is left, says how many it skipped, and ends with the grades of a run never stopped.
`--redo` grades everything again."""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograder.assignments import get
from autograder.authoring.submissions import filled, write_submission
from autograder.commands.course import nbgrader_env, release
from autograder.coursedir.graded import graded_record
from autograder.coursedir.layout import Course
from autograder.reporting import classdata

from ..conftest import make_course

pytestmark = pytest.mark.nbgrader
A = "ch12_bptt"
#: Short limits and two hidden cases: the runs here are about stopping, not grading.
LIMITS = "\nCELL_TIMEOUT = 5\nCALL_TIMEOUT = 1\nHIDDEN_CASES = 2\n"


@pytest.fixture(scope="module")
def handed_in(tmp_path_factory) -> Path:
    """A released course with four submissions: the reference, the stub and two catalogued mistakes."""
    root = make_course(tmp_path_factory.mktemp("resume") / "course", [A])
    with open(root / "course_config.py", "a", encoding="utf-8") as settings:
        settings.write(LIMITS)
    release(root, [A])
    notebook = root / "release" / A / f"{A}.ipynb"
    write_submission(root, "reference", A, filled(notebook, get(A)))
    write_submission(root, "stub", A, None)
    for entry in get(A).mistakes()[:2]:
        write_submission(root, entry.id, A, filled(notebook, get(A), entry))
    return root


def _env() -> dict[str, str]:
    """The commands' environment: answered by a warm process (autograder.commands.warm) after the
    first, so that a kill or a Ctrl-C reaches a command that runs in one."""
    return {**nbgrader_env(), "AUTOGRADER_WARM": "120"}


def _start(root: Path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "autograder", "autograde", A, "--workers", "2", *extra],
        cwd=root,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def _run(root: Path, *extra: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "autograder", "autograde", A, "--workers", "2", *extra],
        cwd=root,
        env=_env(),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def _grades(root: Path) -> dict:
    data = classdata.load(root)
    return {
        "cells": {(row.student, row.grade_id): row.score for row in data.rows},
        "attempts": {key: (sub.attempt, sub.attempts, sub.state) for key, sub in data.submissions.items()},
    }


def _graded(root: Path) -> set[str]:
    course = Course(root)
    return {s for s in course.students(A) if graded_record(course.autograded(s, A)).exists()}


def _left_behind(root: Path) -> list[str]:
    """Processes still working in the course root (a killed run's workers must die with it)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and Path(os.readlink(entry / "cwd")).is_relative_to(root):
                found.append(entry.name)
        except OSError:
            continue
    return found


def test_a_run_killed_at_random_points_or_stopped_by_ctrl_c_resumes_to_the_grades_of_a_run_never_stopped_and_skips_only_the_same(
    handed_in, tmp_path
):
    whole = shutil.copytree(handed_in, tmp_path / "whole", symlinks=True)
    _run(whole)
    expected = _grades(whole)
    root = shutil.copytree(handed_in, tmp_path / "stopped", symlinks=True)
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    for _ in range(2):  # SIGKILL at a random moment: start-up, grading, or writing a graded folder
        process = _start(root)
        time.sleep(rng.uniform(0.5, 4.0))
        with contextlib.suppress(ProcessLookupError):
            os.kill(process.pid, signal.SIGKILL)
        process.communicate()
        for _ in range(50):
            if not _left_behind(root):
                break
            time.sleep(0.1)
        assert not _left_behind(root), f"seed {seed}: a killed run's workers go on"
        for student in Course(root).students(A):  # graded whole, or as it was (here: not graded at all)
            folder = Course(root).autograded(student, A)
            assert (
                student in _graded(root)
                or not Course(root).notebook(folder, A).exists()
                or (folder.parent / f".{A}.earlier").exists()
            ), seed
    before = _graded(root)
    process = _start(root)  # Ctrl-C at the terminal: its whole process group gets SIGINT
    for _ in range(600):
        if len(_graded(root)) > len(before) or process.poll() is not None:
            break
        time.sleep(0.05)
    try:
        os.killpg(process.pid, signal.SIGINT)
    except ProcessLookupError:  # it had finished
        pass
    out, err = process.communicate()
    if process.returncode == 130:
        assert "stopped by Ctrl-C" in out, out
    else:
        assert process.returncode == 0, err[-3000:]  # it had finished before the signal came
    left = len(Course(root).students(A)) - len(_graded(root))
    out = _run(root)
    skipped = len(Course(root).students(A)) - left
    assert (f"skipped {skipped} of 4 submissions" in out) == (skipped > 0), (seed, out)
    assert _grades(root) == expected, seed
    assert not list((root / "autograded").glob(f"*/.{A}.earlier")), seed
    assert "skipped 4 of 4 submissions" in _run(root)
    out = _run(root, "--redo", "--student", "reference")
    assert "autograded 1 of 1" in out and "skipped" not in out
    assert _grades(root) == expected
    # stopped while grading (its earlier graded folder still kept beside it): not graded until graded again
    graded = Course(root).autograded("reference", A)
    shutil.copytree(graded, graded.parent / f".{A}.earlier", symlinks=True)
    assert classdata.load(root).submissions[(A, "reference")].state == classdata.RECEIVED
    out = _run(root)
    assert "skipped 3 of 4" in out and "autograded 1 of 1" in out
    assert _grades(root) == expected
    # a hand-in whose bytes changed is graded again, and nothing else; after the grader's settings changed,
    # what it graded is left as it was (only a recorded regrade moves a grade: tests/term/test_term.py)
    notebook = Course(root).notebook(Course(root).submitted("stub", A), A)
    notebook.write_text(notebook.read_text(encoding="utf-8").replace('"cells": [', '"cells": [ ', 1), encoding="utf-8")
    out = _run(root)
    assert "skipped 3 of 4" in out and "autograded 1 of 1" in out
    graded = _grades(root)
    with open(root / "course_config.py", "a", encoding="utf-8") as settings:
        settings.write("HIDDEN_CASES = 3\n")
    out = _run(root, "--student", "stub", "--student", "reference")
    assert f"left 2 submission(s) of {A} as they were" in out and "autograded" not in out, out
    assert _grades(root) == graded


#: A command line whose Ctrl-C comes just after the grading, as its scores are about to be printed.
CTRL_C_AFTER_GRADING = """import os, signal, sys
from autograder.commands import cli
summary = cli._summary
def interrupted(root, outcomes):
    os.kill(os.getpid(), signal.SIGINT)
    return summary(root, outcomes)
cli._summary = interrupted
sys.exit(cli.main(sys.argv[1:]))
"""


def test_a_ctrl_c_after_the_grading_ends_with_the_line_that_says_what_is_done(handed_in, tmp_path):
    root = shutil.copytree(handed_in, tmp_path / "course", symlinks=True)
    done = subprocess.run(
        [sys.executable, "-c", CTRL_C_AFTER_GRADING, "--root", str(root), "autograde", A, "--student", "reference"],
        cwd=root,
        env={**nbgrader_env(), "AUTOGRADER_WARM": "0"},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 130 and "Traceback" not in done.stderr, done.stderr[-3000:]
    assert "stopped by Ctrl-C: 1 submissions graded in this run, 0 left" in done.stdout, done.stdout
    assert "reference" in done.stdout.split("stopped by Ctrl-C")[0] and _graded(root) == {
        "reference"
    }  # the scores, then the line
