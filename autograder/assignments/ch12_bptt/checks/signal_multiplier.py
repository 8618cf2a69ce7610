"""signal_multiplier: how a signal carried back over a distance of edges grows or shrinks, the factor's
power (Table 12.2)."""

from __future__ import annotations

from fractions import Fraction

from ....vocabulary import draws
from ....vocabulary.catalogue import mistake
from ....vocabulary.spec import Branch, Case, Check
from .. import reference as ref
from ..models import negative

BRANCHES = (
    Branch(
        "distance_zero",
        lambda case, _: case.args[1] == 0,
        None,
        en="distance 0: no edge, the multiplier is 1",
        zh="距离0：没有边，乘数为1",
    ),
    Branch(
        "distance_one",
        lambda case, _: case.args[1] == 1,
        None,
        en="distance 1: the factor itself",
        zh="距离1：就是因子本身",
    ),
    Branch(
        "longest",
        lambda case, _: case.args[1] == 16,
        None,
        en="the longest distance drawn (16)",
        zh="抽取的最长距离（16）",
    ),
    Branch(
        "vanishing",
        lambda case, _: 0 < abs(case.args[0]) < 1 and case.args[1] > 1,
        None,
        en="a factor below 1 in size: the signal vanishes",
        zh="大小小于1的因子：信号消失",
    ),
    Branch(
        "exploding",
        lambda case, _: abs(case.args[0]) > 1 and case.args[1] > 1,
        None,
        en="a factor above 1 in size: the signal explodes",
        zh="大小大于1的因子：信号爆炸",
    ),
    Branch(
        "negative_factor",
        lambda case, _: case.args[0] < 0,
        lambda rng: Case((negative(rng), rng.randint(2, 16))),
        en="a negative factor: the sign alternates with the distance",
        zh="负的因子：符号随距离交替变化",
    ),
    Branch(
        "unit_factor",
        lambda case, _: abs(case.args[0]) == 1,
        lambda rng: Case((Fraction(-1), rng.randint(2, 16))),
        en="a factor of size 1: the signal neither vanishes nor explodes",
        zh="大小为1的因子：信号既不消失也不爆炸",
    ),
)

CHECK = Check(
    "signal_multiplier",
    ref.signal_multiplier,
    lambda: [
        Case(
            (Fraction(f), d),
            label={"en": f"Table 12.2, factor {f}, distance {d}", "zh": f"表12.2，局部因子{f}，距离{d}"},
        )
        for f in ("1/2", "3/2")
        for d in (0, 1, 8, 16)
    ],
    exact=True,
    draw=lambda rng: Case((draws.rational(rng, -2, 2, nonzero=True), rng.randint(2, 16))),
    points=1,
    branches=BRANCHES,
)


@mistake(
    "signal_multiplier",
    en="The distance counts edges between states, and each edge multiplies once: distance 0 gives 1, distance 8 "
    "gives factor^8 (Table 12.2).",
    zh="距离数的是状态之间的边，每条边乘一次：距离0得到1，距离8得到factor^8（表12.2）。",
)
def multiplier_off_by_one_edge(factor, distance):
    return factor ** (distance + 1)


@mistake(
    "signal_multiplier",
    en="The multiplier was rounded. Return the exact power (1/256 is not 0.0039).",
    zh="乘数被舍入了。请返回精确的乘方（1/256不是0.0039）。",
)
def rounded_value(factor, distance):
    return round(float(factor**distance), 4)
