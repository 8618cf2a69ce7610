"""Checks, the private half: exact references, hidden-case drawers and grading.

A check is named like the function (or exercise) it grades; that name is also the nbgrader
grade id, the key of its points, and the `function` of its mistakes. The kit (`rnnkit`) holds the
public half: the cases' comparison, the report and the self-check.
"""

from __future__ import annotations

import copy
import dataclasses
import random
import warnings
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any, Callable

import numpy as np

from rnnkit import messages
from rnnkit.checking import Case, Report, Rules, run_cases
from rnnkit.compare import compare, explains
from rnnkit.helpers import CALLS

from ..sandbox import timings
from ..vocabulary import catalogue
from ..vocabulary.spec import Assignment, Check
from .attempts import Attempt
from .result import Trace, stored


def mistaken_output(entry: catalogue.Mistake, check: Check, case: Case) -> Any:
    """What the check's function returns on `case` with the mistake in place (None if it crashes)."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return CALLS[check.call](
                entry.namespace()[check.name], copy.deepcopy(case.args), copy.deepcopy(case.kwargs)
            )
    except Exception:
        return None


def diagnose(
    spec: Assignment, check: Check, got: Any, case: Case, expected: Any, wrong: Callable[[str], bool]
) -> tuple[str, ...]:
    """The catalogued mistakes whose output on `case` explains the student's (`rnnkit.compare.explains`:
    equal to it, or in each wrong part of a record), or that recognise what
    the student's wrong value does (`Mistake.recognise`, the check's own mistakes): the check's own,
    and a mistake of a function it calls only where `wrong(function)`, the student's version of it
    failing its own public cases (own mistakes first, as `catalogue.for_check` orders them)."""
    return tuple(
        entry.id
        for entry in spec.for_check(check.name)
        if (
            (entry.function == check.name and entry.recognise is not None and entry.recognise(got, case, expected))
            or (
                (output := mistaken_output(entry, check, case)) is not None
                and explains(got, output, expected, rtol=check.rtol)
            )
        )
        and (entry.function == check.name or wrong(entry.function))
    )


#: The submission's function of a name, called as a check calls it (`Check.call`), or None.
Functions = Callable[[str, str], "Callable | None"]


def fails_public_cases(spec: Assignment, name: str, functions: Functions, timeout: float) -> bool:
    """True when the submission's function `name` gets a public case of its own check wrong (False
    when the submission has no such function)."""
    check = spec.check(name)
    other = functions(name, check.call)
    if not callable(other):
        return False
    report = run_cases(spec.name, name, other, public_cases(check), called_here(check.rules, other), timeout=timeout)
    return report.passed < len(report.results)


def called_here(rules: Rules, fn: Callable) -> Rules:
    """A check's `rules` as `fn` is called here: a function that calls itself the check's way (one in
    the sandbox: `RemoteFunction.holds_call`) is called plainly."""
    return dataclasses.replace(rules, call="plain") if getattr(fn, "holds_call", False) else rules


def public_cases(check: Check, *, labelled: bool = True) -> list[tuple[Case, bool, Any]]:
    """The book's cases with their expected values (the same for every student: computed once per
    process; the inputs handed out as copies), labelled for messages in the course language unless
    `labelled` is False (the kit stores the bare labels and labels them where it runs)."""
    return [
        (
            Case(
                copy.deepcopy(case.args),
                copy.deepcopy(case.kwargs),
                messages.text("check.case_public", label=messages.case_label(case.label)) if labelled else case.label,
            ),
            public,
            expected,
        )
        for case, public, expected in _public_cases(check)
    ]


@lru_cache(maxsize=None)
def _public_cases(check: Check) -> list[tuple[Case, bool, Any]]:
    return [(c, True, check.expected(c)) for c in check.public()]


@lru_cache(maxsize=None)
def public_keys(check: Check) -> frozenset[str]:
    """The inputs and the answers of the check's public cases (`inputs_key`, `value_key`)."""
    return frozenset(
        key for case, _, expected in _public_cases(check) for key in (inputs_key(case), value_key(expected))
    )


def value_key(value: Any) -> str:
    """A value by what it holds, whatever holds it (arrays and lists, tuples, Fractions and floats
    alike), to tell a draw that repeats a public case's inputs or answer."""

    def canonical(value):
        if isinstance(value, np.ndarray):
            return canonical(value.tolist())
        if isinstance(value, (list, tuple, set, frozenset)):
            return [
                canonical(item) for item in (sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value)
            ]
        if isinstance(value, dict):
            return sorted((str(key), canonical(item)) for key, item in value.items())
        if value is None or isinstance(value, (bool, str)):
            return value
        if isinstance(value, (int, float, Fraction, np.number)):
            return float(value)
        return repr(value)  # a Real reference by its digits; a given helper by its state

    return repr(canonical(value))


def inputs_key(case: Case) -> str:
    """The inputs of a case by value (`value_key`)."""
    return value_key([list(case.args), case.kwargs])


@dataclass(frozen=True)
class Draw:
    """One hidden case of an attempt: the case, its exact reference, and the branch it was drawn for
    ("" for an ordinary draw)."""

    case: Case
    expected: Any
    branch: str = ""


def hidden_draws(spec: Assignment, check: Check, attempt: Attempt, count: int, max_tries: int = 200) -> list[Draw]:
    """`count` draws of one attempt (`Attempt.seed`) with their references (none when `count` is 0),
    led by one draw of each of the check's branches that no public case shows (`Check.branches`: the
    count grows where they outnumber it). A draw that repeats a public case's inputs or answer, that
    is not in its branch, or on which any catalogued mistake is right, is drawn again (a branch on
    which a mistake is always right belongs in a public case)."""
    if check.draw is None or count <= 0:
        return []
    with timings.phase("screening"):
        return _screened(spec, check, attempt, count, max_tries)


