"""ch12_gates: the reference solution earns full marks, every catalogued mistake is caught and named,
the hidden draws are varied, and the conventions of section 12.4 hold as properties."""

from __future__ import annotations

import functools
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from autograder.assignments import get
from autograder.assignments.ch12_gates import reference as ref
from autograder.authoring import build
from autograder.coursedir import config
from autograder.grading.checks import diagnose, hidden_cases, mistaken_output
from autograder.grading.checks import grade as grade_check
from autograder.vocabulary import catalogue
from autograder.vocabulary.symbolic import public_value
from rnnkit import messages
from rnnkit.compare import compare, explains
from rnnkit.selfcheck import selfcheck

from ..attempts import attempt

solution = get("ch12_gates").solution()

ASSIGNMENT = "ch12_gates"
CHECKS = {check.name: check for check in get(ASSIGNMENT).checks}
POINTS = {name: get(ASSIGNMENT).points(name, config.load().POINTS) for name in CHECKS}
HIDDEN = config.load().HIDDEN_CASES
MISTAKES = get(ASSIGNMENT).mistakes()
STUDENTS = [f"student-{i:03d}" for i in range(50)]


def grade(name: str, fn, student: str = "s1", hidden: int = HIDDEN):
    return grade_check(
        get(ASSIGNMENT), CHECKS[name], fn, attempt=attempt(student), hidden=hidden, timeout=10.0, points=POINTS[name]
    )


# --- the contract ----------------------------------------------------------------------------------


def test_the_checks_are_the_issues_functions():
    for name in (
        "sigmoid",
        "lstm_cell_update",
        "lstm_step",
        "gru_step",
        "retention",
        "rnn_param_count",
        "lstm_param_count",
        "lstm_param_count_two_bias",
        "gru_param_count",
    ):
        assert name in CHECKS, name


def test_exercise_checks_do_not_reveal_and_exact_checks_are_the_exact_functions():
    assert not CHECKS["ex_12_7_4"].reveal and not CHECKS["ex_12_7_5"].reveal
    assert {name for name, check in CHECKS.items() if check.exact} == {
        "lstm_cell_update",
        "retention",
        "ex_12_7_4",
        "ex_12_7_5",
    }


def test_the_catalogue_covers_the_issue():
    found = {entry.id: entry.function for entry in MISTAKES}
    wanted = {
        "output_gate_on_cell": "lstm_cell_update",
        "h_without_tanh": "lstm_cell_update",
        "coupled_input_forget_gates": "lstm_cell_update",
        "dot_product_not_elementwise": "lstm_cell_update",
        "sigmoid_on_cell": "lstm_cell_update",
        "lstm_concat_h_first": "lstm_step",
        "lstm_candidate_sigmoid": "lstm_step",
        "gru_complementary_update": "gru_step",
        "gru_reset_on_kept_branch": "gru_step",
        "gru_reset_after_matmul": "gru_step",
        "gru_concat_h_first": "gru_step",
        "gru_candidate_sigmoid": "gru_step",
        "lstm_count_two_biases": "lstm_param_count",
        "rnn_count_without_bias": "rnn_param_count",
        "gru_count_without_bias": "gru_param_count",
        # the classics of issue 32
        "lstm_pytorch_gate_order": "lstm_step",
        "gru_count_four_blocks": "gru_param_count",
        "ex_reset_erases_state": "ex_12_7_5",
        "cell_without_forget_gate": "lstm_cell_update",
        "gru_residual_update": "gru_step",
        "ex_residual_mix": "ex_12_7_5",
        "ex_cell_without_forget_gate": "ex_12_7_4",
    }
    for mistake_id, function in wanted.items():
        assert found.get(mistake_id) == function, mistake_id


# --- grading -----------------------------------------------------------------------------------------


def test_mistakes_of_the_cell_update_also_cost_points_in_lstm_step_and_the_exercise_has_its_own():
    for entry in MISTAKES:
        if entry.function in ("lstm_cell_update", "sigmoid"):
            report = grade("lstm_step", entry.namespace()["lstm_step"], student="callers")
            assert report.score < POINTS["lstm_step"], entry.id
    # exercise 12.7.4 is one scalar cell (where a dot product is the product): the cell path's mistakes are its own
    own = {"ex_output_gate_erases_cell", "ex_h_without_tanh", "ex_cell_without_forget_gate"}
    assert {entry.id for entry in get(ASSIGNMENT).for_check("ex_12_7_4")} == own
    for mistake_id in sorted(own):
        entry = next(e for e in MISTAKES if e.id == mistake_id)
        report = grade("ex_12_7_4", entry.namespace()["ex_12_7_4"])
        assert report.score == 0 and report.misconceptions == [mistake_id], mistake_id


