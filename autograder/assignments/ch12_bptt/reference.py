"""Exact SymPy references for ch12_bptt (Example 12.1, Tables 12.1-12.2, exercises 12.7.1-2 on any givens).

Each function has the signature of the student function it grades. Gradients are obtained by
symbolic differentiation of the loss, not by the BPTT recursion the students write, so the two
are independent derivations of the same numbers.

With exact (rational) inputs the polynomials are SymPy's sparse polynomials over QQ (the engine
under `sp.Poly`, without its wrappers), and the states are computed in QQ: the same exact numbers,
returned as SymPy Rationals. Other inputs take the general `sp.Poly`/`sp.expand` path.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import sympy as sp
from sympy.polys.domains import QQ
from sympy.polys.rings import PolyElement, ring

from ...coursedir.data import exact, sequence
from ...vocabulary.symbolic import decimal_text, to_sympy

w_, s_ = sp.symbols("w s")
#: The polynomial ring QQ[v] in which losses are written and differentiated (exact inputs).
_RING, _v = ring("v", QQ)
#: Digits of the irrational clipped values (compared at DIGITS = 30).
WORK_DIGITS = 40


def _qq(value):
    """An exact input as an element of QQ, or None when it is not rational."""
    if isinstance(value, Fraction):
        return QQ(value.numerator, value.denominator)
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return QQ(int(value))
    if isinstance(value, sp.Rational):
        return QQ(int(value.p), int(value.q))
    return None


def _qq_all(values):
    """Every value in QQ, or None when one of them is not rational."""
    out = [_qq(v) for v in values]
    return None if any(v is None for v in out) else out


def _rational(value) -> sp.Rational:
    """An element of QQ as a SymPy Rational."""
    return sp.Rational(int(value.numerator), int(value.denominator))


def example_12_1() -> dict:
    """Example 12.1's setup: the positive colour coordinate of `red key is` in Chapter 11's model."""
    model = sequence()
    rows = {entry["token"]: entry["id"] for entry in model["vocabulary"]}
    xs = [exact(model["embeddings"][rows[token]][0]) for token in model["inputs"]["short_red"]]
    return {"xs": xs, "w": exact(model["W_h"][0][0]), "target": sp.Integer(1), "lr": sp.Rational(1, 10)}


def _run(xs, w, start, begin=0):
    """States after steps begin+1..T of h_t = x_t + w h_{t-1}, starting from `start`."""
    qq = _qq_all([w, start, *xs[begin:]])
    if qq is not None:  # rational: the same numbers, in QQ
        (w, h), states = qq[:2], []
        for x in qq[2:]:
            h = x + w * h
            states.append(h)
        return [_rational(h) for h in states]
    states, h = [], start
    for x in xs[begin:]:
        h = sp.expand(to_sympy(x) + w * h)
        states.append(h)
    return states


def scalar_forward(xs, w, h0=0):
    return _run(xs, to_sympy(w), to_sympy(h0))


def _loss_rate(final: sp.Poly, target, at) -> sp.Rational:
    """d/dv of 1/2 (final(v) - target)^2 at v = `at`, for the final state as a polynomial in v."""
    loss = (final - target) ** 2 * sp.Rational(1, 2)
    return loss.diff(final.gen).eval(at)


def _final_poly(xs, w, start, var) -> sp.Poly:
    """The final state of h_t = x_t + w h_{t-1} over `xs`, as a polynomial in `var`."""
    h = sp.Poly(start, var, domain=sp.QQ)
    for x in xs:
        h = h * w + to_sympy(x)
    return h


def _ring_loss_rate(final: PolyElement, target, at):
    """d/dv of 1/2 (final(v) - target)^2 at v = `at`, for the final state as a polynomial of QQ[v]."""
    loss = (final - target) ** 2 * QQ(1, 2)
    return loss.diff(_v)(at)


def _ring_final(xs, w, start) -> PolyElement:
    """The final state of h_t = x_t + w h_{t-1} over `xs` (in QQ), as a polynomial of QQ[v]."""
    h = _RING(start)
    for x in xs:
        h = h * w + x
    return h


def _bptt_exact(xs, w, target, h0):
    """`bptt_scalar` for inputs in QQ, by the same derivation in QQ[v]; SymPy Rationals out."""
    states, h = [], h0
    for x in xs:
        h = x + w * h
        states.append(h)
    previous = [h0, *states[:-1]]
    # dL/dh_t: make h_t the free variable v, run the remaining steps, differentiate the loss in v.
    dL_dh = [_ring_loss_rate(_ring_final(xs[t + 1 :], w, _v), target, states[t]) for t in range(len(xs))]
    # each use of w: d(x_t + w h_{t-1})/dw with h_{t-1} held fixed is h_{t-1}
    contributions = [d * h for d, h in zip(dL_dh, previous)]
    # the total derivative: the final state as a polynomial in w, differentiated directly
    total = _ring_loss_rate(_ring_final(xs, _v, h0), target, w)
    loss = (states[-1] - target) ** 2 * QQ(1, 2)
    return {
        "states": [_rational(v) for v in states],
        "loss": _rational(loss),
        "dL_dh": [_rational(v) for v in dL_dh],
        "contributions": [_rational(v) for v in contributions],
        "grad": _rational(total),
    }


def bptt_scalar(xs, w, target, h0=0):
    qq = _qq_all([w, target, h0, *xs])
    if qq is not None and len(xs):
        return _bptt_exact(qq[3:], qq[0], qq[1], qq[2])
    w, h0, target = to_sympy(w), to_sympy(h0), to_sympy(target)
    states = _run(xs, w, h0)
    previous = [h0, *states[:-1]]
    # dL/dh_t: make h_t a free variable s, run the remaining steps, differentiate the loss in s.
    dL_dh = [_loss_rate(_final_poly(xs[t + 1 :], w, s_, s_), target, states[t]) for t in range(len(xs))]
    # each use of w: d(x_t + w h_{t-1})/dw with h_{t-1} held fixed is h_{t-1}
    contributions = [d * h for d, h in zip(dL_dh, previous)]
    # the total derivative: the final state as a polynomial in w, differentiated directly
    total = _loss_rate(_final_poly(xs, sp.Poly(w_, w_, domain=sp.QQ), h0, w_), target, w)
    return {
        "states": states,
        "loss": (states[-1] - target) ** 2 / 2,
        "dL_dh": dL_dh,
        "contributions": contributions,
        "grad": total,
    }


def sgd_update(w, grad, lr):
    return to_sympy(w) - to_sympy(lr) * to_sympy(grad)


def update_and_recompute(xs, w, target, lr):
    new = sgd_update(w, bptt_scalar(xs, w, target)["grad"], lr)
    states = _run(xs, new, sp.Integer(0))
    return {"w": new, "states": states, "loss": (states[-1] - to_sympy(target)) ** 2 / 2}


def signal_multiplier(factor, distance):
    return to_sympy(factor) ** int(distance)


def polynomial_grad(w):
    """d/dw of L(w) = 1/2 (w^2 - 1)^2: the final state of Example 12.1 is w^2."""
    return sp.diff((w_**2 - 1) ** 2 / 2, w_).subs(w_, to_sympy(w))


def finite_difference_grad(f, w, eps=1e-6):
    """The central difference (f(w + eps) - f(w - eps)) / (2 eps), exactly: w and eps are the
    rationals their floats hold (so a large eps shows in the result, and a small one comes within
    the check's tolerance of f'(w)).

    f is evaluated as a polynomial of QQ[v] when it is one (the course's losses are), else on SymPy
    Rationals."""
    at, step = sp.Rational(w), sp.Rational(eps)
    try:
        loss = f(_v)
    except Exception:  # noqa: BLE001 - not a polynomial function: the general path below
        loss = None
    if isinstance(loss, PolyElement) and loss.ring == _RING:
        a, e = QQ(int(at.p), int(at.q)), QQ(int(step.p), int(step.q))
        return _rational((loss(a + e) - loss(a - e)) / (2 * e))
    return (f(at + step) - f(at - step)) / (2 * step)


def tanh_local_rate(a):
    return 1 - sp.tanh(sp.Rational(a)) ** 2


def _tanh_rnn_loss(xs, h0, W_x, W_h, b, dh_direct) -> float:
    """L = sum_t dh_direct_t . h_t for the tanh RNN, in float64: the function whose gradient is asked."""
    h, loss = np.asarray(h0, dtype=float), 0.0
    for x, direct in zip(np.asarray(xs, dtype=float), np.asarray(dh_direct, dtype=float)):
        h = np.tanh(x @ W_x + h @ W_h + b)
        loss += float(direct @ h)
    return loss


def rnn_backward(xs, h0, W_x, W_h, b, dh_direct, eps=1e-6):
    """Central differences of `_tanh_rnn_loss` in float64, one parameter entry at a time."""
    params = {
        "dW_x": np.array(W_x, dtype=float),
        "dW_h": np.array(W_h, dtype=float),
        "db": np.array(b, dtype=float),
        "dh0": np.array(h0, dtype=float),
    }
    grads = {}
    for name, array in params.items():
        grad = np.zeros_like(array)
        for index in np.ndindex(array.shape):
            values = []
            for step in (eps, -eps):
                moved = {key: value.copy() for key, value in params.items()}
                moved[name][index] += step
                values.append(_tanh_rnn_loss(xs, moved["dh0"], moved["dW_x"], moved["dW_h"], moved["db"], dh_direct))
            grad[index] = (values[0] - values[1]) / (2 * eps)
        grads[name] = grad
    return grads


def _map(values: np.ndarray, convert):
    """`convert` of each entry of a float array, as an object array of its shape (of a 0-d array:
    the value, as NumPy's arithmetic on one gives)."""
    out = np.empty(values.shape, dtype=object)
    for index in np.ndindex(values.shape):
        out[index] = convert(float(values[index]))
    return out[()] if out.ndim == 0 else out


def clip_by_global_norm(grads, max_norm):
    """Each array times min(1, max_norm / ||grads||), the float inputs taken exactly.

    The squared norm is an exact Rational; where the scale is rational (1, or a perfect square
    norm) the clipped values are exact Rationals, otherwise (g max_norm / sqrt(norm^2)) they are
    irrational and computed in 40-digit arithmetic (compared at 30 digits)."""
    arrays = [np.asarray(g, dtype=float) for g in grads]
    squared = sum((Fraction(float(v)) ** 2 for g in arrays for v in g.flat), Fraction(0))
    limit = Fraction(int(sp.Rational(max_norm).p), int(sp.Rational(max_norm).q))
    roots = [_isqrt_exact(n) for n in (squared.numerator, squared.denominator)]
    if squared == 0 or (limit >= 0 and limit * limit >= squared):  # min(1, max_norm / norm) = 1
        scale = Fraction(1)
    elif limit == 0 or None not in roots:  # a rational norm: a rational scale
        scale = limit / Fraction(roots[0], roots[1]) if limit else Fraction(0)
    else:
        scale = None
    if scale is not None:
        return [_map(g, lambda v: _rational(Fraction(v) * scale)) for g in arrays]
    with mpmath.workdps(WORK_DIGITS):
        factor = (
            mpmath.mpf(limit.numerator)
            / limit.denominator
            / mpmath.sqrt(mpmath.mpf(squared.numerator) / squared.denominator)
        )
        return [
            _map(g, lambda v: sp.Integer(0) if v == 0 else sp.Float(mpmath.mpf(v) * factor, WORK_DIGITS))
            for g in arrays
        ]


def _isqrt_exact(n: int) -> int | None:
    """The integer square root of n when n is a perfect square, else None."""
    root = math.isqrt(n)
    return root if root * root == n else None


#: Exercise 12.7.1: a loss rate of 2 at the end, carried back across four edges of factor 0.5, then 1.5.
EXERCISE_12_7_1 = {"rate": sp.Integer(2), "distance": 4, "factors": (sp.Rational(1, 2), sp.Rational(3, 2))}


def ex_12_7_1(rate, factor, distance):
    """Exercise 12.7.1: the rate `rate` carried back across `distance` edges, each multiplying it by `factor`."""
    return to_sympy(rate) * signal_multiplier(factor, distance)


def ex_12_7_2(xs, w, target, lr):
    """Exercise 12.7.2: what a program that counts only the last read of w misses (the total derivative
    less the last read's contribution), and the update with the full gradient."""
    table = bptt_scalar(xs, w, target)
    return {
        "missing contribution": table["grad"] - table["contributions"][-1],
        "w_new": sgd_update(w, table["grad"], lr),
    }


def _tanh_rnn(xs, w_x, w_h):
    """The third text's scalar tanh RNN: pre-activations and states, exact (tanh kept symbolic)."""
    pre, states, h = [], [], sp.Integer(0)
    for x in xs:
        a = w_x * x + w_h * h
        h = sp.tanh(a)
        pre.append(a)
        states.append(h)
    return pre, states


def book_values() -> dict:
    """Every value of expected.json under this assignment's prefixes, computed by the engine."""
    setup = example_12_1()
    xs, w, target, lr = setup["xs"], setup["w"], setup["target"], setup["lr"]
    table = bptt_scalar(xs, w, target)
    after = update_and_recompute(xs, w, target, lr)
    exercise_2, one = ex_12_7_2(xs, w, target, lr), EXERCISE_12_7_1
    values = {
        "example-12.1/states": table["states"],
        "example-12.1/error": table["states"][-1] - target,
        "example-12.1/loss": table["loss"],
        "example-12.1/dL_dh3": table["dL_dh"][-1],
        "example-12.1/grad": table["grad"],
        "example-12.1/polynomial-grad": polynomial_grad(w),
        "example-12.1/lr": lr,
        "example-12.1/w-new": after["w"],
        "example-12.1/states-after-update": after["states"],
        "example-12.1/h3-after-update": after["states"][-1],
        "example-12.1/loss-after-update": after["loss"],
        "table-12.1/grad": table["grad"],
        "table-12.1/loss": table["loss"],
        "exercise-12.7.2/last-use-grad": table["contributions"][-1],
        "exercise-12.7.2/missing-contribution": exercise_2["missing contribution"],
        "exercise-12.7.2/step-1-contribution": table["contributions"][0],
        "exercise-12.7.2/grad": table["grad"],
        "exercise-12.7.2/w-new": exercise_2["w_new"],
        "example-12.2/two-edges": signal_multiplier(Fraction(3, 2), 2),
        **{
            f"exercise-12.7.1/factor-{float(factor):g}": ex_12_7_1(one["rate"], factor, one["distance"])
            for factor in one["factors"]
        },
        "section-12.3/relu-rate-positive": sp.diff(sp.Max(0, s_), s_).subs(s_, 1),
        "section-12.3/relu-rate-negative": sp.diff(sp.Max(0, s_), s_).subs(s_, -1),
        "section-12.3/tanh-0": sp.tanh(0),
        "section-12.3/tanh-2": sp.tanh(2),
        "section-12.3/tanh-rate-2": tanh_local_rate(2),
        "text2-example-2/q-0.5-distance-20": signal_multiplier(Fraction(1, 2), 20),
        "text2-example-2/q-1.2-distance-20": signal_multiplier(Fraction(6, 5), 20),
        "text3-bptt/factor-0.5-distance-20": signal_multiplier(Fraction(1, 2), 20),
        "text3-bptt/factor-1.5-distance-20": signal_multiplier(Fraction(3, 2), 20),
    }
    previous = [sp.Integer(0), *table["states"][:-1]]
    for step in range(3):
        prefix = f"table-12.1/step-{step + 1}/"
        values |= {
            prefix + "old-h": previous[step],
            prefix + "new-h": table["states"][step],
            prefix + "dL_dh": table["dL_dh"][step],
            prefix + "contribution": table["contributions"][step],
        }
    for factor, label in ((Fraction(1, 2), "0.5"), (Fraction(3, 2), "1.5")):
        for distance in (0, 1, 2, 4, 8, 16):
            values[f"table-12.2/factor-{label}/distance-{distance}"] = signal_multiplier(factor, distance)
    # second text, example 1: h_t = a h_{t-1} + x_t, inputs (1, 2, -1), a = 0.5, L = h_3^2 / 2
    text2 = bptt_scalar([1, 2, -1], Fraction(1, 2), 0)
    values |= {
        "text2-example-1/states": text2["states"],
        "text2-example-1/loss": text2["loss"],
        "text2-example-1/dL_dh": text2["dL_dh"],
        "text2-example-1/contributions": text2["contributions"],
        "text2-example-1/grad": text2["grad"],
        "text2-example-1/dh3-da": sp.diff(_run([1, 2, -1], w_, sp.Integer(0))[-1], w_).subs(w_, sp.Rational(1, 2)),
    }
    # third text: tanh RNN with W_x = 1, W_h = 0.5, inputs (1, 0, -1); logits [h_3, -h_3]; true class 2
    pre, states = _tanh_rnn([1, 0, -1], 1, sp.Rational(1, 2))
    logits = [states[-1], -states[-1]]
    softmax = [sp.exp(z) / sum(sp.exp(v) for v in logits) for z in logits]
    for step in range(3):
        values |= {f"text3-tanh-rnn/step-{step + 1}/a": pre[step], f"text3-tanh-rnn/step-{step + 1}/h": states[step]}
    values |= {
        "text3-tanh-rnn/logits": logits,
        "text3-tanh-rnn/softmax": softmax,
        "text3-tanh-rnn/cross-entropy": -sp.log(softmax[1]),
    }
    return values


def book_log() -> list[str]:
    """Table 12.1, the update of Example 12.1, and Table 12.2, as the book prints them."""
    values = book_values()
    lines = [
        "Table 12.1 - BPTT for h_t = x_t + w h_(t-1), w = 1/2, L = 1/2 (h_3 - 1)^2",
        "step  old h  new h  dL/dh_t  contribution",
    ]
    for step in (1, 2, 3):
        row = [values[f"table-12.1/step-{step}/{key}"] for key in ("old-h", "new-h", "dL_dh", "contribution")]
        lines.append(f"{step:>4}  " + "  ".join(f"{str(v):>7}" for v in row))
    lines += [
        f"grad = {values['table-12.1/grad']}   loss = {values['table-12.1/loss']}",
        f"update with lr = {values['example-12.1/lr']}: w = {values['example-12.1/w-new']} ({float(values['example-12.1/w-new'])})",
        f"recomputed: h_3 = {values['example-12.1/h3-after-update']} ({float(values['example-12.1/h3-after-update'])}), "
        f"loss = {values['example-12.1/loss-after-update']} ({float(values['example-12.1/loss-after-update'])})",
        "",
        "Table 12.2 - signal multiplier against distance",
        "distance  factor 0.5  factor 1.5",
    ]
    for distance in (0, 1, 2, 4, 8, 16):
        a, b = (values[f"table-12.2/factor-{f}/distance-{distance}"] for f in ("0.5", "1.5"))
        lines.append(f"{distance:>8}  {decimal_text(a):>18}  {decimal_text(b):>18}   ({a}, {b})")
    return lines
