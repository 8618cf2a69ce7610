"""A grade counts only what the student could not read: points come from hidden cases alone, drawn
per attempt from the course secret, never repeating a public case.

Tried as a student who wants the points without the work: one whose functions look every answer up
in the kit's data (falling back to the book's printed answer), and one who pastes every expected
value the feedback ever showed into the next attempt. Both earn nothing.
"""

from __future__ import annotations

import copy
import datetime
import os
import stat
from pathlib import Path

import numpy as np
import pytest

from autograder.assignments import ALL, get
from autograder.coursedir.config import REPO_ROOT, load
from autograder.grading import attempts, checks, reveal
from autograder.grading.attempts import Attempt, NoSecret, create_secret, read_secret
from autograder.grading.checks import hidden_cases, inputs_key, public_cases, value_key
from autograder.grading.result import HiddenFailure
from rnnkit import messages
from rnnkit.checking import Case
from rnnkit.compare import Real

from ..attempts import SECRET, attempt
from ..conftest import ASSIGNMENTS

HIDDEN = load().HIDDEN_CASES


def _graded(assignment: str):
    return [check for check in ALL[assignment].checks if check.graded]


def _grade(assignment, check, fn, at: Attempt):
    return checks.grade(
        get(assignment), check, fn, attempt=at, hidden=HIDDEN, timeout=5, points=ALL[assignment].points(check.name)
    )


