"""retention: what is left of an old cell value along the direct cell path with the forget gate fixed
and nothing written, f ** steps (section 12.4's 0.9 over 8 edges and 0.99 over 100, the second text's
example 3)."""

from __future__ import annotations

import random
from fractions import Fraction

from ....vocabulary import draws
from ....vocabulary.catalogue import mistake
from ....vocabulary.spec import Branch, Case, Check
from ....vocabulary.symbolic import to_fraction
from .. import reference as ref


def public():
    (f1, k1), (f2, k2) = ref.SECTION_12_4_RETENTION
    t2 = ref.TEXT2_EXAMPLE_3
    return [
        Case(
            (to_fraction(f1), k1),
            label={
                "en": f"section 12.4: f = {float(f1)} over {k1} edges",
                "zh": f"12.4节：f = {float(f1)}，跨越{k1}条边",
            },
        ),
        Case(
            (to_fraction(f2), k2),
            label={
                "en": f"section 12.4: f = {float(f2)} over {k2} edges",
                "zh": f"12.4节：f = {float(f2)}，跨越{k2}条边",
            },
        ),
        Case(
            (to_fraction(t2["f"]), t2["steps"]),
            label={
                "en": f"second text, example 3: f = {float(t2['f'])} over {t2['steps']} edges",
                "zh": f"第二份教材例3：f = {float(t2['f'])}，跨越{t2['steps']}条边",
            },
        ),
        Case(
            (Fraction(1, 2), 8),
            label={
                "en": "a gate stuck at 0.5: the halving RNN of Chapter 11",
                "zh": "门值固定为0.5：即第11章中逐次减半的RNN",
            },
        ),
        Case(
            (Fraction(3, 4), 0),
            label={
                "en": "f = 0.75 over 0 edges: nothing multiplied yet",
                "zh": "f = 0.75，跨越0条边：还没有乘过任何因子",
            },
        ),
        Case((Fraction(0), 5), label={"en": "f = 0 over 5 edges: the gate closed", "zh": "f = 0，跨越5条边：门已关闭"}),
        Case(
            (Fraction(1), 40),
            label={
                "en": "f = 1 over 40 edges (the most drawn): the gate fully open",
                "zh": "f = 1，跨越40条边（抽取的最多边数）：门完全打开",
            },
        ),
    ]


RETENTION_MOST = 40


def draw(rng: random.Random, steps: int | None = None) -> Case:
    f = draws.rational(rng, 0, 1, denominators=(2, 4, 5, 8, 10, 20, 100))
    return Case((f, rng.randint(1, RETENTION_MOST) if steps is None else steps))


BRANCHES = (
    Branch(
        "zero_edges", lambda case, expected: case.args[1] == 0, en="0 edges: the value unchanged", zh="0条边：数值不变"
    ),
    Branch(
        "one_edge",
        lambda case, expected: case.args[1] == 1,
        lambda rng: draw(rng, 1),
        en="one edge",
        zh="一条边",
    ),
    Branch(
        "most_edges",
        lambda case, expected: case.args[1] >= RETENTION_MOST,
        lambda rng: draw(rng, RETENTION_MOST),
        en="the most edges drawn",
        zh="抽取的最多边数",
    ),
    Branch(
        "forget_closed",
        lambda case, expected: case.args[0] == 0 and case.args[1] > 0,
        en="f = 0: nothing left",
        zh="f = 0：什么都不剩",
    ),
    Branch("forget_open", lambda case, expected: case.args[0] == 1, en="f = 1: everything kept", zh="f = 1：全部保留"),
    Branch(
        "forget_half",
        lambda case, expected: case.args[0] == Fraction(1, 2),
        en="f = 0.5: kept and lost alike",
        zh="f = 0.5：保留与丢失一样多",
    ),
)


CHECK = Check(
    "retention",
    ref.retention,
    public,
    exact=True,
    draw=draw,
    points=1,
    branches=BRANCHES,
)


@mistake(
    "retention",
    en=(
        "The forget gate value is the fraction that is KEPT on each edge (close to 1 means forgetting little), not the "
        "fraction that is lost."
    ),
    zh="遗忘门的值是每条边上保留下来的比例（接近1表示忘得少），而不是丢掉的比例。",
)
def retention_forget_as_loss(f, steps):
    return (1 - f) ** steps


@mistake(
    "retention",
    en=(
        "Count the edges, not the states: each edge of the direct cell path multiplies by the forget gate once, and "
        "zero edges leave the value unchanged."
    ),
    zh="数边，不要数状态：单元直接路径上的每条边都乘一次遗忘门，零条边则让数值保持不变。",
)
def retention_counts_states(f, steps):
    return f ** (steps + 1)