SWAPPED_GATES = """
def gru_step(x, h_prev, params):
    x, h_prev = np.asarray(x, dtype=float), np.asarray(h_prev, dtype=float)
    u = np.concatenate([x, h_prev])
    z = sigmoid(u @ params["A_r"] + params["b_r"])
    r = sigmoid(u @ params["A_z"] + params["b_z"])
    g = np.tanh(x @ params["W_g"] + (r * h_prev) @ params["U_g"] + params["b_g"])
    return z * h_prev + (1 - z) * g
"""


def test_swapped_gru_gates_are_not_blamed_on_a_sigmoid_that_passes_its_own_check():
    fn = catalogue.submission(get(ASSIGNMENT).template, SWAPPED_GATES)["gru_step"]
    check = CHECKS["gru_step"]
    case = check.public()[1]  # the third text's GRU: r = 0.25 and z = 0.75 swapped look like sigmoid(-a)
    assert diagnose(get(ASSIGNMENT), check, fn(*case.args), case, check.expected(case), lambda function: True) == (
        "sigmoid_exponent_sign",
    )
    for report in (grade("gru_step", fn), selfcheck(ASSIGNMENT, "gru_step", fn)):
        assert report.passed < len(report.results) and report.misconceptions == []


def test_typed_in_book_answers_fail_the_hidden_cases():
    assert grade("lstm_cell_update", lambda *a: (Fraction(41, 50), 0.5063024)).score < POINTS["lstm_cell_update"] / 2
    assert grade("retention", lambda f, steps: Fraction(43046721, 100000000)).score < POINTS["retention"] / 2
    assert grade("lstm_param_count", lambda D, H: 96).score < POINTS["lstm_param_count"] / 2


def test_a_float_cell_is_called_not_exact_and_a_float_h_is_fine():
    def float_cell(c_prev, f, i, g, o):
        c, h = solution.lstm_cell_update(c_prev, f, i, g, o)
        return np.asarray(c, dtype=float) + 0.0, h

    report = grade("lstm_cell_update", float_cell, hidden=2)
    assert report.score == 0 and "exact" in "\n".join(report.lines(graded=True))


def test_a_gru_with_the_pytorch_placement_fails_the_visible_two_coordinate_case():
    entry = next(e for e in MISTAKES if e.id == "gru_reset_after_matmul")
    report = grade("gru_step", entry.namespace()["gru_step"], hidden=0)
    public = [result.ok for result in report.results]
    assert public[:2] == [True, True] and public[2] is False  # the book's scalar cases cannot tell; the 2-d case can


CLASSICS = (
    "lstm_pytorch_gate_order",
    "gru_count_four_blocks",
    "ex_reset_erases_state",
    "cell_without_forget_gate",
    "gru_residual_update",
    "ex_residual_mix",
    "ex_cell_without_forget_gate",
)


@pytest.mark.parametrize("mistake_id", CLASSICS)
def test_the_classics_are_caught_and_named_by_the_self_check(mistake_id):
    """Each classic fails a public case and the self-check (the kit's stored mistaken outputs) names it."""
    entry = next(e for e in MISTAKES if e.id == mistake_id)
    report = selfcheck(ASSIGNMENT, entry.function, entry.namespace()[entry.function])
    assert report.passed < len(report.results) and report.misconceptions == [mistake_id], report.lines(graded=False)
    graded = grade(entry.function, entry.namespace()[entry.function])
    assert graded.score == 0 and graded.misconceptions == [mistake_id], graded.lines(graded=True)


def test_the_pytorch_gate_order_shows_on_every_public_step_and_names_both_orders():
    entry = next(e for e in MISTAKES if e.id == "lstm_pytorch_gate_order")
    report = grade("lstm_step", entry.namespace()["lstm_step"], hidden=0)
    assert not any(result.ok for result in report.results)  # the public blocks all differ
    text = entry.says["en"]
    assert "PyTorch's order i, f, g, o" in text and "f, i, o, g" in text


