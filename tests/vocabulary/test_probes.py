"""autograder.vocabulary.probes on toy functions: identity, views, and each probe factory passing a function that
keeps its rule and naming the rule and the step for one that breaks it."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from autograder.assignments import get
from autograder.vocabulary import probes
from rnnkit.checking import Case, StudentFailure

solution = get("ch12_boundaries").solution()


def runner(fn):
    return lambda case: fn(*case.args, **case.kwargs)


# ----------------------------------------------------------------------------- identical

floats = hnp.arrays(
    np.float64,
    hnp.array_shapes(min_dims=1, max_dims=3, max_side=4),
    elements=st.floats(allow_nan=True, allow_infinity=True),
)


@settings(max_examples=100, deadline=None)
@given(floats)
def test_an_array_is_identical_to_its_copy_nan_included(array):
    assert probes.identical(array, array.copy())
    assert probes.identical([array, {"a": array}], [array.copy(), {"a": array.copy()}])


@settings(max_examples=100, deadline=None)
@given(floats, st.data())
def test_any_change_of_one_entry_is_seen(array, data):
    index = data.draw(st.tuples(*(st.integers(0, n - 1) for n in array.shape)))
    changed = array.copy()
    old = changed[index]
    changed[index] = 1.0 if not (old == 1.0) else 2.0
    assert not probes.identical(array, changed)


def test_identity_is_not_a_tolerance():
    assert not probes.identical(np.array([0.1 + 0.2]), np.array([0.3]))
    assert not probes.identical(np.zeros((2, 1)), np.zeros(2))
    assert probes.identical(Fraction(1, 2), Fraction(2, 4)) and not probes.identical(Fraction(1, 2), 0.5000001)
    assert probes.identical(float("nan"), np.float64("nan")) and not probes.identical({"a": 1}, {"b": 1})


def test_first_change_reports_the_first_kept_point():
    view = probes.steps_view()
    before, after = view(np.arange(6.0).reshape(3, 2)), view(np.array([[0, 1], [9, 3], [9, 5]], dtype=float))
    assert probes.first_change(before, after).label == "step 2"
    assert probes.first_change(before, after, lambda p: p.step <= 1) is None
    assert probes.first_change(before, after[:1]).label == "step 2"


# ----------------------------------------------------------------------------- toy functions


def prefix_sums(xs):
    return np.cumsum(np.asarray(xs, dtype=float), axis=0)


def suffix_sums(xs):
    return np.cumsum(np.asarray(xs, dtype=float)[::-1], axis=0)[::-1]


def change_after(case, t):
    xs = np.array(case.args[0], dtype=float)
    xs[t:] = probes.replacement_values(xs[t:].shape, t)
    return Case((xs,))


def change_before(case, t):
    xs = np.array(case.args[0], dtype=float)
    xs[: t - 1] = probes.replacement_values(xs[: t - 1].shape, t)
    return Case((xs,))


CASE = Case((np.arange(1.0, 7.0).reshape(6, 1),))
STEPS = lambda case: len(case.args[0])  # noqa: E731


def test_causal_passes_a_forward_reader_and_names_the_step_for_a_reader_of_the_future():
    probe = probes.causal(probes.steps_view(), STEPS, change_after)
    assert probe(runner(prefix_sums), CASE) is None
    message = probe(runner(suffix_sums), CASE)
    assert message.startswith("Causality rule broken") and "after step 1" in message and "step 1" in message


def test_anticausal_is_the_mirror_rule():
    probe = probes.anticausal(probes.steps_view(), STEPS, change_before)
    assert probe(runner(suffix_sums), CASE) is None
    message = probe(runner(prefix_sums), CASE)
    assert "before step 2" in message and "step 2" in message


def test_alone_compares_a_piece_run_after_others_with_the_piece_run_alone():
    def pieces(case):
        (sequences,) = case.args
        for i, xs in enumerate(sequences):
            yield (
                f"sequence {i + 1}",
                Case(([xs],)),
                (lambda out, i=i: probes.steps_view()(out[i])),
                (lambda out: probes.steps_view()(out[0])),
            )

    def separate(sequences):
        return [prefix_sums(xs) for xs in sequences]

    def carried(sequences):
        out, carry = [], 0.0
        for xs in sequences:
            out.append(prefix_sums(xs) + carry)
            carry = out[-1][-1]
        return out

    probe = probes.alone(pieces, message={"en": "{piece} changed at {where}", "zh": "{piece}在{where}处变了"})
    case = Case(([np.ones((3, 1)), np.ones((2, 1))],))
    assert probe(runner(separate), case) is None
    message = probe(runner(carried), case)
    assert "sequence 2" in message and "step 1" in message


def test_same_result_with_junk_in_padding_and_rows_independent():
    def mean_valid(x, mask):
        return float(np.sum(x[mask]) / np.count_nonzero(mask))

    def mean_masked_product(x, mask):
        return float(np.sum(x * mask) / np.count_nonzero(mask))

    def variants(case):
        x, mask = case.args
        for name, kind in probes.JUNK:
            junked = x.copy()
            junked[~mask] = kind
            yield name, Case((junked, mask))

    case = Case((np.arange(6.0).reshape(2, 3), np.array([[True, True, False], [True, False, False]])))
    probe = probes.same_result(
        probes.value_view("the loss"),
        variants,
        message={"en": "{variant} changed {where}", "zh": "{variant}改变了{where}"},
    )
    assert probe(runner(mean_valid), case) is None
    assert "NaN" in probe(runner(mean_masked_product), case)

    def row_means(X):
        return np.asarray(X).mean(axis=1)

    def mixed(X):
        return np.asarray(X).mean(axis=1) + np.asarray(X).mean()

    view = lambda out: [probes.Point(0, f"row {b + 1}", v, b) for b, v in enumerate(out)]  # noqa: E731
    rows = probes.rows_independent(
        view,
        lambda case: len(case.args[0]),
        lambda case, r: Case((np.where(np.arange(3)[:, None] == r, 7.0, case.args[0]),)),
    )
    X = Case((np.arange(6.0).reshape(3, 2),))
    assert rows(runner(row_means), X) is None
    assert "changing only row 1" in rows(runner(mixed), X)


def test_views_label_steps_rows_and_segments():
    assert [p.label for p in probes.segments_view([np.zeros((2, 1)), np.zeros((1, 1))])][
        -1
    ] == "segment 2, step 1 (step 3 of the stream)"
    points = probes.batch_view(final=True)((np.zeros((2, 3, 1)), np.zeros((2, 1))))
    assert points[0].label == "row 1, step 1" and points[-1].label == "the final state of row 2" and points[-1].row == 1
    halves = probes.columns_view(1, 2, "the backward half")(np.arange(8.0).reshape(2, 4))
    assert halves[1].label == "the backward half at step 2" and list(halves[1].value) == [6.0, 7.0]


# ----------------------------------------------------------------------------- truncated BPTT

SPEC = Case(([1, 0, 0, 0], Fraction(1, 2), {4: 1}, 2), {"h0": 0})


def full_bptt(xs, w, targets, k, h0=0):
    return solution.truncated_bptt_scalar(xs, w, targets, len(xs), h0)


def zeroed(xs, w, targets, k, h0=0):
    states, grad, loss = [], 0, 0
    for start in range(0, len(xs), k):
        part = {t - start: y for t, y in targets.items() if start < t <= start + k}
        result = solution.truncated_bptt_scalar(xs[start : start + k], w, part, k, h0 if start == 0 else 0)
        states, grad, loss = states + result["states"], grad + result["grad"], loss + result["loss"]
    return {"states": states, "loss": loss, "grad": grad}


@pytest.mark.parametrize("factory", [probes.truncation_value, probes.truncation_detached, probes.truncation_not_full])
def test_the_truncation_probes_pass_truncated_bptt(factory):
    assert factory()(runner(solution.truncated_bptt_scalar), SPEC) is None


def test_full_bptt_is_caught_as_a_gradient_across_the_boundary():
    assert "held constant" in probes.truncation_detached()(runner(full_bptt), SPEC)
    message = probes.truncation_not_full()(runner(full_bptt), SPEC)
    assert "k = 2" in message and "after step 2" in message
    assert probes.truncation_value()(runner(full_bptt), SPEC) is None  # its values are right


def test_a_zeroed_value_is_caught_at_its_boundary():
    message = probes.truncation_value()(runner(zeroed), SPEC)
    assert "boundary after step 2" in message and "step 3" in message


def test_an_unreadable_result_on_changed_inputs_is_a_broken_rule_not_a_crash():
    def keys_vanish(xs, w, targets, k, h0=0):
        result = solution.truncated_bptt_scalar(xs, w, targets, k, h0)
        return result if len(xs) == 4 else {"gradient": result["grad"]}

    message = probes.truncation_value()(runner(keys_vanish), SPEC)
    assert "could not read" in message and "KeyError" in message


def test_a_crash_of_the_student_function_inside_a_probe_reaches_the_runner():
    def crashing_run(case):
        raise StudentFailure("check.crashed", name="f", error="ValueError", case="c", detail="boom")

    with pytest.raises(StudentFailure):
        probes.causal(probes.steps_view(), STEPS, change_after)(crashing_run, CASE)
