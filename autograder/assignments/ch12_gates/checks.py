"""The checks of ch12_gates: the book's cases of section 12.4 (Examples 12.3-12.4, the second and third
texts' gate examples, Table 12.3's parameter budget) and seeded hidden draws.

Hidden draws: gate values and cells are exact Fractions for `lstm_cell_update`, `retention` and the
exercises 12.7.4-5 (scalar variants of their givens); `lstm_step` and `gru_step` get float64
parameters with input width m from 1 to 4, hidden width d from 1 to 5 (GRU: 2 to 5, see `_gru_case`),
full (non-diagonal) A and U_g matrices, and biases that push some gates to within a few thousandths
of 0 or 1.
"""
from __future__ import annotations

import math
import random
from fractions import Fraction

import numpy as np

from ... import draws
from ...checks import Case, Check
from ...symbolic import to_fraction
from . import reference as ref




def _cell_case(setup: dict, label: str, **override) -> Case:
    values = {**setup, **override}
    return Case(tuple(to_fraction(values[key]) for key in ("c_prev", "f", "i", "g", "o")), label=label)


def _objects(values) -> np.ndarray:
    return np.array(list(values), dtype=object)


def _logit(p) -> float:
    """The preactivation whose sigmoid is the gate value p (how a given gate value enters a step)."""
    p = float(p)
    return math.log(p / (1 - p))


def _public_sigmoid():
    return [Case((0.0,), label="a = 0: a gate half open"),
            Case((math.log(9),), label="a = ln 9: the forget gate 0.9 of Example 12.3"),
            Case((np.array([-2.0, 0.0, 2.0, 40.0, -40.0]),), label="a vector, element-wise, saturated at both ends")]


def _public_cell():
    two = dict(c_prev=_objects([Fraction(4, 5), Fraction(-1)]), f=_objects([Fraction(9, 10), Fraction(1, 2)]),
               i=_objects([Fraction(1, 5), Fraction(1)]), g=_objects([Fraction(1, 2), Fraction(-1, 2)]), o=_objects([Fraction(3, 4), Fraction(0)]))
    return [
        _cell_case(ref.EXAMPLE_12_3, "Example 12.3: cell 0.8, f 0.9, i 0.2, g 0.5, o 0.75"),
        _cell_case(ref.EXERCISE_12_7_4, "exercise 12.7.4 setup: cell 0.8, f 0.5, i 0.25, g -0.4, o 1"),
        _cell_case(ref.TEXT2_EXAMPLE_3, "second text, example 3: cell 2, f 0.8, i 0.25, g -0.4, o 0.5"),
        _cell_case(ref.TEXT3_LSTM, "third text: cell 0.8, f 0.9, i 0.2, g -0.5, o 0.75"),
        Case(tuple(two[key] for key in ("c_prev", "f", "i", "g", "o")), label="two cells at once (element-wise, arrays of Fractions)"),
    ]


def _cell_draw(rng: random.Random) -> Case:
    d = rng.randint(1, 5)
    gate = lambda: _objects(draws.rationals(rng, d, low=0, high=1))  # noqa: E731 (0 and 1 are the limits)
    return Case((_objects(draws.rationals(rng, d, low=-2, high=2)), gate(), gate(), _objects(draws.rationals(rng, d, low=-1, high=1)), gate()))


def _public_ex_12_7_4():
    return [_cell_case(ref.EXERCISE_12_7_4, "exercise 12.7.4: cell 0.8, f 0.5, i 0.25, g -0.4, o 1")]


def _gate(rng: random.Random, limits: float = 0.15) -> Fraction:
    """A gate value: a limit setting (0 or 1) with probability `limits`, else strictly between them."""
    if rng.random() < limits:
        return Fraction(rng.choice([0, 1]))
    d = rng.choice((3, 4, 5, 8, 10))
    return Fraction(rng.randint(1, d - 1), d)


def _draw_ex_12_7_4(rng: random.Random) -> Case:
    """One scalar cell: an old cell of either sign, gates in [0, 1] (now and then a limit setting), a
    nonzero candidate in [-1, 1]."""
    return Case((draws.rational(rng, -2, 2, nonzero=True), _gate(rng), _gate(rng), draws.rational(rng, -1, 1, nonzero=True), _gate(rng)))


def _public_ex_12_7_5():
    five = ref.EXERCISE_12_7_5
    return [Case(tuple(to_fraction(five[key]) for key in ("h_prev", "z", "r", "candidate")),
                 label="exercise 12.7.5: z = 1, r = 0, h_prev 0.8, candidate -0.4")]


