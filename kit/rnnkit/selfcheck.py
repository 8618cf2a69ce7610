"""What a released notebook imports: `check = checker("<assignment>")`, then `check(name, obj)`.

`check(name, obj)` runs the book's public cases of one check against the expected values stored
with the kit (`public/<assignment>.json`, written by the course's build), names a catalogued
mistake when the answer matches one, and prints what to do: to stdout when every case is right or
the function is still the stub (one quiet line: not started), to stderr when an answer is wrong or
crashed. Under `nbgrader validate` (`NBGRADER_EXECUTION=validate`) the not-started line goes to
stderr too, since the validator counts a grade cell as failed only for an error or a stderr output;
so it still lists every unfinished check with its reason, while Run All stays calm. It returns None:
the points are given at grading time, by the grader, on hidden cases only (the public ones earn
none: their answers are in this kit). `check.summary()` prints the notebook's closing summary
(`summary_lines`): the assignment's due date where the course gives one, the checks right and what
they are worth at grading, the ones wrong, not started or not run, the written answers, and once,
that only public cases ran here.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import sys
import traceback
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any, Callable

from . import codec, messages
from .checking import Case, Report, Rules, run_cases
from .compare import explains

PUBLIC = Path(__file__).resolve().parent / "public"


@lru_cache(maxsize=None)
def public_half(assignment: str) -> dict[str, Any]:
    """The stored public half of one assignment: its checks (name -> points, rules and book cases),
    its written answers (name -> points) and, where the course gives one, its due date (`due`:
    `at`, ISO 8601 with the offset of the course's time zone, and `zone`, that zone's name)."""
    path = PUBLIC / f"{assignment}.json"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in PUBLIC.glob("*.json")))
        raise LookupError(
            f"this kit has no assignment {assignment!r} (it has: {known}); install the kit of your course"
        )
    return codec.loads(path.read_bytes(), trusted=True)


def public_checks(assignment: str) -> dict[str, dict]:
    """The stored checks of one assignment: check name -> points, rules and book cases."""
    return public_half(assignment)["checks"]


def selfcheck(assignment: str, name: str, obj: Any, timeout: float | None = None):
    """The report of `obj` on the public cases of check `name`, each call within `timeout` seconds
    (default: the grader's own limit, the course's CALL_TIMEOUT as the kit stores it). A mistake of
    another function that `name` calls is named only when the student's version of that function
    (beside `obj` in the notebook) gets a public case of its own check wrong."""
    spec = public_checks(assignment)[name]
    timeout = public_half(assignment).get("CALL_TIMEOUT", 10.0) if timeout is None else timeout
    rules = Rules(**spec["rules"])
    cases = [
        (
            Case(c["args"], c["kwargs"], messages.text("check.case_public", label=messages.case_label(c["label"]))),
            True,
            c["expected"],
        )
        for c in spec["cases"]
    ]
    stored = {id(case): c["mistakes"] for (case, _, _), c in zip(cases, spec["cases"])}
    callees = spec["callees"]

    @lru_cache(maxsize=None)
    def wrong(function: str) -> bool:
        other = getattr(obj, "__globals__", {}).get(function)
        return callable(other) and (report := selfcheck(assignment, function, other, timeout)).passed < len(
            report.results
        )

    def diagnose(got: Any, case: Case, expected: Any) -> tuple[str, ...]:
        return tuple(
            mistake
            for mistake, output in stored[id(case)]
            if explains(got, output, expected, rtol=rules.rtol) and (mistake not in callees or wrong(callees[mistake]))
        )

    return run_cases(assignment, name, obj, cases, rules, points=spec["points"], timeout=timeout, diagnose=diagnose)


@dataclass(frozen=True)
class SummaryItem:
    """One check as the notebook's closing summary reads it: whether every case is right; how many
    cases of how many are right (in the self-check the public ones, at grading the hidden ones,
    which earn the points); the check's points; the grader's score (None in the self-check); and
    whether the function is still the stub."""

    right: bool
    passed: int
    total: int
    points: float
    score: float | None = None
    stub: bool = False

    @classmethod
    def of(cls, report: Report, *, graded: bool = False) -> "SummaryItem":
        """The outcome of a self-check's report, or (`graded`) of the grader's."""
        right = report.passed == len(report.results)
        if graded:
            hidden = report.hidden
            return cls(
                right, sum(result.ok for result in hidden), len(hidden), report.points, report.score, report.stub
            )
        return cls(right, report.passed, len(report.results), report.points, None, report.stub)


#: The edition of the notebook whose `checker` was made last in this process (None: `COURSE_LANG`).
_edition: list[str | None] = [None]


def validating() -> bool:
    """True while `nbgrader validate` runs the notebook (it sets NBGRADER_EXECUTION=validate)."""
    return os.environ.get("NBGRADER_EXECUTION") == "validate"


def checker(assignment: str, lang: str | None = None, kit: str | None = None) -> Callable[..., None]:
    """The `check` function of one assignment's notebook; `lang` (the notebook's edition, "en" or
    "zh") is the language its checks and summary speak, and so do the notebook's
    `uses_your_functions` cells after it (None: `COURSE_LANG`); `kit`, the version of the kit the
    notebook was released with, which the summary names when this kit is another (`kit_line`)."""
    _edition[:] = [lang]
    checks = public_checks(assignment)
    outcomes: dict[str, SummaryItem] = {}  # in the order the checks first ran: the notebook's, on a Run All

    def check(name: str, obj: Any, hidden: bool = False) -> None:
        with messages.speaking(lang):
            _check(name, obj, hidden)

    def _check(name: str, obj: Any, hidden: bool) -> None:
        if name not in checks:
            raise KeyError(messages.text("check.unknown", name=name, assignment=assignment, known=", ".join(checks)))
        if hidden:
            print(messages.text("check.hidden_at_grading", name=name))
            return None
        report = selfcheck(assignment, name, obj)
        outcomes[name] = outcome = SummaryItem.of(report)
        if report.stub:  # not a failure yet: one quiet line (on stderr for nbgrader validate only)
            print(
                "\n".join(messages.wrap(messages.text("check.not_started", name=name))),
                file=sys.stderr if validating() else sys.stdout,
            )
            return None
        if Rules(**checks[name]["rules"]).reveal:
            lines = report.lines(graded=False)
        else:
            lines = [*messages.wrap(_verdict(name, report)), *report.lines(graded=False)[1:]]
        print("\n".join(lines), file=sys.stdout if outcome.right else sys.stderr)
        return None

    def summary() -> None:
        """Print the notebook's closing summary (`summary_lines`)."""
        with messages.speaking(lang):
            points = {name: spec["points"] for name, spec in checks.items()}
            half = public_half(assignment)
            lines = summary_lines(points, outcomes, half.get("written", {}), due=half.get("due"))
            print("\n".join([*kit_line(kit, installed_version()), *lines]))

    check.summary = summary
    return check