def test_the_keep_weight_of_12_7_5_is_not_z_times_r_and_the_book_case_shows_it():
    book = CHECKS["ex_12_7_5"].public()[0]
    wrong = _mutant("ex_reset_erases_state", "ex_12_7_5")(*book.args)
    assert wrong["keep weight"] == 0 and wrong["h"] == 0  # "r = 0 erases the state"
    assert solution.ex_12_7_5(*book.args)["h"] == book.args[0]


def test_each_exercise_has_a_public_case_of_other_numbers_that_shows_nothing():
    for name, setup in (("ex_12_7_4", ref.EXERCISE_12_7_4), ("ex_12_7_5", ref.EXERCISE_12_7_5)):
        check = CHECKS[name]
        book = tuple(public_value(value) for value in setup.values())[: len(check.params)]
        others = [case for case in check.public() if tuple(case.args) != book]
        assert others and not check.reveal, name


def test_a_residual_update_is_named_and_not_called_a_multiple():
    for mistake_id, name in (("gru_residual_update", "gru_step"), ("cell_without_forget_gate", "lstm_cell_update")):
        report = grade(name, _mutant(mistake_id, name))
        lines = "\n".join(report.lines(graded=True))
        assert report.misconceptions == [mistake_id] and "3 times" not in lines, lines


def test_the_largest_public_cases_are_the_largest_drawn():
    from autograder.assignments.ch12_gates import models
    from autograder.assignments.ch12_gates.checks import lstm_cell_update, retention, sigmoid

    widest = {name: max(len(case.args[1]) for case in CHECKS[name].public()) for name in ("lstm_step", "gru_step")}
    assert widest == {"lstm_step": models.STEP_D, "gru_step": models.STEP_D}
    assert max(np.size(case.args[0]) for case in CHECKS["sigmoid"].public()) == sigmoid.SIGMOID_LONGEST
    assert max(np.size(case.args[0]) for case in CHECKS["lstm_cell_update"].public()) == lstm_cell_update.CELL_WIDEST
    assert max(case.args[1] for case in CHECKS["retention"].public()) >= retention.RETENTION_MOST
    for name in ("rnn_param_count", "lstm_param_count", "lstm_param_count_two_bias", "gru_param_count"):
        assert (models.COUNT_MOST, models.COUNT_MOST) in [tuple(case.args) for case in CHECKS[name].public()]


def test_the_public_self_check_is_fast(monkeypatch):
    """What the self-check of right answers costs: the kit's stored public half read once for all the
    checks (their expected values are stored there, nothing is computed for them), each function
    called once per public case, and no value compared with the stored outputs of the mistakes (that
    is done for wrong values only). The cases' sizes are the largest drawn, no larger
    (`test_the_largest_public_cases_are_the_largest_drawn`)."""
    from rnnkit import codec
    from rnnkit import selfcheck as kit_selfcheck

    loads, mistakes_compared = [], []
    read = codec.loads
    monkeypatch.setattr(codec, "loads", lambda *args, **kwargs: loads.append(None) or read(*args, **kwargs))
    monkeypatch.setattr(
        kit_selfcheck, "explains", lambda *args, **kwargs: mistakes_compared.append(None) or explains(*args, **kwargs)
    )
    kit_selfcheck.public_half.cache_clear()
    stored = kit_selfcheck.public_checks(ASSIGNMENT)

    def counting(answer, calls: list):
        @functools.wraps(answer)
        def counted(*args, **kwargs):
            calls.append(None)
            return answer(*args, **kwargs)

        return counted

    for name in CHECKS:
        calls = []
        report = selfcheck(ASSIGNMENT, name, counting(getattr(solution, name), calls))  # what check(name, fn) runs
        assert report.passed == len(report.results) == len(stored[name]["cases"]), name
        assert stored[name]["rules"]["call"] == "plain" and len(calls) == len(report.results), name
    assert len(loads) == 1 and not mistakes_compared


# --- hidden draws ------------------------------------------------------------------------------------


def _draws(name: str, students=STUDENTS[:25], count: int = HIDDEN):
    return [
        (case, expected)
        for student in students
        for case, _, expected in hidden_cases(get(ASSIGNMENT), CHECKS[name], attempt(student), count)
    ]


@pytest.mark.parametrize("name", [name for name, check in CHECKS.items() if check.draw])
def test_every_hidden_draw_separates_every_mistake(name):
    check = CHECKS[name]
    for case, expected in _draws(name, STUDENTS[:10]):
        for entry in get(ASSIGNMENT).for_check(name):
            output = mistaken_output(entry, check, case)
            assert output is None or not compare(output, expected, exact=check.exact, rtol=check.rtol).ok, (
                name,
                entry.id,
            )


