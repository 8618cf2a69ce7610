"""The grade cell's result (`autograder.grading.result.GradeResult`): what the executor writes is what the
report, the exports and the feedback read back."""
import json

from hypothesis import given, strategies as st

from autograder.assignments import get
from autograder.grading.result import RESULT_KEY, CaseOutcome, GradeResult, HiddenFailure
from .test_checks import grade

words = st.text(min_size=0, max_size=12)
results = st.builds(
    GradeResult, words, st.floats(0, 10, allow_nan=False), st.floats(0, 10, allow_nan=False),
    st.lists(words, max_size=3).map(tuple), st.lists(st.builds(CaseOutcome, words, st.booleans(), st.booleans(), words), max_size=5).map(tuple),
    st.booleans(), st.none() | st.builds(HiddenFailure, words, words, words))


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
    lines = below_inputs("\n".join(report.lines(graded=True, show_hidden=True)) + "\n", failure).rstrip("\n").split("\n")
    inputs = next(i for i, line in enumerate(lines) if "That hidden case's inputs" in line)
    after = next(i for i, line in enumerate(lines) if i > inputs and not line.startswith("      "))  # past the wrapped inputs
    assert lines[after].startswith("    On that case, the result['loss'] should be"), lines
    assert below_inputs("a report\n", HiddenFailure("hidden case 1", "", "Its expected value: 3.")) == "a report\n    Its expected value: 3.\n"
