"""ch12_bptt: the cases test each
branch of a contract (the eps of a finite difference, copies when clipping), and a caller names a
mistake of a function it calls only when the student's version of that function is wrong."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from autograder.assignments import get
from autograder.coursedir import config
from autograder.grading.checks import Case, diagnose, hidden_cases, public_cases
from autograder.grading.checks import grade as grade_check
from autograder.vocabulary import catalogue
from rnnkit.helpers import ScalarLoss
from rnnkit.selfcheck import selfcheck

from ..attempts import attempt

solution = get("ch12_bptt").solution()

A = "ch12_bptt"
CHECKS = {check.name: check for check in get(A).checks}
HIDDEN = config.load().HIDDEN_CASES


def grade(name: str, fn, student: str = "s1"):
    return grade_check(
        get(A),
        CHECKS[name],
        fn,
        attempt=attempt(student),
        hidden=HIDDEN,
        timeout=10,
        points=get(A).points(name, config.load().POINTS),
    )


# ----------------------------------------------------------------------------- finite differences


def test_the_finite_difference_reference_is_the_central_difference_with_the_eps_given():
    loss, check = ScalarLoss((1, 2, -1), 0), CHECKS["finite_difference_grad"]
    assert (
        check.expected(Case((loss, 0.5), {"eps": 0.25}))
        == (loss(Fraction(3, 4)) - loss(Fraction(1, 4))) / Fraction(1, 2)
        == Fraction(15, 16)
    )
    assert abs(check.expected(Case((loss, 0.5))) - Fraction(3, 4)) < 1e-9  # a small eps: the derivative dL/da


def test_a_finite_difference_that_ignores_eps_fails_a_public_case_and_every_hidden_one():
    def fixed_step(f, w, eps=1e-6):
        return (f(w + 1e-6) - f(w - 1e-6)) / 2e-6

    for student in ("a", "b"):
        report = grade("finite_difference_grad", fixed_step, student)
        assert any(not r.ok for r in report.results if r.public)
        assert not any(r.ok for r in report.results if not r.public)
        assert report.misconceptions == ["eps_ignored"]
    assert all(
        case.kwargs["eps"] >= 0.05
        for case, _, _ in hidden_cases(get(A), CHECKS["finite_difference_grad"], attempt("a"), HIDDEN)
    )


# ----------------------------------------------------------------------------- clipping makes copies


def test_the_solution_clips_into_float_copies_and_leaves_the_arrays_it_is_given_alone():
    grads = [np.array([3, 4]), np.array([[0, 12]])]
    clipped = solution.clip_by_global_norm(grads, 6.5)
    assert [g.tolist() for g in clipped] == [[1.5, 2.0], [[0.0, 6.0]]] and all(g.dtype == float for g in clipped)
    assert [g.tolist() for g in grads] == [[3, 4], [[0, 12]]] and not any(c is g for c in clipped for g in grads)


def test_clipping_that_rescales_or_returns_the_callers_arrays_breaks_the_contract():
    def in_place(grads, max_norm):  # scales the caller's arrays, then hands back copies of them
        norm = np.sqrt(sum(float(np.sum(np.square(g))) for g in grads))
        if norm > max_norm:
            for g in grads:
                g *= max_norm / norm
        return [np.array(g, dtype=float) for g in grads]

    def aliased(grads, max_norm):  # np.asarray makes no copy of a float array: the caller's comes back
        norm = np.sqrt(sum(float(np.sum(np.square(g))) for g in grads))
        return [
            np.asarray(g, dtype=float) * (max_norm / norm) if norm > max_norm else np.asarray(g, dtype=float)
            for g in grads
        ]

    for wrong, reason in (
        (in_place, "it changed its argument `grads`"),
        (aliased, "it returned an array it was given"),
    ):
        report = grade("clip_by_global_norm", wrong)
        broken = [r for r in report.results if not r.ok]
        assert report.score < 2, wrong.__name__
        assert any(reason in r.message for r in broken), wrong.__name__
    assert grade("clip_by_global_norm", solution.clip_by_global_norm).score == 2
    draws = [
        case.args[0]
        for student in ("a", "b", "c", "d")
        for case, _, _ in hidden_cases(get(A), CHECKS["clip_by_global_norm"], attempt(student), HIDDEN)
    ]
    assert any(all(g.dtype.kind == "i" for g in grads) for grads in draws) and any(
        all(g.dtype == float for g in grads) for grads in draws
    )


# ----------------------------------------------------------------------------- diagnoses in a caller

FLIPPED_ERROR = """
def bptt_scalar(xs, w, target, h0=0):
    states = scalar_forward(xs, w, h0)
    previous = [h0] + states[:-1]
    error = target - states[-1]
    dL_dh = [error]
    for _ in states[:-1]:
        dL_dh.insert(0, dL_dh[0] * w)
    contributions = [d * h for d, h in zip(dL_dh, previous)]
    return {"states": states, "loss": error * error / 2, "dL_dh": dL_dh, "contributions": contributions, "grad": sum(contributions)}
