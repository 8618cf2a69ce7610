"""`bidirectional_features`: forward and backward states side by side, for a task given the whole
input (section 12.5's ELMo; the survey text: one reader goes left to right, the other right to
left)."""

from __future__ import annotations

import random

import numpy as np

from rnnkit.helpers import TanhStep

from ....vocabulary import probes
from ....vocabulary.catalogue import mistake
from ....vocabulary.spec import Branch, Case, Check
from .. import reference as ref
from ..models import (
    arg,
    column,
    nonzero_h0,
    random_dims,
    random_h0,
    random_inputs,
    random_step,
    replace_after,
    seeded,
    size,
    solution,
    third_text_step,
    unequal_widths,
)


def public():
    rng, step = seeded(1208)
    square_rng, square = seeded(1211, 2, 1)
    return [
        Case(
            (third_text_step(), third_text_step(-0.5), column([1, 0, -1]), np.zeros(1)),
            label={
                "en": "third text's step forward, W_h = -0.5 backward, on (1, 0, -1)",
                "zh": "正向用第三份教材的单步，反向用 W_h = -0.5，输入 (1, 0, -1)",
            },
        ),
        Case(
            (third_text_step(), third_text_step(-0.5), column([1]), np.zeros(1)),
            label={"en": "the same two steps on one input (1)", "zh": "同样的两个单步，只读一个输入 (1)"},
        ),
        # T = D and T = 2d: the inputs read by coordinate, or the features returned by coordinate, differ
        Case(
            (square, TanhStep.seeded(1212, 2, 1), random_inputs(square_rng, 2, 2), random_h0(square_rng, 1)),
            label={
                "en": "T = 2 steps of D = 2 inputs, d = 1 (each row [forward, backward]), h0 not zero",
                "zh": "T = 2 步，每步 D = 2 个输入坐标，d = 1（每行是前向状态接着后向状态），h0不为零",
            },
        ),
        Case(
            (step, TanhStep.seeded(1209, 3, 3), random_inputs(rng, 12, 3), random_h0(rng, 3)),
            label={
                "en": "the largest size drawn: T = 12, D = d = 3, h0 not zero",
                "zh": "抽取范围内最大的规模：T = 12，D = d = 3，h0不为零",
            },
        ),
    ]


def draw(rng: random.Random, dims=random_dims) -> Case:
    D, d = dims(rng)
    return Case(
        (random_step(rng, D, d), random_step(rng, D, d), random_inputs(rng, rng.randint(1, 12), D), random_h0(rng, d))
    )


BRANCHES = (
    Branch(
        "length_one",
        arg(2, lambda xs: len(xs) == 1),
        en="a sequence of one step: both readers have read only x_1",
        zh="只有一步的序列：两个方向都只读了x_1",
    ),
    nonzero_h0(3),
    unequal_widths(draw),
    Branch(
        "largest",
        lambda case, expected: len(case.args[2]) == 12 and size(case.args[0]) == (3, 3),
        en="the largest size drawn: T = 12, D = d = 3",
        zh="抽取范围内最大的规模：T = 12，D = d = 3",
    ),
)


def _replace_before(xs, t: int, seed: int) -> np.ndarray:
    xs = np.array(xs, dtype=float)
    xs[: t - 1] = probes.replacement_values(xs[: t - 1].shape, seed)
    return xs


def _bidirectional_after(case: Case, t: int) -> Case:
    step_f, step_b, xs, h0 = case.args
    return Case((step_f, step_b, replace_after(xs, t, 100 * t), h0))


def _bidirectional_before(case: Case, t: int) -> Case:
    step_f, step_b, xs, h0 = case.args
    return Case((step_f, step_b, _replace_before(xs, t, 100 * t), h0))


PROBES = (
    probes.causal(
        probes.columns_view(0, 2, "the forward half"),
        lambda c: len(c.args[2]),
        _bidirectional_after,
        message={
            "en": (
                "Causality rule broken: changing only the inputs after step {after} changed {where}. "
                "The forward half at step t may read x_1..x_t only."
            ),
            "zh": "违反因果规则：只改动第{after}步之后的输入，{where}就变了。前向那一半在第t步只能读取x_1..x_t。",
        },
    ),
    probes.anticausal(
        probes.columns_view(1, 2, "the backward half"),
        lambda c: len(c.args[2]),
        _bidirectional_before,
        message={
            "en": (
                "Direction rule broken: changing only the inputs before step {before} changed {where}. "
                "The backward half at step t reads x_T down to x_t only."
            ),
            "zh": (
                "违反方向规则：只改动第{before}步之前的输入，{where}就变了。反向那一半在第t步只读取从x_T到x_t的输入。"
            ),
        },
    ),
)


