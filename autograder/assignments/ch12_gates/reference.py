"""Exact SymPy references for ch12_gates (section 12.4: Examples 12.3-12.4, exercises 12.7.4-12.7.5).

Each check reference has the signature of the student function it grades. Inputs become exact
Rationals (a float becomes the exact value of the double, or a 30-digit SymPy Float where the check
demands exact types back, see `to_sympy`); sigmoid, tanh and exp are evaluated to `DIGITS` digits.

The derivations are kept apart from the solution code where that is natural:
* the LSTM and GRU steps use the split form "x W + h U + b" of the second and third texts
  (W = the first m rows of A, U = the last d rows) instead of concatenating u = [x, h_prev];
* the GRU mix is written as the interpolation h_prev + (1 - z)(g - h_prev);
* retention runs the direct cell path step by step (nothing written, c <- f c);
* parameter counts add up the shapes of every weight and bias.

The book's inputs (gate values, old states, widths) are named constants below: they are inputs,
never expected outputs. `book_values()` derives every expected.json entry of this assignment from
them, and `book_log()` prints the LSTM and GRU examples step by step.
"""

from __future__ import annotations

from decimal import Decimal
from math import prod

import numpy as np
import sympy as sp
from gmpy2 import mpq

from ...vocabulary.symbolic import exact_double, to_sympy

#: Working precision of transcendental values (the comparison uses 30 of them).
DIGITS = 40

R = sp.Rational

# --- the book's inputs ---------------------------------------------------------------------------

#: Example 12.3: a scalar cell holding 0.8; forget 0.9, input 0.2, candidate 0.5, output 0.75.
EXAMPLE_12_3 = {"c_prev": R(4, 5), "f": R(9, 10), "i": R(1, 5), "g": R(1, 2), "o": R(3, 4)}
#: Exercise 12.7.4: old cell 0.8, forget 0.5, input 0.25, candidate -0.4, output 1 (then 0).
EXERCISE_12_7_4 = {"c_prev": R(4, 5), "f": R(1, 2), "i": R(1, 4), "g": R(-2, 5), "o": sp.Integer(1)}
#: Example 12.4: old hidden 0.8, update 0.9, reset 0.25; the candidate's input contribution is 0
#: and its recurrent weight 1 (no bias).
EXAMPLE_12_4 = {
    "x": sp.Integer(0),
    "h_prev": R(4, 5),
    "r": R(1, 4),
    "z": R(9, 10),
    "W_g": sp.Integer(1),
    "U_g": sp.Integer(1),
    "b_g": sp.Integer(0),
}
#: Exercise 12.7.5: update gate 1, reset gate 0 (limit settings), old hidden 0.8 (as in Example 12.4); the
#: book states no candidate (with z = 1 it has no weight): the check's case gives it -0.4.
EXERCISE_12_7_5 = {"h_prev": R(4, 5), "z": sp.Integer(1), "r": sp.Integer(0), "candidate": R(-2, 5)}
#: Section 12.4: forget gate fixed at 0.9 for 8 edges, at 0.99 for 100 edges.
SECTION_12_4_RETENTION = ((R(9, 10), 8), (R(99, 100), 100))
#: Second text, example 3: c_prev 2, f 0.8, i 0.25, g -0.4, o 0.5; three steps of f = 0.8 against a
#: simple RNN whose Jacobian is 0.5.
TEXT2_EXAMPLE_3 = {
    "c_prev": sp.Integer(2),
    "f": R(4, 5),
    "i": R(1, 4),
    "g": R(-2, 5),
    "o": R(1, 2),
    "steps": 3,
    "simple_factor": R(1, 2),
}
#: Second text, example 4 (COMPLEMENTARY GRU convention h = (1 - z) h_prev + z g): h_prev 1,
#: candidate -0.5, update gate 0.2 and 0.9.
TEXT2_EXAMPLE_4 = {"h_prev": sp.Integer(1), "g": R(-1, 2), "z": (R(1, 5), R(9, 10))}
#: Third text, LSTM: c_prev 0.8, f 0.9, i 0.2, g -0.5, o 0.75.
TEXT3_LSTM = {"c_prev": R(4, 5), "f": R(9, 10), "i": R(1, 5), "g": R(-1, 2), "o": R(3, 4)}
#: Third text, GRU (Cho convention): x 1, h_prev 0.8, r 0.25, z 0.75, W_g 0.5, U_g 1, b_g 0.
TEXT3_GRU = {
    "x": sp.Integer(1),
    "h_prev": R(4, 5),
    "r": R(1, 4),
    "z": R(3, 4),
    "W_g": R(1, 2),
    "U_g": sp.Integer(1),
    "b_g": sp.Integer(0),
}
#: The widths of the parameter counts (third text): input 4, hidden 3, classes 2.
PARAM_COUNT = {"D": 4, "H": 3, "C": 2}


