"""`run_stream`: one stream cut into segments, the state carried from each segment into the next
(the third text: continuous audio cut into pieces passes one piece's end state on to the next)."""

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
    rng, step = seeded(1202)
    return [
        Case(
            (third_text_step(), [column([1, 0]), column([-1])], np.zeros(1)),
            label={
                "en": "third text's (1, 0, -1) cut into two segments of one stream",
                "zh": "第三份教材的 (1, 0, -1)，切成同一条输入流的两个片段",
            },
        ),
        Case(
            (third_text_step(), [column([1, 0, -1])], np.zeros(1)),
            label={
                "en": "third text's (1, 0, -1) as one segment: the whole stream",
                "zh": "第三份教材的 (1, 0, -1) 作为一个片段：整条输入流",
            },
        ),
        Case(
            (step, [random_inputs(rng, 6, 3) for _ in range(4)], random_h0(rng, 3)),
            label={
                "en": "the largest size drawn: 4 segments of 6 steps, D = d = 3, h0 not zero",
                "zh": "抽取范围内最大的规模：4个片段，每段6步，D = d = 3，h0不为零",
            },
        ),
    ]


def draw(rng: random.Random, dims=random_dims, longest: int = 6) -> Case:
    D, d = dims(rng)
    return Case(
        (
            random_step(rng, D, d),
            [random_inputs(rng, rng.randint(1, longest), D) for _ in range(rng.randint(2, 4))],
            random_h0(rng, d),
        )
    )


BRANCHES = (
    Branch(
        "one_segment",
        arg(1, lambda segments: len(segments) == 1),
        en="the whole stream in one segment",
        zh="整条输入流只有一个片段",
    ),
    Branch(
        "length_one_segment",
        arg(1, lambda segments: any(len(xs) == 1 for xs in segments)),
        en="a segment of one step",
        zh="只有一步的片段",
    ),
    Branch(
        "every_segment_one_step",
        arg(1, lambda segments: len(segments) > 1 and all(len(xs) == 1 for xs in segments)),
        lambda rng: draw(rng, longest=1),
        en="a stream cut after every step: segments of one step each",
        zh="每一步之后都切开的输入流：每个片段只有一步",
    ),
    nonzero_h0(2),
    unequal_widths(draw),
    Branch(
        "largest",
        lambda case, expected: (
            len(case.args[1]) == 4 and all(len(xs) == 6 for xs in case.args[1]) and size(case.args[0]) == (3, 3)
        ),
        en="the largest size drawn: 4 segments of 6 steps, D = d = 3",
        zh="抽取范围内最大的规模：4个片段，每段6步，D = d = 3",
    ),
)


def _stream_after(case: Case, t: int) -> Case:
    step, segments, h0 = case.args
    cuts = np.cumsum([0, *map(len, segments)])
    return Case(
        (
            step,
            [replace_after(xs, max(t - start, 0), 100 * t + k) for k, (xs, start) in enumerate(zip(segments, cuts))],
            h0,
        )
    )


def _stream_joined(case: Case):
    step, segments, h0 = case.args
    yield (
        "the whole stream run as one segment",
        Case((step, [np.concatenate([np.asarray(s, dtype=float) for s in segments])], h0)),
    )


PROBES = (
    probes.same_result(
        probes.segments_view,
        _stream_joined,
        message={
            "en": (
                "State-boundary rule broken: the segments of one stream do not give the same states as "
                "{variant} (first at {where}). Cutting a stream into segments must not change what the state carries."
            ),
            "zh": (
                "违反状态边界规则：同一条输入流的各个片段，得到的状态与{variant}不同（最早出现在{where}）。"
                "把输入流切成片段，不能改变状态携带的内容。"
            ),
        },
    ),
    probes.causal(probes.segments_view, lambda c: sum(map(len, c.args[1])), _stream_after),
)


CHECK = Check(
    "run_stream",
    ref.run_stream,
    public,
    draw=draw,
    probes=PROBES,
    branches=BRANCHES,
    points=1,
)


_run_independent = solution.run_independent


@mistake(
    "run_stream",
    en=(
        "The segments here are pieces of ONE stream (the third text's audio cut into pieces): "
        "ask whether a new segment should forget what the previous one read."
    ),
    zh=(
        "这里的片段是同一条输入流的几个部分（第三份教材中被切成几段的音频）："
        "想一想，新片段是否应当忘掉上一个片段读过的内容。"
    ),
)
def state_reset_inside_stream(step, segments, h0):
    return _run_independent(step, segments, h0)