"""


def test_a_flipped_error_sign_in_bptt_is_not_sent_to_update_sign_in_a_correct_sgd_update():
    fn = catalogue.submission(get(A).template, FLIPPED_ERROR)["update_and_recompute"]
    check = CHECKS["update_and_recompute"]
    case = public_cases(check)[0][0]
    assert diagnose(get(A), check, fn(*case.args), case, check.expected(case), lambda function: True) == (
        "update_sign",
    )  # its values are update_sign's
    for report in (grade("update_and_recompute", fn), selfcheck(A, "update_and_recompute", fn)):
        assert report.passed < len(report.results) and report.misconceptions == []


def test_update_sign_is_named_in_the_caller_when_the_students_sgd_update_has_it():
    fn = next(entry for entry in get(A).mistakes() if entry.id == "update_sign").namespace()["update_and_recompute"]
    for report in (grade("update_and_recompute", fn), selfcheck(A, "update_and_recompute", fn)):
        assert report.misconceptions == ["update_sign"]


# ----------------------------------------------------------------------------- the classics, named in the self-check


def _mistaken(mistake_id: str, function: str):
    return next(entry for entry in get(A).mistakes() if entry.id == mistake_id).namespace()[function]


def test_the_literal_second_read_of_12_7_2_fails_the_self_check_and_is_named_there_and_in_the_grade():
    """With the book's three reads from h_0 = 0 "the second read" is all that is missing; the public case
    of another length shows it is not the rule."""
    fn = _mistaken("second_read_only", "ex_12_7_2")
    for report in (selfcheck(A, "ex_12_7_2", fn), grade("ex_12_7_2", fn)):
        assert report.passed < len(report.results) and report.misconceptions == ["second_read_only"]
    book = public_cases(CHECKS["ex_12_7_2"])[0][0]
    assert catalogue.submission(get(A).template, "")["ex_12_7_2"](*book.args) == fn(
        *book.args
    )  # right on the book's case


def test_a_gradient_accumulator_never_reset_is_named_in_the_self_check_and_the_grade():
    student = """
def rnn_backward(xs, h0, W_x, W_h, b, dh_direct, grads={}):
    xs = np.asarray(xs, dtype=float)
    states = [np.asarray(h0, dtype=float)]
    for x in xs:
        states.append(np.tanh(x @ W_x + states[-1] @ W_h + b))
    for key, like in (("dW_x", W_x), ("dW_h", W_h), ("db", b)):
        grads.setdefault(key, np.zeros_like(like, dtype=float))
    carry = np.zeros_like(states[0])
    for t in reversed(range(len(xs))):
        delta = (dh_direct[t] + carry) * (1 - states[t + 1] ** 2)
        grads["dW_x"] += np.outer(xs[t], delta)
        grads["dW_h"] += np.outer(states[t], delta)
        grads["db"] += delta
        carry = delta @ W_h.T
    return {"dW_x": grads["dW_x"].copy(), "dW_h": grads["dW_h"].copy(), "db": grads["db"].copy(), "dh0": carry}
"""
    fn = catalogue.submission(get(A).template, student)["rnn_backward"]
    for report in (selfcheck(A, "rnn_backward", fn), grade("rnn_backward", fn)):
        assert report.passed < len(report.results) and report.misconceptions == ["gradients_kept_between_calls"]


def test_weight_gradients_in_the_column_vector_layout_are_named_on_a_public_case():
    fn = _mistaken("weight_grads_transposed", "rnn_backward")
    report = selfcheck(A, "rnn_backward", fn)
    assert report.passed < len(report.results) and report.misconceptions == ["weight_grads_transposed"]


def test_each_numerical_exercise_has_a_public_case_of_another_size_than_the_books():
    sizes = {
        name: {len(case.args[0]) if name == "ex_12_7_2" else case.args[2] for case, _, _ in public_cases(CHECKS[name])}
        for name in ("ex_12_7_1", "ex_12_7_2")
    }
    assert sizes["ex_12_7_1"] - {4} and sizes["ex_12_7_2"] - {3}
