"""polynomial_grad: dL/dw of L(w) = 1/2 (w^2 - 1)^2 by the chain rule, the book's independent check of
Example 12.1."""

from __future__ import annotations

from fractions import Fraction

from ....vocabulary import draws
from ....vocabulary.catalogue import mistake
from ....vocabulary.spec import Branch, Case, Check
from .. import reference as ref
from ..models import negative


def public():
    # at w = 0.5 the inner derivative 2w is 1, so the book's own point cannot show it missing
    return [
        Case(
            (Fraction(1, 2),),
            label={"en": "Example 12.1: 2w(w^2 - 1) at w = 0.5", "zh": "例12.1：2w(w^2 - 1) 在 w = 0.5 处的值"},
        ),
        Case(
            (Fraction(23, 40),),
            label={
                "en": "Example 12.1 after the update: w = 0.575 (h_3 = 0.330625)",
                "zh": "例12.1更新之后：w = 0.575（h_3 = 0.330625）",
            },
        ),
    ]


BRANCHES = (
    Branch(
        "between_zero_and_one",
        lambda case, _: 0 < case.args[0] < 1,
        None,
        en="0 < w < 1: a negative gradient",
        zh="0 < w < 1：梯度为负",
    ),
    Branch(
        "stationary",
        lambda case, expected: expected == 0,
        lambda rng: Case((Fraction(0),)),
        en="w = 0 (or 1 or -1): a zero gradient",
        zh="w = 0（或1、-1）：梯度为0",
    ),
    Branch(
        "negative",
        lambda case, _: case.args[0] < 0,
        lambda rng: Case((negative(rng, -3),)),
        en="a negative w",
        zh="负的w",
    ),
    Branch(
        "beyond_one",
        lambda case, _: abs(case.args[0]) > 1,
        lambda rng: Case((Fraction(rng.randint(33, 96), 32),)),
        en="|w| > 1: h_3 = w^2 overshoots the target",
        zh="|w| > 1：h_3 = w^2 超过目标",
    ),
)

CHECK = Check(
    "polynomial_grad",
    ref.polynomial_grad,
    public,
    exact=True,
    draw=lambda rng: Case((draws.rational(rng, -3, 3, denominators=(7, 9, 11, 13, 16, 25, 32)),)),
    points=1,  # many values: a harvest repeats none
    branches=BRANCHES,
)


@mistake(
    "polynomial_grad",
    en="Apply the chain rule through w^2 - 1 as well: the inner function contributes a factor 2w.",
    zh="链式法则也要穿过 w^2 - 1：内层函数还贡献一个因子2w。",
)
def inner_derivative_missing(w):
    return w * w - 1
