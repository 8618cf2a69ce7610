"""ex_12_7_2: exercise 12.7.2, what a program that counts only the last use of w misses, and the update with
the full gradient (Example 12.1, answers in 12.8)."""

from __future__ import annotations

import random
from fractions import Fraction

from ....vocabulary import draws
from ....vocabulary.catalogue import mistake
from ....vocabulary.spec import Branch, Case, Check
from .. import reference as ref
from ..models import LONGEST_UPDATE, SOLUTION, TWICE, book, long_reads, negative, replaced


def public():
    xs, w, target, lr = book()
    return [
        Case(
            (xs, w, target, lr),
            label={
                "en": "exercise 12.7.2: Example 12.1, inputs (1, 0, 0), w = 0.5, target 1, learning rate 0.1",
                "zh": "习题12.7.2：例12.1，输入 (1, 0, 0)，w = 0.5，目标1，学习率0.1",
            },
        ),
        # another length than the book's three (the longest drawn): with three reads from h_0 = 0 the
        # first contributes nothing, so "the second read" is all that is missing there, and only there
        Case(
            (long_reads(LONGEST_UPDATE), Fraction(1, 2), Fraction(1), Fraction(1, 10)),
            label={
                "en": f"exercise 12.7.2 at another length: {LONGEST_UPDATE} reads (1, 0, 0, 1, 2, -1, 1, 0), w = 0.5, "
                "target 1, learning rate 0.1",
                "zh": f"习题12.7.2换一个长度：{LONGEST_UPDATE}次读取 (1, 0, 0, 1, 2, -1, 1, 0)，w = 0.5，目标1，"
                "学习率0.1",
            },
        ),
    ]


def draw(rng: random.Random) -> Case:
    """As update_and_recompute's, with three reads or more: from h_0 = 0 the first read contributes
    nothing, so with two the last read is all there is."""
    return Case(
        (
            draws.rationals(rng, rng.randint(3, LONGEST_UPDATE)),
            draws.rational(rng, -1, 1, nonzero=True),
            draws.rational(rng, -2, 2),
            draws.rational(rng, 0, 1, denominators=(10, 20), nonzero=True),
        )
    )


def _final(xs, w, h0=0):
    """h_T of h_t = x_t + w h_{t-1}, exactly."""
    h = h0
    for x in xs:
        h = x + w * h
    return h


BRANCHES = (
    Branch(
        "book",
        lambda case, _: len(case.args[0]) == 3,
        None,
        en="the book's three reads: from h_0 = 0 only the second read's contribution is missing",
        zh="书中的三次读取：从 h_0 = 0 出发，漏掉的只有第二次读取的贡献",
    ),
    Branch(
        "longest",
        lambda case, _: len(case.args[0]) == LONGEST_UPDATE,
        None,
        en=f"another length than the book's, the longest drawn ({LONGEST_UPDATE} reads): several contributions are "
        "missing",
        zh=f"与书中不同的长度，即抽取的最长长度（{LONGEST_UPDATE}次读取）：漏掉的贡献不止一项",
    ),
    Branch(
        "negative_weight",
        lambda case, _: case.args[1] < 0,
        lambda rng: replaced(draw(rng), 1, negative(rng, -1)),
        en="a negative weight w",
        zh="负的权重w",
    ),
    Branch(
        "overshoot",
        lambda case, _: _final(case.args[0], case.args[1]) > case.args[2],
        lambda rng: (
            lambda case: replaced(case, 2, _final(case.args[0], case.args[1]) - abs(draws.rational(rng, nonzero=True)))
        )(draw(rng)),
        en="h_T above the target: a positive gradient, w moves down",
        zh="h_T 高于目标：梯度为正，w变小",
    ),
)

CHECK = Check(
    "ex_12_7_2",
    ref.ex_12_7_2,
    public,
    exact=True,
    reveal=False,
    draw=draw,
    points=1,
    call=TWICE,
    branches=BRANCHES,
)


_bptt_scalar = SOLUTION.bptt_scalar


@mistake(
    "ex_12_7_2",
    en="\"The second read\" is the book's answer for Example 12.1's three reads only: from h_0 = 0 the first read "
    "contributes nothing, so there the second is all that is missing. In general the program misses every use of w "
    "but the last: add the contributions of all the earlier reads (Table 12.1, last column).",
    zh="“第二次读取”只是书中针对例12.1三次读取的答案：从 h_0 = 0 出发，第一次读取没有贡献，"
    "所以在那里漏掉的只有第二次。一般来说，这个程序漏掉的是除最后一次以外w的每一次使用："
    "要把前面所有读取的贡献都加起来（表12.1最后一列）。",
)
def second_read_only(xs, w, target, lr):
    table = _bptt_scalar(xs, w, target)
    return {"missing contribution": table["contributions"][1], "w_new": w - lr * table["grad"]}


@mistake(
    "ex_12_7_2",
    en="w_new was taken with the gradient of the last use of w alone, the very program the exercise faults. The "
    "update takes the full gradient: the contributions of every read of w added up (Table 12.1, last column).",
    zh="w_new 用的是只含w最后一次使用的梯度，也就是这道习题所批评的那个程序。更新要用完整的梯度："
    "把w每一次读取的贡献都加起来（表12.1最后一列）。",
)
def update_with_last_use_only(xs, w, target, lr):
    table = _bptt_scalar(xs, w, target)
    return {"missing contribution": sum(table["contributions"][:-1]), "w_new": w - lr * table["contributions"][-1]}
