"""clip_by_global_norm: gradient clipping by the global (joint) norm of all tensors, one factor for all, against
exploding gradients."""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np

from ....vocabulary import draws
from ....vocabulary.catalogue import mistake
from ....vocabulary.spec import Branch, Case, Check
from .. import reference as ref


def _largest():
    """Three tensors, the most the drawer draws, of the largest shapes, whose joint norm is exactly max_norm."""
    return Case(
        (
            [
                np.array([[1.0, -2.0], [0.0, 2.0], [-1.0, 0.0]]),
                np.array([[2.0, 0.0], [-1.0, 1.0]]),
                np.array([0.0, 3.0, 0.0]),
            ],
            5.0,
        ),
        label={
            "en": "three tensors (the most drawn) of norms sqrt(10), sqrt(6) and 3, jointly exactly 5, max_norm 5: "
            "left as they are",
            "zh": "三个张量（抽取的最多个数），范数分别为根号10、根号6和3，整体范数恰好为5，max_norm为5：保持原样",
        },
    )


def public():
    return [
        Case(([np.array([3.0, 4.0])], 1.0), label={"en": "norm 5 clipped to 1", "zh": "范数5，裁剪到1"}),
        Case(
            ([np.array([0.3]), np.array([[0.4]])], 1.0), label={"en": "norm 0.5 left alone", "zh": "范数0.5，保持不变"}
        ),
        # one norm over all tensors: the first alone is under the limit, and is scaled all the same
        Case(
            ([np.array([0.3, 0.4]), np.array([[0.72, 0.96]])], 0.65),
            label={
                "en": "two tensors of norms 0.5 and 1.2 (jointly 1.3) clipped to 0.65: both halved",
                "zh": "两个张量，范数分别为0.5和1.2（整体范数1.3），裁剪到0.65：两者都减半",
            },
        ),
        # integer arrays cannot be scaled in place: only copies made as floats give the values
        Case(
            ([np.array([3, 4]), np.array([[0, 12]])], 6.5),
            label={
                "en": "integer gradients [3, 4] and [[0, 12]] (jointly 13) clipped to 6.5: float copies, the inputs "
                "left alone",
                "zh": "整数梯度 [3, 4] 和 [[0, 12]]（整体范数13）裁剪到6.5：返回浮点副本，输入保持不变",
            },
        ),
        _largest(),
        # all-zero gradients: norm 0, nothing to scale (and nothing to divide by)
        Case(
            ([np.zeros(2), np.zeros((2, 2))], 1.0),
            label={
                "en": "gradients all 0 (norm 0), max_norm 1: copies all 0",
                "zh": "全为0的梯度（范数为0），max_norm为1：返回全0的副本",
            },
        ),
    ]


def draw(rng: random.Random) -> Case:
    """Float gradients, or (one draw in three) integer ones, which cannot be scaled in place."""
    shapes = rng.sample([(2,), (3,), (2, 2), (1, 3), (3, 2)], rng.randint(1, 3))
    if rng.random() < 1 / 3:
        grads = [np.array([rng.randint(-6, 6) for _ in range(int(np.prod(shape)))]).reshape(shape) for shape in shapes]
    else:
        grads = [draws.uniform(rng, shape, -3, 3) for shape in shapes]
    norm = float(np.sqrt(sum(np.sum(g**2) for g in grads)))
    return Case((grads, round(norm * rng.choice([0.25, 0.5, 0.8, 1.5, 2.0]), 3)))


def _exploding(rng: random.Random) -> Case:
    grads = [
        draws.uniform(rng, shape, -300, 300)
        for shape in rng.sample([(2,), (3,), (2, 2), (1, 3), (3, 2)], rng.randint(1, 3))
    ]
    return Case((grads, rng.choice([0.5, 1.0, 2.0])))


def _squared_norm(grads) -> Fraction:
    return sum((Fraction(float(v)) ** 2 for g in grads for v in np.asarray(g, dtype=float).flat), Fraction(0))


BRANCHES = (
    Branch(
        "under",
        lambda case, _: _squared_norm(case.args[0]) < Fraction(case.args[1]) ** 2 and _squared_norm(case.args[0]) > 0,
        None,
        en="a joint norm under max_norm: unchanged copies",
        zh="整体范数小于max_norm：返回不变的副本",
    ),
    Branch(
        "over",
        lambda case, _: _squared_norm(case.args[0]) > Fraction(case.args[1]) ** 2,
        None,
        en="a joint norm over max_norm: all scaled by one factor",
        zh="整体范数大于max_norm：全部按同一个因子缩放",
    ),
    Branch(
        "at_norm",
        lambda case, _: _squared_norm(case.args[0]) == Fraction(case.args[1]) ** 2,
        None,
        en="a joint norm exactly max_norm: unchanged copies",
        zh="整体范数恰好等于max_norm：返回不变的副本",
    ),
    Branch(
        "all_zero",
        lambda case, _: _squared_norm(case.args[0]) == 0,
        None,
        en="all-zero gradients (norm 0): zero copies, no division by 0",
        zh="全为0的梯度（范数为0）：返回全0的副本，不能除以0",
    ),
    Branch(
        "exploding",
        lambda case, _: _squared_norm(case.args[0]) > 10_000 * Fraction(case.args[1]) ** 2,
        _exploding,
        en="an exploding gradient, a hundred times max_norm or more",
        zh="爆炸的梯度，达到max_norm的一百倍以上",
    ),
    Branch(
        "integer",
        lambda case, _: all(np.asarray(g).dtype.kind == "i" for g in case.args[0]),
        None,
        en="integer gradients: float copies",
        zh="整数梯度：返回浮点副本",
    ),
    Branch(
        "several",
        lambda case, _: len(case.args[0]) > 1,
        None,
        en="several tensors: one joint norm",
        zh="多个张量：一个整体范数",
    ),
    Branch(
        "most_tensors",
        lambda case, _: len(case.args[0]) == 3,
        None,
        en="three tensors, the most drawn",
        zh="三个张量，抽取的最多个数",
    ),
)

CHECK = Check(
    "clip_by_global_norm",
    ref.clip_by_global_norm,
    public,
    draw=draw,
    call="returning_copies",
    points=2,
    branches=BRANCHES,
)


@mistake(
    "clip_by_global_norm",
    en="Clipping by the global norm rescales all gradients by one factor (max_norm / norm) so the direction is kept; "
    "clipping each entry changes the direction.",
    zh="按全局范数做梯度裁剪时，所有梯度都按同一个因子（max_norm / norm）缩放，方向保持不变；"
    "逐项裁剪则会改变梯度的方向。",
)
def clipped_elementwise(grads, max_norm):
    return [np.clip(np.asarray(g, dtype=float), -max_norm, max_norm) for g in grads]


@mistake(
    "clip_by_global_norm",
    en="Each tensor was clipped by its own norm. The global norm is one number over all tensors together; when it is "
    "too large, every tensor is scaled by the same factor, even one whose own norm is small, so the overall "
    "direction is kept.",
    zh="每个张量都按它自己的范数做了裁剪。全局范数是把所有张量合在一起算出的一个数；它过大时，"
    "每个张量都按同一个因子缩放，即使某个张量自己的范数很小也一样，这样整体方向才能保持不变。",
)
def per_tensor_clipping(grads, max_norm):
    clipped = []
    for g in grads:
        g = np.asarray(g, dtype=float)
        norm = float(np.sqrt(np.sum(g**2)))
        clipped.append(g * (max_norm / norm) if norm > max_norm else g.copy())
    return clipped
