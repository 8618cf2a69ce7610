"""ch12_boundaries: full marks for the reference solution, every mistake caught and named, every probe
catching a catalogued mistake, varied hidden draws, the notebook, and properties of the rules."""

from __future__ import annotations

import ast
import random
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autograder.assignments import get
from autograder.assignments.ch12_boundaries import reference
from autograder.authoring.build import build_notebook
from autograder.coursedir import config
from autograder.grading.checks import Case, hidden_cases
from autograder.grading.checks import grade as grade_check
from autograder.vocabulary import catalogue, template
from rnnkit import messages
from rnnkit.helpers import CALLS, TanhStep

from ..attempts import attempt

solution = get("ch12_boundaries").solution()

ASSIGNMENT = "ch12_boundaries"
CHECKS = {check.name: check for check in get(ASSIGNMENT).checks}
MISTAKES = get(ASSIGNMENT).mistakes()
HIDDEN = config.load().HIDDEN_CASES
STUDENTS = [f"student-{i:03d}" for i in range(50)]


def points(name: str) -> float:
    return get(ASSIGNMENT).points(name, config.load().POINTS)


def grade(name: str, fn, student: str = "s1", hidden: int = HIDDEN):
    return grade_check(
        get(ASSIGNMENT), CHECKS[name], fn, attempt=attempt(student), hidden=hidden, timeout=10, points=points(name)
    )


# ----------------------------------------------------------------------------- wiring


def test_the_notebook_runs_with_the_solution_and_its_release_would_leak_nothing():
    """The built notebook executes top to bottom with the solution in place (plots on Agg), and once
    solution regions and hidden tests are stripped as nbgrader does, no solution line, no engine import
    and no hidden call is left."""
    import re

    import matplotlib

    matplotlib.use("Agg")
    notebook = build_notebook(get(ASSIGNMENT))
    namespace, released = {}, []
    for cell in notebook.cells:
        if cell.cell_type == "code":
            exec(compile(cell.source, cell.id, "exec"), namespace)
        text = re.sub(r"### BEGIN SOLUTION.*?### END SOLUTION", "raise NotImplementedError()", cell.source, flags=re.S)
        released.append(text.split("### BEGIN HIDDEN TESTS")[0])
    text = "\n".join(released)
    for marker in (
        "autograder.assignments",
        "import autograder",
        "from autograder",
        "import solutions",
        "from solutions",
        "hidden=True",
        "BEGIN SOLUTION",
    ):
        assert marker not in text, marker
    for name, source in get(ASSIGNMENT).function_sources().items():
        body = source.split("### BEGIN SOLUTION", 1)[1].split("### END SOLUTION", 1)[0]
        assert not [line for line in body.splitlines() if len(line.strip()) > 12 and line.strip() in text], name
    for term in (
        "hidden state",
        "truncated BPTT",
        "padding",
        "mask",
        "bidirectional",
        "Table 12.1",
        "exercise 12.7.6",
        "-7/16",
        "-21/32",
    ):
        assert term in text, term


def test_the_chinese_notebook_cites_the_books_terms(monkeypatch):
    monkeypatch.setenv(
        "COURSE_LANG", "zh"
    )  # the English edition holds no Chinese gloss; the Chinese one has the book's terms
    text = "\n".join(cell.source for cell in build_notebook(get(ASSIGNMENT)).cells)
    for term in ("隐藏状态", "截断式 BPTT", "填充", "掩码", "双向", "12.1", "12.7.6"):
        assert term in text, term


def test_the_rules_have_sentences_of_the_kit_and_of_the_assignment():
    """The kit's probe sentences, and the assignment's own: each `message={"en": ...}` given to a probe
    in its exercise modules."""
    kit = [key for key in messages.catalogue("en") if key.startswith("probe.")]
    own = [
        node
        for path in sorted((get(ASSIGNMENT).folder / "checks").glob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.keyword)
        and node.arg == "message"
        and isinstance(node.value, ast.Dict)
        and "en" in {getattr(key, "value", None) for key in node.value.keys}
    ]
    assert len(kit) >= 8 and len(own) >= 8


