"""A grader process's work: its nbgrader app (`nbgrader_api`), started before its first submission
(`warm`), and one submission's `nbgrader autograde` at a time (`autograde_one` -> `Outcome`); and what
every grader would otherwise compute for itself, computed once where they start from (`prepare`).

The runners that hand out the submissions are `autograder.grading.runners`.
"""

from __future__ import annotations

import gc
import os
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

from ..coursedir.layout import Course, FailedAttempt
from ..sandbox import timings
from ..vocabulary.spec import Assignment
from . import figures

BIN = Path(sys.executable).parent


def nbgrader_env() -> dict:
    """The environment for nbgrader: the venv's bin first on PATH (nbgrader runs `alembic`)."""
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    return env


@dataclass(frozen=True)
class Outcome:
    """One autograded submission: did nbgrader succeed, how long it took, its log on failure, and
    admission's reasons where it refused the submission (`layout.FailedAttempt`)."""

    student: str
    assignment: str
    ok: bool
    seconds: float
    log: str = ""
    refused: str = ""


_API = {}


def nbgrader_api(root: str, unsandboxed: bool = False):
    """One nbgrader API per process and course root (its config read once)."""
    key = (root, unsandboxed, os.getpid())  # a forked worker makes its own (no shared database connection)
    if key not in _API:
        from nbgrader.apps import NbGraderAPI
        from traitlets.config.loader import PyFileConfigLoader

        os.environ["PATH"] = nbgrader_env()["PATH"]
        warnings.filterwarnings("ignore")  # SQLAlchemy chatter from nbgrader's gradebook, per worker
        settings = PyFileConfigLoader("nbgrader_config.py", path=root).load_config()
        settings.TrustedExecute.unsandboxed = unsandboxed
        _API[key] = NbGraderAPI(config=settings)
    return _API[key]


def freeze() -> None:
    """Keep what this process has built so far (imports, warm caches, the nbgrader app) out of the
    garbage collector's full passes: they last as long as the process, and a forked worker then
    does not touch (and copy) the parent's pages by scanning them."""
    gc.collect()
    gc.freeze()


def warm(root: str, unsandboxed: bool = False, counter=None) -> None:
    """Start this worker's nbgrader API and sandbox zygote before its first submission (a forked
    worker adopts one of the zygotes its parent started, numbered by `counter`)."""
    from ..sandbox.zygote import adopt, zygote_channel

    if (
        counter is not None
    ):  # a worker forked by this run: it dies with the run, so a killed run leaves no grader writing
        from rnnkit.jail.process import _die_with_parent

        _die_with_parent(os.getppid())
        with counter.get_lock():
            index, counter.value = counter.value, counter.value + 1
        adopt(index)
    zygote_channel()
    nbgrader_api(root, unsandboxed)
    freeze()


def prepare(root: str, specs: list[Assignment]) -> None:
    """What every grader of the assignments `specs` in course root `root` would otherwise compute on
    its first submission of each: the figures of a reference released before figures were kept, or
    whose source changed since (`autograder.grading.figures`), and what `preload` computes."""
    for spec in specs:
        if figures.load(root, spec.name) is None and figures.source_notebook(root, spec.name).is_file():
            figures.record(Path(root), spec)
    preload(specs)


def preload(specs: list[Assignment]) -> None:
    """What grading the assignments `specs` needs whatever the course: nbgrader's import, its
    gradebook's ORM mappers and the notebook validators it compiles, the book cases' references (and
    the keys a draw is told from them by), the mistakes' namespaces and the checks each mistake changes (computed once per process)."""
    import nbformat
    import nbgrader.api  # noqa: F401
    import nbgrader.apps  # noqa: F401
    import numpy.random  # noqa: F401 - numpy imports it at its first use: the probes' replacement values
    import sqlalchemy.orm

    from . import execute
    from .checks import public_keys

    sqlalchemy.orm.configure_mappers()
    blank = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("")])
    for relax in (False, True):
        nbformat.validate(blank, relax_add_props=relax)
    execute._metadata_validator()
    for spec in specs:
        for check in spec.checks:
            public_keys(check)
            spec.for_check(check.name)
        for entry in spec.mistakes():
            entry.namespace()


def autograde_one(root: str, assignment: str, student: str, retries: int = 3, unsandboxed: bool = False) -> Outcome:
    """`nbgrader autograde` of one submission in this process, tried up to `retries` times while its
    failed attempt is `transient` (another worker's write to the shared SQLite gradebook got in the
    way). Whether admission refused it is read from that record (`layout.FailedAttempt`)."""
    record = Course(Path(root)).failed_attempt(student, assignment)
    start = time.perf_counter()
    for attempt in range(retries):
        with timings.submission():
            result = nbgrader_api(root, unsandboxed).autograde(assignment, student, force=True, create=True)
        failure = None if result["success"] else FailedAttempt.read(record)
        if not (failure and failure.transient):
            break
        time.sleep(0.5 * (attempt + 1))
    if result["success"]:
        return Outcome(student, assignment, True, time.perf_counter() - start)
    return Outcome(
        student,
        assignment,
        False,
        time.perf_counter() - start,
        f"{result.get('error') or ''}\n{result.get('log') or ''}",
        failure.reason if failure and failure.refused else "",
    )
