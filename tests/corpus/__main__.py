"""Grade the corpus in a class of its own and print the verdict counts:

    .venv/bin/python -m tests.corpus [--assignments a,b] [--workers N] [--keep DIR] [--reports]

A course is made in a temporary folder (or DIR) as tests/classroom.py makes the shared class (the
committed course files, its short limits), released, given the reference solution and every corpus
pack, autograded through real nbgrader and read back from the gradebook. `--reports` prints the
grader's report of every check on which an entry is not as it should be.
"""

from __future__ import annotations

import argparse
import tempfile
from collections import defaultdict
from pathlib import Path

from . import ENTRIES, entries, pack_of, report_text, summary, verdicts, write_all


def grade(folder: Path, assignments: list[str], workers: int) -> dict:
    from autograder.assignments import get
    from autograder.authoring.submissions import filled, write_submission
    from autograder.commands.course import autograde, release
    from autograder.reporting import classdata

    from ..classroom import LIMITS
    from ..conftest import make_course

    root = make_course(folder / "course", assignments)
    with (root / "course_config.py").open("a") as handle:
        handle.write(LIMITS)
    release(root, assignments)
    for assignment in assignments:
        write_submission(
            root,
            "reference",
            assignment,
            filled(root / "release" / assignment / f"{assignment}.ipynb", get(assignment)),
        )
    write_all(root, assignments)
    autograde(root, assignments, workers=workers)
    table: dict = defaultdict(dict)
    for row in classdata.collect(root):
        table[(row.assignment, row.student)][row.grade_id] = row
    return {"root": root, "table": table}


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.corpus", description=__doc__.splitlines()[0])
    parser.add_argument("--assignments", default=",".join(dict.fromkeys(entry.assignment for entry in ENTRIES)))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--keep", type=Path, help="build the course in this folder and keep it")
    parser.add_argument(
        "--reports", action="store_true", help="print the grader's reports where an entry is not as it should be"
    )
    args = parser.parse_args()
    assignments = args.assignments.split(",")
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch)
        graded = grade(folder, assignments, args.workers)
        reference = {a: graded["table"].get((a, "reference"), {}) for a in assignments}
        lost = {
            a: [g for g, row in rows.items() if row.score < row.max_score and not row.needs_manual]
            for a, rows in reference.items()
        }
        if any(lost.values()):
            print(f"the reference solution lost points: {lost}")
        chosen = entries(assignments)
        found = verdicts(lambda pack: graded["table"].get((pack.assignment, pack.student), {}), chosen)
        print(summary(found))
        if args.reports:
            for v in found:
                if v.good:
                    continue
                pack = pack_of(v.entry)
                checks = (
                    [v.entry.function]
                    if v.entry.kind == "mistake"
                    else [
                        g
                        for g, row in graded["table"].get((pack.assignment, pack.student), {}).items()
                        if row.score < row.max_score
                    ]
                )
                for grade_id in checks:
                    print(
                        f"\n--- {v.entry.name} ({pack.student}) / {grade_id}\n{report_text(graded['root'], v.entry, grade_id)}"
                    )


if __name__ == "__main__":
    main()
