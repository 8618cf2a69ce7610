"""`softmax`: the probabilities of the logits, one per candidate, computed in a numerically stable way
(Example 11.1, Table 11.3)."""

from __future__ import annotations

import random

import numpy as np

from ....vocabulary import draws
from ....vocabulary.catalogue import mistake
from ....vocabulary.spec import Branch, Case, Check
from .. import reference as ref
from ..models import _floats_of


def public():
    return [
        Case(
            (np.array([0.375, 0.0]),), label={"en": "Example 11.1: z_3 = [0.375, 0]", "zh": "例11.1：z_3 = [0.375, 0]"}
        ),
        Case(
            (np.array([1.125, 0.0]),),
            label={"en": "Table 11.3, read 1: [1.125, 0]", "zh": "表11.3，第1次读取：[1.125, 0]"},
        ),
        Case(
            (np.array([1000.0, 999.0]),),
            label={
                "en": "large logits [1000, 999] (numerical stability)",
                "zh": "很大的 logits [1000, 999]（数值稳定性）",
            },
        ),
        Case(
            (np.array([800.0, 0.0, -5.0]),),
            label={
                "en": "three logits far apart [800, 0, -5] (numerical stability)",
                "zh": "三个相距很远的 logits [800, 0, -5]（数值稳定性）",
            },
        ),
        # the hidden cases have up to six candidates
        Case(
            (np.array([0.375, 0.0, 1.125, 0.125, 0.25, -1.0]),),
            label={
                "en": "six logits [0.375, 0, 1.125, 0.125, 0.25, -1] (the logits of Tables 11.3 and Example 11.2, and "
                "one more)",
                "zh": "六个 logits [0.375, 0, 1.125, 0.125, 0.25, -1]（表11.3和例11.2中的logits，再加一个）",
            },
        ),
    ]


def draw(rng: random.Random) -> Case:
    z = draws.matrix(rng, 0, rng.randint(2, 6), scale=rng.choice([1, 2, 4]))
    if rng.random() < 0.3:
        z = z + rng.choice([-1, 1]) * rng.randint(700, 1000)  # exp of these overflows without the shift
    return Case((z,))


#: exp overflows above this (float64), and underflows to 0 below its negative
_EXP_LIMIT = 709.8


def _softmax_branch_draw(kind: str):
    def draw_kind(rng: random.Random) -> Case:
        size = rng.randint(3 if kind == "more_than_two" else 2, 6)
        if kind == "all_equal":  # 0: softmax without exp would divide 0 by 0
            return Case((np.zeros(size),))
        z = draws.matrix(rng, 0, size, scale=rng.choice([1, 2, 4]))
        if kind in ("large_negative", "large_positive"):
            return Case((z + (1 if kind == "large_positive" else -1) * rng.randint(800, 1000),))
        z[rng.randrange(size)] = rng.randint(750, 1000)  # far above the others: a shift by the smallest overflows
        return Case((z,))

    return draw_kind


def _spread(case) -> float:
    z = _floats_of(case.args[0])
    return max(z) - min(z)


BRANCHES = (
    Branch(
        "far_apart",
        lambda case, _: _spread(case) > _EXP_LIMIT,
        _softmax_branch_draw("far_apart"),
        en="logits so far apart that exp of their distance overflows",
        zh="logits相距极远，它们之差的exp会溢出",
    ),
    Branch(
        "large_positive",
        lambda case, _: min(_floats_of(case.args[0])) > _EXP_LIMIT,
        _softmax_branch_draw("large_positive"),
        en="every logit large and positive: exp of each overflows",
        zh="每个logit都是很大的正数：各自的exp都会溢出",
    ),
    Branch(
        "large_negative",
        lambda case, _: max(_floats_of(case.args[0])) < -_EXP_LIMIT - 40,
        _softmax_branch_draw("large_negative"),
        en="every logit large and negative: exp of each underflows to 0",
        zh="每个logit都是绝对值很大的负数：各自的exp都会下溢为0",
    ),
    Branch(
        "all_equal",
        lambda case, _: len(set(_floats_of(case.args[0]))) == 1,
        _softmax_branch_draw("all_equal"),
        en="all logits equal: a uniform distribution",
        zh="所有logit相等：均匀分布",
    ),
    Branch(
        "more_than_two",
        lambda case, _: len(_floats_of(case.args[0])) > 2,
        _softmax_branch_draw("more_than_two"),
        en="more than two candidates",
        zh="多于两个候选",
    ),
)


CHECK = Check("softmax", ref.softmax, public, draw=draw, points=1, branches=BRANCHES)


@mistake(
    "softmax",
    en="The scores were divided by their sum without exponentiating them first. Softmax takes exp of every logit, "
    "then divides by the sum of those exponentials (Example 11.1), so every probability is positive.",
    zh="这些logit没有先取指数，就直接除以了它们的和。Softmax先对每个logit取exp，再除以这些指数值之和（例11.1），"
    "所以每个概率都是正数。",
)
def softmax_without_exp(z):
    z = np.asarray(z, dtype=float)
    return z / np.sum(z)
