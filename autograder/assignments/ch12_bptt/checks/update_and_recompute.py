"""update_and_recompute: one update of w by backpropagation through time, then the forward pass again
(Example 12.1, after the update)."""

from __future__ import annotations

import random
from fractions import Fraction

from ....vocabulary import draws
from ....vocabulary.catalogue import mistake
from ....vocabulary.spec import Branch, Case, Check
from .. import reference as ref
from ..models import LONGEST_UPDATE, SOLUTION, TWICE, book, long_reads, negative, replaced, sequence


def public():
    xs, w, target, lr = book()
    return [
        Case((xs, w, target, lr), label={"en": "Example 12.1, learning rate 0.1", "zh": "例12.1，学习率0.1"}),
        Case(
            (long_reads(LONGEST_UPDATE), Fraction(1, 2), Fraction(1), Fraction(1, 10)),
            label={
                "en": f"{LONGEST_UPDATE} reads (the longest drawn): (1, 0, 0, 1, 2, -1, 1, 0), w = 0.5, target 1, "
                "learning rate 0.1",
                "zh": f"{LONGEST_UPDATE}次读取（抽取的最长长度）：(1, 0, 0, 1, 2, -1, 1, 0)，w = 0.5，目标1，学习率0.1",
            },
        ),
        # from h_0 = 0 one read gives a zero gradient: w and the states are kept (a stale pass is right there)
        Case(
            ([Fraction(3, 4)], Fraction(1, 2), Fraction(2), Fraction(1, 10)),
            label={
                "en": "one read (T = 1): x_1 = 0.75, w = 0.5, target 2: from h_0 = 0 the gradient is 0",
                "zh": "只有一次读取（T = 1）：x_1 = 0.75，w = 0.5，目标2：从 h_0 = 0 出发梯度为0",
            },
        ),
    ]


def draw(rng: random.Random) -> Case:
    return Case(
        (
            sequence(rng, LONGEST_UPDATE),
            draws.rational(rng, -1, 1, nonzero=True),
            draws.rational(rng, -2, 2),
            draws.rational(rng, 0, 1, denominators=(10, 20), nonzero=True),
        )
    )


BRANCHES = (
    Branch(
        "one_read",
        lambda case, _: len(case.args[0]) == 1,
        None,
        en="a sequence of one read: from h_0 = 0 the gradient is 0, so w is kept",
        zh="只有一次读取的序列：从 h_0 = 0 出发梯度为0，所以w保持不变",
    ),
    Branch(
        "longest",
        lambda case, _: len(case.args[0]) == LONGEST_UPDATE,
        None,
        en=f"the longest sequence drawn ({LONGEST_UPDATE} reads)",
        zh=f"抽取的最长序列（{LONGEST_UPDATE}次读取）",
    ),
    Branch(
        "negative_weight",
        lambda case, _: case.args[1] < 0,
        lambda rng: replaced(draw(rng), 1, negative(rng, -1)),
        en="a negative weight w",
        zh="负的权重w",
    ),
    Branch(
        "zero_gradient",
        lambda case, expected: expected["w"] == case.args[1],
        None,
        en="a zero gradient (one read from h_0 = 0, or h_T at the target): w and the states unchanged",
        zh="梯度为0（从 h_0 = 0 出发只读一次，或 h_T 恰好等于目标）：w和状态都不变",
    ),
    Branch(
        "large_step",
        lambda case, _: case.args[3] >= 1,
        lambda rng: replaced(draw(rng), 3, rng.choice([Fraction(1), Fraction(3, 2), Fraction(2)])),
        en="a step size (learning rate) of 1 or more",
        zh="步长（学习率）不小于1",
    ),
)

CHECK = Check(
    "update_and_recompute",
    ref.update_and_recompute,
    public,
    exact=True,
    draw=draw,
    points=2,
    call=TWICE,
    branches=BRANCHES,
)


_bptt_scalar, _scalar_forward = SOLUTION.bptt_scalar, SOLUTION.scalar_forward


@mistake(
    "update_and_recompute",
    en="After the update the old states are stale: recompute the forward pass with the new w before you report "
    "states and loss.",
    zh="更新之后，旧的状态已经过时：先用新的w重新做一遍前向计算，再报告状态和损失。",
)
def stale_states_after_update(xs, w, target, lr):
    states = _scalar_forward(xs, w)
    w_new = w - lr * _bptt_scalar(xs, w, target)["grad"]
    return {"w": w_new, "states": states, "loss": (states[-1] - target) ** 2 / 2}
