"""The grade cell's result (`autograder.grading.result.GradeResult`): what the executor writes is what the
report, the exports and the feedback read back."""

import json
from fractions import Fraction

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from autograder.assignments import get
from autograder.grading import checks
from autograder.grading.result import RESULT_KEY, CaseOutcome, GradeResult, HiddenFailure, close, stored

from ..attempts import attempt
from .test_checks import grade

words = st.text(min_size=0, max_size=12)
#: What a result keeps of a value (`result.stored`): JSON numbers, words, flags, lists and dicts.
kept = st.recursive(
    st.none() | st.booleans() | st.floats(allow_nan=False, allow_infinity=False) | words,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(words, inner, max_size=3),
    max_leaves=8,
)
drawn = st.dictionaries(words, st.floats(allow_nan=False, allow_infinity=False) | words, max_size=4)
results = st.builds(
    GradeResult,
    words,
    st.floats(0, 10, allow_nan=False),
    st.floats(0, 10, allow_nan=False),
    st.lists(words, max_size=3).map(tuple),
    st.lists(st.builds(CaseOutcome, words, st.booleans(), st.booleans(), words, drawn, kept, kept), max_size=5).map(
        tuple
    ),
    st.booleans(),
    st.none() | st.builds(HiddenFailure, words, words, words),
)


@given(results)
def test_a_result_survives_the_notebook_json(result):
    stored = json.loads(json.dumps({"output_type": "execute_result", "metadata": {RESULT_KEY: result.to_json()}}))
    assert GradeResult.in_outputs([stored]) == result


def test_a_graded_check_keeps_its_cases_its_stub_and_its_shown_hidden_case():
    bptt_scalar = get("ch12_bptt").solution().bptt_scalar

    def no_half(xs, w, target, h0=0):
        return {**bptt_scalar(xs, w, target, h0), "loss": 2 * bptt_scalar(xs, w, target, h0)["loss"]}

    report = grade("bptt_scalar", no_half)
    result = GradeResult.of(report, 2)
    assert (result.score, result.points, result.passed) == (report.score, 2, report.passed)
    first = report.first_hidden_failure
    assert result.hidden_failure == HiddenFailure(first.label, first.inputs, first.expected)
    assert not result.not_started

    def stub(xs, w, target, h0=0):
        raise NotImplementedError

    assert GradeResult.of(grade("bptt_scalar", stub), 2).not_started
    assert GradeResult.in_outputs([{"output_type": "stream", "text": "x"}]) is None
    assert GradeResult.from_json({"check": "c"}) == GradeResult("c", 0.0, 0.0)  # an older cell's result: defaults


def test_the_feedback_puts_the_expected_value_right_below_the_hidden_case_inputs():
    bptt_scalar = get("ch12_bptt").solution().bptt_scalar

    from autograder.grading.reveal import below_inputs

    def no_half(xs, w, target, h0=0):
        return {**bptt_scalar(xs, w, target, h0), "loss": 2 * bptt_scalar(xs, w, target, h0)["loss"]}

    report = grade("bptt_scalar", no_half)
    failure = GradeResult.of(report, 2).hidden_failure
    lines = (
        below_inputs("\n".join(report.lines(graded=True, show_hidden=True)) + "\n", failure).rstrip("\n").split("\n")
    )
    inputs = next(i for i, line in enumerate(lines) if "That hidden case's inputs" in line)
    after = next(
        i for i, line in enumerate(lines) if i > inputs and not line.startswith("      ")
    )  # past the wrapped inputs
    assert lines[after].startswith("    On that case, the result['loss'] should be"), lines
    assert (
        below_inputs("a report\n", HiddenFailure("hidden case 1", "", "Its expected value: 3."))
        == "a report\n    Its expected value: 3.\n"
    )


def test_a_graded_check_keeps_what_was_drawn_the_expected_value_and_a_wrong_value_of_each_hidden_case():
    spec = get("ch12_bptt")
    check, bptt_scalar = spec.check("bptt_scalar"), spec.solution().bptt_scalar

    def half_the_time(xs, w, target, h0=0):  # right on odd lengths, the loss doubled on even ones
        found = bptt_scalar(xs, w, target, h0)
        return {**found, "loss": 2 * found["loss"]} if len(xs) % 2 == 0 else found

    report, traces = checks.grade_traced(
        spec, check, half_the_time, attempt=attempt("s1"), hidden=6, timeout=2, points=2
    )
    result = GradeResult.of(report, 2, traces)
    draws = checks.hidden_draws(spec, check, attempt("s1"), 6)
    hidden = [case for case in result.cases if not case.public]
    assert [case.label for case in hidden] == [draw.case.label for draw in draws]
    assert any(case.ok for case in hidden) and not all(case.ok for case in hidden)
    for case, draw in zip(hidden, draws):
        assert case.drawn == {
            "branch": "ordinary",
            "len:xs": len(draw.case.args[0]),
            "w": float(draw.case.args[1]),
            "target": float(draw.case.args[2]),
            **({"h0": float(draw.case.kwargs["h0"])} if "h0" in draw.case.kwargs else {}),
        }
        assert close(case.expected, stored(draw.expected), 1e-12)
        assert (case.got is None) == case.ok
    assert [case.got for case in hidden if not case.ok] == [
        stored(half_the_time(*draw.case.args, **draw.case.kwargs)) for draw in draws if len(draw.case.args[0]) % 2 == 0
    ]
    assert all(case.drawn == {} and case.expected is None and case.got is None for case in result.cases if case.public)


def test_a_kept_value_is_plain_json_and_a_large_one_is_not_kept():
    value = {
        "h": np.array([Fraction(1, 3), 2.5]),
        "n": np.int64(3),
        "ok": np.bool_(True),
        "gone": float("nan"),
        2: (1, 2),
    }
    assert stored(value) == {"2": [1.0, 2.0], "gone": "nan", "h": [1 / 3, 2.5], "n": 3.0, "ok": True}
    assert stored(np.zeros(10_000)) is None and stored(object()) is None
    assert close(stored([1.0, {"a": 2.0}]), [1.00001, {"a": 2.0}], 1e-4) and not close([1.0], [1.0, 2.0], 1e-4)
    assert not close(1.0, "1.0", 1e-4) and not close({"a": 1.0}, {"b": 1.0}, 1e-4)


@given(kept)
def test_a_kept_value_agrees_with_itself(value):
    assert close(value, value, 1e-12)