def test_lstm_draws_cover_widths_1_to_5_with_full_matrices_and_saturated_gates():
    widths, inputs, saturated = set(), set(), 0
    for case, expected in _draws("lstm_step"):
        x, h_prev, c_prev, params = case.args
        widths.add(len(h_prev))
        inputs.add(len(x))
        assert params["A_f"].shape == (len(x) + len(h_prev), len(h_prev))
        gates = np.concatenate([np.asarray(expected[2][name], dtype=float) for name in "fio"])
        saturated += bool(np.any((gates < 0.02) | (gates > 0.98)))
    assert widths == {1, 2, 3, 4, 5} and inputs == {1, 2, 3, 4}
    assert saturated > len(STUDENTS[:25]) * HIDDEN / 3


def test_gru_draws_use_u_g_that_mixes_coordinates():
    widths = set()
    for case, _ in _draws("gru_step"):
        U = case.args[2]["U_g"]
        widths.add(U.shape[0])
        assert np.count_nonzero(U - np.diag(np.diag(U))) > 0
    assert widths == {2, 3, 4, 5}


def test_cell_draws_are_exact_vectors_with_limit_gates():
    limits = 0
    for case, expected in _draws("lstm_cell_update"):
        for arg in case.args:
            assert isinstance(arg, np.ndarray) and arg.dtype == object
            assert all(isinstance(v, Fraction) for v in arg)
        assert all(isinstance(v, Fraction) for v in expected[0])  # the exact reference, as the kit compares it
        limits += any(v in (0, 1) for arg in (case.args[1], case.args[2], case.args[4]) for v in arg)
    assert limits > 10


def test_sigmoid_draws_reach_far_into_saturation():
    assert any(np.max(np.abs(case.args[0])) >= 60 for case, _ in _draws("sigmoid"))


# --- the conventions of section 12.4, as properties ----------------------------------------------

fractions = st.fractions(min_value=-3, max_value=3, max_denominator=12)
gates = st.fractions(min_value=0, max_value=1, max_denominator=12)


@settings(max_examples=60, deadline=None)
@given(fractions, gates, gates, st.fractions(min_value=-1, max_value=1, max_denominator=12), gates)
def test_the_cell_is_exact_and_h_follows_tanh(c_prev, f, i, g, o):
    c, h = solution.lstm_cell_update(c_prev, f, i, g, o)
    assert isinstance(c, Fraction) and c == f * c_prev + i * g
    ref_c, ref_h = ref.lstm_cell_update(c_prev, f, i, g, o)
    assert ref_c == sp.Rational(c.numerator, c.denominator)
    assert abs(float(h) - float(ref_h)) <= 1e-12


@settings(max_examples=60, deadline=None)
@given(gates, st.integers(0, 30), st.integers(0, 30))
def test_retention_multiplies_along_the_path(f, a, b):
    assert solution.retention(f, a + b) == solution.retention(f, a) * solution.retention(f, b)
    assert solution.retention(f, 0) == 1 and ref.retention(f, a) == sp.Rational(f) ** a


@settings(max_examples=40, deadline=None)
@given(st.floats(-50, 50))
def test_sigmoid_is_symmetric(a):
    assert abs(solution.sigmoid(a) + solution.sigmoid(-a) - 1) < 1e-15
    assert not np.isnan(solution.sigmoid(np.array([-800.0, 800.0]))).any()


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 200), st.integers(1, 200))
def test_the_counts_scale_with_the_number_of_blocks(D, H):
    rnn = solution.rnn_param_count(D, H)
    assert solution.lstm_param_count(D, H) == 4 * rnn and solution.gru_param_count(D, H) == 3 * rnn
    assert solution.lstm_param_count_two_bias(D, H) == solution.lstm_param_count(D, H) + 4 * H


def _params(seed: int, m: int, d: int, diagonal: bool = False):
    rng = np.random.default_rng(seed)
    params = {
        "A_r": rng.normal(size=(m + d, d)),
        "A_z": rng.normal(size=(m + d, d)),
        "W_g": rng.normal(size=(m, d)),
        "U_g": np.diag(rng.normal(size=d)) if diagonal else rng.normal(size=(d, d)),
        "b_r": rng.normal(size=d),
        "b_z": rng.normal(size=d),
        "b_g": rng.normal(size=d),
    }
    return rng.normal(size=m), rng.normal(size=d), params