def _draw_ex_12_7_5(rng: random.Random) -> Case:
    """A nonzero h_prev and a candidate of either sign, z and r in [0, 1] (now and then a limit setting)."""
    return Case((draws.rational(rng, -2, 2, nonzero=True), _gate(rng), _gate(rng), draws.rational(rng, -1, 1)))


def _scalar_lstm_params(setup: dict) -> dict:
    """Example-style parameters: A = 0, so each gate is sigmoid(bias); the biases are the logits of the book's gate values."""
    zeros = np.zeros((2, 1))
    return {"A_f": zeros, "A_i": zeros.copy(), "A_o": zeros.copy(), "A_g": zeros.copy(),
            "b_f": np.array([_logit(setup["f"])]), "b_i": np.array([_logit(setup["i"])]),
            "b_o": np.array([_logit(setup["o"])]), "b_g": np.array([math.atanh(float(setup["g"]))])}


def _public_lstm():
    two = {f"A_{name}": np.array(rows, dtype=float) for name, rows in (
        ("f", [[0.5, -0.25], [0.25, 0.5], [-0.5, 0.125], [0.0, 1.0]]),
        ("i", [[-0.25, 0.75], [0.5, 0.0], [0.125, -0.5], [1.0, 0.25]]),
        ("o", [[1.0, 0.0], [-0.5, 0.5], [0.25, 0.25], [0.0, -0.75]]),
        ("g", [[0.75, -1.0], [0.0, 0.5], [-0.25, 0.5], [0.5, 0.125]]))}
    two.update(b_f=np.array([1.0, 0.5]), b_i=np.array([-0.5, 0.0]), b_o=np.array([0.0, 0.25]), b_g=np.array([0.125, -0.25]))
    return [
        Case((np.zeros(1), np.zeros(1), np.array([0.8]), _scalar_lstm_params(ref.EXAMPLE_12_3)),
             label="Example 12.3 as a step: A = 0, biases logit(0.9), logit(0.2), logit(0.75), atanh(0.5)"),
        Case((np.zeros(1), np.zeros(1), np.array([0.8]), _scalar_lstm_params(ref.TEXT3_LSTM)),
             label="third text's LSTM as a step: gates 0.9, 0.2, 0.75, candidate -0.5"),
        Case((np.array([1.0, -0.5]), np.array([0.25, -0.75]), np.array([0.5, -1.0]), two), label="two inputs, two cells, full matrices"),
    ]


def _matrix(rng: random.Random, rows: int, cols: int) -> np.ndarray:
    """A full matrix: every row and column has an entry off the diagonal (no coordinate stays on its own)."""
    A = draws.matrix(rng, rows, cols)
    for k in range(rows):
        A[k, (k + 1) % cols] += rng.choice([-0.5, 0.5]) if cols > 1 or rows > 1 else 0.0
    return A


def _bias(rng: random.Random, d: int) -> np.ndarray:
    """A bias; about a third of its coordinates push the gate near 0 or 1 (|bias| from 4 to 9)."""
    b = draws.matrix(rng, 0, d, scale=0.5)
    for k in range(d):
        if rng.random() < 0.35:
            b[k] = rng.choice([-1, 1]) * rng.uniform(4, 9)
    return b


def _lstm_case(rng: random.Random) -> Case:
    m, d = rng.randint(1, 4), rng.randint(1, 5)
    params = {f"A_{name}": _matrix(rng, m + d, d) for name in "fiog"}
    params.update({f"b_{name}": _bias(rng, d) for name in "fiog"})
    return Case((draws.uniform(rng, (m,)), draws.uniform(rng, (d,)), draws.uniform(rng, (d,), -2, 2), params))


def _scalar_gru_params(setup: dict) -> dict:
    return {"A_r": np.zeros((2, 1)), "A_z": np.zeros((2, 1)), "W_g": np.array([[float(setup["W_g"])]]), "U_g": np.array([[float(setup["U_g"])]]),
            "b_r": np.array([_logit(setup["r"])]), "b_z": np.array([_logit(setup["z"])]), "b_g": np.array([float(setup["b_g"])])}


