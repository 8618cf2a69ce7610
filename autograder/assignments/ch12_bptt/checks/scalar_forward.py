"""scalar_forward: the states of the scalar recursion h_t = x_t + w h_{t-1} (Example 12.1)."""

from __future__ import annotations

import random
from fractions import Fraction

from ....vocabulary import draws
from ....vocabulary.catalogue import mistake
from ....vocabulary.spec import Branch, Case, Check
from .. import reference as ref
from ..models import LONGEST, book, long_reads, negative, sequence, start


def public():
    xs, w, _, _ = book()
    return [
        Case((xs, w), label={"en": "Example 12.1 (1, 0, 0), w = 0.5", "zh": "例12.1：输入 (1, 0, 0)，w = 0.5"}),
        Case(
            ([1, 2, -1], Fraction(1, 2)),
            label={
                "en": "second text, example 1: inputs (1, 2, -1), a = 0.5",
                "zh": "第二份教材例1：输入 (1, 2, -1)，a = 0.5",
            },
        ),
        Case(
            (long_reads(LONGEST), Fraction(-3, 4)),
            label={
                "en": f"{LONGEST} reads (the longest drawn): (1, 0, 0, 1, 2, -1) twice, w = -0.75",
                "zh": f"{LONGEST}次读取（抽取的最长长度）：(1, 0, 0, 1, 2, -1) 两遍，w = -0.75",
            },
        ),
        # the branches on which building every state from h0 is right too: shown here, never drawn
        Case(
            ([Fraction(3, 4)], Fraction(1, 2)),
            {"h0": Fraction(-1, 2)},
            label={
                "en": "one read (T = 1): x_1 = 0.75, w = 0.5, from h0 = -0.5",
                "zh": "只有一次读取（T = 1）：x_1 = 0.75，w = 0.5，从 h0 = -0.5 出发",
            },
        ),
        Case(
            ([1, 2, -1], Fraction(0)),
            {"h0": Fraction(1)},
            label={
                "en": "w = 0: inputs (1, 2, -1) from h0 = 1, nothing carried",
                "zh": "w = 0：输入 (1, 2, -1)，从 h0 = 1 出发，什么也不传递",
            },
        ),
    ]


def draw(rng: random.Random) -> Case:
    return Case((sequence(rng), draws.rational(rng, nonzero=True)), {"h0": draws.rational(rng)})


BRANCHES = (
    Branch(
        "one_read",
        lambda case, _: len(case.args[0]) == 1,
        None,
        en="a sequence of one read (T = 1): the one state is x_1 + w h_0",
        zh="只有一次读取的序列（T = 1）：唯一的状态是 x_1 + w h_0",
    ),
    Branch(
        "longest",
        lambda case, _: len(case.args[0]) == LONGEST,
        None,
        en=f"the longest sequence drawn ({LONGEST} reads)",
        zh=f"抽取的最长序列（{LONGEST}次读取）",
    ),
    Branch(
        "negative_weight",
        lambda case, _: case.args[1] < 0,
        lambda rng: Case((sequence(rng), negative(rng)), {"h0": draws.rational(rng)}),
        en="a negative weight w: the states alternate in sign",
        zh="负的权重w：状态的符号交替变化",
    ),
    Branch(
        "zero_weight",
        lambda case, _: case.args[1] == 0,
        None,
        en="w = 0: each state is its own input, nothing is carried",
        zh="w = 0：每个状态就是它自己的输入，什么也不传递",
    ),
    Branch(
        "start_not_zero",
        lambda case, _: start(case) != 0,
        lambda rng: Case((sequence(rng), draws.rational(rng, nonzero=True)), {"h0": draws.rational(rng, nonzero=True)}),
        en="a start h0 other than 0",
        zh="初始状态h0不为0",
    ),
)

CHECK = Check(
    "scalar_forward",
    ref.scalar_forward,
    public,
    exact=True,
    draw=draw,
    points=1,
    branches=BRANCHES,
)


@mistake(
    "scalar_forward",
    en="Each new state must be built from the previous state h_{t-1}, not from h0 every time: carry h forward "
    "through the loop (Example 12.1: 1, 0.5, 0.25).",
    zh="每个新状态都必须由上一个状态h_{t-1}算出，而不是每次都从h0出发："
    "在循环中把h一步步向前传递（例12.1：1, 0.5, 0.25）。",
)
def old_state_not_carried(xs, w, h0=0):
    return [x + w * h0 for x in xs]
