"""Exact references for ch12_boundaries (sections 12.3 and 12.5, the second text's state-boundary
rules, the third text's masked loss, exercises 12.7.3 and 12.7.6).

Each function has the signature of the student function it grades, and is derived from the rule as
stated rather than from the solution's loop:

* truncated BPTT: the training loss is written as a polynomial in the weight (SymPy's ring over QQ),
  in which the state at each segment boundary is the *number* it has in the forward pass (a
  constant: that is what "detach" means); the gradient is its exact derivative. Full BPTT is the
  same with one segment.
* tanh RNN states: the step's float64 weights are taken exactly (every float is a dyadic rational)
  and the recursion is evaluated in SymPy's arbitrary-precision arithmetic (mpmath, 40 digits) - the
  checks compare at 30 digits. Streams are run as one concatenated sequence and then split; entity
  streams are cut into runs of one id, each run from h0; padded rows are run over their valid prefix
  and then held; the backward state at t is computed by reading x_T..x_t directly.
* the masked mean is an exact Rational: the valid float losses taken exactly, over their count.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import sympy as sp
from sympy import QQ
from sympy.polys.rings import ring

from ...vocabulary.symbolic import to_sympy

WORK_DIGITS = 40
w_, s_ = sp.symbols("w s")


# ----------------------------------------------------------------------------- tanh RNN engine


class _Engine:
    """h_new = tanh(x W_x + h W_h + b) for one row, in 40-digit arithmetic, from a step's exact weights."""

    def __init__(self, step):
        self.W_x = [[mpmath.mpf(float(v)) for v in row] for row in np.asarray(step.W_x, dtype=float)]
        self.W_h = [[mpmath.mpf(float(v)) for v in row] for row in np.asarray(step.W_h, dtype=float)]
        self.b = [mpmath.mpf(float(v)) for v in np.asarray(step.b, dtype=float)]

    def __call__(self, x, h):
        return [
            mpmath.tanh(
                mpmath.fsum(
                    [
                        self.b[j],
                        *(xi * row[j] for xi, row in zip(x, self.W_x)),
                        *(hi * row[j] for hi, row in zip(h, self.W_h)),
                    ]
                )
            )
            for j in range(len(self.b))
        ]


def _row(values) -> list:
    return [mpmath.mpf(float(v)) for v in np.asarray(values, dtype=float).reshape(-1)]


def _run(step, xs, h0) -> list[list]:
    """States h_1..h_T of the tanh RNN over the rows of xs, from h0 (40-digit mpf rows)."""
    engine, h, states = _Engine(step), _row(h0), []
    if len(xs) == 0:
        return states
    with mpmath.workdps(WORK_DIGITS):
        for x in np.asarray(xs, dtype=float).reshape(len(xs), -1):
            h = engine(_row(x), h)
            states.append(h)
    return states


def _array(rows: list[list], width: int) -> np.ndarray:
    """mpf rows as a (T, d) object array of SymPy Floats."""
    out = np.empty((len(rows), width), dtype=object)
    for t, row in enumerate(rows):
        for j, value in enumerate(row):
            out[t, j] = sp.Float(value, WORK_DIGITS)
    return out


def _width(h0) -> int:
    return int(np.asarray(h0).reshape(-1).size)


def run_independent(step, sequences, h0):
    return [_array(_run(step, xs, h0), _width(h0)) for xs in sequences]


def run_stream(step, segments, h0):
    """One stream: run the concatenation once, then cut the states at the segment lengths."""
    lengths = [len(segment) for segment in segments]
    whole = _run(step, np.concatenate([np.asarray(s, dtype=float).reshape(len(s), -1) for s in segments]), h0)
    cuts = np.cumsum([0, *lengths])
    return [_array(whole[a:b], _width(h0)) for a, b in zip(cuts[:-1], cuts[1:])]


def run_entities(step, stream, h0):
    """Maximal runs of one entity id, each run from h0."""
    runs: list[list] = []
    for entity, x in stream:
        if runs and runs[-1][0] == entity:
            runs[-1][1].append(x)
        else:
            runs.append([entity, [x]])
    states = [state for _, xs in runs for state in _run(step, np.asarray(xs, dtype=float), h0)]
    return _array(states, _width(h0))