# --- numbers -------------------------------------------------------------------------------------


def _evaluate(expr: sp.Expr) -> sp.Float:
    """A transcendental result as a DIGITS-digit Float (also when it happens to be exactly 0)."""
    return sp.Float(sp.N(expr, DIGITS), DIGITS)


def _sigma(a: sp.Expr) -> sp.Expr:
    """1 / (1 + e^-a) as it is written, for `_evaluate`: SymPy's simplification of each part on the way
    costs more than the evaluation and changes no digit of it."""
    return sp.Pow(sp.Add(sp.S.One, sp.exp(-a, evaluate=False), evaluate=False), -1, evaluate=False)


def _tanh(a: sp.Expr) -> sp.Expr:
    """tanh(a) as it is written, for `_evaluate` (see `_sigma`)."""
    return sp.tanh(a, evaluate=False)


def _row(v) -> list:
    return [exact_double(item) for item in np.asarray(v, dtype=object).reshape(-1)]


def _matrix(M) -> list[list]:
    array = np.asarray(M, dtype=object)
    return [[exact_double(item) for item in row] for row in array.reshape(array.shape[0], -1)]


def _times(v: list, M: list[list]) -> list:
    """Row vector times matrix."""
    return [sum((v[k] * M[k][j] for k in range(len(v))), sp.Integer(0)) for j in range(len(M[0]))]


def _plus(*vectors: list) -> list:
    return [sum(items, sp.Integer(0)) for items in zip(*vectors)]


def _objects(values: list) -> np.ndarray:
    return np.array(values, dtype=object)


def _elementwise(fn, *args):
    """Apply a scalar rule to numbers, or coordinate by coordinate to 1-D arrays (broadcast)."""
    if all(np.ndim(arg) == 0 for arg in args):
        return fn(*(to_sympy(np.asarray(arg, dtype=object)[()]) for arg in args))
    columns = np.broadcast_arrays(*(np.asarray(arg, dtype=object) for arg in args))
    results = [fn(*(to_sympy(column[k]) for column in columns)) for k in range(columns[0].shape[0])]
    return (
        tuple(_objects(list(parts)) for parts in zip(*results)) if isinstance(results[0], tuple) else _objects(results)
    )


# --- engines (scalar rules, exact where the inputs are) ------------------------------------------


def lstm_from_gates(c_prev, f, i, g, o) -> dict:
    """The cell path of one LSTM coordinate: kept f c_prev, written i g, the cell, the exposed value."""
    kept, written = f * c_prev, i * g
    c = kept + written
    exposed = _tanh(c)
    return {"kept": kept, "written": written, "c": c, "tanh-c": exposed, "h": o * exposed}


def gru_from_gates(x, h_prev, r, z, W_g, U_g, b_g) -> dict:
    """One scalar GRU coordinate in Cho's convention from given gates (Example 12.4, third text)."""
    reset_h = r * h_prev
    preactivation = x * W_g + reset_h * U_g + b_g
    g = sp.tanh(preactivation)
    return {
        "reset-h": reset_h,
        "candidate-preactivation": preactivation,
        "candidate": g,
        "kept": z * h_prev,
        "written": (1 - z) * g,
        "h": h_prev + (1 - z) * (g - h_prev),
    }


def gru_complementary_from_gates(h_prev, z, g) -> sp.Expr:
    """The second text's COMPLEMENTARY convention h = (1 - z) h_prev + z g (its example 4 only)."""
    return (1 - z) * h_prev + z * g


# --- check references ----------------------------------------------------------------------------


def sigmoid(a):
    if np.ndim(a) == 0:
        return _evaluate(_sigma(exact_double(np.asarray(a, dtype=object)[()])))
    return _objects([_evaluate(_sigma(value)) for value in _row(a)]).reshape(np.shape(a))


def _cell(c_prev, f, i, g, o):
    parts = lstm_from_gates(c_prev, f, i, g, o)
    return parts["c"], _evaluate(parts["h"])