# ----------------------------------------------------------------------------- full marks, 50 students

# ----------------------------------------------------------------------------- mistakes

#: Classics the self-check must name on the public cases alone, before any grade.
SELF_CHECK_NAMES = [
    "window_slides_by_one",
    "backward_not_realigned",
    "backward_reads_forwards",
    "only_the_example_of_12_8",
    "state_carried_across_sequences",
    "padding_updates_state",
    "loss_averaged_over_padding",
]


@pytest.mark.parametrize("mistake_id", SELF_CHECK_NAMES)
def test_a_classic_is_named_by_the_self_check(mistake_id):
    from rnnkit.selfcheck import selfcheck

    entry = next(entry for entry in MISTAKES if entry.id == mistake_id)
    report = selfcheck(ASSIGNMENT, entry.function, entry.namespace()[entry.function])
    assert report.passed < len(report.results) and report.misconceptions == [mistake_id], report.lines(graded=False)


def test_the_sliding_window_is_caught_where_segments_and_windows_differ():
    """Windows of k from every step agree with the segments only when k = 1; the book's k = 2 case
    tells them apart (-21/32 against -7/16)."""
    windows = next(entry for entry in MISTAKES if entry.id == "window_slides_by_one").namespace()[
        "truncated_bptt_scalar"
    ]
    xs, w, targets = [1, 0, 0, 0], Fraction(1, 2), {4: 1}
    assert windows(xs, w, targets, 1)["grad"] == solution.truncated_bptt_scalar(xs, w, targets, 1)["grad"]
    assert (
        windows(xs, w, targets, 2)["grad"]
        == Fraction(-21, 32)
        != solution.truncated_bptt_scalar(xs, w, targets, 2)["grad"]
    )


def test_the_12_7_6_sentence_points_to_another_task_without_naming_it():
    entry = next(entry for entry in MISTAKES if entry.id == "only_the_example_of_12_8")
    assert "another listed task also sees the whole input" in entry.says["en"] and "还有一个" in entry.says["zh"]
    assert not any(word in entry.says["en"].lower() for word in ("tagging", "labelling", "labeling", " s.", "option s"))


def test_an_all_padding_row_keeps_h0_and_a_falsy_entity_id_still_counts():
    """Two branches of the contract on the reference solution: a row of length 0 stays at h0 (and
    is its final state); an entity id 0 continuing is no change of entity."""
    step, h0 = TanhStep.seeded(5, 2, 2), np.array([0.25, -0.5])
    X = np.ones((2, 3, 2))
    H, final = solution.masked_rnn_forward(step, X, np.array([3, 0]), h0)
    assert np.array_equal(H[1], np.tile(h0, (3, 1))) and np.array_equal(final[1], h0)
    stream = [(0, np.ones(2)), (0, np.zeros(2)), (1, np.ones(2))]
    states = solution.run_entities(step, stream, h0)
    assert np.array_equal(states[:2], solution.run_stream(step, [np.array([np.ones(2), np.zeros(2)])], h0)[0])


def test_a_causal_model_that_reads_the_sequence_backwards_is_caught_and_named():
    reversed_reader = catalogue.submission(
        get(ASSIGNMENT).template,
        """
def generation_features(step, xs, h0):
    h, states = np.asarray(h0, dtype=float), []
    for x in reversed(np.asarray(xs, dtype=float)):
        h = step(x, h)
        states.append(h)
    return np.array(states)
""",
    )
    for name in ("generation_features", "bidirectional_features"):
        report = grade(name, reversed_reader[name])
        assert report.score < points(name) and report.misconceptions == ["sequence_reversed"], (
            name,
            report.misconceptions,
        )


def test_a_mistake_source_runs_on_its_own_in_a_notebook():
    """Each mistake's pasted source defines the function with only np, Fraction and solution names."""
    text = template.module_text(get(ASSIGNMENT).template)
    for entry in MISTAKES:
        namespace = {"__name__": "notebook"}
        exec(compile(text, "solution", "exec"), namespace)
        exec(compile(entry.source(), entry.id, "exec"), namespace)
        assert callable(namespace[entry.function])


