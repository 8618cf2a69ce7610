"""`generation_features`: the features a generator may use, the forward states only (section 12.5:
bidirectional is not a generator seeing the words it has not generated yet)."""

from __future__ import annotations

import random

import numpy as np

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
    rng, step = seeded(1207)
    square_rng, square = seeded(1210)
    return [
        Case(
            (third_text_step(), column([1, 0, -1]), np.zeros(1)),
            label={"en": "third text's tanh RNN on (1, 0, -1)", "zh": "第三份教材的 tanh RNN 读取 (1, 0, -1)"},
        ),
        Case(
            (third_text_step(), column([1]), np.zeros(1)),
            label={"en": "third text's tanh RNN on one input (1)", "zh": "第三份教材的 tanh RNN 只读一个输入 (1)"},
        ),
        # as many steps as state coordinates: the features returned by coordinate instead of by step differ
        Case(
            (square, random_inputs(square_rng, 3, 3), random_h0(square_rng, 3)),
            label={
                "en": "T = 3 steps of a state of d = 3 coordinates (D = 3), h0 not zero: one row a step",
                "zh": "T = 3 步，状态有 d = 3 个坐标（D = 3），h0不为零：每一步一行",
            },
        ),
        Case(
            (step, random_inputs(rng, 12, 3), random_h0(rng, 3)),
            label={
                "en": "the largest size drawn: T = 12, D = d = 3, h0 not zero",
                "zh": "抽取范围内最大的规模：T = 12，D = d = 3，h0不为零",
            },
        ),
    ]


def draw(rng: random.Random, dims=random_dims) -> Case:
    D, d = dims(rng)
    return Case((random_step(rng, D, d), random_inputs(rng, rng.randint(1, 12), D), random_h0(rng, d)))


BRANCHES = (
    Branch("length_one", arg(1, lambda xs: len(xs) == 1), en="a sequence of one step", zh="只有一步的序列"),
    nonzero_h0(2),
    unequal_widths(draw),
    Branch(
        "largest",
        lambda case, expected: len(case.args[1]) == 12 and size(case.args[0]) == (3, 3),
        en="the largest size drawn: T = 12, D = d = 3",
        zh="抽取范围内最大的规模：T = 12，D = d = 3",
    ),
)


def _generation_after(case: Case, t: int) -> Case:
    step, xs, h0 = case.args
    return Case((step, replace_after(xs, t, 100 * t), h0))


PROBES = (
    probes.causal(
        probes.steps_view(),
        lambda c: len(c.args[1]),
        _generation_after,
        message={
            "en": (
                "Leak: changing only the inputs after step {after} changed the generation feature at {where}. "
                "A generator at step t has not seen later inputs, so its features may not depend on them."
            ),
            "zh": (
                "泄漏：只改动第{after}步之后的输入，{where}处的生成特征就变了。"
                "生成器在第t步还没有见过后面的输入，所以它的特征不能依赖这些输入。"
            ),
        },
    ),
)


CHECK = Check(
    "generation_features",
    ref.generation_features,
    public,
    draw=draw,
    probes=PROBES,
    branches=BRANCHES,
    points=1,
)


_generation_features = solution.generation_features


@mistake(
    "generation_features",
    en=(
        "The feature at step t was built from inputs after t. A generator at step t has produced only x_1..x_t: "
        "which direction of reading is allowed? (exercise 12.7.6)"
    ),
    zh="第t步的特征用到了t之后的输入。生成器到第t步只生成了x_1..x_t：允许按哪个方向读取？（习题12.7.6）",
)
def generation_reads_future(step, xs, h0):
    return _generation_features(step, np.asarray(xs, dtype=float)[::-1], h0)[::-1]


@mistake(
    "generation_features",
    en=(
        "The sequence was read from its last input to its first, "
        "so row t holds a state that has seen x_T..x_{T-t+1}, the end of the sequence, not x_1..x_t. "
        "A generator reads forwards: start from h0 with x_1 and keep the rows in time order."
    ),
    zh=(
        "序列被从最后一个输入读到了第一个，所以第t行的状态看到的是序列末尾的x_T..x_{T-t+1}，而不是x_1..x_t。"
        "生成器是向前读的：从h0出发先读x_1，并按时间顺序保留各行。"
    ),
)
def sequence_reversed(step, xs, h0):
    return _generation_features(step, np.asarray(xs, dtype=float)[::-1], h0)


@mistake(
    "generation_features",
    en=(
        "Every step got the state after the whole sequence, so step t sees inputs after t. "
        "Generation features may only use what has been read up to t."
    ),
    zh="每一步拿到的都是读完整个序列后的状态，所以第t步看到了t之后的输入。生成用的特征只能使用截至t已经读过的内容。",
)
def final_state_everywhere(step, xs, h0):
    states = _generation_features(step, xs, h0)
    return np.repeat(states[-1:], len(states), axis=0)


@mistake(
    "generation_features",
    en=(
        "Features for generation came out with both directions. The backward half has read the future, "
        "which a generator does not have (section 12.5: bidirectional is not a generator seeing its unwritten words)."
    ),
    zh=(
        "生成用的特征包含了两个方向。反向那一半已经读过未来，而生成器并没有未来（12.5节："
        "“双向”并不是说生成器能看见自己还没生成的词）。"
    ),
)
def both_directions_in_generation(step, xs, h0):
    forward = _generation_features(step, xs, h0)
    backward = _generation_features(step, np.asarray(xs, dtype=float)[::-1], h0)[::-1]
    return np.concatenate([forward, backward], axis=1)


@mistake(
    "generation_features",
    en=(
        "A backward reader's state was added into the features: it has read the inputs after t, which a generator "
        "does not have yet. Generation features are the forward states alone (section 12.5, exercise 12.7.6)."
    ),
    zh="特征里加进了反向读取器的状态：它读过t之后的输入，而生成器那时还没有这些输入。生成用的特征只有前向状态（12.5节，习题12.7.6）。",
)
def backward_state_added(step, xs, h0):
    forward = _generation_features(step, xs, h0)
    return forward + _generation_features(step, np.asarray(xs, dtype=float)[::-1], h0)[::-1]


@mistake(
    "generation_features",
    en=(
        "The features were shifted by one step: row t held the state before x_t (h_{t-1}, from h0), as if for teacher "
        "forcing. Row t is the state after reading x_1..x_t; the shift between what is read and what is predicted "
        "belongs to the targets (x_{t+1} is predicted from h_t), not to the features."
    ),
    zh="特征错开了一步：第t行放的是读入x_t之前的状态（h_{t-1}，从h0开始），像是为教师强制准备的。第t行应是读完x_1..x_t之后的状态；"
    "“读入什么、预测什么”之间的错位属于目标（用h_t预测x_{t+1}），而不属于特征。",
)
def features_shifted_by_one(step, xs, h0):
    states = _generation_features(step, xs, h0)
    return np.concatenate([np.asarray(h0, dtype=float).reshape(1, -1), states[:-1]])
