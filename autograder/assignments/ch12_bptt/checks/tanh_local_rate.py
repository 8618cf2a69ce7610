"""tanh_local_rate: the local rate 1 - tanh(a)^2 of tanh (section 12.3)."""

from __future__ import annotations

import numpy as np

from ....vocabulary.catalogue import mistake
from ....vocabulary.spec import Branch, Case, Check
from .. import reference as ref

BRANCHES = (
    Branch("zero", lambda case, _: case.args[0] == 0, None, en="a = 0: the rate is 1", zh="a = 0：变化率为1"),
    Branch("positive", lambda case, _: case.args[0] > 0, None, en="a positive a", zh="正的a"),
    Branch(
        "negative",
        lambda case, _: case.args[0] < 0,
        lambda rng: Case((-rng.uniform(0.1, 3),)),
        en="a negative a: the same rate as at -a",
        zh="负的a：与-a处的变化率相同",
    ),
    Branch(
        "saturated",
        lambda case, _: abs(case.args[0]) >= 4,
        lambda rng: Case((rng.choice([-1, 1]) * rng.uniform(4, 6),)),
        en="|a| of 4 or more: tanh saturates and the rate nearly vanishes",
        zh="|a| 不小于4：tanh饱和，变化率几乎为0",
    ),
)

CHECK = Check(
    "tanh_local_rate",
    ref.tanh_local_rate,
    lambda: [
        Case((2.0,), label={"en": "section 12.3: a = 2", "zh": "12.3节：在 a = 2 处"}),
        Case((0.0,), label={"en": "a = 0", "zh": "在 a = 0 处"}),
        Case((-1.5,), label={"en": "a = -1.5: tanh is negative there", "zh": "在 a = -1.5 处：这里tanh为负"}),
    ],
    draw=lambda rng: Case((rng.uniform(-3, 3),)),
    points=1,
    branches=BRANCHES,
)


@mistake(
    "tanh_local_rate",
    en="The local rate of tanh is 1 - tanh(a)^2: square the tanh value (about 0.071 at a = 2).",
    zh="tanh的局部变化率是 1 - tanh(a)^2：要把tanh的值平方（a = 2 时约为0.071）。",
)
def tanh_rate_not_squared(a):
    return 1 - np.tanh(a)