def lstm_cell_update(c_prev, f, i, g, o):
    """(c, h): c exact for exact inputs; h through tanh (as a Float even where it is exactly 0)."""
    return _elementwise(_cell, c_prev, f, i, g, o)


def _affine(x: list, h: list, A, b) -> list:
    """x W + h U + b for A = [W; U] (W applied to x, U to h), summed in GMP's rationals: exact,
    without SymPy's simplification of every partial sum."""
    inputs = [_gmp(v) for v in (*x, *h)]
    rows = [[_gmp(v) for v in row] for row in np.asarray(A, dtype=object).reshape(len(inputs), -1)]
    return [
        sp.Rational(int(total.numerator), int(total.denominator))
        for total in (
            sum((inputs[k] * rows[k][j] for k in range(len(inputs))), _gmp(bias))
            for j, bias in enumerate(np.asarray(b, dtype=object).reshape(-1))
        )
    ]


def _gmp(value) -> mpq:
    """An input number as GMP's rational of what `exact_double` makes of it (a float's exact value)."""
    if isinstance(value, (float, np.floating)):
        return mpq(float(value))
    exact = exact_double(value)
    if not exact.is_Rational:
        raise TypeError(f"an LSTM or GRU input is not a rational number: {value!r}")
    return mpq(int(exact.p), int(exact.q))


def lstm_step(x, h_prev, c_prev, params):
    x, h, c_old = _row(x), _row(h_prev), _row(c_prev)
    gates = {
        name: [_evaluate(activation(a)) for a in _affine(x, h, params[f"A_{name}"], params[f"b_{name}"])]
        for name, activation in (("f", _sigma), ("i", _sigma), ("o", _sigma), ("g", _tanh))
    }
    cells = [
        lstm_from_gates(c_old[k], gates["f"][k], gates["i"][k], gates["g"][k], gates["o"][k]) for k in range(len(h))
    ]
    return (
        _objects([_evaluate(cell["h"]) for cell in cells]),
        _objects([_evaluate(cell["c"]) for cell in cells]),
        {name: _objects(values) for name, values in gates.items()},
    )


def gru_step(x, h_prev, params):
    x, h = _row(x), _row(h_prev)
    r = [_evaluate(_sigma(a)) for a in _affine(x, h, params["A_r"], params["b_r"])]
    z = [_evaluate(_sigma(a)) for a in _affine(x, h, params["A_z"], params["b_z"])]
    reset_h = [r[k] * h[k] for k in range(len(h))]
    preactivation = _plus(
        _times(x, _matrix(params["W_g"])), _times(reset_h, _matrix(params["U_g"])), _row(params["b_g"])
    )
    g = [_evaluate(_tanh(a)) for a in preactivation]
    return _objects([_evaluate(h[k] + (1 - z[k]) * (g[k] - h[k])) for k in range(len(h))])


def retention(f, steps):
    """Run the direct cell path: start from 1, write nothing, keep the fraction f on every edge."""
    f, c = to_sympy(f), sp.Integer(1)
    for _ in range(int(steps)):
        c = lstm_from_gates(c, f, 0, 0, 1)["c"]
    return c


def _count(shapes) -> int:
    return sum(prod(shape) for shape in shapes)


def _gated_shapes(D: int, H: int, blocks: int, biases: int) -> list[tuple[int, ...]]:
    """Per block: A of shape (D + H, H) acting on u = [x, h_prev], and `biases` bias vectors of shape (H,)."""
    return [shape for _ in range(blocks) for shape in [(D + H, H), *[(H,)] * biases]]


def rnn_param_count(D, H):
    return _count([(D, H), (H, H), (H,)])


def lstm_param_count(D, H):
    return _count(_gated_shapes(D, H, blocks=len("fiog"), biases=1))


def lstm_param_count_two_bias(D, H):
    return _count(_gated_shapes(D, H, blocks=len("fiog"), biases=2))


def gru_param_count(D, H):
    return _count(_gated_shapes(D, H, blocks=len("rzg"), biases=1))


def output_layer_param_count(H, C):
    """The output layer of the third text: W_o (H, C) and b_o (C,)."""
    return _count([(H, C), (C,)])


