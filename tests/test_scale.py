"""A class of a few hundred gets the same grades graded one by one (one process, one submission
after another), on the local pool of workers, and on a local Dask cluster, each run as the
instructor runs it (`python -m autograder autograde`, the runner handing out so many submissions at
a time: `runners.AHEAD`).

Marked `scale`: `make test` leaves it out, `make test-scale` runs it (CI runs both)."""
from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from autograder.commands.course import nbgrader_env
from autograder.reporting import classdata

from .mixed import mixed_class

pytestmark = pytest.mark.scale

A = "ch12_bptt"
STUDENTS = 200
WAYS = {"one by one": ["--workers", "1"], "pool": ["--workers", "2"], "dask": ["--dask", "local", "--workers", "2"]}


def _grades(root) -> dict:
    data = classdata.load(root)
    return {"cells": {(row.student, row.grade_id): (row.score, tuple(row.misconceptions)) for row in data.rows},
            "attempts": {key: (sub.attempt, sub.state, sub.score) for key, sub in data.submissions.items()}}


def test_a_class_of_a_few_hundred_gets_the_grades_of_one_by_one_on_the_pool_and_on_dask(tmp_path):
    base = mixed_class(tmp_path / "base", A, STUDENTS)
    found = {}
    for way, extra in WAYS.items():
        root = shutil.copytree(base, tmp_path / way.replace(" ", "-"), symlinks=True)
        done = subprocess.run([sys.executable, "-m", "autograder", "autograde", A, *extra], cwd=root, env=nbgrader_env(),
                              capture_output=True, text=True)
        assert done.returncode == 0, (way, done.stderr[-3000:])
        assert f"autograded {STUDENTS} of {STUDENTS} submissions" in done.stdout, (way, done.stdout[-2000:])
        found[way] = _grades(root)
    one = found["one by one"]
    assert len(one["attempts"]) == STUDENTS and {state for _, state, _ in one["attempts"].values()} == {"graded"}
    assert len({score for _, _, score in one["attempts"].values()}) > 3  # stub, mistakes and reference apart
    assert found["pool"] == one and found["dask"] == one