def _verdict(name: str, report: Report) -> str:
    """The head of an exercise's self-check, which shows no expected value: whether the answer agrees
    with the book's (its first public case) and, where the book's case is right and another is not,
    which one."""
    if all(result.ok for result in report.results):
        return messages.text("check.selfcheck_right", name=name)
    if report.results and report.results[0].ok:
        wrong = next(result for result in report.results if not result.ok)
        return messages.text("check.selfcheck_book_right", name=name, case=wrong.label)
    return messages.text("check.selfcheck_wrong", name=name)


#: How a language joins the names of a list (English: ", ").
_SEPARATORS = {"zh": "、"}


def _number(value: float) -> int | float:
    """Points as a student reads them: 3, not 3.0; 0.67, not 0.6667."""
    value = round(float(value), 2)
    return int(value) if value.is_integer() else value


def installed_version() -> str | None:
    """The version of the kit this Python has installed (None where it runs from a source folder)."""
    try:
        return metadata.version("rnn-course-kit")
    except metadata.PackageNotFoundError:
        return None


def kit_line(wanted: str | None, installed: str | None) -> list[str]:
    """The summary's first lines where the kit `installed` is not the version `wanted` (the one the
    notebook was released with): then the due date, points and checks here may not be the course's."""
    if not wanted or not installed or wanted == installed:
        return []
    wheel = f"rnn_course_kit-{wanted}-py3-none-any.whl"
    return messages.wrap(messages.text("notebook.kit_differs", installed=installed, wanted=wanted, wheel=wheel))