# ----------------------------------------------------------------------------- probes

#: Each probe (check, index in Check.probes) and catalogued mistakes it catches.
PROBE_CATCHES = {
    ("run_independent", 0): ["state_carried_across_sequences"],
    ("run_independent", 1): ["state_carried_across_sequences"],
    ("run_stream", 0): ["state_reset_inside_stream"],
    ("run_entities", 0): ["no_reset_on_entity_change", "entity_state_resumed"],
    ("truncated_bptt_scalar", 0): ["value_zeroed_at_boundary"],
    ("truncated_bptt_scalar", 1): ["no_detach_at_boundary"],
    ("truncated_bptt_scalar", 2): ["no_detach_at_boundary", "segment_gradients_overwritten"],
    ("masked_rnn_forward", 0): ["padding_updates_state", "final_state_at_padded_end"],
    ("masked_rnn_forward", 1): ["rows_left_sorted_by_length"],
    ("masked_mean_loss", 0): ["loss_averaged_over_padding", "padded_losses_included"],
    ("generation_features", 0): ["generation_reads_future", "final_state_everywhere", "both_directions_in_generation"],
    ("bidirectional_features", 0): ["halves_swapped"],
    ("bidirectional_features", 1): ["backward_not_realigned", "halves_swapped"],
}


def _cases(name: str, count: int = 4) -> list[Case]:
    check = CHECKS[name]
    return list(check.public()) + [
        case for case, _, _ in hidden_cases(get(ASSIGNMENT), check, attempt("probe-student"), count)
    ]


def _fired(name: str, index: int, fn) -> list[str]:
    check = CHECKS[name]
    probe = check.probes[index]
    return [
        message for case in _cases(name) if (message := probe(lambda c: CALLS[check.call](fn, c.args, c.kwargs), case))
    ]


@pytest.mark.parametrize("key", list(PROBE_CATCHES), ids=lambda key: f"{key[0]}[{key[1]}]")
def test_each_probe_catches_a_catalogued_mistake_and_names_where(key):
    name, index = key
    entries = {entry.id: entry for entry in MISTAKES}
    for mistake_id in PROBE_CATCHES[key]:
        fired = _fired(name, index, entries[mistake_id].namespace()[name])
        assert fired, f"probe {key} misses {mistake_id}"
        assert all("step" in message or "boundary" in message or "loss" in message for message in fired), fired
    assert not _fired(name, index, getattr(solution, name))


def test_every_probe_of_every_check_is_listed():
    listed = {(name, index) for name, check in CHECKS.items() for index in range(len(check.probes))}
    unlisted = listed - set(PROBE_CATCHES)
    # the causal probes of the state functions guard against reading ahead, which no catalogued
    # mistake of theirs does; the same factory catches the generation mistakes
    assert unlisted == {("run_stream", 1), ("run_entities", 1), ("masked_rnn_forward", 2)}


def test_probe_messages_name_the_rule_and_the_step():
    entries = {entry.id: entry for entry in MISTAKES}
    text = _fired("masked_rnn_forward", 0, entries["padding_updates_state"].namespace()["masked_rnn_forward"])[0]
    assert text.startswith("Padding rule broken") and "row" in text and "step" in text
    text = _fired("truncated_bptt_scalar", 1, entries["no_detach_at_boundary"].namespace()["truncated_bptt_scalar"])[0]
    assert "full-BPTT" in text and "after step" in text
    text = _fired("run_entities", 0, entries["no_reset_on_entity_change"].namespace()["run_entities"])[0]
    assert "entity" in text and "step" in text


