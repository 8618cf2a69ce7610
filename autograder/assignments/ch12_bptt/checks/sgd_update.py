"""sgd_update: one step of gradient descent on w (Example 12.1's update)."""

from __future__ import annotations

from fractions import Fraction

from ....vocabulary import draws
from ....vocabulary.catalogue import mistake
from ....vocabulary.spec import Branch, Case, Check
from .. import reference as ref

BRANCHES = (
    Branch(
        "negative_gradient",
        lambda case, _: case.args[1] < 0,
        None,
        en="a negative gradient: w grows",
        zh="梯度为负：w变大",
    ),
    Branch(
        "positive_gradient",
        lambda case, _: case.args[1] > 0,
        lambda rng: Case(
            (draws.rational(rng), abs(draws.rational(rng, nonzero=True)), draws.rational(rng, 0, 1, nonzero=True))
        ),
        en="a positive gradient: w shrinks",
        zh="梯度为正：w变小",
    ),
    Branch(
        "zero_gradient",
        lambda case, _: case.args[1] == 0,
        None,
        en="a zero gradient: w is left as it is",
        zh="梯度为0：w保持不变",
    ),
    Branch(
        "zero_weight",
        lambda case, _: case.args[0] == 0,
        lambda rng: Case((Fraction(0), draws.rational(rng, nonzero=True), draws.rational(rng, 0, 1, nonzero=True))),
        en="w = 0 before the step",
        zh="更新前 w = 0",
    ),
    Branch(
        "large_step",
        lambda case, _: case.args[2] >= 1,
        lambda rng: Case(
            (
                draws.rational(rng),
                draws.rational(rng, nonzero=True),
                rng.choice([Fraction(1), Fraction(3, 2), Fraction(2)]),
            )
        ),
        en="a step size (learning rate) of 1 or more",
        zh="步长（学习率）不小于1",
    ),
)

CHECK = Check(
    "sgd_update",
    ref.sgd_update,
    lambda: [
        Case(
            (Fraction(1, 2), Fraction(-3, 4), Fraction(1, 10)),
            label={"en": "Example 12.1: 0.5 - 0.1 (-0.75)", "zh": "例12.1：0.5 - 0.1 (-0.75)"},
        ),
        Case(
            (Fraction(-1, 2), Fraction(0), Fraction(1, 10)),
            label={"en": "a gradient of 0: w = -0.5 stays", "zh": "梯度为0：w = -0.5 保持不变"},
        ),
    ],
    exact=True,
    draw=lambda rng: Case(
        (draws.rational(rng), draws.rational(rng, nonzero=True), draws.rational(rng, 0, 1, nonzero=True))
    ),
    points=1,
    branches=BRANCHES,
)


@mistake(
    "sgd_update",
    en="Gradient descent steps against the gradient: w_new = w - lr * grad (0.5 - 0.1 * (-0.75) = 0.575).",
    zh="梯度下降沿梯度的反方向更新：w_new = w - lr * grad（0.5 - 0.1 * (-0.75) = 0.575）。",
)
def update_sign(w, grad, lr):
    return w + lr * grad


@mistake("sgd_update")
def float_where_exact(w, grad, lr):
    return float(w) - float(lr) * float(grad)