def masked_rnn_forward(step, X, lengths, h0):
    """Each row run over its valid prefix only; the last valid state is then held to the end."""
    X = np.asarray(X, dtype=float)
    B, T, _ = X.shape
    d = _width(h0)
    H, final = np.empty((B, T, d), dtype=object), np.empty((B, d), dtype=object)
    for b in range(B):
        n = int(lengths[b])
        states = _run(step, X[b, :n], h0) if n else []
        held = states[-1] if states else _row(h0)
        rows = _array(states + [held] * (T - n), d)
        H[b] = rows
        final[b] = _array([held], d)[0]
    return H, final


def masked_mean_loss(losses, mask):
    """(1 / N_valid) * sum of the valid losses (third text), exact."""
    losses, mask = np.asarray(losses, dtype=float), np.asarray(mask, dtype=bool)
    valid = [sp.Rational(float(v)) for v, m in zip(losses.flat, mask.flat) if m]
    return sum(valid, sp.Integer(0)) / len(valid)


def generation_features(step, xs, h0):
    return _array(_run(step, xs, h0), _width(h0))


def bidirectional_features(step_f, step_b, xs, h0):
    """Row t: [forward state after x_1..x_t, backward state after reading x_T, ..., x_t]."""
    xs = np.asarray(xs, dtype=float).reshape(len(xs), -1)
    forward = _run(step_f, xs, h0)
    backward = [_run(step_b, xs[t:][::-1], h0)[-1] for t in range(len(xs))]
    return _array([f + b for f, b in zip(forward, backward)], 2 * _width(h0))


# ----------------------------------------------------------------------------- truncated BPTT


def _exact_inputs(xs, w, targets, h0):
    return [to_sympy(x) for x in xs], to_sympy(w), {int(t): to_sympy(y) for t, y in targets.items()}, to_sympy(h0)


def _forward(xs, w, h0) -> list:
    states, h = [], h0
    for x in xs:
        h = x + w * h
        states.append(h)
    return states


def _training_loss(xs, targets, k, h0, states, gens, weight) -> tuple:
    """The loss that truncated BPTT differentiates, as a polynomial over QQ in the weight symbols
    `gens`: (its ring's generators, the polynomial). `weight(generators, t)` is the generator of the
    use of w at step t.

    Within a segment the state is rebuilt from the weights; the state entering a segment is the
    number it has in the forward pass, so no derivative flows through it."""
    polynomials, *generators = ring(gens, QQ)
    exact = QQ.from_sympy
    loss = polynomials.zero
    for start in range(0, len(xs), k):
        h = polynomials(exact(h0 if start == 0 else states[start - 1]))
        for t in range(start, min(start + k, len(xs))):
            h = weight(generators, t) * h + exact(xs[t])
            if t + 1 in targets:
                loss += (h - exact(targets[t + 1])) ** 2 / 2
    return generators, loss


def truncated_bptt_scalar(xs, w, targets, k, h0=0):
    xs, w, targets, h0 = _exact_inputs(xs, w, targets, h0)
    states = _forward(xs, w, h0)
    loss = sum(((states[t - 1] - y) ** 2 / 2 for t, y in targets.items()), sp.Integer(0))
    (weight,), polynomial = _training_loss(xs, targets, int(k), h0, states, (w_,), lambda generators, t: generators[0])
    return {
        "states": states,
        "loss": loss,
        "grad": QQ.to_sympy(polynomial.diff(weight).evaluate(weight, QQ.from_sympy(w))),
    }


def contributions(xs, w, targets, k, h0=0) -> list:
    """The contribution of each use of w (one symbol per step), with segments of k."""
    xs, w, targets, h0 = _exact_inputs(xs, w, targets, h0)
    states = _forward(xs, w, h0)
    uses, polynomial = _training_loss(
        xs, targets, int(k), h0, states, sp.symbols(f"w1:{len(xs) + 1}"), lambda generators, t: generators[t]
    )
    at = [(use, QQ.from_sympy(w)) for use in uses]
    return [QQ.to_sympy(polynomial.diff(use).evaluate(at)) for use in uses]


