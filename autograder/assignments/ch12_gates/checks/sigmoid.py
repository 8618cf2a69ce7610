"""sigmoid: the logistic function that makes a gate a proportion (section 12.4; a = ln 9 gives the
forget gate 0.9 of Example 12.3), for a number or element-wise for a vector, at 0 and 1 where exp
overflows."""

from __future__ import annotations

import math
import random

import numpy as np

from ....vocabulary.catalogue import mistake
from ....vocabulary.spec import Branch, Case, Check
from .. import reference as ref
from ..models import any_entry


def public():
    return [
        Case((0.0,), label={"en": "a = 0: a gate half open", "zh": "a = 0：门半开"}),
        Case(
            (math.log(9),),
            label={
                "en": "a = ln 9: the forget gate 0.9 of Example 12.3",
                "zh": "a = ln 9：遗忘门0.9，即例12.3中的门值",
            },
        ),
        Case(
            (-math.log(9),),
            label={"en": "a = -ln 9: a gate of 0.1, nearly closed", "zh": "a = -ln 9：门值0.1，几乎关闭"},
        ),
        Case(
            (np.array([-2.0, 0.0, 2.0, 40.0, -40.0]),),
            label={"en": "a vector, element-wise, saturated at both ends", "zh": "一个向量，逐元素计算，两端都已饱和"},
        ),
        Case(
            (np.array([-1000.0, -3.5, 0.0, 0.5, 3.5, 1000.0]),),
            label={
                "en": "the longest vector drawn (6 scores), out to a = -1000 and 1000, where exp overflows",
                "zh": "抽取的最长向量（6个得分），一直到 a = -1000 和 1000，此时exp会溢出",
            },
        ),
    ]


def draw(rng: random.Random) -> Case:
    if rng.random() < 0.3:
        return Case((rng.uniform(-8, 8),))
    return Case(
        (
            np.array(
                [rng.uniform(-8, 8) for _ in range(rng.randint(1, 5))] + rng.sample([-700.0, -60.0, 60.0, 700.0], 1)
            ),
        )
    )


def _sigmoid_with(*extra):
    """A vector draw that holds the given scores too (at a random place)."""

    def holding(rng: random.Random) -> Case:
        values = [rng.uniform(-8, 8) for _ in range(rng.randint(1, 4))]
        for value in extra:
            values.insert(rng.randrange(len(values) + 1), value(rng) if callable(value) else value)
        return Case((np.array(values, dtype=float),))

    return holding


SIGMOID_LONGEST = 6  # up to 5 moderate scores and one far one
BRANCHES = (
    Branch(
        "scalar",
        lambda case, expected: np.ndim(case.args[0]) == 0,
        lambda rng: Case((rng.uniform(-8, 8),)),
        en="a single number in, a single number out",
        zh="输入一个数，输出一个数",
    ),
    Branch(
        "vector",
        lambda case, expected: np.ndim(case.args[0]) == 1,
        _sigmoid_with(),
        en="a vector, element by element",
        zh="一个向量，逐元素计算",
    ),
    Branch(
        "zero",
        lambda case, expected: any_entry(case.args[0], lambda a: a == 0),
        _sigmoid_with(0.0),
        en="a = 0: the gate half open",
        zh="a = 0：门半开",
    ),
    Branch(
        "overflow_negative",
        lambda case, expected: any_entry(case.args[0], lambda a: a < -709),
        _sigmoid_with(lambda rng: -rng.uniform(710, 1000)),
        en="a far below 0 (exp(-a) overflows a float): the value at 0, not NaN",
        zh="a 远小于0（exp(-a) 超出浮点数范围）：结果为0，不能是NaN",
    ),
    Branch(
        "overflow_positive",
        lambda case, expected: any_entry(case.args[0], lambda a: a > 709),
        _sigmoid_with(lambda rng: rng.uniform(710, 1000)),
        en="a far above 0 (exp(a) overflows a float): the value at 1, not NaN",
        zh="a 远大于0（exp(a) 超出浮点数范围）：结果为1，不能是NaN",
    ),
    Branch(
        "longest",
        lambda case, expected: np.size(case.args[0]) >= SIGMOID_LONGEST,
        lambda rng: Case(
            (np.array([rng.uniform(-8, 8) for _ in range(SIGMOID_LONGEST - 1)] + [rng.choice([-700.0, 700.0])]),)
        ),
        en="the longest vector drawn",
        zh="抽取的最长向量",
    ),
)


CHECK = Check("sigmoid", ref.sigmoid, public, draw=draw, points=1, branches=BRANCHES)


@mistake(
    "sigmoid",
    en=(
        "Check the sign inside the exponential: sigmoid(a) must grow with a, so a large positive score should open the "
        "gate (value near 1), not close it."
    ),
    zh="检查指数里的符号：sigmoid(a) 必须随a增大而增大，所以得分是很大的正数时，门应当打开（门值接近1），而不是关上。",
)
def sigmoid_exponent_sign(a):
    a = np.asarray(a, dtype=float)
    return 1.0 / (1.0 + np.exp(a))