def ex_12_7_4(c_prev, f, i, g, o):
    """The cell path with the output gate given, then closed (o = 0): exact parts, h through tanh."""
    c_prev, f, i, g, o = (exact_double(value) for value in (c_prev, f, i, g, o))
    open_, closed = lstm_from_gates(c_prev, f, i, g, o), lstm_from_gates(c_prev, f, i, g, sp.Integer(0))
    return {
        "kept": open_["kept"],
        "written": open_["written"],
        "c": open_["c"],
        "h": _evaluate(open_["h"]),
        "c with o = 0": closed["c"],
        "h with o = 0": _evaluate(closed["h"]),
    }


def ex_12_7_5(h_prev, z, r, candidate):
    """The final mix of one GRU coordinate in Cho's convention with the candidate given: r acted inside
    the candidate's computation, so it does not enter the mix (written as the interpolation
    h_prev + (1 - z)(g - h_prev))."""
    h_prev, z, candidate = (exact_double(value) for value in (h_prev, z, candidate))
    return {"keep weight": z, "candidate weight": 1 - z, "h": h_prev + (1 - z) * (candidate - h_prev)}


# --- the book's values (expected.json) and the state log ----------------------------------------


def book_values() -> dict:
    """Every expected.json entry under this assignment's prefixes, derived from the inputs above."""
    values: dict = {}
    for prefix, setup, keys in (
        ("example-12.3", EXAMPLE_12_3, ("kept", "written", "c", "h")),
        ("exercise-12.7.4", EXERCISE_12_7_4, ("kept", "written", "c", "h")),
        ("text3-lstm", TEXT3_LSTM, ("c", "h")),
    ):
        parts = lstm_from_gates(**setup)
        values.update({f"{prefix}/{key}": parts[key] for key in keys})
    closed = lstm_from_gates(**{**EXERCISE_12_7_4, "o": sp.Integer(0)})
    values.update({"exercise-12.7.4/c-with-o-0": closed["c"], "exercise-12.7.4/h-with-o-0": closed["h"]})
    for prefix, setup, keys in (
        ("example-12.4", EXAMPLE_12_4, ("reset-h", "candidate", "kept", "h")),
        ("text3-gru", TEXT3_GRU, ("candidate-preactivation", "candidate", "h")),
    ):
        parts = gru_from_gates(**setup)
        values.update({f"{prefix}/{key}": parts[key] for key in keys})
    five = ex_12_7_5(**EXERCISE_12_7_5)
    values.update(
        {
            "exercise-12.7.5/keep-weight": five["keep weight"],
            "exercise-12.7.5/candidate-weight": five["candidate weight"],
        }
    )
    for f, steps in SECTION_12_4_RETENTION:
        values[f"section-12.4/retention-{float(f):g}-{steps}"] = retention(f, steps)
    D, H, C = PARAM_COUNT["D"], PARAM_COUNT["H"], PARAM_COUNT["C"]
    values.update(
        {
            f"param-count/rnn-d{D}-h{H}": rnn_param_count(D, H),
            f"param-count/output-layer-h{H}-c{C}": output_layer_param_count(H, C),
            f"param-count/rnn-with-output-d{D}-h{H}-c{C}": rnn_param_count(D, H) + output_layer_param_count(H, C),
            f"param-count/lstm-d{D}-h{H}": lstm_param_count(D, H),
            f"param-count/lstm-two-bias-d{D}-h{H}": lstm_param_count_two_bias(D, H),
            f"param-count/gru-d{D}-h{H}": gru_param_count(D, H),
        }
    )
    t2 = TEXT2_EXAMPLE_3
    parts = lstm_from_gates(t2["c_prev"], t2["f"], t2["i"], t2["g"], t2["o"])
    values.update(
        {
            "text2-example-3/c": parts["c"],
            "text2-example-3/h": parts["h"],
            f"text2-example-3/forget-factor-{t2['steps']}": retention(t2["f"], t2["steps"]),
            f"text2-example-3/simple-factor-{t2['steps']}": retention(t2["simple_factor"], t2["steps"]),
        }
    )
    t4 = TEXT2_EXAMPLE_4
    for z in t4["z"]:  # the second text's COMPLEMENTARY convention, computed explicitly and labelled so
        values[f"text2-example-4/h-z-{float(z):g}"] = gru_complementary_from_gates(t4["h_prev"], z, t4["g"])
    return values


def _terminates(q: int) -> bool:
    """True when 1/q has a finite decimal expansion (q has no prime factors but 2 and 5)."""
    for prime in (2, 5):
        while q % prime == 0:
            q //= prime
    return q == 1


