"""Instructor operations on a course root: release, autograde (parallel or on Dask), feedback, export.

Every operation is plain nbgrader underneath, configured by the root's `nbgrader_config.py`
(which reads `course_config.py`).
"""
from __future__ import annotations

import csv
import os
import subprocess
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

from . import build, config
from .layout import Course

BIN = Path(sys.executable).parent


def nbgrader_env() -> dict:
    """The environment for nbgrader: the venv's bin first on PATH (nbgrader runs `alembic`)."""
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    return env


def nbgrader(root: Path, *args: str) -> subprocess.CompletedProcess:
    """Run one nbgrader command in the course root; raise with its log when it fails."""
    result = subprocess.run([str(BIN / "nbgrader"), *args], cwd=root, env=nbgrader_env(), capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"nbgrader {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")
    return result


def assignments(root: Path) -> list[str]:
    """The assignments of course_config.py, in release order."""
    return Course(Path(root)).assignments


def release(root: Path, names: list[str] | None = None) -> list[Path]:
    """Build each source notebook and run `nbgrader generate_assignment` on it."""
    done = []
    for name in tqdm(names or assignments(root), desc="release", unit="assignment"):
        build.write_source(name, root)
        nbgrader(root, "generate_assignment", name, "--force")
        done.append(Course(Path(root)).release(name))
    return done


@dataclass(frozen=True)
class Outcome:
    """One autograded submission: did nbgrader succeed, how long it took, and its log on failure."""

    student: str
    assignment: str
    ok: bool
    seconds: float
    log: str = ""


_API = {}


def _api(root: str, unsandboxed: bool = False):
    """One nbgrader API per worker process and course root (its config read once)."""
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


def warm(root: str, unsandboxed: bool = False) -> None:
    """Start this worker's nbgrader API and sandbox zygote before its first submission."""
    from .sandbox import zygote

    zygote()
    _api(root, unsandboxed)


def autograde_one(root: str, assignment: str, student: str, retries: int = 3, unsandboxed: bool = False) -> Outcome:
    """`nbgrader autograde` of one submission in this process, retried when another worker's
    write to the shared SQLite gradebook got in the way."""
    start = time.perf_counter()
    for attempt in range(retries):
        result = _api(root, unsandboxed).autograde(assignment, student, force=True, create=True)
        log = (result.get("log") or "") + (result.get("error") or "")
        if result["success"] or not any(word in log for word in ("sqlite3", "sqlalchemy", "database is locked")):
            break
        time.sleep(0.5 * (attempt + 1))
    log = "" if result["success"] else f"{result.get('error') or ''}\n{result.get('log') or ''}"
    return Outcome(student, assignment, bool(result["success"]), time.perf_counter() - start, log)


def isolation(unsandboxed: bool = False) -> str:
    """The isolation student code gets on this machine, as printed at the start of every autograde."""
    from rnnkit import jail

    from .execute import isolation_in_force

    return isolation_in_force(jail.available(), unsandboxed)


def autograde(root: Path, names: list[str] | None = None, *, students: list[str] | None = None,
              workers: int | None = None, dask: str | None = None, unsandboxed: bool = False) -> list[Outcome]:
    """Autograde every submission of the given assignments.

    Runs on `workers` local processes (course_config.WORKERS by default), or on a Dask cluster
    when `dask` is "local" (a LocalCluster) or a scheduler address. Each submission is an
    independent `nbgrader autograde`, so a crash costs only that submission; a failed one is tried
    once more in this process after the parallel pass. Student code runs sandboxed (see
    `autograder.execute`); `unsandboxed` allows grading where the machine gives no sandbox.
    """
    print(f"sandbox: {isolation(unsandboxed)}", flush=True)
    course = Course(Path(root).resolve())
    root = str(course.root)
    jobs = [(name, student) for name in (names or course.assignments) for student in (students or course.students(name))]
    missing = [f"submitted/{student}/{name}" for name, student in jobs if not course.submitted(student, name).is_dir()]
    if missing:
        raise FileNotFoundError(f"no submission at {', '.join(missing)} (under {root})")
    workers = workers or config.load(root).WORKERS
    outcomes: list[Outcome] = []
    with tqdm(total=len(jobs), desc="autograde", unit="submission") as bar:
        if dask:
            from dask.distributed import Client, LocalCluster
            from dask.distributed import as_completed as dask_completed

            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True) if dask == "local" else None
            with Client(cluster or dask) as client:
                futures = [client.submit(autograde_one, root, name, student, unsandboxed=unsandboxed, pure=False) for name, student in jobs]
                for future in dask_completed(futures):
                    outcomes.append(future.result())
                    bar.update()
            if cluster:
                cluster.close()
        elif workers == 1 or len(jobs) == 1:  # in this process: its nbgrader app and zygote stay warm for the next call
            for name, student in jobs:
                outcomes.append(autograde_one(root, name, student, unsandboxed=unsandboxed))
                bar.update()
        else:
            with ProcessPoolExecutor(max_workers=workers, initializer=warm, initargs=(root, unsandboxed)) as pool:
                futures = [pool.submit(autograde_one, root, name, student, unsandboxed=unsandboxed) for name, student in jobs]
                for future in as_completed(futures):
                    outcomes.append(future.result())
                    bar.update()
    # a submission that failed beside other workers gets one more, unshared, try
    retried = [autograde_one(root, o.assignment, o.student, unsandboxed=unsandboxed) if not o.ok else o for o in outcomes]
    return sorted(retried, key=lambda o: (o.assignment, o.student))


def feedback(root: Path, names: list[str] | None = None) -> None:
    """`nbgrader generate_feedback` for every autograded submission."""
    for name in tqdm(names or assignments(root), desc="feedback", unit="assignment"):
        nbgrader(root, "generate_feedback", name, "--force")


def export(root: Path, out: Path | None = None) -> tuple[Path, Path]:
    """nbgrader's grade CSV, and a per-question breakdown CSV: one row per graded cell, with the
    misconceptions its feedback named."""
    from .report import collect

    out = Path(out or Course(Path(root)).exports)
    out.mkdir(parents=True, exist_ok=True)
    grades = out / "grades.csv"
    nbgrader(root, "export", "--to", str(grades.resolve()))
    breakdown = out / "questions.csv"
    with breakdown.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["assignment", "student_id", "grade_id", "score", "max_score", "misconceptions"])
        for row in collect(root):
            writer.writerow([row.assignment, row.student, row.grade_id, row.score, row.max_score, " ".join(row.misconceptions)])
    return grades, breakdown
