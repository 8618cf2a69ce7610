"""Every catalogued mistake fails at least one public case of the check it replaces, so a student's
self-check (which runs the public cases only) already shows it; the hidden cases at grading are then
no surprise. A check may instead declare a mistake hidden-only (`Check.hidden_catches`) when no
public case can tell it apart; the self-check then says that hidden cases will test it.

The public cases are run as the kit runs them: `rnnkit.checking.run_cases` with the check's rules,
once from the spec (`public_cases`) and once from the committed kit data (`kit/rnnkit/public/`).
"""

import numpy as np
import pytest

from autograder.assignments import get
from autograder.authoring import kit
from autograder.coursedir.config import load
from autograder.grading.checks import _public_cases, hidden_cases, public_cases
from rnnkit import codec
from rnnkit.checking import Case, Rules, run_cases
from rnnkit.compare import compare

from ..attempts import attempt
from ..conftest import ASSIGNMENTS

HIDDEN = load().HIDDEN_CASES
GRADED = [(name, check) for name in ASSIGNMENTS for check in get(name).graded]
MISTAKES = [(assignment, entry) for assignment in ASSIGNMENTS for entry in get(assignment).mistakes()]


def _hidden_only(assignment: str, check_name: str) -> tuple[str, ...]:
    return tuple(getattr(get(assignment).check(check_name), "hidden_catches", ()))


def _stored(assignment: str, check_name: str) -> tuple[list, dict]:
    """The committed kit data of one check: (case, public, expected) triples and its rules."""
    spec = codec.loads((kit.KIT / "rnnkit" / "public" / f"{assignment}.json").read_bytes(), trusted=True)["checks"][
        check_name
    ]
    cases = [(Case(c["args"], c["kwargs"], c["label"]), True, c["expected"]) for c in spec["cases"]]
    return cases, spec


def _failed(report) -> list[str]:
    return [result.label for result in report.results if not result.ok]


@pytest.mark.parametrize("assignment, entry", MISTAKES, ids=[f"{a}.{e.id}" for a, e in MISTAKES])
def test_each_mistake_fails_a_public_case_of_its_check(assignment, entry):
    check = get(assignment).check(entry.function)
    if entry.id in _hidden_only(assignment, check.name):
        return
    fn = entry.namespace()[check.name]
    report = run_cases(assignment, check.name, fn, public_cases(check), check.rules, timeout=0)
    assert _failed(report), (
        f"{assignment}.{check.name}: the catalogued mistake {entry.id} passes every public case; "
        f"add a public case that catches it, or declare it in the check's hidden_catches"
    )


@pytest.mark.parametrize("assignment, entry", MISTAKES, ids=[f"{a}.{e.id}" for a, e in MISTAKES])
def test_the_committed_kit_data_catches_and_names_each_mistake(assignment, entry):
    """What the installed kit reads: the mistake fails a stored case and is named there."""
    if entry.id in _hidden_only(assignment, entry.function):
        return
    cases, spec = _stored(assignment, entry.function)
    rules = Rules(**spec["rules"])
    stored = {id(case): outputs for (case, _, _), outputs in zip(cases, (c["mistakes"] for c in spec["cases"]))}

    def diagnose(got, case, expected):
        return tuple(mistake for mistake, output in stored[id(case)] if compare(got, output, rtol=rules.rtol).ok)

    fn = entry.namespace()[entry.function]
    report = run_cases(assignment, entry.function, fn, cases, rules, timeout=0, diagnose=diagnose)
    assert _failed(report), (
        f"{assignment}.{entry.function}: {entry.id} passes every case stored in the kit (regenerate it?)"
    )
    assert entry.id in report.misconceptions, (entry.id, report.misconceptions)


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_hidden_only_declarations_name_catalogued_mistakes_that_really_pass_the_public_cases(assignment):
    for check in get(assignment).checks:
        declared = _hidden_only(assignment, check.name)
        own = {entry.id: entry for entry in get(assignment).for_check(check.name)}
        for mistake_id in declared:
            assert mistake_id in own, f"{check.name}.hidden_catches names {mistake_id!r}, not a mistake of this check"
            report = run_cases(
                assignment,
                check.name,
                own[mistake_id].namespace()[check.name],
                public_cases(check),
                check.rules,
                timeout=0,
            )
            assert not _failed(report), (
                f"{check.name}: {mistake_id} is declared hidden-only but fails {_failed(report)}"
            )


def _square(value) -> bool:
    return isinstance(value, np.ndarray) and value.ndim == 2 and value.shape[0] == value.shape[1] > 1


def _transposed_answers(expected) -> list:
    """The answer with one square matrix of it transposed (the answer itself, an entry of a tuple, a
    value of a dict), one per such matrix: an answer read by column instead of by row."""
    if isinstance(expected, dict):
        return [{**expected, key: value.T} for key, value in expected.items() if _square(value)]
    if isinstance(expected, tuple):
        return [expected[:i] + (value.T,) + expected[i + 1 :] for i, value in enumerate(expected) if _square(value)]
    return [expected.T] if _square(expected) else []


def _transposed_inputs(check, case) -> list:
    """The reference's answer on the case with one square matrix input transposed, one per such input."""
    return [
        check.reference(*case.args[:i], value.T, *case.args[i + 1 :], **case.kwargs)
        for i, value in enumerate(case.args)
        if _square(value)
    ]


def _signs(case) -> set[tuple[int, str]]:
    """Which number inputs are negative or above 1 in size: where a dropped sign or scale could hide."""
    kinds = set()
    for i, value in enumerate(case.args):
        if isinstance(value, (int, float, np.floating)) and not isinstance(value, bool):
            kinds |= {(i, kind) for kind, holds in (("negative", value < 0), ("above 1", abs(value) > 1)) if holds}
    return kinds


@pytest.mark.parametrize("pair", GRADED, ids=[f"{a}-{c.name}" for a, c in GRADED])
def test_what_a_transpose_or_a_sign_could_hide_a_public_case_shows_where_hidden_cases_do(pair):
    """Beyond the catalogue: any matrix read by column instead of by row (an input or the answer) that a
    hidden case of three attempts tells apart, a public case tells apart too, so the self-check sees it
    first; and a number input is negative, or above 1 in size, in a public case wherever a hidden one is."""
    name, check = pair
    public = [(case, expected) for case, _, expected in _public_cases(check)]
    hidden = [
        (case, expected)
        for student in ("s1", "s2", "s3")
        for case, _, expected in hidden_cases(get(name), check, attempt(student), HIDDEN)
    ]

    def differs(got, expected) -> bool:
        return not compare(got, expected, exact=check.exact, rtol=check.rtol).ok

    for kind, mutate in (
        ("answer", lambda case, e: _transposed_answers(e)),
        ("input", lambda case, e: _transposed_inputs(check, case)),
    ):

        def told(cases):
            return any(differs(got, expected) for case, expected in cases for got in mutate(case, expected))

        if told(hidden) and not told(public):
            pytest.fail(f"{name}.{check.name}: a transposed {kind} fails hidden cases and no public case")
    shown = set().union(*(_signs(case) for case, _ in public))
    unshown = set().union(*(_signs(case) for case, _ in hidden)) - shown
    assert not unshown, f"{name}.{check.name}: (input, kind) in hidden cases only: {sorted(unshown)}"
