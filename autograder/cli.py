"""`python -m autograder <command>`: the instructor's one command line, run from the course root."""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from . import book, course, report, sample
from .notebook import course_root


def _names(args, root: Path) -> list[str]:
    known = course.assignments(root)
    unknown = [name for name in args.assignments if name not in known]
    if unknown:
        raise SystemExit(f"unknown assignment(s) {unknown}; course_config.py lists {known}")
    return args.assignments or known


def _autograde(args, root: Path) -> int:
    try:
        outcomes = course.autograde(root, _names(args, root), students=args.student or None, workers=args.workers, dask=args.dask)
    except FileNotFoundError as error:
        raise SystemExit(str(error)) from None
    failed = [o for o in outcomes if not o.ok]
    for outcome in failed:
        print(f"FAILED {outcome.assignment}/{outcome.student}:\n{outcome.log}", file=sys.stderr)
    if outcomes:
        print(f"autograded {len(outcomes) - len(failed)} of {len(outcomes)} submissions, "
              f"{sum(o.seconds for o in outcomes) / len(outcomes):.2f} s each on a worker")
    return 1 if failed else 0


def _demo(args, root: Path) -> int:
    start = time.perf_counter()
    names = course.assignments(root)
    course.release(root, names)
    for name in names:
        for student, what in sample.write_sample_class(root, name).items():
            print(f"{name:<16} {student:<6} {what}")
    status = _autograde(argparse.Namespace(assignments=names, student=None, workers=args.workers, dask=args.dask), root)
    course.feedback(root, names)
    grades, breakdown = course.export(root)
    rows = report.collect(root)
    html = report.write_html(rows, root / "reports" / "class-report.html")
    print(report.score_table(rows))
    print(f"feedback in feedback/, grades in {grades.relative_to(root)} and {breakdown.relative_to(root)}, report in {html.relative_to(root)}")
    print(f"demo finished in {time.perf_counter() - start:.1f} s")
    return status


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder", description=__doc__)
    parser.add_argument("--root", type=Path, default=None, help="course root (default: the folder above that holds course_config.py)")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("tables", help="recompute the book's tables, print the state log, write run.json").add_argument(
        "--out", type=Path, default=None, help="where to write run.json (default: data/part-iii/run.json)")
    for name, text in (("release", "build source notebooks and run nbgrader generate_assignment"),
                       ("feedback", "nbgrader generate_feedback for autograded submissions")):
        commands.add_parser(name, help=text).add_argument("assignments", nargs="*")
    grade = commands.add_parser("autograde", help="nbgrader autograde every submission, in parallel")
    grade.add_argument("assignments", nargs="*")
    grade.add_argument("--student", action="append", help="only this student (repeatable)")
    for sub in (grade, commands.add_parser("demo", help="release, autograde the sample class, feedback, export, report")):
        sub.add_argument("--workers", type=int, default=None, help="parallel workers (default: course_config.WORKERS)")
        sub.add_argument("--dask", default=None, metavar="ADDRESS", help='run on Dask: "local" for a LocalCluster, or a scheduler address')
    commands.add_parser("export", help="grades.csv (nbgrader) and questions.csv (per question)").add_argument("--out", type=Path, default=None)
    commands.add_parser("report", help="class report (HTML) and the score table").add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    root = (args.root or course_root()).resolve()

    if args.command == "tables":
        return book.main(args.out)
    if args.command == "release":
        course.release(root, _names(args, root))
    elif args.command == "autograde":
        return _autograde(args, root)
    elif args.command == "feedback":
        course.feedback(root, _names(args, root))
    elif args.command == "export":
        for path in course.export(root, args.out):
            print(path)
    elif args.command == "report":
        rows = report.collect(root)
        print(report.score_table(rows))
        print(report.write_html(rows, args.out or root / "reports" / "class-report.html"))
    elif args.command == "demo":
        return _demo(args, root)
    return 0
