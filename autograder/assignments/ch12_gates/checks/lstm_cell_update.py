"""lstm_cell_update: the LSTM cell path of Example 12.3 (section 12.4.1), c = f c_prev + i g and
h = o tanh(c) from given gate values, exact in the cell, with the cases of the second and third texts."""

from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path

import numpy as np

from ....vocabulary import draws, template
from ....vocabulary.catalogue import mistake
from ....vocabulary.spec import Branch, Case, Check
from .. import reference as ref
from ..models import any_entry, cell_case, entries


def _objects(values) -> np.ndarray:
    return np.array(list(values), dtype=object)


def public():
    two = dict(
        c_prev=_objects([Fraction(4, 5), Fraction(-1)]),
        f=_objects([Fraction(9, 10), Fraction(1, 2)]),
        i=_objects([Fraction(1, 5), Fraction(1)]),
        g=_objects([Fraction(1, 2), Fraction(-1, 2)]),
        o=_objects([Fraction(3, 4), Fraction(0)]),
    )
    F = Fraction
    five = dict(
        c_prev=_objects([F(4, 5), F(-3, 2), F(2, 5), F(1), F(-1, 2)]),
        f=_objects([F(1), F(0), F(1, 2), F(3, 4), F(1, 4)]),
        i=_objects([F(0), F(1), F(1, 5), F(1, 2), F(3, 4)]),
        g=_objects([F(1, 2), F(-2, 3), F(-1), F(1, 4), F(1, 3)]),
        o=_objects([F(1), F(1, 2), F(3, 4), F(0), F(1, 10)]),
    )
    return [
        cell_case(
            ref.EXAMPLE_12_3,
            {
                "en": "Example 12.3: cell 0.8, f 0.9, i 0.2, g 0.5, o 0.75",
                "zh": "例12.3：单元值0.8，f 0.9，i 0.2，g 0.5，o 0.75",
            },
        ),
        cell_case(
            ref.EXERCISE_12_7_4,
            {
                "en": "exercise 12.7.4 setup: cell 0.8, f 0.5, i 0.25, g -0.4, o 1",
                "zh": "习题12.7.4的设定：单元值0.8，f 0.5，i 0.25，g -0.4，o 1",
            },
        ),
        cell_case(
            ref.TEXT2_EXAMPLE_3,
            {
                "en": "second text, example 3: cell 2, f 0.8, i 0.25, g -0.4, o 0.5",
                "zh": "第二份教材例3：单元值2，f 0.8，i 0.25，g -0.4，o 0.5",
            },
        ),
        cell_case(
            ref.TEXT3_LSTM,
            {
                "en": "third text: cell 0.8, f 0.9, i 0.2, g -0.5, o 0.75",
                "zh": "第三份教材：单元值0.8，f 0.9，i 0.2，g -0.5，o 0.75",
            },
        ),
        Case(
            tuple(two[key] for key in ("c_prev", "f", "i", "g", "o")),
            label={
                "en": "two cells at once (element-wise, arrays of Fractions)",
                "zh": "同时计算两个单元（逐元素，Fraction数组）",
            },
        ),
        Case(
            tuple(five[key] for key in ("c_prev", "f", "i", "g", "o")),
            label={
                "en": (
                    "five cells (the widest drawn) at the limit settings: f = 1 and i = 0, f = 0 and i = 1, a cell "
                    "that comes to 0, o = 0"
                ),
                "zh": (
                    "五个单元（抽取的最大宽度），取极限设置：f = 1 且 i = 0，f = 0 且 i = 1，一个单元恰好变为0，o = 0"
                ),
            },
        ),
    ]


CELL_WIDEST = 5


def draw(rng: random.Random, d: int | None = None) -> Case:
    d = rng.randint(1, CELL_WIDEST) if d is None else d
    gate = lambda: _objects(draws.rationals(rng, d, low=0, high=1))  # noqa: E731 (0 and 1 are the limits)
    return Case(
        (
            _objects(draws.rationals(rng, d, low=-2, high=2)),
            gate(),
            gate(),
            _objects(draws.rationals(rng, d, low=-1, high=1)),
            gate(),
        )
    )


def _cell_gate(case: Case, name: str) -> list:
    return entries(case.args["c_prev f i g o".split().index(name)])


BRANCHES = (
    Branch(
        "scalar",
        lambda case, expected: np.ndim(case.args[0]) == 0,
        lambda rng: Case(tuple(entries(arg)[0] for arg in draw(rng, 1).args)),
        en="numbers in (Fractions), a Fraction cell out",
        zh="输入是数（Fraction），输出的单元值也是Fraction",
    ),
    Branch(
        "width_one",
        lambda case, expected: np.ndim(case.args[0]) == 1 and len(case.args[0]) == 1,
        lambda rng: draw(rng, 1),
        en="arrays of one cell",
        zh="只有一个单元的数组",
    ),
    Branch(
        "widest",
        lambda case, expected: np.ndim(case.args[0]) == 1 and len(case.args[0]) >= CELL_WIDEST,
        lambda rng: draw(rng, CELL_WIDEST),
        en="the widest arrays drawn",
        zh="抽取的最宽数组",
    ),
    Branch(
        "forget_open",
        lambda case, expected: 1 in _cell_gate(case, "f"),
        en="f = 1: the old cell kept whole",
        zh="f = 1：旧单元值完整保留",
    ),
    Branch(
        "forget_closed",
        lambda case, expected: 0 in _cell_gate(case, "f"),
        en="f = 0: the old cell dropped",
        zh="f = 0：旧单元值被丢弃",
    ),
    Branch(
        "input_closed",
        lambda case, expected: 0 in _cell_gate(case, "i"),
        en="i = 0: nothing written",
        zh="i = 0：什么都不写入",
    ),
    Branch(
        "input_open",
        lambda case, expected: 1 in _cell_gate(case, "i"),
        en="i = 1: the whole candidate written",
        zh="i = 1：写入整个候选值",
    ),
    Branch(
        "output_closed",
        lambda case, expected: 0 in _cell_gate(case, "o"),
        en="o = 0: nothing exposed, the cell still updated",
        zh="o = 0：不向外提供任何值，单元值照常更新",
    ),
    Branch(
        "cell_zero",
        lambda case, expected: any_entry(expected[0], lambda c: c == 0),
        en="a cell that comes to exactly 0",
        zh="单元值恰好变为0",
    ),
    Branch(
        "cell_negative",
        lambda case, expected: any_entry(expected[0], lambda c: c < 0),
        en="a negative cell (a negative h)",
        zh="单元值为负（h也为负）",
    ),
    Branch(
        "cell_beyond_one",
        lambda case, expected: any_entry(expected[0], lambda c: abs(c) > 1),
        en="a cell beyond -1 to 1 (the gates need not add up to one)",
        zh="单元值超出-1到1的范围（门值之和不必为一）",
    ),
)


