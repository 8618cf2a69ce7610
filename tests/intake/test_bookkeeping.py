"""`autograder.intake.bookkeeping`, `autograder.coursedir.gradebook` and `AdmittedAutograde` restate
steps of nbgrader 0.9.6 on one gradebook engine per process. The same grades through them and through
plain nbgrader are `tests/commands/test_nbgrader_autograde.py`'s; here: the nbgrader code they restate is still
the code they were written against, and the engine is the process's own."""

from __future__ import annotations

import hashlib
import inspect
import os

import nbgrader
from nbgrader import preprocessors
from nbgrader.api import Gradebook
from nbgrader.converters.autograde import Autograde
from nbgrader.converters.base import BaseConverter

from autograder.commands.course import nbgrader_env
from autograder.coursedir import gradebook

#: sha256 (first 16 hex digits) of the source of each nbgrader function restated or bypassed.
RESTATED = {
    "Autograde.init_assignment": "a7c144dc746ec205",
    "BaseConverter.convert_notebooks": "9f4d7a770217effe",
    "OverwriteKernelspec.preprocess": "28cc17a228e741a2",
    "OverwriteCells.preprocess": "3a94b453d8e53bee",
    "SaveAutoGrades.preprocess": "edef3c387d5c104a",
    "SaveAutoGrades._add_score": "ee891a8fe3657ce7",
    "SaveAutoGrades._add_comment": "31f0186fac9c23ec",
    "Gradebook.__init__": "c60c420276e8355e",
    "Gradebook.find_grade": "b1a48e74233391ce",
    "Gradebook.find_comment": "bcb9b4f7da3c0752",
    "Gradebook.find_source_cell": "0d0ef04711fab86a",
    "Gradebook.find_graded_cell": "68291d97eb3cd85b",
}
OWNERS = {
    "Autograde": Autograde,
    "BaseConverter": BaseConverter,
    "Gradebook": Gradebook,
    **{name: getattr(preprocessors, name) for name in ("OverwriteKernelspec", "OverwriteCells", "SaveAutoGrades")},
}


def test_the_restated_nbgrader_code_is_the_code_it_was_written_against():
    changed = [
        name
        for name, digest in RESTATED.items()
        if hashlib.sha256(
            inspect.getsource(getattr(OWNERS[name.split(".")[0]], name.split(".")[1])).encode()
        ).hexdigest()[:16]
        != digest
    ]
    assert not changed, (
        f"nbgrader {nbgrader.__version__} changed {changed}: re-read autograder/intake/bookkeeping.py, autograder/coursedir/gradebook.py "
        "and AdmittedAutograde (init_assignment, convert_notebooks) against it, then update RESTATED"
    )


def test_one_engine_per_process_and_gradebook_file(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", nbgrader_env()["PATH"])  # a new gradebook asks `alembic` for its version
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    with gradebook.CourseGradebook(url, "course") as first:
        engine = first.engine
    with gradebook.CourseGradebook(url, "course") as again:
        assert again.engine is engine
    (
        tmp_path / "gradebook.db"
    ).unlink()  # replaced under a running process: set up again, never written through the old file
    with gradebook.CourseGradebook(url, "course") as fresh:
        assert fresh.engine is not engine and fresh.check_course("course").id == "course"
    child = os.fork()
    if child == 0:  # a forked worker makes its own
        with gradebook.CourseGradebook(url, "course") as theirs:
            os._exit(0 if theirs.engine is not fresh.engine else 1)
    assert os.waitpid(child, 0)[1] == 0