def test_a_probe_breaks_a_case_whose_values_are_right():
    """A function that is right on the graded inputs but multiplies by the mask loses the case on the NaN probe."""

    def multiplied_mask(step, X, lengths, h0):
        X = np.asarray(X, dtype=float)
        h = np.tile(np.asarray(h0, dtype=float), (X.shape[0], 1))
        H = []
        for t in range(X.shape[1]):
            m = (t < np.asarray(lengths))[:, None].astype(float)
            h = m * step(X[:, t], h) + (1 - m) * h
            H.append(h)
        H = np.stack(H, axis=1)
        return H, H[:, -1]

    report = grade("masked_rnn_forward", multiplied_mask, hidden=2)
    assert report.score < points("masked_rnn_forward")
    failing = [result.message for result in report.results if not result.ok]
    assert failing and all(message.startswith("Padding rule broken: NaN") for message in failing)


def test_a_batched_student_is_bit_identical_to_a_looping_one():
    """Batching the independent sequences (padded, with np.where) passes the bit-identity probes."""

    def batched(step, sequences, h0):
        lengths = np.array([len(xs) for xs in sequences])
        X = np.zeros((len(sequences), lengths.max(), np.shape(sequences[0])[1]))
        for b, xs in enumerate(sequences):
            X[b, : len(xs)] = xs
        H, _ = solution.masked_rnn_forward(step, X, lengths, h0)
        return [H[b, :n] for b, n in enumerate(lengths)]

    for student in STUDENTS[:5]:
        assert grade("run_independent", batched, student=student).score == points("run_independent")


# ----------------------------------------------------------------------------- hidden draws


def test_hidden_draws_are_varied_and_reproducible():
    lengths, widths, ks, negative = set(), set(), set(), False
    for student in STUDENTS[:25]:
        for case, _, _ in hidden_cases(get(ASSIGNMENT), CHECKS["run_independent"], attempt(student), HIDDEN):
            step, sequences, h0 = case.args
            lengths |= {len(xs) for xs in sequences}
            widths.add(step.W_x.shape)
            negative |= bool((step.W_h < 0).any() and (np.asarray(sequences[0]) < 0).any())
            assert step.W_h.shape[0] == 1 or not np.allclose(step.W_h, step.W_h.T)
        for case, _, _ in hidden_cases(get(ASSIGNMENT), CHECKS["truncated_bptt_scalar"], attempt(student), HIDDEN):
            ks.add(case.args[3])
    assert lengths == set(range(1, 13)) and len(widths) == 9 and negative and len(ks) >= 6
    again = hidden_cases(get(ASSIGNMENT), CHECKS["masked_rnn_forward"], attempt(STUDENTS[0]), 2)
    first = hidden_cases(get(ASSIGNMENT), CHECKS["masked_rnn_forward"], attempt(STUDENTS[0]), 2)
    assert len(first) == len(again) == 2
    assert all(
        np.array_equal(a.args[1], b.args[1]) and repr(a.args[0]) == repr(b.args[0])
        for (a, _, _), (b, _, _) in zip(first, again)
    )


def test_a_typed_in_book_answer_fails_the_hidden_cases():
    def book_only(xs, w, targets, k, h0=0):
        return {
            "states": [1, Fraction(1, 2), Fraction(1, 4), Fraction(1, 8)],
            "loss": Fraction(49, 128),
            "grad": Fraction(-7, 16),
        }

    report = grade("truncated_bptt_scalar", book_only)
    assert report.score < points("truncated_bptt_scalar") / 2
    assert report.results[0].public and report.results[0].ok  # the book's own case: right, and it earns nothing


def test_floats_for_exact_inputs_are_not_exact():
    def floats(xs, w, targets, k, h0=0):
        result = solution.truncated_bptt_scalar(xs, w, targets, k, h0)
        return {
            key: ([float(v) for v in value] if isinstance(value, list) else float(value))
            for key, value in result.items()
        }

    report = grade("truncated_bptt_scalar", floats, hidden=1)
    assert report.score == 0 and "exact" in report.results[0].message


# ----------------------------------------------------------------------------- properties

fractions = st.fractions(min_value=-2, max_value=2, max_denominator=6)


@st.composite
def truncation_cases(draw):
    xs = draw(st.lists(fractions, min_size=1, max_size=9))
    T = len(xs)
    targets = draw(st.dictionaries(st.integers(1, T), fractions, min_size=1, max_size=T))
    return xs, draw(fractions), targets, draw(st.integers(1, T + 2)), draw(fractions)