CHECK = Check(
    "bidirectional_features",
    ref.bidirectional_features,
    public,
    draw=draw,
    probes=PROBES,
    branches=BRANCHES,
    points=2,
)


_generation_features = solution.generation_features


@mistake(
    "bidirectional_features",
    en=(
        "The backward reader's states were not put back in time order: they stand in the order they were produced, "
        "so row 1 holds the state after reading x_T alone. The backward state shown at step t must be the one that "
        "has read x_T down to x_t. After reading the reversed inputs, in which order must that list of states stand "
        "beside the forward states? (section 12.5; the survey text: one reader goes left to right, "
        "the other right to left)"
    ),
    zh=(
        "反向读取器的状态没有按时间顺序放回：它们保持着产生时的顺序，所以第1行是只读了x_T之后的状态。"
        "第t步显示的反向状态，必须是从x_T一直读到x_t之后的那个状态。"
        "倒着读完输入之后，这一串状态应当按什么顺序与前向状态并排？（12.5节；综述文本："
        "一条从左向右读，一条从右向左读）"
    ),
)
def backward_not_realigned(step_f, step_b, xs, h0):
    return np.concatenate(
        [_generation_features(step_f, xs, h0), _generation_features(step_b, np.asarray(xs, dtype=float)[::-1], h0)],
        axis=1,
    )


@mistake(
    "bidirectional_features",
    en=(
        "The backward half read the inputs from x_1 onwards, in the same direction as the forward half, "
        "only with its own step. A backward reader starts at the last input: at step t it has read "
        "x_T, x_{T-1}, ..., x_t (section 12.5: the backward language model reads from the right)."
    ),
    zh=(
        "反向那一半和前向那一半一样，从x_1开始往后读，只是换了自己的单步函数。反向读取器从最后一个输入开始："
        "在第t步，它已经读了x_T、x_{T-1}、……、x_t（12.5节：反向语言模型从右侧读起）。"
    ),
)
def backward_reads_forwards(step_f, step_b, xs, h0):
    return np.concatenate([_generation_features(step_f, xs, h0), _generation_features(step_b, xs, h0)], axis=1)


@mistake(
    "bidirectional_features",
    en=(
        "The backward state at step t did not include x_t itself. Re-read the contract: "
        "at t the backward reader has read x_T down to which input?"
    ),
    zh="第t步的反向状态没有包含x_t本身。重读接口约定：在第t步，反向读取器已经从x_T读到了哪个输入？",
)
def backward_excludes_current(step_f, step_b, xs, h0):
    backward = _generation_features(step_b, np.asarray(xs, dtype=float)[::-1], h0)[::-1]
    shifted = np.vstack([backward[1:], np.asarray(h0, dtype=float)[None, :]])
    return np.concatenate([_generation_features(step_f, xs, h0), shifted], axis=1)


@mistake(
    "bidirectional_features",
    en=(
        "The backward direction was computed with the forward step. The two directions are separate networks, "
        "each with its own step function."
    ),
    zh="反向方向是用前向的单步函数算的。两个方向是两个独立的网络，各有自己的单步函数。",
)
def forward_step_used_backward(step_f, step_b, xs, h0):
    backward = _generation_features(step_f, np.asarray(xs, dtype=float)[::-1], h0)[::-1]
    return np.concatenate([_generation_features(step_f, xs, h0), backward], axis=1)


@mistake(
    "bidirectional_features",
    en="The two halves of each feature row are in the wrong order. Check which direction the contract puts first.",
    zh="每行特征的两半顺序反了。检查接口约定把哪个方向放在前面。",
)
def halves_swapped(step_f, step_b, xs, h0):
    backward = _generation_features(step_b, np.asarray(xs, dtype=float)[::-1], h0)[::-1]
    return np.concatenate([backward, _generation_features(step_f, xs, h0)], axis=1)