def _mutant(mistake_id: str, name: str):
    return next(e for e in MISTAKES if e.id == mistake_id).namespace()[name]


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 4), st.integers(1, 5))
def test_reset_placement_matters_only_when_u_g_mixes_coordinates(seed, m, d):
    after = _mutant("gru_reset_after_matmul", "gru_step")
    x, h, diagonal = _params(seed, m, d, diagonal=True)
    assert np.allclose(solution.gru_step(x, h, diagonal), after(x, h, diagonal), atol=1e-14)
    x, h, full = _params(seed, m, d)
    if d > 1:
        assert not np.allclose(solution.gru_step(x, h, full), after(x, h, full), rtol=0, atol=1e-9)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 4), st.integers(1, 5))
def test_the_complementary_convention_is_cho_with_the_update_scores_negated(seed, m, d):
    complementary = _mutant("gru_complementary_update", "gru_step")
    x, h, params = _params(seed, m, d)
    flipped = {**params, "A_z": -params["A_z"], "b_z": -params["b_z"]}
    assert np.allclose(solution.gru_step(x, h, params), complementary(x, h, flipped), atol=1e-14)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 4), st.integers(1, 5))
def test_steps_agree_with_the_independent_split_form_engine(seed, m, d):
    x, h, params = _params(seed, m, d)
    assert compare(solution.gru_step(x, h, params), public_value(ref.gru_step(x, h, params))).ok
    rng = np.random.default_rng(seed + 1)
    lstm = {f"A_{k}": rng.normal(size=(m + d, d)) for k in "fiog"} | {f"b_{k}": rng.normal(size=d) for k in "fiog"}
    c_prev = rng.normal(size=d)
    assert compare(solution.lstm_step(x, h, c_prev, lstm), public_value(ref.lstm_step(x, h, c_prev, lstm))).ok


def test_saturated_gates_keep_or_replace_the_state():
    x, h, params = _params(7, 2, 3)
    keep = {**params, "A_z": np.zeros_like(params["A_z"]), "b_z": np.full(3, 40.0)}
    assert np.allclose(solution.gru_step(x, h, keep), h, atol=1e-15)  # z = 1 keeps h_prev whatever r is
    closed = {
        **params,
        "A_r": np.zeros_like(params["A_r"]),
        "b_r": np.full(3, -40.0),
        "A_z": np.zeros_like(params["A_z"]),
        "b_z": np.full(3, -40.0),
    }
    assert np.allclose(solution.gru_step(x, h, closed), np.tanh(x @ params["W_g"] + params["b_g"]), atol=1e-15)


# --- the notebook ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "lang, terms",
    [
        ("en", ("forget gate", "input gate", "output gate", "reset gate", "update gate", "cell state", "hidden state")),
        ("zh", ("遗忘门", "输入门", "输出门", "重置门", "更新门", "单元状态", "隐藏状态")),
    ],
)
def test_the_notebook_cites_the_book_and_its_terms(monkeypatch, lang, terms):
    monkeypatch.setenv("COURSE_LANG", lang)  # each edition in its own terms (the English one holds no Chinese gloss)
    cells = build.build_notebook(get(ASSIGNMENT)).cells
    markdown = "\n".join(c.source for c in cells if c.cell_type == "markdown")
    for cited in ("12.3", "12.4", "12.7.4", "12.7.5", *terms):
        assert cited in markdown, cited


def test_the_notebook_runs_top_to_bottom_with_the_solutions(monkeypatch, capsys):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    monkeypatch.setattr(plt, "show", lambda *a, **k: None)
    namespace: dict = {}
    for cell in build.build_notebook(get(ASSIGNMENT)).cells:
        if cell.cell_type == "code":
            exec(compile(cell.source, "<notebook cell>", "exec"), namespace)
    plt.close("all")
    out = capsys.readouterr().out
    public = len(CHECKS["sigmoid"].public())
    assert "LSTM, two biases    108" in out and f"sigmoid: {public}/{public} public cases right" in out
    assert (
        messages.text("check.hidden_at_grading", name="sigmoid") in out
    )  # the hidden call only grades at grading time
    assert "not right" not in out


def test_messages_name_no_expected_numbers_of_the_checks():
    for entry in MISTAKES:
        text = messages.text(f"mistake.{entry.id}")
        for answer in ("0.506302", "0.739738", "41/50", "0.291313", "0.366032", "0.43046721", "108", "96", "72"):
            assert answer not in text, (entry.id, answer)