# --------------------------------------------------------------------------- the secret
def test_the_first_release_makes_a_private_secret_and_keeps_it(tmp_path: Path):
    path = create_secret(tmp_path)
    value = read_secret(tmp_path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600 and len(value) >= 64
    assert create_secret(tmp_path) == path and read_secret(tmp_path) == value  # a second release keeps it


def test_grading_without_a_secret_says_what_to_do(tmp_path: Path):
    with pytest.raises(NoSecret, match="python -m autograder release"):
        read_secret(tmp_path)
    (tmp_path / attempts.SECRET_FILE).write_text("short\n")
    with pytest.raises(NoSecret, match="too short"):
        read_secret(tmp_path)


def test_the_secret_stays_out_of_git_and_the_kit():
    assert attempts.SECRET_FILE in (REPO_ROOT / ".gitignore").read_text().split()
    assert not list((REPO_ROOT / "kit").rglob(attempts.SECRET_FILE))


# --------------------------------------------------------------------------- seeds
def test_each_part_of_an_attempt_changes_the_seed_and_the_same_attempt_keeps_it():
    base = attempt("ann", 1, "d1")
    variants = [
        attempt("bob", 1, "d1"),
        attempt("ann", 2, "d1"),
        attempt("ann", 1, "d2"),
        attempt("ann", 1, "d1", secret=b"x" * 64),
    ]
    seed = base.seed("ch12_bptt", "bptt_scalar")
    assert seed == attempt("ann", 1, "d1").seed("ch12_bptt", "bptt_scalar")
    assert (
        len(
            {
                seed,
                base.seed("ch12_bptt", "sgd_update"),
                base.seed("ch12_gates", "bptt_scalar"),
                *(v.seed("ch12_bptt", "bptt_scalar") for v in variants),
            }
        )
        == 7
    )


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_two_attempts_draw_different_cases_and_a_regrade_the_same(assignment):
    for check in _graded(assignment):
        first = [inputs_key(case) for case, _, _ in hidden_cases(get(assignment), check, attempt("ann", 1), 3)]
        again = [inputs_key(case) for case, _, _ in hidden_cases(get(assignment), check, attempt("ann", 1), 3)]
        other = [inputs_key(case) for case, _, _ in hidden_cases(get(assignment), check, attempt("ann", 2), 3)]
        assert first == again, check.name
        assert first != other, check.name


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_without_the_course_secret_the_draws_cannot_be_reproduced(assignment):
    """The instructor package alone (every drawer, every seed input but the secret) draws other cases."""
    for check in _graded(assignment):
        real = [inputs_key(case) for case, _, _ in hidden_cases(get(assignment), check, attempt("ann", 1), 3)]
        for guess in (b"", b"0" * 64, SECRET[:-1]):
            assert real != [
                inputs_key(case)
                for case, _, _ in hidden_cases(get(assignment), check, attempt("ann", 1, secret=guess), 3)
            ], check.name


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_no_hidden_case_repeats_a_public_ones_inputs_or_answer(assignment):
    for check in _graded(assignment):
        public = {key for case, _, expected in public_cases(check) for key in (inputs_key(case), value_key(expected))}
        for student in ("a", "b", "c", "d"):
            for case, _, expected in hidden_cases(get(assignment), check, attempt(student), HIDDEN):
                assert inputs_key(case) not in public and value_key(expected) not in public, check.name


# --------------------------------------------------------------------------- points only on unseen cases
def _typed_in(value):
    """An expected value as a student types it in: a transcendental reference as its float."""
    if isinstance(value, Real):
        return float(value)
    if isinstance(value, np.ndarray) and value.dtype == object:
        return np.array([_typed_in(item) for item in value.ravel()]).reshape(value.shape)
    if isinstance(value, dict):
        return {key: _typed_in(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_typed_in(item) for item in value)
    return copy.deepcopy(value)


def _lookup(table: dict, fallback):
    """A student function that answers from `table` (inputs -> expected value), else `fallback`."""

    def fn(*args, **kwargs):
        return _typed_in(table.get(inputs_key(Case(args, kwargs)), fallback))

    return fn


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_answers_looked_up_in_the_kit_earn_nothing(assignment):
    """Every public case right (the kit stores its expected value), the book's answer for the rest:
    full marks on the self-check's cases, no point at all."""
    for check in _graded(assignment):
        book = public_cases(check)
        fn = _lookup({inputs_key(case): expected for case, _, expected in book}, book[0][2])
        report = _grade(assignment, check, fn, attempt("looker"))
        if not check.probes:  # a probe calls the function on inputs of its own, which no table holds
            assert all(result.ok for result in report.results if result.public), (
                check.name,
                [r.message for r in report.results if r.public],
            )
        assert report.score == 0, (check.name, report.score)


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_pasting_every_shown_value_into_the_next_attempt_gains_nothing(assignment):
    """Six attempts' feedback, its expected values shown ("always"), pasted into a lookup table: on
    the attempt it came from the table scores, on the next one it earns nothing."""
    for check in _graded(assignment):
        table = {inputs_key(case): expected for case, _, expected in public_cases(check)}
        fallback = public_cases(check)[0][2]
        for number in range(6):
            at = attempt("harvester", number + 1)
            report = _grade(assignment, check, _lookup(table, fallback), at)
            shown = report.first_hidden_failure
            if shown is not None:  # what the feedback shows: the first wrong hidden case, its inputs and expected value
                drawn = {
                    f"hidden case {index + 1}": case
                    for index, (case, _, _) in enumerate(hidden_cases(get(assignment), check, at, HIDDEN))
                }
                case = drawn[shown.label]
                table[inputs_key(case)] = check.expected(case)
        assert len(table) > len(public_cases(check)), check.name
        if not check.probes:  # (a probe's own inputs are in no table: there even the same attempt earns nothing)
            assert _grade(assignment, check, _lookup(table, fallback), attempt("harvester", 1)).score > 0, check.name
        public = {inputs_key(case): expected for case, _, expected in public_cases(check)}
        later = attempt(
            "harvester", 7
        )  # what the harvested values earn there: what guessing does, give or take one case
        gained = (
            _grade(assignment, check, _lookup(table, fallback), later).score
            - _grade(assignment, check, _lookup(public, fallback), later).score
        )
        assert gained <= ALL[assignment].points(check.name) / HIDDEN + 1e-3, (
            check.name
        )  # (a check over few inputs, `choose`, may draw one again)


def test_a_wrong_book_case_gates_the_hidden_points():
    """Always rescaling is right on every hidden case (drawn above the norm, where both catalogued
    clipping mistakes are right too) and wrong on the book's case under the norm: no point."""
    import numpy as np

    def always_rescale(grads, max_norm):
        norm = np.sqrt(sum(float(np.sum(np.square(g))) for g in grads))
        return [np.array(g, dtype=float) * (max_norm / norm) for g in grads]

    check = ALL["ch12_bptt"].check("clip_by_global_norm")
    report = _grade("ch12_bptt", check, always_rescale, attempt())
    assert all(result.ok for result in report.hidden) and report.gated and report.score == 0
    assert "No points until every book case below is right" in " ".join(
        line.strip() for line in report.lines(graded=True)
    )


def test_public_cases_earn_no_points_and_hidden_ones_all_of_them():
    assignment, check = "ch12_bptt", ALL["ch12_bptt"].check("sgd_update")
    sgd_update = ALL["ch12_bptt"].solution().sgd_update

    report = _grade(assignment, check, sgd_update, attempt())
    assert report.score == report.points and len(report.hidden) == HIDDEN
    only_public = checks.grade(get(assignment), check, sgd_update, attempt=attempt(), hidden=0, timeout=5, points=1)
    assert only_public.passed == len(only_public.results) and only_public.score == 0


# --------------------------------------------------------------------------- what the feedback shows
def test_the_expected_value_is_shown_as_the_course_allows():
    now = datetime.datetime(2026, 12, 1, 12, 0)
    past, future = now - datetime.timedelta(days=1), now + datetime.timedelta(days=1)
    assert not any(reveal.allows("never", due, now) for due in (None, past, future))
    assert all(reveal.allows("always", due, now) for due in (None, past, future))
    assert [reveal.allows("after_due", due, now) for due in (None, past, future)] == [False, True, False]
    assert not any(reveal.allows("public", due, now) for due in (None, past, future))
    with pytest.raises(ValueError, match="public, never, after_due, always"):
        reveal.allows("sometimes", None, now)


def test_public_feedback_keeps_no_hidden_input_and_the_expected_value_goes_below_the_inputs():
    """The policies' edits of a grade cell's report: "public" drops the shown hidden case's inputs,
    "after_due"/"always" add its expected value right below them; the rest is left as it was."""
    failure = HiddenFailure("hidden case 2", "xs=[1, 2], w=1/2", "Its expected value: 3/4.")
    inputs = messages.wrap("    " + messages.text("check.hidden_case_inputs", inputs=failure.inputs))
    text = (
        "\n".join(
            [
                "bptt_scalar: 4/6 hidden cases right.",
                "  - hidden case 2: you returned 1.",
                *inputs,
                "    ... and 1 more.",
            ]
        )
        + "\n"
    )
    public = reveal.without_inputs(text, failure)
    assert failure.inputs not in public and public.splitlines() == [
        line for line in text.splitlines() if line not in inputs
    ]
    shown = reveal.below_inputs(text, failure).splitlines()
    assert shown[1 + len(inputs) + 1].strip() == failure.expected and shown[-1] == "    ... and 1 more."