def due_line(due: Mapping[str, str]) -> str:
    """The due date as the summary gives it: the wall-clock time of the course's time zone, to the
    minute, and the zone's name ("Due: 2027-03-01 23:59 (Europe/Berlin).")."""
    at = dt.datetime.fromisoformat(due["at"])
    return messages.text("notebook.summary_due", due=at.strftime("%Y-%m-%d %H:%M"), zone=due["zone"])


def summary_lines(
    points: dict[str, float],
    outcomes: dict[str, SummaryItem],
    written: dict[str, float] | None = None,
    *,
    graded: bool = False,
    due: Mapping[str, str] | None = None,
) -> list[str]:
    """The notebook's closing summary, wrapped at `messages.WIDTH`.

    `points` holds every check of the notebook (name -> points); `outcomes` those that ran, in
    notebook order (the ones that did not run follow in the order of `points`); `written` the
    written answers (name -> points, in notebook order), graded by hand. In the student's notebook
    (`graded` False) the first line counts the checks whose public cases are all right and the
    points they are worth at grading, of the notebook's points (checks and written answers); at
    grading (`graded`, the outcomes the grader's) the points the checks earned. Then the checks
    right, wrong (with their public cases right, or at grading their points), not started (the
    stub) and not run, in notebook order; the written answers with their points; and in the
    notebook, once, that only public cases ran there. With `due` (the kit's due date of the
    assignment: `at` and `zone`), the summary starts with it (`due_line`)."""
    written = dict(written or {})
    sep = _SEPARATORS.get(messages.language(), ", ")
    order = [*outcomes, *(name for name in points if name not in outcomes)]
    worth = {name: outcomes[name].points if name in outcomes else points.get(name, 0.0) for name in order}

    def listed(message_id: str, names: list[str]) -> list[str]:
        return [messages.text(message_id, names=sep.join(names))] if names else []

    lines: list[str] = [due_line(due)] if due else []
    if not outcomes:
        lines.append(messages.text("notebook.summary_none"))
    else:
        right = [name for name in order if name in outcomes and outcomes[name].right]
        wrong = [name for name in order if name in outcomes and not outcomes[name].right and not outcomes[name].stub]
        earned = sum(outcomes[name].score or 0.0 for name in outcomes) if graded else sum(worth[name] for name in right)
        every = sum(worth.values()) + sum(written.values())
        lines.append(
            messages.text("notebook.summary", right=len(right), total=len(order))
            + messages.text(
                "notebook.summary_scored" if graded else "notebook.summary_worth",
                points=_number(earned),
                all=_number(every),
            )
        )
        lines += listed("notebook.summary_right", right)
        if graded:
            items = [
                messages.text(
                    "notebook.summary_wrong_item_graded",
                    name=name,
                    score=_number(outcomes[name].score or 0.0),
                    points=_number(outcomes[name].points),
                )
                for name in wrong
            ]
        else:
            items = [
                messages.text(
                    "notebook.summary_wrong_item", name=name, passed=outcomes[name].passed, total=outcomes[name].total
                )
                for name in wrong
            ]
        lines += listed("notebook.summary_wrong", items)
        lines += listed("notebook.summary_stub", [name for name in order if name in outcomes and outcomes[name].stub])
        lines += listed("notebook.summary_not_run", [name for name in order if name not in outcomes])
    items = [messages.text("notebook.points_item", name=name, count=_number(value)) for name, value in written.items()]
    lines += listed("notebook.summary_written_graded" if graded else "notebook.summary_written", items)
    if outcomes and not graded:
        lines.append(messages.text("check.public_note"))
    return [wrapped for line in lines for wrapped in messages.wrap(line)]


@contextlib.contextmanager
def uses_your_functions():
    """Around a table or plot cell: while a function it calls is still the stub, say which one to
    write first instead of raising, so the notebook runs on. Whatever a function raises, the
    half-drawn figure is dropped: no plot is shown without its words (`rnnkit.plots.show_plot`)."""
    try:
        yield
    except NotImplementedError as error:
        _drop_figures()
        name = traceback.extract_tb(error.__traceback__)[-1].name
        with messages.speaking(_edition[0]):
            print("\n".join(messages.wrap(messages.text("notebook.needs_function", name=name))))
    except BaseException:
        _drop_figures()
        raise


def _drop_figures() -> None:
    """Close every open matplotlib figure (where pyplot is in use), so none is shown."""
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")
