"""Similarity as an instructor waits for it: `python -m autograder similarity` on a graded class.

    .venv/bin/python benchmarks/similarity.py [--students 200] [--assignment ch12_bptt] [--workers W]

A fresh course gets `--students` submissions: each function answered by one of its correct
implementations (the reference or a variant of `tests/corpus/`), drawn at random (seeded), one in
ten with a catalogued mistake in place of one function, and one in ten a disguised copy of an
earlier student (`tests/similar.py`'s disguises). They are autograded (timed apart, not part of the
result), then the whole similarity command is timed, interpreter start-up included, and its peak
memory read from the kernel's accounting of that one process. Printed, from this one run: the wall
time, pairs per second, the pairs and flags found, and the peak memory. The target: 200 submissions
in under a minute on 2 cores.
"""

from __future__ import annotations

import argparse
import copy
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from autograder.assignments import get  # noqa: E402
from autograder.authoring.submissions import filled, write_submission  # noqa: E402
from autograder.commands.course import BIN, nbgrader_env, release  # noqa: E402
from tests import similar  # noqa: E402
from tests.conftest import make_course  # noqa: E402

PYTHON = str(BIN / "python")
#: Under a minute for 200 submissions on 2 cores.
TARGET_SECONDS, TARGET_STUDENTS = 60.0, 200


def notebook(root: Path, assignment: str, rng: random.Random):
    """A submission: each function one of its correct implementations, at random; one in ten with a
    catalogued mistake in one function."""
    spec = get(assignment)
    made = filled(
        root / "release" / assignment / f"{assignment}.ipynb",
        spec,
        *([rng.choice(spec.mistakes())] if rng.random() < 0.1 else []),
    )
    return similar.answered(made, assignment, rng.randrange)


def write_class(root: Path, assignment: str, students: int, seed: int = 1) -> None:
    rng = random.Random(seed)
    written = []
    for index in range(students):
        made = (
            similar.disguised(copy.deepcopy(rng.choice(written)))
            if written and rng.random() < 0.1
            else notebook(root, assignment, rng)
        )
        written.append(copy.deepcopy(made))
        write_submission(root, f"student{index:03d}", assignment, made)


def run(command: list[str], root: Path) -> tuple[float, int, str]:
    """Wall seconds, peak resident memory (KiB, of that process alone: `os.wait4`) and output of one
    whole command in the course root."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        process = subprocess.Popen(command, cwd=root, env=nbgrader_env(), stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0), err.seek(0)
        if process.returncode:
            raise SystemExit(f"{' '.join(command)} failed:\n{err.read()[-3000:]}")
        return seconds, usage.ru_maxrss, out.read()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--students", type=int, default=TARGET_STUDENTS)
    parser.add_argument("--assignment", default=similar.ASSIGNMENT)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    a = args.assignment
    with tempfile.TemporaryDirectory() as folder:
        root = make_course(Path(folder) / "course", [a])
        release(root, [a])
        write_class(root, a, args.students)
        graded, _, _ = run([PYTHON, "-m", "autograder", "autograde", a, "--workers", str(args.workers)], root)
        print(f"setup: {args.students} submissions of {a} autograded in {graded:.1f} s (not part of the result)")
        seconds, peak, out = run([PYTHON, "-m", "autograder", "similarity", a], root)
        pairs = args.students * (args.students - 1) // 2
        print(out.strip().splitlines()[-1])
        print(
            f"similarity of {args.students} submissions ({pairs} pairs): {seconds:.1f} s as the user waits, "
            f"{pairs / seconds:.0f} pairs/s, peak memory {peak / 1024:.0f} MiB; target under {TARGET_SECONDS:.0f} s for {TARGET_STUDENTS}: "
            f"{'met' if args.students >= TARGET_STUDENTS and seconds < TARGET_SECONDS else 'not shown by this run'}"
        )


if __name__ == "__main__":
    main()