@settings(max_examples=60, deadline=None)
@given(truncation_cases())
def test_truncated_bptt_agrees_with_the_symbolic_reference(case):
    xs, w, targets, k, h0 = case
    got = solution.truncated_bptt_scalar(xs, w, targets, k, h0)
    ref = reference.truncated_bptt_scalar(xs, w, targets, k, h0)
    assert got["states"] == ref["states"] and got["loss"] == ref["loss"] and got["grad"] == ref["grad"]
    assert all(isinstance(v, (Fraction, int)) for v in [*got["states"], got["loss"], got["grad"]])


@settings(max_examples=40, deadline=None)
@given(truncation_cases())
def test_truncation_rules_hold_for_the_solution(case):
    """Values do not depend on k; the gradient is the sum of per-segment gradients with the carried
    state held constant; with k >= T it is the full symbolic derivative of the loss."""
    xs, w, targets, k, h0 = case
    result = solution.truncated_bptt_scalar(xs, w, targets, k, h0)
    assert result["states"] == solution.truncated_bptt_scalar(xs, w, targets, len(xs), h0)["states"]
    total, h = 0, h0
    for start in range(0, len(xs), k):
        part = {t - start: y for t, y in targets.items() if start < t <= start + k}
        total += solution.truncated_bptt_scalar(xs[start : start + k], w, part, k, h)["grad"]
        h = result["states"][min(start + k, len(xs)) - 1]
    assert total == result["grad"]
    s = sp.Symbol("s")
    hs, state = [], sp.Rational(h0)
    for x in xs:
        state = sp.Rational(x) + s * state
        hs.append(state)
    loss = sum((hs[t - 1] - sp.Rational(y)) ** 2 / 2 for t, y in targets.items())
    assert solution.truncated_bptt_scalar(xs, w, targets, len(xs), h0)["grad"] == sp.diff(loss, s).subs(
        s, sp.Rational(w)
    )


junk_values = st.sampled_from([np.nan, np.inf, -np.inf, 1e300, -1e6, 0.0])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.integers(1, 3), st.integers(1, 3), st.integers(1, 4), st.integers(1, 7), st.data())
def test_the_step_and_the_masked_forward_are_bit_identical_under_batching_and_junk(seed, D, d, B, T, data):
    step = TanhStep.seeded(seed, D, d)
    rng = np.random.default_rng(seed)
    X, h0 = rng.uniform(-2, 2, (B, T, D)), rng.uniform(-1, 1, d)
    lengths = np.array(data.draw(st.lists(st.integers(0, T), min_size=B, max_size=B)))
    H, final = solution.masked_rnn_forward(step, X, lengths, h0)
    junked = X.copy()
    junked[np.arange(T)[None, :] >= lengths[:, None]] = data.draw(junk_values)
    H2, final2 = solution.masked_rnn_forward(step, junked, lengths, h0)
    assert np.array_equal(H, H2) and np.array_equal(final, final2)
    for b in range(B):  # each row alone, one step at a time, gives the same bits
        alone = solution.run_independent(step, [X[b, : lengths[b]]], h0)[0]
        assert np.array_equal(alone, H[b, : lengths[b]])
        assert np.array_equal(final[b], alone[-1] if lengths[b] else h0)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.integers(2, 12))
def test_masked_mean_loss_ignores_padding_and_matches_the_exact_mean(seed, T):
    rng = random.Random(seed)
    B = rng.randint(1, 4)
    losses = np.array([[rng.uniform(0, 3) for _ in range(T)] for _ in range(B)])
    mask = np.array([[t < rng.randint(1, T) for t in range(T)] for _ in range(B)]) | (np.arange(T) == 0)
    value = solution.masked_mean_loss(losses, mask)
    junked = losses.copy()
    junked[~mask] = np.nan
    assert solution.masked_mean_loss(junked, mask) == value
    assert abs(value - float(reference.masked_mean_loss(losses, mask))) <= 1e-12 * max(1, value)