CHECK = Check(
    "lstm_cell_update",
    ref.lstm_cell_update,
    public,
    exact=True,
    draw=draw,
    points=2,
    branches=BRANCHES,
)


#: The reference solution (the notebook's solution cells), whose right functions the mistakes below call.
_solution = template.module(Path(__file__).resolve().parents[1] / "notebook.md")
sigmoid = _solution.sigmoid


@mistake(
    "lstm_cell_update",
    en=(
        "The output gate was applied to the stored cell. In section 12.4.1 the output gate only scales what is "
        "exposed, h = o * tanh(c); the cell c = f * c_prev + i * g is stored without it (exercise 12.7.4 asks exactly "
        "this)."
    ),
    zh=(
        "输出门被作用到了存储的单元状态上。在12.4.1节中，输出门只缩放向外提供的值，h = o * tanh(c)；"
        "单元状态 c = f * c_prev + i * g 存储时不经过输出门（习题12.7.4问的正是这一点）。"
    ),
)
def output_gate_on_cell(c_prev, f, i, g, o):
    c = o * (f * c_prev + i * g)
    return c, np.tanh(np.asarray(c, dtype=float))


@mistake(
    "lstm_cell_update",
    en=(
        "The hidden value skips a squashing step: the output gate multiplies tanh of the cell, not the cell itself "
        "(section 12.4.1, h_t = o_t * tanh(c_t))."
    ),
    zh="隐藏值少了一步压缩：输出门乘的是单元状态的tanh，而不是单元状态本身（12.4.1节，h_t = o_t * tanh(c_t)）。",
)
def h_without_tanh(c_prev, f, i, g, o):
    c = f * c_prev + i * g
    return c, o * c


@mistake(
    "lstm_cell_update",
    en=(
        "The cell is squashed with the wrong function before the output gate. sigmoid keeps only values between 0 and "
        "1, so a negative cell could never show as a negative h: section 12.4.1 exposes h_t = o_t * tanh(c_t)."
    ),
    zh=(
        "单元状态在进入输出门之前用错了压缩函数。"
        "sigmoid只给出0到1之间的值，负的单元状态就永远无法表现为负的h：12.4.1节暴露出去的是 h_t = o_t * tanh(c_t)。"
    ),
)
def sigmoid_on_cell(c_prev, f, i, g, o):
    c = f * c_prev + i * g
    return c, o * sigmoid(np.asarray(c, dtype=float))


@mistake(
    "lstm_cell_update",
    en=(
        "The input gate was replaced by 1 - f. In the LSTM of section 12.4.1 the input and forget gates are "
        "independent and need not add up to one: use the given i for the written part."
    ),
    zh="输入门被换成了 1 - f。在12.4.1节的LSTM中，输入门和遗忘门彼此独立，门值之和不必为一：写入的部分要用给定的i。",
)
def coupled_input_forget_gates(c_prev, f, i, g, o):
    c = f * c_prev + (1 - f) * g
    return c, o * np.tanh(np.asarray(c, dtype=float))


@mistake(
    "lstm_cell_update",
    en=(
        "The symbol ⊙ is a coordinate-by-coordinate product, not a dot product: each cell coordinate keeps and writes "
        "its own amounts, and the result has one entry per coordinate."
    ),
    zh="符号⊙（逐项相乘）表示对应坐标逐项相乘，不是点积：每个单元坐标各自保留、写入自己的量，结果每个坐标各有一项。",
)
def dot_product_not_elementwise(c_prev, f, i, g, o):
    c = np.dot(f, c_prev) + np.dot(i, g)
    return c, o * np.tanh(np.asarray(c, dtype=float))


@mistake(
    "lstm_cell_update",
    en=(
        "The old cell was carried over whole and the new part added on top (a residual update, c_prev + i * g), as in "
        "the first LSTM of 1997, before the forget gate. The chapter's LSTM (section 12.4.1, after Gers et al., 2000) "
        "lets the forget gate decide how much of the old cell stays: look at what multiplies c_{t-1}."
    ),
    zh=(
        "旧单元值被完整带过来，再把新的部分加在上面（残差式更新，c_prev + i * g），就像加入遗忘门之前1997年的最初LSTM。"
        "本章的LSTM（12.4.1节，沿用Gers等人2000年的形式）由遗忘门决定旧单元值留下多少：看一看什么在乘 c_{t-1}。"
    ),
)
def cell_without_forget_gate(c_prev, f, i, g, o):
    c = c_prev + i * g
    return c, o * np.tanh(np.asarray(c, dtype=float))
