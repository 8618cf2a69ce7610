"""Autograding throughput, measured in one run on this machine: stock nbgrader against the project.

    .venv/bin/python benchmarks/autograde.py [--students N] [--assignment NAME] [--workers W]

Both course roots get the same N honest submissions (the reference solution). The stock root runs
nbgrader's default autograde pipeline (its Execute preprocessor: a Jupyter kernel per notebook,
test cells run in the student's process); the project root runs `python -m autograder autograde`
(trusted executor, sandboxed runners forked from a warm zygote, W workers). Printed: seconds per
submission of each, the throughput ratio, whether the grades are equal, the wall time of one
re-graded submission in a warm grader (one that has graded a submission before), the peak memory
of a grading process, and the slowest self-check of each assignment.
"""
from __future__ import annotations

import argparse
import importlib
import io
import resource
import statistics
import sys
import tempfile
import time
from contextlib import redirect_stdout
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rnnkit.selfcheck import selfcheck  # noqa: E402

from autograder import config, report  # noqa: E402
from autograder.assignments import ALL  # noqa: E402
from autograder.course import autograde, nbgrader, prepare, release, warm  # noqa: E402
from autograder.submissions import filled, write_submission  # noqa: E402
from tests.conftest import make_course  # noqa: E402

#: Appended to the stock root's nbgrader_config.py: nbgrader's own autograde pipeline.
STOCK = """
from nbgrader.converters.autograde import Autograde
c.Autograde.autograde_preprocessors = Autograde.class_traits()["autograde_preprocessors"].default()
"""


def honest_class(root: Path, assignment: str, students: int) -> None:
    notebook = root / "release" / assignment / f"{assignment}.ipynb"
    for index in range(students):
        write_submission(root, f"student{index:03d}", assignment, filled(notebook, assignment))


def grades(root: Path) -> dict:
    return {(row.student, row.grade_id): row.score for row in report.collect(root)}


def self_check_seconds() -> dict[str, float]:
    """The slowest public-case self-check of each assignment, in seconds (median of 5 runs)."""
    slowest = {}
    for name, spec in ALL.items():
        solution = importlib.import_module(f"solutions.{name}")
        times = []
        for check in spec.checks:
            runs = []
            for _ in range(5):
                start = time.perf_counter()
                with redirect_stdout(io.StringIO()):
                    selfcheck(name, check.name, getattr(solution, check.name))
                runs.append(time.perf_counter() - start)
            times.append(statistics.median(runs))
        slowest[name] = max(times)
    return slowest


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--students", type=int, default=16)
    parser.add_argument("--assignment", default="ch12_bptt")
    parser.add_argument("--workers", type=int, default=config.load().WORKERS)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        stock_root = make_course(Path(folder) / "stock", [args.assignment])
        with (stock_root / "nbgrader_config.py").open("a") as handle:
            handle.write(STOCK)
        project_root = make_course(Path(folder) / "project", [args.assignment])
        for root in (stock_root, project_root):
            release(root, [args.assignment])
            honest_class(root, args.assignment, args.students)
        start = time.perf_counter()
        nbgrader(stock_root, "autograde", args.assignment)
        stock = (time.perf_counter() - start) / args.students
        start = time.perf_counter()
        outcomes = autograde(project_root, [args.assignment], workers=args.workers)
        project = (time.perf_counter() - start) / args.students
        assert all(o.ok for o in outcomes), [o.log for o in outcomes if not o.ok]
        equal = grades(stock_root) == grades(project_root)
        warm(str(project_root))  # this process as a warm grader: nbgrader app, zygote and assignment ready,
        prepare([args.assignment])  # and one submission graded before the one timed
        autograde(project_root, [args.assignment], students=["student001"], workers=1)
        start = time.perf_counter()
        autograde(project_root, [args.assignment], students=["student000"], workers=1)
        regrade = time.perf_counter() - start
    peak = max(resource.getrusage(who).ru_maxrss for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)) / 1024
    print(f"\n{args.students} honest submissions of {args.assignment}, one run")
    print(f"stock nbgrader autograde (kernel per notebook) : {stock:.2f} s per submission")
    print(f"python -m autograder autograde, {args.workers} workers   : {project:.2f} s per submission")
    print(f"throughput ratio (stock / project)             : {stock / project:.1f}x")
    print(f"grades equal on honest submissions             : {equal}")
    print(f"one re-graded submission, warm grader          : {regrade:.2f} s wall")
    print(f"class of 500, this assignment                  : {500 * project / 60:.1f} min (stock {500 * stock / 60:.1f} min)")
    print(f"peak memory of one grading process             : {peak:.0f} MiB")
    for assignment, seconds in self_check_seconds().items():
        print(f"slowest self-check, {assignment:<16}            : {seconds * 1000:.0f} ms")


if __name__ == "__main__":
    main()
