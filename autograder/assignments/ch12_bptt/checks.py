"""The checks of ch12_bptt: the book's cases of Example 12.1, Tables 12.1-12.2 and exercises 12.7.1-2, and hidden
draws (the exercises too, on variants of their givens)."""
from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
from rnnkit.helpers import ScalarLoss

from ... import draws
from ...checks import Case, Check
from ...symbolic import to_fraction
from . import reference as ref


def _book():
    setup = ref.example_12_1()
    return [to_fraction(x) for x in setup["xs"]], to_fraction(setup["w"]), to_fraction(setup["target"]), to_fraction(setup["lr"])


def _sequence(rng: random.Random, longest: int = 12) -> list[Fraction]:
    return draws.rationals(rng, rng.randint(1, longest))


def _public_forward():
    xs, w, _, _ = _book()
    return [Case((xs, w), label="Example 12.1 (1, 0, 0), w = 0.5"),
            Case(([1, 2, -1], Fraction(1, 2)), label="second text, example 1: inputs (1, 2, -1), a = 0.5")]


def _public_bptt():
    xs, w, target, _ = _book()
    return [Case((xs, w, target), label="Table 12.1"),
            Case(([1, 2, -1], Fraction(1, 2), 0), label="second text, example 1: L = h_3^2 / 2")]


def _public_update():
    xs, w, target, lr = _book()
    return [Case((xs, w, target, lr), label="Example 12.1, learning rate 0.1")]


def _public_finite_difference():
    # central differences err by O(eps^2); a forward difference errs by about eps/2 |L''(w)|, beyond
    # the check's rtol (1e-6) in the cases with the second text's loss (L'' = 9.5) and eps = 1e-4;
    # the reference is the central difference with the eps given, so a wide eps shows whether it is used
    book, text2 = ScalarLoss(tuple(_book()[0]), Fraction(1)), ScalarLoss((1, 2, -1), 0)
    return [Case((book, 0.5), label="Example 12.1: L(w) at w = 0.5"),
            Case((text2, 0.5), label="second text, example 1: L(a) = h_3^2 / 2 at a = 0.5 (dL/da = 0.75)"),
            Case((book, 0.5), {"eps": 1e-4}, label="Example 12.1: L(w) at w = 0.5, with eps = 1e-4"),
            Case((text2, 0.5), {"eps": 0.25}, label="second text, example 1 at a = 0.5 with a wide step eps = 0.25 (the difference quotient, not dL/da)")]


def _draw_finite_difference(rng: random.Random) -> Case:
    """A loss of up to four reads, with a wide eps (the central difference then differs from L'(w))."""
    return Case((ScalarLoss(tuple(_sequence(rng, 4)), draws.rational(rng)), rng.uniform(-1.5, 1.5)), {"eps": rng.choice([0.05, 0.1, 0.2, 0.25, 0.5])})


def _public_polynomial():
    # at w = 0.5 the inner derivative 2w is 1, so the book's own point cannot show it missing
    return [Case((Fraction(1, 2),), label="Example 12.1: 2w(w^2 - 1) at w = 0.5"),
            Case((Fraction(23, 40),), label="Example 12.1 after the update: w = 0.575 (h_3 = 0.330625)")]


def _public_rnn_backward():
    xs, loss_at_h3 = np.array([[1.0], [0.0], [-1.0]]), np.array([[0.0], [0.0], [1.0]])
    return [Case((xs, np.zeros(1), np.eye(1), np.array([[0.5]]), np.zeros(1), loss_at_h3), label="third text's tanh RNN (1, 0, -1), loss = h_3"),
            # a 1 x 1 W_h is its own transpose: two hidden units and a non-symmetric W_h show whether it is transposed
            Case((xs, np.zeros(2), np.array([[1.0, -0.5]]), np.array([[0.5, 0.25], [-0.5, 0.5]]), np.zeros(2),
                  np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 0.0]])),
                 label="third text's inputs (1, 0, -1) on two hidden units, not the book's weights: W_x = [[1, -0.5]], "
                       "a non-symmetric W_h = [[0.5, 0.25], [-0.5, 0.5]], loss = h_3[0]")]


def _public_clip():
    return [Case(([np.array([3.0, 4.0])], 1.0), label="norm 5 clipped to 1"),
            Case(([np.array([0.3]), np.array([[0.4]])], 1.0), label="norm 0.5 left alone"),
            # one norm over all tensors: the first alone is under the limit, and is scaled all the same
            Case(([np.array([0.3, 0.4]), np.array([[0.72, 0.96]])], 0.65),
                 label="two tensors of norms 0.5 and 1.2 (jointly 1.3) clipped to 0.65: both halved"),
            # integer arrays cannot be scaled in place: only copies made as floats give the values
            Case(([np.array([3, 4]), np.array([[0, 12]])], 6.5),
                 label="integer gradients [3, 4] and [[0, 12]] (jointly 13) clipped to 6.5: float copies, the inputs left alone")]


def _public_ex_12_7_1():
    one = ref.EXERCISE_12_7_1
    rate, distance = Fraction(int(one["rate"])), one["distance"]
    return [Case((rate, Fraction(int(factor.p), int(factor.q)), distance),
                 label=f"exercise 12.7.1: rate {rate}, factor {float(factor):g}, {distance} edges") for factor in one["factors"]]