def dL_dh(xs, w, targets, k=None, h0=0) -> list:
    """dL/dh_t: h_t replaced by a symbol, the later steps of its segment rebuilt from it (full BPTT
    when k is None: one segment)."""
    xs, w, targets, h0 = _exact_inputs(xs, w, targets, h0)
    states = _forward(xs, w, h0)
    k = int(k or len(xs))
    rates = []
    for t in range(len(xs)):
        h, expr = s_, sp.Integer(0)
        for u in range(t, min((t // k + 1) * k, len(xs))):
            if u > t:
                h = xs[u] + w * h
            if u + 1 in targets:
                expr += (h - targets[u + 1]) ** 2 / 2
        rates.append(sp.diff(expr, s_).subs(s_, states[t]))
    return rates


def truncated_setup() -> dict:
    """The setup fixed by COURSE_SPEC section 3.4 (not printed in the book)."""
    return {"xs": [1, 0, 0, 0], "w": Fraction(1, 2), "targets": {4: 1}, "k": 2, "h0": 0}


# ----------------------------------------------------------------------------- exercises


def ex_12_7_3():
    """12.8: the state value may still carry the clue; the second segment's loss cannot reach back
    across the boundary into the computation that formed that value."""
    return {"passes": {"A"}, "cut": {"B", "C"}}


def ex_12_7_6():
    """12.8: the backward features contain reference tokens not yet generated (the target leaks);
    classifying a sentence given in full may use both sides (so may labelling a given sentence)."""
    return {"leak": {"A", "B"}, "full_context_ok": {"P", "S"}}


# ----------------------------------------------------------------------------- book values


def book_values() -> dict:
    """The values of expected.json under truncated-bptt/, computed by the engine."""
    setup = truncated_setup()
    xs, w, targets, k = setup["xs"], setup["w"], setup["targets"], setup["k"]
    full = truncated_bptt_scalar(xs, w, targets, len(xs))
    cut = truncated_bptt_scalar(xs, w, targets, k)
    return {
        "truncated-bptt/states": full["states"],
        "truncated-bptt/loss": full["loss"],
        "truncated-bptt/full/dL_dh": dL_dh(xs, w, targets),
        "truncated-bptt/full/contributions": contributions(xs, w, targets, len(xs)),
        "truncated-bptt/full/grad": full["grad"],
        "truncated-bptt/k-2/contributions": contributions(xs, w, targets, k),
        "truncated-bptt/k-2/grad": cut["grad"],
    }


def book_log() -> list[str]:
    """Truncated against full BPTT, step by step, for the setup of COURSE_SPEC section 3.4."""
    setup, values = truncated_setup(), book_values()
    xs, k = setup["xs"], setup["k"]
    states, rates = values["truncated-bptt/states"], values["truncated-bptt/full/dL_dh"]
    full, cut = values["truncated-bptt/full/contributions"], values["truncated-bptt/k-2/contributions"]
    cut_rates = dL_dh(xs, setup["w"], setup["targets"], k)
    lines = [
        f"Truncated BPTT (section 12.3) - h_t = x_t + w h_(t-1), xs = {xs}, w = {setup['w']}, h0 = {setup['h0']}, "
        f"target {setup['targets'][4]} at step 4, segments of k = {k}",
        "step  x  old h  new h  dL/dh_t full  contribution full  dL/dh_t k=2  contribution k=2",
    ]
    previous = [sp.Integer(setup["h0"]), *states[:-1]]
    for t in range(len(xs)):
        note = ""
        if t and t % k == 0:
            note = f"   <- boundary: value h_{t} = {states[t - 1]} carried, gradient stopped"
        lines.append(
            f"{t + 1:>4}  {xs[t]}  {str(previous[t]):>5}  {str(states[t]):>5}  {str(rates[t]):>12}  "
            f"{str(full[t]):>17}  {str(cut_rates[t]):>11}  {str(cut[t]):>16}{note}"
        )
    lines.append(
        f"loss = {values['truncated-bptt/loss']}   grad: full BPTT = {values['truncated-bptt/full/grad']} "
        f"({float(values['truncated-bptt/full/grad'])}), truncated k = {k}: {values['truncated-bptt/k-2/grad']} "
        f"({float(values['truncated-bptt/k-2/grad'])})"
    )
    return lines
