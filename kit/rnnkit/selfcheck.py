"""What a released notebook imports: `check = checker("<assignment>")`, then `check(name, obj)`.

`check(name, obj)` runs the book's public cases of one check against the expected values stored
with the kit (`public/<assignment>.json`, written by the course's build), names a catalogued
mistake when the answer matches one, and prints what to do: to stdout when every case is right, to
stderr otherwise (so `nbgrader validate` lists the failing checks with their reasons, while the
notebook still runs on). It returns None: the points are given at grading time, by the grader, on
hidden cases only (the public ones earn none: their answers are in this kit). `check.summary()` prints how many checks are right and which are left.
"""
from __future__ import annotations

import contextlib
import sys
import traceback
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

from . import codec, messages
from .checking import Case, Rules, run_cases
from .compare import compare

PUBLIC = Path(__file__).resolve().parent / "public"


@lru_cache(maxsize=None)
def public_half(assignment: str) -> dict[str, Any]:
    """The stored public half of one assignment: its checks (name -> points, rules and book cases)
    and its written answers (name -> points)."""
    path = PUBLIC / f"{assignment}.json"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in PUBLIC.glob("*.json")))
        raise LookupError(f"this kit has no assignment {assignment!r} (it has: {known}); install the kit of your course")
    return codec.loads(path.read_bytes(), trusted=True)


def public_checks(assignment: str) -> dict[str, dict]:
    """The stored checks of one assignment: check name -> points, rules and book cases."""
    return public_half(assignment)["checks"]


def selfcheck(assignment: str, name: str, obj: Any, timeout: float = 10.0):
    """The report of `obj` on the public cases of check `name`. A mistake of another function that
    `name` calls is named only when the student's version of that function (beside `obj` in the
    notebook) gets a public case of its own check wrong."""
    spec = public_checks(assignment)[name]
    rules = Rules(**spec["rules"])
    cases = [(Case(c["args"], c["kwargs"], messages.text("check.case_public", label=messages.case_label(c["label"]))), True, c["expected"]) for c in spec["cases"]]
    stored = {id(case): c["mistakes"] for (case, _, _), c in zip(cases, spec["cases"])}
    callees = spec["callees"]

    @lru_cache(maxsize=None)
    def wrong(function: str) -> bool:
        other = getattr(obj, "__globals__", {}).get(function)
        return callable(other) and (report := selfcheck(assignment, function, other, timeout)).passed < len(report.results)

    def diagnose(got: Any, case: Case) -> tuple[str, ...]:
        return tuple(mistake for mistake, output in stored[id(case)] if compare(got, output, rtol=rules.rtol).ok
                     and (mistake not in callees or wrong(callees[mistake])))

    return run_cases(assignment, name, obj, cases, rules, points=spec["points"], timeout=timeout, diagnose=diagnose)


#: The edition of the notebook whose `checker` was made last in this process (None: `COURSE_LANG`).
_edition: list[str | None] = [None]


def checker(assignment: str, lang: str | None = None) -> Callable[..., None]:
    """The `check` function of one assignment's notebook; `lang` (the notebook's edition, "en" or
    "zh") is the language its checks and summary speak, and so do the notebook's
    `uses_your_functions` cells after it (None: `COURSE_LANG`)."""
    _edition[:] = [lang]
    checks = public_checks(assignment)
    right: dict[str, bool] = {}

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
        right[name] = report.passed == len(report.results)
        if Rules(**checks[name]["rules"]).reveal:
            lines = report.lines(graded=False)
        else:
            verdict = "check.selfcheck_right" if right[name] else "check.selfcheck_wrong"
            lines = [messages.text(verdict, name=name), *report.lines(graded=False)[1:]]
        print("\n".join([*lines, *messages.wrap(messages.text("check.public_note"))]), file=sys.stdout if right[name] else sys.stderr)
        return None

    def summary() -> None:
        """Print how many checks are right so far, and which are left."""
        with messages.speaking(lang):
            print("\n".join(summary_lines(list(checks), right, list(public_half(assignment).get("written", {})))))

    check.summary = summary
    return check


def summary_lines(names: list[str], right: dict[str, bool], written: list[str] = ()) -> list[str]:
    """The notebook's closing summary: `right` checks of `names`, then the ones left (in order),
    then the `written` answers, which are graded by hand."""
    if not right:
        lines = [messages.text("notebook.summary_none")]
    else:
        left = [name for name in names if not right.get(name)]
        lines = [messages.text("notebook.summary", right=len(names) - len(left), total=len(names))]
        if left:
            lines.append(messages.text("notebook.summary_left", names=", ".join(left)))
    if written:
        lines.append(messages.text("notebook.summary_written", names=", ".join(written)))
    return [wrapped for line in lines for wrapped in messages.wrap(line)]


@contextlib.contextmanager
def uses_your_functions():
    """Around a table or plot cell: while a function it calls is still the stub, say which one to
    write first instead of raising (and drop the half-drawn figure), so the notebook runs on."""
    try:
        yield
    except NotImplementedError as error:
        name = traceback.extract_tb(error.__traceback__)[-1].name
        if "matplotlib.pyplot" in sys.modules:
            sys.modules["matplotlib.pyplot"].close("all")
        with messages.speaking(_edition[0]):
            print("\n".join(messages.wrap(messages.text("notebook.needs_function", name=name))))