def _draw_ex_12_7_1(rng: random.Random) -> Case:
    return Case((draws.rational(rng, -3, 3, nonzero=True), draws.rational(rng, -2, 2, nonzero=True), rng.randint(1, 12)))


def _public_ex_12_7_2():
    xs, w, target, lr = _book()
    return [Case((xs, w, target, lr), label="exercise 12.7.2: Example 12.1, inputs (1, 0, 0), w = 0.5, target 1, learning rate 0.1")]


def _draw_ex_12_7_2(rng: random.Random) -> Case:
    """As update_and_recompute's, with three reads or more: from h_0 = 0 the first read contributes
    nothing, so with two the last read is all there is."""
    return Case((draws.rationals(rng, rng.randint(3, 8)), draws.rational(rng, -1, 1, nonzero=True), draws.rational(rng, -2, 2),
                 draws.rational(rng, 0, 1, denominators=(10, 20), nonzero=True)))


def _rnn_case(rng: random.Random) -> Case:
    T, D, H = rng.randint(1, 6), rng.randint(1, 3), rng.randint(2, 3)
    W_h = draws.matrix(rng, H, H, scale=0.9)
    W_h[0, 1] += 0.5  # never symmetric
    return Case((draws.uniform(rng, (T, D)), draws.uniform(rng, (H,), -0.5, 0.5), draws.matrix(rng, D, H), W_h,
                 draws.matrix(rng, 0, H, scale=0.5), draws.uniform(rng, (T, H))))


def _clip_case(rng: random.Random) -> Case:
    """Float gradients, or (one draw in three) integer ones, which cannot be scaled in place."""
    shapes = rng.sample([(2,), (3,), (2, 2), (1, 3), (3, 2)], rng.randint(1, 3))
    if rng.random() < 1 / 3:
        grads = [np.array([rng.randint(-6, 6) for _ in range(int(np.prod(shape)))]).reshape(shape) for shape in shapes]
    else:
        grads = [draws.uniform(rng, shape, -3, 3) for shape in shapes]
    norm = float(np.sqrt(sum(np.sum(g**2) for g in grads)))
    return Case((grads, round(norm * rng.choice([0.25, 0.5, 0.8, 1.5, 2.0]), 3)))


CHECKS = [
    Check("scalar_forward", ref.scalar_forward, _public_forward, exact=True,
          draw=lambda rng: Case((_sequence(rng), draws.rational(rng, nonzero=True)), {"h0": draws.rational(rng)}), points=1),
    Check("bptt_scalar", ref.bptt_scalar, _public_bptt, exact=True,
          draw=lambda rng: Case((_sequence(rng), draws.rational(rng, nonzero=True), draws.rational(rng, -3, 3)), {"h0": draws.rational(rng)}), points=3),
    Check("sgd_update", ref.sgd_update, lambda: [Case((Fraction(1, 2), Fraction(-3, 4), Fraction(1, 10)), label="Example 12.1: 0.5 - 0.1 (-0.75)")], exact=True,
          draw=lambda rng: Case((draws.rational(rng), draws.rational(rng, nonzero=True), draws.rational(rng, 0, 1, nonzero=True))), points=1),
    Check("update_and_recompute", ref.update_and_recompute, _public_update, exact=True,
          draw=lambda rng: Case((_sequence(rng, 8), draws.rational(rng, -1, 1, nonzero=True), draws.rational(rng, -2, 2), draws.rational(rng, 0, 1, denominators=(10, 20), nonzero=True))), points=2),
    Check("signal_multiplier", ref.signal_multiplier,
          lambda: [Case((Fraction(f), d), label=f"Table 12.2, factor {f}, distance {d}") for f in ("1/2", "3/2") for d in (0, 1, 8, 16)], exact=True,
          draw=lambda rng: Case((draws.rational(rng, -2, 2, nonzero=True), rng.randint(2, 16))), points=1),
    Check("finite_difference_grad", ref.finite_difference_grad, _public_finite_difference, rtol=1e-6, draw=_draw_finite_difference, points=1),
    Check("polynomial_grad", ref.polynomial_grad, _public_polynomial, exact=True,
          draw=lambda rng: Case((draws.rational(rng, -3, 3, denominators=(7, 9, 11, 13, 16, 25, 32)),)), points=1),  # many values: a harvest repeats none
    Check("tanh_local_rate", ref.tanh_local_rate, lambda: [Case((2.0,), label="section 12.3: a = 2"), Case((0.0,), label="a = 0")],
          draw=lambda rng: Case((rng.uniform(-3, 3),)), points=1),
    Check("rnn_backward", ref.rnn_backward, _public_rnn_backward, rtol=1e-6, draw=_rnn_case, points=3),
    Check("clip_by_global_norm", ref.clip_by_global_norm, _public_clip, draw=_clip_case, call="returning_copies", points=2),
    Check("ex_12_7_1", ref.ex_12_7_1, _public_ex_12_7_1, exact=True, reveal=False, draw=_draw_ex_12_7_1, points=1),
    Check("ex_12_7_2", ref.ex_12_7_2, _public_ex_12_7_2, exact=True, reveal=False, draw=_draw_ex_12_7_2, points=1),
]