def _show(value) -> str:
    """A log entry: a fraction with its decimal (exact when it terminates), else 6 significant digits."""
    value = sp.sympify(value)
    if not value.is_Rational:
        return f"{sp.N(value, 6)}"
    if value.q == 1:
        return str(value)
    if len(str(value)) > 24:
        return f"{float(value):.6f} (exact, {len(str(value.q))}-digit denominator)"
    if _terminates(int(value.q)):
        return f"{value} ({(Decimal(int(value.p)) / Decimal(int(value.q))).normalize():f})"
    return f"{value} ({float(value):g})"


def book_log() -> list[str]:
    """The state log of the gate examples, one line per computed quantity."""
    lines = []
    for label, setup in (
        ("Example 12.3 LSTM", EXAMPLE_12_3),
        ("exercise 12.7.4 LSTM", EXERCISE_12_7_4),
        ("exercise 12.7.4 LSTM, o = 0", {**EXERCISE_12_7_4, "o": sp.Integer(0)}),
        ("second text example 3 LSTM", {k: TEXT2_EXAMPLE_3[k] for k in ("c_prev", "f", "i", "g", "o")}),
        ("third text LSTM", TEXT3_LSTM),
    ):
        parts = lstm_from_gates(**setup)
        lines.append(
            f"{label}: c_prev={_show(setup['c_prev'])} f={_show(setup['f'])} "
            f"i={_show(setup['i'])} g={_show(setup['g'])} o={_show(setup['o'])}"
        )
        lines.append(
            f"  kept f*c_prev = {_show(parts['kept'])} | written i*g = {_show(parts['written'])} | c = {_show(parts['c'])}"
            f" | tanh(c) = {_show(parts['tanh-c'])} | h = o*tanh(c) = {_show(parts['h'])}"
        )
    for label, setup in (("Example 12.4 GRU (Cho)", EXAMPLE_12_4), ("third text GRU (Cho)", TEXT3_GRU)):
        parts = gru_from_gates(**setup)
        lines.append(
            f"{label}: h_prev={_show(setup['h_prev'])} r={_show(setup['r'])} z={_show(setup['z'])} "
            f"x*W_g={_show(setup['x'] * setup['W_g'])} U_g={_show(setup['U_g'])} b_g={_show(setup['b_g'])}"
        )
        lines.append(
            f"  reset r*h_prev = {_show(parts['reset-h'])} | candidate preactivation = {_show(parts['candidate-preactivation'])}"
            f" | candidate g = {_show(parts['candidate'])} | kept z*h_prev = {_show(parts['kept'])}"
            f" | written (1-z)*g = {_show(parts['written'])} | h = {_show(parts['h'])}"
        )
    five = EXERCISE_12_7_5
    mix = ex_12_7_5(five["h_prev"], five["z"], five["r"], sp.Symbol("g"))  # any candidate: with z = 1 it drops out
    assert mix["h"] == five["h_prev"], "with z = 1 the candidate must drop out of the mix"
    lines.append(
        f"exercise 12.7.5 GRU (Cho): z={_show(five['z'])} r={_show(five['r'])} -> keep weight {_show(mix['keep weight'])},"
        f" candidate weight {_show(mix['candidate weight'])}, h = h_prev = {_show(mix['h'])} "
        f"for h_prev = {_show(five['h_prev'])}, whatever the candidate"
    )
    t4 = TEXT2_EXAMPLE_4
    for z in t4["z"]:
        lines.append(
            f"second text example 4 GRU (COMPLEMENTARY convention h = (1-z) h_prev + z g): h_prev={_show(t4['h_prev'])}"
            f" g={_show(t4['g'])} z={_show(z)} -> h = {_show(gru_complementary_from_gates(t4['h_prev'], z, t4['g']))}"
        )
    for f, steps in SECTION_12_4_RETENTION:
        lines.append(f"section 12.4 retention: f={_show(f)} over {steps} edges -> {_show(retention(f, steps))}")
    D, H = PARAM_COUNT["D"], PARAM_COUNT["H"]
    lines.append(
        f"parameter counts D={D} H={H}: RNN {rnn_param_count(D, H)}, LSTM {lstm_param_count(D, H)}, "
        f"LSTM two biases {lstm_param_count_two_bias(D, H)}, GRU {gru_param_count(D, H)}"
    )
    return lines
