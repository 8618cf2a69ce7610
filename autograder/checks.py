"""Checks, the private half: exact references, hidden-case drawers and grading.

A check is named like the function (or exercise) it grades; that name is also the nbgrader
grade id, the key of its points, and the `function` of its mistakes. The kit (`rnnkit`) holds the
public half: the cases' comparison, the report and the self-check.
"""
from __future__ import annotations

import copy
import hashlib
import random
import warnings
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable

import numpy as np
from rnnkit import messages
from rnnkit.checking import Case, Report, Rules, run_cases
from rnnkit.compare import compare
from rnnkit.helpers import CALLS

from . import catalogue
from .sandbox import RemoteFunction
from .symbolic import public_value

__all__ = ["Case", "Check", "grade", "hidden_cases", "public_cases", "public_value"]


@dataclass(frozen=True)
class Check:
    """One graded function.

    `reference(*args, **kwargs)` is the exact SymPy engine with the student function's signature;
    `public()` lists the book's cases; `draw(rng)` makes one hidden case; `points` are the check's
    points (course_config.POINTS may override them); `exact`, `rtol`, `reveal` and `call` are the
    comparison rules (`rnnkit.checking.Rules`). `probes` are causal/leakage probes (see
    `autograder.probes`): each gets `run(case) -> output`, which calls the student's function
    safely, and the case; it returns None or a failure sentence.
    """

    name: str
    reference: Callable[..., Any]
    public: Callable[[], list[Case]]
    points: float = 1
    draw: Callable[[random.Random], Case] | None = None
    exact: bool = False
    rtol: float | None = None
    reveal: bool = True
    call: str = "plain"
    probes: tuple[Callable, ...] = ()

    @property
    def rules(self) -> Rules:
        return Rules(self.exact, self.rtol, self.reveal, self.call)

    def expected(self, case: Case) -> Any:
        """The exact reference for one case, as the kit compares it."""
        return public_value(self.reference(*copy.deepcopy(case.args), **copy.deepcopy(case.kwargs)))


def mistaken_output(entry: catalogue.Mistake, check: Check, case: Case) -> Any:
    """What the check's function returns on `case` with the mistake in place (None if it crashes)."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return CALLS[check.call](entry.namespace()[check.name], copy.deepcopy(case.args), copy.deepcopy(case.kwargs))
    except Exception:
        return None


def diagnose(assignment: str, check: Check, got: Any, case: Case, wrong: Callable[[str], bool]) -> tuple[str, ...]:
    """The catalogued mistakes whose output on `case` equals the student's: the check's own, and a
    mistake of a function it calls only where `wrong(function)`, the student's version of it failing
    its own public cases (own mistakes first, as `catalogue.for_check` orders them)."""
    return tuple(entry.id for entry in catalogue.for_check(assignment, check.name)
                 if (output := mistaken_output(entry, check, case)) is not None and compare(got, output, rtol=check.rtol).ok
                 and (entry.function == check.name or wrong(entry.function)))


def fails_public_cases(assignment: str, name: str, fn: Callable, timeout: float) -> bool:
    """True when the student's function `name`, from the same submission as `fn`, gets a public case
    of its own check wrong (False when the submission has no such function)."""
    from .assignments import get

    other = fn.session.function(name, fn.timeout) if isinstance(fn, RemoteFunction) else getattr(fn, "__globals__", {}).get(name)
    if not callable(other):
        return False
    check = get(assignment).check(name)
    report = run_cases(assignment, name, other, public_cases(check), check.rules, timeout=timeout)
    return report.passed < len(report.results)


def seed(student: str, assignment: str, check: str) -> int:
    """A stable 64-bit seed for one student's hidden cases of one check."""
    digest = hashlib.sha256(f"{student}\x1f{assignment}\x1f{check}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def public_cases(check: Check, *, labelled: bool = True) -> list[tuple[Case, bool, Any]]:
    """The book's cases with their expected values (the same for every student: computed once per
    process; the inputs handed out as copies), labelled for messages in the course language unless
    `labelled` is False (the kit stores the bare labels and labels them where it runs)."""
    return [(Case(copy.deepcopy(case.args), copy.deepcopy(case.kwargs),
                  messages.text("check.case_public", label=messages.case_label(case.label)) if labelled else case.label), public, expected)
            for case, public, expected in _public_cases(check)]


@lru_cache(maxsize=None)
def _public_cases(check: Check) -> list[tuple[Case, bool, Any]]:
    return [(c, True, check.expected(c)) for c in check.public()]


def hidden_cases(assignment: str, check: Check, student: str, count: int, max_tries: int = 200) -> list[tuple[Case, bool, Any]]:
    """`count` seeded draws with their references; a draw on which any catalogued mistake is
    right is drawn again."""
    if check.draw is None:
        return []
    rng = random.Random(seed(student, assignment, check.name))
    entries = catalogue.for_check(assignment, check.name)
    cases = []
    for index in range(count):
        for _ in range(max_tries):
            case = check.draw(rng)
            expected = check.expected(case)
            if not any(
                (output := mistaken_output(entry, check, case)) is not None
                and compare(output, expected, exact=check.exact, rtol=check.rtol).ok
                for entry in entries
            ):
                break
        else:
            raise RuntimeError(f"{check.name}: no draw separates every mistake after {max_tries} tries")
        cases.append((Case(case.args, case.kwargs, messages.text("check.case_hidden", index=index + 1)), False, expected))
    return cases


def grade(assignment: str, check: Check, fn: Callable, *, student: str, hidden: int, timeout: float, points: float) -> Report:
    """Run `check` on the student's `fn`: public cases, then `hidden` seeded cases, with the
    catalogue's diagnosis (`diagnose`, named as `rnnkit.checking.named` says) and the check's probes."""
    cases = public_cases(check) + hidden_cases(assignment, check, student, hidden)
    wrong = lru_cache(maxsize=None)(lambda name: fails_public_cases(assignment, name, fn, timeout))
    return run_cases(assignment, check.name, fn, cases, check.rules, points=points, timeout=timeout,
                     diagnose=lambda got, case: diagnose(assignment, check, got, case, wrong), probes=check.probes)