def _screened(spec: Assignment, check: Check, attempt: Attempt, count: int, max_tries: int) -> list[Draw]:
    rng = random.Random(attempt.seed(spec.name, check.name))
    entries = spec.for_check(check.name)
    public = public_keys(check)
    drawers = [(branch.name, branch.draw, branch.holds) for branch in unshown_branches(check) if branch.draw]
    drawers += [("", check.draw, None)] * max(0, count - len(drawers))
    draws = []
    for index, (branch, draw, holds) in enumerate(drawers):
        for _ in range(max_tries):
            case = draw(rng)
            if inputs_key(case) in public:  # the kit holds its answer
                continue
            expected = check.expected(case)
            if value_key(expected) in public:  # a typed-in book answer would be right
                continue
            if holds is not None and not holds(case, expected):
                continue
            if not any(
                (output := mistaken_output(entry, check, case)) is not None
                and compare(output, expected, exact=check.exact, rtol=check.rtol).ok
                for entry in entries
            ):
                break
        else:
            raise RuntimeError(
                f"{check.name}: no draw {f'of branch {branch} ' if branch else ''}separates every mistake after {max_tries} tries"
            )
        draws.append(
            Draw(Case(case.args, case.kwargs, messages.text("check.case_hidden", index=index + 1)), expected, branch)
        )
    return draws


def hidden_cases(
    spec: Assignment, check: Check, attempt: Attempt, count: int, max_tries: int = 200
) -> list[tuple[Case, bool, Any]]:
    """The (case, public=False, expected) of `hidden_draws`, as `rnnkit.checking.run_cases` takes them."""
    return [(draw.case, False, draw.expected) for draw in hidden_draws(spec, check, attempt, count, max_tries)]


#: What `drawn` calls the branch a case was drawn for (the ordinary draws: `ORDINARY`).
BRANCH, ORDINARY = "branch", "ordinary"


def drawn(draw: Draw, params: tuple[str, ...]) -> dict[str, float | str]:
    """What was drawn for one hidden case, parameter by parameter, for the item analysis
    (`autograder.reporting.variants`): "branch" (the branch drawn for, or "ordinary"), and for each input by
    its parameter name, a number's value ("w"), a sequence's length ("len:xs"), an array's length
    ("len:h") or its shape when it has two axes or more ("shape:X", "4x2x3"). A model, a step
    object or a dict is left out (its sizes show in the inputs drawn with it)."""
    found: dict[str, float | str] = {BRANCH: draw.branch or ORDINARY}
    named = list(zip(params, draw.case.args)) + list(draw.case.kwargs.items())
    for name, value in named:
        if isinstance(value, (bool, np.bool_)):
            continue
        if isinstance(value, (int, float, Fraction, np.integer, np.floating)):
            found[name] = float(value)
        elif isinstance(value, np.ndarray) and value.ndim == 1:
            found[f"len:{name}"] = float(len(value))
        elif isinstance(value, np.ndarray) and value.ndim >= 2:
            found[f"shape:{name}"] = "x".join(map(str, value.shape))
        elif isinstance(value, (list, tuple)):
            found[f"len:{name}"] = float(len(value))
    return found


def unshown_branches(check: Check) -> list:
    """The check's branches that no public case shows (`Branch.holds` on none), in spec order."""
    public = _public_cases(check)
    return [
        branch for branch in check.branches if not any(branch.holds(case, expected) for case, _, expected in public)
    ]


def grade(
    spec: Assignment,
    check: Check,
    fn: Callable,
    *,
    attempt: Attempt,
    hidden: int,
    timeout: float,
    points: float,
    functions: Functions | None = None,
) -> Report:
    """Run `check` on the student's `fn`: the book's public cases, then `hidden` cases of this attempt,
    with the catalogue's diagnosis (`diagnose`, named as `rnnkit.checking.named` says) and the check's
    probes. The points come from the hidden cases alone (`rnnkit.checking.Report.score`). `functions`
    gives the submission's other functions (default: those `fn` sees beside it)."""
    return grade_traced(
        spec, check, fn, attempt=attempt, hidden=hidden, timeout=timeout, points=points, functions=functions
    )[0]


def grade_traced(
    spec: Assignment,
    check: Check,
    fn: Callable,
    *,
    attempt: Attempt,
    hidden: int,
    timeout: float,
    points: float,
    functions: Functions | None = None,
) -> tuple[Report, dict[str, Trace]]:
    """`grade`, and by hidden case label what the result keeps of it (`result.Trace`: `drawn`, the
    expected value and, where it was a wrong value, the student's, both `result.stored`)."""
    draws = hidden_draws(spec, check, attempt, hidden)
    cases = public_cases(check) + [(draw.case, False, draw.expected) for draw in draws]
    functions = functions or (lambda name, call: getattr(fn, "__globals__", {}).get(name))
    wrong = lru_cache(maxsize=None)(lambda name: fails_public_cases(spec, name, functions, timeout))
    got: dict[str, Any] = {}

    def diagnosed(value: Any, case: Case, expected: Any) -> tuple[str, ...]:
        got[case.label] = value
        return diagnose(spec, check, value, case, expected, wrong)

    report = run_cases(
        spec.name,
        check.name,
        fn,
        cases,
        called_here(check.rules, fn),
        points=points,
        timeout=timeout,
        diagnose=diagnosed,
        probes=check.probes,
        params=check.params,
    )
    traces = {
        draw.case.label: Trace(
            drawn(draw, check.params),
            stored(draw.expected),
            stored(got[draw.case.label]) if draw.case.label in got else None,
        )
        for draw in draws
    }
    return report, traces
