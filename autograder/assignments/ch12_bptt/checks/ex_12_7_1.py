"""ex_12_7_1: exercise 12.7.1, a loss rate carried back across edges of one local factor (answers in 12.8)."""

from __future__ import annotations

import random
from fractions import Fraction

from ....vocabulary import draws
from ....vocabulary.spec import Branch, Case, Check
from .. import reference as ref
from ..models import negative

#: The longest distance the drawer draws.
LONGEST_DISTANCE = 12


def public():
    one = ref.EXERCISE_12_7_1
    rate, distance = Fraction(int(one["rate"])), one["distance"]
    book = [
        Case(
            (rate, Fraction(int(factor.p), int(factor.q)), distance),
            label={
                "en": f"exercise 12.7.1: rate {rate}, factor {float(factor):g}, {distance} edges",
                "zh": f"习题12.7.1：变化率{rate}，因子{float(factor):g}，{distance}条边",
            },
        )
        for factor in one["factors"]
    ]
    # another size than the book's (the longest drawn): the self-check asks what the grade asks
    return book + [
        Case(
            (Fraction(3), Fraction(-2, 3), LONGEST_DISTANCE),
            label={
                "en": f"exercise 12.7.1 at another size: rate 3, factor -2/3, {LONGEST_DISTANCE} edges",
                "zh": f"习题12.7.1换一个规模：变化率3，因子-2/3，{LONGEST_DISTANCE}条边",
            },
        )
    ]


def draw(rng: random.Random) -> Case:
    return Case(
        (
            draws.rational(rng, -3, 3, nonzero=True),
            draws.rational(rng, -2, 2, nonzero=True),
            rng.randint(1, LONGEST_DISTANCE),
        )
    )


BRANCHES = (
    Branch(
        "book",
        lambda case, _: case.args[2] == ref.EXERCISE_12_7_1["distance"],
        None,
        en="the book's four edges",
        zh="书中的四条边",
    ),
    Branch(
        "longest",
        lambda case, _: case.args[2] == LONGEST_DISTANCE,
        None,
        en=f"another distance than the book's, the longest drawn ({LONGEST_DISTANCE} edges)",
        zh=f"与书中不同的距离，即抽取的最长距离（{LONGEST_DISTANCE}条边）",
    ),
    Branch(
        "one_edge",
        lambda case, _: case.args[2] == 1,
        lambda rng: Case((draws.rational(rng, -3, 3, nonzero=True), draws.rational(rng, -2, 2, nonzero=True), 1)),
        en="one edge: the rate times the factor once",
        zh="一条边：变化率乘一次因子",
    ),
    Branch("negative_factor", lambda case, _: case.args[1] < 0, None, en="a negative factor", zh="负的因子"),
    Branch(
        "negative_rate",
        lambda case, _: case.args[0] < 0,
        lambda rng: Case(
            (negative(rng, -3), draws.rational(rng, -2, 2, nonzero=True), rng.randint(1, LONGEST_DISTANCE))
        ),
        en="a negative rate at the end",
        zh="末端的变化率为负",
    ),
)

CHECK = Check(
    "ex_12_7_1",
    ref.ex_12_7_1,
    public,
    exact=True,
    reveal=False,
    draw=draw,
    points=1,
    branches=BRANCHES,
)
