"""Autograding throughput and self-check latency, measured in one run on this machine.

    .venv/bin/python benchmarks/autograde.py [--students N] [--assignment NAME] [--workers W]

Reports, for a synthetic class of N students (reference, stub and catalogued mistakes in turn):
seconds per submission with plain sequential `nbgrader autograde` and with the parallel
`python -m autograder autograde` path, their ratio, the extrapolated time for a class of 500, the
peak memory of the grading processes, and the slowest self-check of a released notebook.
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

from autograder import catalogue, config  # noqa: E402
from autograder.assignments import checks_of  # noqa: E402
from autograder.course import autograde, nbgrader, release  # noqa: E402
from autograder.notebook import checker  # noqa: E402
from autograder.submissions import filled, write_submission  # noqa: E402
from tests.conftest import make_course  # noqa: E402


def class_of(root: Path, assignment: str, students: int) -> None:
    """`students` submissions cycling through the reference, the stub and every mistake."""
    notebook = root / "release" / assignment / f"{assignment}.ipynb"
    kinds = [None, "stub", *catalogue.mistakes(assignment)]
    for index in range(students):
        kind = kinds[index % len(kinds)]
        content = None if kind == "stub" else filled(notebook, assignment, kind)
        write_submission(root, f"student{index:03d}", assignment, content)


def self_check_seconds() -> dict[str, float]:
    """The slowest public-case self-check of each assignment, in seconds (median of 5 runs)."""
    slowest = {}
    for assignment in config.load().ASSIGNMENTS:
        solution, check = importlib.import_module(f"solutions.{assignment}"), checker(assignment)
        times = []
        for name in checks_of(assignment):
            runs = []
            for _ in range(5):
                start = time.perf_counter()
                with redirect_stdout(io.StringIO()):
                    check(name, getattr(solution, name))
                runs.append(time.perf_counter() - start)
            times.append(statistics.median(runs))
        slowest[assignment] = max(times)
    return slowest


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--students", type=int, default=16)
    parser.add_argument("--assignment", default="ch12_bptt")
    parser.add_argument("--workers", type=int, default=config.load().WORKERS)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        sequential_root = make_course(Path(folder) / "sequential", [args.assignment])
        parallel_root = make_course(Path(folder) / "parallel", [args.assignment])
        for root in (sequential_root, parallel_root):
            release(root, [args.assignment])
            class_of(root, args.assignment, args.students)
        start = time.perf_counter()
        nbgrader(sequential_root, "autograde", args.assignment)
        sequential = (time.perf_counter() - start) / args.students
        start = time.perf_counter()
        outcomes = autograde(parallel_root, [args.assignment], workers=args.workers)
        parallel = (time.perf_counter() - start) / args.students
    assert all(o.ok for o in outcomes)
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"\n{args.students} submissions of {args.assignment}")
    print(f"sequential nbgrader autograde : {sequential:.2f} s per submission")
    print(f"parallel, {args.workers} workers          : {parallel:.2f} s per submission")
    print(f"speed-up (sequential/parallel): {sequential / parallel:.2f}x")
    print(f"class of 500, this assignment : {500 * parallel / 60:.1f} min parallel, {500 * sequential / 60:.1f} min sequential")
    print(f"peak memory of one grading process: {peak:.0f} MiB")
    for assignment, seconds in self_check_seconds().items():
        print(f"slowest self-check, {assignment:<16}: {seconds * 1000:.0f} ms ({seconds:.3f} of the 1 s budget)")


if __name__ == "__main__":
    main()
