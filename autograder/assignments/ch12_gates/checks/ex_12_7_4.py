"""ex_12_7_4: exercise 12.7.4, one scalar LSTM cell from given gate values and again with the output
gate closed (is the new cell erased?), asked with the book's numbers and others, answers not shown.
It computes its scalar cell itself (on scalars a dot product is the product, so
`dot_product_not_elementwise` would be right on every draw of it): its mistakes are its own."""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np

from ....vocabulary import draws
from ....vocabulary.catalogue import mistake
from ....vocabulary.spec import Branch, Case, Check
from .. import reference as ref
from ..models import between, cell_case, gate


def public():
    F = Fraction
    return [
        cell_case(
            ref.EXERCISE_12_7_4,
            {
                "en": "exercise 12.7.4: cell 0.8, f 0.5, i 0.25, g -0.4, o 1",
                "zh": "习题12.7.4：单元值0.8，f 0.5，i 0.25，g -0.4，o 1",
            },
        ),
        Case(
            (F(-3, 2), F(1), F(1, 2), F(3, 5), F(1, 2)),
            label={
                "en": "the same question with other numbers: cell -1.5, f 1, i 0.5, g 0.6, o 0.5",
                "zh": "换一组数值问同一个问题：单元值-1.5，f 1，i 0.5，g 0.6，o 0.5",
            },
        ),
        Case(
            (F(1, 2), F(1, 4), F(3, 4), F(-1, 2), F(0)),
            label={
                "en": "the output gate closed from the start: cell 0.5, f 0.25, i 0.75, g -0.5, o 0",
                "zh": "输出门一开始就关闭：单元值0.5，f 0.25，i 0.75，g -0.5，o 0",
            },
        ),
    ]


def draw(rng: random.Random, **given) -> Case:
    """One scalar cell: an old cell of either sign, gates in [0, 1] (now and then a limit setting), a
    nonzero candidate in [-1, 1]; `given` fixes some of them."""
    values = {
        "c_prev": draws.rational(rng, -2, 2, nonzero=True),
        "f": gate(rng),
        "i": gate(rng),
        "g": draws.rational(rng, -1, 1, nonzero=True),
        "o": gate(rng),
    }
    values.update({key: value(rng) if callable(value) else Fraction(value) for key, value in given.items()})
    return Case(tuple(values[key] for key in ("c_prev", "f", "i", "g", "o")))


BRANCHES = (
    Branch(
        "output_open",
        lambda case, expected: case.args[4] == 1,
        lambda rng: draw(rng, o=1),
        en="o = 1, as in the book: h = tanh(c)",
        zh="o = 1，与书中相同：h = tanh(c)",
    ),
    Branch(
        "output_between",
        lambda case, expected: 0 < case.args[4] < 1,
        lambda rng: draw(rng, o=between),
        en="an output gate strictly between 0 and 1",
        zh="输出门严格介于0和1之间",
    ),
    Branch(
        "output_closed",
        lambda case, expected: case.args[4] == 0,
        en="o = 0 given: the cell still updated, h = 0 both times",
        zh="给定 o = 0：单元值照常更新，两次的h都是0",
    ),
    Branch(
        "forget_open",
        lambda case, expected: case.args[1] == 1,
        en="f = 1: the old cell kept whole",
        zh="f = 1：旧单元值完整保留",
    ),
    Branch(
        "forget_closed",
        lambda case, expected: case.args[1] == 0,
        lambda rng: draw(rng, f=0, o=between),
        en="f = 0: the old cell dropped",
        zh="f = 0：旧单元值被丢弃",
    ),
    Branch(
        "input_closed",
        lambda case, expected: case.args[2] == 0,
        lambda rng: draw(rng, i=0, f=between, o=between),
        en="i = 0: nothing written",
        zh="i = 0：什么都不写入",
    ),
    Branch("cell_negative", lambda case, expected: expected["c"] < 0, en="a negative new cell", zh="新单元值为负"),
)


CHECK = Check(
    "ex_12_7_4",
    ref.ex_12_7_4,
    public,
    exact=True,
    reveal=False,
    draw=draw,
    points=1,
    branches=BRANCHES,
)


@mistake(
    "ex_12_7_4",
    en=(
        "The output gate was applied to the cell, so with o = 0 the new cell came out erased. The output gate only "
        "scales what the cell exposes, h = o * tanh(c); the cell c = f * c_prev + i * g is updated and kept whatever o "
        "is (12.8: the output gate controls how much is exposed, not how the cell is updated)."
    ),
    zh=(
        "输出门被作用到了单元状态上，于是 o = 0 时新单元值被抹掉了。输出门只缩放单元向外提供的值，h = o * tanh(c)；"
        "单元状态 c = f * c_prev + i * g 无论o是多少都照常更新并保留（12.8：输出门控制向外提供多少，"
        "而不是本步怎样更新单元）。"
    ),
)
def ex_output_gate_erases_cell(c_prev, f, i, g, o):
    kept, written = f * c_prev, i * g
    c, c_closed = o * (kept + written), 0 * (kept + written)  # the output gate on the stored cell
    return {
        "kept": kept,
        "written": written,
        "c": c,
        "h": np.tanh(np.asarray(c, dtype=float)),
        "c with o = 0": c_closed,
        "h with o = 0": np.tanh(np.asarray(c_closed, dtype=float)),
    }


@mistake(
    "ex_12_7_4",
    en=(
        "The hidden value skips a squashing step: the output gate multiplies tanh of the new cell, h = o * tanh(c), "
        "not the cell itself (section 12.4.1)."
    ),
    zh="隐藏值少了一步压缩：输出门乘的是新单元值的tanh，h = o * tanh(c)，而不是单元值本身（12.4.1节）。",
)
def ex_h_without_tanh(c_prev, f, i, g, o):
    kept, written = f * c_prev, i * g
    c = kept + written
    return {"kept": kept, "written": written, "c": c, "h": o * c, "c with o = 0": c, "h with o = 0": 0 * c}


@mistake(
    "ex_12_7_4",
    en=(
        "The old cell was kept whole and the new part added on top (c_prev + i * g), as if there were no forget gate. "
        "In section 12.4.1 the forget gate decides how much of the old cell is kept: the kept part is the old cell "
        "scaled by it."
    ),
    zh=(
        "旧单元值被完整保留，再把新的部分加在上面（c_prev + i * g），好像没有遗忘门一样。"
        "在12.4.1节中，由遗忘门决定旧单元值保留多少：保留的部分是被它缩放后的旧单元值。"
    ),
)
def ex_cell_without_forget_gate(c_prev, f, i, g, o):
    kept, written = c_prev, i * g
    c = kept + written
    tanh_c = np.tanh(np.asarray(c, dtype=float))
    return {"kept": kept, "written": written, "c": c, "h": o * tanh_c, "c with o = 0": c, "h with o = 0": 0 * tanh_c}
