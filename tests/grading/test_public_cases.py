"""Every catalogued mistake fails at least one public case of the check it replaces, so a student's
self-check (which runs the public cases only) already shows it; the hidden cases at grading are then
no surprise. A check may instead declare a mistake hidden-only (`Check.hidden_catches`) when no
public case can tell it apart; the self-check then says that hidden cases will test it.

The public cases are run as the kit runs them: `rnnkit.checking.run_cases` with the check's rules,
once from the spec (`public_cases`) and once from the committed kit data (`kit/rnnkit/public/`).
"""

import pytest

from autograder.assignments import get
from autograder.authoring import kit
from autograder.grading.checks import public_cases
from rnnkit import codec
from rnnkit.checking import Case, Rules, run_cases
from rnnkit.compare import compare

from ..conftest import ASSIGNMENTS

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

    def diagnose(got, case):
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
