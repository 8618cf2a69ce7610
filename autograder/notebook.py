"""What a notebook imports: `check = checker("<assignment>")`, then `check(name, obj)`.

`check(name, obj)` runs the book's public cases (a self-check, well under a second) and
`check(name, obj, hidden=True)` (in hidden test cells) grades public plus seeded hidden cases.
Both print reasons a student can act on and return the points earned, which nbgrader records as
the cell's partial credit.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable

from . import config, messages
from .assignments import checks_of
from .checks import LOCAL, run, student_from_path


def course_root(start: str | os.PathLike | None = None) -> Path:
    """The nearest folder above `start` (default: cwd) that holds course_config.py."""
    here = Path(start or os.getcwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "course_config.py").is_file():
            return folder
    return config.REPO_ROOT


def checker(assignment: str) -> Callable[..., float]:
    """The `check` function for one assignment's notebook."""
    checks = checks_of(assignment)

    def check(name: str, obj: Any, hidden: bool = False) -> float:
        if name not in checks:
            raise KeyError(messages.text("check.unknown", name=name, assignment=assignment, known=", ".join(checks)))
        root, student = course_root(), student_from_path()
        settings = config.load(root)
        target = checks[name]
        if not hidden and student != LOCAL:
            return 0.0  # being autograded: the hidden call in the same cell grades and reports
        report = run(
            assignment,
            target,
            obj,
            student=student,
            hidden=settings.HIDDEN_CASES if hidden else 0,
            timeout=settings.CALL_TIMEOUT,
            points=config.points(assignment, name, root),
        )
        if hidden or target.reveal:
            lines = report.lines(graded=hidden)
        else:
            verdict = "check.selfcheck_right" if report.passed == len(report.results) else "check.selfcheck_wrong"
            lines = [messages.text(verdict, name=name), *report.lines(graded=False)[1:]]
        if not hidden:
            lines.append(messages.text("check.public_note"))
        print("\n".join(lines))
        return report.score

    return check
