"""A class of a few hundred gets the same grades graded one by one (one process, one submission
after another), on the local pool of workers, and on a local Dask cluster, each run as the
instructor runs it (`python -m autograder autograde`, the runner handing out so many submissions at
a time: `runners.AHEAD`).

Marked `scale`: `make test` leaves it out, `make test-scale` runs it (CI runs both)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

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
    return {
        "cells": {(row.student, row.grade_id): (row.score, tuple(row.misconceptions)) for row in data.rows},
        "attempts": {key: (sub.attempt, sub.state, sub.score) for key, sub in data.submissions.items()},
    }


def test_a_class_of_a_few_hundred_gets_the_grades_of_one_by_one_on_the_pool_and_on_dask(tmp_path):
    base = mixed_class(tmp_path / "base", A, STUDENTS)
    roots = {way: shutil.copytree(base, tmp_path / way.replace(" ", "-"), symlinks=True) for way in WAYS}

    def start(way: str) -> tuple[subprocess.Popen, Path, Path]:
        out, err = (
            tmp_path / f"{roots[way].name}.out",
            tmp_path / f"{roots[way].name}.err",
        )  # files: no pipe to fill while it waits
        with out.open("w") as stdout, err.open("w") as stderr:
            command = subprocess.Popen(
                [sys.executable, "-m", "autograder", "autograde", A, *WAYS[way]],
                cwd=roots[way],
                env=nbgrader_env(),
                stdout=stdout,
                stderr=stderr,
            )
        return command, out, err

    def finished(started: tuple[subprocess.Popen, Path, Path]) -> tuple[int, str, str]:
        command, out, err = started
        return command.wait(), out.read_text(), err.read_text()

    # one by one takes one core: the pool and then Dask run beside it, each in a course of its own
    alone = start("one by one")
    runs = {"pool": finished(start("pool"))}
    runs["dask"] = finished(start("dask"))
    runs["one by one"] = finished(alone)
    found = {}
    for way, (_, stdout, stderr) in runs.items():
        assert f"autograded {STUDENTS} of {STUDENTS} submissions" in stdout, (way, stdout[-2000:], stderr[-3000:])
        found[way] = _grades(roots[way])
    assert {way: code for way, (code, _, _) in runs.items()} == {way: 0 for way in WAYS}
    one = found["one by one"]
    assert len(one["attempts"]) == STUDENTS and {state for _, state, _ in one["attempts"].values()} == {"graded"}
    assert len({score for _, _, score in one["attempts"].values()}) > 3  # stub, mistakes and reference apart
    assert found["pool"] == one and found["dask"] == one