def _public_gru():
    e4, t3 = ref.EXAMPLE_12_4, ref.TEXT3_GRU
    two = {"A_r": np.array([[0.5, -0.5], [1.0, 0.25], [-0.75, 0.5]]), "A_z": np.array([[-0.25, 0.5], [0.5, -1.0], [0.25, 0.75]]),
           "W_g": np.array([[0.5, -0.25]]), "U_g": np.array([[0.25, 1.0], [-1.0, 0.5]]),
           "b_r": np.array([-1.0, 0.5]), "b_z": np.array([0.5, -0.25]), "b_g": np.array([0.0, 0.125])}
    return [
        Case((np.array([float(e4["x"])]), np.array([float(e4["h_prev"])]), _scalar_gru_params(e4)),
             label="Example 12.4 as a step: h_prev 0.8, biases logit(0.25), logit(0.9), no input contribution, U_g = 1"),
        Case((np.array([float(t3["x"])]), np.array([float(t3["h_prev"])]), _scalar_gru_params(t3)),
             label="third text's GRU as a step: x 1, h_prev 0.8, r 0.25, z 0.75, W_g 0.5, U_g 1"),
        Case((np.array([1.0]), np.array([0.5, -0.75]), two), label="two coordinates, U_g mixes them (where the reset acts matters)"),
    ]


def _gru_case(rng: random.Random) -> Case:
    """d starts at 2: with one coordinate U_g is a number, and resetting before or after it is the same."""
    m, d = rng.randint(1, 4), rng.randint(2, 5)
    params = {"A_r": _matrix(rng, m + d, d), "A_z": _matrix(rng, m + d, d), "W_g": draws.matrix(rng, m, d), "U_g": _matrix(rng, d, d) * 1.5,
              "b_r": _bias(rng, d), "b_z": _bias(rng, d), "b_g": draws.matrix(rng, 0, d, scale=0.5)}
    return Case((draws.uniform(rng, (m,)), draws.uniform(rng, (d,), -1.5, 1.5), params))


def _public_retention():
    (f1, k1), (f2, k2) = ref.SECTION_12_4_RETENTION
    t2 = ref.TEXT2_EXAMPLE_3
    return [Case((to_fraction(f1), k1), label=f"section 12.4: f = {float(f1)} over {k1} edges"),
            Case((to_fraction(f2), k2), label=f"section 12.4: f = {float(f2)} over {k2} edges"),
            Case((to_fraction(t2["f"]), t2["steps"]), label=f"second text, example 3: f = {float(t2['f'])} over {t2['steps']} edges"),
            Case((Fraction(1, 2), 8), label="a gate stuck at 0.5: the halving RNN of Chapter 11")]


def _count_public():
    D, H = ref.PARAM_COUNT["D"], ref.PARAM_COUNT["H"]
    return lambda: [Case((D, H), label=f"third text: D = {D}, H = {H}")]


def _count_draw(rng: random.Random) -> Case:
    return Case((rng.randint(1, 64), rng.randint(1, 64)))


CHECKS = [
    Check("sigmoid", ref.sigmoid, _public_sigmoid,
          draw=lambda rng: Case((rng.uniform(-8, 8),)) if rng.random() < 0.3 else Case((np.array([rng.uniform(-8, 8) for _ in range(rng.randint(1, 5))] + rng.sample([-700.0, -60.0, 60.0, 700.0], 1)),)), points=1),
    Check("lstm_cell_update", ref.lstm_cell_update, _public_cell, exact=True, draw=_cell_draw, points=2),
    Check("ex_12_7_4", ref.ex_12_7_4, _public_ex_12_7_4, exact=True, reveal=False, draw=_draw_ex_12_7_4, points=1),
    Check("lstm_step", ref.lstm_step, _public_lstm, draw=_lstm_case, points=3),
    Check("gru_step", ref.gru_step, _public_gru, draw=_gru_case, points=3),
    Check("ex_12_7_5", ref.ex_12_7_5, _public_ex_12_7_5, exact=True, reveal=False, draw=_draw_ex_12_7_5, points=1),
    Check("retention", ref.retention, _public_retention, exact=True,
          draw=lambda rng: Case((draws.rational(rng, 0, 1, denominators=(2, 4, 5, 8, 10, 20, 100)), rng.randint(1, 40))), points=1),
    Check("rnn_param_count", ref.rnn_param_count, _count_public(), draw=_count_draw, points=1),
    Check("lstm_param_count", ref.lstm_param_count, _count_public(), draw=_count_draw, points=1),
    Check("lstm_param_count_two_bias", ref.lstm_param_count_two_bias, _count_public(), draw=_count_draw, points=1),
    Check("gru_param_count", ref.gru_param_count, _count_public(), draw=_count_draw, points=1),
]
