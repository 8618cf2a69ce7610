"""What a released notebook imports: `check = checker("<assignment>")`, then `check(name, obj)`.

`check(name, obj)` runs the book's public cases of one check against the expected values stored
with the kit (`public/<assignment>.json`, written by the course's build), names a catalogued
mistake when the answer matches one, and prints what to do. It returns None: the points are given
at grading time, by the grader, on public and hidden cases.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

from . import codec, messages
from .checking import Case, Rules, run_cases
from .compare import compare

PUBLIC = Path(__file__).resolve().parent / "public"


@lru_cache(maxsize=None)
def public_checks(assignment: str) -> dict[str, dict]:
    """The stored public half of one assignment: check name -> points, rules and book cases."""
    path = PUBLIC / f"{assignment}.json"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in PUBLIC.glob("*.json")))
        raise LookupError(f"this kit has no assignment {assignment!r} (it has: {known}); install the kit of your course")
    return codec.loads(path.read_bytes(), trusted=True)["checks"]


def selfcheck(assignment: str, name: str, obj: Any, timeout: float = 10.0):
    """The report of `obj` on the public cases of check `name`."""
    spec = public_checks(assignment)[name]
    rules = Rules(**spec["rules"])
    cases = [(Case(c["args"], c["kwargs"], c["label"]), True, c["expected"]) for c in spec["cases"]]
    stored = {id(case): c["mistakes"] for (case, _, _), c in zip(cases, spec["cases"])}

    def diagnose(got: Any, case: Case) -> str:
        return next((mistake for mistake, output in stored[id(case)] if compare(got, output, rtol=rules.rtol).ok), "")

    return run_cases(assignment, name, obj, cases, rules, points=spec["points"], timeout=timeout, diagnose=diagnose)


def checker(assignment: str) -> Callable[..., None]:
    """The `check` function of one assignment's notebook."""
    checks = public_checks(assignment)

    def check(name: str, obj: Any, hidden: bool = False) -> None:
        if name not in checks:
            raise KeyError(messages.text("check.unknown", name=name, assignment=assignment, known=", ".join(checks)))
        if hidden:
            print(messages.text("check.hidden_at_grading", name=name))
            return None
        report = selfcheck(assignment, name, obj)
        if Rules(**checks[name]["rules"]).reveal:
            lines = report.lines(graded=False)
        else:
            verdict = "check.selfcheck_right" if report.passed == len(report.results) else "check.selfcheck_wrong"
            lines = [messages.text(verdict, name=name), *report.lines(graded=False)[1:]]
        print("\n".join([*lines, messages.text("check.public_note")]))
        return None

    return check
